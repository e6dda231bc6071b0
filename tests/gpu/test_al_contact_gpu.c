// cuda/al_contact.cu against host/ref/contact_ref.c: on scenes whose reference active set is
// non-empty after a few steps, at random perturbations of XHAT, with the multipliers and decay
// factors as the steps left them and randomized, with extra kinematic vertices, and under the
// penalty flag: the per-pair c and activity of the assembly, the gradient (1e-12 of its largest
// entry) and the upper blocks of the matrix (1e-12 of the block's scale) added onto the same
// random starting values, the energy (1e-12 of sum |gamma phi|), the flips at a second position
// (exact), the normal forces and the alUpdate results field by field (1e-12; in the emulation
// G, A, c, activity, lambda, gamma and the forces bit for bit), and the assembly bitwise
// reproducible run to run.
#include "../../cuda/al_contact.h"
#include "../test_macros.h"
#include "alc_internal.h"
#include "bsr_fixture.h"
#include "contact_fixture.h"
#include "gpu_fixture.h"
#include "ref/backend_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AL_RTOL 1e-12

/// In the emulation the kernels run contact_ref.c's operations in its order, compiled by the
/// same host compiler (no contracted multiply-adds): every per-pair value and every gathered sum
/// must be bit for bit the reference's.
#if defined(ALC_EMU)
#define AL_BITWISE 1
#else
#define AL_BITWISE 0
#endif

/// What the comparisons saw, for the note.
typedef struct Tally_ {
    int cases, pairs, active, inactive, flips, blocks, boosted;
    double worstG, worstA, worstE, worstC, worstLam;
} Tally;

/// Device state of one case.
typedef struct Dev_ {
    alcgStream s;
    alcgAlContact C;
    alcgBsr A;
    alcgPair* d_pairs;
    double *d_x, *d_xhat, *d_pos, *d_g, *d_force;
    unsigned char* d_kin;
} Dev;

static void devFree(Dev* D) {
    alcg_alContact_free(&D->C);
    alcg_bsr_free(&D->A);
    alcg_free(D->d_pairs);
    alcg_free(D->d_x);
    alcg_free(D->d_xhat);
    alcg_free(D->d_pos);
    alcg_free(D->d_g);
    alcg_free(D->d_force);
    alcg_free(D->d_kin);
    alcg_stream_free(&D->s);
}

/// A value within tolerance: bit for bit in the emulation, else AL_RTOL of scale.
static int agrees(double a, double b, double scale) {
    if (AL_BITWISE) return a == b || (isnan(a) && isnan(b));
    return alct_relErr(a, b, scale) <= AL_RTOL * alct_tolScale();
}

static double blockMax(const double* b) {
    double m = 0;
    for (int e = 0; e < 9; e++) m = fmax(m, fabs(b[e]));
    return m;
}

static alcgAlParams paramsOf(const alcrBackend* B) {
    alcgAlParams p;
    memset(&p, 0, sizeof p);
    p.mu = B->cp.mu;
    p.delta = B->cp.delta;
    p.decay = B->cp.decay;
    p.removeBelow = B->cp.removeBelow;
    p.penalty = B->cp.penalty;
    p.flipDepth = B->cp.flipDepth;
    p.pairMuGrowth = B->cp.pairMuGrowth;
    p.pairMuMax = B->cp.pairMuMax;
    return p;
}

/// pos = X + amp * uniform[-1, 1) per coordinate (kinematic vertices too).
static void perturb(const double* x, double* pos, size_t N, double amp, unsigned long long* rng) {
    for (size_t i = 0; i < N; i++) pos[i] = x[i] + amp * alct_rnd(rng);
}

/// Upper blocks of the device matrix (downloaded) against those of the reference's.
static int compareMatrix(const alcrBsr* H, const alcgBsr* D, const double* val, const char* label,
                         Tally* T) {
    int k = 0;
    ENSURE_MSG(D->n == H->n, "%s: rows %d vs %d", label, D->n, H->n);
    for (int i = 0; i < H->n; i++) {
        for (int t = H->rowptr[i]; t < H->rowptr[i + 1]; t++) {
            int j = H->col[t];
            if (j < i) continue;
            const double* r = H->val + 9 * t;
            ENSURE_MSG(k < D->nnzb, "%s: device matrix too short", label);
            double scale = fmax(blockMax(r), sqrt(blockMax(H->val + 9 * H->diag[i]) *
                                                  blockMax(H->val + 9 * H->diag[j])));
            for (int e = 0; e < 9; e++) {
                T->worstA = fmax(T->worstA, alct_relErr(val[9 * k + e], r[e], scale));
                ENSURE_MSG(agrees(val[9 * k + e], r[e], scale),
                           "%s: block (%d, %d) entry %d: %.17g, reference %.17g", label, i, j, e,
                           val[9 * k + e], r[e]);
            }
            k++;
            T->blocks++;
        }
    }
    ENSURE_MSG(k == D->nnzb, "%s: %d device blocks, %d reference upper blocks", label, D->nnzb, k);
    return ALC_TEST_PASS;
}

