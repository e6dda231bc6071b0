// Independent state checker: inverted tetrahedra, edge-triangle intersections and NaN/Inf, all
// decided with exact orientation predicates; the BVH only culls pairs whose padded boxes are
// disjoint (closed boxes, no inflation), so it cannot hide an intersection.
#include "check.h"

#include "exact_predicates.h"
#include "ref/broad_ref.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- exact segment-triangle intersection ---------------------------------------------------

// p with axis k dropped: (p[k+1], p[k+2])
static void project(const double* p, int k, double* out) {
    out[0] = p[(k + 1) % 3];
    out[1] = p[(k + 2) % 3];
}

// r, collinear with p and q, lies within their bounding box (so on the closed segment pq)
static bool onSegment2(const double* p, const double* q, const double* r) {
    for (int k = 0; k < 2; k++) {
        double lo = p[k] < q[k] ? p[k] : q[k], hi = p[k] < q[k] ? q[k] : p[k];
        if (r[k] < lo || r[k] > hi) return false;
    }
    return true;
}

// closed segments pq and ab meet in the plane (collinear and degenerate segments included)
static bool segSeg2(const double* p, const double* q, const double* a, const double* b) {
    int o1 = alci_orient2d_exact(p, q, a), o2 = alci_orient2d_exact(p, q, b);
    int o3 = alci_orient2d_exact(a, b, p), o4 = alci_orient2d_exact(a, b, q);
    if (o1 * o2 < 0 && o3 * o4 < 0) return true;
    if (o1 == 0 && onSegment2(p, q, a)) return true;
    if (o2 == 0 && onSegment2(p, q, b)) return true;
    if (o3 == 0 && onSegment2(a, b, p)) return true;
    return o4 == 0 && onSegment2(a, b, q);
}

// p lies in the closed triangle abc, which is not degenerate
static bool inTriangle2(const double* p, const double* a, const double* b, const double* c) {
    int s1 = alci_orient2d_exact(a, b, p), s2 = alci_orient2d_exact(b, c, p);
    int s3 = alci_orient2d_exact(c, a, p);
    bool pos = s1 > 0 || s2 > 0 || s3 > 0, neg = s1 < 0 || s2 < 0 || s3 < 0;
    return !(pos && neg);
}

// closed segments pq and ab in space meet: they must be coplanar, and then they meet iff their
// projections meet on all three coordinate planes (one projection is injective on the plane or
// line holding them, and projections of meeting sets meet)
static bool segSeg3(const double* p, const double* q, const double* a, const double* b) {
    if (alci_orient3d_exact(p, q, a, b) != 0) return false;
    for (int k = 0; k < 3; k++) {
        double p2[2], q2[2], a2[2], b2[2];
        project(p, k, p2);
        project(q, k, q2);
        project(a, k, a2);
        project(b, k, b2);
        if (!segSeg2(p2, q2, a2, b2)) return false;
    }
    return true;
}

int alci_check_segmentTriangle(const double p[3], const double q[3], const double a[3],
                               const double b[3], const double c[3]) {
    int sp = alci_orient3d_exact(a, b, c, p), sq = alci_orient3d_exact(a, b, c, q);

    // segment not in the plane (so the triangle is not degenerate): it crosses or touches the
    // plane at one point, inside the closed triangle iff the three volumes agree in sign
    if (sp != 0 || sq != 0) {
        if (sp == sq) return 0;
        int s1 = alci_orient3d_exact(p, q, a, b), s2 = alci_orient3d_exact(p, q, b, c);
        int s3 = alci_orient3d_exact(p, q, c, a);
        bool pos = s1 > 0 || s2 > 0 || s3 > 0, neg = s1 < 0 || s2 < 0 || s3 < 0;
        return !(pos && neg);
    }

    // coplanar, triangle not degenerate: decide in a projection where it keeps its area
    for (int k = 0; k < 3; k++) {
        double p2[2], q2[2], a2[2], b2[2], c2[2];
        project(a, k, a2);
        project(b, k, b2);
        project(c, k, c2);
        if (alci_orient2d_exact(a2, b2, c2) == 0) continue;
        project(p, k, p2);
        project(q, k, q2);
        if (inTriangle2(p2, a2, b2, c2) || inTriangle2(q2, a2, b2, c2)) return 1;
        return segSeg2(p2, q2, a2, b2) || segSeg2(p2, q2, b2, c2) || segSeg2(p2, q2, c2, a2);
    }

    // degenerate triangle (collinear vertices): it is the union of its edges
    return segSeg3(p, q, a, b) || segSeg3(p, q, b, c) || segSeg3(p, q, c, a);
}

