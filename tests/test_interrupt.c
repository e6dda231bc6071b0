// Stopping a step (issue 16, item 1): alc_cancelStep from a log callback of the step, from
// another thread and before the step, each returning ALC_ERR_CANCELLED with the data of the
// last completed step; and `alcove run` honouring SIGINT and SIGTERM inside a step whose
// time step (1000 s) makes it run for a very long time, with exit 130 and 143 and complete
// files; an empty or root --out refused.
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// box_drop with a 1000 s time step: its first step runs for minutes (issue 16's report).
static const char* longScene(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/box_drop.yaml", alct_rootDir());
    FILE* f = fopen(path, "r");
    if (!f) return NULL;
    static char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char* ts = strstr(text, "time_step: 0.01");
    if (!ts) return NULL;
    memcpy(ts, "time_step: 1000", 15);
    return alct_writeFile(alct_tmpDir("interrupt", NULL), "long.yaml", text);
}

/// Snapshot of what alc_step may change in the data.
typedef struct {
    double* x;
    double* v;
    double time;
    long step;
    alcStepStat stat;
    alcRunStat run;
} Snap;

static int snap(Snap* s, const alcData* d, int nvert) {
    size_t b = sizeof(double) * 3 * (size_t)nvert;
    s->x = (double*)malloc(b);
    s->v = (double*)malloc(b);
    if (!s->x || !s->v) return 0;
    memcpy(s->x, d->x, b);
    memcpy(s->v, d->v, b);
    s->time = d->time;
    s->step = d->step;
    s->stat = d->stat;
    s->run = d->run;
    return 1;
}

static int sameAsSnap(const Snap* s, const alcData* d, int nvert) {
    size_t b = sizeof(double) * 3 * (size_t)nvert;
    return !memcmp(s->x, d->x, b) && !memcmp(s->v, d->v, b) && s->time == d->time &&
           s->step == d->step && !memcmp(&s->stat, &d->stat, sizeof s->stat) &&
           !memcmp(&s->run, &d->run, sizeof s->run);
}

static void unsnap(Snap* s) {
    free(s->x);
    free(s->v);
}

// ---- from a log callback of the step itself ----

typedef struct {
    alcSim* sim;
    int calls;
} CancelOnLog;

static void cancelOnIteration(void* user, int level, const char* msg) {
    CancelOnLog* c = (CancelOnLog*)user;
    if (level >= 3 && strstr(msg, " iter ") && c->sim && c->calls++ == 0) alc_cancelStep(c->sim);
}

ALC_TEST(cancel_fromCallback) {
    Run r;
    ENSURE(openRun(&r, "slope.yaml", NULL, NULL, -1));
    ENSURE(stepRun(&r));
    // a second sim on the same model, logging every iteration
    CancelOnLog c = {NULL, 0};
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    def.verbosity = 3;
    def.log = cancelOnIteration;
    def.user = &c;
    alcSim* sim = NULL;
    ENSURE_OK(alc_makeSim(r.m, &def, &sim));
    c.sim = sim;
    Snap s;
    ENSURE(snap(&s, r.d, r.m->nvert));
    alctStatus st = alc_step(sim, r.d);
    ENSURE_MSG(st == ALC_ERR_CANCELLED, "%s", alcu_statusString(st));
    ENSURE(strstr(alc_lastError(sim), "cancelled"));
    ENSURE(sameAsSnap(&s, r.d, r.m->nvert));
    alct_note("%s", alc_lastError(sim));
    // the request was consumed: the next step completes
    c.calls = 1;
    ENSURE_OK(alc_step(sim, r.d));
    ENSURE(r.d->step == s.step + 1);
    unsnap(&s);
    alc_deleteSim(sim);
    closeRun(&r);
    return ALC_TEST_PASS;
}

// ---- a request made before the step ----

ALC_TEST(cancel_beforeTheStep) {
    Run r;
    ENSURE(openRun(&r, "box_drop.yaml", NULL, NULL, -1));
    Snap s;
    ENSURE(snap(&s, r.d, r.m->nvert));
    alc_cancelStep(r.sim);
    ENSURE(alc_step(r.sim, r.d) == ALC_ERR_CANCELLED);
    ENSURE(sameAsSnap(&s, r.d, r.m->nvert));
    ENSURE(stepRun(&r));
    alc_cancelStep(NULL);  // NULL-safe
    unsnap(&s);
    closeRun(&r);
    return ALC_TEST_PASS;
}

