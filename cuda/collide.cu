// The collision stage of the AL step on the device (collide.h): LBVH broad phase, narrow phase
// and Algorithm 3, with their buffers, grown and redone on overflow.
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "bvh.h"
#include "ccd_narrow.h"
#include "collide.h"

#include <cuda_runtime.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct alcgCollide_ {
    alcgSurface surf;
    alcgBvh* bvh;
    int ptCap, eeCap;      // broad-phase buffers (pairs)
    int* d_bpPT;           // (ptCap x 2)
    int* d_bpEE;           // (eeCap x 2)
    double* d_toi;         // per candidate (ptCap + eeCap)
    double* d_reach;       // per candidate (ptCap + eeCap)
    alcgCand* d_cand;      // pairs within reach (ptCap + eeCap): never overflows
    int ncand;             // pairs within reach of the last collect
    int lastNpt, lastNee;  // PT and EE candidates of the last collect (alcg_collide_blocking)
    int pairCap;           // active set capacity
    alcgPair* d_pairs;     // active set (pairCap)
    alcgPair* d_next;      // merge output (pairCap)
    int npair;
    void* d_temp;  // scratch shared by the phases
    size_t tempBytes;
};

/// Make sure the scratch holds `need` bytes (contents are not kept).
static alctStatus reserveTemp(alcgCollide* c, size_t need, alcgStream* s) {
    if (need <= c->tempBytes) return ALC_OK;
    alcg_free(c->d_temp);
    c->d_temp = NULL;
    c->tempBytes = 0;
    alctStatus st = alcg_malloc(s, &c->d_temp, need);
    if (st != ALC_OK) return st;
    c->tempBytes = need;
    return ALC_OK;
}

/// The scratch every phase needs at full capacity: the broad-phase queries (candCap pairs
/// each), the narrow phase over both buffers and the merge of a full active set with every
/// candidate. A buffer growth later sizes it again.
static alctStatus scratchNeed(int nvert, int candCap, int pairCap, size_t* bytes, alcgStream* s) {
    size_t q = 0, nar = 0, mer = 0;
    alcgCcdNarrowIn nin;
    memset(&nin, 0, sizeof nin);
    nin.npt = candCap;
    nin.nee = candCap;
    alctStatus st = alcg_bvh_queryPT(NULL, NULL, candCap, NULL, NULL, NULL, &q, s);
    if (st == ALC_OK) {
        st = alcg_ccdNarrow_collect(&nin, NULL, NULL, NULL, 2 * candCap, NULL, NULL, NULL, &nar, s);
    }
    if (st == ALC_OK) {
        st = alcg_activeSet_merge(NULL, pairCap, NULL, 2 * candCap, nvert, 0, NULL, pairCap, NULL,
                                  NULL, NULL, &mer, s);
    }
    *bytes = q > nar ? q : nar;
    if (mer > *bytes) *bytes = mer;
    return st;
}

/// (Re)allocate one broad-phase buffer for cap pairs (isEE: the edge-edge one; the other keeps
/// its contents) and the narrow-phase buffers for both (their contents are not kept).
static alctStatus allocCandidates(alcgCollide* c, int isEE, int cap, alcgStream* s) {
    int ptCap = isEE ? c->ptCap : cap, eeCap = isEE ? cap : c->eeCap;
    size_t n = (size_t)ptCap + (size_t)eeCap;
    int** bp = isEE ? &c->d_bpEE : &c->d_bpPT;
    int* oldCap = isEE ? &c->eeCap : &c->ptCap;
    alcg_free(*bp);
    alcg_free(c->d_toi);
    alcg_free(c->d_reach);
    alcg_free(c->d_cand);
    *bp = NULL;
    c->d_toi = c->d_reach = NULL;
    c->d_cand = NULL;
    *oldCap = 0;
    alctStatus st = alcg_malloc(s, (void**)bp, sizeof(int) * 2 * (size_t)cap);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&c->d_toi, sizeof(double) * n);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&c->d_reach, sizeof(double) * n);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&c->d_cand, sizeof(alcgCand) * n);
    if (st != ALC_OK) return st;
    *oldCap = cap;
    return ALC_OK;
}

/// (Re)allocate the active-set buffers for cap pairs, keeping the current set.
static alctStatus allocPairs(alcgCollide* c, int cap, alcgStream* s) {
    alcgPair *a = NULL, *b = NULL;
    alctStatus st = alcg_malloc(s, (void**)&a, sizeof(alcgPair) * (size_t)cap);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&b, sizeof(alcgPair) * (size_t)cap);
    if (st == ALC_OK && c->npair > 0) {
        ALCG_CUDA_TRY(s, cudaMemcpyAsync(a, c->d_pairs, sizeof(alcgPair) * (size_t)c->npair,
                                         cudaMemcpyDeviceToDevice, (cudaStream_t)s->stream));
    }
    if (st != ALC_OK) {
        alcg_free(a);
        alcg_free(b);
        return st;
    }
    alcg_free(c->d_pairs);
    alcg_free(c->d_next);
    c->d_pairs = a;
    c->d_next = b;
    c->pairCap = cap;
    return ALC_OK;
