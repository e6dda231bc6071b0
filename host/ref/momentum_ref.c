// Momentum-exact Newton directions. PCG stops at a relative residual (1e-4 by default), and the
// residual r = -G - H p has a nonzero sum: a net force that changes the total momentum of an
// isolated body by up to the tolerance per step. Internal forces are translation invariant
// (elastic, contact and friction terms all annihilate a uniform translation), so on a component
// of the matrix graph that touches no kinematic vertex, H 1 = M 1, and shifting p uniformly by
// c = -(sum G + sum M p) / sum M makes the component's momentum balance exact without changing
// anything else. Components coupled to kinematic vertices, or holding kinematic vertices freed
// into an IPC solve, exchange momentum with them and are left alone.
#include "ref/backend_ref.h"

#include <stdlib.h>
#include <string.h>

alctStatus alcr_momentum_make(alcrBackend* B) {
    B->comp = (int*)malloc(sizeof(int) * (size_t)B->n);
    B->compAnchored = (int*)malloc(sizeof(int) * (size_t)B->n);
    B->compParent = (int*)malloc(sizeof(int) * (size_t)B->n);
    B->compSum = (double*)malloc(sizeof(double) * 4 * (size_t)B->n);
    if (!B->comp || !B->compAnchored || !B->compParent || !B->compSum) return ALC_ERR_NOMEM;
    B->bytes += (sizeof(int) * 3 + sizeof(double) * 4) * (size_t)B->n;
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

/// Label the components of the free vertices in the current matrix pattern.
static void labelComponents(alcrBackend* B) {
    const alcrBsr* A = &B->A;
    int n = B->n;
    int* parent = B->compParent;
    for (int i = 0; i < n; i++) parent[i] = i;
    for (int i = 0; i < n; i++) {
        if (B->kin[i]) continue;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int j = A->col[k];
            if (B->kin[j]) continue;
            int a = findRoot(parent, i), b = findRoot(parent, j);
            if (a != b) parent[a < b ? b : a] = a < b ? a : b;
        }
    }
    // dense ids in vertex order; anchored when a free vertex couples to a kinematic one
    int* id = B->compAnchored;  // scratch: root -> id
    for (int i = 0; i < n; i++) id[i] = -1;
    int nc = 0;
    for (int i = 0; i < n; i++) {
        if (B->kin[i]) continue;
        int r = findRoot(parent, i);
        if (id[r] < 0) id[r] = nc++;
    }
    for (int i = 0; i < n; i++) B->comp[i] = B->kin[i] ? -1 : id[findRoot(parent, i)];
    for (int c = 0; c < nc; c++) id[c] = 0;
    for (int i = 0; i < n; i++) {
        if (B->kin[i]) continue;
        // a kinematic vertex freed into the IPC solve (ipc_boundary_ref.c) anchors its component
        if (B->kinBody[i]) id[B->comp[i]] = 1;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            if (B->kin[A->col[k]]) id[B->comp[i]] = 1;
        }
    }
    B->ncomp = nc;
    B->compDirty = 0;
}

void alcr_momentum_correct(alcrBackend* B) {
    if (B->compDirty) labelComponents(B);
    const alcModel* m = B->m;
    int nc = B->ncomp;
    double* sum = B->compSum;
    memset(sum, 0, sizeof(double) * 4 * (size_t)nc);
    // per component: sum of G + M p, and the mass (serial: deterministic order)
    for (int i = 0; i < B->n; i++) {
        int c = B->comp[i];
        if (c < 0 || B->compAnchored[c]) continue;
        double mi = m->vert_mass[i];
        for (int k = 0; k < 3; k++) sum[4 * c + k] += B->g[3 * i + k] + mi * B->p[3 * i + k];
        sum[4 * c + 3] += mi;
    }
    for (int i = 0; i < B->n; i++) {
        int c = B->comp[i];
        if (c < 0 || B->compAnchored[c] || !(sum[4 * c + 3] > 0)) continue;
        for (int k = 0; k < 3; k++) B->p[3 * i + k] -= sum[4 * c + k] / sum[4 * c + 3];
    }
}
