// Interval arithmetic with outward rounding, for conservative bounds of functions over a range of
// their arguments (the curved-trajectory CCD of rigid bodies, rigid IPC §4.3 and App. A.3).
// Shared by host C11 and CUDA device code. Header-only: includes only alcm_base.h (STYLE.md §7).
//
// An interval [lo, hi] encloses every real value the quantity can take. Each operation computes
// its bounds in the current (round-to-nearest) mode and then moves them outward: by at least
// one ulp (alcm_i_down / alcm_i_up) for +, -, *, / and sqrt, whose IEEE results are correctly
// rounded (within half an ulp), and by ALCM_I_TRANS_ULPS ulps of the result plus the smallest
// normal number for sin, whose library results are within 1 ulp (glibc) or 2 ulps (CUDA's double
// sin, CUDA C Programming Guide, "Mathematical Functions"). So the result encloses the exact result
// of the operation applied to every point of the operands, without changing the rounding mode
// (which device code cannot do per operation). NaN operands give [-inf, inf].
#ifndef ALC_HD_ALCM_INTERVAL_H_
#define ALC_HD_ALCM_INTERVAL_H_

#include "alcm_base.h"

/// Ulps by which results of sin are widened (library error <= 2 ulps on host and device).
#define ALCM_I_TRANS_ULPS 4.0
/// Double epsilon (no <float.h> in hd headers).
#define ALCM_I_EPS 2.220446049250313e-16
/// Smallest normal double: absolute slack for results of transcendental functions near zero.
#define ALCM_I_TINY 2.2250738585072014e-308
/// Lower bound of the first positive extremum of sinc (x = tan x, 4.49340945790906...): sinc
/// decreases on [0, ALCM_I_SINC_MONO] (rigid IPC App. A.3).
#define ALCM_I_SINC_MONO 4.4934094579

/// A closed interval [lo, hi] (lo <= hi, or the whole line when either bound is NaN).
typedef struct {
    double lo, hi;
} alcI;

/// The interval [lo, hi] as given (no widening).
ALC_HD alcI alcm_i(double lo, double hi) {
    alcI r = {lo, hi};
    return r;
}

/// The one-point interval [a, a].
ALC_HD alcI alcm_i_point(double a) {
    return alcm_i(a, a);
}

/// [-inf, inf], the answer when an operand is NaN.
ALC_HD alcI alcm_i_all(void) {
    return alcm_i(-HUGE_VAL, HUGE_VAL);
}

/// A double at or below the next double below a (a itself for -inf): a - |a| eps - ALCM_I_TINY.
/// |a| eps is exact and at least a's ulp, so a - |a| eps is at most the double below a before
/// rounding, and rounding to nearest cannot pass a double it is below; the tiny term covers 0
/// and subnormals. Up to two ulps wide where nextafter is one, and a few times faster (the
/// curved CCD spent 37% of a rigid arch's run in nextafter).
ALC_HD double alcm_i_down(double a) {
    if (!(fabs(a) < HUGE_VAL)) return a == HUGE_VAL ? nextafter(a, -HUGE_VAL) : a;
    return (a - fabs(a) * ALCM_I_EPS) - ALCM_I_TINY;
}

/// A double at or above the next double above a (a itself for +inf): as alcm_i_down.
ALC_HD double alcm_i_up(double a) {
    if (!(fabs(a) < HUGE_VAL)) return a == -HUGE_VAL ? nextafter(a, HUGE_VAL) : a;
    return (a + fabs(a) * ALCM_I_EPS) + ALCM_I_TINY;
}

/// [lo, hi] moved outward by one ulp at each end; NaN bounds give the whole line.
ALC_HD alcI alcm_i_out(double lo, double hi) {
    if (isnan(lo) || isnan(hi)) return alcm_i_all();
    return alcm_i(alcm_i_down(lo), alcm_i_up(hi));
}

ALC_HD alcI alcm_i_add(alcI a, alcI b) {
    return alcm_i_out(a.lo + b.lo, a.hi + b.hi);
}

ALC_HD alcI alcm_i_sub(alcI a, alcI b) {
    return alcm_i_out(a.lo - b.hi, a.hi - b.lo);
}

ALC_HD alcI alcm_i_neg(alcI a) {
    return alcm_i(-a.hi, -a.lo);
}

ALC_HD alcI alcm_i_mul(alcI a, alcI b) {
    double p0 = a.lo * b.lo, p1 = a.lo * b.hi, p2 = a.hi * b.lo, p3 = a.hi * b.hi;
    return alcm_i_out(fmin(fmin(p0, p1), fmin(p2, p3)), fmax(fmax(p0, p1), fmax(p2, p3)));
}

/// a * s for a scalar s known exactly.
ALC_HD alcI alcm_i_scale(alcI a, double s) {
    return alcm_i_mul(a, alcm_i_point(s));
}

/// {x^2 : x in a}: [0, max^2] when a contains 0.
ALC_HD alcI alcm_i_sqr(alcI a) {
    double l = fabs(a.lo), h = fabs(a.hi);
    if (a.lo <= 0 && a.hi >= 0) return alcm_i(0.0, alcm_i_up(fmax(l, h) * fmax(l, h)));
    double m = fmin(l, h), M = fmax(l, h);
    return alcm_i_out(m * m, M * M);
}

