// Point-triangle and edge-edge distances with closest-feature classification, gradients and
// Hessians, and the edge-edge parallel mollifier. Shared by host/ref/ and cuda/ (STYLE.md §7).
//
// Conventions
// - A stencil is 4 points: point-triangle (PT) v = {p, t0, t1, t2}, edge-edge (EE)
//   v = {a0, a1, b0, b1}. Gradients are g[3*i + k] (point i, coordinate k), 12 entries;
//   Hessians are row-major 12 x 12, H[12*(3*i + k) + 3*j + l].
// - Distances are unsigned, in the units of the coordinates (m); "dist2" functions return the
//   squared distance (m^2) and its derivatives, the IPC convention (digest §1.4).
// - The closest features are classified as in the IPC paper §6 (digest §1.5): PT has 3
//   point-point, 3 point-edge and 1 point-plane case, EE has 4 point-point, 4 point-edge and
//   1 line-line case. alctDistType names which stencil points form the features, so the
//   derivatives of each elementary case lift onto the 4-point stencil.
//
// Closed forms. Every elementary case is the minimum over k = 0, 1 or 2 parameters beta of
// F(x, beta) = |D|^2 with D = sum_i w_i(beta) x_i affine in beta (PP: k = 0, PE: the edge
// parameter, PT-plane: two barycentric coordinates, EE-line: the two edge parameters). At the
// minimiser (envelope theorem and implicit differentiation of F_beta = 0):
//   grad_i d^2 = 2 w_i D,
//   hess_ij d^2 = 2 w_i w_j I - 2 sum_ab v_ia (A^-1)_ab v_jb^T,   v_ia = u_ia D + w_i c_a,
// with u_ia = dw_i/dbeta_a, c_a = dD/dbeta_a and A_ab = c_a . c_b (A = F_betabeta / 2).
// No function returns NaN or Inf for finite coordinates below about 1e150 in magnitude (their
// squares must not overflow): degenerate cases fall back to lower ones (ALC_DIST_DEGENERATE_REL).
// D itself is evaluated with cross products (|r x e|^2 / |e|^2, (r . n)^2 / |n|^2) so that small
// distances keep their relative accuracy.
#ifndef ALC_HD_ALCM_DISTANCE_H_
#define ALC_HD_ALCM_DISTANCE_H_

#include "alcm_base.h"
#include "alcm_vec.h"

/// Relative threshold on sin^2 of the angle between two triangle edges (PT) or two edges (EE)
/// below which the point-plane or line-line case is not used: the classification falls back to
/// the point-edge / point-point cases on the boundary (digest §1.5, 1e-20 * a * c).
#define ALC_DIST_PARALLEL_REL 1e-20
/// Relative threshold below which an elementary case is degenerate (zero-length edge, zero-area
/// triangle, parallel lines) and the elementary functions fall back to a lower case, so that no
/// division by a vanishing quantity can produce Inf or NaN.
#define ALC_DIST_DEGENERATE_REL 1e-30
/// Absolute floor (coordinates^2 or ^4) for the same degeneracy test.
#define ALC_DIST_TINY 1e-280

/// Closest-feature type of a point-triangle or edge-edge pair. The comment gives the stencil
/// points (indices into v) that form the two features.
typedef enum alctDistType_ {
    ALC_DIST_AUTO = -1,  ///< classify from the positions (alcm_pt_type / alcm_ee_type)
    // point-triangle, v = {p, t0, t1, t2}
    ALC_DIST_PT_P_T0 = 0,  ///< point-point {0, 1}
    ALC_DIST_PT_P_T1,      ///< point-point {0, 2}
    ALC_DIST_PT_P_T2,      ///< point-point {0, 3}
    ALC_DIST_PT_P_E01,     ///< point-edge {0; 1, 2}
    ALC_DIST_PT_P_E12,     ///< point-edge {0; 2, 3}
    ALC_DIST_PT_P_E20,     ///< point-edge {0; 3, 1}
    ALC_DIST_PT_P_T,       ///< point-plane {0; 1, 2, 3}
    // edge-edge, v = {a0, a1, b0, b1}
    ALC_DIST_EE_A0_B0,  ///< point-point {0, 2}
    ALC_DIST_EE_A0_B1,  ///< point-point {0, 3}
    ALC_DIST_EE_A1_B0,  ///< point-point {1, 2}
    ALC_DIST_EE_A1_B1,  ///< point-point {1, 3}
    ALC_DIST_EE_A0_EB,  ///< point-edge {0; 2, 3}
    ALC_DIST_EE_A1_EB,  ///< point-edge {1; 2, 3}
    ALC_DIST_EE_B0_EA,  ///< point-edge {2; 0, 1}
    ALC_DIST_EE_B1_EA,  ///< point-edge {3; 0, 1}
    ALC_DIST_EE_EA_EB,  ///< line-line {0, 1; 2, 3}
    ALC_NDISTTYPE
} alctDistType;

/// Elementary case of a type: which closed form computes it.
typedef enum alctDistCase_ {
    ALC_DCASE_PP = 0,  ///< point-point, 2 points
    ALC_DCASE_PE,      ///< point-line, 3 points {p, e0, e1}
    ALC_DCASE_PLANE,   ///< point-plane, 4 points {p, t0, t1, t2}
    ALC_DCASE_LINE     ///< line-line, 4 points {a0, a1, b0, b1}
} alctDistCase;

