// The IPC barrier time step (placeholder until the IPC contact model lands).
#include "alc_internal.h"

alctStatus alci_step_ipc(alcSim* sim, alcData* d) {
    (void)d;
    return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED, "contact model 'ipc' is not available yet");
}
