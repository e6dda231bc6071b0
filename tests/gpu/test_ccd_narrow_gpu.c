// cuda/ccd_narrow.cu against the narrow phase of alcr_ccd_collect (host/ref/ccd_ref.c) on the
// same broad-phase candidates: per-candidate times, the minimum, the pairs within reach.
#include "../test_macros.h"
#include "contact_fixture.h"
#include "hd/alcm_distance.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// |dev - host| within the device tolerance (contact_fixture.h); toi and reach are fractions of
/// the step, so the tolerance is relative to the step.
static int sameTime(double dev, double host) {
    return fabs(dev - host) <= ALCT_DEVICE_RTOL;
}

/// Distance of candidate c's stencil at time t of the motion X -> XHAT.
static double distanceAt(const alctContact* c, int cand, double t) {
    int v[4], type;
    alcr_ccd_candidate(c->B, cand, c->npt, v, &type);
    alcV3 x[4];
    for (int a = 0; a < 4; a++) {
        const double* p = c->mo.x0 + 3 * v[a];
        const double* q = c->xhat + 3 * v[a];
        x[a] =
            alcm_v3(p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]), p[2] + t * (q[2] - p[2]));
    }
    return type == ALCR_PT ? alcm_pt_distance(x, NULL) : alcm_ee_distance(x, NULL);
}

/// The device narrow phase on the case's candidates against the reference's results.
static int compareCase(alctContact* c, const char* label) {
    int ntot = c->npt + c->nee;
    double minToi = -1;
    int ncollide = -1;
    ENSURE_MSG(alct_contactNarrow(c, c->candCap, &minToi, &ncollide) == ALC_OK, "%s: %s", label,
               c->s.err);
    double* toi = (double*)malloc(sizeof(double) * (size_t)(ntot + 1));
    double* reach = (double*)malloc(sizeof(double) * (size_t)(ntot + 1));
    alcgCand* cand = (alcgCand*)malloc(sizeof(alcgCand) * (size_t)(ncollide + 1));
    ENSURE(toi && reach && cand);
    ENSURE_OK(alcg_download(&c->s, toi, c->d_toi, sizeof(double) * (size_t)ntot));
    ENSURE_OK(alcg_download(&c->s, reach, c->d_reach, sizeof(double) * (size_t)ntot));
    ENSURE_OK(alcg_download(&c->s, cand, c->d_cand, sizeof(alcgCand) * (size_t)ncollide));
    // per candidate: the same times, never later than the host's, no host hit missed
    int hits = 0, exact = 0;
    double maxDiff = 0;
    double xiReach = c->in.xi + ALC_CCD_REACH * c->in.delta;
    for (int k = 0; k < ntot; k++) {
        double dt = toi[k], ht = c->toi[k], dr = reach[k], hr = c->reach[k];
        ENSURE_MSG(ht == 2.0 ? dt == 2.0 : dt < 2.0, "%s: candidate %d toi %.17g, host %.17g",
                   label, k, dt, ht);
        ENSURE_MSG(hr == 2.0 ? dr == 2.0 : dr < 2.0, "%s: candidate %d reach %.17g, host %.17g",
                   label, k, dr, hr);
        ENSURE_MSG(sameTime(dt, ht) && dt <= ht + ALCT_DEVICE_RTOL,
                   "%s: candidate %d toi %.17g, host %.17g", label, k, dt, ht);
        ENSURE_MSG(sameTime(dr, hr) && dr <= hr + ALCT_DEVICE_RTOL,
                   "%s: candidate %d reach %.17g, host %.17g", label, k, dr, hr);
        exact += dt == ht && dr == hr;
        maxDiff = fmax(maxDiff, fmax(fabs(dt - ht), fabs(dr - hr)));
        // conservative on its own: still apart (beyond xi, or the reach offset) at the time
        if (dt < 2.0) {
            hits++;
            if (dt > 0) {
                double d = distanceAt(c, k, dt);
                ENSURE_MSG(d > c->in.xi, "%s: candidate %d at toi %.17g has d = %.3g", label, k, dt,
                           d);
            }
            if (dr > 0 && dr < 2.0) {
                double d = distanceAt(c, k, dr);
                ENSURE_MSG(d > xiReach, "%s: candidate %d at reach %.17g has d = %.3g <= %.3g",
                           label, k, dr, d, xiReach);
            }
        }
    }
    // the minimum and the pairs within reach, in the same order
    ENSURE_MSG(sameTime(minToi, c->out.minToi), "%s: minToi %.17g, host %.17g", label, minToi,
               c->out.minToi);
    ENSURE_MSG(ncollide == c->out.ncollide, "%s: %d within reach, host %d", label, ncollide,
               c->out.ncollide);
    for (int k = 0; k < ncollide; k++) {
        const alcrCand* H = &c->cand[k];
        const alcgCand* D = &cand[k];
        ENSURE_MSG(D->key == H->key && D->type == H->type && !memcmp(D->v, H->v, sizeof D->v),
                   "%s: pair %d key %lld, host %lld", label, k, D->key, H->key);
        ENSURE_MSG(sameTime(D->toi, H->toi), "%s: pair %d toi %.17g, host %.17g", label, k, D->toi,
                   H->toi);
    }
    ENSURE(alct_contactGuardIntact(c, c->candCap));
    alct_note(
        "%-18s %7d candidates, %6d hit, %5d within reach, minToi %.4g, %d of %d exact "
        "(max diff %.3g)",
        label, ntot, hits, ncollide, minToi, exact, ntot, maxDiff);
    free(toi);
    free(reach);
    free(cand);
    return ALC_TEST_PASS;
}

