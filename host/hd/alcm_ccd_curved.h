// Continuous collision detection over curved (rigid-body) trajectories: rigid IPC (Ferguson et
// al. 2021) §4.3, Algorithm 1. Shared by host C11 and CUDA device code (STYLE.md §7).
//
// The four points of a point-triangle or edge-edge stencil each follow an alcRigidPath
// (alcm_rigid.h): a rigid body's point on a curve, or a soft vertex on a line. Over a
// sub-interval [t0, t1] of the step, each point stays within e_i of its chord (the straight line
// between its positions at t0 and t1; alcm_rigidPath_deviation), so the true stencil distance
// differs from the distance of the chords' stencil by at most b = max over one side's points of
// e_i + max over the other side's (a triangle's or an edge's points are convex combinations of
// its vertices, each within the max of its vertices' bounds). Running the project's linear CCD
// (alcm_ccd.h, ACCD with its floating-point error bound) on the chords with minimum separation
// b + dmin therefore answers for the curves with minimum separation dmin: "no collision" means
// the curves stay more than dmin apart on [t0, t1], and a reported time is safe.
//
// Algorithm 1: a stack of sub-interval ends; an interval whose bound b is not small against the
// distance at its start (b >= delta d(t0)) is halved, up to nmax intervals (the cap does not
// apply while t0 = 0, where a safe positive time must be found first); each interval that
// passes is checked by the linear CCD, and the first hit ends the query. Differences from the
// paper: a hit on an interval longer than ALCM_CCDC_HIT_DT of the step is looked at again on
// the interval's first half (the paper returns it: its time can then be early by a large part
// of the interval, and a near miss within b is reported, which costs the simulator's line
// search a cut step; measured in tests/test_ccd_curved.c); the linear CCD is ACCD with a Euclidean
// (not L-infinity) minimum separation; a pair already within dmin at t = 0 (by the CCD's distance
// lower bound) is a collision at 0 at once (halving could never move it); halving at t0 = 0 stops
// at intervals shorter than ALCM_CCDC_MIN_DT times the step, with a collision at 0 (conservative:
// the caller's step is cut to zero for this pair rather than the query looping).
#ifndef ALC_HD_ALCM_CCD_CURVED_H_
#define ALC_HD_ALCM_CCD_CURVED_H_

#include "alcm_ccd.h"
#include "alcm_rigid.h"

/// Ratio of the deviation bound to the distance above which an interval is halved (RIPC
/// App. C: 0.5 was the fastest of 0.1, 0.5 and 0.9 in its piston study).
#define ALCM_CCDC_DELTA 0.5
/// Cap on the number of sub-intervals (RIPC: 1000).
#define ALCM_CCDC_NMAX 1000
/// Shortest sub-interval halved at t0 = 0 (units of the step).
#define ALCM_CCDC_MIN_DT 1e-12
/// Depth of the interval stack: halving from [0, tmax] to ALCM_CCDC_MIN_DT takes at most
/// log2(1e12) ~ 40 levels, and each level leaves one pending end on the stack.
#define ALCM_CCDC_STACK 64
/// A hit on an interval longer than this (units of the step) is checked again on the interval's
/// halves: the time is then within a few percent of the step of the bound-free one, and near
/// misses are not reported for a bound that a shorter interval does not have.
#define ALCM_CCDC_HIT_DT 0.03125
/// Rescale factor s of the linear CCD (alcm_ccd.h): a reported time keeps the chord's gap at
/// least s times its gap at the interval's start.
#define ALCM_CCDC_RESCALE 0.1
/// Distance evaluations of one linear CCD call before it reports a conservative collision.
#define ALCM_CCDC_LINEAR_ITERS 100000

/// Statistics of one curved query (for tests and the CLI).
typedef struct {
    int intervals;  ///< sub-intervals taken off the stack (halvings included)
    int linear;     ///< linear CCD calls
    int halvings;   ///< intervals halved
} alcCcdCurvedStats;

