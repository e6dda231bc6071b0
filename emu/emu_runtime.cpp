// The CUDA runtime API of the SIMT emulation (emu/cuda_emu.h): one emulated device, device
// memory as host memory, copies as memcpy, streams and events as host objects. Everything is
// synchronous. Device allocations are tracked so that a copy to or from an address that is not
// inside a live allocation fails as it would on a device, and they start filled with 0xFF bytes
// so that reading memory nobody wrote gives NaN or -1 instead of a lucky zero.
#include "cuda_emu.h"

#include <map>
#include <mutex>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

namespace alc_emu {

static std::mutex gMemMutex;
static std::map<uintptr_t, size_t>* gAllocs;
static std::atomic<int> gPending{cudaSuccess};
static size_t gInUse;

void setPendingError(cudaError_t e) {
    int expected = cudaSuccess;
    gPending.compare_exchange_strong(expected, (int)e);
}

static std::map<uintptr_t, size_t>& allocs() {
    if (!gAllocs) gAllocs = new std::map<uintptr_t, size_t>();
    return *gAllocs;
}

/// True when [p, p + n) lies inside one live device allocation.
static bool isDevice(const void* p, size_t n) {
    std::lock_guard<std::mutex> g(gMemMutex);
    auto& a = allocs();
    auto it = a.upper_bound((uintptr_t)p);
    if (it == a.begin()) return false;
    --it;
    return (uintptr_t)p + n <= it->first + it->second;
}

bool isQuiet();

static cudaError_t fail(cudaError_t e, const char* fmt, const void* p, size_t n) {
    if (!isQuiet()) {
        fprintf(stderr, "alcove emulation: ");
        fprintf(stderr, fmt, p, n);
        fprintf(stderr, "\n");
    }
    setPendingError(e);
    return e;
}

static cudaError_t checkCopy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
    if (n == 0) return cudaSuccess;
    if (!dst || !src)
        return fail(cudaErrorInvalidValue, "copy with a NULL pointer %p (%zu bytes)",
                    dst ? src : dst, n);
    bool dDev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool sDev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    if (dDev && !isDevice(dst, n))
        return fail(cudaErrorInvalidValue,
                    "copy destination %p (%zu bytes) is not inside a device allocation", dst, n);
    if (sDev && !isDevice(src, n))
        return fail(cudaErrorInvalidValue,
                    "copy source %p (%zu bytes) is not inside a device allocation", src, n);
    return cudaSuccess;
}

}  // namespace alc_emu

using namespace alc_emu;

struct CUstream_st {
    unsigned flags;
};
struct CUevent_st {
    double t;
};

static double nowSeconds() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
    if (!count) return cudaErrorInvalidValue;
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t cudaGetDevice(int* device) {
    if (!device) return cudaErrorInvalidValue;
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    if (!prop || device != 0) return cudaErrorInvalidDevice;
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "alcove SIMT emulation (host CPU)");
    prop->totalGlobalMem = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    prop->sharedMemPerBlock = 48 * 1024;
    prop->regsPerBlock = 65536;
    prop->warpSize = 32;
    prop->maxThreadsPerBlock = 1024;
    prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 2147483647;
    prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
    prop->multiProcessorCount = 1;
    prop->major = 9;
    prop->minor = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
    return (cudaError_t)gPending.load();
}

cudaError_t cudaDeviceReset(void) {
    gPending = cudaSuccess;
    return cudaSuccess;
}

/// The emulated device's memory: ALC_EMU_DEVICE_MEMORY bytes when set (so that the tests can
/// make a scene not fit), else 0 (no limit beyond the host's).
static size_t deviceLimit() {
    const char* e = getenv("ALC_EMU_DEVICE_MEMORY");
    return e ? (size_t)strtoull(e, nullptr, 10) : 0;
}

