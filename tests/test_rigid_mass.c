// Tests of host/rigid_mass.h: mass properties of boxes (surface and tetrahedra) against the
// closed form, moved rigidly; a sphere against its boundary surface and 2/5 m r^2; inward and
// broken surfaces; the body frame; asymmetric bodies against independent evaluations (a
// degree-2 quadrature on a tetrahedron, an L-shaped prism composed of two boxes).
#include "mesh.h"
#include "rigid_mass.h"
#include "test_macros.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERRSZ 512
#define MAXV  64
#define MAXT  128

/// Box used throughout: sides along x, y, z (m), all different, and a density (kg/m^3).
static const double kBox[3] = {0.3, 0.7, 1.1};
static const double kRho = 2700.0;

/// A small closed triangle surface in fixed storage.
typedef struct {
    int nvert, ntri;
    double vert[3 * MAXV];
    int tri[3 * MAXT];
} Surf;

// ---- helpers -----------------------------------------------------------------------------

static double relErr(double a, double b) {
    return fabs(a - b) / fmax(fabs(b), 1e-300);
}

static double maxAbs(const double* a, int n) {
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

/// Prism over the polygon poly (n vertices, counter-clockwise seen from +z, star-shaped from
/// vertex 0) from z0 to z1, outward triangles.
static void prism(const double* poly, int n, double z0, double z1, Surf* s) {
    s->nvert = 2 * n;
    s->ntri = 0;
    for (int i = 0; i < n; i++) {
        for (int l = 0; l < 2; l++) {
            double* p = s->vert + 3 * (i + l * n);
            p[0] = poly[2 * i];
            p[1] = poly[2 * i + 1];
            p[2] = l ? z1 : z0;
        }
    }
    // caps: fans from vertex 0, bottom facing -z, top facing +z
    for (int i = 1; i + 1 < n; i++) {
        int* b = s->tri + 3 * s->ntri++;
        b[0] = 0, b[1] = i + 1, b[2] = i;
        int* t = s->tri + 3 * s->ntri++;
        t[0] = n, t[1] = n + i, t[2] = n + i + 1;
    }
    // sides: quad (i, j, n + j, n + i) faces away from the polygon
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        int* a = s->tri + 3 * s->ntri++;
        a[0] = i, a[1] = j, a[2] = n + j;
        int* b = s->tri + 3 * s->ntri++;
        b[0] = i, b[1] = n + j, b[2] = n + i;
    }
}

/// The box kBox centred at the origin as 8 vertices and 12 outward triangles.
static void boxSurface(Surf* s) {
    double hx = 0.5 * kBox[0], hy = 0.5 * kBox[1];
    const double rect[8] = {-hx, -hy, hx, -hy, hx, hy, -hx, hy};
    prism(rect, 4, -0.5 * kBox[2], 0.5 * kBox[2], s);
}

/// A rotation about the axis (1, 2, 3) by 0.7 rad (Rodrigues), row-major.
static void testRotation(double R[9]) {
    double k[3] = {1.0, 2.0, 3.0};
    double n = sqrt(14.0);
    for (int i = 0; i < 3; i++) k[i] /= n;
    double c = cos(0.7), s = sin(0.7);
    double K[9] = {0, -k[2], k[1], k[2], 0, -k[0], -k[1], k[0], 0};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            R[3 * i + j] = (i == j ? c : 0.0) + s * K[3 * i + j] + (1.0 - c) * k[i] * k[j];
        }
    }
}

static const double kShift[3] = {1.5, -2.25, 0.7};

/// x <- R x + t for n points.
static void transform(double* x, int n, const double R[9], const double t[3]) {
    for (int v = 0; v < n; v++) {
        double* p = x + 3 * v;
        double q[3];
        for (int i = 0; i < 3; i++)
            q[i] = R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2];
        for (int i = 0; i < 3; i++) p[i] = q[i] + t[i];
    }
}

