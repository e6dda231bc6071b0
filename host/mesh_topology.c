// Mesh checks and derived topology: validation (finite, in range, non-degenerate, positively
// oriented), boundary faces of a tetrahedral mesh, unique edges of a triangle list.
#include "mesh.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Relative size below which a tetrahedron (|V| / L^3) or triangle (|n| / L^2) is degenerate.
#define DEGENERATE_TOL 1e-12

__attribute__((format(printf, 3, 4))) static alctStatus fail(char* err, int errsz, const char* fmt,
                                                             ...) {
    if (err && errsz > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, (size_t)errsz, fmt, ap);
        va_end(ap);
    }
    return ALC_ERR_SCENE;
}

static double dist2(const double* a, const double* b) {
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz;
}

/// Signed volume of tetrahedron t; longest squared edge in *l2.
static double tetVolume(const double* v, const int* t, double* l2) {
    const double* a = v + 3 * t[0];
    const double* b = v + 3 * t[1];
    const double* c = v + 3 * t[2];
    const double* d = v + 3 * t[3];
    double e1[3], e2[3], e3[3];
    for (int i = 0; i < 3; i++) {
        e1[i] = b[i] - a[i];
        e2[i] = c[i] - a[i];
        e3[i] = d[i] - a[i];
    }
    if (l2) {
        double m = 0.0;
        for (int i = 0; i < 4; i++) {
            for (int j = i + 1; j < 4; j++) m = fmax(m, dist2(v + 3 * t[i], v + 3 * t[j]));
        }
        *l2 = m;
    }
    return (e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] - e2[2] * e3[0]) +
            e1[2] * (e2[0] * e3[1] - e2[1] * e3[0])) /
           6.0;
}

alctStatus alci_mesh_checkIndices(const int* elem, int n, int k, int nvert, int distinct,
                                  const char* what, char* err, int errsz) {
    for (int e = 0; e < n; e++) {
        const int* x = elem + (size_t)k * e;
        for (int i = 0; i < k; i++) {
            if (x[i] < 0 || x[i] >= nvert) {
                return fail(err, errsz, "%s %d refers to vertex %d, but only %d vertices exist",
                            what, e, x[i], nvert);
            }
            for (int j = 0; j < i && distinct; j++) {
                if (x[i] == x[j]) {
                    return fail(err, errsz, "%s %d uses vertex %d twice", what, e, x[i]);
                }
            }
        }
    }
    return ALC_OK;
}

/// True when every tetrahedron with valid indices has negative signed volume.
static int allNegative(const alciMesh* mesh) {
    for (int t = 0; t < mesh->ntet; t++) {
        const int* v = mesh->tet + 4 * t;
        for (int k = 0; k < 4; k++) {
            if (v[k] < 0 || v[k] >= mesh->nvert) return 0;
        }
        const double* a = mesh->vert + 3 * v[0];
        double e[3][3];
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 3; j++) e[k][j] = mesh->vert[3 * v[k + 1] + j] - a[j];
        }
        double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                     e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                     e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
        if (!(det < 0)) return 0;
    }
    return mesh->ntet > 0;
}

int alci_mesh_orientConsistently(alciMesh* mesh) {
    if (!mesh || mesh->ntet <= 0 || !allNegative(mesh)) return 0;
    for (int t = 0; t < mesh->ntet; t++) {
        int tmp = mesh->tet[4 * t + 1];
        mesh->tet[4 * t + 1] = mesh->tet[4 * t + 2];
        mesh->tet[4 * t + 2] = tmp;
    }
    return 1;
}

