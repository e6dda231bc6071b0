// State of the CPU reference backend, shared by its modules (host/ref/*_ref.c). Simple,
// deterministic algorithms in double precision, parallelized with OpenMP where it pays.
#ifndef ALC_HOST_REF_BACKEND_REF_H_
#define ALC_HOST_REF_BACKEND_REF_H_

#include "alc_internal.h"
#include "hd/alcm_pair.h"
#include "hd/alcm_pairstate.h"
#include "ref/broad_ref.h"
#include "ref/bsr_ref.h"
#include "ref/direct_ref.h"

/// Most DOF nodes a contact stencil reaches with rigid bodies: a point and a triangle, or two
/// edges, each on one body; a soft triangle (3 rows) and a rigid point (theta, q) reach 5.
#define ALCR_RIGID_STENCIL 5

/// Off-diagonal blocks one contact stencil may add to the matrix: w (w - 1) for w DOF nodes.
#define ALCR_STENCIL_BLOCKS(B) ((B)->stencilWidth * ((B)->stencilWidth - 1))

/// A rigid body's weight in mu of AL paper Eq. 20: it enters the maximum of the diagonal as this
/// many times its mass (elastic_ref.c). With C = 0.1 that is mu = 100 m: a rigid body has no
/// compliance of its own, so a subproblem's iterate sinks into its contacts by about the load
/// over mu, and the step bound then cuts alpha. Measured: at 0.1 m (C times the mass) two
/// stacked cubes bounced by g h^2; at 10 m the 23-stone rigid arch (joints 2 um, delta 1 um)
/// needed 68.7 Newton iterations a step with alpha around 1e-2; at 100 m, 26.3.
#define ALCR_RIGID_MU_MASS 1000.0

/// Pair kinds (one definition with the CUDA modules: hd/alcm_pair.h).
enum { ALCR_PT = ALC_PAIR_PT, ALCR_EE = ALC_PAIR_EE, ALCR_TETGUARD = ALC_PAIR_TETGUARD };

/// Sort key of a pair: kind, then primitive indices (PT: surface vertex, triangle; EE: edges).
#define ALCR_KEY(type, a, b) ALC_PAIR_KEY(type, a, b)

/// An active contact pair (hd/alcm_pairstate.h: one layout with the CUDA modules).
typedef alcmPair alcrPair;

/// A barrier constraint of the IPC model: a PT or EE pair within dhat, with its distance type.
typedef struct alcrIpcPair_ {
    int type;    // ALCR_PT or ALCR_EE
    int v[4];    // PT: point, triangle; EE: edge a, edge b
    int dtype;   // closest-feature type (alctDistType)
    double eps;  // EE mollifier threshold (IPC Eq. 24); 0 for PT
} alcrIpcPair;

/// A candidate pair that collides along X -> XHAT, with its time of impact.
typedef struct alcrCand_ {
    long long key;
    int type;
    int v[4];
    double toi;
} alcrCand;

/// A lagged friction pair (hd/alcm_pairstate.h).
typedef alcmFric alcrFric;

