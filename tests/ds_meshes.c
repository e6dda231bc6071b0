// Triangle meshes of the penalty-ds tests (ds_meshes.h).
#include "ds_meshes.h"

#include <stdlib.h>
#include <string.h>

void tmInit(TMesh* tm, int capv, int capt) {
    memset(tm, 0, sizeof *tm);
    tm->capv = capv;
    tm->capt = capt;
    tm->v = (double*)malloc(sizeof(double) * 3 * (size_t)capv);
    tm->t = (int*)malloc(sizeof(int) * 3 * (size_t)capt);
    tm->adj = (int*)malloc(sizeof(int) * 3 * (size_t)capt);
    tm->adr = (int*)malloc(sizeof(int) * ((size_t)capv + 1));
    tm->ring = (int*)malloc(sizeof(int) * 3 * (size_t)capt);
    tm->scratch = (int*)malloc(sizeof(int) * 3 * (size_t)capt);
}

void tmFree(TMesh* tm) {
    free(tm->v);
    free(tm->t);
    free(tm->adj);
    free(tm->adr);
    free(tm->ring);
    free(tm->scratch);
}

/// Id of the vertex at p, added unless one lies within 1e-9 (so that grids glue at seams).
int tmVert(TMesh* tm, alcV3 p) {
    for (int i = 0; i < tm->nv; i++) {
        if (alcm_v3_maxabs(alcm_v3_sub(alcm_v3_load(tm->v + 3 * i), p)) < 1e-9) return i;
    }
    if (tm->nv >= tm->capv) abort();
    alcm_v3_store(tm->v + 3 * tm->nv, p);
    return tm->nv++;
}

void tmTri(TMesh* tm, int a, int b, int c) {
    if (tm->nt >= tm->capt) abort();
    tm->t[3 * tm->nt] = a;
    tm->t[3 * tm->nt + 1] = b;
    tm->t[3 * tm->nt + 2] = c;
    tm->nt++;
}

/// A grid of nu x nv cells over the parallelogram o + [0,1] u + [0,1] v, two triangles a cell
/// with alternating diagonals, facing u x v.
void tmGrid(TMesh* tm, alcV3 o, alcV3 u, alcV3 v, int nu, int nv) {
    for (int i = 0; i < nu; i++) {
        for (int j = 0; j < nv; j++) {
            int c[4];
            for (int q = 0; q < 4; q++) {
                int di = q == 1 || q == 2, dj = q >= 2;
                alcV3 p = alcm_v3_mad(o, (double)(i + di) / nu, u);
                c[q] = tmVert(tm, alcm_v3_mad(p, (double)(j + dj) / nv, v));
            }
            if ((i + j) % 2) {
                tmTri(tm, c[0], c[1], c[2]);
                tmTri(tm, c[0], c[2], c[3]);
            } else {
                tmTri(tm, c[0], c[1], c[3]);
                tmTri(tm, c[1], c[2], c[3]);
            }
        }
    }
}

/// Build the adjacency and the view; returns alcm_ds_meshAdjacency's code.
int tmBuild(TMesh* tm) {
    int rc = alcm_ds_meshAdjacency(tm->t, tm->nt, tm->nv, tm->adj, tm->adr, tm->ring, tm->scratch);
    tm->m.vert = tm->v;
    tm->m.tri = tm->t;
    tm->m.triAdj = tm->adj;
    tm->m.vertTriAdr = tm->adr;
    tm->m.vertTri = tm->ring;
    tm->m.nvert = tm->nv;
    tm->m.ntri = tm->nt;
    return rc;
}

alcV3 tmAxis(int a) {
    return alcm_v3(a == 0, a == 1, a == 2);
}

/// The cube [-1, 1]^3, n x n cells a face, facing out.
void tmCube(TMesh* tm, int n) {
    for (int a = 0; a < 3; a++) {
        alcV3 u = alcm_v3_scale(tmAxis((a + 1) % 3), 2), v = alcm_v3_scale(tmAxis((a + 2) % 3), 2);
        alcV3 lo = alcm_v3(-1, -1, -1);
        tmGrid(tm, alcm_v3_mad(lo, 2, tmAxis(a)), u, v, n, n);  // the +a face
        tmGrid(tm, lo, v, u, n, n);                             // the -a face
    }
}

/// Unit voxel (i, j, k) of the notched box: [0,3] x [0,1] x [0,2] less the notch [1,2] x [0,1]
/// x [1,2] on top.
int tmNotchFilled(int i, int j, int k) {
    if (i < 0 || i > 2 || j != 0 || k < 0 || k > 1) return 0;
    return !(i == 1 && k == 1);
}

/// The notched box's surface, each unit face res x res cells, facing out.
void tmNotchedBox(TMesh* tm, int res) {
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < 2; k++) {
            if (!tmNotchFilled(i, 0, k)) continue;
            alcV3 c = alcm_v3(i, 0, k);
            for (int a = 0; a < 3; a++) {
                alcV3 u = tmAxis((a + 1) % 3), v = tmAxis((a + 2) % 3);
                int di = a == 0, dj = a == 1, dk = a == 2;
                if (!tmNotchFilled(i + di, dj, k + dk))
                    tmGrid(tm, alcm_v3_add(c, tmAxis(a)), u, v, res, res);
                if (!tmNotchFilled(i - di, -dj, k - dk)) tmGrid(tm, c, v, u, res, res);
            }
        }
    }
}

/// Point of attachment a on the mesh.
alcV3 tmPoint(const TMesh* tm, alcmDsAttach a) {
    alcV3 p = alcm_v3(0, 0, 0);
    for (int i = 0; i < 3; i++) {
        p = alcm_v3_mad(p, a.b[i], alcm_v3_load(tm->v + 3 * tm->t[3 * a.tri + i]));
    }
    return p;
}

alcV3 tmNormal(const TMesh* tm, int t) {
    alcV3 p[3];
    alcm_ds_triVerts(&tm->m, t, p);
    return alcm_ds_triNormal(p);
}
