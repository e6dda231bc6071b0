// The procedural meshes and the mesh readers of the scene format as public functions (issue 19,
// item 1): the same generators, readers, orientation fix and validation that YAML scenes use,
// returning an alcMesh whose arrays plug into alcBodyDef.
#include "alc_internal.h"
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

/// Hand an internal mesh to the caller as an alcMesh (the arrays move, the struct is new).
static alctStatus give(alciMesh* in, alctStatus st, alcMesh** out) {
    if (st != ALC_OK) {
        alci_mesh_free(in);
        return st;
    }
    alcMesh* m = (alcMesh*)calloc(1, sizeof *m);
    if (!m) {
        alci_mesh_free(in);
        return ALC_ERR_NOMEM;
    }
    m->nvert = in->nvert;
    m->ntet = in->ntet;
    m->ntri = in->ntri;
    m->vert = in->vert;
    m->tet = in->tet;
    m->tri = in->tri;
    *out = m;
    return ALC_OK;
}

#define ALCI_MESH_BEGIN(out)                \
    if (!(out)) return ALC_ERR_INVALID_ARG; \
    *(out) = NULL;                          \
    alciMesh mesh;                          \
    memset(&mesh, 0, sizeof mesh)

alctStatus alc_meshBox(const double size[3], const int cells[3], alcMesh** out) {
    ALCI_MESH_BEGIN(out);
    if (!size || !cells) return ALC_ERR_INVALID_ARG;
    return give(&mesh, alci_mesh_box(size, cells, &mesh), out);
}

alctStatus alc_meshSphere(double radius, int res, alcMesh** out) {
    ALCI_MESH_BEGIN(out);
    return give(&mesh, alci_mesh_sphere(radius, res, &mesh), out);
}

alctStatus alc_meshCylinder(double radius, double height, int resRadial, int resHeight,
                            alcMesh** out) {
    ALCI_MESH_BEGIN(out);
    return give(&mesh, alci_mesh_cylinder(radius, height, resRadial, resHeight, &mesh), out);
}

alctStatus alc_meshTorus(double majorRadius, double minorRadius, int resMajor, int resMinor,
                         alcMesh** out) {
    ALCI_MESH_BEGIN(out);
    return give(&mesh, alci_mesh_torus(majorRadius, minorRadius, resMajor, resMinor, &mesh), out);
}

alctStatus alc_meshPlane(const double size[2], int res, alcMesh** out) {
    ALCI_MESH_BEGIN(out);
    if (!size) return ALC_ERR_INVALID_ARG;
    return give(&mesh, alci_mesh_plane(size, res, &mesh), out);
}

alctStatus alc_meshBoxSurface(const double size[3], int res, int closed, alcMesh** out) {
    ALCI_MESH_BEGIN(out);
    if (!size) return ALC_ERR_INVALID_ARG;
    return give(&mesh, alci_mesh_boxSurface(size, res, closed, &mesh), out);
}

alctStatus alc_meshBowl(double radius, int res, alcMesh** out) {
    ALCI_MESH_BEGIN(out);
    return give(&mesh, alci_mesh_bowl(radius, res, &mesh), out);
}

alctStatus alc_meshFunnel(double topRadius, double bottomRadius, double height, int res,
                          alcMesh** out) {
    ALCI_MESH_BEGIN(out);
    return give(&mesh, alci_mesh_funnel(topRadius, bottomRadius, height, res, &mesh), out);
}

alctStatus alc_meshRead(const char* path, alcMesh** out, int* reoriented, char* err, int errsz) {
    if (reoriented) *reoriented = 0;
    if (!path) {
        alci_setMessage(err, errsz, "alc_meshRead: NULL path");
        return ALC_ERR_INVALID_ARG;
    }
    ALCI_MESH_BEGIN(out);
    alctStatus st = alci_mesh_read(path, &mesh, err, errsz);
    if (st != ALC_OK) return give(&mesh, st, out);
    // as the scene loader: a consistently negative tet mesh is turned over, then validated
    int flipped = alci_mesh_orientConsistently(&mesh);
    if (reoriented) *reoriented = flipped;
    char msg[ALC_ERRLEN];
    st = alci_mesh_validate(&mesh, 0, msg, sizeof msg);
    if (st != ALC_OK) alci_setMessage(err, errsz, "%s: %s", path, msg);
    return give(&mesh, st, out);
}

void alc_deleteMesh(alcMesh* mesh) {
    if (!mesh) return;
    free(mesh->vert);
    free(mesh->tet);
    free(mesh->tri);
    free(mesh);
}
