// The penalty-ds model's time step on the reference backend (issue 22, item 1): Ding and
// Schroeder's penalty contact with attachment points and implicit Coulomb friction
// (papers/penalty-coulomb-friction-coupling.txt; the digest ../shared/research/seeds-001-002.md
// §1.3-1.6 and §3.1).
//
// Backward Euler in alcove's position form: the unknown is the end state x, and
//     g(x) = M (x - x~) + h^2 grad Psi(x) - h^2 f_c(x) = 0          (D&S Eq. of §1.6, times h)
// with x~ = x^t + h v^t + h^2 g_grav, Psi the elastic energy and f_c the contact forces. D&S's
// residual M dv - h f is g / h (units N s, in which the tolerance tau is given). A contact is a
// surface vertex Z (the particle) tied by a zero-length spring of stiffness k to an attachment
// X on another body's surface, X relaxed over the mesh to Y so that the spring's force lies in
// the Coulomb cone (alcm_ds_meshRelax, hd/alcm_penalty_ds_mesh.h): f_Z = k (Y - Z) while Z is
// below the surface at Y, and -f_Z spread over Y's triangle with Y's barycentric weights (D&S
// §1.5: central, so momentum is conserved). Friction has no potential: H = dg/dx is not
// symmetric, g = 0 is no stationarity condition, and the step is solved with D&S's merit
// function E = 1/2 |g|^2:
//   - direction: H dx = -g by GMRES(20) from zero, right-preconditioned (gmres_ref.h): then
//     |H dx + g| <= |g|, so dx is a descent direction of E (grad E . dx = g^T H dx < 0)
//     whenever GMRES makes any progress (digest §1.6 [D]); a direction that is still no descent
//     (GMRES made none) is replaced by -H^T g / dref^2 (steepest descent on E, scaled to
//     metres by the largest diagonal entry dref of H). The preconditioner (alctDsPrecond; the
//     paper names none): H's 3x3 block Jacobi, or a Cholesky factor of H's symmetric elastic
//     part plus the positive part of the springs' symmetrized diagonal blocks. With block
//     Jacobi, GMRES restarted every 20 iterations stagnates on stiff bodies: on a ball of
//     E = 1e7 Pa at h = 0.005 s, 1,000 iterations cut the residual by 4-44 times
//     (bench/results/amd-epyc-2c/penalty-ds.md), and the Newton iterations ran to their cap;
//   - step: Armijo backtracking on E from the largest fraction the inversion bound allows
//     (protected tetrahedra stay above their volume fraction, as in every alcove model).
//     D&S use Wolfe line searches; the curvature condition is not enforced here (the search
//     starts at the full Newton step and only shortens it);
//   - stop: |g| / h < tau (the equations hold; D&S's g is this one's g / h, in N s); or the
//     Newton cap, or a failed line search: D&S accept such an unconverged iterate, and so does
//     this mode (counted, warned about by the caller). D&S also stop at |H^T g| < tau (E at a
//     possibly non-zero minimum). Not here: made a momentum, |H^T g| / dref is |g| times the
//     ratio of H's eigenvalues along g to its largest, and on stiff bodies it fell below tau
//     while |g| was still 10 times tau. A non-zero minimum of E ends the step at its line
//     search instead, as unconverged.
// H = M + h^2 Hess Psi - h^2 df_c/dx uses the EXACT (unprojected) elastic Hessian, which D&S's
// merit function needs (grad E = H^T g must be the true gradient); the elastic part is
// symmetric and lives in the backend's BSR matrix, the contact part in a list of general 3x3
// blocks beside it. The contact Jacobian: a static pair (Y = X) has the closed form
// -k c c^T (x) I3 over c = (1, -b_X) (symmetric, D&S §1.5); a sliding pair's derivative goes
// through the relaxation's path (D&S: "the chain rule through the stored relaxation path"), and
// is taken here by central differences of the relaxation itself with its path held: a
// difference whose perturbed walk ends in another state, triangle or feature is replaced by the
// one-sided difference of the other side, or dropped when both sides change (counted). The
// columns are Z and every vertex of the triangles the walk crossed.
//
// Pairs (D&S §1.4): at the step's start and after every accepted iterate, CCD from x^t to the
// iterate over the broad phase's point-triangle candidates registers a vertex that has crossed
// another body's triangle, with its attachment at the closest point of the triangle at the time
// of impact; a vertex keeps one attachment per other body (the pair's key), and a registered
// pair is not looked for again. At the step's end the pairs that are not below the surface are
// dropped, and the others commit X := Y. Not handled, as in D&S: edge-edge penetration (only
// vertex-face crossings register); and here, self-contact (a vertex and a triangle of one body:
// D&S have it) and rigid bodies (refused when the simulation is made).
//
// What this model cannot promise (D&S): it is not penetration-free (the force grows with the
// depth; the deepest pair is in the statistics), and it has no convergence guarantee.
#include "hd/alcm_ccd.h"
#include "hd/alcm_penalty_ds_mesh.h"
#include "hd/alcm_svd.h"
#include "ref/backend_ref.h"
#include "ref/direct_ref.h"
#include "ref/gmres_ref.h"
#include "ref/penalty_ds_pair_ref.h"
#include "ref/vec_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// GMRES restart length (D&S: GMRES capped at 20 iterations).
#define DS_GMRES_M 20
/// Armijo's sufficient-decrease constant (Nocedal and Wright's c1).
#define DS_ARMIJO_C1 1e-4
/// Rescale s of the registration CCD: the reported time keeps this fraction of the start gap,
/// so the attachment is taken close to the true point of impact.
#define DS_CCD_RESCALE 0.01

