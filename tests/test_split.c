// Stalled steps split into halves (host/step.c stepSplit, alcOption.splitDepth/splitAfter).
// A split is forced by counting every outer iteration as stalled (stallAlpha just above 1,
// splitAfter 1): the step's first attempt then gives up after one outer iteration and the step
// is solved as two halves from the same start and contact carry. Such a step must end exactly
// where two steps of h/2 of an unsplit run end, bit for bit: on a frictional contact scene
// (the carry and the lagged friction restored) and on a driven one (the drivers evaluated at
// the half time, not interpolated). split_depth 0 turns splitting off, and the scene keys are
// read and range-checked; a step cancelled in its second half leaves the data as they were.
#include "hd/alcm_rigid_energy.h"
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Scene path: scenes/NAME or, with a '/', relative to the root.
static void scenePath(char* out, size_t n, const char* scene) {
    if (strchr(scene, '/')) {
        snprintf(out, n, "%s/%s", alct_rootDir(), scene);
    } else {
        snprintf(out, n, "%s/scenes/%s", alct_rootDir(), scene);
    }
}

/// `steps` steps of `scene` forced to split once each (depth 1), against 2 x `steps` steps of
/// h/2 without splitting: 1 when the states agree bit for bit and every step split once.
static int splitEqualsHalves(const char* scene, int steps) {
    char path[1024];
    scenePath(path, sizeof path, scene);
    Run a, b;
    ENSURE(openRunPath(&a, path, NULL, NULL, -1));
    ENSURE(openRunPath(&b, path, NULL, NULL, -1));
    // every outer iteration counts as stalled (alpha <= 1 < stallAlpha): used here to force
    // the split; scenes cannot set stall_alpha above 0.999
    double h = a.m->opt.timestep;
    a.m->opt.stallAlpha = b.m->opt.stallAlpha = nextafter(1.0, 2.0);
    a.m->opt.stallIters = b.m->opt.stallIters = 1000000;  // mu and delta left alone
    a.m->opt.splitAfter = 1;
    a.m->opt.splitDepth = 1;
    b.m->opt.splitDepth = 0;
    b.m->opt.timestep = h / 2;
    for (int k = 0; k < steps; k++) {
        ENSURE(stepRun(&a));
        ENSURE_MSG(a.d->stat.splits == 1 && a.d->stat.hMin == h / 2,
                   "%s step %d: %d splits, parts of %g s", scene, k + 1, a.d->stat.splits,
                   a.d->stat.hMin);
        ENSURE(stepRun(&b) && stepRun(&b));
        ENSURE(b.d->stat.splits == 0 && b.d->stat.hMin == h / 2);
    }
    int n = 3 * a.m->nvert, same = 1;
    for (int i = 0; i < n && same; i++) {
        same = a.d->x[i] == b.d->x[i] && a.d->v[i] == b.d->v[i];
        if (!same) {
            alct_note("%s: DOF %d: split x %.17g v %.17g, halves x %.17g v %.17g", scene, i,
                      a.d->x[i], a.d->v[i], b.d->x[i], b.d->v[i]);
        }
    }
    ENSURE(fabs(a.d->time - steps * h) < 1e-12 && a.d->step == steps);
    ENSURE(a.d->run.splits == steps && a.d->run.stepsSplit == steps);
    alct_note("%s: %d steps split, %ld outer and %ld Newton iterations (halves alone: %ld, %ld)",
              scene, steps, a.d->run.outer, a.d->run.newton, b.d->run.outer, b.d->run.newton);
    closeRun(&a);
    closeRun(&b);
    ENSURE(same);
    return ALC_TEST_PASS;
}

/// Friction and a contact carry from step to step: the block on the slope.
ALC_TEST(split_equalsHalvesWithFriction) {
    return splitEqualsHalves("slope.yaml", 3);
}

/// Scripted drivers: the two ends of a bar dragged apart (targets at the half time).
ALC_TEST(split_equalsHalvesDriven) {
    return splitEqualsHalves("tests/data/scenes/ends_dragged_apart.yaml", 2);
}

