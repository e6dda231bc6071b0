// Ding and Schroeder's attachment relaxation on a triangle mesh (penalty-coulomb-friction-
// coupling.txt §2.1.3; ../shared/research/seeds-001-002.md §1.3 "Triangle mesh: relaxation finite
// state machine", §3.1 items 2 and 3): a building block of the `penalty-ds` comparison mode
// (issue 22, item 1), the mesh twin of alcm_ds_plane (alcm_penalty_ds.h). No forces or Jacobians
// here: only the attachment's walk and the separation test.
//
// A particle Z below a surface mesh is tied to an attachment X on it by a zero-length spring; the
// spring's force k (Y - Z) must lie in the Coulomb cone at the relaxed attachment Y:
//   (1)  |(Y - Z) - ((Y - Z).n) n| <= mu (Y - Z).n,   n = n(Y).
// k scales the force only, so Y does not depend on it. X slides along the mesh, like a massless
// block pulled by the spring, no further than needed. The walk is a finite state machine:
//   1 FACE     Y inside a triangle (the start state, Y^(0) = X);
//   2 ENTERED  Y on a triangle's edge (or vertex), entered into that triangle;
//   3 EDGE     Y on an edge, moving along it;
//   4 VERTEX   Y at a vertex, looking for a neighbouring triangle or edge to leave by.
// States 1 and 2 relax in the triangle's plane as on a plane, formula (2): W the projection of Z
// on the plane, d the depth of Z below it, Yhat = W + s (Y - W), s = min(1, mu d / |Y - W|) (s = 0
// when Z is above the plane: nothing holds the block back). Yhat inside the triangle: stop there.
// Otherwise Y walks to where the segment Y -> Yhat leaves the triangle and enters the neighbour
// across that edge (state 2), unless it leaves through the edge it entered by: then it is stuck
// on the edge (state 3). State 3 relaxes the same way toward the foot W of Z on the edge's line,
// with the distance |Z - W| as the normal part; past an end it goes to that vertex (state 4).
// State 4 does not move Y: it leaves into the adjacent triangle that the spring pulls it into
// (state 2), else along the adjacent edge that it pulls it along (state 3), else it stops.
// Every move brings Y strictly closer to Z.
//
// Choices the paper leaves open (its technical document is not available):
// - Round-off guards. An exit point whose largest barycentric weight exceeds 1 - 128 eps is
//   snapped to that vertex (state 4), as the paper says. A relaxation counts as a move only when
//   it moves Y by more than ALCM_DS_ROUNDOFF_ULPS round-offs of the problem's size (so a result
//   relaxed again stays put, bit for bit); state 4 is left only for such a move, and into a
//   triangle only when the pull's direction lies inside the triangle's corner by more than
//   round-off (along an edge otherwise).
// - A boundary edge of an open mesh is a wall: the attachment slides along it (state 3). But
//   once Z itself has left the mesh's extent (the walk ends on a boundary edge, or at a vertex
//   of one, and Z's foot on the face's plane lies outside every face there), the pair is
//   inactive: otherwise a body sliding off the end of a finite wall hung from its edge by the
//   springs (seen on the wedge with mu 0.1, tests/test_validation.c).
// - The choice among several ways out of a vertex: the one whose relaxed point is closest to Z.
//   An edge is a way out only if neither face beside it pulls Y off the edge into the face. At a
//   face's acute corner the spring can pull Y out of the corner across one edge and still along
//   the other; sliding along that other edge, Y would end where the face pulls it in, and
//   relaxing the result again would move it (seen on the test sphere before this rule).
// - The normal n(Y) of the cone (1), reported as n: the face's normal in states 1 and 2. On an
//   edge, the direction of the part of Y - Z normal to the edge's line (from Z to its foot W on
//   the line): the normal that formula (2) with distances implies, so (1) holds on the edge by
//   construction; when the attachment is stuck between two faces that both pull it across the
//   edge (a concave edge, active), it lies between the two faces' normals. At a vertex: the
//   normal of the adjacent face whose cone holds with the largest margin, else the direction of
//   Y - Z (the walk stopped there because no adjacent face or edge pulls Y away).
// - The separation test (after relaxation, as the paper does it): the pair is active when
//   (Y - Z).nsep > 0, with nsep the face normal on a face, the normalized sum of the two adjacent
//   face normals on an edge, and the angle-weighted normal (sum of the incident face normals
//   weighted by their angles at the vertex, normalized) at a vertex.
//
// The mesh is a consistently oriented manifold surface (outward normals by the right-hand rule,
// (p1 - p0) x (p2 - p0)), open or closed, with no degenerate triangles. Header-only, shared by
// host and device: no allocation, no recursion, every loop bounded.
#ifndef ALC_HD_ALCM_PENALTY_DS_MESH_H_
#define ALC_HD_ALCM_PENALTY_DS_MESH_H_

#include "alcm_vec.h"

