// Reference elasticity: per-tetrahedron energy, gradient and PSD-projected Hessian (shared
// math in hd/alcm_elastic.h), gathered row by row into the BSR matrix without write conflicts,
// the incremental potential of AL paper Eq. 2, and the inversion step bound.
#include "hd/alcm_elastic.h"
#include "ref/backend_ref.h"
#include "ref/vec_ref.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// alcm_eigFilterOf reads alctEigenFilter by its ids (host/hd/ does not include the public types)
_Static_assert(ALC_EIGEN_CLAMP == 0 && ALC_EIGEN_ABS == 1, "alctEigenFilter ids");

/// Bins of the histogram of binary exponents of the diagonal (covers 2^-1050 .. 2^1050).
#define ALCR_DIAG_BINS 2100

alctStatus alcr_elastic_make(alcrBackend* B) {
    const alcModel* m = B->m;
    int nt = m->ntet, n = B->n;
    B->elemH = (double*)malloc(sizeof(double) * 144 * (size_t)(nt > 0 ? nt : 1));
    B->elemG = (double*)malloc(sizeof(double) * 12 * (size_t)(nt > 0 ? nt : 1));
    B->elemE = (double*)malloc(sizeof(double) * (size_t)(nt > 0 ? nt : 1));
    B->tetMu = (double*)malloc(sizeof(double) * (size_t)(nt > 0 ? nt : 1));
    B->tetLam = (double*)malloc(sizeof(double) * (size_t)(nt > 0 ? nt : 1));
    B->tetModel = (int*)malloc(sizeof(int) * (size_t)(nt > 0 ? nt : 1));
    B->vtAdr = (int*)calloc((size_t)n + 1, sizeof(int));
    B->vtList = (int*)malloc(sizeof(int) * 4 * (size_t)(nt > 0 ? nt : 1));
    B->vtSlot = (int*)malloc(sizeof(int) * 4 * (size_t)(nt > 0 ? nt : 1));
    int nred = nt > n ? nt : n;
    if (B->fricCap > nred) nred = B->fricCap;
    if (B->pairCap > nred) nred = B->pairCap;
    B->redScratch = (double*)malloc(sizeof(double) * (size_t)(nred > 0 ? nred : 1));
    B->Minv = (double*)malloc(sizeof(double) * 9 * (size_t)B->nn);
    if (!B->elemH || !B->elemG || !B->elemE || !B->tetMu || !B->tetLam || !B->tetModel ||
        !B->vtAdr || !B->vtList || !B->vtSlot || !B->redScratch || !B->Minv) {
        return ALC_ERR_NOMEM;
    }
    B->bytes += sizeof(double) * (size_t)nt * (144 + 12 + 3) + sizeof(int) * (size_t)nt * 9 +
                sizeof(double) * ((size_t)nred + 9 * (size_t)B->nn);
    for (int t = 0; t < nt; t++) {
        int mat = m->body_mat[m->tet_body[t]];
        B->tetModel[t] = m->mat_model[mat];
        B->tetMu[t] = m->mat_lame[2 * mat];
        B->tetLam[t] = m->mat_lame[2 * mat + 1];
    }
    // vertex -> tetrahedron incidences (counting sort, deterministic order)
    for (int i = 0; i < 4 * nt; i++) B->vtAdr[m->tet_vert[i] + 1]++;
    for (int v = 0; v < n; v++) B->vtAdr[v + 1] += B->vtAdr[v];
    int* fill = (int*)calloc((size_t)n, sizeof(int));
    if (!fill) return ALC_ERR_NOMEM;
    for (int t = 0; t < nt; t++) {
        for (int a = 0; a < 4; a++) {
            int v = m->tet_vert[4 * t + a];
            B->vtSlot[4 * t + a] = B->vtAdr[v] + fill[v];
            B->vtList[B->vtAdr[v] + fill[v]++] = 4 * t + a;
        }
    }
    free(fill);
    // static pattern: the diagonal and every vertex sharing a tetrahedron
    // (and the rigid bodies' DOF nodes, rigid_ref.c)
    if (alci_vertexRows(m, &B->srowptr, &B->scol) != ALC_OK) return ALC_ERR_NOMEM;
    if (alcr_rigid_pattern(B) != ALC_OK) return ALC_ERR_NOMEM;
    int nnz = B->srowptr[B->nn];
    B->bytes += sizeof(int) * ((size_t)B->nn + 1 + (size_t)nnz) * 2;
    // the matrix holds the static pattern plus the off-diagonal blocks of every contact and
    // friction stencil (12 for 4 vertices)
    int per = ALCR_STENCIL_BLOCKS(B), stencils = B->pairCap + B->fricCap;
    alctStatus st = alcr_bsr_make(&B->A, B->nn, nnz + per * stencils, per * stencils);
    if (st != ALC_OK) return st;
    B->patternDirty = 1;
    return ALC_OK;
}

