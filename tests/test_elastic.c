// Tests for host/hd/alcm_svd.h and host/hd/alcm_elastic.h: SVD and symmetric eigen-decomposition,
// energy densities, tet gradient / Hessian against finite differences, the analytic eigensystem
// (Smith et al. 2019), the PSD projection and per-block Hessian (AL paper Eq. 17-19), and the
// inversion step bound.
#include "hd/alcm_elastic.h"
#include "hd/alcm_svd.h"
#include "test_macros.h"

#include <stdint.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;

static void rngSeed(uint64_t s) {
    g_rng = s;
}

// splitmix64
static uint64_t rngNext(void) {
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// uniform in [lo, hi)
static double urand(double lo, double hi) {
    return lo + (hi - lo) * ((double)(rngNext() >> 11) * (1.0 / 9007199254740992.0));
}

static alcV3 randV3(double lo, double hi) {
    return alcm_v3(urand(lo, hi), urand(lo, hi), urand(lo, hi));
}

// uniformly random rotation from a normalized quaternion
static alcM3 randRot(void) {
    double q[4], n = 0;
    do {
        n = 0;
        for (int i = 0; i < 4; i++) {
            q[i] = urand(-1, 1);
            n += q[i] * q[i];
        }
    } while (n < 1e-2 || n > 1);
    n = sqrt(n);
    double w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
    alcM3 R = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    return R;
}

// R1 diag(s) R2
static alcM3 makeF(alcV3 s) {
    return alcm_m3_mul(alcm_m3_mul(randRot(), alcm_m3_diag(s.x, s.y, s.z)), randRot());
}

static double maxAbsM3(alcM3 a) {
    double m = 0;
    for (int i = 0; i < 9; i++) m = fmax(m, fabs(a.m[i]));
    return m;
}

static double maxAbsN(const double* a, int n) {
    double m = 0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

static double maxDiffN(const double* a, const double* b, int n) {
    double m = 0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i] - b[i]));
    return m;
}

// random well-shaped rest tet (positive orientation) and its Dminv, vol
static void randRestTet(alcV3 X[4], alcM3* Dminv, double* vol) {
    alcM3 G = makeF(alcm_v3(urand(0.7, 1.4), urand(0.7, 1.4), urand(0.7, 1.4)));
    alcV3 t = randV3(-1, 1);
    alcV3 ref[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int a = 0; a < 4; a++) X[a] = alcm_v3_add(alcm_m3_mulv(G, ref[a]), t);
    bool ok = alcm_tet_restInverse(X, Dminv, vol);
    (void)ok;
}

// deformed positions with deformation gradient exactly F (plus a translation)
static void deform(const alcV3 X[4], alcM3 F, alcV3 x[4]) {
    alcV3 t = randV3(-1, 1);
    for (int a = 0; a < 4; a++) x[a] = alcm_v3_add(alcm_m3_mulv(F, X[a]), t);
}

// singular values for case c: mild stretches, larger ones, or (when allowed) inverted
static alcV3 randSigma(int c, bool allowInverted) {
    if (c % 3 == 0) return alcm_v3(urand(0.8, 1.25), urand(0.8, 1.25), urand(0.8, 1.25));
    if (c % 3 == 1 || !allowInverted)
        return alcm_v3(urand(0.5, 1.8), urand(0.5, 1.8), urand(0.5, 1.8));
    return alcm_v3(urand(0.6, 1.5), urand(0.6, 1.5), -urand(0.05, 0.5));
}

static void lame(double E, double nu, double* mu, double* lambda) {
    *mu = E / (2 * (1 + nu));
    *lambda = E * nu / ((1 + nu) * (1 - 2 * nu));
}

// cyclic Jacobi on a symmetric n x n (n <= 12) row-major matrix; eigenvalues to ev
static void jacobiN(const double* A, int n, double* ev) {
    double a[144];
    memcpy(a, A, sizeof(double) * (size_t)(n * n));
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, tot = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                tot += a[n * i + j] * a[n * i + j];
                if (i != j) off += a[n * i + j] * a[n * i + j];
            }
        }
        if (off <= 1e-32 * tot) break;
        for (int p = 0; p < n; p++) {
            for (int q = p + 1; q < n; q++) {
                double apq = a[n * p + q];
                if (fabs(apq) < 1e-300) continue;
                double theta = (a[n * q + q] - a[n * p + p]) / (2 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < n; k++) {
                    double akp = a[n * k + p], akq = a[n * k + q];
                    a[n * k + p] = c * akp - s * akq;
                    a[n * k + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) {
                    double apk = a[n * p + k], aqk = a[n * q + k];
                    a[n * p + k] = c * apk - s * aqk;
                    a[n * q + k] = s * apk + c * aqk;
                }
            }
        }
    }
    for (int i = 0; i < n; i++) ev[i] = a[n * i + i];
}

static double minN(const double* a, int n) {
    double m = a[0];
    for (int i = 1; i < n; i++) m = fmin(m, a[i]);
    return m;
}

// the material models, ALCM_SNH .. ALCM_FCR
#define NMODEL 4
static const char* const kModelName[NMODEL] = {"snh", "nh", "cor", "fcr"};

// ---------------------------------------------------------------------------------------------
// SVD and symmetric eigen
// ---------------------------------------------------------------------------------------------

// checks F = U diag(s) V^T, U, V rotations, s1 >= s2 >= |s3|, sign(s3) = sign(det F)
static int checkSvd(alcM3 F, double tol, const char* what) {
    alcM3 U, V;
    alcV3 s;
    alcm_m3_svd(F, &U, &s, &V);
    double fn = maxAbsM3(F);
    alcM3 R = alcm_m3_mulT(alcm_m3_mul(U, alcm_m3_diag(s.x, s.y, s.z)), V);
    double rec = maxAbsM3(alcm_m3_sub(R, F));
    ENSURE_MSG(rec <= tol * fn || (fn == 0 && rec == 0), "%s: reconstruction %g (|F| %g)", what,
               rec, fn);
    double ou = maxAbsM3(alcm_m3_sub(alcm_m3_Tmul(U, U), alcm_m3_identity()));
    double ov = maxAbsM3(alcm_m3_sub(alcm_m3_Tmul(V, V), alcm_m3_identity()));
    ENSURE_MSG(ou < 1e-13 && ov < 1e-13, "%s: orthogonality U %g V %g", what, ou, ov);
    ENSURE_MSG(fabs(alcm_m3_det(U) - 1) < 1e-13 && fabs(alcm_m3_det(V) - 1) < 1e-13,
               "%s: det U %g det V %g", what, alcm_m3_det(U), alcm_m3_det(V));
    double so = 1e-14 * fmax(s.x, 1e-300);
    ENSURE_MSG(s.x >= s.y - so && s.y >= fabs(s.z) - so && s.y >= 0, "%s: order %g %g %g", what,
               s.x, s.y, s.z);
    double det = alcm_m3_det(F);
    if (fabs(det) > 1e-8 * fn * fn * fn) {
        ENSURE_MSG((det > 0) == (s.z > 0), "%s: sign of s3 %g vs det %g", what, s.z, det);
    }
    return ALC_TEST_PASS;
}

