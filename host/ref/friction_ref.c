// Reference friction: the lagged smoothed friction potential of AL paper Appendix A (Eq. 22)
// over the active contacts carried from the previous step, with normal forces from Eq. 23; under
// the IPC model, over the barrier constraints at the start of the step, with the barrier's
// normal forces (IPC paper §5, Eq. 20). A pair with a rigid vertex acts on the body's DOFs
// (rigid_contact_ref.c).
#include "hd/alcm_barrier.h"
#include "hd/alcm_distance.h"
#include "hd/alcm_friction.h"
#include "ref/backend_ref.h"
#include "ref/vec_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

alctStatus alcr_friction_make(alcrBackend* B) {
    B->fric = (alcrFric*)malloc(sizeof(alcrFric) * (size_t)B->fricCap);
    B->fricE = (double*)malloc(sizeof(double) * (size_t)B->fricCap);
    if (!B->fric || !B->fricE) return ALC_ERR_NOMEM;
    B->bytes += (sizeof(alcrFric) + sizeof(double)) * (size_t)B->fricCap;
    B->nfric = 0;
    return ALC_OK;
}

void alcr_friction_free(alcrBackend* B) {
    free(B->fric);
    free(B->fricE);
}

double alcr_friction_coef(const alcModel* m, const int v[4], int type) {
    int b0 = m->vert_body[v[0]];
    int b1 = m->vert_body[v[type == ALCR_PT ? 1 : 2]];
    double f = m->mat_friction[m->body_mat[b0] * m->nmat + m->body_mat[b1]];
    return f >= 0 ? f : m->opt.frictionDefault;
}

/// Fill friction pair f from the stencil v, its distance gradient g at XT (any positive
/// multiple), and the friction magnitude coef = mu_f F. 0 when the normal is undefined.
static int lagPair(alcrFric* f, long long key, int type, const int v[4], const double g[12],
                   double coef) {
    alcV3 n;
    if (!alcm_fric_weights(g, type == ALCR_EE, f->w, &n)) return 0;
    alcm_fric_basis(n, f->T);
    f->key = key;
    f->type = type;
    memcpy(f->v, v, sizeof f->v);
    f->coef = coef;
    f->uIter[0] = f->uIter[1] = 0;
    f->reversed = 0;
    return 1;
}

void alcr_friction_lag(alcrBackend* B) {
    const alcModel* m = B->m;
    double ih2 = 1.0 / (B->h * B->h);
    B->nfric = 0;
    if (!(B->lastMu > 0)) return;
    // pairs linearized at XT (= X now): normal force of Eq. 23, basis and weights at XT
    alcr_contact_linearize(B);
    alciContactParams cur = B->cp;
    B->cp.mu = B->lastMu;
    B->cp.delta = B->lastDelta;
    for (int p = 0; p < B->npair && B->nfric < B->fricCap; p++) {
        const alcrPair* P = &B->pairs[p];
        if (P->type == ALCR_TETGUARD) continue;  // a volume constraint, not a contact
        double muf = alcr_friction_coef(m, P->v, P->type);
        if (!(muf > 0)) continue;
        double F = ih2 * alcr_contact_normalForce(B, P);
        if (!(F > 0)) continue;
        B->nfric += lagPair(&B->fric[B->nfric], P->key, P->type, P->v, P->g, muf * F);
    }
    B->cp = cur;
}

alctStatus alcr_friction_lagIpc(alcrBackend* B, double dhat) {
    const alcModel* m = B->m;
    B->nfric = 0;
    if (!(B->lastKappa > 0)) return ALC_OK;
    double minDist2 = 0;
    alctStatus st = alcr_ipc_constraints(B, B->xt, dhat, &minDist2);
    if (st != ALC_OK) return st;
    double S = dhat * dhat, ih2 = 1.0 / (B->h * B->h);
    for (int p = 0; p < B->nipc && B->nfric < B->fricCap; p++) {
        const alcrIpcPair* P = &B->ipc[p];
        double muf = alcr_friction_coef(m, P->v, P->type);
        if (!(muf > 0)) continue;
        alcV3 x[4];
        for (int a = 0; a < 4; a++) x[a] = alcm_v3_load(B->xt + 3 * P->v[a]);
        int ee = P->type == ALCR_EE;
        double s = ee ? alcm_ee_dist2(x, P->dtype) : alcm_pt_dist2(x, P->dtype);
        double gs[12];
        if (ee)
            alcm_ee_dist2Grad(x, P->dtype, gs);
        else
            alcm_pt_dist2Grad(x, P->dtype, gs);
        double F = ih2 * alcr_ipc_pairForce(P, x, s, S, B->lastKappa);
        if (!(F > 0)) continue;
        B->nfric += lagPair(&B->fric[B->nfric], 0, P->type, P->v, gs, muf * F);
    }
    B->nipc = 0;
    return ALC_OK;
}

