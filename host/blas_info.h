// Which BLAS the process runs CHOLMOD's supernodal factorizations on, and whether it is slower
// than the CPU allows (alcu_blasDescribe in alc.h). Internal to the library.
#ifndef ALC_HOST_BLAS_INFO_H_
#define ALC_HOST_BLAS_INFO_H_

#include <stddef.h>

/// Advice for an OpenBLAS whose kernels are older than the CPU's vector units: OpenBLAS built
/// with DYNAMIC_ARCH (Debian's) picks its kernels by the CPU model it knows, and a model newer
/// than its tables gets the oldest x86-64 ones (OpenBLAS 0.3.21 on an Intel Xeon of family 6
/// model 207 runs "Prescott", SSE3 kernels; with SkylakeX's AVX-512 ones IPC's dolphin ran 1.75x
/// the Newton iterations in the same time; bench/results/intel-xeon-2c/ipc-examples.md).
/// @param[in] core    OpenBLAS's core name (openblas_get_corename), any case
/// @param[in] avx2    1 when the CPU has AVX2 and FMA
/// @param[in] avx512  1 when the CPU has AVX-512F
/// @param[out] buf    the advice, "" when there is none; at most n bytes with the NUL
/// @return 1 when advice was written, 0 when the core fits the CPU (or is not an x86 one)
int alci_blasAdvice(const char* core, int avx2, int avx512, char* buf, size_t n);

#endif  // ALC_HOST_BLAS_INFO_H_
