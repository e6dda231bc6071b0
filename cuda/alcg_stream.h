// The execution context every alcg_ wrapper takes last (STYLE.md §6.5): the CUDA stream it
// launches on and the message of its last failure. Clean C: host/ builds without CUDA headers.
#ifndef ALC_CUDA_ALCG_STREAM_H_
#define ALC_CUDA_ALCG_STREAM_H_

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Length of the failure message kept on a stream.
#define ALCG_ERRLEN 512

/// The device memory arena of a sim (cuda/arena.h).
typedef struct alcgArena_ alcgArena;

/// A stream, the arena its allocations come from and the message of the last failure of a
/// wrapper that ran on it.
typedef struct alcgStream_ {
    void* stream;           ///< the cudaStream_t (never the default stream)
    alcgArena* arena;       ///< alcg_malloc carves from it; NULL: each request is a cudaMalloc
    char err[ALCG_ERRLEN];  ///< "cuda/bvh.cu:142 alcg_bvh_build: cudaErrorIllegalAddress"
} alcgStream;

/// Create a stream (cudaStreamNonBlocking) into *s, without an arena, and clear its message.
/// @return ALC_OK, or ALC_ERR_CUDA with the message in s->err.
alctStatus alcg_stream_make(alcgStream* s);

/// Destroy the stream of s. NULL-safe; a stream never made (s->stream NULL) is skipped.
void alcg_stream_free(alcgStream* s);

/// Wait until every operation queued on s has finished.
/// @return ALC_OK, or ALC_ERR_CUDA with the message in s->err.
alctStatus alcg_stream_sync(alcgStream* s);

/// Allocate n bytes of device memory (256-byte aligned) into *p: from s->arena when the stream
/// has one (alcg_arena_alloc), else by cudaMalloc. n == 0 gives NULL.
/// @return ALC_OK, or ALC_ERR_DEVICE_NOMEM with the size in s->err.
alctStatus alcg_malloc(alcgStream* s, void** p, size_t n);

/// Free device memory from alcg_malloc: back to its arena, or cudaFree. NULL-safe.
void alcg_free(void* p);

/// Copy n bytes host -> device (upload) or device -> host (download) on s, then synchronize.
/// @return ALC_OK, or ALC_ERR_CUDA with the message in s->err.
alctStatus alcg_upload(alcgStream* s, void* d_dst, const void* h_src, size_t n);
alctStatus alcg_download(alcgStream* s, void* h_dst, const void* d_src, size_t n);

/// The device's free and total memory (bytes), as cudaMemGetInfo; both 0 when it fails.
void alcg_memInfo(size_t* freeBytes, size_t* totalBytes);

/// Set n bytes of device memory to the byte value on s.
alctStatus alcg_memset(alcgStream* s, void* d_dst, int value, size_t n);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_ALCG_STREAM_H_
