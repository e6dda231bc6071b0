// The vector operations of the AL time step on the device (AL paper Alg. 1-2, §5.3): the start
// of a step, the iterate and line-search updates, the advance of the intersection-free state,
// the end-of-step velocity and the two scalars a Newton direction reports. Twins of the loops in
// host/ref/backend_ref.c (opBeginStep, opStepXhat, opAdvance, opEndStep, opSolve's pInf and
// gDotP). Every vector holds 3 doubles per vertex. Clean C.
#ifndef ALC_CUDA_STEP_VEC_H_
#define ALC_CUDA_STEP_VEC_H_

#include "alcg_stream.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The start of a step (Alg. 1 lines 3-5, §5.3): XT = X = x, VT = v; a kinematic vertex has
/// XHAT = XTILDE = its target, a free one XHAT = x and XTILDE = x + h v + h^2 g.
/// @param[in]  n          vertices
/// @param[in]  d_xin      x^t (n x 3) (m) [device]
/// @param[in]  d_vin      v^t (n x 3) (m/s) [device]
/// @param[in]  d_target   kinematic targets at t + h (n x 3) (m) [device]
/// @param[in]  d_kin      1 for a kinematic vertex (n) [device]
/// @param[in]  h          time step (s)
/// @param[in]  gravity    (3) (m/s^2) [host]
/// @param[out] d_xt, d_vt, d_x, d_xhat, d_xtilde  the step vectors (n x 3) [device]
/// @param[in]  s          stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_stepVec_begin(int n, const double* d_xin, const double* d_vin,
                              const double* d_target, const unsigned char* d_kin, double h,
                              const double gravity[3], double* d_xt, double* d_vt, double* d_x,
                              double* d_xhat, double* d_xtilde, alcgStream* s);

/// d_out = d_y + r d_p over N doubles (d_out may be d_y).
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_stepVec_axpy(int N, double r, const double* d_p, const double* d_y, double* d_out,
                             alcgStream* s);

/// d_out = a d_x over N doubles (d_out may be d_x).
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_stepVec_scale(int N, double a, const double* d_x, double* d_out, alcgStream* s);

/// The advance of Alg. 1: d_x := (1 - alpha) d_x + alpha d_to as d_x + alpha (d_to - d_x); a
/// copy for alpha >= 1, nothing for alpha <= 0 (as opAdvance).
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_stepVec_advance(int N, double alpha, const double* d_to, double* d_x,
                                alcgStream* s);

/// d_v = (d_x - d_xt) * ih over N doubles (ih = 1 / h).
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_stepVec_velocity(int N, double ih, const double* d_x, const double* d_xt,
                                 double* d_v, alcgStream* s);

/// Scratch doubles alcg_stepVec_norms needs for N doubles.
size_t alcg_stepVec_normsScratch(int N);

/// ||p||_inf and g . p in one pass: per-block partials, then one block over them in a fixed
/// order (bitwise reproducible; the dot's order differs from the reference's serial sum).
/// @param[in]  N          doubles
/// @param[in]  d_p, d_g   vectors (N) [device]
/// @param[in]  d_scratch  alcg_stepVec_normsScratch(N) doubles [device]
/// @param[out] pInf, gDotP  [host]; synchronizes s
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_stepVec_norms(int N, const double* d_p, const double* d_g, double* d_scratch,
                              double* pInf, double* gDotP, alcgStream* s);

/// Largest |d_a[i] - d_b[i]| over the coordinates of the vertices with d_mask 1 (0 when none).
/// @param[in]  n          vertices
/// @param[in]  d_scratch  alcg_stepVec_normsScratch(3 n) doubles [device]
/// @param[out] out        [host]; synchronizes s
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_stepVec_maskedMaxDiff(int n, const double* d_a, const double* d_b,
                                      const unsigned char* d_mask, double* d_scratch, double* out,
                                      alcgStream* s);

/// d_out[i] = d_mask[vertex] ? d_a[i] : d_b[i] over the 3 n coordinates.
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_stepVec_select(int n, const unsigned char* d_mask, const double* d_a,
                               const double* d_b, double* d_out, alcgStream* s);

/// The bodies of a model as vertex ranges (device copies of alcModel.body_vertadr/vertnum), for
/// kinPlace's carry-along (cuda/kin_carry.h).
typedef struct alcgBodies_ {
    int nbody;
    const int* d_vertadr;  ///< first vertex of each body (nbody) [device]
    const int* d_vertnum;  ///< vertices of each body (nbody) [device]
} alcgBodies;

/// d_xhat[i] += f (d_trial[i] - d_xhat[i]) on the vertices whose d_mask is `want` (0 or 1);
/// with copyAtOne and f >= 1 the exact copy d_xhat = d_trial there instead (as opKinPlace
/// places kinematic vertices on their targets).
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
alctStatus alcg_stepVec_moveMasked(int n, const unsigned char* d_mask, int want, double f,
                                   int copyAtOne, const double* d_trial, double* d_xhat,
                                   alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_STEP_VEC_H_
