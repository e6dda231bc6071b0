// The active-set Conjugate Residual solver of the contact MLCP (host/ref/mlcp_cr.c; issue 22,
// item 3: V&J's claims VJ2-VJ4 of ../shared/research/seeds-001-002.md §4.2). On random small
// SPD QPs with contact-like rows, against brute-force enumeration of every active set: the same
// v and lambda with both preconditioners, complementarity at exit, and with the SPD Diag
// preconditioner a preconditioned residual that never grows between state changes.
#include "ref/bsr_ref.h"
#include "ref/mlcp_cr.h"
#include "test_macros.h"
#include "test_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXV 4           // vertices
#define MAXD (3 * MAXV)  // DOFs
#define MAXM 8           // rows
#define MAXK (MAXD + MAXM)

/// A random problem: dense SPD A (n vertices), b, and m rows of 1-4 distinct vertices each
/// (weights 1, then minus random barycentric-like weights, as a point-triangle row), random
/// unit normals and offsets.
typedef struct Prob_ {
    int n, m;
    double A[MAXD][MAXD], b[MAXD];
    int vert[4 * MAXM];
    double w[4 * MAXM], nrm[3 * MAXM], c[MAXM];
} Prob;

static void makeProb(Prob* P, int n, int m) {
    memset(P, 0, sizeof *P);
    P->n = n;
    P->m = m;
    int d = 3 * n;
    double G[MAXD][MAXD];
    for (int i = 0; i < d; i++) {
        for (int j = 0; j < d; j++) G[i][j] = rngRange(-1, 1);
    }
    for (int i = 0; i < d; i++) {
        for (int j = 0; j < d; j++) {
            double s = i == j ? 0.5 * d : 0;
            for (int k = 0; k < d; k++) s += G[i][k] * G[j][k];
            P->A[i][j] = s;
        }
        P->b[i] = rngRange(-3, 3);
    }
    for (int k = 0; k < m; k++) {
        int nv = 1 + (int)(rngUniform() * (n < 4 ? n : 4));
        int used[MAXV] = {0};
        for (int a = 0; a < 4; a++) {
            P->vert[4 * k + a] = -1;
            if (a >= nv) continue;
            int i;
            do i = (int)(rngUniform() * n);
            while (used[i]);
            used[i] = 1;
            P->vert[4 * k + a] = i;
            P->w[4 * k + a] = a == 0 ? 1.0 : -rngRange(0, 1.0 / (nv - 1));
        }
        double x = rngRange(-1, 1), y = rngRange(-1, 1), z = rngRange(-1, 1);
        double l = sqrt(x * x + y * y + z * z) + 1e-300;
        P->nrm[3 * k] = x / l;
        P->nrm[3 * k + 1] = y / l;
        P->nrm[3 * k + 2] = z / l;
        P->c[k] = rngRange(-0.5, 1.0);
    }
}

/// Row k of J as a dense vector.
static void rowDense(const Prob* P, int k, double* row) {
    memset(row, 0, sizeof(double) * MAXD);
    for (int a = 0; a < 4; a++) {
        int i = P->vert[4 * k + a];
        if (i < 0) continue;
        for (int c = 0; c < 3; c++) row[3 * i + c] += P->w[4 * k + a] * P->nrm[3 * k + c];
    }
}