ALC_TEST(svd_random) {
    rngSeed(1);
    for (int it = 0; it < 3000; it++) {
        alcM3 F;
        for (int i = 0; i < 9; i++) F.m[i] = urand(-2, 2);
        if (checkSvd(F, 1e-13, "random") != ALC_TEST_PASS) return ALC_TEST_FAIL;
        // prescribed singular values, including inverted ones
        alcV3 s = alcm_v3(urand(0.1, 3), urand(0.1, 3), urand(0.1, 3));
        double sv[3] = {s.x, s.y, s.z};
        for (int i = 1; i < 3; i++) {
            for (int j = i; j > 0 && sv[j] > sv[j - 1]; j--) {
                double t = sv[j];
                sv[j] = sv[j - 1];
                sv[j - 1] = t;
            }
        }
        if (it % 2) sv[2] = -sv[2];
        F = makeF(alcm_v3(sv[0], sv[1], sv[2]));
        if (checkSvd(F, 1e-13, "prescribed") != ALC_TEST_PASS) return ALC_TEST_FAIL;
        alcM3 U, V;
        alcV3 got;
        alcm_m3_svd(F, &U, &got, &V);
        ENSURE_MSG(fabs(got.x - sv[0]) < 1e-13 * sv[0] && fabs(got.y - sv[1]) < 1e-13 * sv[0] &&
                       fabs(got.z - sv[2]) < 1e-13 * sv[0],
                   "sigma (%g %g %g) expected (%g %g %g)", got.x, got.y, got.z, sv[0], sv[1],
                   sv[2]);
    }
    return ALC_TEST_PASS;
}

ALC_TEST(svd_special) {
    rngSeed(2);
    // zero
    alcM3 U, V;
    alcV3 s;
    alcm_m3_svd(alcm_m3_zero(), &U, &s, &V);
    ENSURE(s.x == 0 && s.y == 0 && s.z == 0);
    ENSURE(checkSvd(alcm_m3_zero(), 1e-13, "zero") == ALC_TEST_PASS);
    // fixed singular value patterns: repeated, rank-deficient, inverted, near-singular
    // clang-format off
    const double pats[][3] = {
        {1, 1, 1},       {2, 2, 2},        {1, 1, -1},       {3, 3, 1},
        {3, 1, 1},       {2, 1, -1},       {1, 1, 0},        {1, 0, 0},
        {2, 2, 0},       {1, 1e-9, 1e-12}, {1, 1e-12, 0},    {1, 1, -1e-9},
        {1, 1e-8, -1e-8}, {1e-200, 1e-200, 5e-201}, {1e200, 3e199, -1e199},
        {5, 5, -5},      {1 + 1e-15, 1, 1 - 1e-15}, {1, 1e-260, 0}, {1, 1e-160, -1e-170},
    };
    // clang-format on
    int npat = (int)(sizeof pats / sizeof pats[0]);
    for (int c = 0; c < npat; c++) {
        for (int rep = 0; rep < 50; rep++) {
            alcM3 F = rep == 0 ? alcm_m3_diag(pats[c][0], pats[c][1], pats[c][2])
                               : makeF(alcm_v3(pats[c][0], pats[c][1], pats[c][2]));
            char what[64];
            snprintf(what, sizeof what, "pattern %d rep %d", c, rep);
            if (checkSvd(F, 1e-13, what) != ALC_TEST_PASS) return ALC_TEST_FAIL;
            alcm_m3_svd(F, &U, &s, &V);
            double sc = pats[c][0];
            ENSURE_MSG(fabs(s.x - pats[c][0]) <= 1e-13 * sc &&
                           fabs(s.y - pats[c][1]) <= 1e-13 * sc &&
                           fabs(s.z - pats[c][2]) <= 1e-13 * sc,
                       "%s: sigma %g %g %g", what, s.x, s.y, s.z);
        }
    }
    // rank-1 a b^T, a zero column, a zero row, a rotation, a reflection
    for (int rep = 0; rep < 200; rep++) {
        alcV3 a = randV3(-1, 1), b = randV3(-1, 1);
        alcM3 F = alcm_m3_outer(a, b);
        ENSURE(checkSvd(F, 1e-13, "rank1") == ALC_TEST_PASS);
        alcm_m3_svd(F, &U, &s, &V);
        ENSURE_NEAR(s.x, alcm_v3_norm(a) * alcm_v3_norm(b), 1e-13);
        ENSURE_SMALL(s.y, 1e-14);
        ENSURE_SMALL(s.z, 1e-14);
        for (int i = 0; i < 9; i++) F.m[i] = urand(-1, 1);
        alcM3 G = F;
        for (int i = 0; i < 3; i++) G.m[3 * i + rep % 3] = 0;
        ENSURE(checkSvd(G, 1e-13, "zero column") == ALC_TEST_PASS);
        G = F;
        for (int j = 0; j < 3; j++) G.m[3 * (rep % 3) + j] = 0;
        ENSURE(checkSvd(G, 1e-13, "zero row") == ALC_TEST_PASS);
        // graded columns (nearly rank-deficient, random directions)
        for (int i = 0; i < 9; i++)
            G.m[i] = F.m[i] * (i % 3 == 0 ? 1 : (i % 3 == 1 ? 1e-6 : 1e-12));
        ENSURE(checkSvd(G, 1e-13, "graded") == ALC_TEST_PASS);
        alcM3 R = randRot();
        ENSURE(checkSvd(R, 1e-13, "rotation") == ALC_TEST_PASS);
        alcm_m3_svd(R, &U, &s, &V);
        ENSURE(fabs(s.x - 1) < 1e-14 && fabs(s.y - 1) < 1e-14 && fabs(s.z - 1) < 1e-14);
        alcm_m3_svd(alcm_m3_scale(R, -1), &U, &s, &V);
        ENSURE(fabs(s.x - 1) < 1e-14 && fabs(s.y - 1) < 1e-14 && fabs(s.z + 1) < 1e-14);
    }
    return ALC_TEST_PASS;
}

ALC_TEST(symEigen) {
    rngSeed(3);
    for (int it = 0; it < 3000; it++) {
        alcM3 A;
        if (it % 3 == 0) {
            for (int i = 0; i < 9; i++) A.m[i] = urand(-2, 2);
            A = alcm_m3_add(A, alcm_m3_transpose(A));
        } else {
            // prescribed spectrum with repeated / zero / negative eigenvalues
            double l[3] = {urand(-2, 2), urand(-2, 2), urand(-2, 2)};
            if (it % 3 == 2) l[1] = l[0];
            if (it % 7 == 0) l[2] = 0;
            if (it % 11 == 0) l[0] = l[1] = l[2];
            alcM3 R = randRot();
            A = alcm_m3_mulT(alcm_m3_mul(R, alcm_m3_diag(l[0], l[1], l[2])), R);
        }
        alcV3 ev;
        alcM3 E;
        alcm_m3_symEigen(A, &ev, &E);
        double an = fmax(maxAbsM3(A), 1e-300);
        alcM3 R = alcm_m3_mulT(alcm_m3_mul(E, alcm_m3_diag(ev.x, ev.y, ev.z)), E);
        ENSURE_MSG(maxAbsM3(alcm_m3_sub(R, A)) < 1e-14 * an, "reconstruction %g",
                   maxAbsM3(alcm_m3_sub(R, A)));
        ENSURE(maxAbsM3(alcm_m3_sub(alcm_m3_Tmul(E, E), alcm_m3_identity())) < 1e-14);
        ENSURE(fabs(alcm_m3_det(E) - 1) < 1e-14);
        ENSURE(ev.x >= ev.y && ev.y >= ev.z);
    }
    alcV3 ev;
    alcM3 E;
    alcm_m3_symEigen(alcm_m3_zero(), &ev, &E);
    ENSURE(ev.x == 0 && ev.y == 0 && ev.z == 0);
    ENSURE(maxAbsM3(alcm_m3_sub(E, alcm_m3_identity())) == 0);
    alcm_m3_symEigen(alcm_m3_diag(1, 3, 2), &ev, &E);
    ENSURE(ev.x == 3 && ev.y == 2 && ev.z == 1);
    return ALC_TEST_PASS;
}

