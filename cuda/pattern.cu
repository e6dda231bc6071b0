// The Newton matrix's block pattern on the device (cuda/pattern.h): keys row << 32 | column for
// the static blocks and the stencils' vertex pairs, a radix sort, first occurrences flagged and
// scanned into block positions, then the columns and row starts scattered from them.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "pattern.h"
#include "thrust_shim.h"

#include <cuda_runtime.h>

#include <string.h>

/// A key that sorts past every block (an invalid stencil vertex).
#define PATTERN_NONE 0xffffffffffffffffULL

/// Thread i: the keys of row i's static blocks.
static __global__ void pattern_staticKernel(int n, const int* srowptr, const int* scol,
                                            unsigned long long* keys) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    for (int k = srowptr[i]; k < srowptr[i + 1]; k++) {
        keys[k] = (unsigned long long)i << 32 | (unsigned)scol[k];
    }
}

/// Thread p: the 6 upper keys (min, max) of stencil p's vertex pairs.
static __global__ void pattern_stencilKernel(alcgStencils st, int nvert, unsigned long long* keys,
                                             int* bad) {
    int p = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (p >= st.n) return;
    const int* v = st.d_v + (size_t)p * st.strideInts;
    int q = 0;
    for (int a = 0; a < 4; a++) {
        for (int b = a + 1; b < 4; b++, q++) {
            int i = v[a] < v[b] ? v[a] : v[b], j = v[a] < v[b] ? v[b] : v[a];
            if (i < 0 || j >= nvert) {
                keys[6 * p + q] = PATTERN_NONE;
                atomicAdd(bad, 1);
            } else {
                keys[6 * p + q] = (unsigned long long)i << 32 | (unsigned)j;
            }
        }
    }
}

/// Thread u: 1 where sorted key u is the first of its value (and a block), else 0.
static __global__ void pattern_flagKernel(int nkey, const unsigned long long* keys, int* flag) {
    int u = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (u >= nkey) return;
    flag[u] = keys[u] != PATTERN_NONE && (u == 0 || keys[u] != keys[u - 1]);
}

/// Thread u: a first occurrence writes its column at its position, and the row start where its
/// row begins (every row holds its diagonal block, so every row begins somewhere).
static __global__ void pattern_scatterKernel(int nkey, const unsigned long long* keys,
                                             const int* pos, int nvert, int nnzb, int* rowptr,
                                             int* col) {
    int u = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (u == 0) rowptr[nvert] = nnzb;
    if (u >= nkey) return;
    unsigned long long k = keys[u];
    if (k == PATTERN_NONE || (u > 0 && k == keys[u - 1])) return;
    int row = (int)(k >> 32);
    col[pos[u]] = (int)(k & 0xffffffffULL);
    if (u == 0 || (int)(keys[u - 1] >> 32) != row) rowptr[row] = pos[u];
}

/// Device bytes of alcg_pattern_make's arrays for P's sizes.
static size_t patternBytes(const alcgPattern* P) {
    return (sizeof(unsigned long long) + sizeof(int)) * ((size_t)P->keyCap + 1) +
           (P->tempBytes ? P->tempBytes : 1);
}

/// The sizes of alcg_pattern_make: key capacity and scratch (the largest of the key sort, the
/// flag scan and the transpose of matCap blocks). P zeroed first.
static alctStatus planPattern(alcgPattern* P, int nvert, int nstatic, int stencilCap, int matCap,
                              alcgStream* s) {
    size_t sortB = 0, scanB = 0, trB = 0;
    alcgBsr probe;
    alctStatus st;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!P || nvert < 0 || nstatic < 0 || stencilCap < 0 || matCap < 0) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad argument");
    }
    memset(P, 0, sizeof *P);
    P->nvert = nvert;
    P->nstatic = nstatic;
    P->stencilCap = stencilCap;
    if ((long long)nstatic + 6LL * stencilCap > 0x7fffffffLL) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "pattern keys exceed 2^31 (%d stencils)", stencilCap);
    }
    P->keyCap = nstatic + 6 * stencilCap;
    st = alcg_sortPairsU64(NULL, NULL, P->keyCap, NULL, &sortB, s);
    if (st == ALC_OK) st = alcg_exclusiveScanI32(NULL, NULL, P->keyCap, NULL, NULL, &scanB, s);
    memset(&probe, 0, sizeof probe);
    probe.n = nvert;
    probe.cap = matCap;
    if (st == ALC_OK) st = alcg_bsr_transpose(&probe, NULL, &trB, s);
    if (st != ALC_OK) return st;
    P->tempBytes = sortB > scanB ? sortB : scanB;
    if (trB > P->tempBytes) P->tempBytes = trB;
    return ALC_OK;
}

