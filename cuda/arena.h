// The device memory arena of a CUDA sim (issue 15): one cudaMalloc, sized when the sim is made
// from what the sim will hold, from which every device array of the backend is carved. Freed
// blocks return to the arena and are coalesced with their free neighbours, so the contact
// buffers that grow between iterations reuse what the smaller ones held; a request that no
// free block can hold adds a chunk (one more cudaMalloc, counted as a growth) instead of
// failing or truncating. alcg_malloc and alcg_free (alcg_stream.h) go through the arena of the
// stream when it has one. Host code only; clean C.
#ifndef ALC_CUDA_ARENA_H_
#define ALC_CUDA_ARENA_H_

#include "alcg_stream.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Alignment (bytes) of every block the arena hands out, as cudaMalloc's.
#define ALCG_ARENA_ALIGN 256

/// Bytes a request of n bytes takes in the arena: n rounded up to ALCG_ARENA_ALIGN (0 for 0).
size_t alcg_arena_round(size_t n);

/// What an arena holds (bytes).
typedef struct alcgArenaStats_ {
    size_t reserved;  ///< device memory the arena holds: the sum of its chunks
    size_t used;      ///< in blocks handed out and not freed
    size_t peak;      ///< the largest `used` so far
    int chunks;       ///< cudaMalloc'd chunks: 1 until the arena has grown
    int grows;        ///< chunks added after the first (0 when passing through)
} alcgArenaStats;

/// Reserve an arena of `bytes` (one cudaMalloc) and register it, so that alcg_free finds the
/// blocks it hands out. With bytes == 0 the arena passes through: every request is a cudaMalloc
/// of its own and every release a cudaFree (what a memory checker needs to see each array's
/// bounds: ALC_CUDA_ARENA=0), its statistics still true.
/// @param[out] out  the arena, or NULL on failure; free with alcg_arena_free
/// @param[in]  bytes  the first chunk; 0: pass through
/// @param[in]  s    stream for the failure message
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM (host) or ALC_ERR_DEVICE_NOMEM (with the
///         size and the CUDA error on s).
alctStatus alcg_arena_make(alcgArena** out, size_t bytes, alcgStream* s);

/// Free every chunk of the arena and unregister it: blocks still handed out become invalid.
/// NULL-safe.
void alcg_arena_free(alcgArena* a);

/// Carve n bytes (ALCG_ARENA_ALIGN-aligned) into *p: the first free block that holds them, or
/// a new chunk of max(n, a quarter of what the arena holds) when none does (passing through: a
/// chunk of n). n == 0 gives NULL.
/// @return ALC_OK, or ALC_ERR_DEVICE_NOMEM when a new chunk cannot be allocated (message on s).
alctStatus alcg_arena_alloc(alcgArena* a, void** p, size_t n, alcgStream* s);

/// Return p to the arena that handed it out. @return 1 if some registered arena held p (it is
/// free now), 0 if none did (p is not an arena block; the caller frees it). NULL gives 1.
int alcg_arena_release(void* p);

/// What the arena holds now. NULL gives zeros.
void alcg_arena_stats(const alcgArena* a, alcgArenaStats* out);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_ARENA_H_
