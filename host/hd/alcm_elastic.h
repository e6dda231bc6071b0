// Per-element elastic math for linear tetrahedra, shared by the CPU reference (host/ref/) and the
// CUDA kernels (cuda/): energy densities, tet energy / gradient / Hessian with analytic PSD
// projection (Smith et al. 2019, "Analytic eigensystems for isotropic distortion energies"), the
// per-vertex-block projected Hessian of AL paper Eq. 16-19
// (papers/barrier-free-al-elastodynamics.txt, §5.1), and the inversion-free step bound.
//
// Conventions
//   - alcM3 is row-major; F = Ds Dminv with Ds = [x1-x0, x2-x0, x3-x0] (columns).
//   - The dx -> dF map: dF = sum_a dx_a A_a^T (outer product), A_a = row a-1 of Dminv for a > 0,
//     A_0 = -(A_1 + A_2 + A_3). alcm_tet_A returns A_a as an alcV3.
//   - 12-vectors and 12x12 matrices are vertex-major: index 3a + k (vertex a, component k);
//     H[12 * (3a + k) + 3b + l] is row-major.
//   - Models: ALCM_SNH, ALCM_NH, ALCM_COR, ALCM_FCR equal the ids of alctMaterialModel
//     (include/alc/alc_types.h), which this header does not include.
//   - mu, lambda are the Lame parameters (Pa); energy densities are in Pa (J/m^3), energies in J
//     when vol is in m^3.
#ifndef ALC_HD_ALCM_ELASTIC_H_
#define ALC_HD_ALCM_ELASTIC_H_

#include "alcm_svd.h"
#include "alcm_vec.h"

/// Stable Neo-Hookean, rest-stable simplified form (= ALC_MAT_STABLE_NEOHOOKEAN):
/// Psi = mu/2 (I_C - 3) - mu (J - 1) + lam2/2 (J - 1)^2 with lam2 = lambda + mu, which linearizes
/// at F = I to linear elasticity with Lame parameters (mu, lambda). Defined for J <= 0.
#define ALCM_SNH 0
/// Neo-Hookean (= ALC_MAT_NEOHOOKEAN): Psi = mu/2 (I_C - 3) - mu l(J) + lambda/2 l(J)^2 with
/// l(J) = ln J for J >= ALC_NH_J0 and its 2nd-order Taylor extension below (see alcm_nh_log).
#define ALCM_NH 1
/// Corotated linear (= ALC_MAT_COROTATED): Psi = mu sum_i (s_i - 1)^2 + lambda/2 (sum_i s_i - 3)^2
/// with s the signed singular values of F. Defined for inverted F.
#define ALCM_COR 2
/// Fixed corotated (= ALC_MAT_FIXED_COROTATED; Stomakhin et al. 2012, IPC's `energy FCR`):
/// Psi = mu sum_i (s_i - 1)^2 + lambda/2 (J - 1)^2 with s the signed singular values of F and
/// J = s_0 s_1 s_2 = det F. Defined for inverted F (J <= 0), where it pushes J back towards 1, so
/// like ALCM_COR it is classed invertible: the line search's inversion filter protects only
/// ALCM_NH tetrahedra unless every tetrahedron is protected (ALC_INVERSION_ALL), as in IPC,
/// which filters FCR steps by collisions only.
#define ALCM_FCR 3

/// Below this J the Neo-Hookean log is replaced by its 2nd-order Taylor polynomial about J0, so
/// intermediate (not output) states with tiny or negative J stay evaluable (C2 at J0).
#define ALC_NH_J0 1e-6
/// Lower bound on s_i + s_j in the COR and FCR twist eigenvalue, (Psi_i + Psi_j) / (s_i + s_j);
/// the exact Hessian is singular where two signed singular values cancel (polar decomposition
/// undefined), so the Hessian is regularized there.
#define ALCM_COR_TWIST_EPS 1e-6

/// How alcm_tet_eigen filters the eigenvalues of d2Psi/dF2 for a Newton matrix.
enum {
    ALCM_EIG_EXACT = 0,  ///< unfiltered: the exact Hessian (may be indefinite)
    ALCM_EIG_CLAMP = 1,  ///< max(lam, 0): the PSD projection of the AL paper, Eq. 17
    ALCM_EIG_ABS = 2     ///< |lam|: absolute-eigenvalue filtering (Chen et al. 2024, "Stabler
                         ///< Neo-Hookean simulation"); keeps curvature along compressed modes
};

/// The Newton matrix's filter for alcOption.eigenFilter (alctEigenFilter: ALC_EIGEN_CLAMP 0,
/// ALC_EIGEN_ABS 1; host/ref/elastic_ref.c asserts those ids), for both backends.
ALC_HD int alcm_eigFilterOf(int eigenFilter) {
    return eigenFilter == 1 ? ALCM_EIG_ABS : ALCM_EIG_CLAMP;
}

/// Analytic eigensystem of d2Psi/dF2 = sum_k lam[k] vec(Q_k) vec(Q_k)^T with Q_k = U D_k V^T
/// (Smith et al. 2019; AL paper Eq. 16). The Q_k are orthonormal in the Frobenius product.
///   k = 0..2 scaling: D_k = diag(column k of W), W the eigenvectors of d2Psi/dsigma2
///   k = 3..5 twist:   D_k = (e_i e_j^T - e_j e_i^T)/sqrt2, lam = (Psi_i + Psi_j)/(s_i + s_j)
///   k = 6..8 flip:    D_k = (e_i e_j^T + e_j e_i^T)/sqrt2, lam = (Psi_i - Psi_j)/(s_i - s_j)
/// with (i, j) = alcm_tetEigen_pair(k): k%3 = 0 -> (1,2), 1 -> (0,2), 2 -> (0,1).
typedef struct alcTetEigen_ {
    alcM3 U;        ///< left singular vectors of F (columns), det +1
    alcM3 V;        ///< right singular vectors of F (columns), det +1
    alcV3 sigma;    ///< signed singular values of F, x >= y >= |z|
    alcM3 W;        ///< scaling-mode diagonals as columns (orthonormal)
    double lam[9];  ///< eigenvalues (Pa), filtered as asked (ALCM_EIG_*)
} alcTetEigen;

