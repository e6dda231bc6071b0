// Exact binary topology and state files, validated on read (layouts in state_io.h).
#include "state_io.h"

#include "check.h"
#include "io_atomic.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define TOPO_MAGIC  "ALCTOPO2"  // version 2: the tetrahedra's protection recorded
#define TOPO_MAGIC1 "ALCTOPO1"  // version 1: read, every tetrahedron taken as protected
#define STATE_MAGIC "ALCSTAT1"
// bytes before the payload of a state file, and of the fixed topology header
#define STATE_HEADER 40
#define TOPO_HEADER  28
// most bytes one byte of a zlib stream can inflate to (deflate's limit is about 1032)
#define ZLIB_MAX_RATIO 1040

// ---- little-endian encoding --------------------------------------------------------------

static void putU32(unsigned char* p, uint32_t u) {
    for (int b = 0; b < 4; b++) p[b] = (unsigned char)(u >> (8 * b));
}

static void putU64(unsigned char* p, uint64_t u) {
    for (int b = 0; b < 8; b++) p[b] = (unsigned char)(u >> (8 * b));
}

static uint32_t getU32(const unsigned char* p) {
    uint32_t u = 0;
    for (int b = 0; b < 4; b++) u |= (uint32_t)p[b] << (8 * b);
    return u;
}

static uint64_t getU64(const unsigned char* p) {
    uint64_t u = 0;
    for (int b = 0; b < 8; b++) u |= (uint64_t)p[b] << (8 * b);
    return u;
}

static void putF64(unsigned char* p, double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    putU64(p, u);
}

static double getF64(const unsigned char* p) {
    uint64_t u = getU64(p);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static int32_t getI32(const unsigned char* p) {
    return (int32_t)getU32(p);
}

uint32_t alci_state_crc32(const unsigned char* p, size_t n) {
    uLong crc = crc32(0L, Z_NULL, 0);
    while (n > 0) {
        uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, p, chunk);
        p += chunk;
        n -= chunk;
    }
    return (uint32_t)crc;
}

alctStatus alci_state_readFile(const char* path, unsigned char** data, size_t* n, char* err,
                               int errsz) {
    *data = NULL;
    *n = 0;
    FILE* fp = fopen(path, "rb");
    if (!fp) {
        alci_file_setError(err, errsz, "cannot open %s: %s", path, strerror(errno));
        return ALC_ERR_IO;
    }
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        alci_file_setError(err, errsz, "%s: not a regular file", path);
        fclose(fp);
        return ALC_ERR_IO;
    }
    size_t size = (size_t)st.st_size;
    unsigned char* buf = (unsigned char*)malloc(size + 1);
    if (!buf) {
        alci_file_setError(err, errsz, "%s: out of memory for %zu bytes", path, size);
        fclose(fp);
        return ALC_ERR_NOMEM;
    }
    if (fread(buf, 1, size, fp) != size) {
        alci_file_setError(err, errsz, "cannot read %s: %s", path,
                           ferror(fp) ? strerror(errno) : "file shrank while reading");
        free(buf);
        fclose(fp);
        return ALC_ERR_IO;
    }
    fclose(fp);
    buf[size] = 0;  // a guard for readers of text: data[n] is 0
    *data = buf;
    *n = size;
    return ALC_OK;
}

// ---- topology ----------------------------------------------------------------------------

// the int32 arrays of a topology in file order, with their lengths
typedef struct {
    int** ptr;
    size_t len;
} TopoArray;

enum {
    T_TETV,
    T_TRIV,
    T_EDGEV,
    T_TRIB,
    T_EDGEB,
    T_VERTB,
    T_TETB,
    T_BTYPE,
    T_BADR,
    T_BNUM,
    T_TETP,  // version 2 on
    T_N
};

