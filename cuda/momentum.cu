// Momentum-exact Newton directions on the device (cuda/momentum.h).
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "momentum.h"
#include "reduce.cuh"
#include "thrust_shim.h"

#include <cuda_runtime.h>

#include <string.h>

/// A key past every free vertex (a kinematic one).
#define MOMENTUM_NONE 0xffffffffffffffffULL

/// The root of i: follow the labels (each points to a smaller or equal vertex) to a fixed point.
static __device__ __forceinline__ int momentum_find(const int* label, int i) {
    int r = i;
    while (true) {
        int l = ((volatile const int*)label)[r];
        if (l == r) return r;
        r = l;
    }
}

static __global__ void momentum_initKernel(int n, const unsigned char* kin, int* label,
                                           int* anchored) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    label[i] = kin[i] ? -1 : i;
    anchored[i] = 0;
}

/// Row i: every block (i, j) between two free vertices hooks the larger root under the smaller.
static __global__ void momentum_hookKernel(alcgBsr A, const unsigned char* kin, int* label,
                                           int* flag) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= A.n || kin[i]) return;
    for (int k = A.d_rowptr[i]; k < A.d_rowptr[i + 1]; k++) {
        int j = A.d_col[k];
        if (j == i || kin[j]) continue;
        int a = momentum_find(label, i), b = momentum_find(label, j);
        if (a == b) continue;
        int lo = a < b ? a : b, hi = a < b ? b : a;
        atomicMin(&label[hi], lo);
        *flag = 1;
    }
}

/// Vertex i: its label := its root (path compression).
static __global__ void momentum_jumpKernel(int n, int* label) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n || label[i] < 0) return;
    label[i] = momentum_find(label, i);
}

/// Row i: a block between a free and a kinematic vertex anchors the free one's component.
static __global__ void momentum_anchorKernel(alcgBsr A, const unsigned char* kin, const int* label,
                                             int* anchored) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= A.n) return;
    for (int k = A.d_rowptr[i]; k < A.d_rowptr[i + 1]; k++) {
        int j = A.d_col[k];
        if (kin[i] == kin[j]) continue;
        anchored[label[kin[i] ? j : i]] = 1;
    }
}

static __global__ void momentum_keyKernel(int n, const int* label, unsigned long long* keys) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    keys[i] = label[i] < 0 ? MOMENTUM_NONE : (unsigned long long)label[i] << 32 | (unsigned)i;
}

/// Sorted entry u: 1 where a component's run begins.
static __global__ void momentum_runKernel(int n, const unsigned long long* keys, int* flag) {
    int u = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (u >= n) return;
    flag[u] = keys[u] != MOMENTUM_NONE && (u == 0 || (keys[u] >> 32) != (keys[u - 1] >> 32));
}

/// Sorted entry u (pos: the exclusive scan of the run flags): a run's first entry records where
/// it starts, every entry its component (the runs begun up to it, minus one); the free entries
/// end at start[ncomp]; a kinematic entry gets -1.
static __global__ void momentum_startKernel(int n, const unsigned long long* keys, int* pos,
                                            int* start, int ncomp) {
    int u = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (u >= n) return;
    unsigned long long k = keys[u];
    if (k == MOMENTUM_NONE) {
        if (u == 0 || keys[u - 1] != MOMENTUM_NONE) start[ncomp] = u;
        pos[u] = -1;
        return;
    }
    if (u == n - 1) start[ncomp] = n;
    bool first = u == 0 || (k >> 32) != (keys[u - 1] >> 32);
    int c = first ? pos[u] : pos[u] - 1;
    if (first) start[c] = u;
    pos[u] = c;
}

