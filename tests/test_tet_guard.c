// Tetrahedron guards (alcOption.tetGuards, alcm_tet_guardLinearize): a tetrahedron that cuts an
// outer step through the inversion bound joins the AL subproblem as its linearized volume.
// The linearization against the exact volume (its value, its gradient by central differences,
// and the exact change of a linear motion to first order); a landing under a tight inversion bound
// with and without guards (guards added, every state clean, no guard reported as a contact, no
// step at the cap); a checkpoint with guards in the active set restored bit for bit; and what is
// refused (the other contact models, rigid bodies, values out of range); a lagged friction
// pair's force reported on its own contact when guards lead the active set. The CUDA backend's
// guards are compared with these in tests/gpu/test_backend_gpu.c (backend_tetGuards).
#include "hd/alcm_elastic.h"
#include "contact_report.h"
#include "hd/alcm_pair.h"
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long gSeed = 12345;
static double urand(void) {
    gSeed = gSeed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(gSeed >> 11) * (1.0 / 9007199254740992.0);
}

static double vol6(const alcV3 x[4]) {
    return alcm_v3_triple(alcm_v3_sub(x[1], x[0]), alcm_v3_sub(x[2], x[0]),
                          alcm_v3_sub(x[3], x[0]));
}

/// d - delta is (v6 - target6) / S and g is grad v6 / S with S = |grad v6|, on random
/// tetrahedra from regular to slivers of 1e-6 of their rest volume: g against central
/// differences of v6 (exact up to rounding: v6 is cubic), |g| = 1, and the linearized volume
/// against the true one along a small motion.
ALC_TEST(tetGuard_linearization) {
    double worst = 0;
    for (int it = 0; it < 200; it++) {
        alcV3 x[4];
        for (int a = 0; a < 4; a++) x[a] = alcm_v3(urand(), urand(), urand());
        if (vol6(x) < 0) {
            alcV3 t = x[0];
            x[0] = x[1];
            x[1] = t;
        }
        // flatten towards the face (x1, x2, x3) by a factor down to 1e-6
        double flat = pow(10.0, -6.0 * urand());
        alcV3 c = alcm_v3_scale(alcm_v3_add(alcm_v3_add(x[1], x[2]), x[3]), 1.0 / 3);
        x[0] = alcm_v3_add(c, alcm_v3_scale(alcm_v3_sub(x[0], c), flat));
        double v6 = vol6(x), rest = 0.2 + urand(), delta = 1e-3, fraction = 0.2;
        ENSURE(v6 > 0);
        double g[12], fd[12], S = 0, gg = 0;
        double d = alcm_tet_guardLinearize(x, rest, fraction, delta, g);
        const double h = 1e-4;
        for (int k = 0; k < 12; k++) {
            alcV3 xp[4], xm[4];
            memcpy(xp, x, sizeof xp);
            memcpy(xm, x, sizeof xm);
            (&xp[k / 3].x)[k % 3] += h;
            (&xm[k / 3].x)[k % 3] -= h;
            fd[k] = (vol6(xp) - vol6(xm)) / (2 * h);
            S += fd[k] * fd[k];
            gg += g[k] * g[k];
        }
        S = sqrt(S);
        ENSURE_MSG(fabs(gg - 1) < 1e-12, "it %d: |g|^2 = %.17g", it, gg);
        for (int k = 0; k < 12; k++) {
            double err = fabs(fd[k] / S - g[k]);
            worst = fmax(worst, err);
            ENSURE_MSG(err < 1e-9, "it %d: dof %d: g %.17g, central difference %.17g", it, k, g[k],
                       fd[k] / S);
        }
        double want = (v6 - alcm_tet_invTarget(v6, fraction, rest)) / S;
        ENSURE_MSG(fabs(d - delta - want) <= 1e-9 * fabs(want) + 1e-15,
                   "it %d: d - delta %.17g, want %.17g", it, d - delta, want);
        // along a small motion the linearized volume matches the true one to second order
        alcV3 p[4], y[4];
        double lin = 0;
        for (int a = 0; a < 4; a++) {
            p[a] = alcm_v3(urand() - 0.5, urand() - 0.5, urand() - 0.5);
            lin += g[3 * a] * p[a].x + g[3 * a + 1] * p[a].y + g[3 * a + 2] * p[a].z;
        }
        const double t = 1e-6;
        for (int a = 0; a < 4; a++) y[a] = alcm_v3_add(x[a], alcm_v3_scale(p[a], t));
        double dv = (vol6(y) - v6) / S;
        ENSURE_MSG(fabs(dv - t * lin) <= 10 * t * t / S + 1e-14,
                   "it %d: volume change %.9g, linear %.9g", it, dv, t * lin);
    }
    alct_note("worst gradient error against central differences: %.2e", worst);
    return ALC_TEST_PASS;
}

