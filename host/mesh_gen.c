// Procedural tetrahedral solids: box, ball, cylinder, torus. Each is a structured grid of
// hexahedral cells mapped into the shape and split into 6 tetrahedra (Kuhn/Freudenthal split).
#include "mesh.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/// A structured grid of n[0] x n[1] x n[2] cells; axis 2 may wrap around (periodic).
typedef struct {
    int n[3];       // cells along each axis
    int periodic;   // axis 2 wraps: layer n[2] is layer 0
    int mirror[3];  // per axis: the cell diagonal points away from the grid's middle plane
} HexGrid;

// the 6 axis orders of the Kuhn split and their permutation signs
static const int kPerm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
static const int kPermSign[6] = {1, -1, -1, 1, 1, -1};

static int gridLayers(const HexGrid* g) {
    return g->periodic ? g->n[2] : g->n[2] + 1;
}

static int gridIndex(const HexGrid* g, const int ijk[3]) {
    int k = ijk[2];
    if (g->periodic && k >= g->n[2]) k -= g->n[2];
    return ijk[0] + (g->n[0] + 1) * (ijk[1] + (g->n[1] + 1) * k);
}

static double tetVolume(const double* v, const int* t) {
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
    return (e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] - e2[2] * e3[0]) +
            e1[2] * (e2[0] * e3[1] - e2[1] * e3[0])) /
           6.0;
}

/// Allocate the vertex array of a grid mesh and check that the sizes fit in int.
static alctStatus gridAlloc(const HexGrid* g, alciMesh* mesh) {
    memset(mesh, 0, sizeof *mesh);
    double nv = (double)(g->n[0] + 1) * (double)(g->n[1] + 1) * (double)gridLayers(g);
    double nt = 6.0 * (double)g->n[0] * (double)g->n[1] * (double)g->n[2];
    if (nv * 3.0 > (double)INT_MAX || nt * 4.0 > (double)INT_MAX) return ALC_ERR_INVALID_ARG;
    mesh->nvert = (int)nv;
    mesh->ntet = (int)nt;
    mesh->vert = (double*)malloc((size_t)mesh->nvert * 3 * sizeof(double));
    mesh->tet = (int*)malloc((size_t)mesh->ntet * 4 * sizeof(int));
    if (!mesh->vert || !mesh->tet) {
        alci_mesh_free(mesh);
        return ALC_ERR_NOMEM;
    }
    return ALC_OK;
}

/// Split every cell into 6 tetrahedra and check that each has positive volume. The vertex
/// positions must already be filled in (index space orientation is assumed to be preserved).
static alctStatus gridTets(const HexGrid* g, alciMesh* mesh) {
    int* t = mesh->tet;
    int c[3];
    for (c[2] = 0; c[2] < g->n[2]; c[2]++) {
        for (c[1] = 0; c[1] < g->n[1]; c[1]++) {
            for (c[0] = 0; c[0] < g->n[0]; c[0]++) {
                // diagonal direction: + everywhere, or away from the middle plane if mirrored
                int s[3], o[3];
                for (int a = 0; a < 3; a++) {
                    s[a] = (g->mirror[a] && 2 * c[a] + 1 < g->n[a]) ? -1 : 1;
                    o[a] = c[a] + (s[a] > 0 ? 0 : 1);
                }
                // walk from the start corner along the three axes in each of the 6 orders
                for (int p = 0; p < 6; p++) {
                    int cur[3] = {o[0], o[1], o[2]};
                    t[0] = gridIndex(g, cur);
                    for (int step = 0; step < 3; step++) {
                        cur[kPerm[p][step]] += s[kPerm[p][step]];
                        t[step + 1] = gridIndex(g, cur);
                    }
                    if (s[0] * s[1] * s[2] * kPermSign[p] < 0) {
                        int tmp = t[2];
                        t[2] = t[3];
                        t[3] = tmp;
                    }
                    t += 4;
                }
            }
        }
    }
    // the map must keep every tetrahedron positive (fails only for too coarse a torus)
    for (int i = 0; i < mesh->ntet; i++) {
        if (!(tetVolume(mesh->vert, mesh->tet + 4 * i) > 0.0)) {
            alci_mesh_free(mesh);
            return ALC_ERR_INVALID_ARG;
        }
    }
    return ALC_OK;
}