// ---------------------------------------------------------------------------------------------
// energy densities
// ---------------------------------------------------------------------------------------------

/// Neo-Hookean log with C2 quadratic extension below ALC_NH_J0.
/// @param[in]  J    volume ratio det F (any real)
/// @param[out] dl   dl/dJ
/// @param[out] ddl  d2l/dJ2
/// @return l(J) = ln J for J >= J0, else ln J0 + (J-J0)/J0 - (J-J0)^2 / (2 J0^2).
ALC_HD double alcm_nh_log(double J, double* dl, double* ddl) {
    if (J >= ALC_NH_J0) {
        *dl = 1.0 / J;
        *ddl = -1.0 / (J * J);
        return log(J);
    }
    double d = J - ALC_NH_J0;
    const double inv = 1.0 / ALC_NH_J0;
    *dl = inv - d * inv * inv;
    *ddl = -inv * inv;
    return log(ALC_NH_J0) + d * inv - 0.5 * d * d * inv * inv;
}

/// Volumetric part g(J) of the models written as Psi = mu/2 (I_C - 3) + g(J) (SNH and NH).
/// @param[in]  model   ALCM_SNH or ALCM_NH
/// @param[in]  mu      Lame shear modulus (Pa)
/// @param[in]  lambda  Lame first parameter (Pa)
/// @param[in]  J       det F
/// @param[out] dg      g'(J) (Pa)
/// @param[out] ddg     g''(J) (Pa)
/// @return g(J) (Pa).
ALC_HD double alcm_psi_vol(int model, double mu, double lambda, double J, double* dg, double* ddg) {
    if (model == ALCM_NH) {
        double dl, ddl;
        double l = alcm_nh_log(J, &dl, &ddl);
        double c = -mu + lambda * l;
        *dg = c * dl;
        *ddg = c * ddl + lambda * dl * dl;
        return -mu * l + 0.5 * lambda * l * l;
    }
    // SNH: lam2 = lambda + mu makes the linearization match Lame (mu, lambda)
    double lam2 = lambda + mu;
    *dg = -mu + lam2 * (J - 1.0);
    *ddg = lam2;
    return -mu * (J - 1.0) + 0.5 * lam2 * (J - 1.0) * (J - 1.0);
}

/// Cofactor matrix of F, dJ/dF (row-major), valid for singular F.
/// @param[in] F  3x3 matrix
ALC_HD alcM3 alcm_m3_cofactor(alcM3 F) {
    alcV3 c0 = alcm_m3_col(F, 0), c1 = alcm_m3_col(F, 1), c2 = alcm_m3_col(F, 2);
    return alcm_m3_cols(alcm_v3_cross(c1, c2), alcm_v3_cross(c2, c0), alcm_v3_cross(c0, c1));
}

/// Energy density Psi(F).
/// @param[in] model   ALCM_SNH, ALCM_NH, ALCM_COR or ALCM_FCR
/// @param[in] mu      Lame shear modulus (Pa)
/// @param[in] lambda  Lame first parameter (Pa)
/// @param[in] F       deformation gradient (dimensionless)
/// @return Psi (Pa = J/m^3); zero at any rotation F.
ALC_HD double alcm_psi(int model, double mu, double lambda, alcM3 F) {
    if (model == ALCM_FCR) {
        alcM3 U, V;
        alcV3 s;
        alcm_m3_svd(F, &U, &s, &V);
        double J1 = alcm_m3_det(F) - 1.0;
        return mu * (alcm_sq(s.x - 1.0) + alcm_sq(s.y - 1.0) + alcm_sq(s.z - 1.0)) +
               0.5 * lambda * J1 * J1;
    }
    if (model == ALCM_COR) {
        alcM3 U, V;
        alcV3 s;
        alcm_m3_svd(F, &U, &s, &V);
        double tr = s.x + s.y + s.z - 3.0;
        return mu * (alcm_sq(s.x - 1.0) + alcm_sq(s.y - 1.0) + alcm_sq(s.z - 1.0)) +
               0.5 * lambda * tr * tr;
    }
    double dg, ddg;
    double g = alcm_psi_vol(model, mu, lambda, alcm_m3_det(F), &dg, &ddg);
    return 0.5 * mu * (alcm_m3_ddot(F, F) - 3.0) + g;
}

/// Energy density of diag(s): Psi(sigma) (rotation-invariant models depend on sigma only).
/// @param[in] model, mu, lambda  as alcm_psi
/// @param[in] s                  signed singular values
/// @return Psi (Pa).
ALC_HD double alcm_psi_sigma(int model, double mu, double lambda, alcV3 s) {
    if (model == ALCM_FCR) {
        double J1 = s.x * s.y * s.z - 1.0;
        return mu * (alcm_sq(s.x - 1.0) + alcm_sq(s.y - 1.0) + alcm_sq(s.z - 1.0)) +
               0.5 * lambda * J1 * J1;
    }
    if (model == ALCM_COR) {
        double tr = s.x + s.y + s.z - 3.0;
        return mu * (alcm_sq(s.x - 1.0) + alcm_sq(s.y - 1.0) + alcm_sq(s.z - 1.0)) +
               0.5 * lambda * tr * tr;
    }
    double dg, ddg;
    double g = alcm_psi_vol(model, mu, lambda, s.x * s.y * s.z, &dg, &ddg);
    return 0.5 * mu * (s.x * s.x + s.y * s.y + s.z * s.z - 3.0) + g;
}

