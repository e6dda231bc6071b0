// The test runner itself (tests/main.c): with ALC_TEST_JOBS > 1 every test runs in a process of
// its own, so a test that crashes, exits or runs past ALC_TEST_TIMEOUT fails alone, with the
// reason, and the others still run and count. Checked by running this binary again on planted
// tests, which register only when ALC_TEST_PLANTED is set (so they never run in the suite itself):
// ALC_TEST_PLANTED=1 plants four, ALC_TEST_PLANTED=hang a passing one and one that hangs.
#include "test_files.h"
#include "test_macros.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int plantedPass(void) {
    return ALC_TEST_PASS;
}

static int plantedFail(void) {
    fprintf(stderr, "  planted failure message\n");
    return ALC_TEST_FAIL;
}

static int plantedCrash(void) {
    raise(SIGSEGV);
    return ALC_TEST_PASS;
}

static int plantedExit(void) {
    exit(3);
}

/// Hangs, with a child of its own that hangs too (as a test's `alcove run` could); the child
/// writes its pid to ALC_TEST_PLANTED_PIDFILE, so that the runner's test can see it killed.
static int plantedHang(void) {
    if (fork() == 0) {
        const char* path = getenv("ALC_TEST_PLANTED_PIDFILE");
        FILE* f = path ? fopen(path, "w") : NULL;
        if (f) {
            fprintf(f, "%ld\n", (long)getpid());
            fclose(f);
        }
        for (;;) pause();
    }
    while (pause() < 0) {
    }
    return ALC_TEST_FAIL;  // not reached: the runner kills it
}

__attribute__((constructor)) static void registerPlanted(void) {
    const char* planted = getenv("ALC_TEST_PLANTED");
    if (!planted) return;
    if (!strcmp(planted, "hang")) {
        alct_register("runner_plantedPass", __FILE__, plantedPass, 0);
        alct_register("runner_plantedHang", __FILE__, plantedHang, 0);
        return;
    }
    alct_register("runner_plantedPass", __FILE__, plantedPass, 0);
    alct_register("runner_plantedFail", __FILE__, plantedFail, 0);
    alct_register("runner_plantedCrash", __FILE__, plantedCrash, 1);
    alct_register("runner_plantedExit", __FILE__, plantedExit, 0);
}

/// The line of `text` that starts with `start`, or NULL.
static const char* lineStarting(const char* text, const char* start) {
    for (const char* p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (!strncmp(p, start, strlen(start))) return p;
    }
    return NULL;
}

/// Runs this binary again on the planted tests, with the environment `env`, into `text`;
/// returns its exit status, or -1 when it cannot run it.
static int runPlanted(const char* env, char* text, size_t size) {
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return -1;
    exe[len] = 0;
    const char* dir = alct_tmpDir("runner", NULL);
    char cmd[4096], path[1100];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    snprintf(cmd, sizeof cmd, "%s '%s' runner_planted > '%s' 2>&1", env, exe, path);
    int rc = alct_sh(cmd);
    FILE* f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(text, 1, size - 1, f);
    fclose(f);
    text[n] = 0;
    return rc;
}

ALC_TEST(runner_crashesAndExitsFailAlone) {
    static char text[16384];
    int rc = runPlanted("ALC_TEST_PLANTED=1 ALC_TEST_JOBS=2", text, sizeof text);
    if (rc < 0) SKIP_TEST("no /proc/self/exe to run the runner again");
    ENSURE_MSG(rc == 1, "exit status %d (expected 1: tests failed)", rc);
    ENSURE_MSG(lineStarting(text, "1 passed, 3 failed, 0 skipped\n"), "closing line: %s", text);
    ENSURE(lineStarting(text, "PASS runner_plantedPass "));
    const char* crash = lineStarting(text, "FAIL runner_plantedCrash ");
    ENSURE_MSG(crash && strstr(crash, "killed by signal 11"), "%s", text);
    const char* ex = lineStarting(text, "FAIL runner_plantedExit ");
    ENSURE_MSG(ex && strstr(ex, "exited with status 3 before its result"), "%s", text);
    // a test's own messages come just before its line
    const char* msg = lineStarting(text, "  planted failure message\n");
    ENSURE_MSG(msg && !strncmp(strchr(msg, '\n') + 1, "FAIL runner_plantedFail ", 24), "%s", text);
    ENSURE_MSG(strstr(text, "4 tests in 2 processes"), "%s", text);
    alct_note(
        "four planted tests in 2 processes: a crash (signal 11) and an exit(3) fail alone, "
        "the others count");
    return ALC_TEST_PASS;
}

/// Whether process `pid` has ended: no such process, or a zombie that nobody reaped (an orphan
/// in a container whose first process does not reap).
static int processGone(pid_t pid) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return 1;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = 0;
    const char* close = strrchr(stat, ')');  // "pid (name) S ...": the state follows the name
    return close && close[1] == ' ' && close[2] == 'Z';
}

ALC_TEST(runner_timeoutKillsTheTestAndItsChildren) {
    const char* dir = alct_tmpDir("runner_timeout", NULL);
    char pidfile[1100], env[1400];
    snprintf(pidfile, sizeof pidfile, "%s/child.pid", dir);
    snprintf(env, sizeof env,
             "ALC_TEST_PLANTED=hang ALC_TEST_PLANTED_PIDFILE='%s' ALC_TEST_JOBS=2 "
             "ALC_TEST_TIMEOUT=2",
             pidfile);
    static char text[16384];
    int rc = runPlanted(env, text, sizeof text);
    if (rc < 0) SKIP_TEST("no /proc/self/exe to run the runner again");
    ENSURE_MSG(rc == 1, "exit status %d (expected 1: a test failed)\n%s", rc, text);
    ENSURE_MSG(lineStarting(text, "1 passed, 1 failed, 0 skipped\n"), "closing line: %s", text);
    const char* hang = lineStarting(text, "FAIL runner_plantedHang ");
    ENSURE_MSG(hang && strstr(hang, "timed out: killed after ALC_TEST_TIMEOUT = 2 s"), "%s", text);
    // the hanging test's own child went with it (its process group was killed)
    FILE* f = fopen(pidfile, "r");
    ENSURE_MSG(f != NULL, "the planted test's child left no pid in %s", pidfile);
    long pid = 0;
    ENSURE(fscanf(f, "%ld", &pid) == 1 && pid > 1);
    fclose(f);
    int gone = 0;
    for (int i = 0; i < 100 && !gone; i++) {  // SIGKILL is asynchronous: give it up to 1 s
        gone = processGone((pid_t)pid);
        struct timespec nap = {0, 10000000};
        if (!gone) nanosleep(&nap, NULL);
    }
    if (!gone) kill((pid_t)pid, SIGKILL);
    ENSURE_MSG(gone, "the hanging test's child %ld outlived it", pid);
    alct_note("a test past ALC_TEST_TIMEOUT = 2 s failed alone, its child killed with it");
    return ALC_TEST_PASS;
}