cudaError_t cudaMemGetInfo(size_t* freeBytes, size_t* total) {
    size_t t = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    size_t f = (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    size_t lim = deviceLimit();
    if (lim > 0) {
        std::lock_guard<std::mutex> g(gMemMutex);
        t = lim;
        f = gInUse < lim ? lim - gInUse : 0;
    }
    if (freeBytes) *freeBytes = f;
    if (total) *total = t;
    return cudaSuccess;
}

cudaError_t cudaMalloc(void** p, size_t bytes) {
    if (!p) return cudaErrorInvalidValue;
    *p = nullptr;
    if (bytes == 0) return cudaSuccess;
    size_t lim = deviceLimit();
    if (lim > 0) {
        std::lock_guard<std::mutex> g(gMemMutex);
        if (gInUse + bytes > lim) {
            setPendingError(cudaErrorMemoryAllocation);
            return cudaErrorMemoryAllocation;
        }
    }
    void* q = nullptr;
    if (posix_memalign(&q, 256, bytes) != 0) {
        setPendingError(cudaErrorMemoryAllocation);
        return cudaErrorMemoryAllocation;
    }
    memset(q, 0xFF, bytes);  // device memory starts as garbage
    {
        std::lock_guard<std::mutex> g(gMemMutex);
        allocs()[(uintptr_t)q] = bytes;
        gInUse += bytes;
    }
    *p = q;
    return cudaSuccess;
}

cudaError_t cudaFree(void* p) {
    if (!p) return cudaSuccess;
    {
        std::lock_guard<std::mutex> g(gMemMutex);
        auto it = allocs().find((uintptr_t)p);
        if (it == allocs().end()) {
            fprintf(stderr, "alcove emulation: cudaFree(%p): not a device allocation\n", p);
            setPendingError(cudaErrorInvalidValue);
            return cudaErrorInvalidValue;
        }
        gInUse -= it->second;
        allocs().erase(it);
    }
    free(p);
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void** p, size_t bytes) {
    if (!p) return cudaErrorInvalidValue;
    *p = bytes ? malloc(bytes) : nullptr;
    return (!bytes || *p) ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t cudaFreeHost(void* p) {
    free(p);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    cudaError_t e = checkCopy(dst, src, bytes, kind);
    if (e != cudaSuccess) return e;
    if (bytes) memmove(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t) {
    return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void* dst, int value, size_t bytes) {
    if (bytes == 0) return cudaSuccess;
    if (!isDevice(dst, bytes)) {
        return fail(cudaErrorInvalidValue,
                    "memset of %p (%zu bytes): not inside a device allocation", dst, bytes);
    }
    memset(dst, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t) {
    return cudaMemset(dst, value, bytes);
}

cudaError_t cudaStreamCreate(cudaStream_t* s) {
    return cudaStreamCreateWithFlags(s, cudaStreamDefault);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned flags) {
    if (!s) return cudaErrorInvalidValue;
    *s = new CUstream_st{flags};
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t s) {
    delete s;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t) {
    return (cudaError_t)gPending.load();
}

cudaError_t cudaStreamQuery(cudaStream_t) {
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) {
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* e) {
    return cudaEventCreateWithFlags(e, cudaEventDefault);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) {
    if (!e) return cudaErrorInvalidValue;
    *e = new CUevent_st{0};
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t e) {
    delete e;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
    if (!e) return cudaErrorInvalidResourceHandle;
    e->t = nowSeconds();
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t) {
    return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t) {
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    if (!ms || !start || !end) return cudaErrorInvalidValue;
    *ms = (float)(1e3 * (end->t - start->t));
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void) {
    return (cudaError_t)gPending.exchange(cudaSuccess);
}

cudaError_t cudaPeekAtLastError(void) {
    return (cudaError_t)gPending.load();
}

const char* cudaGetErrorName(cudaError_t e) {
    switch (e) {
        case cudaSuccess:
            return "cudaSuccess";
        case cudaErrorInvalidValue:
            return "cudaErrorInvalidValue";
        case cudaErrorMemoryAllocation:
            return "cudaErrorMemoryAllocation";
        case cudaErrorInitializationError:
            return "cudaErrorInitializationError";
        case cudaErrorInvalidConfiguration:
            return "cudaErrorInvalidConfiguration";
        case cudaErrorInvalidDevicePointer:
            return "cudaErrorInvalidDevicePointer";
        case cudaErrorInsufficientDriver:
            return "cudaErrorInsufficientDriver";
        case cudaErrorNoDevice:
            return "cudaErrorNoDevice";
        case cudaErrorInvalidDevice:
            return "cudaErrorInvalidDevice";
        case cudaErrorInvalidResourceHandle:
            return "cudaErrorInvalidResourceHandle";
        case cudaErrorNotReady:
            return "cudaErrorNotReady";
        case cudaErrorIllegalAddress:
            return "cudaErrorIllegalAddress";
        case cudaErrorLaunchOutOfResources:
            return "cudaErrorLaunchOutOfResources";
        case cudaErrorLaunchFailure:
            return "cudaErrorLaunchFailure";
        default:
            return "cudaErrorUnknown";
    }
}

const char* cudaGetErrorString(cudaError_t e) {
    switch (e) {
        case cudaSuccess:
            return "no error";
        case cudaErrorLaunchFailure:
            return "unspecified launch failure (emulation: see the fault reported above)";
        default:
            return cudaGetErrorName(e);
    }
}

}  // extern "C"
