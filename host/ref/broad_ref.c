// CPU reference broad phase: a median-split BVH over swept boxes and a brute-force oracle.
// See broad_ref.h for the candidate rule and the output contract.
#include "ref/broad_ref.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define LEAF_SIZE   4   // most primitives in a leaf
#define STACK_DEPTH 64  // median splits halve the range, so depth <= log2(INT_MAX) + 1
#define SMALL_SORT  24  // insertion sort below this many pairs

// what a traversal reports: plain primitive indices, or filtered candidate pairs
typedef enum { MODE_PRIM = 0, MODE_PT, MODE_EE } Mode;

// the query primitive and its exclusion data
typedef struct {
    Mode mode;
    int i;                              // query index (svert index or edge index)
    int v[2];                           // its vertices (v[1] unused for points)
    bool passive;                       // every vertex of the query is passive
    const int* prims;                   // tri (ntri x 3) or edge (nedge x 2) of the tree
    const unsigned char* vert_passive;  // nullable
    const int* vert_group;              // nullable
} Filter;

static bool isPassive(const unsigned char* vp, int v) {
    return vp != NULL && vp[v] != 0;
}

// true when the n vertices w all belong to group g >= 0
static bool inGroup(const int* grp, int g, const int* w, int n) {
    if (!grp || g < 0) return false;
    for (int k = 0; k < n; k++) {
        if (grp[w[k]] != g) return false;
    }
    return true;
}

// the growth of a box over the n vertices v: inflate plus the largest per-vertex growth
static double growth(const alcrBroadInput* in, const int* v, int n) {
    double r = 0;
    if (in->vert_inflate) {
        for (int k = 0; k < n; k++) r = in->vert_inflate[v[k]] > r ? in->vert_inflate[v[k]] : r;
    }
    return in->inflate + r;
}

static alcAabb boxVert(const alcrBroadInput* in, int v) {
    return alcm_aabb_sweptVert(in->x0, in->x1, v, growth(in, &v, 1));
}

static alcAabb boxEdge(const alcrBroadInput* in, const int* e) {
    return alcm_aabb_sweptEdge(in->x0, in->x1, e, growth(in, e, 2));
}

static alcAabb boxTri(const alcrBroadInput* in, const int* t) {
    return alcm_aabb_sweptTri(in->x0, in->x1, t, growth(in, t, 3));
}

// ---- BVH ------------------------------------------------------------------------------------

alctStatus alcr_broad_treeMake(int cap, alcrBroadTree* tree) {
    if (!tree || cap < 0) return ALC_ERR_INVALID_ARG;
    memset(tree, 0, sizeof *tree);
    size_t n = (size_t)(cap > 0 ? cap : 1);
    tree->node = (alcrBroadNode*)malloc(2 * n * sizeof(alcrBroadNode));
    tree->prim = (int*)malloc(n * sizeof(int));
    tree->leafBox = (alcAabb*)malloc(n * sizeof(alcAabb));
    tree->key = (double*)malloc(n * sizeof(double));
    if (!tree->node || !tree->prim || !tree->leafBox || !tree->key) {
        alcr_broad_treeFree(tree);
        return ALC_ERR_NOMEM;
    }
    tree->cap = cap;
    return ALC_OK;
}

void alcr_broad_treeFree(alcrBroadTree* tree) {
    if (!tree) return;
    free(tree->node);
    free(tree->prim);
    free(tree->leafBox);
    free(tree->key);
    memset(tree, 0, sizeof *tree);
}

static void swapSlots(double* key, int* prim, int a, int b) {
    double k = key[a];
    key[a] = key[b];
    key[b] = k;
    int p = prim[a];
    prim[a] = prim[b];
    prim[b] = p;
}

static double median3(double a, double b, double c) {
    if (a < b) return b < c ? b : (a < c ? c : a);
    return a < c ? a : (b < c ? c : b);
}