/// Relaxation states (the finite state machine's, numbered as in the paper).
#define ALCM_DS_FSM_FACE    1  ///< Y inside a triangle: the start state
#define ALCM_DS_FSM_ENTERED 2  ///< Y entered a triangle across an edge or from a vertex
#define ALCM_DS_FSM_EDGE    3  ///< Y on an edge, moving along it
#define ALCM_DS_FSM_VERTEX  4  ///< Y at a vertex, looking for a way out

/// Return codes of alcm_ds_meshAdjacency.
#define ALCM_DS_MESH_OK          0   ///< adjacency built
#define ALCM_DS_MESH_BAD_INDEX   -1  ///< a vertex id out of range, or repeated in a triangle
#define ALCM_DS_MESH_NONMANIFOLD -2  ///< an edge shared by more than two triangles
#define ALCM_DS_MESH_ORIENTATION -3  ///< two triangles run along a shared edge the same way

/// Double-precision machine epsilon (<float.h> is not included here, STYLE.md §7).
#define ALCM_DS_EPS 2.220446049250313e-16
/// Largest barycentric weight before a point is snapped to the vertex (paper: 1 - 128 eps).
#define ALCM_DS_VERTEX_SNAP (1.0 - 128.0 * ALCM_DS_EPS)
/// A relaxation moves Y only by more than this many eps times the problem's size (|Y|, |Z - Y|).
#define ALCM_DS_ROUNDOFF_ULPS 256.0
/// How far outside a triangle (in barycentric weight) a foot may lie and still count as on it,
/// for the boundary rule of the separation test.
#define ALCM_DS_FOOT_TOL 1e-12
/// Steps that alcmDsMeshTrace records.
#define ALCM_DS_TRACE_LEN 32

/// A triangle surface mesh as the relaxation reads it; all arrays are the caller's, read only,
/// and must outlive the calls (host or device memory, as the caller runs).
typedef struct alcmDsMesh_ {
    const double* vert;     ///< vertex positions (nvert x 3) (m)
    const int* tri;         ///< vertex ids (ntri x 3), counter-clockwise seen from outside
    const int* triAdj;      ///< (ntri x 3): [3t+e] is the triangle across edge e of t, from
                            ///< tri[3t+e] to tri[3t+(e+1)%3]; -1 on a boundary
    const int* vertTriAdr;  ///< (nvert + 1): vertex v's triangles are vertTri[adr[v] .. adr[v+1])
    const int* vertTri;     ///< (3 ntri): triangles incident to each vertex, grouped by vertex
    int nvert;              ///< number of vertices
    int ntri;               ///< number of triangles
} alcmDsMesh;

/// A point on the mesh: a triangle and barycentric weights of its three vertices.
typedef struct alcmDsAttach_ {
    int tri;      ///< triangle id
    double b[3];  ///< weights of tri's vertices, >= 0, summing to 1: the point is sum b_i p_i
} alcmDsAttach;

/// The relaxed attachment and the separation test.
typedef struct alcmDsMeshResult_ {
    alcmDsAttach attach;  ///< relaxed attachment: Y's triangle and weights (X itself if static)
    alcV3 y;              ///< Y = sum b_i p_i, on the surface (m)
    alcV3 n;              ///< unit normal n(Y) of the cone (1) at Y (header comment)
    alcV3 nsep;           ///< unit normal of the separation test (header comment)
    int state;            ///< ALCM_DS_FSM_* the walk stopped in; 0 when x.tri was invalid
    int loc;              ///< EDGE: local edge of attach.tri; VERTEX: local vertex; else -1
    int nsteps;           ///< FSM steps taken (states processed): 1 when Y stays in X's triangle
    bool active;          ///< Z below the surface at Y, (Y - Z).nsep > 0: the spring acts
    bool dynamic;         ///< Y moved away from X (dynamic friction); false: static, Y = X
    bool converged;       ///< the walk stopped within maxSteps
} alcmDsMeshResult;

/// The walk step by step, for tests and for the derivatives' relaxation path. Step k (0-based)
/// processed state[k] on triangle tri[k] and took Y from Y^(k) to Y^(k+1).
typedef struct alcmDsMeshTrace_ {
    int n;                               ///< steps recorded, min(nsteps, ALCM_DS_TRACE_LEN)
    int state[ALCM_DS_TRACE_LEN];        ///< ALCM_DS_FSM_* processed in step k
    int tri[ALCM_DS_TRACE_LEN];          ///< triangle holding Y at step k
    int loc[ALCM_DS_TRACE_LEN];          ///< ENTERED: entry edge (-1 from a vertex); EDGE:
                                         ///< local edge; VERTEX: local vertex; FACE: -1
    int moved[ALCM_DS_TRACE_LEN];        ///< 1 when step k moved Y
    double dist[ALCM_DS_TRACE_LEN + 1];  ///< |Y^(k) - Z| (m); dist[0] at X
    alcV3 y[ALCM_DS_TRACE_LEN + 1];      ///< Y^(k) (m); y[0] = X
} alcmDsMeshTrace;

