// The augmented Lagrangian contact terms on the device (AL paper Eq. 10-14, Alg. 2 lines 8-11 and
// 20-29, Eq. 23; papers/barrier-free-al-elastodynamics.txt), on the device active set of
// cuda/active_set.h: the energy sum_i gamma_i phi(c_i) with the slack minimized out, its gradient
// and the Hessian blocks of the pairs active at the iterate into G and the upper-stored BSR
// matrix of cuda/bsr.h, the slack / multiplier / decay updates, the activity flips and the normal
// force per pair. Twins of alcr_contact_energy, alcr_contact_assemble, alcr_contact_alUpdate,
// alcr_contact_flips and alcr_contact_normalForce (host/ref/contact_ref.c). Clean C.
//
// Determinism: no floating-point atomics. The assembly gathers per block row through a
// vertex -> pair incidence list sorted by (vertex, pair) (alcg_alContact_incidence), so every
// gradient entry and every matrix block receives its contributions in ascending pair order, the
// reference's order: bitwise reproducible run to run, and bit for bit the reference's result
// where the compiler contracts no multiply-add (the emulation). The energy sums per block, then
// over the blocks in a fixed order (reproducible; equal to the reference to rounding).
#ifndef ALC_CUDA_AL_CONTACT_H_
#define ALC_CUDA_AL_CONTACT_H_

#include "active_set.h"
#include "alcg_stream.h"
#include "bsr.h"

#include "alc/alc_types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// AL contact parameters (the fields of alciContactParams the AL terms read).
typedef struct alcgAlParams_ {
    double mu;            ///< penalty stiffness (IP units)
    double delta;         ///< contact offset (m)
    double decay;         ///< Gamma, the decay factor of an inactive pair
    double removeBelow;   ///< gamma threshold of Alg. 3 (not read here; carried for the merge)
    int penalty;          ///< 1: multipliers read as zero and stay zero (penalty ablation)
    double flipDepth;     ///< how far past its kink a pair must land to count as a flip (m)
    double pairMuGrowth;  ///< growth of a violated pair's own penalty (alcm_pair_alUpdate)
    double pairMuMax;     ///< the largest multiple of mu a pair's penalty reaches
    double lambdaCredit;  ///< the most violation a multiplier update credits (m); 0: no limit
} alcgAlParams;

/// Device scratch of the AL contact terms, sized at make time for a pair capacity (nothing
/// allocates in a step).
typedef struct alcgAlContact_ {
    int nvert;  ///< vertices (= block rows)
    int cap;    ///< pair capacity
    int npair;  ///< pairs of the last incidence build (-1: none built)
    // vertex -> pair incidences of the last build, by vertex then pair
    int* d_vpAdr;                ///< starts (nvert + 1) [device]
    int* d_vpList;               ///< 4 p + a (4 cap) [device]
    unsigned long long* d_keys;  ///< sort keys (vertex << 32 | 4 p + a) (4 cap) [device]
    void* d_sortTemp;            ///< scratch of the key sort [device]
    size_t sortBytes;            ///< its size (for 4 cap keys)
    double* d_coef;              ///< gamma phi'(c) of the last assembly (cap) [device]
    double* d_red;               ///< per-block partial sums (blocks of cap pairs) [device]
    double* d_scalar;            ///< [0] the last energy [device]
    int* d_count;                ///< [0] flips, [1] missing blocks / bad vertices [device]
} alcgAlContact;

/// Allocate C for nvert vertices and up to cap pairs. Allocates device memory: call it at make
/// time, and again (after alcg_alContact_free) when the pair capacity grows.
/// @param[out] C      zeroed on failure
/// @param[in]  nvert  vertices, >= 0
/// @param[in]  cap    pair capacity, >= 0
/// @param[in]  s      stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_DEVICE_NOMEM or ALC_ERR_CUDA, with the message on
/// s.
alctStatus alcg_alContact_make(alcgAlContact* C, int nvert, int cap, alcgStream* s);

