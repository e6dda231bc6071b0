// The Newton-iteration log (host/step.c, solveSubproblem; `alcove run -vv`, verbosity 4): one
// line per Newton iteration with the direction's length, its CG count, the line search's step
// against its inversion bound, the change of L and why the subproblem ends or goes on. It is
// how the dolphin's subproblems that wander to the Newton cap were read (issue 14).
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int lines;  // Newton lines
    int ends;   // of which end their subproblem
    int bad;    // lines that do not parse or whose numbers do not hold together
} NewtonLog;

static void readNewton(void* user, int level, const char* msg) {
    NewtonLog* c = (NewtonLog*)user;
    const char* p = strstr(msg, " newton ");
    (void)level;
    if (!p || !strstr(msg, "|p| ")) return;
    c->lines++;
    c->ends += strstr(msg, ", ends") != NULL || strstr(msg, ": ends") != NULL;
    int it = 0, cg = -1;
    double pInf = -1, r = -1, bound = -1;
    if (strstr(msg, "no decrease of L")) {
        if (sscanf(p, " newton %d: |p| %lf m, cg %d,", &it, &pInf, &cg) != 3) c->bad++;
        return;
    }
    const char* q = strstr(p, ", r ");
    if (sscanf(p, " newton %d: |p| %lf m, cg %d", &it, &pInf, &cg) != 3 || !q ||
        sscanf(q, ", r %lf (bound %lf)", &r, &bound) != 2 || !(pInf >= 0 && cg >= 0) ||
        !(r > 0 && r <= bound && bound <= 1)) {
        c->bad++;
    }
}

/// At verbosity 4 every Newton iteration of the ball's impact logs one line that parses, and
/// each subproblem's last one says it ends; at verbosity 3 none is logged.
ALC_TEST(newtonLog_everyIteration) {
    Run r;
    ENSURE(openRun(&r, "ball_plate.yaml", NULL, NULL, -1));
    int counts[2][3] = {{0}};  // per verbosity 3, 4: lines, ends, newton iterations
    for (int verbosity = 3; verbosity <= 4; verbosity++) {
        NewtonLog c = {0, 0, 0};
        alcSimDef def = alc_defaultSimDef();
        def.backend = ALC_BACKEND_REF;
        def.threads = 1;
        def.verbosity = verbosity;
        def.log = readNewton;
        def.user = &c;
        alcSim* sim = NULL;
        alcData* d = NULL;
        ENSURE_OK(alc_makeData(r.m, &d));
        ENSURE_OK(alc_makeSim(r.m, &def, &sim));
        long newton = 0;
        int outer = 0;
        for (int step = 0; step < 3; step++) {
            ENSURE_OK(alc_step(sim, d));
            newton += d->stat.newton;
            outer += d->stat.outer;
        }
        alc_deleteSim(sim);
        alc_deleteData(d);
        ENSURE_MSG(c.bad == 0, "%d of %d Newton lines do not parse", c.bad, c.lines);
        int* n = counts[verbosity - 3];
        n[0] = c.lines;
        n[1] = c.ends;
        n[2] = (int)newton;
        if (verbosity == 4) {
            ENSURE_MSG(c.lines == newton, "%d Newton lines for %ld iterations", c.lines, newton);
            // a subproblem ends once, or at the Newton cap without such a line
            ENSURE_MSG(c.ends >= 1 && c.ends <= outer, "%d ending lines, %d subproblems", c.ends,
                       outer);
        }
    }
    closeRun(&r);
    alct_note(
        "3 steps of ball_plate: %d Newton iterations, %d lines at verbosity 4 (%d ending a "
        "subproblem), %d at verbosity 3",
        counts[1][2], counts[1][0], counts[1][1], counts[0][0]);
    ENSURE(counts[0][0] == 0);
    ENSURE(counts[1][2] == counts[0][2]);  // logging does not change the solve
    return ALC_TEST_PASS;
}

/// `alcove run -vv` logs the Newton lines; `-v` does not.
ALC_TEST(newtonLog_cliVeryVerbose) {
    const char* build = getenv("ALC_BUILD");
    const char* dir = alct_tmpDir("newton_log", NULL);
    int found[2] = {-1, -1};
    const char* flags[2] = {"-v", "-vv"};
    for (int k = 0; k < 2; k++) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd,
                 "%s/alcove run '%s/scenes/ball_plate.yaml' --steps 1 --frames none --no-states "
                 "--backend ref --threads 1 -q %s --out '%s/out' 2> '%s/log%d.txt'",
                 build ? build : "build", alct_rootDir(), flags[k], dir, dir, k);
        ENSURE_MSG(alct_sh(cmd) == 0, "%s", cmd);
        snprintf(cmd, sizeof cmd, "grep -c 'step 1 newton 1: |p| ' '%s/log%d.txt' > /dev/null", dir,
                 k);
        found[k] = alct_sh(cmd) == 0;
    }
    ENSURE_MSG(found[0] == 0, "-v logged Newton lines (%s/log0.txt)", dir);
    ENSURE_MSG(found[1] == 1, "-vv logged no Newton line (%s/log1.txt)", dir);
    return ALC_TEST_PASS;
}
