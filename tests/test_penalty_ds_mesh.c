// Ding and Schroeder's attachment relaxation on a triangle mesh (host/hd/alcm_penalty_ds_mesh.h;
// issue 22, item 1; claim DS8 of ../shared/research/seeds-001-002.md §4.1): the mesh's edge
// adjacency and one-rings; on a triangulated plane the same Y as alcm_ds_plane, also when Y ends
// many triangles away from X or the walk passes through a vertex; on closed meshes (a subdivided
// cube, a sphere made from it, a box with a notch) a walk that terminates within a few steps,
// brings Y strictly closer to Z at every move, ends in the Coulomb cone (on its boundary when it
// slid to a face's interior) and is idempotent; a V valley (stuck on the valley's edge, state 3)
// and a room's inside corner (stopped at the corner vertex, state 4); the separation test, also
// off an open mesh's boundary.
#include "ds_meshes.h"
#include "hd/alcm_penalty_ds.h"
#include "hd/alcm_penalty_ds_mesh.h"
#include "test_macros.h"
#include "test_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- test meshes --------------------------------------------------------------------------

/// The attachment at p (a point on the mesh, up to 1e-9), or tri -1.
static alcmDsAttach tmLocate(const TMesh* tm, alcV3 p) {
    alcmDsAttach a;
    a.tri = -1;
    for (int t = 0; t < tm->nt; t++) {
        alcV3 q[3];
        alcm_ds_triVerts(&tm->m, t, q);
        if (fabs(alcm_v3_dot(alcm_v3_sub(p, q[0]), alcm_ds_triNormal(q))) > 1e-9) continue;
        alcm_ds_baryOf(q, p, a.b);
        if (a.b[0] >= 0 && a.b[1] >= 0 && a.b[2] >= 0) {
            a.tri = t;
            return a;
        }
    }
    return a;
}

/// A random point in triangle t.
static alcmDsAttach randAttach(int t) {
    alcmDsAttach a;
    double s = rngUniform(), r = rngUniform();
    if (s + r > 1) s = 1 - s, r = 1 - r;
    a.tri = t;
    a.b[0] = 1 - s - r;
    a.b[1] = s;
    a.b[2] = r;
    return a;
}

static alcV3 randUnit(void) {
    alcV3 v;
    do v = alcm_v3(rngRange(-1, 1), rngRange(-1, 1), rngRange(-1, 1));
    while (alcm_v3_norm(v) < 0.1);
    return alcm_v3_normalize(v);
}

// ---- checks on one relaxation ---------------------------------------------------------------

/// What the random sweeps saw.
typedef struct Stats_ {
    int runs, active, dynamic, maxSteps, over5, terminal[5], visited[5];
    double coneWorst, boundaryWorst, idemWorst;
} Stats;

/// Tangential and normal parts of f against unit n.
static void split(alcV3 f, alcV3 n, double* ft, double* fn) {
    *fn = alcm_v3_dot(f, n);
    *ft = alcm_v3_norm(alcm_v3_mad(f, -*fn, n));
}