/// Gradient of Psi with respect to the signed singular values, Psi_i = dPsi/dsigma_i.
/// @param[in] model, mu, lambda  as alcm_psi
/// @param[in] s                  signed singular values
/// @return (Psi_0, Psi_1, Psi_2) (Pa).
ALC_HD alcV3 alcm_psi_dsigma(int model, double mu, double lambda, alcV3 s) {
    if (model == ALCM_FCR) {
        // Psi_i = 2 mu (s_i - 1) + lambda (J - 1) s_j s_k
        double lj = lambda * (s.x * s.y * s.z - 1.0);
        return alcm_v3(2.0 * mu * (s.x - 1.0) + lj * s.y * s.z,
                       2.0 * mu * (s.y - 1.0) + lj * s.x * s.z,
                       2.0 * mu * (s.z - 1.0) + lj * s.x * s.y);
    }
    if (model == ALCM_COR) {
        double lt = lambda * (s.x + s.y + s.z - 3.0);
        return alcm_v3(2.0 * mu * (s.x - 1.0) + lt, 2.0 * mu * (s.y - 1.0) + lt,
                       2.0 * mu * (s.z - 1.0) + lt);
    }
    double dg, ddg;
    alcm_psi_vol(model, mu, lambda, s.x * s.y * s.z, &dg, &ddg);
    // dJ/ds_i = product of the other two
    return alcm_v3(mu * s.x + dg * s.y * s.z, mu * s.y + dg * s.x * s.z, mu * s.z + dg * s.x * s.y);
}

/// Hessian of Psi with respect to the signed singular values, d2Psi/dsigma_i dsigma_j.
/// @param[in] model, mu, lambda  as alcm_psi
/// @param[in] s                  signed singular values
/// @return symmetric 3x3 (Pa).
ALC_HD alcM3 alcm_psi_d2sigma(int model, double mu, double lambda, alcV3 s) {
    if (model == ALCM_FCR) {
        // Psi_ii = 2 mu + lambda (s_j s_k)^2, Psi_ij = lambda s_k (2 J - 1) (k the third index)
        double sv[3] = {s.x, s.y, s.z};
        double J2 = 2.0 * s.x * s.y * s.z - 1.0;
        alcM3 H;
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 3; j++) {
                if (i == j) {
                    double Ji = sv[(i + 1) % 3] * sv[(i + 2) % 3];
                    H.m[4 * i] = 2.0 * mu + lambda * Ji * Ji;
                } else {
                    H.m[3 * i + j] = lambda * sv[3 - i - j] * J2;
                }
            }
        }
        return H;
    }
    if (model == ALCM_COR) {
        alcM3 H;
        for (int i = 0; i < 9; i++) H.m[i] = lambda;
        H.m[0] += 2.0 * mu;
        H.m[4] += 2.0 * mu;
        H.m[8] += 2.0 * mu;
        return H;
    }
    double dg, ddg;
    alcm_psi_vol(model, mu, lambda, s.x * s.y * s.z, &dg, &ddg);
    double sv[3] = {s.x, s.y, s.z};
    double Ji[3] = {s.y * s.z, s.x * s.z, s.x * s.y};  // dJ/ds_i
    alcM3 H;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            // d2J/ds_i ds_j = s_k for i != j (k the third index), 0 on the diagonal
            double d2J = i == j ? 0.0 : sv[3 - i - j];
            H.m[3 * i + j] = ddg * Ji[i] * Ji[j] + dg * d2J + (i == j ? mu : 0.0);
        }
    }
    return H;
}

/// First Piola-Kirchhoff stress P = dPsi/dF.
/// @param[in] model, mu, lambda  as alcm_psi
/// @param[in] F                  deformation gradient
/// @return P (Pa), row-major like F.
ALC_HD alcM3 alcm_psi_P(int model, double mu, double lambda, alcM3 F) {
    if (model == ALCM_FCR) {
        // P = 2 mu (F - R) + lambda (J - 1) cof(F), R = U V^T the polar rotation
        alcM3 U, V;
        alcV3 s;
        alcm_m3_svd(F, &U, &s, &V);
        alcM3 R = alcm_m3_mulT(U, V);
        double lj = lambda * (alcm_m3_det(F) - 1.0);
        return alcm_m3_add(alcm_m3_scale(alcm_m3_sub(F, R), 2.0 * mu),
                           alcm_m3_scale(alcm_m3_cofactor(F), lj));
    }
    if (model == ALCM_COR) {
        // P = U diag(Psi_i) V^T
        alcM3 U, V;
        alcV3 s;
        alcm_m3_svd(F, &U, &s, &V);
        alcV3 d = alcm_psi_dsigma(model, mu, lambda, s);
        alcM3 UD = U;
        for (int i = 0; i < 3; i++) {
            UD.m[3 * i] *= d.x;
            UD.m[3 * i + 1] *= d.y;
            UD.m[3 * i + 2] *= d.z;
        }
        return alcm_m3_mulT(UD, V);
    }
    // P = mu F + g'(J) cof(F)
    double dg, ddg;
    alcm_psi_vol(model, mu, lambda, alcm_m3_det(F), &dg, &ddg);
    return alcm_m3_add(alcm_m3_scale(F, mu), alcm_m3_scale(alcm_m3_cofactor(F), dg));
}

// ---------------------------------------------------------------------------------------------
// tet kinematics, energy and gradient
// ---------------------------------------------------------------------------------------------