/// The tangential displacement u (2, m) of friction pair F at positions pos, from XT.
static void slipAt(const alcrBackend* B, const alcrFric* F, const double* pos, double u[2]) {
    alcV3 x[4], xt[4];
    for (int a = 0; a < 4; a++) {
        x[a] = alcm_v3_load(pos + 3 * F->v[a]);
        xt[a] = alcm_v3_load(B->xt + 3 * F->v[a]);
    }
    alcm_fric_u(F->w, F->T, x, xt, u);
}

int alcr_friction_reversals(const alcrBackend* B, const double* pos) {
    double eps = B->cp.frictionEpsV * B->h;
    int n = 0;
    for (int f = 0; f < B->nfric; f++) {
        const alcrFric* F = &B->fric[f];
        double u[2];
        slipAt(B, F, pos, u);
        n += alcm_fric_reverses(F->uIter, u, eps);
    }
    return n;
}

double alcr_friction_energy(alcrBackend* B, const double* pos) {
    double eps = B->cp.frictionEpsV * B->h, h2 = B->h * B->h;
    double* e = B->fricE;
    int secant = B->cp.frictionSecant;
#pragma omp parallel for schedule(static) if (B->nfric > ALCR_PAR_MIN)
    for (int f = 0; f < B->nfric; f++) {
        alcrFric* F = &B->fric[f];
        double u[2];
        slipAt(B, F, pos, u);
        e[f] = alcm_fric_energy(u, F->coef, eps, h2);
        // a trial that carries the pair across the cone's tip (alcm_fric_reverses)
        if (secant && alcm_fric_reverses(F->uIter, u, eps)) F->reversed = 1;
    }
    return alcr_vec_sum(B->nfric, e);
}

void alcr_friction_assemble(alcrBackend* B) {
    double eps = B->cp.frictionEpsV * B->h, h2 = B->h * B->h;
    alcrBsr* A = &B->A;
    // serial over pairs: deterministic accumulation order
    B->nsecant = 0;
    for (int f = 0; f < B->nfric; f++) {
        alcrFric* F = &B->fric[f];
        double u[2];
        slipAt(B, F, B->xhat, u);
        alcV3 q = alcm_fric_q(u, F->T, eps);
        // the secant stiffness for a pair whose slip a trial since the last assembly reversed
        int sec = B->cp.frictionSecant && F->reversed;
        alcM3 K = sec ? alcm_fric_Ksecant(u, F->T, eps) : alcm_fric_K(u, F->T, eps);
        B->nsecant += sec;
        F->reversed = 0;
        F->uIter[0] = u[0];
        F->uIter[1] = u[1];
        double s = h2 * F->coef;
        if (alcr_rigid_touches(B, F->v)) {
            // on rigid DOFs: the stencil's gradient and Hessian pulled back at XHAT
            double g12[12], H[144];
            for (int a = 0; a < 4; a++) {
                g12[3 * a] = s * F->w[a] * q.x;
                g12[3 * a + 1] = s * F->w[a] * q.y;
                g12[3 * a + 2] = s * F->w[a] * q.z;
                for (int b = 0; b < 4; b++) {
                    double c = s * F->w[a] * F->w[b];
                    for (int k = 0; k < 3; k++) {
                        for (int l = 0; l < 3; l++)
                            H[12 * (3 * a + k) + 3 * b + l] = c * K.m[3 * k + l];
                    }
                }
            }
            alcr_rigid_addStencil(B, F->v, g12, H);
            continue;
        }
        for (int a = 0; a < 4; a++) {
            int i = F->v[a];
            if (B->kin[i]) continue;
            B->g[3 * i] += s * F->w[a] * q.x;
            B->g[3 * i + 1] += s * F->w[a] * q.y;
            B->g[3 * i + 2] += s * F->w[a] * q.z;
            for (int b = 0; b < 4; b++) {
                int j = F->v[b];
                if (B->kin[j]) continue;
                int blk = alcr_bsr_find(A, i, j);
                if (blk < 0) continue;  // cannot happen: the pattern holds friction stencils
                double c = s * F->w[a] * F->w[b];
                for (int k = 0; k < 9; k++) A->val[9 * blk + k] += c * K.m[k];
            }
        }
    }
}