/// split_depth 0: a stall is left to the mu/delta rule and the cap, never split.
ALC_TEST(split_offAtDepthZero) {
    Run r;
    ENSURE(openRun(&r, "slope.yaml", NULL, NULL, -1));
    r.m->opt.stallAlpha = nextafter(1.0, 2.0);
    r.m->opt.stallIters = 1000000;
    r.m->opt.splitAfter = 1;
    r.m->opt.splitDepth = 0;
    ENSURE(stepRun(&r) && stepRun(&r));
    ENSURE(r.d->stat.splits == 0 && r.d->run.splits == 0 && r.d->stat.hMin == r.m->opt.timestep);
    closeRun(&r);
    return ALC_TEST_PASS;
}

/// Load scene text written to the test directory; the status, with the message in err.
static alctStatus loadText(const char* text, alcModel** m, char* err, int errsz) {
    return alct_loadSceneText("split", "split.yaml", text, m, err, errsz);
}

/// The scene keys: read into the options, out-of-range values refused with the file and line.
ALC_TEST(split_sceneKeys) {
    const char* base = "bodies:\n  - mesh: {box: {}}\nsolver:\n  delta: 1e-3\n";
    char text[1024], err[1024] = "";
    alcModel* m = NULL;
    snprintf(text, sizeof text, "%s  split_depth: 5\n  split_after: 7\n", base);
    ENSURE_MSG(loadText(text, &m, err, sizeof err) == ALC_OK, "%s", err);
    ENSURE(m->opt.splitDepth == 5 && m->opt.splitAfter == 7);
    alc_deleteModel(m);
    ENSURE_MSG(loadText(base, &m, err, sizeof err) == ALC_OK, "%s", err);
    ENSURE(m->opt.splitDepth == 3 && m->opt.splitAfter == 100);  // the defaults
    alc_deleteModel(m);
    snprintf(text, sizeof text, "%s  split_depth: 21\n", base);
    ENSURE(loadText(text, &m, err, sizeof err) != ALC_OK && !m);
    alct_note("%s", err);
    ENSURE(strstr(err, "split.yaml:") && strstr(err, "split_depth"));
    snprintf(text, sizeof text, "%s  split_after: 0\n", base);
    ENSURE(loadText(text, &m, err, sizeof err) != ALC_OK && !m);
    alct_note("%s", err);
    ENSURE(strstr(err, "split_after"));
    return ALC_TEST_PASS;
}

typedef struct {
    alcSim* sim;
    int firsts;  // "iter 1:" messages seen: one per attempt or part
} CancelInSecondHalf;

static void cancelInSecondHalf(void* user, int level, const char* msg) {
    CancelInSecondHalf* c = (CancelInSecondHalf*)user;
    if (level >= 3 && strstr(msg, " iter 1:") && ++c->firsts == 3) alc_cancelStep(c->sim);
}

/// A step cancelled in its second half (the first half has already written its end state):
/// the data are those of the last completed step, as for a step that was never split.
ALC_TEST(split_cancelledInSecondHalf) {
    Run r;
    ENSURE(openRun(&r, "slope.yaml", NULL, NULL, -1));
    ENSURE(stepRun(&r));
    r.m->opt.stallAlpha = nextafter(1.0, 2.0);
    r.m->opt.stallIters = 1000000;
    r.m->opt.splitAfter = 1;
    r.m->opt.splitDepth = 1;
    CancelInSecondHalf c = {NULL, 0};
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    def.verbosity = 3;
    def.log = cancelInSecondHalf;
    def.user = &c;
    alcSim* sim = NULL;
    ENSURE_OK(alc_makeSim(r.m, &def, &sim));
    c.sim = sim;
    size_t bytes = sizeof(double) * 3 * (size_t)r.m->nvert;
    double* x = (double*)malloc(2 * bytes);
    ENSURE(x);
    double* v = x + 3 * r.m->nvert;
    memcpy(x, r.d->x, bytes);
    memcpy(v, r.d->v, bytes);
    double t = r.d->time;
    alctStatus st = alc_step(sim, r.d);
    int same = !memcmp(x, r.d->x, bytes) && !memcmp(v, r.d->v, bytes);
    free(x);
    ENSURE_MSG(st == ALC_ERR_CANCELLED, "%s (%d first iterations logged)", alcu_statusString(st),
               c.firsts);
    ENSURE(c.firsts == 3);
    ENSURE(same);
    ENSURE(r.d->time == t && r.d->step == 1);
    // and the next step completes, split
    ENSURE_OK(alc_step(sim, r.d));
    ENSURE(r.d->step == 2 && r.d->stat.splits == 1);
    alc_deleteSim(sim);
    closeRun(&r);
    return ALC_TEST_PASS;
}

