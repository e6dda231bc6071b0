// Frame writers: surface meshes as VTK XML (.vtu + .pvd) and binary PLY.
#include "frame_writer.h"

#include "alc_internal.h"
#include "io_atomic.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

// block size of the VTK zlib compressor (its default), bytes of uncompressed data
#define VTU_BLOCK 32768
// VTK cell type of a linear triangle
#define VTK_TRIANGLE_TYPE 5

// the surface vertices of a model and the renumbering into them
typedef struct {
    int nsurf;   // surface vertices
    int* map;    // model vertex -> surface index, or -1 (nvert)
    int* verts;  // surface index -> model vertex (nsurf)
} Surface;

// a growing byte buffer: the appended section of a .vtu
typedef struct {
    unsigned char* data;
    size_t n, cap;
} Blob;

static int hostIsLittleEndian(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static void putU32LE(unsigned char* p, uint32_t u) {
    for (int b = 0; b < 4; b++) p[b] = (unsigned char)(u >> (8 * b));
}

static void freeSurface(Surface* s) {
    free(s->map);
    free(s->verts);
    memset(s, 0, sizeof *s);
}

// check the inputs shared by both formats and collect the used vertices in ascending order
static alctStatus buildSurface(const char* path, const alcModel* m, const double* x, Surface* s,
                               char* err, int errsz) {
    memset(s, 0, sizeof *s);
    if (!path || !path[0] || !m || (!x && m->nvert > 0)) {
        alci_file_setError(err, errsz, "frame writer: NULL path, model or positions");
        return ALC_ERR_INVALID_ARG;
    }
    if (m->nvert < 0 || m->ntri < 0 || m->ntri > INT_MAX / 3 || (m->ntri > 0 && !m->tri_vert)) {
        alci_file_setError(err, errsz, "%s: model has no valid surface triangles", path);
        return ALC_ERR_INVALID_ARG;
    }

    // mark the vertices used by triangles
    s->map = (int*)malloc(((size_t)m->nvert + 1) * sizeof(int));
    if (!s->map) {
        alci_file_setError(err, errsz, "%s: out of memory", path);
        return ALC_ERR_NOMEM;
    }
    for (int i = 0; i < m->nvert; i++) s->map[i] = -1;
    for (long k = 0; k < 3L * m->ntri; k++) {
        int iv = m->tri_vert[k];
        if (iv < 0 || iv >= m->nvert) {
            alci_file_setError(err, errsz, "%s: triangle %ld has vertex %d outside [0, %d)", path,
                               k / 3, iv, m->nvert);
            freeSurface(s);
            return ALC_ERR_INVALID_ARG;
        }
        s->map[iv] = 0;
    }

    // number them in ascending model order
    int count = 0;
    for (int i = 0; i < m->nvert; i++) {
        if (s->map[i] == 0) s->map[i] = count++;
    }
    s->verts = (int*)malloc(((size_t)count + 1) * sizeof(int));
    if (!s->verts) {
        alci_file_setError(err, errsz, "%s: out of memory", path);
        freeSurface(s);
        return ALC_ERR_NOMEM;
    }
    for (int i = 0; i < m->nvert; i++) {
        if (s->map[i] >= 0) s->verts[s->map[i]] = i;
    }
    s->nsurf = count;
    return ALC_OK;
}

// make room for n more bytes; 0 on allocation failure
static int blobReserve(Blob* b, size_t n) {
    if (b->n + n <= b->cap) return 1;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + n) cap *= 2;
    unsigned char* p = (unsigned char*)realloc(b->data, cap);
    if (!p) return 0;
    b->data = p;
    b->cap = cap;
    return 1;
}

// append the base64 encoding (RFC 4648, padded) of n bytes to text
static int putBase64(Blob* text, const unsigned char* p, size_t n) {
    static const char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (!blobReserve(text, 4 * ((n + 2) / 3))) return 0;
    char* o = (char*)text->data + text->n;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t w = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *o++ = kAlphabet[w >> 18];
        *o++ = kAlphabet[(w >> 12) & 63];
        *o++ = kAlphabet[(w >> 6) & 63];
        *o++ = kAlphabet[w & 63];
    }
    if (i < n) {
        uint32_t w = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        *o++ = kAlphabet[w >> 18];
        *o++ = kAlphabet[(w >> 12) & 63];
        *o++ = i + 1 < n ? kAlphabet[(w >> 6) & 63] : '=';
        *o++ = '=';
    }
    text->n = (size_t)(o - (char*)text->data);
    return 1;
}

