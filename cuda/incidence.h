// Per-vertex incidence lists of 4-vertex stencils on the device, shared by the contact
// (cuda/al_contact.cu) and friction (cuda/friction.cu) assemblies. Clean C: host/ builds
// without CUDA headers.
//
// Item p's slot a (0..3) is the incidence q = 4 p + a of vertex v[a]. The keys
// vertex << 32 | q are unique, so after the sort the list holds, vertex by vertex, the
// incidences in ascending (item, slot) order: a gather over a vertex's list is deterministic.
#ifndef ALC_CUDA_INCIDENCE_H_
#define ALC_CUDA_INCIDENCE_H_

#include "alcg_stream.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Build the incidence lists of n items whose stencils v[4] lie strideInts ints apart, in the
/// two-phase style of cuda/thrust_shim.h: called with d_temp == NULL it writes the scratch size
/// for n items into *temp_bytes and returns (an upper bound for every n' <= n); called with
/// scratch it runs on the stream.
///
/// A stencil vertex outside [0, nvert) sorts past every valid key (no vertex lists it); with
/// d_bad they are counted there, and the call waits for the count and fails when it is not 0.
/// @param[in]     d_v         first vertex of item 0's v[4] [device]
/// @param[in]     strideInts  ints from one item's v to the next's, >= 4
/// @param[in]     n           items, 0 <= n <= INT_MAX / 4
/// @param[in]     nvert       vertices, >= 0
/// @param[out]    d_adr       vertex starts (nvert + 1): vertex i's incidences are
///                            d_list[d_adr[i] .. d_adr[i + 1]) [device]
/// @param[out]    d_list      incidences 4 p + a (4 n) [device]
/// @param[out]    d_keys      sort keys (4 n), scratch [device]
/// @param[out]    d_bad       count of out-of-range stencil vertices (1) [device]
/// @param[in]     d_temp      sort scratch of *temp_bytes bytes [device]; NULL asks for the size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL
/// @param[in]     s           stream the build runs on; its message receives a failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG (bad sizes, NULL arrays, out-of-range vertices),
///         ALC_ERR_CAPACITY (too little scratch), ALC_ERR_CUDA, with the message on s.
/// Nullable: d_bad, d_temp; d_v, d_list and d_keys when n == 0
alctStatus alcg_incidence_build(const int* d_v, size_t strideInts, int n, int nvert, int* d_adr,
                                int* d_list, unsigned long long* d_keys, int* d_bad, void* d_temp,
                                size_t* temp_bytes, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_INCIDENCE_H_
