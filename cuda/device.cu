// Device discovery: any error from the CUDA runtime counts as "no device".
#include <cuda_runtime.h>

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

extern "C" int alcg_device_emulated(void) {
#if defined(ALC_EMU)
    return 1;  // build/emu: cuda/*.cu run in the SIMT emulation (emu/cuda_emu.h)
#else
    return 0;
#endif
}
