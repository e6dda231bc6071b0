// Self-tests of the SIMT emulation (emu/): kernels that are right give the right answer under
// every seed, and each planted bug is caught: a missing __syncthreads, a missing __syncwarp, a
// shuffle whose tail lanes returned, a divergent barrier; under `make asan` an out-of-bounds
// write, under `make tsan` a shared-memory race. Built only into the emulated GPU test runner.
#include "alcg_kernel.cuh"

#include <cuda_runtime.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include "../test_macros.h"
}

namespace {

// ---- kernels that are right -------------------------------------------------------------------
__device__ double warpSum(double v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(ALCG_FULL_MASK, v, off);
    return v;
}

// block sum: warp shuffles, one slot per warp in shared memory, a barrier, the first warp sums
__global__ void sumKernel(const double* x, int n, double* out) {
    __shared__ double part[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < n ? x[i] : 0.0;  // tail lanes stay in the warp with a neutral value
    v = warpSum(v);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) part[warp] = v;
    __syncthreads();
    int nw = (blockDim.x + 31) >> 5;
    if (warp == 0) {
        v = lane < nw ? part[lane] : 0.0;
        v = warpSum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

// votes, matches and reductions of one warp
__global__ void voteKernel(const int* key, unsigned* out) {
    int lane = threadIdx.x;
    int k = key[lane];
    unsigned ballot = __ballot_sync(ALCG_FULL_MASK, k > 2);
    int any = __any_sync(ALCG_FULL_MASK, k == 7);
    int all = __all_sync(ALCG_FULL_MASK, k >= 0);
    unsigned match = __match_any_sync(ALCG_FULL_MASK, k);
    unsigned sum = __reduce_add_sync(ALCG_FULL_MASK, (unsigned)k);
    int mx = __reduce_max_sync(ALCG_FULL_MASK, k);
    int up = __shfl_up_sync(ALCG_FULL_MASK, k, 3);
    int x = __shfl_xor_sync(ALCG_FULL_MASK, k, 5);
    int half = __shfl_sync(ALCG_FULL_MASK, k, 1, 16);  // lane 1 of each half warp
    out[8 * lane + 0] = ballot;
    out[8 * lane + 1] = (unsigned)any;
    out[8 * lane + 2] = (unsigned)all;
    out[8 * lane + 3] = match;
    out[8 * lane + 4] = sum;
    out[8 * lane + 5] = (unsigned)mx;
    out[8 * lane + 6] = (unsigned)up + 1000u * (unsigned)x;
    out[8 * lane + 7] = (unsigned)half;
}

// dynamic shared memory: one copy per block, garbage (0xFF) until written
__global__ void dynKernel(unsigned* out) {
    unsigned* s = alcg_dynamicShared<unsigned>();
    unsigned before = s[threadIdx.x];
    __syncthreads();
    s[threadIdx.x] = blockIdx.x * 1000u + threadIdx.x;
    __syncthreads();
    unsigned other = s[(threadIdx.x + 1) % blockDim.x];
    out[blockIdx.x * blockDim.x + threadIdx.x] = other;
    if (threadIdx.x == 0) out[gridDim.x * blockDim.x + blockIdx.x] = before;
}

// ---- planted bugs -------------------------------------------------------------------------------
// thread 0 sums the block's slots without waiting for the other warps to write them
__global__ void missingBarrierKernel(double* out) {
    __shared__ double s[256];
    s[threadIdx.x] = 1.0;
    // __syncthreads() missing here
    if (threadIdx.x == 0) {
        double t = 0;
        for (int i = 0; i < 256; i++) t += s[i];
        out[blockIdx.x] = t;
    }
}

// each lane reads its neighbour's slot; `sync` decides whether the warp synchronizes between
__global__ void warpRaceKernel(int* out, int sync) {
    __shared__ int s[32];
    int lane = threadIdx.x;
    s[lane] = lane * 3;
    if (sync) __syncwarp();
    out[blockIdx.x * 32 + lane] = s[(lane + 1) & 31];
}

// tail lanes return before a full-mask shuffle
__global__ void divergedShuffleKernel(const double* x, int n, double* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = warpSum(x[i]);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

// a barrier inside a branch only some threads take
__global__ void divergentBarrierKernel(int* out) {
    if (threadIdx.x < 64) {
        __syncthreads();
        out[threadIdx.x] = 1;
    } else {
        __syncthreads();
        out[threadIdx.x] = 2;
    }
}

// writes one element past the end of its buffer
__global__ void outOfBoundsKernel(int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = i;  // <= : the planted bug
}

#if defined(__SANITIZE_THREAD__)
// two threads of a block write the same shared slot, another reads it, no barrier
__global__ void sharedRaceKernel(int* out) {
    __shared__ int s;
    if (threadIdx.x == 0) s = 1;
    if (threadIdx.x == 40) s = 2;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s;
}
#endif

// ---- helpers -----------------------------------------------------------------------------------
struct Dev {
    alcgStream st;
    Dev() {
        memset(&st, 0, sizeof st);
        alcg_stream_make(&st);
    }
    ~Dev() { alcg_stream_free(&st); }
};

double runSum(Dev& d, int n, int block, unsigned long long seed) {
    alc_emu::setSeed(seed);
    double *x = nullptr, *out = nullptr, r = -1;
    double* h = (double*)malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) h[i] = (double)(i % 97) - 40.0;
    alcg_malloc(&d.st, (void**)&x, sizeof(double) * (size_t)n);
    alcg_malloc(&d.st, (void**)&out, sizeof(double));
    alcg_upload(&d.st, x, h, sizeof(double) * (size_t)n);
    alcg_memset(&d.st, out, 0, sizeof(double));
    ALCG_LAUNCH(sumKernel, alcg_blocks(n, block), block, 0, d.st.stream, x, n, out);
    ALCG_LAUNCH_CHECK(&d.st);
    alcg_download(&d.st, &r, out, sizeof(double));
fail:
    alcg_free(x);
    alcg_free(out);
    free(h);
    return r;
}

double expectedSum(int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += (double)(i % 97) - 40.0;
    return s;
}

/// Launch `what` in a child process; return its exit status and whether stderr contained `needle`.
template <typename F>
int inChild(F what, const char* needle, int* found) {
    int pipefd[2];
    if (pipe(pipefd) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[0]);
        dup2(pipefd[1], 2);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 1);  // the child's own test lines are not ours
        what();
        _exit(0);
    }
    close(pipefd[1]);
    char buf[65536];
    size_t len = 0;
    ssize_t r;
    while ((r = read(pipefd[0], buf + len, sizeof buf - 1 - len)) > 0 ||
           (r < 0 && errno == EINTR)) {
        if (r > 0) len += (size_t)r;
        if (len >= sizeof buf - 1) break;
    }
    buf[len] = 0;
    close(pipefd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    *found = strstr(buf, needle) != nullptr;
    return status;
}

/// In a child: run this test binary again with only emu_planted, planting `what`.
__attribute__((unused)) void execPlanted(const char* what) {
    setenv("ALC_EMU_PLANT", what, 1);
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) _exit(3);
    self[n] = 0;
    char* args[] = {self, (char*)"emu_planted", nullptr};
    execv(self, args);
    _exit(4);
}

}  // namespace

