// alcove public types: status codes, enums, the model, the data, defs and statistics.
// Units are SI throughout: metres, seconds, kilograms, pascals, newtons.
//
// Naming, one rule for every field (MuJoCo's, whose mjModel and mjData alcModel and alcData
// follow): the arrays of alcModel and alcData are object_field in snake case (vert_x0, tet_vert,
// kin_target, body_force; the principal state is plainly x and v), as are the peak counters
// maxuse_* (mjData's maxuse_arena); every other field, in the defs, options and statistics, is
// camelCase (timestep, frictionDefault, cgTotal, normalForce, paramValue). Types are alc*,
// enums alct*, constants ALC_*, functions alc_* (the API), alcu_* (utilities).
#ifndef ALC_ALC_TYPES_H_
#define ALC_ALC_TYPES_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define ALC_API __declspec(dllexport)
#else
#define ALC_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

// Every state array is double precision: alcove computes in double throughout.

// ---- status codes ---------------------------------------------------------------------------

/// Return code of every fallible function; ALC_OK is 0. The message for a failure is kept on
/// the object (alc_lastError) or written to the caller's buffer (alc_loadScene).
typedef enum alctStatus_ {
    ALC_OK = 0,
    ALC_ERR_INVALID_ARG,   ///< a NULL pointer, a size or index out of range
    ALC_ERR_BAD_DEF,       ///< a def not made by its alc_defaultXxxDef function
    ALC_ERR_NOMEM,         ///< host allocation failed
    ALC_ERR_DEVICE_NOMEM,  ///< the scene does not fit the GPU's memory
    ALC_ERR_CUDA,          ///< a CUDA runtime or library call failed
    ALC_ERR_SCENE,         ///< the scene or model is invalid (file:line:col in the message)
    ALC_ERR_CAPACITY,      ///< a fixed capacity was exceeded and could not be grown
    ALC_ERR_NO_DEVICE,     ///< backend "cuda" selected but no usable CUDA device
    ALC_ERR_VERSION,       ///< header and library versions differ
    ALC_ERR_IO,            ///< a file could not be read or written
    ALC_ERR_UNSUPPORTED,   ///< the build or backend does not provide this feature
    ALC_ERR_NUMERIC,       ///< NaN or Inf reached the state; the step was not taken
    ALC_ERR_CANCELLED,     ///< alc_cancelStep stopped the step; the data is that of the last
                           ///< completed step
    ALC_NSTATUS
} alctStatus;

// ---- enums --------------------------------------------------------------------------------

/// Which implementation runs the simulation.
typedef enum alctBackend_ {
    ALC_BACKEND_AUTO = 0,  ///< CUDA when a device is usable, else the CPU reference
    ALC_BACKEND_REF,       ///< CPU reference backend (double precision, OpenMP)
    ALC_BACKEND_CUDA       ///< NVIDIA GPU backend
} alctBackend;

/// Hyperelastic material model of a solid body.
typedef enum alctMaterialModel_ {
    ALC_MAT_STABLE_NEOHOOKEAN = 0,  ///< Smith et al. 2018 form, invertible ("snh")
    ALC_MAT_NEOHOOKEAN,             ///< classic ln J form, not invertible ("nh")
    ALC_MAT_COROTATED,              ///< corotated linear, invertible ("cor")
    /// fixed corotated (Stomakhin et al. 2012, IPC's "energy FCR"): mu sum (s_i - 1)^2 +
    /// lambda/2 (J - 1)^2 in the signed singular values, invertible ("fcr")
    ALC_MAT_FIXED_COROTATED,
    ALC_NMATMODEL
} alctMaterialModel;

/// Contact treatment of the time step.
typedef enum alctContactModel_ {
    ALC_CONTACT_AL = 0,   ///< barrier-free augmented Lagrangian (the AL paper)
    ALC_CONTACT_IPC,      ///< IPC log barrier with CCD-filtered line search
    ALC_CONTACT_PENALTY,  ///< AL energy with multipliers fixed at zero (the paper's ablation)
    ALC_CONTACT_NONE,     ///< no contact at all (bodies pass through each other)
    /// Verschoor and Jalba's mixed LCP, one linearly implicit step solved by active-set
    /// conjugate residual with constraint re-linearization and CCD, their static and kinetic
    /// friction (soft bodies, reference backend; docs/contact-models.md)
    ALC_CONTACT_MLCP_CR,
    /// Ding and Schroeder's penalty contact with attachment points relaxed into the Coulomb
    /// cone, solved by a merit-function Newton method with GMRES; not penetration-free (soft
    /// bodies, reference backend; docs/contact-models.md)
    ALC_CONTACT_PENALTY_DS,
    ALC_NCONTACTMODEL
} alctContactModel;

/// Right preconditioner of the penalty-ds model's GMRES.
typedef enum alctDsPrecond_ {
    ALC_DS_PRECOND_AUTO = 0,  ///< cholesky where the build has CHOLMOD, else jacobi
    ALC_DS_PRECOND_JACOBI,    ///< the inverse of H's 3x3 diagonal blocks
    /// a Cholesky factor (CHOLMOD) of H's symmetric elastic part with the contacts' diagonal
    /// blocks symmetrized, made at every Newton iteration; jacobi for an iteration where that
    /// matrix is not positive definite
    ALC_DS_PRECOND_CHOLESKY
} alctDsPrecond;

