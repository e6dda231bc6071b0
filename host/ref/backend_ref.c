// The CPU reference backend: operation table and the simple vector operations of a step.
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "hd/alcm_kincarry.h"
#include "hd/alcm_vec.h"
#include "ref/backend_ref.h"
#include "ref/direct_ref.h"
#include "ref/pcg_ref.h"
#include "ref/vec_ref.h"

/// Run the body of an operation with the sim's thread count (OpenMP's nthreads ICV belongs to
/// the calling thread, so this does not touch other threads of the process). The count is
/// def.threads, or with the default the cores that were idle when the sim was made
/// (alc_simThreads): two threads beside a busy core took fine_sphere 11.4 s where one took 6.3 s
/// (issue 16).
typedef struct {
    int old;
} ThreadScope;

static ThreadScope enterThreads(const alcrBackend* B) {
    ThreadScope s = {0};
#ifdef _OPENMP
    s.old = omp_get_max_threads();
    if (B->sim->threads > 0) omp_set_num_threads(B->sim->threads);
#else
    (void)B;
#endif
    return s;
}

static void leaveThreads(ThreadScope s) {
#ifdef _OPENMP
    omp_set_num_threads(s.old);
#else
    (void)s;
#endif
}

static void* allocTracked(alcrBackend* B, size_t bytes) {
    B->bytes += bytes;
    return calloc(1, bytes ? bytes : 1);
}

// ---- operations ---------------------------------------------------------------------------

static void opDestroy(void* be) {
    alcrBackend* B = (alcrBackend*)be;
    if (!B) return;
    alcr_elastic_free(B);
    alcr_contact_free(B);
    alcr_ccd_free(B);
    alcr_friction_free(B);
    alcr_mlcp_free(B);
    alcr_ds_free(B);
    alcr_momentum_free(B);
    alcr_ipc_free(B);
    alcr_ipcBoundary_free(B);
    alcr_rigid_free(B);
    alcr_direct_free(B->direct);
    free(B->xt);
    free(B->vt);
    free(B->xtilde);
    free(B->x);
    free(B->xhat);
    free(B->p);
    free(B->g);
    free(B->trial);
    free(B->pcgWork);
    free(B->kin);
    free(B->carryLevel);
    free(B->carry);
    free(B);
}

static void opResetContacts(void* be) {
    alcr_contact_reset((alcrBackend*)be);
    alcr_ds_free((alcrBackend*)be);  // the penalty-ds pairs (made again by the next step)
}

static alctStatus opBeginStep(void* be, const alciStepInput* in) {
    ((alcrBackend*)be)->elemHFresh = 0;
    alcrBackend* B = (alcrBackend*)be;
    const alcModel* m = B->m;
    B->h = in->h;
    for (int k = 0; k < 3; k++) B->gravity[k] = in->gravity[k];
    size_t vvec = sizeof(double) * 3 * (size_t)B->n;  // the vertices' rows
    memcpy(B->xt, in->x, vvec);
    memcpy(B->vt, in->v, vvec);
    memcpy(B->x, in->x, vvec);
    memcpy(B->kin, in->kinMask, (size_t)B->n);
    // the IPC model's moving boundaries: kinematic vertices, and the nodes of kinematic rigid
    // bodies (alcr_rigid_begin) in place of their vertices, which follow the nodes
    for (int v = 0; v < B->n; v++)
        B->kinBody[v] = in->kinMask[v] && !(B->nr > 0 && B->rigidOf[v] >= 0);
    B->kinAl = 0;
    memcpy(B->kinTarget, in->kinTarget, vvec);
    B->nipc = 0;
    double h = in->h;
    for (int v = 0; v < B->n; v++) {
        for (int k = 0; k < 3; k++) {
            int i = 3 * v + k;
            if (B->kin[v]) {
                // moving boundaries at their targets in xhat^[0] (AL paper §5.3)
                B->xhat[i] = in->kinTarget[i];
                B->xtilde[i] = in->kinTarget[i];
            } else {
                B->xhat[i] = in->x[i];
                B->xtilde[i] = in->x[i] + h * in->v[i] + h * h * in->gravity[k];
            }
        }
    }
    (void)m;
    if (B->nr > 0) alcr_rigid_begin(B, in);
    ThreadScope ts = enterThreads(B);
    if (B->cp.friction) alcr_friction_lag(B);
    leaveThreads(ts);
    B->patternDirty = 1;
    B->compDirty = 1;
    return ALC_OK;
}

