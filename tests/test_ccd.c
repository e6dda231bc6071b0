// Tests of hd/alcm_ccd.h (additive CCD) and host/ccd_queries.c (the sample-query checker):
// hand-built trajectories with known answers, safety of every returned time on random
// trajectories, the rational reader, and zero false negatives on the CCD sample queries.
#include "ccd_queries.h"
#include "hd/alcm_ccd.h"
#include "hd/alcm_pair.h"
#include "hd/alcm_pairstate.h"
#include "test_macros.h"
#define ALCT_RNG_SEED 0x2545F4914F6CDD1Dull
#include "test_rng.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// ---- helpers --------------------------------------------------------------------------------

static alcV3 rngV3(double s) {
    return alcm_v3(rngRange(-s, s), rngRange(-s, s), rngRange(-s, s));
}

static bool ccd(bool isEE, const alcV3 x[4], const alcV3 dx[4], double xi, double s, double tmax,
                int maxIter, double* toi, int* iters) {
    return isEE ? alcm_ccd_ee(x, dx, xi, s, tmax, maxIter, toi, iters)
                : alcm_ccd_pt(x, dx, xi, s, tmax, maxIter, toi, iters);
}

// distance of the pair at time t
static double distAt(bool isEE, const alcV3 x[4], const alcV3 dx[4], double t) {
    alcV3 v[4];
    for (int i = 0; i < 4; i++) v[i] = alcm_v3_mad(x[i], t, dx[i]);
    return isEE ? alcm_ee_distance(v, NULL) : alcm_pt_distance(v, NULL);
}

// minimum distance sampled at n + 1 points of [t0, t1]
static double minDist(bool isEE, const alcV3 x[4], const alcV3 dx[4], double t0, double t1, int n) {
    double m = 1e300;
    for (int k = 0; k <= n; k++) m = alcm_min(m, distAt(isEE, x, dx, t0 + (t1 - t0) * k / n));
    return m;
}

// standard triangle in z = 0 and a point; dx of the triangle zero
static void ptSetup(alcV3 p, alcV3 dp, alcV3 x[4], alcV3 dx[4]) {
    x[0] = p;
    x[1] = alcm_v3(0, 0, 0);
    x[2] = alcm_v3(1, 0, 0);
    x[3] = alcm_v3(0, 1, 0);
    dx[0] = dp;
    dx[1] = dx[2] = dx[3] = alcm_v3(0, 0, 0);
}

// uniformly random point of the triangle x[1], x[2], x[3]
static alcV3 triPointRandom(const alcV3 x[4]) {
    double a = rngUniform(), b = rngUniform();
    if (a + b > 1) a = 1 - a, b = 1 - b;
    return alcm_v3_mad(alcm_v3_mad(x[1], a, alcm_v3_sub(x[2], x[1])), b, alcm_v3_sub(x[3], x[1]));
}

#define MAXIT 1000000

// ---- hand-built cases -----------------------------------------------------------------------

