// Sort and scan behind C functions (cuda/thrust_shim.h): the only file that includes Thrust or
// CUB. On the device Thrust runs on the caller's stream and takes its temporary storage from the
// caller's scratch (ScratchAlloc), so nothing here allocates device memory. In the emulated
// build (ALC_EMU) the same calls run Thrust's sequential CPP system on host memory, with the
// same scratch discipline, so a scratch size that is too small fails in the tests as well.
//
// Compiled by nvcc for the device, and for the emulation by g++ -std=c++17 -x c++ -DALC_EMU=1
// -I$(CUDA_HOME)/targets/x86_64-linux/include/cccl -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_CPP.
// The emulated branch uses no CUDA runtime function and no emulation header.
#include "alcg_check.cuh"
#include "thrust_shim.h"

#include <thrust/scan.h>
#include <thrust/sort.h>
#if defined(ALC_EMU)
#include <thrust/system/cpp/execution_policy.h>
#else
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <thrust/system/cuda/execution_policy.h>
#endif

#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <stdarg.h>
#include <stdio.h>

namespace {

// alignment of every block handed to Thrust (CUB wants 256 bytes)
constexpr size_t kAlign = 256;
// headroom added to every scratch size: alignment of the base and of each block, and any
// small temporary Thrust adds around the CUB call
constexpr size_t kSlack = 64 * 1024;

size_t roundUp(size_t n, size_t a) {
    return (n + a - 1) / a * a;
}

// "file:line func: message" on the stream (alcg_check.cuh)
#define recordMsg(s, line, func, ...) \
    ((void)alcg_fail((s), ALC_OK, __FILE__, (line), (func), __VA_ARGS__))

// the state of one carve: Thrust stores the allocator by reference, the state is kept apart so
// that a copy of the allocator would still carve from the same scratch
struct Carve {
    char* base;     // first byte handed out (aligned)
    size_t bytes;   // usable bytes from base
    size_t top;     // bytes in use (a stack)
    size_t want;    // size of the first request that did not fit
    bool overflow;  // a request did not fit
};

// Thrust allocator over caller scratch: a stack (a block freed last-in first-out is reused);
// a request that does not fit marks the carve and throws std::bad_alloc, the only failure
// channel Thrust has; the exception is caught in this file and becomes ALC_ERR_CAPACITY
class ScratchAlloc {
   public:
    typedef char value_type;
    explicit ScratchAlloc(Carve* c) : c_(c) {}
    char* allocate(std::size_t n) {
        size_t need = roundUp(n > 0 ? n : 1, kAlign);
        if (need > c_->bytes - c_->top) {
            if (!c_->overflow) c_->want = c_->top + need;
            c_->overflow = true;
            throw std::bad_alloc();
        }
        char* p = c_->base + c_->top;
        c_->top += need;
        return p;
    }
    void deallocate(char* p, std::size_t n) {
        size_t need = roundUp(n > 0 ? n : 1, kAlign);
        if (p + need == c_->base + c_->top) c_->top -= need;
    }

   private:
    Carve* c_;
};

// a carve over d_temp: the base aligned up, the bytes lost to that taken off
Carve carveOf(void* d_temp, size_t bytes) {
    Carve c = {NULL, 0, 0, 0, false};
    uintptr_t p = (uintptr_t)d_temp, a = roundUp(p, kAlign);
    c.base = (char*)a;
    c.bytes = bytes > a - p ? bytes - (a - p) : 0;
    return c;
}

#if defined(ALC_EMU)

// Thrust's sequential radix sort takes n keys and n values of temporaries
alctStatus sortBytes(int n, size_t* bytes, alcgStream* s) {
    (void)s;
    *bytes = roundUp((size_t)n * sizeof(unsigned long long), kAlign) +
             roundUp((size_t)n * sizeof(int), kAlign) + kSlack;
    return ALC_OK;
}

// the sequential scan needs no temporaries
alctStatus scanBytes(int n, size_t* bytes, alcgStream* s) {
    (void)s;
    *bytes = roundUp((size_t)n * sizeof(int), kAlign) + kSlack;
    return ALC_OK;
}

#else

// Thrust's radix sort allocates the second key and value buffers (rounded to 128 bytes) and
// CUB's scratch in one block (thrust/system/cuda/detail/sort.h); CUB's scratch grows with n
alctStatus sortBytes(int n, size_t* bytes, alcgStream* s) {
    size_t cubBytes = 0;
    cub::DoubleBuffer<unsigned long long> keys(NULL, NULL);
    cub::DoubleBuffer<int> vals(NULL, NULL);
    cudaError_t e = cub::DeviceRadixSort::SortPairs(NULL, cubBytes, keys, vals, n, 0, 64,
                                                    (cudaStream_t)s->stream);
    if (e != cudaSuccess) {
        cudaGetLastError();
        recordMsg(s, __LINE__, __func__, "CUB sort size query: %s", cudaGetErrorName(e));
        return ALC_ERR_CUDA;
    }
    *bytes = roundUp((size_t)n * sizeof(unsigned long long), kAlign) +
             roundUp((size_t)n * sizeof(int), kAlign) + cubBytes + kSlack;
    return ALC_OK;
}

// Thrust's scan allocates CUB's tile state (thrust/system/cuda/detail/scan.h)
alctStatus scanBytes(int n, size_t* bytes, alcgStream* s) {
    size_t cubBytes = 0;
    cudaError_t e = cub::DeviceScan::ExclusiveSum(NULL, cubBytes, (const int*)NULL, (int*)NULL, n,
                                                  (cudaStream_t)s->stream);
    if (e != cudaSuccess) {
        cudaGetLastError();
        recordMsg(s, __LINE__, __func__, "CUB scan size query: %s", cudaGetErrorName(e));
        return ALC_ERR_CUDA;
    }
    // CUB's tile state for n items, doubled against a policy that picks smaller tiles
    *bytes = 2 * cubBytes + kSlack;
    return ALC_OK;
}

// one int from device memory (synchronizes the stream)
alctStatus readInt(const int* d_p, int* h, alcgStream* s, const char* func) {
    cudaStream_t st = (cudaStream_t)s->stream;
    cudaError_t e = cudaMemcpyAsync(h, d_p, sizeof(int), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess) {
        cudaGetLastError();
        recordMsg(s, __LINE__, func, "reading the scan total: %s", cudaGetErrorName(e));
        return ALC_ERR_CUDA;
    }
    return ALC_OK;
}

#endif

// status and message for an exception out of Thrust
alctStatus failure(alcgStream* s, const Carve& c, size_t have, const char* func, const char* what) {
    if (c.overflow) {
        recordMsg(s, __LINE__, func, "needs at least %zu bytes of scratch, was given %zu",
                  c.want + (have - c.bytes), have);
        return ALC_ERR_CAPACITY;
    }
    recordMsg(s, __LINE__, func, "thrust: %s", what);
    return ALC_ERR_CUDA;
}

}  // namespace

