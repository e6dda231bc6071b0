// One time step of the barrier-free augmented Lagrangian method, AL paper Algorithms 1-3
// (papers/barrier-free-al-elastodynamics.txt), written once and backend-independent: every
// vector operation is a call into the backend table (backend.h); only scalars come back.
//
// Outer loop (Alg. 1): SolveSubproblem (Alg. 2: projected Newton on L of Eq. 12 with line
// search, then the slack/multiplier/decay updates), CCD from x to xhat collecting pairs with
// their times of impact (Alg. 3) and giving MaxStepSize, x <- (1 - alpha) x + alpha xhat,
// beta bookkeeping of Eq. 7-9, until beta <= eps. The same loop runs the penalty ablation
// (multipliers fixed at zero) and, with no contact, plain Newton steps. A step whose outer loop
// stalls (alpha tiny for alcOption.splitAfter iterations in a row) is given up and solved as two
// halves of h from the same start, each of them split again if it stalls, down to
// h / 2^splitDepth (stepSplit below).
#include "alc_internal.h"
#include "hd/alcm_distance.h"
#include "hd/alcm_elastic.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Largest ratio of the diagonal entry that sets mu (Eq. 20) to the 99th percentile of the
/// vertices' diagonal entries.
#define ALCI_MU_DIAG_SPREAD 100.0

/// Full Newton steps with pairs crossing their kinks that a subproblem may take beyond the
/// first one while the active set is explored (see solveSubproblem).
#define ALCI_FLIP_RETRIES 1
/// While the active set is explored, how far past its kink (in delta) a pair must land for its
/// crossing to count. Counting every crossing there too cost ball_plate 2.6 and rigid_cubes 1.8
/// times their Newton iterations; counting only these deep ones once the state follows the
/// iterate as well made the sliding threshold test's block stick (0.008 m/s^2, not 0.439).
#define ALCI_FLIP_DEPTH 1.0
/// With free rigid bodies a subproblem goes on until its Newton step moves no rigid body's point
/// by more than this fraction of the scene's diagonal (alciSolveOut.rigidStep). Newton
/// converges quadratically on the rotation, so the step after one of this size is of order its
/// square over the body's radius. 1e-6 against 1e-9: rigid_coin 13.55 → 10.01, rigid_mattress
/// 20.19 → 11.36, rigid_chain 17.39 → 10.76 Newton per step, with the same free spin and the same
/// coin, stack and mattress outcomes (bench/results/amd-epyc-2c/rigid.md).
#define ALCI_RIGID_STEP_TOL 1e-6
/// A Newton step that moves no vertex by more than this fraction of the scene's diagonal, nor by
/// more than ALCI_CONVERGED_DELTA of the contact offset delta, ends its subproblem as converged.
/// Below that, L can no longer tell the step's decrease from its own rounding: the line search
/// halved such steps to r ~ 1e-7 and the subproblem went on, on momentum 198 of its 528 Newton
/// iterations (pInf ~ 2e-13 m, L ~ 1.7e-17). 1e-10 against the 1e-14 before: momentum 8.8 -> 7.0,
/// roller 13.0 -> 11.4, arch 13.6 -> 12.1 Newton per step, the validation suite's figures the
/// same (bench/results/amd-epyc-2c/al-iterations.md, twenty-third session)
#define ALCI_CONVERGED_DIAG  1e-10
#define ALCI_CONVERGED_DELTA 1e-3

int alci_frictionOn(const alcModel* m) {
    if (m->opt.frictionDefault > 0) return 1;
    for (int i = 0; i < m->nmat * m->nmat; i++) {
        if (m->mat_friction[i] > 0) return 1;
    }
    return 0;
}

/// True when some tetrahedron needs the inversion filter in the line search (non-invertible
/// material) — or every one does under ALC_INVERSION_ALL in MaxStepSize.
int alci_hasNonInvertible(const alcModel* m) {
    for (int b = 0; b < m->nbody; b++) {
        if (m->body_type[b] == ALC_BODY_SOLID &&
            m->mat_model[m->body_mat[b]] == ALC_MAT_NEOHOOKEAN) {
            return 1;
        }
    }
    return 0;
}

/// PCG's cap under `linear_solver: auto` when `cg_max_iter` is not set: a system PCG has not
/// solved in this many iterations is factorized instead. Where PCG struggles (thin stiff boards,
/// very stiff stones) it takes thousands of iterations, and waiting for the general cap (3 x
/// DOFs, up to 20,000) cost more than the factorization that followed: on IPC's card house a CG
/// iteration took 0.46 ms and a factorization about 0.29 s, and auto's first two steps took
/// 214 s with the general cap against 50 s with this one
/// (bench/results/amd-epyc-2c/ipc-examples.md).
#define ALC_AUTO_CG_MAX 1000

