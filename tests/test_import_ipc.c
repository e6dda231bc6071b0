// IPC script importer (host/ipc_script.c, host/ipc_import.c): hand-written scripts and tiny meshes
// in a temporary folder; transforms (IPC's rotation order), size scaling, tolerances relative to
// the diagonal, scripted motions, warnings and file:line errors. Needs no IPC checkout.
#include "ipc_import.h"
#include "mesh.h"
#include "model_xmacro.h"
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char* tmpDir(void) {
    return alct_tmpDir("ipc", "input");
}

/// Write text to the test directory and return the path (static buffer, one at a time).
static const char* writeFile(const char* name, const char* text) {
    return alct_writeFile(tmpDir(), name, text);
}

/// One unit tetrahedron (Gmsh 2.2) and a 1 x 0.2 x 0.2 bar of 6 tetrahedra along x.
static void writeMeshes(void) {
    writeFile("input/tet.msh",
              "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n"
              "4 0 0 1\n$EndNodes\n$Elements\n1\n1 4 0 1 2 3 4\n$EndElements\n");
    writeFile("input/bar.msh",
              "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n8\n"
              "1 0 0 0\n2 1 0 0\n3 1 0.2 0\n4 0 0.2 0\n5 0 0 0.2\n6 1 0 0.2\n7 1 0.2 0.2\n"
              "8 0 0.2 0.2\n$EndNodes\n$Elements\n6\n"
              "1 4 0 1 2 3 7\n2 4 0 1 3 4 7\n3 4 0 1 4 8 7\n4 4 0 1 8 5 7\n5 4 0 1 5 6 7\n"
              "6 4 0 1 6 2 7\n$EndElements\n");
    writeFile("input/tri.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n");
}

/// Read a script written to DIR/name and import it to DIR/out/<stem>.
static alctStatus importScript(const char* name, const char* text, alciIpcScript* s,
                               alciIpcResult* res, char* err, int errsz) {
    writeMeshes();
    const char* p = writeFile(name, text);
    alctStatus st = alci_ipc_readScript(p, NULL, s, err, errsz);
    if (st != ALC_OK) return st;
    char out[512], stem[128];
    snprintf(out, sizeof out, "%s/out", tmpDir());
    snprintf(stem, sizeof stem, "%s", name);
    char* dot = strrchr(stem, '.');
    if (dot) *dot = 0;
    alciIpcImportDef def = {out, stem, NULL};
    return alci_ipc_import(s, &def, res, err, errsz);
}

static int hasMessage(const alciIpcScript* s, const char* a, const char* b) {
    for (int i = 0; i < s->nmsg; i++)
        if (strstr(s->msg[i], a) && (!b || strstr(s->msg[i], b))) return 1;
    return 0;
}