typedef struct {
    int restarts;  // "xhat restarted" messages seen
} RestartLog;

static void countRestarts(void* user, int level, const char* msg) {
    RestartLog* c = (RestartLog*)user;
    if (level >= 3 && strstr(msg, "xhat restarted from x")) c->restarts++;
}

/// The landing of split_restartAfterInversionBound (below) for `steps` steps with the given stall
/// and restart thresholds (mu doubling and splits off, so that stall_alpha sets nothing but the
/// restart when restart_alpha is negative); the restarts and Newton iterations in *restarts and
/// *newton. Every state clean, no step capped.
static int landingRestarts(double stallAlpha, double restartAlpha, int steps, int* restarts,
                           long* newton) {
    Run r;
    ENSURE(openRun(&r, "box_drop.yaml", NULL, NULL, -1));
    ENSURE(r.m->opt.restartAlpha < 0);  // the default: stall_alpha
    r.m->opt.inversion = ALC_INVERSION_ALL;
    r.m->opt.inversionFraction = 0.99;
    r.m->opt.stallAlpha = stallAlpha;
    r.m->opt.restartAlpha = restartAlpha;
    r.m->opt.stallIters = 1000000;
    r.m->opt.splitDepth = 0;
    RestartLog c = {0};
    alcSim* sim = NULL;
    ENSURE_OK(makeLoggedSim(&r, 0, 3, countRestarts, &c, &sim));
    for (int k = 0; k < steps; k++) {
        ENSURE_OK(alc_step(sim, r.d));
        ENSURE_MSG(!r.d->stat.capped && checkRun(&r), "step %d", k + 1);
    }
    *restarts = c.restarts;
    *newton = r.d->run.newton;
    alc_deleteSim(sim);
    closeRun(&r);
    return 1;
}

/// A chord stopped by the inversion bound restarts the next subproblem from x (host/step.c):
/// box_drop with every tetrahedron protected (inversion: all), a step bound that keeps 99 % of
/// each volume and every alpha below 1 counting as a stall, so that the landing's compression
/// makes the inversion bound set alpha; the restarts happen, the steps end below the cap and
/// every state is clean. On a real scene the rule fires only at alpha < 1e-4 (the dolphin of
/// bench/results/amd-epyc-2c/ipc-examples.md); the thresholds here only make it fire often.
ALC_TEST(split_restartAfterInversionBound) {
    int restarts = 0;
    long newton = 0;
    ENSURE(landingRestarts(0.999, -1, 30, &restarts, &newton));
    alct_note("30 steps: %d restarts, %ld Newton iterations, none capped", restarts, newton);
    ENSURE(restarts > 0);
    return ALC_TEST_PASS;
}

/// solver.restart_alpha sets the restart apart from stall_alpha: with stall_alpha at its default
/// and restart_alpha 0.999 the landing restarts exactly as with stall_alpha 0.999 (the same
/// restarts and Newton iterations), and with restart_alpha 0 it never restarts although
/// stall_alpha is 0.999. The scene key reads it, and a value above 1 is refused with its line.
ALC_TEST(split_restartAlpha) {
    int r0 = 0, r1 = 0, r2 = 0;
    long n0 = 0, n1 = 0, n2 = 0;
    ENSURE(landingRestarts(0.999, -1, 20, &r0, &n0));
    ENSURE(landingRestarts(1e-4, 0.999, 20, &r1, &n1));
    ENSURE(landingRestarts(0.999, 0, 20, &r2, &n2));
    alct_note(
        "20 steps: stall_alpha 0.999: %d restarts, %ld Newton; restart_alpha 0.999: %d, %ld; "
        "restart_alpha 0: %d, %ld",
        r0, n0, r1, n1, r2, n2);
    ENSURE(r0 > 0 && r1 == r0 && n1 == n0);
    ENSURE(r2 == 0);
    char err[1024];
    alcModel* m = NULL;
    ENSURE_MSG(
        alct_loadSolverScene("rsa", "e.yaml", "restart_alpha: 0.01", &m, err, sizeof err) == ALC_OK,
        "%s", err);
    ENSURE(m->opt.restartAlpha == 0.01);
    alc_deleteModel(m);
    ENSURE(alct_loadSolverScene("rsa", "e.yaml", "restart_alpha: 2", &m, err, sizeof err) ==
           ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "e.yaml:4:") && strstr(err, "restart_alpha"), "%s", err);
    ENSURE(alc_defaultOption().restartAlpha < 0);
    // through the C API: compiling a spec with a value above 1 fails with the reason
    alcSpec* spec = NULL;
    ENSURE_OK(alc_makeSpec(&spec));
    alc_specOption(spec)->restartAlpha = 1.5;
    ENSURE(alc_compileSpec(spec, &m, err, sizeof err) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "restart_alpha 1.5"), "%s", err);
    alc_deleteSpec(spec);
    return ALC_TEST_PASS;
}