// one data array in VTK's inline binary layout, as base64 text: the header and the data are
// encoded separately, as VTK writes them and its readers (and meshio) expect. Raw: header
// UInt64 byte count. Compressed: header UInt64 {nblocks, block size, last block size (0 =
// full), compressed size of each block}, data the zlib blocks back to back. `work` is scratch.
static alctStatus encodeArray(Blob* text, Blob* work, const void* data, size_t nbytes,
                              int compress) {
    work->n = 0;
    if (!compress) {
        uint64_t count = (uint64_t)nbytes;  // host byte order, declared in the VTKFile element
        if (!putBase64(text, (const unsigned char*)&count, 8) ||
            !putBase64(text, (const unsigned char*)data, nbytes)) {
            return ALC_ERR_NOMEM;
        }
        return ALC_OK;
    }
    size_t nblocks = (nbytes + VTU_BLOCK - 1) / VTU_BLOCK;
    uint64_t* header = (uint64_t*)malloc(sizeof(uint64_t) * (3 + nblocks));
    if (!header) return ALC_ERR_NOMEM;
    header[0] = (uint64_t)nblocks;
    header[1] = VTU_BLOCK;
    header[2] = (uint64_t)(nbytes % VTU_BLOCK);
    const unsigned char* src = (const unsigned char*)data;
    alctStatus st = ALC_OK;
    for (size_t k = 0; k < nblocks && st == ALC_OK; k++) {
        size_t len = nbytes - k * VTU_BLOCK < VTU_BLOCK ? nbytes - k * VTU_BLOCK : VTU_BLOCK;
        uLongf clen = compressBound((uLong)len);
        if (!blobReserve(work, clen)) {
            st = ALC_ERR_NOMEM;
            break;
        }
        int zs = compress2(work->data + work->n, &clen, src + k * VTU_BLOCK, (uLong)len, 1);
        if (zs != Z_OK) st = zs == Z_MEM_ERROR ? ALC_ERR_NOMEM : ALC_ERR_IO;
        header[3 + k] = (uint64_t)clen;
        work->n += clen;
    }
    if (st == ALC_OK &&
        (!putBase64(text, (const unsigned char*)header, sizeof(uint64_t) * (3 + nblocks)) ||
         !putBase64(text, work->data, work->n))) {
        st = ALC_ERR_NOMEM;
    }
    free(header);
    return st;
}

// one DataArray element with its base64 payload (text[from, to))
static void printArray(alciFile* f, const char* indent, const char* type, const char* name,
                       int ncomp, const Blob* text, size_t from, size_t to) {
    alci_file_printf(f, "%s<DataArray type=\"%s\" Name=\"%s\"", indent, type, name);
    if (ncomp > 1) alci_file_printf(f, " NumberOfComponents=\"%d\"", ncomp);
    alci_file_printf(f, " format=\"binary\">");
    alci_file_write(f, text->data + from, to - from);
    alci_file_printf(f, "</DataArray>\n");
}

// the arrays of a frame, in the order of the XML
enum { A_VEL, A_VERTEX, A_BODY, A_OBST, A_POINTS, A_CONN, A_OFFS, A_TYPES, A_COUNT };

