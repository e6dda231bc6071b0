// The table of backend operations that host/step.c drives (DESIGN.md "Architecture").
//
// The outer loop (AL paper Algorithms 1-3) is written once, in host/step.c; each backend (the
// CPU reference in host/ref/, CUDA in cuda/) keeps its own copies of the step vectors
//   XT (x^t), VT (v^t), XTILDE (inertia target), X (intersection-free x^[k]),
//   XHAT (the solver iterate x^[k]), P (Newton direction), G (gradient)
// and the active contact set, and exposes the operations below. Only scalars cross between
// the loop and a backend during a step; positions cross at its start and end.
#ifndef ALC_HOST_BACKEND_H_
#define ALC_HOST_BACKEND_H_

#include "hd/alcm_pairstate.h"

#include "alc/alc_types.h"

/// Inputs of a step (host memory).
typedef struct alciStepInput_ {
    const double* x;                // x^t (nvert x 3)
    const double* v;                // v^t (nvert x 3)
    const double* kinTarget;        // targets of kinematic vertices at t + h (nvert x 3)
    const unsigned char* kinMask;   // 1 if the vertex is kinematic this step (nvert)
    double h;                       // time step (s)
    const double* gravity;          // (3) m/s^2
    double* rigidPose;              // rigid bodies' poses at t (nrigid x 6): read by beginStep,
                                    // the poses at t + h written there by endStep
    double* rigidPosePrev;          // the poses at t - h, then those at t (nrigid x 6)
    const unsigned char* rigidKin;  // 1 if the rigid body is kinematic this step (nrigid)
    const double* rigidTarget;      // its pose at t + h: theta with |theta| <= pi (the backend
                                    // takes the one of that rotation nearest to its pose at t,
                                    // alcm_rotation_nearest), q (nrigid x 6; kinematic only)
} alciStepInput;

/// Contact parameters of the AL (or penalty) energy, AL paper Eq. 10-14.
typedef struct alciContactParams_ {
    double mu;            // penalty stiffness
    double delta;         // contact offset (m)
    double decay;         // Gamma
    double removeBelow;   // gamma threshold of Alg. 3
    int penalty;          // 1: multipliers stay zero (penalty ablation)
    int friction;         // 1: include the lagged friction potential
    double frictionEpsV;  // eps_v (m/s)
    double flipDepth;     // how far past its kink a pair must land to count as a flip (m;
                          // alcm_pair_flipped): 0 counts every crossing
    double pairMuGrowth;  // factor of a pair's own penalty per multiplier update while it is
                          // violated by more than delta (alcm_pair_alUpdate); <= 1: none
    double pairMuMax;     // the largest multiple of mu a pair's penalty reaches
    int frictionSecant;   // 1: a friction pair whose slip a line-search trial reversed (energy)
                          // takes its secant stiffness at the next assembly
                          // (alcm_fric_Ksecant); 0: the exact Hessian (the IPC model)
    int tetGuards;        // alcOption.tetGuards: tetrahedra that cut an outer step through the
                          // inversion bound become guard pairs, at most this many a time
} alciContactParams;

/// Result of assembleElastic.
typedef struct alciAssembleOut_ {
    double maxDiag;  // max_i (Hess E)_ii over free DOFs (for Eq. 20)
    double q99Diag;  // the 99th percentile of the free vertices' largest diagonal entry, within
                     // a factor 2 above (a power of 2); 0 when the backend does not compute it
    long nblocks;    // 3x3 blocks in the matrix
    int nsecant;     // friction pairs assembled with their secant stiffness (frictionSecant)
} alciAssembleOut;

/// Result of solve.
typedef struct alciSolveOut_ {
    int iters;          // CG iterations
    int converged;      // 1 if the relative tolerance was reached
    double pInf;        // ||P||_inf (m; a rigid body's rotation nodes in rad)
    double rigidStep;   // largest displacement P gives a point of a rigid body (m): per body
                        // |dq|_inf + radius |dtheta| (0 without rigid bodies)
    double gDotP;       // G . P: the predicted first-order change of L along P
    int direct;         // 1 if P came from a Cholesky factorization (linear solver direct/auto)
    long directFailed;  // the factorization's failing 1-based scalar column (PCG then solved
                        // the system), 0 when it did not fail or was not tried
} alciSolveOut;

