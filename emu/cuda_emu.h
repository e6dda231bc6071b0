// alcove's SIMT emulation of the CUDA execution model: the header force-included (g++ -include)
// when cuda/*.cu are compiled for the CPU (`make emu`). It is a test harness, not a backend:
// kernels written for nvcc run unchanged on the host so that `make test` can hold them against
// the reference backend (docs/architecture.md "The SIMT emulation").
//
// Model. A launch runs its blocks on a small pool of host threads (real atomics between them);
// inside a block every CUDA thread is a user-level fiber with its own stack. A fiber runs until
// it reaches a barrier (__syncthreads), a __syncwarp or a warp collective (__shfl*_sync, votes,
// __match_any_sync, __reduce_*_sync) or returns; the scheduler runs one warp at a time, lanes and
// warps in an order shuffled from a seed (ALC_EMU_SEED), and completes a collective only when
// every lane its mask names has reached the same collective with the same mask. A collective or
// barrier that cannot complete (a named lane exited, waits elsewhere, or is not in the mask) is
// reported with kernel, block, thread and source line, and the launch fails with
// cudaErrorLaunchFailure instead of hanging. __shared__ memory (static, and dynamic through
// alcg_dynamicShared) is one copy per block, filled with 0xFF bytes (NaN for floating point) as
// each block starts, so a missing barrier reads garbage instead of a stale right answer.
//
// Under AddressSanitizer each fiber switch is announced to ASan; under ThreadSanitizer each
// emulated thread is a TSan fiber, switches carry no ordering, and barriers and __syncwarp are
// release/acquire edges: a shared-memory race between emulated threads is reported at its line.
//
// Everything is synchronous: streams and events are host operations, copies are memcpy.
#ifndef ALC_EMU_CUDA_EMU_H_
#define ALC_EMU_CUDA_EMU_H_

#ifndef __cplusplus
#error "emu/cuda_emu.h is for C++ translation units (cuda/*.cu compiled with -x c++)"
#endif

#include <atomic>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <type_traits>

#define ALC_EMU 1

// ---- keywords -------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ __attribute__((always_inline)) inline
#define __align__(n)    __attribute__((aligned(n)))
#define __launch_bounds__(...)
// one copy per block: a thread_local in its own TLS section, poisoned as each block starts
#define __shared__ __attribute__((section(".tbss.alc_emu_shm1"), aligned(16))) static thread_local

// ---- vector types ---------------------------------------------------------------------------
struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};
#define ALC_EMU_VEC2(T, N)                     \
    struct N##2 {                              \
        T x, y;                                \
    };                                         \
    static inline N##2 make_##N##2(T x, T y) { \
        return N##2 {x, y};                    \
    }
#define ALC_EMU_VEC3(T, N)                          \
    struct N##3 {                                   \
        T x, y, z;                                  \
    };                                              \
    static inline N##3 make_##N##3(T x, T y, T z) { \
        return N##3 {x, y, z};                      \
    }
#define ALC_EMU_VEC4(T, N)                                \
    struct __attribute__((aligned(4 * sizeof(T)))) N##4 { \
        T x, y, z, w;                                     \
    };                                                    \
    static inline N##4 make_##N##4(T x, T y, T z, T w) {  \
        return N##4 {x, y, z, w};                         \
    }
ALC_EMU_VEC2(int, int)
ALC_EMU_VEC3(int, int)
ALC_EMU_VEC4(int, int)
ALC_EMU_VEC2(unsigned, uint)
ALC_EMU_VEC4(unsigned, uint)
ALC_EMU_VEC2(float, float)
ALC_EMU_VEC3(float, float)
ALC_EMU_VEC4(float, float)
ALC_EMU_VEC2(double, double)
ALC_EMU_VEC3(double, double)
ALC_EMU_VEC2(long long, longlong)
static inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) {
    return uint3{x, y, z};
}

// ---- runtime API types ----------------------------------------------------------------------
typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchFailure = 719,
    cudaErrorUnknown = 999
} cudaError_t;

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
} cudaMemcpyKind;

struct CUstream_st;
struct CUevent_st;
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;

