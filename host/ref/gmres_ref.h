// Restarted GMRES(m) (Saad and Schultz 1986, "GMRES: a generalized minimal residual algorithm
// for solving nonsymmetric linear systems", SIAM J. Sci. Stat. Comput. 7(3)) for a general,
// non-symmetric A x = b, right-preconditioned (Saad, "Iterative Methods for Sparse Linear
// Systems", 2nd ed., §9.3.2), from x0 = 0: the Krylov solver of Ding and Schroeder's
// merit-function Newton method (../shared/research/seeds-001-002.md §1.6 and §3.1 item 5),
// whose direction dz solves the non-symmetric H dz = -g inexactly, capped at 20 iterations
// (GMRES(m = 20), one cycle, block-Jacobi M).
//
// Why right preconditioning. GMRES on A M^-1 u = b, x = M^-1 u, minimizes the TRUE residual
// ||b - A x|| over x in x0 + M^-1 K_j(A M^-1, r0) (left preconditioning would minimize
// ||M^-1 (b - A x)|| instead). From x0 = 0 the zero vector is in every such space, so every
// iterate satisfies
//     ||b - A x|| <= ||b||,
// monotonically within a cycle (the spaces are nested) and across restarts (a restart starts
// from the previous x, which stays in the new affine space). With b = -g this gives
// g^T H dz <= ||g|| (||r|| - ||g||) <= 0, strictly negative as soon as GMRES makes progress:
// dz is a descent direction for E = 1/2 ||g||^2 however early the solve is stopped (digest §1.6
// [D]). The solver also enforces the property in floating point: a cycle whose computed true
// residual does not decrease is discarded and the solve stops (stagnation), so the returned x
// always has ||b - A x|| <= ||b|| as computed, and x = 0 at worst.
//
// Reductions go through host/ref/vec_ref.h, so the result does not depend on the OpenMP thread
// count (provided the callbacks' results do not either).
#ifndef ALC_HOST_REF_GMRES_REF_H_
#define ALC_HOST_REF_GMRES_REF_H_

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A linear operator on n doubles: out = Op(in). `in` and `out` never alias; `in` must not be
/// modified. ctx is the caller's pointer passed through alcr_gmres_solve.
typedef void (*alcrGmresOp)(void* ctx, const double* in, double* out);

/// The workspace of GMRES(m) on n unknowns, owned by the struct (alcr_gmres_make allocates,
/// alcr_gmres_free releases). (m + 3) n + O(m^2) doubles.
typedef struct alcrGmres_ {
    int n;         ///< unknowns
    int m;         ///< restart length: Krylov vectors per cycle
    double* V;     ///< (m + 1) x n Arnoldi basis, vector i at V + i n
    double* Hh;    ///< (m + 1) x m Hessenberg matrix, column-major (column j at Hh + j (m + 1)),
                   ///< reduced to upper triangular by the Givens rotations as it is built
    double* cs;    ///< m Givens cosines
    double* sn;    ///< m Givens sines
    double* s;     ///< m + 1: the rotated ||r0|| e1; |s[j+1]| is the residual after step j
    double* y;     ///< m: the least-squares coefficients of the cycle
    double* w;     ///< n scratch: A M^-1 v_j, the cycle's update, the true residual
    double* z;     ///< n scratch: M^-1 v_j, M^-1 of the update
    size_t bytes;  ///< bytes allocated
} alcrGmres;

/// What a solve did.
typedef struct alcrGmresOut_ {
    int iters;      ///< inner (Arnoldi) iterations in total, restarts included: each one applies
                    ///< A once (and Minv once); each cycle adds one A for its true residual
    int restarts;   ///< cycles restarted (cycles run - 1)
    double r0;      ///< ||b|| (units of b)
    double r;       ///< the true residual ||b - A x|| of the returned x, computed with A
    int converged;  ///< 1 if r <= rtol ||b|| (b = 0 included), else 0
} alcrGmresOut;

/// Allocate the workspace of GMRES(m) on n unknowns; *G is overwritten (not freed first).
/// @param[out] G  the workspace; zeroed on failure
/// @param[in]  n  unknowns (> 0)
/// @param[in]  m  restart length (> 0; D&S use 20); m > n is allowed (Arnoldi then breaks
///                down by step n in exact arithmetic)
/// @return ALC_OK; ALC_ERR_INVALID_ARG (G NULL, n <= 0, m <= 0); ALC_ERR_NOMEM.
alctStatus alcr_gmres_make(alcrGmres* G, int n, int m);

/// Release the workspace and zero *G. Safe on NULL, on a zeroed struct, and twice.
void alcr_gmres_free(alcrGmres* G);

/// Solve A x = b by right-preconditioned restarted GMRES(G->m) from x = 0 (header comment):
/// Arnoldi with modified Gram-Schmidt, Givens rotations applied as the Hessenberg matrix grows
/// so that the residual norm is known at every step without forming x. A cycle ends after m
/// steps, when that estimate is <= rtol ||b||, at a breakdown (h_{j+1,j} ~ 0: the Krylov space
/// is invariant and the cycle's solution exact in it; a column that is numerically dependent on
/// the earlier ones, A M^-1 singular there, is dropped), or when maxIter inner iterations have
/// been taken in total. It ends by forming x and its true residual b - A x (one extra A), which
/// decides convergence; if neither that nor maxIter stops the solve, the next cycle starts from
/// it (after a happy breakdown the true residual normally meets rtol and the solve stops). A
/// cycle whose true residual does not decrease is undone and ends the solve (stagnation: the
/// next cycle would repeat it; also a singular A M^-1 with b off its range).
/// @param[in,out] G        workspace made by alcr_gmres_make (its n is the system's size)
/// @param[in]     A        the matrix, out = A in (required)
/// @param[in]     Minv     the preconditioner, out = M^-1 in, a fixed linear map (not a
///                         flexible one: x is formed as M^-1 V y); NULL: none
/// @param[in]     ctx      passed to A and Minv (may be NULL)
/// @param[in]     b        right-hand side (n; finite)
/// @param[out]    x        solution (n), overwritten: the start is always 0
/// @param[in]     rtol     relative tolerance on the true residual, >= 0 (0: until breakdown,
///                         stagnation or maxIter)
/// @param[in]     maxIter  inner iterations at most (>= 0; 0 returns x = 0)
/// @param[out]    out      statistics (may be NULL)
/// @return ALC_OK whether or not it converged; ALC_ERR_INVALID_ARG (G, A, b or x NULL, G not
///         made, rtol negative or NaN, maxIter < 0); ALC_ERR_NUMERIC (b has a NaN or Inf, or A
///         or Minv produced one: x is then the last iterate with a finite residual, 0 at worst).
alctStatus alcr_gmres_solve(alcrGmres* G, alcrGmresOp A, alcrGmresOp Minv, void* ctx,
                            const double* b, double* x, double rtol, int maxIter,
                            alcrGmresOut* out);

#ifdef __cplusplus
}
#endif

#endif  // ALC_HOST_REF_GMRES_REF_H_
