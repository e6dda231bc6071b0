// The carry-along placement of moving boundaries, one rule for the CPU reference
// (host/ref/backend_ref.c opKinPlace) and the CUDA backend (cuda/kin_carry.cu).
//
// When the kinematic vertices cannot go onto their targets alone (an element beside them would
// be crushed; AL paper §5.3 places them at once), the free vertices near them are carried
// along:
//
// 1. each body with some but not all vertices driven moves as a whole by the driven vertices'
//    mean displacement u_b (a dragged handle moves its body);
// 2. what is left of each driven vertex's displacement, r_v = u_v - u_b, spreads into the free
//    vertices ring by ring over the mesh graph (vertices sharing a tetrahedron): a free vertex
//    first reached in sweep k takes the mean r of its neighbours reached in sweep k - 1, scaled
//    by 1 - k / (ALCM_KIN_CARRY_RINGS + 1) (a twisted end shears the rings next to it rather
//    than crushing the single ring beside it);
// 3. ALCM_KIN_CARRY_SMOOTH Jacobi sweeps average that field over each free vertex's row. Ring
//    numbers follow the graph, not the geometry: a vertex of ring 2 can lie closer to the driven
//    end than one of ring 1, and without the smoothing a thin tetrahedron across such rings was
//    crushed (issue 14: the IPC rods, whose ends sweep 4.4 mm per step past 3.3 mm elements,
//    stalled with the ring rule alone; with 4 or more sweeps every placement of their first
//    steps went through at once).
//
// Every sweep reads only values the previous sweep wrote (level k - 1; the other buffer of the
// smoothing), so the result does not depend on the order in which a sweep visits its vertices
// (a kernel launch per sweep on the device, a loop on the host), and each vertex sums over its
// adjacency row in the row's order: both backends compute the same numbers.
// Header-only: includes only <math.h>, <stdint.h>, <stdbool.h> (STYLE.md §7).
#ifndef ALC_HD_ALCM_KINCARRY_H_
#define ALC_HD_ALCM_KINCARRY_H_

#include "alcm_base.h"

/// Rings of free vertices over which a driven vertex's own displacement decays to zero.
#define ALCM_KIN_CARRY_RINGS 8

/// Jacobi sweeps that smooth the carried displacement.
#define ALCM_KIN_CARRY_SMOOTH 8

/// Level of a vertex no sweep has reached yet.
#define ALCM_KIN_CARRY_UNSET 0x7fffffff

/// One sweep's visit of vertex v (sweep k >= 1): if v is unreached and some neighbour has level
/// k - 1, v takes level k and the mean carry of those neighbours, summed in row order.
/// @param v       vertex
/// @param k       sweep, 1 ... ALCM_KIN_CARRY_RINGS
/// @param ptr     adjacency rows (n + 1); a row may list v itself (its level is never k - 1)
/// @param col     adjacency columns
/// @param level   per-vertex level: 0 driven, k reached in sweep k, ALCM_KIN_CARRY_UNSET
/// @param carry   per-vertex displacement left after the body shift (n x 3), m
ALC_HD void alcm_kinCarry_visit(int v, int k, const int* ptr, const int* col, int* level,
                                double* carry) {
    if (level[v] != ALCM_KIN_CARRY_UNSET) return;
    double s0 = 0, s1 = 0, s2 = 0;
    int c = 0;
    for (int e = ptr[v]; e < ptr[v + 1]; e++) {
        int w = col[e];
        if (level[w] != k - 1) continue;
        s0 += carry[3 * w];
        s1 += carry[3 * w + 1];
        s2 += carry[3 * w + 2];
        c++;
    }
    if (c == 0) return;
    double ic = 1.0 / c;
    carry[3 * v] = s0 * ic;
    carry[3 * v + 1] = s1 * ic;
    carry[3 * v + 2] = s2 * ic;
    level[v] = k;
}

/// Weight of the carried displacement of a free vertex at a level: 1 - k / (rings + 1), 0 when
/// unreached.
ALC_HD double alcm_kinCarry_weight(int level) {
    if (level > ALCM_KIN_CARRY_RINGS) return 0;
    return 1.0 - (double)level / (double)(ALCM_KIN_CARRY_RINGS + 1);
}

/// One Jacobi sweep of the carried displacement: a free vertex takes the mean of its row
/// (itself and its neighbours), a driven vertex keeps its own.
ALC_HD void alcm_kinCarry_smooth(int v, const int* ptr, const int* col, const unsigned char* kin,
                                 const double* in, double* out) {
    if (kin[v] || ptr[v + 1] == ptr[v]) {
        out[3 * v] = in[3 * v];
        out[3 * v + 1] = in[3 * v + 1];
        out[3 * v + 2] = in[3 * v + 2];
        return;
    }
    double s0 = 0, s1 = 0, s2 = 0;
    for (int e = ptr[v]; e < ptr[v + 1]; e++) {
        int w = col[e];
        s0 += in[3 * w];
        s1 += in[3 * w + 1];
        s2 += in[3 * w + 2];
    }
    double ic = 1.0 / (ptr[v + 1] - ptr[v]);
    out[3 * v] = s0 * ic;
    out[3 * v + 1] = s1 * ic;
    out[3 * v + 2] = s2 * ic;
}

#endif  // ALC_HD_ALCM_KINCARRY_H_
