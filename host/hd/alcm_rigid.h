// Rigid-body kinematics (rigid IPC, Ferguson et al. 2021, §3-4): the rotation of a rotation
// vector by the Rodrigues formula, the curved trajectories that piecewise-linear rotation vectors
// and translations give a body's points, and conservative bounds of their deviation from the
// chord (the curved-trajectory CCD, alcm_ccd_curved.h). Shared by host C11 and CUDA device code.
// Header-only: includes only alcm_vec.h, alcm_aabb.h and alcm_interval.h (STYLE.md §7).
//
// A body's point with body-frame position a (m) is at phi(theta, q) = R(theta) a + q (RIPC
// Eq. 4), theta the rotation vector (axis times angle, rad), q the translation (m). Over a step
// the degrees of freedom move linearly, theta(t) = (1 - t) theta0 + t theta1 and
// q(t) = (1 - t) q0 + t q1 for t in [0, 1] (Eq. 16), so the point moves on a curve.
#ifndef ALC_HD_ALCM_RIGID_H_
#define ALC_HD_ALCM_RIGID_H_

#include "alcm_aabb.h"
#include "alcm_interval.h"
#include "alcm_vec.h"

/// One point's trajectory over a step: a rigid body's point, or a point moving on a straight
/// line (a soft or kinematic vertex: a = 0, theta0 = theta1 = 0, q0 and q1 its end positions).
typedef struct {
    alcV3 a;       ///< body-frame position (m)
    alcV3 theta0;  ///< rotation vector at t = 0 (rad)
    alcV3 theta1;  ///< rotation vector at t = 1 (rad)
    alcV3 q0;      ///< translation at t = 0 (m)
    alcV3 q1;      ///< translation at t = 1 (m)
} alcRigidPath;

/// A point moving on the straight line from x0 to x1 as an alcRigidPath.
ALC_HD alcRigidPath alcm_rigidPath_linear(alcV3 x0, alcV3 x1) {
    alcRigidPath p;
    p.a = alcm_v3(0, 0, 0);
    p.theta0 = p.theta1 = alcm_v3(0, 0, 0);
    p.q0 = x0;
    p.q1 = x1;
    return p;
}

/// Cross-product matrix [v] (row-major): [v] w = v x w.
ALC_HD alcM3 alcm_m3_skew(alcV3 v) {
    alcM3 r = {{0, -v.z, v.y, v.z, 0, -v.x, -v.y, v.x, 0}};
    return r;
}

/// Rotation matrix of a rotation vector, R = Id + sinc(|theta|) [theta] +
/// (1/2) sinc^2(|theta| / 2) [theta]^2 (RIPC Eq. 14, stable at theta = 0: (1 - cos n) / n^2 =
/// 2 sin^2(n / 2) / n^2 = sinc^2(n / 2) / 2; the digest's "2 sinc^2" omits the 1/4 of
/// [theta / 2]^2).
/// @param[in] theta  rotation vector (rad)
ALC_HD alcM3 alcm_rodrigues(alcV3 theta) {
    double n = alcm_v3_norm(theta);
    double s = alcm_sinc(n), c = alcm_sinc(0.5 * n);
    alcM3 K = alcm_m3_skew(theta);
    alcM3 K2 = alcm_m3_mul(K, K);
    alcM3 r = alcm_m3_identity();
    for (int i = 0; i < 9; i++) r.m[i] += s * K.m[i] + 0.5 * c * c * K2.m[i];
    return r;
}

