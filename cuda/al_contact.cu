// The augmented Lagrangian contact terms on the device (cuda/al_contact.h): AL paper Eq. 10-14,
// Alg. 2 lines 8-11 and 20-29, Eq. 23 (papers/barrier-free-al-elastodynamics.txt).
//
// Every per-pair quantity is one thread per pair, evaluated exactly as contact_ref.c writes it
// (the same operations in the same order). The assembly is a gather: one thread per block row i
// walks the pairs incident to vertex i in ascending pair order (the incidence list is sorted by
// the unique keys vertex << 32 | 4 p + a), adding to G_i and to the blocks (i, j), j >= i, of its
// own row, so no two threads write one entry and no atomics are needed. The only atomics are
// integer counts (flips, missing blocks, bad vertices), exact in any order.
#include "al_contact.h"
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "bsr_row.cuh"
#include "incidence.h"
#include "reduce.cuh"

#include <cuda_runtime.h>

#include <string.h>

// ---------------------------------------------------------------------------------------------
// per-pair math (contact_ref.c's constraintAt and phi, operation for operation)
// ---------------------------------------------------------------------------------------------

/// c(pos) = d + grad d . (pos - x) - delta, AL paper Eq. 10.
static __device__ __forceinline__ double alConstraint(const alcgPair& P, double delta,
                                                      const double* pos, const double* x) {
    double c = P.d - delta;
    for (int a = 0; a < 4; a++) {
        const double* q = pos + 3 * P.v[a];
        const double* xa = x + 3 * P.v[a];
        for (int k = 0; k < 3; k++) c += P.g[3 * a + k] * (q[k] - xa[k]);
    }
    return c;
}

/// The multiplier as the terms read it (zero under the penalty flag).
static __device__ __forceinline__ double alLambda(const alcgPair& P, const alcgAlParams& prm) {
    return prm.penalty ? 0 : P.lambda;
}

/// gamma phi(c) and gamma phi'(c), the slack-eliminated augmented term of Eq. 12.
static __device__ __forceinline__ double alPhi(const alcgPair& P, const alcgAlParams& prm, double c,
                                               double* dphi) {
    double mu = alcm_pair_mu(&P, prm.mu), lam = alLambda(P, prm);
    if (c < lam / mu) {
        *dphi = P.gamma * (mu * c - lam);
        return P.gamma * (0.5 * mu * c * c - lam * c);
    }
    *dphi = 0;
    return -P.gamma * lam * lam / (2 * mu);
}

// ---------------------------------------------------------------------------------------------
// kernels
// ---------------------------------------------------------------------------------------------

/// Thread p: gamma phi(c) at pos; per block the sum.
static __global__ void alContact_energyKernel(const alcgPair* d_pairs, int npair, alcgAlParams prm,
                                              const double* d_x, const double* d_pos,
                                              double* d_partial) {
    __shared__ double red[ALCG_WARP];
    int p = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double e = 0;
    if (p < npair) {
        double c = alConstraint(d_pairs[p], prm.delta, d_pos, d_x), dphi;
        e = alPhi(d_pairs[p], prm, c, &dphi);
    }
    e = alcg_blockSum(e, red);
    if (threadIdx.x == 0) d_partial[blockIdx.x] = e;
}

/// Thread p: c at XHAT, the gradient coefficient gamma phi'(c) (Alg. 2 lines 8-10) and the
/// activity c < lambda/mu of the pair.
static __global__ void alContact_coefKernel(alcgPair* d_pairs, int npair, alcgAlParams prm,
                                            const double* d_x, const double* d_xhat,
                                            double* d_coef) {
    int p = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (p >= npair) return;
    alcgPair* P = &d_pairs[p];
    double c = alConstraint(*P, prm.delta, d_xhat, d_x), dphi;
    alPhi(*P, prm, c, &dphi);
    P->c = c;
    P->active = c < alLambda(*P, prm) / alcm_pair_mu(P, prm.mu);
    d_coef[p] = dphi;
}

