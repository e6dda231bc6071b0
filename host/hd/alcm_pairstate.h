// The state of an active contact pair and of a lagged friction pair, one layout for the CPU
// reference (host/ref/) and the CUDA modules (cuda/), and the normal force of AL paper Eq. 23
// that both backends, the friction lag and the contact report read.
// Header-only: includes only <math.h>, <stdint.h>, <stdbool.h> (STYLE.md §7).
#ifndef ALC_HD_ALCM_PAIRSTATE_H_
#define ALC_HD_ALCM_PAIRSTATE_H_

#include "alcm_base.h"
#include "alcm_pair.h"

/// An active contact pair with its AL state and its linearization at X.
typedef struct alcmPair_ {
    long long key;  ///< ALC_PAIR_KEY(type, a, b) (alcm_pair.h); the active set is sorted by it
    int type;       ///< ALC_PAIR_PT or ALC_PAIR_EE
    int v[4];       ///< stencil vertices: PT {p, t0, t1, t2}; EE {a0, a1, b0, b1}
    int pad0;       ///< zero (see pad1)
    double lambda;  ///< multiplier (IP units, >= 0)
    double gamma;   ///< decay factor
    double d;       ///< distance at X (m)
    double g[12];   ///< grad d at X (dimensionless)
    double c;       ///< constraint value at the last evaluated XHAT: the last assembly, then the
                    ///< multiplier update (the step-size CCD's alcm_pair_stepFloor reads it)
    int active;     ///< c < lambda / mu at the last assembly (its Hessian is in the matrix)
    int pad1;       ///< zero. With pad0 every byte is a member: a device kernel's struct copy
                    ///< carries no uninitialized padding into the set, its download and a
                    ///< checkpoint (compute-sanitizer initcheck); the layout is unchanged
    double boost;   ///< the pair's own multiple of the penalty mu (alcm_pair_mu; 0 reads as 1,
                    ///< so a zeroed new pair starts at the common mu)
} alcmPair;

/// A lagged friction pair (AL paper Appendix A, IPC §5): fixed during a step.
typedef struct alcmFric_ {
    long long key;    ///< key of the active pair it was lagged from (0 under the IPC model)
    int type;         ///< ALC_PAIR_PT or ALC_PAIR_EE
    int v[4];         ///< stencil vertices
    int pad0;         ///< zero (alcmPair.pad1 says why)
    double w[4];      ///< relative-displacement weights: r = sum_a w[a] (x_a - xt_a)
    double T[6];      ///< tangent basis, two unit columns (3 x 2, column-major)
    double coef;      ///< mu_f * F (N): friction coefficient times lagged normal force
    double uIter[2];  ///< u at the last assembly (m; 0 before the first): what a line-search
                      ///< trial's u is compared with (alcm_fric_reverses)
    int reversed;     ///< 1 when a line-search trial since the last assembly reversed the pair's
                      ///< slip: the next assembly takes its secant stiffness (alcm_fric_Ksecant)
    int pad1;         ///< zero (alcmPair.pad1 says why)
} alcmFric;

