// Rigid bodies in the reference backend (issue 17): each rigid body is two DOF nodes of the step
// vectors after the vertices, its rotation vector theta and its centre of mass q (RIPC Eq. 4),
// with the inertia of RIPC Eq. 9-10 (towards the discrete rigid body's predicted rotation, and
// implicit Euler on q); its vertices' rows are derived, R(theta) vert_local + q, and eliminated
// from the linear systems like moving boundaries. Contact, friction and the IPC barrier reach
// the nodes through rigid_contact_ref.c (the library refuses driven rigid bodies under the IPC
// model, host/api.c). A driven
// (kinematic) body's nodes are a moving boundary: at its target pose in the first iterate and
// eliminated (AL paper §5.3; the pose from the drivers' vertex targets, host/driver.c).
#include "hd/alcm_barrier.h"
#include "hd/alcm_rigid.h"
#include "hd/alcm_rigid_energy.h"
#include "ref/backend_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Floor of the rotational block's eigenvalues after the projection, as a fraction of its
/// largest principal J: keeps the block invertible for block-Jacobi (RIPC §4.2 shifts the
/// Hessian until it is positive definite).
#define ALCR_RIGID_HESS_FLOOR 1e-10

/// Largest change of a rotation vector in one Newton iteration (rad). The rotational energy is
/// periodic in theta and its projected Hessian nearly singular where it was indefinite, so an
/// unbounded step can land on a lower value many turns away: a bar spun at 60 rad/s took a
/// first Newton step to |theta| = 1.2e7 rad, and the curved CCD of that path cut the step to
/// alpha = 5e-8.
#define ALCR_RIGID_MAX_TURN 0.7853981633974483

#define ALCR_PI 3.14159265358979323846

alctStatus alcr_rigid_make(alcrBackend* B) {
    const alcModel* m = B->m;
    B->rigidOf = (int*)malloc(sizeof(int) * (size_t)(B->n > 0 ? B->n : 1));
    B->rigidQt = (double*)calloc((size_t)(B->nr > 0 ? 9 * B->nr : 1), sizeof(double));
    B->rigidTarget = (double*)calloc((size_t)(B->nr > 0 ? 6 * B->nr : 1), sizeof(double));
    B->rigidRadius = (double*)calloc((size_t)(B->nr > 0 ? B->nr : 1), sizeof(double));
    if (!B->rigidOf || !B->rigidQt || !B->rigidTarget || !B->rigidRadius) return ALC_ERR_NOMEM;
    B->bytes += sizeof(int) * (size_t)B->n + sizeof(double) * 16 * (size_t)B->nr;
    for (int v = 0; v < B->n; v++) B->rigidOf[v] = m->body_rigid[m->vert_body[v]];
    for (int r = 0; r < B->nr; r++) {
        int b = m->rigid_body[r];
        for (int v = m->body_vertadr[b]; v < m->body_vertadr[b] + m->body_vertnum[b]; v++) {
            double rho = alcm_v3_norm(alcm_v3_load(m->vert_local + 3 * v));
            if (rho > B->rigidRadius[r]) B->rigidRadius[r] = rho;
        }
    }
    return ALC_OK;
}

void alcr_rigid_free(alcrBackend* B) {
    free(B->rigidOf);
    free(B->rigidQt);
    free(B->rigidTarget);
    free(B->rigidRadius);
}

void alcr_rigid_place(const alcrBackend* B, double* pos) {
    if (B->nr == 0) return;
    const alcModel* m = B->m;
    for (int r = 0; r < B->nr; r++) {
        int b = m->rigid_body[r];
        const double* node = pos + 3 * (B->n + 2 * r);
        alcM3 R = alcm_rodrigues(alcm_v3_load(node));
        alcV3 q = alcm_v3_load(node + 3);
        for (int v = m->body_vertadr[b]; v < m->body_vertadr[b] + m->body_vertnum[b]; v++) {
            alcV3 x = alcm_v3_add(alcm_m3_mulv(R, alcm_v3_load(m->vert_local + 3 * v)), q);
            alcm_v3_store(pos + 3 * v, x);
        }
    }
}