/// Properties every relaxation has: Y on the surface, the trace's distances strictly falling at
/// each move, the cone at the end (on its boundary after sliding inside a face), idempotence.
static int checkRelax(const TMesh* tm, alcmDsAttach x, alcV3 z, double mu,
                      const alcmDsMeshResult* r, const alcmDsMeshTrace* tr, Stats* st) {
    double scale = alcm_v3_maxabs(z) + 1;
    ENSURE(r->converged);
    st->runs++;
    st->maxSteps = alcm_maxi(st->maxSteps, r->nsteps);
    st->over5 += r->nsteps > 5;
    st->terminal[r->state]++;
    st->active += r->active;
    st->dynamic += r->dynamic;
    // Y is the attachment's point, on the surface
    const alcmDsAttach* a = &r->attach;
    ENSURE(a->tri >= 0 && a->tri < tm->nt);
    ENSURE(a->b[0] >= 0 && a->b[1] >= 0 && a->b[2] >= 0);
    ENSURE(fabs(a->b[0] + a->b[1] + a->b[2] - 1) <= 1e-14);
    ENSURE(alcm_v3_norm(alcm_v3_sub(tmPoint(tm, *a), r->y)) <= 1e-14 * scale);
    // distances: strictly down at each move, unchanged otherwise
    ENSURE(tr->n == alcm_mini(r->nsteps, ALCM_DS_TRACE_LEN));
    ENSURE(tr->dist[0] == alcm_v3_norm(alcm_v3_sub(tmPoint(tm, x), z)));
    for (int k = 0; k < tr->n; k++) {
        st->visited[tr->state[k]]++;
        if (tr->moved[k]) {
            ENSURE_MSG(tr->dist[k + 1] < tr->dist[k], "step %d: %.17g -> %.17g", k, tr->dist[k],
                       tr->dist[k + 1]);
        } else {
            ENSURE(tr->dist[k + 1] == tr->dist[k]);
        }
    }
    if (r->nsteps <= ALCM_DS_TRACE_LEN)
        ENSURE(tr->dist[tr->n] == alcm_v3_norm(alcm_v3_sub(r->y, z)));
    ENSURE(r->dynamic == (alcm_v3_norm(alcm_v3_sub(r->y, tmPoint(tm, x))) > 0));
    // the cone (1) at Y for active pairs; on its boundary after a slide into a face's interior
    alcV3 yz = alcm_v3_sub(r->y, z);
    double ft = 0, fn = 0;
    split(yz, r->n, &ft, &fn);
    ENSURE(fabs(alcm_v3_norm(r->n) - 1) < 1e-12 && fabs(alcm_v3_norm(r->nsep) - 1) < 1e-12);
    ENSURE(r->active == (alcm_v3_dot(yz, r->nsep) > 0));
    if (r->active) {
        ENSURE(fn > 0);
        ENSURE_MSG(ft <= mu * fn * (1 + 1e-9) + 1e-13 * scale, "ft %g > mu fn %g (state %d)", ft,
                   mu * fn, r->state);
        st->coneWorst = fmax(st->coneWorst, (ft - mu * fn) / fn);
        bool interior = a->b[0] > 1e-9 && a->b[1] > 1e-9 && a->b[2] > 1e-9;
        if (r->state <= ALCM_DS_FSM_ENTERED && interior && r->nsteps <= ALCM_DS_TRACE_LEN &&
            tr->moved[tr->n - 1]) {
            ENSURE_MSG(fabs(ft - mu * fn) <= 1e-9 * alcm_v3_norm(yz) + 1e-13 * scale,
                       "off the cone: %g vs %g", ft, mu * fn);
            st->boundaryWorst = fmax(st->boundaryWorst, fabs(ft - mu * fn) / alcm_v3_norm(yz));
        }
    }
    // idempotent: relaxing Y again keeps it (static)
    alcmDsMeshResult r2;
    ENSURE(alcm_ds_meshRelax(&tm->m, r->attach, z, mu, 64, &r2, NULL));
    double e = alcm_v3_norm(alcm_v3_sub(r2.y, r->y));
    st->idemWorst = fmax(st->idemWorst, e / scale);
    ENSURE_MSG(e <= 1e-12 * scale && !r2.dynamic && r2.active == r->active,
               "not idempotent: moved %g (state %d -> %d, %d steps)", e, r->state, r2.state,
               r2.nsteps);
    return ALC_TEST_PASS;
}

// ---- tests --------------------------------------------------------------------------------