typedef alcrDsPairEval DsEval;

/// A new pair found by the registration CCD, before it joins the set.
typedef struct {
    alciDsPair p;
    double toi;
} DsNew;

struct alcrDs_ {
    // the surface mesh's adjacency (alcm_ds_meshAdjacency over the model's triangles)
    int* triAdj;
    int* vertTriAdr;
    int* vertTri;
    // registered pairs, ascending keys, and their evaluations at the last iterate
    alciDsPair* pairs;
    DsEval* ev;
    int npair, cap;
    DsNew* fresh;
    int nfresh, freshCap;
    // the contact part of H: general 3x3 blocks (row, col vertices, free both)
    int* brow;
    int* bcol;
    double* bval;
    int nblk, blkCap;
    int cols[ALCR_DS_MAX_COLS];            // one pair's Jacobian columns
    double jac[4 * ALCR_DS_MAX_COLS * 9];  // and blocks (alcr_dsPair_jacobian)
    double* dinv;                          // block-Jacobi inverses of H's diagonal blocks (n x 9)
    double* work;                          // 4 N: accepted iterate, direction, H^T g, scratch
    alcrGmres gm;
    int gmN;           // the size gm was made for (0: not made)
    alcrDirect* chol;  // the Cholesky preconditioner's solver (alciDsParams.cholesky)
    double* pval;      // its matrix's block values (B->A's pattern; pvalCap blocks)
    int pvalCap;
    int useChol;     // this Newton iteration is preconditioned by chol
    double k;        // the step's spring stiffness (N/m)
    double h2;       // h^2 (s^2)
    alciDsOut* out;  // the step's counters
};

typedef struct alcrDs_ Ds;

// ---- memory ---------------------------------------------------------------------------------

void alcr_ds_free(alcrBackend* B) {
    Ds* S = B->ds;
    if (!S) return;
    free(S->triAdj);
    free(S->vertTriAdr);
    free(S->vertTri);
    free(S->pairs);
    free(S->ev);
    free(S->fresh);
    free(S->brow);
    free(S->bcol);
    free(S->bval);
    free(S->dinv);
    free(S->work);
    free(S->pval);
    alcr_direct_free(S->chol);
    alcr_gmres_free(&S->gm);
    free(S);
    B->ds = NULL;
}

size_t alcr_ds_bytes(const alcrBackend* B) {
    const Ds* S = B->ds;
    if (!S) return 0;
    size_t nt = B->m->ntri > 0 ? (size_t)B->m->ntri : 1;
    return sizeof(Ds) + sizeof(int) * (9 * nt + (size_t)B->n + 1) +
           sizeof(double) * (9 * (size_t)B->n + 4 * (size_t)B->N) +
           (sizeof(alciDsPair) + sizeof(DsEval)) * (size_t)S->cap +
           sizeof(DsNew) * (size_t)S->freshCap +
           (2 * sizeof(int) + 9 * sizeof(double)) * (size_t)S->blkCap + S->gm.bytes;
}

static alctStatus pairsReserve(Ds* S, int n) {
    if (n <= S->cap) return ALC_OK;
    int cap = n + n / 2 + 16;
    alciDsPair* p = (alciDsPair*)realloc(S->pairs, sizeof(alciDsPair) * (size_t)cap);
    if (!p) return ALC_ERR_NOMEM;
    S->pairs = p;
    DsEval* e = (DsEval*)realloc(S->ev, sizeof(DsEval) * (size_t)cap);
    if (!e) return ALC_ERR_NOMEM;
    S->ev = e;
    S->cap = cap;
    return ALC_OK;
}

static alctStatus blocksReserve(Ds* S, int n) {
    if (n <= S->blkCap) return ALC_OK;
    int cap = n + n / 2 + 256;
    int* r = (int*)realloc(S->brow, sizeof(int) * (size_t)cap);
    if (!r) return ALC_ERR_NOMEM;
    S->brow = r;
    int* c = (int*)realloc(S->bcol, sizeof(int) * (size_t)cap);
    if (!c) return ALC_ERR_NOMEM;
    S->bcol = c;
    double* v = (double*)realloc(S->bval, sizeof(double) * 9 * (size_t)cap);
    if (!v) return ALC_ERR_NOMEM;
    S->bval = v;
    S->blkCap = cap;
    return ALC_OK;
}

