// Block-Jacobi preconditioned conjugate gradient on the device: the linear solve of the Newton
// step, H p = -g, with H the upper-stored symmetric BSR matrix of cuda/bsr.h. Twin of
// alcr_pcg_solve (host/ref/pcg_ref.h). Clean C.
#ifndef ALC_CUDA_PCG_H_
#define ALC_CUDA_PCG_H_

#include "alcg_stream.h"
#include "bsr.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Iterations queued between two host reads of the solver's state on the grid path. The device
/// stops itself (every kernel of a finished solve returns at once), so iters, converged and x
/// are those of a check after every iteration; a larger value trades idle launches for fewer
/// round trips.
#define ALCG_PCG_CHECK_EVERY 8

/// Block rows up to which alcg_pcg_solve runs the whole solve in one launch of one block
/// (the one-block path); larger matrices take the grid path. Set from the H100's measurements
/// (bench/results/h100-80gb-hbm3/pcg-launches/README.md).
#define ALCG_PCG_ONE_BLOCK_ROWS 640
/// The most block rows the one-block path takes (its block sums live in shared memory).
#define ALCG_PCG_ONE_BLOCK_MAX_ROWS 16384

/// Solve A x = b (A symmetric positive definite) from x = 0 until ||r|| <= tol ||b||, as
/// alcr_pcg_solve: the same iteration, stopping rule and counts (iters = iterations whose
/// update was applied; b = 0 gives x = 0, iters 0, converged 1; a direction with p.Ap <= 0
/// stops with converged 0 and the iterations before it; maxIter reached gives converged 0).
/// Scalars stay on the device. Two paths with bitwise the same results:
///   - one block (A->n <= ALCG_PCG_ONE_BLOCK_ROWS): one launch for the whole solve, the host
///     reads the state (48 bytes) once at the end;
///   - grid: three launches per iteration (q = A p with p.q and alpha; x += alpha p,
///     r -= alpha q, z = Minv r with r.r, r.z, the stopping test and beta; p = z + beta p), the
///     host reads the state once per ALCG_PCG_CHECK_EVERY iterations and once at the end.
/// Dot products are fixed-shape tree reductions (per chunk of ALCG_BLOCK rows, then over the
/// chunk sums), so the result is bitwise reproducible run to run and from one path to the
/// other; their order differs from the reference's blocked serial sums.
/// @param[in]  A           matrix (n block rows)
/// @param[in]  d_Minv      inverse diagonal blocks (n x 9), e.g. from alcg_bsr_blockJacobi
///                         [device]
/// @param[in]  d_b         right-hand side (n x 3) [device]
/// @param[out] d_x         solution (n x 3) [device]
/// @param[in]  tol         relative residual tolerance
/// @param[in]  maxIter     iteration cap (<= 0: none is taken)
/// @param[out] iters       iterations taken [host]
/// @param[out] converged   1 if the tolerance was reached, else 0 [host]
/// @param[in]  d_temp      scratch of *temp_bytes bytes [device]; NULL asks for the size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL (for A->n rows)
/// @param[in]  s           stream (last); synchronized by the state reads
/// @return ALC_OK (whether or not it converged); ALC_ERR_INVALID_ARG (also scratch too small);
///         ALC_ERR_CUDA; with the message on s.
/// Nullable: d_temp; iters, converged and the device arrays when d_temp is NULL; the device
///           arrays when A->n is 0
alctStatus alcg_pcg_solve(const alcgBsr* A, const double* d_Minv, const double* d_b, double* d_x,
                          double tol, int maxIter, int* iters, int* converged, void* d_temp,
                          size_t* temp_bytes, alcgStream* s);

/// alcg_pcg_solve with its choices explicit:
/// @param[in] oneBlockRows  the one-block path where A->n <= oneBlockRows (and
///                          <= ALCG_PCG_ONE_BLOCK_MAX_ROWS), 0: always the grid path. For the
///                          tests that hold the two paths to the same bits, and for measuring
///                          the crossover (ALC_CUDA_PCG_ONE_BLOCK_ROWS, tools/pcg-paths.sh)
/// @param[in] d_diagOnly    nullable; per row (n) nonzero where every block of the row but the
///                          diagonal is zero (the backend's kinematic rows): the product skips
///                          them. The result is the same as without the mask (up to the sign
///                          of a zero) [device]
/// The other parameters and the results are alcg_pcg_solve's.
alctStatus alcg_pcg_solveWith(const alcgBsr* A, const double* d_Minv, const double* d_b,
                              double* d_x, double tol, int maxIter, int oneBlockRows,
                              const unsigned char* d_diagOnly, int* iters, int* converged,
                              void* d_temp, size_t* temp_bytes, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_PCG_H_
