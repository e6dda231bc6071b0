// The cuBLAS wrapper (cuda/blas.h): the only file that includes cuBLAS. The handle is bound to
// a stream at make time and rebound when an operation is given another one. Reductions (dot,
// nrm2) write their result to device memory (CUBLAS_POINTER_MODE_DEVICE), so nothing waits on
// the host; axpy and scal take alpha from the host (CUBLAS_POINTER_MODE_HOST). The handle
// remembers its stream and pointer mode, so each operation switches only what differs.
//
// In the emulated build (ALC_EMU) this is host code, not a kernel body, so it branches on
// ALC_EMU: the operations are plain serial loops over the host memory that stands in for device
// memory. That stand-in validates the callers (sizes, pointers, which vector is which, that the
// result lands in device memory), not cuBLAS. Left unvalidated until a device runs the tests:
//   - the handle: cublasCreate, and its binding to the stream (cublasSetStream at make time and
//     when a call brings another stream); the emulation is synchronous, so an operation queued
//     on the wrong stream, or a result read before its stream reaches it, passes here;
//   - the pointer mode: DEVICE for the results of dot and nrm2, HOST for alpha; the wrong mode
//     reads or writes a host address as a device one (or the reverse), and in the emulation both
//     are the same memory;
//   - the arithmetic: cuBLAS sums dot and nrm2 in a tree order of its own (results differ from
//     the serial loop in the last bits), scales nrm2 against overflow (the loop below squares
//     directly, so it overflows past about 1e154), and fuses axpy's multiply-add;
//   - cuBLAS's status paths (CUBLAS_STATUS_* messages are never produced here).
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "blas.h"

#include "alc/alc_types.h"

#include <cuda_runtime.h>
#if !defined(ALC_EMU)
#include <cublas_v2.h>
#endif

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(ALC_EMU)
struct alcgBlas_ {};  // the emulation needs no state
#else
struct alcgBlas_ {
    cublasHandle_t handle;     // cuBLAS handle
    void* stream;              // the cudaStream_t the handle is bound to
    cublasPointerMode_t mode;  // the handle's pointer mode
};
#endif

// "file:line func: message" on the stream (alcg_check.cuh)
#define recordMsg(s, line, func, ...) \
    ((void)alcg_fail((s), ALC_OK, __FILE__, (line), (func), __VA_ARGS__))

// the arguments every operation checks: handle, stream, size, and the vectors when n > 0
static bool argsOk(const alcgBlas* b, int n, const void* p0, const void* p1, alcgStream* s,
                   int line, const char* func) {
    if (!s) return false;
    if (!b) {
        recordMsg(s, line, func, "invalid argument: NULL handle");
        return false;
    }
    if (n < 0) {
        recordMsg(s, line, func, "invalid argument: n = %d", n);
        return false;
    }
    if (n > 0 && (!p0 || !p1)) {
        recordMsg(s, line, func, "invalid argument: NULL vector with n = %d", n);
        return false;
    }
    return true;
}

// the result pointer of a reduction
static bool resultOk(const double* d_result, alcgStream* s, int line, const char* func) {
    if (d_result) return true;
    recordMsg(s, line, func, "invalid argument: NULL d_result");
    return false;
}

#define ARGS_OK(b, n, p0, p1, s) argsOk((b), (n), (p0), (p1), (s), __LINE__, __func__)
#define RESULT_OK(r, s)          resultOk((r), (s), __LINE__, __func__)

#if !defined(ALC_EMU)

