// Contact on rigid bodies (issue 17): the AL model on their six DOFs, with friction, against
// obstacles, each other and soft bodies in one solve. A five-cube stack rests still, a rigid
// ball sinks into a soft mattress and comes to rest, linear momentum is kept across a rigid-soft
// collision with friction, a bar spinning 0.6 rad per step into a wall stays clean through
// the curved-trajectory CCD, a chain of rigid links hangs interlocked, and a coin spun on its
// edge falls flat and stops (and lying flat spins down as its friction torque says). The stack
// and the momentum also under the IPC model on the rigid DOFs. Every state is checked by the
// independent checker (host/check.c). The block on a slope and the arch are in
// test_validation.c (validation_slidingThresholdRigid*, validation_masonryArchRigid*).
#include "hd/alcm_rigid.h"
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Rigid body k's velocity (q - q_prev) / h and angular speed |log(R R_prev^T)| / h at the end
/// of the last step.
static void rigidVelocity(const Run* r, int k, double v[3], double* w) {
    const double* p = r->d->rigid_pose + 6 * k;
    const double* pp = r->d->rigid_posePrev + 6 * k;
    double h = r->m->opt.timestep;
    for (int c = 0; c < 3; c++) v[c] = (p[3 + c] - pp[3 + c]) / h;
    alcM3 R = alcm_rodrigues(alcm_v3_load(p)), Rp = alcm_rodrigues(alcm_v3_load(pp));
    *w = alcm_v3_norm(alcm_rotation_log(alcm_m3_mul(R, alcm_m3_transpose(Rp)))) / h;
}

/// Write a scene's text to NAME in the test's folder and open it as openRunPath does, under
/// contact model `contact` (-1: the scene's).
static int openText(Run* r, const char* name, const char* text, int contact) {
    const char* path = alct_writeFile(alct_tmpDir("rigid_contact", NULL), name, text);
    return path && openRunPath(r, path, NULL, NULL, contact);
}

