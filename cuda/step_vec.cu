// The vector operations of the AL time step on the device (cuda/step_vec.h): one thread per
// coordinate (or vertex), reductions per block then one block over the partials.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "reduce.cuh"
#include "step_vec.h"

#include <cuda_runtime.h>

static __global__ void stepVec_beginKernel(int n, const double* xin, const double* vin,
                                           const double* target, const unsigned char* kin, double h,
                                           double g0, double g1, double g2, double* xt, double* vt,
                                           double* x, double* xhat, double* xtilde) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= 3 * n) return;
    int k = i % 3;
    double g = k == 0 ? g0 : (k == 1 ? g1 : g2);
    xt[i] = xin[i];
    vt[i] = vin[i];
    x[i] = xin[i];
    if (kin[i / 3]) {
        // moving boundaries at their targets in xhat^[0] (AL paper §5.3)
        xhat[i] = target[i];
        xtilde[i] = target[i];
    } else {
        xhat[i] = xin[i];
        xtilde[i] = xin[i] + h * vin[i] + h * h * g;
    }
}

static __global__ void stepVec_axpyKernel(int N, double r, const double* p, const double* y,
                                          double* out) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < N) out[i] = y[i] + r * p[i];
}

static __global__ void stepVec_scaleKernel(int N, double a, const double* x, double* out) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < N) out[i] = a * x[i];
}

static __global__ void stepVec_advanceKernel(int N, double alpha, const double* to, double* x) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= N) return;
    x[i] = alpha >= 1 ? to[i] : x[i] + alpha * (to[i] - x[i]);
}

static __global__ void stepVec_velocityKernel(int N, double ih, const double* x, const double* xt,
                                              double* v) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < N) v[i] = (x[i] - xt[i]) * ih;
}

/// Per block: max |p| and sum g p (partials at 2 b and 2 b + 1).
static __global__ void stepVec_normsKernel(int N, const double* p, const double* g,
                                           double* partial) {
    __shared__ double red[ALCG_WARP];
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double a = i < N ? fabs(p[i]) : 0.0, d = i < N ? g[i] * p[i] : 0.0;
    a = alcg_blockReduce(a, alcgOpMax(), 0.0, red);
    d = alcg_blockSum(d, red);
    if (threadIdx.x == 0) {
        partial[2 * blockIdx.x] = a;
        partial[2 * blockIdx.x + 1] = d;
    }
}

/// One block over the partials: out[0] the maximum, out[1] the sum.
static __global__ void stepVec_normsFinalKernel(const double* partial, int nb, double* out) {
    __shared__ double red[ALCG_WARP];
    double a = 0, d = 0;
    for (int b = (int)threadIdx.x; b < nb; b += (int)blockDim.x) {
        a = alcgOpMax()(a, partial[2 * b]);
        d += partial[2 * b + 1];
    }
    a = alcg_blockReduce(a, alcgOpMax(), 0.0, red);
    d = alcg_blockSum(d, red);
    if (threadIdx.x == 0) {
        out[0] = a;
        out[1] = d;
    }
}

/// Per block: max |a - b| over masked coordinates (partials at 2 blk; the odd slots unused).
static __global__ void stepVec_maskedDiffKernel(int n, const double* a, const double* b,
                                                const unsigned char* mask, double* partial) {
    __shared__ double red[ALCG_WARP];
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double e = i < 3 * n && mask[i / 3] ? fabs(a[i] - b[i]) : 0.0;
    e = alcg_blockReduce(e, alcgOpMax(), 0.0, red);
    if (threadIdx.x == 0) {
        partial[2 * blockIdx.x] = e;
        partial[2 * blockIdx.x + 1] = 0;
    }
}

static __global__ void stepVec_selectKernel(int n, const unsigned char* mask, const double* a,
                                            const double* b, double* out) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < 3 * n) out[i] = mask[i / 3] ? a[i] : b[i];
}

static __global__ void stepVec_moveKernel(int n, const unsigned char* mask, int want, double f,
                                          int copyAtOne, const double* trial, double* xhat) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= 3 * n || (int)mask[i / 3] != want) return;
    xhat[i] = copyAtOne && f >= 1 ? trial[i] : xhat[i] + f * (trial[i] - xhat[i]);
}

// ---------------------------------------------------------------------------------------------
// wrappers
// ---------------------------------------------------------------------------------------------

