// The carry-along placement of moving boundaries on the device (cuda/kin_carry.h).
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "hd/alcm_kincarry.h"
#include "kin_carry.h"
#include "reduce.cuh"

#include <cuda_runtime.h>

#include <string.h>

static __global__ void kinCarry_initKernel(int n, int* level, double* carry) {
    int v = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (v >= n) return;
    level[v] = ALCM_KIN_CARRY_UNSET;
    carry[3 * v] = 0;
    carry[3 * v + 1] = 0;
    carry[3 * v + 2] = 0;
}

/// Block per body: the mean displacement u of its kinematic vertices moves its free ones; the
/// kinematic ones keep their displacement less u to carry (level 0).
static __global__ void kinCarry_bodyKernel(alcgBodies B, const unsigned char* kin,
                                           const double* xhat, const double* target, double* trial,
                                           int* level, double* carry) {
    __shared__ double red[ALCG_WARP];
    __shared__ double u[4];
    int b = (int)blockIdx.x;
    int v0 = B.d_vertadr[b], nv = B.d_vertnum[b];
    double s[4] = {0, 0, 0, 0};
    for (int v = v0 + (int)threadIdx.x; v < v0 + nv; v += (int)blockDim.x) {
        if (!kin[v]) continue;
        for (int k = 0; k < 3; k++) s[k] += target[3 * v + k] - xhat[3 * v + k];
        s[3] += 1;
    }
    for (int k = 0; k < 4; k++) {
        double t = alcg_blockSum(s[k], red);
        if (threadIdx.x == 0) u[k] = t;
    }
    __syncthreads();
    double nk = u[3];
    if (nk == 0 || nk == (double)nv) return;  // uniform per block: no barrier follows
    double m[3] = {u[0] / nk, u[1] / nk, u[2] / nk};
    for (int v = v0 + (int)threadIdx.x; v < v0 + nv; v += (int)blockDim.x) {
        for (int k = 0; k < 3; k++) {
            int i = 3 * v + k;
            if (kin[v]) {
                carry[i] = target[i] - xhat[i] - m[k];
            } else {
                trial[i] = xhat[i] + m[k];
            }
        }
        if (kin[v]) level[v] = 0;
    }
}

static __global__ void kinCarry_visitKernel(int n, int k, const int* rowptr, const int* col,
                                            int* level, double* carry) {
    int v = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (v < n) alcm_kinCarry_visit(v, k, rowptr, col, level, carry);
}

static __global__ void kinCarry_weightKernel(int n, const unsigned char* kin, const int* level,
                                             double* carry) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= 3 * n) return;
    int v = i / 3;
    carry[i] *= kin[v] ? 1.0 : alcm_kinCarry_weight(level[v]);
}

static __global__ void kinCarry_smoothKernel(int n, const int* rowptr, const int* col,
                                             const unsigned char* kin, const double* in,
                                             double* out) {
    int v = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (v < n) alcm_kinCarry_smooth(v, rowptr, col, kin, in, out);
}

static __global__ void kinCarry_addKernel(int n, const unsigned char* kin, const double* carry,
                                          double* trial) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < 3 * n && !kin[i / 3]) trial[i] += carry[i];
}

/// The sizes of alcg_kinCarry_make's arrays: rows, columns, levels, two carry buffers.
static void kinCarrySizes(int nvert, long long nnz, size_t* rowB, size_t* colB, size_t* levB,
                          size_t* carB) {
    size_t n1 = (size_t)nvert + 1;
    *rowB = sizeof(int) * n1;
    *colB = sizeof(int) * (nnz > 0 ? (size_t)nnz : 1);
    *levB = sizeof(int) * n1;
    *carB = sizeof(double) * 6 * n1;
}

extern "C" size_t alcg_kinCarry_need(int nvert, long long nnz) {
    size_t rowB = 0, colB = 0, levB = 0, carB = 0;
    kinCarrySizes(nvert, nnz, &rowB, &colB, &levB, &carB);
    return rowB + colB + levB + carB;
}

extern "C" alctStatus alcg_kinCarry_make(alcgKinCarry* K, int nvert, const int* rowptr,
                                         const int* col, alcgStream* s) {
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!K || nvert < 0 || !rowptr || (nvert > 0 && !col)) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad argument");
    }
    memset(K, 0, sizeof *K);
    K->nvert = nvert;
    size_t n1 = (size_t)nvert + 1, nnz = (size_t)rowptr[nvert];
    size_t rowB = 0, colB = 0, levB = 0, carB = 0;
    kinCarrySizes(nvert, (long long)nnz, &rowB, &colB, &levB, &carB);
    alctStatus st = alcg_malloc(s, (void**)&K->d_rowptr, rowB);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&K->d_col, colB);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&K->d_level, levB);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&K->d_carry, carB);
    if (st == ALC_OK) st = alcg_upload(s, K->d_rowptr, rowptr, sizeof(int) * n1);
    if (st == ALC_OK && nnz) st = alcg_upload(s, K->d_col, col, sizeof(int) * nnz);
    if (st != ALC_OK) {
        alcg_kinCarry_free(K);
        return st;
    }
    return ALC_OK;
}

extern "C" void alcg_kinCarry_free(alcgKinCarry* K) {
    if (!K) return;
    alcg_free(K->d_rowptr);
    alcg_free(K->d_col);
    alcg_free(K->d_level);
    alcg_free(K->d_carry);
    memset(K, 0, sizeof *K);
}

extern "C" alctStatus alcg_kinCarry_trial(alcgKinCarry* K, const alcgBodies* B,
                                          const unsigned char* d_kin, const double* d_xhat,
                                          const double* d_target, double* d_trial, alcgStream* s) {
    ALCG_RANGE("alcg_kinCarry_trial");
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!K || !B || B->nbody < 0) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad argument");
    int n = K->nvert;
    if (n == 0 || B->nbody == 0) return ALC_OK;
    unsigned gv = alcg_blocks((long long)n, ALCG_BLOCK), gc = alcg_blocks(3LL * n, ALCG_BLOCK);
    double* a = K->d_carry;
    double* b = K->d_carry + 3 * (size_t)n;
    ALCG_LAUNCH(kinCarry_initKernel, gv, ALCG_BLOCK, 0, s->stream, n, K->d_level, a);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(kinCarry_bodyKernel, (unsigned)B->nbody, ALCG_BLOCK, 0, s->stream, *B, d_kin,
                d_xhat, d_target, d_trial, K->d_level, a);
    ALCG_LAUNCH_CHECK(s);
    for (int k = 1; k <= ALCM_KIN_CARRY_RINGS; k++) {
        ALCG_LAUNCH(kinCarry_visitKernel, gv, ALCG_BLOCK, 0, s->stream, n, k, K->d_rowptr, K->d_col,
                    K->d_level, a);
        ALCG_LAUNCH_CHECK(s);
    }
    ALCG_LAUNCH(kinCarry_weightKernel, gc, ALCG_BLOCK, 0, s->stream, n, d_kin, K->d_level, a);
    ALCG_LAUNCH_CHECK(s);
    for (int it = 0; it < ALCM_KIN_CARRY_SMOOTH; it++) {
        ALCG_LAUNCH(kinCarry_smoothKernel, gv, ALCG_BLOCK, 0, s->stream, n, K->d_rowptr, K->d_col,
                    d_kin, a, b);
        ALCG_LAUNCH_CHECK(s);
        double* t = a;
        a = b;
        b = t;
    }
    ALCG_LAUNCH(kinCarry_addKernel, gc, ALCG_BLOCK, 0, s->stream, n, d_kin, a, d_trial);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
