// The upper-stored symmetric BSR matrix on the device (cuda/bsr.h): the upper triangle taken
// from a full-storage matrix (count, scan, copy), the transpose index of its strictly upper
// blocks (radix sort by column then row), y = A x one block row per thread through that index
// (a gather: no atomics, bitwise reproducible), and the block-Jacobi inverses.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "bsr.h"
#include "bsr_row.cuh"
#include "hd/alcm_vec.h"
#include "reduce.cuh"
#include "thrust_shim.h"

#include <cuda_runtime.h>

#include <string.h>

/// Per full row i: how many of its blocks lie in the upper triangle (j >= i).
static __global__ void bsr_countUpperKernel(int n, const int* d_rowptr, const int* d_col,
                                            int* d_cnt) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= n) return;
    int c = 0;
    for (int k = d_rowptr[i]; k < d_rowptr[i + 1]; k++) c += d_col[k] >= i;
    d_cnt[i] = c;
}

/// Per full row i: its upper blocks, in order, to the stored row (A.d_rowptr[i] already holds
/// its start); thread 0 also closes the row starts with the total.
static __global__ void bsr_copyUpperKernel(int n, const int* d_rowptr, const int* d_col,
                                           const double* d_val, alcgBsr A, int total) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i == 0) A.d_rowptr[n] = total;
    if (i >= n) return;
    int dst = A.d_rowptr[i];
    for (int k = d_rowptr[i]; k < d_rowptr[i + 1]; k++) {
        if (d_col[k] < i) continue;
        A.d_col[dst] = d_col[k];
        for (int e = 0; e < 9; e++) A.d_val[9 * dst + e] = d_val[9 * k + e];
        dst++;
    }
}

/// Per stored row i: the sort key of each block, (column << 32) | row for a strictly upper
/// block and (n << 32) | row for a diagonal one (sorted past every column), and its index.
static __global__ void bsr_transposeKeysKernel(alcgBsr A, unsigned long long* d_keys) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= A.n) return;
    for (int k = A.d_rowptr[i]; k < A.d_rowptr[i + 1]; k++) {
        int j = A.d_col[k];
        unsigned long long c = (unsigned long long)(j > i ? j : A.n);
        d_keys[k] = (c << 32) | (unsigned long long)(unsigned)i;
        A.d_tblk[k] = k;
    }
}

/// Per sorted position p in [0, nnzb]: the rows of the transpose index, and the start of every
/// column c in (column of p - 1, column of p] (each start written by exactly one thread).
static __global__ void bsr_transposeStartsKernel(alcgBsr A, const unsigned long long* d_keys) {
    int p = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (p > A.nnzb) return;
    int prev = p > 0 ? (int)(d_keys[p - 1] >> 32) : -1;
    int cur = p < A.nnzb ? (int)(d_keys[p] >> 32) : A.n;
    if (p < A.nnzb) A.d_trow[p] = (int)(unsigned)(d_keys[p] & 0xffffffffull);
    for (int c = prev + 1; c <= cur; c++) A.d_trowptr[c] = p;
}

/// y_i = (A x)_i, one thread per block row.
static __global__ void bsr_spmvKernel(alcgBsr A, const double* d_x, double* d_y) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= A.n) return;
    alcg_bsrRowMul(A, d_x, i, d_y + 3 * i);
}

/// Inverse of diagonal block i, with alcr_bsr_blockJacobi's fallback for a singular block.
static __global__ void bsr_blockJacobiKernel(alcgBsr A, double* d_inv) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= A.n) return;
    // the diagonal block leads its stored row (columns ascending, all >= i)
    int k = A.d_rowptr[i];
    alcM3 d =
        (k < A.d_rowptr[i + 1] && A.d_col[k] == i) ? alcm_m3_load(A.d_val + 9 * k) : alcm_m3_zero();
    alcM3 r;
    if (!alcm_m3_inverse(d, &r)) {
        r = alcm_m3_zero();
        for (int e = 0; e < 3; e++) {
            double de = d.m[4 * e];
            r.m[4 * e] = de != 0 ? 1.0 / de : 1.0;
        }
    }
    alcm_m3_store(d_inv + 9 * i, r);
}

