// Building a model in code: the alcSpec builder and its compile step. The YAML loader
// (host/scene.c) fills the same builder, so code-built and file-built models are one path.
#include "alc_internal.h"
#include "check.h"
#include "hd/alcm_rigid.h"
#include "hd/alcm_vec.h"
#include "mesh.h"
#include "model_xmacro.h"
#include "rigid_mass.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    alcMaterialDef def;
    char* name;
} SpecMaterial;

typedef struct {
    alcBodyDef def;  // arrays pointers cleared; the copies below are owned
    char* name;
    double* vert;
    int* tet;
    int* tri;
} SpecBody;

typedef struct {
    alcDriverDef def;
    char* name;
    int body;
    int nvert;     // 0: whole body
    int* verts;    // local vertex indices of the body
    double* keys;  // nkey x 8
} SpecDriver;

typedef struct {
    int a, b;
    double mu;
} SpecFriction;

struct alcSpec_ {
    alcOption opt;
    alcRunOption run;
    char* sceneName;
    char* outDir;
    SpecMaterial* mat;
    int nmat, capmat;
    SpecBody* body;
    int nbody, capbody;
    SpecDriver* drv;
    int ndrv, capdrv;
    SpecFriction* fric;
    int nfric, capfric;
    char error[ALC_ERRLEN];
};

// ---- defaults -----------------------------------------------------------------------------

alcMaterialDef alc_defaultMaterialDef(void) {
    alcMaterialDef d;
    memset(&d, 0, sizeof d);
    d.name = "default";
    d.model = ALC_MAT_STABLE_NEOHOOKEAN;
    d.density = 1000;
    d.young = 1e5;
    d.poisson = 0.3;
    d.friction = -1;
    d.internalValue = ALC_DEF_STAMP;
    return d;
}

alcBodyDef alc_defaultBodyDef(void) {
    alcBodyDef d;
    memset(&d, 0, sizeof d);
    d.type = ALC_BODY_SOLID;
    d.rotation[0] = 1;
    d.scale[0] = d.scale[1] = d.scale[2] = 1;
    d.internalValue = ALC_DEF_STAMP;
    return d;
}

alcDriverDef alc_defaultDriverDef(void) {
    alcDriverDef d;
    memset(&d, 0, sizeof d);
    d.type = ALC_DRIVER_FIXED;
    d.axis[1] = 1;
    d.start = 0;
    d.end = HUGE_VAL;
    d.release = HUGE_VAL;
    d.internalValue = ALC_DEF_STAMP;
    return d;
}

static alcRunOption defaultRunOption(void) {
    alcRunOption r;
    memset(&r, 0, sizeof r);
    r.steps = 100;
    r.frameEvery = 1;
    r.frameFormat = ALC_FRAMES_VTU;
    r.writeStates = 1;
    r.writeContacts = 0;
    r.statsJson = 0;
    r.outDirAdr = -1;
    r.sceneNameAdr = -1;
    return r;
}

// ---- helpers ------------------------------------------------------------------------------

static char* dupString(const char* s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char* r = (char*)malloc(n);
    if (r) memcpy(r, s, n);
    return r;
}

static void* dupArray(const void* p, size_t bytes) {
    if (!p || bytes == 0) return NULL;
    void* r = malloc(bytes);
    if (r) memcpy(r, p, bytes);
    return r;
}

/// Grow a dynamic array to hold at least n+1 items.
static int growArray(void** arr, int* cap, int n, size_t item) {
    if (n < *cap) return 1;
    int nc = *cap ? 2 * *cap : 8;
    void* p = realloc(*arr, (size_t)nc * item);
    if (!p) return 0;
    *arr = p;
    *cap = nc;
    return 1;
}

static alctStatus specFail(alcSpec* s, alctStatus st, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
static alctStatus specFail(alcSpec* s, alctStatus st, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->error, sizeof s->error, fmt, ap);
    va_end(ap);
    return st;
}