/// Internal: the walk's current state.
typedef struct alcmDsWalk_ {
    int state;    // ALCM_DS_FSM_*
    int tri;      // triangle holding Y
    int loc;      // ENTERED: entry edge (-1 from a vertex); EDGE: local edge; VERTEX: local vertex
    double b[3];  // Y's weights in tri
    alcV3 y;      // Y (m)
    bool moved;   // the last step moved Y
} alcmDsWalk;

// ---- adjacency ----------------------------------------------------------------------------

/// Internal: key of half-edge h (edge h % 3 of triangle h / 3), the same for both directions.
ALC_HD int64_t alcm_ds_edgeKey(const int* tri, int nvert, int h) {
    int t = h / 3, e = h - 3 * t;
    int a = tri[3 * t + e], b = tri[3 * t + (e == 2 ? 0 : e + 1)];
    return a < b ? (int64_t)a * nvert + b : (int64_t)b * nvert + a;
}

/// Internal: heap sort's sift-down of half-edge ids h[root .. n) by key.
ALC_HD void alcm_ds_siftDown(const int* tri, int nvert, int* h, int root, int n) {
    while (2 * root + 1 < n) {
        int c = 2 * root + 1;
        if (c + 1 < n && alcm_ds_edgeKey(tri, nvert, h[c]) < alcm_ds_edgeKey(tri, nvert, h[c + 1]))
            c++;
        if (!(alcm_ds_edgeKey(tri, nvert, h[root]) < alcm_ds_edgeKey(tri, nvert, h[c]))) return;
        int tmp = h[root];
        h[root] = h[c];
        h[c] = tmp;
        root = c;
    }
}

/// Build the edge adjacency and the vertex one-rings of a triangle list, O(T log T) (a heap sort
/// of the 3T half-edges by vertex pair, in scratch).
/// @param[in]  tri         vertex ids (ntri x 3), consistently oriented
/// @param[in]  ntri        number of triangles
/// @param[in]  nvert       number of vertices; ids run over [0, nvert)
/// @param[out] triAdj      (ntri x 3): the triangle across each edge, -1 on a boundary
/// @param[out] vertTriAdr  (nvert + 1): one-ring offsets into vertTri
/// @param[out] vertTri     (3 ntri): incident triangles by vertex, ascending within a vertex
/// @param[out] scratch     (3 ntri) ints, contents undefined on return
/// @return ALCM_DS_MESH_OK, or ALCM_DS_MESH_BAD_INDEX, _NONMANIFOLD, _ORIENTATION (outputs then
///         partly written).
ALC_HD int alcm_ds_meshAdjacency(const int* tri, int ntri, int nvert, int* triAdj, int* vertTriAdr,
                                 int* vertTri, int* scratch) {
    int nh = 3 * ntri;
    // vertex ids in range and distinct within each triangle
    for (int t = 0; t < ntri; t++) {
        const int* v = tri + 3 * t;
        for (int i = 0; i < 3; i++) {
            if (v[i] < 0 || v[i] >= nvert) return ALCM_DS_MESH_BAD_INDEX;
        }
        if (v[0] == v[1] || v[1] == v[2] || v[2] == v[0]) return ALCM_DS_MESH_BAD_INDEX;
    }
    // sort the half-edges by their vertex pair
    for (int h = 0; h < nh; h++) scratch[h] = h;
    for (int r = nh / 2 - 1; r >= 0; r--) alcm_ds_siftDown(tri, nvert, scratch, r, nh);
    for (int end = nh - 1; end > 0; end--) {
        int tmp = scratch[0];
        scratch[0] = scratch[end];
        scratch[end] = tmp;
        alcm_ds_siftDown(tri, nvert, scratch, 0, end);
    }
    // pair the half-edges of each edge: two running opposite ways, or one on a boundary
    for (int i = 0; i < nh;) {
        int64_t key = alcm_ds_edgeKey(tri, nvert, scratch[i]);
        int j = i + 1;
        while (j < nh && alcm_ds_edgeKey(tri, nvert, scratch[j]) == key) j++;
        if (j - i > 2) return ALCM_DS_MESH_NONMANIFOLD;
        if (j - i == 2) {
            int h0 = scratch[i], h1 = scratch[i + 1];
            if (tri[h0] == tri[h1]) return ALCM_DS_MESH_ORIENTATION;  // same first vertex
            triAdj[h0] = h1 / 3;
            triAdj[h1] = h0 / 3;
        } else {
            triAdj[scratch[i]] = -1;
        }
        i = j;
    }
    // one-rings: count, prefix sum, fill (adr[v] runs to adr[v + 1]), shift back
    for (int v = 0; v <= nvert; v++) vertTriAdr[v] = 0;
    for (int h = 0; h < nh; h++) vertTriAdr[tri[h] + 1]++;
    for (int v = 0; v < nvert; v++) vertTriAdr[v + 1] += vertTriAdr[v];
    for (int h = 0; h < nh; h++) vertTri[vertTriAdr[tri[h]]++] = h / 3;
    for (int v = nvert; v > 0; v--) vertTriAdr[v] = vertTriAdr[v - 1];
    vertTriAdr[0] = 0;
    return ALCM_DS_MESH_OK;
}