fail:
    alcg_free(a);
    alcg_free(b);
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_collide_make(const alcgSurface* surf, int candCap, int pairCap,
                                        alcgCollide** out, alcgStream* s) {
    if (!surf || !out || candCap <= 0 || pairCap <= 0) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad arguments (candCap %d, pairCap %d)", candCap,
                         pairCap);
    }
    *out = NULL;
    alcgCollide* c = (alcgCollide*)calloc(1, sizeof(alcgCollide));
    if (!c) return ALC_ERR_NOMEM;
    c->surf = *surf;
    alctStatus st = alcg_bvh_make(surf->nsvert, surf->nedge, surf->ntri, &c->bvh, s);
    // both broad-phase buffers and the narrow-phase ones for both, in one go (allocating them
    // one buffer at a time, as a growth does, would leave a hole in the arena)
    size_t n = 2 * (size_t)candCap;
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&c->d_bpPT, sizeof(int) * 2 * (size_t)candCap);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&c->d_bpEE, sizeof(int) * 2 * (size_t)candCap);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&c->d_toi, sizeof(double) * n);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&c->d_reach, sizeof(double) * n);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&c->d_cand, sizeof(alcgCand) * n);
    if (st == ALC_OK) c->ptCap = c->eeCap = candCap;
    if (st == ALC_OK) st = allocPairs(c, pairCap, s);
    size_t temp = 0;
    if (st == ALC_OK) st = scratchNeed(surf->nvert, candCap, pairCap, &temp, s);
    if (st == ALC_OK) st = reserveTemp(c, temp, s);
    if (st != ALC_OK) {
        alcg_collide_free(c);
        return st;
    }
    *out = c;
    return ALC_OK;
}

extern "C" alctStatus alcg_collide_need(const alcgSurface* surf, int candCap, int pairCap,
                                        size_t* bytes, alcgStream* s) {
    *bytes = 0;
    if (!surf || candCap <= 0 || pairCap <= 0) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad arguments (candCap %d, pairCap %d)", candCap,
                         pairCap);
    }
    size_t bvh = 0, temp = 0;
    alctStatus st = alcg_bvh_need(surf->nsvert, surf->nedge, surf->ntri, &bvh, s);
    if (st == ALC_OK) st = scratchNeed(surf->nvert, candCap, pairCap, &temp, s);
    if (st != ALC_OK) return st;
    // two broad-phase buffers, the narrow-phase buffers of both, the active set and its merge
    // output (allocCandidates, allocPairs), the scratch
    size_t cand = (size_t)candCap;
    *bytes = bvh + temp + 2 * sizeof(int) * 2 * cand +
             (2 * sizeof(double) + sizeof(alcgCand)) * 2 * cand +
             2 * sizeof(alcgPair) * (size_t)pairCap;
    return ALC_OK;
}

extern "C" void alcg_collide_free(alcgCollide* c) {
    if (!c) return;
    alcg_bvh_free(c->bvh);
    alcg_free(c->d_bpPT);
    alcg_free(c->d_bpEE);
    alcg_free(c->d_toi);
    alcg_free(c->d_reach);
    alcg_free(c->d_cand);
    alcg_free(c->d_pairs);
    alcg_free(c->d_next);
    alcg_free(c->d_temp);
    free(c);
}

/// One broad-phase query into its own buffer, growing it (to 1.5 times the count) and querying
/// again while it overflows. *grown = the new capacity after a grow.
static alctStatus query(alcgCollide* c, const alcgBroadInput* in, int isEE, int* count, int* grown,
                        int growOn, alcgStream* s) {
    for (;;) {
        int cap = isEE ? c->eeCap : c->ptCap;
        size_t need = 0;
        alctStatus st = isEE ? alcg_bvh_queryEE(c->bvh, in, cap, NULL, NULL, NULL, &need, s)
                             : alcg_bvh_queryPT(c->bvh, in, cap, NULL, NULL, NULL, &need, s);
        if (st == ALC_OK) st = reserveTemp(c, need, s);
        if (st != ALC_OK) return st;
        st = isEE ? alcg_bvh_queryEE(c->bvh, in, cap, c->d_bpEE, count, c->d_temp, &need, s)
                  : alcg_bvh_queryPT(c->bvh, in, cap, c->d_bpPT, count, c->d_temp, &need, s);
        if (st != ALC_ERR_CAPACITY) return st;
        if (!growOn) {
            return ALCG_FAIL(s, ALC_ERR_CAPACITY,
                             "%d %s CCD candidates exceed capacity %d (raise capacity.candidates)",
                             *count, isEE ? "edge-edge" : "point-triangle", cap);
        }
        // only this buffer grows: the other one's results stay where they are
        int newCap = *count + *count / 2;
        st = allocCandidates(c, isEE, newCap, s);
        if (st != ALC_OK) return st;
        *grown = newCap;
    }
}

