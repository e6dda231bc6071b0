// The CUDA backend's operation table (host/backend.h): the AL time step of host/step.c on the
// device, from the modules of cuda/ (collision, active set, AL contact terms, friction,
// elasticity, pattern, PCG, momentum, step vectors). Only scalars cross to the host during a
// step; positions cross at its start and end, and the active set once per step for the contact
// report (host/contact_report.c, shared with the reference). Created on a usable device only:
// a real GPU, or the SIMT emulation of build/emu (never picked by ALC_BACKEND_AUTO there).
//
// Reproducibility: the elasticity is assembled by the deterministic gather
// (ALCG_ELASTIC_GATHER) and every other module sums in a fixed order (no floating-point
// atomics), so a step is bitwise reproducible run to run on one device and build. It differs
// from the reference backend by rounding: the dot products, the momentum sums and the
// per-body mean of kinPlace's carry-along are tree reductions, and nvcc contracts multiply-adds.
//
// The IPC barrier model stays on the reference backend (ALC_ERR_UNSUPPORTED here).
#include <cuda_runtime.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "alc_internal.h"
#include "contact_report.h"
#include "hd/alcm_elastic.h"
#include "hd/alcm_pairstate.h"
}

#include "al_contact.h"
#include "alcg_kernel.cuh"
#include "arena.h"
#include "bsr.h"
#include "collide.h"
#include "diag_stats.h"
#include "elastic.h"
#include "friction.h"
#include "kin_carry.h"
#include "momentum.h"
#include "pattern.h"
#include "pcg.h"
#include "step_vec.h"
#include "tet_bound.h"

namespace {

/// How the elasticity reaches the matrix (see the file comment).
const alcgElasticMode kElasticMode = ALCG_ELASTIC_GATHER;

struct Backend {
    alcSim* sim;
    const alcModel* m;
    int n, N;
    alcgStream s;
    alcgArena* arena;  // every device array below is carved from it (cuda/arena.h)
    // model arrays the modules read
    int *d_svert, *d_edge_vert, *d_tri_vert;
    int *d_vertBody, *d_bodyMat, *d_vertadr, *d_vertnum;
    double* d_matFriction;
    double* h_matFriction;  // what d_matFriction holds (nmat^2), to upload it only when changed
    alcgTetMesh mesh;
    alcgBodies bodies;
    alcgFricMaterials mats;
    // the step vectors (N doubles each) and the kinematic mask
    double *d_xt, *d_vt, *d_xtilde, *d_x, *d_xhat, *d_p, *d_g, *d_trial, *d_rhs, *d_target;
    unsigned char* d_kin;
    int nkin;
    // the Newton system
    alcgElastic E;
    alcgBsr A;
    alcgPattern P;
    alcgMomentum M;
    alcgKinCarry K;  // kinPlace's carry-along placement
    double* d_Minv;
    void* d_pcgTemp;
    size_t pcgBytes;
    int pcgOneBlockRows;  // alcg_pcg_solveWith's crossover (ALC_CUDA_PCG_ONE_BLOCK_ROWS)
    void* d_boundTemp;
    size_t boundBytes;
    // tetrahedron guards (alcOption.tetGuards; allocated only with the option): each
    // tetrahedron's bound (ntet), and host copies for the selection and the insertion
    double* d_guardBound;
    double* h_guardBound;
    int* h_guardTets;
    alcmPair* h_guardPairs;
    int guardPairCap;
    int nguards;  // guard pairs in the active set (they sort first)

    double* d_red;  // norms scratch
    int* d_diagHist;
    double* d_diagOut;
    int patternDirty, compDirty;
    // contact
    alcgCollide* C;
    alcgAlContact AC;
    alcgFriction F;
    alcgFric* d_fric;
    int nfric;
    int pairCap;
    alciContactParams cp;
    double h, gravity[3];
    double lastMu, lastDelta;
    // host copies for the contact report
    alcmPair* h_pairs;
    alcmFric* h_fric;
    int hostCap;
    double *h_x, *h_xt;
};

/// Record the message of the stream's last failure on the sim.
alctStatus fail(Backend* B, alctStatus st) {
    if (st == ALC_OK) return st;
    return ALC_ERROR(B->sim, st, "cuda backend: %s", B->s.err);
}

alcgAlParams alParams(const Backend* B) {
    alcgAlParams p;
    p.mu = B->cp.mu;
    p.delta = B->cp.delta;
    p.decay = B->cp.decay;
    p.removeBelow = B->cp.removeBelow;
    p.penalty = B->cp.penalty;
    p.flipDepth = B->cp.flipDepth;
    p.pairMuGrowth = B->cp.pairMuGrowth;
    p.pairMuMax = B->cp.pairMuMax;
    p.lambdaCredit = 0;  // the multiplier update sets its own (opAlUpdate)
    return p;
}

alcgFricParams fricParams(const Backend* B) {
    alcgFricParams p;
    p.h = B->h;
    p.frictionEpsV = B->cp.frictionEpsV;
    p.secant = B->cp.frictionSecant;
    return p;
}

alcgElasticState elasticState(const Backend* B) {
    alcgElasticState st;
    st.h = B->h;
    st.d_xhat = B->d_xhat;
    st.d_xtilde = B->d_xtilde;
    st.d_kin = B->d_kin;
    return st;
}

alcgPair* pairs(Backend* B, int* npair) {
    return alcg_collide_pairs(B->C, npair);
}

/// Allocate and upload n bytes (src NULL: allocate only).
alctStatus upload(Backend* B, void** d, const void* src, size_t n) {
    alctStatus st = alcg_malloc(&B->s, d, n ? n : 1);
    if (st == ALC_OK && src && n) st = alcg_upload(&B->s, *d, src, n);
    return st;
}

/// Largest step in [0, 1] from -> to keeping the protected tetrahedra (cuda/tet_bound.h).
alctStatus tetBound(Backend* B, const double* from, const double* to, double fraction, int allTets,
                    double* alpha) {
    size_t tb = B->boundBytes;
    return alcg_tetBound_maxStep(&B->mesh, from, to, fraction, allTets, alpha, B->d_boundTemp, &tb,
                                 &B->s);
}

/// (Re)allocate everything sized by the pair capacity: the AL contact and friction scratch, the
/// friction pairs (their contents kept), the pattern scratch and the matrix.
alctStatus sizeForPairs(Backend* B, int cap) {
    alcgStream* s = &B->s;
    alctStatus st;
    alcgFric* fric = NULL;
    alcg_alContact_free(&B->AC);
    alcg_friction_free(&B->F);
    alcg_pattern_free(&B->P);
    alcg_bsr_free(&B->A);
    st = alcg_alContact_make(&B->AC, B->n, cap, s);
    if (st == ALC_OK) st = alcg_friction_make(&B->F, B->n, cap, s);
    if (st == ALC_OK) st = alcg_malloc(s, (void**)&fric, sizeof(alcgFric) * (size_t)cap);
    if (st == ALC_OK && B->nfric > 0) {
        // on the backend's stream (non-blocking: the legacy default stream would not wait for it)
        st = cudaMemcpyAsync(fric, B->d_fric, sizeof(alcgFric) * (size_t)B->nfric,
                             cudaMemcpyDeviceToDevice, (cudaStream_t)s->stream) == cudaSuccess
                 ? ALC_OK
                 : ALC_ERR_CUDA;
    }
    if (st != ALC_OK) {
        alcg_free(fric);
        return st;
    }
    alcg_free(B->d_fric);
    B->d_fric = fric;
    // the matrix: the static pattern plus 6 upper blocks per contact and friction stencil
    long long blocks = (long long)B->E.nstatic + 12LL * cap;
    if (blocks > 0x7fffffffLL) {
        snprintf(s->err, sizeof s->err, "the matrix would need %lld blocks (more than 2^31)",
                 blocks);
        return ALC_ERR_CAPACITY;
    }
    st = alcg_bsr_make(&B->A, B->n, (int)blocks, s);
    if (st == ALC_OK) st = alcg_pattern_make(&B->P, &B->E, 2 * cap, (int)blocks, s);
    if (st == ALC_OK) st = alcg_friction_incidence(&B->F, B->d_fric, B->nfric, s);
    if (st == ALC_OK) {
        int np = 0;
        alcgPair* p = pairs(B, &np);
        st = alcg_alContact_incidence(&B->AC, p, np, s);
    }
    B->pairCap = cap;
    B->patternDirty = 1;
    return st;
}

// ---- operations ---------------------------------------------------------------------------

void opDestroy(void* be) {
    Backend* B = (Backend*)be;
    if (!B) return;
    alcg_collide_free(B->C);
    alcg_alContact_free(&B->AC);
    alcg_friction_free(&B->F);
    alcg_pattern_free(&B->P);
    alcg_momentum_free(&B->M);
    alcg_kinCarry_free(&B->K);
    alcg_bsr_free(&B->A);
    alcg_elastic_free(&B->E);
    void* dev[] = {B->d_svert,   B->d_edge_vert, B->d_tri_vert,    B->d_vertBody, B->d_bodyMat,
                   B->d_vertadr, B->d_vertnum,   B->d_matFriction, B->d_xt,       B->d_vt,
                   B->d_xtilde,  B->d_x,         B->d_xhat,        B->d_p,        B->d_g,
                   B->d_trial,   B->d_rhs,       B->d_target,      B->d_kin,      B->d_Minv,
                   B->d_pcgTemp, B->d_boundTemp, B->d_red,         B->d_diagHist, B->d_diagOut,
                   B->d_fric,    B->d_guardBound};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) alcg_free(dev[i]);
    alcg_arena_free(B->arena);
    alcg_stream_free(&B->s);
    free(B->h_pairs);
    free(B->h_fric);
    free(B->h_guardBound);
    free(B->h_guardTets);
    free(B->h_guardPairs);
    free(B->h_x);
    free(B->h_xt);
    free(B->h_matFriction);
    free(B);
}

