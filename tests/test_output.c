// Tests of the output layer: atomic files, frame writers (VTU, PVD, PLY), exact state and
// topology files, statistics writers and the progress bar.
#include "alc_internal.h"
#include "contact_log.h"
#include "frame_writer.h"
#include "io_atomic.h"
#include "progress.h"
#include "state_io.h"
#include "stats_writer.h"
#include "test_files.h"
#include "test_macros.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <zlib.h>

// ---- a tiny model: one tetrahedron body (plus an interior vertex), a two-triangle floor ----

// clang-format off
static int g_triVert[] = {0, 2, 1,  0, 1, 3,  0, 3, 2,  1, 2, 3,  5, 6, 7,  5, 7, 8};
static int g_triBody[] = {0, 0, 0, 0, 1, 1};
static int g_tetVert[] = {0, 1, 2, 3};
static int g_tetBody[] = {0};
static int g_edgeVert[] = {0, 1, 0, 2, 0, 3, 1, 2, 1, 3, 2, 3, 5, 6, 6, 7, 5, 7, 7, 8, 5, 8};
static int g_edgeBody[] = {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
static int g_vertBody[] = {0, 0, 0, 0, 0, 1, 1, 1, 1};
static int g_bodyType[] = {ALC_BODY_SOLID, ALC_BODY_OBSTACLE};
static int g_bodyVertadr[] = {0, 5};
static int g_bodyVertnum[] = {5, 4};
static int g_bodyNameadr[] = {0, 5};
static char g_names[] = "cube\0floor";
// surface vertices in ascending order: vertex 4 is used by no triangle
static const int g_surf[] = {0, 1, 2, 3, 5, 6, 7, 8};

static alcModel tinyModel(void) {
    return (alcModel){.nvert = 9, .ntet = 1, .ntri = 6, .nedge = 11, .nbody = 2,
                      .nname = (int)sizeof g_names, .tri_vert = g_triVert, .tri_body = g_triBody,
                      .tet_vert = g_tetVert, .tet_body = g_tetBody, .edge_vert = g_edgeVert,
                      .edge_body = g_edgeBody, .vert_body = g_vertBody, .body_type = g_bodyType,
                      .body_vertadr = g_bodyVertadr, .body_vertnum = g_bodyVertnum,
                      .body_nameadr = g_bodyNameadr, .names = g_names};
}
// clang-format on

// positions and velocities with full mantissas, so that any rounding shows
static void tinyState(double x[27], double v[27]) {
    for (int i = 0; i < 27; i++) {
        x[i] = sin(1.0 + i) / 3.0 + (double)i;
        v[i] = cos(2.0 * i) * 1e-3 - 1.0 / 7.0;
    }
}

// ---- helpers -----------------------------------------------------------------------------

// a fresh directory /tmp/alc_test_output_XXXXXX (dir: 64 bytes) and path = dir/name
static int setup(char* dir, char* path, size_t n, const char* name) {
    snprintf(dir, 64, "/tmp/alc_test_output_XXXXXX");
    if (!mkdtemp(dir)) return 0;
    snprintf(path, n, "%s/%s", dir, name);
    return 1;
}

static int removeEntry(const char* path, const struct stat* sb, int flag, struct FTW* ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void removeTree(const char* dir) {
    nftw(dir, removeEntry, 16, FTW_DEPTH | FTW_PHYS);
}

// whole file, zero-terminated; NULL if unreadable
static unsigned char* readAll(const char* path, size_t* n) {
    FILE* fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char* buf = (unsigned char*)malloc((size_t)size + 1);
    if (buf && fread(buf, 1, (size_t)size, fp) != (size_t)size) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf) buf[size] = 0;
    if (n) *n = (size_t)size;
    return buf;
}

// 1 if the file holds exactly the text want
static int fileIs(const char* path, const char* want) {
    unsigned char* s = readAll(path, NULL);
    int same = s && strcmp((char*)s, want) == 0;
    free(s);
    return same;
}

static int writeAll(const char* path, const void* data, size_t n) {
    FILE* fp = fopen(path, "wb");
    if (!fp) return 0;
    size_t w = fwrite(data, 1, n, fp);
    return fclose(fp) == 0 && w == n;
}

// entries of a directory whose name contains ".tmp."
static int countTempFiles(const char* dir) {
    DIR* d = opendir(dir);
    if (!d) return -1;
    int count = 0;
    struct dirent* e;
    while ((e = readdir(d)) != NULL) count += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return count;
}

// integer value of attribute attr in the first tag after marker; -1 if absent
static long long xmlAttr(const char* xml, const char* marker, const char* attr) {
    const char* p = strstr(xml, marker);
    if (!p) return -1;
    const char* end = strchr(p, '>');
    char key[64];
    snprintf(key, sizeof key, " %s=\"", attr);
    const char* a = strstr(p, key);
    if (!a || (end && a > end)) return -1;
    return strtoll(a + strlen(key), NULL, 10);
}

// copy of the image d with byte at set to value, and the trailing CRC-32 redone if fixCrc
static unsigned char* patch(unsigned char* c, const unsigned char* d, size_t n, size_t at,
                            int value, int fixCrc) {
    memcpy(c, d, n);
    c[at] = (unsigned char)value;
    uint32_t crc = (uint32_t)crc32(0L, c, (uInt)(n - 4));
    for (int b = 0; fixCrc && b < 4; b++) c[n - 4 + b] = (unsigned char)(crc >> (8 * b));
    return c;
}

// ---- atomic files --------------------------------------------------------------------------

ALC_TEST(output_atomic_replace) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "a.txt"));

    // first version
    alciFile f;
    ENSURE_OK(alci_file_open(&f, path, err, sizeof err));
    ENSURE_OK(alci_file_printf(&f, "first %d\n", 1));
    ENSURE_OK(alci_file_commit(&f, err, sizeof err));
    ENSURE(fileIs(path, "first 1\n"));

    // while the second is written, readers still see the first
    ENSURE_OK(alci_file_open(&f, path, err, sizeof err));
    ENSURE_OK(alci_file_write(&f, "second", 6));
    fflush(f.fp);
    ENSURE(countTempFiles(dir) == 1);
    ENSURE(fileIs(path, "first 1\n"));
    ENSURE_OK(alci_file_commit(&f, err, sizeof err));
    ENSURE(fileIs(path, "second"));
    ENSURE(countTempFiles(dir) == 0);
    ENSURE(f.fp == NULL && f.tmp == NULL);

    // a missing directory fails with the path and strerror in the message
    char bad[160];
    snprintf(bad, sizeof bad, "%s/missing/b.txt", dir);
    ENSURE(alci_file_open(&f, bad, err, sizeof err) == ALC_ERR_IO);
    ENSURE_MSG(strstr(err, "missing/b.txt") && strstr(err, "No such file"), "err '%s'", err);
    removeTree(dir);
    return ALC_TEST_PASS;
}