/// a / b for b not containing 0; the whole line otherwise.
ALC_HD alcI alcm_i_div(alcI a, alcI b) {
    if (!(b.lo > 0 || b.hi < 0)) return alcm_i_all();
    double p0 = a.lo / b.lo, p1 = a.lo / b.hi, p2 = a.hi / b.lo, p3 = a.hi / b.hi;
    return alcm_i_out(fmin(fmin(p0, p1), fmin(p2, p3)), fmax(fmax(p0, p1), fmax(p2, p3)));
}

/// sqrt over the non-negative part of a (negative parts are clamped to 0: used for norms, whose
/// arguments are non-negative in exact arithmetic).
ALC_HD alcI alcm_i_sqrt(alcI a) {
    double lo = a.lo > 0 ? alcm_i_down(sqrt(a.lo)) : 0.0;
    return alcm_i(lo > 0 ? lo : 0.0, alcm_i_up(sqrt(fmax(a.hi, 0.0))));
}

/// The smallest interval holding both.
ALC_HD alcI alcm_i_hull(alcI a, alcI b) {
    return alcm_i(fmin(a.lo, b.lo), fmax(a.hi, b.hi));
}

/// Whether x lies in a.
ALC_HD bool alcm_i_contains(alcI a, double x) {
    return a.lo <= x && x <= a.hi;
}

/// A value of a library transcendental function widened to enclose the exact value.
ALC_HD alcI alcm_i_trans(double v) {
    double w = ALCM_I_TRANS_ULPS * ALCM_I_EPS * fabs(v) + ALCM_I_TINY;
    return alcm_i_out(v - w, v + w);
}

/// sin over a: the hull of the end values, extended to +-1 where a contains a crest
/// (pi/2 + 2 k pi) or a trough (-pi/2 + 2 k pi). The crest test is done on a slightly widened
/// interval, so a crest within rounding of an end is included (looser, never wrong).
ALC_HD alcI alcm_i_sin(alcI a) {
    if (isnan(a.lo) || isnan(a.hi) || isinf(a.lo) || isinf(a.hi) || a.hi - a.lo >= 6.283185307)
        return alcm_i(-1.0, 1.0);
    alcI r = alcm_i_hull(alcm_i_trans(sin(a.lo)), alcm_i_trans(sin(a.hi)));
    const double twoPi = 6.283185307179586, halfPi = 1.5707963267948966;
    double pad = 1e-9 * (1.0 + fmax(fabs(a.lo), fabs(a.hi)));
    // first crest at or above lo - pad; it lies in a (padded) when it is at most hi + pad
    double kc = ceil((a.lo - pad - halfPi) / twoPi);
    if (halfPi + kc * twoPi <= a.hi + pad) r.hi = 1.0;
    double kt = ceil((a.lo - pad + halfPi) / twoPi);
    if (-halfPi + kt * twoPi <= a.hi + pad) r.lo = -1.0;
    r.lo = fmax(r.lo, -1.0);
    r.hi = fmin(r.hi, 1.0);
    return r;
}

/// sinc(x) = sin(x) / x at a point, 1 at 0 (a Taylor polynomial below 1e-4, whose truncation
/// error x^6 / 5040 < 2e-28 is far below the widening of alcm_i_trans).
ALC_HD double alcm_sinc(double x) {
    double ax = fabs(x);
    if (ax < 1e-4) return 1.0 - ax * ax / 6.0 + ax * ax * ax * ax / 120.0;
    return sin(ax) / ax;
}

/// sinc over a (rigid IPC App. A.3): even, so over |a|; decreasing on [0, ALCM_I_SINC_MONO],
/// where the end values (widened) bound it; above, sin(x) / x in interval arithmetic; the hull
/// of the two parts.
ALC_HD alcI alcm_i_sinc(alcI a) {
    if (isnan(a.lo) || isnan(a.hi)) return alcm_i_all();
    // |a|
    alcI m = a.lo >= 0 ? a : (a.hi <= 0 ? alcm_i_neg(a) : alcm_i(0.0, fmax(-a.lo, a.hi)));
    alcI r = alcm_i(HUGE_VAL, -HUGE_VAL);  // empty; grown by the parts below
    if (m.lo <= ALCM_I_SINC_MONO) {
        double hi = fmin(m.hi, ALCM_I_SINC_MONO);
        // the sin / x rounding (sin <= 2 ulps, the division half an ulp) is inside the widening
        r = alcm_i_hull(alcm_i_trans(alcm_sinc(hi)), alcm_i_trans(alcm_sinc(m.lo)));
    }
    if (m.hi > ALCM_I_SINC_MONO) {
        alcI part = alcm_i(fmax(m.lo, ALCM_I_SINC_MONO), m.hi);
        r = alcm_i_hull(r, alcm_i_div(alcm_i_sin(part), part));
    }
    r.hi = fmin(r.hi, 1.0);
    return r;
}

#endif  // ALC_HD_ALCM_INTERVAL_H_
