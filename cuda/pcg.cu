// Block-Jacobi PCG on the device (cuda/pcg.h), the iteration of alcr_pcg_solve
// (host/ref/pcg_ref.c), one thread per block row, on two paths that give the same bits:
//   - grid: three launches per iteration over ceil(n / ALCG_BLOCK) blocks. Each kernel that
//     ends in a dot product leaves one partial per block, and the block that finishes last (a
//     ticket counter after a fence) sums the partials and updates the solver's scalars (||b||,
//     r.z, alpha, beta, the count, the stop flag) in a state struct in device memory. Every
//     kernel of a finished solve returns at once, so the host reads the state once per
//     ALCG_PCG_CHECK_EVERY iterations to decide whether to queue more.
//   - one block: the whole solve in one launch for a small matrix, its groups of ALCG_BLOCK
//     threads standing in for the grid's blocks (alcg_groupSum reduces each group in the tree
//     alcg_blockSum uses for a block), barriers for the launches, the scalars in shared memory.
// A small kernel costs microseconds whatever its size, its launch and its chain of dependent
// memory accesses: on the H100 the grid path pays 23-35 µs an iteration up to 16k rows, the
// one-block path 7-20 µs up to 640 (bench/results/h100-80gb-hbm3/pcg-launches/). The rows of
// kinematic vertices (d_diagOnly) multiply their diagonal block alone.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "bsr_row.cuh"
#include "pcg.h"
#include "reduce.cuh"

#include <cuda_runtime.h>

#include <math.h>

/// Groups of ALCG_BLOCK threads in the one-block path's block (at most).
#define PCG_ONE_BLOCK_GROUPS 4
/// Block sums the one-block path holds in shared memory.
#define PCG_ONE_BLOCK_CHUNKS (ALCG_PCG_ONE_BLOCK_MAX_ROWS / ALCG_BLOCK)
/// Block rows up to which the one-block path keeps p in shared memory (24 KiB at 1024 rows,
/// within the 48 KiB a launch may take without opting in).
#define PCG_SHARED_P_ROWS 1024

