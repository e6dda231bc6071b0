// The device modules the full step added (issue 15) against their reference twins on the
// reference backend's own state after a few steps of the contact scenes: the Hessian pattern
// with the contact and friction stencils (cuda/pattern.h vs alcr_contact_pattern), the
// momentum correction (cuda/momentum.h vs alcr_momentum_correct) and the Eq. 20 diagonal
// statistics (cuda/diag_stats.h vs alcr_elastic_assemble).
#include "../../cuda/active_set.h"
#include "../../cuda/diag_stats.h"
#include "../../cuda/elastic.h"
#include "../../cuda/friction.h"
#include "../../cuda/momentum.h"
#include "../../cuda/pattern.h"
#include "../scene_run.h"
#include "../test_macros.h"
#include "bsr_fixture.h"
#include "ref/backend_ref.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/// Contact scenes with active pairs (and friction pairs on slope, roller and rigid_cubes).
static const char* const kScenes[] = {"slope.yaml", "roller.yaml", "rigid_cubes.yaml",
                                      "box_stack.yaml", NULL};

/// A reference run of `steps` steps of scene (at CI size).
static int refRun(Run* r, const char* scene, int steps) {
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/%s", alct_rootDir(), scene);
    if (!openRunOn(r, path, NULL, NULL, -1, ALC_BACKEND_REF)) return 0;
    for (int k = 0; k < steps; k++)
        if (!stepRun(r)) return 0;
    return 1;
}

/// Device elasticity for B's model with a matrix of cap blocks bound to its static pattern.
static int makeElastic(alcrBackend* B, alcgElastic* E, alcgBsr* A, int cap, alcgStream* s) {
    size_t tb = 0;
    void* d_temp = NULL;
    int ok = alcg_elastic_make(E, B->m, B->tetModel, B->tetMu, B->tetLam, s) == ALC_OK &&
             alcg_bsr_make(A, B->n, cap, s) == ALC_OK &&
             alcg_elastic_pattern(E, A, NULL, &tb, s) == ALC_OK &&
             alcg_malloc(s, &d_temp, tb ? tb : 1) == ALC_OK &&
             alcg_elastic_pattern(E, A, d_temp, &tb, s) == ALC_OK;
    alcg_free(d_temp);
    if (!ok) fprintf(stderr, "  device elasticity: %s\n", s->err);
    return ok;
}

/// Allocate bytes of device memory (at least 1) and copy h there (h NULL: allocate only).
static void* upload(const void* h, size_t bytes, alcgStream* s) {
    void* d = NULL;
    if (alcg_malloc(s, &d, bytes ? bytes : 1) != ALC_OK) return NULL;
    if (h && bytes && alcg_upload(s, d, h, bytes) != ALC_OK) {
        alcg_free(d);
        return NULL;
    }
    return d;
}

