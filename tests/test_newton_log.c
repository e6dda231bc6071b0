// The Newton-iteration log (host/step.c, solveSubproblem; `alcove run -vv`, verbosity 4): one
// line per Newton iteration with the direction's length, its CG count, the line search's step
// against its inversion bound, the change of L and why the subproblem ends or goes on. It is
// how the dolphin's subproblems that wander to the Newton cap were read (issue 14). At the same
// verbosity each outer iteration cut by the CCD names the pair that cut it (issue 18).
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        alcSim* sim = NULL;
        alcData* d = NULL;
        ENSURE_OK(alc_makeData(r.m, &d));
        ENSURE_OK(makeLoggedSim(&r, 1, verbosity, readNewton, &c, &sim));
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

/// tools/pin-windows.py, which reads the multiplier lines of -v logs (issue 14): on a written
/// log it lists the pin (one pair's multiplier grows 16-fold while its c stays) and the wait
/// (its c falls 100-fold), and not a window that another pair interrupts; on a real -v log of
/// the slope it finds the lines host/step.c writes (the format the two must agree on).
ALC_TEST(newtonLog_pinWindows) {
    const char* build = getenv("ALC_BUILD");
    const char* dir = alct_tmpDir("pin_windows", NULL);
    const char* py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    static char cmd[16384];
    snprintf(cmd, sizeof cmd, "%s -c 'print(1)' >/dev/null 2>&1", py);
    if (alct_sh(cmd) != 0) SKIP_TEST("no python3");
    char root[4096], exe[4096];
    ENSURE(realpath(alct_rootDir(), root) != NULL);
    if (!realpath(build ? build : "build", exe)) snprintf(exe, sizeof exe, "build");
    const char* pair = "pair of vertices 1 2 3 4";
    char path[1100];
    snprintf(path, sizeof path, "%s/written.log", dir);
    FILE* f = fopen(path, "w");
    ENSURE(f != NULL);
    for (int i = 0; i < 5; i++)  // step 7: a pin; step 8: a wait; step 9: interrupted
        fprintf(f,
                "alcove: info: step 7: multipliers of 9 pairs: largest %g (lambda/mu 1 m) on "
                "the point-triangle %s (c = -2.000e-03 m), sum 1, 1 violated by more than "
                "delta\n",
                0.5 * (1 << i), pair);
    for (int i = 0; i < 5; i++)
        fprintf(f,
                "alcove: info: step 8: multipliers of 9 pairs: largest %g (lambda/mu 1 m) on "
                "the edge-edge %s (c = %g m), sum 1, 0 violated by more than delta\n",
                0.5 * (1 << i), pair, -1e-3 / (i == 4 ? 100 : 1 + i));
    for (int i = 0; i < 5; i++)
        fprintf(f,
                "alcove: info: step 9: multipliers of 9 pairs: largest %g (lambda/mu 1 m) on "
                "the edge-edge pair of vertices 1 2 3 %d (c = -1e-3 m), sum 1, 0 violated by "
                "more than delta\n",
                0.5 * (1 << i), i == 2 ? 5 : 4);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "cd %s && %s %s/tools/pin-windows.py -w 4 written.log > out.txt && "
             "grep -qx 'written.log 7 1 16.00 -2.000e-03 -2.000e-03 1.000 1 2 3 4' out.txt && "
             "grep -qx 'written.log 8 1 16.00 -1.000e-03 -1.000e-05 0.010 1 2 3 4' out.txt && "
             "! grep -q 'written.log 9' out.txt && grep -qx '2 windows' out.txt",
             dir, py, root);
    ENSURE_MSG(alct_sh(cmd) == 0, "pin-windows.py on a written log (%s/out.txt)", dir);
    snprintf(cmd, sizeof cmd,
             "cd %s && %s/alcove run '%s/scenes/slope.yaml' --steps 3 --frames none --no-states "
             "--backend ref --threads 1 -q -v --out out 2> slope.log && "
             "%s %s/tools/pin-windows.py -w 1 -g 1e-9 slope.log > slope.txt && "
             "grep -q '^slope.log [0-9]' slope.txt",
             dir, exe, root, py, root);
    ENSURE_MSG(alct_sh(cmd) == 0, "pin-windows.py on the slope's -v log (%s/slope.txt)", dir);
    return ALC_TEST_PASS;
}

