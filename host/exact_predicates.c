// Exact orientation predicates: a filtered floating-point evaluation, then floating-point
// expansions, then big integers for inputs outside the range where expansions are exact.
//
// The expansion arithmetic follows J. R. Shewchuk, "Adaptive Precision Floating-Point
// Arithmetic and Fast Robust Geometric Predicates", Discrete & Computational Geometry 18(3),
// 1997: error-free Two-Sum, Two-Diff and Two-Product (Dekker's split), zero-eliminating
// expansion sums (Fast-Expansion-Sum, Theorem 13) and scaling (Scale-Expansion, Theorem 19).
// Those theorems need IEEE double arithmetic rounded to nearest-even with no extended precision
// and no fused multiply-add contraction, which the checks below enforce.
#include "exact_predicates.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__FAST_MATH__)
#error "exact_predicates.c must not be compiled with -ffast-math"
#endif
#if FLT_EVAL_METHOD != 0
#error "exact_predicates.c needs double arithmetic without extended precision (SSE2, not x87)"
#endif
// no contraction of a*b + c into an FMA: it would break the error-free transformations
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#define EPS      0x1p-53  // unit roundoff u of double
#define ERR3     (9 * EPS)
#define ERR2     (5 * EPS)
#define UFLOW    0x1p-1060    // covers the absolute error of products that underflow
#define SPLITTER 134217729.0  // 2^27 + 1, Dekker's split of a 53-bit significand

// scaled inputs lie in [2^-SAFE_EXP, 2^SAFE_EXP): products of three stay exact and normal
#define SAFE_EXP    250
#define SAFE_SPREAD 499  // largest exponent spread that fits that window
#define EXP_MAX     192  // longest expansion of the 3x3 determinant (3 terms of 64)

// ---- error-free transformations (Shewchuk 1997, section 2) ---------------------------------

// x + y = a + b exactly, x = fl(a + b)
static void twoSum(double a, double b, double* x, double* y) {
    double s = a + b;
    double bv = s - a;
    double av = s - bv;
    *x = s;
    *y = (a - av) + (b - bv);
}

// x + y = a - b exactly, x = fl(a - b)
static void twoDiff(double a, double b, double* x, double* y) {
    double s = a - b;
    double bv = a - s;
    double av = s + bv;
    *x = s;
    *y = (a - av) + (bv - b);
}

// x + y = a * b exactly, x = fl(a * b) (no underflow or overflow)
static void twoProduct(double a, double b, double* x, double* y) {
    double p = a * b;
#if defined(FP_FAST_FMA)
    *y = fma(a, b, -p);
#else
    // Dekker's split of a and b into 26-bit halves
    double c = SPLITTER * a;
    double ahi = c - (c - a);
    double alo = a - ahi;
    c = SPLITTER * b;
    double bhi = c - (c - b);
    double blo = b - bhi;
    double err = p - ahi * bhi;
    err -= alo * bhi;
    err -= ahi * blo;
    *y = alo * blo - err;
#endif
    *x = p;
}

// ---- expansions: components nonoverlapping, increasing magnitude, zeros eliminated ----------

// h = a - b (length 1 or 2)
static int expDiff(double a, double b, double* h) {
    double x, y;
    twoDiff(a, b, &x, &y);
    if (y != 0) {
        h[0] = y;
        h[1] = x;
        return 2;
    }
    h[0] = x;
    return 1;
}

// h = e + f (Fast-Expansion-Sum, Theorem 13): merge by magnitude, then a Two-Sum chain
static int expSum(int elen, const double* e, int flen, const double* f, double* h) {
    double g[EXP_MAX];
    int n = 0, i = 0, j = 0;
    while (i < elen && j < flen) g[n++] = fabs(e[i]) <= fabs(f[j]) ? e[i++] : f[j++];
    while (i < elen) g[n++] = e[i++];
    while (j < flen) g[n++] = f[j++];
    if (n == 0) {
        h[0] = 0;
        return 1;
    }
    int hlen = 0;
    double q = g[0];
    for (int k = 1; k < n; k++) {
        double s, err;
        twoSum(q, g[k], &s, &err);
        if (err != 0) h[hlen++] = err;
        q = s;
    }
    if (q != 0 || hlen == 0) h[hlen++] = q;
    return hlen;
}

