// Reference collision collection: the CPU BVH broad phase over boxes swept from X to XHAT,
// then additive CCD (hd/alcm_ccd.h) on every candidate, keeping the pairs that collide with
// their times of impact (AL paper Alg. 3 line 4) and the minimum time of impact (MaxStepSize).
// A candidate with a vertex on a rigid body takes the curved-trajectory CCD (rigid_contact_ref.c).
#include "hd/alcm_ccd.h"
#include "hd/alcm_pair.h"
#include "ref/backend_ref.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static alctStatus allocCandidates(alcrBackend* B, int cap) {
    int* pt = (int*)realloc(B->bpPT, sizeof(int) * 2 * (size_t)cap);
    if (pt) B->bpPT = pt;
    int* ee = (int*)realloc(B->bpEE, sizeof(int) * 2 * (size_t)cap);
    if (ee) B->bpEE = ee;
    double* toi = (double*)realloc(B->candToi, sizeof(double) * 2 * (size_t)cap);
    if (toi) B->candToi = toi;
    double* reach = (double*)realloc(B->candReach, sizeof(double) * 2 * (size_t)cap);
    if (reach) B->candReach = reach;
    alcrCand* c = (alcrCand*)realloc(B->cand, sizeof(alcrCand) * 2 * (size_t)cap);
    if (c) B->cand = c;
    if (!pt || !ee || !toi || !c) return ALC_ERR_NOMEM;
    B->bytes +=
        (sizeof(int) * 4 + sizeof(double) * 2 + sizeof(alcrCand) * 2) * (size_t)(cap - B->candCap);
    B->candCap = cap;
    return ALC_OK;
}

alctStatus alcr_ccd_make(alcrBackend* B) {
    const alcModel* m = B->m;
    int cap = B->sim->def.capacity.candidates;
    if (cap <= 0) cap = 16 * m->nsvert > 16384 ? 16 * m->nsvert : 16384;
    B->candCap = 0;
    alctStatus st = allocCandidates(B, cap);
    if (st != ALC_OK) return st;
    B->vmin = (double*)malloc(sizeof(double) * (size_t)B->n);
    if (!B->vmin) return ALC_ERR_NOMEM;
    B->bytes += sizeof(double) * (size_t)B->n;
    return alcr_broad_make(m->nsvert, m->nedge, m->ntri, &B->broad);
}

void alcr_ccd_free(alcrBackend* B) {
    free(B->bpPT);
    free(B->bpEE);
    free(B->candToi);
    free(B->candReach);
    free(B->cand);
    free(B->vmin);
    alcr_broad_free(B->broad);
}

alctStatus alcr_ccd_query(alcrBackend* B, const alcrBroadInput* in, int isEE, int* count,
                          int* grown) {
    for (;;) {
        int* out = isEE ? B->bpEE : B->bpPT;
        alctStatus st = isEE ? alcr_broad_queryEE(B->broad, in, B->candCap, out, count)
                             : alcr_broad_queryPT(B->broad, in, B->candCap, out, count);
        if (st == ALC_OK) return ALC_OK;
        if (st != ALC_ERR_CAPACITY) return ALC_ERROR(B->sim, st, "broad phase failed");
        if (!B->sim->def.capacity.growOnOverflow) {
            return ALC_ERROR(B->sim, ALC_ERR_CAPACITY,
                             "%d CCD candidates exceed capacity %d (raise capacity.candidates)",
                             *count, B->candCap);
        }
        int cap = *count + *count / 2;
        if (allocCandidates(B, cap) != ALC_OK) {
            return ALC_ERROR(B->sim, ALC_ERR_NOMEM, "out of memory growing candidates to %d", cap);
        }
        *grown = cap;
    }
}

void alcr_ccd_candidate(const alcrBackend* B, int c, int npt, int v[4], int* type) {
    const alcModel* m = B->m;
    if (c < npt) {
        int t = B->bpPT[2 * c + 1];
        v[0] = m->svert[B->bpPT[2 * c]];
        v[1] = m->tri_vert[3 * t];
        v[2] = m->tri_vert[3 * t + 1];
        v[3] = m->tri_vert[3 * t + 2];
        *type = ALCR_PT;
    } else {
        int e0 = B->bpEE[2 * (c - npt)], e1 = B->bpEE[2 * (c - npt) + 1];
        v[0] = m->edge_vert[2 * e0];
        v[1] = m->edge_vert[2 * e0 + 1];
        v[2] = m->edge_vert[2 * e1];
        v[3] = m->edge_vert[2 * e1 + 1];
        *type = ALCR_EE;
    }
}

