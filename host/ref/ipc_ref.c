// The IPC barrier contact model on the reference backend (IPC paper, papers/
// ipc-incremental-potential-contact.txt; constants in research/seeds-000-004.md §1): the
// constraint set of PT and EE pairs within dhat, the log barrier on squared distances (Eq. 6,
// §7) with the edge-edge mollifier (Eq. 24), its gradient and PSD-projected Hessian (Eq. 7),
// and the conservative CCD step bound. A pair with a rigid body's vertex acts on the body's DOF
// nodes (rigid IPC, Ferguson et al. 2021: the gradient and the Gauss-Newton Hessian pulled back,
// rigid_contact_ref.c) and is bounded by the curved-trajectory CCD. The Newton loop is
// host/step_ipc.c.
#include "hd/alcm_barrier.h"
#include "hd/alcm_ccd.h"
#include "hd/alcm_distance.h"
#include "ref/backend_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

alctStatus alcr_ipc_make(alcrBackend* B) {
    B->ipcCap = B->pairCap;
    B->ipc = (alcrIpcPair*)malloc(sizeof(alcrIpcPair) * (size_t)B->ipcCap);
    B->kinTarget = (double*)malloc(sizeof(double) * (size_t)B->N);
    if (!B->ipc || !B->kinTarget) return ALC_ERR_NOMEM;
    B->bytes += sizeof(alcrIpcPair) * (size_t)B->ipcCap + sizeof(double) * (size_t)B->N;
    B->nipc = 0;
    return ALC_OK;
}

void alcr_ipc_free(alcrBackend* B) {
    free(B->ipc);
    free(B->kinTarget);
    free(B->ipcReport);
}

/// Stencil positions of a pair at pos.
static void stencil(const alcrBackend* B, const alcrIpcPair* P, const double* pos, alcV3 x[4]) {
    (void)B;
    for (int a = 0; a < 4; a++) x[a] = alcm_v3_load(pos + 3 * P->v[a]);
}

/// Broad phase over the motion from -> to, inflated by `inflate` and each vertex's own growth
/// (vertInflate, nullable: the rigid vertices' curves about their chords): candidates in bpPT /
/// bpEE.
static alctStatus broad(alcrBackend* B, const double* from, const double* to, double inflate,
                        const double* vertInflate, int* npt, int* nee) {
    // kinematic vertices stay passive even while freed (ipc_boundary_ref.c)
    alcrBroadInput in = alcr_ccd_broadInput(B, from, to, B->kinBody, inflate);
    in.vert_inflate = vertInflate;
    alctStatus st = alcr_broad_build(B->broad, &in);
    if (st != ALC_OK) return ALC_ERROR(B->sim, st, "broad-phase build failed");
    int grown = 0;
    *npt = *nee = 0;
    st = alcr_ccd_query(B, &in, 0, npt, &grown);
    if (st == ALC_OK) st = alcr_ccd_query(B, &in, 1, nee, &grown);
    return st;
}

alctStatus alcr_ipc_constraints(alcrBackend* B, const double* pos, double dhat, double* minDist2) {
    const alcModel* m = B->m;
    int npt = 0, nee = 0;
    alctStatus st = broad(B, pos, pos, 0.5 * dhat, NULL, &npt, &nee);
    if (st != ALC_OK) return st;
    double S = dhat * dhat, lo = S;
    int n = 0;
    // serial: the pairs come out in the broad phase's sorted order (deterministic)
    for (int c = 0; c < npt + nee; c++) {
        alcrIpcPair P;
        alcr_ccd_candidate(B, c, npt, P.v, &P.type);
        alcV3 x[4];
        stencil(B, &P, pos, x);
        if (P.type == ALCR_PT) {
            P.dtype = alcm_pt_type(x[0], x[1], x[2], x[3]);
            P.eps = 0;
        } else {
            P.dtype = alcm_ee_type(x[0], x[1], x[2], x[3]);
            alcV3 r[4];
            for (int a = 0; a < 4; a++) r[a] = alcm_v3_load(m->vert_x0 + 3 * P.v[a]);
            P.eps = alcm_mollifierEps(r[0], r[1], r[2], r[3]);
        }
        double s = P.type == ALCR_PT ? alcm_pt_dist2(x, P.dtype) : alcm_ee_dist2(x, P.dtype);
        if (!(s < S)) continue;
        if (n >= B->ipcCap) {
            return ALC_ERROR(B->sim, ALC_ERR_CAPACITY,
                             "more than %d barrier constraints within dhat (raise "
                             "capacity.contactPairs)",
                             B->ipcCap);
        }
        B->ipc[n++] = P;
        if (s < lo) lo = s;
    }
    B->nipc = n;
    B->patternDirty = 1;
    *minDist2 = lo;
    return ALC_OK;
}