#define cudaStreamDefault      0x00
#define cudaStreamNonBlocking  0x01
#define cudaEventDefault       0x00
#define cudaEventDisableTiming 0x02

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int multiProcessorCount;
    int major;
    int minor;
};

extern "C" {
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaMemGetInfo(size_t* free, size_t* total);
cudaError_t cudaMalloc(void** p, size_t bytes);
cudaError_t cudaFree(void* p);
cudaError_t cudaMallocHost(void** p, size_t bytes);
cudaError_t cudaFreeHost(void* p);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream);
cudaError_t cudaMemset(void* dst, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaStreamCreate(cudaStream_t* s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaStreamQuery(cudaStream_t s);
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags);
cudaError_t cudaEventCreate(cudaEvent_t* e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventQuery(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char* cudaGetErrorString(cudaError_t e);
const char* cudaGetErrorName(cudaError_t e);
}

template <typename T>
static inline cudaError_t cudaMalloc(T** p, size_t bytes) {
    return cudaMalloc(reinterpret_cast<void**>(p), bytes);
}
template <typename T>
static inline cudaError_t cudaMallocHost(T** p, size_t bytes) {
    return cudaMallocHost(reinterpret_cast<void**>(p), bytes);
}

// ---- the scheduler's interface --------------------------------------------------------------
namespace alc_emu {

/// What an emulated thread sees of itself.
struct ThreadInfo {
    uint3 tid;      // threadIdx
    unsigned lane;  // lane in its warp
};
/// What every thread of the running block sees.
struct BlockInfo {
    uint3 idx;   // blockIdx
    uint3 dim;   // blockDim
    uint3 grid;  // gridDim
};

/// Warp collective operations (the scheduler completes them when the mask has arrived).
enum Op {
    OP_SHFL,
    OP_SHFL_UP,
    OP_SHFL_DOWN,
    OP_SHFL_XOR,
    OP_BALLOT,
    OP_ANY,
    OP_ALL,
    OP_MATCH_ANY,
    OP_MATCH_ALL,
    OP_REDUCE_ADD,
    OP_REDUCE_MIN_I,
    OP_REDUCE_MAX_I,
    OP_REDUCE_MIN_U,
    OP_REDUCE_MAX_U,
    OP_REDUCE_AND,
    OP_REDUCE_OR,
    OP_REDUCE_XOR,
    OP_NUM
};

typedef void (*KernelBody)(const void* closure);

/// Run a launch: every block of grid, every thread calling body(closure).
cudaError_t launchImpl(const char* kernel, const char* file, int line, dim3 grid, dim3 block,
                       size_t shmem, cudaStream_t stream, KernelBody body, const void* closure);

/// Launch a kernel given as a closure (ALCG_LAUNCH in cuda/alcg_kernel.cuh).
template <typename F>
cudaError_t launch(const char* kernel, const char* file, int line, dim3 grid, dim3 block,
                   size_t shmem, cudaStream_t stream, F f) {
    struct Thunk {
        static void run(const void* c) { (*static_cast<const F*>(c))(); }
    };
    return launchImpl(kernel, file, line, grid, block, shmem, stream, &Thunk::run, &f);
}

/// The block's dynamic shared memory (the launch's shmem bytes, poisoned at block start).
void* dynamicShared();

/// __syncthreads (and its _count/_and/_or forms: returns the number of threads with pred != 0).
int syncthreads(const char* file, int line, int pred);
/// __syncwarp(mask).
void syncwarp(const char* file, int line, unsigned mask);
/// A warp collective on a raw value of `size` bytes; returns the raw result.
unsigned long long collective(const char* file, int line, Op op, unsigned mask,
                              unsigned long long value, int size, int arg, int width);
/// Mask of the lanes of the caller's warp that have not exited.
unsigned activeMask();

/// Text of the last fault the scheduler reported ("" when none).
const char* lastFault();
/// Clear the last fault.
void clearFault();
/// When quiet, faults are recorded but not printed (the emulation's self-tests plant them).
void setQuiet(bool quiet);
/// Seed of the lane and warp order (default: ALC_EMU_SEED, else 1).
void setSeed(unsigned long long seed);
/// Host threads that run blocks (default: ALC_EMU_THREADS, else up to 2).
void setThreads(int n);

}  // namespace alc_emu

// the running thread and block, one per host thread (fibers of a block share the host thread)
extern __thread alc_emu::ThreadInfo* alc_emu_thread;
extern __thread alc_emu::BlockInfo alc_emu_block;

#define threadIdx (alc_emu_thread->tid)
#define blockIdx  (alc_emu_block.idx)
#define blockDim  (alc_emu_block.dim)
#define gridDim   (alc_emu_block.grid)
static constexpr int warpSize = 32;

// ---- barriers and warp collectives ----------------------------------------------------------
#define __syncthreads()        ((void)alc_emu::syncthreads(__FILE__, __LINE__, 0))
#define __syncthreads_count(p) alc_emu::syncthreads(__FILE__, __LINE__, (p) != 0)
#define __syncthreads_and(p) \
    (alc_emu::syncthreads(__FILE__, __LINE__, (p) != 0) == alc_emu::emuBlockThreads())
#define __syncthreads_or(p) (alc_emu::syncthreads(__FILE__, __LINE__, (p) != 0) > 0)
#define __syncwarp(...)     alc_emu::SyncwarpAt{__FILE__, __LINE__}(__VA_ARGS__)
#define __shfl_sync(...)    alc_emu::shflAt(__FILE__, __LINE__, alc_emu::OP_SHFL, __VA_ARGS__)
#define __shfl_up_sync(...) alc_emu::shflAt(__FILE__, __LINE__, alc_emu::OP_SHFL_UP, __VA_ARGS__)
#define __shfl_down_sync(...) \
    alc_emu::shflAt(__FILE__, __LINE__, alc_emu::OP_SHFL_DOWN, __VA_ARGS__)
#define __shfl_xor_sync(...) alc_emu::shflAt(__FILE__, __LINE__, alc_emu::OP_SHFL_XOR, __VA_ARGS__)
#define __ballot_sync(mask, pred)                                                                  \
    ((unsigned)alc_emu::collective(__FILE__, __LINE__, alc_emu::OP_BALLOT, (mask), (pred) != 0, 4, \
                                   0, 32))
#define __any_sync(mask, pred) \
    ((int)alc_emu::collective(__FILE__, __LINE__, alc_emu::OP_ANY, (mask), (pred) != 0, 4, 0, 32))
#define __all_sync(mask, pred) \
    ((int)alc_emu::collective(__FILE__, __LINE__, alc_emu::OP_ALL, (mask), (pred) != 0, 4, 0, 32))
#define __match_any_sync(mask, v)       alc_emu::matchAnyAt(__FILE__, __LINE__, (mask), (v))
#define __match_all_sync(mask, v, pred) alc_emu::matchAllAt(__FILE__, __LINE__, (mask), (v), (pred))
#define __reduce_add_sync(mask, v) \
    alc_emu::reduceAt(__FILE__, __LINE__, alc_emu::OP_REDUCE_ADD, (mask), (v))
#define __reduce_min_sync(mask, v) \
    alc_emu::reduceAt(__FILE__, __LINE__, alc_emu::OP_REDUCE_MIN_I, (mask), (v))
#define __reduce_max_sync(mask, v) \
    alc_emu::reduceAt(__FILE__, __LINE__, alc_emu::OP_REDUCE_MAX_I, (mask), (v))
#define __reduce_and_sync(mask, v) \
    alc_emu::reduceAt(__FILE__, __LINE__, alc_emu::OP_REDUCE_AND, (mask), (v))
#define __reduce_or_sync(mask, v) \
    alc_emu::reduceAt(__FILE__, __LINE__, alc_emu::OP_REDUCE_OR, (mask), (v))
#define __reduce_xor_sync(mask, v) \
    alc_emu::reduceAt(__FILE__, __LINE__, alc_emu::OP_REDUCE_XOR, (mask), (v))
#define __activemask() alc_emu::activeMask()

namespace alc_emu {

int emuBlockThreads();

/// __syncwarp(mask) with its default argument, at a source line.
struct SyncwarpAt {
    const char* file;
    int line;
    void operator()(unsigned mask = 0xffffffffu) const { syncwarp(file, line, mask); }
};

template <typename T>
static inline unsigned long long toRaw(T v) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "warp collectives take 4- or 8-byte values");
    unsigned long long r = 0;
    memcpy(&r, &v, sizeof(T));
    return r;
}
template <typename T>
static inline T fromRaw(unsigned long long r) {
    T v;
    memcpy(&v, &r, sizeof(T));
    return v;
}

template <typename T>
static inline T shflAt(const char* file, int line, Op op, unsigned mask, T var, int arg,
                       int width = 32) {
    return fromRaw<T>(collective(file, line, op, mask, toRaw(var), (int)sizeof(T), arg, width));
}
template <typename T>
static inline unsigned matchAnyAt(const char* file, int line, unsigned mask, T v) {
    return (unsigned)collective(file, line, OP_MATCH_ANY, mask, toRaw(v), (int)sizeof(T), 0, 32);
}
template <typename T>
static inline unsigned matchAllAt(const char* file, int line, unsigned mask, T v, int* pred) {
    unsigned long long r =
        collective(file, line, OP_MATCH_ALL, mask, toRaw(v), (int)sizeof(T), 0, 32);
    *pred = r != 0;
    return (unsigned)r;
}
static inline int reduceAt(const char* file, int line, Op op, unsigned mask, int v) {
    return (int)collective(file, line, op, mask, toRaw(v), 4, 0, 32);
}
static inline unsigned reduceAt(const char* file, int line, Op op, unsigned mask, unsigned v) {
    if (op == OP_REDUCE_MIN_I) op = OP_REDUCE_MIN_U;
    if (op == OP_REDUCE_MAX_I) op = OP_REDUCE_MAX_U;
    return (unsigned)collective(file, line, op, mask, toRaw(v), 4, 0, 32);
}

}  // namespace alc_emu

