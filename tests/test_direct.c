// The reference backend's sparse direct solver (host/ref/direct_ref.c, CHOLMOD) and the
// `linear_solver` option (issue 14, item 3): exact solves of random SPD block matrices, a new
// pattern analysed afresh, a matrix that is not positive definite reported, and whole scenes
// whose steps agree with PCG's. Skipped (with the reason) in a build without CHOLMOD.
#include "alc_internal.h"
#include "blas_info.h"
#include "ref/bsr_ref.h"
#include "ref/direct_ref.h"
#include "ref/pcg_ref.h"
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double rnd(unsigned long long* s) {
    unsigned long long z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static int skipWithoutCholmod(void) {
    if (alcr_direct_available()) return 0;
    alct_skipReason("built without CHOLMOD (libsuitesparse-dev not installed at build time)");
    return 1;
}

/// A symmetric positive definite block matrix of n block rows: `mass` I on the diagonal plus
/// springs k M (M a random SPD 3x3 block, spread over [1, stiff]) between random vertex pairs,
/// each adding M to blocks (i,i), (j,j) and -M to (i,j), (j,i). Both triangles stored.
static int makeSpd(alcrBsr* A, int n, int nspring, double mass, double stiff,
                   unsigned long long seed) {
    int* sp = (int*)malloc(sizeof(int) * 2 * (size_t)nspring);
    int* srowptr = (int*)calloc((size_t)n + 1, sizeof(int));
    int* scol = (int*)malloc(sizeof(int) * (size_t)(n + 2 * nspring));
    if (!sp || !srowptr || !scol) return 0;
    unsigned long long s = seed;
    for (int e = 0; e < nspring; e++) {
        int i = (int)((rnd(&s) + 1) * 0.5 * n) % n, j = (int)((rnd(&s) + 1) * 0.5 * n) % n;
        if (j == i) j = (i + 1) % n;
        sp[2 * e] = i;
        sp[2 * e + 1] = j;
    }
    // static pattern: diagonal + both directions of every spring, sorted and unique per row
    int nz = 0;
    for (int r = 0; r < n; r++) {
        srowptr[r] = nz;
        for (int c = 0; c < n; c++) {
            int in = c == r;
            for (int e = 0; !in && e < nspring; e++)
                in = (sp[2 * e] == r && sp[2 * e + 1] == c) || (sp[2 * e] == c && sp[2 * e + 1] == r);
            if (in) scol[nz++] = c;
        }
    }
    srowptr[n] = nz;
    int needed = 0, ok = alcr_bsr_make(A, n, nz, 16) == ALC_OK &&
                         alcr_bsr_setPattern(A, srowptr, scol, 0, 4, NULL, &needed) == ALC_OK;
    for (int r = 0; ok && r < n; r++) {
        double* D = A->val + 9 * (size_t)alcr_bsr_find(A, r, r);
        D[0] += mass;
        D[4] += mass;
        D[8] += mass;
    }
    for (int e = 0; ok && e < nspring; e++) {
        // M = k (u u^T + 0.1 I), a stiffness spread over [1, stiff]
        double u[3] = {rnd(&s), rnd(&s), rnd(&s)};
        double k = pow(stiff, 0.5 * (rnd(&s) + 1));
        double M[9];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) M[3 * a + b] = k * (u[a] * u[b] + (a == b ? 0.1 : 0));
        int i = sp[2 * e], j = sp[2 * e + 1];
        int blk[4] = {alcr_bsr_find(A, i, i), alcr_bsr_find(A, j, j), alcr_bsr_find(A, i, j),
                      alcr_bsr_find(A, j, i)};
        for (int q = 0; q < 4; q++) {
            double sign = q < 2 ? 1 : -1;
            for (int t = 0; t < 9; t++) A->val[9 * (size_t)blk[q] + t] += sign * M[t];
        }
    }
    free(sp);
    free(srowptr);
    free(scol);
    return ok;
}

/// The normwise backward error ||A x - b|| / (||A|| ||x|| + ||b||) (Frobenius and 2-norms),
/// about the unit roundoff for a backward-stable solve whatever the conditioning.
static double backwardError(const alcrBsr* A, const double* x, const double* b) {
    int N = 3 * A->n;
    double* y = (double*)malloc(sizeof(double) * (size_t)N);
    if (!y) return INFINITY;
    alcr_bsr_spmv(A, x, y);
    double r = 0, bb = 0, xx = 0, aa = 0;
    for (int i = 0; i < N; i++) {
        r += (y[i] - b[i]) * (y[i] - b[i]);
        bb += b[i] * b[i];
        xx += x[i] * x[i];
    }
    for (long long k = 0; k < 9LL * A->nnzb; k++) aa += A->val[k] * A->val[k];
    free(y);
    return sqrt(r) / (sqrt(aa) * sqrt(xx) + sqrt(bb));
}

