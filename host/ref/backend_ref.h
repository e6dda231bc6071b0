// State of the CPU reference backend, shared by its modules (host/ref/*_ref.c). Simple,
// deterministic algorithms in double precision, parallelized with OpenMP where it pays.
#ifndef ALC_HOST_REF_BACKEND_REF_H_
#define ALC_HOST_REF_BACKEND_REF_H_

#include "alc_internal.h"
#include "ref/broad_ref.h"
#include "ref/bsr_ref.h"

/// Pair kinds.
enum { ALCR_PT = 0, ALCR_EE = 1 };

/// Sort key of a pair: kind, then primitive indices (PT: surface vertex, triangle; EE: edges).
#define ALCR_KEY(type, a, b) (((long long)(type) << 62) | ((long long)(a) << 31) | (long long)(b))

/// An active contact pair with its AL state and its linearization at X.
typedef struct alcrPair_ {
    long long key;  // ALCR_KEY
    int type;       // ALCR_PT or ALCR_EE
    int v[4];       // PT: point, triangle; EE: edge a, edge b
    double lambda;  // multiplier (IP units, >= 0)
    double gamma;   // decay factor
    double d;       // distance at X (m)
    double g[12];   // grad d at X
    double c;       // constraint value at the last evaluated xhat (scratch)
    int active;     // c < lambda/mu at the last assembly (its Hessian is in the matrix)
} alcrPair;

/// A candidate pair that collides along X -> XHAT, with its time of impact.
typedef struct alcrCand_ {
    long long key;
    int type;
    int v[4];
    double toi;
} alcrCand;

/// Lagged friction pair (AL paper Appendix A, IPC §5): fixed during a step.
typedef struct alcrFric_ {
    long long key;  // key of the active pair it was lagged from
    int type;       // ALCR_PT or ALCR_EE
    int v[4];
    double w[4];  // relative-displacement weights: r = sum_a w[a] (x_a - xt_a)
    double T[6];  // tangent basis, two unit columns (3 x 2, column-major)
    double coef;  // mu_f * F (N): friction coefficient times lagged normal force
} alcrFric;

typedef struct alcrBackend_ {
    alcSim* sim;
    const alcModel* m;
    int n;  // vertices
    int N;  // 3 n
    double h;
    double gravity[3];

    // step vectors (N doubles each)
    double* xt;
    double* vt;
    double* xtilde;
    double* x;
    double* xhat;
    double* p;
    double* g;
    double* trial;
    double* pcgWork;     // 4 N
    unsigned char* kin;  // kinematic mask of the step (n)

    // elasticity: per-tet blocks and the static pattern
    double* elemH;   // ntet x 144
    double* elemG;   // ntet x 12
    double* elemE;   // ntet
    double* tetMu;   // ntet Lame mu
    double* tetLam;  // ntet Lame lambda
    int* tetModel;   // ntet material model
    int* vtAdr;      // vertex -> incidences (n + 1)
    int* vtList;     // 4 ntet entries: tet * 4 + local index
    int* srowptr;    // static pattern (n + 1)
    int* scol;       // static pattern columns
    alcrBsr A;
    double* Minv;  // block-Jacobi (n x 9)
    int patternDirty;
    double* redScratch;  // per-element scratch for deterministic reductions

    // contact
    alciContactParams cp;
    alcrPair* pairs;  // active set, sorted by key (pairCap)
    alcrPair* pairsTmp;
    int npair, pairCap;
    int grown;       // pair capacity after a grow in the last merge (0 = none)
    int* stencil;    // pattern scratch: vertices of pairs and friction pairs (4 x 2 pairCap)
    int* vpAdr;      // vertex -> pair incidences (n + 1)
    int* vpList;     // 4 pairCap entries: pair * 4 + local index
    double* pairE;   // per-pair energies (pairCap)
    alcrCand* cand;  // colliding candidates of the last collect (candCap)
    int ncand, candCap;
    int* bpPT;        // broad-phase PT output (candCap x 2)
    int* bpEE;        // broad-phase EE output (candCap x 2)
    double* candToi;   // per broad-phase candidate conservative time of impact (2 candCap)
    double* candReach; // per candidate time it comes within xi + delta/2, or 2 (2 candCap)
    double* vmin;     // per-vertex earliest time of impact (n)
    alcrBroad* broad;

    // friction lagged from the previous step
    alcrFric* fric;
    int nfric, fricCap;
    double* fricE;     // per-pair energies (fricCap)
    double lastMu;     // mu at the end of the previous step (for Eq. 23)
    double lastDelta;  // delta at the end of the previous step

    size_t bytes;  // memory held
} alcrBackend;

// elastic_ref.c
alctStatus alcr_elastic_make(alcrBackend* B);
void alcr_elastic_free(alcrBackend* B);
/// E at XHAT + r P (inertia + elasticity + friction), trial positions left in B->trial.
double alcr_elastic_energy(alcrBackend* B, double r);
alctStatus alcr_elastic_assemble(alcrBackend* B, alciAssembleOut* out);
double alcr_elastic_maxStep(alcrBackend* B, const double* from, const double* to, double fraction,
                            int allTets);

// contact_ref.c
alctStatus alcr_contact_make(alcrBackend* B);
void alcr_contact_free(alcrBackend* B);
void alcr_contact_reset(alcrBackend* B);
void alcr_contact_linearize(alcrBackend* B);
/// Contact energy sum_i gamma_i phi(c_i) at the positions pos (N doubles).
double alcr_contact_energy(alcrBackend* B, const double* pos);
alctStatus alcr_contact_assemble(alcrBackend* B);
void alcr_contact_alUpdate(alcrBackend* B);
/// Pairs whose activity (c < lambda/mu) at the positions pos differs from the last assembly.
int alcr_contact_flips(alcrBackend* B, const double* pos);
alctStatus alcr_contact_merge(alcrBackend* B, int* nactive);
alctStatus alcr_contact_report(alcrBackend* B, alcContact* out, int cap, int* n, double* bodyForce);
/// Normal force of a pair times h^2 (IP units), AL paper Eq. 23 (see contact_ref.c).
double alcr_contact_normalForce(const alcrBackend* B, const alcrPair* P);
/// Make sure the BSR pattern holds the static and contact blocks.
alctStatus alcr_contact_pattern(alcrBackend* B);

// ccd_ref.c
alctStatus alcr_ccd_make(alcrBackend* B);
void alcr_ccd_free(alcrBackend* B);
alctStatus alcr_ccd_collect(alcrBackend* B, alciCollectOut* out);

// friction_ref.c
alctStatus alcr_friction_make(alcrBackend* B);
void alcr_friction_free(alcrBackend* B);
/// Lag friction from the active set at XT (start of a step).
void alcr_friction_lag(alcrBackend* B);
double alcr_friction_energy(alcrBackend* B, const double* pos);
/// Add friction gradient and Hessian at XHAT into G and the BSR blocks (kinematic eliminated).
void alcr_friction_assemble(alcrBackend* B);

#endif  // ALC_HOST_REF_BACKEND_REF_H_