typedef struct alcrBackend_ {
    alcSim* sim;
    const alcModel* m;
    int n;   // vertices
    int nn;  // DOF nodes: the n vertices, then two per rigid body (theta, q)
    int N;   // 3 nn: the length of the step vectors below
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
    unsigned char* kin;  // kinematic mask of the step: the vertices, then the rigid bodies'
                         // nodes (nn; a kinematic rigid body's two nodes and its vertices)
    int* carryLevel;     // kinPlace's carry-along: ring of each vertex (n; alcm_kincarry.h)
    double* carry;       // kinPlace's carry-along: displacement left after the body shift (N)

    // elasticity: per-tet blocks and the static pattern
    double* elemH;      // ntet x 144 by incidence: rows 3a..3a+2 of tet t's 12 x 12 Hessian
                        // (36 values) at 36 vtSlot[4 t + a], so that the gather reads it in
                        // the order it goes through the rows (elastic_ref.c)
    int elemHFresh;     // elemH holds this step's Hessians (hessianReuse: computed once a step)
    long hessianEvals;  // element Hessians computed (all tetrahedra at once), for the tests
    double* elemG;      // ntet x 12
    double* elemE;      // ntet
    double* tetMu;      // ntet Lame mu
    double* tetLam;     // ntet Lame lambda
    int* tetModel;      // ntet material model
    int* vtAdr;         // vertex -> incidences (n + 1)
    int* vtList;        // 4 ntet entries: tet * 4 + local index
    int* vtSlot;        // 4 ntet: the inverse of vtList, vtList[vtSlot[4 t + a]] = 4 t + a
    int* srowptr;       // static pattern (n + 1)
    int* scol;          // static pattern columns
    alcrBsr A;
    double* Minv;        // block-Jacobi (n x 9)
    alcrDirect* direct;  // Cholesky solver (linear solver direct or auto), else NULL
    int patternDirty;
    double* redScratch;  // per-element scratch for deterministic reductions
    int* comp;           // free vertices: component id of the matrix graph; -1 kinematic (n)
    int* compAnchored;   // 1 if the component touches a kinematic vertex (n)
    int* compParent;     // union-find scratch (n)
    double* compSum;     // per component: 3 momentum sums and the mass (4 n)
    int ncomp;
    int compDirty;  // recompute components before the next solve

    // contact
    alciContactParams cp;
    alcrPair* pairs;  // active set, sorted by key (pairCap)
    alcrPair* pairsTmp;
    struct alcrDs_* ds;                // penalty-ds: the carried pairs and the step's scratch
                                       // (penalty_ds_step_ref.c)
    int hessianExact;                  // 1: alcr_elastic_assemble leaves the element Hessians
                                       // unprojected (penalty-ds: the exact Jacobian of g)
    struct alcrMlcpCarry_* mlcpCarry;  // mlcp-cr: the friction states of the last solve, by
                                       // pair key, carried across steps (mlcp_step_ref.c)
    int npair, pairCap;
    int grown;         // pair capacity after a grow in the last merge (0 = none)
    int* stencil;      // pattern scratch: DOF nodes of pairs and friction pairs (stencilWidth x 2
                       // pairCap)
    int stencilWidth;  // DOF nodes a stencil reaches: 4, or ALCR_RIGID_STENCIL with rigid bodies
    int* vpAdr;        // vertex -> pair incidences (n + 1)
    int* vpList;       // 4 pairCap entries: pair * 4 + local index
    double* pairE;     // per-pair energies (pairCap)
    alcrCand* cand;    // colliding candidates of the last collect (candCap)
    int ncand, candCap;
    int* bpPT;        // broad-phase PT output (candCap x 2)
    int* bpEE;        // broad-phase EE output (candCap x 2)
    double* candToi;  // per broad-phase candidate conservative time of impact (2 candCap)
    double*
        candReach;  // per candidate time it comes within xi + ALC_CCD_REACH delta, or 2 (2 candCap)
    double* vmin;   // per-vertex earliest time of impact (n)
    int lastNpt, lastNee;  // PT and EE candidates of the last collect (alcr_ccd_blocking)
    alcrBroad* broad;

    // friction lagged from the previous step
    alcrFric* fric;
    int nfric, fricCap;
    int nsecant;       // friction pairs the last assembly gave their secant stiffness
    double* fricE;     // per-pair energies (fricCap)
    double lastMu;     // mu at the end of the previous step (for Eq. 23)
    double lastDelta;  // delta at the end of the previous step

    // IPC barrier model (ipc_ref.c): the constraint set at the last evaluated configuration
    alcrIpcPair* ipc;
    int nipc, ipcCap;
    double* kinTarget;    // targets of the kinematic vertices and rigid bodies' nodes this step (N)
    double lastKappa;     // barrier stiffness of the last assembly (for lagged friction)
    double ipcDhat;       // dhat of the last constraint set (m)
    alcmPair* ipcReport;  // the constraint set as pairs for the contact report (ipcReportCap)
    int ipcReportCap;

    // IPC moving boundaries (ipc_boundary_ref.c): kinematic vertices freed into the solve and
    // pulled to their targets by an augmented Lagrangian (IPC digest §1.13)
    unsigned char* kinBody;  // kinematic mask of the step, eliminated or not (nn: the DOF
                             // nodes of kinematic rigid bodies, not their vertices)
    int kinAl;               // 1 while the kinematic DOFs are free under the AL
    double kinRho;           // AL stiffness (dimensionless: a multiple of the AL masses)
    double* kinLambda;       // AL multipliers (N; kg^1/2 m)
    double kinMbar;          // AL mass of a massless kinematic vertex: mean nodal mass (kg)

    // rigid bodies (rigid_ref.c; issue 17): rigid body r has the DOF nodes n + 2 r (its
    // rotation vector theta) and n + 2 r + 1 (its centre of mass q); its vertices' rows in the
    // step vectors are derived from them (alcr_rigid_place) and eliminated from the solve
    int nr;               // rigid bodies
    int* rigidOf;         // rigid body of each vertex, -1 for other vertices (n)
    double* rigidQt;      // Qtilde = 2 Q^t - Q^{t-1} of each rigid body (nr x 9)
    double* rigidRadius;  // largest distance of a body's vertex from its centre of mass (nr; m)
    double* rigidTarget;  // a kinematic rigid body's pose at t + h, its rotation vector the one
                          // nearest to its pose at t (nr x 6; alcr_rigid_begin)
    double* rigidPoseIO;  // the step input's pose arrays, written back by endStep
    double* rigidPrevIO;
    // contact on rigid bodies (rigid_contact_ref.c): per active pair, the DOF nodes its
    // linearized constraint acts on and its gradient there (pulled back at X); NULL without
    // rigid bodies
    int* pairRN;       // pairCap x ALCR_RIGID_STENCIL nodes, -1 past the last
    int* pairRC;       // pairCap: nodes of the pair's pulled-back constraint; 0 for a pair
                       // of soft vertices only (Eq. 10 in vertex positions)
    double* pairRG;    // pairCap x 3 ALCR_RIGID_STENCIL gradients (1, m per rad on theta)
    double* vertInfl;  // per-vertex broad-phase growth: a rigid vertex's deviation from its
                       // chord over X -> XHAT (n; m)

    size_t bytes;  // memory held
} alcrBackend;

