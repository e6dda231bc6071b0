// Independent checker: clean states, edges piercing or touching triangles (across bodies and
// within one), coplanar overlaps, inverted and flat tetrahedra, NaN/Inf, first-offender order,
// and the BVH-culled checker against an all-pairs scan on random touching-heavy soups.
#include "check.h"
#include "test_files.h"
#include "test_macros.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

// ---- meshes ------------------------------------------------------------------------------------

enum { MAXV = 4096, MAXT = 8192 };

typedef struct {
    int nvert, ntet, ntri, nedge;
    double x[3 * MAXV];
    int tet[4 * MAXT];
    int tetBody[MAXT];
    int tri[3 * MAXT];
    int triBody[MAXT];
    int edge[2 * 3 * MAXT];
    int edgeBody[3 * MAXT];
} Mesh;

static int addVert(Mesh* m, double x, double y, double z) {
    m->x[3 * m->nvert] = x;
    m->x[3 * m->nvert + 1] = y;
    m->x[3 * m->nvert + 2] = z;
    return m->nvert++;
}

static void addTri(Mesh* m, int a, int b, int c, int body) {
    m->tri[3 * m->ntri] = a;
    m->tri[3 * m->ntri + 1] = b;
    m->tri[3 * m->ntri + 2] = c;
    m->triBody[m->ntri++] = body;
}

static void addEdge(Mesh* m, int a, int b, int body) {
    m->edge[2 * m->nedge] = a;
    m->edge[2 * m->nedge + 1] = b;
    m->edgeBody[m->nedge++] = body;
}

static double det3(const double* a, const double* b, const double* c, const double* d) {
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++) {
        u[k] = b[k] - a[k];
        v[k] = c[k] - a[k];
        w[k] = d[k] - a[k];
    }
    return u[0] * (v[1] * w[2] - v[2] * w[1]) - u[1] * (v[0] * w[2] - v[2] * w[0]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

static int cmpInt3(const void* a, const void* b) {
    const int* p = (const int*)a;
    const int* q = (const int*)b;
    for (int k = 0; k < 3; k++) {
        if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
    }
    return 0;
}

static void sort3(int* v) {
    for (int i = 0; i < 3; i++) {
        for (int j = i + 1; j < 3; j++) {
            if (v[j] < v[i]) {
                int t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
        }
    }
}

// surface of the tetrahedra of one body (faces used once) and its unique edges
static void addBoundary(Mesh* m, int tet0, int tet1, int body) {
    int nf = 4 * (tet1 - tet0);
    int* f = (int*)malloc(sizeof(int) * 4 * (size_t)nf);
    int* e = (int*)malloc(sizeof(int) * 4 * 3 * (size_t)nf);
    for (int t = tet0, k = 0; t < tet1; t++) {
        for (int o = 0; o < 4; o++, k++) {
            for (int i = 0, j = 0; i < 4; i++) {
                if (i != o) f[4 * k + j++] = m->tet[4 * t + i];
            }
            sort3(f + 4 * k);
            f[4 * k + 3] = 0;
        }
    }
    qsort(f, (size_t)nf, 4 * sizeof(int), cmpInt3);
    int ne = 0;
    for (int k = 0; k < nf; k++) {
        bool dupPrev = k > 0 && cmpInt3(f + 4 * k, f + 4 * k - 4) == 0;
        bool dupNext = k + 1 < nf && cmpInt3(f + 4 * k, f + 4 * k + 4) == 0;
        if (dupPrev || dupNext) continue;
        const int* v = f + 4 * k;
        addTri(m, v[0], v[1], v[2], body);
        int pairs[3][2] = {{v[0], v[1]}, {v[0], v[2]}, {v[1], v[2]}};
        for (int p = 0; p < 3; p++, ne++) {
            e[3 * ne] = pairs[p][0];
            e[3 * ne + 1] = pairs[p][1];
            e[3 * ne + 2] = 0;
        }
    }
    qsort(e, (size_t)ne, 3 * sizeof(int), cmpInt3);
    for (int k = 0; k < ne; k++) {
        if (k > 0 && cmpInt3(e + 3 * k, e + 3 * k - 3) == 0) continue;
        addEdge(m, e[3 * k], e[3 * k + 1], body);
    }
    free(f);
    free(e);
}

// positively oriented tetrahedron
static void addTet(Mesh* m, int a, int b, int c, int d, int body) {
    if (det3(m->x + 3 * a, m->x + 3 * b, m->x + 3 * c, m->x + 3 * d) < 0) {
        int t = c;
        c = d;
        d = t;
    }
    int* v = m->tet + 4 * m->ntet;
    v[0] = a, v[1] = b, v[2] = c, v[3] = d;
    m->tetBody[m->ntet++] = body;
}

// unit-ish tetrahedron at offset o, with its surface
static void addSingleTet(Mesh* m, double ox, double oy, double oz, int body) {
    int t0 = m->ntet;
    int a = addVert(m, ox, oy, oz), b = addVert(m, ox + 1, oy, oz);
    int c = addVert(m, ox, oy + 1, oz), d = addVert(m, ox, oy, oz + 1);
    addTet(m, a, b, c, d, body);
    addBoundary(m, t0, m->ntet, body);
}

// box of n^3 cells of size h at the origin, 6 tetrahedra per cell (Kuhn), with its surface
static void addBoxMesh(Mesh* m, int n, double h, int body) {
    int base = m->nvert, t0 = m->ntet;
    for (int k = 0; k <= n; k++) {
        for (int j = 0; j <= n; j++) {
            for (int i = 0; i <= n; i++) addVert(m, i * h, j * h, k * h);
        }
    }
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int k = 0; k < n; k++) {
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < n; i++) {
                for (int p = 0; p < 6; p++) {
                    int c[3] = {i, j, k}, v[4];
                    for (int s = 0; s < 4; s++) {
                        if (s > 0) c[perm[p][s - 1]]++;
                        v[s] = base + (c[2] * (n + 1) + c[1]) * (n + 1) + c[0];
                    }
                    addTet(m, v[0], v[1], v[2], v[3], body);
                }
            }
        }
    }
    addBoundary(m, t0, m->ntet, body);
}