/// C = A B^T for row-major 3x3 matrices.
static void mulABt(const double* A, const double* B, double* C) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += A[3 * i + k] * B[3 * j + k];
            C[3 * i + j] = s;
        }
    }
}

/// C = A B for row-major 3x3 matrices.
static void mulAB(const double* A, const double* B, double* C) {
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            double s = 0.0;
            for (int k = 0; k < 3; k++) s += A[3 * i + k] * B[3 * k + j];
            C[3 * i + j] = s;
        }
    }
}

/// R T R^T.
static void rotateTensor(const double R[9], const double T[9], double out[9]) {
    double RT[9];
    mulAB(R, T, RT);
    mulABt(RT, R, out);
}

static double det3(const double* m) {
    return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) +
           m[2] * (m[3] * m[7] - m[4] * m[6]);
}

/// Largest relative difference of two mass properties: scalars relative to themselves, com
/// relative to the length scale L, tensors relative to their largest entry.
static double mpDiff(const alciRigidMass* a, const alciRigidMass* b, double L) {
    double d = fmax(relErr(a->mass, b->mass), relErr(a->volume, b->volume));
    for (int i = 0; i < 3; i++) d = fmax(d, fabs(a->com[i] - b->com[i]) / L);
    double scale = maxAbs(b->inertia, 9);
    for (int i = 0; i < 9; i++) d = fmax(d, fabs(a->inertia[i] - b->inertia[i]) / scale);
    for (int i = 0; i < 3; i++) d = fmax(d, fabs(a->principal[i] - b->principal[i]) / scale);
    return d;
}

/// Column k of a and of b are parallel (either sign) for every k: 1 - |cos| for the worst.
static double axesDiff(const double* a, const double* b) {
    double worst = 0.0;
    for (int k = 0; k < 3; k++) {
        double dot = a[k] * b[k] + a[3 + k] * b[3 + k] + a[6 + k] * b[6 + k];
        worst = fmax(worst, 1.0 - fabs(dot));
    }
    return worst;
}

/// Analytic box: mass, principal moments m (b^2 + c^2) / 12, ... sorted descending (x, y, z
/// since kBox is ascending).
static void boxAnalytic(double* mass, double principal[3]) {
    double a = kBox[0], b = kBox[1], c = kBox[2];
    *mass = kRho * a * b * c;
    principal[0] = *mass * (b * b + c * c) / 12.0;
    principal[1] = *mass * (a * a + c * c) / 12.0;
    principal[2] = *mass * (a * a + b * b) / 12.0;
}

/// Checks a result against the analytic box moved by (R, t): returns the largest relative error
/// (axes as 1 - |cos| against the columns of R).
static double boxError(const alciRigidMass* mp, const double R[9], const double t[3]) {
    double mass, pr[3];
    boxAnalytic(&mass, pr);
    double e = fmax(relErr(mp->mass, mass), relErr(mp->volume, kBox[0] * kBox[1] * kBox[2]));
    for (int i = 0; i < 3; i++) e = fmax(e, fabs(mp->com[i] - t[i]) / kBox[2]);
    for (int i = 0; i < 3; i++) e = fmax(e, relErr(mp->principal[i], pr[i]));
    double expect[9], diag[9] = {pr[0], 0, 0, 0, pr[1], 0, 0, 0, pr[2]};
    rotateTensor(R, diag, expect);
    for (int i = 0; i < 9; i++) e = fmax(e, fabs(mp->inertia[i] - expect[i]) / pr[0]);
    e = fmax(e, axesDiff(mp->axes, R));
    e = fmax(e, fabs(det3(mp->axes) - 1.0));
    return e;
}

static int contains(const char* err, const char* a, const char* b) {
    return strstr(err, a) != NULL && (!b || strstr(err, b) != NULL);
}

// ---- 1. box surface ----------------------------------------------------------------------

