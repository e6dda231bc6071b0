// Reductions and scans, written once for every kernel that reduces (STYLE.md, anti-patterns:
// no copy-pasted warp reductions). Included by cuda/*.cu after alcg_kernel.cuh.
//
// Rules shared by every helper here:
//   - every thread of the block calls the block helpers, in uniform control flow: a tail thread
//     (past the end of its data) passes the neutral value instead of returning early, so the
//     full-mask shuffles and the barriers see every lane;
//   - blocks are whole warps (blockDim.x a multiple of ALCG_WARP, at most ALCG_WARP^2);
//   - `smem` is __shared__ scratch of at least ALCG_WARP elements of the helper's type, which
//     the helper may overwrite; it ends with a barrier, so the scratch may be reused at once.
#ifndef ALC_CUDA_REDUCE_CUH_
#define ALC_CUDA_REDUCE_CUH_

#include "alcg_kernel.cuh"

#include <cuda_runtime.h>

/// Lanes of a warp.
#define ALCG_WARP 32

/// Binary operators of the reductions: minimum, sum and maximum.
struct alcgOpMin {
    template <typename T>
    __device__ __forceinline__ T operator()(T a, T b) const {
        return b < a ? b : a;
    }
};
struct alcgOpSum {
    template <typename T>
    __device__ __forceinline__ T operator()(T a, T b) const {
        return a + b;
    }
};
/// Maximum (for NaN-free values).
struct alcgOpMax {
    template <typename T>
    __device__ __forceinline__ T operator()(T a, T b) const {
        return b > a ? b : a;
    }
};

/// Reduce v over the 32 lanes of the warp with op; the result is valid in lane 0.
/// Every lane of the warp must call it (full mask).
template <typename T, typename Op>
__device__ __forceinline__ T alcg_warpReduce(T v, Op op) {
    for (int off = ALCG_WARP / 2; off > 0; off /= 2) {
        v = op(v, __shfl_down_sync(ALCG_FULL_MASK, v, off));
    }
    return v;
}

template <typename T>
__device__ __forceinline__ T alcg_warpMin(T v) {
    return alcg_warpReduce(v, alcgOpMin());
}
template <typename T>
__device__ __forceinline__ T alcg_warpSum(T v) {
    return alcg_warpReduce(v, alcgOpSum());
}

/// Reduce v with op within each aligned group of `group` consecutive threads (a whole number of
/// warps that divides blockDim.x); the result is valid in each group's first thread. The tree
/// is that of alcg_blockReduce over a block of `group` threads, so one block of k groups
/// reproduces the reductions of k such blocks bit for bit. smem: ALCG_WARP elements of
/// __shared__ scratch (see the file comment).
template <typename T, typename Op>
__device__ __forceinline__ T alcg_groupReduce(T v, Op op, T identity, T* smem, int group) {
    int lane = (int)threadIdx.x % ALCG_WARP, warp = (int)threadIdx.x / ALCG_WARP;
    int gwarp = group / ALCG_WARP;
    // each warp to one value, then each group's first warp over its group's values
    v = alcg_warpReduce(v, op);
    if (lane == 0) smem[warp] = v;
    __syncthreads();
    if (warp % gwarp == 0) {
        v = lane < gwarp ? smem[warp + lane] : identity;
        v = alcg_warpReduce(v, op);
    }
    __syncthreads();
    return v;
}

/// Reduce v over the block with op (identity: the neutral element); the result is valid in
/// thread 0. smem: ALCG_WARP elements of __shared__ scratch (see the file comment).
template <typename T, typename Op>
__device__ __forceinline__ T alcg_blockReduce(T v, Op op, T identity, T* smem) {
    int nwarp = ((int)blockDim.x + ALCG_WARP - 1) / ALCG_WARP;
    return alcg_groupReduce(v, op, identity, smem, nwarp * ALCG_WARP);
}

template <typename T>
__device__ __forceinline__ T alcg_blockMin(T v, T identity, T* smem) {
    return alcg_blockReduce(v, alcgOpMin(), identity, smem);
}
template <typename T>
__device__ __forceinline__ T alcg_blockSum(T v, T* smem) {
    return alcg_blockReduce(v, alcgOpSum(), (T)0, smem);
}
template <typename T>
__device__ __forceinline__ T alcg_groupSum(T v, T* smem, int group) {
    return alcg_groupReduce(v, alcgOpSum(), (T)0, smem, group);
}

