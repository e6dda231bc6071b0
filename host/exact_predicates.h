// Exact geometric predicates: the signs of the orientation determinants in 2D and 3D, correct
// for every finite double input. A floating-point evaluation with a rigorous error bound decides
// almost every call; the rest are evaluated exactly with floating-point expansions (Shewchuk
// 1997) or, for inputs whose magnitudes span more than ~2^500, with big integers.
// Internal to the library (host only).
#ifndef ALC_HOST_EXACT_PREDICATES_H_
#define ALC_HOST_EXACT_PREDICATES_H_

/// Sign of det[b - a, c - a, d - a] = ((b - a) x (c - a)) . (d - a), computed exactly:
/// +1 when d lies on the side of the plane (a, b, c) that (b - a) x (c - a) points to
/// (a tetrahedron (a, b, c, d) with positive volume), -1 on the other side, 0 when coplanar.
/// @return +1, 0 or -1; 0 as well when an input is NaN or infinite.
int alci_orient3d_exact(const double a[3], const double b[3], const double c[3], const double d[3]);

/// Sign of det[b - a, c - a] = (b - a) x (c - a) in the plane, computed exactly:
/// +1 when a, b, c turn counterclockwise, -1 clockwise, 0 when collinear.
/// @return +1, 0 or -1; 0 as well when an input is NaN or infinite.
int alci_orient2d_exact(const double a[2], const double b[2], const double c[2]);

/// Same sign as alci_orient3d_exact without the floating-point filter: expansions, or big
/// integers for extreme exponent ranges. Exposed so that tests exercise the exact stage.
int alci_orient3d_expansion(const double a[3], const double b[3], const double c[3],
                            const double d[3]);

/// Same sign as alci_orient2d_exact without the floating-point filter, for tests.
int alci_orient2d_expansion(const double a[2], const double b[2], const double c[2]);

/// Same sign as alci_orient3d_exact, always by big-integer arithmetic (slow; no filter, no
/// expansions). The fallback for extreme exponent ranges, exposed for tests.
int alci_orient3d_bigint(const double a[3], const double b[3], const double c[3],
                         const double d[3]);

/// Same sign as alci_orient2d_exact, always by big-integer arithmetic (slow), for tests.
int alci_orient2d_bigint(const double a[2], const double b[2], const double c[2]);

#endif  // ALC_HOST_EXACT_PREDICATES_H_