ALC_TEST(direct_solvesSpdBlockMatrices) {
    if (skipWithoutCholmod()) return ALC_TEST_SKIP;
    alcrDirect* D = NULL;
    const int n = 60;
    ENSURE_OK(alcr_direct_make(&D, n));
    double* b = (double*)malloc(sizeof(double) * 3 * n);
    double* x = (double*)malloc(sizeof(double) * 3 * n);
    double* xp = (double*)malloc(sizeof(double) * 3 * n);
    double* work = (double*)malloc(sizeof(double) * 12 * n);
    double* Minv = (double*)malloc(sizeof(double) * 9 * n);
    ENSURE(b && x && xp && work && Minv);
    unsigned long long s = 7;
    for (int i = 0; i < 3 * n; i++) b[i] = rnd(&s);
    // three matrices: a pattern, the same pattern with other values, then a new pattern; the
    // stiffness ratio 1e10 of the third is where block-Jacobi PCG needs thousands of iterations
    const int springs[3] = {150, 150, 200};
    const unsigned long long seeds[3] = {1, 2, 3};
    const double stiff[3] = {1e3, 1e6, 1e10};
    for (int t = 0; t < 3; t++) {
        alcrBsr A;
        memset(&A, 0, sizeof A);
        ENSURE(makeSpd(&A, n, springs[t], 1.0, stiff[t], seeds[t]));
        long info = -1;
        ENSURE_OK(alcr_direct_solve(D, &A, b, x, &info));
        ENSURE_MSG(info == 0, "matrix %d: factorization failed at column %ld", t, info);
        double res = backwardError(&A, x, b);
        // PCG to a tight tolerance for comparison
        alcr_bsr_blockJacobi(&A, Minv);
        int iters = 0;
        int conv = alcr_pcg_solve(&A, Minv, b, xp, 1e-12, 100000, work, &iters);
        double diff = 0, norm = 0;
        for (int i = 0; i < 3 * n; i++) {
            diff = fmax(diff, fabs(x[i] - xp[i]));
            norm = fmax(norm, fabs(x[i]));
        }
        alct_note("matrix %d (stiffness to 1e%.0f): Cholesky backward error %.2e; PCG %d iterations "
                  "(%s), max difference %.2e of %.2e",
                  t, log10(stiff[t]), res, iters, conv ? "converged" : "capped", diff, norm);
        ENSURE_MSG(res < 1e-14, "matrix %d: backward error %g", t, res);
        if (conv) ENSURE_MSG(diff <= 1e-6 * norm, "matrix %d: differs from PCG by %g", t, diff);
        ENSURE(alcr_direct_bytes(D) > 0);
        alcr_bsr_free(&A);
    }

    // not positive definite: a negative mass makes the first pivot negative
    alcrBsr A;
    memset(&A, 0, sizeof A);
    ENSURE(makeSpd(&A, n, 100, -1.0, 1.0, 4));
    for (int k = 0; k < 9 * A.nnzb; k++) A.val[k] = 0;
    for (int r = 0; r < n; r++) {
        double* d = A.val + 9 * (size_t)alcr_bsr_find(&A, r, r);
        d[0] = d[4] = d[8] = r == 5 ? -1.0 : 1.0;
    }
    for (int i = 0; i < 3 * n; i++) x[i] = 12345;
    long info = 0;
    ENSURE_OK(alcr_direct_solve(D, &A, b, x, &info));
    // the failing column is named in A's own numbering, not the factor's: one of vertex 5's
    ENSURE_MSG(info >= 16 && info <= 18, "an indefinite matrix: info %ld, not a column of vertex 5",
               info);
    ENSURE(x[0] == 12345);  // left untouched
    alcr_bsr_free(&A);

    alcr_direct_free(D);
    free(b);
    free(x);
    free(xp);
    free(work);
    free(Minv);
    return ALC_TEST_PASS;
}