typedef struct {
    int restarts;  // "xhat restarted" messages seen: outer steps the inversion bound stopped
} InvLog;

static void countRestarts(void* user, int level, const char* msg) {
    InvLog* c = (InvLog*)user;
    if (level >= 3 && strstr(msg, "xhat restarted from x")) c->restarts++;
}

/// The landing of tests/data/scenes/box_drop_guards.yaml (box_drop with every tetrahedron
/// protected and a bound that keeps 99 % of each volume per outer step, so that the landing's
/// compression makes the inversion bound cut the outer steps, as in test
/// split_restartAfterInversionBound): `steps` steps with `guards` guards allowed. Returns 1 when
/// every state is clean, no step reached the cap and no contact reported is a guard; the run
/// statistics and the inversion-bound restarts are left in *run and *restarts.
static int landing(int guards, int steps, alcRunStat* run, int* restarts) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/scenes/box_drop_guards.yaml", alct_rootDir());
    Run r;
    ENSURE(openRunPath(&r, path, NULL, NULL, -1));
    ENSURE(r.m->opt.tetGuards == 16);  // the scene's key
    r.m->opt.tetGuards = guards;
    InvLog c = {0};
    alcSim* sim = NULL;
    ENSURE_OK(makeLoggedSim(&r, 0, 3, countRestarts, &c, &sim));
    int capped = 0, ok = 1;
    for (int k = 0; k < steps && ok; k++) {
        ENSURE_OK(alc_step(sim, r.d));
        capped += r.d->stat.capped;
        ok = checkRun(&r);
        const alcContact* ct = NULL;
        int n = 0;
        ENSURE_OK(alc_getContacts(sim, &ct, &n));
        for (int i = 0; i < n; i++) {
            ENSURE_MSG(ct[i].type == ALC_PAIR_PT || ct[i].type == ALC_PAIR_EE,
                       "step %d: contact %d of type %d", k + 1, i, ct[i].type);
        }
    }
    *run = r.d->run;
    *restarts = c.restarts;
    alc_deleteSim(sim);
    closeRun(&r);
    ENSURE(ok);
    ENSURE(capped == 0);
    return 1;
}

ALC_TEST(tetGuard_landingUnderTightBound) {
    alcRunStat off, on;
    int restartsOff = 0, restartsOn = 0;
    ENSURE(landing(0, 30, &off, &restartsOff));
    ENSURE(landing(16, 30, &on, &restartsOn));
    alct_note(
        "30 steps, guards off: %d restarts, %ld outer, %ld Newton; on: %ld guards, %d "
        "restarts, %ld outer, %ld Newton",
        restartsOff, off.outer, off.newton, on.guards, restartsOn, on.outer, on.newton);
    ENSURE(off.guards == 0);
    ENSURE(on.guards > 0);
    // the guards keep the chords from the tetrahedra that cut them: fewer outer steps stopped
    ENSURE_MSG(restartsOn < restartsOff, "restarts with guards %d, without %d", restartsOn,
               restartsOff);
    return ALC_TEST_PASS;
}

/// Guards are carried in the active set through a checkpoint: the landing with guards,
/// checkpointed in the middle and restored, ends bit for bit as the run that never stopped.
ALC_TEST(tetGuard_checkpointRoundTrip) {
    int rc =
        runCheckpointRoundTrip("../tests/data/scenes/box_drop_guards", -1, 12, 24, ALC_BACKEND_REF);
    ENSURE_MSG(rc == 1, "tests/data/scenes/box_drop_guards.yaml: %d", rc);
    return ALC_TEST_PASS;
}

/// What the guards do not run with is refused when the sim is made, with the reason; a scene
/// value out of range is refused when the scene is read, with its file and line.
ALC_TEST(tetGuard_refusals) {
    const char* guarded = "../tests/data/scenes/box_drop_guards.yaml";  // tet_guards: 16
    ENSURE(refusedToMake(guarded, ALC_CONTACT_IPC, ALC_BACKEND_REF, "'al' or 'penalty'"));
    ENSURE(refusedToMake(guarded, ALC_CONTACT_MLCP_CR, ALC_BACKEND_REF, "'al' or 'penalty'"));
    // rigid bodies
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/scenes/rigid_slope.yaml", alct_rootDir());
    alcModel* m = NULL;
    alcLoadDef ld = alc_defaultLoadDef();
    ENSURE_OK(alc_loadScene(path, &ld, &m, err, sizeof err));
    ENSURE(m->nrigid > 0);
    m->opt.tetGuards = 4;
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    alcSim* sim = NULL;
    ENSURE(alc_makeSim(m, &def, &sim) == ALC_ERR_UNSUPPORTED);
    ENSURE(strstr(alc_lastError(sim), "rigid bodies"));
    alc_deleteSim(sim);
    alc_deleteModel(m);
    // the scene key's range
    char solver[64];
    snprintf(solver, sizeof solver, "tet_guards: %d", ALC_TET_GUARDS_MAX + 1);
    alctStatus st = alct_loadSolverScene("guards", "guards.yaml", solver, &m, err, sizeof err);
    ENSURE_MSG(st == ALC_ERR_SCENE && strstr(err, "guards.yaml:4:") && strstr(err, "tet_guards"),
               "%d: %s", (int)st, err);
    ENSURE(alct_loadSolverScene("guards", "guards.yaml", "tet_guards: 8", &m, err, sizeof err) ==
           ALC_OK);
    ENSURE(m->opt.tetGuards == 8);
    alc_deleteModel(m);
    ENSURE(alc_defaultOption().tetGuards == 0);
    return ALC_TEST_PASS;
}