// ipc_ref.c: the IPC barrier contact model (IPC paper Eq. 5-7, 24; docs/contact-models.md)
alctStatus alcr_ipc_make(alcrBackend* B);
void alcr_ipc_free(alcrBackend* B);
/// Constraint set at pos: every PT and EE pair within dhat (not all of its vertices kinematic).
/// *minDist2 = the smallest squared distance among them (dhat^2 when there is none).
alctStatus alcr_ipc_constraints(alcrBackend* B, const double* pos, double dhat, double* minDist2);
/// Sum over the constraint set of the mollified barrier b(d^2, dhat^2) at pos (unit stiffness).
double alcr_ipc_energy(alcrBackend* B, const double* pos, double dhat);
/// The barrier's force on pair P at stencil positions x with squared distance s (IPC Eq. 20,
/// mollified for EE), in incremental-potential units (N s^2: divide by h^2 for newtons), for
/// barrier stiffness kappa and S = dhat^2.
double alcr_ipc_pairForce(const alcrIpcPair* P, const alcV3 x[4], double s, double S, double kappa);
/// The constraint set (alcr_ipc_constraints, at the step's end X) as pairs for the contact
/// report (contact_report.h): distance and grad d at X, multiplier the barrier's force times
/// h^2 with the last kappa, decay 1. *pairs stays owned by B, valid until the next call.
alctStatus alcr_ipc_reportPairs(alcrBackend* B, const alcmPair** pairs, int* npair);
/// Gradient of the unit-stiffness barrier at XHAT into gb (N, zero on kinematic rows, even
/// while they are freed into the solve).
void alcr_ipc_gradient(alcrBackend* B, double dhat, double* gb);
/// G += kappa grad, H += kappa PSD-projected barrier Hessian blocks, at XHAT.
alctStatus alcr_ipc_assemble(alcrBackend* B, double dhat, double kappa);
/// Smallest conservative time of impact along XHAT -> XHAT + P (1 when nothing collides).
alctStatus alcr_ipc_stepBound(alcrBackend* B, double* toi);

