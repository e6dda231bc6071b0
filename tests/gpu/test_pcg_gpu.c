// cuda/pcg.cu against alcr_pcg_solve (host/ref/pcg_ref.c), both preconditioned by the
// reference's block-Jacobi inverses: on the scenes' Hessians after two reference steps (rhs -g)
// and on random SPD matrices, at tol 1e-4 and 1e-8: the same convergence flag, iteration
// counts within 1 (the dot products are summed in another order), solutions within
// max(1e-8, tol) relative (the reference is rerun for exactly the device's iteration count when
// the counts differ, so both compare the same iterate) and true residuals within 1.5 tol; the
// iteration cap (converged 0), b = 0, an indefinite matrix (p.Ap <= 0), and run-to-run bitwise
// reproducibility, and the one-block path bitwise equal to the grid path.
#include "../../cuda/pcg.h"
#include "../test_macros.h"
#include "bsr_fixture.h"
#include "gpu_fixture.h"
#include "ref/pcg_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Solutions agree to max(SOLUTION_RTOL, tol) relative: over a few hundred iterations on the
/// stiffer scenes, CG amplifies the rounding of its dot products (summed in another order than
/// the reference's) to more than 1e-8 (rods_twist: 3e-6 at tol 1e-4 even with exactly the same
/// matrix), but not beyond what the tolerance already leaves open.
#define SOLUTION_RTOL 1e-8
/// A converged device solution's true residual ||b - A x|| is within this factor of tol ||b||
/// (CG's recursive residual drifts from the true one by rounding).
#define RESIDUAL_SLACK 1.5

/// A device copy of a reference matrix with the solver's vectors and scratch.
typedef struct Dev_ {
    alcgStream s;
    alcgBsr A;
    double *d_Minv, *d_b, *d_x;
    void* d_temp;
    size_t tempBytes;
    double *Minv, *x, *work;  // [host]
} Dev;

static int devMake(Dev* D, const alcrBsr* H) {
    memset(D, 0, sizeof *D);
    size_t N = 3 * (size_t)H->n;
    ENSURE_OK(alcg_stream_make(&D->s));
    ENSURE(alct_bsrUpload(H, &D->A, &D->s));
    D->Minv = (double*)malloc(sizeof(double) * (3 * N + 1));
    D->x = (double*)malloc(sizeof(double) * (N + 1));
    D->work = (double*)malloc(sizeof(double) * (4 * N + 1));
    ENSURE(D->Minv && D->x && D->work);
    alcr_bsr_blockJacobi(H, D->Minv);
    ENSURE_OK(alcg_malloc(&D->s, (void**)&D->d_Minv, sizeof(double) * 3 * N));
    ENSURE_OK(alcg_malloc(&D->s, (void**)&D->d_b, sizeof(double) * N));
    ENSURE_OK(alcg_malloc(&D->s, (void**)&D->d_x, sizeof(double) * N));
    ENSURE_OK(alcg_upload(&D->s, D->d_Minv, D->Minv, sizeof(double) * 3 * N));
    ENSURE_OK(
        alcg_pcg_solve(&D->A, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, &D->tempBytes, &D->s));
    ENSURE_OK(alcg_malloc(&D->s, &D->d_temp, D->tempBytes));
    return ALC_TEST_PASS;
}

static void devFree(Dev* D) {
    alcg_bsr_free(&D->A);
    alcg_free(D->d_Minv);
    alcg_free(D->d_b);
    alcg_free(D->d_x);
    alcg_free(D->d_temp);
    alcg_stream_free(&D->s);
    free(D->Minv);
    free(D->x);
    free(D->work);
}

/// ||a - b|| / ||b|| (0 for two zero vectors).
static double relDiff(const double* a, const double* b, int n) {
    double d = 0, m = 0;
    for (int i = 0; i < n; i++) {
        d += (a[i] - b[i]) * (a[i] - b[i]);
        m += b[i] * b[i];
    }
    return m > 0 ? sqrt(d / m) : sqrt(d);
}

