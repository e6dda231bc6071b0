// Procedural obstacle surfaces (triangles only, welded vertices): plane, box well or closed box,
// hemispherical bowl, funnel. Each triangle is oriented by the surface's documented side.
#include "mesh.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double kTwoPi = 6.283185307179586;

static int finitePositive(double x) {
    return isfinite(x) && x > 0.0;
}

/// Allocate vertices and triangles, refusing sizes that do not fit in int.
static alctStatus surfAlloc(double nvert, double ntri, alciMesh* mesh) {
    memset(mesh, 0, sizeof *mesh);
    if (nvert * 3.0 > (double)INT_MAX || ntri * 3.0 > (double)INT_MAX) return ALC_ERR_INVALID_ARG;
    mesh->nvert = (int)nvert;
    mesh->ntri = (int)ntri;
    mesh->vert = (double*)malloc((size_t)mesh->nvert * 3 * sizeof(double));
    mesh->tri = (int*)malloc((size_t)mesh->ntri * 3 * sizeof(int));
    if (!mesh->vert || !mesh->tri) {
        alci_mesh_free(mesh);
        return ALC_ERR_NOMEM;
    }
    return ALC_OK;
}

/// Append triangle (a, b, c), flipped if its normal points away from the direction dir.
static void addTri(alciMesh* mesh, int* count, int a, int b, int c, const double dir[3]) {
    const double* p = mesh->vert + 3 * a;
    const double* q = mesh->vert + 3 * b;
    const double* r = mesh->vert + 3 * c;
    double e1[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    double e2[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    int* t = mesh->tri + 3 * (*count)++;
    t[0] = a;
    if (n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2] >= 0.0) {
        t[1] = b;
        t[2] = c;
    } else {
        t[1] = c;
        t[2] = b;
    }
}

alctStatus alci_mesh_plane(const double size[2], int res, alciMesh* mesh) {
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!size || !finitePositive(size[0]) || !finitePositive(size[1]) || res < 1 || res > 30000) {
        return ALC_ERR_INVALID_ARG;
    }
    int nv = res + 1;
    alctStatus s = surfAlloc((double)nv * nv, 2.0 * res * res, mesh);
    if (s != ALC_OK) return s;
    // vertices: (res+1)^2 lattice in xz, vertex (i, k) at i + nv * k
    for (int k = 0; k < nv; k++) {
        for (int i = 0; i < nv; i++) {
            double* v = mesh->vert + 3 * (i + nv * k);
            v[0] = size[0] * ((double)i / res - 0.5);
            v[1] = 0.0;
            v[2] = size[1] * ((double)k / res - 0.5);
        }
    }
    // two triangles per cell, normal +y
    const double up[3] = {0.0, 1.0, 0.0};
    int count = 0;
    for (int k = 0; k < res; k++) {
        for (int i = 0; i < res; i++) {
            int a = i + nv * k, b = a + 1, c = a + nv + 1, d = a + nv;
            addTri(mesh, &count, a, b, c, up);
            addTri(mesh, &count, a, c, d, up);
        }
    }
    return ALC_OK;
}

/// Lattice point (a, b) of box face f (-x +x -y +y -z +z): key i + n (j + n k), n = res + 1.
static long long faceKey(int f, int a, int b, int res) {
    int axis = f / 2, ijk[3];
    ijk[axis] = (f % 2) ? res : 0;
    ijk[(axis + 1) % 3] = a;
    ijk[(axis + 2) % 3] = b;
    long long n = res + 1;
    return ijk[0] + n * (ijk[1] + n * ijk[2]);
}

static int cmpKey(const void* pa, const void* pb) {
    long long a = *(const long long*)pa, b = *(const long long*)pb;
    return (a > b) - (a < b);
}

alctStatus alci_mesh_boxSurface(const double size[3], int res, int closed, alciMesh* mesh) {
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!size || res < 1 || res > 10000) return ALC_ERR_INVALID_ARG;
    for (int a = 0; a < 3; a++) {
        if (!finitePositive(size[a])) return ALC_ERR_INVALID_ARG;
    }
    // lattice keys of the points of the used faces (no +y lid when open), sorted and unique:
    // vertex v is the point key[v], so shared edges and corners are welded
    int n = res + 1;
    int nface = closed ? 6 : 5;
    size_t nkey = (size_t)nface * n * n;
    if (3.0 * (double)nkey > (double)INT_MAX) return ALC_ERR_INVALID_ARG;
    long long* key = (long long*)malloc(nkey * sizeof(long long));
    if (!key) return ALC_ERR_NOMEM;
    size_t m = 0;
    for (int f = 0; f < 6; f++) {
        if (f == 3 && !closed) continue;
        for (int b = 0; b < n; b++) {
            for (int a = 0; a < n; a++) key[m++] = faceKey(f, a, b, res);
        }
    }
    qsort(key, nkey, sizeof(long long), cmpKey);
    int nvert = 0;
    for (size_t i = 0; i < nkey; i++) {
        if (nvert == 0 || key[i] != key[nvert - 1]) key[nvert++] = key[i];
    }
    alctStatus s = surfAlloc(nvert, 2.0 * nface * res * res, mesh);
    if (s != ALC_OK) {
        free(key);
        return s;
    }
    for (int v = 0; v < nvert; v++) {
        long long i = key[v] % n, j = key[v] / n % n, k = key[v] / ((long long)n * n);
        mesh->vert[3 * v + 0] = size[0] * ((double)i / res - 0.5);
        mesh->vert[3 * v + 1] = size[1] * ((double)j / res - 0.5);
        mesh->vert[3 * v + 2] = size[2] * ((double)k / res - 0.5);
    }
    // two triangles per square, normals pointing inward
    int count = 0;
    for (int f = 0; f < 6; f++) {
        if (f == 3 && !closed) continue;
        double dir[3] = {0.0, 0.0, 0.0};
        dir[f / 2] = (f % 2) ? -1.0 : 1.0;
        for (int b = 0; b < res; b++) {
            for (int a = 0; a < res; a++) {
                int corner[4];
                for (int c = 0; c < 4; c++) {
                    long long k = faceKey(f, a + (c == 1 || c == 2), b + (c >= 2), res);
                    const long long* hit = (const long long*)bsearch(&k, key, (size_t)nvert,
                                                                     sizeof(long long), cmpKey);
                    corner[c] = (int)(hit - key);
                }
                addTri(mesh, &count, corner[0], corner[1], corner[2], dir);
                addTri(mesh, &count, corner[0], corner[2], corner[3], dir);
            }
        }
    }
    free(key);
    return ALC_OK;
}