/// Inverse rest shape matrix and rest volume of a tet.
/// @param[in]  X      rest positions of the 4 vertices (m)
/// @param[out] Dminv  Dm^-1 with Dm = [X1-X0, X2-X0, X3-X0] (columns) (1/m)
/// @param[out] vol    rest volume det(Dm)/6 (m^3)
/// @return false (outputs unset) when the tet is degenerate or negatively oriented (det Dm <= 0).
ALC_HD bool alcm_tet_restInverse(const alcV3 X[4], alcM3* Dminv, double* vol) {
    alcM3 Dm =
        alcm_m3_cols(alcm_v3_sub(X[1], X[0]), alcm_v3_sub(X[2], X[0]), alcm_v3_sub(X[3], X[0]));
    double det = alcm_m3_det(Dm);
    if (!(det > 0.0)) return false;
    alcM3 inv;
    if (!alcm_m3_inverse(Dm, &inv)) return false;
    *Dminv = inv;
    *vol = det / 6.0;
    return true;
}

/// Deformation gradient F = Ds Dminv, Ds = [x1-x0, x2-x0, x3-x0] (columns).
/// @param[in] x      deformed positions of the 4 vertices (m)
/// @param[in] Dminv  from alcm_tet_restInverse (1/m)
ALC_HD alcM3 alcm_tet_F(const alcV3 x[4], alcM3 Dminv) {
    alcM3 Ds =
        alcm_m3_cols(alcm_v3_sub(x[1], x[0]), alcm_v3_sub(x[2], x[0]), alcm_v3_sub(x[3], x[0]));
    return alcm_m3_mul(Ds, Dminv);
}

/// Row A_a of the dx -> dF map: dF = sum_a dx_a A_a^T (outer product).
/// @param[in] Dminv  from alcm_tet_restInverse (1/m)
/// @param[in] a      vertex 0..3
/// @return row a-1 of Dminv for a > 0, minus the sum of the rows for a = 0 (1/m).
ALC_HD alcV3 alcm_tet_A(alcM3 Dminv, int a) {
    if (a > 0) return alcm_m3_row(Dminv, a - 1);
    alcV3 s = alcm_v3_add(alcm_v3_add(alcm_m3_row(Dminv, 0), alcm_m3_row(Dminv, 1)),
                          alcm_m3_row(Dminv, 2));
    return alcm_v3_neg(s);
}

/// Elastic energy of a tet, vol * Psi(F).
/// @param[in] model, mu, lambda  as alcm_psi
/// @param[in] vol                rest volume (m^3)
/// @param[in] Dminv              inverse rest shape (1/m)
/// @param[in] x                  deformed positions (m)
/// @return energy (J).
ALC_HD double alcm_tet_energy(int model, double mu, double lambda, double vol, alcM3 Dminv,
                              const alcV3 x[4]) {
    return vol * alcm_psi(model, mu, lambda, alcm_tet_F(x, Dminv));
}

/// Gradient of the tet energy with respect to the vertex positions.
/// @param[in]  model, mu, lambda, vol, Dminv, x  as alcm_tet_energy
/// @param[out] g  g[3a + k] = dE/dx_{a,k} (N)
ALC_HD void alcm_tet_gradient(int model, double mu, double lambda, double vol, alcM3 Dminv,
                              const alcV3 x[4], double g[12]) {
    alcM3 P = alcm_psi_P(model, mu, lambda, alcm_tet_F(x, Dminv));
    // dE/dx_a = vol P A_a
    for (int a = 0; a < 4; a++) {
        alcm_v3_store(g + 3 * a, alcm_v3_scale(alcm_m3_mulv(P, alcm_tet_A(Dminv, a)), vol));
    }
}

// ---------------------------------------------------------------------------------------------
// analytic eigensystem and Hessians (Smith et al. 2019; AL paper Eq. 16-19)
// ---------------------------------------------------------------------------------------------

/// Index pair (i, j), i < j, of twist/flip mode k (3..8): k%3 = 0 -> (1,2), 1 -> (0,2), 2 -> (0,1).
/// @param[in]  k  mode index 3..8 (any k; only k%3 is used)
/// @param[out] i, j  the two singular-value indices the mode couples
ALC_HD void alcm_tetEigen_pair(int k, int* i, int* j) {
    int r = k % 3;
    *i = r == 0 ? 1 : 0;
    *j = r == 2 ? 1 : 2;
}

/// Mode matrix D_k (AL paper Eq. 16, with the 1/sqrt2 absorbed).
/// @param[in] e  eigensystem from alcm_tet_eigen
/// @param[in] k  mode 0..8
ALC_HD alcM3 alcm_tetEigen_D(const alcTetEigen* e, int k) {
    alcM3 D = alcm_m3_zero();
    if (k < 3) {
        for (int i = 0; i < 3; i++) D.m[4 * i] = e->W.m[3 * i + k];
        return D;
    }
    int i, j;
    alcm_tetEigen_pair(k, &i, &j);
    const double r = 0.70710678118654752440;
    D.m[3 * i + j] = r;
    D.m[3 * j + i] = k < 6 ? -r : r;
    return D;
}

/// Eigenvector matrix Q_k = U D_k V^T of d2Psi/dF2 (AL paper Eq. 16).
/// @param[in] e  eigensystem from alcm_tet_eigen
/// @param[in] k  mode 0..8
ALC_HD alcM3 alcm_tetEigen_Q(const alcTetEigen* e, int k) {
    return alcm_m3_mulT(alcm_m3_mul(e->U, alcm_tetEigen_D(e, k)), e->V);
}