ALC_TEST(rigid_mass_boxSurface) {
    Surf s;
    boxSurface(&s);
    ENSURE(s.ntri == 12);
    alciRigidMass mp;
    char err[ERRSZ];
    int flipped = -1;
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, zero[3] = {0, 0, 0};
    ENSURE_OK(
        alci_rigid_massSurface(s.vert, s.nvert, s.tri, s.ntri, kRho, &mp, &flipped, err, ERRSZ));
    ENSURE(flipped == 0);
    double e0 = boxError(&mp, I, zero);
    ENSURE_MSG(e0 < 1e-12, "centred box: relative error %.3g", e0);
    // the same box rotated and translated
    double R[9];
    testRotation(R);
    transform(s.vert, s.nvert, R, kShift);
    ENSURE_OK(
        alci_rigid_massSurface(s.vert, s.nvert, s.tri, s.ntri, kRho, &mp, &flipped, err, ERRSZ));
    double e1 = boxError(&mp, R, kShift);
    ENSURE_MSG(e1 < 1e-12, "moved box: relative error %.3g", e1);
    alct_note("box %.1f x %.1f x %.1f: largest relative error %.2g centred, %.2g moved", kBox[0],
              kBox[1], kBox[2], e0, e1);
    return ALC_TEST_PASS;
}

// ---- 2. box tetrahedra -------------------------------------------------------------------

ALC_TEST(rigid_mass_boxTets) {
    alciMesh mesh;
    memset(&mesh, 0, sizeof mesh);
    const int n[3] = {2, 3, 4};
    ENSURE_OK(alci_mesh_box(kBox, n, &mesh));
    double R[9];
    testRotation(R);
    transform(mesh.vert, mesh.nvert, R, kShift);
    alciRigidMass mt, ms;
    char err[ERRSZ];
    alctStatus st =
        alci_rigid_massTets(mesh.vert, mesh.nvert, mesh.tet, mesh.ntet, kRho, &mt, err, ERRSZ);
    int ntet = mesh.ntet;
    alci_mesh_free(&mesh);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    double ea = boxError(&mt, R, kShift);
    ENSURE_MSG(ea < 1e-12, "tetrahedra vs analytic: %.3g", ea);
    // the surface version of the same moved box
    Surf s;
    boxSurface(&s);
    transform(s.vert, s.nvert, R, kShift);
    ENSURE_OK(alci_rigid_massSurface(s.vert, s.nvert, s.tri, s.ntri, kRho, &ms, NULL, err, ERRSZ));
    double es = mpDiff(&mt, &ms, kBox[2]);
    ENSURE_MSG(es < 1e-12, "tetrahedra vs surface: %.3g", es);
    ENSURE(axesDiff(mt.axes, ms.axes) < 1e-12);
    alct_note("%d tetrahedra: %.2g from analytic, %.2g from the surface", ntet, ea, es);
    return ALC_TEST_PASS;
}

// ---- 3. sphere ---------------------------------------------------------------------------

ALC_TEST(rigid_mass_sphere) {
    const double r = 0.5;
    alciMesh mesh;
    memset(&mesh, 0, sizeof mesh);
    ENSURE_OK(alci_mesh_sphere(r, 10, &mesh));
    char err[ERRSZ];
    alciRigidMass mt, ms;
    int flipped = -1;
    alctStatus st =
        alci_rigid_massTets(mesh.vert, mesh.nvert, mesh.tet, mesh.ntet, kRho, &mt, err, ERRSZ);
    if (st == ALC_OK) st = alci_mesh_boundary(&mesh, err, ERRSZ);
    if (st == ALC_OK) {
        st = alci_rigid_massSurface(mesh.vert, mesh.nvert, mesh.tri, mesh.ntri, kRho, &ms, &flipped,
                                    err, ERRSZ);
    }
    int ntet = mesh.ntet, ntri = mesh.ntri;
    alci_mesh_free(&mesh);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(flipped == 0);
    // tetrahedra and boundary surface agree to rounding
    double d = mpDiff(&mt, &ms, r);
    ENSURE_MSG(d < 1e-10, "tetrahedra vs surface: %.3g", d);
    // and approach the ball: I = 2/5 m r^2 for the mesh's own mass
    double ball = 4.0 / 3.0 * M_PI * r * r * r;
    double worst = 0.0;
    for (int i = 0; i < 3; i++) {
        worst = fmax(worst, fabs(mt.principal[i] / (0.4 * mt.mass * r * r) - 1.0));
    }
    alct_note(
        "%d tetrahedra, %d boundary triangles: tets vs surface %.2g; volume / (4/3 pi r^3) "
        "= %.4f; I / (2/5 m r^2) = %.4f %.4f %.4f",
        ntet, ntri, d, mt.volume / ball, mt.principal[0] / (0.4 * mt.mass * r * r),
        mt.principal[1] / (0.4 * mt.mass * r * r), mt.principal[2] / (0.4 * mt.mass * r * r));
    ENSURE_MSG(worst < 0.05, "principal moments %.3g from 2/5 m r^2", worst);
    ENSURE(fabs(mt.volume / ball - 1.0) < 0.05);
    ENSURE(fabs(mt.com[0]) + fabs(mt.com[1]) + fabs(mt.com[2]) < 1e-12 * r);
    return ALC_TEST_PASS;
}