/// Map a point of the square [-1,1]^2 to the unit disk, keeping the square shells as rings:
/// q = |p|_inf, u = p / q on the square's boundary, s(u) = (u0 sqrt(1 - u1^2/2), u1 ...).
static void squareToDisk(double x, double y, double out[2]) {
    double q = fmax(fabs(x), fabs(y));
    if (q == 0.0) {
        out[0] = out[1] = 0.0;
        return;
    }
    double u = x / q, v = y / q;
    out[0] = q * u * sqrt(1.0 - 0.5 * v * v);
    out[1] = q * v * sqrt(1.0 - 0.5 * u * u);
}

/// Map a point of the cube [-1,1]^3 to the unit ball, keeping the cube shells as spheres.
static void cubeToBall(const double p[3], double out[3]) {
    double q = fmax(fabs(p[0]), fmax(fabs(p[1]), fabs(p[2])));
    if (q == 0.0) {
        out[0] = out[1] = out[2] = 0.0;
        return;
    }
    double x = p[0] / q, y = p[1] / q, z = p[2] / q;
    double x2 = x * x, y2 = y * y, z2 = z * z;
    out[0] = q * x * sqrt(1.0 - 0.5 * y2 - 0.5 * z2 + y2 * z2 / 3.0);
    out[1] = q * y * sqrt(1.0 - 0.5 * z2 - 0.5 * x2 + z2 * x2 / 3.0);
    out[2] = q * z * sqrt(1.0 - 0.5 * x2 - 0.5 * y2 + x2 * y2 / 3.0);
}

/// Coordinate of grid line i of n on [-1, 1], exactly 0 at the middle when n is even.
static double gridCoord(int i, int n) {
    return (double)(2 * i - n) / (double)n;
}

static int finitePositive(double x) {
    return isfinite(x) && x > 0.0;
}

alctStatus alci_mesh_box(const double size[3], const int n[3], alciMesh* mesh) {
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!size || !n) return ALC_ERR_INVALID_ARG;
    for (int a = 0; a < 3; a++) {
        if (!finitePositive(size[a]) || n[a] < 1) return ALC_ERR_INVALID_ARG;
    }
    HexGrid g = {{n[0], n[1], n[2]}, 0, {0, 0, 0}};
    alctStatus s = gridAlloc(&g, mesh);
    if (s != ALC_OK) return s;
    // vertices: regular lattice centred at the origin
    double* v = mesh->vert;
    for (int k = 0; k <= n[2]; k++) {
        for (int j = 0; j <= n[1]; j++) {
            for (int i = 0; i <= n[0]; i++) {
                *v++ = 0.5 * size[0] * gridCoord(i, n[0]);
                *v++ = 0.5 * size[1] * gridCoord(j, n[1]);
                *v++ = 0.5 * size[2] * gridCoord(k, n[2]);
            }
        }
    }
    return gridTets(&g, mesh);
}

alctStatus alci_mesh_sphere(double radius, int res, alciMesh* mesh) {
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!finitePositive(radius) || res < 2) return ALC_ERR_INVALID_ARG;
    HexGrid g = {{res, res, res}, 0, {1, 1, 1}};
    alctStatus s = gridAlloc(&g, mesh);
    if (s != ALC_OK) return s;
    // vertices: cube lattice mapped shell by shell onto the ball
    double* v = mesh->vert;
    for (int k = 0; k <= res; k++) {
        for (int j = 0; j <= res; j++) {
            for (int i = 0; i <= res; i++) {
                double p[3] = {gridCoord(i, res), gridCoord(j, res), gridCoord(k, res)};
                cubeToBall(p, v);
                for (int a = 0; a < 3; a++) v[a] *= radius;
                v += 3;
            }
        }
    }
    return gridTets(&g, mesh);
}

