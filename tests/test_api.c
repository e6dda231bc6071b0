// Public API: the README's hello world, defs, versions, backends, errors, NULL safety.
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/// One soft tetrahedron above a fixed square: the README hello world, built in code.
static alcModel* helloModel(void) {
    alcSpec* spec = NULL;
    if (alc_makeSpec(&spec) != ALC_OK) return NULL;
    alcMaterialDef mat = alc_defaultMaterialDef();
    mat.name = "rubber";
    int rubber = -1;
    alc_specAddMaterial(spec, &mat, &rubber);
    static const double tetVert[] = {0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1};
    static const int tetIdx[] = {0, 1, 2, 3};
    alcBodyDef body = alc_defaultBodyDef();
    body.name = "tet";
    body.material = rubber;
    body.nvert = 4;
    body.vert = tetVert;
    body.ntet = 1;
    body.tet = tetIdx;
    body.position[1] = 0.2;
    alc_specAddBody(spec, &body, NULL);
    static const double quadVert[] = {-0.5, 0, -0.5, 0.5, 0, -0.5, 0.5, 0, 0.5, -0.5, 0, 0.5};
    static const int quadTri[] = {0, 2, 1, 0, 3, 2};
    alcBodyDef ground = alc_defaultBodyDef();
    ground.name = "ground";
    ground.type = ALC_BODY_OBSTACLE;
    ground.nvert = 4;
    ground.vert = quadVert;
    ground.ntri = 2;
    ground.tri = quadTri;
    alc_specAddBody(spec, &ground, NULL);
    alcModel* m = NULL;
    alc_compileSpec(spec, &m, NULL, 0);
    alc_deleteSpec(spec);
    return m;
}

/// Data and a reference-backend sim for m (both NULL-initialized by the caller).
static alctStatus makeRefSim(const alcModel* m, alcData** d, alcSim** sim) {
    alctStatus st = alc_makeData(m, d);
    if (st != ALC_OK) return st;
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    return alc_makeSim(m, &def, sim);
}

