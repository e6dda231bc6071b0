// The inversion bounds on the device (cuda/tet_bound.h): one thread per tetrahedron evaluates
// alcm_tet_maxStepTo (the path bound) or alcm_tet_endStepTo (the end-point bound; hd/
// alcm_elastic.h) with the reference's target and skips, each block reduces to its minimum, and
// one block reduces the block minima. The minimum does not depend on the order of the
// reduction, so the result equals the reference's bit for bit when the per-tetrahedron values
// do. The end-point bound repeats that pass, as alcr_elastic_endStep does, until every
// tetrahedron accepts alpha.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "hd/alcm_elastic.h"
#include "reduce.cuh"
#include "tet_bound.h"

#include <cuda_runtime.h>

/// Tetrahedron t's step bound: the neutral `none` when it is not protected (1 for the path
/// bound, alpha for the end-point bound); alpha < 0: the path bound.
static __device__ double tetBound_one(const alcgTetMesh& mesh, const double* d_from,
                                      const double* d_to, double fraction, int allTets,
                                      double alpha, int t) {
    double none = alpha < 0 ? 1.0 : alpha;
    bool use = t < mesh.ntet && (allTets || mesh.d_tet_model[t] == ALC_MAT_NEOHOOKEAN);
    if (!use) return none;
    const int* tv = mesh.d_tet_vert + 4 * t;
    // tetrahedra moved entirely by drivers are not the solver's to protect
    if (mesh.d_kin[tv[0]] && mesh.d_kin[tv[1]] && mesh.d_kin[tv[2]] && mesh.d_kin[tv[3]]) {
        return none;
    }
    alcV3 x[4], p[4];
    for (int k = 0; k < 4; k++) {
        x[k] = alcm_v3_load(d_from + 3 * tv[k]);
        p[k] = alcm_v3_sub(alcm_v3_load(d_to + 3 * tv[k]), x[k]);
    }
    // inverted or flat tetrahedra have nothing to protect
    double v6 =
        alcm_v3_triple(alcm_v3_sub(x[1], x[0]), alcm_v3_sub(x[2], x[0]), alcm_v3_sub(x[3], x[0]));
    if (!(v6 > 0)) return none;
    double target = alcm_tet_invTarget(v6, fraction, mesh.d_tet_vol[t]);
    return alpha < 0 ? alcm_tet_maxStepTo(x, p, target) : alcm_tet_endStepTo(x, p, target, alpha);
}

/// Per tetrahedron: its step bound (tetBound_one); per block: the minimum.
static __global__ void tetBound_stepKernel(alcgTetMesh mesh, const double* d_from,
                                           const double* d_to, double fraction, int allTets,
                                           double alpha, double* d_blockMin) {
    __shared__ double red[ALCG_WARP];
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double a = tetBound_one(mesh, d_from, d_to, fraction, allTets, alpha, t);
    double m = alcg_blockMin(a, alpha < 0 ? 1.0 : alpha, red);
    if (threadIdx.x == 0) d_blockMin[blockIdx.x] = m;
}

/// Per tetrahedron: its step bound, written out.
static __global__ void tetBound_perTetKernel(alcgTetMesh mesh, const double* d_from,
                                             const double* d_to, double fraction, int allTets,
                                             double alpha, double* d_out) {
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (t < mesh.ntet) d_out[t] = tetBound_one(mesh, d_from, d_to, fraction, allTets, alpha, t);
}

/// One block: the minimum of the block minima, at most `none`.
static __global__ void tetBound_minKernel(const double* d_blockMin, int nblock, double none,
                                          double* d_alpha) {
    __shared__ double red[ALCG_WARP];
    double m = none;
    for (int i = (int)threadIdx.x; i < nblock; i += (int)blockDim.x) {
        m = alcgOpMin()(m, d_blockMin[i]);
    }
    m = alcg_blockMin(m, none, red);
    if (threadIdx.x == 0) *d_alpha = m;
}

/// Checks the arguments and carves the scratch; *ready = 0 for a size query or an empty mesh
/// (then *alpha, when given, is `none`).
static alctStatus tetBound_setup(const alcgTetMesh* mesh, const double* d_from, const double* d_to,
                                 double none, double* alpha, void* d_temp, size_t* temp_bytes,
                                 alcgStream* s, double** d_blockMin, double** d_alpha,
                                 unsigned* nblock, int* ready) {
    size_t end = 0, offMin = 0, offAlpha = 0;
    *ready = 0;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!mesh || !temp_bytes || mesh->ntet < 0) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument or negative size");
    }
    // scratch: per-block minima and the result
    *nblock = alcg_blocks(mesh->ntet, ALCG_BLOCK);
    offMin = alcg_tempSlot(&end, sizeof(double) * *nblock);
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
    *alpha = none;
    if (mesh->ntet == 0) return ALC_OK;
    if (!mesh->d_tet_vert || !mesh->d_tet_vol || !mesh->d_tet_model || !mesh->d_kin || !d_from ||
        !d_to) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL device array");
    }
    *d_blockMin = (double*)((char*)d_temp + offMin);
    *d_alpha = (double*)((char*)d_temp + offAlpha);
    *ready = 1;
    return ALC_OK;
}

