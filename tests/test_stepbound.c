// The step bound (CCD over all candidates + inversion bound) never yields an intersecting or
// inverted state: random walks of large random motions, each advanced by the bound, every state
// judged by the independent exact checker.
#include "alc_internal.h"
#include "check.h"
#include "hd/alcm_elastic.h"
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

ALC_TEST(stepbound_randomMotionsStayClean) {
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
    alciStepInput in = {x, zero, x, kin, 0.01, m->opt.gravity};
    unsigned char* obstacle = (unsigned char*)calloc((size_t)m->nbody, 1);
    for (int b = 0; b < m->nbody; b++) obstacle[b] = m->body_type[b] == ALC_BODY_OBSTACLE;

    int trials = 150, clean = 0, limited = 0, ncollide = 0;
    double alphaSum = 0;
    for (int trial = 0; trial < trials; trial++) {
        ENSURE_OK(ops->beginStep(B, &in));
        // a random target: per body a rigid translation plus per-vertex noise, at a scale drawn
        // from 0.16 mm to 16 cm (against 0.5 mm gaps and 5 cm elements)
        double scale = 0.16 * pow(10, -3 * urand());
        for (int b = 0; b < m->nbody; b++) {
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
        double ainv = 1;
        ENSURE_OK(ops->inversionBound(B, m->opt.inversionFraction, 1, &ainv));
        double alpha = fmin(fmin(cout.minToi, ainv), 1);
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
        "%d random motions: all %d results clean; %d limited by the bound (mean alpha %.3f), "
        "%d colliding pairs found",
        trials, clean, limited, alphaSum / trials, ncollide);
    ENSURE(limited > trials / 4);  // the motions really were blocked by contact or inversion
    ENSURE(limited < trials);      // and some were not
    free(x);
    free(zero);
    free(kin);
    free(obstacle);
    alc_deleteSim(sim);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

/// Six times the signed volume of x + a p.
static double vol6At(const alcV3 x[4], const alcV3 p[4], double a) {
    alcV3 y[4];
    for (int i = 0; i < 4; i++) y[i] = alcm_v3_mad(x[i], a, p[i]);
    return alcm_v3_triple(alcm_v3_sub(y[1], y[0]), alcm_v3_sub(y[2], y[0]),
                          alcm_v3_sub(y[3], y[0]));
}

ALC_TEST(stepbound_belowInversionFloor) {
    // the unit right tetrahedron (rest volume 1/6) flattened to 1e-5 of it, below ALC_INV_FLOOR
    const double rest = 1.0 / 6, h = 1e-5;
    alcV3 x[4] = {alcm_v3(0, 0, 0), alcm_v3(1, 0, 0), alcm_v3(0, 1, 0), alcm_v3(0, 0, h)};
    alcV3 up[4] = {alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, 0.5)};
    alcV3 down[4] = {alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, -h)};
    alcV3 slide[4] = {alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0.3, 0.2, 0)};
    double v6 = vol6At(x, up, 0);
    ENSURE(v6 < ALC_INV_FLOOR * 6 * rest);
    double target = alcm_tet_invTarget(v6, 0.2, rest);
    ENSURE_MSG(fabs(target - ALC_INV_FLOOR_KEEP * v6) <= 1e-15 * v6, "target %.17g", target);
    // growing back is free (the bound was 0 in every direction before issue 14's fix)
    ENSURE(alcm_tet_maxStepTo(x, up, target) == 1.0);
    // sliding the apex parallel to the base keeps the volume: free
    ENSURE(alcm_tet_maxStepTo(x, slide, target) == 1.0);
    // flattening further: stopped where it keeps ALC_INV_FLOOR_KEEP of its volume
    double a = alcm_tet_maxStepTo(x, down, target);
    ENSURE_MSG(a > 0.09 && a < 0.1 && vol6At(x, down, a) >= target, "alpha %.17g", a);
    // above the floor: IPC's fraction of the current volume, or the floor when that is lower
    ENSURE(alcm_tet_invTarget(6 * rest, 0.2, rest) == 0.2 * 6 * rest);
    ENSURE(alcm_tet_invTarget(2 * ALC_INV_FLOOR * 6 * rest, 0.2, rest) == ALC_INV_FLOOR * 6 * rest);
    return ALC_TEST_PASS;
}