// ---- the checker ---------------------------------------------------------------------------

static bool inRange(const int* idx, int n, int nvert) {
    for (int k = 0; k < n; k++) {
        if (idx[k] < 0 || idx[k] >= nvert) return false;
    }
    return true;
}

static alctStatus checkArgs(const alciCheckInput* in, const alciCheckReport* rep) {
    if (!in || !rep || in->nvert < 0 || in->ntet < 0 || in->ntri < 0 || in->nedge < 0) {
        return ALC_ERR_INVALID_ARG;
    }
    if ((in->nvert > 0 && !in->x) || (in->ntet > 0 && !in->tet) || (in->ntri > 0 && !in->tri) ||
        (in->nedge > 0 && !in->edge)) {
        return ALC_ERR_INVALID_ARG;
    }
    if (!inRange(in->tet, 4 * in->ntet, in->nvert) || !inRange(in->tri, 3 * in->ntri, in->nvert) ||
        !inRange(in->edge, 2 * in->nedge, in->nvert)) {
        return ALC_ERR_INVALID_ARG;
    }
    return ALC_OK;
}

static bool anyBad(const unsigned char* bad, const int* v, int n) {
    for (int k = 0; k < n; k++) {
        if (bad[v[k]]) return true;
    }
    return false;
}

// (c) vertices with a NaN or Inf coordinate: flags, count and the first
static void checkFinite(const alciCheckInput* in, unsigned char* bad, alciCheckReport* rep) {
    for (int v = 0; v < in->nvert; v++) {
        const double* p = in->x + 3 * v;
        bad[v] = !(isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]));
        if (!bad[v]) continue;
        if (rep->nnonfinite++ == 0) rep->vert = v;
    }
}

// (a) tetrahedra that are not strictly positively oriented
static void checkTets(const alciCheckInput* in, const unsigned char* bad, alciCheckReport* rep) {
    int count = 0, allowed = 0, first = INT32_MAX;
#pragma omp parallel for schedule(static) if (in->ntet > 8192) reduction(+ : count, allowed) \
    reduction(min : first)
    for (int t = 0; t < in->ntet; t++) {
        const int* v = in->tet + 4 * t;
        if (anyBad(bad, v, 4)) continue;
        const double* x = in->x;
        if (alci_orient3d_exact(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]) > 0) {
            continue;
        }
        if (in->tet_protected && !in->tet_protected[t]) {
            allowed++;  // a material that may invert (corotated, stable Neo-Hookean)
            continue;
        }
        count++;
        if (t < first) first = t;
    }
    rep->ninvertedAllowed = allowed;
    rep->ninverted = count;
    if (count == 0) return;
    rep->tet = first;
    for (int k = 0; k < 4; k++) rep->tetVert[k] = in->tet[4 * first + k];
    rep->tetBody = in->tet_body ? in->tet_body[first] : -1;
}

static bool sharesVertex(const int* e, const int* t) {
    for (int k = 0; k < 3; k++) {
        if (e[0] == t[k] || e[1] == t[k]) return true;
    }
    return false;
}