alctStatus alci_newtonSolve(alcSim* sim, alcData* d, alciSolveOut* out) {
    const alcModel* m = sim->m;
    const alcOption* o = &m->opt;
    alcStepStat* s = &d->stat;
    int cgMax = o->cgMaxIter > 0 ? o->cgMaxIter : (9 * m->nvert < 20000 ? 9 * m->nvert : 20000);
    if (o->linearSolver == ALC_LINSOLVE_AUTO && o->cgMaxIter <= 0 && cgMax > ALC_AUTO_CG_MAX)
        cgMax = ALC_AUTO_CG_MAX;
    if (cgMax < 100) cgMax = 100;
    alciTimer t;
    // a backend sets only what applies to it (the CUDA backend has no direct solver)
    memset(out, 0, sizeof *out);
    alci_tic(&t, &s->time[ALC_TIMER_PCG]);
    alctStatus st = sim->be.ops->solve(sim->be.state, o->cgTol, cgMax, out);
    alci_toc(&t);
    if (st != ALC_OK) return st;
    s->newton++;
    s->cgTotal += out->iters;
    if (out->iters > s->cgMax) s->cgMax = out->iters;
    s->directSolves += out->direct;
    if (out->directFailed) {
        alci_warn(sim, d, ALC_WARN_DIRECT_FAILED,
                  out->directFailed > INT_MAX ? INT_MAX : (int)out->directFailed,
                  "Cholesky factorization failed at column %ld (matrix not positive definite); "
                  "PCG solved the system",
                  out->directFailed);
    }
    if (!out->converged) {
        alci_warn(sim, d, ALC_WARN_PCG_MAXITER, out->iters,
                  "PCG stopped at %d iterations without reaching tolerance %g", out->iters,
                  o->cgTol);
    }
    s->residual = out->pInf / sim->stepH;
    return ALC_OK;
}

/// -v (verbosity 3): after a multiplier update, the largest multiplier, the sum of all and the
/// pairs violated by more than delta, so that multipliers growing without bound (subproblems
/// that cannot satisfy conflicting linearized constraints, issue 14) show in the log. Downloads
/// the active set: only at that verbosity.
static void logMultipliers(alcSim* sim, alcData* d, const alciContactParams* cp) {
    alcmPair* pairs = NULL;
    int n = 0;
    double lastMu, lastDelta;
    if (alci_carry_get(sim, &pairs, &n, &lastMu, &lastDelta) != ALC_OK) return;
    double sum = 0, most = 0, mostC = 0, mostMu = cp->mu;
    int mostAt = -1, violated = 0;
    for (int i = 0; i < n; i++) {
        const alcmPair* P = &pairs[i];
        sum += P->lambda;
        violated += P->c < -cp->delta;
        if (P->lambda > most) {
            most = P->lambda;
            mostAt = i;
            mostC = P->c;
            mostMu = alcm_pair_mu(P, cp->mu);
        }
    }
    if (mostAt >= 0) {
        const alcmPair* P = &pairs[mostAt];
        const char* kind = P->type == ALC_PAIR_PT   ? "point-triangle"
                           : P->type == ALC_PAIR_EE ? "edge-edge"
                                                    : "tetrahedron guard";
        alci_log(
            sim, 3,
            "step %ld: multipliers of %d pairs: largest %.3e (lambda/mu %.3e m) on the %s pair "
            "of vertices %d %d %d %d (c = %.3e m), sum %.3e, %d violated by more than "
            "delta",
            d->step + 1, n, most, most / mostMu, kind, P->v[0], P->v[1], P->v[2], P->v[3], mostC,
            sum, violated);
    } else {
        alci_log(sim, 3,
                 "step %ld: multipliers of %d pairs: all zero, %d violated by more than "
                 "delta",
                 d->step + 1, n, violated);
    }
    free(pairs);
}

/// -vv (verbosity 4): after a collect whose time of impact cut alpha, the pair that cut it
/// (alciBlockingPair): its distance at X, at XHAT and at the cut, how far its two primitives
/// move against each other over the chord, and whether it was in the subproblem's active set
/// (its linearized constraint c at XHAT and lambda/mu). Who cuts the chords, and why, is what
/// issue 18 measured (bench/results/amd-epyc-2c/al-vs-ipc-full-size.md): pairs outside the set
/// that the chord runs into, or active pairs whose constraint the iterate violates.
static void logBlockingPair(alcSim* sim, alcData* d, const alciContactParams* cp, int k) {
    const alciBackendOps* ops = sim->be.ops;
    alciBlockingPair b;
    if (!ops->blockingPair || ops->blockingPair(sim->be.state, &b) != ALC_OK || !b.found) return;
    int isEE = b.type == ALC_PAIR_EE;
    alcV3 x[4], xh[4], xc[4];
    for (int a = 0; a < 4; a++) {
        x[a] = alcm_v3_load(b.x + 3 * a);
        xh[a] = alcm_v3_load(b.xhat + 3 * a);
        // on the straight chord (a rigid body's vertices move on arcs: approximate there)
        xc[a] = alcm_v3_mad(x[a], b.toi, alcm_v3_sub(xh[a], x[a]));
    }
    double dx = isEE ? alcm_ee_distance(x, NULL) : alcm_pt_distance(x, NULL);
    double dh = isEE ? alcm_ee_distance(xh, NULL) : alcm_pt_distance(xh, NULL);
    double dc = isEE ? alcm_ee_distance(xc, NULL) : alcm_pt_distance(xc, NULL);
    // the primitives' centres' displacements over the chord, one against the other
    alcV3 ua = alcm_v3_sub(xh[0], x[0]), ub;
    if (isEE) {
        ua = alcm_v3_scale(alcm_v3_add(ua, alcm_v3_sub(xh[1], x[1])), 0.5);
        ub = alcm_v3_scale(alcm_v3_add(alcm_v3_sub(xh[2], x[2]), alcm_v3_sub(xh[3], x[3])), 0.5);
    } else {
        ub = alcm_v3_add(alcm_v3_sub(xh[1], x[1]), alcm_v3_sub(xh[2], x[2]));
        ub = alcm_v3_scale(alcm_v3_add(ub, alcm_v3_sub(xh[3], x[3])), 1.0 / 3.0);
    }
    double slide = alcm_v3_norm(alcm_v3_sub(ua, ub));
    char active[128] = "not in the active set";
    alcmPair* pairs = NULL;
    int n = 0;
    double lastMu, lastDelta;
    if (alci_carry_get(sim, &pairs, &n, &lastMu, &lastDelta) == ALC_OK) {
        int at = alcm_pair_find(pairs, n, b.key);
        if (at >= 0) {
            const alcmPair* P = &pairs[at];
            snprintf(active, sizeof active, "active: c = %.3g delta, lambda/mu = %.3g delta",
                     P->c / cp->delta, P->lambda / alcm_pair_mu(P, cp->mu) / cp->delta);
        }
        free(pairs);
    }
    alci_log(sim, 4,
             "step %ld iter %d: CCD cut at %.3e by the %s pair of vertices %d %d %d %d: "
             "distance %.3g delta at x, %.3g at the cut, %.3g at xhat; its primitives move "
             "%.3g delta against each other over the chord; %s",
             d->step + 1, k + 1, b.toi, isEE ? "edge-edge" : "point-triangle", b.v[0], b.v[1],
             b.v[2], b.v[3], dx / cp->delta, dc / cp->delta, dh / cp->delta, slide / cp->delta,
             active);
}

