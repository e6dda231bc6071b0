// Block-Jacobi preconditioned conjugate gradient on a reference BSR matrix.
#ifndef ALC_HOST_REF_PCG_REF_H_
#define ALC_HOST_REF_PCG_REF_H_

#include "ref/bsr_ref.h"

/// Solve A x = b (A symmetric positive definite) from x = 0 until ||r|| <= tol ||b||.
/// @param[in]  Minv   inverse diagonal blocks (n x 9)
/// @param[in]  work   scratch of 4 x 3n doubles
/// @param[out] iters  iterations taken
/// @return 1 if the tolerance was reached, else 0.
int alcr_pcg_solve(const alcrBsr* A, const double* Minv, const double* b, double* x, double tol,
                   int maxIter, double* work, int* iters);

#endif  // ALC_HOST_REF_PCG_REF_H_
