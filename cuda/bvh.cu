// LBVH build on the device (cuda/bvh.h): swept boxes, Morton codes, the radix tree of Karras
// 2012 ("Maximizing parallelism in the construction of BVHs, octrees and k-d trees", §3-4) and
// a bottom-up refit. The queries are in cuda/bvh_query.cu, the shared object in
// cuda/bvh_internal.cuh.
//
// The boxes of the leaves are exactly the reference's (alcm_aabb_sweptVert/Edge/Tri with
// r = inflate) and the inner boxes are exact unions, so the pairs found do not depend on the
// tree's shape: the same closed overlap test on the same doubles decides every pair. nvcc's
// multiply-add contraction cannot change those boxes: the only products in alcm_aabb_grow are
// by powers of two (exact unless a coordinate is below 2^-970), so a fused multiply-add
// rounds exactly as the host does.
#include "bvh_internal.cuh"
#include "hd/alcm_morton.h"
#include "thrust_shim.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// bump carver over one allocation: measures when base is NULL, hands out pointers otherwise
namespace {
typedef struct {
    char* base;
    size_t off;
} Carver;
}  // namespace

static void* carve(Carver* c, size_t bytes) {
    size_t o = bvhRoundUp(c->off, BVH_ALIGN);
    c->off = o + bvhRoundUp(bytes, BVH_ALIGN);
    return c->base ? (void*)(c->base + o) : NULL;
}

static void carveTree(Carver* c, alcgBvhTree* t, int cap) {
    size_t n = (size_t)cap, nodes = n > 0 ? 2 * n - 1 : 0, inner = n > 0 ? n - 1 : 0;
    t->cap = cap;
    t->n = 0;
    t->primBox = (alcAabb*)carve(c, n * sizeof(alcAabb));
    t->key = (unsigned long long*)carve(c, n * sizeof(unsigned long long));
    t->leafPrim = (int*)carve(c, n * sizeof(int));
    t->nodeBox = (alcAabb*)carve(c, nodes * sizeof(alcAabb));
    t->left = (int*)carve(c, inner * sizeof(int));
    t->right = (int*)carve(c, inner * sizeof(int));
    t->parent = (int*)carve(c, nodes * sizeof(int));
    t->visit = (int*)carve(c, inner * sizeof(int));
}

// every array of the LBVH carved from base (NULL: only measured); returns the bytes used
static size_t carveBvh(alcgBvh* b, char* base) {
    Carver c = {base, 0};
    int maxPrim = alcm_maxi(b->maxTri, b->maxEdge);
    carveTree(&c, &b->tri, b->maxTri);
    carveTree(&c, &b->edge, b->maxEdge);
    b->partial = (alcAabb*)carve(&c, alcg_blocks(maxPrim, ALCG_BLOCK) * sizeof(alcAabb));
    b->scene = (alcAabb*)carve(&c, sizeof(alcAabb));
    b->qstate = (alcgBvhQueryState*)carve(&c, sizeof(alcgBvhQueryState));
    b->sortTemp = carve(&c, b->sortBytes);
    return c.off;
}

// ---- kernels -----------------------------------------------------------------------------------

// swept box of each triangle, as alcr_broad_build computes it
static __global__ void bvh_sweptTriKernel(const double* x0, const double* x1, const int* tri, int n,
                                          double r, alcAabb* box) {
    int j = bvhThreadIndex();
    if (j < n) box[j] = alcm_aabb_sweptTri(x0, x1, tri + 3 * j, r);
}

// swept box of each edge, as alcr_broad_build computes it
static __global__ void bvh_sweptEdgeKernel(const double* x0, const double* x1, const int* edge,
                                           int n, double r, alcAabb* box) {
    int j = bvhThreadIndex();
    if (j < n) box[j] = alcm_aabb_sweptEdge(x0, x1, edge + 2 * j, r);
}

// union of the block's boxes (blockDim.x a power of two) into sh[0]; every thread takes part
static __device__ void blockUnion(alcAabb* sh, alcAabb b) {
    int t = (int)threadIdx.x;
    sh[t] = b;
    __syncthreads();
    for (int w = (int)blockDim.x / 2; w > 0; w /= 2) {
        if (t < w) sh[t] = alcm_aabb_union(sh[t], sh[t + w]);
        __syncthreads();
    }
}