static void opSetContactParams(void* be, const alciContactParams* p) {
    alcrBackend* B = (alcrBackend*)be;
    B->cp = *p;
}

static alctStatus opLinearize(void* be) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    alcr_contact_linearize(B);
    leaveThreads(ts);
    return ALC_OK;
}

static alctStatus opAssembleElastic(void* be, alciAssembleOut* out) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    alctStatus st = alcr_contact_pattern(B);
    if (st == ALC_OK) st = alcr_elastic_assemble(B, out);
    out->nsecant = B->nsecant;
    leaveThreads(ts);
    return st;
}

static alctStatus opAssembleContact(void* be) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    alctStatus st = alcr_contact_assemble(B);
    leaveThreads(ts);
    return st;
}

// P := -H^-1 G by Cholesky; 0 when the factorization failed (*failedCol tells where)
static alctStatus solveDirect(alcrBackend* B, int* solved, long* failedCol) {
    long info = 0;
    alctStatus st = alcr_direct_solve(B->direct, &B->A, B->trial, B->p, &info);
    *solved = st == ALC_OK && info == 0;
    *failedCol = info;
    return st;
}

static alctStatus opSolve(void* be, double tol, int maxIter, alciSolveOut* out) {
    alcrBackend* B = (alcrBackend*)be;
    int mode = B->m->opt.linearSolver;
    ThreadScope ts = enterThreads(B);
    // rhs = -G, kept in trial as scratch
    for (int i = 0; i < B->N; i++) B->trial[i] = -B->g[i];
    alctStatus st = ALC_OK;
    int solved = 0;
    out->iters = 0;
    out->converged = 0;
    out->direct = 0;
    out->directFailed = 0;
    if (mode == ALC_LINSOLVE_DIRECT) {
        st = solveDirect(B, &solved, &out->directFailed);
        out->direct = solved;
        out->converged = solved;
    }
    if (st == ALC_OK && !solved) {
        alcr_bsr_blockJacobi(&B->A, B->Minv);
        int iters = 0;
        out->converged =
            alcr_pcg_solve(&B->A, B->Minv, B->trial, B->p, tol, maxIter, B->pcgWork, &iters);
        out->iters = iters;
        if (mode == ALC_LINSOLVE_AUTO && !out->converged) {
            // PCG at its cap: solve the same system again, exactly
            st = solveDirect(B, &solved, &out->directFailed);
            out->direct = solved;
            if (solved) out->converged = 1;
        }
    }
    if (st == ALC_OK) {
        alcr_momentum_correct(B);
        out->pInf = alcr_vec_maxAbs(B->N, B->p);
        out->rigidStep = alcr_rigid_stepLength(B);
        out->gDotP = alcr_vec_dot(B->N, B->g, B->p);
    }
    leaveThreads(ts);
    if (st != ALC_OK) {
        return ALC_ERROR(B->sim, st, "the direct solver (CHOLMOD) failed: %s",
                         st == ALC_ERR_NOMEM ? "out of memory" : alcu_statusString(st));
    }
    return ALC_OK;
}

static alctStatus opLineSearchBound(void* be, double fraction, int allTets, double* rmax) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    for (int i = 0; i < B->N; i++) B->trial[i] = B->xhat[i] + B->p[i];
    *rmax = alcr_elastic_maxStep(B, B->xhat, B->trial, fraction, allTets);
    double turn = alcr_rigid_maxTurn(B);
    if (turn < *rmax) *rmax = turn;
    leaveThreads(ts);
    return ALC_OK;
}

/// Largest fraction in [0, 1] of the move from XHAT to TRIAL that keeps the protected
/// tetrahedra above `fraction` of their volume.
static double kinBound(alcrBackend* B, double fraction, int allTets) {
    ThreadScope ts = enterThreads(B);
    double theta = alcr_elastic_maxStep(B, B->xhat, B->trial, fraction, allTets);
    leaveThreads(ts);
    return theta;
}