typedef struct {
    int cuts;      // "CCD cut" lines
    int cutIters;  // outer iterations whose CCD time of impact was below 1
    int matched;   // of them, those whose cut line came just before, with the same time
    int active;    // cut lines naming a pair of the active set
    int bad;       // lines that do not parse or whose numbers do not hold together
    long step;     // the last cut line's step and iteration, and its time of impact
    int iter;
    double toi;
} CutLog;

static void readCuts(void* user, int level, const char* msg) {
    CutLog* c = (CutLog*)user;
    long step = 0;
    int iter = 0;
    double toi = 0, alpha = 0, ccd = 0, dx = 0, dc = 0, dh = 0, slide = 0;
    (void)level;
    const char* cut = strstr(msg, ": CCD cut at ");
    if (cut) {
        c->cuts++;
        const char* dist = strstr(msg, ": distance ");
        const char* mv = strstr(msg, "; its primitives move ");
        if (sscanf(msg, "step %ld iter %d: CCD cut at %lf", &step, &iter, &toi) != 3 || !dist ||
            sscanf(dist, ": distance %lf delta at x, %lf at the cut, %lf at xhat", &dx, &dc, &dh) !=
                3 ||
            !mv || sscanf(mv, "; its primitives move %lf", &slide) != 1 || !(toi >= 0 && toi < 1) ||
            !(dc > 0 && dc <= dx && dh >= 0 && slide >= 0)) {
            c->bad++;
            return;
        }
        c->active += strstr(msg, "; active: c = ") != NULL;
        if (!strstr(msg, "; active: c = ") && !strstr(msg, "; not in the active set")) c->bad++;
        c->step = step;
        c->iter = iter;
        c->toi = toi;
        return;
    }
    if (sscanf(msg, "step %ld iter %d: alpha %lf (ccd %lf)", &step, &iter, &alpha, &ccd) == 4 &&
        ccd < 1) {
        c->cutIters++;
        // both printed with 4 significant digits
        c->matched += c->step == step && c->iter == iter && c->toi == ccd;
    }
}

/// At verbosity 4 every outer iteration whose chord the CCD cut names the pair that cut it, just
/// before its own line and with the same time of impact: a pair the chord brings closer (its
/// distance at the cut below that at x, above 0), in the active set or not.
ALC_TEST(newtonLog_blockingPair) {
    Run r;
    ENSURE(openRun(&r, "ball_plate.yaml", NULL, NULL, -1));
    CutLog c;
    memset(&c, 0, sizeof c);
    alcSim* sim = NULL;
    alcData* d = NULL;
    ENSURE_OK(alc_makeData(r.m, &d));
    ENSURE_OK(makeLoggedSim(&r, 1, 4, readCuts, &c, &sim));
    for (int step = 0; step < 6; step++) ENSURE_OK(alc_step(sim, d));
    alc_deleteSim(sim);
    alc_deleteData(d);
    closeRun(&r);
    alct_note(
        "6 steps of ball_plate: %d outer iterations cut by the CCD, %d cut lines (%d naming an "
        "active pair)",
        c.cutIters, c.cuts, c.active);
    ENSURE_MSG(c.bad == 0, "%d of %d cut lines do not parse or do not hold together", c.bad,
               c.cuts);
    ENSURE_MSG(c.cutIters > 0, "no outer iteration was cut: the test proves nothing");
    ENSURE_MSG(c.cuts == c.cutIters && c.matched == c.cutIters,
               "%d cut lines, %d cut iterations, %d matched", c.cuts, c.cutIters, c.matched);
    return ALC_TEST_PASS;
}