// ---- atomics (real atomics: blocks run on several host threads) -----------------------------
#define ALC_EMU_ATOMIC_INT(T)                                                               \
    static inline T atomicAdd(T* a, T v) {                                                  \
        return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);                                  \
    }                                                                                       \
    static inline T atomicSub(T* a, T v) {                                                  \
        return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST);                                  \
    }                                                                                       \
    static inline T atomicExch(T* a, T v) {                                                 \
        return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                 \
    }                                                                                       \
    static inline T atomicAnd(T* a, T v) {                                                  \
        return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST);                                  \
    }                                                                                       \
    static inline T atomicOr(T* a, T v) {                                                   \
        return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST);                                   \
    }                                                                                       \
    static inline T atomicXor(T* a, T v) {                                                  \
        return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST);                                  \
    }                                                                                       \
    static inline T atomicCAS(T* a, T cmp, T v) {                                           \
        __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        return cmp;                                                                         \
    }                                                                                       \
    static inline T atomicMin(T* a, T v) {                                                  \
        T old = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                       \
        while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST,  \
                                                       __ATOMIC_SEQ_CST)) {                 \
        }                                                                                   \
        return old;                                                                         \
    }                                                                                       \
    static inline T atomicMax(T* a, T v) {                                                  \
        T old = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                       \
        while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST,  \
                                                       __ATOMIC_SEQ_CST)) {                 \
        }                                                                                   \
        return old;                                                                         \
    }
