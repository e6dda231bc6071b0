// IPC script importer (host/ipc_script.c, host/ipc_import.c): hand-written scripts and tiny meshes
// in a temporary folder; transforms (IPC's rotation order), size scaling, tolerances relative to
// the diagonal, scripted motions, warnings and file:line errors. Needs no IPC checkout.
#include "alc_internal.h"
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

/// Read a script written to DIR/name and import it to DIR/out/<stem> with the linear solver
/// asked for (NULL: the importer picks).
static alctStatus importScriptLs(const char* name, const char* text, const char* linearSolver,
                                 alciIpcScript* s, alciIpcResult* res, char* err, int errsz) {
    writeMeshes();
    const char* p = writeFile(name, text);
    alctStatus st = alci_ipc_readScript(p, NULL, s, err, errsz);
    if (st != ALC_OK) return st;
    char out[512], stem[128];
    snprintf(out, sizeof out, "%s/out", tmpDir());
    snprintf(stem, sizeof stem, "%s", name);
    char* dot = strrchr(stem, '.');
    if (dot) *dot = 0;
    alciIpcImportDef def = {out, stem, NULL, linearSolver};
    return alci_ipc_import(s, &def, res, err, errsz);
}

/// Read a script written to DIR/name and import it to DIR/out/<stem>.
static alctStatus importScript(const char* name, const char* text, alciIpcScript* s,
                               alciIpcResult* res, char* err, int errsz) {
    return importScriptLs(name, text, NULL, s, res, err, errsz);
}