/// The index of the pair with key `key` in the active set pairs[0..npair), sorted by key, or -1.
ALC_HD int alcm_pair_find(const alcmPair* pairs, int npair, long long key) {
    int lo = 0, hi = npair - 1;
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        long long k = pairs[mid].key;
        if (k == key) return mid;
        if (k < key) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

/// Make room for the guard of tetrahedron t (alcOption.tetGuards) in the active set
/// pairs[0..npair), which is sorted by key: the pairs from its place on move up by one. Guards
/// sort before every contact pair, so the place is found by a scan of the guards only. The
/// caller zeroes the slot (padding included) and fills it with alcm_pair_guardInit; both
/// backends insert with the two.
/// @param pairs  the active set, with room for npair + 1 pairs
/// @param npair  pairs in it
/// @param t      the tetrahedron
/// @return the guard's index, or -1 when t is already guarded (nothing moves).
ALC_HD int alcm_pair_guardSlot(alcmPair* pairs, int npair, int t) {
    long long key = ALC_PAIR_GUARD_KEY(t);
    int at = 0;
    while (at < npair && pairs[at].key < key) at++;
    if (at < npair && pairs[at].key == key) return -1;
    for (int i = npair; i > at; i--) pairs[i] = pairs[i - 1];
    return at;
}

/// A new guard of tetrahedron t with vertices tv in a zeroed slot: lambda 0, gamma 1, the
/// common mu; its d and g are set by the next linearization (alcm_tet_guardLinearize).
/// @param P   the zeroed slot (alcm_pair_guardSlot)
/// @param t   the tetrahedron
/// @param tv  its four vertices
ALC_HD void alcm_pair_guardInit(alcmPair* P, int t, const int tv[4]) {
    P->key = ALC_PAIR_GUARD_KEY(t);
    P->type = ALC_PAIR_TETGUARD;
    for (int a = 0; a < 4; a++) P->v[a] = tv[a];
    P->gamma = 1;
}

/// The penalty stiffness of one pair: mu times its boost (alcm_pair_alUpdate raises it for a
/// pair whose constraint the subproblem keeps violating). Every term of the pair (its energy
/// phi, its kink lambda / mu, its curvature and its multiplier update) uses it.
/// @param P   the pair
/// @param mu  the common penalty stiffness of Eq. 20 (IP units)
ALC_HD double alcm_pair_mu(const alcmPair* P, double mu) {
    return P->boost > 1 ? mu * P->boost : mu;
}

/// A violated pair's penalty grows only while its violation stays above this fraction of its
/// value at the start of the subproblem's last Newton iteration (alcm_pair_alUpdate). Measured
/// on the shipped scenes (50 steps, bench/results/amd-epyc-2c/pair-mu.md): rigid_cubes 7.00 ->
/// 5.24 Newton iterations per step.
#define ALC_PAIR_MU_SHRINK 0.1

/// The AL update of one pair at the end of a subproblem (Alg. 2 lines 20-29 as the text of
/// §4.2 states them): with s = max(0, c - lambda/mu) (Eq. 14), an active constraint (s = 0)
/// updates its multiplier lambda <- lambda - mu c (Eq. 13) and is restored to gamma = 1; an
/// inactive one drops its multiplier and decays by Gamma (the listing prints the two gamma
/// updates swapped; the text, Appendix A and the public implementation agree on this order).
/// Beyond the paper, an active pair still violated by more than delta (c < -delta) multiplies
/// its own penalty by `growth` (up to `boostMax` times mu): the multiplier update alone closes
/// only the fraction mu / (mu + M) of the violation per outer iteration, M the stiffness that
/// resists the pair (inertia, elasticity, a driven neighbour), and with mu of Eq. 20 far below
/// M the iterate stayed through the constraint for tens of outer iterations while the
/// step-size CCD advanced the pair to a fraction of its gap each time (issue 14). A per-
/// constraint penalty raised where the violation is not reduced is the classical AL safeguard
/// (Nocedal & Wright, Numerical Optimization, 2006, Alg. 17.4 raises mu when ||c|| misses its
/// target; here per pair, so that pairs that converge keep the common, well-conditioned mu).
/// The cap matters where the constraint cannot be met at all (a vertex pulled into a wall by a
/// driven neighbour): there a stiffer pair only stiffens the subproblem (docs/architecture.md).
/// With `credit` > 0 the update credits at most that much violation, lambda <- lambda -
/// mu max(c, -credit). host/step.c passes delta after a subproblem that ended at its Newton cap:
/// its iterate is not the subproblem's minimizer, and a violation it leaves measures how far
/// the iterate is from it rather than the force the pair lacks (N & W's Alg. 17.4 updates the
/// multipliers only after a subproblem solved to its tolerance). Crediting it in full drove the
/// multipliers of IPC's dolphin without bound where the linearized constraints conflict (the
/// classical AL's divergence on an infeasible problem, which the safeguarded AL bounds: Birgin
/// and Martinez, Practical Augmented Lagrangian Methods, 2014).
/// A pair whose violation shrank to ALC_PAIR_MU_SHRINK of its last assembled value does not
/// grow: it is converging (N & W's rule raises mu only where ||c|| misses its decrease). That
/// value is P->c as the subproblem's last assembly left it (both backends write it there), c
/// at the start of the last Newton iteration: the last update's c when the subproblem took one
/// Newton iteration (its usual count), an iterate of this subproblem when it took more.
/// @param P         the pair (lambda, gamma, boost and c are updated)
/// @param c         its linearized constraint at the subproblem's iterate (m)
/// @param mu        the common penalty stiffness (IP units)
/// @param penalty   1 under the penalty ablation: no multipliers, no growth
/// @param decay     Gamma
/// @param delta     the contact offset (m)
/// @param growth    the factor of a violated pair's boost per update (<= 1: none)
/// @param boostMax  the largest boost
/// @param credit    the most violation the multiplier update credits (m); <= 0: no limit
ALC_HD void alcm_pair_alUpdate(alcmPair* P, double c, double mu, int penalty, double decay,
                               double delta, double growth, double boostMax, double credit) {
    double m = alcm_pair_mu(P, mu), lam = penalty ? 0 : P->lambda;
    double cLast = P->c;
    P->c = c;  // the step-size CCD's floor reads it (alcm_pair_stepFloor)
    if (c - lam / m > 0) {
        P->lambda = 0;
        P->gamma *= decay;
        return;
    }
    double cc = credit > 0 && c < -credit ? -credit : c;
    P->lambda = penalty ? 0 : lam - m * cc;
    P->gamma = 1;
    if (!penalty && growth > 1 && c < -delta && !(c > ALC_PAIR_MU_SHRINK * cLast)) {
        double b = P->boost > 1 ? P->boost * growth : growth;
        P->boost = b < boostMax ? b : boostMax;
    }
}

/// Normal force of a pair times h^2 (IP units), AL paper Eq. 23. Eq. 23 evaluates
/// h^-2 mu (c - s - lambda/mu); after the multiplier update of Alg. 2 (lambda <- lambda - mu c
/// for an active pair) that force is exactly lambda: the force the last subproblem applied.
/// Evaluating c again on top of the updated lambda would count the remaining violation twice
/// while the multipliers are still converging. The penalty model has no multipliers: its force
/// is mu gamma (delta - d)_+.
/// @param lambda   the pair's multiplier
/// @param gamma    its decay factor
/// @param d        its distance at X (m)
/// @param penalty  1 under the penalty ablation
/// @param mu       penalty stiffness (IP units)
/// @param delta    contact offset (m)
ALC_HD double alcm_pair_normalForce(double lambda, double gamma, double d, int penalty, double mu,
                                    double delta) {
    if (penalty) {
        double c = d - delta;
        return c < 0 ? -gamma * mu * c : 0;
    }
    return lambda > 0 ? lambda : 0;
}

/// Whether a Newton step moved a pair to the other side of its kink c = lambda / mu (active: c
/// below it, where the pair's curvature mu gamma is in the model), and more than `depth` beyond
/// it. A full step that lands there solved a model without that pair's curvature (or with it
/// where it no longer applies), so its iterate is not the subproblem's minimizer.
/// host/step.c chooses the depth (0: every crossing) and what a flip costs.
/// @param c          the pair's linearized constraint at the new iterate (m)
/// @param lamOverMu  lambda / mu (m); 0 under the penalty ablation
/// @param wasActive  the pair's activity in the model the step solved
/// @param depth      how far past the kink a crossing must land to count (m), >= 0
ALC_HD int alcm_pair_flipped(double c, double lamOverMu, int wasActive, double depth) {
    int active = c < lamOverMu;
    double past = c - lamOverMu;
    if (past < 0) past = -past;
    return active != wasActive && past > depth;
}

/// Minimum separation, as a fraction of delta, below which the step-size CCD does not let an
/// active pair approach while the iterate violates its linearized constraint by more than delta
/// (alcm_pair_stepFloor).
#define ALC_CCD_ACTIVE_FLOOR 0.1

/// Minimum separation of the step-size CCD for the candidate `key`: xi, raised to
/// ALC_CCD_ACTIVE_FLOOR delta when the pair is in the active set and its linearized constraint at
/// the subproblem's iterate is violated by more than delta (c < -delta: the multiplier has not
/// yet caught up with the force the pair needs). Without it, each outer step advanced such a pair
/// to a fraction of its remaining gap (0.15-0.3 of it per outer iteration on IPC's tet-in-slot
/// and dolphin scenes) until it sat in the CCD's rounding band (1e-13 m), where every direction
/// collides at 0, while the multiplier was still growing (issue 14). A pair already inside the
/// floor keeps most of its gap instead (alcm_ccd_stepSep).
/// @param pairs  the active set, sorted by key (its c: the constraint at the last iterate)
/// @param npair  pairs in it
/// @param key    ALC_PAIR_KEY of the candidate
/// @param xi     the model's minimum separation (m)
/// @param delta  the contact offset (m)
/// @return the minimum separation to pass to alcm_ccd_stepSep (m), >= xi.
ALC_HD double alcm_pair_stepFloor(const alcmPair* pairs, int npair, long long key, double xi,
                                  double delta) {
    int at = alcm_pair_find(pairs, npair, key);
    return at >= 0 && pairs[at].c < -delta ? alcm_max(xi, ALC_CCD_ACTIVE_FLOOR * delta) : xi;
}

#endif  // ALC_HD_ALCM_PAIRSTATE_H_
