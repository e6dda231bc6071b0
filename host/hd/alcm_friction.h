// Lagged, smoothed friction (IPC §5, used by AL paper Appendix A, Eq. 22): per contact pair a
// potential mu_f F f0(|u|) on the relative tangential displacement u, with the normal force F,
// the tangent basis T and the closest-point weights w frozen at the start of the step.
//
// With r = sum_a w_a (x_a - xt_a) (the relative displacement of the closest points) and
// u = T^T r in R^2, eps = eps_v h:
//   f0(y) = -y^3/(3 eps^2) + y^2/eps + eps/3  (y < eps),  y  (y >= eps)
//   f1(y) = f0'(y) = -y^2/eps^2 + 2y/eps      (y < eps),  1  (y >= eps)
// and the IP term is h^2 mu_f F f0(|u|). Header-only, shared by host and device.
#ifndef ALC_HD_ALCM_FRICTION_H_
#define ALC_HD_ALCM_FRICTION_H_

#include "alcm_vec.h"

/// Smoothed norm f0 (m) of a tangential displacement y >= 0 (m), threshold eps = eps_v h (m).
ALC_HD double alcm_fric_f0(double y, double eps) {
    if (y >= eps) return y;
    return -y * y * y / (3 * eps * eps) + y * y / eps + eps / 3;
}

/// f1(y) / y (1/m), finite at y = 0 (limit 2/eps).
ALC_HD double alcm_fric_f1OverY(double y, double eps) {
    if (y >= eps) return 1.0 / y;
    return -y / (eps * eps) + 2.0 / eps;
}

/// Orthonormal tangent basis (two columns, T[0..2] and T[3..5]) of the plane normal to the unit
/// vector n, chosen deterministically from the axis least aligned with n.
ALC_HD void alcm_fric_basis(alcV3 n, double T[6]) {
    double ax = fabs(n.x), ay = fabs(n.y), az = fabs(n.z);
    alcV3 e =
        ax <= ay && ax <= az ? alcm_v3(1, 0, 0) : (ay <= az ? alcm_v3(0, 1, 0) : alcm_v3(0, 0, 1));
    alcV3 t0 = alcm_v3_normalize(alcm_v3_cross(n, e));
    alcV3 t1 = alcm_v3_cross(n, t0);
    alcm_v3_store(T, t0);
    alcm_v3_store(T + 3, t1);
}

/// Closest-point weights and contact normal of a pair from its distance gradient g (12, the
/// gradient of the unsigned distance w.r.t. the four stencil vertices): for the exact distance
/// between closest points, grad_a d = w_a n with sum over side 0 of w_a = 1. isEE selects the
/// side split (PT: vertex 0 | 1..3; EE: 0..1 | 2..3).
/// @return false when g vanishes (no direction).
ALC_HD bool alcm_fric_weights(const double g[12], bool isEE, double w[4], alcV3* n) {
    alcV3 s = alcm_v3_load(g);
    if (isEE) s = alcm_v3_add(s, alcm_v3_load(g + 3));
    double sn = alcm_v3_norm(s);
    if (!(sn > 0)) return false;
    alcV3 nn = alcm_v3_scale(s, 1.0 / sn);
    for (int a = 0; a < 4; a++) w[a] = alcm_v3_dot(alcm_v3_load(g + 3 * a), nn) / sn;
    *n = nn;
    return true;
}

/// Tangential displacement u (2) of a lagged pair from current positions x and start xt.
ALC_HD void alcm_fric_u(const double w[4], const double T[6], const alcV3 x[4], const alcV3 xt[4],
                        double u[2]) {
    alcV3 r = alcm_v3(0, 0, 0);
    for (int a = 0; a < 4; a++) r = alcm_v3_mad(r, w[a], alcm_v3_sub(x[a], xt[a]));
    u[0] = alcm_v3_dot(r, alcm_v3_load(T));
    u[1] = alcm_v3_dot(r, alcm_v3_load(T + 3));
}

/// Friction potential of a pair in IP units: h2 coef f0(|u|), coef = mu_f F (N), h2 = h^2.
ALC_HD double alcm_fric_energy(const double u[2], double coef, double eps, double h2) {
    return h2 * coef * alcm_fric_f0(sqrt(u[0] * u[0] + u[1] * u[1]), eps);
}

/// Tangential force direction vector q = T (f1/y) u (1/m * m = dimensionless, 3): the gradient
/// with respect to vertex a is h2 coef w_a q.
ALC_HD alcV3 alcm_fric_q(const double u[2], const double T[6], double eps) {
    double y = sqrt(u[0] * u[0] + u[1] * u[1]);
    double s = alcm_fric_f1OverY(y, eps);
    return alcm_v3_add(alcm_v3_scale(alcm_v3_load(T), s * u[0]),
                       alcm_v3_scale(alcm_v3_load(T + 3), s * u[1]));
}