/// At verbosity 4, the tetrahedron that cut an outer step through the inversion bound (the
/// lowest own bound on the chord below the CCD's alpha amax, alciBlockingTet): its volume as a
/// fraction of its rest volume at x, at the cut alpha and at xhat, the target the bound keeps it
/// above, and where the chord first and last passes below that target. On IPC's dolphin the
/// crawls of steps 649-653 were slivers crushed at x and re-expanded at xhat whose chord passes
/// through an inversion in between, the CCD's alpha inside it (issue 14).
static void logBlockingTet(alcSim* sim, alcData* d, int k, double alpha, double amax, int invAll,
                           int endPoint) {
    const alcModel* m = sim->m;
    double fraction = m->opt.inversionFraction;
    const alciBackendOps* ops = sim->be.ops;
    alciBlockingTet b;
    if (!ops->blockingTet ||
        ops->blockingTet(sim->be.state, fraction, invAll, endPoint, amax, &b) != ALC_OK ||
        !b.found) {
        return;
    }
    alcV3 x[4], xh[4], p[4], q[4];
    for (int a = 0; a < 4; a++) {
        x[a] = alcm_v3_load(b.x + 3 * a);
        xh[a] = alcm_v3_load(b.xhat + 3 * a);
        p[a] = alcm_v3_sub(xh[a], x[a]);
        q[a] = alcm_v3_scale(p[a], -1.0);
    }
    double c[4];  // six times the volume along the chord, a cubic in alpha
    alcm_tet_volCubic(x, p, 0.0, c);
    double rest6 = 6 * m->tet_vol[b.tet];
    double target6 = alcm_tet_invTarget(c[0], fraction, m->tet_vol[b.tet]);
    // the first and last alpha below the target (each conservative: just outside the stretch)
    double first = alcm_tet_maxStepTo(x, p, target6);
    char last[64] = "below it at xhat too";
    if (alcm_cubic_eval(c, 1.0) > target6) {
        snprintf(last, sizeof last, "last at %.3e", 1 - alcm_tet_maxStepTo(xh, q, target6));
    }
    const int* tv = m->tet_vert + 4 * b.tet;
    alci_log(sim, 4,
             "step %ld iter %d: inversion bound cut at %.3e by tetrahedron %d (vertices %d %d %d "
             "%d): volume %.3g of its rest volume at x, %.3g at the cut, %.3g at xhat; target "
             "%.3g; the chord first below it at alpha %.3e, %s",
             d->step + 1, k + 1, alpha, b.tet, tv[0], tv[1], tv[2], tv[3], c[0] / rest6,
             alcm_cubic_eval(c, alpha) / rest6, alcm_cubic_eval(c, 1.0) / rest6, target6 / rest6,
             first, last);
}

