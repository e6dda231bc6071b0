// Mass properties of a rigid body (issue 17): volume integrals over a closed triangle surface
// (divergence theorem, one tetrahedron per triangle and a reference point, as in Mirtich 1996 and
// Eberly "Polyhedral mass properties") or over tetrahedra, then the principal frame.
#include "rigid_mass.h"

#include "alc_internal.h"
#include "hd/alcm_svd.h"
#include "mesh.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Relative volume (|V| / diag^3) below which a body has zero volume.
#define ZERO_VOLUME_TOL 1e-12

/// Volume integrals of a region, positions relative to a reference point.
typedef struct {
    double vol;        // int dV (m^3), signed
    double first[3];   // int r dV (m^4)
    double second[9];  // int r r^T dV (m^5), row-major
} Moments;

/// A triangle edge: the undirected key (lo < hi), the triangle and the direction of use.
typedef struct {
    int lo, hi;
    int tri;
    int forward;  // 1 when the triangle walks lo -> hi
} Edge;

/// Write the message into err and evaluate to ALC_ERR_SCENE.
#define fail(err, errsz, ...) (alci_setMessage(err, errsz, __VA_ARGS__), ALC_ERR_SCENE)

static alctStatus checkDensity(double density, char* err, int errsz) {
    if (!(density > 0.0) || !isfinite(density)) {
        return fail(err, errsz, "density must be positive and finite (got %g kg/m^3)", density);
    }
    return ALC_OK;
}

static alctStatus checkFinite(const double* vert, int nvert, char* err, int errsz) {
    for (int i = 0; i < nvert; i++) {
        const double* p = vert + 3 * (size_t)i;
        if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2])) {
            return fail(err, errsz, "vertex %d has a non-finite coordinate (%g %g %g)", i, p[0],
                        p[1], p[2]);
        }
    }
    return ALC_OK;
}

static int cmpEdge(const void* pa, const void* pb) {
    const Edge* a = (const Edge*)pa;
    const Edge* b = (const Edge*)pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
    if (a->tri != b->tri) return a->tri < b->tri ? -1 : 1;
    return 0;
}

/// Closed and consistently oriented: every undirected edge used by two triangles, once each way.
/// The first offending edge in (lo, hi) order is reported.
static alctStatus checkClosed(const int* tri, int ntri, char* err, int errsz) {
    size_t nedge = 3 * (size_t)ntri;
    Edge* edge = (Edge*)malloc(nedge * sizeof *edge);
    if (!edge) {
        if (err && errsz > 0) snprintf(err, (size_t)errsz, "out of memory (%zu edges)", nedge);
        return ALC_ERR_NOMEM;
    }
    // directed edges of every triangle, keyed by their sorted endpoints
    for (int t = 0; t < ntri; t++) {
        for (int k = 0; k < 3; k++) {
            int a = tri[3 * (size_t)t + k];
            int b = tri[3 * (size_t)t + (k + 1) % 3];
            Edge* e = edge + 3 * (size_t)t + k;
            e->lo = a < b ? a : b;
            e->hi = a < b ? b : a;
            e->tri = t;
            e->forward = a < b;
        }
    }
    qsort(edge, nedge, sizeof *edge, cmpEdge);
    // each run of equal keys must be one forward and one backward use
    alctStatus s = ALC_OK;
    for (size_t i = 0; i < nedge && s == ALC_OK;) {
        size_t j = i + 1;
        while (j < nedge && edge[j].lo == edge[i].lo && edge[j].hi == edge[i].hi) j++;
        const Edge* e = edge + i;
        if (j - i == 1) {
            s = fail(err, errsz,
                     "open boundary edge (%d, %d): used only by triangle %d (the surface is not "
                     "closed)",
                     e->lo, e->hi, e->tri);
        } else if (j - i > 2) {
            s = fail(err, errsz,
                     "non-manifold edge (%d, %d): used by %zu triangles (a closed surface uses "
                     "each edge exactly twice)",
                     e->lo, e->hi, j - i);
        } else if (e[0].forward == e[1].forward) {
            int from = e->forward ? e->lo : e->hi;
            int to = e->forward ? e->hi : e->lo;
            s = fail(err, errsz,
                     "inconsistent orientation at edge (%d, %d): triangles %d and %d both use it "
                     "as %d -> %d",
                     e->lo, e->hi, e[0].tri, e[1].tri, from, to);
        }
        i = j;
    }
    free(edge);
    return s;
}