/// The 3x3 matrix K = T M T^T with M the (PSD) Hessian of f0(|u|) in u; the pair Hessian block
/// (a, b) is h2 coef w_a w_b K. M = f1/y I + (f1' - f1/y)/y^2 u u^T, clamped to PSD.
ALC_HD alcM3 alcm_fric_K(const double u[2], const double T[6], double eps) {
    double y = sqrt(u[0] * u[0] + u[1] * u[1]);
    double a = alcm_fric_f1OverY(y, eps);  // coefficient of I
    double b = 0;                          // coefficient of u_hat u_hat^T
    if (y > 0) b = y >= eps ? -1.0 / y : -y / (eps * eps);
    double uh0 = y > 0 ? u[0] / y : 0, uh1 = y > 0 ? u[1] / y : 0;
    double M00 = a + b * uh0 * uh0, M01 = b * uh0 * uh1, M11 = a + b * uh1 * uh1;
    // eigen-clamp the 2x2 (it is PSD analytically for the C1 f1; guard rounding)
    double tr = M00 + M11, det = M00 * M11 - M01 * M01;
    double disc = sqrt(alcm_max(0.25 * tr * tr - det, 0));
    double l0 = 0.5 * tr + disc, l1 = 0.5 * tr - disc;
    if (l1 < 0) {
        // rebuild with clamped eigenvalues
        double vx, vy;
        if (fabs(M01) > 1e-300) {
            vx = l0 - M11;
            vy = M01;
        } else {
            vx = M00 >= M11 ? 1 : 0;
            vy = M00 >= M11 ? 0 : 1;
        }
        double vn = sqrt(vx * vx + vy * vy);
        vx /= vn;
        vy /= vn;
        double lp = alcm_max(l0, 0);
        M00 = lp * vx * vx;
        M01 = lp * vx * vy;
        M11 = lp * vy * vy;
    }
    alcV3 t0 = alcm_v3_load(T), t1 = alcm_v3_load(T + 3);
    alcM3 K = alcm_m3_scale(alcm_m3_outer(t0, t0), M00);
    K = alcm_m3_add(K,
                    alcm_m3_scale(alcm_m3_add(alcm_m3_outer(t0, t1), alcm_m3_outer(t1, t0)), M01));
    K = alcm_m3_add(K, alcm_m3_scale(alcm_m3_outer(t1, t1), M11));
    return K;
}

/// Whether a trial point's tangential displacement u reverses the slip the pair had at the last
/// assembly, uFrom: uFrom beyond the smoothing threshold (|uFrom| >= eps, sliding) and u pointing
/// against it (u . uFrom < 0). A Newton step taken on the exact Hessian (alcm_fric_K), which has
/// no curvature along a sliding pair's slip, carries such a pair across the cone's tip.
/// @param uFrom  u at the last assembly (2, m)
/// @param u      u at the trial point (2, m)
/// @param eps    eps_v h (m)
ALC_HD bool alcm_fric_reverses(const double uFrom[2], const double u[2], double eps) {
    double y2 = uFrom[0] * uFrom[0] + uFrom[1] * uFrom[1];
    return y2 >= eps * eps && uFrom[0] * u[0] + uFrom[1] * u[1] < 0;
}

/// The secant stiffness of a pair's friction: K = (f1/y) T T^T, the force's magnitude over the
/// displacement in every tangential direction (beyond the AL paper and IPC, issue 18). It is
/// the Hessian of the quadratic that touches f0(|u|) at u from above (for y >= eps: |u'| <=
/// (|u|^2 + |u'|^2) / (2 |u|); inside the smoothing zone f1/y >= f1'), the model of
/// iteratively reweighted least squares: a Newton step on it does not carry the pair across
/// the cone's tip, where the exact K (alcm_fric_K: no curvature along the slip once y >= eps)
/// does. The gradient is unchanged, so the minimizer is too. The backends use it only for the
/// pairs a line-search trial reversed (alcm_fric_reverses), for one assembly, and host/step.c
/// does not end a subproblem on an iteration that used it.
/// @param u    the pair's tangential displacement (2, m)
/// @param T    its tangent basis (two unit columns, 6)
/// @param eps  eps_v h (m)
ALC_HD alcM3 alcm_fric_Ksecant(const double u[2], const double T[6], double eps) {
    double a = alcm_fric_f1OverY(sqrt(u[0] * u[0] + u[1] * u[1]), eps);
    alcV3 t0 = alcm_v3_load(T), t1 = alcm_v3_load(T + 3);
    return alcm_m3_scale(alcm_m3_add(alcm_m3_outer(t0, t0), alcm_m3_outer(t1, t1)), a);
}

#endif  // ALC_HD_ALCM_FRICTION_H_
