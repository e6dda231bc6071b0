// 3-vectors and 3x3 matrices (row-major) shared by host and device code.
// Named functions, not operators, so the header compiles as C11 and as CUDA.
#ifndef ALC_HD_ALCM_VEC_H_
#define ALC_HD_ALCM_VEC_H_

#include "alcm_base.h"

typedef struct alcV3_ {
    double x, y, z;
} alcV3;

/// 3x3 matrix, row-major: m[3*i + j] is row i, column j.
typedef struct alcM3_ {
    double m[9];
} alcM3;

// clang-format off
ALC_HD alcV3 alcm_v3(double x, double y, double z) { alcV3 r = {x, y, z}; return r; }
ALC_HD alcV3 alcm_v3_load(const double* p) { alcV3 r = {p[0], p[1], p[2]}; return r; }
ALC_HD void alcm_v3_store(double* p, alcV3 a) { p[0] = a.x; p[1] = a.y; p[2] = a.z; }
ALC_HD alcV3 alcm_v3_add(alcV3 a, alcV3 b) { return alcm_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
ALC_HD alcV3 alcm_v3_sub(alcV3 a, alcV3 b) { return alcm_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
ALC_HD alcV3 alcm_v3_scale(alcV3 a, double s) { return alcm_v3(a.x * s, a.y * s, a.z * s); }
ALC_HD alcV3 alcm_v3_neg(alcV3 a) { return alcm_v3(-a.x, -a.y, -a.z); }
/// a + s*b
ALC_HD alcV3 alcm_v3_mad(alcV3 a, double s, alcV3 b) { return alcm_v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z); }
ALC_HD double alcm_v3_dot(alcV3 a, alcV3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
ALC_HD alcV3 alcm_v3_cross(alcV3 a, alcV3 b) {
    return alcm_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
ALC_HD double alcm_v3_norm2(alcV3 a) { return alcm_v3_dot(a, a); }
ALC_HD double alcm_v3_norm(alcV3 a) { return sqrt(alcm_v3_dot(a, a)); }
ALC_HD double alcm_v3_maxabs(alcV3 a) { return alcm_max(fabs(a.x), alcm_max(fabs(a.y), fabs(a.z))); }
ALC_HD alcV3 alcm_v3_min(alcV3 a, alcV3 b) { return alcm_v3(alcm_min(a.x, b.x), alcm_min(a.y, b.y), alcm_min(a.z, b.z)); }
ALC_HD alcV3 alcm_v3_max(alcV3 a, alcV3 b) { return alcm_v3(alcm_max(a.x, b.x), alcm_max(a.y, b.y), alcm_max(a.z, b.z)); }
ALC_HD double alcm_v3_get(alcV3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }
/// Unit vector along a; the zero vector stays zero.
ALC_HD alcV3 alcm_v3_normalize(alcV3 a) {
    double n = alcm_v3_norm(a);
    return n > 0 ? alcm_v3_scale(a, 1.0 / n) : a;
}
/// Scalar triple product a . (b x c).
ALC_HD double alcm_v3_triple(alcV3 a, alcV3 b, alcV3 c) { return alcm_v3_dot(a, alcm_v3_cross(b, c)); }

ALC_HD alcM3 alcm_m3_zero(void) { alcM3 r = {{0, 0, 0, 0, 0, 0, 0, 0, 0}}; return r; }
ALC_HD alcM3 alcm_m3_identity(void) { alcM3 r = {{1, 0, 0, 0, 1, 0, 0, 0, 1}}; return r; }
ALC_HD alcM3 alcm_m3_diag(double a, double b, double c) { alcM3 r = {{a, 0, 0, 0, b, 0, 0, 0, c}}; return r; }
ALC_HD alcM3 alcm_m3_load(const double* p) { alcM3 r; for (int i = 0; i < 9; i++) r.m[i] = p[i]; return r; }
ALC_HD void alcm_m3_store(double* p, alcM3 a) { for (int i = 0; i < 9; i++) p[i] = a.m[i]; }
/// Matrix whose columns are a, b, c.
ALC_HD alcM3 alcm_m3_cols(alcV3 a, alcV3 b, alcV3 c) {
    alcM3 r = {{a.x, b.x, c.x, a.y, b.y, c.y, a.z, b.z, c.z}}; return r;
}
ALC_HD alcV3 alcm_m3_col(alcM3 a, int j) { return alcm_v3(a.m[j], a.m[3 + j], a.m[6 + j]); }
ALC_HD alcV3 alcm_m3_row(alcM3 a, int i) { return alcm_v3(a.m[3 * i], a.m[3 * i + 1], a.m[3 * i + 2]); }
ALC_HD alcM3 alcm_m3_add(alcM3 a, alcM3 b) { alcM3 r; for (int i = 0; i < 9; i++) r.m[i] = a.m[i] + b.m[i]; return r; }
ALC_HD alcM3 alcm_m3_sub(alcM3 a, alcM3 b) { alcM3 r; for (int i = 0; i < 9; i++) r.m[i] = a.m[i] - b.m[i]; return r; }
ALC_HD alcM3 alcm_m3_scale(alcM3 a, double s) { alcM3 r; for (int i = 0; i < 9; i++) r.m[i] = a.m[i] * s; return r; }
ALC_HD alcM3 alcm_m3_transpose(alcM3 a) {
    alcM3 r = {{a.m[0], a.m[3], a.m[6], a.m[1], a.m[4], a.m[7], a.m[2], a.m[5], a.m[8]}}; return r;
}
// clang-format on
ALC_HD alcM3 alcm_m3_mul(alcM3 a, alcM3 b) {
    alcM3 r;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            r.m[3 * i + j] =
                a.m[3 * i] * b.m[j] + a.m[3 * i + 1] * b.m[3 + j] + a.m[3 * i + 2] * b.m[6 + j];
        }
    }
    return r;
}
/// a * b^T
ALC_HD alcM3 alcm_m3_mulT(alcM3 a, alcM3 b) {
    return alcm_m3_mul(a, alcm_m3_transpose(b));
}
/// a^T * b
ALC_HD alcM3 alcm_m3_Tmul(alcM3 a, alcM3 b) {
    return alcm_m3_mul(alcm_m3_transpose(a), b);
}
ALC_HD alcV3 alcm_m3_mulv(alcM3 a, alcV3 v) {
    return alcm_v3(a.m[0] * v.x + a.m[1] * v.y + a.m[2] * v.z,
                   a.m[3] * v.x + a.m[4] * v.y + a.m[5] * v.z,
                   a.m[6] * v.x + a.m[7] * v.y + a.m[8] * v.z);
}
/// a^T * v
ALC_HD alcV3 alcm_m3_Tmulv(alcM3 a, alcV3 v) {
    return alcm_v3(a.m[0] * v.x + a.m[3] * v.y + a.m[6] * v.z,
                   a.m[1] * v.x + a.m[4] * v.y + a.m[7] * v.z,
                   a.m[2] * v.x + a.m[5] * v.y + a.m[8] * v.z);
}
/// Outer product a b^T.
ALC_HD alcM3 alcm_m3_outer(alcV3 a, alcV3 b) {
    alcM3 r = {{a.x * b.x, a.x * b.y, a.x * b.z, a.y * b.x, a.y * b.y, a.y * b.z, a.z * b.x,
                a.z * b.y, a.z * b.z}};
    return r;
}
ALC_HD double alcm_m3_det(alcM3 a) {
    return a.m[0] * (a.m[4] * a.m[8] - a.m[5] * a.m[7]) -
           a.m[1] * (a.m[3] * a.m[8] - a.m[5] * a.m[6]) +
           a.m[2] * (a.m[3] * a.m[7] - a.m[4] * a.m[6]);
}
ALC_HD double alcm_m3_trace(alcM3 a) {
    return a.m[0] + a.m[4] + a.m[8];
}
/// Frobenius inner product sum_ij a_ij b_ij.
ALC_HD double alcm_m3_ddot(alcM3 a, alcM3 b) {
    double s = 0;
    for (int i = 0; i < 9; i++) s += a.m[i] * b.m[i];
    return s;
}
/// Inverse of a; returns false (and leaves *out unset) when |det| <= tiny * |a|^3.
ALC_HD bool alcm_m3_inverse(alcM3 a, alcM3* out) {
    double c00 = a.m[4] * a.m[8] - a.m[5] * a.m[7];
    double c01 = a.m[5] * a.m[6] - a.m[3] * a.m[8];
    double c02 = a.m[3] * a.m[7] - a.m[4] * a.m[6];
    double det = a.m[0] * c00 + a.m[1] * c01 + a.m[2] * c02;
    double scale = 0;
    for (int i = 0; i < 9; i++) scale = alcm_max(scale, fabs(a.m[i]));
    if (!(fabs(det) > 1e-300) || fabs(det) <= 1e-14 * scale * scale * scale) return false;
    double id = 1.0 / det;
    alcM3 r = {{c00 * id, (a.m[2] * a.m[7] - a.m[1] * a.m[8]) * id,
                (a.m[1] * a.m[5] - a.m[2] * a.m[4]) * id, c01 * id,
                (a.m[0] * a.m[8] - a.m[2] * a.m[6]) * id, (a.m[2] * a.m[3] - a.m[0] * a.m[5]) * id,
                c02 * id, (a.m[1] * a.m[6] - a.m[0] * a.m[7]) * id,
                (a.m[0] * a.m[4] - a.m[1] * a.m[3]) * id}};
    *out = r;
    return true;
}

#endif  // ALC_HD_ALCM_VEC_H_