static alciCheckInput inputOf(const Mesh* m) {
    alciCheckInput in;
    memset(&in, 0, sizeof in);
    in.nvert = m->nvert;
    in.x = m->x;
    in.ntet = m->ntet;
    in.tet = m->tet;
    in.ntri = m->ntri;
    in.tri = m->tri;
    in.nedge = m->nedge;
    in.edge = m->edge;
    in.tet_body = m->tetBody;
    in.tri_body = m->triBody;
    in.edge_body = m->edgeBody;
    return in;
}

static Mesh* newMesh(void) {
    return (Mesh*)calloc(1, sizeof(Mesh));
}

// ---- tests -------------------------------------------------------------------------------------

ALC_TEST(check_clean_two_tets) {
    Mesh* m = newMesh();
    ENSURE(m);
    addSingleTet(m, 0, 0, 0, 0);
    addSingleTet(m, 2, 0, 0, 1);
    alciCheckInput in = inputOf(m);
    alciCheckReport rep;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.clean, "%s", rep.message);
    ENSURE(rep.ninverted == 0 && rep.nintersect == 0 && rep.nnonfinite == 0);
    ENSURE(rep.tet == -1 && rep.edge == -1 && rep.tri == -1 && rep.vert == -1);
    ENSURE_MSG(strcmp(rep.message,
                      "ok: 8 vertices, 2 tetrahedra, 8 triangles, 12 edges: no "
                      "NaN/Inf, no inverted tetrahedron, no intersection") == 0,
               "%s", rep.message);

    // moved so that the second tet's corner sits on the first tet's vertex (1, 0, 0): the
    // interiors stay apart, but touching is a violation
    for (int v = 4; v < 8; v++) m->x[3 * v] -= 1.0;  // second tet now starts at x = 1
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(!rep.clean && rep.nintersect > 0, "%s", rep.message);
    free(m);
    return ALC_TEST_PASS;
}

