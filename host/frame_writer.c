// Frame writers: surface meshes as VTK XML (.vtu + .pvd) and binary PLY.
#include "frame_writer.h"

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

static int blobPutU64(Blob* b, uint64_t u) {
    if (!blobReserve(b, 8)) return 0;
    memcpy(b->data + b->n, &u, 8);  // host byte order, declared in the VTKFile element
    b->n += 8;
    return 1;
}

// append one data array in VTK's binary layout and return its offset in *offset:
// raw: UInt64 byte count, bytes; compressed: UInt64 header {nblocks, block size, last
// block size (0 = full), compressed size of each block}, then the zlib blocks
static alctStatus blobAppendArray(Blob* b, const void* data, size_t nbytes, int compress,
                                  size_t* offset) {
    *offset = b->n;
    if (!compress) {
        if (!blobPutU64(b, (uint64_t)nbytes) || !blobReserve(b, nbytes)) return ALC_ERR_NOMEM;
        if (nbytes) memcpy(b->data + b->n, data, nbytes);
        b->n += nbytes;
        return ALC_OK;
    }

    // header with placeholders for the compressed sizes
    size_t nblocks = (nbytes + VTU_BLOCK - 1) / VTU_BLOCK;
    size_t header = b->n;
    if (!blobPutU64(b, (uint64_t)nblocks) || !blobPutU64(b, VTU_BLOCK) ||
        !blobPutU64(b, (uint64_t)(nbytes % VTU_BLOCK))) {
        return ALC_ERR_NOMEM;
    }
    for (size_t k = 0; k < nblocks; k++) {
        if (!blobPutU64(b, 0)) return ALC_ERR_NOMEM;
    }

    // compress each block straight into the buffer
    const unsigned char* src = (const unsigned char*)data;
    for (size_t k = 0; k < nblocks; k++) {
        size_t len = nbytes - k * VTU_BLOCK < VTU_BLOCK ? nbytes - k * VTU_BLOCK : VTU_BLOCK;
        uLongf clen = compressBound((uLong)len);
        if (!blobReserve(b, clen)) return ALC_ERR_NOMEM;
        int zs = compress2(b->data + b->n, &clen, src + k * VTU_BLOCK, (uLong)len, 1);
        if (zs != Z_OK) return zs == Z_MEM_ERROR ? ALC_ERR_NOMEM : ALC_ERR_IO;
        uint64_t c = (uint64_t)clen;
        memcpy(b->data + header + 8 * (3 + k), &c, 8);
        b->n += clen;
    }
    return ALC_OK;
}

// the XML element of one appended array
static void printArray(alciFile* f, const char* indent, const char* type, const char* name,
                       int ncomp, size_t offset) {
    alci_file_printf(f, "%s<DataArray type=\"%s\" Name=\"%s\"", indent, type, name);
    if (ncomp > 1) alci_file_printf(f, " NumberOfComponents=\"%d\"", ncomp);
    alci_file_printf(f, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)offset);
}

// offsets of the appended arrays, in the order of the XML
enum { A_VEL, A_VERTEX, A_BODY, A_OBST, A_POINTS, A_CONN, A_OFFS, A_TYPES, A_COUNT };

