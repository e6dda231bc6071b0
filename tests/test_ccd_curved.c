// Tests of hd/alcm_interval.h (outward-rounded interval arithmetic), hd/alcm_rigid.h (Rodrigues
// rotation, rigid paths and their chord-deviation bounds) and hd/alcm_ccd_curved.h (the
// curved-trajectory CCD of rigid IPC §4.3): enclosures checked against dense samples, rigid
// motions with exact answers (a rotating rod sweeping past an edge, a blade past a point, a
// screw, a tumbling coin, a full turn whose chord is a point), degenerate cases, and zero false
// negatives on random rigid motions against densely sampled distances.
#include "hd/alcm_ccd_curved.h"
#include "test_macros.h"
#include "test_rng.h"

#include <stdint.h>
#include <stdio.h>

static alcV3 rngV3(double a, double b) {
    return alcm_v3(rngRange(a, b), rngRange(a, b), rngRange(a, b));
}

static const double kPi = 3.14159265358979323846;

/// A rigid path of the body point a rotating about z by angle ang over the step, with the
/// translation moving from q0 to q1.
static alcRigidPath spinZ(alcV3 a, double ang0, double ang1, alcV3 q0, alcV3 q1) {
    alcRigidPath p;
    p.a = a;
    p.theta0 = alcm_v3(0, 0, ang0);
    p.theta1 = alcm_v3(0, 0, ang1);
    p.q0 = q0;
    p.q1 = q1;
    return p;
}

static alcRigidPath fixedAt(alcV3 x) {
    return alcm_rigidPath_linear(x, x);
}