// (b) edge-triangle pairs that meet: boxes of the finite triangles in a BVH, each finite edge
// queried against it, every overlapping pair without a shared vertex decided exactly
static alctStatus checkIntersections(const alciCheckInput* in, const unsigned char* bad,
                                     alciCheckReport* rep) {
    const double* x = in->x;
    int* ids = (int*)malloc(sizeof(int) * (size_t)(in->ntri > 0 ? in->ntri : 1));
    alcAabb* box = (alcAabb*)malloc(sizeof(alcAabb) * (size_t)(in->ntri > 0 ? in->ntri : 1));
    alcrBroadTree tree;
    memset(&tree, 0, sizeof tree);
    alctStatus s = ids && box ? ALC_OK : ALC_ERR_NOMEM;

    // tree over the finite triangles (static boxes, no inflation, ulp padding)
    int n = 0;
    for (int j = 0; s == ALC_OK && j < in->ntri; j++) {
        if (anyBad(bad, in->tri + 3 * j, 3)) continue;
        ids[n] = j;
        box[n++] = alcm_aabb_sweptTri(x, x, in->tri + 3 * j, 0.0);
    }
    if (s == ALC_OK) s = alcr_broad_treeMake(n, &tree);
    if (s == ALC_OK) s = alcr_broad_treeBuild(&tree, box, n);

    // edges against the tree; per-thread hit buffers grow as needed
    int count = 0, nomem = 0;
    int64_t first = INT64_MAX;
    int64_t ntri = in->ntri;
#pragma omp parallel if (s == ALC_OK && in->nedge > 2048) reduction(+ : count, nomem) \
    reduction(min : first)
    {
        int cap = 64;
        int* hits = s == ALC_OK ? (int*)malloc(sizeof(int) * (size_t)cap) : NULL;
        if (s == ALC_OK && !hits) nomem++;
#pragma omp for schedule(dynamic, 64)
        for (int e = 0; e < in->nedge; e++) {
            const int* ev = in->edge + 2 * e;
            if (!hits || anyBad(bad, ev, 2)) continue;
            alcAabb q = alcm_aabb_sweptEdge(x, x, ev, 0.0);
            int nh = alcr_broad_treeQuery(&tree, q, hits, cap);
            if (nh > cap) {
                int* grown = (int*)realloc(hits, sizeof(int) * (size_t)nh);
                if (!grown) {
                    nomem++;
                    continue;
                }
                hits = grown;
                cap = nh;
                alcr_broad_treeQuery(&tree, q, hits, cap);
            }
            for (int h = 0; h < nh; h++) {
                int j = ids[hits[h]];
                const int* tv = in->tri + 3 * j;
                if (sharesVertex(ev, tv)) continue;
                if (in->body_obstacle && in->edge_body && in->tri_body &&
                    in->body_obstacle[in->edge_body[e]] && in->body_obstacle[in->tri_body[j]]) {
                    continue;
                }
                if (!alci_check_segmentTriangle(x + 3 * ev[0], x + 3 * ev[1], x + 3 * tv[0],
                                                x + 3 * tv[1], x + 3 * tv[2])) {
                    continue;
                }
                count++;
                int64_t key = (int64_t)e * ntri + j;
                if (key < first) first = key;
            }
        }
        free(hits);
    }
    if (s == ALC_OK && nomem) s = ALC_ERR_NOMEM;
    alcr_broad_treeFree(&tree);
    free(ids);
    free(box);
    if (s != ALC_OK) return s;

    // the first pair by (edge, triangle)
    rep->nintersect = count;
    if (count == 0) return ALC_OK;
    rep->edge = (int)(first / ntri);
    rep->tri = (int)(first % ntri);
    for (int k = 0; k < 2; k++) rep->edgeVert[k] = in->edge[2 * rep->edge + k];
    for (int k = 0; k < 3; k++) rep->triVert[k] = in->tri[3 * rep->tri + k];
    rep->edgeBody = in->edge_body ? in->edge_body[rep->edge] : -1;
    rep->triBody = in->tri_body ? in->tri_body[rep->tri] : -1;
    return ALC_OK;
}

// ", body B" when bodies are known
static void bodyText(char* buf, size_t sz, int body) {
    if (body >= 0) {
        snprintf(buf, sz, ", body %d", body);
    } else {
        buf[0] = 0;
    }
}

// one-line verdict: "ok: ..." or each kind of offence, the first offender and the count
static void formatMessage(const alciCheckInput* in, alciCheckReport* rep) {
    char* m = rep->message;
    size_t sz = sizeof rep->message, len = 0;
    char b1[32], b2[32];
    m[0] = 0;
    if (rep->clean) {
        snprintf(m, sz,
                 "ok: %d vertices, %d tetrahedra, %d triangles, %d edges: no NaN/Inf, "
                 "no inverted tetrahedron%s, no intersection",
                 in->nvert, in->ntet, in->ntri, in->nedge,
                 rep->ninvertedAllowed ? " of a non-invertible material" : "");
        len = strlen(m);
        if (rep->ninvertedAllowed > 0) {
            snprintf(m + len, sz - len,
                     "; %d inverted tetrahedra of materials that may invert (allowed)",
                     rep->ninvertedAllowed);
        }
        return;
    }
    if (rep->nnonfinite > 0) {
        snprintf(m + len, sz - len, "NaN/Inf coordinate at vertex %d (%d vertices)", rep->vert,
                 rep->nnonfinite);
        len = strlen(m);
    }
    if (rep->ninverted > 0) {
        bodyText(b1, sizeof b1, rep->tetBody);
        snprintf(m + len, sz - len, "%sinverted tetrahedron %d (vertices %d %d %d %d%s; %d in all)",
                 len ? "; " : "", rep->tet, rep->tetVert[0], rep->tetVert[1], rep->tetVert[2],
                 rep->tetVert[3], b1, rep->ninverted);
        len = strlen(m);
    }
    if (rep->ninvertedAllowed > 0) {
        snprintf(m + len, sz - len,
                 "%s%d inverted tetrahedra of materials that may invert (allowed)", len ? "; " : "",
                 rep->ninvertedAllowed);
        len = strlen(m);
    }
    if (rep->nintersect > 0) {
        bodyText(b1, sizeof b1, rep->edgeBody);
        bodyText(b2, sizeof b2, rep->triBody);
        snprintf(m + len, sz - len,
                 "%sedge %d (vertices %d %d%s) intersects triangle %d (vertices %d %d %d%s; "
                 "%d pairs in all)",
                 len ? "; " : "", rep->edge, rep->edgeVert[0], rep->edgeVert[1], b1, rep->tri,
                 rep->triVert[0], rep->triVert[1], rep->triVert[2], b2, rep->nintersect);
    }
}