/// Add the integrals of the tetrahedron p[0..3] (positions relative to the reference point):
/// V = det(p1 - p0, p2 - p0, p3 - p0) / 6, int r dV = V (sum p_i) / 4,
/// int r r^T dV = V / 20 (sum p_i p_i^T + (sum p_i)(sum p_i)^T).
static void addTet(const double p[4][3], int second, Moments* m) {
    double e[3][3];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 3; i++) e[k][i] = p[k + 1][i] - p[0][i];
    }
    double vol = (e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                  e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                  e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0])) /
                 6.0;
    double s[3];
    for (int i = 0; i < 3; i++) s[i] = p[0][i] + p[1][i] + p[2][i] + p[3][i];
    m->vol += vol;
    for (int i = 0; i < 3; i++) m->first[i] += 0.25 * vol * s[i];
    if (!second) return;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double pp = 0.0;
            for (int k = 0; k < 4; k++) pp += p[k][i] * p[k][j];
            m->second[3 * i + j] += vol / 20.0 * (pp + s[i] * s[j]);
        }
    }
}

/// Integrals relative to ref over elements of k = 3 (triangle joined to ref) or k = 4
/// (tetrahedron) vertices; second moments only when second is set.
static Moments integrate(const double* vert, const int* elem, int nelem, int k, const double ref[3],
                         int second) {
    Moments m;
    memset(&m, 0, sizeof m);
    for (int e = 0; e < nelem; e++) {
        const int* x = elem + (size_t)k * e;
        double p[4][3] = {{0.0, 0.0, 0.0}};  // apex of a triangle's tetrahedron: ref itself
        for (int c = 0; c < k; c++) {
            for (int i = 0; i < 3; i++) p[4 - k + c][i] = vert[3 * (size_t)x[c] + i] - ref[i];
        }
        addTet((const double(*)[3])p, second, &m);
    }
    return m;
}

/// Mean and bounding-box diagonal of the vertices referenced by the elements.
static void referencedExtent(const double* vert, const int* elem, int nelem, int k, double mean[3],
                             double* diag) {
    double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    double sum[3] = {0.0, 0.0, 0.0};
    for (size_t c = 0; c < (size_t)k * nelem; c++) {
        const double* p = vert + 3 * (size_t)elem[c];
        for (int i = 0; i < 3; i++) {
            sum[i] += p[i];
            lo[i] = fmin(lo[i], p[i]);
            hi[i] = fmax(hi[i], p[i]);
        }
    }
    double d2 = 0.0;
    for (int i = 0; i < 3; i++) {
        mean[i] = sum[i] / ((double)k * nelem);
        d2 += (hi[i] - lo[i]) * (hi[i] - lo[i]);
    }
    *diag = sqrt(d2);
}

/// Volume integrals about the centre of mass, then mass, inertia and the principal frame.
/// Elements are validated; k = 3 for a surface, 4 for tetrahedra.
static alctStatus massProperties(const double* vert, const int* elem, int nelem, int k,
                                 double density, alciRigidMass* out, int* flipped, char* err,
                                 int errsz) {
    // pass 1: volume and centre of mass about the mean of the referenced vertices
    double ref[3], diag;
    referencedExtent(vert, elem, nelem, k, ref, &diag);
    Moments m1 = integrate(vert, elem, nelem, k, ref, 0);
    if (!(fabs(m1.vol) >= ZERO_VOLUME_TOL * diag * diag * diag)) {
        return fail(err, errsz,
                    "zero volume: |V| = %.3g m^3 is below 1e-12 x (bounding-box diagonal %.3g "
                    "m)^3",
                    fabs(m1.vol), diag);
    }
    double com[3];
    for (int i = 0; i < 3; i++) com[i] = ref[i] + m1.first[i] / m1.vol;
    // pass 2: second moments about that centre, corrected by the residual first moment
    Moments m2 = integrate(vert, elem, nelem, k, com, 1);
    double sign = m2.vol < 0.0 ? -1.0 : 1.0;
    double d[3];
    for (int i = 0; i < 3; i++) d[i] = m2.first[i] / m2.vol;
    double cov[9];  // int r r^T dV about the centre of mass, outward orientation
    for (int i = 0; i < 3; i++) {
        com[i] += d[i];
        for (int j = 0; j < 3; j++) {
            cov[3 * i + j] = sign * (m2.second[3 * i + j] - m2.vol * d[i] * d[j]);
        }
    }
    // inertia I = rho (tr(C) Id - C)
    alciRigidMass mp;
    memset(&mp, 0, sizeof mp);
    mp.volume = sign * m2.vol;
    mp.mass = density * mp.volume;
    double tr = cov[0] + cov[4] + cov[8];
    for (int i = 0; i < 3; i++) {
        mp.com[i] = com[i];
        for (int j = 0; j < 3; j++) {
            mp.inertia[3 * i + j] = density * ((i == j ? tr : 0.0) - cov[3 * i + j]);
        }
    }
    for (int i = 0; i < 9; i++) {
        if (!isfinite(mp.inertia[i]) || !isfinite(mp.mass)) {
            return fail(err, errsz, "mass properties are not finite (mass %g kg, volume %g m^3)",
                        mp.mass, mp.volume);
        }
    }
    // principal frame: eigenvalues descending, eigenvectors as the columns of a rotation
    alcV3 ev;
    alcM3 axes;
    alcm_m3_symEigen(alcm_m3_load(mp.inertia), &ev, &axes);
    mp.principal[0] = ev.x;
    mp.principal[1] = ev.y;
    mp.principal[2] = ev.z;
    memcpy(mp.axes, axes.m, sizeof mp.axes);
    *out = mp;
    if (flipped) *flipped = sign < 0.0;
    return ALC_OK;
}

