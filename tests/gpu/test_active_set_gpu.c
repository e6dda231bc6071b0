// cuda/active_set.cu against alcr_contact_merge and alcr_contact_linearize
// (host/ref/contact_ref.c): the device pipeline (narrow phase, then merge) on the candidates of
// the reference's collection, from the same active set.
#include "../../cuda/active_set.h"
#include "../../cuda/friction.h"
#include "../test_macros.h"
#include "contact_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Guard entries past the capacity of the merged set.
#define GUARD 8

/// Every field the merge writes, compared exactly (they are copies or constants).
static int samePair(const alcgPair* d, const alcrPair* h) {
    return d->key == h->key && d->type == h->type && !memcmp(d->v, h->v, sizeof d->v) &&
           d->lambda == h->lambda && d->gamma == h->gamma && d->d == h->d &&
           !memcmp(d->g, h->g, sizeof d->g) && d->c == h->c && d->active == h->active &&
           d->boost == h->boost;
}

/// |a - b| <= ALCT_DEVICE_RTOL max(|b|, scale).
static int closeTo(double a, double b, double scale) {
    return fabs(a - b) <= ALCT_DEVICE_RTOL * fmax(fabs(b), scale);
}

/// An active set made from every third broad-phase candidate (so that some pairs within reach
/// are already active and some are not), with gammas on both sides of the removal threshold and
/// made-up linearizations, to check that survivors are copied whole.
static void fabricatePairs(alctContact* c) {
    alcrBackend* B = c->B;
    double rb = B->cp.removeBelow;
    const double gammas[4] = {1.0, 0.5, 0.5 * rb, rb};
    int n = 0;
    for (int k = 0; k < c->npt + c->nee && n < B->pairCap; k += 3) {
        alcrPair* P = &B->pairs[n++];
        memset(P, 0, sizeof *P);
        alcr_ccd_candidate(B, k, c->npt, P->v, &P->type);
        const int* bp = k < c->npt ? B->bpPT + 2 * k : B->bpEE + 2 * (k - c->npt);
        P->key = ALCR_KEY(P->type, bp[0], bp[1]);
        P->lambda = 1e-3 * (k % 7);
        P->gamma = gammas[(k / 3) % 4];
        P->d = 1e-3 * (k % 11);
        for (int j = 0; j < 12; j++) P->g[j] = 0.1 * j - 1e-4 * k;
        P->c = -1e-4 * k;
        P->active = k % 2;
        P->boost = k % 3 ? 0 : 4.0 * (k % 5);  // survivors keep their own mu
    }
    B->npair = n;
}

