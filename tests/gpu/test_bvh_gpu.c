// Device LBVH broad phase (cuda/bvh.h) against the reference brute-force oracle
// (alcr_broad_bruteForcePT/EE): exact equality of the sorted pair lists on the motions of every
// GPU test scene and on random stress motions, ties (every box identical), empty inputs, the
// overflow path (a small cap: ALC_ERR_CAPACITY with the true count, guard words untouched, a
// redo with the grown buffer), argument errors, and the Morton helper (host/hd/alcm_morton.h).
#include "../../cuda/bvh.h"
#include "../test_macros.h"
#include "gpu_fixture.h"
#include "hd/alcm_morton.h"
#include "ref/broad_ref.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_PAIRS 64    // pairs of guard words after a device pair buffer
#define GUARD_BYTE  0xA5  // their byte value

// ---- device copies of a broad-phase input ----------------------------------------------------

typedef struct {
    alcgBroadInput in;  // device pointers
    double* x0;
    double* x1;
    int* svert;
    int* edge;
    int* tri;
    unsigned char* passive;  // NULL when the input has none
} DevInput;

static void devFree(DevInput* d) {
    alcg_free(d->x0);
    alcg_free(d->x1);
    alcg_free(d->svert);
    alcg_free(d->edge);
    alcg_free(d->tri);
    alcg_free(d->passive);
    memset(d, 0, sizeof *d);
}

// allocate and upload one array (n bytes); NULL stays NULL
static alctStatus upload(alcgStream* s, void** d, const void* h, size_t n) {
    *d = NULL;
    if (!h || n == 0) return ALC_OK;
    alctStatus st = alcg_malloc(s, d, n);
    if (st == ALC_OK) st = alcg_upload(s, *d, h, n);
    return st;
}

static alctStatus devUpload(alcgStream* s, const alcrBroadInput* h, DevInput* d) {
    memset(d, 0, sizeof *d);
    size_t nv = (size_t)h->nvert;
    alctStatus st = upload(s, (void**)&d->x0, h->x0, nv * 3 * sizeof(double));
    if (st == ALC_OK) st = upload(s, (void**)&d->x1, h->x1, nv * 3 * sizeof(double));
    if (st == ALC_OK) st = upload(s, (void**)&d->svert, h->svert, (size_t)h->nsvert * sizeof(int));
    if (st == ALC_OK) st = upload(s, (void**)&d->edge, h->edge, (size_t)h->nedge * 2 * sizeof(int));
    if (st == ALC_OK) st = upload(s, (void**)&d->tri, h->tri, (size_t)h->ntri * 3 * sizeof(int));
    if (st == ALC_OK) st = upload(s, (void**)&d->passive, h->vert_passive, nv);
    d->in.nvert = h->nvert;
    d->in.x0 = d->x0;
    d->in.x1 = d->x1;
    d->in.nsvert = h->nsvert;
    d->in.svert = d->svert;
    d->in.nedge = h->nedge;
    d->in.edge = d->edge;
    d->in.ntri = h->ntri;
    d->in.tri = d->tri;
    d->in.vert_passive = d->passive;
    d->in.inflate = h->inflate;
    if (st != ALC_OK) devFree(d);
    return st;
}

// ---- inputs
// ---------------------------------------------------------------------------------------

static alcrBroadInput motionInput(const alctMotion* mo, double inflate, int usePassive) {
    alcrBroadInput in;
    memset(&in, 0, sizeof in);
    in.nvert = mo->nvert;
    in.x0 = mo->x0;
    in.x1 = mo->x1;
    in.nsvert = mo->m->nsvert;
    in.svert = mo->m->svert;
    in.nedge = mo->m->nedge;
    in.edge = mo->m->edge_vert;
    in.ntri = mo->m->ntri;
    in.tri = mo->m->tri_vert;
    in.vert_passive = usePassive ? mo->passive : NULL;
    in.inflate = inflate;
    return in;
}

// diagonal of the box of x0
static double diagonal(const alctMotion* mo) {
    alcAabb b = alcm_aabb_empty();
    for (int v = 0; v < mo->nvert; v++) b = alcm_aabb_addPoint(b, alcm_v3_load(mo->x0 + 3 * v));
    return mo->nvert > 0 ? alcm_v3_norm(alcm_v3_sub(b.hi, b.lo)) : 0;
}

