// Importer of IPC scene scripts (ipc-sim/IPC, input/*.txt): the script reader (ipc_script.c) and
// the converter to an alcove scene with its transformed meshes (ipc_import.c). Internal to the
// library; `alcove import-ipc` (tools/cmd_import_ipc.c) is its command line. docs/import-ipc.md
// lists what each IPC keyword becomes.
#ifndef ALC_HOST_IPC_IMPORT_H_
#define ALC_HOST_IPC_IMPORT_H_

#include "alc/alc_types.h"

/// A Dirichlet condition of a shape line (`DBC minx miny minz maxx maxy maxz vx vy vz wx wy wz
/// [t0 [t1]]`): a box relative to the shape's own bounding box, a velocity and an angular velocity.
typedef struct {
    double bmin[3], bmax[3];  ///< relative box (0..1 of the shape's file bounding box)
    double vel[3];            ///< m/s (scene units after `size`)
    double omega[3];          ///< rad/s (IPC writes degrees/s)
    double t0, t1;            ///< active time range (s); t1 may be inf
    int line;                 ///< script line
} alciIpcDbc;

/// One simulated shape of the script (`shape`, `shapes`, `shapeMatrix`).
typedef struct {
    char path[1024];      ///< as written in the script
    char resolved[2048];  ///< found on disk (IPC's rule: beside the script, else under the root)
    int line;             ///< script line
    double trans[3];      ///< translation
    double rot[3];        ///< rotation angles (degrees) about x, y, z: R = Rx Ry Rz (z first)
    double scale[3];      ///< per-axis scale, applied first
    double mat[3];        ///< density, E, nu of a `material` extra; NAN when absent
    int hasInitVel;       ///< `initVel` given
    double initLV[3];     ///< initial linear velocity (m/s)
    double initAV[3];     ///< initial angular velocity (rad/s)
    int ndbc;             ///< Dirichlet conditions
    alciIpcDbc dbc[8];    ///< at most 8 per shape
    int matrixCount;      ///< copies of its `shapeMatrix` (0: a `shape`/`shapes` line)
    int matrixIndex;      ///< which copy (0 .. matrixCount-1)
} alciIpcShape;

/// A collision object: `halfSpace`, `ground` or `meshCO`.
typedef struct {
    int isMesh;           ///< 1: meshCO; 0: half-space
    int line;             ///< script line
    char path[1024];      ///< meshCO file as written
    char resolved[2048];  ///< meshCO file found
    double origin[3];     ///< half-space point or meshCO position (scene coordinates)
    double normal[3];     ///< half-space normal (normalized)
    double scale;         ///< meshCO size: its largest extent after scaling
    double rot[3];        ///< meshCO rotation (degrees, as for shapes)
    double friction;      ///< friction coefficient against the simulated shapes
} alciIpcCO;

/// Everything the importer keeps from a script; unparsed settings become messages.
typedef struct {
    char path[2048];     ///< the script
    int energyFCR;       ///< 1: `energy FCR`; 0: NH (IPC's default)
    int energyLine;      ///< line of `energy`, 0 if absent
    double size;         ///< `size`; <= 0: no rescaling
    double duration;     ///< `time` (s)
    double dt;           ///< `time` (s)
    double rho, E, nu;   ///< `density`, `stiffness`
    int gravity;         ///< 0 after `turnOffGravity`
    char script[64];     ///< `script` name ("null" by default)
    int scriptLine;      ///< its line
    int nparam;          ///< script parameters (`script NAME N P1 .. PN`), at most 8 kept
    double param[8];     ///< the parameters
    double selfFric;     ///< `selfFric`
    double rotAxis[3];   ///< `rotateModel` axis
    double rotDeg;       ///< `rotateModel` angle (degrees)
    double handleRatio;  ///< `handleRatio` (twist handles)
    double tuning[6];    ///< kappa, dHat, dHat target, dHat eps, eps_v, eps_v target (relative)
    int dhatSet;         ///< dHat given (`dHat` or `tuning`)
    int epsvSet;         ///< eps_v given (`epsv` or `tuning`)
    int kappaSet;        ///< kappa given (`tuning`)
    double tol;  ///< first `tol` value (Newton tolerance relative to the diagonal), 0 if absent
    int useAbs;  ///< `useAbsParameters`
    int nshape;  ///< shapes
    alciIpcShape* shape;
    int nco;  ///< collision objects
    alciIpcCO* co;
    int nmsg;    ///< messages: what was not carried over, with its line
    char** msg;  ///< "file:line: warning: ..." or "file:line: note: ..."
} alciIpcScript;