/// Analytic eigen-decomposition of d2Psi/dF2 at F (Smith et al. 2019).
/// Twist/flip eigenvalues use closed forms that never divide by s_i - s_j: for
/// Psi = mu/2 I_C + g(J) (SNH, NH) flip = mu - g'(J) s_k, twist = mu + g'(J) s_k (k the third
/// index); for COR flip = 2 mu, twist = 2 mu + (2 lambda (sum s - 3) - 4 mu) / (s_i + s_j) with
/// s_i + s_j clamped below by ALCM_COR_TWIST_EPS; for FCR flip = 2 mu - lambda (J - 1) s_k,
/// twist = 2 mu + lambda (J - 1) s_k - 4 mu / (s_i + s_j), clamped the same way (the exact
/// Hessian of 2 mu tr(S) is singular where s_i + s_j = 0).
/// @param[in]  model, mu, lambda  as alcm_psi
/// @param[in]  F        deformation gradient
/// @param[out] out      eigensystem
/// @param[in]  filter   ALCM_EIG_EXACT (0, false) keeps the eigenvalues; ALCM_EIG_CLAMP (1,
///                      true) clamps them to max(lam, 0) (AL paper Eq. 17); ALCM_EIG_ABS (2)
///                      takes |lam| (solver.eigen_filter: abs)
ALC_HD void alcm_tet_eigen(int model, double mu, double lambda, alcM3 F, alcTetEigen* out,
                           int filter) {
    alcm_m3_svd(F, &out->U, &out->sigma, &out->V);
    alcV3 s = out->sigma;
    double sv[3] = {s.x, s.y, s.z};
    // scaling modes: eigen-decomposition of d2Psi/dsigma2
    alcV3 ls;
    alcm_m3_symEigen(alcm_psi_d2sigma(model, mu, lambda, s), &ls, &out->W);
    out->lam[0] = ls.x;
    out->lam[1] = ls.y;
    out->lam[2] = ls.z;
    // twist (k = 3..5) and flip (k = 6..8) modes, closed forms
    double dg = 0.0, ddg = 0.0;
    if (model != ALCM_COR && model != ALCM_FCR)
        alcm_psi_vol(model, mu, lambda, s.x * s.y * s.z, &dg, &ddg);
    double lj = lambda * (s.x * s.y * s.z - 1.0);  // FCR: lambda (J - 1)
    double tr = s.x + s.y + s.z - 3.0;
    for (int m = 0; m < 3; m++) {
        int i, j;
        alcm_tetEigen_pair(m, &i, &j);
        if (model == ALCM_COR) {
            double den = alcm_max(sv[i] + sv[j], ALCM_COR_TWIST_EPS);
            out->lam[3 + m] = 2.0 * mu + (2.0 * lambda * tr - 4.0 * mu) / den;
            out->lam[6 + m] = 2.0 * mu;
        } else if (model == ALCM_FCR) {
            double den = alcm_max(sv[i] + sv[j], ALCM_COR_TWIST_EPS);
            out->lam[3 + m] = 2.0 * mu + lj * sv[m] - 4.0 * mu / den;
            out->lam[6 + m] = 2.0 * mu - lj * sv[m];
        } else {
            out->lam[3 + m] = mu + dg * sv[m];
            out->lam[6 + m] = mu - dg * sv[m];
        }
    }
    if (filter == ALCM_EIG_ABS) {
        for (int k = 0; k < 9; k++) out->lam[k] = fabs(out->lam[k]);
    } else if (filter) {
        for (int k = 0; k < 9; k++) out->lam[k] = alcm_max(out->lam[k], 0.0);
    }
}

/// Full 12x12 tet Hessian from an eigensystem, vol * A^T (sum_k lam_k vec(Q_k) vec(Q_k)^T) A.
/// @param[in]  e      eigensystem from alcm_tet_eigen (projected or not)
/// @param[in]  vol    rest volume (m^3)
/// @param[in]  Dminv  inverse rest shape (1/m)
/// @param[out] H      H[12 * (3a + k) + 3b + l] = d2E / dx_{a,k} dx_{b,l} (N/m)
ALC_HD void alcm_tet_hessianEigen(const alcTetEigen* e, double vol, alcM3 Dminv, double H[144]) {
    for (int i = 0; i < 144; i++) H[i] = 0.0;
    alcV3 A[4];
    for (int a = 0; a < 4; a++) A[a] = alcm_tet_A(Dminv, a);
    for (int k = 0; k < 9; k++) {
        double l = vol * e->lam[k];
        if (l == 0.0) continue;
        // column of the 12-vector A^T vec(Q_k): dQ_k/dx_a = Q_k A_a
        alcM3 Q = alcm_tetEigen_Q(e, k);
        double q[12];
        for (int a = 0; a < 4; a++) alcm_v3_store(q + 3 * a, alcm_m3_mulv(Q, A[a]));
        for (int r = 0; r < 12; r++) {
            for (int c = 0; c < 12; c++) H[12 * r + c] += l * q[r] * q[c];
        }
    }
}

/// Full 12x12 tet Hessian, optionally made PSD (AL paper Eq. 17). With filter = ALCM_EIG_EXACT it
/// is the exact Hessian of alcm_tet_energy.
/// @param[in]  model, mu, lambda, vol, Dminv, x  as alcm_tet_energy
/// @param[out] H        H[12 * (3a + k) + 3b + l] (N/m), symmetric
/// @param[in]  filter   the eigenvalues of d2Psi/dF2 as alcm_tet_eigen filters them
ALC_HD void alcm_tet_hessian(int model, double mu, double lambda, double vol, alcM3 Dminv,
                             const alcV3 x[4], double H[144], int filter) {
    alcTetEigen e;
    alcm_tet_eigen(model, mu, lambda, alcm_tet_F(x, Dminv), &e, filter);
    alcm_tet_hessianEigen(&e, vol, Dminv, H);
}