extern "C" alctStatus alcg_collide_collect(alcgCollide* c, const double* d_x, const double* d_xhat,
                                           const unsigned char* d_passive,
                                           const alcgCollideParams* p, alciCollectOut* out,
                                           alcgStream* s) {
    ALCG_RANGE("collide_collect");
    memset(out, 0, sizeof *out);
    const alcgSurface* sf = &c->surf;
    alcgBroadInput in;
    memset(&in, 0, sizeof in);
    in.nvert = sf->nvert;
    in.x0 = d_x;
    in.x1 = d_xhat;
    in.nsvert = sf->nsvert;
    in.svert = sf->d_svert;
    in.nedge = sf->nedge;
    in.edge = sf->d_edge_vert;
    in.ntri = sf->ntri;
    in.tri = sf->d_tri_vert;
    in.vert_passive = d_passive;
    in.inflate = p->xi;
    alctStatus st = alcg_bvh_build(c->bvh, &in, s);
    int npt = 0, nee = 0, grown = 0;
    if (st == ALC_OK) st = query(c, &in, 0, &npt, &grown, p->growOnOverflow, s);
    if (st == ALC_OK) st = query(c, &in, 1, &nee, &grown, p->growOnOverflow, s);
    if (st != ALC_OK) return st;
    // narrow phase on every candidate; d_cand holds all of them, so it cannot overflow
    alcgCcdNarrowIn nin;
    memset(&nin, 0, sizeof nin);
    nin.d_x = d_x;
    nin.d_xhat = d_xhat;
    nin.d_svert = sf->d_svert;
    nin.d_edge_vert = sf->d_edge_vert;
    nin.d_tri_vert = sf->d_tri_vert;
    nin.d_bpPT = c->d_bpPT;
    nin.d_bpEE = c->d_bpEE;
    nin.npt = npt;
    nin.nee = nee;
    nin.xi = p->xi;
    nin.rescale = p->rescale;
    nin.gapCap = p->gapCap;
    nin.delta = p->delta;
    nin.maxIter = p->maxIter;
    nin.d_pairs = c->npair > 0 ? c->d_pairs : NULL;
    nin.npair = c->npair;
    size_t need = 0;
    int cap = c->ptCap + c->eeCap;
    st = alcg_ccdNarrow_collect(&nin, NULL, NULL, NULL, cap, NULL, NULL, NULL, &need, s);
    if (st == ALC_OK) st = reserveTemp(c, need, s);
    double minToi = 1;
    int ncollide = 0;
    if (st == ALC_OK) {
        st = alcg_ccdNarrow_collect(&nin, c->d_toi, c->d_reach, c->d_cand, cap, &minToi, &ncollide,
                                    c->d_temp, &need, s);
    }
    if (st != ALC_OK) return st;
    c->ncand = ncollide;
    c->lastNpt = npt;
    c->lastNee = nee;
    out->minToi = minToi;
    out->ncandidates = npt + nee;
    out->ncollide = ncollide;
    out->grown = grown;
    return ALC_OK;
}

/// n ints of a device array from index `at`, into h.
static alctStatus downloadInts(alcgStream* s, int* h, const int* d, int at, int n) {
    return alcg_download(s, h, d + at, sizeof(int) * (size_t)n);
}