/// The solver's scalars [device, or shared memory in the one-block path].
typedef struct PcgState_ {
    double bnorm;     ///< ||b||
    double rz;        ///< r.z of the current residual
    double alpha;     ///< step of this iteration
    double beta;      ///< direction update of this iteration
    int iters;        ///< iterations applied
    int done;         ///< nonzero once the solve has stopped
    int converged;    ///< 1 if it stopped at the tolerance (or b = 0)
    unsigned ticket;  ///< blocks of the running kernel that have left their partials (grid)
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

// ---- one block row of each phase (both paths) ----------------------------------------------

/// Row i of x = 0, r = b, z = Minv r, p = z; adds b.b and r.z of the row.
__device__ __forceinline__ void pcg_initRow(int i, const double* d_Minv, const double* d_b,
                                            double* d_x, double* d_r, double* d_z, double* d_p,
                                            double* bb, double* rz) {
    const double* b = d_b + 3 * i;
    double z[3];
    pcg_precond(d_Minv + 9 * i, b, z);
    for (int c = 0; c < 3; c++) {
        d_x[3 * i + c] = 0;
        d_r[3 * i + c] = b[c];
        d_z[3 * i + c] = z[c];
        d_p[3 * i + c] = z[c];
    }
    *bb = pcg_dot3(b, b);
    *rz = pcg_dot3(b, z);
}

/// Row i of q = A p; returns p_i.q_i. A row marked in d_diagOnly (nullable) multiplies its
/// diagonal block alone: its other blocks are zeros (a kinematic vertex's row, whose blocks the
/// assemblies leave zero but the pattern keeps for every contact stencil: a static obstacle's
/// vertex can hold hundreds, one thread's serial loop on the critical path of every iteration).
__device__ __forceinline__ double pcg_spmvRow(const alcgBsr& A, int i, const double* d_p,
                                              double* d_q, const unsigned char* d_diagOnly) {
    double q[3];
    if (d_diagOnly && d_diagOnly[i]) {
        alcg_bsrDiagMul(A, d_p, i, q);
    } else {
        alcg_bsrRowMul(A, d_p, i, q);
    }
    for (int c = 0; c < 3; c++) d_q[3 * i + c] = q[c];
    return pcg_dot3(d_p + 3 * i, q);
}

/// Row i of x += a p, r -= a q, z = Minv r; r.r and r.z of the row.
__device__ __forceinline__ void pcg_updateRow(int i, double a, const double* d_Minv,
                                              const double* d_p, const double* d_q, double* d_x,
                                              double* d_r, double* d_z, double* rr, double* rz) {
    double r[3], z[3];
    for (int c = 0; c < 3; c++) {
        d_x[3 * i + c] = a * d_p[3 * i + c] + d_x[3 * i + c];
        r[c] = -a * d_q[3 * i + c] + d_r[3 * i + c];
        d_r[3 * i + c] = r[c];
    }
    pcg_precond(d_Minv + 9 * i, r, z);
    for (int c = 0; c < 3; c++) d_z[3 * i + c] = z[c];
    *rr = pcg_dot3(r, r);
    *rz = pcg_dot3(r, z);
}

/// Row i of p = z + beta p.
__device__ __forceinline__ void pcg_directionRow(int i, double beta, const double* d_z,
                                                 double* d_p) {
    for (int c = 0; c < 3; c++) d_p[3 * i + c] = d_z[3 * i + c] + beta * d_p[3 * i + c];
}

// ---- the scalar steps (thread 0 of the block that holds the sums) ---------------------------

/// ||b|| and r.z from the sums; b = 0 stops at once (converged, 0 iterations).
__device__ __forceinline__ void pcg_start(PcgState* st, double bb, double rz) {
    st->bnorm = sqrt(bb);
    st->rz = rz;
    st->alpha = 0;
    st->beta = 0;
    st->iters = 0;
    st->done = st->bnorm == 0;
    st->converged = st->done;
    st->ticket = 0;
}

/// alpha = r.z / p.q, or a stop (not converged) where p.q <= 0: A is not positive definite
/// along p.
__device__ __forceinline__ void pcg_alpha(PcgState* st, double pq) {
    if (!(pq > 0)) {
        st->done = 1;
        st->converged = 0;
    } else {
        st->alpha = st->rz / pq;
    }
}

/// One more iteration applied; stop at ||r|| <= tol ||b||, else beta = r.z_new / r.z.
__device__ __forceinline__ void pcg_beta(PcgState* st, double rr, double rz, double tol) {
    st->iters++;
    if (sqrt(rr) <= tol * st->bnorm) {
        st->done = 1;
        st->converged = 1;
    } else {
        st->beta = rz / st->rz;
        st->rz = rz;
    }
}

/// Sum of part[0 .. nblock) as one block of ALCG_BLOCK threads sums it (each thread strided,
/// then alcg_blockSum's tree; threads past the first ALCG_BLOCK add nothing): valid in thread
/// 0. Volatile reads: in the grid path the partials were written by other blocks.
__device__ __forceinline__ double pcg_sumParts(const volatile double* part, int nblock,
                                               double* smem) {
    double v = 0;
    if (threadIdx.x < ALCG_BLOCK) {
        for (int k = (int)threadIdx.x; k < nblock; k += ALCG_BLOCK) v += part[k];
    }
    return alcg_groupSum(v, smem, ALCG_BLOCK);
}

// ---- grid path ----------------------------------------------------------------------------

/// After thread 0 stored its block's partials: true in every thread of the block that stored
/// last, which may then read every block's partials (threadFenceReduction's pattern: the fence
/// orders the partials before the ticket; atomicInc wraps the counter back to 0 for the next
/// kernel). flag: a __shared__ int.
__device__ __forceinline__ bool pcg_lastBlock(PcgState* st, int* flag) {
    if (threadIdx.x == 0) {
        __threadfence();
        unsigned t = atomicInc(&st->ticket, gridDim.x - 1);
        *flag = t == gridDim.x - 1;
    }
    __syncthreads();
    bool last = *flag != 0;
    if (last) __threadfence();
    return last;
}

/// x = 0, r = b, z = Minv r, p = z; block sums of b.b and r.z.
static __global__ void pcg_initKernel(int n, const double* d_Minv, const double* d_b, double* d_x,
                                      double* d_r, double* d_z, double* d_p, double* d_bb,
                                      double* d_rz) {
    __shared__ double red[ALCG_WARP];
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double bb = 0, rz = 0;
    if (i < n) pcg_initRow(i, d_Minv, d_b, d_x, d_r, d_z, d_p, &bb, &rz);
    bb = alcg_blockSum(bb, red);
    rz = alcg_blockSum(rz, red);
    if (threadIdx.x == 0) {
        d_bb[blockIdx.x] = bb;
        d_rz[blockIdx.x] = rz;
    }
}

/// The state from the block sums of the init (one block).
static __global__ void pcg_startKernel(const double* d_bb, const double* d_rz, int nblock,
                                       PcgState* st) {
    __shared__ double red[ALCG_WARP];
    double bb = pcg_sumParts(d_bb, nblock, red);
    double rz = pcg_sumParts(d_rz, nblock, red);
    if (threadIdx.x == 0) pcg_start(st, bb, rz);
}

/// q = A p with the block sums of p.q; the last block computes alpha.
static __global__ void pcg_spmvAlphaKernel(alcgBsr A, const unsigned char* d_diagOnly,
                                           const double* d_p, double* d_q, double* d_pq,
                                           PcgState* st) {
    __shared__ double red[ALCG_WARP];
    __shared__ int last;
    if (st->done) return;  // uniform: the whole grid stops
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double pq = 0;
    if (i < A.n) pq = pcg_spmvRow(A, i, d_p, d_q, d_diagOnly);
    pq = alcg_blockSum(pq, red);
    if (threadIdx.x == 0) d_pq[blockIdx.x] = pq;
    if (!pcg_lastBlock(st, &last)) return;
    pq = pcg_sumParts(d_pq, (int)gridDim.x, red);
    if (threadIdx.x == 0) pcg_alpha(st, pq);
}

/// x += alpha p, r -= alpha q, z = Minv r with the block sums of r.r and r.z; the last block
/// counts the iteration, tests the stop and computes beta.
static __global__ void pcg_updateBetaKernel(int n, const double* d_Minv, const double* d_p,
                                            const double* d_q, double* d_x, double* d_r,
                                            double* d_z, double* d_rr, double* d_rz, double tol,
                                            PcgState* st) {
    __shared__ double red[ALCG_WARP];
    __shared__ int last;
    if (st->done) return;
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double rr = 0, rz = 0;
    if (i < n) pcg_updateRow(i, st->alpha, d_Minv, d_p, d_q, d_x, d_r, d_z, &rr, &rz);
    rr = alcg_blockSum(rr, red);
    rz = alcg_blockSum(rz, red);
    if (threadIdx.x == 0) {
        d_rr[blockIdx.x] = rr;
        d_rz[blockIdx.x] = rz;
    }
    if (!pcg_lastBlock(st, &last)) return;
    rr = pcg_sumParts(d_rr, (int)gridDim.x, red);
    rz = pcg_sumParts(d_rz, (int)gridDim.x, red);
    if (threadIdx.x == 0) pcg_beta(st, rr, rz, tol);
}

/// p = z + beta p.
static __global__ void pcg_directionKernel(int n, const double* d_z, double* d_p,
                                           const PcgState* st) {
    if (st->done) return;
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n) pcg_directionRow(i, st->beta, d_z, d_p);
}