/// Both solvers on H x = b; *iters receives the device's count.
static int compareSolve(Dev* D, const alcrBsr* H, const double* b, double tol, int maxIter,
                        const char* label, int* iters, double* worst) {
    int N = 3 * H->n, itR = 0, itD = -1, convD = -1;
    double* xd = (double*)malloc(sizeof(double) * ((size_t)N + 1));
    ENSURE(xd);
    ENSURE_OK(alcg_upload(&D->s, D->d_b, b, sizeof(double) * (size_t)N));
    int convR = alcr_pcg_solve(H, D->Minv, b, D->x, tol, maxIter, D->work, &itR);
    ENSURE_MSG(alcg_pcg_solve(&D->A, D->d_Minv, D->d_b, D->d_x, tol, maxIter, &itD, &convD,
                              D->d_temp, &D->tempBytes, &D->s) == ALC_OK,
               "%s: %s", label, D->s.err);
    ENSURE_OK(alcg_download(&D->s, xd, D->d_x, sizeof(double) * (size_t)N));
    ENSURE_MSG(convD == convR && abs(itD - itR) <= 1,
               "%s tol %g: device %d iterations (converged %d), host %d (converged %d)", label, tol,
               itD, convD, itR, convR);
    // the same iterate on the host when the counts differ by one
    if (itD != itR) alcr_pcg_solve(H, D->Minv, b, D->x, tol, itD, D->work, &itR);
    double e = relDiff(xd, D->x, N), etol = fmax(SOLUTION_RTOL, tol) * alct_tolScale();
    ENSURE_MSG(e <= etol, "%s tol %g: solution off by %.3g relative (%d iterations, host %d)",
               label, tol, e, itD, itR);
    *worst = fmax(*worst, e);
    // the true residual of a converged device solution
    if (convD) {
        double* q = (double*)malloc(sizeof(double) * ((size_t)N + 1));
        ENSURE(q);
        alcr_bsr_spmv(H, xd, q);
        double rr = 0, bb = 0;
        for (int i = 0; i < N; i++) {
            rr += (b[i] - q[i]) * (b[i] - q[i]);
            bb += b[i] * b[i];
        }
        ENSURE_MSG(sqrt(rr) <= RESIDUAL_SLACK * tol * sqrt(bb) * alct_tolScale(),
                   "%s tol %g: true residual %.3g of ||b||", label, tol, sqrt(rr / bb));
        free(q);
    }
    // run to run, and the one-block path against the grid path: bit for bit
    int oneBlock = H->n <= ALCG_PCG_ONE_BLOCK_ROWS;
    for (int pass = 0; pass < 2; pass++) {
        int rows = pass == 0 ? ALCG_PCG_ONE_BLOCK_ROWS : oneBlock ? 0 : ALCG_PCG_ONE_BLOCK_MAX_ROWS;
        if (pass == 1 && H->n > ALCG_PCG_ONE_BLOCK_MAX_ROWS) break;
        int it2 = -1, conv2 = -1;
        double* xd2 = (double*)malloc(sizeof(double) * ((size_t)N + 1));
        ENSURE(xd2);
        ENSURE_OK(alcg_pcg_solveWith(&D->A, D->d_Minv, D->d_b, D->d_x, tol, maxIter, rows, NULL,
                                     &it2, &conv2, D->d_temp, &D->tempBytes, &D->s));
        ENSURE_OK(alcg_download(&D->s, xd2, D->d_x, sizeof(double) * (size_t)N));
        ENSURE_MSG(it2 == itD && conv2 == convD && memcmp(xd, xd2, sizeof(double) * (size_t)N) == 0,
                   "%s: %s", label,
                   pass == 0 ? "two solves differ" : "the one-block and the grid path differ");
        free(xd2);
    }
    *iters = itD;
    free(xd);
    return ALC_TEST_PASS;
}

/// tol 1e-4 and 1e-8 on one matrix.
static int matrixCases(const alcrBsr* H, const double* b, const char* label) {
    Dev D;

    int it4 = 0, it8 = 0;
    double e4 = 0, e8 = 0;
    int r = devMake(&D, H);
    if (r == ALC_TEST_PASS) r = compareSolve(&D, H, b, 1e-4, 20000, label, &it4, &e4);
    if (r == ALC_TEST_PASS) r = compareSolve(&D, H, b, 1e-8, 20000, label, &it8, &e8);
    if (r == ALC_TEST_PASS) {
        alct_note("%-18s %6d rows: tol 1e-4 %4d iterations, x within %.1e; tol 1e-8 %4d, %.1e",
                  label, H->n, it4, e4, it8, e8);
    }
    devFree(&D);
    return r;
}

/// The scenes PCG runs on in the emulation (each iteration is five launches): small to large,
/// with and without contact.
static const char* const kScenes[] = {"bar_drop.yaml", "box_stack.yaml", "rods_twist.yaml",
                                      "balls_press.yaml", NULL};

ALC_TEST(pcg_scenes) {
    for (int i = 0; kScenes[i]; i++) {
        const alcrBsr* H = NULL;
        const double* rhs = NULL;
        ENSURE_MSG(alct_bsrScene(kScenes[i], &H, &rhs), "%s", kScenes[i]);
        int r = matrixCases(H, rhs, kScenes[i]);
        if (r != ALC_TEST_PASS) return r;
    }
    return ALC_TEST_PASS;
}

