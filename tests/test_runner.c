// The test runner itself (tests/main.c): with ALC_TEST_JOBS > 1 every test runs in a process of
// its own, so a test that crashes or exits fails alone, with the reason, and the others still
// run and count. Checked by running this binary again on four planted tests, which register
// only when ALC_TEST_PLANTED is set (so they never run in the suite itself).
#include "test_files.h"
#include "test_macros.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

__attribute__((constructor)) static void registerPlanted(void) {
    if (!getenv("ALC_TEST_PLANTED")) return;
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

ALC_TEST(runner_crashesAndExitsFailAlone) {
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) SKIP_TEST("no /proc/self/exe to run the runner again");
    exe[len] = 0;
    const char* dir = alct_tmpDir("runner", NULL);
    char cmd[4096], path[1100];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    snprintf(cmd, sizeof cmd, "ALC_TEST_PLANTED=1 ALC_TEST_JOBS=2 '%s' runner_planted > '%s' 2>&1",
             exe, path);
    int rc = alct_sh(cmd);
    static char text[16384];
    FILE* f = fopen(path, "r");
    ENSURE(f != NULL);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
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
