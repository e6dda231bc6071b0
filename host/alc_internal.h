// Internal declarations shared by host/ modules: error recording, the sim object, helpers.
// Internal non-static host functions use the prefix alci_ (the public ones are alc_/alcu_).
#ifndef ALC_HOST_ALC_INTERNAL_H_
#define ALC_HOST_ALC_INTERNAL_H_

#include "backend.h"

#include "alc/alc.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>

#define ALC_ERRLEN 1024

/// Format "file:line function: message" into buf.
void alci_formatError(char* buf, size_t n, const char* file, int line, const char* func,
                      const char* fmt, ...) __attribute__((format(printf, 6, 7)));

/// Record an error on a sim and evaluate to the status (MuJoCo engine_util_errmem.h style).
#define ALC_ERROR(sim, status, ...)                                                     \
    (alci_formatError((sim)->error, sizeof((sim)->error), __FILE__, __LINE__, __func__, \
                      __VA_ARGS__),                                                     \
     (status))

/// Stamp in the internalValue of defs made by the default functions.
#define ALC_DEF_STAMP 0x41C0DEF

/// Write a message into a caller buffer (NULL-safe).
void alci_setMessage(char* err, int errsz, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Format v in the shortest %g form (15, 16 or 17 significant digits) that reads back as
/// exactly v: 0.2 + 1e-17 prints as 0.2 when that is the same double, never 0.20000000000000001.
/// Returns buf.
const char* alci_formatDouble(char* buf, size_t n, double v);

/// Wall-clock seconds (monotonic).
double alci_now(void);

/// Cores of ncpu left idle by the rest of the machine, sampled from /proc/stat over `seconds`
/// (the calling thread sleeps meanwhile): round(idle fraction x ncpu), in [1, ncpu]. ncpu when
/// /proc/stat cannot be read.
int alci_idleCores(int ncpu, double seconds);

/// Accumulating phase timer of the step loops (host/step.c, host/step_ipc.c).
typedef struct {
    double t0;
    double* acc;
} alciTimer;
static inline void alci_tic(alciTimer* t, double* acc) {
    t->t0 = alci_now();
    t->acc = acc;
}
static inline void alci_toc(alciTimer* t) {
    *t->acc += alci_now() - t->t0;
}

/// The simulator: the model, the backend and the host-side step state.
struct alcSim_ {
    const alcModel* m;       // the model (not owned)
    alcSimDef def;           // copy of the def
    int backend;             // ALC_BACKEND_REF or ALC_BACKEND_CUDA
    char deviceName[160];    // alc_simDeviceName: the CUDA device described, "" on ref
    char error[ALC_ERRLEN];  // last error message
    alciBackend be;          // backend operations and state
    int nthread;             // reference backend threads in use

    // host-side per-step inputs handed to the backend
    unsigned char* kinMask;        // 1 if the vertex is kinematic during the step (nvert)
    volatile sig_atomic_t cancel;  // alc_cancelStep's request, consumed by the step honouring it
    double* kinTarget;             // scripted/external targets (nvert x 3)
    unsigned char* rigidKin;       // 1 if the rigid body is kinematic during the step (nrigid)
    double* rigidTarget;           // its target pose (alci_driver_rigidTargets; nrigid x 6)
    int threads;                   // reference backend threads (alc_simThreads); 0 elsewhere
    double timeComp;               // Kahan compensation of alcData.time (see alc_step)
    double timeLast;               // the time alc_step last wrote (a caller's change resets it)
    double stepH;                  // h of the step or split part being solved (s)

    // contact report (alc_getContacts)
    alcContact* contacts;  // capacity contactCap
    int ncontact;
    int contactCap;
    int warnedOnce[ALC_NWARNING];  // the first of each warning kind is logged
    int stepping;                  // 1 inside alc_step's solve (d->step not yet advanced)

    // energy check of every step (host/energy_check.c)
    double* energyBuf;    // the energy check's copies (nvert x ALCI_ENERGY_BUFN, ALCI_EBUF_*)
    double energyBefore;  // mechanical energy at x^t
    double energyLast;    // mechanical energy at the end of the last checked step
    double energyBudget;  // most energy the run may hold: start + edits + allowances
    double energyPartsBefore[3], energyPartsLast[3];  // kinetic, elastic, gravity (J)
    int energyInit;  // 1 once energyLast and the copies hold a checked step
    int ipcChecked;  // the IPC settings were checked (host/step_ipc.c, first step)
};

/// Count a warning on the data and log the first of its kind through the def's sink.
void alci_warn(alcSim* sim, alcData* d, alctWarning w, int info, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));

