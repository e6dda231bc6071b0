// The AL active set on the device (cuda/active_set.h): UpdateActiveSet (AL paper Alg. 3) and the
// linearization of Eq. 10 (papers/barrier-free-al-elastodynamics.txt).
//
// The merge never sorts: C and the candidates arrive in strictly ascending key order, and the
// two lists are disjoint once the candidates already in C are dropped, so the place of an item
// in the merged list is its rank among the kept items of its own list plus the number of kept
// items of the other list with a smaller key (a binary search, then a prefix sum). All of it
// runs on one index space, t in [0, npair) for C and npair + c for candidate c, with one flag
// array and one exclusive scan. The per-vertex earliest toi is an atomic minimum, which does
// not depend on the order the threads reach it, so the result is the same on every run.
#include "active_set.h"
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "hd/alcm_distance.h"
#include "hd/alcm_elastic.h"
#include "hd/alcm_pair.h"
#include "reduce.cuh"

#include <cuda_runtime.h>

#include <limits.h>
#include <math.h>

/// What the host reads back before the scatter.
typedef struct MergeResult_ {
    int unsorted;  // a key not strictly above the one before it (C or candidates)
    int nold;      // survivors of C
    int total;     // merged pairs
} MergeResult;

/// Number of items of a (n, strictly ascending keys) with a key below `key`.
template <typename T>
static __device__ __forceinline__ int lowerBound(const T* a, int n, long long key) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/// Candidates not in C (line 5, "not already active"), the per-vertex minimum reset at their
/// vertices, and the order check of both lists.
static __global__ void activeSet_newKernel(const alcgPair* d_pairs, int npair,
                                           const alcgCand* d_cand, int ncand, int* d_isNew,
                                           double* d_vmin, MergeResult* d_res) {
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (t < npair && t > 0 && !(d_pairs[t - 1].key < d_pairs[t].key)) {
        atomicOr(&d_res->unsorted, 1);
    }
    if (t >= ncand) return;
    long long key = d_cand[t].key;
    if (t > 0 && !(d_cand[t - 1].key < key)) atomicOr(&d_res->unsorted, 1);
    int i = lowerBound(d_pairs, npair, key);
    int isNew = !(i < npair && d_pairs[i].key == key);
    d_isNew[t] = isNew;
    if (!isNew) return;
    // a plain store: every thread that writes a vertex writes the same value, and an atomic
    // exchange would read the scratch's old, possibly never written, value (initcheck)
    for (int a = 0; a < 4; a++) d_vmin[d_cand[t].v[a]] = INFINITY;
}

/// Earliest toi among the new pairs at each of their vertices (Alg. 3 lines 7-9).
static __global__ void activeSet_vertexMinKernel(const alcgCand* d_cand, int ncand,
                                                 const int* d_isNew, double* d_vmin) {
    int c = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (c >= ncand || !d_isNew[c]) return;
    for (int a = 0; a < 4; a++) alcg_atomicMinNonNeg(&d_vmin[d_cand[c].v[a]], d_cand[c].toi);
}

/// Keep flags over the joint index space and their per-block counts: a pair of C survives
/// unless gamma < removeBelow (lines 16-20); a new pair is kept when it is the earliest at one
/// of its vertices (lines 10-15); the last item (t = npair + ncand) is a zero pad.
static __global__ void activeSet_flagKernel(const alcgPair* d_pairs, int npair,
                                            const alcgCand* d_cand, int ncand, const int* d_isNew,
                                            const double* d_vmin, double removeBelow, int* d_flag,
                                            int* d_blockCount) {
    __shared__ int red[ALCG_WARP];
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int m = npair + ncand + 1;
    int keep = 0;
    if (t < npair) {
        keep = !(d_pairs[t].gamma < removeBelow);
    } else if (t < npair + ncand && d_isNew[t - npair]) {
        const alcgCand* C = &d_cand[t - npair];
        for (int a = 0; a < 4; a++) keep |= C->toi == d_vmin[C->v[a]];
    }
    if (t < m) d_flag[t] = keep;
    int count = alcg_blockSum(keep, red);
    if (threadIdx.x == 0) d_blockCount[blockIdx.x] = count;
}

/// One block: the block counts to exclusive offsets.
static __global__ void activeSet_scanBlocksKernel(int* d_blockCount, int nblock,
                                                  MergeResult* d_res) {
    __shared__ int red[ALCG_WARP];
    alcg_blockScanArray(d_blockCount, nblock, &d_res->total, red);
}

