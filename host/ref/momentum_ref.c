// Momentum-exact Newton directions. PCG stops at a relative residual (1e-4 by default), and the
// residual r = -G - H p has a nonzero sum: a net force that changes the total momentum of an
// isolated body by up to the tolerance per step. Internal forces are translation invariant
// (elastic, contact and friction terms all annihilate a uniform translation), so on a component
// of the matrix graph that touches no kinematic vertex, H 1 = M 1, and shifting p uniformly by
// c = -(sum G + sum M p) / sum M makes the component's momentum balance exact without changing
// anything else. Components coupled to kinematic vertices, or holding kinematic vertices freed
// into an IPC solve, exchange momentum with them and are left alone. A rigid body takes part
// through its centre-of-mass node q (its mass there, shifted with the rest); its rotation node
// theta is in the component and not shifted: contact and friction pulled back to (theta, q)
// are translation invariant in the same sense (rigid_contact_ref.c).
#include "ref/backend_ref.h"

#include <stdlib.h>
#include <string.h>

alctStatus alcr_momentum_make(alcrBackend* B) {
    size_t nn = (size_t)B->nn;
    B->comp = (int*)malloc(sizeof(int) * nn);
    B->compAnchored = (int*)malloc(sizeof(int) * nn);
    B->compParent = (int*)malloc(sizeof(int) * nn);
    B->compSum = (double*)malloc(sizeof(double) * 4 * nn);
    if (!B->comp || !B->compAnchored || !B->compParent || !B->compSum) return ALC_ERR_NOMEM;
    B->bytes += (sizeof(int) * 3 + sizeof(double) * 4) * nn;
    B->compDirty = 1;
    return ALC_OK;
}

void alcr_momentum_free(alcrBackend* B) {
    free(B->comp);
    free(B->compAnchored);
    free(B->compParent);
    free(B->compSum);
}

static int findRoot(int* parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/// Rows outside every component: kinematic vertices and kinematic rigid bodies' nodes, and the
/// rigid bodies' vertices (their rows are derived from the bodies' nodes).
static int outside(const alcrBackend* B, int i) {
    return B->kin[i] || (i < B->n && B->nr > 0 && B->rigidOf[i] >= 0);
}

/// A row's translational mass: a vertex's mass, a rigid body's on its q node, 0 on its theta
/// node (a uniform translation leaves the rotation vectors alone).
static double rowMass(const alcrBackend* B, int i) {
    if (i < B->n) return B->m->vert_mass[i];
    int r = (i - B->n) / 2;
    return (i - B->n) % 2 ? B->m->rigid_mass[r] : 0;
}

/// Label the components of the free DOF nodes in the current matrix pattern.
static void labelComponents(alcrBackend* B) {
    const alcrBsr* A = &B->A;
    int nn = B->nn;
    int* parent = B->compParent;
    for (int i = 0; i < nn; i++) parent[i] = i;
    for (int i = 0; i < nn; i++) {
        if (outside(B, i)) continue;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int j = A->col[k];
            if (outside(B, j)) continue;
            int a = findRoot(parent, i), b = findRoot(parent, j);
            if (a != b) parent[a < b ? b : a] = a < b ? a : b;
        }
    }
    // a rigid body's two nodes are one component (they share no block)
    for (int r = 0; r < B->nr; r++) {
        int a = findRoot(parent, B->n + 2 * r), b = findRoot(parent, B->n + 2 * r + 1);
        if (a != b) parent[a < b ? b : a] = a < b ? a : b;
    }
    // dense ids in node order; anchored when a free node couples to a kinematic vertex
    int* id = B->compAnchored;  // scratch: root -> id
    for (int i = 0; i < nn; i++) id[i] = -1;
    int nc = 0;
    for (int i = 0; i < nn; i++) {
        if (outside(B, i)) continue;
        int r = findRoot(parent, i);
        if (id[r] < 0) id[r] = nc++;
    }
    for (int i = 0; i < nn; i++) B->comp[i] = outside(B, i) ? -1 : id[findRoot(parent, i)];
    for (int c = 0; c < nc; c++) id[c] = 0;
    for (int i = 0; i < nn; i++) {
        if (outside(B, i)) continue;
        // a kinematic vertex freed into the IPC solve (ipc_boundary_ref.c) anchors its component
        if (i < B->n && B->kinBody[i]) id[B->comp[i]] = 1;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int j = A->col[k];
            if (B->kin[j]) id[B->comp[i]] = 1;  // a kinematic vertex or rigid body's node
        }
    }
    B->ncomp = nc;
    B->compDirty = 0;
}

void alcr_momentum_correct(alcrBackend* B) {
    if (B->compDirty) labelComponents(B);
    int nc = B->ncomp;
    double* sum = B->compSum;
    memset(sum, 0, sizeof(double) * 4 * (size_t)nc);
    // per component: sum of G + M p over its translational rows, and the mass (serial:
    // deterministic order)
    for (int i = 0; i < B->nn; i++) {
        int c = B->comp[i];
        double mi = rowMass(B, i);
        if (c < 0 || B->compAnchored[c] || (i >= B->n && !(mi > 0))) continue;
        for (int k = 0; k < 3; k++) sum[4 * c + k] += B->g[3 * i + k] + mi * B->p[3 * i + k];
        sum[4 * c + 3] += mi;
    }
    for (int i = 0; i < B->nn; i++) {
        int c = B->comp[i];
        if (c < 0 || B->compAnchored[c] || !(sum[4 * c + 3] > 0)) continue;
        if (i >= B->n && !(rowMass(B, i) > 0)) continue;  // theta nodes
        for (int k = 0; k < 3; k++) B->p[3 * i + k] -= sum[4 * c + k] / sum[4 * c + 3];
    }
}
