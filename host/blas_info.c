// The BLAS behind CHOLMOD, found at run time: the library that defines dgemm_ in this process
// (dladdr), OpenBLAS's own description where it is OpenBLAS, and advice where it is slower than
// the CPU allows (docs/architecture.md, "Which BLAS").
#include "blas_info.h"

#include "alc/alc.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

// OpenBLAS's x86 core names (its driver/others/dynamic.c) whose kernels have no AVX2
static const char* const kOldCores[] = {
    "Katmai", "Coppermine",  "Northwood", "Prescott",  "Banias",     "Atom",         "Core2",
    "Penryn", "Dunnington",  "Nehalem",   "Athlon",    "Opteron",    "Opteron_SSE3", "Barcelona",
    "Nano",   "Sandybridge", "Bobcat",    "Bulldozer", "Piledriver", "Steamroller"};

int alci_blasAdvice(const char* core, int avx2, int avx512, char* buf, size_t n) {
    if (n) buf[0] = 0;
    if (!core || !avx2) return 0;
    int old = 0;
    for (size_t i = 0; i < sizeof kOldCores / sizeof kOldCores[0]; i++) {
        if (!strcasecmp(core, kOldCores[i])) old = 1;
    }
    if (!old) return 0;
    const char* fit = avx512 ? "SkylakeX" : "Haswell";
    snprintf(
        buf, n,
        "OpenBLAS runs its %s kernels, older than this CPU's %s: set OPENBLAS_CORETYPE=%s "
        "in the environment (IPC's dolphin then ran 1.75x the Newton iterations in the same time)",
        core, avx512 ? "AVX-512" : "AVX2", fit);
    return 1;
}

#if ALC_HAVE_CHOLMOD

typedef char* (*StrFn)(void);
typedef int (*IntFn)(void);

int alcu_blasDescribe(char* buf, size_t n, char* advice, size_t na) {
    if (n) buf[0] = 0;
    if (na) advice[0] = 0;
    // the library dgemm_ resolves to, through the alternatives' symbolic links
    char where[PATH_MAX] = "an unknown library";
    void* dgemm = dlsym(RTLD_DEFAULT, "dgemm_");
    Dl_info info;
    if (dgemm && dladdr(dgemm, &info) && info.dli_fname) {
        char* real = realpath(info.dli_fname, NULL);
        snprintf(where, sizeof where, "%s", real ? real : info.dli_fname);
        free(real);
    }
    StrFn config = NULL, corename = NULL;
    IntFn threads = NULL;
    // POSIX's way of storing dlsym's result in a function pointer (ISO C has no conversion)
    *(void**)&config = dlsym(RTLD_DEFAULT, "openblas_get_config");
    *(void**)&corename = dlsym(RTLD_DEFAULT, "openblas_get_corename");
    *(void**)&threads = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    if (!config || !corename) {
        int reference = strstr(where, "/blas/libblas.so") != NULL;
        snprintf(buf, n, "%s (%s)", reference ? "the reference BLAS" : "not OpenBLAS", where);
        if (reference && na) {
            snprintf(advice, na,
                     "CHOLMOD factorizes with the reference BLAS: Debian's libopenblas0-pthread "
                     "made the IPC dolphin's solves 3x faster (docs/architecture.md, \"Which "
                     "BLAS\"); with it set OPENBLAS_NUM_THREADS where runs share cores");
        }
        return 0;
    }
    const char* core = corename();
    int nt = threads ? threads() : 0;
    snprintf(buf, n, "%s, core %s, %d thread%s (%s)", config(), core ? core : "?", nt,
             nt == 1 ? "" : "s", where);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    int avx512 = __builtin_cpu_supports("avx512f");
    alci_blasAdvice(core, avx2, avx512, advice, na);
#endif
    return 1;
}

#else

int alcu_blasDescribe(char* buf, size_t n, char* advice, size_t na) {
    if (n) snprintf(buf, n, "none (this build has no CHOLMOD)");
    if (na) advice[0] = 0;
    return -1;
}

#endif
