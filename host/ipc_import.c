// Converter from a read IPC script (ipc_script.c) to an alcove scene: the meshes are read,
// transformed exactly as IPC places them (src/main.cpp: per-shape scale, rotation Rx Ry Rz and
// translation; `rotateModel`; the `size` normalization; the lift of the `fall`-type scripts) and
// written next to the YAML, so the scene needs no transform of its own. Tolerances given relative
// to the bounding-box diagonal (IPC's Optimizer) become metres; IPC's scripts become drivers.
#include "ipc_import.h"

#include "io_atomic.h"
#include "mesh.h"

#include "alc/alc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// One shape of the script, read and transformed.
typedef struct {
    alciMesh m;                 // world positions after every transform (m.vert)
    double* rest;               // IPC's rest positions (no rotateModel, no lift) (nvert x 3)
    double* local;              // positions as in the file (nvert x 3), for DBC boxes
    unsigned char* onBoundary;  // vertex on the boundary surface (nvert)
    int solid;                  // 1: tetrahedra (a body); 0: a triangle surface (an obstacle)
    int skip;                   // not imported (segments, points)
    int* driver;                // driver id per vertex, -1 free (nvert)
    char name[128];             // body or obstacle name, also the mesh file's stem
} Part;

/// A driver to write: the vertices of one part with one motion.
typedef struct {
    int part;
    char name[64];
    int type;  // 0 fixed, 1 linear, 2 rotate, 3 keyframes (translations only)
    double vel[3], axis[3], center[3], omega, start, end, release;
    double past;  // dragright: released once the body is right of x = past (NaN: never)
    int nsel;
    int whole;         // every vertex of the part: the body's or obstacle's own `motion:`
    int nkey;          // keyframes
    double key[4][4];  // time, translation
} Driver;

typedef struct {
    alciIpcScript* s;
    Part* part;
    int npart;
    Driver* drv;
    int ndrv;
    char* err;
    int errsz;
} Ctx;

static int failf(Ctx* c, alctStatus* st, alctStatus code, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int failf(Ctx* c, alctStatus* st, alctStatus code, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, (size_t)c->errsz, fmt, ap);
    va_end(ap);
    *st = code;
    return 0;
}

/// IPC's shape rotation: R = Rx(x) Ry(y) Rz(z) (degrees), so z is applied first.
static void ipcRotation(const double deg[3], double R[9]) {
    double a = deg[0] * M_PI / 180, b = deg[1] * M_PI / 180, g = deg[2] * M_PI / 180;
    double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cg = cos(g), sg = sin(g);
    double Rx[9] = {1, 0, 0, 0, ca, -sa, 0, sa, ca};
    double Ry[9] = {cb, 0, sb, 0, 1, 0, -sb, 0, cb};
    double Rz[9] = {cg, -sg, 0, sg, cg, 0, 0, 0, 1};
    double T[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            T[3 * i + j] = 0;
            for (int k = 0; k < 3; k++) T[3 * i + j] += Rx[3 * i + k] * Ry[3 * k + j];
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            R[3 * i + j] = 0;
            for (int k = 0; k < 3; k++) R[3 * i + j] += T[3 * i + k] * Rz[3 * k + j];
        }
}

/// Rotation by angle (radians) about a unit axis (Rodrigues).
static void axisRotation(const double u[3], double ang, double R[9]) {
    double c = cos(ang), s = sin(ang), t = 1 - c;
    R[0] = c + u[0] * u[0] * t;
    R[1] = u[0] * u[1] * t - u[2] * s;
    R[2] = u[0] * u[2] * t + u[1] * s;
    R[3] = u[1] * u[0] * t + u[2] * s;
    R[4] = c + u[1] * u[1] * t;
    R[5] = u[1] * u[2] * t - u[0] * s;
    R[6] = u[2] * u[0] * t - u[1] * s;
    R[7] = u[2] * u[1] * t + u[0] * s;
    R[8] = c + u[2] * u[2] * t;
}

static void mulRv(const double R[9], const double v[3], double out[3]) {
    for (int i = 0; i < 3; i++)
        out[i] = R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2];
}

static void bbox(const double* x, int n, double lo[3], double hi[3]) {
    for (int k = 0; k < 3; k++) {
        lo[k] = HUGE_VAL;
        hi[k] = -HUGE_VAL;
    }
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            if (x[3 * i + k] < lo[k]) lo[k] = x[3 * i + k];
            if (x[3 * i + k] > hi[k]) hi[k] = x[3 * i + k];
        }
}

/// Bounding box over the imported parts (solidOnly: bodies only; rest: IPC's rest positions).
static int partsBox(const Ctx* c, int solidOnly, int rest, double lo[3], double hi[3]) {
    int any = 0;
    for (int k = 0; k < 3; k++) {
        lo[k] = HUGE_VAL;
        hi[k] = -HUGE_VAL;
    }
    for (int p = 0; p < c->npart; p++) {
        const Part* P = &c->part[p];
        if (P->m.nvert == 0 || (solidOnly && (P->skip || !P->solid))) continue;
        double a[3], b[3];
        bbox(rest ? P->rest : P->m.vert, P->m.nvert, a, b);
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], a[k]);
            hi[k] = fmax(hi[k], b[k]);
        }
        any = 1;
    }
    return any;
}