extern "C" alctStatus alcg_sortPairsU64(unsigned long long* d_keys, int* d_vals, int n,
                                        void* d_temp, size_t* temp_bytes, alcgStream* s) {
    if (!s || !temp_bytes) return ALC_ERR_INVALID_ARG;
    if (n < 0 || (n > 0 && d_temp && !d_keys)) {
        recordMsg(s, __LINE__, __func__, "bad arguments (n = %d, keys %p)", n, (void*)d_keys);
        return ALC_ERR_INVALID_ARG;
    }

    // size query
    if (!d_temp) return sortBytes(n, temp_bytes, s);
    if (n < 2) return ALC_OK;

    // sort on the stream, temporaries carved from d_temp
    Carve c = carveOf(d_temp, *temp_bytes);
    ScratchAlloc alloc(&c);
    try {
#if defined(ALC_EMU)
        auto policy = thrust::cpp::par(alloc);
#else
        auto policy = thrust::cuda::par_nosync(alloc).on((cudaStream_t)s->stream);
#endif
        if (d_vals) {
            thrust::sort_by_key(policy, d_keys, d_keys + n, d_vals);
        } else {
            thrust::sort(policy, d_keys, d_keys + n);
        }
    } catch (const std::exception& e) {
        return failure(s, c, *temp_bytes, __func__, e.what());
    } catch (...) {
        return failure(s, c, *temp_bytes, __func__, "unknown exception");
    }
    return ALC_OK;
}

extern "C" alctStatus alcg_exclusiveScanI32(const int* d_in, int* d_out, int n, int* total,
                                            void* d_temp, size_t* temp_bytes, alcgStream* s) {
    if (!s || !temp_bytes) return ALC_ERR_INVALID_ARG;
    if (n < 0 || (n > 0 && d_temp && (!d_in || !d_out))) {
        recordMsg(s, __LINE__, __func__, "bad arguments (n = %d)", n);
        return ALC_ERR_INVALID_ARG;
    }

    // size query
    if (!d_temp) return scanBytes(n, temp_bytes, s);
    if (n == 0) {
        if (total) *total = 0;
        return ALC_OK;
    }

    // the last input before the scan, which may run in place
    int last = 0;
#if defined(ALC_EMU)
    if (total) last = d_in[n - 1];
#else
    if (total) {
        alctStatus st = readInt(d_in + n - 1, &last, s, __func__);
        if (st != ALC_OK) return st;
    }
#endif

    // scan on the stream, temporaries carved from d_temp
    Carve c = carveOf(d_temp, *temp_bytes);
    ScratchAlloc alloc(&c);
    try {
#if defined(ALC_EMU)
        auto policy = thrust::cpp::par(alloc);
#else
        auto policy = thrust::cuda::par_nosync(alloc).on((cudaStream_t)s->stream);
#endif
        thrust::exclusive_scan(policy, d_in, d_in + n, d_out);
    } catch (const std::exception& e) {
        return failure(s, c, *temp_bytes, __func__, e.what());
    } catch (...) {
        return failure(s, c, *temp_bytes, __func__, "unknown exception");
    }

    // total = last prefix + last input
    if (total) {
        int lastOut = 0;
#if defined(ALC_EMU)
        lastOut = d_out[n - 1];
#else
        alctStatus st = readInt(d_out + n - 1, &lastOut, s, __func__);
        if (st != ALC_OK) return st;
#endif
        *total = lastOut + last;
    }
    return ALC_OK;
}
