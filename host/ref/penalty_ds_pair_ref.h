// One contact of the penalty-ds model (issue 22, item 1): Ding and Schroeder's zero-length
// spring from a particle Z to its attachment relaxed over a triangle mesh into the Coulomb cone
// (hd/alcm_penalty_ds_mesh.h), its forces on the stencil and their Jacobian
// (papers/penalty-coulomb-friction-coupling.txt §2.1; ../shared/research/seeds-001-002.md §1.5).
//
// Forces (D&S §1.5): f_Z = k (Y - Z) while Z is below the surface at Y (the relaxation's
// separation test), zero otherwise; -f_Z is spread over Y's triangle with Y's barycentric
// weights. The force is central: the stencil's forces sum to zero.
//
// Jacobian, d(forces on Z and Y's triangle) / d(positions):
//   - static pair (Y = X, the spring's force inside the cone): the closed form -k c c^T (x) I3
//     over the stencil (Z, X's triangle), c = (1, -b_X): symmetric (D&S §1.5);
//   - sliding pair: Y depends on Z and on every triangle the walk crossed, through the
//     relaxation's path (D&S: "the chain rule through the stored relaxation path"). Here it is
//     taken by central differences of the relaxation itself, one coordinate at a time, with
//     the path held: a perturbed walk that ends in another state, triangle or feature, or
//     switches between static and sliding, has crossed a kink of the force, and its side's
//     difference is not used; the other side's one-sided difference replaces the central one,
//     or the column is left zero when both sides crossed (counted in alcrDsJacStats). The step
//     is 1e-6 of X's triangle's longest edge (at least 1e-9 of the coordinates' size), so the
//     central difference's error is about 1e-12 relative in the smooth pieces and rounding
//     about 1e-10. Tested against D&S's closed form on a plane and against differences of
//     the whole relaxation along random directions (tests/test_penalty_ds_pair.c).
// The columns of a sliding pair: Z, then the vertices of every triangle its walk visited and
// of the one it ended on, at most ALCR_DS_MAX_COLS.
#ifndef ALC_HOST_REF_PENALTY_DS_PAIR_REF_H_
#define ALC_HOST_REF_PENALTY_DS_PAIR_REF_H_

#include "hd/alcm_penalty_ds_mesh.h"

/// Relaxation steps at most (the paper saw at most 5; the trace keeps ALCM_DS_TRACE_LEN).
#define ALCR_DS_MAX_STEPS ALCM_DS_TRACE_LEN
/// Jacobian columns (vertices) of one pair at most: Z and the walk's triangles.
#define ALCR_DS_MAX_COLS (1 + 3 * (ALCM_DS_TRACE_LEN + 1))

/// One pair relaxed at some positions, and its force.
typedef struct alcrDsPairEval_ {
    alcmDsMeshResult r;  ///< the relaxation: Y, its triangle and weights, the cone's normal
                         ///< n(Y), whether it is active and whether it slid
    alcV3 f;             ///< force on Z, k (Y - Z); zero when inactive (N)
} alcrDsPairEval;

/// Counts of the difference Jacobian's columns (coordinates).
typedef struct alcrDsJacStats_ {
    long columns;   ///< coordinates differenced (sliding pairs)
    long oneSided;  ///< of them, one-sided: the walk's path changed on one side
    long dropped;   ///< of them, left zero: it changed on both
} alcrDsJacStats;

/// Relax the attachment x of particle z (a vertex of mesh, at mesh->vert + 3 z) with friction
/// mu and stiffness k (N/m), and take the spring's force.
/// @param[out] e      the relaxation and the force on Z
/// @param[out] trace  the walk step by step (nullable; the Jacobian of a sliding pair needs it)
void alcr_dsPair_eval(const alcmDsMesh* mesh, int z, alcmDsAttach x, double mu, double k,
                      alcrDsPairEval* e, alcmDsMeshTrace* trace);

/// The 12 forces of e on its stencil (N): on Z, then on the vertices of Y's triangle
/// (e->r.attach.tri) in their order.
void alcr_dsPair_forces(const alcrDsPairEval* e, double F[12]);

/// The Jacobian of the 12 stencil forces of an active pair (evaluated by alcr_dsPair_eval at
/// pos with its trace) with respect to the positions of its columns (file comment).
/// @param[in,out] pos    the positions mesh->vert points to (the same array, writable): moved
///                       one coordinate at a time and restored bit for bit
/// @param[in]     mesh   the mesh over pos
/// @param[in]     z, x, mu, k, e, trace  as given to and returned by alcr_dsPair_eval
/// @param[out]    cols   the column vertices (at most ALCR_DS_MAX_COLS), cols[0] = z
/// @param[out]    J      4 x ncols blocks of 3x3, row-major, block (a, c) at J + 9 (a ncols + c):
///                       d(force on stencil row a) / d(position of cols[c]) (N/m); zero
///                       blocks included
/// @param[in,out] stats  counts added to (nullable)
/// @return ncols; 0 for an inactive pair (no force, no Jacobian).
int alcr_dsPair_jacobian(double* pos, const alcmDsMesh* mesh, int z, alcmDsAttach x, double mu,
                         double k, const alcrDsPairEval* e, const alcmDsMeshTrace* trace, int* cols,
                         double* J, alcrDsJacStats* stats);

#endif  // ALC_HOST_REF_PENALTY_DS_PAIR_REF_H_
