// Public API: the README's hello world, defs, versions, backends, errors, NULL safety.
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

ALC_TEST(api_helloWorld) {
    alcModel* m = helloModel();
    ENSURE(m);
    ENSURE(m->nbody == 2 && m->ntet == 1 && m->nvert == 8);
    ENSURE(m->ntri == 4 + 2);
    alcData* d = NULL;
    ENSURE_OK(alc_makeData(m, &d));
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    alcSim* sim = NULL;
    ENSURE_OK(alc_makeSim(m, &def, &sim));
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
    snprintf(cmd, sizeof cmd,
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
    // auto falls back to the reference backend
    def.backend = ALC_BACKEND_AUTO;
    ENSURE_OK(alc_makeSim(m, &def, &sim));
    if (!alcu_cudaAvailable()) ENSURE(alc_simBackend(sim) == ALC_BACKEND_REF);
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
    // an inverted tetrahedron is rejected at compile with the body named
    static const double v[] = {0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1};
    static const int inverted[] = {0, 2, 1, 3};
    alcBodyDef bd = alc_defaultBodyDef();
    bd.name = "flipped";
    bd.nvert = 4;
    bd.vert = v;
    bd.ntet = 1;
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
