// Earliest time of impact between two rigidly moving surfaces (see rigid_toi.h): each surface's
// triangles and edges in a hierarchy in its own frame, queried with the boxes the other
// surface's vertices and edges sweep in that frame (RIPC §4.3), and the curved CCD on each
// overlapping vertex-triangle and edge-edge pair with the earliest time found so far as its end.
#include "rigid_toi.h"

#include "hd/alcm_ccd_curved.h"
#include "rigid_bvh.h"

#include <stdlib.h>
#include <string.h>

/// The trajectory of vertex v of surface s under motion m.
static alcRigidPath pathOf(const alciRigidSurface* s, const alciRigidMotion* m, int v) {
    alcRigidPath p;
    p.a = alcm_v3_load(s->vert + 3 * (size_t)v);
    p.theta0 = alcm_v3_load(m->theta0);
    p.theta1 = alcm_v3_load(m->theta1);
    p.q0 = alcm_v3_load(m->q0);
    p.q1 = alcm_v3_load(m->q1);
    return p;
}

/// A query in progress: the two surfaces and motions, the earliest time so far, the counts, and
/// the primitive being queried (a vertex against the other side's triangles, or an edge of a
/// against b's edges).
typedef struct {
    const alciRigidSurface* surf[2];
    const alciRigidMotion* mot[2];
    double dmin;
    double best;
    alciRigidToiStats st;
    int side;   // side of the queried primitive
    int index;  // the vertex (PT) or the edge of a (EE)
} Query;

/// The curved CCD on one stencil, ending at the earliest time so far.
static void ccdStencil(Query* q, const alcRigidPath path[4], bool isEE) {
    double t;
    alcCcdCurvedStats cs;
    q->st.candidates++;
    q->st.queries++;
    if (alcm_ccd_curved(path, isEE, q->dmin, q->best, &t, &cs) && t < q->best) q->best = t;
    q->st.linear += cs.linear;
}

/// Vertex q->index of side q->side against triangle `tri` of the other side.
static void visitTriangle(void* user, int tri) {
    Query* q = (Query*)user;
    const alciRigidSurface *s0 = q->surf[q->side], *s1 = q->surf[1 - q->side];
    const alciRigidMotion *m0 = q->mot[q->side], *m1 = q->mot[1 - q->side];
    alcRigidPath path[4];
    path[0] = pathOf(s0, m0, q->index);
    for (int k = 0; k < 3; k++) path[1 + k] = pathOf(s1, m1, s1->tri[3 * (size_t)tri + k]);
    ccdStencil(q, path, false);
}

/// Edge q->index of side q->side against edge `edge` of the other side.
static void visitEdge(void* user, int edge) {
    Query* q = (Query*)user;
    const alciRigidSurface *s0 = q->surf[q->side], *s1 = q->surf[1 - q->side];
    const alciRigidMotion *m0 = q->mot[q->side], *m1 = q->mot[1 - q->side];
    alcRigidPath path[4];
    for (int k = 0; k < 2; k++) {
        path[k] = pathOf(s0, m0, s0->edge[2 * (size_t)q->index + k]);
        path[2 + k] = pathOf(s1, m1, s1->edge[2 * (size_t)edge + k]);
    }
    ccdStencil(q, path, true);
}

/// |theta1 - theta0| of a motion (rad).
static double turn(const alciRigidMotion* m) {
    return alcm_v3_norm(alcm_v3_sub(alcm_v3_load(m->theta1), alcm_v3_load(m->theta0)));
}

/// Body-frame hierarchies of a surface's triangles (kind 0) or edges (kind 1).
static alctStatus frameBvh(const alciRigidSurface* s, int kind, alciRigidBvh* t) {
    int n = kind == 0 ? s->ntri : s->nedge, nv = kind == 0 ? 3 : 2;
    const int* idx = kind == 0 ? s->tri : s->edge;
    alcAabb* box = (alcAabb*)malloc(sizeof(alcAabb) * (size_t)(n > 0 ? n : 1));
    if (!box) return ALC_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        box[i] = alcm_aabb_empty();
        for (int k = 0; k < nv; k++)
            box[i] =
                alcm_aabb_addPoint(box[i], alcm_v3_load(s->vert + 3 * (size_t)idx[nv * i + k]));
    }
    alctStatus st = alci_rigidBvh_build(t, box, n);
    free(box);
    return st;
}