/// Queue `count` iterations (each a no-op once the state says done).
static alctStatus pcg_iterate(const alcgBsr* A, const unsigned char* d_diagOnly,
                              const double* d_Minv, double* d_x, double* d_r, double* d_z,
                              double* d_p, double* d_q, double* d_part0, double* d_part1,
                              PcgState* d_st, double tol, int count, alcgStream* s) {
    int n = A->n;
    unsigned nblock = alcg_blocks(n, ALCG_BLOCK);
    for (int k = 0; k < count; k++) {
        ALCG_LAUNCH(pcg_spmvAlphaKernel, nblock, ALCG_BLOCK, 0, s->stream, *A, d_diagOnly,
                    (const double*)d_p, d_q, d_part0, d_st);
        ALCG_LAUNCH_CHECK(s);
        ALCG_LAUNCH(pcg_updateBetaKernel, nblock, ALCG_BLOCK, 0, s->stream, n, d_Minv,
                    (const double*)d_p, (const double*)d_q, d_x, d_r, d_z, d_part0, d_part1, tol,
                    d_st);
        ALCG_LAUNCH_CHECK(s);
        ALCG_LAUNCH(pcg_directionKernel, nblock, ALCG_BLOCK, 0, s->stream, n, (const double*)d_z,
                    d_p, (const PcgState*)d_st);
        ALCG_LAUNCH_CHECK(s);
    }
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

// ---- one-block path -------------------------------------------------------------------------

/// The whole solve (init, then up to maxIter iterations) by one block of G groups of
/// ALCG_BLOCK threads; group g takes the chunks of ALCG_BLOCK rows g, g + G, ..., and chunk c's
/// sums are those block c computes in the grid path. The final state is stored in *d_st. With
/// dynamic shared memory for 3 n doubles, p lives there instead of in d_p: the product gathers
/// it from shared memory rather than from L2 (the latency chain of a small solve).
static __global__ void __launch_bounds__(PCG_ONE_BLOCK_GROUPS* ALCG_BLOCK)
    pcg_oneBlockKernel(alcgBsr A, const unsigned char* d_diagOnly, int nchunk, const double* d_Minv,
                       const double* d_b, double* d_x, double* d_r, double* d_z, double* d_p,
                       double* d_q, double tol, int maxIter, int pShared, PcgState* d_st) {
    __shared__ double red[ALCG_WARP];
    __shared__ double part0[PCG_ONE_BLOCK_CHUNKS], part1[PCG_ONE_BLOCK_CHUNKS];
    __shared__ PcgState st;
    int n = A.n, G = (int)blockDim.x / ALCG_BLOCK;
    int t = (int)threadIdx.x % ALCG_BLOCK, g = (int)threadIdx.x / ALCG_BLOCK;
    double* p = pShared ? alcg_dynamicShared<double>() : d_p;
    // x = 0, r = b, z = p = Minv b and the state
    for (int c0 = 0; c0 < nchunk; c0 += G) {
        int c = c0 + g, i = c * ALCG_BLOCK + t;
        double bb = 0, rz = 0;
        if (c < nchunk && i < n) pcg_initRow(i, d_Minv, d_b, d_x, d_r, d_z, p, &bb, &rz);
        bb = alcg_groupSum(bb, red, ALCG_BLOCK);
        rz = alcg_groupSum(rz, red, ALCG_BLOCK);
        if (t == 0 && c < nchunk) {
            part0[c] = bb;
            part1[c] = rz;
        }
    }
    __syncthreads();
    double s0 = pcg_sumParts(part0, nchunk, red);
    double s1 = pcg_sumParts(part1, nchunk, red);
    if (threadIdx.x == 0) pcg_start(&st, s0, s1);
    __syncthreads();
    for (int k = 0; k < maxIter && !st.done; k++) {
        // q = A p, p.q, alpha
        for (int c0 = 0; c0 < nchunk; c0 += G) {
            int c = c0 + g, i = c * ALCG_BLOCK + t;
            double pq = 0;
            if (c < nchunk && i < n) pq = pcg_spmvRow(A, i, p, d_q, d_diagOnly);
            pq = alcg_groupSum(pq, red, ALCG_BLOCK);
            if (t == 0 && c < nchunk) part0[c] = pq;
        }
        __syncthreads();
        s0 = pcg_sumParts(part0, nchunk, red);
        if (threadIdx.x == 0) pcg_alpha(&st, s0);
        __syncthreads();
        if (st.done) break;
        // x, r, z; r.r, r.z; the stop and beta
        double a = st.alpha;
        for (int c0 = 0; c0 < nchunk; c0 += G) {
            int c = c0 + g, i = c * ALCG_BLOCK + t;
            double rr = 0, rz = 0;
            if (c < nchunk && i < n) pcg_updateRow(i, a, d_Minv, p, d_q, d_x, d_r, d_z, &rr, &rz);
            rr = alcg_groupSum(rr, red, ALCG_BLOCK);
            rz = alcg_groupSum(rz, red, ALCG_BLOCK);
            if (t == 0 && c < nchunk) {
                part0[c] = rr;
                part1[c] = rz;
            }
        }
        __syncthreads();
        s0 = pcg_sumParts(part0, nchunk, red);
        s1 = pcg_sumParts(part1, nchunk, red);
        if (threadIdx.x == 0) pcg_beta(&st, s0, s1, tol);
        __syncthreads();
        if (st.done) break;
        // p = z + beta p, complete before the next product reads it
        double beta = st.beta;
        for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x) {
            pcg_directionRow(i, beta, d_z, p);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) *d_st = st;
}

extern "C" alctStatus alcg_pcg_solveWith(const alcgBsr* A, const double* d_Minv, const double* d_b,
                                         double* d_x, double tol, int maxIter, int oneBlockRows,
                                         const unsigned char* d_diagOnly, int* iters,
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
    if (A->n <= oneBlockRows && A->n <= ALCG_PCG_ONE_BLOCK_MAX_ROWS) {
        // the whole solve in one launch, one group of ALCG_BLOCK threads per chunk of rows up
        // to PCG_ONE_BLOCK_GROUPS
        int groups = (int)nblock < PCG_ONE_BLOCK_GROUPS ? (int)nblock : PCG_ONE_BLOCK_GROUPS;
        int pShared = A->n <= PCG_SHARED_P_ROWS;
        size_t smem = pShared ? sizeof(double) * N : 0;
        ALCG_LAUNCH(pcg_oneBlockKernel, 1, groups * ALCG_BLOCK, smem, s->stream, *A, d_diagOnly,
                    (int)nblock, d_Minv, d_b, d_x, d_r, d_z, d_p, d_q, tol, maxIter, pShared, d_st);
        ALCG_LAUNCH_CHECK(s);
        if (alcg_download(s, &h, d_st, sizeof h) != ALC_OK) return ALC_ERR_CUDA;
        *iters = h.iters;
        *converged = h.converged;
        return ALC_OK;
    }
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
        if (pcg_iterate(A, d_diagOnly, d_Minv, d_x, d_r, d_z, d_p, d_q, d_part0, d_part1, d_st, tol,
                        count, s) != ALC_OK) {
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

extern "C" alctStatus alcg_pcg_solve(const alcgBsr* A, const double* d_Minv, const double* d_b,
                                     double* d_x, double tol, int maxIter, int* iters,
                                     int* converged, void* d_temp, size_t* temp_bytes,
                                     alcgStream* s) {
    return alcg_pcg_solveWith(A, d_Minv, d_b, d_x, tol, maxIter, ALCG_PCG_ONE_BLOCK_ROWS, NULL,
                              iters, converged, d_temp, temp_bytes, s);
}
