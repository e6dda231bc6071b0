// The step bound (CCD over all candidates + inversion bound) never yields an intersecting or
// inverted state: random walks of large random motions, each advanced by the bound, every state
// judged by the independent exact checker; with the inversion bound on the whole chord (the AL
// paper's) and at its end point (ALC_INVBOUND_END, never below the whole chord's).
#include "alc_internal.h"
#include "check.h"
#include "ref/backend_ref.h"
#include "test_macros.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static double urand(void) {
    g_rng += 0x9E3779B97F4A7C15ull;
    uint64_t z = g_rng;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

/// Eight soft bodies packed close together (0.5 mm gaps) on a ground plane.
static const char* kScene =
    "materials: {m: {model: nh}}\n"
    "bodies:\n"
    "  - name: cube\n"
    "    mesh: {box: {size: 0.1, cells: 2}}\n"
    "    position: [0, 0.0505, 0]\n"
    "    array: {count: [2, 2, 2], spacing: [0.1005, 0.1005, 0.1005]}\n"
    "  - name: ball\n"
    "    mesh: {sphere: {radius: 0.05, cells: 3}}\n"
    "    position: [0.05, 0.26, 0.05]\n"
    "obstacles:\n"
    "  - name: ground\n"
    "    mesh: {plane: {size: 1, cells: 3}}\n";