alcrBroadInput alcr_ccd_broadInput(const alcrBackend* B, const double* from, const double* to,
                                   const unsigned char* passive, double inflate) {
    const alcModel* m = B->m;
    alcrBroadInput in;
    memset(&in, 0, sizeof in);
    in.nvert = B->n;
    in.x0 = from;
    in.x1 = to;
    in.nsvert = m->nsvert;
    in.svert = m->svert;
    in.nedge = m->nedge;
    in.edge = m->edge_vert;
    in.ntri = m->ntri;
    in.tri = m->tri_vert;
    in.vert_passive = passive;
    in.inflate = inflate;
    in.vert_group = B->nr > 0 ? B->rigidOf : NULL;  // a rigid body does not collide with itself
    return in;
}

alctStatus alcr_ccd_collect(alcrBackend* B, alciCollectOut* out) {
    const alcModel* m = B->m;
    const alcOption* o = &m->opt;
    alcrBroadInput in = alcr_ccd_broadInput(B, B->x, B->xhat, B->kin, o->ccdMinSep);
    in.vert_inflate = alcr_rigid_inflation(B, B->x, B->xhat);  // rigid curves about chords
    memset(out, 0, sizeof *out);
    alctStatus st = alcr_broad_build(B->broad, &in);
    if (st != ALC_OK) return ALC_ERROR(B->sim, st, "broad-phase build failed");
    int npt = 0, nee = 0, grown = 0;
    st = alcr_ccd_query(B, &in, 0, &npt, &grown);
    if (st == ALC_OK) st = alcr_ccd_query(B, &in, 1, &nee, &grown);
    if (st != ALC_OK) return st;
    // the PT buffer may have been grown by the EE query: PT results stay valid (realloc keeps)
    int ntot = npt + nee;
    double xi = o->ccdMinSep, s = o->ccdRescale;
    double xiReach = o->ccdMinSep + ALC_CCD_REACH * B->cp.delta;
    int maxIter = o->ccdMaxIter;
    // a far pair keeps s of at most gapCap, not s of its gap (alcm_ccd_capRescale); rigid
    // vertices' curved paths keep the ACCD rule
    double gapCap = o->ccdGapCap * B->cp.delta;
    // narrow phase: additive CCD on every candidate
#pragma omp parallel for schedule(dynamic, 256) if (ntot > ALCR_PAR_MIN)
    for (int c = 0; c < ntot; c++) {
        int v[4], type;
        alcr_ccd_candidate(B, c, npt, v, &type);
        alcV3 x[4], dx[4];
        for (int a = 0; a < 4; a++) {
            x[a] = alcm_v3_load(B->x + 3 * v[a]);
            dx[a] = alcm_v3_sub(alcm_v3_load(B->xhat + 3 * v[a]), x[a]);
        }
        // the conservative time of impact bounds alpha (MaxStepSize); the pair joins the
        // active set only if the path really brings it within xi + ALC_CCD_REACH delta (it
        // "generates an intersection", AL paper Alg. 3 line 4): a pair whose gap merely shrinks to
        // s times its start gap, like a vertex sliding over a shared edge of coplanar triangles at
        // height delta, would otherwise enter with a tilted linearization that snags sliding
        // (a pair already inside the floor xi keeps most of its gap instead: alcm_ccd_stepSep;
        // an active pair whose constraint the iterate violates keeps a floor of a fraction of
        // delta: alcm_pair_stepFloor)
        double toi = 1, reach = 1;
        long long key = c < npt
                            ? ALCR_KEY(ALCR_PT, B->bpPT[2 * c], B->bpPT[2 * c + 1])
                            : ALCR_KEY(ALCR_EE, B->bpEE[2 * (c - npt)], B->bpEE[2 * (c - npt) + 1]);
        double xiPair = alcm_pair_stepFloor(B->pairs, B->npair, key, xi, B->cp.delta);
        double xiStep = alcm_ccd_stepSep(x, dx, c >= npt, xiPair, 1.0);
        if (alcr_rigid_touches(B, v)) {
            // a rigid vertex moves on a curve: RIPC Algorithm 1 on the true paths, keeping s of
            // the gap as the linear CCD does
            int hit = alcr_rigid_ccd(B, B->x, B->xhat, v, c >= npt, xiStep, s, &toi);
            int reaches = hit && alcr_rigid_ccd(B, B->x, B->xhat, v, c >= npt, xiReach, 0, &reach);
            B->candToi[c] = hit ? toi : 2.0;
            B->candReach[c] = reaches ? reach : 2.0;
            continue;
        }
        double sPair = alcm_ccd_capRescale(x, dx, c >= npt, xiStep, s, gapCap, 1.0);
        int hit = c < npt ? alcm_ccd_pt(x, dx, xiStep, sPair, 1.0, maxIter, &toi, NULL)
                          : alcm_ccd_ee(x, dx, xiStep, sPair, 1.0, maxIter, &toi, NULL);
        int reaches = 0;
        if (hit) {
            reaches = c < npt ? alcm_ccd_pt(x, dx, xiReach, ALC_CCD_REACH_RESCALE, 1.0, maxIter,
                                            &reach, NULL)
                              : alcm_ccd_ee(x, dx, xiReach, ALC_CCD_REACH_RESCALE, 1.0, maxIter,
                                            &reach, NULL);
        }
        B->candToi[c] = hit ? toi : 2.0;
        B->candReach[c] = reaches ? reach : 2.0;
    }
    // alpha: the smallest conservative time of impact; the active-set candidates: the pairs
    // that come within reach, with the time they do, in key order (PT before EE)
    int nc = 0;
    double minToi = 1;
    for (int c = 0; c < ntot; c++) {
        if (B->candToi[c] < minToi) minToi = B->candToi[c];
    }
    for (int c = 0; c < ntot; c++) {
        if (B->candReach[c] > 1) continue;
        alcrCand* C = &B->cand[nc++];
        if (c < npt) {
            int i = B->bpPT[2 * c], t = B->bpPT[2 * c + 1];
            C->type = ALCR_PT;
            C->key = ALCR_KEY(ALCR_PT, i, t);
            C->v[0] = m->svert[i];
            C->v[1] = m->tri_vert[3 * t];
            C->v[2] = m->tri_vert[3 * t + 1];
            C->v[3] = m->tri_vert[3 * t + 2];
        } else {
            int e0 = B->bpEE[2 * (c - npt)], e1 = B->bpEE[2 * (c - npt) + 1];
            C->type = ALCR_EE;
            C->key = ALCR_KEY(ALCR_EE, e0, e1);
            C->v[0] = m->edge_vert[2 * e0];
            C->v[1] = m->edge_vert[2 * e0 + 1];
            C->v[2] = m->edge_vert[2 * e1];
            C->v[3] = m->edge_vert[2 * e1 + 1];
        }
        C->toi = B->candReach[c];
    }
    B->ncand = nc;
    B->lastNpt = npt;
    B->lastNee = nee;
    out->minToi = minToi;
    out->ncandidates = ntot;
    out->ncollide = nc;
    out->grown = grown;
    return ALC_OK;
}

