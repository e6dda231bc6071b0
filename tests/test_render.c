// `alcove render` and `alcove plot` (issue 20, item 4): a small run rendered to PNG, the image
// decoded and looked at (size, not blank, the falling box where its camera says it is, the
// ground grey), the statistics plotted. Skipped with the reason where POV-Ray or gnuplot is
// not installed.
#include "state_io.h"
#include "test_files.h"
#include "test_macros.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <zlib.h>

/// An 8-bit RGB image decoded from a PNG (colour types 2 and 6, not interlaced).
typedef struct {
    int w, h;
    unsigned char* rgb;  // w x h x 3
} Image;

static uint32_t be32(const unsigned char* p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c) {
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
}

/// Decode path into img; 0 on success, else a message in why.
static int readPng(const char* path, Image* img, char* why, size_t nwhy) {
    memset(img, 0, sizeof *img);
    FILE* f = fopen(path, "rb");
    if (!f) return snprintf(why, nwhy, "cannot open %s", path), -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char* d = (unsigned char*)malloc((size_t)n);
    unsigned char* idat = (unsigned char*)malloc((size_t)n);
    int ok = d && idat && fread(d, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    static const unsigned char sig[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
    if (!ok || n < 8 || memcmp(d, sig, 8)) {
        free(d);
        free(idat);
        return snprintf(why, nwhy, "%s: not a PNG", path), -1;
    }
    size_t nidat = 0;
    int depth = 0, ctype = -1, interlace = 0;
    for (long at = 8; at + 12 <= n;) {
        uint32_t len = be32(d + at);
        const unsigned char* type = d + at + 4;
        if ((long)len > n - at - 12) break;
        if (!memcmp(type, "IHDR", 4)) {
            img->w = (int)be32(d + at + 8);
            img->h = (int)be32(d + at + 12);
            depth = d[at + 16];
            ctype = d[at + 17];
            interlace = d[at + 20];
        } else if (!memcmp(type, "IDAT", 4)) {
            memcpy(idat + nidat, d + at + 8, len);
            nidat += len;
        }
        at += 12 + (long)len;
    }
    free(d);
    int bpp = ctype == 2 ? 3 : (ctype == 6 ? 4 : 0);
    if (depth != 8 || !bpp || interlace || img->w <= 0 || img->h <= 0) {
        free(idat);
        return snprintf(why, nwhy, "%s: depth %d, colour type %d, interlace %d unsupported", path,
                        depth, ctype, interlace),
               -1;
    }
    size_t stride = (size_t)img->w * (size_t)bpp;
    uLongf raw = (uLongf)((stride + 1) * (size_t)img->h);
    unsigned char* px = (unsigned char*)malloc(raw);
    img->rgb = (unsigned char*)malloc((size_t)img->w * (size_t)img->h * 3);
    if (!px || !img->rgb || uncompress(px, &raw, idat, (uLong)nidat) != Z_OK ||
        raw != (stride + 1) * (size_t)img->h) {
        free(idat);
        free(px);
        free(img->rgb);
        img->rgb = NULL;
        return snprintf(why, nwhy, "%s: bad image data", path), -1;
    }
    free(idat);
    // undo the row filters in place
    for (int y = 0; y < img->h; y++) {
        unsigned char* row = px + (size_t)y * (stride + 1);
        unsigned char* cur = row + 1;
        const unsigned char* prev = y ? px + (size_t)(y - 1) * (stride + 1) + 1 : NULL;
        for (size_t i = 0; i < stride; i++) {
            int a = i >= (size_t)bpp ? cur[i - (size_t)bpp] : 0, b = prev ? prev[i] : 0,
                c = prev && i >= (size_t)bpp ? prev[i - (size_t)bpp] : 0;
            int pred = row[0] == 1 ? a : row[0] == 2 ? b : row[0] == 3 ? (a + b) / 2
                                                       : row[0] == 4 ? paeth(a, b, c)
                                                                     : 0;
            cur[i] = (unsigned char)(cur[i] + pred);
        }
        for (int x = 0; x < img->w; x++)
            memcpy(img->rgb + 3 * ((size_t)y * (size_t)img->w + (size_t)x), cur + (size_t)x * (size_t)bpp, 3);
    }
    free(px);
    return 0;
}

static const unsigned char* pixel(const Image* img, int x, int y) {
    return img->rgb + 3 * ((size_t)y * (size_t)img->w + (size_t)x);
}

/// Pixel (px, py) of world point c seen by the pinhole camera render wrote (location L, look_at
/// C, up U, horizontal angle, w x h square pixels); 0 when it falls outside the image.
static int project(const double L[3], const double C[3], const double U[3], double angle, int w,
                   int h, const double c[3], int* px, int* py) {
    // forward f, right r = f x up, true up u = r x f
    double fw[3], r[3], u[3], d[3], nf = 0, nr = 0;
    for (int k = 0; k < 3; k++) {
        fw[k] = C[k] - L[k];
        nf += fw[k] * fw[k];
        d[k] = c[k] - L[k];
    }
    for (int k = 0; k < 3; k++) fw[k] /= sqrt(nf);
    r[0] = fw[1] * U[2] - fw[2] * U[1];
    r[1] = fw[2] * U[0] - fw[0] * U[2];
    r[2] = fw[0] * U[1] - fw[1] * U[0];
    for (int k = 0; k < 3; k++) nr += r[k] * r[k];
    for (int k = 0; k < 3; k++) r[k] /= sqrt(nr);
    u[0] = r[1] * fw[2] - r[2] * fw[1];
    u[1] = r[2] * fw[0] - r[0] * fw[2];
    u[2] = r[0] * fw[1] - r[1] * fw[0];
    double depth = d[0] * fw[0] + d[1] * fw[1] + d[2] * fw[2];
    double t = tan(0.5 * angle * M_PI / 180);
    double sx = (d[0] * r[0] + d[1] * r[1] + d[2] * r[2]) / depth / t;
    double sy = (d[0] * u[0] + d[1] * u[1] + d[2] * u[2]) / depth / t;
    *px = (int)lround(0.5 * w * (1 + sx));
    *py = (int)lround(0.5 * h - 0.5 * w * sy);
    return depth > 0 && *px >= 0 && *px < w && *py >= 0 && *py < h;
}

static int have(const char* prog) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
    return system(cmd) == 0;
}

/// Run `alcove ARGS` (the build's); its exit status.
static int alcove(const char* args) {
    const char* build = getenv("ALC_BUILD");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/alcove %s", build ? build : "build", args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// The box of box_drop (body 0, blue) falls onto the plane (grey): in the front view's last
/// picture the box's centre, projected with the camera render wrote, is blue; the picture's
/// bottom rows (below the plane, seen edge-on) are background white; something is drawn.
ALC_TEST(render_boxDropPicture) {
    if (!have("povray")) {
        alct_skipReason("povray not installed (apt-get install povray)");
        return ALC_TEST_SKIP;
    }
    const char* dir = alct_tmpDir("render", "run");
    char args[2048];
    snprintf(args, sizeof args,
             "run %s/scenes/box_drop.yaml --steps 4 --every 2 --quiet --out '%s' > /dev/null",
             alct_rootDir(), dir);
    ENSURE(alcove(args) == 0);
    snprintf(args, sizeof args, "render '%s' --views front,persp --size 160x120 --quiet", dir);
    ENSURE(alcove(args) == 0);

    // the camera and the box centre at step 4 (the last state)
    char path[1200];
    snprintf(path, sizeof path, "%s/render/front/camera.json", dir);
    FILE* f = fopen(path, "r");
    ENSURE(f);
    double L[3], C[3], U[3], angle;
    int w, h;
    int got = fscanf(f,
                     "{\"location\": [%lf, %lf, %lf], \"look_at\": [%lf, %lf, %lf], \"up\": [%lf, "
                     "%lf, %lf], \"angle_deg\": %lf, \"width\": %d, \"height\": %d}",
                     &L[0], &L[1], &L[2], &C[0], &C[1], &C[2], &U[0], &U[1], &U[2], &angle, &w, &h);
    fclose(f);
    ENSURE(got == 12 && w == 160 && h == 120);

    Image img;
    char why[256];
    snprintf(path, sizeof path, "%s/render/front/frame_000004.png", dir);
    ENSURE_MSG(readPng(path, &img, why, sizeof why) == 0, "%s", why);
    ENSURE(img.w == 160 && img.h == 120);
    long drawn = 0;
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++) drawn += pixel(&img, x, y)[0] < 240 || pixel(&img, x, y)[2] < 240;
    // the 0.5 m box in a frame about 6 m across: some 100 to 200 pixels of 19,200
    ENSURE_MSG(drawn > 50 && drawn < img.w * img.h / 2, "%ld pixels drawn", drawn);

    // the box (body 0) at step 4: its centroid from the exact state, projected with the camera
    alciTopology topo;
    char err[512];
    snprintf(path, sizeof path, "%s/topology.alct", dir);
    ENSURE_OK(alci_state_readTopology(path, &topo, err, sizeof err));
    snprintf(path, sizeof path, "%s/states/state_000004.alcs", dir);
    long step;
    double time, *x = NULL, *v = NULL;
    int nvert;
    ENSURE_OK(alci_state_read(path, &step, &time, &nvert, &x, &v, err, sizeof err));
    double c[3] = {0, 0, 0};
    int b0 = topo.body_vertadr[0], nb = topo.body_vertnum[0];
    for (int i = b0; i < b0 + nb; i++)
        for (int k = 0; k < 3; k++) c[k] += x[3 * i + k] / nb;
    free(x);
    free(v);
    alci_state_freeTopology(&topo);
    int px, py, qx, qy;
    ENSURE(project(L, C, U, angle, w, h, c, &px, &py));
    const unsigned char* p = pixel(&img, px, py);
    alct_note("front view: box centre (%.3f, %.3f, %.3f) m at pixel (%d, %d): rgb %d %d %d", c[0],
              c[1], c[2], px, py, p[0], p[1], p[2]);
    ENSURE_MSG(p[2] > p[0] + 40, "not the box's blue at (%d, %d)", px, py);
    // 0.6 m to its right (the box is 0.5 m wide): not the box
    double beside[3] = {c[0] + 0.6, c[1], c[2]};
    ENSURE(project(L, C, U, angle, w, h, beside, &qx, &qy));
    p = pixel(&img, qx, qy);
    ENSURE_MSG(qx > px + 5 && !(p[2] > p[0] + 40), "box colour at (%d, %d), right of the box", qx,
               qy);
    // the bottom rows: white background under the plane
    for (int col = 0; col < img.w; col++) {
        const unsigned char* q = pixel(&img, col, img.h - 1);
        ENSURE_MSG(q[0] > 240 && q[1] > 240 && q[2] > 240, "bottom row not background at x=%d",
                   col);
    }
    free(img.rgb);

    // the video of each view
    snprintf(path, sizeof path, "%s/render/persp.mp4", dir);
    if (have("ffmpeg")) {
        f = fopen(path, "rb");
        ENSURE_MSG(f, "no %s", path);
        fclose(f);
    }
    return ALC_TEST_PASS;
}

/// `alcove plot`: a PNG of the requested size with something drawn on it; a folder without
/// statistics is refused with exit status 2.
ALC_TEST(render_plotStatistics) {
    if (!have("gnuplot")) {
        alct_skipReason("gnuplot not installed (apt-get install gnuplot-nox)");
        return ALC_TEST_SKIP;
    }
    const char* dir = alct_tmpDir("plot", "run");
    char args[2048];
    snprintf(args, sizeof args,
             "run %s/scenes/box_drop.yaml --steps 20 --frames none --no-states --quiet --out "
             "'%s' > /dev/null",
             alct_rootDir(), dir);
    ENSURE(alcove(args) == 0);
    snprintf(args, sizeof args, "plot '%s' --size 600x450 > /dev/null", dir);
    ENSURE(alcove(args) == 0);
    char path[1200], why[256];
    snprintf(path, sizeof path, "%s/stats.png", dir);
    Image img;
    ENSURE_MSG(readPng(path, &img, why, sizeof why) == 0, "%s", why);
    ENSURE(img.w == 600 && img.h == 450);
    long dark = 0;
    for (int y = 0; y < img.h; y++)
        for (int x = 0; x < img.w; x++) dark += pixel(&img, x, y)[0] < 128;
    ENSURE_MSG(dark > 1000, "%ld dark pixels", dark);
    free(img.rgb);
    snprintf(args, sizeof args, "plot '%s/nowhere' 2> /dev/null", dir);
    ENSURE(alcove(args) == 2);
    return ALC_TEST_PASS;
}
