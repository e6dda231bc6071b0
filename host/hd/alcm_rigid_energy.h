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

/// How a stencil vertex's position depends on the solver's DOF nodes: a soft vertex is its own
/// node (J = I); a vertex of a rigid body depends on the body's theta node (J = dphi/dtheta)
/// and q node (J = I), alcm_rigid_pointJacobian at the current pose.
typedef struct {
    int n;           ///< nodes: 1 (soft) or 2 (rigid)
    int node[2];     ///< the nodes' indices (block rows of the step vectors)
    double J[2][9];  ///< dx/d(node), 3 x 3 row-major each
} alcRigidVertMap;

/// A soft vertex's map: node `row`, J = I.
ALC_HD alcRigidVertMap alcm_rigid_mapSoft(int row) {
    alcRigidVertMap m;
    m.n = 1;
    m.node[0] = row;
    m.node[1] = -1;
    for (int i = 0; i < 9; i++) m.J[0][i] = m.J[1][i] = (i % 4 == 0) ? 1.0 : 0.0;
    return m;
}

/// A rigid vertex's map: nodes thetaNode and qNode of its body at rotation vector theta, the
/// vertex at body-frame position a.
ALC_HD alcRigidVertMap alcm_rigid_mapRigid(int thetaNode, int qNode, alcV3 theta, alcV3 a) {
    alcRigidVertMap m;
    m.n = 2;
    m.node[0] = thetaNode;
    m.node[1] = qNode;
    double jac[18];
    alcm_rigid_pointJacobian(theta, a, jac);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            m.J[0][3 * i + j] = jac[6 * i + j];
            m.J[1][3 * i + j] = i == j ? 1.0 : 0.0;
        }
    }
    return m;
}

/// Most DOF nodes a 4-vertex stencil reaches (every vertex on a different rigid body).
#define ALCM_STENCIL_NODES 8

/// Pull a stencil's gradient and Hessian in its 4 vertices' positions back to the DOF nodes
/// they depend on (RIPC §4.2): G_N = sum_a J_aN^T g_a and H_NM = sum_ab J_aN^T H_ab J_bM over
/// the stencil's vertices a, b that depend on N, M. The Hessian is the Gauss-Newton part: the
/// term g_a . d2x_a/dtheta2 is left out, so a positive semi-definite H stays so (the rigid
/// body's own rotational block carries its curvature).
/// @param[in]  map    the 4 vertices' maps
/// @param[in]  g      stencil gradient (12: vertex-major xyz)
/// @param[in]  H      stencil Hessian (12 x 12 row-major). Nullable: no Hessian
/// @param[out] nodes  the distinct nodes, in order of first appearance
/// @param[out] G      their gradients (3 per node)
/// @param[out] HN     their Hessian (3 nnodes x 3 nnodes, row-major with stride
///                    3 ALCM_STENCIL_NODES = 24). Nullable
/// @return the number of distinct nodes (1..ALCM_STENCIL_NODES).
ALC_HD int alcm_rigid_pullback(const alcRigidVertMap map[4], const double g[12], const double* H,
                               int nodes[ALCM_STENCIL_NODES], double G[3 * ALCM_STENCIL_NODES],
                               double* HN) {
    const int S = 3 * ALCM_STENCIL_NODES;
    int nn = 0;
    int slot[4][2];
    for (int a = 0; a < 4; a++) {
        for (int k = 0; k < map[a].n; k++) {
            int s = -1;
            for (int i = 0; i < nn; i++) s = nodes[i] == map[a].node[k] ? i : s;
            if (s < 0) {
                s = nn++;
                nodes[s] = map[a].node[k];
            }
            slot[a][k] = s;
        }
    }
    for (int i = 0; i < 3 * nn; i++) G[i] = 0;
    for (int a = 0; a < 4; a++) {
        for (int k = 0; k < map[a].n; k++) {
            const double* J = map[a].J[k];
            double* Gs = G + 3 * slot[a][k];
            for (int c = 0; c < 3; c++)
                for (int r = 0; r < 3; r++) Gs[c] += J[3 * r + c] * g[3 * a + r];
        }
    }
    if (!H || !HN) return nn;
    for (int i = 0; i < 3 * nn; i++)
        for (int j = 0; j < 3 * nn; j++) HN[i * S + j] = 0;
    for (int a = 0; a < 4; a++) {
        for (int b = 0; b < 4; b++) {
            // the 3 x 3 block H_ab
            double Hab[9];
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++) Hab[3 * r + c] = H[12 * (3 * a + r) + 3 * b + c];
            for (int k = 0; k < map[a].n; k++) {
                for (int l = 0; l < map[b].n; l++) {
                    const double* Ja = map[a].J[k];
                    const double* Jb = map[b].J[l];
                    // T = H_ab J_b, then J_a^T T
                    double T[9];
                    for (int r = 0; r < 3; r++) {
                        for (int c = 0; c < 3; c++) {
                            T[3 * r + c] = Hab[3 * r] * Jb[c] + Hab[3 * r + 1] * Jb[3 + c] +
                                           Hab[3 * r + 2] * Jb[6 + c];
                        }
                    }
                    int so = 3 * slot[a][k], to = 3 * slot[b][l];
                    for (int r = 0; r < 3; r++) {
                        for (int c = 0; c < 3; c++) {
                            HN[(so + r) * S + to + c] +=
                                Ja[r] * T[c] + Ja[3 + r] * T[3 + c] + Ja[6 + r] * T[6 + c];
                        }
                    }
                }
            }
        }
    }
    return nn;
}

#endif  // ALC_HD_ALCM_RIGID_ENERGY_H_
