// cuda/friction.cu against host/ref/friction_ref.c: on the scenes with friction whose reference
// active set carries normal forces after a few steps, the lag at XT (the active set linearized
// on the device, then alcg_friction_lag against alcr_friction_lag: the pair list field by field),
// the energy at positions below and beyond the smoothing threshold (1e-12 of the energy), and
// the gradient and the upper Hessian blocks added onto random starting values (1e-12 of the
// friction contribution's scale), with the step's kinematic mask and with extra kinematic
// vertices; in the emulation the lag, G and A bit for bit. The assembly is bitwise reproducible
// run to run. With the secant rule on (alcm_fric_reverses, alcm_fric_Ksecant): from random
// slips at the last assembly, the pairs the energy's trial point marks reversed, the count the
// assembly gives its secant stiffness, and the slips it keeps, pair by pair.
#include "../../cuda/friction.h"
#include "../test_macros.h"
#include "alc_internal.h"
#include "bsr_fixture.h"
#include "contact_fixture.h"
#include "gpu_fixture.h"
#include "hd/alcm_friction.h"
#include "ref/backend_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FR_RTOL 1e-12

/// In the emulation the kernels run friction_ref.c's operations in its order, compiled by the
/// same host compiler (no contracted multiply-adds): the lagged pairs and every gathered sum
/// must be bit for bit the reference's.
#if defined(ALC_EMU)
#define FR_BITWISE 1
#else
#define FR_BITWISE 0
#endif

/// What the comparisons saw, for the note.
typedef struct Tally_ {
    int scenes, cases, pairs, fric, slow, blocks, rows, secant, reversals;
    double worstLag, worstE, worstG, worstA;
} Tally;

/// Device state of one scene.
typedef struct Dev_ {
    alcgStream s;
    alcgFriction F;
    alcgPair* d_pairs;
    alcgFric* d_fric;
    double *d_xt, *d_pos, *d_g;
    unsigned char* d_kin;
    int *d_vertBody, *d_bodyMat;
    double* d_matFric;
} Dev;

static void devFree(Dev* D) {
    alcg_friction_free(&D->F);
    alcg_free(D->d_pairs);
    alcg_free(D->d_fric);
    alcg_free(D->d_xt);
    alcg_free(D->d_pos);
    alcg_free(D->d_g);
    alcg_free(D->d_kin);
    alcg_free(D->d_vertBody);
    alcg_free(D->d_bodyMat);
    alcg_free(D->d_matFric);
    alcg_stream_free(&D->s);
}

/// A value within tolerance: bit for bit in the emulation, else FR_RTOL of scale.
static int agrees(double a, double b, double scale) {
    if (FR_BITWISE) return a == b || (isnan(a) && isnan(b));
    return alct_relErr(a, b, scale) <= FR_RTOL * alct_tolScale();
}

/// The lagged pairs field by field: integers exactly, the weights (scale: their largest), the
/// basis (unit columns) and the coefficient.
static int compareLag(const alcrBackend* B, const alcgFric* hf, int nfric, const char* label,
                      Tally* T) {
    ENSURE_MSG(nfric == B->nfric, "%s: %d friction pairs, reference %d", label, nfric, B->nfric);
    for (int f = 0; f < nfric; f++) {
        const alcrFric* R = &B->fric[f];
        const alcgFric* D = &hf[f];
        ENSURE_MSG(D->key == R->key && D->type == R->type && !memcmp(D->v, R->v, sizeof R->v),
                   "%s: pair %d: key %lld type %d, reference key %lld type %d", label, f, D->key,
                   D->type, R->key, R->type);
        double ws = 0;
        for (int a = 0; a < 4; a++) ws = fmax(ws, fabs(R->w[a]));
        for (int a = 0; a < 4; a++) {
            T->worstLag = fmax(T->worstLag, alct_relErr(D->w[a], R->w[a], ws));
            ENSURE_MSG(agrees(D->w[a], R->w[a], ws), "%s: pair %d w[%d] %.17g, reference %.17g",
                       label, f, a, D->w[a], R->w[a]);
        }
        for (int k = 0; k < 6; k++) {
            T->worstLag = fmax(T->worstLag, alct_relErr(D->T[k], R->T[k], 1));
            ENSURE_MSG(agrees(D->T[k], R->T[k], 1), "%s: pair %d T[%d] %.17g, reference %.17g",
                       label, f, k, D->T[k], R->T[k]);
        }
        T->worstLag = fmax(T->worstLag, alct_relErr(D->coef, R->coef, fabs(R->coef)));
        ENSURE_MSG(agrees(D->coef, R->coef, fabs(R->coef)),
                   "%s: pair %d coef %.17g, reference %.17g", label, f, D->coef, R->coef);
    }
    return ALC_TEST_PASS;
}