// h = e * b (Scale-Expansion, Theorem 19)
static int expScale(int elen, const double* e, double b, double* h) {
    int hlen = 0;
    double q, err;
    twoProduct(e[0], b, &q, &err);
    if (err != 0) h[hlen++] = err;
    for (int i = 1; i < elen; i++) {
        double hi, lo, s;
        twoProduct(e[i], b, &hi, &lo);
        twoSum(q, lo, &s, &err);
        if (err != 0) h[hlen++] = err;
        twoSum(hi, s, &q, &err);
        if (err != 0) h[hlen++] = err;
    }
    if (q != 0 || hlen == 0) h[hlen++] = q;
    return hlen;
}

// h = e * f for a short f (flen <= 2, elen <= 16): sum of e scaled by each component of f
static int expMul(int elen, const double* e, int flen, const double* f, double* h) {
    double t[32], acc[64];
    int n = expScale(elen, e, f[0], acc);
    for (int k = 1; k < flen; k++) {
        int m = expScale(elen, e, f[k], t);
        n = expSum(n, acc, m, t, h);
        memcpy(acc, h, (size_t)n * sizeof(double));
    }
    memcpy(h, acc, (size_t)n * sizeof(double));
    return n;
}

// h = -e in place
static void expNegate(int elen, double* e) {
    for (int i = 0; i < elen; i++) e[i] = -e[i];
}

// sign of a nonoverlapping expansion: that of its largest component
static int expSign(int elen, const double* e) {
    double top = e[elen - 1];
    return top > 0 ? 1 : (top < 0 ? -1 : 0);
}

// ---- big integers, for exponent spreads the expansions cannot hold ----------------------

// a double is m 2^s with |m| < 2^53 and s >= -1126; shifted to the smallest s of the inputs
// it needs at most 53 + 2097 bits, a 3x3 determinant of differences at most 6455 bits
#define BIG_LIMBS 208

typedef struct {
    int neg;                // 1 when negative
    int n;                  // limbs in use; d[n-1] != 0 unless n == 0
    uint32_t d[BIG_LIMBS];  // magnitude, least significant limb first
} Big;

static void bigNorm(Big* a) {
    while (a->n > 0 && a->d[a->n - 1] == 0) a->n--;
    if (a->n == 0) a->neg = 0;
}

// a = v * 2^-smin, an integer since smin <= the exponent of v's last significand bit
static void bigFromDouble(double v, int smin, Big* a) {
    memset(a, 0, sizeof *a);
    if (v == 0) return;
    int e;
    double f = frexp(fabs(v), &e);
    uint64_t m = (uint64_t)ldexp(f, 53);
    int shift = e - 53 - smin;
    int w = shift / 32, b = shift % 32;
    uint64_t lo = (m & 0xffffffffu) << b;
    uint64_t hi = (m >> 32) << b;
    a->d[w] = (uint32_t)lo;
    a->d[w + 1] = (uint32_t)(lo >> 32) | (uint32_t)hi;
    a->d[w + 2] = (uint32_t)(hi >> 32);
    a->n = w + 3;
    a->neg = v < 0;
    bigNorm(a);
}

static int magCmp(const Big* a, const Big* b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int k = a->n - 1; k >= 0; k--) {
        if (a->d[k] != b->d[k]) return a->d[k] < b->d[k] ? -1 : 1;
    }
    return 0;
}

