// Tests of host/rigid_toi.c (earliest time of impact between two rigidly moving surfaces):
// a cube swung into another, a bar turning a full turn past a cube (chords of zero length),
// and zero false negatives with every reported time safe on random rigid motions of two
// cubes, against surface distances sampled over the step.
#include "hd/alcm_distance.h"
#include "hd/alcm_rigid.h"
#include "mesh.h"
#include "rigid_toi.h"
#include "test_macros.h"
#include "test_rng.h"

#include <stdlib.h>
#include <string.h>

/// A box surface of the given size centred at the origin (12 triangles) with its edges.
typedef struct {
    alciMesh mesh;
    int* edge;
    int nedge;
    alciRigidSurface s;
} Box;

static int makeBox(Box* b, double sx, double sy, double sz) {
    memset(b, 0, sizeof *b);
    const double size[3] = {sx, sy, sz};
    const int cells[3] = {1, 1, 1};
    if (alci_mesh_box(size, cells, &b->mesh) != ALC_OK) return 0;
    char err[256];
    if (alci_mesh_boundary(&b->mesh, err, sizeof err) != ALC_OK) return 0;
    if (alci_mesh_edges(b->mesh.tri, b->mesh.ntri, &b->edge, &b->nedge) != ALC_OK) return 0;
    b->s.nvert = b->mesh.nvert;
    b->s.vert = b->mesh.vert;
    b->s.ntri = b->mesh.ntri;
    b->s.tri = b->mesh.tri;
    b->s.nedge = b->nedge;
    b->s.edge = b->edge;
    return 1;
}

static void freeBox(Box* b) {
    alci_mesh_free(&b->mesh);
    free(b->edge);
}

static alciRigidMotion still(double x, double y, double z) {
    alciRigidMotion m;
    memset(&m, 0, sizeof m);
    m.q0[0] = m.q1[0] = x;
    m.q0[1] = m.q1[1] = y;
    m.q0[2] = m.q1[2] = z;
    return m;
}

/// World position of vertex v of s at t under m.
static alcV3 at(const alciRigidSurface* s, const alciRigidMotion* m, int v, double t) {
    alcRigidPath p;
    p.a = alcm_v3_load(s->vert + 3 * v);
    p.theta0 = alcm_v3_load(m->theta0);
    p.theta1 = alcm_v3_load(m->theta1);
    p.q0 = alcm_v3_load(m->q0);
    p.q1 = alcm_v3_load(m->q1);
    return alcm_rigidPath_at(&p, t);
}

/// Distance between the two surfaces at t: the minimum over vertex-triangle pairs both ways
/// and edge pairs (the surfaces do not intersect at the times sampled before a hit).
static double surfaceDistance(const alciRigidSurface* a, const alciRigidMotion* ma,
                              const alciRigidSurface* b, const alciRigidMotion* mb, double t) {
    const alciRigidSurface* s[2] = {a, b};
    const alciRigidMotion* m[2] = {ma, mb};
    double d = HUGE_VAL;
    for (int side = 0; side < 2; side++) {
        const alciRigidSurface *p = s[side], *q = s[1 - side];
        for (int v = 0; v < p->nvert; v++) {
            alcV3 x[4];
            x[0] = at(p, m[side], v, t);
            for (int f = 0; f < q->ntri; f++) {
                for (int k = 0; k < 3; k++) x[1 + k] = at(q, m[1 - side], q->tri[3 * f + k], t);
                d = fmin(d, alcm_pt_distance(x, NULL));
            }
        }
    }
    for (int e = 0; e < a->nedge; e++) {
        for (int g = 0; g < b->nedge; g++) {
            alcV3 x[4] = {at(a, ma, a->edge[2 * e], t), at(a, ma, a->edge[2 * e + 1], t),
                          at(b, mb, b->edge[2 * g], t), at(b, mb, b->edge[2 * g + 1], t)};
            d = fmin(d, alcm_ee_distance(x, NULL));
        }
    }
    return d;
}