alctStatus alci_mesh_validate(alciMesh* mesh, int fixInverted, char* err, int errsz) {
    if (err && errsz > 0) err[0] = 0;
    if (!mesh) return ALC_ERR_INVALID_ARG;
    if (mesh->nvert < 0 || mesh->ntet < 0 || mesh->ntri < 0) {
        return fail(err, errsz, "negative count (nvert %d, ntet %d, ntri %d)", mesh->nvert,
                    mesh->ntet, mesh->ntri);
    }
    if (mesh->nvert == 0 || !mesh->vert) return fail(err, errsz, "mesh is empty: no vertices");
    if (mesh->ntet == 0 && mesh->ntri == 0) {
        return fail(err, errsz, "mesh is empty: no tetrahedra and no triangles");
    }
    if ((mesh->ntet > 0 && !mesh->tet) || (mesh->ntri > 0 && !mesh->tri)) {
        return fail(err, errsz, "element array is missing");
    }
    // finite coordinates
    for (int i = 0; i < mesh->nvert; i++) {
        const double* p = mesh->vert + 3 * (size_t)i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
            return fail(err, errsz, "vertex %d has a non-finite coordinate (%g %g %g)", i, p[0],
                        p[1], p[2]);
        }
    }
    // indices
    alctStatus s =
        alci_mesh_checkIndices(mesh->tet, mesh->ntet, 4, mesh->nvert, 1, "tetrahedron", err, errsz);
    if (s != ALC_OK) return s;
    s = alci_mesh_checkIndices(mesh->tri, mesh->ntri, 3, mesh->nvert, 1, "triangle", err, errsz);
    if (s != ALC_OK) return s;
    // tetrahedra: not degenerate, positively oriented (or reoriented)
    for (int e = 0; e < mesh->ntet; e++) {
        int* t = mesh->tet + 4 * (size_t)e;
        double l2;
        double vol = tetVolume(mesh->vert, t, &l2);
        if (!(fabs(vol) > DEGENERATE_TOL * l2 * sqrt(l2))) {
            return fail(err, errsz,
                        "tetrahedron %d (vertices %d %d %d %d) is degenerate (volume %.3g, "
                        "longest edge %.3g)",
                        e, t[0], t[1], t[2], t[3], vol, sqrt(l2));
        }
        if (vol < 0.0) {
            if (!fixInverted) {
                return fail(err, errsz,
                            "tetrahedron %d (vertices %d %d %d %d) is inverted (volume %.3g)", e,
                            t[0], t[1], t[2], t[3], vol);
            }
            int tmp = t[2];
            t[2] = t[3];
            t[3] = tmp;
        }
    }
    // triangles: non-zero area
    for (int e = 0; e < mesh->ntri; e++) {
        const int* t = mesh->tri + 3 * (size_t)e;
        const double* a = mesh->vert + 3 * (size_t)t[0];
        const double* b = mesh->vert + 3 * (size_t)t[1];
        const double* c = mesh->vert + 3 * (size_t)t[2];
        double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                       e1[0] * e2[1] - e1[1] * e2[0]};
        double l2 = fmax(dist2(a, b), fmax(dist2(b, c), dist2(c, a)));
        double area2 = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(area2 > DEGENERATE_TOL * l2)) {
            return fail(err, errsz,
                        "triangle %d (vertices %d %d %d) is degenerate (area %.3g, longest edge "
                        "%.3g)",
                        e, t[0], t[1], t[2], 0.5 * area2, sqrt(l2));
        }
    }
    return ALC_OK;
}

/// A tetrahedron face: sorted vertices (key) and the outward-oriented face.
typedef struct {
    int key[3];
    int face[3];
} Face;

static int cmpFace(const void* pa, const void* pb) {
    const Face* a = (const Face*)pa;
    const Face* b = (const Face*)pb;
    for (int i = 0; i < 3; i++) {
        if (a->key[i] != b->key[i]) return a->key[i] < b->key[i] ? -1 : 1;
    }
    for (int i = 0; i < 3; i++) {
        if (a->face[i] != b->face[i]) return a->face[i] < b->face[i] ? -1 : 1;
    }
    return 0;
}

static void sort3(int k[3]) {
    if (k[0] > k[1]) {
        int t = k[0];
        k[0] = k[1];
        k[1] = t;
    }
    if (k[1] > k[2]) {
        int t = k[1];
        k[1] = k[2];
        k[2] = t;
    }
    if (k[0] > k[1]) {
        int t = k[0];
        k[0] = k[1];
        k[1] = t;
    }
}