extern "C" alctStatus alcg_pattern_need(int nvert, int nstatic, int stencilCap, int matCap,
                                        size_t* bytes, alcgStream* s) {
    alcgPattern probe;
    *bytes = 0;
    alctStatus st = planPattern(&probe, nvert, nstatic, stencilCap, matCap, s);
    if (st == ALC_OK) *bytes = patternBytes(&probe);
    return st;
}

extern "C" alctStatus alcg_pattern_make(alcgPattern* P, const alcgElastic* E, int stencilCap,
                                        int matCap, alcgStream* s) {
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!P || !E) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad argument");
    alctStatus st = planPattern(P, E->nvert, E->nstatic, stencilCap, matCap, s);
    if (st != ALC_OK) return st;
    st = alcg_malloc(s, (void**)&P->d_keys, sizeof(unsigned long long) * ((size_t)P->keyCap + 1));
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&P->d_pos, sizeof(int) * ((size_t)P->keyCap + 1));
    if (st == ALC_OK) st = alcg_malloc(s, &P->d_temp, P->tempBytes ? P->tempBytes : 1);
    if (st != ALC_OK) alcg_pattern_free(P);
    return st;
}

extern "C" void alcg_pattern_free(alcgPattern* P) {
    if (!P) return;
    alcg_free(P->d_keys);
    alcg_free(P->d_pos);
    alcg_free(P->d_temp);
    memset(P, 0, sizeof *P);
}

extern "C" alctStatus alcg_pattern_build(alcgPattern* P, alcgElastic* E, const alcgStencils* a,
                                         const alcgStencils* b, alcgBsr* A, int* needed,
                                         alcgStream* s) {
    ALCG_RANGE("alcg_pattern_build");
    int nkey = 0, nnzb = 0, bad = 0;
    int* d_bad = NULL;
    size_t tb = 0;
    alctStatus st;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!P || !E || !a || !b || !A || !P->d_keys) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    }
    if (A->n != E->nvert || P->nvert != E->nvert || P->nstatic != E->nstatic) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "scratch, matrix and mesh disagree");
    }
    if (a->n < 0 || b->n < 0 || a->n + b->n > P->stencilCap) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d + %d stencils, capacity %d", a->n, b->n,
                         P->stencilCap);
    }
    if (E->nvert == 0) {
        A->nnzb = 0;
        if (needed) *needed = 0;
        return alcg_elastic_bind(E, A, s);
    }
    d_bad = P->d_pos + P->keyCap;
    ALCG_CUDA_TRY(s, cudaMemsetAsync(d_bad, 0, sizeof(int), (cudaStream_t)s->stream));
    // the keys: static blocks, then 6 per stencil
    ALCG_LAUNCH(pattern_staticKernel, alcg_blocks(E->nvert, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                E->nvert, E->d_srowptr, E->d_scol, P->d_keys);
    ALCG_LAUNCH_CHECK(s);
    nkey = E->nstatic;
    {
        const alcgStencils* set[2] = {a, b};
        for (int k = 0; k < 2; k++) {
            if (set[k]->n == 0) continue;
            ALCG_LAUNCH(pattern_stencilKernel, alcg_blocks(set[k]->n, ALCG_BLOCK), ALCG_BLOCK, 0,
                        s->stream, *set[k], E->nvert, P->d_keys + nkey, d_bad);
            ALCG_LAUNCH_CHECK(s);
            nkey += 6 * set[k]->n;
        }
    }
    if (alcg_download(s, &bad, d_bad, sizeof(int)) != ALC_OK) return ALC_ERR_CUDA;
    if (bad > 0) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "%d stencil vertices outside [0, %d)", bad,
                         E->nvert);
    }
    tb = P->tempBytes;
    st = alcg_sortPairsU64(P->d_keys, NULL, nkey, P->d_temp, &tb, s);
    if (st != ALC_OK) return st;
    ALCG_LAUNCH(pattern_flagKernel, alcg_blocks(nkey, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, nkey,
                P->d_keys, P->d_pos);
    ALCG_LAUNCH_CHECK(s);
    tb = P->tempBytes;
    st = alcg_exclusiveScanI32(P->d_pos, P->d_pos, nkey, &nnzb, P->d_temp, &tb, s);
    if (st != ALC_OK) return st;
    if (needed) *needed = nnzb;
    if (nnzb > A->cap) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "the Hessian pattern needs %d blocks, capacity %d",
                         nnzb, A->cap);
    }
    ALCG_LAUNCH(pattern_scatterKernel, alcg_blocks(nkey, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                nkey, P->d_keys, P->d_pos, E->nvert, nnzb, A->d_rowptr, A->d_col);
    ALCG_LAUNCH_CHECK(s);
    A->nnzb = nnzb;
    tb = P->tempBytes;
    st = alcg_bsr_transpose(A, P->d_temp, &tb, s);
    if (st != ALC_OK) return st;
    return alcg_elastic_bind(E, A, s);
fail:
    return ALC_ERR_CUDA;
}
