// Identity of a contact pair and the rule that admits a CCD candidate to the active set, shared
// by the reference backend (host/ref/ccd_ref.c, contact_ref.c) and the CUDA modules
// (cuda/ccd_narrow.cu, cuda/active_set.cu), so that both twins use one definition.
// Header-only: includes only <math.h>, <stdint.h>, <stdbool.h> (STYLE.md §7).
#ifndef ALC_HD_ALCM_PAIR_H_
#define ALC_HD_ALCM_PAIR_H_

#include "alcm_base.h"

/// Pair kinds: point-triangle {p, t0, t1, t2} and edge-edge {a0, a1, b0, b1} stencils.
enum { ALC_PAIR_PT = 0, ALC_PAIR_EE = 1 };
/// A tetrahedron guard {t0, t1, t2, t3} (alcm_tet_guardLinearize): an AL pair whose constraint
/// is the tetrahedron's linearized volume, not a distance. Its key, ALC_PAIR_GUARD_KEY, is
/// negative, so guards sort before every contact pair.
enum { ALC_PAIR_TETGUARD = 2 };

/// Sort key of a pair: kind, then primitive indices (PT: surface vertex index, triangle; EE:
/// edge, edge). Keys order pairs by (kind, a, b) for 0 <= a, b < 2^31.
#define ALC_PAIR_KEY(type, a, b) \
    (((long long)(type) << 62) | ((long long)(a) << 31) | (long long)(b))
/// Sort key of the guard of tetrahedron t: below every ALC_PAIR_KEY.
#define ALC_PAIR_GUARD_KEY(t) ((long long)INT64_MIN + (long long)(t))

/// A candidate joins the active set when its path brings it within xi + ALC_CCD_REACH delta: it
/// (nearly) collides, AL paper Alg. 3 line 4. Close to zero on purpose: with delta larger than
/// the triangles, neighbouring surface primitives that merely approach must not become
/// constraints (AL paper Fig. 11), and in a masonry joint only the primitives that really
/// touch should hold the stones (engaging pairs at 0.99 delta gave the arch 2.7 times the
/// active pairs and 2.2 times the Newton iterations over its first 10 steps). The price: a pair
/// can end a step inside the offset and is pushed back out to delta in the next, a velocity
/// change of at most delta / h, so delta must stay small against h times the speeds of interest
/// (docs/scene-format.md, `delta`).
#define ALC_CCD_REACH 0.01
/// Rescale of the second CCD query that decides whether a pair comes within reach: the pair
/// must close 99% of its gap to that separation.
#define ALC_CCD_REACH_RESCALE 0.01

#endif  // ALC_HD_ALCM_PAIR_H_