// ---------------------------------------------------------------------------------------------
// energy and gradient
// ---------------------------------------------------------------------------------------------

ALC_TEST(elastic_restZero) {
    rngSeed(4);
    double mu, lambda;
    lame(1e6, 0.3, &mu, &lambda);
    for (int model = 0; model < NMODEL; model++) {
        for (int it = 0; it < 200; it++) {
            alcV3 X[4], x[4];
            alcM3 Dminv;
            double vol;
            randRestTet(X, &Dminv, &vol);
            // rest state and rigid motions: zero energy and zero gradient
            alcM3 R = it == 0 ? alcm_m3_identity() : randRot();
            deform(X, R, x);
            if (it == 1) memcpy(x, X, sizeof x);
            double E = alcm_tet_energy(model, mu, lambda, vol, Dminv, x);
            double g[12];
            alcm_tet_gradient(model, mu, lambda, vol, Dminv, x, g);
            ENSURE_MSG(fabs(E) < 1e-12 * mu * vol, "%s: E %g", kModelName[model], E);
            ENSURE_MSG(maxAbsN(g, 12) < 1e-12 * mu, "%s: |g| %g", kModelName[model],
                       maxAbsN(g, 12));
            // and a real deformation does have energy
            deform(X, alcm_m3_diag(1.1, 1, 1), x);
            ENSURE(alcm_tet_energy(model, mu, lambda, vol, Dminv, x) > 1e-4 * mu * vol);
        }
    }
    return ALC_TEST_PASS;
}

ALC_TEST(elastic_gradientFD) {
    rngSeed(5);
    double worst = 0;
    for (int model = 0; model < NMODEL; model++) {
        for (int it = 0; it < 300; it++) {
            double mu, lambda;
            lame(urand(1e4, 1e7), it % 2 ? 0.3 : 0.45, &mu, &lambda);
            alcV3 X[4], x[4];
            alcM3 Dminv;
            double vol;
            randRestTet(X, &Dminv, &vol);
            deform(X, makeF(randSigma(it, model != ALCM_NH)), x);
            double g[12], gfd[12];
            alcm_tet_gradient(model, mu, lambda, vol, Dminv, x, g);
            const double h = 1e-5;
            for (int d = 0; d < 12; d++) {
                alcV3 xp[4], xm[4];
                memcpy(xp, x, sizeof xp);
                memcpy(xm, x, sizeof xm);
                double* pp = &xp[d / 3].x;
                double* pm = &xm[d / 3].x;
                pp[d % 3] += h;
                pm[d % 3] -= h;
                gfd[d] = (alcm_tet_energy(model, mu, lambda, vol, Dminv, xp) -
                          alcm_tet_energy(model, mu, lambda, vol, Dminv, xm)) /
                         (2 * h);
            }
            double rel = maxDiffN(g, gfd, 12) / maxAbsN(g, 12);
            worst = fmax(worst, rel);
            ENSURE_MSG(rel < 1e-6, "%s it %d: gradient rel err %g", kModelName[model], it, rel);
        }
    }
    alct_note("worst relative gradient error vs central FD: %.2e", worst);
    return ALC_TEST_PASS;
}

ALC_TEST(elastic_rotationInvariance) {
    rngSeed(6);
    double mu, lambda;
    lame(1e6, 0.4, &mu, &lambda);
    for (int model = 0; model < NMODEL; model++) {
        for (int it = 0; it < 500; it++) {
            alcM3 F = makeF(randSigma(it, model != ALCM_NH));
            double p = alcm_psi(model, mu, lambda, F);
            alcM3 G = alcm_m3_mul(alcm_m3_mul(randRot(), F), randRot());
            double q = alcm_psi(model, mu, lambda, G);
            ENSURE_MSG(fabs(p - q) <= 1e-12 * (fabs(p) + mu), "%s: %g vs %g", kModelName[model], p,
                       q);
            // psi of F equals psi of its signed singular values
            alcM3 U, V;
            alcV3 s;
            alcm_m3_svd(F, &U, &s, &V);
            ENSURE_NEAR(alcm_psi_sigma(model, mu, lambda, s), p, 1e-12 * (fabs(p) + mu));
        }
    }
    return ALC_TEST_PASS;
}

ALC_TEST(elastic_nhExtension) {
    double dl0, ddl0, dl1, ddl1;
    const double J0 = ALC_NH_J0;
    // C2 continuity of l(J) at J0
    double l0 = alcm_nh_log(J0 * (1 - 1e-12), &dl0, &ddl0);
    double l1 = alcm_nh_log(J0 * (1 + 1e-12), &dl1, &ddl1);
    ENSURE_NEAR(l0, l1, 1e-10);
    ENSURE_NEAR(dl0 / dl1, 1, 1e-9);
    ENSURE_NEAR(ddl0 / ddl1, 1, 1e-9);
    ENSURE_NEAR(alcm_nh_log(0.5, &dl0, &ddl0), log(0.5), 1e-15);
    // derivatives of l by FD on both sides
    const double Js[] = {-1.0, -1e-3, 0.0, 0.3 * J0, 0.9 * J0, 1.5 * J0, 1e-3, 0.7, 2.0};
    for (int i = 0; i < (int)(sizeof Js / sizeof Js[0]); i++) {
        double J = Js[i], h = 1e-4 * fmax(fabs(J), J0);
        if (J > J0 && J - h < J0) h = 0.5 * (J - J0);
        double d, dd, dp, ddp, dm, ddm;
        alcm_nh_log(J, &d, &dd);
        double lp = alcm_nh_log(J + h, &dp, &ddp), lm = alcm_nh_log(J - h, &dm, &ddm);
        ENSURE_MSG(fabs((lp - lm) / (2 * h) - d) <= 1e-6 * fabs(d), "J %g: dl %g vs %g", J, d,
                   (lp - lm) / (2 * h));
        ENSURE_MSG(fabs((dp - dm) / (2 * h) - dd) <= 1e-6 * fabs(dd), "J %g: ddl", J);
        // NH energy finite and its stress consistent with it at F = diag(1, 1, J)
        double mu, lambda;
        lame(1e6, 0.3, &mu, &lambda);
        alcM3 F = alcm_m3_diag(1, 1, J);
        double psi = alcm_psi(ALCM_NH, mu, lambda, F);
        alcM3 P = alcm_psi_P(ALCM_NH, mu, lambda, F);
        ENSURE(psi == psi && fabs(psi) < 1e300);
        double pp = alcm_psi(ALCM_NH, mu, lambda, alcm_m3_diag(1, 1, J + h));
        double pm = alcm_psi(ALCM_NH, mu, lambda, alcm_m3_diag(1, 1, J - h));
        double fd = (pp - pm) / (2 * h);
        ENSURE_MSG(fabs(fd - P.m[8]) <= 1e-6 * fabs(P.m[8]), "J %g: P33 %g vs FD %g", J, P.m[8],
                   fd);
    }
    return ALC_TEST_PASS;
}

// ---------------------------------------------------------------------------------------------
// eigensystem and Hessians
// ---------------------------------------------------------------------------------------------

