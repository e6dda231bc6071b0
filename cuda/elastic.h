// Inertia and elasticity on the device (AL paper §5.1, Eq. 16-19): per-tetrahedron gradient and
// analytically PSD-projected Hessian blocks (hd/alcm_elastic.h), the gradient G gathered per
// vertex, the Hessian blocks reduced into the upper-stored BSR matrix of cuda/bsr.h through
// destination slots precomputed at make time, the largest free diagonal entry (Eq. 20) and the
// incremental potential at a trial position (Eq. 2, for the line search). Twin of
// alcr_elastic_assemble and alcr_elastic_energy (host/ref/elastic_ref.c; friction not included).
// Clean C.
#ifndef ALC_CUDA_ELASTIC_H_
#define ALC_CUDA_ELASTIC_H_

#include "alcg_stream.h"
#include "bsr.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// How the Hessian blocks reach the matrix.
typedef enum alcgElasticMode_ {
    /// One thread per element block, in destination-slot order: a segmented warp reduction over
    /// lanes of the same slot, then ONE atomicAdd (double) per slot segment and entry onto a
    /// zeroed block (the mass added afterwards, without atomics). Bitwise reproducible only where
    /// every slot is split into at most two warp segments (two additions onto zero commute); a
    /// slot with more than 33 contributions (a vertex in more than 33 tetrahedra) may take three
    /// or more atomics, whose order, and so whose rounding, varies from run to run.
    ALCG_ELASTIC_ATOMIC = 0,
    /// One thread per destination slot summing its contributions in a fixed order (ascending
    /// tetrahedron, as the reference): no atomics, bitwise reproducible.
    ALCG_ELASTIC_GATHER = 1
} alcgElasticMode;

/// Device copies of the model arrays elasticity reads, the per-element scratch and the
/// precomputed assembly maps. Sizes fixed at make time (nothing allocates in a step).
typedef struct alcgElastic_ {
    int nvert;      ///< vertices (= block rows)
    int ntet;       ///< tetrahedra
    int eigFilter;  ///< ALCM_EIG_CLAMP or ALCM_EIG_ABS (alcOption.eigenFilter)
    // model
    int* d_tet_vert;      ///< vertex indices (ntet x 4) [device]
    double* d_tet_vol;    ///< rest volume (ntet) (m^3) [device]
    double* d_tet_Dminv;  ///< inverse rest shape, row-major (ntet x 9) (1/m) [device]
    int* d_tet_model;     ///< material model (alctMaterialModel) (ntet) [device]
    double* d_tet_mu;     ///< Lame mu (ntet) (Pa) [device]
    double* d_tet_lam;    ///< Lame lambda (ntet) (Pa) [device]
    double* d_vert_mass;  ///< lumped mass (nvert) (kg) [device]
    // vertex -> incidences, as the reference's (counting sort by tetrahedron)
    int* d_vtAdr;   ///< starts (nvert + 1) [device]
    int* d_vtList;  ///< 4 t + a (4 ntet) [device]
    // the static upper pattern: the diagonal and every vertex pair sharing a tetrahedron
    int nstatic;      ///< static upper blocks (slots)
    int* d_srowptr;   ///< slot row starts (nvert + 1) [device]
    int* d_scol;      ///< slot columns, ascending within a row (nstatic) [device]
    int* d_diagSlot;  ///< the slot of (i, i) (nvert) [device]
    // element blocks (10 per tetrahedron) sorted by slot, then tetrahedron
    int nitem;        ///< 10 ntet
    int* d_item;      ///< (10 t + p) << 1 | transposed, p the local pair (a <= b) (nitem) [device]
    int* d_itemSlot;  ///< slot of each item (nitem) [device]
    int* d_slotAdr;   ///< items of slot s: [d_slotAdr[s], d_slotAdr[s + 1]) (nstatic + 1) [device]
    int* d_dst;  ///< block index of slot s in the bound matrix (nstatic) [device]; identity after
                 ///< alcg_elastic_pattern
    int boundN;  ///< row count of the bound matrix (-1: none bound)
    // per-step scratch
    double* d_elemG;   ///< raw tetrahedron gradients (ntet x 12) (N) [device]
    double* d_elemH;   ///< raw projected Hessian blocks (a <= b) (ntet x 10 x 9) (N/m) [device]
    double* d_red;     ///< block partials (reduction scratch) [device]
    double* d_scalar;  ///< [0] max diagonal, [1] energy [device]
    int nred;          ///< capacity of d_red
} alcgElastic;

/// Build E from the model: device copies of the arrays, the incidence lists, the static upper
/// pattern and the slot of every element block. Allocates device memory: call it at make time.
/// @param[out] E          zeroed on failure
/// @param[in]  m          the model [host]
/// @param[in]  tetModel   per-tetrahedron material model (ntet) [host]; NULL: from the body's
///                        material, as alcr_elastic_make
/// @param[in]  tetMu      per-tetrahedron Lame mu (ntet) [host]; NULL: likewise
/// @param[in]  tetLam     per-tetrahedron Lame lambda (ntet) [host]; NULL: likewise
/// @param[in]  s          stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_DEVICE_NOMEM or ALC_ERR_CUDA, with
///         the message on s.
/// Nullable: tetModel, tetMu, tetLam (all three or none)
alctStatus alcg_elastic_make(alcgElastic* E, const alcModel* m, const int* tetModel,
                             const double* tetMu, const double* tetLam, alcgStream* s);

