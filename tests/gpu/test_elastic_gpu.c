// cuda/elastic.cu against host/ref/elastic_ref.c (friction off): on every scene of
// alct_gpuScenes after one reference step, at a perturbed linearization point with extra
// kinematic vertices, and on random soups with random materials (all four models, some tets
// inverted): the upper triangle of the reference's full matrix block for block (1e-12 of the
// block's scale sqrt(|A_ii| |A_jj|), both assembly modes, on the static pattern and bound to the
// reference's own pattern with its contact blocks), blocks outside the static pattern zero, the
// gradient (1e-12 of its largest entry; bit for bit in the emulation, where the sums run in the
// reference's order), the largest free diagonal entry and the energy at a trial position
// (1e-12 relative); the gather mode and the energy bitwise reproducible run to run.
#include "../../cuda/elastic.h"
#include "../test_macros.h"
#include "alc_internal.h"
#include "bsr_fixture.h"
#include "gpu_fixture.h"
#include "ref/backend_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ELASTIC_RTOL 1e-12

/// What the comparisons saw, for the note.
typedef struct Tally_ {
    int cases, rows, blocks, kin;
    int gradExact;      ///< every gradient bit for bit
    int atomicRepro;    ///< every atomic-mode matrix bitwise equal across two runs
    double worstBlock;  ///< largest block error / scale
    double worstGrad, worstE, worstDiag;
} Tally;

/// Device vectors of one case.
typedef struct Dev_ {
    alcgStream s;
    alcgElastic E;
    alcgBsr A;   ///< static pattern
    alcgBsr Af;  ///< the reference's full pattern's upper triangle (bound)
    double *d_xhat, *d_xtilde, *d_p, *d_g, *d_trial;
    unsigned char* d_kin;
} Dev;

static void devFree(Dev* D) {
    alcg_elastic_free(&D->E);
    alcg_bsr_free(&D->A);
    alcg_bsr_free(&D->Af);
    alcg_free(D->d_xhat);
    alcg_free(D->d_xtilde);
    alcg_free(D->d_p);
    alcg_free(D->d_g);
    alcg_free(D->d_trial);
    alcg_free(D->d_kin);
    alcg_stream_free(&D->s);
}

/// Largest |entry| of a 3x3 block.
static double blockMax(const double* b) {
    double m = 0;
    for (int e = 0; e < 9; e++) m = fmax(m, fabs(b[e]));
    return m;
}

/// Device matrix D (downloaded) against the upper triangle of the reference H: every stored
/// device block equals the reference's within ELASTIC_RTOL of sqrt(|H_ii| |H_jj|); reference
/// upper blocks the device lacks are exactly zero.
static int compareMatrix(const alcrBsr* H, const alcgBsr* D, alcgStream* s, const char* label,
                         Tally* T) {
    int n = H->n, nb = D->nnzb > 0 ? D->nnzb : 1;
    int* rowptr = (int*)malloc(sizeof(int) * ((size_t)n + 1));
    int* col = (int*)malloc(sizeof(int) * (size_t)nb);
    double* val = (double*)malloc(sizeof(double) * 9 * (size_t)nb);
    ENSURE(rowptr && col && val);
    ENSURE_OK(alcg_download(s, rowptr, D->d_rowptr, sizeof(int) * ((size_t)n + 1)));
    ENSURE_OK(alcg_download(s, col, D->d_col, sizeof(int) * (size_t)D->nnzb));
    ENSURE_OK(alcg_download(s, val, D->d_val, sizeof(double) * 9 * (size_t)D->nnzb));
    double tol = ELASTIC_RTOL * alct_tolScale();
    for (int i = 0; i < n; i++) {
        double di = blockMax(H->val + 9 * H->diag[i]);
        int k = rowptr[i];
        for (int t = H->rowptr[i]; t < H->rowptr[i + 1]; t++) {
            int j = H->col[t];
            if (j < i) continue;
            const double* r = H->val + 9 * t;
            if (k < rowptr[i + 1] && col[k] == j) {
                double scale = sqrt(di * blockMax(H->val + 9 * H->diag[j]));
                scale = fmax(scale, blockMax(r));
                double err = 0;
                for (int e = 0; e < 9; e++) err = fmax(err, fabs(val[9 * k + e] - r[e]));
                double rel = scale > 0 ? err / scale : err;
                T->worstBlock = fmax(T->worstBlock, rel);
                ENSURE_MSG(rel <= tol, "%s: block (%d, %d) off by %.3g of %.3g", label, i, j, err,
                           scale);
                k++;
            } else {
                ENSURE_MSG(blockMax(r) == 0, "%s: block (%d, %d) missing on the device", label, i,
                           j);
            }
        }
        ENSURE_MSG(k == rowptr[i + 1], "%s: row %d has device blocks the reference lacks", label,
                   i);
    }
    free(rowptr);
    free(col);
    free(val);
    return ALC_TEST_PASS;
}