void opResetContacts(void* be) {
    Backend* B = (Backend*)be;
    alcg_collide_setPairs(B->C, NULL, 0, &B->s);
    alcg_alContact_incidence(&B->AC, NULL, 0, &B->s);
    B->nguards = 0;
    B->nfric = 0;
    alcg_friction_incidence(&B->F, NULL, 0, &B->s);
    B->patternDirty = 1;
}

alctStatus opBeginStep(void* be, const alciStepInput* in) {
    Backend* B = (Backend*)be;
    alcgStream* s = &B->s;
    size_t vec = sizeof(double) * (size_t)B->N;
    B->h = in->h;
    for (int k = 0; k < 3; k++) B->gravity[k] = in->gravity[k];
    B->nkin = 0;
    for (int v = 0; v < B->n; v++) B->nkin += in->kinMask[v] != 0;
    memcpy(B->h_xt, in->x, vec);
    // x and v travel through the scratch vectors TRIAL and P
    alctStatus st = alcg_upload(s, B->d_trial, in->x, vec);
    if (st == ALC_OK) st = alcg_upload(s, B->d_p, in->v, vec);
    if (st == ALC_OK) st = alcg_upload(s, B->d_target, in->kinTarget, vec);
    if (st == ALC_OK) st = alcg_upload(s, B->d_kin, in->kinMask, (size_t)B->n);
    // the friction table, read at every step as the reference backend does (a caller may change
    // alcModel.mat_friction between steps): uploaded when it differs from the device's copy
    size_t fbytes = sizeof(double) * (size_t)B->m->nmat * (size_t)B->m->nmat;
    if (st == ALC_OK && B->cp.friction && memcmp(B->h_matFriction, B->m->mat_friction, fbytes)) {
        st = alcg_upload(s, B->d_matFriction, B->m->mat_friction, fbytes);
        memcpy(B->h_matFriction, B->m->mat_friction, fbytes);
    }
    if (st == ALC_OK) {
        st = alcg_stepVec_begin(B->n, B->d_trial, B->d_p, B->d_target, B->d_kin, in->h, in->gravity,
                                B->d_xt, B->d_vt, B->d_x, B->d_xhat, B->d_xtilde, s);
    }
    // lagged friction (AL paper Appendix A) from the carried active set, linearized at XT,
    // with the previous step's mu and delta (Eq. 23)
    B->nfric = 0;
    if (st == ALC_OK && B->cp.friction) {
        int np = 0;
        alcgPair* p = pairs(B, &np);
        alcgAlParams prm = alParams(B);
        prm.mu = B->lastMu;
        prm.delta = B->lastDelta;
        alcgFricParams fp = fricParams(B);
        // (guards, skipped by the lag, with the delta the reference's pass reads)
        st = alcg_activeSet_linearize(B->d_xt, p, np, B->mesh.d_tet_vol,
                                      B->m->opt.inversionFraction, B->cp.delta, s);
        if (st == ALC_OK) {
            st = alcg_friction_lag(&B->F, p, np, &prm, &fp, &B->mats, B->d_fric, &B->nfric, s);
        }
    } else if (st == ALC_OK) {
        st = alcg_friction_incidence(&B->F, NULL, 0, s);
    }
    B->patternDirty = 1;
    B->compDirty = 1;
    return fail(B, st);
}

void opSetContactParams(void* be, const alciContactParams* p) {
    ((Backend*)be)->cp = *p;
}

alctStatus opLinearize(void* be) {
    Backend* B = (Backend*)be;
    ALCG_RANGE("ccd");
    int np = 0;
    alcgPair* p = pairs(B, &np);
    return fail(B, alcg_activeSet_linearize(B->d_x, p, np, B->mesh.d_tet_vol,
                                            B->m->opt.inversionFraction, B->cp.delta, &B->s));
}