/// The step's state, made on first use: the adjacency of the model's surface (its failure
/// means a surface the relaxation cannot walk: refused when the simulation is made, api.c).
static alctStatus dsMake(alcrBackend* B) {
    if (B->ds) return ALC_OK;
    const alcModel* m = B->m;
    Ds* S = (Ds*)calloc(1, sizeof(Ds));
    if (!S) return ALC_ERR_NOMEM;
    B->ds = S;
    int nt = m->ntri > 0 ? m->ntri : 1;
    S->triAdj = (int*)malloc(sizeof(int) * 3 * (size_t)nt);
    S->vertTriAdr = (int*)malloc(sizeof(int) * ((size_t)B->n + 1));
    S->vertTri = (int*)malloc(sizeof(int) * 3 * (size_t)nt);
    int* scratch = (int*)malloc(sizeof(int) * 3 * (size_t)nt);
    S->dinv = (double*)malloc(sizeof(double) * 9 * (size_t)B->n);
    S->work = (double*)malloc(sizeof(double) * 4 * (size_t)B->N);
    if (!S->triAdj || !S->vertTriAdr || !S->vertTri || !scratch || !S->dinv || !S->work) {
        free(scratch);
        return ALC_ERR_NOMEM;
    }
    int rc = alcm_ds_meshAdjacency(m->tri_vert, m->ntri, B->n, S->triAdj, S->vertTriAdr, S->vertTri,
                                   scratch);
    free(scratch);
    if (rc != ALCM_DS_MESH_OK) {
        return ALC_ERROR(B->sim, ALC_ERR_UNSUPPORTED,
                         "penalty-ds: the surface mesh is not a consistently oriented manifold "
                         "(alcm_ds_meshAdjacency code %d)",
                         rc);
    }
    return ALC_OK;
}

// ---- pairs ----------------------------------------------------------------------------------

static alcmDsMesh meshAt(const alcrBackend* B, const double* pos) {
    const alcModel* m = B->m;
    const Ds* S = B->ds;
    alcmDsMesh mesh = {pos, m->tri_vert, S->triAdj, S->vertTriAdr, S->vertTri, B->n, m->ntri};
    return mesh;
}

/// The friction coefficient of pair P (the material table of its two bodies).
static double pairMu(const alcrBackend* B, const alciDsPair* P) {
    const int* t = B->m->tri_vert + 3 * P->tri;
    int v[4] = {P->z, t[0], t[1], t[2]};
    return alcr_friction_coef(B->m, v, ALCR_PT);
}

/// Relax pair P at pos and take its force.
static void relax(const alcrBackend* B, const alciDsPair* P, const double* pos, double mu,
                  DsEval* e, alcmDsMeshTrace* trace) {
    alcmDsMesh mesh = meshAt(B, pos);
    alcmDsAttach x = {P->tri, {P->b[0], P->b[1], P->b[2]}};
    alcr_dsPair_eval(&mesh, P->z, x, mu, B->ds->k, e, trace);
}

/// Add pair p's Jacobian blocks (penalty_ds_pair_ref.h), as -h^2 dF/dx, for the free rows and
/// columns. pos is perturbed and restored bit for bit.
static alctStatus addJacobian(alcrBackend* B, int p, double* pos, double mu,
                              const alcmDsMeshTrace* tr) {
    Ds* S = B->ds;
    const alciDsPair* P = &S->pairs[p];
    const DsEval* e = &S->ev[p];
    alcmDsMesh mesh = meshAt(B, pos);
    alcmDsAttach x = {P->tri, {P->b[0], P->b[1], P->b[2]}};
    alcrDsJacStats js = {0, 0, 0};
    int nc = alcr_dsPair_jacobian(pos, &mesh, P->z, x, mu, S->k, e, tr, S->cols, S->jac, &js);
    S->out->jacColumns += js.columns;
    S->out->jacOneSided += js.oneSided;
    S->out->jacDropped += js.dropped;
    const int* ty = B->m->tri_vert + 3 * e->r.attach.tri;
    int rows[4] = {P->z, ty[0], ty[1], ty[2]};
    alctStatus st = blocksReserve(S, S->nblk + 4 * nc);
    if (st != ALC_OK) return st;
    for (int a = 0; a < 4; a++) {
        if (B->kin[rows[a]]) continue;
        for (int c = 0; c < nc; c++) {
            if (B->kin[S->cols[c]]) continue;
            const double* J = S->jac + 9 * (nc * a + c);
            S->brow[S->nblk] = rows[a];
            S->bcol[S->nblk] = S->cols[c];
            for (int q = 0; q < 9; q++) S->bval[9 * S->nblk + q] = -S->h2 * J[q];
            S->nblk++;
        }
    }
    return ALC_OK;
}