/// SolveSubproblem, AL paper Algorithm 2: projected Newton on L with a backtracking line search
/// (full step ends it), then the slack, multiplier and decay updates. mu of Eq. 20 is estimated
/// at the attempt's first Newton iteration (d->stat.newton == newton0).
static alctStatus solveSubproblem(alcSim* sim, alcData* d, alciContactParams* cp, int muFromDiag,
                                  int newton0, int contact, int nonInvertible, int invAll,
                                  int settle, double* kinLeft) {
    const alcModel* m = sim->m;
    const alcOption* o = &m->opt;
    const alciBackendOps* ops = sim->be.ops;
    void* be = sim->be.state;
    alcStepStat* s = &d->stat;
    alciTimer t;
    alctStatus st;
    // which crossings of a kink count as flips (see the end of a subproblem below)
    double depth = settle ? 0 : ALCI_FLIP_DEPTH * cp->delta;
    if (contact && cp->flipDepth != depth) {
        cp->flipDepth = depth;
        ops->setContactParams(be, cp);
    }
    int crossings = 0;  // full Newton steps in which some pair crossed its kink
    // L at the iterate the last line search accepted: the next iteration's L(0), the same
    // positions (stepXhat adds r p as the trial did) and the same parameters, so it is not
    // evaluated again; anything that moves xhat otherwise (kinPlace) drops it
    double lNext = 0;
    int haveLNext = 0;
    // a Newton direction no longer than this (8 ulps of the scene's coordinates) is noise
    double xscale = 0;
    for (int k = 0; k < 6; k++) xscale = fmax(xscale, fabs(m->extent[k]));
    double noiseP = 8 * DBL_EPSILON * (xscale > 0 ? xscale : 1);
    int freeRigid = 0;  // rigid bodies that move in the solve (not kinematic this step)
    for (int r = 0; r < m->nrigid; r++) freeRigid += !sim->rigidKin[r];
    int ended = 0;  // the subproblem ended before its Newton cap (converged, or no descent)
    // solver.newton_flat: L where the subproblem (or its last placement of moving boundaries)
    // began, and the Newton iterations since
    double lBegin = 0;
    int sinceBegin = 0;
    for (int it = 0; it < o->maxNewton; it++) {
        st = alci_cancelled(sim, d, "Newton iteration", s->newton);
        if (st != ALC_OK) return st;
        // gradient and projected Hessian of E, then the AL terms (Alg. 2 lines 5-12)
        alciAssembleOut aout;
        memset(&aout, 0, sizeof aout);
        alci_tic(&t, &s->time[ALC_TIMER_HESSIAN]);
        st = ops->assembleElastic(be, &aout);
        if (st == ALC_OK && muFromDiag && s->newton == newton0) {
            // mu_init = C max_i (Hess E)_ii, AL paper Eq. 20; penalty ablation scales it. The
            // max is taken at most ALCI_MU_DIAG_SPREAD times the 99th percentile: one nearly
            // degenerate element (J -> 0 under Neo-Hookean) would otherwise set a penalty 1e5
            // times stiffer than every contact needs, and PCG and the AL stall on it (issue 14)
            double dmax = aout.maxDiag;
            if (aout.q99Diag > 0 && dmax > ALCI_MU_DIAG_SPREAD * aout.q99Diag) {
                dmax = ALCI_MU_DIAG_SPREAD * aout.q99Diag;
            }
            cp->mu = o->muScale * dmax * (o->contact == ALC_CONTACT_PENALTY ? o->penaltyScale : 1);
            if (!(cp->mu > 0)) cp->mu = o->muScale;
            ops->setContactParams(be, cp);
        }
        if (st == ALC_OK && contact) st = ops->assembleContact(be);
        alci_toc(&t);
        if (st != ALC_OK) return st;
        if (aout.nblocks > d->maxuse_blocks) d->maxuse_blocks = aout.nblocks;
        int nact = ops->nactive(be);
        s->contactsSum += nact;
        if (nact > s->contactsMax) s->contactsMax = nact;

        // Newton direction by PCG (line 13)
        alciSolveOut sout;
        st = alci_newtonSolve(sim, d, &sout);
        if (st != ALC_OK) return st;

        // backtracking line search on L (line 14), inversion-free for non-invertible materials
        // and, under ALC_INVERSION_ALL, for every material: an invertible energy (corotated)
        // may otherwise lead xhat into inverted elements that x can never reach
        alci_tic(&t, &s->time[ALC_TIMER_LINESEARCH]);
        // a direction that moves no vertex by more than a few units in the last place of the
        // scene's coordinates is rounding noise: no trial of it can be told from L0, which may
        // itself be rounding (L0 ~ 1e-32 on the rings at rest, where 24 energy evaluations a
        // step went into halving such a direction, half the step's time on the full preset).
        // It takes no line search and ends the subproblem as converged (xhat and L unchanged)
        int noise = sout.pInf <= noiseP;
        double rmax = 1;
        if (!noise && (nonInvertible || invAll || m->nrigid > 0)) {
            st = ops->lineSearchBound(be, o->inversionFraction, invAll, &rmax);
            if (st != ALC_OK) return st;
        }
        double L0 = lNext, L = lNext;
        st = haveLNext || noise ? ALC_OK : ops->energy(be, 0, &L0);
        if (!noise) haveLNext = 0;
        double r = rmax;
        int accepted = noise;
        for (int ls = 0; !noise && st == ALC_OK && ls < o->lsMaxIter; ls++) {
            st = ops->energy(be, r, &L);
            if (st != ALC_OK) break;
            // accept a decrease; rounding-level increases count as no change
            if (L <= L0 + 1e-13 * fabs(L0)) {
                accepted = 1;
                break;
            }
            r *= 0.5;
        }
        if (sinceBegin++ == 0) lBegin = L0;
        int flips = 0;
        if (st == ALC_OK && accepted && !noise) {
            st = ops->stepXhat(be, r, &flips);
            lNext = L;
            haveLNext = 1;
        }
        alci_toc(&t);
        if (st != ALC_OK) return st;
        if (!accepted) {
            alci_log(sim, 4,
                     "step %ld newton %d: |p| %.3e m, cg %d, no decrease of L in %d halvings "
                     "from %.3g (G.p = %.3e): ends",
                     d->step + 1, s->newton, sout.pInf, sout.iters, o->lsMaxIter, rmax, sout.gDotP);
            // a predicted decrease below the rounding of L means xhat is already stationary;
            // anything larger is a real failure (an indefinite or inaccurate direction)
            if (sout.gDotP < -1e-10 * fabs(L0) && sout.pInf > 1e-10 * m->diag) {
                s->lineSearchFails++;
                alci_warn(sim, d, ALC_WARN_LINESEARCH, it,
                          "line search found no decrease of L after %d halvings (G.p = %g, L = %g)",
                          o->lsMaxIter, sout.gDotP, L0);
            }
            ended = 1;
            break;
        }
        // a full Newton step ends the subproblem (line 16) when no pair crossed its kink in it
        // (alcm_pair_flipped): a step that did solved a model without that pair's curvature,
        // and its iterate is not the subproblem's minimizer. Once the state follows the iterate
        // (settle: the last outer step advanced fully) the Newton iterations go on until no
        // pair crosses at all, so that the iterates the step ends on solve their
        // piecewise-quadratic model exactly. While the active set is still being explored, a
        // crossing counts only when it lands more than ALCI_FLIP_DEPTH delta past the kink, and
        // buys one more Newton step at most (ALCI_FLIP_RETRIES). Ending on the crossing step
        // itself fed the multiplier update an iterate that had run through an unmodelled pair:
        // on the IPC cement arch two joints' multipliers then alternated between 0 and twice
        // the load, the amplitude growing each outer iteration, until x froze (issue 14).
        if (r == 1 && flips > 0) crossings++;
        int done = r == 1 && (flips == 0 || !contact || (!settle && crossings > ALCI_FLIP_RETRIES));
        // with rigid bodies a full step is not enough: their rotation is strongly nonlinear in
        // theta, and a subproblem ended on its first full step left a spin about a principal
        // axis drifting off it by 5e-4 of its speed in 100 steps; their Newton iterations go on
        // until the step moves no point of a rigid body by more than ALCI_RIGID_STEP_TOL of the
        // scene (issue 17). It is the rigid bodies' own step, in metres: the whole step's
        // largest entry, the rule before, also held the soft bodies' iterations and compared
        // rotation vectors (rad) with a length. Kinematic rigid bodies do not turn in the solve
        // (rigid grasp fingers: 25.7 Newton iterations a step with the rule, the elastic
        // fingers' 12.6 without)
        if (freeRigid && sout.rigidStep > ALCI_RIGID_STEP_TOL * (m->diag > 0 ? m->diag : 1)) {
            done = 0;
        }
        // nor does a step solved with some friction pairs at their secant stiffness: it is a
        // majorizer's step, not Newton's on L (docs/architecture.md, "Friction pairs whose slip
        // a trial reversed")
        if (aout.nsecant > 0) done = 0;
        // a converged iterate ends it too: a Newton step too short to matter (ALCI_CONVERGED_DIAG)
        double pTol = ALCI_CONVERGED_DIAG * (m->diag > 0 ? m->diag : 1);
        if (contact) pTol = fmin(pTol, ALCI_CONVERGED_DELTA * cp->delta);
        done |= sout.pInf <= pTol;
        // and so does a step the line search took without lowering L at all (accepted as a
        // rounding-level change): xhat is stationary to the rounding of L, and the next Newton
        // iteration would solve for the same direction again, up to the Newton cap (issue 18:
        // on the momentum scene 19 of every 20 Newton iterations of a settled step were such)
        done |= !(L < L0);
        // solver.newton_flat: a partial step that lowers L by a tiny fraction of what this
        // subproblem has lowered it so far. Deep in IPC's dolphin funnel most subproblems ran to
        // the Newton cap on such steps, L falling by 1e-4 to 1e-7 of that per iteration while
        // the inversion bound or the backtracking kept r below 1 (bench/results/intel-xeon-2c/
        // ipc-examples.md; docs/architecture.md, "A subproblem whose L has gone flat ends"). It
        // ends the subproblem as the cap would: the multipliers are credited at most delta of
        // the violation, as after a subproblem that did not converge
        int flat = !done && o->newtonFlat > 0 && r < 1 && sinceBegin >= 3 && lBegin > L &&
                   L0 - L < o->newtonFlat * (lBegin - L);
        alci_log(sim, 4,
                 "step %ld newton %d: |p| %.3e m, cg %d%s, r %.3g (bound %.3g), L %.9e -> %+.3e, "
                 "crossings %d%s%s",
                 d->step + 1, s->newton, sout.pInf, sout.iters, sout.converged ? "" : " (cap)", r,
                 rmax, L0, L - L0, flips,
                 done               ? ", ends"
                 : flat             ? ", ends: L flat (solver.newton_flat; credited as at the cap)"
                 : r < 1            ? ", goes on: partial step"
                 : flips > 0        ? ", goes on: a kink crossed"
                 : aout.nsecant > 0 ? ", goes on: friction pairs at their secant"
                                    : ", goes on: rigid bodies still moving",
                 *kinLeft > 0 ? ", boundaries short of their targets" : "");
        if ((done || flat) && *kinLeft > 0) {
            // moving boundaries short of their targets follow as far as the relaxed mesh
            // allows, and the Newton iterations go on from there (after a flat end too: else
            // subproblems that keep ending flat would leave them short, and the step would
            // run to its outer cap, its beta counting no iterate short of its targets)
            st = ops->kinPlace(be, o->inversionFraction, invAll, 0, kinLeft);
            if (st != ALC_OK) return st;
            haveLNext = 0;
            sinceBegin = 0;
            continue;
        }
        if (done) {
            ended = 1;
            break;
        }
        if (flat) break;  // ended stays 0
    }
    // slack, multiplier and decay updates (lines 20-29). After a subproblem cut off at the
    // Newton cap, a pair's multiplier is credited at most delta of the violation the iterate
    // leaves (alcm_pair_alUpdate): on IPC's dolphin, full credit from such iterates drove the
    // multipliers without bound where the linearized constraints conflict (issue 14)
    if (contact) {
        st = ops->alUpdate(be, ended ? 0 : cp->delta);
        if (st != ALC_OK) return st;
        if (sim->def.log && sim->def.verbosity >= 3) logMultipliers(sim, d, cp);
    }
    return ALC_OK;
}