static int finite3(const double* v) {
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

// ---- spec lifetime ------------------------------------------------------------------------

alctStatus alc_makeSpec(alcSpec** spec) {
    if (!spec) return ALC_ERR_INVALID_ARG;
    alcSpec* s = (alcSpec*)calloc(1, sizeof(alcSpec));
    if (!s) return ALC_ERR_NOMEM;
    s->opt = alc_defaultOption();
    s->run = defaultRunOption();
    *spec = s;
    return ALC_OK;
}

void alc_deleteSpec(alcSpec* s) {
    if (!s) return;
    for (int i = 0; i < s->nmat; i++) free(s->mat[i].name);
    for (int i = 0; i < s->nbody; i++) {
        free(s->body[i].name);
        free(s->body[i].vert);
        free(s->body[i].tet);
        free(s->body[i].tri);
    }
    for (int i = 0; i < s->ndrv; i++) {
        free(s->drv[i].name);
        free(s->drv[i].verts);
        free(s->drv[i].keys);
    }
    free(s->mat);
    free(s->body);
    free(s->drv);
    free(s->fric);
    free(s->sceneName);
    free(s->outDir);
    free(s);
}

alcOption* alc_specOption(alcSpec* s) {
    return s ? &s->opt : NULL;
}
alcRunOption* alc_specRunOption(alcSpec* s) {
    return s ? &s->run : NULL;
}
const char* alc_specError(const alcSpec* s) {
    return s ? s->error : "";
}

alctStatus alc_specSetNames(alcSpec* s, const char* name, const char* outDir) {
    if (!s) return ALC_ERR_INVALID_ARG;
    if (name) {
        free(s->sceneName);
        s->sceneName = dupString(name);
        if (!s->sceneName) return ALC_ERR_NOMEM;
    }
    if (outDir) {
        free(s->outDir);
        s->outDir = dupString(outDir);
        if (!s->outDir) return ALC_ERR_NOMEM;
    }
    return ALC_OK;
}

// ---- adding items -------------------------------------------------------------------------

alctStatus alc_specAddMaterial(alcSpec* s, const alcMaterialDef* def, int* index) {
    if (!s || !def) return ALC_ERR_INVALID_ARG;
    if (def->internalValue != ALC_DEF_STAMP) {
        return specFail(s, ALC_ERR_BAD_DEF, "material def not made by alc_defaultMaterialDef");
    }
    const char* nm = def->name ? def->name : "default";
    if (def->model < 0 || def->model >= ALC_NMATMODEL) {
        return specFail(s, ALC_ERR_INVALID_ARG, "material '%s': unknown model %d", nm, def->model);
    }
    if (!(def->density > 0) || !isfinite(def->density)) {
        return specFail(s, ALC_ERR_INVALID_ARG, "material '%s': density %g must be > 0", nm,
                        def->density);
    }
    if (!(def->young > 0) || !isfinite(def->young)) {
        return specFail(s, ALC_ERR_INVALID_ARG, "material '%s': Young's modulus %g must be > 0", nm,
                        def->young);
    }
    if (!(def->poisson >= 0 && def->poisson < 0.5)) {
        return specFail(s, ALC_ERR_INVALID_ARG, "material '%s': Poisson ratio %g not in [0, 0.5)",
                        nm, def->poisson);
    }
    if (!(def->friction == -1 || (def->friction >= 0 && isfinite(def->friction)))) {
        return specFail(s, ALC_ERR_INVALID_ARG, "material '%s': friction %g must be >= 0", nm,
                        def->friction);
    }
    for (int i = 0; i < s->nmat; i++) {
        if (strcmp(s->mat[i].name, nm) == 0) {
            return specFail(s, ALC_ERR_INVALID_ARG, "material '%s' defined twice", nm);
        }
    }
    if (!growArray((void**)&s->mat, &s->capmat, s->nmat, sizeof(SpecMaterial))) {
        return ALC_ERR_NOMEM;
    }
    SpecMaterial* m = &s->mat[s->nmat];
    m->def = *def;
    m->name = dupString(nm);
    if (!m->name) return ALC_ERR_NOMEM;
    m->def.name = m->name;
    if (index) *index = s->nmat;
    s->nmat++;
    return ALC_OK;
}

alctStatus alc_specSetFriction(alcSpec* s, int a, int b, double mu) {
    if (!s) return ALC_ERR_INVALID_ARG;
    if (a < 0 || b < 0 || a >= s->nmat || b >= s->nmat) {
        return specFail(s, ALC_ERR_INVALID_ARG, "friction: material index out of range");
    }
    if (!(mu >= 0) || !isfinite(mu)) {
        return specFail(s, ALC_ERR_INVALID_ARG, "friction coefficient %g must be >= 0", mu);
    }
    if (!growArray((void**)&s->fric, &s->capfric, s->nfric, sizeof(SpecFriction))) {
        return ALC_ERR_NOMEM;
    }
    s->fric[s->nfric].a = a;
    s->fric[s->nfric].b = b;
    s->fric[s->nfric].mu = mu;
    s->nfric++;
    return ALC_OK;
}

alctStatus alc_specAddBody(alcSpec* s, const alcBodyDef* def, int* index) {
    if (!s || !def) return ALC_ERR_INVALID_ARG;
    if (def->internalValue != ALC_DEF_STAMP) {
        return specFail(s, ALC_ERR_BAD_DEF, "body def not made by alc_defaultBodyDef");
    }
    char autoname[32];
    snprintf(autoname, sizeof autoname, "body%d", s->nbody);
    const char* nm = def->name ? def->name : autoname;
    if (def->type != ALC_BODY_SOLID && def->type != ALC_BODY_OBSTACLE &&
        def->type != ALC_BODY_RIGID) {
        return specFail(s, ALC_ERR_INVALID_ARG, "body '%s': unknown type %d", nm, def->type);
    }
    if (def->type == ALC_BODY_RIGID && (def->ntet <= 0 || !def->tet) &&
        (def->ntri <= 0 || !def->tri)) {
        return specFail(s, ALC_ERR_INVALID_ARG,
                        "body '%s': a rigid body needs tetrahedra or a closed triangle surface",
                        nm);
    }
    if (def->nvert <= 0 || !def->vert) {
        return specFail(s, ALC_ERR_INVALID_ARG, "body '%s': no vertices", nm);
    }
    if (def->type == ALC_BODY_SOLID && (def->ntet <= 0 || !def->tet)) {
        return specFail(s, ALC_ERR_INVALID_ARG, "body '%s': a solid needs tetrahedra", nm);
    }
    if (def->type == ALC_BODY_OBSTACLE && (def->ntri <= 0 || !def->tri) &&
        (def->ntet <= 0 || !def->tet)) {
        return specFail(s, ALC_ERR_INVALID_ARG, "body '%s': an obstacle needs triangles", nm);
    }
    if (def->material < 0) {
        return specFail(s, ALC_ERR_INVALID_ARG, "body '%s': material index %d", nm, def->material);
    }
    if (!finite3(def->position) || !finite3(def->scale) || !finite3(def->velocity) ||
        !finite3(def->angularVelocity) || !isfinite(def->rotation[0]) ||
        !finite3(def->rotation + 1)) {
        return specFail(s, ALC_ERR_INVALID_ARG, "body '%s': non-finite transform or velocity", nm);
    }
    double qn = sqrt(def->rotation[0] * def->rotation[0] + def->rotation[1] * def->rotation[1] +
                     def->rotation[2] * def->rotation[2] + def->rotation[3] * def->rotation[3]);
    if (!(qn > 1e-12)) {
        return specFail(s, ALC_ERR_INVALID_ARG, "body '%s': zero rotation quaternion", nm);
    }
    if (def->scale[0] == 0 || def->scale[1] == 0 || def->scale[2] == 0) {
        return specFail(s, ALC_ERR_INVALID_ARG, "body '%s': zero scale", nm);
    }
    for (int i = 0; i < s->nbody; i++) {
        if (strcmp(s->body[i].name, nm) == 0) {
            return specFail(s, ALC_ERR_INVALID_ARG, "body '%s' defined twice", nm);
        }
    }
    if (!growArray((void**)&s->body, &s->capbody, s->nbody, sizeof(SpecBody))) {
        return ALC_ERR_NOMEM;
    }
    SpecBody* b = &s->body[s->nbody];
    memset(b, 0, sizeof *b);
    b->def = *def;
    b->name = dupString(nm);
    b->vert = (double*)dupArray(def->vert, sizeof(double) * 3 * (size_t)def->nvert);
    b->tet = def->ntet > 0 ? (int*)dupArray(def->tet, sizeof(int) * 4 * (size_t)def->ntet) : NULL;
    b->tri = def->ntri > 0 ? (int*)dupArray(def->tri, sizeof(int) * 3 * (size_t)def->ntri) : NULL;
    if (!b->name || !b->vert || (def->ntet > 0 && !b->tet) || (def->ntri > 0 && !b->tri)) {
        free(b->name);
        free(b->vert);
        free(b->tet);
        free(b->tri);
        return ALC_ERR_NOMEM;
    }
    for (int k = 0; k < 4; k++) b->def.rotation[k] = def->rotation[k] / qn;
    b->def.name = b->name;
    b->def.vert = NULL;
    b->def.tet = NULL;
    b->def.tri = NULL;
    if (index) *index = s->nbody;
    s->nbody++;
    return ALC_OK;
}

alctStatus alc_specAddDriver(alcSpec* s, const alcDriverDef* def, int body, int nvert,
                             const int* verts, int* index) {
    if (!s || !def) return ALC_ERR_INVALID_ARG;
    if (def->internalValue != ALC_DEF_STAMP) {
        return specFail(s, ALC_ERR_BAD_DEF, "driver def not made by alc_defaultDriverDef");
    }
    char autoname[32];
    snprintf(autoname, sizeof autoname, "driver%d", s->ndrv);
    const char* nm = def->name ? def->name : autoname;
    if (body < 0 || body >= s->nbody) {
        return specFail(s, ALC_ERR_INVALID_ARG, "driver '%s': body index %d out of range", nm,
                        body);
    }
    if (def->type < 0 || def->type >= ALC_NDRIVERTYPE) {
        return specFail(s, ALC_ERR_INVALID_ARG, "driver '%s': unknown type %d", nm, def->type);
    }
    if (nvert < 0 || (nvert > 0 && !verts)) {
        return specFail(s, ALC_ERR_INVALID_ARG, "driver '%s': bad vertex list", nm);
    }
    for (int i = 0; i < nvert; i++) {
        if (verts[i] < 0 || verts[i] >= s->body[body].def.nvert) {
            return specFail(s, ALC_ERR_INVALID_ARG,
                            "driver '%s': vertex %d out of range (body '%s' has %d vertices)", nm,
                            verts[i], s->body[body].name, s->body[body].def.nvert);
        }
    }
    if (def->type == ALC_DRIVER_KEYFRAMES) {
        if (def->nkey <= 0 || !def->keys) {
            return specFail(s, ALC_ERR_INVALID_ARG, "driver '%s': keyframes need keys", nm);
        }
        for (int k = 0; k < def->nkey; k++) {
            for (int j = 0; j < 8; j++) {
                if (!isfinite(def->keys[8 * k + j])) {
                    return specFail(s, ALC_ERR_INVALID_ARG, "driver '%s': key %d not finite", nm,
                                    k);
                }
            }
            if (k > 0 && !(def->keys[8 * k] > def->keys[8 * (k - 1)])) {
                return specFail(s, ALC_ERR_INVALID_ARG,
                                "driver '%s': key times must increase (key %d)", nm, k);
            }
        }
    }
    if (def->type == ALC_DRIVER_ROTATE) {
        double an = sqrt(def->axis[0] * def->axis[0] + def->axis[1] * def->axis[1] +
                         def->axis[2] * def->axis[2]);
        if (!(an > 1e-12)) {
            return specFail(s, ALC_ERR_INVALID_ARG, "driver '%s': zero rotation axis", nm);
        }
    }
    if (!finite3(def->velocity) || !finite3(def->center) || !finite3(def->axis) ||
        !isfinite(def->angularSpeed) || isnan(def->start) || isnan(def->end) ||
        isnan(def->release) || !finite3(def->releasePast) || !isfinite(def->releasePast[3])) {
        return specFail(s, ALC_ERR_INVALID_ARG, "driver '%s': non-finite parameter", nm);
    }
    if (!growArray((void**)&s->drv, &s->capdrv, s->ndrv, sizeof(SpecDriver))) {
        return ALC_ERR_NOMEM;
    }
    SpecDriver* d = &s->drv[s->ndrv];
    memset(d, 0, sizeof *d);
    d->def = *def;
    d->name = dupString(nm);
    d->body = body;
    d->nvert = nvert;
    d->verts = nvert > 0 ? (int*)dupArray(verts, sizeof(int) * (size_t)nvert) : NULL;
    d->keys = def->type == ALC_DRIVER_KEYFRAMES
                  ? (double*)dupArray(def->keys, sizeof(double) * 8 * (size_t)def->nkey)
                  : NULL;
    if (!d->name || (nvert > 0 && !d->verts) || (def->type == ALC_DRIVER_KEYFRAMES && !d->keys)) {
        free(d->name);
        free(d->verts);
        free(d->keys);
        return ALC_ERR_NOMEM;
    }
    if (def->type != ALC_DRIVER_KEYFRAMES) d->def.nkey = 0;
    d->def.name = d->name;
    d->def.keys = NULL;
    if (index) *index = s->ndrv;
    s->ndrv++;
    return ALC_OK;
}

// ---- compile ------------------------------------------------------------------------------

typedef struct {
    alciMesh mesh;  // transformed, compacted, with boundary triangles
    int* edges;     // nedge x 2
    int nedge;
    int* localToNew;     // spec vertex index -> compacted index (or -1)
    alciRigidMass mass;  // a rigid body's mass properties (its tetrahedra are then dropped)
} BodyGeom;

/// A rigid body's mass properties from its tetrahedra (or, without them, its closed surface),
/// at the positions it starts at; its tetrahedra are dropped afterwards (a rigid body has no
/// elasticity, only its surface and its six DOFs).
static alctStatus rigidMass(const SpecBody* b, BodyGeom* g, double density, char* err, int errsz) {
    char msg[ALC_ERRLEN] = "";
    alciMesh* mesh = &g->mesh;
    int flipped = 0;
    alctStatus st = mesh->ntet > 0
                        ? alci_rigid_massTets(mesh->vert, mesh->nvert, mesh->tet, mesh->ntet,
                                              density, &g->mass, msg, sizeof msg)
                        : alci_rigid_massSurface(mesh->vert, mesh->nvert, mesh->tri, mesh->ntri,
                                                 density, &g->mass, &flipped, msg, sizeof msg);
    if (st != ALC_OK) {
        alci_setMessage(err, errsz, "rigid body '%s': %s", b->name, msg);
        return st;
    }
    if (flipped) {
        // the contact code reads the winding: turn the surface outward
        for (int t = 0; t < mesh->ntri; t++) {
            int tmp = mesh->tri[3 * t + 1];
            mesh->tri[3 * t + 1] = mesh->tri[3 * t + 2];
            mesh->tri[3 * t + 2] = tmp;
        }
    }
    free(mesh->tet);
    mesh->tet = NULL;
    mesh->ntet = 0;
    return ALC_OK;
}

void alci_bodyTransform(const alcBodyDef* d, const double rest[3], double out[3]) {
    double p[3] = {rest[0] * d->scale[0], rest[1] * d->scale[1], rest[2] * d->scale[2]};
    double q[4] = {d->rotation[0], d->rotation[1], d->rotation[2], d->rotation[3]};
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] = qn > 0 ? q[k] / qn : (k == 0);
    double r[3];
    alci_quatRotate(q, p, r);
    for (int k = 0; k < 3; k++) out[k] = r[k] + d->position[k];
}

