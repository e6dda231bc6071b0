// Sparse Cholesky solve of the Newton system through CHOLMOD (SuiteSparse), reference backend.
//
// The BSR matrix keeps both triangles; CHOLMOD reads a symmetric matrix from one triangle
// (stype > 0: the upper one, column-compressed). Column 3J+a of the upper triangle holds
// A(r, 3J+a) for r <= 3J+a, which by symmetry is row 3J+a of block row J restricted to columns
// r <= 3J+a: the blocks (J, C) with C < J in full and the lower triangle of the diagonal block.
// Walking a block row's blocks in ascending column order gives each scalar column its rows in
// ascending order, as CHOLMOD's `sorted` flag promises. CHOLMOD picks a simplicial LDL' or a
// supernodal LL' factorization from the fill it predicts; either way a matrix that is not
// positive definite is reported, never solved.
//
// Supernodes are amalgamated more eagerly than CHOLMOD's defaults (nrelax, zrelax below): a few
// explicit zeros buy larger dense blocks for the BLAS. On IPC's dolphin (25,197 unknowns,
// 3.2 GFlop a factorization, OpenBLAS on one thread) a factorization takes 0.39-0.42 s instead of
// 0.50-0.53 s (bench/results/amd-epyc-2c/ipc-examples.md, twenty-sixth session).
#include "ref/direct_ref.h"

#include <stdlib.h>
#include <string.h>

#if ALC_HAVE_CHOLMOD

#include <suitesparse/cholmod.h>

struct alcrDirect_ {
    int n;              // block rows
    cholmod_common cc;  // CHOLMOD's settings and workspace
    cholmod_sparse* S;  // upper triangle of A, scalar CSC
    cholmod_factor* L;  // its factor (symbolic analysis kept while the pattern stays)
    cholmod_dense* B;   // right-hand side
    cholmod_dense* X;   // solution (reused by cholmod_l_solve2)
    cholmod_dense* Y;   // solve workspaces
    cholmod_dense* E;
    int* prevRowptr;  // the BSR pattern the analysis was made for (n + 1)
    int* prevCol;     // (prevCap)
    int prevCap;
    int analyzed;
    int factored;  // L holds the numeric factor of the last alcr_direct_factor
};

int alcr_direct_available(void) {
    return 1;
}

alctStatus alcr_direct_make(alcrDirect** out, int n) {
    *out = NULL;
    alcrDirect* D = (alcrDirect*)calloc(1, sizeof *D);
    if (!D) return ALC_ERR_NOMEM;
    D->n = n;
    cholmod_l_start(&D->cc);
    D->cc.print = 0;  // failures are reported through cc.status, not printed
    // supernodal amalgamation (CHOLMOD's defaults: 4, 16, 48 and 0.8, 0.1, 0.05)
    D->cc.nrelax[0] = 16;
    D->cc.nrelax[1] = 48;
    D->cc.nrelax[2] = 128;
    D->cc.zrelax[0] = 0.9;
    D->cc.zrelax[1] = 0.3;
    D->cc.zrelax[2] = 0.1;
    D->prevRowptr = (int*)malloc(sizeof(int) * (size_t)(n + 1));
    D->B = cholmod_l_zeros((size_t)3 * (size_t)n, 1, CHOLMOD_REAL, &D->cc);
    if (!D->prevRowptr || !D->B) {
        alcr_direct_free(D);
        return ALC_ERR_NOMEM;
    }
    *out = D;
    return ALC_OK;
}

void alcr_direct_free(alcrDirect* D) {
    if (!D) return;
    cholmod_l_free_sparse(&D->S, &D->cc);
    cholmod_l_free_factor(&D->L, &D->cc);
    cholmod_l_free_dense(&D->B, &D->cc);
    cholmod_l_free_dense(&D->X, &D->cc);
    cholmod_l_free_dense(&D->Y, &D->cc);
    cholmod_l_free_dense(&D->E, &D->cc);
    cholmod_l_finish(&D->cc);
    free(D->prevRowptr);
    free(D->prevCol);
    free(D);
}