/// One comparison on B's active set (npair > 0) at XHAT = X + amp * noise, with B's kinematic
/// mask and contact parameters. Leaves B's pairs as the reference's alUpdate left them.
static int runCase(alcrBackend* B, double amp, unsigned long long* rng, const char* label,
                   Tally* T) {
    int n = B->n, npair = B->npair;
    size_t N = 3 * (size_t)n;
    alcgAlParams prm = paramsOf(B);
    ENSURE(npair > 0 && prm.mu > 0);
    // reference pattern with random starting values in A and G
    B->patternDirty = 1;
    ENSURE_OK(alcr_contact_pattern(B));
    alcrBsr* H = &B->A;
    for (long long e = 0; e < 9LL * H->nnzb; e++) H->val[e] = prm.mu * alct_rnd(rng);
    double gamp = prm.mu * fmax(amp, 1e-9);
    for (size_t i = 0; i < N; i++) B->g[i] = gamp * alct_rnd(rng);
    perturb(B->x, B->xhat, N, amp, rng);
    double* pos = (double*)malloc(sizeof(double) * N);
    double* g0 = (double*)malloc(sizeof(double) * N);
    double* g = (double*)malloc(sizeof(double) * N);
    double* force = (double*)malloc(sizeof(double) * (size_t)npair);
    alcgPair* hp = (alcgPair*)malloc(sizeof(alcgPair) * (size_t)npair);
    ENSURE(pos && g0 && g && force && hp);
    perturb(B->x, pos, N, amp, rng);
    memcpy(g0, B->g, sizeof(double) * N);
    for (int p = 0; p < npair; p++) alct_pairToDevice(&B->pairs[p], &hp[p]);
    // device copies
    Dev D;
    memset(&D, 0, sizeof D);
    ENSURE_OK(alcg_stream_make(&D.s));
    alcgStream* s = &D.s;
    int ok = alct_bsrUpload(H, &D.A, s) && alcg_alContact_make(&D.C, n, npair + 3, s) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_pairs, sizeof(alcgPair) * (size_t)npair) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_x, sizeof(double) * N) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_xhat, sizeof(double) * N) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_pos, sizeof(double) * N) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_g, sizeof(double) * N) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_force, sizeof(double) * (size_t)npair) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_kin, (size_t)n) == ALC_OK &&
             alcg_upload(s, D.d_pairs, hp, sizeof(alcgPair) * (size_t)npair) == ALC_OK &&
             alcg_upload(s, D.d_x, B->x, sizeof(double) * N) == ALC_OK &&
             alcg_upload(s, D.d_xhat, B->xhat, sizeof(double) * N) == ALC_OK &&
             alcg_upload(s, D.d_pos, pos, sizeof(double) * N) == ALC_OK &&
             alcg_upload(s, D.d_g, g0, sizeof(double) * N) == ALC_OK &&
             alcg_upload(s, D.d_kin, B->kin, (size_t)n) == ALC_OK &&
             alcg_alContact_incidence(&D.C, D.d_pairs, npair, s) == ALC_OK;
    ENSURE_MSG(ok, "%s: device setup: %s", label, s->err);
    double* val0 = (double*)malloc(sizeof(double) * 9 * (size_t)D.A.nnzb);
    double* val = (double*)malloc(sizeof(double) * 9 * (size_t)D.A.nnzb);
    ENSURE(val0 && val);
    ENSURE_OK(alcg_download(s, val0, D.A.d_val, sizeof(double) * 9 * (size_t)D.A.nnzb));

    // energy at XHAT and at pos, against the reference's (scale: sum |gamma phi|)
    const double* at[2] = {B->xhat, pos};
    const double* d_at[2] = {D.d_xhat, D.d_pos};
    for (int w = 0; w < 2; w++) {
        double eref = alcr_contact_energy(B, at[w]), edev = 0, scale = 0;
        for (int p = 0; p < npair; p++) scale += fabs(B->pairE[p]);
        ENSURE_OK(alcg_alContact_energy(&D.C, D.d_pairs, npair, &prm, D.d_x, d_at[w], &edev, s));
        double rel = alct_relErr(edev, eref, scale);
        T->worstE = fmax(T->worstE, rel);
        ENSURE_MSG(rel <= AL_RTOL * alct_tolScale(), "%s: energy %.17g, reference %.17g", label,
                   edev, eref);
    }

    // assembly: c, activity, G, A
    ENSURE_OK(alcr_contact_assemble(B));
    int missing = -1;
    for (int rep = 0; rep < 2; rep++) {
        if (rep == 1) {
            // run to run: the same inputs again give the same bits
            ENSURE_OK(alcg_upload(s, D.A.d_val, val0, sizeof(double) * 9 * (size_t)D.A.nnzb));
            ENSURE_OK(alcg_upload(s, D.d_g, g0, sizeof(double) * N));
        }
        ENSURE_MSG(alcg_alContact_assemble(&D.C, D.d_pairs, npair, &prm, D.d_x, D.d_xhat, D.d_kin,
                                           &D.A, D.d_g, &missing, s) == ALC_OK,
                   "%s: %s", label, s->err);
        ENSURE_MSG(missing == 0, "%s: %d blocks missing", label, missing);
        if (rep == 0) {
            ENSURE_OK(alcg_download(s, val, D.A.d_val, sizeof(double) * 9 * (size_t)D.A.nnzb));
            ENSURE_OK(alcg_download(s, g, D.d_g, sizeof(double) * N));
        } else {
            double* v2 = (double*)malloc(sizeof(double) * 9 * (size_t)D.A.nnzb);
            double* g2 = (double*)malloc(sizeof(double) * N);
            ENSURE(v2 && g2);
            ENSURE_OK(alcg_download(s, v2, D.A.d_val, sizeof(double) * 9 * (size_t)D.A.nnzb));
            ENSURE_OK(alcg_download(s, g2, D.d_g, sizeof(double) * N));
            ENSURE_MSG(!memcmp(v2, val, sizeof(double) * 9 * (size_t)D.A.nnzb) &&
                           !memcmp(g2, g, sizeof(double) * N),
                       "%s: two assemblies differ", label);
            free(v2);
            free(g2);
        }
    }
    ENSURE_OK(alcg_download(s, hp, D.d_pairs, sizeof(alcgPair) * (size_t)npair));
    for (int p = 0; p < npair; p++) {
        const alcrPair* P = &B->pairs[p];
        double scale = fabs(P->d) + fabs(prm.delta) + amp;
        T->worstC = fmax(T->worstC, alct_relErr(hp[p].c, P->c, scale));
        ENSURE_MSG(agrees(hp[p].c, P->c, scale), "%s: pair %d c %.17g, reference %.17g", label, p,
                   hp[p].c, P->c);
        ENSURE_MSG(hp[p].active == P->active, "%s: pair %d active %d, reference %d", label, p,
                   hp[p].active, P->active);
        if (P->active) {
            T->active++;
        } else {
            T->inactive++;
        }
    }
    double gmax = 0;
    for (size_t i = 0; i < N; i++) gmax = fmax(gmax, fabs(B->g[i]));
    for (size_t i = 0; i < N; i++) {
        T->worstG = fmax(T->worstG, alct_relErr(g[i], B->g[i], gmax));
        ENSURE_MSG(agrees(g[i], B->g[i], gmax), "%s: G[%zu] %.17g, reference %.17g", label, i, g[i],
                   B->g[i]);
    }
    if (compareMatrix(H, &D.A, val, label, T) != ALC_TEST_PASS) return ALC_TEST_FAIL;

    // flips at pos against the assembly's flags
    int fref = alcr_contact_flips(B, pos), fdev = -1;
    ENSURE_OK(alcg_alContact_flips(&D.C, D.d_pairs, npair, &prm, D.d_x, D.d_pos, &fdev, s));
    ENSURE_MSG(fdev == fref, "%s: %d flips, reference %d", label, fdev, fref);
    T->flips += fref;
    // and only the crossings that land more than delta past the kink: a subset
    double depth0 = B->cp.flipDepth;
    B->cp.flipDepth = B->cp.delta;
    alcgAlParams deep = paramsOf(B);
    int dref = alcr_contact_flips(B, pos), ddev = -1;
    ENSURE_OK(alcg_alContact_flips(&D.C, D.d_pairs, npair, &deep, D.d_x, D.d_pos, &ddev, s));
    B->cp.flipDepth = depth0;
    ENSURE_MSG(ddev == dref && dref <= fref, "%s: %d deep flips, reference %d (of %d)", label, ddev,
               dref, fref);

    // the multiplier and decay updates, then the normal forces after them; every other case
    // with the credit of a subproblem cut off at its Newton cap (delta of violation at most)
    double credit = T->cases % 2 ? B->cp.delta : 0;
    prm.lambdaCredit = credit;
    alcr_contact_alUpdate(B, credit);
    ENSURE_OK(alcg_alContact_alUpdate(D.d_pairs, npair, &prm, D.d_x, D.d_xhat, s));
    ENSURE_OK(alcg_alContact_normalForce(D.d_pairs, npair, &prm, D.d_force, s));
    ENSURE_OK(alcg_download(s, hp, D.d_pairs, sizeof(alcgPair) * (size_t)npair));
    ENSURE_OK(alcg_download(s, force, D.d_force, sizeof(double) * (size_t)npair));
    for (int p = 0; p < npair; p++) {
        const alcrPair* P = &B->pairs[p];
        double ls = fabs(P->lambda) + prm.mu * (fabs(P->d) + fabs(prm.delta) + amp);
        T->worstLam = fmax(T->worstLam, alct_relErr(hp[p].lambda, P->lambda, ls));
        ENSURE_MSG(agrees(hp[p].lambda, P->lambda, ls), "%s: pair %d lambda %.17g, ref %.17g",
                   label, p, hp[p].lambda, P->lambda);
        ENSURE_MSG(hp[p].gamma == P->gamma, "%s: pair %d gamma %.17g, reference %.17g", label, p,
                   hp[p].gamma, P->gamma);
        ENSURE_MSG(hp[p].boost == P->boost, "%s: pair %d boost %.17g, reference %.17g", label, p,
                   hp[p].boost, P->boost);
        T->boosted += P->boost > 1;
        ENSURE_MSG(hp[p].key == P->key && hp[p].d == P->d && !memcmp(hp[p].g, P->g, sizeof P->g),
                   "%s: pair %d changed beyond lambda and gamma", label, p);
        double fref1 = alcr_contact_normalForce(B, P);
        ENSURE_MSG(agrees(force[p], fref1, ls), "%s: pair %d force %.17g, reference %.17g", label,
                   p, force[p], fref1);
    }
    T->pairs += npair;
    T->cases++;
    free(pos);
    free(g0);
    free(g);
    free(force);
    free(hp);
    free(val0);
    free(val);
    devFree(&D);
    return ALC_TEST_PASS;
}