alctStatus opAssembleElastic(void* be, alciAssembleOut* out) {
    Backend* B = (Backend*)be;
    ALCG_RANGE("hessian");
    alcgStream* s = &B->s;
    alctStatus st = ALC_OK;
    if (B->patternDirty) {
        int np = 0, needed = 0;
        alcgPair* p = pairs(B, &np);
        alcgStencils a = {np ? (const int*)((const char*)p + offsetof(alcgPair, v)) : NULL,
                          sizeof(alcgPair) / sizeof(int), np};
        alcgStencils f = {
            B->nfric ? (const int*)((const char*)B->d_fric + offsetof(alcgFric, v)) : NULL,
            sizeof(alcgFric) / sizeof(int), B->nfric};
        st = alcg_pattern_build(&B->P, &B->E, &a, &f, &B->A, &needed, s);
        if (st == ALC_ERR_CAPACITY) {
            return ALC_ERROR(B->sim, st,
                             "Hessian pattern needs %d blocks, capacity %d (raise "
                             "capacity.contactPairs)",
                             needed, B->A.cap);
        }
        if (st != ALC_OK) return fail(B, st);
        B->patternDirty = 0;
        B->compDirty = 1;
    }
    alcgElasticState es = elasticState(B);
    st = alcg_elastic_assemble(&B->E, &es, kElasticMode, &B->A, B->d_g, NULL, s);
    if (st == ALC_OK) {
        st = alcg_diagStats(&B->E, &B->A, B->d_kin, B->d_diagHist, B->d_diagOut, &out->maxDiag,
                            &out->q99Diag, s);
    }
    if (st == ALC_OK && B->cp.friction && B->nfric > 0) {
        int missing = 0;
        alcgFricParams fp = fricParams(B);
        st = alcg_friction_assemble(&B->F, B->d_fric, B->nfric, &fp, B->d_xt, B->d_xhat, B->d_kin,
                                    &B->A, B->d_g, &missing, &out->nsecant, s);
        if (st == ALC_OK && missing > 0) {
            return ALC_ERROR(B->sim, ALC_ERR_CUDA, "%d friction blocks missing from the pattern",
                             missing);
        }
    }
    out->nblocks = B->A.nnzb;
    return fail(B, st);
}

alctStatus opAssembleContact(void* be) {
    Backend* B = (Backend*)be;
    ALCG_RANGE("hessian");
    int np = 0, missing = 0;
    alcgPair* p = pairs(B, &np);
    alcgAlParams prm = alParams(B);
    alctStatus st = alcg_alContact_assemble(&B->AC, p, np, &prm, B->d_x, B->d_xhat, B->d_kin, &B->A,
                                            B->d_g, &missing, &B->s);
    if (st == ALC_OK && missing > 0) {
        return ALC_ERROR(B->sim, ALC_ERR_CUDA, "%d contact blocks missing from the pattern",
                         missing);
    }
    return fail(B, st);
}

alctStatus opSolve(void* be, double tol, int maxIter, alciSolveOut* out) {
    Backend* B = (Backend*)be;
    ALCG_RANGE("pcg");
    alcgStream* s = &B->s;
    size_t tb = B->pcgBytes;
    out->direct = 0;  // PCG only: no Cholesky on the device
    out->directFailed = 0;
    alctStatus st = alcg_bsr_blockJacobi(&B->A, B->d_Minv, s);
    if (st == ALC_OK) st = alcg_stepVec_scale(B->N, -1.0, B->d_g, B->d_rhs, s);
    if (st == ALC_OK) {
        st =
            alcg_pcg_solveWith(&B->A, B->d_Minv, B->d_rhs, B->d_p, tol, maxIter, B->pcgOneBlockRows,
                               B->d_kin, &out->iters, &out->converged, B->d_pcgTemp, &tb, s);
    }
    if (st == ALC_OK && B->compDirty) {
        st = alcg_momentum_label(&B->M, &B->A, B->d_kin, s);
        if (st == ALC_OK) B->compDirty = 0;
    }
    if (st == ALC_OK) st = alcg_momentum_correct(&B->M, B->d_g, B->E.d_vert_mass, B->d_p, s);
    if (st == ALC_OK) {
        st = alcg_stepVec_norms(B->N, B->d_p, B->d_g, B->d_red, &out->pInf, &out->gDotP, s);
    }
    return fail(B, st);
}

alctStatus opLineSearchBound(void* be, double fraction, int allTets, double* rmax) {
    Backend* B = (Backend*)be;
    ALCG_RANGE("linesearch");
    alctStatus st = alcg_stepVec_axpy(B->N, 1.0, B->d_p, B->d_xhat, B->d_trial, &B->s);
    if (st == ALC_OK) st = tetBound(B, B->d_xhat, B->d_trial, fraction, allTets, rmax);
    return fail(B, st);
}

alctStatus opKinPlace(void* be, double fraction, int allTets, int fromX, double* remaining) {
    Backend* B = (Backend*)be;
    alcgStream* s = &B->s;
    alctStatus st = ALC_OK;
    double theta = 1;
    *remaining = 0;
    if (B->nkin == 0) return ALC_OK;
    if (fromX &&
        cudaMemcpyAsync(B->d_xhat, B->d_x, sizeof(double) * (size_t)B->N, cudaMemcpyDeviceToDevice,
                        (cudaStream_t)B->s.stream) != cudaSuccess) {
        return ALC_ERROR(B->sim, ALC_ERR_CUDA, "cuda backend: copying X to XHAT failed");
    }
    // the kinematic vertices alone onto their targets (AL paper §5.3)
    st = alcg_stepVec_select(B->n, B->d_kin, B->d_target, B->d_xhat, B->d_trial, s);
    if (st == ALC_OK) st = tetBound(B, B->d_xhat, B->d_trial, fraction, allTets, &theta);
    if (st == ALC_OK && theta < 1) {
        // that would crush an element next to them: the free vertices near them are carried
        // along (alcm_kincarry.h; as the reference's opKinPlace)
        st =
            alcg_kinCarry_trial(&B->K, &B->bodies, B->d_kin, B->d_xhat, B->d_target, B->d_trial, s);
        if (st == ALC_OK) st = tetBound(B, B->d_xhat, B->d_trial, fraction, allTets, &theta);
        if (st == ALC_OK) {
            st = alcg_stepVec_moveMasked(B->n, B->d_kin, 0, theta < 1 ? theta : 1, 0, B->d_trial,
                                         B->d_xhat, s);
        }
    }
    // kinematic vertices: onto their targets, or as far as the elements beside them allow
    if (st == ALC_OK) {
        st = alcg_stepVec_moveMasked(B->n, B->d_kin, 1, theta, 1, B->d_trial, B->d_xhat, s);
    }
    if (st == ALC_OK) {
        st = alcg_stepVec_maskedMaxDiff(B->n, B->d_target, B->d_xhat, B->d_kin, B->d_red, remaining,
                                        s);
    }
    return fail(B, st);
}

