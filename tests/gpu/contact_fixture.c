// Motions with the reference collision collection and the device narrow phase on the same
// candidates (contact_fixture.h).
#include "contact_fixture.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Guard entries of d_cand past the capacity under test.
#define GUARD 8

static void freeDevice(alctContact* c) {
    alcg_free(c->d_x);
    alcg_free(c->d_xhat);
    alcg_free(c->d_svert);
    alcg_free(c->d_edge_vert);
    alcg_free(c->d_tri_vert);
    alcg_free(c->d_bpPT);
    alcg_free(c->d_bpEE);
    alcg_free(c->d_toi);
    alcg_free(c->d_reach);
    alcg_free(c->d_cand);
    alcg_free(c->d_temp);
    c->d_x = c->d_xhat = c->d_toi = c->d_reach = NULL;
    c->d_svert = c->d_edge_vert = c->d_tri_vert = c->d_bpPT = c->d_bpEE = NULL;
    c->d_cand = NULL;
    c->d_temp = NULL;
}

/// Allocate n bytes on the device and copy src there (src NULL: allocate only).
static int upload(alctContact* c, void** d, const void* src, size_t n) {
    if (alcg_malloc(&c->s, d, n) != ALC_OK) return 0;
    return !src || alcg_upload(&c->s, *d, src, n) == ALC_OK;
}

static int start(alctContact* c) {
    c->B = (alcrBackend*)c->mo.sim->be.state;
    c->xhat = (double*)malloc(sizeof(double) * 3 * (size_t)c->mo.nvert);
    if (!c->xhat) return 0;
    if (alcg_stream_make(&c->s) != ALC_OK) {
        fprintf(stderr, "  stream: %s\n", c->s.err);
        return 0;
    }
    return alct_contactCollect(c, 1.0);
}

int alct_contactScene(const char* scene, alctContact* c) {
    memset(c, 0, sizeof *c);
    if (!alct_motionMake(scene, 2, 20.0, &c->mo)) return 0;
    return start(c);
}

int alct_contactRandom(unsigned seed, int nbody, double reach, double delta, alctContact* c) {
    memset(c, 0, sizeof *c);
    if (!alct_motionRandom(seed, nbody, reach, &c->mo)) return 0;
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    if (alc_makeSim(c->mo.m, &def, &c->mo.sim) != ALC_OK) {
        fprintf(stderr, "  random sim: %s\n", c->mo.sim ? alc_lastError(c->mo.sim) : "no sim");
        return 0;
    }
    alcrBackend* B = (alcrBackend*)c->mo.sim->be.state;
    memcpy(B->kin, c->mo.passive, (size_t)c->mo.nvert);
    B->cp.delta = delta;
    B->cp.removeBelow = 0.01;
    return start(c);
}

