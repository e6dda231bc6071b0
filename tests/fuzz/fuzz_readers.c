// libFuzzer targets for every reader of untrusted input (issue 16, item 7): the scene loader,
// the .msh, TetGen and .obj mesh readers, and the state and topology readers. One source,
// compiled once per reader with -DALC_FUZZ_READER=N (tests/fuzz/run_fuzz.sh, `make fuzz`).
// The readers take paths, so each input is written to a file of this process first.
//
// The TetGen reader reads a .node and the .ele beside it: the input holds both, split at its
// first NUL byte (no NUL: an empty .ele).
#include "mesh.h"
#include "state_io.h"

#include "alc/alc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { FUZZ_SCENE = 1, FUZZ_MSH, FUZZ_TETGEN, FUZZ_OBJ, FUZZ_STATE, FUZZ_TOPOLOGY };

#ifndef ALC_FUZZ_READER
#error "compile with -DALC_FUZZ_READER=1..6"
#endif

int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size);

static char g_path[2][128];

// the input files go when the fuzzer exits
static void removeFiles(void) {
    for (int k = 0; k < 2; k++)
        if (g_path[k][0]) unlink(g_path[k]);
}

/// Write n bytes to /tmp/alc_fuzz_PID.EXT and return that path (static storage; removed at
/// exit).
static const char* toFile(const char* ext, const unsigned char* data, size_t n) {
    char(*path)[128] = g_path;
    static int k = 0;
    if (!g_path[0][0] && !g_path[1][0]) atexit(removeFiles);
    k ^= 1;
    snprintf(path[k], sizeof path[k], "/tmp/alc_fuzz_%d.%s", (int)getpid(), ext);
    FILE* f = fopen(path[k], "wb");
    if (!f) abort();
    if (n && fwrite(data, 1, n, f) != n) abort();
    fclose(f);
    return path[k];
}

int LLVMFuzzerTestOneInput(const unsigned char* data, size_t size) {
    char err[1024];
    switch (ALC_FUZZ_READER) {
        case FUZZ_SCENE: {
            alcModel* m = NULL;
            if (alc_loadScene(toFile("yaml", data, size), NULL, &m, err, sizeof err) == ALC_OK) {
                alc_deleteModel(m);
            }
            break;
        }
        case FUZZ_MSH:
        case FUZZ_OBJ: {
            alciMesh mesh;
            const char* p = toFile(ALC_FUZZ_READER == FUZZ_MSH ? "msh" : "obj", data, size);
            if (alci_mesh_read(p, &mesh, err, sizeof err) == ALC_OK) alci_mesh_free(&mesh);
            break;
        }
        case FUZZ_TETGEN: {
            const unsigned char* nul = (const unsigned char*)memchr(data, 0, size);
            size_t nn = nul ? (size_t)(nul - data) : size;
            const char* node = toFile("node", data, nn);
            toFile("ele", nul ? nul + 1 : data, nul ? size - nn - 1 : 0);
            alciMesh mesh;
            if (alci_mesh_read(node, &mesh, err, sizeof err) == ALC_OK) alci_mesh_free(&mesh);
            break;
        }
        case FUZZ_STATE: {
            long step;
            double t, *x = NULL, *v = NULL;
            int nv;
            if (alci_state_read(toFile("alcs", data, size), &step, &t, &nv, &x, &v, err,
                                sizeof err) == ALC_OK) {
                free(x);
                free(v);
            }
            break;
        }
        case FUZZ_TOPOLOGY: {
            alciTopology topo;
            if (alci_state_readTopology(toFile("alct", data, size), &topo, err, sizeof err) ==
                ALC_OK) {
                alci_state_freeTopology(&topo);
            }
            break;
        }
        default:
            abort();
    }
    return 0;
}