/// Evaluate g (B->g) and the pairs' relaxations at XHAT, and with full the elastic part of H
/// (B->A) too (a line-search trial needs E alone); *E = 1/2 |g|^2. The contact blocks of H are
/// left out (contactJacobian adds them).
static alctStatus evaluate(alcrBackend* B, int full, double* E) {
    Ds* S = B->ds;
    if (full) {
        alciAssembleOut aout;
        B->elemHFresh = 0;  // the Hessian at this iterate, never reused
        alctStatus st = alcr_elastic_assemble(B, &aout);
        if (st != ALC_OK) return st;
    } else {
        alcr_elastic_gradient(B);
    }
    S->nblk = 0;
    int active = 0;
    for (int p = 0; p < S->npair; p++) {
        const alciDsPair* P = &S->pairs[p];
        relax(B, P, B->xhat, pairMu(B, P), &S->ev[p], NULL);
        const DsEval* e = &S->ev[p];
        if (!e->r.active) continue;
        active++;
        double F[12];
        alcr_dsPair_forces(e, F);
        const int* ty = B->m->tri_vert + 3 * e->r.attach.tri;
        int rows[4] = {P->z, ty[0], ty[1], ty[2]};
        for (int a = 0; a < 4; a++) {
            if (B->kin[rows[a]]) continue;
            for (int j = 0; j < 3; j++) B->g[3 * rows[a] + j] -= S->h2 * F[3 * a + j];
        }
    }
    if (active > S->out->contactsMax) S->out->contactsMax = active;
    *E = 0.5 * alcr_vec_dot(B->N, B->g, B->g);
    return ALC_OK;
}

/// The contact blocks of H at XHAT, after evaluate there: each active pair relaxed again with
/// its trace (the same walk, bit for bit) and differenced along it. Only accepted iterates
/// need it: a line-search trial needs E alone.
static alctStatus contactJacobian(alcrBackend* B) {
    Ds* S = B->ds;
    double t0 = alci_now();
    S->nblk = 0;
    for (int p = 0; p < S->npair; p++) {
        if (!S->ev[p].r.active) continue;
        const alciDsPair* P = &S->pairs[p];
        double mu = pairMu(B, P);
        alcmDsMeshTrace tr;
        relax(B, P, B->xhat, mu, &S->ev[p], &tr);
        alctStatus st = addJacobian(B, p, B->xhat, mu, &tr);
        if (st != ALC_OK) return st;
    }
    S->out->tAssemble += alci_now() - t0;
    return ALC_OK;
}

// ---- the linear algebra of H ----------------------------------------------------------------

/// out = H in (BSR part and the contact blocks).
static void opH(void* ctx, const double* in, double* out) {
    alcrBackend* B = (alcrBackend*)ctx;
    const Ds* S = B->ds;
    alcr_bsr_spmv(&B->A, in, out);
    for (int b = 0; b < S->nblk; b++) {
        const double* J = S->bval + 9 * b;
        const double* x = in + 3 * S->bcol[b];
        double* y = out + 3 * S->brow[b];
        for (int r = 0; r < 3; r++)
            y[r] += J[3 * r] * x[0] + J[3 * r + 1] * x[1] + J[3 * r + 2] * x[2];
    }
}

/// out = H^T in (the BSR part is symmetric: the exact elastic Hessian and the masses).
static void opHt(alcrBackend* B, const double* in, double* out) {
    const Ds* S = B->ds;
    alcr_bsr_spmv(&B->A, in, out);
    for (int b = 0; b < S->nblk; b++) {
        const double* J = S->bval + 9 * b;
        const double* x = in + 3 * S->brow[b];
        double* y = out + 3 * S->bcol[b];
        for (int c = 0; c < 3; c++) y[c] += J[c] * x[0] + J[3 + c] * x[1] + J[6 + c] * x[2];
    }
}

/// out = P^-1 in (the right preconditioner): by the Cholesky factor of this Newton iteration,
/// or with P H's 3x3 diagonal blocks.
static void opPrecond(void* ctx, const double* in, double* out) {
    alcrBackend* B = (alcrBackend*)ctx;
    if (B->ds->useChol && alcr_direct_solveFactored(B->ds->chol, in, out) == ALC_OK) return;
    const double* D = B->ds->dinv;
    for (int v = 0; v < B->n; v++) {
        const double* d = D + 9 * v;
        const double* x = in + 3 * v;
        for (int r = 0; r < 3; r++) {
            out[3 * v + r] = d[3 * r] * x[0] + d[3 * r + 1] * x[1] + d[3 * r + 2] * x[2];
        }
    }
}