typedef struct {
    const alcModel* m;
    int cuts;      // "inversion bound cut" lines
    int invIters;  // outer iterations whose alpha line shows alpha below the CCD's
    int matched;   // cut lines whose outer iteration's alpha line came next, with the same alpha
    int bad;       // lines that do not parse or whose numbers do not hold together
    int pending;   // a cut line waits for its alpha line
    long step;     // the pending cut line's step, iteration and alpha
    int iter;
    double cut;
    double first;  // and where its chord first passes below the target
} TetCutLog;

static void readTetCuts(void* user, int level, const char* msg) {
    TetCutLog* c = (TetCutLog*)user;
    long step = 0;
    int iter = 0, tet = -1, v[4];
    double cut = 0, vx = 0, vc = 0, vh = 0, target = 0, first = 0, last = 0, alpha = 0, ccd = 0;
    (void)level;
    if (strstr(msg, ": inversion bound cut at ")) {
        c->cuts++;
        const char* vol = strstr(msg, "): volume ");
        const char* tail = strstr(msg, "; the chord first below it at alpha ");
        if (sscanf(msg,
                   "step %ld iter %d: inversion bound cut at %lf by tetrahedron %d (vertices %d %d "
                   "%d %d",
                   &step, &iter, &cut, &tet, &v[0], &v[1], &v[2], &v[3]) != 8 ||
            !vol ||
            sscanf(vol,
                   "): volume %lf of its rest volume at x, %lf at the cut, %lf at xhat; target %lf",
                   &vx, &vc, &vh, &target) != 4 ||
            !tail || sscanf(tail, "; the chord first below it at alpha %lf", &first) != 1 ||
            tet < 0 || tet >= c->m->ntet) {
            c->bad++;
            return;
        }
        int same = 1;
        for (int a = 0; a < 4; a++) same &= v[a] == c->m->tet_vert[4 * tet + a];
        // %.3g: three digits. The cut keeps the tetrahedron at or above its target, which lies
        // below its volume at x; the chord falls below the target somewhere after the cut or
        // (the end-point bound) before a stretch that the cut lies beyond
        int holds = same && vx > 0 && target < vx * 1.005 && vc >= target * 0.995 && first > 0 &&
                    first < 1 && cut >= 0;
        if (strstr(tail, ", last at ")) {
            holds &= sscanf(strstr(tail, ", last at "), ", last at %lf", &last) == 1 &&
                     last >= first && last <= 1 && vh >= target * 0.995;
        } else {
            holds &= strstr(tail, ", below it at xhat too") != NULL && vh <= target * 1.005;
        }
        if (!holds) {
            fprintf(stderr, "  does not hold together: %s\n", msg);
            c->bad++;
            return;
        }
        c->pending = 1;
        c->step = step;
        c->iter = iter;
        c->cut = cut;
        c->first = first;
        return;
    }
    if (sscanf(msg, "step %ld iter %d: alpha %lf (ccd %lf)", &step, &iter, &alpha, &ccd) == 4) {
        c->invIters += alpha < ccd;
        if (c->pending) {
            // both printed with 4 significant digits; the tetrahedron is below its target
            // somewhere before the CCD's alpha
            c->matched +=
                c->step == step && c->iter == iter && c->cut == alpha && c->first <= ccd * 1.001;
        }
        c->pending = 0;
    }
}

