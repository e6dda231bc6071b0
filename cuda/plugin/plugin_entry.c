// The exported entry points of libalcove_cuda.so, the CUDA backend as a shared object that
// libalcove.so opens at run time (host/plugin/cuda_loader.c), so that the host library loads and
// runs the reference backend on a machine without the CUDA runtime. Everything else in the
// object is hidden (-fvisibility=hidden) and bound inside it (-Bsymbolic). The static library
// links cuda/*.cu directly and does not use this file.
#include "plugin/cuda_plugin.h"

#define ALCG_PLUGIN_API __attribute__((visibility("default")))

/// The interface version: the loader refuses an object built with other struct layouts.
ALCG_PLUGIN_API unsigned long alcg_plugin_abi(void);
ALCG_PLUGIN_API int alcg_plugin_available(void);
ALCG_PLUGIN_API int alcg_plugin_complete(void);
ALCG_PLUGIN_API int alcg_plugin_emulated(void);
ALCG_PLUGIN_API alctStatus alcg_plugin_backendMake(alcSim* sim, alciBackend* out);
ALCG_PLUGIN_API int alcg_plugin_describe(int device, char* buf, size_t n);

unsigned long alcg_plugin_abi(void) {
    return alci_cudaPluginAbi();
}

int alcg_plugin_available(void) {
    return alcu_cudaAvailable();
}

int alcg_plugin_complete(void) {
    return alcg_backend_complete();
}

int alcg_plugin_emulated(void) {
    return alcg_device_emulated();
}

alctStatus alcg_plugin_backendMake(alcSim* sim, alciBackend* out) {
    return alcg_backend_make(sim, out);
}

int alcg_plugin_describe(int device, char* buf, size_t n) {
    return alcu_cudaDescribe(device, buf, n);
}
