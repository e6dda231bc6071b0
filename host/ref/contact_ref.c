// Reference AL contact: the active set C with multipliers and decay factors, the linearized
// constraints of AL paper Eq. 10, the augmented terms of Eq. 12, the updates of Alg. 2 and the
// active-set update of Alg. 3 (papers/barrier-free-al-elastodynamics.txt).
//
// The slack is minimized out of Eq. 12: with s = max(0, c - lambda/mu) (Eq. 14) each pair
// contributes gamma * phi(c), phi(c) = mu/2 c^2 - lambda c for c < lambda/mu and
// -lambda^2/(2 mu) beyond, which is C1 and convex in c; its derivative mu (c - lambda/mu - s)
// is exactly the gradient coefficient of Alg. 2 line 10. mu is per pair: the common mu of
// Eq. 20 times the pair's boost, which the multiplier update raises for a pair the subproblem
// keeps violating by more than delta (alcm_pair_alUpdate, hd/alcm_pairstate.h).
//
// Hessian: Alg. 2 line 11 adds mu gamma grad d grad d^T for every pair in C, active or not.
// alcove adds it only for pairs active at the current iterate (the exact curvature of the
// piecewise-quadratic L), and a subproblem ends on a full Newton step only when no pair
// changed sides during it, so that a full step lands on the subproblem's minimizer. With the
// printed Hessian, an inactive pair (lambda = 0, c > 0: a body just above a surface) keeps a
// stiffness mu gamma >> the vertex mass in the normal direction, the Newton step there is
// scaled down by about M / (M + mu gamma), the full step is still accepted, and the body
// hovers over the surface with no contact force for several steps; under friction that
// alone made a block on a slope stick and slip at the wrong threshold.
#include "contact_report.h"
#include "hd/alcm_distance.h"
#include "hd/alcm_elastic.h"
#include "hd/alcm_friction.h"
#include "hd/alcm_vec.h"
#include "ref/backend_ref.h"
#include "ref/vec_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

alctStatus alcr_contact_make(alcrBackend* B) {
    const alcModel* m = B->m;
    const alcSimDef* def = &B->sim->def;
    int cap = def->capacity.contactPairs;
    if (cap <= 0) cap = 8 * m->nsvert > 4096 ? 8 * m->nsvert : 4096;
    B->pairCap = cap;
    B->fricCap = cap;
    B->pairs = (alcrPair*)malloc(sizeof(alcrPair) * (size_t)cap);
    B->pairsTmp = (alcrPair*)malloc(sizeof(alcrPair) * (size_t)cap);
    B->vpAdr = (int*)calloc((size_t)B->n + 1, sizeof(int));
    B->vpList = (int*)malloc(sizeof(int) * 4 * (size_t)cap);
    B->pairE = (double*)malloc(sizeof(double) * (size_t)cap);
    B->stencilWidth = B->nr > 0 ? ALCR_RIGID_STENCIL : 4;
    B->stencil = (int*)malloc(sizeof(int) * 2 * (size_t)B->stencilWidth * (size_t)cap);
    if (!B->pairs || !B->pairsTmp || !B->vpAdr || !B->vpList || !B->pairE || !B->stencil) {
        return ALC_ERR_NOMEM;
    }
    if (alcr_rigidContact_alloc(B, cap) != ALC_OK) return ALC_ERR_NOMEM;
    B->bytes +=
        (sizeof(alcrPair) * 2 + sizeof(int) * (4 + 2 * (size_t)B->stencilWidth) + sizeof(double)) *
            (size_t)cap +
        sizeof(int) * ((size_t)B->n + 1);
    B->npair = 0;
    return ALC_OK;
}

