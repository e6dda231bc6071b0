// The cuBLAS wrapper (cuda/blas.h) against host loops: dot, axpy, scal and nrm2 on random
// vectors of 0, 1, 1000 and 100003 items; empty vectors (ALC_OK, reductions write 0); invalid
// arguments; one handle moved between streams and between pointer modes (a CG-like sequence).
//
// Tolerances hold on a device as well as in the emulation: dot and nrm2 to 1e-12 relative (a
// device sums in another order), dot relative to sum |x_i y_i| since random signs cancel; axpy
// to 1e-15 relative to |alpha x_i| + |y_i| (a device fuses the multiply-add), scal to 1e-15
// relative to the product (exact in both, one rounding).
#include "../../cuda/blas.h"
#include "../test_macros.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const int kSizes[] = {0, 1, 1000, 100003};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))

static uint64_t g_rng;

// uniform in [-1, 1), splitmix64
static double rnd(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/// Host vectors x, y (n) with random values and their device copies, plus one device double for
/// a reduction's result (set to NaN, so a result that is never written shows).
typedef struct Vecs_ {
    int n;
    double *x, *y;      // (n) [host]
    double *d_x, *d_y;  // (n) [device]
    double* d_res;      // (1) [device]
} Vecs;

static int vecsMake(Vecs* v, int n, alcgStream* s) {
    memset(v, 0, sizeof *v);
    v->n = n;
    v->x = (double*)malloc(sizeof(double) * (size_t)(n + 1));
    v->y = (double*)malloc(sizeof(double) * (size_t)(n + 1));
    ENSURE(v->x && v->y);
    for (int i = 0; i < n; i++) {
        v->x[i] = rnd();
        v->y[i] = rnd();
    }
    size_t bytes = sizeof(double) * (size_t)n;
    ENSURE_OK(alcg_malloc(s, (void**)&v->d_x, bytes));
    ENSURE_OK(alcg_malloc(s, (void**)&v->d_y, bytes));
    ENSURE_OK(alcg_malloc(s, (void**)&v->d_res, sizeof(double)));
    ENSURE_OK(alcg_upload(s, v->d_x, v->x, bytes));
    ENSURE_OK(alcg_upload(s, v->d_y, v->y, bytes));
    double nan = (double)NAN;
    ENSURE_OK(alcg_upload(s, v->d_res, &nan, sizeof nan));
    return ALC_TEST_PASS;
}

static void vecsFree(Vecs* v) {
    free(v->x);
    free(v->y);
    alcg_free(v->d_x);
    alcg_free(v->d_y);
    alcg_free(v->d_res);
    memset(v, 0, sizeof *v);
}

// the reduction result from the device
static int getResult(const Vecs* v, double* out, alcgStream* s) {
    ENSURE_OK(alcg_download(s, out, v->d_res, sizeof(double)));
    return ALC_TEST_PASS;
}

// largest |got_i - want_i| / scale_i (0 when every scale is 0 and got == want)
static double maxRelErr(const double* got, const double* want, const double* scale, int n) {
    double e = 0.0;
    for (int i = 0; i < n; i++) {
        double d = fabs(got[i] - want[i]);
        double r = scale[i] > 0.0 ? d / scale[i] : (d > 0.0 ? HUGE_VAL : 0.0);
        if (!(r <= e)) e = r;  // NaN propagates
    }
    return e;
}

// host dot and sum |x_i y_i|, serial
static double hostDot(const double* x, const double* y, int n, double* absSum) {
    double sum = 0.0, a = 0.0;
    for (int i = 0; i < n; i++) {
        sum += x[i] * y[i];
        a += fabs(x[i] * y[i]);
    }
    *absSum = a;
    return sum;
}

static double hostNrm2(const double* x, int n) {
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += x[i] * x[i];
    return sqrt(sum);
}

// a stream and a handle bound to it
static int blasOpen(alcgStream* s, alcgBlas** b) {
    ENSURE_OK(alcg_stream_make(s));
    ENSURE_OK(alcg_blas_make(b, s));
    ENSURE(*b != NULL);
    return ALC_TEST_PASS;
}

static void blasClose(alcgStream* s, alcgBlas* b) {
    alcg_blas_free(b);
    alcg_stream_free(s);
}

ALC_TEST(blas_dot) {
    alcgStream s;
    alcgBlas* b = NULL;
    ENSURE(blasOpen(&s, &b) == ALC_TEST_PASS);
    g_rng = 11;
    for (int k = 0; k < NSIZES; k++) {
        Vecs v;
        ENSURE(vecsMake(&v, kSizes[k], &s) == ALC_TEST_PASS);
        ENSURE_MSG(alcg_blas_dot(b, v.n, v.d_x, v.d_y, v.d_res, &s) == ALC_OK, "n %d: %s", v.n,
                   s.err);
        double got = 0.0, absSum = 0.0;
        ENSURE(getResult(&v, &got, &s) == ALC_TEST_PASS);
        double want = hostDot(v.x, v.y, v.n, &absSum);
        ENSURE_MSG(isfinite(got), "n %d: dot %g", v.n, got);
        if (v.n == 0) ENSURE(got == 0.0);
        ENSURE_NEAR(got, want, 1e-12 * absSum);
        if (v.n == 100003) {
            alct_note("dot n %d: |dev - host| / sum|x y| = %.2e", v.n, fabs(got - want) / absSum);
        }
        vecsFree(&v);
    }
    blasClose(&s, b);
    return ALC_TEST_PASS;
}

ALC_TEST(blas_nrm2) {
    alcgStream s;
    alcgBlas* b = NULL;
    ENSURE(blasOpen(&s, &b) == ALC_TEST_PASS);
    g_rng = 12;
    for (int k = 0; k < NSIZES; k++) {
        Vecs v;
        ENSURE(vecsMake(&v, kSizes[k], &s) == ALC_TEST_PASS);
        ENSURE_MSG(alcg_blas_nrm2(b, v.n, v.d_x, v.d_res, &s) == ALC_OK, "n %d: %s", v.n, s.err);
        double got = 0.0;
        ENSURE(getResult(&v, &got, &s) == ALC_TEST_PASS);
        double want = hostNrm2(v.x, v.n);
        ENSURE_MSG(isfinite(got), "n %d: nrm2 %g", v.n, got);
        if (v.n == 0) ENSURE(got == 0.0);
        ENSURE_NEAR(got, want, 1e-12 * want);
        if (v.n == 100003) {
            alct_note("nrm2 n %d: |dev - host| / host = %.2e", v.n, fabs(got - want) / want);
        }
        vecsFree(&v);
    }
    blasClose(&s, b);
    return ALC_TEST_PASS;
}

ALC_TEST(blas_axpy) {
    alcgStream s;
    alcgBlas* b = NULL;
    ENSURE(blasOpen(&s, &b) == ALC_TEST_PASS);
    g_rng = 13;
    for (int k = 0; k < NSIZES; k++) {
        Vecs v;
        ENSURE(vecsMake(&v, kSizes[k], &s) == ALC_TEST_PASS);
        double alpha = -0.75 + 0.25 * rnd();
        ENSURE_MSG(alcg_blas_axpy(b, v.n, alpha, v.d_x, v.d_y, &s) == ALC_OK, "n %d: %s", v.n,
                   s.err);
        double* got = (double*)malloc(sizeof(double) * (size_t)(v.n + 1));
        double* want = (double*)malloc(sizeof(double) * (size_t)(v.n + 1));
        double* scale = (double*)malloc(sizeof(double) * (size_t)(v.n + 1));
        ENSURE(got && want && scale);
        ENSURE_OK(alcg_download(&s, got, v.d_y, sizeof(double) * (size_t)v.n));
        for (int i = 0; i < v.n; i++) {
            want[i] = v.y[i] + alpha * v.x[i];
            scale[i] = fabs(alpha * v.x[i]) + fabs(v.y[i]);
        }
        // x is untouched
        double x0 = 0.0;
        ENSURE_OK(alcg_download(&s, &x0, v.d_x, v.n > 0 ? sizeof(double) : 0));
        ENSURE(v.n == 0 || x0 == v.x[0]);
        double e = maxRelErr(got, want, scale, v.n);
        ENSURE_MSG(e <= 1e-15 * alct_tolScale(), "n %d: axpy relative error %.3g", v.n, e);
        free(got);
        free(want);
        free(scale);
        vecsFree(&v);
    }
    blasClose(&s, b);
    return ALC_TEST_PASS;
}

ALC_TEST(blas_scal) {
    alcgStream s;
    alcgBlas* b = NULL;
    ENSURE(blasOpen(&s, &b) == ALC_TEST_PASS);
    g_rng = 14;
    for (int k = 0; k < NSIZES; k++) {
        Vecs v;
        ENSURE(vecsMake(&v, kSizes[k], &s) == ALC_TEST_PASS);
        double alpha = 1.5 + rnd();
        ENSURE_MSG(alcg_blas_scal(b, v.n, alpha, v.d_x, &s) == ALC_OK, "n %d: %s", v.n, s.err);
        double* got = (double*)malloc(sizeof(double) * (size_t)(v.n + 1));
        double* want = (double*)malloc(sizeof(double) * (size_t)(v.n + 1));
        double* scale = (double*)malloc(sizeof(double) * (size_t)(v.n + 1));
        ENSURE(got && want && scale);
        ENSURE_OK(alcg_download(&s, got, v.d_x, sizeof(double) * (size_t)v.n));
        for (int i = 0; i < v.n; i++) {
            want[i] = alpha * v.x[i];
            scale[i] = fabs(want[i]);
        }
        double e = maxRelErr(got, want, scale, v.n);
        ENSURE_MSG(e <= 1e-15 * alct_tolScale(), "n %d: scal relative error %.3g", v.n, e);
        free(got);
        free(want);
        free(scale);
        vecsFree(&v);
    }
    blasClose(&s, b);
    return ALC_TEST_PASS;
}

// n == 0 with NULL vectors is ALC_OK everywhere; bad arguments are ALC_ERR_INVALID_ARG with a
// message; alcg_blas_free(NULL) does nothing
ALC_TEST(blas_emptyAndInvalid) {
    alcgStream s;
    alcgBlas* b = NULL;
    ENSURE(blasOpen(&s, &b) == ALC_TEST_PASS);
    double* d_res = NULL;
    ENSURE_OK(alcg_malloc(&s, (void**)&d_res, sizeof(double)));
    double got = (double)NAN;

    // empty vectors: the reductions write 0, axpy and scal do nothing
    double nan = (double)NAN;
    ENSURE_OK(alcg_upload(&s, d_res, &nan, sizeof nan));
    ENSURE_OK(alcg_blas_dot(b, 0, NULL, NULL, d_res, &s));
    ENSURE_OK(alcg_download(&s, &got, d_res, sizeof got));
    ENSURE(got == 0.0);
    ENSURE_OK(alcg_upload(&s, d_res, &nan, sizeof nan));
    ENSURE_OK(alcg_blas_nrm2(b, 0, NULL, d_res, &s));
    ENSURE_OK(alcg_download(&s, &got, d_res, sizeof got));
    ENSURE(got == 0.0);
    ENSURE_OK(alcg_blas_axpy(b, 0, 2.0, NULL, NULL, &s));
    ENSURE_OK(alcg_blas_scal(b, 0, 2.0, NULL, &s));

    // bad arguments
    s.err[0] = 0;
    ENSURE(alcg_blas_dot(b, -1, d_res, d_res, d_res, &s) == ALC_ERR_INVALID_ARG);
    ENSURE_MSG(strstr(s.err, "alcg_blas_dot") && strstr(s.err, "n = -1"), "%s", s.err);
    ENSURE(alcg_blas_dot(NULL, 1, d_res, d_res, d_res, &s) == ALC_ERR_INVALID_ARG);
    ENSURE(strstr(s.err, "NULL handle") != NULL);
    ENSURE(alcg_blas_dot(b, 1, d_res, d_res, NULL, &s) == ALC_ERR_INVALID_ARG);
    ENSURE(strstr(s.err, "d_result") != NULL);
    ENSURE(alcg_blas_nrm2(b, 1, NULL, d_res, &s) == ALC_ERR_INVALID_ARG);
    ENSURE(alcg_blas_nrm2(b, 1, d_res, NULL, &s) == ALC_ERR_INVALID_ARG);
    ENSURE(alcg_blas_axpy(b, 1, 1.0, d_res, NULL, &s) == ALC_ERR_INVALID_ARG);
    ENSURE(alcg_blas_axpy(b, -2, 1.0, d_res, d_res, &s) == ALC_ERR_INVALID_ARG);
    ENSURE(alcg_blas_scal(b, 1, 1.0, NULL, &s) == ALC_ERR_INVALID_ARG);
    ENSURE(alcg_blas_scal(b, 1, 1.0, d_res, NULL) == ALC_ERR_INVALID_ARG);
    ENSURE(alcg_blas_make(NULL, &s) == ALC_ERR_INVALID_ARG);
    alcgBlas* none = b;
    ENSURE(alcg_blas_make(&none, NULL) == ALC_ERR_INVALID_ARG);
    alcg_blas_free(NULL);

    alcg_free(d_res);
    blasClose(&s, b);
    return ALC_TEST_PASS;
}

// one handle, two streams, both pointer modes in turn: y.y, y -= 0.5 x, x *= 3 on the first
// stream; |y| and y.x on the second; x.x on the first again; every result as the host has it
ALC_TEST(blas_streamsAndModes) {
    alcgStream s, s2;
    alcgBlas* b = NULL;
    ENSURE(blasOpen(&s, &b) == ALC_TEST_PASS);
    ENSURE_OK(alcg_stream_make(&s2));
    g_rng = 15;
    Vecs v;
    ENSURE(vecsMake(&v, 1000, &s) == ALC_TEST_PASS);
    int n = v.n;
    double* d_res2 = NULL;
    double absSum = 0.0;
    ENSURE_OK(alcg_malloc(&s, (void**)&d_res2, sizeof(double)));

    // the sequence on the device: dot (device mode), axpy, scal (host mode) on s
    double yy = 0.0;
    ENSURE_OK(alcg_blas_dot(b, n, v.d_y, v.d_y, v.d_res, &s));
    ENSURE_OK(alcg_download(&s, &yy, v.d_res, sizeof yy));
    double want = hostDot(v.y, v.y, n, &absSum);
    ENSURE_NEAR(yy, want, 1e-12 * absSum);
    ENSURE_OK(alcg_blas_axpy(b, n, -0.5, v.d_x, v.d_y, &s));
    ENSURE_OK(alcg_blas_scal(b, n, 3.0, v.d_x, &s));
    ENSURE_OK(alcg_stream_sync(&s));
    // then nrm2 and dot (device mode) on s2
    ENSURE_OK(alcg_blas_nrm2(b, n, v.d_y, d_res2, &s2));
    ENSURE_OK(alcg_blas_dot(b, n, v.d_y, v.d_x, v.d_res, &s2));
    ENSURE_OK(alcg_stream_sync(&s2));
    double rp = 0.0, nr = 0.0;
    ENSURE_OK(alcg_download(&s2, &nr, d_res2, sizeof nr));
    ENSURE_OK(alcg_download(&s2, &rp, v.d_res, sizeof rp));
    // and rr again on s, the handle moving back
    double rr = 0.0;
    ENSURE_OK(alcg_blas_dot(b, n, v.d_x, v.d_x, d_res2, &s));
    ENSURE_OK(alcg_download(&s, &rr, d_res2, sizeof rr));

    // the same on the host
    for (int i = 0; i < n; i++) {
        v.y[i] -= 0.5 * v.x[i];
        v.x[i] *= 3.0;
    }
    ENSURE_NEAR(nr, hostNrm2(v.y, n), 1e-12 * hostNrm2(v.y, n));
    want = hostDot(v.y, v.x, n, &absSum);
    ENSURE_NEAR(rp, want, 1e-12 * absSum);
    want = hostDot(v.x, v.x, n, &absSum);
    ENSURE_NEAR(rr, want, 1e-12 * absSum);

    alcg_free(d_res2);
    vecsFree(&v);
    alcg_stream_free(&s2);
    blasClose(&s, b);
    return ALC_TEST_PASS;
}