#if defined(__SANITIZE_THREAD__)
static int tsanCatches(const char* what);
#endif

ALC_TEST(emu_correctKernelsUnderEverySeed) {
    Dev d;
    static const int sizes[] = {1, 31, 32, 33, 1000, 4099};
    static const int blocks[] = {32, 96, 256, 1024};
    for (unsigned long long seed = 1; seed <= 4; seed++) {
        for (int n : sizes) {
            for (int b : blocks) {
                double r = runSum(d, n, b, seed);
                ENSURE_MSG(r == expectedSum(n), "n %d block %d seed %llu: %g != %g", n, b, seed, r,
                           expectedSum(n));
            }
        }
    }
    alc_emu::setSeed(1);
    return ALC_TEST_PASS;
}

ALC_TEST(emu_warpCollectives) {
    Dev d;
    int h[32];
    for (int i = 0; i < 32; i++) h[i] = (i * 7) % 5;  // values 0..4
    int* key = nullptr;
    unsigned* out = nullptr;
    unsigned r[32 * 8];
    alcg_malloc(&d.st, (void**)&key, sizeof h);
    alcg_malloc(&d.st, (void**)&out, sizeof r);
    alcg_upload(&d.st, key, h, sizeof h);
    ALCG_LAUNCH(voteKernel, 1, 32, 0, d.st.stream, key, out);
    ALCG_LAUNCH_CHECK(&d.st);
    alcg_download(&d.st, r, out, sizeof r);
    {
        unsigned ballot = 0, sum = 0;
        int mx = 0;
        for (int i = 0; i < 32; i++) {
            if (h[i] > 2) ballot |= 1u << i;
            sum += (unsigned)h[i];
            mx = h[i] > mx ? h[i] : mx;
        }
        for (int i = 0; i < 32; i++) {
            unsigned match = 0;
            for (int j = 0; j < 32; j++)
                if (h[j] == h[i]) match |= 1u << j;
            ENSURE(r[8 * i + 0] == ballot);
            ENSURE(r[8 * i + 1] == 0);  // no key equals 7
            ENSURE(r[8 * i + 2] == 1);
            ENSURE(r[8 * i + 3] == match);
            ENSURE(r[8 * i + 4] == sum);
            ENSURE(r[8 * i + 5] == (unsigned)mx);
            unsigned up = (unsigned)(i >= 3 ? h[i - 3] : h[i]);
            ENSURE(r[8 * i + 6] == up + 1000u * (unsigned)h[i ^ 5]);
            ENSURE(r[8 * i + 7] == (unsigned)h[(i & ~15) + 1]);
        }
    }
    alcg_free(key);
    alcg_free(out);
    return ALC_TEST_PASS;
fail:
    alcg_free(key);
    alcg_free(out);
    fprintf(stderr, "  %s\n", d.st.err);
    return ALC_TEST_FAIL;
}

