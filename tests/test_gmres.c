// Right-preconditioned restarted GMRES(m) (host/ref/gmres_ref.c), the Krylov solver of Ding and
// Schroeder's merit-function Newton method (../shared/research/seeds-001-002.md §1.6, §3.1 item
// 5). On random dense non-symmetric systems: the solution against Gaussian elimination with and
// without a Jacobi preconditioner, in one cycle and with restarts; on a hard system capped at
// D&S's 20 iterations: a true residual that never grows with the iteration count and stays
// below ||b||, so that dz (H dz = -g, b = -g) is a descent direction, g^T H dz < 0; and the edge
// cases (b = 0, identity, breakdown, a singular operator, bad arguments, NaN).
#include "ref/gmres_ref.h"
#include "test_macros.h"
#include "test_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 200

/// A dense row-major matrix (n x n) as the operator, its inverse diagonal as the
/// preconditioner, and call counters.
typedef struct Dense_ {
    int n;
    const double* A;
    double dinv[MAXN];
    int nA, nM;
    int poison;  // 1: the operator writes a NaN
} Dense;

static void denseApply(void* ctx, const double* in, double* out) {
    Dense* D = (Dense*)ctx;
    D->nA++;
    for (int i = 0; i < D->n; i++) {
        double t = 0;
        for (int j = 0; j < D->n; j++) t += D->A[(size_t)i * D->n + j] * in[j];
        out[i] = t;
    }
    if (D->poison) out[0] = NAN;
}

static void jacobiApply(void* ctx, const double* in, double* out) {
    Dense* D = (Dense*)ctx;
    D->nM++;
    for (int i = 0; i < D->n; i++) out[i] = D->dinv[i] * in[i];
}

static void denseInit(Dense* D, int n, const double* A) {
    memset(D, 0, sizeof *D);
    D->n = n;
    D->A = A;
    for (int i = 0; i < n; i++) D->dinv[i] = 1.0 / A[(size_t)i * n + i];
}

/// x = A^-1 b by Gaussian elimination with partial pivoting (A copied); 0 if singular.
static int gaussSolve(int n, const double* A, const double* b, double* x) {
    double* M = (double*)malloc(sizeof(double) * (size_t)n * (size_t)(n + 1));
    if (!M) return 0;
    int c = n + 1;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) M[i * c + j] = A[i * n + j];
        M[i * c + n] = b[i];
    }
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++) {
            if (fabs(M[i * c + k]) > fabs(M[p * c + k])) p = i;
        }
        if (M[p * c + k] == 0) {
            free(M);
            return 0;
        }
        if (p != k) {
            for (int j = 0; j < c; j++) {
                double t = M[k * c + j];
                M[k * c + j] = M[p * c + j];
                M[p * c + j] = t;
            }
        }
        for (int i = k + 1; i < n; i++) {
            double f = M[i * c + k] / M[k * c + k];
            for (int j = k; j < c; j++) M[i * c + j] -= f * M[k * c + j];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double t = M[i * c + n];
        for (int j = i + 1; j < n; j++) t -= M[i * c + j] * x[j];
        x[i] = t / M[i * c + i];
    }
    free(M);
    return 1;
}

static double dot(int n, const double* a, const double* b) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

static double nrm(int n, const double* a) {
    return sqrt(dot(n, a, a));
}

/// ||b - A x|| computed here, independently of the solver.
static double trueResidual(int n, const double* A, const double* b, const double* x) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double t = b[i];
        for (int j = 0; j < n; j++) t -= A[i * n + j] * x[j];
        s += t * t;
    }
    return sqrt(s);
}

/// ||x - y|| / ||y||.
static double relErr(int n, const double* x, const double* y) {
    double s = 0;
    for (int i = 0; i < n; i++) s += (x[i] - y[i]) * (x[i] - y[i]);
    return sqrt(s) / nrm(n, y);
}

/// Diagonally dominant non-symmetric A: random off-diagonal entries plus a random skew part,
/// a dominant diagonal, and every row scaled by a factor in [1, 30] (which Jacobi undoes).
static void makeDominant(int n, double* A) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) A[i * n + j] = i == j ? 0 : rngRange(-1, 1);
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            double k = rngRange(-2, 2);  // skew part K - K^T
            A[i * n + j] += k;
            A[j * n + i] -= k;
        }
    }
    for (int i = 0; i < n; i++) {
        double off = 0;
        for (int j = 0; j < n; j++) off += fabs(A[i * n + j]);
        double sgn = rngUniform() < 0.5 ? -1 : 1;
        A[i * n + i] = sgn * (1.2 * off + rngRange(0.5, 2));
        double scale = rngRange(1, 30);
        for (int j = 0; j < n; j++) A[i * n + j] *= scale;
    }
}