ALC_EMU_ATOMIC_INT(int)
ALC_EMU_ATOMIC_INT(unsigned)
ALC_EMU_ATOMIC_INT(long long)
ALC_EMU_ATOMIC_INT(unsigned long long)
#undef ALC_EMU_ATOMIC_INT

/// float and double by compare-and-swap on the bit pattern, as on devices without the instruction.
#define ALC_EMU_ATOMIC_FP(T, U)                                                                   \
    static inline T atomicAdd(T* a, T v) {                                                        \
        U* p = reinterpret_cast<U*>(a);                                                           \
        U old = __atomic_load_n(p, __ATOMIC_SEQ_CST), nw;                                         \
        do {                                                                                      \
            T f;                                                                                  \
            memcpy(&f, &old, sizeof f);                                                           \
            f += v;                                                                               \
            memcpy(&nw, &f, sizeof nw);                                                           \
        } while (                                                                                 \
            !__atomic_compare_exchange_n(p, &old, nw, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)); \
        T r;                                                                                      \
        memcpy(&r, &old, sizeof r);                                                               \
        return r;                                                                                 \
    }                                                                                             \
    static inline T atomicExch(T* a, T v) {                                                       \
        U nv;                                                                                     \
        memcpy(&nv, &v, sizeof nv);                                                               \
        U old = __atomic_exchange_n(reinterpret_cast<U*>(a), nv, __ATOMIC_SEQ_CST);               \
        T r;                                                                                      \
        memcpy(&r, &old, sizeof r);                                                               \
        return r;                                                                                 \
    }
