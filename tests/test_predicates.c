// Exact orientation predicates against slow exact references: 128-bit integer arithmetic on
// integer-scaled inputs, and the big-integer path on extreme exponents. The adversarial sets
// are checked to fool a plain double evaluation, so the tests can tell exact from naive.
#include "exact_predicates.h"
#include "test_macros.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

__extension__ typedef __int128 i128;

// ---- fixed-seed generator --------------------------------------------------------------------

static uint64_t g_rng;

static uint64_t rnd(void) {
    // splitmix64
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// uniform integer in [lo, hi]
static int64_t rndInt(int64_t lo, int64_t hi) {
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

// ---- references ------------------------------------------------------------------------------

// sign of det[b-a, c-a, d-a] for integer coordinates |v| < 2^53 (differences < 2^54):
// det = sum_k x_k m_k with |m_k| < 2^109; split m_k = mh_k 2^64 + ml_k and add the halves
static int refOrient3d(const int64_t* a, const int64_t* b, const int64_t* c, const int64_t* d) {
    i128 ba[3], ca[3], da[3];
    for (int k = 0; k < 3; k++) {
        ba[k] = (i128)b[k] - a[k];
        ca[k] = (i128)c[k] - a[k];
        da[k] = (i128)d[k] - a[k];
    }
    i128 hi = 0, lo = 0;
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        i128 m = ca[k1] * da[k2] - ca[k2] * da[k1];
        i128 mh = m >> 64;                   // floor(m / 2^64)
        i128 ml = m - mh * ((i128)1 << 64);  // in [0, 2^64)
        hi += ba[k] * mh;
        lo += ba[k] * ml;
    }
    hi += lo >> 64;
    lo -= (lo >> 64) * ((i128)1 << 64);
    if (hi != 0) return hi > 0 ? 1 : -1;
    return lo > 0 ? 1 : 0;
}

// sign of det[b-a, c-a] for integer coordinates |v| < 2^61
static int refOrient2d(const int64_t* a, const int64_t* b, const int64_t* c) {
    i128 det =
        ((i128)b[0] - a[0]) * ((i128)c[1] - a[1]) - ((i128)b[1] - a[1]) * ((i128)c[0] - a[0]);
    return det > 0 ? 1 : (det < 0 ? -1 : 0);
}

// plain double evaluation, the way a naive code would do it
static int naiveOrient3d(const double* a, const double* b, const double* c, const double* d) {
    double ba[3], ca[3], da[3];
    for (int k = 0; k < 3; k++) {
        ba[k] = b[k] - a[k];
        ca[k] = c[k] - a[k];
        da[k] = d[k] - a[k];
    }
    double det = ba[0] * (ca[1] * da[2] - ca[2] * da[1]) + ba[1] * (ca[2] * da[0] - ca[0] * da[2]) +
                 ba[2] * (ca[0] * da[1] - ca[1] * da[0]);
    return det > 0 ? 1 : (det < 0 ? -1 : 0);
}

static int naiveOrient2d(const double* a, const double* b, const double* c) {
    double det = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    return det > 0 ? 1 : (det < 0 ? -1 : 0);
}

static void toDouble(const int64_t* v, int n, int e, double* out) {
    for (int k = 0; k < n; k++) out[k] = ldexp((double)v[k], e);
}

// a near-coplanar quadruple: a, b, c random integers of `bits` bits, d = a + s (b-a) + t (c-a)
// for small integer s, t, then nudged by -1, 0 or +1 in one coordinate (1 ulp at 2^52)
static void nearCoplanar(int bits, int64_t p[4][3]) {
    for (;;) {
        int64_t lo = (int64_t)1 << (bits - 1), hi = ((int64_t)1 << bits) - 1;
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < 3; k++) p[i][k] = rndInt(lo, hi) * (rnd() & 1 ? 1 : -1);
        }
        int64_t s = rndInt(-2, 2), t = rndInt(-2, 2);
        bool ok = true;
        for (int k = 0; k < 3; k++) {
            i128 v = (i128)p[0][k] + (i128)s * (p[1][k] - p[0][k]) + (i128)t * (p[2][k] - p[0][k]);
            if (v >= ((i128)1 << 52) || v <= -((i128)1 << 52)) ok = false;
            p[3][k] = (int64_t)v;
        }
        if (!ok) continue;
        p[3][rndInt(0, 2)] += rndInt(-1, 1);
        return;
    }
}