alciStepInput alci_stepInput(alcSim* sim, alcData* d, double h) {
    const alcModel* m = sim->m;
    alciStepInput in;
    in.x = d->x;
    in.v = d->v;
    in.kinTarget = d->kin_target;
    in.kinMask = sim->kinMask;
    in.h = h;
    sim->stepH = h;
    in.gravity = m->opt.gravity;
    in.rigidPose = d->rigid_pose;
    in.rigidPosePrev = d->rigid_posePrev;
    alci_driver_rigidTargets(m, sim->kinMask, d->kin_target, sim->rigidKin, sim->rigidTarget);
    in.rigidKin = sim->rigidKin;
    in.rigidTarget = sim->rigidTarget;
    return in;
}

/// One attempt at a step of length h from d->x, d->v to the targets in d->kin_target: Algorithm
/// 1 as the paper has it. With canSplit, an attempt whose alpha stays below stallAlpha for
/// splitAfter outer iterations in a row gives up: *stalled = 1, d->x and d->v untouched (the
/// backend's contact carry is not: the caller restores it).
static alctStatus stepOnce(alcSim* sim, alcData* d, double h, int canSplit, int* stalled) {
    const alcModel* m = sim->m;
    const alcOption* o = &m->opt;
    const alciBackendOps* ops = sim->be.ops;
    void* be = sim->be.state;
    alcStepStat* s = &d->stat;
    alciTimer t;
    alctStatus st;
    int contact = o->contact != ALC_CONTACT_NONE;
    int friction = contact && alci_frictionOn(m);
    int nonInvertible = alci_hasNonInvertible(m);
    int invAll = o->inversion == ALC_INVERSION_ALL;
    int kmin = o->kmin > 0 ? o->kmin : (friction ? 6 : 2);
    double restartAlpha = o->restartAlpha >= 0 ? o->restartAlpha : o->stallAlpha;

    // contact parameters of this step (mu is re-estimated every step, §5.2)
    alciContactParams cp;
    memset(&cp, 0, sizeof cp);
    cp.mu = o->mu > 0 ? o->mu : 0;
    cp.delta = o->delta;
    cp.decay = o->decay;
    cp.removeBelow = o->removeBelow;
    cp.penalty = o->contact == ALC_CONTACT_PENALTY;
    cp.friction = friction;
    cp.frictionEpsV = o->frictionEpsV;
    cp.pairMuGrowth = o->pairMuGrowth;
    cp.pairMuMax = o->pairMuMax;
    cp.frictionSecant = o->frictionSecant;
    cp.tetGuards = o->tetGuards;
    if (cp.penalty && o->mu > 0) cp.mu = o->mu * o->penaltyScale;
    ops->setContactParams(be, &cp);
    int muFromDiag = !(o->mu > 0);
    int newton0 = s->newton;  // mu is estimated at this attempt's first Newton iteration

    // inertia target, kinematic targets in xhat^[0] (Alg. 1 lines 3-5, §5.3)
    alciStepInput in = alci_stepInput(sim, d, h);
    st = ops->beginStep(be, &in);
    if (st != ALC_OK) return st;
    // moving boundaries at their targets in xhat^[0] (§5.3) -- unless that would crush a
    // protected tetrahedron next to them: then they go as far as it allows now and follow the
    // mesh in the Newton iterations (a kinematic vertex dragged further in one step than a
    // sliver beside it is thick otherwise starts the subproblem from an inverted element)
    double kinLeft = 0;
    st = ops->kinPlace(be, o->inversionFraction, invAll, 1, &kinLeft);
    if (st != ALC_OK) return st;
    if (kinLeft > 0) {
        alci_log(sim, 2, "step %ld: moving boundaries %.3g m short of their targets in xhat^[0]",
                 d->step + 1, kinLeft);
    }
    if (contact) {
        alci_tic(&t, &s->time[ALC_TIMER_CCD]);
        st = ops->linearize(be);
        alci_toc(&t);
        if (st != ALC_OK) return st;
    }

    // Algorithm 1 main loop
    double beta = 1, lastAlpha = 0, betaMark = 1;
    int k = 0, stall = 0, stallRun = 0, sinceMu = 0, sinceSplit = 0;
    *stalled = 0;
    while (beta > o->epsilon) {
        st = alci_cancelled(sim, d, "outer iteration", k);
        if (st != ALC_OK) return st;
        if (k >= o->maxIter) {
            s->capped = 1;
            alci_warn(sim, d, ALC_WARN_AL_NOT_CONVERGED, k,
                      "step ended at the iteration cap (%d) with beta = %g > eps = %g", k, beta,
                      o->epsilon);
            break;
        }
        st = solveSubproblem(sim, d, &cp, muFromDiag, newton0, contact, nonInvertible, invAll,
                             k > 0 && lastAlpha >= 1, &kinLeft);
        if (st != ALC_OK) return st;

        // CCD from x to xhat: pairs with times of impact (Alg. 3) and MaxStepSize
        alci_tic(&t, &s->time[ALC_TIMER_CCD]);
        double alpha = 1, ccdAlpha = 1;
        if (contact) {
            alciCollectOut cout;
            st = ops->collect(be, &cout);
            if (st != ALC_OK) {
                alci_toc(&t);
                return st;
            }
            if (cout.grown) {
                // grown and redone: a statistic, not a warning (issue 14)
                s->bufferGrows++;
                if (cout.grown > s->bufferCapacity) s->bufferCapacity = cout.grown;
                alci_log(sim, 2, "step %ld: CCD candidate buffer grown to %d and redone",
                         d->step + 1, cout.grown);
            }
            if (cout.minToi < 1 && sim->def.log && sim->def.verbosity >= 4) {
                logBlockingPair(sim, d, &cp, k);
            }
            if (cout.ncandidates > s->candidatesMax) s->candidatesMax = cout.ncandidates;
            if (cout.ncandidates > d->maxuse_candidates) d->maxuse_candidates = cout.ncandidates;
            int nact = 0, grown = 0;
            st = ops->mergeActive(be, &nact, &grown);
            if (st != ALC_OK) {
                alci_toc(&t);
                return st;
            }
            if (grown) {
                s->bufferGrows++;
                if (grown > s->bufferCapacity) s->bufferCapacity = grown;
                alci_log(sim, 2, "step %ld: active-set buffers grown to %d pairs", d->step + 1,
                         grown);
            }
            if (nact > d->maxuse_contacts) d->maxuse_contacts = nact;
            alpha = cout.minToi < 1 ? cout.minToi : 1;
            ccdAlpha = alpha;
        }
        int invLimited = 0;
        if (invAll || nonInvertible) {
            double ainv = 1;
            int guards = 0;
            // at the chord's end point below the CCD's alpha (ALC_INVBOUND_END), or along it;
            // the tetrahedra that cut it may become guards of the next subproblems (tetGuards)
            st = ops->inversionBound(be, o->inversionFraction, invAll,
                                     o->inversionBound == ALC_INVBOUND_END, alpha, &ainv, &guards);
            s->guards += guards;
            if (st != ALC_OK) {
                alci_toc(&t);
                return st;
            }
            if (ainv < alpha) {
                alpha = ainv;
                invLimited = 1;
                if (sim->def.log && sim->def.verbosity >= 4) {
                    logBlockingTet(sim, d, k, alpha, ccdAlpha, invAll,
                                   o->inversionBound == ALC_INVBOUND_END);
                }
            }
        }
        if (alpha < 0) alpha = 0;
        alci_log(sim, 3, "step %ld iter %d: alpha %.3e (ccd %.3e), active %d, mu %.4g, newton %d",
                 d->step + 1, k + 1, alpha, ccdAlpha, ops->nactive(be), cp.mu, s->newton);
        st = ops->advance(be, alpha);
        // a chord that the inversion bound stops short of a stall (or of restart_alpha): the
        // next subproblem starts from x instead of the last xhat, whose chord from x passes
        // through an inversion (docs/architecture.md, "A chord stopped by an inversion restarts
        // the subproblem")
        if (st == ALC_OK && invLimited && alpha < restartAlpha) {
            st = ops->syncXhat(be);
            if (st == ALC_OK) st = ops->kinPlace(be, o->inversionFraction, invAll, 0, &kinLeft);
            alci_log(sim, 3,
                     "step %ld iter %d: xhat restarted from x (alpha %.3e from the "
                     "inversion bound)",
                     d->step + 1, k + 1, alpha);
        }
        if (st == ALC_OK && contact) st = ops->linearize(be);
        alci_toc(&t);
        if (st != ALC_OK) return st;

        // beta of Eq. 9 tracks the weight of the first K_min iterates (Alg. 1 lines 14-18);
        // iterates whose moving boundaries are short of their targets count as early ones, so
        // that the step ends on iterates that satisfy the boundary conditions (Eq. 21)
        if (k + 1 >= kmin && kinLeft == 0) beta *= 1 - alpha;
        lastAlpha = alpha;
        k++;
        s->alphaSum += alpha;
        if (alpha < s->alphaMin) s->alphaMin = alpha;

        // beta's progress: beta fell to ALCI_STALL_PROGRESS of its mark. A step whose beta
        // makes none for stallIters (or splitAfter) outer iterations stalls as surely as one
        // whose alpha stays below stallAlpha that long, although a good alpha now and then (a
        // chord restarted after the inversion bound, the first iterations after it) resets the
        // count of consecutive small ones: IPC's dolphin's step 534 ran 300 outer iterations
        // with beta at 0.80 and no mu doubling or split (bench/results/amd-epyc-2c/
        // ipc-examples.md, sixteenth session)
        if (beta <= ALCI_STALL_PROGRESS * betaMark) {
            betaMark = beta;
            sinceMu = sinceSplit = 0;
        } else {
            sinceMu++;
            sinceSplit++;
        }

        // a stall that mu and delta did not cure in splitAfter iterations: the step is split
        stallRun = alpha < o->stallAlpha ? stallRun + 1 : 0;
        if (canSplit && (stallRun >= o->splitAfter || sinceSplit >= o->splitAfter)) {
            *stalled = 1;
            s->outer += k;
            return ALC_OK;
        }
        // adaptive mu and delta when alpha stalls (AL paper §5.2), or beta does
        stall = alpha < o->stallAlpha ? stall + 1 : 0;
        if (contact && (stall >= o->stallIters || sinceMu >= o->stallIters)) {
            int byBeta = stall < o->stallIters;
            cp.mu *= 2;
            cp.delta *= 0.5;
            ops->setContactParams(be, &cp);
            stall = 0;
            sinceMu = 0;
            betaMark = beta;
            s->muIncreases++;
            if (byBeta) {
                alci_warn(sim, d, ALC_WARN_MU_INCREASE, k,
                          "beta above %g of its value %d outer iterations ago (%g): mu doubled "
                          "to %g, delta halved to %g",
                          ALCI_STALL_PROGRESS, o->stallIters, beta, cp.mu, cp.delta);
            } else {
                alci_warn(sim, d, ALC_WARN_MU_INCREASE, k,
                          "alpha < %g for %d iterations: mu doubled to %g, delta halved to %g",
                          o->stallAlpha, o->stallIters, cp.mu, cp.delta);
            }
            st = ops->linearize(be);
            if (st != ALC_OK) return st;
        }
    }
    s->outer += k;
    s->beta = beta;
    s->mu = cp.mu;
    s->delta = cp.delta;

    // x^{t+1} = x^[k], v^{t+1} = (x^[k] - x^t) / h (line 21)
    return ops->endStep(be, d->x, d->v);
}

