// One time step of the IPC barrier model (IPC paper Algorithm 1, papers/
// ipc-incremental-potential-contact.txt; constants from research/seeds-000-004.md §1.7-1.8),
// the baseline the AL method is compared with (`alcove bench --models al,ipc,penalty`). It
// shares every component with the AL step but the contact treatment: inertia, elasticity,
// assembly, PCG, CCD and the inversion filter are the same backend operations.
//
// Every iterate XHAT is intersection-free. Per Newton iteration:
//   - moving boundaries (digest §1.13): at the first iteration the kinematic vertices move
//     onto their targets if CCD allows the whole move; if not, their DOFs join the solve,
//     pulled to the targets by an augmented Lagrangian with stiffness rho (ipcBoundaryAl), so
//     the barrier pushes back what they approach; rho doubles while the progress eta falls
//     behind, the multipliers update when the subproblem has converged, and at eta > 0.999 the
//     DOFs are eliminated again (and moved onto the targets once CCD allows);
//   - friction (IPC §5) lagged from the barrier constraints at x^t, with the normal forces of
//     the previous step's stiffness;
//   - H, G of E + kappa B at XHAT (barrier blocks PSD-projected, Eq. 7), P = -H^-1 G by PCG;
//   - the step starts at the CCD bound along P (and the inversion bound) and halves until
//     E + kappa B decreases (Armijo constant 0), the constraint set rebuilt at each trial;
//   - kappa: IPC's gradient balance at the first iteration of the step, clamped to
//     [kappa_min, 100 kappa_min]; doubled when the closest pair is below 1e-9 l and still
//     approaching.
// It ends when the kinematic DOFs are eliminated again and ||P||_inf / h < eps_d
// (residual criterion), or, with ipcToiTerm, when the AL paper's cumulative step-size rule
// (Eq. 9 applied to the accepted step sizes) is met.
#include "alc_internal.h"
#include "hd/alcm_barrier.h"

#include <math.h>
#include <string.h>

// moving-boundary AL stiffness: initial and largest (IPC reference code, digest §1.13)
#define ALCI_IPC_RHO0    1e6
#define ALCI_IPC_RHO_MAX 1e8

/// IPC's kappa_min (digest §1.7): the barrier stiffness at d = 1e-8 l equals 1e11 times the
/// average nodal mass.
static double kappaMin(const alcModel* m, double dhat) {
    double mbar = alci_model_meanMass(m);
    double s0 = (1e-8 * m->diag) * (1e-8 * m->diag);
    if (s0 >= dhat * dhat) s0 = 1e-4 * dhat * dhat;
    return 1e11 * mbar / (4 * s0 * alcm_barrierD2(s0, dhat * dhat));
}

/// IPC settings that cannot work (issue 14), checked once per sim at its first IPC step, on
/// x^t: (1) dhat above the closest distance between surface primitives the barrier acts on
/// (pairs of distinct bodies or non-adjacent primitives of one body): the barrier starts
/// compressed and pushes them apart on its own, a launch with stiff materials; (2) a residual
/// stop eps_d above |g| h, the velocity gravity adds in one step: a body at rest ends its
/// steps before gravity has moved it. Warned (ALC_WARN_IPC_SETTING), not refused: bodies that
/// start touching have no dhat that avoids (1), and both are the IPC paper's own defaults.
static alctStatus checkSettings(alcSim* sim, alcData* d, double dhat, double epsd) {
    const alcModel* m = sim->m;
    const alcOption* o = &m->opt;
    sim->ipcChecked = 1;
    int ncon = 0;
    double min2 = 0;
    alctStatus st = sim->be.ops->syncXhat(sim->be.state);
    if (st == ALC_OK) st = sim->be.ops->ipcConstraints(sim->be.state, dhat, &ncon, &min2);
    if (st != ALC_OK) return st;
    if (ncon > 0) {
        alci_warn(sim, d, ALC_WARN_IPC_SETTING, 1,
                  "IPC dhat = %.4g m%s exceeds the closest initial distance %.4g m between "
                  "surface primitives it acts on (%d pairs within dhat at the start): the "
                  "barrier starts compressed and pushes them apart; set --ipc-dhat below %.4g m",
                  dhat, o->ipcDhat > 0 ? "" : " (default 1e-3 x scene diagonal)", sqrt(min2), ncon,
                  sqrt(min2));
    }
    double g = sqrt(o->gravity[0] * o->gravity[0] + o->gravity[1] * o->gravity[1] +
                    o->gravity[2] * o->gravity[2]);
    if (!o->ipcToiTerm && g > 0 && epsd > g * o->timestep) {
        sim->warnedOnce[ALC_WARN_IPC_SETTING] = 0;  // a different setting: log it too
        alci_warn(sim, d, ALC_WARN_IPC_SETTING, 2,
                  "IPC residual stop %.4g m/s%s is above g h = %.4g m/s, the velocity gravity "
                  "adds in one step: a body at rest may end every step without moving; set the "
                  "scene's ipc: {newton_tol} well below %.4g m/s (or --ipc-stop toi)",
                  epsd, o->ipcNewtonTol > 0 ? "" : " (default 1e-2 x scene diagonal per s)",
                  g * o->timestep, g * o->timestep);
    }
    return ALC_OK;
}