ALC_EMU_ATOMIC_FP(float, unsigned)
ALC_EMU_ATOMIC_FP(double, unsigned long long)
#undef ALC_EMU_ATOMIC_FP

static inline unsigned atomicInc(unsigned* a, unsigned lim) {
    unsigned old = __atomic_load_n(a, __ATOMIC_SEQ_CST), nw;
    do {
        nw = old >= lim ? 0u : old + 1u;
    } while (!__atomic_compare_exchange_n(a, &old, nw, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return old;
}
static inline unsigned atomicDec(unsigned* a, unsigned lim) {
    unsigned old = __atomic_load_n(a, __ATOMIC_SEQ_CST), nw;
    do {
        nw = (old == 0u || old > lim) ? lim : old - 1u;
    } while (!__atomic_compare_exchange_n(a, &old, nw, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
    return old;
}

static inline void __threadfence(void) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
}
static inline void __threadfence_block(void) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
}
static inline void __threadfence_system(void) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

// ---- intrinsics -----------------------------------------------------------------------------
static inline int __clz(int x) {
    return x == 0 ? 32 : __builtin_clz((unsigned)x);
}
static inline int __clzll(long long x) {
    return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
static inline int __popc(unsigned x) {
    return __builtin_popcount(x);
}
static inline int __popcll(unsigned long long x) {
    return __builtin_popcountll(x);
}
static inline int __ffs(int x) {
    return __builtin_ffs(x);
}
static inline int __ffsll(long long x) {
    return __builtin_ffsll(x);
}
static inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
static inline unsigned __umulhi(unsigned a, unsigned b) {
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline int __float_as_int(float f) {
    int i;
    memcpy(&i, &f, 4);
    return i;
}
static inline unsigned __float_as_uint(float f) {
    unsigned i;
    memcpy(&i, &f, 4);
    return i;
}
static inline float __int_as_float(int i) {
    float f;
    memcpy(&f, &i, 4);
    return f;
}
static inline float __uint_as_float(unsigned i) {
    float f;
    memcpy(&f, &i, 4);
    return f;
}
static inline long long __double_as_longlong(double d) {
    long long i;
    memcpy(&i, &d, 8);
    return i;
}
static inline double __longlong_as_double(long long i) {
    double d;
    memcpy(&d, &i, 8);
    return d;
}
template <typename T>
static inline T __ldg(const T* p) {
    return *p;
}
static inline float __fdividef(float a, float b) {
    return a / b;
}
static inline float __saturatef(float x) {
    return x < 0.f ? 0.f : (x > 1.f ? 1.f : x);
}
static inline double rsqrt(double x) {
    return 1.0 / sqrt(x);
}
static inline float rsqrtf(float x) {
    return 1.0f / sqrtf(x);
}
static inline long long clock64(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// min and max as the device headers overload them (the same argument types)
#define ALC_EMU_MINMAX(T)           \
    static inline T min(T a, T b) { \
        return a < b ? a : b;       \
    }                               \
    static inline T max(T a, T b) { \
        return a > b ? a : b;       \
    }
ALC_EMU_MINMAX(int)
ALC_EMU_MINMAX(unsigned)
ALC_EMU_MINMAX(long long)
ALC_EMU_MINMAX(unsigned long long)
ALC_EMU_MINMAX(float)
ALC_EMU_MINMAX(double)
#undef ALC_EMU_MINMAX

#endif  // ALC_EMU_CUDA_EMU_H_
