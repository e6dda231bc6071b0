// Lagged smoothed friction on the device (cuda/friction.h): AL paper Appendix A, Eq. 22-23
// (papers/barrier-free-al-elastodynamics.txt), IPC paper §5.
//
// Every per-pair quantity is one thread per pair, evaluated exactly as friction_ref.c writes it
// (the same hd/alcm_friction.h calls with the same arguments). The lag compacts the pairs that
// carry friction in active-set order (flag, exclusive scan, scatter). The assembly is a gather:
// one thread per block row i walks the friction pairs incident to vertex i in ascending
// (pair, slot) order (the incidence list is sorted by the unique keys vertex << 32 | 4 f + a),
// adding to G_i and to the blocks (i, j), j >= i, of its own row, so no two threads write one
// entry and no atomics are needed. The only atomics are integer counts (missing blocks, bad
// vertices), exact in any order.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "bsr_row.cuh"
#include "friction.h"
#include "hd/alcm_friction.h"
#include "hd/alcm_pair.h"
#include "incidence.h"
#include "reduce.cuh"
#include "thrust_shim.h"

#include <cuda_runtime.h>

#include <string.h>

/// Doubles per pair in d_qK: h^2 coef, q (3), K (9, row-major).
#define FRIC_QK 13

// ---------------------------------------------------------------------------------------------
// per-pair math (friction_ref.c's pairFriction, lagPair and loadPair, operation for operation)
// ---------------------------------------------------------------------------------------------

/// The four stencil positions of pair vertices v from pos.
static __device__ __forceinline__ void fricLoad(const double* pos, const int v[4], alcV3 x[4]) {
    for (int a = 0; a < 4; a++) x[a] = alcm_v3_load(pos + 3 * v[a]);
}

/// The tangential displacement u (2, m) of friction pair P at positions pos, from XT
/// (friction_ref.c's slipAt).
static __device__ __forceinline__ void fricSlip(const alcgFric& P, const double* d_pos,
                                                const double* d_xt, double u[2]) {
    alcV3 x[4], xt[4];
    fricLoad(d_pos, P.v, x);
    fricLoad(d_xt, P.v, xt);
    alcm_fric_u(P.w, P.T, x, xt, u);
}

/// Friction coefficient of a pair from the materials of its two sides (PT: 0 | 1; EE: 0 | 2).
static __device__ __forceinline__ double fricCoefficient(const alcgFricMaterials& mat,
                                                         const int v[4], int type) {
    int b0 = mat.d_vertBody[v[0]];
    int b1 = mat.d_vertBody[v[type == ALC_PAIR_PT ? 1 : 2]];
    double f = mat.d_matFriction[mat.d_bodyMat[b0] * mat.nmat + mat.d_bodyMat[b1]];
    return f >= 0 ? f : mat.frictionDefault;
}

/// Fill f from active pair P with normal force times h^2 `force`, as alcr_friction_lag's loop
/// body; 0 when the pair carries no friction (mu_f or F not positive, undefined normal).
static __device__ __forceinline__ int fricLagPair(const alcgPair& P, double force,
                                                  const alcgFricMaterials& mat, double ih2,
                                                  alcgFric* f) {
    if (P.type == ALC_PAIR_TETGUARD) return 0;  // a volume constraint, not a contact
    double muf = fricCoefficient(mat, P.v, P.type);
    if (!(muf > 0)) return 0;
    double F = ih2 * force;
    if (!(F > 0)) return 0;
    alcV3 n;
    if (!alcm_fric_weights(P.g, P.type == ALC_PAIR_EE, f->w, &n)) return 0;
    alcm_fric_basis(n, f->T);
    f->key = P.key;
    f->type = P.type;
    for (int a = 0; a < 4; a++) f->v[a] = P.v[a];
    f->coef = muf * F;
    return 1;
}

/// 1 when every stencil vertex of P lies in [0, nvert).
static __device__ __forceinline__ int fricStencilOk(const int v[4], int nvert) {
    int ok = 1;
    for (int a = 0; a < 4; a++) ok &= v[a] >= 0 && v[a] < nvert;
    return ok;
}

// ---------------------------------------------------------------------------------------------
// kernels
// ---------------------------------------------------------------------------------------------