/// Closest-point model of one elementary case at its minimiser (see the file comment).
typedef struct alcDistModel_ {
    int npt;            ///< points of the case (2, 3 or 4)
    int nparam;         ///< minimisation parameters k (0, 1 or 2)
    double w[4];        ///< D = sum_i w[i] x_i (barycentric weights, + first, - second feature)
    double u[4][2];     ///< u[i][a] = dw_i / dbeta_a
    alcV3 c[2];         ///< c[a] = dD / dbeta_a
    double Ainv[2][2];  ///< inverse of A_ab = c_a . c_b
    alcV3 D;            ///< closest point of the case's first feature minus that of the second
                        ///< (PT: p - triangle; EE: a - b, except B0_EA / B1_EA: b - a)
} alcDistModel;

// ---- type tables ----------------------------------------------------------------------------

/// True for the edge-edge types.
ALC_HD bool alcm_dist_isEE(int type) {
    return type >= ALC_DIST_EE_A0_B0 && type < ALC_NDISTTYPE;
}

/// True for the point-triangle types.
ALC_HD bool alcm_dist_isPT(int type) {
    return type >= ALC_DIST_PT_P_T0 && type <= ALC_DIST_PT_P_T;
}

/// Stencil points of a type and its elementary case.
/// @param[in]  type  an alctDistType other than ALC_DIST_AUTO
/// @param[out] idx   indices into the 4-point stencil, in the order of the elementary case's
///                   points (PP: 2, PE: {point, edge0, edge1}, plane/line: 4); unused entries -1
/// @return the elementary case (alctDistCase); ALC_DCASE_PP with idx {0, 1} for an invalid type.
ALC_HD int alcm_dist_stencil(int type, int idx[4]) {
    int a = 0, b = 1, c = -1, d = -1, kind = ALC_DCASE_PP;
    switch (type) {
        // clang-format off
        case ALC_DIST_PT_P_T0:  a = 0; b = 1; break;
        case ALC_DIST_PT_P_T1:  a = 0; b = 2; break;
        case ALC_DIST_PT_P_T2:  a = 0; b = 3; break;
        case ALC_DIST_PT_P_E01: a = 0; b = 1; c = 2; kind = ALC_DCASE_PE; break;
        case ALC_DIST_PT_P_E12: a = 0; b = 2; c = 3; kind = ALC_DCASE_PE; break;
        case ALC_DIST_PT_P_E20: a = 0; b = 3; c = 1; kind = ALC_DCASE_PE; break;
        case ALC_DIST_PT_P_T:   a = 0; b = 1; c = 2; d = 3; kind = ALC_DCASE_PLANE; break;
        case ALC_DIST_EE_A0_B0: a = 0; b = 2; break;
        case ALC_DIST_EE_A0_B1: a = 0; b = 3; break;
        case ALC_DIST_EE_A1_B0: a = 1; b = 2; break;
        case ALC_DIST_EE_A1_B1: a = 1; b = 3; break;
        case ALC_DIST_EE_A0_EB: a = 0; b = 2; c = 3; kind = ALC_DCASE_PE; break;
        case ALC_DIST_EE_A1_EB: a = 1; b = 2; c = 3; kind = ALC_DCASE_PE; break;
        case ALC_DIST_EE_B0_EA: a = 2; b = 0; c = 1; kind = ALC_DCASE_PE; break;
        case ALC_DIST_EE_B1_EA: a = 3; b = 0; c = 1; kind = ALC_DCASE_PE; break;
        case ALC_DIST_EE_EA_EB: a = 0; b = 1; c = 2; d = 3; kind = ALC_DCASE_LINE; break;
        default: break;
            // clang-format on
    }
    idx[0] = a;
    idx[1] = b;
    idx[2] = c;
    idx[3] = d;
    return kind;
}

// ---- closest-point models of the elementary cases -------------------------------------------

/// True when q is negligible against ref (relative ALC_DIST_DEGENERATE_REL, absolute
/// ALC_DIST_TINY), i.e. dividing by q is not safe.
ALC_HD bool alcm_dist_isDegenerate(double q, double ref) {
    return !(q > ALC_DIST_DEGENERATE_REL * ref) || !(q > ALC_DIST_TINY);
}

/// Zeroed model with npt points.
ALC_HD alcDistModel alcm_distModel_zero(int npt) {
    alcDistModel m;
    m.npt = npt;
    m.nparam = 0;
    for (int i = 0; i < 4; i++) {
        m.w[i] = 0;
        m.u[i][0] = m.u[i][1] = 0;
    }
    m.c[0] = m.c[1] = alcm_v3(0, 0, 0);
    m.Ainv[0][0] = m.Ainv[0][1] = m.Ainv[1][0] = m.Ainv[1][1] = 0;
    m.D = alcm_v3(0, 0, 0);
    return m;
}

/// Point-point model: D = a - b (npt points; a, b are model points ia, ib).
ALC_HD alcDistModel alcm_distModel_pp(alcV3 a, alcV3 b, int npt, int ia, int ib) {
    alcDistModel m = alcm_distModel_zero(npt);
    m.w[ia] = 1;
    m.w[ib] = -1;
    m.D = alcm_v3_sub(a, b);
    return m;
}

