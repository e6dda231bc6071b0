// The simulator object: creation on a backend, the step entry point, contact reports.
#include "alc_internal.h"
#include "hd/alcm_penalty_ds_mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define ALC_DEF_VERSION_SHIFT 8

alcSimDef alc_defaultSimDef(void) {
    alcSimDef d;
    memset(&d, 0, sizeof d);
    d.backend = ALC_BACKEND_AUTO;
    d.device = 0;
    d.threads = 0;
    d.capacity.contactPairs = 0;
    d.capacity.candidates = 0;
    d.capacity.growOnOverflow = 1;
    d.log = NULL;
    d.user = NULL;
    d.verbosity = 1;
    // the stamp carries the header version so alc_makeSim can refuse a mismatch
    d.internalValue = ALC_DEF_STAMP ^ (ALC_VERSION_HEADER << ALC_DEF_VERSION_SHIFT);
    return d;
}

alcLoadDef alc_defaultLoadDef(void) {
    alcLoadDef d;
    memset(&d, 0, sizeof d);
    d.internalValue = ALC_DEF_STAMP;
    return d;
}

#if !ALC_WITH_CUDA
int alcu_cudaAvailable(void) {
    return 0;
}
int alcu_cudaDescribe(int device, char* buf, size_t n) {
    (void)device;
    if (buf && n > 0) buf[0] = 0;
    return 0;
}
alctStatus alcg_backend_make(alcSim* sim, alciBackend* out) {
    (void)out;
    return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                     "this build of alcove has no CUDA backend (built with CUDA=0)");
}
int alcg_backend_complete(void) {
    return 0;
}
int alcg_device_emulated(void) {
    return 0;
}
#endif

static alctStatus checkModel(alcSim* sim, const alcModel* m) {
    if (m->nvert <= 0 || m->nbody <= 0 || !m->buffer) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "model is empty or not compiled");
    }
    return ALC_OK;
}

/// The reference backend's thread count: def.threads, or the cores OpenMP would use that the
/// rest of the machine leaves idle now (sampled over 30 ms), never more than one per 1024
/// tetrahedra and contact primitives: a small problem does not pay for a team it cannot feed.
static void chooseThreads(alcSim* sim) {
#ifdef _OPENMP
    int cores = omp_get_max_threads();
#else
    int cores = 1;
#endif
    if (sim->def.threads > 0) {
        sim->threads = sim->def.threads;
        return;
    }
    const alcModel* m = sim->m;
    long work = (long)m->ntet + m->nsvert + m->nedge + m->ntri;
    int byWork = (int)(work / 1024) > 1 ? (int)(work / 1024) : 1;
    int n = cores < byWork ? cores : byWork;
    if (n > 1) n = alci_idleCores(n, 0.03);
    sim->threads = n;
}

/// The penalty-ds model walks its attachments over the surface: it must be a consistently
/// oriented manifold (hd/alcm_penalty_ds_mesh.h).
static alctStatus checkDsSurface(alcSim* sim, const alcModel* m) {
    size_t nt = m->ntri > 0 ? (size_t)m->ntri : 1;
    int* buf = (int*)malloc(sizeof(int) * (9 * nt + (size_t)m->nvert + 1));
    if (!buf) return ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory");
    int rc = alcm_ds_meshAdjacency(m->tri_vert, m->ntri, m->nvert, buf, buf + 3 * nt,
                                   buf + 3 * nt + m->nvert + 1, buf + 6 * nt + m->nvert + 1);
    free(buf);
    if (rc == ALCM_DS_MESH_OK) return ALC_OK;
    return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                     "contact model 'penalty-ds' needs every body's surface to be a consistently "
                     "oriented manifold: %s",
                     rc == ALCM_DS_MESH_NONMANIFOLD ? "an edge is shared by more than two triangles"
                     : rc == ALCM_DS_MESH_ORIENTATION
                         ? "two triangles run along a shared edge the same way"
                         : "a triangle repeats a vertex or names one out of range");
}