// ---- reference and device lists
// ------------------------------------------------------------------

typedef alctStatus (*BruteFn)(const alcrBroadInput*, int, int*, int*);
typedef alctStatus (*QueryFn)(alcgBvh*, const alcgBroadInput*, int, int*, int*, void*, size_t*,
                              alcgStream*);

// the oracle's sorted list (malloc'd, at least one pair of room); NULL on failure
static int* bruteList(const alcrBroadInput* in, BruteFn bf, int* n) {
    int count = 0;
    alctStatus st = bf(in, 0, NULL, &count);
    if (st != ALC_OK && st != ALC_ERR_CAPACITY) return NULL;
    int* pairs = (int*)malloc(sizeof(int) * 2 * (size_t)(count + 1));
    if (!pairs) return NULL;
    int again = -1;
    if (bf(in, count, pairs, &again) != ALC_OK || again != count) {
        free(pairs);
        return NULL;
    }
    *n = count;
    return pairs;
}

// a device pair buffer of cap pairs followed by guard words, with the query's scratch
typedef struct {
    int cap;
    int* d_pairs;  // (cap + GUARD_PAIRS) x 2 [device]
    void* d_temp;
    size_t tempBytes;
} PairBuf;

static void bufFree(PairBuf* b) {
    alcg_free(b->d_pairs);
    alcg_free(b->d_temp);
    memset(b, 0, sizeof *b);
}

static alctStatus bufMake(alcgStream* s, QueryFn q, int cap, PairBuf* b) {
    memset(b, 0, sizeof *b);
    b->cap = cap;
    size_t bytes = (size_t)(cap + GUARD_PAIRS) * 2 * sizeof(int);
    alctStatus st = q(NULL, NULL, cap, NULL, NULL, NULL, &b->tempBytes, s);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&b->d_pairs, bytes);
    if (st == ALC_OK) st = alcg_memset(s, b->d_pairs, GUARD_BYTE, bytes);
    if (st == ALC_OK) st = alcg_malloc(s, &b->d_temp, b->tempBytes);
    if (st != ALC_OK) bufFree(b);
    return st;
}

// the buffer's cap pairs and guard words on the host (malloc'd)
static int* bufDownload(alcgStream* s, const PairBuf* b) {
    size_t bytes = (size_t)(b->cap + GUARD_PAIRS) * 2 * sizeof(int);
    int* h = (int*)malloc(bytes);
    if (h && alcg_download(s, h, b->d_pairs, bytes) != ALC_OK) {
        free(h);
        return NULL;
    }
    return h;
}

// the guard words after cap pairs are untouched
static int guardsIntact(const int* h, int cap) {
    const unsigned char* g = (const unsigned char*)(h + 2 * (size_t)cap);
    for (size_t k = 0; k < GUARD_PAIRS * 2 * sizeof(int); k++) {
        if (g[k] != GUARD_BYTE) return 0;
    }
    return 1;
}

static int cmpPair(const void* a, const void* b) {
    const int* p = (const int*)a;
    const int* q = (const int*)b;
    if (p[0] != q[0]) return p[0] < q[0] ? -1 : 1;
    return p[1] < q[1] ? -1 : (p[1] > q[1] ? 1 : 0);
}

// query with a buffer of exactly the reference count and compare the lists; returns a message
// or NULL
static const char* compareQuery(alcgStream* s, alcgBvh* bvh, const DevInput* d, QueryFn q,
                                const int* ref, int nref) {
    PairBuf b;
    if (bufMake(s, q, nref, &b) != ALC_OK) return "buffer allocation failed";
    const char* err = NULL;
    int count = -1;
    alctStatus st = q(bvh, &d->in, nref, b.d_pairs, &count, b.d_temp, &b.tempBytes, s);
    int* h = st == ALC_OK ? bufDownload(s, &b) : NULL;
    if (st != ALC_OK) {
        fprintf(stderr, "  query: status %d (%s), count %d of %d\n", st, s->err, count, nref);
        err = "query failed";
    } else if (!h) {
        err = "download failed";
    } else if (count != nref) {
        fprintf(stderr, "  count %d, reference %d\n", count, nref);
        err = "counts differ";
    } else if (memcmp(h, ref, sizeof(int) * 2 * (size_t)nref) != 0) {
        err = "lists differ";
    } else if (!guardsIntact(h, nref)) {
        err = "guard words overwritten";
    }
    free(h);
    bufFree(&b);
    return err;
}

