// Lagged smoothed friction on the device (AL paper Appendix A, Eq. 22-23; IPC paper §5;
// papers/barrier-free-al-elastodynamics.txt): per lagged pair the potential h^2 mu_f F f0(|u|)
// of hd/alcm_friction.h, with the normal force F of Eq. 23, the tangent basis and the
// closest-point weights frozen at the start of the step. Twins of alcr_friction_lag,
// alcr_friction_energy and alcr_friction_assemble (host/ref/friction_ref.c). Clean C.
//
// Determinism: no floating-point atomics. The lag keeps the pairs in active-set order (a flag,
// an exclusive scan, a scatter), the reference's order. The assembly gathers per block row
// through a vertex -> friction-pair incidence list sorted by (vertex, 4 f + a), so every
// gradient entry and every matrix block receives its contributions in the reference's order:
// bitwise reproducible run to run, and bit for bit the reference's where the compiler contracts
// no multiply-add (the emulation). The energy sums per block, then over the blocks in a fixed
// order (reproducible; equal to the reference to rounding).
#ifndef ALC_CUDA_FRICTION_H_
#define ALC_CUDA_FRICTION_H_

#include "active_set.h"
#include "al_contact.h"
#include "alcg_stream.h"
#include "bsr.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A lagged friction pair: the layout the reference backend uses too (hd/alcm_pairstate.h).
typedef alcmFric alcgFric;

/// The friction coefficients of the model's material pairs (device copies of the alcModel
/// arrays of the same names).
typedef struct alcgFricMaterials_ {
    const int* d_vertBody;        ///< owning body (nvert) [device]
    const int* d_bodyMat;         ///< material of each body (nbody) [device]
    const double* d_matFriction;  ///< coefficient per material pair (nmat x nmat); < 0: default
                                  ///< [device]
    int nmat;                     ///< materials
    double frictionDefault;       ///< coefficient where the table is negative
} alcgFricMaterials;

/// Step parameters of the friction terms (the fields of the backend the reference reads).
typedef struct alcgFricParams_ {
    double h;             ///< time step (s)
    double frictionEpsV;  ///< eps_v (m/s): the smoothing threshold is eps_v h
    int secant;           ///< 1: the energy marks the pairs a trial reverses and the assembly
                          ///< gives them their secant stiffness (alcm_fric_Ksecant); 0: exact
} alcgFricParams;

/// Device scratch of the friction terms, sized at make time for a pair capacity (nothing
/// allocates in a step).
typedef struct alcgFriction_ {
    int nvert;  ///< vertices (= block rows)
    int cap;    ///< capacity in active pairs (and so in friction pairs)
    int nfric;  ///< friction pairs of the last incidence build (-1: none built)
    // vertex -> friction-pair incidences of the last build, by vertex then pair
    int* d_vpAdr;                ///< starts (nvert + 1) [device]
    int* d_vpList;               ///< 4 f + a (4 cap) [device]
    unsigned long long* d_keys;  ///< sort keys (vertex << 32 | 4 f + a) (4 cap) [device]
    void* d_temp;                ///< scratch of the key sort and the lag's scan [device]
    size_t tempBytes;            ///< its size
    int* d_slot;                 ///< lag flags, then their exclusive scan (cap) [device]
    double* d_force;             ///< normal forces times h^2 of the lag (cap) [device]
    double* d_qK;                ///< per pair h^2 coef, q (3) and K (9) of the assembly
                                 ///< (13 cap) [device]
    double* d_red;               ///< per-block partial sums (blocks of cap pairs) [device]
    double* d_scalar;            ///< [0] the last energy [device]
    int* d_count;  ///< [0] missing blocks, [1] bad vertices, [2] secant pairs, [3] reversals
                   ///< [device]
} alcgFriction;