// kinPlace's carry-along trial (alcm_kincarry.h): the free vertices of each body with driven
// vertices move by the driven vertices' mean displacement from XHAT plus what is left of the
// displacement of the driven vertices near them, decaying over ALCM_KIN_CARRY_RINGS rings.
static void kinCarryTrial(alcrBackend* B) {
    const alcModel* m = B->m;
    int* level = B->carryLevel;
    double* carry = B->carry;
    for (int v = 0; v < B->n; v++) level[v] = ALCM_KIN_CARRY_UNSET;
    for (int i = 0; i < B->N; i++) carry[i] = 0;
    for (int b = 0; b < m->nbody; b++) {
        int v0 = m->body_vertadr[b], nv = m->body_vertnum[b], nk = 0;
        double u[3] = {0, 0, 0};
        for (int v = v0; v < v0 + nv; v++) {
            if (!B->kin[v]) continue;
            nk++;
            for (int k = 0; k < 3; k++) u[k] += B->kinTarget[3 * v + k] - B->xhat[3 * v + k];
        }
        if (nk == 0 || nk == nv) continue;
        for (int k = 0; k < 3; k++) u[k] /= nk;
        for (int v = v0; v < v0 + nv; v++) {
            for (int k = 0; k < 3; k++) {
                int i = 3 * v + k;
                if (B->kin[v]) {
                    carry[i] = B->kinTarget[i] - B->xhat[i] - u[k];
                } else {
                    B->trial[i] = B->xhat[i] + u[k];
                }
            }
            if (B->kin[v]) level[v] = 0;
        }
    }
    for (int k = 1; k <= ALCM_KIN_CARRY_RINGS; k++) {
        for (int v = 0; v < B->n; v++) alcm_kinCarry_visit(v, k, B->srowptr, B->scol, level, carry);
    }
    // the driven vertices' own displacement, decaying with the ring, then smoothed
    for (int v = 0; v < B->n; v++) {
        double w = B->kin[v] ? 1.0 : alcm_kinCarry_weight(level[v]);
        for (int k = 0; k < 3; k++) carry[3 * v + k] *= w;
    }
    double* a = carry;
    double* b = carry + B->N;
    for (int it = 0; it < ALCM_KIN_CARRY_SMOOTH; it++) {
        for (int v = 0; v < B->n; v++) alcm_kinCarry_smooth(v, B->srowptr, B->scol, B->kin, a, b);
        double* t = a;
        a = b;
        b = t;
    }
    for (int v = 0; v < B->n; v++) {
        if (B->kin[v]) continue;
        for (int k = 0; k < 3; k++) B->trial[3 * v + k] += a[3 * v + k];
    }
}

static alctStatus opKinPlace(void* be, double fraction, int allTets, int fromX, double* remaining) {
    alcrBackend* B = (alcrBackend*)be;
    int any = 0;
    for (int v = 0; v < B->n; v++) any |= B->kin[v];
    *remaining = 0;
    if (!any) return ALC_OK;
    int nv3 = 3 * B->n;  // the vertices' rows (kinematic rigid bodies: alcr_rigid_kinPlace)
    if (fromX) {
        for (int i = 0; i < B->N; i++) B->xhat[i] = B->x[i];
    }
    // the kinematic vertices alone onto their targets (AL paper §5.3)
    for (int i = 0; i < nv3; i++) B->trial[i] = B->kin[i / 3] ? B->kinTarget[i] : B->xhat[i];
    double theta = kinBound(B, fraction, allTets);
    if (theta < 1) {
        // that would crush an element next to them: the free vertices near them are carried
        // along (alcm_kincarry.h), as far as every element allows
        kinCarryTrial(B);
        theta = kinBound(B, fraction, allTets);
        double f = theta < 1 ? theta : 1;
        for (int i = 0; i < nv3; i++) {
            if (!B->kin[i / 3]) B->xhat[i] += f * (B->trial[i] - B->xhat[i]);
        }
    }
    // kinematic vertices: onto their targets, or as far as the elements beside them allow (a
    // kinematic rigid body's nodes are at their target, and its vertices follow them)
    double rem = 0;
    for (int v = 0; v < B->n; v++) {
        if (!B->kin[v] || (B->nr > 0 && B->rigidOf[v] >= 0)) continue;
        for (int k = 0; k < 3; k++) {
            int i = 3 * v + k;
            B->xhat[i] =
                theta >= 1 ? B->kinTarget[i] : B->xhat[i] + theta * (B->kinTarget[i] - B->xhat[i]);
            double e = fabs(B->kinTarget[i] - B->xhat[i]);
            if (e > rem) rem = e;
        }
    }
    alcr_rigid_kinPlace(B);
    *remaining = rem;
    return ALC_OK;
}

