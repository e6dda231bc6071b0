// The rigid incremental potential of one body (rigid IPC, Ferguson et al. 2021, §4.1): the
// inertia terms of the rotation matrix and the translation, in the rotation vector and
// translation (theta, q), with their gradients and Hessians; the predicted rotation they pull
// towards, the free step of the discrete rigid body (Moser and Veselov 1991), which keeps a free
// body's angular momentum where RIPC's implicit Euler on Q loses it; and the Jacobian of a body
// point's position in those degrees of freedom, through which contact forces reach them.
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
/// Qtilde = Q + h Qdot = Q + s (Q - Qprev), with Qdot = (Q - Qprev) / hPrev, Q and Qprev the
/// rotations at the start of this step and hPrev earlier, s = h / hPrev (2 Q - Qprev for equal
/// steps). Not orthogonal in general. The solver predicts by alcm_rigid_predict, which falls back
/// on this. (External torques would enter as h^2 [tau] J^-1.)
/// @param[in] Q, Qprev  rotation matrices
/// @param[in] s         h / hPrev
ALC_HD alcM3 alcm_rigid_Qtilde(alcM3 Q, alcM3 Qprev, double s) {
    alcM3 r;
    for (int i = 0; i < 9; i++) r.m[i] = Q.m[i] + s * (Q.m[i] - Qprev.m[i]);
    return r;
}

/// The skew part's vector vee(F J - J F^T) of a rotation F against J's diagonal: for
/// F = R_k^T R_{k+1}, h times the body's angular momentum at step k in the discrete rigid body of
/// Moser and Veselov (kg m^2).
ALC_HD alcV3 alcm_rigid_mvMoment(alcM3 F, alcV3 J) {
    // (F J - J F^T)_ij = F_ij J_j - J_i F_ji
    double Jd[3] = {J.x, J.y, J.z};
    alcM3 S;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            S.m[3 * i + j] = F.m[3 * i + j] * Jd[j] - Jd[i] * F.m[3 * j + i];
    return alcm_v3(S.m[7], S.m[2], S.m[3]);  // S is skew: (S_21, S_02, S_10)
}

/// The rotation F near the identity with F J - J F^T = [b] (the discrete rigid body's step of
/// Moser and Veselov: b = h times its body angular momentum), by Newton's method on F's rotation
/// vector from the small-angle guess I^-1 b (I = tr(J) - J, the principal moments).
/// @param[in]  b  the skew part's vector (kg m^2)
/// @param[in]  J  J's diagonal (alcm_rigid_J; kg m^2)
/// @param[out] F  the rotation
/// @return 1 when solved to rounding; 0 when the iteration did not converge (a step turning the
///         body by about a quarter turn or more has no such F near the identity)
ALC_HD int alcm_rigid_mvSolve(alcV3 b, alcV3 J, alcM3* F) {
    double tr = J.x + J.y + J.z;
    alcV3 I = alcm_v3(tr - J.x, tr - J.y, tr - J.z);
    alcV3 phi = alcm_v3(b.x / I.x, b.y / I.y, b.z / I.z);
    double scale = alcm_v3_norm(b) + 1e-300;
    for (int it = 0; it < 40; it++) {
        alcM3 G = alcm_rodrigues(phi);
        alcV3 f = alcm_v3_sub(alcm_rigid_mvMoment(G, J), b);
        if (alcm_v3_norm(f) <= 4e-16 * scale) {
            *F = G;
            return 1;
        }
        alcM3 dG[3], K;
        alcm_rodrigues_grad(phi, dG);
        for (int j = 0; j < 3; j++) {
            alcV3 c = alcm_rigid_mvMoment(dG[j], J);
            K.m[j] = c.x;
            K.m[3 + j] = c.y;
            K.m[6 + j] = c.z;
        }
        alcM3 Kinv;
        if (!alcm_m3_inverse(K, &Kinv)) return 0;
        alcV3 d = alcm_m3_mulv(Kinv, f);
        phi = alcm_v3_sub(phi, d);
        if (!(alcm_v3_norm(phi) < 3.0)) return 0;
        if (alcm_v3_norm(d) <= 1e-15 * (1.0 + alcm_v3_norm(phi))) {
            *F = alcm_rodrigues(phi);
            return alcm_v3_norm(alcm_v3_sub(alcm_rigid_mvMoment(*F, J), b)) <=
                   1e-12 * scale + 1e-300;
        }
    }
    return 0;
}

