// Speed of the SIMT emulation on this machine (make emu-bench): emulated threads per second for
// a plain kernel, a kernel with barriers, and one with warp shuffles, on one and on two host
// threads. It measures the harness, never a GPU: numbers go to
// bench/results/<machine>/emulation.md.
#include "alcg_kernel.cuh"

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static __global__ void plainKernel(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0 * x[i] + 1.0;
}

static __global__ void barrierKernel(const double* x, double* y, int n) {
    __shared__ double s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0;
    __syncthreads();
    double v = s[(threadIdx.x + 1) % blockDim.x];
    if (i < n) y[i] = v;
}

static __global__ void shuffleKernel(const double* x, double* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < n ? x[i] : 0.0;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(ALCG_FULL_MASK, v, off);
    if (i < n) y[i] = v;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 21;
    alcgStream st;
    memset(&st, 0, sizeof st);
    alcg_stream_make(&st);
    double *x = NULL, *y = NULL;
    alcg_malloc(&st, (void**)&x, sizeof(double) * (size_t)n);
    alcg_malloc(&st, (void**)&y, sizeof(double) * (size_t)n);
    alcg_memset(&st, x, 0, sizeof(double) * (size_t)n);
    printf("| kernel | host threads | emulated threads | seconds | M threads/s |\n");
    printf("|---|---|---|---|---|\n");
    const char* names[3] = {"plain (no sync)", "one __syncthreads", "5-step warp shuffle sum"};
    for (int ht = 1; ht <= 2; ht++) {
        alc_emu::setThreads(ht);
        for (int k = 0; k < 3; k++) {
            double t0 = now();
            if (k == 0) ALCG_LAUNCH(plainKernel, alcg_blocks(n, 256), 256, 0, st.stream, x, y, n);
            if (k == 1) ALCG_LAUNCH(barrierKernel, alcg_blocks(n, 256), 256, 0, st.stream, x, y, n);
            if (k == 2) ALCG_LAUNCH(shuffleKernel, alcg_blocks(n, 256), 256, 0, st.stream, x, y, n);
            ALCG_LAUNCH_CHECK(&st);
            double dt = now() - t0;
            printf("| %s | %d | %d | %.3f | %.1f |\n", names[k], ht, n, dt, n / dt * 1e-6);
        }
    }
    alcg_free(x);
    alcg_free(y);
    alcg_stream_free(&st);
    return 0;
fail:
    fprintf(stderr, "%s\n", st.err);
    return 1;
}