alctStatus alc_makeSim(const alcModel* m, const alcSimDef* def, alcSim** out) {
    if (!m || !def || !out) return ALC_ERR_INVALID_ARG;
    *out = NULL;
    alcSim* sim = (alcSim*)calloc(1, sizeof(alcSim));
    if (!sim) return ALC_ERR_NOMEM;
    *out = sim;
    sim->m = m;
    sim->def = *def;
    int stamp = def->internalValue ^ ALC_DEF_STAMP;
    if ((stamp & ((1 << ALC_DEF_VERSION_SHIFT) - 1)) != 0) {
        return ALC_ERROR(sim, ALC_ERR_BAD_DEF, "sim def not made by alc_defaultSimDef");
    }
    if ((stamp >> ALC_DEF_VERSION_SHIFT) != alcu_version()) {
        return ALC_ERROR(sim, ALC_ERR_VERSION, "header version %d, library version %d",
                         stamp >> ALC_DEF_VERSION_SHIFT, alcu_version());
    }
    alctStatus st = checkModel(sim, m);
    if (st != ALC_OK) return st;
    if (m->opt.contact == ALC_CONTACT_MLCP_CR || m->opt.contact == ALC_CONTACT_PENALTY_DS) {
        // what the comparison models do not have (issue 22): refused with the reason rather
        // than run without it
        const char* name = m->opt.contact == ALC_CONTACT_MLCP_CR ? "mlcp-cr" : "penalty-ds";
        if (m->nrigid > 0) {
            return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                             "contact model '%s' has no rigid bodies (the model has %d); "
                             "use --contact al or ipc",
                             name, m->nrigid);
        }
        if (def->backend == ALC_BACKEND_CUDA) {
            return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                             "contact model '%s' runs on the reference backend only "
                             "(--backend ref)",
                             name);
        }
        if (m->opt.contact == ALC_CONTACT_PENALTY_DS) {
            st = checkDsSurface(sim, m);
            if (st != ALC_OK) return st;
        }
    }
    if (m->opt.tetGuards > 0) {
        // the guards live in the active set of either backend (host/ref/contact_ref.c,
        // cuda/backend_cuda.cu)
        if (m->opt.contact != ALC_CONTACT_AL && m->opt.contact != ALC_CONTACT_PENALTY) {
            return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                             "tet_guards needs the 'al' or 'penalty' contact model (the guards "
                             "are constraints of its subproblem)");
        }
        if (m->nrigid > 0) {
            return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                             "tet_guards has no rigid bodies yet (the model has %d)", m->nrigid);
        }
    }
    if (def->backend < ALC_BACKEND_AUTO || def->backend > ALC_BACKEND_CUDA) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "unknown backend %d", def->backend);
    }
    if (def->capacity.contactPairs < 0 || def->capacity.candidates < 0 || def->threads < 0) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "negative capacity or thread count");
    }
    sim->kinMask = (unsigned char*)calloc((size_t)m->nvert, 1);
    sim->kinTarget = (double*)calloc((size_t)m->nvert * 3, sizeof(double));
    sim->rigidKin = (unsigned char*)calloc((size_t)m->nrigid + 1, 1);
    sim->rigidTarget = (double*)calloc((size_t)m->nrigid * 6 + 1, sizeof(double));
    if (!sim->kinMask || !sim->kinTarget || !sim->rigidKin || !sim->rigidTarget) {
        return ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory");
    }

    int backend = def->backend;
    if (backend == ALC_BACKEND_AUTO) {
        // a real device with a backend that runs the whole step; never the emulation; and
        // only for what the CUDA backend runs (not the IPC model, a direct linear solver, the
        // reuse of the Hessian nor rigid bodies)
        int cuda = alcu_cudaAvailable() && alcg_backend_complete() && !alcg_device_emulated() &&
                   m->opt.contact != ALC_CONTACT_IPC && m->opt.contact != ALC_CONTACT_MLCP_CR &&
                   m->opt.contact != ALC_CONTACT_PENALTY_DS &&
                   m->opt.linearSolver == ALC_LINSOLVE_PCG && !m->opt.hessianReuse &&
                   m->nrigid == 0;
        backend = cuda ? ALC_BACKEND_CUDA : ALC_BACKEND_REF;
    }
    sim->backend = backend;
    if (backend == ALC_BACKEND_REF) chooseThreads(sim);
    if (backend == ALC_BACKEND_CUDA) {
        st = alcg_backend_make(sim, &sim->be);
        if (st == ALC_OK) {
            alcu_cudaDescribe(sim->def.device, sim->deviceName, sizeof sim->deviceName);
        }
    } else {
        st = alcr_backend_make(sim, &sim->be);
    }
    if (st != ALC_OK) {
        sim->be.ops = NULL;
        return st;
    }
    // friction is 0 unless set: a gripper commanded by a controller cannot hold anything then
    int external = 0;
    for (int i = 0; i < m->ndriver; i++) external |= m->driver_type[i] == ALC_DRIVER_EXTERNAL;
    if (external && m->opt.contact != ALC_CONTACT_NONE && !alci_frictionOn(m)) {
        alci_log(sim, 1,
                 "warning: the model has externally driven bodies but no friction anywhere "
                 "(friction is 0 unless set): driven bodies cannot hold or push anything "
                 "tangentially; set alcMaterialDef.friction, alc_specSetFriction or "
                 "alcOption.frictionDefault");
    }
    // penalty_ds's `auto` preconditioner without CHOLMOD: GMRES on block Jacobi caps Newton on
    // stiff contacts and rolled the incline's ball 13 % slow (tests/test_validation.c)
    if (m->opt.contact == ALC_CONTACT_PENALTY_DS && m->opt.dsPrecond == ALC_DS_PRECOND_AUTO &&
        !alcu_directSolverAvailable()) {
        alci_log(sim, 1,
                 "warning: penalty_ds's GMRES is preconditioned by block Jacobi: this build has "
                 "no CHOLMOD for the Cholesky preconditioner (install libsuitesparse-dev and "
                 "rebuild); on stiff contacts Newton may reach its cap, and rolling is slowed");
    }
    return ALC_OK;
}

