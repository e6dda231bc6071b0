// solver.ccd_gap_cap (alcOption.ccdGapCap; host/ref/ccd_ref.c and cuda/ccd_narrow.cu through
// alcm_ccd_capRescale; issue 14): the step-size CCD of the AL model lets a pair that starts
// farther than ccd_gap_cap x delta close to ccd_rescale x that distance instead of to
// ccd_rescale x its own gap. Off by default. The scene key and the spec check, and a landing
// whose outer steps the cap lets go further, every state clean.
#include "alc_internal.h"
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// box_drop for `steps` steps with ccdGapCap = cap: outer and Newton iterations, the sum of the
/// outer steps' alpha and the final positions (caller frees); 0 on a failed step or a state that
/// is not clean.
static int dropRun(double cap, int steps, long* outer, long* newton, double* alphaSum, double** x,
                   int* n) {
    Run r;
    if (!openRun(&r, "box_drop.yaml", NULL, NULL, -1)) return 0;
    r.m->opt.ccdGapCap = cap;
    int ok = 1;
    *alphaSum = 0;
    for (int k = 0; ok && k < steps; k++) {
        ok = stepRun(&r);
        *alphaSum += r.d->stat.alphaSum;
    }
    *outer = r.d->run.outer;
    *newton = r.d->run.newton;
    *n = 3 * r.m->nvert;
    *x = (double*)malloc(sizeof(double) * (size_t)*n);
    if (*x) memcpy(*x, r.d->x, sizeof(double) * (size_t)*n);
    closeRun(&r);
    return ok && *x;
}

// The cap changes where the landing's outer steps are cut (the box starts far from the ground,
// so its pairs' gaps are capped), and every state of both runs is clean (stepRun checks each);
// the shipped scenes are not faster with it (bench/results/intel-xeon-2c/ipc-examples.md), so
// it is off by default
ALC_TEST(ccdGapCap_changesTheCutsAndStaysClean) {
    const int steps = 40;
    long o0 = 0, n0 = 0, o1 = 0, n1 = 0;
    double a0 = 0, a1 = 0, *x0 = NULL, *x1 = NULL;
    int n = 0;
    ENSURE(dropRun(0, steps, &o0, &n0, &a0, &x0, &n));
    ENSURE(dropRun(1, steps, &o1, &n1, &a1, &x1, &n));
    double diff = 0;
    for (int i = 0; i < n; i++) diff = fmax(diff, fabs(x1[i] - x0[i]));
    free(x0);
    free(x1);
    alct_note(
        "box_drop, %d steps: ccd_gap_cap 0: %ld outer, %ld Newton, mean alpha %.4f; "
        "1: %ld outer, %ld Newton, mean alpha %.4f; final states %.2e m apart",
        steps, o0, n0, a0 / o0, o1, n1, a1 / o1, diff);
    ENSURE_MSG(a1 != a0 && diff > 0, "the cap changed nothing: alpha sums %g and %g", a1, a0);
    return ALC_TEST_PASS;
}

ALC_TEST(ccdGapCap_sceneKeyAndRefusals) {
    char err[1024];
    alcModel* m = NULL;
    ENSURE(alc_defaultOption().ccdGapCap == 0);
    ENSURE_MSG(
        alct_loadSolverScene("gapcap", "e.yaml", "ccd_gap_cap: 1", &m, err, sizeof err) == ALC_OK,
        "%s", err);
    ENSURE(m->opt.ccdGapCap == 1);
    alc_deleteModel(m);
    ENSURE(alct_loadSolverScene("gapcap", "e.yaml", "ccd_gap_cap: -1", &m, err, sizeof err) ==
           ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "e.yaml:4:") && strstr(err, "ccd_gap_cap"), "%s", err);
    alcSpec* spec = NULL;
    ENSURE_OK(alc_makeSpec(&spec));
    alc_specOption(spec)->ccdGapCap = -0.5;
    ENSURE(alc_compileSpec(spec, &m, err, sizeof err) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "ccd_gap_cap -0.5"), "%s", err);
    alc_deleteSpec(spec);
    return ALC_TEST_PASS;
}
