// The CUDA backend's operation table (cuda/): created on a usable device only.
#include <cuda_runtime.h>

extern "C" {
#include "alc_internal.h"
}

extern "C" int alcg_backend_complete(void) {
    return 0;  // the collision kernels exist (issue part 1); the full step does not yet
}

extern "C" alctStatus alcg_backend_make(alcSim* sim, alciBackend* out) {
    (void)out;
    if (!alcu_cudaAvailable()) {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        cudaGetLastError();
        return ALC_ERROR(sim, ALC_ERR_NO_DEVICE,
                         "backend 'cuda' selected but no CUDA device is "
                         "usable (%s); use backend 'ref' or 'auto'",
                         e == cudaSuccess ? "device count is 0" : cudaGetErrorString(e));
    }
    return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                     "the CUDA backend does not implement the full step yet; use backend 'ref'");
}
