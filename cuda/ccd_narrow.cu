// Narrow phase of the collision collection (cuda/ccd_narrow.h): one thread per broad-phase
// candidate runs additive CCD (hd/alcm_ccd.h) twice as the reference does (host/ref/ccd_ref.c):
// the conservative time of impact that bounds alpha (MaxStepSize, AL paper Alg. 1), and, for a
// pair that hits, the time it comes within xi + ALC_CCD_REACH delta, which decides whether it
// "generates an intersection" and may join the active set (AL paper Alg. 3 line 4).
//
// Three launches: evaluate (per-candidate toi and reach, per-block minimum and count), one block
// that scans the block counts and reduces the block minima, and a stable compaction (block scan
// of the flags plus the block's offset) that keeps candidate order, hence key order.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "ccd_narrow.h"
#include "hd/alcm_ccd.h"
#include "hd/alcm_pair.h"
#include "reduce.cuh"

#include <cuda_runtime.h>

#include <limits.h>

/// What the host reads back after the scan.
typedef struct NarrowResult_ {
    double minToi;  // smallest toi, at most 1
    int ncollide;   // candidates within reach
    int pad;        // zero: the host's download reads no unwritten padding (initcheck)
} NarrowResult;

/// Stencil of candidate c (PT pairs first, then EE): its vertices, kind and primitive indices.
static __device__ __forceinline__ void candStencil(const alcgCcdNarrowIn& in, int c, int v[4],
                                                   int* type, int* a, int* b) {
    if (c < in.npt) {
        int i = in.d_bpPT[2 * c], t = in.d_bpPT[2 * c + 1];
        v[0] = in.d_svert[i];
        v[1] = in.d_tri_vert[3 * t];
        v[2] = in.d_tri_vert[3 * t + 1];
        v[3] = in.d_tri_vert[3 * t + 2];
        *type = ALC_PAIR_PT;
        *a = i;
        *b = t;
    } else {
        int e0 = in.d_bpEE[2 * (c - in.npt)], e1 = in.d_bpEE[2 * (c - in.npt) + 1];
        v[0] = in.d_edge_vert[2 * e0];
        v[1] = in.d_edge_vert[2 * e0 + 1];
        v[2] = in.d_edge_vert[2 * e1];
        v[3] = in.d_edge_vert[2 * e1 + 1];
        *type = ALC_PAIR_EE;
        *a = e0;
        *b = e1;
    }
}

/// Per candidate: toi and reach (2.0 = none); per block: the smallest toi and the number of
/// candidates within reach (reach <= 1).
static __global__ void ccdNarrow_evalKernel(alcgCcdNarrowIn in, double xiReach, double* d_toi,
                                            double* d_reach, int* d_blockCount,
                                            double* d_blockMin) {
    __shared__ double redMin[ALCG_WARP];
    __shared__ int redCount[ALCG_WARP];
    int ntot = in.npt + in.nee;
    int c = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    // tail threads keep the neutral values and stay for the reductions
    double toi = 2.0, reach = 2.0;
    if (c < ntot) {
        int v[4], type, a, b;
        candStencil(in, c, v, &type, &a, &b);
        alcV3 x[4], dx[4];
        for (int k = 0; k < 4; k++) {
            x[k] = alcm_v3_load(in.d_x + 3 * v[k]);
            dx[k] = alcm_v3_sub(alcm_v3_load(in.d_xhat + 3 * v[k]), x[k]);
        }
        // the conservative time of impact, then whether the path comes within reach
        bool isEE = type == ALC_PAIR_EE;
        double t = 1, r = 1;
        double xiPair =
            alcm_pair_stepFloor(in.d_pairs, in.npair, ALC_PAIR_KEY(type, a, b), in.xi, in.delta);
        double xiStep = alcm_ccd_stepSep(x, dx, isEE, xiPair, 1.0);
        double s = alcm_ccd_capRescale(x, dx, isEE, xiStep, in.rescale, in.gapCap, 1.0);
        bool hit = isEE ? alcm_ccd_ee(x, dx, xiStep, s, 1.0, in.maxIter, &t, NULL)
                        : alcm_ccd_pt(x, dx, xiStep, s, 1.0, in.maxIter, &t, NULL);
        bool reaches = false;
        if (hit) {
            reaches =
                isEE
                    ? alcm_ccd_ee(x, dx, xiReach, ALC_CCD_REACH_RESCALE, 1.0, in.maxIter, &r, NULL)
                    : alcm_ccd_pt(x, dx, xiReach, ALC_CCD_REACH_RESCALE, 1.0, in.maxIter, &r, NULL);
        }
        toi = hit ? t : 2.0;
        reach = reaches ? r : 2.0;
        d_toi[c] = toi;
        d_reach[c] = reach;
    }
    // block minimum of toi and count within reach
    int within = c < ntot && !(reach > 1.0);
    double bmin = alcg_blockMin(toi, 2.0, redMin);
    int count = alcg_blockSum(within, redCount);
    if (threadIdx.x == 0) {
        d_blockMin[blockIdx.x] = bmin;
        d_blockCount[blockIdx.x] = count;
    }
}