/// Pieces of the step whose frame boxes are joined: interval arithmetic over a whole step of a
/// large turn encloses far more than the path (RIPC's boxes are per step), and the union of the
/// boxes of shorter pieces holds the same path more tightly.
#define FRAME_PIECES 4

/// Box of vertex v of side `side` in the other side's body frame over [0, tmax], grown by r.
static alcAabb frameBoxOf(const Query* q, int side, int v, double tmax, double r) {
    alcRigidPath p = pathOf(q->surf[side], q->mot[side], v);
    const alciRigidMotion* o = q->mot[1 - side];
    alcAabb b = alcm_aabb_empty();
    for (int k = 0; k < FRAME_PIECES; k++) {
        double t0 = tmax * k / FRAME_PIECES,
               t1 = k + 1 == FRAME_PIECES ? tmax : tmax * (k + 1) / FRAME_PIECES;
        b = alcm_aabb_union(
            b, alcm_rigid_frameBox(&p, alcm_v3_load(o->theta0), alcm_v3_load(o->theta1),
                                   alcm_v3_load(o->q0), alcm_v3_load(o->q1), t0, t1));
    }
    return alcm_aabb_grow(b, r);
}

alctStatus alci_rigid_toi(const alciRigidSurface* a, const alciRigidMotion* ma,
                          const alciRigidSurface* b, const alciRigidMotion* mb, double dmin,
                          double tmax, double* toi, alciRigidToiStats* stats) {
    if (!a || !b || !ma || !mb || !toi || !(dmin >= 0) || !(tmax > 0 && tmax <= 1))
        return ALC_ERR_INVALID_ARG;
    Query q;
    memset(&q, 0, sizeof q);
    q.surf[0] = a;
    q.surf[1] = b;
    q.mot[0] = ma;
    q.mot[1] = mb;
    q.dmin = dmin;
    q.best = tmax;
    // each surface's triangles in its own frame (RIPC §4.3), and the edges of the one that
    // turns less: the other's edges are mapped into its frame, where a point's box grows with
    // the frame's turn times its distance from the frame's centre (alcm_rigid_frameBox). Built
    // once per query here; a simulation keeps them for the run.
    int es = turn(ma) <= turn(mb) ? 1 : 0;  // the side whose edges are mapped
    alciRigidBvh tri[2], edges;
    memset(tri, 0, sizeof tri);
    memset(&edges, 0, sizeof edges);
    alctStatus st = frameBvh(a, 0, &tri[0]);
    if (st == ALC_OK) st = frameBvh(b, 0, &tri[1]);
    if (st == ALC_OK) st = frameBvh(q.surf[1 - es], 1, &edges);
    int nv = q.surf[es]->nvert;
    alcAabb* vbox = (alcAabb*)malloc(sizeof(alcAabb) * (size_t)(nv > 0 ? nv : 1));
    if (st == ALC_OK && !vbox) st = ALC_ERR_NOMEM;
    if (st == ALC_OK) {
        // the vertices of each side, swept in the other's frame, against its triangles: boxes
        // grown by dmin (distances are frame-independent)
        for (int side = 0; side < 2; side++) {
            q.side = side;
            for (int v = 0; v < q.surf[side]->nvert; v++) {
                alcAabb bx = frameBoxOf(&q, side, v, tmax, dmin);
                if (side == es) vbox[v] = bx;
                q.index = v;
                alci_rigidBvh_query(&tri[1 - side], bx, visitTriangle, &q);
            }
        }
        // the mapped side's edges (the hull of their end points' boxes, which holds every point
        // of the edge at every time) against the other side's edges
        const alciRigidSurface* se = q.surf[es];
        q.side = es;
        for (int e = 0; e < se->nedge; e++) {
            q.index = e;
            alcAabb bx = alcm_aabb_union(vbox[se->edge[2 * e]], vbox[se->edge[2 * e + 1]]);
            alci_rigidBvh_query(&edges, bx, visitEdge, &q);
        }
    }
    free(vbox);
    alci_rigidBvh_free(&tri[0]);
    alci_rigidBvh_free(&tri[1]);
    alci_rigidBvh_free(&edges);
    if (st != ALC_OK) return st;
    *toi = q.best;
    if (stats) *stats = q.st;
    return ALC_OK;
}