alctStatus opEnergy(void* be, double r, double* L) {
    Backend* B = (Backend*)be;
    ALCG_RANGE("linesearch");
    alcgStream* s = &B->s;
    alcgElasticState es = elasticState(B);
    double e = 0, ef = 0, ec = 0;
    alctStatus st = alcg_elastic_energy(&B->E, &es, B->d_p, r, B->d_trial, &e, s);
    if (st == ALC_OK && B->cp.friction && B->nfric > 0) {
        alcgFricParams fp = fricParams(B);
        st = alcg_friction_energy(&B->F, B->d_fric, B->nfric, &fp, B->d_xt, B->d_trial, &ef, s);
        e += ef;
    }
    if (st == ALC_OK && B->m->opt.contact != ALC_CONTACT_NONE) {
        int np = 0;
        alcgPair* p = pairs(B, &np);
        alcgAlParams prm = alParams(B);
        st = alcg_alContact_energy(&B->AC, p, np, &prm, B->d_x, B->d_trial, &ec, s);
        e += ec;
    }
    *L = e;
    return fail(B, st);
}

alctStatus opStepXhat(void* be, double r, int* flips) {
    Backend* B = (Backend*)be;
    int np = 0;
    alcgPair* p = pairs(B, &np);
    alcgAlParams prm = alParams(B);
    *flips = 0;
    alctStatus st = alcg_stepVec_axpy(B->N, r, B->d_p, B->d_xhat, B->d_xhat, &B->s);
    if (st == ALC_OK && np > 0) {
        st = alcg_alContact_flips(&B->AC, p, np, &prm, B->d_x, B->d_xhat, flips, &B->s);
    }
    // friction pairs whose slip the step reversed (as the reference's opStepXhat)
    if (st == ALC_OK && B->cp.friction && B->cp.frictionSecant && B->nfric > 0) {
        int nrev = 0;
        alcgFricParams fp = fricParams(B);
        st = alcg_friction_reversals(&B->F, B->d_fric, B->nfric, &fp, B->d_xt, B->d_xhat, &nrev,
                                     &B->s);
        *flips += nrev;
    }
    return fail(B, st);
}

alctStatus opAlUpdate(void* be, double credit) {
    Backend* B = (Backend*)be;
    int np = 0;
    alcgPair* p = pairs(B, &np);
    alcgAlParams prm = alParams(B);
    prm.lambdaCredit = credit;
    return fail(B, alcg_alContact_alUpdate(p, np, &prm, B->d_x, B->d_xhat, &B->s));
}

alctStatus opCollect(void* be, alciCollectOut* out) {
    Backend* B = (Backend*)be;
    ALCG_RANGE("ccd");
    const alcOption* o = &B->m->opt;
    alcgCollideParams p;
    p.xi = o->ccdMinSep;
    p.rescale = o->ccdRescale;
    p.delta = B->cp.delta;
    p.gapCap = o->ccdGapCap * B->cp.delta;
    p.maxIter = o->ccdMaxIter;
    p.growOnOverflow = B->sim->def.capacity.growOnOverflow;
    alctStatus st = alcg_collide_collect(B->C, B->d_x, B->d_xhat, B->d_kin, &p, out, &B->s);
    if (st == ALC_ERR_CAPACITY) {
        return ALC_ERROR(B->sim, st, "%s (raise capacity.candidates)", B->s.err);
    }
    return fail(B, st);
}

alctStatus opBlockingPair(void* be, alciBlockingPair* out) {
    Backend* B = (Backend*)be;
    return fail(B, alcg_collide_blocking(B->C, B->d_x, B->d_xhat, out, &B->s));
}

/// B->nguards from the device's active set after a merge, which may drop decayed guards
/// (alcg_activeSet_countGuards). The one-int scratch is the inversion bound's, which no other
/// call uses meanwhile.
alctStatus countGuards(Backend* B) {
    int np = 0;
    alcgPair* p = pairs(B, &np);
    return alcg_activeSet_countGuards(p, np, (int*)B->d_boundTemp, &B->nguards, &B->s);
}

/// Add the guards of tets[0..n) to the active set, as alcr_contact_addGuards: the set is copied
/// to the host, the guards are put in their places (alcm_pair_guardSlot, alcm_pair_guardInit),
/// and the set goes back. That costs a round trip of the active set, taken only where the
/// inversion bound cut an outer step with the option on. The guards' d and g are set by the
/// linearization that follows the outer step, as every pair's are (the reference sets them at
/// once too, and the linearization overwrites them with the same values).
alctStatus addGuards(Backend* B, const int* tets, int n, int* added) {
    alcgStream* s = &B->s;
    *added = 0;
    int np = 0;
    alcgPair* p = pairs(B, &np);
    if (np + n > B->guardPairCap) {
        int cap = np + n + (np + n) / 2;
        alcmPair* hp = (alcmPair*)realloc(B->h_guardPairs, sizeof(alcmPair) * (size_t)cap);
        if (!hp) return ALC_ERROR(B->sim, ALC_ERR_NOMEM, "out of host memory for the guards");
        B->h_guardPairs = hp;
        B->guardPairCap = cap;
    }
    alcmPair* h = B->h_guardPairs;
    alctStatus st = np > 0 ? alcg_download(s, h, p, sizeof(alcmPair) * (size_t)np) : ALC_OK;
    if (st != ALC_OK) return fail(B, st);
    for (int i = 0; i < n; i++) {
        int at = alcm_pair_guardSlot(h, np, tets[i]);
        if (at < 0) continue;  // already guarded
        memset(&h[at], 0, sizeof h[at]);
        alcm_pair_guardInit(&h[at], tets[i], B->m->tet_vert + 4 * tets[i]);
        np++;
        (*added)++;
    }
    if (*added == 0) return ALC_OK;
    if (np > B->pairCap && !B->sim->def.capacity.growOnOverflow) {
        return ALC_ERROR(B->sim, ALC_ERR_CAPACITY,
                         "active pairs and tetrahedron guards exceed capacity %d (raise "
                         "capacity.contactPairs)",
                         B->pairCap);
    }
    st = alcg_collide_setPairs(B->C, h, np, s);
    if (st == ALC_OK && np > B->pairCap) {
        st = sizeForPairs(B, np + np / 2);  // rebuilds the incidences too
    } else if (st == ALC_OK) {
        p = pairs(B, &np);
        st = alcg_alContact_incidence(&B->AC, p, np, s);
    }
    B->patternDirty = 1;
    B->nguards += *added;
    return fail(B, st);
}

