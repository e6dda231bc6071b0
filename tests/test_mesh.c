// Tests of host/mesh.h: readers (valid and corrupt files), generators, validation, topology.
#include "mesh.h"
#include "test_macros.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERRSZ 512

// ---- helpers -----------------------------------------------------------------------------

/// Path of a committed test mesh.
static const char* dataPath(const char* name) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/meshes/%s", alct_rootDir(), name);
    return path;
}

/// Unique temporary path for this process.
static const char* tmpPath(const char* name) {
    static char path[256];
    snprintf(path, sizeof path, "/tmp/alc_mesh_%d_%s", (int)getpid(), name);
    return path;
}

static int writeFile(const char* path, const void* data, size_t n) {
    FILE* f = fopen(path, "wb");
    if (!f) return 0;
    size_t w = fwrite(data, 1, n, f);
    return fclose(f) == 0 && w == n;
}

static int writeText(const char* path, const char* text) {
    return writeFile(path, text, strlen(text));
}

/// Whether err names "file:line: " and contains phrase.
static int errorIs(const char* err, const char* file, int line, const char* phrase) {
    char where[300];
    snprintf(where, sizeof where, "%s:%d: ", file, line);
    return strstr(err, where) != NULL && strstr(err, phrase) != NULL;
}

static double signedVolume(const double* v, const int* t) {
    const double* a = v + 3 * t[0];
    double e[3][3];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 3; i++) e[k][i] = v[3 * t[k + 1] + i] - a[i];
    }
    return (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
            e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
            e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
           6.0;
}

static double tetVolumeSum(const alciMesh* m) {
    double s = 0.0;
    for (int i = 0; i < m->ntet; i++) s += signedVolume(m->vert, m->tet + 4 * i);
    return s;
}

/// Normalized quality 6 sqrt(2) V / l_rms^3 (1 for a regular tetrahedron).
static double tetQuality(const double* v, const int* t) {
    double s = 0.0;
    for (int i = 0; i < 4; i++) {
        for (int j = i + 1; j < 4; j++) {
            for (int a = 0; a < 3; a++) {
                double d = v[3 * t[i] + a] - v[3 * t[j] + a];
                s += d * d;
            }
        }
    }
    double l = sqrt(s / 6.0);
    return 6.0 * sqrt(2.0) * signedVolume(v, t) / (l * l * l);
}

static double minQuality(const alciMesh* m) {
    double q = 1e300;
    for (int i = 0; i < m->ntet; i++) q = fmin(q, tetQuality(m->vert, m->tet + 4 * i));
    return q;
}

/// Triangle t: n = (b - a) x (c - a) (twice the area along the normal), g = centroid, l2 =
/// sum of squared edge lengths.
static void triGeom(const alciMesh* m, int t, double n[3], double g[3], double* l2) {
    const double* p[3];
    for (int i = 0; i < 3; i++) p[i] = m->vert + 3 * m->tri[3 * t + i];
    double e1[3], e2[3];
    *l2 = 0.0;
    for (int a = 0; a < 3; a++) {
        e1[a] = p[1][a] - p[0][a];
        e2[a] = p[2][a] - p[0][a];
        g[a] = (p[0][a] + p[1][a] + p[2][a]) / 3.0;
        *l2 += e1[a] * e1[a] + e2[a] * e2[a] + (p[2][a] - p[1][a]) * (p[2][a] - p[1][a]);
    }
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
}

/// Divergence-theorem volume (1/3 sum g . n A) and total area of a triangle list.
static void surfaceSums(const alciMesh* m, double* volume, double* area) {
    *volume = *area = 0.0;
    for (int t = 0; t < m->ntri; t++) {
        double n[3], g[3], l2;
        triGeom(m, t, n, g, &l2);
        *volume += (g[0] * n[0] + g[1] * n[1] + g[2] * n[2]) / 6.0;
        *area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
}

static int cmpPair(const void* pa, const void* pb) {
    const int* a = (const int*)pa;
    const int* b = (const int*)pb;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : (a[1] < b[1] ? -1 : (a[1] > b[1]));
}

/// Number of edges used by exactly one triangle (rim); -1 if any edge is used by more than two
/// triangles or twice in the same direction (inconsistent orientation).
static int openEdges(const alciMesh* m) {
    int n = 3 * m->ntri;
    int* d = (int*)malloc((size_t)n * 2 * sizeof(int));
    if (!d) return -1;
    for (int t = 0; t < m->ntri; t++) {
        for (int i = 0; i < 3; i++) {
            d[2 * (3 * t + i)] = m->tri[3 * t + i];
            d[2 * (3 * t + i) + 1] = m->tri[3 * t + (i + 1) % 3];
        }
    }
    qsort(d, (size_t)n, 2 * sizeof(int), cmpPair);
    int open = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && cmpPair(d + 2 * i, d + 2 * i - 2) == 0) {
            free(d);
            return -1;
        }
        int rev[2] = {d[2 * i + 1], d[2 * i]};
        if (!bsearch(rev, d, (size_t)n, 2 * sizeof(int), cmpPair)) open++;
    }
    free(d);
    return open;
}

static int cmpPoint(const void* pa, const void* pb) {
    const double* a = (const double*)pa;
    const double* b = (const double*)pb;
    for (int i = 0; i < 3; i++) {
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    }
    return 0;
}

/// Whether two vertices are closer than tol (sorted sweep on x).
static int hasDuplicateVertex(const alciMesh* m, double tol) {
    double* p = (double*)malloc((size_t)m->nvert * 3 * sizeof(double));
    if (!p) return 1;
    memcpy(p, m->vert, (size_t)m->nvert * 3 * sizeof(double));
    qsort(p, (size_t)m->nvert, 3 * sizeof(double), cmpPoint);
    int dup = 0;
    for (int i = 0; i < m->nvert && !dup; i++) {
        for (int j = i + 1; j < m->nvert && p[3 * j] - p[3 * i] <= tol && !dup; j++) {
            double d = fabs(p[3 * j + 1] - p[3 * i + 1]) + fabs(p[3 * j + 2] - p[3 * i + 2]);
            dup = d <= tol;
        }
    }
    free(p);
    return dup;
}

/// Every vertex is used by some element.
static int allVerticesUsed(const alciMesh* m) {
    char* used = (char*)calloc((size_t)m->nvert, 1);
    if (!used) return 0;
    for (int i = 0; i < 4 * m->ntet; i++) used[m->tet[i]] = 1;
    for (int i = 0; i < 3 * m->ntri; i++) used[m->tri[i]] = 1;
    int all = 1;
    for (int i = 0; i < m->nvert; i++) all &= used[i];
    free(used);
    return all;
}

/// Checks shared by every solid generator: valid without reorientation, no duplicate or unused
/// vertices, closed outward boundary whose enclosed volume equals the tetrahedra's.
static int checkSolid(alciMesh* m, const char* name) {
    char err[ERRSZ];
    alctStatus s = alci_mesh_validate(m, 0, err, ERRSZ);
    ENSURE_MSG(s == ALC_OK, "%s: %s", name, err);
    ENSURE_MSG(!hasDuplicateVertex(m, 1e-12), "%s has duplicate vertices", name);
    ENSURE_OK(alci_mesh_boundary(m, err, ERRSZ));
    ENSURE_MSG(allVerticesUsed(m), "%s has unused vertices", name);
    ENSURE_MSG(openEdges(m) == 0, "%s: boundary is not a closed consistently oriented surface",
               name);
    double vol, area, tv = tetVolumeSum(m);
    surfaceSums(m, &vol, &area);
    ENSURE_MSG(vol > 0.0, "%s: boundary normals point inward", name);
    ENSURE_MSG(fabs(vol - tv) <= 1e-9 * tv, "%s: boundary volume %.12g vs tets %.12g", name, vol,
               tv);
    return ALC_TEST_PASS;
}