ALC_TEST(gmres_dense) {
    rngSeed(0x6D7E5A11ull);
    static double A[MAXN * MAXN];
    double b[MAXN], x[MAXN], xd[MAXN];
    const int sizes[] = {5, 9, 17, 33, 60};
    int itersPlain = 0, itersJacobi = 0;
    double worst = 0;
    for (int t = 0; t < 20; t++) {
        int n = sizes[t % 5];
        makeDominant(n, A);
        for (int i = 0; i < n; i++) b[i] = rngRange(-1, 1);
        ENSURE(gaussSolve(n, A, b, xd));
        Dense D;
        denseInit(&D, n, A);
        for (int pre = 0; pre < 2; pre++) {
            alcrGmresOp M = pre ? jacobiApply : NULL;
            // m = n: one cycle, no restart
            alcrGmres G;
            ENSURE_OK(alcr_gmres_make(&G, n, n));
            ENSURE(G.bytes >= sizeof(double) * (size_t)(n + 1) * (size_t)n);
            alcrGmresOut o;
            D.nA = D.nM = 0;
            ENSURE_OK(alcr_gmres_solve(&G, denseApply, M, &D, b, x, 1e-13, 1000, &o));
            ENSURE_MSG(o.converged, "n %d pre %d r %g r0 %g iters %d", n, pre, o.r, o.r0, o.iters);
            ENSURE(o.restarts == 0);
            ENSURE(o.iters >= 1 && o.iters <= n);
            // with Jacobi the large systems stop on the residual estimate well before n
            if (pre && n >= 33) ENSURE_MSG(o.iters <= 20, "n %d iters %d", n, o.iters);
            ENSURE(D.nA == o.iters + o.restarts + 1);  // one A per step and per cycle's end
            ENSURE(D.nM == (pre ? o.iters + o.restarts + 1 : 0));
            ENSURE_NEAR(o.r0, nrm(n, b), 1e-14 * nrm(n, b));
            double rt = trueResidual(n, A, b, x);
            ENSURE_NEAR(o.r, rt, 1e-12 * o.r0);
            ENSURE(o.r <= 1e-13 * o.r0);
            double e = relErr(n, x, xd);
            if (e > worst) worst = e;
            ENSURE_MSG(e <= 1e-10, "n %d pre %d relative error %g", n, pre, e);
            alcr_gmres_free(&G);

            // m = 5: restarts
            ENSURE_OK(alcr_gmres_make(&G, n, 5));
            D.nA = 0;
            ENSURE_OK(alcr_gmres_solve(&G, denseApply, M, &D, b, x, 1e-13, 20000, &o));
            ENSURE_MSG(o.converged, "m 5 n %d pre %d r %g r0 %g it %d rs %d", n, pre, o.r, o.r0,
                       o.iters, o.restarts);
            if (n > 5) ENSURE(o.restarts > 0);
            ENSURE(o.iters <= 5 * (o.restarts + 1));
            ENSURE(D.nA == o.iters + o.restarts + 1);
            ENSURE_NEAR(o.r, trueResidual(n, A, b, x), 1e-12 * o.r0);
            e = relErr(n, x, xd);
            if (e > worst) worst = e;
            ENSURE_MSG(e <= 1e-10, "m 5 n %d pre %d relative error %g", n, pre, e);
            if (pre) {
                itersJacobi += o.iters;
            } else {
                itersPlain += o.iters;
            }
            alcr_gmres_free(&G);
        }
    }
    // the rows' scales are what Jacobi removes: it must pay off with restarts (it does ~50x)
    ENSURE_MSG(4 * itersJacobi < itersPlain, "Jacobi %d plain %d", itersJacobi, itersPlain);
    alct_note("worst relative error %.3g; GMRES(5) iterations: %d plain, %d Jacobi", worst,
              itersPlain, itersJacobi);
    return ALC_TEST_PASS;
}

