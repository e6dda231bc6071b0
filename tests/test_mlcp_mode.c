// The mlcp-cr contact model (host/step_mlcp.c, host/ref/mlcp_step_ref.c; issue 22, item 2):
// Verschoor and Jalba's per-step MLCP with linearly implicit elasticity, solved by active-set
// conjugate residual, constraints re-linearized and CCD run until the end state holds them.
// Its claims as tests (../shared/research/seeds-001-002.md §4.2): collision-free at every
// step (VJ1, with alcove's independent check), complementarity at the end of a converged step
// (VJ2), the linearly implicit free fall exact before contact, both preconditioners on the
// same trajectory, checkpoints (with friction too); and what it does not do refused with the
// reason. Its friction's claims (the incline, the wedge) are in tests/test_validation.c.
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Lowest y of body b's vertices.
static double lowestY(const Run* r, int b) {
    double y = HUGE_VAL;
    for (int v = 0; v < r->m->nvert; v++) {
        if (r->m->vert_body[v] == b && r->d->x[3 * v + 1] < y) y = r->d->x[3 * v + 1];
    }
    return y;
}

/// Before any contact, a body at its rest shape falls as the linearly implicit step predicts:
/// the quadratic model's minimizer is the inertia target (grad E = 0, and Hess E has the
/// translations in its null space), so after k steps from rest its centre has fallen by
/// g h^2 k (k + 1) / 2 (implicit Euler's free fall), to the CR solve's tolerance.
ALC_TEST(mlcpMode_freeFall) {
    Run r;
    ENSURE(openRun(&r, "box_drop.yaml", NULL, NULL, ALC_CONTACT_MLCP_CR));
    double c0[3], c[3];
    bodyCentre(&r, 0, c0);
    double h = r.m->opt.timestep, g = r.m->opt.gravity[1], worst = 0;
    int k;
    for (k = 1; k <= 6; k++) {
        ENSURE(stepRun(&r));
        if (r.d->stat.contactsMax > 0) break;
        bodyCentre(&r, 0, c);
        double want = c0[1] + g * h * h * k * (k + 1) / 2;
        double err = fabs(c[1] - want) + fabs(c[0] - c0[0]) + fabs(c[2] - c0[2]);
        worst = err > worst ? err : worst;
    }
    int steps = k - 1;
    closeRun(&r);
    alct_note(
        "box_drop under mlcp-cr: %d contact-free steps, centre within %.2e m of "
        "g h^2 k (k + 1) / 2",
        steps, worst);
    ENSURE(steps >= 3);
    ENSURE(worst < 1e-7);
    return ALC_TEST_PASS;
}

/// VJ1 and VJ2 on the box dropped on the ground: every state clean by the independent check,
/// no step short of its solution, and at the end of the run (the box at rest) every reported
/// contact at least delta - eps2 apart, every contact with a force within eps2 of delta, and
/// the forces carrying the box's weight.
ALC_TEST(mlcpMode_boxDropRests) {
    Run r;
    ENSURE(openRun(&r, "box_drop.yaml", NULL, NULL, ALC_CONTACT_MLCP_CR));
    int ok = 1, steps = 150;
    for (int s = 0; ok && s < steps; s++) ok = stepRun(&r);
    ENSURE(ok);
    double delta = r.m->opt.delta, tol = r.m->opt.mlcpGapTol * delta;
    const alcContact* c = NULL;
    int n = 0;
    ENSURE(alc_getContacts(r.sim, &c, &n) == ALC_OK);
    double fsum = 0, dmin = HUGE_VAL, dmaxLoaded = 0;
    int loaded = 0;
    for (int i = 0; i < n; i++) {
        dmin = c[i].distance < dmin ? c[i].distance : dmin;
        if (c[i].normalForce > 0) {
            loaded++;
            fsum += c[i].normalForce * fabs(c[i].normal[1]);
            dmaxLoaded = c[i].distance > dmaxLoaded ? c[i].distance : dmaxLoaded;
        }
    }
    double mass = 0;
    for (int v = 0; v < r.m->nvert; v++) {
        if (r.m->vert_body[v] == 0) mass += r.m->vert_mass[v];
    }
    double weight = mass * fabs(r.m->opt.gravity[1]);
    long capped = r.d->run.capped;
    double low = lowestY(&r, 0);
    alct_note(
        "box_drop under mlcp-cr, %d steps: %ld capped, %d contacts (%d loaded), distances "
        "%.6e .. %.6e m (delta %g, eps2 %g), lowest vertex at %.6e m, normal forces %.4f "
        "of the weight, %.2f QP solves and %.1f CR iterations per step",
        steps, capped, n, loaded, dmin, dmaxLoaded, delta, tol, low, fsum / weight,
        (double)r.d->run.newton / steps, (double)r.d->run.cgTotal / steps);
    closeRun(&r);
    ENSURE(capped == 0);
    ENSURE(loaded >= 3);
    ENSURE(dmin >= delta - tol * 1.0001);
    ENSURE(dmaxLoaded <= delta + tol * 1.0001);
    ENSURE(fabs(fsum / weight - 1) < 0.05);
    return ALC_TEST_PASS;
}

