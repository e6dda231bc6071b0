// LBVH broad phase on the device (Karras 2012, "Maximizing parallelism in the construction of
// BVHs, octrees and k-d trees"): swept boxes, Morton codes, a radix tree built one thread per
// inner node, a bottom-up refit, and one traversal thread per query primitive. The GPU twin of
// host/ref/broad_ref.h: the same input, the same candidate rule, the same sorted pair lists.
//
// Candidate rule (as alcr_broad_queryPT/EE): a pair is a candidate when the boxes of its two
// primitives overlap (alcm_aabb_sweptVert/Edge/Tri from host/hd/alcm_aabb.h, grown by inflate),
// except a point and a triangle that contains its vertex, two edges that share a vertex, and a
// pair whose every vertex is passive. Point-triangle pairs are (svert index, tri index); edge-edge
// pairs are (edge index, edge index) with i < j. Lists come back sorted by (i, j).
//
// Memory: alcg_bvh_make allocates the trees once for the capacities it is given (nothing
// allocates afterwards); each query takes caller scratch, two-phase (STYLE.md §6.4).
//
// Usage:
//   alcg_bvh_make(maxSvert, maxEdge, maxTri, &bvh, s);
//   alcg_bvh_queryPT(bvh, &in, cap, NULL, &count, NULL, &tempBytes, s);  // scratch size for cap
//   alcg_bvh_build(bvh, &in, s);
//   alcg_bvh_queryPT(bvh, &in, cap, d_pairs, &count, d_temp, &tempBytes, s);
//   (on ALC_ERR_CAPACITY: grow d_pairs and d_temp to count, query again; no rebuild needed)
#ifndef ALC_CUDA_BVH_H_
#define ALC_CUDA_BVH_H_

#include "alcg_stream.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Surface primitives and their motion over one step: alcrBroadInput with every array in device
/// memory. Indices are not range-checked on the device: they must lie in [0, nvert).
typedef struct alcgBroadInput_ {
    int nvert;                          ///< vertices
    const double* x0;                   ///< start positions (nvert x 3) (m) [device]
    const double* x1;                   ///< end positions (nvert x 3) (m) [device]; may equal x0
    int nsvert;                         ///< surface vertices (point primitives)
    const int* svert;                   ///< vertex index of each point primitive (nsvert) [device]
    int nedge;                          ///< surface edges
    const int* edge;                    ///< edge vertices (nedge x 2) [device]
    int ntri;                           ///< surface triangles
    const int* tri;                     ///< triangle vertices (ntri x 3) [device]
    const unsigned char* vert_passive;  ///< 1 for a kinematic/obstacle vertex (nvert) [device];
                                        ///< nullable (no vertex passive)
    double inflate;                     ///< growth of every primitive box, >= 0 (m)
} alcgBroadInput;

/// Device LBVH over swept triangle boxes and swept edge boxes (opaque).
typedef struct alcgBvh_ alcgBvh;

/// Allocate the two trees (device memory, one block) for up to maxTri triangles and maxEdge
/// edges, queried by up to maxSvert points and maxEdge edges.
/// @param[in]  maxSvert  capacity: point primitives, >= 0
/// @param[in]  maxEdge   capacity: edges, >= 0
/// @param[in]  maxTri    capacity: triangles, >= 0
/// @param[out] out       the new LBVH; free with alcg_bvh_free
/// @param[in]  s         stream (used for the message and the size queries)
/// @return ALC_OK, ALC_ERR_INVALID_ARG (negative capacity, NULL out or s), ALC_ERR_NOMEM,
///         ALC_ERR_DEVICE_NOMEM, ALC_ERR_CUDA, with the message on s.
alctStatus alcg_bvh_make(int maxSvert, int maxEdge, int maxTri, alcgBvh** out, alcgStream* s);

/// Free the LBVH and its device memory. NULL-safe.
void alcg_bvh_free(alcgBvh* bvh);

/// Device bytes alcg_bvh_make will allocate (one allocation) for these capacities, into *bytes.
/// @return ALC_OK, or the failure of the sort scratch query, with the message on s.
alctStatus alcg_bvh_need(int maxSvert, int maxEdge, int maxTri, size_t* bytes, alcgStream* s);

/// Build both trees over the swept boxes of in (grown by in->inflate): scene box of the box
/// centres, 30-bit Morton codes, sort, radix tree, bottom-up refit. Runs on s without
/// synchronizing it; no allocation.
/// @param[in,out] bvh  the LBVH (made for at least in's counts)
/// @param[in]     in   primitives and motion (device arrays); read again by the queries
/// @param[in]     s    stream the build runs on
/// @return ALC_OK, ALC_ERR_INVALID_ARG (NULL array with a positive count, nvert <= 0 with
///         primitives, inflate < 0 or not finite), ALC_ERR_CAPACITY (more primitives than bvh
///         was made for), ALC_ERR_CUDA; the message on s.
alctStatus alcg_bvh_build(alcgBvh* bvh, const alcgBroadInput* in, alcgStream* s);

/// Point-triangle candidates from the triangle tree of the last build over the same input.
/// Two-phase: with d_temp NULL it writes into *temp_bytes the scratch a query of up to cap pairs
/// needs and returns ALC_OK (bvh, in, d_pairs and count may then be NULL). Synchronizes s.
/// @param[in,out] bvh         the LBVH built over in
/// @param[in]     in          the input of the last build
/// @param[in]     cap         most pairs d_pairs holds, >= 0
/// @param[out]    d_pairs     (svert index, tri index) pairs (cap x 2) [device]: when
///                            *count <= cap the whole list sorted by (i, j); otherwise cap of
///                            the pairs in no particular order. Nothing is written past cap.
/// @param[out]    count       true number of candidates [host] (saturates at INT_MAX)
/// @param[in]     d_temp      scratch of *temp_bytes bytes [device]; NULL asks for the size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL
/// @param[in]     s           stream the query runs on
/// @return ALC_OK, ALC_ERR_CAPACITY (*count > cap: grow to *count and query again),
///         ALC_ERR_INVALID_ARG (input not the one built, scratch smaller than the size for cap),
///         ALC_ERR_CUDA; the message on s.
/// Nullable: d_pairs when cap == 0; d_temp
alctStatus alcg_bvh_queryPT(alcgBvh* bvh, const alcgBroadInput* in, int cap, int* d_pairs,
                            int* count, void* d_temp, size_t* temp_bytes, alcgStream* s);

/// Edge-edge candidates (i < j) from the edge tree of the last build over the same input.
/// Same two-phase scratch, outputs and status codes as alcg_bvh_queryPT.
/// Nullable: d_pairs when cap == 0; d_temp
alctStatus alcg_bvh_queryEE(alcgBvh* bvh, const alcgBroadInput* in, int cap, int* d_pairs,
                            int* count, void* d_temp, size_t* temp_bytes, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_BVH_H_
