// 3x3 symmetric eigen-decomposition (cyclic Jacobi) and signed ("rotation-variant") SVD, shared by
// host C11 and CUDA device code. Header-only: includes only alcm_vec.h (STYLE.md §7).
//
// Conventions: alcM3 is row-major (m[3*i + j]); eigenvectors and singular vectors are the COLUMNS
// of the returned matrices. Inputs containing NaN or Inf give unspecified (but finite-time)
// results.
#ifndef ALC_HD_ALCM_SVD_H_
#define ALC_HD_ALCM_SVD_H_

#include "alcm_vec.h"

/// Machine epsilon of double (no <float.h> in hd headers).
#define ALCM_EPS 2.220446049250313e-16
/// Maximum number of cyclic Jacobi sweeps (each sweep visits the 3 off-diagonal pairs).
#define ALCM_JACOBI_SWEEPS 20

/// Swaps columns p and q of a 3x3 array stored as c[column][row].
ALC_HD void alcm_cols3_swap(double c[3][3], int p, int q) {
    for (int r = 0; r < 3; r++) {
        double t = c[p][r];
        c[p][r] = c[q][r];
        c[q][r] = t;
    }
}

/// Tangent of the Jacobi rotation angle that annihilates an off-diagonal entry.
/// @param[in] theta  (a_qq - a_pp) / (2 a_pq) for the two-sided case, (|b_q|^2 - |b_p|^2) /
///                   (2 b_p.b_q) for the one-sided case (dimensionless)
/// @return t = sign(theta) / (|theta| + sqrt(theta^2 + 1)), the smaller root; |t| <= 1.
ALC_HD double alcm_jacobi_tan(double theta) {
    double at = fabs(theta);
    // for huge |theta| the rotation is tiny; avoid overflow in theta^2
    double t = at > 1e150 ? 0.5 / at : 1.0 / (at + sqrt(at * at + 1.0));
    return theta < 0 ? -t : t;
}

/// Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations.
/// Only the symmetric part (A + A^T)/2 is used. Robust for zero, diagonal and repeated-eigenvalue
/// input; eigenvalues have absolute accuracy ~eps * |A| (better for well-scaled input).
/// @param[in]  A      symmetric matrix (any units)
/// @param[out] evals  eigenvalues, sorted descending (x >= y >= z), same units as A
/// @param[out] evecs  orthonormal eigenvectors as COLUMNS (column i belongs to evals component i),
///                    a proper rotation (det +1)
ALC_HD void alcm_m3_symEigen(alcM3 A, alcV3* evals, alcM3* evecs) {
    double a[3][3];
    double v[3][3];  // v[column][row]
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            a[i][j] = 0.5 * (A.m[3 * i + j] + A.m[3 * j + i]);
            v[i][j] = i == j ? 1.0 : 0.0;
        }
    }
    // cyclic sweeps over the pairs (0,1), (0,2), (1,2) until no rotation is needed
    for (int sweep = 0; sweep < ALCM_JACOBI_SWEEPS; sweep++) {
        bool rotated = false;
        for (int pair = 0; pair < 3; pair++) {
            int p = pair == 2 ? 1 : 0;
            int q = pair == 0 ? 1 : 2;
            int r = 3 - p - q;
            double apq = a[p][q];
            if (fabs(apq) <= 1e-300 ||
                fabs(apq) <= 0.5 * ALCM_EPS * sqrt(fabs(a[p][p] * a[q][q]))) {
                // negligible relative to the diagonal: drop it
                a[p][q] = a[q][p] = 0.0;
                continue;
            }
            rotated = true;
            double t = alcm_jacobi_tan((a[q][q] - a[p][p]) / (2.0 * apq));
            double c = 1.0 / sqrt(t * t + 1.0);
            double s = t * c;
            // two-sided rotation J^T a J with J = [c s; -s c] in the (p,q) plane
            a[p][p] -= t * apq;
            a[q][q] += t * apq;
            a[p][q] = a[q][p] = 0.0;
            double arp = a[r][p], arq = a[r][q];
            a[r][p] = a[p][r] = c * arp - s * arq;
            a[r][q] = a[q][r] = s * arp + c * arq;
            // accumulate the rotation into the eigenvector columns
            for (int k = 0; k < 3; k++) {
                double vp = v[p][k], vq = v[q][k];
                v[p][k] = c * vp - s * vq;
                v[q][k] = s * vp + c * vq;
            }
        }
        if (!rotated) break;
    }
    // sort descending (3-element insertion sort on columns)
    double d[3] = {a[0][0], a[1][1], a[2][2]};
    for (int i = 1; i < 3; i++) {
        for (int j = i; j > 0 && d[j] > d[j - 1]; j--) {
            double t = d[j];
            d[j] = d[j - 1];
            d[j - 1] = t;
            alcm_cols3_swap(v, j, j - 1);
        }
    }
    // make the eigenvector matrix a proper rotation
    alcM3 E = alcm_m3_cols(alcm_v3_load(v[0]), alcm_v3_load(v[1]), alcm_v3_load(v[2]));
    if (alcm_m3_det(E) < 0) {
        for (int i = 0; i < 3; i++) E.m[3 * i + 2] = -E.m[3 * i + 2];
    }
    *evals = alcm_v3(d[0], d[1], d[2]);
    *evecs = E;
}

