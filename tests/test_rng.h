// The tests' fixed-seed random numbers: a xorshift64* generator (Vigna 2016) with one state per
// test file, so that each file's sequence does not depend on which other tests ran. A file may
// define ALCT_RNG_SEED before including this header to start from another seed.
#ifndef ALC_TESTS_TEST_RNG_H_
#define ALC_TESTS_TEST_RNG_H_

#include <stdint.h>

#ifndef ALCT_RNG_SEED
#define ALCT_RNG_SEED 0x9E3779B97F4A7C15ull
#endif

static uint64_t g_rng = ALCT_RNG_SEED;

/// Restart the sequence from seed s (0 is replaced by 1: xorshift has no zero state).
static inline void rngSeed(uint64_t s) {
    g_rng = s ? s : 1;
}

/// Uniform in [0, 1), 53 random bits.
static inline double rngUniform(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (double)((g_rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

/// Uniform in [a, b).
static inline double rngRange(double a, double b) {
    return a + (b - a) * rngUniform();
}

#endif  // ALC_TESTS_TEST_RNG_H_
