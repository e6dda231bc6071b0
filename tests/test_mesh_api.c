// Meshes in the API (issue 19, item 1): the public generators give the meshes a YAML scene
// makes from the same parameters, obstacles are surfaces, alc_meshRead turns a consistently
// negative file over and refuses a folded one, and alc_compileSpec does for code what the scene
// loader does for files (a consistently negative tet mesh is turned over, not refused).
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// A model from one body of a mesh, or NULL (error printed).
static alcModel* modelOf(const alcMesh* mesh, int solid) {
    alcSpec* spec = NULL;
    if (alc_makeSpec(&spec) != ALC_OK) return NULL;
    alcMaterialDef md = alc_defaultMaterialDef();
    int mat = 0, body = 0;
    alc_specAddMaterial(spec, &md, &mat);
    if (!solid) {
        // a model needs a solid: a small box far above the obstacle, as in sceneOf
        alcMesh* box = NULL;
        const double size[3] = {0.01, 0.01, 0.01};
        const int cells[3] = {1, 1, 1};
        alcBodyDef sd = alc_defaultBodyDef();
        if (alc_meshBox(size, cells, &box) != ALC_OK) return NULL;
        sd.material = mat;
        sd.nvert = box->nvert;
        sd.vert = box->vert;
        sd.ntet = box->ntet;
        sd.tet = box->tet;
        sd.position[1] = 5;
        alc_specAddBody(spec, &sd, NULL);
        alc_deleteMesh(box);
    }
    alcBodyDef bd = alc_defaultBodyDef();
    bd.type = solid ? ALC_BODY_SOLID : ALC_BODY_OBSTACLE;
    bd.material = mat;
    bd.nvert = mesh->nvert;
    bd.vert = mesh->vert;
    if (solid) {
        bd.ntet = mesh->ntet;
        bd.tet = mesh->tet;
    } else {
        bd.ntri = mesh->ntri;
        bd.tri = mesh->tri;
    }
    alcModel* m = NULL;
    char err[1024] = "";
    if (alc_specAddBody(spec, &bd, &body) != ALC_OK || alc_compileSpec(spec, &m, err, sizeof err)) {
        fprintf(stderr, "  compile: %s\n", err);
        m = NULL;
    }
    alc_deleteSpec(spec);
    return m;
}

/// A model from a one-body scene whose mesh is given in YAML flow style, or NULL.
static alcModel* sceneOf(const char* meshYaml, int solid) {
    char text[2048], err[1024];
    snprintf(text, sizeof text,
             "name: t\nmaterials:\n  m: {model: snh}\n%s%s:\n  - name: b\n    mesh: {%s}\n"
             "    material: m\n",
             solid ? ""
                   : "bodies:\n  - {name: s, mesh: {box: {size: 0.01, cells: 1}}, material: m, "
                     "position: [0, 5, 0]}\n",
             solid ? "bodies" : "obstacles", meshYaml);
    const char* path = alct_writeFile(alct_tmpDir("mesh_api", NULL), "t.yaml", text);
    alcModel* m = NULL;
    if (!path || alc_loadScene(path, NULL, &m, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "  scene: %s\n", err);
        return NULL;
    }
    return m;
}

static int sameModel(const alcModel* a, const alcModel* b) {
    return a && b && a->nvert == b->nvert && a->ntet == b->ntet && a->ntri == b->ntri &&
           !memcmp(a->vert_x0, b->vert_x0, sizeof(double) * 3 * (size_t)a->nvert) &&
           (a->ntet == 0 || !memcmp(a->tet_vert, b->tet_vert, sizeof(int) * 4 * (size_t)a->ntet)) &&
           !memcmp(a->tri_vert, b->tri_vert, sizeof(int) * 3 * (size_t)a->ntri);
}