ALC_TEST(output_atomic_abort_keeps_old) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "keep.txt"));
    ENSURE(writeAll(path, "old", 3));

    // abort: old content stays, temp file goes
    alciFile f;
    ENSURE_OK(alci_file_open(&f, path, err, sizeof err));
    ENSURE_OK(alci_file_printf(&f, "new content that must not appear"));
    alci_file_abort(&f);
    alci_file_abort(&f);  // twice is harmless
    ENSURE(fileIs(path, "old"));
    ENSURE(countTempFiles(dir) == 0);

    // a sticky write error makes the commit fail and keeps the old file
    ENSURE_OK(alci_file_open(&f, path, err, sizeof err));
    ENSURE_OK(alci_file_printf(&f, "partial"));
    f.error = 28;  // as if a write had hit ENOSPC
    ENSURE(alci_file_write(&f, "x", 1) == ALC_ERR_IO);
    ENSURE(alci_file_commit(&f, err, sizeof err) == ALC_ERR_IO);
    ENSURE_MSG(strstr(err, "keep.txt") != NULL, "err '%s'", err);
    ENSURE(fileIs(path, "old"));
    ENSURE(countTempFiles(dir) == 0);
    removeTree(dir);
    return ALC_TEST_PASS;
}

ALC_TEST(output_mkdirs) {
    char dir[64], path[160], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "a/b//c/"));
    ENSURE_OK(alci_mkdirs(path, err, sizeof err));
    ENSURE_OK(alci_mkdirs(path, err, sizeof err));  // exists: fine
    struct stat st;
    snprintf(path, sizeof path, "%s/a/b/c", dir);
    ENSURE(stat(path, &st) == 0 && S_ISDIR(st.st_mode));

    // a regular file in the way is an error naming it
    snprintf(path, sizeof path, "%s/file", dir);
    ENSURE(writeAll(path, "x", 1));
    snprintf(path, sizeof path, "%s/file/sub", dir);
    ENSURE(alci_mkdirs(path, err, sizeof err) == ALC_ERR_IO);
    ENSURE_MSG(strstr(err, "/file") != NULL, "err '%s'", err);
    ENSURE(alci_mkdirs("", err, sizeof err) == ALC_ERR_INVALID_ARG);
    removeTree(dir);
    return ALC_TEST_PASS;
}

// ---- VTU, PVD, PLY -------------------------------------------------------------------------

// decode padded base64 text[0, n) into out (room for 3 n / 4 bytes); the byte count, or -1
static long b64decode(const char* text, size_t n, unsigned char* out) {
    if (n % 4) return -1;
    long k = 0;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t w = 0;
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            char c = text[i + (size_t)j];
            int v = c >= 'A' && c <= 'Z'   ? c - 'A'
                    : c >= 'a' && c <= 'z' ? c - 'a' + 26
                    : c >= '0' && c <= '9' ? c - '0' + 52
                    : c == '+'             ? 62
                    : c == '/'             ? 63
                    : c == '='             ? (pad++, 0)
                                           : -1;
            if (v < 0) return -1;
            w = w << 6 | (uint32_t)v;
        }
        out[k++] = (unsigned char)(w >> 16);
        if (pad < 2) out[k++] = (unsigned char)(w >> 8);
        if (pad < 1) out[k++] = (unsigned char)w;
    }
    return k;
}

// characters of base64 for n bytes
static size_t b64len(size_t n) {
    return 4 * ((n + 2) / 3);
}

// the inline binary DataArray `name` of a .vtu, decoded: its header (VTK's UInt64 items:
// {byte count} raw; {blocks, block size, last size, compressed sizes} compressed) and its data,
// each base64-encoded on its own as VTK writes them. Malloc'd; NULL when malformed.
static unsigned char* vtuArray(const char* xml, const char* name, int compressed, uint64_t** header,
                               size_t* nheader, size_t* ndata) {
    char key[96];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    const char* a = strstr(xml, key);
    if (!a || !strstr(a, "format=\"binary\"")) return NULL;
    const char* t = strchr(a, '>');
    const char* e = t ? strstr(t, "</DataArray>") : NULL;
    if (!t || !e) return NULL;
    t++;
    size_t len = (size_t)(e - t);
    unsigned char first[9];
    if (len < 12 || b64decode(t, 12, first) < 8) return NULL;
    uint64_t items;
    memcpy(&items, first, 8);
    *nheader = compressed ? 3 + (size_t)items : 1;
    size_t hchars = b64len(8 * *nheader);
    *header = (uint64_t*)malloc(8 * *nheader + 3);
    unsigned char* data = (unsigned char*)malloc(len);
    if (!*header || !data || hchars > len ||
        b64decode(t, hchars, (unsigned char*)*header) != (long)(8 * *nheader)) {
        free(*header);
        free(data);
        return NULL;
    }
    long nd = b64decode(t + hchars, len - hchars, data);
    if (nd < 0) {
        free(*header);
        free(data);
        return NULL;
    }
    *ndata = (size_t)nd;
    return data;
}

ALC_TEST(output_vtu_raw) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "f.vtu"));
    alcModel m = tinyModel();
    double x[27], v[27];
    tinyState(x, v);
    ENSURE_OK(alci_frame_writeVtu(path, &m, x, v, 0.25, 0, err, sizeof err));

    // header: sizes, no compressor, no appended section (meshio mishandles raw appended data)
    unsigned char* s = readAll(path, NULL);
    ENSURE(s != NULL);
    ENSURE(xmlAttr((char*)s, "<Piece", "NumberOfPoints") == 8);
    ENSURE(xmlAttr((char*)s, "<Piece", "NumberOfCells") == 6);
    ENSURE(strstr((char*)s, "compressor") == NULL);
    ENSURE(strstr((char*)s, "AppendedData") == NULL);
    ENSURE(strstr((char*)s, "Name=\"TimeValue\"") != NULL);

    // points: UInt64 byte count, then the surface vertices in ascending order, exactly
    uint64_t* h = NULL;
    size_t nh = 0, nd = 0;
    unsigned char* d = vtuArray((char*)s, "Points", 0, &h, &nh, &nd);
    ENSURE(d && nh == 1 && h[0] == 8 * 24 && nd == 8 * 24);
    for (int i = 0; i < 8; i++) ENSURE(memcmp(d + 24 * i, x + 3 * g_surf[i], 24) == 0);
    free(d);
    free(h);

    // velocities likewise
    d = vtuArray((char*)s, "velocity", 0, &h, &nh, &nd);
    ENSURE(d && h[0] == 8 * 24 && nd == 8 * 24);
    for (int i = 0; i < 8; i++) ENSURE(memcmp(d + 24 * i, v + 3 * g_surf[i], 24) == 0);
    free(d);
    free(h);

    // connectivity renumbered: vertex 5 (floor) is surface vertex 4
    d = vtuArray((char*)s, "connectivity", 0, &h, &nh, &nd);
    ENSURE(d && h[0] == 18 * 4 && nd == 18 * 4);
    int32_t conn[18];
    memcpy(conn, d, sizeof conn);
    ENSURE(conn[12] == 4 && conn[13] == 5 && conn[14] == 6 && conn[17] == 7);
    free(d);
    free(h);

    // cell data: obstacle flags of the floor triangles (6 bytes: the base64 padding case)
    d = vtuArray((char*)s, "obstacle", 0, &h, &nh, &nd);
    ENSURE(d && h[0] == 6 && nd == 6);
    ENSURE(d[0] == 0 && d[3] == 0 && d[4] == 1 && d[5] == 1);
    free(d);
    free(h);
    free(s);

    // a triangle index out of range is rejected
    int badTri[18];
    memcpy(badTri, g_triVert, sizeof badTri);
    badTri[7] = 9;
    m.tri_vert = badTri;
    ENSURE(alci_frame_writeVtu(path, &m, x, NULL, 0.0, 0, err, sizeof err) == ALC_ERR_INVALID_ARG);
    ENSURE(strstr(err, "outside") != NULL);
    removeTree(dir);
    return ALC_TEST_PASS;
}

