// cuda/tet_bound.cu against alcr_elastic_maxStep and alcr_elastic_endStep (host/ref/
// elastic_ref.c): the bound over all tetrahedra, per tetrahedron (the reference leaves its
// per-tetrahedron values in B->redScratch) for a sample and, through alcg_tetBound_perTet, for
// all, the end-point bound below three caps, and the tetrahedra that would become guards
// (alcr_elastic_limitingTets against alcm_tet_guardSelect on the device's bounds), on scene and
// random motions.
#include "../../cuda/tet_bound.h"
#include "../test_macros.h"
#include "alc_internal.h"
#include "gpu_fixture.h"
#include "hd/alcm_elastic.h"
#include "ref/backend_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Relative tolerance of the device bound: 0 in the emulation (the same alcm_ functions compiled
/// by the same host compiler: bit-identical); 1e-12 on a device, where FMA contraction moves the
/// cubic's coefficients by ulps (the bisection itself stops at 1e-10 relative, so a decision
/// flipped by those ulps right at the root could exceed this; none is expected in practice).
#if defined(ALC_EMU)
#define BOUND_RTOL 0.0
#else
#define BOUND_RTOL 1e-12
#endif

/// Per-tetrahedron checks of the jittered motion (spread over the mesh); every comparison also
/// checks the limiting tetrahedron alone.
#define SAMPLES 32

/// Device copies of a motion's tetrahedra and positions.
typedef struct {
    alcgStream s;
    alcgTetMesh mesh;
    int* d_tet_vert;
    double* d_tet_vol;
    int* d_tet_model;
    unsigned char* d_kin;
    double* d_from;
    double* d_to;
    double* d_bound;  // alcg_tetBound_perTet's output (ntet)
    double* h_bound;  // its host copy
    int* h_sel[2];    // guard selections: the reference's, the device's (ntet each)
    void* d_temp;
    size_t tempBytes;
} Dev;

static int devMake(Dev* D, const alcModel* m, const alcrBackend* B) {
    memset(D, 0, sizeof *D);
    if (alcg_stream_make(&D->s) != ALC_OK) return 0;
    size_t nt = (size_t)m->ntet, N = 3 * (size_t)m->nvert;
    int ok = alcg_malloc(&D->s, (void**)&D->d_tet_vert, sizeof(int) * 4 * nt) == ALC_OK &&
             alcg_malloc(&D->s, (void**)&D->d_tet_vol, sizeof(double) * nt) == ALC_OK &&
             alcg_malloc(&D->s, (void**)&D->d_tet_model, sizeof(int) * nt) == ALC_OK &&
             alcg_malloc(&D->s, (void**)&D->d_kin, (size_t)m->nvert) == ALC_OK &&
             alcg_malloc(&D->s, (void**)&D->d_from, sizeof(double) * N) == ALC_OK &&
             alcg_malloc(&D->s, (void**)&D->d_to, sizeof(double) * N) == ALC_OK &&
             alcg_malloc(&D->s, (void**)&D->d_bound, sizeof(double) * (nt ? nt : 1)) == ALC_OK &&
             alcg_upload(&D->s, D->d_tet_vert, m->tet_vert, sizeof(int) * 4 * nt) == ALC_OK &&
             alcg_upload(&D->s, D->d_tet_vol, m->tet_vol, sizeof(double) * nt) == ALC_OK &&
             alcg_upload(&D->s, D->d_tet_model, B->tetModel, sizeof(int) * nt) == ALC_OK &&
             alcg_upload(&D->s, D->d_kin, B->kin, (size_t)m->nvert) == ALC_OK;
    if (!ok) return 0;
    D->h_bound = (double*)malloc(sizeof(double) * (nt ? nt : 1));
    D->h_sel[0] = (int*)malloc(sizeof(int) * (nt ? nt : 1));
    D->h_sel[1] = (int*)malloc(sizeof(int) * (nt ? nt : 1));
    if (!D->h_bound || !D->h_sel[0] || !D->h_sel[1]) return 0;
    D->mesh.ntet = m->ntet;
    D->mesh.d_tet_vert = D->d_tet_vert;
    D->mesh.d_tet_vol = D->d_tet_vol;
    D->mesh.d_tet_model = D->d_tet_model;
    D->mesh.d_kin = D->d_kin;
    if (alcg_tetBound_maxStep(&D->mesh, NULL, NULL, 0, 0, NULL, NULL, &D->tempBytes, &D->s) !=
        ALC_OK) {
        return 0;
    }
    return alcg_malloc(&D->s, &D->d_temp, D->tempBytes) == ALC_OK;
}