/// The edge adjacency and one-rings of closed and open meshes, and the malformed meshes refused.
ALC_TEST(penaltyDsMesh_adjacency) {
    TMesh tm;
    tmInit(&tm, 4000, 8000);
    // closed meshes: every edge has its reversed twin across it, Euler characteristic 2
    for (int which = 0; which < 2; which++) {
        tm.nv = tm.nt = 0;
        if (which == 0) tmCube(&tm, 4);
        if (which == 1) tmNotchedBox(&tm, 2);
        ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
        for (int t = 0; t < tm.nt; t++) {
            for (int e = 0; e < 3; e++) {
                int t2 = tm.adj[3 * t + e], a = tm.t[3 * t + e], b = tm.t[3 * t + (e + 1) % 3];
                ENSURE(t2 >= 0 && t2 != t);
                int e2 = alcm_ds_localEdge(&tm.m, t2, b, a);
                ENSURE(e2 >= 0 && tm.adj[3 * t2 + e2] == t);
            }
        }
        ENSURE(tm.nv - 3 * tm.nt / 2 + tm.nt == 2);
        ENSURE(tm.adr[0] == 0 && tm.adr[tm.nv] == 3 * tm.nt);
        for (int v = 0; v < tm.nv; v++) {
            ENSURE(tm.adr[v + 1] - tm.adr[v] >= 3);
            for (int k = tm.adr[v]; k < tm.adr[v + 1]; k++) {
                ENSURE(alcm_ds_localVert(&tm.m, tm.ring[k], v) >= 0);
            }
        }
    }
    // an open grid: 4 n boundary edges
    tm.nv = tm.nt = 0;
    tmGrid(&tm, alcm_v3(0, 0, 0), alcm_v3(1, 0, 0), alcm_v3(0, 1, 0), 5, 5);
    ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
    int nb = 0;
    for (int h = 0; h < 3 * tm.nt; h++) nb += tm.adj[h] < 0;
    ENSURE(nb == 20);
    // broken inputs: a flipped triangle, a third triangle on an edge, a bad index
    tm.nv = tm.nt = 0;
    tmCube(&tm, 2);
    int tmp = tm.t[0];
    tm.t[0] = tm.t[1];
    tm.t[1] = tmp;
    ENSURE(tmBuild(&tm) == ALCM_DS_MESH_ORIENTATION);
    tm.t[1] = tm.t[0];
    tm.t[0] = tmp;
    ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
    tmTri(&tm, tm.t[0], tm.t[1], tmVert(&tm, alcm_v3(5, 5, 5)));
    ENSURE(tmBuild(&tm) == ALCM_DS_MESH_NONMANIFOLD);
    tm.t[3 * tm.nt - 1] = tm.nv;
    ENSURE(tmBuild(&tm) == ALCM_DS_MESH_BAD_INDEX);
    tmFree(&tm);
    return ALC_TEST_PASS;
}

/// The triangulated plane: a 4 x 4 square of 32 x 32 cells around o, facing n.
static void flatGrid(TMesh* tm, alcV3 o, alcV3 n, alcV3 t1) {
    alcV3 t2 = alcm_v3_cross(n, t1);
    alcV3 u = alcm_v3_scale(t1, 4), v = alcm_v3_scale(t2, 4);
    tm->nv = tm->nt = 0;
    tmGrid(tm, alcm_v3_mad(alcm_v3_mad(o, -0.5, u), -0.5, v), u, v, 32, 32);
}

