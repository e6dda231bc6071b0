// Active-set preconditioned Conjugate Residual for the frictionless contact MLCP (ref/mlcp_cr.h;
// Verschoor and Jalba, Algorithm 1 lines 7-23 and Algorithm 2's normal rules). Vectors are
// y = [v (3 n); lambda (m)]; an inactive row's entries of B, d, C and the residual are zero and
// its multiplier stays 0.
#include "ref/mlcp_cr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// The solve's fixed data and scratch.
typedef struct Cr_ {
    const alcrBsr* A;
    const alcrCrRows* R;
    alcrCrPrecond precond;
    int n3, m, N;  // DOFs, rows, n3 + m
    int* active;
    double* adInv;  // 1 / A_jj (n3)
    double* sdInv;  // 1 / (sum_j L_kj^2 / A_jj) per row (m)
    double* tmp;    // n3 scratch of the Full preconditioner
} Cr;

alcrCrOptions alcr_cr_defaultOptions(void) {
    alcrCrOptions o;
    o.precond = ALCR_CR_FULL;
    o.eps1 = 1e-10;
    o.eps2 = 1e-10;
    o.maxIter = 10000;
    o.evalEvery = 0;
    return o;
}

/// Row k's coefficient at slot a, component c: w_ka n_k[c], or its entry of grad.
static inline double rowCoef(const alcrCrRows* R, int k, int a, int c) {
    return R->grad ? R->grad[12 * k + 3 * a + c] : R->w[4 * k + a] * R->nrm[3 * k + c];
}

/// J_k v.
static double rowDot(const alcrCrRows* R, int k, const double* v) {
    double s = 0;
    for (int a = 0; a < 4; a++) {
        int i = R->vert[4 * k + a];
        if (i < 0) continue;
        const double* vi = v + 3 * i;
        s +=
            rowCoef(R, k, a, 0) * vi[0] + rowCoef(R, k, a, 1) * vi[1] + rowCoef(R, k, a, 2) * vi[2];
    }
    return s;
}

/// out += s J_k^T.
static void rowAdd(const alcrCrRows* R, int k, double s, double* out) {
    for (int a = 0; a < 4; a++) {
        int i = R->vert[4 * k + a];
        if (i < 0) continue;
        for (int c = 0; c < 3; c++) out[3 * i + c] += s * rowCoef(R, k, a, c);
    }
}

static double dot(int n, const double* a, const double* b) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

/// out = B y.
static void applyB(const Cr* C, const double* y, double* out) {
    alcr_bsr_spmv(C->A, y, out);
    for (int k = 0; k < C->m; k++) {
        if (!C->active[k]) {
            out[C->n3 + k] = 0;
            continue;
        }
        rowAdd(C->R, k, -y[C->n3 + k], out);
        out[C->n3 + k] = -rowDot(C->R, k, y);
    }
}

/// out = C^-1 y: Diag, or Eq. 22 with A_d and S_d in the sign convention of B (its off-diagonal
/// blocks negated): [A^-1 - A^-1 L^T S^-1 L A^-1, -A^-1 L^T S^-1; -S^-1 L A^-1, -S^-1].
static void applyC(const Cr* C, const double* y, double* out) {
    for (int j = 0; j < C->n3; j++) out[j] = C->adInv[j] * y[j];
    if (C->precond == ALCR_CR_DIAG) {
        for (int k = 0; k < C->m; k++) {
            out[C->n3 + k] = C->active[k] ? C->sdInv[k] * y[C->n3 + k] : 0;
        }
        return;
    }
    // e_k = S_d^-1 (L a + s_k) with a = A_d^-1 u; out_v = a - A_d^-1 L^T e; out_lambda = -e
    double* corr = C->tmp;
    memset(corr, 0, sizeof(double) * (size_t)C->n3);
    for (int k = 0; k < C->m; k++) {
        if (!C->active[k]) {
            out[C->n3 + k] = 0;
            continue;
        }
        double e = C->sdInv[k] * (rowDot(C->R, k, out) + y[C->n3 + k]);
        out[C->n3 + k] = -e;
        rowAdd(C->R, k, e, corr);
    }
    for (int j = 0; j < C->n3; j++) out[j] -= C->adInv[j] * corr[j];
}

