// The CUDA backend loaded on demand, for libalcove.so only (the static library links cuda/*.cu
// directly): the first call that needs it opens libalcove_cuda.so (cuda/plugin/plugin_entry.c)
// from the folder libalcove.so was loaded from, or from $ALC_CUDA_PLUGIN. Where that fails —
// no CUDA runtime or driver libraries on the machine, a missing or mismatched object — the
// CUDA backend is reported unavailable with the reason, and the reference backend runs as
// on any machine: one build of the library serves machines with and without GPUs.
#include "plugin/cuda_plugin.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static const char g_anchor = 0;  // an address inside this library, for dladdr
static char g_why[1024];         // why the object could not be used ("" once loaded)
static int (*g_available)(void);
static int (*g_complete)(void);
static int (*g_emulated)(void);
static alctStatus (*g_make)(alcSim*, alciBackend*);
static int (*g_describe)(int, char*, size_t);

static void load(void) {
    char path[4096];
    const char* env = getenv("ALC_CUDA_PLUGIN");
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        // beside this library
        Dl_info info;
        const char* self = dladdr(&g_anchor, &info) && info.dli_fname ? info.dli_fname : "";
        const char* slash = strrchr(self, '/');
        snprintf(path, sizeof path, "%.*slibalcove_cuda.so", slash ? (int)(slash - self + 1) : 0,
                 self);
    }
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        snprintf(g_why, sizeof g_why, "the CUDA backend (%.300s) could not be loaded: %.600s", path,
                 e ? e : "unknown error");
        return;
    }
    // POSIX's way of storing dlsym's result in a function pointer (ISO C has no conversion)
    unsigned long (*abi)(void) = NULL;
    *(void**)&abi = dlsym(h, "alcg_plugin_abi");
    *(void**)&g_available = dlsym(h, "alcg_plugin_available");
    *(void**)&g_complete = dlsym(h, "alcg_plugin_complete");
    *(void**)&g_emulated = dlsym(h, "alcg_plugin_emulated");
    *(void**)&g_make = dlsym(h, "alcg_plugin_backendMake");
    *(void**)&g_describe = dlsym(h, "alcg_plugin_describe");
    if (!abi || !g_available || !g_complete || !g_emulated || !g_make || !g_describe) {
        snprintf(g_why, sizeof g_why, "%.600s is not alcove's CUDA backend (entry points missing)",
                 path);
    } else if (abi() != alci_cudaPluginAbi()) {
        snprintf(g_why, sizeof g_why,
                 "%.600s was built from another version of alcove (interface %lu, expected %lu)",
                 path, abi(), alci_cudaPluginAbi());
    } else {
        g_why[0] = 0;
        return;  // kept open for the life of the process
    }
    g_available = NULL;
    dlclose(h);
}

static int loaded(void) {
    pthread_once(&g_once, load);
    return g_why[0] == 0;
}

int alcu_cudaAvailable(void) {
    return loaded() && g_available();
}

int alcu_cudaDescribe(int device, char* buf, size_t n) {
    if (buf && n > 0) buf[0] = 0;
    return loaded() ? g_describe(device, buf, n) : 0;
}

int alcg_backend_complete(void) {
    return loaded() && g_complete();
}

int alcg_device_emulated(void) {
    return loaded() && g_emulated();
}

alctStatus alcg_backend_make(alcSim* sim, alciBackend* out) {
    if (!loaded()) return ALC_ERROR(sim, ALC_ERR_NO_DEVICE, "%s", g_why);
    return g_make(sim, out);
}