// ---- tests -----------------------------------------------------------------------------------

ALC_TEST(predicates_orientation_convention) {
    double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0}, d[3] = {0, 0, 1};
    ENSURE(alci_orient3d_exact(a, b, c, d) == 1);
    ENSURE(alci_orient3d_exact(a, c, b, d) == -1);
    ENSURE(alci_orient3d_exact(a, b, c, a) == 0);
    double p[2] = {0, 0}, q[2] = {1, 0}, r[2] = {0, 1};
    ENSURE(alci_orient2d_exact(p, q, r) == 1);
    ENSURE(alci_orient2d_exact(p, r, q) == -1);
    ENSURE(alci_orient2d_exact(p, q, q) == 0);

    // NaN and Inf inputs give 0
    double n[3] = {NAN, 0, 0}, inf[3] = {INFINITY, 0, 0};
    ENSURE(alci_orient3d_exact(a, b, c, n) == 0);
    ENSURE(alci_orient3d_exact(inf, b, c, d) == 0);
    double n2[2] = {0, NAN};
    ENSURE(alci_orient2d_exact(p, q, n2) == 0);
    return ALC_TEST_PASS;
}

ALC_TEST(predicates_random_vs_int128) {
    g_rng = 1;
    int wrong = 0;

    // generic random inputs at several scales (mostly decided by the filter)
    for (int it = 0; it < 20000; it++) {
        int64_t p[4][3];
        int bits = (int)rndInt(2, 52);
        for (int i = 0; i < 4; i++) {
            for (int k = 0; k < 3; k++) p[i][k] = rndInt(-((int64_t)1 << bits), (int64_t)1 << bits);
        }
        int e = (int)rndInt(-80, 20);
        double x[4][3];
        for (int i = 0; i < 4; i++) toDouble(p[i], 3, e, x[i]);
        int ref = refOrient3d(p[0], p[1], p[2], p[3]);
        if (alci_orient3d_exact(x[0], x[1], x[2], x[3]) != ref) wrong++;
        if (alci_orient3d_expansion(x[0], x[1], x[2], x[3]) != ref) wrong++;
        if (alci_orient3d_bigint(x[0], x[1], x[2], x[3]) != ref) wrong++;
    }
    ENSURE_MSG(wrong == 0, "%d wrong signs", wrong);
    return ALC_TEST_PASS;
}

ALC_TEST(predicates_near_coplanar_3d) {
    g_rng = 2;
    int wrong = 0, wrongExp = 0, wrongBig = 0, naiveWrong = 0, zeros = 0;
    const int n = 20000;
    for (int it = 0; it < n; it++) {
        int64_t p[4][3];
        nearCoplanar(51, p);

        // coordinates of magnitude ~0.5..1 with 1-ulp perturbations, or large ones (2^200)
        int e = it % 2 ? -52 : 200;
        double x[4][3];
        for (int i = 0; i < 4; i++) toDouble(p[i], 3, e, x[i]);
        int ref = refOrient3d(p[0], p[1], p[2], p[3]);
        zeros += ref == 0;
        if (alci_orient3d_exact(x[0], x[1], x[2], x[3]) != ref) wrong++;
        if (alci_orient3d_expansion(x[0], x[1], x[2], x[3]) != ref) wrongExp++;
        if (it % 8 == 0 && alci_orient3d_bigint(x[0], x[1], x[2], x[3]) != ref) wrongBig++;
        if (naiveOrient3d(x[0], x[1], x[2], x[3]) != ref) naiveWrong++;
    }
    alct_note("%d near-coplanar quadruples: %d exactly coplanar, naive double wrong on %d", n,
              zeros, naiveWrong);
    ENSURE_MSG(wrong == 0 && wrongExp == 0 && wrongBig == 0,
               "wrong: %d filtered, %d expansion, %d bigint", wrong, wrongExp, wrongBig);
    ENSURE_MSG(naiveWrong > n / 10, "the set is not adversarial: naive wrong on %d", naiveWrong);
    ENSURE(zeros > 0);
    return ALC_TEST_PASS;
}