ALC_TEST(gmres_residualMonotone) {
    rngSeed(0x44533E1Full);
    // a hard system: random non-normal, indefinite (eigenvalues spread around 0), with a
    // strongly varying diagonal; GMRES(20) capped at 20 iterations cannot solve it
    const int n = 150;
    static double A[MAXN * MAXN];
    double b[MAXN], x[MAXN], Ax[MAXN];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) A[i * n + j] = rngRange(-1, 1) / sqrt((double)n);
        A[i * n + i] += rngRange(-0.3, 0.6) * (1 + 9 * rngUniform());
        b[i] = rngRange(-1, 1);  // b = -g
    }
    Dense D;
    denseInit(&D, n, A);
    alcrGmres G;
    ENSURE_OK(alcr_gmres_make(&G, n, 20));
    double bn = nrm(n, b);
    for (int pre = 0; pre < 2; pre++) {
        alcrGmresOp M = pre ? jacobiApply : NULL;
        // D&S's cap: 20 iterations, one cycle
        alcrGmresOut o;
        ENSURE_OK(alcr_gmres_solve(&G, denseApply, M, &D, b, x, 1e-10, 20, &o));
        ENSURE_MSG(!o.converged, "pre %d: the system is meant to be hard (r/r0 %g)", pre,
                   o.r / o.r0);
        ENSURE(o.iters == 20 && o.restarts == 0);
        double rt = trueResidual(n, A, b, x);
        ENSURE_NEAR(o.r, rt, 1e-12 * bn);
        ENSURE(rt < bn);
        // descent: g^T H dz = -b . (A x) < 0, and at least ||b|| (||b|| - ||r||)
        for (int i = 0; i < n; i++) Ax[i] = dot(n, A + (size_t)i * n, x);
        double bAx = dot(n, b, Ax);
        ENSURE_MSG(bAx > 0, "pre %d: b.Ax = %g", pre, bAx);
        ENSURE(bAx >= bn * (bn - rt) - 1e-12 * bn * bn);
        alct_note("pre %d: ||r||/||b|| after 20 iterations %.4f, b.Ax/||b||^2 %.4f", pre, rt / bn,
                  bAx / (bn * bn));

        // the true residual never grows with the iteration budget (within a cycle: nested
        // spaces; across restarts: each cycle starts from the last x) and stays <= ||b||
        double prev = bn;
        for (int k = 0; k <= 70; k++) {
            ENSURE_OK(alcr_gmres_solve(&G, denseApply, M, &D, b, x, 0, k, &o));
            ENSURE(o.iters <= k);
            double r = trueResidual(n, A, b, x);
            ENSURE_NEAR(o.r, r, 1e-12 * bn);
            ENSURE_MSG(r <= prev * (1 + 1e-12), "pre %d k %d: r %.17g > previous %.17g", pre, k, r,
                       prev);
            ENSURE(r <= bn);
            for (int i = 0; i < n; i++) Ax[i] = dot(n, A + (size_t)i * n, x);
            if (k > 0) ENSURE_MSG(dot(n, b, Ax) > 0, "pre %d k %d", pre, k);
            prev = r;
        }
        ENSURE(o.restarts == 3);  // 70 iterations of GMRES(20): four cycles
        ENSURE(prev < 0.9 * bn);
    }
    alcr_gmres_free(&G);
    return ALC_TEST_PASS;
}