void alcr_rigid_begin(alcrBackend* B, const alciStepInput* in) {
    double* pose = in->rigidPose;
    double* posePrev = in->rigidPosePrev;
    const double* gravity = in->gravity;
    const alcModel* m = B->m;
    double h = in->h;
    double hp = m->opt.timestep;  // the time a stored pose pair spans (alcr_rigid_end)
    B->rigidPoseIO = pose;
    B->rigidPrevIO = posePrev;
    for (int r = 0; r < B->nr; r++) {
        const double* p = pose + 6 * r;
        const double* pp = posePrev + 6 * r;
        int i = 3 * (B->n + 2 * r);
        for (int k = 0; k < 6; k++) B->xt[i + k] = B->x[i + k] = B->xhat[i + k] = p[k];
        // a rotation vector past half a turn is replaced by the one of the same rotation within
        // it: the step's path is linear in theta, and Rodrigues' derivatives degenerate at
        // |theta| = 2 pi (the poses written back keep |theta| <= pi after a step)
        alcV3 th = alcm_v3_load(p);
        if (alcm_v3_norm(th) > ALCR_PI) {
            th = alcm_rotation_log(alcm_rodrigues(th));
            alcm_v3_store(B->xt + i, th);
            alcm_v3_store(B->x + i, th);
            alcm_v3_store(B->xhat + i, th);
        }
        // q~ = q + h v + h^2 g with v = (q - q_prev) / hp (RIPC Eq. 10) in the q node's rows of
        // XTILDE; the rotation's prediction, the free motion of the discrete rigid body (Moser
        // and Veselov), kept as a matrix in place of RIPC's Q~ = 2 Q - Q_prev (Eq. 9), whose
        // implicit Euler lost 15 % of a free body's angular momentum in a second
        for (int k = 0; k < 3; k++) {
            B->xtilde[i + 3 + k] =
                p[3 + k] + (h / hp) * (p[3 + k] - pp[3 + k]) + h * h * gravity[k];
        }
        alcV3 J = alcm_rigid_J(alcm_v3_load(m->rigid_inertia + 3 * r));
        alcM3 Qt = alcm_rigid_predict(alcm_rodrigues(alcm_v3_load(p)),
                                      alcm_rodrigues(alcm_v3_load(pp)), J, hp, h);
        alcm_m3_store(B->rigidQt + 9 * r, Qt);
        // a kinematic body (a driven one, AL paper §5.3): its nodes are eliminated and sit at
        // its target in XHAT; the rotation vector of the target nearest to the start's makes
        // the step's path turn the short way
        int kin = in->rigidKin && in->rigidKin[r];
        B->kin[B->n + 2 * r] = B->kin[B->n + 2 * r + 1] = (unsigned char)kin;
        // the IPC model's moving boundaries (ipc_boundary_ref.c) act on these nodes
        B->kinBody[B->n + 2 * r] = B->kinBody[B->n + 2 * r + 1] = (unsigned char)kin;
        if (kin) {
            const double* t = in->rigidTarget + 6 * r;
            alcV3 th1 = alcm_rotation_nearest(alcm_v3_load(t), alcm_v3_load(B->xt + i));
            alcm_v3_store(B->rigidTarget + 6 * r, th1);
            memcpy(B->rigidTarget + 6 * r + 3, t + 3, sizeof(double) * 3);
            memcpy(B->xhat + i, B->rigidTarget + 6 * r, sizeof(double) * 6);
            memcpy(B->kinTarget + i, B->rigidTarget + 6 * r, sizeof(double) * 6);
        }
    }
    alcr_rigid_place(B, B->xt);
    alcr_rigid_place(B, B->x);
    alcr_rigid_place(B, B->xhat);
}

void alcr_rigid_kinPlace(alcrBackend* B) {
    int any = 0;
    for (int r = 0; r < B->nr; r++) {
        if (!B->kin[B->n + 2 * r]) continue;
        memcpy(B->xhat + 3 * (B->n + 2 * r), B->rigidTarget + 6 * r, sizeof(double) * 6);
        any = 1;
    }
    if (any) alcr_rigid_place(B, B->xhat);
}

void alcr_rigid_end(const alcrBackend* B) {
    const alcModel* m = B->m;
    double hp = m->opt.timestep, h = B->h;
    for (int r = 0; r < B->nr; r++) {
        int i = 3 * (B->n + 2 * r);
        double* prev = B->rigidPrevIO + 6 * r;
        memcpy(B->rigidPoseIO + 6 * r, B->x + i, sizeof(double) * 6);
        if (fabs(h - hp) <= 1e-12 * hp) {
            memcpy(prev, B->xt + i, sizeof(double) * 6);
            continue;
        }
        // a part of a split step: the pair written spans hp all the same, with the velocity
        // and the angular momentum this part ended with
        for (int k = 0; k < 3; k++) {
            prev[3 + k] = B->x[i + 3 + k] - (hp / h) * (B->x[i + 3 + k] - B->xt[i + 3 + k]);
        }
        alcV3 J = alcm_rigid_J(alcm_v3_load(m->rigid_inertia + 3 * r));
        alcV3 th = alcm_v3_load(B->x + i);
        alcM3 R = alcm_rodrigues(th);
        alcV3 Pi = alcm_rigid_mvMomentum(R, alcm_rodrigues(alcm_v3_load(B->xt + i)), J, h);
        alcV3 thPrev = alcm_rotation_log(alcm_rigid_previous(R, Pi, J, hp));
        alcm_v3_store(prev, alcm_rotation_nearest(thPrev, th));
    }
}