/// Allocate F for nvert vertices and up to cap active pairs. Allocates device memory: call it
/// at make time, and again (after alcg_friction_free) when the pair capacity grows.
/// @param[out] F      zeroed on failure
/// @param[in]  nvert  vertices, >= 0
/// @param[in]  cap    active-pair capacity, >= 0
/// @param[in]  s      stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_DEVICE_NOMEM or ALC_ERR_CUDA, with the message on
/// s.
alctStatus alcg_friction_make(alcgFriction* F, int nvert, int cap, alcgStream* s);

/// Free F's device arrays and zero it. NULL-safe.
void alcg_friction_free(alcgFriction* F);

/// Device bytes held by F.
size_t alcg_friction_bytes(const alcgFriction* F);

/// Device bytes alcg_friction_make will allocate (unrounded) for nvert vertices and cap pairs, into
/// *bytes (0 on failure).
/// @return ALC_OK, or the failure of its size checks or scratch queries, with the message on s.
alctStatus alcg_friction_need(int nvert, int cap, size_t* bytes, alcgStream* s);

/// Lag the friction pairs at the start of a step, as alcr_friction_lag: for every pair of the
/// active set, linearized at XT (alcg_activeSet_linearize at XT), in order, mu_f from the
/// materials of its two sides (PT: vertices 0 | 1; EE: 0 | 2) and F = h^-2 times the normal
/// force of Eq. 23 (alcg_alContact_normalForce with the previous step's mu and delta); a pair
/// with mu_f > 0, F > 0 and a defined normal (alcm_fric_weights) becomes a friction pair with
/// its weights, basis (alcm_fric_basis) and coef = mu_f F. Nothing is lagged when prm->mu is not
/// positive (no previous step). Builds the incidences of the result (alcg_friction_incidence).
/// Synchronizes s.
/// @param[in,out] F        scratch from alcg_friction_make
/// @param[in]     d_pairs  active set linearized at XT (npair <= F->cap) [device]
/// @param[in]     npair    pairs
/// @param[in]     prm      AL parameters of the previous step (mu, delta, penalty)
/// @param[in]     fp       step parameters (h)
/// @param[in]     mat      friction coefficients of the materials
/// @param[out]    d_fric   friction pairs (F->cap) [device]
/// @param[out]    nfric    friction pairs written [host]
/// @param[in]     s        stream (last)
/// @return ALC_OK; ALC_ERR_CAPACITY (npair > cap); ALC_ERR_INVALID_ARG; ALC_ERR_CUDA; with the
///         message on s.
/// Nullable: d_pairs and d_fric when npair is 0
alctStatus alcg_friction_lag(alcgFriction* F, const alcgPair* d_pairs, int npair,
                             const alcgAlParams* prm, const alcgFricParams* fp,
                             const alcgFricMaterials* mat, alcgFric* d_fric, int* nfric,
                             alcgStream* s);

/// Rebuild the vertex -> friction-pair incidences (a radix sort of the unique keys vertex << 32 |
/// 4 f + a: deterministic). alcg_friction_lag calls it; call it after changing the friction set
/// any other way. Synchronizes s (a stencil vertex outside [0, nvert) is reported).
/// @param[in,out] F       scratch
/// @param[in]     d_fric  friction pairs (nfric <= F->cap) [device]
/// @param[in]     nfric   pairs
/// @param[in]     s       stream (last)
/// @return ALC_OK; ALC_ERR_CAPACITY; ALC_ERR_INVALID_ARG (a bad vertex, the count in the
///         message); ALC_ERR_CUDA; with the message on s.
/// Nullable: d_fric when nfric is 0
alctStatus alcg_friction_incidence(alcgFriction* F, const alcgFric* d_fric, int nfric,
                                   alcgStream* s);