static int sameMesh(const alciMesh* a, const alciMesh* b) {
    return a->nvert == b->nvert && a->ntet == b->ntet && a->ntri == b->ntri &&
           memcmp(a->vert, b->vert, (size_t)a->nvert * 3 * sizeof(double)) == 0 &&
           (a->ntet == 0 || memcmp(a->tet, b->tet, (size_t)a->ntet * 4 * sizeof(int)) == 0) &&
           (a->ntri == 0 || memcmp(a->tri, b->tri, (size_t)a->ntri * 3 * sizeof(int)) == 0);
}

// the unit cube of the committed files: vertex i at (i & 1, i >> 1 & 1, i >> 2 & 1), split
// into 6 tetrahedra along the diagonal 0-7 in file order
static const int kCubeTets[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7},
                                    {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};

/// The cube as read from a file: positions, tetrahedra in file order, unit volume after
/// reorientation.
static int checkCube(alciMesh* m, int ntri) {
    char err[ERRSZ];
    ENSURE(m->nvert == 8 && m->ntet == 6 && m->ntri == ntri);
    for (int i = 0; i < 8; i++) {
        for (int a = 0; a < 3; a++) ENSURE(m->vert[3 * i + a] == (double)((i >> a) & 1));
    }
    ENSURE(memcmp(m->tet, kCubeTets, sizeof kCubeTets) == 0);
    ENSURE(alci_mesh_validate(m, 0, err, ERRSZ) == ALC_ERR_SCENE);  // Gmsh-like order
    ENSURE_MSG(strstr(err, "tetrahedron 1 (vertices 0 1 5 7) is inverted"), "%s", err);
    ENSURE_OK(alci_mesh_validate(m, 1, err, ERRSZ));
    ENSURE_NEAR(tetVolumeSum(m), 1.0, 1e-14);
    return ALC_TEST_PASS;
}

// ---- readers: valid files ----------------------------------------------------------------

ALC_TEST(mesh_readMsh22Ascii) {
    alciMesh m;
    char err[ERRSZ];
    ENSURE_OK(alci_mesh_readMsh(dataPath("cube22.msh"), &m, err, ERRSZ));
    ENSURE(m.ntri == 1 && m.tri[0] == 0 && m.tri[1] == 2 && m.tri[2] == 3);
    int r = checkCube(&m, 1);
    alci_mesh_free(&m);
    ENSURE(m.vert == NULL && m.nvert == 0);
    alci_mesh_free(NULL);
    if (r != ALC_TEST_PASS) return r;
    // contiguous tags listed out of order: indices follow the file order, not the tags
    ENSURE(writeText(tmpPath("order.msh"),
                     "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n"
                     "4 0 0 1\n3 0 1 0\n2 1 0 0\n1 0 0 0\n$EndNodes\n"
                     "$Elements\n1\n7 4 0 1 2 3 4\n$EndElements\n"));
    ENSURE_OK(alci_mesh_read(tmpPath("order.msh"), &m, err, ERRSZ));
    int ok = m.ntet == 1 && m.tet[0] == 3 && m.tet[1] == 2 && m.tet[2] == 1 && m.tet[3] == 0 &&
             m.vert[2] == 1.0;
    alci_mesh_free(&m);
    remove(tmpPath("order.msh"));
    ENSURE(ok);
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_readMsh41Ascii) {
    alciMesh m;
    char err[ERRSZ];
    ENSURE_OK(alci_mesh_read(dataPath("cube41.msh"), &m, err, ERRSZ));
    ENSURE(m.ntri == 1 && m.tri[0] == 0 && m.tri[1] == 3 && m.tri[2] == 2);
    int r = checkCube(&m, 1);
    alci_mesh_free(&m);
    return r;
}

/// Little writer for binary test files.
typedef struct {
    unsigned char b[4096];
    size_t n;
} Buf;

static void put(Buf* b, const void* p, size_t n) {
    memcpy(b->b + b->n, p, n);
    b->n += n;
}
static void putS(Buf* b, const char* s) {
    put(b, s, strlen(s));
}
static void putI(Buf* b, int32_t v) {
    put(b, &v, 4);
}
static void putD(Buf* b, double v) {
    put(b, &v, 8);
}
static void putZ(Buf* b, int dsize, uint64_t v) {
    if (dsize == 4) {
        uint32_t w = (uint32_t)v;
        put(b, &w, 4);
    } else {
        put(b, &v, 8);
    }
}

/// Corruptions of the binary writers.
enum { BIN_OK = 0, BIN_SWAPPED, BIN_BADREF, BIN_HUGE, BIN_BADTYPE, BIN_NAN };

/// Node tag of cube vertex i in the binary files (non-contiguous).
static int32_t binTag(int i) {
    return i < 4 ? i + 1 : 101 + i;
}

static void msh22Binary(Buf* b, int bad) {
    b->n = 0;
    putS(b, "$MeshFormat\n2.2 1 8\n");
    putI(b, bad == BIN_SWAPPED ? 0x01000000 : 1);
    putS(b, "\n$EndMeshFormat\n$Nodes\n");
    putS(b, bad == BIN_HUGE ? "1000000000\n" : "8\n");
    for (int i = 0; i < 8; i++) {
        putI(b, binTag(i));
        for (int a = 0; a < 3; a++) putD(b, bad == BIN_NAN && i == 5 ? nan("") : (i >> a) & 1);
    }
    putS(b, "\n$EndNodes\n$Elements\n8\n");
    // a line (ignored), 6 tetrahedra, a triangle
    int32_t line[] = {bad == BIN_BADTYPE ? 77 : 1, 1, 2, 1, 0, 0, binTag(0), binTag(1)};
    put(b, line, sizeof line);
    int32_t head[] = {4, 6, 2};
    put(b, head, sizeof head);
    for (int t = 0; t < 6; t++) {
        int32_t e[] = {2 + t, 1, 1};
        put(b, e, sizeof e);
        for (int k = 0; k < 4; k++)
            putI(b, bad == BIN_BADREF && t == 4 ? 999 : binTag(kCubeTets[t][k]));
    }
    int32_t tri[] = {2, 1, 0, 8, binTag(0), binTag(2), binTag(3)};
    put(b, tri, sizeof tri);
    putS(b, "\n$EndElements\n");
}

