// The Newton matrix's block pattern on the device (AL paper §5.1): the static upper pattern of
// the elements (cuda/elastic.h) merged with the blocks of the contact and friction stencils,
// rebuilt whenever the active set changes (the contact blocks are placed per change of the set,
// not per element). Twin of alcr_bsr_setPattern (host/ref/bsr_ref.c), which stores both
// triangles. Clean C.
#ifndef ALC_CUDA_PATTERN_H_
#define ALC_CUDA_PATTERN_H_

#include "alcg_stream.h"
#include "bsr.h"
#include "elastic.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Scratch of the pattern build, sized for a stencil capacity (nothing allocates in a step).
typedef struct alcgPattern_ {
    int nvert;                   ///< block rows
    int nstatic;                 ///< static upper blocks
    int stencilCap;              ///< stencils a build takes (contact + friction)
    int keyCap;                  ///< nstatic + 6 stencilCap
    unsigned long long* d_keys;  ///< row << 32 | column (keyCap) [device]
    int* d_pos;                  ///< first-occurrence flags, then their exclusive scan (keyCap)
                                 ///< [device]
    void* d_temp;                ///< scratch of the sort, the scan and the transpose [device]
    size_t tempBytes;            ///< its size
} alcgPattern;

/// A set of 4-vertex stencils in device memory: item i's vertices at d_v + i * strideInts.
typedef struct alcgStencils_ {
    const int* d_v;     ///< first vertex of item 0 [device]
    size_t strideInts;  ///< ints from one item's vertices to the next's (>= 4)
    int n;              ///< items
} alcgStencils;

/// Allocate P for the static pattern of E and up to stencilCap stencils, with scratch for the
/// transpose of a matrix of matCap blocks.
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_DEVICE_NOMEM or ALC_ERR_CUDA, with the message
///         on s.
alctStatus alcg_pattern_make(alcgPattern* P, const alcgElastic* E, int stencilCap, int matCap,
                             alcgStream* s);

/// Free P's device arrays and zero it. NULL-safe.
void alcg_pattern_free(alcgPattern* P);

/// Device bytes alcg_pattern_make will allocate (unrounded) for an elasticity of nvert vertices
/// and nstatic static blocks, into *bytes (0 on failure).
/// @return ALC_OK, or the failure of alcg_pattern_make's size checks, with the message on s.
alctStatus alcg_pattern_need(int nvert, int nstatic, int stencilCap, int matCap, size_t* bytes,
                             alcgStream* s);

/// Set A's pattern to the union of E's static upper pattern and the upper blocks (min, max) of
/// every vertex pair of every stencil of a and b (a radix sort of the unique keys row << 32 |
/// column, then the rows from the sorted keys: deterministic), build A's transpose index and
/// bind E's slots to it (alcg_elastic_bind). Synchronizes s.
/// @param[in,out] P  scratch from alcg_pattern_make with E
/// @param[in,out] E  elasticity whose static pattern is merged; bound to A afterwards
/// @param[in]     a  contact stencils (a->n + b->n <= P->stencilCap)
/// @param[in]     b  friction stencils
/// @param[in,out] A  matrix of E->nvert rows; its pattern is written
/// @param[out]    needed  blocks the pattern has (also when it exceeds A->cap) [host]
/// @param[in]     s  stream (last)
/// @return ALC_OK; ALC_ERR_CAPACITY when the pattern exceeds A->cap (A's pattern untouched, the
///         count in *needed and in the message) or the stencils exceed P->stencilCap;
///         ALC_ERR_INVALID_ARG (a stencil vertex outside [0, nvert), the count in the message);
///         ALC_ERR_CUDA; with the message on s.
/// Nullable: needed; a->d_v when a->n is 0, b->d_v when b->n is 0
alctStatus alcg_pattern_build(alcgPattern* P, alcgElastic* E, const alcgStencils* a,
                              const alcgStencils* b, alcgBsr* A, int* needed, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_PATTERN_H_