ALC_TEST(ccd_touchingAtStart) {
    alcV3 x[4], dx[4];
    double toi = -1;
    // point on the face moving away, and moving in
    ptSetup(alcm_v3(0.25, 0.25, 0), alcm_v3(0, 0, 1), x, dx);
    ENSURE(alcm_ccd_pt(x, dx, 0, 0.1, 1, MAXIT, &toi, NULL) && toi == 0);
    ptSetup(alcm_v3(0.25, 0.25, 0), alcm_v3(0, 0, -1), x, dx);
    ENSURE(alcm_ccd_pt(x, dx, 0, 0.1, 1, MAXIT, &toi, NULL) && toi == 0);
    // point at a vertex
    ptSetup(alcm_v3(1, 0, 0), alcm_v3(1, 1, 1), x, dx);
    ENSURE(alcm_ccd_pt(x, dx, 0, 0.1, 1, MAXIT, &toi, NULL) && toi == 0);
    // edges crossing at t = 0, and sharing an endpoint
    alcV3 e[4] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}};
    alcV3 de[4] = {{0, 0, 1}, {0, 0, 1}, {0, 0, -1}, {0, 0, -1}};
    ENSURE(alcm_ccd_ee(e, de, 0, 0.1, 1, MAXIT, &toi, NULL) && toi == 0);
    e[2] = e[1];
    ENSURE(alcm_ccd_ee(e, de, 0, 0.1, 1, MAXIT, &toi, NULL) && toi == 0);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_withinSeparation) {
    alcV3 x[4], dx[4];
    double toi = -1;
    // already within xi: toi 0, even when moving away or not moving at all
    ptSetup(alcm_v3(0.25, 0.25, 0.01), alcm_v3(0, 0, 1), x, dx);
    ENSURE(alcm_ccd_pt(x, dx, 0.02, 0.1, 1, MAXIT, &toi, NULL) && toi == 0);
    ptSetup(alcm_v3(0.25, 0.25, 0.01), alcm_v3(0, 0, 0), x, dx);
    ENSURE(alcm_ccd_pt(x, dx, 0.02, 0.1, 1, MAXIT, &toi, NULL) && toi == 0);
    // outside xi and moving away: no collision, toi = tmax
    ptSetup(alcm_v3(0.25, 0.25, 0.01), alcm_v3(0, 0, 1), x, dx);
    ENSURE(!alcm_ccd_pt(x, dx, 0.005, 0.1, 1, MAXIT, &toi, NULL) && toi == 1);
    // approaching to within xi at t = 0.5 (d = 1 - t, xi = 0.5)
    ptSetup(alcm_v3(0.25, 0.25, 1), alcm_v3(0, 0, -1), x, dx);
    ENSURE(alcm_ccd_pt(x, dx, 0.5, 0.1, 1, MAXIT, &toi, NULL));
    ENSURE_MSG(toi > 0.25 && toi < 0.5 && distAt(false, x, dx, toi) > 0.5, "toi %.17g", toi);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_stepInsideFloor) {
    alcV3 x[4], dx[4];
    double toi = -1;
    // a point 0.01 above the triangle, floor xi = 0.02: the step-size query keeps 90 % of its
    // gap instead of xi, so moving away is free (the plain query says collision at 0)
    ptSetup(alcm_v3(0.25, 0.25, 0.01), alcm_v3(0, 0, 1), x, dx);
    double xi = alcm_ccd_stepSep(x, dx, false, 0.02, 1);
    ENSURE_MSG(xi < 0.01 && xi > 0.008, "xi %.17g", xi);
    ENSURE(!alcm_ccd_pt(x, dx, xi, 0.1, 1, MAXIT, &toi, NULL) && toi == 1);
    // moving towards the triangle: stopped before it loses 10 % of its gap
    ptSetup(alcm_v3(0.25, 0.25, 0.01), alcm_v3(0, 0, -1), x, dx);
    xi = alcm_ccd_stepSep(x, dx, false, 0.02, 1);
    ENSURE(alcm_ccd_pt(x, dx, xi, 0.1, 1, MAXIT, &toi, NULL));
    ENSURE_MSG(toi > 0 && toi < 0.001 && distAt(false, x, dx, toi) > 0.009, "toi %.17g", toi);
    // sliding along at the same height: free
    ptSetup(alcm_v3(0.25, 0.25, 0.01), alcm_v3(0.1, 0.05, 0), x, dx);
    xi = alcm_ccd_stepSep(x, dx, false, 0.02, 1);
    ENSURE(!alcm_ccd_pt(x, dx, xi, 0.1, 1, MAXIT, &toi, NULL) && toi == 1);
    // outside the floor, or no floor: xi unchanged
    ptSetup(alcm_v3(0.25, 0.25, 0.5), alcm_v3(0, 0, -1), x, dx);
    ENSURE(alcm_ccd_stepSep(x, dx, false, 0.02, 1) == 0.02);
    ENSURE(alcm_ccd_stepSep(x, dx, false, 0, 1) == 0);
    // touching (within the error bound): unchanged, so still a collision at 0
    ptSetup(alcm_v3(0.25, 0.25, 0), alcm_v3(0, 0, 1), x, dx);
    ENSURE(alcm_ccd_stepSep(x, dx, false, 0.02, 1) == 0.02);
    // edge-edge: two crossing edges 0.01 apart separating
    alcV3 e[4] = {alcm_v3(0, 0, 0), alcm_v3(1, 0, 0), alcm_v3(0.5, -0.5, 0.01),
                  alcm_v3(0.5, 0.5, 0.01)};
    alcV3 de[4] = {alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, 0.5), alcm_v3(0, 0, 0.5)};
    xi = alcm_ccd_stepSep(e, de, true, 0.02, 1);
    ENSURE(!alcm_ccd_ee(e, de, xi, 0.1, 1, MAXIT, &toi, NULL) && toi == 1);
    return ALC_TEST_PASS;
}