static void topoArrays(alciTopology* t, TopoArray a[T_N]) {
    size_t nv = (size_t)t->nvert, nt = (size_t)t->ntet, nf = (size_t)t->ntri;
    size_t ne = (size_t)t->nedge, nb = (size_t)t->nbody;
    a[T_TETV] = (TopoArray){&t->tet_vert, 4 * nt};
    a[T_TRIV] = (TopoArray){&t->tri_vert, 3 * nf};
    a[T_EDGEV] = (TopoArray){&t->edge_vert, 2 * ne};
    a[T_TRIB] = (TopoArray){&t->tri_body, nf};
    a[T_EDGEB] = (TopoArray){&t->edge_body, ne};
    a[T_VERTB] = (TopoArray){&t->vert_body, nv};
    a[T_TETB] = (TopoArray){&t->tet_body, nt};
    a[T_BTYPE] = (TopoArray){&t->body_type, nb};
    a[T_BADR] = (TopoArray){&t->body_vertadr, nb};
    a[T_BNUM] = (TopoArray){&t->body_vertnum, nb};
    a[T_TETP] = (TopoArray){&t->tet_protected, nt};
}

// 1 if every value of an array lies in [0, bound); otherwise a message and 0
static int checkRange(const char* path, const char* what, const int* a, size_t n, int bound,
                      char* err, int errsz) {
    for (size_t i = 0; i < n; i++) {
        if (a[i] < 0 || a[i] >= bound) {
            alci_file_setError(err, errsz, "%s: %s[%zu] = %d outside [0, %d)", path, what, i, a[i],
                               bound);
            return 0;
        }
    }
    return 1;
}

// validate sizes, array presence and index ranges of a topology (reader and writer)
static int checkTopology(const char* path, alciTopology* t, char* err, int errsz) {
    const int sizes[5] = {t->nvert, t->ntet, t->ntri, t->nedge, t->nbody};
    const char* names[5] = {"nvert", "ntet", "ntri", "nedge", "nbody"};
    for (int k = 0; k < 5; k++) {
        if (sizes[k] < 0 || sizes[k] > ALCI_STATE_MAXCOUNT) {
            alci_file_setError(err, errsz, "%s: absurd size %s = %d", path, names[k], sizes[k]);
            return 0;
        }
    }
    TopoArray a[T_N];
    topoArrays(t, a);
    for (int k = 0; k < T_N; k++) {
        if (a[k].len > 0 && !*a[k].ptr) {
            alci_file_setError(err, errsz, "%s: missing array %d of %zu values", path, k, a[k].len);
            return 0;
        }
    }

    // vertex indices, body indices, body types
    int nv = t->nvert, nb = t->nbody;
    if (!checkRange(path, "tet_vert", t->tet_vert, a[T_TETV].len, nv, err, errsz) ||
        !checkRange(path, "tri_vert", t->tri_vert, a[T_TRIV].len, nv, err, errsz) ||
        !checkRange(path, "edge_vert", t->edge_vert, a[T_EDGEV].len, nv, err, errsz) ||
        !checkRange(path, "tri_body", t->tri_body, a[T_TRIB].len, nb, err, errsz) ||
        !checkRange(path, "edge_body", t->edge_body, a[T_EDGEB].len, nb, err, errsz) ||
        !checkRange(path, "vert_body", t->vert_body, a[T_VERTB].len, nb, err, errsz) ||
        !checkRange(path, "tet_body", t->tet_body, a[T_TETB].len, nb, err, errsz) ||
        !checkRange(path, "body_type", t->body_type, a[T_BTYPE].len, ALC_BODY_RIGID + 1, err,
                    errsz) ||
        !checkRange(path, "tet_protected", t->tet_protected, a[T_TETP].len, 2, err, errsz)) {
        return 0;
    }

    // each body owns the contiguous vertex range [adr, adr + num)
    for (int b = 0; b < nb; b++) {
        long adr = t->body_vertadr[b], num = t->body_vertnum[b];
        if (adr < 0 || num < 0 || adr + num > nv) {
            alci_file_setError(err, errsz, "%s: body %d vertex range [%ld, %ld) outside [0, %d)",
                               path, b, adr, adr + num, nv);
            return 0;
        }
        for (long i = adr; i < adr + num; i++) {
            if (t->vert_body[i] != b) {
                alci_file_setError(err, errsz,
                                   "%s: vertex %ld in the range of body %d has "
                                   "vert_body %d",
                                   path, i, b, t->vert_body[i]);
                return 0;
            }
        }
    }
    return 1;
}

