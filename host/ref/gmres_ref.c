// Right-preconditioned restarted GMRES(m) from x0 = 0 (ref/gmres_ref.h; Saad and Schultz 1986,
// Algorithm 4 with the incremental QR of their §3.2; Saad, "Iterative Methods for Sparse Linear
// Systems", 2nd ed., §9.3.2, Algorithm 9.5): Ding and Schroeder's Newton solver's Krylov method
// (../shared/research/seeds-001-002.md §1.6, §3.1 item 5).
//
// One cycle from the residual r (norm beta): v_0 = r / beta; for j = 0, 1, ...
//   z = M^-1 v_j, w = A z                           (one A, one M^-1)
//   h_ij = w . v_i, w -= h_ij v_i  for i <= j       (modified Gram-Schmidt)
//   h_{j+1,j} = ||w||, v_{j+1} = w / h_{j+1,j}
// then the column is rotated by the cycle's previous Givens rotations and a new one zeroes
// h_{j+1,j}; applied to s = beta e_1 it leaves |s_{j+1}| = min ||beta e_1 - H_j y||, the
// residual of the best x in the space, known without forming x. At the cycle's end the upper
// triangular R y = s is solved, x += M^-1 (V y), and the true residual b - A x (one more A) is
// formed: it decides convergence and starts the next cycle.
//
// Guards (none of which divides by zero):
//   - breakdown: h_{j+1,j} <= BREAKDOWN_REL ||A z|| (with ||A z|| = 0 included) means A M^-1
//     maps the space into itself up to rounding, so the cycle's least-squares solution is exact
//     there: the cycle ends (and v_{j+1}, which would be noise, is not formed);
//   - a column whose rotated diagonal and subdiagonal both (nearly) vanish, |R_jj| <=
//     DEPENDENT_REL max ||A M^-1 v|| (A M^-1 singular on the space), is dropped from the cycle,
//     which then ends;
//   - stagnation: a cycle whose true residual is not smaller than the one it started from is
//     undone (x restored from a copy) and the solve ends, so ||b - A x|| <= ||b|| holds for the
//     computed residual too, whatever the rounding;
//   - a NaN or Inf out of A or M^-1 ends the solve with ALC_ERR_NUMERIC and the last x whose
//     true residual was finite.
#include "ref/gmres_ref.h"

#include "ref/vec_ref.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// h_{j+1,j} relative to ||A M^-1 v_j|| below which the Krylov space counts as invariant
/// (modified Gram-Schmidt leaves about j eps ||w|| of an exactly dependent vector).
#define BREAKDOWN_REL 1e-12

/// |R_jj| (the part of A M^-1 v_j off the earlier columns) relative to the largest
/// ||A M^-1 v|| seen in the solve below which column j counts as dependent: kept, it would make
/// y_j rounding noise over a near-zero pivot (GMRES on a singular operator, or a restart whose
/// residual lies in its numerical null space).
#define DEPENDENT_REL 1e-12

alctStatus alcr_gmres_make(alcrGmres* G, int n, int m) {
    if (!G) return ALC_ERR_INVALID_ARG;
    memset(G, 0, sizeof *G);
    if (n <= 0 || m <= 0) return ALC_ERR_INVALID_ARG;
    size_t nn = (size_t)n, m1 = (size_t)m + 1;
    // (m + 1) n basis, (m + 1) m Hessenberg, 2 m rotations, m + 1 s, m y, 2 n scratch
    if (m1 > SIZE_MAX / nn / 2 || m1 > SIZE_MAX / m1 / 2) return ALC_ERR_NOMEM;
    size_t count = m1 * nn + m1 * (m1 - 1) + 2 * (m1 - 1) + m1 + (m1 - 1) + 2 * nn;
    if (count > SIZE_MAX / sizeof(double)) return ALC_ERR_NOMEM;
    double* p = (double*)calloc(count, sizeof(double));
    if (!p) return ALC_ERR_NOMEM;
    G->n = n;
    G->m = m;
    G->V = p;
    p += m1 * nn;
    G->Hh = p;
    p += m1 * (m1 - 1);
    G->cs = p;
    p += m1 - 1;
    G->sn = p;
    p += m1 - 1;
    G->s = p;
    p += m1;
    G->y = p;
    p += m1 - 1;
    G->w = p;
    p += nn;
    G->z = p;
    G->bytes = count * sizeof(double);
    return ALC_OK;
}

void alcr_gmres_free(alcrGmres* G) {
    if (!G) return;
    free(G->V);  // one block holds every array
    memset(G, 0, sizeof *G);
}

/// ||a||.
static double norm2(int n, const double* a) {
    return sqrt(alcr_vec_dot(n, a, a));
}

/// y = a / s, entry by entry (s > 0).
static void scaleInto(int n, const double* a, double s, double* y) {
    for (int i = 0; i < n; i++) y[i] = a[i] / s;
}

