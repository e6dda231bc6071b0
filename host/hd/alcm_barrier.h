// IPC's log barrier on squared distances, its edge-edge mollifier, and the PSD projection of
// small symmetric matrices, shared by the CPU reference and CUDA backends (the `ipc` contact
// model, docs/contact-models.md).
//
// Barrier (IPC paper Eq. 6, evaluated on squared distances as in its §7):
//   b(s) = -(s - S)^2 ln(s / S)  for 0 < s < S = dhat^2, else 0,
// C^2 at S. Mollifier of edge-edge terms (IPC Eq. 24): with c = |e0 x e1|^2 and the threshold
// eps_x = 1e-3 |e0_rest|^2 |e1_rest|^2, m(c) = -c^2/eps_x^2 + 2 c/eps_x for c < eps_x, else 1.
#ifndef ALC_HD_ALCM_BARRIER_H_
#define ALC_HD_ALCM_BARRIER_H_

#include "hd/alcm_vec.h"

#include <math.h>

/// b(s) for squared distance s and squared activation distance S (m^4).
ALC_HD double alcm_barrier(double s, double S) {
    if (s <= 0) return HUGE_VAL;
    if (s >= S) return 0;
    return -(s - S) * (s - S) * log(s / S);
}

/// db/ds (m^2).
ALC_HD double alcm_barrierD1(double s, double S) {
    if (s >= S || s <= 0) return 0;
    return -2 * (s - S) * log(s / S) - (s - S) * (s - S) / s;
}

/// d2b/ds2 (dimensionless).
ALC_HD double alcm_barrierD2(double s, double S) {
    if (s >= S || s <= 0) return 0;
    return -2 * log(s / S) - 4 * (s - S) / s + (s - S) * (s - S) / (s * s);
}

/// Edge-edge mollifier threshold from the rest lengths of the two edges (IPC Eq. 24).
ALC_HD double alcm_mollifierEps(alcV3 a0r, alcV3 a1r, alcV3 b0r, alcV3 b1r) {
    return 1e-3 * alcm_v3_norm2(alcm_v3_sub(a1r, a0r)) * alcm_v3_norm2(alcm_v3_sub(b1r, b0r));
}

/// Mollifier m(c) of an edge pair {a0, a1, b0, b1} with threshold eps, its gradient g[12] and
/// Hessian H[144] (row-major) over the stencil. Nullable: g, H.
ALC_HD double alcm_mollifier(const alcV3 v[4], double eps, double* g, double* H) {
    alcV3 e0 = alcm_v3_sub(v[1], v[0]), e1 = alcm_v3_sub(v[3], v[2]);
    alcV3 n = alcm_v3_cross(e0, e1);
    double c = alcm_v3_norm2(n);
    if (g)
        for (int i = 0; i < 12; i++) g[i] = 0;
    if (H)
        for (int i = 0; i < 144; i++) H[i] = 0;
    if (!(eps > 0) || c >= eps) return 1;
    double m = -c * c / (eps * eps) + 2 * c / eps;
    double m1 = 2 / eps - 2 * c / (eps * eps), m2 = -2 / (eps * eps);
    if (!g && !H) return m;
    // grad c over (e0, e1): dc/de0 = 2 e1 x n, dc/de1 = 2 n x e0
    double dc[12];
    alcV3 ga = alcm_v3_scale(alcm_v3_cross(e1, n), 2), gb = alcm_v3_scale(alcm_v3_cross(n, e0), 2);
    double gaa[3] = {ga.x, ga.y, ga.z}, gbb[3] = {gb.x, gb.y, gb.z};
    for (int k = 0; k < 3; k++) {
        dc[k] = -gaa[k];
        dc[3 + k] = gaa[k];
        dc[6 + k] = -gbb[k];
        dc[9 + k] = gbb[k];
    }
    if (g)
        for (int i = 0; i < 12; i++) g[i] = m1 * dc[i];
    if (!H) return m;
    // Hessian of c over (e0, e1) (6 x 6): c = |e0|^2 |e1|^2 - (e0.e1)^2
    double E0[3] = {e0.x, e0.y, e0.z}, E1[3] = {e1.x, e1.y, e1.z};
    double d01 = alcm_v3_dot(e0, e1), n0 = alcm_v3_norm2(e0), n1 = alcm_v3_norm2(e1);
    double Hc[6][6];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double id = i == j ? 1.0 : 0.0;
            Hc[i][j] = 2 * n1 * id - 2 * E1[i] * E1[j];
            Hc[3 + i][3 + j] = 2 * n0 * id - 2 * E0[i] * E0[j];
            Hc[i][3 + j] = 4 * E0[i] * E1[j] - 2 * E1[i] * E0[j] - 2 * d01 * id;
            Hc[3 + j][i] = Hc[i][3 + j];
        }
    }
    // chain rule to the stencil: e0 = v1 - v0, e1 = v3 - v2
    static const double sgn[4] = {-1, 1, -1, 1};
    for (int a = 0; a < 4; a++) {
        for (int b = 0; b < 4; b++) {
            int ea = a / 2, eb = b / 2;
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) {
                    H[(3 * a + i) * 12 + 3 * b + j] =
                        m2 * dc[3 * a + i] * dc[3 * b + j] +
                        m1 * sgn[a] * sgn[b] * Hc[3 * ea + i][3 * eb + j];
                }
            }
        }
    }
    return m;
}

/// Project a symmetric n x n matrix (row-major, n <= 12) onto the positive semidefinite cone in
/// place: eigen-decomposition by cyclic Jacobi sweeps, negative eigenvalues clamped to zero.
ALC_HD void alcm_projectPsd(double* A, int n) {
    double V[144], D[144];
    for (int i = 0; i < n * n; i++) D[i] = A[i];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) V[i * n + j] = i == j ? 1.0 : 0.0;
    for (int sweep = 0; sweep < 50; sweep++) {
        double off = 0, diag = 0;
        for (int i = 0; i < n; i++) {
            diag += D[i * n + i] * D[i * n + i];
            for (int j = i + 1; j < n; j++) off += D[i * n + j] * D[i * n + j];
        }
        if (off <= 1e-30 * diag || off == 0) break;
        for (int p = 0; p < n; p++) {
            for (int q = p + 1; q < n; q++) {
                double apq = D[p * n + q];
                if (apq == 0) continue;
                double theta = (D[q * n + q] - D[p * n + p]) / (2 * apq);
                double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < n; k++) {  // D := J^T D J
                    double dkp = D[k * n + p], dkq = D[k * n + q];
                    D[k * n + p] = c * dkp - s * dkq;
                    D[k * n + q] = s * dkp + c * dkq;
                }
                for (int k = 0; k < n; k++) {
                    double dpk = D[p * n + k], dqk = D[q * n + k];
                    D[p * n + k] = c * dpk - s * dqk;
                    D[q * n + k] = s * dpk + c * dqk;
                }
                for (int k = 0; k < n; k++) {  // V := V J
                    double vkp = V[k * n + p], vkq = V[k * n + q];
                    V[k * n + p] = c * vkp - s * vkq;
                    V[k * n + q] = s * vkp + c * vkq;
                }
            }
        }
    }
    int negative = 0;
    for (int i = 0; i < n; i++) negative |= D[i * n + i] < 0;
    if (!negative) return;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double a = 0;
            for (int k = 0; k < n; k++) {
                double l = D[k * n + k];
                if (l > 0) a += V[i * n + k] * l * V[j * n + k];
            }
            A[i * n + j] = a;
        }
    }
}

#endif  // ALC_HD_ALCM_BARRIER_H_