double alcr_rigid_energy(const alcrBackend* B, const double* pos) {
    const alcModel* m = B->m;
    double e = 0;
    for (int r = 0; r < B->nr; r++) {
        int i = 3 * (B->n + 2 * r);
        alcV3 J = alcm_rigid_J(alcm_v3_load(m->rigid_inertia + 3 * r));
        e += alcm_rigid_rotEnergy(alcm_v3_load(pos + i), alcm_m3_load(B->rigidQt + 9 * r), J, NULL,
                                  NULL);
        e += alcm_rigid_transEnergy(alcm_v3_load(pos + i + 3), alcm_v3_load(B->xtilde + i + 3),
                                    m->rigid_mass[r], NULL);
    }
    return e;
}

void alcr_rigid_assemble(alcrBackend* B) {
    const alcModel* m = B->m;
    alcrBsr* A = &B->A;
    // the rigid vertices' rows: eliminated (their positions follow the nodes)
    for (int v = 0; v < B->n; v++) {
        if (B->rigidOf[v] < 0) continue;
        int r0 = A->rowptr[v], r1 = A->rowptr[v + 1];
        memset(A->val + 9 * r0, 0, sizeof(double) * 9 * (size_t)(r1 - r0));
        double* dg = A->val + 9 * A->diag[v];
        dg[0] = dg[4] = dg[8] = 1;
        B->g[3 * v] = B->g[3 * v + 1] = B->g[3 * v + 2] = 0;
    }
    for (int r = 0; r < B->nr; r++) {
        int nt = B->n + 2 * r, nq = nt + 1;
        if (B->kin[nt]) {
            // a kinematic body: its rows eliminated, as a moving boundary's (§5.3)
            for (int node = nt; node <= nq; node++) {
                int r0 = A->rowptr[node], r1 = A->rowptr[node + 1];
                memset(A->val + 9 * r0, 0, sizeof(double) * 9 * (size_t)(r1 - r0));
                double* dg = A->val + 9 * A->diag[node];
                dg[0] = dg[4] = dg[8] = m->rigid_mass[r];
                memset(B->g + 3 * node, 0, sizeof(double) * 3);
            }
            continue;
        }
        alcV3 I = alcm_v3_load(m->rigid_inertia + 3 * r);
        alcV3 J = alcm_rigid_J(I);
        double H[9];
        alcm_rigid_rotEnergy(alcm_v3_load(B->xhat + 3 * nt), alcm_m3_load(B->rigidQt + 9 * r), J,
                             B->g + 3 * nt, H);
        // RIPC §4.2: the rotational Hessian may be indefinite away from the solution
        alcm_projectPsd(H, 3);
        double floor = ALCR_RIGID_HESS_FLOOR * I.x;  // the moments are in descending order
        H[0] += floor;
        H[4] += floor;
        H[8] += floor;
        int rt0 = A->rowptr[nt], rt1 = A->rowptr[nt + 1];
        memset(A->val + 9 * rt0, 0, sizeof(double) * 9 * (size_t)(rt1 - rt0));
        memcpy(A->val + 9 * A->diag[nt], H, sizeof H);
        alcm_rigid_transEnergy(alcm_v3_load(B->xhat + 3 * nq), alcm_v3_load(B->xtilde + 3 * nq),
                               m->rigid_mass[r], B->g + 3 * nq);
        int rq0 = A->rowptr[nq], rq1 = A->rowptr[nq + 1];
        memset(A->val + 9 * rq0, 0, sizeof(double) * 9 * (size_t)(rq1 - rq0));
        double* dq = A->val + 9 * A->diag[nq];
        dq[0] = dq[4] = dq[8] = m->rigid_mass[r];
    }
}

double alcr_rigid_maxTurn(const alcrBackend* B) {
    double pmax = 0;
    for (int r = 0; r < B->nr; r++) {
        pmax = fmax(pmax, alcm_v3_norm(alcm_v3_load(B->p + 3 * (B->n + 2 * r))));
    }
    return pmax > ALCR_RIGID_MAX_TURN ? ALCR_RIGID_MAX_TURN / pmax : 1.0;
}

double alcr_rigid_stepLength(const alcrBackend* B) {
    double len = 0;
    for (int r = 0; r < B->nr; r++) {
        const double* node = B->p + 3 * (B->n + 2 * r);
        double dq = fmax(fabs(node[3]), fmax(fabs(node[4]), fabs(node[5])));
        len = fmax(len, dq + B->rigidRadius[r] * alcm_v3_norm(alcm_v3_load(node)));
    }
    return len;
}

alctStatus alcr_rigid_pattern(alcrBackend* B) {
    if (B->nr == 0) return ALC_OK;
    int n = B->n, nn = B->nn, nnz = B->srowptr[n];
    int* rp = (int*)realloc(B->srowptr, sizeof(int) * ((size_t)nn + 1));
    if (!rp) return ALC_ERR_NOMEM;
    B->srowptr = rp;
    int* col = (int*)realloc(B->scol, sizeof(int) * ((size_t)nnz + 2 * (size_t)B->nr));
    if (!col) return ALC_ERR_NOMEM;
    B->scol = col;
    for (int i = n; i < nn; i++) {
        B->scol[B->srowptr[i]] = i;
        B->srowptr[i + 1] = B->srowptr[i] + 1;
    }
    return ALC_OK;
}