ALC_TEST(predicates_large_offset_3d) {
    // a tiny near-degenerate configuration translated far away: p = big + small_i, with the
    // small parts nearly coplanar (the translation keeps integers exact)
    g_rng = 3;
    int wrong = 0, naiveWrong = 0;
    const int n = 10000;
    for (int it = 0; it < n; it++) {
        int64_t q[4][3], p[4][3];
        nearCoplanar(30, q);
        int64_t big[3];
        for (int k = 0; k < 3; k++) big[k] = rndInt((int64_t)1 << 51, ((int64_t)1 << 52) - 1);
        for (int i = 0; i < 4; i++) {
            for (int k = 0; k < 3; k++) p[i][k] = big[k] + q[i][k];
        }
        double x[4][3];
        for (int i = 0; i < 4; i++) toDouble(p[i], 3, -40, x[i]);
        int ref = refOrient3d(p[0], p[1], p[2], p[3]);
        if (alci_orient3d_exact(x[0], x[1], x[2], x[3]) != ref) wrong++;
        // permutations flip or keep the sign
        if (alci_orient3d_exact(x[1], x[0], x[2], x[3]) != -ref) wrong++;
        if (alci_orient3d_exact(x[1], x[2], x[0], x[3]) != ref) wrong++;
        if (naiveOrient3d(x[3], x[2], x[1], x[0]) != ref) naiveWrong++;
    }
    alct_note("%d offset quadruples: naive double wrong on %d", n, naiveWrong);
    ENSURE_MSG(wrong == 0, "%d wrong signs", wrong);
    return ALC_TEST_PASS;
}

ALC_TEST(predicates_classroom_2d) {
    // Kettner et al. "classroom examples": points near (0.5, 0.5) on a 2^-53 grid against the
    // line through (12, 12) and (24, 24); plain double evaluation misclassifies many of them
    int wrong = 0, wrongBig = 0, naiveWrong = 0;
    const int64_t unit = (int64_t)1 << 53;  // coordinates as integers times 2^-53
    int64_t q[2] = {12 * unit, 12 * unit}, r[2] = {24 * unit, 24 * unit};
    double qd[2] = {12, 12}, rd[2] = {24, 24};
    for (int i = 0; i < 256; i++) {
        for (int j = 0; j < 256; j++) {
            int64_t p[2] = {unit / 2 + i, unit / 2 + j};
            double pd[2] = {0.5 + ldexp(i, -53), 0.5 + ldexp(j, -53)};
            int ref = refOrient2d(p, q, r);
            if (alci_orient2d_exact(pd, qd, rd) != ref) wrong++;
            if (alci_orient2d_exact(qd, rd, pd) != ref) wrong++;
            if (alci_orient2d_expansion(pd, qd, rd) != ref) wrong++;
            if ((i + j) % 16 == 0 && alci_orient2d_bigint(pd, qd, rd) != ref) wrongBig++;
            if (naiveOrient2d(pd, qd, rd) != ref) naiveWrong++;
        }
    }
    alct_note("65536 grid points: naive double wrong on %d", naiveWrong);
    ENSURE_MSG(wrong == 0 && wrongBig == 0, "%d wrong, %d wrong bigint", wrong, wrongBig);
    ENSURE(naiveWrong > 0);
    return ALC_TEST_PASS;
}

ALC_TEST(predicates_random_2d) {
    g_rng = 4;
    int wrong = 0, naiveWrong = 0;
    for (int it = 0; it < 20000; it++) {
        int64_t p[3][2];
        int bits = (int)rndInt(2, 50);
        for (int i = 0; i < 2; i++) {
            for (int k = 0; k < 2; k++) p[i][k] = rndInt(-((int64_t)1 << bits), (int64_t)1 << bits);
        }
        // c near the line ab in half the cases
        int64_t s = rndInt(-3, 3);
        for (int k = 0; k < 2; k++) {
            p[2][k] = it % 2 ? rndInt(-((int64_t)1 << bits), (int64_t)1 << bits)
                             : p[0][k] + s * (p[1][k] - p[0][k]) + rndInt(-1, 1);
        }
        double x[3][2];
        int e = (int)rndInt(-60, 60);
        for (int i = 0; i < 3; i++) toDouble(p[i], 2, e, x[i]);
        int ref = refOrient2d(p[0], p[1], p[2]);
        if (alci_orient2d_exact(x[0], x[1], x[2]) != ref) wrong++;
        if (alci_orient2d_bigint(x[0], x[1], x[2]) != ref) wrong++;
        if (naiveOrient2d(x[0], x[1], x[2]) != ref) naiveWrong++;
    }
    alct_note("naive double wrong on %d of 20000", naiveWrong);
    ENSURE_MSG(wrong == 0, "%d wrong signs", wrong);
    return ALC_TEST_PASS;
}