/// One block: the block counts to exclusive offsets (and their total), the minimum toi.
static __global__ void ccdNarrow_scanKernel(int* d_blockCount, const double* d_blockMin, int nblock,
                                            NarrowResult* d_res) {
    __shared__ double redMin[ALCG_WARP];
    __shared__ int redScan[ALCG_WARP];
    alcg_blockScanArray(d_blockCount, nblock, &d_res->ncollide, redScan);
    // the smallest toi, 1 when none is below 1 (as the reference starts from 1)
    double m = 1.0;
    for (int i = (int)threadIdx.x; i < nblock; i += (int)blockDim.x) {
        m = alcgOpMin()(m, d_blockMin[i]);
    }
    m = alcg_blockMin(m, 1.0, redMin);
    if (threadIdx.x == 0) {
        d_res->minToi = m;
        d_res->pad = 0;
    }
}

/// Stable compaction: candidate c within reach goes to its rank among those, if below cap.
static __global__ void ccdNarrow_compactKernel(alcgCcdNarrowIn in, const double* d_reach,
                                               const int* d_blockOffset, alcgCand* d_cand,
                                               int cap) {
    __shared__ int redScan[ALCG_WARP];
    int ntot = in.npt + in.nee;
    int c = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int within = c < ntot && !(d_reach[c] > 1.0);
    int rank = d_blockOffset[blockIdx.x] + alcg_blockScanExclusive(within, NULL, redScan);
    if (!within || rank >= cap) return;
    alcgCand C;
    int a, b;
    candStencil(in, c, C.v, &C.type, &a, &b);
    C.key = ALC_PAIR_KEY(C.type, a, b);
    C.pad = 0;
    C.toi = d_reach[c];
    d_cand[rank] = C;
}

extern "C" alctStatus alcg_ccdNarrow_collect(const alcgCcdNarrowIn* in, double* d_toi,
                                             double* d_reach, alcgCand* d_cand, int cap,
                                             double* minToi, int* ncollide, void* d_temp,
                                             size_t* temp_bytes, alcgStream* s) {
    ALCG_RANGE("alcg_ccdNarrow_collect");
    long long ntotL = 0;
    int ntot = 0;
    unsigned nblock = 0;
    size_t end = 0, offCount = 0, offMin = 0, offRes = 0;
    int* d_blockCount = NULL;
    double* d_blockMin = NULL;
    NarrowResult* d_res = NULL;
    NarrowResult res = {1.0, 0, 0};
    double xiReach = 0;
    // arguments
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!in || !temp_bytes || in->npt < 0 || in->nee < 0 || cap < 0) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument or negative size");
    }
    ntotL = (long long)in->npt + in->nee;
    if (ntotL > INT_MAX) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "%lld candidates exceed INT_MAX", ntotL);
    }
    ntot = (int)ntotL;
    // scratch: per-block counts and minima, the result
    nblock = alcg_blocks(ntot, ALCG_BLOCK);
    offCount = alcg_tempSlot(&end, sizeof(int) * nblock);
    offMin = alcg_tempSlot(&end, sizeof(double) * nblock);
    offRes = alcg_tempSlot(&end, sizeof(NarrowResult));
    if (!d_temp) {
        *temp_bytes = end;
        return ALC_OK;
    }
    if (*temp_bytes < end) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "scratch of %zu bytes, %zu needed", *temp_bytes,
                         end);
    }
    if (!minToi || !ncollide) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL result pointer");
    *minToi = 1.0;
    *ncollide = 0;
    if (ntot == 0) return ALC_OK;
    if (!d_toi || !d_reach || (cap > 0 && !d_cand) || !in->d_x || !in->d_xhat ||
        (in->npt > 0 && (!in->d_bpPT || !in->d_svert || !in->d_tri_vert)) ||
        (in->nee > 0 && (!in->d_bpEE || !in->d_edge_vert))) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL device array");
    }
    d_blockCount = (int*)((char*)d_temp + offCount);
    d_blockMin = (double*)((char*)d_temp + offMin);
    d_res = (NarrowResult*)((char*)d_temp + offRes);
    // per-candidate CCD, as alcr_ccd_collect evaluates xiReach
    xiReach = in->xi + ALC_CCD_REACH * in->delta;
    ALCG_LAUNCH(ccdNarrow_evalKernel, nblock, ALCG_BLOCK, 0, s->stream, *in, xiReach, d_toi,
                d_reach, d_blockCount, d_blockMin);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(ccdNarrow_scanKernel, 1, ALCG_BLOCK, 0, s->stream, d_blockCount, d_blockMin,
                (int)nblock, d_res);
    ALCG_LAUNCH_CHECK(s);
    // the pairs within reach, in candidate order, never past cap
    ALCG_LAUNCH(ccdNarrow_compactKernel, nblock, ALCG_BLOCK, 0, s->stream, *in, d_reach,
                d_blockCount, d_cand, cap);
    ALCG_LAUNCH_CHECK(s);
    if (alcg_download(s, &res, d_res, sizeof res) != ALC_OK) return ALC_ERR_CUDA;
    *minToi = res.minToi;
    *ncollide = res.ncollide;
    if (res.ncollide > cap) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d colliding candidates exceed capacity %d",
                         res.ncollide, cap);
    }
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