/// One 3x3 vertex block (a, b) of the tet Hessian, AL paper Eq. 18-19:
/// H_ab = vol U [sum_k lam_k D_k (V^T A_a)(V^T A_b)^T D_k^T] U^T, computed without forming the
/// 9x9 or 12x12 matrix and using the sparsity of D_k (diagonal / two nonzeros).
/// @param[in]  e      eigensystem from alcm_tet_eigen (projected for the PSD Hessian)
/// @param[in]  vol    rest volume (m^3)
/// @param[in]  Dminv  inverse rest shape (1/m)
/// @param[in]  a, b   vertices 0..3
/// @param[out] out    out.m[3k + l] = d2E / dx_{a,k} dx_{b,l} (N/m)
ALC_HD void alcm_tet_hessianBlock(const alcTetEigen* e, double vol, alcM3 Dminv, int a, int b,
                                  alcM3* out) {
    // p = (A_a V)^T, q = (A_b V)^T
    alcV3 pv = alcm_m3_Tmulv(e->V, alcm_tet_A(Dminv, a));
    alcV3 qv = alcm_m3_Tmulv(e->V, alcm_tet_A(Dminv, b));
    double p[3] = {pv.x, pv.y, pv.z};
    double q[3] = {qv.x, qv.y, qv.z};
    double M[9];
    // scaling modes: D_k = diag(w_k), (D_k p)(D_k q)^T = (w_k o p)(w_k o q)^T
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += e->lam[k] * e->W.m[3 * i + k] * e->W.m[3 * j + k];
            M[3 * i + j] = s * p[i] * q[j];
        }
    }
    // twist (sign -1) and flip (sign +1) modes on pair (i, j): D p = (e_i p_j -+ e_j p_i)/sqrt2
    for (int m = 0; m < 3; m++) {
        int i, j;
        alcm_tetEigen_pair(m, &i, &j);
        double lt = 0.5 * e->lam[3 + m], lf = 0.5 * e->lam[6 + m];
        double ls = lt + lf, ld = lf - lt;
        M[4 * i] += ls * p[j] * q[j];
        M[4 * j] += ls * p[i] * q[i];
        M[3 * i + j] += ld * p[j] * q[i];
        M[3 * j + i] += ld * p[i] * q[j];
    }
    // out = vol U M U^T
    alcM3 Mm = alcm_m3_load(M);
    *out = alcm_m3_scale(alcm_m3_mulT(alcm_m3_mul(e->U, Mm), e->U), vol);
}

// ---------------------------------------------------------------------------------------------
// inversion step bound
// ---------------------------------------------------------------------------------------------

/// Cubic c[0] + c[1] t + c[2] t^2 + c[3] t^3 (Horner).
/// @param[in] c  coefficients
/// @param[in] t  argument
ALC_HD double alcm_cubic_eval(const double c[4], double t) {
    return ((c[3] * t + c[2]) * t + c[1]) * t + c[0];
}

