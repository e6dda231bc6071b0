// Sort and scan behind the C shim (cuda/thrust_shim.h) against host loops: random keys with and
// without values, in-place and out-of-place scans with their totals, empty and one-item inputs,
// scratch sized for a larger n, and scratch that is too small (ALC_ERR_CAPACITY, no writes).
#include "../../cuda/thrust_shim.h"
#include "../test_macros.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t g_rng;

static uint64_t rnd(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmpU64(const void* a, const void* b) {
    unsigned long long p = *(const unsigned long long*)a, q = *(const unsigned long long*)b;
    return p < q ? -1 : (p > q ? 1 : 0);
}

// sort n unique keys (random high bits, the index below) with values key ^ 0x5a5a, or alone,
// with scratch sized for nTemp >= n; 1 when the result matches qsort
static int sortCase(alcgStream* s, int n, int nTemp, int withVals) {
    unsigned long long* h = (unsigned long long*)malloc(sizeof(unsigned long long) * (n + 1));
    int* hv = (int*)malloc(sizeof(int) * (n + 1));
    unsigned long long* d = NULL;
    int* dv = NULL;
    void* temp = NULL;
    size_t bytes = 0;
    ENSURE(h && hv);
    for (int k = 0; k < n; k++) {
        h[k] = (rnd() & 0xffffffff00000000ull) | (unsigned)k;
        hv[k] = (int)(h[k] >> 40) ^ 0x5a5a;
    }
    ENSURE_OK(alcg_malloc(s, (void**)&d, sizeof(unsigned long long) * n));
    ENSURE_OK(alcg_malloc(s, (void**)&dv, sizeof(int) * n));
    ENSURE_OK(alcg_upload(s, d, h, sizeof(unsigned long long) * n));
    ENSURE_OK(alcg_upload(s, dv, hv, sizeof(int) * n));
    ENSURE_OK(alcg_sortPairsU64(NULL, NULL, nTemp, NULL, &bytes, s));
    ENSURE(bytes > 0);
    ENSURE_OK(alcg_malloc(s, &temp, bytes));
    ENSURE_OK(alcg_sortPairsU64(d, withVals ? dv : NULL, n, temp, &bytes, s));
    ENSURE_OK(alcg_stream_sync(s));
    qsort(h, (size_t)n, sizeof h[0], cmpU64);
    unsigned long long* got = (unsigned long long*)malloc(sizeof(unsigned long long) * (n + 1));
    int* gotv = (int*)malloc(sizeof(int) * (n + 1));
    ENSURE(got && gotv);
    ENSURE_OK(alcg_download(s, got, d, sizeof(unsigned long long) * n));
    ENSURE_OK(alcg_download(s, gotv, dv, sizeof(int) * n));
    ENSURE(memcmp(got, h, sizeof(unsigned long long) * n) == 0);
    for (int k = 0; k < n; k++) {
        // values moved with their keys, or stayed where they were
        int want = withVals ? ((int)(h[k] >> 40) ^ 0x5a5a) : hv[k];
        ENSURE_MSG(gotv[k] == want, "n %d: value %d at %d, want %d", n, gotv[k], k, want);
    }
    free(h);
    free(hv);
    free(got);
    free(gotv);
    alcg_free(d);
    alcg_free(dv);
    alcg_free(temp);
    return ALC_TEST_PASS;
}

ALC_TEST(shim_sortPairs) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    g_rng = 7;
    static const int sizes[] = {0, 1, 2, 3, 255, 256, 257, 4099, 100000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        ENSURE_MSG(sortCase(&s, n, n, 1) == ALC_TEST_PASS, "pairs, n %d", n);
        ENSURE_MSG(sortCase(&s, n, n, 0) == ALC_TEST_PASS, "keys, n %d", n);
        ENSURE_MSG(sortCase(&s, n, 2 * n + 17, 1) == ALC_TEST_PASS, "larger scratch, n %d", n);
    }
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}

ALC_TEST(shim_sortScratchTooSmall) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    enum { N = 5000 };
    unsigned long long h[N], got[N];
    for (int k = 0; k < N; k++) h[k] = (unsigned long long)(N - k);
    unsigned long long* d = NULL;
    void* temp = NULL;
    ENSURE_OK(alcg_malloc(&s, (void**)&d, sizeof h));
    ENSURE_OK(alcg_upload(&s, d, h, sizeof h));
    ENSURE_OK(alcg_malloc(&s, &temp, 512));
    size_t bytes = 512;
    ENSURE(alcg_sortPairsU64(d, NULL, N, temp, &bytes, &s) == ALC_ERR_CAPACITY);
    ENSURE(strstr(s.err, "scratch") != NULL);
    ENSURE_OK(alcg_download(&s, got, d, sizeof h));
    ENSURE(memcmp(got, h, sizeof h) == 0);
    ENSURE(alcg_sortPairsU64(d, NULL, -1, temp, &bytes, &s) == ALC_ERR_INVALID_ARG);
    alcg_free(d);
    alcg_free(temp);
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}

ALC_TEST(shim_exclusiveScan) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    g_rng = 9;
    static const int sizes[] = {0, 1, 2, 255, 256, 1000, 65537};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        int n = sizes[c];
        int* h = (int*)malloc(sizeof(int) * (n + 1));
        int* want = (int*)malloc(sizeof(int) * (n + 1));
        int* got = (int*)malloc(sizeof(int) * (n + 1));
        ENSURE(h && want && got);
        int sum = 0;
        for (int k = 0; k < n; k++) {
            h[k] = (int)(rnd() % 100);
            want[k] = sum;
            sum += h[k];
        }
        int *din = NULL, *dout = NULL;
        void* temp = NULL;
        size_t bytes = 0;
        ENSURE_OK(alcg_malloc(&s, (void**)&din, sizeof(int) * n));
        ENSURE_OK(alcg_malloc(&s, (void**)&dout, sizeof(int) * n));
        ENSURE_OK(alcg_exclusiveScanI32(NULL, NULL, n, NULL, NULL, &bytes, &s));
        ENSURE_OK(alcg_malloc(&s, &temp, bytes));

        // out of place, with the total
        int total = -1;
        ENSURE_OK(alcg_upload(&s, din, h, sizeof(int) * n));
        ENSURE_OK(alcg_exclusiveScanI32(din, dout, n, &total, temp, &bytes, &s));
        ENSURE_OK(alcg_download(&s, got, dout, sizeof(int) * n));
        ENSURE_MSG(total == sum, "n %d: total %d, want %d", n, total, sum);
        ENSURE(memcmp(got, want, sizeof(int) * n) == 0);

        // in place, without the total, then in place with it
        ENSURE_OK(alcg_exclusiveScanI32(din, din, n, NULL, temp, &bytes, &s));
        ENSURE_OK(alcg_download(&s, got, din, sizeof(int) * n));
        ENSURE(memcmp(got, want, sizeof(int) * n) == 0);
        ENSURE_OK(alcg_upload(&s, din, h, sizeof(int) * n));
        total = -1;
        ENSURE_OK(alcg_exclusiveScanI32(din, din, n, &total, temp, &bytes, &s));
        ENSURE_OK(alcg_download(&s, got, din, sizeof(int) * n));
        ENSURE(total == sum && memcmp(got, want, sizeof(int) * n) == 0);
        free(h);
        free(want);
        free(got);
        alcg_free(din);
        alcg_free(dout);
        alcg_free(temp);
    }
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}