ALC_TEST(emu_sharedMemoryPerBlockAndPoisoned) {
    Dev d;
    const int nb = 5, bs = 64;
    unsigned* out = nullptr;
    unsigned r[nb * bs + nb];
    alcg_malloc(&d.st, (void**)&out, sizeof r);
    ALCG_LAUNCH(dynKernel, nb, bs, bs * sizeof(unsigned), d.st.stream, out);
    ALCG_LAUNCH_CHECK(&d.st);
    alcg_download(&d.st, r, out, sizeof r);
    for (int b = 0; b < nb; b++) {
        for (int t = 0; t < bs; t++) ENSURE(r[b * bs + t] == b * 1000u + (unsigned)((t + 1) % bs));
        ENSURE(r[nb * bs + b] == 0xFFFFFFFFu);  // poisoned at block start
    }
    alcg_free(out);
    return ALC_TEST_PASS;
fail:
    alcg_free(out);
    return ALC_TEST_FAIL;
}

ALC_TEST(emu_catchesMissingSyncthreads) {
#if defined(__SANITIZE_THREAD__)
    return tsanCatches("syncthreads");
#endif
    Dev d;
    const int nb = 16;
    double* out = nullptr;
    double r[nb];
    alcg_malloc(&d.st, (void**)&out, sizeof r);
    ALCG_LAUNCH(missingBarrierKernel, nb, 256, 0, d.st.stream, out);
    ALCG_LAUNCH_CHECK(&d.st);
    alcg_download(&d.st, r, out, sizeof r);
    {
        int wrong = 0;
        for (int b = 0; b < nb; b++) wrong += !(r[b] == 256.0);
        // thread 0's warp runs before most others: it reads poisoned (NaN) slots
        ENSURE_MSG(wrong > nb / 2, "only %d of %d blocks were wrong", wrong, nb);
    }
    alcg_free(out);
    return ALC_TEST_PASS;
fail:
    alcg_free(out);
    return ALC_TEST_FAIL;
}