// ---- geometry -----------------------------------------------------------------------------

/// Internal: position of vertex v (m).
ALC_HD alcV3 alcm_ds_vert(const alcmDsMesh* m, int v) {
    return alcm_v3_load(m->vert + 3 * v);
}

/// Internal: the corners of triangle t.
ALC_HD void alcm_ds_triVerts(const alcmDsMesh* m, int t, alcV3* p) {
    for (int i = 0; i < 3; i++) p[i] = alcm_ds_vert(m, m->tri[3 * t + i]);
}

/// Internal: unit outward normal of a triangle, (p1 - p0) x (p2 - p0) normalized.
ALC_HD alcV3 alcm_ds_triNormal(const alcV3* p) {
    return alcm_v3_normalize(alcm_v3_cross(alcm_v3_sub(p[1], p[0]), alcm_v3_sub(p[2], p[0])));
}

/// Internal: the point sum b_i p_i.
ALC_HD alcV3 alcm_ds_baryPoint(const alcV3* p, const double* b) {
    return alcm_v3_mad(alcm_v3_mad(alcm_v3_scale(p[0], b[0]), b[1], p[1]), b[2], p[2]);
}

/// Internal: barycentric weights of q's projection onto the triangle's plane.
ALC_HD void alcm_ds_baryOf(const alcV3* p, alcV3 q, double* b) {
    alcV3 e0 = alcm_v3_sub(p[1], p[0]), e1 = alcm_v3_sub(p[2], p[0]), dq = alcm_v3_sub(q, p[0]);
    double d00 = alcm_v3_dot(e0, e0), d01 = alcm_v3_dot(e0, e1), d11 = alcm_v3_dot(e1, e1);
    double d20 = alcm_v3_dot(dq, e0), d21 = alcm_v3_dot(dq, e1);
    double den = d00 * d11 - d01 * d01;
    b[1] = (d11 * d20 - d01 * d21) / den;
    b[2] = (d00 * d21 - d01 * d20) / den;
    b[0] = 1.0 - b[1] - b[2];
}

/// Internal: a length below which a move is round-off, for Y and the particle z.
ALC_HD double alcm_ds_roundoff(alcV3 y, alcV3 z) {
    return ALCM_DS_ROUNDOFF_ULPS * ALCM_DS_EPS *
           (alcm_v3_maxabs(y) + alcm_v3_norm(alcm_v3_sub(z, y)));
}

/// Internal: local index (0..2) of vertex v in triangle t, -1 if absent.
ALC_HD int alcm_ds_localVert(const alcmDsMesh* m, int t, int v) {
    for (int i = 0; i < 3; i++) {
        if (m->tri[3 * t + i] == v) return i;
    }
    return -1;
}

/// Internal: local edge of triangle t running from vertex a to vertex b, -1 if absent.
ALC_HD int alcm_ds_localEdge(const alcmDsMesh* m, int t, int a, int b) {
    for (int e = 0; e < 3; e++) {
        if (m->tri[3 * t + e] == a && m->tri[3 * t + (e + 1) % 3] == b) return e;
    }
    return -1;
}

/// Internal: move Y to y (and its weights to b), noting whether it moved.
ALC_HD void alcm_ds_moveTo(alcmDsWalk* w, alcV3 y, const double* b) {
    w->moved = w->moved || y.x != w->y.x || y.y != w->y.y || y.z != w->y.z;
    w->y = y;
    for (int i = 0; i < 3; i++) w->b[i] = b[i];
}

/// Internal: put Y on local vertex i of its triangle (state 4).
ALC_HD void alcm_ds_toVertex(const alcmDsMesh* m, alcmDsWalk* w, int i) {
    double b[3] = {0, 0, 0};
    b[i] = 1;
    alcm_ds_moveTo(w, alcm_ds_vert(m, m->tri[3 * w->tri + i]), b);
    w->state = ALCM_DS_FSM_VERTEX;
    w->loc = i;
}

// ---- the finite state machine's steps -----------------------------------------------------