// ipc_boundary_ref.c: moving boundaries under the IPC model (IPC digest §1.13)
alctStatus alcr_ipcBoundary_make(alcrBackend* B);
void alcr_ipcBoundary_free(alcrBackend* B);
/// on = 1: free the kinematic DOFs into the solve (multipliers zeroed when newly freed);
/// on = 0: eliminate them again where they are. Sets the AL stiffness rho either way.
void alcr_ipcBoundary_set(alcrBackend* B, int on, double rho);
/// Progress eta at X: 1 - sqrt(sum |x_k - xhat_k|^2 / sum |xhat_k - x^t_k|^2) (1: at target).
double alcr_ipcBoundary_progress(const alcrBackend* B);
/// lambda_k -= rho sqrt(m_k) (x_k - xhat_k) at X.
void alcr_ipcBoundary_update(alcrBackend* B);
/// E_A at pos (0 while the kinematic DOFs are eliminated).
double alcr_ipcBoundary_energy(const alcrBackend* B, const double* pos);
/// G += grad E_A, diagonal blocks += rho m_k I, at XHAT (nothing while eliminated).
void alcr_ipcBoundary_assemble(alcrBackend* B);

// momentum_ref.c
alctStatus alcr_momentum_make(alcrBackend* B);
void alcr_momentum_free(alcrBackend* B);
/// Restore exact momentum balance of the Newton direction P on every component of free vertices
/// that touches no kinematic vertex (see momentum_ref.c).
void alcr_momentum_correct(alcrBackend* B);

// rigid_ref.c: rigid bodies as DOF nodes (issue 17, RIPC §4.1)
alctStatus alcr_rigid_make(alcrBackend* B);
void alcr_rigid_free(alcrBackend* B);
/// The rigid vertices of pos (3 nn) at R(theta) vert_local + q of their bodies' nodes in pos.
void alcr_rigid_place(const alcrBackend* B, double* pos);
/// The bodies' nodes of X, XT and XHAT from the step's poses, q~ in XTILDE's q rows, and
/// Qtilde; the kinematic bodies' nodes marked in KIN and at their targets in XHAT; remembers the
/// pose arrays for alcr_rigid_end.
void alcr_rigid_begin(alcrBackend* B, const alciStepInput* in);
/// A kinematic rigid body's nodes in XHAT at its target pose, and its vertices placed (AL paper
/// §5.3: moving boundaries at their targets in xhat^[0]).
void alcr_rigid_kinPlace(alcrBackend* B);
/// Writes the new poses (X's nodes) and the ones a model time step before them to the step's
/// arrays: XT's nodes, or for a part of a split step the poses that give the velocities and the
/// angular momenta the part ended with over a model time step.
void alcr_rigid_end(const alcrBackend* B);
/// Inertia of the rigid bodies at pos (IP units, kg m^2): RIPC Eq. 9 and 10.
double alcr_rigid_energy(const alcrBackend* B, const double* pos);
/// Gradient and Hessian blocks of the rigid bodies' nodes at XHAT (the rotational block projected
/// to positive definite), and identity rows for their vertices.
void alcr_rigid_assemble(alcrBackend* B);
/// Largest fraction in (0, 1] of the Newton direction P that turns no rigid body by more than
/// ALCR_RIGID_MAX_TURN (rigid_ref.c); 1 without rigid bodies.
double alcr_rigid_maxTurn(const alcrBackend* B);
/// Largest displacement the Newton direction P gives a point of a rigid body (m): over the
/// bodies, |dq|_inf + rigidRadius |dtheta|, to first order a bound on how far any of its
/// vertices moves (the rotation map's derivative has singular values <= 1, so a change dtheta
/// moves a point at distance rho by at most rho |dtheta|). 0 without rigid bodies.
double alcr_rigid_stepLength(const alcrBackend* B);
/// Extend the static pattern (srowptr, scol: n rows) by the nodes' diagonal rows (nn rows).
alctStatus alcr_rigid_pattern(alcrBackend* B);

