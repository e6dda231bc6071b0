// Additive continuous collision detection (ACCD) for point-triangle and edge-edge pairs over
// linear trajectories, after Li, Kaufman, Jiang 2021, "Codimensional Incremental Potential
// Contact", Algorithm 1. Shared by host/ref/ and cuda/ (STYLE.md §7).
//
// Trajectory: x_i(t) = x_i + t dx_i, t in [0, tmax], for the 4 stencil points (PT {p, t0, t1, t2},
// EE {a0, a1, b0, b1}, as in alcm_distance.h).
//
// Why it is safe. After the mean displacement is removed, every point of the triangle (edge)
// moves at most lp = |dx_p| + max_i |dx_ti| (EE: max(|dx_a0|, |dx_a1|) + max(|dx_b0|, |dx_b1|))
// relative to the point (other edge) per unit t, so the pair distance d(t) is lp-Lipschitz. If
// the true gap d(t) - xi is at least G > 0, the pair stays separated by more than xi on
// [t, t + G / lp). Every step advances by at most 0.9 G / lp, so each accepted time is safe.
//
// Differences from Alg. 1, all on the safe side or neutral: the gap (d^2 - xi^2) / (d + xi) is
// evaluated as d - xi (the same value without squaring); the pair is tested against xi before
// the lp = 0 exit, so a pair that starts within xi is a collision at 0 even when it does not
// move relative to itself; a step whose safe interval [t, t + tl] already reaches tmax ends the
// query with "no collision" without evaluating the distance beyond tmax; positions are
// recomputed from the start (x + t dx), never accumulated.
//
// Floating point. The distance evaluated in double differs from the true distance of the exact
// trajectory by rounding in x + t dx and in the distance formula. Each evaluation therefore uses
// a lower bound of the distance, d - err, with
//   err = ALC_CCD_TOL_FACTOR * DBL_EPSILON * S * (1 + cond) + slack,
// S = max_i |x_i| + max_i |dx_i| (the coordinate magnitude: rounding of positions and of their
// differences is at most a few ulps of S), cond = the amplification of position errors by the
// distance formula of the closest-feature case (0 for point-point, |r| / |e| for point-edge,
// |r| (|e1| + |e2|) / |e1 x e2| for point-plane and line-line, with r the offset of the point or
// other edge from the case's reference vertex), and slack = the largest amount by which the
// classification can over-estimate the distance when it skips the point-plane or line-line case
// for a nearly degenerate triangle (the inradius |n| / perimeter bound) or nearly parallel edges
// (sqrt(2) |ea x eb| / max(|ea|, |eb|)). The factor 64 leaves a wide margin over the few ulps of
// the actual forward error. Because the bound only makes d smaller, it can add false positives
// (pairs that come within about 1e-13 S of each other) but never a false negative; a query that
// touches exactly (d = 0 at some t, including t = 0 or t = tmax) is reported as a collision.
#ifndef ALC_HD_ALCM_CCD_H_
#define ALC_HD_ALCM_CCD_H_

#include "alcm_base.h"
#include "alcm_distance.h"
#include "alcm_vec.h"

/// Multiple of DBL_EPSILON * S used as the distance error bound (see the file comment).
#define ALC_CCD_TOL_FACTOR 64.0
/// Machine epsilon of double (kept here: hd headers include only <math.h>, not <float.h>).
#define ALC_CCD_EPS 2.220446049250313e-16
/// Step fraction of the Lipschitz-safe step after the first one (ACCD Alg. 1).
#define ALC_CCD_STEP 0.9