/// Block c: the sums of component c over its run, in a fixed order.
static __global__ void momentum_sumKernel(const unsigned long long* keys, const int* start,
                                          const double* g, const double* mass, const double* p,
                                          double* sum) {
    __shared__ double red[ALCG_WARP];
    int c = (int)blockIdx.x;
    double s[4] = {0, 0, 0, 0};
    for (int u = start[c] + (int)threadIdx.x; u < start[c + 1]; u += (int)blockDim.x) {
        int i = (int)(keys[u] & 0xffffffffULL);
        double mi = mass[i];
        for (int k = 0; k < 3; k++) s[k] += g[3 * i + k] + mi * p[3 * i + k];
        s[3] += mi;
    }
    for (int k = 0; k < 4; k++) {
        double t = alcg_blockSum(s[k], red);
        if (threadIdx.x == 0) sum[4 * c + k] = t;
    }
}

/// Sorted entry u: shift its vertex's p by its unanchored component's mean residual force.
static __global__ void momentum_applyKernel(int n, const unsigned long long* keys, const int* pos,
                                            const int* anchored, const double* sum, double* p) {
    int u = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (u >= n || pos[u] < 0) return;
    int c = pos[u];
    int root = (int)(keys[u] >> 32), i = (int)(keys[u] & 0xffffffffULL);
    const double* sc = sum + 4 * c;
    if (anchored[root] || !(sc[3] > 0)) return;
    for (int k = 0; k < 3; k++) p[3 * i + k] -= sc[k] / sc[3];
}

// ---------------------------------------------------------------------------------------------
// wrappers
// ---------------------------------------------------------------------------------------------

/// Device bytes of alcg_momentum_make's arrays for M's sizes: label, anchored, pos (n1 each),
/// start (n1 + 1), flag, keys (n1), sums (4 n1) and the scratch.
static size_t momentumBytes(const alcgMomentum* M) {
    size_t n1 = (size_t)M->nvert + 1;
    return n1 * (4 * sizeof(int) + sizeof(unsigned long long) + 4 * sizeof(double)) +
           2 * sizeof(int) + (M->tempBytes ? M->tempBytes : 1);
}

/// The sizes of alcg_momentum_make (its scratch: the larger of the key sort and the scan). M
/// zeroed first.
static alctStatus planMomentum(alcgMomentum* M, int nvert, alcgStream* s) {
    size_t sortB = 0, scanB = 0;
    alctStatus st;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!M || nvert < 0) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad argument");
    memset(M, 0, sizeof *M);
    M->nvert = nvert;
    M->ncomp = -1;
    st = alcg_sortPairsU64(NULL, NULL, nvert, NULL, &sortB, s);
    if (st == ALC_OK) st = alcg_exclusiveScanI32(NULL, NULL, nvert, NULL, NULL, &scanB, s);
    M->tempBytes = sortB > scanB ? sortB : scanB;
    return st;
}

extern "C" alctStatus alcg_momentum_need(int nvert, size_t* bytes, alcgStream* s) {
    alcgMomentum probe;
    *bytes = 0;
    alctStatus st = planMomentum(&probe, nvert, s);
    if (st == ALC_OK) *bytes = momentumBytes(&probe);
    return st;
}

extern "C" alctStatus alcg_momentum_make(alcgMomentum* M, int nvert, alcgStream* s) {
    size_t n1 = (size_t)nvert + 1;
    alctStatus st = planMomentum(M, nvert, s);
    if (st != ALC_OK) return st;
    st = alcg_malloc(s, (void**)&M->d_label, sizeof(int) * n1);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&M->d_anchored, sizeof(int) * n1);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&M->d_keys, sizeof(unsigned long long) * n1);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&M->d_pos, sizeof(int) * n1);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&M->d_start, sizeof(int) * (n1 + 1));
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&M->d_sum, sizeof(double) * 4 * n1);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&M->d_flag, sizeof(int));
    if (st == ALC_OK) st = alcg_malloc(s, &M->d_temp, M->tempBytes ? M->tempBytes : 1);
    if (st != ALC_OK) alcg_momentum_free(M);
    return st;
}