/// Hadamard ratio of the rows' Gram matrix J J^T (det over the product of its diagonal, in
/// (0, 1]): near 0 when rows are nearly dependent, which makes lambda huge and the residual's
/// rounding floor larger than any fixed tolerance.
static double gramRatio(const Prob* P) {
    double G[MAXM][MAXM], row[MAXM][MAXD], ratio = 1;
    for (int k = 0; k < P->m; k++) rowDense(P, k, row[k]);
    for (int a = 0; a < P->m; a++) {
        for (int c = 0; c < P->m; c++) {
            double s = 0;
            for (int j = 0; j < 3 * P->n; j++) s += row[a][j] * row[c][j];
            G[a][c] = s;
        }
    }
    // Cholesky: det = prod L_kk^2; the ratio multiplies L_kk^2 / G_kk
    for (int k = 0; k < P->m; k++) {
        double gkk = G[k][k];
        for (int j = 0; j < k; j++) G[k][k] -= G[k][j] * G[k][j];
        if (!(G[k][k] > 0)) return 0;
        ratio *= G[k][k] / gkk;
        double l = sqrt(G[k][k]);
        G[k][k] = l;
        for (int i = k + 1; i < P->m; i++) {
            for (int j = 0; j < k; j++) G[i][k] -= G[i][j] * G[k][j];
            G[i][k] /= l;
        }
    }
    return ratio;
}

/// Gaussian elimination with partial pivoting on K x = r (dimension d); 0 if singular.
static int solveDense(int d, double K[MAXK][MAXK + 1]) {
    for (int col = 0; col < d; col++) {
        int piv = col;
        for (int i = col + 1; i < d; i++) {
            if (fabs(K[i][col]) > fabs(K[piv][col])) piv = i;
        }
        if (fabs(K[piv][col]) < 1e-12) return 0;
        for (int j = 0; j <= d; j++) {
            double t = K[col][j];
            K[col][j] = K[piv][j];
            K[piv][j] = t;
        }
        for (int i = 0; i < d; i++) {
            if (i == col) continue;
            double f = K[i][col] / K[col][col];
            for (int j = col; j <= d; j++) K[i][j] -= f * K[col][j];
        }
    }
    for (int i = 0; i < d; i++) K[i][d] /= K[i][i];
    return 1;
}

/// The QP's solution by trying every active set: the one whose KKT solution is feasible with
/// nonnegative multipliers. 0 if none (it should not happen for these strictly convex QPs).
static int bruteForce(const Prob* P, double* v, double* lambda) {
    int d = 3 * P->n;
    double J[MAXM][MAXD];
    for (int k = 0; k < P->m; k++) rowDense(P, k, J[k]);
    for (unsigned set = 0; set < (1u << P->m); set++) {
        int idx[MAXM], na = 0;
        for (int k = 0; k < P->m; k++) {
            if (set & (1u << k)) idx[na++] = k;
        }
        static double K[MAXK][MAXK + 1];
        memset(K, 0, sizeof K);
        for (int i = 0; i < d; i++) {
            for (int j = 0; j < d; j++) K[i][j] = P->A[i][j];
            K[i][d + na] = P->b[i];
        }
        for (int a = 0; a < na; a++) {
            for (int j = 0; j < d; j++) {
                K[j][d + a] = -J[idx[a]][j];
                K[d + a][j] = -J[idx[a]][j];
            }
            K[d + a][d + na] = -P->c[idx[a]];
        }
        if (!solveDense(d + na, K)) continue;
        int ok = 1;
        for (int a = 0; a < na && ok; a++) ok = K[d + a][d + na] >= -1e-9;
        for (int k = 0; k < P->m && ok; k++) {
            double g = -P->c[k];
            for (int j = 0; j < d; j++) g += J[k][j] * K[j][d + na];
            ok = g >= -1e-9;
        }
        if (!ok) continue;
        for (int j = 0; j < d; j++) v[j] = K[j][d + na];
        for (int k = 0; k < P->m; k++) lambda[k] = 0;
        for (int a = 0; a < na; a++) lambda[idx[a]] = K[d + a][d + na];
        return 1;
    }
    return 0;
}