/// The step of length h from time t0 (targets at t0 + h in d->kin_target), split into two halves
/// when it stalls and depth < splitDepth. The halves start from the attempt's start state and
/// contact carry; their targets come from the drivers at t0 + h/2 and t0 + h, so a scripted
/// motion is followed, not interpolated.
static alctStatus stepSplit(alcSim* sim, alcData* d, double t0, double h, int depth) {
    const alcModel* m = sim->m;
    const alcOption* o = &m->opt;
    const alciBackendOps* ops = sim->be.ops;
    int canSplit = depth < o->splitDepth;
    alcmPair* carry = NULL;
    int ncarry = 0, stalled = 0;
    double lastMu = 0, lastDelta = 0;
    alctStatus st = canSplit ? alci_carry_get(sim, &carry, &ncarry, &lastMu, &lastDelta) : ALC_OK;
    if (st == ALC_OK) st = stepOnce(sim, d, h, canSplit, &stalled);
    if (st == ALC_OK && stalled) {
        // back to the attempt's start: d->x and d->v were not touched, the carry was
        st = ops->setCarry(sim->be.state, carry, ncarry, lastMu, lastDelta);
        d->stat.splits++;
        alci_log(sim, 2,
                 "step %ld: alpha below %g, or beta above %g of its mark, for %d outer "
                 "iterations: solved as two parts of %g s",
                 d->step + 1, o->stallAlpha, ALCI_STALL_PROGRESS, o->splitAfter, h / 2);
        // targets the caller sets (external drivers) are known at t0 + h only: the halves
        // follow the straight line to them from where the attempt started
        size_t vec = sizeof(double) * 3 * (size_t)m->nvert;
        double* x0 = st == ALC_OK ? (double*)malloc(3 * vec) : NULL;
        double *v0 = x0 ? x0 + 3 * m->nvert : NULL, *end = x0 ? x0 + 6 * m->nvert : NULL;
        if (st == ALC_OK && !x0) st = ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory");
        size_t pvec = sizeof(double) * 6 * (size_t)m->nrigid;
        double* pose0 = st == ALC_OK && m->nrigid > 0 ? (double*)malloc(2 * pvec) : NULL;
        if (st == ALC_OK && m->nrigid > 0 && !pose0)
            st = ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory");
        if (st == ALC_OK) {
            memcpy(x0, d->x, vec);
            memcpy(v0, d->v, vec);
            memcpy(end, d->kin_target, vec);
            if (pose0) {
                memcpy(pose0, d->rigid_pose, pvec);
                memcpy(pose0 + 6 * m->nrigid, d->rigid_posePrev, pvec);
            }
        }
        for (int half = 0; half < 2 && st == ALC_OK; half++) {
            double t = t0 + (half + 1) * (h / 2), w = 0.5 * (half + 1);
            alci_driver_eval(m, t, d->driver_external, d->driver_released, d->kin_target,
                             sim->kinMask);
            for (int v = 0; v < m->nvert; v++) {
                int k = m->vert_driver[v];
                if (k < 0 || !sim->kinMask[v]) continue;
                if (!d->driver_external[k] && m->driver_type[k] != ALC_DRIVER_EXTERNAL) continue;
                for (int j = 0; j < 3; j++) {
                    int i = 3 * v + j;
                    d->kin_target[i] = x0[i] + w * (end[i] - x0[i]);
                }
            }
            st = stepSplit(sim, d, t0 + half * (h / 2), h / 2, depth + 1);
        }
        if (st != ALC_OK && x0) {
            // a failed or cancelled half: the data as before the step, as for an unsplit step
            // (the first half may have ended already)
            memcpy(d->x, x0, vec);
            memcpy(d->v, v0, vec);
            memcpy(d->kin_target, end, vec);
            if (pose0) {
                memcpy(d->rigid_pose, pose0, pvec);
                memcpy(d->rigid_posePrev, pose0 + 6 * m->nrigid, pvec);
            }
            ops->setCarry(sim->be.state, carry, ncarry, lastMu, lastDelta);
        }
        free(x0);
        free(pose0);
    } else if (st == ALC_OK && h < d->stat.hMin) {
        d->stat.hMin = h;
    }
    free(carry);
    return st;
}

void alci_stepTimeOther(alcStepStat* s) {
    s->time[ALC_TIMER_OTHER] = s->time[ALC_TIMER_STEP] - s->time[ALC_TIMER_HESSIAN] -
                               s->time[ALC_TIMER_PCG] - s->time[ALC_TIMER_CCD] -
                               s->time[ALC_TIMER_LINESEARCH];
    if (s->time[ALC_TIMER_OTHER] < 0) s->time[ALC_TIMER_OTHER] = 0;
}

alctStatus alci_step_al(alcSim* sim, alcData* d) {
    alcStepStat* s = &d->stat;
    double tstart = alci_now();
    double h = sim->m->opt.timestep;
    s->alphaMin = 1;
    s->hMin = h;
    alctStatus st = stepSplit(sim, d, d->time, h, 0);
    if (st != ALC_OK) return st;
    s->time[ALC_TIMER_STEP] = alci_now() - tstart;
    alci_stepTimeOther(s);
    return ALC_OK;
}
