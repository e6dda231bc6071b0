// alcove ccd-check DIR: score the continuous collision sample queries against ground truth.
#include "ccd_queries.h"
#include "cli.h"

#include <string.h>

int alc_cmdCcdCheck(int argc, char** argv) {
    const char* dir = NULL;
    int backend = ALC_BACKEND_REF;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf(
                "usage: alcove ccd-check DIR [--backend ref|cuda]\n\n"
                "Runs every query under DIR/<folder>/{vertex-face,edge-edge}/*.csv (the format of\n"
                "the CCD sample queries: exact rationals, 8 rows per query, ground truth in the\n"
                "last column) through alcove's additive CCD, and prints per folder and in total:\n"
                "queries, true/false positives, true/false negatives and queries per second.\n"
                "Exit 0 when there is no false negative, 1 when there is one, 2 on bad input.\n");
            return ALC_EXIT_OK;
        } else if (!strcmp(argv[i], "--backend") && i + 1 < argc) {
            backend = alc_cliBackend(argv[++i]);
            if (backend < 0) {
                fprintf(stderr, "alcove ccd-check: unknown backend '%s'\n", argv[i]);
                return ALC_EXIT_USAGE;
            }
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "alcove ccd-check: unknown option '%s'\n", argv[i]);
            return ALC_EXIT_USAGE;
        } else {
            dir = argv[i];
        }
    }
    if (!dir) {
        fprintf(stderr, "usage: alcove ccd-check DIR [--backend ref|cuda]\n");
        return ALC_EXIT_USAGE;
    }
    if (backend == ALC_BACKEND_AUTO)
        backend = alcu_cudaAvailable() ? ALC_BACKEND_CUDA : ALC_BACKEND_REF;
    if (backend == ALC_BACKEND_CUDA && !alcu_cudaAvailable()) {
        fprintf(stderr, "alcove ccd-check: backend cuda selected but no CUDA device is usable\n");
        return ALC_EXIT_USAGE;
    }
    alciCcdQueryStats total;
    char err[1024];
    alctStatus st =
        alci_ccd_checkDir(dir, stdout, backend == ALC_BACKEND_CUDA, &total, err, sizeof err);
    if (st != ALC_OK) {
        fprintf(stderr, "alcove ccd-check: %s\n", err);
        return ALC_EXIT_USAGE;
    }
    if (total.falseNeg > 0) {
        printf("FAILED: %ld false negatives\n", total.falseNeg);
        return ALC_EXIT_FAIL;
    }
    printf("no false negatives\n");
    return ALC_EXIT_OK;
}