/// Merge on the device and on the host from the case's current active set, then compare the
/// merged sets, the capacity handling and the linearization at X.
static int mergeCase(alctContact* c, const char* label) {
    alcrBackend* B = c->B;
    int n0 = B->npair, nvert = c->mo.nvert;
    double removeBelow = B->cp.removeBelow;
    // the active set before, on the device
    alcgPair* h0 = (alcgPair*)calloc((size_t)n0 + 1, sizeof(alcgPair));
    ENSURE(h0);
    for (int p = 0; p < n0; p++) alct_pairToDevice(&B->pairs[p], &h0[p]);
    // device narrow phase on the reference's candidates
    double minToi = 0;
    int ncand = 0;
    ENSURE_MSG(alct_contactNarrow(c, c->candCap, &minToi, &ncand) == ALC_OK, "%s: %s", label,
               c->s.err);
    ENSURE(ncand == c->out.ncollide);
    // reference merge
    int nref = 0;
    ENSURE_MSG(alcr_contact_merge(B, &nref) == ALC_OK, "%s: %s", label, c->mo.sim->error);
    // device merge into a buffer with guard entries
    alcgPair *d_pairs = NULL, *d_out = NULL;
    void* d_temp = NULL;
    size_t tb = 0;
    int outCap = nref + GUARD;
    ENSURE_OK(alcg_malloc(&c->s, (void**)&d_pairs, sizeof(alcgPair) * (size_t)n0));
    ENSURE_OK(alcg_upload(&c->s, d_pairs, h0, sizeof(alcgPair) * (size_t)n0));
    ENSURE_OK(alcg_malloc(&c->s, (void**)&d_out, sizeof(alcgPair) * (size_t)outCap));
    ENSURE_OK(alcg_activeSet_merge(d_pairs, n0, c->d_cand, ncand, nvert, removeBelow, d_out, nref,
                                   NULL, NULL, NULL, &tb, &c->s));
    ENSURE_OK(alcg_malloc(&c->s, &d_temp, tb));
    int nact = -1, changed = -1;
    ENSURE_OK(alcg_memset(&c->s, d_out, 0xAB, sizeof(alcgPair) * (size_t)outCap));
    ENSURE_MSG(alcg_activeSet_merge(d_pairs, n0, c->d_cand, ncand, nvert, removeBelow, d_out, nref,
                                    &nact, &changed, d_temp, &tb, &c->s) == ALC_OK,
               "%s: %s", label, c->s.err);
    ENSURE_MSG(nact == nref, "%s: %d active pairs, host %d", label, nact, nref);
    alcgPair* h1 = (alcgPair*)malloc(sizeof(alcgPair) * (size_t)outCap);
    ENSURE(h1);
    ENSURE_OK(alcg_download(&c->s, h1, d_out, sizeof(alcgPair) * (size_t)outCap));
    int added = 0;
    for (int p = 0, q = 0; p < nref; p++) {
        ENSURE_MSG(samePair(&h1[p], &B->pairs[p]), "%s: pair %d key %lld, host %lld", label, p,
                   h1[p].key, B->pairs[p].key);
        if (p > 0) ENSURE(h1[p - 1].key < h1[p].key);
        while (q < n0 && h0[q].key < h1[p].key) q++;
        added += !(q < n0 && h0[q].key == h1[p].key);
    }
    for (size_t b = sizeof(alcgPair) * (size_t)nref; b < sizeof(alcgPair) * (size_t)outCap; b++) {
        ENSURE_MSG(((unsigned char*)h1)[b] == 0xAB, "%s: write past the merged set", label);
    }
    int same = nref == n0;
    for (int p = 0; same && p < n0; p++) same = h0[p].key == h1[p].key;
    ENSURE_MSG(changed == !same, "%s: changed %d", label, changed);
    // capacity one short: the count needed, nothing written
    if (nref > 0) {
        ENSURE_OK(alcg_memset(&c->s, d_out, 0xAB, sizeof(alcgPair) * (size_t)outCap));
        nact = -1;
        alctStatus st = alcg_activeSet_merge(d_pairs, n0, c->d_cand, ncand, nvert, removeBelow,
                                             d_out, nref - 1, &nact, NULL, d_temp, &tb, &c->s);
        ENSURE_MSG(st == ALC_ERR_CAPACITY && nact == nref, "%s: status %d, %d needed", label,
                   (int)st, nact);
        ENSURE_OK(alcg_download(&c->s, h1, d_out, sizeof(alcgPair) * (size_t)outCap));
        for (size_t b = 0; b < sizeof(alcgPair) * (size_t)outCap; b++) {
            ENSURE_MSG(((unsigned char*)h1)[b] == 0xAB, "%s: overflow wrote", label);
        }
        ENSURE_OK(alcg_activeSet_merge(d_pairs, n0, c->d_cand, ncand, nvert, removeBelow, d_out,
                                       nref, &nact, NULL, d_temp, &tb, &c->s));
    }
    // linearization at X (Eq. 10)
    alcr_contact_linearize(B);
    ENSURE_OK(alcg_activeSet_linearize(c->d_x, d_out, nref, NULL, 0, 0, &c->s));
    ENSURE_OK(alcg_download(&c->s, h1, d_out, sizeof(alcgPair) * (size_t)nref));
    double maxDiff = 0;
    for (int p = 0; p < nref; p++) {
        const alcrPair* H = &B->pairs[p];
        ENSURE_MSG(closeTo(h1[p].d, H->d, 1e-12), "%s: pair %d d %.17g, host %.17g", label, p,
                   h1[p].d, H->d);
        maxDiff = fmax(maxDiff, fabs(h1[p].d - H->d));
        for (int j = 0; j < 12; j++) {
            ENSURE_MSG(closeTo(h1[p].g[j], H->g[j], 1.0), "%s: pair %d g[%d] %.17g, host %.17g",
                       label, p, j, h1[p].g[j], H->g[j]);
            maxDiff = fmax(maxDiff, fabs(h1[p].g[j] - H->g[j]));
        }
    }
    alct_note(
        "%-18s C %5d -> %5d (%d kept, %d new) of %d within reach; linearization max diff "
        "%.3g",
        label, n0, nref, nref - added, added, ncand, maxDiff);
    alcg_free(d_pairs);
    alcg_free(d_out);
    alcg_free(d_temp);
    free(h0);
    free(h1);
    return ALC_TEST_PASS;
}