/// P's A as the reference's BSR (dense pattern, both triangles).
static int toBsr(const Prob* P, alcrBsr* A) {
    int n = P->n, srowptr[MAXV + 1], scol[MAXV * MAXV], needed = 0;
    for (int i = 0; i <= n; i++) srowptr[i] = i * n;
    for (int i = 0; i < n * n; i++) scol[i] = i % n;
    if (alcr_bsr_make(A, n, n * n, 0) != ALC_OK) return 0;
    if (alcr_bsr_setPattern(A, srowptr, scol, 0, 4, NULL, &needed) != ALC_OK) return 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double* blk = A->val + 9 * alcr_bsr_find(A, i, j);
            for (int a = 0; a < 3; a++) {
                for (int c = 0; c < 3; c++) blk[3 * a + c] = P->A[3 * i + a][3 * j + c];
            }
        }
    }
    return 1;
}

/// 300 random problems per preconditioner: 1-4 vertices and up to min(8, 3 n) rows (more rows
/// than DOFs can make the QP infeasible), the rows not nearly dependent (gramRatio >= 0.01).
ALC_TEST(mlcpCr_matchesEnumeration) {
    rngSeed(2211);
    const char* names[2] = {"Diag", "Full"};
    for (int pc = 0; pc < 2; pc++) {
        double worstV = 0, worstL = 0, worstGap = 0;
        long itSum = 0;
        int itMax = 0, nonMonotone = 0, solved = 0;
        for (int t = 0; t < 300; t++) {
            Prob P;
            int n = 1 + t % MAXV, mmax = 3 * n < MAXM ? 3 * n : MAXM;  // independent rows
            do makeProb(&P, n, (t / MAXV) % (mmax + 1));
            while (gramRatio(&P) < 1e-2);
            double vb[MAXD], lb[MAXM], v[MAXD], lam[MAXM + 1];
            int active[MAXM + 1];
            ENSURE_MSG(bruteForce(&P, vb, lb), "problem %d: no feasible active set", t);
            alcrBsr A;
            memset(&A, 0, sizeof A);
            ENSURE(toBsr(&P, &A));
            alcrCrRows R = {P.m, P.vert, P.w, P.nrm, NULL, P.c, NULL};
            alcrCrOptions o = alcr_cr_defaultOptions();
            o.precond = pc ? ALCR_CR_FULL : ALCR_CR_DIAG;
            o.eps1 = o.eps2 = 1e-10;
            alcrCrResult res;
            ENSURE_OK(alcr_cr_solve(&A, P.b, &R, &o, v, lam, active, 0, &res));
            ENSURE_MSG(res.converged,
                       "%s, problem %d (%d vertices, %d rows): not converged "
                       "after %d iterations, ||r|| %g",
                       names[pc], t, P.n, P.m, res.iters, res.rnorm);
            solved++;
            itSum += res.iters;
            if (res.iters > itMax) itMax = res.iters;
            nonMonotone += !res.monotone;
            for (int j = 0; j < 3 * P.n; j++) worstV = fmax(worstV, fabs(v[j] - vb[j]));
            for (int k = 0; k < P.m; k++) {
                worstL = fmax(worstL, fabs(lam[k] - lb[k]));
                // complementarity at exit (VJ2)
                double row[MAXD], g = -P.c[k];
                rowDense(&P, k, row);
                for (int j = 0; j < 3 * P.n; j++) g += row[j] * v[j];
                ENSURE_MSG(lam[k] >= 0 && g >= -1e-9 && (active[k] ? fabs(g) <= 1e-9 : lam[k] == 0),
                           "%s, problem %d row %d: lambda %g, gap %g, active %d", names[pc], t, k,
                           lam[k], g, active[k]);
                if (active[k]) worstGap = fmax(worstGap, fabs(g));
            }
            alcr_bsr_free(&A);
        }
        alct_note(
            "%s: %d problems as enumeration gives them: v within %.1e, lambda within %.1e, "
            "active gaps within %.1e; %.1f CR iterations on average, %d at most; the "
            "preconditioned residual grew between state changes in %d",
            names[pc], solved, worstV, worstL, worstGap, (double)itSum / solved, itMax,
            nonMonotone);
        ENSURE(worstV <= 1e-8 && worstL <= 1e-8);
        // VJ4: the Diag preconditioner is SPD, so CR's preconditioned residual never grows
        // between two state changes
        if (pc == 0) ENSURE(nonMonotone == 0);
    }
    return ALC_TEST_PASS;
}

