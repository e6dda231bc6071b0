// Test runner: runs every registered test (or those whose name or file contains argv[1]) and
// ends with "N passed, N failed, N skipped" on a line of its own. The tests run in ALC_TEST_JOBS
// child processes at once (default: the online cores, at most 8), each test in a process of its
// own whose output is printed whole when it ends; a test that crashes fails alone, and one that
// runs past ALC_TEST_TIMEOUT seconds (default 1200; 0: no limit) is killed and fails alone.
#define _POSIX_C_SOURCE 200809L
#include "test_macros.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS         1024
#define MAX_JOBS          64
#define DEFAULT_TIMEOUT_S 1200  // 8x the slowest test (150 s on 2 cores, 2026-11-28)

typedef struct {
    const char* name;
    const char* file;
    alcTestFn fn;
    int slow;  // started first when the tests run in several processes
} TestEntry;

static TestEntry g_tests[MAX_TESTS];
static int g_ntest = 0;
static char g_skip[512];
static char g_notes[8192];

void alct_register(const char* name, const char* file, alcTestFn fn, int slow) {
    if (g_ntest < MAX_TESTS) {
        g_tests[g_ntest].name = name;
        g_tests[g_ntest].file = file;
        g_tests[g_ntest].fn = fn;
        g_tests[g_ntest].slow = slow;
        g_ntest++;
    }
}

double alct_tolScale(void) {
    const char* s = getenv("ALC_TOL_SCALE");
    double v = s ? atof(s) : 1.0;
    return v > 0 ? v : 1.0;
}

const char* alct_rootDir(void) {
    const char* s = getenv("ALC_ROOT");
    return s ? s : ".";
}

const char* alct_sharedDir(void) {
    static char path[1024];
    const char* env = getenv("ALC_SHARED");
    if (env) {
        snprintf(path, sizeof path, "%s", env);
    } else {
        snprintf(path, sizeof path, "%s/../shared", alct_rootDir());
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return path;
}

void alct_skipReason(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_skip, sizeof g_skip, fmt, ap);
    va_end(ap);
}

