// TetGen reader: a .node file (points) and the .ele file beside it (tetrahedra).
// '#' starts a comment; numbering starts at the first point's index (0 or 1).
#include "mesh.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Line-oriented text cursor over one file held in memory.
typedef struct {
    const char* path;
    char* buf;  // NUL-terminated contents
    size_t len, pos;
    int line;
    char* err;
    int errsz;
} Text;

__attribute__((format(printf, 3, 4))) static alctStatus fail(Text* t, alctStatus s, const char* fmt,
                                                             ...) {
    if (t->err && t->errsz > 0 && !t->err[0]) {
        // at the end of a file that ends with a newline, name its last line
        if (t->buf && t->pos >= t->len && t->len > 0 && t->buf[t->len - 1] == '\n' && t->line > 1) {
            t->line--;
        }
        int n = snprintf(t->err, (size_t)t->errsz, "%s:%d: ", t->path, t->line);
        if (n >= 0 && n < t->errsz) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(t->err + n, (size_t)(t->errsz - n), fmt, ap);
            va_end(ap);
        }
    }
    return s;
}

/// Open and read the whole file; line 0 in messages until it is read.
static alctStatus openText(Text* t, const char* path, char* err, int errsz) {
    memset(t, 0, sizeof *t);
    t->path = path;
    t->err = err;
    t->errsz = errsz;
    FILE* f = fopen(path, "rb");
    if (!f) return fail(t, ALC_ERR_IO, "cannot open: %s", strerror(errno));
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
    if (!buf) return fail(t, ALC_ERR_NOMEM, "out of memory reading the file");
    if (bad) {
        free(buf);
        return fail(t, ALC_ERR_IO, "read error");
    }
    buf[n] = 0;
    t->buf = buf;
    t->len = n;
    t->line = 1;
    return ALC_OK;
}

static int isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/// Skip blanks and comments; also newlines when crossLines.
static void skipBlank(Text* t, int crossLines) {
    while (t->pos < t->len) {
        char c = t->buf[t->pos];
        if (c == '#') {
            while (t->pos < t->len && t->buf[t->pos] != '\n') t->pos++;
            continue;
        }
        if (c == '\n' && crossLines) {
            t->line++;
        } else if (!isBlank(c)) {
            break;
        }
        t->pos++;
    }
}