// Inversions of materials that may invert are counted apart, not failures (issue 16, item 2);
// the same inversion of a protected tetrahedron, or with no protection given, is a failure.
ALC_TEST(check_invertible_materials) {
    Mesh* m = newMesh();
    ENSURE(m);
    addSingleTet(m, 0, 0, 0, 0);
    addSingleTet(m, 2, 0, 0, 1);
    // invert the second tetrahedron: its mirror image in the plane z = 0
    for (int v = 4; v < 8; v++) m->x[3 * v + 2] = -m->x[3 * v + 2];
    alciCheckInput in = inputOf(m);
    alciCheckReport rep;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(!rep.clean && rep.ninverted == 1 && rep.ninvertedAllowed == 0, "%s", rep.message);
    int mayInvert[2] = {1, 0};
    in.tet_protected = mayInvert;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.ninverted == 0 && rep.ninvertedAllowed == 1, "%s", rep.message);
    ENSURE_MSG(
        rep.clean && strstr(rep.message, "1 inverted tetrahedra of materials that may invert"),
        "%s", rep.message);
    int protect[2] = {1, 1};
    in.tet_protected = protect;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(!rep.clean && rep.ninverted == 1 && rep.tet == 1, "%s", rep.message);
    free(m);
    return ALC_TEST_PASS;
}

// `alcove check` on a run whose stable Neo-Hookean box inverts at 100 m/s: clean with a note by
// default, a failure with --strict (issue 16's report: 13 inverted tetrahedra in step 1).
ALC_TEST(check_cli_strict) {
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/box_drop.yaml", alct_rootDir());
    FILE* f = fopen(path, "r");
    ENSURE(f);
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char* c = strstr(text, "cells: 4 ");
    char* r = strstr(text, "    rotation:");
    ENSURE(c && r);
    c[7] = '2';
    char scene[20000];
    size_t head = (size_t)(r - text);
    snprintf(scene, sizeof scene, "%.*s    velocity: [0, -100, 0]\n%s", (int)head, text, r);
    const char* dir = alct_tmpDir("check_strict", NULL);
    const char* sp = alct_writeFile(dir, "fast_snh.yaml", scene);
    ENSURE(sp);
    char spath[1100], cmd[4096];
    snprintf(spath, sizeof spath, "%s", sp);
    const char* build = getenv("ALC_BUILD");
    const char* exe = build ? build : "build";
    snprintf(cmd, sizeof cmd, "%s/alcove run %s --steps 2 --out %s/out --quiet 2>/dev/null", exe,
             spath, dir);
    ENSURE(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "%s/alcove check %s/out > %s/check.txt", exe, dir, dir);
    int rc = system(cmd);
    ENSURE_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "check: status %d", rc);
    snprintf(cmd, sizeof cmd, "grep -q 'may invert' %s/check.txt", dir);
    ENSURE(system(cmd) == 0);
    snprintf(cmd, sizeof cmd, "%s/alcove check --strict %s/out > /dev/null", exe, dir);
    rc = system(cmd);
    ENSURE_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "check --strict: status %d", rc);
    // the failure ends in a summary line with the counts and the mesh's sizes, as a clean check
    // does (tools/ipc-examples.sh reads the tetrahedra from it)
    snprintf(cmd, sizeof cmd,
             "%s/alcove check --strict %s/out | tail -1 | "
             "grep -qE '^not clean: [1-9][0-9]* of [1-9][0-9]* states checked \\(48 tetrahedra, '",
             exe, dir);
    ENSURE(system(cmd) == 0);
    return ALC_TEST_PASS;
}

ALC_TEST(check_clean_box_mesh) {
    Mesh* m = newMesh();
    ENSURE(m);
    addBoxMesh(m, 5, 0.2, 0);
    addSingleTet(m, 1.0 + 1e-9, 0, 0, 1);  // a neighbour 1e-9 away: close, not touching
    alciCheckInput in = inputOf(m);
    alciCheckReport rep;
    ENSURE_OK(alci_check_state(&in, &rep));
    alct_note("%s", rep.message);
    ENSURE(m->ntet == 6 * 125 + 1 && m->ntri == 6 * 2 * 25 + 4);
    ENSURE_MSG(rep.clean, "%s", rep.message);
    free(m);
    return ALC_TEST_PASS;
}