ALC_TEST(ccd_curved_intervalEncloses) {
    // every operation's interval holds the operation's value at sampled points of its operands
    // (computed in long double, which is wider than double on x86-64 and at least as wide
    // elsewhere); the sin and sinc bounds also hold at their crests, troughs and near zero
    int bad = 0;
    for (int trial = 0; trial < 2000; trial++) {
        double s = trial % 3 == 0 ? 1e-3 : (trial % 3 == 1 ? 1.0 : 40.0);
        double a0 = rngRange(-s, s), b0 = rngRange(-s, s);
        alcI a = alcm_i(a0, a0 + rngRange(0, s)), b = alcm_i(b0, b0 + rngRange(0, s));
        alcI add = alcm_i_add(a, b), sub = alcm_i_sub(a, b), mul = alcm_i_mul(a, b);
        alcI sq = alcm_i_sqr(a), sn = alcm_i_sin(a), sc = alcm_i_sinc(a);
        alcI sr = alcm_i_sqrt(alcm_i_sqr(a)), dv = alcm_i_div(a, alcm_i(0.5, 2.0));
        for (int k = 0; k <= 20; k++) {
            long double x = a.lo + (a.hi - a.lo) * (k / 20.0L);
            long double y = b.lo + (b.hi - b.lo) * ((20 - k) / 20.0L);
            if (x > a.hi) x = a.hi;
            if (y > b.hi) y = b.hi;
            long double snx = sinl(x), scx = x == 0 ? 1.0L : sinl(x) / x;
            bad += !(add.lo <= x + y && x + y <= add.hi);
            bad += !(sub.lo <= x - y && x - y <= sub.hi);
            bad += !(mul.lo <= x * y && x * y <= mul.hi);
            bad += !(sq.lo <= x * x && x * x <= sq.hi);
            bad += !(sn.lo <= snx && snx <= sn.hi);
            bad += !(sc.lo <= scx && scx <= sc.hi);
            bad += !(sr.lo <= fabsl(x) && fabsl(x) <= sr.hi);
            for (int j = 0; j <= 4; j++) {
                long double q = x / (0.5L + 1.5L * (j / 4.0L));
                bad += !(dv.lo <= q && q <= dv.hi);
            }
        }
    }
    // crests and troughs strictly inside: the bound reaches +-1
    alcI c = alcm_i_sin(alcm_i(1.5, 1.6)), t = alcm_i_sin(alcm_i(-1.6, -1.5));
    ENSURE(c.hi == 1.0 && t.lo == -1.0);
    ENSURE(alcm_i_sin(alcm_i(0.1, 0.2)).hi < 0.2);
    // sinc: 1 at 0, below 1 away from it, the minimum near 4.4934 (-0.2172...) enclosed
    alcI z = alcm_i_sinc(alcm_i(-1e-9, 1e-9)), m = alcm_i_sinc(alcm_i(4.0, 5.0));
    ENSURE(z.hi == 1.0 && z.lo > 1.0 - 1e-14);
    ENSURE(m.lo <= -0.2172336282 && m.hi >= sin(4.0) / 4.0);
    ENSURE(alcm_i_div(alcm_i(1, 2), alcm_i(-1, 1)).lo == -HUGE_VAL);
    ENSURE(isinf(alcm_i_add(alcm_i(NAN, 1), alcm_i(0, 1)).hi));
    ENSURE_MSG(bad == 0, "%d sampled values outside their intervals", bad);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_curved_rodrigues) {
    // R(theta) is a rotation, rotates by |theta| about theta, is smooth through 0, and the
    // interval rotation encloses R(th) a for sampled th in its box
    alcM3 R = alcm_rodrigues(alcm_v3(0, 0, 0.5 * kPi));
    alcV3 y = alcm_m3_mulv(R, alcm_v3(1, 0, 0));
    ENSURE(fabs(y.x) < 1e-15 && fabs(y.y - 1) < 1e-15 && fabs(y.z) < 1e-15);
    int bad = 0;
    for (int trial = 0; trial < 300; trial++) {
        double s = trial % 2 ? 1e-6 : 6.0;
        alcV3 th = rngV3(-s, s);
        alcM3 Q = alcm_rodrigues(th);
        alcM3 QtQ = alcm_m3_Tmul(Q, Q);
        for (int i = 0; i < 9; i++) bad += fabs(QtQ.m[i] - (i % 4 == 0)) > 1e-14;
        bad += fabs(alcm_m3_det(Q) - 1) > 1e-14;
        // the axis is fixed
        alcV3 f = alcm_m3_mulv(Q, th);
        bad += alcm_v3_norm(alcm_v3_sub(f, th)) > 1e-14 * (1 + alcm_v3_norm(th));
        // interval enclosure over a small box around th
        double w = rngRange(0, 0.3);
        alcIV3 box = {alcm_i(th.x, th.x + w), alcm_i(th.y - w, th.y), alcm_i(th.z, th.z + w)};
        alcV3 a = rngV3(-2, 2);
        alcIV3 r = alcm_i_rotate(box, a);
        for (int k = 0; k < 30; k++) {
            alcV3 p =
                alcm_v3(th.x + w * rngUniform(), th.y - w * rngUniform(), th.z + w * rngUniform());
            alcV3 v = alcm_m3_mulv(alcm_rodrigues(p), a);
            bad += !alcm_i_contains(r.x, v.x) || !alcm_i_contains(r.y, v.y) ||
                   !alcm_i_contains(r.z, v.z);
        }
    }
    ENSURE_MSG(bad == 0, "%d failures", bad);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_curved_deviationBounds) {
    // both chord-deviation bounds hold at densely sampled times of random rigid paths and
    // sub-intervals; a straight-line path has bound 0 (up to rounding slack) and a pure
    // translation too
    int bad = 0;
    for (int trial = 0; trial < 400; trial++) {
        alcRigidPath p;
        p.a = rngV3(-1, 1);
        double s = trial % 4 == 0 ? 0.01 : 3.0;
        p.theta0 = rngV3(-s, s);
        p.theta1 = alcm_v3_add(p.theta0, rngV3(-s, s));
        p.q0 = rngV3(-1, 1);
        p.q1 = rngV3(-1, 1);
        double t0 = rngRange(0, 0.9), t1 = t0 + rngRange(1e-3, 1 - t0);
        double eI = alcm_rigidPath_devInterval(&p, t0, t1);
        double eS = alcm_rigidPath_devSpeed(&p, t0, t1);
        alcV3 x0 = alcm_rigidPath_at(&p, t0), x1 = alcm_rigidPath_at(&p, t1);
        double dmax = 0;
        for (int k = 0; k <= 200; k++) {
            double u = k / 200.0;
            alcV3 x = alcm_rigidPath_at(&p, t0 + u * (t1 - t0));
            alcV3 c = alcm_v3_add(alcm_v3_scale(x0, 1 - u), alcm_v3_scale(x1, u));
            dmax = fmax(dmax, alcm_v3_norm(alcm_v3_sub(x, c)));
        }
        double slack = 1e-13;
        bad += dmax > eI + slack || dmax > eS + slack;
    }
    // the path's box over [0, 1] and over a sub-interval holds every sampled point
    int outside = 0;
    for (int trial = 0; trial < 200; trial++) {
        alcRigidPath p;
        p.a = rngV3(-1, 1);
        p.theta0 = rngV3(-3, 3);
        p.theta1 = alcm_v3_add(p.theta0, rngV3(-3, 3));
        p.q0 = rngV3(-1, 1);
        p.q1 = rngV3(-1, 1);
        double t0 = trial % 2 ? 0.0 : rngRange(0, 0.5), t1 = trial % 2 ? 1.0 : t0 + 0.25;
        alcAabb box = alcm_rigidPath_box(&p, t0, t1, 0.0);
        for (int k = 0; k <= 100; k++) {
            alcV3 x = alcm_rigidPath_at(&p, t0 + (t1 - t0) * k / 100.0);
            outside += !alcm_aabb_contains(box, alcm_aabb_point(x));
        }
    }
    ENSURE_MSG(outside == 0, "%d sampled points outside their path's box", outside);
    alcRigidPath lin = alcm_rigidPath_linear(alcm_v3(1, 2, 3), alcm_v3(-4, 5, 6));
    ENSURE(alcm_rigidPath_deviation(&lin, 0, 1) < 1e-12);
    alcRigidPath tr = spinZ(alcm_v3(1, 0, 0), 0.3, 0.3, alcm_v3(0, 0, 0), alcm_v3(5, 0, 0));
    ENSURE(alcm_rigidPath_devSpeed(&tr, 0, 1) == 0);
    ENSURE_MSG(bad == 0, "%d paths whose sampled deviation exceeds a bound", bad);
    return ALC_TEST_PASS;
}