static alctStatus opEnergy(void* be, double r, double* L) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    double e = alcr_elastic_energy(B, r);  // leaves XHAT + r P in trial
    if (B->sim->m->opt.contact != ALC_CONTACT_NONE) e += alcr_contact_energy(B, B->trial);
    leaveThreads(ts);
    *L = e;
    return ALC_OK;
}

static alctStatus opStepXhat(void* be, double r, int* flips) {
    alcrBackend* B = (alcrBackend*)be;
    alcr_vec_axpby(B->N, r, B->p, 1.0, B->xhat);
    alcr_rigid_place(B, B->xhat);
    *flips = alcr_contact_flips(B, B->xhat);
    // a friction pair whose slip the step reversed crossed the cone's tip, a kink the exact
    // Hessian does not model (docs/architecture.md)
    if (B->cp.friction && B->cp.frictionSecant) *flips += alcr_friction_reversals(B, B->xhat);
    return ALC_OK;
}

static alctStatus opAlUpdate(void* be, double credit) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    alcr_contact_alUpdate(B, credit);
    leaveThreads(ts);
    return ALC_OK;
}

static alctStatus opCollect(void* be, alciCollectOut* out) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    alctStatus st = alcr_ccd_collect(B, out);
    leaveThreads(ts);
    return st;
}

static alctStatus opBlockingPair(void* be, alciBlockingPair* out) {
    alcr_ccd_blocking((const alcrBackend*)be, out);
    return ALC_OK;
}

static alctStatus opBlockingTet(void* be, double fraction, int allTets, int endPoint, double amax,
                                alciBlockingTet* out) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    memset(out, 0, sizeof *out);
    int t = alcr_elastic_cuttingTet(B, fraction, allTets, endPoint, amax, &out->bound);
    leaveThreads(ts);
    if (t < 0) return ALC_OK;
    out->found = 1;
    out->tet = t;
    const int* tv = B->m->tet_vert + 4 * t;
    for (int a = 0; a < 4; a++) {
        for (int k = 0; k < 3; k++) {
            out->x[3 * a + k] = B->x[3 * tv[a] + k];
            out->xhat[3 * a + k] = B->xhat[3 * tv[a] + k];
        }
    }
    return ALC_OK;
}

static alctStatus opMergeActive(void* be, int* nactive, int* grown) {
    alcrBackend* B = (alcrBackend*)be;
    B->grown = 0;
    alctStatus st = alcr_contact_merge(B, nactive);
    *grown = B->grown;
    return st;
}

static alctStatus opInversionBound(void* be, double fraction, int allTets, int endPoint,
                                   double amax, double* alpha, int* guards) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    *alpha = endPoint ? alcr_elastic_endStep(B, B->x, B->xhat, fraction, allTets, amax)
                      : alcr_elastic_maxStep(B, B->x, B->xhat, fraction, allTets);
    alctStatus st = ALC_OK;
    *guards = 0;
    if (B->cp.tetGuards > 0 && *alpha < amax) {
        // the tetrahedra that cut the chord join the next subproblems as guards
        // (alcm_tet_guardLinearize)
        int tets[ALC_TET_GUARDS_MAX], added = 0;
        int cap = B->cp.tetGuards < ALC_TET_GUARDS_MAX ? B->cp.tetGuards : ALC_TET_GUARDS_MAX;
        int n = alcr_elastic_limitingTets(B, fraction, allTets, amax, tets, cap);
        st = alcr_contact_addGuards(B, tets, n, &added);
        *guards = added;
    }
    leaveThreads(ts);
    return st;
}

