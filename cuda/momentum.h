// Momentum-exact Newton directions on the device. Twin of host/ref/momentum_ref.c, whose comment
// gives the reason: PCG stops at a relative residual, and the residual's net force changes the
// momentum of an isolated body; on a component of the matrix graph that touches no kinematic
// vertex, shifting p uniformly by c = -(sum G + sum M p) / sum M restores the balance exactly.
// Clean C.
//
// The components are labelled on the device when the pattern or the kinematic mask changes:
// each free vertex hooks the root of the larger label under the smaller (atomicMin; labels only
// decrease, so the result, the smallest vertex of each component, does not depend on the
// order) until no block joins two roots; the free vertices are then sorted by (component,
// vertex), and each component's sums are one block's reduction over its run: a fixed order, so
// the correction is bitwise reproducible (its sums are ordered differently from the
// reference's serial ones).
#ifndef ALC_CUDA_MOMENTUM_H_
#define ALC_CUDA_MOMENTUM_H_

#include "alcg_stream.h"
#include "bsr.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Components of the free vertices and the scratch of the correction (sized at make time).
typedef struct alcgMomentum_ {
    int nvert;                   ///< vertices
    int ncomp;                   ///< components of the last labelling (-1: none)
    int* d_label;                ///< union-find labels, then the root of each free vertex; -1
                                 ///< kinematic (nvert) [device]
    int* d_anchored;             ///< per root: 1 when it couples to a kinematic vertex (nvert)
                                 ///< [device]
    unsigned long long* d_keys;  ///< root << 32 | vertex, sorted (nvert) [device]
    int* d_pos;                  ///< run flags, then the component of each sorted entry (nvert + 1)
                                 ///< [device]
    int* d_start;                ///< first sorted entry of each component (nvert + 1) [device]
    double* d_sum;               ///< per component: sum G + M p (3) and the mass (4 nvert) [device]
    int* d_flag;                 ///< [0] a hook happened [device]
    void* d_temp;                ///< sort and scan scratch [device]
    size_t tempBytes;            ///< its size
} alcgMomentum;

/// Allocate M for nvert vertices.
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_DEVICE_NOMEM or ALC_ERR_CUDA, with the message
///         on s.
alctStatus alcg_momentum_make(alcgMomentum* M, int nvert, alcgStream* s);

/// Free M's device arrays and zero it. NULL-safe.
void alcg_momentum_free(alcgMomentum* M);

/// Device bytes alcg_momentum_make will allocate (unrounded) for nvert vertices, into *bytes.
/// @return ALC_OK, or a failure of the scratch size queries, with the message on s.
alctStatus alcg_momentum_need(int nvert, size_t* bytes, alcgStream* s);

/// Label the components of the free vertices in A's pattern, and mark those that couple to a
/// kinematic vertex (a block between a free and a kinematic vertex). Call it after every change
/// of A's pattern or of the kinematic mask. Synchronizes s (once per hooking round).
/// @param[in,out] M      from alcg_momentum_make
/// @param[in]     A      the matrix whose pattern is read (M->nvert rows)
/// @param[in]     d_kin  1 for a kinematic vertex (nvert) [device]
/// @param[in]     s      stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_momentum_label(alcgMomentum* M, const alcgBsr* A, const unsigned char* d_kin,
                               alcgStream* s);

/// p_i -= (sum_c G + sum_c m p) / sum_c m on every vertex of every unanchored component c with
/// a positive mass, as alcr_momentum_correct.
/// @param[in]     M       labelled (alcg_momentum_label)
/// @param[in]     d_g     gradient G (nvert x 3) [device]
/// @param[in]     d_mass  lumped masses (nvert) (kg) [device]
/// @param[in,out] d_p     Newton direction (nvert x 3) [device]
/// @param[in]     s       stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG (not labelled) or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_momentum_correct(alcgMomentum* M, const double* d_g, const double* d_mass,
                                 double* d_p, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_MOMENTUM_H_