/// Read an IPC script. Mesh paths are resolved against the script's folder, then ipcRoot.
/// @param[in]  ipcRoot  folder holding IPC's input/ (NULL: walk up from the script to find one)
/// @param[out] err      "script:line: what is wrong" for a malformed line
/// @return ALC_OK, ALC_ERR_IO (unreadable script), ALC_ERR_SCENE (malformed), ALC_ERR_NOMEM.
alctStatus alci_ipc_readScript(const char* path, const char* ipcRoot, alciIpcScript* s, char* err,
                               int errsz);

/// Free a script read by alci_ipc_readScript. NULL-safe.
void alci_ipc_freeScript(alciIpcScript* s);

/// Append a message (printf format) to the script's list.
void alci_ipc_message(alciIpcScript* s, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/// What alci_ipc_import wrote, for the caller's summary and tests.
typedef struct {
    char yamlPath[2048];  ///< OUT/NAME.yaml
    int nbody;            ///< solids written
    int nobstacle;        ///< obstacles written
    int ndriver;          ///< drivers written
    int steps;            ///< time steps
    double scaleFactor;   ///< `size` factor applied to the shapes (1 without `size`)
    double shift[3];      ///< translation applied after the factor
    double diagonal;  ///< bounding-box diagonal of the simulated shapes (m): IPC's reference length
    double dhat;      ///< d-hat (m), written as solver.delta and solver.ipc.dhat
    double epsv;      ///< eps_v (m/s), written as friction.eps_v
    double lift;      ///< upward shift of the `fall`/`dragright` scripts (m)
    double wave;      ///< largest h c / D over the bodies: the time step over the time an elastic
                      ///< wave (c = sqrt(E / density)) takes to cross the body's box diagonal D
    int waveShape;    ///< the script's shape of that largest ratio (-1 without bodies)
    int linearSolver;  ///< alctLinearSolver written as solver.linear_solver; -1: none written
    const char* linearSolverName;  ///< its name, or "pcg (default)" when none is written (static)
} alciIpcResult;

/// A body whose elastic wave crosses it in less than ALCI_IPC_STIFF_WAVE time steps (h c / D
/// at least this) is stiff for the step: its Newton systems are nearly static and block-Jacobi
/// PCG converges slowly there (thousands of iterations a solve on thin or finely meshed bodies),
/// so the importer picks the direct solver (docs/import-ipc.md, "Solver settings").
#define ALCI_IPC_STIFF_WAVE 1.0

/// Options of alci_ipc_import.
typedef struct {
    const char* outDir;   ///< folder for NAME.yaml and NAME_meshes/ (created)
    const char* name;     ///< scene name
    const char* contact;  ///< solver.contact written ("al" or "ipc"); NULL: "al"
    /// solver.linear_solver written: "pcg", "direct" or "auto"; NULL picks: "direct" where a
    /// body is stiff for the step (ALCI_IPC_STIFF_WAVE) and this build has CHOLMOD, else none
    /// (the default, PCG)
    const char* linearSolver;
} alciIpcImportDef;

/// Convert a script read by alci_ipc_readScript: read and transform the meshes, convert the
/// tolerances, scripted motions and collision objects, write OUT/NAME.yaml and OUT/NAME_meshes/.
/// Everything not carried over is appended to s->msg (and listed at the top of the YAML).
/// @param[out] err  "path:line: what is wrong" (a mesh that cannot be read, a write failure)
/// @return ALC_OK, ALC_ERR_SCENE (bad mesh, unknown def->linearSolver: checked before anything is
///         read), ALC_ERR_IO (cannot write), ALC_ERR_NOMEM.
alctStatus alci_ipc_import(alciIpcScript* s, const alciIpcImportDef* def, alciIpcResult* res,
                           char* err, int errsz);

#endif  // ALC_HOST_IPC_IMPORT_H_
