// Test runner: runs every registered test (or those whose name contains argv[1]) and ends with
// "N passed, N failed, N skipped" on a line of its own.
#define _POSIX_C_SOURCE 200809L
#include "test_macros.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_TESTS 1024

typedef struct {
    const char* name;
    const char* file;
    alcTestFn fn;
} TestEntry;

static TestEntry g_tests[MAX_TESTS];
static int g_ntest = 0;
static char g_skip[512];
static char g_notes[8192];

void alct_register(const char* name, const char* file, alcTestFn fn) {
    if (g_ntest < MAX_TESTS) {
        g_tests[g_ntest].name = name;
        g_tests[g_ntest].file = file;
        g_tests[g_ntest].fn = fn;
        g_ntest++;
    }
}

double alct_tolScale(void) {
    const char* s = getenv("ALC_TOL_SCALE");
    double v = s ? atof(s) : 1.0;
    return v > 0 ? v : 1.0;
}

const char* alct_rootDir(void) {
    const char* s = getenv("ALC_ROOT");
    return s ? s : ".";
}

const char* alct_sharedDir(void) {
    static char path[1024];
    const char* env = getenv("ALC_SHARED");
    if (env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        snprintf(path, sizeof path, "%s/../shared", alct_rootDir());
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return path;
}

void alct_skipReason(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_skip, sizeof g_skip, fmt, ap);
    va_end(ap);
}

void alct_note(const char* fmt, ...) {
    size_t len = strlen(g_notes);
    if (len + 8 >= sizeof g_notes) return;
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(g_notes + len, sizeof g_notes - len, "    ");
    if (n > 0) len += (size_t)n;
    vsnprintf(g_notes + len, sizeof g_notes - len, fmt, ap);
    va_end(ap);
    len = strlen(g_notes);
    if (len + 1 < sizeof g_notes) {
        g_notes[len] = '\n';
        g_notes[len + 1] = 0;
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpEntry(const void* a, const void* b) {
    const TestEntry* ta = (const TestEntry*)a;
    const TestEntry* tb = (const TestEntry*)b;
    int c = strcmp(ta->file, tb->file);
    return c ? c : strcmp(ta->name, tb->name);
}

#ifdef ALC_GPU_TESTS
#include "alc/alc.h"
int alcg_device_emulated(void);  // cuda/device.cu
#endif

int main(int argc, char** argv) {
    const char* filter = argc > 1 ? argv[1] : NULL;
#ifdef ALC_GPU_TESTS
    // GPU tests run only on a usable device; otherwise the whole runner is waived (exit 2,
    // cuda-samples' EXIT_WAIVED): never "passed" without a GPU
    if (!alcu_cudaAvailable()) {
        printf("waived: no usable CUDA device (%d GPU tests not run)\n", g_ntest);
        printf("0 passed, 0 failed, %d skipped\n", g_ntest);
        return 2;
    }
    if (alcg_device_emulated()) {
        printf(
            "GPU tests on alcove's SIMT emulation (cuda/*.cu run on the CPU, seed %s): they "
            "validate the kernels' logic against the reference, not a device\n",
            getenv("ALC_EMU_SEED") ? getenv("ALC_EMU_SEED") : "1");
    }
#endif
    int passed = 0, failed = 0, skipped = 0;
    qsort(g_tests, (size_t)g_ntest, sizeof g_tests[0], cmpEntry);
    double t0 = now();
    for (int i = 0; i < g_ntest; i++) {
        if (filter && !strstr(g_tests[i].name, filter) && !strstr(g_tests[i].file, filter)) {
            continue;
        }
        g_skip[0] = 0;
        g_notes[0] = 0;
        double ts = now();
        int r = g_tests[i].fn();
        double dt = now() - ts;
        const char* tag = r == ALC_TEST_PASS ? "PASS" : (r == ALC_TEST_SKIP ? "SKIP" : "FAIL");
        printf("%s %-40s %7.2f s%s%s\n", tag, g_tests[i].name, dt, g_skip[0] ? "  -- " : "",
               g_skip);
        if (g_notes[0]) printf("%s", g_notes);
        fflush(stdout);
        if (r == ALC_TEST_PASS)
            passed++;
        else if (r == ALC_TEST_SKIP)
            skipped++;
        else
            failed++;
    }
    printf("total %.1f s\n", now() - t0);
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