/// The rotation vector of a rotation matrix (the inverse of alcm_rodrigues): theta with
/// |theta| in [0, pi] and R(theta) = R. Near the identity from the skew part; near half a turn
/// (where the skew part vanishes) the axis from the symmetric part, its sign from the skew part.
/// @param[in] R  a rotation (det +1, orthonormal to rounding)
/// @return theta (rad)
ALC_HD alcV3 alcm_rotation_log(alcM3 R) {
    const double* m = R.m;
    double c = 0.5 * (m[0] + m[4] + m[8] - 1.0);
    c = c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c);
    // 2 sin(angle) n = vee(R - R^T)
    alcV3 w = alcm_v3(m[7] - m[5], m[2] - m[6], m[3] - m[1]);
    double angle = acos(c);
    if (angle < 1e-4) {
        // sin(a) / a = 1 - a^2 / 6 + ...: theta = vee(R - R^T) / (2 sinc(a))
        return alcm_v3_scale(w, 0.5 / (1.0 - angle * angle / 6.0));
    }
    if (angle < 3.0) return alcm_v3_scale(w, 0.5 * angle / sin(angle));
    // (R + R^T) / 2 = cos(a) I + (1 - cos(a)) n n^T: the largest diagonal of n n^T gives a
    // well-conditioned column
    double d[3] = {m[0], m[4], m[8]};
    int k = d[0] >= d[1] && d[0] >= d[2] ? 0 : (d[1] >= d[2] ? 1 : 2);
    double col[3];
    for (int i = 0; i < 3; i++) {
        double s = 0.5 * (m[3 * i + k] + m[3 * k + i]) - (i == k ? c : 0.0);
        col[i] = s;
    }
    alcV3 n = alcm_v3_normalize(alcm_v3(col[0], col[1], col[2]));
    if (alcm_v3_dot(n, w) < 0) n = alcm_v3_scale(n, -1.0);
    return alcm_v3_scale(n, angle);
}

/// Of the rotation vectors of one rotation, the one nearest to ref: theta (|theta| <= pi, as
/// alcm_rotation_log gives it) or theta lengthened or shortened by a full turn along its axis.
/// A kinematic rigid body's target (rigid_ref.c) so chosen makes the step's path, linear in the
/// rotation vector, turn the short way: from (pi - 0.01) z to -(pi - 0.01) z, the target of a
/// 0.02 rad turn, the linear path would otherwise turn back by 6.26 rad.
/// @param[in] theta  rotation vector (rad)
/// @param[in] ref    the rotation vector the path starts from (rad)
ALC_HD alcV3 alcm_rotation_nearest(alcV3 theta, alcV3 ref) {
    double n = alcm_v3_norm(theta);
    if (!(n > 0)) return theta;  // identity: any other vector of it is 2 pi long, never nearer
    alcV3 best = theta;
    double bestD = alcm_v3_norm(alcm_v3_sub(theta, ref));
    for (int k = -1; k <= 1; k += 2) {
        alcV3 c = alcm_v3_scale(theta, (n + k * 6.283185307179586) / n);
        double dc = alcm_v3_norm(alcm_v3_sub(c, ref));
        if (dc < bestD) best = c, bestD = dc;
    }
    return best;
}

/// The scalar factors of R(theta) = Id + s [theta] + c [theta]^2 and of its derivatives, as
/// functions of n = |theta| (RIPC App. A): s = sin n / n, c = (1 - cos n) / n^2, and
/// gs = s'(n) / n, hs = gs'(n) / n, gc = c'(n) / n, hc = gc'(n) / n, so that
/// grad s = gs theta, hess s = hs theta theta^T + gs Id (the same for c). Below n = 1 the
/// closed forms cancel (hc loses 1e-7 of its value at n = 0.1), so the Taylor series are
/// summed there to 12 terms (truncation below n^24 / 25!, far below an ulp).
typedef struct {
    double s, c, gs, gc, hs, hc;
} alcRodriguesCoef;

/// The factors of alcRodriguesCoef at n = |theta| >= 0 (rad).
ALC_HD alcRodriguesCoef alcm_rodrigues_coef(double n) {
    alcRodriguesCoef r;
    if (n < 1.0) {
        // s = sum (-1)^k n^2k / (2k+1)!, c = sum (-1)^k n^2k / (2k+2)!; g and h by
        // differentiating term by term and dividing by n (k(2k)(2k-2) factors below)
        double n2 = n * n;
        double ps = 1.0, pc = 0.5;  // 1 / (2k+1)!, 1 / (2k+2)! at k = 0
        double pw[12];              // pw[k] = n^2k, never divided (n2 may underflow)
        r.s = r.c = r.gs = r.gc = r.hs = r.hc = 0.0;
        for (int k = 0; k < 12; k++) {
            pw[k] = k == 0 ? 1.0 : pw[k - 1] * n2;
            double sg = k % 2 ? -1.0 : 1.0;
            r.s += sg * pw[k] * ps;
            r.c += sg * pw[k] * pc;
            if (k >= 1) {
                r.gs += sg * 2.0 * k * pw[k - 1] * ps;
                r.gc += sg * 2.0 * k * pw[k - 1] * pc;
            }
            if (k >= 2) {
                r.hs += sg * 2.0 * k * (2.0 * k - 2.0) * pw[k - 2] * ps;
                r.hc += sg * 2.0 * k * (2.0 * k - 2.0) * pw[k - 2] * pc;
            }
            ps /= (2.0 * k + 2.0) * (2.0 * k + 3.0);
            pc /= (2.0 * k + 3.0) * (2.0 * k + 4.0);
        }
        return r;
    }
    double sn = sin(n), cs = cos(n), n2 = n * n;
    r.s = sn / n;
    r.c = (1.0 - cs) / n2;
    r.gs = (n * cs - sn) / (n2 * n);
    r.hs = (3.0 * sn - 3.0 * n * cs - n2 * sn) / (n2 * n2 * n);
    r.gc = (n * sn - 2.0 + 2.0 * cs) / (n2 * n2);
    r.hc = (n2 * cs - 5.0 * n * sn + 8.0 - 8.0 * cs) / (n2 * n2 * n2);
    return r;
}

