// Random scenes from a seed (issue 16, item 7): a few bodies of every procedural shape and every
// material model, at speeds up to 100 m/s, spinning, some driven kinematically, with friction,
// over a ground plane; each run a few steps on the reference backend and every state judged as
// `alcove check` judges it (no intersection, no NaN/Inf, no inverted tetrahedron the solver
// protects). `make test` runs ALC_STRESS_COUNT scenes (default 24); `make stress` thousands and
// prints the seeds that failed.
#include "check.h"
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Uniform in [0, 1) from a splitmix64 state.
static double rnd(unsigned long long* s) {
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static int pick(unsigned long long* s, int n) {
    return (int)(rnd(s) * n) % n;
}

/// A unit vector times a log-uniform magnitude in [lo, hi].
static void randomVector(unsigned long long* s, double lo, double hi, double v[3]) {
    double z = 2 * rnd(s) - 1, a = 6.283185307179586 * rnd(s), r = sqrt(1 - z * z);
    double mag = lo * pow(hi / lo, rnd(s));
    v[0] = mag * r * cos(a);
    v[1] = mag * z;
    v[2] = mag * r * sin(a);
}

/// Append printf-formatted text to buf (size n, used *len).
static void add(char* buf, size_t n, size_t* len, const char* fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char* buf, size_t n, size_t* len, const char* fmt, ...) {
    if (*len >= n) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    if (k > 0) *len += (size_t)k;
}

/// The scene of a seed, as YAML text.
static void sceneOf(unsigned long long seed, char* buf, size_t n) {
    unsigned long long s = seed * 7919 + 13;
    size_t len = 0;
    static const char* const models[] = {"snh", "nh", "cor", "fcr"};
    add(buf, n, &len, "name: stress_%llu\nphysics:\n  time_step: %g\nsolver:\n  delta: 1e-3\n",
        seed, rnd(&s) < 0.5 ? 0.01 : 0.005);
    add(buf, n, &len, "materials:\n");
    for (int k = 0; k < 4; k++) {
        add(buf, n, &len,
            "  m%d: {model: %s, density: %.4g, youngs_modulus: %.4g, poisson_ratio: %.3g, "
            "friction: %.3g}\n",
            k, models[k], 500 + 1500 * rnd(&s), 1e4 * pow(1e3, rnd(&s)), 0.2 + 0.25 * rnd(&s),
            rnd(&s) < 0.3 ? 0.0 : 0.8 * rnd(&s));
    }
    int nb = 1 + pick(&s, 3), driven = 0;
    add(buf, n, &len, "bodies:\n");
    for (int b = 0; b < nb; b++) {
        double v[3], w[3];
        randomVector(&s, 0.1, 100, v);
        randomVector(&s, 0.01, 20, w);
        // towards the ground and the middle body, so that most scenes collide within the steps
        v[1] = -fabs(v[1]);
        v[0] = (b == 1 ? v[0] : (b < 1 ? fabs(v[0]) : -fabs(v[0])));
        add(buf, n, &len, "  - name: b%d\n    material: m%d\n", b, pick(&s, 4));
        switch (pick(&s, 4)) {
            case 0:
                add(buf, n, &len, "    mesh: {box: {size: %.3g, cells: %d}}\n", 0.2 + 0.2 * rnd(&s),
                    2 + pick(&s, 2));
                break;
            case 1:
                add(buf, n, &len, "    mesh: {sphere: {radius: %.3g, cells: %d}}\n",
                    0.12 + 0.1 * rnd(&s), 3 + pick(&s, 2));
                break;
            case 2:
                add(buf, n, &len,
                    "    mesh: {cylinder: {radius: %.3g, height: %.3g, cells: 3, layers: 3}}\n",
                    0.08 + 0.1 * rnd(&s), 0.2 + 0.2 * rnd(&s));
                break;
            default:
                add(buf, n, &len,
                    "    mesh: {torus: {major_radius: %.3g, minor_radius: %.3g, segments: 8, "
                    "cells: "
                    "2}}\n",
                    0.2 + 0.05 * rnd(&s), 0.06 + 0.03 * rnd(&s));
                break;
        }
        // on a line 0.75 m apart, 0.4 m up at least: bodies reaching at most 0.35 m from their
        // centres start disjoint
        add(buf, n, &len,
            "    position: [%.3g, %.3g, %.3g]\n    rotation: {axis: [%.3g, %.3g, %.3g], angle: "
            "%.3g}\n",
            0.75 * (b - 1.0), 0.4 + 0.3 * rnd(&s), 0.1 * rnd(&s), 2 * rnd(&s) - 1, 2 * rnd(&s) - 1,
            2 * rnd(&s) - 1 + 1e-3, 360 * rnd(&s));
        if (!driven && rnd(&s) < 0.2) {
            // one driven body at most, never towards the ground: two prescribed motions that
            // meet, or one that crushes a body into the ground, have no intersection-free answer
            driven = 1;
            double sp = 5 * rnd(&s);
            add(buf, n, &len, "    motion: {type: linear, velocity: [%.3g, %.3g, %.3g]}\n",
                b == 1 ? 0.0 : (b < 1 ? sp : -sp), 0.5 * rnd(&s), 0.2 * rnd(&s));
        } else {
            add(buf, n, &len,
                "    velocity: [%.4g, %.4g, %.4g]\n    angular_velocity: [%.3g, %.3g, %.3g]\n",
                v[0], v[1], v[2], w[0], w[1], w[2]);
        }
    }
    add(buf, n, &len, "obstacles:\n  - name: ground\n    mesh: {plane: {size: 8}}\n");
}

/// Run the scene of seed for `steps` steps; 1 when every state passes the check (or the scene
/// was refused with a clean error), else 0 with the reason in why.
static int runSeed(unsigned long long seed, int steps, char* why, size_t nwhy, int* inverted) {
    static char text[8192];
    sceneOf(seed, text, sizeof text);
    char name[64];
    snprintf(name, sizeof name, "stress_%llu.yaml", seed);
    const char* path = alct_writeFile(alct_tmpDir("stress", NULL), name, text);
    if (!path) {
        snprintf(why, nwhy, "cannot write the scene");
        return 0;
    }
    char err[1024];
    alcModel* m = NULL;
    if (alc_loadScene(path, NULL, &m, err, sizeof err) != ALC_OK) {
        // a refused scene must say why; an initial intersection cannot happen (disjoint grid)
        snprintf(why, nwhy, "scene refused: %s", err);
        return 0;
    }
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    def.threads = 1;
    alcSim* sim = NULL;
    alcData* d = NULL;
    int ok = alc_makeData(m, &d) == ALC_OK && alc_makeSim(m, &def, &sim) == ALC_OK;
    if (!ok) snprintf(why, nwhy, "setup: %s", sim ? alc_lastError(sim) : "out of memory");
    for (int k = 0; ok && k < steps; k++) {
        if (alc_step(sim, d) != ALC_OK) {
            snprintf(why, nwhy, "step %d: %s", k + 1, alc_lastError(sim));
            ok = 0;
            break;
        }
        alciCheckReport rep;
        if (alci_check_model(m, d->x, 1, 0, &rep) != ALC_OK || !rep.clean) {
            snprintf(why, nwhy, "step %d: %s", k + 1, rep.message);
            ok = 0;
        }
        *inverted += rep.ninvertedAllowed;
    }

    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return ok;
}

ALC_TEST(stress_randomScenes) {
    const char* env = getenv("ALC_STRESS_COUNT");
    const char* env0 = getenv("ALC_STRESS_FIRST");
    long count = env ? atol(env) : 24;
    unsigned long long first = env0 ? strtoull(env0, NULL, 10) : 1;
    int steps = 5, failed = 0, inverted = 0;
    for (long i = 0; i < count; i++) {
        char why[1200];
        unsigned long long seed = first + (unsigned long long)i;
        if (!runSeed(seed, steps, why, sizeof why, &inverted)) {
            failed++;
            fprintf(stderr, "  seed %llu: %s\n", seed, why);
        }
        if (count > 100 && (i + 1) % 100 == 0) {
            fprintf(stderr, "  %ld scenes, %d failed\n", i + 1, failed);
        }
    }
    alct_note(
        "%ld random scenes (seeds %llu to %llu), %d steps each: %d failed; %d inversions of "
        "materials that may invert (allowed)",
        count, first, first + (unsigned long long)count - 1, steps, failed, inverted);
    ENSURE(failed == 0);
    return ALC_TEST_PASS;
}