// |r| = |a| + |b|
static void magAdd(const Big* a, const Big* b, Big* r) {
    int n = a->n > b->n ? a->n : b->n;
    uint64_t carry = 0;
    for (int k = 0; k < n; k++) {
        uint64_t s = carry + (k < a->n ? a->d[k] : 0) + (k < b->n ? b->d[k] : 0);
        r->d[k] = (uint32_t)s;
        carry = s >> 32;
    }
    r->d[n] = (uint32_t)carry;
    r->n = n + 1;
}

// |r| = |a| - |b|, |a| >= |b|
static void magSub(const Big* a, const Big* b, Big* r) {
    int64_t borrow = 0;
    for (int k = 0; k < a->n; k++) {
        int64_t s = (int64_t)a->d[k] - (k < b->n ? b->d[k] : 0) - borrow;
        borrow = s < 0;
        r->d[k] = (uint32_t)(s + (borrow << 32));
    }
    r->n = a->n;
}

// r = a + (negb ? -b : b); r must not alias a or b
static void bigAdd(const Big* a, const Big* b, int negb, Big* r) {
    int bneg = b->n > 0 ? (b->neg ^ negb) : 0;
    if (a->neg == bneg) {
        magAdd(a, b, r);
        r->neg = a->neg;
    } else if (magCmp(a, b) >= 0) {
        magSub(a, b, r);
        r->neg = a->neg;
    } else {
        magSub(b, a, r);
        r->neg = bneg;
    }
    bigNorm(r);
}

// r = a * b (schoolbook); r must not alias a or b
static void bigMul(const Big* a, const Big* b, Big* r) {
    int n = a->n + b->n;
    memset(r->d, 0, (size_t)n * sizeof(uint32_t));
    for (int i = 0; i < a->n; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < b->n; j++) {
            uint64_t t = (uint64_t)a->d[i] * b->d[j] + r->d[i + j] + carry;
            r->d[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        r->d[i + b->n] = (uint32_t)carry;
    }
    r->n = n;
    r->neg = a->neg ^ b->neg;
    bigNorm(r);
}

static int bigSign(const Big* a) {
    return a->n == 0 ? 0 : (a->neg ? -1 : 1);
}

// exponent range of the nonzero inputs (frexp exponents); false when one is not finite
static bool exponentRange(const double* v, int n, int* emin, int* emax) {
    *emin = INT_MAX;
    *emax = INT_MIN;
    for (int k = 0; k < n; k++) {
        if (!isfinite(v[k])) return false;
        if (v[k] == 0) continue;
        int e;
        frexp(v[k], &e);
        if (e < *emin) *emin = e;
        if (e > *emax) *emax = e;
    }
    return true;
}

// exponent of the last significand bit of the smallest-granularity input
static int bigBase(const double* v, int n) {
    int smin = INT_MAX;
    for (int k = 0; k < n; k++) {
        if (v[k] == 0) continue;
        int e;
        frexp(v[k], &e);
        if (e - 53 < smin) smin = e - 53;
    }
    return smin;
}

// sign of det[b-a, c-a, d-a] for p = (a, b, c, d), all finite, by big integers
static int orient3dBig(const double* p) {
    int smin = bigBase(p, 12);
    if (smin == INT_MAX) return 0;

    // exact differences
    Big u, w, ba[3], ca[3], da[3];
    for (int k = 0; k < 3; k++) {
        bigFromDouble(p[k], smin, &w);
        bigFromDouble(p[3 + k], smin, &u);
        bigAdd(&u, &w, 1, &ba[k]);
        bigFromDouble(p[6 + k], smin, &u);
        bigAdd(&u, &w, 1, &ca[k]);
        bigFromDouble(p[9 + k], smin, &u);
        bigAdd(&u, &w, 1, &da[k]);
    }

    // det = sum_k ba_k (ca_k1 da_k2 - ca_k2 da_k1)
    Big det, m, t, q1, q2;
    memset(&det, 0, sizeof det);
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        bigMul(&ca[k1], &da[k2], &q1);
        bigMul(&ca[k2], &da[k1], &q2);
        bigAdd(&q1, &q2, 1, &m);
        bigMul(&ba[k], &m, &t);
        bigAdd(&det, &t, 0, &u);
        det = u;
    }
    return bigSign(&det);
}