/// Internal: states 1 and 2, relaxation in the triangle's plane. Returns true when the walk stops.
ALC_HD bool alcm_ds_faceStep(const alcmDsMesh* m, alcmDsWalk* w, alcV3 z, double mu) {
    alcV3 p[3];
    alcm_ds_triVerts(m, w->tri, p);
    alcV3 n = alcm_ds_triNormal(p);
    // the plane's relaxation, formula (2): Yhat = W + s (Y - W)
    double d = alcm_v3_dot(alcm_v3_sub(p[0], z), n);
    alcV3 r = alcm_v3_sub(w->y, alcm_v3_mad(z, d, n));
    double rn = alcm_v3_norm(r);
    if (rn - alcm_max(0.0, mu * d) <= alcm_ds_roundoff(w->y, z)) return true;  // the cone holds
    double s = alcm_clamp(mu * d / rn, 0.0, 1.0);
    double bw[3], bh[3];
    alcm_ds_baryOf(p, z, bw);
    bool inside = true;
    for (int i = 0; i < 3; i++) {
        bh[i] = bw[i] + s * (w->b[i] - bw[i]);
        inside = inside && bh[i] >= 0;
    }
    // Yhat in the triangle: done
    if (inside) {
        alcm_ds_moveTo(w, alcm_ds_baryPoint(p, bh), bh);
        return true;
    }
    // where the segment Y -> Yhat leaves the triangle: the weight ix reaches 0 first
    double tau = 2.0;
    int ix = 0;
    for (int i = 0; i < 3; i++) {
        if (bh[i] < 0) {
            double ti = w->b[i] / (w->b[i] - bh[i]);
            if (ti < tau) {
                tau = ti;
                ix = i;
            }
        }
    }
    int e = (ix + 1) % 3;  // the exit edge, opposite vertex ix
    // pulled back out through the entry edge: stuck on it, slide along it (state 3)
    if (w->state == ALCM_DS_FSM_ENTERED && e == w->loc) {
        w->state = ALCM_DS_FSM_EDGE;
        return false;
    }
    // the exit point, exactly on the edge (Y itself when Y is on the edge already)
    double nb[3], sum = 0;
    int imax = 0;
    for (int i = 0; i < 3; i++) {
        nb[i] = i == ix ? 0.0 : alcm_max(0.0, w->b[i] + tau * (bh[i] - w->b[i]));
        sum += nb[i];
    }
    for (int i = 0; i < 3; i++) {
        nb[i] = tau > 0 ? nb[i] / sum : w->b[i];
        if (nb[i] > nb[imax]) imax = i;
    }
    // at a vertex up to round-off: go there (state 4), the paper's guard against stalling
    if (nb[imax] > ALCM_DS_VERTEX_SNAP) {
        alcm_ds_toVertex(m, w, imax);
        return false;
    }
    if (tau > 0) alcm_ds_moveTo(w, alcm_ds_baryPoint(p, nb), nb);
    int va = m->tri[3 * w->tri + e], vb = m->tri[3 * w->tri + (e + 1) % 3];
    int t2 = m->triAdj[3 * w->tri + e];
    int e2 = t2 >= 0 ? alcm_ds_localEdge(m, t2, vb, va) : -1;
    // a boundary is a wall: slide along it (state 3)
    if (e2 < 0) {
        w->state = ALCM_DS_FSM_EDGE;
        w->loc = e;
        return false;
    }
    // enter the neighbour across the edge (state 2), the weights carried over exactly
    double b2[3];
    b2[e2] = nb[(e + 1) % 3];
    b2[(e2 + 1) % 3] = nb[e];
    b2[(e2 + 2) % 3] = 0;
    w->tri = t2;
    w->state = ALCM_DS_FSM_ENTERED;
    w->loc = e2;
    for (int i = 0; i < 3; i++) w->b[i] = b2[i];
    return false;
}

/// Internal: state 3, relaxation along the edge toward the foot of Z on its line (formula (2)
/// with distances). Returns true when the walk stops.
ALC_HD bool alcm_ds_edgeStep(const alcmDsMesh* m, alcmDsWalk* w, alcV3 z, double mu) {
    int e = w->loc, f = (e + 1) % 3, g = (e + 2) % 3;
    alcV3 p[3];
    alcm_ds_triVerts(m, w->tri, p);
    alcV3 ab = alcm_v3_sub(p[f], p[e]);
    double len = alcm_v3_norm(ab);
    double u = w->b[f];  // Y = p[e] + u (p[f] - p[e])
    double uw = alcm_v3_dot(alcm_v3_sub(z, p[e]), ab) / (len * len);
    double h = alcm_v3_norm(alcm_v3_sub(z, alcm_v3_mad(p[e], uw, ab)));
    double along = fabs(u - uw) * len;
    if (along - mu * h <= alcm_ds_roundoff(w->y, z)) return true;  // the cone holds
    double uh = uw + mu * h / along * (u - uw);
    // Yhat on the edge: done
    if (uh >= 0 && uh <= 1) {
        double b[3];
        b[e] = 1 - uh;
        b[f] = uh;
        b[g] = 0;
        alcm_ds_moveTo(w, alcm_ds_baryPoint(p, b), b);
        return true;
    }
    // past an end: go to that vertex (state 4)
    alcm_ds_toVertex(m, w, uh > 1 ? f : e);
    return false;
}