/// Friction energy sum_f h^2 coef_f f0(|u_f|) at pos, as alcr_friction_energy (u from pos and XT,
/// eps = eps_v h). Per-block sums, then one block over them in a fixed order: bitwise
/// reproducible. With fp->secant, a pair whose slip pos reverses against its last assembly
/// (alcm_fric_reverses) is marked (its `reversed` field; one thread per pair).
/// @param[in,out] F       scratch (d_red, d_scalar)
/// @param[in,out] d_fric  friction pairs (nfric <= F->cap) [device]
/// @param[in]     nfric   pairs
/// @param[in]     fp      step parameters
/// @param[in]     d_xt    start of the step XT (nvert x 3) (m) [device]
/// @param[in]     d_pos   positions (nvert x 3) (m) [device]
/// @param[out]    energy  the energy (IP units) [host]; also left in F->d_scalar[0]
/// @param[in]     s       stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_CAPACITY or ALC_ERR_CUDA, with the message on s.
/// Nullable: energy (no synchronization then); the arrays when nfric is 0
alctStatus alcg_friction_energy(alcgFriction* F, alcgFric* d_fric, int nfric,
                                const alcgFricParams* fp, const double* d_xt, const double* d_pos,
                                double* energy, alcgStream* s);

/// Friction pairs whose slip at pos reverses against their last assembly, as
/// alcr_friction_reversals (alcm_fric_reverses; one thread per pair, an integer count).
/// @param[in,out] F       scratch (d_count[3])
/// @param[in]     d_fric  friction pairs (nfric <= F->cap) [device]
/// @param[in]     nfric   pairs
/// @param[in]     fp      step parameters
/// @param[in]     d_xt    XT (nvert x 3) (m) [device]
/// @param[in]     d_pos   positions (nvert x 3) (m) [device]
/// @param[out]    count   the pairs [host]; synchronizes s
/// @param[in]     s       stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_CAPACITY or ALC_ERR_CUDA, with the message on s.
/// Nullable: the arrays when nfric is 0
alctStatus alcg_friction_reversals(alcgFriction* F, const alcgFric* d_fric, int nfric,
                                   const alcgFricParams* fp, const double* d_xt,
                                   const double* d_pos, int* count, alcgStream* s);

/// Add the friction gradient and PSD Hessian blocks at XHAT into G and A, as
/// alcr_friction_assemble: per pair s = h^2 coef, q = alcm_fric_q and K = alcm_fric_K at u(XHAT);
/// G_i += s w_a q on free rows i = v[a], and the blocks s w_a w_b K for free i <= j = v[b] into
/// A's upper triangle, each found by binary search in row i. Gathers per row in ascending
/// (pair, slot) order (no atomics but the integer counts). A pair marked reversed gets the
/// secant stiffness alcm_fric_Ksecant in place of K (fp->secant); every pair's mark is cleared
/// and its u at XHAT kept for the next trials. F's incidences must have been built for this set.
/// @param[in,out] F       scratch (d_qK; d_count[0] counts blocks A lacks, d_count[2] the pairs
///                        given their secant stiffness)
/// @param[in,out] d_fric  friction pairs (nfric == F->nfric) [device]
/// @param[in]     nfric   pairs
/// @param[in]     fp      step parameters
/// @param[in]     d_xt    XT (nvert x 3) (m) [device]
/// @param[in]     d_xhat  iterate XHAT (nvert x 3) (m) [device]
/// @param[in]     d_kin   1 for a kinematic vertex (nvert) [device]: its row and column skipped
/// @param[in,out] A       matrix of nvert rows whose pattern holds every friction stencil
/// @param[in,out] d_g     gradient (nvert x 3) [device]
/// @param[out]    missing blocks of the stencils A lacks (skipped) [host]; synchronizes s
/// @param[out]    nsecant pairs given their secant stiffness [host]; synchronizes s
/// @param[in]     s       stream (last)
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL array, incidences built for another set, A of
///         another size); ALC_ERR_CUDA; with the message on s.
/// Nullable: missing, nsecant (no synchronization for them then); the arrays when nfric is 0
alctStatus alcg_friction_assemble(alcgFriction* F, alcgFric* d_fric, int nfric,
                                  const alcgFricParams* fp, const double* d_xt,
                                  const double* d_xhat, const unsigned char* d_kin, alcgBsr* A,
                                  double* d_g, int* missing, int* nsecant, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_FRICTION_H_