/// Point-line model for point p and the infinite line through e0, e1 (model points 0, 1, 2).
/// A zero-length edge falls back to point-point with e0.
ALC_HD alcDistModel alcm_distModel_pe(alcV3 p, alcV3 e0, alcV3 e1) {
    alcV3 e = alcm_v3_sub(e1, e0);
    alcV3 r = alcm_v3_sub(p, e0);
    double L = alcm_v3_norm2(e);
    if (alcm_dist_isDegenerate(L, alcm_v3_norm2(r))) return alcm_distModel_pp(p, e0, 3, 0, 1);
    double t = alcm_v3_dot(r, e) / L;
    alcDistModel m = alcm_distModel_zero(3);
    m.nparam = 1;
    // closest point e0 + t e, D = p - e0 - t e = e x (r x e) / L
    m.w[0] = 1;
    m.w[1] = t - 1;
    m.w[2] = -t;
    m.u[1][0] = 1;
    m.u[2][0] = -1;
    m.c[0] = alcm_v3_neg(e);
    m.Ainv[0][0] = 1.0 / L;
    m.D = alcm_v3_scale(alcm_v3_cross(e, alcm_v3_cross(r, e)), 1.0 / L);
    return m;
}

/// Point-plane model for p and the plane of t0, t1, t2 (model points 0..3). A zero-area
/// triangle falls back to the line through its longest edge.
ALC_HD alcDistModel alcm_distModel_plane(alcV3 p, alcV3 t0, alcV3 t1, alcV3 t2) {
    alcV3 e1 = alcm_v3_sub(t1, t0);
    alcV3 e2 = alcm_v3_sub(t2, t0);
    alcV3 n = alcm_v3_cross(e1, e2);
    double N = alcm_v3_norm2(n);
    double l1 = alcm_v3_norm2(e1), l2 = alcm_v3_norm2(e2);
    if (alcm_dist_isDegenerate(N, l1 * l2)) {
        // degenerate triangle: line of the longest edge, lifted to the 4 model points
        alcV3 e3 = alcm_v3_sub(t2, t1);
        double l3 = alcm_v3_norm2(e3);
        int i0 = 1, i1 = 2;
        if (l2 >= l1 && l2 >= l3) {
            i0 = 3;
            i1 = 1;
        } else if (l3 >= l1 && l3 >= l2) {
            i0 = 2;
            i1 = 3;
        }
        alcV3 q0 = i0 == 1 ? t0 : (i0 == 2 ? t1 : t2);
        alcV3 q1 = i1 == 1 ? t0 : (i1 == 2 ? t1 : t2);
        alcDistModel s = alcm_distModel_pe(p, q0, q1);
        alcDistModel m = alcm_distModel_zero(4);
        m.nparam = s.nparam;
        m.c[0] = s.c[0];
        m.Ainv[0][0] = s.Ainv[0][0];
        m.D = s.D;
        m.w[0] = s.w[0];
        m.w[i0] = s.w[1];
        m.w[i1] = s.w[2];
        m.u[i0][0] = s.u[1][0];
        m.u[i1][0] = s.u[2][0];
        return m;
    }
    alcV3 r = alcm_v3_sub(p, t0);
    double iN = 1.0 / N;
    double b1 = alcm_v3_dot(alcm_v3_cross(r, e2), n) * iN;
    double b2 = alcm_v3_dot(alcm_v3_cross(e1, r), n) * iN;
    alcDistModel m = alcm_distModel_zero(4);
    m.nparam = 2;
    // closest point t0 + b1 e1 + b2 e2, D = (r . n) n / |n|^2
    m.w[0] = 1;
    m.w[1] = b1 + b2 - 1;
    m.w[2] = -b1;
    m.w[3] = -b2;
    m.u[1][0] = 1;
    m.u[2][0] = -1;
    m.u[1][1] = 1;
    m.u[3][1] = -1;
    m.c[0] = alcm_v3_neg(e1);
    m.c[1] = alcm_v3_neg(e2);
    double e12 = alcm_v3_dot(e1, e2);
    m.Ainv[0][0] = l2 * iN;
    m.Ainv[1][1] = l1 * iN;
    m.Ainv[0][1] = m.Ainv[1][0] = -e12 * iN;
    m.D = alcm_v3_scale(n, alcm_v3_dot(r, n) * iN);
    return m;
}

/// Line-line model for the infinite lines through a0, a1 and b0, b1 (model points 0..3).
/// Parallel lines fall back to the line through b0, b1 against a0.
ALC_HD alcDistModel alcm_distModel_line(alcV3 a0, alcV3 a1, alcV3 b0, alcV3 b1) {
    alcV3 ea = alcm_v3_sub(a1, a0);
    alcV3 eb = alcm_v3_sub(b1, b0);
    alcV3 mv = alcm_v3_cross(ea, eb);
    double N = alcm_v3_norm2(mv);
    double la = alcm_v3_norm2(ea), lb = alcm_v3_norm2(eb);
    if (alcm_dist_isDegenerate(N, la * lb)) {
        // parallel: a0 against the line of b, lifted to {a0, a1, b0, b1}
        alcDistModel s = alcm_distModel_pe(a0, b0, b1);
        alcDistModel m = alcm_distModel_zero(4);
        m.nparam = s.nparam;
        m.c[0] = s.c[0];
        m.Ainv[0][0] = s.Ainv[0][0];
        m.D = s.D;
        m.w[0] = s.w[0];
        m.w[2] = s.w[1];
        m.w[3] = s.w[2];
        m.u[2][0] = s.u[1][0];
        m.u[3][0] = s.u[2][0];
        return m;
    }
    alcV3 r = alcm_v3_sub(b0, a0);
    double iN = 1.0 / N;
    double g1 = alcm_v3_dot(alcm_v3_cross(r, eb), mv) * iN;
    double g2 = alcm_v3_dot(alcm_v3_cross(r, ea), mv) * iN;
    alcDistModel m = alcm_distModel_zero(4);
    m.nparam = 2;
    // closest points a0 + g1 ea and b0 + g2 eb, D = -(r . m) m / |m|^2
    m.w[0] = 1 - g1;
    m.w[1] = g1;
    m.w[2] = g2 - 1;
    m.w[3] = -g2;
    m.u[0][0] = -1;
    m.u[1][0] = 1;
    m.u[2][1] = 1;
    m.u[3][1] = -1;
    m.c[0] = ea;
    m.c[1] = alcm_v3_neg(eb);
    double eab = alcm_v3_dot(ea, eb);
    m.Ainv[0][0] = lb * iN;
    m.Ainv[1][1] = la * iN;
    m.Ainv[0][1] = m.Ainv[1][0] = eab * iN;
    m.D = alcm_v3_scale(mv, -alcm_v3_dot(r, mv) * iN);
    return m;
}