/// Preconditioner of the mlcp-cr model's conjugate residual solver (Verschoor and Jalba Eq. 22).
typedef enum alctMlcpPrecond_ {
    ALC_MLCP_FULL = 0,  ///< the block inverse of the KKT matrix with diagonal A and Schur blocks
    ALC_MLCP_DIAG       ///< blockdiag(diag(A)^-1, diag(S)^-1): positive definite, weaker
} alctMlcpPrecond;

/// How the Newton systems are solved.
typedef enum alctLinearSolver_ {
    ALC_LINSOLVE_PCG = 0,  ///< block-Jacobi PCG (the AL paper's solver; every backend)
    ALC_LINSOLVE_DIRECT,   ///< sparse Cholesky (CHOLMOD) of every system; reference backend
                           ///< built with CHOLMOD only
    ALC_LINSOLVE_AUTO      ///< PCG, and a system PCG leaves unsolved at its cap is solved again
                           ///< by Cholesky; reference backend built with CHOLMOD only
} alctLinearSolver;

/// Which tetrahedra the step bound and the line search keep from inverting.
typedef enum alctInversion_ {
    ALC_INVERSION_AUTO = 0,  ///< non-invertible materials (Neo-Hookean), as in the AL paper
    ALC_INVERSION_ALL        ///< every material; invertible energies (corotated, stable
                             ///< Neo-Hookean) may then stall under extreme impact, because
                             ///< their minimizers can be inverted
} alctInversion;

/// Largest alcOption.tetGuards: guard pairs added at one outer iteration.
#define ALC_TET_GUARDS_MAX 256

/// Where MaxStepSize's inversion bound asks the protected tetrahedra to keep their volume on
/// the chord from x to xhat (the Newton line search and the moving-boundary placement always
/// bound the whole segment).
typedef enum alctInversionBound_ {
    ALC_INVBOUND_END = 0,  ///< at the end point only: the largest alpha <= the CCD's whose state
                           ///< keeps them above target (the chord may pass through an inversion
                           ///< that the end point has left; docs/architecture.md)
    ALC_INVBOUND_PATH      ///< along the whole chord, as the AL paper's MaxStepSize
} alctInversionBound;

/// How the Newton matrix makes each tetrahedron's elastic Hessian positive semi-definite.
typedef enum alctEigenFilter_ {
    ALC_EIGEN_CLAMP = 0,  ///< negative eigenvalues of d2Psi/dF2 set to 0 (AL paper Eq. 17)
    ALC_EIGEN_ABS         ///< negative eigenvalues replaced by their magnitude (absolute
                          ///< eigenvalue filtering, Chen et al. 2024): compressed Neo-Hookean
                          ///< elements keep their curvature (docs/architecture.md)
} alctEigenFilter;

/// Kind of a body.
typedef enum alctBodyType_ {
    ALC_BODY_SOLID = 0,  ///< tetrahedral elastic solid
    ALC_BODY_OBSTACLE,   ///< triangle surface, kinematic (codimensional), no mass
    ALC_BODY_RIGID       ///< rigid body (issue 17): 6 DOFs, mass and inertia from its closed
                         ///< surface or tetrahedra; reference backend, contact model none so far
} alctBodyType;

/// Scripted motion of a driver: a set of kinematic vertices moved rigidly.
typedef enum alctDriverType_ {
    ALC_DRIVER_FIXED = 0,  ///< stays at its initial position
    ALC_DRIVER_LINEAR,     ///< translates with a constant velocity
    ALC_DRIVER_ROTATE,     ///< rotates about an axis (plus optional constant velocity)
    ALC_DRIVER_KEYFRAMES,  ///< piecewise-linear position, spherical-linear orientation
    ALC_DRIVER_EXTERNAL,   ///< targets written by the caller into alcData.kin_target
    ALC_NDRIVERTYPE
} alctDriverType;

/// Non-fatal conditions, counted in alcData.warning.
typedef enum alctWarning_ {
    ALC_WARN_PCG_MAXITER = 0,      ///< PCG stopped at its iteration cap
    ALC_WARN_AL_NOT_CONVERGED,     ///< the step ended at the outer iteration cap (info: iterations)
    ALC_WARN_CONTACT_OVERFLOW,     ///< not raised since 0.3.0: a grown and redone buffer is
                                   ///< counted in alcStepStat.bufferGrows, and a buffer that
                                   ///< may not grow fails the step (ALC_ERR_CAPACITY)
    ALC_WARN_BAD_STATE,            ///< NaN/Inf found in the state as the step began (info: vertex)
    ALC_WARN_MU_INCREASE,          ///< adaptive rule doubled mu and halved delta (AL paper §5.2)
    ALC_WARN_LINESEARCH,           ///< line search failed to decrease the energy
    ALC_WARN_KINEMATIC_INVERSION,  ///< a kinematic target inverts a tetrahedron (info: tet)
    ALC_WARN_KINEMATIC_BLOCKED,    ///< contact kept kinematic vertices short of their targets
                                   ///< (IPC model; info: progress eta in per mille)
    ALC_WARN_ENERGY_GAIN,          ///< a step gained mechanical energy beyond the work of
                                   ///< gravity and drivers (info: gain in per mille of the
                                   ///< step's energy scale, capped at INT_MAX)
    ALC_WARN_IPC_SETTING,          ///< IPC parameters that cannot work: dhat above the closest
                                   ///< initial gap (info 1) or a residual stop above g h (info 2)
    ALC_WARN_DIRECT_FAILED,        ///< the Cholesky factorization found the Newton matrix not
                                   ///< positive definite; PCG solved that system (info: the
                                   ///< 1-based scalar column, capped at INT_MAX)
    ALC_NWARNING
} alctWarning;