ALC_TEST(predicates_extreme_exponents) {
    // subnormal inputs: every product underflows in double, the sign is still exact
    double t = 0x1p-1074;
    double o[3] = {0, 0, 0}, ex[3] = {t, 0, 0}, ey[3] = {0, t, 0}, ez[3] = {0, 0, t};
    ENSURE(naiveOrient3d(o, ex, ey, ez) == 0);
    ENSURE(alci_orient3d_exact(o, ex, ey, ez) == 1);
    ENSURE(alci_orient3d_exact(o, ey, ex, ez) == -1);

    // huge inputs: the double evaluation overflows
    double h = 0x1p1000;
    double hx[3] = {h, 0, 0}, hy[3] = {0, h, 0}, hz[3] = {0, 0, h};
    ENSURE(alci_orient3d_exact(o, hx, hy, hz) == 1);
    ENSURE(alci_orient3d_exact(hz, hx, hy, o) == -1);

    // exponent spread beyond the expansion window: big integers decide
    double b[3] = {0x1p600, 0, 0}, c[3] = {0, 0x1p-600, 0};
    for (int s = -1; s <= 1; s++) {
        double d[3] = {0x1p600, 0x1p-600, s * 0x1p-1000};
        ENSURE(alci_orient3d_exact(o, b, c, d) == s);
        ENSURE(alci_orient3d_exact(b, o, c, d) == -s);
        ENSURE(alci_orient3d_bigint(o, b, c, d) == s);
    }
    double p2[2] = {0, 0}, q2[2] = {0x1p900, 0x1p-900};
    for (int s = -1; s <= 1; s++) {
        double ry =
            s == 0 ? 0x1p-899 : (s > 0 ? 0x1p-899 * (1 + 0x1p-52) : 0x1p-899 * (1 - 0x1p-53));
        double r2[2] = {0x1p901, ry};
        ENSURE(alci_orient2d_exact(p2, q2, r2) == s);
    }

    // random power-of-two scalings keep the sign of random near-degenerate inputs
    g_rng = 5;
    int wrong = 0;
    for (int it = 0; it < 2000; it++) {
        int64_t p[4][3];
        nearCoplanar(40, p);
        int ref = refOrient3d(p[0], p[1], p[2], p[3]);
        int e = (int)rndInt(-1070, 960);
        double x[4][3];
        for (int i = 0; i < 4; i++) toDouble(p[i], 3, e, x[i]);
        // skip scalings that rounded an input (subnormal range)
        bool exact = true;
        for (int i = 0; i < 4; i++) {
            for (int k = 0; k < 3; k++) exact = exact && ldexp(x[i][k], -e) == (double)p[i][k];
        }
        if (!exact) continue;
        if (alci_orient3d_exact(x[0], x[1], x[2], x[3]) != ref) wrong++;
        if (alci_orient3d_bigint(x[0], x[1], x[2], x[3]) != ref) wrong++;
    }
    ENSURE_MSG(wrong == 0, "%d wrong signs", wrong);
    return ALC_TEST_PASS;
}

ALC_TEST(predicates_mixed_exponents_vs_bigint) {
    // coordinates of wildly different magnitudes: the filtered predicate, the expansion path
    // and the big-integer path must agree on every sign
    g_rng = 6;
    int disagree = 0, nonzero = 0;
    for (int it = 0; it < 3000; it++) {
        double x[4][3];
        for (int i = 0; i < 4; i++) {
            for (int k = 0; k < 3; k++) {
                int64_t m = rndInt(-1000, 1000);
                x[i][k] = ldexp((double)m, (int)rndInt(-700, 700));
            }
        }
        // make it nearly degenerate: d copies a mix of a and b in two coordinates
        x[3][0] = x[0][0];
        x[3][1] = x[1][1];
        int s = alci_orient3d_exact(x[0], x[1], x[2], x[3]);
        int se = alci_orient3d_expansion(x[0], x[1], x[2], x[3]);
        int sb = alci_orient3d_bigint(x[0], x[1], x[2], x[3]);
        nonzero += s != 0;
        if (s != sb || se != sb) disagree++;
        if (alci_orient3d_exact(x[0], x[2], x[1], x[3]) != -sb) disagree++;
    }
    alct_note("%d of 3000 nonzero", nonzero);
    ENSURE_MSG(disagree == 0, "%d disagreements", disagree);
    ENSURE(nonzero > 0);
    return ALC_TEST_PASS;
}
