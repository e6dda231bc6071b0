// The body-frame hierarchy of a rigid body (host/rigid_bvh.h) against brute force, and the boxes
// a moving body's points sweep in another moving body's frame (alcm_rigid_frameBox,
// hd/alcm_rigid.h) against sampled trajectories.
#include "hd/alcm_rigid.h"
#include "rigid_bvh.h"
#include "test_macros.h"
#include "test_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static alcV3 randV3(double s) {
    return alcm_v3(rngRange(-s, s), rngRange(-s, s), rngRange(-s, s));
}

/// A random box around a random centre, half-sizes up to r (0: a point).
static alcAabb randBox(double spread, double r) {
    alcV3 c = randV3(spread);
    alcV3 h = alcm_v3(rngRange(0, r), rngRange(0, r), rngRange(0, r));
    alcAabb b = {alcm_v3_sub(c, h), alcm_v3_add(c, h)};
    return b;
}

typedef struct {
    int* seen;  // visits per primitive
    long calls;
} Visits;

static void countVisit(void* user, int p) {
    Visits* v = (Visits*)user;
    v->seen[p]++;
    v->calls++;
}

/// Every query of `nq` random boxes visits exactly the primitives whose boxes overlap it, once.
static int queriesMatch(const alcAabb* box, int n, int nq, double spread, double r) {
    alciRigidBvh t;
    if (alci_rigidBvh_build(&t, box, n) != ALC_OK) return 0;
    int* seen = (int*)calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    int ok = seen != NULL;
    for (int k = 0; ok && k < nq; k++) {
        alcAabb q = randBox(spread, r);
        memset(seen, 0, sizeof(int) * (size_t)(n > 0 ? n : 1));
        Visits v = {seen, 0};
        long got = alci_rigidBvh_query(&t, q, countVisit, &v);
        long want = 0;
        for (int i = 0; i < n; i++) {
            int overlap = alcm_aabb_overlap(box[i], q);
            want += overlap;
            if (seen[i] != overlap) {
                alct_note("query %d: primitive %d visited %d times, overlaps %d", k, i, seen[i],
                          overlap);
                ok = 0;
                break;
            }
        }
        if (got != want || v.calls != want) ok = 0;
    }
    free(seen);
    alci_rigidBvh_free(&t);
    return ok;
}

ALC_TEST(rigid_bvh_queryMatchesBruteForce) {
    rngSeed(101);
    enum { N = 2000 };
    alcAabb* box = (alcAabb*)malloc(sizeof(alcAabb) * N);
    ENSURE(box != NULL);
    // scattered boxes of mixed sizes, queried with small and large boxes
    for (int i = 0; i < N; i++) box[i] = randBox(1.0, i % 3 == 0 ? 0.2 : 0.02);
    ENSURE(queriesMatch(box, N, 200, 1.2, 0.05));
    ENSURE(queriesMatch(box, N, 50, 1.0, 0.6));
    // every box the same (equal centres: the median split must still end)
    for (int i = 0; i < N; i++) box[i] = box[0];
    ENSURE(queriesMatch(box, N, 50, 1.0, 0.5));
    // points (zero-size boxes) on a plane, and a handful
    for (int i = 0; i < N; i++) {
        box[i] = randBox(1.0, 0);
        box[i].lo.z = box[i].hi.z = 0.25;
    }
    ENSURE(queriesMatch(box, N, 100, 1.0, 0.3));
    ENSURE(queriesMatch(box, 3, 50, 1.0, 0.8));
    ENSURE(queriesMatch(box, 1, 20, 1.0, 0.8));
    free(box);
    // the tree's shape: fewer than 2 n nodes, leaves of at most ALCI_BVH_LEAF, each primitive in
    // exactly one leaf
    alcAabb few[37];
    for (int i = 0; i < 37; i++) few[i] = randBox(1.0, 0.1);
    alciRigidBvh t;
    ENSURE_OK(alci_rigidBvh_build(&t, few, 37));
    ENSURE(t.nnode < 2 * 37 && t.nprim == 37);
    int inLeaf[37] = {0};
    for (int k = 0; k < t.nnode; k++) {
        if (t.node[k].left >= 0) continue;
        ENSURE(t.node[k].count >= 1 && t.node[k].count <= ALCI_BVH_LEAF);
        for (int i = t.node[k].first; i < t.node[k].first + t.node[k].count; i++) {
            inLeaf[t.prim[i]]++;
            ENSURE(alcm_aabb_contains(t.node[k].box, few[t.prim[i]]));
        }
    }
    for (int i = 0; i < 37; i++) ENSURE(inLeaf[i] == 1);
    alci_rigidBvh_free(&t);
    // empty and bad input
    ENSURE_OK(alci_rigidBvh_build(&t, NULL, 0));
    ENSURE(t.nnode == 0 && alci_rigidBvh_query(&t, few[0], countVisit, NULL) == 0);
    ENSURE(alci_rigidBvh_build(&t, NULL, 5) == ALC_ERR_INVALID_ARG);
    ENSURE(alci_rigidBvh_build(&t, few, -1) == ALC_ERR_INVALID_ARG);
    ENSURE(alci_rigidBvh_build(NULL, few, 1) == ALC_ERR_INVALID_ARG);
    alci_rigidBvh_free(NULL);
    return ALC_TEST_PASS;
}