// reorder slots lo..hi (inclusive) so that slot nth holds the key it would hold if sorted,
// smaller-or-equal keys before it and greater-or-equal after (Hoare partition, median of 3)
static void selectNth(double* key, int* prim, int lo, int hi, int nth) {
    while (hi > lo) {
        double pivot = median3(key[lo], key[lo + (hi - lo) / 2], key[hi]);
        int i = lo, j = hi;
        while (i <= j) {
            while (key[i] < pivot) i++;
            while (key[j] > pivot) j--;
            if (i <= j) swapSlots(key, prim, i++, j--);
        }
        if (nth <= j) {
            hi = j;
        } else if (nth >= i) {
            lo = i;
        } else {
            return;
        }
    }
}

alctStatus alcr_broad_treeBuild(alcrBroadTree* tree, const alcAabb* box, int n) {
    if (!tree || n < 0 || (n > 0 && !box)) return ALC_ERR_INVALID_ARG;
    if (n > tree->cap) return ALC_ERR_CAPACITY;
    tree->nprim = n;
    tree->nnode = 0;
    if (n == 0) return ALC_OK;
    for (int k = 0; k < n; k++) tree->prim[k] = k;

    // top-down: each popped node either becomes a leaf or is split at its median
    int stack[STACK_DEPTH];
    int top = 0;
    alcrBroadNode* root = &tree->node[tree->nnode++];
    root->start = 0;
    root->count = n;
    stack[top++] = 0;
    while (top > 0) {
        int id = stack[--top];
        int start = tree->node[id].start, count = tree->node[id].count;

        // node box and centroid bounds
        alcAabb nb = alcm_aabb_empty(), cb = alcm_aabb_empty();
        for (int s = start; s < start + count; s++) {
            alcAabb pb = box[tree->prim[s]];
            nb = alcm_aabb_union(nb, pb);
            cb = alcm_aabb_addPoint(cb, alcm_aabb_center(pb));
        }
        tree->node[id].box = nb;
        tree->node[id].left = tree->node[id].right = -1;
        if (count <= LEAF_SIZE) continue;

        // median split on the longest axis of the centroid bounds
        int axis = alcm_aabb_longestAxis(cb);
        for (int s = start; s < start + count; s++) {
            tree->key[s] = alcm_v3_get(alcm_aabb_center(box[tree->prim[s]]), axis);
        }
        int half = count / 2;
        selectNth(tree->key, tree->prim, start, start + count - 1, start + half);

        // children: left takes the lower half, right the rest
        int l = tree->nnode++, r = tree->nnode++;
        tree->node[l].start = start;
        tree->node[l].count = half;
        tree->node[r].start = start + half;
        tree->node[r].count = count - half;
        tree->node[id].left = l;
        tree->node[id].right = r;
        tree->node[id].count = 0;
        stack[top++] = r;
        stack[top++] = l;
    }

    // leaf boxes in slot order, for cache-friendly leaf tests
    for (int s = 0; s < n; s++) tree->leafBox[s] = box[tree->prim[s]];
    return ALC_OK;
}

// true when primitive j of the tree is excluded for the query f
static bool excluded(const Filter* f, int j) {
    const unsigned char* vp = f->vert_passive;
    if (f->mode == MODE_PT) {
        const int* t = f->prims + 3 * j;
        int v = f->v[0];
        if (t[0] == v || t[1] == v || t[2] == v) return true;
        if (f->vert_group && inGroup(f->vert_group, f->vert_group[v], t, 3)) return true;
        return f->passive && isPassive(vp, t[0]) && isPassive(vp, t[1]) && isPassive(vp, t[2]);
    }
    const int* e = f->prims + 2 * j;
    if (j <= f->i) return true;
    if (e[0] == f->v[0] || e[0] == f->v[1] || e[1] == f->v[0] || e[1] == f->v[1]) return true;
    if (f->vert_group && inGroup(f->vert_group, f->vert_group[f->v[0]], f->v, 2) &&
        inGroup(f->vert_group, f->vert_group[f->v[0]], e, 2)) {
        return true;
    }
    return f->passive && isPassive(vp, e[0]) && isPassive(vp, e[1]);
}