ALC_TEST(gmres_edgeCases) {
    rngSeed(0xED6Eull);
    enum { N = 8 };
    double A[N * N], b[N], x[N];
    Dense D;
    alcrGmres G;
    alcrGmresOut o;
    ENSURE_OK(alcr_gmres_make(&G, N, 10));  // m > n is allowed

    // b = 0: x = 0 without touching A
    for (int i = 0; i < N * N; i++) A[i] = rngRange(-1, 1) + (i % (N + 1) == 0 ? 4 : 0);
    denseInit(&D, N, A);
    memset(b, 0, sizeof b);
    for (int i = 0; i < N; i++) x[i] = 7;
    ENSURE_OK(alcr_gmres_solve(&G, denseApply, jacobiApply, &D, b, x, 1e-12, 100, &o));
    ENSURE(o.converged && o.iters == 0 && o.r == 0 && o.r0 == 0 && D.nA == 0);
    for (int i = 0; i < N; i++) ENSURE(x[i] == 0);

    // maxIter = 0: x = 0, the residual is ||b||
    for (int i = 0; i < N; i++) b[i] = rngRange(-1, 1);
    ENSURE_OK(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1e-12, 0, &o));
    ENSURE(!o.converged && o.iters == 0 && o.r == o.r0 && D.nA == 0);
    for (int i = 0; i < N; i++) ENSURE(x[i] == 0);

    // rtol >= 1: x = 0 already meets it
    ENSURE_OK(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1.0, 10, &o));
    ENSURE(o.converged && o.iters == 0);

    // identity: one iteration, x = b
    memset(A, 0, sizeof A);
    for (int i = 0; i < N; i++) A[i * N + i] = 1;
    denseInit(&D, N, A);
    ENSURE_OK(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1e-14, 100, &o));
    ENSURE_MSG(o.converged && o.iters == 1 && o.restarts == 0, "iters %d", o.iters);
    for (int i = 0; i < N; i++) ENSURE_NEAR(x[i], b[i], 1e-15);

    // breakdown: block upper triangular A whose leading 3 x 3 block is invariant, and b in its
    // span: the Krylov space stops growing at dimension 3, with the exact solution in it
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) A[i * N + j] = (i >= 3 && j < 3) ? 0 : rngRange(-1, 1);
        A[i * N + i] += 3;
    }
    memset(b, 0, sizeof b);
    for (int i = 0; i < 3; i++) b[i] = rngRange(-1, 1);
    denseInit(&D, N, A);
    double xd[N];
    ENSURE(gaussSolve(N, A, b, xd));
    for (int pre = 0; pre < 2; pre++) {
        alcrGmresOp M = pre ? jacobiApply : NULL;  // D^-1 keeps the block structure
        ENSURE_OK(alcr_gmres_solve(&G, denseApply, M, &D, b, x, 1e-13, 100, &o));
        ENSURE_MSG(o.converged && o.iters == 3 && o.restarts == 0, "pre %d iters %d", pre, o.iters);
        ENSURE(relErr(N, x, xd) <= 1e-13);
        for (int i = 3; i < N; i++) ENSURE_SMALL(x[i], 1e-15);
        // rtol = 0 cannot be met in rounding: the solve goes on, stays finite and only improves
        ENSURE_OK(alcr_gmres_solve(&G, denseApply, M, &D, b, x, 0, 100, &o));
        for (int i = 0; i < N; i++) ENSURE(isfinite(x[i]));
        ENSURE(isfinite(o.r) && o.r <= 1e-13 * o.r0 && o.iters <= 100);
        ENSURE(relErr(N, x, xd) <= 1e-13);
    }
    // b an eigenvector (of an upper triangular A: e_1): one iteration
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) A[i * N + j] = j < i ? 0 : rngRange(-1, 1);
    }
    A[0] = -2.5;
    memset(b, 0, sizeof b);
    b[0] = 0.75;
    denseInit(&D, N, A);
    ENSURE_OK(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1e-14, 100, &o));
    ENSURE(o.converged && o.iters == 1);
    ENSURE_NEAR(x[0], -0.3, 1e-15);
    for (int i = 1; i < N; i++) ENSURE(x[i] == 0);

    // a singular operator (zero): no progress possible, x = 0, no NaN
    memset(A, 0, sizeof A);
    for (int i = 0; i < N; i++) b[i] = rngRange(-1, 1);
    D.n = N;
    D.A = A;
    D.nA = 0;
    ENSURE_OK(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1e-10, 100, &o));
    ENSURE(!o.converged && o.iters == 1 && o.r == o.r0);
    for (int i = 0; i < N; i++) ENSURE(x[i] == 0);

    // singular and inconsistent: A = P = diag(1, ..., 1, 0), b with a last entry: K_2 =
    // span(b, P b) is invariant and A K_2 = span(P b), so column 2 is dependent and dropped;
    // x = b is the least-squares solution (residual |b_N|), and the restart's residual b_N e_N
    // is in the null space: the solve stops there instead of iterating on rounding noise
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) A[i * N + j] = (i == j && i < N - 1) ? 1 : 0;
        b[i] = rngRange(-1, 1);
    }
    D.nA = 0;
    ENSURE_OK(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1e-10, 100, &o));
    ENSURE_MSG(!o.converged && o.iters == 3 && o.restarts == 1, "iters %d restarts %d", o.iters,
               o.restarts);
    ENSURE_NEAR(o.r, fabs(b[N - 1]), 1e-14);
    for (int i = 0; i < N; i++) ENSURE_NEAR(x[i], b[i], 1e-14);

    // stagnation: the cyclic shift A e_i = e_(i+1) with b = e_1 gives GMRES(m < N) no progress
    // (the classic example): the first cycle leaves x = 0 and the solve stops instead of
    // repeating it; full GMRES (m = N) solves it in N steps
    memset(A, 0, sizeof A);
    for (int i = 0; i < N; i++) A[((i + 1) % N) * N + i] = 1;
    memset(b, 0, sizeof b);
    b[0] = 2;
    alcrGmres G3;
    ENSURE_OK(alcr_gmres_make(&G3, N, 3));
    ENSURE_OK(alcr_gmres_solve(&G3, denseApply, NULL, &D, b, x, 1e-12, 100, &o));
    ENSURE_MSG(!o.converged && o.iters == 3 && o.restarts == 0 && o.r == 2, "iters %d r %g",
               o.iters, o.r);
    for (int i = 0; i < N; i++) ENSURE(x[i] == 0);
    alcr_gmres_free(&G3);
    ENSURE_OK(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1e-12, 100, &o));
    ENSURE(o.converged && o.iters == N && o.restarts == 0);
    for (int i = 0; i < N; i++) ENSURE_NEAR(x[i], i == N - 1 ? 2 : 0, 1e-14);

    // bad arguments
    alcrGmres Z;
    memset(&Z, 0, sizeof Z);
    ENSURE(alcr_gmres_make(NULL, 4, 4) == ALC_ERR_INVALID_ARG);
    ENSURE(alcr_gmres_make(&Z, 0, 4) == ALC_ERR_INVALID_ARG && Z.V == NULL);
    ENSURE(alcr_gmres_make(&Z, 4, 0) == ALC_ERR_INVALID_ARG && Z.V == NULL);
    ENSURE(alcr_gmres_make(&Z, -3, 4) == ALC_ERR_INVALID_ARG);
    ENSURE(alcr_gmres_solve(&Z, denseApply, NULL, &D, b, x, 1e-10, 10, &o) ==
           ALC_ERR_INVALID_ARG);  // not made
    ENSURE(alcr_gmres_solve(NULL, denseApply, NULL, &D, b, x, 1e-10, 10, &o) ==
           ALC_ERR_INVALID_ARG);
    ENSURE(alcr_gmres_solve(&G, NULL, NULL, &D, b, x, 1e-10, 10, &o) == ALC_ERR_INVALID_ARG);
    ENSURE(alcr_gmres_solve(&G, denseApply, NULL, &D, NULL, x, 1e-10, 10, &o) ==
           ALC_ERR_INVALID_ARG);
    ENSURE(alcr_gmres_solve(&G, denseApply, NULL, &D, b, NULL, 1e-10, 10, &o) ==
           ALC_ERR_INVALID_ARG);
    ENSURE(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, -1, 10, &o) == ALC_ERR_INVALID_ARG);
    ENSURE(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, NAN, 10, &o) == ALC_ERR_INVALID_ARG);
    ENSURE(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1e-10, -1, &o) == ALC_ERR_INVALID_ARG);
    alcr_gmres_free(&Z);  // zeroed: fine
    alcr_gmres_free(NULL);

    // non-finite b
    for (int i = 0; i < N * N; i++) A[i] = rngRange(-1, 1) + (i % (N + 1) == 0 ? 4 : 0);
    denseInit(&D, N, A);
    for (int i = 0; i < N; i++) b[i] = rngRange(-1, 1);
    b[5] = NAN;
    ENSURE(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1e-10, 10, &o) == ALC_ERR_NUMERIC);
    b[5] = INFINITY;
    ENSURE(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1e-10, 10, &o) == ALC_ERR_NUMERIC);
    ENSURE(D.nA == 0);
    // an operator that produces a NaN: ALC_ERR_NUMERIC, x stays finite (0)
    b[5] = 0.5;
    D.poison = 1;
    ENSURE(alcr_gmres_solve(&G, denseApply, NULL, &D, b, x, 1e-10, 10, &o) == ALC_ERR_NUMERIC);
    for (int i = 0; i < N; i++) ENSURE(x[i] == 0);
    ENSURE(isfinite(o.r) && !o.converged);
    D.poison = 0;
    // the statistics are optional
    ENSURE_OK(alcr_gmres_solve(&G, denseApply, jacobiApply, &D, b, x, 1e-12, 100, NULL));
    ENSURE(trueResidual(N, A, b, x) <= 1e-12 * nrm(N, b));

    alcr_gmres_free(&G);
    ENSURE(G.V == NULL && G.n == 0);
    alcr_gmres_free(&G);  // twice: fine
    return ALC_TEST_PASS;
}