/// First derivatives of the rotation, dR[k] = dR/dtheta_k (k = 0, 1, 2), of R(theta) =
/// Id + s K + c K^2 with K = [theta]: dR_k = gs theta_k K + s E_k + gc theta_k K^2 +
/// c (E_k K + K E_k), E_k = [e_k].
/// @param[in]  theta  rotation vector (rad)
/// @param[out] dR     three matrices (dimensionless per rad)
ALC_HD void alcm_rodrigues_grad(alcV3 theta, alcM3 dR[3]) {
    alcRodriguesCoef f = alcm_rodrigues_coef(alcm_v3_norm(theta));
    alcM3 K = alcm_m3_skew(theta), K2 = alcm_m3_mul(K, K);
    double th[3] = {theta.x, theta.y, theta.z};
    for (int k = 0; k < 3; k++) {
        alcV3 e = alcm_v3(k == 0, k == 1, k == 2);
        alcM3 E = alcm_m3_skew(e);
        alcM3 EK = alcm_m3_add(alcm_m3_mul(E, K), alcm_m3_mul(K, E));
        for (int i = 0; i < 9; i++)
            dR[k].m[i] =
                f.gs * th[k] * K.m[i] + f.s * E.m[i] + f.gc * th[k] * K2.m[i] + f.c * EK.m[i];
    }
}

/// Second derivatives of the rotation, d2R[3 k + l] = d2R / dtheta_k dtheta_l (symmetric in
/// k and l): (hs th_k th_l + gs delta_kl) K + gs (th_k E_l + th_l E_k) +
/// (hc th_k th_l + gc delta_kl) K^2 + gc (th_k (E_l K + K E_l) + th_l (E_k K + K E_k)) +
/// c (E_k E_l + E_l E_k).
/// @param[in]  theta  rotation vector (rad)
/// @param[out] d2R    nine matrices (per rad^2)
ALC_HD void alcm_rodrigues_hess(alcV3 theta, alcM3 d2R[9]) {
    alcRodriguesCoef f = alcm_rodrigues_coef(alcm_v3_norm(theta));
    alcM3 K = alcm_m3_skew(theta), K2 = alcm_m3_mul(K, K);
    double th[3] = {theta.x, theta.y, theta.z};
    alcM3 E[3], EK[3];
    for (int k = 0; k < 3; k++) {
        E[k] = alcm_m3_skew(alcm_v3(k == 0, k == 1, k == 2));
        EK[k] = alcm_m3_add(alcm_m3_mul(E[k], K), alcm_m3_mul(K, E[k]));
    }
    for (int k = 0; k < 3; k++) {
        for (int l = k; l < 3; l++) {
            double dkl = k == l ? 1.0 : 0.0;
            double a = f.hs * th[k] * th[l] + f.gs * dkl;
            double b = f.hc * th[k] * th[l] + f.gc * dkl;
            alcM3 EE = alcm_m3_add(alcm_m3_mul(E[k], E[l]), alcm_m3_mul(E[l], E[k]));
            alcM3 r;
            for (int i = 0; i < 9; i++)
                r.m[i] = a * K.m[i] + f.gs * (th[k] * E[l].m[i] + th[l] * E[k].m[i]) + b * K2.m[i] +
                         f.gc * (th[k] * EK[l].m[i] + th[l] * EK[k].m[i]) + f.c * EE.m[i];
            d2R[3 * k + l] = d2R[3 * l + k] = r;
        }
    }
}

