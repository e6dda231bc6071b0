// The comparison contact models (docs/contact-models.md): the IPC barrier model keeps every
// state intersection-free and inversion-free on the CI-size scenes (checked independently at
// every step), and the penalty ablation (the AL energy with its multipliers held at zero, AL
// paper §6.3, Fig. 17) shows its failure mode on a contact-heavy scene: the iterates stay
// inside the offset and the steps need far more iterations than AL, or hit the cap.
#include "scene_run.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <math.h>

/// Steps of scene with contact model `contact`; Newton iterations and capped steps.
static int runModel(const char* scene, int contact, int steps, long* newton, long* capped) {
    Run r;
    if (!openRun(&r, scene, NULL, NULL, contact)) return 0;
    int ok = 1;
    if (steps <= 0 || steps > r.m->run.steps) steps = r.m->run.steps;
    for (int s = 0; ok && s < steps; s++) ok = stepRun(&r);
    *newton = r.d->run.newton;
    *capped = r.d->run.capped;
    if (ok)
        alct_note("%-18s %-7s %3d steps: Newton %.2f per step, capped %ld, clean", scene,
                  contact == ALC_CONTACT_IPC       ? "ipc"
                  : contact == ALC_CONTACT_PENALTY ? "penalty"
                                                   : "al",
                  steps, (double)*newton / steps, *capped);
    closeRun(&r);
    return ok;
}

ALC_TEST(contactModels_ipcStaysClean) {
    const char* scenes[] = {"box_drop.yaml", "box_stack.yaml", "rods_twist.yaml"};
    for (int i = 0; i < 3; i++) {
        long newton = 0, capped = 0;
        ENSURE_MSG(runModel(scenes[i], ALC_CONTACT_IPC, 0, &newton, &capped), "%s", scenes[i]);
        ENSURE(capped == 0);
    }
    return ALC_TEST_PASS;
}

/// Moving boundaries under IPC: the press of balls_press and the closing walls of rings_box move
/// their obstacles into the bodies; the kinematic DOFs join the solve under an augmented
/// Lagrangian (host/step_ipc.c). Every step stays clean, none hits the cap, and every obstacle
/// vertex ends its step on its target.
ALC_SLOW_TEST(contactModels_ipcMovingBoundaries) {
    const char* scenes[] = {"balls_press.yaml", "rings_box.yaml"};
    for (int i = 0; i < 2; i++) {
        Run r;
        ENSURE(openRun(&r, scenes[i], NULL, NULL, ALC_CONTACT_IPC));
        int ok = 1, steps = r.m->run.steps;
        double worst = 0, moved = 0;
        for (int s = 0; ok && s < steps; s++) {
            ok = stepRun(&r);
            if (ok) obstacleTargetGap(&r, &worst, &moved);
        }
        long capped = r.d->run.capped, newton = r.d->run.newton;
        int blocked = r.d->warning[ALC_WARN_KINEMATIC_BLOCKED].count;
        closeRun(&r);
        ENSURE_MSG(ok, "%s", scenes[i]);
        alct_note(
            "%-17s ipc %d steps: Newton %.2f per step, capped %ld, obstacles up to %.3f m/s, "
            "farthest from a target %.3e m, %d steps short",
            scenes[i], steps, (double)newton / steps, capped, moved, worst, blocked);
        ENSURE(moved > 0.1);
        ENSURE(capped == 0);
        ENSURE(blocked == 0);
        ENSURE(worst == 0);
    }
    return ALC_TEST_PASS;
}

ALC_TEST(contactModels_penaltyAblation) {
    long nAl = 0, cAl = 0, nPen = 0, cPen = 0;
    ENSURE(runModel("box_stack.yaml", ALC_CONTACT_AL, 10, &nAl, &cAl));
    ENSURE(runModel("box_stack.yaml", ALC_CONTACT_PENALTY, 10, &nPen, &cPen));
    alct_note("penalty / AL Newton iterations: %.1fx (expected >= 10x, or capped steps)",
              (double)nPen / (double)nAl);
    ENSURE(cAl == 0);
    ENSURE(cPen > 0 || nPen >= 10 * nAl);
    return ALC_TEST_PASS;
}
