// Earliest time of impact between two rigidly moving surfaces (see rigid_toi.h): trajectory
// boxes of every primitive, a sort-and-sweep broad phase along x, and the curved CCD on each
// overlapping vertex-triangle and edge-edge pair with the earliest time found so far as its end.
#include "rigid_toi.h"

#include "hd/alcm_ccd_curved.h"

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

/// A primitive's trajectory box with its kind and index, for the sweep.
typedef struct {
    alcAabb box;
    int side;   // 0: surface a, 1: surface b
    int kind;   // 0: vertex, 1: edge, 2: triangle
    int index;  // in its surface's arrays
} Prim;

static int cmpPrim(const void* pa, const void* pb) {
    double a = ((const Prim*)pa)->box.lo.x, b = ((const Prim*)pb)->box.lo.x;
    return a < b ? -1 : (a > b ? 1 : 0);
}

/// Boxes of the vertices, edges and triangles of one surface over [0, tmax], grown by r.
static void boxes(const alciRigidSurface* s, const alciRigidMotion* m, int side, double tmax,
                  double r, alcAabb* vbox, Prim* out, int* n) {
    for (int v = 0; v < s->nvert; v++) {
        alcRigidPath p = pathOf(s, m, v);
        vbox[v] = alcm_rigidPath_box(&p, 0.0, tmax, r);
        Prim q = {vbox[v], side, 0, v};
        out[(*n)++] = q;
    }
    for (int e = 0; e < s->nedge; e++) {
        Prim q = {alcm_aabb_union(vbox[s->edge[2 * e]], vbox[s->edge[2 * e + 1]]), side, 1, e};
        out[(*n)++] = q;
    }
    for (int t = 0; t < s->ntri; t++) {
        const int* f = s->tri + 3 * (size_t)t;
        alcAabb bx = alcm_aabb_union(alcm_aabb_union(vbox[f[0]], vbox[f[1]]), vbox[f[2]]);
        Prim q = {bx, side, 2, t};
        out[(*n)++] = q;
    }
}

alctStatus alci_rigid_toi(const alciRigidSurface* a, const alciRigidMotion* ma,
                          const alciRigidSurface* b, const alciRigidMotion* mb, double dmin,
                          double tmax, double* toi, alciRigidToiStats* stats) {
    if (!a || !b || !ma || !mb || !toi || !(dmin >= 0) || !(tmax > 0 && tmax <= 1))
        return ALC_ERR_INVALID_ARG;
    alciRigidToiStats st = {0, 0, 0};
    const alciRigidSurface* surf[2] = {a, b};
    const alciRigidMotion* mot[2] = {ma, mb};
    int nprim = a->nvert + a->nedge + a->ntri + b->nvert + b->nedge + b->ntri;
    Prim* prim = (Prim*)malloc(sizeof(Prim) * (size_t)(nprim > 0 ? nprim : 1));
    alcAabb* vbox = (alcAabb*)malloc(sizeof(alcAabb) * (size_t)(a->nvert + b->nvert + 1));
    if (!prim || !vbox) {
        free(prim);
        free(vbox);
        return ALC_ERR_NOMEM;
    }
    int n = 0;
    // boxes grown by dmin / 2 each: two boxes apart by less than dmin overlap
    boxes(a, ma, 0, tmax, 0.5 * dmin, vbox, prim, &n);
    boxes(b, mb, 1, tmax, 0.5 * dmin, vbox + a->nvert, prim, &n);
    qsort(prim, (size_t)n, sizeof(Prim), cmpPrim);
    double best = tmax;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n && prim[j].box.lo.x <= prim[i].box.hi.x; j++) {
            const Prim *p = &prim[i], *q = &prim[j];
            if (p->side == q->side || !alcm_aabb_overlap(p->box, q->box)) continue;
            // vertex-triangle (either way round) or edge-edge; the rest are not stencils
            bool isEE = p->kind == 1 && q->kind == 1;
            bool isPT = (p->kind == 0 && q->kind == 2) || (p->kind == 2 && q->kind == 0);
            if (!isEE && !isPT) continue;
            st.candidates++;
            const Prim* first = isPT && p->kind == 2 ? q : p;  // the vertex, or the first edge
            const Prim* second = first == p ? q : p;
            const alciRigidSurface* s0 = surf[first->side];
            const alciRigidSurface* s1 = surf[second->side];
            const alciRigidMotion* m0 = mot[first->side];
            const alciRigidMotion* m1 = mot[second->side];
            alcRigidPath path[4];
            if (isPT) {
                path[0] = pathOf(s0, m0, first->index);
                for (int k = 0; k < 3; k++)
                    path[1 + k] = pathOf(s1, m1, s1->tri[3 * (size_t)second->index + k]);
            } else {
                for (int k = 0; k < 2; k++) {
                    path[k] = pathOf(s0, m0, s0->edge[2 * (size_t)first->index + k]);
                    path[2 + k] = pathOf(s1, m1, s1->edge[2 * (size_t)second->index + k]);
                }
            }
            double t;
            alcCcdCurvedStats cs;
            st.queries++;
            if (alcm_ccd_curved(path, isEE, dmin, best, &t, &cs) && t < best) best = t;
            st.linear += cs.linear;
        }
    }
    free(prim);
    free(vbox);
    *toi = best;
    if (stats) *stats = st;
    return ALC_OK;
}