/// Grow every buffer sized by the pair capacity (pairs, friction pairs, incidences, pattern
/// scratch, matrix blocks). Called between iterations when the active set overflows.
static alctStatus growPairs(alcrBackend* B, int cap) {
    int old = B->pairCap;
    alcrPair* p = (alcrPair*)realloc(B->pairs, sizeof(alcrPair) * (size_t)cap);
    if (p) B->pairs = p;
    alcrPair* pt = (alcrPair*)realloc(B->pairsTmp, sizeof(alcrPair) * (size_t)cap);
    if (pt) B->pairsTmp = pt;
    int* vl = (int*)realloc(B->vpList, sizeof(int) * 4 * (size_t)cap);
    if (vl) B->vpList = vl;
    double* pe = (double*)realloc(B->pairE, sizeof(double) * (size_t)cap);
    if (pe) B->pairE = pe;
    int* st = (int*)realloc(B->stencil, sizeof(int) * 2 * (size_t)B->stencilWidth * (size_t)cap);
    if (st) B->stencil = st;
    alcrFric* fr = (alcrFric*)realloc(B->fric, sizeof(alcrFric) * (size_t)cap);
    if (fr) B->fric = fr;
    double* fe = (double*)realloc(B->fricE, sizeof(double) * (size_t)cap);
    if (fe) B->fricE = fe;
    int nred = B->m->ntet > B->n ? B->m->ntet : B->n;
    if (cap > nred) nred = cap;
    double* rs = (double*)realloc(B->redScratch, sizeof(double) * (size_t)nred);
    if (rs) B->redScratch = rs;
    if (!p || !pt || !vl || !pe || !st || !fr || !fe || !rs) return ALC_ERR_NOMEM;
    if (alcr_rigidContact_alloc(B, cap) != ALC_OK) return ALC_ERR_NOMEM;
    // the matrix: static pattern plus the off-diagonal blocks of a contact and a friction
    // stencil per pair (12 each for 4 vertices)
    int nnzStatic = B->srowptr[B->nn];
    int per = 2 * ALCR_STENCIL_BLOCKS(B);
    alcrBsr A;
    alctStatus s = alcr_bsr_make(&A, B->nn, nnzStatic + per * cap, per * cap);
    if (s != ALC_OK) return s;
    alcr_bsr_free(&B->A);
    B->A = A;
    B->pairCap = cap;
    B->fricCap = cap;
    B->bytes += (sizeof(alcrPair) * 2 + sizeof(int) * 12 + sizeof(double) * 2 + sizeof(alcrFric)) *
                (size_t)(cap - old);
    B->patternDirty = 1;
    return ALC_OK;
}

void alcr_contact_free(alcrBackend* B) {
    free(B->pairs);
    free(B->pairsTmp);
    free(B->vpAdr);
    free(B->vpList);
    free(B->pairE);
    free(B->stencil);
    alcr_rigidContact_free(B);
}

/// Rebuild the vertex -> pair incidence lists (counting sort, deterministic).
static void buildIncidence(alcrBackend* B) {
    int n = B->n;
    memset(B->vpAdr, 0, sizeof(int) * ((size_t)n + 1));
    for (int p = 0; p < B->npair; p++) {
        for (int a = 0; a < 4; a++) B->vpAdr[B->pairs[p].v[a] + 1]++;
    }
    for (int v = 0; v < n; v++) B->vpAdr[v + 1] += B->vpAdr[v];
    // fill using the start offsets, then restore them
    for (int p = 0; p < B->npair; p++) {
        for (int a = 0; a < 4; a++) {
            int v = B->pairs[p].v[a];
            B->vpList[B->vpAdr[v]++] = 4 * p + a;
        }
    }
    for (int v = n; v > 0; v--) B->vpAdr[v] = B->vpAdr[v - 1];
    B->vpAdr[0] = 0;
}

void alcr_contact_reset(alcrBackend* B) {
    B->npair = 0;
    B->nfric = 0;
    buildIncidence(B);
    B->patternDirty = 1;
}

