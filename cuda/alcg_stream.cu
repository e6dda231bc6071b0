// Streams, device memory and copies for the alcg_ wrappers (cuda/alcg_stream.h).
#include "alcg_kernel.cuh"
#include "arena.h"

#include <cuda_runtime.h>

extern "C" alctStatus alcg_stream_make(alcgStream* s) {
    s->err[0] = 0;
    s->arena = NULL;
    cudaStream_t st = NULL;
    ALCG_CUDA_TRY(s, cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    s->stream = (void*)st;
    return ALC_OK;
fail:
    s->stream = NULL;
    return ALC_ERR_CUDA;
}

extern "C" void alcg_stream_free(alcgStream* s) {
    if (!s || !s->stream) return;
    cudaStreamDestroy((cudaStream_t)s->stream);
    s->stream = NULL;
}

extern "C" alctStatus alcg_stream_sync(alcgStream* s) {
    ALCG_CUDA_TRY(s, cudaStreamSynchronize((cudaStream_t)s->stream));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_malloc(alcgStream* s, void** p, size_t n) {
    *p = NULL;
    if (n == 0) return ALC_OK;
    if (s->arena) return alcg_arena_alloc(s->arena, p, n, s);
    cudaError_t e = cudaMalloc(p, n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(s->err, sizeof s->err, "%s:%d %s: cannot allocate %zu bytes of device memory: %s",
                 __FILE__, __LINE__, __func__, n, cudaGetErrorName(e));
        *p = NULL;
        return ALC_ERR_DEVICE_NOMEM;
    }
    return ALC_OK;
}

extern "C" void alcg_free(void* p) {
    if (p && !alcg_arena_release(p)) cudaFree(p);
}

extern "C" alctStatus alcg_upload(alcgStream* s, void* d_dst, const void* h_src, size_t n) {
    if (n == 0) return ALC_OK;
    ALCG_CUDA_TRY(
        s, cudaMemcpyAsync(d_dst, h_src, n, cudaMemcpyHostToDevice, (cudaStream_t)s->stream));
    ALCG_CUDA_TRY(s, cudaStreamSynchronize((cudaStream_t)s->stream));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_download(alcgStream* s, void* h_dst, const void* d_src, size_t n) {
    if (n == 0) return ALC_OK;
    ALCG_CUDA_TRY(
        s, cudaMemcpyAsync(h_dst, d_src, n, cudaMemcpyDeviceToHost, (cudaStream_t)s->stream));
    ALCG_CUDA_TRY(s, cudaStreamSynchronize((cudaStream_t)s->stream));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_memset(alcgStream* s, void* d_dst, int value, size_t n) {
    if (n == 0) return ALC_OK;
    ALCG_CUDA_TRY(s, cudaMemsetAsync(d_dst, value, n, (cudaStream_t)s->stream));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" void alcg_memInfo(size_t* freeBytes, size_t* totalBytes) {
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
        cudaGetLastError();
        f = t = 0;
    }
    if (freeBytes) *freeBytes = f;
    if (totalBytes) *totalBytes = t;
}
