// Wavefront .obj reader: 'v' and 'f' statements make a triangle surface (polygons are
// fan-triangulated); every other statement is ignored.
#include "mesh.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Reader state: the file in memory, the current line and the growing arrays.
typedef struct {
    const char* path;
    int line;
    char* err;
    int errsz;
    double* vert;
    size_t nvert, capVert;  // vertices (x3 doubles)
    int* tri;
    size_t ntri, capTri;  // triangles (x3 ints)
} Obj;

__attribute__((format(printf, 3, 4))) static alctStatus fail(Obj* o, alctStatus s, const char* fmt,
                                                             ...) {
    if (o->err && o->errsz > 0 && !o->err[0]) {
        int n = snprintf(o->err, (size_t)o->errsz, "%s:%d: ", o->path, o->line);
        if (n >= 0 && n < o->errsz) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(o->err + n, (size_t)(o->errsz - n), fmt, ap);
            va_end(ap);
        }
    }
    return s;
}

/// Read the whole file into a NUL-terminated buffer.
static alctStatus readFile(Obj* o, char** out, size_t* len) {
    FILE* f = fopen(o->path, "rb");
    if (!f) return fail(o, ALC_ERR_IO, "cannot open: %s", strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char* buf = (char*)malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1) break;
        char* grown = cap < SIZE_MAX / 2 ? (char*)realloc(buf, cap * 2) : NULL;
        if (!grown) free(buf);
        buf = grown;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf) return fail(o, ALC_ERR_NOMEM, "out of memory reading the file");
    if (bad) {
        free(buf);
        return fail(o, ALC_ERR_IO, "read error");
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return ALC_OK;
}

static int isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// Next blank-separated token of the line [*p, end); *n = 0 at the end of the line.
static const char* nextToken(const char** p, const char* end, size_t* n) {
    const char* s = *p;
    while (s < end && isBlank(*s)) s++;
    const char* e = s;
    while (e < end && !isBlank(*e)) e++;
    *p = e;
    *n = (size_t)(e - s);
    return s;
}

static const char* shown(const char* tok, size_t n, char out[40]) {
    size_t k = 0;
    for (size_t i = 0; i < n && k < 32; i++) {
        unsigned char c = (unsigned char)tok[i];
        out[k++] = (c >= 32 && c < 127) ? (char)c : '?';
    }
    if (n > 32) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = 0;
    return out;
}

/// "v x y z [w | r g b]": the first three numbers are the position.
static alctStatus parseVertex(Obj* o, const char* p, const char* end) {
    if (o->nvert == o->capVert) {
        size_t cap = o->capVert ? 2 * o->capVert : 1024;
        if (cap > (size_t)INT_MAX / 3) return fail(o, ALC_ERR_SCENE, "too many vertices");
        double* v = (double*)realloc(o->vert, cap * 3 * sizeof(double));
        if (!v) return fail(o, ALC_ERR_NOMEM, "out of memory");
        o->vert = v;
        o->capVert = cap;
    }
    static const char* kCoord[3] = {"x", "y", "z"};
    for (int a = 0; a < 3; a++) {
        size_t n;
        const char* tok = nextToken(&p, end, &n);
        char tmp[64], show[40];
        char* stop = NULL;
        double x = 0.0;
        if (n == 0) return fail(o, ALC_ERR_SCENE, "vertex has no %s coordinate", kCoord[a]);
        if (n < sizeof tmp) {
            memcpy(tmp, tok, n);
            tmp[n] = 0;
            x = strtod(tmp, &stop);
        }
        if (n >= sizeof tmp || stop != tmp + n) {
            return fail(o, ALC_ERR_SCENE, "vertex %s coordinate '%s' is not a number", kCoord[a],
                        shown(tok, n, show));
        }
        if (!isfinite(x)) {
            return fail(o, ALC_ERR_SCENE, "vertex %s coordinate '%s' is not finite", kCoord[a],
                        shown(tok, n, show));
        }
        o->vert[3 * o->nvert + a] = x;
    }
    o->nvert++;
    return ALC_OK;
}

/// Vertex index of a face corner "i", "i/t", "i/t/n" or "i//n" (negative: relative).
static alctStatus parseCorner(Obj* o, const char* tok, size_t n, int* out) {
    char tmp[40], show[40];
    size_t k = 0;
    while (k < n && tok[k] != '/') k++;
    char* stop = NULL;
    long long i = 0;
    if (k > 0 && k < sizeof tmp) {
        memcpy(tmp, tok, k);
        tmp[k] = 0;
        errno = 0;
        i = strtoll(tmp, &stop, 10);
    }
    if (k == 0 || k >= sizeof tmp || stop != tmp + k || errno == ERANGE) {
        return fail(o, ALC_ERR_SCENE, "face corner '%s' does not start with a vertex index",
                    shown(tok, n, show));
    }
    if (i == 0) return fail(o, ALC_ERR_SCENE, "vertex index 0 is invalid (indices start at 1)");
    long long idx = i > 0 ? i - 1 : (long long)o->nvert + i;
    if (idx < 0 || idx >= (long long)o->nvert) {
        return fail(o, ALC_ERR_SCENE, "face refers to vertex %lld, but only %zu vertices exist", i,
                    o->nvert);
    }
    *out = (int)idx;
    return ALC_OK;
}

static alctStatus pushTri(Obj* o, int a, int b, int c) {
    if (a == b || b == c || c == a) {
        return fail(o, ALC_ERR_SCENE, "face uses vertex %d twice", (a == b || a == c ? a : b) + 1);
    }
    if (o->ntri == o->capTri) {
        size_t cap = o->capTri ? 2 * o->capTri : 1024;
        if (cap > (size_t)INT_MAX / 3) return fail(o, ALC_ERR_SCENE, "too many triangles");
        int* t = (int*)realloc(o->tri, cap * 3 * sizeof(int));
        if (!t) return fail(o, ALC_ERR_NOMEM, "out of memory");
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
static alctStatus parseFace(Obj* o, const char* p, const char* end) {
    int first = -1, prev = -1, count = 0;
    for (;;) {
        size_t n;
        const char* tok = nextToken(&p, end, &n);
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
        return fail(o, ALC_ERR_SCENE, "face has %d vertices, at least 3 are needed", count);
    }
    return ALC_OK;
}

/// Parse the lines of the buffer.
static alctStatus parse(Obj* o, const char* buf, size_t len) {
    const char* p = buf;
    const char* stop = buf + len;
    for (o->line = 1; p < stop; o->line++) {
        const char* end = memchr(p, '\n', (size_t)(stop - p));
        if (!end) end = stop;
        if (memchr(p, 0, (size_t)(end - p))) {
            return fail(o, ALC_ERR_SCENE, "binary data (a NUL byte): not a text .obj file");
        }
        // the statement keyword decides; comments and other statements are skipped
        const char* q = p;
        size_t n;
        const char* kw = nextToken(&q, end, &n);
        alctStatus s = ALC_OK;
        if (n == 1 && kw[0] == 'v') {
            s = parseVertex(o, q, end);
        } else if (n == 1 && kw[0] == 'f') {
            s = parseFace(o, q, end);
        }
        if (s != ALC_OK) return s;
        p = end + 1;
    }
    if (o->nvert == 0) {
        o->line = 0;
        return fail(o, ALC_ERR_SCENE, "no vertices ('v' lines) found");
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
    o.path = path;
    o.err = err;
    o.errsz = errsz;
    char* buf = NULL;
    size_t len = 0;
    alctStatus s = readFile(&o, &buf, &len);
    if (s == ALC_OK) s = parse(&o, buf, len);
    free(buf);
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