/// The contact report puts a lagged friction pair's force on the contact of the same key when
/// guards, which are not reported and come first by their negative keys, lead the active set
/// (it used to go to the entry at the pair's index in the set, one per guard too far on, or
/// not at all). Two point-triangle pairs over one triangle; the second one's point slides.
ALC_TEST(tetGuard_reportPutsFrictionOnItsContact) {
    // bodies: the points 0 and 1 (body 0), the triangle 4, 5, 6 (body 1)
    int vertBody[8] = {0, 0, 0, 0, 1, 1, 1, 1};
    alcModel m;
    memset(&m, 0, sizeof m);
    m.nvert = 8;
    m.nbody = 2;
    m.vert_body = vertBody;
    double x[24] = {0}, xt[24] = {0};
    const double pos[8][3] = {{0.2, 0.01, 0.2}, {0.3, 0.01, 0.3}, {0, 0, 0}, {0, 0, 0},
                              {0, 0, 0},        {1, 0, 0},        {0, 0, 1}, {0, 0, 0}};
    memcpy(x, pos, sizeof x);
    memcpy(xt, pos, sizeof xt);
    xt[3] -= 0.01;  // point 1 moved 1 cm along +x over the step
    alcmPair pairs[3];
    memset(pairs, 0, sizeof pairs);
    pairs[0].type = ALC_PAIR_TETGUARD;
    pairs[0].key = ALC_PAIR_GUARD_KEY(0);
    for (int i = 1; i < 3; i++) {
        alcmPair* P = &pairs[i];
        P->type = ALC_PAIR_PT;
        P->v[0] = i - 1;
        P->v[1] = 4;
        P->v[2] = 5;
        P->v[3] = 6;
        P->key = ALC_PAIR_KEY(ALC_PAIR_PT, i - 1, 0);
        P->d = 0.01;
        P->gamma = 1;
        P->g[1] = 1;  // grad d: +y for the point, -y shared by the triangle
        for (int a = 1; a < 4; a++) P->g[3 * a + 1] = -1.0 / 3;
    }
    ENSURE(pairs[0].key < pairs[1].key && pairs[1].key < pairs[2].key);
    alcmFric f;
    memset(&f, 0, sizeof f);
    f.key = pairs[2].key;
    f.type = ALC_PAIR_PT;
    memcpy(f.v, pairs[2].v, sizeof f.v);
    f.w[0] = 1;
    for (int a = 1; a < 4; a++) f.w[a] = -1.0 / 3;
    f.T[0] = 1;  // tangents x and z
    f.T[5] = 1;
    f.coef = 2;
    alciReportIn in = {&m, x, xt, 0.01, 0, 1e3, 1e-3, 1e-3};
    alcContact out[3];
    double bodyForce[6];
    int n = 0;
    alci_contactReport(&in, pairs, 3, &f, 1, out, 3, &n, bodyForce);
    ENSURE(n == 2);
    ENSURE(out[0].vert[0] == 0 && out[1].vert[0] == 1);
    ENSURE_MSG(out[0].frictionForce[0] == 0 && out[0].frictionForce[2] == 0,
               "the resting point's contact got a friction force %g", out[0].frictionForce[0]);
    // sliding (|u| = 1 cm, far above eps_v h): the full coef, against the slip
    ENSURE_MSG(fabs(out[1].frictionForce[0] + 2) < 1e-12 && out[1].frictionForce[2] == 0,
               "the sliding point's friction force is (%g, %g, %g)", out[1].frictionForce[0],
               out[1].frictionForce[1], out[1].frictionForce[2]);
    // the bodies' forces carry it too: -2 N on body 0, +2 N on body 1 along x
    ENSURE(fabs(bodyForce[0] + 2) < 1e-12 && fabs(bodyForce[3] - 2) < 1e-12);
    return ALC_TEST_PASS;
}