void alci_check_tetProtected(const alcModel* m, int* out) {
    for (int k = 0; k < m->ntet; k++) {
        int b = m->tet_body ? m->tet_body[k] : -1;
        int model = ALC_MAT_NEOHOOKEAN;
        if (b >= 0 && b < m->nbody && m->body_mat && m->mat_model && m->body_mat[b] >= 0 &&
            m->body_mat[b] < m->nmat) {
            model = m->mat_model[m->body_mat[b]];
        }
        out[k] = m->opt.inversion == ALC_INVERSION_ALL || model == ALC_MAT_NEOHOOKEAN;
    }
}

alctStatus alci_check_state(const alciCheckInput* in, alciCheckReport* rep) {
    alctStatus s = checkArgs(in, rep);
    if (s != ALC_OK) return s;
    memset(rep, 0, sizeof *rep);
    rep->vert = rep->tet = rep->edge = rep->tri = -1;
    rep->tetBody = rep->edgeBody = rep->triBody = -1;
    for (int k = 0; k < 4; k++) rep->tetVert[k] = -1;
    for (int k = 0; k < 3; k++) rep->triVert[k] = -1;
    rep->edgeVert[0] = rep->edgeVert[1] = -1;

    unsigned char* bad = (unsigned char*)calloc((size_t)(in->nvert > 0 ? in->nvert : 1), 1);
    if (!bad) return ALC_ERR_NOMEM;
    checkFinite(in, bad, rep);
    checkTets(in, bad, rep);
    s = checkIntersections(in, bad, rep);
    free(bad);
    if (s != ALC_OK) return s;
    rep->clean = rep->nnonfinite == 0 && rep->ninverted == 0 && rep->nintersect == 0;
    formatMessage(in, rep);
    return ALC_OK;
}

alctStatus alci_check_model(const alcModel* m, const double* x, int tets, int strict,
                            alciCheckReport* rep) {
    if (!m || !rep) return ALC_ERR_INVALID_ARG;
    int* prot = NULL;
    unsigned char* obstacle = (unsigned char*)calloc((size_t)m->nbody + 1, 1);
    if (tets && !strict) prot = (int*)malloc(sizeof(int) * ((size_t)m->ntet + 1));
    if (!obstacle || (tets && !strict && !prot)) {
        free(prot);
        free(obstacle);
        return ALC_ERR_NOMEM;
    }
    if (prot) alci_check_tetProtected(m, prot);
    for (int b = 0; b < m->nbody; b++) obstacle[b] = m->body_type[b] == ALC_BODY_OBSTACLE;
    alciCheckInput in;
    memset(&in, 0, sizeof in);
    in.nvert = m->nvert;
    in.x = x;
    in.ntet = tets ? m->ntet : 0;
    in.tet = m->tet_vert;
    in.ntri = m->ntri;
    in.tri = m->tri_vert;
    in.nedge = m->nedge;
    in.edge = m->edge_vert;
    in.tet_body = m->tet_body;
    in.tri_body = m->tri_body;
    in.edge_body = m->edge_body;
    in.tet_protected = prot;
    in.body_obstacle = obstacle;
    alctStatus st = alci_check_state(&in, rep);
    free(prot);
    free(obstacle);
    return st;
}