/// Load OUT/name.yaml written by importScript.
static alcModel* loadImported(const char* name, char* err, int errsz) {
    char path[512];
    snprintf(path, sizeof path, "%s/out/%s.yaml", tmpDir(), name);
    alcModel* m = NULL;
    if (alc_loadScene(path, NULL, &m, err, errsz) != ALC_OK) return NULL;
    return m;
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
    alcModel* model = loadImported("rot", err, sizeof err);
    ENSURE_MSG(model, "%s", err);
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
    alcModel* m = loadImported("size", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
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
    alcModel* m = loadImported("twist", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
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
    alcModel* m = loadImported("dbc", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
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

ALC_TEST(import_ipc_dragright) {
    // script dragright with a meshCO: the bar's right 4 % dragged at 0.5 m/s along x, released
    // once the bar is right of the meshCO's right end (a plane), as IPC releases them; no
    // release time
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("drag.txt",
                                 "script dragright\nshapes input 1\n"
                                 "input/bar.msh 0 0 0  0 0 0  1 1 1\n"
                                 "meshCO input/tri.obj 3 0 0  1  50 0\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    alci_ipc_freeScript(&s);
    ENSURE(res.ndriver == 1);
    alcModel* m = loadImported("drag", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
    // the obstacle's right end in the scene's frame (the importer shifts and scales the shapes)
    ENSURE(m->nbody == 2);
    double right = -HUGE_VAL;
    for (int v = m->body_vertadr[1]; v < m->body_vertadr[1] + m->body_vertnum[1]; v++)
        right = fmax(right, m->vert_x0[3 * v]);
    int driven = 0;
    for (int v = 0; v < m->body_vertnum[0]; v++) {
        int k = m->vert_driver[v];
        if (k < 0) continue;
        driven++;
        const double* prm = m->driver_param + ALC_DRIVER_NPARAM * k;
        ENSURE_NEAR(prm[ALC_DP_VEL], 0.5, 1e-15);
        ENSURE(isinf(prm[ALC_DP_RELEASE]));
        ENSURE(prm[ALC_DP_RELPAST] == 1 && prm[ALC_DP_RELPAST + 1] == 0 &&
               prm[ALC_DP_RELPAST + 2] == 0);
        ENSURE_NEAR(prm[ALC_DP_RELPAST + 3], right, 1e-12);
    }
    ENSURE(driven == 4);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_stiffBodyGetsDirect) {
    // h c / D: the time step over an elastic wave's crossing of the body's box diagonal. The
    // soft bar (E 1e4, density 1000: c = 3.16 m/s, D = 1.04 m, h = 0.01 s) is at 0.03 and keeps
    // PCG; the tetrahedron of its own material E 1e9 (c = 1000 m/s, D = 1.73 m) is at 5.8
    const char* soft = "time 1 0.01\ndensity 1000\nstiffness 1e4 0.4\nshapes input 1\n"
                       "input/bar.msh 0 0 0  0 0 0  1 1 1\n";
    const char* stiff = "time 1 0.01\ndensity 1000\nstiffness 1e4 0.4\nshapes input 2\n"
                        "input/bar.msh 0 0 0  0 0 0  1 1 1\n"
                        "input/tet.msh 3 0 0  0 0 0  1 1 1  material 1000 1e9 0.4\n";
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("ls_soft.txt", soft, &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(!hasMessage(&s, "stiff for the time step", NULL));
    alci_ipc_freeScript(&s);
    ENSURE_NEAR(res.wave, 0.01 * sqrt(1e4 / 1000) / sqrt(1.08), 1e-12);
    ENSURE(res.waveShape == 0 && res.linearSolver == -1);
    ENSURE(!strcmp(res.linearSolverName, "pcg (default)"));
    alcModel* m = loadImported("ls_soft", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
    ENSURE(m->opt.linearSolver == ALC_LINSOLVE_PCG);
    alc_deleteModel(m);

    st = importScript("ls_stiff.txt", stiff, &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(hasMessage(&s, "ls_stiff.txt:6: note: this shape (E = 1e+09 Pa) is stiff",
                      alcu_directSolverAvailable() ? "linear_solver: direct (CHOLMOD"
                                                   : "a build with CHOLMOD"));
    alci_ipc_freeScript(&s);
    ENSURE_NEAR(res.wave, 0.01 * 1000 / sqrt(3.0), 1e-12);
    ENSURE(res.waveShape == 1);
    int want = alcu_directSolverAvailable() ? ALC_LINSOLVE_DIRECT : -1;
    ENSURE(res.linearSolver == want);
    m = loadImported("ls_stiff", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
    ENSURE(m->opt.linearSolver == (want < 0 ? ALC_LINSOLVE_PCG : want));
    alc_deleteModel(m);

    // asked for: written as asked, with no note; an unknown name is refused
    static const char* const names[] = {"pcg", "auto"};
    static const int values[] = {ALC_LINSOLVE_PCG, ALC_LINSOLVE_AUTO};
    for (int k = 0; k < 2; k++) {
        st = importScriptLs("ls_stiff.txt", stiff, names[k], &s, &res, err, sizeof err);
        ENSURE_MSG(st == ALC_OK, "%s", err);
        ENSURE(!hasMessage(&s, "stiff for the time step", NULL));
        alci_ipc_freeScript(&s);
        ENSURE(res.linearSolver == values[k] && !strcmp(res.linearSolverName, names[k]));
        m = loadImported("ls_stiff", err, sizeof err);
        ENSURE_MSG(m, "%s", err);
        ENSURE(m->opt.linearSolver == values[k]);
        alc_deleteModel(m);
    }
    st = importScriptLs("ls_stiff.txt", stiff, "cholesky", &s, &res, err, sizeof err);
    alci_ipc_freeScript(&s);
    ENSURE(st == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "unknown linear solver 'cholesky'"), "%s", err);
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
                                 "energy FCR\nfooBar 3\nscript DCOVerschoorRoller\nzoom 2\n"
                                 "shapes input 2\n"
                                 "input/tet.msh 0 0 0  0 0 0  1 1 1\n"
                                 "input/seg.seg 0 2 0  0 0 0  1 1 1\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(hasMessage(&s, "warn.txt:2: warning", "fooBar"));
    ENSURE(!hasMessage(&s, "warn.txt:1:", NULL));
    ENSURE(hasMessage(&s, "warn.txt:3: warning", "DCOVerschoorRoller is not supported"));
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

// ---- the scripted motions of the paper's examples ------------------------------------------

/// Index of the body (solid or obstacle) named name, -1 if none.
static int bodyNamed(const alcModel* m, const char* name) {
    for (int b = 0; b < m->nbody; b++)
        if (!strcmp(m->names + m->body_nameadr[b], name)) return b;
    return -1;
}

/// Displacement at time t of vertex v from its initial position (the drivers' target).
static void driverOffset(const alcModel* m, int v, double t, double out[3]) {
    double* target = (double*)calloc((size_t)m->nvert * 3, sizeof(double));
    unsigned char* mask = (unsigned char*)calloc((size_t)m->nvert, 1);
    alci_driver_eval(m, t, NULL, NULL, target, mask);
    for (int k = 0; k < 3; k++)
        out[k] = mask[v] ? target[3 * v + k] - m->vert_x0[3 * v + k] : (double)NAN;
    free(target);
    free(mask);
}

ALC_TEST(import_ipc_rot_cylinders) {
    // DCORotCylinders: shapes 0-3 turn at pi/2 rad/s about +x, -x, -z, +z through the centre of
    // their own box; the triangle's box is [0,1] x [0,0] x [0,1] before its translation
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("rotcyl.txt",
                                 "script DCORotCylinders\nturnOffGravity\nshapes input 5\n"
                                 "input/tri.obj 0 0 0  0 0 0  1 1 1\n"
                                 "input/tri.obj 0 2 0  0 0 0  1 1 1\n"
                                 "input/tri.obj 0 4 0  0 0 0  1 1 1\n"
                                 "input/tri.obj 0 6 0  0 0 0  1 1 1\n"
                                 "input/tet.msh 5 0 0  0 0 0  1 1 1\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(!hasMessage(&s, "warning", NULL));
    alci_ipc_freeScript(&s);
    ENSURE(res.nbody == 1 && res.nobstacle == 4 && res.ndriver == 4);
    alcModel* m = loadImported("rotcyl", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
    const int axis[4] = {0, 0, 2, 2};
    const double omega[4] = {M_PI / 2, -M_PI / 2, -M_PI / 2, M_PI / 2};
    for (int i = 0; i < 4; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "s%02d_tri", i);
        int b = bodyNamed(m, nm);
        ENSURE(b >= 0 && m->body_type[b] == ALC_BODY_OBSTACLE && m->body_vertnum[b] == 3);
        for (int j = 0; j < 3; j++) {
            int v = m->body_vertadr[b] + j, k = m->vert_driver[v];
            ENSURE(k >= 0 && m->driver_type[k] == ALC_DRIVER_ROTATE);
            const double* prm = m->driver_param + ALC_DRIVER_NPARAM * k;
            for (int a = 0; a < 3; a++) ENSURE_NEAR(prm[ALC_DP_AXIS + a], a == axis[i], 1e-15);
            ENSURE_NEAR(prm[ALC_DP_OMEGA], omega[i], 1e-12);
            ENSURE_NEAR(prm[ALC_DP_CENTER], 0.5, 1e-15);
            ENSURE_NEAR(prm[ALC_DP_CENTER + 1], 2.0 * i, 1e-15);
            ENSURE_NEAR(prm[ALC_DP_CENTER + 2], 0.5, 1e-15);
        }
    }
    // after 1 s shape 0 has turned a quarter about +x: its vertex (0,0,1) -> centre + Rx(90) (-0.5,
    // 0, 0.5) = (0, -0.5, 0.5); shape 3 about +z: (1, 6, 0) -> (0.5, 6, 0.5) + Rz(90) (0.5, 0,
    // -0.5) = (0.5, 6.5, 0)
    double d[3];
    driverOffset(m, m->body_vertadr[bodyNamed(m, "s00_tri")] + 2, 1.0, d);
    ENSURE_NEAR(d[0], 0, 1e-12);
    ENSURE_NEAR(d[1], -0.5, 1e-12);
    ENSURE_NEAR(d[2], -0.5, 1e-12);
    driverOffset(m, m->body_vertadr[bodyNamed(m, "s03_tri")] + 1, 1.0, d);
    ENSURE_NEAR(d[0], -0.5, 1e-12);
    ENSURE_NEAR(d[1], 0.5, 1e-12);
    ENSURE_NEAR(d[2], 0, 1e-12);
    int b = bodyNamed(m, "s04_tet");
    for (int j = 0; j < 4; j++) ENSURE(m->vert_driver[m->body_vertadr[b] + j] < 0);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_squash6_reversal) {
    // DCOSquash6: walls 0-5 at 1 m/s along +x, -x, +y, -y, +z, -z; the gap between wall 0 (max x
    // 1) and wall 1 (min x 2.03) is 1.03 and closes by 0.1 a step (dt 0.05): it is first below 0.1
    // at the start of step 10, so every wall turns back at t = 0.5 s
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st =
        importScript("squash.txt",
                     "script DCOSquash6\ntime 1.2 0.05\nturnOffGravity\nshapes input 7\n"
                     "input/tri.obj 0 0 0  0 0 0  1 1 1\n"
                     "input/tri.obj 2.03 0 0  0 0 0  1 1 1\n"
                     "input/tri.obj 0 -3 0  0 0 0  1 1 1\n"
                     "input/tri.obj 0 3 0  0 0 0  1 1 1\n"
                     "input/tri.obj 0 0 -3  0 0 0  1 1 1\n"
                     "input/tri.obj 0 0 3  0 0 0  1 1 1\n"
                     "input/tet.msh 1.2 0.5 0.5  0 0 0  0.3 0.3 0.3\n",
                     &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(hasMessage(&s, "squash.txt:1: note", "reversal time 0.5 s (step 10)"));
    ENSURE(hasMessage(&s, "squash.txt:1: note", "computed from the initial gap"));
    ENSURE(!hasMessage(&s, "warning", NULL));
    alci_ipc_freeScript(&s);
    ENSURE(res.steps == 24 && res.nobstacle == 6 && res.ndriver == 6);
    alcModel* m = loadImported("squash", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
    for (int i = 0; i < 6; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "s%02d_tri", i);
        int b = bodyNamed(m, nm);
        ENSURE(b >= 0);
        int v = m->body_vertadr[b], k = m->vert_driver[v];
        ENSURE(k >= 0 && m->driver_type[k] == ALC_DRIVER_KEYFRAMES && m->driver_keynum[k] == 3);
        double sign = i % 2 ? -1 : 1;
        // closing until 0.5 s, then opening at the same speed until the run's end (1.2 s)
        const double t[4] = {0.25, 0.5, 0.75, 1.2}, want[4] = {0.25, 0.5, 0.25, -0.2};
        for (int j = 0; j < 4; j++) {
            double d[3];
            driverOffset(m, v + 1, t[j], d);
            for (int a = 0; a < 3; a++) ENSURE_NEAR(d[a], a == i / 2 ? sign * want[j] : 0.0, 1e-12);
        }
    }
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_squeeze_out) {
    // DCOSqueezeOut: the top triangle (max y 1) moves down at 0.3 m/s while its top is above
    // bmin + (bmax - bmin) / 3.8 * 0.9 of shape 1 (turned upright: y in [-1, 0]), i.e.
    // -0.7631...: 0.03 m a step (dt 0.1), it moves in steps 0..58 and stops at 5.9 s
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("squeeze.txt",
                                 "script DCOSqueezeOut\ntime 10 0.1\nshapes input 3\n"
                                 "input/tri.obj 0 1 0  0 0 0  1 1 1\n"
                                 "input/tri.obj 0 0 0  90 0 0  1 1 1\n"
                                 "input/tet.msh 5 0 0  0 0 0  1 1 1\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(hasMessage(&s, "squeeze.txt:1: note", "stops at 5.9 s (step 59)"));
    alci_ipc_freeScript(&s);
    ENSURE(res.ndriver == 1 && res.nobstacle == 2);
    alcModel* m = loadImported("squeeze", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
    int top = bodyNamed(m, "s00_tri"), bottom = bodyNamed(m, "s01_tri");
    ENSURE(top >= 0 && bottom >= 0);
    int k = m->vert_driver[m->body_vertadr[top]];
    ENSURE(k >= 0 && m->driver_type[k] == ALC_DRIVER_LINEAR);
    const double* prm = m->driver_param + ALC_DRIVER_NPARAM * k;
    ENSURE_NEAR(prm[ALC_DP_VEL], 0, 1e-15);
    ENSURE_NEAR(prm[ALC_DP_VEL + 1], -0.3, 1e-15);
    ENSURE_NEAR(prm[ALC_DP_END], 5.9, 1e-12);
    double d[3];
    driverOffset(m, m->body_vertadr[top], 8.0, d);
    ENSURE_NEAR(d[1], -0.3 * 5.9, 1e-12);
    // shape 1 stays fixed: an obstacle without motion
    k = m->vert_driver[m->body_vertadr[bottom]];
    ENSURE(k < 0 || m->driver_type[k] == ALC_DRIVER_FIXED);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_push_right_most) {
    // pushRightMost1: of the vertices with x > max x - 1e-3 x range (the bar's x = 1 end), the
    // first in IPC's order (shapes in script order) is pushed at -0.15 m/s along x for the whole
    // run: bar vertex 1; IPC frees the surface shape, alcove keeps it fixed (noted)
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("push.txt",
                                 "script pushRightMost1\nshapes input 2\n"
                                 "input/tri.obj -3 0 0  0 0 0  1 1 1\n"
                                 "input/bar.msh 0 0 0  0 0 0  1 1 1\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(hasMessage(&s, "push.txt:1: note", "leaves 1 surface shape(s) (from shape 0) free"));
    alci_ipc_freeScript(&s);
    ENSURE(res.ndriver == 1);
    alcModel* m = loadImported("push", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
    int b = bodyNamed(m, "s01_bar");
    ENSURE(b >= 0);
    for (int j = 0; j < 8; j++) {
        int v = m->body_vertadr[b] + j, k = m->vert_driver[v];
        ENSURE((k >= 0) == (j == 1));
        if (k < 0) continue;
        ENSURE(m->driver_type[k] == ALC_DRIVER_LINEAR);
        const double* prm = m->driver_param + ALC_DRIVER_NPARAM * k;
        ENSURE_NEAR(prm[ALC_DP_VEL], -0.15, 1e-15);
        ENSURE(isinf(prm[ALC_DP_END]) && isinf(prm[ALC_DP_RELEASE]));
    }
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_stretch_and_pause) {
    // stretchAndPause: vertices within 1% of the x range of either end (the bar at x 0.1 .. 1.1)
    // move apart at 1 m/s; IPC stops them once its turning vertex (the last left one, x 0.1)
    // is below x = -0.28 at the start of a step: steps 0..7 move (dt 0.05), held from 0.4 s
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("stretch.txt",
                                 "script stretchAndPause\ntime 1 0.05\nshapes input 1\n"
                                 "input/bar.msh 0.1 0 0  0 0 0  1 1 1\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(hasMessage(&s, "stretch.txt:1: note", "stop at 0.4 s (step 8)"));
    ENSURE(hasMessage(&s, "stretch.txt:1: note", "vertex 7 of shape 0"));
    alci_ipc_freeScript(&s);
    ENSURE(res.ndriver == 2);
    alcModel* m = loadImported("stretch", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
    int nleft = 0, nright = 0;
    for (int v = 0; v < 8; v++) {
        int k = m->vert_driver[v];
        ENSURE(k >= 0 && m->driver_type[k] == ALC_DRIVER_LINEAR);
        const double* prm = m->driver_param + ALC_DRIVER_NPARAM * k;
        int left = m->vert_x0[3 * v] < 0.5;
        nleft += left;
        nright += !left;
        ENSURE_NEAR(prm[ALC_DP_VEL], left ? -1 : 1, 1e-15);
        ENSURE_NEAR(prm[ALC_DP_END], 0.4, 1e-12);
        double d[3];
        driverOffset(m, v, 0.9, d);
        ENSURE_NEAR(d[0], left ? -0.4 : 0.4, 1e-12);
    }
    ENSURE(nleft == 4 && nright == 4);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_ball_hit_wall) {
    // DCOBallHitWall N V: surface shapes fixed, every simulated vertex starts at V m/s along x;
    // without parameters IPC's default 1000 m/s (noted)
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("ball.txt",
                                 "script DCOBallHitWall 1 5\nturnOffGravity\nshapes input 2\n"
                                 "input/tet.msh 0 0 0  0 0 0  1 1 1\n"
                                 "input/tri.obj 3 0 0  0 0 0  1 1 1\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(s.nparam == 1 && s.param[0] == 5);
    ENSURE(!hasMessage(&s, "warning", NULL) && !hasMessage(&s, "1000", NULL));
    alci_ipc_freeScript(&s);
    ENSURE(res.ndriver == 0 && res.nobstacle == 1);
    alcModel* m = loadImported("ball", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
    int b = bodyNamed(m, "s00_tet");
    for (int j = 0; j < 4; j++) {
        const double* v0 = m->vert_v0 + 3 * (m->body_vertadr[b] + j);
        ENSURE_NEAR(v0[0], 5, 1e-12);
        ENSURE_NEAR(v0[1], 0, 1e-12);
        ENSURE_NEAR(v0[2], 0, 1e-12);
    }
    alc_deleteModel(m);
    st = importScript("ball2.txt",
                      "script DCOBallHitWall\nshapes input 1\ninput/tet.msh 0 0 0  0 0 0  1 1 1\n",
                      &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(hasMessage(&s, "ball2.txt:1: note", "1000 m/s"));
    alci_ipc_freeScript(&s);
    // parameters of other scripts are read and ignored, as IPC does
    st = importScript("param.txt",
                      "script DCOFix 2 1 2\nshapes input 1\ninput/tet.msh 0 0 0  0 0 0  1 1 1\n",
                      &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(s.nparam == 2 && hasMessage(&s, "param.txt:1: note", "takes no parameters"));
    ENSURE(!hasMessage(&s, "warning", NULL));
    alci_ipc_freeScript(&s);
    return ALC_TEST_PASS;
}

ALC_TEST(import_ipc_shape_matrix) {
    // shapeMatrix input NX NY NZ X Y Z: copy (i, j, k) of the next line's shape is translated by
    // (X + i DX, Y + j DY, Z + k DZ), k fastest; each copy is a body with the line's material
    alciIpcScript s;
    alciIpcResult res;
    char err[1024] = "";
    alctStatus st = importScript("matrix.txt",
                                 "script DCOFix\nturnOffGravity\n"
                                 "shapeMatrix input 2 1 3  0.5 0 0\n"
                                 "input/tet.msh 2 9 2  0 0 0  0.5 0.5 0.5  material 500 2e5 0.3\n"
                                 "shapes input 1\ninput/tri.obj 0 -1 0  0 0 0  4 4 4\n",
                                 &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    ENSURE(s.nshape == 7 && s.shape[0].matrixCount == 6 && s.shape[5].matrixIndex == 5);
    ENSURE(s.shape[0].line == 4 && s.shape[6].line == 6);
    ENSURE(!hasMessage(&s, "warning", NULL));
    alci_ipc_freeScript(&s);
    ENSURE(res.nbody == 6 && res.nobstacle == 1);
    alcModel* m = loadImported("matrix", err, sizeof err);
    ENSURE_MSG(m, "%s", err);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 3; k++) {
            char nm[32];
            snprintf(nm, sizeof nm, "s%02d_tet", 3 * i + k);
            int b = bodyNamed(m, nm);
            ENSURE(b >= 0 && m->body_type[b] == ALC_BODY_SOLID);
            const double* x = m->vert_x0 + 3 * m->body_vertadr[b];
            ENSURE_NEAR(x[0], 0.5 + 2 * i, 1e-15);
            ENSURE_NEAR(x[1], 0, 1e-15);
            ENSURE_NEAR(x[2], 2 * k, 1e-15);
            // the second vertex (1, 0, 0) scaled by 0.5
            ENSURE_NEAR(x[3], 1.0 + 2 * i, 1e-15);
            ENSURE_NEAR(m->mat_density[m->body_mat[b]], 500, 1e-9);
        }
    alc_deleteModel(m);
    // codimensional copies are not imported (one warning for the whole matrix), but their
    // vertices count in `size`'s box, as in IPC: segments at x = 0, 2, 4 (length 1) make the
    // extent 5, so size 1 scales by 0.2
    writeFile("input/edge.seg", "v 0 0 0\nv 1 0 0\ns 1 2\n");
    st = importScript("matrix2.txt",
                      "script DCOFix\nsize 1\nshapes input 1\ninput/tet.msh 0 0 0  0 0 0  1 1 1\n"
                      "shapeMatrix input 3 1 1\ninput/edge.seg 2 0 0  0 0 0  1 1 1\n",
                      &s, &res, err, sizeof err);
    ENSURE_MSG(st == ALC_OK, "%s", err);
    int nwarn = 0;
    for (int i = 0; i < s.nmsg; i++) nwarn += strstr(s.msg[i], "codimensional") != NULL;
    ENSURE(nwarn == 1 && hasMessage(&s, "matrix2.txt:6: warning", "every copy"));
    alci_ipc_freeScript(&s);
    ENSURE(res.nbody == 1 && res.nobstacle == 0);
    ENSURE_NEAR(res.scaleFactor, 0.2, 1e-15);
    // a malformed copy line names its line
    st = importScript("matrix3.txt",
                      "shapes input 1\ninput/tet.msh 0 0 0  0 0 0  1 1 1\n"
                      "shapeMatrix input 2 2 2\ninput/tet.msh 1 1\n",
                      &s, &res, err, sizeof err);
    alci_ipc_freeScript(&s);
    ENSURE(st == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "matrix3.txt:4: 'shapeMatrix' expects") != NULL, "%s", err);
    return ALC_TEST_PASS;
}

/// Count the lines of a file (-1 when it cannot be read).
static int countLines(const char* path) {
    FILE* f = fopen(path, "r");
    if (!f) return -1;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF) n += c == '\n';
    fclose(f);
    return n;
}

/// Whether the file at path contains the text.
static int fileHas(const char* path, const char* text) {
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return strstr(buf, text) != NULL;
}

/// The command line of tools/ipc-examples.sh on the folder dir/ipc, example tt, output to out.
static void examplesCmd(char* cmd, size_t n, const char* dir, const char* out, const char* build,
                        const char* opts) {
    snprintf(cmd, n,
             "tools/ipc-examples.sh %s/ipc --out %s --alcove %s/alcove --threads 1 %s tt "
             "> %s/call.txt 2>&1",
             dir, out, build, opts, dir);
}

/// A folder shaped as a checkout of ipc-sim/IPC under DIR/ipc with one script,
/// input/paperExamples/tt.txt: two tetrahedra falling on a half-space for `duration` seconds
/// of steps of 0.025 s. Returns 1 on success.
static int writeCheckout(const char* dir, const char* duration) {
    char sub[512], cmd[600], script[512];
    snprintf(sub, sizeof sub, "%s/ipc/input/tetMeshes", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p %s", sub);
    ENSURE(system(cmd) == 0);
    ENSURE(alct_writeFile(sub, "tet.msh",
                          "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 0.1 0 0\n"
                          "3 0 0.1 0\n4 0 0 0.1\n$EndNodes\n$Elements\n1\n1 4 0 1 2 3 4\n"
                          "$EndElements\n"));
    snprintf(sub, sizeof sub, "%s/ipc/input/paperExamples", dir);
    snprintf(script, sizeof script,
             "energy FCR\nsize 1\ntime %s 0.025\ndensity 1000\nstiffness 1e5 0.4\n"
             "script fall\nshapes input 2\n"
             "input/tetMeshes/tet.msh 0 0.05 0  0 0 0  1 1 1\n"
             "input/tetMeshes/tet.msh 0 0.2 0  0 0 0  1 1 1\n"
             "halfSpace 0 0 0  0 1 0  50 0\nselfCollisionOn\n",
             duration);
    ENSURE(alct_writeFile(sub, "tt.txt", script));
    return 1;
}

ALC_TEST(import_ipc_examplesScriptResume) {
    // tools/ipc-examples.sh on a checkout-shaped folder with one script (two tetrahedra falling
    // on a half-space): a run of 3 steps, then --resume to 6 continues it from its checkpoint
    // (the stats have 6 rows, the row says "6 (all)") with the thread count that call gives
    // (the last --threads of the resumed command in run.json), and a third call with --resume
    // finds it complete and only checks and reports it
    const char* build = getenv("ALC_BUILD");
    if (!build) build = "build";
    const char* dir = alct_tmpDir("ipcex", "ipc/input/paperExamples");
    ENSURE(writeCheckout(dir, "5"));
    char cmd[4096];
    char out[512], table[600], stats[600], log[600];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(table, sizeof table, "%s/table.md", out);
    snprintf(stats, sizeof stats, "%s/runs/tt/stats.csv", out);
    snprintf(log, sizeof log, "%s/runs/tt.log", out);
    examplesCmd(cmd, sizeof cmd, dir, out, build, "--steps 3");
    ENSURE_MSG(system(cmd) == 0, "%s (output in %s/call.txt)", cmd, dir);
    ENSURE_MSG(fileHas(table, "| tt | 2 | 3 (all) |"), "table %s", table);
    ENSURE(countLines(stats) == 4);
    examplesCmd(cmd, sizeof cmd, dir, out, build, "--resume --steps 6 --threads 2");
    ENSURE_MSG(system(cmd) == 0, "%s (output in %s/call.txt)", cmd, dir);
    ENSURE_MSG(fileHas(table, "| tt | 2 | 6 (all) |"), "table %s", table);
    ENSURE(countLines(stats) == 7);
    char runJson[600];
    snprintf(runJson, sizeof runJson, "%s/runs/tt/run.json", out);
    ENSURE_MSG(fileHas(runJson, "\"--threads\", \"2\"]"), "run.json %s", runJson);
    ENSURE_MSG(fileHas(log, "resumed from the checkpoint at step 3"), "log %s", log);
    int logLines = countLines(log);
    examplesCmd(cmd, sizeof cmd, dir, out, build, "--resume --steps 6");
    ENSURE_MSG(system(cmd) == 0, "%s (output in %s/call.txt)", cmd, dir);
    ENSURE(fileHas(table, "| tt | 2 | 6 (all) | "));
    ENSURE(countLines(stats) == 7 && countLines(log) == logLines);
    return ALC_TEST_PASS;
}

/// tools/gpu-runs.sh, which prepares the long runs a lent GPU machine takes, on a one-script
/// checkout (GPU_RUNS_QUEUE in place of the IPC examples): `import` writes one scene per queue
/// entry with each variant's solver key, refuses an unknown variant and a folder that is not a
/// checkout; `list` tells a run not started from one with a checkpoint; `take` puts the runs of
/// an acceptance snapshot back where the next call goes on, and refuses a snapshot without them.
ALC_TEST(import_ipc_gpuRunsQueue) {
    const char* build = getenv("ALC_BUILD");
    if (!build) build = "build";
    const char* dir = alct_tmpDir("gpuruns", "ipc/input/paperExamples");
    ENSURE(writeCheckout(dir, "0.125"));  // 5 steps
    char cmd[4096], path[600];
    const char* tool = "tools/gpu-runs.sh";
    snprintf(cmd, sizeof cmd,
             "rm -rf %s/runs && GPU_RUNS_QUEUE='tt:abs+sa10+rs tt:guards' ALCOVE=%s/alcove %s import "
             "%s/ipc %s/runs > %s/import.txt 2>&1",
             dir, build, tool, dir, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "%s", cmd);
    const char* names[2] = {"01_tt_abs_sa10_rs", "02_tt_guards"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/runs/%s.yaml", dir, names[k]);
        alcModel* m = NULL;
        char err[512] = "";
        ENSURE_MSG(alc_loadScene(path, NULL, &m, err, sizeof err) == ALC_OK, "%s: %s", path, err);
        if (k == 0) {
            ENSURE(m->opt.eigenFilter == ALC_EIGEN_ABS && m->opt.splitAfter == 10 &&
                   m->opt.restartAlpha == 0.01 && m->opt.tetGuards == 0);
        } else {
            ENSURE(m->opt.eigenFilter != ALC_EIGEN_ABS && m->opt.splitAfter == 100 &&
                   m->opt.restartAlpha < 0 && m->opt.tetGuards == 64);
        }
        alc_deleteModel(m);
    }
    // an unknown variant, and a folder that is not a checkout: refused with the reason
    snprintf(cmd, sizeof cmd,
             "GPU_RUNS_QUEUE='tt:bogus' ALCOVE=%s/alcove %s import %s/ipc %s/bad > %s/bad.txt "
             "2>&1; [ $? -eq 2 ] && grep -q \"unknown variant 'bogus'\" %s/bad.txt && "
             "%s import %s %s/bad > %s/bad2.txt 2>&1; [ $? -eq 2 ] && "
             "grep -q 'is not a checkout of ipc-sim/IPC' %s/bad2.txt",
             build, tool, dir, dir, dir, dir, tool, dir, dir, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "refusals (%s/bad.txt, %s/bad2.txt)", dir, dir);
    // list before and after a run of 3 of the 5 steps; then take a snapshot of that run back
    snprintf(cmd, sizeof cmd,
             "%s list %s/runs > %s/list0.txt && grep -qx '01_tt_abs_sa10_rs: not started' "
             "%s/list0.txt && grep -qx '02_tt_guards: not started' %s/list0.txt && "
             "%s/alcove run %s/runs/01_tt_abs_sa10_rs.yaml --steps 3 --every 1 --frames none "
             "--threads 1 -q --out %s/runs/out/01_tt_abs_sa10_rs && "
             "%s list %s/runs > %s/list1.txt && "
             "grep -qx '01_tt_abs_sa10_rs: checkpoint at step 3 of 5; not checked' %s/list1.txt",
             tool, dir, dir, dir, dir, build, dir, dir, tool, dir, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "list (%s/list0.txt, %s/list1.txt)", dir, dir);
    snprintf(cmd, sizeof cmd,
             "cd %s && rm -rf snap && mkdir -p snap/runs && cp -r runs/out/01_tt_abs_sa10_rs "
             "snap/runs/ && tar czf snap.tgz -C snap runs && tar czf empty.tgz -C snap/runs . && "
             "rm -rf runs/out/01_tt_abs_sa10_rs",
             dir);
    ENSURE_MSG(system(cmd) == 0, "%s", cmd);
    snprintf(cmd, sizeof cmd,
             "%s take %s/snap.tgz %s/runs > %s/take.txt 2>&1 && "
             "grep -qx '%s/runs/out/01_tt_abs_sa10_rs: checkpoint at step 3' %s/take.txt && "
             "[ -f %s/runs/out/01_tt_abs_sa10_rs/checkpoint.alck ] && "
             "%s take %s/empty.tgz %s/runs > %s/take2.txt 2>&1; [ $? -eq 1 ] && "
             "grep -q 'holds no runs/ folder' %s/take2.txt",
             tool, dir, dir, dir, dir, dir, dir, tool, dir, dir, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "take (%s/take.txt, %s/take2.txt)", dir, dir);
    return ALC_TEST_PASS;
}

/// tools/ipc-line.sh, which carries a run longer than a session in a line folder: on a one-script
/// checkout (6 steps), a call to step 3 writes the line's checkpoint, statistics, arguments and
/// a sessions.csv row (0 to 3, clean) and says the checkpoint's size; a second call on a new
/// work folder (a new machine) goes on from the line's checkpoint to the end, bit for bit (step
/// 6's state is the one a run without a stop writes); a third finds the line complete and
/// changes nothing. --save writes back a run started by hand in the work folder, and a line
/// folder without scene.yaml is refused.
ALC_TEST(import_ipc_lineCarriesRun) {
    const char* build = getenv("ALC_BUILD");
    if (!build) build = "build";
    const char* dir = alct_tmpDir("ipcline", "ipc/input/paperExamples");
    ENSURE(writeCheckout(dir, "0.15"));  // 6 steps
    char cmd[4096], path[600], sessions[600];
    const char* tool = "tools/ipc-line.sh";
    snprintf(cmd, sizeof cmd,
             "%s/alcove import-ipc %s/ipc/input/paperExamples/tt.txt --ipc-root %s/ipc --out "
             "%s/imp -q && cd %s && rm -rf line line2 w1 w2 w3 straight && mkdir -p line/tt "
             "line2/tt && cp imp/tt.yaml line/tt/scene.yaml && cp imp/tt.yaml line2/tt/scene.yaml",
             build, dir, dir, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "%s", cmd);
    snprintf(sessions, sizeof sessions, "%s/line/tt/sessions.csv", dir);
    snprintf(cmd, sizeof cmd,
             "%s %s/ipc %s/line/tt --work %s/w1 --until 3 --threads 1 --alcove %s/alcove "
             "> %s/call1.txt 2>&1",
             tool, dir, dir, dir, build, dir);
    ENSURE_MSG(system(cmd) == 0, "%s (output in %s/call1.txt)", cmd, dir);
    snprintf(path, sizeof path, "%s/line/tt/stats.csv", dir);
    ENSURE(countLines(path) == 4 && countLines(sessions) == 2);
    ENSURE_MSG(fileHas(sessions, ",0,3,") && fileHas(sessions, ",clean\n"), "%s", sessions);
    snprintf(path, sizeof path, "%s/call1.txt", dir);
    ENSURE_MSG(fileHas(path, "(checkpoint 0.0 MB)\n"), "%s: the checkpoint's size not said", path);
    snprintf(path, sizeof path, "%s/line/tt/checkpoint.alck", dir);
    FILE* f = fopen(path, "rb");
    ENSURE_MSG(f != NULL, "%s", path);
    fclose(f);
    // a new work folder: everything comes from the line folder
    snprintf(cmd, sizeof cmd,
             "%s %s/ipc %s/line/tt --work %s/w2 --threads 2 --alcove %s/alcove > %s/call2.txt 2>&1",
             tool, dir, dir, dir, build, dir);
    ENSURE_MSG(system(cmd) == 0, "%s (output in %s/call2.txt)", cmd, dir);
    snprintf(path, sizeof path, "%s/line/tt/stats.csv", dir);
    ENSURE(countLines(path) == 7 && countLines(sessions) == 3);
    ENSURE_MSG(fileHas(sessions, ",2,") && fileHas(sessions, ",3,6,"), "%s", sessions);
    snprintf(path, sizeof path, "%s/w2/runs/tt.log", dir);
    ENSURE_MSG(fileHas(path, "resumed from the checkpoint at step 3"), "%s", path);
    snprintf(cmd, sizeof cmd,
             "%s/alcove run %s/imp/tt.yaml --out %s/straight --frames none --steps 6 -q "
             "--threads 1 && cmp %s/straight/states/state_000006.alcs "
             "%s/w2/runs/tt/states/state_000006.alcs",
             build, dir, dir, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "%s", cmd);
    // complete: nothing runs, nothing is added
    snprintf(cmd, sizeof cmd,
             "%s %s/ipc %s/line/tt --work %s/w2 --alcove %s/alcove > %s/call3.txt 2>&1 && "
             "grep -q 'at step 6 of 6: nothing to run' %s/call3.txt",
             tool, dir, dir, dir, build, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "%s (output in %s/call3.txt)", cmd, dir);
    ENSURE(countLines(sessions) == 3);
    // --save: a run started by hand in the work folder, written back to a new line
    snprintf(cmd, sizeof cmd,
             "%s/alcove run %s/imp/tt.yaml --out %s/w3/runs/tt --frames none --steps 2 -q "
             "--threads 1 && %s %s/ipc %s/line2/tt --work %s/w3 --save --alcove %s/alcove "
             "> %s/save.txt 2>&1 && [ $(wc -l < %s/line2/tt/stats.csv) -eq 3 ] && "
             "grep -q ',0,2,' %s/line2/tt/sessions.csv",
             build, dir, dir, tool, dir, dir, dir, build, dir, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "%s (output in %s/save.txt)", cmd, dir);
    // a line folder without its scene
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/line3/tt && %s %s/ipc %s/line3/tt --work %s/w3 --alcove %s/alcove "
             "> %s/bad.txt 2>&1; [ $? -eq 2 ] && grep -q 'scene.yaml not found' %s/bad.txt",
             dir, tool, dir, dir, dir, build, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "refusal (%s/bad.txt)", dir);
    return ALC_TEST_PASS;
}
