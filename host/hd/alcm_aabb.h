// Axis-aligned bounding boxes shared by host and device code: empty box, union, overlap, and
// the conservative boxes of swept points, edges and triangles used by every broad phase.
// Header-only: includes only <math.h>, <stdint.h>, <stdbool.h> through alcm_vec.h (STYLE.md §7).
//
// Conservativeness: a box of vertex positions is exact (min and max of doubles round nothing).
// Growing it by a distance r rounds, so every grown bound is then pushed outward by at least
// three ulps (alcm_padDown / alcm_padUp). The computed box therefore contains the exact grown
// box, and the closed overlap test (touching counts) never drops a pair whose exact grown boxes
// overlap. Coordinates must be finite; a NaN coordinate gives a box that overlaps nothing.
#ifndef ALC_HD_ALCM_AABB_H_
#define ALC_HD_ALCM_AABB_H_

#include "alcm_vec.h"

/// Axis-aligned box [lo, hi] (closed). Empty when lo > hi on some axis.
typedef struct alcAabb_ {
    alcV3 lo;  ///< lower corner (m)
    alcV3 hi;  ///< upper corner (m)
} alcAabb;

/// v moved down by at least 3 ulps (and by at least 2^-1000 near zero).
/// |v| * 2^-50 >= 4 ulp(v), so the rounded difference is still >= 3 ulps below v.
ALC_HD double alcm_padDown(double v) {
    return v - (fabs(v) * 0x1p-50 + 0x1p-1000);
}

/// v moved up by at least 3 ulps (and by at least 2^-1000 near zero).
ALC_HD double alcm_padUp(double v) {
    return v + (fabs(v) * 0x1p-50 + 0x1p-1000);
}

/// The empty box (lo = +inf, hi = -inf): the identity of alcm_aabb_union.
ALC_HD alcAabb alcm_aabb_empty(void) {
    alcAabb b;
    b.lo = alcm_v3(HUGE_VAL, HUGE_VAL, HUGE_VAL);
    b.hi = alcm_v3(-HUGE_VAL, -HUGE_VAL, -HUGE_VAL);
    return b;
}

/// True when the box contains no point.
ALC_HD bool alcm_aabb_isEmpty(alcAabb b) {
    return !(b.lo.x <= b.hi.x && b.lo.y <= b.hi.y && b.lo.z <= b.hi.z);
}

/// Box of one point.
ALC_HD alcAabb alcm_aabb_point(alcV3 p) {
    alcAabb b;
    b.lo = p;
    b.hi = p;
    return b;
}

/// Smallest box containing a and the point p.
ALC_HD alcAabb alcm_aabb_addPoint(alcAabb a, alcV3 p) {
    alcAabb b;
    b.lo = alcm_v3_min(a.lo, p);
    b.hi = alcm_v3_max(a.hi, p);
    return b;
}

/// Smallest box containing a and b.
ALC_HD alcAabb alcm_aabb_union(alcAabb a, alcAabb b) {
    alcAabb r;
    r.lo = alcm_v3_min(a.lo, b.lo);
    r.hi = alcm_v3_max(a.hi, b.hi);
    return r;
}

/// True when the closed boxes share a point (touching counts).
ALC_HD bool alcm_aabb_overlap(alcAabb a, alcAabb b) {
    return a.lo.x <= b.hi.x && b.lo.x <= a.hi.x && a.lo.y <= b.hi.y && b.lo.y <= a.hi.y &&
           a.lo.z <= b.hi.z && b.lo.z <= a.hi.z;
}

/// True when inner lies inside outer (closed).
ALC_HD bool alcm_aabb_contains(alcAabb outer, alcAabb inner) {
    return outer.lo.x <= inner.lo.x && outer.lo.y <= inner.lo.y && outer.lo.z <= inner.lo.z &&
           inner.hi.x <= outer.hi.x && inner.hi.y <= outer.hi.y && inner.hi.z <= outer.hi.z;
}

/// Box grown by the distance r >= 0 on every side, then padded outward by a few ulps so that
/// it contains the exact grown box.
ALC_HD alcAabb alcm_aabb_grow(alcAabb a, double r) {
    alcAabb b;
    b.lo = alcm_v3(alcm_padDown(a.lo.x - r), alcm_padDown(a.lo.y - r), alcm_padDown(a.lo.z - r));
    b.hi = alcm_v3(alcm_padUp(a.hi.x + r), alcm_padUp(a.hi.y + r), alcm_padUp(a.hi.z + r));
    return b;
}

/// Centre of the box (used to split a BVH; not part of any overlap decision).
ALC_HD alcV3 alcm_aabb_center(alcAabb a) {
    return alcm_v3(0.5 * a.lo.x + 0.5 * a.hi.x, 0.5 * a.lo.y + 0.5 * a.hi.y,
                   0.5 * a.lo.z + 0.5 * a.hi.z);
}

/// Axis (0, 1, 2) of the largest extent; ties go to the lower axis.
ALC_HD int alcm_aabb_longestAxis(alcAabb a) {
    double ex = a.hi.x - a.lo.x, ey = a.hi.y - a.lo.y, ez = a.hi.z - a.lo.z;
    if (ex >= ey && ex >= ez) return 0;
    return ey >= ez ? 1 : 2;
}

/// Box of vertex v swept from x0 to x1 (positions nvert x 3), grown by r and padded.
ALC_HD alcAabb alcm_aabb_sweptVert(const double* x0, const double* x1, int v, double r) {
    alcAabb b = alcm_aabb_point(alcm_v3_load(x0 + 3 * v));
    b = alcm_aabb_addPoint(b, alcm_v3_load(x1 + 3 * v));
    return alcm_aabb_grow(b, r);
}

/// Box of edge e[0..1] swept from x0 to x1: the box of its vertices at both ends, grown by r
/// and padded. It contains the edge at every time of the linear motion.
ALC_HD alcAabb alcm_aabb_sweptEdge(const double* x0, const double* x1, const int* e, double r) {
    alcAabb b = alcm_aabb_point(alcm_v3_load(x0 + 3 * e[0]));
    b = alcm_aabb_addPoint(b, alcm_v3_load(x0 + 3 * e[1]));
    b = alcm_aabb_addPoint(b, alcm_v3_load(x1 + 3 * e[0]));
    b = alcm_aabb_addPoint(b, alcm_v3_load(x1 + 3 * e[1]));
    return alcm_aabb_grow(b, r);
}

/// Box of triangle t[0..2] swept from x0 to x1: the box of its vertices at both ends, grown by
/// r and padded.
ALC_HD alcAabb alcm_aabb_sweptTri(const double* x0, const double* x1, const int* t, double r) {
    alcAabb b = alcm_aabb_point(alcm_v3_load(x0 + 3 * t[0]));
    for (int k = 1; k < 3; k++) b = alcm_aabb_addPoint(b, alcm_v3_load(x0 + 3 * t[k]));
    for (int k = 0; k < 3; k++) b = alcm_aabb_addPoint(b, alcm_v3_load(x1 + 3 * t[k]));
    return alcm_aabb_grow(b, r);
}

#endif  // ALC_HD_ALCM_AABB_H_