#define STEPVEC_CHECK(s, cond)                                                           \
    do {                                                                                 \
        if (!(s)) return ALC_ERR_INVALID_ARG;                                            \
        if (!(cond)) return ALCG_FAIL((s), ALC_ERR_INVALID_ARG, "bad argument: " #cond); \
    } while (0)

extern "C" alctStatus alcg_stepVec_begin(int n, const double* d_xin, const double* d_vin,
                                         const double* d_target, const unsigned char* d_kin,
                                         double h, const double gravity[3], double* d_xt,
                                         double* d_vt, double* d_x, double* d_xhat,
                                         double* d_xtilde, alcgStream* s) {
    ALCG_RANGE("alcg_stepVec_begin");
    STEPVEC_CHECK(s, n >= 0 && gravity);
    if (n == 0) return ALC_OK;
    ALCG_LAUNCH(stepVec_beginKernel, alcg_blocks(3LL * n, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, n,
                d_xin, d_vin, d_target, d_kin, h, gravity[0], gravity[1], gravity[2], d_xt, d_vt,
                d_x, d_xhat, d_xtilde);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_stepVec_axpy(int N, double r, const double* d_p, const double* d_y,
                                        double* d_out, alcgStream* s) {
    STEPVEC_CHECK(s, N >= 0);
    if (N == 0) return ALC_OK;
    ALCG_LAUNCH(stepVec_axpyKernel, alcg_blocks(N, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, N, r, d_p,
                d_y, d_out);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_stepVec_scale(int N, double a, const double* d_x, double* d_out,
                                         alcgStream* s) {
    STEPVEC_CHECK(s, N >= 0);
    if (N == 0) return ALC_OK;
    ALCG_LAUNCH(stepVec_scaleKernel, alcg_blocks(N, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, N, a,
                d_x, d_out);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_stepVec_advance(int N, double alpha, const double* d_to, double* d_x,
                                           alcgStream* s) {
    STEPVEC_CHECK(s, N >= 0);
    if (N == 0 || !(alpha > 0)) return ALC_OK;
    ALCG_LAUNCH(stepVec_advanceKernel, alcg_blocks(N, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, N,
                alpha, d_to, d_x);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_stepVec_velocity(int N, double ih, const double* d_x, const double* d_xt,
                                            double* d_v, alcgStream* s) {
    STEPVEC_CHECK(s, N >= 0);
    if (N == 0) return ALC_OK;
    ALCG_LAUNCH(stepVec_velocityKernel, alcg_blocks(N, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, N, ih,
                d_x, d_xt, d_v);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" size_t alcg_stepVec_normsScratch(int N) {
    return 2 * (size_t)alcg_blocks(N, ALCG_BLOCK) + 2;
}

/// Reduce the 2 nb partials into the two doubles after them and download those.
static alctStatus finishNorms(unsigned nb, double* d_scratch, double out[2], alcgStream* s) {
    ALCG_LAUNCH(stepVec_normsFinalKernel, 1, ALCG_BLOCK, 0, s->stream, d_scratch, (int)nb,
                d_scratch + 2 * nb);
    ALCG_LAUNCH_CHECK(s);
    return alcg_download(s, out, d_scratch + 2 * nb, 2 * sizeof(double));
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_stepVec_norms(int N, const double* d_p, const double* d_g,
                                         double* d_scratch, double* pInf, double* gDotP,
                                         alcgStream* s) {
    ALCG_RANGE("alcg_stepVec_norms");
    STEPVEC_CHECK(s, N >= 0 && pInf && gDotP && d_scratch);
    double out[2] = {0, 0};
    unsigned nb = alcg_blocks(N, ALCG_BLOCK);
    alctStatus st;
    if (N > 0) {
        ALCG_LAUNCH(stepVec_normsKernel, nb, ALCG_BLOCK, 0, s->stream, N, d_p, d_g, d_scratch);
        ALCG_LAUNCH_CHECK(s);
        st = finishNorms(nb, d_scratch, out, s);
        if (st != ALC_OK) return st;
    }
    *pInf = out[0];
    *gDotP = out[1];
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_stepVec_maskedMaxDiff(int n, const double* d_a, const double* d_b,
                                                 const unsigned char* d_mask, double* d_scratch,
                                                 double* out, alcgStream* s) {
    STEPVEC_CHECK(s, n >= 0 && out && d_scratch);
    double r[2] = {0, 0};
    unsigned nb = alcg_blocks(3LL * n, ALCG_BLOCK);
    alctStatus st;
    if (n > 0) {
        ALCG_LAUNCH(stepVec_maskedDiffKernel, nb, ALCG_BLOCK, 0, s->stream, n, d_a, d_b, d_mask,
                    d_scratch);
        ALCG_LAUNCH_CHECK(s);
        st = finishNorms(nb, d_scratch, r, s);
        if (st != ALC_OK) return st;
    }
    *out = r[0];
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_stepVec_select(int n, const unsigned char* d_mask, const double* d_a,
                                          const double* d_b, double* d_out, alcgStream* s) {
    STEPVEC_CHECK(s, n >= 0);
    if (n == 0) return ALC_OK;
    ALCG_LAUNCH(stepVec_selectKernel, alcg_blocks(3LL * n, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, n,
                d_mask, d_a, d_b, d_out);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_stepVec_moveMasked(int n, const unsigned char* d_mask, int want,
                                              double f, int copyAtOne, const double* d_trial,
                                              double* d_xhat, alcgStream* s) {
    STEPVEC_CHECK(s, n >= 0);
    if (n == 0) return ALC_OK;
    ALCG_LAUNCH(stepVec_moveKernel, alcg_blocks(3LL * n, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, n,
                d_mask, want, f, copyAtOne, d_trial, d_xhat);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
