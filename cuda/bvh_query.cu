// LBVH queries on the device (cuda/bvh.h): one thread per query primitive traverses the tree of
// the last build with a stack and appends the candidates that pass the rule of
// alcr_broad_queryPT/EE through an atomic counter; the list is then sorted by (i, j), so the
// output does not depend on thread timing and equals the reference's.
#include "bvh_internal.cuh"
#include "thrust_shim.h"

#include <limits.h>
#include <stdint.h>

#define BVH_STACK 64  // traversal stack: inner-node depth <= 62 (bvh_internal.cuh), plus one

// ---- kernels -----------------------------------------------------------------------------------

namespace {

// a built tree as the traversal reads it
typedef struct {
    int n;
    const alcAabb* nodeBox;
    const int* left;
    const int* right;
    const int* leafPrim;
} TreeView;

// where candidates go: key i << 32 | j at an atomic slot, while the slot is below cap
typedef struct {
    unsigned long long* key;
    long long cap;
    alcgBvhQueryState* state;
} PairSink;

static __device__ __forceinline__ bool isPassive(const unsigned char* vp, int v) {
    return vp != NULL && vp[v] != 0;
}

static __device__ __forceinline__ void emitPair(const PairSink& out, int i, int j) {
    unsigned long long slot = atomicAdd(&out.state->count, 1ull);
    if (slot < (unsigned long long)out.cap)
        out.key[slot] = ((unsigned long long)(uint32_t)i << 32) | (unsigned long long)(uint32_t)j;
}

// the point-triangle rule of alcr_broad_queryPT for point i (vertex v) and triangle j
struct PtRule {
    const int* tri;
    const unsigned char* vp;
    int v;
    bool passive;
    __device__ bool accept(int j) const {
        const int* t = tri + 3 * j;
        if (t[0] == v || t[1] == v || t[2] == v) return false;
        return !(passive && isPassive(vp, t[0]) && isPassive(vp, t[1]) && isPassive(vp, t[2]));
    }
};

// the edge-edge rule of alcr_broad_queryEE for edge i (vertices a, b) and edge j
struct EeRule {
    const int* edge;
    const unsigned char* vp;
    int i, a, b;
    bool passive;
    __device__ bool accept(int j) const {
        if (j <= i) return false;
        const int* e = edge + 2 * j;
        if (e[0] == a || e[0] == b || e[1] == a || e[1] == b) return false;
        return !(passive && isPassive(vp, e[0]) && isPassive(vp, e[1]));
    }
};

}  // namespace

// stack traversal of the tree with box q: every leaf whose box overlaps q and whose primitive
// the rule accepts is emitted as (i, primitive)
template <typename Rule>
static __device__ void traverse(const TreeView& t, alcAabb q, const Rule& rule, int i,
                                const PairSink& out) {
    if (t.n <= 0 || !alcm_aabb_overlap(t.nodeBox[0], q)) return;
    if (t.n == 1) {
        if (rule.accept(t.leafPrim[0])) emitPair(out, i, t.leafPrim[0]);
        return;
    }
    int stack[BVH_STACK];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        int node = stack[--top];
        int child[2] = {t.left[node], t.right[node]};
        for (int c = 0; c < 2; c++) {
            int ch = child[c];
            if (!alcm_aabb_overlap(t.nodeBox[ch], q)) continue;
            if (ch >= t.n - 1) {
                int j = t.leafPrim[ch - (t.n - 1)];
                if (rule.accept(j)) emitPair(out, i, j);
            } else if (top < BVH_STACK) {
                stack[top++] = ch;
            } else {
                out.state->overflow = 1;
            }
        }
    }
}

