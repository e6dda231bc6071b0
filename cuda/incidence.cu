// Per-vertex incidence lists of 4-vertex stencils (cuda/incidence.h): keys, sort, then the
// list and the vertex starts by binary search over the sorted keys.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "incidence.h"
#include "thrust_shim.h"

#include <cuda_runtime.h>

#include <limits.h>

/// Thread q = 4 p + a: the key vertex << 32 | q; a vertex outside [0, nvert) counts in *d_bad
/// (when given) and sorts past every valid key.
static __global__ void incidence_keysKernel(const int* d_v, size_t stride, int n, int nvert,
                                            unsigned long long* d_keys, int* d_bad) {
    int q = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (q >= 4 * n) return;
    int v = d_v[(size_t)(q >> 2) * stride + (size_t)(q & 3)];
    if (v < 0 || v >= nvert) {
        if (d_bad) atomicAdd(d_bad, 1);
        v = nvert;
    }
    d_keys[q] = (unsigned long long)v << 32 | (unsigned long long)q;
}

/// Thread t: the list entry t (t < nkey) and the start of vertex t (t <= nvert), the first
/// sorted key at or above t << 32.
static __global__ void incidence_adrKernel(const unsigned long long* d_keys, int nkey, int nvert,
                                           int* d_adr, int* d_list) {
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (t < nkey) d_list[t] = (int)(d_keys[t] & 0xffffffffULL);
    if (t > nvert) return;
    unsigned long long key = (unsigned long long)t << 32;
    int lo = 0, hi = nkey;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (d_keys[mid] < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    d_adr[t] = lo;
}

extern "C" alctStatus alcg_incidence_build(const int* d_v, size_t strideInts, int n, int nvert,
                                           int* d_adr, int* d_list, unsigned long long* d_keys,
                                           int* d_bad, void* d_temp, size_t* temp_bytes,
                                           alcgStream* s) {
    ALCG_RANGE("alcg_incidence_build");
    int bad = 0, nkey;
    alctStatus st;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!temp_bytes) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL temp_bytes");
    if (n < 0 || n > INT_MAX / 4 || nvert < 0) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad size: n %d, nvert %d", n, nvert);
    }
    nkey = 4 * n;
    if (!d_temp) return alcg_sortPairsU64(NULL, NULL, nkey, NULL, temp_bytes, s);
    if (!d_adr || (n > 0 && (!d_v || !d_list || !d_keys || strideInts < 4))) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL array or stride %zu", strideInts);
    }
    // keys (vertex, 4 p + a), sorted: the incidences by vertex, then item and slot
    if (d_bad) {
        st = alcg_memset(s, d_bad, 0, sizeof(int));
        if (st != ALC_OK) return st;
    }
    if (n > 0) {
        ALCG_LAUNCH(incidence_keysKernel, alcg_blocks(nkey, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                    d_v, strideInts, n, nvert, d_keys, d_bad);
        ALCG_LAUNCH_CHECK(s);
        size_t tb = *temp_bytes;
        st = alcg_sortPairsU64(d_keys, NULL, nkey, d_temp, &tb, s);
        if (st != ALC_OK) return st;
    }
    // the list and the vertex starts
    {
        int nt = nkey > nvert + 1 ? nkey : nvert + 1;
        ALCG_LAUNCH(incidence_adrKernel, alcg_blocks(nt, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                    (const unsigned long long*)d_keys, nkey, nvert, d_adr, d_list);
        ALCG_LAUNCH_CHECK(s);
    }
    if (!d_bad) return ALC_OK;
    st = alcg_download(s, &bad, d_bad, sizeof(int));
    if (st != ALC_OK) return st;
    if (bad) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "%d stencil vertices outside [0, %d)", bad, nvert);
    }
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