ALC_TEST(ccdNarrow_scenes) {
    int ran = 0;
    for (int i = 0; alct_gpuScenes[i]; i++) {
        alctContact c;
        if (!alct_contactScene(alct_gpuScenes[i], &c)) {
            alct_contactFree(&c);
            ENSURE_MSG(0, "%s: case setup failed", alct_gpuScenes[i]);
        }
        int r = compareCase(&c, alct_gpuScenes[i]);
        alct_contactFree(&c);
        if (r != ALC_TEST_PASS) return r;
        ran++;
    }
    ENSURE(ran > 0);
    return ALC_TEST_PASS;
}

ALC_TEST(ccdNarrow_random) {
    // soups of small tetrahedra moving by up to a cell, so that many pairs collide; the second
    // stretch of each drives them through each other
    static const unsigned seeds[] = {1, 7, 42};
    for (int i = 0; i < 3; i++) {
        alctContact c;
        if (!alct_contactRandom(seeds[i], 400, 0.08, 1e-3, &c)) {
            alct_contactFree(&c);
            ENSURE_MSG(0, "random %u: case setup failed", seeds[i]);
        }
        char label[32];
        snprintf(label, sizeof label, "random %u", seeds[i]);
        int r = compareCase(&c, label);
        if (r == ALC_TEST_PASS) {
            ENSURE(alct_contactCollect(&c, 2.5));
            snprintf(label, sizeof label, "random %u x2.5", seeds[i]);
            r = compareCase(&c, label);
        }
        alct_contactFree(&c);
        if (r != ALC_TEST_PASS) return r;
    }
    return ALC_TEST_PASS;
}

ALC_TEST(ccdNarrow_capacity) {
    // a capacity below the pairs within reach: the count needed comes back, the first cap
    // pairs are written, and nothing past cap
    alctContact c;
    if (!alct_contactRandom(3, 300, 0.08, 1e-3, &c)) {
        alct_contactFree(&c);
        ENSURE_MSG(0, "case setup failed");
    }
    int need = c.out.ncollide;
    ENSURE_MSG(need >= 4, "only %d pairs within reach", need);
    int caps[] = {0, 1, need / 2, need - 1};
    for (int i = 0; i < 4; i++) {
        double minToi = -1;
        int ncollide = -1;
        alctStatus st = alct_contactNarrow(&c, caps[i], &minToi, &ncollide);
        ENSURE_MSG(st == ALC_ERR_CAPACITY, "cap %d: status %d", caps[i], (int)st);
        ENSURE(strstr(c.s.err, "capacity") != NULL);
        ENSURE(ncollide == need);
        ENSURE(sameTime(minToi, c.out.minToi));
        ENSURE(alct_contactGuardIntact(&c, caps[i]));
        alcgCand* cand = (alcgCand*)malloc(sizeof(alcgCand) * (size_t)(caps[i] + 1));
        ENSURE(cand);
        ENSURE_OK(alcg_download(&c.s, cand, c.d_cand, sizeof(alcgCand) * (size_t)caps[i]));
        for (int k = 0; k < caps[i]; k++) ENSURE(cand[k].key == c.cand[k].key);
        free(cand);
    }
    // the exact capacity suffices
    double minToi = -1;
    int ncollide = -1;
    ENSURE_OK(alct_contactNarrow(&c, need, &minToi, &ncollide));
    ENSURE(ncollide == need && alct_contactGuardIntact(&c, need));
    // two-phase scratch: too little is refused
    size_t small = c.tempBytes / 2;
    ENSURE(alcg_ccdNarrow_collect(&c.in, c.d_toi, c.d_reach, c.d_cand, need, &minToi, &ncollide,
                                  c.d_temp, &small, &c.s) == ALC_ERR_INVALID_ARG);
    alct_contactFree(&c);
    return ALC_TEST_PASS;
}