/// A warm start from the solution ends at once, with nothing to change; an iteration cap below
/// what the solve needs returns not converged.
ALC_TEST(mlcpCr_warmStartAndCap) {
    rngSeed(99);
    Prob P;
    do makeProb(&P, 3, 5);
    while (gramRatio(&P) < 1e-2);
    alcrBsr A;
    memset(&A, 0, sizeof A);
    ENSURE(toBsr(&P, &A));
    alcrCrRows R = {P.m, P.vert, P.w, P.nrm, NULL, P.c, NULL};
    alcrCrOptions o = alcr_cr_defaultOptions();
    o.eps1 = o.eps2 = 1e-10;
    double v[MAXD], lam[MAXM];
    int active[MAXM];
    alcrCrResult cold, warm, capped;
    ENSURE_OK(alcr_cr_solve(&A, P.b, &R, &o, v, lam, active, 0, &cold));
    ENSURE(cold.converged && cold.iters > 2);
    ENSURE_OK(alcr_cr_solve(&A, P.b, &R, &o, v, lam, active, 1, &warm));
    ENSURE_MSG(warm.converged && warm.iters <= 2 && warm.activations == 0 && warm.releases == 0,
               "warm start: %d iterations, %d activations, %d releases (cold: %d iterations)",
               warm.iters, warm.activations, warm.releases, cold.iters);
    o.maxIter = 2;
    ENSURE_OK(alcr_cr_solve(&A, P.b, &R, &o, v, lam, active, 0, &capped));
    ENSURE(!capped.converged && capped.iters <= 2);
    alct_note(
        "cold start %d CR iterations (%d activations, %d releases), warm start from its "
        "solution %d, capped at 2: not converged",
        cold.iters, cold.activations, cold.releases, warm.iters);
    alcr_bsr_free(&A);
    return ALC_TEST_PASS;
}

/// Bad input is refused: a row naming a vertex past the matrix, a nonpositive diagonal.
ALC_TEST(mlcpCr_refusesBadInput) {
    rngSeed(7);
    Prob P;
    makeProb(&P, 2, 1);
    alcrBsr A;
    memset(&A, 0, sizeof A);
    ENSURE(toBsr(&P, &A));
    double v[MAXD], lam[1];
    int active[1];
    P.vert[0] = 5;
    alcrCrRows R = {1, P.vert, P.w, P.nrm, NULL, P.c, NULL};
    ENSURE(alcr_cr_solve(&A, P.b, &R, NULL, v, lam, active, 0, NULL) == ALC_ERR_INVALID_ARG);
    P.vert[0] = 0;
    A.val[9 * A.diag[1] + 4] = 0;
    ENSURE(alcr_cr_solve(&A, P.b, &R, NULL, v, lam, active, 0, NULL) == ALC_ERR_INVALID_ARG);
    ENSURE(alcr_cr_solve(&A, P.b, NULL, NULL, v, lam, active, 0, NULL) == ALC_ERR_INVALID_ARG);
    alcr_bsr_free(&A);
    return ALC_TEST_PASS;
}