static const char* nextToken(Text* t, int crossLines, size_t* n) {
    skipBlank(t, crossLines);
    size_t start = t->pos;
    while (t->pos < t->len && t->buf[t->pos] != '\n' && t->buf[t->pos] != '#' &&
           !isBlank(t->buf[t->pos])) {
        t->pos++;
    }
    *n = t->pos - start;
    return t->buf + start;
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

static alctStatus missing(Text* t, const char* what) {
    if (t->pos >= t->len) {
        return fail(t, ALC_ERR_SCENE, "unexpected end of file, expected %s", what);
    }
    return fail(t, ALC_ERR_SCENE, "line ends early, expected %s", what);
}

static alctStatus readInt(Text* t, int crossLines, const char* what, long long* out) {
    size_t n;
    const char* tok = nextToken(t, crossLines, &n);
    if (n == 0) return missing(t, what);
    char tmp[40], show[40];
    char* end = NULL;
    if (n < sizeof tmp) {
        memcpy(tmp, tok, n);
        tmp[n] = 0;
        errno = 0;
        *out = strtoll(tmp, &end, 10);
    }
    if (n >= sizeof tmp || end != tmp + n || errno == ERANGE) {
        return fail(t, ALC_ERR_SCENE, "expected %s (an integer), found '%s'", what,
                    shown(tok, n, show));
    }
    return ALC_OK;
}

static alctStatus readReal(Text* t, const char* what, double* out) {
    size_t n;
    const char* tok = nextToken(t, 0, &n);
    if (n == 0) return missing(t, what);
    char tmp[64], show[40];
    char* end = NULL;
    if (n < sizeof tmp) {
        memcpy(tmp, tok, n);
        tmp[n] = 0;
        *out = strtod(tmp, &end);
    }
    if (n >= sizeof tmp || end != tmp + n) {
        return fail(t, ALC_ERR_SCENE, "expected %s (a number), found '%s'", what,
                    shown(tok, n, show));
    }
    if (!isfinite(*out)) {
        return fail(t, ALC_ERR_SCENE, "%s is not finite ('%s')", what, shown(tok, n, show));
    }
    return ALC_OK;
}

/// Only blanks or a comment may remain on the line.
static alctStatus endLine(Text* t) {
    size_t n;
    const char* tok = nextToken(t, 0, &n);
    if (n > 0) {
        char show[40];
        return fail(t, ALC_ERR_SCENE, "unexpected '%s' at the end of the line",
                    shown(tok, n, show));
    }
    return ALC_OK;
}

/// Refuse a count that is out of [0, limit] or larger than the lines the file can still hold.
static alctStatus checkCount(Text* t, long long count, long long limit, const char* what) {
    if (count < 0) return fail(t, ALC_ERR_SCENE, "negative number of %s (%lld)", what, count);
    if (count > limit || (unsigned long long)count > (t->len - t->pos) / 2) {
        return fail(t, ALC_ERR_SCENE,
                    "%lld %s declared, but the file has only %zu bytes left (truncated or corrupt)",
                    count, what, t->len - t->pos);
    }
    return ALC_OK;
}

/// Read the .node file into mesh->vert; *base is the first point's index.
static alctStatus readNode(Text* t, alciMesh* mesh, long long* base) {
    long long count, dim, nattr, nmark;
    alctStatus s = readInt(t, 1, "the number of points", &count);
    if (s == ALC_OK) s = readInt(t, 0, "the dimension", &dim);
    if (s == ALC_OK) s = readInt(t, 0, "the number of attributes", &nattr);
    if (s == ALC_OK) s = readInt(t, 0, "the number of boundary markers", &nmark);
    if (s == ALC_OK) s = endLine(t);
    if (s != ALC_OK) return s;
    if (dim != 3) return fail(t, ALC_ERR_SCENE, "dimension is %lld, expected 3", dim);
    if (nattr < 0 || nattr > 1000 || (nmark != 0 && nmark != 1)) {
        return fail(t, ALC_ERR_SCENE, "bad header: %lld attributes, %lld boundary markers", nattr,
                    nmark);
    }
    if (count == 0) return fail(t, ALC_ERR_SCENE, "the file declares no points");
    if ((s = checkCount(t, count, INT_MAX / 3, "points")) != ALC_OK) return s;
    mesh->vert = (double*)malloc((size_t)count * 3 * sizeof(double));
    if (!mesh->vert) return fail(t, ALC_ERR_NOMEM, "out of memory for %lld points", count);
    // one point a line: index x y z [attributes] [marker]
    for (long long i = 0; i < count; i++) {
        long long index;
        double x;
        if ((s = readInt(t, 1, "a point index", &index)) != ALC_OK) return s;
        if (i == 0) {
            if (index != 0 && index != 1) {
                return fail(t, ALC_ERR_SCENE, "first point index is %lld, expected 0 or 1", index);
            }
            *base = index;
        } else if (index != *base + i) {
            return fail(t, ALC_ERR_SCENE, "point index %lld is out of sequence (expected %lld)",
                        index, *base + i);
        }
        static const char* kCoord[3] = {"x coordinate", "y coordinate", "z coordinate"};
        for (int a = 0; a < 3; a++) {
            if ((s = readReal(t, kCoord[a], mesh->vert + 3 * i + a)) != ALC_OK) return s;
        }
        for (long long a = 0; a < nattr; a++) {
            if ((s = readReal(t, "a point attribute", &x)) != ALC_OK) return s;
        }
        if (nmark && (s = readInt(t, 0, "a boundary marker", &index)) != ALC_OK) return s;
        if ((s = endLine(t)) != ALC_OK) return s;
        mesh->nvert = (int)i + 1;
    }
    return ALC_OK;
}

/// Read the .ele file into mesh->tet, node indices counted from base.
static alctStatus readEle(Text* t, alciMesh* mesh, long long base) {
    long long count, per, nattr;
    alctStatus s = readInt(t, 1, "the number of tetrahedra", &count);
    if (s == ALC_OK) s = readInt(t, 0, "the number of nodes per tetrahedron", &per);
    if (s == ALC_OK) s = readInt(t, 0, "the number of attributes", &nattr);
    if (s == ALC_OK) s = endLine(t);
    if (s != ALC_OK) return s;
    if (per != 4 && per != 10) {
        return fail(t, ALC_ERR_SCENE, "%lld nodes per tetrahedron, expected 4 or 10", per);
    }
    if (nattr < 0 || nattr > 1000) {
        return fail(t, ALC_ERR_SCENE, "bad number of attributes %lld", nattr);
    }
    if ((s = checkCount(t, count, INT_MAX / 4, "tetrahedra")) != ALC_OK) return s;
    mesh->tet = (int*)malloc((size_t)(count > 0 ? count : 1) * 4 * sizeof(int));
    if (!mesh->tet) return fail(t, ALC_ERR_NOMEM, "out of memory for %lld tetrahedra", count);
    // one tetrahedron a line: index n1 n2 n3 n4 [6 more nodes] [attributes]
    long long first = 0;
    for (long long e = 0; e < count; e++) {
        long long index, node;
        double x;
        if ((s = readInt(t, 1, "a tetrahedron index", &index)) != ALC_OK) return s;
        if (e == 0 && index != 0 && index != 1) {
            return fail(t, ALC_ERR_SCENE, "first tetrahedron index is %lld, expected 0 or 1",
                        index);
        }
        if (e == 0) first = index;
        if (index != first + e) {
            return fail(t, ALC_ERR_SCENE,
                        "tetrahedron index %lld is out of sequence (expected %lld)", index,
                        first + e);
        }
        for (long long k = 0; k < per; k++) {
            if ((s = readInt(t, 0, "a node index", &node)) != ALC_OK) return s;
            if (node < base || node - base >= mesh->nvert) {
                return fail(t, ALC_ERR_SCENE,
                            "tetrahedron %lld refers to node %lld, but the nodes are numbered "
                            "%lld to %lld",
                            index, node, base, base + mesh->nvert - 1);
            }
            if (k < 4) mesh->tet[4 * e + k] = (int)(node - base);
        }
        for (int a = 0; a < 4; a++) {
            for (int b = 0; b < a; b++) {
                if (mesh->tet[4 * e + a] == mesh->tet[4 * e + b]) {
                    return fail(t, ALC_ERR_SCENE, "tetrahedron %lld uses node %lld twice", index,
                                mesh->tet[4 * e + a] + base);
                }
            }
        }
        for (long long a = 0; a < nattr; a++) {
            if ((s = readReal(t, "a tetrahedron attribute", &x)) != ALC_OK) return s;
        }
        if ((s = endLine(t)) != ALC_OK) return s;
        mesh->ntet = (int)e + 1;
    }
    return ALC_OK;
}

alctStatus alci_mesh_readTetgen(const char* path, alciMesh* mesh, char* err, int errsz) {
    if (err && errsz > 0) err[0] = 0;
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!path) return ALC_ERR_INVALID_ARG;
    // the two paths: same base name, .node and .ele
    size_t n = strlen(path);
    const char* dot = strrchr(path, '.');
    const char* slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) dot = path + n;
    size_t stem = (size_t)(dot - path);
    char* nodePath = (char*)malloc(stem + 6);
    char* elePath = (char*)malloc(stem + 6);
    if (!nodePath || !elePath) {
        free(nodePath);
        free(elePath);
        return ALC_ERR_NOMEM;
    }
    memcpy(nodePath, path, stem);
    memcpy(nodePath + stem, ".node", 6);
    memcpy(elePath, path, stem);
    memcpy(elePath + stem, ".ele", 5);
    // points, then tetrahedra
    Text t;
    long long base = 0;
    alctStatus s = openText(&t, nodePath, err, errsz);
    if (s == ALC_OK) s = readNode(&t, mesh, &base);
    free(t.buf);
    if (s == ALC_OK) {
        s = openText(&t, elePath, err, errsz);
        if (s == ALC_OK) s = readEle(&t, mesh, base);
        free(t.buf);
    }
    free(nodePath);
    free(elePath);
    if (s != ALC_OK) alci_mesh_free(mesh);
    return s;
}