void alcr_elastic_free(alcrBackend* B) {
    free(B->elemH);
    free(B->elemG);
    free(B->elemE);
    free(B->tetMu);
    free(B->tetLam);
    free(B->tetModel);
    free(B->vtAdr);
    free(B->vtList);
    free(B->vtSlot);
    free(B->srowptr);
    free(B->scol);
    free(B->redScratch);
    free(B->Minv);
    alcr_bsr_free(&B->A);
}

static void loadTet(const alcModel* m, const double* pos, int t, alcV3 x[4]) {
    for (int a = 0; a < 4; a++) x[a] = alcm_v3_load(pos + 3 * m->tet_vert[4 * t + a]);
}

double alcr_elastic_energy(alcrBackend* B, double r) {
    const alcModel* m = B->m;
    int n = B->n, nt = m->ntet;
    double h2 = B->h * B->h;
    double* trial = B->trial;
    for (int i = 0; i < B->N; i++) trial[i] = B->xhat[i] + r * B->p[i];
    alcr_rigid_place(B, trial);
    // inertia 1/2 (x - xtilde)^T M (x - xtilde) over free vertices
    double* red = B->redScratch;
#pragma omp parallel for schedule(static) if (n > ALCR_PAR_MIN)
    for (int v = 0; v < n; v++) {
        double e = 0;
        if (!B->kin[v]) {
            for (int k = 0; k < 3; k++) {
                double d = trial[3 * v + k] - B->xtilde[3 * v + k];
                e += d * d;
            }
            e *= 0.5 * m->vert_mass[v];
        }
        red[v] = e;
    }
    double E = alcr_vec_sum(n, red);
    // elasticity h^2 Psi
#pragma omp parallel for schedule(static) if (nt > ALCR_PAR_MIN)
    for (int t = 0; t < nt; t++) {
        alcV3 x[4];
        loadTet(m, trial, t, x);
        red[t] = alcm_tet_energy(B->tetModel[t], B->tetMu[t], B->tetLam[t], m->tet_vol[t],
                                 alcm_m3_load(m->tet_Dminv + 9 * t), x);
    }
    E += h2 * alcr_vec_sum(nt, red);
    if (B->nr > 0) E += alcr_rigid_energy(B, trial);
    if (B->cp.friction) E += alcr_friction_energy(B, trial);
    return E;
}

/// Row i's gradient of E (inertia and h^2 elasticity) from the element gradients in elemG.
static void rowGradient(const alcrBackend* B, int i, double h2, double* gi) {
    const alcModel* m = B->m;
    double mass = m->vert_mass[i];
    for (int k = 0; k < 3; k++) gi[k] = mass * (B->xhat[3 * i + k] - B->xtilde[3 * i + k]);
    for (int q = B->vtAdr[i]; q < B->vtAdr[i + 1]; q++) {
        const double* ge = B->elemG + 12 * (B->vtList[q] >> 2) + 3 * (B->vtList[q] & 3);
        for (int k = 0; k < 3; k++) gi[k] += h2 * ge[k];
    }
}

void alcr_elastic_gradient(alcrBackend* B) {
    const alcModel* m = B->m;
    int n = B->n, nt = m->ntet;
    double h2 = B->h * B->h;
#pragma omp parallel for schedule(static) if (nt > ALCR_PAR_MIN)
    for (int t = 0; t < nt; t++) {
        alcV3 x[4];
        loadTet(m, B->xhat, t, x);
        alcm_tet_gradient(B->tetModel[t], B->tetMu[t], B->tetLam[t], m->tet_vol[t],
                          alcm_m3_load(m->tet_Dminv + 9 * t), x, B->elemG + 12 * t);
    }
#pragma omp parallel for schedule(static) if (n > ALCR_PAR_MIN)
    for (int i = 0; i < n; i++) {
        double* gi = B->g + 3 * i;
        if (B->kin[i]) {
            gi[0] = gi[1] = gi[2] = 0;
        } else {
            rowGradient(B, i, h2, gi);
        }
    }
}