// name of body b in a model, "" when the model has none
static const char* modelBodyName(const alcModel* m, int b, size_t* len) {
    *len = 0;
    if (!m->names || !m->body_nameadr) return "";
    int adr = m->body_nameadr[b];
    if (adr < 0 || adr >= m->nname) return NULL;
    *len = strnlen(m->names + adr, (size_t)(m->nname - adr));
    return m->names + adr;
}

static alctStatus writeTopology(const char* path, const alcModel* m, alciTopology* tp, char* err,
                                int errsz);

alctStatus alci_state_writeTopology(const char* path, const alcModel* m, char* err, int errsz) {
    if (!path || !path[0] || !m) {
        alci_file_setError(err, errsz, "alci_state_writeTopology: NULL path or model");
        return ALC_ERR_INVALID_ARG;
    }

    // a view of the model's arrays, checked as the reader will check them
    alciTopology t = {.nvert = m->nvert,
                      .ntet = m->ntet,
                      .ntri = m->ntri,
                      .nedge = m->nedge,
                      .nbody = m->nbody,
                      .tet_vert = m->tet_vert,
                      .tri_vert = m->tri_vert,
                      .edge_vert = m->edge_vert,
                      .tri_body = m->tri_body,
                      .edge_body = m->edge_body,
                      .vert_body = m->vert_body,
                      .tet_body = m->tet_body,
                      .body_type = m->body_type,
                      .body_vertadr = m->body_vertadr,
                      .body_vertnum = m->body_vertnum};
    // which tetrahedra the solver keeps from inverting (host/step.c: non-invertible materials,
    // or every one under `inversion: all`)
    t.tet_protected = (int*)malloc(sizeof(int) * ((size_t)m->ntet + 1));
    if (!t.tet_protected) {
        alci_file_setError(err, errsz, "%s: out of memory", path);
        return ALC_ERR_NOMEM;
    }
    alci_check_tetProtected(m, t.tet_protected);
    alctStatus st = writeTopology(path, m, &t, err, errsz);
    free(t.tet_protected);
    return st;
}

// serialize t (a view of m's arrays) and write it atomically
static alctStatus writeTopology(const char* path, const alcModel* m, alciTopology* tp, char* err,
                                int errsz) {
    alciTopology t = *tp;
    if (!checkTopology(path, &t, err, errsz)) return ALC_ERR_INVALID_ARG;

    // size of the file
    TopoArray a[T_N];
    topoArrays(&t, a);
    size_t n = TOPO_HEADER + 4;
    for (int k = 0; k < T_N; k++) n += 4 * a[k].len;
    for (int b = 0; b < t.nbody; b++) {
        size_t len;
        if (!modelBodyName(m, b, &len) || len > INT32_MAX) {
            alci_file_setError(err, errsz, "%s: body %d has an invalid name offset", path, b);
            return ALC_ERR_INVALID_ARG;
        }
        n += 4 + len;
    }

    // serialize: magic, sizes, arrays, names, CRC
    unsigned char* buf = (unsigned char*)malloc(n);
    if (!buf) {
        alci_file_setError(err, errsz, "%s: out of memory for %zu bytes", path, n);
        return ALC_ERR_NOMEM;
    }
    unsigned char* p = buf;
    memcpy(p, TOPO_MAGIC, 8);
    p += 8;
    const int sizes[5] = {t.nvert, t.ntet, t.ntri, t.nedge, t.nbody};
    for (int k = 0; k < 5; k++, p += 4) putU32(p, (uint32_t)sizes[k]);
    for (int k = 0; k < T_N; k++) {
        for (size_t i = 0; i < a[k].len; i++, p += 4) putU32(p, (uint32_t)(*a[k].ptr)[i]);
    }
    for (int b = 0; b < t.nbody; b++) {
        size_t len;
        const char* name = modelBodyName(m, b, &len);
        putU32(p, (uint32_t)len);
        memcpy(p + 4, name, len);
        p += 4 + len;
    }
    putU32(p, alci_state_crc32(buf, n - 4));

    alciFile f;
    alctStatus st = alci_file_open(&f, path, err, errsz);
    if (!st) {
        alci_file_write(&f, buf, n);
        st = alci_file_commit(&f, err, errsz);
    }
    free(buf);
    return st;
}

