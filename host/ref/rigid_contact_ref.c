// Contact and friction on rigid bodies in the reference backend (issue 17; rigid IPC, Ferguson
// et al. 2021, §4.2-4.3). A contact stencil with a vertex on a rigid body acts on that body's
// DOF nodes (theta, q; rigid_ref.c) instead of the vertex's row, which is derived and eliminated:
//
// - The AL constraint of a pair is linearized in the DOF nodes at X (AL paper Eq. 10 with the
//   rigid DOFs as the variables): c(y) = d - delta + sum_N G_N . (y_N - x_N), where
//   G_N = sum_a J_aN^T grad_a d pulls the distance gradient back through each vertex's
//   Jacobian (alcm_rigid_pullback). c is then linear in the solver's unknowns as it is for soft
//   bodies, so the augmented terms stay piecewise quadratic and mu gamma G G^T is their exact
//   curvature.
// - Friction, which is evaluated at the placed vertex positions, is pulled back at XHAT with
//   the Gauss-Newton Hessian J^T H J (RIPC §4.2), positive semi-definite as H is.
// - The path from X to XHAT is linear in (theta, q), so a rigid vertex moves on a curve: the
//   CCD of a stencil with a rigid vertex is RIPC's Algorithm 1 (alcm_ccd_curved.h), and the
//   broad phase grows each rigid vertex's box by its deviation from its chord.
#include "hd/alcm_ccd_curved.h"
#include "hd/alcm_distance.h"
#include "hd/alcm_rigid_energy.h"
#include "ref/backend_ref.h"

#include <stdlib.h>
#include <string.h>

alctStatus alcr_rigidContact_alloc(alcrBackend* B, int cap) {
    if (B->nr == 0) return ALC_OK;
    const int W = ALCR_RIGID_STENCIL;
    int old = B->pairRC ? B->pairCap : 0;  // growPairs sets pairCap after this call
    int* rn = (int*)realloc(B->pairRN, sizeof(int) * W * (size_t)cap);
    if (rn) B->pairRN = rn;
    int* rc = (int*)realloc(B->pairRC, sizeof(int) * (size_t)cap);
    if (rc) B->pairRC = rc;
    double* rg = (double*)realloc(B->pairRG, sizeof(double) * 3 * W * (size_t)cap);
    if (rg) B->pairRG = rg;
    if (!B->vertInfl) {
        B->vertInfl = (double*)calloc((size_t)(B->n > 0 ? B->n : 1), sizeof(double));
        if (B->vertInfl) B->bytes += sizeof(double) * (size_t)B->n;
    }
    if (!rn || !rc || !rg || !B->vertInfl) return ALC_ERR_NOMEM;
    B->bytes += (sizeof(int) * (W + 1) + sizeof(double) * 3 * W) * (size_t)(cap - old);
    return ALC_OK;
}

void alcr_rigidContact_free(alcrBackend* B) {
    free(B->pairRN);
    free(B->pairRC);
    free(B->pairRG);
    free(B->vertInfl);
}

int alcr_rigid_touches(const alcrBackend* B, const int v[4]) {
    if (B->nr == 0) return 0;
    const int* r = B->rigidOf;
    return r[v[0]] >= 0 || r[v[1]] >= 0 || r[v[2]] >= 0 || r[v[3]] >= 0;
}

/// Add node to the list nodes[0 .. *nn - 1] unless it is there (room for width).
static void addNode(int* nodes, int* nn, int width, int node) {
    for (int i = 0; i < *nn; i++) {
        if (nodes[i] == node) return;
    }
    if (*nn < width) nodes[(*nn)++] = node;
}

void alcr_rigid_stencilNodes(const alcrBackend* B, const int v[4], int width, int* nodes) {
    int nn = 0;
    for (int a = 0; a < 4; a++) {
        int r = B->nr > 0 ? B->rigidOf[v[a]] : -1;
        if (r < 0) {
            addNode(nodes, &nn, width, v[a]);
        } else {
            addNode(nodes, &nn, width, B->n + 2 * r);
            addNode(nodes, &nn, width, B->n + 2 * r + 1);
        }
    }
    for (int i = nn; i < width; i++) nodes[i] = -1;
}

