// Moving boundaries that jump further in one step than the elements beside them are thick
// (issue 14: IPC's dolphin dragged through a funnel never finished its first step): the step
// ends within its caps, every state is inversion-free, and the driven vertices end on their
// targets within the AL paper's Eq. 21 bound.
#include "alc_internal.h"
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/// A soft Neo-Hookean bar, 8 cells of 12.5 mm along x, whose +x end is pushed towards -x at
/// 1 m/s with h = 0.02 s: the end face moves 20 mm per step, further than the first cell is
/// long, so placing it at its target alone would invert that layer of elements.
static const char* kBar =
    "physics: {time_step: 0.02, gravity: [0, 0, 0]}\n"
    "solver: {contact: none}\n"
    "materials: {m: {model: nh, youngs_modulus: 1e4, poisson_ratio: 0.4, density: 1000}}\n"
    "bodies:\n"
    "  - name: bar\n"
    "    mesh: {box: {size: [0.1, 0.025, 0.025], cells: [8, 2, 2]}}\n"
    "    material: m\n"
    "    drivers:\n"
    "      - name: push\n"
    "        select: {box: {min: [0.049, -1, -1], max: [1, 1, 1]}}\n"
    "        motion: {type: linear, velocity: [-1, 0, 0]}\n";

/// The driven vertices of r lie on their targets within the AL paper's Eq. 21 bound for a
/// boundary speed v (m/s): eps h v / (1 - eps). Returns how many are driven, -1 on a miss.
static int drivenOnTargets(const Run* r, double v, int step) {
    const alcOption* o = &r->m->opt;
    double bound = o->epsilon * o->timestep * v / (1 - o->epsilon) + 1e-12;
    int driven = 0;
    for (int i = 0; i < r->m->nvert; i++) {
        if (!r->sim->kinMask[i]) continue;
        driven++;
        for (int k = 0; k < 3; k++) {
            double e = fabs(r->d->x[3 * i + k] - r->d->kin_target[3 * i + k]);
            if (e > bound) {
                alct_note("step %d: vertex %d is %g m from its target (bound %g)", step, i, e,
                          bound);
                return -1;
            }
        }
    }
    return driven;
}

ALC_TEST(movingBoundary_jumpFurtherThanCells) {
    const char* dir = alct_tmpDir("moving_boundary", NULL);
    const char* path = alct_writeFile(dir, "bar.yaml", kBar);
    ENSURE(path);
    Run r;
    ENSURE(openRunPath(&r, path, NULL, NULL, -1));
    for (int step = 0; step < 4; step++) {
        ENSURE(stepRun(&r));
        const alcStepStat* s = &r.d->stat;
        ENSURE_MSG(!s->capped, "step %d ended at the iteration cap (%d outer, %d Newton)", step + 1,
                   s->outer, s->newton);
        // driven vertices on their targets within Eq. 21, v = 1 m/s
        int driven = drivenOnTargets(&r, 1.0, step + 1);
        ENSURE(driven == 9);
    }
    // the bar was pushed: its free end followed the driven one, the layer in between squeezed
    // but not inverted (checkRun in stepRun)
    double c[3];
    bodyCentre(&r, 0, c);
    ENSURE_MSG(c[0] < -0.01, "bar centre at x = %g, not pushed", c[0]);
    closeRun(&r);
    return ALC_TEST_PASS;
}

/// Two ends dragged apart sideways by two cells per step, their boundaries staircases
/// (tests/data/scenes/ends_dragged_apart.yaml): placing the driven vertices alone crushes an
/// element at the staircase, and with the whole bar's mean displacement zero only carrying the
/// free vertices near them along (host/hd/alcm_kincarry.h) lets the placement through. Before it,
/// every step ran to the cap of 300 outer iterations with the ends 7 mm short of their targets
/// after the first; now each step takes 2.
ALC_TEST(movingBoundary_endsCarriedAlong) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/scenes/ends_dragged_apart.yaml", alct_rootDir());
    Run r;
    ENSURE(openRunPath(&r, path, NULL, NULL, -1));
    for (int step = 0; step < 3; step++) {
        ENSURE(stepRun(&r));
        const alcStepStat* s = &r.d->stat;
        ENSURE_MSG(!s->capped && s->outer <= 4, "step %d: %d outer and %d Newton iterations%s",
                   step + 1, s->outer, s->newton, s->capped ? " (capped)" : "");
        // the driven vertices at 0.67 m/s on their targets within Eq. 21
        ENSURE(drivenOnTargets(&r, 0.68, step + 1) > 0);
    }
    closeRun(&r);
    return ALC_TEST_PASS;
}

/// A release plane (release_past, IPC's dragright): a bar pulled at its +x end at 1 m/s is let
/// go at the first step that begins with every vertex of the bar beyond x = 0.02, no earlier,
/// and from then on its vertices are free (it coasts). A zero direction is refused with the
/// file and line.
ALC_TEST(movingBoundary_releasePast) {
    const char* text =
        "physics: {time_step: 0.01, gravity: [0, 0, 0]}\n"
        "solver: {contact: none}\n"
        "materials: {m: {model: nh, youngs_modulus: 1e5, poisson_ratio: 0.3, density: 1000}}\n"
        "bodies:\n"
        "  - name: bar\n"
        "    mesh: {box: {size: [0.1, 0.02, 0.02], cells: [5, 1, 1]}}\n"
        "    material: m\n"
        "    drivers:\n"
        "      - name: pull\n"
        "        select: {box: {min: [0.049, -1, -1], max: [1, 1, 1]}}\n"
        "        motion: {type: linear, velocity: [1, 0, 0],\n"
        "                 release_past: {direction: [2, 0, 0], offset: 0.02}}\n";
    const char* path = alct_writeFile(alct_tmpDir("release", NULL), "pull.yaml", text);
    Run r;
    ENSURE(openRunPath(&r, path, NULL, NULL, -1));
    int released = -1;
    for (int step = 0; step < 20 && released < 0; step++) {
        double minx = HUGE_VAL;
        for (int v = 0; v < r.m->nvert; v++) minx = fmin(minx, r.d->x[3 * v]);
        ENSURE(stepRun(&r));
        int kin = 0;
        for (int v = 0; v < r.m->nvert; v++) kin += r.sim->kinMask[v];
        // released exactly when the step began with the whole bar past the plane
        ENSURE_MSG((minx > 0.02) == (kin == 0 && r.d->driver_released[0] == 1),
                   "step %d: began with min x %.4f, %d kinematic vertices", step + 1, minx, kin);
        if (kin == 0) released = step + 1;
    }
    alct_note("released at step %d (the bar's left end past x = 0.02)", released);
    ENSURE(released > 1);
    // free from then on: nothing pulls it back to a target
    double v0 = r.d->v[0];
    ENSURE(stepRun(&r));
    for (int v = 0; v < r.m->nvert; v++) ENSURE(!r.sim->kinMask[v]);
    ENSURE(v0 > 0.1);
    closeRun(&r);

    alcModel* m = NULL;
    char err[1024] = "";
    const char* bad = alct_writeFile(
        alct_tmpDir("release", NULL), "zero.yaml",
        "bodies:\n  - mesh: {box: {}}\n    drivers:\n      - select: {all: true}\n"
        "        motion: {type: fixed, release_past: {direction: [0, 0, 0], offset: 1}}\n");
    ENSURE(alc_loadScene(bad, NULL, &m, err, sizeof err) != ALC_OK && !m);
    alct_note("%s", err);
    ENSURE(strstr(err, "zero.yaml:5:") && strstr(err, "zero direction"));
    return ALC_TEST_PASS;
}