alctStatus alci_mesh_boundary(alciMesh* mesh, char* err, int errsz) {
    if (err && errsz > 0) err[0] = 0;
    if (!mesh || mesh->ntet < 0 || (mesh->ntet > 0 && !mesh->tet)) return ALC_ERR_INVALID_ARG;
    if (mesh->ntet == 0) return fail(err, errsz, "mesh has no tetrahedra");
    if (mesh->ntet > INT_MAX / 4) return ALC_ERR_INVALID_ARG;
    int nface = 4 * mesh->ntet;
    Face* f = (Face*)malloc((size_t)nface * sizeof(Face));
    if (!f) return ALC_ERR_NOMEM;
    // outward faces of a positive tetrahedron (a b c d): (a c b) (a b d) (b c d) (a d c)
    static const int kFace[4][3] = {{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}};
    for (int e = 0; e < mesh->ntet; e++) {
        const int* t = mesh->tet + 4 * (size_t)e;
        for (int i = 0; i < 4; i++) {
            if (t[i] < 0 || (mesh->vert && t[i] >= mesh->nvert)) {
                free(f);
                return fail(err, errsz,
                            "tetrahedron %d refers to vertex %d, but only %d vertices exist", e,
                            t[i], mesh->nvert);
            }
        }
        int flip = mesh->vert && mesh->nvert > 0 && tetVolume(mesh->vert, t, NULL) < 0.0;
        for (int i = 0; i < 4; i++) {
            Face* x = f + 4 * e + i;
            x->face[0] = t[kFace[i][0]];
            x->face[1] = t[kFace[i][flip ? 2 : 1]];
            x->face[2] = t[kFace[i][flip ? 1 : 2]];
            // rotate so that the smallest index comes first (same orientation)
            while (x->face[0] > x->face[1] || x->face[0] > x->face[2]) {
                int tmp = x->face[0];
                x->face[0] = x->face[1];
                x->face[1] = x->face[2];
                x->face[2] = tmp;
            }
            memcpy(x->key, x->face, sizeof x->key);
            sort3(x->key);
        }
    }
    qsort(f, (size_t)nface, sizeof(Face), cmpFace);
    // faces that occur once are boundary; more than twice is non-manifold
    int nb = 0;
    for (int i = 0; i < nface;) {
        int j = i + 1;
        while (j < nface && memcmp(f[j].key, f[i].key, sizeof f[i].key) == 0) j++;
        if (j - i > 2) {
            alctStatus s =
                fail(err, errsz, "face (%d %d %d) is shared by %d tetrahedra (non-manifold)",
                     f[i].key[0], f[i].key[1], f[i].key[2], j - i);
            free(f);
            return s;
        }
        if (j - i == 1) f[nb++] = f[i];
        i = j;
    }
    int* tri = (int*)malloc((size_t)(nb > 0 ? nb : 1) * 3 * sizeof(int));
    if (!tri) {
        free(f);
        return ALC_ERR_NOMEM;
    }
    for (int i = 0; i < nb; i++) memcpy(tri + 3 * i, f[i].face, 3 * sizeof(int));
    free(f);
    free(mesh->tri);
    mesh->tri = tri;
    mesh->ntri = nb;
    return ALC_OK;
}

static int cmpEdge(const void* pa, const void* pb) {
    const int* a = (const int*)pa;
    const int* b = (const int*)pb;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    if (a[1] != b[1]) return a[1] < b[1] ? -1 : 1;
    return 0;
}

alctStatus alci_mesh_edges(const int* tri, int ntri, int** edges, int* nedge) {
    if (!edges || !nedge) return ALC_ERR_INVALID_ARG;
    *edges = NULL;
    *nedge = 0;
    if (ntri < 0 || ntri > INT_MAX / 6 || (ntri > 0 && !tri)) return ALC_ERR_INVALID_ARG;
    if (ntri == 0) return ALC_OK;
    // all 3 ntri edges, ascending
    int n = 3 * ntri;
    int* e = (int*)malloc((size_t)n * 2 * sizeof(int));
    if (!e) return ALC_ERR_NOMEM;
    for (int t = 0; t < ntri; t++) {
        for (int i = 0; i < 3; i++) {
            int a = tri[3 * (size_t)t + i], b = tri[3 * (size_t)t + (i + 1) % 3];
            if (a < 0 || b < 0 || a == b) {
                free(e);
                return ALC_ERR_INVALID_ARG;
            }
            e[2 * (3 * t + i) + 0] = a < b ? a : b;
            e[2 * (3 * t + i) + 1] = a < b ? b : a;
        }
    }
    // sort and keep one of each
    qsort(e, (size_t)n, 2 * sizeof(int), cmpEdge);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m > 0 && e[2 * i] == e[2 * (m - 1)] && e[2 * i + 1] == e[2 * (m - 1) + 1]) continue;
        e[2 * m] = e[2 * i];
        e[2 * m + 1] = e[2 * i + 1];
        m++;
    }
    int* shrunk = (int*)realloc(e, (size_t)m * 2 * sizeof(int));
    *edges = shrunk ? shrunk : e;
    *nedge = m;
    return ALC_OK;
}