// ---- from another thread, during a step that would run for minutes ----

static void* cancelLater(void* arg) {
    struct timespec t = {0, 300 * 1000 * 1000};
    nanosleep(&t, NULL);
    alc_cancelStep((alcSim*)arg);
    return NULL;
}

ALC_TEST(cancel_fromAnotherThread) {
    const char* path = longScene();
    ENSURE(path);
    Run r;
    ENSURE(openRunPath(&r, path, NULL, NULL, -1));
    Snap s;
    ENSURE(snap(&s, r.d, r.m->nvert));
    pthread_t th;
    ENSURE(pthread_create(&th, NULL, cancelLater, r.sim) == 0);
    alctStatus st = alc_step(r.sim, r.d);
    pthread_join(th, NULL);
    ENSURE_MSG(st == ALC_ERR_CANCELLED, "%s", alcu_statusString(st));
    ENSURE(sameAsSnap(&s, r.d, r.m->nvert));
    alct_note("%s", alc_lastError(r.sim));
    unsnap(&s);
    closeRun(&r);
    return ALC_TEST_PASS;
}

// ---- the command line: signals inside a step, exit codes, complete files ----

/// Run `alcove run SCENE --out OUT --steps 3 --quiet`, send sig after the child has begun
/// stepping (its run.json exists), and return the exit status (-1 on a failure to run).
static int runAndSignal(const char* scene, const char* out, int sig) {
    const char* build = getenv("ALC_BUILD");
    char exe[1024], runJson[1100];
    snprintf(exe, sizeof exe, "%s/alcove", build ? build : "build");
    snprintf(runJson, sizeof runJson, "%s/run.json", out);
    remove(runJson);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(126);
        execl(exe, exe, "run", scene, "--out", out, "--steps", "3", "--quiet", (char*)NULL);
        _exit(127);
    }
    // run.json is written just before the loop: then the first (very long) step runs
    for (int k = 0; k < 600 && access(runJson, F_OK) != 0; k++) {
        struct timespec t = {0, 50 * 1000 * 1000};
        nanosleep(&t, NULL);
    }
    struct timespec t = {0, 200 * 1000 * 1000};
    nanosleep(&t, NULL);
    kill(pid, sig);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

/// The stats file holds its header line, complete (the output of step 0 only).
static int statsComplete(const char* out) {
    char path[1100], line[8192];
    snprintf(path, sizeof path, "%s/stats.csv", out);
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    int ok =
        fgets(line, sizeof line, f) && !strncmp(line, "step,", 5) && line[strlen(line) - 1] == '\n';
    fclose(f);
    return ok;
}

ALC_TEST(cli_signalsInsideAStep) {
    const char* scene = longScene();
    ENSURE(scene);
    char sceneCopy[1024];
    snprintf(sceneCopy, sizeof sceneCopy, "%s", scene);
    const char* out = alct_tmpDir("interrupt", "out");
    int rc = runAndSignal(sceneCopy, out, SIGINT);
    ENSURE_MSG(rc == 130, "SIGINT: exit %d", rc);
    ENSURE(statsComplete(out));
    rc = runAndSignal(sceneCopy, out, SIGTERM);
    ENSURE_MSG(rc == 143, "SIGTERM: exit %d", rc);
    ENSURE(statsComplete(out));
    alct_note(
        "SIGINT inside step 1 of a 1000 s time step: exit 130; SIGTERM: exit 143; stats "
        "complete");
    return ALC_TEST_PASS;
}

ALC_TEST(cli_rootOrEmptyOutputRefused) {
    const char* build = getenv("ALC_BUILD");
    char cmd[2048];
    const char* bad[] = {"''", "/", "//.", "/alc_no_such_dir_for_test/..", NULL};
    for (int i = 0; bad[i]; i++) {
        snprintf(cmd, sizeof cmd,
                 "%s/alcove run %s/scenes/box_drop.yaml --out %s --quiet 2>/dev/null",
                 build ? build : "build", alct_rootDir(), bad[i]);
        int rc = system(cmd);
        ENSURE_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 2, "--out %s: status %d", bad[i], rc);
    }
    ENSURE(access("/alc_no_such_dir_for_test", F_OK) != 0);  // nothing made at the root
    return ALC_TEST_PASS;
}