/// Inverse of every diagonal block of H (the BSR diagonal plus the contact blocks on it); a
/// singular block falls back to the inverse of its diagonal. *dref = the largest diagonal entry.
static void blockJacobi(alcrBackend* B, double* dref) {
    Ds* S = B->ds;
    int n = B->n;
    for (int v = 0; v < n; v++)
        memcpy(S->dinv + 9 * v, B->A.val + 9 * B->A.diag[v], 9 * sizeof(double));
    for (int b = 0; b < S->nblk; b++) {
        if (S->brow[b] != S->bcol[b]) continue;
        for (int q = 0; q < 9; q++) S->dinv[9 * S->brow[b] + q] += S->bval[9 * b + q];
    }
    double md = 0;
    for (int v = 0; v < n; v++) {
        double* a = S->dinv + 9 * v;
        for (int k = 0; k < 3; k++) md = fabs(a[4 * k]) > md ? fabs(a[4 * k]) : md;
        double c[9] = {
            a[4] * a[8] - a[5] * a[7], a[2] * a[7] - a[1] * a[8], a[1] * a[5] - a[2] * a[4],
            a[5] * a[6] - a[3] * a[8], a[0] * a[8] - a[2] * a[6], a[2] * a[3] - a[0] * a[5],
            a[3] * a[7] - a[4] * a[6], a[1] * a[6] - a[0] * a[7], a[0] * a[4] - a[1] * a[3]};
        double det = a[0] * c[0] + a[1] * c[3] + a[2] * c[6];
        double scale = fabs(a[0]) + fabs(a[4]) + fabs(a[8]);
        if (fabs(det) > 1e-12 * scale * scale * scale && isfinite(det)) {
            for (int q = 0; q < 9; q++) a[q] = c[q] / det;
        } else {
            double d0 = a[0], d1 = a[4], d2 = a[8];
            memset(a, 0, 9 * sizeof(double));
            a[0] = d0 != 0 ? 1 / d0 : 1;
            a[4] = d1 != 0 ? 1 / d1 : 1;
            a[8] = d2 != 0 ? 1 / d2 : 1;
        }
    }
    *dref = md > 0 ? md : 1;
}

/// Factor the Cholesky preconditioner at XHAT: H's symmetric part from the BSR matrix (the
/// masses and the exact elastic Hessian) plus the positive part of the symmetric part of the
/// contact blocks on its diagonal (the springs' stiffness on their own vertices); S->useChol = 1
/// when it is positive definite and factored, else 0 (block Jacobi serves, counted).
static alctStatus cholFactor(alcrBackend* B) {
    Ds* S = B->ds;
    const alcrBsr* A = &B->A;
    S->useChol = 0;
    if (!S->chol) {
        alctStatus st = alcr_direct_make(&S->chol, B->n);
        if (st != ALC_OK) return st;
    }
    if (S->pvalCap < A->nnzb) {
        double* v = (double*)realloc(S->pval, sizeof(double) * 9 * (size_t)A->nnzb);
        if (!v) return ALC_ERR_NOMEM;
        S->pval = v;
        S->pvalCap = A->nnzb;
    }
    memcpy(S->pval, A->val, sizeof(double) * 9 * (size_t)A->nnzb);
    for (int b = 0; b < S->nblk; b++) {
        if (S->brow[b] != S->bcol[b]) continue;
        // the block's symmetric part, its negative eigenvalues dropped: a sliding spring's
        // -k mu r^ n^T term makes it indefinite (-k mu^2 / 4 along the slip)
        alcV3 ev;
        alcM3 Q;
        alcm_m3_symEigen(alcm_m3_load(S->bval + 9 * b), &ev, &Q);
        double* d = S->pval + 9 * A->diag[S->brow[b]];
        for (int i = 0; i < 3; i++) {
            double l = alcm_v3_get(ev, i);
            if (!(l > 0)) continue;
            alcV3 q = alcm_m3_col(Q, i);
            for (int r = 0; r < 3; r++) {
                for (int c = 0; c < 3; c++)
                    d[3 * r + c] += l * alcm_v3_get(q, r) * alcm_v3_get(q, c);
            }
        }
    }
    alcrBsr P = *A;
    P.val = S->pval;
    long info = 0;
    alctStatus st = alcr_direct_factor(S->chol, &P, &info);
    if (st != ALC_OK) return st;
    S->useChol = info == 0;
    if (!S->useChol) S->out->cholFallbacks++;
    return ALC_OK;
}

// ---- registration ---------------------------------------------------------------------------

/// Index of key in the pairs, or -1.
static int findKey(const Ds* S, long long key) {
    int lo = 0, hi = S->npair - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (S->pairs[mid].key < key) {
            lo = mid + 1;
        } else if (S->pairs[mid].key > key) {
            hi = mid - 1;
        } else {
            return mid;
        }
    }
    return -1;
}

/// Barycentric weights of the point of triangle p closest to q.
static void closestWeights(const alcV3 p[3], alcV3 q, double b[3]) {
    alcm_ds_baryOf(p, q, b);
    if (b[0] >= 0 && b[1] >= 0 && b[2] >= 0) return;
    double best = HUGE_VAL;
    for (int e = 0; e < 3; e++) {
        alcV3 a = p[e], d = alcm_v3_sub(p[(e + 1) % 3], a);
        double dd = alcm_v3_dot(d, d);
        double s = dd > 0 ? alcm_v3_dot(alcm_v3_sub(q, a), d) / dd : 0;
        s = s < 0 ? 0 : (s > 1 ? 1 : s);
        double dist = alcm_v3_norm(alcm_v3_sub(alcm_v3_mad(a, s, d), q));
        if (dist < best) {
            best = dist;
            b[e] = 1 - s;
            b[(e + 1) % 3] = s;
            b[(e + 2) % 3] = 0;
        }
    }
}

