// One time step of the mlcp-cr comparison model (issue 22, item 2): Verschoor and Jalba's
// per-step mixed LCP, linearly implicit elasticity solved with the contact constraints by
// active-set conjugate residual, constraints re-linearized and CCD run on the candidates until
// the end state holds every constraint (papers/mlcp-conjugate-residual-collision-response.txt,
// Algorithm 1; the backend's mlcpStep has the loop, host/ref/mlcp_step_ref.c). This file sets
// it up from the scene's options, turns its counts into the step statistics (Newton = QP
// solves, CG = CR iterations, outer = rounds) and warns where a step ends short.
//
// Friction is V&J's (§3.1, Algorithm 3): static contacts hold their slip over the step at zero,
// kinetic ones carry mu times a smoothed normal multiplier along a direction turned towards the
// slip (host/ref/mlcp_cr.h). What it is not: it has no rigid bodies (alc_makeSim refuses them
// with the reason), and no Newton iterations on the elasticity: a step with
// large rotations or stiff materials is solved on the quadratic model at its start (V&J's
// limitation that the IPC paper notes).
#include "alc_internal.h"

#include <string.h>

alctStatus alci_step_mlcp(alcSim* sim, alcData* d) {
    const alcModel* m = sim->m;
    const alcOption* o = &m->opt;
    const alciBackendOps* ops = sim->be.ops;
    void* be = sim->be.state;
    alcStepStat* s = &d->stat;
    if (!ops->mlcpStep) {
        return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                         "contact model 'mlcp-cr' is not available on backend '%s' (use --backend "
                         "ref)",
                         ops->name);
    }
    double tstart = alci_now();
    double h = o->timestep;

    alciContactParams cp;
    memset(&cp, 0, sizeof cp);
    cp.mu = 1;  // no AL energy is evaluated; the contact report reads the multipliers
    cp.delta = o->delta;
    cp.decay = o->decay;
    cp.removeBelow = o->removeBelow;
    ops->setContactParams(be, &cp);

    alciStepInput in = alci_stepInput(sim, d, h);
    alctStatus st = ops->beginStep(be, &in);
    if (st != ALC_OK) return st;

    alciMlcpParams p;
    memset(&p, 0, sizeof p);
    p.precond = o->mlcpPrecond;
    p.maxRounds = o->maxIter;
    int dofs = 3 * m->nvert;
    p.maxCr = o->cgMaxIter > 0 ? o->cgMaxIter : (3 * dofs < 20000 ? 3 * dofs : 20000);
    if (p.maxCr < 100) p.maxCr = 100;
    p.gapTol = o->mlcpGapTol * o->delta;
    p.fraction = o->inversionFraction;
    p.allTets = o->inversion == ALC_INVERSION_ALL;
    p.nonInvertible = alci_hasNonInvertible(m);
    p.duplicates = o->mlcpDuplicates;
    p.friction = alci_frictionOn(m);
    p.thetaTol = o->mlcpThetaTol * 3.14159265358979323846 / 180;  // degrees to radians
    p.thetaRate = o->mlcpThetaRate;
    p.data = d;
    alciMlcpOut out;
    st = ops->mlcpStep(be, &p, &out);
    if (st == ALC_ERR_CANCELLED) return st;
    if (st != ALC_OK) {
        return ALC_ERROR(sim, st, "mlcp-cr step %ld failed: %s", d->step + 1,
                         st == ALC_ERR_NOMEM ? "out of memory" : alcu_statusString(st));
    }
    s->outer = out.rounds;
    s->newton = out.rounds;
    s->cgTotal = out.crIters;
    s->cgMax = out.crMax;
    s->contactsMax = out.contactsMax;
    s->contactsSum = out.contactsSum;
    s->candidatesMax = out.candidatesMax;
    s->alphaSum = out.alphaSum;
    s->alphaMin = out.alphaMin;
    s->mu = 0;
    s->delta = o->delta;
    s->beta = out.converged ? 0 : 1;
    s->time[ALC_TIMER_HESSIAN] = out.tAssemble;
    s->time[ALC_TIMER_PCG] = out.tSolve;
    s->time[ALC_TIMER_CCD] = out.tCcd;
    s->bufferGrows += out.bufferGrows;
    if (out.candidatesMax > d->maxuse_candidates) d->maxuse_candidates = out.candidatesMax;
    if (out.contactsMax > d->maxuse_contacts) d->maxuse_contacts = out.contactsMax;
    if (!out.converged) {
        s->capped = 1;
        if (out.crFailed) {
            alci_warn(sim, d, ALC_WARN_AL_NOT_CONVERGED, out.rounds,
                      "mlcp-cr step ended short of the MLCP's solution: its conjugate residual "
                      "solve reached its cap (%d iterations) further from a solution than it "
                      "started (constraint states cycling), in round %d; the state is the last "
                      "intersection-free one (largest contact violation %.3g m)",
                      p.maxCr, out.rounds, out.violation);
        } else {
            alci_warn(sim, d, ALC_WARN_AL_NOT_CONVERGED, out.rounds,
                      "mlcp-cr step ended at the round cap (%d) short of the MLCP's solution: %d "
                      "advances cut by CCD or the inversion bound, %d re-linearizations, largest "
                      "contact violation %.3g m (the state is intersection-free)",
                      out.rounds, out.advances, out.relinearized, out.violation);
        }
    }
    alci_log(
        sim, 3,
        "step %ld: %d rounds (%d advances, %d re-linearizations), %d CR iterations (%d "
        "solves at their cap of %d), %d pairs (%d sliding, %d sticking, %d stick-slip switches), "
        "violation %.3g m",
        d->step + 1, out.rounds, out.advances, out.relinearized, out.crIters, out.crCapped, p.maxCr,
        out.contactsMax, out.kinetic, out.sticking, out.frictionSwitches, out.violation);
    st = ops->endStep(be, d->x, d->v);
    if (st != ALC_OK) return st;
    s->hMin = h;
    s->time[ALC_TIMER_STEP] = alci_now() - tstart;
    alci_stepTimeOther(s);
    return ALC_OK;
}