static alctStatus opAdvance(void* be, double alpha) {
    alcrBackend* B = (alcrBackend*)be;
    if (alpha >= 1) {
        memcpy(B->x, B->xhat, sizeof(double) * (size_t)B->N);
    } else if (alpha > 0) {
        for (int i = 0; i < B->N; i++) B->x[i] += alpha * (B->xhat[i] - B->x[i]);
        alcr_rigid_place(B, B->x);
    }
    return ALC_OK;
}

static alctStatus opEndStep(void* be, double* x, double* v) {
    alcrBackend* B = (alcrBackend*)be;
    // the next step lags friction with this step's mu and delta (AL paper Eq. 23)
    B->lastMu = B->cp.mu;
    B->lastDelta = B->cp.delta;
    double ih = 1.0 / B->h;
    for (int i = 0; i < 3 * B->n; i++) {
        x[i] = B->x[i];
        v[i] = (B->x[i] - B->xt[i]) * ih;
    }
    if (B->nr > 0) alcr_rigid_end(B);
    return ALC_OK;
}

static alctStatus opContacts(void* be, alcContact* out, int cap, int* n, double* bodyForce) {
    return alcr_contact_report((alcrBackend*)be, out, cap, n, bodyForce);
}

static int opNactive(void* be) {
    const alcrBackend* B = (const alcrBackend*)be;
    if (B->m->opt.contact == ALC_CONTACT_PENALTY_DS) return alcr_ds_nactive(B);
    return B->m->opt.contact == ALC_CONTACT_IPC ? B->nipc : B->npair - alcr_contact_nguards(B);
}

static size_t opMemory(void* be) {
    alcrBackend* B = (alcrBackend*)be;
    return B->bytes + alcr_bsr_bytes(&B->A) + alcr_direct_bytes(B->direct) + alcr_ds_bytes(B);
}

static alctStatus opGetCarry(void* be, alcmPair* pairs, int cap, int* npair, double* lastMu,
                             double* lastDelta) {
    alcrBackend* B = (alcrBackend*)be;
    *lastMu = B->lastMu;
    *lastDelta = B->lastDelta;
    return alcr_contact_getCarry(B, pairs, cap, npair);
}

static alctStatus opSetCarry(void* be, const alcmPair* pairs, int npair, double lastMu,
                             double lastDelta) {
    alcrBackend* B = (alcrBackend*)be;
    alctStatus st = alcr_contact_setCarry(B, pairs, npair);
    if (st != ALC_OK) return ALC_ERROR(B->sim, st, "out of memory for %d contact pairs", npair);
    B->lastMu = lastMu;
    B->lastDelta = lastDelta;
    return ALC_OK;
}

static alctStatus opIpcPlaceKinematic(void* be) {
    alcrBackend* B = (alcrBackend*)be;
    for (int v = 0; v < B->nn; v++)
        for (int k = 0; k < 3; k++)
            B->xhat[3 * v + k] = B->kinBody[v] ? B->kinTarget[3 * v + k] : B->x[3 * v + k];
    if (B->nr > 0) alcr_rigid_place(B, B->xhat);
    return ALC_OK;
}

static alctStatus opSyncXhat(void* be) {
    alcrBackend* B = (alcrBackend*)be;
    memcpy(B->xhat, B->x, sizeof(double) * (size_t)B->N);
    return ALC_OK;
}

static alctStatus opIpcConstraints(void* be, double dhat, int* n, double* minDist2) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    alctStatus st = alcr_ipc_constraints(B, B->xhat, dhat, minDist2);
    leaveThreads(ts);
    B->ipcDhat = dhat;
    *n = B->nipc;
    return st;
}