ALC_TEST(elastic_closedFormEigen) {
    rngSeed(7);
    for (int model = 0; model < NMODEL; model++) {
        for (int it = 0; it < 500; it++) {
            double mu, lambda;
            lame(1e6, urand(0.1, 0.48), &mu, &lambda);
            // distinct sorted signed singular values
            double sv[3] = {urand(1.2, 2.0), urand(0.7, 1.1), urand(0.2, 0.6)};
            if (model != ALCM_NH && it % 2) sv[2] = -sv[2];
            alcV3 s = alcm_v3(sv[0], sv[1], sv[2]);
            // dPsi/dsigma and d2Psi/dsigma2 against FD
            alcV3 d = alcm_psi_dsigma(model, mu, lambda, s);
            alcM3 H = alcm_psi_d2sigma(model, mu, lambda, s);
            double dv[3] = {d.x, d.y, d.z};
            const double h = 1e-6;
            for (int i = 0; i < 3; i++) {
                double sp[3] = {sv[0], sv[1], sv[2]}, sm[3] = {sv[0], sv[1], sv[2]};
                sp[i] += h;
                sm[i] -= h;
                alcV3 vp = alcm_v3_load(sp), vm = alcm_v3_load(sm);
                double fd = (alcm_psi_sigma(model, mu, lambda, vp) -
                             alcm_psi_sigma(model, mu, lambda, vm)) /
                            (2 * h);
                ENSURE_MSG(fabs(fd - dv[i]) <= 1e-6 * mu, "%s: Psi_%d", kModelName[model], i);
                alcV3 dp = alcm_psi_dsigma(model, mu, lambda, vp);
                alcV3 dm = alcm_psi_dsigma(model, mu, lambda, vm);
                for (int j = 0; j < 3; j++) {
                    double fd2 = (alcm_v3_get(dp, j) - alcm_v3_get(dm, j)) / (2 * h);
                    ENSURE_MSG(fabs(fd2 - H.m[3 * i + j]) <= 1e-6 * (mu + lambda), "%s: Psi_%d%d",
                               kModelName[model], i, j);
                }
            }
            // twist / flip closed forms against the generic quotients
            alcTetEigen e;
            alcm_tet_eigen(model, mu, lambda, makeF(s), &e, false);
            ENSURE(fabs(e.sigma.x - sv[0]) < 1e-12 && fabs(e.sigma.y - sv[1]) < 1e-12 &&
                   fabs(e.sigma.z - sv[2]) < 1e-12);
            for (int m = 0; m < 3; m++) {
                int i, j;
                alcm_tetEigen_pair(m, &i, &j);
                ENSURE(i < j && i + j + m == 3);
                double twist = (dv[i] + dv[j]) / (sv[i] + sv[j]);
                double flip = (dv[i] - dv[j]) / (sv[i] - sv[j]);
                double tol = 1e-10 * (mu + lambda);
                ENSURE_MSG(fabs(e.lam[3 + m] - twist) <= tol, "%s: twist %d: %g vs %g",
                           kModelName[model], m, e.lam[3 + m], twist);
                ENSURE_MSG(fabs(e.lam[6 + m] - flip) <= tol, "%s: flip %d: %g vs %g",
                           kModelName[model], m, e.lam[6 + m], flip);
            }
        }
    }
    return ALC_TEST_PASS;
}

// d2Psi/dF2 by central differences of P (index 3r + c of F, row-major)
static void fdHessF(int model, double mu, double lambda, alcM3 F, double Hf[81]) {
    const double h = 1e-6;
    for (int c = 0; c < 9; c++) {
        alcM3 Fp = F, Fm = F;
        Fp.m[c] += h;
        Fm.m[c] -= h;
        alcM3 Pp = alcm_psi_P(model, mu, lambda, Fp), Pm = alcm_psi_P(model, mu, lambda, Fm);
        for (int r = 0; r < 9; r++) Hf[9 * r + c] = (Pp.m[r] - Pm.m[r]) / (2 * h);
    }
}

ALC_TEST(elastic_eigenReconstruct) {
    rngSeed(8);
    double worst = 0;
    for (int model = 0; model < NMODEL; model++) {
        for (int it = 0; it < 300; it++) {
            double mu, lambda;
            lame(1e6, it % 2 ? 0.3 : 0.45, &mu, &lambda);
            // random F, plus exact rest / rotation / repeated singular values
            alcV3 sg = randSigma(it, model != ALCM_NH);
            if (it == 0) sg = alcm_v3(1, 1, 1);
            if (it == 1) sg = alcm_v3(1.2, 1.2, 0.9);
            if (it == 2) sg = alcm_v3(1.1, 1.1, 1.1);
            alcM3 F = makeF(sg);
            alcTetEigen e;
            alcm_tet_eigen(model, mu, lambda, F, &e, false);
            // Q_k orthonormal in the Frobenius product
            alcM3 Q[9];
            for (int k = 0; k < 9; k++) Q[k] = alcm_tetEigen_Q(&e, k);
            for (int k = 0; k < 9; k++) {
                for (int l = 0; l < 9; l++) {
                    ENSURE_NEAR(alcm_m3_ddot(Q[k], Q[l]), k == l ? 1.0 : 0.0, 1e-13);
                }
            }
            // sum_k lam_k vec(Q_k) vec(Q_k)^T = d2Psi/dF2
            double Hf[81], Hr[81];
            fdHessF(model, mu, lambda, F, Hf);
            for (int r = 0; r < 9; r++) {
                for (int c = 0; c < 9; c++) {
                    double s = 0;
                    for (int k = 0; k < 9; k++) s += e.lam[k] * Q[k].m[r] * Q[k].m[c];
                    Hr[9 * r + c] = s;
                }
            }
            double rel = maxDiffN(Hf, Hr, 81) / maxAbsN(Hf, 81);
            worst = fmax(worst, rel);
            ENSURE_MSG(rel < 1e-6, "%s it %d: eigen reconstruction rel err %g", kModelName[model],
                       it, rel);
        }
    }
    alct_note("worst relative error of sum lam Q Q^T vs FD d2Psi/dF2: %.2e", worst);
    return ALC_TEST_PASS;
}

ALC_TEST(elastic_hessianFD) {
    rngSeed(9);
    double worst = 0;
    for (int model = 0; model < NMODEL; model++) {
        for (int it = 0; it < 200; it++) {
            double mu, lambda;
            lame(urand(1e4, 1e7), it % 2 ? 0.3 : 0.45, &mu, &lambda);
            alcV3 X[4], x[4];
            alcM3 Dminv;
            double vol;
            randRestTet(X, &Dminv, &vol);
            deform(X, it == 0 ? alcm_m3_identity() : makeF(randSigma(it, model != ALCM_NH)), x);
            double H[144], Hfd[144];
            alcm_tet_hessian(model, mu, lambda, vol, Dminv, x, H, false);
            const double h = 1e-6;
            for (int d = 0; d < 12; d++) {
                alcV3 xp[4], xm[4];
                memcpy(xp, x, sizeof xp);
                memcpy(xm, x, sizeof xm);
                (&xp[d / 3].x)[d % 3] += h;
                (&xm[d / 3].x)[d % 3] -= h;
                double gp[12], gm[12];
                alcm_tet_gradient(model, mu, lambda, vol, Dminv, xp, gp);
                alcm_tet_gradient(model, mu, lambda, vol, Dminv, xm, gm);
                for (int r = 0; r < 12; r++) Hfd[12 * r + d] = (gp[r] - gm[r]) / (2 * h);
            }
            double rel = maxDiffN(H, Hfd, 144) / maxAbsN(H, 144);
            worst = fmax(worst, rel);
            ENSURE_MSG(rel < 1e-6, "%s it %d: Hessian rel err %g", kModelName[model], it, rel);
            // symmetric, and translations are in the null space (rows sum to zero per component)
            for (int r = 0; r < 12; r++) {
                double rowsum[3] = {0, 0, 0};
                for (int c = 0; c < 12; c++) {
                    ENSURE_NEAR(H[12 * r + c], H[12 * c + r], 1e-13 * maxAbsN(H, 144));
                    rowsum[c % 3] += H[12 * r + c];
                }
                for (int k = 0; k < 3; k++) ENSURE_SMALL(rowsum[k], 1e-12 * maxAbsN(H, 144));
            }
        }
    }
    alct_note("worst relative unprojected Hessian error vs FD of the gradient: %.2e", worst);
    return ALC_TEST_PASS;
}

