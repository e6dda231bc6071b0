// Wavefront .obj reader: 'v' and 'f' statements make a triangle surface (polygons are
// fan-triangulated); every other statement is ignored.
#include "mesh.h"
#include "mesh_text.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Reader state: the file in memory, the current line and the growing arrays.
typedef struct {
    alciText txt;
    double* vert;
    size_t nvert, capVert;  // vertices (x3 doubles)
    int* tri;
    size_t ntri, capTri;  // triangles (x3 ints)
} Obj;

/// "v x y z [w | r g b]": the first three numbers are the position.
static alctStatus parseVertex(Obj* o) {
    if (o->nvert == o->capVert) {
        size_t cap = o->capVert ? 2 * o->capVert : 1024;
        if (cap > (size_t)INT_MAX / 3) {
            return alci_text_fail(&o->txt, ALC_ERR_SCENE, "too many vertices");
        }
        double* v = (double*)realloc(o->vert, cap * 3 * sizeof(double));
        if (!v) return alci_text_fail(&o->txt, ALC_ERR_NOMEM, "out of memory");
        o->vert = v;
        o->capVert = cap;
    }
    static const char* kCoord[3] = {"x", "y", "z"};
    for (int a = 0; a < 3; a++) {
        size_t n;
        const char* tok = alci_text_token(&o->txt, 0, &n);
        char show[ALCI_TEXT_SHOWN];
        double x = 0.0;
        if (n == 0) {
            return alci_text_fail(&o->txt, ALC_ERR_SCENE, "vertex has no %s coordinate", kCoord[a]);
        }
        if (!alci_text_toReal(tok, n, &x)) {
            return alci_text_fail(&o->txt, ALC_ERR_SCENE,
                                  "vertex %s coordinate '%s' is not a number", kCoord[a],
                                  alci_text_shown(tok, n, show));
        }
        if (!isfinite(x)) {
            return alci_text_fail(&o->txt, ALC_ERR_SCENE, "vertex %s coordinate '%s' is not finite",
                                  kCoord[a], alci_text_shown(tok, n, show));
        }
        o->vert[3 * o->nvert + a] = x;
    }
    o->nvert++;
    return ALC_OK;
}

/// Vertex index of a face corner "i", "i/t", "i/t/n" or "i//n" (negative: relative).
static alctStatus parseCorner(Obj* o, const char* tok, size_t n, int* out) {
    char show[ALCI_TEXT_SHOWN];
    size_t k = 0;
    while (k < n && tok[k] != '/') k++;
    long long i = 0;
    if (!alci_text_toInt(tok, k, &i)) {
        return alci_text_fail(&o->txt, ALC_ERR_SCENE,
                              "face corner '%s' does not start with a vertex index",
                              alci_text_shown(tok, n, show));
    }
    if (i == 0) {
        return alci_text_fail(&o->txt, ALC_ERR_SCENE,
                              "vertex index 0 is invalid (indices start at 1)");
    }
    long long idx = i > 0 ? i - 1 : (long long)o->nvert + i;
    if (idx < 0 || idx >= (long long)o->nvert) {
        return alci_text_fail(&o->txt, ALC_ERR_SCENE,
                              "face refers to vertex %lld, but only %zu vertices exist", i,
                              o->nvert);
    }
    *out = (int)idx;
    return ALC_OK;
}

static alctStatus pushTri(Obj* o, int a, int b, int c) {
    if (a == b || b == c || c == a) {
        return alci_text_fail(&o->txt, ALC_ERR_SCENE, "face uses vertex %d twice",
                              (a == b || a == c ? a : b) + 1);
    }
    if (o->ntri == o->capTri) {
        size_t cap = o->capTri ? 2 * o->capTri : 1024;
        if (cap > (size_t)INT_MAX / 3) {
            return alci_text_fail(&o->txt, ALC_ERR_SCENE, "too many triangles");
        }
        int* t = (int*)realloc(o->tri, cap * 3 * sizeof(int));
        if (!t) return alci_text_fail(&o->txt, ALC_ERR_NOMEM, "out of memory");
        o->tri = t;
        o->capTri = cap;
    }
    o->tri[3 * o->ntri + 0] = a;
    o->tri[3 * o->ntri + 1] = b;
    o->tri[3 * o->ntri + 2] = c;
    o->ntri++;
    return ALC_OK;
}

/// "f c1 c2 c3 ...": a polygon, split into a fan around its first corner.
static alctStatus parseFace(Obj* o) {
    int first = -1, prev = -1, count = 0;
    for (;;) {
        size_t n;
        const char* tok = alci_text_token(&o->txt, 0, &n);
        if (n == 0) break;
        int v = -1;
        alctStatus s = parseCorner(o, tok, n, &v);
        if (s != ALC_OK) return s;
        if (count == 0) first = v;
        if (count >= 2 && (s = pushTri(o, first, prev, v)) != ALC_OK) return s;
        prev = v;
        count++;
    }
    if (count < 3) {
        return alci_text_fail(&o->txt, ALC_ERR_SCENE, "face has %d vertices, at least 3 are needed",
                              count);
    }
    return ALC_OK;
}

/// Parse the file line by line.
static alctStatus parse(Obj* o) {
    alciText* t = &o->txt;
    while (t->pos < t->len) {
        const char* p = t->buf + t->pos;
        const char* nl = memchr(p, '\n', t->len - t->pos);
        size_t eol = nl ? (size_t)(nl - t->buf) : t->len;
        if (memchr(p, 0, eol - t->pos)) {
            return alci_text_fail(t, ALC_ERR_SCENE,
                                  "binary data (a NUL byte): not a text .obj file");
        }
        // the statement keyword decides; comments and other statements are skipped
        size_t n;
        const char* kw = alci_text_token(t, 0, &n);
        alctStatus s = ALC_OK;
        if (n == 1 && kw[0] == 'v') {
            s = parseVertex(o);
        } else if (n == 1 && kw[0] == 'f') {
            s = parseFace(o);
        }
        if (s != ALC_OK) return s;
        if (eol == t->len) break;
        t->pos = eol + 1;
        t->line++;
    }
    if (o->nvert == 0) {
        t->line = 0;
        return alci_text_fail(t, ALC_ERR_SCENE, "no vertices ('v' lines) found");
    }
    return ALC_OK;
}

alctStatus alci_mesh_readObj(const char* path, alciMesh* mesh, char* err, int errsz) {
    if (err && errsz > 0) err[0] = 0;
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!path) return ALC_ERR_INVALID_ARG;
    Obj o;
    memset(&o, 0, sizeof o);
    alctStatus s = alci_text_open(&o.txt, path, 0, err, errsz);
    if (s == ALC_OK) s = parse(&o);
    alci_text_close(&o.txt);
    if (s != ALC_OK) {
        free(o.vert);
        free(o.tri);
        return s;
    }
    mesh->nvert = (int)o.nvert;
    mesh->vert = o.vert;
    mesh->ntri = (int)o.ntri;
    mesh->tri = o.tri;
    return ALC_OK;
}