/// Phases timed in the statistics (the AL paper's Table 1 breakdown).
typedef enum alctTimer_ {
    ALC_TIMER_STEP = 0,    ///< whole step
    ALC_TIMER_HESSIAN,     ///< gradient and Hessian assembly
    ALC_TIMER_PCG,         ///< linear solves
    ALC_TIMER_CCD,         ///< broad phase, CCD, active-set update, step bound
    ALC_TIMER_LINESEARCH,  ///< line-search energy evaluations
    ALC_TIMER_OTHER,       ///< everything else (step minus the four above)
    ALC_NTIMER
} alctTimer;

// ---- option, model ------------------------------------------------------------------------

/// Physical and solver options; part of the model. Defaults from alc_defaultOption().
typedef struct alcOption_ {
    double timestep;           ///< h (s); default 0.01
    double gravity[3];         ///< (m/s^2); default (0, -9.81, 0): +y is up
    int contact;               ///< alctContactModel; default ALC_CONTACT_AL
    double delta;              ///< contact offset (m), AL paper Eq. 10; default 1e-3
    double epsilon;            ///< termination threshold on beta, Eq. 9; default 1e-3
    int kmin;                  ///< K_min of Eq. 9; 0 = auto (2, or 6 with friction); default 0
    double decay;              ///< Gamma, per-iteration decay of inactive pairs; default 0.9
    double removeBelow;        ///< pairs with gamma below this leave the active set; default 0.01
    double muScale;            ///< C of Eq. 20, mu_init = C max_i (Hess E)_ii; default 0.1
    double mu;                 ///< fixed penalty stiffness mu (kg, in the units of the incremental
                               ///< potential, kg m^2: mu/2 c^2 with c in m); > 0 overrides Eq. 20;
                               ///< default 0
    double cgTol;              ///< PCG relative residual tolerance; default 1e-4
    int cgMaxIter;             ///< PCG iteration cap; 0 = 3 x DOFs (at most 20000); default 0
    int maxIter;               ///< outer (Alg. 1) iteration cap per step; default 300
    int maxNewton;             ///< Newton iterations per subproblem (Alg. 2) cap; default 20.
                               ///< After a subproblem that reaches it, the multiplier update
                               ///< credits each pair at most delta of its violation
    int lsMaxIter;             ///< line-search halvings before giving up; default 40
    int stallIters;            ///< consecutive tiny-alpha iterations that double mu; default 50
    double stallAlpha;         ///< what counts as tiny for stallIters; default 1e-4
    int splitDepth;            ///< AL model: a stalled step is split into two halves, each of
                               ///< them again, up to this many times (parts of h / 2^depth);
                               ///< 0 = never; default 3
    int splitAfter;            ///< consecutive outer iterations with alpha below stallAlpha that
                               ///< make a step that may still be split give up and split;
                               ///< default 100
    double ccdRescale;         ///< s of additive CCD: stop at s x the start gap; default 0.1
    double ccdMinSep;          ///< minimum separation xi (m) kept by CCD; default 0
    int ccdMaxIter;            ///< additive CCD iteration cap (returns a safe TOI); default 100000
    int inversion;             ///< alctInversion; default ALC_INVERSION_AUTO
    double inversionFraction;  ///< volume kept per step bound, of its start value; default 0.05
    double newtonTol;          ///< extra residual stop ||p||_inf/h (m/s); 0 = off; default 0
    double frictionEpsV;       ///< eps_v of the smoothed friction (m/s); default 1e-3
    double frictionDefault;    ///< friction coefficient where the pair table says -1; default 0
    double ipcDhat;            ///< IPC barrier support dhat (m); 0 = 1e-3 x scene diagonal
    double ipcKappa;           ///< IPC barrier stiffness kappa (kg/m^2: kappa b(d^2), b in m^4,
                               ///< adds to the incremental potential in kg m^2); 0 = adaptive (IPC
                               ///< code rules)
    double ipcNewtonTol;       ///< IPC residual stop (m/s); 0 = 1e-2 x scene diagonal
    int ipcToiTerm;            ///< IPC stops on the cumulative TOI rule instead; default 0
    double penaltyScale;       ///< stiffness multiplier of the penalty model; default 1
    int linearSolver;          ///< alctLinearSolver; default ALC_LINSOLVE_PCG
    int hessianReuse;          ///< 0: the elastic Hessian at every Newton iteration (the AL
                               ///< paper's Newton); 1: once per step (per attempt of a split
                               ///< step), reused by its later Newton iterations with fresh
                               ///< gradients (reference backend only); default 0
    double pairMuGrowth;       ///< AL model: factor by which a contact pair's own penalty grows
                               ///< at each multiplier update while the subproblem still
                               ///< violates its linearized constraint by more than delta
                               ///< (beyond the AL paper; docs/architecture.md); 1 = off, the
                               ///< paper's common mu; default 2
    double pairMuMax;          ///< the largest multiple of mu a pair's penalty grows to;
                               ///< default 8
    int frictionSecant;        ///< AL model, beyond the AL paper: a friction pair whose slip a
                               ///< line-search trial reversed takes its secant stiffness in the
                               ///< next Newton matrix (docs/architecture.md); 0 = the exact
                               ///< friction Hessian always; default 1
    int inversionBound;        ///< alctInversionBound; default ALC_INVBOUND_END
    int tetGuards;             ///< AL model, beyond the AL paper: when the inversion bound cuts
                               ///< an outer step, up to this many of the tetrahedra that cut it
                               ///< join the subproblem as linearized volume constraints
                               ///< (alcm_tet_guardLinearize; docs/architecture.md); 0 = off,
                               ///< both backends, no rigid bodies; default 0
    int mlcpPrecond;           ///< mlcp-cr model: alctMlcpPrecond; default ALC_MLCP_FULL
    double mlcpGapTol;         ///< mlcp-cr model: how far a contact's distance may end from
                               ///< delta (below it, or above it with a positive multiplier), as a
                               ///< fraction of delta (V&J's eps2); default 1e-3
    int mlcpDuplicates;        ///< mlcp-cr model: 1 scales the conjugate residual's Schur
                               ///< diagonal by V&J's duplicate counts Z (their §3.4.1); default 0
    double mlcpThetaTol;       ///< mlcp-cr model, with friction: a sliding contact's direction
                               ///< is turned towards its slip while more than this far off
                               ///< (degrees, V&J's eps_theta); default 1.2
    double mlcpThetaRate;      ///< mlcp-cr model, with friction: the fraction of the difference
                               ///< it turns by per evaluation, in (0, 1] (V&J's alpha_theta);
                               ///< default 0.01
    double dsK;                ///< penalty-ds model: the spring stiffness k (N/m); 0 = auto:
                               ///< the heaviest body's weight over 4 delta (resting on four
                               ///< vertices, it sinks about delta); default 0
    double dsTol;              ///< penalty-ds model: D&S's tau (N s): a step ends when |g| or
                               ///< |H^T g| / max diag H (both momenta) is below it; 0 = auto:
                               ///< 1e-6 x the total free mass x max(|gravity|, 1 m/s^2) x h;
                               ///< default 0
    int dsGmresMax;            ///< penalty-ds model: GMRES iterations per Newton direction
                               ///< (restarted every 20; D&S: 20); default 20
    int dsMaxNewton;           ///< penalty-ds model: Newton iterations per step at most;
                               ///< default 100
    int dsPrecond;             ///< penalty-ds model: alctDsPrecond; default ALC_DS_PRECOND_AUTO
    int eigenFilter;           ///< alctEigenFilter, both backends and every contact model;
                               ///< default ALC_EIGEN_CLAMP
    double restartAlpha;       ///< AL model: an outer step that the inversion bound cuts below
                               ///< this alpha restarts the next subproblem from x; in [0, 1]
                               ///< (1: every cut; 0: never), negative: stallAlpha; default -1
    double newtonFlat;         ///< AL model: a subproblem's Newton iteration that takes a partial
                               ///< step (r < 1) lowering L by less than this fraction of what
                               ///< the subproblem has lowered it so far, from its third
                               ///< iteration on, ends the subproblem as the Newton cap does
                               ///< (multipliers credited at most delta); in [0, 1), 0: never;
                               ///< default 1e-4
    double ccdGapCap;          ///< AL model: the step-size CCD (MaxStepSize) lets a pair whose
                               ///< gap at x is more than ccdGapCap x delta close to
                               ///< ccdRescale x ccdGapCap x delta, not to ccdRescale x its
                               ///< gap, so that a far pair the chord brings near is not cut
                               ///< ten times farther out than a near one; 0: off (the ACCD
                               ///< rule); >= 0, in units of delta; default 0
} alcOption;

