// Independent state checker: no inverted tetrahedron, no surface edge meeting a surface
// triangle, no NaN or Inf coordinate. Decided with exact predicates (host/exact_predicates.h)
// and culled with the reference BVH (host/ref/broad_ref.h); shares no code with the solver.
// `alcove check OUTDIR` runs it on every saved frame. Internal to the library.
#ifndef ALC_HOST_CHECK_H_
#define ALC_HOST_CHECK_H_

#include "alc/alc_types.h"

/// One state to check (all arrays in host memory, indices 0-based into x).
typedef struct alciCheckInput_ {
    int nvert;                 ///< vertices
    const double* x;           ///< positions (nvert x 3) (m)
    int ntet;                  ///< tetrahedra (0 for surface-only scenes)
    const int* tet;            ///< tetrahedron vertices (ntet x 4); nullable when ntet == 0
    int ntri;                  ///< surface triangles, all bodies
    const int* tri;            ///< triangle vertices (ntri x 3); nullable when ntri == 0
    int nedge;                 ///< surface edges, all bodies
    const int* edge;           ///< edge vertices (nedge x 2); nullable when nedge == 0
    const int* tet_body;       ///< body id of each tetrahedron (ntet), for messages; nullable
    const int* tri_body;       ///< body id of each triangle (ntri), for messages; nullable
    const int* edge_body;      ///< body id of each edge (nedge), for messages; nullable
    const int* tet_protected;  ///< 1 for a tetrahedron the solver keeps from inverting, 0 for one
                               ///< whose material may invert (ntet; alciTopology's); an
                               ///< inversion of the latter is counted in ninvertedAllowed, not
                               ///< a failure; NULL: every tetrahedron is protected
    const unsigned char* body_obstacle;  ///< 1 for obstacle bodies (indexed by the body ids);
                                         ///< edge-triangle pairs between two obstacles are not
                                         ///< checked (obstacles never interact); nullable
} alciCheckInput;

/// What alci_check_state found: the public alcCheckReport (alc_types.h).
typedef alcCheckReport alciCheckReport;

/// Check one state:
///  (a) every protected tetrahedron (v0, v1, v2, v3) has det[v1 - v0, v2 - v0, v3 - v0] > 0
///      (exact); the others that do not are counted apart (ninvertedAllowed);
///  (b) no surface edge meets a surface triangle it shares no vertex with, across bodies and
///      within one body; touching (distance exactly zero), coplanar overlap included (exact);
///  (c) no coordinate is NaN or Inf. Elements with such a vertex are left out of (a) and (b).
/// @param[out] rep  counts, first offenders and a one-line message
/// @return ALC_OK when the check ran (the verdict is in rep), ALC_ERR_INVALID_ARG (NULL
///         array, index out of range), ALC_ERR_NOMEM.
alctStatus alci_check_state(const alciCheckInput* in, alciCheckReport* rep);

/// alci_check_state on positions x (m->nvert x 3) of model m: obstacle bodies from body_type;
/// with tets, the tetrahedra too, protected as alci_check_tetProtected gives (strict: every
/// one); without, intersections and NaN only (the initial-state check of a scene).
/// @return as alci_check_state.
alctStatus alci_check_model(const alcModel* m, const double* x, int tets, int strict,
                            alciCheckReport* rep);

/// Which tetrahedra of m the solver keeps from inverting (host/step.c): out[t] = 1 for a
/// non-invertible material (Neo-Hookean) or for every tetrahedron under `inversion: all`, else
/// 0. A model without materials (hand-built) gets 1 everywhere: the strict reading.
/// @param[out] out  (m->ntet)
void alci_check_tetProtected(const alcModel* m, int* out);

/// Whether the closed segment pq meets the closed triangle abc, decided exactly (touching
/// counts; degenerate segments and triangles are handled as the point sets they are).
int alci_check_segmentTriangle(const double p[3], const double q[3], const double a[3],
                               const double b[3], const double c[3]);

#endif  // ALC_HOST_CHECK_H_