/// Thread p: 1 in d_flag[p] when active pair p carries friction; a stencil vertex outside
/// [0, nvert) counts in *d_bad (the pair is dropped).
static __global__ void fric_flagKernel(const alcgPair* d_pairs, int npair, const double* d_force,
                                       alcgFricMaterials mat, double ih2, int nvert, int* d_flag,
                                       int* d_bad) {
    int p = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (p >= npair) return;
    const alcgPair& P = d_pairs[p];
    int ok = fricStencilOk(P.v, nvert);
    if (!ok) atomicAdd(d_bad, 1);
    alcgFric f;
    d_flag[p] = ok && fricLagPair(P, d_force[p], mat, ih2, &f);
}

/// Thread p: a flagged pair (its scanned slot below the next one's) written to its slot.
static __global__ void fric_writeKernel(const alcgPair* d_pairs, int npair, const double* d_force,
                                        alcgFricMaterials mat, double ih2, const int* d_slot,
                                        int total, alcgFric* d_fric) {
    int p = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (p >= npair) return;
    int slot = d_slot[p], next = p + 1 < npair ? d_slot[p + 1] : total;
    if (next == slot) return;
    alcgFric f;
    memset(&f, 0, sizeof f);
    fricLagPair(d_pairs[p], d_force[p], mat, ih2, &f);
    d_fric[slot] = f;
}

/// Thread f: h^2 coef f0(|u|) at pos; per block the sum.
static __global__ void fric_energyKernel(alcgFric* d_fric, int nfric, double eps, double h2,
                                         int secant, const double* d_xt, const double* d_pos,
                                         double* d_partial) {
    __shared__ double red[ALCG_WARP];
    int f = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double e = 0;
    if (f < nfric) {
        alcgFric& P = d_fric[f];
        double u[2];
        fricSlip(P, d_pos, d_xt, u);
        e = alcm_fric_energy(u, P.coef, eps, h2);
        // a trial that carries the pair across the cone's tip (alcm_fric_reverses)
        if (secant && alcm_fric_reverses(P.uIter, u, eps)) P.reversed = 1;
    }
    e = alcg_blockSum(e, red);
    if (threadIdx.x == 0) d_partial[blockIdx.x] = e;
}

/// Thread f: 1 in *d_count when the pair's slip at pos reverses against its last assembly.
static __global__ void fric_reversalKernel(const alcgFric* d_fric, int nfric, double eps,
                                           const double* d_xt, const double* d_pos, int* d_count) {
    int f = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (f >= nfric) return;
    const alcgFric& P = d_fric[f];
    double u[2];
    fricSlip(P, d_pos, d_xt, u);
    if (alcm_fric_reverses(P.uIter, u, eps)) atomicAdd(d_count, 1);
}

/// Thread f: s = h^2 coef, q and K at XHAT (alcr_friction_assemble's per-pair part): the secant
/// stiffness for a pair marked reversed; the mark cleared, u kept, the secant pairs counted.
static __global__ void fric_qKKernel(alcgFric* d_fric, int nfric, double eps, double h2, int secant,
                                     const double* d_xt, const double* d_xhat, double* d_qK,
                                     int* d_nsecant) {
    int f = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (f >= nfric) return;
    alcgFric& P = d_fric[f];
    double u[2];
    fricSlip(P, d_xhat, d_xt, u);
    alcV3 q = alcm_fric_q(u, P.T, eps);
    int sec = secant && P.reversed;
    alcM3 K = sec ? alcm_fric_Ksecant(u, P.T, eps) : alcm_fric_K(u, P.T, eps);
    if (sec) atomicAdd(d_nsecant, 1);
    P.reversed = 0;
    P.uIter[0] = u[0];
    P.uIter[1] = u[1];
    double* o = d_qK + FRIC_QK * (size_t)f;
    o[0] = h2 * P.coef;
    o[1] = q.x;
    o[2] = q.y;
    o[3] = q.z;
    for (int k = 0; k < 9; k++) o[4 + k] = K.m[k];
}