// ---- 4. inward and broken surfaces -------------------------------------------------------

/// Runs the surface version and checks ALC_ERR_SCENE with both phrases in the message.
static int surfaceFails(const Surf* s, double density, const char* a, const char* b) {
    alciRigidMass mp;
    char err[ERRSZ] = "";
    alctStatus st =
        alci_rigid_massSurface(s->vert, s->nvert, s->tri, s->ntri, density, &mp, NULL, err, ERRSZ);
    if (st != ALC_ERR_SCENE || !contains(err, a, b)) {
        fprintf(stderr, "  expected ALC_ERR_SCENE with '%s'%s%s, got status %d: %s\n", a,
                b ? " and " : "", b ? b : "", (int)st, err);
        return 0;
    }
    alct_note("%s", err);
    return 1;
}

/// The surface of the tetrahedron (a, b, c, d), positively oriented, as 4 outward triangles.
static void tetFaces(int a, int b, int c, int d, int* tri) {
    const int f[12] = {a, c, b, a, b, d, a, d, c, b, c, d};
    memcpy(tri, f, sizeof f);
}

ALC_TEST(rigid_mass_surfaceErrors) {
    Surf box;
    boxSurface(&box);
    double R[9];
    testRotation(R);
    transform(box.vert, box.nvert, R, kShift);
    alciRigidMass ref, mp;
    char err[ERRSZ];
    int flipped = -1;
    ENSURE_OK(alci_rigid_massSurface(box.vert, box.nvert, box.tri, box.ntri, kRho, &ref, &flipped,
                                     err, ERRSZ));
    ENSURE(flipped == 0);
    // every triangle wound the other way: same body, reported as flipped
    Surf s = box;
    for (int t = 0; t < s.ntri; t++) {
        int tmp = s.tri[3 * t + 1];
        s.tri[3 * t + 1] = s.tri[3 * t + 2];
        s.tri[3 * t + 2] = tmp;
    }
    ENSURE_OK(
        alci_rigid_massSurface(s.vert, s.nvert, s.tri, s.ntri, kRho, &mp, &flipped, err, ERRSZ));
    ENSURE(flipped == 1);
    ENSURE(mp.volume > 0 && mp.mass > 0);
    double d = mpDiff(&mp, &ref, kBox[2]);
    ENSURE_MSG(d < 1e-12, "inward vs outward: %.3g", d);
    ENSURE(axesDiff(mp.axes, ref.axes) < 1e-12);
    // one triangle removed: open
    s = box;
    s.ntri--;
    ENSURE(surfaceFails(&s, kRho, "open boundary edge", NULL));
    // one triangle flipped: inconsistent
    s = box;
    s.tri[3 * 5 + 1] = box.tri[3 * 5 + 2];
    s.tri[3 * 5 + 2] = box.tri[3 * 5 + 1];
    ENSURE(surfaceFails(&s, kRho, "inconsistent orientation", "triangles"));
    // two tetrahedra sharing the edge (0, 1): each closed, the edge used four times
    Surf nm;
    const double v[18] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1};
    memcpy(nm.vert, v, sizeof v);
    nm.nvert = 6;
    nm.ntri = 8;
    tetFaces(0, 1, 2, 3, nm.tri);
    tetFaces(0, 1, 4, 5, nm.tri + 12);
    alciRigidMass two;
    ENSURE(surfaceFails(&nm, kRho, "non-manifold edge (0, 1)", "used by 4 triangles"));
    // each tetrahedron alone is fine (and the orientation helper is right)
    ENSURE_OK(
        alci_rigid_massSurface(nm.vert, nm.nvert, nm.tri, 4, kRho, &two, &flipped, err, ERRSZ));
    ENSURE(flipped == 0 && fabs(two.volume - 1.0 / 6.0) < 1e-15);
    ENSURE_OK(alci_rigid_massSurface(nm.vert, nm.nvert, nm.tri + 12, 4, kRho, &two, &flipped, err,
                                     ERRSZ));
    ENSURE(flipped == 0 && fabs(two.volume - 1.0 / 6.0) < 1e-15);
    // a triangle covered twice, once each way: closed, but no volume
    Surf flat;
    memcpy(flat.vert, v, 9 * sizeof(double));
    flat.nvert = 3;
    flat.ntri = 2;
    const int ft[6] = {0, 1, 2, 0, 2, 1};
    memcpy(flat.tri, ft, sizeof ft);
    ENSURE(surfaceFails(&flat, kRho, "zero volume", NULL));
    // density, indices, coordinates
    ENSURE(surfaceFails(&box, 0.0, "density", NULL));
    ENSURE(surfaceFails(&box, -1.0, "density", NULL));
    ENSURE(surfaceFails(&box, NAN, "density", NULL));
    ENSURE(surfaceFails(&box, INFINITY, "density", NULL));
    s = box;
    s.tri[3 * 7 + 2] = s.nvert;
    ENSURE(surfaceFails(&s, kRho, "triangle 7 refers to vertex 8", NULL));
    s = box;
    s.tri[3 * 7 + 2] = -1;
    ENSURE(surfaceFails(&s, kRho, "triangle 7 refers to vertex -1", NULL));
    s = box;
    s.tri[3 * 3 + 2] = s.tri[3 * 3];
    ENSURE(surfaceFails(&s, kRho, "triangle 3 uses vertex", "twice"));
    s = box;
    s.vert[3 * 4 + 1] = NAN;
    ENSURE(surfaceFails(&s, kRho, "vertex 4 has a non-finite coordinate", NULL));
    s = box;
    s.vert[3 * 2] = -INFINITY;
    ENSURE(surfaceFails(&s, kRho, "vertex 2 has a non-finite coordinate", NULL));
    // null pointers are argument errors, not scene errors
    ENSURE(alci_rigid_massSurface(NULL, 8, box.tri, 12, kRho, &mp, NULL, err, ERRSZ) ==
           ALC_ERR_INVALID_ARG);
    ENSURE(alci_rigid_massSurface(box.vert, 8, box.tri, 12, kRho, NULL, NULL, err, ERRSZ) ==
           ALC_ERR_INVALID_ARG);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_mass_tetErrors) {
    const double v[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
    int tet[8] = {0, 1, 2, 3, 1, 2, 3, 4};  // the second is positive too: (1,2,3) faces 4
    alciRigidMass mp;
    char err[ERRSZ] = "";
    ENSURE_OK(alci_rigid_massTets(v, 5, tet, 2, kRho, &mp, err, ERRSZ));
    ENSURE(fabs(mp.volume - 0.5) < 1e-15);  // 1/6 + 2/6
    // inverted second tetrahedron
    tet[5] = 3, tet[6] = 2;
    ENSURE(alci_rigid_massTets(v, 5, tet, 2, kRho, &mp, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(contains(err, "tetrahedron 1 (vertices 1 3 2 4) is inverted", NULL), "%s", err);
    alct_note("%s", err);
    tet[5] = 2, tet[6] = 3;
    // density, index, coordinate
    ENSURE(alci_rigid_massTets(v, 5, tet, 2, 0.0, &mp, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(contains(err, "density", NULL), "%s", err);
    ENSURE(alci_rigid_massTets(v, 5, tet, 2, NAN, &mp, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(contains(err, "density", NULL), "%s", err);
    tet[7] = 5;
    ENSURE(alci_rigid_massTets(v, 5, tet, 2, kRho, &mp, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(contains(err, "tetrahedron 1 refers to vertex 5", NULL), "%s", err);
    tet[7] = 4;
    double w[15];
    memcpy(w, v, sizeof w);
    w[3 * 3 + 2] = NAN;
    ENSURE(alci_rigid_massTets(w, 5, tet, 2, kRho, &mp, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(contains(err, "vertex 3 has a non-finite coordinate", NULL), "%s", err);
    // all tetrahedra flat
    w[3 * 3 + 2] = 0.0;
    w[3 * 4 + 2] = 0.0;
    ENSURE(alci_rigid_massTets(w, 5, tet, 2, kRho, &mp, err, ERRSZ) == ALC_ERR_SCENE);
    ENSURE_MSG(contains(err, "zero volume", NULL), "%s", err);
    return ALC_TEST_PASS;
}

// ---- 5. body frame -----------------------------------------------------------------------

ALC_TEST(rigid_mass_toBody) {
    Surf s;
    boxSurface(&s);
    double R[9];
    testRotation(R);
    transform(s.vert, s.nvert, R, kShift);
    alciRigidMass mp, mb;
    char err[ERRSZ];
    ENSURE_OK(alci_rigid_massSurface(s.vert, s.nvert, s.tri, s.ntri, kRho, &mp, NULL, err, ERRSZ));
    Surf b = s;
    alci_rigid_toBody(&mp, s.vert, s.nvert, b.vert);
    // in place gives the same positions
    Surf c = s;
    alci_rigid_toBody(&mp, c.vert, c.nvert, c.vert);
    ENSURE(memcmp(b.vert, c.vert, sizeof(double) * 3 * (size_t)s.nvert) == 0);
    // body-frame properties: centre at the origin, inertia diagonal = principal moments
    ENSURE_OK(alci_rigid_massSurface(b.vert, b.nvert, b.tri, b.ntri, kRho, &mb, NULL, err, ERRSZ));
    double L = kBox[2];
    for (int i = 0; i < 3; i++) ENSURE_MSG(fabs(mb.com[i]) < 1e-12 * L, "com %g", mb.com[i]);
    double big = mp.principal[0], off = 0.0, diag = 0.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            if (i != j) off = fmax(off, fabs(mb.inertia[3 * i + j]));
        }
        diag = fmax(diag, relErr(mb.inertia[4 * i], mp.principal[i]));
    }
    ENSURE_MSG(off < 1e-12 * big, "off-diagonal %.3g", off / big);
    ENSURE_MSG(diag < 1e-12, "diagonal vs principal %.3g", diag);
    // and the body frame is its own principal frame
    const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    ENSURE(axesDiff(mb.axes, I) < 1e-12);
    // body vertices are the box corners (+-a/2, +-b/2, +-c/2)
    for (int v = 0; v < b.nvert; v++) {
        for (int i = 0; i < 3; i++) ENSURE(fabs(fabs(b.vert[3 * v + i]) - 0.5 * kBox[i]) < 1e-12);
    }
    alct_note("body frame: |off-diagonal| / I1 = %.2g, diagonal vs principal %.2g", off / big,
              diag);
    return ALC_TEST_PASS;
}

// ---- 6. asymmetric bodies ----------------------------------------------------------------

/// Inertia of a tetrahedron about its centroid by the degree-2 four-point rule (barycentric
/// (a, b, b, b) and permutations, a = (5 + 3 sqrt 5) / 20, b = (5 - sqrt 5) / 20, weights V/4),
/// exact for quadratics and independent of the covariance formula in host/rigid_mass.c.
static void tetQuadrature(const double p[4][3], double rho, double* mass, double com[3],
                          double inertia[9]) {
    double e[9];
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 3; i++) e[3 * k + i] = p[k + 1][i] - p[0][i];
    }
    double vol = det3(e) / 6.0;
    double a = (5.0 + 3.0 * sqrt(5.0)) / 20.0, b = (5.0 - sqrt(5.0)) / 20.0;
    for (int i = 0; i < 3; i++) com[i] = 0.25 * (p[0][i] + p[1][i] + p[2][i] + p[3][i]);
    double C[9] = {0};
    for (int q = 0; q < 4; q++) {
        double x[3];
        for (int i = 0; i < 3; i++) {
            x[i] = -com[i];
            for (int k = 0; k < 4; k++) x[i] += (k == q ? a : b) * p[k][i];
        }
        for (int i = 0; i < 9; i++) C[i] += 0.25 * vol * x[i / 3] * x[i % 3];
    }
    *mass = rho * vol;
    double tr = C[0] + C[4] + C[8];
    for (int i = 0; i < 9; i++) inertia[i] = rho * ((i % 4 == 0 ? tr : 0.0) - C[i]);
}

/// Largest entry difference of two tensors relative to the largest entry of the second.
static double tensorDiff(const double* a, const double* b) {
    double d = 0.0;
    for (int i = 0; i < 9; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d / maxAbs(b, 9);
}

/// R diag(principal) R^T reproduces the inertia: relative difference.
static double reconstructDiff(const alciRigidMass* mp) {
    double D[9] = {mp->principal[0], 0, 0, 0, mp->principal[1], 0, 0, 0, mp->principal[2]};
    double back[9];
    rotateTensor(mp->axes, D, back);
    return tensorDiff(back, mp->inertia);
}

ALC_TEST(rigid_mass_irregularTet) {
    const double p[4][3] = {{0.1, 0.2, -0.3}, {1.3, 0.1, 0.2}, {0.4, 1.7, 0.5}, {0.2, 0.6, 2.1}};
    double mass, com[3], inertia[9];
    tetQuadrature(p, kRho, &mass, com, inertia);
    ENSURE(mass > 0);  // positively oriented as written
    // off-diagonals matter here
    ENSURE(fabs(inertia[1]) > 0.05 * maxAbs(inertia, 9) && fabs(inertia[5]) > 0.01 * inertia[0]);
    const int tet[4] = {0, 1, 2, 3};
    int tri[12];
    tetFaces(0, 1, 2, 3, tri);
    alciRigidMass mt, ms;
    char err[ERRSZ];
    ENSURE_OK(alci_rigid_massTets(&p[0][0], 4, tet, 1, kRho, &mt, err, ERRSZ));
    ENSURE_OK(alci_rigid_massSurface(&p[0][0], 4, tri, 4, kRho, &ms, NULL, err, ERRSZ));
    const alciRigidMass* both[2] = {&mt, &ms};
    double worst = 0.0;
    for (int k = 0; k < 2; k++) {
        const alciRigidMass* m = both[k];
        double e = fmax(relErr(m->mass, mass), tensorDiff(m->inertia, inertia));
        for (int i = 0; i < 3; i++) e = fmax(e, fabs(m->com[i] - com[i]) / 2.0);
        e = fmax(e, reconstructDiff(m));
        ENSURE_MSG(e < 1e-12, "%s vs quadrature: %.3g", k ? "surface" : "tetrahedra", e);
        worst = fmax(worst, e);
    }
    alct_note("irregular tetrahedron vs quadrature: %.2g; I_xy / I_xx = %.3f", worst,
              inertia[1] / inertia[0]);
    return ALC_TEST_PASS;
}

/// Adds a box [lo, hi] to running totals: mass, first moment, inertia about the origin
/// (parallel axes).
static void addBox(const double lo[3], const double hi[3], double rho, double* mass,
                   double first[3], double inertia[9]) {
    double s[3], c[3];
    for (int i = 0; i < 3; i++) s[i] = hi[i] - lo[i], c[i] = 0.5 * (hi[i] + lo[i]);
    double m = rho * s[0] * s[1] * s[2];
    double own[3] = {m * (s[1] * s[1] + s[2] * s[2]) / 12.0, m * (s[0] * s[0] + s[2] * s[2]) / 12.0,
                     m * (s[0] * s[0] + s[1] * s[1]) / 12.0};
    double c2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    *mass += m;
    for (int i = 0; i < 3; i++) {
        first[i] += m * c[i];
        for (int j = 0; j < 3; j++) {
            inertia[3 * i + j] += (i == j ? own[i] + m * c2 : 0.0) - m * c[i] * c[j];
        }
    }
}

ALC_TEST(rigid_mass_lShape) {
    // L in the xy plane: [0, 0.2] x [0, 0.1] and [0, 0.1] x [0.1, 0.3], extruded over z [0, 0.4]
    const double poly[12] = {0, 0, 0.2, 0, 0.2, 0.1, 0.1, 0.1, 0.1, 0.3, 0, 0.3};
    const double h = 0.4;
    Surf s;
    prism(poly, 6, 0.0, h, &s);
    ENSURE(s.ntri == 20);
    // independent: two boxes by the parallel-axis theorem, shifted to the centre of mass
    double mass = 0.0, first[3] = {0, 0, 0}, Io[9] = {0};
    const double lo1[3] = {0, 0, 0}, hi1[3] = {0.2, 0.1, h}, lo2[3] = {0, 0.1, 0},
                 hi2[3] = {0.1, 0.3, h};
    addBox(lo1, hi1, kRho, &mass, first, Io);
    addBox(lo2, hi2, kRho, &mass, first, Io);
    double com[3], Ic[9];
    for (int i = 0; i < 3; i++) com[i] = first[i] / mass;
    double c2 = com[0] * com[0] + com[1] * com[1] + com[2] * com[2];
    for (int i = 0; i < 9; i++) {
        Ic[i] = Io[i] - mass * ((i % 4 == 0 ? c2 : 0.0) - com[i / 3] * com[i % 3]);
    }
    ENSURE(fabs(Ic[1]) > 0.05 * Ic[0]);  // a product of inertia in xy
    // moved rigidly: I' = R I R^T, com' = R com + t
    double R[9], Iexp[9], comExp[3];
    testRotation(R);
    transform(s.vert, s.nvert, R, kShift);
    rotateTensor(R, Ic, Iexp);
    memcpy(comExp, com, sizeof com);
    transform(comExp, 1, R, kShift);
    alciRigidMass mp;
    char err[ERRSZ];
    int flipped = -1;
    ENSURE_OK(
        alci_rigid_massSurface(s.vert, s.nvert, s.tri, s.ntri, kRho, &mp, &flipped, err, ERRSZ));
    ENSURE(flipped == 0);
    double e = fmax(relErr(mp.mass, mass), tensorDiff(mp.inertia, Iexp));
    for (int i = 0; i < 3; i++) e = fmax(e, fabs(mp.com[i] - comExp[i]) / h);
    e = fmax(e, reconstructDiff(&mp));
    ENSURE_MSG(e < 1e-12, "L prism vs two boxes: %.3g", e);
    ENSURE(fabs(det3(mp.axes) - 1.0) < 1e-12);
    ENSURE(mp.principal[0] >= mp.principal[1] && mp.principal[1] >= mp.principal[2]);
    alct_note("L prism vs two boxes: %.2g; principal %.6g %.6g %.6g kg m^2", e, mp.principal[0],
              mp.principal[1], mp.principal[2]);
    return ALC_TEST_PASS;
}