/// balls_press under both preconditioners, stepped side by side: every state clean, no step
/// short of its solution, the two trajectories the same within ten times eps2 over the first
/// 10 steps (the balls settling on the floor: the solves differ only in their paths to the
/// tolerance), and V&J's claim VJ7 that Full needs fewer CR iterations than Diag. Later the
/// two part by up to millimetres: differences within eps2 grow about five times a step from
/// step 10 on (1.1e-5 m at step 12, 1.5e-3 m at step 20; with eps2 = 1e-5 delta they stay
/// below 1.4e-6 m to step 20), the note reports the largest.
ALC_TEST(mlcpMode_preconditioners) {
    Run r[2];
    for (int pc = 0; pc < 2; pc++) {
        ENSURE(openRun(&r[pc], "balls_press.yaml", NULL, NULL, ALC_CONTACT_MLCP_CR));
        r[pc].m->opt.mlcpPrecond = pc == 0 ? ALC_MLCP_FULL : ALC_MLCP_DIAG;
    }
    int steps = r[0].m->run.steps, ok = 1;
    double early = 0, late = 0, tol = r[0].m->opt.mlcpGapTol * r[0].m->opt.delta;
    for (int s = 0; ok && s < steps; s++) {
        ok = stepRun(&r[0]) && stepRun(&r[1]);
        double diff = 0;
        for (int i = 0; ok && i < 3 * r[0].m->nvert; i++) {
            double e = fabs(r[0].d->x[i] - r[1].d->x[i]);
            diff = e > diff ? e : diff;
        }
        if (s < 10 && diff > early) early = diff;
        if (diff > late) late = diff;
    }
    long cr[2], capped[2], solves[2];
    for (int pc = 0; pc < 2; pc++) {
        cr[pc] = r[pc].d->run.cgTotal;
        solves[pc] = r[pc].d->run.newton;
        capped[pc] = r[pc].d->run.capped;
        closeRun(&r[pc]);
    }
    ENSURE(ok);
    alct_note(
        "balls_press under mlcp-cr, %d steps: Full %ld CR iterations in %ld solves (%ld "
        "capped steps), Diag %ld in %ld (%ld capped); vertices at most %.2e m apart over "
        "the first 10 steps, %.2e m over all",
        steps, cr[0], solves[0], capped[0], cr[1], solves[1], capped[1], early, late);
    ENSURE(capped[0] == 0 && capped[1] == 0);
    ENSURE(early < 10 * tol);
    ENSURE(cr[0] < cr[1]);
    return ALC_TEST_PASS;
}

/// A moving boundary: balls_press's press enters the balls under mlcp-cr; every state clean,
/// every step solved, and the press on its targets at every step's end.
ALC_TEST(mlcpMode_movingBoundary) {
    Run r;
    ENSURE(openRun(&r, "balls_press.yaml", NULL, NULL, ALC_CONTACT_MLCP_CR));
    int ok = 1, steps = r.m->run.steps;
    double worst = 0, speed = 0;
    for (int s = 0; ok && s < steps; s++) {
        ok = stepRun(&r);
        if (ok) obstacleTargetGap(&r, &worst, &speed);
    }
    long capped = r.d->run.capped, newton = r.d->run.newton;
    closeRun(&r);
    ENSURE(ok);
    alct_note(
        "balls_press under mlcp-cr, %d steps: %.2f QP solves per step, %ld capped, "
        "obstacles at most %.3e m from their targets",
        steps, (double)newton / steps, capped, worst);
    ENSURE(capped == 0);
    ENSURE(worst == 0);
    return ALC_TEST_PASS;
}

/// What the model does not have is refused with the reason: rigid bodies, the CUDA backend.
ALC_TEST(mlcpMode_refusesWhatItLacks) {
    ENSURE(refusedToMake("rigid_stack.yaml", ALC_CONTACT_MLCP_CR, ALC_BACKEND_REF, "rigid bodies"));
    ENSURE(refusedToMake("box_drop.yaml", ALC_CONTACT_MLCP_CR, ALC_BACKEND_CUDA,
                         "reference backend only"));
    return ALC_TEST_PASS;
}