ALC_TEST(api_helloWorld) {
    alcModel* m = helloModel();
    ENSURE(m);
    ENSURE(m->nbody == 2 && m->ntet == 1 && m->nvert == 8);
    ENSURE(m->ntri == 4 + 2);
    alcData* d = NULL;
    alcSim* sim = NULL;
    ENSURE_OK(makeRefSim(m, &d, &sim));
    ENSURE(alc_simBackend(sim) == ALC_BACKEND_REF);
    for (int i = 0; i < 50; i++) ENSURE_OK(alc_step(sim, d));
    ENSURE_NEAR(d->time, 0.5, 1e-12);
    ENSURE(d->step == 50 && d->run.steps == 50);
    double low = 1e300;
    for (int v = 0; v < 4; v++) low = fmin(low, d->x[3 * v + 1]);
    alct_note("lowest point after 0.5 s: %.6f m (contact offset delta = %g m)", low, m->opt.delta);
    // it fell 0.2 m, landed and rests on the ground, about delta above it
    ENSURE(low > 0 && low < 3 * m->opt.delta);
    // the ground did not move
    for (int v = 4; v < 8; v++) ENSURE(d->x[3 * v + 1] == 0);
    const alcContact* c = NULL;
    int nc = 0;
    ENSURE_OK(alc_getContacts(sim, &c, &nc));
    ENSURE(nc > 0);
    // at rest the contact forces carry the weight: m g upward on the tetrahedron
    double weight = 0;
    for (int v = 0; v < 4; v++) weight += m->vert_mass[v] * 9.81;
    alct_note("contact force on the tet %.5g N, weight %.5g N", d->body_force[1], weight);
    ENSURE(fabs(d->body_force[1] - weight) < 0.05 * weight);
    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(api_contactReportIpc) {
    // the same tetrahedron under the IPC model: the contact report holds its barrier
    // constraints at the step's end, with forces that carry the weight at rest, normals up on
    // the tetrahedron's side and distances within dhat
    alcModel* m = helloModel();
    ENSURE(m);
    m->opt.contact = ALC_CONTACT_IPC;
    alcData* d = NULL;
    alcSim* sim = NULL;
    ENSURE_OK(makeRefSim(m, &d, &sim));
    for (int i = 0; i < 100; i++) ENSURE_OK(alc_step(sim, d));
    const alcContact* c = NULL;
    int nc = 0;
    ENSURE_OK(alc_getContacts(sim, &c, &nc));
    double weight = 0, sum = 0, dmax = 0, upMin = 1;
    for (int v = 0; v < 4; v++) weight += m->vert_mass[v] * 9.81;
    for (int i = 0; i < nc; i++) {
        // side 0 is the tetrahedron (body 0): its vertex over a ground triangle, or its edge
        int side0 = c[i].body[0] == 0 ? 1 : -1;
        sum += c[i].normalForce * c[i].normal[1] * side0;
        dmax = fmax(dmax, c[i].distance);
        upMin = fmin(upMin, c[i].normal[1] * side0);
        ENSURE(c[i].normalForce >= 0 && c[i].body[0] != c[i].body[1]);
    }
    double dhat = d->stat.delta;  // the IPC model reports its dhat there
    alct_note(
        "%d barrier contacts, normal forces summing to %.5g N up on the tet (weight %.5g "
        "N), body force %.5g N, largest distance %.3e m (dhat %.3e m), smallest upward "
        "normal component %.3f",
        nc, sum, weight, d->body_force[1], dmax, dhat, upMin);
    ENSURE(nc > 0);
    ENSURE(fabs(d->body_force[1] - weight) < 0.05 * weight);
    ENSURE(fabs(sum - weight) < 0.05 * weight);
    ENSURE(dmax < dhat && upMin > 0.99);
    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(api_exampleProgram) {
    const char* build = getenv("ALC_BUILD");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s/hello > /tmp/alc_hello_%d.txt 2>&1", build ? build : "build",
             (int)getpid());
    int rc = system(cmd);
    char path[256];
    snprintf(path, sizeof path, "/tmp/alc_hello_%d.txt", (int)getpid());
    FILE* f = fopen(path, "r");
    ENSURE_MSG(f, "cannot read the output of %s", cmd);
    char buf[2048];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    remove(path);
    ENSURE_MSG(rc == 0, "build/hello exited with %d: %s", rc, buf);
    ENSURE(strstr(buf, "lowest point of 'tet'"));
    alct_note("%s", strchr(buf, '\n') ? strchr(buf, '\n') + 1 : buf);
    return ALC_TEST_PASS;
}

/// `make install PREFIX=...` gives headers, libraries and alcove.pc with which the example
/// program builds and runs from nothing but pkg-config's line, linked against the shared
/// library and, with --static and only the archive installed, against libalcove.a (issue 19,
/// item 6). Skipped without pkg-config.
ALC_TEST(api_installAndPkgConfig) {
    if (system("pkg-config --version >/dev/null 2>&1") != 0) {
        alct_skipReason("pkg-config not installed");
        return ALC_TEST_SKIP;
    }
    const char* dir = alct_tmpDir("install", NULL);
    const char* build = getenv("ALC_BUILD");
    char cmd[8192];
    snprintf(
        cmd, sizeof cmd,
        "make --no-print-directory -s -C '%s' install BUILD='%s' PREFIX='%s/usr' >'%s/make.txt' "
        "2>&1",
        alct_rootDir(), build ? build : "build", dir, dir);
    ENSURE_MSG(system(cmd) == 0, "make install failed (%s/make.txt)", dir);
    for (int st = 0; st < 2; st++) {
        if (st) {  // only the archive: pkg-config --static must bring every dependency
            snprintf(cmd, sizeof cmd, "rm '%s/usr/lib/libalcove.so'", dir);
            ENSURE(system(cmd) == 0);
        }
        snprintf(cmd, sizeof cmd,
                 "export PKG_CONFIG_PATH='%s/usr/lib/pkgconfig' && cc '%s/examples/hello.c' "
                 "$(pkg-config --cflags %s --libs alcove) -o '%s/hello' && '%s/hello' > "
                 "'%s/out.txt' 2>&1",
                 dir, alct_rootDir(), st ? "--static" : "", dir, dir, dir);
        int rc = system(cmd);
        char path[1200], buf[2048] = "";
        snprintf(path, sizeof path, "%s/out.txt", dir);
        FILE* f = fopen(path, "r");
        if (f) {
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            buf[n] = 0;
            fclose(f);
        }
        ENSURE_MSG(rc == 0 && strstr(buf, "lowest point of 'tet'"), "%s link: %s",
                   st ? "static" : "shared", buf);
    }
    return ALC_TEST_PASS;
}

/// A driver commanded by velocity (issue 19, item 5): the ground of the hello model driven at
/// 0.5 m/s along x while turning at 1 rad/s about y for 10 steps ends where integrating that
/// twist from its initial pose puts it (exactly: obstacles are kinematic); handed back to its
/// script (fixed), it returns to its initial pose at the next step.
ALC_TEST(api_driverVelocity) {
    alcModel* m = helloModel();
    ENSURE(m);
    int k = alc_driverIndex(m, "ground-fixed");
    ENSURE(k >= 0);
    alcData* d = NULL;
    alcSim* sim = NULL;
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    ENSURE_OK(alc_makeData(m, &d));
    ENSURE_OK(alc_makeSim(m, &def, &sim));
    const double v[3] = {0.5, 0, 0}, w[3] = {0, 1, 0};
    double h = m->opt.timestep;
    int steps = 10;
    for (int s = 0; s < steps; s++) {
        ENSURE_OK(alc_setDriverVelocity(m, d, k, v, w, h));
        ENSURE_OK(alc_step(sim, d));
    }
    ENSURE(d->driver_external[k] == 1);
    // expected: the initial centroid moved by v t, every vertex turned by |w| t about y
    double c0[3] = {0, 0, 0};
    int n = 0;
    for (int i = 0; i < m->nvert; i++) {
        if (m->vert_driver[i] != k) continue;
        for (int j = 0; j < 3; j++) c0[j] += m->vert_x0[3 * i + j];
        n++;
    }
    ENSURE(n > 0);
    for (int j = 0; j < 3; j++) c0[j] /= n;
    double t = steps * h, a = t * w[1], worst = 0;
    for (int i = 0; i < m->nvert; i++) {
        if (m->vert_driver[i] != k) continue;
        double r[3] = {m->vert_x0[3 * i] - c0[0], m->vert_x0[3 * i + 1] - c0[1],
                       m->vert_x0[3 * i + 2] - c0[2]};
        // rotation about +y by a: x' = x cos a + z sin a, z' = -x sin a + z cos a
        double e[3] = {c0[0] + v[0] * t + r[0] * cos(a) + r[2] * sin(a), c0[1] + r[1],
                       c0[2] - r[0] * sin(a) + r[2] * cos(a)};
        for (int j = 0; j < 3; j++) worst = fmax(worst, fabs(d->x[3 * i + j] - e[j]));
    }
    alct_note("ground after %d steps: largest deviation from the commanded twist %.2e m", steps,
              worst);
    ENSURE(worst < 1e-12);
    // handed back to its fixed script: back at the initial pose after one step
    d->driver_external[k] = 0;
    ENSURE_OK(alc_step(sim, d));
    for (int i = 0; i < m->nvert; i++) {
        if (m->vert_driver[i] != k) continue;
        for (int j = 0; j < 3; j++) ENSURE_NEAR(d->x[3 * i + j], m->vert_x0[3 * i + j], 1e-12);
    }
    ENSURE(alc_setDriverVelocity(m, d, k, v, NULL, 0) == ALC_ERR_INVALID_ARG);
    ENSURE(alc_setDriverVelocity(m, d, 99, v, NULL, h) == ALC_ERR_INVALID_ARG);
    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(api_defsAndVersions) {
    alcModel* m = helloModel();
    ENSURE(m);
    alcSim* sim = NULL;
    // a zero-initialized def is refused with ALC_ERR_BAD_DEF and a message
    alcSimDef zero;
    memset(&zero, 0, sizeof zero);
    ENSURE(alc_makeSim(m, &zero, &sim) == ALC_ERR_BAD_DEF);
    ENSURE(strstr(alc_lastError(sim), "alc_defaultSimDef"));
    alc_deleteSim(sim);
    // a def stamped by another header version is refused with ALC_ERR_VERSION
    alcSimDef def = alc_defaultSimDef();
    def.internalValue ^= (ALC_VERSION_HEADER ^ (ALC_VERSION_HEADER + 1)) << 8;
    ENSURE(alc_makeSim(m, &def, &sim) == ALC_ERR_VERSION);
    alc_deleteSim(sim);
    ENSURE(alcu_version() == ALC_VERSION_HEADER);
    ENSURE(!strcmp(alcu_statusString(ALC_ERR_SCENE), "ALC_ERR_SCENE"));
    ENSURE(!strcmp(alcu_statusString((alctStatus)999), "unknown status"));
    ENSURE(!strcmp(alcu_warningString(ALC_WARN_PCG_MAXITER), "ALC_WARN_PCG_MAXITER"));
    // unstamped spec defs
    alcSpec* spec = NULL;
    ENSURE_OK(alc_makeSpec(&spec));
    alcMaterialDef md;
    memset(&md, 0, sizeof md);
    ENSURE(alc_specAddMaterial(spec, &md, NULL) == ALC_ERR_BAD_DEF);
    alcBodyDef bd;
    memset(&bd, 0, sizeof bd);
    ENSURE(alc_specAddBody(spec, &bd, NULL) == ALC_ERR_BAD_DEF);
    alc_deleteSpec(spec);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(api_cudaBackendError) {
    alcModel* m = helloModel();
    ENSURE(m);
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_CUDA;
    alcSim* sim = NULL;
    alctStatus s = alc_makeSim(m, &def, &sim);
    if (alcu_cudaAvailable()) {
        alct_note("a CUDA device is present: %s", alcu_statusString(s));
    } else {
        // no device (or a build without CUDA): a clear error, not a crash
        ENSURE(s == ALC_ERR_NO_DEVICE || s == ALC_ERR_UNSUPPORTED);
        ENSURE(strstr(alc_lastError(sim), "cuda") || strstr(alc_lastError(sim), "CUDA"));
        alct_note("%s: %s", alcu_statusString(s), alc_lastError(sim));
    }
    alc_deleteSim(sim);
    // no device described where none is usable; buf is "" then, and n = 0 writes nothing
    char desc[160] = "x";
    int described = alcu_cudaDescribe(0, desc, sizeof desc);
    if (!alcu_cudaAvailable()) ENSURE(described == 0 && desc[0] == 0);
    ENSURE(alcu_cudaDescribe(0, desc, 0) == 0);
    ENSURE(alcu_cudaDescribe(-1, desc, sizeof desc) == 0 && desc[0] == 0);
    // auto falls back to the reference backend, which names no device
    def.backend = ALC_BACKEND_AUTO;
    ENSURE_OK(alc_makeSim(m, &def, &sim));
    if (!alcu_cudaAvailable()) ENSURE(alc_simBackend(sim) == ALC_BACKEND_REF);
    if (alc_simBackend(sim) == ALC_BACKEND_REF) ENSURE(alc_simDeviceName(sim)[0] == 0);
    ENSURE(alc_simDeviceName(NULL)[0] == 0);
    alc_deleteSim(sim);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(api_badStateAndNullSafety) {
    alc_deleteSim(NULL);
    alc_deleteData(NULL);
    alc_deleteModel(NULL);
    alc_deleteSpec(NULL);
    ENSURE(alc_step(NULL, NULL) == ALC_ERR_INVALID_ARG);
    ENSURE(alc_loadScene(NULL, NULL, NULL, NULL, 0) == ALC_ERR_INVALID_ARG);
    alcModel* m = helloModel();
    ENSURE(m);
    alcData* d = NULL;
    ENSURE_OK(alc_makeData(m, &d));
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    alcSim* sim = NULL;
    ENSURE_OK(alc_makeSim(m, &def, &sim));
    ENSURE(alc_step(sim, NULL) == ALC_ERR_INVALID_ARG);
    // a NaN in the state: the step is refused, counted, and nothing moves
    d->x[4] = NAN;
    ENSURE(alc_step(sim, d) == ALC_ERR_NUMERIC);
    ENSURE(d->warning[ALC_WARN_BAD_STATE].count == 1);
    ENSURE(d->warning[ALC_WARN_BAD_STATE].lastinfo == 1);
    ENSURE(d->step == 0);
    ENSURE(strstr(alc_lastError(sim), "vertex 1"));
    alc_resetData(m, d);
    ENSURE(d->warning[ALC_WARN_BAD_STATE].count == 0);
    ENSURE_OK(alc_step(sim, d));
    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

ALC_TEST(api_specErrors) {
    alcSpec* spec = NULL;
    ENSURE_OK(alc_makeSpec(&spec));
    alcMaterialDef md = alc_defaultMaterialDef();
    md.poisson = 0.5;
    ENSURE(alc_specAddMaterial(spec, &md, NULL) == ALC_ERR_INVALID_ARG);
    ENSURE(strstr(alc_specError(spec), "Poisson"));
    md.poisson = 0.3;
    md.young = -1;
    ENSURE(alc_specAddMaterial(spec, &md, NULL) == ALC_ERR_INVALID_ARG);
    ENSURE(strstr(alc_specError(spec), "Young"));
    md.young = 1e5;
    ENSURE_OK(alc_specAddMaterial(spec, &md, NULL));
    // an inverted tetrahedron beside a positive one (a fold; a mesh whose tetrahedra are all
    // negative is turned over instead) is rejected at compile with the body named
    static const double v[] = {0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1, 0.1, 0.1, 0.1};
    static const int inverted[] = {0, 1, 2, 3, 1, 3, 2, 4};
    alcBodyDef bd = alc_defaultBodyDef();
    bd.name = "flipped";
    bd.nvert = 5;
    bd.vert = v;
    bd.ntet = 2;
    bd.tet = inverted;
    ENSURE_OK(alc_specAddBody(spec, &bd, NULL));
    alcModel* m = NULL;
    char err[512] = "";
    ENSURE(alc_compileSpec(spec, &m, err, sizeof err) == ALC_ERR_SCENE);
    alct_note("%s", err);
    ENSURE(strstr(err, "flipped") && strstr(err, "inverted"));
    ENSURE(m == NULL);
    alc_deleteSpec(spec);
    // an index out of range
    ENSURE_OK(alc_makeSpec(&spec));
    static const int outOfRange[] = {0, 1, 2, 7};
    bd.name = "broken";
    bd.ntet = 1;
    bd.tet = outOfRange;
    ENSURE_OK(alc_specAddBody(spec, &bd, NULL));
    ENSURE(alc_compileSpec(spec, &m, err, sizeof err) == ALC_ERR_SCENE);
    alct_note("%s", err);
    ENSURE(strstr(err, "broken") && strstr(err, "7"));
    // a driver vertex out of range
    alcDriverDef dd = alc_defaultDriverDef();
    int bad = 10;
    ENSURE(alc_specAddDriver(spec, &dd, 0, 1, &bad, NULL) == ALC_ERR_INVALID_ARG);
    ENSURE(strstr(alc_specError(spec), "out of range"));
    alc_deleteSpec(spec);
    return ALC_TEST_PASS;
}

ALC_TEST(api_driverPose) {
    alcModel* m = helloModel();
    ENSURE(m);
    // the ground obstacle got an implicit fixed driver
    int k = alc_driverIndex(m, "ground-fixed");
    ENSURE(k >= 0);
    alcData* d = NULL;
    ENSURE_OK(alc_makeData(m, &d));
    const double up[3] = {0, 0.01, 0};
    ENSURE_OK(alc_setDriverPose(m, d, k, up, NULL));
    ENSURE(d->driver_external[k] == 1);
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    alcSim* sim = NULL;
    ENSURE_OK(alc_makeSim(m, &def, &sim));
    ENSURE_OK(alc_step(sim, d));
    // the externally driven ground reached its target
    for (int v = 4; v < 8; v++) ENSURE_NEAR(d->x[3 * v + 1], 0.01, 1e-12);
    ENSURE(alc_setDriverPose(m, d, 99, up, NULL) == ALC_ERR_INVALID_ARG);
    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

/// One library that loads everywhere (issue 19, item 6): libalcove.so does not depend on the
/// CUDA runtime (the CUDA backend is libalcove_cuda.so, opened at run time); a program linked
/// to it runs the reference backend where that object cannot be loaded, and asking for the
/// CUDA backend then says why; with the object beside it the CUDA backend loads and reports the
/// device situation itself (here: no device). Skipped in a CPU-only build (CUDA=0).
ALC_TEST(api_sharedLibraryWithoutCudaRuntime) {
    const char* build = getenv("ALC_BUILD");
    char lib[4096], real[4096];
    snprintf(lib, sizeof lib, "%s", build ? build : "build");
    if (realpath(lib, real)) snprintf(lib, sizeof lib, "%s", real);
    char cmd[16384], path[4200];
    snprintf(path, sizeof path, "%s/libalcove_cuda.so", lib);
    if (access(path, R_OK) != 0) {
        alct_skipReason("a CPU-only build (CUDA=0): no CUDA backend object");
        return ALC_TEST_SKIP;
    }
    // no CUDA library among the shared library's dependencies
    snprintf(cmd, sizeof cmd,
             "readelf -d '%s/libalcove.so' | grep NEEDED | grep -qiE 'cuda|cublas|cusparse'", lib);
    ENSURE_MSG(system(cmd) != 0, "libalcove.so needs a CUDA library (readelf -d)");
    snprintf(cmd, sizeof cmd, "readelf -d '%s/libalcove_cuda.so' | grep NEEDED | grep -q cudart",
             lib);
    ENSURE_MSG(system(cmd) == 0, "libalcove_cuda.so does not link the CUDA runtime");
    // a program that asks for the CUDA backend, then steps on the reference one
    const char* dir = alct_tmpDir("plugin", NULL);
    char src[4096];
    snprintf(src, sizeof src,
             "#include <alc/alc.h>\n#include <stdio.h>\n"
             "int main(void) {\n"
             "    alcModel* m = NULL; char err[512];\n"
             "    if (alc_loadScene(\"%s/scenes/box_drop.yaml\", NULL, &m, err, sizeof err)) "
             "return 3;\n"
             "    alcData* d = NULL; alc_makeData(m, &d);\n"
             "    alcSimDef def = alc_defaultSimDef(); def.backend = ALC_BACKEND_CUDA;\n"
             "    alcSim* sim = NULL; alctStatus s = alc_makeSim(m, &def, &sim);\n"
             "    printf(\"cuda: %%s: %%s\\n\", alcu_statusString(s), alc_lastError(sim));\n"
             "    alc_deleteSim(sim); sim = NULL;\n"
             "    def.backend = ALC_BACKEND_AUTO;\n"
             "    if (alc_makeSim(m, &def, &sim)) return 4;\n"
             "    for (int i = 0; i < 3; i++) if (alc_step(sim, d)) return 5;\n"
             "    printf(\"auto: %%s, 3 steps\\n\", alc_simBackendName(sim));\n"
             "    alc_deleteSim(sim); alc_deleteData(d); alc_deleteModel(m); return 0;\n}\n",
             alct_rootDir());
    ENSURE(alct_writeFile(dir, "probe.c", src));
    snprintf(cmd, sizeof cmd,
             "cc '%s/probe.c' -I'%s/include' -L'%s' -Wl,-rpath,'%s' -lalcove -o '%s/probe'", dir,
             alct_rootDir(), lib, lib, dir);
    ENSURE_MSG(system(cmd) == 0, "cannot build the probe (%s)", cmd);
    // without the CUDA backend object: the reference backend, and the reason for cuda
    snprintf(cmd, sizeof cmd,
             "ALC_CUDA_PLUGIN=/nonexistent/libalcove_cuda.so '%s/probe' > '%s/none.txt' 2>&1 && "
             "grep -q 'cuda: ALC_ERR_NO_DEVICE: .*could not be loaded' '%s/none.txt' && "
             "grep -q 'auto: ref, 3 steps' '%s/none.txt'",
             dir, dir, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "without the CUDA object (%s/none.txt)", dir);
    // with it: it loads, and the device check is its own (no GPU on this machine)
    snprintf(cmd, sizeof cmd,
             "'%s/probe' > '%s/with.txt' 2>&1 && ! grep -q 'could not be loaded' '%s/with.txt' && "
             "grep -q 'auto: ' '%s/with.txt'",
             dir, dir, dir, dir);
    ENSURE_MSG(system(cmd) == 0, "with the CUDA object (%s/with.txt)", dir);
    snprintf(path, sizeof path, "%s/with.txt", dir);
    FILE* f = fopen(path, "r");
    char line[1024] = "";
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = 0;
        fclose(f);
    }
    alct_note("with libalcove_cuda.so: %s", line);
    return ALC_TEST_PASS;
}

/// The robotics example (issue 19, item 9), built by `make` against the shared library: two
/// kinematic fingers commanded by velocity close on a soft cube, lift it 5 cm and hold it with
/// friction 0.5, and let it slip out with friction 0.03 (the Coulomb bound: each finger presses
/// with about 14 N on a cube of 1.23 N, so it holds above mu = 0.042). The same with rigid
/// fingers (issue 17: each finger one rigid body driven by its pose).
ALC_SLOW_TEST(api_graspExample) {
    const char* build = getenv("ALC_BUILD");
    const char* dir = alct_tmpDir("grasp", NULL);
    for (int rigid = 0; rigid < 2; rigid++) {
        const char* kind = rigid ? "rigid" : "elastic";
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "%s/grasp 0.5 1.6 0.5 0 0 %d > %s/held_%s.txt 2>&1",
                 build ? build : "build", rigid, dir, kind);
        int rc = system(cmd);
        snprintf(cmd, sizeof cmd, "grep -q '^held: cube 5[0-9].[0-9] mm above' %s/held_%s.txt", dir,
                 kind);
        ENSURE_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 0 && system(cmd) == 0,
                   "mu 0.5 (%s/held_%s.txt)", dir, kind);
        snprintf(cmd, sizeof cmd, "%s/grasp 0.03 1.6 0.5 0 0 %d > %s/slip_%s.txt 2>&1",
                 build ? build : "build", rigid, dir, kind);
        rc = system(cmd);
        snprintf(cmd, sizeof cmd, "grep -q '^dropped: cube 0.[0-9] mm above' %s/slip_%s.txt", dir,
                 kind);
        ENSURE_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 2 && system(cmd) == 0,
                   "mu 0.03 (%s/slip_%s.txt)", dir, kind);
        char path[1100], line[512] = "";
        snprintf(path, sizeof path, "%s/held_%s.txt", dir, kind);
        FILE* f = fopen(path, "r");
        while (f && fgets(line, sizeof line, f) && strncmp(line, "held", 4) != 0) {
        }
        if (f) fclose(f);
        alct_note("%s fingers, mu 0.5: %s", kind, line);
    }
    return ALC_TEST_PASS;
}

static char g_logged[4096];

static void captureLog(void* user, int level, const char* msg) {
    (void)user;
    if (level <= 1)
        snprintf(g_logged + strlen(g_logged), sizeof g_logged - strlen(g_logged), "%s\n", msg);
}

/// A reference-backend sim of m whose warnings go to g_logged (emptied first).
static alctStatus makeLogged(const alcModel* m, alcSim** sim) {
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    def.log = captureLog;
    g_logged[0] = 0;
    return alc_makeSim(m, &def, sim);
}

/// A model whose body is commanded by a controller (an external driver), with or without
/// friction; NULL on failure.
static alcModel* drivenModel(double friction) {
    alcSpec* spec = NULL;
    if (alc_makeSpec(&spec) != ALC_OK) return NULL;
    alc_specOption(spec)->frictionDefault = friction;
    alcMaterialDef mat = alc_defaultMaterialDef();
    alc_specAddMaterial(spec, &mat, NULL);
    alcMesh* box = NULL;
    const double size[3] = {0.1, 0.1, 0.1};
    const int cells[3] = {1, 1, 1};
    alc_meshBox(size, cells, &box);
    alcBodyDef bd = alc_defaultBodyDef();
    bd.nvert = box->nvert;
    bd.vert = box->vert;
    bd.ntet = box->ntet;
    bd.tet = box->tet;
    int body = -1;
    alc_specAddBody(spec, &bd, &body);
    alc_deleteMesh(box);
    alcDriverDef dd = alc_defaultDriverDef();
    dd.type = ALC_DRIVER_EXTERNAL;
    alc_specAddDriver(spec, &dd, body, 0, NULL, NULL);
    alcModel* m = NULL;
    alc_compileSpec(spec, &m, NULL, 0);
    alc_deleteSpec(spec);
    return m;
}

/// Friction is 0 unless set (issue 19, item 8): a model with a controller-driven body and no
/// friction anywhere is made with a warning through the log, one with friction without it.
ALC_TEST(api_frictionlessDriverWarned) {
    for (int withFriction = 0; withFriction < 2; withFriction++) {
        alcModel* m = drivenModel(withFriction ? 0.5 : 0);
        ENSURE(m);
        alcSim* sim = NULL;
        ENSURE_OK(makeLogged(m, &sim));
        int warned = strstr(g_logged, "no friction anywhere") != NULL;
        ENSURE_MSG(warned == !withFriction, "friction %d: log '%s'", withFriction, g_logged);
        if (warned) alct_note("%s", g_logged);
        alc_deleteSim(sim);
        alc_deleteModel(m);
    }
    return ALC_TEST_PASS;
}

/// penalty_ds's `auto` preconditioner is block Jacobi in a build without CHOLMOD, which makes a
/// sim with a warning through the log; with CHOLMOD, or with `jacobi` chosen, there is none.
ALC_TEST(api_penaltyDsJacobiWarned) {
    const int precond[2] = {ALC_DS_PRECOND_AUTO, ALC_DS_PRECOND_JACOBI};
    for (int i = 0; i < 2; i++) {
        alcModel* m = drivenModel(0.5);
        ENSURE(m);
        m->opt.contact = ALC_CONTACT_PENALTY_DS;
        m->opt.dsPrecond = precond[i];
        alcSim* sim = NULL;
        ENSURE_OK(makeLogged(m, &sim));
        int warned = strstr(g_logged, "preconditioned by block Jacobi") != NULL;
        int expect = i == 0 && !alcu_directSolverAvailable();
        ENSURE_MSG(warned == expect, "precond %d: log '%s'", precond[i], g_logged);
        if (warned) alct_note("%s", g_logged);
        alc_deleteSim(sim);
        alc_deleteModel(m);
    }
    return ALC_TEST_PASS;
}

/// A (pose, time) pair for a driver (issue 19, item 5): called before each step, the targets
/// move at constant speed and angular velocity and arrive at the pose exactly on time; half way
/// they are half way (centroid and angle). The data's time is advanced by hand: only the
/// targets are under test.
ALC_TEST(api_driverPoseAt) {
    alcModel* m = drivenModel(0.5);
    ENSURE(m);
    alcData* d = NULL;
    ENSURE_OK(alc_makeData(m, &d));
    const double h = m->opt.timestep, t[3] = {0.1, 0.2, -0.05};
    const double turn = 1.5707963267948966;  // 90 degrees about z
    const double q[4] = {cos(0.5 * turn), 0, 0, sin(0.5 * turn)};
    int nv = m->body_vertnum[0], a = m->body_vertadr[0];
    double c0[3] = {0, 0, 0};
    for (int i = a; i < a + nv; i++)
        for (int k = 0; k < 3; k++) c0[k] += d->kin_target[3 * i + k] / nv;
    double arrive = 40 * h;
    for (int s = 0; s < 40; s++) {
        ENSURE_OK(alc_setDriverPoseAt(m, d, 0, t, q, arrive));
        d->time += h;
        if (s == 19) {  // half way: centroid half way, rotated 45 degrees
            double c[3] = {0, 0, 0};
            for (int i = a; i < a + nv; i++)
                for (int k = 0; k < 3; k++) c[k] += d->kin_target[3 * i + k] / nv;
            for (int k = 0; k < 3; k++) ENSURE_NEAR(c[k], c0[k] + 0.5 * t[k], 1e-12);
            double r0x = m->vert_x0[3 * a] - c0[0], r0y = m->vert_x0[3 * a + 1] - c0[1];
            double rx = d->kin_target[3 * a] - c[0], ry = d->kin_target[3 * a + 1] - c[1];
            double ang = atan2(r0x * ry - r0y * rx, r0x * rx + r0y * ry);
            ENSURE_NEAR(ang, 0.5 * turn, 1e-9);
        }
    }
    // on time: exactly the pose alc_setDriverPose gives
    alcData* g = NULL;
    ENSURE_OK(alc_makeData(m, &g));
    ENSURE_OK(alc_setDriverPose(m, g, 0, t, q));
    double worst = 0;
    for (int i = 0; i < 3 * m->nvert; i++)
        worst = fmax(worst, fabs(d->kin_target[i] - g->kin_target[i]));
    ENSURE_MSG(worst < 1e-12, "arrival off by %.3g m", worst);
    ENSURE(d->driver_external[0] == 1);
    ENSURE(alc_setDriverPoseAt(m, d, 5, t, q, 1.0) == ALC_ERR_INVALID_ARG);
    ENSURE(alc_setDriverPoseAt(m, d, 0, t, q, NAN) == ALC_ERR_INVALID_ARG);
    alct_note("pose reached on time within %.2g m; half way: half the translation and 45 degrees",
              worst);
    alc_deleteData(g);
    alc_deleteData(d);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}
