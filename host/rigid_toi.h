// Earliest time of impact between the surfaces of two bodies over a step, each moving rigidly
// (rotation vector and translation linear in t, RIPC Eq. 16) or standing still: the step bound
// (MaxStepSize) that rigid bodies need, built on the curved-trajectory CCD
// (hd/alcm_ccd_curved.h). Reference code for issue 17; internal to the library.
#ifndef ALC_HOST_RIGID_TOI_H_
#define ALC_HOST_RIGID_TOI_H_

#include "alc/alc_types.h"

/// A closed triangle surface in its body frame, with its unique edges. The arrays are the
/// caller's (not copied, not freed here).
typedef struct alciRigidSurface_ {
    int nvert;           ///< vertices
    const double* vert;  ///< body-frame positions (nvert x 3), m
    int ntri;            ///< triangles
    const int* tri;      ///< triangles (ntri x 3), 0-based
    int nedge;           ///< unique edges (alci_mesh_edges)
    const int* edge;     ///< edges (nedge x 2)
} alciRigidSurface;

/// A body's motion over the step: x(t) = R((1 - t) theta0 + t theta1) X + (1 - t) q0 + t q1.
typedef struct alciRigidMotion_ {
    double theta0[3], theta1[3];  ///< rotation vectors at the start and end (rad)
    double q0[3], q1[3];          ///< translations at the start and end (m)
} alciRigidMotion;

/// Counts of one query.
typedef struct alciRigidToiStats_ {
    long candidates;  ///< primitive pairs whose trajectory boxes overlap
    long queries;     ///< curved CCD queries run (candidates not pruned by an earlier time)
    long linear;      ///< linear CCD calls inside them
} alciRigidToiStats;

/// Earliest time in [0, tmax] at which the two surfaces may come within dmin of each other:
/// every vertex of each against every triangle of the other, and every edge pair, by the curved
/// CCD, after a broad phase on the primitives' trajectory boxes over [0, tmax]
/// (alcm_rigidPath_box grown by dmin). Each query runs to the earliest time found so far (RIPC
/// §4.3, "shared earliest TOI"), so the answer is the minimum over all pairs; like the CCD it
/// is conservative: the surfaces stay more than dmin apart on [0, *toi].
/// @param[in]  a, b    the two surfaces
/// @param[in]  ma, mb  their motions
/// @param[in]  dmin    minimum separation (m), >= 0
/// @param[in]  tmax    end of the query, in (0, 1]
/// @param[out] toi     the earliest time (tmax when no pair comes within dmin)
/// @param[out] stats   counts. Nullable
/// @return ALC_OK, ALC_ERR_NOMEM, or ALC_ERR_INVALID_ARG (NULL input, dmin < 0, tmax not in
///         (0, 1]).
alctStatus alci_rigid_toi(const alciRigidSurface* a, const alciRigidMotion* ma,
                          const alciRigidSurface* b, const alciRigidMotion* mb, double dmin,
                          double tmax, double* toi, alciRigidToiStats* stats);

#endif  // ALC_HOST_RIGID_TOI_H_