/// Mollified barrier of one pair at x; with g/H, its gradient and Hessian over the stencil.
static double pairBarrier(const alcrIpcPair* P, const alcV3 x[4], double S, double* g, double* H) {
    int ee = P->type == ALCR_EE;
    double s = ee ? alcm_ee_dist2(x, P->dtype) : alcm_pt_dist2(x, P->dtype);
    double b = alcm_barrier(s, S);
    double mol = 1, gm[12], Hm[144];
    if (ee) mol = alcm_mollifier(x, P->eps, H ? gm : NULL, H ? Hm : NULL);
    if (!g && !H) return mol * b;
    double gs[12], Hs[144];
    if (ee) {
        alcm_ee_dist2Grad(x, P->dtype, gs);
        if (H) alcm_ee_dist2Hess(x, P->dtype, Hs);
    } else {
        alcm_pt_dist2Grad(x, P->dtype, gs);
        if (H) alcm_pt_dist2Hess(x, P->dtype, Hs);
    }
    double b1 = alcm_barrierD1(s, S), b2 = alcm_barrierD2(s, S);
    // barrier of the squared distance: grad = b' grad s, Hess = b'' grad s grad s^T + b' Hess s
    for (int i = 0; i < 12; i++) g[i] = mol * b1 * gs[i];
    if (ee && mol < 1)
        for (int i = 0; i < 12; i++) g[i] += b * gm[i];
    if (!H) return mol * b;
    for (int i = 0; i < 12; i++) {
        for (int j = 0; j < 12; j++) {
            double h = mol * (b2 * gs[i] * gs[j] + b1 * Hs[12 * i + j]);
            if (ee && mol < 1) h += b1 * (gm[i] * gs[j] + gs[i] * gm[j]) + b * Hm[12 * i + j];
            H[12 * i + j] = h;
        }
    }
    alcm_projectPsd(H, 12);
    return mol * b;
}

double alcr_ipc_energy(alcrBackend* B, const double* pos, double dhat) {
    double S = dhat * dhat, e = 0;
    for (int p = 0; p < B->nipc; p++) {
        alcV3 x[4];
        stencil(B, &B->ipc[p], pos, x);
        e += pairBarrier(&B->ipc[p], x, S, NULL, NULL);
    }
    return e;
}

void alcr_ipc_gradient(alcrBackend* B, double dhat, double* gb) {
    double S = dhat * dhat;
    memset(gb, 0, sizeof(double) * (size_t)B->N);
    for (int p = 0; p < B->nipc; p++) {
        const alcrIpcPair* P = &B->ipc[p];
        alcV3 x[4];
        double g[12];
        stencil(B, P, B->xhat, x);
        pairBarrier(P, x, S, g, NULL);
        if (B->nr > 0 && alcr_rigid_touches(B, P->v)) {
            alcr_rigid_addGradient(B, P->v, g, gb);  // onto the rigid bodies' DOF nodes
            continue;
        }
        for (int a = 0; a < 4; a++) {
            if (B->kinBody[P->v[a]]) continue;  // freed or not: kappa balances free DOFs only
            for (int k = 0; k < 3; k++) gb[3 * P->v[a] + k] += g[3 * a + k];
        }
    }
}

alctStatus alcr_ipc_assemble(alcrBackend* B, double dhat, double kappa) {
    double S = dhat * dhat;
    alcrBsr* A = &B->A;
    for (int p = 0; p < B->nipc; p++) {
        const alcrIpcPair* P = &B->ipc[p];
        alcV3 x[4];
        double g[12], H[144];
        stencil(B, P, B->xhat, x);
        pairBarrier(P, x, S, g, H);
        if (B->nr > 0 && alcr_rigid_touches(B, P->v)) {
            // onto the rigid bodies' DOF nodes: J^T g and the Gauss-Newton J^T H J (RIPC §4.2)
            for (int i = 0; i < 12; i++) g[i] *= kappa;
            for (int i = 0; i < 144; i++) H[i] *= kappa;
            alcr_rigid_addStencil(B, P->v, g, H);
            continue;
        }
        for (int a = 0; a < 4; a++) {
            int i = P->v[a];
            if (B->kin[i]) continue;
            for (int k = 0; k < 3; k++) B->g[3 * i + k] += kappa * g[3 * a + k];
            for (int b = 0; b < 4; b++) {
                int j = P->v[b];
                if (B->kin[j]) continue;
                int blk = alcr_bsr_find(A, i, j);
                if (blk < 0)
                    return ALC_ERROR(B->sim, ALC_ERR_CAPACITY,
                                     "barrier block missing from the Hessian pattern");
                double* dst = A->val + 9 * blk;
                for (int k = 0; k < 3; k++)
                    for (int l = 0; l < 3; l++)
                        dst[3 * k + l] += kappa * H[12 * (3 * a + k) + 3 * b + l];
            }
        }
    }
    return ALC_OK;
}