/// Output format of frames.
typedef enum alctFrameFormat_ {
    ALC_FRAMES_VTU = 0,  ///< VTK XML unstructured grid, zlib-compressed, with a .pvd series index
    ALC_FRAMES_PLY,      ///< binary little-endian PLY, one file per frame
    ALC_FRAMES_NONE      ///< no frames (states and statistics only)
} alctFrameFormat;

/// How the command-line program runs a scene; read from the scene's run: and output: maps.
/// The library itself only stores these.
typedef struct alcRunOption_ {
    int steps;          ///< steps to simulate; default 100
    int frameEvery;     ///< write a frame every this many steps (0 = never); default 1
    int frameFormat;    ///< alctFrameFormat; default ALC_FRAMES_VTU
    int writeStates;    ///< write exact binary states for alcove check / restart; default 1
    int writeContacts;  ///< write contact pairs and forces with the frames; default 0
    int statsJson;      ///< statistics as JSON lines instead of CSV; default 0
    int outDirAdr;      ///< offset of the default output directory in names; -1 = none
    int sceneNameAdr;   ///< offset of the scene name in names
} alcRunOption;

/// The compiled, constant description of a scene. Arrays are structure-of-arrays, sized by the
/// counts below, in one host buffer owned by the model. Treat as read-only after compile; one
/// model may be shared by threads, each owning its sim and data.
typedef struct alcModel_ {
    // sizes
    int nvert;    ///< vertices (solids and obstacles)
    int ntet;     ///< tetrahedra
    int ntri;     ///< surface triangles (solid boundaries and obstacle triangles)
    int nedge;    ///< surface edges
    int nsvert;   ///< surface vertices (point primitives of contact)
    int nbody;    ///< bodies (solids and obstacles)
    int nmat;     ///< materials
    int ndriver;  ///< drivers (kinematic vertex sets)
    int nkey;     ///< keyframes of all drivers
    int nname;    ///< bytes of the name buffer
    int nrigid;   ///< rigid bodies (ALC_BODY_RIGID)

    alcOption opt;     ///< physical and solver options
    alcRunOption run;  ///< how the program runs and writes this scene
    double extent[6];  ///< bounding box of the initial state: min xyz, max xyz (m)
    double diag;       ///< diagonal of that box (m)

    // vertices
    double* vert_x0;    ///< initial positions (nvert x 3)
    double* vert_v0;    ///< initial velocities (nvert x 3)
    double* vert_rest;  ///< rest positions, body frame before transform (nvert x 3)
    double* vert_mass;  ///< lumped mass (nvert), kg; 0 for obstacle and rigid-body vertices
    int* vert_body;     ///< owning body (nvert)
    int* vert_driver;   ///< driver moving this vertex, or -1 if free (nvert)

    // tetrahedra
    int* tet_vert;      ///< vertex indices (ntet x 4), positive orientation
    int* tet_body;      ///< owning body (ntet)
    double* tet_Dminv;  ///< inverse rest edge matrix, row-major (ntet x 9)
    double* tet_vol;    ///< rest volume (ntet), m^3

    // surface primitives
    int* tri_vert;   ///< surface triangle vertices (ntri x 3), outward for solids
    int* tri_body;   ///< owning body (ntri)
    int* edge_vert;  ///< surface edge vertices (nedge x 2), ascending
    int* edge_body;  ///< owning body (nedge)
    int* svert;      ///< surface vertex indices (nsvert)

    // bodies
    int* body_type;     ///< alctBodyType (nbody)
    int* body_mat;      ///< material index (nbody)
    int* body_vertadr;  ///< first vertex (nbody)
    int* body_vertnum;  ///< vertex count (nbody)
    int* body_tetadr;   ///< first tetrahedron (nbody)
    int* body_tetnum;   ///< tetrahedron count (nbody)
    int* body_triadr;   ///< first surface triangle (nbody)
    int* body_trinum;   ///< surface triangle count (nbody)
    int* body_edgeadr;  ///< first surface edge (nbody)
    int* body_edgenum;  ///< surface edge count (nbody)
    int* body_nameadr;  ///< offset of the name in names (nbody)
    int* body_rigid;    ///< index among the rigid bodies, -1 for other bodies (nbody)

    // rigid bodies (ALC_BODY_RIGID; RIPC Eq. 4): a vertex of rigid body r is at
    // R(theta_r) vert_local + q_r, with (theta, q) its pose
    int* rigid_body;        ///< the body of each rigid body (nrigid)
    double* rigid_mass;     ///< mass (nrigid), kg
    double* rigid_inertia;  ///< principal moments of inertia about the centre of mass, in
                            ///< descending order (nrigid x 3), kg m^2
    double* rigid_pose0;    ///< initial pose: rotation vector theta of the principal frame (rad),
                            ///< centre of mass q (m) (nrigid x 6)
    double* rigid_vel0;     ///< initial angular velocity (rad/s, world axes) and velocity of the
                            ///< centre of mass (m/s) (nrigid x 6)
    double* vert_local;     ///< position in its rigid body's principal frame, about the centre
                            ///< of mass; 0 for vertices of other bodies (nvert x 3), m

    // materials
    int* mat_model;        ///< alctMaterialModel (nmat)
    double* mat_density;   ///< kg/m^3 (nmat)
    double* mat_young;     ///< Young's modulus, Pa (nmat)
    double* mat_poisson;   ///< Poisson ratio (nmat)
    double* mat_lame;      ///< Lame mu, lambda (nmat x 2), Pa
    double* mat_friction;  ///< friction coefficient per material pair (nmat x nmat); -1 = default;
                           ///< may be changed between steps: both backends read it when a step
                           ///< begins
    int* mat_nameadr;      ///< offset of the name in names (nmat)

    // drivers: vertices with vert_driver == k move rigidly with driver k
    int* driver_type;      ///< alctDriverType (ndriver)
    double* driver_param;  ///< ALC_DRIVER_NPARAM values per driver, see alcDriverDef (ndriver x 20)
    int* driver_keyadr;    ///< first keyframe (ndriver)
    int* driver_keynum;    ///< keyframe count (ndriver)
    double* key_data;      ///< keyframes: time, position xyz, quaternion wxyz (nkey x 8)
    int* driver_nameadr;   ///< offset of the name in names (ndriver)

    char* names;  ///< zero-terminated names (nname bytes)

    void* buffer;    ///< the one allocation holding every array above
    size_t nbuffer;  ///< its size in bytes
} alcModel;