/// EE query of a rod from (-1, 0, 0) to (1, 0, 0), rotating about z from angle 0 to ang and
/// translated along z from 0 to h, against a fixed vertical edge at angle phi and radius r from
/// z = z0 to z = z1.
static bool rodVsEdge(double ang, double h, double phi, double r, double z0, double z1, double* toi,
                      alcCcdCurvedStats* st) {
    alcRigidPath P[4] = {
        spinZ(alcm_v3(-1, 0, 0), 0, ang, alcm_v3(0, 0, 0), alcm_v3(0, 0, h)),
        spinZ(alcm_v3(1, 0, 0), 0, ang, alcm_v3(0, 0, 0), alcm_v3(0, 0, h)),
        fixedAt(alcm_v3(r * cos(phi), r * sin(phi), z0)),
        fixedAt(alcm_v3(r * cos(phi), r * sin(phi), z1)),
    };
    return alcm_ccd_curved(P, true, 0.0, 1.0, toi, st);
}

ALC_TEST(ccd_curved_rotatingRod) {
    // the rod sweeps the angles [0, ang] (and their opposites): an edge at angle phi inside the
    // swept range is hit at exactly t = phi / ang; the reported time is at most that and close
    // to it; outside the range (by a clear margin) there is no collision
    double ang = 2.0;
    int missedHit = 0, falseHit = 0;
    double worstLag = 0;
    for (int k = 1; k < 40; k++) {
        double phi = 0.05 * k;  // 0.05 .. 1.95 rad: inside [0, 2]
        double toi;
        bool hit = rodVsEdge(ang, 0, phi, 0.6, -0.5, 0.5, &toi, NULL);
        double exact = phi / ang;
        if (!hit || toi > exact)
            missedHit++;
        else
            worstLag = fmax(worstLag, exact - toi);
    }
    for (int k = 0; k < 10; k++) {
        double phi = 2.1 + 0.09 * k;  // 2.1 .. 2.91: outside [0, 2] and [pi, pi + 2]
        double toi;
        falseHit += rodVsEdge(ang, 0, phi, 0.6, -0.5, 0.5, &toi, NULL);
    }
    alct_note("largest gap between the exact and the reported time: %.3g of the step", worstLag);
    ENSURE_MSG(missedHit == 0, "%d hits missed or reported late", missedHit);
    ENSURE(worstLag < 0.05);
    ENSURE_MSG(falseHit == 0, "%d clear misses reported as collisions", falseHit);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_curved_fullTurn) {
    // a full turn (2 pi) brings every point back to its start: the chords are points and the
    // linear CCD alone would see nothing; the curved CCD finds the edge hit at phi / (2 pi);
    // also half and one-and-a-half turns, and a turn about a large rotation vector
    const double turns[3] = {2 * kPi, kPi, 3 * kPi};
    for (int i = 0; i < 3; i++) {
        double toi;
        alcCcdCurvedStats st;
        bool hit = rodVsEdge(turns[i], 0, 0.4, 0.6, -0.5, 0.5, &toi, &st);
        ENSURE_MSG(hit && toi <= 0.4 / turns[i], "turn %.3f: hit %d toi %.6f", turns[i], hit, toi);
        ENSURE(toi > 0.5 * 0.4 / turns[i]);
        alct_note("turn of %.2f rad: toi %.5f (exact %.5f), %d intervals, %d linear CCD calls",
                  turns[i], toi, 0.4 / turns[i], st.intervals, st.linear);
    }
    // the same rod already turned by 100 rad (15.9 turns) before the step
    alcRigidPath P[4] = {
        spinZ(alcm_v3(-1, 0, 0), 100, 102, alcm_v3(0, 0, 0), alcm_v3(0, 0, 0)),
        spinZ(alcm_v3(1, 0, 0), 100, 102, alcm_v3(0, 0, 0), alcm_v3(0, 0, 0)),
        fixedAt(alcm_v3(0.6 * cos(101), 0.6 * sin(101), -0.5)),
        fixedAt(alcm_v3(0.6 * cos(101), 0.6 * sin(101), 0.5)),
    };
    double toi;
    ENSURE(alcm_ccd_curved(P, true, 0.0, 1.0, &toi, NULL));
    ENSURE(toi <= 0.5 && toi > 0.4);
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_curved_screwAndBlade) {
    // screw: the rod turns by 2 rad and rises by h; the vertical edge at angle 1 spans
    // z in [z0, z1]; the rod meets it at t = 0.5 at height h / 2, so the edge is hit iff h / 2
    // is in [z0, z1]
    double toi;
    ENSURE(rodVsEdge(2.0, 1.0, 1.0, 0.6, 0.4, 0.6, &toi, NULL) && toi <= 0.5 && toi > 0.45);
    ENSURE(!rodVsEdge(2.0, 1.0, 1.0, 0.6, 0.7, 0.9, &toi, NULL));
    ENSURE(!rodVsEdge(2.0, 1.0, 1.0, 0.6, 0.1, 0.3, &toi, NULL));
    // blade (PT): a triangle in the xz half-plane (radius 0.2 .. 1, z -0.5 .. 0.5) turning
    // about z by 1.5 rad sweeps the solid of revolution of its cross-section; a fixed point at
    // angle 1 and radius 0.5, z 0, inside the cross-section, is hit at t = 1 / 1.5
    alcRigidPath P[4] = {
        fixedAt(alcm_v3(0.5 * cos(1.0), 0.5 * sin(1.0), 0)),
        spinZ(alcm_v3(0.2, 0, -0.5), 0, 1.5, alcm_v3(0, 0, 0), alcm_v3(0, 0, 0)),
        spinZ(alcm_v3(1.0, 0, -0.5), 0, 1.5, alcm_v3(0, 0, 0), alcm_v3(0, 0, 0)),
        spinZ(alcm_v3(0.2, 0, 0.5), 0, 1.5, alcm_v3(0, 0, 0), alcm_v3(0, 0, 0)),
    };
    ENSURE(alcm_ccd_curved(P, false, 0.0, 1.0, &toi, NULL));
    ENSURE(toi <= 1.0 / 1.5 && toi > 0.6);
    // the point at z = 0.4 and radius 0.9 is outside the cross-section (above its hypotenuse)
    P[0] = fixedAt(alcm_v3(0.9 * cos(1.0), 0.9 * sin(1.0), 0.4));
    ENSURE(!alcm_ccd_curved(P, false, 0.0, 1.0, &toi, NULL));
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_curved_tumblingCoin) {
    // a coin of radius rho centred at height h0 turns about the x axis by ang: its rim point
    // (0, rho, 0) in the body frame reaches height h0 - rho sin(angle); it touches the floor
    // (a large triangle at z = 0) at angle asin(h0 / rho) when that is below ang
    double rho = 1.0;
    alcV3 floorV[3] = {alcm_v3(-10, -10, 0), alcm_v3(10, -10, 0), alcm_v3(0, 10, 0)};
    for (int k = 0; k < 12; k++) {
        double h0 = 0.08 * (k + 1);  // 0.08 .. 0.96
        double ang = 1.2;
        alcRigidPath P[4];
        P[0].a = alcm_v3(0, rho, 0);  // the rim point level with the centre at the start
        P[0].theta0 = alcm_v3(0, 0, 0);
        P[0].theta1 = alcm_v3(-ang, 0, 0);  // turning (0, rho, 0) towards -z
        P[0].q0 = P[0].q1 = alcm_v3(0, 0, h0);
        for (int i = 0; i < 3; i++) P[1 + i] = fixedAt(floorV[i]);
        double toi;
        bool hit = alcm_ccd_curved(P, false, 0.0, 1.0, &toi, NULL);
        double exactAng = asin(h0 / rho);
        if (exactAng < ang) {
            ENSURE_MSG(hit && toi <= exactAng / ang, "h0 %.2f: hit %d toi %.5f exact %.5f", h0, hit,
                       toi, exactAng / ang);
            ENSURE(toi > exactAng / ang - 0.05);
        } else if (exactAng > 1.05 * ang) {
            ENSURE_MSG(!hit, "h0 %.2f: a clear miss reported at %.5f", h0, toi);
        }
    }
    return ALC_TEST_PASS;
}

