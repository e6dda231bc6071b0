// alcove check OUTDIR: the independent checker (host/check.c) over every saved state of a run.
#include "check.h"
#include "cli.h"
#include "state_io.h"

#include <stdlib.h>
#include <string.h>

int alc_cmdCheck(int argc, char** argv) {
    const char* dir = NULL;
    int quiet = 0, strict = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf(
                "usage: alcove check OUTDIR [--strict] [--quiet]\n\n"
                "Reads OUTDIR/topology.alct and every OUTDIR/states/state_*.alcs written by\n"
                "'alcove run', and checks each state with exact predicates, independently of\n"
                "the solver: no inverted tetrahedron of a non-invertible material (or of any,\n"
                "under the scene's `inversion: all`), no surface edge meeting a surface\n"
                "triangle (across and within bodies), no NaN or Inf. Inverted tetrahedra of\n"
                "materials that may invert (corotated, stable Neo-Hookean) are counted and\n"
                "reported, not failures, unless --strict. Prints each offending frame with its\n"
                "first offending primitives, then a summary line: \"clean: N states checked\"\n"
                "or \"not clean: F of N states checked\", each with the mesh's sizes.\n"
                "Exit 0 clean, 1 violations, 2 bad input.\n");
            return ALC_EXIT_OK;
        } else if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q")) {
            quiet = 1;
        } else if (!strcmp(argv[i], "--strict")) {
            strict = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "alcove check: unknown option '%s'\n", argv[i]);
            return ALC_EXIT_USAGE;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        fprintf(stderr, "usage: alcove check OUTDIR\n");
        return ALC_EXIT_USAGE;
    }
    char path[4096], err[1024];
    alciTopology topo;
    snprintf(path, sizeof path, "%s/topology.alct", dir);
    if (alci_state_readTopology(path, &topo, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove check: %s\n", err);
        return ALC_EXIT_USAGE;
    }
    snprintf(path, sizeof path, "%s/states", dir);
    char** names = NULL;
    int n = alc_cliListStates(dir, &names);
    if (n < 0) {
        fprintf(stderr, "alcove check: %s: no states folder\n", path);
        alci_state_freeTopology(&topo);
        return ALC_EXIT_USAGE;
    }
    unsigned char* obstacle = (unsigned char*)calloc((size_t)topo.nbody + 1, 1);
    for (int b = 0; obstacle && b < topo.nbody; b++)
        obstacle[b] = topo.body_type[b] == ALC_BODY_OBSTACLE;
    int code = ALC_EXIT_OK, checked = 0, failed = 0, allowedFrames = 0;
    long allowed = 0;
    if (n == 0) {
        fprintf(stderr, "alcove check: %s has no states\n", path);
        code = ALC_EXIT_USAGE;
    }
    for (int i = 0; i < n && code == ALC_EXIT_OK; i++) {
        long step;
        double t;
        int nvert;
        double *x = NULL, *v = NULL;
        char sp[4096];
        snprintf(sp, sizeof sp, "%s/states/%s", dir, names[i]);
        if (alci_state_read(sp, &step, &t, &nvert, &x, &v, err, sizeof err) != ALC_OK) {
            fprintf(stderr, "alcove check: %s\n", err);
            code = ALC_EXIT_USAGE;
            break;
        }
        if (nvert != topo.nvert) {
            fprintf(stderr, "alcove check: %s has %d vertices, the topology %d\n", sp, nvert,
                    topo.nvert);
            free(x);
            free(v);
            code = ALC_EXIT_USAGE;
            break;
        }
        alciCheckInput in;
        memset(&in, 0, sizeof in);
        in.nvert = nvert;
        in.x = x;
        in.ntet = topo.ntet;
        in.tet = topo.tet_vert;
        in.ntri = topo.ntri;
        in.tri = topo.tri_vert;
        in.nedge = topo.nedge;
        in.edge = topo.edge_vert;
        in.tet_body = topo.tet_body;
        in.tet_protected = strict ? NULL : topo.tet_protected;
        in.tri_body = topo.tri_body;
        in.edge_body = topo.edge_body;
        in.body_obstacle = obstacle;
        alciCheckReport rep;
        alctStatus st = alci_check_state(&in, &rep);
        free(x);
        free(v);
        if (st != ALC_OK) {
            fprintf(stderr, "alcove check: %s: cannot check (%s)\n", sp, alcu_statusString(st));
            code = ALC_EXIT_USAGE;
            break;
        }
        checked++;
        if (rep.ninvertedAllowed > 0) {
            allowed += rep.ninvertedAllowed;
            if (allowedFrames++ == 0 && !quiet) {
                printf(
                    "frame %s (step %ld, t = %.6g s): %d inverted tetrahedra of materials "
                    "that may invert (allowed; --strict fails them)\n",
                    names[i], step, t, rep.ninvertedAllowed);
            }
        }
        if (!rep.clean) {
            printf("frame %s (step %ld, t = %.6g s): %s\n", names[i], step, t, rep.message);
            failed++;
            code = ALC_EXIT_FAIL;
        }
    }
    if (code == ALC_EXIT_OK) {
        if (!quiet)
            printf("clean: %d states checked (%d tetrahedra, %d triangles, %d edges)\n", checked,
                   topo.ntet, topo.ntri, topo.nedge);
        else
            printf("clean\n");
        if (allowed > 0) {
            printf(
                "note: %ld inversions of tetrahedra whose material may invert, in %d of the "
                "states (not failures; --strict makes them so)\n",
                allowed, allowedFrames);
        }
    } else if (code == ALC_EXIT_FAIL) {
        printf("not clean: %d of %d states checked (%d tetrahedra, %d triangles, %d edges)\n",
               failed, checked, topo.ntet, topo.ntri, topo.nedge);
    }
    alc_cliFreeNames(names, n);
    free(obstacle);
    alci_state_freeTopology(&topo);
    return code;
}