static alctStatus opIpcAssemble(void* be, double dhat, double* kappa, double kappaMin,
                                double kappaMax, int initKappa) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    if (initKappa && B->nipc > 0) {
        // IPC's per-step balance: kappa = -(g_B . g_E) / |g_B|^2, clamped (digest §1.7)
        alcr_ipc_gradient(B, dhat, B->trial);
        double gbge = alcr_vec_dot(B->N, B->trial, B->g),
               gbgb = alcr_vec_dot(B->N, B->trial, B->trial);
        double k = gbgb > 0 ? -gbge / gbgb : 0;
        *kappa = k < kappaMin ? kappaMin : k > kappaMax ? kappaMax : k;
    }
    alctStatus st = alcr_ipc_assemble(B, dhat, *kappa);
    alcr_ipcBoundary_assemble(B);
    B->lastKappa = *kappa;
    leaveThreads(ts);
    return st;
}

static alctStatus opIpcEnergy(void* be, double r, double dhat, double kappa, double* E,
                              double* minDist2) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    double e = alcr_elastic_energy(B, r);  // leaves XHAT + r P in trial
    alctStatus st = alcr_ipc_constraints(B, B->trial, dhat, minDist2);
    if (st == ALC_OK) e += kappa * alcr_ipc_energy(B, B->trial, dhat);
    e += alcr_ipcBoundary_energy(B, B->trial);
    leaveThreads(ts);
    *E = e;
    return st;
}

static alctStatus opIpcStepBound(void* be, double* toi) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    alctStatus st = alcr_ipc_stepBound(B, toi);
    leaveThreads(ts);
    return st;
}

static alctStatus opIpcBoundaryAl(void* be, int on, double rho) {
    alcr_ipcBoundary_set((alcrBackend*)be, on, rho);
    return ALC_OK;
}

static alctStatus opIpcBoundaryUpdate(void* be) {
    alcr_ipcBoundary_update((alcrBackend*)be);
    return ALC_OK;
}

static alctStatus opIpcBoundaryProgress(void* be, double* eta) {
    *eta = alcr_ipcBoundary_progress((const alcrBackend*)be);
    return ALC_OK;
}

static alctStatus opIpcFrictionLag(void* be, double dhat) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    alctStatus st = alcr_friction_lagIpc(B, dhat);
    leaveThreads(ts);
    B->patternDirty = 1;
    return st;
}

static alctStatus opMlcpStep(void* be, const alciMlcpParams* p, alciMlcpOut* out) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    alctStatus st = alcr_mlcp_step(B, p, out);
    leaveThreads(ts);
    return st;
}

static alctStatus opGetMlcpCarry(void* be, alciMlcpFric* out, int cap, int* n) {
    return alcr_mlcp_getCarry((alcrBackend*)be, out, cap, n);
}

static alctStatus opSetMlcpCarry(void* be, const alciMlcpFric* in, int n) {
    return alcr_mlcp_setCarry((alcrBackend*)be, in, n);
}

static alctStatus opDsStep(void* be, const alciDsParams* p, alciDsOut* out) {
    alcrBackend* B = (alcrBackend*)be;
    ThreadScope ts = enterThreads(B);
    alctStatus st = alcr_ds_step(B, p, out);
    leaveThreads(ts);
    return st;
}

static alctStatus opGetDsCarry(void* be, alciDsPair* out, int cap, int* n) {
    return alcr_ds_getCarry((alcrBackend*)be, out, cap, n);
}

static alctStatus opSetDsCarry(void* be, const alciDsPair* in, int n) {
    return alcr_ds_setCarry((alcrBackend*)be, in, n);
}

