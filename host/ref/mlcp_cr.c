// Active-set preconditioned Conjugate Residual for the contact MLCP (ref/mlcp_cr.h; Verschoor
// and Jalba, Algorithm 1 lines 7-23, Algorithm 2's state rules, Algorithm 3's kinetic friction).
// Vectors are y = [v (3 n); lambda (m)], with friction [v; lambda; phi (2 m)]; an inactive row's
// entries of B, d, C and the residual are zero and its multiplier stays 0 (a tangent row is
// inactive unless its contact is active and static).
#include "ref/mlcp_cr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// The solve's fixed data and scratch.
typedef struct Cr_ {
    const alcrBsr* A;
    const alcrCrRows* R;
    alcrCrFriction* F;  // NULL: frictionless
    alcrCrPrecond precond;
    int n3, m, N;  // DOFs, contacts, n3 + m (+ 2 m tangent rows with friction)
    int* active;
    double* adInv;    // 1 / A_jj (n3)
    double* sdInv;    // 1 / (sum_j L_kj^2 / A_jj) per row: m normal (then 2 m tangent) rows
    double* tmp;      // n3 scratch of the Full preconditioner
    const double* b;  // the right-hand side
    double* beff;     // b - J_K^T gt: the kinetic contacts' forces moved to it (n3)
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

/// Whether contact k's tangent rows are in the system: active, static, with friction.
static inline int tangentOn(const Cr* C, int k) {
    return C->F && C->active[k] && !C->F->kinetic[k] && C->F->mu[k] > 0;
}

/// J_t,kj v.
static double tanDot(const Cr* C, int k, int j, const double* v) {
    const double* t = C->F->tgrad + 24 * k + 12 * j;
    double s = 0;
    for (int a = 0; a < 4; a++) {
        int i = C->R->vert[4 * k + a];
        if (i < 0) continue;
        const double* vi = v + 3 * i;
        s += t[3 * a] * vi[0] + t[3 * a + 1] * vi[1] + t[3 * a + 2] * vi[2];
    }
    return s;
}

/// out += s J_t,kj^T.
static void tanAdd(const Cr* C, int k, int j, double s, double* out) {
    const double* t = C->F->tgrad + 24 * k + 12 * j;
    for (int a = 0; a < 4; a++) {
        int i = C->R->vert[4 * k + a];
        if (i < 0) continue;
        for (int c = 0; c < 3; c++) out[3 * i + c] += s * t[3 * a + c];
    }
}

/// beff = b - sum over the active kinetic contacts of J_t,k^T gt_k, gt_k = mu_k lt_k d_k.
static void updateBeff(Cr* C) {
    memcpy(C->beff, C->b, sizeof(double) * (size_t)C->n3);
    const alcrCrFriction* F = C->F;
    for (int k = 0; k < C->m; k++) {
        if (!C->active[k] || !F->kinetic[k] || !(F->mu[k] > 0)) continue;
        double f = F->mu[k] * F->lamTilde[k];
        tanAdd(C, k, 0, -f * F->dir[2 * k], C->beff);
        tanAdd(C, k, 1, -f * F->dir[2 * k + 1], C->beff);
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
    if (!C->F) return;
    for (int k = 0; k < C->m; k++) {
        int on = tangentOn(C, k);
        for (int j = 0; j < 2; j++) {
            int t = C->n3 + C->m + 2 * k + j;
            if (!on) {
                out[t] = 0;
                continue;
            }
            tanAdd(C, k, j, -y[t], out);
            out[t] = -tanDot(C, k, j, y);
        }
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
        if (!C->F) return;
        for (int k = 0; k < C->m; k++) {
            int on = tangentOn(C, k);
            for (int j = 0; j < 2; j++) {
                int t = C->n3 + C->m + 2 * k + j;
                out[t] = on ? C->sdInv[C->m + 2 * k + j] * y[t] : 0;
            }
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
    for (int k = 0; C->F && k < C->m; k++) {
        int on = tangentOn(C, k);
        for (int j = 0; j < 2; j++) {
            int t = C->n3 + C->m + 2 * k + j;
            if (!on) {
                out[t] = 0;
                continue;
            }
            double e = C->sdInv[C->m + 2 * k + j] * (tanDot(C, k, j, out) + y[t]);
            out[t] = -e;
            tanAdd(C, k, j, e, corr);
        }
    }
    for (int j = 0; j < C->n3; j++) out[j] -= C->adInv[j] * corr[j];
}

/// r = d - B y with d = [beff; -c on the active rows; -c_t on the static tangent rows].
static void residual(const Cr* C, const double* y, double* r) {
    applyB(C, y, r);
    const double* b = C->F ? C->beff : C->b;
    for (int j = 0; j < C->n3; j++) r[j] = b[j] - r[j];
    for (int k = 0; k < C->m; k++) {
        r[C->n3 + k] = C->active[k] ? -C->R->c[k] - r[C->n3 + k] : 0;
    }
    for (int k = 0; C->F && k < C->m; k++) {
        int on = tangentOn(C, k);
        for (int j = 0; j < 2; j++) {
            int t = C->n3 + C->m + 2 * k + j;
            r[t] = on ? -C->F->ct[2 * k + j] - r[t] : 0;
        }
    }
}

/// Algorithm 2's friction rules and Algorithm 3 for the active contact k with friction, at y;
/// 1 when its state or its kinetic force changed. fTol: 0 during the iterations, where a kinetic
/// update that moves the rows by less than eps2 is postponed (V&J); at a converged point the
/// solve's force tolerance eps1, below which an update is dropped: V&J's rule alone leaves each
/// kinetic force up to eps2 / S_d off, about 1 % of the friction on the slope scene
/// (bench/results/amd-epyc-2c/mlcp.md)
static int evaluateFriction(Cr* C, int k, double* y, double eps2, double fTol) {
    alcrCrFriction* F = C->F;
    double mu = F->mu[k], lam = y[C->n3 + k] > 0 ? y[C->n3 + k] : 0;
    double s0 = tanDot(C, k, 0, y) - F->ct[2 * k], s1 = tanDot(C, k, 1, y) - F->ct[2 * k + 1];
    double* ph = y + C->n3 + C->m + 2 * k;
    double* d = F->dir + 2 * k;
    if (!F->kinetic[k]) {
        // Eq. 16: the static force leaves the cone (while the slip does not oppose it) -> kinetic
        // along it, its size kept: lt = |gamma| / mu
        double g0 = -ph[0], g1 = -ph[1], gn = hypot(g0, g1);
        // (a relative margin above round-off: a force on the cone's boundary stays static)
        if (!(gn > mu * lam * (1 + 1e-9)) || !(gn > 0)) return 0;
        if (!(s0 * g0 + s1 * g1 > 0) && hypot(s0, s1) > eps2) return 0;
        F->kinetic[k] = 1;
        d[0] = g0 / gn;
        d[1] = g1 / gn;
        F->lamTilde[k] = F->hist[k] = gn / mu;
        ph[0] = ph[1] = 0;
        F->switches++;
        return 1;
    }
    // Eq. 18: the slip turned against the kinetic direction -> static, its force kept
    if (s0 * d[0] + s1 * d[1] < -eps2) {
        double f = mu * F->lamTilde[k];
        ph[0] = -f * d[0];
        ph[1] = -f * d[1];
        F->kinetic[k] = 0;
        F->switches++;
        return 1;
    }
    // Algorithm 3: the size from a two-point moving average of the normal multiplier, the
    // direction turned towards the slip by thetaRate of the difference while more than
    // thetaTol off; postponed when the force's change moves the rows by less than eps2
    double lt = F->lamTilde[k], ltNew = lt, hist = F->hist[k];
    if (lt != lam) {
        ltNew = 0.5 * (hist + lam);
        hist = lam;
    }
    double d0 = d[0], d1 = d[1], sn = hypot(s0, s1);
    if (sn > eps2) {
        double c = (s0 * d0 + s1 * d1) / sn;
        if (c > 0 && c < cos(F->thetaTol)) {
            d0 += F->thetaRate * (s0 / sn - d0);
            d1 += F->thetaRate * (s1 / sn - d1);
            double dn = hypot(d0, d1);
            d0 /= dn;
            d1 /= dn;
        }
    }
    double e0 = mu * (ltNew * d0 - lt * d[0]), e1 = mu * (ltNew * d1 - lt * d[1]);
    double i0 = C->sdInv[C->m + 2 * k], i1 = C->sdInv[C->m + 2 * k + 1];
    double sd = fmax(i0 > 0 ? 1 / i0 : 0, i1 > 0 ? 1 / i1 : 0);
    if (fTol > 0 ? !(hypot(e0, e1) > fTol) : !(hypot(e0, e1) * sd > eps2)) return 0;
    F->lamTilde[k] = ltNew;
    F->hist[k] = hist;
    d[0] = d0;
    d[1] = d1;
    return 1;
}

/// Algorithm 2 at y: release an active row that attracts (lambda < 0) and is not violated
/// beyond eps2 (with friction, once the release moves it by more than eps2); activate an
/// inactive row violated beyond eps2; the friction rules of the active contacts with friction
/// (evaluateFriction; fTol 0 during the iterations, eps1 at a converged point). Returns the
/// changes; the kinetic forces' right-hand side is updated when they changed.
static int evaluate(Cr* C, double* y, double eps2, double fTol, alcrCrResult* res) {
    int changed = 0, fric = 0;
    for (int k = 0; k < C->m; k++) {
        double g = rowDot(C->R, k, y) - C->R->c[k];
        if (C->active[k] && y[C->n3 + k] < 0 && g >= -eps2 &&
            (!C->F || -y[C->n3 + k] > eps2 * C->sdInv[k])) {
            // with friction, postponed while the attraction moves the row by less than eps2
            C->active[k] = 0;
            y[C->n3 + k] = 0;
            res->releases++;
            changed++;
            fric |= C->F && C->F->kinetic[k];
        } else if (!C->active[k] && g < -eps2) {
            C->active[k] = 1;
            y[C->n3 + k] = 0;
            res->activations++;
            changed++;
        } else if (C->F && C->active[k] && C->F->mu[k] > 0 &&
                   evaluateFriction(C, k, y, eps2, fTol)) {
            changed++;
            fric = 1;
            continue;
        } else {
            continue;
        }
        if (C->F) {
            // a row switched: its contact (re)starts kinetic (Algorithm 2) with no force yet,
            // along its slip where it has one; the moving average brings the force in
            alcrCrFriction* F = C->F;
            double s0 = tanDot(C, k, 0, y) - F->ct[2 * k],
                   s1 = tanDot(C, k, 1, y) - F->ct[2 * k + 1];
            double sn = hypot(s0, s1);
            F->kinetic[k] = 1;
            F->dir[2 * k] = sn > 0 ? s0 / sn : 1;
            F->dir[2 * k + 1] = sn > 0 ? s1 / sn : 0;
            F->lamTilde[k] = F->hist[k] = 0;
            y[C->n3 + C->m + 2 * k] = y[C->n3 + C->m + 2 * k + 1] = 0;
        }
    }
    if (fric) updateBeff(C);
    return changed;
}

alctStatus alcr_cr_solve(const alcrBsr* A, const double* b, const alcrCrRows* rows,
                         const alcrCrOptions* opt, double* v, double* lambda, int* active, int warm,
                         alcrCrResult* out) {
    return alcr_cr_solveFriction(A, b, rows, NULL, opt, v, lambda, active, warm, out);
}

alctStatus alcr_cr_solveFriction(const alcrBsr* A, const double* b, const alcrCrRows* rows,
                                 alcrCrFriction* fric, const alcrCrOptions* opt, double* v,
                                 double* lambda, int* active, int warm, alcrCrResult* out) {
    alcrCrOptions o = opt ? *opt : alcr_cr_defaultOptions();
    alcrCrResult res;
    memset(&res, 0, sizeof res);
    res.monotone = 1;
    if (!A || !b || !rows || !v || !lambda || !active ||
        (rows->m > 0 && (!rows->vert || !rows->c || (!rows->grad && (!rows->w || !rows->nrm)))) ||
        rows->m < 0) {
        return ALC_ERR_INVALID_ARG;
    }
    if (fric && rows->m > 0 &&
        (!fric->mu || !fric->tgrad || !fric->ct || !fric->kinetic || !fric->phi || !fric->dir ||
         !fric->lamTilde || !fric->hist)) {
        return ALC_ERR_INVALID_ARG;
    }
    for (int k = 0; fric && k < rows->m; k++) {
        if (!(fric->mu[k] >= 0)) return ALC_ERR_INVALID_ARG;
    }
    Cr C;
    memset(&C, 0, sizeof C);
    C.A = A;
    C.R = rows;
    C.F = fric;
    C.b = b;
    C.precond = o.precond;
    C.n3 = 3 * A->n;
    C.m = rows->m;
    C.N = C.n3 + (fric ? 3 : 1) * C.m;
    C.active = active;
    for (int k = 0; k < 4 * C.m; k++) {
        if (rows->vert[k] >= A->n) return ALC_ERR_INVALID_ARG;
    }
    // scratch: y, r, z = C^-1 r, w = B z, p, q = B p, C^-1 q; C's own scratch; A_d^-1, S_d^-1;
    // with friction the right-hand side with the kinetic forces
    size_t N = (size_t)C.N + 1, nrow = (size_t)(C.N - C.n3);
    size_t nb = fric ? (size_t)C.n3 + 1 : 0;
    double* work = (double*)malloc(sizeof(double) * (7 * N + 2 * ((size_t)C.n3 + 1) + nrow + nb));
    if (!work) return ALC_ERR_NOMEM;
    double *y = work, *r = y + N, *z = r + N, *w = z + N, *p = w + N, *q = p + N, *cq = q + N;
    C.tmp = cq + N;
    C.adInv = C.tmp + C.n3 + 1;
    C.sdInv = C.adInv + C.n3 + 1;
    C.beff = fric ? C.sdInv + nrow : NULL;
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
    for (int k = 0; fric && k < C.m; k++) {
        for (int j = 0; j < 2; j++) {
            const double* t = fric->tgrad + 24 * k + 12 * j;
            double s = 0;
            for (int a = 0; a < 4; a++) {
                int i = rows->vert[4 * k + a];
                if (i < 0) continue;
                for (int c = 0; c < 3; c++) s += t[3 * a + c] * t[3 * a + c] * C.adInv[3 * i + c];
            }
            if (rows->z) s *= rows->z[k];
            C.sdInv[C.m + 2 * k + j] = s > 0 ? 1.0 / s : 0;
        }
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
        for (int k = 0; fric && k < C.m; k++) {
            fric->kinetic[k] = 0;
            fric->phi[2 * k] = fric->phi[2 * k + 1] = 0;
        }
    }
    memcpy(y, v, sizeof(double) * (size_t)C.n3);
    for (int k = 0; k < C.m; k++) y[C.n3 + k] = active[k] ? lambda[k] : 0;
    if (fric) {
        fric->switches = 0;
        for (int k = 0; k < C.m; k++) {
            int on = tangentOn(&C, k);
            for (int j = 0; j < 2; j++) y[C.n3 + C.m + 2 * k + j] = on ? fric->phi[2 * k + j] : 0;
        }
        updateBeff(&C);
    }
    evaluate(&C, y, o.eps2, 0, &res);
    double zw = 0, prev = 0;
    int restart = 1, sinceRestart = 0;
    // passes bound the restarts too: state changes found at convergence restart without an
    // iteration, and a cycle of them must still end
    for (long pass = 0; res.iters < o.maxIter && pass < 4L * o.maxIter + 4; pass++) {
        if (restart) {
            // lines 18-21 (and 7): the recurrences from the true residual
            residual(&C, y, r);
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
        for (int k = C.n3; k < C.N; k++) ur = fmax(ur, fabs(r[k]));
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
            if (evaluate(&C, y, o.eps2, o.eps1, &res) == 0) {
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
        if (alpha > 0 && res.iters % every == 0 && evaluate(&C, y, o.eps2, 0, &res) > 0) {
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
    if (fric) {
        fric->kineticCount = fric->staticCount = 0;
        for (int k = 0; k < C.m; k++) {
            int on = tangentOn(&C, k);
            for (int j = 0; j < 2; j++) fric->phi[2 * k + j] = on ? y[C.n3 + C.m + 2 * k + j] : 0;
            fric->kineticCount += active[k] && fric->kinetic[k] && fric->mu[k] > 0;
            fric->staticCount += active[k] && !fric->kinetic[k] && fric->mu[k] > 0;
        }
    }
    if (out) *out = res;
    free(work);
    return ALC_OK;
}