alctStatus alci_rigid_massSurface(const double* vert, int nvert, const int* tri, int ntri,
                                  double density, alciRigidMass* out, int* flipped, char* err,
                                  int errsz) {
    if (err && errsz > 0) err[0] = 0;
    if (!vert || !tri || !out) return ALC_ERR_INVALID_ARG;
    if (nvert <= 0 || ntri <= 0) {
        return fail(err, errsz, "empty surface (%d vertices, %d triangles)", nvert, ntri);
    }
    alctStatus s = checkDensity(density, err, errsz);
    if (s == ALC_OK) s = alci_mesh_checkIndices(tri, ntri, 3, nvert, 1, "triangle", err, errsz);
    if (s == ALC_OK) s = checkFinite(vert, nvert, err, errsz);
    if (s == ALC_OK) s = checkClosed(tri, ntri, err, errsz);
    if (s != ALC_OK) return s;
    return massProperties(vert, tri, ntri, 3, density, out, flipped, err, errsz);
}

alctStatus alci_rigid_massTets(const double* vert, int nvert, const int* tet, int ntet,
                               double density, alciRigidMass* out, char* err, int errsz) {
    if (err && errsz > 0) err[0] = 0;
    if (!vert || !tet || !out) return ALC_ERR_INVALID_ARG;
    if (nvert <= 0 || ntet <= 0) {
        return fail(err, errsz, "empty mesh (%d vertices, %d tetrahedra)", nvert, ntet);
    }
    alctStatus s = checkDensity(density, err, errsz);
    if (s == ALC_OK) s = alci_mesh_checkIndices(tet, ntet, 4, nvert, 0, "tetrahedron", err, errsz);
    if (s == ALC_OK) s = checkFinite(vert, nvert, err, errsz);
    if (s != ALC_OK) return s;
    // orientation: every tetrahedron positive (or degenerate)
    const double zero[3] = {0.0, 0.0, 0.0};
    for (int e = 0; e < ntet; e++) {
        const int* t = tet + 4 * (size_t)e;
        Moments m = integrate(vert, t, 1, 4, zero, 0);
        if (m.vol < 0.0) {
            return fail(err, errsz,
                        "tetrahedron %d (vertices %d %d %d %d) is inverted (volume %.3g m^3)", e,
                        t[0], t[1], t[2], t[3], m.vol);
        }
    }
    return massProperties(vert, tet, ntet, 4, density, out, NULL, err, errsz);
}

void alci_rigid_toBody(const alciRigidMass* mp, const double* vert, int nvert, double* body) {
    const double* R = mp->axes;
    for (int v = 0; v < nvert; v++) {
        double r[3];
        for (int i = 0; i < 3; i++) r[i] = vert[3 * (size_t)v + i] - mp->com[i];
        // body = R^T r: component k is column k of R dotted with r
        for (int k = 0; k < 3; k++) {
            body[3 * (size_t)v + k] = R[k] * r[0] + R[3 + k] * r[1] + R[6 + k] * r[2];
        }
    }
}
