// The AL active set on the device: UpdateActiveSet (AL paper Alg. 3) merges the pairs that come
// within reach (cuda/ccd_narrow.h) into the active set C, and the linearization of Eq. 10
// evaluates d and grad d at X for every pair of C. Twins of alcr_contact_merge and
// alcr_contact_linearize (host/ref/contact_ref.c). Clean C.
#ifndef ALC_CUDA_ACTIVE_SET_H_
#define ALC_CUDA_ACTIVE_SET_H_

#include "alcg_stream.h"
#include "ccd_narrow.h"
#include "hd/alcm_pairstate.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// An active contact pair with its AL state and its linearization at X: the layout the
/// reference backend uses too (hd/alcm_pairstate.h).
typedef alcmPair alcgPair;

/// UpdateActiveSet, AL paper Alg. 3, as alcr_contact_merge: the new pairs are the candidates
/// whose key is not in C; a new pair is kept when its toi equals the earliest toi among the new
/// pairs at one of its vertices (lines 7-15); the pairs of C with gamma >= removeBelow survive
/// (lines 16-20). The merged set goes to d_out in key order, survivors as they were (every
/// field copied), new pairs with lambda = 0, gamma = 1 and every other field zero. The result
/// does not depend on thread scheduling.
/// @param[in]  d_pairs      active set C, strictly ascending keys (npair) [device]
/// @param[in]  npair        pairs in C
/// @param[in]  d_cand       candidates within reach with their times, strictly ascending keys
///                          (ncand) [device], as alcg_ccdNarrow_collect writes them
/// @param[in]  ncand        candidates
/// @param[in]  nvert        vertices of the model (the stencils index below it)
/// @param[in]  removeBelow  gamma threshold of Alg. 3
/// @param[out] d_out        merged set (cap) [device]; must not overlap d_pairs
/// @param[in]  cap          entries d_out holds
/// @param[out] nactive      pairs in the merged set, also when they exceed cap [host]
/// @param[out] changed      1 when a pair left or joined (the incidences and the Hessian
///                          pattern must be rebuilt), else 0 [host]
/// @param[in]  d_temp       device scratch, or NULL to query its size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL
/// @param[in]  s            stream (last)
/// @return ALC_OK; ALC_ERR_CAPACITY when *nactive > cap (nothing written to d_out: grow it and
///         call again); ALC_ERR_INVALID_ARG for a bad size, keys not strictly ascending or scratch
///         too small; ALC_ERR_CUDA on a failed launch or copy; the message in s->err.
/// Nullable: changed, d_temp; nactive and the arrays when d_temp is NULL (size query); d_pairs
///           when npair is 0, d_cand when ncand is 0, d_out when cap is 0
alctStatus alcg_activeSet_merge(const alcgPair* d_pairs, int npair, const alcgCand* d_cand,
                                int ncand, int nvert, double removeBelow, alcgPair* d_out, int cap,
                                int* nactive, int* changed, void* d_temp, size_t* temp_bytes,
                                alcgStream* s);

/// Linearize the constraints at X, AL paper Eq. 10: d (m) and grad d of every pair, from
/// alcm_pt_distance / alcm_ee_distance, and a tetrahedron guard's (alcOption.tetGuards) from
/// alcm_tet_guardLinearize, as alcr_contact_linearize.
/// @param[in]     d_x       positions X (nvert x 3) (m) [device]
/// @param[in,out] d_pairs   pairs; d and g written (npair) [device]
/// @param[in]     npair     pairs
/// @param[in]     d_tetVol  rest volumes of the tetrahedra (m^3) [device], read by guards only
/// @param[in]     fraction  the inversion bound's fraction of the current volume (guards)
/// @param[in]     delta     the contact offset (m) (guards)
/// @param[in]     s         stream (last)
/// @return ALC_OK; ALC_ERR_INVALID_ARG; ALC_ERR_CUDA on a failed launch; the message in s->err.
/// Nullable: d_x and d_pairs when npair is 0; d_tetVol when no pair is a guard
alctStatus alcg_activeSet_linearize(const double* d_x, alcgPair* d_pairs, int npair,
                                    const double* d_tetVol, double fraction, double delta,
                                    alcgStream* s);

/// How many pairs of the active set are tetrahedron guards (alcOption.tetGuards): their keys,
/// and only theirs, are negative, so they are the sorted set's prefix (a binary search).
/// @param[in]  d_pairs    pairs in key order (npair) [device]
/// @param[in]  npair      pairs
/// @param[in]  d_scratch  one int [device]
/// @param[out] nguards    the count [host]
/// @param[in]  s          stream (last)
/// @return ALC_OK; ALC_ERR_INVALID_ARG; ALC_ERR_CUDA on a failed launch or copy; the message in
///         s->err.
/// Nullable: d_pairs and d_scratch when npair is 0
alctStatus alcg_activeSet_countGuards(const alcgPair* d_pairs, int npair, int* d_scratch,
                                      int* nguards, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_ACTIVE_SET_H_