/// A stiff stone block (E = 2e10) resting on a second one fixed below it, 1 um apart.
#define STONES_SCENE \
    "physics: {time_step: 0.01}\n" \
    "solver: {delta: 1e-7, linear_solver: %s, cg_max_iter: %d}\n" \
    "friction: {eps_v: 1e-6}\n" \
    "materials: {stone: {model: snh, youngs_modulus: 2e10, poisson_ratio: 0.2, density: 2300," \
    " friction: 0.5}}\n" \
    "bodies:\n" \
    "  - name: base\n" \
    "    mesh: {box: {size: [0.4, 0.1, 0.4], cells: [4, 1, 4]}}\n" \
    "    material: stone\n" \
    "    motion: {type: fixed}\n" \
    "  - name: top\n" \
    "    mesh: {box: {size: [0.3, 0.1, 0.2], cells: [6, 2, 4]}}\n" \
    "    material: stone\n" \
    "    position: [0, 0.100001, 0]\n"

/// Run the stones for `steps` steps under a linear solver; 0 on any failure.
static int stonesRun(const char* solver, int cgMax, int steps, alcRunStat* rs, double* topY) {
    char text[2048], name[64];
    snprintf(text, sizeof text, STONES_SCENE, solver, cgMax);
    snprintf(name, sizeof name, "stones_%s_%d.yaml", solver, cgMax);
    const char* path = alct_writeFile(alct_tmpDir("direct", NULL), name, text);
    if (!path) return 0;
    Run r;
    if (!openRunPath(&r, path, NULL, NULL, -1)) return 0;
    int ok = 1;
    for (int s = 0; ok && s < steps; s++) ok = stepRun(&r);
    *rs = r.d->run;
    double c[3];
    bodyCentre(&r, 1, c);
    *topY = c[1];
    closeRun(&r);
    return ok;
}

ALC_TEST(direct_stiffStonesMatchPcg) {
    if (skipWithoutCholmod()) return ALC_TEST_SKIP;
    const int steps = 10;
    alcRunStat pcg, direct, autoRun;
    double yp = 0, yd = 0, ya = 0;
    ENSURE(stonesRun("pcg", 0, steps, &pcg, &yp));
    ENSURE(stonesRun("direct", 0, steps, &direct, &yd));
    // auto with a cap PCG cannot meet on E = 2e10: the capped systems go to Cholesky
    ENSURE(stonesRun("auto", 100, steps, &autoRun, &ya));
    alct_note("pcg: %.1f Newton/step, %.1f CG/solve; direct: %.1f Newton/step, %ld of %ld by "
              "Cholesky; auto (cap 100): %ld of %ld by Cholesky; top block y %.9f %.9f %.9f",
              (double)pcg.newton / steps, pcg.newton ? (double)pcg.cgTotal / pcg.newton : 0,
              (double)direct.newton / steps, direct.directSolves, direct.newton,
              autoRun.directSolves, autoRun.newton, yp, yd, ya);
    ENSURE(pcg.directSolves == 0);
    ENSURE(direct.directSolves == direct.newton && direct.cgTotal == 0);
    ENSURE(autoRun.directSolves > 0 && autoRun.directSolves <= autoRun.newton);
    // the stone rests on its base: the three agree on where within a micrometre
    ENSURE_MSG(fabs(yd - yp) < 1e-6 && fabs(ya - yp) < 1e-6, "top block y %g %g %g", yp, yd, ya);
    return ALC_TEST_PASS;
}

/// A 4 m cantilever of 40 cells, E = 2e10, fixed at one end: block-Jacobi PCG cannot reach its
/// tolerance within its general cap (3 x DOFs = 1476 iterations here).
#define BEAM_SCENE \
    "physics: {time_step: 0.01}\n" \
    "solver: {delta: 1e-4, linear_solver: %s}\n" \
    "materials: {stone: {model: snh, youngs_modulus: 2e10, poisson_ratio: 0.2, density: 2300}}\n" \
    "bodies:\n" \
    "  - name: beam\n" \
    "    mesh: {box: {size: [4, 0.02, 0.02], cells: [40, 1, 1]}}\n" \
    "    material: stone\n" \
    "    drivers:\n" \
    "      - name: end\n" \
    "        select: {box: {min: [-2.01, -1, -1], max: [-1.99, 1, 1]}}\n" \
    "        motion: {type: fixed}\n"

