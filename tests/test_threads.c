// Threads of the reference backend (issue 16, item 6): `--threads 1` starts no thread at all
// (the loader's initial-state check used to start the OpenMP pool), while `--threads 2` does,
// counted with strace (clone and clone3 system calls of the whole process tree; skipped with
// the reason where strace is missing or may not trace); and the default count leaves a busy
// core alone.
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/// Threads and processes `alcove run ball_plate --threads N` creates; -1 when strace fails.
static int clones(int threads) {
    const char* dir = alct_tmpDir("threads", NULL);
    const char* build = getenv("ALC_BUILD");
    char cmd[4096], path[1200];
    snprintf(path, sizeof path, "%s/strace_%d.txt", dir, threads);
    snprintf(cmd, sizeof cmd,
             "strace -f -e trace=clone,clone3 -o '%s' %s/alcove run %s/scenes/ball_plate.yaml "
             "--threads %d --steps 1 --frames none --no-states --quiet --backend ref --out '%s/out' "
             ">/dev/null 2>&1",
             path, build ? build : "build", alct_rootDir(), threads, dir);
    if (system(cmd) != 0) return -1;
    FILE* f = fopen(path, "r");
    if (!f) return -1;
    int n = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) n += strstr(line, " clone") != NULL;
    fclose(f);
    return n;
}

ALC_TEST(threads_oneThreadStartsNone) {
    if (system("strace -o /dev/null true >/dev/null 2>&1") != 0) {
        alct_skipReason("strace missing or not permitted to trace here");
        return ALC_TEST_SKIP;
    }
    int two = clones(2), one = clones(1);
    alct_note("clone calls: %d with --threads 2, %d with --threads 1", two, one);
    ENSURE_MSG(two > 0, "--threads 2 started no thread: the count cannot see a pool");
    ENSURE_MSG(one == 0, "--threads 1 started %d threads", one);
    return ALC_TEST_PASS;
}

/// With the default thread count a sim leaves a busy core alone: made beside a process that
/// spins on one core, its team is at most the cores minus that one; a fixed count is kept.
ALC_TEST(threads_defaultLeavesBusyCoresAlone) {
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/scenes/fine_sphere.yaml", alct_rootDir());
    alcLoadDef ld = alc_defaultLoadDef();
    alcModel* m = NULL;
    ENSURE(alc_loadScene(path, &ld, &m, err, sizeof err) == ALC_OK);
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    alcSim* sim = NULL;
    ENSURE_OK(alc_makeSim(m, &def, &sim));
    int idle = alc_simThreads(sim), cores = 0;
    alc_deleteSim(sim);
#ifdef _OPENMP
    cores = omp_get_max_threads();
#endif
    if (cores < 2) {
        alc_deleteModel(m);
        alct_skipReason("one core only: nothing to leave alone");
        return ALC_TEST_SKIP;
    }
    pid_t busy = fork();
    ENSURE(busy >= 0);
    if (busy == 0) {
        alarm(10);  // never outlive the test
        for (volatile unsigned long i = 0;; i++) {
        }
    }
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    sim = NULL;
    alctStatus st = alc_makeSim(m, &def, &sim);
    int loaded = alc_simThreads(sim);
    alc_deleteSim(sim);
    def.threads = cores;
    sim = NULL;
    if (st == ALC_OK) st = alc_makeSim(m, &def, &sim);
    int fixed = alc_simThreads(sim);
    alc_deleteSim(sim);
    kill(busy, SIGKILL);
    waitpid(busy, NULL, 0);
    alc_deleteModel(m);
    ENSURE_OK(st);
    alct_note("%d cores: %d threads on the machine as it was, %d beside a busy core, %d when fixed",
              cores, idle, loaded, fixed);
    ENSURE(idle >= 1 && idle <= cores);
    ENSURE_MSG(loaded >= 1 && loaded <= cores - 1, "%d threads beside a busy core", loaded);
    ENSURE(fixed == cores);
    return ALC_TEST_PASS;
}
