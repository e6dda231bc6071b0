// alcOption.hessianReuse (host/ref/elastic_ref.c): the elastic Hessian once per step instead of
// at every Newton iteration. The scene key and its errors, the number of Hessian evaluations
// (one per step, against one per Newton iteration without it), and the outcome against the
// exact Newton on a contact scene with friction.
#include "alc_internal.h"
#include "ref/backend_ref.h"
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <stdio.h>
#include <string.h>

/// Load scene text written to the test directory; the status, with the message in err.
static alctStatus loadText(const char* text, alcModel** m, char* err, int errsz) {
    return alct_loadSceneText("hreuse", "reuse.yaml", text, m, err, errsz);
}

ALC_TEST(hessianReuse_sceneKey) {
    static const char* const base =
        "name: r\nrun: {steps: 1}\nphysics: {time_step: 0.01}\n"
        "solver: {hessian_reuse: %s}\n"
        "materials:\n  m: {density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.3}\n"
        "bodies:\n  - {name: b, mesh: {box: {size: [1, 1, 1], cells: [1, 1, 1]}},"
        " material: m}\n";
    char text[1024], err[1024];
    alcModel* m = NULL;
    snprintf(text, sizeof text, base, "step");
    ENSURE_MSG(loadText(text, &m, err, sizeof err) == ALC_OK, "%s", err);
    ENSURE(m->opt.hessianReuse == 1);
    alc_deleteModel(m);
    snprintf(text, sizeof text, base, "newton");
    ENSURE_MSG(loadText(text, &m, err, sizeof err) == ALC_OK, "%s", err);
    ENSURE(m->opt.hessianReuse == 0);
    alc_deleteModel(m);
    snprintf(text, sizeof text, base, "sometimes");
    ENSURE(loadText(text, &m, err, sizeof err) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "reuse.yaml:4:") && strstr(err, "hessian_reuse"), "%s", err);
    // the default is the exact Newton
    alcOption o = alc_defaultOption();
    ENSURE(o.hessianReuse == 0);
    return ALC_TEST_PASS;
}

/// Element Hessian evaluations of the reference backend so far.
static long hessianEvals(const Run* r) {
    return ((const alcrBackend*)r->sim->be.state)->hessianEvals;
}

static void useReuse(alcModel* m) {
    m->opt.hessianReuse = 1;
}

ALC_TEST(hessianReuse_oncePerStep) {
    // box_stack (boxes resting on each other and the ground, friction) for 10 steps, with and
    // without the reuse: with it one Hessian per step, without it one per Newton iteration; the
    // states, both clean, differ by less than a tighter linear solve (cg_tol 1e-7 instead of
    // 1e-4) moves the exact Newton's: the reuse changes the path, not the solution
    const int steps = 10;
    PathRuns p;
    ENSURE(pathRuns(&p, "box_stack.yaml", steps, useReuse));
    long evalsA = hessianEvals(&p.a), evalsB = hessianEvals(&p.b);
    pathRunsClose(&p);
    ENSURE(p.splits[1] == 0);
    ENSURE_MSG(evalsA == p.newton[0], "%ld evaluations for %ld Newton iterations", evalsA,
               p.newton[0]);
    ENSURE_MSG(evalsB == steps, "%ld evaluations in %d steps", evalsB, steps);
    ENSURE(p.newton[1] > steps);
    alct_note(
        "Newton iterations %ld exact, %ld with the reuse; largest position difference "
        "%.2e m (scene size %.2f m)",
        p.newton[0], p.newton[1], p.worst, p.scale);
    alct_note("cg_tol 1e-7 instead of 1e-4: largest position difference %.2e m", p.cgMove);
    ENSURE(p.worst < p.cgMove && p.cgMove < 1e-2 * p.scale);
    return ALC_TEST_PASS;
}
