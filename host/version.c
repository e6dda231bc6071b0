// Version and name tables of the public enums.
#include "ref/direct_ref.h"

#include "alc/alc.h"

#define ALC_VERSION_MAJOR 0
#define ALC_VERSION_MINOR 12
#define ALC_VERSION_PATCH 0

int alcu_version(void) {
    return ALC_VERSION_MAJOR * 10000 + ALC_VERSION_MINOR * 100 + ALC_VERSION_PATCH;
}

#define ALC_STR2(x) #x
#define ALC_STR(x)  ALC_STR2(x)

const char* alcu_versionString(void) {
    return ALC_STR(ALC_VERSION_MAJOR) "." ALC_STR(ALC_VERSION_MINOR) "." ALC_STR(ALC_VERSION_PATCH);
}

const char* alcu_statusString(alctStatus status) {
    static const char* names[ALC_NSTATUS] = {
        "ALC_OK",          "ALC_ERR_INVALID_ARG",  "ALC_ERR_BAD_DEF",
        "ALC_ERR_NOMEM",   "ALC_ERR_DEVICE_NOMEM", "ALC_ERR_CUDA",
        "ALC_ERR_SCENE",   "ALC_ERR_CAPACITY",     "ALC_ERR_NO_DEVICE",
        "ALC_ERR_VERSION", "ALC_ERR_IO",           "ALC_ERR_UNSUPPORTED",
        "ALC_ERR_NUMERIC", "ALC_ERR_CANCELLED"};
    if ((int)status < 0 || status >= ALC_NSTATUS) return "unknown status";
    return names[status];
}

const char* alcu_warningString(alctWarning warning) {
    static const char* names[ALC_NWARNING] = {
        "ALC_WARN_PCG_MAXITER",         "ALC_WARN_AL_NOT_CONVERGED",  "ALC_WARN_CONTACT_OVERFLOW",
        "ALC_WARN_BAD_STATE",           "ALC_WARN_MU_INCREASE",       "ALC_WARN_LINESEARCH",
        "ALC_WARN_KINEMATIC_INVERSION", "ALC_WARN_KINEMATIC_BLOCKED", "ALC_WARN_ENERGY_GAIN",
        "ALC_WARN_IPC_SETTING",         "ALC_WARN_DIRECT_FAILED"};
    if ((int)warning < 0 || warning >= ALC_NWARNING) return "unknown warning";
    return names[warning];
}

const char* alcu_timerString(alctTimer timer) {
    static const char* names[ALC_NTIMER] = {"step", "hessian", "pcg", "ccd", "linesearch", "other"};
    if ((int)timer < 0 || timer >= ALC_NTIMER) return "unknown timer";
    return names[timer];
}

int alcu_directSolverAvailable(void) {
    return alcr_direct_available();
}