static const char* baseName(const char* p) {
    const char* s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/// The file's stem with every character outside [A-Za-z0-9_] made '_'.
static void stem(const char* path, char* out, size_t n) {
    snprintf(out, n, "%s", baseName(path));
    char* dot = strrchr(out, '.');
    if (dot && dot != out) *dot = 0;
    for (char* q = out; *q; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9')))
            *q = '_';
}

static const char* extension(const char* p) {
    const char* b = baseName(p);
    const char* d = strrchr(b, '.');
    return d ? d : "";
}

/// Drop vertices no tetrahedron uses (IPC's tet readers keep only those).
static int compact(alciMesh* m) {
    int* map = (int*)malloc(sizeof(int) * (size_t)m->nvert);
    if (!map) return 0;
    for (int i = 0; i < m->nvert; i++) map[i] = -1;
    for (int i = 0; i < 4 * m->ntet; i++) map[m->tet[i]] = 1;
    int n = 0;
    for (int i = 0; i < m->nvert; i++) {
        if (map[i] < 0) continue;
        map[i] = n;
        memmove(m->vert + 3 * n, m->vert + 3 * i, 3 * sizeof(double));
        n++;
    }
    for (int i = 0; i < 4 * m->ntet; i++) m->tet[i] = map[m->tet[i]];
    m->nvert = n;
    free(m->tri);
    m->tri = NULL;
    m->ntri = 0;
    free(map);
    return 1;
}

/// The vertices ('v' lines) of a segment (.seg) or point (.pt) file, or of the .obj of the same
/// stem when it is missing, as IPC falls back. Returns the count read (0: no file), -1: no memory.
static int readCodimVertices(const char* path, alciMesh* m) {
    FILE* f = fopen(path, "r");
    if (!f) {
        char alt[2100];
        snprintf(alt, sizeof alt, "%s", path);
        char* dot = strrchr(alt, '.');
        if (dot && strlen(dot) < 5) {
            memcpy(dot, ".obj", 5);
            f = fopen(alt, "r");
        }
    }
    if (!f) return 0;
    char line[512];
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        double x[3];
        if (line[0] != 'v' || (line[1] != ' ' && line[1] != '\t')) continue;
        if (sscanf(line + 2, "%lf %lf %lf", &x[0], &x[1], &x[2]) != 3) continue;
        if (m->nvert == cap) {
            cap = cap ? 2 * cap : 16;
            double* nv = (double*)realloc(m->vert, sizeof(double) * 3 * (size_t)cap);
            if (!nv) {
                fclose(f);
                return -1;
            }
            m->vert = nv;
        }
        memcpy(m->vert + 3 * m->nvert, x, sizeof x);
        m->nvert++;
    }
    fclose(f);
    return m->nvert;
}

/// Read shape i and apply its own transform: x = R (s * p) + t.
static int readShape(Ctx* c, int i, alctStatus* st) {
    alciIpcShape* sh = &c->s->shape[i];
    Part* P = &c->part[i];
    const char* ext = extension(sh->resolved);
    char path[2100], merr[1024];
    snprintf(path, sizeof path, "%s", sh->resolved);
    if (!strcmp(ext, ".seg") || !strcmp(ext, ".pt")) {
        // not imported, but its vertices count in IPC's boxes (`size`, the scripts' handles)
        P->skip = 1;
        int got = readCodimVertices(sh->resolved, &P->m);
        if (got < 0) return failf(c, st, ALC_ERR_NOMEM, "out of memory");
        if (sh->matrixIndex == 0)
            alci_ipc_message(c->s,
                             "%s:%d: warning: shape %d (%s%s) is codimensional (%s): alcove "
                             "simulates solids only; not imported%s",
                             c->s->path, sh->line, i, sh->path,
                             sh->matrixCount > 1 ? ", every copy of its shapeMatrix" : "",
                             !strcmp(ext, ".seg") ? "segments" : "points",
                             got ? "" : " (its file cannot be read: left out of the scene's box)");
        if (!got) return 1;
    } else if (!strcmp(ext, ".obj")) {
        P->solid = 0;
    } else if (!strcmp(ext, ".msh") || !strcmp(ext, ".node") || !strcmp(ext, ".ele")) {
        P->solid = 1;
    } else if (!ext[0]) {
        snprintf(path, sizeof path, "%s.node", sh->resolved);
        P->solid = 1;
    } else {
        return failf(c, st, ALC_ERR_SCENE, "%s:%d: shape %d: unsupported mesh format '%s'",
                     c->s->path, sh->line, i, ext);
    }
    if (!P->skip) {
        alctStatus s = alci_mesh_read(path, &P->m, merr, sizeof merr);
        if (s != ALC_OK)
            return failf(c, st, s == ALC_ERR_IO ? ALC_ERR_SCENE : s, "%s:%d: shape %d: %s",
                         c->s->path, sh->line, i, merr);
        if (P->solid && P->m.ntet == 0)
            return failf(c, st, ALC_ERR_SCENE, "%s:%d: shape %d: %s has no tetrahedra", c->s->path,
                         sh->line, i, path);
        if (P->solid && !compact(&P->m)) return failf(c, st, ALC_ERR_NOMEM, "out of memory");
        if (!P->solid && P->m.ntri == 0)
            return failf(c, st, ALC_ERR_SCENE, "%s:%d: shape %d: %s has no triangles", c->s->path,
                         sh->line, i, path);
    }
    int n = P->m.nvert;
    P->local = (double*)malloc(sizeof(double) * 3 * (size_t)n);
    P->rest = (double*)malloc(sizeof(double) * 3 * (size_t)n);
    P->onBoundary = (unsigned char*)calloc((size_t)n, 1);
    P->driver = (int*)malloc(sizeof(int) * (size_t)n);
    if (!P->local || !P->rest || !P->onBoundary || !P->driver)
        return failf(c, st, ALC_ERR_NOMEM, "out of memory");
    memcpy(P->local, P->m.vert, sizeof(double) * 3 * (size_t)n);
    for (int v = 0; v < n; v++) P->driver[v] = -1;
    double R[9];
    ipcRotation(sh->rot, R);
    for (int v = 0; v < n; v++) {
        double p[3], q[3];
        for (int k = 0; k < 3; k++) p[k] = P->m.vert[3 * v + k] * sh->scale[k];
        mulRv(R, p, q);
        for (int k = 0; k < 3; k++) P->m.vert[3 * v + k] = q[k] + sh->trans[k];
    }
    if (P->solid) {
        // a mirroring scale turns the tetrahedra over: reorient them
        if (alci_mesh_validate(&P->m, 1, merr, sizeof merr) != ALC_OK ||
            alci_mesh_boundary(&P->m, merr, sizeof merr) != ALC_OK)
            return failf(c, st, ALC_ERR_SCENE, "%s:%d: shape %d (%s): %s", c->s->path, sh->line, i,
                         path, merr);
    }
    for (int t = 0; t < 3 * P->m.ntri; t++) P->onBoundary[P->m.tri[t]] = 1;
    char st2[96];
    stem(sh->path, st2, sizeof st2);
    snprintf(P->name, sizeof P->name, "s%02d_%s", i, st2);
    return 1;
}

/// rotateModel, then `size`: world = f * rotated - min, rest = f * unrotated - min (src/main.cpp).
static void placeScene(Ctx* c, alciIpcResult* res) {
    alciIpcScript* s = c->s;
    double lo[3], hi[3];
    for (int p = 0; p < c->npart; p++)
        if (c->part[p].m.nvert > 0)
            memcpy(c->part[p].rest, c->part[p].m.vert,
                   sizeof(double) * 3 * (size_t)c->part[p].m.nvert);
    if (s->rotDeg != 0) {
        // IPC rotates about half the extent (not the box centre); `size` below removes the offset
        partsBox(c, 0, 0, lo, hi);
        double ctr[3] = {(hi[0] - lo[0]) / 2, (hi[1] - lo[1]) / 2, (hi[2] - lo[2]) / 2}, R[9];
        axisRotation(s->rotAxis, s->rotDeg * M_PI / 180, R);
        for (int p = 0; p < c->npart; p++) {
            Part* P = &c->part[p];
            for (int v = 0; v < P->m.nvert; v++) {
                double d[3], q[3];
                for (int k = 0; k < 3; k++) d[k] = P->m.vert[3 * v + k] - ctr[k];
                mulRv(R, d, q);
                for (int k = 0; k < 3; k++) P->m.vert[3 * v + k] = q[k] + ctr[k];
            }
        }
        if (s->size <= 0)
            alci_ipc_message(s,
                             "%s: note: rotateModel without size: positions rotated about "
                             "IPC's centre (half the extent)",
                             s->path);
    }
    res->scaleFactor = 1;
    memset(res->shift, 0, sizeof res->shift);
    if (s->size > 0 && partsBox(c, 0, 0, lo, hi)) {
        double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
        double f = ext > 0 ? s->size / ext : 1;
        res->scaleFactor = f;
        for (int k = 0; k < 3; k++) res->shift[k] = -f * lo[k];
        for (int p = 0; p < c->npart; p++) {
            Part* P = &c->part[p];
            for (int i = 0; i < 3 * P->m.nvert; i++) {
                P->m.vert[i] = f * P->m.vert[i] + res->shift[i % 3];
                P->rest[i] = f * P->rest[i] + res->shift[i % 3];
            }
        }
    }
}

static int addDriver(Ctx* c, int part, const char* name, Driver** out) {
    Driver* nd = (Driver*)realloc(c->drv, sizeof *nd * (size_t)(c->ndrv + 1));
    if (!nd) return 0;
    c->drv = nd;
    Driver* d = &c->drv[c->ndrv];
    memset(d, 0, sizeof *d);
    d->part = part;
    snprintf(d->name, sizeof d->name, "%s", name);
    d->end = HUGE_VAL;
    d->release = HUGE_VAL;
    d->past = (double)NAN;
    *out = d;
    c->ndrv++;
    return 1;
}

/// Shape DBCs (script null): boundary vertices in a box relative to the shape's file box.
static int shapeDbcs(Ctx* c) {
    alciIpcScript* s = c->s;
    for (int p = 0; p < c->npart; p++) {
        Part* P = &c->part[p];
        alciIpcShape* sh = &s->shape[p];
        if (P->skip || sh->ndbc == 0) continue;
        if (!P->solid) {
            alci_ipc_message(s,
                             "%s:%d: warning: DBC on a surface shape: obstacles are fixed; ignored",
                             s->path, sh->line);
            continue;
        }
        double lo[3], hi[3];
        bbox(P->local, P->m.nvert, lo, hi);
        for (int j = 0; j < sh->ndbc; j++) {
            alciIpcDbc* b = &sh->dbc[j];
            char nm[32];
            snprintf(nm, sizeof nm, "dbc%d", j);
            Driver* d;
            if (!addDriver(c, p, nm, &d)) return 0;
            int id = c->ndrv - 1, overlap = 0;
            for (int v = 0; v < P->m.nvert; v++) {
                if (!P->onBoundary[v]) continue;
                int in = 1;
                for (int k = 0; k < 3; k++) {
                    double x = P->local[3 * v + k];
                    if (x < (hi[k] - lo[k]) * b->bmin[k] + lo[k] ||
                        x > (hi[k] - lo[k]) * b->bmax[k] + lo[k])
                        in = 0;
                }
                if (!in) continue;
                if (P->driver[v] >= 0) {
                    overlap++;
                    continue;
                }
                P->driver[v] = id;
                d->nsel++;
            }
            if (overlap)
                alci_ipc_message(s,
                                 "%s:%d: warning: DBC %d shares %d vertices with an earlier DBC; "
                                 "IPC adds both motions, alcove keeps the first",
                                 s->path, b->line, j, overlap);
            double w = sqrt(b->omega[0] * b->omega[0] + b->omega[1] * b->omega[1] +
                            b->omega[2] * b->omega[2]);
            int moving = w > 0 || b->vel[0] != 0 || b->vel[1] != 0 || b->vel[2] != 0;
            d->type = w > 0 ? 2 : moving ? 1 : 0;
            memcpy(d->vel, b->vel, sizeof d->vel);
            if (w > 0) {
                int nz = (b->omega[0] != 0) + (b->omega[1] != 0) + (b->omega[2] != 0);
                if (nz > 1)
                    alci_ipc_message(s,
                                     "%s:%d: note: DBC %d turns about more than one axis; IPC "
                                     "composes Rx Ry Rz each step, alcove turns about w/|w|",
                                     s->path, b->line, j);
                for (int k = 0; k < 3; k++) d->axis[k] = b->omega[k] / w;
                d->omega = w;
                // about the centre of the selected vertices' box, as IPC
                double a[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL},
                       z[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
                for (int v = 0; v < P->m.nvert; v++)
                    if (P->driver[v] == id)
                        for (int k = 0; k < 3; k++) {
                            a[k] = fmin(a[k], P->m.vert[3 * v + k]);
                            z[k] = fmax(z[k], P->m.vert[3 * v + k]);
                        }
                for (int k = 0; k < 3; k++) d->center[k] = 0.5 * (a[k] + z[k]);
            }
            d->start = b->t0;
            if (b->t0 > 0)
                alci_ipc_message(s,
                                 "%s:%d: warning: DBC %d starts at %g s: IPC leaves the vertices "
                                 "free before, alcove holds them still",
                                 s->path, b->line, j, b->t0);
            if (isfinite(b->t1)) d->end = d->release = b->t1;
            if (d->nsel == 0) {
                alci_ipc_message(s, "%s:%d: warning: DBC %d selects no vertex; ignored", s->path,
                                 b->line, j);
                c->ndrv--;
            }
        }
    }
    return 1;
}

// ---- the DCO and handle scripts (AnimScripter::initAnimScript, stepAnimScript) --------------

/// A driver on every vertex of part p: written as the body's or obstacle's own `motion:`. *out is
/// NULL for a part that is not imported (codimensional segments or points, already warned).
/// Returns 0 when out of memory.
static int wholeDriver(Ctx* c, int p, const char* name, Driver** out) {
    *out = NULL;
    Part* P = &c->part[p];
    if (P->skip || P->m.nvert == 0) return 1;
    Driver* d;
    if (!addDriver(c, p, name, &d)) return 0;
    int id = c->ndrv - 1;
    for (int v = 0; v < P->m.nvert; v++) P->driver[v] = id;
    d->nsel = P->m.nvert;
    d->whole = 1;
    *out = d;
    return 1;
}

/// Scripts that drive some shapes clear IPC's list of fixed vertices first, so the surface shapes
/// from index `from` on that they do not drive become free: alcove keeps them fixed.
static void noteFreedSurfaces(Ctx* c, int from) {
    alciIpcScript* s = c->s;
    int n = 0, first = -1;
    for (int p = from; p < c->npart; p++)
        if (!c->part[p].skip && !c->part[p].solid) {
            if (first < 0) first = p;
            n++;
        }
    if (n)
        alci_ipc_message(
            s,
            "%s:%d: note: script %s leaves %d surface shape(s) (from shape %d) free in "
            "IPC; alcove keeps them as fixed obstacles",
            s->path, s->scriptLine, s->script, n, first);
}

/// Whether |x - thr| is within rounding of the threshold (IPC's own rounding then decides).
static int nearTie(double x, double thr) {
    return fabs(x - thr) <= 1e-9 * fmax(1.0, fabs(thr));
}

/// DCORotCylinders: shapes 0-3 turn at constant angular velocity about the centre of their own
/// bounding box (taken at the start): pi/2 rad/s about +x, -x, then -z, +z (MCOAngVel).
static int scriptRotCylinders(Ctx* c) {
    alciIpcScript* s = c->s;
    static const int axis[4] = {0, 0, 2, 2};
    static const double omega[4] = {0.5 * M_PI, -0.5 * M_PI, -0.5 * M_PI, 0.5 * M_PI};
    if (c->npart < 5)
        alci_ipc_message(s,
                         "%s:%d: warning: script DCORotCylinders expects at least 5 shapes (4 "
                         "turning, then the simulated ones); there are %d",
                         s->path, s->scriptLine, c->npart);
    for (int p = 0; p < 4 && p < c->npart; p++) {
        Driver* d;
        if (!wholeDriver(c, p, "rotcylinder", &d)) return 0;
        if (!d) continue;
        double lo[3], hi[3];
        bbox(c->part[p].m.vert, c->part[p].m.nvert, lo, hi);
        d->type = 2;
        d->axis[axis[p]] = 1;
        d->omega = omega[p];
        for (int k = 0; k < 3; k++) d->center[k] = 0.5 * (lo[k] + hi[k]);
    }
    noteFreedSurfaces(c, 4);
    return 1;
}

/// DCOSquash6: shapes 0-5 move at 1 m/s along +x, -x, +y, -y, +z, -z. At the start of every step
/// IPC reverses all six when (min x of shape 1) - (max x of shape 0) < 0.1. The reversals are
/// found here by stepping that test as IPC does; one reversal becomes keyframes.
static int scriptSquash6(Ctx* c, const alciIpcResult* res) {
    alciIpcScript* s = c->s;
    int line = s->scriptLine, steps = res->steps;
    double dt = s->dt;
    if (c->npart < 7)
        alci_ipc_message(s,
                         "%s:%d: warning: script DCOSquash6 expects at least 7 shapes (6 moving, "
                         "then the simulated ones); there are %d",
                         s->path, line, c->npart);
    // the reversals over the run
    int flips = 0, kflip = -1, tie = 0;
    if (c->npart >= 2 && c->part[0].m.nvert && c->part[1].m.nvert) {
        double lo[3], hi[3], lo1[3], hi1[3];
        bbox(c->part[0].m.vert, c->part[0].m.nvert, lo, hi);
        bbox(c->part[1].m.vert, c->part[1].m.nvert, lo1, hi1);
        double a = hi[0], b = lo1[0], sign = 1;
        for (int k = 0; k < steps; k++) {
            if (b - a < 0.1) {
                sign = -sign;
                if (!flips++) kflip = k;
            }
            if (nearTie(b - a, 0.1)) tie = 1;
            a += sign * dt;
            b -= sign * dt;
        }
    } else {
        alci_ipc_message(s,
                         "%s:%d: warning: script DCOSquash6: shapes 0 and 1 are needed for the "
                         "reversal test; the walls are imported without reversal",
                         s->path, line);
    }
    double T = kflip * dt, tEnd = steps * dt;
    for (int p = 0; p < 6 && p < c->npart; p++) {
        Driver* d;
        if (!wholeDriver(c, p, "squash", &d)) return 0;
        if (!d) continue;
        double v[3] = {0, 0, 0};
        v[p / 2] = p % 2 ? -1 : 1;
        if (flips >= 2) {
            d->type = 0;
        } else if (flips == 0 || kflip == 0) {
            d->type = 1;
            for (int k = 0; k < 3; k++) d->vel[k] = flips ? -v[k] : v[k];
        } else {
            d->type = 3;
            d->nkey = 3;
            d->key[1][0] = T;
            d->key[2][0] = tEnd;
            for (int k = 0; k < 3; k++) {
                d->key[1][1 + k] = v[k] * T;
                d->key[2][1 + k] = v[k] * (2 * T - tEnd);
            }
        }
    }
    if (flips >= 2)
        alci_ipc_message(s,
                         "%s:%d: warning: script DCOSquash6: the walls start less than 0.1 + 2 dt "
                         "apart, so IPC reverses them every step (they jitter in place); imported "
                         "as fixed",
                         s->path, line);
    else if (flips == 1)
        alci_ipc_message(s,
                         "%s:%d: note: script DCOSquash6: the reversal time %.9g s (step %d) was "
                         "computed from the initial gap between shapes 0 and 1 (closing at 2 m/s, "
                         "IPC's test gap < 0.1 at the start of each step of %g s); the walls are "
                         "keyframed%s",
                         s->path, line, T, kflip, dt,
                         tie ? "; the gap meets 0.1 within rounding, so IPC's own rounding may "
                               "reverse one step apart"
                             : "");
    else
        alci_ipc_message(s,
                         "%s:%d: note: script DCOSquash6: computed from the initial gap between "
                         "shapes 0 and 1, the walls do not reverse within the run (%d steps)",
                         s->path, line, steps);
    noteFreedSurfaces(c, 6);
    return 1;
}

/// DCOSqueezeOut: every surface shape is fixed but shape 0, which moves at -0.3 m/s along y while
/// (max y of shape 0) > bmin + (bmax - bmin) / 3.8 * 0.9, with [bmin, bmax] the y range of shape 1
/// (tested at the start of each step): a `linear` motion with the stop time found by stepping.
static int scriptSqueezeOut(Ctx* c, const alciIpcResult* res) {
    alciIpcScript* s = c->s;
    int line = s->scriptLine, steps = res->steps;
    if (c->npart < 1 || c->part[0].solid) {
        alci_ipc_message(s,
                         "%s:%d: warning: script DCOSqueezeOut moves shape 0 only when it is a "
                         "surface shape; nothing moves",
                         s->path, line);
        return 1;
    }
    Part* top = &c->part[0];
    if (top->skip) return 1;  // not imported: warned with the shape
    double lo[3], hi[3], thr = -HUGE_VAL;
    bbox(top->m.vert, top->m.nvert, lo, hi);
    int bounded = c->npart > 1 && !c->part[1].solid && c->part[1].m.nvert > 0;
    if (bounded) {
        double blo[3], bhi[3];
        bbox(c->part[1].m.vert, c->part[1].m.nvert, blo, bhi);
        thr = blo[1] + (bhi[1] - blo[1]) / 3.8 * 0.9;
    }
    double y = hi[1], yPrev = y;
    int n = 0;
    while (n < steps && y > thr) {
        yPrev = y;
        y -= 0.3 * s->dt;
        n++;
    }
    int tie = bounded && (nearTie(y, thr) || nearTie(yPrev, thr));
    Driver* d;
    if (!wholeDriver(c, 0, "squeeze", &d)) return 0;
    d->type = n > 0 ? 1 : 0;
    d->vel[1] = n > 0 ? -0.3 : 0;
    if (n > 0 && n < steps) d->end = n * s->dt;
    if (!bounded)
        alci_ipc_message(s,
                         "%s:%d: warning: script DCOSqueezeOut: shape 1 is not a surface shape, so "
                         "IPC has no stop height: shape 0 moves down for the whole run",
                         s->path, line);
    else
        alci_ipc_message(s,
                         "%s:%d: note: script DCOSqueezeOut: shape 0 moves at -0.3 m/s along y "
                         "and stops at %.9g s (step %d), computed from its top %.9g m and the stop "
                         "height %.9g m of shape 1%s; IPC's current source starts the minimum of "
                         "shape 1 at -inf, which makes its test always false (the plane never "
                         "moves): the importer follows the paper's version of the script",
                         s->path, line, n * s->dt, n, hi[1], thr,
                         tie ? " (met within rounding: IPC may stop a step apart)" : "");
    return 1;
}

/// pushRightMost1: the first vertex in IPC's order whose x exceeds max x - 1e-3 x range is pushed
/// at -0.15 m/s along x for the whole run; every other vertex is free.
static int scriptPushRightMost(Ctx* c) {
    alciIpcScript* s = c->s;
    double lo[3], hi[3];
    partsBox(c, 0, 0, lo, hi);  // IPC's mesh.V: every shape, codimensional ones included
    double thr = hi[0] - 1e-3 * (hi[0] - lo[0]);
    for (int p = 0; p < c->npart; p++) {
        Part* P = &c->part[p];
        for (int v = 0; v < P->m.nvert; v++) {
            if (!(P->m.vert[3 * v] > thr)) continue;
            if (P->skip || !P->solid) {
                alci_ipc_message(s,
                                 "%s:%d: warning: script pushRightMost1: the pushed vertex is on "
                                 "%s shape %d, which alcove does not move; no driver written",
                                 s->path, s->scriptLine, P->skip ? "codimensional" : "surface", p);
            } else {
                Driver* d;
                if (!addDriver(c, p, "push", &d)) return 0;
                P->driver[v] = c->ndrv - 1;
                d->nsel = 1;
                d->type = 1;
                d->vel[0] = -0.15;
            }
            noteFreedSurfaces(c, 0);
            return 1;
        }
    }
    return 1;
}

/// stretchAndPause: vertices within 1% of the x range of the left end move at -1 m/s along x, of
/// the right end at +1 m/s, while the last left one (IPC's turning point) has x >= -0.28 at the
/// start of a step; then they are held. `linear` motions with the stop time found by stepping.
static int scriptStretchAndPause(Ctx* c, const alciIpcResult* res) {
    alciIpcScript* s = c->s;
    int line = s->scriptLine, steps = res->steps;
    double lo[3], hi[3];
    partsBox(c, 0, 0, lo, hi);  // IPC's mesh.V: every shape, codimensional ones included
    double range = hi[0] - lo[0];
    double left = lo[0] + range * 0.01, right = hi[0] - range * 0.01;
    int turnPart = -1, turnVert = -1;
    for (int p = 0; p < c->npart; p++)
        for (int v = 0; v < c->part[p].m.nvert; v++)
            if (c->part[p].m.vert[3 * v] < left) {
                turnPart = p;
                turnVert = v;
            }
    if (turnPart < 0) return 1;
    double x = c->part[turnPart].m.vert[3 * turnVert], xPrev = x;
    int n = 0;
    while (n < steps && x >= -0.28) {
        xPrev = x;
        x -= s->dt;
        n++;
    }
    int tie = nearTie(x, -0.28) || nearTie(xPrev, -0.28), onSurface = 0;
    for (int p = 0; p < c->npart; p++) {
        Part* P = &c->part[p];
        if (P->skip) continue;
        for (int side = 0; side < 2; side++) {
            Driver* d;
            if (!addDriver(c, p, side ? "stretch_right" : "stretch_left", &d)) return 0;
            int id = c->ndrv - 1;
            for (int v = 0; v < P->m.nvert; v++) {
                double px = P->m.vert[3 * v];
                int sel = side ? !(px < left) && px > right : px < left;
                if (!sel) continue;
                if (!P->solid) {
                    onSurface = 1;
                    continue;
                }
                P->driver[v] = id;
                d->nsel++;
            }
            d->type = n > 0 ? 1 : 0;
            d->vel[0] = n > 0 ? (side ? 1 : -1) : 0;
            if (n > 0 && n < steps) d->end = n * s->dt;
            if (d->nsel == 0) c->ndrv--;
        }
    }
    if (onSurface)
        alci_ipc_message(s,
                         "%s:%d: warning: script stretchAndPause: handle vertices on surface "
                         "shapes are not moved (obstacles stay fixed)",
                         s->path, line);
    alci_ipc_message(s,
                     "%s:%d: note: script stretchAndPause: the handles stop at %.9g s (step %d), "
                     "when IPC's turning vertex (vertex %d of shape %d, x = %.9g m) passes x = "
                     "-0.28 m, computed by stepping IPC's test%s",
                     s->path, line, n * s->dt, n, turnVert, turnPart,
                     c->part[turnPart].m.vert[3 * turnVert],
                     tie ? " (met within rounding: IPC may stop a step apart)" : "");
    noteFreedSurfaces(c, 0);
    return 1;
}

/// DCOBallHitWall: surface shapes fixed; every simulated vertex starts at v m/s along x (the
/// script's first parameter, 1000 m/s without one; AnimScripter::initVelocity).
static void scriptBallHitWall(Ctx* c) {
    alciIpcScript* s = c->s;
    double v = 1000;
    if (s->nparam > 0 && s->param[0] == s->param[0]) v = s->param[0];
    if (s->nparam == 0)
        alci_ipc_message(s,
                         "%s:%d: note: script DCOBallHitWall without parameters: IPC's default "
                         "initial velocity 1000 m/s along x",
                         s->path, s->scriptLine);
    for (int p = 0; p < c->npart; p++) {
        if (c->part[p].skip || !c->part[p].solid) continue;
        alciIpcShape* sh = &s->shape[p];
        sh->hasInitVel = 1;
        sh->initLV[0] = v;
        sh->initLV[1] = sh->initLV[2] = 0;
        sh->initAV[0] = sh->initAV[1] = sh->initAV[2] = 0;
    }
}

/// The scripts: twist, dragright, DCOFix, fall, null, and the paper's DCOBallHitWall,
/// DCORotCylinders, DCOSquash6, DCOSqueezeOut, pushRightMost1, stretchAndPause (above); anything
/// else is named.
static int scriptMotions(Ctx* c, alciIpcResult* res) {
    alciIpcScript* s = c->s;
    const char* sc = s->script;
    int line = s->scriptLine;
    int nobjShapes = 0, ndbc = 0;
    for (int p = 0; p < c->npart; p++) {
        nobjShapes += !c->part[p].skip && !c->part[p].solid;
        ndbc += s->shape[p].ndbc;
    }
    res->lift = 0;
    int lift = !strcmp(sc, "fall") || !strcmp(sc, "dragright") || !strcmp(sc, "dragdown");
    if (lift) {
        // the scripts lift the whole mesh by half its box diagonal (AnimScripter::initAnimScript)
        double lo[3], hi[3];
        partsBox(c, 0, 0, lo, hi);
        double dy =
            0.5 * sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                       (hi[2] - lo[2]) * (hi[2] - lo[2]));
        res->lift = dy;
        for (int p = 0; p < c->npart; p++)
            for (int v = 0; v < c->part[p].m.nvert; v++) c->part[p].m.vert[3 * v + 1] += dy;
    }
    if (ndbc && strcmp(sc, "null") != 0)
        alci_ipc_message(s,
                         "%s:%d: warning: script %s: IPC applies the shapes' DBC only with script "
                         "null; they are ignored",
                         s->path, line, sc);
    // initial velocities: IPC sets them with script null only, turning about the shape's box centre
    for (int p = 0; p < c->npart; p++) {
        alciIpcShape* sh = &s->shape[p];
        if (!sh->hasInitVel) continue;
        if (strcmp(sc, "null") != 0) {
            alci_ipc_message(s,
                             "%s:%d: warning: initVel: IPC applies it with script null only; "
                             "ignored under script %s",
                             s->path, sh->line, sc);
            sh->hasInitVel = 0;
        } else if (sh->initAV[0] != 0 || sh->initAV[1] != 0 || sh->initAV[2] != 0) {
            alci_ipc_message(s,
                             "%s:%d: note: initVel: alcove turns the body about its centroid, IPC "
                             "about its bounding-box centre",
                             s->path, sh->line);
        }
    }
    if (!strcmp(sc, "null")) return shapeDbcs(c);
    if (!strcmp(sc, "DCOFix") || !strcmp(sc, "fallNoShift")) return 1;
    if (!strcmp(sc, "DCOBallHitWall")) {
        scriptBallHitWall(c);
        return 1;
    }
    if (!strcmp(sc, "DCORotCylinders")) return scriptRotCylinders(c);
    if (!strcmp(sc, "DCOSquash6")) return scriptSquash6(c, res);
    if (!strcmp(sc, "DCOSqueezeOut")) return scriptSqueezeOut(c, res);
    if (!strcmp(sc, "pushRightMost1")) return scriptPushRightMost(c);
    if (!strcmp(sc, "stretchAndPause")) return scriptStretchAndPause(c, res);
    if (!strcmp(sc, "fall")) {
        if (nobjShapes)
            alci_ipc_message(s,
                             "%s:%d: note: script fall frees IPC's surface shapes; alcove keeps "
                             "them as fixed obstacles",
                             s->path, line);
        return 1;
    }
    if (!strcmp(sc, "twist")) {
        // handles: vertices within handleRatio of the rest box's x ends (findBorderVerts), turned
        // at -0.4 pi (left) and +0.4 pi rad/s (right) about x through the rest box's centre
        double lo[3], hi[3];
        partsBox(c, 0, 1, lo, hi);
        double range = hi[0] - lo[0];
        double ctr[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
        for (int p = 0; p < c->npart; p++) {
            Part* P = &c->part[p];
            if (P->skip) continue;
            for (int side = 0; side < 2; side++) {
                Driver* d;
                if (!addDriver(c, p, side ? "twist_right" : "twist_left", &d)) return 0;
                int id = c->ndrv - 1;
                for (int v = 0; v < P->m.nvert; v++) {
                    double x = P->rest[3 * v];
                    int sel = side ? x > hi[0] - range * s->handleRatio &&
                                         !(x < lo[0] + range * s->handleRatio)
                                   : x < lo[0] + range * s->handleRatio;
                    if (sel && P->driver[v] < 0) {
                        P->driver[v] = id;
                        d->nsel++;
                    }
                }
                d->type = 2;
                d->axis[0] = 1;
                d->omega = side ? 0.4 * M_PI : -0.4 * M_PI;
                memcpy(d->center, ctr, sizeof ctr);
                if (d->nsel && !P->solid) {
                    alci_ipc_message(s,
                                     "%s:%d: warning: twist handles on surface shape %d: "
                                     "obstacles stay fixed",
                                     s->path, line, p);
                    for (int v = 0; v < P->m.nvert; v++)
                        if (P->driver[v] == id) P->driver[v] = -1;
                    d->nsel = 0;
                }
                if (d->nsel == 0) c->ndrv--;
            }
        }
        if (s->rotDeg != 0)
            alci_ipc_message(s,
                             "%s:%d: note: twist with rotateModel: handles picked on the "
                             "unrotated rest shape, as IPC does",
                             s->path, line);
        return 1;
    }
    if (!strcmp(sc, "dragright")) {
        // handles: vertices within 4% of the box's right end, dragged at 0.5 m/s along x; IPC
        // frees them once the whole mesh is right of every meshCO
        double lo[3], hi[3];
        partsBox(c, 0, 0, lo, hi);
        double coRight = -HUGE_VAL;
        for (int i = 0; i < s->nco; i++)
            if (s->co[i].isMesh) coRight = s->co[i].origin[0];
        // (the meshCOs' right end is known once they are read: alci_ipc_import sets the release)
        if (!isfinite(coRight)) {
            alci_ipc_message(s,
                             "%s:%d: warning: script dragright without meshCO: IPC frees the "
                             "handles in its first step; no driver written",
                             s->path, line);
            return 1;
        }
        for (int p = 0; p < c->npart; p++) {
            Part* P = &c->part[p];
            if (P->skip) continue;
            Driver* d;
            if (!addDriver(c, p, "dragright", &d)) return 0;
            int id = c->ndrv - 1;
            for (int v = 0; v < P->m.nvert; v++)
                if (P->m.vert[3 * v] > hi[0] - (hi[0] - lo[0]) * 0.04) {
                    if (!P->solid) continue;
                    P->driver[v] = id;
                    d->nsel++;
                }
            d->type = 1;
            d->vel[0] = 0.5;
            if (d->nsel == 0) c->ndrv--;
        }
        return 1;
    }
    alci_ipc_message(s,
                     "%s:%d: warning: script %s is not supported: no scripted motion imported "
                     "(bodies are free, surface shapes fixed)",
                     s->path, line, sc);
    return 1;
}

// ---- writing ------------------------------------------------------------------------------

static alctStatus writeMsh(const char* path, const alciMesh* m, char* err, int errsz) {
    alciFile f;
    alctStatus s = alci_file_open(&f, path, err, errsz);
    if (s != ALC_OK) return s;
    alci_file_printf(&f, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", m->nvert);
    for (int v = 0; v < m->nvert; v++)
        alci_file_printf(&f, "%d %.17g %.17g %.17g\n", v + 1, m->vert[3 * v], m->vert[3 * v + 1],
                         m->vert[3 * v + 2]);
    alci_file_printf(&f, "$EndNodes\n$Elements\n%d\n", m->ntet);
    for (int t = 0; t < m->ntet; t++)
        alci_file_printf(&f, "%d 4 0 %d %d %d %d\n", t + 1, m->tet[4 * t] + 1,
                         m->tet[4 * t + 1] + 1, m->tet[4 * t + 2] + 1, m->tet[4 * t + 3] + 1);
    alci_file_printf(&f, "$EndElements\n");
    return alci_file_commit(&f, err, errsz);
}

static alctStatus writeObj(const char* path, const alciMesh* m, char* err, int errsz) {
    alciFile f;
    alctStatus s = alci_file_open(&f, path, err, errsz);
    if (s != ALC_OK) return s;
    for (int v = 0; v < m->nvert; v++)
        alci_file_printf(&f, "v %.17g %.17g %.17g\n", m->vert[3 * v], m->vert[3 * v + 1],
                         m->vert[3 * v + 2]);
    for (int t = 0; t < m->ntri; t++)
        alci_file_printf(&f, "f %d %d %d\n", m->tri[3 * t] + 1, m->tri[3 * t + 1] + 1,
                         m->tri[3 * t + 2] + 1);
    return alci_file_commit(&f, err, errsz);
}

/// Read and place a meshCO: x = origin + scale / (largest extent) * R (p - mean p) (MeshCO.cpp).
static int readMeshCO(Ctx* c, alciIpcCO* co, alciMesh* m, alctStatus* st) {
    char merr[1024];
    alctStatus s = alci_mesh_read(co->resolved, m, merr, sizeof merr);
    if (s != ALC_OK)
        return failf(c, st, ALC_ERR_SCENE, "%s:%d: meshCO: %s", c->s->path, co->line, merr);
    if (m->ntri == 0 || m->nvert == 0)
        return failf(c, st, ALC_ERR_SCENE, "%s:%d: meshCO %s has no triangles", c->s->path,
                     co->line, co->resolved);
    double mean[3] = {0, 0, 0}, lo[3], hi[3], R[9];
    for (int v = 0; v < m->nvert; v++)
        for (int k = 0; k < 3; k++) mean[k] += m->vert[3 * v + k] / m->nvert;
    bbox(m->vert, m->nvert, lo, hi);
    double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    double f = ext > 0 ? co->scale / ext : 1;
    ipcRotation(co->rot, R);
    for (int v = 0; v < m->nvert; v++) {
        double d[3], q[3];
        for (int k = 0; k < 3; k++) d[k] = m->vert[3 * v + k] - mean[k];
        mulRv(R, d, q);
        for (int k = 0; k < 3; k++) m->vert[3 * v + k] = co->origin[k] + f * q[k];
    }
    return 1;
}

static void num(alciFile* f, double x) {
    if (isinf(x))
        alci_file_printf(f, x > 0 ? ".inf" : "-.inf");
    else
        alci_file_printf(f, "%.15g", x == 0 ? 0.0 : x);
}

static void vec(alciFile* f, const double* x) {
    alci_file_printf(f, "[");
    for (int k = 0; k < 3; k++) {
        if (k) alci_file_printf(f, ", ");
        num(f, x[k]);
    }
    alci_file_printf(f, "]");
}

/// The motion map of a driver: {type: ..., ...}.
static void writeMotion(alciFile* f, const Driver* d) {
    static const char* const types[] = {"fixed", "linear", "rotate", "keyframes"};
    alci_file_printf(f, "{type: %s", types[d->type]);
    if (d->type == 1 || d->type == 2) {
        alci_file_printf(f, ", velocity: ");
        vec(f, d->vel);
    }
    if (d->type == 2) {
        alci_file_printf(f, ", axis: ");
        vec(f, d->axis);
        alci_file_printf(f, ", center: ");
        vec(f, d->center);
        alci_file_printf(f, ", angular_speed: ");
        num(f, d->omega);
    }
    if (d->type == 3) {
        alci_file_printf(f, ", keys: [");
        for (int i = 0; i < d->nkey; i++) {
            alci_file_printf(f, "%s{time: ", i ? ", " : "");
            num(f, d->key[i][0]);
            alci_file_printf(f, ", position: ");
            vec(f, d->key[i] + 1);
            alci_file_printf(f, "}");
        }
        alci_file_printf(f, "]");
    }
    if (d->type != 3 && d->start > 0) {
        alci_file_printf(f, ", start: ");
        num(f, d->start);
    }
    if (d->type != 3 && isfinite(d->end)) {
        alci_file_printf(f, ", end: ");
        num(f, d->end);
    }
    if (isfinite(d->release)) {
        alci_file_printf(f, ", release: ");
        num(f, d->release);
    }
    if (isfinite(d->past)) {
        alci_file_printf(f, ", release_past: {direction: [1, 0, 0], offset: ");
        num(f, d->past);
        alci_file_printf(f, "}");
    }
    alci_file_printf(f, "}\n");
}

/// The part's own `motion:` (a driver on all its vertices), if any.
static void writeWholeMotion(alciFile* f, const Ctx* c, int p) {
    for (int k = 0; k < c->ndrv; k++) {
        const Driver* d = &c->drv[k];
        if (d->part != p || d->nsel == 0 || !d->whole) continue;
        alci_file_printf(f, "    motion: ");
        writeMotion(f, d);
        return;
    }
}

static void writeDrivers(alciFile* f, const Ctx* c, int p) {
    const Part* P = &c->part[p];
    int any = 0;
    for (int k = 0; k < c->ndrv; k++) {
        const Driver* d = &c->drv[k];
        if (d->part != p || d->nsel == 0 || d->whole) continue;
        if (!any) alci_file_printf(f, "    drivers:\n");
        any = 1;
        alci_file_printf(f, "      - name: %s\n        select: {indices: [", d->name);
        int n = 0;
        for (int v = 0; v < P->m.nvert; v++) {
            if (P->driver[v] != k) continue;
            alci_file_printf(f, "%s%s%d", n ? "," : "",
                             n && n % 16 == 0 ? "\n            "
                             : n              ? " "
                                              : "",
                             v);
            n++;
        }
        alci_file_printf(f, "]}\n        motion: ");
        writeMotion(f, d);
    }
}

/// The material of shape p: "mat" or "mat<p>" for a shape's own `material`.
static void materialName(const alciIpcScript* s, int p, char* out, size_t n) {
    const double* m = s->shape[p].mat;
    if (isfinite(m[0]) && isfinite(m[1]) && isfinite(m[2]) && m[0] > 0 && m[1] > 0)
        snprintf(out, n, "mat%d", p);
    else
        snprintf(out, n, "mat");
}

static void writeMaterial(alciFile* f, const alciIpcScript* s, const char* name, double rho,
                          double E, double nu) {
    alci_file_printf(f, "  %s: {model: %s, density: ", name, s->energyFCR ? "fcr" : "nh");
    num(f, rho);
    alci_file_printf(f, ", youngs_modulus: ");
    num(f, E);
    alci_file_printf(f, ", poisson_ratio: ");
    num(f, nu);
    if (s->selfFric > 0) {
        alci_file_printf(f, ", friction: ");
        num(f, s->selfFric);
    }
    alci_file_printf(f, "}\n");
}

/// Plane obstacle for a half-space: a square of side size, centred at the projection of centre.
static void writeHalfSpace(alciFile* f, const alciIpcCO* co, int i, const double centre[3],
                           double size) {
    const double* n = co->normal;
    double d = 0, pos[3];
    for (int k = 0; k < 3; k++) d += (centre[k] - co->origin[k]) * n[k];
    for (int k = 0; k < 3; k++) pos[k] = centre[k] - d * n[k];
    alci_file_printf(f, "  - name: co%d_halfspace\n    mesh: {plane: {size: ", i);
    num(f, size);
    alci_file_printf(f, "}}\n    position: ");
    vec(f, pos);
    // the plane's normal is +y: turn +y onto n
    double ax[3] = {n[2], 0, -n[0]}, s = sqrt(n[2] * n[2] + n[0] * n[0]);
    double ang = acos(fmax(-1.0, fmin(1.0, n[1]))) * 180 / M_PI;
    if (s < 1e-12) {
        ax[0] = 1;
        ax[2] = 0;
    } else {
        ax[0] /= s;
        ax[2] /= s;
    }
    if (ang > 1e-12) {
        alci_file_printf(f, "\n    rotation: {axis: ");
        vec(f, ax);
        alci_file_printf(f, ", angle: ");
        num(f, ang);
        alci_file_printf(f, "}");
    }
    alci_file_printf(f, "\n    material: co%d\n", i);
}

static const char* const linearSolverNames[] = {"pcg", "direct", "auto"};

/// The linear solver to write: the one asked for, else "direct" where a body is stiff for the
/// step. h c / D compares the step with the time an elastic wave (c = sqrt(E / density)) takes
/// to cross the body (D, its box diagonal): above 1 the body's Newton systems are nearly static,
/// the mass no longer conditions them, and block-Jacobi PCG's iterations grow with the mesh's
/// fineness and thinness (thousands a solve on IPC's card house and on a mat on a stiff board;
/// bench/results/intel-xeon-2c/ipc-examples.md).
static void pickLinearSolver(Ctx* c, int asked, alciIpcResult* res) {
    alciIpcScript* s = c->s;
    res->wave = 0;
    res->waveShape = -1;
    res->linearSolver = -1;
    res->linearSolverName = "pcg (default)";
    double waveE = 0;  // Young's modulus of the shape with the largest ratio
    for (int p = 0; p < c->npart; p++) {
        const Part* P = &c->part[p];
        if (P->skip || !P->solid || P->m.nvert == 0) continue;
        const double* mat = s->shape[p].mat;
        char mn[32];
        materialName(s, p, mn, sizeof mn);
        int own = strcmp(mn, "mat") != 0;  // the shape's own `material`
        double rho = own ? mat[0] : s->rho, E = own ? mat[1] : s->E;
        double lo[3], hi[3];
        bbox(P->m.vert, P->m.nvert, lo, hi);
        double D = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                        (hi[2] - lo[2]) * (hi[2] - lo[2]));
        if (!(D > 0) || !(rho > 0) || !(E > 0)) continue;
        double w = s->dt * sqrt(E / rho) / D;
        if (w > res->wave) {
            res->wave = w;
            res->waveShape = p;
            waveE = E;
        }
    }
    if (asked >= 0) {
        res->linearSolver = asked;
        res->linearSolverName = linearSolverNames[asked];
        return;
    }
    if (res->wave < ALCI_IPC_STIFF_WAVE) return;
    const alciIpcShape* sh = &s->shape[res->waveShape];
    int have = alcu_directSolverAvailable();
    if (have) {
        res->linearSolver = ALC_LINSOLVE_DIRECT;
        res->linearSolverName = linearSolverNames[ALC_LINSOLVE_DIRECT];
    }
    alci_ipc_message(s,
                     "%s:%d: note: this shape (E = %g Pa) is stiff for the time step: an elastic "
                     "wave crosses it in %.3g s, %.3g times less than h = %g s, where block-Jacobi "
                     "PCG converges slowly (thousands of iterations a solve on IPC's card "
                     "house); %s",
                     s->path, sh->line, waveE, s->dt / res->wave, res->wave, s->dt,
                     have ? "solver.linear_solver: direct (CHOLMOD) is written, which runs on "
                            "the reference backend (backend auto picks it); import with "
                            "--linear-solver pcg for the CUDA backend"
                          : "a build with CHOLMOD (libsuitesparse-dev) would write "
                            "solver.linear_solver: direct");
}

static int writeScene(Ctx* c, const alciIpcImportDef* def, alciIpcResult* res, alciMesh* com,
                      alctStatus* st) {
    alciIpcScript* s = c->s;
    char path[8192], meshDir[4096], rel[512];
    snprintf(meshDir, sizeof meshDir, "%s/%s_meshes", def->outDir, def->name);
    if ((*st = alci_mkdirs(meshDir, c->err, c->errsz)) != ALC_OK) return 0;
    // meshes
    for (int p = 0; p < c->npart; p++) {
        Part* P = &c->part[p];
        if (P->skip) continue;
        snprintf(path, sizeof path, "%s/%s.%s", meshDir, P->name, P->solid ? "msh" : "obj");
        *st = P->solid ? writeMsh(path, &P->m, c->err, c->errsz)
                       : writeObj(path, &P->m, c->err, c->errsz);
        if (*st != ALC_OK) return 0;
    }
    for (int i = 0; i < s->nco; i++) {
        if (!s->co[i].isMesh) continue;
        char st2[96];
        stem(s->co[i].path, st2, sizeof st2);
        snprintf(path, sizeof path, "%s/co%d_%s.obj", meshDir, i, st2);
        if ((*st = writeObj(path, &com[i], c->err, c->errsz)) != ALC_OK) return 0;
    }
    // the scene
    snprintf(res->yamlPath, sizeof res->yamlPath, "%s/%s.yaml", def->outDir, def->name);
    alciFile f;
    if ((*st = alci_file_open(&f, res->yamlPath, c->err, c->errsz)) != ALC_OK) return 0;
    alci_file_printf(&f, "# Imported from the IPC script %s by `alcove import-ipc`.\n", s->path);
    alci_file_printf(&f,
                     "# Meshes are written transformed (IPC's shape transforms, size %g: factor "
                     "%.9g, shift [%.9g, %.9g, %.9g]%s) in %s_meshes/.\n",
                     s->size, res->scaleFactor, res->shift[0], res->shift[1], res->shift[2],
                     res->lift > 0 ? ", script lift" : "", def->name);
    alci_file_printf(&f,
                     "# Bounding-box diagonal of the simulated shapes: %.9g m; dHat %g -> %.6g m, "
                     "eps_v %g -> %.6g m/s.\n",
                     res->diagonal, s->tuning[1], res->dhat, s->tuning[4], res->epsv);
    alci_file_printf(&f, "# Not carried over or changed (also printed by the importer):\n");
    int nlisted = 0;
    for (int i = 0; i < s->nmsg; i++) {
        alci_file_printf(&f, "#   %s\n", s->msg[i]);
        nlisted++;
    }
    if (!nlisted) alci_file_printf(&f, "#   nothing\n");
    alci_file_printf(&f, "name: %s\nrun: {steps: %d}\nphysics: {time_step: ", def->name,
                     res->steps);
    num(&f, s->dt);
    alci_file_printf(&f, ", gravity: [0, %s, 0]}\n", s->gravity ? "-9.80665" : "0");
    alci_file_printf(&f, "solver:\n  contact: %s\n  delta: ", def->contact ? def->contact : "al");
    num(&f, res->dhat);
    if (res->linearSolver >= 0) {
        alci_file_printf(&f, "\n  linear_solver: %s", linearSolverNames[res->linearSolver]);
        if (!def->linearSolver)
            alci_file_printf(&f,
                             "  # a body is stiff for the step: h c / D = %.3g (docs/import-ipc.md)",
                             res->wave);
    }
    alci_file_printf(&f, "\n  ipc: {dhat: ");
    num(&f, res->dhat);
    if (s->tol > 0) {
        alci_file_printf(&f, ", newton_tol: ");
        num(&f, s->useAbs ? s->tol : s->tol * res->diagonal);
    }
    alci_file_printf(&f, "}\nfriction:\n  eps_v: ");
    num(&f, res->epsv);
    alci_file_printf(&f, "\n");
    // friction against each collision object, whatever the bodies' own coefficient
    int npair = 0;
    for (int i = 0; i < s->nco; i++) {
        for (int p = -1; p < c->npart; p++) {
            char mn[32];
            if (p >= 0) {
                materialName(s, p, mn, sizeof mn);
                if (!strcmp(mn, "mat") || c->part[p].skip) continue;
            } else {
                snprintf(mn, sizeof mn, "mat");
            }
            if (!npair++) alci_file_printf(&f, "  pairs:\n");
            alci_file_printf(&f, "    - [%s, co%d, ", mn, i);
            num(&f, s->co[i].friction);
            alci_file_printf(&f, "]\n");
        }
    }
    alci_file_printf(&f, "materials:\n");
    writeMaterial(&f, s, "mat", s->rho, s->E, s->nu);
    for (int p = 0; p < c->npart; p++) {
        char mn[32];
        materialName(s, p, mn, sizeof mn);
        if (strcmp(mn, "mat") != 0 && !c->part[p].skip)
            writeMaterial(&f, s, mn, s->shape[p].mat[0], s->shape[p].mat[1], s->shape[p].mat[2]);
    }
    for (int i = 0; i < s->nco; i++) alci_file_printf(&f, "  co%d: {}\n", i);
    // bodies
    alci_file_printf(&f, "bodies:\n");
    for (int p = 0; p < c->npart; p++) {
        const Part* P = &c->part[p];
        if (P->skip || !P->solid) continue;
        char mn[32];
        materialName(s, p, mn, sizeof mn);
        alci_file_printf(&f, "  - name: %s\n    mesh: {file: %s_meshes/%s.msh}\n    material: %s\n",
                         P->name, def->name, P->name, mn);
        const alciIpcShape* sh = &s->shape[p];
        if (sh->hasInitVel) {
            alci_file_printf(&f, "    velocity: ");
            vec(&f, sh->initLV);
            alci_file_printf(&f, "\n    angular_velocity: ");
            vec(&f, sh->initAV);
            alci_file_printf(&f, "\n");
        }
        writeWholeMotion(&f, c, p);
        writeDrivers(&f, c, p);
        res->nbody++;
    }
    // obstacles: surface shapes, then collision objects
    int headed = 0;
    for (int p = 0; p < c->npart; p++) {
        const Part* P = &c->part[p];
        if (P->skip || P->solid) continue;
        if (!headed++) alci_file_printf(&f, "obstacles:\n");
        alci_file_printf(&f,
                         "  - name: %s\n    mesh: {file: %s_meshes/%s.obj}\n    material: mat\n",
                         P->name, def->name, P->name);
        writeWholeMotion(&f, c, p);
        res->nobstacle++;
    }
    double lo[3], hi[3];
    partsBox(c, 0, 0, lo, hi);
    for (int i = 0; i < s->nco; i++) {
        if (!s->co[i].isMesh) continue;
        double a[3], b[3];
        bbox(com[i].vert, com[i].nvert, a, b);
        for (int k = 0; k < 3; k++) {
            lo[k] = fmin(lo[k], a[k]);
            hi[k] = fmax(hi[k], b[k]);
        }
    }
    double centre[3], ext = 0;
    for (int k = 0; k < 3; k++) {
        centre[k] = 0.5 * (lo[k] + hi[k]);
        ext += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    }
    ext = sqrt(ext);
    for (int i = 0; i < s->nco; i++) {
        if (!headed++) alci_file_printf(&f, "obstacles:\n");
        if (s->co[i].isMesh) {
            char st2[96];
            stem(s->co[i].path, st2, sizeof st2);
            snprintf(rel, sizeof rel, "%s_meshes/co%d_%s.obj", def->name, i, st2);
            alci_file_printf(&f, "  - name: co%d_%s\n    mesh: {file: %s}\n    material: co%d\n", i,
                             st2, rel, i);
        } else {
            writeHalfSpace(&f, &s->co[i], i, centre, 4 * ext);
        }
        res->nobstacle++;
    }
    for (int k = 0; k < c->ndrv; k++) res->ndriver += c->drv[k].nsel > 0;
    if ((*st = alci_file_commit(&f, c->err, c->errsz)) != ALC_OK) return 0;
    return 1;
}

alctStatus alci_ipc_import(alciIpcScript* s, const alciIpcImportDef* def, alciIpcResult* res,
                           char* err, int errsz) {
    memset(res, 0, sizeof *res);
    int asked = -1;
    for (int k = 0; def->linearSolver && k < 3; k++)
        if (!strcmp(def->linearSolver, linearSolverNames[k])) asked = k;
    if (def->linearSolver && asked < 0) {
        snprintf(err, (size_t)errsz, "unknown linear solver '%s' (pcg, direct or auto)",
                 def->linearSolver);
        return ALC_ERR_SCENE;
    }
    Ctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.err = err;
    c.errsz = errsz;
    c.npart = s->nshape;
    c.part = (Part*)calloc((size_t)c.npart, sizeof(Part));
    alciMesh* com = (alciMesh*)calloc((size_t)s->nco + 1, sizeof(alciMesh));
    alctStatus st = ALC_OK;
    if (!c.part || !com) {
        snprintf(err, (size_t)errsz, "out of memory");
        st = ALC_ERR_NOMEM;
        goto done;
    }
    for (int i = 0; i < c.npart; i++)
        if (!readShape(&c, i, &st)) goto done;
    int nsolid = 0;
    for (int i = 0; i < c.npart; i++) nsolid += !c.part[i].skip && c.part[i].solid;
    if (nsolid == 0) {
        snprintf(err, (size_t)errsz, "%s: no solid (tetrahedral) shape to simulate", s->path);
        st = ALC_ERR_SCENE;
        goto done;
    }
    placeScene(&c, res);
    // IPC's reference length: the rest box diagonal of the volumetric shapes
    double lo[3], hi[3];
    partsBox(&c, 1, 1, lo, hi);
    res->diagonal = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                         (hi[2] - lo[2]) * (hi[2] - lo[2]));
    double L = s->useAbs ? 1 : res->diagonal;
    res->dhat = s->tuning[1] * L;
    res->epsv = s->tuning[4] * L;
    if (s->tuning[2] != s->tuning[1])
        alci_ipc_message(s,
                         "%s: note: IPC's dHat continuation (target %g) is not reproduced; "
                         "d-hat %g of the diagonal is used throughout",
                         s->path, s->tuning[2], s->tuning[1]);
    if (s->kappaSet)
        alci_ipc_message(s,
                         "%s: note: tuning kappa %g is not carried over: alcove's ipc mode "
                         "adapts kappa itself",
                         s->path, s->tuning[0]);
    res->steps = (int)ceil(s->duration / s->dt - 1e-9);
    if (!scriptMotions(&c, res)) {
        snprintf(err, (size_t)errsz, "out of memory");
        st = ALC_ERR_NOMEM;
        goto done;
    }
    // collision objects (scene coordinates: IPC does not rescale them)
    double coRight = -HUGE_VAL;
    for (int i = 0; i < s->nco; i++) {
        alciIpcCO* co = &s->co[i];
        if (co->isMesh) {
            if (!readMeshCO(&c, co, &com[i], &st)) goto done;
            for (int v = 0; v < com[i].nvert; v++) coRight = fmax(coRight, com[i].vert[3 * v]);
        } else {
            alci_ipc_message(s,
                             "%s:%d: note: half-space (infinite, one-sided) written as a finite "
                             "square plane obstacle (4 x the scene's box diagonal)",
                             s->path, co->line);
        }
    }
    // dragright frees its handles once the mesh is right of every meshCO: a release plane at
    // the meshCOs' right end (alcove checks the dragged body, IPC the whole mesh)
    int ndrag = 0;
    for (int k = 0; k < c.ndrv; k++) {
        if (strcmp(c.drv[k].name, "dragright") != 0) continue;
        c.drv[k].past = coRight;
        ndrag++;
    }
    if (ndrag && c.npart > 1)
        alci_ipc_message(s,
                         "%s:%d: note: dragright: IPC frees the handles once the whole mesh is "
                         "right of every meshCO (x > %.6g); alcove frees each shape's handles "
                         "once that shape is (release_past)",
                         s->path, s->scriptLine, coRight);
    pickLinearSolver(&c, asked, res);
    writeScene(&c, def, res, com, &st);
done:
    for (int i = 0; c.part && i < c.npart; i++) {
        alci_mesh_free(&c.part[i].m);
        free(c.part[i].rest);
        free(c.part[i].local);
        free(c.part[i].onBoundary);
        free(c.part[i].driver);
    }
    for (int i = 0; com && i < s->nco; i++) alci_mesh_free(&com[i]);
    free(com);
    free(c.part);
    free(c.drv);
    return st;
}