alctStatus opMergeActive(void* be, int* nactive, int* grown) {
    Backend* B = (Backend*)be;
    ALCG_RANGE("ccd");
    int changed = 0;
    *grown = 0;
    alctStatus st = alcg_collide_merge(B->C, B->cp.removeBelow, B->sim->def.capacity.growOnOverflow,
                                       nactive, grown, &changed, &B->s);
    if (st == ALC_ERR_CAPACITY) {
        return ALC_ERROR(B->sim, st, "%s (raise capacity.contactPairs)", B->s.err);
    }
    if (st == ALC_OK && *grown > B->pairCap) {
        st = sizeForPairs(B, *grown);  // rebuilds the incidences too
    } else if (st == ALC_OK && changed) {
        int np = 0;
        alcgPair* p = pairs(B, &np);
        st = alcg_alContact_incidence(&B->AC, p, np, &B->s);
        B->patternDirty = 1;
    }
    // decayed guards leave with the other pairs
    if (st == ALC_OK && B->nguards > 0) st = countGuards(B);
    return fail(B, st);
}

/// Each tetrahedron's own bound on the chord from X towards XHAT (alcg_tetBound_perTet: the end
/// point's at alpha, or the path bound when alpha < 0), in B->h_guardBound on the host: how the
/// guards are chosen, and the tetrahedron of the -vv log that cut the chord.
alctStatus perTetBounds(Backend* B, double fraction, int allTets, double alpha) {
    int nt = B->m->ntet;
    size_t bytes = sizeof(double) * (size_t)(nt > 0 ? nt : 1);
    alctStatus st = ALC_OK;
    // allocated by make with the guard option; here when it was set on the model after make,
    // or for the log
    if (!B->d_guardBound) st = upload(B, (void**)&B->d_guardBound, NULL, bytes);
    if (st != ALC_OK) return fail(B, st);
    if (!B->h_guardBound) B->h_guardBound = (double*)malloc(bytes);
    if (!B->h_guardTets) B->h_guardTets = (int*)malloc(sizeof(int) * ALC_TET_GUARDS_MAX);
    if (!B->h_guardBound || !B->h_guardTets) {
        return ALC_ERROR(B->sim, ALC_ERR_NOMEM, "out of host memory for the tetrahedra's bounds");
    }
    st = alcg_tetBound_perTet(&B->mesh, B->d_x, B->d_xhat, fraction, allTets, alpha,
                              B->d_guardBound, &B->s);
    if (st == ALC_OK) {
        st = alcg_download(&B->s, B->h_guardBound, B->d_guardBound, sizeof(double) * (size_t)nt);
    }
    return fail(B, st);
}

alctStatus opInversionBound(void* be, double fraction, int allTets, int endPoint, double amax,
                            double* alpha, int* guards) {
    Backend* B = (Backend*)be;
    *guards = 0;
    ALCG_RANGE("ccd");
    alctStatus st;
    if (!endPoint) {
        st = tetBound(B, B->d_x, B->d_xhat, fraction, allTets, alpha);
    } else {
        size_t tb = B->boundBytes;
        st = alcg_tetBound_endStep(&B->mesh, B->d_x, B->d_xhat, fraction, allTets, amax, alpha,
                                   B->d_boundTemp, &tb, &B->s);
    }
    if (st != ALC_OK || B->cp.tetGuards <= 0 || !(*alpha < amax)) return fail(B, st);
    // the tetrahedra that cut the chord join the next subproblems as guards, chosen as
    // alcr_elastic_limitingTets chooses them: each one's end-point bound at amax
    st = perTetBounds(B, fraction, allTets, amax);
    if (st != ALC_OK) return st;
    int cap = B->cp.tetGuards < ALC_TET_GUARDS_MAX ? B->cp.tetGuards : ALC_TET_GUARDS_MAX;
    int n = alcm_tet_guardSelect(B->h_guardBound, B->m->ntet, amax, B->h_guardTets, cap);
    return addGuards(B, B->h_guardTets, n, guards);
}

alctStatus opBlockingTet(void* be, double fraction, int allTets, int endPoint, double amax,
                         alciBlockingTet* out) {
    Backend* B = (Backend*)be;
    memset(out, 0, sizeof *out);
    alctStatus st = perTetBounds(B, fraction, allTets, endPoint ? amax : -1);
    if (st != ALC_OK) return st;
    int t = -1;
    if (alcm_tet_guardSelect(B->h_guardBound, B->m->ntet, amax, &t, 1) == 0) return ALC_OK;
    out->found = 1;
    out->tet = t;
    out->bound = B->h_guardBound[t];
    const int* tv = B->m->tet_vert + 4 * t;
    for (int a = 0; a < 4 && st == ALC_OK; a++) {
        st = alcg_download(&B->s, out->x + 3 * a, B->d_x + 3 * tv[a], 3 * sizeof(double));
        if (st == ALC_OK) {
            st = alcg_download(&B->s, out->xhat + 3 * a, B->d_xhat + 3 * tv[a], 3 * sizeof(double));
        }
    }
    return fail(B, st);
}

alctStatus opAdvance(void* be, double alpha) {
    Backend* B = (Backend*)be;
    return fail(B, alcg_stepVec_advance(B->N, alpha, B->d_xhat, B->d_x, &B->s));
}

alctStatus opSyncXhat(void* be) {
    Backend* B = (Backend*)be;
    if (cudaMemcpyAsync(B->d_xhat, B->d_x, sizeof(double) * (size_t)B->N, cudaMemcpyDeviceToDevice,
                        (cudaStream_t)B->s.stream) != cudaSuccess) {
        return ALC_ERROR(B->sim, ALC_ERR_CUDA, "cuda backend: copying X to XHAT failed");
    }
    return ALC_OK;
}

alctStatus opEndStep(void* be, double* x, double* v) {
    Backend* B = (Backend*)be;
    alcgStream* s = &B->s;
    size_t vec = sizeof(double) * (size_t)B->N;
    // the next step lags friction with this step's mu and delta (AL paper Eq. 23)
    B->lastMu = B->cp.mu;
    B->lastDelta = B->cp.delta;
    alctStatus st = alcg_stepVec_velocity(B->N, 1.0 / B->h, B->d_x, B->d_xt, B->d_trial, s);
    if (st == ALC_OK) st = alcg_download(s, x, B->d_x, vec);
    if (st == ALC_OK) st = alcg_download(s, v, B->d_trial, vec);
    if (st == ALC_OK) memcpy(B->h_x, x, vec);
    return fail(B, st);
}

