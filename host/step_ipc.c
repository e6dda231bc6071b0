// One time step of the IPC barrier model (IPC paper Algorithm 1, papers/
// ipc-incremental-potential-contact.txt; constants from research/seeds-000-004.md §1.7-1.8),
// the baseline the AL method is compared with (`alcove bench --models al,ipc,penalty`). It
// shares every component with the AL step but the contact treatment: inertia, elasticity,
// assembly, PCG, CCD and the inversion filter are the same backend operations.
//
// Every iterate XHAT is intersection-free. Per Newton iteration:
//   - kinematic vertices not yet at their targets advance toward them as far as CCD allows
//     (the barrier then pushes what they approach away in the solve that follows);
//   - H, G of E + kappa B at XHAT (barrier blocks PSD-projected, Eq. 7), P = -H^-1 G by PCG;
//   - the step starts at the CCD bound along P (and the inversion bound) and halves until
//     E + kappa B decreases (Armijo constant 0), the constraint set rebuilt at each trial;
//   - kappa: IPC's gradient balance at the first iteration of the step, clamped to
//     [kappa_min, 100 kappa_min]; doubled when the closest pair is below 1e-9 l and still
//     approaching.
// It ends when the kinematic vertices are at their targets and ||P||_inf / h < eps_d
// (residual criterion), or, with ipcToiTerm, when the AL paper's cumulative step-size rule
// (Eq. 9 applied to the accepted step sizes) is met.
#include "alc_internal.h"
#include "hd/alcm_barrier.h"

#include <math.h>
#include <string.h>

/// IPC's kappa_min (digest §1.7): the barrier stiffness at d = 1e-8 l equals 1e11 times the
/// average nodal mass.
static double kappaMin(const alcModel* m, double dhat) {
    double mass = 0;
    int n = 0;
    for (int i = 0; i < m->nvert; i++) {
        if (m->vert_mass[i] > 0) {
            mass += m->vert_mass[i];
            n++;
        }
    }
    double mbar = n ? mass / n : 1;
    double s0 = (1e-8 * m->diag) * (1e-8 * m->diag);
    if (s0 >= dhat * dhat) s0 = 1e-4 * dhat * dhat;
    return 1e11 * mbar / (4 * s0 * alcm_barrierD2(s0, dhat * dhat));
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
    double dhat = o->ipcDhat > 0 ? o->ipcDhat : 1e-3 * m->diag;
    double epsd = o->ipcNewtonTol > 0 ? o->ipcNewtonTol : 1e-2 * m->diag;
    double kmin = kappaMin(m, dhat), kmax = 100 * kmin;
    double kappa = o->ipcKappa > 0 ? o->ipcKappa : kmin;
    int adaptive = !(o->ipcKappa > 0);
    int kminIter = o->kmin > 0 ? o->kmin : 2;
    double close2 = (1e-9 * m->diag) * (1e-9 * m->diag);
    int nonInvertible = 0;
    for (int b = 0; b < m->nbody; b++) {
        nonInvertible |=
            m->body_type[b] == ALC_BODY_SOLID && m->mat_model[m->body_mat[b]] == ALC_MAT_NEOHOOKEAN;
    }
    int invAll = o->inversion == ALC_INVERSION_ALL;

    // no AL pairs: the AL terms of the shared operations vanish
    alciContactParams cp;
    memset(&cp, 0, sizeof cp);
    cp.mu = 1;
    cp.delta = o->delta;
    cp.decay = o->decay;
    cp.removeBelow = o->removeBelow;
    cp.penalty = 1;
    ops->setContactParams(be, &cp);
    ops->resetContacts(be);

    alciStepInput in;
    in.x = d->x;
    in.v = d->v;
    in.kinTarget = d->kin_target;
    in.kinMask = sim->kinMask;
    in.h = h;
    in.gravity = o->gravity;
    st = ops->beginStep(be, &in);
    if (st != ALC_OK) return st;

    int kinDone = 0, k = 0;
    double beta = 1, prevMin2 = INFINITY;
    s->alphaMin = 1;
    for (;;) {
        if (k >= o->maxIter) {
            s->capped = 1;
            alci_warn(sim, d, ALC_WARN_AL_NOT_CONVERGED, k,
                      "IPC step ended at the iteration cap (%d), residual %g m/s", k, s->residual);
            break;
        }
        // kinematic vertices toward their targets, as far as CCD allows
        alci_tic(&t, &s->time[ALC_TIMER_CCD]);
        if (!kinDone) {
            alciCollectOut cout;
            st = ops->ipcPlaceKinematic(be);
            if (st == ALC_OK) st = ops->collect(be, &cout);
            double a = st == ALC_OK ? (cout.minToi < 1 ? cout.minToi : 1) : 0;
            if (st == ALC_OK) st = ops->advance(be, a);
            kinDone = a >= 1;
        }
        if (st == ALC_OK) st = ops->ipcSyncXhat(be);
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
        if (kinDone && !o->ipcToiTerm && s->residual < epsd) break;

        // step bound: CCD along P and the inversion filter
        alci_tic(&t, &s->time[ALC_TIMER_CCD]);
        double toi = 1, rmax = 1;
        st = ops->ipcStepBound(be, &toi);
        if (st == ALC_OK && (nonInvertible || invAll))
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
                 "step %ld ipc iter %d: alpha %.3e (toi %.3e), constraints %d, kappa %.4g, "
                 "residual %.3e m/s",
                 d->step + 1, k + 1, r, toi, ncon, kappa, s->residual);
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
    s->outer = k;
    s->beta = beta;
    s->mu = kappa;
    s->delta = dhat;

    st = ops->endStep(be, d->x, d->v);
    if (st != ALC_OK) return st;
    s->time[ALC_TIMER_STEP] = alci_now() - tstart;
    s->time[ALC_TIMER_OTHER] = s->time[ALC_TIMER_STEP] - s->time[ALC_TIMER_HESSIAN] -
                               s->time[ALC_TIMER_PCG] - s->time[ALC_TIMER_CCD] -
                               s->time[ALC_TIMER_LINESEARCH];
    if (s->time[ALC_TIMER_OTHER] < 0) s->time[ALC_TIMER_OTHER] = 0;
    return ALC_OK;
}
