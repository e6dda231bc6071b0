// Test harness in Box2D's shape (RUN_TEST/ENSURE family), with self-registration so that each
// tests/test_<module>.c only defines its tests. The runner (tests/main.c) prints one line per
// test and ends with "N passed, N failed, N skipped" on a line of its own, which CI reads.
#ifndef ALC_TESTS_TEST_MACROS_H_
#define ALC_TESTS_TEST_MACROS_H_

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/// Result of one test function.
enum { ALC_TEST_PASS = 0, ALC_TEST_FAIL = 1, ALC_TEST_SKIP = 2 };

typedef int (*alcTestFn)(void);

/// Registers a test with the runner; called from constructors made by ALC_TEST and
/// ALC_SLOW_TEST. `slow` tests are started first when the tests run in several processes.
void alct_register(const char* name, const char* file, alcTestFn fn, int slow);
/// Tolerance scale from ALC_TOL_SCALE (default 1).
double alct_tolScale(void);
/// Path of ../shared relative to the repository root, or NULL when it is absent.
const char* alct_sharedDir(void);
/// Path of the repository root (where the tests run from).
const char* alct_rootDir(void);
/// Records why a test was skipped (printed by the runner).
void alct_skipReason(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/// Informational line printed under the test's result (measured vs expected values).
void alct_note(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// Defines and registers a test function `static int test_<name>(void)`.
#define ALC_TEST(name) ALCT_DEFINE(name, 0)
/// The same for a test that takes a large share of the suite's time (tens of seconds on 2
/// cores): the runner starts these first, so that its processes end together.
#define ALC_SLOW_TEST(name) ALCT_DEFINE(name, 1)

#define ALCT_DEFINE(name, slow)                                      \
    static int test_##name(void);                                    \
    __attribute__((constructor)) static void alct_reg_##name(void) { \
        alct_register(#name, __FILE__, test_##name, slow);           \
    }                                                                \
    static int test_##name(void)

#define ENSURE(c)                                                                     \
    do {                                                                              \
        if (!(c)) {                                                                   \
            fprintf(stderr, "  ENSURE failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); \
            return ALC_TEST_FAIL;                                                     \
        }                                                                             \
    } while (0)

#define ENSURE_MSG(c, ...)                                                            \
    do {                                                                              \
        if (!(c)) {                                                                   \
            fprintf(stderr, "  ENSURE failed: %s (%s:%d): ", #c, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                             \
            fprintf(stderr, "\n");                                                    \
            return ALC_TEST_FAIL;                                                     \
        }                                                                             \
    } while (0)

/// |a - b| <= tol * ALC_TOL_SCALE
#define ENSURE_SMALL(a, tol)                                                                    \
    do {                                                                                        \
        double alct_v_ = (double)(a);                                                           \
        double alct_t_ = (double)(tol)*alct_tolScale();                                         \
        if (!(fabs(alct_v_) <= alct_t_)) {                                                      \
            fprintf(stderr, "  ENSURE_SMALL failed: |%s| = %.6g > %.6g (%s:%d)\n", #a, alct_v_, \
                    alct_t_, __FILE__, __LINE__);                                               \
            return ALC_TEST_FAIL;                                                               \
        }                                                                                       \
    } while (0)

#define ENSURE_NEAR(a, b, tol) ENSURE_SMALL((double)(a) - (double)(b), tol)

/// Status ALC_OK (0) expected; prints the status otherwise.
#define ENSURE_OK(s)                                                                               \
    do {                                                                                           \
        int alct_s_ = (int)(s);                                                                    \
        if (alct_s_ != 0) {                                                                        \
            fprintf(stderr, "  ENSURE_OK failed: %s returned %d (%s:%d)\n", #s, alct_s_, __FILE__, \
                    __LINE__);                                                                     \
            return ALC_TEST_FAIL;                                                                  \
        }                                                                                          \
    } while (0)

#define SKIP_TEST(...)                \
    do {                              \
        alct_skipReason(__VA_ARGS__); \
        return ALC_TEST_SKIP;         \
    } while (0)

#endif  // ALC_TESTS_TEST_MACROS_H_