/// Position of a path's point at t: R(theta(t)) a + q(t) (RIPC Eqs. 4, 16).
/// @param[in] p  the path
/// @param[in] t  time in units of the step, usually in [0, 1]
ALC_HD alcV3 alcm_rigidPath_at(const alcRigidPath* p, double t) {
    alcV3 th = alcm_v3_add(alcm_v3_scale(p->theta0, 1.0 - t), alcm_v3_scale(p->theta1, t));
    alcV3 q = alcm_v3_add(alcm_v3_scale(p->q0, 1.0 - t), alcm_v3_scale(p->q1, t));
    return alcm_v3_add(alcm_m3_mulv(alcm_rodrigues(th), p->a), q);
}

/// An interval vector (three intervals).
typedef struct {
    alcI x, y, z;
} alcIV3;

/// R(theta) a over the boxes theta of rotation vectors and a of positions, in interval
/// arithmetic (Eq. 14 as in alcm_rodrigues, with the interval sinc of RIPC App. A.3). Encloses
/// R(th) b for every th and b in the boxes.
/// @param[in] th  interval rotation vector (rad)
/// @param[in] a   interval position (m)
ALC_HD alcIV3 alcm_i_rotateIV(alcIV3 th, alcIV3 a) {
    alcI n =
        alcm_i_sqrt(alcm_i_add(alcm_i_add(alcm_i_sqr(th.x), alcm_i_sqr(th.y)), alcm_i_sqr(th.z)));
    alcI s = alcm_i_sinc(n);
    alcI c = alcm_i_sinc(alcm_i_scale(n, 0.5));
    alcI c2 = alcm_i_scale(alcm_i_sqr(c), 0.5);
    alcI A[3] = {a.x, a.y, a.z};
    alcI T[3] = {th.x, th.y, th.z};
    // k = theta x a, k2 = theta x (theta x a): [theta] a and [theta]^2 a
    alcI k[3], k2[3];
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, l = (i + 2) % 3;
        k[i] = alcm_i_sub(alcm_i_mul(T[j], A[l]), alcm_i_mul(T[l], A[j]));
    }
    for (int i = 0; i < 3; i++) {
        int j = (i + 1) % 3, l = (i + 2) % 3;
        k2[i] = alcm_i_sub(alcm_i_mul(T[j], k[l]), alcm_i_mul(T[l], k[j]));
    }
    alcI r[3];
    for (int i = 0; i < 3; i++)
        r[i] = alcm_i_add(A[i], alcm_i_add(alcm_i_mul(s, k[i]), alcm_i_mul(c2, k2[i])));
    alcIV3 out = {r[0], r[1], r[2]};
    return out;
}

/// R(theta) a over the box theta of rotation vectors, for a body-frame point a: as
/// alcm_i_rotateIV with a point interval.
/// @param[in] th  interval rotation vector (rad)
/// @param[in] a   body-frame position (m)
ALC_HD alcIV3 alcm_i_rotate(alcIV3 th, alcV3 a) {
    alcIV3 ai = {alcm_i_point(a.x), alcm_i_point(a.y), alcm_i_point(a.z)};
    return alcm_i_rotateIV(th, ai);
}

/// Upper bound of the Euclidean norm of every vector in an interval box.
ALC_HD double alcm_iv3_normUpper(alcIV3 v) {
    double x = fmax(fabs(v.x.lo), fabs(v.x.hi)), y = fmax(fabs(v.y.lo), fabs(v.y.hi));
    double z = fmax(fabs(v.z.lo), fabs(v.z.hi));
    return alcm_i_up(alcm_i_up(sqrt(alcm_i_up(alcm_i_up(x * x + y * y) + z * z))));
}