// rigid_contact_ref.c: contact and friction on rigid bodies' DOFs (issue 17, RIPC §4.2-4.3)
/// Allocate (or grow to cap pairs) the per-pair rigid arrays; nothing without rigid bodies.
alctStatus alcr_rigidContact_alloc(alcrBackend* B, int cap);
void alcr_rigidContact_free(alcrBackend* B);
/// 1 when a vertex of the stencil v is on a rigid body.
int alcr_rigid_touches(const alcrBackend* B, const int v[4]);
/// The DOF nodes the stencil v depends on (a soft vertex's own row, a rigid vertex's body's
/// theta and q nodes), distinct, in order of first appearance, into nodes[0 .. width - 1],
/// the rest -1.
void alcr_rigid_stencilNodes(const alcrBackend* B, const int v[4], int width, int* nodes);
/// Pair p's constraint gradient (P->g, in its vertices' positions at X) pulled back to the DOF
/// nodes at X, into pairRN / pairRC / pairRG (pairRC[p] = 0 for a pair of soft vertices).
void alcr_rigid_linearizePair(alcrBackend* B, int p);
/// c(pos) - (d - delta) of pair p: the linearized constraint's change from X to pos (Eq. 10
/// in the DOF nodes).
double alcr_rigid_pairDelta(const alcrBackend* B, int p, const double* pos);
/// G += coef grad c, and H += s grad c grad c^T when s > 0, of every pair with rigid vertices
/// (coef: per pair; serial, deterministic), kinematic rows eliminated.
void alcr_rigid_contactAssemble(alcrBackend* B, const double* coef, double mu);
/// Pull a stencil's gradient and Hessian in its 4 vertices' positions (at XHAT) back to the
/// DOF nodes and add them to G and the matrix, kinematic rows eliminated.
void alcr_rigid_addStencil(alcrBackend* B, const int v[4], const double g[12], const double* H);
/// out (3 nn) += the gradient g over the stencil v's vertices (12), pulled back at XHAT onto the
/// DOF nodes it depends on; kinematic nodes left out.
void alcr_rigid_addGradient(const alcrBackend* B, const int v[4], const double g[12], double* out);
/// Broad-phase growth of every vertex over from -> to (3 nn each, rigid vertices placed) into
/// vertInfl: a rigid vertex's deviation from its chord, 0 for others (NULL without rigid bodies).
const double* alcr_rigid_inflation(alcrBackend* B, const double* from, const double* to);
/// Curved-trajectory CCD (RIPC Algorithm 1) of the stencil v (isEE) along from -> to (3 nn
/// each: X -> XHAT for the AL step bound, XHAT -> XHAT + P for the IPC line search), the rigid
/// bodies' nodes moving linearly in (theta, q): 1 and *toi when it comes within
/// dmin + keep (d0 - dmin), d0 its distance at `from` (keep in [0, 1): the share of the gap a
/// step keeps, as the linear CCD's rescale s does); else 0 and *toi = 1.
int alcr_rigid_ccd(const alcrBackend* B, const double* from, const double* to, const int v[4],
                   int isEE, double dmin, double keep, double* toi);

// elastic_ref.c
alctStatus alcr_elastic_make(alcrBackend* B);
void alcr_elastic_free(alcrBackend* B);
/// E at XHAT + r P (inertia + elasticity + friction), trial positions left in B->trial.
double alcr_elastic_energy(alcrBackend* B, double r);
alctStatus alcr_elastic_assemble(alcrBackend* B, alciAssembleOut* out);
/// G alone (inertia and elasticity, kinematic rows zero) at XHAT, as alcr_elastic_assemble
/// computes it, without the Hessian; no rigid bodies, no friction (the penalty-ds model's
/// line-search trials).
void alcr_elastic_gradient(alcrBackend* B);
/// Largest alpha in [0, 1] keeping every protected tetrahedron above its volume target along
/// the whole segment from -> to (alcm_tet_maxStepTo per tetrahedron).
double alcr_elastic_maxStep(alcrBackend* B, const double* from, const double* to, double fraction,
                            int allTets);
/// Largest alpha in [0, amax] whose END POINT keeps every protected tetrahedron above its
/// volume target (alcm_tet_endStepTo, passes until every tetrahedron accepts alpha).
double alcr_elastic_endStep(alcrBackend* B, const double* from, const double* to, double fraction,
                            int allTets, double amax);
/// The protected tetrahedra that alone would cut the chord from X towards XHAT below amax at its
/// end point (alcm_tet_endStepTo), at most cap of them, those that cut it most first
/// (deterministic: ties by index). Returns how many were written to out.
int alcr_elastic_limitingTets(alcrBackend* B, double fraction, int allTets, double amax, int* out,
                              int cap);