/// Gradient of |D|^2 over the model points: g[3*i + k] = 2 w_i D_k (3 * npt entries).
ALC_HD void alcm_distModel_grad(const alcDistModel* m, double* g) {
    for (int i = 0; i < m->npt; i++) {
        g[3 * i + 0] = 2 * m->w[i] * m->D.x;
        g[3 * i + 1] = 2 * m->w[i] * m->D.y;
        g[3 * i + 2] = 2 * m->w[i] * m->D.z;
    }
}

/// Hessian of |D|^2 over the model points, row-major (3 npt) x (3 npt), from the closed form
/// in the file comment.
ALC_HD void alcm_distModel_hess(const alcDistModel* m, double* H) {
    int n = 3 * m->npt;
    // v[i][a] = u_ia D + w_i c_a
    alcV3 v[4][2];
    for (int i = 0; i < m->npt; i++) {
        for (int a = 0; a < m->nparam; a++) {
            v[i][a] = alcm_v3_add(alcm_v3_scale(m->D, m->u[i][a]), alcm_v3_scale(m->c[a], m->w[i]));
        }
    }
    for (int i = 0; i < m->npt; i++) {
        for (int j = 0; j < m->npt; j++) {
            // z = sum_b Ainv_ab v_jb for each a, then block = 2 w_i w_j I - 2 sum_a v_ia z_a^T
            double blk[9];
            double ww = 2 * m->w[i] * m->w[j];
            for (int q = 0; q < 9; q++) blk[q] = (q % 4 == 0) ? ww : 0.0;
            for (int a = 0; a < m->nparam; a++) {
                alcV3 z = alcm_v3(0, 0, 0);
                for (int b = 0; b < m->nparam; b++) z = alcm_v3_mad(z, m->Ainv[a][b], v[j][b]);
                alcM3 o = alcm_m3_outer(v[i][a], z);
                for (int q = 0; q < 9; q++) blk[q] -= 2 * o.m[q];
            }
            for (int r = 0; r < 3; r++) {
                for (int c = 0; c < 3; c++) H[(3 * i + r) * n + 3 * j + c] = blk[3 * r + c];
            }
        }
    }
}

// ---- elementary squared distances ---------------------------------------------------------

/// Squared distance |a - b|^2 (m^2).
ALC_HD double alcm_pp_dist2(alcV3 a, alcV3 b) {
    return alcm_v3_norm2(alcm_v3_sub(a, b));
}

/// Gradient of |a - b|^2 w.r.t. {a, b}: g[6].
ALC_HD void alcm_pp_dist2Grad(alcV3 a, alcV3 b, double g[6]) {
    alcDistModel m = alcm_distModel_pp(a, b, 2, 0, 1);
    alcm_distModel_grad(&m, g);
}

/// Hessian of |a - b|^2 w.r.t. {a, b}: row-major 6 x 6.
ALC_HD void alcm_pp_dist2Hess(alcV3 a, alcV3 b, double H[36]) {
    alcDistModel m = alcm_distModel_pp(a, b, 2, 0, 1);
    alcm_distModel_hess(&m, H);
}

/// Squared distance from p to the infinite line through e0, e1 (m^2); |p - e0|^2 when the edge
/// has zero length.
ALC_HD double alcm_pe_dist2(alcV3 p, alcV3 e0, alcV3 e1) {
    alcDistModel m = alcm_distModel_pe(p, e0, e1);
    return alcm_v3_norm2(m.D);
}

/// Gradient of alcm_pe_dist2 w.r.t. {p, e0, e1}: g[9].
ALC_HD void alcm_pe_dist2Grad(alcV3 p, alcV3 e0, alcV3 e1, double g[9]) {
    alcDistModel m = alcm_distModel_pe(p, e0, e1);
    alcm_distModel_grad(&m, g);
}

/// Hessian of alcm_pe_dist2 w.r.t. {p, e0, e1}: row-major 9 x 9.
ALC_HD void alcm_pe_dist2Hess(alcV3 p, alcV3 e0, alcV3 e1, double H[81]) {
    alcDistModel m = alcm_distModel_pe(p, e0, e1);
    alcm_distModel_hess(&m, H);
}

