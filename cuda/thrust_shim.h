// Sort and scan on the device behind C functions (STYLE.md §8): cuda/thrust_shim.cu is the only
// file that includes Thrust or CUB, so no C++ type reaches the rest of the code. Every function
// is two-phase in CUB's style (STYLE.md §6.4): called with d_temp == NULL it writes the scratch
// size it needs into *temp_bytes and returns; called with scratch it runs on the stream.
//
// The scratch size for n items is an upper bound for every n' <= n, so scratch sized once for a
// capacity serves every smaller call. In the emulated build (ALC_EMU) the same functions run
// Thrust's sequential (CPP) system on the host copies that stand in for device memory.
#ifndef ALC_CUDA_THRUST_SHIM_H_
#define ALC_CUDA_THRUST_SHIM_H_

#include "alcg_stream.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Sort n (key, value) pairs by key, ascending, in place; values are permuted along with their
/// keys. Equal keys keep no particular order (make keys unique for a deterministic result).
/// @param[in,out] d_keys      keys (n) [device]
/// @param[in,out] d_vals      values (n) [device]; NULL sorts the keys alone
/// @param[in]     n           items, >= 0
/// @param[in]     d_temp      scratch of *temp_bytes bytes [device]; NULL asks for the size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL
/// @param[in]     s           stream the sort runs on; its message receives a failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG (n < 0, NULL keys with n > 0), ALC_ERR_CAPACITY (the sort
///         needed more scratch than *temp_bytes), ALC_ERR_CUDA, each with the message on s.
/// Nullable: d_vals, d_temp; d_keys when n == 0
alctStatus alcg_sortPairsU64(unsigned long long* d_keys, int* d_vals, int n, void* d_temp,
                             size_t* temp_bytes, alcgStream* s);

/// Exclusive prefix sum: d_out[i] = d_in[0] + ... + d_in[i-1], d_out[0] = 0. d_out may equal
/// d_in (in place). Sums are int; the caller keeps them below INT_MAX.
/// @param[in]     d_in        values (n) [device]
/// @param[out]    d_out       prefix sums (n) [device]
/// @param[in]     n           items, >= 0
/// @param[out]    total       sum of all n values [host]; synchronizes the stream when given
/// @param[in]     d_temp      scratch of *temp_bytes bytes [device]; NULL asks for the size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL
/// @param[in]     s           stream the scan runs on; its message receives a failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_CAPACITY, ALC_ERR_CUDA, with the message on s.
/// Nullable: total, d_temp; d_in and d_out when n == 0
alctStatus alcg_exclusiveScanI32(const int* d_in, int* d_out, int n, int* total, void* d_temp,
                                 size_t* temp_bytes, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_THRUST_SHIM_H_