/// Curved-trajectory CCD of a point-triangle (isEE false: paths {p, t0, t1, t2}) or edge-edge
/// (isEE true: {a0, a1, b0, b1}) stencil over [0, tmax] of the step (RIPC Algorithm 1).
/// @param[in]  path   the four points' trajectories
/// @param[in]  isEE   stencil kind
/// @param[in]  dmin   minimum separation (m), >= 0
/// @param[in]  tmax   end of the query, in (0, 1] (e.g. the earliest time of impact found so
///                    far in the step, RIPC "shared earliest TOI")
/// @param[out] toi    true: a safe time in [0, tmax) (the curves stay more than dmin apart on
///                    [0, toi]; 0 when they already are within dmin); false: tmax
/// @param[out] stats  counts of the query. Nullable
/// @return true when the stencil may come within dmin on [0, tmax]; false when it cannot.
ALC_HD bool alcm_ccd_curved(const alcRigidPath path[4], bool isEE, double dmin, double tmax,
                            double* toi, alcCcdCurvedStats* stats) {
    alcCcdCurvedStats st = {0, 0, 0};
    double stack[ALCM_CCDC_STACK];
    int top = 0;
    stack[top++] = tmax;
    double t0 = 0.0;
    int n = 1;
    bool hit = false;
    double out = tmax;
    // the two sides: PT {0} | {1, 2, 3}, EE {0, 1} | {2, 3}
    int split = isEE ? 2 : 1;
    while (top > 0) {
        double t1 = stack[top - 1];
        st.intervals++;
        alcV3 x0[4], dx[4];
        double eA = 0, eB = 0;
        for (int i = 0; i < 4; i++) {
            x0[i] = alcm_rigidPath_at(&path[i], t0);
            dx[i] = alcm_v3_sub(alcm_rigidPath_at(&path[i], t1), x0[i]);
            double e = alcm_rigidPath_deviation(&path[i], t0, t1);
            if (i < split)
                eA = fmax(eA, e);
            else
                eB = fmax(eB, e);
        }
        double b = eA + eB;
        alcV3 p[4];
        double pn[4];
        double d0 = alcm_ccd_distLower(x0, isEE, alcm_ccd_relative(x0, dx, 1.0, p, pn));
        if (t0 == 0 && !(d0 > dmin)) {
            // already within dmin (or within the error bound of it): no halving can help
            hit = true;
            out = 0;
            break;
        }
        if (b >= ALCM_CCDC_DELTA * d0 && (n < ALCM_CCDC_NMAX || t0 == 0)) {
            if (t0 == 0 && t1 - t0 < ALCM_CCDC_MIN_DT * tmax) {
                hit = true;
                out = 0;
                break;
            }
            if (top == ALCM_CCDC_STACK) {  // cannot happen within the length floor; be safe
                hit = true;
                out = t0;
                break;
            }
            stack[top++] = 0.5 * (t0 + t1);
            n++;
            st.halvings++;
            continue;
        }
        double u = 1.0;
        st.linear++;
        bool c = isEE ? alcm_ccd_ee(x0, dx, b + dmin, ALCM_CCDC_RESCALE, 1.0,
                                    ALCM_CCDC_LINEAR_ITERS, &u, 0)
                      : alcm_ccd_pt(x0, dx, b + dmin, ALCM_CCDC_RESCALE, 1.0,
                                    ALCM_CCDC_LINEAR_ITERS, &u, 0);
        if (c && u == 0 && t0 == 0) {
            // the chords come within b + dmin at once: a shorter interval has a smaller b
            if (t1 - t0 < ALCM_CCDC_MIN_DT * tmax || top == ALCM_CCDC_STACK) {
                hit = true;
                out = 0;
                break;
            }
            stack[top++] = 0.5 * (t0 + t1);
            n++;
            st.halvings++;
            continue;
        }
        if (c && t1 - t0 > ALCM_CCDC_HIT_DT * tmax && n < ALCM_CCDC_NMAX) {
            // a hit on a long interval may be the bound's (b grows with the interval): look
            // again on its first half, whose smaller b gives a later, tighter time or no hit
            stack[top++] = 0.5 * (t0 + t1);
            n++;
            st.halvings++;
            continue;
        }
        if (c) {
            hit = true;
            out = t0 + u * (t1 - t0);
            // the interpolated time may round above a safe one by an ulp: keep it within
            // [t0, t1) and below the largest time the linear CCD vouched for
            if (out >= t1) out = t0;
            break;
        }
        top--;
        t0 = t1;
    }
    if (stats) *stats = st;
    *toi = hit ? out : tmax;
    return hit;
}

#endif  // ALC_HD_ALCM_CCD_CURVED_H_