alctStatus alcr_contact_getCarry(alcrBackend* B, alcrPair* pairs, int cap, int* npair) {
    *npair = B->npair;
    if (!pairs) return ALC_OK;
    if (B->npair > cap) return ALC_ERR_CAPACITY;
    memcpy(pairs, B->pairs, sizeof(alcrPair) * (size_t)B->npair);
    return ALC_OK;
}

alctStatus alcr_contact_setCarry(alcrBackend* B, const alcrPair* pairs, int npair) {
    if (npair > B->pairCap) {
        alctStatus st = growPairs(B, npair);
        if (st != ALC_OK) return st;
    }
    if (npair > 0) memcpy(B->pairs, pairs, sizeof(alcrPair) * (size_t)npair);
    B->npair = npair;
    B->nfric = 0;
    buildIncidence(B);
    B->patternDirty = 1;
    return ALC_OK;
}

alctStatus alcr_contact_pattern(alcrBackend* B) {
    if (!B->patternDirty) return ALC_OK;
    // stencils of the active pairs and the lagged friction pairs
    // with the IPC model's barrier constraints (ipc_ref.c), which take the place of the AL
    // pairs (npair is 0 then): each count is at most pairCap and the scratch holds 2 pairCap
    // (with rigid bodies, each stencil's DOF nodes: rigid_contact_ref.c)
    int npair = B->npair + B->nipc;
    int ns = npair + B->nfric;
    int W = B->stencilWidth;
    int* sv = B->stencil;
    for (int s = 0; s < ns; s++) {
        const int* v = s < B->npair ? B->pairs[s].v
                       : s < npair  ? B->ipc[s - B->npair].v
                                    : B->fric[s - npair].v;
        if (W == 4)
            memcpy(sv + 4 * s, v, 4 * sizeof(int));
        else
            alcr_rigid_stencilNodes(B, v, W, sv + W * s);
    }
    int needed = 0;
    alctStatus st = alcr_bsr_setPattern(&B->A, B->srowptr, B->scol, ns, W, sv, &needed);
    if (st == ALC_ERR_CAPACITY) {
        return ALC_ERROR(B->sim, ALC_ERR_CAPACITY,
                         "Hessian pattern needs %d blocks, capacity %d (raise "
                         "capacity.contactPairs)",
                         needed, B->A.cap);
    }
    B->patternDirty = 0;
    B->compDirty = 1;
    return st;
}

static void loadStencil(const double* pos, const int v[4], alcV3 x[4]) {
    for (int a = 0; a < 4; a++) x[a] = alcm_v3_load(pos + 3 * v[a]);
}

/// The tetrahedron of a guard pair: the low bits of its key (ALC_PAIR_GUARD_KEY).
static int guardTet(const alcrPair* P) {
    return (int)(P->key - ALC_PAIR_GUARD_KEY(0));
}

/// A guard pair's d and g at B->x (alcm_tet_guardLinearize).
static double guardLinearize(const alcrBackend* B, alcrPair* P, const alcV3 x[4]) {
    const alcModel* m = B->m;
    return alcm_tet_guardLinearize(x, m->tet_vol[guardTet(P)], m->opt.inversionFraction,
                                   B->cp.delta, P->g);
}

alctStatus alcr_contact_addGuards(alcrBackend* B, const int* tets, int n, int* added) {
    *added = 0;
    for (int i = 0; i < n; i++) {
        if (alcr_contact_guarded(B, tets[i])) continue;
        if (B->npair >= B->pairCap) {
            int cap = B->pairCap + B->pairCap / 2;
            if (!B->sim->def.capacity.growOnOverflow || growPairs(B, cap) != ALC_OK) {
                return ALC_ERROR(B->sim, ALC_ERR_CAPACITY,
                                 "active pairs and tetrahedron guards exceed capacity %d (raise "
                                 "capacity.contactPairs)",
                                 B->pairCap);
            }
            // not counted in bufferGrows (that statistic comes from the merge): nothing is
            // redone here, the buffers only grow
        }
        alcrPair* P = &B->pairs[alcm_pair_guardSlot(B->pairs, B->npair, tets[i])];
        memset(P, 0, sizeof *P);
        alcm_pair_guardInit(P, tets[i], B->m->tet_vert + 4 * tets[i]);
        alcV3 x[4];
        loadStencil(B->x, P->v, x);
        P->d = guardLinearize(B, P, x);
        B->npair++;
        (*added)++;
    }
    if (*added) {
        buildIncidence(B);
        B->patternDirty = 1;
    }
    return ALC_OK;
}