/// Internal: the pull on Y at vertex position pv within triangle t's plane: false when the cone
/// holds there (no move worth the name), else true with bw the weights of Z's projection W on
/// the plane (Y is pulled toward W) and *score the distance to Z of the plane's relaxed point.
ALC_HD bool alcm_ds_facePull(const alcmDsMesh* m, int t, alcV3 pv, alcV3 z, double mu, double tol,
                             double* bw, double* score) {
    alcV3 p[3];
    alcm_ds_triVerts(m, t, p);
    alcV3 n = alcm_ds_triNormal(p);
    double d = alcm_v3_dot(alcm_v3_sub(p[0], z), n);
    alcV3 wpt = alcm_v3_mad(z, d, n), r = alcm_v3_sub(pv, wpt);
    double rn = alcm_v3_norm(r);
    if (!(rn - alcm_max(0.0, mu * d) > tol)) return false;
    alcm_ds_baryOf(p, z, bw);
    double s = alcm_clamp(mu * d / rn, 0.0, 1.0);
    *score = alcm_v3_norm(alcm_v3_sub(alcm_v3_mad(wpt, s, r), z));
    return true;
}

/// Internal: whether triangle t pulls a point of its local edge e into its interior (Z's
/// projection lies on the inner side of the edge's line, beyond round-off).
ALC_HD bool alcm_ds_pullsInward(const alcmDsMesh* m, int t, int e, alcV3 pv, alcV3 z, double mu,
                                double tol) {
    double bw[3], score = 0;
    if (!alcm_ds_facePull(m, t, pv, z, mu, tol, bw, &score)) return false;
    double bo = bw[(e + 2) % 3];
    return bo > 64.0 * ALCM_DS_EPS * (fabs(bw[0]) + fabs(bw[1]) + fabs(bw[2]));
}

/// Internal: state 4, leave the vertex into the triangle the spring pulls Y into (state 2), else
/// along the edge it pulls Y along (state 3), else stop. Y does not move.
ALC_HD bool alcm_ds_vertexStep(const alcmDsMesh* m, alcmDsWalk* w, alcV3 z, double mu) {
    int v = m->tri[3 * w->tri + w->loc];
    alcV3 pv = w->y;
    double tol = alcm_ds_roundoff(pv, z);
    double best = 0;
    int bt = -1, bi = -1, be = -1;
    // the adjacent triangles: relax in each one's plane, keep those pulled into the corner at v
    for (int k = m->vertTriAdr[v]; k < m->vertTriAdr[v + 1]; k++) {
        int t = m->vertTri[k], i = alcm_ds_localVert(m, t, v);
        double bw[3], score = 0;
        if (i < 0 || !alcm_ds_facePull(m, t, pv, z, mu, tol, bw, &score)) continue;
        double bj = bw[(i + 1) % 3], bk = bw[(i + 2) % 3];
        double margin = 64.0 * ALCM_DS_EPS * (fabs(bj) + fabs(bk));
        if (!(bj > margin && bk > margin)) continue;  // pulled outside the corner
        if (bt < 0 || score < best) {
            best = score;
            bt = t;
            bi = i;
        }
    }
    if (bt >= 0) {
        w->tri = bt;
        w->state = ALCM_DS_FSM_ENTERED;
        w->loc = -1;
        for (int j = 0; j < 3; j++) w->b[j] = j == bi ? 1.0 : 0.0;
        return false;
    }
    // else the adjacent edges: keep those along which the spring pulls Y away from v while
    // neither face beside the edge pulls it off the edge into the face (then it is pulled out of
    // that face's corner across its other edge at v, and another edge is the way out)
    for (int k = m->vertTriAdr[v]; k < m->vertTriAdr[v + 1]; k++) {
        int t = m->vertTri[k], i = alcm_ds_localVert(m, t, v);
        if (i < 0) continue;
        for (int c = 0; c < 2; c++) {
            int e = c == 0 ? i : (i + 2) % 3;  // edge i starts at v, edge i + 2 ends there
            int o = m->tri[3 * t + (c == 0 ? (i + 1) % 3 : (i + 2) % 3)];
            alcV3 ab = alcm_v3_sub(alcm_ds_vert(m, o), pv);
            double len = alcm_v3_norm(ab);
            double uw = alcm_v3_dot(alcm_v3_sub(z, pv), ab) / (len * len);
            if (!(uw > 0)) continue;
            double h = alcm_v3_norm(alcm_v3_sub(z, alcm_v3_mad(pv, uw, ab)));
            double move = uw * len - mu * h;
            if (!(move > tol)) continue;
            double uh = alcm_min(1.0, move / len);
            double score = alcm_v3_norm(alcm_v3_sub(alcm_v3_mad(pv, uh, ab), z));
            if (bt >= 0 && score >= best) continue;
            int t2 = m->triAdj[3 * t + e];
            int e2 = t2 >= 0
                         ? alcm_ds_localEdge(m, t2, m->tri[3 * t + (e + 1) % 3], m->tri[3 * t + e])
                         : -1;
            if (alcm_ds_pullsInward(m, t, e, pv, z, mu, tol)) continue;
            if (e2 >= 0 && alcm_ds_pullsInward(m, t2, e2, pv, z, mu, tol)) continue;
            best = score;
            bt = t;
            bi = i;
            be = e;
        }
    }
    if (bt >= 0) {
        w->tri = bt;
        w->state = ALCM_DS_FSM_EDGE;
        w->loc = be;
        for (int j = 0; j < 3; j++) w->b[j] = j == bi ? 1.0 : 0.0;
        return false;
    }
    return true;  // no way out
}

