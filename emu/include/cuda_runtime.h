// In the emulated build (make emu) <cuda_runtime.h> is the SIMT emulation (emu/cuda_emu.h).
#include "../cuda_emu.h"