static void devFree(Dev* D) {
    alcg_free(D->d_tet_vert);
    alcg_free(D->d_tet_vol);
    alcg_free(D->d_tet_model);
    alcg_free(D->d_kin);
    alcg_free(D->d_from);
    alcg_free(D->d_to);
    alcg_free(D->d_bound);
    free(D->h_bound);
    free(D->h_sel[0]);
    free(D->h_sel[1]);
    alcg_free(D->d_temp);
    alcg_stream_free(&D->s);
}

static int sameBound(double dev, double host) {
    return fabs(dev - host) <= BOUND_RTOL * fabs(host);
}

/// alcg_tetBound_perTet (alpha < 0: the path bound) against the reference's per-tetrahedron
/// values, which B->redScratch holds from its last pass at the same alpha.
static int comparePerTet(Dev* D, const alcrBackend* B, double fraction, int allTets, double alpha,
                         const char* label) {
    int nt = B->m->ntet;
    ENSURE_MSG(alcg_tetBound_perTet(&D->mesh, D->d_from, D->d_to, fraction, allTets, alpha,
                                    D->d_bound, &D->s) == ALC_OK,
               "%s: %s", label, D->s.err);
    ENSURE_OK(alcg_download(&D->s, D->h_bound, D->d_bound, sizeof(double) * (size_t)nt));
    for (int t = 0; t < nt; t++) {
        ENSURE_MSG(sameBound(D->h_bound[t], B->redScratch[t]),
                   "%s allTets %d alpha %g: tet %d bound %.17g, host %.17g", label, allTets, alpha,
                   t, D->h_bound[t], B->redScratch[t]);
    }
    return ALC_TEST_PASS;
}