/// Deviation of a path's point from its chord over [t0, t1], by interval arithmetic (RIPC
/// Eq. 20): an upper bound of |phi(t) - ((1 - u) phi(t0) + u phi(t1))| over t in [t0, t1],
/// u = (t - t0) / (t1 - t0), evaluated with t and u as independent intervals. The translation is
/// linear in t, so it cancels from the difference exactly and is left out.
/// @param[in] p       the path
/// @param[in] t0, t1  the sub-interval, 0 <= t0 < t1 <= 1 (units of the step)
/// @return the bound (m); 0 for a straight-line path (a = 0).
ALC_HD double alcm_rigidPath_devInterval(const alcRigidPath* p, double t0, double t1) {
    if (p->a.x == 0 && p->a.y == 0 && p->a.z == 0) return 0.0;
    alcV3 d = alcm_v3_sub(p->theta1, p->theta0);
    alcI t = alcm_i(t0, t1), u = alcm_i(0.0, 1.0);
    // theta over [t0, t1], and at the two ends, in interval arithmetic
    alcIV3 th = {alcm_i_add(alcm_i_point(p->theta0.x), alcm_i_scale(t, d.x)),
                 alcm_i_add(alcm_i_point(p->theta0.y), alcm_i_scale(t, d.y)),
                 alcm_i_add(alcm_i_point(p->theta0.z), alcm_i_scale(t, d.z))};
    alcI e0 = alcm_i_point(t0), e1 = alcm_i_point(t1);
    alcIV3 th0 = {alcm_i_add(alcm_i_point(p->theta0.x), alcm_i_scale(e0, d.x)),
                  alcm_i_add(alcm_i_point(p->theta0.y), alcm_i_scale(e0, d.y)),
                  alcm_i_add(alcm_i_point(p->theta0.z), alcm_i_scale(e0, d.z))};
    alcIV3 th1 = {alcm_i_add(alcm_i_point(p->theta0.x), alcm_i_scale(e1, d.x)),
                  alcm_i_add(alcm_i_point(p->theta0.y), alcm_i_scale(e1, d.y)),
                  alcm_i_add(alcm_i_point(p->theta0.z), alcm_i_scale(e1, d.z))};
    alcIV3 r = alcm_i_rotate(th, p->a), r0 = alcm_i_rotate(th0, p->a),
           r1 = alcm_i_rotate(th1, p->a);
    alcI w = alcm_i_sub(alcm_i_point(1.0), u);
    alcIV3 dev = {
        alcm_i_sub(r.x, alcm_i_add(alcm_i_mul(w, r0.x), alcm_i_mul(u, r1.x))),
        alcm_i_sub(r.y, alcm_i_add(alcm_i_mul(w, r0.y), alcm_i_mul(u, r1.y))),
        alcm_i_sub(r.z, alcm_i_add(alcm_i_mul(w, r0.z), alcm_i_mul(u, r1.z))),
    };
    return alcm_iv3_normUpper(dev);
}

/// Deviation of a path's point from its chord over [t0, t1], by the speed bound: the angular
/// velocity of R(theta(t)) is J(theta) theta', and the singular values of the rotation-vector
/// Jacobian J are 1 (along theta) and |2 sin(|theta| / 2)| / |theta| <= 1, so |omega| <=
/// |theta1 - theta0| per unit t and the point moves at speed v <= |a| |theta1 - theta0| relative
/// to its translation. A point that moved at most v (t - t0) from phi(t0) and v (t1 - t) from
/// phi(t1) is within (1 - u) v (t - t0) + u v (t1 - t) = 2 u (1 - u) v (t1 - t0) <=
/// v (t1 - t0) / 2 of the chord point (1 - u) phi(t0) + u phi(t1). Widened by 1e-14 relative
/// (the rounding of the few operations here).
/// @param[in] p       the path
/// @param[in] t0, t1  the sub-interval (units of the step)
/// @return the bound (m); 0 for a path without rotation or with a = 0.
ALC_HD double alcm_rigidPath_devSpeed(const alcRigidPath* p, double t0, double t1) {
    double v = alcm_v3_norm(p->a) * alcm_v3_norm(alcm_v3_sub(p->theta1, p->theta0));
    return 0.5 * v * (t1 - t0) * (1.0 + 1e-14);
}

/// The rounding of a path's chord end points as alcm_rigidPath_at computes them: a few ulps of
/// their magnitude, and of |a| times the rotation vectors' (whose interpolation rounds by ulps
/// of |theta|), taken as 64 eps (|a| (1 + |theta0| + |theta1|) + |q0| + |q1|) (m).
ALC_HD double alcm_rigidPath_devRound(const alcRigidPath* p) {
    double mag = alcm_v3_norm(p->a) * (1.0 + alcm_v3_norm(p->theta0) + alcm_v3_norm(p->theta1)) +
                 alcm_v3_norm(p->q0) + alcm_v3_norm(p->q1);
    return 64.0 * ALCM_I_EPS * mag;
}

