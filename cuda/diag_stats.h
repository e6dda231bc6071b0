// The diagonal statistics of the Newton matrix that set the AL penalty stiffness (AL paper
// Eq. 20): the largest free diagonal entry, and the 99th percentile of the free vertices'
// largest entries from a histogram of binary exponents (issue 14: one nearly degenerate element
// must not set mu for the whole scene). Twin of the statistics at the end of
// alcr_elastic_assemble (host/ref/elastic_ref.c). Clean C.
#ifndef ALC_CUDA_DIAG_STATS_H_
#define ALC_CUDA_DIAG_STATS_H_

#include "alcg_stream.h"
#include "bsr.h"
#include "elastic.h"

#include "alc/alc_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Bins of the exponent histogram (as the reference's ALCR_DIAG_BINS): exponents -1050..1049.
#define ALCG_DIAG_BINS 2100

/// Ints of device scratch alcg_diagStats needs.
#define ALCG_DIAG_SCRATCH (ALCG_DIAG_BINS + 1)

/// From the diagonal blocks of A (E bound to A): *maxDiag = the largest diagonal entry of a
/// free vertex (0 when none), *q99 = 2^e for the highest exponent bin e at or below which lie
/// more than 1 % of the free vertices with a positive entry, counted from the top (0 when there
/// are none): the 99th percentile within a factor 2 above. Integer histogram: exact whatever
/// the order.
/// @param[in]  E          elasticity bound to A
/// @param[in]  A          the assembled matrix
/// @param[in]  d_kin      1 for a kinematic vertex (nvert) [device]
/// @param[in]  d_scratch  ALCG_DIAG_SCRATCH ints [device]
/// @param[in]  d_out      2 doubles of device scratch [device]
/// @param[out] maxDiag, q99  [host]; synchronizes s
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_diagStats(const alcgElastic* E, const alcgBsr* A, const unsigned char* d_kin,
                          int* d_scratch, double* d_out, double* maxDiag, double* q99,
                          alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_DIAG_STATS_H_
