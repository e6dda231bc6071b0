// The step bound (CCD over all candidates + inversion bound) never yields an intersecting or
// inverted state: random walks of large random motions, each advanced by the bound, every state
// judged by the independent exact checker.
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
    alciStepInput in = {x, zero, x, kin, 0.01, m->opt.gravity, NULL, NULL, NULL, NULL};  // no rigid
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
