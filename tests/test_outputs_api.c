// Outputs and checks from a program's own loop (issue 19, item 2): the public writers produce
// the files `alcove run` writes (and `alcove check` accepts them), and alc_check gives the
// exact checker's verdict on the current state in process.
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static alcModel* loadBoxDrop(void) {
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/scenes/box_drop.yaml", alct_rootDir());
    alcLoadDef ld = alc_defaultLoadDef();
    alcModel* m = NULL;
    if (alc_loadScene(path, &ld, &m, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "  %s\n", err);
        return NULL;
    }
    return m;
}

/// box_drop with data and a reference-backend sim; 0 on failure.
static int openBoxDrop(alcModel** m, alcData** d, alcSim** sim) {
    *m = loadBoxDrop();
    *d = NULL;
    *sim = NULL;
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    return *m && alc_makeData(*m, d) == ALC_OK && alc_makeSim(*m, &def, sim) == ALC_OK;
}

/// A loop of five steps writing what `alcove run` writes, then `alcove check` on the folder.
ALC_TEST(api_outputsFromOwnLoop) {
    alcModel* m = NULL;
    alcData* d = NULL;
    alcSim* sim = NULL;
    ENSURE(openBoxDrop(&m, &d, &sim));
    const char* dir = alct_tmpDir("outputs_api", "states");
    char path[1200], err[512], cmd[3000];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/frames'", dir);
    ENSURE(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/topology.alct", dir);
    ENSURE_OK(alc_writeTopology(m, path, err, sizeof err));
    alcStatsFile* stats = NULL;
    alcContactLog* log = NULL;
    snprintf(path, sizeof path, "%s/stats.csv", dir);
    ENSURE_OK(alc_statsOpen(path, 0, &stats, err, sizeof err));
    snprintf(path, sizeof path, "%s/contacts.csv", dir);
    ENSURE_OK(alc_contactLogOpen(path, &log, err, sizeof err));
    static char names[6][1200];
    const char* files[6];
    double times[6];
    for (int k = 0; k <= 5; k++) {
        if (k > 0) {
            ENSURE_OK(alc_step(sim, d));
            ENSURE_OK(alc_statsWrite(stats, d, err, sizeof err));
            ENSURE_OK(alc_contactLogWrite(log, sim, d, err, sizeof err));
        }
        snprintf(path, sizeof path, "%s/states/state_%06ld.alcs", dir, d->step);
        ENSURE_OK(alc_writeState(d, path, err, sizeof err));
        snprintf(names[k], sizeof names[k], "%s/frames/frame_%06ld.vtu", dir, d->step);
        ENSURE_OK(alc_writeFrame(m, d, ALC_FRAMES_VTU, names[k], err, sizeof err));
        files[k] = names[k];
        times[k] = d->time;
        snprintf(path, sizeof path, "%s/frames.pvd", dir);
        ENSURE_OK(alc_writeFrameSeries(path, k + 1, files, times, err, sizeof err));
        // the current state is clean, in process
        alcCheckReport rep;
        ENSURE_OK(alc_check(m, d, 1, &rep));
        ENSURE_MSG(rep.clean, "step %ld: %s", d->step, rep.message);
    }
    ENSURE_OK(alc_statsClose(stats, err, sizeof err));
    ENSURE_OK(alc_contactLogClose(log, err, sizeof err));
    snprintf(path, sizeof path, "%s/frame.ply", dir);
    ENSURE_OK(alc_writeFrame(m, d, ALC_FRAMES_PLY, path, err, sizeof err));
    ENSURE(alc_writeFrame(m, d, 7, path, err, sizeof err) == ALC_ERR_INVALID_ARG);
    ENSURE(strstr(err, "unknown frame format"));

    // the index names its frames relative to itself; the statistics have the CLI's header and a
    // row per step; the log has rows stamped with the last step
    snprintf(path, sizeof path, "%s/frames.pvd", dir);
    FILE* f = fopen(path, "r");
    ENSURE(f);
    char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    ENSURE_MSG(strstr(buf, "file=\"frames/frame_000005.vtu\"") && !strstr(buf, dir), "%s", buf);
    snprintf(path, sizeof path, "%s/stats.csv", dir);
    f = fopen(path, "r");
    ENSURE(f);
    int rows = 0;
    while (fgets(buf, sizeof buf, f)) rows += rows == 0 ? !strncmp(buf, "step,time,outer,", 16) : 1;
    fclose(f);
    ENSURE_MSG(rows == 6, "%d lines in stats.csv", rows);

    // `alcove check` accepts the folder
    const char* build = getenv("ALC_BUILD");
    snprintf(cmd, sizeof cmd, "%s/alcove check '%s' --quiet", build ? build : "build", dir);
    int rc = system(cmd);
    ENSURE_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "alcove check: status %d", rc);
    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

/// alc_check finds what the exact checker finds: a vertex of the box pushed through the ground
/// (an intersection, with the first pair's bodies), a flattened tetrahedron of the box's stable
/// Neo-Hookean rubber (allowed unless strict), a NaN; and refuses mismatched arguments.
ALC_TEST(api_checkFindsOffences) {
    alcModel* m = loadBoxDrop();
    ENSURE(m);
    alcData* d = NULL;
    ENSURE_OK(alc_makeData(m, &d));
    alcCheckReport rep;
    ENSURE_OK(alc_check(m, d, 0, &rep));
    ENSURE_MSG(rep.clean && rep.nintersect == 0 && rep.ninverted == 0, "%s", rep.message);
    int box = alc_bodyIndex(m, "box"), ground = alc_bodyIndex(m, "ground");
    ENSURE(box >= 0 && ground >= 0);

    // the box's lowest vertex 10 cm below the ground plane (y = 0)
    int low = m->body_vertadr[box];
    for (int i = low; i < m->body_vertadr[box] + m->body_vertnum[box]; i++)
        if (d->x[3 * i + 1] < d->x[3 * low + 1]) low = i;
    double keep = d->x[3 * low + 1];
    d->x[3 * low + 1] = -0.1;
    ENSURE_OK(alc_check(m, d, 0, &rep));
    alct_note("%s", rep.message);
    ENSURE(!rep.clean && rep.nintersect > 0);
    ENSURE((rep.edgeBody == box && rep.triBody == ground) ||
           (rep.edgeBody == ground && rep.triBody == box) ||
           (rep.edgeBody == box && rep.triBody == box));
    d->x[3 * low + 1] = keep;

    // a tetrahedron of the box flattened: its fourth vertex onto the plane of the other three
    int t = m->body_tetadr[box];
    const int* tv = m->tet_vert + 4 * t;
    double* p3 = d->x + 3 * tv[3];
    double saved[3] = {p3[0], p3[1], p3[2]};
    for (int k = 0; k < 3; k++) p3[k] = d->x[3 * tv[0] + k];  // coincides with vertex 0
    ENSURE_OK(alc_check(m, d, 0, &rep));
    ENSURE_MSG(rep.ninvertedAllowed > 0 && rep.ninverted == 0, "%s", rep.message);
    ENSURE_OK(alc_check(m, d, 1, &rep));
    ENSURE_MSG(!rep.clean && rep.ninverted > 0 && rep.tetBody == box, "%s", rep.message);
    for (int k = 0; k < 3; k++) p3[k] = saved[k];

    d->x[0] = NAN;
    ENSURE_OK(alc_check(m, d, 0, &rep));
    ENSURE(!rep.clean && rep.nnonfinite == 1 && rep.vert == 0);
    ENSURE(alc_check(m, NULL, 0, &rep) == ALC_ERR_INVALID_ARG);
    ENSURE(alc_check(m, d, 0, NULL) == ALC_ERR_INVALID_ARG);
    alc_deleteData(d);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}

/// Contact queries a controller needs (issue 19, item 4): the force between two bodies with one
/// sign convention for both sides, and the contact points with their barycentric coordinates.
/// box_drop's 125 kg rubber box after 3 s rests on the ground (it has settled by 2.5 s): the ground pushes it up with its
/// weight, the box pushes the ground down with the same force, and every contact point pair
/// lies within the contact distance of each other.
ALC_TEST(api_contactQueries) {
    alcModel* m = NULL;
    alcData* d = NULL;
    alcSim* sim = NULL;
    ENSURE(openBoxDrop(&m, &d, &sim));
    for (int k = 0; k < 300; k++) ENSURE_OK(alc_step(sim, d));
    int box = alc_bodyIndex(m, "box"), ground = alc_bodyIndex(m, "ground");
    double up[3], down[3], self[3];
    ENSURE_OK(alc_bodyPairForce(sim, box, ground, up));
    ENSURE_OK(alc_bodyPairForce(sim, ground, box, down));
    ENSURE_OK(alc_bodyPairForce(sim, box, box, self));
    ENSURE(alc_bodyPairForce(sim, box, 99, up) == ALC_ERR_INVALID_ARG);
    ENSURE_OK(alc_bodyPairForce(sim, box, ground, up));
    double mass = 0;
    for (int i = m->body_vertadr[box]; i < m->body_vertadr[box] + m->body_vertnum[box]; i++)
        mass += m->vert_mass[i];
    double weight = -mass * m->opt.gravity[1];
    alct_note("box %.1f kg at t = %.2f s: ground on box (%.2f, %.2f, %.2f) N, weight %.2f N", mass,
              d->time, up[0], up[1], up[2], weight);
    ENSURE_MSG(fabs(up[1] - weight) < 0.01 * weight, "%g vs %g", up[1], weight);
    for (int k = 0; k < 3; k++) ENSURE(down[k] == -up[k] && self[k] == 0);

    const alcContact* c = NULL;
    int n = 0;
    ENSURE_OK(alc_getContacts(sim, &c, &n));
    ENSURE(n > 0);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        ENSURE(c[i].type == ALC_CONTACT_POINT_TRIANGLE || c[i].type == ALC_CONTACT_EDGE_EDGE);
        int side0 = c[i].type == ALC_CONTACT_POINT_TRIANGLE ? 1 : 2;
        double s0 = 0, s1 = 0;
        for (int a = 0; a < 4; a++) {
            ENSURE_MSG(c[i].weight[a] > -1e-9 && c[i].weight[a] < 1 + 1e-9, "weight %g",
                       c[i].weight[a]);
            if (a < side0)
                s0 += c[i].weight[a];
            else
                s1 += c[i].weight[a];
        }
        ENSURE(fabs(s0 - 1) < 1e-9 && fabs(s1 - 1) < 1e-9);
        // the two points: apart by about the contact distance, side 0 on the normal's side
        double gap = 0, along = 0;
        for (int k = 0; k < 3; k++) {
            double dk = c[i].point[0][k] - c[i].point[1][k];
            gap += dk * dk;
            along += dk * c[i].normal[k];
        }
        gap = sqrt(gap);
        worst = fmax(worst, fabs(gap - c[i].distance));
        ENSURE_MSG(along > 0, "pair %d: side 0 below side 1 along the normal (%g)", i, along);
        ENSURE_MSG(fabs(gap - c[i].distance) < m->opt.delta,
                   "pair %d: points %g apart, distance %g", i, gap, c[i].distance);
    }
    alct_note("%d pairs; contact points apart by their distance within %.2e m", n, worst);
    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return ALC_TEST_PASS;
}
