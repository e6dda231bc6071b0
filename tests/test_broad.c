// Reference broad phase: the BVH against the brute-force oracle on random scenes (triangle
// soups, tori, moving, inflated, partly passive), exclusions, capacity overflow with a canary,
// determinism across thread counts, conservative boxes, and timings at ~100k triangles.
#include "ref/broad_ref.h"
#include "test_macros.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

// ---- fixed-seed generator --------------------------------------------------------------------

static uint64_t g_rng;

static uint64_t rnd(void) {
    uint64_t z = (g_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rndUnit(void) {
    return (double)(rnd() >> 11) * 0x1p-53;
}
static double rndRange(double lo, double hi) {
    return lo + (hi - lo) * rndUnit();
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// ---- scenes ------------------------------------------------------------------------------------

typedef struct {
    int nvert, ntri, nedge, nsvert;
    int maxVert, maxTri;
    double* x0;
    double* x1;
    int* tri;
    int* edge;
    int* svert;
    unsigned char* passive;
} Scene;

static bool sceneInit(Scene* s, int maxVert, int maxTri) {
    memset(s, 0, sizeof *s);
    s->maxVert = maxVert;
    s->maxTri = maxTri;
    s->x0 = (double*)calloc(3 * (size_t)maxVert, sizeof(double));
    s->x1 = (double*)calloc(3 * (size_t)maxVert, sizeof(double));
    s->tri = (int*)calloc(3 * (size_t)maxTri, sizeof(int));
    s->edge = (int*)calloc(6 * (size_t)maxTri, sizeof(int));
    s->svert = (int*)calloc((size_t)maxVert, sizeof(int));
    s->passive = (unsigned char*)calloc((size_t)maxVert, 1);
    return s->x0 && s->x1 && s->tri && s->edge && s->svert && s->passive;
}

static void sceneFree(Scene* s) {
    free(s->x0);
    free(s->x1);
    free(s->tri);
    free(s->edge);
    free(s->svert);
    free(s->passive);
    memset(s, 0, sizeof *s);
}

// closed torus around centre c (axis z): nu x nv vertices, 2 nu nv triangles
static void addTorus(Scene* s, const double* c, double R, double r, int nu, int nv) {
    int base = s->nvert;
    double phase = rndRange(0, 6.28);
    for (int i = 0; i < nu; i++) {
        for (int j = 0; j < nv; j++) {
            double u = 6.283185307179586 * i / nu + phase, v = 6.283185307179586 * j / nv;
            double* p = s->x0 + 3 * s->nvert++;
            p[0] = c[0] + (R + r * cos(v)) * cos(u);
            p[1] = c[1] + (R + r * cos(v)) * sin(u);
            p[2] = c[2] + r * sin(v);
        }
    }
    for (int i = 0; i < nu; i++) {
        for (int j = 0; j < nv; j++) {
            int a = base + i * nv + j, b = base + ((i + 1) % nu) * nv + j;
            int c2 = base + ((i + 1) % nu) * nv + (j + 1) % nv, d = base + i * nv + (j + 1) % nv;
            int* t = s->tri + 3 * s->ntri;
            t[0] = a, t[1] = b, t[2] = c2, t[3] = a, t[4] = c2, t[5] = d;
            s->ntri += 2;
        }
    }
}

// n independent triangles of about `size` inside a cube of side `extent`
static void addSoup(Scene* s, int n, double extent, double size) {
    for (int k = 0; k < n; k++) {
        double c[3] = {rndRange(0, extent), rndRange(0, extent), rndRange(0, extent)};
        int* t = s->tri + 3 * s->ntri++;
        for (int i = 0; i < 3; i++) {
            double* p = s->x0 + 3 * s->nvert;
            for (int a = 0; a < 3; a++) p[a] = c[a] + rndRange(-size, size);
            t[i] = s->nvert++;
        }
    }
}

static int cmpPair(const void* a, const void* b) {
    const int* p = (const int*)a;
    const int* q = (const int*)b;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    return p[1] < q[1] ? -1 : (p[1] > q[1] ? 1 : 0);
}

// unique edges of the triangles, every referenced vertex as a point, the motion x0 -> x1
// (a random translation per vertex block plus noise) and a passive fraction
static void sceneFinish(Scene* s, double disp, double noise, double passiveFrac) {
    int ne = 0;
    for (int t = 0; t < s->ntri; t++) {
        for (int k = 0; k < 3; k++) {
            int a = s->tri[3 * t + k], b = s->tri[3 * t + (k + 1) % 3];
            s->edge[2 * ne] = a < b ? a : b;
            s->edge[2 * ne + 1] = a < b ? b : a;
            ne++;
        }
    }
    qsort(s->edge, (size_t)ne, 2 * sizeof(int), cmpPair);
    s->nedge = 0;
    for (int k = 0; k < ne; k++) {
        if (k > 0 && cmpPair(s->edge + 2 * k, s->edge + 2 * k - 2) == 0) continue;
        s->edge[2 * s->nedge] = s->edge[2 * k];
        s->edge[2 * s->nedge + 1] = s->edge[2 * k + 1];
        s->nedge++;
    }
    s->nsvert = s->nvert;
    double shift[3] = {0, 0, 0};
    for (int v = 0; v < s->nvert; v++) {
        s->svert[v] = v;
        if (v % 64 == 0) {
            for (int a = 0; a < 3; a++) shift[a] = rndRange(-disp, disp);
        }
        for (int a = 0; a < 3; a++) {
            s->x1[3 * v + a] = s->x0[3 * v + a] + shift[a] + rndRange(-noise, noise);
        }
        s->passive[v] = rndUnit() < passiveFrac;
    }
}

static alcrBroadInput sceneInput(const Scene* s, double inflate, bool usePassive) {
    alcrBroadInput in;
    memset(&in, 0, sizeof in);
    in.nvert = s->nvert;
    in.x0 = s->x0;
    in.x1 = s->x1;
    in.nsvert = s->nsvert;
    in.svert = s->svert;
    in.nedge = s->nedge;
    in.edge = s->edge;
    in.ntri = s->ntri;
    in.tri = s->tri;
    in.vert_passive = usePassive ? s->passive : NULL;
    in.inflate = inflate;
    return in;
}

// ---- helpers -----------------------------------------------------------------------------------

typedef alctStatus (*QueryFn)(alcrBroad*, const alcrBroadInput*, int, int*, int*);
typedef alctStatus (*BruteFn)(const alcrBroadInput*, int, int*, int*);

// run a query into a fresh array of the exact size; NULL on failure
static int* runQuery(alcrBroad* b, const alcrBroadInput* in, QueryFn q, BruteFn bf, int* n) {
    int count = 0;
    alctStatus st = q ? q(b, in, 0, NULL, &count) : bf(in, 0, NULL, &count);
    if (st != ALC_OK && st != ALC_ERR_CAPACITY) return NULL;
    int* pairs = (int*)malloc(sizeof(int) * 2 * (size_t)(count + 1));
    if (!pairs) return NULL;
    int again = -1;
    st = q ? q(b, in, count, pairs, &again) : bf(in, count, pairs, &again);
    if (st != ALC_OK || again != count) {
        free(pairs);
        return NULL;
    }
    *n = count;
    return pairs;
}

static bool sortedUnique(const int* p, int n) {
    for (int k = 1; k < n; k++) {
        if (cmpPair(p + 2 * k - 2, p + 2 * k) >= 0) return false;
    }
    return true;
}

static bool pas(const Scene* s, bool usePassive, int v) {
    return usePassive && s->passive[v];
}

// every reported pair obeys the exclusion rules
static bool exclusionsHold(const Scene* s, bool usePassive, const int* pt, int npt, const int* ee,
                           int nee) {
    for (int k = 0; k < npt; k++) {
        int v = s->svert[pt[2 * k]];
        const int* t = s->tri + 3 * pt[2 * k + 1];
        if (v == t[0] || v == t[1] || v == t[2]) return false;
        if (pas(s, usePassive, v) && pas(s, usePassive, t[0]) && pas(s, usePassive, t[1]) &&
            pas(s, usePassive, t[2])) {
            return false;
        }
    }
    for (int k = 0; k < nee; k++) {
        if (ee[2 * k] >= ee[2 * k + 1]) return false;
        const int* e = s->edge + 2 * ee[2 * k];
        const int* g = s->edge + 2 * ee[2 * k + 1];
        if (e[0] == g[0] || e[0] == g[1] || e[1] == g[0] || e[1] == g[1]) return false;
        if (pas(s, usePassive, e[0]) && pas(s, usePassive, e[1]) && pas(s, usePassive, g[0]) &&
            pas(s, usePassive, g[1])) {
            return false;
        }
    }
    return true;
}

// BVH and brute force give the same sorted PT and EE lists; returns a message or NULL
static const char* compareScene(const Scene* s, double inflate, bool usePassive, int* npt,
                                int* nee) {
    alcrBroad* b = NULL;
    if (alcr_broad_make(s->nsvert, s->nedge, s->ntri, &b) != ALC_OK) return "make failed";
    alcrBroadInput in = sceneInput(s, inflate, usePassive);
    const char* err = NULL;
    int n1 = 0, n2 = 0, m1 = 0, m2 = 0;
    int *p1 = NULL, *p2 = NULL, *e1 = NULL, *e2 = NULL;
    if (alcr_broad_build(b, &in) != ALC_OK) err = "build failed";
    if (!err) {
        p1 = runQuery(b, &in, alcr_broad_queryPT, NULL, &n1);
        p2 = runQuery(NULL, &in, NULL, alcr_broad_bruteForcePT, &n2);
        e1 = runQuery(b, &in, alcr_broad_queryEE, NULL, &m1);
        e2 = runQuery(NULL, &in, NULL, alcr_broad_bruteForceEE, &m2);
        if (!p1 || !p2 || !e1 || !e2) err = "query failed";
    }
    if (!err && (n1 != n2 || memcmp(p1, p2, sizeof(int) * 2 * (size_t)n1) != 0)) {
        err = "PT lists differ";
    }
    if (!err && (m1 != m2 || memcmp(e1, e2, sizeof(int) * 2 * (size_t)m1) != 0)) {
        err = "EE lists differ";
    }
    if (!err && (!sortedUnique(p1, n1) || !sortedUnique(e1, m1))) err = "not sorted";
    if (!err && !exclusionsHold(s, usePassive, p1, n1, e1, m1)) err = "exclusion broken";
    *npt = n1;
    *nee = m1;
    free(p1);
    free(p2);
    free(e1);
    free(e2);
    alcr_broad_free(b);
    return err;
}

// ---- tests -------------------------------------------------------------------------------------

ALC_TEST(broad_tree_query_vs_brute) {
    g_rng = 11;
    enum { N = 3000 };
    alcAabb* box = (alcAabb*)malloc(sizeof(alcAabb) * N);
    int* hits = (int*)malloc(sizeof(int) * N);
    alcrBroadTree tree;
    ENSURE(box && hits);
    ENSURE_OK(alcr_broad_treeMake(N, &tree));
    for (int n = 0; n <= N; n = n ? 3 * n : 1) {
        for (int k = 0; k < n; k++) {
            alcV3 c = alcm_v3(rndRange(0, 10), rndRange(0, 10), rndRange(0, 10));
            alcV3 h = alcm_v3(rndRange(0, 0.5), rndRange(0, 0.5), rndRange(0, 0.5));
            // a few identical boxes, to exercise equal split keys
            if (k % 7 == 3) c = alcm_v3(5, 5, 5);
            box[k].lo = alcm_v3_sub(c, h);
            box[k].hi = alcm_v3_add(c, h);
        }
        ENSURE_OK(alcr_broad_treeBuild(&tree, box, n));

        // every primitive in exactly one leaf slot, leaf boxes inside their node boxes
        int* seen = (int*)calloc((size_t)n + 1, sizeof(int));
        ENSURE(seen);
        for (int id = 0; id < tree.nnode; id++) {
            const alcrBroadNode* nd = &tree.node[id];
            if (nd->count == 0) {
                ENSURE(alcm_aabb_contains(nd->box, tree.node[nd->left].box));
                ENSURE(alcm_aabb_contains(nd->box, tree.node[nd->right].box));
                continue;
            }
            for (int sl = nd->start; sl < nd->start + nd->count; sl++) {
                seen[tree.prim[sl]]++;
                ENSURE(alcm_aabb_contains(nd->box, box[tree.prim[sl]]));
            }
        }
        for (int k = 0; k < n; k++) ENSURE(seen[k] == 1);
        free(seen);

        // queries against a linear scan
        for (int it = 0; it < 200; it++) {
            alcV3 c = alcm_v3(rndRange(-1, 11), rndRange(-1, 11), rndRange(-1, 11));
            alcAabb q = {alcm_v3_sub(c, alcm_v3(1, 1, 1)), alcm_v3_add(c, alcm_v3(1, 1, 1))};
            int nh = alcr_broad_treeQuery(&tree, q, hits, N);
            int expect = 0;
            for (int k = 0; k < n; k++) expect += alcm_aabb_overlap(box[k], q);
            ENSURE_MSG(nh == expect, "n=%d: %d hits, expected %d", n, nh, expect);
            for (int h = 0; h < nh; h++) ENSURE(alcm_aabb_overlap(box[hits[h]], q));
            ENSURE(alcr_broad_treeQuery(&tree, q, NULL, 0) == expect);
        }
    }
    ENSURE(alcr_broad_treeBuild(&tree, box, N + 1) == ALC_ERR_CAPACITY);
    alcr_broad_treeFree(&tree);
    free(box);
    free(hits);
    return ALC_TEST_PASS;
}

ALC_TEST(broad_bvh_matches_bruteforce) {
    g_rng = 12;
    int cases = 0;
    long long totalPT = 0, totalEE = 0;
    for (int it = 0; it < 16; it++) {
        Scene s;
        ENSURE(sceneInit(&s, 4000, 4000));
        int kind = it % 4;
        // soups (dense and sparse), tori (interlinked), and a mix
        if (kind == 0 || kind == 3) addSoup(&s, 400 + (int)(rnd() % 400), 3.0, 0.15);
        if (kind == 1 || kind == 3) {
            for (int t = 0; t < 4; t++) {
                double c[3] = {rndRange(0, 2), rndRange(0, 2), rndRange(0, 1)};
                addTorus(&s, c, 1.0, 0.3, 16, 10);
            }
        }
        if (kind == 2) addSoup(&s, 1000, 12.0, 0.2);
        bool moving = it % 3 != 0, usePassive = it % 2 == 0;
        sceneFinish(&s, moving ? 0.2 : 0, moving ? 0.02 : 0, it % 6 < 3 ? 0.3 : 0.9);
        if (!moving) memcpy(s.x1, s.x0, sizeof(double) * 3 * (size_t)s.nvert);
        double inflate = it % 5 == 0 ? 0.0 : rndRange(0.001, 0.05);
        int npt = 0, nee = 0;
        const char* err = compareScene(&s, inflate, usePassive, &npt, &nee);
        ENSURE_MSG(err == NULL, "case %d (kind %d, moving %d, passive %d, inflate %g): %s", it,
                   kind, moving, usePassive, inflate, err);
        ENSURE(npt > 0 && nee > 0);
        totalPT += npt;
        totalEE += nee;
        cases++;
        sceneFree(&s);
    }
    alct_note("%d scenes, %lld PT and %lld EE candidates, all identical to brute force", cases,
              totalPT, totalEE);
    return ALC_TEST_PASS;
}

// box of the n vertices w over x0 -> x1, grown by inflate plus their largest growth
static alcAabb oracleBox(const alcrBroadInput* in, const int* w, int n) {
    alcAabb b = alcm_aabb_empty();
    double g = 0;
    for (int k = 0; k < n; k++) {
        b = alcm_aabb_addPoint(b, alcm_v3_load(in->x0 + 3 * w[k]));
        b = alcm_aabb_addPoint(b, alcm_v3_load(in->x1 + 3 * w[k]));
        g = fmax(g, in->vert_inflate[w[k]]);
    }
    return alcm_aabb_grow(b, in->inflate + g);
}

// 1 when the vertices w (n) all carry the group g >= 0
static int allIn(const int* grp, int g, const int* w, int n) {
    if (g < 0) return 0;
    for (int k = 0; k < n; k++) {
        if (grp[w[k]] != g) return 0;
    }
    return 1;
}

ALC_TEST(broad_groupsAndVertexGrowth) {
    // rigid bodies' broad phase (issue 17): a pair whose vertices are all in one group is never
    // a candidate (a rigid body does not collide with itself), and a primitive's box grows by the
    // largest per-vertex growth of its vertices (a rigid vertex's deviation from its chord). The
    // BVH, the brute force and an oracle written here agree on tori (some grouped, some not)
    g_rng = 77;
    long long npt = 0, nee = 0, dropped = 0;
    for (int it = 0; it < 6; it++) {
        Scene s;
        ENSURE(sceneInit(&s, 4000, 4000));
        int start[7] = {0};
        for (int t = 0; t < 6; t++) {
            double c[3] = {rndRange(0, 1.5), rndRange(0, 1.5), rndRange(0, 0.8)};
            addTorus(&s, c, 0.6, 0.2, 12, 8);
            start[t + 1] = s.nvert;
        }
        sceneFinish(&s, 0.1, 0.01, 0.2);
        int* grp = (int*)malloc(sizeof(int) * (size_t)s.nvert);
        double* grow = (double*)malloc(sizeof(double) * (size_t)s.nvert);
        ENSURE(grp && grow);
        for (int t = 0; t < 6; t++) {
            for (int v = start[t]; v < start[t + 1]; v++) {
                grp[v] = t % 3 == 2 ? -1 : t;  // tori 2 and 5 are deformable
                grow[v] = t % 3 == 2 ? 0 : rndRange(0, 0.05);
            }
        }
        alcrBroadInput in = sceneInput(&s, 0.002, it % 2 == 0);
        in.vert_group = grp;
        in.vert_inflate = grow;
        alcrBroad* b = NULL;
        ENSURE(alcr_broad_make(s.nsvert, s.nedge, s.ntri, &b) == ALC_OK);
        ENSURE(alcr_broad_build(b, &in) == ALC_OK);
        int n1 = 0, n2 = 0, m1 = 0, m2 = 0;
        int* p1 = runQuery(b, &in, alcr_broad_queryPT, NULL, &n1);
        int* p2 = runQuery(NULL, &in, NULL, alcr_broad_bruteForcePT, &n2);
        int* e1 = runQuery(b, &in, alcr_broad_queryEE, NULL, &m1);
        int* e2 = runQuery(NULL, &in, NULL, alcr_broad_bruteForceEE, &m2);
        ENSURE(p1 && p2 && e1 && e2);
        ENSURE(n1 == n2 && memcmp(p1, p2, sizeof(int) * 2 * (size_t)n1) == 0);
        ENSURE(m1 == m2 && memcmp(e1, e2, sizeof(int) * 2 * (size_t)m1) == 0);
        // the oracle: every (point, triangle) and (edge, edge) pair, in the queries' order
        int k = 0;
        for (int i = 0; i < s.nsvert; i++) {
            int v = s.svert[i];
            for (int j = 0; j < s.ntri; j++) {
                const int* t = s.tri + 3 * j;
                if (t[0] == v || t[1] == v || t[2] == v) continue;
                int pv[4] = {v, t[0], t[1], t[2]};
                if (in.vert_passive && in.vert_passive[v] && in.vert_passive[t[0]] &&
                    in.vert_passive[t[1]] && in.vert_passive[t[2]]) {
                    continue;
                }
                if (!alcm_aabb_overlap(oracleBox(&in, &v, 1), oracleBox(&in, t, 3))) continue;
                if (allIn(grp, grp[v], pv, 4)) {
                    dropped++;
                    continue;
                }
                ENSURE_MSG(k < n1 && p1[2 * k] == i && p1[2 * k + 1] == j,
                           "PT pair (%d, %d) missing or out of order", i, j);
                k++;
            }
        }
        ENSURE(k == n1);
        k = 0;
        for (int i = 0; i < s.nedge; i++) {
            const int* e = s.edge + 2 * i;
            for (int j = i + 1; j < s.nedge; j++) {
                const int* f = s.edge + 2 * j;
                if (e[0] == f[0] || e[0] == f[1] || e[1] == f[0] || e[1] == f[1]) continue;
                int ev[4] = {e[0], e[1], f[0], f[1]};
                if (in.vert_passive && in.vert_passive[e[0]] && in.vert_passive[e[1]] &&
                    in.vert_passive[f[0]] && in.vert_passive[f[1]]) {
                    continue;
                }
                if (!alcm_aabb_overlap(oracleBox(&in, e, 2), oracleBox(&in, f, 2))) continue;
                if (allIn(grp, grp[e[0]], ev, 4)) {
                    dropped++;
                    continue;
                }
                ENSURE_MSG(k < m1 && e1[2 * k] == i && e1[2 * k + 1] == j,
                           "EE pair (%d, %d) missing or out of order", i, j);
                k++;
            }
        }
        ENSURE(k == m1);
        npt += n1;
        nee += m1;
        free(p1);
        free(p2);
        free(e1);
        free(e2);
        free(grp);
        free(grow);
        alcr_broad_free(b);
        sceneFree(&s);
    }
    alct_note(
        "%lld PT and %lld EE candidates as the oracle has them; %lld pairs within one group "
        "left out",
        npt, nee, dropped);
    ENSURE(dropped > 0);
    return ALC_TEST_PASS;
}

ALC_TEST(broad_exclusions) {
    // two triangles sharing edge (1, 2), a third apart, and a lone edge crossing everything
    double x[7][3] = {{0, 0, 0},    {1, 0, 0},    {0, 1, 0},   {1, 1, 0},
                      {0, 0, 0.01}, {1, 0, 0.01}, {0, 1, 0.01}};
    int tri[3][3] = {{0, 1, 2}, {1, 3, 2}, {4, 5, 6}};
    int edge[][2] = {{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}, {4, 5}, {4, 6}, {5, 6}};
    int svert[7] = {0, 1, 2, 3, 4, 5, 6};
    unsigned char passive[7] = {1, 1, 1, 1, 0, 0, 0};
    alcrBroadInput in;
    memset(&in, 0, sizeof in);
    in.nvert = 7;
    in.x0 = in.x1 = &x[0][0];
    in.nsvert = 7;
    in.svert = svert;
    in.nedge = 8;
    in.edge = &edge[0][0];
    in.ntri = 3;
    in.tri = &tri[0][0];
    in.inflate = 1.0;  // every box overlaps every other
    int pt[64], ee[64], npt = 0, nee = 0;

    // without passive flags: every pair but the shared-vertex ones
    ENSURE_OK(alcr_broad_bruteForcePT(&in, 32, pt, &npt));
    ENSURE_OK(alcr_broad_bruteForceEE(&in, 32, ee, &nee));
    ENSURE(npt == 7 * 3 - 3 - 3 - 3);  // each triangle excludes its own 3 vertices
    for (int k = 0; k < npt; k++) {
        const int* t = tri[pt[2 * k + 1]];
        ENSURE(pt[2 * k] != t[0] && pt[2 * k] != t[1] && pt[2 * k] != t[2]);
    }
    // edge pairs: 28 in all, minus those sharing a vertex
    int expect = 0;
    for (int i = 0; i < 8; i++) {
        for (int j = i + 1; j < 8; j++) {
            bool share = edge[i][0] == edge[j][0] || edge[i][0] == edge[j][1] ||
                         edge[i][1] == edge[j][0] || edge[i][1] == edge[j][1];
            expect += !share;
        }
    }
    ENSURE_MSG(nee == expect, "%d EE pairs, expected %d", nee, expect);

    // vertices 0..3 passive: pairs among them vanish, pairs with the free triangle remain
    in.vert_passive = passive;
    ENSURE_OK(alcr_broad_bruteForcePT(&in, 32, pt, &npt));
    ENSURE(npt == 4 * 1 + 3 * 2);  // passive points vs free triangle; free points vs 2 passive
    ENSURE_OK(alcr_broad_bruteForceEE(&in, 32, ee, &nee));
    ENSURE(nee == 5 * 3);  // passive edges only pair with the 3 free edges
    alcrBroad* b = NULL;
    ENSURE_OK(alcr_broad_make(7, 8, 3, &b));
    ENSURE_OK(alcr_broad_build(b, &in));
    int pt2[64], ee2[64], n2 = 0, m2 = 0;
    ENSURE_OK(alcr_broad_queryPT(b, &in, 32, pt2, &n2));
    ENSURE_OK(alcr_broad_queryEE(b, &in, 32, ee2, &m2));
    ENSURE(n2 == npt && m2 == nee);
    ENSURE(memcmp(pt, pt2, sizeof(int) * 2 * (size_t)npt) == 0);
    ENSURE(memcmp(ee, ee2, sizeof(int) * 2 * (size_t)nee) == 0);

    // far apart: nothing; an inflation that bridges the gap: pairs again
    in.vert_passive = NULL;
    for (int v = 4; v < 7; v++) x[v][2] = 1.0;
    // (only vertex 3 vs triangle 0 and vertex 0 vs triangle 1 remain within the lower group)
    in.inflate = 0.49;
    ENSURE_OK(alcr_broad_bruteForcePT(&in, 32, pt, &npt));
    ENSURE(npt == 2);
    in.inflate = 0.5;  // boxes exactly touch at z = 0.5: touching counts
    ENSURE_OK(alcr_broad_bruteForcePT(&in, 32, pt, &npt));
    ENSURE(npt == 12);
    ENSURE_OK(alcr_broad_build(b, &in));
    ENSURE_OK(alcr_broad_queryPT(b, &in, 32, pt2, &n2));
    ENSURE(n2 == 12);
    in.inflate = 0.45;
    ENSURE_OK(alcr_broad_build(b, &in));
    ENSURE_OK(alcr_broad_queryPT(b, &in, 32, pt2, &n2));
    ENSURE(n2 == 2 && pt2[0] == 0 && pt2[1] == 1 && pt2[2] == 3 && pt2[3] == 0);
    alcr_broad_free(b);
    return ALC_TEST_PASS;
}

ALC_TEST(broad_capacity_overflow) {
    g_rng = 13;
    Scene s;
    ENSURE(sceneInit(&s, 3000, 1000));
    addSoup(&s, 1000, 2.0, 0.2);
    sceneFinish(&s, 0.1, 0.01, 0.2);
    alcrBroadInput in = sceneInput(&s, 0.01, true);
    alcrBroad* b = NULL;
    ENSURE_OK(alcr_broad_make(s.nsvert, s.nedge, s.ntri, &b));
    ENSURE_OK(alcr_broad_build(b, &in));
    int nfull = 0, mfull = 0;
    int* full = runQuery(b, &in, alcr_broad_queryPT, NULL, &nfull);
    int* fullEE = runQuery(b, &in, alcr_broad_queryEE, NULL, &mfull);
    ENSURE(full && fullEE && nfull > 100 && mfull > 100);

    const int canary = 0x5eed;
    int* buf = (int*)malloc(sizeof(int) * (2 * (size_t)(nfull > mfull ? nfull : mfull) + 16));
    ENSURE(buf);
    int caps[] = {0, 1, 2, 7, 33, 100, nfull / 3, nfull / 2, nfull - 1};
    for (int ci = 0; ci < (int)(sizeof caps / sizeof caps[0]); ci++) {
        for (int which = 0; which < 4; which++) {
            int cap = caps[ci], count = -1;
            int total = which % 2 == 0 ? nfull : mfull;
            const int* ref = which % 2 == 0 ? full : fullEE;
            if (cap >= total) continue;
            for (int k = 0; k < 2 * cap + 16; k++) buf[k] = canary;
            alctStatus st = which == 0   ? alcr_broad_queryPT(b, &in, cap, buf, &count)
                            : which == 1 ? alcr_broad_queryEE(b, &in, cap, buf, &count)
                            : which == 2 ? alcr_broad_bruteForcePT(&in, cap, buf, &count)
                                         : alcr_broad_bruteForceEE(&in, cap, buf, &count);
            ENSURE_MSG(st == ALC_ERR_CAPACITY, "cap %d path %d: status %d", cap, which, st);
            ENSURE_MSG(count == total, "cap %d path %d: count %d, true %d", cap, which, count,
                       total);
            // the first cap pairs of the sorted list, then the canary untouched
            ENSURE(memcmp(buf, ref, sizeof(int) * 2 * (size_t)cap) == 0);
            for (int k = 2 * cap; k < 2 * cap + 16; k++) ENSURE(buf[k] == canary);
        }
    }
    // an exact fit is not an overflow
    int count = 0;
    ENSURE_OK(alcr_broad_queryPT(b, &in, nfull, buf, &count));
    ENSURE(count == nfull);
    // NULL output with cap 0 only counts
    ENSURE(alcr_broad_queryEE(b, &in, 0, NULL, &count) == ALC_ERR_CAPACITY && count == mfull);
    free(buf);
    free(full);
    free(fullEE);
    alcr_broad_free(b);
    sceneFree(&s);
    return ALC_TEST_PASS;
}

ALC_TEST(broad_deterministic) {
    g_rng = 14;
    Scene s;
    ENSURE(sceneInit(&s, 20000, 20000));
    for (int t = 0; t < 6; t++) {
        double c[3] = {rndRange(0, 3), rndRange(0, 3), rndRange(0, 1)};
        addTorus(&s, c, 1.2, 0.4, 48, 24);
    }
    sceneFinish(&s, 0.05, 0.005, 0.3);
    alcrBroadInput in = sceneInput(&s, 0.01, true);
    alcrBroad* b = NULL;
    ENSURE_OK(alcr_broad_make(s.nsvert, s.nedge, s.ntri, &b));
    int* first[2] = {NULL, NULL};
    int n0[2] = {0, 0};
    int maxThreads = 1;
#ifdef _OPENMP
    maxThreads = omp_get_max_threads();
#endif
    // repeated builds and queries, with one thread and with all of them
    for (int run = 0; run < 4; run++) {
#ifdef _OPENMP
        omp_set_num_threads(run % 2 == 0 ? 1 : (maxThreads > 1 ? maxThreads : 2));
#endif
        ENSURE_OK(alcr_broad_build(b, &in));
        for (int w = 0; w < 2; w++) {
            int n = 0;
            int* p = runQuery(b, &in, w ? alcr_broad_queryEE : alcr_broad_queryPT, NULL, &n);
            ENSURE(p);
            if (run == 0) {
                first[w] = p;
                n0[w] = n;
                continue;
            }
            ENSURE(n == n0[w] && memcmp(p, first[w], sizeof(int) * 2 * (size_t)n) == 0);
            free(p);
        }
    }
#ifdef _OPENMP
    omp_set_num_threads(maxThreads);
#endif
    alct_note("%d PT, %d EE candidates identical over 4 runs (1 and %d threads)", n0[0], n0[1],
              maxThreads > 1 ? maxThreads : 2);
    free(first[0]);
    free(first[1]);
    alcr_broad_free(b);
    sceneFree(&s);
    return ALC_TEST_PASS;
}

ALC_TEST(broad_boxes_conservative) {
    g_rng = 15;
    // grown bounds lie at least two ulps outside the rounded bound, so outside the exact one
    for (int it = 0; it < 100000; it++) {
        double v = ldexp(rndRange(-1, 1), (int)(rnd() % 200) - 100);
        double r = it % 3 == 0 ? 0 : ldexp(rndUnit(), (int)(rnd() % 200) - 100);
        double lo = alcm_padDown(v - r), hi = alcm_padUp(v + r);
        ENSURE(lo <= nextafter(nextafter(v - r, -INFINITY), -INFINITY));
        ENSURE(hi >= nextafter(nextafter(v + r, INFINITY), INFINITY));
    }
    ENSURE(alcm_padDown(0) < 0 && alcm_padUp(0) > 0);
    ENSURE(alcm_aabb_isEmpty(alcm_aabb_empty()));

    // swept boxes hold every point of the moving primitive at every time
    for (int it = 0; it < 2000; it++) {
        double x0[9], x1[9];
        for (int k = 0; k < 9; k++) {
            x0[k] = rndRange(-1, 1) * 1e3;
            x1[k] = x0[k] + rndRange(-1, 1);
        }
        int t[3] = {0, 1, 2};
        alcAabb bt = alcm_aabb_sweptTri(x0, x1, t, 0);
        alcAabb be = alcm_aabb_sweptEdge(x0, x1, t, 0);
        for (int k = 0; k < 20; k++) {
            double tau = rndUnit(), u = rndUnit(), w = rndUnit() * (1 - u);
            double bary[3] = {1 - u - w, u, w};
            alcV3 pt = alcm_v3(0, 0, 0), pe = alcm_v3(0, 0, 0);
            for (int a = 0; a < 3; a++) {
                alcV3 p = alcm_v3_add(alcm_v3_scale(alcm_v3_load(x0 + 3 * a), 1 - tau),
                                      alcm_v3_scale(alcm_v3_load(x1 + 3 * a), tau));
                pt = alcm_v3_mad(pt, bary[a], p);
                if (a < 2) pe = alcm_v3_mad(pe, a == 0 ? 1 - u : u, p);
            }
            // the sampled point carries rounding error of its own: allow 1e-12 relative
            alcAabb grown = alcm_aabb_grow(bt, 1e-9);
            ENSURE(alcm_aabb_contains(grown, alcm_aabb_point(pt)));
            ENSURE(alcm_aabb_contains(alcm_aabb_grow(be, 1e-9), alcm_aabb_point(pe)));
        }
    }
    return ALC_TEST_PASS;
}

ALC_TEST(broad_invalid_args) {
    double x[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    int tri[3] = {0, 1, 2}, edge[2] = {0, 1}, sv[3] = {0, 1, 2};
    alcrBroadInput in;
    memset(&in, 0, sizeof in);
    in.nvert = 3;
    in.x0 = in.x1 = x;
    in.nsvert = 3;
    in.svert = sv;
    in.nedge = 1;
    in.edge = edge;
    in.ntri = 1;
    in.tri = tri;
    int pairs[8], count = 0;
    alcrBroad* b = NULL;
    ENSURE_OK(alcr_broad_make(3, 1, 1, &b));
    ENSURE_OK(alcr_broad_build(b, &in));
    ENSURE_OK(alcr_broad_queryPT(b, &in, 4, pairs, &count));
    ENSURE(count == 0);
    tri[2] = 3;  // out of range
    ENSURE(alcr_broad_build(b, &in) == ALC_ERR_INVALID_ARG);
    ENSURE(alcr_broad_bruteForcePT(&in, 4, pairs, &count) == ALC_ERR_INVALID_ARG);
    tri[2] = 2;
    x[4] = NAN;
    ENSURE(alcr_broad_build(b, &in) == ALC_ERR_INVALID_ARG);
    x[4] = 0;
    in.inflate = -1;
    ENSURE(alcr_broad_build(b, &in) == ALC_ERR_INVALID_ARG);
    in.inflate = 0;
    ENSURE(alcr_broad_queryPT(b, &in, -1, pairs, &count) == ALC_ERR_INVALID_ARG);
    ENSURE(alcr_broad_queryPT(b, &in, 4, NULL, &count) == ALC_ERR_INVALID_ARG);
    alcr_broad_free(b);
    ENSURE_OK(alcr_broad_make(2, 1, 1, &b));
    ENSURE(alcr_broad_build(b, &in) == ALC_ERR_CAPACITY);
    alcr_broad_free(b);
    alcr_broad_free(NULL);
    ENSURE(alcr_broad_make(-1, 0, 0, &b) == ALC_ERR_INVALID_ARG);
    return ALC_TEST_PASS;
}

ALC_TEST(broad_perf_100k) {
    // 100 interlinked tori of 1024 triangles each (102400 triangles), moving
    g_rng = 16;
    Scene s;
    ENSURE(sceneInit(&s, 60000, 110000));
    for (int i = 0; i < 100; i++) {
        double c[3] = {(i % 5) * 1.6 + rndRange(0, 0.2), (i / 5 % 5) * 1.6 + rndRange(0, 0.2),
                       (i / 25) * 0.5};
        addTorus(&s, c, 1.0, 0.3, 32, 16);
    }
    sceneFinish(&s, 0.02, 0.002, 0.1);
    alcrBroadInput in = sceneInput(&s, 0.005, true);
    alcrBroad* b = NULL;
    ENSURE_OK(alcr_broad_make(s.nsvert, s.nedge, s.ntri, &b));
    int cap = 4 << 20;
    int* pairs = (int*)malloc(sizeof(int) * 2 * (size_t)cap);
    ENSURE(pairs);
    double best[3] = {1e30, 1e30, 1e30};
    int npt = 0, nee = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        ENSURE_OK(alcr_broad_build(b, &in));
        double t1 = now();
        ENSURE_OK(alcr_broad_queryPT(b, &in, cap, pairs, &npt));
        double t2 = now();
        ENSURE_OK(alcr_broad_queryEE(b, &in, cap, pairs, &nee));
        double t3 = now();
        best[0] = fmin(best[0], t1 - t0);
        best[1] = fmin(best[1], t2 - t1);
        best[2] = fmin(best[2], t3 - t2);
    }
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    alct_note(
        "%d triangles, %d edges, %d points, %d threads: build %.1f ms, PT query %.1f ms "
        "(%d pairs), EE query %.1f ms (%d pairs)",
        s.ntri, s.nedge, s.nsvert, threads, 1e3 * best[0], 1e3 * best[1], npt, 1e3 * best[2], nee);
    free(pairs);
    alcr_broad_free(b);
    sceneFree(&s);
    return ALC_TEST_PASS;
}