ALC_TEST(check_edge_pierces_other_body) {
    Mesh* m = newMesh();
    ENSURE(m);
    // body 0: triangle in z = 0; body 1: triangle whose edge (3, 4) pierces it at (0.2, 0.2)
    addVert(m, 0, 0, 0), addVert(m, 1, 0, 0), addVert(m, 0, 1, 0);
    addVert(m, 0.2, 0.2, -1), addVert(m, 0.2, 0.2, 1), addVert(m, 3, 3, 0.5);
    addTri(m, 0, 1, 2, 0);
    addTri(m, 3, 4, 5, 1);
    addEdge(m, 0, 1, 0), addEdge(m, 0, 2, 0), addEdge(m, 1, 2, 0);
    addEdge(m, 3, 4, 1), addEdge(m, 3, 5, 1), addEdge(m, 4, 5, 1);
    alciCheckInput in = inputOf(m);
    alciCheckReport rep;
    ENSURE_OK(alci_check_state(&in, &rep));
    // the triangles cross along x = y from (0.2, 0.2) to (0.5, 0.5): edge 3 pierces triangle 0,
    // and edge 2 of triangle 0 leaves through triangle 1; the first by (edge, triangle) is 2
    ENSURE_MSG(rep.nintersect == 2, "%s", rep.message);
    ENSURE(rep.edge == 2 && rep.tri == 1 && rep.edgeBody == 0 && rep.triBody == 1);
    ENSURE(rep.edgeVert[0] == 1 && rep.edgeVert[1] == 2);
    ENSURE(rep.triVert[0] == 3 && rep.triVert[1] == 4 && rep.triVert[2] == 5);
    ENSURE_MSG(strcmp(rep.message,
                      "edge 2 (vertices 1 2, body 0) intersects triangle 1 "
                      "(vertices 3 4 5, body 1; 2 pairs in all)") == 0,
               "%s", rep.message);

    // lift body 1 so the edge stops 1e-12 short of the plane: the piercing is gone
    for (int v = 3; v < 6; v++) m->x[3 * v + 2] += 1 + 1e-12;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.clean, "%s", rep.message);
    free(m);
    return ALC_TEST_PASS;
}

ALC_TEST(check_self_intersection) {
    // one body: a box mesh whose top-centre surface vertex is pushed through the bottom
    Mesh* m = newMesh();
    ENSURE(m);
    addBoxMesh(m, 2, 0.5, 7);
    int top = (2 * 3 + 1) * 3 + 1;  // grid vertex (1, 1, 2)
    ENSURE(m->x[3 * top] == 0.5 && m->x[3 * top + 1] == 0.5 && m->x[3 * top + 2] == 1.0);
    m->x[3 * top + 2] = -0.5;
    alciCheckInput in = inputOf(m);
    alciCheckReport rep;
    ENSURE_OK(alci_check_state(&in, &rep));
    alct_note("%s", rep.message);
    ENSURE(rep.nintersect > 0 && rep.ninverted > 0);
    ENSURE(rep.edgeBody == 7 && rep.triBody == 7 && rep.tetBody == 7);
    // every crossing involves a primitive next to the moved vertex
    bool moved = rep.edgeVert[0] == top || rep.edgeVert[1] == top;
    for (int k = 0; k < 3; k++) moved = moved || rep.triVert[k] == top;
    ENSURE(moved);
    ENSURE(strstr(rep.message, "inverted tetrahedron") && strstr(rep.message, "intersects"));
    free(m);
    return ALC_TEST_PASS;
}