// ---- normals and the separation test ------------------------------------------------------

/// Internal: the foot of z on triangle t's plane lies in the triangle (its weights above
/// -ALCM_DS_FOOT_TOL).
ALC_HD bool alcm_ds_footInside(const alcmDsMesh* m, int t, alcV3 z) {
    alcV3 q[3];
    alcm_ds_triVerts(m, t, q);
    double b[3];
    alcm_ds_baryOf(q, z, b);  // the weights of the projection (alcm_ds_baryOf projects)
    return b[0] >= -ALCM_DS_FOOT_TOL && b[1] >= -ALCM_DS_FOOT_TOL && b[2] >= -ALCM_DS_FOOT_TOL;
}

/// Internal: Z has left an open mesh across its boundary: the walk ended on a boundary edge
/// (or at a vertex of one) and Z's foot lies outside the face(s) there.
ALC_HD bool alcm_ds_offBoundary(const alcmDsMesh* m, const alcmDsWalk* w, alcV3 z) {
    if (w->state == ALCM_DS_FSM_EDGE) {
        return m->triAdj[3 * w->tri + w->loc] < 0 && !alcm_ds_footInside(m, w->tri, z);
    }
    if (w->state != ALCM_DS_FSM_VERTEX) return false;
    int v = m->tri[3 * w->tri + w->loc];
    bool boundary = false;
    for (int k = m->vertTriAdr[v]; k < m->vertTriAdr[v + 1]; k++) {
        int t = m->vertTri[k], i = alcm_ds_localVert(m, t, v);
        if (i < 0) continue;
        if (alcm_ds_footInside(m, t, z)) return false;
        boundary = boundary || m->triAdj[3 * t + i] < 0 || m->triAdj[3 * t + (i + 2) % 3] < 0;
    }
    return boundary;
}

/// Internal: fill the result's normals and separation test from the walk's end.
ALC_HD void alcm_ds_finish(const alcmDsMesh* m, const alcmDsWalk* w, alcV3 z, double mu,
                           alcmDsMeshResult* out) {
    alcV3 p[3];
    alcm_ds_triVerts(m, w->tri, p);
    alcV3 nf = alcm_ds_triNormal(p), yz = alcm_v3_sub(w->y, z);
    out->n = nf;
    out->nsep = nf;
    if (w->state == ALCM_DS_FSM_EDGE) {
        // edge: the two faces' normals summed; the cone's normal from Z's foot on the line
        int e = w->loc, t2 = m->triAdj[3 * w->tri + e];
        if (t2 >= 0) {
            alcV3 q[3];
            alcm_ds_triVerts(m, t2, q);
            out->nsep = alcm_v3_normalize(alcm_v3_add(nf, alcm_ds_triNormal(q)));
        }
        alcV3 t = alcm_v3_normalize(alcm_v3_sub(p[(e + 1) % 3], p[e]));
        alcV3 qn = alcm_v3_mad(yz, -alcm_v3_dot(yz, t), t);
        out->n = alcm_v3_norm(qn) > 0 ? alcm_v3_normalize(qn) : out->nsep;
    } else if (w->state == ALCM_DS_FSM_VERTEX) {
        // vertex: the angle-weighted normal; the cone's normal from the best adjacent face
        int v = m->tri[3 * w->tri + w->loc];
        alcV3 sum = alcm_v3(0, 0, 0);
        double bestMargin = -1;
        bool found = false;
        for (int k = m->vertTriAdr[v]; k < m->vertTriAdr[v + 1]; k++) {
            int t = m->vertTri[k], i = alcm_ds_localVert(m, t, v);
            if (i < 0) continue;
            alcV3 q[3];
            alcm_ds_triVerts(m, t, q);
            alcV3 nt = alcm_ds_triNormal(q);
            alcV3 a = alcm_v3_sub(q[(i + 1) % 3], q[i]), b = alcm_v3_sub(q[(i + 2) % 3], q[i]);
            double ang = atan2(alcm_v3_norm(alcm_v3_cross(a, b)), alcm_v3_dot(a, b));
            sum = alcm_v3_mad(sum, ang, nt);
            double fn = alcm_v3_dot(yz, nt);
            double margin = mu * fn - alcm_v3_norm(alcm_v3_mad(yz, -fn, nt));
            if (margin >= 0 && (!found || margin > bestMargin)) {
                found = true;
                bestMargin = margin;
                out->n = nt;
            }
        }
        out->nsep = alcm_v3_normalize(sum);
        if (!found) out->n = alcm_v3_norm(yz) > 0 ? alcm_v3_normalize(yz) : out->nsep;
    }
    out->active = alcm_v3_dot(yz, out->nsep) > 0 && !alcm_ds_offBoundary(m, w, z);
}