// encode every array of the grid into text; array a is text[off[a], off[a + 1])
static alctStatus buildArrays(const alcModel* m, const Surface* s, const double* x,
                              const double* v, int compress, Blob* text,
                              size_t off[A_COUNT + 1]) {
    size_t ns = (size_t)s->nsurf, nt = (size_t)m->ntri;
    size_t scratchBytes = ns * 3 * sizeof(double);
    if (nt * 3 * sizeof(int32_t) > scratchBytes) scratchBytes = nt * 3 * sizeof(int32_t);
    void* scratch = malloc(scratchBytes + 8);
    if (!scratch) return ALC_ERR_NOMEM;
    double* d = (double*)scratch;
    int32_t* i32 = (int32_t*)scratch;
    uint8_t* u8 = (uint8_t*)scratch;
    alctStatus st = ALC_OK;
    Blob work = {NULL, 0, 0};
#define ENCODE(a, ptr, nbytes) \
    (off[a] = text->n, st = encodeArray(text, &work, ptr, nbytes, compress), off[(a) + 1] = text->n)

    // point data: velocity, model vertex index
    off[A_VEL] = off[A_VEL + 1] = text->n;
    if (v) {
        for (size_t i = 0; i < ns; i++) memcpy(d + 3 * i, v + 3 * (size_t)s->verts[i], 24);
        ENCODE(A_VEL, d, ns * 24);
    }
    for (size_t i = 0; i < ns && !st; i++) i32[i] = s->verts[i];
    if (!st) ENCODE(A_VERTEX, i32, ns * 4);

    // cell data: owning body, obstacle flag
    for (size_t t = 0; t < nt && !st; t++) i32[t] = m->tri_body[t];
    if (!st) ENCODE(A_BODY, i32, nt * 4);
    for (size_t t = 0; t < nt && !st; t++) {
        u8[t] = m->body_type[m->tri_body[t]] == ALC_BODY_OBSTACLE ? 1 : 0;
    }
    if (!st) ENCODE(A_OBST, u8, nt);

    // points
    for (size_t i = 0; i < ns && !st; i++) memcpy(d + 3 * i, x + 3 * (size_t)s->verts[i], 24);
    if (!st) ENCODE(A_POINTS, d, ns * 24);

    // cells: connectivity (renumbered), offsets, types
    for (size_t k = 0; k < 3 * nt && !st; k++) i32[k] = s->map[m->tri_vert[k]];
    if (!st) ENCODE(A_CONN, i32, nt * 12);
    for (size_t t = 0; t < nt && !st; t++) i32[t] = (int32_t)(3 * (t + 1));
    if (!st) ENCODE(A_OFFS, i32, nt * 4);
    for (size_t t = 0; t < nt && !st; t++) u8[t] = VTK_TRIANGLE_TYPE;
    if (!st) ENCODE(A_TYPES, u8, nt);

#undef ENCODE
    free(work.data);
    free(scratch);
    return st;
}

alctStatus alci_frame_writeVtu(const char* path, const alcModel* m, const double* x,
                               const double* v, double time, int compress, char* err, int errsz) {
    Surface s;
    alctStatus st = buildSurface(path, m, x, &s, err, errsz);
    if (st) return st;

    // cell data needs a valid body for every triangle
    if (m->ntri > 0 && (!m->tri_body || !m->body_type)) {
        alci_file_setError(err, errsz, "%s: model has no tri_body or body_type", path);
        freeSurface(&s);
        return ALC_ERR_INVALID_ARG;
    }
    for (int t = 0; t < m->ntri; t++) {
        if (m->tri_body[t] < 0 || m->tri_body[t] >= m->nbody) {
            alci_file_setError(err, errsz, "%s: triangle %d has body %d outside [0, %d)", path, t,
                               m->tri_body[t], m->nbody);
            freeSurface(&s);
            return ALC_ERR_INVALID_ARG;
        }
    }

    // the arrays' base64 text
    Blob blob = {NULL, 0, 0};
    size_t off[A_COUNT + 1];
    st = buildArrays(m, &s, x, v, compress, &blob, off);
    if (st) {
        alci_file_setError(err, errsz, "%s: %s", path,
                           st == ALC_ERR_NOMEM ? "out of memory" : "zlib compression failed");
        free(blob.data);
        freeSurface(&s);
        return st;
    }

    // XML header
    alciFile f;
    st = alci_file_open(&f, path, err, errsz);
    if (st) {
        free(blob.data);
        freeSurface(&s);
        return st;
    }
    const char* in4 = "        ";
    char tbuf[32];
    alci_file_printf(&f, "<?xml version=\"1.0\"?>\n");
    alci_file_printf(&f,
                     "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" "
                     "header_type=\"UInt64\"%s>\n",
                     hostIsLittleEndian() ? "LittleEndian" : "BigEndian",
                     compress ? " compressor=\"vtkZLibDataCompressor\"" : "");
    alci_file_printf(&f, "  <UnstructuredGrid>\n    <FieldData>\n");
    alci_file_printf(&f,
                     "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
                     "format=\"ascii\">%s</DataArray>\n",
                     alci_formatDouble(tbuf, sizeof tbuf, time));
    alci_file_printf(&f, "    </FieldData>\n");
    alci_file_printf(&f, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", s.nsurf,
                     m->ntri);
    alci_file_printf(&f, "      <PointData%s>\n", v ? " Vectors=\"velocity\"" : "");
    if (v) printArray(&f, in4, "Float64", "velocity", 3, &blob, off[A_VEL], off[A_VEL + 1]);
    printArray(&f, in4, "Int32", "vertex", 1, &blob, off[A_VERTEX], off[A_VERTEX + 1]);
    alci_file_printf(&f, "      </PointData>\n      <CellData Scalars=\"body\">\n");
    printArray(&f, in4, "Int32", "body", 1, &blob, off[A_BODY], off[A_BODY + 1]);
    printArray(&f, in4, "UInt8", "obstacle", 1, &blob, off[A_OBST], off[A_OBST + 1]);
    alci_file_printf(&f, "      </CellData>\n      <Points>\n");
    printArray(&f, in4, "Float64", "Points", 3, &blob, off[A_POINTS], off[A_POINTS + 1]);
    alci_file_printf(&f, "      </Points>\n      <Cells>\n");
    printArray(&f, in4, "Int32", "connectivity", 1, &blob, off[A_CONN], off[A_CONN + 1]);
    printArray(&f, in4, "Int32", "offsets", 1, &blob, off[A_OFFS], off[A_OFFS + 1]);
    printArray(&f, in4, "UInt8", "types", 1, &blob, off[A_TYPES], off[A_TYPES + 1]);
    alci_file_printf(&f, "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n");

    alci_file_printf(&f, "</VTKFile>\n");
    free(blob.data);
    freeSurface(&s);
    return alci_file_commit(&f, err, errsz);
}