/// The protected tetrahedron whose own bound on the chord from X towards XHAT is the lowest
/// below amax (ties by index): the end point's bound of one pass at amax (alcm_tet_endStepTo)
/// when endPoint, else the path bound (alcm_tet_maxStepTo). Returns its index, with its bound in
/// *bound, or -1 when none is below amax (*bound untouched).
int alcr_elastic_cuttingTet(alcrBackend* B, double fraction, int allTets, int endPoint, double amax,
                            double* bound);

// contact_ref.c
alctStatus alcr_contact_make(alcrBackend* B);
void alcr_contact_free(alcrBackend* B);
void alcr_contact_reset(alcrBackend* B);
void alcr_contact_linearize(alcrBackend* B);
/// Add the tetrahedra tets[0..n) as guard pairs (alcm_tet_guardLinearize) linearized at X, with
/// lambda 0 and gamma 1; tetrahedra already guarded are skipped. *added: how many were new.
/// ALC_ERR_CAPACITY when the pair buffers are full and may not grow.
alctStatus alcr_contact_addGuards(alcrBackend* B, const int* tets, int n, int* added);
/// Guard pairs in the active set (they sort first).
int alcr_contact_nguards(const alcrBackend* B);
/// 1 when tetrahedron t has a guard pair in the active set.
int alcr_contact_guarded(const alcrBackend* B, int t);
/// Copy the active set out (pairs NULL: count only); ALC_ERR_CAPACITY when cap is short.
alctStatus alcr_contact_getCarry(alcrBackend* B, alcrPair* pairs, int cap, int* npair);
/// Replace the active set (growing the buffers), clear the friction pairs, mark the pattern.
alctStatus alcr_contact_setCarry(alcrBackend* B, const alcrPair* pairs, int npair);
/// Contact energy sum_i gamma_i phi(c_i) at the positions pos (N doubles).
double alcr_contact_energy(alcrBackend* B, const double* pos);
alctStatus alcr_contact_assemble(alcrBackend* B);
/// The multiplier, decay and per-pair mu updates of every pair at XHAT (alcm_pair_alUpdate),
/// each multiplier credited at most `credit` (m) of its pair's violation; 0: no limit.
void alcr_contact_alUpdate(alcrBackend* B, double credit);
/// Pairs whose activity (c < lambda/mu) at the positions pos differs from the last assembly,
/// more than cp.flipDepth past the kink (alcm_pair_flipped).
int alcr_contact_flips(alcrBackend* B, const double* pos);
alctStatus alcr_contact_merge(alcrBackend* B, int* nactive);
alctStatus alcr_contact_report(alcrBackend* B, alcContact* out, int cap, int* n, double* bodyForce);
/// Normal force of a pair times h^2 (IP units), AL paper Eq. 23 (see contact_ref.c).
double alcr_contact_normalForce(const alcrBackend* B, const alcrPair* P);
/// Make sure the BSR pattern holds the static and contact blocks.
alctStatus alcr_contact_pattern(alcrBackend* B);

// mlcp_step_ref.c: the mlcp-cr model's step after beginStep (alciBackendOps.mlcpStep)
alctStatus alcr_mlcp_step(alcrBackend* B, const alciMlcpParams* p, alciMlcpOut* out);
/// Free what the mlcp-cr steps keep in B (the friction states carried across steps).
void alcr_mlcp_free(alcrBackend* B);
/// The friction states carried across steps (alciBackendOps.getMlcpCarry).
alctStatus alcr_mlcp_getCarry(const alcrBackend* B, alciMlcpFric* out, int cap, int* n);
/// Replace them (alciBackendOps.setMlcpCarry).
alctStatus alcr_mlcp_setCarry(alcrBackend* B, const alciMlcpFric* in, int n);
/// Add the mlcp-cr friction forces of the last solve to the contact report (out: the n
/// entries alcr_contact_report made, in the order of B->pairs) and to the bodies' forces (N):
/// a static contact's force is its multiplier, a sliding one's mu times its averaged normal
/// multiplier against its direction, divided by h^2; each stencil vertex takes its
/// closest-point weight of it.
void alcr_mlcp_reportFriction(const alcrBackend* B, alcContact* out, int n, double* bodyForce);

