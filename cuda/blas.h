// The project's thin cuBLAS wrapper: no other file calls cuBLAS directly. A handle (alcgBlas)
// is made once, at sim make time, and bound to a stream; the level-1 operations below run on
// the stream they are given, leave reductions in device memory (no host round trip) and take
// their scalars from host memory. Clean C: host/ builds without CUDA headers.
//
// Every operation is queued on s and returns without waiting: results are in device memory
// once the stream reaches them (alcg_stream_sync, or a later operation on the same stream). In
// the emulated build (ALC_EMU) the same functions are serial host loops over the host memory
// that stands in for device memory, and return with the work done (cuda/blas.cu says what that
// stand-in leaves unvalidated).
#ifndef ALC_CUDA_BLAS_H_
#define ALC_CUDA_BLAS_H_

#include "alcg_stream.h"

#include "alc/alc_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A cuBLAS handle bound to a stream (opaque; nothing in the emulated build).
typedef struct alcgBlas_ alcgBlas;

/// Create a cuBLAS handle bound to the stream of s. Allocates host memory and cuBLAS's
/// workspace: call it at make time, never inside a step (STYLE.md §6.2).
/// @param[out] out  the handle; NULL on failure. Free with alcg_blas_free.
/// @param[in]  s    stream the handle is bound to; its message receives a failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG (out or s NULL), ALC_ERR_NOMEM, or ALC_ERR_CUDA
///         (cublasCreate or cublasSetStream failed), with the message on s.
alctStatus alcg_blas_make(alcgBlas** out, alcgStream* s);

/// Destroy a handle from alcg_blas_make. NULL-safe. Work already queued with the handle still
/// completes (cublasDestroy synchronizes the device). Free the handle before the stream it was
/// last used on.
void alcg_blas_free(alcgBlas* b);

/// Dot product *d_result = sum_i d_x[i] * d_y[i]. The summation order is cuBLAS's, not the
/// serial one; n == 0 writes 0.
/// @param[in]  b         handle from alcg_blas_make (rebound to s's stream when it differs)
/// @param[in]  n         items, >= 0
/// @param[in]  d_x       first vector (n) [device]
/// @param[in]  d_y       second vector (n) [device]
/// @param[out] d_result  the dot product (1) [device]; ready when s reaches it
/// @param[in]  s         stream the operation runs on; its message receives a failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG (b, s or d_result NULL, n < 0, a NULL vector with n > 0),
///         or ALC_ERR_CUDA ("file:line func: cublasDdot: CUBLAS_STATUS_..."), with the message
///         on s (where s is not NULL).
/// Nullable: d_x and d_y when n == 0
alctStatus alcg_blas_dot(alcgBlas* b, int n, const double* d_x, const double* d_y, double* d_result,
                         alcgStream* s);

/// d_y[i] += alpha * d_x[i] for i < n (on the device each item is one fused multiply-add).
/// @param[in]     b      handle from alcg_blas_make
/// @param[in]     n      items, >= 0; n == 0 does nothing
/// @param[in]     alpha  scale of x [host]
/// @param[in]     d_x    vector added (n) [device]
/// @param[in,out] d_y    vector accumulated into (n) [device]
/// @param[in]     s      stream the operation runs on; its message receives a failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG, or ALC_ERR_CUDA (cublasDaxpy), with the message on s.
/// Nullable: d_x and d_y when n == 0
alctStatus alcg_blas_axpy(alcgBlas* b, int n, double alpha, const double* d_x, double* d_y,
                          alcgStream* s);

/// d_x[i] *= alpha for i < n.
/// @param[in]     b      handle from alcg_blas_make
/// @param[in]     n      items, >= 0; n == 0 does nothing
/// @param[in]     alpha  scale [host]
/// @param[in,out] d_x    vector scaled in place (n) [device]
/// @param[in]     s      stream the operation runs on; its message receives a failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG, or ALC_ERR_CUDA (cublasDscal), with the message on s.
/// Nullable: d_x when n == 0
alctStatus alcg_blas_scal(alcgBlas* b, int n, double alpha, double* d_x, alcgStream* s);

/// Euclidean norm *d_result = sqrt(sum_i d_x[i]^2) (on the device cuBLAS scales to avoid
/// overflow; the emulation does not); n == 0 writes 0.
/// @param[in]  b         handle from alcg_blas_make
/// @param[in]  n         items, >= 0
/// @param[in]  d_x       vector (n) [device]
/// @param[out] d_result  the norm (1) [device]; ready when s reaches it
/// @param[in]  s         stream the operation runs on; its message receives a failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG, or ALC_ERR_CUDA (cublasDnrm2), with the message on s.
/// Nullable: d_x when n == 0
alctStatus alcg_blas_nrm2(alcgBlas* b, int n, const double* d_x, double* d_result, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_BLAS_H_