/// Exclusive scan of the flags: rank of each item among the kept items before it (C first);
/// d_scan[npair] is the number of survivors.
static __global__ void activeSet_scanKernel(const int* d_flag, const int* d_blockOffset, int npair,
                                            int m, int* d_scan, MergeResult* d_res) {
    __shared__ int red[ALCG_WARP];
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int keep = t < m ? d_flag[t] : 0;
    int rank = d_blockOffset[blockIdx.x] + alcg_blockScanExclusive(keep, NULL, red);
    if (t < m) d_scan[t] = rank;
    if (t == npair) d_res->nold = rank;
}

/// Each kept item to its place in key order: its rank in its own list plus the kept items of
/// the other list with smaller keys.
static __global__ void activeSet_scatterKernel(const alcgPair* d_pairs, int npair,
                                               const alcgCand* d_cand, int ncand, const int* d_flag,
                                               const int* d_scan, alcgPair* d_out) {
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (t >= npair + ncand || !d_flag[t]) return;
    int nold = d_scan[npair];
    if (t < npair) {
        // a survivor: every field as it was
        int j = lowerBound(d_cand, ncand, d_pairs[t].key);
        d_out[d_scan[t] + d_scan[npair + j] - nold] = d_pairs[t];
        return;
    }
    // a new pair: lambda = 0, gamma = 1, the rest zero
    const alcgCand* C = &d_cand[t - npair];
    int i = lowerBound(d_pairs, npair, C->key);
    alcgPair P;
    memset(&P, 0, sizeof P);
    P.key = C->key;
    P.type = C->type;
    for (int a = 0; a < 4; a++) P.v[a] = C->v[a];
    P.lambda = 0;
    P.gamma = 1;
    d_out[d_scan[t] - nold + d_scan[i]] = P;
}

/// d and grad d at X per pair (Eq. 10); a guard's from its tetrahedron's volume.
static __global__ void activeSet_linearizeKernel(const double* d_x, alcgPair* d_pairs, int npair,
                                                 const double* d_tetVol, double fraction,
                                                 double delta) {
    int p = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (p >= npair) return;
    alcgPair* P = &d_pairs[p];
    alcV3 x[4];
    for (int a = 0; a < 4; a++) x[a] = alcm_v3_load(d_x + 3 * P->v[a]);
    if (P->type == ALC_PAIR_TETGUARD) {
        int t = (int)(P->key - ALC_PAIR_GUARD_KEY(0));
        P->d = alcm_tet_guardLinearize(x, d_tetVol[t], fraction, delta, P->g);
        return;
    }
    P->d = P->type == ALC_PAIR_PT ? alcm_pt_distance(x, P->g) : alcm_ee_distance(x, P->g);
}