ALC_TEST(check_coplanar) {
    Mesh* m = newMesh();
    ENSURE(m);
    addVert(m, 0, 0, 0), addVert(m, 2, 0, 0), addVert(m, 0, 2, 0);
    addVert(m, 0.5, 0.5, 0), addVert(m, 3, 0.5, 0), addVert(m, 0.5, 3, 0);
    addTri(m, 0, 1, 2, 0);
    addTri(m, 3, 4, 5, 1);
    addEdge(m, 0, 1, 0), addEdge(m, 0, 2, 0), addEdge(m, 1, 2, 0);
    addEdge(m, 3, 4, 1), addEdge(m, 3, 5, 1), addEdge(m, 4, 5, 1);
    alciCheckInput in = inputOf(m);
    alciCheckReport rep;

    // overlapping in one plane: the hypotenuse of triangle 0 crosses triangle 1, and the two
    // legs of triangle 1 at its corner (0.5, 0.5) cross triangle 0
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.nintersect == 3 && rep.edge == 2 && rep.tri == 1, "%s", rep.message);

    // nested: the small triangle's edges lie inside the big one
    double nested[9] = {0.2, 0.2, 0, 0.5, 0.2, 0, 0.2, 0.5, 0};
    memcpy(m->x + 9, nested, sizeof nested);
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.nintersect == 3 && rep.tri == 0 && rep.edge == 3, "%s", rep.message);

    // coplanar and disjoint; then sharing only a point of the hypotenuse
    double apart[9] = {1.5, 1.5, 0, 2.5, 1.5, 0, 1.5, 2.5, 0};
    memcpy(m->x + 9, apart, sizeof apart);
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.clean, "%s", rep.message);
    double touch[9] = {1, 1, 0, 2, 1, 0, 1, 2, 0};
    memcpy(m->x + 9, touch, sizeof touch);
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.nintersect == 3, "%s", rep.message);  // (1,1) on edge 2; edges 3, 4 end there
    free(m);
    return ALC_TEST_PASS;
}

ALC_TEST(check_exact_touch) {
    Mesh* m = newMesh();
    ENSURE(m);
    addVert(m, 0, 0, 0), addVert(m, 1, 0, 0), addVert(m, 0, 1, 0);
    addVert(m, 0.25, 0.25, 0), addVert(m, 0.25, 0.25, 1), addVert(m, 1, 1, 1);
    addTri(m, 0, 1, 2, 0);
    addTri(m, 3, 4, 5, 1);
    addEdge(m, 0, 1, 0), addEdge(m, 0, 2, 0), addEdge(m, 1, 2, 0);
    addEdge(m, 3, 4, 1), addEdge(m, 3, 5, 1), addEdge(m, 4, 5, 1);
    alciCheckInput in = inputOf(m);
    alciCheckReport rep;

    // vertex 3 exactly on the interior of triangle 0: distance zero is a violation
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.nintersect == 2 && rep.edge == 3 && rep.tri == 0, "%s", rep.message);

    // the smallest positive double above the plane: clean
    m->x[3 * 3 + 2] = 0x1p-1074;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.clean, "%s", rep.message);

    // exactly on the hypotenuse (x + y = 1), then one ulp outside it
    m->x[3 * 3 + 2] = 0;
    m->x[3 * 3] = 0.5;
    m->x[3 * 3 + 1] = 0.5;
    // edges 3 and 4 touch triangle 0, and edge 2 (the hypotenuse) touches triangle 1
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.nintersect == 3 && rep.edge == 2 && rep.tri == 1, "%s", rep.message);
    m->x[3 * 3] = nextafter(0.5, 1);
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.clean, "%s", rep.message);

    // on a vertex position of triangle 0 (a different vertex index)
    m->x[3 * 3] = 1;
    m->x[3 * 3 + 1] = 0;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.nintersect == 2 + 2, "%s", rep.message);  // plus edges 0 and 2 of triangle 0
    free(m);
    return ALC_TEST_PASS;
}

