// Block-Jacobi PCG on the device (cuda/pcg.h), the iteration of alcr_pcg_solve
// (host/ref/pcg_ref.c) in fused kernels, one thread per block row. The scalars (||b||, r.z,
// alpha, beta, the iteration count and the stop flag) live in a state struct in device memory:
// one-block kernels reduce the per-block sums and update it, and every kernel of a finished
// solve returns at once, so the host only reads the state once per ALCG_PCG_CHECK_EVERY
// iterations to decide whether to queue more.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "bsr_row.cuh"
#include "pcg.h"
#include "reduce.cuh"

#include <cuda_runtime.h>

#include <math.h>

/// The solver's scalars [device].
typedef struct PcgState_ {
    double bnorm;   ///< ||b||
    double rz;      ///< r.z of the current residual
    double alpha;   ///< step of this iteration
    double beta;    ///< direction update of this iteration
    int iters;      ///< iterations applied
    int done;       ///< nonzero once the solve has stopped
    int converged;  ///< 1 if it stopped at the tolerance (or b = 0)
    int pad;
} PcgState;

/// z_i = Minv_i r_i (3x3 row-major), summed as the reference's applyPrecond.
__device__ __forceinline__ void pcg_precond(const double* M, const double* r, double* z) {
    z[0] = M[0] * r[0] + M[1] * r[1] + M[2] * r[2];
    z[1] = M[3] * r[0] + M[4] * r[1] + M[5] * r[2];
    z[2] = M[6] * r[0] + M[7] * r[1] + M[8] * r[2];
}

