// The CUDA device as the GPU tests see it: discovery and a sim on the cuda backend.
#include "../test_macros.h"

#include "alc/alc.h"

ALC_TEST(gpu_deviceAvailable) {
    ENSURE(alcu_cudaAvailable() == 1);
    return ALC_TEST_PASS;
}