/// At verbosity 4 every outer iteration whose chord the inversion bound cut names the
/// tetrahedron that cut it (issue 14), just before its own line and with the same alpha: the
/// tetrahedron's vertices as the model has them, its volume at x above the target and at the cut
/// not below it, and the chord first below the target before the CCD's alpha. The scene is
/// box_drop landing under a 99 % bound (tests/data/scenes/box_drop_guards.yaml, guards off),
/// where the bound cuts many outer steps.
ALC_TEST(newtonLog_blockingTet) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/scenes/box_drop_guards.yaml", alct_rootDir());
    Run r;
    ENSURE(openRunPath(&r, path, NULL, NULL, -1));
    r.m->opt.tetGuards = 0;
    TetCutLog c;
    memset(&c, 0, sizeof c);
    c.m = r.m;
    alcSim* sim = NULL;
    alcData* d = NULL;
    ENSURE_OK(alc_makeData(r.m, &d));
    ENSURE_OK(makeLoggedSim(&r, 1, 4, readTetCuts, &c, &sim));
    for (int step = 0; step < 14; step++) ENSURE_OK(alc_step(sim, d));
    alc_deleteSim(sim);
    alc_deleteData(d);
    closeRun(&r);
    alct_note(
        "14 steps of box_drop_guards: %d outer iterations cut by the inversion bound, %d "
        "cut lines",
        c.invIters, c.cuts);
    ENSURE_MSG(c.bad == 0, "%d of %d cut lines do not parse or do not hold together", c.bad,
               c.cuts);
    ENSURE_MSG(c.invIters > 0, "no outer iteration was cut: the test proves nothing");
    ENSURE_MSG(c.cuts == c.invIters && c.matched == c.cuts,
               "%d cut lines, %d cut iterations, %d matched", c.cuts, c.invIters, c.matched);
    return ALC_TEST_PASS;
}

typedef struct {
    double eps;     // the run's solver.newton_flat
    int inSub;      // Newton lines of the current subproblem so far
    double lBegin;  // L where the current subproblem began (its first line's L0)
    int flat;       // lines that end their subproblem on the rule
    int partial;    // partial steps (r < 1) from a subproblem's third line on
    int bad;        // flat ends the rule does not allow, or partial steps it should have ended
} FlatLog;

static void readFlat(void* user, int level, const char* msg) {
    FlatLog* c = (FlatLog*)user;
    long step = 0;
    int iter = 0, it = 0, cg = 0;
    double alpha = 0, ccd = 0, pInf = 0, r = 0, bound = 0, L0 = 0, dL = 0;
    (void)level;
    if (sscanf(msg, "step %ld iter %d: alpha %lf (ccd %lf)", &step, &iter, &alpha, &ccd) == 4) {
        c->inSub = 0;  // the next Newton line begins the next subproblem
        return;
    }
    const char* p = strstr(msg, " newton ");
    if (!p || !strstr(msg, "|p| ") || strstr(msg, "no decrease of L")) return;
    const char* q = strstr(p, ", r ");
    if (sscanf(p, " newton %d: |p| %lf m, cg %d", &it, &pInf, &cg) != 3 || !q ||
        sscanf(q, ", r %lf (bound %lf), L %lf -> %lf", &r, &bound, &L0, &dL) != 4) {
        c->bad++;
        return;
    }
    if (c->inSub++ == 0) c->lBegin = L0;
    double dec = c->lBegin - (L0 + dL);  // what the subproblem lowered L by, this step included
    // L0 printed to 10 digits and its change to 4: the rule is checked with that slack
    double slack = 1e-8 * fabs(L0);
    int isFlat = strstr(msg, ", ends: L flat") != NULL;
    if (isFlat) {
        c->flat++;
        if (!(c->eps > 0 && r < 1 && c->inSub >= 3 && dec > 0 &&
              -dL < c->eps * dec * 1.001 + slack)) {
            fprintf(stderr, "  a flat end the rule does not allow: %s\n", msg);
            c->bad++;
        }
    }
    if (r < 1 && c->inSub >= 3) {
        c->partial++;
        // a partial step far below the threshold that the subproblem went on after
        if (!isFlat && c->eps > 0 && strstr(msg, "goes on: partial step") && dec > 0 &&
            -dL < 0.5 * c->eps * dec - slack) {
            fprintf(stderr, "  a flat step that did not end its subproblem: %s\n", msg);
            c->bad++;
        }
    }
}

