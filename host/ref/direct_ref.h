// Sparse direct solve of the Newton system on the reference backend: a Cholesky factorization
// by CHOLMOD (SuiteSparse) of the BSR matrix, for systems block-Jacobi PCG cannot solve to its
// tolerance within its cap (very stiff materials such as E = 2e10 stones, thin stiff boards).
// Built only where CHOLMOD's header was found (ALC_HAVE_CHOLMOD); elsewhere every call but
// alcr_direct_available reports ALC_ERR_UNSUPPORTED.
#ifndef ALC_HOST_REF_DIRECT_REF_H_
#define ALC_HOST_REF_DIRECT_REF_H_

#include "ref/bsr_ref.h"

#include <stddef.h>

typedef struct alcrDirect_ alcrDirect;

/// 1 when this build has the direct solver (CHOLMOD), else 0.
int alcr_direct_available(void);

/// A solver for matrices of n block rows. The symbolic analysis (fill-reducing ordering) is
/// redone only when the matrix pattern changes between solves.
/// @return ALC_OK; ALC_ERR_UNSUPPORTED without CHOLMOD; ALC_ERR_NOMEM.
alctStatus alcr_direct_make(alcrDirect** out, int n);

/// Free the solver and its factor. NULL-safe.
void alcr_direct_free(alcrDirect* D);

/// Bytes held (the scalar matrix copy and the last factor).
size_t alcr_direct_bytes(const alcrDirect* D);

/// Factor A (symmetric positive definite, full BSR storage of which the lower triangle is read)
/// for alcr_direct_solveFactored, which may then solve with it any number of times.
/// @param[out] info  0 on success; else the 1-based scalar column at which A was found not
///                   positive definite (no factor is then kept)
/// @return ALC_OK (also when *info != 0); ALC_ERR_NOMEM; ALC_ERR_UNSUPPORTED without CHOLMOD.
alctStatus alcr_direct_factor(alcrDirect* D, const alcrBsr* A, long* info);

/// x = A^-1 b with the factor of the last successful alcr_direct_factor (b, x: 3 n doubles;
/// they may not alias).
/// @return ALC_OK; ALC_ERR_INVALID_ARG when no factor is kept; ALC_ERR_NOMEM;
///         ALC_ERR_UNSUPPORTED without CHOLMOD.
alctStatus alcr_direct_solveFactored(alcrDirect* D, const double* b, double* x);

/// Solve A x = b (A symmetric positive definite, full BSR storage of which the lower triangle
/// is read) by a Cholesky factorization of A.
/// @param[out] info  0 on success; the 1-based scalar column at which A was found not positive
///                   definite when the factorization failed (x is then left untouched)
/// @return ALC_OK (also when *info != 0); ALC_ERR_NOMEM; ALC_ERR_UNSUPPORTED without CHOLMOD.
alctStatus alcr_direct_solve(alcrDirect* D, const alcrBsr* A, const double* b, double* x,
                             long* info);

#endif  // ALC_HOST_REF_DIRECT_REF_H_
