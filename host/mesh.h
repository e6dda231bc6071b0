// Meshes: readers (Gmsh .msh 2.2/4.1 ASCII and binary, TetGen .node/.ele, Wavefront .obj),
// procedural generators, validation and boundary extraction. Internal to the library.
#ifndef ALC_HOST_MESH_H_
#define ALC_HOST_MESH_H_

#include "alc/alc_types.h"

/// A tetrahedral mesh or a triangle surface, in host memory owned by the struct
/// (alci_mesh_free). Indices are 0-based.
typedef struct alciMesh_ {
    int nvert;     ///< vertices
    int ntet;      ///< tetrahedra (0 for a surface)
    int ntri;      ///< triangles (surface meshes; boundary of a tet mesh when extracted)
    double* vert;  ///< positions (nvert x 3)
    int* tet;      ///< tetrahedra (ntet x 4), positive orientation after validation
    int* tri;      ///< triangles (ntri x 3)
} alciMesh;

/// Free the arrays and zero the struct. NULL-safe.
void alci_mesh_free(alciMesh* mesh);

/// Read a mesh, choosing the reader by extension: .msh (Gmsh 2.2 or 4.1, ASCII or binary),
/// .node or .ele (TetGen pair, the other file found beside it), .obj (Wavefront surface).
/// Tetrahedra (Gmsh type 4) go to tet, triangles (type 2) to tri; other elements are ignored.
/// Unused vertices are kept. Negative or out-of-range indices, NaN/Inf coordinates, truncated
/// files and unknown versions are errors.
/// @param[out] err  "path:line: what is wrong" (line 0 when not applicable)
/// @return ALC_OK, ALC_ERR_IO (unreadable), ALC_ERR_SCENE (malformed), ALC_ERR_NOMEM.
alctStatus alci_mesh_read(const char* path, alciMesh* mesh, char* err, int errsz);

alctStatus alci_mesh_readMsh(const char* path, alciMesh* mesh, char* err, int errsz);
alctStatus alci_mesh_readTetgen(const char* path, alciMesh* mesh, char* err, int errsz);
alctStatus alci_mesh_readObj(const char* path, alciMesh* mesh, char* err, int errsz);

// ---- procedural generators: solids (tetrahedra), centred at the origin --------------------

/// Box of size sx x sy x sz (m) with n[i] cells along axis i, each cell split into 6 tets.
alctStatus alci_mesh_box(const double size[3], const int n[3], alciMesh* mesh);

/// Ball of the given radius (m); res = cells across the diameter (>= 2).
alctStatus alci_mesh_sphere(double radius, int res, alciMesh* mesh);

/// Cylinder along +y of the given radius and height (m), centred at the origin;
/// resRadial cells across the diameter (>= 2), resHeight cells along the axis (>= 1).
alctStatus alci_mesh_cylinder(double radius, double height, int resRadial, int resHeight,
                              alciMesh* mesh);

/// Torus in the xz plane (axis +y): major radius R, tube radius r (m), resMajor cells around
/// the ring (>= 3), resMinor cells across the tube diameter (>= 2).
alctStatus alci_mesh_torus(double R, double r, int resMajor, int resMinor, alciMesh* mesh);

/// Annular-sector prism (a voussoir): radii ri < ro around the z axis, from angle a0 to a1
/// (radians, counter-clockwise in the xy plane), z from -depth/2 to depth/2; n = cells along
/// the radius, the angle and the depth.
alctStatus alci_mesh_ringSegment(double ri, double ro, double a0, double a1, double depth,
                                 const int n[3], alciMesh* mesh);

// ---- procedural generators: obstacle surfaces (triangles only) ----------------------------

/// Square plane in xz (normal +y) of size sx x sz (m), res cells per side (>= 1).
alctStatus alci_mesh_plane(const double size[2], int res, alciMesh* mesh);

/// Open box (five faces, no lid: a "well") or closed box surface of size sx x sy x sz with
/// normals pointing inward (bodies are inside); res cells per edge.
alctStatus alci_mesh_boxSurface(const double size[3], int res, int closed, alciMesh* mesh);

/// Hemispherical bowl of the given radius opening towards +y, rim at y = 0; res rings.
alctStatus alci_mesh_bowl(double radius, int res, alciMesh* mesh);

/// Funnel along y: a truncated cone from radius rTop at y = height/2 to rBottom at
/// y = -height/2, open at both ends; res segments around.
alctStatus alci_mesh_funnel(double rTop, double rBottom, double height, int res, alciMesh* mesh);

// ---- checks and derived topology ----------------------------------------------------------

/// A tetrahedral mesh whose tetrahedra are all negatively oriented uses the other convention:
/// swap two vertices of each (a mix of orientations means folded elements, which validation
/// rejects; it is left alone). Returns 1 when it flipped the mesh.
int alci_mesh_orientConsistently(alciMesh* mesh);

/// Validate a mesh: non-empty, finite coordinates, indices in range, no repeated vertex in an
/// element; for tet meshes every tetrahedron has volume above 1e-12 x (longest edge)^3 with
/// positive orientation (set fixInverted to reorient negative ones instead of failing).
/// @param[out] err  "tetrahedron 12 (vertices 3 4 9 10) is inverted (volume -1.2e-06)"
alctStatus alci_mesh_validate(alciMesh* mesh, int fixInverted, char* err, int errsz);

/// Check the indices of n elements of k vertices each (elem is n x k): every index in
/// [0, nvert), and pairwise distinct within an element when distinct is set.
/// @param[in]  what  the element's name in the message ("tetrahedron", "triangle")
/// @param[out] err   e.g. "triangle 4 refers to vertex 9, but only 8 vertices exist",
///                   "tetrahedron 2 uses vertex 5 twice"
/// @return ALC_OK or ALC_ERR_SCENE. Nullable: err
alctStatus alci_mesh_checkIndices(const int* elem, int n, int k, int nvert, int distinct,
                                  const char* what, char* err, int errsz);

/// Replace mesh->tri by the boundary faces of the tetrahedra, oriented outward.
/// A face shared by more than two tetrahedra is an error (non-manifold).
alctStatus alci_mesh_boundary(alciMesh* mesh, char* err, int errsz);

/// Unique edges of a triangle list, each ascending (a < b), sorted lexicographically.
/// @param[out] edges  malloc'ed (nedge x 2), owned by the caller
alctStatus alci_mesh_edges(const int* tri, int ntri, int** edges, int* nedge);

#endif  // ALC_HOST_MESH_H_
