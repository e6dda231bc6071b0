// Mesh file reading: choose the reader by the file's extension; free a mesh.
#include "mesh.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void alci_mesh_free(alciMesh* mesh) {
    if (!mesh) return;
    free(mesh->vert);
    free(mesh->tet);
    free(mesh->tri);
    memset(mesh, 0, sizeof *mesh);
}

/// Whether the path ends with ext (with its dot), ignoring case.
static int hasExtension(const char* path, const char* ext) {
    size_t n = strlen(path), m = strlen(ext);
    if (n < m) return 0;
    for (size_t i = 0; i < m; i++) {
        if (tolower((unsigned char)path[n - m + i]) != tolower((unsigned char)ext[i])) return 0;
    }
    return 1;
}

alctStatus alci_mesh_read(const char* path, alciMesh* mesh, char* err, int errsz) {
    if (err && errsz > 0) err[0] = 0;
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!path) return ALC_ERR_INVALID_ARG;
    if (hasExtension(path, ".msh")) return alci_mesh_readMsh(path, mesh, err, errsz);
    if (hasExtension(path, ".node") || hasExtension(path, ".ele")) {
        return alci_mesh_readTetgen(path, mesh, err, errsz);
    }
    if (hasExtension(path, ".obj")) return alci_mesh_readObj(path, mesh, err, errsz);
    if (err && errsz > 0) {
        snprintf(err, (size_t)errsz,
                 "%s:0: unknown mesh file extension (expected .msh, .node, .ele or .obj)", path);
    }
    return ALC_ERR_SCENE;
}