// build over in, then PT and EE against the oracle; returns a message or NULL
static const char* compareInput(alcgStream* s, const alcrBroadInput* in, int* npt, int* nee) {
    const char* err = NULL;
    alcgBvh* bvh = NULL;
    DevInput d;
    int* pt = bruteList(in, alcr_broad_bruteForcePT, npt);
    int* ee = bruteList(in, alcr_broad_bruteForceEE, nee);
    memset(&d, 0, sizeof d);
    if (!pt || !ee) err = "reference failed";
    if (!err && devUpload(s, in, &d) != ALC_OK) err = "upload failed";
    if (!err && alcg_bvh_make(in->nsvert, in->nedge, in->ntri, &bvh, s) != ALC_OK) {
        err = "make failed";
    }
    if (!err && alcg_bvh_build(bvh, &d.in, s) != ALC_OK) err = "build failed";
    if (!err) err = compareQuery(s, bvh, &d, alcg_bvh_queryPT, pt, *npt);
    if (!err) err = compareQuery(s, bvh, &d, alcg_bvh_queryEE, ee, *nee);
    if (err && s->err[0]) fprintf(stderr, "  %s\n", s->err);
    alcg_bvh_free(bvh);
    devFree(&d);
    free(pt);
    free(ee);
    return err;
}

// ---- tests
// ----------------------------------------------------------------------------------------

ALC_TEST(bvh_morton) {
    // bit spreading, the interleave order (x highest) and clamping
    ENSURE(alcm_morton_expand10(0x3ffu) == 0x09249249u);
    ENSURE(alcm_morton_expand10(1u) == 1u && alcm_morton_expand10(2u) == 8u);
    ENSURE(alcm_morton_code3(0, 0, 0) == 0u);
    ENSURE(alcm_morton_code3(1, 1, 1) == 0x3fffffffu);
    ENSURE(alcm_morton_code3(2, -1, NAN) == 0x24924924u);
    ENSURE(alcm_morton_code3(0.5, 0, 0) == 1u << 29);
    ENSURE(alcm_morton_code3(0, 0.5, 0) == 1u << 28);
    ENSURE(alcm_morton_code3(0, 0, 0.5) == 1u << 27);

    // a point box codes to the middle; the codes order along each axis
    alcAabb pt = alcm_aabb_point(alcm_v3(1, 2, 3));
    ENSURE(alcm_morton_point(alcm_v3(1, 2, 3), pt) == alcm_morton_code3(0.5, 0.5, 0.5));
    alcAabb box = {{0, 0, 0}, {4, 4, 4}};
    uint32_t prev = 0;
    for (int k = 0; k < 1024; k++) {
        uint32_t c = alcm_morton_point(alcm_v3(4.0 * k / 1023.0, 0, 0), box);
        ENSURE(k == 0 || c > prev);
        prev = c;
    }
    return ALC_TEST_PASS;
}

ALC_TEST(bvh_scenes) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    for (int k = 0; alct_gpuScenes[k]; k++) {
        alctMotion mo;
        ENSURE_MSG(alct_motionMake(alct_gpuScenes[k], 2, 20.0, &mo), "%s", alct_gpuScenes[k]);
        // the CCD inflation (half the contact offset), then a coarse one with many pairs
        double inflate[2] = {0.5 * mo.m->opt.delta, 0.01 * diagonal(&mo)};
        for (int c = 0; c < 2; c++) {
            alcrBroadInput in = motionInput(&mo, inflate[c], 1);
            int npt = 0, nee = 0;
            const char* err = compareInput(&s, &in, &npt, &nee);
            ENSURE_MSG(!err, "%s, inflate %g: %s", alct_gpuScenes[k], inflate[c], err);
            if (c == 1) alct_note("%-18s %6d PT %7d EE", alct_gpuScenes[k], npt, nee);
        }
        alct_motionFree(&mo);
    }
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}