alctStatus opContacts(void* be, alcContact* out, int cap, int* n, double* bodyForce) {
    Backend* B = (Backend*)be;
    alcgStream* s = &B->s;
    int np = 0;
    alcgPair* p = pairs(B, &np);
    int need = np > B->nfric ? np : B->nfric;
    if (need > B->hostCap) {
        alcmPair* hp = (alcmPair*)realloc(B->h_pairs, sizeof(alcmPair) * (size_t)need);
        if (hp) B->h_pairs = hp;
        alcmFric* hf = (alcmFric*)realloc(B->h_fric, sizeof(alcmFric) * (size_t)need);
        if (hf) B->h_fric = hf;
        if (!hp || !hf) return ALC_ERROR(B->sim, ALC_ERR_NOMEM, "out of memory for the report");
        B->hostCap = need;
    }
    alctStatus st = ALC_OK;
    if (np > 0) st = alcg_download(s, B->h_pairs, p, sizeof(alcmPair) * (size_t)np);
    if (st == ALC_OK && B->nfric > 0) {
        st = alcg_download(s, B->h_fric, B->d_fric, sizeof(alcmFric) * (size_t)B->nfric);
    }
    if (st != ALC_OK) return fail(B, st);
    alciReportIn in = {B->m,          B->h_x,   B->h_xt,     B->h,
                       B->cp.penalty, B->cp.mu, B->cp.delta, B->cp.frictionEpsV};
    alci_contactReport(&in, B->h_pairs, np, B->h_fric, B->nfric, out, cap, n, bodyForce);
    return ALC_OK;
}

int opNactive(void* be) {
    int np = 0;
    pairs((Backend*)be, &np);
    return np - ((Backend*)be)->nguards;
}

/// Device bytes of the backend's own arrays (not the modules'), as make allocates them.
size_t ownBytes(const Backend* B) {
    size_t vec = sizeof(double) * (size_t)B->N;
    const alcModel* m = B->m;
    return 10 * vec + (size_t)B->n + sizeof(double) * 9 * (size_t)B->n + B->pcgBytes +
           B->boundBytes + sizeof(double) * alcg_stepVec_normsScratch(B->N > 0 ? B->N : 1) +
           sizeof(int) * ALCG_DIAG_SCRATCH + 2 * sizeof(double) +
           sizeof(int) * ((size_t)m->nsvert + 2 * (size_t)m->nedge + 3 * (size_t)m->ntri) +
           sizeof(int) * ((size_t)B->n + 3 * (size_t)m->nbody) +
           sizeof(double) * (size_t)m->nmat * (size_t)m->nmat +
           (m->opt.tetGuards > 0 ? sizeof(double) * (size_t)(m->ntet > 0 ? m->ntet : 1) : 0);
}

/// What the device holds for the sim: the arena's chunks.
size_t opMemory(void* be) {
    alcgArenaStats a;
    alcg_arena_stats(((Backend*)be)->arena, &a);
    return a.reserved;
}

alctStatus opGetCarry(void* be, alcmPair* out, int cap, int* npair, double* lastMu,
                      double* lastDelta) {
    Backend* B = (Backend*)be;
    *lastMu = B->lastMu;
    *lastDelta = B->lastDelta;
    int np = 0;
    alcgPair* p = pairs(B, &np);
    *npair = np;
    if (!out || np == 0) return ALC_OK;
    if (np > cap) return ALC_ERR_CAPACITY;
    return fail(B, alcg_download(&B->s, out, p, sizeof(alcgPair) * (size_t)np));
}

alctStatus opSetCarry(void* be, const alcmPair* in, int npair, double lastMu, double lastDelta) {
    Backend* B = (Backend*)be;
    alcgStream* s = &B->s;
    alctStatus st = alcg_collide_setPairs(B->C, in, npair, s);
    // the friction pairs are lagged again by the next step, from these pairs
    B->nfric = 0;
    if (st == ALC_OK) st = alcg_friction_incidence(&B->F, NULL, 0, s);
    if (st == ALC_OK && npair > B->pairCap) {
        st = sizeForPairs(B, npair);  // rebuilds the incidences too
    } else if (st == ALC_OK) {
        int np = 0;
        alcgPair* p = pairs(B, &np);
        st = alcg_alContact_incidence(&B->AC, p, np, s);
    }
    B->patternDirty = 1;
    B->lastMu = lastMu;
    B->lastDelta = lastDelta;
    // the guards, which a checkpoint may bring into a sim made without the option, are the
    // host copy's prefix of negative keys: counted here, with no device pass
    B->nguards = 0;
    while (st == ALC_OK && B->nguards < npair && in[B->nguards].key < 0) B->nguards++;
    return fail(B, st);
}

// ---- the IPC barrier model: on the reference backend only ----------------------------------

alctStatus ipcUnsupported(void* be) {
    return ALC_ERROR(((Backend*)be)->sim, ALC_ERR_UNSUPPORTED,
                     "the IPC contact model runs on the reference backend only");
}
alctStatus opIpcVoid(void* be) {
    return ipcUnsupported(be);
}
alctStatus opIpcConstraints(void* be, double, int*, double*) {
    return ipcUnsupported(be);
}
alctStatus opIpcAssemble(void* be, double, double*, double, double, int) {
    return ipcUnsupported(be);
}
alctStatus opIpcEnergy(void* be, double, double, double, double*, double*) {
    return ipcUnsupported(be);
}
alctStatus opIpcStepBound(void* be, double*) {
    return ipcUnsupported(be);
}
alctStatus opIpcBoundaryAl(void* be, int, double) {
    return ipcUnsupported(be);
}
alctStatus opIpcBoundaryProgress(void* be, double*) {
    return ipcUnsupported(be);
}
alctStatus opIpcFrictionLag(void* be, double) {
    return ipcUnsupported(be);
}

const alciBackendOps kCudaOps = {"cuda",
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
                                 opIpcVoid,
                                 opSyncXhat,
                                 opIpcConstraints,
                                 opIpcAssemble,
                                 opIpcEnergy,
                                 opIpcStepBound,
                                 opIpcBoundaryAl,
                                 opIpcVoid,
                                 opIpcBoundaryProgress,
                                 opIpcFrictionLag,
                                 NULL,   // mlcpStep: the mlcp-cr model is reference-only
                                 NULL,
                                 NULL,
                                 NULL,   // dsStep: the penalty-ds model is reference-only
                                 NULL,
                                 NULL,
                                 opBlockingPair,
                                 opBlockingTet};

/// Allocate and fill everything; the status and the message on B->s on failure.
/// The capacities of the contact buffers: from alcSimDef.capacity, or the reference's defaults.
void contactCaps(const Backend* B, int* pairCap, int* candCap) {
    const alcModel* m = B->m;
    const alcSimDef* def = &B->sim->def;
    *pairCap = def->capacity.contactPairs;
    if (*pairCap <= 0) *pairCap = 8 * m->nsvert > 4096 ? 8 * m->nsvert : 4096;
    *candCap = def->capacity.candidates;
    if (*candCap <= 0) *candCap = 16 * m->nsvert > 16384 ? 16 * m->nsvert : 16384;
}

/// Static upper blocks of the matrix (the diagonal and one per pair of vertices sharing a
/// tetrahedron) from the mesh graph's rows, which hold both directions and the vertex itself.
int staticBlocks(int n, const int* rowptr) {
    return (int)(((long long)rowptr[n] + n) / 2);
}

