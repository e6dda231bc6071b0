// solver.eigen_filter (alcOption.eigenFilter; alcm_tet_eigen): the negative eigenvalues of a
// tetrahedron's elastic Hessian clamped to 0 (the AL paper's Eq. 17, the default) or replaced by
// their magnitude (abs). The scene key and its errors, and on a contact scene the path changes
// but not the solution: the steps end where the clamped Newton's do, to within what a tighter
// linear solve moves them.
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <math.h>
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

ALC_TEST(eigenFilter_samePointOtherPath) {
    // box_stack (boxes resting on each other and the ground, friction) for 12 steps with clamp,
    // with abs, and with clamp and cg_tol 1e-7 instead of 1e-4: every state clean, the abs run's
    // Newton iterations differ (the filter reaches the matrix), and its states end within what the
    // tighter linear solve moves the clamped run's
    const int steps = 12;
    Run a, b, c;
    ENSURE(openRun(&a, "box_stack.yaml", NULL, NULL, -1));
    ENSURE(openRun(&b, "box_stack.yaml", NULL, NULL, -1));
    ENSURE(openRun(&c, "box_stack.yaml", NULL, NULL, -1));
    b.m->opt.eigenFilter = ALC_EIGEN_ABS;
    c.m->opt.cgTol = 1e-7;
    long newtonA = 0, newtonB = 0;
    int cgA = 0, cgB = 0;
    for (int k = 0; k < steps; k++) {
        ENSURE(stepRun(&a) && stepRun(&b) && stepRun(&c));
        newtonA += a.d->stat.newton;
        newtonB += b.d->stat.newton;
        cgA += a.d->stat.cgTotal;
        cgB += b.d->stat.cgTotal;
    }
    double worst = 0, scale = 0, cg = 0;
    for (int i = 0; i < 3 * a.m->nvert; i++) {
        worst = fmax(worst, fabs(a.d->x[i] - b.d->x[i]));
        cg = fmax(cg, fabs(a.d->x[i] - c.d->x[i]));
        scale = fmax(scale, fabs(a.d->x[i]));
    }
    alct_note(
        "Newton iterations %ld clamp, %ld abs (CG %d, %d); largest position difference "
        "%.2e m; cg_tol 1e-7 instead of 1e-4 moves the clamped run %.2e m",
        newtonA, newtonB, cgA, cgB, worst, cg);
    ENSURE(a.clean && b.clean && c.clean);
    ENSURE(newtonA != newtonB || cgA != cgB);
    ENSURE(worst > 0 && worst < cg && cg < 1e-2 * scale);
    closeRun(&a);
    closeRun(&b);
    closeRun(&c);
    return ALC_TEST_PASS;
}