// iterative traversal: counts the tree primitives whose boxes overlap q and that pass the
// filter, and writes the first cap of their indices to out (in traversal order)
static int traverse(const alcrBroadTree* tree, alcAabb q, const Filter* f, int* out, int cap) {
    if (tree->nnode == 0) return 0;
    int stack[STACK_DEPTH];
    int top = 0, found = 0;
    stack[top++] = 0;
    while (top > 0) {
        const alcrBroadNode* nd = &tree->node[stack[--top]];
        if (!alcm_aabb_overlap(nd->box, q)) continue;
        if (nd->count == 0) {
            stack[top++] = nd->right;
            stack[top++] = nd->left;
            continue;
        }
        for (int s = nd->start; s < nd->start + nd->count; s++) {
            if (!alcm_aabb_overlap(tree->leafBox[s], q)) continue;
            int j = tree->prim[s];
            if (f->mode != MODE_PRIM && excluded(f, j)) continue;
            if (found < cap) out[found] = j;
            found++;
        }
    }
    return found;
}

int alcr_broad_treeQuery(const alcrBroadTree* tree, alcAabb q, int* out, int cap) {
    Filter f = {MODE_PRIM, 0, {0, 0}, false, NULL, NULL, NULL};
    return traverse(tree, q, &f, out, out ? cap : 0);
}

// ---- input checks and helpers ---------------------------------------------------------------

static bool indicesOk(const int* idx, int n, int nvert) {
    for (int k = 0; k < n; k++) {
        if (idx[k] < 0 || idx[k] >= nvert) return false;
    }
    return true;
}

// every array present, every index in range, coordinates finite, inflate finite and >= 0
static alctStatus checkInput(const alcrBroadInput* in) {
    if (!in || in->nvert < 0 || in->nsvert < 0 || in->nedge < 0 || in->ntri < 0) {
        return ALC_ERR_INVALID_ARG;
    }
    if (in->nvert > 0 && (!in->x0 || !in->x1)) return ALC_ERR_INVALID_ARG;
    if ((in->nsvert > 0 && !in->svert) || (in->nedge > 0 && !in->edge) ||
        (in->ntri > 0 && !in->tri)) {
        return ALC_ERR_INVALID_ARG;
    }
    if (!(in->inflate >= 0) || !isfinite(in->inflate)) return ALC_ERR_INVALID_ARG;
    if (!indicesOk(in->svert, in->nsvert, in->nvert) ||
        !indicesOk(in->edge, 2 * in->nedge, in->nvert) ||
        !indicesOk(in->tri, 3 * in->ntri, in->nvert)) {
        return ALC_ERR_INVALID_ARG;
    }
    for (int k = 0; k < 3 * in->nvert; k++) {
        if (!isfinite(in->x0[k]) || !isfinite(in->x1[k])) return ALC_ERR_INVALID_ARG;
    }
    for (int k = 0; in->vert_inflate && k < in->nvert; k++) {
        if (!(in->vert_inflate[k] >= 0) || !isfinite(in->vert_inflate[k])) {
            return ALC_ERR_INVALID_ARG;
        }
    }
    return ALC_OK;
}

static Filter filterPT(const alcrBroadInput* in, int i) {
    int v = in->svert[i];
    Filter f = {MODE_PT,       i, {v, v}, isPassive(in->vert_passive, v), in->tri, in->vert_passive,
                in->vert_group};
    return f;
}

static Filter filterEE(const alcrBroadInput* in, int i) {
    const int* e = in->edge + 2 * i;
    bool p = isPassive(in->vert_passive, e[0]) && isPassive(in->vert_passive, e[1]);
    Filter f = {MODE_EE, i, {e[0], e[1]}, p, in->edge, in->vert_passive, in->vert_group};
    return f;
}