static void transformBody(const SpecBody* b, alciMesh* mesh) {
    for (int i = 0; i < mesh->nvert; i++) {
        alci_bodyTransform(&b->def, b->vert + 3 * i, mesh->vert + 3 * i);
    }
}

/// Build the geometry of one body: copy, transform, validate, compact, boundary, edges.
static alctStatus buildBody(const SpecBody* b, BodyGeom* g, char* err, int errsz) {
    const alcBodyDef* d = &b->def;
    alciMesh* mesh = &g->mesh;
    memset(g, 0, sizeof *g);
    char msg[ALC_ERRLEN];
    int nv = d->nvert;
    mesh->nvert = nv;
    mesh->vert = (double*)malloc(sizeof(double) * 3 * (size_t)nv);
    g->localToNew = (int*)malloc(sizeof(int) * (size_t)nv);
    if (!mesh->vert || !g->localToNew) return ALC_ERR_NOMEM;
    transformBody(b, mesh);
    int flip = d->scale[0] * d->scale[1] * d->scale[2] < 0;
    if (d->ntet > 0) {
        mesh->ntet = d->ntet;
        mesh->tet = (int*)dupArray(b->tet, sizeof(int) * 4 * (size_t)d->ntet);
        if (!mesh->tet) return ALC_ERR_NOMEM;
        if (flip) {
            for (int t = 0; t < mesh->ntet; t++) {
                int tmp = mesh->tet[4 * t + 1];
                mesh->tet[4 * t + 1] = mesh->tet[4 * t + 2];
                mesh->tet[4 * t + 2] = tmp;
            }
        }
    } else {
        mesh->ntri = d->ntri;
        mesh->tri = (int*)dupArray(b->tri, sizeof(int) * 3 * (size_t)d->ntri);
        if (!mesh->tri) return ALC_ERR_NOMEM;
        if (flip) {
            for (int t = 0; t < mesh->ntri; t++) {
                int tmp = mesh->tri[3 * t + 1];
                mesh->tri[3 * t + 1] = mesh->tri[3 * t + 2];
                mesh->tri[3 * t + 2] = tmp;
            }
        }
    }
    // a consistently negative tet mesh is turned over, as the scene loader does for files
    alci_mesh_orientConsistently(mesh);
    alctStatus st = alci_mesh_validate(mesh, 0, msg, sizeof msg);
    if (st != ALC_OK) {
        alci_setMessage(err, errsz, "body '%s': %s", b->name, msg);
        return st;
    }
    if (mesh->ntet > 0) {
        st = alci_mesh_boundary(mesh, msg, sizeof msg);
        if (st != ALC_OK) {
            alci_setMessage(err, errsz, "body '%s': %s", b->name, msg);
            return st;
        }
    }
    // compact: keep vertices used by tetrahedra (solids) or triangles (obstacles)
    for (int i = 0; i < nv; i++) g->localToNew[i] = -1;
    const int* elem = mesh->ntet > 0 ? mesh->tet : mesh->tri;
    int nel = mesh->ntet > 0 ? 4 * mesh->ntet : 3 * mesh->ntri;
    for (int i = 0; i < nel; i++) g->localToNew[elem[i]] = 0;
    int nn = 0;
    for (int i = 0; i < nv; i++) {
        if (g->localToNew[i] == 0) {
            g->localToNew[i] = nn;
            for (int k = 0; k < 3; k++) mesh->vert[3 * nn + k] = mesh->vert[3 * i + k];
            nn++;
        }
    }
    mesh->nvert = nn;
    for (int i = 0; i < 4 * mesh->ntet; i++) mesh->tet[i] = g->localToNew[mesh->tet[i]];
    for (int i = 0; i < 3 * mesh->ntri; i++) mesh->tri[i] = g->localToNew[mesh->tri[i]];
    st = alci_mesh_edges(mesh->tri, mesh->ntri, &g->edges, &g->nedge);
    if (st != ALC_OK) return st;
    return ALC_OK;
}

