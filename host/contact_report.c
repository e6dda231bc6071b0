// The contact report of a step, for every backend (contact_report.h).
#include "contact_report.h"

#include "hd/alcm_friction.h"
#include "hd/alcm_pair.h"
#include "hd/alcm_vec.h"

#include <math.h>
#include <string.h>

void alci_contactOfPair(const alcModel* m, const double* x, const alcmPair* P, alcContact* C) {
    memset(C, 0, sizeof *C);
    C->type = P->type;
    memcpy(C->vert, P->v, sizeof C->vert);
    C->body[0] = m->vert_body[P->v[0]];
    C->body[1] = m->vert_body[P->v[P->type == ALC_PAIR_PT ? 1 : 2]];
    C->distance = P->d;
    double nx = P->g[0], ny = P->g[1], nz = P->g[2];
    if (P->type == ALC_PAIR_EE) {
        nx += P->g[3];
        ny += P->g[4];
        nz += P->g[5];
    }
    double nn = sqrt(nx * nx + ny * ny + nz * nz);
    if (nn > 0) {
        C->normal[0] = nx / nn;
        C->normal[1] = ny / nn;
        C->normal[2] = nz / nn;
    }
    C->lambda = P->lambda;
    C->gamma = P->gamma;
    // contact points: each vertex's share of grad d along the normal is its barycentric
    // weight (PT: n, -b_i n; EE: (1-s) n, s n, -(1-t) n, -t n)
    int side0 = P->type == ALC_PAIR_PT ? 1 : 2;
    double sum[2] = {0, 0};
    for (int a = 0; a < 4; a++) {
        double w = P->g[3 * a] * C->normal[0] + P->g[3 * a + 1] * C->normal[1] +
                   P->g[3 * a + 2] * C->normal[2];
        C->weight[a] = a < side0 ? w : -w;
        sum[a < side0 ? 0 : 1] += C->weight[a];
    }
    for (int a = 0; a < 4; a++) {
        int sd = a < side0 ? 0 : 1;
        if (sum[sd] > 0) C->weight[a] /= sum[sd];
        for (int k = 0; k < 3; k++)
            C->point[sd][k] += C->weight[a] * x[3 * (size_t)P->v[a] + (size_t)k];
    }
}

void alci_contactReport(const alciReportIn* in, const alcmPair* pairs, int npair,
                        const alcmFric* fric, int nfric, alcContact* out, int cap, int* n,
                        double* bodyForce) {
    const alcModel* m = in->m;
    double ih2 = 1.0 / (in->h * in->h);
    memset(bodyForce, 0, sizeof(double) * 3 * (size_t)m->nbody);
    int cnt = 0;
    for (int p = 0; p < npair; p++) {
        const alcmPair* P = &pairs[p];
        if (P->type == ALC_PAIR_TETGUARD) continue;  // a volume constraint, not a contact
        double F =
            alcm_pair_normalForce(P->lambda, P->gamma, P->d, in->penalty, in->mu, in->delta) * ih2;
        for (int a = 0; a < 4; a++) {
            int b = m->vert_body[P->v[a]];
            for (int k = 0; k < 3; k++) bodyForce[3 * b + k] += F * P->g[3 * a + k];
        }
        if (cnt >= cap) continue;
        alcContact* C = &out[cnt++];
        alci_contactOfPair(m, in->x, P, C);
        C->normalForce = F;
    }
    // friction forces of the lagged pairs at the final state (IPC §5: -grad D / h^2)
    double eps = in->frictionEpsV * in->h;
    int q = 0, c = 0;  // a pair, and the index of its report: guards (first, by their negative
                       // keys) are not reported
    for (int f = 0; f < nfric; f++) {
        const alcmFric* Fp = &fric[f];
        alcV3 x[4], xt[4];
        for (int a = 0; a < 4; a++) {
            x[a] = alcm_v3_load(in->x + 3 * Fp->v[a]);
            xt[a] = alcm_v3_load(in->xt + 3 * Fp->v[a]);
        }
        double u[2];
        alcm_fric_u(Fp->w, Fp->T, x, xt, u);
        alcV3 fq = alcm_fric_q(u, Fp->T, eps);
        // force on vertex a: -coef w_a q; bodies get their share
        for (int a = 0; a < 4; a++) {
            int b = m->vert_body[Fp->v[a]];
            bodyForce[3 * b] -= Fp->coef * Fp->w[a] * fq.x;
            bodyForce[3 * b + 1] -= Fp->coef * Fp->w[a] * fq.y;
            bodyForce[3 * b + 2] -= Fp->coef * Fp->w[a] * fq.z;
        }
        // the reported pair of the same key (both lists are in key order)
        for (; q < npair && pairs[q].key < Fp->key; q++) c += pairs[q].type != ALC_PAIR_TETGUARD;
        if (q < npair && pairs[q].key == Fp->key && pairs[q].type != ALC_PAIR_TETGUARD &&
            c < cnt) {
            out[c].frictionForce[0] = -Fp->coef * fq.x;
            out[c].frictionForce[1] = -Fp->coef * fq.y;
            out[c].frictionForce[2] = -Fp->coef * fq.z;
        }
    }
    *n = cnt;
}
