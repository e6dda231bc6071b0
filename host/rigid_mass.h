// Mass properties of a rigid body (issue 17): mass, volume, centre of mass, inertia tensor and
// principal frame from a closed triangle surface or from tetrahedra and a uniform density.
// Internal to the library.
#ifndef ALC_HOST_RIGID_MASS_H_
#define ALC_HOST_RIGID_MASS_H_

#include "alc/alc_types.h"

/// Mass properties of a rigid body of uniform density, with its principal frame.
typedef struct alciRigidMass_ {
    double mass;          ///< kg
    double volume;        ///< m^3 (positive)
    double com[3];        ///< centre of mass in the input frame (m)
    double inertia[9];    ///< inertia tensor about the centre of mass, input axes (kg m^2),
                          ///< row-major: I = int rho (|r|^2 Id - r r^T) dV, r = x - com
    double principal[3];  ///< principal moments (kg m^2), sorted descending
    double axes[9];       ///< row-major rotation R (det +1) whose COLUMNS are the principal axes,
                          ///< column k for principal[k]: x_input = R x_body + com. Axes of equal
                          ///< moments are any orthonormal basis of their eigenspace
} alciRigidMass;

/// Mass properties of the solid bounded by a closed triangle surface, by the divergence
/// theorem: exact polynomial integrals over the tetrahedra that join each triangle to a
/// reference point (the mean of the triangle corners, then the centre of mass, to keep
/// cancellation small). The surface must be closed and consistently oriented: every undirected
/// edge is used by exactly two triangles, once in each direction. Outward winding gives a
/// positive volume; a consistently inward surface is accepted, its integrals negated, and
/// *flipped set to 1. Unreferenced vertices are allowed but must be finite.
/// @param[in]  vert     positions (nvert x 3), m
/// @param[in]  tri      triangles (ntri x 3), 0-based vertex indices
/// @param[in]  density  kg/m^3, positive and finite
/// @param[out] out      mass properties; written only on success
/// @param[out] flipped  1 when the winding was inward (results are those of the outward
///                      surface), else 0; written only on success
/// @param[out] err      what is wrong, e.g. "open boundary edge (3, 7): used only by triangle 5
///                      (the surface is not closed)", "non-manifold edge (0, 1): used by 4
///                      triangles", "inconsistent orientation at edge (2, 6): triangles 1 and 4
///                      both use it as 2 -> 6", "zero volume: ..."
/// @return ALC_OK; ALC_ERR_INVALID_ARG for a NULL vert, tri or out; ALC_ERR_SCENE for an empty
///         input, a density that is not positive and finite, an index out of range, a vertex
///         repeated within a triangle, a non-finite coordinate, an open, non-manifold or
///         inconsistently oriented surface, |volume| below 1e-12 x (bounding-box diagonal of
///         the referenced vertices)^3, or non-finite results; ALC_ERR_NOMEM.
/// Nullable: flipped, err (errsz <= 0 also writes nothing)
alctStatus alci_rigid_massSurface(const double* vert, int nvert, const int* tri, int ntri,
                                  double density, alciRigidMass* out, int* flipped, char* err,
                                  int errsz);

/// Mass properties of the union of tetrahedra: the sum of exact per-tetrahedron integrals,
/// second moments taken about the centre of mass. Every tetrahedron must be positively
/// oriented (det(b - a, c - a, d - a) >= 0); degenerate ones add nothing.
/// @param[in]  vert     positions (nvert x 3), m
/// @param[in]  tet      tetrahedra (ntet x 4), 0-based vertex indices
/// @param[in]  density  kg/m^3, positive and finite
/// @param[out] out      mass properties; written only on success
/// @param[out] err      e.g. "tetrahedron 12 (vertices 3 4 9 10) is inverted (volume -1.2e-06)"
/// @return ALC_OK; ALC_ERR_INVALID_ARG for a NULL vert, tet or out; ALC_ERR_SCENE for an empty
///         input, a bad density, an index out of range, a non-finite coordinate, an inverted
///         tetrahedron, a total volume below 1e-12 x (bounding-box diagonal)^3, or non-finite
///         results.
/// Nullable: err (errsz <= 0 also writes nothing)
alctStatus alci_rigid_massTets(const double* vert, int nvert, const int* tet, int ntet,
                               double density, alciRigidMass* out, char* err, int errsz);

/// Positions in the principal (body) frame: body_i = R^T (vert_i - com), R = mp->axes.
/// @param[in]  mp    mass properties from alci_rigid_massSurface or alci_rigid_massTets
/// @param[in]  vert  positions in the input frame (nvert x 3), m
/// @param[out] body  positions in the body frame (nvert x 3), m; may be the same array as vert
void alci_rigid_toBody(const alciRigidMass* mp, const double* vert, int nvert, double* body);

#endif  // ALC_HOST_RIGID_MASS_H_