static int cmpInt(const void* a, const void* b) {
    int p = *(const int*)a, q = *(const int*)b;
    return p < q ? -1 : (p > q ? 1 : 0);
}

// sort n primitive indices
static void sortInts(int* v, int n) {
    if (n > SMALL_SORT) {
        qsort(v, (size_t)n, sizeof(int), cmpInt);
        return;
    }
    for (int k = 1; k < n; k++) {
        int a = v[k], m = k - 1;
        while (m >= 0 && v[m] > a) {
            v[m + 1] = v[m];
            m--;
        }
        v[m + 1] = a;
    }
}

// n sorted hits j, held at pairs + n, spread into pairs (i, j) at pairs[0 .. 2n): pair k is
// written to 2k, 2k+1 after hit k is read from n+k, and 2k+1 < n+k+1, so no unread hit is lost
static void spreadPairs(int* pairs, int n, int i) {
    for (int k = 0; k < n; k++) {
        int j = pairs[n + k];
        pairs[2 * k] = i;
        pairs[2 * k + 1] = j;
    }
}

// ---- broad phase ----------------------------------------------------------------------------

alctStatus alcr_broad_make(int maxSvert, int maxEdge, int maxTri, alcrBroad** out) {
    if (!out || maxSvert < 0 || maxEdge < 0 || maxTri < 0) return ALC_ERR_INVALID_ARG;
    *out = NULL;
    alcrBroad* b = (alcrBroad*)calloc(1, sizeof(alcrBroad));
    if (!b) return ALC_ERR_NOMEM;
    b->maxSvert = maxSvert;
    b->maxEdge = maxEdge;
    b->maxTri = maxTri;
    size_t maxPrim = (size_t)alcm_maxi(alcm_maxi(maxEdge, maxTri), 1);
    size_t maxQuery = (size_t)alcm_maxi(maxSvert, maxEdge) + 1;
    alctStatus s = alcr_broad_treeMake(maxTri, &b->triTree);
    if (s == ALC_OK) s = alcr_broad_treeMake(maxEdge, &b->edgeTree);
    b->triBox = (alcAabb*)malloc((size_t)alcm_maxi(maxTri, 1) * sizeof(alcAabb));
    b->edgeBox = (alcAabb*)malloc((size_t)alcm_maxi(maxEdge, 1) * sizeof(alcAabb));
    b->qoffset = (int64_t*)malloc(maxQuery * sizeof(int64_t));
    b->qcache = (int*)malloc(maxQuery * ALCR_BROAD_CACHE * sizeof(int));
    b->qscratch = (int*)malloc(maxPrim * sizeof(int));
    if (s == ALC_OK && (!b->triBox || !b->edgeBox || !b->qoffset || !b->qcache || !b->qscratch)) {
        s = ALC_ERR_NOMEM;
    }
    if (s != ALC_OK) {
        alcr_broad_free(b);
        return s;
    }
    *out = b;
    return ALC_OK;
}

void alcr_broad_free(alcrBroad* b) {
    if (!b) return;
    alcr_broad_treeFree(&b->triTree);
    alcr_broad_treeFree(&b->edgeTree);
    free(b->triBox);
    free(b->edgeBox);
    free(b->qoffset);
    free(b->qcache);
    free(b->qscratch);
    free(b);
}

alctStatus alcr_broad_build(alcrBroad* b, const alcrBroadInput* in) {
    if (!b) return ALC_ERR_INVALID_ARG;
    alctStatus s = checkInput(in);
    if (s != ALC_OK) return s;
    if (in->nsvert > b->maxSvert || in->nedge > b->maxEdge || in->ntri > b->maxTri) {
        return ALC_ERR_CAPACITY;
    }

    // the two trees are independent: one per thread when there are two
    alctStatus st[2] = {ALC_OK, ALC_OK};
#pragma omp parallel sections if (in->ntri + in->nedge > 4096)
    {
#pragma omp section
        {
            for (int j = 0; j < in->ntri; j++) {
                b->triBox[j] = boxTri(in, in->tri + 3 * j);
            }
            st[0] = alcr_broad_treeBuild(&b->triTree, b->triBox, in->ntri);
        }
#pragma omp section
        {
            for (int j = 0; j < in->nedge; j++) {
                b->edgeBox[j] = boxEdge(in, in->edge + 2 * j);
            }
            st[1] = alcr_broad_treeBuild(&b->edgeTree, b->edgeBox, in->nedge);
        }
    }
    return st[0] != ALC_OK ? st[0] : st[1];
}