/// Squared distance from p to the plane of t0, t1, t2 (m^2); for a zero-area triangle, the
/// squared distance to the line of its longest edge.
ALC_HD double alcm_ptPlane_dist2(alcV3 p, alcV3 t0, alcV3 t1, alcV3 t2) {
    alcDistModel m = alcm_distModel_plane(p, t0, t1, t2);
    return alcm_v3_norm2(m.D);
}

/// Gradient of alcm_ptPlane_dist2 w.r.t. {p, t0, t1, t2}: g[12].
ALC_HD void alcm_ptPlane_dist2Grad(alcV3 p, alcV3 t0, alcV3 t1, alcV3 t2, double g[12]) {
    alcDistModel m = alcm_distModel_plane(p, t0, t1, t2);
    alcm_distModel_grad(&m, g);
}

/// Hessian of alcm_ptPlane_dist2 w.r.t. {p, t0, t1, t2}: row-major 12 x 12.
ALC_HD void alcm_ptPlane_dist2Hess(alcV3 p, alcV3 t0, alcV3 t1, alcV3 t2, double H[144]) {
    alcDistModel m = alcm_distModel_plane(p, t0, t1, t2);
    alcm_distModel_hess(&m, H);
}

/// Squared distance between the infinite lines through a0, a1 and b0, b1 (m^2); for parallel
/// lines, the squared distance from a0 to the line of b.
ALC_HD double alcm_eeLine_dist2(alcV3 a0, alcV3 a1, alcV3 b0, alcV3 b1) {
    alcDistModel m = alcm_distModel_line(a0, a1, b0, b1);
    return alcm_v3_norm2(m.D);
}

/// Gradient of alcm_eeLine_dist2 w.r.t. {a0, a1, b0, b1}: g[12].
ALC_HD void alcm_eeLine_dist2Grad(alcV3 a0, alcV3 a1, alcV3 b0, alcV3 b1, double g[12]) {
    alcDistModel m = alcm_distModel_line(a0, a1, b0, b1);
    alcm_distModel_grad(&m, g);
}

/// Hessian of alcm_eeLine_dist2 w.r.t. {a0, a1, b0, b1}: row-major 12 x 12.
ALC_HD void alcm_eeLine_dist2Hess(alcV3 a0, alcV3 a1, alcV3 b0, alcV3 b1, double H[144]) {
    alcDistModel m = alcm_distModel_line(a0, a1, b0, b1);
    alcm_distModel_hess(&m, H);
}

// ---- classification ---------------------------------------------------------------------------

/// Closest feature of the segment s0 s1 to p, and its squared distance.
/// @param[out] dist2  squared distance from p to the segment (m^2)
/// @return 0: the end s0, 1: the end s1, 2: the interior (point-edge). A zero-length segment
///         gives 0.
ALC_HD int alcm_pe_segmentFeature(alcV3 p, alcV3 s0, alcV3 s1, double* dist2) {
    alcV3 e = alcm_v3_sub(s1, s0);
    alcV3 r = alcm_v3_sub(p, s0);
    double L = alcm_v3_norm2(e);
    double re = alcm_v3_dot(r, e);
    if (alcm_dist_isDegenerate(L, alcm_v3_norm2(r)) || re <= 0) {
        *dist2 = alcm_v3_norm2(r);
        return 0;
    }
    if (re >= L) {
        *dist2 = alcm_pp_dist2(p, s1);
        return 1;
    }
    *dist2 = alcm_v3_norm2(alcm_v3_cross(r, e)) / L;
    return 2;
}

/// Closest-feature type of point p and triangle t0, t1, t2 (IPC §6, digest §1.5): point-plane
/// when the projection of p falls strictly inside a non-degenerate triangle, otherwise the
/// nearest of the three edges (its interior or an end). Degenerate triangles (collinear or
/// coincident vertices) thus get point-edge or point-point types.
/// @return an ALC_DIST_PT_* type.
ALC_HD int alcm_pt_type(alcV3 p, alcV3 t0, alcV3 t1, alcV3 t2) {
    alcV3 e1 = alcm_v3_sub(t1, t0);
    alcV3 e2 = alcm_v3_sub(t2, t0);
    alcV3 n = alcm_v3_cross(e1, e2);
    double N = alcm_v3_norm2(n);
    double ref = alcm_v3_norm2(e1) * alcm_v3_norm2(e2);
    // interior: barycentric coordinates of the projection, from cross products
    if (N > ALC_DIST_PARALLEL_REL * ref && !alcm_dist_isDegenerate(N, ref)) {
        alcV3 r = alcm_v3_sub(p, t0);
        double b1 = alcm_v3_dot(alcm_v3_cross(r, e2), n) / N;
        double b2 = alcm_v3_dot(alcm_v3_cross(e1, r), n) / N;
        if (b1 > 0 && b2 > 0 && b1 + b2 < 1) return ALC_DIST_PT_P_T;
    }
    // boundary: nearest edge; ties keep the first in the order e01, e12, e20
    double d01, d12, d20;
    int f01 = alcm_pe_segmentFeature(p, t0, t1, &d01);
    int f12 = alcm_pe_segmentFeature(p, t1, t2, &d12);
    int f20 = alcm_pe_segmentFeature(p, t2, t0, &d20);
    if (d01 <= d12 && d01 <= d20) {
        return f01 == 2 ? ALC_DIST_PT_P_E01 : (f01 == 0 ? ALC_DIST_PT_P_T0 : ALC_DIST_PT_P_T1);
    }
    if (d12 <= d20) {
        return f12 == 2 ? ALC_DIST_PT_P_E12 : (f12 == 0 ? ALC_DIST_PT_P_T1 : ALC_DIST_PT_P_T2);
    }
    return f20 == 2 ? ALC_DIST_PT_P_E20 : (f20 == 0 ? ALC_DIST_PT_P_T2 : ALC_DIST_PT_P_T0);
}