/// Bound from -> to on both sides (all tetrahedra, then the limiting one and `samples` others one
/// at a time).
static int compareBound(Dev* D, alcrBackend* B, const double* from, const double* to,
                        double fraction, int allTets, int samples, const char* label, int* limited,
                        int* further, int* guards) {
    const alcModel* m = B->m;
    size_t N = 3 * (size_t)m->nvert;
    ENSURE_OK(alcg_upload(&D->s, D->d_from, from, sizeof(double) * N));
    ENSURE_OK(alcg_upload(&D->s, D->d_to, to, sizeof(double) * N));
    double ref = alcr_elastic_maxStep(B, from, to, fraction, allTets);
    double dev = -1;
    ENSURE_MSG(alcg_tetBound_maxStep(&D->mesh, D->d_from, D->d_to, fraction, allTets, &dev,
                                     D->d_temp, &D->tempBytes, &D->s) == ALC_OK,
               "%s: %s", label, D->s.err);
    ENSURE_MSG(sameBound(dev, ref), "%s allTets %d: bound %.17g, host %.17g", label, allTets, dev,
               ref);
    int r = comparePerTet(D, B, fraction, allTets, -1.0, label);
    if (r != ALC_TEST_PASS) return r;
    // one tetrahedron at a time: the limiting one, then a sample
    int nt = m->ntet, argmin = 0;
    for (int t = 0; t < nt; t++) {
        if (B->redScratch[t] < B->redScratch[argmin]) argmin = t;
    }
    int step = nt > samples && samples > 0 ? nt / samples : 1;
    for (int k = -1; k < samples && k < nt; k++) {
        int u = k < 0 ? argmin : k * step;
        alcgTetMesh one = D->mesh;
        one.ntet = 1;
        one.d_tet_vert = D->d_tet_vert + 4 * u;
        one.d_tet_vol = D->d_tet_vol + u;
        one.d_tet_model = D->d_tet_model + u;
        double a = -1;
        ENSURE_OK(alcg_tetBound_maxStep(&one, D->d_from, D->d_to, fraction, allTets, &a, D->d_temp,
                                        &D->tempBytes, &D->s));
        ENSURE_MSG(sameBound(a, B->redScratch[u]), "%s: tet %d bound %.17g, host %.17g", label, u,
                   a, B->redScratch[u]);
    }
    *limited += ref < 1;
    // the end-point bound (passes of alcm_tet_endStepTo) below three CCD-like caps: the same
    // value, never below the whole segment's
    static const double caps[3] = {1.0, 0.9, 0.3};
    for (int j = 0; j < 3; j++) {
        double eref = alcr_elastic_endStep(B, from, to, fraction, allTets, caps[j]);
        double edev = -1;
        ENSURE_MSG(alcg_tetBound_endStep(&D->mesh, D->d_from, D->d_to, fraction, allTets, caps[j],
                                         &edev, D->d_temp, &D->tempBytes, &D->s) == ALC_OK,
                   "%s: %s", label, D->s.err);
        ENSURE_MSG(sameBound(edev, eref), "%s allTets %d cap %g: end bound %.17g, host %.17g",
                   label, allTets, caps[j], edev, eref);
        double path = fmin(ref, caps[j]);
        ENSURE_MSG(eref <= caps[j] && eref >= path * (1 - 1e-6), "%s: end %.17g, path %.17g", label,
                   eref, path);
        *further += eref > path * (1 + 1e-6);
        // the tetrahedra that cut a chord stopped below the cap, as guards would be chosen
        // (alcr_elastic_limitingTets reads the chord X -> XHAT): the same per-tetrahedron
        // bounds, and the same selection, in the same order, at two guard caps
        memcpy(B->x, from, sizeof(double) * N);
        memcpy(B->xhat, to, sizeof(double) * N);
        static const int guardCaps[2] = {4, 64};
        for (int g = 0; g < 2; g++) {
            int nref =
                alcr_elastic_limitingTets(B, fraction, allTets, caps[j], D->h_sel[0], guardCaps[g]);
            r = comparePerTet(D, B, fraction, allTets, caps[j], label);
            if (r != ALC_TEST_PASS) return r;
            int ndev =
                alcm_tet_guardSelect(D->h_bound, m->ntet, caps[j], D->h_sel[1], guardCaps[g]);
            ENSURE_MSG(ndev == nref && nref <= guardCaps[g], "%s cap %g: %d guards, host %d", label,
                       caps[j], ndev, nref);
            ENSURE_MSG((eref < caps[j]) == (nref > 0), "%s cap %g: end bound %.17g, %d guards",
                       label, caps[j], eref, nref);
            for (int i = 0; i < nref; i++) {
                // on a device the bounds agree to BOUND_RTOL, so near-ties may swap places
                int same = D->h_sel[1][i] == D->h_sel[0][i] ||
                           (BOUND_RTOL > 0 &&
                            sameBound(D->h_bound[D->h_sel[1][i]], B->redScratch[D->h_sel[0][i]]));
                ENSURE_MSG(same, "%s cap %g: guard %d is tet %d, host %d", label, caps[j], i,
                           D->h_sel[1][i], D->h_sel[0][i]);
                if (i > 0) ENSURE(D->h_bound[D->h_sel[1][i - 1]] <= D->h_bound[D->h_sel[1][i]]);
            }
            *guards += nref;
        }
    }
    return ALC_TEST_PASS;
}