/// FLAT_STEPS steps of the stone arch with solver.newton_flat = eps: the Newton iterations, and
/// the log's flat ends checked against the rule; every state clean.
#define FLAT_STEPS 10
static int flatRun(double eps, FlatLog* c, long* newton) {
    Run r;
    ENSURE(openRun(&r, "arch.yaml", NULL, NULL, -1));
    ENSURE(r.m->opt.newtonFlat == 1e-4);  // the default
    r.m->opt.newtonFlat = eps;
    memset(c, 0, sizeof *c);
    c->eps = eps;
    alcSim* sim = NULL;
    ENSURE_OK(makeLoggedSim(&r, 1, 4, readFlat, c, &sim));
    for (int step = 0; step < FLAT_STEPS; step++) {
        ENSURE_OK(alc_step(sim, r.d));
        ENSURE_MSG(!r.d->stat.capped && checkRun(&r), "newton_flat %g, step %d", eps, step + 1);
    }
    *newton = r.d->run.newton;
    alc_deleteSim(sim);
    closeRun(&r);
    return 1;
}

/// solver.newton_flat (host/step.c, solveSubproblem; issue 14): a subproblem ends on a partial
/// Newton step that lowers L by less than that fraction of what the subproblem lowered it so
/// far, from its third iteration on. The stone arch's subproblems take many such steps (its
/// stiff stones' joints). Off (0) no subproblem ends on it; at 0.01 some do, each one allowed by
/// the rule and none of the partial steps it should have ended going on, with fewer Newton
/// iterations and every state clean. The scene key reads it (0 turns it off; the default is
/// 1e-4); 1 is refused with its line, and so is a negative value through the C API.
ALC_TEST(newtonLog_flatEnds) {
    FlatLog off, on;
    long n0 = 0, n1 = 0;
    ENSURE(flatRun(0, &off, &n0));
    ENSURE(flatRun(0.01, &on, &n1));
    alct_note(
        "%d steps of the arch: newton_flat 0: %ld Newton iterations, %d partial steps from a "
        "subproblem's third on; 0.01: %ld, %d flat ends",
        FLAT_STEPS, n0, off.partial, n1, on.flat);
    ENSURE_MSG(off.bad == 0 && on.bad == 0, "%d and %d log lines against the rule", off.bad,
               on.bad);
    ENSURE_MSG(off.partial > 0, "no late partial step: the test proves nothing");
    ENSURE(off.flat == 0);
    ENSURE(on.flat > 0 && n1 < n0);
    char err[1024];
    alcModel* m = NULL;
    ENSURE_MSG(
        alct_loadSolverScene("nfl", "e.yaml", "newton_flat: 1e-4", &m, err, sizeof err) == ALC_OK,
        "%s", err);
    ENSURE(m->opt.newtonFlat == 1e-4);
    alc_deleteModel(m);
    ENSURE_MSG(
        alct_loadSolverScene("nfl", "e.yaml", "newton_flat: 0", &m, err, sizeof err) == ALC_OK,
        "%s", err);
    ENSURE(m->opt.newtonFlat == 0);
    alc_deleteModel(m);
    ENSURE(alc_defaultOption().newtonFlat == 1e-4);
    ENSURE(alct_loadSolverScene("nfl", "e.yaml", "newton_flat: 1", &m, err, sizeof err) ==
           ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "e.yaml:4:") && strstr(err, "newton_flat"), "%s", err);
    alcSpec* spec = NULL;
    ENSURE_OK(alc_makeSpec(&spec));
    alc_specOption(spec)->newtonFlat = -0.5;
    ENSURE(alc_compileSpec(spec, &m, err, sizeof err) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "newton_flat -0.5"), "%s", err);
    alc_deleteSpec(spec);
    return ALC_TEST_PASS;
}