ALC_TEST(activeSet_scenes) {
    for (int i = 0; alct_gpuScenes[i]; i++) {
        alctContact c;
        if (!alct_contactScene(alct_gpuScenes[i], &c)) {
            alct_contactFree(&c);
            ENSURE_MSG(0, "%s: case setup failed", alct_gpuScenes[i]);
        }
        // the scene's own active set, every fourth pair decayed below the threshold
        alcrBackend* B = c.B;
        for (int p = 3; p < B->npair; p += 4) B->pairs[p].gamma = 0.5 * B->cp.removeBelow;
        int r = mergeCase(&c, alct_gpuScenes[i]);
        alct_contactFree(&c);
        if (r != ALC_TEST_PASS) return r;
    }
    return ALC_TEST_PASS;
}

ALC_TEST(activeSet_random) {
    static const unsigned seeds[] = {2, 11};
    for (int i = 0; i < 2; i++) {
        alctContact c;
        if (!alct_contactRandom(seeds[i], 400, 0.08, 1e-3, &c)) {
            alct_contactFree(&c);
            ENSURE_MSG(0, "random %u: case setup failed", seeds[i]);
        }
        char label[32];
        snprintf(label, sizeof label, "random %u", seeds[i]);
        fabricatePairs(&c);
        int r = mergeCase(&c, label);
        // a second collection from the merged set, driven further
        if (r == ALC_TEST_PASS) {
            ENSURE(alct_contactCollect(&c, 2.5));
            for (int p = 1; p < c.B->npair; p += 5) c.B->pairs[p].gamma = 0.0;
            snprintf(label, sizeof label, "random %u x2.5", seeds[i]);
            r = mergeCase(&c, label);
        }
        alct_contactFree(&c);
        if (r != ALC_TEST_PASS) return r;
    }
    return ALC_TEST_PASS;
}