/// pos = XT + amp * uniform[-1, 1) per coordinate.
static void perturb(const double* xt, double* pos, size_t N, double amp, unsigned long long* rng) {
    for (size_t i = 0; i < N; i++) pos[i] = xt[i] + amp * alct_rnd(rng);
}

/// Friction pairs of B whose |u| at pos is below the smoothing threshold eps.
static int slowPairs(const alcrBackend* B, const double* pos, double eps) {
    int k = 0;
    for (int f = 0; f < B->nfric; f++) {
        const alcrFric* F = &B->fric[f];
        alcV3 x[4], xt[4];
        for (int a = 0; a < 4; a++) {
            x[a] = alcm_v3_load(pos + 3 * F->v[a]);
            xt[a] = alcm_v3_load(B->xt + 3 * F->v[a]);
        }
        double u[2];
        alcm_fric_u(F->w, F->T, x, xt, u);
        k += sqrt(u[0] * u[0] + u[1] * u[1]) < eps;
    }
    return k;
}

/// Energy, gradient and upper blocks at XHAT = XT + amp * noise on B's lagged set (the device
/// set lagged into D->d_fric), with B's kinematic mask.
static int runCase(alcrBackend* B, Dev* D, int nfric, double amp, unsigned long long* rng,
                   const char* label, Tally* T) {
    alcgStream* s = &D->s;
    int n = B->n;
    size_t N = 3 * (size_t)n;
    double eps = B->cp.frictionEpsV * B->h, h2 = B->h * B->h;
    alcgFricParams fp = {B->h, B->cp.frictionEpsV, 1};
    B->cp.frictionSecant = 1;
    // the slips of a previous assembly: random, below and beyond the threshold, so that the
    // trial point reverses some of them; the same list on the device
    int nf = B->nfric;
    for (int f = 0; f < nf; f++) {
        double y = 3 * eps * (1 + alct_rnd(rng)), a = 3.14159265358979 * alct_rnd(rng);
        B->fric[f].uIter[0] = y * cos(a);
        B->fric[f].uIter[1] = y * sin(a);
        B->fric[f].reversed = 0;
    }
    ENSURE(nf == nfric);
    ENSURE_OK(alcg_upload(s, D->d_fric, B->fric, sizeof(alcgFric) * (size_t)nf));
    alcgFric* hfr = (alcgFric*)malloc(sizeof(alcgFric) * (size_t)(nf > 0 ? nf : 1));
    ENSURE(hfr);
    // reference pattern (holds the friction stencils) with random starting values of the scale
    // of the friction terms: blocks h^2 coef 2 / eps, gradient h^2 coef
    double cmax = 0;
    for (int f = 0; f < B->nfric; f++) cmax = fmax(cmax, h2 * B->fric[f].coef);
    double aAmp = cmax * 2 / eps, gAmp = cmax;
    B->patternDirty = 1;
    ENSURE_OK(alcr_contact_pattern(B));
    alcrBsr* H = &B->A;
    for (long long e = 0; e < 9LL * H->nnzb; e++) H->val[e] = aAmp * alct_rnd(rng);
    for (size_t i = 0; i < N; i++) B->g[i] = gAmp * alct_rnd(rng);
    perturb(B->xt, B->xhat, N, amp, rng);
    T->slow += slowPairs(B, B->xhat, eps);
    double* g0 = (double*)malloc(sizeof(double) * N);
    double* g = (double*)malloc(sizeof(double) * N);
    double* valRef0 = (double*)malloc(sizeof(double) * 9 * (size_t)H->nnzb);
    ENSURE(g0 && g && valRef0);
    memcpy(g0, B->g, sizeof(double) * N);
    memcpy(valRef0, H->val, sizeof(double) * 9 * (size_t)H->nnzb);
    alcgBsr A;
    memset(&A, 0, sizeof A);
    ENSURE_MSG(alct_bsrUpload(H, &A, s), "%s: matrix upload: %s", label, s->err);
    size_t nv = 9 * (size_t)A.nnzb;
    double* val0 = (double*)malloc(sizeof(double) * nv);
    double* val = (double*)malloc(sizeof(double) * nv);
    double* v2 = (double*)malloc(sizeof(double) * nv);
    double* g2 = (double*)malloc(sizeof(double) * N);
    ENSURE(val0 && val && v2 && g2);
    ENSURE_OK(alcg_download(s, val0, A.d_val, sizeof(double) * nv));
    ENSURE_OK(alcg_upload(s, D->d_pos, B->xhat, sizeof(double) * N));
    ENSURE_OK(alcg_upload(s, D->d_kin, B->kin, (size_t)n));

    // energy at XHAT (scale: the energy, a sum of non-negative terms)
    double eref = alcr_friction_energy(B, B->xhat), edev = -1;
    ENSURE_MSG(
        alcg_friction_energy(&D->F, D->d_fric, nfric, &fp, D->d_xt, D->d_pos, &edev, s) == ALC_OK,
        "%s: %s", label, s->err);
    double rel = alct_relErr(edev, eref, fabs(eref));
    T->worstE = fmax(T->worstE, rel);
    ENSURE_MSG(rel <= FR_RTOL * alct_tolScale(), "%s: energy %.17g, reference %.17g", label, edev,
               eref);
    // the pairs the trial point reversed, marked alike
    ENSURE_OK(alcg_download(s, hfr, D->d_fric, sizeof(alcgFric) * (size_t)nf));
    int nrev = 0;
    for (int f = 0; f < nf; f++) {
        ENSURE_MSG(hfr[f].reversed == B->fric[f].reversed, "%s: pair %d reversed %d, reference %d",
                   label, f, hfr[f].reversed, B->fric[f].reversed);
        nrev += B->fric[f].reversed;
    }

    // assembly, twice from the same start (the marks as the energy left them): reproducible bits
    alcr_friction_assemble(B);
    ENSURE_MSG(B->nsecant == nrev, "%s: %d secant pairs of %d marked", label, B->nsecant, nrev);
    T->secant += nrev;
    for (int rep = 0; rep < 2; rep++) {
        int missing = -1, nsec = -1;
        ENSURE_OK(alcg_upload(s, A.d_val, val0, sizeof(double) * nv));
        ENSURE_OK(alcg_upload(s, D->d_g, g0, sizeof(double) * N));
        ENSURE_OK(alcg_upload(s, D->d_fric, hfr, sizeof(alcgFric) * (size_t)nf));
        ENSURE_MSG(alcg_friction_assemble(&D->F, D->d_fric, nfric, &fp, D->d_xt, D->d_pos, D->d_kin,
                                          &A, D->d_g, &missing, &nsec, s) == ALC_OK,
                   "%s: %s", label, s->err);
        ENSURE_MSG(missing == 0, "%s: %d blocks missing", label, missing);
        ENSURE_MSG(nsec == nrev, "%s: %d secant pairs, reference %d", label, nsec, nrev);
        ENSURE_OK(alcg_download(s, rep ? v2 : val, A.d_val, sizeof(double) * nv));
        ENSURE_OK(alcg_download(s, rep ? g2 : g, D->d_g, sizeof(double) * N));
    }
    ENSURE_MSG(!memcmp(v2, val, sizeof(double) * nv) && !memcmp(g2, g, sizeof(double) * N),
               "%s: two assemblies differ", label);
    // the marks cleared, the slips at XHAT kept
    ENSURE_OK(alcg_download(s, hfr, D->d_fric, sizeof(alcgFric) * (size_t)nf));
    for (int f = 0; f < nf; f++) {
        const alcrFric* F = &B->fric[f];
        double us = fabs(F->uIter[0]) + fabs(F->uIter[1]) + eps;
        ENSURE_MSG(hfr[f].reversed == 0 && F->reversed == 0 &&
                       agrees(hfr[f].uIter[0], F->uIter[0], us) &&
                       agrees(hfr[f].uIter[1], F->uIter[1], us),
                   "%s: pair %d after the assembly: u (%.17g, %.17g), reference (%.17g, %.17g)",
                   label, f, hfr[f].uIter[0], hfr[f].uIter[1], F->uIter[0], F->uIter[1]);
    }
    free(hfr);
    // the slips reversed at XT - (XHAT - XT): every pair beyond the threshold there
    double* mirror = (double*)malloc(sizeof(double) * N);
    ENSURE(mirror);
    for (size_t i = 0; i < N; i++) mirror[i] = 2 * B->xt[i] - B->xhat[i];
    ENSURE_OK(alcg_upload(s, D->d_pos, mirror, sizeof(double) * N));
    int rref = alcr_friction_reversals(B, mirror), rdev = -1;
    ENSURE_OK(alcg_friction_reversals(&D->F, D->d_fric, nfric, &fp, D->d_xt, D->d_pos, &rdev, s));
    ENSURE_MSG(rdev == rref, "%s: %d reversals, reference %d", label, rdev, rref);
    T->reversals += rref;
    free(mirror);

    // gradient (scale: the largest friction contribution and start value)
    double gs = 0;
    for (size_t i = 0; i < N; i++) gs = fmax(gs, fmax(fabs(B->g[i] - g0[i]), fabs(g0[i])));
    for (size_t i = 0; i < N; i++) {
        T->rows += B->g[i] != g0[i];
        T->worstG = fmax(T->worstG, alct_relErr(g[i], B->g[i], gs));
        ENSURE_MSG(agrees(g[i], B->g[i], gs), "%s: G[%zu] %.17g, reference %.17g", label, i, g[i],
                   B->g[i]);
    }
    // upper blocks (scale: the largest friction contribution and start value)
    double as = 0;
    for (long long e = 0; e < 9LL * H->nnzb; e++) {
        as = fmax(as, fmax(fabs(H->val[e] - valRef0[e]), fabs(valRef0[e])));
    }
    int k = 0;
    for (int i = 0; i < H->n; i++) {
        for (int t = H->rowptr[i]; t < H->rowptr[i + 1]; t++) {
            int j = H->col[t];
            if (j < i) continue;
            ENSURE_MSG(k < A.nnzb, "%s: device matrix too short", label);
            const double* r = H->val + 9 * (size_t)t;
            int changed = 0;
            for (int e = 0; e < 9; e++) {
                changed |= r[e] != valRef0[9 * (size_t)t + e];
                T->worstA = fmax(T->worstA, alct_relErr(val[9 * k + e], r[e], as));
                ENSURE_MSG(agrees(val[9 * k + e], r[e], as),
                           "%s: block (%d, %d) entry %d: %.17g, reference %.17g", label, i, j, e,
                           val[9 * k + e], r[e]);
            }
            T->blocks += changed;
            k++;
        }
    }
    ENSURE_MSG(k == A.nnzb, "%s: %d device blocks, %d reference upper blocks", label, A.nnzb, k);
    T->cases++;
    free(g0);
    free(g);
    free(valRef0);
    free(val0);
    free(val);
    free(v2);
    free(g2);
    alcg_bsr_free(&A);
    return ALC_TEST_PASS;
}