extern "C" alctStatus alcg_bsr_make(alcgBsr* A, int n, int cap, alcgStream* s) {
    size_t rows = 0, blocks = 0;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!A || n < 0 || cap < 0) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad argument");
    memset(A, 0, sizeof *A);
    A->n = n;
    A->cap = cap;
    rows = sizeof(int) * ((size_t)n + 1);
    blocks = (size_t)cap;
    if (alcg_malloc(s, (void**)&A->d_rowptr, rows) != ALC_OK ||
        alcg_malloc(s, (void**)&A->d_trowptr, rows) != ALC_OK ||
        alcg_malloc(s, (void**)&A->d_col, sizeof(int) * blocks) != ALC_OK ||
        alcg_malloc(s, (void**)&A->d_val, sizeof(double) * 9 * blocks) != ALC_OK ||
        alcg_malloc(s, (void**)&A->d_tblk, sizeof(int) * blocks) != ALC_OK ||
        alcg_malloc(s, (void**)&A->d_trow, sizeof(int) * blocks) != ALC_OK) {
        alcg_bsr_free(A);
        return ALC_ERR_DEVICE_NOMEM;
    }
    // an empty matrix: every row start 0
    if (alcg_memset(s, A->d_rowptr, 0, rows) != ALC_OK ||
        alcg_memset(s, A->d_trowptr, 0, rows) != ALC_OK) {
        alcg_bsr_free(A);
        return ALC_ERR_CUDA;
    }
    return ALC_OK;
}

extern "C" void alcg_bsr_free(alcgBsr* A) {
    if (!A) return;
    alcg_free(A->d_rowptr);
    alcg_free(A->d_col);
    alcg_free(A->d_val);
    alcg_free(A->d_trowptr);
    alcg_free(A->d_tblk);
    alcg_free(A->d_trow);
    memset(A, 0, sizeof *A);
}

extern "C" size_t alcg_bsr_bytes(const alcgBsr* A) {
    if (!A) return 0;
    return sizeof(int) * 2 * ((size_t)A->n + 1) + sizeof(int) * 3 * (size_t)A->cap +
           sizeof(double) * 9 * (size_t)A->cap;
}

extern "C" size_t alcg_bsr_need(int n, int cap) {
    alcgBsr probe;
    memset(&probe, 0, sizeof probe);
    probe.n = n;
    probe.cap = cap;
    return alcg_bsr_bytes(&probe);
}