static void msh41Binary(Buf* b, int dsize, int bad) {
    b->n = 0;
    putS(b, dsize == 4 ? "$MeshFormat\n4.1 1 4\n" : "$MeshFormat\n4.1 1 8\n");
    putI(b, bad == BIN_SWAPPED ? 0x01000000 : 1);
    putS(b, "\n$EndMeshFormat\n$Entities\n");
    unsigned char junk[] = {1, 0, 0, 0, '$', 'E', 'n', 'd', 0xff, '\n', 0, 0x80};
    put(b, junk, sizeof junk);
    putS(b, "\n$EndEntities\n$Nodes\n");
    putZ(b, dsize, 2);
    putZ(b, dsize, bad == BIN_HUGE ? 1ull << 40 : 8);
    putZ(b, dsize, 1);
    putZ(b, dsize, 108);
    for (int blk = 0; blk < 2; blk++) {
        putI(b, blk ? 3 : 0);
        putI(b, 1);
        putI(b, 0);
        putZ(b, dsize, 4);
        for (int i = 4 * blk; i < 4 * blk + 4; i++) putZ(b, dsize, (uint64_t)binTag(i));
        for (int i = 4 * blk; i < 4 * blk + 4; i++) {
            for (int a = 0; a < 3; a++) putD(b, bad == BIN_NAN && i == 5 ? nan("") : (i >> a) & 1);
        }
    }
    putS(b, "\n$EndNodes\n$Elements\n");
    putZ(b, dsize, 3);
    putZ(b, dsize, 8);
    putZ(b, dsize, 1);
    putZ(b, dsize, 8);
    // a line (ignored), 6 tetrahedra, a triangle
    int32_t head1[] = {1, 1, bad == BIN_BADTYPE ? 77 : 1};
    put(b, head1, sizeof head1);
    putZ(b, dsize, 1);
    putZ(b, dsize, 1);
    putZ(b, dsize, (uint64_t)binTag(0));
    putZ(b, dsize, (uint64_t)binTag(1));
    int32_t head2[] = {3, 1, 4};
    put(b, head2, sizeof head2);
    putZ(b, dsize, 6);
    for (int t = 0; t < 6; t++) {
        putZ(b, dsize, (uint64_t)(2 + t));
        for (int k = 0; k < 4; k++) {
            putZ(b, dsize, bad == BIN_BADREF && t == 4 ? 999 : (uint64_t)binTag(kCubeTets[t][k]));
        }
    }
    int32_t head3[] = {2, 1, 2};
    put(b, head3, sizeof head3);
    putZ(b, dsize, 1);
    putZ(b, dsize, 8);
    putZ(b, dsize, (uint64_t)binTag(0));
    putZ(b, dsize, (uint64_t)binTag(2));
    putZ(b, dsize, (uint64_t)binTag(3));
    putS(b, "\n$EndElements\n");
}

ALC_TEST(mesh_readMshBinary) {
    static Buf b;
    char err[ERRSZ];
    const char* path = tmpPath("bin.msh");
    for (int v = 0; v < 3; v++) {
        if (v == 0)
            msh22Binary(&b, BIN_OK);
        else
            msh41Binary(&b, v == 1 ? 8 : 4, BIN_OK);
        ENSURE(writeFile(path, b.b, b.n));
        alciMesh m;
        alctStatus s = alci_mesh_read(path, &m, err, ERRSZ);
        ENSURE_MSG(s == ALC_OK, "variant %d: %s", v, err);
        ENSURE(m.ntri == 1 && m.tri[0] == 0 && m.tri[1] == 2 && m.tri[2] == 3);
        int r = checkCube(&m, 1);
        alci_mesh_free(&m);
        if (r != ALC_TEST_PASS) return r;
    }
    remove(path);
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_readTetgen) {
    alciMesh a, b;
    char err[ERRSZ];
    ENSURE_OK(alci_mesh_read(dataPath("cube.node"), &a, err, ERRSZ));
    ENSURE_OK(alci_mesh_readTetgen(dataPath("cube.ele"), &b, err, ERRSZ));
    ENSURE(sameMesh(&a, &b));
    alci_mesh_free(&b);
    int r = checkCube(&a, 0);
    alci_mesh_free(&a);
    if (r != ALC_TEST_PASS) return r;
    // 0-based, no attributes, 10-node tetrahedra (the first 4 nodes are the corners)
    char node[512] = "8 3 0 0\n", ele[512] = "6 10 0\n", line[96];
    for (int i = 0; i < 8; i++) {
        snprintf(line, sizeof line, "%d %d %d %d\n", i, i & 1, (i >> 1) & 1, (i >> 2) & 1);
        strcat(node, line);
    }
    for (int t = 0; t < 6; t++) {
        const int* k = kCubeTets[t];
        snprintf(line, sizeof line, "%d %d %d %d %d  1 2 3 4 5 6\n", t, k[0], k[1], k[2], k[3]);
        strcat(ele, line);
    }
    ENSURE(writeText(tmpPath("zero.node"), node) && writeText(tmpPath("zero.ele"), ele));
    ENSURE_OK(alci_mesh_read(tmpPath("zero.ele"), &a, err, ERRSZ));
    r = checkCube(&a, 0);
    alci_mesh_free(&a);
    remove(tmpPath("zero.node"));
    remove(tmpPath("zero.ele"));
    return r;
}