ALC_TEST(ccd_curved_degenerate) {
    // no rotation: the same answer as the linear CCD; touching at the start: a collision at 0;
    // within dmin at the start: a collision at 0; a tiny rotation; a rotation about the rod's
    // own axis (every point of the rod stays on it)
    double toi;
    alcRigidPath P[4] = {
        spinZ(alcm_v3(-1, 0, 0), 0.3, 0.3, alcm_v3(0, 0, 1), alcm_v3(0, 0, -1)),
        spinZ(alcm_v3(1, 0, 0), 0.3, 0.3, alcm_v3(0, 0, 1), alcm_v3(0, 0, -1)),
        fixedAt(alcm_v3(0, -1, 0)),
        fixedAt(alcm_v3(0, 1, 0)),
    };
    double toiLinear;
    alcV3 x[4], dx[4];
    for (int i = 0; i < 4; i++) {
        x[i] = alcm_rigidPath_at(&P[i], 0);
        dx[i] = alcm_v3_sub(alcm_rigidPath_at(&P[i], 1), x[i]);
    }
    ENSURE(alcm_ccd_ee(x, dx, 0.0, ALCM_CCDC_RESCALE, 1.0, 1000, &toiLinear, NULL));
    ENSURE(alcm_ccd_curved(P, true, 0.0, 1.0, &toi, NULL) && toi <= 0.5 && toi > 0.44);
    ENSURE(toi >= toiLinear);
    // touching at the start (the fixed edge through the rod's midpoint)
    P[0].q1 = P[0].q0 = alcm_v3(0, 0, 0);
    P[1].q1 = P[1].q0 = alcm_v3(0, 0, 0);
    ENSURE(alcm_ccd_curved(P, true, 0.0, 1.0, &toi, NULL) && toi == 0);
    // 0.01 apart, dmin 0.02: within dmin at the start
    P[0].q1 = P[0].q0 = alcm_v3(0, 0, 0.01);
    P[1].q1 = P[1].q0 = alcm_v3(0, 0, 0.01);
    ENSURE(alcm_ccd_curved(P, true, 0.02, 1.0, &toi, NULL) && toi == 0);
    // dmin 0.005: the rod does not move, so no collision
    ENSURE(!alcm_ccd_curved(P, true, 0.005, 1.0, &toi, NULL) && toi == 1.0);
    // a rotation of 1e-12 rad about z of a rod 1e-13 above an edge it does not cross
    for (int i = 0; i < 2; i++) {
        P[i].theta0 = alcm_v3(0, 0, 0);
        P[i].theta1 = alcm_v3(0, 0, 1e-12);
        P[i].q0 = P[i].q1 = alcm_v3(0, 0, 1e-3);
    }
    ENSURE(!alcm_ccd_curved(P, true, 0.0, 1.0, &toi, NULL));
    // the rod spinning about its own axis (x) by 3 rad while it drops onto the edge
    for (int i = 0; i < 2; i++) {
        P[i].theta0 = alcm_v3(0, 0, 0);
        P[i].theta1 = alcm_v3(3, 0, 0);
        P[i].q0 = alcm_v3(0, 0, 1);
        P[i].q1 = alcm_v3(0, 0, -1);
    }
    ENSURE(alcm_ccd_curved(P, true, 0.0, 1.0, &toi, NULL) && toi <= 0.5 && toi > 0.44);
    // tmax: a query that stops before the hit reports none and returns tmax
    ENSURE(!alcm_ccd_curved(P, true, 0.0, 0.4, &toi, NULL) && toi == 0.4);
    return ALC_TEST_PASS;
}

