// 30-bit Morton codes (10 bits per axis, x in the highest bit of each triple) of points
// normalised by a scene box, shared by host and device code. Used to order primitives along a
// Z-curve for the LBVH (Karras 2012, "Maximizing parallelism in the construction of BVHs,
// octrees and k-d trees", §4); the codes only order primitives and decide no overlap, so any
// rounding here costs tree quality, never a pair.
// Header-only: includes only <math.h>, <stdint.h>, <stdbool.h> through alcm_aabb.h (STYLE.md §7).
#ifndef ALC_HD_ALCM_MORTON_H_
#define ALC_HD_ALCM_MORTON_H_

#include "alcm_aabb.h"

/// The low 10 bits of v spread out to bits 0, 3, 6, ..., 27 (two zero bits after each).
ALC_HD uint32_t alcm_morton_expand10(uint32_t v) {
    v &= 0x3ffu;
    v = (v | (v << 16)) & 0x030000ffu;
    v = (v | (v << 8)) & 0x0300f00fu;
    v = (v | (v << 4)) & 0x030c30c3u;
    v = (v | (v << 2)) & 0x09249249u;
    return v;
}

/// Cell 0 .. 1023 of t in [0, 1]; values outside (and NaN) go to the nearest end.
ALC_HD uint32_t alcm_morton_cell(double t) {
    if (!(t > 0.0)) return 0u;
    if (t >= 1.0) return 1023u;
    return (uint32_t)(t * 1024.0);
}

/// Morton code of a point with coordinates in [0, 1]^3 (clamped): 30 bits, xyz interleaved.
ALC_HD uint32_t alcm_morton_code3(double x, double y, double z) {
    return (alcm_morton_expand10(alcm_morton_cell(x)) << 2) |
           (alcm_morton_expand10(alcm_morton_cell(y)) << 1) |
           alcm_morton_expand10(alcm_morton_cell(z));
}

/// Coordinate of v in [lo, hi] as a fraction; 0.5 when the interval is empty or a point.
ALC_HD double alcm_morton_unit(double v, double lo, double hi) {
    return hi > lo ? (v - lo) / (hi - lo) : 0.5;
}

/// Morton code of point p normalised by the box scene (a box that holds every point coded).
ALC_HD uint32_t alcm_morton_point(alcV3 p, alcAabb scene) {
    return alcm_morton_code3(alcm_morton_unit(p.x, scene.lo.x, scene.hi.x),
                             alcm_morton_unit(p.y, scene.lo.y, scene.hi.y),
                             alcm_morton_unit(p.z, scene.lo.z, scene.hi.z));
}

#endif  // ALC_HD_ALCM_MORTON_H_