ALC_TEST(mesh_readObj) {
    alciMesh m;
    char err[ERRSZ];
    ENSURE_OK(alci_mesh_read(dataPath("cube_quads.obj"), &m, err, ERRSZ));
    ENSURE(m.nvert == 8 && m.ntet == 0 && m.ntri == 12);
    // fan triangulation of "f 1 3 4 2" and the relative face "f -8 -4 -2 -6" (1 5 7 3)
    ENSURE(m.tri[0] == 0 && m.tri[1] == 2 && m.tri[2] == 3);
    ENSURE(m.tri[3] == 0 && m.tri[4] == 3 && m.tri[5] == 1);
    ENSURE(m.tri[24] == 0 && m.tri[25] == 4 && m.tri[26] == 6);
    ENSURE_OK(alci_mesh_validate(&m, 0, err, ERRSZ));
    ENSURE(openEdges(&m) == 0);
    double vol, area;
    surfaceSums(&m, &vol, &area);
    ENSURE_NEAR(vol, 1.0, 1e-14);
    ENSURE_NEAR(area, 6.0, 1e-14);
    alci_mesh_free(&m);
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_readDispatch) {
    alciMesh m;
    char err[ERRSZ];
    ENSURE(alci_mesh_read(tmpPath("none.msh"), &m, err, ERRSZ) == ALC_ERR_IO);
    ENSURE_MSG(errorIs(err, "none.msh", 0, "cannot open"), "%s", err);
    ENSURE(alci_mesh_read(tmpPath("none.node"), &m, err, ERRSZ) == ALC_ERR_IO);
    ENSURE_MSG(errorIs(err, "none.node", 0, "cannot open"), "%s", err);
    ENSURE(alci_mesh_read("cube.stl", &m, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(errorIs(err, "cube.stl", 0, "unknown mesh file extension"), "%s", err);
    ENSURE(m.nvert == 0 && m.vert == NULL);
    ENSURE(alci_mesh_read(NULL, &m, err, ERRSZ) == ALC_ERR_INVALID_ARG);
    // the .node exists but its .ele does not: the message names the .ele
    ENSURE(writeText(tmpPath("lone.node"), "1 3 0 0\n1 0 0 0\n"));
    ENSURE(alci_mesh_read(tmpPath("lone.node"), &m, err, ERRSZ) == ALC_ERR_IO);
    ENSURE_MSG(errorIs(err, "lone.ele", 0, "cannot open"), "%s", err);
    ENSURE(m.nvert == 0 && m.vert == NULL);
    remove(tmpPath("lone.node"));
    return ALC_TEST_PASS;
}

// ---- readers: corrupt files --------------------------------------------------------------

typedef struct {
    const char* text;
    int line;
    const char* phrase;
} BadFile;

/// Write each text to file name and expect ALC_ERR_SCENE with "name:line: ...phrase...".
static int expectErrors(const char* name, const BadFile* bad, int n) {
    char err[ERRSZ];
    int failed = 0;
    for (int i = 0; i < n; i++) {
        ENSURE(writeText(tmpPath(name), bad[i].text));
        alciMesh m;
        alctStatus s = alci_mesh_read(tmpPath(name), &m, err, ERRSZ);
        if (s != ALC_ERR_SCENE || !errorIs(err, name, bad[i].line, bad[i].phrase)) {
            fprintf(stderr, "  %s case %d: status %d, '%s', expected line %d '%s'\n", name, i,
                    (int)s, err, bad[i].line, bad[i].phrase);
            failed = 1;
        }
        ENSURE(m.nvert == 0 && m.vert == NULL && m.tet == NULL && m.tri == NULL);
    }
    remove(tmpPath(name));
    return failed ? ALC_TEST_FAIL : ALC_TEST_PASS;
}

#define HDR22   "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
#define NODES22 "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"

ALC_TEST(mesh_readMshCorrupt) {
    static const BadFile bad[] = {
        {HDR22 NODES22 "$Elements\n1\n1 4 0 1 2 3 99\n$EndElements\n", 13, "refers to node 99"},
        {HDR22 "$Nodes\n4\n1 0 0 0\n2 1 0", 5, "4 nodes declared, but the file has only"},
        {HDR22 "$Nodes\n1\n1 0 0          \n", 6,
         "unexpected end of file in $Nodes, expected z coordinate"},
        {HDR22 "$Nodes\n2\n1 0 0 0\n2 1 0\n$EndNodes\n", 8,
         "expected z coordinate (a number), found '$EndNodes'"},
        {HDR22 "$Nodes\n2\n1 0 0 0\n2 nan 0 0\n$EndNodes\n", 7, "x coordinate is not finite"},
        {HDR22 "$Nodes\n1\n1 0 0 zero\n$EndNodes\n", 6, "expected z coordinate (a number)"},
        {"$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", 2, "unsupported Gmsh format version '3.0'"},
        {HDR22 "$Nodes\n1\n1 0 0 0\n$Elements\n", 7, "expected $EndNodes, found '$Elements'"},
        {HDR22 "$Nodes\n1\n1 0 0 0\n", 6, "missing $EndNodes"},
        {HDR22 NODES22, 10, "no $Elements section"},
        {HDR22 "$Elements\n0\n$EndElements\n", 4, "$Elements comes before $Nodes"},
        {"\x7f"
         "ELF\x02\x01\x01\x00\x00\x00garbage",
         1, "not a Gmsh mesh"},
        {HDR22 "$Nodes\n99999999999\n1 0 0 0\n$EndNodes\n", 5, "99999999999 nodes declared"},
        {HDR22 "$Nodes\n-3\n$EndNodes\n", 5, "negative number of nodes"},
        {HDR22 "$Nodes\n2\n1 0 0 0\n1 1 0 0\n$EndNodes\n", 4, "node tag 1 is defined twice"},
        {HDR22 NODES22 "$Elements\n1\n1 4 0 1 2 3\n$EndElements\n", 13, "line ends early"},
        {HDR22 NODES22 "$Elements\n1\n1 4 0 1 2 3 3\n$EndElements\n", 13, "uses node 3 twice"},
        {HDR22 NODES22 "$Elements\n1\n1 4 0 1 2 3 4 5\n$EndElements\n", 13, "unexpected '5'"},
        {HDR22 "$Comments\nno end\n", 4, "missing $EndComments"},
        {"$MeshFormat\n2.2 2 8\n$EndMeshFormat\n", 2, "file type 2"},
        {"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 2 1 2\n0 1 0 1\n1\n0 0 0\n$EndNodes\n", 8,
         "node blocks hold 1 nodes, but 2 are declared"},
        {"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1 1 1\n0 1 0 1\n1\n0 inf 0\n", 8,
         "y coordinate is not finite"},
        {"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 1 1 1\n0 1 0 1\n1\n0 0 0\n$EndNodes\n"
         "$Elements\n1 1 1 1\n3 1 4 1\n1 1 1 1 1\n$EndElements\n",
         13, "uses node 1 twice"},
    };
    return expectErrors("bad.msh", bad, (int)(sizeof bad / sizeof bad[0]));
}

ALC_TEST(mesh_readMshBinaryCorrupt) {
    static Buf b;
    char err[ERRSZ];
    const char* path = tmpPath("badbin.msh");
    int failed = 0;
    // (format, corruption, line, phrase); binary data starts on line 7 (2.2) or 10 (4.1 nodes)
    static const struct {
        int fmt, bad, line;
        const char* phrase;
    } cases[] = {
        {22, BIN_SWAPPED, 3, "opposite byte order"},
        {41, BIN_SWAPPED, 3, "opposite byte order"},
        {22, BIN_BADREF, 11, "refers to node 999"},
        {41, BIN_BADREF, 13, "refers to node 999"},
        {22, BIN_HUGE, 6, "1000000000 nodes declared"},
        {41, BIN_HUGE, 10, "1099511627776 nodes declared"},
        {22, BIN_BADTYPE, 11, "unknown element type 77"},
        {41, BIN_BADTYPE, 13, "unknown element type 77"},
        {22, BIN_NAN, 7, "x coordinate in $Nodes is not finite"},
        {41, BIN_NAN, 10, "x coordinate in $Nodes is not finite"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].fmt == 22)
            msh22Binary(&b, cases[i].bad);
        else
            msh41Binary(&b, 8, cases[i].bad);
        ENSURE(writeFile(path, b.b, b.n));
        alciMesh m;
        alctStatus s = alci_mesh_read(path, &m, err, ERRSZ);
        if (s != ALC_ERR_SCENE || !errorIs(err, "badbin.msh", cases[i].line, cases[i].phrase)) {
            fprintf(stderr, "  case %zu: status %d '%s', expected line %d '%s'\n", i, (int)s, err,
                    cases[i].line, cases[i].phrase);
            failed = 1;
        }
    }
    if (failed) return ALC_TEST_FAIL;
    // every truncation of a valid binary file is refused with a message naming the file
    for (int fmt = 0; fmt < 2; fmt++) {
        if (fmt == 0)
            msh22Binary(&b, BIN_OK);
        else
            msh41Binary(&b, 8, BIN_OK);
        size_t full = b.n;
        for (size_t n = 0; n + 2 < full; n++) {
            ENSURE(writeFile(path, b.b, n));
            alciMesh m;
            alctStatus s = alci_mesh_read(path, &m, err, ERRSZ);
            ENSURE_MSG(s == ALC_ERR_SCENE && strstr(err, "badbin.msh:"), "cut at %zu: %d '%s'", n,
                       (int)s, err);
        }
    }
    remove(path);
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_readTetgenCorrupt) {
    char err[ERRSZ];
    static const char* ele = "1 4 0\n1 1 2 3 4\n";
    static const BadFile badNode[] = {
        {"4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n", 4, "unexpected end of file"},
        {"2 3 0 0\n1 0 0 0\n2 1 nan 0\n", 3, "y coordinate is not finite"},
        {"4 2 0 0\n", 1, "dimension is 2, expected 3"},
        {"4 3 0 0\n1 0 0 0\n2 1 0 0\n4 0 1 0\n5 0 0 1\n", 4, "out of sequence (expected 3)"},
        {"# header\n-4 3 0 0\n", 2, "negative number of points"},
        {"4000000000 3 0 0\n1 0 0 0\n", 1, "4000000000 points declared"},
        {"4 3 0 0\n2 0 0 0\n", 2, "first point index is 2"},
        {"\x01\x02garbage\xff\n", 1, "expected the number of points (an integer)"},
        {"1 3 0 0\n1 0 0 0 7\n", 2, "unexpected '7'"},
    };
    ENSURE(writeText(tmpPath("bad.ele"), ele));
    int r = expectErrors("bad.node", badNode, (int)(sizeof badNode / sizeof badNode[0]));
    if (r != ALC_TEST_PASS) return r;
    static const char* node = "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n";
    static const BadFile badEle[] = {
        {"1 4 0\n1 1 2 3 9\n", 2, "refers to node 9, but the nodes are numbered 1 to 4"},
        {"1 4 0\n1 1 2 3 0\n", 2, "refers to node 0"},
        {"2 4 0\n1 1 2 3 4\n", 2, "unexpected end of file, expected a tetrahedron index"},
        {"1 5 0\n", 1, "5 nodes per tetrahedron"},
        {"1 4 0\n1 1 2 3\n", 2, "line ends early, expected a node index"},
        {"1 4 0\n1 1 2 2 4\n", 2, "uses node 2 twice"},
        {"1 4 1\n1 1 2 3 4 nan\n", 2, "attribute is not finite"},
    };
    ENSURE(writeText(tmpPath("bad.node"), node));
    r = expectErrors("bad.ele", badEle, (int)(sizeof badEle / sizeof badEle[0]));
    remove(tmpPath("bad.node"));
    // a 10-node tetrahedron's extra nodes are range-checked too
    ENSURE(writeText(tmpPath("bad.node"), node));
    ENSURE(writeText(tmpPath("bad.ele"), "1 10 0\n1 1 2 3 4 1 2 3 4 1 8\n"));
    alciMesh m;
    ENSURE(alci_mesh_read(tmpPath("bad.node"), &m, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(errorIs(err, "bad.ele", 2, "refers to node 8"), "%s", err);
    remove(tmpPath("bad.node"));
    remove(tmpPath("bad.ele"));
    return r;
}

ALC_TEST(mesh_readObjCorrupt) {
    static const BadFile bad[] = {
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", 4, "vertex index 0 is invalid"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", 4, "refers to vertex 4, but only 3 vertices"},
        {"v 0 0 0\nv 1 0 0\nf 1 2 -3\nv 0 1 0\n", 3, "refers to vertex -3, but only 2"},
        {"v 0 0 0\nv 1 0 0\n# c\nf 1 2\n", 4, "face has 2 vertices"},
        {"v 0 0 0\nv nan 0 0\n", 2, "vertex x coordinate 'nan' is not finite"},
        {"v 0 0\n", 1, "vertex has no z coordinate"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3/x x/1\n", 4, "face corner 'x/1'"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 2\n", 4, "face uses vertex 2 twice"},
        {"# only comments\n\n", 0, "no vertices"},
        {"v 0 0 0\n\x00\x01\x02\x03\n", 2, "binary data"},
    };
    // embedded NUL: write the last case by hand
    int r = expectErrors("bad.obj", bad, (int)(sizeof bad / sizeof bad[0]) - 1);
    if (r != ALC_TEST_PASS) return r;
    char err[ERRSZ];
    ENSURE(writeFile(tmpPath("nul.obj"), "v 0 0 0\n\x00\x01\x02\x03\n", 13));
    alciMesh m;
    ENSURE(alci_mesh_read(tmpPath("nul.obj"), &m, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(errorIs(err, "nul.obj", 2, "binary data"), "%s", err);
    remove(tmpPath("nul.obj"));
    return ALC_TEST_PASS;
}

/// Flip bytes of the committed and binary files at random (deterministic) and truncate them:
/// every reader must return OK or a "path:line:" error, never crash or read out of bounds.
ALC_TEST(mesh_readFuzz) {
    static const char* files[] = {"cube22.msh", "cube41.msh", "cube.node", "cube.ele",
                                  "cube_quads.obj"};
    static Buf src, b;
    static char other[4096];
    char err[ERRSZ];
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int nok = 0, nerr = 0;
    for (int f = 0; f < 7; f++) {
        // the source bytes and the name the mutated copy gets
        const char* name;
        src.n = 0;
        if (f < 5) {
            FILE* in = fopen(dataPath(files[f]), "rb");
            ENSURE(in);
            src.n = fread(src.b, 1, sizeof src.b, in);
            fclose(in);
            name = f == 2 ? "fz.node" : f == 3 ? "fz.ele" : f == 4 ? "fz.obj" : "fz.msh";
        } else {
            if (f == 5)
                msh22Binary(&src, BIN_OK);
            else
                msh41Binary(&src, 8, BIN_OK);
            name = "fz.msh";
        }
        // the TetGen partner file stays valid
        if (f == 2 || f == 3) {
            FILE* in = fopen(dataPath(files[f == 2 ? 3 : 2]), "rb");
            ENSURE(in);
            size_t n = fread(other, 1, sizeof other, in);
            fclose(in);
            ENSURE(writeFile(tmpPath(f == 2 ? "fz.ele" : "fz.node"), other, n));
        }
        for (int trial = 0; trial < 400; trial++) {
            memcpy(b.b, src.b, src.n);
            b.n = src.n;
            int flips = 1 + trial % 4;
            for (int k = 0; k < flips; k++) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                size_t at = (size_t)(rng >> 33) % b.n;
                b.b[at] = (unsigned char)(rng >> 13);
            }
            if (trial % 3 == 0) b.n = (size_t)(rng >> 40) % (b.n + 1);
            ENSURE(writeFile(tmpPath(name), b.b, b.n));
            alciMesh m;
            alctStatus s = alci_mesh_read(tmpPath(name), &m, err, ERRSZ);
            if (s == ALC_OK) {
                nok++;
                alci_mesh_validate(&m, 1, err, ERRSZ);
                alci_mesh_free(&m);
            } else {
                nerr++;
                ENSURE_MSG(
                    s == ALC_ERR_SCENE && strstr(err, "/tmp/alc_mesh_") && strstr(err, "fz."),
                    "file %d trial %d: status %d '%s'", f, trial, (int)s, err);
                ENSURE(m.vert == NULL);
            }
        }
        remove(tmpPath(name));
        remove(tmpPath("fz.node"));
        remove(tmpPath("fz.ele"));
    }
    alct_note("%d mutated files read, %d refused with a message", nok, nerr);
    return ALC_TEST_PASS;
}

// ---- generators: solids ------------------------------------------------------------------

ALC_TEST(mesh_box) {
    alciMesh m, m2;
    const double size[3] = {1.0, 2.0, 3.0};
    const int n[3] = {3, 2, 4};
    ENSURE_OK(alci_mesh_box(size, n, &m));
    ENSURE(m.nvert == 4 * 3 * 5 && m.ntet == 6 * 24);
    int r = checkSolid(&m, "box");
    if (r == ALC_TEST_PASS) {
        ENSURE_NEAR(tetVolumeSum(&m), 6.0, 1e-13);
        ENSURE(m.ntri == 4 * (3 * 2 + 2 * 4 + 3 * 4));
        for (int i = 0; i < m.nvert; i++) {
            for (int a = 0; a < 3; a++) ENSURE(fabs(m.vert[3 * i + a]) <= 0.5 * size[a] + 1e-15);
        }
        alct_note("box 3x2x4 cells of 1/3 x 1 x 3/4: min quality %.4f", minQuality(&m));
        // every cell is split along the same diagonal: a 1x1x1 box is the Kuhn cube
        const int one[3] = {1, 1, 1};
        const double unit[3] = {1.0, 1.0, 1.0};
        ENSURE_OK(alci_mesh_box(unit, one, &m2));
        for (int t = 0; t < 6; t++) {
            const int* x = m2.tet + 4 * t;
            ENSURE(x[0] == 0 && (x[2] == 7 || x[3] == 7));
        }
        ENSURE_NEAR(minQuality(&m2), 0.6573, 1e-4);
        alci_mesh_free(&m2);
        ENSURE_OK(alci_mesh_box(size, n, &m2));
        ENSURE_OK(alci_mesh_boundary(&m2, NULL, 0));
        ENSURE(sameMesh(&m, &m2));
        alci_mesh_free(&m2);
    }
    alci_mesh_free(&m);
    const int bad[3] = {1, 0, 1};
    ENSURE(alci_mesh_box(size, bad, &m) == ALC_ERR_INVALID_ARG && m.vert == NULL);
    return r;
}

ALC_TEST(mesh_sphere) {
    const double radius = 0.7, exact = 4.0 / 3.0 * M_PI * radius * radius * radius;
    double prevErr = 1.0;
    for (int res = 2; res <= 24; res++) {
        alciMesh m;
        ENSURE_OK(alci_mesh_sphere(radius, res, &m));
        ENSURE(m.nvert == (res + 1) * (res + 1) * (res + 1) && m.ntet == 6 * res * res * res);
        int r = checkSolid(&m, "sphere");
        double q = minQuality(&m), err = tetVolumeSum(&m) / exact - 1.0;
        // boundary vertices lie on the sphere
        double dr = 0.0;
        for (int i = 0; i < 3 * m.ntri; i++) {
            const double* p = m.vert + 3 * m.tri[i];
            dr = fmax(dr, fabs(sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - radius));
        }
        alci_mesh_free(&m);
        if (r != ALC_TEST_PASS) return r;
        alct_note("sphere res %2d: min quality %.4f, volume error %+.3f%%", res, q, 100 * err);
        ENSURE_MSG(q > 0.15, "res %d: min quality %.4f", res, q);
        ENSURE(dr < 1e-14);
        ENSURE_MSG(err < 0.0 && fabs(err) < prevErr, "res %d: volume error %g", res, err);
        prevErr = fabs(err);
        if (res == 8) ENSURE(fabs(err) < 0.03);
    }
    ENSURE(prevErr < 0.003);
    alciMesh a, b;
    ENSURE_OK(alci_mesh_sphere(1.0, 7, &a));
    ENSURE_OK(alci_mesh_sphere(1.0, 7, &b));
    int same = sameMesh(&a, &b);
    alci_mesh_free(&a);
    alci_mesh_free(&b);
    ENSURE(same);
    ENSURE(alci_mesh_sphere(1.0, 1, &a) == ALC_ERR_INVALID_ARG);
    ENSURE(alci_mesh_sphere(nan(""), 4, &a) == ALC_ERR_INVALID_ARG);
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_cylinder) {
    const double radius = 0.5, height = 2.0, exact = M_PI * radius * radius * height;
    double prevErr = 1.0;
    for (int res = 2; res <= 16; res++) {
        alciMesh m;
        ENSURE_OK(alci_mesh_cylinder(radius, height, res, 2 * res, &m));
        int r = checkSolid(&m, "cylinder");
        double q = minQuality(&m), err = tetVolumeSum(&m) / exact - 1.0;
        // side vertices on the cylinder, caps at +-height/2
        double dr = 0.0;
        for (int i = 0; i < 3 * m.ntri; i++) {
            const double* p = m.vert + 3 * m.tri[i];
            if (fabs(fabs(p[1]) - 0.5 * height) > 1e-12) {
                dr = fmax(dr, fabs(hypot(p[0], p[2]) - radius));
            }
        }
        alci_mesh_free(&m);
        if (r != ALC_TEST_PASS) return r;
        if (res % 2 == 0 || res < 6) {
            alct_note("cylinder res %2d x %2d: min quality %.4f, volume error %+.3f%%", res,
                      2 * res, q, 100 * err);
        }
        ENSURE_MSG(q > 0.5, "res %d: min quality %.4f", res, q);
        ENSURE(dr < 1e-14);
        ENSURE_MSG(err < 0.0 && fabs(err) < prevErr, "res %d: volume error %g", res, err);
        prevErr = fabs(err);
    }
    ENSURE(prevErr < 0.002);
    // a flat disk (one layer) is still valid; bad arguments are refused
    alciMesh a, b;
    ENSURE_OK(alci_mesh_cylinder(1.0, 0.1, 9, 1, &a));
    ENSURE_OK(alci_mesh_cylinder(1.0, 0.1, 9, 1, &b));
    int same = sameMesh(&a, &b);
    int r = checkSolid(&a, "disk");
    alci_mesh_free(&a);
    alci_mesh_free(&b);
    ENSURE(same && r == ALC_TEST_PASS);
    ENSURE(alci_mesh_cylinder(1.0, 1.0, 1, 1, &a) == ALC_ERR_INVALID_ARG);
    ENSURE(alci_mesh_cylinder(1.0, 1.0, 2, 0, &a) == ALC_ERR_INVALID_ARG);
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_torus) {
    const double R = 1.0, r = 0.3, exact = 2.0 * M_PI * M_PI * R * r * r;
    static const int cases[][2] = {{3, 2}, {3, 8}, {4, 4}, {21, 2}, {42, 4}, {84, 8}, {126, 12}};
    double prevErr = 1.0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int major = cases[c][0], minor = cases[c][1];
        alciMesh m;
        ENSURE_OK(alci_mesh_torus(R, r, major, minor, &m));
        ENSURE(m.nvert == major * (minor + 1) * (minor + 1) && m.ntet == 6 * major * minor * minor);
        int res = checkSolid(&m, "torus");
        double q = minQuality(&m), err = tetVolumeSum(&m) / exact - 1.0;
        // boundary: a closed surface of genus 1 (Euler characteristic 0)
        int* edges = NULL;
        int nedge = 0;
        if (res == ALC_TEST_PASS) ENSURE_OK(alci_mesh_edges(m.tri, m.ntri, &edges, &nedge));
        free(edges);
        int nbv = m.nvert - major * (minor - 1) * (minor - 1);
        int euler = nbv - nedge + m.ntri;
        alci_mesh_free(&m);
        if (res != ALC_TEST_PASS) return res;
        ENSURE(euler == 0);
        alct_note("torus %3d x %2d: min quality %.4f, volume error %+.3f%%", major, minor, q,
                  100 * err);
        ENSURE(q > 0.0);
        // quality and volume improve when the ring and tube cells are about equally long
        if (c >= 3) {
            ENSURE_MSG(q > 0.5, "%d x %d: min quality %.4f", major, minor, q);
            ENSURE_MSG(err < 0.0 && fabs(err) < prevErr, "%d x %d: volume error %g", major, minor,
                       err);
            prevErr = fabs(err);
        }
    }
    ENSURE(prevErr < 0.005);
    alciMesh a, b;
    ENSURE_OK(alci_mesh_torus(2.0, 0.5, 16, 4, &a));
    ENSURE_OK(alci_mesh_torus(2.0, 0.5, 16, 4, &b));
    int same = sameMesh(&a, &b);
    alci_mesh_free(&a);
    alci_mesh_free(&b);
    ENSURE(same);
    ENSURE(alci_mesh_torus(1.0, 0.3, 2, 4, &a) == ALC_ERR_INVALID_ARG);
    ENSURE(alci_mesh_torus(1.0, 1.0, 8, 4, &a) == ALC_ERR_INVALID_ARG);
    ENSURE(alci_mesh_torus(1.0, 0.3, 8, 1, &a) == ALC_ERR_INVALID_ARG);
    return ALC_TEST_PASS;
}

// ---- generators: obstacle surfaces -------------------------------------------------------

/// Common surface checks: valid, welded, no unused vertex, consistently oriented manifold
/// (rim edge count in *open), and every triangle normal n facing the point (0, cy, 0):
/// n . (g - (0, cy, 0)) < 0 for its centroid g; with axisOnly, facing the y axis (funnel).
static int checkSurface(alciMesh* m, const char* name, double cy, int axisOnly, int* open) {
    char err[ERRSZ];
    ENSURE_MSG(alci_mesh_validate(m, 0, err, ERRSZ) == ALC_OK, "%s: %s", name, err);
    ENSURE(m->ntet == 0 && m->tet == NULL);
    ENSURE_MSG(!hasDuplicateVertex(m, 1e-12), "%s has duplicate vertices", name);
    ENSURE_MSG(allVerticesUsed(m), "%s has unused vertices", name);
    *open = openEdges(m);
    ENSURE_MSG(*open >= 0, "%s is not a consistently oriented manifold", name);
    for (int t = 0; t < m->ntri; t++) {
        double n[3], g[3], l2;
        triGeom(m, t, n, g, &l2);
        double d = n[0] * g[0] + (axisOnly ? 0.0 : n[1] * (g[1] - cy)) + n[2] * g[2];
        ENSURE_MSG(d < 0.0, "%s: triangle %d faces the wrong way", name, t);
    }
    return ALC_TEST_PASS;
}

/// Minimum triangle quality 4 sqrt(3) A / (sum of squared edges) (1 for equilateral).
static double minTriQuality(const alciMesh* m) {
    double q = 1e300;
    for (int t = 0; t < m->ntri; t++) {
        double n[3], g[3], l2;
        triGeom(m, t, n, g, &l2);
        q = fmin(q, 2.0 * sqrt(3.0) * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) / l2);
    }
    return q;
}

ALC_TEST(mesh_plane) {
    alciMesh m, m2;
    const double size[2] = {2.0, 4.0};
    ENSURE_OK(alci_mesh_plane(size, 3, &m));
    ENSURE(m.nvert == 16 && m.ntri == 18);
    // normals +y: every triangle faces the point (0, 1, 0) above the plane
    int open, r = checkSurface(&m, "plane", 1.0, 0, &open);
    double vol, area, q = minTriQuality(&m);
    surfaceSums(&m, &vol, &area);
    ENSURE_OK(alci_mesh_plane(size, 3, &m2));
    int same = sameMesh(&m, &m2);
    alci_mesh_free(&m);
    alci_mesh_free(&m2);
    ENSURE(r == ALC_TEST_PASS && same && open == 12);
    ENSURE_NEAR(area, 8.0, 1e-14);
    ENSURE(q > 0.5);
    ENSURE(alci_mesh_plane(size, 0, &m) == ALC_ERR_INVALID_ARG);
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_boxSurface) {
    const double size[3] = {1.0, 2.0, 3.0};
    for (int closed = 0; closed < 2; closed++) {
        alciMesh m, m2;
        ENSURE_OK(alci_mesh_boxSurface(size, 2, closed, &m));
        ENSURE(m.nvert == (closed ? 26 : 25) && m.ntri == (closed ? 48 : 40));
        int open, r = checkSurface(&m, "boxSurface", 0.0, 0, &open);
        double vol, area;
        surfaceSums(&m, &vol, &area);
        ENSURE_OK(alci_mesh_boxSurface(size, 2, closed, &m2));
        int same = sameMesh(&m, &m2);
        alci_mesh_free(&m);
        alci_mesh_free(&m2);
        if (r != ALC_TEST_PASS) return r;
        ENSURE(same);
        // closed: no rim and the enclosed volume counts negative (normals inward); the well
        // misses the lid (its share of the divergence sum is -V/6 with y half-size 1)
        ENSURE(open == (closed ? 0 : 8));
        ENSURE_NEAR(vol, closed ? -6.0 : -5.0, 1e-13);
        ENSURE_NEAR(area, closed ? 22.0 : 19.0, 1e-13);
    }
    alciMesh m;
    ENSURE(alci_mesh_boxSurface(size, 0, 1, &m) == ALC_ERR_INVALID_ARG);
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_bowl) {
    const double radius = 2.0;
    double prevErr = 1.0;
    for (int res = 1; res <= 12; res++) {
        alciMesh m, m2;
        ENSURE_OK(alci_mesh_bowl(radius, res, &m));
        ENSURE(m.nvert == 1 + 3 * res * (res + 1) && m.ntri == 6 * res * res);
        int open, r = checkSurface(&m, "bowl", 0.0, 0, &open);
        double vol, area, q = minTriQuality(&m), dr = 0.0, ymax = -1.0;
        surfaceSums(&m, &vol, &area);
        for (int i = 0; i < m.nvert; i++) {
            const double* p = m.vert + 3 * i;
            dr = fmax(dr, fabs(sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - radius));
            ymax = fmax(ymax, p[1]);
        }
        ENSURE_OK(alci_mesh_bowl(radius, res, &m2));
        int same = sameMesh(&m, &m2);
        alci_mesh_free(&m);
        alci_mesh_free(&m2);
        if (r != ALC_TEST_PASS) return r;
        double err = area / (2.0 * M_PI * radius * radius) - 1.0;
        if (res % 3 == 0 || res < 3) {
            alct_note("bowl res %2d: min triangle quality %.4f, area error %+.3f%%", res, q,
                      100 * err);
        }
        ENSURE(same && open == 6 * res && dr < 1e-14 && ymax == 0.0);
        ENSURE_MSG(q > 0.5, "res %d: triangle quality %.4f", res, q);
        ENSURE_MSG(err < 0.0 && fabs(err) < prevErr, "res %d: area error %g", res, err);
        prevErr = fabs(err);
    }
    alciMesh m;
    ENSURE(alci_mesh_bowl(0.0, 4, &m) == ALC_ERR_INVALID_ARG);
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_funnel) {
    const double rTop = 1.0, rBottom = 0.25, height = 1.5;
    const double exact = M_PI * (rTop + rBottom) * hypot(height, rTop - rBottom);
    for (int res = 3; res <= 48; res *= 2) {
        alciMesh m, m2;
        ENSURE_OK(alci_mesh_funnel(rTop, rBottom, height, res, &m));
        int open, r = checkSurface(&m, "funnel", 0.0, 1, &open);
        double vol, area, q = minTriQuality(&m), ymin = 1e9, ymax = -1e9;
        surfaceSums(&m, &vol, &area);
        for (int i = 0; i < m.nvert; i++) {
            ymin = fmin(ymin, m.vert[3 * i + 1]);
            ymax = fmax(ymax, m.vert[3 * i + 1]);
        }
        ENSURE_OK(alci_mesh_funnel(rTop, rBottom, height, res, &m2));
        int same = sameMesh(&m, &m2);
        alci_mesh_free(&m);
        alci_mesh_free(&m2);
        if (r != ALC_TEST_PASS) return r;
        double err = area / exact - 1.0;
        alct_note("funnel res %2d: min triangle quality %.4f, area error %+.3f%%", res, q,
                  100 * err);
        ENSURE(same && open == 2 * res && ymin == -0.5 * height && ymax == 0.5 * height);
        ENSURE_MSG(q > 0.3, "res %d: triangle quality %.4f", res, q);
        if (res >= 24) ENSURE(fabs(err) < 0.01);
    }
    alciMesh m;
    ENSURE(alci_mesh_funnel(1.0, 0.0, 1.0, 8, &m) == ALC_ERR_INVALID_ARG);
    ENSURE(alci_mesh_funnel(1.0, 0.5, 1.0, 2, &m) == ALC_ERR_INVALID_ARG);
    return ALC_TEST_PASS;
}

// ---- validation and topology -------------------------------------------------------------

/// Expect validation to fail with a message containing phrase.
static int expectInvalid(alciMesh* m, const char* phrase) {
    char err[ERRSZ];
    ENSURE(alci_mesh_validate(m, 1, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, phrase), "'%s' lacks '%s'", err, phrase);
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_validate) {
    char err[ERRSZ];
    double v[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0};
    int t[4] = {0, 1, 3, 2};
    alciMesh m = {4, 1, 0, v, t, NULL};
    // inverted: reported with its vertices and volume, or reoriented
    ENSURE(alci_mesh_validate(&m, 0, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "tetrahedron 0 (vertices 0 1 3 2) is inverted (volume -0.167)"), "%s",
               err);
    ENSURE(t[0] == 0 && t[1] == 1 && t[2] == 3 && t[3] == 2);
    ENSURE_OK(alci_mesh_validate(&m, 1, err, ERRSZ));
    ENSURE(t[0] == 0 && t[1] == 1 && t[2] == 2 && t[3] == 3 && err[0] == 0);
    ENSURE_OK(alci_mesh_validate(&m, 0, NULL, 0));
    // a tiny tetrahedron is fine (the test is relative to its size)
    for (int i = 0; i < 12; i++) v[i] *= 1e-7;
    ENSURE_OK(alci_mesh_validate(&m, 0, err, ERRSZ));
    for (int i = 0; i < 12; i++) v[i] *= 1e7;
    // degenerate: four coplanar points
    m.nvert = 5;
    t[3] = 4;
    if (expectInvalid(&m, "tetrahedron 0 (vertices 0 1 2 4) is degenerate")) return ALC_TEST_FAIL;
    t[3] = 5;
    if (expectInvalid(&m, "tetrahedron 0 refers to vertex 5, but only 5 vertices exist")) {
        return ALC_TEST_FAIL;
    }
    t[3] = -1;
    if (expectInvalid(&m, "refers to vertex -1")) return ALC_TEST_FAIL;
    t[3] = 1;
    if (expectInvalid(&m, "tetrahedron 0 uses vertex 1 twice")) return ALC_TEST_FAIL;
    t[3] = 3;
    v[7] = nan("");
    if (expectInvalid(&m, "vertex 2 has a non-finite coordinate")) return ALC_TEST_FAIL;
    v[7] = HUGE_VAL;
    if (expectInvalid(&m, "vertex 2 has a non-finite coordinate")) return ALC_TEST_FAIL;
    v[7] = 1.0;
    // empty meshes
    alciMesh empty = {0, 0, 0, NULL, NULL, NULL};
    if (expectInvalid(&empty, "mesh is empty: no vertices")) return ALC_TEST_FAIL;
    alciMesh bare = {4, 0, 0, v, NULL, NULL};
    if (expectInvalid(&bare, "no tetrahedra and no triangles")) return ALC_TEST_FAIL;
    ENSURE(alci_mesh_validate(NULL, 0, err, ERRSZ) == ALC_ERR_INVALID_ARG);
    // surfaces: triangles with zero area are refused
    int tri[6] = {0, 1, 2, 0, 1, 4};
    alciMesh s = {5, 0, 1, v, NULL, tri};
    ENSURE_OK(alci_mesh_validate(&s, 0, err, ERRSZ));
    double line[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    alciMesh flat = {3, 0, 1, line, NULL, tri};
    if (expectInvalid(&flat, "triangle 0 (vertices 0 1 2) is degenerate")) return ALC_TEST_FAIL;
    s.ntri = 2;
    tri[5] = 7;
    if (expectInvalid(&s, "triangle 1 refers to vertex 7, but only 5 vertices exist")) {
        return ALC_TEST_FAIL;
    }
    return ALC_TEST_PASS;
}

ALC_TEST(mesh_boundaryEdges) {
    char err[ERRSZ];
    // a single tetrahedron (either orientation): 4 outward faces, 6 edges
    for (int flip = 0; flip < 2; flip++) {
        double v[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
        int t[4] = {0, 1, flip ? 3 : 2, flip ? 2 : 3};
        alciMesh m = {4, 1, 0, v, t, NULL};
        ENSURE_OK(alci_mesh_boundary(&m, err, ERRSZ));
        ENSURE(m.ntri == 4 && openEdges(&m) == 0);
        double vol, area;
        surfaceSums(&m, &vol, &area);
        ENSURE_NEAR(vol, 1.0 / 6.0, 1e-15);
        int* e = NULL;
        int ne = 0;
        ENSURE_OK(alci_mesh_edges(m.tri, m.ntri, &e, &ne));
        static const int expect[12] = {0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3};
        int ok = ne == 6 && memcmp(e, expect, sizeof expect) == 0;
        free(e);
        free(m.tri);
        ENSURE(ok);
    }
    // a 2x2x2 box: 6 faces x 4 squares x 2 triangles, 3/2 edges per triangle, 26 vertices
    alciMesh b;
    const double size[3] = {1.0, 1.0, 1.0};
    const int n[3] = {2, 2, 2};
    ENSURE_OK(alci_mesh_box(size, n, &b));
    ENSURE_OK(alci_mesh_boundary(&b, err, ERRSZ));
    int* e = NULL;
    int ne = 0;
    ENSURE_OK(alci_mesh_edges(b.tri, b.ntri, &e, &ne));
    int sorted = 1;
    for (int i = 0; i < ne; i++) {
        sorted &= e[2 * i] < e[2 * i + 1];
        if (i > 0) sorted &= cmpPair(e + 2 * i - 2, e + 2 * i) < 0;
    }
    free(e);
    int ntri = b.ntri;
    // the boundary order is deterministic (sorted by face)
    int ordered = 1;
    for (int i = 1; i < b.ntri; i++) ordered &= b.tri[3 * i - 3] <= b.tri[3 * i];
    alci_mesh_free(&b);
    ENSURE(ntri == 48 && ne == 72 && sorted && ordered);
    // 3 tetrahedra on one face: non-manifold
    double v[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0.2, 0.2, 2};
    int t[12] = {0, 1, 2, 3, 0, 2, 1, 4, 0, 1, 2, 5};
    alciMesh m = {6, 3, 0, v, t, NULL};
    ENSURE(alci_mesh_boundary(&m, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "face (0 1 2) is shared by 3 tetrahedra"), "%s", err);
    // two tetrahedra glued on a face: 6 boundary faces; bad index refused
    m.ntet = 2;
    ENSURE_OK(alci_mesh_boundary(&m, err, ERRSZ));
    ENSURE(m.ntri == 6 && openEdges(&m) == 0);
    free(m.tri);
    m.tri = NULL;
    t[7] = 6;
    ENSURE(alci_mesh_boundary(&m, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "tetrahedron 1 refers to vertex 6"), "%s", err);
    // edges: empty list, bad input
    ENSURE_OK(alci_mesh_edges(NULL, 0, &e, &ne));
    ENSURE(e == NULL && ne == 0);
    int bad[3] = {0, -1, 2};
    ENSURE(alci_mesh_edges(bad, 1, &e, &ne) == ALC_ERR_INVALID_ARG && e == NULL);
    return ALC_TEST_PASS;
}