extern "C" alctStatus alcg_collide_blocking(const alcgCollide* c, const double* d_x,
                                            const double* d_xhat, alciBlockingPair* out,
                                            alcgStream* s) {
    memset(out, 0, sizeof *out);
    int npt = c->lastNpt, ntot = c->lastNpt + c->lastNee;
    if (ntot <= 0) return ALC_OK;
    double* toi = (double*)malloc(sizeof(double) * (size_t)ntot);
    int* bp = (int*)malloc(sizeof(int) * 2 * (size_t)ntot);
    if (!toi || !bp) {
        free(toi);
        free(bp);
        return ALCG_FAIL(s, ALC_ERR_NOMEM, "out of host memory for %d candidates", ntot);
    }
    alctStatus st = alcg_download(s, toi, c->d_toi, sizeof(double) * (size_t)ntot);
    if (st == ALC_OK && npt > 0) st = downloadInts(s, bp, c->d_bpPT, 0, 2 * npt);
    if (st == ALC_OK && ntot > npt) {
        st = downloadInts(s, bp + 2 * npt, c->d_bpEE, 0, 2 * (ntot - npt));
    }
    int best = -1;
    double bestToi = 1;
    long long bestKey = LLONG_MAX;
    for (int k = 0; st == ALC_OK && k < ntot; k++) {
        long long key = ALC_PAIR_KEY(k < npt ? ALC_PAIR_PT : ALC_PAIR_EE, bp[2 * k], bp[2 * k + 1]);
        if (toi[k] < 1 && alci_blocksBefore(toi[k], key, bestToi, bestKey)) {
            best = k;
            bestToi = toi[k];
            bestKey = key;
        }
    }
    int a = best >= 0 ? bp[2 * best] : 0, b = best >= 0 ? bp[2 * best + 1] : 0;
    free(toi);
    free(bp);
    if (st != ALC_OK || best < 0) return st;
    // the stencil as the narrow phase reads it (ccd_narrow.cu, candStencil)
    const alcgSurface* sf = &c->surf;
    if (best < npt) {
        out->type = ALC_PAIR_PT;
        st = downloadInts(s, out->v, sf->d_svert, a, 1);
        if (st == ALC_OK) st = downloadInts(s, out->v + 1, sf->d_tri_vert, 3 * b, 3);
    } else {
        out->type = ALC_PAIR_EE;
        st = downloadInts(s, out->v, sf->d_edge_vert, 2 * a, 2);
        if (st == ALC_OK) st = downloadInts(s, out->v + 2, sf->d_edge_vert, 2 * b, 2);
    }
    for (int k = 0; st == ALC_OK && k < 4; k++) {
        size_t off = 3 * (size_t)out->v[k];
        st = alcg_download(s, out->x + 3 * k, d_x + off, 3 * sizeof(double));
        if (st == ALC_OK) {
            st = alcg_download(s, out->xhat + 3 * k, d_xhat + off, 3 * sizeof(double));
        }
    }
    if (st != ALC_OK) return st;
    out->found = 1;
    out->key = bestKey;
    out->toi = bestToi;
    return ALC_OK;
}

extern "C" alctStatus alcg_collide_merge(alcgCollide* c, double removeBelow, int growOnOverflow,
                                         int* nactive, int* grown, int* changed, alcgStream* s) {
    ALCG_RANGE("collide_merge");
    if (grown) *grown = 0;
    for (;;) {
        size_t need = 0;
        alctStatus st =
            alcg_activeSet_merge(NULL, c->npair, NULL, c->ncand, c->surf.nvert, removeBelow, NULL,
                                 c->pairCap, NULL, NULL, NULL, &need, s);
        if (st == ALC_OK) st = reserveTemp(c, need, s);
        if (st != ALC_OK) return st;
        int n = 0, ch = 0;
        st = alcg_activeSet_merge(c->d_pairs, c->npair, c->d_cand, c->ncand, c->surf.nvert,
                                  removeBelow, c->d_next, c->pairCap, &n, &ch, c->d_temp, &need, s);
        if (st == ALC_ERR_CAPACITY) {
            if (!growOnOverflow) {
                return ALCG_FAIL(s, ALC_ERR_CAPACITY,
                                 "%d active contact pairs exceed capacity %d (raise "
                                 "capacity.contactPairs)",
                                 n, c->pairCap);
            }
            // grow as the reference does (1.5 times) until the merged set fits
            int cap = c->pairCap;
            while (cap < n) cap += cap / 2 + 1;
            st = allocPairs(c, cap, s);
            if (st != ALC_OK) return st;
            if (grown) *grown = cap;
            continue;
        }
        if (st != ALC_OK) return st;
        alcgPair* t = c->d_pairs;
        c->d_pairs = c->d_next;
        c->d_next = t;
        c->npair = n;
        *nactive = n;
        if (changed) *changed = ch;
        return ALC_OK;
    }
}

extern "C" alcgPair* alcg_collide_pairs(alcgCollide* c, int* npair) {
    *npair = c->npair;
    return c->d_pairs;
}

extern "C" alctStatus alcg_collide_setPairs(alcgCollide* c, const alcgPair* h_pairs, int n,
                                            alcgStream* s) {
    if (n < 0 || (n > 0 && !h_pairs))
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "bad pair list (%d)", n);
    for (int i = 1; i < n; i++) {
        if (!(h_pairs[i - 1].key < h_pairs[i].key)) {
            return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "pair keys not strictly ascending at %d", i);
        }
    }
    c->npair = 0;
    if (n > c->pairCap) {
        alctStatus st = allocPairs(c, n, s);
        if (st != ALC_OK) return st;
    }
    alctStatus st = alcg_upload(s, c->d_pairs, h_pairs, sizeof(alcgPair) * (size_t)n);
    if (st != ALC_OK) return st;
    c->npair = n;
    return ALC_OK;
}

extern "C" const alcgCand* alcg_collide_candidates(const alcgCollide* c, int* n) {
    *n = c->ncand;
    return c->d_cand;
}