// write text with the five XML special characters escaped
static void printEscaped(alciFile* f, const char* s) {
    for (; *s; s++) {
        switch (*s) {
            case '&':
                alci_file_printf(f, "&amp;");
                break;
            case '<':
                alci_file_printf(f, "&lt;");
                break;
            case '>':
                alci_file_printf(f, "&gt;");
                break;
            case '"':
                alci_file_printf(f, "&quot;");
                break;
            case '\'':
                alci_file_printf(f, "&apos;");
                break;
            default:
                alci_file_write(f, s, 1);
        }
    }
}

// the arguments of both series writers: a path, n >= 0, and a name and a time per frame
static alctStatus checkSeries(const char* fn, const char* path, int n, const char* const* files,
                              const double* times, char* err, int errsz) {
    if (!path || !path[0] || n < 0 || (n > 0 && (!files || !times))) {
        alci_file_setError(err, errsz, "%s: NULL path or arrays", fn);
        return ALC_ERR_INVALID_ARG;
    }
    for (int i = 0; i < n; i++) {
        if (!files[i]) {
            alci_file_setError(err, errsz, "%s: frame %d has no file name", path, i);
            return ALC_ERR_INVALID_ARG;
        }
    }
    return ALC_OK;
}

// a frame name relative to the index's directory (the index's own path through its last
// '/'), when it lies under it; else the name as given
static const char* relativeName(const char* indexPath, const char* name) {
    const char* slash = strrchr(indexPath, '/');
    size_t prefix = slash ? (size_t)(slash - indexPath) + 1 : 0;
    if (prefix && strncmp(name, indexPath, prefix) == 0 && name[prefix]) return name + prefix;
    return name;
}

alctStatus alci_series_write(const char* pvdPath, int n, const char* const* files,
                             const double* times, char* err, int errsz) {
    alctStatus cs = checkSeries("alci_series_write", pvdPath, n, files, times, err, errsz);
    if (cs) return cs;
    alciFile f;
    alctStatus st = alci_file_open(&f, pvdPath, err, errsz);
    if (st) return st;
    alci_file_printf(&f, "<?xml version=\"1.0\"?>\n");
    alci_file_printf(&f,
                     "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"%s\" "
                     "header_type=\"UInt64\">\n  <Collection>\n",
                     hostIsLittleEndian() ? "LittleEndian" : "BigEndian");
    for (int i = 0; i < n; i++) {
        const char* name = relativeName(pvdPath, files[i]);
        char t[32];
        alci_file_printf(&f, "    <DataSet timestep=\"%s\" group=\"\" part=\"0\" file=\"",
                         alci_formatDouble(t, sizeof t, times[i]));
        printEscaped(&f, name);
        alci_file_printf(&f, "\"/>\n");
    }
    alci_file_printf(&f, "  </Collection>\n</VTKFile>\n");
    return alci_file_commit(&f, err, errsz);
}