int alct_contactCollect(alctContact* c, double scale) {
    alcrBackend* B = c->B;
    const alcModel* m = c->mo.m;
    size_t N = 3 * (size_t)c->mo.nvert;
    for (size_t i = 0; i < N; i++) {
        c->xhat[i] = c->mo.x0[i] + scale * (c->mo.x1[i] - c->mo.x0[i]);
    }
    // the reference collection, then its PT count (the same query on the same tree)
    memcpy(B->x, c->mo.x0, sizeof(double) * N);
    memcpy(B->xhat, c->xhat, sizeof(double) * N);
    if (alcr_ccd_collect(B, &c->out) != ALC_OK) {
        fprintf(stderr, "  reference collect: %s\n", c->mo.sim->error);
        return 0;
    }
    alcrBroadInput bin = alcr_ccd_broadInput(B, B->x, B->xhat, B->kin, m->opt.ccdMinSep);
    int grown = 0;
    if (alcr_ccd_query(B, &bin, 0, &c->npt, &grown) != ALC_OK) return 0;
    c->nee = c->out.ncandidates - c->npt;
    int ntot = c->out.ncandidates;
    // copies of what the reference keeps (its merge reuses candToi as scratch)
    free(c->toi);
    free(c->reach);
    free(c->cand);
    c->toi = (double*)malloc(sizeof(double) * (size_t)(ntot + 1));
    c->reach = (double*)malloc(sizeof(double) * (size_t)(ntot + 1));
    c->cand = (alcrCand*)malloc(sizeof(alcrCand) * (size_t)(c->out.ncollide + 1));
    if (!c->toi || !c->reach || !c->cand) return 0;
    memcpy(c->toi, B->candToi, sizeof(double) * (size_t)ntot);
    memcpy(c->reach, B->candReach, sizeof(double) * (size_t)ntot);
    memcpy(c->cand, B->cand, sizeof(alcrCand) * (size_t)c->out.ncollide);
    // device copies
    freeDevice(c);
    c->candCap = ntot > 1 ? ntot : 1;
    int ok = upload(c, (void**)&c->d_x, c->mo.x0, sizeof(double) * N) &&
             upload(c, (void**)&c->d_xhat, c->xhat, sizeof(double) * N) &&
             upload(c, (void**)&c->d_svert, m->svert, sizeof(int) * (size_t)m->nsvert) &&
             upload(c, (void**)&c->d_edge_vert, m->edge_vert, sizeof(int) * 2 * (size_t)m->nedge) &&
             upload(c, (void**)&c->d_tri_vert, m->tri_vert, sizeof(int) * 3 * (size_t)m->ntri) &&
             upload(c, (void**)&c->d_bpPT, B->bpPT, sizeof(int) * 2 * (size_t)c->npt) &&
             upload(c, (void**)&c->d_bpEE, B->bpEE, sizeof(int) * 2 * (size_t)c->nee) &&
             upload(c, (void**)&c->d_toi, NULL, sizeof(double) * (size_t)(ntot + 1)) &&
             upload(c, (void**)&c->d_reach, NULL, sizeof(double) * (size_t)(ntot + 1)) &&
             upload(c, (void**)&c->d_cand, NULL, sizeof(alcgCand) * (size_t)(c->candCap + GUARD));
    if (!ok) {
        fprintf(stderr, "  device upload: %s\n", c->s.err);
        return 0;
    }
    alcgCcdNarrowIn in = {0};
    in.d_x = c->d_x;
    in.d_xhat = c->d_xhat;
    in.d_svert = c->d_svert;
    in.d_edge_vert = c->d_edge_vert;
    in.d_tri_vert = c->d_tri_vert;
    in.d_bpPT = c->d_bpPT;
    in.d_bpEE = c->d_bpEE;
    in.npt = c->npt;
    in.nee = c->nee;
    in.xi = m->opt.ccdMinSep;
    in.rescale = m->opt.ccdRescale;
    in.delta = B->cp.delta;
    in.maxIter = m->opt.ccdMaxIter;
    in.gapCap = m->opt.ccdGapCap * B->cp.delta;
    c->in = in;
    // scratch, sized by the two-phase query
    if (alcg_ccdNarrow_collect(&c->in, NULL, NULL, NULL, 0, NULL, NULL, NULL, &c->tempBytes,
                               &c->s) != ALC_OK ||
        !upload(c, &c->d_temp, NULL, c->tempBytes)) {
        fprintf(stderr, "  narrow scratch: %s\n", c->s.err);
        return 0;
    }
    return 1;
}

alctStatus alct_contactNarrow(alctContact* c, int cap, double* minToi, int* ncollide) {
    if (cap > c->candCap) cap = c->candCap;
    alctStatus st =
        alcg_memset(&c->s, c->d_cand, 0xAB, sizeof(alcgCand) * (size_t)(c->candCap + GUARD));
    if (st != ALC_OK) return st;
    return alcg_ccdNarrow_collect(&c->in, c->d_toi, c->d_reach, c->d_cand, cap, minToi, ncollide,
                                  c->d_temp, &c->tempBytes, &c->s);
}

int alct_contactGuardIntact(alctContact* c, int cap) {
    unsigned char g[sizeof(alcgCand) * GUARD];
    if (alcg_download(&c->s, g, c->d_cand + cap, sizeof g) != ALC_OK) return 0;
    for (size_t i = 0; i < sizeof g; i++) {
        if (g[i] != 0xAB) return 0;
    }
    return 1;
}

void alct_contactFree(alctContact* c) {
    if (!c) return;
    freeDevice(c);
    alcg_stream_free(&c->s);
    free(c->xhat);
    free(c->toi);
    free(c->reach);
    free(c->cand);
    alct_motionFree(&c->mo);
    memset(c, 0, sizeof *c);
}

void alct_pairToDevice(const alcrPair* h, alcgPair* d) {
    memset(d, 0, sizeof *d);
    d->key = h->key;
    d->type = h->type;
    memcpy(d->v, h->v, sizeof d->v);
    d->lambda = h->lambda;
    d->gamma = h->gamma;
    d->d = h->d;
    memcpy(d->g, h->g, sizeof d->g);
    d->c = h->c;
    d->active = h->active;
    d->boost = h->boost;
}

double alct_relErr(double a, double b, double scale) {
    double e = fabs(a - b);
    return scale > 0 ? e / scale : e;
}