/// Every value of D (downloaded).
static double* downloadVal(const alcgBsr* D, alcgStream* s) {
    double* v = (double*)malloc(sizeof(double) * 9 * (size_t)(D->nnzb > 0 ? D->nnzb : 1));
    if (v && alcg_download(s, v, D->d_val, sizeof(double) * 9 * (size_t)D->nnzb) != ALC_OK) {
        free(v);
        return NULL;
    }
    return v;
}

/// One comparison: the reference backend B with its xhat, xtilde, kin, p set and friction off
/// (restored after); model m. Materials are B's per-tetrahedron arrays.
static int compareCase(alcrBackend* B, const alcModel* m, const char* label, Tally* T) {
    int n = B->n;
    size_t N = 3 * (size_t)n;
    const double r = 0.7;
    // reference assembly and energy without friction
    int friction = B->cp.friction;
    B->cp.friction = 0;
    alciAssembleOut out;
    memset(&out, 0, sizeof out);
    alctStatus rst = alcr_contact_pattern(B);
    if (rst == ALC_OK) rst = alcr_elastic_assemble(B, &out);
    double Eref = alcr_elastic_energy(B, r);
    B->cp.friction = friction;
    ENSURE_OK(rst);
    // device
    Dev D;
    memset(&D, 0, sizeof D);
    ENSURE_OK(alcg_stream_make(&D.s));
    alcgStream* s = &D.s;
    int ok = alcg_elastic_make(&D.E, m, B->tetModel, B->tetMu, B->tetLam, s) == ALC_OK;
    void* d_temp = NULL;
    size_t temp = 0;
    ok = ok && alcg_bsr_make(&D.A, n, D.E.nstatic > 0 ? D.E.nstatic : 1, s) == ALC_OK &&
         alcg_elastic_pattern(&D.E, &D.A, NULL, &temp, s) == ALC_OK &&
         alcg_malloc(s, &d_temp, temp) == ALC_OK &&
         alcg_elastic_pattern(&D.E, &D.A, d_temp, &temp, s) == ALC_OK;
    alcg_free(d_temp);
    ok = ok && alcg_malloc(s, (void**)&D.d_xhat, sizeof(double) * (N + 1)) == ALC_OK &&
         alcg_malloc(s, (void**)&D.d_xtilde, sizeof(double) * (N + 1)) == ALC_OK &&
         alcg_malloc(s, (void**)&D.d_p, sizeof(double) * (N + 1)) == ALC_OK &&
         alcg_malloc(s, (void**)&D.d_g, sizeof(double) * (N + 1)) == ALC_OK &&
         alcg_malloc(s, (void**)&D.d_trial, sizeof(double) * (N + 1)) == ALC_OK &&
         alcg_malloc(s, (void**)&D.d_kin, (size_t)n + 1) == ALC_OK &&
         alcg_upload(s, D.d_xhat, B->xhat, sizeof(double) * N) == ALC_OK &&
         alcg_upload(s, D.d_xtilde, B->xtilde, sizeof(double) * N) == ALC_OK &&
         alcg_upload(s, D.d_p, B->p, sizeof(double) * N) == ALC_OK &&
         alcg_upload(s, D.d_kin, B->kin, (size_t)n) == ALC_OK;
    if (!ok) {
        fprintf(stderr, "  %s: %s\n", label, s->err);
        devFree(&D);
        return ALC_TEST_FAIL;
    }
    alcgElasticState st = {B->h, D.d_xhat, D.d_xtilde, D.d_kin};
    double* g = (double*)malloc(sizeof(double) * (N + 1));
    double* trial = (double*)malloc(sizeof(double) * (N + 1));
    int res = ALC_TEST_FAIL;
    double* v0 = NULL;
    if (!g || !trial) goto done;
    // both modes on the static pattern, twice each
    for (int mode = 0; mode < 2; mode++) {
        for (int rep = 0; rep < 2; rep++) {
            double md = -1;
            if (alcg_elastic_assemble(&D.E, &st, (alcgElasticMode)mode, &D.A, D.d_g, &md, s) !=
                ALC_OK) {
                fprintf(stderr, "  %s: %s\n", label, s->err);
                goto done;
            }
            char lab[160];
            snprintf(lab, sizeof lab, "%s, %s", label, mode ? "gather" : "atomic");
            if (compareMatrix(&B->A, &D.A, s, lab, T) != ALC_TEST_PASS) goto done;
            double dmd = fabs(md - out.maxDiag) / fmax(out.maxDiag, 1e-300);
            T->worstDiag = fmax(T->worstDiag, dmd);
            if (!(dmd <= ELASTIC_RTOL * alct_tolScale())) {
                fprintf(stderr, "  %s: maxDiag %.17g, reference %.17g\n", lab, md, out.maxDiag);
                goto done;
            }
            // run-to-run: gather bitwise; atomic recorded
            double* v = downloadVal(&D.A, s);
            if (!v) goto done;
            if (rep == 0) {
                free(v0);
                v0 = v;
            } else {
                int same = memcmp(v0, v, sizeof(double) * 9 * (size_t)D.A.nnzb) == 0;
                free(v);
                if (mode == ALCG_ELASTIC_GATHER && !same) {
                    fprintf(stderr, "  %s: two gather runs differ\n", lab);
                    goto done;
                }
                if (mode == ALCG_ELASTIC_ATOMIC) T->atomicRepro &= same;
            }
        }
    }
    // gradient
    if (alcg_download(s, g, D.d_g, sizeof(double) * N) != ALC_OK) goto done;
    {
        double gmax = 0, err = 0;
        for (size_t i = 0; i < N; i++) {
            gmax = fmax(gmax, fabs(B->g[i]));
            err = fmax(err, fabs(g[i] - B->g[i]));
        }
        T->gradExact &= memcmp(g, B->g, sizeof(double) * N) == 0;
        double rel = gmax > 0 ? err / gmax : err;
        T->worstGrad = fmax(T->worstGrad, rel);
        if (!(rel <= ELASTIC_RTOL * alct_tolScale())) {
            fprintf(stderr, "  %s: gradient off by %.3g of %.3g\n", label, err, gmax);
            goto done;
        }
    }
    // bound to the reference's pattern (static plus contact blocks)
    if (!alct_bsrUpload(&B->A, &D.Af, s) || alcg_elastic_bind(&D.E, &D.Af, s) != ALC_OK ||
        alcg_elastic_assemble(&D.E, &st, ALCG_ELASTIC_GATHER, &D.Af, D.d_g, NULL, s) != ALC_OK) {
        fprintf(stderr, "  %s: bound: %s\n", label, s->err);
        goto done;
    }
    {
        char lab[160];
        snprintf(lab, sizeof lab, "%s, bound", label);
        if (compareMatrix(&B->A, &D.Af, s, lab, T) != ALC_TEST_PASS) goto done;
        if (alcg_elastic_assemble(&D.E, &st, ALCG_ELASTIC_ATOMIC, &D.Af, D.d_g, NULL, s) !=
                ALC_OK ||
            compareMatrix(&B->A, &D.Af, s, lab, T) != ALC_TEST_PASS) {
            goto done;
        }
    }
    // energy at xhat + r p, twice, and the trial positions
    {
        double e0 = 0, e1 = 0;
        if (alcg_elastic_energy(&D.E, &st, D.d_p, r, D.d_trial, &e0, s) != ALC_OK ||
            alcg_elastic_energy(&D.E, &st, D.d_p, r, NULL, &e1, s) != ALC_OK ||
            alcg_download(s, trial, D.d_trial, sizeof(double) * N) != ALC_OK) {
            fprintf(stderr, "  %s: energy: %s\n", label, s->err);
            goto done;
        }
        double rel = fabs(e0 - Eref) / fmax(fabs(Eref), 1e-300);
        T->worstE = fmax(T->worstE, rel);
        if (!(rel <= ELASTIC_RTOL * alct_tolScale()) || memcmp(&e0, &e1, sizeof e0) != 0) {
            fprintf(stderr, "  %s: energy %.17g (again %.17g), reference %.17g\n", label, e0, e1,
                    Eref);
            goto done;
        }
        for (size_t i = 0; i < N; i++) {
            if (trial[i] != B->trial[i]) {
                fprintf(stderr, "  %s: trial position %zu differs\n", label, i);
                goto done;
            }
        }
    }
    T->cases++;
    T->rows += n;
    T->blocks += D.E.nstatic;
    for (int i = 0; i < n; i++) T->kin += B->kin[i] != 0;
    res = ALC_TEST_PASS;
done:
    free(v0);
    free(g);
    free(trial);
    devFree(&D);
    return res;
}