/// Lower bound of the distance of a PT (isEE false) or EE (isEE true) stencil, for CCD.
/// @param[in] v      stencil positions
/// @param[in] isEE   stencil kind
/// @param[in] scale  coordinate magnitude S of the query (m), see the file comment
/// @return d - err (m); may be negative when the pair is within the error bound of contact.
ALC_HD double alcm_ccd_distLower(const alcV3 v[4], bool isEE, double scale) {
    int type = isEE ? alcm_ee_type(v[0], v[1], v[2], v[3]) : alcm_pt_type(v[0], v[1], v[2], v[3]);
    alcDistModel m = alcm_distModel_stencil(v, type, isEE);
    double d = alcm_v3_norm(m.D);
    // sides of the 4-point case: triangle edges from t0, or the two edges
    alcV3 e1 = isEE ? alcm_v3_sub(v[1], v[0]) : alcm_v3_sub(v[2], v[1]);
    alcV3 e2 = isEE ? alcm_v3_sub(v[3], v[2]) : alcm_v3_sub(v[3], v[1]);
    double l1 = alcm_v3_norm(e1), l2 = alcm_v3_norm(e2);
    double n = alcm_v3_norm(alcm_v3_cross(e1, e2));
    // amplification of position errors by the formula of the chosen case
    int idx[4];
    int kind = alcm_dist_stencil(type, idx);
    double cond = 0;
    if (kind == ALC_DCASE_PE) {
        double le = alcm_v3_norm(alcm_v3_sub(v[idx[2]], v[idx[1]]));
        double lr = alcm_v3_norm(alcm_v3_sub(v[idx[0]], v[idx[1]]));
        cond = le > 0 ? lr / le : 0;
    } else if (kind == ALC_DCASE_PLANE || kind == ALC_DCASE_LINE) {
        double lr = alcm_v3_norm(isEE ? alcm_v3_sub(v[2], v[0]) : alcm_v3_sub(v[0], v[1]));
        cond = n > 0 ? lr * (l1 + l2) / n : 0;
    }
    double err = ALC_CCD_TOL_FACTOR * ALC_CCD_EPS * scale * (1 + cond);
    // interior case skipped for a nearly degenerate triangle or nearly parallel edges (the
    // band is 4 times the classification's, so rounding at its border cannot drop the slack)
    if (alcm_sq(n) <= 4 * ALC_DIST_PARALLEL_REL * alcm_sq(l1 * l2) ||
        alcm_dist_isDegenerate(alcm_sq(n), alcm_sq(l1 * l2))) {
        if (isEE) {
            double lmax = alcm_max(l1, l2);
            err += lmax > 0 ? 1.4142135623730951 * n / lmax : 0;
        } else {
            double per = l1 + l2 + alcm_v3_norm(alcm_v3_sub(v[3], v[2]));
            err += per > 0 ? n / per : 0;
        }
    }
    return d - err;
}

/// Fraction of its distance lower bound that a pair starting within the minimum separation
/// keeps in a step-size query (alcm_ccd_stepSep).
#define ALC_CCD_FLOOR_KEEP 0.9

/// Relative displacements of a query (dx minus its mean: distances are translation invariant)
/// and its coordinate magnitude S of the file comment.
/// @param[in]  x, dx  start positions and displacements (m)
/// @param[in]  tmax   end of the interval
/// @param[out] p      relative displacements (m)
/// @param[out] pn     their norms (m)
/// @return S (m)
ALC_HD double alcm_ccd_relative(const alcV3 x[4], const alcV3 dx[4], double tmax, alcV3 p[4],
                                double pn[4]) {
    alcV3 mean =
        alcm_v3_scale(alcm_v3_add(alcm_v3_add(dx[0], dx[1]), alcm_v3_add(dx[2], dx[3])), 0.25);
    double xmax = 0, pmax = 0;
    for (int i = 0; i < 4; i++) {
        p[i] = alcm_v3_sub(dx[i], mean);
        pn[i] = alcm_v3_norm(p[i]);
        xmax = alcm_max(xmax, alcm_v3_norm(x[i]));
        pmax = alcm_max(pmax, alcm_max(pn[i], alcm_v3_norm(dx[i])));
    }
    return xmax + alcm_max(tmax, 0.0) * pmax;
}

/// Minimum separation for the step-size query of a pair: xi, unless the pair already starts
/// within xi but outside the error bound of contact; then ALC_CCD_FLOOR_KEEP times its
/// distance lower bound, so that a path that separates the pair (or brings it a little closer)
/// is not reported as a collision at 0. With xi itself, every direction of a pair inside the
/// floor was blocked, separating ones included, and an AL step whose iterate had come that
/// close stayed at alpha = 0 to its iteration cap (issue 14). Costs one distance evaluation
/// when xi > 0, none otherwise.
/// @param[in] x, dx   start positions and displacements over a unit of t (m)
/// @param[in] isEE    stencil kind
/// @param[in] xi      the minimum separation asked for (m), >= 0
/// @param[in] tmax    end of the interval of the query
/// @return the minimum separation to pass to alcm_ccd_pt / alcm_ccd_ee (m), <= xi.
ALC_HD double alcm_ccd_stepSep(const alcV3 x[4], const alcV3 dx[4], bool isEE, double xi,
                               double tmax) {
    if (!(xi > 0)) return xi;
    alcV3 p[4];
    double pn[4];
    double d = alcm_ccd_distLower(x, isEE, alcm_ccd_relative(x, dx, tmax, p, pn));
    return d > xi || !(d > 0) ? xi : ALC_CCD_FLOOR_KEEP * d;
}

/// The rescale s to pass to alcm_ccd_pt / alcm_ccd_ee for one pair under a gap cap
/// (alcOption.ccdGapCap): s itself when the pair's gap above xi at t = 0 (as those functions
/// measure it) is at most gapCap, else s * gapCap / gap, so that a reported time keeps the gap
/// at least s * min(gap, gapCap). ACCD's rule, s times the start gap, cuts a pair that starts
/// far and that the path brings near at ten times the distance it cuts a near one: on IPC's
/// dolphin most outer steps deep in the funnel were cut by pairs not in the active set, 8-12
/// delta apart at x and about delta at xhat (issue 14). One distance evaluation when
/// gapCap > 0, none otherwise.
/// @param[in] x, dx    start positions and displacements over a unit of t (m)
/// @param[in] isEE     stencil kind
/// @param[in] xi       the minimum separation of the query (m), >= 0
/// @param[in] s        the rescale of the query, in (0, 1)
/// @param[in] gapCap   the cap (m); <= 0: none
/// @param[in] tmax     end of the interval of the query
/// @return the rescale, in (0, s].
ALC_HD double alcm_ccd_capRescale(const alcV3 x[4], const alcV3 dx[4], bool isEE, double xi,
                                  double s, double gapCap, double tmax) {
    if (!(gapCap > 0)) return s;
    alcV3 p[4];
    double pn[4];
    double gap = alcm_ccd_distLower(x, isEE, alcm_ccd_relative(x, dx, tmax, p, pn)) - xi;
    return gap > gapCap ? s * (gapCap / gap) : s;
}