static Filter queryFilter(const alcrBroadInput* in, Mode mode, int i) {
    return mode == MODE_PT ? filterPT(in, i) : filterEE(in, i);
}

static alcAabb queryBox(const alcrBroadInput* in, Mode mode, int i) {
    if (mode == MODE_PT) return boxVert(in, in->svert[i]);
    return boxEdge(in, in->edge + 2 * i);
}

// two passes over the queries: count each query's pairs (keeping the first few hits), scan to
// offsets, then write each query's pairs into its own slice of the output and sort it; every
// slice is written by one thread, so the output does not depend on the thread count
static alctStatus query(alcrBroad* b, const alcrBroadInput* in, Mode mode, int cap, int* pairs,
                        int* count) {
    if (!b || !count || cap < 0 || (cap > 0 && !pairs)) return ALC_ERR_INVALID_ARG;
    *count = 0;
    alctStatus s = checkInput(in);
    if (s != ALC_OK) return s;
    const alcrBroadTree* tree = mode == MODE_PT ? &b->triTree : &b->edgeTree;
    int nq = mode == MODE_PT ? in->nsvert : in->nedge;
    int nprim = mode == MODE_PT ? in->ntri : in->nedge;
    if (nprim != tree->nprim || nq > alcm_maxi(b->maxSvert, b->maxEdge)) {
        return ALC_ERR_INVALID_ARG;
    }
    int64_t* off = b->qoffset;
    int* cache = b->qcache;
    const int K = ALCR_BROAD_CACHE;

    // count pass
#pragma omp parallel for schedule(dynamic, 64) if (nq > 512)
    for (int i = 0; i < nq; i++) {
        Filter f = queryFilter(in, mode, i);
        off[i] = traverse(tree, queryBox(in, mode, i), &f, cache + (size_t)K * i, K);
    }

    // exclusive scan
    int64_t total = 0;
    for (int i = 0; i < nq; i++) {
        int64_t c = off[i];
        off[i] = total;
        total += c;
    }
    off[nq] = total;

    // fill pass: queries whose slice fits below cap; hits come from the cache or a second
    // traversal, are sorted in the upper half of the slice, then spread into pairs
#pragma omp parallel for schedule(dynamic, 64) if (nq > 512)
    for (int i = 0; i < nq; i++) {
        int n = (int)(off[i + 1] - off[i]);
        if (n == 0 || off[i + 1] > cap) continue;
        int* slice = pairs + 2 * off[i];
        if (n <= K) {
            memcpy(slice + n, cache + (size_t)K * i, (size_t)n * sizeof(int));
        } else {
            Filter f = queryFilter(in, mode, i);
            traverse(tree, queryBox(in, mode, i), &f, slice + n, n);
        }
        sortInts(slice + n, n);
        spreadPairs(slice, n, i);
    }

    // the one query whose slice straddles cap: its smallest pairs, through scratch
    for (int i = 0; i < nq && total > cap; i++) {
        if (off[i] < cap && off[i + 1] > cap) {
            int n = (int)(off[i + 1] - off[i]);
            Filter f = queryFilter(in, mode, i);
            traverse(tree, queryBox(in, mode, i), &f, b->qscratch, n);
            sortInts(b->qscratch, n);
            for (int k = 0; k < cap - off[i]; k++) {
                pairs[2 * (off[i] + k)] = i;
                pairs[2 * (off[i] + k) + 1] = b->qscratch[k];
            }
            break;
        }
    }
    *count = total > INT_MAX ? INT_MAX : (int)total;
    return total > cap ? ALC_ERR_CAPACITY : ALC_OK;
}