/// Free C's device arrays and zero it. NULL-safe.
void alcg_alContact_free(alcgAlContact* C);

/// Device bytes held by C.
size_t alcg_alContact_bytes(const alcgAlContact* C);

/// Device bytes alcg_alContact_make will allocate (unrounded) for nvert vertices and cap pairs,
/// into *bytes (0 on failure).
/// @return ALC_OK, or the failure of its size checks or scratch queries, with the message on s.
alctStatus alcg_alContact_need(int nvert, int cap, size_t* bytes, alcgStream* s);

/// Rebuild the vertex -> pair incidences from the active set (a radix sort of the unique keys
/// vertex << 32 | 4 p + a: deterministic), as the reference's buildIncidence. Call it after every
/// change of the active set (alcg_activeSet_merge reports one), before alcg_alContact_assemble.
/// Synchronizes s (a stencil vertex outside [0, nvert) is reported).
/// @param[in,out] C        from alcg_alContact_make
/// @param[in]     d_pairs  active set (npair) [device]
/// @param[in]     npair    pairs, 0 <= npair <= C->cap
/// @param[in]     s        stream (last)
/// @return ALC_OK; ALC_ERR_CAPACITY (npair > cap); ALC_ERR_INVALID_ARG (a bad vertex, the count in
///         the message); ALC_ERR_CUDA; with the message on s.
/// Nullable: d_pairs when npair is 0
alctStatus alcg_alContact_incidence(alcgAlContact* C, const alcgPair* d_pairs, int npair,
                                    alcgStream* s);

/// Contact energy sum_i gamma_i phi(c_i) at pos, as alcr_contact_energy: c_i = d_i - delta +
/// grad d_i . (pos - X) over the stencil (Eq. 10), phi(c) = mu/2 c^2 - lambda c for c <
/// lambda/mu, else -lambda^2/(2 mu) (Eq. 12 with the slack of Eq. 14 minimized out). Per-block
/// sums, then one block over them in a fixed order: bitwise reproducible.
/// @param[in,out] C        scratch (d_red, d_scalar)
/// @param[in]     d_pairs  active set (npair <= C->cap) [device]
/// @param[in]     npair    pairs
/// @param[in]     prm      parameters
/// @param[in]     d_x      linearization point X (nvert x 3) (m) [device]
/// @param[in]     d_pos    positions (nvert x 3) (m) [device]
/// @param[out]    energy   the energy (IP units) [host]; also left in C->d_scalar[0]
/// @param[in]     s        stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_CAPACITY or ALC_ERR_CUDA, with the message on s.
/// Nullable: energy (no synchronization then); the arrays when npair is 0
alctStatus alcg_alContact_energy(alcgAlContact* C, const alcgPair* d_pairs, int npair,
                                 const alcgAlParams* prm, const double* d_x, const double* d_pos,
                                 double* energy, alcgStream* s);

/// Add the augmented terms at XHAT into G and A, as alcr_contact_assemble: per pair c and
/// active = c < lambda/mu written into the pair, then G_i += gamma phi'(c) grad_i d (Alg. 2
/// line 10) on free rows, and for active pairs the blocks mu gamma grad_i d grad_j d^T (line 11,
/// the exact curvature: inactive pairs add none) for free i <= j into A's upper triangle, each
/// block found by binary search in row i. Gathers per row in ascending pair order (no atomics).
/// C's incidences must have been built for this active set (alcg_alContact_incidence).
/// @param[in,out] C        scratch (d_coef; d_count[1] counts blocks A lacks)
/// @param[in,out] d_pairs  active set; c and active written (npair == C->npair) [device]
/// @param[in]     npair    pairs
/// @param[in]     prm      parameters
/// @param[in]     d_x      linearization point X (nvert x 3) (m) [device]
/// @param[in]     d_xhat   iterate XHAT (nvert x 3) (m) [device]
/// @param[in]     d_kin    1 for a kinematic vertex (nvert) [device]: its row and column skipped
/// @param[in,out] A        matrix of nvert rows whose pattern holds every stencil block
/// @param[in,out] d_g      gradient (nvert x 3) [device]
/// @param[out]    missing  blocks of the stencils A lacks (skipped), 0 when the pattern is
///                         right [host]; synchronizes s
/// @param[in]     s        stream (last)
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL array, incidences built for another set, A of
///         another size); ALC_ERR_CUDA; with the message on s.
/// Nullable: missing (no synchronization then); the arrays when npair is 0
alctStatus alcg_alContact_assemble(alcgAlContact* C, alcgPair* d_pairs, int npair,
                                   const alcgAlParams* prm, const double* d_x, const double* d_xhat,
                                   const unsigned char* d_kin, alcgBsr* A, double* d_g,
                                   int* missing, alcgStream* s);