ALC_TEST(elastic_projectedPSD) {
    rngSeed(10);
    int nActive = 0;
    for (int model = 0; model < NMODEL; model++) {
        for (int it = 0; it < 300; it++) {
            double mu, lambda;
            lame(1e6, it % 2 ? 0.3 : 0.45, &mu, &lambda);
            alcV3 X[4], x[4];
            alcM3 Dminv;
            double vol;
            randRestTet(X, &Dminv, &vol);
            // strong compression, shear and (invertible models) inversion
            alcV3 sg = alcm_v3(urand(0.3, 2.5), urand(0.3, 2.5), urand(0.3, 2.5));
            if (model != ALCM_NH && it % 3 == 0) sg.z = -urand(0.05, 0.3);
            deform(X, makeF(sg), x);
            double H[144], Hu[144], ev[12];
            alcm_tet_hessian(model, mu, lambda, vol, Dminv, x, H, true);
            alcm_tet_hessian(model, mu, lambda, vol, Dminv, x, Hu, false);
            double hn = maxAbsN(H, 144);
            jacobiN(H, 12, ev);
            ENSURE_MSG(minN(ev, 12) >= -1e-9 * hn, "%s it %d: min eig %g (|H| %g)",
                       kModelName[model], it, minN(ev, 12), hn);
            // count cases where the projection actually removed a negative direction
            jacobiN(Hu, 12, ev);
            if (minN(ev, 12) < -1e-6 * hn) nActive++;
        }
    }
    alct_note("%d of %d cases had an indefinite unprojected Hessian", nActive, 300 * NMODEL);
    ENSURE(nActive > 50);
    return ALC_TEST_PASS;
}

ALC_TEST(elastic_projectedEqualsExact) {
    rngSeed(11);
    int nChecked = 0, nClamped = 0;
    for (int model = 0; model < NMODEL; model++) {
        for (int it = 0; it < 300; it++) {
            double mu, lambda;
            lame(1e6, urand(0.2, 0.45), &mu, &lambda);
            alcV3 X[4], x[4];
            alcM3 Dminv;
            double vol;
            randRestTet(X, &Dminv, &vol);
            // near-rest stretches (all s > 1); most have every lam_k >= 0
            alcV3 sg = alcm_v3(urand(1.001, 1.05), urand(1.001, 1.05), urand(1.001, 1.05));
            // and some compressions, which make modes negative
            if (it % 4 == 3) sg = alcm_v3(urand(0.4, 0.7), urand(0.4, 0.7), urand(0.4, 0.7));
            alcM3 F = makeF(sg);
            deform(X, F, x);
            alcTetEigen e;
            alcm_tet_eigen(model, mu, lambda, F, &e, false);
            bool allPos = true;
            for (int k = 0; k < 9; k++) allPos = allPos && e.lam[k] >= 0;
            double H[144], Hu[144];
            alcm_tet_hessian(model, mu, lambda, vol, Dminv, x, H, true);
            alcm_tet_hessian(model, mu, lambda, vol, Dminv, x, Hu, false);
            if (allPos) {
                // nothing to clamp: identical
                ENSURE(maxDiffN(H, Hu, 144) <= 1e-14 * maxAbsN(Hu, 144));
                nChecked++;
            } else {
                // A^T is injective, so a clamped mode always changes the 12x12 Hessian
                ENSURE(maxDiffN(H, Hu, 144) > 1e-12 * maxAbsN(Hu, 144));
                nClamped++;
            }
        }
    }
    // and the projection changes the Hessian when a mode is negative (compressed SNH)
    double mu, lambda;
    lame(1e6, 0.3, &mu, &lambda);
    alcTetEigen e;
    alcm_tet_eigen(ALCM_SNH, mu, lambda, alcm_m3_diag(0.5, 0.5, 0.5), &e, false);
    double mn = e.lam[0];
    for (int k = 1; k < 9; k++) mn = fmin(mn, e.lam[k]);
    ENSURE(mn < 0);
    double exact[9];
    for (int k = 0; k < 9; k++) exact[k] = e.lam[k];
    alcm_tet_eigen(ALCM_SNH, mu, lambda, alcm_m3_diag(0.5, 0.5, 0.5), &e, ALCM_EIG_CLAMP);
    for (int k = 0; k < 9; k++) ENSURE(e.lam[k] == fmax(exact[k], 0));
    // absolute filtering (solver.eigen_filter: abs): the magnitudes, same eigenvectors
    alcTetEigen ea;
    alcm_tet_eigen(ALCM_SNH, mu, lambda, alcm_m3_diag(0.5, 0.5, 0.5), &ea, ALCM_EIG_ABS);
    for (int k = 0; k < 9; k++) ENSURE(ea.lam[k] == fabs(exact[k]));
    ENSURE(maxDiffN(ea.W.m, e.W.m, 9) == 0 && maxDiffN(ea.U.m, e.U.m, 9) == 0);
    alct_note("%d of %d cases had all lam_k >= 0, %d had clamped modes", nChecked, 300 * NMODEL,
              nClamped);
    ENSURE(nChecked >= 450 && nClamped >= 100);
    return ALC_TEST_PASS;
}

ALC_TEST(elastic_hessianBlock) {
    rngSeed(12);
    double worst = 0;
    for (int model = 0; model < NMODEL; model++) {
        for (int it = 0; it < 300; it++) {
            double mu, lambda;
            lame(1e6, it % 2 ? 0.3 : 0.45, &mu, &lambda);
            alcV3 X[4], x[4];
            alcM3 Dminv;
            double vol;
            randRestTet(X, &Dminv, &vol);
            alcV3 sg = alcm_v3(urand(0.3, 2.5), urand(0.3, 2.5), urand(0.3, 2.5));
            if (model != ALCM_NH && it % 3 == 0) sg.z = -urand(0.05, 0.3);
            if (it == 0) sg = alcm_v3(1, 1, 1);
            deform(X, makeF(sg), x);
            for (int proj = 0; proj < 2; proj++) {
                double H[144];
                alcm_tet_hessian(model, mu, lambda, vol, Dminv, x, H, proj != 0);
                alcTetEigen e;
                alcm_tet_eigen(model, mu, lambda, alcm_tet_F(x, Dminv), &e, proj != 0);
                double hn = maxAbsN(H, 144);
                for (int a = 0; a < 4; a++) {
                    for (int b = 0; b < 4; b++) {
                        alcM3 B;
                        alcm_tet_hessianBlock(&e, vol, Dminv, a, b, &B);
                        for (int k = 0; k < 3; k++) {
                            for (int l = 0; l < 3; l++) {
                                double d = fabs(B.m[3 * k + l] - H[12 * (3 * a + k) + 3 * b + l]);
                                worst = fmax(worst, d / hn);
                                ENSURE_MSG(d <= 1e-12 * hn, "%s it %d block (%d,%d): %g",
                                           kModelName[model], it, a, b, d / hn);
                            }
                        }
                    }
                }
            }
        }
    }
    alct_note("worst relative block difference vs the 12x12 Hessian: %.2e", worst);
    return ALC_TEST_PASS;
}

// ---------------------------------------------------------------------------------------------
// inversion step bound
// ---------------------------------------------------------------------------------------------

static double tetVol6(const alcV3 x[4], const alcV3 p[4], double a) {
    alcV3 y[4];
    for (int i = 0; i < 4; i++) y[i] = alcm_v3_mad(x[i], a, p[i]);
    return alcm_v3_triple(alcm_v3_sub(y[1], y[0]), alcm_v3_sub(y[2], y[0]),
                          alcm_v3_sub(y[3], y[0]));
}