alctStatus alcr_gmres_solve(alcrGmres* G, alcrGmresOp A, alcrGmresOp Minv, void* ctx,
                            const double* b, double* x, double rtol, int maxIter,
                            alcrGmresOut* out) {
    if (out) memset(out, 0, sizeof *out);
    if (!G || !A || !b || !x || !G->V || G->n <= 0 || G->m <= 0) return ALC_ERR_INVALID_ARG;
    if (!(rtol >= 0) || maxIter < 0) return ALC_ERR_INVALID_ARG;
    const int n = G->n, m = G->m;
    const size_t nn = (size_t)n;
    for (int i = 0; i < n; i++) {
        if (!isfinite(b[i])) return ALC_ERR_NUMERIC;
    }
    memset(x, 0, sizeof(double) * nn);
    double bnorm = norm2(n, b);
    if (!isfinite(bnorm)) return ALC_ERR_NUMERIC;  // ||b||^2 overflowed
    const double tol = rtol * bnorm;
    double* V = G->V;
    double* w = G->w;
    double* z = G->z;
    double* s = G->s;
    double* y = G->y;
    double* cs = G->cs;
    double* sn = G->sn;
    alctStatus st = ALC_OK;
    double beta = bnorm;  // true residual of the current x (x = 0: r = b exactly)
    int total = 0, cycles = 0;
    double wmax = 0;  // the largest ||A M^-1 v|| over the solve's unit vectors v: ~||A M^-1||
    if (beta > tol && maxIter > 0) {
        scaleInto(n, b, beta, V);
        for (;;) {
            // ---- one cycle from v_0 = r / beta
            cycles++;
            memset(s, 0, sizeof(double) * ((size_t)m + 1));
            s[0] = beta;
            int k = 0;  // columns kept
            for (int j = 0; j < m && total < maxIter; j++) {
                double* vj = V + (size_t)j * nn;
                const double* in = vj;
                if (Minv) {
                    Minv(ctx, vj, z);
                    in = z;
                }
                A(ctx, in, w);
                total++;
                double w0 = norm2(n, w);
                if (!isfinite(w0)) {
                    st = ALC_ERR_NUMERIC;  // x is still the cycle's start
                    break;
                }
                if (w0 > wmax) wmax = w0;
                double* h = G->Hh + (size_t)j * ((size_t)m + 1);
                for (int i = 0; i <= j; i++) {
                    const double* vi = V + (size_t)i * nn;
                    h[i] = alcr_vec_dot(n, w, vi);
                    alcr_vec_axpby(n, -h[i], vi, 1.0, w);
                }
                double hn = norm2(n, w);
                h[j + 1] = hn;
                int breakdown = !(hn > BREAKDOWN_REL * w0);
                if (!breakdown) scaleInto(n, w, hn, V + (size_t)(j + 1) * nn);
                // the previous rotations, then the one that zeroes h_{j+1,j}
                for (int i = 0; i < j; i++) {
                    double t = cs[i] * h[i] + sn[i] * h[i + 1];
                    h[i + 1] = -sn[i] * h[i] + cs[i] * h[i + 1];
                    h[i] = t;
                }
                double d = hypot(h[j], h[j + 1]);
                // A M^-1 v_j in the span of the earlier columns (or numerically null): R would
                // be singular, so the column is dropped and the cycle ends
                if (!(d > DEPENDENT_REL * wmax)) break;
                cs[j] = h[j] / d;
                sn[j] = h[j + 1] / d;
                h[j] = d;
                h[j + 1] = 0;
                s[j + 1] = -sn[j] * s[j];
                s[j] = cs[j] * s[j];
                k = j + 1;
                if (breakdown || fabs(s[j + 1]) <= tol) break;
            }
            if (st != ALC_OK || k == 0) break;  // no usable column: x stays as it is
            // ---- R y = s (upper triangular, k x k), then x += M^-1 V y
            for (int i = k - 1; i >= 0; i--) {
                double t = s[i];
                for (int l = i + 1; l < k; l++) t -= G->Hh[(size_t)l * ((size_t)m + 1) + i] * y[l];
                double rii = G->Hh[(size_t)i * ((size_t)m + 1) + i];
                y[i] = rii != 0 ? t / rii : 0;
            }
            memset(w, 0, sizeof(double) * nn);
            for (int i = 0; i < k; i++) alcr_vec_axpby(n, y[i], V + (size_t)i * nn, 1.0, w);
            memcpy(V, x, sizeof(double) * nn);  // v_0 is free now: it keeps the cycle's start
            const double* dx = w;
            if (Minv) {
                Minv(ctx, w, z);
                dx = z;
            }
            alcr_vec_axpby(n, 1.0, dx, 1.0, x);
            // ---- the true residual b - A x
            A(ctx, x, w);
            alcr_vec_axpby(n, 1.0, b, -1.0, w);
            double rn = norm2(n, w);
            if (!isfinite(rn)) {
                memcpy(x, V, sizeof(double) * nn);
                st = ALC_ERR_NUMERIC;
                break;
            }
            if (!(rn < beta)) {
                memcpy(x, V, sizeof(double) * nn);  // stagnation: undo the cycle, stop
                break;
            }
            beta = rn;
            if (beta <= tol || total >= maxIter) break;
            scaleInto(n, w, beta, V);  // restart from the new residual
        }
    }
    if (out) {
        out->iters = total;
        out->restarts = cycles > 1 ? cycles - 1 : 0;
        out->r0 = bnorm;
        out->r = beta;
        out->converged = beta <= tol;
    }
    return st;
}