ALC_TEST(activeSet_emptyAndUnsorted) {
    alctContact c;
    if (!alct_contactRandom(5, 200, 0.08, 1e-3, &c)) {
        alct_contactFree(&c);
        ENSURE_MSG(0, "case setup failed");
    }
    double minToi = 0;
    int ncand = 0;
    ENSURE_OK(alct_contactNarrow(&c, c.candCap, &minToi, &ncand));
    ENSURE(ncand >= 2);
    size_t tb = 0;
    void* d_temp = NULL;
    alcgPair* d_out = NULL;
    ENSURE_OK(alcg_activeSet_merge(NULL, 0, c.d_cand, ncand, c.mo.nvert, 0.01, NULL, 0, NULL, NULL,
                                   NULL, &tb, &c.s));
    ENSURE_OK(alcg_malloc(&c.s, &d_temp, tb));
    ENSURE_OK(alcg_malloc(&c.s, (void**)&d_out, sizeof(alcgPair) * (size_t)ncand));
    // nothing to merge: an empty set, unchanged
    int nact = -1, changed = -1;
    ENSURE_OK(alcg_activeSet_merge(NULL, 0, NULL, 0, c.mo.nvert, 0.01, d_out, ncand, &nact,
                                   &changed, d_temp, &tb, &c.s));
    ENSURE(nact == 0 && changed == 0);
    // an empty set takes every new pair that is earliest at one of its vertices; the pad members
    // of the candidates and of the new pairs, written into garbage, come out zero (under the
    // emulation an unwritten local often reads zero anyway: this half bites on a device)
    size_t bytes = sizeof(alcgPair) * (size_t)ncand;
    alcgPair* hp = (alcgPair*)malloc(bytes);
    alcgCand* hc = (alcgCand*)malloc(sizeof(alcgCand) * (size_t)ncand);
    ENSURE(hp && hc);
    memset(hp, 0xab, bytes);
    ENSURE_OK(alcg_upload(&c.s, d_out, hp, bytes));
    ENSURE_OK(alcg_activeSet_merge(NULL, 0, c.d_cand, ncand, c.mo.nvert, 0.01, d_out, ncand, &nact,
                                   &changed, d_temp, &tb, &c.s));
    ENSURE(nact > 0 && nact <= ncand && changed == 1);
    ENSURE_OK(alcg_download(&c.s, hc, c.d_cand, sizeof(alcgCand) * (size_t)ncand));
    ENSURE_OK(alcg_download(&c.s, hp, d_out, sizeof(alcgPair) * (size_t)nact));
    for (int i = 0; i < ncand; i++)
        ENSURE_MSG(hc[i].pad == 0, "candidate %d: pad %d", i, hc[i].pad);
    for (int p = 0; p < nact; p++) {
        ENSURE_MSG(hp[p].pad0 == 0 && hp[p].pad1 == 0, "pair %d: pads %d %d", p, hp[p].pad0,
                   hp[p].pad1);
    }
    free(hp);
    free(hc);
    // candidates out of key order are refused
    alcgCand two[2];
    ENSURE_OK(alcg_download(&c.s, two, c.d_cand, sizeof two));
    alcgCand swapped[2] = {two[1], two[0]};
    ENSURE_OK(alcg_upload(&c.s, c.d_cand, swapped, sizeof swapped));
    alctStatus st = alcg_activeSet_merge(NULL, 0, c.d_cand, ncand, c.mo.nvert, 0.01, d_out, ncand,
                                         &nact, &changed, d_temp, &tb, &c.s);
    ENSURE_MSG(st == ALC_ERR_INVALID_ARG, "status %d", (int)st);
    ENSURE(strstr(c.s.err, "ascending") != NULL);
    alcg_free(d_temp);
    alcg_free(d_out);
    alct_contactFree(&c);
    return ALC_TEST_PASS;
}

/// The records the device copies whole have no padding: every byte is a member, so a kernel's
/// struct copy writes all of them and a download or a checkpoint reads none that was never
/// written (compute-sanitizer initcheck found such reads on an H200 before the pad members).
/// This fails when a new member brings padding back; activeSet_emptyAndUnsorted checks that the
/// kernels zero the pads.
ALC_TEST(activeSet_recordsHaveNoPadding) {
    // key; type, v[4] and the pads or flags as ints; the rest doubles
    ENSURE(sizeof(alcgPair) == sizeof(long long) + 8 * sizeof(int) + 17 * sizeof(double));
    ENSURE(sizeof(alcgFric) == sizeof(long long) + 8 * sizeof(int) + 13 * sizeof(double));
    ENSURE(sizeof(alcgCand) == sizeof(long long) + 6 * sizeof(int) + sizeof(double));
    return ALC_TEST_PASS;
}