// one thread per surface point: its swept box against the triangle tree
static __global__ void bvh_queryPTKernel(alcgBroadInput in, TreeView t, PairSink out) {
    int i = bvhThreadIndex();
    if (i >= in.nsvert) return;
    PtRule rule;
    rule.tri = in.tri;
    rule.vp = in.vert_passive;
    rule.v = in.svert[i];
    rule.passive = isPassive(in.vert_passive, rule.v);
    alcAabb q = alcm_aabb_sweptVert(in.x0, in.x1, rule.v, in.inflate);
    traverse(t, q, rule, i, out);
}

// one thread per edge: its swept box against the edge tree (pairs i < j only)
static __global__ void bvh_queryEEKernel(alcgBroadInput in, TreeView t, PairSink out) {
    int i = bvhThreadIndex();
    if (i >= in.nedge) return;
    EeRule rule;
    rule.edge = in.edge;
    rule.vp = in.vert_passive;
    rule.i = i;
    rule.a = in.edge[2 * i];
    rule.b = in.edge[2 * i + 1];
    rule.passive = isPassive(in.vert_passive, rule.a) && isPassive(in.vert_passive, rule.b);
    alcAabb q = alcm_aabb_sweptEdge(in.x0, in.x1, in.edge + 2 * i, in.inflate);
    traverse(t, q, rule, i, out);
}

// pair keys i << 32 | j back to (i, j) ints
static __global__ void bvh_unpackKernel(const unsigned long long* key, int n, int* pairs) {
    int k = bvhThreadIndex();
    if (k >= n) return;
    unsigned long long v = key[k];
    pairs[2 * k] = (int)(uint32_t)(v >> 32);
    pairs[2 * k + 1] = (int)(uint32_t)(v & 0xffffffffu);
}

// ---- wrappers ----------------------------------------------------------------------------------

// scratch of a query of up to cap pairs: the pair keys, then the sort's scratch
static alctStatus queryTempBytes(int cap, size_t* keyBytes, size_t* sortBytes, alcgStream* s) {
    *keyBytes = bvhRoundUp((size_t)cap * sizeof(unsigned long long), BVH_ALIGN);
    return alcg_sortPairsU64(NULL, NULL, cap, NULL, sortBytes, s);
}