/// Closest-feature type of segments a0 a1 and b0 b1 (IPC §6, digest §1.5): line-line when the
/// segments are not nearly parallel (sin^2 > ALC_DIST_PARALLEL_REL) and the closest points of
/// the lines are strictly inside both segments; otherwise the nearest of the four
/// endpoint-against-segment cases. Nearly parallel edges and zero-length edges therefore get
/// point-edge or point-point types, never the ill-conditioned line-line formula.
/// @return an ALC_DIST_EE_* type.
ALC_HD int alcm_ee_type(alcV3 a0, alcV3 a1, alcV3 b0, alcV3 b1) {
    alcV3 ea = alcm_v3_sub(a1, a0);
    alcV3 eb = alcm_v3_sub(b1, b0);
    alcV3 m = alcm_v3_cross(ea, eb);
    double N = alcm_v3_norm2(m);
    double ref = alcm_v3_norm2(ea) * alcm_v3_norm2(eb);
    // interior: line parameters from cross products
    if (N > ALC_DIST_PARALLEL_REL * ref && !alcm_dist_isDegenerate(N, ref)) {
        alcV3 r = alcm_v3_sub(b0, a0);
        double g1 = alcm_v3_dot(alcm_v3_cross(r, eb), m) / N;
        double g2 = alcm_v3_dot(alcm_v3_cross(r, ea), m) / N;
        if (g1 > 0 && g1 < 1 && g2 > 0 && g2 < 1) return ALC_DIST_EE_EA_EB;
    }
    // boundary: nearest endpoint-against-segment case
    double da0, da1, db0, db1;
    int fa0 = alcm_pe_segmentFeature(a0, b0, b1, &da0);
    int fa1 = alcm_pe_segmentFeature(a1, b0, b1, &da1);
    int fb0 = alcm_pe_segmentFeature(b0, a0, a1, &db0);
    int fb1 = alcm_pe_segmentFeature(b1, a0, a1, &db1);
    double best = da0;
    int type = fa0 == 2 ? ALC_DIST_EE_A0_EB : (fa0 == 0 ? ALC_DIST_EE_A0_B0 : ALC_DIST_EE_A0_B1);
    if (da1 < best) {
        best = da1;
        type = fa1 == 2 ? ALC_DIST_EE_A1_EB : (fa1 == 0 ? ALC_DIST_EE_A1_B0 : ALC_DIST_EE_A1_B1);
    }
    if (db0 < best) {
        best = db0;
        type = fb0 == 2 ? ALC_DIST_EE_B0_EA : (fb0 == 0 ? ALC_DIST_EE_A0_B0 : ALC_DIST_EE_A1_B0);
    }
    if (db1 < best) {
        type = fb1 == 2 ? ALC_DIST_EE_B1_EA : (fb1 == 0 ? ALC_DIST_EE_A0_B1 : ALC_DIST_EE_A1_B1);
    }
    return type;
}

// ---- stencil-level squared distances ---------------------------------------------------------

/// Closest-point model of a PT or EE type on the 4-point stencil v (weights indexed by stencil
/// point). ALC_DIST_AUTO (or any type of the other family) classifies with `isEE` choosing
/// the family.
ALC_HD alcDistModel alcm_distModel_stencil(const alcV3 v[4], int type, bool isEE) {
    if (isEE ? !alcm_dist_isEE(type) : !alcm_dist_isPT(type)) {
        type = isEE ? alcm_ee_type(v[0], v[1], v[2], v[3]) : alcm_pt_type(v[0], v[1], v[2], v[3]);
    }
    int idx[4];
    int kind = alcm_dist_stencil(type, idx);
    alcDistModel s;
    if (kind == ALC_DCASE_PP) {
        s = alcm_distModel_pp(v[idx[0]], v[idx[1]], 2, 0, 1);
    } else if (kind == ALC_DCASE_PE) {
        s = alcm_distModel_pe(v[idx[0]], v[idx[1]], v[idx[2]]);
    } else if (kind == ALC_DCASE_PLANE) {
        return alcm_distModel_plane(v[0], v[1], v[2], v[3]);
    } else {
        return alcm_distModel_line(v[0], v[1], v[2], v[3]);
    }
    // lift the 2- or 3-point model onto the stencil
    alcDistModel m = alcm_distModel_zero(4);
    m.nparam = s.nparam;
    m.c[0] = s.c[0];
    m.Ainv[0][0] = s.Ainv[0][0];
    m.D = s.D;
    for (int i = 0; i < s.npt; i++) {
        m.w[idx[i]] = s.w[i];
        m.u[idx[i]][0] = s.u[i][0];
    }
    return m;
}

/// Squared PT distance (m^2) for a given closest-feature type.
/// @param[in] v     stencil {p, t0, t1, t2}
/// @param[in] type  an ALC_DIST_PT_* type (from alcm_pt_type), or ALC_DIST_AUTO to classify
ALC_HD double alcm_pt_dist2(const alcV3 v[4], int type) {
    alcDistModel m = alcm_distModel_stencil(v, type, false);
    return alcm_v3_norm2(m.D);
}