/// Thread i (a free row): G_i += gamma phi' grad_i d, and for active pairs the blocks
/// mu gamma grad_i d grad_j d^T of the free columns j >= i (Alg. 2 lines 10-11), pairs in
/// ascending order; blocks the pattern lacks count in *d_missing.
static __global__ void alContact_gatherKernel(const alcgPair* d_pairs, const double* d_coef,
                                              const int* d_vpAdr, const int* d_vpList,
                                              const unsigned char* d_kin, int nvert, double mu,
                                              alcgBsr A, double* d_g, int* d_missing) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= nvert || d_kin[i]) return;
    int q0 = d_vpAdr[i], q1 = d_vpAdr[i + 1];
    if (q0 == q1) return;
    double g0 = d_g[3 * i], g1 = d_g[3 * i + 1], g2 = d_g[3 * i + 2];
    int missing = 0;
    for (int q = q0; q < q1; q++) {
        int p = d_vpList[q] >> 2, a = d_vpList[q] & 3;
        const alcgPair* P = &d_pairs[p];
        const double* ga = P->g + 3 * a;
        double cf = d_coef[p];
        g0 += cf * ga[0];
        g1 += cf * ga[1];
        g2 += cf * ga[2];
        // the exact curvature: only pairs active at the iterate (contact_ref.c's file comment)
        if (!P->active) continue;
        double s = alcm_pair_mu(P, mu) * P->gamma;
        for (int b = 0; b < 4; b++) {
            int j = P->v[b];
            if (j < i || d_kin[j]) continue;
            int blk = alcg_bsr_findBlock(A, i, j);
            if (blk < 0) {
                missing++;
                continue;
            }
            double* dst = A.d_val + 9 * blk;
            const double* gb = P->g + 3 * b;
            for (int k = 0; k < 3; k++) {
                for (int l = 0; l < 3; l++) dst[3 * k + l] += s * ga[k] * gb[l];
            }
        }
    }
    d_g[3 * i] = g0;
    d_g[3 * i + 1] = g1;
    d_g[3 * i + 2] = g2;
    if (missing) atomicAdd(d_missing, missing);
}

/// Thread p: 1 in *d_flips when the pair crossed its kink at pos (alcm_pair_flipped).
static __global__ void alContact_flipsKernel(const alcgPair* d_pairs, int npair, alcgAlParams prm,
                                             const double* d_x, const double* d_pos, int* d_flips) {
    int p = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (p >= npair) return;
    const alcgPair& P = d_pairs[p];
    double c = alConstraint(P, prm.delta, d_pos, d_x);
    if (alcm_pair_flipped(c, alLambda(P, prm) / alcm_pair_mu(&P, prm.mu), P.active,
                          prm.flipDepth)) {
        atomicAdd(d_flips, 1);
    }
}

/// Thread p: Alg. 2 lines 20-29 as §4.2's text states them (see alcr_contact_alUpdate).
static __global__ void alContact_updateKernel(alcgPair* d_pairs, int npair, alcgAlParams prm,
                                              const double* d_x, const double* d_xhat) {
    int p = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (p >= npair) return;
    alcgPair* P = &d_pairs[p];
    alcm_pair_alUpdate(P, alConstraint(*P, prm.delta, d_xhat, d_x), prm.mu, prm.penalty, prm.decay,
                       prm.delta, prm.pairMuGrowth, prm.pairMuMax, prm.lambdaCredit);
}

/// Thread p: the normal force times h^2 (Eq. 23 as alcr_contact_normalForce).
static __global__ void alContact_forceKernel(const alcgPair* d_pairs, int npair, alcgAlParams prm,
                                             double* d_force) {
    int p = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (p >= npair) return;
    const alcgPair& P = d_pairs[p];
    double f = alcm_pair_normalForce(P.lambda, P.gamma, P.d, prm.penalty, prm.mu, prm.delta);
    d_force[p] = f;
}

// ---------------------------------------------------------------------------------------------
// wrappers
// ---------------------------------------------------------------------------------------------

/// Common argument checks of the per-pair wrappers.
static alctStatus checkPairs(const alcgPair* d_pairs, int npair, const alcgAlParams* prm,
                             alcgStream* s) {
    if (!prm) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL parameters");
    if (npair < 0) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "negative pair count %d", npair);
    if (npair > 0 && !d_pairs) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL pairs");
    if (npair > 0 && !(prm->mu > 0)) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "mu %g is not positive", prm->mu);
    }
    return ALC_OK;
}

extern "C" void alcg_alContact_free(alcgAlContact* C) {
    if (!C) return;
    alcg_free(C->d_vpAdr);
    alcg_free(C->d_vpList);
    alcg_free(C->d_keys);
    alcg_free(C->d_sortTemp);
    alcg_free(C->d_coef);
    alcg_free(C->d_red);
    alcg_free(C->d_scalar);
    alcg_free(C->d_count);
    memset(C, 0, sizeof *C);
}