int alcr_contact_guarded(const alcrBackend* B, int t) {
    long long key = ALC_PAIR_GUARD_KEY(t);
    for (int p = 0; p < B->npair && B->pairs[p].key <= key; p++) {
        if (B->pairs[p].key == key) return 1;
    }
    return 0;
}

int alcr_contact_nguards(const alcrBackend* B) {
    int n = 0;
    while (n < B->npair && B->pairs[n].type == ALCR_TETGUARD) n++;
    return n;
}

void alcr_contact_linearize(alcrBackend* B) {
#pragma omp parallel for schedule(static) if (B->npair > ALCR_PAR_MIN)
    for (int p = 0; p < B->npair; p++) {
        alcrPair* P = &B->pairs[p];
        alcV3 x[4];
        loadStencil(B->x, P->v, x);
        if (P->type == ALCR_TETGUARD) {
            P->d = guardLinearize(B, P, x);
            continue;
        }
        P->d = P->type == ALCR_PT ? alcm_pt_distance(x, P->g) : alcm_ee_distance(x, P->g);
        if (B->nr > 0) alcr_rigid_linearizePair(B, p);
    }
}

/// c(pos) = d + grad d . (pos - x) - delta, AL paper Eq. 10 (in the DOF nodes for a pair with
/// rigid vertices).
static double constraintAt(const alcrBackend* B, const alcrPair* P, const double* pos) {
    double c = P->d - B->cp.delta;
    if (B->nr > 0 && B->pairRC[P - B->pairs] > 0) {
        return c + alcr_rigid_pairDelta(B, (int)(P - B->pairs), pos);
    }
    for (int a = 0; a < 4; a++) {
        const double* q = pos + 3 * P->v[a];
        const double* x = B->x + 3 * P->v[a];
        for (int k = 0; k < 3; k++) c += P->g[3 * a + k] * (q[k] - x[k]);
    }
    return c;
}

/// gamma phi(c) and gamma phi'(c), the slack-eliminated augmented term of Eq. 12.
static double phi(const alcrBackend* B, const alcrPair* P, double c, double* dphi) {
    double mu = alcm_pair_mu(P, B->cp.mu), lam = B->cp.penalty ? 0 : P->lambda;
    if (c < lam / mu) {
        if (dphi) *dphi = P->gamma * (mu * c - lam);
        return P->gamma * (0.5 * mu * c * c - lam * c);
    }
    if (dphi) *dphi = 0;
    return -P->gamma * lam * lam / (2 * mu);
}

double alcr_contact_energy(alcrBackend* B, const double* pos) {
    double* e = B->pairE;
#pragma omp parallel for schedule(static) if (B->npair > ALCR_PAR_MIN)
    for (int p = 0; p < B->npair; p++) {
        double c = constraintAt(B, &B->pairs[p], pos);
        e[p] = phi(B, &B->pairs[p], c, NULL);
    }
    return alcr_vec_sum(B->npair, e);
}