ALC_TEST(output_vtu_compressed) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "strip.vtu"));

    // a triangle strip big enough for several 32 KiB blocks
    enum { NV = 3000, NT = NV - 2 };
    int* tri = (int*)malloc(3 * NT * sizeof(int));
    int* body = (int*)calloc(NT, sizeof(int));
    double* x = (double*)malloc(3 * NV * sizeof(double));
    int type = ALC_BODY_OBSTACLE;
    ENSURE(tri && body && x);
    for (int t = 0; t < NT; t++) {
        for (int c = 0; c < 3; c++) tri[3 * t + c] = t + c;
    }
    for (int i = 0; i < 3 * NV; i++) x[i] = sin(0.37 * i) + 1.0 / 3.0;
    alcModel m;
    memset(&m, 0, sizeof m);
    m.nvert = NV;
    m.ntri = NT;
    m.nbody = 1;
    m.tri_vert = tri;
    m.tri_body = body;
    m.body_type = &type;
    alctStatus st = alci_frame_writeVtu(path, &m, x, NULL, 1.5, 1, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);

    // header and the compression header of the points
    unsigned char* s = readAll(path, NULL);
    ENSURE(s != NULL);
    ENSURE(strstr((char*)s, "compressor=\"vtkZLibDataCompressor\"") != NULL);
    ENSURE(xmlAttr((char*)s, "<Piece", "NumberOfPoints") == NV);
    ENSURE(xmlAttr((char*)s, "<Piece", "NumberOfCells") == NT);
    uint64_t* h = NULL;
    size_t nh = 0, nd = 0;
    unsigned char* data = vtuArray((char*)s, "Points", 1, &h, &nh, &nd);
    ENSURE(data != NULL);
    size_t total = 24 * (size_t)NV;
    ENSURE_MSG(h[0] == (total + 32767) / 32768 && h[1] == 32768 && h[2] == total % 32768 &&
                   nh == 3 + h[0],
               "header %llu %llu %llu", (unsigned long long)h[0], (unsigned long long)h[1],
               (unsigned long long)h[2]);

    // inflate every block and compare with the input exactly
    unsigned char* out = (unsigned char*)malloc(total);
    ENSURE(out != NULL);
    size_t pos = 0, at = 0;
    for (uint64_t k = 0; k < h[0]; k++) {
        uint64_t clen = h[3 + k];
        uLongf got = (uLongf)(total - pos);
        ENSURE(at + clen <= nd);
        ENSURE(uncompress(out + pos, &got, data + at, (uLong)clen) == Z_OK);
        pos += got;
        at += clen;
    }
    ENSURE(pos == total && at == nd);
    ENSURE(memcmp(out, x, total) == 0);
    free(out);
    free(data);
    free(h);
    free(s);
    free(tri);
    free(body);
    free(x);
    removeTree(dir);
    return ALC_TEST_PASS;
}

ALC_TEST(output_pvd_series) {
    char dir[64], pvd[128], err[256] = "";
    ENSURE(setup(dir, pvd, sizeof pvd, "run.pvd"));
    char f0[160], f1[160];
    snprintf(f0, sizeof f0, "%s/frames/frame_000000.vtu", dir);
    snprintf(f1, sizeof f1, "%s/frames/frame_000010.vtu", dir);
    const char* files[3] = {f0, f1, "a&b.vtu"};
    const double times[3] = {0.0, 0.1, 0.2};
    ENSURE_OK(alci_series_write(pvd, 3, files, times, err, sizeof err));

    // relative names, in order, escaped
    unsigned char* s = readAll(pvd, NULL);
    ENSURE(s != NULL);
    const char* a = strstr((char*)s, "file=\"frames/frame_000000.vtu\"");
    const char* b = strstr((char*)s, "file=\"frames/frame_000010.vtu\"");
    const char* c = strstr((char*)s, "file=\"a&amp;b.vtu\"");
    ENSURE_MSG(a && b && c && a < b && b < c, "%s", (char*)s);
    ENSURE(strstr((char*)s, "timestep=\"0.1\"") != NULL);  // the shortest exact form
    ENSURE(strstr((char*)s, "type=\"Collection\"") != NULL);
    ENSURE(strstr((char*)s, dir) == NULL);
    free(s);
    ENSURE(countTempFiles(dir) == 0);
    removeTree(dir);
    return ALC_TEST_PASS;
}

ALC_TEST(output_ply) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "f.ply"));
    alcModel m = tinyModel();
    double x[27], v[27];
    tinyState(x, v);
    for (int withV = 0; withV < 2; withV++) {
        ENSURE_OK(alci_frame_writePly(path, &m, x, withV ? v : NULL, err, sizeof err));

        // header: positions, velocities when given, the body of every vertex
        size_t n;
        unsigned char* s = readAll(path, &n);
        ENSURE(s != NULL);
        const char* end = strstr((char*)s, "end_header\n");
        ENSURE(strncmp((char*)s, "ply\nformat binary_little_endian 1.0\n", 36) == 0);
        ENSURE(strstr((char*)s, "element vertex 8\n") && strstr((char*)s, "element face 6\n"));
        ENSURE(strstr((char*)s, "property list uchar int vertex_indices\n"));
        ENSURE((strstr((char*)s, "property float vx\nproperty float vy\nproperty float vz\n") !=
                NULL) == withV);
        ENSURE(strstr((char*)s, "property int body\nelement face") != NULL);
        ENSURE(end != NULL);
        const unsigned char* p = (const unsigned char*)end + strlen("end_header\n");
        size_t vsize = withV ? 28 : 16;
        ENSURE((size_t)(p - s) + 8 * vsize + 6 * 13 == n);

        // vertices as floats with their body, faces renumbered
        for (int i = 0; i < 8; i++) {
            for (int c = 0; c < (withV ? 6 : 3); c++, p += 4) {
                float f;
                memcpy(&f, p, 4);
                ENSURE(f == (float)(c < 3 ? x[3 * g_surf[i] + c] : v[3 * g_surf[i] + c - 3]));
            }
            int32_t b;
            memcpy(&b, p, 4);
            p += 4;
            ENSURE_MSG(b == g_vertBody[g_surf[i]], "vertex %d: body %d", i, b);
        }
        const int expect[18] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3, 4, 5, 6, 4, 6, 7};
        for (int t = 0; t < 6; t++) {
            ENSURE(*p++ == 3);
            for (int c = 0; c < 3; c++, p += 4) {
                int32_t k;
                memcpy(&k, p, 4);
                ENSURE_MSG(k == expect[3 * t + c], "face %d: %d != %d", t, k, expect[3 * t + c]);
            }
        }
        free(s);
    }
    removeTree(dir);
    return ALC_TEST_PASS;
}

/// The PLY frames' series index for ParaView (JSON), names relative and escaped, times exact.
ALC_TEST(output_plySeries) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "frames.ply.series"));
    char f0[160];
    snprintf(f0, sizeof f0, "%s/frames/frame_000000.ply", dir);
    const char* files[2] = {f0, "we\"ird.ply"};
    const double times[2] = {0.0, 0.1 + 0.2};
    ENSURE_OK(alci_series_writeJson(path, 2, files, times, err, sizeof err));
    unsigned char* s = readAll(path, NULL);
    ENSURE(s != NULL);
    ENSURE_MSG(strstr((char*)s, "\"file-series-version\": \"1.0\"") &&
                   strstr((char*)s, "{\"name\": \"frames/frame_000000.ply\", \"time\": 0}") &&
                   strstr((char*)s, "{\"name\": \"we\\\"ird.ply\", \"time\": 0.30000000000000004}"),
               "%s", (char*)s);
    free(s);
    removeTree(dir);
    return ALC_TEST_PASS;
}