ALC_TEST(import_ipc_rotation_order) {
    // R = Rx(90) Ry(0) Rz(90) applied to the scaled vertex, then the translation: z turns first
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("rot.txt",
                                 "script DCOFix\nturnOffGravity\nshapes input 1\n"
                                 "input/tet.msh  1 2 3  90 0 90  2 1 1\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(res.scaleFactor == 1);
    alci_ipc_freeScript(&s);
    alciMesh m;
    memset(&m, 0, sizeof m);
    char path[512];
    snprintf(path, sizeof path, "%s/out/rot_meshes/s00_tet.msh", tmpDir());
    ENSURE_OK(alci_mesh_read(path, &m, err, sizeof err));
    ENSURE(m.nvert == 4 && m.ntet == 1);
    // (0,0,0) -> t; (1,0,0) -s-> (2,0,0) -Rz-> (0,2,0) -Rx-> (0,0,2) -> (1,2,5);
    // (0,1,0) -Rz-> (-1,0,0) -> (0,2,3); (0,0,1) -Rx-> (0,-1,0) -> (1,1,3)
    const double want[12] = {1, 2, 3, 1, 2, 5, 0, 2, 3, 1, 1, 3};
    for (int i = 0; i < 12; i++) ENSURE_NEAR(m.vert[i], want[i], 1e-12);
    alci_mesh_free(&m);
    // the written scene loads with the same positions (alcove's euler order would give (1,4,3))
    alcModel* model = NULL;
    snprintf(path, sizeof path, "%s/out/rot.yaml", tmpDir());
    ENSURE_MSG(alc_loadScene(path, NULL, &model, err, sizeof err) == ALC_OK, "%s", err);
    ENSURE(model->nvert == 4);
    for (int i = 0; i < 12; i++) ENSURE_NEAR(model->vert_x0[i], want[i], 1e-12);
    ENSURE(model->opt.gravity[1] == 0);
    alc_deleteModel(model);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_size_and_tolerances) {
    // two tets 3 apart: extent 4 along x, so size 2 halves the scene and moves its corner to 0
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st =
        importScript("size.txt",
                     "size 2\ntime 1 0.05\ndensity 500\nstiffness 2e5 0.25\n"
                     "script DCOFix\nshapes input 2\ninput/tet.msh 0 0 0  0 0 0  1 1 1\n"
                     "input/tet.msh 3 -1 0  0 0 0  1 1 1\n"
                     "dHat 1e-3\nepsv 1e-2\nselfFric 0.3\ntol 1\n1e-4\n",
                     &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    alci_ipc_freeScript(&s);
    ENSURE_NEAR(res.scaleFactor, 0.5, 1e-15);
    ENSURE_NEAR(res.shift[1], 0.5, 1e-15);
    double diag = sqrt(2.0 * 2.0 + 1.0 * 1.0 + 0.5 * 0.5);  // box [0,2] x [0,1] x [0,0.5]
    ENSURE_NEAR(res.diagonal, diag, 1e-12);
    ENSURE_NEAR(res.dhat, 1e-3 * diag, 1e-15);
    ENSURE_NEAR(res.epsv, 1e-2 * diag, 1e-15);
    ENSURE(res.steps == 20 && res.nbody == 2);
    alcModel* m = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/out/size.yaml", tmpDir());
    ENSURE_MSG(alc_loadScene(path, NULL, &m, err, sizeof err) == ALC_OK, "%s", err);
    ENSURE_NEAR(m->opt.delta, 1e-3 * diag, 1e-12);
    ENSURE_NEAR(m->opt.frictionEpsV, 1e-2 * diag, 1e-12);
    ENSURE_NEAR(m->opt.timestep, 0.05, 1e-15);
    ENSURE_NEAR(m->opt.gravity[1], -9.80665, 1e-12);
    // second tet: (3,-1,0) -> 0.5 * (3,-1,0) + (0, 0.5, 0) = (1.5, 0, 0); its (1,0,0) -> (2, 0, 0)
    int v = m->body_vertadr[1];
    ENSURE_NEAR(m->vert_x0[3 * v], 1.5, 1e-12);
    ENSURE_NEAR(m->vert_x0[3 * v + 1], 0, 1e-12);
    ENSURE_NEAR(m->vert_x0[3 * (v + 1)], 2, 1e-12);
    ENSURE_NEAR(m->mat_density[0], 500, 1e-9);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_twist_and_obstacles) {
    // twist: the bar's end vertices (x within 1% of either end) turn about x at -+0.4 pi rad/s;
    // a triangle shape and a half-space become obstacles
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("twist.txt",
                                 "script twist\nturnOffGravity\nshapes input 2\n"
                                 "input/bar.msh 0 0 0  0 0 0  1 1 1\n"
                                 "input/tri.obj 0 -0.5 0  0 0 0  1 1 1\n"
                                 "halfSpace 0 -1 0  0 1 0  50 0.2\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(hasMessage(&s, "twist.txt:6: note", "half-space"));
    ENSURE(hasMessage(&s, "twist.txt:1: warning", "twist handles on surface shape 1"));
    alci_ipc_freeScript(&s);
    ENSURE(res.nbody == 1 && res.nobstacle == 2 && res.ndriver == 2);
    alcModel* m = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/out/twist.yaml", tmpDir());
    ENSURE_MSG(alc_loadScene(path, NULL, &m, err, sizeof err) == ALC_OK, "%s", err);
    ENSURE(m->body_vertadr[0] == 0 && m->body_vertnum[0] == 8);
    for (int v = 0; v < 8; v++) {
        int k = m->vert_driver[v];
        double x = m->vert_x0[3 * v];
        ENSURE(k >= 0);
        const double* prm = m->driver_param + ALC_DRIVER_NPARAM * k;
        ENSURE_NEAR(prm[ALC_DP_AXIS], 1, 1e-15);
        ENSURE_NEAR(prm[ALC_DP_OMEGA], x < 0.5 ? -0.4 * M_PI : 0.4 * M_PI, 1e-12);
    }
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_dbc_motion) {
    // script null with a shape DBC: the bar's x >= 0.9 end (file box) moves at 0.1 m/s along y
    // from t = 0 until 2 s, then is released
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("dbc.txt",
                                 "script null\nshapes input 1\n"
                                 "input/bar.msh 0 0 0  0 0 0  1 1 1  DBC 0.9 0 0  1 1 1  0 0.1 0  "
                                 "0 0 0  0 2\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    alci_ipc_freeScript(&s);
    ENSURE(res.ndriver == 1);
    alcModel* m = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s/out/dbc.yaml", tmpDir());
    ENSURE_MSG(alc_loadScene(path, NULL, &m, err, sizeof err) == ALC_OK, "%s", err);
    int driven = 0;
    for (int v = 0; v < 8; v++) {
        int k = m->vert_driver[v];
        ENSURE((k >= 0) == (m->vert_x0[3 * v] > 0.5));
        if (k < 0) continue;
        driven++;
        const double* prm = m->driver_param + ALC_DRIVER_NPARAM * k;
        ENSURE_NEAR(prm[ALC_DP_VEL + 1], 0.1, 1e-15);
        ENSURE_NEAR(prm[ALC_DP_RELEASE], 2, 1e-15);
    }
    ENSURE(driven == 4);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_warnings) {
    // unknown keywords, codimensional shapes and unsupported scripts are named with their line,
    // printed and listed at the top of the YAML; FCR maps to model fcr without a message
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    writeFile("input/seg.seg", "v 0 0 0\nv 1 0 0\nl 1 2\n");
    alctStatus st = importScript("warn.txt",
                                 "energy FCR\nfooBar 3\nscript DCOSquash6\nzoom 2\nshapes input 2\n"
                                 "input/tet.msh 0 0 0  0 0 0  1 1 1\n"
                                 "input/seg.seg 0 2 0  0 0 0  1 1 1\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(hasMessage(&s, "warn.txt:2: warning", "fooBar"));
    ENSURE(!hasMessage(&s, "warn.txt:1:", NULL));
    ENSURE(hasMessage(&s, "warn.txt:3: warning", "DCOSquash6"));
    ENSURE(hasMessage(&s, "warn.txt:4: note", "zoom"));
    ENSURE(hasMessage(&s, "warn.txt:7: warning", "codimensional"));
    int n = s.nmsg;
    alci_ipc_freeScript(&s);
    char path[512], line[1024];
    snprintf(path, sizeof path, "%s/out/warn.yaml", tmpDir());
    FILE* f = fopen(path, "r");
    ENSURE(f);
    int listed = 0, fcr = 0;
    while (fgets(line, sizeof line, f) && line[0] == '#') {
        listed += strstr(line, "warn.txt:") != NULL;
        fcr += strstr(line, "energy FCR") != NULL;
    }
    ENSURE(strstr(line, "name: warn") == line);
    int modelFcr = 0;
    while (fgets(line, sizeof line, f)) modelFcr += strstr(line, "model: fcr") != NULL;
    fclose(f);
    ENSURE(listed == n && fcr == 0 && modelFcr == 1);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_malformed_line) {
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("bad.txt", "size 1\n# comment\ntime abc 0.01\nshapes input 0\n",
                                 &s, &res, err, sizeof err);
    alci_ipc_freeScript(&s);
    ENSURE(st == ALC_ERR_SCENE);
    char want[512];
    snprintf(want, sizeof want, "%s/bad.txt:3: 'time' expects DURATION DT", tmpDir());
    ENSURE_MSG(strstr(err, want) == err, "%s", err);
    // a shape line with too few numbers names its own line
    st = importScript("bad2.txt", "shapes input 1\n\ninput/tet.msh 0 0 0  0 0\n", &s, &res, err,
                      sizeof err);
    alci_ipc_freeScript(&s);
    ENSURE(st == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "bad2.txt:3: 'shape' expects") != NULL, "%s", err);
    // a missing mesh is bad input naming the script line
    st = importScript("bad3.txt", "shapes input 1\ninput/none.msh 0 0 0 0 0 0 1 1 1\n", &s, &res,
                      err, sizeof err);
    alci_ipc_freeScript(&s);
    ENSURE(st == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "bad3.txt:2: shape 0:") != NULL, "%s", err);
    return ALC_TEST_PASS;
}
