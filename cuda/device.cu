// Device discovery: any error from the CUDA runtime counts as "no device".
#include <cuda_runtime.h>

#include <stdio.h>

extern "C" {
#include "alc/alc.h"
}

extern "C" int alcu_cudaAvailable(void) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();  // clear the sticky error state
        return 0;
    }
    return n > 0;
}

extern "C" int alcu_cudaDescribe(int device, char* buf, size_t n) {
    if (!buf || n == 0) return 0;
    buf[0] = 0;
#if defined(ALC_EMU)
    (void)device;
    snprintf(buf, n, "SIMT emulation on the CPU, not a GPU");
    return 2;
#else
    cudaDeviceProp p;
    if (!alcu_cudaAvailable() || cudaGetDeviceProperties(&p, device) != cudaSuccess) {
        cudaGetLastError();  // clear the sticky error state
        return 0;
    }
    snprintf(buf, n, "%s, sm_%d%d, %.1f GiB", p.name, p.major, p.minor,
             (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0));
    return 1;
#endif
}

extern "C" int alcg_device_emulated(void) {
#if defined(ALC_EMU)
    return 1;  // build/emu: cuda/*.cu run in the SIMT emulation (emu/cuda_emu.h)
#else
    return 0;
#endif
}