ALC_TEST(bvh_random) {
    // soups of tetrahedra: few and many bodies, short and long sweeps, with and without passive
    static const struct {
        unsigned seed;
        int nbody;
        double reach, inflate;
        int passive;
    } cases[] = {
        {1, 1, 0.5, 0.0, 1},     {2, 2, 0.5, 0.01, 0},     {3, 7, 0.2, 0.0, 1},
        {4, 60, 0.1, 0.001, 1},  {5, 500, 0.05, 0.0, 0},   {6, 500, 0.2, 0.002, 1},
        {7, 2500, 0.02, 0.0, 1}, {8, 2500, 0.05, 1e-3, 0},
    };
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        alctMotion mo;
        ENSURE(alct_motionRandom(cases[k].seed, cases[k].nbody, cases[k].reach, &mo));
        alcrBroadInput in = motionInput(&mo, cases[k].inflate, cases[k].passive);
        int npt = 0, nee = 0;
        const char* err = compareInput(&s, &in, &npt, &nee);
        ENSURE_MSG(!err, "case %zu (%d bodies): %s", k, cases[k].nbody, err);
        alct_note("%4d bodies reach %.2f: %6d PT %7d EE", cases[k].nbody, cases[k].reach, npt, nee);
        alct_motionFree(&mo);
    }
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}

ALC_TEST(bvh_ties_and_empty) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    alctMotion mo;
    ENSURE(alct_motionRandom(11, 40, 0.1, &mo));

    // every vertex at one point: identical boxes and Morton codes, a zero-extent scene box;
    // every pair overlaps, so only the exclusions and i < j thin the lists
    double* x = (double*)malloc(sizeof(double) * 3 * (size_t)mo.nvert);
    ENSURE(x);
    for (int v = 0; v < 3 * mo.nvert; v++) x[v] = 0.25;
    alcrBroadInput in = motionInput(&mo, 0.0, 1);
    in.x0 = in.x1 = x;
    int npt = 0, nee = 0;
    const char* err = compareInput(&s, &in, &npt, &nee);
    ENSURE_MSG(!err, "identical boxes: %s", err);
    ENSURE(npt > 0 && nee > 0);

    // no triangles, no edges, no points: empty lists; one primitive of each
    alcrBroadInput e = motionInput(&mo, 0.0, 1);
    e.ntri = 0;
    err = compareInput(&s, &e, &npt, &nee);
    ENSURE_MSG(!err && npt == 0, "no triangles: %s", err ? err : "pairs found");
    e = motionInput(&mo, 0.0, 1);
    e.nedge = 0;
    e.nsvert = 0;
    err = compareInput(&s, &e, &npt, &nee);
    ENSURE_MSG(!err && npt == 0 && nee == 0, "no queries: %s", err ? err : "pairs found");
    e = motionInput(&mo, 1.0, 0);
    e.ntri = 1;
    e.nedge = 1;
    err = compareInput(&s, &e, &npt, &nee);
    ENSURE_MSG(!err, "one primitive: %s", err);
    free(x);
    alct_motionFree(&mo);
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}

// overflow of one query: the true count, nothing past cap, the pairs written among the
// reference's, then a redo with the grown buffer gives the whole list
static int overflowOne(alcgStream* s, alcgBvh* bvh, const DevInput* d, QueryFn q, const int* ref,
                       int nref) {
    ENSURE(nref > 8);
    int caps[3] = {0, 1, nref / 3};
    for (int c = 0; c < 3; c++) {
        PairBuf b;
        ENSURE_OK(bufMake(s, q, caps[c], &b));
        int count = -1;
        alctStatus st = q(bvh, &d->in, caps[c], b.d_pairs, &count, b.d_temp, &b.tempBytes, s);
        ENSURE_MSG(st == ALC_ERR_CAPACITY, "cap %d: status %d", caps[c], st);
        ENSURE_MSG(count == nref, "cap %d: count %d, reference %d", caps[c], count, nref);
        int* h = bufDownload(s, &b);
        ENSURE(h);
        ENSURE_MSG(guardsIntact(h, caps[c]), "cap %d: guard words overwritten", caps[c]);
        qsort(h, (size_t)caps[c], 2 * sizeof(int), cmpPair);
        for (int k = 0; k < caps[c]; k++) {
            ENSURE(bsearch(h + 2 * k, ref, (size_t)nref, 2 * sizeof(int), cmpPair));
            ENSURE(k == 0 || cmpPair(h + 2 * k - 2, h + 2 * k) < 0);
        }
        free(h);
        bufFree(&b);
    }

    // grown to the count, no rebuild: the whole sorted list
    PairBuf b;
    ENSURE_OK(bufMake(s, q, nref, &b));
    int count = -1;
    ENSURE_OK(q(bvh, &d->in, nref, b.d_pairs, &count, b.d_temp, &b.tempBytes, s));
    int* h = bufDownload(s, &b);
    ENSURE(h && count == nref);
    ENSURE(memcmp(h, ref, sizeof(int) * 2 * (size_t)nref) == 0);
    ENSURE(guardsIntact(h, nref));
    free(h);
    bufFree(&b);
    return ALC_TEST_PASS;
}