static void freeGeom(BodyGeom* g) {
    alci_mesh_free(&g->mesh);
    free(g->edges);
    free(g->localToNew);
}

static int appendName(char* names, int* pos, const char* s) {
    int adr = *pos;
    size_t n = strlen(s) + 1;
    memcpy(names + adr, s, n);
    *pos += (int)n;
    return adr;
}

static alctStatus checkOptions(const alcOption* o, char* err, int errsz) {
#define REQ(cond, ...)                            \
    if (!(cond)) {                                \
        alci_setMessage(err, errsz, __VA_ARGS__); \
        return ALC_ERR_SCENE;                     \
    }
    REQ(o->timestep > 0 && isfinite(o->timestep), "timestep %g must be > 0", o->timestep);
    REQ(finite3(o->gravity), "gravity must be finite");
    REQ(o->contact >= 0 && o->contact < ALC_NCONTACTMODEL, "unknown contact model %d", o->contact);
    REQ(o->delta > 0 && isfinite(o->delta), "delta %g must be > 0", o->delta);
    REQ(o->epsilon > 0 && o->epsilon < 1, "epsilon %g must be in (0, 1)", o->epsilon);
    REQ(o->kmin >= 0 && o->kmin <= 1000, "kmin %d out of range [0, 1000]", o->kmin);
    REQ(o->decay >= 0 && o->decay <= 1, "decay %g must be in [0, 1]", o->decay);
    REQ(o->removeBelow >= 0 && o->removeBelow < 1, "remove_below %g must be in [0, 1)",
        o->removeBelow);
    REQ(o->muScale > 0 && isfinite(o->muScale), "mu_scale %g must be > 0", o->muScale);
    REQ(o->mu >= 0 && isfinite(o->mu), "mu %g must be >= 0", o->mu);
    REQ(o->cgTol > 0 && o->cgTol < 1, "cg_tol %g must be in (0, 1)", o->cgTol);
    REQ(o->cgMaxIter >= 0, "cg_max_iter %d must be >= 0", o->cgMaxIter);
    REQ(o->maxIter >= 1, "max_iter %d must be >= 1", o->maxIter);
    REQ(o->maxNewton >= 1, "max_newton %d must be >= 1", o->maxNewton);
    REQ(o->lsMaxIter >= 1 && o->lsMaxIter <= 200, "ls_max_iter %d out of range [1, 200]",
        o->lsMaxIter);
    REQ(o->stallIters >= 1, "stall_iters %d must be >= 1", o->stallIters);
    REQ(o->splitDepth >= 0 && o->splitDepth <= 20, "split_depth %d out of range [0, 20]",
        o->splitDepth);
    REQ(o->splitAfter >= 1, "split_after %d must be >= 1", o->splitAfter);
    REQ(o->stallAlpha >= 0 && o->stallAlpha < 1, "stall_alpha %g must be in [0, 1)", o->stallAlpha);
    REQ(o->restartAlpha <= 1 && !isnan(o->restartAlpha),
        "restart_alpha %g must be in [0, 1] (or negative: stall_alpha)", o->restartAlpha);
    REQ(o->newtonFlat >= 0 && o->newtonFlat < 1, "newton_flat %g must be in [0, 1)",
        o->newtonFlat);
    REQ(o->ccdGapCap >= 0 && isfinite(o->ccdGapCap), "ccd_gap_cap %g must be finite and >= 0",
        o->ccdGapCap);
    REQ(o->ccdRescale > 0 && o->ccdRescale < 1, "ccd_rescale %g must be in (0, 1)", o->ccdRescale);
    REQ(o->ccdMinSep >= 0 && o->ccdMinSep < o->delta, "ccd_min_sep %g must be in [0, delta)",
        o->ccdMinSep);
    REQ(o->ccdMaxIter >= 10, "ccd_max_iter %d must be >= 10", o->ccdMaxIter);
    REQ(o->inversion >= 0 && o->inversion <= ALC_INVERSION_ALL, "unknown inversion mode %d",
        o->inversion);
    REQ(o->inversionBound == ALC_INVBOUND_END || o->inversionBound == ALC_INVBOUND_PATH,
        "unknown inversion_bound mode %d", o->inversionBound);
    REQ(o->eigenFilter == ALC_EIGEN_CLAMP || o->eigenFilter == ALC_EIGEN_ABS,
        "unknown eigen_filter mode %d", o->eigenFilter);
    REQ(o->inversionFraction > 0 && o->inversionFraction < 1,
        "inversion_fraction %g must be in (0, 1)", o->inversionFraction);
    REQ(o->newtonTol >= 0, "newton_tol %g must be >= 0", o->newtonTol);
    REQ(o->frictionEpsV > 0, "friction_eps_v %g must be > 0", o->frictionEpsV);
    REQ(o->frictionDefault >= 0, "friction default %g must be >= 0", o->frictionDefault);
    REQ(o->ipcDhat >= 0 && o->ipcKappa >= 0 && o->ipcNewtonTol >= 0, "IPC parameters must be >= 0");
    REQ(o->penaltyScale > 0, "penalty_scale %g must be > 0", o->penaltyScale);
    REQ(o->linearSolver >= ALC_LINSOLVE_PCG && o->linearSolver <= ALC_LINSOLVE_AUTO,
        "unknown linear solver %d", o->linearSolver);
    REQ(o->hessianReuse == 0 || o->hessianReuse == 1, "hessian_reuse %d must be 0 or 1",
        o->hessianReuse);
    REQ(o->pairMuGrowth >= 1 && o->pairMuGrowth <= 1e3, "pair_mu_growth %g must be in [1, 1000]",
        o->pairMuGrowth);
    REQ(o->pairMuMax >= 1 && o->pairMuMax <= 1e12, "pair_mu_max %g must be in [1, 1e12]",
        o->pairMuMax);
    REQ(o->tetGuards >= 0 && o->tetGuards <= ALC_TET_GUARDS_MAX, "tet_guards %d must be in [0, %d]",
        o->tetGuards, ALC_TET_GUARDS_MAX);
    REQ(o->frictionSecant == 0 || o->frictionSecant == 1, "friction_secant %d must be 0 or 1",
        o->frictionSecant);
    REQ(o->mlcpPrecond == ALC_MLCP_FULL || o->mlcpPrecond == ALC_MLCP_DIAG,
        "unknown mlcp preconditioner %d", o->mlcpPrecond);
    REQ(o->mlcpGapTol > 0 && o->mlcpGapTol < 1, "mlcp gap_tol %g must be in (0, 1)", o->mlcpGapTol);
    REQ(o->mlcpThetaTol >= 0 && o->mlcpThetaTol <= 90,
        "mlcp theta_tol %g must be in [0, 90] degrees", o->mlcpThetaTol);
    REQ(o->mlcpThetaRate > 0 && o->mlcpThetaRate <= 1, "mlcp theta_rate %g must be in (0, 1]",
        o->mlcpThetaRate);
    REQ(o->dsK >= 0 && isfinite(o->dsK), "penalty_ds k %g must be >= 0 (0 = auto)", o->dsK);
    REQ(o->dsTol >= 0 && isfinite(o->dsTol), "penalty_ds tol %g must be >= 0 (0 = auto)", o->dsTol);
    REQ(o->dsGmresMax >= 1, "penalty_ds gmres_max %d must be >= 1", o->dsGmresMax);
    REQ(o->dsMaxNewton >= 1, "penalty_ds max_newton %d must be >= 1", o->dsMaxNewton);
    REQ(o->dsPrecond >= ALC_DS_PRECOND_AUTO && o->dsPrecond <= ALC_DS_PRECOND_CHOLESKY,
        "unknown penalty_ds preconditioner %d", o->dsPrecond);
#undef REQ
    return ALC_OK;
}