// sign of det[b-a, c-a] for p = (a, b, c), all finite, by big integers
static int orient2dBig(const double* p) {
    int smin = bigBase(p, 6);
    if (smin == INT_MAX) return 0;
    Big u, w, ba[2], ca[2], q1, q2, det;
    for (int k = 0; k < 2; k++) {
        bigFromDouble(p[k], smin, &w);
        bigFromDouble(p[2 + k], smin, &u);
        bigAdd(&u, &w, 1, &ba[k]);
        bigFromDouble(p[4 + k], smin, &u);
        bigAdd(&u, &w, 1, &ca[k]);
    }
    bigMul(&ba[0], &ca[1], &q1);
    bigMul(&ba[1], &ca[0], &q2);
    bigAdd(&q1, &q2, 1, &det);
    return bigSign(&det);
}

// ---- exact stage: scale into the safe window, then expansions ------------------------------

// sign of det[b-a, c-a, d-a] for p = (a, b, c, d) in the safe window, by expansions
static int orient3dExpansion(const double* p) {
    double ba[3][2], ca[3][2], da[3][2];
    int nba[3], nca[3], nda[3];
    for (int k = 0; k < 3; k++) {
        nba[k] = expDiff(p[3 + k], p[k], ba[k]);
        nca[k] = expDiff(p[6 + k], p[k], ca[k]);
        nda[k] = expDiff(p[9 + k], p[k], da[k]);
    }

    // det = sum_k ba_k (ca_k1 da_k2 - ca_k2 da_k1): minors <= 16 terms, products <= 64
    double det[EXP_MAX], acc[EXP_MAX], q1[8], q2[8], m[16], t[64];
    int ndet = 1;
    det[0] = 0;
    for (int k = 0; k < 3; k++) {
        int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        int n1 = expMul(nca[k1], ca[k1], nda[k2], da[k2], q1);
        int n2 = expMul(nca[k2], ca[k2], nda[k1], da[k1], q2);
        expNegate(n2, q2);
        int nm = expSum(n1, q1, n2, q2, m);
        int nt = expMul(nm, m, nba[k], ba[k], t);
        ndet = expSum(ndet, det, nt, t, acc);
        memcpy(det, acc, (size_t)ndet * sizeof(double));
    }
    return expSign(ndet, det);
}

// sign of det[b-a, c-a] for p = (a, b, c) in the safe window, by expansions
static int orient2dExpansion(const double* p) {
    double ba[2][2], ca[2][2], q1[8], q2[8], det[16];
    int nba[2], nca[2];
    for (int k = 0; k < 2; k++) {
        nba[k] = expDiff(p[2 + k], p[k], ba[k]);
        nca[k] = expDiff(p[4 + k], p[k], ca[k]);
    }
    int n1 = expMul(nba[0], ba[0], nca[1], ca[1], q1);
    int n2 = expMul(nba[1], ba[1], nca[0], ca[0], q2);
    expNegate(n2, q2);
    return expSign(expSum(n1, q1, n2, q2, det), det);
}

// exact sign for n = 12 (3D) or 6 (2D) packed coordinates: scale by a power of two (exact,
// sign-preserving) so that every nonzero input lies in [2^-250, 2^250), where every product
// of three expansion components is exact and normal; wider spreads go to big integers
static int exactStage(const double* v, int n) {
    int emin, emax;
    if (!exponentRange(v, n, &emin, &emax)) return 0;
    if (emax == INT_MIN) return 0;
    if (emax - emin > SAFE_SPREAD) return n == 12 ? orient3dBig(v) : orient2dBig(v);
    double p[12];
    for (int k = 0; k < n; k++) p[k] = ldexp(v[k], SAFE_EXP - emax);
    return n == 12 ? orient3dExpansion(p) : orient2dExpansion(p);
}