/// The step-size floor of an active pair whose linearized constraint the iterate violates by
/// more than delta (alcm_pair_stepFloor): such a pair may not be advanced below
/// ALC_CCD_ACTIVE_FLOOR delta; a satisfied or slightly violated active pair, and any pair not in
/// the set, keeps xi. Then a head-on approach of such a pair stops outside the floor.
ALC_TEST(ccd_activePairFloor) {
    const double delta = 1e-3, xi = 1e-9;
    alcmPair set[3];
    memset(set, 0, sizeof set);
    set[0].key = ALC_PAIR_KEY(ALC_PAIR_PT, 1, 4);
    set[0].c = -3 * delta;  // the iterate is 3 delta past the pair's plane
    set[1].key = ALC_PAIR_KEY(ALC_PAIR_PT, 2, 0);
    set[1].c = -0.5 * delta;  // within delta of it: the multiplier is nearly there
    set[2].key = ALC_PAIR_KEY(ALC_PAIR_EE, 0, 7);
    set[2].c = -3 * delta;
    ENSURE(alcm_pair_stepFloor(set, 3, set[0].key, xi, delta) == ALC_CCD_ACTIVE_FLOOR * delta);
    ENSURE(alcm_pair_stepFloor(set, 3, set[2].key, xi, delta) == ALC_CCD_ACTIVE_FLOOR * delta);
    ENSURE(alcm_pair_stepFloor(set, 3, set[1].key, xi, delta) == xi);
    ENSURE(alcm_pair_stepFloor(set, 3, ALC_PAIR_KEY(ALC_PAIR_PT, 1, 5), xi, delta) == xi);
    ENSURE(alcm_pair_stepFloor(set, 0, set[0].key, xi, delta) == xi);
    // a larger model floor wins
    ENSURE(alcm_pair_stepFloor(set, 3, set[0].key, 1.0, delta) == 1.0);
    // a point 10 delta above the triangle moving 20 delta into it: stopped outside the floor
    alcV3 x[4], dx[4];
    double toi = -1;
    ptSetup(alcm_v3(0.25, 0.25, 10 * delta), alcm_v3(0, 0, -20 * delta), x, dx);
    double f =
        alcm_ccd_stepSep(x, dx, false, alcm_pair_stepFloor(set, 3, set[0].key, xi, delta), 1);
    ENSURE(alcm_ccd_pt(x, dx, f, 0.1, 1, MAXIT, &toi, NULL));
    ENSURE_MSG(distAt(false, x, dx, toi) >= ALC_CCD_ACTIVE_FLOOR * delta, "gap %.17g",
               distAt(false, x, dx, toi));
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_headOn) {
    double toi;
    int iters;
    // point falls onto the face at T = 0.5 (d = 1 - 2t)
    alcV3 x[4], dx[4];
    ptSetup(alcm_v3(0.2, 0.3, 1), alcm_v3(0, 0, -2), x, dx);
    ENSURE(alcm_ccd_pt(x, dx, 0, 0.1, 1, MAXIT, &toi, &iters));
    ENSURE_MSG(toi > 0.25 && toi <= 0.5 && minDist(false, x, dx, 0, toi, 1000) > 0,
               "PT toi %.17g (T = 0.5)", toi);
    alct_note("PT head-on: toi %.6f for T = 0.5 in %d iterations", toi, iters);
    // the first step covers (1 - s) of the gap, the next would leave less than s: toi = 0.9 T
    ENSURE_NEAR(toi, 0.45, 1e-9);
    // the triangle moves onto a resting point instead (mean displacement removed)
    for (int i = 1; i < 4; i++) x[i].z -= 1, dx[i] = alcm_v3(0, 0, 2);
    x[0].z = 0;
    dx[0] = alcm_v3(0, 0, 0);
    ENSURE(alcm_ccd_pt(x, dx, 0, 0.1, 1, MAXIT, &toi, NULL));
    ENSURE_MSG(toi > 0.25 && toi <= 0.5, "moving triangle toi %.17g", toi);
    // crossing edges approach at T = 0.25 (each moves 2 per unit t)
    alcV3 e[4] = {{-1, 0.1, 0.5}, {1, 0.1, 0.5}, {0.2, -1, -0.5}, {0.2, 1, -0.5}};
    alcV3 de[4] = {{0, 0, -2}, {0, 0, -2}, {0, 0, 2}, {0, 0, 2}};
    ENSURE(alcm_ccd_ee(e, de, 0, 0.1, 1, MAXIT, &toi, NULL));
    ENSURE_MSG(toi > 0.125 && toi <= 0.25 && minDist(true, e, de, 0, toi, 1000) > 0,
               "EE toi %.17g (T = 0.25)", toi);
    // with a minimum separation xi = 0.2 the contact time is (1 - 0.2) / 4 = 0.2
    ENSURE(alcm_ccd_ee(e, de, 0.2, 0.1, 1, MAXIT, &toi, NULL));
    ENSURE_MSG(toi > 0.1 && toi <= 0.2 && minDist(true, e, de, 0, toi, 1000) > 0.2,
               "EE xi toi %.17g (T = 0.2)", toi);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_pureTranslation) {
    double toi = -1;
    int iters = -1;
    alcV3 x[4], dx[4];
    ptSetup(alcm_v3(0.2, 0.3, 0.001), alcm_v3(5, -3, 2), x, dx);
    for (int i = 1; i < 4; i++) dx[i] = dx[0];
    ENSURE(!alcm_ccd_pt(x, dx, 0, 0.1, 1, MAXIT, &toi, &iters) && toi == 1 && iters == 0);
    alcV3 e[4] = {{0, 0, 0}, {1, 0, 0}, {0.5, -1, 0.001}, {0.5, 1, 0.001}};
    alcV3 de[4] = {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}};
    ENSURE(!alcm_ccd_ee(e, de, 0, 0.1, 2.5, MAXIT, &toi, &iters) && toi == 2.5 && iters == 0);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_missAndHitByAHair) {
    double toi;
    alcV3 x[4], dx[4];
    // the point falls past the edge x = 0 at 1e-4 outside: closest approach 1e-4 at t = 0.5;
    // with s = 1e-6 the stopping gap s * d0 is below 1e-4, so ACCD must pass it
    ptSetup(alcm_v3(-1e-4, 0.3, 1), alcm_v3(0, 0, -2), x, dx);
    ENSURE_MSG(!alcm_ccd_pt(x, dx, 0, 1e-6, 1, MAXIT, &toi, NULL), "PT miss reported, toi %g", toi);
    ENSURE(toi == 1);
    // 1e-4 inside: a hit for every s
    ptSetup(alcm_v3(1e-4, 0.3, 1), alcm_v3(0, 0, -2), x, dx);
    ENSURE(alcm_ccd_pt(x, dx, 0, 1e-6, 1, MAXIT, &toi, NULL) && toi > 0.4 && toi <= 0.5);
    ENSURE(alcm_ccd_pt(x, dx, 0, 0.1, 1, MAXIT, &toi, NULL) && toi > 0.25 && toi <= 0.5);
    // edge a falls past the end b1 = (0.5, 1, 0) of edge b by 1e-4, and onto it 1e-4 inside
    alcV3 e[4] = {{0, 1 + 1e-4, 1}, {1, 1 + 1e-4, 1}, {0.5, -1, 0}, {0.5, 1, 0}};
    alcV3 de[4] = {{0, 0, -2}, {0, 0, -2}, {0, 0, 0}, {0, 0, 0}};
    ENSURE_MSG(!alcm_ccd_ee(e, de, 0, 1e-6, 1, MAXIT, &toi, NULL), "EE miss reported, toi %g", toi);
    e[0].y = e[1].y = 1 - 1e-4;
    ENSURE(alcm_ccd_ee(e, de, 0, 1e-6, 1, MAXIT, &toi, NULL) && toi > 0.4 && toi <= 0.5);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_grazingSliding) {
    double toi;
    int iters;
    alcV3 x[4], dx[4];
    // sliding across the face at height 0.01: the gap never drops below s * d0
    ptSetup(alcm_v3(0.1, 0.2, 0.01), alcm_v3(0.5, 0, 0), x, dx);
    ENSURE(!alcm_ccd_pt(x, dx, 0, 0.1, 1, MAXIT, &toi, &iters) && toi == 1);
    alct_note("sliding at height 0.01: no collision in %d iterations", iters);
    // same with an iteration cap of 10: a conservative collision at a safe time
    ENSURE(alcm_ccd_pt(x, dx, 0, 0.1, 1, 10, &toi, &iters) && iters == 10);
    ENSURE(toi > 0 && toi < 1 && minDist(false, x, dx, 0, toi, 1000) > 0);
    // sliding in contact (height 0): collision at 0
    ptSetup(alcm_v3(0.1, 0.2, 0), alcm_v3(0.5, 0, 0), x, dx);
    ENSURE(alcm_ccd_pt(x, dx, 0, 0.1, 1, MAXIT, &toi, NULL) && toi == 0);
    // grazing: sliding down at a shallow angle, touching the face at t = 1 (d = 1e-3 (1 - t))
    ptSetup(alcm_v3(0.1, 0.2, 1e-3), alcm_v3(0.5, 0.1, -1e-3), x, dx);
    ENSURE(alcm_ccd_pt(x, dx, 0, 0.1, 1, MAXIT, &toi, NULL) && toi > 0.5 && toi < 1);
    // sliding past the end of an edge, parallel to it, at height 1e-3 (EE)
    alcV3 e[4] = {{-1, 0, 1e-3}, {0, 0, 1e-3}, {0, -1, 0}, {0, 1, 0}};
    alcV3 de[4] = {{0, 0.5, 0}, {0, 0.5, 0}, {0, 0, 0}, {0, 0, 0}};
    ENSURE(!alcm_ccd_ee(e, de, 0, 0.1, 1, MAXIT, &toi, &iters) && toi == 1);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_parallelEdges) {
    double toi;
    // parallel overlapping edges approach head-on: contact at T = 0.5
    alcV3 e[4] = {{0, 0, 1}, {1, 0, 1}, {0.5, 0, 0}, {1.5, 0, 0}};
    alcV3 de[4] = {{0, 0, -2}, {0, 0, -2}, {0, 0, 0}, {0, 0, 0}};
    ENSURE(alcm_ccd_ee(e, de, 0, 0.1, 1, MAXIT, &toi, NULL));
    ENSURE_MSG(toi > 0.25 && toi <= 0.5 && minDist(true, e, de, 0, toi, 1000) > 0, "toi %g", toi);
    // parallel edges sliding along each other at distance 0.1: no collision
    de[0] = de[1] = alcm_v3(3, 0, 0);
    e[0].z = e[1].z = 0.1;
    ENSURE(!alcm_ccd_ee(e, de, 0, 0.1, 1, MAXIT, &toi, NULL) && toi == 1);
    // collinear edges approaching along their line: touch at T = 0.5
    alcV3 c[4] = {{-2, 0, 0}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}};
    alcV3 dc[4] = {{2, 0, 0}, {2, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    ENSURE(alcm_ccd_ee(c, dc, 0, 0.1, 1, MAXIT, &toi, NULL));
    ENSURE_MSG(toi > 0.25 && toi <= 0.5 && minDist(true, c, dc, 0, toi, 1000) > 0, "toi %g", toi);
    // nearly parallel edges (1e-12 tilt) crossing each other as edge a falls through b
    alcV3 n[4] = {{0, 0, 1}, {1, 0, 1}, {0.2, 0, 1e-12}, {0.8, 0, -1e-12}};
    alcV3 dn[4] = {{0, 0, -2}, {0, 0, -2}, {0, 0, 0}, {0, 0, 0}};
    ENSURE(alcm_ccd_ee(n, dn, 0, 0.1, 1, MAXIT, &toi, NULL) && toi <= 0.5);
    return ALC_TEST_PASS;
}

// ---- safety on random trajectories
// ----------------------------------------------------------------

ALC_TEST(ccd_safetyRandom) {
    rngSeed(2024);
    long hits = 0, runs = 0, capped = 0;
    for (int it = 0; it < 3000; it++) {
        bool isEE = it & 1;
        // every sixth pair touches exactly at t = 1 (no noise, the other feature at rest)
        bool touch = it % 6 < 2;
        alcV3 x[4], dx[4];
        for (int i = 0; i < 4; i++) x[i] = rngV3(1.0);
        // the moving feature aims at a random point of the other one (most trajectories hit)
        alcV3 target =
            isEE ? alcm_v3_mad(x[2], rngUniform(), alcm_v3_sub(x[3], x[2])) : triPointRandom(x);
        if (!touch) target = alcm_v3_add(target, rngV3(0.2));
        alcV3 src = isEE ? alcm_v3_mad(x[0], rngUniform(), alcm_v3_sub(x[1], x[0])) : x[0];
        alcV3 push = alcm_v3_scale(alcm_v3_sub(target, src), touch ? 1.0 : rngRange(0.5, 2.5));
        for (int i = 0; i < 4; i++) {
            bool mover = i < (isEE ? 2 : 1);
            dx[i] = touch ? alcm_v3(0, 0, 0) : rngV3(0.3);
            if (mover) dx[i] = alcm_v3_add(dx[i], push);
        }
        double xi = (touch || it % 3 == 0) ? 0.0 : rngRange(0, 0.05);
        double s = (it % 5 == 0) ? 0.01 : 0.1;
        double toi;
        int iters;
        bool hit = ccd(isEE, x, dx, xi, s, 1, 100000, &toi, &iters);
        runs++;
        if (hit) hits++;
        if (iters >= 100000) capped++;
        ENSURE_MSG(hit || !touch, "run %d: touching pair not reported", it);
        ENSURE_MSG(hit || toi == 1, "run %d: no collision but toi %g", it, toi);
        ENSURE_MSG(toi >= 0 && toi <= 1, "run %d: toi %g", it, toi);
        if (hit && toi == 0) {
            // toi 0 only for a pair that starts within xi (up to the rounding bound)
            double d0 = distAt(isEE, x, dx, 0);
            ENSURE_MSG(d0 <= xi + 1e-12, "run %d: toi 0 at distance %.3g, xi %.3g", it, d0, xi);
            continue;
        }
        // a reported time keeps at least s times the initial gap (the ACCD rescale)
        if (hit) {
            double g0 = distAt(isEE, x, dx, 0) - xi, gt = distAt(isEE, x, dx, toi) - xi;
            ENSURE_MSG(gt >= s * g0 * (1 - 1e-9), "run %d: gap %.3g at toi, s * gap0 %.3g", it, gt,
                       s * g0);
        }
        // every returned time is safe: distance > xi on [0, toi], or on [0, 1] for no collision
        // (then a collision found by dense sampling would be a false negative)
        double m = minDist(isEE, x, dx, 0, hit ? toi : 1.0, hit ? 1000 : 3000);
        ENSURE_MSG(m > xi, "run %d (%s): distance %.3g <= xi %.3g before toi %.6g", it,
                   isEE ? "EE" : "PT", m, xi, hit ? toi : 1.0);
    }
    ENSURE(hits > runs / 4 && hits < runs);
    alct_note("%ld random trajectories: %ld collisions, %ld capped", runs, hits, capped);
    return ALC_TEST_PASS;
}

// ---- rational reader and sample queries ---------------------------------------------------------

ALC_TEST(ccd_parseRational) {
    double v;
    ENSURE_OK(alci_ccd_parseRational("1", "3", &v));
    ENSURE(v == 1.0 / 3.0);
    ENSURE_OK(alci_ccd_parseRational("-1", "8388608", &v));
    ENSURE(v == -0x1p-23);
    ENSURE_OK(alci_ccd_parseRational("0", "7", &v));
    ENSURE(v == 0);
    ENSURE_OK(alci_ccd_parseRational("-6", "-4", &v));
    ENSURE(v == 1.5);
    // 34-digit numerator, correctly rounded (value from exact rational arithmetic)
    ENSURE_OK(alci_ccd_parseRational("1234567890123456789012345678901235", "1", &v));
    ENSURE_MSG(v == 0x1.e6f37ffcb996fp+109, "%a", v);
    // 2^53 + 1 rounds to even (down), 2^53 + 3 rounds up
    ENSURE_OK(alci_ccd_parseRational("9007199254740993", "1", &v));
    ENSURE(v == 9007199254740992.0);
    ENSURE_OK(alci_ccd_parseRational("9007199254740995", "1", &v));
    ENSURE(v == 9007199254740996.0);
    // quotient below 2^-60 with a 38-digit denominator
    ENSURE_OK(alci_ccd_parseRational("7", "99999999999999999999999999999999999999", &v));
    ENSURE_MSG(v == 0x1.7d1dc29f529c8p-124, "%a", v);
    ENSURE(alci_ccd_parseRational("1", "0", &v) != ALC_OK);
    ENSURE(alci_ccd_parseRational("1x", "2", &v) != ALC_OK);
    ENSURE(alci_ccd_parseRational("", "2", &v) != ALC_OK);
    return ALC_TEST_PASS;
}

// writes text to a fresh temporary file; path receives its name
static bool writeTemp(const char* text, char path[64]) {
    snprintf(path, 64, "/tmp/alc_ccdq_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return false;
    FILE* f = fdopen(fd, "w");
    if (!f) return false;
    fputs(text, f);
    fclose(f);
    return true;
}

ALC_TEST(ccd_loadQueriesErrors) {
    char path[64], err[512];
    double* pos = NULL;
    int* truth = NULL;
    long nq = -1;
    // a valid query of 8 rows (point falling onto a triangle)
    const char* good =
        "1,4,1,4,1,1,1\n0,1,0,1,0,1,1\n1,1,0,1,0,1,1\n0,1,1,1,0,1,1\n"
        "1,4,1,4,-1,1,1\n0,1,0,1,0,1,1\n1,1,0,1,0,1,1\n0,1,1,1,0,1,1\n";
    ENSURE(writeTemp(good, path));
    ENSURE_OK(alci_ccd_loadQueries(path, 0, &pos, &truth, &nq, err, sizeof err));
    remove(path);
    ENSURE(nq == 1 && truth[0] == 1 && pos[0] == 0.25 && pos[14] == -1);
    alciCcdQueryStats st = {0, 0, 0, 0, 0, 0};
    int rep = -1;
    ENSURE_OK(alci_ccd_runQueries(pos, truth, nq, 0, &st, &rep));
    ENSURE(rep == 1 && st.truePos == 1 && st.queries == 1);
    free(pos);
    free(truth);
    // malformed files name the line
    struct {
        const char* text;
        const char* where;
    } bad[] = {
        {"1,1,1,1,1,1,0\n1,1,1,x,1,1,0\n", ":2:"},
        {"1,1,1,1,1,1,0\n1,1,1,1,1,0\n", ":2:"},
        {"1,1,1,1,1,1,0\n1,1,1,1,1,1,2\n", ":2:"},
        {"1,1,1,1,1,1,0\n1,1,1,1,1,1,1\n", ":2:"},
        {"1,1,1,1,1,1,0\n1,1,1,1,1,1,0\n1,1,1,1,1,1,0\n", ":3:"},
        {"1,1,1,0,1,1,0\n", ":1:"},
    };
    for (int b = 0; b < (int)(sizeof bad / sizeof bad[0]); b++) {
        ENSURE(writeTemp(bad[b].text, path));
        alctStatus s = alci_ccd_loadQueries(path, 1, &pos, &truth, &nq, err, sizeof err);
        remove(path);
        ENSURE_MSG(s == ALC_ERR_SCENE && strstr(err, bad[b].where) && strstr(err, path),
                   "case %d: status %d, '%s'", b, (int)s, err);
        ENSURE(pos == NULL && truth == NULL);
    }
    ENSURE(alci_ccd_loadQueries("/nonexistent/q.csv", 0, &pos, &truth, &nq, err, sizeof err) ==
           ALC_ERR_IO);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_sampleQueries) {
    const char* shared = alct_sharedDir();
    if (!shared) SKIP_TEST("shared directory not found");
    char dir[1024], err[512];
    snprintf(dir, sizeof dir, "%s/data/ccd-sample-queries", shared);
    if (access(dir, R_OK) != 0) SKIP_TEST("%s not found", dir);
    alciCcdQueryStats t;
    ENSURE_OK(alci_ccd_checkDir(dir, NULL, 0, &t, err, sizeof err));
    alct_note("%ld queries: TP %ld, FP %ld, TN %ld, FN %ld, %.3g queries/s", t.queries, t.truePos,
              t.falsePos, t.trueNeg, t.falseNeg,
              t.seconds > 0 ? (double)t.queries / t.seconds : 0.0);
    ENSURE(t.queries > 7000);
    ENSURE(t.truePos + t.falsePos + t.trueNeg + t.falseNeg == t.queries);
    ENSURE_MSG(t.falseNeg == 0, "%ld false negatives", t.falseNeg);
    // false positives stay a minority of the negatives
    ENSURE_MSG(t.falsePos < (t.falsePos + t.trueNeg) / 5, "%ld false positives", t.falsePos);
    return ALC_TEST_PASS;
}

// solver.ccd_gap_cap (alcm_ccd_capRescale, issue 14): a point sliding over a triangle from
// 10 delta above it to 0.5 delta above it is cut by ACCD's rule once its gap falls below s = 0.1
// of the start gap, and passes under a cap of 1 delta (the gap stays above 0.1 delta); a path that
// ends 0.05 delta above is still cut, above 0.1 delta; a pair within the cap keeps s itself
ALC_TEST(ccd_gapCapKeepsFarPairsToTheNearRule) {
    const double delta = 1e-3, s = 0.1;
    alcV3 x[4] = {{0.25, 0.25, 10 * delta}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    alcV3 dx[4] = {{0.25, 0, -9.5 * delta}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    ENSURE(alcm_ccd_capRescale(x, dx, false, 0, s, 0, 1.0) == s);  // no cap
    double sc = alcm_ccd_capRescale(x, dx, false, 0, s, delta, 1.0);
    ENSURE_MSG(fabs(sc - s * 0.1) < 1e-6 * s, "%g", sc);  // gap 10 delta: s / 10
    double toi = 0;
    ENSURE(alcm_ccd_pt(x, dx, 0, s, 1.0, 100000, &toi, NULL) && toi < 1);
    double zCut = x[0].z + toi * dx[0].z;
    ENSURE_MSG(zCut >= s * 10 * delta, "gap at the cut %g delta", zCut / delta);
    ENSURE(!alcm_ccd_pt(x, dx, 0, sc, 1.0, 100000, &toi, NULL) && toi == 1);
    // to 0.05 delta: cut, the gap at the cut at least s x delta and below the uncapped cut
    dx[0].z = -9.95 * delta;
    ENSURE(alcm_ccd_pt(x, dx, 0, sc, 1.0, 100000, &toi, NULL) && toi < 1);
    zCut = x[0].z + toi * dx[0].z;
    ENSURE_MSG(zCut >= s * delta && zCut < 0.5 * delta, "gap at the cut %g delta", zCut / delta);
    // a pair within the cap: the rule as without it
    x[0].z = 0.5 * delta;
    ENSURE(alcm_ccd_capRescale(x, dx, false, 0, s, delta, 1.0) == s);
    // edge-edge too: crossing edges 10 delta apart, one sliding along itself down to 0.5 delta
    alcV3 e[4] = {{-1, 0, 10 * delta}, {1, 0, 10 * delta}, {0, -1, 0}, {0, 1, 0}};
    alcV3 de[4] = {{0.25, 0, -9.5 * delta}, {0.25, 0, -9.5 * delta}, {0, 0, 0}, {0, 0, 0}};
    double se = alcm_ccd_capRescale(e, de, true, 0, s, delta, 1.0);
    ENSURE(se < s);
    ENSURE(alcm_ccd_ee(e, de, 0, s, 1.0, 100000, &toi, NULL) && toi < 1);
    ENSURE(!alcm_ccd_ee(e, de, 0, se, 1.0, 100000, &toi, NULL) && toi == 1);
    return ALC_TEST_PASS;
}
