// The rigid incremental potential of one body (rigid IPC, Ferguson et al. 2021, §4.1): the
// inertia terms of implicit Euler on the rotation matrix and the translation, in the rotation
// vector and translation (theta, q), with their gradients and Hessians; and the Jacobian of a
// body point's position in those degrees of freedom, through which contact forces reach them.
// Shared by host C11 and CUDA device code. Header-only: includes only alcm_rigid.h (STYLE.md §7).
#ifndef ALC_HD_ALCM_RIGID_ENERGY_H_
#define ALC_HD_ALCM_RIGID_ENERGY_H_

#include "alcm_rigid.h"

/// The diagonal of RIPC's J_i = (1/2) diag(-Ix + Iy + Iz, Ix - Iy + Iz, Ix + Iy - Iz) from the
/// principal moments of inertia (kg m^2): the second moments of the mass along the principal
/// axes, so that the angular kinetic energy is (1/2) tr(Qdot J Qdot^T).
/// @param[in] I  principal moments (kg m^2)
/// @return J's diagonal (kg m^2)
ALC_HD alcV3 alcm_rigid_J(alcV3 I) {
    return alcm_v3(0.5 * (-I.x + I.y + I.z), 0.5 * (I.x - I.y + I.z), 0.5 * (I.x + I.y - I.z));
}

/// The predicted rotation of implicit Euler without torque (RIPC Eq. 9 with tau = 0):
/// Qtilde = Q + h Qdot = 2 Q - Qprev, with Qdot = (Q - Qprev) / h, Q and Qprev the rotations at
/// the start of this step and of the last. (External torques enter Qtilde as h^2 [tau] J^-1;
/// they come with the API's rigid bodies.)
/// @param[in] Q, Qprev  rotation matrices
ALC_HD alcM3 alcm_rigid_Qtilde(alcM3 Q, alcM3 Qprev) {
    alcM3 r;
    for (int i = 0; i < 9; i++) r.m[i] = 2.0 * Q.m[i] - Qprev.m[i];
    return r;
}

/// Rotational inertia energy E_Q(theta) = (1/2) tr(R J R^T) - tr(R J Qtilde^T), R = R(theta)
/// (RIPC Eq. 9), with its gradient and Hessian in theta. R is a rotation, so the first term is
/// the constant tr(J) / 2 and is evaluated as such (its derivatives vanish); the Hessian is
/// that of -tr(R J Qtilde^T) and may be indefinite (RIPC §4.2).
/// @param[in]  theta   rotation vector (rad)
/// @param[in]  Qtilde  predicted rotation (alcm_rigid_Qtilde; not orthogonal in general)
/// @param[in]  J       J's diagonal (kg m^2)
/// @param[out] grad    dE/dtheta (kg m^2 per rad), 3 entries. Nullable
/// @param[out] hess    d2E/dtheta2, 3 x 3 row-major. Nullable
/// @return E_Q (kg m^2; the incremental potential is E_Q / h^2 + ..., in J)
ALC_HD double alcm_rigid_rotEnergy(alcV3 theta, alcM3 Qtilde, alcV3 J, double grad[3],
                                   double hess[9]) {
    // tr(A J Qtilde^T) = sum_ij A_ij J_j Qtilde_ij
    alcM3 W;
    double Jd[3] = {J.x, J.y, J.z};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) W.m[3 * i + j] = Jd[j] * Qtilde.m[3 * i + j];
    alcM3 R = alcm_rodrigues(theta);
    double e = 0.5 * (J.x + J.y + J.z);
    for (int i = 0; i < 9; i++) e -= R.m[i] * W.m[i];
    if (grad) {
        alcM3 dR[3];
        alcm_rodrigues_grad(theta, dR);
        for (int k = 0; k < 3; k++) {
            double g = 0;
            for (int i = 0; i < 9; i++) g -= dR[k].m[i] * W.m[i];
            grad[k] = g;
        }
    }
    if (hess) {
        alcM3 d2R[9];
        alcm_rodrigues_hess(theta, d2R);
        for (int k = 0; k < 9; k++) {
            double g = 0;
            for (int i = 0; i < 9; i++) g -= d2R[k].m[i] * W.m[i];
            hess[k] = g;
        }
    }
    return e;
}

/// Translational inertia energy E_q(q) = (1/2) m q.q - m q.qtilde (RIPC Eq. 10), gradient
/// m (q - qtilde) and Hessian m Id (not returned).
/// @param[in]  q       translation (m)
/// @param[in]  qtilde  predicted translation q + h qdot + h^2 (g + f / m) (m)
/// @param[in]  m       mass (kg)
/// @param[out] grad    dE/dq (kg m), 3 entries. Nullable
/// @return E_q (kg m^2)
ALC_HD double alcm_rigid_transEnergy(alcV3 q, alcV3 qtilde, double m, double grad[3]) {
    if (grad) {
        grad[0] = m * (q.x - qtilde.x);
        grad[1] = m * (q.y - qtilde.y);
        grad[2] = m * (q.z - qtilde.z);
    }
    return 0.5 * m * alcm_v3_dot(q, q) - m * alcm_v3_dot(q, qtilde);
}

/// Jacobian of a body point's position phi = R(theta) a + q in (theta, q): 3 x 6 row-major,
/// columns 0-2 (dR/dtheta_k) a, columns 3-5 the identity. A contact gradient g in the point's
/// position reaches the body as J^T g (RIPC §4.2, "apply_chain_rule").
/// @param[in]  theta  rotation vector (rad)
/// @param[in]  a      body-frame position (m)
/// @param[out] jac    18 entries (m per rad in columns 0-2, dimensionless in 3-5)
ALC_HD void alcm_rigid_pointJacobian(alcV3 theta, alcV3 a, double jac[18]) {
    alcM3 dR[3];
    alcm_rodrigues_grad(theta, dR);
    for (int k = 0; k < 3; k++) {
        alcV3 c = alcm_m3_mulv(dR[k], a);
        jac[0 * 6 + k] = c.x;
        jac[1 * 6 + k] = c.y;
        jac[2 * 6 + k] = c.z;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) jac[i * 6 + 3 + j] = i == j ? 1.0 : 0.0;
}

#endif  // ALC_HD_ALCM_RIGID_ENERGY_H_