ALC_TEST(emu_catchesMissingSyncwarp) {
#if defined(__SANITIZE_THREAD__)
    return tsanCatches("syncwarp");
#endif
    Dev d;
    const int nb = 32;
    int* out = nullptr;
    int r[nb * 32];
    int wrongWithout = 0, wrongWith = 0;
    alcg_malloc(&d.st, (void**)&out, sizeof r);
    for (int sync = 0; sync < 2; sync++) {
        ALCG_LAUNCH(warpRaceKernel, nb, 32, 0, d.st.stream, out, sync);
        ALCG_LAUNCH_CHECK(&d.st);
        alcg_download(&d.st, r, out, sizeof r);
        for (int i = 0; i < nb * 32; i++) {
            bool ok = r[i] == ((i % 32 + 1) & 31) * 3;
            (sync ? wrongWith : wrongWithout) += !ok;
        }
    }
    ENSURE_MSG(wrongWithout > 0, "a missing __syncwarp went unnoticed");
    ENSURE(wrongWith == 0);
    alcg_free(out);
    return ALC_TEST_PASS;
fail:
    alcg_free(out);
    return ALC_TEST_FAIL;
}

ALC_TEST(emu_reportsDivergedShuffle) {
    Dev d;
    const int n = 40;  // the second warp has 8 live lanes; 24 returned early
    double *x = nullptr, *out = nullptr;
    alcg_malloc(&d.st, (void**)&x, sizeof(double) * n);
    alcg_malloc(&d.st, (void**)&out, sizeof(double));
    alcg_memset(&d.st, x, 0, sizeof(double) * n);
    alc_emu::setQuiet(true);
    alc_emu::clearFault();
    ALCG_LAUNCH(divergedShuffleKernel, 1, 64, 0, d.st.stream, x, n, out);
    cudaError_t e = cudaGetLastError();
    alc_emu::setQuiet(false);
    alct_note("reported: %s", alc_emu::lastFault());
    ENSURE(e == cudaErrorLaunchFailure);
    ENSURE(strstr(alc_emu::lastFault(), "divergedShuffleKernel") != nullptr);
    ENSURE(strstr(alc_emu::lastFault(), "__shfl_down_sync") != nullptr);
    ENSURE(strstr(alc_emu::lastFault(), "has exited") != nullptr);
    ENSURE(strstr(alc_emu::lastFault(), "block (0,0,0), thread (") != nullptr);
    // the error is reported once: the next launch starts clean
    ENSURE(cudaGetLastError() == cudaSuccess);
    alcg_free(x);
    alcg_free(out);
    return ALC_TEST_PASS;
}

ALC_TEST(emu_reportsDivergentBarrier) {
    Dev d;
    int* out = nullptr;
    alcg_malloc(&d.st, (void**)&out, sizeof(int) * 128);
    alc_emu::setQuiet(true);
    alc_emu::clearFault();
    ALCG_LAUNCH(divergentBarrierKernel, 1, 128, 0, d.st.stream, out);
    cudaError_t e = cudaGetLastError();
    alc_emu::setQuiet(false);
    alct_note("reported: %s", alc_emu::lastFault());
    ENSURE(e == cudaErrorLaunchFailure);
    ENSURE(strstr(alc_emu::lastFault(), "divergent __syncthreads") != nullptr);
    alcg_free(out);
    return ALC_TEST_PASS;
}

