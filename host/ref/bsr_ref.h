// 3x3 block sparse rows (BSR) for the reference backend: full (both triangles) storage, rows
// sorted by column, pattern = mesh adjacency plus the active contact pairs.
#ifndef ALC_HOST_REF_BSR_REF_H_
#define ALC_HOST_REF_BSR_REF_H_

#include "alc/alc_types.h"

#include <stddef.h>

/// Loops over fewer items than this run serially: thread start-up and barriers cost more than
/// they save on small scenes (and oversubscribed machines).
#define ALCR_PAR_MIN 1024

typedef struct alcrBsr_ {
    int n;               ///< block rows (= vertices)
    int cap;             ///< block capacity
    int nnzb;            ///< blocks in use
    int* rowptr;         ///< row starts (n + 1)
    int* col;            ///< block columns (cap), ascending within a row
    double* val;         ///< block values (cap x 9), row-major 3x3
    int* diag;           ///< index of the diagonal block of each row (n)
    long long* scratch;  ///< pattern scratch (scratchCap)
    int scratchCap;
} alcrBsr;

/// Allocate a matrix of n block rows holding up to cap blocks; scratchCap bounds the number of
/// off-diagonal contact entries (12 per contact pair) a pattern rebuild may hold.
alctStatus alcr_bsr_make(alcrBsr* A, int n, int cap, int scratchCap);

/// Free the matrix. NULL-safe.
void alcr_bsr_free(alcrBsr* A);

/// Bytes held.
size_t alcr_bsr_bytes(const alcrBsr* A);

/// Rebuild the pattern: the static pattern (srowptr/scol, sorted rows including the diagonal)
/// merged with all off-diagonal couplings among the rows of each of npair stencils (pairVert,
/// npair x width: a contact pair's 4 vertices, or the up to 8 DOF nodes of one that touches
/// rigid bodies; negative entries are skipped). Values are zeroed. The scratch must hold
/// width (width - 1) npair keys.
/// @return ALC_ERR_CAPACITY when the blocks or the scratch do not fit (nothing is written
///         past the buffers; *needed tells the size required).
alctStatus alcr_bsr_setPattern(alcrBsr* A, const int* srowptr, const int* scol, int npair,
                               int width, const int* pairVert, int* needed);

/// Index of block (i, j), or -1 when it is not in the pattern.
int alcr_bsr_find(const alcrBsr* A, int i, int j);

/// y = A x (x, y: n x 3).
void alcr_bsr_spmv(const alcrBsr* A, const double* x, double* y);

/// Inverse of every diagonal block for the block-Jacobi preconditioner (n x 9). A singular
/// block falls back to the inverse of its diagonal (or 1).
void alcr_bsr_blockJacobi(const alcrBsr* A, double* inv);

#endif  // ALC_HOST_REF_BSR_REF_H_