__device__ __forceinline__ double pcg_dot3(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// Sum of d_part[0 .. nblock) by one block (strided, then a block reduction): valid in thread 0.
__device__ __forceinline__ double pcg_sumParts(const double* d_part, int nblock, double* smem) {
    double v = 0;
    for (int k = (int)threadIdx.x; k < nblock; k += (int)blockDim.x) v += d_part[k];
    return alcg_blockSum(v, smem);
}

/// x = 0, r = b, z = Minv r, p = z; block sums of b.b and r.z.
static __global__ void pcg_initKernel(int n, const double* d_Minv, const double* d_b, double* d_x,
                                      double* d_r, double* d_z, double* d_p, double* d_bb,
                                      double* d_rz) {
    __shared__ double red[ALCG_WARP];
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double bb = 0, rz = 0;
    if (i < n) {
        const double* b = d_b + 3 * i;
        double z[3];
        pcg_precond(d_Minv + 9 * i, b, z);
        for (int c = 0; c < 3; c++) {
            d_x[3 * i + c] = 0;
            d_r[3 * i + c] = b[c];
            d_z[3 * i + c] = z[c];
            d_p[3 * i + c] = z[c];
        }
        bb = pcg_dot3(b, b);
        rz = pcg_dot3(b, z);
    }
    bb = alcg_blockSum(bb, red);
    rz = alcg_blockSum(rz, red);
    if (threadIdx.x == 0) {
        d_bb[blockIdx.x] = bb;
        d_rz[blockIdx.x] = rz;
    }
}

/// ||b|| and r.z from the block sums; b = 0 stops at once (converged, 0 iterations).
static __global__ void pcg_startKernel(const double* d_bb, const double* d_rz, int nblock,
                                       PcgState* st) {
    __shared__ double red[ALCG_WARP];
    double bb = pcg_sumParts(d_bb, nblock, red);
    double rz = pcg_sumParts(d_rz, nblock, red);
    if (threadIdx.x == 0) {
        st->bnorm = sqrt(bb);
        st->rz = rz;
        st->alpha = 0;
        st->beta = 0;
        st->iters = 0;
        st->done = st->bnorm == 0;
        st->converged = st->done;
        st->pad = 0;
    }
}

/// q = A p; block sums of p.q.
static __global__ void pcg_spmvKernel(alcgBsr A, const double* d_p, double* d_q, double* d_pq,
                                      const PcgState* st) {
    __shared__ double red[ALCG_WARP];
    if (st->done) return;  // uniform: the whole grid stops
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double pq = 0;
    if (i < A.n) {
        double q[3];
        alcg_bsrRowMul(A, d_p, i, q);
        for (int c = 0; c < 3; c++) d_q[3 * i + c] = q[c];
        pq = pcg_dot3(d_p + 3 * i, q);
    }
    pq = alcg_blockSum(pq, red);
    if (threadIdx.x == 0) d_pq[blockIdx.x] = pq;
}

/// alpha = r.z / p.q, or a stop (not converged) where p.q <= 0: A is not positive definite
/// along p.
static __global__ void pcg_alphaKernel(const double* d_pq, int nblock, PcgState* st) {
    __shared__ double red[ALCG_WARP];
    if (st->done) return;
    double pq = pcg_sumParts(d_pq, nblock, red);
    if (threadIdx.x == 0) {
        if (!(pq > 0)) {
            st->done = 1;
            st->converged = 0;
        } else {
            st->alpha = st->rz / pq;
        }
    }
}

/// x += alpha p, r -= alpha q, z = Minv r; block sums of r.r and r.z.
static __global__ void pcg_updateKernel(int n, const double* d_Minv, const double* d_p,
                                        const double* d_q, double* d_x, double* d_r, double* d_z,
                                        double* d_rr, double* d_rz, const PcgState* st) {
    __shared__ double red[ALCG_WARP];
    if (st->done) return;
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double rr = 0, rz = 0;
    if (i < n) {
        double a = st->alpha, r[3], z[3];
        for (int c = 0; c < 3; c++) {
            d_x[3 * i + c] = a * d_p[3 * i + c] + d_x[3 * i + c];
            r[c] = -a * d_q[3 * i + c] + d_r[3 * i + c];
            d_r[3 * i + c] = r[c];
        }
        pcg_precond(d_Minv + 9 * i, r, z);
        for (int c = 0; c < 3; c++) d_z[3 * i + c] = z[c];
        rr = pcg_dot3(r, r);
        rz = pcg_dot3(r, z);
    }
    rr = alcg_blockSum(rr, red);
    rz = alcg_blockSum(rz, red);
    if (threadIdx.x == 0) {
        d_rr[blockIdx.x] = rr;
        d_rz[blockIdx.x] = rz;
    }
}

/// One more iteration applied; stop at ||r|| <= tol ||b||, else beta = r.z_new / r.z.
static __global__ void pcg_betaKernel(const double* d_rr, const double* d_rz, int nblock,
                                      double tol, PcgState* st) {
    __shared__ double red[ALCG_WARP];
    if (st->done) return;
    double rr = pcg_sumParts(d_rr, nblock, red);
    double rz = pcg_sumParts(d_rz, nblock, red);
    if (threadIdx.x == 0) {
        st->iters++;
        if (sqrt(rr) <= tol * st->bnorm) {
            st->done = 1;
            st->converged = 1;
        } else {
            st->beta = rz / st->rz;
            st->rz = rz;
        }
    }
}

/// p = z + beta p.
static __global__ void pcg_directionKernel(int n, const double* d_z, double* d_p,
                                           const PcgState* st) {
    if (st->done) return;
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    double beta = st->beta;
    for (int c = 0; c < 3; c++) d_p[3 * i + c] = d_z[3 * i + c] + beta * d_p[3 * i + c];
}

/// Queue `count` iterations (each a no-op once the state says done).
static alctStatus pcg_iterate(const alcgBsr* A, const double* d_Minv, double* d_x, double* d_r,
                              double* d_z, double* d_p, double* d_q, double* d_part0,
                              double* d_part1, PcgState* d_st, double tol, int count,
                              alcgStream* s) {
    int n = A->n;
    unsigned nblock = alcg_blocks(n, ALCG_BLOCK);
    for (int k = 0; k < count; k++) {
        ALCG_LAUNCH(pcg_spmvKernel, nblock, ALCG_BLOCK, 0, s->stream, *A, (const double*)d_p, d_q,
                    d_part0, (const PcgState*)d_st);
        ALCG_LAUNCH_CHECK(s);
        ALCG_LAUNCH(pcg_alphaKernel, 1, ALCG_BLOCK, 0, s->stream, (const double*)d_part0,
                    (int)nblock, d_st);
        ALCG_LAUNCH_CHECK(s);
        ALCG_LAUNCH(pcg_updateKernel, nblock, ALCG_BLOCK, 0, s->stream, n, d_Minv,
                    (const double*)d_p, (const double*)d_q, d_x, d_r, d_z, d_part0, d_part1,
                    (const PcgState*)d_st);
        ALCG_LAUNCH_CHECK(s);
        ALCG_LAUNCH(pcg_betaKernel, 1, ALCG_BLOCK, 0, s->stream, (const double*)d_part0,
                    (const double*)d_part1, (int)nblock, tol, d_st);
        ALCG_LAUNCH_CHECK(s);
        ALCG_LAUNCH(pcg_directionKernel, nblock, ALCG_BLOCK, 0, s->stream, n, (const double*)d_z,
                    d_p, (const PcgState*)d_st);
        ALCG_LAUNCH_CHECK(s);
    }
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_pcg_solve(const alcgBsr* A, const double* d_Minv, const double* d_b,
                                     double* d_x, double tol, int maxIter, int* iters,
                                     int* converged, void* d_temp, size_t* temp_bytes,
                                     alcgStream* s) {
    ALCG_RANGE("alcg_pcg_solve");
    size_t end = 0, offSt = 0, offPart0 = 0, offPart1 = 0, offVec = 0, N = 0;
    unsigned nblock = 0;
    PcgState* d_st = NULL;
    PcgState h = {0, 0, 0, 0, 0, 0, 0, 0};
    double *d_part0 = NULL, *d_part1 = NULL, *d_r = NULL, *d_z = NULL, *d_p = NULL, *d_q = NULL;
    // arguments
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!A || !temp_bytes || A->n < 0) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad argument");
    // scratch: the state, two arrays of block sums, r, z, p, q
    N = 3 * (size_t)A->n;
    nblock = alcg_blocks(A->n, ALCG_BLOCK);
    offSt = alcg_tempSlot(&end, sizeof(PcgState));
    offPart0 = alcg_tempSlot(&end, sizeof(double) * nblock);
    offPart1 = alcg_tempSlot(&end, sizeof(double) * nblock);
    offVec = alcg_tempSlot(&end, sizeof(double) * 4 * N);
    if (!d_temp) {
        *temp_bytes = end;
        return ALC_OK;
    }
    if (*temp_bytes < end) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "scratch of %zu bytes, %zu needed", *temp_bytes,
                         end);
    }
    if (!iters || !converged) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL result pointer");
    *iters = 0;
    *converged = 1;
    if (A->n == 0) return ALC_OK;  // ||b|| = 0
    if (!d_Minv || !d_b || !d_x) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL device array");
    d_st = (PcgState*)((char*)d_temp + offSt);
    d_part0 = (double*)((char*)d_temp + offPart0);
    d_part1 = (double*)((char*)d_temp + offPart1);
    d_r = (double*)((char*)d_temp + offVec);
    d_z = d_r + N;
    d_p = d_z + N;
    d_q = d_p + N;
    // x = 0, r = b, z = p = Minv b, and the state
    ALCG_LAUNCH(pcg_initKernel, nblock, ALCG_BLOCK, 0, s->stream, A->n, d_Minv, d_b, d_x, d_r, d_z,
                d_p, d_part0, d_part1);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(pcg_startKernel, 1, ALCG_BLOCK, 0, s->stream, (const double*)d_part0,
                (const double*)d_part1, (int)nblock, d_st);
    ALCG_LAUNCH_CHECK(s);
    // batches of iterations, the state read after each
    for (int it = 0; it < maxIter && !h.done;) {
        int count = maxIter - it < ALCG_PCG_CHECK_EVERY ? maxIter - it : ALCG_PCG_CHECK_EVERY;
        if (pcg_iterate(A, d_Minv, d_x, d_r, d_z, d_p, d_q, d_part0, d_part1, d_st, tol, count,
                        s) != ALC_OK) {
            return ALC_ERR_CUDA;
        }
        it += count;
        if (alcg_download(s, &h, d_st, sizeof h) != ALC_OK) return ALC_ERR_CUDA;
    }
    if (maxIter <= 0 && alcg_download(s, &h, d_st, sizeof h) != ALC_OK) return ALC_ERR_CUDA;
    *iters = h.iters;
    *converged = h.converged;
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