/// Number of doubles in driver_param per driver.
#define ALC_DRIVER_NPARAM 20

// ---- data ---------------------------------------------------------------------------------

/// Count and last detail of one warning kind.
typedef struct alcWarningStat_ {
    int count;     ///< how many times it happened since the data was made or reset
    int lastinfo;  ///< detail of the last occurrence (see alctWarning)
} alcWarningStat;

/// Statistics of one time step (AL paper Table 1 quantities).
typedef struct alcStepStat_ {
    int outer;                ///< outer iterations (Alg. 1 loop)
    int newton;               ///< Newton iterations = linear solves
    int cgTotal;              ///< CG iterations over all solves
    int cgMax;                ///< most CG iterations of one solve
    int contactsMax;          ///< most active pairs seen at a Newton iteration
    double contactsSum;       ///< active pairs summed over Newton iterations
    int candidatesMax;        ///< most broad-phase candidates of one CCD pass
    double alphaSum;          ///< step sizes alpha summed over outer iterations
    double alphaMin;          ///< smallest alpha of the step
    int lineSearchFails;      ///< Newton iterations whose line search found no decrease
    int muIncreases;          ///< adaptive mu/delta triggers (AL paper §5.2)
    int capped;               ///< 1 if the step ended at the outer iteration cap
    double mu;                ///< penalty stiffness at the end of the step (kg, as alcOption.mu)
    double delta;             ///< contact offset at the end of the step (m)
    double beta;              ///< final beta of Eq. 9
    double residual;          ///< last ||p||_inf / h (m/s)
    int bufferGrows;          ///< pair or candidate buffers grown (and the work redone)
    int bufferCapacity;       ///< largest capacity such a growth reached (0 = none)
    double energyGain;        ///< mechanical energy gained beyond the step's allowance (J)
    int directSolves;         ///< Newton systems solved by Cholesky (linear solver direct/auto)
    int splits;               ///< stalled attempts split into halves (alcOption.splitDepth)
    double hMin;              ///< shortest part of h the step was solved in (s; h when unsplit)
    double penetration;       ///< penalty-ds model: the deepest contact at the step's end (m),
                              ///< (Y - Z).n over its active pairs; 0 under the other models
    int guards;               ///< tetrahedron guards added (alcOption.tetGuards)
    double time[ALC_NTIMER];  ///< seconds per phase (alctTimer)
} alcStepStat;