void alc_deleteSim(alcSim* sim) {
    if (!sim) return;
    if (sim->be.ops && sim->be.ops->destroy) sim->be.ops->destroy(sim->be.state);
    free(sim->kinMask);
    free(sim->kinTarget);
    free(sim->rigidKin);
    free(sim->rigidTarget);
    free(sim->contacts);
    free(sim->energyBuf);
    free(sim);
}

alctBackend alc_simBackend(const alcSim* sim) {
    return sim ? (alctBackend)sim->backend : ALC_BACKEND_AUTO;
}

const char* alc_simBackendName(const alcSim* sim) {
    if (!sim) return "none";
    if (sim->backend != ALC_BACKEND_CUDA) return "ref";
    return alcg_device_emulated() ? "cuda-emulated" : "cuda";
}

const char* alc_simDeviceName(const alcSim* sim) {
    return sim ? sim->deviceName : "";
}

int alc_simThreads(const alcSim* sim) {
    return sim ? sim->threads : 0;
}

size_t alc_simMemory(const alcSim* sim) {
    if (!sim || !sim->be.ops || !sim->be.ops->memory) return 0;
    return sim->be.ops->memory(sim->be.state);
}

alctStatus alc_bodyPairForce(alcSim* sim, int a, int b, double force[3]) {
    if (!sim || !force) return ALC_ERR_INVALID_ARG;
    force[0] = force[1] = force[2] = 0;
    if (a < 0 || b < 0 || a >= sim->m->nbody || b >= sim->m->nbody) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "body %d or %d out of range [0, %d)", a, b,
                         sim->m->nbody);
    }
    const alcContact* c = NULL;
    int n = 0;
    alctStatus st = alc_getContacts(sim, &c, &n);
    if (st != ALC_OK || a == b) return st;
    for (int i = 0; i < n; i++) {
        double sign = c[i].body[0] == a && c[i].body[1] == b   ? 1
                      : c[i].body[0] == b && c[i].body[1] == a ? -1
                                                               : 0;
        if (sign == 0) continue;
        for (int k = 0; k < 3; k++)
            force[k] += sign * (c[i].normalForce * c[i].normal[k] + c[i].frictionForce[k]);
    }
    return ALC_OK;
}

const char* alc_lastError(const alcSim* sim) {
    return sim ? sim->error : "";
}

// The request flag is written and consumed with atomic builtins (lock-free on an int, so also
// async-signal-safe): another thread's request is neither torn nor lost.
void alc_cancelStep(alcSim* sim) {
    if (sim) __atomic_store_n(&sim->cancel, 1, __ATOMIC_RELEASE);
}

alctStatus alci_cancelled(alcSim* sim, const alcData* d, const char* where, int k) {
    if (!__atomic_exchange_n(&sim->cancel, 0, __ATOMIC_ACQ_REL)) return ALC_OK;
    return ALC_ERROR(sim, ALC_ERR_CANCELLED,
                     "step %ld cancelled (alc_cancelStep) before %s %d; the data is that of step "
                     "%ld",
                     d->step + 1, where, k + 1, d->step);
}

void alc_resetContacts(alcSim* sim) {
    if (sim && sim->be.ops && sim->be.ops->resetContacts) sim->be.ops->resetContacts(sim->be.state);
}

/// Accumulate the step statistics into the run statistics.
static void accumulate(alcData* d) {
    const alcStepStat* s = &d->stat;
    alcRunStat* r = &d->run;
    r->steps++;
    r->outer += s->outer;
    r->newton += s->newton;
    if (s->newton > r->newtonMax) r->newtonMax = s->newton;
    r->cgTotal += s->cgTotal;
    r->directSolves += s->directSolves;
    if (s->cgMax > r->cgMax) r->cgMax = s->cgMax;
    r->contactsSum += s->contactsSum;
    if (s->contactsMax > r->contactsMax) r->contactsMax = s->contactsMax;
    r->alphaSum += s->alphaSum;
    r->capped += s->capped;
    r->muIncreases += s->muIncreases;
    r->bufferGrows += s->bufferGrows;
    r->splits += s->splits;
    r->stepsSplit += s->splits > 0;
    r->guards += s->guards;
    if (s->bufferCapacity > r->bufferCapacity) r->bufferCapacity = s->bufferCapacity;
    if (s->time[ALC_TIMER_STEP] > r->timeMax) r->timeMax = s->time[ALC_TIMER_STEP];
    if (s->penetration > r->penetrationMax) r->penetrationMax = s->penetration;
    for (int i = 0; i < ALC_NTIMER; i++) r->time[i] += s->time[i];
}

