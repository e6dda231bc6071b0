// Motions for the GPU comparison tests (gpu_fixture.h).
#include "gpu_fixture.h"

#include "../scene_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char* const alct_gpuScenes[] = {
    "arch.yaml",      "ball_plate.yaml",  "balls_press.yaml", "bar_drop.yaml",  "box_drop.yaml",
    "box_stack.yaml", "fine_sphere.yaml", "momentum.yaml",    "pile_well.yaml", "rigid_cubes.yaml",
    "rings_box.yaml", "rods_twist.yaml",  "roller.yaml",      "slope.yaml",     NULL,
};

static int allocMotion(alctMotion* mo, int nvert) {
    mo->nvert = nvert;
    mo->x0 = (double*)calloc((size_t)nvert * 3, sizeof(double));
    mo->x1 = (double*)calloc((size_t)nvert * 3, sizeof(double));
    mo->passive = (unsigned char*)calloc((size_t)nvert, 1);
    return mo->x0 && mo->x1 && mo->passive;
}

int alct_motionMake(const char* scene, int steps, double stretch, alctMotion* out) {
    memset(out, 0, sizeof *out);
    Run r;
    if (!openRun(&r, scene, NULL, NULL, -1)) {
        closeRun(&r);
        return 0;
    }
    for (int s = 0; s < steps; s++) {
        if (alc_step(r.sim, r.d) != ALC_OK) {
            fprintf(stderr, "  %s step %d: %s\n", scene, s + 1, alc_lastError(r.sim));
            closeRun(&r);
            return 0;
        }
    }
    const alcModel* m = r.m;
    out->m = r.m;
    out->d = r.d;
    out->sim = r.sim;
    if (!allocMotion(out, m->nvert)) {
        free(r.obstacle);
        alct_motionFree(out);
        return 0;
    }
    double h = m->opt.timestep;
    for (int v = 0; v < m->nvert; v++) {
        int obstacle = m->body_type[m->vert_body[v]] == ALC_BODY_OBSTACLE;
        out->passive[v] = (unsigned char)(obstacle || m->vert_driver[v] >= 0);
        for (int k = 0; k < 3; k++) {
            double x = r.d->x[3 * v + k];
            out->x0[3 * v + k] = x;
            out->x1[3 * v + k] = x + stretch * h * r.d->v[3 * v + k];
        }
    }
    free(r.obstacle);
    return 1;
}

/// Uniform in [0, 1) from a 64-bit LCG (deterministic across machines).
static double uniform(unsigned long long* s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

int alct_motionRandom(unsigned seed, int nbody, double reach, alctMotion* out) {
    memset(out, 0, sizeof *out);
    unsigned long long s = 0x9E3779B97F4A7C15ULL ^ seed;
    // one small tetrahedron per cell of a g^3 grid of the unit cube, disjoint at the start
    int g = 1;
    while (g * g * g < nbody) g++;
    double cell = 1.0 / g;
    alcSpec* spec = NULL;
    if (alc_makeSpec(&spec) != ALC_OK) return 0;
    alcMaterialDef mat = alc_defaultMaterialDef();
    int mi = 0;
    alc_specAddMaterial(spec, &mat, &mi);
    for (int b = 0; b < nbody; b++) {
        int cx = b % g, cy = (b / g) % g, cz = b / (g * g);
        double o[3] = {cx * cell, cy * cell, cz * cell};
        double v[12];
        for (;;) {
            for (int a = 0; a < 4; a++)
                for (int k = 0; k < 3; k++) v[3 * a + k] = o[k] + cell * (0.1 + 0.8 * uniform(&s));
            double e[3][3];
            for (int a = 0; a < 3; a++)
                for (int k = 0; k < 3; k++) e[a][k] = v[3 * (a + 1) + k] - v[k];
            double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
                         e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                         e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
            if (det < 0) {  // orient positively: swap the last two vertices
                for (int k = 0; k < 3; k++) {
                    double t = v[6 + k];
                    v[6 + k] = v[9 + k];
                    v[9 + k] = t;
                }
                det = -det;
            }
            if (det > 1e-3 * cell * cell * cell) break;
        }
        static const int tet[4] = {0, 1, 2, 3};
        alcBodyDef bd = alc_defaultBodyDef();
        bd.material = mi;
        bd.nvert = 4;
        bd.vert = v;
        bd.ntet = 1;
        bd.tet = tet;
        if (alc_specAddBody(spec, &bd, NULL) != ALC_OK) {
            fprintf(stderr, "  random motion: %s\n", alc_specError(spec));
            alc_deleteSpec(spec);
            return 0;
        }
    }
    char err[512];
    alctStatus st = alc_compileSpec(spec, &out->m, err, sizeof err);
    alc_deleteSpec(spec);
    if (st != ALC_OK) {
        fprintf(stderr, "  random motion: %s\n", err);
        return 0;
    }
    const alcModel* m = out->m;
    if (!allocMotion(out, m->nvert)) {
        alct_motionFree(out);
        return 0;
    }
    // each body translates by up to `reach` on every axis, each vertex jitters by reach / 4;
    // every fifth body is passive (an obstacle-like kinematic body)
    for (int b = 0; b < m->nbody; b++) {
        double t[3];
        for (int k = 0; k < 3; k++) t[k] = reach * (2 * uniform(&s) - 1);
        int a0 = m->body_vertadr[b], n = m->body_vertnum[b];
        for (int v = a0; v < a0 + n; v++) {
            out->passive[v] = (unsigned char)(b % 5 == 4);
            for (int k = 0; k < 3; k++) {
                double x = m->vert_x0[3 * v + k];
                out->x0[3 * v + k] = x;
                out->x1[3 * v + k] = x + t[k] + 0.25 * reach * (2 * uniform(&s) - 1);
            }
        }
    }
    return 1;
}

void alct_motionFree(alctMotion* mo) {
    if (!mo) return;
    alc_deleteSim(mo->sim);
    alc_deleteData(mo->d);
    alc_deleteModel(mo->m);
    free(mo->x0);
    free(mo->x1);
    free(mo->passive);
    memset(mo, 0, sizeof *mo);
}