alctStatus alcr_elastic_assemble(alcrBackend* B, alciAssembleOut* out) {
    const alcModel* m = B->m;
    int n = B->n, nt = m->ntet;
    double h2 = B->h * B->h;
    // per-tetrahedron gradient and projected Hessian (AL paper Eq. 16-17); with hessianReuse
    // the Hessians of the step's first assembly serve its later Newton iterations (the
    // gradients are always fresh: the subproblem converges to the same point, in a few more
    // iterations; bench/results/amd-epyc-2c/grasp.md)
    int reuse = m->opt.hessianReuse && B->elemHFresh;
    if (!reuse) B->hessianEvals++;
    B->elemHFresh = 1;
#pragma omp parallel for schedule(static) if (nt > ALCR_PAR_MIN)
    for (int t = 0; t < nt; t++) {
        alcV3 x[4];
        loadTet(m, B->xhat, t, x);
        alcM3 Dminv = alcm_m3_load(m->tet_Dminv + 9 * t);
        alcm_tet_gradient(B->tetModel[t], B->tetMu[t], B->tetLam[t], m->tet_vol[t], Dminv, x,
                          B->elemG + 12 * t);
        if (!reuse) {
            double He[144];
            alcm_tet_hessian(
                B->tetModel[t], B->tetMu[t], B->tetLam[t], m->tet_vol[t], Dminv, x, He,
                B->hessianExact ? ALCM_EIG_EXACT : alcm_eigFilterOf(m->opt.eigenFilter));
            // each vertex's three rows where the gather of its row reads them: stored by
            // tetrahedron, the gather's reads jumped across the whole array (a quarter of a
            // step of IPC's rods went into them, most of it waiting on memory)
            for (int a = 0; a < 4; a++) {
                memcpy(B->elemH + 36 * (size_t)B->vtSlot[4 * t + a], He + 36 * a,
                       sizeof(double) * 36);
            }
        }
    }
    // gather rows: each row owns its blocks, so rows run in parallel without conflicts
    alcrBsr* A = &B->A;
#pragma omp parallel for schedule(dynamic, 64) if (n > ALCR_PAR_MIN)
    for (int i = 0; i < n; i++) {
        int r0 = A->rowptr[i], r1 = A->rowptr[i + 1];
        memset(A->val + 9 * r0, 0, sizeof(double) * 9 * (size_t)(r1 - r0));
        double* gi = B->g + 3 * i;
        double* dg = A->val + 9 * A->diag[i];
        double mass = m->vert_mass[i];
        if (B->kin[i]) {
            // moving boundary DOFs eliminated: only the diagonal stays (§5.3)
            double dv = mass > 0 ? mass : 1;
            dg[0] = dg[4] = dg[8] = dv;
            gi[0] = gi[1] = gi[2] = 0;
            continue;
        }
        rowGradient(B, i, h2, gi);
        for (int k = 0; k < 3; k++) dg[4 * k] = mass;
        for (int q = B->vtAdr[i]; q < B->vtAdr[i + 1]; q++) {
            int t = B->vtList[q] >> 2;
            const double* He = B->elemH + 36 * (size_t)q;  // rows 3a..3a+2, a = vtList[q] & 3
            for (int b = 0; b < 4; b++) {
                int j = m->tet_vert[4 * t + b];
                if (B->kin[j]) continue;
                int blk = alcr_bsr_find(A, i, j);
                double* dst = A->val + 9 * blk;
                for (int k = 0; k < 3; k++) {
                    for (int l = 0; l < 3; l++) {
                        dst[3 * k + l] += h2 * He[12 * k + 3 * b + l];
                    }
                }
            }
        }
    }
    if (B->nr > 0) alcr_rigid_assemble(B);
    // max diagonal entry of Hess E over free DOFs (AL paper Eq. 20), from inertia and
    // elasticity: the friction Hessian acts in the tangent plane only and, in its static
    // regime, scales as 1/(h eps_v), which would make mu swing from step to step
    // and, so that one nearly degenerate element cannot set mu for the whole scene (issue 14:
    // 6.8e22 on the dolphin), the 99th percentile of the per-vertex largest entry, from a
    // histogram of binary exponents
    double md = 0;
    int hist[ALCR_DIAG_BINS] = {0}, nfree = 0;
    for (int i = 0; i < n; i++) {
        if (B->kin[i] || (B->nr > 0 && B->rigidOf[i] >= 0)) continue;
        const double* dg = A->val + 9 * A->diag[i];
        double vd = 0;
        for (int k = 0; k < 3; k++) vd = dg[4 * k] > vd ? dg[4 * k] : vd;
        if (vd > md) md = vd;
        if (!(vd > 0)) continue;
        int e = 0;
        frexp(vd, &e);  // vd < 2^e
        e += ALCR_DIAG_BINS / 2;
        hist[e < 0 ? 0 : (e >= ALCR_DIAG_BINS ? ALCR_DIAG_BINS - 1 : e)]++;
        nfree++;
    }
    // a rigid body counts with its translational diagonal, its mass (a contact's gradient on
    // its q node is the unit normal, as on a vertex), times ALCR_RIGID_MU_MASS: it has no
    // compliance to add, and mu at C times its mass left the iterates deep in their contacts
    // (a stack bounced by g h^2; backend_ref.h)
    for (int r = 0; r < B->nr; r++) {
        if (B->kin[B->n + 2 * r]) continue;  // a kinematic rigid body: a moving boundary
        double vd = ALCR_RIGID_MU_MASS * m->rigid_mass[r];
        if (vd > md) md = vd;
        if (!(vd > 0)) continue;
        int e = 0;
        frexp(vd, &e);
        e += ALCR_DIAG_BINS / 2;
        hist[e < 0 ? 0 : (e >= ALCR_DIAG_BINS ? ALCR_DIAG_BINS - 1 : e)]++;
        nfree++;
    }
    double q99 = 0;
    for (int b = ALCR_DIAG_BINS - 1, above = 0; b >= 0 && nfree > 0; b--) {
        above += hist[b];
        if (above > nfree / 100) {
            q99 = ldexp(1.0, b - ALCR_DIAG_BINS / 2);
            break;
        }
    }
    if (B->cp.friction) alcr_friction_assemble(B);
    out->maxDiag = md;
    out->q99Diag = q99;
    out->nblocks = A->nnzb;
    return ALC_OK;
}