alctStatus alcr_contact_assemble(alcrBackend* B) {
    // per-pair constraint values and gradient coefficients (Alg. 2 lines 8-10)
    double* coef = B->pairE;
#pragma omp parallel for schedule(static) if (B->npair > ALCR_PAR_MIN)
    for (int p = 0; p < B->npair; p++) {
        alcrPair* P = &B->pairs[p];
        P->c = constraintAt(B, P, B->xhat);
        phi(B, P, P->c, &coef[p]);
        double lam = B->cp.penalty ? 0 : P->lambda;
        P->active = P->c < lam / alcm_pair_mu(P, B->cp.mu);
    }
    // gather rows: G += gamma phi' grad d, H += mu gamma grad d grad d^T (lines 10-11)
    alcrBsr* A = &B->A;
    double mu = B->cp.mu;
#pragma omp parallel for schedule(dynamic, 64) if (B->n > ALCR_PAR_MIN)
    for (int i = 0; i < B->n; i++) {
        if (B->kin[i]) continue;
        for (int q = B->vpAdr[i]; q < B->vpAdr[i + 1]; q++) {
            int p = B->vpList[q] >> 2, a = B->vpList[q] & 3;
            if (B->nr > 0 && B->pairRC[p] > 0) continue;  // rigid DOFs: below
            const alcrPair* P = &B->pairs[p];
            const double* ga = P->g + 3 * a;
            for (int k = 0; k < 3; k++) B->g[3 * i + k] += coef[p] * ga[k];
            // the exact curvature of gamma phi(c): mu gamma grad d grad d^T where the pair is
            // active (c < lambda/mu), zero where it is not (see the file comment)
            if (!P->active) continue;
            double s = alcm_pair_mu(P, mu) * P->gamma;
            for (int b = 0; b < 4; b++) {
                int j = P->v[b];
                if (B->kin[j]) continue;
                int blk = alcr_bsr_find(A, i, j);
                if (blk < 0) continue;  // cannot happen: the pattern holds every stencil
                double* dst = A->val + 9 * blk;
                const double* gb = P->g + 3 * b;
                for (int k = 0; k < 3; k++) {
                    for (int l = 0; l < 3; l++) dst[3 * k + l] += s * ga[k] * gb[l];
                }
            }
        }
    }
    alcr_rigid_contactAssemble(B, coef, mu);
    return ALC_OK;
}

int alcr_contact_flips(alcrBackend* B, const double* pos) {
    int flips = 0;
    for (int p = 0; p < B->npair; p++) {
        const alcrPair* P = &B->pairs[p];
        double lam = B->cp.penalty ? 0 : P->lambda;
        flips += alcm_pair_flipped(constraintAt(B, P, pos), lam / alcm_pair_mu(P, B->cp.mu),
                                   P->active, B->cp.flipDepth);
    }
    return flips;
}

void alcr_contact_alUpdate(alcrBackend* B, double credit) {
    const alciContactParams* cp = &B->cp;
#pragma omp parallel for schedule(static) if (B->npair > ALCR_PAR_MIN)
    for (int p = 0; p < B->npair; p++) {
        alcrPair* P = &B->pairs[p];
        alcm_pair_alUpdate(P, constraintAt(B, P, B->xhat), cp->mu, cp->penalty, cp->decay,
                           cp->delta, cp->pairMuGrowth, cp->pairMuMax, credit);
    }
}

/// Grow the pair buffers by half when allowed (the merge output so far is kept).
static int grow(alcrBackend* B, int* nout) {
    (void)nout;
    if (!B->sim->def.capacity.growOnOverflow) return 0;
    int cap = B->pairCap + B->pairCap / 2;
    if (growPairs(B, cap) != ALC_OK) return 0;
    B->grown = cap;
    return 1;
}