static int cmpNew(const void* a, const void* b) {
    const DsNew* x = (const DsNew*)a;
    const DsNew* y = (const DsNew*)b;
    if (x->p.key != y->p.key) return x->p.key < y->p.key ? -1 : 1;
    if (x->toi != y->toi) return x->toi < y->toi ? -1 : 1;
    return x->p.tri < y->p.tri ? -1 : (x->p.tri > y->p.tri);
}

/// CCD from x^t to XHAT: vertices that crossed another body's triangle and have no
/// attachment on that body yet join the set (file comment). *added = how many.
static alctStatus registerPairs(alcrBackend* B, int* added) {
    Ds* S = B->ds;
    const alcModel* m = B->m;
    double t0 = alci_now();
    *added = 0;
    alcrBroadInput in = alcr_ccd_broadInput(B, B->xt, B->xhat, NULL, 0);
    alctStatus st = alcr_broad_build(B->broad, &in);
    if (st != ALC_OK) return ALC_ERROR(B->sim, st, "broad-phase build failed");
    int npt = 0, grown = 0;
    st = alcr_ccd_query(B, &in, 0, &npt, &grown);
    if (st != ALC_OK) return st;
    if (npt > S->out->candidatesMax) S->out->candidatesMax = npt;
    S->nfresh = 0;
    for (int c = 0; c < npt; c++) {
        int v[4], type, t = B->bpPT[2 * c + 1];
        alcr_ccd_candidate(B, c, npt, v, &type);
        int body = m->tri_body[t];
        if (m->vert_body[v[0]] == body) continue;  // no self-contact in this mode
        if (B->kin[v[0]] && B->kin[v[1]] && B->kin[v[2]] && B->kin[v[3]]) continue;
        long long key = (long long)v[0] * m->nbody + body;
        if (findKey(S, key) >= 0) continue;
        alcV3 x[4], dx[4];
        for (int a = 0; a < 4; a++) {
            x[a] = alcm_v3_load(B->xt + 3 * v[a]);
            dx[a] = alcm_v3_sub(alcm_v3_load(B->xhat + 3 * v[a]), x[a]);
        }
        double toi = 1;
        if (!alcm_ccd_pt(x, dx, 0, DS_CCD_RESCALE, 1, m->opt.ccdMaxIter, &toi, NULL)) continue;
        alcV3 q[3];
        for (int a = 0; a < 3; a++) q[a] = alcm_v3_mad(x[a + 1], toi, dx[a + 1]);
        if (S->nfresh == S->freshCap) {
            int cap = 2 * S->freshCap + 64;
            DsNew* f = (DsNew*)realloc(S->fresh, sizeof(DsNew) * (size_t)cap);
            if (!f) return ALC_ERR_NOMEM;
            S->fresh = f;
            S->freshCap = cap;
        }
        DsNew* f = &S->fresh[S->nfresh++];
        f->p.key = key;
        f->p.z = v[0];
        f->p.tri = t;
        closestWeights(q, alcm_v3_mad(x[0], toi, dx[0]), f->p.b);
        f->toi = toi;
    }
    if (S->nfresh > 0) {
        // the earliest impact of each key joins; merge into the sorted set
        qsort(S->fresh, (size_t)S->nfresh, sizeof(DsNew), cmpNew);
        int u = 0;
        for (int i = 0; i < S->nfresh; i++) {
            if (u == 0 || S->fresh[i].p.key != S->fresh[u - 1].p.key) S->fresh[u++] = S->fresh[i];
        }
        st = pairsReserve(S, S->npair + u);
        if (st != ALC_OK) return st;
        int i = S->npair - 1, j = u - 1, w = S->npair + u - 1;
        while (j >= 0) {
            if (i >= 0 && S->pairs[i].key > S->fresh[j].p.key) {
                S->pairs[w--] = S->pairs[i--];
            } else {
                S->pairs[w--] = S->fresh[j--].p;
            }
        }
        S->npair += u;
        *added = u;
        S->out->registered += u;
    }
    S->out->tCcd += alci_now() - t0;
    return ALC_OK;
}

// ---- the step -------------------------------------------------------------------------------