// per block: the box of its primitives' box centres
static __global__ void bvh_centerBoundsKernel(const alcAabb* box, int n, alcAabb* partial) {
    __shared__ alcAabb sh[ALCG_BLOCK];
    int j = bvhThreadIndex();
    // tail threads contribute the empty box and stay for the barriers
    alcAabb c = j < n ? alcm_aabb_point(alcm_aabb_center(box[j])) : alcm_aabb_empty();
    blockUnion(sh, c);
    if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
}

// one block: the union of the per-block boxes
static __global__ void bvh_sceneBoundsKernel(const alcAabb* partial, int nblock, alcAabb* scene) {
    __shared__ alcAabb sh[ALCG_BLOCK];
    alcAabb c = alcm_aabb_empty();
    for (int k = (int)threadIdx.x; k < nblock; k += (int)blockDim.x) {
        c = alcm_aabb_union(c, partial[k]);
    }
    blockUnion(sh, c);
    if (threadIdx.x == 0) *scene = sh[0];
}

// key of each primitive: Morton code of its box centre in the scene box, then its index
static __global__ void bvh_mortonKernel(const alcAabb* box, int n, const alcAabb* scene,
                                        unsigned long long* key) {
    int j = bvhThreadIndex();
    if (j >= n) return;
    uint32_t code = alcm_morton_point(alcm_aabb_center(box[j]), *scene);
    key[j] = ((unsigned long long)code << 32) | (unsigned long long)(uint32_t)j;
}

// length of the common prefix of keys i and j, -1 when j is outside [0, n) (Karras §4, δ)
static __device__ __forceinline__ int prefixLen(const unsigned long long* key, int n, int i,
                                                long long j) {
    if (j < 0 || j >= n) return -1;
    return __clzll((long long)(key[i] ^ key[j]));
}

// one thread per inner node i: its key range and split, Karras 2012 Fig. 4
static __global__ void bvh_radixTreeKernel(const unsigned long long* key, int n, int* left,
                                           int* right, int* parent) {
    int i = bvhThreadIndex();
    if (i >= n - 1) return;

    // direction d of the range: towards the neighbour sharing the longer prefix
    int d = prefixLen(key, n, i, i + 1) > prefixLen(key, n, i, i - 1) ? 1 : -1;

    // other end j: exponential search for an upper bound, then binary search
    int minPrefix = prefixLen(key, n, i, (long long)i - d);
    long long lmax = 2;
    while (prefixLen(key, n, i, i + lmax * d) > minPrefix) lmax *= 2;
    long long l = 0;
    for (long long t = lmax / 2; t >= 1; t /= 2) {
        if (prefixLen(key, n, i, i + (l + t) * d) > minPrefix) l += t;
    }
    long long j = i + l * d;

    // split gamma: the last key sharing more than the range's prefix with key i
    int nodePrefix = prefixLen(key, n, i, j);
    long long s = 0;
    for (long long div = 2;; div *= 2) {
        long long t = (l + div - 1) / div;
        if (prefixLen(key, n, i, i + (s + t) * d) > nodePrefix) s += t;
        if (t <= 1) break;
    }
    int gamma = (int)(i + s * d + (d < 0 ? -1 : 0));

    // children: a leaf when the child's range is the single key
    int lo = (int)(j < i ? j : i), hi = (int)(j < i ? i : j);
    int lc = lo == gamma ? n - 1 + gamma : gamma;
    int rc = hi == gamma + 1 ? n - 1 + gamma + 1 : gamma + 1;
    left[i] = lc;
    right[i] = rc;
    parent[lc] = i;
    parent[rc] = i;
}

// one thread per leaf: its primitive and box; the root has no parent
static __global__ void bvh_leafKernel(const unsigned long long* key, const alcAabb* primBox, int n,
                                      int* leafPrim, alcAabb* nodeBox, int* parent) {
    int k = bvhThreadIndex();
    if (k >= n) return;
    int prim = (int)(uint32_t)(key[k] & 0xffffffffu);
    leafPrim[k] = prim;
    nodeBox[n - 1 + k] = primBox[prim];
    if (k == 0) parent[0] = -1;
}