ALC_TEST(meshApi_matchesScene) {
    alcMesh* m = NULL;
    const double size[3] = {0.1, 0.2, 0.3};
    const int cells[3] = {2, 3, 4};
    // solids
    ENSURE_OK(alc_meshBox(size, cells, &m));
    alcModel* a = modelOf(m, 1);
    alcModel* b = sceneOf("box: {size: [0.1, 0.2, 0.3], cells: [2, 3, 4]}", 1);
    ENSURE(sameModel(a, b) && a->ntet == 6 * 24);
    alc_deleteModel(a), alc_deleteModel(b), alc_deleteMesh(m);
    ENSURE_OK(alc_meshSphere(0.5, 4, &m));
    a = modelOf(m, 1), b = sceneOf("sphere: {radius: 0.5, cells: 4}", 1);
    ENSURE(sameModel(a, b));
    alc_deleteModel(a), alc_deleteModel(b), alc_deleteMesh(m);
    ENSURE_OK(alc_meshTorus(1.0, 0.25, 8, 2, &m));
    a = modelOf(m, 1),
    b = sceneOf("torus: {major_radius: 1, minor_radius: 0.25, segments: 8, cells: 2}", 1);
    ENSURE(sameModel(a, b));
    alc_deleteModel(a), alc_deleteModel(b), alc_deleteMesh(m);
    // obstacles: surfaces only
    const double plane[2] = {2, 2};
    ENSURE_OK(alc_meshPlane(plane, 2, &m));
    ENSURE(m->ntet == 0 && m->ntri == 8);
    a = modelOf(m, 0), b = sceneOf("plane: {size: 2, cells: 2}", 0);
    ENSURE(sameModel(a, b));
    alc_deleteModel(a), alc_deleteModel(b), alc_deleteMesh(m);
    ENSURE_OK(alc_meshBowl(1.0, 6, &m));
    ENSURE(m->ntet == 0 && m->ntri > 0);
    alc_deleteMesh(m);
    ENSURE_OK(alc_meshFunnel(1.0, 0.3, 1.0, 12, &m));
    ENSURE(m->ntet == 0 && m->ntri > 0);
    alc_deleteMesh(m);
    ENSURE_OK(alc_meshBoxSurface(size, 2, 0, &m));
    ENSURE(m->ntet == 0 && m->ntri > 0);
    alc_deleteMesh(m);
    // bad parameters: refused, nothing returned
    m = (alcMesh*)&m;
    ENSURE(alc_meshSphere(-1, 4, &m) == ALC_ERR_INVALID_ARG && m == NULL);
    ENSURE(alc_meshSphere(1, 1, &m) == ALC_ERR_INVALID_ARG && m == NULL);
    ENSURE(alc_meshBox(size, cells, NULL) == ALC_ERR_INVALID_ARG);
    alc_deleteMesh(NULL);
    return ALC_TEST_PASS;
}

/// A Gmsh 2.2 file of two tetrahedra sharing a face, each given with vertex orders o1, o2.
static const char* mshFile(const char* name, const char* o1, const char* o2) {
    char text[1024];
    snprintf(text, sizeof text,
             "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n"
             "4 0 0 1\n5 1 1 1\n$EndNodes\n$Elements\n2\n1 4 2 0 1 %s\n2 4 2 0 1 %s\n"
             "$EndElements\n",
             o1, o2);
    return alct_writeFile(alct_tmpDir("mesh_api", NULL), name, text);
}

ALC_TEST(meshApi_readOrientation) {
    char err[1024];
    // positive: 1 2 3 4 and 2 3 4 5 (5 beyond the face 2 3 4 from 1)
    char good[1100], neg[1100], mixed[1100];
    snprintf(good, sizeof good, "%s", mshFile("good.msh", "1 2 3 4", "2 3 4 5"));
    snprintf(neg, sizeof neg, "%s", mshFile("neg.msh", "1 3 2 4", "2 4 3 5"));
    snprintf(mixed, sizeof mixed, "%s", mshFile("mixed.msh", "1 2 3 4", "2 4 3 5"));
    alcMesh* m = NULL;
    int flipped = -1;
    ENSURE_MSG(alc_meshRead(good, &m, &flipped, err, sizeof err) == ALC_OK, "%s", err);
    ENSURE(flipped == 0 && m->ntet == 2 && m->nvert == 5);
    alc_deleteMesh(m);
    ENSURE_OK(alc_meshRead(neg, &m, &flipped, err, sizeof err));
    ENSURE(flipped == 1 && m->ntet == 2);
    alcModel* a = modelOf(m, 1);
    ENSURE(a);
    alc_deleteModel(a);
    alc_deleteMesh(m);
    m = NULL;
    ENSURE(alc_meshRead(mixed, &m, &flipped, err, sizeof err) == ALC_ERR_SCENE && m == NULL);
    ENSURE_MSG(strstr(err, "mixed.msh") && strstr(err, "invert"), "%s", err);
    alct_note("mixed orientations: %s", err);
    ENSURE(alc_meshRead("/nonexistent.msh", &m, NULL, err, sizeof err) == ALC_ERR_IO);
    // code gets what files get: the negative mesh's raw arrays compile into the same model
    double v[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
    int t[8] = {0, 2, 1, 3, 1, 3, 2, 4};
    alcMesh raw = {5, 2, 0, v, t, NULL};
    a = modelOf(&raw, 1);
    ENSURE_MSG(a, "a consistently negative mesh from code must compile (turned over)");
    alc_deleteModel(a);
    return ALC_TEST_PASS;
}