ALC_TEST(pcg_random) {
    static const int sizes[] = {1, 5, 600, 1300, 3000};
    for (int k = 0; k < 5; k++) {
        alcrBsr H;
        char label[32];
        snprintf(label, sizeof label, "random n %d", sizes[k]);
        ENSURE(alct_bsrRandom(&H, sizes[k], 10, 31 + (unsigned)k, 1));
        unsigned long long seed = 5 + (unsigned)k;
        double* b = (double*)malloc(sizeof(double) * 3 * (size_t)sizes[k]);
        ENSURE(b);
        for (int i = 0; i < 3 * sizes[k]; i++) b[i] = alct_rnd(&seed);
        int r = matrixCases(&H, b, label);
        free(b);
        alcr_bsr_free(&H);
        if (r != ALC_TEST_PASS) return r;
    }
    return ALC_TEST_PASS;
}

/// The iteration cap, no iteration, b = 0, an indefinite matrix and the empty system on the
/// path `rows` selects (alcg_pcg_solveWith).
static int edgeCases(int rows) {
    alcrBsr H;
    Dev D;
    int n = 200, N = 3 * n, it = -1, conv = -1, itR = 0;
    ENSURE(alct_bsrRandom(&H, n, 10, 77, 1));
    ENSURE(devMake(&D, &H) == ALC_TEST_PASS);
    double* b = (double*)malloc(sizeof(double) * (size_t)N);
    double* xd = (double*)malloc(sizeof(double) * (size_t)N);
    ENSURE(b && xd);
    unsigned long long seed = 3;
    for (int i = 0; i < N; i++) b[i] = alct_rnd(&seed);
    ENSURE_OK(alcg_upload(&D.s, D.d_b, b, sizeof(double) * (size_t)N));
    // the cap: 3 iterations (not a multiple of the check interval), not converged
    for (int cap = 0; cap <= 11; cap += 11) {
        int m = cap ? cap : 3;
        int convR = alcr_pcg_solve(&H, D.Minv, b, D.x, 1e-12, m, D.work, &itR);
        ENSURE_OK(alcg_pcg_solveWith(&D.A, D.d_Minv, D.d_b, D.d_x, 1e-12, m, rows, NULL, &it, &conv,
                                     D.d_temp, &D.tempBytes, &D.s));
        ENSURE_MSG(conv == 0 && convR == 0 && it == m && itR == m, "rows %d, cap %d: %d iterations",
                   rows, m, it);
        ENSURE_OK(alcg_download(&D.s, xd, D.d_x, sizeof(double) * (size_t)N));
        ENSURE(relDiff(xd, D.x, N) <= 1e-12 * alct_tolScale());
    }
    // no iteration allowed
    ENSURE_OK(alcg_pcg_solveWith(&D.A, D.d_Minv, D.d_b, D.d_x, 1e-8, 0, rows, NULL, &it, &conv,
                                 D.d_temp, &D.tempBytes, &D.s));
    ENSURE(it == 0 && conv == 0);
    // b = 0: x = 0 at once, converged
    memset(b, 0, sizeof(double) * (size_t)N);
    ENSURE_OK(alcg_upload(&D.s, D.d_b, b, sizeof(double) * (size_t)N));
    ENSURE_OK(alcg_pcg_solveWith(&D.A, D.d_Minv, D.d_b, D.d_x, 1e-8, 100, rows, NULL, &it, &conv,
                                 D.d_temp, &D.tempBytes, &D.s));
    ENSURE_OK(alcg_download(&D.s, xd, D.d_x, sizeof(double) * (size_t)N));
    ENSURE(it == 0 && conv == 1);
    for (int i = 0; i < N; i++) ENSURE(xd[i] == 0);
    devFree(&D);
    // indefinite: -A stops at the first direction (p.Ap < 0) as the reference does
    for (long long k = 0; k < 9LL * H.nnzb; k++) H.val[k] = -H.val[k];
    ENSURE(devMake(&D, &H) == ALC_TEST_PASS);
    for (int i = 0; i < N; i++) b[i] = alct_rnd(&seed);
    ENSURE_OK(alcg_upload(&D.s, D.d_b, b, sizeof(double) * (size_t)N));
    int convR = alcr_pcg_solve(&H, D.Minv, b, D.x, 1e-8, 100, D.work, &itR);
    ENSURE_OK(alcg_pcg_solveWith(&D.A, D.d_Minv, D.d_b, D.d_x, 1e-8, 100, rows, NULL, &it, &conv,
                                 D.d_temp, &D.tempBytes, &D.s));
    ENSURE_MSG(conv == convR && it == itR, "rows %d, indefinite: %d iterations (%d), host %d (%d)",
               rows, it, conv, itR, convR);
    // the empty system
    alcrBsr E;
    Dev D0;
    ENSURE(alct_bsrRandom(&E, 0, 10, 1, 1));
    ENSURE(devMake(&D0, &E) == ALC_TEST_PASS);
    ENSURE_OK(alcg_pcg_solveWith(&D0.A, D0.d_Minv, D0.d_b, D0.d_x, 1e-8, 100, rows, NULL, &it,
                                 &conv, D0.d_temp, &D0.tempBytes, &D0.s));
    ENSURE(it == 0 && conv == 1);
    devFree(&D0);
    alcr_bsr_free(&E);
    devFree(&D);
    alcr_bsr_free(&H);
    free(b);
    free(xd);
    return ALC_TEST_PASS;
}