ALC_TEST(bvh_overflow) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    alctMotion mo;
    ENSURE(alct_motionRandom(21, 300, 0.1, &mo));
    alcrBroadInput in = motionInput(&mo, 0.002, 1);
    int npt = 0, nee = 0;
    int* pt = bruteList(&in, alcr_broad_bruteForcePT, &npt);
    int* ee = bruteList(&in, alcr_broad_bruteForceEE, &nee);
    ENSURE(pt && ee);
    DevInput d;
    alcgBvh* bvh = NULL;
    ENSURE_OK(devUpload(&s, &in, &d));
    ENSURE_OK(alcg_bvh_make(in.nsvert, in.nedge, in.ntri, &bvh, &s));
    ENSURE_OK(alcg_bvh_build(bvh, &d.in, &s));
    if (overflowOne(&s, bvh, &d, alcg_bvh_queryPT, pt, npt) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    if (overflowOne(&s, bvh, &d, alcg_bvh_queryEE, ee, nee) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    alct_note("PT %d, EE %d pairs", npt, nee);

    // scratch smaller than the size asked for: refused before anything is written
    PairBuf b;
    ENSURE_OK(bufMake(&s, alcg_bvh_queryPT, npt, &b));
    size_t small = b.tempBytes / 2;
    int count = -1;
    ENSURE(alcg_bvh_queryPT(bvh, &d.in, npt, b.d_pairs, &count, b.d_temp, &small, &s) ==
           ALC_ERR_INVALID_ARG);
    bufFree(&b);
    alcg_bvh_free(bvh);
    devFree(&d);
    free(pt);
    free(ee);
    alct_motionFree(&mo);
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}

ALC_TEST(bvh_errors) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    alctMotion mo;
    ENSURE(alct_motionRandom(31, 10, 0.1, &mo));
    alcrBroadInput in = motionInput(&mo, 0.0, 1);
    DevInput d;
    alcgBvh* bvh = NULL;
    ENSURE_OK(devUpload(&s, &in, &d));
    alcg_bvh_free(NULL);
    ENSURE(alcg_bvh_make(-1, 0, 0, &bvh, &s) == ALC_ERR_INVALID_ARG && bvh == NULL);

    // capacities below the input
    ENSURE_OK(alcg_bvh_make(in.nsvert, in.nedge, in.ntri - 1, &bvh, &s));
    ENSURE(alcg_bvh_build(bvh, &d.in, &s) == ALC_ERR_CAPACITY);
    alcg_bvh_free(bvh);
    ENSURE_OK(alcg_bvh_make(in.nsvert, in.nedge, in.ntri, &bvh, &s));

    // a query before any build, a bad inflation, a query of another input
    PairBuf b;
    ENSURE_OK(bufMake(&s, alcg_bvh_queryPT, 16, &b));
    int count = -1;
    ENSURE(alcg_bvh_queryPT(bvh, &d.in, 16, b.d_pairs, &count, b.d_temp, &b.tempBytes, &s) ==
           ALC_ERR_INVALID_ARG);
    alcgBroadInput bad = d.in;
    bad.inflate = NAN;
    ENSURE(alcg_bvh_build(bvh, &bad, &s) == ALC_ERR_INVALID_ARG);
    bad.inflate = -1;
    ENSURE(alcg_bvh_build(bvh, &bad, &s) == ALC_ERR_INVALID_ARG);
    ENSURE_OK(alcg_bvh_build(bvh, &d.in, &s));
    bad = d.in;
    bad.ntri--;
    ENSURE(alcg_bvh_queryPT(bvh, &bad, 16, b.d_pairs, &count, b.d_temp, &b.tempBytes, &s) ==
           ALC_ERR_INVALID_ARG);
    ENSURE(strstr(s.err, "alcg_bvh_queryPT") != NULL);
    bufFree(&b);
    alcg_bvh_free(bvh);
    devFree(&d);
    alct_motionFree(&mo);
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}