/// The 4 vertices' maps at the nodes of pos (3 nn).
static void vertMaps(const alcrBackend* B, const int v[4], const double* pos,
                     alcRigidVertMap map[4]) {
    for (int a = 0; a < 4; a++) {
        int r = B->rigidOf[v[a]];
        if (r < 0) {
            map[a] = alcm_rigid_mapSoft(v[a]);
            continue;
        }
        int nt = B->n + 2 * r;
        map[a] = alcm_rigid_mapRigid(nt, nt + 1, alcm_v3_load(pos + 3 * nt),
                                     alcm_v3_load(B->m->vert_local + 3 * v[a]));
    }
}

void alcr_rigid_linearizePair(alcrBackend* B, int p) {
    const alcrPair* P = &B->pairs[p];
    const int W = ALCR_RIGID_STENCIL;
    if (!alcr_rigid_touches(B, P->v)) {
        B->pairRC[p] = 0;
        return;
    }
    alcRigidVertMap map[4];
    vertMaps(B, P->v, B->x, map);
    int nodes[ALCM_STENCIL_NODES];
    double G[3 * ALCM_STENCIL_NODES];
    int nn = alcm_rigid_pullback(map, P->g, NULL, nodes, G, NULL);
    // a point and a triangle, or two edges, each on one body: at most W nodes
    if (nn > W) nn = W;
    B->pairRC[p] = nn;
    for (int i = 0; i < W; i++) B->pairRN[W * p + i] = i < nn ? nodes[i] : -1;
    memcpy(B->pairRG + 3 * W * (size_t)p, G, sizeof(double) * 3 * (size_t)nn);
}

double alcr_rigid_pairDelta(const alcrBackend* B, int p, const double* pos) {
    const int W = ALCR_RIGID_STENCIL;
    const int* nodes = B->pairRN + W * p;
    const double* G = B->pairRG + 3 * W * (size_t)p;
    double c = 0;
    for (int i = 0; i < B->pairRC[p]; i++) {
        const double* q = pos + 3 * nodes[i];
        const double* x = B->x + 3 * nodes[i];
        for (int k = 0; k < 3; k++) c += G[3 * i + k] * (q[k] - x[k]);
    }
    return c;
}

static int nodeKinematic(const alcrBackend* B, int node) {
    return B->kin[node];  // a kinematic vertex, or a kinematic rigid body's node
}

/// Add gs G (3 per node) to the gradient and, when H is not NULL, the Hessian H (3 nn x 3 nn,
/// row stride `stride`) to the matrix, at the DOF nodes; kinematic rows eliminated.
static void scatter(alcrBackend* B, int nn, const int* nodes, const double* G, double gs,
                    const double* H, int stride) {
    alcrBsr* A = &B->A;
    for (int i = 0; i < nn; i++) {
        int ni = nodes[i];
        if (nodeKinematic(B, ni)) continue;
        for (int k = 0; k < 3; k++) B->g[3 * ni + k] += gs * G[3 * i + k];
        if (!H) continue;
        for (int j = 0; j < nn; j++) {
            int nj = nodes[j];
            if (nodeKinematic(B, nj)) continue;
            int blk = alcr_bsr_find(A, ni, nj);
            if (blk < 0) continue;  // cannot happen: the pattern holds every stencil
            double* dst = A->val + 9 * blk;
            for (int k = 0; k < 3; k++) {
                for (int l = 0; l < 3; l++) dst[3 * k + l] += H[(3 * i + k) * stride + 3 * j + l];
            }
        }
    }
}

void alcr_rigid_contactAssemble(alcrBackend* B, const double* coef, double mu) {
    if (B->nr == 0) return;
    const int W = ALCR_RIGID_STENCIL, S = 3 * W;
    double H[3 * ALCR_RIGID_STENCIL * 3 * ALCR_RIGID_STENCIL];
    for (int p = 0; p < B->npair; p++) {
        int nn = B->pairRC[p];
        if (nn == 0) continue;
        const alcrPair* P = &B->pairs[p];
        const double* G = B->pairRG + 3 * W * (size_t)p;
        // the exact curvature of gamma phi(c) for c linear in the nodes: mu gamma G G^T where
        // the pair is active (contact_ref.c)
        double s = P->active ? alcm_pair_mu(P, mu) * P->gamma : 0;
        for (int i = 0; s > 0 && i < 3 * nn; i++) {
            for (int j = 0; j < 3 * nn; j++) H[i * S + j] = s * G[i] * G[j];
        }
        scatter(B, nn, B->pairRN + W * p, G, coef[p], s > 0 ? H : NULL, S);
    }
}

