// The body-frame hierarchy of a rigid body's primitives (see rigid_bvh.h): a top-down build by
// median splits, and a stack traversal for box queries.
#include "rigid_bvh.h"

#include <stdlib.h>
#include <string.h>

/// Build state: the boxes, their centres and the primitive order being partitioned.
typedef struct {
    const alcAabb* box;
    alcV3* centre;
    int* prim;
    alciBvhNode* node;
    int nnode;
} Build;

/// Centre of primitive p along axis k.
static double centreAt(const Build* b, int p, int k) {
    alcV3 c = b->centre[p];
    return k == 0 ? c.x : (k == 1 ? c.y : c.z);
}

/// Partial quickselect: reorder prim[lo, hi) so that the entry at mid has the mid-th smallest
/// centre along k, with no larger centre before it and no smaller one after it.
static void selectMedian(const Build* b, int lo, int hi, int mid, int k) {
    int* p = b->prim;
    while (hi - lo > 1) {
        double pivot = centreAt(b, p[lo + (hi - lo) / 2], k);
        int i = lo, j = hi - 1;
        while (i <= j) {
            while (centreAt(b, p[i], k) < pivot) i++;
            while (centreAt(b, p[j], k) > pivot) j--;
            if (i <= j) {
                int s = p[i];
                p[i] = p[j];
                p[j] = s;
                i++;
                j--;
            }
        }
        // [lo, j] <= pivot <= [i, hi)
        if (mid <= j) {
            hi = j + 1;
        } else if (mid >= i) {
            lo = i;
        } else {
            return;
        }
    }
}

/// Node over prim[lo, hi); returns its index. Nodes are numbered depth first, left first.
static int buildNode(Build* b, int lo, int hi) {
    int id = b->nnode++;
    alciBvhNode* nd = &b->node[id];
    alcAabb box = alcm_aabb_empty(), cbox = alcm_aabb_empty();
    for (int i = lo; i < hi; i++) {
        box = alcm_aabb_union(box, b->box[b->prim[i]]);
        cbox = alcm_aabb_addPoint(cbox, b->centre[b->prim[i]]);
    }
    nd->box = box;
    if (hi - lo <= ALCI_BVH_LEAF) {
        nd->left = nd->right = -1;
        nd->first = lo;
        nd->count = hi - lo;
        return id;
    }
    int mid = lo + (hi - lo) / 2;
    selectMedian(b, lo, hi, mid, alcm_aabb_longestAxis(cbox));
    nd->first = nd->count = 0;
    int left = buildNode(b, lo, mid);
    int right = buildNode(b, mid, hi);
    // b->node did not move (allocated for the most nodes up front)
    b->node[id].left = left;
    b->node[id].right = right;
    return id;
}

alctStatus alci_rigidBvh_build(alciRigidBvh* t, const alcAabb* boxes, int n) {
    if (!t) return ALC_ERR_INVALID_ARG;
    memset(t, 0, sizeof *t);
    if (n < 0 || (n > 0 && !boxes)) return ALC_ERR_INVALID_ARG;
    if (n == 0) return ALC_OK;
    // a binary tree whose leaves hold at least one primitive has fewer than 2 n nodes
    Build b = {boxes, (alcV3*)malloc(sizeof(alcV3) * (size_t)n),
               (int*)malloc(sizeof(int) * (size_t)n),
               (alciBvhNode*)malloc(sizeof(alciBvhNode) * (size_t)(2 * n)), 0};
    alcAabb* own = (alcAabb*)malloc(sizeof(alcAabb) * (size_t)n);
    if (!b.centre || !b.prim || !b.node || !own) {
        free(b.centre);
        free(b.prim);
        free(b.node);
        free(own);
        return ALC_ERR_NOMEM;
    }
    memcpy(own, boxes, sizeof(alcAabb) * (size_t)n);
    for (int i = 0; i < n; i++) {
        b.prim[i] = i;
        b.centre[i] = alcm_aabb_center(boxes[i]);
    }
    buildNode(&b, 0, n);
    free(b.centre);
    t->nprim = n;
    t->nnode = b.nnode;
    t->node = b.node;
    t->prim = b.prim;
    t->box = own;
    return ALC_OK;
}

void alci_rigidBvh_free(alciRigidBvh* t) {
    if (!t) return;
    free(t->node);
    free(t->prim);
    free(t->box);
    memset(t, 0, sizeof *t);
}

long alci_rigidBvh_query(const alciRigidBvh* t, alcAabb q, void (*visit)(void* user, int prim),
                         void* user) {
    if (!t || t->nnode == 0) return 0;
    // depth first; the depth of a median-split tree is about log2(n / ALCI_BVH_LEAF), far
    // below the stack's 64 entries for any int-sized n
    int stack[64];
    int top = 0;
    long visited = 0;
    stack[top++] = 0;
    while (top > 0) {
        const alciBvhNode* nd = &t->node[stack[--top]];
        if (!alcm_aabb_overlap(nd->box, q)) continue;
        if (nd->left < 0) {
            for (int i = nd->first; i < nd->first + nd->count; i++) {
                int p = t->prim[i];
                if (!alcm_aabb_overlap(t->box[p], q)) continue;
                visited++;
                if (visit) visit(user, p);
            }
            continue;
        }
        stack[top++] = nd->right;
        stack[top++] = nd->left;
    }
    return visited;
}
