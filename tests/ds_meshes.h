// Triangle meshes built in the tests of Ding and Schroeder's relaxation and contact
// (tests/test_penalty_ds_mesh.c, tests/test_penalty_ds_pair.c): a growable vertex and triangle
// list with its adjacency (alcm_ds_meshAdjacency) and the view the relaxation reads; grids,
// the cube [-1, 1]^3 and a box with a notch, all facing out.
#ifndef ALC_TESTS_DS_MESHES_H_
#define ALC_TESTS_DS_MESHES_H_

#include "hd/alcm_penalty_ds_mesh.h"

/// A mesh built in the test: arrays it owns and the view the relaxation reads.
typedef struct TMesh_ {
    double* v;  // vertex positions (nv x 3)
    int* t;     // triangles (nt x 3)
    int *adj, *adr, *ring, *scratch;
    int nv, nt, capv, capt;
    alcmDsMesh m;
} TMesh;

/// Allocate room for capv vertices and capt triangles (adding past them aborts).
void tmInit(TMesh* tm, int capv, int capt);

/// Free what tmInit allocated.
void tmFree(TMesh* tm);

/// Id of the vertex at p, added unless one lies within 1e-9 (so that grids glue at seams).
int tmVert(TMesh* tm, alcV3 p);

/// Append the triangle (a, b, c), counter-clockwise seen from outside.
void tmTri(TMesh* tm, int a, int b, int c);

/// A grid of nu x nv cells over the parallelogram o + [0,1] u + [0,1] v, two triangles a cell
/// with alternating diagonals, facing u x v.
void tmGrid(TMesh* tm, alcV3 o, alcV3 u, alcV3 v, int nu, int nv);

/// Build the adjacency and the view; returns alcm_ds_meshAdjacency's code.
int tmBuild(TMesh* tm);

/// The unit vector along axis a (0, 1, 2).
alcV3 tmAxis(int a);

/// The cube [-1, 1]^3, n x n cells a face, facing out.
void tmCube(TMesh* tm, int n);

/// Unit voxel (i, j, k) of the notched box: [0,3] x [0,1] x [0,2] less the notch [1,2] x [0,1]
/// x [1,2] on top.
int tmNotchFilled(int i, int j, int k);

/// The notched box's surface, each unit face res x res cells, facing out.
void tmNotchedBox(TMesh* tm, int res);

/// Point of attachment a on the mesh.
alcV3 tmPoint(const TMesh* tm, alcmDsAttach a);

/// Unit outward normal of triangle t.
alcV3 tmNormal(const TMesh* tm, int t);

#endif  // ALC_TESTS_DS_MESHES_H_