// build every array of the grid into the appended section
static alctStatus buildAppended(const alcModel* m, const Surface* s, const double* x,
                                const double* v, int compress, Blob* blob, size_t off[A_COUNT]) {
    size_t ns = (size_t)s->nsurf, nt = (size_t)m->ntri;
    size_t scratchBytes = ns * 3 * sizeof(double);
    if (nt * 3 * sizeof(int32_t) > scratchBytes) scratchBytes = nt * 3 * sizeof(int32_t);
    void* scratch = malloc(scratchBytes + 8);
    if (!scratch) return ALC_ERR_NOMEM;
    double* d = (double*)scratch;
    int32_t* i32 = (int32_t*)scratch;
    uint8_t* u8 = (uint8_t*)scratch;
    alctStatus st = ALC_OK;

    // point data: velocity, model vertex index
    off[A_VEL] = 0;
    if (v) {
        for (size_t i = 0; i < ns; i++) memcpy(d + 3 * i, v + 3 * (size_t)s->verts[i], 24);
        st = blobAppendArray(blob, d, ns * 24, compress, &off[A_VEL]);
    }
    for (size_t i = 0; i < ns && !st; i++) i32[i] = s->verts[i];
    if (!st) st = blobAppendArray(blob, i32, ns * 4, compress, &off[A_VERTEX]);

    // cell data: owning body, obstacle flag
    for (size_t t = 0; t < nt && !st; t++) i32[t] = m->tri_body[t];
    if (!st) st = blobAppendArray(blob, i32, nt * 4, compress, &off[A_BODY]);
    for (size_t t = 0; t < nt && !st; t++) {
        u8[t] = m->body_type[m->tri_body[t]] == ALC_BODY_OBSTACLE ? 1 : 0;
    }
    if (!st) st = blobAppendArray(blob, u8, nt, compress, &off[A_OBST]);

    // points
    for (size_t i = 0; i < ns && !st; i++) memcpy(d + 3 * i, x + 3 * (size_t)s->verts[i], 24);
    if (!st) st = blobAppendArray(blob, d, ns * 24, compress, &off[A_POINTS]);

    // cells: connectivity (renumbered), offsets, types
    for (size_t k = 0; k < 3 * nt && !st; k++) i32[k] = s->map[m->tri_vert[k]];
    if (!st) st = blobAppendArray(blob, i32, nt * 12, compress, &off[A_CONN]);
    for (size_t t = 0; t < nt && !st; t++) i32[t] = (int32_t)(3 * (t + 1));
    if (!st) st = blobAppendArray(blob, i32, nt * 4, compress, &off[A_OFFS]);
    for (size_t t = 0; t < nt && !st; t++) u8[t] = VTK_TRIANGLE_TYPE;
    if (!st) st = blobAppendArray(blob, u8, nt, compress, &off[A_TYPES]);

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

    // binary arrays first, so that the XML can name their offsets
    Blob blob = {NULL, 0, 0};
    size_t off[A_COUNT];
    st = buildAppended(m, &s, x, v, compress, &blob, off);
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
    alci_file_printf(&f, "<?xml version=\"1.0\"?>\n");
    alci_file_printf(&f,
                     "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"%s\" "
                     "header_type=\"UInt64\"%s>\n",
                     hostIsLittleEndian() ? "LittleEndian" : "BigEndian",
                     compress ? " compressor=\"vtkZLibDataCompressor\"" : "");
    alci_file_printf(&f, "  <UnstructuredGrid>\n    <FieldData>\n");
    alci_file_printf(&f,
                     "      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" "
                     "format=\"ascii\">%.17g</DataArray>\n",
                     time);
    alci_file_printf(&f, "    </FieldData>\n");
    alci_file_printf(&f, "    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n", s.nsurf,
                     m->ntri);
    alci_file_printf(&f, "      <PointData%s>\n", v ? " Vectors=\"velocity\"" : "");
    if (v) printArray(&f, in4, "Float64", "velocity", 3, off[A_VEL]);
    printArray(&f, in4, "Int32", "vertex", 1, off[A_VERTEX]);
    alci_file_printf(&f, "      </PointData>\n      <CellData Scalars=\"body\">\n");
    printArray(&f, in4, "Int32", "body", 1, off[A_BODY]);
    printArray(&f, in4, "UInt8", "obstacle", 1, off[A_OBST]);
    alci_file_printf(&f, "      </CellData>\n      <Points>\n");
    printArray(&f, in4, "Float64", "Points", 3, off[A_POINTS]);
    alci_file_printf(&f, "      </Points>\n      <Cells>\n");
    printArray(&f, in4, "Int32", "connectivity", 1, off[A_CONN]);
    printArray(&f, in4, "Int32", "offsets", 1, off[A_OFFS]);
    printArray(&f, in4, "UInt8", "types", 1, off[A_TYPES]);
    alci_file_printf(&f, "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n");

    // appended section: '_' marks offset 0
    alci_file_printf(&f, "  <AppendedData encoding=\"raw\">\n   _");
    alci_file_write(&f, blob.data, blob.n);
    alci_file_printf(&f, "\n  </AppendedData>\n</VTKFile>\n");
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

alctStatus alci_series_write(const char* pvdPath, int n, const char* const* files,
                             const double* times, char* err, int errsz) {
    if (!pvdPath || !pvdPath[0] || n < 0 || (n > 0 && (!files || !times))) {
        alci_file_setError(err, errsz, "alci_series_write: NULL path or arrays");
        return ALC_ERR_INVALID_ARG;
    }
    for (int i = 0; i < n; i++) {
        if (!files[i]) {
            alci_file_setError(err, errsz, "%s: frame %d has no file name", pvdPath, i);
            return ALC_ERR_INVALID_ARG;
        }
    }

    // the .pvd's directory prefix (through the last '/'), stripped from frame names
    const char* slash = strrchr(pvdPath, '/');
    size_t prefix = slash ? (size_t)(slash - pvdPath) + 1 : 0;

    alciFile f;
    alctStatus st = alci_file_open(&f, pvdPath, err, errsz);
    if (st) return st;
    alci_file_printf(&f, "<?xml version=\"1.0\"?>\n");
    alci_file_printf(&f,
                     "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"%s\" "
                     "header_type=\"UInt64\">\n  <Collection>\n",
                     hostIsLittleEndian() ? "LittleEndian" : "BigEndian");
    for (int i = 0; i < n; i++) {
        const char* name = files[i];
        if (prefix && strncmp(name, pvdPath, prefix) == 0 && name[prefix]) name += prefix;
        alci_file_printf(&f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"",
                         times[i]);
        printEscaped(&f, name);
        alci_file_printf(&f, "\"/>\n");
    }
    alci_file_printf(&f, "  </Collection>\n</VTKFile>\n");
    return alci_file_commit(&f, err, errsz);
}

alctStatus alci_frame_writePly(const char* path, const alcModel* m, const double* x, char* err,
                               int errsz) {
    Surface s;
    alctStatus st = buildSurface(path, m, x, &s, err, errsz);
    if (st) return st;

    // binary body: 12 bytes per vertex, 13 per face, little-endian
    size_t ns = (size_t)s.nsurf, nt = (size_t)m->ntri;
    size_t nbytes = ns * 12 + nt * 13;
    unsigned char* body = (unsigned char*)malloc(nbytes + 1);
    if (!body) {
        alci_file_setError(err, errsz, "%s: out of memory", path);
        freeSurface(&s);
        return ALC_ERR_NOMEM;
    }
    unsigned char* p = body;
    for (size_t i = 0; i < ns; i++) {
        for (int c = 0; c < 3; c++) {
            float fv = (float)x[3 * (size_t)s.verts[i] + (size_t)c];
            uint32_t u;
            memcpy(&u, &fv, 4);
            putU32LE(p, u);
            p += 4;
        }
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
        alci_file_printf(&f, "property float z\nelement face %d\n", m->ntri);
        alci_file_printf(&f, "property list uchar int vertex_indices\nend_header\n");
        alci_file_write(&f, body, nbytes);
        st = alci_file_commit(&f, err, errsz);
    }
    free(body);
    freeSurface(&s);
    return st;
}