/// Rows with only a diagonal block (a kinematic vertex's row, its other blocks zeros): the
/// product skips them under the d_diagOnly mask and the solve gives the same bits as without
/// it, on both paths, with every fifth row (and every third of a larger matrix) so marked.
ALC_TEST(pcg_diagOnly) {
    static const int sizes[] = {300, 1500};
    for (int k = 0; k < 2; k++) {
        int n = sizes[k], N = 3 * n, every = k ? 3 : 5;
        alcrBsr H;
        Dev D;
        ENSURE(alct_bsrRandom(&H, n, 10, 91 + (unsigned)k, 1));
        unsigned char* kin = (unsigned char*)calloc((size_t)n, 1);
        double* b = (double*)malloc(sizeof(double) * (size_t)N);
        double* x0 = (double*)malloc(sizeof(double) * (size_t)N);
        double* x1 = (double*)malloc(sizeof(double) * (size_t)N);
        ENSURE(kin && b && x0 && x1);
        for (int i = 0; i < n; i += every) kin[i] = 1;
        int zeroed = 0;
        for (int i = 0; i < n; i++) {
            for (int q = H.rowptr[i]; q < H.rowptr[i + 1]; q++) {
                if (H.col[q] != i && (kin[i] || kin[H.col[q]])) {
                    memset(H.val + 9 * (size_t)q, 0, sizeof(double) * 9);
                    zeroed++;
                }
            }
        }
        ENSURE(zeroed > 0);
        ENSURE(devMake(&D, &H) == ALC_TEST_PASS);
        unsigned char* d_kin = NULL;
        ENSURE_OK(alcg_malloc(&D.s, (void**)&d_kin, (size_t)n));
        ENSURE_OK(alcg_upload(&D.s, d_kin, kin, (size_t)n));
        unsigned long long seed = 17;
        for (int i = 0; i < N; i++) b[i] = alct_rnd(&seed);
        ENSURE_OK(alcg_upload(&D.s, D.d_b, b, sizeof(double) * (size_t)N));
        for (int path = 0; path < 2; path++) {
            int rows = path ? ALCG_PCG_ONE_BLOCK_MAX_ROWS : 0, it0 = -1, it1 = -2, c0 = -1, c1 = -2;
            ENSURE_OK(alcg_pcg_solveWith(&D.A, D.d_Minv, D.d_b, D.d_x, 1e-10, 1000, rows, NULL,
                                         &it0, &c0, D.d_temp, &D.tempBytes, &D.s));
            ENSURE_OK(alcg_download(&D.s, x0, D.d_x, sizeof(double) * (size_t)N));
            ENSURE_OK(alcg_pcg_solveWith(&D.A, D.d_Minv, D.d_b, D.d_x, 1e-10, 1000, rows, d_kin,
                                         &it1, &c1, D.d_temp, &D.tempBytes, &D.s));
            ENSURE_OK(alcg_download(&D.s, x1, D.d_x, sizeof(double) * (size_t)N));
            ENSURE_MSG(c0 == 1 && it0 == it1 && c0 == c1 &&
                           memcmp(x0, x1, sizeof(double) * (size_t)N) == 0,
                       "n %d, %s path: %d iterations without the mask, %d with it, or x differs", n,
                       path ? "one-block" : "grid", it0, it1);
        }
        alct_note(
            "%d rows, every %d-th diagonal-only (%d zero blocks): the same bits with the "
            "mask on both paths",
            n, every, zeroed);
        alcg_free(d_kin);
        devFree(&D);
        alcr_bsr_free(&H);
        free(kin);
        free(b);
        free(x0);
        free(x1);
    }
    return ALC_TEST_PASS;
}

ALC_TEST(pcg_edges) {
    // the grid path, then the one-block path
    int r = edgeCases(0);
    if (r == ALC_TEST_PASS) r = edgeCases(ALCG_PCG_ONE_BLOCK_MAX_ROWS);
    return r;
}
