// Narrow phase of the collision collection on the device: additive CCD (hd/alcm_ccd.h) on every
// broad-phase candidate along X -> XHAT, the minimum time of impact (MaxStepSize) and the
// candidates that come within reach of each other (AL paper Alg. 3 line 4), in candidate order.
// Twin of the narrow phase of alcr_ccd_collect (host/ref/ccd_ref.c). Clean C.
#ifndef ALC_CUDA_CCD_NARROW_H_
#define ALC_CUDA_CCD_NARROW_H_

#include "alcg_stream.h"
#include "hd/alcm_pairstate.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A candidate that comes within reach along X -> XHAT (twin of alcrCand).
typedef struct alcgCand_ {
    long long key;  ///< ALC_PAIR_KEY(type, a, b) (hd/alcm_pair.h)
    int type;       ///< ALC_PAIR_PT or ALC_PAIR_EE
    int v[4];       ///< stencil vertices: PT {p, t0, t1, t2}; EE {a0, a1, b0, b1}
    int pad;        ///< zero: every byte a member, so copies carry no uninitialized padding
    double toi;     ///< time in [0, 1] at which it comes within xi + ALC_CCD_REACH delta
} alcgCand;

/// Inputs of the narrow phase: the motion, the model's surface primitives and the candidates.
typedef struct alcgCcdNarrowIn_ {
    const double* d_x;        ///< start positions X (nvert x 3) (m) [device]
    const double* d_xhat;     ///< end positions XHAT (nvert x 3) (m) [device]
    const int* d_svert;       ///< vertex of each surface point (nsvert) [device]
    const int* d_edge_vert;   ///< surface edge vertices (nedge x 2) [device]
    const int* d_tri_vert;    ///< surface triangle vertices (ntri x 3) [device]
    const int* d_bpPT;        ///< PT candidates (npt x 2): svert index, triangle [device]
    const int* d_bpEE;        ///< EE candidates (nee x 2): edge, edge [device]
    int npt;                  ///< PT candidates (they come first in the candidate order)
    int nee;                  ///< EE candidates
    double xi;                ///< minimum separation of the time of impact, opt.ccdMinSep (m)
    double rescale;           ///< ACCD rescale s, opt.ccdRescale
    double gapCap;            ///< gap cap of the rescale (m, alcm_ccd_capRescale); 0: none
    double delta;             ///< contact offset delta of the reach query (m)
    int maxIter;              ///< ACCD iteration cap, opt.ccdMaxIter
    const alcmPair* d_pairs;  ///< the active set sorted by key, for alcm_pair_stepFloor
                              ///< (npair) [device]; NULL when npair is 0
    int npair;                ///< pairs in it
} alcgCcdNarrowIn;

/// Run additive CCD on every candidate c in [0, npt + nee) (PT first, then EE), as
/// alcr_ccd_collect does: toi from alcm_ccd_pt/ee with (alcm_ccd_stepSep of
/// alcm_pair_stepFloor of xi, rescale), and for a pair that hits, reach from a second query with
/// (xi + ALC_CCD_REACH delta, ALC_CCD_REACH_RESCALE). Then the minimum toi and the candidates
/// with reach <= 1, in candidate order (key order when the broad-phase lists are sorted), into
/// d_cand with toi = reach.
/// @param[in]  in          inputs; its device arrays are read only
/// @param[out] d_toi       per-candidate conservative time of impact, 2.0 when none
///                         (npt + nee) [device]
/// @param[out] d_reach     per-candidate time it comes within reach, 2.0 when it does not
///                         (npt + nee) [device]
/// @param[out] d_cand      the candidates within reach, first min(ncollide, cap) of them
///                         (cap) [device]
/// @param[in]  cap         entries d_cand holds
/// @param[out] minToi      smallest toi, 1 when nothing collides [host]
/// @param[out] ncollide    candidates within reach; may exceed cap [host]
/// @param[in]  d_temp      device scratch, or NULL to query its size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL
/// @param[in]  s           stream (last)
/// @return ALC_OK; ALC_ERR_CAPACITY when ncollide > cap (d_cand then holds the first cap pairs,
///         *ncollide the count needed: grow d_cand and call again); ALC_ERR_INVALID_ARG for a
///         bad size or scratch too small, ALC_ERR_CUDA on a failed launch or copy, with the
///         message in s->err.
/// Nullable: d_temp; minToi, ncollide and the arrays when d_temp is NULL (size query); d_cand
///           when cap is 0; the device arrays of `in` when npt + nee is 0
alctStatus alcg_ccdNarrow_collect(const alcgCcdNarrowIn* in, double* d_toi, double* d_reach,
                                  alcgCand* d_cand, int cap, double* minToi, int* ncollide,
                                  void* d_temp, size_t* temp_bytes, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_CCD_NARROW_H_