alctStatus alcr_ds_step(alcrBackend* B, const alciDsParams* prm, alciDsOut* out) {
    memset(out, 0, sizeof *out);
    out->alphaMin = 1;
    alctStatus st = dsMake(B);
    if (st != ALC_OK) return st;
    Ds* S = B->ds;
    S->out = out;
    S->k = prm->k;
    S->h2 = B->h * B->h;
    int N = B->N;
    if (S->gmN != N) {
        alcr_gmres_free(&S->gm);
        st = alcr_gmres_make(&S->gm, N, DS_GMRES_M);
        if (st != ALC_OK) return st;
        S->gmN = N;
    }
    double *xacc = S->work, *dx = xacc + N, *gtH = dx + N, *tmp = gtH + N;
    B->hessianExact = 1;
    st = alcr_contact_pattern(B);  // the static pattern: penalty-ds has no AL pairs
    int added = 0;
    if (st == ALC_OK) st = registerPairs(B, &added);
    double E = 0, ta = alci_now();
    if (st == ALC_OK) st = evaluate(B, 1, &E);
    out->tAssemble += alci_now() - ta;
    if (st == ALC_OK) st = contactJacobian(B);
    double h = B->h;
    for (int it = 0; st == ALC_OK; it++) {
        // the stopping test at this iterate
        double dref = 1;
        ta = alci_now();
        blockJacobi(B, &dref);
        opHt(B, B->g, gtH);
        out->tSolve += alci_now() - ta;
        double gn = sqrt(2 * E) / h;
        double sn = sqrt(alcr_vec_dot(N, gtH, gtH)) / (h * dref);
        out->residual = gn;
        out->stationarity = sn;
        if (gn < prm->tol) {
            out->converged = 1;
            break;
        }
        if (it >= prm->maxNewton) break;
        st = alci_cancelled(B->sim, prm->data, "penalty-ds Newton iteration", it);
        if (st != ALC_OK) break;
        // the direction: H dx = -g by right-preconditioned GMRES from zero
        double ts = alci_now();
        if (prm->cholesky) st = cholFactor(B);
        if (st != ALC_OK) break;
        for (int i = 0; i < N; i++) tmp[i] = -B->g[i];
        alcrGmresOut go;
        st =
            alcr_gmres_solve(&S->gm, opH, opPrecond, B, tmp, dx, prm->gmresTol, prm->gmresMax, &go);
        if (st != ALC_OK) break;
        out->newton++;
        out->gmresIters += go.iters;
        if (go.iters > out->gmresMax) out->gmresMax = go.iters;
        opH(B, dx, tmp);
        double slope = alcr_vec_dot(N, B->g, tmp);  // grad E . dx = g^T H dx
        if (!(slope < 0)) {
            // no descent (GMRES made no progress): steepest descent on E, in metres
            for (int i = 0; i < N; i++) dx[i] = -gtH[i] / (dref * dref);
            slope = -alcr_vec_dot(N, gtH, gtH) / (dref * dref);
            out->fallbacks++;
        }
        out->tSolve += alci_now() - ts;
        if (!(slope < 0)) {  // H^T g = 0: nothing to descend along (reported as a failed search)
            out->lsFails++;
            break;
        }
        // the line search: Armijo on E from the inversion bound's fraction
        ts = alci_now();
        memcpy(xacc, B->xhat, sizeof(double) * (size_t)N);
        double amax = 1;
        if (prm->nonInvertible || prm->allTets) {
            for (int i = 0; i < N; i++) tmp[i] = xacc[i] + dx[i];
            amax = alcr_elastic_maxStep(B, xacc, tmp, prm->fraction, prm->allTets);
        }
        double alpha = amax, Et = E;
        int ok = 0;
        for (int ls = 0; ls <= prm->lsMaxIter && alpha > 0; ls++) {
            for (int i = 0; i < N; i++) B->xhat[i] = xacc[i] + alpha * dx[i];
            st = evaluate(B, 0, &Et);
            if (st != ALC_OK) break;
            if (isfinite(Et) && Et <= E + DS_ARMIJO_C1 * alpha * slope) {
                ok = 1;
                break;
            }
            alpha *= 0.5;
        }
        out->tLineSearch += alci_now() - ts;
        if (st != ALC_OK) break;
        if (!ok) {
            // no decrease along the direction: the step ends at the last iterate (D&S go on
            // with an unconverged iterate)
            out->lsFails++;
            memcpy(B->xhat, xacc, sizeof(double) * (size_t)N);
            st = evaluate(B, 0, &E);  // the pairs' state at the kept iterate
            break;
        }
        alci_log(B->sim, 3,
                 "penalty-ds step %ld iter %d: |g| %.3e N s, |H^T g| / dref %.3e N s, GMRES %d "
                 "iterations to %.2e of %.2e, slope %.3e, alpha %.3e (of %.3e), E %.3e -> %.3e",
                 prm->data->step + 1, it + 1, gn, sn, go.iters, go.r, go.r0, slope, alpha, amax, E,
                 Et);
        E = Et;
        out->alphaSum += alpha;
        if (alpha < out->alphaMin) out->alphaMin = alpha;
        // H at the new iterate, and g again with the pairs it brought in
        st = registerPairs(B, &added);
        ta = alci_now();
        if (st == ALC_OK) st = evaluate(B, 1, &E);
        out->tAssemble += alci_now() - ta;
        if (st == ALC_OK) st = contactJacobian(B);
        int act = 0;
        for (int p = 0; p < S->npair; p++) act += S->ev[p].r.active;
        out->contactsSum += act;
    }
    B->hessianExact = 0;
    if (st != ALC_OK) return st;
    // the step's end: X := the iterate; active pairs commit X := Y, the others leave
    memcpy(B->x, B->xhat, sizeof(double) * (size_t)N);
    out->pairs = S->npair;
    int w = 0;
    for (int p = 0; p < S->npair; p++) {
        const DsEval* e = &S->ev[p];
        if (!e->r.active) {
            out->pruned++;
            continue;
        }
        alcV3 z = alcm_v3_load(B->x + 3 * S->pairs[p].z);
        double depth = alcm_v3_dot(alcm_v3_sub(e->r.y, z), e->r.n);
        if (depth > out->penetration) out->penetration = depth;
        out->active++;
        out->dynamic += e->r.dynamic;
        alciDsPair P = S->pairs[p];
        P.tri = e->r.attach.tri;
        for (int i = 0; i < 3; i++) P.b[i] = e->r.attach.b[i];
        S->ev[w] = *e;
        S->pairs[w++] = P;
    }
    S->npair = w;
    return ALC_OK;
}