ALC_TEST(rigid_toi_swungCube) {
    // cube B (side 1) swung about z by 90 degrees while moving from x = 3 to x = 0.9 towards
    // cube A (side 1, at rest at the origin): at the end B's face is at x = 0.4, inside A, so
    // B hits A during the step; the time reported is no later than the first sampled time
    // within dmin and every sampled time before it is clear
    Box A, B;
    ENSURE(makeBox(&A, 1, 1, 1) && makeBox(&B, 1, 1, 1));
    ENSURE(A.s.ntri == 12 && A.nedge == 18);
    alciRigidMotion ma = still(0, 0, 0), mb = still(3, 0, 0);
    mb.q1[0] = 0.9;
    mb.theta1[2] = 0.5 * 3.14159265358979;
    const double dmin = 1e-3;
    double toi;
    alciRigidToiStats st;
    ENSURE(alci_rigid_toi(&A.s, &ma, &B.s, &mb, dmin, 1.0, &toi, &st) == ALC_OK);
    double first = 2;
    for (int k = 0; k <= 1000 && first > 1; k++) {
        double t = k / 1000.0;
        if (surfaceDistance(&A.s, &ma, &B.s, &mb, t) < dmin) first = t;
    }
    alct_note(
        "toi %.4f, first sampled time within dmin %.4f; %ld candidates, %ld queries, "
        "%ld linear CCD calls",
        toi, first, st.candidates, st.queries, st.linear);
    ENSURE(first <= 1 && toi <= first && toi > first - 0.05);
    for (int k = 0; k <= 200; k++)
        ENSURE(surfaceDistance(&A.s, &ma, &B.s, &mb, toi * k / 200.0) > dmin);
    // the same motion stopped at x = 2.5 never comes close: toi = tmax
    mb.q1[0] = 2.5;
    ENSURE(alci_rigid_toi(&A.s, &ma, &B.s, &mb, dmin, 1.0, &toi, NULL) == ALC_OK && toi == 1.0);
    // tmax and bad arguments
    ENSURE(alci_rigid_toi(&A.s, &ma, &B.s, &mb, dmin, 0.5, &toi, NULL) == ALC_OK && toi == 0.5);
    ENSURE(alci_rigid_toi(&A.s, &ma, &B.s, &mb, -1, 1.0, &toi, NULL) == ALC_ERR_INVALID_ARG);
    ENSURE(alci_rigid_toi(&A.s, &ma, &B.s, &mb, 0, 0.0, &toi, NULL) == ALC_ERR_INVALID_ARG);
    ENSURE(alci_rigid_toi(NULL, &ma, &B.s, &mb, 0, 1.0, &toi, NULL) == ALC_ERR_INVALID_ARG);
    freeBox(&A);
    freeBox(&B);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_toi_fullTurn) {
    // a bar 4 x 0.2 x 0.2 turning a full turn about z in one step, with a small cube at
    // (1.2, 1.2, 0) inside the circle its ends sweep: start and end poses are the same, so no
    // straight-line CCD could see the hit at about 45 degrees (t = 1/8 before the 0.1 m halves)
    Box bar, cube;
    ENSURE(makeBox(&bar, 4, 0.2, 0.2) && makeBox(&cube, 0.2, 0.2, 0.2));
    alciRigidMotion mb = still(0, 0, 0), mc = still(1.2, 1.2, 0);
    mb.theta1[2] = 2 * 3.14159265358979;
    double toi;
    ENSURE(alci_rigid_toi(&bar.s, &mb, &cube.s, &mc, 1e-3, 1.0, &toi, NULL) == ALC_OK);
    double first = 2;
    for (int k = 0; k <= 2000 && first > 1; k++)
        if (surfaceDistance(&bar.s, &mb, &cube.s, &mc, k / 2000.0) < 1e-3) first = k / 2000.0;
    alct_note("toi %.4f, first sampled time within dmin %.4f", toi, first);
    ENSURE(first < 0.2 && toi <= first && toi > first - 0.05);
    freeBox(&bar);
    freeBox(&cube);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_toi_randomNoFalseNegative) {
    // two boxes on random rigid motions (turning up to 1.7 rad about each axis per step), A
    // near x = -0.5 and B near x = 0.5 moving towards it by 0.3 to 0.9 m, starting clear of
    // each other: a collision at a sampled time must be reported no later; a reported time
    // must be safe at the sampled times before it
    Box A, B;
    ENSURE(makeBox(&A, 0.6, 0.4, 0.3) && makeBox(&B, 0.5, 0.5, 0.2));
    int trials = 0, hits = 0, missed = 0, unsafe = 0;
    const double dmin = 0.01;
    for (int trial = 0; trial < 60; trial++) {
        alciRigidMotion m[2];
        for (int s = 0; s < 2; s++) {
            for (int k = 0; k < 3; k++) {
                m[s].theta0[k] = rngRange(-3, 3);
                m[s].theta1[k] = m[s].theta0[k] + rngRange(-1.7, 1.7);
                m[s].q0[k] = (s == 0 ? -0.5 : 0.5) * (k == 0) + rngRange(-0.05, 0.05);
                m[s].q1[k] =
                    m[s].q0[k] + (s == 1 && k == 0 ? -rngRange(0.3, 0.9) : rngRange(-0.15, 0.15));
            }
        }
        if (surfaceDistance(&A.s, &m[0], &B.s, &m[1], 0) < 2 * dmin) continue;
        trials++;
        double first = 2;
        for (int k = 0; k <= 200 && first > 1; k++)
            if (surfaceDistance(&A.s, &m[0], &B.s, &m[1], k / 200.0) < dmin) first = k / 200.0;
        double toi;
        ENSURE(alci_rigid_toi(&A.s, &m[0], &B.s, &m[1], dmin, 1.0, &toi, NULL) == ALC_OK);
        if (first <= 1) {
            hits++;
            missed += toi > first;
        }
        for (int k = 0; k <= 50; k++)
            unsafe += surfaceDistance(&A.s, &m[0], &B.s, &m[1], toi * k / 50.0) <= dmin;
    }
    alct_note("%d motions, %d with a sampled collision", trials, hits);
    ENSURE(trials > 30 && hits > 10 && hits < trials);
    ENSURE_MSG(missed == 0, "%d collisions missed or reported late", missed);
    ENSURE_MSG(unsafe == 0, "%d sampled times before a reported time within dmin", unsafe);
    freeBox(&A);
    freeBox(&B);
    return ALC_TEST_PASS;
}