extern "C" void alcg_momentum_free(alcgMomentum* M) {
    if (!M) return;
    alcg_free(M->d_label);
    alcg_free(M->d_anchored);
    alcg_free(M->d_keys);
    alcg_free(M->d_pos);
    alcg_free(M->d_start);
    alcg_free(M->d_sum);
    alcg_free(M->d_flag);
    alcg_free(M->d_temp);
    memset(M, 0, sizeof *M);
}

extern "C" alctStatus alcg_momentum_label(alcgMomentum* M, const alcgBsr* A,
                                          const unsigned char* d_kin, alcgStream* s) {
    ALCG_RANGE("alcg_momentum_label");
    int n, hooked = 1, ncomp = 0;
    unsigned nb;
    size_t tb;
    alctStatus st;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!M || !A || A->n != M->nvert || (M->nvert > 0 && !d_kin)) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad argument");
    }
    n = M->nvert;
    M->ncomp = 0;
    if (n == 0) return ALC_OK;
    nb = alcg_blocks(n, ALCG_BLOCK);
    ALCG_LAUNCH(momentum_initKernel, nb, ALCG_BLOCK, 0, s->stream, n, d_kin, M->d_label,
                M->d_anchored);
    ALCG_LAUNCH_CHECK(s);
    while (hooked) {
        ALCG_CUDA_TRY(s, cudaMemsetAsync(M->d_flag, 0, sizeof(int), (cudaStream_t)s->stream));
        ALCG_LAUNCH(momentum_hookKernel, nb, ALCG_BLOCK, 0, s->stream, *A, d_kin, M->d_label,
                    M->d_flag);
        ALCG_LAUNCH_CHECK(s);
        ALCG_LAUNCH(momentum_jumpKernel, nb, ALCG_BLOCK, 0, s->stream, n, M->d_label);
        ALCG_LAUNCH_CHECK(s);
        if (alcg_download(s, &hooked, M->d_flag, sizeof(int)) != ALC_OK) return ALC_ERR_CUDA;
    }
    ALCG_LAUNCH(momentum_anchorKernel, nb, ALCG_BLOCK, 0, s->stream, *A, d_kin, M->d_label,
                M->d_anchored);
    ALCG_LAUNCH_CHECK(s);
    // free vertices sorted by (root, vertex); runs of equal roots are the components
    ALCG_LAUNCH(momentum_keyKernel, nb, ALCG_BLOCK, 0, s->stream, n, M->d_label, M->d_keys);
    ALCG_LAUNCH_CHECK(s);
    tb = M->tempBytes;
    st = alcg_sortPairsU64(M->d_keys, NULL, n, M->d_temp, &tb, s);
    if (st != ALC_OK) return st;
    ALCG_LAUNCH(momentum_runKernel, nb, ALCG_BLOCK, 0, s->stream, n, M->d_keys, M->d_pos);
    ALCG_LAUNCH_CHECK(s);
    tb = M->tempBytes;
    st = alcg_exclusiveScanI32(M->d_pos, M->d_pos, n, &ncomp, M->d_temp, &tb, s);
    if (st != ALC_OK) return st;
    ALCG_LAUNCH(momentum_startKernel, nb, ALCG_BLOCK, 0, s->stream, n, M->d_keys, M->d_pos,
                M->d_start, ncomp);
    ALCG_LAUNCH_CHECK(s);
    M->ncomp = ncomp;
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_momentum_correct(alcgMomentum* M, const double* d_g,
                                            const double* d_mass, double* d_p, alcgStream* s) {
    ALCG_RANGE("alcg_momentum_correct");
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!M || M->ncomp < 0) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "components not labelled");
    if (M->ncomp == 0) return ALC_OK;
    ALCG_LAUNCH(momentum_sumKernel, (unsigned)M->ncomp, ALCG_BLOCK, 0, s->stream, M->d_keys,
                M->d_start, d_g, d_mass, d_p, M->d_sum);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(momentum_applyKernel, alcg_blocks(M->nvert, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                M->nvert, M->d_keys, M->d_pos, M->d_anchored, M->d_sum, d_p);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
