// Fibers for the SIMT emulation: a stack per emulated thread and a context switch, announced to
// AddressSanitizer and ThreadSanitizer when the build uses them. Internal to emu/.
#ifndef ALC_EMU_EMU_FIBER_H_
#define ALC_EMU_EMU_FIBER_H_

#include <stddef.h>

namespace alc_emu {

/// A user-level execution context. The host thread's own context is a Fiber with no stack.
struct Fiber {
    void* sp = nullptr;                // saved stack pointer (x86-64 switch)
    void* uctx = nullptr;              // ucontext_t (other architectures)
    char* stack = nullptr;             // lowest usable address (above the guard page)
    size_t stackSize = 0;              // usable bytes
    void* tsan = nullptr;              // TSan fiber handle
    void* asanFake = nullptr;          // ASan fake-stack save slot
    const void* asanBottom = nullptr;  // ASan: bottom and size of this context's stack
    size_t asanSize = 0;
};

/// Stack bytes of each emulated thread (more under the sanitizers, whose frames are larger).
size_t fiberStackBytes();

/// Give f a fresh stack (once) and prepare it to run entry() from the top on its next switch.
/// entry must never return: it switches away for good instead.
bool fiberPrepare(Fiber* f, void (*entry)());

/// Release f's stack and sanitizer state.
void fiberRelease(Fiber* f);

/// Make the calling host thread's context into `self` (once per host thread).
void fiberAdoptThread(Fiber* self);

/// Switch from the running context `from` to `to`. With `forever`, `from` never resumes (its
/// sanitizer state is dropped). Returns when something switches back to `from`.
void fiberSwitch(Fiber* from, Fiber* to, bool forever);

/// Called first thing in a fiber's entry function (finishes the sanitizers' switch).
void fiberStarted(Fiber* self);

/// ThreadSanitizer happens-before edges (no-ops without TSan): release on addr by the running
/// fiber, acquire on addr by the running fiber.
void hbRelease(void* addr);
void hbAcquire(void* addr);

/// Order everything fiber `lane` did before what `self` (the running context) does next, for a
/// fiber that will never run again (a block abandoned after a fault). No-op without TSan.
void hbAdopt(Fiber* lane, Fiber* self);

}  // namespace alc_emu

#endif  // ALC_EMU_EMU_FIBER_H_