/// Gradient of alcm_pt_dist2 w.r.t. the stencil: g[3*i + k], 12 entries (m).
ALC_HD void alcm_pt_dist2Grad(const alcV3 v[4], int type, double g[12]) {
    alcDistModel m = alcm_distModel_stencil(v, type, false);
    alcm_distModel_grad(&m, g);
}

/// Hessian of alcm_pt_dist2 w.r.t. the stencil: row-major 12 x 12 (dimensionless).
ALC_HD void alcm_pt_dist2Hess(const alcV3 v[4], int type, double H[144]) {
    alcDistModel m = alcm_distModel_stencil(v, type, false);
    alcm_distModel_hess(&m, H);
}

/// Squared EE distance (m^2) for a given closest-feature type.
/// @param[in] v     stencil {a0, a1, b0, b1}
/// @param[in] type  an ALC_DIST_EE_* type (from alcm_ee_type), or ALC_DIST_AUTO to classify
ALC_HD double alcm_ee_dist2(const alcV3 v[4], int type) {
    alcDistModel m = alcm_distModel_stencil(v, type, true);
    return alcm_v3_norm2(m.D);
}

/// Gradient of alcm_ee_dist2 w.r.t. the stencil: g[3*i + k], 12 entries (m).
ALC_HD void alcm_ee_dist2Grad(const alcV3 v[4], int type, double g[12]) {
    alcDistModel m = alcm_distModel_stencil(v, type, true);
    alcm_distModel_grad(&m, g);
}

/// Hessian of alcm_ee_dist2 w.r.t. the stencil: row-major 12 x 12 (dimensionless).
ALC_HD void alcm_ee_dist2Hess(const alcV3 v[4], int type, double H[144]) {
    alcDistModel m = alcm_distModel_stencil(v, type, true);
    alcm_distModel_hess(&m, H);
}

// ---- unsigned distance and the linearized constraint --------------------------------------------

/// Unsigned distance |D| of a model and its gradient w_i D / |D| (zero when |D| = 0).
ALC_HD double alcm_distModel_distance(const alcDistModel* m, double* g) {
    double d = alcm_v3_norm(m->D);
    if (g) {
        alcV3 nD = d > 0 ? alcm_v3_scale(m->D, 1.0 / d) : alcm_v3(0, 0, 0);
        for (int i = 0; i < 4; i++) {
            double w = i < m->npt ? m->w[i] : 0.0;
            g[3 * i + 0] = w * nD.x;
            g[3 * i + 1] = w * nD.y;
            g[3 * i + 2] = w * nD.z;
        }
    }
    return d;
}

/// Unsigned PT distance d (m) for a given type, and grad d = grad d^2 / (2 d).
/// @param[in]  v     stencil {p, t0, t1, t2}
/// @param[in]  type  an ALC_DIST_PT_* type or ALC_DIST_AUTO
/// @param[out] g     grad d, 12 entries (dimensionless, zero when d = 0)
/// Nullable: g
ALC_HD double alcm_pt_distanceOfType(const alcV3 v[4], int type, double g[12]) {
    alcDistModel m = alcm_distModel_stencil(v, type, false);
    return alcm_distModel_distance(&m, g);
}

/// Unsigned PT distance d (m), classifying the closest features, and grad d (see
/// alcm_pt_distanceOfType). Nullable: g
ALC_HD double alcm_pt_distance(const alcV3 v[4], double g[12]) {
    return alcm_pt_distanceOfType(v, ALC_DIST_AUTO, g);
}

/// Unsigned EE distance d (m) for a given type, and grad d = grad d^2 / (2 d).
/// @param[in]  v     stencil {a0, a1, b0, b1}
/// @param[in]  type  an ALC_DIST_EE_* type or ALC_DIST_AUTO
/// @param[out] g     grad d, 12 entries (dimensionless, zero when d = 0)
/// Nullable: g
ALC_HD double alcm_ee_distanceOfType(const alcV3 v[4], int type, double g[12]) {
    alcDistModel m = alcm_distModel_stencil(v, type, true);
    return alcm_distModel_distance(&m, g);
}

/// Unsigned EE distance d (m), classifying the closest features, and grad d (see
/// alcm_ee_distanceOfType). Nullable: g
ALC_HD double alcm_ee_distance(const alcV3 v[4], double g[12]) {
    return alcm_ee_distanceOfType(v, ALC_DIST_AUTO, g);
}

/// Linearized contact constraint of AL paper Eq. 10
/// (papers/barrier-free-al-elastodynamics.txt): c = d + grad d . (xhat - x) - delta.
/// @param[in] d      unsigned distance at the expansion point x (m)
/// @param[in] g      grad d at x, 12 entries (from alcm_pt_distance / alcm_ee_distance)
/// @param[in] x      stencil positions at the expansion point (intersection-free state)
/// @param[in] xhat   stencil positions at which c is evaluated
/// @param[in] delta  surface separation (m)
/// @return c (m); c >= 0 means the linearized constraint is satisfied.
ALC_HD double alcm_constraint_eval(double d, const double g[12], const alcV3 x[4],
                                   const alcV3 xhat[4], double delta) {
    double c = d - delta;
    for (int i = 0; i < 4; i++) {
        alcV3 dx = alcm_v3_sub(xhat[i], x[i]);
        c += g[3 * i] * dx.x + g[3 * i + 1] * dx.y + g[3 * i + 2] * dx.z;
    }
    return c;
}

// ---- edge-edge parallel mollifier (IPC Eq. 24, digest §1.6) ------------------------------------