alctStatus alc_step(alcSim* sim, alcData* d) {
    if (!sim) return ALC_ERR_INVALID_ARG;
    if (!d) return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "data is NULL");
    if (!sim->be.ops) return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "sim has no backend");
    const alcModel* m = sim->m;
    if (d->nvert != m->nvert || d->nbody != m->nbody || d->ndriver != m->ndriver) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "data was made for a different model");
    }
    // refuse a state holding NaN/Inf (MuJoCo mj_checkPos style), before touching anything
    for (int i = 0; i < 3 * m->nvert; i++) {
        if (!isfinite(d->x[i]) || !isfinite(d->v[i])) {
            alci_warn(sim, d, ALC_WARN_BAD_STATE, i / 3, "vertex %d has a non-finite state", i / 3);
            return ALC_ERROR(sim, ALC_ERR_NUMERIC,
                             "vertex %d has a non-finite position or "
                             "velocity; the step was not taken",
                             i / 3);
        }
    }
    double h = m->opt.timestep;
    // drivers whose body has passed its release plane let go from this step on (IPC's
    // dragright: once the whole mesh is right of every collision object)
    for (int k = 0; k < m->ndriver; k++) {
        if (d->driver_released[k] || !alci_driver_pastPlane(m, d->x, k)) continue;
        d->driver_released[k] = 1;
        alci_log(sim, 2, "step %ld: driver '%s' released: its body is past its release plane",
                 d->step + 1, m->names + m->driver_nameadr[k]);
    }
    // kinematic targets at the end of the step
    alci_driver_eval(m, d->time + h, d->driver_external, d->driver_released, d->kin_target,
                     sim->kinMask);
    for (int v = 0; v < m->nvert; v++) {
        if (!sim->kinMask[v]) continue;
        const double* t = d->kin_target + 3 * v;
        if (!isfinite(t[0]) || !isfinite(t[1]) || !isfinite(t[2])) {
            return ALC_ERROR(sim, ALC_ERR_NUMERIC, "kinematic target of vertex %d is not finite",
                             v);
        }
    }
    alcStepStat lastStat = d->stat;
    memset(&d->stat, 0, sizeof d->stat);
    alci_energy_begin(sim, d);
    alctStatus st;
    sim->stepping = 1;  // warnings raised now belong to step d->step + 1
    if (m->opt.contact == ALC_CONTACT_IPC) {
        st = alci_step_ipc(sim, d);
    } else if (m->opt.contact == ALC_CONTACT_MLCP_CR) {
        st = alci_step_mlcp(sim, d);
    } else if (m->opt.contact == ALC_CONTACT_PENALTY_DS) {
        st = alci_step_penaltyDs(sim, d);
    } else {
        st = alci_step_al(sim, d);
    }
    sim->stepping = 0;
    if (st == ALC_ERR_CANCELLED) d->stat = lastStat;  // the data of the last completed step
    if (st != ALC_OK) return st;
    // t += h with Kahan's compensation: 20 steps of 0.01 s end at 0.2, not 0.20000000000000004
    // (a time set by the caller starts the compensation afresh)
    if (d->time != sim->timeLast) sim->timeComp = 0;
    double y = h - sim->timeComp, t = d->time + y;
    sim->timeComp = (t - d->time) - y;
    d->time = t;
    sim->timeLast = t;
    d->step++;
    accumulate(d);
    // contact report
    if (!sim->contacts || sim->contactCap < sim->be.ops->nactive(sim->be.state)) {
        int cap = sim->be.ops->nactive(sim->be.state);
        if (cap < 64) cap = 64;
        alcContact* c = (alcContact*)realloc(sim->contacts, sizeof(alcContact) * (size_t)cap);
        if (!c) return ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory for the contact report");
        sim->contacts = c;
        sim->contactCap = cap;
    }
    st = sim->be.ops->contacts(sim->be.state, sim->contacts, sim->contactCap, &sim->ncontact,
                               d->body_force);
    if (st != ALC_OK) return st;
    alci_energy_end(sim, d);
    if (sim->be.ops->memory) {
        size_t mem = sim->be.ops->memory(sim->be.state);
        if (mem > d->maxuse_memory) d->maxuse_memory = mem;
    }
    return ALC_OK;
}

alctStatus alc_getContacts(alcSim* sim, const alcContact** contacts, int* n) {
    if (!sim || !contacts || !n) return ALC_ERR_INVALID_ARG;
    *contacts = sim->contacts;
    *n = sim->ncontact;
    return ALC_OK;
}