/// Doubles print in the shortest form that reads back exactly.
ALC_TEST(output_shortestDouble) {
    char b[32];
    ENSURE(!strcmp(alci_formatDouble(b, sizeof b, 0.2), "0.2"));
    ENSURE(!strcmp(alci_formatDouble(b, sizeof b, 0.1 + 0.2), "0.30000000000000004"));
    ENSURE(!strcmp(alci_formatDouble(b, sizeof b, 1.0 / 3.0), "0.3333333333333333"));
    ENSURE(!strcmp(alci_formatDouble(b, sizeof b, 20 * 0.01), "0.2"));
    ENSURE(!strcmp(alci_formatDouble(b, sizeof b, 1e-300), "1e-300"));
    double vals[4] = {0.1 * 3, 2.0 / 3.0, 123456.789e-7, -4.0e15 / 7.0};
    for (int i = 0; i < 4; i++) ENSURE(strtod(alci_formatDouble(b, sizeof b, vals[i]), NULL) == vals[i]);
    return ALC_TEST_PASS;
}

// ---- exact states and topology -------------------------------------------------------------

ALC_TEST(output_state_roundtrip) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "s.state"));
    double x[27], v[27];
    tinyState(x, v);
    x[5] = -0.0;
    x[6] = 4.9406564584124654e-324;  // denormal
    v[2] = (double)NAN;
    ENSURE_OK(alci_state_write(path, 123456789012L, 1.0 / 3.0, 9, x, v, err, sizeof err));

    long step;
    double time, *rx, *rv;
    int nv;
    ENSURE_OK(alci_state_read(path, &step, &time, &nv, &rx, &rv, err, sizeof err));
    ENSURE(step == 123456789012L && time == 1.0 / 3.0 && nv == 9);
    ENSURE(rx && rv && memcmp(rx, x, sizeof x) == 0 && memcmp(rv, v, sizeof v) == 0);
    free(rx);
    free(rv);

    // without velocities, and with no vertices
    ENSURE_OK(alci_state_write(path, 7, 0.5, 9, x, NULL, err, sizeof err));
    ENSURE_OK(alci_state_read(path, &step, &time, &nv, &rx, &rv, err, sizeof err));
    ENSURE(step == 7 && rv == NULL && memcmp(rx, x, sizeof x) == 0);
    free(rx);
    ENSURE_OK(alci_state_write(path, 0, 0.0, 0, NULL, NULL, err, sizeof err));
    ENSURE_OK(alci_state_read(path, &step, &time, &nv, &rx, &rv, err, sizeof err));
    ENSURE(nv == 0 && rv == NULL);
    free(rx);
    ENSURE(countTempFiles(dir) == 0);
    removeTree(dir);
    return ALC_TEST_PASS;
}

// read a corrupted state image: must fail with a message containing want
static int stateRejected(const char* path, const unsigned char* d, size_t n, const char* want) {
    char err[256] = "";
    long step = -1;
    double time, *x = (double*)&time, *v = (double*)&time;
    int nv = -1;
    if (!writeAll(path, d, n)) return 0;
    alctStatus st = alci_state_read(path, &step, &time, &nv, &x, &v, err, sizeof err);
    if (st == ALC_OK || x || v || nv != 0 || !strstr(err, want) || !strstr(err, path)) {
        fprintf(stderr, "  state not rejected as '%s': status %d, err '%s'\n", want, st, err);
        free(st == ALC_OK ? x : NULL);
        free(st == ALC_OK ? v : NULL);
        return 0;
    }
    return 1;
}

ALC_TEST(output_state_corrupt) {
    char dir[64], path[128], bad[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "s.state"));
    snprintf(bad, sizeof bad, "%s/bad.state", dir);
    double x[27], v[27];
    tinyState(x, v);
    ENSURE_OK(alci_state_write(path, 3, 0.03, 9, x, v, err, sizeof err));
    size_t n;
    unsigned char* d = readAll(path, &n);
    unsigned char* c = (unsigned char*)malloc(n);
    ENSURE(d && c && n > 48);

    // flipped payload byte, flipped time byte, truncation, wrong magic
    ENSURE(stateRejected(bad, patch(c, d, n, 44, d[44] ^ 0x10, 0), n, "CRC"));
    ENSURE(stateRejected(bad, patch(c, d, n, 17, d[17] ^ 0x01, 0), n, "CRC"));
    ENSURE(stateRejected(bad, d, n - 7, "truncated"));
    ENSURE(stateRejected(bad, d, 20, "truncated"));
    ENSURE(stateRejected(bad, patch(c, d, n, 3, 'X', 0), n, "magic"));

    // absurd vertex counts (nvert at bytes 24..27), even with a valid CRC
    ENSURE(stateRejected(bad, patch(c, d, n, 27, 0x40, 1), n, "absurd"));      // 2^30 + 9
    ENSURE(stateRejected(bad, patch(c, d, n, 26, 0x01, 1), n, "cannot fit"));  // 65545
    ENSURE(stateRejected(bad, patch(c, d, n, 24, 10, 1), n, "inflate"));       // 10: wrong length

    // missing file
    snprintf(bad, sizeof bad, "%s/none.state", dir);
    long step;
    double time, *rx, *rv;
    int nv;
    ENSURE(alci_state_read(bad, &step, &time, &nv, &rx, &rv, err, sizeof err) == ALC_ERR_IO);
    ENSURE(strstr(err, "none.state") && strstr(err, "No such file"));
    free(d);
    free(c);
    removeTree(dir);
    return ALC_TEST_PASS;
}

ALC_TEST(output_topology_roundtrip) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "topo.bin"));
    alcModel m = tinyModel();
    ENSURE_OK(alci_state_writeTopology(path, &m, err, sizeof err));
    alciTopology t;
    alctStatus st = alci_state_readTopology(path, &t, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(t.nvert == 9 && t.ntet == 1 && t.ntri == 6 && t.nedge == 11 && t.nbody == 2);
    const struct {
        const int* got;
        const int* want;
        size_t size;
    } arrays[] = {{t.tri_vert, g_triVert, sizeof g_triVert},
                  {t.tet_vert, g_tetVert, sizeof g_tetVert},
                  {t.edge_vert, g_edgeVert, sizeof g_edgeVert},
                  {t.tri_body, g_triBody, sizeof g_triBody},
                  {t.edge_body, g_edgeBody, sizeof g_edgeBody},
                  {t.vert_body, g_vertBody, sizeof g_vertBody},
                  {t.tet_body, g_tetBody, sizeof g_tetBody},
                  {t.body_type, g_bodyType, sizeof g_bodyType},
                  {t.body_vertadr, g_bodyVertadr, sizeof g_bodyVertadr},
                  {t.body_vertnum, g_bodyVertnum, sizeof g_bodyVertnum}};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) {
        ENSURE_MSG(memcmp(arrays[k].got, arrays[k].want, arrays[k].size) == 0, "array %zu", k);
    }
    ENSURE(strcmp(t.names + t.body_nameadr[0], "cube") == 0);
    ENSURE(strcmp(t.names + t.body_nameadr[1], "floor") == 0);
    alci_state_freeTopology(&t);
    ENSURE(t.tri_vert == NULL && t.nvert == 0);
    alci_state_freeTopology(NULL);

    // the writer refuses what the reader would reject
    int badBody[6] = {0, 0, 0, 0, 1, 2};
    m.tri_body = badBody;
    ENSURE(alci_state_writeTopology(path, &m, err, sizeof err) == ALC_ERR_INVALID_ARG);
    ENSURE_MSG(strstr(err, "tri_body[5] = 2") != NULL, "err '%s'", err);
    removeTree(dir);
    return ALC_TEST_PASS;
}