/// Typical size of the constraint values: max |d - delta| + lambda / mu over the pairs.
static double constraintScale(const alcrBackend* B) {
    double a = 0;
    for (int p = 0; p < B->npair; p++) {
        const alcrPair* P = &B->pairs[p];
        a = fmax(a, fabs(P->d - B->cp.delta) + fabs(P->lambda) / B->cp.mu);
    }
    return fmax(a, 1e-9);
}

/// One scene after `steps` reference steps: four cases on its active set.
static int sceneCases(const char* scene, int steps, Tally* T) {
    alctMotion mo;
    ENSURE_MSG(alct_motionMake(scene, steps, 1.0, &mo), "%s: motion", scene);
    alcrBackend* B = (alcrBackend*)mo.sim->be.state;
    ENSURE_MSG(B->npair > 0, "%s: empty active set after %d steps", scene, steps);
    ENSURE_MSG(B->cp.mu > 0, "%s: mu %g", scene, B->cp.mu);
    memcpy(B->x, mo.x0, sizeof(double) * 3 * (size_t)mo.nvert);
    alcr_contact_linearize(B);
    unsigned long long rng = 0x5eedULL ^ (unsigned long long)strlen(scene) * 977ULL;
    double amp = constraintScale(B);
    char label[128];
    // the AL state as the steps left it, a small and a large perturbation
    snprintf(label, sizeof label, "%s, stepped, small", scene);
    if (runCase(B, 0.1 * amp, &rng, label, T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    snprintf(label, sizeof label, "%s, stepped, large", scene);
    if (runCase(B, 3 * amp, &rng, label, T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    // randomized multipliers and decay factors, extra kinematic vertices
    for (int p = 0; p < B->npair; p++) {
        B->pairs[p].lambda = fmax(0.0, alct_rnd(&rng)) * B->cp.mu * amp;
        B->pairs[p].gamma = 0.5 * (1.0 + alct_rnd(&rng));
        // own mu: a boost in [1, pairMuMax], as the update leaves them, or none
        double b = 1 + 0.5 * (B->cp.pairMuMax - 1) * (1 + alct_rnd(&rng));
        B->pairs[p].boost = alct_rnd(&rng) > 0 ? b : 0;
    }
    for (int v = 0; v < mo.nvert; v++) {
        if (alct_rnd(&rng) > 0.8) B->kin[v] = 1;
    }
    snprintf(label, sizeof label, "%s, random AL state, kinematic", scene);
    if (runCase(B, amp, &rng, label, T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    // the penalty ablation
    B->cp.penalty = 1;
    snprintf(label, sizeof label, "%s, penalty", scene);
    if (runCase(B, amp, &rng, label, T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    alct_motionFree(&mo);
    return ALC_TEST_PASS;
}

static void note(const Tally* T) {
    alct_note(
        "%d cases, %d pairs (%d active, %d inactive at the iterate), %d flips, %d blocks, %d "
        "pairs with their own mu after the update; "
        "worst rel: G %.2g, A %.2g, E %.2g, c %.2g, lambda %.2g%s",
        T->cases, T->pairs, T->active, T->inactive, T->flips, T->blocks, T->boosted, T->worstG,
        T->worstA, T->worstE, T->worstC, T->worstLam, AL_BITWISE ? " (bit for bit but E)" : "");
}

ALC_TEST(alContact_scenesStacked) {
    Tally T;
    memset(&T, 0, sizeof T);
    if (sceneCases("box_stack.yaml", 8, &T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    if (sceneCases("slope.yaml", 3, &T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    note(&T);
    return ALC_TEST_PASS;
}

ALC_TEST(alContact_scenesPressed) {
    Tally T;
    memset(&T, 0, sizeof T);
    if (sceneCases("balls_press.yaml", 3, &T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    if (sceneCases("rigid_cubes.yaml", 3, &T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    if (sceneCases("arch.yaml", 2, &T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    note(&T);
    return ALC_TEST_PASS;
}

ALC_TEST(alContact_emptyAndErrors) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    alcgAlContact C;
    ENSURE_OK(alcg_alContact_make(&C, 10, 4, &s));
    alcgAlParams prm;
    memset(&prm, 0, sizeof prm);
    prm.mu = 1;
    prm.decay = 0.5;
    // nothing to do on an empty set
    double e = -1;
    int flips = -1, missing = -1;
    ENSURE_OK(alcg_alContact_incidence(&C, NULL, 0, &s));
    ENSURE_OK(alcg_alContact_energy(&C, NULL, 0, &prm, NULL, NULL, &e, &s));
    ENSURE(e == 0);
    alcgBsr A;
    ENSURE_OK(alcg_bsr_make(&A, 10, 1, &s));
    ENSURE_OK(alcg_alContact_assemble(&C, NULL, 0, &prm, NULL, NULL, NULL, &A, NULL, &missing, &s));
    ENSURE(missing == 0);
    ENSURE_OK(alcg_alContact_flips(&C, NULL, 0, &prm, NULL, NULL, &flips, &s));
    ENSURE(flips == 0);
    ENSURE_OK(alcg_alContact_alUpdate(NULL, 0, &prm, NULL, NULL, &s));
    ENSURE_OK(alcg_alContact_normalForce(NULL, 0, &prm, NULL, &s));
    // a stencil vertex out of range, and more pairs than the capacity
    alcgPair P;
    memset(&P, 0, sizeof P);
    P.v[0] = 0;
    P.v[1] = 1;
    P.v[2] = 2;
    P.v[3] = 10;
    alcgPair* d_p = NULL;
    ENSURE_OK(alcg_malloc(&s, (void**)&d_p, sizeof P));
    ENSURE_OK(alcg_upload(&s, d_p, &P, sizeof P));
    ENSURE(alcg_alContact_incidence(&C, d_p, 1, &s) == ALC_ERR_INVALID_ARG);
    ENSURE(strstr(s.err, "outside") != NULL);
    ENSURE(alcg_alContact_incidence(&C, d_p, 5, &s) == ALC_ERR_CAPACITY);
    // assembling a set the incidences were not built for
    ENSURE(alcg_alContact_assemble(&C, d_p, 1, &prm, NULL, NULL, NULL, &A, NULL, NULL, &s) ==
           ALC_ERR_INVALID_ARG);
    prm.mu = 0;
    ENSURE(alcg_alContact_alUpdate(d_p, 1, &prm, NULL, NULL, &s) == ALC_ERR_INVALID_ARG);
    alcg_free(d_p);
    alcg_bsr_free(&A);
    alcg_alContact_free(&C);
    alcg_alContact_free(NULL);
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}