alctStatus alcr_contact_merge(alcrBackend* B, int* nactive) {
    // new pairs: colliding candidates not in C (both lists sorted by key)
    alcrCand* cand = B->cand;
    int nc = B->ncand;
    double* vmin = B->vmin;
    int* isNew = (int*)B->candToi;  // scratch: one int per candidate fits in 2 candCap doubles
    int i = 0, j = 0;
    while (i < nc) {
        while (j < B->npair && B->pairs[j].key < cand[i].key) j++;
        isNew[i] = !(j < B->npair && B->pairs[j].key == cand[i].key);
        i++;
    }
    // per-vertex earliest collision among the new pairs (Alg. 3 lines 7-9)
    for (int c = 0; c < nc; c++) {
        if (!isNew[c]) continue;
        for (int a = 0; a < 4; a++) vmin[cand[c].v[a]] = HUGE_VAL;
    }
    for (int c = 0; c < nc; c++) {
        if (!isNew[c]) continue;
        for (int a = 0; a < 4; a++) {
            int v = cand[c].v[a];
            if (cand[c].toi < vmin[v]) vmin[v] = cand[c].toi;
        }
    }
    // merge: survivors of C (gamma >= threshold, lines 16-20) and the filtered new pairs
    // (lines 10-15), both in key order
    int nout = 0, changed = 0;
    i = 0;
    j = 0;
    while (i < B->npair || j < nc) {
        while (j < nc && !isNew[j]) j++;
        int takeOld;
        if (i < B->npair && j < nc)
            takeOld = B->pairs[i].key < cand[j].key;
        else
            takeOld = i < B->npair;
        if (!takeOld && j >= nc) break;
        if (takeOld) {
            alcrPair P = B->pairs[i++];  // a copy: growing may move B->pairs
            if (P.gamma < B->cp.removeBelow) {
                changed = 1;
                continue;
            }
            if (nout >= B->pairCap && !grow(B, &nout)) goto overflow;
            B->pairsTmp[nout++] = P;
        } else {
            alcrCand* C = &cand[j++];
            int keep = 0;
            for (int a = 0; a < 4; a++) keep |= C->toi == vmin[C->v[a]];
            if (!keep) continue;
            if (nout >= B->pairCap && !grow(B, &nout)) goto overflow;
            alcrPair* P = &B->pairsTmp[nout++];
            memset(P, 0, sizeof *P);
            P->key = C->key;
            P->type = C->type;
            memcpy(P->v, C->v, sizeof P->v);
            P->lambda = 0;
            P->gamma = 1;
            changed = 1;
        }
    }
    {
        alcrPair* t = B->pairs;
        B->pairs = B->pairsTmp;
        B->pairsTmp = t;
        B->npair = nout;
    }
    if (changed) {
        buildIncidence(B);
        B->patternDirty = 1;
    }
    *nactive = B->npair;
    return ALC_OK;
overflow:
    return ALC_ERROR(B->sim, ALC_ERR_CAPACITY,
                     "active contact pairs exceed capacity %d (raise capacity.contactPairs)",
                     B->pairCap);
}

double alcr_contact_normalForce(const alcrBackend* B, const alcrPair* P) {
    return alcm_pair_normalForce(P->lambda, P->gamma, P->d, B->cp.penalty, B->cp.mu, B->cp.delta);
}

alctStatus alcr_contact_report(alcrBackend* B, alcContact* out, int cap, int* n,
                               double* bodyForce) {
    alciReportIn in = {B->m,          B->x,     B->xt,       B->h,
                       B->cp.penalty, B->cp.mu, B->cp.delta, B->cp.frictionEpsV};
    const alcmPair* pairs = B->pairs;
    int npair = B->npair;
    if (B->m->opt.contact == ALC_CONTACT_IPC) {
        // the IPC model: its barrier constraints at the step's end (host/step_ipc.c rebuilds
        // them there), with the barrier's forces
        alctStatus st = alcr_ipc_reportPairs(B, &pairs, &npair);
        if (st != ALC_OK) return st;
        in.penalty = 0;
    }
    alci_contactReport(&in, pairs, npair, B->fric, B->nfric, out, cap, n, bodyForce);
    if (B->m->opt.contact == ALC_CONTACT_MLCP_CR) alcr_mlcp_reportFriction(B, out, *n, bodyForce);
    if (B->m->opt.contact == ALC_CONTACT_PENALTY_DS) alcr_ds_report(B, out, cap, n, bodyForce);
    return ALC_OK;
}