// The topology records which tetrahedra the solver keeps from inverting (issue 16, item 2):
// stable Neo-Hookean may invert, Neo-Hookean may not, `inversion: all` protects every one; a
// version-1 file (which does not record it) reads as all protected.
ALC_TEST(output_topology_protection) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "topo.bin"));
    alcModel m = tinyModel();
    int matModel[2] = {ALC_MAT_STABLE_NEOHOOKEAN, ALC_MAT_NEOHOOKEAN};
    int bodyMat[2] = {0, 1};
    m.nmat = 2;
    m.mat_model = matModel;
    m.body_mat = bodyMat;
    const int want[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};  // {model index, inversion all}
    for (int c = 0; c < 4; c++) {
        bodyMat[0] = want[c][0];
        m.opt.inversion = want[c][1] ? ALC_INVERSION_ALL : ALC_INVERSION_AUTO;
        ENSURE_OK(alci_state_writeTopology(path, &m, err, sizeof err));
        alciTopology t;
        ENSURE_MSG(alci_state_readTopology(path, &t, err, sizeof err) == ALC_OK, "%s", err);
        int expect = want[c][1] || matModel[want[c][0]] == ALC_MAT_NEOHOOKEAN;
        ENSURE_MSG(t.tet_protected && t.tet_protected[0] == expect, "case %d: %d", c,
                   t.tet_protected ? t.tet_protected[0] : -1);
        alci_state_freeTopology(&t);
    }
    // a version-1 image: the same bytes without tet_protected, the old magic, its CRC
    bodyMat[0] = 0;
    m.opt.inversion = ALC_INVERSION_AUTO;
    ENSURE_OK(alci_state_writeTopology(path, &m, err, sizeof err));
    size_t n;
    unsigned char* d = readAll(path, &n);
    ENSURE(d && n > 340);
    // arrays before tet_protected: 4 ntet + 3 ntri + 2 nedge + ntri + nedge + nvert + ntet +
    // 3 nbody int32 after the 28-byte header
    size_t pos = 28 + 4 * (size_t)(4 * 1 + 3 * 6 + 2 * 11 + 6 + 11 + 9 + 1 + 3 * 2);
    unsigned char* v1 = (unsigned char*)malloc(n);
    ENSURE(v1);
    memcpy(v1, d, pos);
    memcpy(v1 + pos, d + pos + 4, n - pos - 4);  // drop the one tetrahedron's flag
    size_t n1 = n - 4;
    memcpy(v1, "ALCTOPO1", 8);
    uLong crc = crc32(crc32(0L, Z_NULL, 0), v1, (uInt)(n1 - 4));
    for (int b = 0; b < 4; b++) v1[n1 - 4 + b] = (unsigned char)(crc >> (8 * b));
    char p1[160];
    snprintf(p1, sizeof p1, "%s/v1.bin", dir);
    ENSURE(writeAll(p1, v1, n1));
    alciTopology t;
    ENSURE_MSG(alci_state_readTopology(p1, &t, err, sizeof err) == ALC_OK, "%s", err);
    ENSURE(t.ntet == 1 && t.tet_protected && t.tet_protected[0] == 1);
    ENSURE(strcmp(t.names + t.body_nameadr[1], "floor") == 0);
    alci_state_freeTopology(&t);
    free(v1);
    free(d);
    removeTree(dir);
    return ALC_TEST_PASS;
}

// read a corrupted topology image: must fail with a message containing want
static int topologyRejected(const char* path, const unsigned char* d, size_t n, const char* want) {
    char err[256] = "";
    alciTopology t;
    if (!writeAll(path, d, n)) return 0;
    alctStatus st = alci_state_readTopology(path, &t, err, sizeof err);
    if (st == ALC_OK || t.tri_vert || t.nvert || !strstr(err, want) || !strstr(err, path)) {
        fprintf(stderr, "  topology not rejected as '%s': status %d, err '%s'\n", want, st, err);
        if (st == ALC_OK) alci_state_freeTopology(&t);
        return 0;
    }
    return 1;
}

ALC_TEST(output_topology_corrupt) {
    char dir[64], path[128], bad[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "topo.bin"));
    snprintf(bad, sizeof bad, "%s/bad.bin", dir);
    alcModel m = tinyModel();
    ENSURE_OK(alci_state_writeTopology(path, &m, err, sizeof err));
    size_t n;
    unsigned char* d = readAll(path, &n);
    unsigned char* c = (unsigned char*)malloc(n);
    ENSURE(d && c && n > 64);

    // flipped byte, truncation, wrong magic
    ENSURE(topologyRejected(bad, patch(c, d, n, 40, d[40] ^ 0x02, 0), n, "CRC"));
    ENSURE(topologyRejected(bad, d, n - 10, "truncated"));
    ENSURE(topologyRejected(bad, d, 12, "truncated"));
    ENSURE(topologyRejected(bad, patch(c, d, n, 0, 'B', 0), n, "magic"));

    // absurd sizes (int32 at 8 + 4k): negative, huge, more than the file holds
    ENSURE(topologyRejected(bad, patch(c, d, n, 11, 0x80, 1), n, "absurd size nvert"));
    ENSURE(topologyRejected(bad, patch(c, d, n, 19, 0x7f, 1), n, "absurd size ntri"));
    ENSURE(topologyRejected(bad, patch(c, d, n, 12, 200, 1), n, "truncated"));  // ntet = 200

    // a valid CRC over a bad index: caught by validation (tri_vert[0] is at byte 28 + 16)
    ENSURE(topologyRejected(bad, patch(c, d, n, 44, 42, 1), n, "tri_vert[0] = 42"));
    // last name byte but one: only the CRC catches it
    ENSURE(topologyRejected(bad, patch(c, d, n, n - 6, d[n - 6] ^ 0xff, 0), n, "CRC"));
    free(d);
    free(c);
    removeTree(dir);
    return ALC_TEST_PASS;
}

// ---- statistics ----------------------------------------------------------------------------

// comma-separated field k of a line as a double
static double csvField(const char* line, int k) {
    for (int i = 0; i < k && line; i++) {
        line = strchr(line, ',');
        if (line) line++;
    }
    return line ? strtod(line, NULL) : (double)NAN;
}

