// The inversion bound on the device (cuda/tet_bound.h): one thread per tetrahedron evaluates
// alcm_tet_maxStepTo (hd/alcm_elastic.h) with the reference's target and skips, each block
// reduces to its minimum, and one block reduces the block minima. The minimum does not depend
// on the order of the reduction, so the result equals the reference's bit for bit when the
// per-tetrahedron values do.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "hd/alcm_elastic.h"
#include "reduce.cuh"
#include "tet_bound.h"

#include <cuda_runtime.h>

/// Per tetrahedron: its step bound (1 when it is not protected); per block: the minimum.
static __global__ void tetBound_stepKernel(alcgTetMesh mesh, const double* d_from,
                                           const double* d_to, double fraction, int allTets,
                                           double* d_blockMin) {
    __shared__ double red[ALCG_WARP];
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    // tail and unprotected tetrahedra give the neutral 1
    double a = 1.0;
    bool use = t < mesh.ntet && (allTets || mesh.d_tet_model[t] == ALC_MAT_NEOHOOKEAN);
    const int* tv = use ? mesh.d_tet_vert + 4 * t : NULL;
    // tetrahedra moved entirely by drivers are not the solver's to protect
    if (use && mesh.d_kin[tv[0]] && mesh.d_kin[tv[1]] && mesh.d_kin[tv[2]] && mesh.d_kin[tv[3]]) {
        use = false;
    }
    if (use) {
        alcV3 x[4], p[4];
        for (int k = 0; k < 4; k++) {
            x[k] = alcm_v3_load(d_from + 3 * tv[k]);
            p[k] = alcm_v3_sub(alcm_v3_load(d_to + 3 * tv[k]), x[k]);
        }
        // inverted or flat tetrahedra have nothing to protect
        double v6 = alcm_v3_triple(alcm_v3_sub(x[1], x[0]), alcm_v3_sub(x[2], x[0]),
                                   alcm_v3_sub(x[3], x[0]));
        if (v6 > 0) {
            a = alcm_tet_maxStepTo(x, p, alcm_tet_invTarget(v6, fraction, mesh.d_tet_vol[t]));
        }
    }
    double m = alcg_blockMin(a, 1.0, red);
    if (threadIdx.x == 0) d_blockMin[blockIdx.x] = m;
}

/// One block: the minimum of the block minima, at most 1.
static __global__ void tetBound_minKernel(const double* d_blockMin, int nblock, double* d_alpha) {
    __shared__ double red[ALCG_WARP];
    double m = 1.0;
    for (int i = (int)threadIdx.x; i < nblock; i += (int)blockDim.x) {
        m = alcgOpMin()(m, d_blockMin[i]);
    }
    m = alcg_blockMin(m, 1.0, red);
    if (threadIdx.x == 0) *d_alpha = m;
}

extern "C" alctStatus alcg_tetBound_maxStep(const alcgTetMesh* mesh, const double* d_from,
                                            const double* d_to, double fraction, int allTets,
                                            double* alpha, void* d_temp, size_t* temp_bytes,
                                            alcgStream* s) {
    ALCG_RANGE("alcg_tetBound_maxStep");
    unsigned nblock = 0;
    size_t end = 0, offMin = 0, offAlpha = 0;
    double* d_blockMin = NULL;
    double* d_alpha = NULL;
    // arguments
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!mesh || !temp_bytes || mesh->ntet < 0) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument or negative size");
    }
    // scratch: per-block minima and the result
    nblock = alcg_blocks(mesh->ntet, ALCG_BLOCK);
    offMin = alcg_tempSlot(&end, sizeof(double) * nblock);
    offAlpha = alcg_tempSlot(&end, sizeof(double));
    if (!d_temp) {
        *temp_bytes = end;
        return ALC_OK;
    }
    if (*temp_bytes < end) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "scratch of %zu bytes, %zu needed", *temp_bytes,
                         end);
    }
    if (!alpha) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL result pointer");
    *alpha = 1.0;
    if (mesh->ntet == 0) return ALC_OK;
    if (!mesh->d_tet_vert || !mesh->d_tet_vol || !mesh->d_tet_model || !mesh->d_kin || !d_from ||
        !d_to) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL device array");
    }
    d_blockMin = (double*)((char*)d_temp + offMin);
    d_alpha = (double*)((char*)d_temp + offAlpha);
    // per-tetrahedron bounds to block minima, then one minimum
    ALCG_LAUNCH(tetBound_stepKernel, nblock, ALCG_BLOCK, 0, s->stream, *mesh, d_from, d_to,
                fraction, allTets, d_blockMin);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(tetBound_minKernel, 1, ALCG_BLOCK, 0, s->stream, d_blockMin, (int)nblock, d_alpha);
    ALCG_LAUNCH_CHECK(s);
    if (alcg_download(s, alpha, d_alpha, sizeof(double)) != ALC_OK) return ALC_ERR_CUDA;
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