extern "C" size_t alcg_alContact_bytes(const alcgAlContact* C) {
    if (!C) return 0;
    size_t cap = (size_t)C->cap, nb = alcg_blocks(C->cap, ALCG_BLOCK);
    return sizeof(int) * ((size_t)C->nvert + 1) +
           (sizeof(int) + sizeof(unsigned long long)) * 4 * cap + C->sortBytes +
           sizeof(double) * (cap + nb + 1) + sizeof(int) * 2;
}

/// The sizes of alcg_alContact_make (the incidence sort's scratch). C zeroed first.
static alctStatus planAlContact(alcgAlContact* C, int nvert, int cap, alcgStream* s) {
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!C) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL scratch");
    memset(C, 0, sizeof *C);
    if (nvert < 0 || cap < 0 || cap > (1 << 28)) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad size: nvert %d, cap %d", nvert, cap);
    }
    C->nvert = nvert;
    C->cap = cap;
    C->npair = -1;
    return alcg_incidence_build(NULL, 0, cap, nvert, NULL, NULL, NULL, NULL, NULL, &C->sortBytes,
                                s);
}

extern "C" alctStatus alcg_alContact_need(int nvert, int cap, size_t* bytes, alcgStream* s) {
    alcgAlContact probe;
    *bytes = 0;
    alctStatus st = planAlContact(&probe, nvert, cap, s);
    if (st == ALC_OK) *bytes = alcg_alContact_bytes(&probe);
    return st;
}

extern "C" alctStatus alcg_alContact_make(alcgAlContact* C, int nvert, int cap, alcgStream* s) {
    ALCG_RANGE("alcg_alContact_make");
    alctStatus st = planAlContact(C, nvert, cap, s);
    if (st != ALC_OK) return st;
    size_t nkey = 4 * (size_t)cap, nb = alcg_blocks(cap, ALCG_BLOCK);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&C->d_vpAdr, sizeof(int) * ((size_t)nvert + 1));
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&C->d_vpList, sizeof(int) * nkey);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&C->d_keys, sizeof(unsigned long long) * nkey);
    if (st == ALC_OK) st = alcg_malloc(s, &C->d_sortTemp, C->sortBytes);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&C->d_coef, sizeof(double) * (size_t)cap);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&C->d_red, sizeof(double) * nb);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&C->d_scalar, sizeof(double));
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&C->d_count, sizeof(int) * 2);
    if (st != ALC_OK) {
        alcg_alContact_free(C);
        return st;
    }
    return ALC_OK;
}

extern "C" alctStatus alcg_alContact_incidence(alcgAlContact* C, const alcgPair* d_pairs, int npair,
                                               alcgStream* s) {
    ALCG_RANGE("alcg_alContact_incidence");
    alctStatus st;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!C || npair < 0 || (npair > 0 && !d_pairs)) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument or negative size");
    }
    if (npair > C->cap) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d pairs exceed the capacity %d", npair, C->cap);
    }
    C->npair = -1;
    // the incidences by vertex, then pair; out-of-range vertices counted in d_count[1]
    {
        size_t tb = C->sortBytes;
        st = alcg_incidence_build(d_pairs ? d_pairs->v : NULL, sizeof(alcgPair) / sizeof(int),
                                  npair, C->nvert, C->d_vpAdr, C->d_vpList, C->d_keys,
                                  C->d_count + 1, C->d_sortTemp, &tb, s);
        if (st != ALC_OK) return st;
    }
    C->npair = npair;
    return ALC_OK;
}