ALC_TEST(output_stats_csv_json) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "stats.csv"));
    // clang-format off
    alcStepStat a = {.outer = 4, .newton = 8, .cgTotal = 20, .cgMax = 7, .contactsMax = 11,
                     .contactsSum = 60, .alphaSum = 3.0, .alphaMin = 0.25, .mu = 1e6,
                     .splits = 3, .hMin = 0.0025, .guards = 5,
                     .time = {0.5, 1.0, 1.5, 2.0, 2.5, 3.0}};
    // clang-format on
    alcStepStat z = {0};  // no iterations: averages must be 0, not NaN

    alciStats s;
    ENSURE_OK(alci_stats_open(&s, path, 0, err, sizeof err));
    ENSURE_OK(alci_stats_write(&s, 1, 0.01, &a));
    ENSURE_OK(alci_stats_write(&s, 2, 0.02, &z));
    ENSURE(s.rows == 2);
    ENSURE_OK(alci_stats_close(&s, err, sizeof err));
    ENSURE_OK(alci_stats_close(&s, err, sizeof err));
    unsigned char* text = readAll(path, NULL);
    ENSURE(text != NULL);
    const char* header =
        "step,time,outer,newton,cg_total,cg_max,cg_avg,contacts_max,contacts_avg,"
        "candidates_max,alpha_avg,alpha_min,mu,delta,beta,capped,mu_increases,linesearch_fails,"
        "time_step,time_hessian,time_pcg,time_ccd,time_linesearch,time_other,buffer_grows,"
        "energy_gain,direct_solves,splits,h_min,penetration,tet_guards\n";
    ENSURE_MSG(strncmp((char*)text, header, strlen(header)) == 0, "%s", (char*)text);
    const char* row1 = (char*)text + strlen(header);
    const char* row2 = strchr(row1, '\n') + 1;
    ENSURE(csvField(row1, 0) == 1 && csvField(row1, 1) == 0.01);
    ENSURE(csvField(row1, 27) == 3 && csvField(row1, 28) == 0.0025);  // splits, h_min
    ENSURE(csvField(row1, 30) == 5);                                  // tet_guards
    ENSURE_NEAR(csvField(row1, 6), 2.5, 1e-12);    // cg_avg = 20 / 8
    ENSURE_NEAR(csvField(row1, 8), 7.5, 1e-12);    // contacts_avg = 60 / 8
    ENSURE_NEAR(csvField(row1, 10), 0.75, 1e-12);  // alpha_avg = 3 / 4
    ENSURE_NEAR(csvField(row1, 12), 1e6, 1e-3);
    ENSURE_NEAR(csvField(row1, 23), 3.0, 1e-12);  // time_other
    ENSURE(csvField(row2, 6) == 0 && csvField(row2, 8) == 0 && csvField(row2, 10) == 0);
    ENSURE(strstr(row2, "nan") == NULL);
    free(text);

    // JSON lines: same keys, one object per line, no header
    ENSURE_OK(alci_stats_open(&s, path, 1, err, sizeof err));
    ENSURE_OK(alci_stats_write(&s, 1, 0.01, &a));
    z.beta = (double)INFINITY;
    ENSURE_OK(alci_stats_write(&s, 2, 0.02, &z));
    ENSURE_OK(alci_stats_close(&s, err, sizeof err));
    text = readAll(path, NULL);
    ENSURE(text && strncmp((char*)text, "{\"step\":1,\"time\":0.01,\"outer\":4,", 32) == 0);
    ENSURE(strstr((char*)text, "\"cg_avg\":2.5,") && strstr((char*)text, "\"beta\":null"));
    ENSURE(strstr((char*)text,
                  "\"time_other\":3,\"buffer_grows\":0,\"energy_gain\":0,\"direct_solves\":0,"
                  "\"splits\":3,\"h_min\":0.0025,\"penetration\":0,\"tet_guards\":5}\n"
                  "{\"step\":2,") != NULL);
    free(text);

    // an unwritable path fails with the path in the message
    snprintf(path, sizeof path, "%s/no/such/dir.csv", dir);
    ENSURE(alci_stats_open(&s, path, 0, err, sizeof err) == ALC_ERR_IO);
    ENSURE(strstr(err, "no/such/dir.csv") != NULL);

    // a full disk is reported at the first flush: the CSV header, or the first JSON row
    if (access("/dev/full", W_OK) == 0) {
        ENSURE(alci_stats_open(&s, "/dev/full", 0, err, sizeof err) == ALC_ERR_IO);
        ENSURE_MSG(strstr(err, "/dev/full: No space"), "err '%s'", err);
        ENSURE_OK(alci_stats_open(&s, "/dev/full", 1, err, sizeof err));
        ENSURE(alci_stats_write(&s, 1, 0.01, &a) == ALC_ERR_IO && s.rows == 0);
        ENSURE_MSG(strstr(s.error, "/dev/full: No space"), "error '%s'", s.error);
        alci_stats_close(&s, NULL, 0);
    }
    removeTree(dir);
    return ALC_TEST_PASS;
}

ALC_TEST(output_stats_summary_table) {
    alcModel m = tinyModel();
    m.ntet = 87200;
    // clang-format off
    alcRunStat r = {.steps = 10, .outer = 20, .newton = 60, .newtonMax = 9, .cgTotal = 2016,
                    .cgMax = 619, .contactsSum = 2148, .contactsMax = 8200, .alphaSum = 15,
                    .timeMax = 0.17, .time = {[ALC_TIMER_STEP] = 1.6, [ALC_TIMER_HESSIAN] = 0.4,
                                              [ALC_TIMER_PCG] = 0.8, [ALC_TIMER_OTHER] = 0.4}};
    // clang-format on

    // summary: averages and the phase percentages
    char* text = NULL;
    size_t len = 0;
    FILE* fp = open_memstream(&text, &len);
    ENSURE(fp != NULL);
    alci_stats_summary(fp, &m, &r, "ref");
    fclose(fp);
    ENSURE_MSG(strstr(text, "6.00 per step (peak 9)") && strstr(text, "33.60 per solve (peak 619)"),
               "%s", text);
    ENSURE(strstr(text, "35.80 per Newton iteration (peak 8200)") && strstr(text, "0.7500"));
    ENSURE(strstr(text, "0.16 s average") && strstr(text, "50.0%") && strstr(text, "backend ref"));
    free(text);

    // table row aligned with the header, counts abbreviated as in the paper
    char head[256], row[256];
    alci_stats_tableHeader(head, sizeof head);
    alci_stats_tableRow(row, sizeof row, "fig8", &m, &r);
    ENSURE_MSG(strlen(head) == strlen(row), "\n%s\n%s", head, row);
    ENSURE(strncmp(row, "fig8 ", 5) == 0 && strstr(head, "#Newton") && strstr(head, "LS"));
    ENSURE_MSG(strstr(row, "87.2k") && strstr(row, "33.6 (619)") && strstr(row, "6.0 (9)") &&
                   strstr(row, "35.8 (8.2k)") && strstr(row, "0.750") &&
                   strstr(row, "0.16 (0.17)") && strstr(row, "25.0%") && strstr(row, "50.0%"),
               "%s", row);
    alcRunStat empty;
    memset(&empty, 0, sizeof empty);
    alci_stats_tableRow(row, sizeof row, "empty", NULL, &empty);
    ENSURE(strstr(row, "nan") == NULL && strstr(row, "0.0 (0)") != NULL);
    return ALC_TEST_PASS;
}

// ---- progress ------------------------------------------------------------------------------

