// Deterministic vector kernels of the reference backend: results do not depend on the number
// of OpenMP threads (fixed blocks, summed in order).
#ifndef ALC_HOST_REF_VEC_REF_H_
#define ALC_HOST_REF_VEC_REF_H_

/// sum_i a[i] * b[i] over n entries.
double alcr_vec_dot(int n, const double* a, const double* b);

/// sum_i a[i] over n entries.
double alcr_vec_sum(int n, const double* a);

/// max_i |a[i]| over n entries.
double alcr_vec_maxAbs(int n, const double* a);

/// y = a*x + b*y over n entries.
void alcr_vec_axpby(int n, double a, const double* x, double b, double* y);

#endif  // ALC_HOST_REF_VEC_REF_H_