/// r = d - B y with d = [b; -c on the active rows].
static void residual(const Cr* C, const double* b, const double* y, double* r) {
    applyB(C, y, r);
    for (int j = 0; j < C->n3; j++) r[j] = b[j] - r[j];
    for (int k = 0; k < C->m; k++) {
        r[C->n3 + k] = C->active[k] ? -C->R->c[k] - r[C->n3 + k] : 0;
    }
}

/// Algorithm 2's normal rules at y: release an active row that attracts (lambda < 0) and is
/// not violated beyond eps2; activate an inactive row violated beyond eps2. Returns the changes.
static int evaluate(Cr* C, double* y, double eps2, alcrCrResult* res) {
    int changed = 0;
    for (int k = 0; k < C->m; k++) {
        double g = rowDot(C->R, k, y) - C->R->c[k];
        if (C->active[k] && y[C->n3 + k] < 0 && g >= -eps2) {
            C->active[k] = 0;
            y[C->n3 + k] = 0;
            res->releases++;
            changed++;
        } else if (!C->active[k] && g < -eps2) {
            C->active[k] = 1;
            y[C->n3 + k] = 0;
            res->activations++;
            changed++;
        }
    }
    return changed;
}

alctStatus alcr_cr_solve(const alcrBsr* A, const double* b, const alcrCrRows* rows,
                         const alcrCrOptions* opt, double* v, double* lambda, int* active, int warm,
                         alcrCrResult* out) {
    alcrCrOptions o = opt ? *opt : alcr_cr_defaultOptions();
    alcrCrResult res;
    memset(&res, 0, sizeof res);
    res.monotone = 1;
    if (!A || !b || !rows || !v || !lambda || !active ||
        (rows->m > 0 && (!rows->vert || !rows->c || (!rows->grad && (!rows->w || !rows->nrm)))) ||
        rows->m < 0) {
        return ALC_ERR_INVALID_ARG;
    }
    Cr C;
    memset(&C, 0, sizeof C);
    C.A = A;
    C.R = rows;
    C.precond = o.precond;
    C.n3 = 3 * A->n;
    C.m = rows->m;
    C.N = C.n3 + C.m;
    C.active = active;
    for (int k = 0; k < 4 * C.m; k++) {
        if (rows->vert[k] >= A->n) return ALC_ERR_INVALID_ARG;
    }
    // scratch: y, r, z = C^-1 r, w = B z, p, q = B p, C^-1 q; C's own scratch; A_d^-1, S_d^-1
    size_t N = (size_t)C.N + 1;
    double* work = (double*)malloc(sizeof(double) * (7 * N + 2 * ((size_t)C.n3 + 1) + (size_t)C.m));
    if (!work) return ALC_ERR_NOMEM;
    double *y = work, *r = y + N, *z = r + N, *w = z + N, *p = w + N, *q = p + N, *cq = q + N;
    C.tmp = cq + N;
    C.adInv = C.tmp + C.n3 + 1;
    C.sdInv = C.adInv + C.n3 + 1;
    alctStatus st = ALC_OK;
    for (int i = 0; i < A->n && st == ALC_OK; i++) {
        const double* dg = A->val + 9 * A->diag[i];
        for (int c = 0; c < 3; c++) {
            if (!(dg[4 * c] > 0)) st = ALC_ERR_INVALID_ARG;
            C.adInv[3 * i + c] = dg[4 * c] > 0 ? 1.0 / dg[4 * c] : 0;
        }
    }
    for (int k = 0; k < C.m && st == ALC_OK; k++) {
        double s = 0;
        for (int a = 0; a < 4; a++) {
            int i = rows->vert[4 * k + a];
            if (i < 0) continue;
            for (int c = 0; c < 3; c++) {
                double l = rowCoef(rows, k, a, c);
                s += l * l * C.adInv[3 * i + c];
            }
        }
        if (rows->z) s *= rows->z[k];
        C.sdInv[k] = s > 0 ? 1.0 / s : 0;
    }
    if (st != ALC_OK) {
        free(work);
        return st;
    }
    // the start
    if (!warm) {
        memset(v, 0, sizeof(double) * (size_t)C.n3);
        for (int k = 0; k < C.m; k++) {
            lambda[k] = 0;
            active[k] = 0;
        }
    }
    memcpy(y, v, sizeof(double) * (size_t)C.n3);
    for (int k = 0; k < C.m; k++) y[C.n3 + k] = active[k] ? lambda[k] : 0;
    evaluate(&C, y, o.eps2, &res);
    double zw = 0, prev = 0;
    int restart = 1, sinceRestart = 0;
    // passes bound the restarts too: state changes found at convergence restart without an
    // iteration, and a cycle of them must still end
    for (long pass = 0; res.iters < o.maxIter && pass < 4L * o.maxIter + 4; pass++) {
        if (restart) {
            // lines 18-21 (and 7): the recurrences from the true residual
            residual(&C, b, y, r);
            applyC(&C, r, z);
            applyB(&C, z, w);
            memcpy(p, z, sizeof(double) * (size_t)C.N);
            memcpy(q, w, sizeof(double) * (size_t)C.N);
            zw = dot(C.N, z, w);
            prev = dot(C.N, z, r);
            restart = 0;
            sinceRestart = 0;
        }
        // line 22: converged, or a least-squares point (||B C^-1 r|| below eps1). On an
        // indefinite B the recurrences can part from the true residual (z.Bz near 0: CR's
        // breakdown), so the test is taken again on the true residual before it is believed
        double rn = sqrt(dot(C.N, r, r)), ur = 0;
        for (int k = 0; k < C.m; k++) ur = fmax(ur, fabs(r[C.n3 + k]));
        res.rnorm = rn;
        if (pass == 0) res.rnorm0 = rn;
        int met = (rn < o.eps1 && ur < o.eps2) || sqrt(dot(C.N, w, w)) < o.eps1;
        if (met && sinceRestart > 0) {
            res.restarts++;
            restart = 1;
            continue;
        }
        if (met) {
            // line 23: a forced evaluation; the solve ends when it changes nothing
            if (evaluate(&C, y, o.eps2, &res) == 0) {
                res.converged = 1;
                break;
            }
            res.restarts++;
            restart = 1;
            continue;
        }
        // CR breaks down where z.Bz vanishes: right after an activation the residual lives on
        // the new row alone (r_v = 0), so z.Bz = 0, and its recurrences then part from the true
        // residual. There one step along the gradient of ||r||^2_(C^-1), p = B C^-1 r = w,
        // minimizing ||r||_(C^-1) (alpha = w.w / (Bw).C^-1(Bw), from z.Bw = w.w), then a restart
        double zn = sqrt(dot(C.N, z, z)), wn = sqrt(dot(C.N, w, w));
        if (fabs(zw) <= 1e-8 * zn * wn) {
            applyB(&C, w, q);
            applyC(&C, q, cq);
            double den = dot(C.N, q, cq);
            res.iters++;
            res.restarts++;
            restart = 1;
            if (!(den > 0)) continue;
            double alpha = wn * wn / den;
            for (int i = 0; i < C.N; i++) y[i] += alpha * w[i];
            continue;
        }
        // lines 9-11
        applyC(&C, q, cq);
        double den = dot(C.N, q, cq);
        if (den == 0) {  // breakdown: restart from the true residual
            res.restarts++;
            restart = 1;
            res.iters++;
            continue;
        }
        double alpha = zw / den;
        for (int i = 0; i < C.N; i++) {
            y[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
        res.iters++;
        sinceRestart++;
        // lines 12-13: the states, only after a step forward, at the evaluation interval
        int every = o.evalEvery > 0 ? o.evalEvery : 1;
        if (o.evalEvery <= 0 && rn > o.eps1) {
            int k = (int)(log2(rn / o.eps1) / 3);
            every = k > 1 ? k : 1;
        }
        if (alpha > 0 && res.iters % every == 0 && evaluate(&C, y, o.eps2, &res) > 0) {
            res.restarts++;
            restart = 1;
            continue;
        }
        // lines 14-17
        applyC(&C, r, z);
        applyB(&C, z, w);
        double zwNew = dot(C.N, z, w), beta = zwNew / zw;
        for (int i = 0; i < C.N; i++) {
            p[i] = z[i] + beta * p[i];
            q[i] = w[i] + beta * q[i];
        }
        zw = zwNew;
        double now = dot(C.N, z, r);
        if (now > prev * (1 + 1e-10) + 1e-300) res.monotone = 0;
        prev = now;
    }
    memcpy(v, y, sizeof(double) * (size_t)C.n3);
    for (int k = 0; k < C.m; k++) lambda[k] = active[k] ? y[C.n3 + k] : 0;
    if (out) *out = res;
    free(work);
    return ALC_OK;
}