// ---- carry, report --------------------------------------------------------------------------

alctStatus alcr_ds_getCarry(const alcrBackend* B, alciDsPair* out, int cap, int* n) {
    int np = B->ds ? B->ds->npair : 0;
    *n = np;
    if (!out) return ALC_OK;
    if (np > cap) return ALC_ERR_CAPACITY;
    if (np > 0) memcpy(out, B->ds->pairs, sizeof(alciDsPair) * (size_t)np);
    return ALC_OK;
}

alctStatus alcr_ds_setCarry(alcrBackend* B, const alciDsPair* in, int n) {
    if (n == 0) {  // nothing carried (and no surface check for the other models' checkpoints)
        if (B->ds) B->ds->npair = 0;
        return ALC_OK;
    }
    alctStatus st = dsMake(B);
    if (st != ALC_OK) return st;
    st = pairsReserve(B->ds, n);
    if (st != ALC_OK) return st;
    if (n > 0) memcpy(B->ds->pairs, in, sizeof(alciDsPair) * (size_t)n);
    B->ds->npair = n;
    for (int p = 0; p < n; p++) memset(&B->ds->ev[p], 0, sizeof(DsEval));
    return ALC_OK;
}

int alcr_ds_nactive(const alcrBackend* B) {
    const Ds* S = B->ds;
    int n = 0;
    for (int p = 0; S && p < S->npair; p++) n += S->ev[p].r.active;
    return n;
}

void alcr_ds_report(const alcrBackend* B, alcContact* out, int cap, int* n, double* bodyForce) {
    const Ds* S = B->ds;
    if (!S) return;
    const alcModel* m = B->m;
    for (int p = 0; p < S->npair; p++) {
        const DsEval* e = &S->ev[p];
        if (!e->r.active) continue;
        const alciDsPair* P = &S->pairs[p];
        const int* ty = m->tri_vert + 3 * e->r.attach.tri;
        int bz = m->vert_body[P->z], bt = m->tri_body[e->r.attach.tri];
        double fn = alcm_v3_dot(e->f, e->r.n);
        alcV3 ft = alcm_v3_mad(e->f, -fn, e->r.n);
        if (bodyForce) {
            for (int j = 0; j < 3; j++) {
                bodyForce[3 * bz + j] += alcm_v3_get(e->f, j);
                bodyForce[3 * bt + j] -= alcm_v3_get(e->f, j);
            }
        }
        if (*n >= cap) continue;
        alcContact* c = &out[(*n)++];
        memset(c, 0, sizeof *c);
        c->type = ALC_CONTACT_POINT_TRIANGLE;
        c->vert[0] = P->z;
        for (int i = 0; i < 3; i++) c->vert[1 + i] = ty[i];
        c->body[0] = bz;
        c->body[1] = bt;
        alcV3 z = alcm_v3_load(B->x + 3 * P->z);
        c->distance = -alcm_v3_dot(alcm_v3_sub(e->r.y, z), e->r.n);  // negative: the depth
        for (int j = 0; j < 3; j++) {
            c->normal[j] = alcm_v3_get(e->r.n, j);
            c->frictionForce[j] = alcm_v3_get(ft, j);
            c->point[0][j] = alcm_v3_get(z, j);
            c->point[1][j] = alcm_v3_get(e->r.y, j);
        }
        c->normalForce = fn > 0 ? fn : 0;
        c->lambda = c->normalForce * B->h * B->h;
        c->gamma = 1;
        c->weight[0] = 1;
        for (int i = 0; i < 3; i++) c->weight[1 + i] = e->r.attach.b[i];
    }
}