// the name of a cuBLAS status, as its enumerator is spelled
static const char* blasStatusName(cublasStatus_t st) {
    switch (st) {
        case CUBLAS_STATUS_SUCCESS:
            return "CUBLAS_STATUS_SUCCESS";
        case CUBLAS_STATUS_NOT_INITIALIZED:
            return "CUBLAS_STATUS_NOT_INITIALIZED";
        case CUBLAS_STATUS_ALLOC_FAILED:
            return "CUBLAS_STATUS_ALLOC_FAILED";
        case CUBLAS_STATUS_INVALID_VALUE:
            return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH:
            return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_MAPPING_ERROR:
            return "CUBLAS_STATUS_MAPPING_ERROR";
        case CUBLAS_STATUS_EXECUTION_FAILED:
            return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR:
            return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED:
            return "CUBLAS_STATUS_NOT_SUPPORTED";
        case CUBLAS_STATUS_LICENSE_ERROR:
            return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

/// Evaluate fn args (a cuBLAS call); on failure record "file:line func: fn: CUBLAS_STATUS_..."
/// on s and `goto fail`. fn is stringized unexpanded, so cublasDdot reads as itself, not as
/// the cublasDdot_v2 it is defined to.
#define BLAS_TRY(s, fn, args)                                                            \
    do {                                                                                 \
        cublasStatus_t alcg_st_ = fn args;                                               \
        if (alcg_st_ != CUBLAS_STATUS_SUCCESS) {                                         \
            recordMsg((s), __LINE__, __func__, "%s: %s", #fn, blasStatusName(alcg_st_)); \
            goto fail;                                                                   \
        }                                                                                \
    } while (0)

// bind the handle to s's stream and to a pointer mode, each only where it differs
static alctStatus bindHandle(alcgBlas* b, alcgStream* s, cublasPointerMode_t mode) {
    if (b->stream != s->stream) {
        BLAS_TRY(s, cublasSetStream, (b->handle, (cudaStream_t)s->stream));
        b->stream = s->stream;
    }
    if (b->mode != mode) {
        BLAS_TRY(s, cublasSetPointerMode, (b->handle, mode));
        b->mode = mode;
    }
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_blas_make(alcgBlas** out, alcgStream* s) {
    ALCG_RANGE("alcg_blas_make");
    if (!out || !s) {
        recordMsg(s, __LINE__, __func__, "invalid argument: NULL %s", out ? "stream" : "out");
        return ALC_ERR_INVALID_ARG;
    }
    *out = NULL;
    alcgBlas* b = (alcgBlas*)calloc(1, sizeof *b);
    if (!b) {
        recordMsg(s, __LINE__, __func__, "cannot allocate the handle");
        return ALC_ERR_NOMEM;
    }
    // create, then bind to the stream with results in device memory
    BLAS_TRY(s, cublasCreate, (&b->handle));
    BLAS_TRY(s, cublasSetStream, (b->handle, (cudaStream_t)s->stream));
    b->stream = s->stream;
    BLAS_TRY(s, cublasSetPointerMode, (b->handle, CUBLAS_POINTER_MODE_DEVICE));
    b->mode = CUBLAS_POINTER_MODE_DEVICE;
    *out = b;
    return ALC_OK;
fail:
    alcg_blas_free(b);
    return ALC_ERR_CUDA;
}

extern "C" void alcg_blas_free(alcgBlas* b) {
    if (!b) return;
    if (b->handle) cublasDestroy(b->handle);
    free(b);
}

extern "C" alctStatus alcg_blas_dot(alcgBlas* b, int n, const double* d_x, const double* d_y,
                                    double* d_result, alcgStream* s) {
    ALCG_RANGE("alcg_blas_dot");
    if (!ARGS_OK(b, n, d_x, d_y, s) || !RESULT_OK(d_result, s)) return ALC_ERR_INVALID_ARG;
    // an empty dot is 0 (all-zero bits), written on the stream like any result
    if (n == 0) {
        ALCG_CUDA_TRY(s, cudaMemsetAsync(d_result, 0, sizeof(double), (cudaStream_t)s->stream));
        return ALC_OK;
    }
    if (bindHandle(b, s, CUBLAS_POINTER_MODE_DEVICE) != ALC_OK) return ALC_ERR_CUDA;
    BLAS_TRY(s, cublasDdot, (b->handle, n, d_x, 1, d_y, 1, d_result));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_blas_axpy(alcgBlas* b, int n, double alpha, const double* d_x,
                                     double* d_y, alcgStream* s) {
    ALCG_RANGE("alcg_blas_axpy");
    if (!ARGS_OK(b, n, d_x, d_y, s)) return ALC_ERR_INVALID_ARG;
    if (n == 0) return ALC_OK;
    if (bindHandle(b, s, CUBLAS_POINTER_MODE_HOST) != ALC_OK) return ALC_ERR_CUDA;
    BLAS_TRY(s, cublasDaxpy, (b->handle, n, &alpha, d_x, 1, d_y, 1));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_blas_scal(alcgBlas* b, int n, double alpha, double* d_x, alcgStream* s) {
    ALCG_RANGE("alcg_blas_scal");
    if (!ARGS_OK(b, n, d_x, d_x, s)) return ALC_ERR_INVALID_ARG;
    if (n == 0) return ALC_OK;
    if (bindHandle(b, s, CUBLAS_POINTER_MODE_HOST) != ALC_OK) return ALC_ERR_CUDA;
    BLAS_TRY(s, cublasDscal, (b->handle, n, &alpha, d_x, 1));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_blas_nrm2(alcgBlas* b, int n, const double* d_x, double* d_result,
                                     alcgStream* s) {
    ALCG_RANGE("alcg_blas_nrm2");
    if (!ARGS_OK(b, n, d_x, d_x, s) || !RESULT_OK(d_result, s)) return ALC_ERR_INVALID_ARG;
    // the norm of an empty vector is 0
    if (n == 0) {
        ALCG_CUDA_TRY(s, cudaMemsetAsync(d_result, 0, sizeof(double), (cudaStream_t)s->stream));
        return ALC_OK;
    }
    if (bindHandle(b, s, CUBLAS_POINTER_MODE_DEVICE) != ALC_OK) return ALC_ERR_CUDA;
    BLAS_TRY(s, cublasDnrm2, (b->handle, n, d_x, 1, d_result));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

#else  // ALC_EMU: serial host loops standing in for cuBLAS (see the head of this file)

extern "C" alctStatus alcg_blas_make(alcgBlas** out, alcgStream* s) {
    ALCG_RANGE("alcg_blas_make");
    if (!out || !s) {
        recordMsg(s, __LINE__, __func__, "invalid argument: NULL %s", out ? "stream" : "out");
        return ALC_ERR_INVALID_ARG;
    }
    *out = (alcgBlas*)calloc(1, sizeof(alcgBlas));
    if (!*out) {
        recordMsg(s, __LINE__, __func__, "cannot allocate the handle");
        return ALC_ERR_NOMEM;
    }
    return ALC_OK;
}

extern "C" void alcg_blas_free(alcgBlas* b) {
    free(b);
}

extern "C" alctStatus alcg_blas_dot(alcgBlas* b, int n, const double* d_x, const double* d_y,
                                    double* d_result, alcgStream* s) {
    ALCG_RANGE("alcg_blas_dot");
    if (!ARGS_OK(b, n, d_x, d_y, s) || !RESULT_OK(d_result, s)) return ALC_ERR_INVALID_ARG;
    // serial sum, first to last
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += d_x[i] * d_y[i];
    *d_result = sum;
    return ALC_OK;
}

extern "C" alctStatus alcg_blas_axpy(alcgBlas* b, int n, double alpha, const double* d_x,
                                     double* d_y, alcgStream* s) {
    ALCG_RANGE("alcg_blas_axpy");
    if (!ARGS_OK(b, n, d_x, d_y, s)) return ALC_ERR_INVALID_ARG;
    for (int i = 0; i < n; i++) d_y[i] += alpha * d_x[i];
    return ALC_OK;
}

extern "C" alctStatus alcg_blas_scal(alcgBlas* b, int n, double alpha, double* d_x, alcgStream* s) {
    ALCG_RANGE("alcg_blas_scal");
    if (!ARGS_OK(b, n, d_x, d_x, s)) return ALC_ERR_INVALID_ARG;
    for (int i = 0; i < n; i++) d_x[i] *= alpha;
    return ALC_OK;
}

extern "C" alctStatus alcg_blas_nrm2(alcgBlas* b, int n, const double* d_x, double* d_result,
                                     alcgStream* s) {
    ALCG_RANGE("alcg_blas_nrm2");
    if (!ARGS_OK(b, n, d_x, d_x, s) || !RESULT_OK(d_result, s)) return ALC_ERR_INVALID_ARG;
    // serial sum of squares, unscaled
    double sum = 0.0;
    for (int i = 0; i < n; i++) sum += d_x[i] * d_x[i];
    *d_result = sqrt(sum);
    return ALC_OK;
}

#endif  // ALC_EMU