/// Statistics accumulated over every step since the data was made or reset.
typedef struct alcRunStat_ {
    long steps;               ///< steps taken
    long outer;               ///< outer iterations
    long newton;              ///< Newton iterations
    int newtonMax;            ///< most Newton iterations of one step
    long cgTotal;             ///< CG iterations
    int cgMax;                ///< most CG iterations of one solve
    double contactsSum;       ///< active pairs summed over Newton iterations
    int contactsMax;          ///< most active pairs
    double alphaSum;          ///< alpha summed over outer iterations
    long capped;              ///< steps that hit the iteration cap
    long muIncreases;         ///< adaptive mu/delta triggers
    long bufferGrows;         ///< pair or candidate buffers grown (and the work redone)
    int bufferCapacity;       ///< largest capacity a growth reached (0 = none)
    long directSolves;        ///< Newton systems solved by Cholesky
    long splits;              ///< stalled attempts split into halves
    long stepsSplit;          ///< steps solved in parts
    double timeMax;           ///< slowest step (s)
    double time[ALC_NTIMER];  ///< seconds per phase
    double penetrationMax;    ///< penalty-ds model: the deepest contact at a step's end (m)
    long guards;              ///< tetrahedron guards added (alcOption.tetGuards)
} alcRunStat;

/// Plain, public simulation data: state, inputs and outputs. One per simulation thread.
typedef struct alcData_ {
    int nvert;    ///< copy of model->nvert
    int nbody;    ///< copy of model->nbody
    int ndriver;  ///< copy of model->ndriver
    int nrigid;   ///< copy of model->nrigid
    double time;  ///< simulated time (s)
    long step;    ///< steps taken

    // state
    double* x;               ///< positions (nvert x 3), m
    double* v;               ///< velocities (nvert x 3), m/s
    double* rigid_pose;      ///< pose of each rigid body: theta (rad), q (m) (nrigid x 6); its
                             ///< vertices in x follow from it
    double* rigid_posePrev;  ///< the pose one step earlier (nrigid x 6): implicit Euler's
                             ///< velocity is (pose - posePrev) / h (RIPC Eq. 9-10)

    // inputs
    double* kin_target;    ///< kinematic targets at the end of the next step (nvert x 3);
                           ///< written by alc_step from the driver scripts, except for
                           ///< drivers whose driver_external flag is set
    int* driver_external;  ///< 1: the caller writes kin_target for this driver (ndriver)
    int* driver_released;  ///< 1: the driver's vertices move freely from now on (ndriver)

    // outputs
    double* body_force;                    ///< total contact force on each body (nbody x 3), N
    alcStepStat stat;                      ///< statistics of the last step
    alcRunStat run;                        ///< accumulated statistics
    alcWarningStat warning[ALC_NWARNING];  ///< warning counts
    int maxuse_contacts;                   ///< most active contact pairs held
    int maxuse_candidates;                 ///< most broad-phase candidates held
    long maxuse_blocks;                    ///< most Hessian 3x3 blocks held
    size_t maxuse_memory;                  ///< peak backend memory (bytes; device memory for CUDA)

    void* buffer;    ///< the one allocation holding the arrays above
    size_t nbuffer;  ///< its size in bytes
} alcData;