/// Mean edge length of the tetrahedra at x (for perturbations).
static double meanEdge(const alcModel* m, const double* x) {
    double sum = 0;
    long long cnt = 0;
    for (int t = 0; t < m->ntet; t++) {
        const int* tv = m->tet_vert + 4 * t;
        for (int a = 1; a < 4; a++) {
            double d2 = 0;
            for (int k = 0; k < 3; k++) d2 += pow(x[3 * tv[a] + k] - x[3 * tv[0] + k], 2);
            sum += sqrt(d2);
            cnt++;
        }
    }
    return cnt > 0 ? sum / (double)cnt : 1;
}

/// Set the step inputs of B: xtilde = x1, xhat = x1 + noise * edge, a random direction p, and
/// kin = base mask | (every 23rd vertex).
static void setInputs(alcrBackend* B, const alcModel* m, const double* x1,
                      const unsigned char* base, double noise, unsigned long long seed) {
    double edge = meanEdge(m, x1);
    for (int v = 0; v < B->n; v++) {
        B->kin[v] = (unsigned char)((base && base[v]) || v % 23 == 5);
        for (int k = 0; k < 3; k++) {
            int i = 3 * v + k;
            B->xtilde[i] = x1[i];
            B->xhat[i] = x1[i] + noise * edge * alct_rnd(&seed);
            B->p[i] = 0.2 * edge * alct_rnd(&seed);
        }
    }
}

