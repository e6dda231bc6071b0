// solver.eigen_filter (alcOption.eigenFilter; alcm_tet_eigen): the negative eigenvalues of a
// tetrahedron's elastic Hessian clamped to 0 (the AL paper's Eq. 17, the default) or replaced by
// their magnitude (abs). The scene key and its errors, and on a contact scene the path changes
// but not the solution: the steps end where the clamped Newton's do, to within what a tighter
// linear solve moves them.
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <stdio.h>
#include <string.h>

ALC_TEST(eigenFilter_sceneKey) {
    static const char* const base =
        "name: e\nrun: {steps: 1}\nphysics: {time_step: 0.01}\n"
        "solver: {eigen_filter: %s}\n"
        "materials:\n  m: {density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.3}\n"
        "bodies:\n  - {name: b, mesh: {box: {size: [1, 1, 1], cells: [1, 1, 1]}},"
        " material: m}\n";
    static const char* const names[] = {"abs", "clamp"};
    static const int values[] = {ALC_EIGEN_ABS, ALC_EIGEN_CLAMP};
    char text[1024], err[1024];
    alcModel* m = NULL;
    for (int k = 0; k < 2; k++) {
        snprintf(text, sizeof text, base, names[k]);
        ENSURE_MSG(alct_loadSceneText("eigf", "e.yaml", text, &m, err, sizeof err) == ALC_OK, "%s",
                   err);
        ENSURE(m->opt.eigenFilter == values[k]);
        alc_deleteModel(m);
    }
    snprintf(text, sizeof text, base, "square");
    ENSURE(alct_loadSceneText("eigf", "e.yaml", text, &m, err, sizeof err) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "e.yaml:4:") && strstr(err, "eigen_filter"), "%s", err);
    alct_note("%s", err);
    alcOption o = alc_defaultOption();
    ENSURE(o.eigenFilter == ALC_EIGEN_CLAMP);
    return ALC_TEST_PASS;
}

static void useAbs(alcModel* m) {
    m->opt.eigenFilter = ALC_EIGEN_ABS;
}

ALC_TEST(eigenFilter_samePointOtherPath) {
    // box_stack (boxes resting on each other and the ground, friction) for 12 steps with clamp,
    // with abs, and with clamp and cg_tol 1e-7 instead of 1e-4: every state clean, the abs
    // run's iterations differ (the filter reaches the matrix), and its states end within what
    // the tighter linear solve moves the clamped run's
    PathRuns p;
    ENSURE(pathRuns(&p, "box_stack.yaml", 12, useAbs));
    alct_note(
        "Newton iterations %ld clamp, %ld abs (CG %ld, %ld); largest position difference "
        "%.2e m; cg_tol 1e-7 instead of 1e-4 moves the clamped run %.2e m",
        p.newton[0], p.newton[1], p.cg[0], p.cg[1], p.worst, p.cgMove);
    int clean = p.a.clean && p.b.clean && p.c.clean;
    pathRunsClose(&p);
    ENSURE(clean);
    ENSURE(p.newton[0] != p.newton[1] || p.cg[0] != p.cg[1]);
    ENSURE(p.worst > 0 && p.worst < p.cgMove && p.cgMove < 1e-2 * p.scale);
    return ALC_TEST_PASS;
}