/// Exact intersection check of the initial positions (host/check.c); on an intersection the two
/// bodies of the first pair go to bad[0] (the edge's) and bad[1] (the triangle's).
static alctStatus checkInitialState(const alcModel* m, char* err, int errsz, int bad[2]) {
    alciCheckReport rep;
    alctStatus st = alci_check_model(m, m->vert_x0, 0, 0, &rep);
    if (st != ALC_OK) return st;
    if (rep.nintersect > 0) {
        bad[0] = rep.edgeBody;
        bad[1] = rep.triBody;
        alci_setMessage(err, errsz,
                        "the initial state intersects: body '%s' (edge of vertices %d %d) meets "
                        "body '%s' (triangle of vertices %d %d %d); %d pairs in all",
                        alc_bodyName(m, rep.edgeBody), rep.edgeVert[0], rep.edgeVert[1],
                        alc_bodyName(m, rep.triBody), rep.triVert[0], rep.triVert[1],
                        rep.triVert[2], rep.nintersect);
        return ALC_ERR_SCENE;
    }
    return ALC_OK;
}

alctStatus alc_compileSpec(const alcSpec* s, alcModel** out, char* err, int errsz) {
    int bad[2];
    return alci_compileSpec(s, out, err, errsz, bad);
}

alctStatus alci_compileSpec(const alcSpec* s, alcModel** out, char* err, int errsz, int bad[2]) {
    bad[0] = bad[1] = -1;
    if (!s || !out) return ALC_ERR_INVALID_ARG;
    *out = NULL;
    alctStatus st = checkOptions(&s->opt, err, errsz);
    if (st != ALC_OK) return st;
    if (s->nbody == 0) {
        alci_setMessage(err, errsz, "the scene has no bodies");
        return ALC_ERR_SCENE;
    }
    int nmat = s->nmat > 0 ? s->nmat : 1;
    for (int b = 0; b < s->nbody; b++) {
        if (s->body[b].def.material >= nmat) {
            alci_setMessage(err, errsz, "body '%s': material index %d out of range (%d defined)",
                            s->body[b].name, s->body[b].def.material, nmat);
            return ALC_ERR_SCENE;
        }
    }

    // geometry of every body
    if (s->nbody > 1000000) {
        alci_setMessage(err, errsz, "too many bodies (%d)", s->nbody);
        return ALC_ERR_SCENE;
    }
    BodyGeom* geom = (BodyGeom*)calloc((unsigned)s->nbody, sizeof(BodyGeom));
    if (!geom) return ALC_ERR_NOMEM;
    alcModel sz;
    memset(&sz, 0, sizeof sz);
    int nname = 1;
    int solidFound = 0;
    for (int b = 0; b < s->nbody && st == ALC_OK; b++) {
        st = buildBody(&s->body[b], &geom[b], err, errsz);
        if (st == ALC_ERR_NOMEM) alci_setMessage(err, errsz, "out of memory");
        if (st == ALC_OK && s->body[b].def.type == ALC_BODY_RIGID) {
            int mi = s->body[b].def.material;
            double density =
                s->nmat > 0 ? s->mat[mi].def.density : alc_defaultMaterialDef().density;
            st = rigidMass(&s->body[b], &geom[b], density, err, errsz);
            sz.nrigid++;
        }
        if (st != ALC_OK) break;
        sz.nvert += geom[b].mesh.nvert;
        sz.ntet += geom[b].mesh.ntet;
        sz.ntri += geom[b].mesh.ntri;
        sz.nedge += geom[b].nedge;
        nname += (int)strlen(s->body[b].name) + 1;
        if (s->body[b].def.type != ALC_BODY_OBSTACLE) solidFound = 1;
    }
    if (st == ALC_OK && !solidFound) {
        alci_setMessage(err, errsz, "the scene has no solid bodies");
        st = ALC_ERR_SCENE;
    }
    if (st != ALC_OK) {
        for (int b = 0; b < s->nbody; b++) freeGeom(&geom[b]);
        free(geom);
        return st;
    }

    // obstacles without a driver get an implicit fixed one
    int* obstacleDriven = (int*)calloc((size_t)s->nbody, sizeof(int));
    if (!obstacleDriven) {
        for (int b = 0; b < s->nbody; b++) freeGeom(&geom[b]);
        free(geom);
        return ALC_ERR_NOMEM;
    }
    for (int k = 0; k < s->ndrv; k++) {
        if (s->drv[k].nvert == 0) obstacleDriven[s->drv[k].body] = 1;
    }
    int nimplicit = 0;
    for (int b = 0; b < s->nbody; b++) {
        if (s->body[b].def.type == ALC_BODY_OBSTACLE && !obstacleDriven[b]) nimplicit++;
    }
    sz.nbody = s->nbody;
    sz.nmat = nmat;
    sz.ndriver = s->ndrv + nimplicit;
    for (int k = 0; k < s->ndrv; k++) {
        sz.nkey += s->drv[k].def.nkey;
        nname += (int)strlen(s->drv[k].name) + 1;
    }
    for (int b = 0; b < s->nbody; b++) {
        if (s->body[b].def.type == ALC_BODY_OBSTACLE && !obstacleDriven[b]) {
            nname += (int)strlen(s->body[b].name) + 7;
        }
    }
    for (int i = 0; i < s->nmat; i++) nname += (int)strlen(s->mat[i].name) + 1;
    if (s->nmat == 0) nname += 8;
    nname += (s->sceneName ? (int)strlen(s->sceneName) : 0) + 1;
    nname += (s->outDir ? (int)strlen(s->outDir) : 0) + 1;
    sz.nname = nname;

    // surface vertex count
    for (int b = 0; b < s->nbody; b++) {
        BodyGeom* g = &geom[b];
        unsigned char* used = (unsigned char*)calloc((size_t)g->mesh.nvert + 1, 1);
        if (!used) {
            st = ALC_ERR_NOMEM;
            break;
        }
        for (int i = 0; i < 3 * g->mesh.ntri; i++) used[g->mesh.tri[i]] = 1;
        for (int i = 0; i < g->mesh.nvert; i++) sz.nsvert += used[i];
        free(used);
    }
    alcModel* m = st == ALC_OK ? alci_model_alloc(&sz) : NULL;
    if (!m) {
        for (int b = 0; b < s->nbody; b++) freeGeom(&geom[b]);
        free(geom);
        free(obstacleDriven);
        if (st == ALC_OK) st = ALC_ERR_NOMEM;
        alci_setMessage(err, errsz, "out of memory");
        return st;
    }
    m->opt = s->opt;
    m->run = s->run;

    // names
    int npos = 0;
    m->names[npos++] = 0;
    m->run.sceneNameAdr = appendName(m->names, &npos, s->sceneName ? s->sceneName : "");
    m->run.outDirAdr = s->outDir ? appendName(m->names, &npos, s->outDir) : -1;

    // materials
    for (int i = 0; i < nmat; i++) {
        alcMaterialDef md = s->nmat > 0 ? s->mat[i].def : alc_defaultMaterialDef();
        m->mat_model[i] = md.model;
        m->mat_density[i] = md.density;
        m->mat_young[i] = md.young;
        m->mat_poisson[i] = md.poisson;
        m->mat_lame[2 * i] = md.young / (2 * (1 + md.poisson));
        m->mat_lame[2 * i + 1] = md.young * md.poisson / ((1 + md.poisson) * (1 - 2 * md.poisson));
        m->mat_nameadr[i] = appendName(m->names, &npos, s->nmat > 0 ? s->mat[i].name : "default");
    }
    // friction table: explicit pair, else the smaller of two set values, else the one set
    for (int a = 0; a < nmat; a++) {
        for (int b = 0; b < nmat; b++) {
            double fa = s->nmat > 0 ? s->mat[a].def.friction : -1;
            double fb = s->nmat > 0 ? s->mat[b].def.friction : -1;
            double f = -1;
            if (fa >= 0 && fb >= 0)
                f = fa < fb ? fa : fb;
            else if (fa >= 0)
                f = fa;
            else if (fb >= 0)
                f = fb;
            m->mat_friction[a * nmat + b] = f;
        }
    }
    for (int i = 0; i < s->nfric; i++) {
        m->mat_friction[s->fric[i].a * nmat + s->fric[i].b] = s->fric[i].mu;
        m->mat_friction[s->fric[i].b * nmat + s->fric[i].a] = s->fric[i].mu;
    }

    // bodies: vertices, tetrahedra, surfaces
    int vadr = 0, tadr = 0, fadr = 0, eadr = 0, sadr = 0, nrigidDone = 0;
    for (int b = 0; b < s->nbody; b++) {
        const SpecBody* sb = &s->body[b];
        BodyGeom* g = &geom[b];
        m->body_type[b] = sb->def.type;
        m->body_mat[b] = sb->def.material;
        m->body_vertadr[b] = vadr;
        m->body_vertnum[b] = g->mesh.nvert;
        m->body_tetadr[b] = tadr;
        m->body_tetnum[b] = g->mesh.ntet;
        m->body_triadr[b] = fadr;
        m->body_trinum[b] = g->mesh.ntri;
        m->body_edgeadr[b] = eadr;
        m->body_edgenum[b] = g->nedge;
        m->body_nameadr[b] = appendName(m->names, &npos, sb->name);
        m->body_rigid[b] = -1;
        // centroid for the angular velocity (a rigid body: its centre of mass)
        double c[3] = {0, 0, 0};
        for (int i = 0; i < g->mesh.nvert; i++) {
            for (int k = 0; k < 3; k++) c[k] += g->mesh.vert[3 * i + k];
        }
        for (int k = 0; k < 3; k++) c[k] /= g->mesh.nvert;
        if (sb->def.type == ALC_BODY_RIGID) {
            // its pose: the principal frame (rotation vector) and the centre of mass
            int r = nrigidDone++;
            m->body_rigid[b] = r;
            m->rigid_body[r] = b;
            m->rigid_mass[r] = g->mass.mass;
            for (int k = 0; k < 3; k++) {
                c[k] = g->mass.com[k];
                m->rigid_inertia[3 * r + k] = g->mass.principal[k];
                m->rigid_pose0[6 * r + 3 + k] = g->mass.com[k];
                m->rigid_vel0[6 * r + k] = sb->def.angularVelocity[k];
                m->rigid_vel0[6 * r + 3 + k] = sb->def.velocity[k];
            }
            alcm_v3_store(m->rigid_pose0 + 6 * r, alcm_rotation_log(alcm_m3_load(g->mass.axes)));
            alci_rigid_toBody(&g->mass, g->mesh.vert, g->mesh.nvert, m->vert_local + 3 * vadr);
        }
        const double* w = sb->def.angularVelocity;
        for (int i = 0; i < g->mesh.nvert; i++) {
            const double* p = g->mesh.vert + 3 * i;
            double* x0 = m->vert_x0 + 3 * (vadr + i);
            double* v0 = m->vert_v0 + 3 * (vadr + i);
            double r[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
            for (int k = 0; k < 3; k++) x0[k] = p[k];
            v0[0] = sb->def.velocity[0] + w[1] * r[2] - w[2] * r[1];
            v0[1] = sb->def.velocity[1] + w[2] * r[0] - w[0] * r[2];
            v0[2] = sb->def.velocity[2] + w[0] * r[1] - w[1] * r[0];
            m->vert_body[vadr + i] = b;
            m->vert_driver[vadr + i] = -1;
        }
        // rest positions in the body frame (scaled, before rotation and translation)
        for (int i = 0; i < sb->def.nvert; i++) {
            int j = g->localToNew[i];
            if (j < 0) continue;
            for (int k = 0; k < 3; k++) {
                m->vert_rest[3 * (vadr + j) + k] = sb->vert[3 * i + k] * sb->def.scale[k];
            }
        }
        for (int t = 0; t < g->mesh.ntet; t++) {
            for (int k = 0; k < 4; k++)
                m->tet_vert[4 * (tadr + t) + k] = vadr + g->mesh.tet[4 * t + k];
            m->tet_body[tadr + t] = b;
        }
        unsigned char* used = (unsigned char*)calloc((size_t)g->mesh.nvert, 1);
        if (!used) {
            st = ALC_ERR_NOMEM;
            break;
        }
        for (int t = 0; t < g->mesh.ntri; t++) {
            for (int k = 0; k < 3; k++) {
                m->tri_vert[3 * (fadr + t) + k] = vadr + g->mesh.tri[3 * t + k];
                used[g->mesh.tri[3 * t + k]] = 1;
            }
            m->tri_body[fadr + t] = b;
        }
        for (int e = 0; e < g->nedge; e++) {
            m->edge_vert[2 * (eadr + e)] = vadr + g->edges[2 * e];
            m->edge_vert[2 * (eadr + e) + 1] = vadr + g->edges[2 * e + 1];
            m->edge_body[eadr + e] = b;
        }
        for (int i = 0; i < g->mesh.nvert; i++) {
            if (used[i]) m->svert[sadr++] = vadr + i;
        }
        free(used);
        vadr += g->mesh.nvert;
        tadr += g->mesh.ntet;
        fadr += g->mesh.ntri;
        eadr += g->nedge;
    }

    // tetrahedra: rest shape and lumped mass
    for (int t = 0; t < m->ntet && st == ALC_OK; t++) {
        const int* tv = m->tet_vert + 4 * t;
        alcV3 X[4];
        for (int k = 0; k < 4; k++) X[k] = alcm_v3_load(m->vert_x0 + 3 * tv[k]);
        alcM3 Dm =
            alcm_m3_cols(alcm_v3_sub(X[1], X[0]), alcm_v3_sub(X[2], X[0]), alcm_v3_sub(X[3], X[0]));
        alcM3 Dminv;
        double vol = alcm_m3_det(Dm) / 6.0;
        if (!(vol > 0) || !alcm_m3_inverse(Dm, &Dminv)) {
            int b = m->tet_body[t];
            alci_setMessage(err, errsz, "body '%s': tetrahedron %d is degenerate (volume %g)",
                            s->body[b].name, t - m->body_tetadr[b], vol);
            st = ALC_ERR_SCENE;
            break;
        }
        alcm_m3_store(m->tet_Dminv + 9 * t, Dminv);
        m->tet_vol[t] = vol;
        double mass = m->mat_density[m->body_mat[m->tet_body[t]]] * vol / 4.0;
        for (int k = 0; k < 4; k++) m->vert_mass[tv[k]] += mass;
    }

    // drivers
    int kadr = 0;
    for (int k = 0; k < s->ndrv && st == ALC_OK; k++) {
        const SpecDriver* sd = &s->drv[k];
        const alcDriverDef* dd = &sd->def;
        int b = sd->body;
        m->driver_type[k] = dd->type;
        double* prm = m->driver_param + ALC_DRIVER_NPARAM * k;
        for (int j = 0; j < 3; j++) {
            prm[ALC_DP_VEL + j] = dd->velocity[j];
            prm[ALC_DP_CENTER + j] = dd->center[j];
        }
        double an =
            sqrt(dd->axis[0] * dd->axis[0] + dd->axis[1] * dd->axis[1] + dd->axis[2] * dd->axis[2]);
        for (int j = 0; j < 3; j++) prm[ALC_DP_AXIS + j] = an > 0 ? dd->axis[j] / an : 0;
        prm[ALC_DP_OMEGA] = dd->angularSpeed;
        prm[ALC_DP_START] = dd->start;
        prm[ALC_DP_END] = dd->end;
        prm[ALC_DP_RELEASE] = dd->release;
        for (int j = 0; j < 4; j++) prm[ALC_DP_RELPAST + j] = dd->releasePast[j];
        m->driver_keyadr[k] = kadr;
        m->driver_keynum[k] = dd->nkey;
        if (dd->nkey > 0) {
            memcpy(m->key_data + 8 * kadr, sd->keys, sizeof(double) * 8 * (size_t)dd->nkey);
        }
        kadr += dd->nkey;
        m->driver_nameadr[k] = appendName(m->names, &npos, sd->name);
        // assign vertices
        int nv = sd->nvert > 0 ? sd->nvert : s->body[b].def.nvert;
        double c[3] = {0, 0, 0};
        int cnt = 0;
        for (int i = 0; i < nv; i++) {
            int local = sd->nvert > 0 ? sd->verts[i] : i;
            int j = geom[b].localToNew[local];
            if (j < 0) continue;  // unused vertex, dropped by compaction
            int gv = m->body_vertadr[b] + j;
            if (m->vert_driver[gv] >= 0 && m->vert_driver[gv] != k) {
                alci_setMessage(err, errsz,
                                "driver '%s': vertex %d of body '%s' already belongs to driver "
                                "'%s'",
                                sd->name, local, s->body[b].name, s->drv[m->vert_driver[gv]].name);
                st = ALC_ERR_SCENE;
                break;
            }
            m->vert_driver[gv] = k;
            for (int q = 0; q < 3; q++) c[q] += m->vert_x0[3 * gv + q];
            cnt++;
        }
        for (int q = 0; q < 3; q++) prm[ALC_DP_CENTROID + q] = cnt ? c[q] / cnt : 0;
        // a rigid body moves as one: a driver takes all of it (its pose follows the targets)
        if (st == ALC_OK && s->body[b].def.type == ALC_BODY_RIGID && cnt != m->body_vertnum[b]) {
            alci_setMessage(err, errsz,
                            "driver '%s': rigid body '%s' moves as one, so a driver must move all "
                            "of its %d vertices (this one moves %d); pass nvert = 0",
                            sd->name, s->body[b].name, m->body_vertnum[b], cnt);
            st = ALC_ERR_SCENE;
        }
    }
    int kd = s->ndrv;
    for (int b = 0; b < s->nbody && st == ALC_OK; b++) {
        if (s->body[b].def.type != ALC_BODY_OBSTACLE || obstacleDriven[b]) continue;
        m->driver_type[kd] = ALC_DRIVER_FIXED;
        double* prm = m->driver_param + ALC_DRIVER_NPARAM * kd;
        prm[ALC_DP_AXIS + 1] = 1;
        prm[ALC_DP_END] = HUGE_VAL;
        prm[ALC_DP_RELEASE] = HUGE_VAL;
        m->driver_keyadr[kd] = kadr;
        m->driver_keynum[kd] = 0;
        char nm[ALC_ERRLEN];
        snprintf(nm, sizeof nm, "%s-fixed", s->body[b].name);
        m->driver_nameadr[kd] = appendName(m->names, &npos, nm);
        for (int i = 0; i < m->body_vertnum[b]; i++) {
            int gv = m->body_vertadr[b] + i;
            if (m->vert_driver[gv] < 0) m->vert_driver[gv] = kd;
        }
        kd++;
    }
    // every obstacle vertex must be kinematic
    for (int b = 0; b < s->nbody && st == ALC_OK; b++) {
        if (s->body[b].def.type != ALC_BODY_OBSTACLE) continue;
        for (int i = 0; i < m->body_vertnum[b]; i++) {
            if (m->vert_driver[m->body_vertadr[b] + i] < 0) {
                alci_setMessage(err, errsz,
                                "obstacle '%s': vertex %d has no driver (drive the whole "
                                "obstacle)",
                                s->body[b].name, i);
                st = ALC_ERR_SCENE;
                break;
            }
        }
    }
    // free solid vertices need mass
    for (int v = 0; v < m->nvert && st == ALC_OK; v++) {
        if (m->body_type[m->vert_body[v]] == ALC_BODY_SOLID && !(m->vert_mass[v] > 0)) {
            alci_setMessage(err, errsz, "body '%s': vertex %d has no mass",
                            s->body[m->vert_body[v]].name, v - m->body_vertadr[m->vert_body[v]]);
            st = ALC_ERR_SCENE;
        }
    }

    // extent
    double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    for (int v = 0; v < m->nvert; v++) {
        for (int k = 0; k < 3; k++) {
            double p = m->vert_x0[3 * v + k];
            if (p < lo[k]) lo[k] = p;
            if (p > hi[k]) hi[k] = p;
        }
    }
    for (int k = 0; k < 3; k++) {
        m->extent[k] = lo[k];
        m->extent[3 + k] = hi[k];
    }
    m->diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                   (hi[2] - lo[2]) * (hi[2] - lo[2]));

    for (int b = 0; b < s->nbody; b++) freeGeom(&geom[b]);
    free(geom);
    free(obstacleDriven);
    // the initial state must be intersection-free: the method only ever moves between
    // intersection-free states (exact check, obstacle-obstacle pairs excluded)
    if (st == ALC_OK) st = checkInitialState(m, err, errsz, bad);
    if (st != ALC_OK) {
        if (st == ALC_ERR_NOMEM) alci_setMessage(err, errsz, "out of memory");
        alc_deleteModel(m);
        return st;
    }
    *out = m;
    return ALC_OK;
}