void alci_state_freeTopology(alciTopology* t) {
    if (!t) return;
    TopoArray a[T_N];
    topoArrays(t, a);
    for (int k = 0; k < T_N; k++) free(*a[k].ptr);
    free(t->body_nameadr);
    free(t->names);
    memset(t, 0, sizeof *t);
}

// parse a topology image whose length and CRC were checked; 0 and a message on error
static alctStatus parseTopology(const char* path, const unsigned char* d, size_t n, int narr,
                                alciTopology* t, char* err, int errsz) {
    TopoArray a[T_N];
    topoArrays(t, a);
    size_t pos = TOPO_HEADER;

    // int32 arrays (the first narr in the file; a version-1 file has no tet_protected: all 1)
    for (int k = 0; k < T_N; k++) {
        *a[k].ptr = (int*)malloc(a[k].len * sizeof(int) + 1);
        if (!*a[k].ptr) {
            alci_file_setError(err, errsz, "%s: out of memory", path);
            return ALC_ERR_NOMEM;
        }
        if (k >= narr) {
            for (size_t i = 0; i < a[k].len; i++) (*a[k].ptr)[i] = 1;
            continue;
        }
        for (size_t i = 0; i < a[k].len; i++, pos += 4) (*a[k].ptr)[i] = getI32(d + pos);
    }

    // names: validate the lengths, then copy each with a terminator
    size_t end = n - 4, names0 = pos, total = 0;
    for (int b = 0; b < t->nbody; b++) {
        if (end - pos < 4) {
            alci_file_setError(err, errsz, "%s: truncated in the name of body %d", path, b);
            return ALC_ERR_IO;
        }
        uint32_t len = getU32(d + pos);
        if (len > end - pos - 4) {
            alci_file_setError(err, errsz, "%s: body %d name length %u exceeds the file", path, b,
                               len);
            return ALC_ERR_IO;
        }
        pos += 4 + len;
        total += len + 1;
    }
    if (pos != end) {
        alci_file_setError(err, errsz, "%s: %zu unexpected bytes before the CRC", path, end - pos);
        return ALC_ERR_IO;
    }
    t->names = (char*)malloc(total + 1);
    t->body_nameadr = (int*)malloc((size_t)t->nbody * sizeof(int) + 1);
    if (!t->names || !t->body_nameadr) {
        alci_file_setError(err, errsz, "%s: out of memory", path);
        return ALC_ERR_NOMEM;
    }
    size_t out = 0;
    pos = names0;
    for (int b = 0; b < t->nbody; b++) {
        uint32_t len = getU32(d + pos);
        t->body_nameadr[b] = (int)out;
        memcpy(t->names + out, d + pos + 4, len);
        t->names[out + len] = 0;
        out += len + 1;
        pos += 4 + len;
    }
    t->nname = (int)total;
    return ALC_OK;
}

alctStatus alci_state_readTopology(const char* path, alciTopology* out, char* err, int errsz) {
    if (!path || !out) {
        alci_file_setError(err, errsz, "alci_state_readTopology: NULL path or output");
        return ALC_ERR_INVALID_ARG;
    }
    memset(out, 0, sizeof *out);
    unsigned char* d;
    size_t n;
    alctStatus st = alci_state_readFile(path, &d, &n, err, errsz);
    if (st) return st;

    // magic and sizes, before allocating anything they imply
    alciTopology t;
    memset(&t, 0, sizeof t);
    st = ALC_ERR_IO;
    if (n < TOPO_HEADER + 4) {
        alci_file_setError(err, errsz, "%s: truncated topology file (%zu bytes)", path, n);
        goto fail;
    }
    int narr = T_N;
    if (memcmp(d, TOPO_MAGIC1, 8) == 0) {
        narr = T_N - 1;  // no tet_protected
    } else if (memcmp(d, TOPO_MAGIC, 8) != 0) {
        alci_file_setError(err, errsz, "%s: not an alcove topology file (bad magic)", path);
        goto fail;
    }
    t.nvert = getI32(d + 8);
    t.ntet = getI32(d + 12);
    t.ntri = getI32(d + 16);
    t.nedge = getI32(d + 20);
    t.nbody = getI32(d + 24);
    const int sizes[5] = {t.nvert, t.ntet, t.ntri, t.nedge, t.nbody};
    const char* names[5] = {"nvert", "ntet", "ntri", "nedge", "nbody"};
    for (int k = 0; k < 5; k++) {
        if (sizes[k] < 0 || sizes[k] > ALCI_STATE_MAXCOUNT) {
            alci_file_setError(err, errsz, "%s: absurd size %s = %d", path, names[k], sizes[k]);
            goto fail;
        }
    }
    uint64_t need = TOPO_HEADER + 4 + 4 * (uint64_t)t.nbody;
    TopoArray a[T_N];
    topoArrays(&t, a);
    for (int k = 0; k < narr; k++) need += 4 * (uint64_t)a[k].len;
    if (need > n) {
        alci_file_setError(err, errsz, "%s: truncated: %zu bytes, but the sizes need at least %llu",
                           path, n, (unsigned long long)need);
        goto fail;
    }

    // checksum, then contents
    if (getU32(d + n - 4) != alci_state_crc32(d, n - 4)) {
        alci_file_setError(err, errsz, "%s: CRC mismatch: the file is corrupt", path);
        goto fail;
    }
    st = parseTopology(path, d, n, narr, &t, err, errsz);
    if (st) goto fail;
    if (!checkTopology(path, &t, err, errsz)) {
        st = ALC_ERR_IO;
        goto fail;
    }
    free(d);
    *out = t;
    return ALC_OK;

fail:
    alci_state_freeTopology(&t);
    free(d);
    return st;
}