/// A random rest tetrahedron x and a random direction p per vertex, of three magnitudes in turn.
static void randTetMotion(int it, alcV3 x[4], alcV3 p[4]) {
    alcM3 Dminv;
    double vol;
    randRestTet(x, &Dminv, &vol);
    double ps = it % 3 == 0 ? 0.3 : (it % 3 == 1 ? 1.0 : 3.0);
    for (int i = 0; i < 4; i++) p[i] = randV3(-ps, ps);
}

ALC_TEST(maxStep_random) {
    rngSeed(13);
    int nCross = 0;
    for (int it = 0; it < 3000; it++) {
        alcV3 x[4], p[4];
        randTetMotion(it, x, p);
        double fraction = it % 2 ? 0.2 : urand(0.01, 0.9);
        double alpha = alcm_tet_maxStep(x, p, fraction);
        ENSURE(alpha >= 0 && alpha <= 1);
        double v0 = tetVol6(x, p, 0), tol = 1e-12 * fmax(v0, 1);
        // every sample in [0, alpha] keeps the volume above fraction * vol0
        for (int s = 0; s <= 1000; s++) {
            double a = alpha * s / 1000.0;
            ENSURE_MSG(tetVol6(x, p, a) >= fraction * v0 - tol, "it %d: vol(%g) = %g < %g", it, a,
                       tetVol6(x, p, a), fraction * v0);
        }
        // close to maximal: just past alpha the bound is violated (or alpha == 1)
        if (alpha < 1) {
            nCross++;
            double a = fmin(1.0, alpha * (1 + 1e-6) + 1e-12);
            ENSURE_MSG(tetVol6(x, p, a) < fraction * v0, "it %d: alpha %g not maximal", it, alpha);
        } else {
            for (int s = 0; s <= 1000; s++) {
                ENSURE(tetVol6(x, p, s / 1000.0) >= fraction * v0 - tol);
            }
        }
    }
    alct_note("%d of 3000 random directions crossed the volume bound", nCross);
    ENSURE(nCross > 300 && nCross < 2900);
    return ALC_TEST_PASS;
}

ALC_TEST(endStep_random) {
    // alcm_tet_endStepTo: alpha itself when its end point is above the target, else a point
    // above it with the whole stretch from there to alpha at or below it (up to the bisection's
    // tolerance), and never below the whole segment's bound
    rngSeed(29);
    int nPast = 0, nBack = 0;
    for (int it = 0; it < 3000; it++) {
        alcV3 x[4], p[4];
        randTetMotion(it, x, p);
        double v0 = tetVol6(x, p, 0), target = (it % 2 ? 0.2 : urand(0.01, 0.9)) * v0;
        double tol = 1e-12 * fmax(v0, 1);
        double amax = it % 4 ? 1.0 : urand(0.05, 1);
        double a = alcm_tet_endStepTo(x, p, target, amax);
        double path = fmin(alcm_tet_maxStepTo(x, p, target), amax);
        ENSURE_MSG(a >= 0 && a <= amax && a >= path * (1 - 1e-8), "it %d: %g of %g (path %g)", it,
                   a, amax, path);
        ENSURE_MSG(tetVol6(x, p, a) > target - tol, "it %d: end point below target", it);
        if (a == amax) {
            if (path < amax) nPast++;  // the segment dips below the target and comes back
            continue;
        }
        nBack++;
        for (int k = 1; k <= 200; k++) {
            double b = a + (amax - a) * k / 200.0;
            if (b - a <= 1e-8 * amax) continue;
            ENSURE_MSG(tetVol6(x, p, b) <= target + tol, "it %d: %g above target in (%g, %g]", it,
                       b, a, amax);
        }
    }
    alct_note("3000 random directions: %d end points past a dip, %d moved back", nPast, nBack);
    ENSURE(nPast > 30 && nBack > 300);
    // the 180-degree turn about z: the volume (1 - 2a)^2 vol0 vanishes at a = 0.5 and is back at
    // a = 1; the end point a = 1 is valid, a = 0.5 is not and goes back to 1 - sqrt(f) / 2
    alcV3 xt[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, pt[4];
    for (int i = 0; i < 4; i++) pt[i] = alcm_v3(-2 * xt[i].x, -2 * xt[i].y, 0);
    double f = 0.2, t0 = 0.2 * tetVol6(xt, pt, 0);
    ENSURE(alcm_tet_endStepTo(xt, pt, t0, 1.0) == 1.0);
    double ex = (1 - sqrt(f)) / 2, a = alcm_tet_endStepTo(xt, pt, t0, 0.5);
    ENSURE_MSG(a <= ex && a >= ex * (1 - 1e-8), "turn: %.17g vs %.17g", a, ex);
    // already at or below the target: 0
    ENSURE(alcm_tet_endStepTo(xt, pt, tetVol6(xt, pt, 0), 1.0) == 0.0);
    return ALC_TEST_PASS;
}

ALC_TEST(maxStep_degenerate) {
    alcV3 x[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    alcV3 p[4] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    // p = 0 and pure translation: no crossing
    ENSURE(alcm_tet_maxStep(x, p, 0.2) == 1.0);
    for (int i = 0; i < 4; i++) p[i] = alcm_v3(3, -7, 2);
    ENSURE(alcm_tet_maxStep(x, p, 0.2) == 1.0);
    // linear: vertex 3 moves down, vol(a) = (1 - 2a) / 6, crossing at a = 0.4
    for (int i = 0; i < 4; i++) p[i] = alcm_v3(0, 0, 0);
    p[3] = alcm_v3(0.3, -0.2, -2);
    double a = alcm_tet_maxStep(x, p, 0.2);
    ENSURE(a <= 0.4 && a >= 0.4 * (1 - 1e-8));
    // linear but no crossing within [0, 1]
    p[3] = alcm_v3(0, 0, -0.5);
    ENSURE(alcm_tet_maxStep(x, p, 0.2) == 1.0);
    // quadratic: vertices 2 and 3 move towards the x axis, vol = (1 - a)^2 / 6 -> 1 - sqrt(f)
    p[2] = alcm_v3(0, -1, 0);
    p[3] = alcm_v3(0, 0, -1);
    double f = 0.2, ex = 1 - sqrt(f);
    a = alcm_tet_maxStep(x, p, f);
    ENSURE_MSG(a <= ex && a >= ex * (1 - 1e-8), "quadratic: %.17g vs %.17g", a, ex);
    // cubic, uniform contraction about the origin: vol = (1 - 1.5 a)^3 vol0
    for (int i = 0; i < 4; i++) p[i] = alcm_v3_scale(x[i], -1.5);
    ex = (1 - cbrt(f)) / 1.5;
    a = alcm_tet_maxStep(x, p, f);
    ENSURE_MSG(a <= ex && a >= ex * (1 - 1e-8), "cubic: %.17g vs %.17g", a, ex);
    // dip and recover: rotating 180 deg about z linearly collapses the tet at a = 0.5 and
    // restores it at a = 1; the first crossing (1 - 2a)^2 = f must be found
    for (int i = 0; i < 4; i++) p[i] = alcm_v3(-2 * x[i].x, -2 * x[i].y, 0);
    ex = (1 - sqrt(f)) / 2;
    a = alcm_tet_maxStep(x, p, f);
    ENSURE_MSG(a <= ex && a >= ex * (1 - 1e-8), "dip: %.17g vs %.17g", a, ex);
    ENSURE(tetVol6(x, p, 1.0) > 0.9);
    // nearly-vanishing cubic / quadratic coefficients: tiny perturbation of the linear case
    for (int i = 0; i < 4; i++) p[i] = alcm_v3(1e-9 * i, -1e-10 * i, 1e-9);
    p[3] = alcm_v3(1e-9, 1e-9, -2);
    a = alcm_tet_maxStep(x, p, 0.2);
    ENSURE(a < 0.4 && fabs(a - 0.4) < 1e-6);
    for (int s = 0; s <= 1000; s++) ENSURE(tetVol6(x, p, a * s / 1000) >= 0.2 - 1e-12);
    // huge step: crossing very close to 0 is still found conservatively
    p[3] = alcm_v3(0, 0, -1e8);
    a = alcm_tet_maxStep(x, p, 0.2);
    ENSURE(a > 0 && a <= 0.8e-8 && a >= 0.8e-8 * (1 - 1e-8));
    // fraction >= 1: no admissible step
    ENSURE(alcm_tet_maxStep(x, p, 1.0) == 0.0);
    // already inverted or degenerate input: documented to return 1
    alcV3 xi[4] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}};
    ENSURE(alcm_tet_maxStep(xi, p, 0.2) == 1.0);
    alcV3 xd[4] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 0, 1}};
    ENSURE(alcm_tet_maxStep(xd, p, 0.2) == 1.0);
    return ALC_TEST_PASS;
}