/// Thread i (a free row): G_i += s w_a q and the blocks s w_a w_b K of the free columns j >= i,
/// pairs and slots in ascending order; blocks the pattern lacks count in *d_missing.
static __global__ void fric_gatherKernel(const alcgFric* d_fric, const double* d_qK,
                                         const int* d_vpAdr, const int* d_vpList,
                                         const unsigned char* d_kin, int nvert, alcgBsr A,
                                         double* d_g, int* d_missing) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= nvert || d_kin[i]) return;
    int q0 = d_vpAdr[i], q1 = d_vpAdr[i + 1];
    if (q0 == q1) return;
    double g0 = d_g[3 * i], g1 = d_g[3 * i + 1], g2 = d_g[3 * i + 2];
    int missing = 0;
    for (int q = q0; q < q1; q++) {
        int f = d_vpList[q] >> 2, a = d_vpList[q] & 3;
        const alcgFric* P = &d_fric[f];
        const double* o = d_qK + FRIC_QK * (size_t)f;
        double s = o[0], wa = P->w[a];
        g0 += s * wa * o[1];
        g1 += s * wa * o[2];
        g2 += s * wa * o[3];
        for (int b = 0; b < 4; b++) {
            int j = P->v[b];
            if (j < i || d_kin[j]) continue;
            int blk = alcg_bsr_findBlock(A, i, j);
            if (blk < 0) {
                missing++;
                continue;
            }
            double c = s * wa * P->w[b];
            double* dst = A.d_val + 9 * (size_t)blk;
            for (int k = 0; k < 9; k++) dst[k] += c * o[4 + k];
        }
    }
    d_g[3 * i] = g0;
    d_g[3 * i + 1] = g1;
    d_g[3 * i + 2] = g2;
    if (missing) atomicAdd(d_missing, missing);
}

// ---------------------------------------------------------------------------------------------
// wrappers
// ---------------------------------------------------------------------------------------------

extern "C" void alcg_friction_free(alcgFriction* F) {
    if (!F) return;
    alcg_free(F->d_vpAdr);
    alcg_free(F->d_vpList);
    alcg_free(F->d_keys);
    alcg_free(F->d_temp);
    alcg_free(F->d_slot);
    alcg_free(F->d_force);
    alcg_free(F->d_qK);
    alcg_free(F->d_red);
    alcg_free(F->d_scalar);
    alcg_free(F->d_count);
    memset(F, 0, sizeof *F);
}

extern "C" size_t alcg_friction_bytes(const alcgFriction* F) {
    if (!F) return 0;
    size_t cap = (size_t)F->cap, nb = alcg_blocks(F->cap, ALCG_BLOCK);
    return sizeof(int) * ((size_t)F->nvert + 1) +
           (sizeof(int) + sizeof(unsigned long long)) * 4 * cap + F->tempBytes + sizeof(int) * cap +
           sizeof(double) * ((1 + FRIC_QK) * cap + nb + 1) + sizeof(int) * 4;
}

/// The sizes of alcg_friction_make (one scratch for the key sort and the lag's scan, never
/// live at once). F zeroed first.
static alctStatus planFriction(alcgFriction* F, int nvert, int cap, alcgStream* s) {
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!F) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL scratch");
    memset(F, 0, sizeof *F);
    if (nvert < 0 || cap < 0 || cap > (1 << 28)) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad size: nvert %d, cap %d", nvert, cap);
    }
    F->nvert = nvert;
    F->cap = cap;
    F->nfric = -1;
    size_t sortBytes = 0, scanBytes = 0;
    alctStatus st =
        alcg_incidence_build(NULL, 0, cap, nvert, NULL, NULL, NULL, NULL, NULL, &sortBytes, s);
    if (st == ALC_OK) st = alcg_exclusiveScanI32(NULL, NULL, cap, NULL, NULL, &scanBytes, s);
    F->tempBytes = sortBytes > scanBytes ? sortBytes : scanBytes;
    return st;
}

extern "C" alctStatus alcg_friction_need(int nvert, int cap, size_t* bytes, alcgStream* s) {
    alcgFriction probe;
    *bytes = 0;
    alctStatus st = planFriction(&probe, nvert, cap, s);
    if (st == ALC_OK) *bytes = alcg_friction_bytes(&probe);
    return st;
}

extern "C" alctStatus alcg_friction_make(alcgFriction* F, int nvert, int cap, alcgStream* s) {
    ALCG_RANGE("alcg_friction_make");
    alctStatus st = planFriction(F, nvert, cap, s);
    if (st != ALC_OK) return st;
    size_t nkey = 4 * (size_t)cap, nb = alcg_blocks(cap, ALCG_BLOCK);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&F->d_vpAdr, sizeof(int) * ((size_t)nvert + 1));
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&F->d_vpList, sizeof(int) * nkey);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&F->d_keys, sizeof(unsigned long long) * nkey);
    if (st == ALC_OK) st = alcg_malloc(s, &F->d_temp, F->tempBytes);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&F->d_slot, sizeof(int) * (size_t)cap);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&F->d_force, sizeof(double) * (size_t)cap);
    if (st == ALC_OK) {
        st = alcg_malloc(s, (void**)&F->d_qK, sizeof(double) * FRIC_QK * (size_t)cap);
    }
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&F->d_red, sizeof(double) * nb);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&F->d_scalar, sizeof(double));
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&F->d_count, sizeof(int) * 4);
    if (st != ALC_OK) {
        alcg_friction_free(F);
        return st;
    }
    return ALC_OK;
}