/// One pass: per-tetrahedron bounds to block minima, then one minimum, downloaded to *out.
static alctStatus tetBound_pass(const alcgTetMesh* mesh, const double* d_from, const double* d_to,
                                double fraction, int allTets, double alpha, double* d_blockMin,
                                double* d_alpha, unsigned nblock, double* out, alcgStream* s) {
    double none = alpha < 0 ? 1.0 : alpha;
    ALCG_LAUNCH(tetBound_stepKernel, nblock, ALCG_BLOCK, 0, s->stream, *mesh, d_from, d_to,
                fraction, allTets, alpha, d_blockMin);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(tetBound_minKernel, 1, ALCG_BLOCK, 0, s->stream, d_blockMin, (int)nblock, none,
                d_alpha);
    ALCG_LAUNCH_CHECK(s);
    if (alcg_download(s, out, d_alpha, sizeof(double)) != ALC_OK) return ALC_ERR_CUDA;
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_tetBound_maxStep(const alcgTetMesh* mesh, const double* d_from,
                                            const double* d_to, double fraction, int allTets,
                                            double* alpha, void* d_temp, size_t* temp_bytes,
                                            alcgStream* s) {
    ALCG_RANGE("alcg_tetBound_maxStep");
    double* d_blockMin = NULL;
    double* d_alpha = NULL;
    unsigned nblock = 0;
    int ready = 0;
    alctStatus st = tetBound_setup(mesh, d_from, d_to, 1.0, alpha, d_temp, temp_bytes, s,
                                   &d_blockMin, &d_alpha, &nblock, &ready);
    if (st != ALC_OK || !ready) return st;
    return tetBound_pass(mesh, d_from, d_to, fraction, allTets, -1.0, d_blockMin, d_alpha, nblock,
                         alpha, s);
}

extern "C" alctStatus alcg_tetBound_endStep(const alcgTetMesh* mesh, const double* d_from,
                                            const double* d_to, double fraction, int allTets,
                                            double amax, double* alpha, void* d_temp,
                                            size_t* temp_bytes, alcgStream* s) {
    ALCG_RANGE("alcg_tetBound_endStep");
    double* d_blockMin = NULL;
    double* d_alpha = NULL;
    unsigned nblock = 0;
    int ready = 0;
    double a = amax < 1 ? amax : 1.0;
    alctStatus st = tetBound_setup(mesh, d_from, d_to, a, alpha, d_temp, temp_bytes, s, &d_blockMin,
                                   &d_alpha, &nblock, &ready);
    if (st != ALC_OK || !ready) return st;
    // as alcr_elastic_endStep: passes until every tetrahedron accepts alpha, else the path bound
    for (int pass = 0; pass < ALC_END_BOUND_PASSES && a > 0; pass++) {
        double next = a;
        st = tetBound_pass(mesh, d_from, d_to, fraction, allTets, a, d_blockMin, d_alpha, nblock,
                           &next, s);
        if (st != ALC_OK) return st;
        if (next >= a) {
            *alpha = a;
            return ALC_OK;
        }
        a = next;
    }
    if (a <= 0) {
        *alpha = 0;
        return ALC_OK;
    }
    double path = 1.0;
    st = tetBound_pass(mesh, d_from, d_to, fraction, allTets, -1.0, d_blockMin, d_alpha, nblock,
                       &path, s);
    *alpha = path < amax ? path : amax;
    return st;
}

extern "C" alctStatus alcg_tetBound_perTet(const alcgTetMesh* mesh, const double* d_from,
                                           const double* d_to, double fraction, int allTets,
                                           double alpha, double* d_out, alcgStream* s) {
    ALCG_RANGE("alcg_tetBound_perTet");
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!mesh || mesh->ntet < 0) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument or negative size");
    }
    if (mesh->ntet == 0) return ALC_OK;
    if (!mesh->d_tet_vert || !mesh->d_tet_vol || !mesh->d_tet_model || !mesh->d_kin || !d_from ||
        !d_to || !d_out) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL device array");
    }
    ALCG_LAUNCH(tetBound_perTetKernel, alcg_blocks(mesh->ntet, ALCG_BLOCK), ALCG_BLOCK, 0,
                s->stream, *mesh, d_from, d_to, fraction, allTets, alpha, d_out);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