ALC_TEST(maxStep_belowInversionFloor) {
    // the unit right tetrahedron (rest volume 1/6) flattened to 1e-5 of it, below ALC_INV_FLOOR
    const double rest = 1.0 / 6, h = 1e-5;
    alcV3 x[4] = {alcm_v3(0, 0, 0), alcm_v3(1, 0, 0), alcm_v3(0, 1, 0), alcm_v3(0, 0, h)};
    alcV3 up[4] = {alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, 0.5)};
    alcV3 down[4] = {alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, -h)};
    alcV3 slide[4] = {alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0.3, 0.2, 0)};
    double v6 = tetVol6(x, up, 0);
    ENSURE(v6 < ALC_INV_FLOOR * 6 * rest);
    double target = alcm_tet_invTarget(v6, 0.2, rest);
    ENSURE_MSG(fabs(target - ALC_INV_FLOOR_KEEP * v6) <= 1e-15 * v6, "target %.17g", target);
    // growing back is free (the bound was 0 in every direction before issue 14's fix)
    ENSURE(alcm_tet_maxStepTo(x, up, target) == 1.0);
    // sliding the apex parallel to the base keeps the volume: free
    ENSURE(alcm_tet_maxStepTo(x, slide, target) == 1.0);
    // flattening further: stopped where it keeps ALC_INV_FLOOR_KEEP of its volume
    double a = alcm_tet_maxStepTo(x, down, target);
    ENSURE_MSG(a > 0.09 && a < 0.1 && tetVol6(x, down, a) >= target, "alpha %.17g", a);
    // above the floor: IPC's fraction of the current volume, or the floor when that is lower
    ENSURE(alcm_tet_invTarget(6 * rest, 0.2, rest) == 0.2 * 6 * rest);
    ENSURE(alcm_tet_invTarget(2 * ALC_INV_FLOOR * 6 * rest, 0.2, rest) == ALC_INV_FLOOR * 6 * rest);
    return ALC_TEST_PASS;
}

