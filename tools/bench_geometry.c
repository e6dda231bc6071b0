// alcove bench-geometry: time the reference broad phase and additive CCD on a scene's surfaces
// swept over one step (x -> x + h v + noise), the measurement of the contact-geometry issue.
#include "cli.h"
#include "hd/alcm_ccd.h"
#include "ref/broad_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int alc_cmdBenchGeometry(int argc, char** argv) {
    alcCliScene s;
    alc_cliSceneInit(&s);
    double motion = 0.005;
    int repeats = 3;
    for (int i = 1; i < argc; i++) {
        int r = alc_cliSceneOption(&s, argc, argv, &i);
        if (r < 0) return ALC_EXIT_USAGE;
        if (r > 0) continue;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf(
                "usage: alcove bench-geometry SCENE [--motion M] [--repeats R] [--preset P] "
                "[--set N=V]\n\n"
                "Sweeps every surface vertex of SCENE by a random displacement of up to M\n"
                "metres (default 0.005) and times the reference broad phase (BVH build and\n"
                "point-triangle and edge-edge queries) and additive CCD on every candidate;\n"
                "prints the best of R repeats (default 3).\n");
            return ALC_EXIT_OK;
        } else if (!strcmp(argv[i], "--motion") && i + 1 < argc) {
            motion = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
            if (repeats < 1) repeats = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "alcove bench-geometry: unknown option '%s'\n", argv[i]);
            return ALC_EXIT_USAGE;
        } else {
            s.scene = argv[i];
        }
    }
    if (!s.scene) {
        fprintf(stderr, "usage: alcove bench-geometry SCENE [options]\n");
        return ALC_EXIT_USAGE;
    }
    alcModel* m = alc_cliLoad(&s);
    if (!m) return ALC_EXIT_USAGE;
    // a displaced end state: deterministic pseudo-random motion of every vertex
    double* x1 = (double*)malloc(sizeof(double) * 3 * (size_t)m->nvert);
    uint64_t rng = 12345;
    for (int i = 0; i < 3 * m->nvert; i++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(rng >> 11) * (1.0 / 9007199254740992.0);
        x1[i] = m->vert_x0[i] + motion * (2 * u - 1);
    }
    alcrBroadInput in;
    memset(&in, 0, sizeof in);
    in.nvert = m->nvert;
    in.x0 = m->vert_x0;
    in.x1 = x1;
    in.nsvert = m->nsvert;
    in.svert = m->svert;
    in.nedge = m->nedge;
    in.edge = m->edge_vert;
    in.ntri = m->ntri;
    in.tri = m->tri_vert;
    alcrBroad* b = NULL;
    int code = ALC_EXIT_OK;
    if (alcr_broad_make(m->nsvert, m->nedge, m->ntri, &b) != ALC_OK) {
        fprintf(stderr, "alcove bench-geometry: out of memory\n");
        return ALC_EXIT_FAIL;
    }
    int cap = 1 << 20, npt = 0, nee = 0;
    int* pt = NULL;
    int* ee = NULL;
    double best[4] = {1e300, 1e300, 1e300, 1e300};
    long collide = 0;
    for (int r = 0; r < repeats && code == ALC_EXIT_OK; r++) {
        double t0 = now();
        alcr_broad_build(b, &in);
        double t1 = now();
        for (;;) {
            pt = (int*)realloc(pt, sizeof(int) * 2 * (size_t)cap);
            ee = (int*)realloc(ee, sizeof(int) * 2 * (size_t)cap);
            alctStatus a = alcr_broad_queryPT(b, &in, cap, pt, &npt);
            alctStatus c = alcr_broad_queryEE(b, &in, cap, ee, &nee);
            if (a == ALC_OK && c == ALC_OK) break;
            cap = (npt > nee ? npt : nee) + 1;
        }
        double t2 = now();
        long hits = 0;
        int ntot = npt + nee;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : hits)
        for (int c = 0; c < ntot; c++) {
            int v[4];
            if (c < npt) {
                v[0] = m->svert[pt[2 * c]];
                for (int k = 0; k < 3; k++) v[k + 1] = m->tri_vert[3 * pt[2 * c + 1] + k];
            } else {
                int e0 = ee[2 * (c - npt)], e1 = ee[2 * (c - npt) + 1];
                v[0] = m->edge_vert[2 * e0];
                v[1] = m->edge_vert[2 * e0 + 1];
                v[2] = m->edge_vert[2 * e1];
                v[3] = m->edge_vert[2 * e1 + 1];
            }
            alcV3 x[4], dx[4];
            for (int a = 0; a < 4; a++) {
                x[a] = alcm_v3_load(m->vert_x0 + 3 * v[a]);
                dx[a] = alcm_v3_sub(alcm_v3_load(x1 + 3 * v[a]), x[a]);
            }
            double toi;
            int hit =
                c < npt
                    ? alcm_ccd_pt(x, dx, 0, m->opt.ccdRescale, 1, m->opt.ccdMaxIter, &toi, NULL)
                    : alcm_ccd_ee(x, dx, 0, m->opt.ccdRescale, 1, m->opt.ccdMaxIter, &toi, NULL);
            hits += hit;
        }
        double t3 = now();
        collide = hits;
        double tt[4] = {t1 - t0, t2 - t1, t3 - t2, t3 - t0};
        for (int k = 0; k < 4; k++) best[k] = tt[k] < best[k] ? tt[k] : best[k];
    }
    int ncand = npt + nee;
    printf("scene %s: %d surface triangles, %d edges, %d points; motion up to %g m\n",
           alc_sceneName(m), m->ntri, m->nedge, m->nsvert, motion);
    printf("candidates: %d point-triangle, %d edge-edge; %ld may collide\n", npt, nee, collide);
    printf(
        "broad phase: build %.4f s, query %.4f s; CCD %.4f s (%.3g queries/s); total %.4f s "
        "(best of %d)\n",
        best[0], best[1], best[2], best[2] > 0 ? ncand / best[2] : 0, best[3], repeats);
    free(pt);
    free(ee);
    free(x1);
    alcr_broad_free(b);
    alc_deleteModel(m);
    return code;
}