ALC_TEST(check_inverted_tets) {
    Mesh* m = newMesh();
    ENSURE(m);
    addSingleTet(m, 0, 0, 0, 0);
    addSingleTet(m, 3, 0, 0, 1);
    addSingleTet(m, 6, 0, 0, 2);
    alciCheckInput in = inputOf(m);
    alciCheckReport rep;

    // swap two vertices of tet 1 and 2: inverted, the first reported is 1
    for (int t = 1; t < 3; t++) {
        int tmp = m->tet[4 * t + 1];
        m->tet[4 * t + 1] = m->tet[4 * t + 2];
        m->tet[4 * t + 2] = tmp;
    }
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE(rep.ninverted == 2 && rep.tet == 1 && rep.tetBody == 1 && rep.nintersect == 0);
    const int* v = m->tet + 4;
    ENSURE(rep.tetVert[0] == v[0] && rep.tetVert[1] == v[1] && rep.tetVert[2] == v[2]);
    char expect[256];
    snprintf(expect, sizeof expect,
             "inverted tetrahedron 1 (vertices %d %d %d %d, body 1; 2 in all)", v[0], v[1], v[2],
             v[3]);
    ENSURE_MSG(strcmp(rep.message, expect) == 0, "%s", rep.message);

    // restore; flatten tet 0 exactly (zero volume counts), then lift it by 2^-60 (positive)
    for (int t = 1; t < 3; t++) {
        int tmp = m->tet[4 * t + 1];
        m->tet[4 * t + 1] = m->tet[4 * t + 2];
        m->tet[4 * t + 2] = tmp;
    }
    m->x[3 * 3 + 2] = 0;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE(rep.ninverted == 1 && rep.tet == 0);
    m->x[3 * 3 + 2] = 0x1p-60;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.clean, "%s", rep.message);

    // a row of 8 tets with 1, 3 and 6 inverted: the first is the lowest index
    memset(m, 0, sizeof *m);
    for (int t = 0; t < 8; t++) addSingleTet(m, 2.0 * t, 0, 0, t);
    static const int inv[3] = {6, 1, 3};
    for (int k = 0; k < 3; k++) {
        int t = inv[k];
        int tmp = m->tet[4 * t];
        m->tet[4 * t] = m->tet[4 * t + 3];
        m->tet[4 * t + 3] = tmp;
    }
    in = inputOf(m);
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE_MSG(rep.ninverted == 3 && rep.tet == 1 && rep.tetBody == 1, "%s", rep.message);
    free(m);
    return ALC_TEST_PASS;
}

ALC_TEST(check_nonfinite) {
    Mesh* m = newMesh();
    ENSURE(m);
    addSingleTet(m, 0, 0, 0, 0);
    addSingleTet(m, 3, 0, 0, 1);
    alciCheckInput in = inputOf(m);
    alciCheckReport rep;
    m->x[3 * 6 + 1] = NAN;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE(rep.nnonfinite == 1 && rep.vert == 6 && !rep.clean);
    ENSURE(rep.ninverted == 0 && rep.nintersect == 0);  // its elements are left out
    ENSURE_MSG(strcmp(rep.message, "NaN/Inf coordinate at vertex 6 (1 vertices)") == 0, "%s",
               rep.message);
    m->x[3 * 2] = -INFINITY;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE(rep.nnonfinite == 2 && rep.vert == 2);

    // together with an inversion: both reported, "; "-separated
    m->x[3 * 2] = 0;
    int tmp = m->tet[1];
    m->tet[1] = m->tet[2];
    m->tet[2] = tmp;
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE(rep.nnonfinite == 1 && rep.ninverted == 1);
    ENSURE_MSG(strstr(rep.message,
                      "NaN/Inf coordinate at vertex 6 (1 vertices); inverted "
                      "tetrahedron 0") == rep.message,
               "%s", rep.message);
    free(m);
    return ALC_TEST_PASS;
}

ALC_TEST(check_invalid_args) {
    Mesh* m = newMesh();
    ENSURE(m);
    addSingleTet(m, 0, 0, 0, 0);
    alciCheckInput in = inputOf(m);
    alciCheckReport rep;
    ENSURE(alci_check_state(NULL, &rep) == ALC_ERR_INVALID_ARG);
    ENSURE(alci_check_state(&in, NULL) == ALC_ERR_INVALID_ARG);
    m->tri[2] = 4;
    ENSURE(alci_check_state(&in, &rep) == ALC_ERR_INVALID_ARG);
    m->tri[2] = 2;
    in.tet = NULL;
    ENSURE(alci_check_state(&in, &rep) == ALC_ERR_INVALID_ARG);
    in.tet = m->tet;
    in.tet_body = in.tri_body = in.edge_body = NULL;  // bodies are optional
    ENSURE_OK(alci_check_state(&in, &rep));
    ENSURE(rep.clean);
    free(m);
    return ALC_TEST_PASS;
}