extern "C" alctStatus alcg_alContact_energy(alcgAlContact* C, const alcgPair* d_pairs, int npair,
                                            const alcgAlParams* prm, const double* d_x,
                                            const double* d_pos, double* energy, alcgStream* s) {
    ALCG_RANGE("alcg_alContact_energy");
    unsigned nblock = 0;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!C) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL scratch");
    alctStatus st = checkPairs(d_pairs, npair, prm, s);
    if (st != ALC_OK) return st;
    if (npair > C->cap) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d pairs exceed the capacity %d", npair, C->cap);
    }
    if (npair > 0 && (!d_x || !d_pos)) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL vector");
    if (npair == 0) {
        if (energy) *energy = 0;
        return alcg_memset(s, C->d_scalar, 0, sizeof(double));
    }
    // per-block sums, then one block over them
    nblock = alcg_blocks(npair, ALCG_BLOCK);
    ALCG_LAUNCH(alContact_energyKernel, nblock, ALCG_BLOCK, 0, s->stream, d_pairs, npair, *prm, d_x,
                d_pos, C->d_red);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(alcg_sumPartialsKernel<double>, 1, ALCG_BLOCK, 0, s->stream, C->d_red, (int)nblock,
                C->d_scalar);
    ALCG_LAUNCH_CHECK(s);
    if (energy) return alcg_download(s, energy, C->d_scalar, sizeof(double));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_alContact_assemble(alcgAlContact* C, alcgPair* d_pairs, int npair,
                                              const alcgAlParams* prm, const double* d_x,
                                              const double* d_xhat, const unsigned char* d_kin,
                                              alcgBsr* A, double* d_g, int* missing,
                                              alcgStream* s) {
    ALCG_RANGE("alcg_alContact_assemble");
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!C || !A) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    alctStatus st = checkPairs(d_pairs, npair, prm, s);
    if (st != ALC_OK) return st;
    if (C->npair != npair) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "incidences built for %d pairs, not %d", C->npair,
                         npair);
    }
    if (A->n != C->nvert) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "matrix of %d rows for %d vertices", A->n,
                         C->nvert);
    }
    if (missing) *missing = 0;
    if (npair == 0) return ALC_OK;
    if (!d_x || !d_xhat || !d_kin || !d_g) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL vector");
    st = alcg_memset(s, C->d_count + 1, 0, sizeof(int));
    if (st != ALC_OK) return st;
    // per pair c, activity and gradient coefficient; then per row the gather
    ALCG_LAUNCH(alContact_coefKernel, alcg_blocks(npair, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                d_pairs, npair, *prm, d_x, d_xhat, C->d_coef);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(alContact_gatherKernel, alcg_blocks(C->nvert, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                (const alcgPair*)d_pairs, (const double*)C->d_coef, (const int*)C->d_vpAdr,
                (const int*)C->d_vpList, d_kin, C->nvert, prm->mu, *A, d_g, C->d_count + 1);
    ALCG_LAUNCH_CHECK(s);
    if (missing) return alcg_download(s, missing, C->d_count + 1, sizeof(int));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_alContact_flips(alcgAlContact* C, const alcgPair* d_pairs, int npair,
                                           const alcgAlParams* prm, const double* d_x,
                                           const double* d_pos, int* flips, alcgStream* s) {
    ALCG_RANGE("alcg_alContact_flips");
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!C || !flips) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    alctStatus st = checkPairs(d_pairs, npair, prm, s);
    if (st != ALC_OK) return st;
    *flips = 0;
    if (npair == 0) return ALC_OK;
    if (!d_x || !d_pos) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL vector");
    st = alcg_memset(s, C->d_count, 0, sizeof(int));
    if (st != ALC_OK) return st;
    ALCG_LAUNCH(alContact_flipsKernel, alcg_blocks(npair, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                d_pairs, npair, *prm, d_x, d_pos, C->d_count);
    ALCG_LAUNCH_CHECK(s);
    return alcg_download(s, flips, C->d_count, sizeof(int));
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_alContact_alUpdate(alcgPair* d_pairs, int npair, const alcgAlParams* prm,
                                              const double* d_x, const double* d_xhat,
                                              alcgStream* s) {
    ALCG_RANGE("alcg_alContact_alUpdate");
    if (!s) return ALC_ERR_INVALID_ARG;
    alctStatus st = checkPairs(d_pairs, npair, prm, s);
    if (st != ALC_OK) return st;
    if (npair == 0) return ALC_OK;
    if (!d_x || !d_xhat) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL vector");
    ALCG_LAUNCH(alContact_updateKernel, alcg_blocks(npair, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                d_pairs, npair, *prm, d_x, d_xhat);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_alContact_normalForce(const alcgPair* d_pairs, int npair,
                                                 const alcgAlParams* prm, double* d_force,
                                                 alcgStream* s) {
    ALCG_RANGE("alcg_alContact_normalForce");
    if (!s) return ALC_ERR_INVALID_ARG;
    alctStatus st = checkPairs(d_pairs, npair, prm, s);
    if (st != ALC_OK) return st;
    if (npair == 0) return ALC_OK;
    if (!d_force) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL output");
    ALCG_LAUNCH(alContact_forceKernel, alcg_blocks(npair, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                d_pairs, npair, *prm, d_force);
    ALCG_LAUNCH_CHECK(s);
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