/// DS8 on a triangulated plane: the walk ends where alcm_ds_plane puts Y, across many triangles
/// and through vertices.
ALC_TEST(penaltyDsMesh_planeAgreement) {
    rngSeed(2201);
    TMesh tm;
    tmInit(&tm, 1200, 2100);
    Stats st;
    memset(&st, 0, sizeof st);
    double worst = 0;
    int far = 0, crossedMax = 0, stateMismatch = 0;
    for (int g = 0; g < 4; g++) {
        // a randomly placed plane
        alcV3 n = randUnit(), o = alcm_v3(rngRange(-2, 2), rngRange(-2, 2), rngRange(-2, 2));
        alcV3 t1 = alcm_v3_normalize(alcm_v3_cross(n, randUnit())), t2 = alcm_v3_cross(n, t1);
        flatGrid(&tm, o, n, t1);
        ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
        for (int it = 0; it < 500; it++) {
            // X in a triangle within 1.5 of the centre, Z below a point within 1.5 of it
            int t;
            alcmDsAttach x;
            do {
                t = (int)(rngUniform() * tm.nt);
                x = randAttach(t);
            } while (alcm_v3_norm(alcm_v3_sub(tmPoint(&tm, x), o)) > 1.5);
            double mu = rngRange(0.05, 1.0), depth = rngRange(1e-3, 0.3);
            double ang = rngRange(0, 2 * M_PI), rad = 1.5 * sqrt(rngUniform());
            alcV3 w = alcm_v3_mad(alcm_v3_mad(o, rad * cos(ang), t1), rad * sin(ang), t2);
            // every fourth pair: W within 2 mu depth of X, static or sliding a short way
            if (it % 4 == 0) {
                rad = 2 * mu * depth * rngUniform();
                w = alcm_v3_mad(alcm_v3_mad(tmPoint(&tm, x), rad * cos(ang), t1), rad * sin(ang),
                                t2);
            }
            alcV3 z = alcm_v3_mad(w, -depth, n);
            alcmDsMeshResult r;
            alcmDsMeshTrace tr;
            alcm_ds_meshRelax(&tm.m, x, z, mu, 128, &r, &tr);
            ENSURE(checkRelax(&tm, x, z, mu, &r, &tr, &st) == ALC_TEST_PASS);
            // the plane's relaxation gives the same Y, and agrees on static or sliding
            alcmDsContact c = alcm_ds_plane(n, o, z, tmPoint(&tm, x), mu, 1.0);
            double err = alcm_v3_norm(alcm_v3_sub(r.y, c.y)) / 4;
            worst = fmax(worst, err);
            ENSURE_MSG(err <= 1e-12, "mesh Y off the plane's by %g (%d steps)", err, r.nsteps);
            ENSURE(r.active);
            stateMismatch += r.dynamic != (c.state == ALCM_DS_DYNAMIC);
            int crossed = 0;
            for (int k = 0; k < tr.n; k++) crossed += tr.state[k] == ALCM_DS_FSM_ENTERED;
            far += crossed >= 3;
            crossedMax = alcm_maxi(crossedMax, crossed);
        }
    }
    // through a vertex: the segment from X to Y passes exactly through two grid vertices
    alcV3 n = alcm_v3(0, 0, 1), o = alcm_v3(0, 0, 0);
    flatGrid(&tm, o, n, alcm_v3(1, 0, 0));
    ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
    alcV3 xp = alcm_v3(0.0625, 0.03125, 0), dir = alcm_v3(2.0 / 32, 3.0 / 32, 0);
    alcV3 z = alcm_v3_mad(alcm_v3_mad(xp, 8, dir), -0.01, n);
    alcmDsAttach x = tmLocate(&tm, xp);
    ENSURE(x.tri >= 0);
    alcmDsMeshResult r;
    alcmDsMeshTrace tr;
    alcm_ds_meshRelax(&tm.m, x, z, 0.3, 128, &r, &tr);
    ENSURE(checkRelax(&tm, x, z, 0.3, &r, &tr, &st) == ALC_TEST_PASS);
    alcmDsContact c = alcm_ds_plane(n, o, z, xp, 0.3, 1.0);
    int vertexSteps = 0;
    for (int k = 0; k < tr.n; k++) vertexSteps += tr.state[k] == ALCM_DS_FSM_VERTEX;
    alct_note("through two vertices: %d steps, %d in state 4, Y off the plane's by %.1e", r.nsteps,
              vertexSteps, alcm_v3_norm(alcm_v3_sub(r.y, c.y)));
    ENSURE(vertexSteps == 2 && alcm_v3_norm(alcm_v3_sub(r.y, c.y)) <= 1e-12);
    alct_note(
        "2000 random plane contacts: Y as alcm_ds_plane's within %.1e (relative to the 4 m "
        "grid); %d static, %d sliding; %d walks crossed >= 3 triangles (at most %d), %d steps "
        "at most; static/sliding disagreements %d",
        worst, st.runs - st.dynamic, st.dynamic, far, crossedMax, st.maxSteps, stateMismatch);
    ENSURE(far > 200 && crossedMax >= 10 && stateMismatch == 0);
    ENSURE(st.runs - st.dynamic > 100 && st.dynamic > 1000);
    tmFree(&tm);
    return ALC_TEST_PASS;
}