/// Two steps of the beam under a linear solver; 0 on any failure.
static int beamRun(const char* solver, alcRunStat* rs) {
    char text[2048], name[64];
    snprintf(text, sizeof text, BEAM_SCENE, solver);
    snprintf(name, sizeof name, "beam_%s.yaml", solver);
    const char* path = alct_writeFile(alct_tmpDir("direct", NULL), name, text);
    if (!path) return 0;
    Run r;
    if (!openRunPath(&r, path, NULL, NULL, -1)) return 0;
    int ok = stepRun(&r) && stepRun(&r);
    *rs = r.d->run;
    closeRun(&r);
    return ok;
}

ALC_TEST(direct_autoFactorizesAfter1000Iterations) {
    if (skipWithoutCholmod()) return ALC_TEST_SKIP;
    // under pcg the cap is 3 x DOFs; under auto (cg_max_iter unset) PCG gives up at 1000 and the
    // system is factorized, rather than waiting for the general cap first
    alcRunStat pcg, autoRun;
    ENSURE(beamRun("pcg", &pcg));
    ENSURE(beamRun("auto", &autoRun));
    alct_note("pcg: %ld solves, at most %d CG iterations; auto: %ld solves, at most %d CG "
              "iterations, %ld by Cholesky",
              pcg.newton, pcg.cgMax, autoRun.newton, autoRun.cgMax, autoRun.directSolves);
    ENSURE(pcg.cgMax > 1000 && pcg.directSolves == 0);
    ENSURE(autoRun.cgMax == 1000);
    ENSURE(autoRun.directSolves > 0 && autoRun.directSolves <= autoRun.newton);
    return ALC_TEST_PASS;
}

ALC_TEST(direct_refusedWithoutCholmodOrOnUnknownName) {
    char text[2048];
    snprintf(text, sizeof text, STONES_SCENE, "cholesky", 0);
    const char* path = alct_writeFile(alct_tmpDir("direct", NULL), "bad_solver.yaml", text);
    ENSURE(path);
    alcLoadDef ld = alc_defaultLoadDef();
    alcModel* m = NULL;
    char err[1024];
    ENSURE(alc_loadScene(path, &ld, &m, err, sizeof err) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "bad_solver.yaml:2:") && strstr(err, "pcg, direct, auto"), "%s", err);
    if (alcr_direct_available()) return ALC_TEST_PASS;
    // a build without CHOLMOD refuses the direct solver when the sim is made
    snprintf(text, sizeof text, STONES_SCENE, "direct", 0);
    path = alct_writeFile(alct_tmpDir("direct", NULL), "direct.yaml", text);
    ENSURE(path && alc_loadScene(path, &ld, &m, err, sizeof err) == ALC_OK);
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    alcSim* sim = NULL;
    ENSURE(alc_makeSim(m, &def, &sim) == ALC_ERR_UNSUPPORTED);
    ENSURE(strstr(alc_lastError(sim), "CHOLMOD"));
    alc_deleteSim(sim);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

// OpenBLAS kernels without AVX2 on a CPU that has it are named, with the OPENBLAS_CORETYPE that
// fits; a core that fits, a CPU without AVX2 or a core name that is not x86's get no advice
ALC_TEST(direct_blasAdviceForOldKernels) {
    char buf[512];
    ENSURE(alci_blasAdvice("Prescott", 1, 1, buf, sizeof buf) == 1);
    ENSURE_MSG(strstr(buf, "OPENBLAS_CORETYPE=SkylakeX") && strstr(buf, "Prescott") &&
                   strstr(buf, "AVX-512"),
               "%s", buf);
    ENSURE(alci_blasAdvice("sandybridge", 1, 0, buf, sizeof buf) == 1);
    ENSURE_MSG(strstr(buf, "OPENBLAS_CORETYPE=Haswell") && strstr(buf, "AVX2"), "%s", buf);
    static const char* const fits[] = {"Haswell", "SkylakeX", "Zen", "Cooperlake", "armv8",
                                       "Unknown", ""};
    for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++) {
        ENSURE_MSG(alci_blasAdvice(fits[i], 1, 1, buf, sizeof buf) == 0 && buf[0] == 0, "%s",
                   fits[i]);
    }
    ENSURE(alci_blasAdvice("Prescott", 0, 0, buf, sizeof buf) == 0 && buf[0] == 0);
    ENSURE(alci_blasAdvice(NULL, 1, 1, buf, sizeof buf) == 0 && buf[0] == 0);
    // a short buffer is cut, NUL-terminated
    char small[8];
    ENSURE(alci_blasAdvice("Prescott", 1, 1, small, sizeof small) == 1 && strlen(small) == 7);
    return ALC_TEST_PASS;
}