ALC_TEST(check_segment_triangle_cases) {
    double a[3] = {0, 0, 0}, b[3] = {4, 0, 0}, c[3] = {0, 4, 0};
    struct {
        double p[3], q[3];
        int hit;
    } cases[] = {
        {{1, 1, -1}, {1, 1, 1}, 1},     // crossing the interior
        {{5, 5, -1}, {5, 5, 1}, 0},     // crossing the plane outside
        {{1, 1, 0.5}, {1, 1, 1}, 0},    // above, not reaching
        {{1, 1, 0}, {1, 1, 1}, 1},      // endpoint on the interior
        {{2, 2, -1}, {2, 2, 1}, 1},     // through the hypotenuse
        {{0, 0, -1}, {0, 0, 1}, 1},     // through a vertex
        {{-1, 1, 0}, {5, 1, 0}, 1},     // coplanar, crossing
        {{-1, 5, 0}, {-1, -5, 0}, 0},   // coplanar, outside
        {{-1, 0, 0}, {-2, 0, 0}, 0},    // coplanar, collinear with an edge, apart
        {{-1, 0, 0}, {0, 0, 0}, 1},     // coplanar, collinear, touching a vertex
        {{1, 1, 0}, {1, 1, 0}, 1},      // a point segment inside
        {{1, 1, 1}, {1, 1, 1}, 0},      // a point segment above
        {{5, 0, 0}, {6, 0, 0}, 0},      // collinear beyond b
        {{1, 0.5, 0}, {2, 0.5, 0}, 1},  // coplanar, strictly inside
    };
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); k++) {
        int h = alci_check_segmentTriangle(cases[k].p, cases[k].q, a, b, c);
        ENSURE_MSG(h == cases[k].hit, "case %d: %d", k, h);
        ENSURE(alci_check_segmentTriangle(cases[k].q, cases[k].p, c, a, b) == cases[k].hit);
    }

    // degenerate triangles: a segment-like triangle and a point-like triangle
    double d0[3] = {0, 0, 0}, d1[3] = {2, 2, 2}, d2[3] = {1, 1, 1};
    double s0[3] = {1, 1, 0}, s1[3] = {1, 1, 2}, s2[3] = {1, 2, 0}, s3[3] = {1, 2, 2};
    ENSURE(alci_check_segmentTriangle(s0, s1, d0, d1, d2) == 1);
    ENSURE(alci_check_segmentTriangle(s2, s3, d0, d1, d2) == 0);
    ENSURE(alci_check_segmentTriangle(s0, s1, d2, d2, d2) == 1);
    ENSURE(alci_check_segmentTriangle(s2, s3, d2, d2, d2) == 0);
    return ALC_TEST_PASS;
}

// long-double intersection of segment pq with triangle abc in general position; returns -1 when
// the configuration is too close to a boundary case to decide this way
static int approxSegTri(const double* p, const double* q, const double* a, const double* b,
                        const double* c) {
    long double e1[3], e2[3], d[3], s[3], h[3], qv[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = (long double)b[k] - a[k];
        e2[k] = (long double)c[k] - a[k];
        d[k] = (long double)q[k] - p[k];
        s[k] = (long double)p[k] - a[k];
    }
    h[0] = d[1] * e2[2] - d[2] * e2[1], h[1] = d[2] * e2[0] - d[0] * e2[2];
    h[2] = d[0] * e2[1] - d[1] * e2[0];
    long double det = e1[0] * h[0] + e1[1] * h[1] + e1[2] * h[2];
    if (fabsl(det) < 1e-6L) return -1;
    long double u = (s[0] * h[0] + s[1] * h[1] + s[2] * h[2]) / det;
    qv[0] = s[1] * e1[2] - s[2] * e1[1], qv[1] = s[2] * e1[0] - s[0] * e1[2];
    qv[2] = s[0] * e1[1] - s[1] * e1[0];
    long double v = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) / det;
    long double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
    const long double m = 1e-9L;
    long double dist[4] = {u, v, 1 - u - v, fminl(t, 1 - t)};
    for (int k = 0; k < 4; k++) {
        if (fabsl(dist[k]) < m) return -1;
    }
    return u > 0 && v > 0 && u + v < 1 && t > 0 && t < 1;
}

