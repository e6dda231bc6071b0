// CPU reference broad phase over surface primitives: point-triangle and edge-edge candidate
// pairs from swept, inflated boxes. Two independent paths give the same sorted pair lists:
// a BVH (top-down median split, iterative traversal) and a brute-force all-pairs oracle.
//
// Candidate rule (both paths): a pair is a candidate when the boxes of its two primitives
// overlap (alcm_aabb_sweptVert/Edge/Tri from host/hd/alcm_aabb.h: the box of the vertices at x0
// and x1, grown by `inflate` on every side and padded by a few ulps), except
//   - a point and a triangle that contains that vertex,
//   - two edges that share a vertex,
//   - a pair whose every vertex is passive (vert_passive),
//   - a pair whose every vertex is in one group (vert_group: one rigid body, whose vertices
//     keep their distances).
// Pairs within one (deformable) body are candidates (self-contact). A primitive's box is grown
// by `inflate` plus the largest vert_inflate of its vertices. Each primitive box is grown by
// `inflate`, so pairs whose unpadded swept boxes lie within 2 * inflate of each other along
// every axis are found: pass inflate = d / 2 to find pairs that may come within distance d.
//
// Output: point-triangle pairs (i, j) = (index into svert, index into tri); edge-edge pairs
// (i, j) = (edge index, edge index) with i < j. Pairs are written into caller arrays sorted by
// (i, j). At most cap pairs are written (the first cap of the sorted list) and *count always
// receives the true number, so the caller can grow its arrays and query again.
#ifndef ALC_HOST_REF_BROAD_REF_H_
#define ALC_HOST_REF_BROAD_REF_H_

#include "hd/alcm_aabb.h"

#include "alc/alc_types.h"

/// Surface primitives and their motion over one step (all arrays in host memory).
typedef struct alcrBroadInput_ {
    int nvert;                          ///< vertices
    const double* x0;                   ///< start positions (nvert x 3) (m)
    const double* x1;                   ///< end positions (nvert x 3) (m); may equal x0
    int nsvert;                         ///< surface vertices (point primitives)
    const int* svert;                   ///< vertex index of each point primitive (nsvert)
    int nedge;                          ///< surface edges
    const int* edge;                    ///< edge vertices (nedge x 2)
    int ntri;                           ///< surface triangles
    const int* tri;                     ///< triangle vertices (ntri x 3)
    const unsigned char* vert_passive;  ///< 1 for a kinematic/obstacle vertex (nvert); nullable
    double inflate;                     ///< growth of every primitive box, >= 0 (m)
    const double* vert_inflate;         ///< extra growth of a primitive's box by the largest of its
                                        ///< vertices' entries, >= 0 (nvert; m): a rigid body's
                                        ///< vertices' deviation from their chords. Nullable
    const int* vert_group;              ///< a pair whose vertices all have one group >= 0 is not a
                            ///< candidate: the vertices of one rigid body (nvert). Nullable
} alcrBroadInput;

/// BVH node: a leaf when count > 0 (primitives prim[start .. start+count-1] of its tree),
/// else an inner node with children left and right.
typedef struct alcrBroadNode_ {
    alcAabb box;  ///< union of the boxes below (exact, no padding added)
    int left;     ///< left child (inner nodes)
    int right;    ///< right child (inner nodes)
    int start;    ///< first slot in prim / leafBox (leaves)
    int count;    ///< primitives in the leaf; 0 for inner nodes
} alcrBroadNode;

/// BVH over up to cap primitive boxes; arrays allocated once by alcr_broad_treeMake.
typedef struct alcrBroadTree_ {
    int cap;              ///< most primitives the arrays hold
    int nprim;            ///< primitives in the last build
    int nnode;            ///< nodes in the last build (node[0] is the root)
    alcrBroadNode* node;  ///< nodes (2 cap) [host]
    int* prim;            ///< primitive index of each leaf slot (cap) [host]
    alcAabb* leafBox;     ///< box of each leaf slot, prim order (cap) [host]
    double* key;          ///< split scratch: centroid coordinate per slot (cap) [host]
} alcrBroadTree;

/// Hits per query kept from the count pass, so that most queries are not traversed twice.
#define ALCR_BROAD_CACHE 16

