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
/// Free what openRun made.
void closeRun(Run* r);
/// The independent check (host/check.c) of the current state; 0 (with the offence printed, and
/// r->clean cleared) when it is not clean.
int checkRun(Run* r);
/// One step, then the independent check of the new state; 0 (with the reason printed) when the
/// step fails or the state is not clean.
int stepRun(Run* r);
/// Mean position of body b's vertices.
void bodyCentre(const Run* r, int b, double c[3]);

#endif  // ALC_TESTS_SCENE_RUN_H_