/// DS8 on closed meshes: termination, strictly shrinking |Y - Z| on every move, the cone at the
/// end (its boundary after a slide into a face), idempotence.
ALC_TEST(penaltyDsMesh_closedMeshes) {
    rngSeed(2202);
    TMesh tm;
    tmInit(&tm, 2000, 4000);
    const char* names[3] = {"cube", "sphere", "notched box"};
    for (int which = 0; which < 3; which++) {
        tm.nv = tm.nt = 0;
        if (which < 2) tmCube(&tm, 6);
        if (which == 2) tmNotchedBox(&tm, 3);
        if (which == 1) {
            for (int v = 0; v < tm.nv; v++) {
                alcm_v3_store(tm.v + 3 * v, alcm_v3_normalize(alcm_v3_load(tm.v + 3 * v)));
            }
        }
        ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
        double h = which == 2 ? 1.0 / 3 : 2.0 / 6;  // cell size
        Stats st, local;
        memset(&st, 0, sizeof st);
        memset(&local, 0, sizeof local);
        for (int it = 0; it < 3000; it++) {
            // X random; Z within `reach` cells of it along the surface, from above to inside
            int t = (int)(rngUniform() * tm.nt);
            alcmDsAttach x = randAttach(t);
            alcV3 xp = tmPoint(&tm, x), n = tmNormal(&tm, t);
            double reach = it % 3 == 0 ? 1.0 : 4.0, mu = rngRange(0, 1.5);
            double depth = h * rngRange(-0.3, 1.5);
            alcV3 tang = alcm_v3_normalize(alcm_v3_cross(n, randUnit()));
            alcV3 z = alcm_v3_mad(alcm_v3_mad(xp, -depth, n), reach * h * rngUniform(), tang);
            alcmDsMeshResult r;
            alcmDsMeshTrace tr;
            alcm_ds_meshRelax(&tm.m, x, z, mu, 64, &r, &tr);
            ENSURE_MSG(
                checkRelax(&tm, x, z, mu, &r, &tr, reach == 1 ? &local : &st) == ALC_TEST_PASS,
                "%s, trial %d", names[which], it);
        }
        alct_note(
            "%s: %d + %d walks (Z within 1 | 4 cells); steps at most %d | %d, over 5 in %d | %d; "
            "terminal states 1:%d 2:%d 3:%d 4:%d; %d active, %d sliding; cone exceeded by %.1e, "
            "sliding face ends off the cone by %.1e, idempotent within %.1e",
            names[which], local.runs, st.runs, local.maxSteps, st.maxSteps, local.over5, st.over5,
            st.terminal[1] + local.terminal[1], st.terminal[2] + local.terminal[2],
            st.terminal[3] + local.terminal[3], st.terminal[4] + local.terminal[4],
            st.active + local.active, st.dynamic + local.dynamic,
            fmax(st.coneWorst, local.coneWorst), fmax(st.boundaryWorst, local.boundaryWorst),
            fmax(st.idemWorst, local.idemWorst));
        ENSURE(local.maxSteps <= 12 && st.maxSteps <= 24);
        ENSURE(st.visited[ALCM_DS_FSM_EDGE] > 0 && st.visited[ALCM_DS_FSM_VERTEX] > 0);
        if (which != 1) continue;
        // found by a longer sweep: at a vertex the spring pulls Y out of a face's acute corner
        // across one edge while pulling it along the other; leaving along the other edge, the
        // face would then pull Y in, and relaxing Y again moved it (the way out is the first
        // edge, or the face across it)
        alcmDsAttach x = {79, {0.30191685828171977, 0.066551220166205294, 0.63153192155207494}};
        alcV3 z = alcm_v3(-0.61203535159543687, -1.18118051168287, -0.6334509914742058);
        alcmDsMeshResult r;
        alcmDsMeshTrace tr;
        alcm_ds_meshRelax(&tm.m, x, z, 0.55709817750152513, 64, &r, &tr);
        ENSURE(checkRelax(&tm, x, z, 0.55709817750152513, &r, &tr, &st) == ALC_TEST_PASS);
    }
    tmFree(&tm);
    return ALC_TEST_PASS;
}