/// Kind of a contact pair (alcContact.type).
typedef enum alctContactType_ {
    ALC_CONTACT_POINT_TRIANGLE = 0,  ///< a surface vertex (side 0) against a triangle (side 1)
    ALC_CONTACT_EDGE_EDGE = 1        ///< a surface edge (side 0) against an edge (side 1)
} alctContactType;

/// One active contact pair, as reported by alc_getContacts.
///
/// Sign convention, for both sides: `normal` points from side 1 toward side 0 (the direction in
/// which side 0 moves to increase the distance). The contact force on side 0 is
/// normalForce * normal + frictionForce; the force on side 1 is its opposite. Side 0 is the
/// point (PT) or the first edge (EE), side 1 the triangle or the second edge.
typedef struct alcContact_ {
    int type;                 ///< alctContactType
    int vert[4];              ///< PT: point, tri a, b, c; EE: edge a (2), edge b (2)
    int body[2];              ///< bodies of side 0 and side 1
    double distance;          ///< unsigned distance at the last intersection-free state (m)
    double normal[3];         ///< unit direction of increasing distance, acting on side 0
    double normalForce;       ///< normal force magnitude (N, >= 0), AL paper Eq. 23; under the
                              ///< IPC model the barrier's force at the step's end (IPC Eq. 20)
    double frictionForce[3];  ///< friction force on side 0 (N); 0 under the IPC model, whose
                              ///< lagged friction reaches alcData.body_force only
    double lambda;            ///< AL multiplier (kg m, incremental-potential units of Eq. 12:
                              ///< the normal force is lambda / h^2 N); under the IPC model the
                              ///< barrier's force times h^2
    double gamma;             ///< AL decay factor (1 while the constraint is active; 1 under IPC)
    double weight[4];         ///< barycentric coordinates of the contact point on each side, per
                              ///< vert: PT {1, b_a, b_b, b_c} (the triangle's sum to 1); EE
                              ///< {1 - s, s, 1 - t, t}; from the distance gradient at the last
                              ///< linearization (the step's last outer iteration; under the
                              ///< IPC model, the step's end)
    double point[2][3];       ///< the contact point on side 0 and on side 1 at the end of the
                              ///< step (m): sum of weight x position over each side's vertices
} alcContact;

/// What alc_check found in one state. "First" means lowest index: the lowest vertex, the lowest
/// tetrahedron, and the intersecting pair lowest by (edge, triangle). Bodies are -1 when unknown;
/// every index is -1 when there is no offender of its kind.
typedef struct alcCheckReport_ {
    int nnonfinite;        ///< vertices with a NaN or Inf coordinate
    int ninverted;         ///< protected tetrahedra whose orientation is not strictly positive
    int ninvertedAllowed;  ///< inverted tetrahedra of materials that may invert (not failures)
    int nintersect;        ///< (edge, triangle) pairs without a shared vertex that meet
    int vert;              ///< first vertex with a NaN or Inf coordinate
    int tet;               ///< first inverted tetrahedron
    int tetVert[4];        ///< its vertices
    int tetBody;           ///< its body
    int edge;              ///< edge of the first intersecting pair (index into edge_vert)
    int edgeVert[2];       ///< its vertices
    int edgeBody;          ///< its body
    int tri;               ///< triangle of the first intersecting pair (index into tri_vert)
    int triVert[3];        ///< its vertices
    int triBody;           ///< its body
    int clean;             ///< 1 when nnonfinite, ninverted and nintersect are zero
    char message[512];     ///< one line: "ok: ..." or the offenders separated by "; "
} alcCheckReport;

// ---- defs ---------------------------------------------------------------------------------

/// Log sink: level 0 error, 1 warning, 2 info, 3 debug. Called from the stepping thread.
typedef void (*alcLogFn)(void* user, int level, const char* message);

/// Capacities fixed at sim creation; 0 means "sized from the model" (see each field).
typedef struct alcCapacity_ {
    int contactPairs;    ///< active contact pairs; auto: max(4096, 8 x surface vertices)
    int candidates;      ///< CCD candidate pairs per pass; auto: max(16384, 16 x surface vertices)
    int growOnOverflow;  ///< 1: grow a full buffer between iterations and redo (counted in
                         ///< alcStepStat.bufferGrows); 0: ALC_ERR_CAPACITY instead; default 1
} alcCapacity;

/// How to make a sim. Fill with alc_defaultSimDef(), then change fields.
typedef struct alcSimDef_ {
    int backend;           ///< alctBackend; default ALC_BACKEND_AUTO
    int device;            ///< CUDA device ordinal; default 0
    int threads;           ///< reference backend threads; 0 = the idle cores when the sim is
                           ///< made, at most one per 1024 elements (alc_simThreads); N > 0 =
                           ///< exactly N; default 0
    alcCapacity capacity;  ///< buffer capacities
    alcLogFn log;          ///< log sink; NULL = silent; default NULL
    void* user;            ///< passed to log; default NULL
    int verbosity;         ///< most detailed level passed to log; default 1 (warnings)
    int internalValue;     ///< do not set: stamped by alc_defaultSimDef
} alcSimDef;