/// Compare on scenes[] after `steps` reference steps, the step's kinematic mask (or, with no
/// step taken, the drivers' and obstacles') plus every 23rd vertex kinematic; the models'
/// solver.eigen_filter set to `filter` (alctEigenFilter) for both sides.
static int sceneCasesFiltered(const char* const* scenes, int steps, int filter, Tally* T) {
    memset(T, 0, sizeof *T);
    T->gradExact = T->atomicRepro = 1;
    for (int i = 0; scenes[i]; i++) {
        alctMotion mo;
        ENSURE_MSG(alct_motionMake(scenes[i], steps, 1.0, &mo), "%s", scenes[i]);
        alcrBackend* B = (alcrBackend*)mo.sim->be.state;
        mo.m->opt.eigenFilter = filter;  // read at assembly (reference) and make (device)
        unsigned char* base = (unsigned char*)malloc((size_t)B->n + 1);
        ENSURE(base);
        memcpy(base, steps > 0 ? B->kin : mo.passive, (size_t)B->n);
        setInputs(B, mo.m, mo.x1, base, 0.05, 11 + (unsigned long long)i);
        int r = compareCase(B, mo.m, scenes[i], T);
        free(base);
        alct_motionFree(&mo);
        if (r != ALC_TEST_PASS) return r;
    }
#if defined(ALC_EMU)
    ENSURE(T->gradExact);
#endif
    alct_note(
        "%d scenes, %d rows (%d kinematic), %d static blocks; worst block %.2g, gradient %.2g "
        "(%s), energy %.2g, maxDiag %.2g; atomic mode %s run to run",
        T->cases, T->rows, T->kin, T->blocks, T->worstBlock, T->worstGrad,
        T->gradExact ? "bit for bit" : "not bitwise", T->worstE, T->worstDiag,
        T->atomicRepro ? "reproduced bitwise" : "NOT bitwise reproducible");
    return ALC_TEST_PASS;
}