/// A V valley: the attachment slides down to the valley's edge and stays stuck on it (state 3).
ALC_TEST(penaltyDsMesh_valleyEdge) {
    // the valley z = |x| / 2, facing up; Z just below its floor line (the y axis)
    TMesh tm;
    tmInit(&tm, 200, 200);
    tmGrid(&tm, alcm_v3(0, -1, 0), alcm_v3(1, 0, 0.5), alcm_v3(0, 2, 0), 4, 8);
    tmGrid(&tm, alcm_v3(-1, -1, 0.5), alcm_v3(1, 0, -0.5), alcm_v3(0, 2, 0), 4, 8);
    ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
    Stats st;
    memset(&st, 0, sizeof st);
    alcV3 z = alcm_v3(0.01, -0.3, -0.2);
    alcmDsAttach x = tmLocate(&tm, alcm_v3(0.6, 0.5, 0.3));
    ENSURE(x.tri >= 0);
    alcmDsMeshResult r;
    alcmDsMeshTrace tr;
    double mu = 0.2;
    alcm_ds_meshRelax(&tm.m, x, z, mu, 32, &r, &tr);
    ENSURE(checkRelax(&tm, x, z, mu, &r, &tr, &st) == ALC_TEST_PASS);
    // slides down into the valley, sticks to its floor line, slides along it past a vertex
    // (state 4 then 3 again) and stops mu h short of Z's foot, h = |Z - foot|
    char path[2 * ALCM_DS_TRACE_LEN + 1];
    for (int k = 0; k < tr.n; k++) path[2 * k] = (char)('0' + tr.state[k]), path[2 * k + 1] = ' ';
    path[2 * tr.n - 1] = 0;
    double hz = sqrt(0.01 * 0.01 + 0.2 * 0.2);
    alcV3 expect = alcm_v3(0, -0.3 + mu * hz, 0);
    alct_note("valley: path %s, Y off the expected point by %.1e", path,
              alcm_v3_norm(alcm_v3_sub(r.y, expect)));
    ENSURE(r.state == ALCM_DS_FSM_EDGE && r.active && r.dynamic);
    ENSURE(alcm_v3_norm(alcm_v3_sub(r.y, expect)) <= 1e-14);
    ENSURE(strstr(path, "2 3") && strstr(path, "4 3"));
    // the cone's normal lies between the two faces' normals: n = a nr + b nl, a, b >= 0
    alcV3 nr = alcm_v3_normalize(alcm_v3(-0.5, 0, 1)), nl = alcm_v3_normalize(alcm_v3(0.5, 0, 1));
    double a = (r.n.z * nl.x - r.n.x * nl.z) / (nr.z * nl.x - nr.x * nl.z);
    double b = (nr.z * r.n.x - nr.x * r.n.z) / (nr.z * nl.x - nr.x * nl.z);
    ENSURE(a > 0 && b > 0 && fabs(r.n.y) < 1e-15);
    ENSURE(alcm_v3_norm(alcm_v3_sub(alcm_v3_add(alcm_v3_scale(nr, a), alcm_v3_scale(nl, b)), r.n)) <
           1e-14);
    // Z above the valley's floor: inactive
    alcm_ds_meshRelax(&tm.m, x, alcm_v3(0.01, -0.3, 0.1), mu, 32, &r, &tr);
    ENSURE(checkRelax(&tm, x, alcm_v3(0.01, -0.3, 0.1), mu, &r, &tr, &st) == ALC_TEST_PASS);
    ENSURE(!r.active);
    tmFree(&tm);
    return ALC_TEST_PASS;
}