/// Deviation bound of a path's point from its chord over [t0, t1]: the speed bound, or where
/// the sub-interval turns the body by a radian or more, the smaller of it and the interval
/// bound; plus the rounding of the chord's end points (alcm_rigidPath_devRound). The interval
/// bound's chord term (1 - u) r0 + u r1, with u an interval of its own, is about |a| wide
/// whatever the turn, so below a radian the speed bound (|a| |dtheta| (t1 - t0) / 2) is the
/// tighter: on random paths turning 1e-4 to 0.1 rad it was never smaller, and 22 (at 0.1 rad) to
/// 20,000 (at 1e-4) times larger on average; evaluating it took three quarters of a rigid arch's
/// run under the IPC model.
/// @return the bound (m), >= 0.
ALC_HD double alcm_rigidPath_deviation(const alcRigidPath* p, double t0, double t1) {
    double e = alcm_rigidPath_devSpeed(p, t0, t1);
    if (alcm_v3_norm(alcm_v3_sub(p->theta1, p->theta0)) * (t1 - t0) >= 1.0) {
        e = fmin(e, alcm_rigidPath_devInterval(p, t0, t1));
    }
    return e + alcm_rigidPath_devRound(p);
}

/// Box of a path's point over [t0, t1], for the broad phase of curved trajectories (RIPC
/// §4.3): every point of the curve lies within the deviation bound of its chord point, and the
/// chord lies in the box of its two end points, so that box grown by the bound (and by r) holds
/// the curve. Conservative in floating point as alcm_aabb_grow.
/// @param[in] p       the path
/// @param[in] t0, t1  the sub-interval (units of the step)
/// @param[in] r       extra growth (m), >= 0: a contact reach or minimum separation
ALC_HD alcAabb alcm_rigidPath_box(const alcRigidPath* p, double t0, double t1, double r) {
    alcAabb b =
        alcm_aabb_addPoint(alcm_aabb_point(alcm_rigidPath_at(p, t0)), alcm_rigidPath_at(p, t1));
    return alcm_aabb_grow(b, r + alcm_rigidPath_deviation(p, t0, t1));
}

/// theta0 + t (theta1 - theta0) over the interval t, componentwise, in interval arithmetic.
ALC_HD alcIV3 alcm_iv3_lerp(alcV3 v0, alcV3 v1, alcI t) {
    alcIV3 r = {alcm_i_add(alcm_i_point(v0.x),
                           alcm_i_mul(t, alcm_i_sub(alcm_i_point(v1.x), alcm_i_point(v0.x)))),
                alcm_i_add(alcm_i_point(v0.y),
                           alcm_i_mul(t, alcm_i_sub(alcm_i_point(v1.y), alcm_i_point(v0.y)))),
                alcm_i_add(alcm_i_point(v0.z),
                           alcm_i_mul(t, alcm_i_sub(alcm_i_point(v1.z), alcm_i_point(v0.z))))};
    return r;
}