// ---- the relaxation -----------------------------------------------------------------------

/// Relax the attachment x of particle z on the mesh (Ding and Schroeder's finite state machine):
/// Y is the point where the zero-length spring's force k (Y - Z) enters the Coulomb cone of
/// friction mu >= 0 at Y, reached by sliding from X along the mesh no further than needed; then
/// the separation test. Relaxing the result again with the same z returns it unchanged (static;
/// checked on random closed and open meshes, tests/test_penalty_ds_mesh.c, not proven).
/// @param[in]  mesh      the surface, with its adjacency (alcm_ds_meshAdjacency)
/// @param[in]  x         the attachment X; negative weights are clamped to 0 and the rest
///                       renormalized (weights >= 0 are used as given)
/// @param[in]  z         the particle Z (m)
/// @param[in]  mu        Coulomb friction coefficient, >= 0
/// @param[in]  maxSteps  bound on the FSM's steps (the paper saw at most 5; 16 to 32 is ample
///                       for motions of a few triangles)
/// @param[out] out       the relaxed attachment; when the steps run out, the point reached
/// @param[out] trace     the walk step by step; may be NULL
/// @return out->converged: false when maxSteps ran out or x.tri is out of range.
/// Nullable: trace
ALC_HD bool alcm_ds_meshRelax(const alcmDsMesh* mesh, alcmDsAttach x, alcV3 z, double mu,
                              int maxSteps, alcmDsMeshResult* out, alcmDsMeshTrace* trace) {
    out->attach = x;
    out->y = out->n = out->nsep = alcm_v3(0, 0, 0);
    out->state = 0;
    out->loc = -1;
    out->nsteps = 0;
    out->active = out->dynamic = out->converged = false;
    if (trace) trace->n = 0;
    if (x.tri < 0 || x.tri >= mesh->ntri) return false;
    // start in state 1 at X
    alcmDsWalk w;
    w.state = ALCM_DS_FSM_FACE;
    w.tri = x.tri;
    w.loc = -1;
    w.moved = false;
    double sum = 0;
    bool clamp = false;
    for (int i = 0; i < 3; i++) {
        w.b[i] = alcm_max(0.0, x.b[i]);
        clamp = clamp || !(x.b[i] >= 0);
        sum += w.b[i];
    }
    for (int i = 0; clamp && i < 3; i++) w.b[i] = sum > 0 ? w.b[i] / sum : 1.0 / 3;
    alcV3 p[3];
    alcm_ds_triVerts(mesh, w.tri, p);
    w.y = alcm_ds_baryPoint(p, w.b);
    if (trace) {
        trace->dist[0] = alcm_v3_norm(alcm_v3_sub(w.y, z));
        trace->y[0] = w.y;
    }
    // the state machine, one state per step
    bool stop = false, dynamic = false;
    int k = 0;
    for (; k < maxSteps && !stop; k++) {
        int st = w.state, tk = w.tri, lk = w.loc;
        w.moved = false;
        if (st == ALCM_DS_FSM_EDGE) {
            stop = alcm_ds_edgeStep(mesh, &w, z, mu);
        } else if (st == ALCM_DS_FSM_VERTEX) {
            stop = alcm_ds_vertexStep(mesh, &w, z, mu);
        } else {
            stop = alcm_ds_faceStep(mesh, &w, z, mu);
        }
        dynamic = dynamic || w.moved;
        if (trace && k < ALCM_DS_TRACE_LEN) {
            trace->state[k] = st;
            trace->tri[k] = tk;
            trace->loc[k] = lk;
            trace->moved[k] = w.moved;
            trace->dist[k + 1] = alcm_v3_norm(alcm_v3_sub(w.y, z));
            trace->y[k + 1] = w.y;
            trace->n = k + 1;
        }
    }
    // the walk's end: a step that stops leaves its own state
    out->attach.tri = w.tri;
    for (int i = 0; i < 3; i++) out->attach.b[i] = w.b[i];
    out->y = w.y;
    out->state = w.state;
    out->loc = w.state == ALCM_DS_FSM_EDGE || w.state == ALCM_DS_FSM_VERTEX ? w.loc : -1;
    out->nsteps = k;
    out->dynamic = dynamic;
    out->converged = stop;
    alcm_ds_finish(mesh, &w, z, mu, out);
    return stop;
}

#endif  // ALC_HD_ALCM_PENALTY_DS_MESH_H_
