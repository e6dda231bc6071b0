// Internals of the device LBVH shared by cuda/bvh.cu (build) and cuda/bvh_query.cu (queries):
// the object behind alcgBvh and small host helpers. Not part of any C interface.
//
// Layout of a tree over n primitives: inner nodes 0 .. n-2 (node 0 is the root), leaves
// n-1 .. 2n-2 (leaf k holds the primitive with the k-th smallest key). With n == 1 the root is
// the one leaf, node 0. Keys are morton << 32 | primitive, unique, so the radix tree needs no
// tie rule and its inner nodes lie at most 62 deep: each level lengthens the common prefix of
// the 64-bit keys, whose top two bits are always 0 (30-bit Morton codes).
#ifndef ALC_CUDA_BVH_INTERNAL_CUH_
#define ALC_CUDA_BVH_INTERNAL_CUH_

#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "bvh.h"
#include "hd/alcm_aabb.h"

#include <stdarg.h>
#include <stdio.h>

#define BVH_ALIGN 256  // alignment of every array carved from an allocation

/// One tree; arrays carved from the LBVH's allocation.
typedef struct alcgBvhTree_ {
    int cap;                  ///< most primitives
    int n;                    ///< primitives in the last build
    alcAabb* primBox;         ///< swept box of each primitive (cap) [device]
    unsigned long long* key;  ///< morton << 32 | primitive, sorted by the build (cap) [device]
    int* leafPrim;            ///< primitive of each leaf, key order (cap) [device]
    alcAabb* nodeBox;         ///< inner nodes, then leaves (2 cap - 1) [device]
    int* left;                ///< left child of each inner node (cap - 1) [device]
    int* right;               ///< right child of each inner node (cap - 1) [device]
    int* parent;              ///< parent of each node, -1 at the root (2 cap - 1) [device]
    int* visit;               ///< refit arrivals at each inner node (cap - 1) [device]
} alcgBvhTree;

/// What a query leaves on the device for the host.
typedef struct alcgBvhQueryState_ {
    unsigned long long count;  ///< candidates found (may exceed cap)
    int overflow;              ///< a traversal stack overflowed (never, by the depth bound)
    int pad;
} alcgBvhQueryState;

struct alcgBvh_ {
    int maxSvert, maxEdge, maxTri;  ///< capacities
    alcgBvhTree tri;                ///< tree over swept triangle boxes
    alcgBvhTree edge;               ///< tree over swept edge boxes
    alcAabb* partial;               ///< box of centres per block (blocks of max(maxTri, maxEdge))
    alcAabb* scene;                 ///< box of all centres of the tree being built (1) [device]
    alcgBvhQueryState* qstate;      ///< (1) [device]
    void* sortTemp;                 ///< scratch of the key sort of a build [device]
    size_t sortBytes;               ///< its size
    void* mem;                      ///< the one device allocation
    int built;                      ///< a build succeeded; the counts below are its input's
    int nvert, nsvert, nedge, ntri;
};

/// Record "file:line func: message" on the stream.
#define bvhFailMsg(s, file, line, func, ...) \
    ((void)alcg_fail((s), ALC_OK, (file), (line), (func), __VA_ARGS__))

/// n rounded up to a multiple of a.
static inline size_t bvhRoundUp(size_t n, size_t a) {
    return (n + a - 1) / a * a;
}

/// Index of the calling thread in a 1D launch.
static __device__ __forceinline__ int bvhThreadIndex() {
    return (int)(blockIdx.x * blockDim.x + threadIdx.x);
}

#endif  // ALC_CUDA_BVH_INTERNAL_CUH_