/// A unit vector orthogonal to the unit vector u (Gram-Schmidt on the axis least aligned with u).
/// @param[in] u  unit vector
ALC_HD alcV3 alcm_v3_anyOrthogonal(alcV3 u) {
    double ax = fabs(u.x), ay = fabs(u.y), az = fabs(u.z);
    alcV3 e =
        ax <= ay && ax <= az ? alcm_v3(1, 0, 0) : (ay <= az ? alcm_v3(0, 1, 0) : alcm_v3(0, 0, 1));
    return alcm_v3_normalize(alcm_v3_mad(e, -alcm_v3_dot(u, e), u));
}

/// Euclidean norm computed without underflow or overflow of the squares.
/// @param[in] a  vector (any units)
/// @return |a|, same units as a.
ALC_HD double alcm_v3_normSafe(alcV3 a) {
    double m = alcm_v3_maxabs(a);
    return m > 0.0 ? m * alcm_v3_norm(alcm_v3_scale(a, 1.0 / m)) : 0.0;
}

/// Signed singular value decomposition F = U diag(sigma) V^T.
/// U and V are proper rotations (det +1). sigma is sorted descending, sigma.x >= sigma.y >= 0,
/// and only sigma.z may be negative, with |sigma.z| <= sigma.y and sign(sigma.z) = sign(det F)
/// (so an inverted F gives sigma.z < 0). Orderings hold up to rounding (~eps * sigma.x).
/// Robust for rank-deficient F (F = 0, zero columns, repeated singular values): missing columns
/// of U are completed by Gram-Schmidt and cross products. Reconstruction error ~1e-15 * |F|.
/// Method: V from Jacobi on F^T F, polished by one-sided (Hestenes) Jacobi on B = F V, then
/// U = columns of B normalized (Gram-Schmidt), u3 = u1 x u2, sigma3 = u3 . b3.
/// @param[in]  F      3x3 matrix (dimensionless deformation gradient, any scale)
/// @param[out] U      left singular vectors as columns, det +1
/// @param[out] sigma  signed singular values (x >= y >= |z|), same units as F
/// @param[out] V      right singular vectors as columns, det +1
ALC_HD void alcm_m3_svd(alcM3 F, alcM3* U, alcV3* sigma, alcM3* V) {
    // scale to unit max entry so that F^T F neither overflows nor underflows
    double scale = 0.0;
    for (int i = 0; i < 9; i++) scale = alcm_max(scale, fabs(F.m[i]));
    if (!(scale > 0.0)) {
        *U = alcm_m3_identity();
        *V = alcm_m3_identity();
        *sigma = alcm_v3(0, 0, 0);
        return;
    }
    alcM3 Fs = alcm_m3_scale(F, 1.0 / scale);
    // right singular vectors from the eigenvectors of F^T F
    alcV3 ev;
    alcM3 Vm;
    alcm_m3_symEigen(alcm_m3_Tmul(Fs, Fs), &ev, &Vm);
    alcM3 Bm = alcm_m3_mul(Fs, Vm);
    double b[3][3], v[3][3];  // [column][row]
    for (int j = 0; j < 3; j++) {
        alcm_v3_store(b[j], alcm_m3_col(Bm, j));
        alcm_v3_store(v[j], alcm_m3_col(Vm, j));
    }
    // polish: one-sided Jacobi makes the columns of B = F V orthogonal to relative precision
    for (int sweep = 0; sweep < ALCM_JACOBI_SWEEPS; sweep++) {
        bool rotated = false;
        for (int pair = 0; pair < 3; pair++) {
            int p = pair == 2 ? 1 : 0;
            int q = pair == 0 ? 1 : 2;
            double alpha = 0, beta = 0, gamma = 0;
            for (int k = 0; k < 3; k++) {
                alpha += b[p][k] * b[p][k];
                beta += b[q][k] * b[q][k];
                gamma += b[p][k] * b[q][k];
            }
            if (fabs(gamma) <= 1e-300 || fabs(gamma) <= ALCM_EPS * sqrt(alpha * beta)) continue;
            rotated = true;
            double t = alcm_jacobi_tan((beta - alpha) / (2.0 * gamma));
            double c = 1.0 / sqrt(t * t + 1.0);
            double s = t * c;
            for (int k = 0; k < 3; k++) {
                double bp = b[p][k], bq = b[q][k];
                b[p][k] = c * bp - s * bq;
                b[q][k] = s * bp + c * bq;
                double vp = v[p][k], vq = v[q][k];
                v[p][k] = c * vp - s * vq;
                v[q][k] = s * vp + c * vq;
            }
        }
        if (!rotated) break;
    }
    // sort columns by norm, descending
    double n[3];
    for (int j = 0; j < 3; j++) n[j] = alcm_v3_normSafe(alcm_v3_load(b[j]));
    for (int i = 1; i < 3; i++) {
        for (int j = i; j > 0 && n[j] > n[j - 1]; j--) {
            double t = n[j];
            n[j] = n[j - 1];
            n[j - 1] = t;
            alcm_cols3_swap(b, j, j - 1);
            alcm_cols3_swap(v, j, j - 1);
        }
    }
    // make V proper (flipping v3 flips b3 = F v3 with it)
    alcV3 v0 = alcm_v3_load(v[0]), v1 = alcm_v3_load(v[1]), v2 = alcm_v3_load(v[2]);
    alcV3 b0 = alcm_v3_load(b[0]), b1 = alcm_v3_load(b[1]), b2 = alcm_v3_load(b[2]);
    if (alcm_v3_triple(v0, v1, v2) < 0) {
        v2 = alcm_v3_neg(v2);
        b2 = alcm_v3_neg(b2);
    }
    // u1 = b1 / |b1| (|b1| > 0: the largest column of a nonzero scaled matrix is >= 1/3)
    alcV3 u0 = alcm_v3_scale(b0, 1.0 / n[0]);
    // u2 from b2 by Gram-Schmidt, or any orthogonal unit vector when b2 vanishes
    alcV3 w = alcm_v3_mad(b1, -alcm_v3_dot(u0, b1), u0);
    double wm = alcm_v3_maxabs(w);
    alcV3 u1 =
        wm > 1e-300 ? alcm_v3_normalize(alcm_v3_scale(w, 1.0 / wm)) : alcm_v3_anyOrthogonal(u0);
    double s1 = alcm_v3_dot(u1, b1);
    if (s1 < 0) {
        u1 = alcm_v3_neg(u1);
        s1 = -s1;
    }
    // u3 = u1 x u2 keeps det U = +1; the sign of det F goes into sigma3
    alcV3 u2 = alcm_v3_normalize(alcm_v3_cross(u0, u1));
    double s2 = alcm_v3_dot(u2, b2);
    *U = alcm_m3_cols(u0, u1, u2);
    *V = alcm_m3_cols(v0, v1, v2);
    *sigma = alcm_v3(n[0] * scale, s1 * scale, s2 * scale);
}

#endif  // ALC_HD_ALCM_SVD_H_