void alct_note(const char* fmt, ...) {
    size_t len = strlen(g_notes);
    if (len + 8 >= sizeof g_notes) return;
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(g_notes + len, sizeof g_notes - len, "    ");
    if (n > 0) len += (size_t)n;
    vsnprintf(g_notes + len, sizeof g_notes - len, fmt, ap);
    va_end(ap);
    len = strlen(g_notes);
    if (len + 1 < sizeof g_notes) {
        g_notes[len] = '\n';
        g_notes[len + 1] = 0;
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpEntry(const void* a, const void* b) {
    const TestEntry* ta = (const TestEntry*)a;
    const TestEntry* tb = (const TestEntry*)b;
    int c = strcmp(ta->file, tb->file);
    return c ? c : strcmp(ta->name, tb->name);
}

#ifdef ALC_GPU_TESTS
#include "alc/alc.h"
int alcg_device_emulated(void);  // cuda/device.cu
#endif

/// Runs one test in this process and prints its line and notes; returns ALC_TEST_*.
static int runTest(const TestEntry* t) {
    g_skip[0] = 0;
    g_notes[0] = 0;
    double ts = now();
    int r = t->fn();
    double dt = now() - ts;
    const char* tag = r == ALC_TEST_PASS ? "PASS" : (r == ALC_TEST_SKIP ? "SKIP" : "FAIL");
    printf("%s %-40s %7.2f s%s%s\n", tag, t->name, dt, g_skip[0] ? "  -- " : "", g_skip);
    if (g_notes[0]) printf("%s", g_notes);
    fflush(stdout);
    return r;
}

/// Worker processes for ALC_TEST_JOBS: 1 runs the tests in this process, one after another (for
/// a debugger); the default is the online cores, at most 8.
static int jobCount(void) {
    const char* s = getenv("ALC_TEST_JOBS");
    long n = s ? strtol(s, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    if (n > 8 && !s) n = 8;
    return n > MAX_JOBS ? MAX_JOBS : (int)n;
}

/// Seconds a test may run before it is killed and fails (ALC_TEST_TIMEOUT; 0: no limit).
static int timeoutSeconds(void) {
    const char* s = getenv("ALC_TEST_TIMEOUT");
    long v = s ? strtol(s, NULL, 10) : DEFAULT_TIMEOUT_S;
    return v > 0 && v < 1000000 ? (int)v : 0;
}

// One-process mode: what the alarm that ends a test past its time prints (made before the test).
static char g_alarmLine[256];
static pid_t g_runnerPid;  // a test's own child that inherits the handler exits quietly

static void onAlarm(int sig) {
    (void)sig;
    // async-signal-safe: write() of a line prepared before the test started, then _exit
    if (getpid() != g_runnerPid) _exit(1);
    ssize_t w = write(STDOUT_FILENO, g_alarmLine, strlen(g_alarmLine));
    (void)w;
    _exit(1);
}

typedef struct {
    pid_t pid;  // 0: free
    int test;
    FILE* out;  // the child's stdout and stderr
    double t0;
    int timedOut;  // the limit in seconds when the runner killed it for running past it, else 0
} Worker;

static Worker g_workers[MAX_JOBS];

/// SIGINT, SIGTERM or SIGHUP to the runner: the workers' process groups (which a terminal's ^C
/// does not reach) are killed with it.
static void onStop(int sig) {
    for (int w = 0; w < MAX_JOBS; w++) {
        if (g_workers[w].pid > 0) kill(-g_workers[w].pid, SIGKILL);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/// Starts test `i` in a child process whose output goes to a temporary file. The child exits
/// with 100 + ALC_TEST_* after printing its line; anything else is a crash.
static int startWorker(Worker* w, int i) {
    w->out = tmpfile();
    if (!w->out) return 0;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fclose(w->out);
        return 0;
    }
    if (pid == 0) {
        setpgid(0, 0);  // a group of its own, so that a kill reaches the processes it starts too
        int fd = fileno(w->out);
        if (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(99);
        setvbuf(stdout, NULL, _IOLBF, 0);  // keep the order of stdout and stderr lines
        int r = runTest(&g_tests[i]);
        exit(100 + r);  // exit, not _exit: atexit handlers remove the test's folders
    }
    setpgid(pid, pid);  // also here: whichever of the two runs first
    w->pid = pid;
    w->test = i;
    w->t0 = now();
    w->timedOut = 0;
    return 1;
}

/// Copies a finished child's output to stdout and returns its ALC_TEST_* (FAIL on a crash).
static int finishWorker(Worker* w, int status) {
    char buf[8192];
    size_t n;
    rewind(w->out);
    while ((n = fread(buf, 1, sizeof buf, w->out)) > 0) fwrite(buf, 1, n, stdout);
    fclose(w->out);
    int r = ALC_TEST_FAIL;
    if (WIFEXITED(status) && WEXITSTATUS(status) >= 100 && WEXITSTATUS(status) <= 102) {
        r = WEXITSTATUS(status) - 100;
    } else if (w->timedOut) {
        printf("FAIL %-40s %7.2f s  -- timed out: killed after ALC_TEST_TIMEOUT = %d s\n",
               g_tests[w->test].name, now() - w->t0, w->timedOut);
    } else if (WIFSIGNALED(status)) {
        printf("FAIL %-40s %7.2f s  -- killed by signal %d (%s)\n", g_tests[w->test].name,
               now() - w->t0, WTERMSIG(status), strsignal(WTERMSIG(status)));
    } else {
        printf("FAIL %-40s %7.2f s  -- exited with status %d before its result\n",
               g_tests[w->test].name, now() - w->t0, WEXITSTATUS(status));
    }
    fflush(stdout);
    w->pid = 0;
    return r;
}

int main(int argc, char** argv) {
    const char* filter = argc > 1 ? argv[1] : NULL;
    int jobs = jobCount();
#ifdef ALC_GPU_TESTS
    // GPU tests run only on a usable device; otherwise the whole runner is waived (exit 2,
    // cuda-samples' EXIT_WAIVED): never "passed" without a GPU
    if (!alcu_cudaAvailable()) {
        printf("waived: no usable CUDA device (%d GPU tests not run)\n", g_ntest);
        printf("0 passed, 0 failed, %d skipped\n", g_ntest);
        return 2;
    }
    if (alcg_device_emulated()) {
        printf(
            "GPU tests on alcove's SIMT emulation (cuda/*.cu run on the CPU, seed %s): they "
            "validate the kernels' logic against the reference, not a device\n",
            getenv("ALC_EMU_SEED") ? getenv("ALC_EMU_SEED") : "1");
    } else {
        jobs = 1;  // a CUDA context does not survive fork(), and the tests share one device
    }
#endif
    int passed = 0, failed = 0, skipped = 0;
    qsort(g_tests, (size_t)g_ntest, sizeof g_tests[0], cmpEntry);
    // the order to start them in: slow tests first, so that the workers end together
    int order[MAX_TESTS], n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < g_ntest; i++) {
            if (filter && !strstr(g_tests[i].name, filter) && !strstr(g_tests[i].file, filter)) {
                continue;
            }
            if (g_tests[i].slow == (pass == 0)) order[n++] = i;
        }
    }
    if (jobs > n) jobs = n > 0 ? n : 1;
    int timeout = timeoutSeconds();
    double t0 = now();
    if (jobs == 1) {
        g_runnerPid = getpid();
        if (timeout) signal(SIGALRM, onAlarm);
        for (int k = 0; k < n; k++) {
            const TestEntry* t = &g_tests[order[k]];
            snprintf(g_alarmLine, sizeof g_alarmLine,
                     "FAIL %-40s %7d s  -- timed out (ALC_TEST_TIMEOUT); tests not run: %d\n"
                     "%d passed, %d failed, %d skipped\n",
                     t->name, timeout, n - k - 1, passed, failed + 1, skipped);
            if (timeout) alarm((unsigned)timeout);
            int r = runTest(t);
            if (timeout) alarm(0);
            passed += r == ALC_TEST_PASS;
            skipped += r == ALC_TEST_SKIP;
            failed += r != ALC_TEST_PASS && r != ALC_TEST_SKIP;
        }
    } else {
        printf("%d tests in %d processes (ALC_TEST_JOBS; 1 runs them in this one)\n", n, jobs);
        fflush(stdout);
        Worker* workers = g_workers;
        signal(SIGINT, onStop);
        signal(SIGTERM, onStop);
        signal(SIGHUP, onStop);
        int next = 0, running = 0;
        while (next < n || running > 0) {
            for (int w = 0; w < jobs && next < n; w++) {
                if (workers[w].pid) continue;
                if (!startWorker(&workers[w], order[next])) {
                    printf("FAIL %-40s    0.00 s  -- cannot start a process: %s\n",
                           g_tests[order[next]].name, strerror(errno));
                    failed++;
                }
                running += workers[w].pid != 0;
                next++;
            }
            int status;
            pid_t pid = waitpid(-1, &status, timeout ? WNOHANG : 0);
            if (pid < 0) break;  // no child left (cannot happen while running > 0)
            if (pid == 0) {      // none ended: kill those past their time, look again shortly
                for (int w = 0; w < jobs; w++) {
                    if (workers[w].pid && !workers[w].timedOut && now() - workers[w].t0 > timeout) {
                        workers[w].timedOut = timeout;
                        kill(-workers[w].pid, SIGKILL);
                    }
                }
                struct timespec nap = {0, 20000000};
                nanosleep(&nap, NULL);
                continue;
            }
            for (int w = 0; w < jobs; w++) {
                if (workers[w].pid != pid) continue;
                int r = finishWorker(&workers[w], status);
                passed += r == ALC_TEST_PASS;
                skipped += r == ALC_TEST_SKIP;
                failed += r != ALC_TEST_PASS && r != ALC_TEST_SKIP;
                running--;
            }
        }
    }
    printf("total %.1f s\n", now() - t0);
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