// The BLAS this test process runs CHOLMOD on is found and named by its library's real path
ALC_TEST(direct_blasDescribed) {
    char buf[2048], advice[512];
    int kind = alcu_blasDescribe(buf, sizeof buf, advice, sizeof advice);
    if (!alcr_direct_available()) {
        ENSURE(kind == -1 && strstr(buf, "no CHOLMOD") && advice[0] == 0);
        return ALC_TEST_PASS;
    }
    ENSURE_MSG(kind == 0 || kind == 1, "%d", kind);
    ENSURE_MSG(kind == 1 ? !strncmp(buf, "OpenBLAS", 8)
                         : !strncmp(buf, "the reference BLAS (", 20) ||
                               !strncmp(buf, "not OpenBLAS (", 14),
               "%d %s", kind, buf);
    // CHOLMOD links a BLAS, so dgemm_ resolves to a file that exists
    const char* open = strrchr(buf, '(');
    ENSURE_MSG(open && open[1] == '/', "%s", buf);
    char path[2048];
    snprintf(path, sizeof path, "%s", open + 1);
    path[strcspn(path, ")")] = 0;
    ENSURE_MSG(access(path, R_OK) == 0, "%s", path);
    // advice for the reference BLAS only where it is the reference BLAS
    if (kind == 0) ENSURE((advice[0] != 0) == (strncmp(buf, "the reference", 13) == 0));
    // the same answer without the advice buffer
    char again[2048];
    ENSURE(alcu_blasDescribe(again, sizeof again, NULL, 0) == kind && !strcmp(again, buf));
    return ALC_TEST_PASS;
}

// `alcove run` names the BLAS of a scene that factorizes (-v), records it in run.json and
// warns where it is slower than the CPU allows; a PCG scene says nothing of it
ALC_TEST(direct_runNamesItsBlas) {
    if (skipWithoutCholmod()) return ALC_TEST_SKIP;
    const char* dir = alct_tmpDir("direct", "blas");
    char text[2048], direct[1024], pcg[1024];
    const char* path;
    snprintf(text, sizeof text, STONES_SCENE, "direct", 0);
    ENSURE((path = alct_writeFile(dir, "direct.yaml", text)) != NULL);
    snprintf(direct, sizeof direct, "%s", path);  // alct_writeFile's result is overwritten
    snprintf(text, sizeof text, STONES_SCENE, "pcg", 0);
    ENSURE((path = alct_writeFile(dir, "pcg.yaml", text)) != NULL);
    snprintf(pcg, sizeof pcg, "%s", path);
    char blas[2048], advice[512];
    alcu_blasDescribe(blas, sizeof blas, advice, sizeof advice);
    const char* build = getenv("ALC_BUILD");
    char cmd[4096];
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd,
                 "%s/alcove run '%s' --steps 1 --out '%s/out%d' -v > '%s/log%d.txt' 2>&1",
                 build ? build : "build", k ? pcg : direct, dir, k, dir, k);
        ENSURE_MSG(system(cmd) == 0, "see %s/log%d.txt", dir, k);
    }
    // the direct scene: the BLAS line, the advice as a warning where there is advice
    snprintf(cmd, sizeof cmd,
             "grep -q '^alcove: BLAS: ' '%s/log0.txt' && grep -q '\"blas\": \"' '%s/out0/run.json'",
             dir, dir);
    ENSURE_MSG(system(cmd) == 0, "see %s/log0.txt and out0/run.json", dir);
    snprintf(cmd, sizeof cmd,
             "grep -q '^alcove: warning: .*BLAS\\|^alcove: warning: OpenBLAS' '%s/log0.txt'", dir);
    ENSURE_MSG((system(cmd) == 0) == (advice[0] != 0), "advice '%s', see %s/log0.txt", advice,
               dir);
    // the PCG scene: neither
    snprintf(cmd, sizeof cmd,
             "grep -q 'BLAS' '%s/log1.txt' || grep -q '\"blas\"' '%s/out1/run.json'", dir, dir);
    ENSURE_MSG(system(cmd) != 0, "see %s/log1.txt", dir);
    return ALC_TEST_PASS;
}