alctStatus alcr_ipc_stepBound(alcrBackend* B, double* toi) {
    const alcOption* o = &B->m->opt;
    double* to = B->trial;
    for (int i = 0; i < B->N; i++) to[i] = B->xhat[i] + B->p[i];
    alcr_rigid_place(B, to);
    int npt = 0, nee = 0;
    alctStatus st =
        broad(B, B->xhat, to, 0.5 * o->ccdMinSep, alcr_rigid_inflation(B, B->xhat, to), &npt, &nee);
    if (st != ALC_OK) return st;
    int ntot = npt + nee;
    double tmin = 1;
#pragma omp parallel for schedule(dynamic, 256) reduction(min : tmin) if (ntot > ALCR_PAR_MIN)
    for (int c = 0; c < ntot; c++) {
        int v[4], type;
        alcr_ccd_candidate(B, c, npt, v, &type);
        alcV3 x[4], dx[4];
        for (int a = 0; a < 4; a++) {
            x[a] = alcm_v3_load(B->xhat + 3 * v[a]);
            dx[a] = alcm_v3_sub(alcm_v3_load(to + 3 * v[a]), x[a]);
        }
        double t = 1;
        if (B->nr > 0 && alcr_rigid_touches(B, v)) {
            // a rigid vertex moves on a curve (linear in its body's theta and q): RIPC's
            // curved CCD, keeping the linear CCD's share of the gap as separation
            if (alcr_rigid_ccd(B, B->xhat, to, v, type == ALCR_EE, o->ccdMinSep, o->ccdRescale,
                               &t) &&
                t < tmin) {
                tmin = t;
            }
            continue;
        }
        double xi = alcm_ccd_stepSep(x, dx, type == ALCR_EE, o->ccdMinSep, 1.0);
        int hit = type == ALCR_PT
                      ? alcm_ccd_pt(x, dx, xi, o->ccdRescale, 1.0, o->ccdMaxIter, &t, NULL)
                      : alcm_ccd_ee(x, dx, xi, o->ccdRescale, 1.0, o->ccdMaxIter, &t, NULL);
        if (hit && t < tmin) tmin = t;
    }
    *toi = tmin;
    return ALC_OK;
}

double alcr_ipc_pairForce(const alcrIpcPair* P, const alcV3 x[4], double s, double S,
                          double kappa) {
    // IPC Eq. 20: kappa |d b / d d| = kappa 2 d |b'(d^2)|, mollified for EE
    double mol = P->type == ALCR_EE ? alcm_mollifier(x, P->eps, NULL, NULL) : 1;
    return kappa * mol * 2 * sqrt(s) * fabs(alcm_barrierD1(s, S));
}

alctStatus alcr_ipc_reportPairs(alcrBackend* B, const alcmPair** pairs, int* npair) {
    if (B->ipcReportCap < B->nipc) {
        alcmPair* p = (alcmPair*)realloc(B->ipcReport, sizeof(alcmPair) * (size_t)B->nipc);
        if (!p) return ALC_ERROR(B->sim, ALC_ERR_NOMEM, "out of memory (IPC contact report)");
        B->bytes += sizeof(alcmPair) * (size_t)(B->nipc - B->ipcReportCap);
        B->ipcReport = p;
        B->ipcReportCap = B->nipc;
    }
    double S = B->ipcDhat * B->ipcDhat;
    for (int p = 0; p < B->nipc; p++) {
        const alcrIpcPair* P = &B->ipc[p];
        alcmPair* Q = &B->ipcReport[p];
        memset(Q, 0, sizeof *Q);
        Q->key = p + 1;  // the constraint set's order; no lagged friction pair has such a key
        Q->type = P->type;
        memcpy(Q->v, P->v, sizeof Q->v);
        alcV3 x[4];
        stencil(B, P, B->x, x);
        Q->d = P->type == ALCR_PT ? alcm_pt_distance(x, Q->g) : alcm_ee_distance(x, Q->g);
        double s = P->type == ALCR_PT ? alcm_pt_dist2(x, P->dtype) : alcm_ee_dist2(x, P->dtype);
        // as an AL multiplier (the report divides by h^2)
        Q->lambda = alcr_ipc_pairForce(P, x, s, S, B->lastKappa);
        Q->gamma = 1;
        Q->c = Q->d;
        Q->active = 1;
    }
    *pairs = B->ipcReport;
    *npair = B->nipc;
    return ALC_OK;
}
