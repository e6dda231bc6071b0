// The carry-along placement of moving boundaries on the device (host/hd/alcm_kincarry.h has
// the rule and why; host/ref/backend_ref.c kinCarryTrial is the twin): when the kinematic
// vertices cannot go onto their targets alone, the free vertices of their bodies move by the
// driven vertices' mean displacement plus what is left of the displacement of the driven
// vertices near them, spread ring by ring over the mesh graph and smoothed. One kernel launch
// per sweep; every sweep reads only what the previous one wrote, so the result does not depend
// on thread order and equals the reference's but for the per-body mean (a tree sum here).
// Clean C.
#ifndef ALC_CUDA_KIN_CARRY_H_
#define ALC_CUDA_KIN_CARRY_H_

#include "alcg_stream.h"
#include "step_vec.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The mesh graph's rows and the sweeps' scratch (sized at make time).
typedef struct alcgKinCarry_ {
    int nvert;        ///< vertices
    int* d_rowptr;    ///< rows of the mesh graph (nvert + 1; alci_vertexRows) [device]
    int* d_col;       ///< their columns, ascending, the vertex itself included [device]
    int* d_level;     ///< ring of each vertex (nvert) [device]
    double* d_carry;  ///< carried displacement, two buffers (2 x 3 nvert) (m) [device]
} alcgKinCarry;

/// Upload the rows of the mesh graph and allocate the scratch.
/// @param[out] K        zeroed first
/// @param[in]  nvert    vertices, >= 0
/// @param[in]  rowptr   rows (nvert + 1) [host], as alci_vertexRows writes them
/// @param[in]  col      columns (rowptr[nvert]) [host]
/// @param[in]  s        stream
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_DEVICE_NOMEM or ALC_ERR_CUDA, with the message
///         on s (K is freed on failure).
alctStatus alcg_kinCarry_make(alcgKinCarry* K, int nvert, const int* rowptr, const int* col,
                              alcgStream* s);

/// Free K's device arrays and zero it. NULL-safe.
void alcg_kinCarry_free(alcgKinCarry* K);

/// Device bytes alcg_kinCarry_make will allocate (unrounded) for nvert vertices whose rows hold
/// nnz columns.
size_t alcg_kinCarry_need(int nvert, long long nnz);

/// The carry-along trial: for every free vertex of a body with some but not all vertices
/// kinematic, d_trial := d_xhat + the body's mean kinematic displacement d_target - d_xhat +
/// the carried rest (alcm_kincarry.h); other vertices keep d_trial.
/// @param[in]     K         from alcg_kinCarry_make
/// @param[in]     B         bodies
/// @param[in]     d_kin     kinematic mask (nvert) [device]
/// @param[in]     d_xhat    the iterate (nvert x 3) (m) [device]
/// @param[in]     d_target  kinematic targets (nvert x 3) (m) [device]
/// @param[in,out] d_trial   positions (nvert x 3) (m) [device]
/// @param[in]     s         stream
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_kinCarry_trial(alcgKinCarry* K, const alcgBodies* B, const unsigned char* d_kin,
                               const double* d_xhat, const double* d_target, double* d_trial,
                               alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_KIN_CARRY_H_