/// Broad-phase state: a triangle tree and an edge tree with scratch, sized once.
typedef struct alcrBroad_ {
    int maxSvert;            ///< capacity: point primitives
    int maxEdge;             ///< capacity: edges
    int maxTri;              ///< capacity: triangles
    alcrBroadTree triTree;   ///< BVH over swept triangle boxes
    alcrBroadTree edgeTree;  ///< BVH over swept edge boxes
    alcAabb* triBox;         ///< swept triangle boxes of the last build (maxTri) [host]
    alcAabb* edgeBox;        ///< swept edge boxes of the last build (maxEdge) [host]
    int64_t* qoffset;        ///< per-query counts, then offsets (max(maxSvert, maxEdge) + 1) [host]
    int* qcache;             ///< first ALCR_BROAD_CACHE hits of each query, from the count pass
                             ///< (max(maxSvert, maxEdge) x ALCR_BROAD_CACHE) [host]
    int* qscratch;           ///< hits of the one query that straddles cap (max(maxTri, maxEdge))
} alcrBroad;

// ---- BVH over arbitrary boxes (also used by host/check.c) ----------------------------------

/// Allocate a tree for up to cap primitives.
/// @return ALC_OK, ALC_ERR_INVALID_ARG (cap < 0), ALC_ERR_NOMEM.
alctStatus alcr_broad_treeMake(int cap, alcrBroadTree* tree);

/// Free the arrays and zero the struct. NULL-safe.
void alcr_broad_treeFree(alcrBroadTree* tree);

/// Build the tree over box[0..n-1]: top-down, split at the median centroid of the longest
/// axis of the centroid bounds, leaves of at most 4 primitives. Deterministic; no allocation.
/// @return ALC_OK, ALC_ERR_INVALID_ARG (n < 0 or box NULL with n > 0), ALC_ERR_CAPACITY (n > cap).
alctStatus alcr_broad_treeBuild(alcrBroadTree* tree, const alcAabb* box, int n);

/// Primitives whose boxes overlap q (closed test), in traversal order (unsorted).
/// @param[out] out  first min(total, cap) primitive indices found
/// @return the total number found (may exceed cap).
/// Nullable: out when cap == 0
int alcr_broad_treeQuery(const alcrBroadTree* tree, alcAabb q, int* out, int cap);

// ---- broad phase ---------------------------------------------------------------------------

/// Allocate a broad phase for up to maxSvert points, maxEdge edges and maxTri triangles.
/// @param[out] out  the new state; free with alcr_broad_free
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM.
alctStatus alcr_broad_make(int maxSvert, int maxEdge, int maxTri, alcrBroad** out);

/// Free the state. NULL-safe.
void alcr_broad_free(alcrBroad* b);

/// Check the input and build the triangle and edge trees over its swept boxes. No allocation.
/// @return ALC_OK, ALC_ERR_INVALID_ARG (NULL array, index out of range, inflate < 0 or not
///         finite), ALC_ERR_CAPACITY (more primitives than the state was made for).
alctStatus alcr_broad_build(alcrBroad* b, const alcrBroadInput* in);

/// Point-triangle candidates from the trees of the last build over the same input.
/// @param[out] pairs  (svert index, tri index) pairs sorted by (i, j) (cap x 2)
/// @param[out] count  true number of candidates (may exceed cap; saturates at INT_MAX)
/// @return ALC_OK, ALC_ERR_CAPACITY (count > cap: the first cap pairs were written),
///         ALC_ERR_INVALID_ARG (input not the one built).
/// Nullable: pairs when cap == 0
alctStatus alcr_broad_queryPT(alcrBroad* b, const alcrBroadInput* in, int cap, int* pairs,
                              int* count);

/// Edge-edge candidates (i < j) from the edge tree of the last build over the same input.
/// Same outputs and status codes as alcr_broad_queryPT.
alctStatus alcr_broad_queryEE(alcrBroad* b, const alcrBroadInput* in, int cap, int* pairs,
                              int* count);

/// Point-triangle candidates by testing every pair (the oracle). Same outputs and status codes
/// as alcr_broad_queryPT; needs no state and allocates nothing.
alctStatus alcr_broad_bruteForcePT(const alcrBroadInput* in, int cap, int* pairs, int* count);

/// Edge-edge candidates by testing every pair (the oracle). Same outputs as alcr_broad_queryEE.
alctStatus alcr_broad_bruteForceEE(const alcrBroadInput* in, int cap, int* pairs, int* count);

#endif  // ALC_HOST_REF_BROAD_REF_H_