/// Result of collect (CCD from X to XHAT over all candidates).
typedef struct alciCollectOut_ {
    double minToi;    // smallest time of impact in [0, 1]; 1 when nothing collides
    int ncandidates;  // broad-phase candidates examined
    int ncollide;     // pairs with a time of impact
    int grown;        // candidate buffer capacity after a grow (0 = no grow)
} alciCollectOut;

/// The candidate of the last collect that set its minToi: the pair that cut alpha (the -vv log,
/// host/step.c). Of candidates with the same time of impact, the one of smallest pair key.
typedef struct alciBlockingPair_ {
    int found;        // 0 when no candidate's time of impact was below 1 (the rest unset)
    int type;         // ALC_PAIR_PT (v: the point, then the triangle) or ALC_PAIR_EE (two edges)
    int v[4];         // its vertices
    long long key;    // its pair key, ALC_PAIR_KEY (alcm_pair.h)
    double toi;       // its conservative time of impact in [0, 1)
    double x[12];     // the four vertices at X (m)
    double xhat[12];  // and at XHAT (m)
} alciBlockingPair;

/// The protected tetrahedron that cut the last outer step through the inversion bound (the -vv
/// log, host/step.c): of those whose own bound on the chord from X towards XHAT lies below the
/// step asked for, the one whose bound is lowest (ties by index; alcm_tet_guardSelect). Its own
/// bound is the end point's of one pass at the step asked for (alcm_tet_endStepTo) under
/// ALC_INVBOUND_END, else the path bound (alcm_tet_maxStepTo).
typedef struct alciBlockingTet_ {
    int found;        // 0 when no tetrahedron's own bound was below the step asked for
    int tet;          // its index
    double bound;     // its own bound, in [0, the step asked for)
    double x[12];     // its four vertices at X (m)
    double xhat[12];  // and at XHAT (m)
} alciBlockingTet;

/// Whether a candidate with time of impact toi and pair key `key` blocks before the best so far
/// (bestToi, bestKey): the smaller time, ties to the smaller key, so that every backend names
/// the same pair whatever order its broad phase lists them in.
static inline int alci_blocksBefore(double toi, long long key, double bestToi, long long bestKey) {
    return toi < bestToi || (toi == bestToi && key < bestKey);
}

/// The friction state of one mlcp-cr contact, carried from step to step by pair key (V&J's
/// persistent, warm-started constraints; host/ref/mlcp_step_ref.c), in world coordinates.
typedef struct alciMlcpFric_ {
    long long key;    // the pair's key (alcmPair.key)
    int kinetic;      // 1 sliding, 0 static
    int unused;       // zero (explicit padding: checkpoints store the struct's bytes)
    double phi[3];    // the static multiplier as a vector (units of the normal multiplier)
    double dir[3];    // the kinetic direction (unit, along the slip)
    double lamTilde;  // the kinetic force's averaged normal multiplier
    double hist;      // the multiplier last pushed into that average
} alciMlcpFric;

/// Parameters of an mlcp-cr step (host/step_mlcp.c; Verschoor and Jalba, Algorithm 1).
typedef struct alciMlcpParams_ {
    int precond;          // alctMlcpPrecond
    int maxRounds;        // QP solves per step at most (each after new pairs, an advance or a
                          // re-linearization)
    int maxCr;            // conjugate residual iterations per solve at most
    double gapTol;        // eps2 (m): a pair's distance may end this far below delta, or above
                          // it while its multiplier is positive
    double fraction;      // the inversion bound's volume fraction (alcOption.inversionFraction)
    int allTets;          // the inversion bound protects every tetrahedron
    int nonInvertible;    // some tetrahedra are protected (Neo-Hookean bodies)
    int duplicates;       // 1: V&J's duplicate scaling Z of the Schur diagonal (§3.4.1)
    int friction;         // 1: some material pair has friction (V&J §3.1 rows and Algorithm 3)
    double thetaTol;      // kinetic direction tolerance eps_theta (rad)
    double thetaRate;     // the direction's turn per evaluation alpha_theta
    const alcData* data;  // the step's data, for the cancellation check (alc_cancelStep)
} alciMlcpParams;

