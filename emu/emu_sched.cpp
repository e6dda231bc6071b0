// The SIMT emulation's scheduler (emu/cuda_emu.h): launches, blocks as fibers, barriers, warp
// collectives, and the reports of what a device would hang or misbehave on.
//
// This file is compiled without ThreadSanitizer instrumentation even in `make tsan`: its own
// bookkeeping (lanes depositing values for a collective, the scheduler reading them) is not a
// race between emulated threads, and only the kernels' memory accesses should be checked.
#include "cuda_emu.h"
#include "emu_fiber.h"

#include <condition_variable>
#include <mutex>
#include <new>
#include <stdarg.h>
#include <stdlib.h>
#include <thread>
#include <vector>

// the TLS section of __shared__ variables is delimited by these two (linked with
// --sort-section=name, so .tbss.alc_emu_shm0 < .tbss.alc_emu_shm1 < .tbss.alc_emu_shm2)
extern "C" {
__attribute__((section(".tbss.alc_emu_shm0"), aligned(64))) __thread char alc_emu_shmBegin[1];
__attribute__((section(".tbss.alc_emu_shm2"), aligned(1))) __thread char alc_emu_shmEnd[1];
}

__thread alc_emu::ThreadInfo* alc_emu_thread;
__thread alc_emu::BlockInfo alc_emu_block;

