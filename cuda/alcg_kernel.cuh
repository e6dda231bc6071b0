// House rules for kernels, as code (docs/architecture.md "Kernels"). Included by every cuda/*.cu
// after <cuda_runtime.h>. The same source compiles with nvcc for the device and with the host
// compiler against the SIMT emulation (emu/cuda_emu.h, force-included): everything that differs
// between the two lives here or in the emulation, never in a kernel body.
//   - launches go through ALCG_LAUNCH (host compilers cannot parse <<<>>>);
//   - dynamic shared memory comes from alcg_dynamicShared<T>();
//   - warp collectives take ALCG_FULL_MASK, and tail threads stay in the warp (they compute a
//     neutral value instead of returning before a collective);
//   - no __CUDA_ARCH__ branches in kernel bodies;
//   - every wrapper checks its launches (ALCG_LAUNCH_CHECK) and records failures on its stream.
#ifndef ALC_CUDA_ALCG_KERNEL_CUH_
#define ALC_CUDA_ALCG_KERNEL_CUH_

#include "alcg_stream.h"

#include <cuda_runtime.h>

#include <stdio.h>

/// Every lane of a warp.
#define ALCG_FULL_MASK 0xffffffffu

/// Threads per block of the 1D kernels.
#define ALCG_BLOCK 256

/// Launch kernel<<<grid, block, shmem, stream>>>(args...) on the device, or in the emulation.
#if defined(ALC_EMU)
#define ALCG_LAUNCH(kernel, grid, block, shmem, stream, ...)                               \
    alc_emu::launch(#kernel, __FILE__, __LINE__, dim3(grid), dim3(block), (size_t)(shmem), \
                    (cudaStream_t)(stream), [=]() { kernel(__VA_ARGS__); })
#else
#define ALCG_LAUNCH(kernel, grid, block, shmem, stream, ...) \
    kernel<<<(grid), (block), (shmem), (cudaStream_t)(stream)>>>(__VA_ARGS__)
#endif

/// The block's dynamic shared memory (the launch's shmem bytes), 16-byte aligned.
template <typename T>
__device__ __forceinline__ T* alcg_dynamicShared() {
#if defined(ALC_EMU)
    return reinterpret_cast<T*>(alc_emu::dynamicShared());
#else
    extern __shared__ __align__(16) unsigned char alcg_dynSmem[];
    return reinterpret_cast<T*>(alcg_dynSmem);
#endif
}

/// Blocks of `block` threads covering n items (at least 1).
static inline unsigned alcg_blocks(long long n, int block) {
    long long b = (n + block - 1) / block;
    return (unsigned)(b > 0 ? b : 1);
}

/// Record "file:line func: what: cudaError" on the stream's message.
static inline void alcg_record(alcgStream* s, const char* file, int line, const char* func,
                               const char* what, cudaError_t e) {
    if (s) {
        snprintf(s->err, sizeof s->err, "%s:%d %s: %s: %s", file, line, func, what,
                 cudaGetErrorName(e));
    }
}

/// Evaluate a CUDA runtime call; on failure record it on s and `goto fail`.
#define ALCG_CUDA_TRY(s, call)                                              \
    do {                                                                    \
        cudaError_t alcg_e_ = (call);                                       \
        if (alcg_e_ != cudaSuccess) {                                       \
            alcg_record((s), __FILE__, __LINE__, __func__, #call, alcg_e_); \
            goto fail;                                                      \
        }                                                                   \
    } while (0)

/// Check the last launch (cudaGetLastError); with ALCG_SYNC_CHECK also synchronize the stream,
/// so a fault is reported at the launch that caused it. On failure record it and `goto fail`.
#if defined(ALCG_SYNC_CHECK) || defined(ALC_EMU)
#define ALCG_LAUNCH_CHECK(s)                                                                    \
    do {                                                                                        \
        cudaError_t alcg_e_ = cudaGetLastError();                                               \
        if (alcg_e_ == cudaSuccess) alcg_e_ = cudaStreamSynchronize((cudaStream_t)(s)->stream); \
        if (alcg_e_ != cudaSuccess) {                                                           \
            alcg_record((s), __FILE__, __LINE__, __func__, "kernel launch", alcg_e_);           \
            goto fail;                                                                          \
        }                                                                                       \
    } while (0)
#else
#define ALCG_LAUNCH_CHECK(s)                                                          \
    do {                                                                              \
        cudaError_t alcg_e_ = cudaGetLastError();                                     \
        if (alcg_e_ != cudaSuccess) {                                                 \
            alcg_record((s), __FILE__, __LINE__, __func__, "kernel launch", alcg_e_); \
            goto fail;                                                                \
        }                                                                             \
    } while (0)
#endif

/// NVTX range over a wrapper's body (compiled out with ALC_NVTX=0 and in the emulation).
#if ALC_NVTX && !defined(ALC_EMU)
#include <nvtx3/nvToolsExt.h>
struct alcgRange {
    explicit alcgRange(const char* name) { nvtxRangePushA(name); }
    ~alcgRange() { nvtxRangePop(); }
};
#define ALCG_RANGE(name) alcgRange alcg_range_(name)
#else
#define ALCG_RANGE(name) ((void)0)
#endif

#endif  // ALC_CUDA_ALCG_KERNEL_CUH_