/// Join ring A (na points from index a0, the first at angle phaseA segments) to ring B around
/// the y axis, merging the rings by angle. Triangles face the centre of the sphere through the
/// rings (throughCentre) or the y axis.
static void stitchRings(alciMesh* mesh, int* count, int a0, int na, double phaseA, int b0, int nb,
                        double phaseB, int throughCentre) {
    int i = 0, j = 0;
    while (i < na || j < nb) {
        // take the next point of the ring whose next point comes first around the circle
        double ta = (i + 1 + phaseA) / na, tb = (j + 1 + phaseB) / nb;
        int advanceA = j >= nb || (i < na && ta <= tb);
        int a = a0 + i % na, b = b0 + j % nb, c;
        if (advanceA) {
            c = a0 + (i + 1) % na;
            i++;
        } else {
            c = b0 + (j + 1) % nb;
            j++;
        }
        const double* p = mesh->vert + 3 * a;
        const double* q = mesh->vert + 3 * b;
        const double* r = mesh->vert + 3 * c;
        double dir[3] = {-(p[0] + q[0] + r[0]), throughCentre ? -(p[1] + q[1] + r[1]) : 0.0,
                         -(p[2] + q[2] + r[2])};
        addTri(mesh, count, a, b, c, dir);
    }
}

alctStatus alci_mesh_bowl(double radius, int res, alciMesh* mesh) {
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!finitePositive(radius) || res < 1 || res > 10000) return ALC_ERR_INVALID_ARG;
    // ring k (1..res) at polar angle (pi/2) k / res from the bottom pole, with 6k points
    alctStatus s = surfAlloc(1.0 + 3.0 * res * (res + 1.0), 6.0 * res * res, mesh);
    if (s != ALC_OK) return s;
    double* v = mesh->vert;
    v[0] = 0.0;
    v[1] = -radius;
    v[2] = 0.0;
    int first = 1;
    for (int k = 1; k <= res; k++) {
        double phi = 0.25 * kTwoPi * k / res;
        double rho = k == res ? radius : radius * sin(phi);
        double y = k == res ? 0.0 : -radius * cos(phi);
        for (int j = 0; j < 6 * k; j++) {
            double th = kTwoPi * (j + 0.5 * (k % 2)) / (6.0 * k);
            double* p = mesh->vert + 3 * (first + j);
            p[0] = rho * cos(th);
            p[1] = y;
            p[2] = rho * sin(th);
        }
        first += 6 * k;
    }
    // triangles: a fan around the pole, then strips between consecutive rings; the normals
    // point towards the centre of the sphere (the concave side)
    int count = 0;
    for (int j = 0; j < 6; j++) {
        const double* p = mesh->vert + 3 * (1 + j);
        double dir[3] = {-p[0], -p[1], -p[2]};
        addTri(mesh, &count, 0, 1 + j, 1 + (j + 1) % 6, dir);
    }
    first = 1;
    for (int k = 1; k < res; k++) {
        int next = first + 6 * k;
        stitchRings(mesh, &count, first, 6 * k, 0.5 * (k % 2), next, 6 * (k + 1),
                    0.5 * ((k + 1) % 2), 1);
        first = next;
    }
    return ALC_OK;
}

alctStatus alci_mesh_funnel(double rTop, double rBottom, double height, int res, alciMesh* mesh) {
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!finitePositive(rTop) || !finitePositive(rBottom) || !finitePositive(height) || res < 3 ||
        res > 1000000) {
        return ALC_ERR_INVALID_ARG;
    }
    // rows along the slant so that the triangles are about as tall as they are wide
    double slant = hypot(height, rTop - rBottom);
    double seg = kTwoPi * 0.5 * (rTop + rBottom) / res;
    double rowsD = ceil(slant / seg);
    if (rowsD > 1000000.0) return ALC_ERR_INVALID_ARG;
    int rows = rowsD < 1.0 ? 1 : (int)rowsD;
    alctStatus s = surfAlloc((rows + 1.0) * res, 2.0 * rows * res, mesh);
    if (s != ALC_OK) return s;
    // ring i (0 = bottom) has res points, staggered by half a segment on odd rings
    for (int i = 0; i <= rows; i++) {
        double f = (double)i / rows;
        double rho = rBottom + f * (rTop - rBottom);
        double y = height * (f - 0.5);
        for (int j = 0; j < res; j++) {
            double th = kTwoPi * (j + 0.5 * (i % 2)) / res;
            double* p = mesh->vert + 3 * (i * res + j);
            p[0] = rho * cos(th);
            p[1] = y;
            p[2] = rho * sin(th);
        }
    }
    // strips between rings, normals towards the axis
    int count = 0;
    for (int i = 0; i < rows; i++) {
        stitchRings(mesh, &count, i * res, res, 0.5 * (i % 2), (i + 1) * res, res,
                    0.5 * ((i + 1) % 2), 0);
    }
    return ALC_OK;
}
