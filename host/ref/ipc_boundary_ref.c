// Moving boundaries under the IPC model (research/seeds-000-004.md §1.13, the reference IPC
// code's scheme, corroborated by rigid IPC §4.4). A kinematic vertex first moves toward its
// target as far as CCD allows; when that falls short, the kinematic DOFs join the solve as free
// DOFs pulled to their targets xhat_k by the augmented Lagrangian
//   E_A(x) = sum_k rho/2 m_k |x_k - xhat_k|^2 - sqrt(m_k) lambda_k . (x_k - xhat_k),
// so that the barrier, not a teleport, decides where they can go; the loop (host/step_ipc.c)
// doubles rho or updates lambda_k -= rho sqrt(m_k)(x_k - xhat_k) by the progress eta, and
// eliminates the DOFs again once eta > 0.999. Massless kinematic vertices (obstacle surfaces)
// take the mean nodal mass, as in IPC. A kinematic rigid body (issue 17) is two such DOF nodes
// (rigid IPC §4.4): its translation q weighted by the body's mass, its rotation vector theta by
// the mean of its principal moments (kg m^2; the rotational term of rigid IPC's code in theta,
// made isotropic so that it does not depend on the frame of theta), its targets the pose the
// drivers fit (alcr_rigid_begin); its vertices are derived from them and take no term.
#include "ref/backend_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

alctStatus alcr_ipcBoundary_make(alcrBackend* B) {
    const alcModel* m = B->m;
    B->kinBody = (unsigned char*)calloc((size_t)B->nn, 1);
    B->kinLambda = (double*)calloc((size_t)B->N, sizeof(double));
    if (!B->kinBody || !B->kinLambda) return ALC_ERR_NOMEM;
    B->bytes += (size_t)B->nn + sizeof(double) * (size_t)B->N;
    B->kinMbar = alci_model_meanMass(m);
    B->kinAl = 0;
    B->kinRho = 0;
    return ALC_OK;
}

void alcr_ipcBoundary_free(alcrBackend* B) {
    free(B->kinBody);
    free(B->kinLambda);
}

/// AL mass of DOF node v: a vertex's mass (kg), a rigid body's mass for its q node (kg) and the
/// mean of its principal moments for its theta node (kg m^2).
static double alMass(const alcrBackend* B, int v) {
    const alcModel* m = B->m;
    if (v >= B->n) {
        int r = (v - B->n) / 2;
        if ((v - B->n) % 2) return m->rigid_mass[r];
        const double* I = m->rigid_inertia + 3 * r;
        return (I[0] + I[1] + I[2]) / 3;
    }
    double mv = m->vert_mass[v];
    return mv > 0 ? mv : B->kinMbar;
}

void alcr_ipcBoundary_set(alcrBackend* B, int on, double rho) {
    B->kinRho = rho;
    if (on == B->kinAl) return;
    for (int v = 0; v < B->nn; v++) {
        if (!B->kinBody[v]) continue;
        B->kin[v] = (unsigned char)!on;
        if (on)
            for (int k = 0; k < 3; k++) B->kinLambda[3 * v + k] = 0;
    }
    B->kinAl = on;
    B->compDirty = 1;  // the freed vertices anchor their components (momentum_ref.c)
}

double alcr_ipcBoundary_progress(const alcrBackend* B) {
    // per kind of DOF (vertex positions, rigid translations, rigid rotation vectors), so that
    // metres and radians are not summed; the least progress of the three
    double left[3] = {0, 0, 0}, total[3] = {0, 0, 0};
    for (int v = 0; v < B->nn; v++) {
        if (!B->kinBody[v]) continue;
        int kind = v < B->n ? 0 : 1 + !((v - B->n) % 2);
        for (int k = 0; k < 3; k++) {
            int i = 3 * v + k;
            double a = B->x[i] - B->kinTarget[i], b = B->kinTarget[i] - B->xt[i];
            left[kind] += a * a;
            total[kind] += b * b;
        }
    }
    double eta = 1;
    for (int c = 0; c < 3; c++) {
        if (total[c] > 0) eta = fmin(eta, 1 - sqrt(left[c] / total[c]));
    }
    return eta;
}

void alcr_ipcBoundary_update(alcrBackend* B) {
    for (int v = 0; v < B->nn; v++) {
        if (!B->kinBody[v]) continue;
        double sm = sqrt(alMass(B, v));
        for (int k = 0; k < 3; k++) {
            int i = 3 * v + k;
            B->kinLambda[i] -= B->kinRho * sm * (B->x[i] - B->kinTarget[i]);
        }
    }
}

double alcr_ipcBoundary_energy(const alcrBackend* B, const double* pos) {
    if (!B->kinAl) return 0;
    double e = 0;
    for (int v = 0; v < B->nn; v++) {
        if (!B->kinBody[v]) continue;
        double mv = alMass(B, v), sm = sqrt(mv);
        for (int k = 0; k < 3; k++) {
            int i = 3 * v + k;
            double d = pos[i] - B->kinTarget[i];
            e += 0.5 * B->kinRho * mv * d * d - sm * B->kinLambda[i] * d;
        }
    }
    return e;
}

void alcr_ipcBoundary_assemble(alcrBackend* B) {
    if (!B->kinAl) return;
    alcrBsr* A = &B->A;
    for (int v = 0; v < B->nn; v++) {
        if (!B->kinBody[v]) continue;
        double mv = alMass(B, v), sm = sqrt(mv);
        double* dg = A->val + 9 * A->diag[v];
        for (int k = 0; k < 3; k++) {
            int i = 3 * v + k;
            B->g[i] += B->kinRho * mv * (B->xhat[i] - B->kinTarget[i]) - sm * B->kinLambda[i];
            dg[4 * k] += B->kinRho * mv;
        }
    }
}