namespace alc_emu {

enum Wait { W_RUN, W_BARRIER, W_SYNCWARP, W_COLL, W_DONE };

static const char* const kOpName[OP_NUM] = {
    "__shfl_sync",       "__shfl_up_sync",    "__shfl_down_sync",  "__shfl_xor_sync",
    "__ballot_sync",     "__any_sync",        "__all_sync",        "__match_any_sync",
    "__match_all_sync",  "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
    "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync",
    "__reduce_xor_sync",
};

/// An emulated thread.
struct Lane {
    ThreadInfo info;
    Fiber fiber;
    int linear = 0;
    Wait wait = W_DONE;
    const char* file = "";  // where it waits
    int line = 0;
    unsigned mask = 0;
    Op op = OP_SHFL;
    int size = 4;
    int arg = 0;
    int width = 32;
    unsigned long long value = 0;
    unsigned long long result = 0;
    int gen = 0;  // barrier or syncwarp generation it waits in (happens-before objects)
};

struct Launch {
    const char* kernel;
    const char* file;
    int line;
    dim3 grid;
    dim3 block;
    size_t shmem;
    KernelBody body;
    const void* closure;
    unsigned long long seed;
    long nblocks;
    std::atomic<long> next{0};
    std::atomic<bool> fault{false};
};

/// Per host thread: the lanes of the block it runs and its scheduler context.
struct Worker {
    Fiber self;
    Lane lanes[1024];
    unsigned char* dyn = nullptr;  // dynamic shared memory
    size_t dynCap = 0;
    Launch* launch = nullptr;
    int nthreads = 0;
    int cur = -1;  // running lane
    bool aborted = false;
    int barrierGen = 0;
    int warpGen[32] = {};
    // happens-before objects for ThreadSanitizer (addresses only)
    char hbStart = 0, hbDone = 0;
    char hbBarrier[2] = {0, 0};
    char hbWarp[32][2] = {};
    unsigned long long rng = 0;
};

static __thread Worker* tWorker;

// ---- global settings and the fault record ---------------------------------------------------
static std::mutex gFaultMutex;
static char gFault[1024];
static std::atomic<bool> gQuiet{false};
static std::atomic<unsigned long long> gSeed{0};
static std::atomic<int> gThreads{0};
static std::atomic<unsigned long long> gLaunchCount{0};
static std::mutex gLaunchMutex;  // one launch at a time

const char* lastFault() {
    return gFault;
}
void clearFault() {
    std::lock_guard<std::mutex> g(gFaultMutex);
    gFault[0] = 0;
}
void setQuiet(bool q) {
    gQuiet = q;
}
bool isQuiet() {
    return gQuiet;
}
void setSeed(unsigned long long s) {
    gSeed = s ? s : 1;
}
void setThreads(int n) {
    gThreads = n;
}

static unsigned long long seedNow() {
    unsigned long long s = gSeed.load();
    if (!s) {
        const char* e = getenv("ALC_EMU_SEED");
        s = e ? strtoull(e, nullptr, 0) : 1;
        if (!s) s = 1;
        gSeed = s;
    }
    return s;
}

static int threadsNow() {
    int n = gThreads.load();
    if (n <= 0) {
        const char* e = getenv("ALC_EMU_THREADS");
        n = e ? atoi(e) : 0;
        if (n <= 0) {
            unsigned hc = std::thread::hardware_concurrency();
            n = hc >= 2 ? 2 : 1;
        }
        gThreads = n;
    }
    return n;
}

// the launch's pending error, reported by cudaGetLastError and the synchronizations
void setPendingError(cudaError_t e);

static unsigned long long splitmix(unsigned long long* s) {
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void shuffle(Worker* w, int* a, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(splitmix(&w->rng) % (unsigned long long)(i + 1));
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/// Record a fault of the running block: lane names the thread (nullable), then the message.
__attribute__((format(printf, 3, 4))) static void fault(Worker* w, const Lane* lane,
                                                        const char* fmt, ...) {
    Launch* L = w->launch;
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    std::lock_guard<std::mutex> g(gFaultMutex);
    if (!L->fault.exchange(true)) {
        const uint3 b = alc_emu_block.idx;
        if (lane) {
            snprintf(gFault, sizeof gFault,
                     "emulated kernel %s (launched at %s:%d), block (%u,%u,%u), thread "
                     "(%u,%u,%u): %s",
                     L->kernel, L->file, L->line, b.x, b.y, b.z, lane->info.tid.x, lane->info.tid.y,
                     lane->info.tid.z, msg);
        } else {
            snprintf(gFault, sizeof gFault,
                     "emulated kernel %s (launched at %s:%d), block (%u,%u,%u): %s", L->kernel,
                     L->file, L->line, b.x, b.y, b.z, msg);
        }
        if (!gQuiet) fprintf(stderr, "%s\n", gFault);
    }
    w->aborted = true;
}

// ---- the lane side ----------------------------------------------------------------------------
static Lane* currentLane(const char* what) {
    Worker* w = tWorker;
    if (!w || w->cur < 0) {
        fprintf(stderr, "alcove emulation: %s called outside a kernel\n", what);
        abort();
    }
    return &w->lanes[w->cur];
}

static void yieldToScheduler(Lane* L) {
    fiberSwitch(&L->fiber, &tWorker->self, false);
}

static void laneEntry() {
    Worker* w = tWorker;
    Lane* L = &w->lanes[w->cur];
    fiberStarted(&L->fiber);
    hbAcquire(&w->hbStart);
    w->launch->body(w->launch->closure);
    w = tWorker;
    L = &w->lanes[w->cur];
    hbRelease(&w->hbDone);
    L->wait = W_DONE;
    fiberSwitch(&L->fiber, &w->self, true);
    abort();  // a finished fiber is never resumed
}

int syncthreads(const char* file, int line, int pred) {
    Lane* L = currentLane("__syncthreads");
    Worker* w = tWorker;
    L->wait = W_BARRIER;
    L->file = file;
    L->line = line;
    L->value = (unsigned long long)(pred != 0);
    L->gen = w->barrierGen;
    hbRelease(&w->hbBarrier[L->gen & 1]);
    yieldToScheduler(L);
    hbAcquire(&tWorker->hbBarrier[L->gen & 1]);
    return (int)L->result;
}

void syncwarp(const char* file, int line, unsigned mask) {
    Lane* L = currentLane("__syncwarp");
    Worker* w = tWorker;
    int warp = L->linear / 32;
    L->wait = W_SYNCWARP;
    L->file = file;
    L->line = line;
    L->mask = mask;
    L->gen = w->warpGen[warp];
    hbRelease(&w->hbWarp[warp][L->gen & 1]);
    yieldToScheduler(L);
    hbAcquire(&tWorker->hbWarp[warp][L->gen & 1]);
}

unsigned long long collective(const char* file, int line, Op op, unsigned mask,
                              unsigned long long value, int size, int arg, int width) {
    Lane* L = currentLane("a warp collective");
    L->wait = W_COLL;
    L->file = file;
    L->line = line;
    L->op = op;
    L->mask = mask;
    L->value = value;
    L->size = size;
    L->arg = arg;
    L->width = width;
    yieldToScheduler(L);
    return L->result;
}

unsigned activeMask() {
    Lane* L = currentLane("__activemask");
    Worker* w = tWorker;
    int base = L->linear & ~31;
    unsigned m = 0;
    for (int i = 0; i < 32 && base + i < w->nthreads; i++) {
        if (w->lanes[base + i].wait != W_DONE) m |= 1u << i;
    }
    return m;
}

int emuBlockThreads() {
    return tWorker ? tWorker->nthreads : 0;
}

void* dynamicShared() {
    Worker* w = tWorker;
    return w ? w->dyn : nullptr;
}

// ---- the scheduler side -------------------------------------------------------------------------
static const char* waitText(const Lane* L, char* buf, size_t n) {
    switch (L->wait) {
        case W_DONE:
            snprintf(buf, n, "has exited");
            break;
        case W_BARRIER:
            snprintf(buf, n, "waits at __syncthreads at %s:%d", L->file, L->line);
            break;
        case W_SYNCWARP:
            snprintf(buf, n, "waits at __syncwarp(0x%08x) at %s:%d", L->mask, L->file, L->line);
            break;
        case W_COLL:
            snprintf(buf, n, "waits at %s(0x%08x) at %s:%d", kOpName[L->op], L->mask, L->file,
                     L->line);
            break;
        default:
            snprintf(buf, n, "is running");
    }
    return buf;
}

/// Compute the results of a complete collective over the lanes in `group` (warp lane bits).
static bool completeCollective(Worker* w, int base, unsigned group) {
    Lane* lanes = w->lanes + base;
    int first = __builtin_ctz(group);
    const Lane* F = &lanes[first];
    Op op = F->op;
    for (int i = 0; i < 32; i++) {
        if (!(group >> i & 1u)) continue;
        if (lanes[i].size != F->size) {
            fault(w, &lanes[i], "%s at %s:%d: lanes pass values of different sizes", kOpName[op],
                  lanes[i].file, lanes[i].line);
            return false;
        }
    }
    unsigned long long acc = 0;
    bool all = true, any = false;
    switch (op) {
        case OP_SHFL:
        case OP_SHFL_UP:
        case OP_SHFL_DOWN:
        case OP_SHFL_XOR:
            for (int i = 0; i < 32; i++) {
                if (!(group >> i & 1u)) continue;
                Lane* L = &lanes[i];
                int wd = L->width;
                if (wd < 1 || wd > 32 || (wd & (wd - 1))) {
                    fault(w, L, "%s at %s:%d: width %d is not a power of 2 in [1, 32]", kOpName[op],
                          L->file, L->line, wd);
                    return false;
                }
                int seg = i & ~(wd - 1), src = i;
                if (op == OP_SHFL) {
                    src = seg + (L->arg & (wd - 1));
                } else if (op == OP_SHFL_UP) {
                    src = (i - seg) >= L->arg ? i - L->arg : i;
                } else if (op == OP_SHFL_DOWN) {
                    src = (i - seg) + L->arg < wd ? i + L->arg : i;
                } else {
                    src = i ^ (L->arg & 31);
                    if (src >= seg + wd) src = i;
                }
                if (!(group >> src & 1u)) {
                    fault(w, L, "%s at %s:%d reads lane %d, which its mask 0x%08x does not name",
                          kOpName[op], L->file, L->line, src, L->mask);
                    return false;
                }
                L->result = lanes[src].value;
            }
            break;
        case OP_BALLOT:
        case OP_ANY:
        case OP_ALL:
            for (int i = 0; i < 32; i++) {
                if (!(group >> i & 1u)) continue;
                bool p = lanes[i].value != 0;
                if (p) acc |= 1ull << i;
                any |= p;
                all &= p;
            }
            for (int i = 0; i < 32; i++) {
                if (!(group >> i & 1u)) continue;
                lanes[i].result = op == OP_BALLOT ? acc : (op == OP_ANY ? any : all);
            }
            break;
        case OP_MATCH_ANY:
        case OP_MATCH_ALL:
            for (int i = 0; i < 32; i++) {
                if (!(group >> i & 1u)) continue;
                unsigned m = 0;
                for (int j = 0; j < 32; j++) {
                    if ((group >> j & 1u) && lanes[j].value == lanes[i].value) m |= 1u << j;
                }
                if (m != group) all = false;
                lanes[i].result = m;
            }
            if (op == OP_MATCH_ALL) {
                for (int i = 0; i < 32; i++) {
                    if (group >> i & 1u) lanes[i].result = all ? group : 0;
                }
            }
            break;
        default: {
            // reductions over 32-bit values
            unsigned u = (unsigned)F->value;
            int s = (int)u;
            for (int i = first + 1; i < 32; i++) {
                if (!(group >> i & 1u)) continue;
                unsigned v = (unsigned)lanes[i].value;
                switch (op) {
                    case OP_REDUCE_ADD:
                        u += v;
                        break;
                    case OP_REDUCE_MIN_I:
                        s = (int)v < s ? (int)v : s;
                        break;
                    case OP_REDUCE_MAX_I:
                        s = (int)v > s ? (int)v : s;
                        break;
                    case OP_REDUCE_MIN_U:
                        u = v < u ? v : u;
                        break;
                    case OP_REDUCE_MAX_U:
                        u = v > u ? v : u;
                        break;
                    case OP_REDUCE_AND:
                        u &= v;
                        break;
                    case OP_REDUCE_OR:
                        u |= v;
                        break;
                    case OP_REDUCE_XOR:
                        u ^= v;
                        break;
                    default:
                        break;
                }
            }
            if (op == OP_REDUCE_MIN_I || op == OP_REDUCE_MAX_I) u = (unsigned)s;
            for (int i = 0; i < 32; i++) {
                if (group >> i & 1u) lanes[i].result = u;
            }
        }
    }
    return true;
}

/// Complete every collective and __syncwarp of warp `wi` whose lanes have all arrived; report a
/// collective that can never complete. Returns the number completed, or -1 after a fault.
static int resolveWarp(Worker* w, int wi) {
    int base = 32 * wi;
    int nl = w->nthreads - base < 32 ? w->nthreads - base : 32;
    Lane* lanes = w->lanes + base;
    unsigned done = 0;  // lanes settled this round
    int completed = 0;
    char buf[256];
    for (int i = 0; i < nl; i++) {
        Lane* L = &lanes[i];
        if ((done >> i & 1u) || (L->wait != W_COLL && L->wait != W_SYNCWARP)) continue;
        bool isSync = L->wait == W_SYNCWARP;
        const char* what = isSync ? "__syncwarp" : kOpName[L->op];
        if (!(L->mask >> i & 1u)) {
            fault(w, L, "%s at %s:%d: the mask 0x%08x does not name the calling lane %d", what,
                  L->file, L->line, L->mask, i);
            return -1;
        }
        unsigned group = 0;
        for (int j = 0; j < 32; j++) {
            if (!(L->mask >> j & 1u)) continue;
            if (j >= nl) {
                fault(w, L,
                      "%s at %s:%d: the mask 0x%08x names lane %d, beyond the block's %d "
                      "threads (keep tail lanes in the warp)",
                      what, L->file, L->line, L->mask, j, w->nthreads);
                return -1;
            }
            Lane* J = &lanes[j];
            if (isSync && J->wait == W_DONE) continue;  // exited lanes count as arrived
            bool same = J->wait == L->wait && J->mask == L->mask && (isSync || J->op == L->op);
            if (!same) {
                fault(w, L, "%s(0x%08x) at %s:%d cannot complete: lane %d (thread %d) %s", what,
                      L->mask, L->file, L->line, j, base + j, waitText(J, buf, sizeof buf));
                return -1;
            }
            group |= 1u << j;
        }
        if (!isSync && !completeCollective(w, base, group)) return -1;
        if (isSync) w->warpGen[wi]++;
        for (int j = 0; j < 32; j++) {
            if (group >> j & 1u) lanes[j].wait = W_RUN;
        }
        done |= group;
        completed++;
    }
    return completed;
}

/// Run warp wi until every lane has exited or waits at __syncthreads. False after a fault.
static bool runWarp(Worker* w, int wi) {
    int base = 32 * wi;
    int nl = w->nthreads - base < 32 ? w->nthreads - base : 32;
    int order[32];
    for (;;) {
        for (int i = 0; i < nl; i++) order[i] = i;
        shuffle(w, order, nl);
        for (int k = 0; k < nl; k++) {
            Lane* L = &w->lanes[base + order[k]];
            if (L->wait != W_RUN) continue;
            w->cur = base + order[k];
            alc_emu_thread = &L->info;
            fiberSwitch(&w->self, &L->fiber, false);
            w->cur = -1;
        }
        int r = resolveWarp(w, wi);
        if (r < 0) return false;
        if (r == 0) return true;
    }
}

static void runBlockFibers(Worker* w, Launch* La, long b);

static void runBlock(Worker* w, Launch* La, long b) {
    runBlockFibers(w, La, b);
    if (w->aborted) {
        // the block's threads are abandoned where they stopped: order what they did before
        // the host's next use of the memory they touched
        for (int i = 0; i < w->nthreads; i++) {
            if (w->lanes[i].wait != W_DONE) hbAdopt(&w->lanes[i].fiber, &w->self);
        }
    }
    hbAcquire(&w->hbDone);
}

static void runBlockFibers(Worker* w, Launch* La, long b) {
    dim3 g = La->grid, bd = La->block;
    alc_emu_block.idx =
        uint3{(unsigned)(b % g.x), (unsigned)((b / g.x) % g.y), (unsigned)(b / ((long)g.x * g.y))};
    alc_emu_block.dim = uint3{bd.x, bd.y, bd.z};
    alc_emu_block.grid = uint3{g.x, g.y, g.z};
    // shared memory holds garbage at block start: 0xFF bytes, NaN as floating point
    memset(alc_emu_shmBegin, 0xFF, (size_t)(alc_emu_shmEnd - alc_emu_shmBegin));
    if (La->shmem) memset(w->dyn, 0xFF, La->shmem);
    int n = (int)(bd.x * bd.y * bd.z);
    w->nthreads = n;
    w->aborted = false;
    w->barrierGen = 0;
    memset(w->warpGen, 0, sizeof w->warpGen);
    w->rng = La->seed ^ (0xD1B54A32D192ED03ULL * (unsigned long long)(b + 1));
    for (int i = 0; i < n; i++) {
        Lane* L = &w->lanes[i];
        L->info.tid = uint3{(unsigned)(i % bd.x), (unsigned)((i / bd.x) % bd.y),
                            (unsigned)(i / (bd.x * bd.y))};
        L->info.lane = (unsigned)(i % 32);
        L->linear = i;
        L->wait = W_RUN;
        if (!fiberPrepare(&L->fiber, laneEntry)) {
            fault(w, nullptr, "cannot reserve a stack for thread %d", i);
            return;
        }
    }
    hbRelease(&w->hbStart);
    int nw = (n + 31) / 32;
    int order[32];
    char buf[256];
    for (;;) {
        for (int i = 0; i < nw; i++) order[i] = i;
        shuffle(w, order, nw);
        for (int k = 0; k < nw; k++) {
            if (!runWarp(w, order[k])) return;
        }
        // every thread has exited or waits at a barrier
        const Lane* first = nullptr;
        int waiting = 0;
        unsigned long long count = 0;
        for (int i = 0; i < n; i++) {
            const Lane* L = &w->lanes[i];
            if (L->wait == W_DONE) continue;
            waiting++;
            count += L->value;
            if (!first) {
                first = L;
            } else if (L->line != first->line || strcmp(L->file, first->file) != 0) {
                char other[256];
                snprintf(other, sizeof other, "thread %d %s", first->linear,
                         waitText(first, buf, sizeof buf));
                fault(w, L, "divergent __syncthreads: this thread waits at %s:%d, %s", L->file,
                      L->line, other);
                return;
            }
        }
        if (!waiting) break;
        w->barrierGen++;
        for (int i = 0; i < n; i++) {
            Lane* L = &w->lanes[i];
            if (L->wait == W_BARRIER) {
                L->result = count;
                L->wait = W_RUN;
            }
        }
    }
}

static Worker* workerForThisThread() {
    if (!tWorker) {
        tWorker = new Worker();
        fiberAdoptThread(&tWorker->self);
    }
    return tWorker;
}

static void runBlocks(Launch* La) {
    Worker* w = workerForThisThread();
    if (La->shmem > w->dynCap) {
        free(w->dyn);
        w->dyn = (unsigned char*)aligned_alloc(64, (La->shmem + 63) & ~(size_t)63);
        w->dynCap = La->shmem;
    }
    w->launch = La;
    for (;;) {
        long b = La->next.fetch_add(1);
        if (b >= La->nblocks || La->fault.load()) break;
        runBlock(w, La, b);
    }
    w->launch = nullptr;
    w->cur = -1;
    alc_emu_thread = nullptr;
}

// ---- the host threads that run blocks -----------------------------------------------------------
struct Pool {
    std::mutex m;
    std::condition_variable cv;
    std::condition_variable doneCv;
    std::vector<std::thread> threads;
    Launch* job = nullptr;
    unsigned long long gen = 0;
    int busy = 0;
};

static Pool* pool() {
    static Pool* p = new Pool();  // never destroyed: its threads may outlive static destructors
    return p;
}

static void poolThread(Pool* p) {
    unsigned long long seen = 0;
    for (;;) {
        Launch* job;
        {
            std::unique_lock<std::mutex> lk(p->m);
            p->cv.wait(lk, [&] { return p->gen != seen; });
            seen = p->gen;
            job = p->job;
        }
        runBlocks(job);
        {
            std::lock_guard<std::mutex> lk(p->m);
            if (--p->busy == 0) p->doneCv.notify_all();
        }
    }
}

cudaError_t launchImpl(const char* kernel, const char* file, int line, dim3 grid, dim3 block,
                       size_t shmem, cudaStream_t stream, KernelBody body, const void* closure) {
    (void)stream;
    unsigned long long nthreads = (unsigned long long)block.x * block.y * block.z;
    if (!grid.x || !grid.y || !grid.z || !nthreads || nthreads > 1024 || block.z > 64 ||
        grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u) {
        if (!gQuiet)
            fprintf(
                stderr,
                "alcove emulation: launch of %s at %s:%d: invalid configuration grid (%u,%u,%u) "
                "block (%u,%u,%u)\n",
                kernel, file, line, grid.x, grid.y, grid.z, block.x, block.y, block.z);
        setPendingError(cudaErrorInvalidConfiguration);
        return cudaErrorInvalidConfiguration;
    }
    if (shmem > 48 * 1024) {
        if (!gQuiet)
            fprintf(stderr,
                    "alcove emulation: launch of %s at %s:%d: %zu bytes of dynamic shared "
                    "memory exceed the 48 KiB a launch gets without an opt-in\n",
                    kernel, file, line, shmem);
        setPendingError(cudaErrorInvalidValue);
        return cudaErrorInvalidValue;
    }
    std::lock_guard<std::mutex> serial(gLaunchMutex);
    Launch La;
    La.kernel = kernel;
    La.file = file;
    La.line = line;
    La.grid = grid;
    La.block = block;
    La.shmem = shmem;
    La.body = body;
    La.closure = closure;
    La.seed = seedNow() * 0x2545F4914F6CDD1DULL + gLaunchCount.fetch_add(1);
    La.nblocks = (long)grid.x * grid.y * grid.z;
    int nt = threadsNow();
    int helpers = (int)(La.nblocks < nt ? La.nblocks : nt) - 1;
    if (helpers > 0) {
        Pool* p = pool();
        std::unique_lock<std::mutex> lk(p->m);
        while ((int)p->threads.size() < helpers) p->threads.emplace_back(poolThread, p);
        // every pool thread takes the job; those with no block left return at once
        p->job = &La;
        p->busy = (int)p->threads.size();
        p->gen++;
        p->cv.notify_all();
        lk.unlock();
        runBlocks(&La);
        lk.lock();
        p->doneCv.wait(lk, [&] { return p->busy == 0; });
        p->job = nullptr;
    } else {
        runBlocks(&La);
    }
    if (La.fault.load()) {
        setPendingError(cudaErrorLaunchFailure);
        return cudaErrorLaunchFailure;
    }
    return cudaSuccess;
}

}  // namespace alc_emu