ALC_TEST(pattern_scenes) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    long blocks = 0, stencils = 0;
    for (int i = 0; kScenes[i]; i++) {
        Run r;
        ENSURE_MSG(refRun(&r, kScenes[i], 3), "%s", kScenes[i]);
        alcrBackend* B = (alcrBackend*)r.sim->be.state;
        B->patternDirty = 1;
        ENSURE_OK(alcr_contact_pattern(B));
        const alcrBsr* R = &B->A;
        int cap = R->nnzb, needed = -1;
        alcgElastic E;
        alcgBsr A;
        alcgPattern P;
        ENSURE(makeElastic(B, &E, &A, cap, &s));
        ENSURE_OK(alcg_pattern_make(&P, &E, B->npair + B->nfric, cap, &s));
        alcgPair* d_pairs = (alcgPair*)upload(B->pairs, sizeof(alcgPair) * B->npair, &s);
        alcgFric* d_fric = (alcgFric*)upload(B->fric, sizeof(alcgFric) * B->nfric, &s);
        ENSURE(d_pairs && d_fric);
        alcgStencils a = {(const int*)((const char*)d_pairs + offsetof(alcgPair, v)),
                          sizeof(alcgPair) / sizeof(int), B->npair};
        alcgStencils f = {(const int*)((const char*)d_fric + offsetof(alcgFric, v)),
                          sizeof(alcgFric) / sizeof(int), B->nfric};
        ENSURE_MSG(alcg_pattern_build(&P, &E, &a, &f, &A, &needed, &s) == ALC_OK, "%s", s.err);
        // the reference's upper triangle, row by row
        int n = B->n;
        int* rowptr = (int*)malloc(sizeof(int) * (size_t)(n + 1));
        int* col = (int*)malloc(sizeof(int) * (size_t)(A.nnzb + 1));
        ENSURE(rowptr && col);
        ENSURE_OK(alcg_download(&s, rowptr, A.d_rowptr, sizeof(int) * (size_t)(n + 1)));
        ENSURE_OK(alcg_download(&s, col, A.d_col, sizeof(int) * (size_t)A.nnzb));
        int upper = 0, bad = 0;
        for (int row = 0; row < n; row++) {
            int k = rowptr[row];
            for (int q = R->rowptr[row]; q < R->rowptr[row + 1]; q++) {
                if (R->col[q] < row) continue;
                upper++;
                if (k >= rowptr[row + 1] || col[k] != R->col[q]) bad++;
                k++;
            }
            if (k != rowptr[row + 1]) bad++;
        }
        ENSURE_MSG(bad == 0 && upper == A.nnzb && needed == A.nnzb,
                   "%s: %d blocks, reference upper %d, %d rows differ", kScenes[i], A.nnzb, upper,
                   bad);
        // too small a matrix: a clean capacity error with the count, the pattern untouched
        alcgBsr small;
        ENSURE_OK(alcg_bsr_make(&small, n, A.nnzb - 1, &s));
        needed = -1;
        ENSURE(alcg_pattern_build(&P, &E, &a, &f, &small, &needed, &s) == ALC_ERR_CAPACITY);
        ENSURE(needed == A.nnzb && strstr(s.err, "capacity"));
        blocks += A.nnzb;
        stencils += B->npair + B->nfric;
        free(rowptr);
        free(col);
        alcg_bsr_free(&small);
        alcg_free(d_pairs);
        alcg_free(d_fric);
        alcg_pattern_free(&P);
        alcg_bsr_free(&A);
        alcg_elastic_free(&E);
        closeRun(&r);
    }
    alcg_stream_free(&s);
    alct_note(
        "4 scenes: %ld upper blocks from %ld contact and friction stencils, equal to the "
        "reference's upper triangle",
        blocks, stencils);
    return ALC_TEST_PASS;
}

ALC_TEST(momentum_scenes) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    double worst = 0, worstBalance = 0;
    int ncomp = 0;
    for (int i = 0; kScenes[i]; i++) {
        Run r;
        ENSURE_MSG(refRun(&r, kScenes[i], 2), "%s", kScenes[i]);
        alcrBackend* B = (alcrBackend*)r.sim->be.state;
        int n = B->n, N = 3 * n;
        const alcModel* m = B->m;
        // random G and P; the reference's correction on its current pattern and mask
        unsigned long long seed = 17 + (unsigned)i;
        for (int k = 0; k < N; k++) {
            B->g[k] = alct_rnd(&seed);
            B->p[k] = alct_rnd(&seed);
        }
        double* g0 = (double*)malloc(sizeof(double) * (size_t)N);
        double* p0 = (double*)malloc(sizeof(double) * (size_t)N);
        double* pd = (double*)malloc(sizeof(double) * (size_t)N);
        ENSURE(g0 && p0 && pd);
        memcpy(g0, B->g, sizeof(double) * (size_t)N);
        memcpy(p0, B->p, sizeof(double) * (size_t)N);
        B->compDirty = 1;
        alcr_momentum_correct(B);
        // the device on the same pattern (upper triangle of the reference's matrix)
        alcgBsr D;
        alcgMomentum M;
        ENSURE(alct_bsrUpload(&B->A, &D, &s));
        ENSURE_OK(alcg_momentum_make(&M, n, &s));
        double* d_g = (double*)upload(g0, sizeof(double) * (size_t)N, &s);
        double* d_p = (double*)upload(p0, sizeof(double) * (size_t)N, &s);
        double* d_m = (double*)upload(m->vert_mass, sizeof(double) * (size_t)n, &s);
        unsigned char* d_kin = (unsigned char*)upload(B->kin, (size_t)n, &s);
        ENSURE(d_g && d_p && d_m && d_kin);
        ENSURE_MSG(alcg_momentum_label(&M, &D, d_kin, &s) == ALC_OK, "%s", s.err);
        ENSURE(M.ncomp == B->ncomp);
        ENSURE_MSG(alcg_momentum_correct(&M, d_g, d_m, d_p, &s) == ALC_OK, "%s", s.err);
        ENSURE_OK(alcg_download(&s, pd, d_p, sizeof(double) * (size_t)N));
        double d = 0, sc = 0;
        for (int k = 0; k < N; k++) {
            d = fmax(d, fabs(pd[k] - B->p[k]));
            sc = fmax(sc, fabs(B->p[k]));
        }
        worst = fmax(worst, d / sc);
        ENSURE_MSG(d <= 1e-13 * sc * alct_tolScale(), "%s: p differs by %.3g of %.3g", kScenes[i],
                   d, sc);
        // the property itself: every unanchored component's momentum balance is exact
        for (int c = 0; c < B->ncomp; c++) {
            if (B->compAnchored[c]) continue;
            double f[3] = {0, 0, 0}, scale = 0;
            for (int v = 0; v < n; v++) {
                if (B->comp[v] != c) continue;
                for (int k = 0; k < 3; k++) {
                    double t = g0[3 * v + k] + m->vert_mass[v] * pd[3 * v + k];
                    f[k] += t;
                    scale = fmax(scale, fabs(g0[3 * v + k]));
                }
            }
            for (int k = 0; k < 3; k++) worstBalance = fmax(worstBalance, fabs(f[k]) / scale);
        }
        ENSURE(worstBalance <= 1e-12);
        ncomp += B->ncomp;
        alcg_free(d_g);
        alcg_free(d_p);
        alcg_free(d_m);
        alcg_free(d_kin);
        alcg_momentum_free(&M);
        alcg_bsr_free(&D);
        free(g0);
        free(p0);
        free(pd);
        closeRun(&r);
    }
    alcg_stream_free(&s);
    alct_note(
        "%d components over 4 scenes: p within %.1e of the reference; momentum balance of "
        "free components within %.1e of the forces",
        ncomp, worst, worstBalance);
    return ALC_TEST_PASS;
}

