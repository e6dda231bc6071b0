// The Newton step's Hessian on the device: a symmetric 3x3 block sparse row (BSR) matrix that
// stores its upper triangle only, diagonal blocks included (AL paper §5.1: the Hessian is
// symmetric), rows sorted by column, with a transpose index of the strictly upper blocks so
// that y = A x gathers the lower triangle without atomics. Twin of host/ref/bsr_ref.h (which
// stores both triangles). Clean C.
#ifndef ALC_CUDA_BSR_H_
#define ALC_CUDA_BSR_H_

#include "alcg_stream.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A symmetric block matrix from its upper triangle, with the transpose index of its strictly
/// upper blocks (column j of the upper triangle, rows ascending: row j of the lower triangle).
typedef struct alcgBsr_ {
    int n;           ///< block rows (= vertices)
    int cap;         ///< block capacity
    int nnzb;        ///< stored blocks (j >= i)
    int* d_rowptr;   ///< row starts (n + 1) [device]
    int* d_col;      ///< block columns (cap), ascending within a row, each >= its row [device]
    double* d_val;   ///< block values (cap x 9), row-major 3x3 [device]
    int* d_trowptr;  ///< starts of the transpose index per column (n + 1) [device]
    int* d_tblk;     ///< stored index k of block (i, j), i < j, by column j then row i (cap)
                     ///< [device]
    int* d_trow;     ///< the row i of each d_tblk entry (cap) [device]
} alcgBsr;

/// Allocate a matrix of n block rows holding up to cap blocks (empty: nnzb 0). Allocates
/// device memory: call it at make time, never inside a step (STYLE.md §6.2).
/// @param[out] A    the matrix; zeroed on failure
/// @param[in]  n    block rows, >= 0
/// @param[in]  cap  block capacity, >= 0
/// @param[in]  s    stream; its message receives a failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG, or ALC_ERR_DEVICE_NOMEM, with the message on s.
alctStatus alcg_bsr_make(alcgBsr* A, int n, int cap, alcgStream* s);

/// Free the device arrays of A and zero it. NULL-safe.
void alcg_bsr_free(alcgBsr* A);

/// Device bytes held by A.
size_t alcg_bsr_bytes(const alcgBsr* A);

/// Device bytes alcg_bsr_make(A, n, cap) will allocate (unrounded).
size_t alcg_bsr_need(int n, int cap);

/// Fill A from a full-storage matrix (both triangles, rows sorted by column: the layout of
/// alcrBsr) already on the device: keeps the blocks with j >= i in their order, then builds
/// the transpose index (alcg_bsr_transpose). Two-phase: scratch for a matrix of A->n rows and
/// A->cap blocks serves every call on A. Synchronizes s (the stored count is read back).
/// @param[in,out] A           matrix from alcg_bsr_make with A->n block rows
/// @param[in]     d_rowptr    full row starts (A->n + 1) [device]
/// @param[in]     d_col       full block columns (d_rowptr[n]) [device]
/// @param[in]     d_val       full block values (d_rowptr[n] x 9) [device]
/// @param[in]     d_temp      scratch of *temp_bytes bytes [device]; NULL asks for the size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL
/// @param[in]     s           stream (last); its message receives a failure
/// @return ALC_OK; ALC_ERR_CAPACITY when the upper triangle has more than A->cap blocks
///         (nothing written past the arrays; the count needed in the message); ALC_ERR_INVALID_ARG;
///         ALC_ERR_CUDA; with the message on s.
/// Nullable: d_temp; the device arrays when d_temp is NULL
alctStatus alcg_bsr_fromFull(alcgBsr* A, const int* d_rowptr, const int* d_col, const double* d_val,
                             void* d_temp, size_t* temp_bytes, alcgStream* s);

/// Rebuild the transpose index (d_trowptr, d_tblk, d_trow) from A's pattern (d_rowptr, d_col,
/// nnzb): a radix sort of the stored blocks by (column, row), then row starts from the sorted
/// columns. Deterministic (the keys are unique). Call it after every pattern change. Two-phase.
/// @param[in,out] A           matrix with its pattern set
/// @param[in]     d_temp      scratch of *temp_bytes bytes [device]; NULL asks for the size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL (for A->cap blocks)
/// @param[in]     s           stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_CAPACITY (scratch too small), ALC_ERR_CUDA,
///         with the message on s.
/// Nullable: d_temp
alctStatus alcg_bsr_transpose(alcgBsr* A, void* d_temp, size_t* temp_bytes, alcgStream* s);

/// y = A x for the symmetric A from its upper triangle: one thread per block row i sums, in
/// ascending column order, A_ki^T x_k over the stored blocks (k, i), k < i (through the
/// transpose index), then A_ij x_j over its stored row. No atomics: the result is bitwise
/// reproducible run to run, and equals alcr_bsr_spmv's bit for bit wherever the full matrix's
/// lower blocks are the exact transposes of its upper ones and the compiler contracts no
/// multiply-add (the emulation; nvcc fuses them, so a device agrees to rounding).
/// @param[in]  A    matrix
/// @param[in]  d_x  vector (n x 3) [device]
/// @param[out] d_y  result (n x 3) [device]; must not alias d_x
/// @param[in]  s    stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, or ALC_ERR_CUDA, with the message on s.
/// Nullable: d_x and d_y when A->n is 0
alctStatus alcg_bsr_spmv(const alcgBsr* A, const double* d_x, double* d_y, alcgStream* s);

/// Inverse of every diagonal block, for the block-Jacobi preconditioner, as
/// alcr_bsr_blockJacobi: a singular block (alcm_m3_inverse fails) falls back to the inverse of
/// its diagonal, 1 for a zero entry; a missing diagonal block counts as zero (identity).
/// @param[in]  A      matrix
/// @param[out] d_inv  inverses (n x 9), row-major [device]
/// @param[in]  s      stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, or ALC_ERR_CUDA, with the message on s.
/// Nullable: d_inv when A->n is 0
alctStatus alcg_bsr_blockJacobi(const alcgBsr* A, double* d_inv, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_BSR_H_