/// Device bytes make will allocate, each allocation unrounded: the backend's own arrays, every
/// module's make and sizeForPairs(pairCap). Also sets pcgBytes and boundBytes.
alctStatus needBytes(Backend* B, const int* rowptr, int pairCap, int candCap, size_t* need) {
    const alcModel* m = B->m;
    alcgStream* s = &B->s;
    *need = 0;
    alcgBsr probe;
    memset(&probe, 0, sizeof probe);
    probe.n = B->n;
    alctStatus st =
        alcg_pcg_solve(&probe, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, &B->pcgBytes, s);
    alcgTetMesh mesh;
    memset(&mesh, 0, sizeof mesh);
    mesh.ntet = m->ntet;
    if (st == ALC_OK) {
        st = alcg_tetBound_maxStep(&mesh, NULL, NULL, 0.5, 0, NULL, NULL, &B->boundBytes, s);
    }
    int nstatic = staticBlocks(B->n, rowptr);
    long long blocks = (long long)nstatic + 12LL * pairCap;
    if (st == ALC_OK && blocks > 0x7fffffffLL) {
        snprintf(s->err, sizeof s->err, "the matrix would need %lld blocks (more than 2^31)",
                 blocks);
        st = ALC_ERR_CAPACITY;
    }
    size_t mom = 0, col = 0, ac = 0, fr = 0, pat = 0;
    alcgSurface sf = {B->n, m->nsvert, m->nedge, m->ntri, NULL, NULL, NULL};
    if (st == ALC_OK) st = alcg_momentum_need(B->n, &mom, s);
    if (st == ALC_OK) st = alcg_collide_need(&sf, candCap, pairCap, &col, s);
    if (st == ALC_OK) st = alcg_alContact_need(B->n, pairCap, &ac, s);
    if (st == ALC_OK) st = alcg_friction_need(B->n, pairCap, &fr, s);
    if (st == ALC_OK) st = alcg_pattern_need(B->n, nstatic, 2 * pairCap, (int)blocks, &pat, s);
    if (st != ALC_OK) return st;
    *need = ownBytes(B) + alcg_elastic_need(B->n, m->ntet, nstatic) + mom +
            alcg_kinCarry_need(B->n, rowptr[B->n]) + col + ac + fr + pat +
            sizeof(alcgFric) * (size_t)pairCap + alcg_bsr_need(B->n, (int)blocks);
    return ALC_OK;
}

/// Slack of the arena beyond the need: each allocation is rounded up to ALCG_ARENA_ALIGN, and
/// make allocates about a hundred (measured: 7-13 kB of rounding on five shipped scenes).
size_t arenaSlack(void) {
    return 256 * (size_t)ALCG_ARENA_ALIGN;
}

alctStatus make(Backend* B) {
    const alcModel* m = B->m;
    alcgStream* s = &B->s;
    size_t vec = sizeof(double) * (size_t)B->N;
    alctStatus st = ALC_OK;
    int pairCap = 0, candCap = 0;
    contactCaps(B, &pairCap, &candCap);
    // the mesh graph: the static pattern's size and the carry-along's rows
    int *rowptr = NULL, *col = NULL;
    if (alci_vertexRows(m, &rowptr, &col) != ALC_OK) {
        snprintf(s->err, sizeof s->err, "out of host memory");
        return ALC_ERR_NOMEM;
    }
    // one arena for everything, sized before anything is allocated; a device with less free
    // memory is refused here with the whole figure
    size_t need = 0;
    st = needBytes(B, rowptr, pairCap, candCap, &need);
    size_t arenaBytes = need + arenaSlack();
    size_t freeB = 0, totalB = 0;
    alcg_memInfo(&freeB, &totalB);
    if (st == ALC_OK && totalB > 0 && arenaBytes > freeB) {
        snprintf(s->err, sizeof s->err,
                 "it needs %.1f MB of device memory and the device has %.1f MB free of %.1f MB",
                 arenaBytes / 1e6, freeB / 1e6, totalB / 1e6);
        st = ALC_ERR_DEVICE_NOMEM;
    }
    // ALC_CUDA_ARENA=0: every array its own cudaMalloc, for memory checkers (cuda/arena.h)
    const char* env = getenv("ALC_CUDA_ARENA");
    int passthrough = env && strcmp(env, "0") == 0;
    if (st == ALC_OK) st = alcg_arena_make(&B->arena, passthrough ? 0 : arenaBytes, s);
    if (st != ALC_OK) {
        free(rowptr);
        free(col);
        return st;
    }
    s->arena = B->arena;
    // model arrays
    double** vecs[] = {&B->d_xt, &B->d_vt, &B->d_xtilde, &B->d_x,   &B->d_xhat,
                       &B->d_p,  &B->d_g,  &B->d_trial,  &B->d_rhs, &B->d_target};
    for (size_t i = 0; i < sizeof vecs / sizeof vecs[0] && st == ALC_OK; i++) {
        st = upload(B, (void**)vecs[i], NULL, vec);
    }
    if (st == ALC_OK) st = upload(B, (void**)&B->d_kin, NULL, (size_t)B->n);
    if (st == ALC_OK) st = alcg_memset(s, B->d_kin, 0, (size_t)B->n ? (size_t)B->n : 1);
    if (st == ALC_OK) st = upload(B, (void**)&B->d_svert, m->svert, sizeof(int) * m->nsvert);
    if (st == ALC_OK) {
        st = upload(B, (void**)&B->d_edge_vert, m->edge_vert, sizeof(int) * 2 * (size_t)m->nedge);
    }
    if (st == ALC_OK) {
        st = upload(B, (void**)&B->d_tri_vert, m->tri_vert, sizeof(int) * 3 * (size_t)m->ntri);
    }
    if (st == ALC_OK) st = upload(B, (void**)&B->d_vertBody, m->vert_body, sizeof(int) * B->n);
    if (st == ALC_OK) st = upload(B, (void**)&B->d_bodyMat, m->body_mat, sizeof(int) * m->nbody);
    if (st == ALC_OK) {
        st = upload(B, (void**)&B->d_vertadr, m->body_vertadr, sizeof(int) * m->nbody);
    }
    if (st == ALC_OK) {
        st = upload(B, (void**)&B->d_vertnum, m->body_vertnum, sizeof(int) * m->nbody);
    }
    if (st == ALC_OK) {
        st = upload(B, (void**)&B->d_matFriction, m->mat_friction,
                    sizeof(double) * (size_t)m->nmat * (size_t)m->nmat);
    }
    // elasticity and the Newton system
    if (st == ALC_OK) st = alcg_elastic_make(&B->E, m, NULL, NULL, NULL, s);
    if (st == ALC_OK) st = alcg_momentum_make(&B->M, B->n, s);
    if (st == ALC_OK) st = alcg_kinCarry_make(&B->K, B->n, rowptr, col, s);
    free(rowptr);
    free(col);
    if (st == ALC_OK) st = upload(B, (void**)&B->d_Minv, NULL, sizeof(double) * 9 * B->n);
    if (st == ALC_OK) st = upload(B, &B->d_pcgTemp, NULL, B->pcgBytes);
    if (st == ALC_OK) {
        B->mesh.ntet = m->ntet;
        B->mesh.d_tet_vert = B->E.d_tet_vert;
        B->mesh.d_tet_vol = B->E.d_tet_vol;
        B->mesh.d_tet_model = B->E.d_tet_model;
        B->mesh.d_kin = B->d_kin;
    }
    if (st == ALC_OK) st = upload(B, &B->d_boundTemp, NULL, B->boundBytes);
    if (st == ALC_OK && m->opt.tetGuards > 0) {
        st = upload(B, (void**)&B->d_guardBound, NULL,
                    sizeof(double) * (size_t)(m->ntet > 0 ? m->ntet : 1));
    }
    if (st == ALC_OK) {
        st = upload(B, (void**)&B->d_red, NULL,
                    sizeof(double) * alcg_stepVec_normsScratch(B->N > 0 ? B->N : 1));
    }
    if (st == ALC_OK) st = upload(B, (void**)&B->d_diagHist, NULL, sizeof(int) * ALCG_DIAG_SCRATCH);
    if (st == ALC_OK) st = upload(B, (void**)&B->d_diagOut, NULL, 2 * sizeof(double));
    // contact: the collision stage with the capacities of contactCaps
    if (st == ALC_OK) {
        alcgSurface sf = {B->n,       m->nsvert,      m->nedge,     m->ntri,
                          B->d_svert, B->d_edge_vert, B->d_tri_vert};
        st = alcg_collide_make(&sf, candCap, pairCap, &B->C, s);
    }
    if (st == ALC_OK) st = sizeForPairs(B, pairCap);
    B->bodies.nbody = m->nbody;
    B->bodies.d_vertadr = B->d_vertadr;
    B->bodies.d_vertnum = B->d_vertnum;
    B->mats.d_vertBody = B->d_vertBody;
    B->mats.d_bodyMat = B->d_bodyMat;
    B->mats.d_matFriction = B->d_matFriction;
    B->mats.nmat = m->nmat;
    B->mats.frictionDefault = m->opt.frictionDefault;
    // host copies for the report
    if (st == ALC_OK) {
        B->h_x = (double*)calloc((size_t)B->N + 1, sizeof(double));
        B->h_xt = (double*)calloc((size_t)B->N + 1, sizeof(double));
        B->h_matFriction = (double*)malloc(sizeof(double) * ((size_t)m->nmat * m->nmat + 1));
        if (B->h_matFriction) {
            memcpy(B->h_matFriction, m->mat_friction, sizeof(double) * (size_t)m->nmat * m->nmat);
        }
        if (!B->h_x || !B->h_xt || !B->h_matFriction) {
            snprintf(s->err, sizeof s->err, "out of host memory");
            st = ALC_ERR_NOMEM;
        }
    }
    B->patternDirty = 1;
    B->compDirty = 1;
    return st;
}

}  // namespace