/// One scene after `steps` reference steps: the lag at XT, then three cases on its set.
static int sceneCases(const char* scene, int steps, Tally* T) {
    alctMotion mo;
    ENSURE_MSG(alct_motionMake(scene, steps, 1.0, &mo), "%s: motion", scene);
    alcrBackend* B = (alcrBackend*)mo.sim->be.state;
    ENSURE_MSG(alci_frictionOn(mo.m) && B->cp.friction, "%s: friction off", scene);
    ENSURE_MSG(B->npair > 0 && B->lastMu > 0, "%s: %d pairs, last mu %g after %d steps", scene,
               B->npair, B->lastMu, steps);
    int n = B->n, npair = B->npair;
    size_t N = 3 * (size_t)n;
    const alcModel* m = mo.m;
    char label[128];
    // the next step's start: XT = X = the state after the steps
    memcpy(B->x, mo.x0, sizeof(double) * N);
    memcpy(B->xt, mo.x0, sizeof(double) * N);
    alcgPair* hp = (alcgPair*)malloc(sizeof(alcgPair) * (size_t)npair);
    alcgFric* hf = (alcgFric*)malloc(sizeof(alcgFric) * (size_t)npair);
    ENSURE(hp && hf);
    for (int p = 0; p < npair; p++) alct_pairToDevice(&B->pairs[p], &hp[p]);
    alcr_friction_lag(B);
    ENSURE_MSG(B->nfric > 0, "%s: no friction pair lagged from %d pairs", scene, npair);

    // device: the pairs as the steps left them, linearized at XT there, then lagged
    Dev D;
    memset(&D, 0, sizeof D);
    ENSURE_OK(alcg_stream_make(&D.s));
    alcgStream* s = &D.s;
    size_t nm = (size_t)m->nmat * (size_t)m->nmat;
    int ok = alcg_friction_make(&D.F, n, npair + 3, s) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_pairs, sizeof(alcgPair) * (size_t)npair) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_fric, sizeof(alcgFric) * (size_t)(npair + 3)) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_xt, sizeof(double) * N) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_pos, sizeof(double) * N) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_g, sizeof(double) * N) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_kin, (size_t)n) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_vertBody, sizeof(int) * (size_t)n) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_bodyMat, sizeof(int) * (size_t)m->nbody) == ALC_OK &&
             alcg_malloc(s, (void**)&D.d_matFric, sizeof(double) * nm) == ALC_OK &&
             alcg_upload(s, D.d_pairs, hp, sizeof(alcgPair) * (size_t)npair) == ALC_OK &&
             alcg_upload(s, D.d_xt, B->xt, sizeof(double) * N) == ALC_OK &&
             alcg_upload(s, D.d_vertBody, m->vert_body, sizeof(int) * (size_t)n) == ALC_OK &&
             alcg_upload(s, D.d_bodyMat, m->body_mat, sizeof(int) * (size_t)m->nbody) == ALC_OK &&
             alcg_upload(s, D.d_matFric, m->mat_friction, sizeof(double) * nm) == ALC_OK &&
             alcg_activeSet_linearize(D.d_xt, D.d_pairs, npair, NULL, 0, 0, s) == ALC_OK;
    ENSURE_MSG(ok, "%s: device setup: %s", scene, s->err);
    alcgAlParams prm;
    memset(&prm, 0, sizeof prm);
    prm.mu = B->lastMu;
    prm.delta = B->lastDelta;
    prm.decay = B->cp.decay;
    prm.penalty = B->cp.penalty;
    alcgFricParams fp = {B->h, B->cp.frictionEpsV, 0};
    alcgFricMaterials mat = {D.d_vertBody, D.d_bodyMat, D.d_matFric, m->nmat,
                             m->opt.frictionDefault};
    int nfric = -1;
    ENSURE_MSG(
        alcg_friction_lag(&D.F, D.d_pairs, npair, &prm, &fp, &mat, D.d_fric, &nfric, s) == ALC_OK,
        "%s: lag: %s", scene, s->err);
    ENSURE_OK(alcg_download(s, hf, D.d_fric, sizeof(alcgFric) * (size_t)(nfric > 0 ? nfric : 0)));
    snprintf(label, sizeof label, "%s, lag", scene);
    if (compareLag(B, hf, nfric, label, T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    T->pairs += npair;
    T->fric += nfric;

    // energy and assembly below and beyond the threshold, then with extra kinematic vertices
    unsigned long long rng = 0xf1c7ULL ^ (unsigned long long)strlen(scene) * 7919ULL;
    double eps = B->cp.frictionEpsV * B->h;
    snprintf(label, sizeof label, "%s, slow", scene);
    if (runCase(B, &D, nfric, 0.2 * eps, &rng, label, T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    snprintf(label, sizeof label, "%s, sliding", scene);
    if (runCase(B, &D, nfric, 5 * eps, &rng, label, T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    for (int v = 0; v < n; v++) {
        if (alct_rnd(&rng) > 0.6) B->kin[v] = 1;
    }
    snprintf(label, sizeof label, "%s, kinematic", scene);
    if (runCase(B, &D, nfric, eps, &rng, label, T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    T->scenes++;
    free(hp);
    free(hf);
    devFree(&D);
    alct_motionFree(&mo);
    return ALC_TEST_PASS;
}

static void note(const Tally* T) {
    alct_note(
        "%d scenes, %d cases: %d pairs lagged into %d friction pairs, %d below eps at the "
        "iterate, %d given their secant stiffness, %d reversed at the mirrored point, %d blocks "
        "and %d gradient entries changed; worst rel: lag %.2g, E %.2g, G %.2g, A %.2g%s",
        T->scenes, T->cases, T->pairs, T->fric, T->slow, T->secant, T->reversals, T->blocks,
        T->rows, T->worstLag, T->worstE, T->worstG, T->worstA,
        FR_BITWISE ? " (bit for bit but E)" : "");
}

ALC_TEST(friction_scenesResting) {
    Tally T;
    memset(&T, 0, sizeof T);
    if (sceneCases("slope.yaml", 4, &T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    if (sceneCases("arch.yaml", 3, &T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    note(&T);
    ENSURE_MSG(T.secant > 0 && T.reversals > 0, "no pair reversed");
    return ALC_TEST_PASS;
}

ALC_TEST(friction_sceneRoller) {
    Tally T;
    memset(&T, 0, sizeof T);
    if (sceneCases("roller.yaml", 3, &T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    note(&T);
    return ALC_TEST_PASS;
}

ALC_TEST(friction_sceneMomentum) {
    Tally T;
    memset(&T, 0, sizeof T);
    if (sceneCases("momentum.yaml", 9, &T) != ALC_TEST_PASS) return ALC_TEST_FAIL;
    note(&T);
    return ALC_TEST_PASS;
}

ALC_TEST(friction_emptyAndErrors) {
    alcgStream s;
    ENSURE_OK(alcg_stream_make(&s));
    alcgFriction F;
    ENSURE_OK(alcg_friction_make(&F, 10, 4, &s));
    alcgAlParams prm;
    memset(&prm, 0, sizeof prm);
    prm.mu = 1;
    alcgFricParams fp = {0.01, 1e-3, 0};
    alcgFricMaterials mat;
    memset(&mat, 0, sizeof mat);
    // nothing to do on an empty set
    double e = -1;
    int nfric = -1, missing = -1;
    ENSURE_OK(alcg_friction_lag(&F, NULL, 0, &prm, &fp, &mat, NULL, &nfric, &s));
    ENSURE(nfric == 0 && F.nfric == 0);
    ENSURE_OK(alcg_friction_energy(&F, NULL, 0, &fp, NULL, NULL, &e, &s));
    ENSURE(e == 0);
    alcgBsr A;
    ENSURE_OK(alcg_bsr_make(&A, 10, 1, &s));
    ENSURE_OK(
        alcg_friction_assemble(&F, NULL, 0, &fp, NULL, NULL, NULL, &A, NULL, &missing, NULL, &s));
    ENSURE(missing == 0);
    int nrev = -1;
    ENSURE_OK(alcg_friction_reversals(&F, NULL, 0, &fp, NULL, NULL, &nrev, &s));
    ENSURE(nrev == 0);
    ENSURE(alcg_friction_reversals(&F, NULL, 0, &fp, NULL, NULL, NULL, &s) == ALC_ERR_INVALID_ARG);
    // a stencil vertex out of range, more pairs than the capacity
    alcgFric P;
    memset(&P, 0, sizeof P);
    P.v[0] = 0;
    P.v[1] = 1;
    P.v[2] = 2;
    P.v[3] = 10;
    alcgFric* d_f = NULL;
    ENSURE_OK(alcg_malloc(&s, (void**)&d_f, sizeof P));
    ENSURE_OK(alcg_upload(&s, d_f, &P, sizeof P));
    ENSURE(alcg_friction_incidence(&F, d_f, 1, &s) == ALC_ERR_INVALID_ARG);
    ENSURE(strstr(s.err, "outside") != NULL);
    ENSURE(alcg_friction_incidence(&F, d_f, 5, &s) == ALC_ERR_CAPACITY);
    ENSURE(alcg_friction_lag(&F, (const alcgPair*)d_f, 5, &prm, &fp, &mat, d_f, &nfric, &s) ==
           ALC_ERR_CAPACITY);
    // assembling a set the incidences were not built for
    ENSURE(alcg_friction_assemble(&F, d_f, 1, &fp, NULL, NULL, NULL, &A, NULL, NULL, NULL, &s) ==
           ALC_ERR_INVALID_ARG);
    // no previous step: nothing lagged
    prm.mu = 0;
    ENSURE_OK(alcg_friction_lag(&F, (const alcgPair*)d_f, 1, &prm, &fp, &mat, d_f, &nfric, &s));
    ENSURE(nfric == 0);
    alcg_free(d_f);
    alcg_bsr_free(&A);
    alcg_friction_free(&F);
    alcg_friction_free(NULL);
    alcg_stream_free(&s);
    return ALC_TEST_PASS;
}