/// V&J claim VJ11 on exact duplicates: each of 2 independent rows entered three times (the
/// MLCP's v is that of the rows entered once; its lambda splits among the copies). Both
/// preconditioners solve it, with the duplicate counts Z = 3 in the Schur diagonal (alcrCrRows.z,
/// V&J §3.4.1) and without; the note has the CR iterations of each (measured: 14.1 and 13.7
/// under Diag, 13.0 and 13.0 under Full: on problems this small Z changes little).
ALC_TEST(mlcpCr_duplicateRows) {
    rngSeed(4242);
    const char* names[2] = {"Diag", "Full"};
    for (int pc = 0; pc < 2; pc++) {
        long its[2] = {0, 0};
        int solvedBoth = 0;
        double worstV = 0;
        for (int t = 0; t < 200; t++) {
            Prob P, D;
            int n = 2 + t % 3, m0 = 2;  // 3 m0 <= MAXM rows
            do makeProb(&P, n, m0);
            while (gramRatio(&P) < 1e-2);
            double vb[MAXD], lb[MAXM];
            ENSURE(bruteForce(&P, vb, lb));
            D = P;
            D.m = 3 * m0;
            for (int k = 0; k < D.m; k++) {
                int s = k % m0;
                memcpy(D.vert + 4 * k, P.vert + 4 * s, sizeof(int) * 4);
                memcpy(D.w + 4 * k, P.w + 4 * s, sizeof(double) * 4);
                memcpy(D.nrm + 3 * k, P.nrm + 3 * s, sizeof(double) * 3);
                D.c[k] = P.c[s];
            }
            double z[MAXM];
            for (int k = 0; k < D.m; k++) z[k] = 3;
            alcrBsr A;
            memset(&A, 0, sizeof A);
            ENSURE(toBsr(&D, &A));
            int conv = 1;
            for (int withZ = 0; withZ < 2; withZ++) {
                alcrCrRows R = {D.m, D.vert, D.w, D.nrm, NULL, D.c, withZ ? z : NULL};
                alcrCrOptions o = alcr_cr_defaultOptions();
                o.precond = pc ? ALCR_CR_FULL : ALCR_CR_DIAG;
                o.eps1 = o.eps2 = 1e-10;
                double v[MAXD], lam[MAXM];
                int active[MAXM];
                alcrCrResult res;
                ENSURE_OK(alcr_cr_solve(&A, D.b, &R, &o, v, lam, active, 0, &res));
                conv &= res.converged;
                its[withZ] += res.iters;
                double e = 0;
                for (int j = 0; res.converged && j < 3 * n; j++) e = fmax(e, fabs(v[j] - vb[j]));
                worstV = fmax(worstV, e);
            }
            solvedBoth += conv;
            alcr_bsr_free(&A);
        }
        alct_note(
            "%s, 200 problems with every row entered three times: %d solved with and "
            "without Z, v within %.1e of the rows entered once; %.1f CR iterations on "
            "average without Z, %.1f with Z = 3",
            names[pc], solvedBoth, worstV, its[0] / 200.0, its[1] / 200.0);
        ENSURE(solvedBoth == 200);
        ENSURE(worstV <= 1e-8);
    }
    return ALC_TEST_PASS;
}