static int randomMotions(int endPoint) {
    char path[256];
    snprintf(path, sizeof path, "/tmp/alc_test_stepbound_%d.yaml", (int)getpid());
    FILE* f = fopen(path, "w");
    ENSURE(f);
    fputs(kScene, f);
    fclose(f);
    alcModel* m = NULL;
    char err[512];
    ENSURE_MSG(alc_loadScene(path, NULL, &m, err, sizeof err) == ALC_OK, "%s", err);
    remove(path);
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    alcSim* sim = NULL;
    ENSURE_OK(alc_makeSim(m, &def, &sim));
    alcrBackend* B = (alcrBackend*)sim->be.state;
    const alciBackendOps* ops = sim->be.ops;

    // start from the initial state, nothing kinematic but the ground
    double* x = (double*)malloc(sizeof(double) * 3 * (size_t)m->nvert);
    double* zero = (double*)calloc(3 * (size_t)m->nvert, sizeof(double));
    unsigned char* kin = (unsigned char*)calloc((size_t)m->nvert, 1);
    memcpy(x, m->vert_x0, sizeof(double) * 3 * (size_t)m->nvert);
    for (int v = 0; v < m->nvert; v++) kin[v] = m->vert_driver[v] >= 0;
    alciStepInput in = {x, zero, x, kin, 0.01, m->opt.gravity, NULL, NULL, NULL, NULL};  // no rigid
    unsigned char* obstacle = (unsigned char*)calloc((size_t)m->nbody, 1);
    for (int b = 0; b < m->nbody; b++) obstacle[b] = m->body_type[b] == ALC_BODY_OBSTACLE;

    int trials = 150, clean = 0, limited = 0, ncollide = 0, further = 0;
    double alphaSum = 0;
    for (int trial = 0; trial < trials; trial++) {
        ENSURE_OK(ops->beginStep(B, &in));
        // a random target: per body a rigid translation plus per-vertex noise, at a scale drawn
        // from 0.16 mm to 16 cm (against 0.5 mm gaps and 5 cm elements)
        double scale = 0.16 * pow(10, -3 * urand());
        // every fifth: the ball alone turns by 150-175 degrees about a random axis through its
        // centroid; the straight chord squeezes its tetrahedra to cos^2(theta/2) of their volume
        // (7-0.2 %) half way and restores them at the end
        if (trial % 5 == 4) {
            memcpy(B->xhat, x, sizeof(double) * 3 * (size_t)m->nvert);
            int b = m->nbody - 1;
            while (b >= 0 && m->body_type[b] != ALC_BODY_SOLID) b--;
            ENSURE(b >= 0);
            int v0 = m->body_vertadr[b], nv = m->body_vertnum[b];
            double c[3] = {0, 0, 0};
            for (int v = v0; v < v0 + nv; v++) {
                for (int k = 0; k < 3; k++) c[k] += x[3 * v + k] / nv;
            }
            alcV3 axis = alcm_v3_normalize(alcm_v3(urand() - 0.5, urand() - 0.5, urand() - 0.5));
            double th = (150 + 25 * urand()) * 3.14159265358979 / 180, ct = cos(th), sn = sin(th);
            for (int v = v0; v < v0 + nv; v++) {
                alcV3 r = alcm_v3(x[3 * v] - c[0], x[3 * v + 1] - c[1], x[3 * v + 2] - c[2]);
                // Rodrigues: r cos + (axis x r) sin + axis (axis . r)(1 - cos)
                alcV3 q = alcm_v3_add(
                    alcm_v3_add(alcm_v3_scale(r, ct), alcm_v3_scale(alcm_v3_cross(axis, r), sn)),
                    alcm_v3_scale(axis, alcm_v3_dot(axis, r) * (1 - ct)));
                B->xhat[3 * v] = c[0] + q.x;
                B->xhat[3 * v + 1] = c[1] + q.y;
                B->xhat[3 * v + 2] = c[2] + q.z;
            }
        }
        for (int b = 0; b < m->nbody && trial % 5 != 4; b++) {
            if (m->body_type[b] != ALC_BODY_SOLID) continue;
            double t[3] = {scale * (urand() - 0.5), scale * (urand() - 0.5),
                           scale * (urand() - 0.5)};
            for (int v = m->body_vertadr[b]; v < m->body_vertadr[b] + m->body_vertnum[b]; v++) {
                for (int k = 0; k < 3; k++) {
                    B->xhat[3 * v + k] = x[3 * v + k] + t[k] + 0.25 * scale * (urand() - 0.5);
                }
            }
        }
        alciCollectOut cout;
        ENSURE_OK(ops->collect(B, &cout));
        double ainv = 1, aend = 1, accd = fmin(cout.minToi, 1);
        int guards = 0;  // none: tetGuards is 0
        ENSURE_OK(ops->inversionBound(B, m->opt.inversionFraction, 1, 0, 1, &ainv, &guards));
        ENSURE_OK(ops->inversionBound(B, m->opt.inversionFraction, 1, 1, accd, &aend, &guards));
        // the end point's bound: the largest valid alpha below the CCD's, so never below the
        // whole chord's (itself valid) and never above the CCD's
        double apath = fmin(accd, ainv);
        ENSURE_MSG(aend <= accd && aend >= apath * (1 - 1e-6), "trial %d: end %.17g, path %.17g",
                   trial, aend, apath);
        if (aend > apath * (1 + 1e-6)) further++;
        double alpha = endPoint ? aend : apath;
        if (alpha < 1) limited++;
        ncollide += cout.ncollide;
        alphaSum += alpha;
        ENSURE_OK(ops->advance(B, alpha));
        int dummy = 0;
        ENSURE_OK(ops->mergeActive(B, &dummy, &dummy));
        double* vout = zero;
        ENSURE_OK(ops->endStep(B, x, vout));
        memset(zero, 0, sizeof(double) * 3 * (size_t)m->nvert);
        // the independent check of the new state
        alciCheckInput ci;
        memset(&ci, 0, sizeof ci);
        ci.nvert = m->nvert;
        ci.x = x;
        ci.ntet = m->ntet;
        ci.tet = m->tet_vert;
        ci.ntri = m->ntri;
        ci.tri = m->tri_vert;
        ci.nedge = m->nedge;
        ci.edge = m->edge_vert;
        ci.tet_body = m->tet_body;
        ci.tri_body = m->tri_body;
        ci.edge_body = m->edge_body;
        ci.body_obstacle = obstacle;
        alciCheckReport rep;
        ENSURE_OK(alci_check_state(&ci, &rep));
        ENSURE_MSG(rep.clean, "trial %d (alpha %g): %s", trial, alpha, rep.message);
        clean++;
    }
    alct_note(
        "%s: %d random motions: all %d results clean; %d limited by the bound (mean alpha %.3f), "
        "%d colliding pairs found; the end-point bound went further in %d",
        endPoint ? "end point" : "whole chord", trials, clean, limited, alphaSum / trials, ncollide,
        further);
    ENSURE(limited > trials / 4);    // the motions really were blocked by contact or inversion
    ENSURE(limited < trials);        // and some were not
    ENSURE(further >= trials / 10);  // the turns at least went further
    free(x);
    free(zero);
    free(kin);
    free(obstacle);
    alc_deleteSim(sim);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(stepbound_randomMotionsStayClean) {
    return randomMotions(0);
}

ALC_TEST(stepbound_randomMotionsStayCleanEndPoint) {
    return randomMotions(1);
}