ALC_TEST(elastic_restInverse) {
    alcV3 X[4] = {{0, 0, 0}, {2, 0, 0}, {0, 1, 0}, {0, 0, 3}};
    alcM3 Dminv;
    double vol;
    ENSURE(alcm_tet_restInverse(X, &Dminv, &vol));
    ENSURE_NEAR(vol, 1.0, 1e-15);
    ENSURE(maxAbsM3(alcm_m3_sub(Dminv, alcm_m3_diag(0.5, 1, 1.0 / 3))) < 1e-15);
    ENSURE(maxAbsM3(alcm_m3_sub(alcm_tet_F(X, Dminv), alcm_m3_identity())) < 1e-15);
    // A_0 = -(A_1 + A_2 + A_3), A_a = row a-1
    alcV3 a0 = alcm_tet_A(Dminv, 0);
    ENSURE(a0.x == -0.5 && a0.y == -1 && fabs(a0.z + 1.0 / 3) < 1e-16);
    ENSURE(alcm_tet_A(Dminv, 2).y == 1);
    // inverted and flat tets are rejected
    alcV3 Xi[4] = {{0, 0, 0}, {0, 1, 0}, {2, 0, 0}, {0, 0, 3}};
    ENSURE(!alcm_tet_restInverse(Xi, &Dminv, &vol));
    alcV3 Xf[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
    ENSURE(!alcm_tet_restInverse(Xf, &Dminv, &vol));
    return ALC_TEST_PASS;
}

ALC_TEST(elastic_linearization) {
    // all models linearize at F = I to linear elasticity with Lame (mu, lambda):
    // Psi(I + H) = mu |sym H|^2 + lambda/2 tr(H)^2 + O(|H|^3)  (SNH through lam2 = lambda + mu)
    rngSeed(14);
    for (int model = 0; model < NMODEL; model++) {
        for (int it = 0; it < 200; it++) {
            double mu, lambda;
            lame(1e6, urand(0.0, 0.49), &mu, &lambda);
            alcM3 H;
            for (int i = 0; i < 9; i++) H.m[i] = urand(-1, 1);
            const double eps = 1e-4;
            H = alcm_m3_scale(H, eps);
            alcM3 S = alcm_m3_scale(alcm_m3_add(H, alcm_m3_transpose(H)), 0.5);
            double tr = alcm_m3_trace(H);
            double lin = mu * alcm_m3_ddot(S, S) + 0.5 * lambda * tr * tr;
            double psi = alcm_psi(model, mu, lambda, alcm_m3_add(alcm_m3_identity(), H));
            ENSURE_MSG(fabs(psi - lin) <= 1e-3 * lin, "%s: psi %g vs linear %g", kModelName[model],
                       psi, lin);
        }
    }
    return ALC_TEST_PASS;
}

// ---------------------------------------------------------------------------------------------
// fixed corotated (FCR): inverted and near-singular elements
// ---------------------------------------------------------------------------------------------

ALC_TEST(elastic_fcrFormulas) {
    // Psi = mu sum (s_i - 1)^2 + lambda/2 (J - 1)^2 at known F, inverted ones included
    double mu, lambda;
    lame(1e6, 0.4, &mu, &lambda);
    const double sv[][3] = {{1, 1, 1},        {1.2, 0.9, 0.7},  {1, 1, -1},    {1.5, 1, 0},
                            {0.8, 0.6, -0.2}, {2, 1e-3, -1e-4}, {1, 0.5, -0.5}};
    for (int c = 0; c < (int)(sizeof sv / sizeof sv[0]); c++) {
        alcV3 s = alcm_v3_load(sv[c]);
        double J = sv[c][0] * sv[c][1] * sv[c][2];
        double ex = 0.5 * lambda * (J - 1) * (J - 1);
        for (int i = 0; i < 3; i++) ex += mu * (sv[c][i] - 1) * (sv[c][i] - 1);
        ENSURE_NEAR(alcm_psi_sigma(ALCM_FCR, mu, lambda, s), ex, 1e-12 * (ex + mu));
        ENSURE_NEAR(alcm_psi(ALCM_FCR, mu, lambda, makeF(s)), ex, 1e-12 * (ex + mu));
        // P = U diag(Psi_i) V^T, and P of a rotated F is the rotated P (where the signed polar
        // rotation is unique: s_2 + s_3 != 0)
        alcV3 d = alcm_psi_dsigma(ALCM_FCR, mu, lambda, s);
        alcM3 P = alcm_psi_P(ALCM_FCR, mu, lambda, alcm_m3_diag(s.x, s.y, s.z));
        alcM3 Pd = alcm_m3_diag(d.x, d.y, d.z);
        ENSURE_MSG(maxAbsM3(alcm_m3_sub(P, Pd)) <= 1e-12 * (maxAbsM3(Pd) + mu), "case %d: P", c);
        if (s.y + s.z == 0) continue;
        alcM3 R1 = randRot(), R2 = randRot();
        alcM3 Pr = alcm_psi_P(ALCM_FCR, mu, lambda,
                              alcm_m3_mul(alcm_m3_mul(R1, alcm_m3_diag(s.x, s.y, s.z)), R2));
        alcM3 Pe = alcm_m3_mul(alcm_m3_mul(R1, Pd), R2);
        ENSURE_MSG(maxAbsM3(alcm_m3_sub(Pr, Pe)) <= 1e-10 * (maxAbsM3(Pd) + mu),
                   "case %d: rotated P", c);
    }
    // sigma-Hessian: diagonal 2 mu + lambda (s_j s_k)^2, off-diagonal lambda s_k (2J - 1)
    alcV3 s = alcm_v3(1.3, 0.8, -0.4);
    double J = s.x * s.y * s.z;
    alcM3 H = alcm_psi_d2sigma(ALCM_FCR, mu, lambda, s);
    ENSURE_NEAR(H.m[0], 2 * mu + lambda * alcm_sq(s.y * s.z), 1e-12 * mu);
    ENSURE_NEAR(H.m[4], 2 * mu + lambda * alcm_sq(s.x * s.z), 1e-12 * mu);
    ENSURE_NEAR(H.m[8], 2 * mu + lambda * alcm_sq(s.x * s.y), 1e-12 * mu);
    ENSURE_NEAR(H.m[1], lambda * s.z * (2 * J - 1), 1e-12 * mu);
    ENSURE_NEAR(H.m[5], lambda * s.x * (2 * J - 1), 1e-12 * mu);
    ENSURE_NEAR(H.m[6], lambda * s.y * (2 * J - 1), 1e-12 * mu);
    // flip 2 mu - lambda (J - 1) s_k, twist 2 mu + lambda (J - 1) s_k - 4 mu / (s_i + s_j)
    alcTetEigen e;
    alcm_tet_eigen(ALCM_FCR, mu, lambda, makeF(s), &e, false);
    double svv[3] = {s.x, s.y, s.z};
    for (int m = 0; m < 3; m++) {
        int i, j;
        alcm_tetEigen_pair(m, &i, &j);
        double lj = lambda * (J - 1);
        ENSURE_NEAR(e.lam[6 + m], 2 * mu - lj * svv[m], 1e-9 * mu);
        ENSURE_NEAR(e.lam[3 + m], 2 * mu + lj * svv[m] - 4 * mu / (svv[i] + svv[j]), 1e-9 * mu);
    }
    // s_1 + s_2 = 0 (polar decomposition undefined): the twist is regularized, finite, and
    // clamped to zero by the projection
    alcm_tet_eigen(ALCM_FCR, mu, lambda, alcm_m3_diag(1, 0.5, -0.5), &e, false);
    for (int k = 0; k < 9; k++) ENSURE(isfinite(e.lam[k]));
    ENSURE(e.lam[3] < -1e3 * mu);
    alcm_tet_eigen(ALCM_FCR, mu, lambda, alcm_m3_diag(1, 0.5, -0.5), &e, true);
    for (int k = 0; k < 9; k++) ENSURE(e.lam[k] >= 0 && isfinite(e.lam[k]));
    return ALC_TEST_PASS;
}

ALC_TEST(elastic_fcrInvertedFD) {
    // gradient and unprojected Hessian against central differences through J = 0: inverted,
    // flat and near-singular F (s_2 + s_3 kept away from 0, where the Hessian is singular)
    rngSeed(15);
    double worstG = 0, worstH = 0;
    for (int it = 0; it < 400; it++) {
        double mu, lambda;
        lame(urand(1e4, 1e7), it % 2 ? 0.3 : 0.45, &mu, &lambda);
        alcV3 X[4], x[4];
        alcM3 Dminv;
        double vol;
        randRestTet(X, &Dminv, &vol);
        alcV3 sg;
        switch (it % 5) {
            case 0:
                sg = alcm_v3(urand(0.8, 1.5), urand(0.5, 0.7), -urand(0.05, 0.45));
                break;
            case 1:
                sg = alcm_v3(urand(0.8, 1.5), urand(0.5, 0.7), urand(-1e-3, 1e-3));
                break;
            case 2:
                sg = alcm_v3(urand(0.8, 1.5), urand(0.3, 0.6), 0.0);
                break;
            case 3:
                sg = alcm_v3(urand(0.3, 0.6), urand(0.1, 0.2), 0);
                sg.z = -urand(0.3, 0.6) * sg.y;
                break;
            default:  // F = -(stretch): signed (|s_0|, |s_1|, -|s_2|), magnitudes kept apart
                sg = alcm_v3(-urand(1.5, 2.0), -urand(0.9, 1.2), -urand(0.3, 0.6));
                break;
        }
        deform(X, makeF(sg), x);
        double g[12], gfd[12], H[144], Hfd[144];
        alcm_tet_gradient(ALCM_FCR, mu, lambda, vol, Dminv, x, g);
        alcm_tet_hessian(ALCM_FCR, mu, lambda, vol, Dminv, x, H, false);
        const double h = 1e-6;
        for (int d = 0; d < 12; d++) {
            alcV3 xp[4], xm[4];
            memcpy(xp, x, sizeof xp);
            memcpy(xm, x, sizeof xm);
            (&xp[d / 3].x)[d % 3] += h;
            (&xm[d / 3].x)[d % 3] -= h;
            gfd[d] = (alcm_tet_energy(ALCM_FCR, mu, lambda, vol, Dminv, xp) -
                      alcm_tet_energy(ALCM_FCR, mu, lambda, vol, Dminv, xm)) /
                     (2 * h);
            double gp[12], gm[12];
            alcm_tet_gradient(ALCM_FCR, mu, lambda, vol, Dminv, xp, gp);
            alcm_tet_gradient(ALCM_FCR, mu, lambda, vol, Dminv, xm, gm);
            for (int r = 0; r < 12; r++) Hfd[12 * r + d] = (gp[r] - gm[r]) / (2 * h);
        }
        double rg = maxDiffN(g, gfd, 12) / maxAbsN(g, 12);
        double rh = maxDiffN(H, Hfd, 144) / maxAbsN(H, 144);
        worstG = fmax(worstG, rg);
        worstH = fmax(worstH, rh);
        ENSURE_MSG(rg < 1e-5, "it %d (%g %g %g): gradient rel err %g", it, sg.x, sg.y, sg.z, rg);
        ENSURE_MSG(rh < 1e-5, "it %d (%g %g %g): Hessian rel err %g", it, sg.x, sg.y, sg.z, rh);
        // the projected Hessian is PSD, and the energy pushes an inverted tet back: the gradient
        // is not zero there
        alcm_tet_hessian(ALCM_FCR, mu, lambda, vol, Dminv, x, H, true);
        double ev[12];
        jacobiN(H, 12, ev);
        ENSURE_MSG(minN(ev, 12) >= -1e-9 * maxAbsN(H, 144), "it %d: min eig %g", it, minN(ev, 12));
        ENSURE(maxAbsN(g, 12) > 0);
    }
    alct_note("FCR through inversion: worst gradient %.2e, Hessian %.2e relative FD error", worstG,
              worstH);
    return ALC_TEST_PASS;
}