extern "C" alctStatus alcg_friction_incidence(alcgFriction* F, const alcgFric* d_fric, int nfric,
                                              alcgStream* s) {
    ALCG_RANGE("alcg_friction_incidence");
    alctStatus st;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!F || nfric < 0 || (nfric > 0 && !d_fric)) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument or negative size");
    }
    if (nfric > F->cap) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d friction pairs exceed the capacity %d", nfric,
                         F->cap);
    }
    F->nfric = -1;
    // the incidences by vertex, then pair and slot; out-of-range vertices counted in d_count[1]
    {
        size_t tb = F->tempBytes;
        st = alcg_incidence_build(d_fric ? d_fric->v : NULL, sizeof(alcgFric) / sizeof(int), nfric,
                                  F->nvert, F->d_vpAdr, F->d_vpList, F->d_keys, F->d_count + 1,
                                  F->d_temp, &tb, s);
        if (st != ALC_OK) return st;
    }
    F->nfric = nfric;
    return ALC_OK;
}

extern "C" alctStatus alcg_friction_lag(alcgFriction* F, const alcgPair* d_pairs, int npair,
                                        const alcgAlParams* prm, const alcgFricParams* fp,
                                        const alcgFricMaterials* mat, alcgFric* d_fric, int* nfric,
                                        alcgStream* s) {
    ALCG_RANGE("alcg_friction_lag");
    int total = 0, bad = 0;
    double ih2;
    alctStatus st;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!F || !prm || !fp || !mat || !nfric) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    }
    *nfric = 0;
    if (npair < 0) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "negative pair count %d", npair);
    if (npair > F->cap) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d pairs exceed the capacity %d", npair, F->cap);
    }
    if (!(fp->h > 0)) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "time step %g", fp->h);
    // no previous step (mu not positive): nothing lagged, as the reference
    if (npair == 0 || !(prm->mu > 0)) return alcg_friction_incidence(F, NULL, 0, s);
    if (!d_pairs || !d_fric || !mat->d_vertBody || !mat->d_bodyMat || !mat->d_matFriction) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL array");
    }
    ih2 = 1.0 / (fp->h * fp->h);
    // normal forces of Eq. 23 with the previous step's parameters
    st = alcg_alContact_normalForce(d_pairs, npair, prm, F->d_force, s);
    if (st != ALC_OK) return st;
    // flags, their exclusive scan, the flagged pairs to their slots (active-set order)
    st = alcg_memset(s, F->d_count + 1, 0, sizeof(int));
    if (st != ALC_OK) return st;
    ALCG_LAUNCH(fric_flagKernel, alcg_blocks(npair, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, d_pairs,
                npair, (const double*)F->d_force, *mat, ih2, F->nvert, F->d_slot, F->d_count + 1);
    ALCG_LAUNCH_CHECK(s);
    st = alcg_download(s, &bad, F->d_count + 1, sizeof(int));
    if (st != ALC_OK) return st;
    if (bad) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "%d stencil vertices outside [0, %d)", bad,
                         F->nvert);
    }
    {
        size_t tb = F->tempBytes;
        st = alcg_exclusiveScanI32(F->d_slot, F->d_slot, npair, &total, F->d_temp, &tb, s);
        if (st != ALC_OK) return st;
    }
    ALCG_LAUNCH(fric_writeKernel, alcg_blocks(npair, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, d_pairs,
                npair, (const double*)F->d_force, *mat, ih2, (const int*)F->d_slot, total, d_fric);
    ALCG_LAUNCH_CHECK(s);
    // the incidences of the new set
    st = alcg_friction_incidence(F, d_fric, total, s);
    if (st != ALC_OK) return st;
    *nfric = total;
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_friction_energy(alcgFriction* F, alcgFric* d_fric, int nfric,
                                           const alcgFricParams* fp, const double* d_xt,
                                           const double* d_pos, double* energy, alcgStream* s) {
    ALCG_RANGE("alcg_friction_energy");
    unsigned nblock = 0;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!F || !fp) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    if (nfric < 0) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "negative pair count %d", nfric);
    if (nfric > F->cap) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d friction pairs exceed the capacity %d", nfric,
                         F->cap);
    }
    if (nfric == 0) {
        if (energy) *energy = 0;
        return alcg_memset(s, F->d_scalar, 0, sizeof(double));
    }
    if (!d_fric || !d_xt || !d_pos) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL array");
    {
        // the reference's eps and h^2, in its order
        double eps = fp->frictionEpsV * fp->h, h2 = fp->h * fp->h;
        // per-block sums, then one block over them
        nblock = alcg_blocks(nfric, ALCG_BLOCK);
        ALCG_LAUNCH(fric_energyKernel, nblock, ALCG_BLOCK, 0, s->stream, d_fric, nfric, eps, h2,
                    fp->secant, d_xt, d_pos, F->d_red);
        ALCG_LAUNCH_CHECK(s);
        ALCG_LAUNCH(alcg_sumPartialsKernel<double>, 1, ALCG_BLOCK, 0, s->stream,
                    (const double*)F->d_red, (int)nblock, F->d_scalar);
        ALCG_LAUNCH_CHECK(s);
    }
    if (energy) return alcg_download(s, energy, F->d_scalar, sizeof(double));
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_friction_reversals(alcgFriction* F, const alcgFric* d_fric, int nfric,
                                              const alcgFricParams* fp, const double* d_xt,
                                              const double* d_pos, int* count, alcgStream* s) {
    ALCG_RANGE("alcg_friction_reversals");
    alctStatus st;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!F || !fp || !count) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    *count = 0;
    if (nfric < 0) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "negative pair count %d", nfric);
    if (nfric > F->cap) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d friction pairs exceed the capacity %d", nfric,
                         F->cap);
    }
    if (nfric == 0) return ALC_OK;
    if (!d_fric || !d_xt || !d_pos) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL array");
    st = alcg_memset(s, F->d_count + 3, 0, sizeof(int));
    if (st != ALC_OK) return st;
    ALCG_LAUNCH(fric_reversalKernel, alcg_blocks(nfric, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                d_fric, nfric, fp->frictionEpsV * fp->h, d_xt, d_pos, F->d_count + 3);
    ALCG_LAUNCH_CHECK(s);
    return alcg_download(s, count, F->d_count + 3, sizeof(int));
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_friction_assemble(alcgFriction* F, alcgFric* d_fric, int nfric,
                                             const alcgFricParams* fp, const double* d_xt,
                                             const double* d_xhat, const unsigned char* d_kin,
                                             alcgBsr* A, double* d_g, int* missing, int* nsecant,
                                             alcgStream* s) {
    ALCG_RANGE("alcg_friction_assemble");
    alctStatus st;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!F || !fp || !A) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    if (F->nfric != nfric) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "incidences built for %d friction pairs, not %d",
                         F->nfric, nfric);
    }
    if (A->n != F->nvert) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "matrix of %d rows for %d vertices", A->n,
                         F->nvert);
    }
    if (missing) *missing = 0;
    if (nsecant) *nsecant = 0;
    if (nfric == 0) return ALC_OK;
    if (!d_fric || !d_xt || !d_xhat || !d_kin || !d_g) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL array");
    }
    // [0] missing blocks and [2] secant pairs, cleared together ([1] is cleared where it is used)
    st = alcg_memset(s, F->d_count, 0, sizeof(int) * 3);
    if (st != ALC_OK) return st;
    {
        double eps = fp->frictionEpsV * fp->h, h2 = fp->h * fp->h;
        // per pair s, q and K; then per row the gather
        ALCG_LAUNCH(fric_qKKernel, alcg_blocks(nfric, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, d_fric,
                    nfric, eps, h2, fp->secant, d_xt, d_xhat, F->d_qK, F->d_count + 2);
        ALCG_LAUNCH_CHECK(s);
        ALCG_LAUNCH(fric_gatherKernel, alcg_blocks(F->nvert, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                    d_fric, (const double*)F->d_qK, (const int*)F->d_vpAdr, (const int*)F->d_vpList,
                    d_kin, F->nvert, *A, d_g, F->d_count);
        ALCG_LAUNCH_CHECK(s);
    }
    if (missing || nsecant) {
        // both counts in one read (one synchronization)
        int counts[3];
        st = alcg_download(s, counts, F->d_count, sizeof counts);
        if (st != ALC_OK) return st;
        if (missing) *missing = counts[0];
        if (nsecant) *nsecant = counts[2];
    }
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