static void pack3(const double* a, const double* b, const double* c, const double* d, double* p) {
    for (int k = 0; k < 3; k++) {
        p[k] = a[k];
        p[3 + k] = b[k];
        p[6 + k] = c[k];
        p[9 + k] = d[k];
    }
}

static void pack2(const double* a, const double* b, const double* c, double* p) {
    for (int k = 0; k < 2; k++) {
        p[k] = a[k];
        p[2 + k] = b[k];
        p[4 + k] = c[k];
    }
}

// ---- public predicates --------------------------------------------------------------------

// Filter error bound, orient3d. With u = 2^-53 and no underflow, each exact monomial
// X Y Z of det (three rounded differences, a product, a subtraction, a product, and two sums)
// carries at most 8 relative rounding factors, so |det - D| <= gamma_8 M with M the sum of
// |X Y Z|; the computed permanent carries the same 8 factors, so M <= perm / (1 - gamma_8) and
// the error is below 8.000001 u perm < 9 u perm. A product that underflows adds at most
// 2^-1075, multiplied at most by one |difference|: the UFLOW term covers that. An overflow
// makes det or perm non-finite and the comparisons false.
int alci_orient3d_exact(const double a[3], const double b[3], const double c[3],
                        const double d[3]) {
    double bax = b[0] - a[0], bay = b[1] - a[1], baz = b[2] - a[2];
    double cax = c[0] - a[0], cay = c[1] - a[1], caz = c[2] - a[2];
    double dax = d[0] - a[0], day = d[1] - a[1], daz = d[2] - a[2];
    double p1 = cay * daz, p2 = caz * day;
    double p3 = caz * dax, p4 = cax * daz;
    double p5 = cax * day, p6 = cay * dax;
    double det = bax * (p1 - p2) + bay * (p3 - p4) + baz * (p5 - p6);
    double abx = fabs(bax), aby = fabs(bay), abz = fabs(baz);
    double perm =
        abx * (fabs(p1) + fabs(p2)) + aby * (fabs(p3) + fabs(p4)) + abz * (fabs(p5) + fabs(p6));
    double bound = ERR3 * perm + UFLOW * (1.0 + abx + aby + abz);
    if (det > bound) return 1;
    if (-det > bound) return -1;

    // the filter cannot decide
    double p[12];
    pack3(a, b, c, d, p);
    return exactStage(p, 12);
}

// Filter error bound, orient2d: 4 rounding factors per monomial (two differences, a product,
// the subtraction), so the error is below 4.000001 u perm < 5 u perm, plus underflow.
int alci_orient2d_exact(const double a[2], const double b[2], const double c[2]) {
    double p1 = (b[0] - a[0]) * (c[1] - a[1]);
    double p2 = (b[1] - a[1]) * (c[0] - a[0]);
    double det = p1 - p2;
    double bound = ERR2 * (fabs(p1) + fabs(p2)) + UFLOW;
    if (det > bound) return 1;
    if (-det > bound) return -1;
    double p[6];
    pack2(a, b, c, p);
    return exactStage(p, 6);
}

int alci_orient3d_expansion(const double a[3], const double b[3], const double c[3],
                            const double d[3]) {
    double p[12];
    pack3(a, b, c, d, p);
    return exactStage(p, 12);
}

int alci_orient2d_expansion(const double a[2], const double b[2], const double c[2]) {
    double p[6];
    pack2(a, b, c, p);
    return exactStage(p, 6);
}

int alci_orient3d_bigint(const double a[3], const double b[3], const double c[3],
                         const double d[3]) {
    double p[12];
    pack3(a, b, c, d, p);
    int emin, emax;
    if (!exponentRange(p, 12, &emin, &emax)) return 0;
    return orient3dBig(p);
}

int alci_orient2d_bigint(const double a[2], const double b[2], const double c[2]) {
    double p[6];
    pack2(a, b, c, p);
    int emin, emax;
    if (!exponentRange(p, 6, &emin, &emax)) return 0;
    return orient2dBig(p);
}
