// Shared by the scene-driven tests: load a scene from scenes/ with parameter overrides, step
// it with the independent intersection and inversion check after every step.
#ifndef ALC_TESTS_SCENE_RUN_H_
#define ALC_TESTS_SCENE_RUN_H_

#include "check.h"

#include "alc/alc.h"

typedef struct {
    alcModel* m;
    alcData* d;
    alcSim* sim;
    unsigned char* obstacle;  // per body: 1 for obstacles
    int clean;                // every state so far passed the independent check
    int intersections;        // penalty-ds: the most (edge, triangle) intersections of a state
} Run;

/// Load scenes/SCENE with parameter overrides (names NULL-terminated, or NULL) and make a sim on
/// the reference backend with the scene's contact model, or `contact` when it is >= 0.
/// Prints the error and returns 0 on failure.
int openRun(Run* r, const char* scene, const char* const* names, const double* values, int contact);
/// openRun for a scene file at any path (absolute, or relative to the working directory).
int openRunPath(Run* r, const char* path, const char* const* names, const double* values,
                int contact);
/// openRunPath on a given backend (alctBackend).
int openRunOn(Run* r, const char* path, const char* const* names, const double* values, int contact,
              int backend);
/// 1 when scenes/SCENE under contact model `contact` on `backend` is refused by alc_makeSim with
/// ALC_ERR_UNSUPPORTED and a message that contains `want`; else 0, with what happened printed.
int refusedToMake(const char* scene, int contact, int backend, const char* want);
/// Free what openRun made.
void closeRun(Run* r);
/// The independent check (host/check.c) of the current state; 0 (with the offence printed, and
/// r->clean cleared) when it is not clean. Under the penalty-ds model, which is not
/// penetration-free, only inverted tetrahedra and NaN fail it (intersections are counted in
/// r->intersections).
int checkRun(Run* r);
/// One step, then the independent check of the new state; 0 (with the reason printed) when the
/// step fails or the state is not clean.
int stepRun(Run* r);

/// Three runs of scenes/SCENE stepped side by side, for a solver option that changes the Newton
/// path but not the solution: a as loaded, b with `change` applied to its model, c with cg_tol
/// 1e-7 instead of 1e-4 (how far a tighter linear solve moves a's states).
typedef struct {
    Run a, b, c;
    long newton[2];  // Newton iterations of a and b
    long cg[2];      // CG iterations of a and b
    long splits[2];  // split steps of a and b
    double worst;    // largest |x_b - x_a| at the end (m)
    double cgMove;   // largest |x_c - x_a| at the end (m)
    double scale;    // largest |x_a| at the end (m)
} PathRuns;
/// Steps the three runs of p `steps` times (each state checked as stepRun checks it) and fills
/// the totals and differences. The runs stay open (pathRunsClose). 0 on failure (printed).
int pathRuns(PathRuns* p, const char* scene, int steps, void (*change)(alcModel* m));
/// Closes the three runs of p.
void pathRunsClose(PathRuns* p);
/// Over the obstacles' vertices: the largest |x - kin_target| (how far the step left a moving
/// boundary from its target) into *gap and the largest |v| component into *speed (each only
/// raised: start them at 0 and call after every step).
void obstacleTargetGap(const Run* r, double* gap, double* speed);
/// Mean position of body b's vertices.
void bodyCentre(const Run* r, int b, double c[3]);
/// Total linear momentum (kg m/s): the vertices' m v and the rigid bodies' m (q - q_prev) / h.
void totalMomentum(const Run* r, double p[3]);
/// Run all of r's steps (checked), close r, and check that the total momentum stays within 1e-6
/// of its start while contact passes more than a tenth of it to body b (named `what` in the
/// note) along x. ALC_TEST_PASS or ALC_TEST_FAIL.
int momentumCheck(Run* r, int b, const char* what);
/// A second sim for r's model on the reference backend that logs to log(user, ...) at
/// `verbosity` (3: every solver iteration; 4: also every Newton iteration and the pair that cut
/// each chord); threads 0 = the default. Owned by the caller.
alctStatus makeLoggedSim(const Run* r, int threads, int verbosity, alcLogFn log, void* user,
                         alcSim** sim);
/// makeLoggedSim on a given backend (alctBackend).
alctStatus makeLoggedSimOn(const Run* r, int backend, int threads, int verbosity, alcLogFn log,
                           void* user, alcSim** sim);

/// The end of a run as the checkpoint tests compare it (positions, velocities, time,
/// statistics, contact report); arrays malloc'ed (runEndFree).
typedef struct {
    double* x;
    double* v;
    double time;
    long step;
    alcRunStat run;
    alcStepStat stat;
    int ncontact;
    alcContact* contacts;
} RunEnd;

/// Record the end of r; 0 on allocation failure.
int runEndOf(RunEnd* e, const Run* r);
/// Free what runEndOf allocated. NULL-safe on the arrays.
void runEndFree(RunEnd* e);
/// Everything but the timers equal, bit for bit; prints the first difference (labelled what).
int runEndSame(const RunEnd* a, const RunEnd* b, int nvert, const char* what);
/// Run scenes/SCENE for `total` steps on a backend with a checkpoint after `at`; restore it from
/// memory into a new sim and from a file into the first one (an RL-style reset) and run each to
/// `total`: 1 when both end bit for bit as the run that never stopped, 0 when not (printed),
/// -1 when the scene does not open. The AL model's active set must be non-empty at the end.
/// SCENE may name a folder below scenes/ (e.g. ../tests/data/scenes/NAME).
int runCheckpointRoundTrip(const char* scene, int contact, int at, int total, int backend);

#endif  // ALC_TESTS_SCENE_RUN_H_
