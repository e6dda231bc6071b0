// TetGen reader: a .node file (points) and the .ele file beside it (tetrahedra).
// '#' starts a comment; numbering starts at the first point's index (0 or 1).
#include "mesh.h"
#include "mesh_text.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/// Read the .node file into mesh->vert; *base is the first point's index.
static alctStatus readNode(alciText* t, alciMesh* mesh, long long* base) {
    long long count, dim, nattr, nmark;
    alctStatus s = alci_text_readInt(t, 1, "the number of points", &count);
    if (s == ALC_OK) s = alci_text_readInt(t, 0, "the dimension", &dim);
    if (s == ALC_OK) s = alci_text_readInt(t, 0, "the number of attributes", &nattr);
    if (s == ALC_OK) s = alci_text_readInt(t, 0, "the number of boundary markers", &nmark);
    if (s == ALC_OK) s = alci_text_endLine(t, 0);
    if (s != ALC_OK) return s;
    if (dim != 3) return alci_text_fail(t, ALC_ERR_SCENE, "dimension is %lld, expected 3", dim);
    if (nattr < 0 || nattr > 1000 || (nmark != 0 && nmark != 1)) {
        return alci_text_fail(t, ALC_ERR_SCENE,
                              "bad header: %lld attributes, %lld boundary markers", nattr, nmark);
    }
    if (count == 0) return alci_text_fail(t, ALC_ERR_SCENE, "the file declares no points");
    if ((s = alci_text_checkCount(t, count, INT_MAX / 3, 2, "points")) != ALC_OK) return s;
    mesh->vert = (double*)malloc((size_t)count * 3 * sizeof(double));
    if (!mesh->vert) {
        return alci_text_fail(t, ALC_ERR_NOMEM, "out of memory for %lld points", count);
    }
    // one point a line: index x y z [attributes] [marker]
    for (long long i = 0; i < count; i++) {
        long long index;
        double x;
        if ((s = alci_text_readInt(t, 1, "a point index", &index)) != ALC_OK) return s;
        if (i == 0) {
            if (index != 0 && index != 1) {
                return alci_text_fail(t, ALC_ERR_SCENE,
                                      "first point index is %lld, expected 0 or 1", index);
            }
            *base = index;
        } else if (index != *base + i) {
            return alci_text_fail(t, ALC_ERR_SCENE,
                                  "point index %lld is out of sequence (expected %lld)", index,
                                  *base + i);
        }
        static const char* kCoord[3] = {"x coordinate", "y coordinate", "z coordinate"};
        for (int a = 0; a < 3; a++) {
            if ((s = alci_text_readReal(t, 0, kCoord[a], mesh->vert + 3 * i + a)) != ALC_OK) {
                return s;
            }
        }
        for (long long a = 0; a < nattr; a++) {
            if ((s = alci_text_readReal(t, 0, "a point attribute", &x)) != ALC_OK) return s;
        }
        if (nmark && (s = alci_text_readInt(t, 0, "a boundary marker", &index)) != ALC_OK) return s;
        if ((s = alci_text_endLine(t, 0)) != ALC_OK) return s;
        mesh->nvert = (int)i + 1;
    }
    return ALC_OK;
}