alctStatus alci_mesh_cylinder(double radius, double height, int resRadial, int resHeight,
                              alciMesh* mesh) {
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!finitePositive(radius) || !finitePositive(height) || resRadial < 2 || resHeight < 1) {
        return ALC_ERR_INVALID_ARG;
    }
    // grid axes: x, y (the cylinder axis), z
    HexGrid g = {{resRadial, resHeight, resRadial}, 0, {1, 0, 1}};
    alctStatus s = gridAlloc(&g, mesh);
    if (s != ALC_OK) return s;
    // vertices: square cross-section mapped onto the disk, stacked along y
    double* v = mesh->vert;
    for (int k = 0; k <= resRadial; k++) {
        for (int j = 0; j <= resHeight; j++) {
            for (int i = 0; i <= resRadial; i++) {
                double d[2];
                squareToDisk(gridCoord(i, resRadial), gridCoord(k, resRadial), d);
                *v++ = radius * d[0];
                *v++ = 0.5 * height * gridCoord(j, resHeight);
                *v++ = radius * d[1];
            }
        }
    }
    return gridTets(&g, mesh);
}

alctStatus alci_mesh_torus(double R, double r, int resMajor, int resMinor, alciMesh* mesh) {
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!finitePositive(R) || !finitePositive(r) || !(r < R) || resMajor < 3 || resMinor < 2) {
        return ALC_ERR_INVALID_ARG;
    }
    // grid axes: radial (in the ring plane), y, angle around the ring (periodic)
    HexGrid g = {{resMinor, resMinor, resMajor}, 1, {1, 1, 0}};
    alctStatus s = gridAlloc(&g, mesh);
    if (s != ALC_OK) return s;
    // vertices: the disk cross-section swept around the y axis; layer resMajor is layer 0
    const double twoPi = 6.283185307179586;
    double* v = mesh->vert;
    for (int k = 0; k < resMajor; k++) {
        double th = twoPi * (double)k / (double)resMajor;
        for (int j = 0; j <= resMinor; j++) {
            for (int i = 0; i <= resMinor; i++) {
                double d[2];
                squareToDisk(gridCoord(i, resMinor), gridCoord(j, resMinor), d);
                double rho = R + r * d[0];
                *v++ = rho * cos(th);
                *v++ = r * d[1];
                *v++ = rho * sin(th);
            }
        }
    }
    return gridTets(&g, mesh);
}

alctStatus alci_mesh_ringSegment(double ri, double ro, double a0, double a1, double depth,
                                 const int n[3], alciMesh* mesh) {
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!n || !finitePositive(ri) || !(ro > ri) || !isfinite(ro) || !finitePositive(depth) ||
        !isfinite(a0) || !(a1 > a0) || !(a1 - a0 < 6.283185307179586) || n[0] < 1 || n[1] < 1 ||
        n[2] < 1) {
        return ALC_ERR_INVALID_ARG;
    }
    // grid axes: radius, angle, depth; (r, theta, z) is right-handed, so cells keep orientation
    HexGrid g = {{n[0], n[1], n[2]}, 0, {0, 0, 0}};
    alctStatus s = gridAlloc(&g, mesh);
    if (s != ALC_OK) return s;
    double* v = mesh->vert;
    for (int k = 0; k <= n[2]; k++) {
        for (int j = 0; j <= n[1]; j++) {
            double th = a0 + (a1 - a0) * (double)j / (double)n[1];
            for (int i = 0; i <= n[0]; i++) {
                double r = ri + (ro - ri) * (double)i / (double)n[0];
                *v++ = r * cos(th);
                *v++ = r * sin(th);
                *v++ = 0.5 * depth * gridCoord(k, n[2]);
            }
        }
    }
    return gridTets(&g, mesh);
}