/// Every comparison of one motion: three stretches of it, the motion with every vertex
/// jittered by up to the typical tetrahedron size (which squashes and inverts many of them), and
/// the start turned by 160 degrees about its centroid with a 0.5 % jitter (every tetrahedron dips
/// to about 3 % of its volume half way and comes back: the end-point bound's case), each with
/// and without allTets.
static int motionCases(alcrBackend* B, const alctMotion* mo, const char* label) {
    const alcModel* m = B->m;
    Dev D;
    ENSURE_MSG(devMake(&D, m, B), "%s: device setup: %s", label, D.s.err);
    size_t N = 3 * (size_t)m->nvert;
    double* to = (double*)malloc(sizeof(double) * N);
    ENSURE(to);
    double size = 0;
    for (int t = 0; t < m->ntet; t++) size += cbrt(fabs(m->tet_vol[t]));
    size /= m->ntet > 0 ? m->ntet : 1;
    static const double scales[5] = {0.25, 1.0, 4.0, 1.0, 0.0};
    unsigned long long seed = 12345;
    int limited = 0, further = 0, guards = 0;
    double c[3] = {0, 0, 0};
    for (int v = 0; v < m->nvert; v++) {
        for (int j = 0; j < 3; j++) c[j] += mo->x0[3 * v + j] / m->nvert;
    }
    alcV3 axis = alcm_v3_normalize(alcm_v3(1, 2, 3));
    double th = 160 * 3.14159265358979 / 180, ct = cos(th), sn = sin(th);
    for (int k = 0; k < 5; k++) {
        for (size_t i = 0; i < N; i++) {
            to[i] = mo->x0[i] + scales[k] * (mo->x1[i] - mo->x0[i]);
        }
        if (k == 4) {
            // Rodrigues: r cos + (axis x r) sin + axis (axis . r)(1 - cos)
            for (int v = 0; v < m->nvert; v++) {
                alcV3 r = alcm_v3(mo->x0[3 * v] - c[0], mo->x0[3 * v + 1] - c[1],
                                  mo->x0[3 * v + 2] - c[2]);
                alcV3 q = alcm_v3_add(
                    alcm_v3_add(alcm_v3_scale(r, ct), alcm_v3_scale(alcm_v3_cross(axis, r), sn)),
                    alcm_v3_scale(axis, alcm_v3_dot(axis, r) * (1 - ct)));
                to[3 * v] = c[0] + q.x;
                to[3 * v + 1] = c[1] + q.y;
                to[3 * v + 2] = c[2] + q.z;
            }
        }
        for (size_t i = 0; i < N && k >= 3; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            to[i] += (k == 3 ? 1 : 0.005) * size *
                     ((double)(seed >> 11) * (2.0 / 9007199254740992.0) - 1.0);
        }
        for (int allTets = 0; allTets < 2; allTets++) {
            int r = compareBound(&D, B, mo->x0, to, m->opt.inversionFraction, allTets,
                                 k >= 3 ? SAMPLES : 0, label, &limited, &further, &guards);
            if (r != ALC_TEST_PASS) return r;
        }
    }
    alct_note("%-18s %6d tets, %d of 10 bounds below 1, %d of 30 end points further, %d guards",
              label, m->ntet, limited, further, guards);
    ENSURE(further >= 2);  // the turn's end points, at least, are past the dip
    ENSURE(guards > 0);    // the jittered motions cut the chord
    free(to);
    devFree(&D);
    return ALC_TEST_PASS;
}

ALC_TEST(tetBound_scenes) {
    for (int i = 0; alct_gpuScenes[i]; i++) {
        alctMotion mo;
        ENSURE_MSG(alct_motionMake(alct_gpuScenes[i], 2, 20.0, &mo), "%s", alct_gpuScenes[i]);
        int r = motionCases((alcrBackend*)mo.sim->be.state, &mo, alct_gpuScenes[i]);
        alct_motionFree(&mo);
        if (r != ALC_TEST_PASS) return r;
    }
    return ALC_TEST_PASS;
}

ALC_TEST(tetBound_random) {
    // jittered tetrahedra: many are squashed or inverted along the motion; the passive fifth of
    // the bodies is kinematic, so all-kinematic tetrahedra are skipped
    static const unsigned seeds[] = {4, 9};
    for (int i = 0; i < 2; i++) {
        alctMotion mo;
        ENSURE(alct_motionRandom(seeds[i], 1000, 0.05, &mo));
        alcSimDef def = alc_defaultSimDef();
        def.backend = ALC_BACKEND_REF;
        ENSURE_OK(alc_makeSim(mo.m, &def, &mo.sim));
        alcrBackend* B = (alcrBackend*)mo.sim->be.state;
        memcpy(B->kin, mo.passive, (size_t)mo.nvert);
        char label[32];
        snprintf(label, sizeof label, "random %u", seeds[i]);
        int r = motionCases(B, &mo, label);
        alct_motionFree(&mo);
        if (r != ALC_TEST_PASS) return r;
    }
    return ALC_TEST_PASS;
}