/// The body angular momentum (kg m^2/s, in the frame of R) at the end of a step of length h from
/// Rprev to R in the discrete rigid body: Pi = F^T vee(F J - J F^T) / h with F = Rprev^T R.
ALC_HD alcV3 alcm_rigid_mvMomentum(alcM3 R, alcM3 Rprev, alcV3 J, double h) {
    alcM3 F = alcm_m3_Tmul(Rprev, R);
    return alcm_v3_scale(alcm_m3_mulv(alcm_m3_transpose(F), alcm_rigid_mvMoment(F, J)), 1.0 / h);
}

/// The predicted rotation of a step of length h without torque: R~ = R F with
/// F J - J F^T = h [Pi] (the discrete rigid body of Moser and Veselov, whose free motion keeps
/// the angular momentum R Pi exactly), Pi the body momentum that the step from Rprev to R over
/// hPrev leaves (alcm_rigid_mvMomentum). A step that turned the body by more than a quarter
/// turn is beyond the discrete rigid body (its momentum, the sine of the angle, reads as that of
/// the turn pi minus the angle), and so is a prediction without a solution: there, implicit
/// Euler's Q + (h / hPrev)(Q - Qprev) (RIPC Eq. 9).
/// @param[in] R, Rprev  rotations at the start of the step and hPrev earlier
/// @param[in] J         J's diagonal (kg m^2)
/// @param[in] hPrev, h  the time from Rprev to R, and the step (s)
ALC_HD alcM3 alcm_rigid_predict(alcM3 R, alcM3 Rprev, alcV3 J, double hPrev, double h) {
    alcM3 Fp = alcm_m3_Tmul(Rprev, R);
    alcV3 Pi = alcm_rigid_mvMomentum(R, Rprev, J, hPrev);
    alcM3 F;
    // tr F = 1 + 2 cos(angle): more than a quarter turn where the trace is below 1
    if (Fp.m[0] + Fp.m[4] + Fp.m[8] > 1.0 && alcm_rigid_mvSolve(alcm_v3_scale(Pi, h), J, &F)) {
        return alcm_m3_mul(R, F);
    }
    return alcm_rigid_Qtilde(R, Rprev, h / hPrev);
}

/// The rotation h before R from which a step of length h arrives at R with body momentum Pi
/// (frame R): Rprev = R F with F J - J F^T = -h [Pi] (the step of alcm_rigid_predict run
/// backwards). Where that has no solution, R(-h w) R with the body's angular velocity w = R I^-1
/// Pi in world axes.
/// @param[in] R   rotation
/// @param[in] Pi  body angular momentum (kg m^2/s, in the frame of R)
/// @param[in] J   J's diagonal (kg m^2)
/// @param[in] h   time (s)
ALC_HD alcM3 alcm_rigid_previous(alcM3 R, alcV3 Pi, alcV3 J, double h) {
    alcM3 F;
    if (alcm_rigid_mvSolve(alcm_v3_scale(Pi, -h), J, &F)) return alcm_m3_mul(R, F);
    double tr = J.x + J.y + J.z;
    alcV3 wb = alcm_v3(Pi.x / (tr - J.x), Pi.y / (tr - J.y), Pi.z / (tr - J.z));
    return alcm_m3_mul(alcm_rodrigues(alcm_v3_scale(alcm_m3_mulv(R, wb), -h)), R);
}

/// Rotational inertia energy E_Q(theta) = (1/2) tr(R J R^T) - tr(R J Qtilde^T), R = R(theta)
/// (RIPC Eq. 9), with its gradient and Hessian in theta. R is a rotation, so the first term is
/// the constant tr(J) / 2 and is evaluated as such (its derivatives vanish); the Hessian is
/// that of -tr(R J Qtilde^T) and may be indefinite (RIPC §4.2).
/// @param[in]  theta   rotation vector (rad)
/// @param[in]  Qtilde  predicted rotation (alcm_rigid_predict; alcm_rigid_Qtilde's is not
///                     orthogonal in general)
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
