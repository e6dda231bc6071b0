// Shared by the GPU comparison tests (tests/gpu/): motions taken from the scenes at CI size and
// random stress motions, as host arrays the tests upload to the device (or to the emulation).
#ifndef ALC_TESTS_GPU_GPU_FIXTURE_H_
#define ALC_TESTS_GPU_GPU_FIXTURE_H_

#include "alc/alc.h"

/// The scenes (scenes/NAME.yaml) every GPU comparison runs on, NULL-terminated.
extern const char* const alct_gpuScenes[];

/// One motion x0 -> x1 of a model's vertices, with the reference sim that produced it.
typedef struct alctMotion_ {
    alcModel* m;  ///< the scene's model at CI size
    alcData* d;   ///< data after the reference steps
    alcSim* sim;  ///< reference-backend sim (for alcr_ twins that need an alcrBackend)
    int nvert;    ///< vertices
    double* x0;   ///< start: the state after `steps` reference steps (nvert x 3) [host]
    double* x1;   ///< end: x0 + stretch * h * v, kinematic vertices at their next targets
                  ///< (nvert x 3) [host]
    unsigned char* passive;  ///< 1 for kinematic and obstacle vertices (nvert) [host]
} alctMotion;

/// Load scenes/SCENE.yaml at CI size, take `steps` steps on the reference backend, and build the
/// motion x0 -> x0 + stretch * h * v (stretch 1 is the next step's inertial guess; larger values
/// drive bodies through each other, so that CCD has collisions to find).
/// @return 1 on success; 0 with the reason printed.
int alct_motionMake(const char* scene, int steps, double stretch, alctMotion* out);

/// Random motion of a soup of nbody small triangulated boxes in a unit cube, seeded: boxes that
/// start disjoint and move by up to `reach` (m) each, so that many pairs collide.
/// Only x0, x1, passive, nvert and m are set (m from alc_compileSpec; d and sim are NULL).
int alct_motionRandom(unsigned seed, int nbody, double reach, alctMotion* out);

/// Free what a motion holds. NULL-safe on each member.
void alct_motionFree(alctMotion* mo);

#endif  // ALC_TESTS_GPU_GPU_FIXTURE_H_