/// Free E's device arrays and zero it. NULL-safe.
void alcg_elastic_free(alcgElastic* E);

/// Device bytes held by E.
size_t alcg_elastic_bytes(const alcgElastic* E);

/// Device bytes alcg_elastic_make will allocate for nvert vertices, ntet tetrahedra and nstatic
/// static upper blocks (the diagonal and one per pair of vertices sharing a tetrahedron), each
/// allocation unrounded: what the sim's arena is sized from (cuda/arena.h).
size_t alcg_elastic_need(int nvert, int ntet, int nstatic);

/// Set A's pattern to the static upper pattern (rows, columns, nnzb, transpose index) and bind
/// E's slots to it (slot s = block s). Two-phase (the transpose's scratch).
/// @param[in]     E           from alcg_elastic_make
/// @param[in,out] A           matrix of E->nvert rows and capacity >= E->nstatic
/// @param[in]     d_temp      scratch [device]; NULL asks for the size
/// @param[in,out] temp_bytes  scratch size; written when d_temp is NULL
/// @param[in]     s           stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_CAPACITY (A too small) or ALC_ERR_CUDA.
/// Nullable: d_temp
alctStatus alcg_elastic_pattern(alcgElastic* E, alcgBsr* A, void* d_temp, size_t* temp_bytes,
                                alcgStream* s);

/// Bind E's slots to the blocks of A, whose pattern must contain the static one (a superset,
/// e.g. with contact blocks merged in): each slot's block found by binary search in its row.
/// Call it after every pattern change of A. Synchronizes s.
/// @return ALC_OK; ALC_ERR_INVALID_ARG when A lacks a static block (the count in the message)
///         or has another row count; ALC_ERR_CUDA.
alctStatus alcg_elastic_bind(alcgElastic* E, const alcgBsr* A, alcgStream* s);

/// Inputs of one assembly or energy evaluation (device vectors of the step).
typedef struct alcgElasticState_ {
    double h;                    ///< time step (s)
    const double* d_xhat;        ///< linearization point (nvert x 3) (m) [device]
    const double* d_xtilde;      ///< inertial target (nvert x 3) (m) [device]
    const unsigned char* d_kin;  ///< 1 for a kinematic vertex this step (nvert) [device]
} alcgElasticState;

/// Assemble inertia and elasticity at XHAT, as alcr_elastic_assemble (without friction):
/// G_i = m_i (xhat_i - xtilde_i) + h^2 sum grad E_t (0 on kinematic rows), every block of A set
/// (A's values overwritten: blocks outside the static pattern zeroed), A_ii = m_i I + h^2 sum
/// H_t,ii, A_ij = h^2 sum H_t,ij over tetrahedra with both vertices free; a kinematic row keeps
/// only its diagonal, m_i I (I when m_i is 0). The Hessians are the analytically projected ones
/// (AL paper Eq. 17), per block (Eq. 19).
/// @param[in]     E        bound to A (alcg_elastic_pattern or alcg_elastic_bind)
/// @param[in]     st       step state
/// @param[in]     mode     ALCG_ELASTIC_ATOMIC or ALCG_ELASTIC_GATHER
/// @param[in,out] A        the matrix; its values are written
/// @param[out]    d_g      gradient (nvert x 3) [device]
/// @param[out]    maxDiag  largest diagonal entry over free DOFs (AL paper Eq. 20), 0 when none
///                         [host]; also left in E->d_scalar[0]
/// @param[in]     s        stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
/// Nullable: maxDiag (no synchronization then)
alctStatus alcg_elastic_assemble(alcgElastic* E, const alcgElasticState* st, alcgElasticMode mode,
                                 alcgBsr* A, double* d_g, double* maxDiag, alcgStream* s);

/// Incremental potential without friction at trial = xhat + r p, as alcr_elastic_energy:
/// sum over free vertices of m/2 |trial - xtilde|^2 + h^2 sum_t E_t(trial). Per-block sums, then
/// one block over them in a fixed order: bitwise reproducible.
/// @param[in]  E        from alcg_elastic_make
/// @param[in]  st       step state
/// @param[in]  d_p      direction (nvert x 3) [device]
/// @param[in]  r        step length
/// @param[out] d_trial  the trial positions (nvert x 3) [device]
/// @param[out] energy   E [host]; also left in E->d_scalar[1]
/// @param[in]  s        stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
/// Nullable: d_trial; energy (no synchronization then)
alctStatus alcg_elastic_energy(alcgElastic* E, const alcgElasticState* st, const double* d_p,
                               double r, double* d_trial, double* energy, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_ELASTIC_H_