/// A room's inside corner: the attachment stops at the corner vertex (state 4).
ALC_TEST(penaltyDsMesh_cornerVertex) {
    // a room's inside corner: floor z = 0 and walls x = 0, y = 0, all facing into the room
    TMesh tm;
    tmInit(&tm, 200, 200);
    tmGrid(&tm, alcm_v3(0, 0, 0), alcm_v3(1, 0, 0), alcm_v3(0, 1, 0), 4, 4);
    tmGrid(&tm, alcm_v3(0, 0, 0), alcm_v3(0, 1, 0), alcm_v3(0, 0, 1), 4, 4);
    tmGrid(&tm, alcm_v3(0, 0, 0), alcm_v3(0, 0, 1), alcm_v3(1, 0, 0), 4, 4);
    ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
    Stats st;
    memset(&st, 0, sizeof st);
    // Z behind the corner: X on the floor slides to a wall, along the floor's edge, into the
    // corner, and stops there
    alcV3 z = alcm_v3(-0.05, -0.08, -0.06);
    alcmDsAttach x = tmLocate(&tm, alcm_v3(0.55, 0.35, 0));
    ENSURE(x.tri >= 0);
    alcmDsMeshResult r;
    alcmDsMeshTrace tr;
    alcm_ds_meshRelax(&tm.m, x, z, 0.2, 32, &r, &tr);
    ENSURE(checkRelax(&tm, x, z, 0.2, &r, &tr, &st) == ALC_TEST_PASS);
    char path[2 * ALCM_DS_TRACE_LEN + 1];
    for (int k = 0; k < tr.n; k++) path[2 * k] = (char)('0' + tr.state[k]), path[2 * k + 1] = ' ';
    path[2 * tr.n - 1] = 0;
    alct_note("corner: path %s, n = (%.3f, %.3f, %.3f)", path, r.n.x, r.n.y, r.n.z);
    ENSURE(r.state == ALCM_DS_FSM_VERTEX && r.active && r.dynamic);
    ENSURE(alcm_v3_norm(r.y) == 0 && strstr(path, "3 4"));
    // no face's cone holds at the corner: n is along Y - Z
    ENSURE(alcm_v3_norm(alcm_v3_sub(r.n, alcm_v3_normalize(alcm_v3_sub(r.y, z)))) < 1e-15);
    // random X and Z around the corner, also above the floor
    rngSeed(2203);
    for (int it = 0; it < 2000; it++) {
        x = randAttach((int)(rngUniform() * tm.nt));
        z = alcm_v3(rngRange(-0.3, 0.5), rngRange(-0.3, 0.5), rngRange(-0.3, 0.5));
        double mu = rngRange(0, 1.2);
        alcm_ds_meshRelax(&tm.m, x, z, mu, 32, &r, &tr);
        ENSURE_MSG(checkRelax(&tm, x, z, mu, &r, &tr, &st) == ALC_TEST_PASS, "trial %d", it);
    }
    alct_note(
        "corner, 2000 random pairs: terminal states 1:%d 2:%d 3:%d 4:%d, %d active, %d steps "
        "at most",
        st.terminal[1], st.terminal[2], st.terminal[3], st.terminal[4], st.active, st.maxSteps);
    ENSURE(st.terminal[3] > 0 && st.terminal[4] > 0 && st.maxSteps <= 24);
    tmFree(&tm);
    return ALC_TEST_PASS;
}

/// A pair inside the cone keeps X bit for bit; a particle outside the surface is inactive.
ALC_TEST(penaltyDsMesh_staticAndSeparation) {
    rngSeed(2204);
    TMesh tm;
    tmInit(&tm, 2000, 4000);
    tmCube(&tm, 6);
    for (int v = 0; v < tm.nv; v++) {
        alcm_v3_store(tm.v + 3 * v, alcm_v3_normalize(alcm_v3_load(tm.v + 3 * v)));
    }
    ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
    int nInactive = 0, nStatic = 0;
    for (int it = 0; it < 500; it++) {
        int t = (int)(rngUniform() * tm.nt);
        alcmDsAttach x = randAttach(t);
        alcV3 xp = tmPoint(&tm, x), n = tmNormal(&tm, t);
        alcV3 tang = alcm_v3_normalize(alcm_v3_cross(n, randUnit()));
        double mu = rngRange(0.1, 1), depth = rngRange(1e-3, 0.1);
        // inside the cone: X stays, bit for bit, in one step
        alcV3 z = alcm_v3_mad(alcm_v3_mad(xp, -depth, n), 0.9 * mu * depth * rngUniform(), tang);
        alcmDsMeshResult r;
        alcm_ds_meshRelax(&tm.m, x, z, mu, 16, &r, NULL);
        ENSURE(r.converged && r.active && !r.dynamic && r.nsteps == 1);
        ENSURE(r.state == ALCM_DS_FSM_FACE && r.attach.tri == x.tri);
        ENSURE(memcmp(r.attach.b, x.b, sizeof x.b) == 0);
        nStatic++;
        // Z off the sphere (the vertices' sphere), out to the side: inactive where the walk ends
        alcV3 dir = alcm_v3_normalize(alcm_v3_mad(xp, 0.2 * rngUniform(), tang));
        z = alcm_v3_scale(dir, 1 + rngRange(0.02, 0.1));
        alcm_ds_meshRelax(&tm.m, x, z, mu, 64, &r, NULL);
        ENSURE(r.converged && !r.active);
        nInactive++;
    }
    // a cube's edge: Z just outside it, X on one face; the walk sticks to the ridge: inactive
    TMesh cube;
    tmInit(&cube, 1000, 2000);
    tmCube(&cube, 4);
    ENSURE(tmBuild(&cube) == ALCM_DS_MESH_OK);
    alcV3 z = alcm_v3(1.05, 0.3, 1.04);
    alcmDsAttach x = tmLocate(&cube, alcm_v3(0.4, -0.2, 1));
    ENSURE(x.tri >= 0);
    alcmDsMeshResult r;
    alcm_ds_meshRelax(&cube.m, x, z, 0.3, 32, &r, NULL);
    alct_note("ridge: terminal state %d at (%.3f, %.3f, %.3f), %s", r.state, r.y.x, r.y.y, r.y.z,
              r.active ? "active" : "inactive");
    ENSURE(r.converged && !r.active && r.state == ALCM_DS_FSM_EDGE);
    // Z just inside the same edge: active
    alcm_ds_meshRelax(&cube.m, x, alcm_v3(0.97, 0.3, 0.96), 0.3, 32, &r, NULL);
    ENSURE(r.converged && r.active);
    // steps run out: not converged, still a point on the mesh
    alcm_ds_meshRelax(&cube.m, x, alcm_v3(-0.9, 0.9, 0.9), 0.1, 2, &r, NULL);
    ENSURE(!r.converged && r.nsteps == 2 && r.attach.tri >= 0);
    ENSURE(alcm_v3_norm(alcm_v3_sub(tmPoint(&cube, r.attach), r.y)) < 1e-14);
    // a bad triangle id
    x.tri = cube.nt;
    ENSURE(!alcm_ds_meshRelax(&cube.m, x, z, 0.3, 32, &r, NULL) && r.state == 0);
    alct_note("sphere: %d static pairs kept X bit for bit, %d pairs outside all inactive", nStatic,
              nInactive);
    tmFree(&cube);
    tmFree(&tm);
    return ALC_TEST_PASS;
}

