// The inversion bound on the device: the largest step along from -> to that keeps every
// protected tetrahedron above its volume target (MaxStepSize's inversion bound, AL paper
// Alg. 1, and the line-search bound, the same function on other inputs). Twin of
// alcr_elastic_maxStep (host/ref/elastic_ref.c). Clean C.
#ifndef ALC_CUDA_TET_BOUND_H_
#define ALC_CUDA_TET_BOUND_H_

#include "alcg_stream.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The tetrahedra and the kinematic mask the bound reads (device copies of model arrays).
typedef struct alcgTetMesh_ {
    int ntet;                    ///< tetrahedra
    const int* d_tet_vert;       ///< vertex indices (ntet x 4) [device]
    const double* d_tet_vol;     ///< rest volume (ntet) (m^3) [device]
    const int* d_tet_model;      ///< alctMaterialModel of each tetrahedron (ntet) [device]
    const unsigned char* d_kin;  ///< 1 for a kinematic vertex this step (nvert) [device]
} alcgTetMesh;

/// Largest alpha in [0, 1] such that every protected tetrahedron keeps, along
/// from + alpha' (to - from) for alpha' in [0, alpha], six times its volume above
/// alcm_tet_invTarget(v6, fraction, rest volume) (ALC_INV_FLOOR, hd/alcm_elastic.h), from
/// alcm_tet_maxStepTo per tetrahedron and a minimum over all, as alcr_elastic_maxStep.
/// Protected: every tetrahedron when allTets is nonzero, else the ALC_MAT_NEOHOOKEAN ones;
/// skipped: those whose four vertices are all kinematic, and those with v6 <= 0 at `from`.
/// @param[in]  mesh        tetrahedra and kinematic mask
/// @param[in]  d_from      start positions (nvert x 3) (m) [device]
/// @param[in]  d_to        end positions (nvert x 3) (m) [device]
/// @param[in]  fraction    allowed fraction of the current volume, in (0, 1)
/// @param[in]  allTets     nonzero: protect every tetrahedron
/// @param[out] alpha       the bound, 1 when nothing limits it [host]
/// @param[in]  d_temp      device scratch, or NULL to query its size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL
/// @param[in]  s           stream (last)
/// @return ALC_OK; ALC_ERR_INVALID_ARG for a bad size or scratch too small; ALC_ERR_CUDA on a
///         failed launch or copy; the message in s->err.
/// Nullable: d_temp; alpha and the arrays when d_temp is NULL (size query); the device arrays
///           when ntet is 0
alctStatus alcg_tetBound_maxStep(const alcgTetMesh* mesh, const double* d_from, const double* d_to,
                                 double fraction, int allTets, double* alpha, void* d_temp,
                                 size_t* temp_bytes, alcgStream* s);

/// Largest alpha in [0, min(amax, 1)] whose END POINT from + alpha (to - from) keeps every
/// protected tetrahedron's six-fold volume above its target (the path between may pass below
/// it), from alcm_tet_endStepTo in passes of a minimum over all until every tetrahedron accepts
/// alpha (at most ALC_END_BOUND_PASSES, then the path bound of alcg_tetBound_maxStep capped at
/// amax), as alcr_elastic_endStep. Arguments, scratch, skips and errors as
/// alcg_tetBound_maxStep (the same scratch size serves both).
/// @param[in]  amax   the step asked for (e.g. the CCD bound)
/// @param[out] alpha  the bound [host]
alctStatus alcg_tetBound_endStep(const alcgTetMesh* mesh, const double* d_from, const double* d_to,
                                 double fraction, int allTets, double amax, double* alpha,
                                 void* d_temp, size_t* temp_bytes, alcgStream* s);

/// Each tetrahedron's own bound, as the reference leaves it in redScratch: with alpha < 0 the
/// path bound of alcg_tetBound_maxStep (1 where nothing limits), else the end-point bound of one
/// pass of alcg_tetBound_endStep at alpha (alpha where the end point is valid). The tetrahedra
/// that cut an outer step, which become guard pairs (alcOption.tetGuards), are selected from
/// these with alcm_tet_guardSelect, as alcr_elastic_limitingTets does. Skips as
/// alcg_tetBound_maxStep (a skipped tetrahedron gets the neutral value).
/// @param[in]  mesh      tetrahedra and kinematic mask
/// @param[in]  d_from    start positions (nvert x 3) (m) [device]
/// @param[in]  d_to      end positions (nvert x 3) (m) [device]
/// @param[in]  fraction  allowed fraction of the current volume, in (0, 1)
/// @param[in]  allTets   nonzero: protect every tetrahedron
/// @param[in]  alpha     < 0: the path bound; else the end point at alpha, in [0, 1]
/// @param[out] d_out     the bounds (ntet) [device]
/// @param[in]  s         stream (last)
/// @return ALC_OK; ALC_ERR_INVALID_ARG for a NULL argument or a negative size; ALC_ERR_CUDA on a
///         failed launch; the message in s->err.
/// Nullable: the device arrays when ntet is 0
alctStatus alcg_tetBound_perTet(const alcgTetMesh* mesh, const double* d_from, const double* d_to,
                                double fraction, int allTets, double alpha, double* d_out,
                                alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_TET_BOUND_H_