alctStatus alcr_broad_queryPT(alcrBroad* b, const alcrBroadInput* in, int cap, int* pairs,
                              int* count) {
    return query(b, in, MODE_PT, cap, pairs, count);
}

alctStatus alcr_broad_queryEE(alcrBroad* b, const alcrBroadInput* in, int cap, int* pairs,
                              int* count) {
    return query(b, in, MODE_EE, cap, pairs, count);
}

// ---- brute force (the oracle) ---------------------------------------------------------------

// record pair (i, j) as number *n in the sorted output
static void emit(int* pairs, int cap, int64_t* n, int i, int j) {
    if (*n < cap) {
        pairs[2 * *n] = i;
        pairs[2 * *n + 1] = j;
    }
    (*n)++;
}

alctStatus alcr_broad_bruteForcePT(const alcrBroadInput* in, int cap, int* pairs, int* count) {
    if (!count || cap < 0 || (cap > 0 && !pairs)) return ALC_ERR_INVALID_ARG;
    *count = 0;
    alctStatus s = checkInput(in);
    if (s != ALC_OK) return s;
    const unsigned char* vp = in->vert_passive;
    int64_t n = 0;

    // every (point, triangle) pair, in (i, j) order
    for (int i = 0; i < in->nsvert; i++) {
        int v = in->svert[i];
        alcAabb a = boxVert(in, v);
        for (int j = 0; j < in->ntri; j++) {
            const int* t = in->tri + 3 * j;
            if (t[0] == v || t[1] == v || t[2] == v) continue;
            if (in->vert_group && inGroup(in->vert_group, in->vert_group[v], t, 3)) continue;
            if (isPassive(vp, v) && isPassive(vp, t[0]) && isPassive(vp, t[1]) &&
                isPassive(vp, t[2])) {
                continue;
            }
            alcAabb c = boxTri(in, t);
            if (alcm_aabb_overlap(a, c)) emit(pairs, cap, &n, i, j);
        }
    }
    *count = n > INT_MAX ? INT_MAX : (int)n;
    return n > cap ? ALC_ERR_CAPACITY : ALC_OK;
}

alctStatus alcr_broad_bruteForceEE(const alcrBroadInput* in, int cap, int* pairs, int* count) {
    if (!count || cap < 0 || (cap > 0 && !pairs)) return ALC_ERR_INVALID_ARG;
    *count = 0;
    alctStatus s = checkInput(in);
    if (s != ALC_OK) return s;
    const unsigned char* vp = in->vert_passive;
    int64_t n = 0;

    // every edge pair i < j, in (i, j) order
    for (int i = 0; i < in->nedge; i++) {
        const int* e = in->edge + 2 * i;
        alcAabb a = boxEdge(in, e);
        for (int j = i + 1; j < in->nedge; j++) {
            const int* g = in->edge + 2 * j;
            if (e[0] == g[0] || e[0] == g[1] || e[1] == g[0] || e[1] == g[1]) continue;
            if (in->vert_group && inGroup(in->vert_group, in->vert_group[e[0]], e, 2) &&
                inGroup(in->vert_group, in->vert_group[e[0]], g, 2)) {
                continue;
            }
            if (isPassive(vp, e[0]) && isPassive(vp, e[1]) && isPassive(vp, g[0]) &&
                isPassive(vp, g[1])) {
                continue;
            }
            alcAabb c = boxEdge(in, g);
            if (alcm_aabb_overlap(a, c)) emit(pairs, cap, &n, i, j);
        }
    }
    *count = n > INT_MAX ? INT_MAX : (int)n;
    return n > cap ? ALC_ERR_CAPACITY : ALC_OK;
}