ALC_TEST(check_segment_triangle_random) {
    g_rng = 21;
    int decided = 0, hits = 0, wrong = 0;
    for (int it = 0; it < 200000; it++) {
        double x[5][3];
        for (int i = 0; i < 5; i++) {
            for (int k = 0; k < 3; k++) x[i][k] = 2 * rndUnit() - 1;
        }
        int ref = approxSegTri(x[0], x[1], x[2], x[3], x[4]);
        if (ref < 0) continue;
        decided++;
        hits += ref;
        if (alci_check_segmentTriangle(x[0], x[1], x[2], x[3], x[4]) != ref) wrong++;
    }
    alct_note("%d general-position cases, %d intersecting", decided, hits);
    ENSURE_MSG(wrong == 0, "%d disagreements", wrong);
    ENSURE(hits > 1000);
    return ALC_TEST_PASS;
}

// closed boxes of the segment and the triangle overlap (exact comparisons, no rounding)
static bool boxesMeet(const double* x, const int* ev, const int* tv) {
    for (int k = 0; k < 3; k++) {
        double elo = fmin(x[3 * ev[0] + k], x[3 * ev[1] + k]);
        double ehi = fmax(x[3 * ev[0] + k], x[3 * ev[1] + k]);
        double tlo = fmin(fmin(x[3 * tv[0] + k], x[3 * tv[1] + k]), x[3 * tv[2] + k]);
        double thi = fmax(fmax(x[3 * tv[0] + k], x[3 * tv[1] + k]), x[3 * tv[2] + k]);
        if (ehi < tlo || thi < elo) return false;
    }
    return true;
}

ALC_TEST(check_bvh_vs_all_pairs) {
    // small triangles on an integer grid (flat in z for every third soup): many exact touches,
    // shared positions and coplanar contacts
    g_rng = 22;
    Mesh* m = newMesh();
    ENSURE(m);
    int totalHits = 0;
    for (int it = 0; it < 12; it++) {
        memset(m, 0, sizeof *m);
        int n = 200 + 100 * it, grid = 6 + it;
        bool flat = it % 3 == 0;
        for (int t = 0; t < n; t++) {
            int v0 = m->nvert;
            double base[3] = {(double)(rnd() % (uint64_t)grid), (double)(rnd() % (uint64_t)grid),
                              flat ? 0.0 : (double)(rnd() % (uint64_t)grid)};
            for (int i = 0; i < 3; i++) {
                addVert(m, base[0] + (double)(rnd() % 3), base[1] + (double)(rnd() % 3),
                        base[2] + (flat ? 0.0 : (double)(rnd() % 3)));
            }
            addTri(m, v0, v0 + 1, v0 + 2, t % 5);
            addEdge(m, v0, v0 + 1, t % 5), addEdge(m, v0 + 1, v0 + 2, t % 5);
            addEdge(m, v0, v0 + 2, t % 5);
        }
        // scale by a non-power of two so that coordinates and boxes carry rounding
        for (int k = 0; k < 3 * m->nvert; k++) m->x[k] *= 0.1;
        alciCheckInput in = inputOf(m);
        alciCheckReport rep;
        ENSURE_OK(alci_check_state(&in, &rep));

        // all pairs in (edge, triangle) order, culled only by exact box comparisons
        int count = 0, fe = -1, ft = -1;
        for (int e = 0; e < m->nedge; e++) {
            const int* ev = m->edge + 2 * e;
            for (int t = 0; t < m->ntri; t++) {
                const int* tv = m->tri + 3 * t;
                bool share = false;
                for (int k = 0; k < 3; k++) share = share || ev[0] == tv[k] || ev[1] == tv[k];
                if (share || !boxesMeet(m->x, ev, tv)) continue;
                const double* x = m->x;
                if (!alci_check_segmentTriangle(x + 3 * ev[0], x + 3 * ev[1], x + 3 * tv[0],
                                                x + 3 * tv[1], x + 3 * tv[2])) {
                    continue;
                }
                if (count++ == 0) fe = e, ft = t;
            }
        }
        ENSURE_MSG(rep.nintersect == count && rep.edge == fe && rep.tri == ft,
                   "soup %d: checker %d (first %d, %d), all pairs %d (first %d, %d)", it,
                   rep.nintersect, rep.edge, rep.tri, count, fe, ft);
        totalHits += count;
    }
    alct_note("%d intersecting pairs over 12 soups, identical to the all-pairs scan", totalHits);
    ENSURE(totalHits > 0);
    free(m);
    return ALC_TEST_PASS;
}
