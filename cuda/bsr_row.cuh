// Block-row helpers for the upper-stored symmetric BSR matrix of cuda/bsr.h: one block row of
// y = A x, shared by alcg_bsr_spmv (cuda/bsr.cu) and the fused SpMV of PCG (cuda/pcg.cu), and
// the search of a block in a row, shared by the contact and friction assemblies
// (cuda/al_contact.cu, cuda/friction.cu). Included after alcg_kernel.cuh.
#ifndef ALC_CUDA_BSR_ROW_CUH_
#define ALC_CUDA_BSR_ROW_CUH_

#include "bsr.h"

#include <cuda_runtime.h>

/// s += B x for one stored 3x3 block B (row-major), each component summed as alcr_bsr_spmv
/// sums it.
__device__ __forceinline__ void alcg_bsrBlockMulAdd(const double* b, const double* x, double* s) {
    s[0] += b[0] * x[0] + b[1] * x[1] + b[2] * x[2];
    s[1] += b[3] * x[0] + b[4] * x[1] + b[5] * x[2];
    s[2] += b[6] * x[0] + b[7] * x[1] + b[8] * x[2];
}

/// (A x)_i into y[0..2]: the lower blocks A_ki^T x_k (k < i, through the transpose index),
/// then the stored row A_ij x_j (j >= i), i.e. every block of row i in ascending column order,
/// each block's products summed as alcr_bsr_spmv sums them.
__device__ __forceinline__ void alcg_bsrRowMul(const alcgBsr& A, const double* x, int i,
                                               double* y) {
    double s[3] = {0, 0, 0};  // registers: y may be global memory
    // lower triangle: row i of A^T's strictly upper part
    for (int t = A.d_trowptr[i]; t < A.d_trowptr[i + 1]; t++) {
        const double* b = A.d_val + 9 * A.d_tblk[t];
        const double* xk = x + 3 * A.d_trow[t];
        s[0] += b[0] * xk[0] + b[3] * xk[1] + b[6] * xk[2];
        s[1] += b[1] * xk[0] + b[4] * xk[1] + b[7] * xk[2];
        s[2] += b[2] * xk[0] + b[5] * xk[1] + b[8] * xk[2];
    }
    // diagonal and upper triangle
    for (int k = A.d_rowptr[i]; k < A.d_rowptr[i + 1]; k++) {
        alcg_bsrBlockMulAdd(A.d_val + 9 * k, x + 3 * A.d_col[k], s);
    }
    y[0] = s[0];
    y[1] = s[1];
    y[2] = s[2];
}

/// (A x)_i of a row whose blocks but the diagonal are all zero: the diagonal block alone, first
/// in the stored row, summed as alcg_bsrRowMul sums it (the same value, up to the sign of a
/// zero).
__device__ __forceinline__ void alcg_bsrDiagMul(const alcgBsr& A, const double* x, int i,
                                                double* y) {
    double s[3] = {0, 0, 0};
    alcg_bsrBlockMulAdd(A.d_val + 9 * A.d_rowptr[i], x + 3 * i, s);
    y[0] = s[0];
    y[1] = s[1];
    y[2] = s[2];
}

/// Block index of (i, j) in A's row i (binary search over its ascending columns), or -1.
__device__ __forceinline__ int alcg_bsr_findBlock(const alcgBsr& A, int i, int j) {
    int lo = A.d_rowptr[i], end = A.d_rowptr[i + 1], hi = end;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (A.d_col[mid] < j) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < end && A.d_col[lo] == j ? lo : -1;
}

#endif  // ALC_CUDA_BSR_ROW_CUH_