/// One thread: the first pair whose key is not negative (the number of guards).
static __global__ void activeSet_countGuardsKernel(const alcgPair* d_pairs, int npair, int* d_out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    int lo = 0, hi = npair;
    while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (d_pairs[mid].key < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    *d_out = lo;
}

extern "C" alctStatus alcg_activeSet_merge(const alcgPair* d_pairs, int npair,
                                           const alcgCand* d_cand, int ncand, int nvert,
                                           double removeBelow, alcgPair* d_out, int cap,
                                           int* nactive, int* changed, void* d_temp,
                                           size_t* temp_bytes, alcgStream* s) {
    ALCG_RANGE("alcg_activeSet_merge");
    int m = 0;
    unsigned nblock = 0, nfirst = 0;
    size_t end = 0, offNew = 0, offFlag = 0, offScan = 0, offCount = 0, offVmin = 0, offRes = 0;
    int *d_isNew = NULL, *d_flag = NULL, *d_scan = NULL, *d_blockCount = NULL;
    double* d_vmin = NULL;
    MergeResult* d_res = NULL;
    MergeResult res = {0, 0, 0};
    // arguments
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!temp_bytes || npair < 0 || ncand < 0 || nvert < 0 || cap < 0) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument or negative size");
    }
    if ((long long)npair + ncand + 1 > INT_MAX) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "%d pairs and %d candidates exceed INT_MAX", npair,
                         ncand);
    }
    m = npair + ncand + 1;
    // scratch: new flags, keep flags and their scan, block counts, per-vertex minima, result
    nblock = alcg_blocks(m, ALCG_BLOCK);
    nfirst = alcg_blocks(npair > ncand ? npair : ncand, ALCG_BLOCK);
    offNew = alcg_tempSlot(&end, sizeof(int) * (size_t)ncand);
    offFlag = alcg_tempSlot(&end, sizeof(int) * (size_t)m);
    offScan = alcg_tempSlot(&end, sizeof(int) * (size_t)m);
    offCount = alcg_tempSlot(&end, sizeof(int) * nblock);
    offVmin = alcg_tempSlot(&end, sizeof(double) * (size_t)nvert);
    offRes = alcg_tempSlot(&end, sizeof(MergeResult));
    if (!d_temp) {
        *temp_bytes = end;
        return ALC_OK;
    }
    if (*temp_bytes < end) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "scratch of %zu bytes, %zu needed", *temp_bytes,
                         end);
    }
    if (!nactive || (npair > 0 && !d_pairs) || (ncand > 0 && !d_cand) || (cap > 0 && !d_out)) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL device array");
    }
    if (d_out && d_pairs && d_out < d_pairs + npair && d_pairs < d_out + cap) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "d_out overlaps d_pairs");
    }
    d_isNew = (int*)((char*)d_temp + offNew);
    d_flag = (int*)((char*)d_temp + offFlag);
    d_scan = (int*)((char*)d_temp + offScan);
    d_blockCount = (int*)((char*)d_temp + offCount);
    d_vmin = (double*)((char*)d_temp + offVmin);
    d_res = (MergeResult*)((char*)d_temp + offRes);
    ALCG_CUDA_TRY(s, cudaMemsetAsync(d_res, 0, sizeof(MergeResult), (cudaStream_t)s->stream));
    // new pairs and the per-vertex earliest toi among them (lines 5-9)
    ALCG_LAUNCH(activeSet_newKernel, nfirst, ALCG_BLOCK, 0, s->stream, d_pairs, npair, d_cand,
                ncand, d_isNew, d_vmin, d_res);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(activeSet_vertexMinKernel, alcg_blocks(ncand, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                d_cand, ncand, d_isNew, d_vmin);
    ALCG_LAUNCH_CHECK(s);
    // keep flags (lines 10-20) and their exclusive scan
    ALCG_LAUNCH(activeSet_flagKernel, nblock, ALCG_BLOCK, 0, s->stream, d_pairs, npair, d_cand,
                ncand, d_isNew, d_vmin, removeBelow, d_flag, d_blockCount);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(activeSet_scanBlocksKernel, 1, ALCG_BLOCK, 0, s->stream, d_blockCount, (int)nblock,
                d_res);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(activeSet_scanKernel, nblock, ALCG_BLOCK, 0, s->stream, d_flag, d_blockCount, npair,
                m, d_scan, d_res);
    ALCG_LAUNCH_CHECK(s);
    if (alcg_download(s, &res, d_res, sizeof res) != ALC_OK) return ALC_ERR_CUDA;
    if (res.unsorted) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "pair or candidate keys not strictly ascending");
    }
    *nactive = res.total;
    if (changed) *changed = res.nold < npair || res.total > res.nold;
    if (res.total > cap) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d active pairs exceed capacity %d", res.total, cap);
    }
    // the merged set in key order
    ALCG_LAUNCH(activeSet_scatterKernel, alcg_blocks(npair + ncand, ALCG_BLOCK), ALCG_BLOCK, 0,
                s->stream, d_pairs, npair, d_cand, ncand, d_flag, d_scan, d_out);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_activeSet_linearize(const double* d_x, alcgPair* d_pairs, int npair,
                                               const double* d_tetVol, double fraction,
                                               double delta, alcgStream* s) {
    ALCG_RANGE("alcg_activeSet_linearize");
    if (!s) return ALC_ERR_INVALID_ARG;
    if (npair < 0 || (npair > 0 && (!d_x || !d_pairs))) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL array or negative size");
    }
    if (npair == 0) return ALC_OK;
    ALCG_LAUNCH(activeSet_linearizeKernel, alcg_blocks(npair, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                d_x, d_pairs, npair, d_tetVol, fraction, delta);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_activeSet_countGuards(const alcgPair* d_pairs, int npair, int* d_scratch,
                                                 int* nguards, alcgStream* s) {
    ALCG_RANGE("alcg_activeSet_countGuards");
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!nguards || npair < 0 || (npair > 0 && (!d_pairs || !d_scratch))) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument or negative size");
    }
    *nguards = 0;
    if (npair == 0) return ALC_OK;
    ALCG_LAUNCH(activeSet_countGuardsKernel, 1, 32, 0, s->stream, d_pairs, npair, d_scratch);
    ALCG_LAUNCH_CHECK(s);
    return alcg_download(s, nguards, d_scratch, sizeof(int));
fail:
    return ALC_ERR_CUDA;
}
