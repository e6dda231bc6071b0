// Fibers for the SIMT emulation (emu_fiber.h). On x86-64 a hand-written switch saves only the
// callee-saved registers and the floating-point control words, avoiding the signal-mask system
// call glibc's swapcontext makes on every switch (a barrier, two switches per thread plus the
// scheduler's bookkeeping, adds about 46 ns per emulated thread: bench/results/amd-epyc-2c/
// emulation.md). Other architectures use ucontext. Stacks are reserved with mmap behind a guard
// page; only touched pages cost memory.
#include "emu_fiber.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define ALC_EMU_ASAN 1
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__) || defined(ALC_EMU_TSAN)
#undef ALC_EMU_TSAN
#define ALC_EMU_TSAN 1
#include <sanitizer/tsan_interface.h>
#endif

#if defined(__x86_64__)
// void alc_emu_switchStack(void** saveSp, void* newSp): push the callee-saved registers and the
// MXCSR / x87 control words, store rsp, load the new rsp, pop the same set, return into it
__asm__(
    ".text\n"
    ".globl alc_emu_switchStack\n"
    ".type alc_emu_switchStack,@function\n"
    "alc_emu_switchStack:\n"
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  subq $8, %rsp\n"
    "  stmxcsr (%rsp)\n"
    "  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n"
    "  fldcw 4(%rsp)\n"
    "  addq $8, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"
    ".size alc_emu_switchStack,.-alc_emu_switchStack\n"
    ".section .note.GNU-stack,\"\",@progbits\n"
    ".text\n");
extern "C" void alc_emu_switchStack(void** saveSp, void* newSp);
#endif

namespace alc_emu {

size_t fiberStackBytes() {
#if defined(ALC_EMU_ASAN) || defined(ALC_EMU_TSAN)
    return 512 * 1024;
#else
    return 128 * 1024;
#endif
}

static bool reserveStack(Fiber* f) {
    if (f->stack) return true;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = fiberStackBytes();
    void* p = mmap(nullptr, bytes + page, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) return false;
    mprotect(p, page, PROT_NONE);  // guard page below the stack: an overflow faults
    f->stack = (char*)p + page;
    f->stackSize = bytes;
#if defined(ALC_EMU_TSAN)
    f->tsan = __tsan_create_fiber(0);
#endif
#if !defined(__x86_64__)
    f->uctx = calloc(1, sizeof(ucontext_t));
#endif
    return true;
}

bool fiberPrepare(Fiber* f, void (*entry)()) {
    if (!reserveStack(f)) return false;
#if defined(ALC_EMU_ASAN)
    // the last fiber on this stack switched away for good, leaving its frames' redzones poisoned
    __asan_unpoison_memory_region(f->stack, f->stackSize);
#endif
#if defined(__x86_64__)
    // frame popped by alc_emu_switchStack: control words, r15..rbp, then `ret` into entry with
    // rsp = top - 8, the alignment of a function entered by call
    uintptr_t top = ((uintptr_t)(f->stack + f->stackSize)) & ~(uintptr_t)15;
    uint64_t* sp = (uint64_t*)top;
    *--sp = 0;                              // entry's return address: it never returns
    *--sp = (uint64_t)entry;                // popped by ret
    for (int i = 0; i < 6; i++) *--sp = 0;  // rbp rbx r12 r13 r14 r15
    uint32_t mxcsr;
    uint16_t fcw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fcw));
    *--sp = (uint64_t)mxcsr | ((uint64_t)fcw << 32);
    f->sp = sp;
#else
    ucontext_t* uc = (ucontext_t*)f->uctx;
    getcontext(uc);
    uc->uc_stack.ss_sp = f->stack;
    uc->uc_stack.ss_size = f->stackSize;
    uc->uc_link = nullptr;
    makecontext(uc, entry, 0);
#endif
    f->asanBottom = f->stack;
    f->asanSize = f->stackSize;
    f->asanFake = nullptr;
    return true;
}

void fiberRelease(Fiber* f) {
    if (!f->stack) return;
#if defined(ALC_EMU_TSAN)
    if (f->tsan) __tsan_destroy_fiber(f->tsan);
#endif
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    munmap(f->stack - page, f->stackSize + page);
    free(f->uctx);
    *f = Fiber();
}

void fiberAdoptThread(Fiber* self) {
    // the host thread's stack, for the sanitizers' switch announcements
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void* addr = nullptr;
        size_t size = 0;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
            self->asanBottom = addr;
            self->asanSize = size;
        }
        pthread_attr_destroy(&attr);
    }
#if defined(ALC_EMU_TSAN)
    self->tsan = __tsan_get_current_fiber();
#endif
#if !defined(__x86_64__)
    if (!self->uctx) self->uctx = calloc(1, sizeof(ucontext_t));
#endif
    (void)self;
}

void fiberStarted(Fiber* self) {
#if defined(ALC_EMU_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
#endif
    (void)self;
}

void fiberSwitch(Fiber* from, Fiber* to, bool forever) {
#if defined(ALC_EMU_ASAN)
    __sanitizer_start_switch_fiber(forever ? nullptr : &from->asanFake, to->asanBottom,
                                   to->asanSize);
#else
    (void)forever;
#endif
#if defined(ALC_EMU_TSAN)
    // no implicit ordering: only barriers and __syncwarp order emulated threads
    __tsan_switch_to_fiber(to->tsan, __tsan_switch_to_fiber_no_sync);
#endif
#if defined(__x86_64__)
    alc_emu_switchStack(&from->sp, to->sp);
#else
    swapcontext((ucontext_t*)from->uctx, (ucontext_t*)to->uctx);
#endif
#if defined(ALC_EMU_ASAN)
    // back in `from`: learn the stack of whoever switched here (the host thread's on first use)
    const void* bottom = nullptr;
    size_t size = 0;
    __sanitizer_finish_switch_fiber(from->asanFake, &bottom, &size);
    (void)bottom;
    (void)size;
#endif
}

void hbRelease(void* addr) {
#if defined(ALC_EMU_TSAN)
    __tsan_release(addr);
#else
    (void)addr;
#endif
}

void hbAcquire(void* addr) {
#if defined(ALC_EMU_TSAN)
    __tsan_acquire(addr);
#else
    (void)addr;
#endif
}

}  // namespace alc_emu

namespace alc_emu {

void hbAdopt(Fiber* lane, Fiber* self) {
#if defined(ALC_EMU_TSAN)
    // switch TSan's notion of the running fiber there and back, the way back synchronizing
    __tsan_switch_to_fiber(lane->tsan, __tsan_switch_to_fiber_no_sync);
    __tsan_switch_to_fiber(self->tsan, 0);
#else
    (void)lane;
    (void)self;
#endif
}

}  // namespace alc_emu