// penalty_ds_step_ref.c: the penalty-ds model's step after beginStep (alciBackendOps.dsStep)
alctStatus alcr_ds_step(alcrBackend* B, const alciDsParams* p, alciDsOut* out);
/// Free what the penalty-ds steps keep in B. NULL-safe on B->ds.
void alcr_ds_free(alcrBackend* B);
/// The pairs carried across steps, in ascending key order (alciBackendOps.getDsCarry).
alctStatus alcr_ds_getCarry(const alcrBackend* B, alciDsPair* out, int cap, int* n);
/// Replace them (alciBackendOps.setDsCarry).
alctStatus alcr_ds_setCarry(alcrBackend* B, const alciDsPair* in, int n);
/// Bytes the penalty-ds state holds now (0 where no penalty-ds step has run).
size_t alcr_ds_bytes(const alcrBackend* B);
/// Pairs below the surface at the last step's end (0 where no penalty-ds step has run).
int alcr_ds_nactive(const alcrBackend* B);
/// The penalty-ds contacts at the step's end, appended to the report at out + *n (while *n <
/// cap; *n counts them): point-triangle entries with the spring's force split along the cone's
/// normal n(Y) (normalForce) and across it (frictionForce), distance = -(Y - Z).n (negative: the
/// depth), points Z and Y, weights of Y on its triangle; and every active spring's force added
/// to bodyForce (nullable; nbody x 3, N).
void alcr_ds_report(const alcrBackend* B, alcContact* out, int cap, int* n, double* bodyForce);

// ccd_ref.c
alctStatus alcr_ccd_make(alcrBackend* B);
void alcr_ccd_free(alcrBackend* B);
/// One broad-phase query (PT when isEE is 0, else EE) into bpPT / bpEE of the tree built from
/// in, growing the candidate buffers and querying again on overflow (*grown = the new capacity).
alctStatus alcr_ccd_query(alcrBackend* B, const alcrBroadInput* in, int isEE, int* count,
                          int* grown);
/// Broad-phase input over the model's surface primitives moving from -> to (N doubles each),
/// with the given passive mask (nullable) and box inflation (m).
alcrBroadInput alcr_ccd_broadInput(const alcrBackend* B, const double* from, const double* to,
                                   const unsigned char* passive, double inflate);
/// Stencil vertices of candidate c of the last query (PT pairs first, npt of them, then EE) and
/// its type (ALCR_PT or ALCR_EE).
void alcr_ccd_candidate(const alcrBackend* B, int c, int npt, int v[4], int* type);
alctStatus alcr_ccd_collect(alcrBackend* B, alciCollectOut* out);

/// The candidate of the last alcr_ccd_collect that set its minToi (alciBlockingPair).
void alcr_ccd_blocking(const alcrBackend* B, alciBlockingPair* out);

// friction_ref.c
alctStatus alcr_friction_make(alcrBackend* B);
void alcr_friction_free(alcrBackend* B);
/// Friction coefficient of a pair of type (ALCR_PT or ALCR_EE) over stencil v, from the
/// materials of its two sides (alcModel.mat_friction; -1 there reads the option's default).
double alcr_friction_coef(const alcModel* m, const int v[4], int type);
/// Lag friction from the active set at XT (start of a step).
void alcr_friction_lag(alcrBackend* B);
/// Lag friction from the barrier constraints at XT (IPC model): normal force
/// kappa |d b / d d| / h^2 with the stiffness of the previous step (B->lastKappa).
alctStatus alcr_friction_lagIpc(alcrBackend* B, double dhat);
/// Friction energy at pos (IP units); with cp.frictionSecant, marks the pairs whose slip the
/// trial point pos reverses against their last assembly (alcm_fric_reverses).
double alcr_friction_energy(alcrBackend* B, const double* pos);
/// Friction pairs whose slip at pos reverses against their last assembly (alcm_fric_reverses):
/// kinks of the friction cone that a step to pos crossed (counted as flips by stepXhat).
int alcr_friction_reversals(const alcrBackend* B, const double* pos);
/// Add friction gradient and Hessian at XHAT into G and the BSR blocks (kinematic eliminated):
/// the exact Hessian, or the secant stiffness for the pairs marked reversed (B->nsecant of
/// them; the marks are cleared and u at XHAT kept for the next trials).
void alcr_friction_assemble(alcrBackend* B);

#endif  // ALC_HOST_REF_BACKEND_REF_H_
