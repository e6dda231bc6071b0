// The collision stage of the AL step on the device: the backend operations `collect` (broad
// phase over swept boxes X -> XHAT, additive CCD on every candidate, the minimum time of impact,
// the pairs within reach) and `mergeActive` (AL paper Algorithm 3), owning their buffers.
// Twin of alcr_ccd_collect + alcr_contact_merge (host/ref/ccd_ref.c, contact_ref.c). A buffer
// that overflows is grown and the work redone (the new capacity is reported, as the reference
// reports it, and the step loop counts it in alcStepStat.bufferGrows); with growing switched off
// the operation fails with ALC_ERR_CAPACITY. Nothing is ever truncated. Clean C.
#ifndef ALC_CUDA_COLLIDE_H_
#define ALC_CUDA_COLLIDE_H_

#include "active_set.h"
#include "alcg_stream.h"
#include "backend.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The model's surface primitives in device memory (owned by the caller, uploaded once).
typedef struct alcgSurface_ {
    int nvert;               ///< vertices
    int nsvert;              ///< surface vertices (point primitives)
    int nedge;               ///< surface edges
    int ntri;                ///< surface triangles
    const int* d_svert;      ///< vertex of each surface point (nsvert) [device]
    const int* d_edge_vert;  ///< edge vertices (nedge x 2) [device]
    const int* d_tri_vert;   ///< triangle vertices (ntri x 3) [device]
} alcgSurface;

/// Parameters of a collection (from alcModel.opt and the contact parameters of the step).
typedef struct alcgCollideParams_ {
    double xi;           ///< minimum separation of CCD and the box inflation, opt.ccdMinSep (m)
    double rescale;      ///< ACCD rescale s, opt.ccdRescale
    double delta;        ///< contact offset of the reach query (m)
    int maxIter;         ///< ACCD iteration cap, opt.ccdMaxIter
    int growOnOverflow;  ///< 1: grow an overflowing buffer and redo; 0: fail (alcCapacity)
    double gapCap;       ///< gap cap of the rescale (m): opt.ccdGapCap x delta; 0: none
} alcgCollideParams;

typedef struct alcgCollide_ alcgCollide;

/// Make the collision stage for a surface, with initial capacities.
/// @param[in]  surf     surface primitives; the struct is copied, the arrays are not owned
/// @param[in]  candCap  broad-phase candidates each of the PT and EE buffers holds (> 0)
/// @param[in]  pairCap  active pairs the set holds (> 0)
/// @param[out] out      the stage; free with alcg_collide_free
/// @param[in]  s        stream (last)
/// @return ALC_OK; ALC_ERR_INVALID_ARG; ALC_ERR_NOMEM; ALC_ERR_DEVICE_NOMEM with the size in
///         s->err.
alctStatus alcg_collide_make(const alcgSurface* surf, int candCap, int pairCap, alcgCollide** out,
                             alcgStream* s);

/// Free the stage and its device memory. NULL-safe.
void alcg_collide_free(alcgCollide* c);

/// Device bytes alcg_collide_make will allocate (unrounded) for these capacities, into *bytes:
/// the LBVH, the candidate and active-set buffers. The scratch the queries size for themselves
/// (at the first collect) is not included.
/// @return ALC_OK, ALC_ERR_INVALID_ARG, or a failure of the size queries, with the message on s.
alctStatus alcg_collide_need(const alcgSurface* surf, int candCap, int pairCap, size_t* bytes,
                             alcgStream* s);

/// Broad phase and CCD from X to XHAT, as alcr_ccd_collect: boxes grown by xi, vertices passive
/// where d_passive is 1, the pairs within reach kept in key order for alcg_collide_merge.
/// @param[in]  d_x        X (nvert x 3) (m) [device]
/// @param[in]  d_xhat     XHAT (nvert x 3) (m) [device]
/// @param[in]  d_passive  1 for a kinematic vertex (nvert) [device]
/// @param[in]  p          parameters
/// @param[out] out        minToi, ncandidates, ncollide, grown (the new candidate capacity
///                        after a grow, else 0) [host]
/// @param[in]  s          stream (last)
/// @return ALC_OK; ALC_ERR_CAPACITY when a buffer overflowed and growing is off;
///         ALC_ERR_DEVICE_NOMEM when growing failed; ALC_ERR_CUDA; the message in s->err.
/// Nullable: d_passive
alctStatus alcg_collide_collect(alcgCollide* c, const double* d_x, const double* d_xhat,
                                const unsigned char* d_passive, const alcgCollideParams* p,
                                alciCollectOut* out, alcgStream* s);

/// The candidate of the last collect that set its minToi, as alcr_ccd_blocking: smallest time of
/// impact, ties to the smaller pair key; its stencil and positions downloaded (for the -vv log
/// only: it copies every candidate's time of impact to the host).
/// @param[in]  d_x     X of that collect (nvert x 3) (m) [device]
/// @param[in]  d_xhat  XHAT of that collect (nvert x 3) (m) [device]
/// @param[out] out     the pair; out->found = 0 when no time of impact was below 1 [host]
/// @return ALC_OK; ALC_ERR_NOMEM; ALC_ERR_CUDA, the message in s->err.
alctStatus alcg_collide_blocking(const alcgCollide* c, const double* d_x, const double* d_xhat,
                                 alciBlockingPair* out, alcgStream* s);

/// UpdateActiveSet (AL paper Alg. 3) with the pairs of the last collect, as alcr_contact_merge.
/// @param[out] nactive  pairs in the new active set [host]
/// @param[out] grown    the new pair capacity after a grow, else 0 [host]
/// @param[out] changed  1 when a pair joined or left [host]
/// @return ALC_OK; ALC_ERR_CAPACITY (growing off); ALC_ERR_DEVICE_NOMEM; ALC_ERR_CUDA.
/// Nullable: grown, changed
alctStatus alcg_collide_merge(alcgCollide* c, double removeBelow, int growOnOverflow, int* nactive,
                              int* grown, int* changed, alcgStream* s);

/// The active set: *npair pairs in key order [device], valid until the next merge or set.
alcgPair* alcg_collide_pairs(alcgCollide* c, int* npair);

/// Replace the active set by n pairs from host memory (strictly ascending keys), growing the
/// capacity when needed (a sim restored from a checkpoint; tests).
/// @return ALC_OK; ALC_ERR_INVALID_ARG; ALC_ERR_DEVICE_NOMEM; ALC_ERR_CUDA.
/// Nullable: h_pairs when n is 0
alctStatus alcg_collide_setPairs(alcgCollide* c, const alcgPair* h_pairs, int n, alcgStream* s);

/// The pairs within reach of the last collect: *n of them in key order [device].
const alcgCand* alcg_collide_candidates(const alcgCollide* c, int* n);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_COLLIDE_H_