/// Log a message through the sim def's log sink when level <= verbosity.
void alci_log(const alcSim* sim, int level, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Allocate a model with the sizes already set in *sizes (counts only); arrays point into one
/// 64-byte aligned buffer. Returns NULL on allocation failure.
alcModel* alci_model_alloc(const alcModel* sizes);

/// 1 when driver k has a release plane (alcDriverDef.releasePast) and every vertex of its body
/// lies beyond it at x (nvert x 3); 0 otherwise.
int alci_driver_pastPlane(const alcModel* m, const double* x, int k);

/// Evaluate the driver scripts at time t: writes positions of all scripted driver vertices into
/// target (nvert x 3) and sets mask[v] = 1 for every vertex kinematic at that time.
/// Drivers flagged external in ext (nullable) keep target as given; released drivers (rel,
/// nullable, or release time passed) leave their vertices free.
void alci_driver_eval(const alcModel* m, double t, const int* ext, const int* rel, double* target,
                      unsigned char* mask);

/// The target poses of the kinematic rigid bodies from their vertices' targets: rigidKin[r] = 1
/// when rigid body r is kinematic by mask (nvert), and then rigidTarget[6 r ..] its pose (theta,
/// |theta| <= pi, and q) that takes its body-frame vertices nearest to target (nvert x 3), by
/// Kabsch's method (exact for a rigid motion).
void alci_driver_rigidTargets(const alcModel* m, const unsigned char* mask, const double* target,
                              unsigned char* rigidKin, double* rigidTarget);

/// World position at t = 0 of a body's rest vertex: position + R (scale * rest).
void alci_bodyTransform(const alcBodyDef* def, const double rest[3], double out[3]);

/// Rotate vector v by unit quaternion q (w, x, y, z).
void alci_quatRotate(const double q[4], const double v[3], double out[3]);

/// Mean lumped mass of the vertices that have one (kg; 1 when none has).
double alci_model_meanMass(const alcModel* m);

/// Largest mesh-element edge length statistics of the model (m): mean surface edge length.
double alci_model_meanEdge(const alcModel* m);

/// The rows of the mesh graph (host/vertex_rows.c): row v lists v and every vertex sharing a
/// tetrahedron with it, ascending; rowptr has nvert + 1 entries. The caller frees both arrays.
/// @return ALC_OK, or ALC_ERR_NOMEM with both NULL.
alctStatus alci_vertexRows(const alcModel* m, int** rowptr, int** col);

/// True when friction is active anywhere in the model (a default or a material pair mu > 0).
int alci_frictionOn(const alcModel* m);

/// Energy-gain check (host/energy_check.c): alci_energy_begin records the mechanical energy
/// (kinetic + elastic + gravity potential of the free vertices) before a step, alci_energy_end
/// compares it after the step and its contact report with the work that gravity, drivers and
/// contact push-out can do, and raises ALC_WARN_ENERGY_GAIN (alcStepStat.energyGain) on a gain
/// beyond it. No-ops when memory for the copies is missing.
void alci_energy_begin(alcSim* sim, const alcData* d);
/// Doubles per vertex in alcSim.energyBuf, and where each part starts (in units of nvert
/// doubles): x^t (XT), the last end state's x and v (XL, VL), force scratch (GS), |grad_k E_el|
/// of the kinematic vertices at x^t (FB) and at the last end state (FL). Between steps only XL,
/// VL and FL hold anything: alci_energy_begin writes XT, FB and GS before they are read, which
/// is why checkpoints (format 4) carry only those three.
#define ALCI_ENERGY_BUFN 14
#define ALCI_EBUF_XT     0
#define ALCI_EBUF_XL     3
#define ALCI_EBUF_VL     6
#define ALCI_EBUF_GS     9
#define ALCI_EBUF_FB     12
#define ALCI_EBUF_FL     13
void alci_energy_end(alcSim* sim, alcData* d);

/// The AL step's progress test (host/step.c): beta of Eq. 9 must fall to this fraction of its
/// value at the last mark within stallIters outer iterations (else mu doubles and delta halves)
/// and within splitAfter (else a step that may be split is). With alpha >= 2e-3 in every outer
/// iteration beta falls this far within 50 of them; a stall at alpha ~ 1e-4 takes 500.
#define ALCI_STALL_PROGRESS 0.9

/// alc_compileSpec, and when the initial state intersects, the spec (= model) indices of the
/// bodies of the first intersecting pair in bad[0] (the edge's) and bad[1] (the triangle's),
/// else -1 (for the scene loader's file:line:col).
alctStatus alci_compileSpec(const alcSpec* s, alcModel** out, char* err, int errsz, int bad[2]);

/// A pending alc_cancelStep request is consumed and reported as ALC_ERR_CANCELLED (the message
/// names the step and where it stopped); ALC_OK when none is pending. The step loops call it
/// before every Newton iteration and every outer iteration.
alctStatus alci_cancelled(alcSim* sim, const alcData* d, const char* where, int k);

/// The AL (and penalty) time step, AL paper Algorithm 1 (host/step.c).
alctStatus alci_step_al(alcSim* sim, alcData* d);

/// The IPC barrier time step (host/step_ipc.c).
alctStatus alci_step_ipc(alcSim* sim, alcData* d);
/// 1 if some solid body has a non-invertible material (Neo-Hookean): its tetrahedra are
/// protected by the line search and the inversion bound.
int alci_hasNonInvertible(const alcModel* m);
/// The backend's input for a step of length h from d's state (x, v, the kinematic targets and
/// mask, gravity, the rigid poses), with the kinematic rigid bodies' target poses fitted to
/// their drivers (alci_driver_rigidTargets); sets sim->stepH. Pointers into d and sim.
alciStepInput alci_stepInput(alcSim* sim, alcData* d, double h);
/// One step of the mlcp-cr model (host/step_mlcp.c; reference backend).
alctStatus alci_step_mlcp(alcSim* sim, alcData* d);
/// s->time[ALC_TIMER_OTHER] = the step's time less its four measured phases, at least 0
/// (host/step.c).
void alci_stepTimeOther(alcStepStat* s);
/// One step of the penalty-ds model (host/step_penalty_ds.c; reference backend).
alctStatus alci_step_penaltyDs(alcSim* sim, alcData* d);

/// The Newton direction P = -H^-1 G by the backend's PCG (capped at cgMaxIter, or 9 x the vertex
/// count within [100, 20000]), timed and counted in d->stat (Newton and CG iterations, residual
/// ||P||_inf / h), with ALC_WARN_PCG_MAXITER when PCG stops short of its tolerance.
alctStatus alci_newtonSolve(alcSim* sim, alcData* d, alciSolveOut* out);

/// The backend's contact carry (ops->getCarry): the active set malloc'ed into *pairs (NULL when
/// empty; the caller frees it), its count, and the mu and delta the next step lags friction
/// with. host/checkpoint.c.
/// @return ALC_OK, or the backend's failure or ALC_ERR_NOMEM, with the message on the sim.
alctStatus alci_carry_get(alcSim* sim, alcmPair** pairs, int* npair, double* lastMu,
                          double* lastDelta);

#endif  // ALC_HOST_ALC_INTERNAL_H_