/// What an mlcp-cr step did.
typedef struct alciMlcpOut_ {
    int rounds;            // QP solves
    int crIters;           // conjugate residual iterations over all solves
    int crMax;             // most of one solve
    int crCapped;          // solves that ended at maxCr without converging
    int crFailed;          // 1: one of them ended with a larger residual than it started with,
                           // and the step ended there
    int bufferGrows;       // pair buffers grown (the matrix assembled again)
    int advances;          // rounds whose end state CCD or the inversion bound cut short
    int relinearized;      // rounds that re-linearized every pair at a clean end state
    int converged;         // 1: the last end state held every pair within gapTol, no new pair
    double alphaMin;       // the smallest fraction an advance took (1 when none was cut)
    double alphaSum;       // per round, the fraction of X -> q that X moved (0 for a round that
                           // only added pairs: the MLCP is solved again from the same X)
    int contactsMax;       // most pairs in a solve
    double contactsSum;    // pairs summed over the solves
    int candidatesMax;     // most broad-phase candidates of one CCD pass
    double violation;      // largest delta - d over the pairs at the end state, at least 0 (m)
    int frictionSwitches;  // static <-> kinetic switches over the solves
    int kinetic;           // kinetic (sliding) contacts at the last solve's end
    int sticking;          // static contacts with friction at the last solve's end
    double tAssemble, tSolve, tCcd;  // seconds: assembly, CR solves, CCD and the bounds
} alciMlcpOut;

/// One contact of the penalty-ds model carried from step to step (Ding and Schroeder's
/// persistent pairs, host/ref/penalty_ds_step_ref.c): surface vertex z of one body tied to an
/// attachment on the surface of another, as a triangle and barycentric weights (committed X).
typedef struct alciDsPair_ {
    long long key;  // z * nbody + body: one attachment per vertex and other body
    int z;          // the particle: a surface vertex
    int tri;        // the attachment's triangle (model triangle id)
    double b[3];    // its weights of tri's vertices, >= 0, summing to 1
} alciDsPair;

/// Parameters of a penalty-ds step (host/step_penalty_ds.c; Ding and Schroeder §2-3).
typedef struct alciDsParams_ {
    double k;             // spring stiffness (N/m)
    double tol;           // tau: stop at ||g|| < tau or ||H^T g|| / dref < tau (N s)
    double gmresTol;      // GMRES's relative residual tolerance
    int gmresMax;         // GMRES iterations per Newton direction (restarted every 20)
    int maxNewton;        // Newton iterations per step at most
    int lsMaxIter;        // line-search halvings at most
    int cholesky;         // 1: GMRES preconditioned by a Cholesky factor (alctDsPrecond), else
                          // block Jacobi
    double fraction;      // the inversion bound's volume fraction (alcOption.inversionFraction)
    int allTets;          // the inversion bound protects every tetrahedron
    int nonInvertible;    // some tetrahedra are protected (Neo-Hookean bodies)
    const alcData* data;  // the step's data, for the cancellation check (alc_cancelStep)
} alciDsParams;

/// What a penalty-ds step did.
typedef struct alciDsOut_ {
    int newton;            // Newton iterations (directions solved)
    int gmresIters;        // GMRES iterations over the step
    int gmresMax;          // most of one direction
    int fallbacks;         // directions that were no descent for E, replaced by -H^T g
    int cholFallbacks;     // Newton iterations whose Cholesky preconditioner failed (the matrix
                           // not positive definite), preconditioned by block Jacobi instead
    int lsFails;           // line searches that found no decrease (the step ended there)
    int converged;         // 1: the step ended by the tolerance
    double residual;       // ||g|| at the end (N s)
    double stationarity;   // ||H^T g|| / dref at the end (N s)
    double alphaSum;       // accepted step fractions summed
    double alphaMin;       // the smallest accepted step fraction (1 when none was cut)
    int pairs;             // registered pairs at the end (before pruning)
    int active;            // pairs below the surface at the end
    int dynamic;           // active pairs whose attachment slid (relaxed off X)
    int registered;        // pairs registered in this step
    int pruned;            // inactive pairs removed at the end
    int contactsMax;       // most active pairs at an evaluation
    double contactsSum;    // active pairs summed over the Newton iterations
    int candidatesMax;     // most broad-phase candidates of one registration pass
    double penetration;    // deepest active pair at the end, (Y - Z).n (m)
    long jacColumns;       // finite-difference Jacobian columns of sliding pairs
    long jacOneSided;      // of them, one-sided (the relaxation's path changed on one side)
    long jacDropped;       // of them, dropped (changed on both sides)
    double tAssemble, tSolve, tCcd, tLineSearch;  // seconds
} alciDsOut;

