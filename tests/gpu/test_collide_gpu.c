// The device collision stage (cuda/collide.h) against the reference's collect and merge on the
// same motion and active set: the same candidates, minimum time of impact, pairs within reach
// and merged set, with buffers that start too small so that every grow-and-redo path runs; and
// the same pair named as the one that cut the time of impact (the -vv log's blocking pair).
#include "../../cuda/collide.h"
#include "../test_macros.h"
#include "contact_fixture.h"

#include <stdlib.h>
#include <string.h>

/// Compare the fields of a device pair with the reference's.
static int samePair(const alcgPair* g, const alcrPair* r) {
    if (g->key != r->key || g->type != r->type || g->lambda != r->lambda || g->gamma != r->gamma) {
        return 0;
    }
    for (int a = 0; a < 4; a++)
        if (g->v[a] != r->v[a]) return 0;
    return 1;
}

static int g_blocking;  // cases whose collect was cut by a pair (alcg_collide_blocking)

/// The device's blocking pair (the -vv log's) against the reference's, field by field.
static int sameBlocking(const alciBlockingPair* g, const alciBlockingPair* r, const char* label) {
    int same = g->found == r->found;
    if (same && r->found) {
        same = g->type == r->type && g->key == r->key && g->toi == r->toi &&
               !memcmp(g->v, r->v, sizeof r->v) && !memcmp(g->x, r->x, sizeof r->x) &&
               !memcmp(g->xhat, r->xhat, sizeof r->xhat);
    }
    if (!same) {
        fprintf(stderr,
                "  %s: blocking pair: device found %d key %lld toi %.17g, ref found %d "
                "key %lld toi %.17g\n",
                label, g->found, g->key, g->toi, r->found, r->key, r->toi);
    }
    g_blocking += same && r->found;
    return same;
}

/// Run the reference merge and the device stage on case c, starting from the active set it
/// has, every fourth pair decayed below the removal threshold; tiny capacities force growth.
static int compareStage(alctContact* c, const char* label, int candCap, int pairCap) {
    alcrBackend* B = c->B;
    const alcModel* m = c->mo.m;
    int ok = 0, n0 = B->npair, nref = 0;
    alcgCollide* stage = NULL;
    unsigned char* d_passive = NULL;
    alcgPair* before = (alcgPair*)calloc((size_t)n0 + 1, sizeof(alcgPair));
    alcrPair* after = NULL;
    alcgPair* got = NULL;
    if (!before) return 0;
    for (int i = 0; i < n0; i++) {
        if (i % 4 == 3) B->pairs[i].gamma = 0.5 * B->cp.removeBelow;
        alct_pairToDevice(&B->pairs[i], &before[i]);
    }
    // the reference: its collect already ran on x0 -> xhat; the pair that cut it; merge now
    alciBlockingPair refBlock, gpuBlock;
    alcr_ccd_blocking(B, &refBlock);
    if (alcr_contact_merge(B, &nref) != ALC_OK) {
        fprintf(stderr, "  %s: reference merge: %s\n", label, c->mo.sim->error);
        goto done;
    }
    after = (alcrPair*)malloc(sizeof(alcrPair) * ((size_t)nref + 1));
    got = (alcgPair*)malloc(sizeof(alcgPair) * ((size_t)nref + 1));
    if (!after || !got) goto done;
    memcpy(after, B->pairs, sizeof(alcrPair) * (size_t)nref);
    // the device stage on the same motion, from the same active set
    {
        alcgSurface sf = {c->mo.nvert, m->nsvert,      m->nedge,     m->ntri,
                          c->d_svert,  c->d_edge_vert, c->d_tri_vert};
        alcgCollideParams p = {m->opt.ccdMinSep,  m->opt.ccdRescale, B->cp.delta,
                               m->opt.ccdMaxIter, 1,                  m->opt.ccdGapCap * B->cp.delta};
        alciCollectOut out;
        int nact = 0, grown = 0, changed = 0;
        if (alcg_malloc(&c->s, (void**)&d_passive, (size_t)c->mo.nvert) != ALC_OK ||
            alcg_upload(&c->s, d_passive, B->kin, (size_t)c->mo.nvert) != ALC_OK ||
            alcg_collide_make(&sf, candCap, pairCap, &stage, &c->s) != ALC_OK ||
            alcg_collide_setPairs(stage, before, n0, &c->s) != ALC_OK ||
            alcg_collide_collect(stage, c->d_x, c->d_xhat, d_passive, &p, &out, &c->s) != ALC_OK ||
            alcg_collide_blocking(stage, c->d_x, c->d_xhat, &gpuBlock, &c->s) != ALC_OK ||
            alcg_collide_merge(stage, B->cp.removeBelow, 1, &nact, &grown, &changed, &c->s) !=
                ALC_OK) {
            fprintf(stderr, "  %s: device stage: %s\n", label, c->s.err);
            goto done;
        }
        alct_note(
            "%-18s %6d candidates (ref %6d), %5d within reach (ref %5d), minToi %.6g "
            "(ref %.6g), %d -> %d pairs (ref %d), candidate grow %d",
            label, out.ncandidates, c->out.ncandidates, out.ncollide, c->out.ncollide, out.minToi,
            c->out.minToi, n0, nact, nref, out.grown);
        if (out.ncandidates != c->out.ncandidates || out.ncollide != c->out.ncollide ||
            out.minToi != c->out.minToi || nact != nref) {
            fprintf(stderr, "  %s: device and reference differ\n", label);
            goto done;
        }
        if (!sameBlocking(&gpuBlock, &refBlock, label)) goto done;
        if (out.ncandidates > 2 * candCap && out.grown == 0) {
            fprintf(stderr, "  %s: candidate buffers overflowed without a reported grow\n", label);
            goto done;
        }
        if (nact > pairCap && n0 <= pairCap && grown == 0) {
            fprintf(stderr, "  %s: pair buffers overflowed without a reported grow\n", label);
            goto done;
        }
        int npair = 0;
        alcgPair* d_pairs = alcg_collide_pairs(stage, &npair);
        if (npair != nref ||
            alcg_download(&c->s, got, d_pairs, sizeof(alcgPair) * (size_t)npair) != ALC_OK) {
            goto done;
        }
        for (int i = 0; i < nref; i++) {
            if (!samePair(&got[i], &after[i])) {
                fprintf(stderr, "  %s: merged pair %d differs (key %lld vs %lld)\n", label, i,
                        got[i].key, after[i].key);
                goto done;
            }
        }
    }
    ok = 1;
done:
    alcg_collide_free(stage);
    alcg_free(d_passive);
    free(before);
    free(after);
    free(got);
    return ok;
}