void alcr_ccd_blocking(const alcrBackend* B, alciBlockingPair* out) {
    memset(out, 0, sizeof *out);
    int npt = B->lastNpt, ntot = B->lastNpt + B->lastNee, best = -1;
    double bestToi = 1;
    long long bestKey = LLONG_MAX;
    for (int c = 0; c < ntot; c++) {
        long long key = c < npt
                            ? ALCR_KEY(ALCR_PT, B->bpPT[2 * c], B->bpPT[2 * c + 1])
                            : ALCR_KEY(ALCR_EE, B->bpEE[2 * (c - npt)], B->bpEE[2 * (c - npt) + 1]);
        if (B->candToi[c] < 1 && alci_blocksBefore(B->candToi[c], key, bestToi, bestKey)) {
            best = c;
            bestToi = B->candToi[c];
            bestKey = key;
        }
    }
    if (best < 0) return;
    out->found = 1;
    alcr_ccd_candidate(B, best, npt, out->v, &out->type);
    out->key = bestKey;
    out->toi = bestToi;
    for (int a = 0; a < 4; a++) {
        memcpy(out->x + 3 * a, B->x + 3 * out->v[a], 3 * sizeof(double));
        memcpy(out->xhat + 3 * a, B->xhat + 3 * out->v[a], 3 * sizeof(double));
    }
}