extern "C" int alcg_backend_complete(void) {
    return 1;
}

extern "C" alctStatus alcg_backend_make(alcSim* sim, alciBackend* out) {
    if (!alcu_cudaAvailable()) {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        cudaGetLastError();
        return ALC_ERROR(sim, ALC_ERR_NO_DEVICE,
                         "backend 'cuda' selected but no CUDA device is "
                         "usable (%s); use backend 'ref' or 'auto'",
                         e == cudaSuccess ? "device count is 0" : cudaGetErrorString(e));
    }
    const alcModel* m = sim->m;
    if (m->opt.contact == ALC_CONTACT_IPC) {
        return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                         "the IPC contact model runs on the reference backend only; use backend "
                         "'ref' (or contact 'al')");
    }
    if (m->opt.linearSolver != ALC_LINSOLVE_PCG) {
        return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                         "linear_solver '%s' (Cholesky) runs on the reference backend only; the "
                         "CUDA backend solves by PCG: use backend 'ref' or linear_solver 'pcg'",
                         m->opt.linearSolver == ALC_LINSOLVE_DIRECT ? "direct" : "auto");
    }
    if (m->opt.hessianReuse) {
        return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                         "hessian_reuse 'step' runs on the reference backend only; use backend "
                         "'ref' or hessian_reuse 'newton'");
    }
    if (m->nrigid > 0) {
        return ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                         "rigid bodies run on the reference backend only so far (issue 17); use "
                         "backend 'ref'");
    }
    if (cudaSetDevice(sim->def.device) != cudaSuccess) {
        cudaGetLastError();
        return ALC_ERROR(sim, ALC_ERR_NO_DEVICE, "CUDA device %d cannot be selected",
                         sim->def.device);
    }
    Backend* B = (Backend*)calloc(1, sizeof(Backend));
    if (!B) return ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory");
    B->sim = sim;
    B->m = m;
    B->n = m->nvert;
    B->N = 3 * m->nvert;
    B->h = m->opt.timestep;
    // ALC_CUDA_PCG_ONE_BLOCK_ROWS: PCG's one-block crossover (cuda/pcg.h), for measuring it
    B->pcgOneBlockRows = ALCG_PCG_ONE_BLOCK_ROWS;
    const char* rowsEnv = getenv("ALC_CUDA_PCG_ONE_BLOCK_ROWS");
    if (rowsEnv && *rowsEnv) {
        char* endp = NULL;
        long v = strtol(rowsEnv, &endp, 10);
        if (*endp || v < 0 || v > ALCG_PCG_ONE_BLOCK_MAX_ROWS) {
            free(B);
            return ALC_ERROR(sim, ALC_ERR_INVALID_ARG,
                             "ALC_CUDA_PCG_ONE_BLOCK_ROWS=%s: expected an integer from 0 to %d",
                             rowsEnv, ALCG_PCG_ONE_BLOCK_MAX_ROWS);
        }
        B->pcgOneBlockRows = (int)v;
    }
    if (alcg_stream_make(&B->s) != ALC_OK) {
        alctStatus st = ALC_ERROR(sim, ALC_ERR_CUDA, "cuda backend: %s", B->s.err);
        free(B);
        return st;
    }
    alctStatus st = make(B);
    if (st != ALC_OK) {
        if (st == ALC_ERR_DEVICE_NOMEM) {
            // the arena is sized and checked before anything is allocated: the figure is whole
            st = ALC_ERROR(sim, st, "the scene does not fit the device: %s", B->s.err);
        } else {
            st = ALC_ERROR(sim, st, "cuda backend setup failed: %s", B->s.err);
        }
        opDestroy(B);
        return st;
    }
    out->ops = &kCudaOps;
    out->state = B;
    return ALC_OK;
}
