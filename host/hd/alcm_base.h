// Qualifiers and scalar basics shared by host C11 and CUDA device code.
// Header-only: includes only <math.h>, <stdint.h>, <stdbool.h> (STYLE.md §7).
#ifndef ALC_HD_ALCM_BASE_H_
#define ALC_HD_ALCM_BASE_H_

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define ALC_HD static __host__ __device__ __forceinline__
#else
#define ALC_HD static inline
#endif

ALC_HD double alcm_min(double a, double b) {
    return a < b ? a : b;
}
ALC_HD double alcm_max(double a, double b) {
    return a > b ? a : b;
}
ALC_HD double alcm_clamp(double a, double lo, double hi) {
    return a < lo ? lo : (a > hi ? hi : a);
}
ALC_HD double alcm_sq(double a) {
    return a * a;
}
ALC_HD int alcm_mini(int a, int b) {
    return a < b ? a : b;
}
ALC_HD int alcm_maxi(int a, int b) {
    return a > b ? a : b;
}

#endif  // ALC_HD_ALCM_BASE_H_