extern "C" alctStatus alcg_bsr_transpose(alcgBsr* A, void* d_temp, size_t* temp_bytes,
                                         alcgStream* s) {
    ALCG_RANGE("alcg_bsr_transpose");
    size_t end = 0, offKeys = 0, offSort = 0, sortBytes = 0;
    unsigned long long* d_keys = NULL;
    alctStatus st = ALC_OK;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!A || !temp_bytes) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    // scratch: the keys, then the sort's own
    st = alcg_sortPairsU64(NULL, NULL, A->cap, NULL, &sortBytes, s);
    if (st != ALC_OK) return st;
    offKeys = alcg_tempSlot(&end, sizeof(unsigned long long) * (size_t)A->cap);
    offSort = alcg_tempSlot(&end, sortBytes);
    if (!d_temp) {
        *temp_bytes = end;
        return ALC_OK;
    }
    if (*temp_bytes < end) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "scratch of %zu bytes, %zu needed", *temp_bytes, end);
    }
    if (A->nnzb < 0 || A->nnzb > A->cap) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "%d blocks, capacity %d", A->nnzb, A->cap);
    }
    d_keys = (unsigned long long*)((char*)d_temp + offKeys);
    // keys by (column, row), sorted with the block indices
    if (A->n > 0) {
        ALCG_LAUNCH(bsr_transposeKeysKernel, alcg_blocks(A->n, ALCG_BLOCK), ALCG_BLOCK, 0,
                    s->stream, *A, d_keys);
        ALCG_LAUNCH_CHECK(s);
    }
    sortBytes = *temp_bytes - offSort;
    st = alcg_sortPairsU64(d_keys, A->d_tblk, A->nnzb, (char*)d_temp + offSort, &sortBytes, s);
    if (st != ALC_OK) return st;
    // rows and column starts from the sorted keys
    ALCG_LAUNCH(bsr_transposeStartsKernel, alcg_blocks((long long)A->nnzb + 1, ALCG_BLOCK),
                ALCG_BLOCK, 0, s->stream, *A, d_keys);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_bsr_fromFull(alcgBsr* A, const int* d_rowptr, const int* d_col,
                                        const double* d_val, void* d_temp, size_t* temp_bytes,
                                        alcgStream* s) {
    ALCG_RANGE("alcg_bsr_fromFull");
    size_t end = 0, offCnt = 0, offScan = 0, offTr = 0, scanBytes = 0, trBytes = 0;
    int* d_cnt = NULL;
    int total = 0;
    alctStatus st = ALC_OK;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!A || !temp_bytes) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    // scratch: row counts, the scan's, the transpose's
    st = alcg_exclusiveScanI32(NULL, NULL, A->n, NULL, NULL, &scanBytes, s);
    if (st == ALC_OK) st = alcg_bsr_transpose(A, NULL, &trBytes, s);
    if (st != ALC_OK) return st;
    offCnt = alcg_tempSlot(&end, sizeof(int) * (size_t)A->n);
    offScan = alcg_tempSlot(&end, scanBytes);
    offTr = alcg_tempSlot(&end, trBytes);
    if (!d_temp) {
        *temp_bytes = end;
        return ALC_OK;
    }
    if (*temp_bytes < end) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "scratch of %zu bytes, %zu needed", *temp_bytes, end);
    }
    A->nnzb = 0;
    if (A->n == 0) return ALC_OK;
    if (!d_rowptr || !d_col || !d_val) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL array");
    d_cnt = (int*)((char*)d_temp + offCnt);
    // upper blocks per row, their row starts, the total
    ALCG_LAUNCH(bsr_countUpperKernel, alcg_blocks(A->n, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, A->n,
                d_rowptr, d_col, d_cnt);
    ALCG_LAUNCH_CHECK(s);
    scanBytes = end - offScan;
    st = alcg_exclusiveScanI32(d_cnt, A->d_rowptr, A->n, &total, (char*)d_temp + offScan,
                               &scanBytes, s);
    if (st != ALC_OK) return st;
    if (total > A->cap) {
        // the matrix stays empty, never half written
        alcg_memset(s, A->d_rowptr, 0, sizeof(int) * ((size_t)A->n + 1));
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d upper blocks, capacity %d", total, A->cap);
    }
    // copy them, then index the transpose
    ALCG_LAUNCH(bsr_copyUpperKernel, alcg_blocks(A->n, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, A->n,
                d_rowptr, d_col, d_val, *A, total);
    ALCG_LAUNCH_CHECK(s);
    A->nnzb = total;
    trBytes = end - offTr;
    return alcg_bsr_transpose(A, (char*)d_temp + offTr, &trBytes, s);
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_bsr_spmv(const alcgBsr* A, const double* d_x, double* d_y,
                                    alcgStream* s) {
    ALCG_RANGE("alcg_bsr_spmv");
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!A) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL matrix");
    if (A->n == 0) return ALC_OK;
    if (!d_x || !d_y || d_x == d_y) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL or aliased vectors");
    }
    ALCG_LAUNCH(bsr_spmvKernel, alcg_blocks(A->n, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, *A, d_x,
                d_y);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_bsr_blockJacobi(const alcgBsr* A, double* d_inv, alcgStream* s) {
    ALCG_RANGE("alcg_bsr_blockJacobi");
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!A) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL matrix");
    if (A->n == 0) return ALC_OK;
    if (!d_inv) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL result");
    ALCG_LAUNCH(bsr_blockJacobiKernel, alcg_blocks(A->n, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, *A,
                d_inv);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
