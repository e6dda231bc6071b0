// Reference BSR matrix: pattern merge, SpMV, block-Jacobi.
#include "ref/bsr_ref.h"

#include "hd/alcm_vec.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

alctStatus alcr_bsr_make(alcrBsr* A, int n, int cap, int scratchCap) {
    memset(A, 0, sizeof *A);
    A->n = n;
    A->cap = cap;
    A->scratchCap = scratchCap;
    A->rowptr = (int*)calloc((size_t)n + 1, sizeof(int));
    A->col = (int*)malloc(sizeof(int) * (size_t)(cap > 0 ? cap : 1));
    A->val = (double*)malloc(sizeof(double) * 9 * (size_t)(cap > 0 ? cap : 1));
    A->diag = (int*)malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    A->scratch = (long long*)malloc(sizeof(long long) * (size_t)(scratchCap > 0 ? scratchCap : 1));
    if (!A->rowptr || !A->col || !A->val || !A->diag || !A->scratch) {
        alcr_bsr_free(A);
        return ALC_ERR_NOMEM;
    }
    return ALC_OK;
}

void alcr_bsr_free(alcrBsr* A) {
    if (!A) return;
    free(A->rowptr);
    free(A->col);
    free(A->val);
    free(A->diag);
    free(A->scratch);
    memset(A, 0, sizeof *A);
}

size_t alcr_bsr_bytes(const alcrBsr* A) {
    return sizeof(int) * ((size_t)A->n * 2 + 1 + (size_t)A->cap) +
           sizeof(double) * 9 * (size_t)A->cap + sizeof(long long) * (size_t)A->scratchCap;
}

static int cmpLL(const void* a, const void* b) {
    long long x = *(const long long*)a, y = *(const long long*)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

alctStatus alcr_bsr_setPattern(alcrBsr* A, const int* srowptr, const int* scol, int npair,
                               int width, const int* pairVert, int* needed) {
    // off-diagonal couplings of the contact stencils as sorted unique keys i * n + j
    int ns = 0;
    long long n = A->n;
    long long most = (long long)width * (width - 1) * npair;
    if (most > A->scratchCap) {
        if (needed) *needed = srowptr[A->n] + (int)(most < INT_MAX ? most : INT_MAX);
        return ALC_ERR_CAPACITY;
    }
    for (int p = 0; p < npair; p++) {
        const int* v = pairVert + (size_t)width * p;
        for (int a = 0; a < width; a++) {
            if (v[a] < 0) continue;
            for (int b = 0; b < width; b++) {
                if (v[b] >= 0 && v[a] != v[b]) A->scratch[ns++] = (long long)v[a] * n + v[b];
            }
        }
    }
    qsort(A->scratch, (size_t)ns, sizeof(long long), cmpLL);
    int nu = 0;
    for (int i = 0; i < ns; i++) {
        if (nu == 0 || A->scratch[i] != A->scratch[nu - 1]) A->scratch[nu++] = A->scratch[i];
    }
    // merge row by row with the static pattern
    int k = 0, c = 0;
    for (int i = 0; i < A->n; i++) {
        A->rowptr[i] = k;
        int s = srowptr[i], se = srowptr[i + 1];
        while (s < se || (c < nu && A->scratch[c] / n == i)) {
            int js = s < se ? scol[s] : -1;
            int jc = (c < nu && A->scratch[c] / n == i) ? (int)(A->scratch[c] % n) : -1;
            int j;
            if (js >= 0 && (jc < 0 || js <= jc)) {
                j = js;
                s++;
                if (jc == js) c++;
            } else {
                j = jc;
                c++;
            }
            if (k >= A->cap) {
                if (needed) *needed = srowptr[A->n] + nu;
                return ALC_ERR_CAPACITY;
            }
            A->col[k] = j;
            if (j == i) A->diag[i] = k;
            k++;
        }
    }
    A->rowptr[A->n] = k;
    A->nnzb = k;
    memset(A->val, 0, sizeof(double) * 9 * (size_t)k);
    if (needed) *needed = k;
    return ALC_OK;
}

int alcr_bsr_find(const alcrBsr* A, int i, int j) {
    int lo = A->rowptr[i], hi = A->rowptr[i + 1] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        int c = A->col[mid];
        if (c == j) return mid;
        if (c < j)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/// Block row i of y = A x.
static inline void spmvRow(const alcrBsr* A, const double* x, double* y, int i) {
    double s0 = 0, s1 = 0, s2 = 0;
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
        const double* b = A->val + 9 * k;
        const double* xj = x + 3 * A->col[k];
        s0 += b[0] * xj[0] + b[1] * xj[1] + b[2] * xj[2];
        s1 += b[3] * xj[0] + b[4] * xj[1] + b[5] * xj[2];
        s2 += b[6] * xj[0] + b[7] * xj[1] + b[8] * xj[2];
    }
    y[3 * i] = s0;
    y[3 * i + 1] = s1;
    y[3 * i + 2] = s2;
}

void alcr_bsr_spmv(const alcrBsr* A, const double* x, double* y) {
    if (A->n > ALCR_PAR_MIN) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < A->n; i++) spmvRow(A, x, y, i);
    } else {
        // small matrices without a parallel region: PCG calls this once per iteration
        for (int i = 0; i < A->n; i++) spmvRow(A, x, y, i);
    }
}

void alcr_bsr_blockJacobi(const alcrBsr* A, double* inv) {
#pragma omp parallel for schedule(static) if (A->n > ALCR_PAR_MIN)
    for (int i = 0; i < A->n; i++) {
        alcM3 d = alcm_m3_load(A->val + 9 * A->diag[i]);
        alcM3 r;
        if (!alcm_m3_inverse(d, &r)) {
            r = alcm_m3_zero();
            for (int k = 0; k < 3; k++) {
                double dk = d.m[4 * k];
                r.m[4 * k] = dk != 0 ? 1.0 / dk : 1.0;
            }
        }
        alcm_m3_store(inv + 9 * i, r);
    }
}