alctStatus alci_step_ipc(alcSim* sim, alcData* d) {
    const alcModel* m = sim->m;
    const alcOption* o = &m->opt;
    const alciBackendOps* ops = sim->be.ops;
    void* be = sim->be.state;
    alcStepStat* s = &d->stat;
    if (!ops->ipcAssemble) {
        return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                         "contact model 'ipc' is not available on backend '%s'", ops->name);
    }
    double tstart = alci_now();
    alciTimer t;
    alctStatus st;
    double h = o->timestep;
    sim->stepH = h;
    double dhat = o->ipcDhat > 0 ? o->ipcDhat : 1e-3 * m->diag;
    double epsd = o->ipcNewtonTol > 0 ? o->ipcNewtonTol : 1e-2 * m->diag;
    double kmin = kappaMin(m, dhat), kmax = 100 * kmin;
    double kappa = o->ipcKappa > 0 ? o->ipcKappa : kmin;
    int adaptive = !(o->ipcKappa > 0);
    int kminIter = o->kmin > 0 ? o->kmin : 2;
    double close2 = (1e-9 * m->diag) * (1e-9 * m->diag);
    int nonInvertible = alci_hasNonInvertible(m);
    int invAll = o->inversion == ALC_INVERSION_ALL;

    // no AL pairs: the AL terms of the shared operations vanish
    alciContactParams cp;
    memset(&cp, 0, sizeof cp);
    cp.mu = 1;
    cp.delta = o->delta;
    cp.decay = o->decay;
    cp.removeBelow = o->removeBelow;
    cp.penalty = 1;
    cp.friction = alci_frictionOn(m);
    cp.frictionEpsV = o->frictionEpsV;
    ops->setContactParams(be, &cp);
    ops->resetContacts(be);

    // kinematic rigid bodies: the poses their drivers fit, reached by the moving boundaries'
    // augmented Lagrangian below as kinematic vertices are (rigid IPC §4.4)
    alciStepInput in = alci_stepInput(sim, d, h);
    st = ops->beginStep(be, &in);
    if (st == ALC_OK && cp.friction) st = ops->ipcFrictionLag(be, dhat);
    if (st == ALC_OK && !sim->ipcChecked) st = checkSettings(sim, d, dhat, epsd);
    if (st != ALC_OK) return st;

    int kinDone = 0, kinAl = 0, k = 0;
    double beta = 1, prevMin2 = HUGE_VAL;
    double rho = ALCI_IPC_RHO0, eta = 0, eta0 = 0, lastResidual = HUGE_VAL;
    s->alphaMin = 1;
    for (;;) {
        st = alci_cancelled(sim, d, "Newton iteration", k);
        if (st != ALC_OK) return st;
        if (k >= o->maxIter) {
            s->capped = 1;
            alci_warn(sim, d, ALC_WARN_AL_NOT_CONVERGED, k,
                      "IPC step ended at the iteration cap (%d), residual %g m/s", k, s->residual);
            break;
        }
        // moving boundaries (digest §1.13)
        alci_tic(&t, &s->time[ALC_TIMER_CCD]);
        st = ALC_OK;
        if (!kinDone && kinAl) {
            st = ops->ipcBoundaryProgress(be, &eta);
            if (st == ALC_OK && eta > 1 - 1e-3) {
                st = ops->ipcBoundaryAl(be, 0, rho);  // eliminated again, then onto the targets
                kinAl = 0;
                kinDone = 1;
            } else if (eta < eta0 && rho < ALCI_IPC_RHO_MAX) {
                rho *= 2;  // losing ground to the barrier
            } else if (lastResidual < epsd) {
                // the subproblem has converged short of the targets
                if (eta < 0.99 && rho < ALCI_IPC_RHO_MAX)
                    rho *= 2;
                else
                    st = ops->ipcBoundaryUpdate(be);
            }
            if (st == ALC_OK && kinAl) st = ops->ipcBoundaryAl(be, 1, rho);
        }
        // at the first iteration, and after the AL has brought them close (until they arrive):
        // move the kinematic vertices onto their targets when CCD allows the whole move. A
        // partial move is not taken: it would leave gaps far below the barrier's equilibrium
        // that shrink step after step (seen on balls_press), which the solve cannot reopen.
        if (st == ALC_OK && !kinAl && (k == 0 || (kinDone && eta < 1))) {
            alciCollectOut cout;
            st = ops->ipcPlaceKinematic(be);
            if (st == ALC_OK) st = ops->collect(be, &cout);
            if (st == ALC_OK && cout.grown) {
                s->bufferGrows++;  // grown and redone: a statistic (issue 14)
                if (cout.grown > s->bufferCapacity) s->bufferCapacity = cout.grown;
            }
            double a = st == ALC_OK && cout.minToi >= 1 ? 1 : 0;
            if (st == ALC_OK && a > 0) st = ops->advance(be, a);
            if (st == ALC_OK) st = ops->ipcBoundaryProgress(be, &eta);
            if (st == ALC_OK && !kinDone) {
                if (a >= 1) {
                    kinDone = 1;
                } else {
                    eta0 = eta;  // short of the targets: the kinematic DOFs join the solve
                    kinAl = 1;
                    st = ops->ipcBoundaryAl(be, 1, rho);
                }
            }
        }
        if (st == ALC_OK) st = ops->syncXhat(be);
        int ncon = 0;
        double min2 = 0;
        if (st == ALC_OK) st = ops->ipcConstraints(be, dhat, &ncon, &min2);
        alci_toc(&t);
        if (st != ALC_OK) return st;

        // E + kappa B: gradient and projected Hessian, then the Newton direction
        alciAssembleOut aout;
        alci_tic(&t, &s->time[ALC_TIMER_HESSIAN]);
        st = ops->assembleElastic(be, &aout);
        if (st == ALC_OK) st = ops->ipcAssemble(be, dhat, &kappa, kmin, kmax, adaptive && k == 0);
        alci_toc(&t);
        if (st != ALC_OK) return st;
        if (aout.nblocks > d->maxuse_blocks) d->maxuse_blocks = aout.nblocks;
        s->contactsSum += ncon;
        if (ncon > s->contactsMax) s->contactsMax = ncon;
        if (ncon > d->maxuse_contacts) d->maxuse_contacts = ncon;

        alciSolveOut sout;
        st = alci_newtonSolve(sim, d, &sout);
        if (st != ALC_OK) return st;
        lastResidual = s->residual;
        if (kinDone && !o->ipcToiTerm && s->residual < epsd) break;

        // step bound: CCD along P and the inversion filter
        alci_tic(&t, &s->time[ALC_TIMER_CCD]);
        double toi = 1, rmax = 1;
        st = ops->ipcStepBound(be, &toi);
        // (with rigid bodies: no Newton step turns one by more than a quarter turn's half)
        if (st == ALC_OK && (nonInvertible || invAll || m->nrigid > 0))
            st = ops->lineSearchBound(be, o->inversionFraction, invAll, &rmax);
        alci_toc(&t);
        if (st != ALC_OK) return st;
        double r = toi < rmax ? toi : rmax;

        // backtracking on E + kappa B (IPC Alg. 1: halve until it does not increase)
        alci_tic(&t, &s->time[ALC_TIMER_LINESEARCH]);
        double E0 = 0, E = 0, trialMin2 = 0;
        st = ops->ipcEnergy(be, 0, dhat, kappa, &E0, &trialMin2);
        int accepted = 0;
        for (int ls = 0; st == ALC_OK && ls < o->lsMaxIter; ls++) {
            st = ops->ipcEnergy(be, r, dhat, kappa, &E, &trialMin2);
            if (st != ALC_OK) break;
            if (E <= E0 + 1e-13 * fabs(E0)) {
                accepted = 1;
                break;
            }
            r *= 0.5;
        }
        int flips = 0;
        if (st == ALC_OK && accepted) st = ops->stepXhat(be, r, &flips);
        if (st == ALC_OK && accepted) st = ops->advance(be, 1.0);  // X := XHAT
        alci_toc(&t);
        if (st != ALC_OK) return st;
        if (!accepted) {
            r = 0;
            if (sout.gDotP < -1e-10 * fabs(E0) && sout.pInf > 1e-10 * m->diag) {
                s->lineSearchFails++;
                alci_warn(sim, d, ALC_WARN_LINESEARCH, k,
                          "IPC line search found no decrease after %d halvings", o->lsMaxIter);
            }
            if (kinDone) break;
        }
        alci_log(sim, 3,
                 "step %ld ipc iter %d: alpha %.3e (toi %.3e), constraints %d (closest %.3e m), "
                 "kappa %.4g, residual %.3e m/s, boundary progress %.6f%s (rho %.3g)",
                 d->step + 1, k + 1, r, toi, ncon, sqrt(min2), kappa, s->residual, eta,
                 kinAl ? " under AL" : "", rho);
        k++;
        s->alphaSum += r;
        if (r < s->alphaMin) s->alphaMin = r;

        // kappa doubles while the closest pair is tiny and still approaching (digest §1.7)
        if (adaptive && accepted && trialMin2 < close2 && prevMin2 < close2 && trialMin2 < prevMin2)
            kappa = 2 * kappa < kmax ? 2 * kappa : kmax;
        prevMin2 = accepted ? trialMin2 : min2;

        // the AL paper's cumulative step-size termination ("w/ TOI-term")
        if (o->ipcToiTerm) {
            if (k >= kminIter) beta *= 1 - r;
            if (kinDone && beta <= o->epsilon) break;
        }
    }
    if (kinAl) {
        st = ops->ipcBoundaryAl(be, 0, rho);
        if (st != ALC_OK) return st;
    }
    if (eta < 1) {
        alci_warn(sim, d, ALC_WARN_KINEMATIC_BLOCKED, (int)(1000 * eta),
                  "IPC step ended with the kinematic vertices short of their targets (progress "
                  "%.4f)",
                  eta);
    }
    s->outer = k;
    s->beta = beta;
    s->mu = kappa;
    s->delta = dhat;

    // the barrier constraints at the step's end, for the contact report (alc_getContacts) and
    // the energy check's account of the work of moving boundaries through them
    st = ops->syncXhat(be);
    int nend = 0;
    double minEnd2 = 0;
    if (st == ALC_OK) st = ops->ipcConstraints(be, dhat, &nend, &minEnd2);
    if (st != ALC_OK) return st;
    st = ops->endStep(be, d->x, d->v);
    if (st != ALC_OK) return st;
    s->time[ALC_TIMER_STEP] = alci_now() - tstart;
    alci_stepTimeOther(s);
    return ALC_OK;
}