/// One pass over the protected tetrahedra from -> to: the minimum of alcm_tet_maxStepTo (the
/// path bound) when alpha < 0, else of alcm_tet_endStepTo at alpha (the end-point bound).
static double tetPass(alcrBackend* B, const double* from, const double* to, double fraction,
                      int allTets, double alpha) {
    const alcModel* m = B->m;
    int nt = m->ntet;
    double* red = B->redScratch;
    double none = alpha < 0 ? 1 : alpha;
#pragma omp parallel for schedule(static) if (nt > ALCR_PAR_MIN)
    for (int t = 0; t < nt; t++) {
        red[t] = none;
        if (!allTets && B->tetModel[t] != ALC_MAT_NEOHOOKEAN) continue;
        const int* tv = m->tet_vert + 4 * t;
        if (B->kin[tv[0]] && B->kin[tv[1]] && B->kin[tv[2]] && B->kin[tv[3]]) continue;
        alcV3 x[4], p[4];
        for (int a = 0; a < 4; a++) {
            x[a] = alcm_v3_load(from + 3 * tv[a]);
            p[a] = alcm_v3_sub(alcm_v3_load(to + 3 * tv[a]), x[a]);
        }
        // keep above `fraction` of the current volume (IPC's filter), and never below
        // ALC_INV_FLOOR of the rest volume, so that repeated iterations cannot crush a
        // tetrahedron geometrically towards zero volume (where rounding would flip it); one
        // already below the floor keeps ALC_INV_FLOOR_KEEP of its volume (alcm_tet_invTarget)
        double v6 = alcm_v3_triple(alcm_v3_sub(x[1], x[0]), alcm_v3_sub(x[2], x[0]),
                                   alcm_v3_sub(x[3], x[0]));
        if (!(v6 > 0)) continue;
        double target = alcm_tet_invTarget(v6, fraction, m->tet_vol[t]);
        red[t] =
            alpha < 0 ? alcm_tet_maxStepTo(x, p, target) : alcm_tet_endStepTo(x, p, target, alpha);
    }
    double a = none;
    for (int t = 0; t < nt; t++) a = red[t] < a ? red[t] : a;
    return a;
}

int alcr_elastic_limitingTets(alcrBackend* B, double fraction, int allTets, double amax, int* out,
                              int cap) {
    tetPass(B, B->x, B->xhat, fraction, allTets, amax);
    // each tetrahedron's own largest alpha <= amax
    return alcm_tet_guardSelect(B->redScratch, B->m->ntet, amax, out, cap);
}

int alcr_elastic_cuttingTet(alcrBackend* B, double fraction, int allTets, int endPoint, double amax,
                            double* bound) {
    tetPass(B, B->x, B->xhat, fraction, allTets, endPoint ? amax : -1);
    int t = -1;
    if (alcm_tet_guardSelect(B->redScratch, B->m->ntet, amax, &t, 1) == 0) return -1;
    *bound = B->redScratch[t];
    return t;
}

double alcr_elastic_maxStep(alcrBackend* B, const double* from, const double* to, double fraction,
                            int allTets) {
    return tetPass(B, from, to, fraction, allTets, -1);
}

double alcr_elastic_endStep(alcrBackend* B, const double* from, const double* to, double fraction,
                            int allTets, double amax) {
    // each pass moves alpha to the lowest start of a stretch below target that holds it; no
    // alpha in between is valid for that tetrahedron, so the first alpha that every
    // tetrahedron accepts is the largest valid one (ALC_END_BOUND_PASSES, then the path bound)
    double a = amax < 1 ? amax : 1;
    for (int pass = 0; pass < ALC_END_BOUND_PASSES && a > 0; pass++) {
        double next = tetPass(B, from, to, fraction, allTets, a);
        if (next >= a) return a;
        a = next;
    }
    if (a <= 0) return 0;
    double path = tetPass(B, from, to, fraction, allTets, -1);
    return path < amax ? path : amax;
}