/// Additive CCD shared by alcm_ccd_pt and alcm_ccd_ee (see there).
ALC_HD bool alcm_ccd_additive(const alcV3 x[4], const alcV3 dx[4], bool isEE, double xi, double s,
                              double tmax, int maxIter, double* toi, int* iters) {
    if (iters) *iters = 0;
    // 1) relative displacements: subtract the mean (distances are translation invariant)
    alcV3 p[4];
    double pn[4];
    double scale = alcm_ccd_relative(x, dx, tmax, p, pn);
    // 2) Lipschitz bound of the distance per unit t
    double lp = isEE ? alcm_max(pn[0], pn[1]) + alcm_max(pn[2], pn[3])
                     : pn[0] + alcm_max(pn[1], alcm_max(pn[2], pn[3]));
    // 3) gap at t = 0: within xi (or within the error bound of it) is a collision at 0
    double gap = alcm_ccd_distLower(x, isEE, scale) - xi;
    if (!(gap > 0)) {
        *toi = 0;
        return true;
    }
    if (!(lp > 0) || !(tmax > 0)) {
        *toi = alcm_max(tmax, 0.0);
        return false;
    }
    // advance by fractions of the Lipschitz-safe step gap / lp (ACCD Alg. 1)
    double g = s * gap;
    double t = 0;
    double tl = (1 - s) * gap / lp;
    for (int it = 0; it < maxIter; it++) {
        // [t, t + tl] is safe, so reaching tmax within it means no collision
        if (t + tl >= tmax) {
            if (iters) *iters = it;
            *toi = tmax;
            return false;
        }
        // positions at t + tl, recomputed from the start positions
        double tn = t + tl;
        alcV3 xt[4];
        for (int i = 0; i < 4; i++) xt[i] = alcm_v3_mad(x[i], tn, p[i]);
        double gn = alcm_ccd_distLower(xt, isEE, scale) - xi;
        if ((t > 0 && gn < g) || !(gn > 0)) {
            // the gap shrank below s times the initial gap: collision, t is safe
            if (iters) *iters = it + 1;
            *toi = t;
            return true;
        }
        t = tn;
        tl = ALC_CCD_STEP * gn / lp;
    }
    // iteration cap: report a (conservative) collision at the last safe time
    if (iters) *iters = maxIter;
    *toi = t;
    return true;
}

/// Additive CCD of point p against triangle (t0, t1, t2) moving linearly
/// (Li, Kaufman, Jiang 2021, Alg. 1, with the floating-point error bound of the file comment).
/// @param[in]  x        start positions {p, t0, t1, t2} (m)
/// @param[in]  dx       displacements over a unit of t (m): x(t) = x + t dx
/// @param[in]  xi       minimum separation (m), >= 0
/// @param[in]  s        rescale factor in (0, 1): a reported collision time keeps the gap at
///                      least s times the initial gap (0.1 typical)
/// @param[in]  tmax     end of the interval, e.g. 1
/// @param[in]  maxIter  cap on the distance evaluations; reaching it reports a collision
/// @param[out] toi      true: a safe time in [0, tmax) (the pair stays farther apart than xi on
///                      [0, toi]; 0 when it is already within xi); false: tmax
/// @param[out] iters    distance evaluations in the loop
/// @return true when the pair may come within xi on [0, tmax]; false when it cannot.
/// Nullable: iters
ALC_HD bool alcm_ccd_pt(const alcV3 x[4], const alcV3 dx[4], double xi, double s, double tmax,
                        int maxIter, double* toi, int* iters) {
    return alcm_ccd_additive(x, dx, false, xi, s, tmax, maxIter, toi, iters);
}

/// Additive CCD of edge (a0, a1) against edge (b0, b1) moving linearly; same conventions as
/// alcm_ccd_pt with x = {a0, a1, b0, b1}. Nullable: iters
ALC_HD bool alcm_ccd_ee(const alcV3 x[4], const alcV3 dx[4], double xi, double s, double tmax,
                        int maxIter, double* toi, int* iters) {
    return alcm_ccd_additive(x, dx, true, xi, s, tmax, maxIter, toi, iters);
}

#endif  // ALC_HD_ALCM_CCD_H_
