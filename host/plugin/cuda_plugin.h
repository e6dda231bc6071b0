// The interface between libalcove.so and the CUDA backend object libalcove_cuda.so: the
// interface number both sides compute (host/plugin/cuda_loader.c checks the object's against
// its own), from the header version and the sizes of the structs that cross. Internal.
#ifndef ALC_HOST_PLUGIN_CUDA_PLUGIN_H_
#define ALC_HOST_PLUGIN_CUDA_PLUGIN_H_

#include "alc_internal.h"
#include "backend.h"

/// The interface number of this build.
static inline unsigned long alci_cudaPluginAbi(void) {
    return (unsigned long)ALC_VERSION_HEADER * 1000003ul + sizeof(struct alcSim_) * 131ul +
           sizeof(alciBackendOps) * 7ul + sizeof(alcSimDef) + sizeof(alciContactParams) * 17ul;
}

#endif  // ALC_HOST_PLUGIN_CUDA_PLUGIN_H_