/// Where a point of one moving body lies in the frame of another over [t0, t1] (RIPC §4.3,
/// Eq. 15 and 17): a box holding R(theta_B(t))^T (R(theta_A(t)) a + q_A(t) - q_B(t)) for every
/// t in [t0, t1], each rotation vector and translation linear in t: the intersection of the
/// interval-arithmetic box (outward rounding; R^T = R(-theta)) and the box of the end points
/// grown by a speed bound. Distances are the same in every frame, so a primitive of
/// A that comes within d of one of B at some t has frame boxes within d of B's body-frame box:
/// the broad phase queries B's static body-frame hierarchy with these boxes (host/rigid_bvh.h).
/// @param[in] pa      the point of A, with A's motion (pa.a in A's body frame)
/// @param[in] thB0, thB1, qB0, qB1  B's motion (rad, m)
/// @param[in] t0, t1  the sub-interval, 0 <= t0 <= t1 <= 1 (units of the step)
/// @return the box in B's body frame (m).
ALC_HD alcAabb alcm_rigid_frameBox(const alcRigidPath* pa, alcV3 thB0, alcV3 thB1, alcV3 qB0,
                                   alcV3 qB1, double t0, double t1) {
    alcI t = alcm_i(t0, t1);
    alcIV3 thA = alcm_iv3_lerp(pa->theta0, pa->theta1, t);
    alcIV3 x = alcm_i_rotate(thA, pa->a);
    alcIV3 qA = alcm_iv3_lerp(pa->q0, pa->q1, t), qB = alcm_iv3_lerp(qB0, qB1, t);
    alcIV3 z = {alcm_i_add(x.x, alcm_i_sub(qA.x, qB.x)), alcm_i_add(x.y, alcm_i_sub(qA.y, qB.y)),
                alcm_i_add(x.z, alcm_i_sub(qA.z, qB.z))};
    alcIV3 thB = alcm_iv3_lerp(thB0, thB1, t);
    alcIV3 mth = {alcm_i_neg(thB.x), alcm_i_neg(thB.y), alcm_i_neg(thB.z)};
    alcIV3 y = alcm_i_rotateIV(mth, z);
    alcAabb b;
    b.lo = alcm_v3(y.x.lo, y.y.lo, y.z.lo);
    b.hi = alcm_v3(y.x.hi, y.y.hi, y.z.hi);
    // the chord between the ends, grown by the speed bound: y' = R_B^T z' + (R_B^T)' z, with
    // |z'| <= |dthA| |a| + |dqA - dqB| and |(R_B^T)' z| <= |dthB| |z| (the rotation-vector
    // Jacobian's singular values are at most 1, as in alcm_rigidPath_devSpeed), and
    // |z| <= |a| + the larger of |qA - qB| at the two ends (it is linear in t); a point moving
    // at speed v stays within v (t1 - t0) / 2 of its chord. The interval box suffers from
    // dependency over a large turn, this one from a long lever arm: both hold the path, and so
    // does their intersection.
    alcV3 e[2];
    double tt[2] = {t0, t1};
    for (int k = 0; k < 2; k++) {
        alcV3 thBk = alcm_v3_add(alcm_v3_scale(thB0, 1.0 - tt[k]), alcm_v3_scale(thB1, tt[k]));
        alcV3 qBk = alcm_v3_add(alcm_v3_scale(qB0, 1.0 - tt[k]), alcm_v3_scale(qB1, tt[k]));
        e[k] = alcm_m3_mulv(alcm_rodrigues(alcm_v3_scale(thBk, -1.0)),
                            alcm_v3_sub(alcm_rigidPath_at(pa, tt[k]), qBk));
    }
    double an = alcm_v3_norm(pa->a);
    double lever =
        an + fmax(alcm_v3_norm(alcm_v3_sub(pa->q0, qB0)), alcm_v3_norm(alcm_v3_sub(pa->q1, qB1)));
    double v = alcm_v3_norm(alcm_v3_sub(thB1, thB0)) * lever +
               alcm_v3_norm(alcm_v3_sub(pa->theta1, pa->theta0)) * an +
               alcm_v3_norm(alcm_v3_sub(alcm_v3_sub(pa->q1, pa->q0), alcm_v3_sub(qB1, qB0)));
    // rounding of the two end points (two rotations and a few sums of these magnitudes)
    double mag = lever * (1.0 + alcm_v3_norm(pa->theta0) + alcm_v3_norm(pa->theta1) +
                          alcm_v3_norm(thB0) + alcm_v3_norm(thB1)) +
                 alcm_v3_norm(pa->q0) + alcm_v3_norm(pa->q1) + alcm_v3_norm(qB0) +
                 alcm_v3_norm(qB1);
    double dev = 0.5 * v * (t1 - t0) * (1.0 + 1e-14) + 128.0 * ALCM_I_EPS * mag;
    alcAabb c = alcm_aabb_grow(alcm_aabb_addPoint(alcm_aabb_point(e[0]), e[1]), dev);
    b.lo = alcm_v3(fmax(b.lo.x, c.lo.x), fmax(b.lo.y, c.lo.y), fmax(b.lo.z, c.lo.z));
    b.hi = alcm_v3(fmin(b.hi.x, c.hi.x), fmin(b.hi.y, c.hi.y), fmin(b.hi.z, c.hi.z));
    return b;
}

#endif  // ALC_HD_ALCM_RIGID_H_