/// Mollifier threshold eps_x = 1e-3 |a1 - a0|^2 |b1 - b0|^2 from REST positions (m^4).
ALC_HD double alcm_ee_mollifierThreshold(alcV3 a0, alcV3 a1, alcV3 b0, alcV3 b1) {
    return 1e-3 * alcm_v3_norm2(alcm_v3_sub(a1, a0)) * alcm_v3_norm2(alcm_v3_sub(b1, b0));
}

/// c = |(a1 - a0) x (b1 - b0)|^2 (m^4), the quantity the mollifier smooths.
ALC_HD double alcm_ee_cross2(const alcV3 v[4]) {
    return alcm_v3_norm2(alcm_v3_cross(alcm_v3_sub(v[1], v[0]), alcm_v3_sub(v[3], v[2])));
}

/// EE parallel mollifier e(c) = -c^2/eps_x^2 + 2 c/eps_x for c < eps_x, else 1, with
/// c = |(a1 - a0) x (b1 - b0)|^2 (IPC Eq. 24). C^1 at c = eps_x; eps_x <= 0 gives 1.
/// @param[in]  v      stencil {a0, a1, b0, b1}
/// @param[in]  eps_x  threshold from alcm_ee_mollifierThreshold (m^4)
/// @param[out] m      mollifier value in [0, 1]
/// @param[out] g      gradient w.r.t. the stencil, 12 entries (1/m)
/// @param[out] H      Hessian, row-major 12 x 12 (1/m^2)
/// Nullable: g, H
ALC_HD void alcm_ee_mollifier(const alcV3 v[4], double eps_x, double* m, double g[12],
                              double H[144]) {
    alcV3 ea = alcm_v3_sub(v[1], v[0]);
    alcV3 eb = alcm_v3_sub(v[3], v[2]);
    double la = alcm_v3_norm2(ea), lb = alcm_v3_norm2(eb), ab = alcm_v3_dot(ea, eb);
    double c = alcm_v3_norm2(alcm_v3_cross(ea, eb));
    if (g) {
        for (int i = 0; i < 12; i++) g[i] = 0;
    }
    if (H) {
        for (int i = 0; i < 144; i++) H[i] = 0;
    }
    if (!(eps_x > 0) || c >= eps_x) {
        *m = 1;
        return;
    }
    double ie = 1.0 / eps_x;
    *m = (2 - c * ie) * c * ie;
    double de = 2 * ie - 2 * c * ie * ie;  // e'(c)
    double dde = -2 * ie * ie;             // e''(c)
    // dc/dea = 2 (|eb|^2 ea - (ea.eb) eb), dc/deb = 2 (|ea|^2 eb - (ea.eb) ea) (Lagrange identity)
    alcV3 ga = alcm_v3_scale(alcm_v3_sub(alcm_v3_scale(ea, lb), alcm_v3_scale(eb, ab)), 2);
    alcV3 gb = alcm_v3_scale(alcm_v3_sub(alcm_v3_scale(eb, la), alcm_v3_scale(ea, ab)), 2);
    // stencil map: ea = a1 - a0, eb = b1 - b0
    const double sa[4] = {-1, 1, 0, 0};
    const double sb[4] = {0, 0, -1, 1};
    alcV3 gc[4];
    for (int i = 0; i < 4; i++)
        gc[i] = alcm_v3_add(alcm_v3_scale(ga, sa[i]), alcm_v3_scale(gb, sb[i]));
    if (g) {
        for (int i = 0; i < 4; i++) {
            g[3 * i + 0] = de * gc[i].x;
            g[3 * i + 1] = de * gc[i].y;
            g[3 * i + 2] = de * gc[i].z;
        }
    }
    if (!H) return;
    // second derivatives of c w.r.t. (ea, eb)
    alcM3 I = alcm_m3_identity();
    alcM3 Haa = alcm_m3_sub(alcm_m3_scale(I, 2 * lb), alcm_m3_scale(alcm_m3_outer(eb, eb), 2));
    alcM3 Hbb = alcm_m3_sub(alcm_m3_scale(I, 2 * la), alcm_m3_scale(alcm_m3_outer(ea, ea), 2));
    alcM3 Hab = alcm_m3_sub(alcm_m3_sub(alcm_m3_scale(alcm_m3_outer(ea, eb), 4),
                                        alcm_m3_scale(alcm_m3_outer(eb, ea), 2)),
                            alcm_m3_scale(I, 2 * ab));
    alcM3 Hba = alcm_m3_transpose(Hab);
    // hess m = e'' grad c grad c^T + e' hess c, blockwise on the stencil
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            alcM3 hc = alcm_m3_add(
                alcm_m3_add(alcm_m3_scale(Haa, sa[i] * sa[j]), alcm_m3_scale(Hab, sa[i] * sb[j])),
                alcm_m3_add(alcm_m3_scale(Hba, sb[i] * sa[j]), alcm_m3_scale(Hbb, sb[i] * sb[j])));
            alcM3 blk =
                alcm_m3_add(alcm_m3_scale(alcm_m3_outer(gc[i], gc[j]), dde), alcm_m3_scale(hc, de));
            for (int r = 0; r < 3; r++) {
                for (int q = 0; q < 3; q++) H[(3 * i + r) * 12 + 3 * j + q] = blk.m[3 * r + q];
            }
        }
    }
}

#endif  // ALC_HD_ALCM_DISTANCE_H_