typedef struct alciBackendOps_ {
    const char* name;
    /// Free everything the backend owns (NULL-safe on its state).
    void (*destroy)(void* be);
    /// Forget the active set, multipliers and friction state.
    void (*resetContacts)(void* be);
    /// Load x^t, v^t; X = XT; XHAT = XT with kinematic vertices at their targets (§5.3);
    /// XTILDE = x^t + h v^t + h^2 g for free vertices; lag friction from the carried set.
    alctStatus (*beginStep)(void* be, const alciStepInput* in);
    /// Set the contact parameters used by the operations below.
    void (*setContactParams)(void* be, const alciContactParams* p);
    /// Linearize every active pair at X: d_i(X), grad d_i(X) (Eq. 10).
    alctStatus (*linearize)(void* be);
    /// G and H := gradient and projected Hessian of E (inertia + elasticity + friction) at XHAT,
    /// kinematic rows/columns eliminated (§5.3). Reports max diag for Eq. 20.
    alctStatus (*assembleElastic)(void* be, alciAssembleOut* out);
    /// Add the AL terms of Eq. 12 (gradient Alg. 2 line 10, Hessian line 11) at XHAT.
    alctStatus (*assembleContact)(void* be);
    /// P := -H^-1 G by block-Jacobi PCG with relative tolerance tol, or by a Cholesky
    /// factorization as the model's linearSolver asks (backends without one refuse such models
    /// when they are made).
    alctStatus (*solve)(void* be, double tol, int maxIter, alciSolveOut* out);
    /// Largest r in [0, 1] keeping the line-search tetrahedra above `fraction` of their volume
    /// along XHAT + r P (allTets: every tet; else non-invertible materials only), and turning
    /// no rigid body by more than a bounded angle (its rotational energy is periodic).
    alctStatus (*lineSearchBound)(void* be, double fraction, int allTets, double* rmax);
    /// Moving boundaries followed within the mesh's reach (issue 14): move the kinematic
    /// vertices of XHAT (from X when fromX, else from where they are) towards their targets by
    /// the largest fraction in [0, 1] that keeps the line-search tetrahedra (as lineSearchBound)
    /// above `fraction` of their volume; a fraction of 1 puts them exactly on their targets.
    /// *remaining = the largest coordinate distance (m) of a kinematic vertex from its target
    /// afterwards, 0 when every one is on it (or there are none).
    alctStatus (*kinPlace)(void* be, double fraction, int allTets, int fromX, double* remaining);
    /// L(XHAT + r P) (Eq. 12 with the slack minimized out).
    alctStatus (*energy)(void* be, double r, double* L);
    /// XHAT += r P; *flips = pairs whose side of c = lambda/mu (active or not) changed
    /// between the last assembleContact and the new XHAT, by more than flipDepth of the
    /// contact parameters past it (alcm_pair_flipped), and, with frictionSecant, the friction
    /// pairs whose slip the step reversed (alcm_fric_reverses).
    alctStatus (*stepXhat)(void* be, double r, int* flips);
    /// Slack, multiplier and decay updates, Alg. 2 lines 20-29; each multiplier is credited at
    /// most `credit` (m) of its pair's violation, 0: no limit (alcm_pair_alUpdate).
    alctStatus (*alUpdate)(void* be, double credit);
    /// Broad phase and CCD from X to XHAT: per-pair times of impact, minimum time of impact.
    alctStatus (*collect)(void* be, alciCollectOut* out);
    /// Alg. 3 with the pairs of the last collect: filter, merge, remove decayed pairs.
    /// *grown = the new pair capacity when the buffers had to grow, else 0.
    alctStatus (*mergeActive)(void* be, int* nactive, int* grown);
    /// Largest alpha <= amax keeping tetrahedra above `fraction` of their volume from X toward
    /// XHAT: at the end point X + alpha (XHAT - X) when endPoint is nonzero, else along the
    /// whole segment (then amax is not read and alpha <= 1). With contact params tetGuards > 0
    /// and alpha < amax, the tetrahedra that cut it join the active set as guard pairs
    /// (alcm_tet_guardLinearize); *guards = how many were new (0 on a backend without them).
    alctStatus (*inversionBound)(void* be, double fraction, int allTets, int endPoint, double amax,
                                 double* alpha, int* guards);
    /// X := (1 - alpha) X + alpha XHAT.
    alctStatus (*advance)(void* be, double alpha);
    /// Copy X out as x^{t+1}, v^{t+1} = (X - XT)/h; compute contact forces (Eq. 23).
    alctStatus (*endStep)(void* be, double* x, double* v);
    /// Active pairs with forces; bodyForce (nbody x 3) summed per body.
    alctStatus (*contacts)(void* be, alcContact* out, int cap, int* n, double* bodyForce);
    /// Number of active pairs.
    int (*nactive)(void* be);
    /// Peak memory held by the backend (bytes).
    size_t (*memory)(void* be);
    /// The contact state carried from one step to the next, for checkpoints
    /// (host/checkpoint.c): the active set in key order with its multipliers, decay factors
    /// and last linearization, and the mu and delta the next step lags friction with. With
    /// pairs NULL only *npair is written; otherwise at most cap pairs (ALC_ERR_CAPACITY when
    /// there are more).
    alctStatus (*getCarry)(void* be, alcmPair* pairs, int cap, int* npair, double* lastMu,
                           double* lastDelta);
    /// Replace that state (strictly ascending keys, vertices in range: checked by the caller),
    /// growing the pair buffers when needed; friction pairs are lagged again by the next step.
    alctStatus (*setCarry)(void* be, const alcmPair* pairs, int npair, double lastMu,
                           double lastDelta);

    // ---- the IPC barrier model (host/step_ipc.c); XHAT is its intersection-free iterate ----
    /// XHAT := X with the kinematic vertices at their targets (for a CCD-bounded advance).
    alctStatus (*ipcPlaceKinematic)(void* be);
    /// XHAT := X (the IPC model's iterate; the AL model's subproblem restarted from X).
    alctStatus (*syncXhat)(void* be);
    /// Barrier constraint set at XHAT: *n pairs within dhat, smallest squared distance.
    alctStatus (*ipcConstraints)(void* be, double dhat, int* n, double* minDist2);
    /// G += kappa grad B, H += kappa PSD-projected Hess B at XHAT. With initKappa, first set
    /// *kappa by IPC's gradient balance, clamped to [kappaMin, kappaMax].
    alctStatus (*ipcAssemble)(void* be, double dhat, double* kappa, double kappaMin,
                              double kappaMax, int initKappa);
    /// Incremental potential E + kappa B at XHAT + r P (constraint set rebuilt there).
    alctStatus (*ipcEnergy)(void* be, double r, double dhat, double kappa, double* E,
                            double* minDist2);
    /// Smallest conservative time of impact along XHAT -> XHAT + P.
    alctStatus (*ipcStepBound)(void* be, double* toi);
    /// Moving boundaries (IPC digest §1.13). on = 1 frees the kinematic DOFs into the solve,
    /// pulled to their targets by E_A = sum_k rho/2 m_k |x_k - xhat_k|^2
    /// - sqrt(m_k) lambda_k . (x_k - xhat_k) (multipliers zeroed when newly freed), which
    /// ipcAssemble and ipcEnergy then include; on = 0 eliminates them again where they are.
    /// rho is dimensionless (a multiple of the masses).
    alctStatus (*ipcBoundaryAl)(void* be, int on, double rho);
    /// Multiplier update lambda_k -= rho sqrt(m_k) (x_k - xhat_k) at X.
    alctStatus (*ipcBoundaryUpdate)(void* be);
    /// Progress of the kinematic vertices at X: eta = 1 - |x_K - xhat_K| / |xhat_K - x^t_K|
    /// (1 when there is nothing to move).
    alctStatus (*ipcBoundaryProgress)(void* be, double* eta);
    /// Lag friction from the barrier constraints at XT, normal forces kappa |db/dd| / h^2 with
    /// the barrier stiffness of the previous step (no friction before the first assembly).
    alctStatus (*ipcFrictionLag)(void* be, double dhat);

    // ---- the mlcp-cr model (host/step_mlcp.c); NULL where the backend does not have it ----
    /// The whole step after beginStep: A = M + h^2 Hess E and the gradient at XHAT (free
    /// vertices at x^t, kinematic ones at their targets), then rounds of: the MLCP of the
    /// active pairs linearized at X, solved by active-set conjugate residual; CCD from X to its
    /// solution, new pairs joining the set; X advanced by the CCD's and the inversion bound's
    /// fraction where they cut it, else X := the solution and every pair re-linearized there,
    /// until a solution keeps every pair within gapTol of its constraint. X is intersection-
    /// free after every round; endStep then ends the step at X.
    alctStatus (*mlcpStep)(void* be, const alciMlcpParams* p, alciMlcpOut* out);
    /// The mlcp-cr friction states carried from one step to the next, for checkpoints: with
    /// out NULL only *n is written; otherwise at most cap states (ALC_ERR_CAPACITY when there
    /// are more). 0 states where no frictional mlcp-cr step has run.
    alctStatus (*getMlcpCarry)(void* be, alciMlcpFric* out, int cap, int* n);
    /// Replace them (strictly ascending keys: checked by the caller).
    alctStatus (*setMlcpCarry)(void* be, const alciMlcpFric* in, int n);

    // ---- the penalty-ds model (host/step_penalty_ds.c); NULL where the backend lacks it ----
    /// The whole step after beginStep: Ding and Schroeder's backward Euler with attachment-
    /// point penalty contact, solved by a merit-function Newton method (E = 1/2 |g|^2, GMRES
    /// directions, backtracking line search), new pairs registered by CCD from x^t to each
    /// iterate; at the end inactive pairs are dropped and the attachments of the others move to
    /// their relaxed points. X is the last iterate (not intersection-free); endStep then ends
    /// the step at X.
    alctStatus (*dsStep)(void* be, const alciDsParams* p, alciDsOut* out);
    /// The penalty-ds pairs carried from one step to the next, for checkpoints: with out NULL
    /// only *n is written; otherwise at most cap (ALC_ERR_CAPACITY when there are more).
    alctStatus (*getDsCarry)(void* be, alciDsPair* out, int cap, int* n);
    /// Replace them (strictly ascending keys, ids in range: checked by the caller).
    alctStatus (*setDsCarry)(void* be, const alciDsPair* in, int n);

    // ---- diagnostics ----
    /// The pair that set the minToi of the last collect (alciBlockingPair), for the -vv log;
    /// valid until the next collect. May download from the device: call it only when logging.
    alctStatus (*blockingPair)(void* be, alciBlockingPair* out);
    /// The tetrahedron that cut the chord from X towards XHAT below amax (alciBlockingTet), for
    /// the -vv log; call it after inversionBound and before advance, with the same fraction,
    /// allTets and endPoint. May download from the device: call it only when logging.
    alctStatus (*blockingTet)(void* be, double fraction, int allTets, int endPoint, double amax,
                              alciBlockingTet* out);
} alciBackendOps;

/// A backend: its operation table and its state.
typedef struct alciBackend_ {
    const alciBackendOps* ops;
    void* state;
} alciBackend;

struct alcSim_;

/// Make the CPU reference backend (host/ref/backend_ref.c).
alctStatus alcr_backend_make(struct alcSim_* sim, alciBackend* out);

/// Make the CUDA backend (cuda/backend_cuda.cu); ALC_ERR_UNSUPPORTED in builds without CUDA.
alctStatus alcg_backend_make(struct alcSim_* sim, alciBackend* out);

/// 1 when the CUDA backend implements the full time step (ALC_BACKEND_AUTO may pick it); 0 in
/// builds without CUDA and until it does.
int alcg_backend_complete(void);

/// 1 when "the device" is alcove's SIMT emulation on the CPU (build/emu), never picked by
/// ALC_BACKEND_AUTO; 0 otherwise.
int alcg_device_emulated(void);

#endif  // ALC_HOST_BACKEND_H_