void alcr_rigid_addStencil(alcrBackend* B, const int v[4], const double g[12], const double* H) {
    alcRigidVertMap map[4];
    vertMaps(B, v, B->xhat, map);
    int nodes[ALCM_STENCIL_NODES];
    double G[3 * ALCM_STENCIL_NODES];
    double HN[3 * ALCM_STENCIL_NODES * 3 * ALCM_STENCIL_NODES];
    int nn = alcm_rigid_pullback(map, g, H, nodes, G, H ? HN : NULL);
    scatter(B, nn, nodes, G, 1.0, H ? HN : NULL, 3 * ALCM_STENCIL_NODES);
}

void alcr_rigid_addGradient(const alcrBackend* B, const int v[4], const double g[12], double* out) {
    alcRigidVertMap map[4];
    vertMaps(B, v, B->xhat, map);
    int nodes[ALCM_STENCIL_NODES];
    double G[3 * ALCM_STENCIL_NODES];
    int nn = alcm_rigid_pullback(map, g, NULL, nodes, G, NULL);
    for (int i = 0; i < nn; i++) {
        if (nodeKinematic(B, nodes[i])) continue;
        for (int k = 0; k < 3; k++) out[3 * nodes[i] + k] += G[3 * i + k];
    }
}

/// The trajectory of vertex v over from -> to (3 nn each): a rigid body's point, or the
/// straight chord.
static alcRigidPath vertPath(const alcrBackend* B, int v, const double* from, const double* to) {
    int r = B->rigidOf[v];
    if (r < 0) {
        return alcm_rigidPath_linear(alcm_v3_load(from + 3 * v), alcm_v3_load(to + 3 * v));
    }
    int nt = B->n + 2 * r;
    alcRigidPath p;
    p.a = alcm_v3_load(B->m->vert_local + 3 * v);
    p.theta0 = alcm_v3_load(from + 3 * nt);
    p.theta1 = alcm_v3_load(to + 3 * nt);
    p.q0 = alcm_v3_load(from + 3 * nt + 3);
    p.q1 = alcm_v3_load(to + 3 * nt + 3);
    return p;
}

const double* alcr_rigid_inflation(alcrBackend* B, const double* from, const double* to) {
    if (B->nr == 0) return NULL;
    const alcModel* m = B->m;
#pragma omp parallel for schedule(static) if (m->nsvert > ALCR_PAR_MIN)
    for (int s = 0; s < m->nsvert; s++) {
        int v = m->svert[s];
        if (B->rigidOf[v] < 0) {
            B->vertInfl[v] = 0;
            continue;
        }
        alcRigidPath p = vertPath(B, v, from, to);
        B->vertInfl[v] = alcm_rigidPath_deviation(&p, 0.0, 1.0);
    }
    return B->vertInfl;
}

int alcr_rigid_ccd(const alcrBackend* B, const double* from, const double* to, const int v[4],
                   int isEE, double dmin, double keep, double* toi) {
    alcRigidPath path[4];
    alcV3 x[4];
    for (int a = 0; a < 4; a++) {
        path[a] = vertPath(B, v[a], from, to);
        x[a] = alcm_v3_load(from + 3 * v[a]);
    }
    // Algorithm 1 vouches for a separation of dmin only: a pass over a sub-interval leaves the
    // curves anywhere above it, so the fraction of the gap to keep enters as separation
    double d0 = isEE ? alcm_ee_distance(x, NULL) : alcm_pt_distance(x, NULL);
    if (keep > 0 && d0 > dmin) dmin += keep * (d0 - dmin);
    double t = 1;
    bool hit = alcm_ccd_curved(path, isEE != 0, dmin, 1.0, &t, NULL);
    *toi = hit ? t : 1;
    return hit ? 1 : 0;
}