/// Rigid bodies: the pose pair a split step writes back spans the model's time step (the
/// velocity and the discrete rigid body's angular momentum of its last part), so that the next
/// step predicts from them as from an unsplit step's. The spinning coin (on its edge, in
/// contact with friction) forced to split, against steps of h/2: the same poses, velocities
/// and angular momenta, to rounding.
ALC_TEST(split_equalsHalvesRigid) {
    char path[1024];
    scenePath(path, sizeof path, "rigid_coin.yaml");
    Run a, b;
    ENSURE(openRunPath(&a, path, NULL, NULL, -1));
    ENSURE(openRunPath(&b, path, NULL, NULL, -1));
    double h = a.m->opt.timestep;
    a.m->opt.stallAlpha = nextafter(1.0, 2.0);
    a.m->opt.stallIters = 1000000;
    a.m->opt.splitAfter = 1;
    a.m->opt.splitDepth = 1;
    b.m->opt.splitDepth = 0;
    b.m->opt.timestep = h / 2;
    alc_resetData(b.m, b.d);  // the initial pose pair spans the new time step
    const int steps = 20;
    for (int k = 0; k < steps; k++) {
        ENSURE(stepRun(&a));
        ENSURE(a.d->stat.splits == 1);
        ENSURE(stepRun(&b) && stepRun(&b));
    }
    const alcV3 J = alcm_rigid_J(alcm_v3_load(a.m->rigid_inertia));
    alcM3 Ra = alcm_rodrigues(alcm_v3_load(a.d->rigid_pose));
    alcM3 Rb = alcm_rodrigues(alcm_v3_load(b.d->rigid_pose));
    alcV3 La = alcm_m3_mulv(
        Ra, alcm_rigid_mvMomentum(Ra, alcm_rodrigues(alcm_v3_load(a.d->rigid_posePrev)), J, h));
    alcV3 Lb = alcm_m3_mulv(
        Rb, alcm_rigid_mvMomentum(Rb, alcm_rodrigues(alcm_v3_load(b.d->rigid_posePrev)), J, h / 2));
    double dq = 0, dv = 0, dR = 0;
    for (int k = 0; k < 3; k++) {
        dq = fmax(dq, fabs(a.d->rigid_pose[3 + k] - b.d->rigid_pose[3 + k]));
        double va = (a.d->rigid_pose[3 + k] - a.d->rigid_posePrev[3 + k]) / h;
        double vb = (b.d->rigid_pose[3 + k] - b.d->rigid_posePrev[3 + k]) / (h / 2);
        dv = fmax(dv, fabs(va - vb));
    }
    for (int i = 0; i < 9; i++) dR = fmax(dR, fabs(Ra.m[i] - Rb.m[i]));
    double dL = alcm_v3_norm(alcm_v3_sub(La, Lb)) / alcm_v3_norm(Lb);
    alct_note(
        "after %d split steps against %d of h/2: centre %.2e m, rotation %.2e, velocity "
        "%.2e m/s, angular momentum %.2e of itself apart (%.4e kg m^2/s)",
        steps, 2 * steps, dq, dR, dv, dL, alcm_v3_norm(Lb));
    closeRun(&a);
    closeRun(&b);
    ENSURE(dq < 1e-12 && dR < 1e-10 && dv < 1e-8 && dL < 1e-8);
    return ALC_TEST_PASS;
}