ALC_TEST(emu_launchConfigurationChecked) {
    Dev d;
    int* out = nullptr;
    alcg_malloc(&d.st, (void**)&out, sizeof(int) * 4);
    alc_emu::setQuiet(true);
    // 2048 threads per block is more than a device runs
    ALCG_LAUNCH(outOfBoundsKernel, 1, 2048, 0, d.st.stream, out, 0);
    ENSURE(cudaGetLastError() == cudaErrorInvalidConfiguration);
    // a copy to memory that is not a device allocation
    int h[4] = {0};
    ENSURE(cudaMemcpy(h, h + 1, sizeof(int), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    ENSURE(cudaGetLastError() == cudaErrorInvalidValue);
    alc_emu::setQuiet(false);
    alcg_free(out);
    return ALC_TEST_PASS;
}

ALC_TEST(emu_catchesOutOfBoundsUnderAsan) {
#if !defined(__SANITIZE_ADDRESS__)
    SKIP_TEST("AddressSanitizer build only (make asan)");
#else
    int found = 0;
    int status = inChild(
        [] {
            Dev d;
            int* out = nullptr;
            alcg_malloc(&d.st, (void**)&out, sizeof(int) * 100);
            ALCG_LAUNCH(outOfBoundsKernel, 1, 128, 0, d.st.stream, out, 100);
        },
        "heap-buffer-overflow", &found);
    ENSURE_MSG(found && status != 0, "AddressSanitizer did not report the write (status %d)",
               status);
    alct_note("AddressSanitizer reported the planted heap-buffer-overflow in the kernel");
    return ALC_TEST_PASS;
#endif
}

#if defined(__SANITIZE_THREAD__)
// a planted bug run in a fresh process by the tests below (a forked copy of a process that
// already runs the emulation's host threads may hang under TSan): ALC_EMU_PLANT names it
ALC_TEST(emu_planted) {
    const char* what = getenv("ALC_EMU_PLANT");
    if (!what) SKIP_TEST("runs in a child of the emu_catches* tests");
    Dev d;
    int* out = nullptr;
    alcg_malloc(&d.st, (void**)&out, sizeof(int) * 32 * 32);
    if (!strcmp(what, "race")) {
        ALCG_LAUNCH(sharedRaceKernel, 1, 64, 0, d.st.stream, out);
    } else if (!strcmp(what, "syncthreads")) {
        ALCG_LAUNCH(missingBarrierKernel, 4, 256, 0, d.st.stream, (double*)out);
    } else if (!strcmp(what, "syncwarp")) {
        ALCG_LAUNCH(warpRaceKernel, 4, 32, 0, d.st.stream, out, 0);
    } else {
        ENSURE(runSum(d, 4099, 256, 1) == expectedSum(4099));
    }
    cudaGetLastError();
    alcg_free(out);
    return ALC_TEST_PASS;
}

/// Under TSan: run planted bug `what` in a child and expect a data-race report.
static int tsanCatches(const char* what) {
    static const char* planted;
    planted = what;
    int found = 0;
    int status =
        inChild([] { execPlanted(planted); }, "WARNING: ThreadSanitizer: data race", &found);
    ENSURE_MSG(found, "ThreadSanitizer did not report planted bug '%s' (status %d)", what, status);
    alct_note("ThreadSanitizer reported the planted bug '%s' as a data race", what);
    return ALC_TEST_PASS;
}
#endif

ALC_TEST(emu_catchesSharedRaceUnderTsan) {
#if !defined(__SANITIZE_THREAD__)
    SKIP_TEST("ThreadSanitizer build only (make tsan)");
#else
    if (tsanCatches("race") != ALC_TEST_PASS) return ALC_TEST_FAIL;
    // a correct kernel (block reduction with barriers and shuffles) is not reported
    int foundClean = 0;
    int status = inChild([] { execPlanted("none"); }, "ThreadSanitizer", &foundClean);
    ENSURE_MSG(!foundClean && status == 0, "ThreadSanitizer reported a correct kernel (status %d)",
               status);
    return ALC_TEST_PASS;
#endif
}
