// One time step of the penalty-ds comparison model (issue 22, item 1): Ding and Schroeder's
// penalty contact with attachment points relaxed into the Coulomb cone, backward Euler solved by
// their merit-function Newton method with GMRES (papers/penalty-coulomb-friction-coupling.txt;
// the backend's dsStep has the loop, host/ref/penalty_ds_step_ref.c). This file sets it up from
// the scene's options, turns its counts into the step statistics (Newton = directions solved,
// CG = GMRES iterations, contacts = pairs below the surface) and warns where a step ends short.
//
// What it is not: penetration-free (the deepest contact is the statistic `penetration`, and
// `alcove check` reports, not requires, a clean state), nor converged by construction (a step
// may end at its Newton cap or at a line search that found no decrease: warned, counted as
// capped, the iterate kept, as D&S do). No rigid bodies (refused by alc_makeSim).
#include "alc_internal.h"

#include <math.h>
#include <string.h>

alctStatus alci_step_penaltyDs(alcSim* sim, alcData* d) {
    const alcModel* m = sim->m;
    const alcOption* o = &m->opt;
    const alciBackendOps* ops = sim->be.ops;
    void* be = sim->be.state;
    alcStepStat* s = &d->stat;
    if (!ops->dsStep) {
        return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                         "contact model 'penalty-ds' is not available on backend '%s' (use "
                         "--backend ref)",
                         ops->name);
    }
    double tstart = alci_now();
    double h = o->timestep;

    alciContactParams cp;
    memset(&cp, 0, sizeof cp);
    cp.mu = 1;
    cp.delta = o->delta;
    cp.decay = o->decay;
    cp.removeBelow = o->removeBelow;
    ops->setContactParams(be, &cp);  // friction 0: no lagged IPC friction in the elasticity

    alciStepInput in = alci_stepInput(sim, d, h);
    alctStatus st = ops->beginStep(be, &in);
    if (st != ALC_OK) return st;

    // the scales of the automatic k and tau: the free vertices' mass, the heaviest body's, and
    // the gravity
    double mfree = 0, mbody = 0;
    for (int b = 0; b < m->nbody; b++) {
        double mb = 0;
        for (int v = m->body_vertadr[b]; v < m->body_vertadr[b] + m->body_vertnum[b]; v++) {
            if (!sim->kinMask[v]) mb += m->vert_mass[v];
        }
        mfree += mb;
        mbody = mb > mbody ? mb : mbody;
    }
    double g = sqrt(o->gravity[0] * o->gravity[0] + o->gravity[1] * o->gravity[1] +
                    o->gravity[2] * o->gravity[2]);
    double accel = g > 1 ? g : 1;
    alciDsParams p;
    memset(&p, 0, sizeof p);
    p.k = o->dsK > 0 ? o->dsK : (mbody > 0 ? mbody : 1) * accel / (4 * o->delta);
    p.tol = o->dsTol > 0 ? o->dsTol : 1e-6 * (mfree > 0 ? mfree : 1) * accel * h;
    p.gmresTol = o->cgTol;
    p.gmresMax = o->dsGmresMax;
    p.maxNewton = o->dsMaxNewton;
    p.lsMaxIter = o->lsMaxIter;
    p.cholesky = o->dsPrecond == ALC_DS_PRECOND_CHOLESKY ||
                 (o->dsPrecond == ALC_DS_PRECOND_AUTO && alcu_directSolverAvailable());
    p.fraction = o->inversionFraction;
    p.allTets = o->inversion == ALC_INVERSION_ALL;
    p.nonInvertible = alci_hasNonInvertible(m);
    p.data = d;
    alciDsOut out;
    st = ops->dsStep(be, &p, &out);
    if (st == ALC_ERR_CANCELLED) return st;
    if (st != ALC_OK) {
        return ALC_ERROR(sim, st, "penalty-ds step %ld failed: %s", d->step + 1,
                         st == ALC_ERR_NOMEM ? "out of memory" : alcu_statusString(st));
    }
    s->outer = out.newton;
    s->newton = out.newton;
    s->cgTotal = out.gmresIters;
    s->cgMax = out.gmresMax;
    s->contactsMax = out.contactsMax;
    s->contactsSum = out.contactsSum;
    s->candidatesMax = out.candidatesMax;
    s->alphaSum = out.alphaSum;
    s->alphaMin = out.alphaMin;
    s->lineSearchFails = out.lsFails;
    s->mu = 0;
    s->delta = o->delta;
    s->beta = out.converged ? 0 : 1;
    s->penetration = out.penetration;
    s->time[ALC_TIMER_HESSIAN] = out.tAssemble;
    s->time[ALC_TIMER_PCG] = out.tSolve;
    s->time[ALC_TIMER_CCD] = out.tCcd;
    s->time[ALC_TIMER_LINESEARCH] = out.tLineSearch;
    if (out.candidatesMax > d->maxuse_candidates) d->maxuse_candidates = out.candidatesMax;
    if (!out.converged) {
        s->capped = 1;
        alci_warn(sim, d, ALC_WARN_AL_NOT_CONVERGED, out.newton,
                  "penalty-ds step ended unconverged (%s) after %d Newton iterations: |g| %.3g "
                  "N s, |H^T g| / dref %.3g N s, tolerance %.3g N s; the iterate is kept, as "
                  "Ding and Schroeder do",
                  out.lsFails ? "a line search found no decrease" : "at the Newton cap", out.newton,
                  out.residual, out.stationarity, p.tol);
    }
    alci_log(sim, 3,
             "step %ld: %d Newton iterations, %d GMRES (%d fallbacks, %d Cholesky failures), |g| "
             "%.3g N s, %d pairs "
             "(%d active, %d sliding, %d new, %d dropped), penetration %.3g m, Jacobian columns "
             "%ld (%ld one-sided, %ld dropped), k %.4g N/m",
             d->step + 1, out.newton, out.gmresIters, out.fallbacks, out.cholFallbacks,
             out.residual, out.pairs, out.active, out.dynamic, out.registered, out.pruned,
             out.penetration, out.jacColumns, out.jacOneSided, out.jacDropped, p.k);
    st = ops->endStep(be, d->x, d->v);
    if (st != ALC_OK) return st;
    s->hMin = h;
    s->time[ALC_TIMER_STEP] = alci_now() - tstart;
    alci_stepTimeOther(s);
    return ALC_OK;
}
