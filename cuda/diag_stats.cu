// The diagonal statistics of Eq. 20 on the device (cuda/diag_stats.h): one thread per vertex
// bins its largest diagonal entry by binary exponent (integer atomics: exact), one block takes
// the maximum of the entries and walks the histogram from the top.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "diag_stats.h"
#include "reduce.cuh"

#include <cuda_runtime.h>

/// Vertex i (free): its largest diagonal entry binned; hist[ALCG_DIAG_BINS] counts the binned.
static __global__ void diag_histKernel(alcgElastic E, alcgBsr A, const unsigned char* kin,
                                       int* hist) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= E.nvert || kin[i]) return;
    const double* dg = A.d_val + 9 * (size_t)E.d_dst[E.d_diagSlot[i]];
    double vd = 0;
    for (int k = 0; k < 3; k++) vd = dg[4 * k] > vd ? dg[4 * k] : vd;
    if (!(vd > 0)) return;
    int e = 0;
    frexp(vd, &e);  // vd < 2^e
    e += ALCG_DIAG_BINS / 2;
    atomicAdd(&hist[e < 0 ? 0 : (e >= ALCG_DIAG_BINS ? ALCG_DIAG_BINS - 1 : e)], 1);
    atomicAdd(&hist[ALCG_DIAG_BINS], 1);
}

/// One block: out[0] the largest free diagonal entry, out[1] the percentile (thread 0's walk).
static __global__ void diag_finalKernel(alcgElastic E, alcgBsr A, const unsigned char* kin,
                                        const int* hist, double* out) {
    __shared__ double red[ALCG_WARP];
    double md = 0;
    for (int i = (int)threadIdx.x; i < E.nvert; i += (int)blockDim.x) {
        if (kin[i]) continue;
        const double* dg = A.d_val + 9 * (size_t)E.d_dst[E.d_diagSlot[i]];
        for (int k = 0; k < 3; k++) md = alcgOpMax()(md, dg[4 * k]);
    }
    md = alcg_blockReduce(md, alcgOpMax(), 0.0, red);
    if (threadIdx.x != 0) return;
    int nfree = hist[ALCG_DIAG_BINS];
    double q99 = 0;
    for (int b = ALCG_DIAG_BINS - 1, above = 0; b >= 0 && nfree > 0; b--) {
        above += hist[b];
        if (above > nfree / 100) {
            q99 = ldexp(1.0, b - ALCG_DIAG_BINS / 2);
            break;
        }
    }
    out[0] = md;
    out[1] = q99;
}

extern "C" alctStatus alcg_diagStats(const alcgElastic* E, const alcgBsr* A,
                                     const unsigned char* d_kin, int* d_scratch, double* d_out,
                                     double* maxDiag, double* q99, alcgStream* s) {
    ALCG_RANGE("alcg_diagStats");
    double out[2] = {0, 0};
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!E || !A || !maxDiag || !q99 || !d_scratch || !d_out || A->n != E->nvert ||
        E->boundN != E->nvert) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad argument (the matrix must be bound)");
    }
    if (E->nvert > 0) {
        ALCG_CUDA_TRY(s, cudaMemsetAsync(d_scratch, 0, sizeof(int) * ALCG_DIAG_SCRATCH,
                                         (cudaStream_t)s->stream));
        ALCG_LAUNCH(diag_histKernel, alcg_blocks(E->nvert, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                    *E, *A, d_kin, d_scratch);
        ALCG_LAUNCH_CHECK(s);
        ALCG_LAUNCH(diag_finalKernel, 1, ALCG_BLOCK, 0, s->stream, *E, *A, d_kin, d_scratch, d_out);
        ALCG_LAUNCH_CHECK(s);
        if (alcg_download(s, out, d_out, sizeof out) != ALC_OK) return ALC_ERR_CUDA;
    }
    *maxDiag = out[0];
    *q99 = out[1];
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