size_t alcr_direct_bytes(const alcrDirect* D) {
    if (!D) return 0;
    size_t bytes = sizeof *D + sizeof(int) * ((size_t)D->n + 1 + (size_t)D->prevCap);
    if (D->S) bytes += (sizeof(double) + sizeof(SuiteSparse_long)) * D->S->nzmax;
    if (D->L) {
        // a simplicial factor's nzmax, or a supernodal one's value count
        size_t nz = D->L->is_super ? D->L->xsize : D->L->nzmax;
        bytes += (sizeof(double) + sizeof(SuiteSparse_long)) * nz;
    }
    bytes += sizeof(double) * 4 * 3 * (size_t)D->n;
    return bytes;
}

// scalar entries of the upper triangle for the BSR pattern of A
static size_t upperCount(const alcrBsr* A) {
    size_t nz = 0;
    for (int J = 0; J < A->n; J++) {
        for (int k = A->rowptr[J]; k < A->rowptr[J + 1]; k++) {
            if (A->col[k] < J)
                nz += 9;
            else if (A->col[k] == J)
                nz += 6;
        }
    }
    return nz;
}

// does A have the pattern the last analysis was made for?
static int samePattern(const alcrDirect* D, const alcrBsr* A) {
    if (!D->analyzed) return 0;
    int nnzb = A->rowptr[A->n];
    if (memcmp(D->prevRowptr, A->rowptr, sizeof(int) * (size_t)(A->n + 1)) != 0) return 0;
    return memcmp(D->prevCol, A->col, sizeof(int) * (size_t)nnzb) == 0;
}

// (re)allocate S for the pattern of A and write its column pointers and row indices
static alctStatus buildPattern(alcrDirect* D, const alcrBsr* A) {
    size_t nz = upperCount(A);
    size_t N = (size_t)3 * (size_t)A->n;
    cholmod_l_free_sparse(&D->S, &D->cc);
    D->S = cholmod_l_allocate_sparse(N, N, nz, 1, 1, 1, CHOLMOD_REAL, &D->cc);
    if (!D->S) return ALC_ERR_NOMEM;
    SuiteSparse_long* cp = (SuiteSparse_long*)D->S->p;
    SuiteSparse_long* ri = (SuiteSparse_long*)D->S->i;
    SuiteSparse_long at = 0;
    for (int J = 0; J < A->n; J++) {
        for (int a = 0; a < 3; a++) {
            cp[3 * J + a] = at;
            for (int k = A->rowptr[J]; k < A->rowptr[J + 1]; k++) {
                int C = A->col[k];
                if (C > J) break;
                int bmax = C < J ? 2 : a;
                for (int b = 0; b <= bmax; b++) ri[at++] = 3 * C + b;
            }
        }
    }
    cp[N] = at;
    // remember the block pattern
    int nnzb = A->rowptr[A->n];
    if (nnzb > D->prevCap) {
        int* c = (int*)realloc(D->prevCol, sizeof(int) * (size_t)nnzb);
        if (!c) return ALC_ERR_NOMEM;
        D->prevCol = c;
        D->prevCap = nnzb;
    }
    memcpy(D->prevRowptr, A->rowptr, sizeof(int) * (size_t)(A->n + 1));
    memcpy(D->prevCol, A->col, sizeof(int) * (size_t)nnzb);
    return ALC_OK;
}

// copy A's values into S (same walk as buildPattern)
static void fillValues(alcrDirect* D, const alcrBsr* A) {
    double* v = (double*)D->S->x;
    SuiteSparse_long at = 0;
    for (int J = 0; J < A->n; J++) {
        for (int a = 0; a < 3; a++) {
            for (int k = A->rowptr[J]; k < A->rowptr[J + 1]; k++) {
                int C = A->col[k];
                if (C > J) break;
                const double* blk = A->val + 9 * (size_t)k;
                int bmax = C < J ? 2 : a;
                for (int b = 0; b <= bmax; b++) v[at++] = blk[3 * a + b];
            }
        }
    }
}

