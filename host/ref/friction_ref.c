// Reference friction: the lagged smoothed friction potential of AL paper Appendix A (Eq. 22)
// over the active contacts carried from the previous step, with normal forces from Eq. 23.
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

/// Friction coefficient of a pair from the materials of its two sides.
static double pairFriction(const alcModel* m, const alcrPair* P) {
    int b0 = m->vert_body[P->v[0]];
    int b1 = m->vert_body[P->v[P->type == ALCR_PT ? 1 : 2]];
    double f = m->mat_friction[m->body_mat[b0] * m->nmat + m->body_mat[b1]];
    return f >= 0 ? f : m->opt.frictionDefault;
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
        double muf = pairFriction(m, P);
        if (!(muf > 0)) continue;
        double F = ih2 * alcr_contact_normalForce(B, P);
        if (!(F > 0)) continue;
        alcrFric* f = &B->fric[B->nfric];
        alcV3 n;
        if (!alcm_fric_weights(P->g, P->type == ALCR_EE, f->w, &n)) continue;
        alcm_fric_basis(n, f->T);
        f->key = P->key;
        f->type = P->type;
        memcpy(f->v, P->v, sizeof f->v);
        f->coef = muf * F;
        B->nfric++;
    }
    B->cp = cur;
}

static void loadPair(const double* pos, const int v[4], alcV3 x[4]) {
    for (int a = 0; a < 4; a++) x[a] = alcm_v3_load(pos + 3 * v[a]);
}

double alcr_friction_energy(alcrBackend* B, const double* pos) {
    double eps = B->cp.frictionEpsV * B->h, h2 = B->h * B->h;
    double* e = B->fricE;
#pragma omp parallel for schedule(static) if (B->nfric > ALCR_PAR_MIN)
    for (int f = 0; f < B->nfric; f++) {
        const alcrFric* F = &B->fric[f];
        alcV3 x[4], xt[4];
        loadPair(pos, F->v, x);
        loadPair(B->xt, F->v, xt);
        double u[2];
        alcm_fric_u(F->w, F->T, x, xt, u);
        e[f] = alcm_fric_energy(u, F->coef, eps, h2);
    }
    return alcr_vec_sum(B->nfric, e);
}

void alcr_friction_assemble(alcrBackend* B) {
    double eps = B->cp.frictionEpsV * B->h, h2 = B->h * B->h;
    alcrBsr* A = &B->A;
    // serial over pairs: deterministic accumulation order
    for (int f = 0; f < B->nfric; f++) {
        const alcrFric* F = &B->fric[f];
        alcV3 x[4], xt[4];
        loadPair(B->xhat, F->v, x);
        loadPair(B->xt, F->v, xt);
        double u[2];
        alcm_fric_u(F->w, F->T, x, xt, u);
        alcV3 q = alcm_fric_q(u, F->T, eps);
        alcM3 K = alcm_fric_K(u, F->T, eps);
        double s = h2 * F->coef;
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