ALC_TEST(diag_stats_scenes) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    for (int i = 0; kScenes[i]; i++) {
        Run r;
        ENSURE_MSG(refRun(&r, kScenes[i], 2), "%s", kScenes[i]);
        alcrBackend* B = (alcrBackend*)r.sim->be.state;
        int n = B->n, N = 3 * n;
        alciAssembleOut ref;
        memset(&ref, 0, sizeof ref);
        ENSURE_OK(alcr_elastic_assemble(B, &ref));
        alcgElastic E;
        alcgBsr A;
        ENSURE(makeElastic(B, &E, &A, B->A.nnzb, &s));
        double* d_xhat = (double*)upload(B->xhat, sizeof(double) * (size_t)N, &s);
        double* d_xt = (double*)upload(B->xtilde, sizeof(double) * (size_t)N, &s);
        double* d_g = (double*)upload(NULL, sizeof(double) * (size_t)N, &s);
        unsigned char* d_kin = (unsigned char*)upload(B->kin, (size_t)n, &s);
        int* d_hist = (int*)upload(NULL, sizeof(int) * ALCG_DIAG_SCRATCH, &s);
        double* d_out = (double*)upload(NULL, 2 * sizeof(double), &s);
        ENSURE(d_xhat && d_xt && d_g && d_kin && d_hist && d_out);
        alcgElasticState st = {B->h, d_xhat, d_xt, d_kin};
        ENSURE_OK(alcg_elastic_assemble(&E, &st, ALCG_ELASTIC_GATHER, &A, d_g, NULL, &s));
        double md = -1, q99 = -1;
        ENSURE_MSG(alcg_diagStats(&E, &A, d_kin, d_hist, d_out, &md, &q99, &s) == ALC_OK, "%s",
                   s.err);
        alct_note("%-17s maxDiag %.6g (reference %.6g), q99 %.6g (reference %.6g)", kScenes[i], md,
                  ref.maxDiag, q99, ref.q99Diag);
        ENSURE(fabs(md - ref.maxDiag) <= 1e-14 * ref.maxDiag && q99 == ref.q99Diag && q99 > 0);
        alcg_free(d_xhat);
        alcg_free(d_xt);
        alcg_free(d_g);
        alcg_free(d_kin);
        alcg_free(d_hist);
        alcg_free(d_out);
        alcg_bsr_free(&A);
        alcg_elastic_free(&E);
        closeRun(&r);
    }
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}