// the column of A that column j of the factor (in the fill-reducing order) eliminates
static long originalColumn(const alcrDirect* D, size_t j) {
    const SuiteSparse_long* perm = (const SuiteSparse_long*)D->L->Perm;
    return perm && j < D->L->n ? (long)perm[j] : (long)j;
}

alctStatus alcr_direct_factor(alcrDirect* D, const alcrBsr* A, long* info) {
    *info = 0;
    D->factored = 0;
    if (!samePattern(D, A)) {
        D->analyzed = 0;
        cholmod_l_free_factor(&D->L, &D->cc);
        alctStatus st = buildPattern(D, A);
        if (st != ALC_OK) return st;
        D->L = cholmod_l_analyze(D->S, &D->cc);
        if (!D->L) return ALC_ERR_NOMEM;
        D->analyzed = 1;
    }
    fillValues(D, A);
    cholmod_l_factorize(D->S, D->L, &D->cc);
    if (D->cc.status == CHOLMOD_OUT_OF_MEMORY) return ALC_ERR_NOMEM;
    if (D->cc.status == CHOLMOD_NOT_POSDEF || D->L->minor < D->L->n) {
        *info = originalColumn(D, D->L->minor) + 1;
        return ALC_OK;
    }
    if (!D->L->is_super && !D->L->is_ll) {
        // a simplicial LDL' factorization also succeeds on indefinite matrices with nonzero
        // pivots; Newton needs a descent direction, so a pivot d_jj <= 0 is a failure too
        const SuiteSparse_long* Lp = (const SuiteSparse_long*)D->L->p;
        const double* Lx = (const double*)D->L->x;
        for (size_t j = 0; j < D->L->n; j++) {
            if (!(Lx[Lp[j]] > 0)) {
                *info = originalColumn(D, j) + 1;
                return ALC_OK;
            }
        }
    }
    D->factored = 1;
    return ALC_OK;
}

alctStatus alcr_direct_solveFactored(alcrDirect* D, const double* b, double* x) {
    if (!D->factored) return ALC_ERR_INVALID_ARG;
    size_t N = D->L->n;
    memcpy(D->B->x, b, sizeof(double) * N);
    if (!cholmod_l_solve2(CHOLMOD_A, D->L, D->B, NULL, &D->X, NULL, &D->Y, &D->E, &D->cc)) {
        return ALC_ERR_NOMEM;
    }
    memcpy(x, D->X->x, sizeof(double) * N);
    return ALC_OK;
}

alctStatus alcr_direct_solve(alcrDirect* D, const alcrBsr* A, const double* b, double* x,
                             long* info) {
    alctStatus st = alcr_direct_factor(D, A, info);
    if (st != ALC_OK || *info != 0) return st;
    return alcr_direct_solveFactored(D, b, x);
}

#else  // no CHOLMOD in this build

struct alcrDirect_ {
    int unused;
};

int alcr_direct_available(void) {
    return 0;
}

alctStatus alcr_direct_make(alcrDirect** out, int n) {
    (void)n;
    *out = NULL;
    return ALC_ERR_UNSUPPORTED;
}

void alcr_direct_free(alcrDirect* D) {
    (void)D;
}

size_t alcr_direct_bytes(const alcrDirect* D) {
    (void)D;
    return 0;
}

alctStatus alcr_direct_factor(alcrDirect* D, const alcrBsr* A, long* info) {
    (void)D;
    (void)A;
    *info = 0;
    return ALC_ERR_UNSUPPORTED;
}

alctStatus alcr_direct_solveFactored(alcrDirect* D, const double* b, double* x) {
    (void)D;
    (void)b;
    (void)x;
    return ALC_ERR_UNSUPPORTED;
}

alctStatus alcr_direct_solve(alcrDirect* D, const alcrBsr* A, const double* b, double* x,
                             long* info) {
    (void)D;
    (void)A;
    (void)b;
    (void)x;
    *info = 0;
    return ALC_ERR_UNSUPPORTED;
}

#endif  // ALC_HAVE_CHOLMOD