/// Pairs whose activity (c < lambda/mu) at pos differs from the flag of the last assembly by
/// more than prm->flipDepth past the kink (alcm_pair_flipped), as alcr_contact_flips (an
/// integer count: exact whatever the order).
/// @param[in,out] C        scratch (d_count[0])
/// @param[in]     d_pairs  active set, assembled (npair <= C->cap) [device]
/// @param[in]     npair    pairs
/// @param[in]     prm      parameters
/// @param[in]     d_x      X (nvert x 3) (m) [device]
/// @param[in]     d_pos    positions (nvert x 3) (m) [device]
/// @param[out]    flips    the count [host]; synchronizes s
/// @param[in]     s        stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
/// Nullable: the arrays when npair is 0
alctStatus alcg_alContact_flips(alcgAlContact* C, const alcgPair* d_pairs, int npair,
                                const alcgAlParams* prm, const double* d_x, const double* d_pos,
                                int* flips, alcgStream* s);

/// The slack, multiplier and decay updates at XHAT, AL paper Alg. 2 lines 20-29 as §4.2's text
/// states them, as alcr_contact_alUpdate: s = max(0, c - lambda/mu) (Eq. 14); s == 0: lambda <-
/// lambda - mu c (Eq. 13; 0 under the penalty flag), gamma <- 1; else lambda <- 0, gamma <-
/// Gamma gamma; and a pair still violated by more than delta raises its own mu
/// (alcm_pair_alUpdate, prm->pairMuGrowth). One thread per pair, no reduction.
/// @param[in,out] d_pairs  active set; lambda, gamma, c and boost updated (npair) [device]
/// @param[in]     npair    pairs
/// @param[in]     prm      parameters
/// @param[in]     d_x      X (nvert x 3) (m) [device]
/// @param[in]     d_xhat   XHAT (nvert x 3) (m) [device]
/// @param[in]     s        stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
/// Nullable: the arrays when npair is 0
alctStatus alcg_alContact_alUpdate(alcgPair* d_pairs, int npair, const alcgAlParams* prm,
                                   const double* d_x, const double* d_xhat, alcgStream* s);

/// Normal force of every pair times h^2 (IP units), AL paper Eq. 23 as alcr_contact_normalForce:
/// max(lambda, 0) after the multiplier update; under the penalty flag mu gamma (-(d - delta))_+.
/// @param[in]  d_pairs  active set (npair) [device]
/// @param[in]  npair    pairs
/// @param[in]  prm      parameters
/// @param[out] d_force  forces times h^2 (npair) [device]
/// @param[in]  s        stream (last)
/// @return ALC_OK, ALC_ERR_INVALID_ARG or ALC_ERR_CUDA, with the message on s.
/// Nullable: the arrays when npair is 0
alctStatus alcg_alContact_normalForce(const alcgPair* d_pairs, int npair, const alcgAlParams* prm,
                                      double* d_force, alcgStream* s);

#ifdef __cplusplus
}
#endif

#endif  // ALC_CUDA_AL_CONTACT_H_