static const alciBackendOps kRefOps = {"ref",
                                       opDestroy,
                                       opResetContacts,
                                       opBeginStep,
                                       opSetContactParams,
                                       opLinearize,
                                       opAssembleElastic,
                                       opAssembleContact,
                                       opSolve,
                                       opLineSearchBound,
                                       opKinPlace,
                                       opEnergy,
                                       opStepXhat,
                                       opAlUpdate,
                                       opCollect,
                                       opMergeActive,
                                       opInversionBound,
                                       opAdvance,
                                       opEndStep,
                                       opContacts,
                                       opNactive,
                                       opMemory,
                                       opGetCarry,
                                       opSetCarry,
                                       opIpcPlaceKinematic,
                                       opSyncXhat,
                                       opIpcConstraints,
                                       opIpcAssemble,
                                       opIpcEnergy,
                                       opIpcStepBound,
                                       opIpcBoundaryAl,
                                       opIpcBoundaryUpdate,
                                       opIpcBoundaryProgress,
                                       opIpcFrictionLag,
                                       opMlcpStep,
                                       opGetMlcpCarry,
                                       opSetMlcpCarry,
                                       opDsStep,
                                       opGetDsCarry,
                                       opSetDsCarry,
                                       opBlockingPair,
                                       opBlockingTet};

alctStatus alcr_backend_make(alcSim* sim, alciBackend* out) {
    const alcModel* m = sim->m;
    alcrBackend* B = (alcrBackend*)calloc(1, sizeof(alcrBackend));
    if (!B) return ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory");
    B->sim = sim;
    B->m = m;
    B->n = m->nvert;
    B->nr = m->nrigid;
    B->nn = m->nvert + 2 * m->nrigid;
    B->N = 3 * B->nn;
    B->h = m->opt.timestep;
    size_t vec = sizeof(double) * (size_t)B->N;
    B->xt = (double*)allocTracked(B, vec);
    B->vt = (double*)allocTracked(B, vec);
    B->xtilde = (double*)allocTracked(B, vec);
    B->x = (double*)allocTracked(B, vec);
    B->xhat = (double*)allocTracked(B, vec);
    B->p = (double*)allocTracked(B, vec);
    B->g = (double*)allocTracked(B, vec);
    B->trial = (double*)allocTracked(B, vec);
    B->pcgWork = (double*)allocTracked(B, 4 * vec);
    B->kin = (unsigned char*)allocTracked(B, (size_t)B->nn);
    B->carryLevel = (int*)allocTracked(B, sizeof(int) * (size_t)B->n);
    B->carry = (double*)allocTracked(B, 2 * vec);
    alctStatus st = ALC_OK;
    if (!B->xt || !B->vt || !B->xtilde || !B->x || !B->xhat || !B->p || !B->g || !B->trial ||
        !B->pcgWork || !B->kin || !B->carryLevel || !B->carry) {
        st = ALC_ERR_NOMEM;
    }
    if (st == ALC_OK) st = alcr_rigid_make(B);
    if (st == ALC_OK) st = alcr_contact_make(B);
    if (st == ALC_OK) st = alcr_elastic_make(B);
    if (st == ALC_OK) st = alcr_ccd_make(B);
    if (st == ALC_OK) st = alcr_friction_make(B);
    if (st == ALC_OK) st = alcr_momentum_make(B);
    if (st == ALC_OK) st = alcr_ipc_make(B);
    if (st == ALC_OK) st = alcr_ipcBoundary_make(B);
    if (st == ALC_OK && m->opt.linearSolver != ALC_LINSOLVE_PCG) {
        if (!alcr_direct_available()) {
            opDestroy(B);
            return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                             "linear_solver '%s' needs CHOLMOD, and this build has none "
                             "(install libsuitesparse-dev and rebuild)",
                             m->opt.linearSolver == ALC_LINSOLVE_DIRECT ? "direct" : "auto");
        }
        st = alcr_direct_make(&B->direct, B->nn);
    }
    if (st == ALC_OK && m->opt.contact == ALC_CONTACT_PENALTY_DS &&
        m->opt.dsPrecond == ALC_DS_PRECOND_CHOLESKY && !alcr_direct_available()) {
        opDestroy(B);
        return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                         "penalty_ds precond 'cholesky' needs CHOLMOD, and this build has none "
                         "(install libsuitesparse-dev and rebuild, or use 'jacobi')");
    }
    if (st != ALC_OK) {
        opDestroy(B);
        if (st == ALC_ERR_NOMEM)
            return ALC_ERROR(sim, st, "out of memory for the reference backend");
        return ALC_ERROR(sim, st, "reference backend setup failed");
    }
    out->ops = &kRefOps;
    out->state = B;
    return ALC_OK;
}