alctStatus alci_frame_writePly(const char* path, const alcModel* m, const double* x,
                               const double* v, char* err, int errsz) {
    Surface s;
    alctStatus st = buildSurface(path, m, x, &s, err, errsz);
    if (st) return st;
    if (s.nsurf > 0 && !m->vert_body) {
        alci_file_setError(err, errsz, "%s: model has no vert_body", path);
        freeSurface(&s);
        return ALC_ERR_INVALID_ARG;
    }

    // binary body, little-endian: per vertex x y z [vx vy vz] (float) and body (int); per
    // face a uchar count 3 and three int indices
    size_t ns = (size_t)s.nsurf, nt = (size_t)m->ntri;
    size_t vbytes = (v ? 24 : 12) + 4;
    size_t nbytes = ns * vbytes + nt * 13;
    unsigned char* body = (unsigned char*)malloc(nbytes + 1);
    if (!body) {
        alci_file_setError(err, errsz, "%s: out of memory", path);
        freeSurface(&s);
        return ALC_ERR_NOMEM;
    }
    unsigned char* p = body;
    for (size_t i = 0; i < ns; i++) {
        size_t iv = (size_t)s.verts[i];
        for (int c = 0; c < (v ? 6 : 3); c++) {
            float fv = (float)(c < 3 ? x[3 * iv + (size_t)c] : v[3 * iv + (size_t)c - 3]);
            uint32_t u;
            memcpy(&u, &fv, 4);
            putU32LE(p, u);
            p += 4;
        }
        putU32LE(p, (uint32_t)m->vert_body[iv]);
        p += 4;
    }
    for (size_t t = 0; t < nt; t++) {
        *p++ = 3;
        for (int c = 0; c < 3; c++) {
            putU32LE(p, (uint32_t)s.map[m->tri_vert[3 * t + (size_t)c]]);
            p += 4;
        }
    }

    // header, then the body
    alciFile f;
    st = alci_file_open(&f, path, err, errsz);
    if (!st) {
        alci_file_printf(&f, "ply\nformat binary_little_endian 1.0\ncomment alcove surface\n");
        alci_file_printf(&f, "element vertex %d\nproperty float x\nproperty float y\n", s.nsurf);
        alci_file_printf(&f, "property float z\n");
        if (v) alci_file_printf(&f, "property float vx\nproperty float vy\nproperty float vz\n");
        alci_file_printf(&f, "property int body\nelement face %d\n", m->ntri);
        alci_file_printf(&f, "property list uchar int vertex_indices\nend_header\n");
        alci_file_write(&f, body, nbytes);
        st = alci_file_commit(&f, err, errsz);
    }
    free(body);
    freeSurface(&s);
    return st;
}

alctStatus alci_series_writeJson(const char* seriesPath, int n, const char* const* files,
                                 const double* times, char* err, int errsz) {
    alctStatus st = checkSeries("alci_series_writeJson", seriesPath, n, files, times, err, errsz);
    if (st) return st;
    alciFile f;
    st = alci_file_open(&f, seriesPath, err, errsz);
    if (st) return st;
    alci_file_printf(&f, "{\n  \"file-series-version\": \"1.0\",\n  \"files\": [");
    for (int i = 0; i < n; i++) {
        const char* name = relativeName(seriesPath, files[i]);
        alci_file_printf(&f, "%s\n    {\"name\": \"", i ? "," : "");
        for (const char* c = name; *c; c++) {
            if (*c == '"' || *c == '\\') alci_file_printf(&f, "\\");
            if ((unsigned char)*c < 0x20)
                alci_file_printf(&f, "\\u%04x", (unsigned char)*c);
            else
                alci_file_write(&f, c, 1);
        }
        char t[32];
        alci_file_printf(&f, "\", \"time\": %s}", alci_formatDouble(t, sizeof t, times[i]));
    }
    alci_file_printf(&f, "\n  ]\n}\n");
    return alci_file_commit(&f, err, errsz);
}