/// Read the .ele file into mesh->tet, node indices counted from base.
static alctStatus readEle(alciText* t, alciMesh* mesh, long long base) {
    long long count, per, nattr;
    alctStatus s = alci_text_readInt(t, 1, "the number of tetrahedra", &count);
    if (s == ALC_OK) s = alci_text_readInt(t, 0, "the number of nodes per tetrahedron", &per);
    if (s == ALC_OK) s = alci_text_readInt(t, 0, "the number of attributes", &nattr);
    if (s == ALC_OK) s = alci_text_endLine(t, 0);
    if (s != ALC_OK) return s;
    if (per != 4 && per != 10) {
        return alci_text_fail(t, ALC_ERR_SCENE, "%lld nodes per tetrahedron, expected 4 or 10",
                              per);
    }
    if (nattr < 0 || nattr > 1000) {
        return alci_text_fail(t, ALC_ERR_SCENE, "bad number of attributes %lld", nattr);
    }
    if ((s = alci_text_checkCount(t, count, INT_MAX / 4, 2, "tetrahedra")) != ALC_OK) return s;
    mesh->tet = (int*)malloc((size_t)(count > 0 ? count : 1) * 4 * sizeof(int));
    if (!mesh->tet) {
        return alci_text_fail(t, ALC_ERR_NOMEM, "out of memory for %lld tetrahedra", count);
    }
    // one tetrahedron a line: index n1 n2 n3 n4 [6 more nodes] [attributes]
    long long first = 0;
    for (long long e = 0; e < count; e++) {
        long long index, node;
        double x;
        if ((s = alci_text_readInt(t, 1, "a tetrahedron index", &index)) != ALC_OK) return s;
        if (e == 0 && index != 0 && index != 1) {
            return alci_text_fail(t, ALC_ERR_SCENE,
                                  "first tetrahedron index is %lld, expected 0 or 1", index);
        }
        if (e == 0) first = index;
        if (index != first + e) {
            return alci_text_fail(t, ALC_ERR_SCENE,
                                  "tetrahedron index %lld is out of sequence (expected %lld)",
                                  index, first + e);
        }
        for (long long k = 0; k < per; k++) {
            if ((s = alci_text_readInt(t, 0, "a node index", &node)) != ALC_OK) return s;
            if (node < base || node - base >= mesh->nvert) {
                return alci_text_fail(
                    t, ALC_ERR_SCENE,
                    "tetrahedron %lld refers to node %lld, but the nodes are numbered "
                    "%lld to %lld",
                    index, node, base, base + mesh->nvert - 1);
            }
            if (k < 4) mesh->tet[4 * e + k] = (int)(node - base);
        }
        for (int a = 0; a < 4; a++) {
            for (int b = 0; b < a; b++) {
                if (mesh->tet[4 * e + a] == mesh->tet[4 * e + b]) {
                    return alci_text_fail(t, ALC_ERR_SCENE, "tetrahedron %lld uses node %lld twice",
                                          index, mesh->tet[4 * e + a] + base);
                }
            }
        }
        for (long long a = 0; a < nattr; a++) {
            if ((s = alci_text_readReal(t, 0, "a tetrahedron attribute", &x)) != ALC_OK) return s;
        }
        if ((s = alci_text_endLine(t, 0)) != ALC_OK) return s;
        mesh->ntet = (int)e + 1;
    }
    return ALC_OK;
}

alctStatus alci_mesh_readTetgen(const char* path, alciMesh* mesh, char* err, int errsz) {
    if (err && errsz > 0) err[0] = 0;
    if (!mesh) return ALC_ERR_INVALID_ARG;
    memset(mesh, 0, sizeof *mesh);
    if (!path) return ALC_ERR_INVALID_ARG;
    // the two paths: same base name, .node and .ele
    size_t n = strlen(path);
    const char* dot = strrchr(path, '.');
    const char* slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash)) dot = path + n;
    size_t stem = (size_t)(dot - path);
    char* nodePath = (char*)malloc(stem + 6);
    char* elePath = (char*)malloc(stem + 6);
    if (!nodePath || !elePath) {
        free(nodePath);
        free(elePath);
        return ALC_ERR_NOMEM;
    }
    memcpy(nodePath, path, stem);
    memcpy(nodePath + stem, ".node", 6);
    memcpy(elePath, path, stem);
    memcpy(elePath + stem, ".ele", 5);
    // points, then tetrahedra
    alciText t;
    long long base = 0;
    alctStatus s = alci_text_open(&t, nodePath, '#', err, errsz);
    if (s == ALC_OK) s = readNode(&t, mesh, &base);
    alci_text_close(&t);
    if (s == ALC_OK) {
        s = alci_text_open(&t, elePath, '#', err, errsz);
        if (s == ALC_OK) s = readEle(&t, mesh, base);
        alci_text_close(&t);
    }
    free(nodePath);
    free(elePath);
    if (s != ALC_OK) alci_mesh_free(mesh);
    return s;
}