/// Where point a of a body moving by pa lies in the frame of a body moving by (thB, qB) at t.
static alcV3 inFrame(const alcRigidPath* pa, alcV3 thB0, alcV3 thB1, alcV3 qB0, alcV3 qB1,
                     double t) {
    alcV3 x = alcm_rigidPath_at(pa, t);
    alcV3 thB = alcm_v3_add(alcm_v3_scale(thB0, 1 - t), alcm_v3_scale(thB1, t));
    alcV3 qB = alcm_v3_add(alcm_v3_scale(qB0, 1 - t), alcm_v3_scale(qB1, t));
    return alcm_m3_mulv(alcm_rodrigues(alcm_v3_scale(thB, -1)), alcm_v3_sub(x, qB));
}

ALC_TEST(rigid_frameBox_enclosesSampledPaths) {
    rngSeed(202);
    double worstRatio = 0, worstOut = 0;
    for (int it = 0; it < 600; it++) {
        // turns of up to 3 rad per step on either body (a quarter of the cases: B still)
        double ra = it % 2 ? 3.0 : 0.3, rb = it % 4 == 0 ? 0 : (it % 3 ? 0.5 : 3.0);
        alcRigidPath pa;
        pa.a = randV3(1.0);
        pa.theta0 = randV3(2.0);
        pa.theta1 = alcm_v3_add(pa.theta0, randV3(ra / sqrt(3.0)));
        pa.q0 = randV3(2.0);
        pa.q1 = alcm_v3_add(pa.q0, randV3(0.5));
        alcV3 thB0 = randV3(2.0), thB1 = alcm_v3_add(thB0, randV3(rb / sqrt(3.0)));
        alcV3 qB0 = randV3(2.0), qB1 = alcm_v3_add(qB0, randV3(0.5));
        double t0 = it % 5 == 0 ? rngRange(0, 0.5) : 0, t1 = it % 5 == 0 ? rngRange(t0, 1) : 1;
        alcAabb b = alcm_rigid_frameBox(&pa, thB0, thB1, qB0, qB1, t0, t1);
        alcAabb s = alcm_aabb_empty();
        for (int k = 0; k <= 2000; k++) {
            alcV3 y = inFrame(&pa, thB0, thB1, qB0, qB1, t0 + (t1 - t0) * k / 2000.0);
            s = alcm_aabb_addPoint(s, y);
        }
        // every sample inside (to the rounding of the sampling itself)
        double tol = 1e-12 * (1 + alcm_v3_norm(pa.a) + alcm_v3_norm(pa.q0) + alcm_v3_norm(qB0));
        double out = fmax(fmax(fmax(b.lo.x - s.lo.x, b.lo.y - s.lo.y), b.lo.z - s.lo.z),
                          fmax(fmax(s.hi.x - b.hi.x, s.hi.y - b.hi.y), s.hi.z - b.hi.z));
        worstOut = fmax(worstOut, out);
        ENSURE_MSG(out <= tol, "it %d: a sample %.3g outside the box", it, out);
        // and not absurdly loose: the box's diagonal against the samples'
        double ds = alcm_v3_norm(alcm_v3_sub(s.hi, s.lo));
        double db = alcm_v3_norm(alcm_v3_sub(b.hi, b.lo));
        if (ds > 1e-3) worstRatio = fmax(worstRatio, db / ds);
    }
    alct_note(
        "600 paths: no sample outside (worst %.2g m past a face); box diagonal at most %.1f "
        "times the samples'",
        worstOut, worstRatio);
    // a body standing still maps a translating point exactly (to rounding)
    alcRigidPath p = {alcm_v3(0.1, 0.2, 0.3), alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(1, 0, 0),
                      alcm_v3(2, 0, 0)};
    alcAabb b = alcm_rigid_frameBox(&p, alcm_v3(0, 0, 0), alcm_v3(0, 0, 0), alcm_v3(0, 0, 1),
                                    alcm_v3(0, 0, 1), 0, 1);
    ENSURE(fabs(b.lo.x - 1.1) < 1e-14 && fabs(b.hi.x - 2.1) < 1e-14);
    ENSURE(fabs(b.lo.z - (-0.7)) < 1e-14 && fabs(b.hi.z - (-0.7)) < 1e-14);
    return ALC_TEST_PASS;
}