// a box written by another thread of this launch, read past the (incoherent) L1 cache
static __device__ __forceinline__ alcAabb loadBoxVolatile(const alcAabb* b) {
    const volatile double* p = (const volatile double*)b;
    alcAabb r;
    r.lo = alcm_v3(p[0], p[1], p[2]);
    r.hi = alcm_v3(p[3], p[4], p[5]);
    return r;
}

// one thread per leaf walks to the root; at each inner node the second thread to arrive
// (both children final) writes the union (Karras 2012 §4 "bounding boxes")
static __global__ void bvh_refitKernel(int n, const int* left, const int* right, const int* parent,
                                       int* visit, alcAabb* nodeBox) {
    int k = bvhThreadIndex();
    if (k >= n) return;
    int p = parent[n - 1 + k];
    while (p >= 0) {
        // publish this child's box before announcing the arrival
        __threadfence();
        if (atomicAdd(&visit[p], 1) == 0) return;
        nodeBox[p] = alcm_aabb_union(loadBoxVolatile(&nodeBox[left[p]]),
                                     loadBoxVolatile(&nodeBox[right[p]]));
        p = parent[p];
    }
}

// ---- wrappers ----------------------------------------------------------------------------------

// one tree over n primitives (triangles when tri, else edges) of in
static alctStatus buildTree(alcgBvh* b, alcgBvhTree* t, const alcgBroadInput* in, bool tri,
                            alcgStream* s) {
    cudaStream_t st = (cudaStream_t)s->stream;
    int n = tri ? in->ntri : in->nedge;
    unsigned grid = alcg_blocks(n, ALCG_BLOCK);
    alctStatus rc = ALC_OK;
    t->n = n;
    if (n == 0) return ALC_OK;

    // swept boxes
    if (tri) {
        ALCG_LAUNCH(bvh_sweptTriKernel, grid, ALCG_BLOCK, 0, st, in->x0, in->x1, in->tri, n,
                    in->inflate, t->primBox);
    } else {
        ALCG_LAUNCH(bvh_sweptEdgeKernel, grid, ALCG_BLOCK, 0, st, in->x0, in->x1, in->edge, n,
                    in->inflate, t->primBox);
    }
    ALCG_LAUNCH_CHECK(s);

    // scene box of the centres, then the keys in Morton order
    ALCG_LAUNCH(bvh_centerBoundsKernel, grid, ALCG_BLOCK, 0, st, t->primBox, n, b->partial);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(bvh_sceneBoundsKernel, 1, ALCG_BLOCK, 0, st, b->partial, (int)grid, b->scene);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(bvh_mortonKernel, grid, ALCG_BLOCK, 0, st, t->primBox, n, b->scene, t->key);
    ALCG_LAUNCH_CHECK(s);
    rc = alcg_sortPairsU64(t->key, NULL, n, b->sortTemp, &b->sortBytes, s);
    if (rc != ALC_OK) return rc;

    // radix tree over the sorted keys, then the leaves
    if (n > 1) {
        ALCG_LAUNCH(bvh_radixTreeKernel, alcg_blocks(n - 1, ALCG_BLOCK), ALCG_BLOCK, 0, st, t->key,
                    n, t->left, t->right, t->parent);
        ALCG_LAUNCH_CHECK(s);
    }
    ALCG_LAUNCH(bvh_leafKernel, grid, ALCG_BLOCK, 0, st, t->key, t->primBox, n, t->leafPrim,
                t->nodeBox, t->parent);
    ALCG_LAUNCH_CHECK(s);

    // bottom-up boxes
    if (n > 1) {
        ALCG_CUDA_TRY(s, cudaMemsetAsync(t->visit, 0, (size_t)(n - 1) * sizeof(int), st));
        ALCG_LAUNCH(bvh_refitKernel, grid, ALCG_BLOCK, 0, st, n, t->left, t->right, t->parent,
                    t->visit, t->nodeBox);
        ALCG_LAUNCH_CHECK(s);
    }
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_bvh_make(int maxSvert, int maxEdge, int maxTri, alcgBvh** out,
                                    alcgStream* s) {
    if (!out || !s) return ALC_ERR_INVALID_ARG;
    *out = NULL;
    if (maxSvert < 0 || maxEdge < 0 || maxTri < 0) {
        bvhFailMsg(s, __FILE__, __LINE__, __func__, "negative capacity (%d, %d, %d)", maxSvert,
                   maxEdge, maxTri);
        return ALC_ERR_INVALID_ARG;
    }
    alcgBvh* b = (alcgBvh*)calloc(1, sizeof(alcgBvh));
    if (!b) {
        bvhFailMsg(s, __FILE__, __LINE__, __func__, "out of host memory");
        return ALC_ERR_NOMEM;
    }
    b->maxSvert = maxSvert;
    b->maxEdge = maxEdge;
    b->maxTri = maxTri;

    // one allocation: both trees, reduction partials, query state, sort scratch
    alctStatus rc =
        alcg_sortPairsU64(NULL, NULL, alcm_maxi(maxTri, maxEdge), NULL, &b->sortBytes, s);
    if (rc == ALC_OK) rc = alcg_malloc(s, &b->mem, carveBvh(b, NULL));
    if (rc != ALC_OK) {
        alcg_bvh_free(b);
        return rc;
    }
    carveBvh(b, (char*)b->mem);
    *out = b;
    return ALC_OK;
}

extern "C" void alcg_bvh_free(alcgBvh* bvh) {
    if (!bvh) return;
    alcg_free(bvh->mem);
    free(bvh);
}

extern "C" alctStatus alcg_bvh_need(int maxSvert, int maxEdge, int maxTri, size_t* bytes,
                                    alcgStream* s) {
    alcgBvh probe;
    memset(&probe, 0, sizeof probe);
    *bytes = 0;
    probe.maxSvert = maxSvert;
    probe.maxEdge = maxEdge;
    probe.maxTri = maxTri;
    alctStatus rc =
        alcg_sortPairsU64(NULL, NULL, alcm_maxi(maxTri, maxEdge), NULL, &probe.sortBytes, s);
    if (rc == ALC_OK) *bytes = carveBvh(&probe, NULL);
    return rc;
}

extern "C" alctStatus alcg_bvh_build(alcgBvh* bvh, const alcgBroadInput* in, alcgStream* s) {
    ALCG_RANGE("bvh_build");
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!bvh || !in) {
        bvhFailMsg(s, __FILE__, __LINE__, __func__, "NULL %s", bvh ? "input" : "bvh");
        return ALC_ERR_INVALID_ARG;
    }
    bvh->built = 0;

    // the input's sizes and arrays
    bool prims = in->nsvert > 0 || in->nedge > 0 || in->ntri > 0;
    if (in->nsvert < 0 || in->nedge < 0 || in->ntri < 0 || (prims && in->nvert <= 0) ||
        (prims && (!in->x0 || !in->x1)) || (in->nsvert > 0 && !in->svert) ||
        (in->nedge > 0 && !in->edge) || (in->ntri > 0 && !in->tri) ||
        !(in->inflate >= 0 && in->inflate <= DBL_MAX)) {
        bvhFailMsg(s, __FILE__, __LINE__, __func__,
                   "bad input (nvert %d, nsvert %d, nedge %d, ntri %d, inflate %g, NULL array?)",
                   in->nvert, in->nsvert, in->nedge, in->ntri, in->inflate);
        return ALC_ERR_INVALID_ARG;
    }
    if (in->nsvert > bvh->maxSvert || in->nedge > bvh->maxEdge || in->ntri > bvh->maxTri) {
        bvhFailMsg(s, __FILE__, __LINE__, __func__,
                   "input (%d points, %d edges, %d triangles) exceeds capacity (%d, %d, %d)",
                   in->nsvert, in->nedge, in->ntri, bvh->maxSvert, bvh->maxEdge, bvh->maxTri);
        return ALC_ERR_CAPACITY;
    }

    // the two trees, one after the other (they share the scene box and sort scratch)
    alctStatus rc = buildTree(bvh, &bvh->tri, in, true, s);
    if (rc == ALC_OK) rc = buildTree(bvh, &bvh->edge, in, false, s);
    if (rc != ALC_OK) return rc;
    bvh->built = 1;
    bvh->nvert = in->nvert;
    bvh->nsvert = in->nsvert;
    bvh->nedge = in->nedge;
    bvh->ntri = in->ntri;
    return ALC_OK;
}