ALC_TEST(output_progress_file) {
    char dir[64], path[128];
    ENSURE(setup(dir, path, sizeof path, "log.txt"));

    // a full run: exactly the ten 10% lines, no carriage returns
    FILE* fp = fopen(path, "w");
    ENSURE(fp != NULL);
    alciProgress p;
    alci_progress_begin(&p, fp, 250, 0, "run");
    for (long i = 1; i <= 250; i++) alci_progress_update(&p, i, "t=1 s");
    alci_progress_end(&p);
    fclose(fp);
    unsigned char* s = readAll(path, NULL);
    ENSURE(s != NULL);
    ENSURE(strchr((char*)s, '\r') == NULL);
    int lines = 0;
    for (const char* q = (char*)s; (q = strchr(q, '\n')) != NULL; q++) lines++;
    ENSURE_MSG(lines == 10, "%d lines:\n%s", lines, (char*)s);
    ENSURE(strncmp((char*)s, "run: 10% (25/250 steps, ", 24) == 0);
    ENSURE(strstr((char*)s, "run: 100% (250/250 steps") && strstr((char*)s, ") t=1 s\n"));
    free(s);

    // a run that stops at 55%: five lines and a closing one
    fp = fopen(path, "w");
    ENSURE(fp != NULL);
    alci_progress_begin(&p, fp, 100, 0, "run");
    for (long i = 1; i <= 55; i++) alci_progress_update(&p, i, NULL);
    alci_progress_end(&p);
    fclose(fp);
    s = readAll(path, NULL);
    ENSURE(s != NULL);
    lines = 0;
    for (const char* q = (char*)s; (q = strchr(q, '\n')) != NULL; q++) lines++;
    ENSURE_MSG(lines == 6 && strstr((char*)s, "run: 50% (50/100") &&
                   strstr((char*)s, "run: stopped at 55/100 steps"),
               "%s", (char*)s);
    free(s);
    removeTree(dir);
    return ALC_TEST_PASS;
}

/// A resumed run's bar (issue 14): the rate and the ETA count the steps of this process only.
/// The bar begins at step 650 of 800 and is set back 100 s, as if it had begun then; after 10
/// more steps it must show 0.1 steps/s and 140 steps left at that rate (23:20), not 660 steps
/// in 100 s (6.6 steps/s, an ETA of 21 s, what it showed before).
ALC_TEST(output_progress_resumed) {
    char dir[64], path[128];
    ENSURE(setup(dir, path, sizeof path, "log.txt"));
    FILE* fp = fopen(path, "w");
    ENSURE(fp != NULL);
    alciProgress p;
    alci_progress_begin(&p, fp, 800, 650, "run");
    ENSURE(p.done == 650);
    p.start -= 100;
    alci_progress_update(&p, 660, NULL);
    alci_progress_end(&p);
    fclose(fp);
    unsigned char* s = readAll(path, NULL);
    ENSURE(s != NULL);
    ENSURE_MSG(strstr((char*)s, "run: 80% (660/800 steps, 0.1 steps/s, ETA 23:2") != NULL, "%s",
               (char*)s);
    free(s);
    removeTree(dir);
    return ALC_TEST_PASS;
}

ALC_TEST(output_progress_tty) {
    // a pseudo-terminal stands in for the user's terminal
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) SKIP_TEST("no pseudo-terminals");
    const char* name = grantpt(master) == 0 && unlockpt(master) == 0 ? ptsname(master) : NULL;
    int slave = name ? open(name, O_RDWR | O_NOCTTY) : -1;
    if (slave < 0) {
        close(master);
        SKIP_TEST("cannot open the pseudo-terminal");
    }
    struct termios tio;
    tcgetattr(slave, &tio);
    cfmakeraw(&tio);  // no "\n" -> "\r\n" translation
    tcsetattr(slave, TCSANOW, &tio);
    fcntl(slave, F_SETFL, fcntl(slave, F_GETFL) | O_NONBLOCK);  // a flood fails, not hangs
    FILE* fp = fdopen(slave, "w");
    ENSURE(fp != NULL);

    // 2000 fast updates: redraws are rate-limited to a handful
    alciProgress p;
    alci_progress_begin(&p, fp, 2000, 0, "tty");
    ENSURE(p.tty == 1);
    for (long i = 1; i <= 2000; i++) alci_progress_update(&p, i, NULL);
    alci_progress_end(&p);
    fclose(fp);
    char buf[8192];
    size_t n = 0;
    struct pollfd pfd = {master, POLLIN, 0};
    while (n + 1 < sizeof buf && poll(&pfd, 1, 200) > 0) {
        ssize_t r = read(master, buf + n, sizeof buf - 1 - n);
        if (r <= 0) break;
        n += (size_t)r;
    }
    close(master);
    buf[n] = 0;
    int cr = 0;
    for (size_t i = 0; i < n; i++) cr += buf[i] == '\r';
    ENSURE_MSG(cr >= 2 && cr <= 6, "%d redraws: %s", cr, buf);
    ENSURE(strstr(buf, "100.0%") && strstr(buf, "[##############################]"));
    ENSURE(n > 0 && buf[n - 1] == '\n');
    return ALC_TEST_PASS;
}