/// Smallest distance of a stencil over densely sampled times of [0, 1] and the first sampled
/// time at which it is below dmin (2 when never).
static double sampledMin(const alcRigidPath P[4], bool isEE, double dmin, int n, double* first) {
    double dmn = HUGE_VAL;
    *first = 2;
    for (int k = 0; k <= n; k++) {
        double t = n > 0 ? (double)k / n : 0.0;
        alcV3 v[4];
        for (int i = 0; i < 4; i++) v[i] = alcm_rigidPath_at(&P[i], t);
        double d = isEE ? alcm_ee_distance(v, NULL) : alcm_pt_distance(v, NULL);
        if (d<dmin&& * first> 1) *first = t;
        dmn = fmin(dmn, d);
    }
    return dmn;
}

ALC_TEST(ccd_curved_randomNoFalseNegative) {
    // two bodies (a point or edge of one, a triangle or edge of the other) on random rigid
    // motions of up to 4 rad per step; whenever a sampled time brings the stencil within dmin,
    // the curved CCD must report a collision no later than that time; every reported time must
    // be safe (sampled distances before it stay above dmin)
    int collide = 0, missed = 0, unsafe = 0, queries = 0, falsePos = 0, linear = 0;
    const double dmin = 0.02;
    for (int trial = 0; trial < 1500; trial++) {
        bool isEE = trial % 2;
        alcV3 thA0 = rngV3(-3, 3), thB0 = rngV3(-3, 3);
        alcV3 thA1 = alcm_v3_add(thA0, rngV3(-2.3, 2.3)),
              thB1 = alcm_v3_add(thB0, rngV3(-2.3, 2.3));
        alcV3 qA0 = rngV3(-0.6, 0.6), qB0 = rngV3(-0.6, 0.6);
        alcV3 qA1 = alcm_v3_add(qA0, rngV3(-0.5, 0.5)), qB1 = alcm_v3_add(qB0, rngV3(-0.5, 0.5));
        alcRigidPath P[4];
        int split = isEE ? 2 : 1;
        for (int i = 0; i < 4; i++) {
            bool A = i < split;
            P[i].a = rngV3(-0.7, 0.7);
            P[i].theta0 = A ? thA0 : thB0;
            P[i].theta1 = A ? thA1 : thB1;
            P[i].q0 = A ? qA0 : qB0;
            P[i].q1 = A ? qA1 : qB1;
        }
        double first;
        double d0 = sampledMin(P, isEE, dmin, 0, &first);
        if (d0 < 1.5 * dmin) continue;  // start clearly separated
        queries++;
        double dmn = sampledMin(P, isEE, dmin, 4000, &first);
        double toi;
        alcCcdCurvedStats st;
        bool hit = alcm_ccd_curved(P, isEE, dmin, 1.0, &toi, &st);
        linear += st.linear;
        if (dmn < dmin) {
            collide++;
            if (!hit || toi > first) missed++;
        } else if (hit && dmn > 2 * dmin) {
            falsePos++;
        }
        if (hit) {
            // safety: sampled distances on [0, toi] stay above dmin
            for (int k = 0; k <= 400; k++) {
                double t = toi * k / 400.0;
                alcV3 v[4];
                for (int i = 0; i < 4; i++) v[i] = alcm_rigidPath_at(&P[i], t);
                double d = isEE ? alcm_ee_distance(v, NULL) : alcm_pt_distance(v, NULL);
                unsafe += d <= dmin;
            }
        }
    }
    alct_note(
        "%d queries, %d with a sampled collision, %d false positives beyond 2 dmin, "
        "%.1f linear CCD calls per query",
        queries, collide, falsePos, (double)linear / queries);
    ENSURE(queries > 1000 && collide > 50 && collide < queries - 100);
    ENSURE_MSG(missed == 0, "%d collisions missed or reported late", missed);
    ENSURE_MSG(unsafe == 0, "%d sampled times before a reported time within dmin", unsafe);
    return ALC_TEST_PASS;
}
