// alcove info SCENE: what a scene is and what it needs, without stepping it: the model's sizes
// and the memory the chosen backend holds once the sim is made (device memory on cuda).
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmpU64(const void* a, const void* b) {
    unsigned long long x = *(const unsigned long long*)a, y = *(const unsigned long long*)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/// Distinct vertex pairs of the tetrahedra (the strictly upper element blocks of the Newton
/// matrix); -1 when out of memory.
static long tetEdges(const alcModel* m) {
    size_t n = 6 * (size_t)m->ntet;
    unsigned long long* k = (unsigned long long*)malloc(sizeof *k * (n ? n : 1));
    if (!k) return -1;
    size_t q = 0;
    for (int t = 0; t < m->ntet; t++) {
        const int* v = m->tet_vert + 4 * t;
        for (int a = 0; a < 4; a++) {
            for (int b = a + 1; b < 4; b++) {
                unsigned long long i = (unsigned)(v[a] < v[b] ? v[a] : v[b]);
                unsigned long long j = (unsigned)(v[a] < v[b] ? v[b] : v[a]);
                k[q++] = i << 32 | j;
            }
        }
    }
    qsort(k, n, sizeof *k, cmpU64);
    long e = 0;
    for (size_t i = 0; i < n; i++) e += i == 0 || k[i] != k[i - 1];
    free(k);
    return e;
}

static void usage(FILE* out) {
    fprintf(out,
            "usage: alcove info SCENE [--preset P] [--set NAME=VALUE] [--backend B]\n\n"
            "Loads SCENE, makes the sim on the backend (default auto) without taking a step,\n"
            "and prints the model's sizes and the memory the backend holds: on 'cuda', the\n"
            "device memory it allocated (on 'cuda-emulated', the same allocations' sizes).\n"
            "A scene that does not fit the device fails with its figures. Exit 0, 1 when the\n"
            "sim cannot be made, 2 bad input.\n");
}

int alc_cmdInfo(int argc, char** argv) {
    alcCliScene s;
    alc_cliSceneInit(&s);
    for (int i = 1; i < argc; i++) {
        int r = alc_cliSceneOption(&s, argc, argv, &i);
        if (r < 0) return ALC_EXIT_USAGE;
        if (r > 0) continue;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return ALC_EXIT_OK;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "alcove info: unknown option '%s' (see alcove info --help)\n", argv[i]);
            return ALC_EXIT_USAGE;
        } else if (!s.scene) {
            s.scene = argv[i];
        } else {
            fprintf(stderr, "alcove info: more than one scene\n");
            return ALC_EXIT_USAGE;
        }
    }
    if (!s.scene) {
        usage(stderr);
        return ALC_EXIT_USAGE;
    }
    alcModel* m = alc_cliLoad(&s);
    if (!m) return ALC_EXIT_USAGE;
    printf("scene      : %s%s%s\n", s.scene, s.preset ? " --preset " : "",
           s.preset ? s.preset : "");
    printf(
        "model      : %d vertices, %d tetrahedra, %d surface triangles, %d surface edges, "
        "%d bodies\n",
        m->nvert, m->ntet, m->ntri, m->nedge, m->nbody);
    for (int r = 0; r < m->nrigid; r++) {
        const double* I = m->rigid_inertia + 3 * r;
        const double* q = m->rigid_pose0 + 6 * r;
        int b = m->rigid_body[r];
        // a driver takes a rigid body whole (alc_compileSpec): its first vertex tells
        int k = m->body_vertnum[b] > 0 ? m->vert_driver[m->body_vertadr[b]] : -1;
        printf(
            "rigid      : '%s': mass %.6g kg, principal moments %.6g %.6g %.6g kg m^2, centre "
            "of mass [%.6g, %.6g, %.6g] m%s%s%s\n",
            alc_bodyName(m, b), m->rigid_mass[r], I[0], I[1], I[2], q[3], q[4], q[5],
            k >= 0 ? "; driven by '" : "", k >= 0 ? m->names + m->driver_nameadr[k] : "",
            k >= 0 ? "'" : "");
    }
    long edges = tetEdges(m);
    // the diagonal: one block per vertex and two per rigid body (its rotation and translation)
    if (edges >= 0) {
        printf(
            "matrix     : %ld static upper 3x3 blocks (%d diagonal, %ld tetrahedron edges), "
            "before contact blocks\n",
            (long)m->nvert + 2L * m->nrigid + edges, m->nvert + 2 * m->nrigid, edges);
    }
    alcSimDef def = alc_defaultSimDef();
    def.backend = s.backend;
    def.threads = s.threads;
    def.log = alc_cliLog;
    alcSim* sim = NULL;
    alctStatus st = alc_makeSim(m, &def, &sim);
    int code = ALC_EXIT_OK;
    if (st != ALC_OK) {
        fprintf(stderr, "alcove info: %s\n", sim ? alc_lastError(sim) : alcu_statusString(st));
        code = ALC_EXIT_FAIL;
    } else {
        double mb = (double)alc_simMemory(sim) / 1e6;
        char label[256];
        printf("backend    : %s\n", alc_cliBackendLabel(sim, label, sizeof label));
        if (alc_simBackend(sim) == ALC_BACKEND_REF)
            printf(
                "threads    : %d (the cores idle now, at most one per 1024 elements; "
                "--threads N to fix)\n",
                alc_simThreads(sim));
        static const char* const solver[] = {"pcg", "direct", "auto"};
        printf("linear     : %s (Cholesky by CHOLMOD %s)\n", solver[m->opt.linearSolver],
               alcu_directSolverAvailable() ? "available" : "not in this build");
        char blas[1024], advice[512];
        alcu_blasDescribe(blas, sizeof blas, advice, sizeof advice);
        printf("blas       : %s\n", blas);
        if (advice[0] && alc_cliUsesBlas(m, sim)) printf("             %s\n", advice);
        printf("memory     : %.1f MB held after make (%.1f MB per million tetrahedra)\n", mb,
               m->ntet > 0 ? mb / ((double)m->ntet / 1e6) : 0);
    }
    alc_deleteSim(sim);
    alc_deleteModel(m);
    return code;
}