// ---- states ------------------------------------------------------------------------------

alctStatus alci_state_write(const char* path, long step, double time, int nvert, const double* x,
                            const double* v, char* err, int errsz) {
    if (!path || !path[0] || step < 0 || nvert < 0 || nvert > ALCI_STATE_MAXCOUNT ||
        (nvert > 0 && !x)) {
        alci_file_setError(err, errsz, "alci_state_write: invalid arguments for %s",
                           path ? path : "(null)");
        return ALC_ERR_INVALID_ARG;
    }

    // raw payload: x then v, float64 little-endian
    size_t nd = 3 * (size_t)nvert, nraw = nd * 8 * (v ? 2 : 1);
    unsigned char* raw = (unsigned char*)malloc(nraw + 1);
    uLongf clen = compressBound((uLong)nraw);
    unsigned char* buf = (unsigned char*)malloc(STATE_HEADER + clen + 4);
    if (!raw || !buf) {
        free(raw);
        free(buf);
        alci_file_setError(err, errsz, "%s: out of memory", path);
        return ALC_ERR_NOMEM;
    }
    for (size_t i = 0; i < nd; i++) putF64(raw + 8 * i, x[i]);
    for (size_t i = 0; v && i < nd; i++) putF64(raw + 8 * (nd + i), v[i]);

    // compress behind the header
    int zs = compress2(buf + STATE_HEADER, &clen, raw, (uLong)nraw, 1);
    free(raw);
    if (zs != Z_OK) {
        free(buf);
        alci_file_setError(err, errsz, "%s: zlib compression failed (%d)", path, zs);
        return zs == Z_MEM_ERROR ? ALC_ERR_NOMEM : ALC_ERR_IO;
    }

    // header and checksum
    memcpy(buf, STATE_MAGIC, 8);
    putU64(buf + 8, (uint64_t)step);
    putF64(buf + 16, time);
    putU32(buf + 24, (uint32_t)nvert);
    putU32(buf + 28, v ? 1u : 0u);
    putU64(buf + 32, (uint64_t)clen);
    size_t n = STATE_HEADER + (size_t)clen;
    putU32(buf + n, alci_state_crc32(buf, n));

    alciFile f;
    alctStatus st = alci_file_open(&f, path, err, errsz);
    if (!st) {
        alci_file_write(&f, buf, n + 4);
        st = alci_file_commit(&f, err, errsz);
    }
    free(buf);
    return st;
}