/// summary.txt goes through the atomic writer and its failure fails the run (issue 16, item 4):
/// with a non-empty directory where the file must go, the rename fails and `alcove run` exits 1
/// naming the file, instead of exiting 0 having written nothing.
ALC_TEST(output_summaryWriteErrorFailsTheRun) {
    const char* dir = alct_tmpDir("summary", "out");
    char sub[1200], cmd[4096];
    snprintf(sub, sizeof sub, "%s/summary.txt/keep", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", sub);
    ENSURE(system(cmd) == 0);
    const char* build = getenv("ALC_BUILD");
    snprintf(cmd, sizeof cmd,
             "%s/alcove run %s/scenes/box_drop.yaml --steps 2 --out '%s' --quiet 2>%s/err.txt",
             build ? build : "build", alct_rootDir(), dir, dir);
    int rc = system(cmd);
    ENSURE_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 1, "status %d", rc);
    char path[1300], buf[1024] = {0};
    snprintf(path, sizeof path, "%s/err.txt", dir);
    FILE* f = fopen(path, "r");
    ENSURE(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    ENSURE_MSG(strstr(buf, "summary.txt"), "%s", buf);
    return ALC_TEST_PASS;
}

/// The run's one contact log: pair and body rows stamped with step and time, a body name with a
/// comma quoted, every frame flushed as it is written.
ALC_TEST(output_contactLog) {
    char dir[64], path[128], err[256] = "";
    ENSURE(setup(dir, path, sizeof path, "contacts.csv"));
    alcModel m = tinyModel();
    static char names[] = "box\0floor, left";
    int nameadr[2] = {0, 4};
    m.names = names;
    m.nname = (int)sizeof names;
    m.body_nameadr = nameadr;
    alcContact c = {0, {1, 5, 6, 7}, {0, 1}, 1e-4, {0, 1, 0}, 9.81, {0.5, 0, 0}, 0.1, 1.0,
                    {1, 0.2, 0.3, 0.5}, {{0, 0, 0}, {0, -1e-4, 0}}};
    double force[6] = {0, 9.81, 0, 0, -9.81, 0};
    alciContactLog log;
    ENSURE_OK(alci_contactLog_open(&log, path, err, sizeof err));
    ENSURE_OK(alci_contactLog_write(&log, &m, 10, 0.1, &c, 1, force));
    // flushed: a reader sees the first frame before the log is closed
    unsigned char* s = readAll(path, NULL);
    ENSURE(s && strstr((char*)s, "10,0.1,pair,pt,1,5,6,7,0,1,"));
    free(s);
    ENSURE_OK(alci_contactLog_write(&log, &m, 20, 0.1 + 0.1, NULL, 0, force));
    ENSURE(log.rows == 5);
    ENSURE_OK(alci_contactLog_close(&log, err, sizeof err));
    ENSURE_OK(alci_contactLog_close(&log, err, sizeof err));  // safe twice

    s = readAll(path, NULL);
    ENSURE(s != NULL);
    const char* t = (const char*)s;
    ENSURE(!strncmp(t, "step,time,record,type,v0,v1,v2,v3,body0,body1,distance,nx,ny,nz,"
                       "normal_force,friction_x,friction_y,friction_z,lambda,gamma,body,name,fx,"
                       "fy,fz\n", 130));
    ENSURE_MSG(strstr(t, "10,0.1,pair,pt,1,5,6,7,0,1,0.0001,0,1,0,9.81,0.5,0,0,0.1,1,,,,,\n") &&
                   strstr(t, "10,0.1,body,,,,,,,,,,,,,,,,,,0,box,0,9.81,0\n") &&
                   strstr(t, "10,0.1,body,,,,,,,,,,,,,,,,,,1,\"floor, left\",0,-9.81,0\n") &&
                   strstr(t, "20,0.2,body,,,,,,,,,,,,,,,,,,1,"),
               "%s", t);
    // every row has the header's 25 fields (the quoted comma aside)
    int rows = 0;
    for (const char* line = t; *line; rows++) {
        const char* nl = strchr(line, '\n');
        ENSURE(nl);
        int commas = 0, quoted = 0;
        for (const char* q = line; q < nl; q++) {
            if (*q == '"') quoted = !quoted;
            commas += *q == ',' && !quoted;
        }
        ENSURE_MSG(commas == 24, "row %d has %d fields", rows, commas + 1);
        line = nl + 1;
    }
    ENSURE(rows == 6);
    free(s);
    removeTree(dir);
    return ALC_TEST_PASS;
}

/// An `alcove run` folder holds what was asked for and nothing else (issue 20, item 5): with
/// `--frames none --no-states` no frames/ or states/ folder and no topology; with `--contacts`
/// one contacts.csv; PLY frames come with their series index; and an earlier run's frames and
/// index in the same folder go. Times in stats.csv print in their shortest exact form.
ALC_TEST(output_runFolderLayout) {
    const char* dir = alct_tmpDir("layout", "out");
    const char* build = getenv("ALC_BUILD");
    char cmd[4096], path[1300];
    // first a run with VTU frames and states, then one without either into the same folder
    snprintf(cmd, sizeof cmd,
             "%s/alcove run %s/scenes/box_drop.yaml --steps 3 --out '%s' --quiet && "
             "%s/alcove run %s/scenes/box_drop.yaml --steps 20 --out '%s' --quiet --frames none "
             "--no-states --contacts",
             build ? build : "build", alct_rootDir(), dir, build ? build : "build", alct_rootDir(),
             dir);
    ENSURE(system(cmd) == 0);
    struct stat st;
    const char* gone[] = {"frames", "states", "contacts", "frames.pvd", "topology.alct"};
    for (int k = 0; k < 5; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, gone[k]);
        ENSURE_MSG(stat(path, &st) != 0, "%s exists", path);
    }
    snprintf(path, sizeof path, "%s/contacts.csv", dir);
    unsigned char* s = readAll(path, NULL);
    ENSURE(s && !strncmp((char*)s, "step,time,record,", 17));
    ENSURE_MSG(strstr((char*)s, "\n20,0.2,body,") != NULL, "%.300s", (char*)s);
    free(s);
    snprintf(path, sizeof path, "%s/stats.csv", dir);
    s = readAll(path, NULL);
    ENSURE(s && strstr((char*)s, "\n20,0.2,") && !strstr((char*)s, "0.20000000000000001"));
    free(s);

    // PLY frames: the frames and their series index
    snprintf(cmd, sizeof cmd,
             "%s/alcove run %s/scenes/box_drop.yaml --steps 2 --out '%s' --quiet --frames ply",
             build ? build : "build", alct_rootDir(), dir);
    ENSURE(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/frames.ply.series", dir);
    s = readAll(path, NULL);
    ENSURE(s && strstr((char*)s, "\"name\": \"frames/frame_000002.ply\", \"time\": 0.02}"));
    free(s);
    snprintf(path, sizeof path, "%s/contacts.csv", dir);
    ENSURE_MSG(stat(path, &st) != 0, "%s kept from the earlier run", path);
    return ALC_TEST_PASS;
}

/// Frames open in the readers people use (issue 20, item 1): every VTU frame of a short run of
/// every shipped scene, a raw (uncompressed) VTU and PLY frames, read by meshio and by VTK's XML
/// reader through tests/read_frames.py with Debian's /usr/bin/python3 (python3-meshio,
/// python3-vtk9); skipped with the reason where those are not installed.
ALC_TEST(output_framesOpenInMeshioAndVtk) {
    const char* py = "/usr/bin/python3";
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s -c 'import meshio, vtk' >/dev/null 2>&1", py);
    if (access(py, X_OK) != 0 || system(cmd) != 0) {
        alct_skipReason("%s with meshio and vtk not found (install python3-meshio python3-vtk9)",
                        py);
        return ALC_TEST_SKIP;
    }
    const char* dir = alct_tmpDir("readers", NULL);
    const char* build = getenv("ALC_BUILD");
    DIR* sd = opendir("scenes");
    ENSURE(sd);
    struct dirent* e;
    int nscene = 0;
    while ((e = readdir(sd))) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".yaml")) continue;
        // two steps of every scene at its CI size: the initial frame and two more
        snprintf(cmd, sizeof cmd,
                 "%s/alcove run scenes/%s --steps 2 --every 1 --no-states --quiet --out '%s/%.*s' "
                 ">/dev/null",
                 build ? build : "build", e->d_name, dir, (int)(len - 5), e->d_name);
        ENSURE_MSG(system(cmd) == 0, "%s", cmd);
        nscene++;
    }
    closedir(sd);
    ENSURE(nscene >= 10);
    // a raw frame and PLY frames beside them
    alcModel m = tinyModel();
    double x[27], v[27];
    tinyState(x, v);
    char path[1200], err[256];
    snprintf(path, sizeof path, "%s/raw.vtu", dir);
    ENSURE_OK(alci_frame_writeVtu(path, &m, x, v, 0.5, 0, err, sizeof err));
    snprintf(path, sizeof path, "%s/tiny.ply", dir);
    ENSURE_OK(alci_frame_writePly(path, &m, x, v, err, sizeof err));
    snprintf(cmd, sizeof cmd,
             "%s/alcove run scenes/box_drop.yaml --steps 2 --frames ply --no-states --quiet "
             "--out '%s/ply' >/dev/null",
             build ? build : "build", dir);
    ENSURE(system(cmd) == 0);

    snprintf(cmd, sizeof cmd,
             "%s tests/read_frames.py %s/*/frames/*.vtu %s/raw.vtu %s/tiny.ply %s/ply/frames/*.ply "
             "> %s/read.txt 2>&1",
             py, dir, dir, dir, dir, dir);
    int rc = system(cmd);
    snprintf(path, sizeof path, "%s/read.txt", dir);
    unsigned char* out = readAll(path, NULL);
    ENSURE(out);
    char* nl = strrchr((char*)out, '\n');
    if (nl) *nl = 0;
    alct_note("%s", strrchr((char*)out, '\n') ? strrchr((char*)out, '\n') + 1 : (char*)out);
    ENSURE_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "%s", (char*)out);
    free(out);
    return ALC_TEST_PASS;
}
