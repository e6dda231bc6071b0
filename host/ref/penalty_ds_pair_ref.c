// One contact of the penalty-ds model: relaxation, forces, Jacobian (penalty_ds_pair_ref.h).
#include "ref/penalty_ds_pair_ref.h"

#include <math.h>
#include <string.h>

void alcr_dsPair_eval(const alcmDsMesh* mesh, int z, alcmDsAttach x, double mu, double k,
                      alcrDsPairEval* e, alcmDsMeshTrace* trace) {
    alcV3 zp = alcm_ds_vert(mesh, z);
    alcm_ds_meshRelax(mesh, x, zp, mu, ALCR_DS_MAX_STEPS, &e->r, trace);
    e->f = e->r.active ? alcm_v3_scale(alcm_v3_sub(e->r.y, zp), k) : alcm_v3(0, 0, 0);
}

void alcr_dsPair_forces(const alcrDsPairEval* e, double F[12]) {
    for (int j = 0; j < 3; j++) F[j] = alcm_v3_get(e->f, j);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) F[3 + 3 * i + j] = -e->r.attach.b[i] * F[j];
    }
}

/// The perturbed relaxation ended as the base one did (no kink crossed).
static int samePath(const alcrDsPairEval* a, const alcrDsPairEval* b) {
    return a->r.active == b->r.active && a->r.dynamic == b->r.dynamic && a->r.state == b->r.state &&
           a->r.attach.tri == b->r.attach.tri && a->r.loc == b->r.loc && a->r.nsteps == b->r.nsteps;
}

int alcr_dsPair_jacobian(double* pos, const alcmDsMesh* mesh, int z, alcmDsAttach x, double mu,
                         double k, const alcrDsPairEval* e, const alcmDsMeshTrace* trace, int* cols,
                         double* J, alcrDsJacStats* stats) {
    if (!e->r.active) return 0;
    if (!e->r.dynamic) {
        // static: F = -k c c^T x over (Z, X's triangle), c = (1, -b) (D&S §1.5)
        const int* t = mesh->tri + 3 * e->r.attach.tri;
        double c[4] = {1, -e->r.attach.b[0], -e->r.attach.b[1], -e->r.attach.b[2]};
        cols[0] = z;
        for (int i = 0; i < 3; i++) cols[1 + i] = t[i];
        for (int a = 0; a < 4; a++) {
            for (int b = 0; b < 4; b++) {
                double* B = J + 9 * (4 * a + b);
                memset(B, 0, 9 * sizeof(double));
                B[0] = B[4] = B[8] =
                    -k * (c[a] * c[b]);  // c_a c_b = c_b c_a: symmetric bit for bit
            }
        }
        return 4;
    }
    // the columns: Z and the vertices of every triangle the walk visited or ended on
    int nc = 0;
    cols[nc++] = z;
    for (int s = 0; s <= trace->n; s++) {
        int t = s < trace->n ? trace->tri[s] : e->r.attach.tri;
        for (int i = 0; i < 3; i++) {
            int v = mesh->tri[3 * t + i], seen = 0;
            for (int c = 0; c < nc && !seen; c++) seen = cols[c] == v;
            if (!seen && nc < ALCR_DS_MAX_COLS) cols[nc++] = v;
        }
    }
    // the difference step: 1e-6 of X's triangle's longest edge, above rounding
    alcV3 q[3];
    alcm_ds_triVerts(mesh, x.tri, q);
    double L = 0;
    for (int i = 0; i < 3; i++) {
        double l = alcm_v3_norm(alcm_v3_sub(q[(i + 1) % 3], q[i]));
        L = l > L ? l : L;
    }
    alcV3 zp = alcm_ds_vert(mesh, z);
    double size = fabs(zp.x) + fabs(zp.y) + fabs(zp.z) + L;
    double hd = 1e-6 * L;
    if (hd < 1e-9 * size) hd = 1e-9 * size;
    double Fb[12];
    alcr_dsPair_forces(e, Fb);
    for (int c = 0; c < nc; c++) {
        int v = cols[c];
        for (int j = 0; j < 3; j++) {
            double save = pos[3 * v + j];
            alcrDsPairEval ep, em;
            pos[3 * v + j] = save + hd;
            alcr_dsPair_eval(mesh, z, x, mu, k, &ep, NULL);
            pos[3 * v + j] = save - hd;
            alcr_dsPair_eval(mesh, z, x, mu, k, &em, NULL);
            pos[3 * v + j] = save;
            int okp = samePath(&ep, e), okm = samePath(&em, e);
            double Fp[12], Fm[12];
            alcr_dsPair_forces(&ep, Fp);
            alcr_dsPair_forces(&em, Fm);
            for (int a = 0; a < 4; a++) {
                double* B = J + 9 * (nc * a + c);
                for (int r = 0; r < 3; r++) {
                    int i = 3 * a + r;
                    double d = 0;
                    if (okp && okm) {
                        d = (Fp[i] - Fm[i]) / (2 * hd);
                    } else if (okp) {
                        d = (Fp[i] - Fb[i]) / hd;
                    } else if (okm) {
                        d = (Fb[i] - Fm[i]) / hd;
                    }
                    B[3 * r + j] = d;
                }
            }
            if (stats) {
                stats->columns++;
                stats->oneSided += okp != okm;
                stats->dropped += !okp && !okm;
            }
        }
    }
    return nc;
}