static double norm3(const double v[3]) {
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/// Rigid IPC's five-cube stack (scenes/rigid_stack.yaml) under contact model `contact` (-1: the
/// scene's; ipc with dhat = 0.2 mm, below the 0.5 mm gaps it starts with, and the cumulative-TOI
/// stop): the cubes settle by their gaps and rest in a column, each between gapLo and gapHi
/// above the one below. ALC_TEST_PASS or ALC_TEST_FAIL.
static int stackCheck(int contact, double gapLo, double gapHi) {
    Run r;
    ENSURE(openRun(&r, "rigid_stack.yaml", NULL, NULL, contact));
    r.m->opt.ipcDhat = 2e-4;
    r.m->opt.ipcToiTerm = 1;
    int n = r.m->nrigid;
    ENSURE(n == 5);
    double q0[5][3], half[5];
    for (int k = 0; k < n; k++) {
        memcpy(q0[k], r.d->rigid_pose + 6 * k + 3, sizeof q0[k]);
        half[k] = 0.05 - 0.005 * k;  // the scene's cube sizes: 0.10, 0.09, ... 0.06 m
    }
    int ok = 1;
    double drift = 0;
    for (int s = 0; ok && s < r.m->run.steps; s++) {
        ok = stepRun(&r);
        for (int k = 0; k < n; k++) {
            const double* q = r.d->rigid_pose + 6 * k + 3;
            drift = fmax(drift, fmax(fabs(q[0] - q0[k][0]), fabs(q[2] - q0[k][2])));
        }
    }
    double vmax = 0, wmax = 0, gapMin = HUGE_VAL, gapMax = 0;
    for (int k = 0; k < n; k++) {
        double v[3], w;
        rigidVelocity(&r, k, v, &w);
        vmax = fmax(vmax, norm3(v));
        wmax = fmax(wmax, w);
        // the gap below the cube: to the ground (y = 0) or to the cube under it
        const double* q = r.d->rigid_pose + 6 * k + 3;
        double below = k == 0 ? 0 : r.d->rigid_pose[6 * (k - 1) + 4] + half[k - 1];
        double gap = q[1] - half[k] - below;
        gapMin = fmin(gapMin, gap);
        gapMax = fmax(gapMax, gap);
    }
    closeRun(&r);
    ENSURE(ok);
    alct_note(
        "five cubes over 1 s: largest sideways drift %.2e m; at the end speed %.2e m/s, spin "
        "%.2e rad/s, gaps %.4e to %.4e m (expected %.1e to %.1e)",
        drift, vmax, wmax, gapMin, gapMax, gapLo, gapHi);
    ENSURE(drift < 1e-3);
    ENSURE(vmax < 1e-4 && wmax < 1e-3);
    ENSURE(gapMin > gapLo && gapMax < gapHi);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_contact_stackRests) {
    // the AL model: every gap at the contact offset delta = 1 mm
    return stackCheck(-1, 0.9e-3, 1.1e-3);
}

ALC_TEST(rigid_contact_stackRestsIpc) {
    // the IPC model on the rigid DOFs: every gap inside the barrier's reach (0 < d < dhat)
    return stackCheck(ALC_CONTACT_IPC, 0, 2e-4);
}

ALC_TEST(rigid_contact_ballOnMattress) {
    // a rigid ball (4 kg of steel) dropped on a soft mattress: they meet in one solve, the ball
    // sinks in and comes to rest on it
    Run r;
    ENSURE(openRun(&r, "rigid_mattress.yaml", NULL, NULL, -1));
    ENSURE(r.m->nrigid == 1);
    const double top = 0.2005;  // the mattress's top at the start (scene)
    double lowest = HUGE_VAL;
    int ok = 1, warned = 0;
    for (int s = 0; ok && s < r.m->run.steps; s++) {
        ok = stepRun(&r);
        lowest = fmin(lowest, r.d->rigid_pose[4] - 0.05);
        warned |= r.d->warning[ALC_WARN_ENERGY_GAIN].count > 0;
    }
    double v[3], w;
    rigidVelocity(&r, 0, v, &w);
    double bottom = r.d->rigid_pose[4] - 0.05;
    closeRun(&r);
    ENSURE(ok);
    alct_note("ball's bottom: lowest %.4f m, at 1 s %.4f m (mattress top %.4f m); speed %.2e m/s",
              lowest, bottom, top, norm3(v));
    ENSURE(!warned);
    ENSURE(lowest < top - 0.005);  // sank into the foam
    ENSURE(bottom > 0.0);          // above the ground: the mattress holds it
    ENSURE(norm3(v) < 0.2);        // settling: it hit at 1.4 m/s
    return ALC_TEST_PASS;
}

/// A spinning rigid cube hits a free soft box off-centre, with friction and no gravity, under
/// contact model `contact` (-1: the scene's): contact and friction between them are internal, so
/// the total momentum stays put. ALC_TEST_PASS or ALC_TEST_FAIL.
static int rigidMomentum(int contact) {
    Run r;
    ENSURE(openText(&r, "momentum.yaml",
                    "name: rigid_momentum\n"
                    "run: {steps: 40}\n"
                    "physics: {time_step: 0.01, gravity: [0, 0, 0]}\n"
                    "solver: {delta: 1e-3}\n"
                    "materials:\n"
                    "  hard: {density: 2000, friction: 0.5}\n"
                    "  soft: {model: nh, density: 1000, youngs_modulus: 1e5,"
                    " poisson_ratio: 0.3, friction: 0.5}\n"
                    "bodies:\n"
                    "  - name: cube\n"
                    "    type: rigid\n"
                    "    mesh: {box: {size: 0.1, cells: 1}}\n"
                    "    material: hard\n"
                    "    position: [-0.12, 0.03, 0]\n"
                    "    velocity: [2, 0, 0]\n"
                    "    angular_velocity: [0, 3, 5]\n"
                    "  - name: box\n"
                    "    mesh: {box: {size: 0.1, cells: 2}}\n"
                    "    material: soft\n"
                    "    position: [0, 0, 0]\n",
                    contact));
    return momentumCheck(&r, 1, "the soft box");
}

ALC_TEST(rigid_contact_momentum) {
    return rigidMomentum(-1);
}

ALC_TEST(rigid_contact_momentumIpc) {
    return rigidMomentum(ALC_CONTACT_IPC);
}

ALC_TEST(rigid_contact_spinningBar) {
    // a long rigid bar spinning at 60 rad/s (0.6 rad a step) about its centre next to a wall it
    // sweeps into: its vertices move on arcs, far from their chords, and only the curved CCD
    // keeps every state clean; the bar must be stopped by the wall (it turns less than half a
    // turn after the hit)
    Run r;
    ENSURE(openText(&r, "bar.yaml",
                    "name: rigid_bar\n"
                    "run: {steps: 30}\n"
                    "physics: {time_step: 0.01, gravity: [0, 0, 0]}\n"
                    "solver: {delta: 1e-3}\n"
                    "materials:\n"
                    "  hard: {density: 1000}\n"
                    "bodies:\n"
                    "  - name: bar\n"
                    "    type: rigid\n"
                    "    mesh: {box: {size: [0.6, 0.04, 0.04], cells: [6, 1, 1]}}\n"
                    "    material: hard\n"
                    "    position: [0, 0, 0]\n"
                    "    angular_velocity: [0, 0, 60]\n"
                    "obstacles:\n"
                    "  - name: wall\n"
                    "    mesh: {box: {size: [0.05, 1, 0.5], cells: 1}}\n"
                    "    position: [0.2, 0.55, 0]\n",
                    -1));
    int ok = 1, touched = 0;
    double wEnd = 0;
    for (int s = 0; ok && s < r.m->run.steps; s++) {
        ok = stepRun(&r);
        touched |= r.d->stat.contactsMax > 0;
    }
    double v[3];
    rigidVelocity(&r, 0, v, &wEnd);
    closeRun(&r);
    ENSURE(ok);
    alct_note("spin after the hit %.3f rad/s (60 before)", wEnd);
    ENSURE(touched);
    ENSURE(wEnd < 30);
    return ALC_TEST_PASS;
}

/// A chain scene of nlinks rigid links below a fixed one at the origin, the top one pushed
/// sideways: through `steps` steps every link stays interlocked with the one above, its centre
/// 2 (R - r) = 0.08 m below it less what the 12-sided tube's flats take off, and the chain
/// swings. ALC_TEST_PASS or ALC_TEST_FAIL.
static int chainCheck(const char* scene, int nlinks, int steps) {
    Run r;
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", alct_rootDir(), scene);
    ENSURE(openRunPath(&r, path, NULL, NULL, -1));
    ENSURE(r.m->nrigid == nlinks);
    int ok = 1;
    double lo = HUGE_VAL, hi = 0, swing = 0;
    for (int s = 0; ok && s < steps; s++) {
        ok = stepRun(&r);
        double above = 0;  // the fixed link's centre
        for (int k = 0; k < nlinks; k++) {
            const double* q = r.d->rigid_pose + 6 * k + 3;
            lo = fmin(lo, above - q[1]);
            hi = fmax(hi, above - q[1]);
            swing = fmax(swing, fabs(q[0]));
            above = q[1];
        }
    }
    double newtonPerStep = (double)r.d->run.newton / steps;
    closeRun(&r);
    ENSURE(ok);
    alct_note(
        "%s: link spacing %.4f to %.4f m over %d steps (interlocked: 0.07 to 0.081), sideways "
        "swing up to %.4f m, %.2f Newton iterations per step",
        scene, lo, hi, steps, swing, newtonPerStep);
    ENSURE(lo > 0.07 && hi < 0.081);
    ENSURE(swing > 0.005);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_contact_chainHangs) {
    // scenes/rigid_chain.yaml: four rigid links below a fixed one, 0.6 s
    return chainCheck("scenes/rigid_chain.yaml", 4, 60);
}

ALC_TEST(rigid_contact_chain21Hangs) {
    // bench/scenes/rigid_chain21.yaml (tools/scene-rigid.sh chain 21): the analogue of rigid IPC's
    // 21-link anchor chain, its last link ten times as dense; 0.2 s
    return chainCheck("bench/scenes/rigid_chain21.yaml", 21, 20);
}

ALC_TEST(rigid_generatedScenesCurrent) {
    // the benchmark scenes that tools/scene-rigid.sh writes (bench/scenes/) are what it writes
    // today
    static const char* const cmds[] = {
        "tools/scene-rigid.sh arch 101 | cmp -s - bench/scenes/rigid_arch101.yaml",
        "tools/scene-rigid.sh chain 21 | cmp -s - bench/scenes/rigid_chain21.yaml",
        // bad usage is refused with status 2
        "tools/scene-rigid.sh arch 2 >/dev/null 2>&1; test $? -eq 2",
        "tools/scene-rigid.sh wall 5 >/dev/null 2>&1; test $? -eq 2",
    };
    for (int i = 0; i < 4; i++) {
        char cmd[1400];
        snprintf(cmd, sizeof cmd, "cd '%s' && { %s; }", alct_rootDir(), cmds[i]);
        ENSURE_MSG(system(cmd) == 0, "failed: %s", cmds[i]);
    }
    return ALC_TEST_PASS;
}

/// The coin of scenes/rigid_coin.yaml: the angle (degrees) of its axis (the principal axis of
/// its largest moment) from the vertical.
static double coinTilt(const Run* r) {
    alcM3 R = alcm_rodrigues(alcm_v3_load(r->d->rigid_pose));
    double c = fabs(alcm_m3_col(R, 0).y);
    return acos(c < 1 ? c : 1) * 180 / 3.14159265358979323846;
}

ALC_TEST(rigid_contact_coinComesToRest) {
    // a coin spun at 30 rad/s on its edge, tipped 10 degrees (scenes/rigid_coin.yaml): it spins
    // and wobbles on its edge, falls flat and stops, resting at half its thickness plus the
    // contact offset; no energy warning, every state clean
    Run r;
    ENSURE(openRun(&r, "rigid_coin.yaml", NULL, NULL, -1));
    ENSURE(r.m->nrigid == 1);
    const double h = r.m->opt.timestep, delta = r.m->opt.delta;
    int ok = 1, steps = r.m->run.steps, warned = 0;
    double upright = 90, fellAt = -1, wMax = 0;
    for (int s = 1; ok && s <= steps; s++) {
        ok = stepRun(&r);
        double tilt = coinTilt(&r), v[3], w;
        rigidVelocity(&r, 0, v, &w);
        if (s * h <= 0.2 + 1e-9) upright = fmin(upright, tilt);
        if (fellAt < 0 && tilt < 1) fellAt = s * h;
        if (s * h > 0.1) wMax = fmax(wMax, w);
        warned |= r.d->warning[ALC_WARN_ENERGY_GAIN].count > 0;
    }
    double v[3], w, tilt = coinTilt(&r), y = r.d->rigid_pose[4];
    rigidVelocity(&r, 0, v, &w);
    closeRun(&r);
    ENSURE(ok);
    alct_note(
        "on its edge through 0.2 s (axis at least %.1f deg from the vertical), spinning up to "
        "%.1f rad/s after 0.1 s; flat from %.3f s; at %.1f s: tilt %.2e deg, speed %.2e m/s, "
        "spin %.2e rad/s, centre %.7f m above the table (expected %.7f)",
        upright, wMax, fellAt, steps * h, tilt, norm3(v), w, y, 0.001 + delta);
    ENSURE(upright > 45 && wMax > 10);
    ENSURE(fellAt > 0.2 && fellAt < steps * h - 0.05);
    ENSURE(tilt < 0.01 && norm3(v) < 1e-6 && w < 1e-4);
    ENSURE(fabs(y - (0.001 + delta)) < 1e-6);
    ENSURE(!warned);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_contact_coinSpinsDownFlat) {
    // the coin lying flat, spun at 20 rad/s (rigid_coin.yaml with tilt 0): Coulomb friction
    // slows it at a constant rate. While it slides every contact's friction is at mu times its
    // normal force, the torque of the reported friction forces about its centre is its moment
    // of inertia times its angular deceleration, and it stops at about the time that torque
    // predicts
    const char* names[] = {"tilt", "spin", NULL};
    const double values[] = {0, 20};
    Run r;
    ENSURE(openRun(&r, "rigid_coin.yaml", names, values, -1));
    const double h = r.m->opt.timestep, mu = 0.3, I = r.m->rigid_inertia[0];
    int ok = 1, steps = 60;
    double wPrev = 20, worstBalance = 0, worstCoulomb = 0, torque = 0, stopAt = -1, wSlide = 0;
    double tSlide = 0;
    for (int s = 1; ok && s <= steps; s++) {
        ok = stepRun(&r);
        const double* p = r.d->rigid_pose;
        double v[3], w;
        rigidVelocity(&r, 0, v, &w);
        // the torque about the vertical through the centre of mass from the contact report
        const alcContact* c = NULL;
        int n = 0;
        alc_getContacts(r.sim, &c, &n);
        double tau = 0;
        for (int i = 0; i < n; i++) {
            int side = c[i].body[0] == 0 ? 0 : 1;
            double sign = side == 0 ? 1 : -1;  // friction is reported acting on side 0
            double rx = c[i].point[side][0] - p[3], rz = c[i].point[side][2] - p[5];
            double fx = sign * c[i].frictionForce[0], fz = sign * c[i].frictionForce[2];
            tau += rz * fx - rx * fz;
            double ft = sqrt(fx * fx + fz * fz), fn = c[i].normalForce;
            // past the first steps (friction lags the normal forces by a step)
            if (s > 4 && w > 0.5 && fn > 1e-9)
                worstCoulomb =
                    fmax(worstCoulomb, fabs(ft / (mu * fn) - 1) * (rx * rx + rz * rz > 1e-8));
        }
        // I dw/dt against tau while the step turns it by less than 0.04 rad (implicit Euler's
        // own dissipation of the spin grows with the cube of the step's angle)
        if (wPrev < 8 && w > 0.5) {
            worstBalance = fmax(worstBalance, fabs(I * (w - wPrev) / h - tau) / fabs(tau));
            torque = tau;
            wSlide = w;
            tSlide = s * h;
        }
        if (stopAt < 0 && w < 1e-3) stopAt = s * h;
        wPrev = w;
    }
    closeRun(&r);
    ENSURE(ok);
    // from the last sliding step on, the constant deceleration tau / I
    double predicted = tSlide + wSlide * I / fabs(torque);
    alct_note(
        "friction torque %.4e N m (I = %.4e kg m^2): I dw/dt within %.2e of it, each contact's "
        "friction within %.2e of mu N off the centre; stopped by %.3f s, predicted %.4f s",
        torque, I, worstBalance, worstCoulomb, stopAt, predicted);
    ENSURE(torque < 0);
    ENSURE(worstBalance < 0.01);
    ENSURE(worstCoulomb < 1e-3);
    // the last 0.5 rad/s take a little longer: the smoothed friction (eps_v) weakens as the
    // contacts near the centre slow below h eps_v
    ENSURE(stopAt >= predicted - h && stopAt <= 1.1 * predicted);
    return ALC_TEST_PASS;
}