ALC_TEST(collide_scenes) {
    g_blocking = 0;
    for (int i = 0; alct_gpuScenes[i]; i++) {
        alctContact c;
        int made = alct_contactScene(alct_gpuScenes[i], &c);
        int ok = made && compareStage(&c, alct_gpuScenes[i], 8, 2);
        alct_contactFree(&c);
        ENSURE_MSG(ok, "%s", alct_gpuScenes[i]);
    }
    alct_note("%d of the scenes' collects were cut by a pair, the same on both", g_blocking);
    return ALC_TEST_PASS;
}

ALC_TEST(collide_random) {
    g_blocking = 0;
    static const int nbody[] = {8, 64, 300};
    for (int k = 0; k < 3; k++) {
        alctContact c;
        char label[32];
        snprintf(label, sizeof label, "random %d", nbody[k]);
        int made = alct_contactRandom(100u + (unsigned)k, nbody[k], 0.6 / nbody[k], 1e-3, &c);
        // a second round from the merged set: pairs carried over, some decayed, new ones
        int ok = made && compareStage(&c, label, 1, 1);
        if (ok) ok = alct_contactCollect(&c, 1.5) && compareStage(&c, label, 4, 1);
        alct_contactFree(&c);
        ENSURE_MSG(ok, "%s", label);
    }
    ENSURE_MSG(g_blocking > 0, "no collect was cut by a pair: the blocking pair is untested");
    alct_note("%d collects were cut by a pair, the same on both", g_blocking);
    return ALC_TEST_PASS;
}

ALC_TEST(collide_overflowWithoutGrowing) {
    alctContact c;
    ENSURE(alct_contactScene("ball_plate.yaml", &c));
    const alcModel* m = c.mo.m;
    alcgSurface sf = {c.mo.nvert, m->nsvert,     m->nedge,    m->ntri,
                      c.d_svert,  c.d_edge_vert, c.d_tri_vert};
    alcgCollideParams p = {m->opt.ccdMinSep,  m->opt.ccdRescale, c.B->cp.delta,
                           m->opt.ccdMaxIter, 0,                  m->opt.ccdGapCap * c.B->cp.delta};
    alcgCollide* stage = NULL;
    alciCollectOut out;
    alctStatus st = alcg_collide_make(&sf, 4, 1, &stage, &c.s);
    if (st == ALC_OK) st = alcg_collide_collect(stage, c.d_x, c.d_xhat, NULL, &p, &out, &c.s);
    alct_note("reported: %s", c.s.err);
    int ok = st == ALC_ERR_CAPACITY && strstr(c.s.err, "raise capacity.candidates") != NULL;
    alcg_collide_free(stage);
    alct_contactFree(&c);
    ENSURE(ok);
    return ALC_TEST_PASS;
}