// check a state image and inflate its payload into a malloc'ed buffer
static alctStatus inflateState(const char* path, const unsigned char* d, size_t n,
                               unsigned char** raw, size_t* nraw, char* err, int errsz) {
    *raw = NULL;
    if (n < STATE_HEADER + 4) {
        alci_file_setError(err, errsz, "%s: truncated state file (%zu bytes)", path, n);
        return ALC_ERR_IO;
    }
    if (memcmp(d, STATE_MAGIC, 8) != 0) {
        alci_file_setError(err, errsz, "%s: not an alcove state file (bad magic)", path);
        return ALC_ERR_IO;
    }

    // sizes, before allocating what they imply
    int64_t step = (int64_t)getU64(d + 8);
    int32_t nvert = getI32(d + 24);
    uint32_t flags = getU32(d + 28);
    uint64_t clen = getU64(d + 32);
    if (step < 0 || nvert < 0 || nvert > ALCI_STATE_MAXCOUNT || (flags & ~1u)) {
        alci_file_setError(err, errsz, "%s: absurd header (step %lld, nvert %d, flags %u)", path,
                           (long long)step, (int)nvert, flags);
        return ALC_ERR_IO;
    }
    if (clen != n - STATE_HEADER - 4) {
        alci_file_setError(err, errsz,
                           "%s: payload of %llu bytes does not match the file length %zu: "
                           "truncated or corrupt",
                           path, (unsigned long long)clen, n);
        return ALC_ERR_IO;
    }
    uint64_t expect = 24 * (uint64_t)nvert * ((flags & 1u) ? 2 : 1);
    if (expect > clen * ZLIB_MAX_RATIO + 64) {
        alci_file_setError(err, errsz, "%s: %d vertices cannot fit in a %llu-byte payload", path,
                           (int)nvert, (unsigned long long)clen);
        return ALC_ERR_IO;
    }

    // checksum, then inflate to exactly the expected length
    if (getU32(d + n - 4) != alci_state_crc32(d, n - 4)) {
        alci_file_setError(err, errsz, "%s: CRC mismatch: the file is corrupt", path);
        return ALC_ERR_IO;
    }
    unsigned char* buf = (unsigned char*)malloc((size_t)expect + 1);
    if (!buf) {
        alci_file_setError(err, errsz, "%s: out of memory", path);
        return ALC_ERR_NOMEM;
    }
    uLongf got = (uLongf)expect + 1;  // one spare byte detects a too-long stream
    int zs = uncompress(buf, &got, d + STATE_HEADER, (uLong)clen);
    if (zs != Z_OK || got != (uLongf)expect) {
        alci_file_setError(err, errsz, "%s: payload does not inflate to %llu bytes (zlib %d)", path,
                           (unsigned long long)expect, zs);
        free(buf);
        return ALC_ERR_IO;
    }
    *raw = buf;
    *nraw = (size_t)expect;
    return ALC_OK;
}

alctStatus alci_state_read(const char* path, long* step, double* time, int* nvert, double** x,
                           double** v, char* err, int errsz) {
    if (!path || !step || !time || !nvert || !x || !v) {
        alci_file_setError(err, errsz, "alci_state_read: NULL argument");
        return ALC_ERR_INVALID_ARG;
    }
    *step = 0;
    *time = 0;
    *nvert = 0;
    *x = NULL;
    *v = NULL;
    unsigned char* d;
    size_t n;
    alctStatus st = alci_state_readFile(path, &d, &n, err, errsz);
    if (st) return st;
    unsigned char* raw;
    size_t nraw;
    st = inflateState(path, d, n, &raw, &nraw, err, errsz);
    if (st) {
        free(d);
        return st;
    }

    // decode x and, if present, v
    int nv = getI32(d + 24);
    int hasV = (getU32(d + 28) & 1u) != 0;
    size_t nd = 3 * (size_t)nv;
    double* px = (double*)malloc(nd * sizeof(double) + 1);
    double* pv = hasV ? (double*)malloc(nd * sizeof(double) + 1) : NULL;
    if (!px || (hasV && !pv)) {
        alci_file_setError(err, errsz, "%s: out of memory", path);
        free(px);
        free(pv);
        free(raw);
        free(d);
        return ALC_ERR_NOMEM;
    }
    for (size_t i = 0; i < nd; i++) px[i] = getF64(raw + 8 * i);
    for (size_t i = 0; hasV && i < nd; i++) pv[i] = getF64(raw + 8 * (nd + i));
    *step = (long)getU64(d + 8);
    *time = getF64(d + 16);
    *nvert = nv;
    *x = px;
    *v = pv;
    free(raw);
    free(d);
    return ALC_OK;
}