static int sceneCases(const char* const* scenes, int steps, Tally* T) {
    return sceneCasesFiltered(scenes, steps, ALC_EIGEN_CLAMP, T);
}

ALC_TEST(elastic_scenes) {
    // at the initial state (no reference step: they cost more than the comparisons)
    Tally T;
    return sceneCases(alct_gpuScenes, 0, &T);
}

ALC_TEST(elastic_absEigenFilter) {
    // solver.eigen_filter: abs on the device as in the reference, on the perturbed states (some
    // tetrahedra compressed, with negative modes)
    static const char* const scenes[] = {"box_drop.yaml", "ball_plate.yaml", "balls_press.yaml",
                                         NULL};
    Tally T;
    return sceneCasesFiltered(scenes, 0, ALC_EIGEN_ABS, &T);
}

ALC_TEST(elastic_contacts) {
    // after one step, with contact blocks in the reference's pattern (the bound matrix)
    static const char* const scenes[] = {"arch.yaml", "rigid_cubes.yaml", "slope.yaml", NULL};
    Tally T;
    return sceneCases(scenes, 1, &T);
}

/// A reference sim (for its alcrBackend) on a model.
static alcSim* makeRefSim(const alcModel* m) {
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    def.threads = 1;
    alcSim* sim = NULL;
    return alc_makeSim(m, &def, &sim) == ALC_OK ? sim : NULL;
}

ALC_TEST(elastic_random) {
    Tally T;
    memset(&T, 0, sizeof T);
    T.gradExact = T.atomicRepro = 1;
    static const int sizes[] = {1, 7, 150};
    for (int c = 0; c < 3; c++) {
        alctMotion mo;
        ENSURE(alct_motionRandom(101 + (unsigned)c, sizes[c], 0.2, &mo));
        alcSim* sim = makeRefSim(mo.m);
        ENSURE_MSG(sim, "random soup %d", c);
        alcrBackend* B = (alcrBackend*)sim->be.state;
        // every material model, random stiffness; large noise inverts some tetrahedra
        unsigned long long seed = 5 + (unsigned long long)c;
        for (int t = 0; t < mo.m->ntet; t++) {
            B->tetModel[t] = t % ALC_NMATMODEL;
            B->tetMu[t] = 1e4 * (1.5 + alct_rnd(&seed));
            B->tetLam[t] = 1e5 * (1.5 + alct_rnd(&seed));
        }
        B->h = 0.01;
        setInputs(B, mo.m, mo.x1, mo.passive, 0.6, 17 + (unsigned long long)c);
        char label[64];
        snprintf(label, sizeof label, "random soup %d (%d tets)", c, mo.m->ntet);
        int r = compareCase(B, mo.m, label, &T);
        alc_deleteSim(sim);
        alct_motionFree(&mo);
        if (r != ALC_TEST_PASS) return r;
    }
#if defined(ALC_EMU)
    ENSURE(T.gradExact);
#endif
    alct_note("%d soups, %d rows (%d kinematic); worst block %.2g, gradient %.2g, energy %.2g",
              T.cases, T.rows, T.kin, T.worstBlock, T.worstGrad, T.worstE);
    return ALC_TEST_PASS;
}