/// Real roots of A t^2 + B t + C = 0 strictly inside (0, 1), ascending; never divides by zero.
/// A tiny A (degenerate to linear) or A = B = 0 are handled; a double root counts once.
/// @param[in]  A, B, C  coefficients
/// @param[out] r        up to two roots in (0, 1), ascending
/// @return number of roots written (0..2).
ALC_HD int alcm_quadratic_rootsUnit(double A, double B, double C, double r[2]) {
    double t[2];
    int n = 0;
    if (A == 0.0) {
        if (B != 0.0) t[n++] = -C / B;
    } else {
        double disc = B * B - 4.0 * A * C;
        if (disc >= 0.0) {
            // stable form: q = -(B + sign(B) sqrt(disc)) / 2, roots q / A and C / q
            double q = -0.5 * (B + (B < 0 ? -sqrt(disc) : sqrt(disc)));
            t[n++] = q / A;
            if (q != 0.0) t[n++] = C / q;
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (t[i] > 0.0 && t[i] < 1.0) r[m++] = t[i];
    }
    if (m == 2 && r[0] > r[1]) {
        double s = r[0];
        r[0] = r[1];
        r[1] = s;
    }
    return m;
}

/// Coefficients of 6 vol(x + a p) - minVol6 = c0 + c1 a + c2 a^2 + c3 a^3.
/// @param[in]  x        vertex positions (m)
/// @param[in]  p        direction per vertex (m)
/// @param[in]  minVol6  six times the volume subtracted (m^3)
/// @param[out] c        the four coefficients (m^3)
ALC_HD void alcm_tet_volCubic(const alcV3 x[4], const alcV3 p[4], double minVol6, double c[4]) {
    alcV3 d[3], e[3];
    for (int i = 0; i < 3; i++) {
        d[i] = alcm_v3_sub(x[i + 1], x[0]);
        e[i] = alcm_v3_sub(p[i + 1], p[0]);
    }
    // 6 vol(a) = det[d0 + a e0, d1 + a e1, d2 + a e2]
    c[0] = alcm_v3_triple(d[0], d[1], d[2]) - minVol6;
    c[1] = alcm_v3_triple(e[0], d[1], d[2]) + alcm_v3_triple(d[0], e[1], d[2]) +
           alcm_v3_triple(d[0], d[1], e[2]);
    c[2] = alcm_v3_triple(d[0], e[1], e[2]) + alcm_v3_triple(e[0], d[1], e[2]) +
           alcm_v3_triple(e[0], e[1], d[2]);
    c[3] = alcm_v3_triple(e[0], e[1], e[2]);
}

/// Given f(lo) > 0 >= f(hi) for the cubic c, the crossing between them, bisected to 1e-10
/// relative and returned CONSERVATIVELY: the lower bracket times (1 - 1e-9), where f > 0.
ALC_HD double alcm_cubic_lastPositive(const double c[4], double lo, double hi) {
    for (int it = 0; it < 200 && hi - lo > 1e-10 * hi; it++) {
        double mid = 0.5 * (lo + hi);
        if (alcm_cubic_eval(c, mid) > 0.0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo * (1.0 - 1e-9);
}

/// Largest step alpha in [0, 1] such that the signed volume stays >= minVol6 / 6 for every
/// alpha' in [0, alpha] along x + alpha' p. 6 vol(x + a p) is a cubic in a; [0, 1] is split at
/// the real roots of its derivative into monotone pieces and the first sign change of
/// 6 vol(a) - minVol6 is bisected. The result is CONSERVATIVE: the lower bracket (bisected to
/// 1e-10 relative) times (1 - 1e-9), never above the crossing.
/// @param[in] x        current vertex positions (m)
/// @param[in] p        search direction per vertex (m)
/// @param[in] minVol6  six times the smallest volume allowed (m^3)
/// @return alpha in [0, 1]; 1 when there is no crossing in [0, 1]; 0 when 6 vol(x) <= minVol6.
ALC_HD double alcm_tet_maxStepTo(const alcV3 x[4], const alcV3 p[4], double minVol6) {
    double c[4];
    alcm_tet_volCubic(x, p, minVol6, c);
    if (!(c[0] > 0.0)) return 0.0;
    // monotone pieces: split at the roots of f'(a) = c1 + 2 c2 a + 3 c3 a^2
    double r[2];
    int nr = alcm_quadratic_rootsUnit(3.0 * c[3], 2.0 * c[2], c[1], r);
    double brk[4];
    int nb = 0;
    brk[nb++] = 0.0;
    for (int i = 0; i < nr; i++) brk[nb++] = r[i];
    brk[nb++] = 1.0;
    for (int i = 1; i < nb; i++) {
        double hi = brk[i];
        if (alcm_cubic_eval(c, hi) > 0.0) continue;
        // f(lo) > 0 >= f(hi)
        return alcm_cubic_lastPositive(c, brk[i - 1], hi);
    }
    return 1.0;
}

/// The end-point counterpart of alcm_tet_maxStepTo: alpha itself when the signed volume at
/// x + alpha p is above minVol6 / 6, else the largest a < alpha where it is, below the stretch
/// of [0, alpha] that ends at alpha and lies at or under the target (CONSERVATIVE as
/// alcm_tet_maxStepTo). The path between 0 and the result may pass below the target: a
/// tetrahedron that turns over along a straight segment and comes back with positive volume
/// is a valid end point (only the end point is a state; docs/architecture.md).
/// @param[in] x        current vertex positions (m)
/// @param[in] p        direction per vertex (m)
/// @param[in] minVol6  six times the smallest volume allowed (m^3)
/// @param[in] alpha    the step asked for, in [0, 1]
/// @return a in [0, alpha]; 0 when 6 vol(x) <= minVol6.
ALC_HD double alcm_tet_endStepTo(const alcV3 x[4], const alcV3 p[4], double minVol6, double alpha) {
    double c[4];
    alcm_tet_volCubic(x, p, minVol6, c);
    if (!(c[0] > 0.0)) return 0.0;
    if (alcm_cubic_eval(c, alpha) > 0.0) return alpha;
    // monotone pieces of [0, alpha], scanned from the right: the first piece whose left end is
    // above the target holds the crossing (f at its right end is not, by the scan's order)
    double r[2];
    int nr = alcm_quadratic_rootsUnit(3.0 * c[3], 2.0 * c[2], c[1], r);
    double brk[4];
    int nb = 0;
    brk[nb++] = 0.0;
    for (int i = 0; i < nr; i++) {
        if (r[i] < alpha) brk[nb++] = r[i];
    }
    brk[nb++] = alpha;
    for (int i = nb - 1; i > 0; i--) {
        if (alcm_cubic_eval(c, brk[i - 1]) > 0.0) {
            return alcm_cubic_lastPositive(c, brk[i - 1], brk[i]);
        }
    }
    return 0.0;  // not reached: f(0) > 0
}

/// Largest step alpha in [0, 1] such that the signed volume stays >= fraction * vol(x) for every
/// alpha' in [0, alpha] along x + alpha' p (IPC's inversion filter), conservative as
/// alcm_tet_maxStepTo.
/// @param[in] x         current vertex positions (m), assumed vol(x) > 0
/// @param[in] p         search direction per vertex (m)
/// @param[in] fraction  allowed volume fraction in (0, 1), e.g. 0.2
/// @return alpha in [0, 1]; 1 when there is no crossing in [0, 1], and 1 when vol(x) <= 0
///         (nothing to protect; the caller must handle already inverted tets); 0 when
///         fraction >= 1.
ALC_HD double alcm_tet_maxStep(const alcV3 x[4], const alcV3 p[4], double fraction) {
    double v6 =
        alcm_v3_triple(alcm_v3_sub(x[1], x[0]), alcm_v3_sub(x[2], x[0]), alcm_v3_sub(x[3], x[0]));
    if (!(v6 > 0.0)) return 1.0;
    return alcm_tet_maxStepTo(x, p, fraction >= 1.0 ? v6 : fraction * v6);
}

/// Smallest volume, as a fraction of the rest volume, that the inversion bound lets a
/// tetrahedron reach in one step of x; a tetrahedron already below it may lose at most
/// 1 - ALC_INV_FLOOR_KEEP of its volume per step (and grow freely).
#define ALC_INV_FLOOR 1e-4
/// Fraction of its current volume that a tetrahedron already below ALC_INV_FLOOR keeps.
/// Keeping all of it (a target equal to the current volume) made the bound 0 in every
/// direction, growth included, and froze the step for good (issue 14).
#define ALC_INV_FLOOR_KEEP 0.9
/// Passes of the end-point bound (alcm_tet_endStepTo) before it settles for the path bound
/// (alcm_tet_maxStepTo); each pass moves alpha below one more stretch under a target.
#define ALC_END_BOUND_PASSES 32

/// Six times the smallest volume the inversion bound lets a tetrahedron reach: `fraction` of its
/// current volume (IPC's filter), and never below ALC_INV_FLOOR of its rest volume, so that
/// repeated iterations cannot crush it geometrically towards zero volume (where rounding would
/// flip it); a tetrahedron already below the floor keeps ALC_INV_FLOOR_KEEP of its current
/// volume, so that a direction that lets it grow (or shrink a little) is not blocked.
/// @param[in] v6        six times the current signed volume (m^3), > 0
/// @param[in] fraction  allowed fraction of the current volume, in (0, 1)
/// @param[in] restVol   rest volume (m^3)
/// @return the minVol6 argument of alcm_tet_maxStepTo (m^3), below v6.
ALC_HD double alcm_tet_invTarget(double v6, double fraction, double restVol) {
    double floor6 = ALC_INV_FLOOR * 6 * restVol;
    if (fraction * v6 > floor6) return fraction * v6;
    return v6 > floor6 ? floor6 : ALC_INV_FLOOR_KEEP * v6;
}

/// A tetrahedron guard (alcOption.tetGuards): the tetrahedron's volume linearized at x as one
/// more constraint of the AL subproblem, in the form of a contact pair's (AL paper Eq. 10),
/// c = d + g . (xhat - x) - delta with
///   d = (v6(x) - target6) / S + delta,  g = grad v6(x) / S,  S = |grad v6(x)| (12 entries),
/// where target6 = alcm_tet_invTarget(v6(x), fraction, restVol) is what the inversion bound lets
/// the tetrahedron keep. c >= 0 says that the chord from x towards xhat keeps the volume above
/// that target to first order: a sliver that the subproblem's minimizer re-expands from the
/// other side (its volume falls at t = 0 and rises again along the chord) then no longer holds
/// the chord at alpha = v6 / |dv6/dt| (1e-7 on IPC's dolphin, issue 14). Dividing by S makes c
/// the distance, along the gradient, to the volume target and g a unit vector, as a contact's
/// distance and gradient nearly are: the guard's curvature mu g g^T is no stiffer than a
/// contact's. (Scaled by the rest volume instead, S = (6 restVol)^(2/3), a sliver of the rest
/// mesh had |g| far above 1 and CG per solve rose by half on IPC's dolphin.)
/// @param[in]  x         vertex positions at the expansion point (m)
/// @param[in]  restVol   rest volume (m^3), > 0 (sets S when grad v6 vanishes)
/// @param[in]  fraction  the inversion bound's fraction of the current volume, in (0, 1)
/// @param[in]  delta     the contact offset the pair machinery subtracts (m)
/// @param[out] g         grad of c, 12 entries (dimensionless, unit length)
/// @return d (m): c at xhat = x is d - delta.
ALC_HD double alcm_tet_guardLinearize(const alcV3 x[4], double restVol, double fraction,
                                      double delta, double g[12]) {
    alcV3 e1 = alcm_v3_sub(x[1], x[0]), e2 = alcm_v3_sub(x[2], x[0]), e3 = alcm_v3_sub(x[3], x[0]);
    double v6 = alcm_v3_triple(e1, e2, e3);
    alcV3 gv[4];
    gv[1] = alcm_v3_cross(e2, e3);
    gv[2] = alcm_v3_cross(e3, e1);
    gv[3] = alcm_v3_cross(e1, e2);
    gv[0] = alcm_v3_scale(alcm_v3_add(alcm_v3_add(gv[1], gv[2]), gv[3]), -1.0);
    double S = 0;
    for (int a = 0; a < 4; a++) S += alcm_v3_norm2(gv[a]);
    S = sqrt(S);
    if (!(S > 0)) {
        S = cbrt(6 * restVol);
        S *= S;
    }
    for (int a = 0; a < 4; a++) {
        g[3 * a] = gv[a].x / S;
        g[3 * a + 1] = gv[a].y / S;
        g[3 * a + 2] = gv[a].z / S;
    }
    double target = v6 > 0 ? alcm_tet_invTarget(v6, fraction, restVol) : 0;
    return (v6 - target) / S + delta;
}

/// The tetrahedra that become guards when the inversion bound cuts an outer step below amax
/// (alcOption.tetGuards): those whose own bound is below amax, the smallest bound first (ties by
/// index), at most cap of them. Both backends select with it from their per-tetrahedron bounds,
/// so that they guard the same tetrahedra in the same order.
/// @param[in]  bound  each tetrahedron's own largest alpha, at most amax (ntet)
/// @param[in]  ntet   tetrahedra
/// @param[in]  amax   the alpha the CCD allowed
/// @param[out] out    the selected tetrahedra (cap)
/// @param[in]  cap    the most to select, >= 0
/// @return how many were selected.
ALC_HD int alcm_tet_guardSelect(const double* bound, int ntet, double amax, int* out, int cap) {
    int n = 0;
    for (int t = 0; t < ntet; t++) {
        if (!(bound[t] < amax)) continue;
        // insertion into out, kept sorted by (bound, index), at most cap long
        int at = n < cap ? n : cap;
        while (at > 0 && bound[out[at - 1]] > bound[t]) at--;
        if (at >= cap) continue;
        int last = n < cap ? n : cap - 1;
        for (int i = last; i > at; i--) out[i] = out[i - 1];
        out[at] = t;
        if (n < cap) n++;
    }
    return n;
}

#endif  // ALC_HD_ALCM_ELASTIC_H_