/// One particle of mass M on the plane y >= 0 (one normal row, its tangent rows along x and z),
/// pushed by a force with normal part -fn (into the plane) and tangential part ft: Coulomb's law
/// in one solve. Static (|ft| <= mu fn): no slip, the friction multiplier -ft; kinetic: it slips
/// by (ft - mu fn ft^) / M, the friction force exactly mu fn against the slip. Returns the
/// largest error of the slip (m) and of the friction force (in the units of b); 0 on failure.
static int particleOnPlane(double M, double mu, double fn, const double ft[2], int precond,
                           double* errSlip, double* errForce, int* kinetic, int* iters) {
    Prob P;
    memset(&P, 0, sizeof P);
    P.n = 1;
    P.m = 1;
    for (int i = 0; i < 3; i++) P.A[i][i] = M;
    P.b[0] = ft[0];
    P.b[1] = -fn;
    P.b[2] = ft[1];
    P.vert[0] = 0;
    P.vert[1] = P.vert[2] = P.vert[3] = -1;
    P.w[0] = 1;
    P.nrm[1] = 1;
    double tgrad[24] = {0}, ct[2] = {0}, muv[1] = {mu};
    tgrad[0] = 1;       // t0 = x
    tgrad[12 + 2] = 1;  // t1 = z
    int kin[1] = {0};
    double phi[2] = {0}, dir[2] = {1, 0}, lt[1] = {0}, hist[1] = {0};
    alcrCrFriction F = {muv, tgrad, ct, kin, phi, dir, lt, hist, 1.2 * M_PI / 180, 0.01, 0, 0, 0};
    alcrBsr A;
    memset(&A, 0, sizeof A);
    if (!toBsr(&P, &A)) return 0;
    alcrCrRows R = {1, P.vert, P.w, P.nrm, NULL, P.c, NULL};
    alcrCrOptions o = alcr_cr_defaultOptions();
    o.precond = precond ? ALCR_CR_FULL : ALCR_CR_DIAG;
    o.eps1 = o.eps2 = 1e-12;
    double v[3], lam[1];
    int active[1];
    alcrCrResult res;
    alctStatus st = alcr_cr_solveFriction(&A, P.b, &R, &F, &o, v, lam, active, 0, &res);
    alcr_bsr_free(&A);
    if (st != ALC_OK || !res.converged) {
        alct_note("mu %.3f fn %.3f ft (%.3f, %.3f): status %d, converged %d after %d iterations",
                  mu, fn, ft[0], ft[1], st, res.converged, res.iters);
        return 0;
    }
    double ftn = hypot(ft[0], ft[1]), want[2] = {0, 0}, fric[2];
    if (ftn > mu * fn) {
        for (int j = 0; j < 2; j++) want[j] = (ft[j] - mu * fn * ft[j] / ftn) / M;
    }
    // the friction force on the particle: +phi (static) or -mu lt d (kinetic)
    for (int j = 0; j < 2; j++) fric[j] = kin[0] ? -mu * lt[0] * dir[j] : phi[j];
    double slip[2] = {v[0], v[2]};
    *errSlip = fmax(fabs(slip[0] - want[0]), fabs(slip[1] - want[1]));
    double wantF[2];
    for (int j = 0; j < 2; j++) wantF[j] = ftn > mu * fn ? -mu * fn * ft[j] / ftn : -ft[j];
    *errForce = fmax(fabs(fric[0] - wantF[0]), fabs(fric[1] - wantF[1]));
    *errSlip = fmax(*errSlip, fabs(v[1]));
    *errForce = fmax(*errForce, fabs(lam[0] - fn));
    *kinetic = kin[0];
    *iters = res.iters;
    return 1;
}

/// Coulomb's law on one particle (V&J claim VJ5's cone, static and kinetic, in one solve).
ALC_TEST(mlcpCr_frictionParticle) {
    rngSeed(99);
    for (int pc = 0; pc < 2; pc++) {
        int nk = 0, ns = 0, its = 0;
        double es = 0, ef = 0;
        for (int t = 0; t < 200; t++) {
            double M = rngRange(0.5, 2), mu = rngRange(0.1, 1), fn = rngRange(0.5, 2);
            double ang = rngRange(0, 2 * M_PI), mag = rngRange(0, 2) * mu * fn;
            double ft[2] = {mag * cos(ang), mag * sin(ang)};
            double a = 0, b = 0;
            int kin = 0, it = 0;
            ENSURE(particleOnPlane(M, mu, fn, ft, pc, &a, &b, &kin, &it));
            ENSURE(kin == (mag > mu * fn));
            nk += kin;
            ns += !kin;
            its += it;
            es = fmax(es, a);
            ef = fmax(ef, b);
        }
        alct_note(
            "%s: 200 pushes (%d static, %d sliding): slip within %.1e m, friction force "
            "within %.1e of Coulomb's; %.1f CR iterations on average",
            pc ? "Full" : "Diag", ns, nk, es, ef, its / 200.0);
        ENSURE(ns > 50 && nk > 50);
        ENSURE(es <= 1e-9 && ef <= 1e-9);
    }
    return ALC_TEST_PASS;
}