/// Off an open mesh's boundary: a particle whose foot lies beyond the edge of a finite plane
/// (the walk ends on the boundary edge, or at its corner vertex) is not in contact; one whose foot
/// is on the plane stays in contact even where its attachment slid to the boundary edge.
ALC_TEST(penaltyDsMesh_offBoundary) {
    TMesh tm;
    tmInit(&tm, 100, 100);
    tmGrid(&tm, alcm_v3(0, 0, 0), alcm_v3(1, 0, 0), alcm_v3(0, 1, 0), 4, 4);  // faces +z
    ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
    alcmDsMeshResult r;
    alcmDsAttach x = tmLocate(&tm, alcm_v3(0.9, 0.6, 0));
    ENSURE(x.tri >= 0);
    // beyond the edge x = 1, below the plane: slides to the edge, then leaves the mesh
    alcm_ds_meshRelax(&tm.m, x, alcm_v3(1.3, 0.6, -0.05), 0.1, 32, &r, NULL);
    alct_note("beyond the edge: state %d, active %d", r.state, (int)r.active);
    ENSURE(r.converged && r.state == ALCM_DS_FSM_EDGE && !r.active);
    // beyond the corner (1, 1)
    alcm_ds_meshRelax(&tm.m, x, alcm_v3(1.3, 1.2, -0.05), 0.1, 32, &r, NULL);
    alct_note("beyond the corner: state %d, active %d", r.state, (int)r.active);
    ENSURE(r.converged && r.state == ALCM_DS_FSM_VERTEX && !r.active);
    // foot on the plane near the edge, attachment far behind it: in contact
    x = tmLocate(&tm, alcm_v3(0.2, 0.5, 0));
    alcm_ds_meshRelax(&tm.m, x, alcm_v3(0.99, 0.5, -0.01), 0.1, 32, &r, NULL);
    ENSURE(r.converged && r.active && r.dynamic);
    // the foot exactly on the edge stays in contact
    alcm_ds_meshRelax(&tm.m, x, alcm_v3(1.0, 0.5, -0.01), 0.1, 32, &r, NULL);
    alct_note("foot on the edge: state %d, active %d", r.state, (int)r.active);
    ENSURE(r.converged && r.active);
    tmFree(&tm);
    return ALC_TEST_PASS;
}