/// ONE block: *d_out = the sum of d_partial[0 .. n) (the per-block partials of a multi-block
/// reduction), each thread striding over the entries, then alcg_blockSum: a fixed order for a
/// fixed launch. Launch with grid 1 and a whole-warp block.
template <typename T>
__global__ void alcg_sumPartialsKernel(const T* d_partial, int n, T* d_out) {
    __shared__ T red[ALCG_WARP];
    T e = 0;
    for (int b = (int)threadIdx.x; b < n; b += (int)blockDim.x) e += d_partial[b];
    e = alcg_blockSum(e, red);
    if (threadIdx.x == 0) *d_out = e;
}

/// Inclusive prefix sum of v over the lanes of the warp. Every lane must call it.
__device__ __forceinline__ int alcg_warpScanInclusive(int v) {
    int lane = (int)threadIdx.x % ALCG_WARP;
    for (int off = 1; off < ALCG_WARP; off *= 2) {
        int u = __shfl_up_sync(ALCG_FULL_MASK, v, off);
        if (lane >= off) v += u;
    }
    return v;
}

/// Exclusive prefix sum of v over the block in thread order; *total (nullable) receives the
/// block's sum in every thread. smem: ALCG_WARP ints of __shared__ scratch.
__device__ __forceinline__ int alcg_blockScanExclusive(int v, int* total, int* smem) {
    int lane = (int)threadIdx.x % ALCG_WARP, warp = (int)threadIdx.x / ALCG_WARP;
    int nwarp = ((int)blockDim.x + ALCG_WARP - 1) / ALCG_WARP;
    // inclusive scan in each warp, then of the warp totals in the first warp
    int inc = alcg_warpScanInclusive(v);
    if (lane == ALCG_WARP - 1) smem[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        int w = lane < nwarp ? smem[lane] : 0;
        smem[lane] = alcg_warpScanInclusive(w);  // warps 0 .. lane together
    }
    __syncthreads();
    int excl = (warp > 0 ? smem[warp - 1] : 0) + inc - v;
    if (total) *total = smem[nwarp - 1];
    __syncthreads();
    return excl;
}

/// Exclusive prefix sum of a[0 .. n) in place by ONE block (chunks of blockDim.x with a running
/// carry); *total receives the sum (written by thread 0). smem: ALCG_WARP ints of scratch.
/// For the per-block counts of a multi-block compaction (a few thousand entries at most).
__device__ __forceinline__ void alcg_blockScanArray(int* a, int n, int* total, int* smem) {
    int carry = 0;
    for (int base = 0; base < n; base += (int)blockDim.x) {
        int i = base + (int)threadIdx.x;
        int v = i < n ? a[i] : 0;
        int chunk = 0;
        int excl = alcg_blockScanExclusive(v, &chunk, smem);
        if (i < n) a[i] = carry + excl;
        carry += chunk;
    }
    if (threadIdx.x == 0) *total = carry;
}

/// Atomic minimum of a non-negative double: for x >= 0 the IEEE bit patterns order like the
/// values, so atomicMin on the unsigned 64-bit pattern is a minimum of the values (+inf is the
/// largest; any NaN pattern is larger still and never wins). -0.0 is stored as +0.0.
/// @return the old value.
__device__ __forceinline__ double alcg_atomicMinNonNeg(double* addr, double v) {
    unsigned long long bits = (unsigned long long)__double_as_longlong(v + 0.0);
    unsigned long long old = atomicMin((unsigned long long*)addr, bits);
    return __longlong_as_double((long long)old);
}

/// Offset of the next 256-byte aligned slot of `bytes` in a scratch block whose slots so far
/// end at *end (CUB-style two-phase temp: the same carving sizes and then splits d_temp).
static inline size_t alcg_tempSlot(size_t* end, size_t bytes) {
    size_t off = *end;
    *end = off + ((bytes + 255) & ~(size_t)255);
    return off;
}

#endif  // ALC_CUDA_REDUCE_CUH_
