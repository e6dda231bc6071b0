// alcove import-ipc SCRIPT.txt: an alcove scene from an IPC scene script (host/ipc_import.h).
#include "cli.h"
#include "ipc_import.h"

#include <stdlib.h>
#include <string.h>

static void help(void) {
    printf(
        "usage: alcove import-ipc SCRIPT.txt [--ipc-root DIR] [--out DIR] [--name NAME]\n"
        "                         [--contact al|ipc] [--linear-solver pcg|direct|auto]\n\n"
        "Converts a scene script of the IPC code (ipc-sim/IPC, input/*.txt) into an alcove\n"
        "scene: OUT/NAME.yaml and its meshes in OUT/NAME_meshes/, written already placed\n"
        "(IPC's per-shape scale, rotation Rx Ry Rz and translation, rotateModel, the\n"
        "`size` normalization and the lift of the fall/dragright scripts), so the YAML\n"
        "carries no transforms. Tolerances given relative to the bounding-box diagonal\n"
        "(dHat, epsv, tol) are converted to metres; scripts (DCOFix, fall, twist,\n"
        "dragright, null with shape DBCs, and the paper's DCORotCylinders, DCOSquash6,\n"
        "DCOSqueezeOut, DCOBallHitWall, pushRightMost1, stretchAndPause) become drivers,\n"
        "obstacle motions or initial velocities; meshCO and halfSpace become\n"
        "obstacles. Whatever is not carried over is printed as a warning or note naming\n"
        "the script line and listed at the top of the YAML. docs/import-ipc.md has the\n"
        "full mapping.\n\n"
        "options:\n"
        "  --ipc-root DIR   folder holding IPC's input/ (mesh paths are resolved beside\n"
        "                   the script, then under DIR); default: the first folder above\n"
        "                   the script that holds input/\n"
        "  --out DIR        output folder, created if missing (default: .)\n"
        "  --name NAME      scene name and file stem (default: the script's stem)\n"
        "  --contact MODEL  solver.contact to write: al (default) or ipc; both get IPC's\n"
        "                   d-hat (solver.delta and solver.ipc.dhat)\n"
        "  --linear-solver S  solver.linear_solver to write: pcg, direct or auto. Default:\n"
        "                   direct where a body is stiff for the time step (an elastic\n"
        "                   wave crosses it in less than h, where block-Jacobi PCG\n"
        "                   converges slowly) and this build has CHOLMOD,\n"
        "                   with a note saying so; none (PCG) otherwise. The CUDA backend\n"
        "                   solves by PCG only: import for it with --linear-solver pcg\n"
        "  -q, --quiet      print only warnings and errors\n\n"
        "Exit 0 written (warnings may have been printed), 1 the files could not be written,\n"
        "2 bad input (command line, malformed script line as file:line: message, or a mesh\n"
        "that cannot be read).\n");
}

static const char* value(int argc, char** argv, int* i) {
    const char* a = argv[*i];
    const char* eq = strchr(a, '=');
    if (eq) return eq + 1;
    if (*i + 1 >= argc) {
        fprintf(stderr, "alcove import-ipc: %s needs a value\n", a);
        return NULL;
    }
    return argv[++*i];
}

static int isOpt(const char* a, const char* opt) {
    size_t n = strlen(opt);
    return !strncmp(a, opt, n) && (a[n] == 0 || a[n] == '=');
}

int alc_cmdImportIpc(int argc, char** argv) {
    const char *script = NULL, *root = NULL, *out = ".", *name = NULL, *contact = "al";
    const char* linearSolver = NULL;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            help();
            return ALC_EXIT_OK;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (isOpt(a, "--ipc-root")) {
            if (!(root = value(argc, argv, &i))) return ALC_EXIT_USAGE;
        } else if (isOpt(a, "--out")) {
            if (!(out = value(argc, argv, &i))) return ALC_EXIT_USAGE;
        } else if (isOpt(a, "--name")) {
            if (!(name = value(argc, argv, &i))) return ALC_EXIT_USAGE;
        } else if (isOpt(a, "--contact")) {
            if (!(contact = value(argc, argv, &i))) return ALC_EXIT_USAGE;
            if (strcmp(contact, "al") && strcmp(contact, "ipc")) {
                fprintf(stderr, "alcove import-ipc: --contact expects al or ipc, got '%s'\n",
                        contact);
                return ALC_EXIT_USAGE;
            }
        } else if (isOpt(a, "--linear-solver")) {
            if (!(linearSolver = value(argc, argv, &i))) return ALC_EXIT_USAGE;
        } else if (a[0] == '-') {
            fprintf(stderr, "alcove import-ipc: unknown option '%s'\n", a);
            return ALC_EXIT_USAGE;
        } else if (script) {
            fprintf(stderr, "alcove import-ipc: one script at a time ('%s' and '%s')\n", script, a);
            return ALC_EXIT_USAGE;
        } else {
            script = a;
        }
    }
    if (!script) {
        fprintf(stderr,
                "usage: alcove import-ipc SCRIPT.txt [--ipc-root DIR] [--out DIR] "
                "[--name NAME]\n");
        return ALC_EXIT_USAGE;
    }
    // the scene name: the script's stem with anything but [A-Za-z0-9_-] made '_'
    char nm[256];
    if (!name) {
        const char* b = strrchr(script, '/');
        snprintf(nm, sizeof nm, "%s", b ? b + 1 : script);
        char* dot = strrchr(nm, '.');
        if (dot && dot != nm) *dot = 0;
    } else {
        snprintf(nm, sizeof nm, "%s", name);
    }
    for (char* q = nm; *q; q++)
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
              *q == '-' || *q == '_'))
            *q = '_';
    if (!nm[0]) {
        fprintf(stderr, "alcove import-ipc: empty scene name\n");
        return ALC_EXIT_USAGE;
    }
    char err[2048];
    alciIpcScript s;
    alctStatus st = alci_ipc_readScript(script, root, &s, err, sizeof err);
    if (st != ALC_OK) {
        for (int i = 0; i < s.nmsg; i++) fprintf(stderr, "%s\n", s.msg[i]);
        fprintf(stderr, "alcove import-ipc: %s\n", err);
        alci_ipc_freeScript(&s);
        return st == ALC_ERR_NOMEM ? ALC_EXIT_FAIL : ALC_EXIT_USAGE;
    }
    alciIpcImportDef def = {out, nm, contact, linearSolver};
    alciIpcResult res;
    st = alci_ipc_import(&s, &def, &res, err, sizeof err);
    for (int i = 0; i < s.nmsg; i++)
        if (!quiet || strstr(s.msg[i], ": warning:")) fprintf(stderr, "%s\n", s.msg[i]);
    alci_ipc_freeScript(&s);
    if (st != ALC_OK) {
        fprintf(stderr, "alcove import-ipc: %s\n", err);
        return st == ALC_ERR_SCENE ? ALC_EXIT_USAGE : ALC_EXIT_FAIL;
    }
    if (!quiet) {
        printf("wrote %s: %d bodies, %d obstacles, %d drivers, %d steps\n", res.yamlPath, res.nbody,
               res.nobstacle, res.ndriver, res.steps);
        printf("  size factor %.6g, diagonal %.6g m, d-hat %.4g m, eps_v %.4g m/s\n",
               res.scaleFactor, res.diagonal, res.dhat, res.epsv);
        printf("  linear solver %s (stiffest body: h c / D = %.3g)\n", res.linearSolverName,
               res.wave);
        printf("  run it with: alcove run %s\n", res.yamlPath);
    }
    return ALC_EXIT_OK;
}