/// A material, for alc_specAddMaterial. Fill with alc_defaultMaterialDef().
typedef struct alcMaterialDef_ {
    const char* name;   ///< unique name; default "default"
    int model;          ///< alctMaterialModel; default ALC_MAT_STABLE_NEOHOOKEAN
    double density;     ///< kg/m^3; default 1000
    double young;       ///< Young's modulus (Pa); default 1e5
    double poisson;     ///< Poisson ratio in [0, 0.5); default 0.3
    double friction;    ///< friction coefficient against every material; -1 = option default
    int internalValue;  ///< do not set
} alcMaterialDef;

/// A mesh in host memory: vertices with tetrahedra (a solid) or triangles (an obstacle
/// surface), 0-based indices. Made by the alc_mesh* functions and alc_meshRead; owned by the
/// caller and freed with alc_deleteMesh. Its arrays go into alcBodyDef as they are (vert and
/// nvert with tet and ntet for a solid; with tri and ntri for an obstacle), and the spec copies
/// them, so the mesh may be deleted once the body is added.
typedef struct alcMesh_ {
    int nvert;     ///< vertices
    int ntet;      ///< tetrahedra (0 for a surface)
    int ntri;      ///< triangles (a surface; a .msh file's boundary triangles beside its tets)
    double* vert;  ///< positions (nvert x 3), m
    int* tet;      ///< tetrahedra (ntet x 4), positively oriented
    int* tri;      ///< triangles (ntri x 3); generated obstacles face the side bodies are on
} alcMesh;

/// A solid tetrahedral body or a triangle obstacle, for alc_specAddBody.
/// Fill with alc_defaultBodyDef(). The library copies the arrays.
typedef struct alcBodyDef_ {
    const char* name;           ///< name; default "body<N>"
    int type;                   ///< alctBodyType; default ALC_BODY_SOLID
    int material;               ///< index from alc_specAddMaterial; default 0
    int nvert;                  ///< vertex count
    const double* vert;         ///< rest positions (nvert x 3), m
    int ntet;                   ///< tetrahedra (solids)
    const int* tet;             ///< tetrahedron vertex indices (ntet x 4), 0-based
    int ntri;                   ///< triangles (obstacles; solids compute their boundary)
    const int* tri;             ///< triangle vertex indices (ntri x 3), 0-based
    double position[3];         ///< translation applied after rotation and scale (m); default 0
    double rotation[4];         ///< rotation quaternion w, x, y, z; default identity
    double scale[3];            ///< scale of the rest positions; default 1
    double velocity[3];         ///< initial linear velocity (m/s); default 0
    double angularVelocity[3];  ///< initial angular velocity about the centroid (rad/s); default 0
    int internalValue;          ///< do not set
} alcBodyDef;

/// A driver: scripted rigid motion of a vertex set. Fill with alc_defaultDriverDef().
/// Positions follow target(t) = c + R(t) (x0 - c) + u(t) for each vertex initial position x0.
typedef struct alcDriverDef_ {
    const char* name;       ///< name; default "driver<N>"
    int type;               ///< alctDriverType; default ALC_DRIVER_FIXED
    double velocity[3];     ///< LINEAR, ROTATE: translation velocity (m/s)
    double center[3];       ///< ROTATE: a point on the axis (m)
    double axis[3];         ///< ROTATE: rotation axis (normalized by the library)
    double angularSpeed;    ///< ROTATE: rad/s, right-handed about axis
    double start;           ///< motion begins at this time (s); default 0
    double end;             ///< motion stops (holds its pose) at this time (s); default inf
    double release;         ///< vertices become free at this time (s); default inf (never)
    double releasePast[4];  ///< vertices become free at the first step that begins with every
                            ///< vertex of the driver's body beyond the plane
                            ///< releasePast[0..2] . x > releasePast[3] (a direction, any
                            ///< length, and an offset in m times its length); direction
                            ///< (0, 0, 0) = never (default)
    int nkey;               ///< KEYFRAMES: count
    const double* keys;     ///< KEYFRAMES: time, position xyz, quaternion wxyz (nkey x 8);
                            ///< a pose relative to the initial one
    int internalValue;      ///< do not set
} alcDriverDef;

/// Options of alc_loadScene. Fill with alc_defaultLoadDef().
typedef struct alcLoadDef_ {
    const char* preset;            ///< name of a preset in the scene's presets: map; NULL = none
    int nparam;                    ///< overrides of scene params
    const char* const* paramName;  ///< names (nparam)
    const double* paramValue;      ///< values (nparam)
    int internalValue;             ///< do not set
} alcLoadDef;

/// Opaque simulator: owns the backend, its memory and handles.
typedef struct alcSim_ alcSim;
/// Opaque model builder (scene specification) for building scenes in code.
typedef struct alcSpec_ alcSpec;

#ifdef __cplusplus
}
#endif

#endif  // ALC_ALC_TYPES_H_