/// A checkpoint taken mid-run (alc_saveCheckpoint: the pairs with their multipliers carry over)
/// resumes bit for bit: in memory into a new sim and from a file into the first one.
ALC_TEST(mlcpMode_checkpointRoundTrip) {
    ENSURE(runCheckpointRoundTrip("box_drop", ALC_CONTACT_MLCP_CR, 25, 50, ALC_BACKEND_REF) == 1);
    return ALC_TEST_PASS;
}

/// The same with friction: the cube sliding down the slope (mu 0.45 < tan theta), its contacts'
/// kinetic directions and averaged multipliers carried from step to step (V&J's persistent
/// constraints) and through the checkpoint (format 2's friction states).
ALC_TEST(mlcpMode_checkpointRoundTripFriction) {
    ENSURE(runCheckpointRoundTrip("slope", ALC_CONTACT_MLCP_CR, 40, 60, ALC_BACKEND_REF) == 1);
    return ALC_TEST_PASS;
}

/// box_drop from a pair buffer of 8 (it holds 40 pairs at rest): the buffers grow mid-step, and
/// with them the matrix, which the step assembles again; the run ends bit for bit as the one
/// whose buffer never grew.
ALC_TEST(mlcpMode_pairBufferGrows) {
    double* x[2] = {NULL, NULL};
    int n = 0, grows[2] = {0, 0};
    for (int small = 0; small < 2; small++) {
        char path[1024], err[1024];
        snprintf(path, sizeof path, "%s/scenes/box_drop.yaml", alct_rootDir());
        alcModel* m = NULL;
        alcLoadDef ld = alc_defaultLoadDef();
        ENSURE(alc_loadScene(path, &ld, &m, err, sizeof err) == ALC_OK);
        m->opt.contact = ALC_CONTACT_MLCP_CR;
        alcSimDef def = alc_defaultSimDef();
        def.backend = ALC_BACKEND_REF;
        if (small) def.capacity.contactPairs = 8;
        alcSim* sim = NULL;
        alcData* d = NULL;
        ENSURE(alc_makeData(m, &d) == ALC_OK);
        ENSURE(alc_makeSim(m, &def, &sim) == ALC_OK);
        int ok = 1;
        for (int s = 0; ok && s < 60; s++) {
            ok = alc_step(sim, d) == ALC_OK;
            grows[small] += d->stat.bufferGrows;
        }
        n = 3 * m->nvert;
        x[small] = (double*)malloc(sizeof(double) * (size_t)n);
        if (x[small]) memcpy(x[small], d->x, sizeof(double) * (size_t)n);
        alc_deleteSim(sim);
        alc_deleteData(d);
        alc_deleteModel(m);
        ENSURE(ok && x[small]);
    }
    int same = memcmp(x[0], x[1], sizeof(double) * (size_t)n) == 0;
    free(x[0]);
    free(x[1]);
    alct_note(
        "box_drop under mlcp-cr, 60 steps: %d buffer growths from 8 pairs, %d from the "
        "default; end states %s",
        grows[1], grows[0], same ? "identical" : "different");
    ENSURE(grows[1] > 0 && grows[0] == 0);
    ENSURE(same);
    return ALC_TEST_PASS;
}

/// The friction's direction settings (solver.mlcp.theta_tol, theta_rate) are read from the scene
/// and refused outside their ranges, with the file and line.
ALC_TEST(mlcpMode_thetaOptions) {
    char err[1024] = "";
    alcModel* m = NULL;
    ENSURE_MSG(alct_loadSolverScene("mlcp_theta", "good.yaml",
                                    "contact: mlcp-cr, mlcp: {theta_tol: 3, theta_rate: 0.1}", &m,
                                    err, sizeof err) == ALC_OK,
               "%s", err);
    ENSURE(m->opt.mlcpThetaTol == 3 && m->opt.mlcpThetaRate == 0.1);
    alc_deleteModel(m);
    m = NULL;
    ENSURE(alct_loadSolverScene("mlcp_theta", "bad.yaml", "mlcp: {theta_rate: 0}", &m, err,
                                sizeof err) == ALC_ERR_SCENE);
    alct_note("%s", err);
    ENSURE(strstr(err, "bad.yaml:4:") && strstr(err, "theta_rate") && m == NULL);
    ENSURE(alct_loadSolverScene("mlcp_theta", "bad2.yaml", "mlcp: {theta_tol: 91}", &m, err,
                                sizeof err) == ALC_ERR_SCENE);
    alct_note("%s", err);
    ENSURE(strstr(err, "bad2.yaml:4:") && strstr(err, "theta_tol") && m == NULL);
    return ALC_TEST_PASS;
}
