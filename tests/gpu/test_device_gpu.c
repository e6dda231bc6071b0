// The CUDA device as the GPU tests see it: discovery and a sim on the cuda backend.
#include "../test_macros.h"

#include "alc/alc.h"

#include <stdio.h>
#include <string.h>

ALC_TEST(gpu_deviceAvailable) {
    ENSURE(alcu_cudaAvailable() == 1);
    return ALC_TEST_PASS;
}

/// Device 0 is described (the emulation as itself), an ordinal past the last is not, and a sim
/// on the cuda backend names its device.
ALC_TEST(gpu_deviceDescribed) {
    char desc[160];
    int kind = alcu_cudaDescribe(0, desc, sizeof desc);
    ENSURE_MSG(kind == 1 || kind == 2, "alcu_cudaDescribe(0) returned %d", kind);
    ENSURE(desc[0] != 0 && strlen(desc) < sizeof desc);
    if (kind == 1) ENSURE_MSG(strstr(desc, ", sm_") && strstr(desc, " GiB"), "%s", desc);
    if (kind == 2) ENSURE_MSG(strstr(desc, "emulation"), "%s", desc);
    alct_note("device 0: %s", desc);
    char small[8];
    ENSURE(alcu_cudaDescribe(0, small, sizeof small) == kind && strlen(small) == sizeof small - 1);
    char none[64];
    if (kind == 1) ENSURE(alcu_cudaDescribe(4096, none, sizeof none) == 0 && none[0] == 0);

    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/scenes/slope.yaml", alct_rootDir());
    alcModel* m = NULL;
    alcLoadDef ld = alc_defaultLoadDef();
    ENSURE_MSG(alc_loadScene(path, &ld, &m, err, sizeof err) == ALC_OK, "%s", err);
    alctStatus st;
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_CUDA;
    alcSim* sim = NULL;
    st = alc_makeSim(m, &def, &sim);
    ENSURE_MSG(st == ALC_OK, "%s", sim ? alc_lastError(sim) : alcu_statusString(st));
    ENSURE_MSG(strcmp(alc_simDeviceName(sim), desc) == 0, "sim names '%s', device 0 is '%s'",
               alc_simDeviceName(sim), desc);
    alc_deleteSim(sim);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}