// the candidate pairs of points (pt) or edges against their tree; see alcg_bvh_queryPT
static alctStatus query(alcgBvh* b, const alcgBroadInput* in, bool pt, int cap, int* d_pairs,
                        int* count, void* d_temp, size_t* temp_bytes, alcgStream* s,
                        const char* func) {
    size_t keyBytes = 0, sortBytes = 0;
    alcgBvhQueryState h = {0, 0, 0};
    cudaStream_t st = NULL;
    const alcgBvhTree* t = NULL;
    int nq = 0, m = 0;
    TreeView view;
    PairSink sink;
    unsigned long long* keys = NULL;
    char* base = NULL;
    alctStatus rc = ALC_OK;
    if (!s || !temp_bytes) return ALC_ERR_INVALID_ARG;
    if (cap < 0) {
        bvhFailMsg(s, __FILE__, __LINE__, func, "negative cap %d", cap);
        return ALC_ERR_INVALID_ARG;
    }

    // size query
    rc = queryTempBytes(cap, &keyBytes, &sortBytes, s);
    if (rc != ALC_OK) return rc;
    if (!d_temp) {
        *temp_bytes = keyBytes + sortBytes + BVH_ALIGN;
        return ALC_OK;
    }

    // arguments: the input of the last build, room for cap pairs
    if (!b || !in || !count || (cap > 0 && !d_pairs)) {
        bvhFailMsg(s, __FILE__, __LINE__, func, "NULL argument");
        return ALC_ERR_INVALID_ARG;
    }
    *count = 0;
    if (!b->built || in->nvert != b->nvert || in->nsvert != b->nsvert || in->nedge != b->nedge ||
        in->ntri != b->ntri) {
        bvhFailMsg(s, __FILE__, __LINE__, func,
                   "input is not the one of the last successful build");
        return ALC_ERR_INVALID_ARG;
    }
    if (*temp_bytes < keyBytes + sortBytes + BVH_ALIGN) {
        bvhFailMsg(s, __FILE__, __LINE__, func,
                   "scratch of %zu bytes, a query of %d pairs needs %zu", *temp_bytes, cap,
                   keyBytes + sortBytes + BVH_ALIGN);
        return ALC_ERR_INVALID_ARG;
    }
    base = (char*)d_temp + (bvhRoundUp((uintptr_t)d_temp, BVH_ALIGN) - (uintptr_t)d_temp);
    keys = (unsigned long long*)base;
    st = (cudaStream_t)s->stream;
    t = pt ? &b->tri : &b->edge;
    nq = pt ? in->nsvert : in->nedge;

    // traversal: one thread per query primitive, candidates counted past cap
    ALCG_CUDA_TRY(s, cudaMemsetAsync(b->qstate, 0, sizeof(alcgBvhQueryState), st));
    if (nq > 0 && t->n > 0) {
        view.n = t->n;
        view.nodeBox = t->nodeBox;
        view.left = t->left;
        view.right = t->right;
        view.leafPrim = t->leafPrim;
        sink.key = keys;
        sink.cap = cap;
        sink.state = b->qstate;
        if (pt) {
            ALCG_LAUNCH(bvh_queryPTKernel, alcg_blocks(nq, ALCG_BLOCK), ALCG_BLOCK, 0, st, *in,
                        view, sink);
        } else {
            ALCG_LAUNCH(bvh_queryEEKernel, alcg_blocks(nq, ALCG_BLOCK), ALCG_BLOCK, 0, st, *in,
                        view, sink);
        }
        ALCG_LAUNCH_CHECK(s);
    }
    ALCG_CUDA_TRY(s, cudaMemcpyAsync(&h, b->qstate, sizeof h, cudaMemcpyDeviceToHost, st));
    ALCG_CUDA_TRY(s, cudaStreamSynchronize(st));
    if (h.overflow) {
        bvhFailMsg(s, __FILE__, __LINE__, func, "traversal stack overflow (tree deeper than %d)",
                   BVH_STACK);
        return ALC_ERR_CUDA;
    }

    // the whole list sorted by (i, j); past cap, the cap pairs written, unsorted
    m = h.count < (unsigned long long)cap ? (int)h.count : cap;
    if (h.count <= (unsigned long long)cap) {
        size_t avail = *temp_bytes - (size_t)(base - (char*)d_temp) - keyBytes;
        rc = alcg_sortPairsU64(keys, NULL, m, base + keyBytes, &avail, s);
        if (rc != ALC_OK) return rc;
    }
    if (m > 0) {
        ALCG_LAUNCH(bvh_unpackKernel, alcg_blocks(m, ALCG_BLOCK), ALCG_BLOCK, 0, st, keys, m,
                    d_pairs);
        ALCG_LAUNCH_CHECK(s);
    }
    *count = h.count > (unsigned long long)INT_MAX ? INT_MAX : (int)h.count;
    return h.count > (unsigned long long)cap ? ALC_ERR_CAPACITY : ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_bvh_queryPT(alcgBvh* bvh, const alcgBroadInput* in, int cap,
                                       int* d_pairs, int* count, void* d_temp, size_t* temp_bytes,
                                       alcgStream* s) {
    ALCG_RANGE("bvh_queryPT");
    return query(bvh, in, true, cap, d_pairs, count, d_temp, temp_bytes, s, __func__);
}

extern "C" alctStatus alcg_bvh_queryEE(alcgBvh* bvh, const alcgBroadInput* in, int cap,
                                       int* d_pairs, int* count, void* d_temp, size_t* temp_bytes,
                                       alcgStream* s) {
    ALCG_RANGE("bvh_queryEE");
    return query(bvh, in, false, cap, d_pairs, count, d_temp, temp_bytes, s, __func__);
}
