// alcove batch: a batch file's jobs run as `alcove run` processes, in parallel over the cores
// (reference backend) or the GPUs (one job per device), resumable, with a summary; or as a
// Slurm job array (docs/batch.md).
#include "batch_spec.h"
#include "cli.h"
#include "io_atomic.h"
#include "state_io.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop = 0;

static void onSignal(int sig) {
    g_stop = sig;
}

/// In a child: die with the parent (SIGTERM when it exits, even by kill -9), with SIGINT and
/// SIGTERM back to their default actions (the batch's handler would only set a flag). The check
/// of the parent after prctl closes the race of a parent that died in between.
static void dieWithParent(pid_t parent) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(143);
}

static void batchUsage(FILE* out) {
    fprintf(out,
            "usage: alcove batch BATCH.yaml [options]\n"
            "\n"
            "Run every job of a batch file (docs/batch.md): scenes x presets x cases x the\n"
            "product of the swept parameters, each `alcove run` into OUT/NNNN_scene_param-value.\n"
            "A batch started again skips finished jobs and resumes unfinished ones from their\n"
            "checkpoints. Writes OUT/summary.csv and prints the table.\n"
            "\n"
            "options:\n"
            "  --out DIR      batch folder (default: the file's out, else out/NAME)\n"
            "  --jobs N       jobs at once (default: reference backend, the cores divided by the\n"
            "                 threads per job; cuda, one job per GPU)\n"
            "  --retry N      attempts after a failure (default: the file's retry, else 0)\n"
            "  --list         print the jobs and exit\n"
            "  --summary      only collect the summary of the jobs run so far\n"
            "  --task I       run job I only (what each task of a Slurm array runs)\n"
            "  --slurm        write OUT/batch.slurm (one array task per job) and submit it with\n"
            "                 sbatch; with --dry-run print it instead\n"
            "  --dry-run      with --slurm: print the script, submit nothing\n"
            "  --quiet        no progress line and no table\n"
            "  -h, --help     this text\n");
}

// ---- one job ------------------------------------------------------------------------------

/// Path of this executable (to run `alcove run` and `alcove check` of the same build).
static const char* selfExe(void) {
    static char exe[4096];
    if (!exe[0]) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        if (n <= 0) snprintf(exe, sizeof exe, "alcove");
    }
    return exe;
}

/// Run argv with stdout and stderr appended to logPath; the exit status (128 + signal when
/// killed), or -1 when it could not start. gpu >= 0 sets CUDA_VISIBLE_DEVICES for it.
static int runLogged(char* const* argv, const char* logPath, int gpu) {
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dieWithParent(parent);  // a killed batch takes its jobs with it
        int fd = open(logPath, O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        if (gpu >= 0) {
            char v[16];
            snprintf(v, sizeof v, "%d", gpu);
            setenv("CUDA_VISIBLE_DEVICES", v, 1);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

/// An argument vector of owned strings, NULL-terminated.
#define ARGS_MAX 254
typedef struct {
    char* a[ARGS_MAX + 2];
    int n;
} Args;

static void argAdd(Args* v, const char* s) {
    if (v->n < ARGS_MAX + 1) v->a[v->n++] = strdup(s);
    v->a[v->n] = NULL;
}

static void argFree(Args* v) {
    for (int i = 0; i < v->n; i++) free(v->a[i]);
    v->n = 0;
}

static void jobDir(char* out, size_t n, const alcBatch* b, const alcBatchJob* j) {
    snprintf(out, n, "%s/%s", b->out, j->name);
}

/// The status line of a finished job ("ok clean", "failed 1", ...), or "" when none.
static void readStatus(const char* dir, char* out, size_t n) {
    char path[4200];
    snprintf(path, sizeof path, "%s/job.status", dir);
    out[0] = 0;
    FILE* fp = fopen(path, "r");
    if (!fp) return;
    if (!fgets(out, (int)n, fp)) out[0] = 0;
    fclose(fp);
    out[strcspn(out, "\n")] = 0;
}

static void writeStatus(const char* dir, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void writeStatus(const char* dir, const char* fmt, ...) {
    char path[4200], err[512];
    snprintf(path, sizeof path, "%s/job.status", dir);
    alciFile f;
    if (alci_file_open(&f, path, err, sizeof err) != ALC_OK) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f.fp, fmt, ap);
    va_end(ap);
    fputc('\n', f.fp);
    alci_file_commit(&f, err, sizeof err);
}

/// Run one job to its end (resuming it when it has run before), retrying a failure, then check
/// its states; writes DIR/job.status. Returns 0 when the job finished (whatever the check said),
/// else the run's exit status.
static int runJob(const alcBatch* b, const alcBatchJob* j, int retry, int gpu) {
    char dir[4096], logPath[4200], argsPath[4200];
    jobDir(dir, sizeof dir, b, j);
    char err[1024];
    if (alci_mkdirs(dir, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove batch: %s\n", err);
        return 1;
    }
    snprintf(logPath, sizeof logPath, "%s/log.txt", dir);
    snprintf(argsPath, sizeof argsPath, "%s/run.args", dir);
    int code = 1;
    for (int attempt = 0; attempt <= retry && !g_stop; attempt++) {
        Args v = {{0}, 0};
        argAdd(&v, selfExe());
        argAdd(&v, "run");
        if (access(argsPath, R_OK) == 0) {
            // started before: continue from its checkpoint (or start again without one)
            argAdd(&v, "--resume");
            argAdd(&v, dir);
        } else {
            argAdd(&v, j->scene);
            argAdd(&v, "--out");
            argAdd(&v, dir);
            if (j->preset) {
                argAdd(&v, "--preset");
                argAdd(&v, j->preset);
            }
            for (int s = 0; s < j->nset; s++) {
                char set[1024];
                snprintf(set, sizeof set, "%s=%s", j->setName[s], j->setValue[s]);
                argAdd(&v, "--set");
                argAdd(&v, set);
            }
            char num[32];
            if (b->steps > 0) {
                snprintf(num, sizeof num, "%d", b->steps);
                argAdd(&v, "--steps");
                argAdd(&v, num);
            }
            if (b->backend) {
                argAdd(&v, "--backend");
                argAdd(&v, b->backend);
            }
            if (b->contact) {
                argAdd(&v, "--contact");
                argAdd(&v, b->contact);
            }
            snprintf(num, sizeof num, "%d", b->threads > 0 ? b->threads : 1);
            argAdd(&v, "--threads");
            argAdd(&v, num);
            if (b->frames) {
                argAdd(&v, "--frames");
                argAdd(&v, b->frames);
            }
            if (b->every >= 0) {
                snprintf(num, sizeof num, "%d", b->every);
                argAdd(&v, "--every");
                argAdd(&v, num);
            }
            for (int a = 0; a < b->nargs; a++) argAdd(&v, b->args[a]);
            argAdd(&v, "--quiet");
        }
        code = v.n < ARGS_MAX ? runLogged(v.a, logPath, gpu) : -1;
        argFree(&v);
        if (code == 0 || code == 130 || code == 143) break;
    }
    if (code != 0) {
        if (code != 130 && code != 143) writeStatus(dir, "failed %d", code);
        return code;
    }
    const char* verdict = "unchecked";
    if (b->check) {
        char checkLog[4200];
        snprintf(checkLog, sizeof checkLog, "%s/check.txt", dir);
        unlink(checkLog);
        Args v = {{0}, 0};
        argAdd(&v, selfExe());
        argAdd(&v, "check");
        argAdd(&v, dir);
        int rc = runLogged(v.a, checkLog, -1);
        argFree(&v);
        verdict = rc == 0 ? "clean" : rc == 1 ? "NOT-CLEAN" : "check-error";
    }
    writeStatus(dir, "ok %s", verdict);
    return 0;
}

// ---- the summary ----------------------------------------------------------------------------

typedef struct {
    char status[160];
    char check[160];
    long steps;
    double newton, cg, seconds;
    long capped;
    char warnings[512];
    double speed;  // largest |mean velocity| of a solid body in the last state (m/s)
} JobResult;

/// Sum the columns of stats.csv (header names looked up).
static void readStats(const char* dir, JobResult* r) {
    char path[4200], line[8192];
    snprintf(path, sizeof path, "%s/stats.csv", dir);
    FILE* fp = fopen(path, "r");
    if (!fp) return;
    int cNewton = -1, cCg = -1, cTime = -1, cCapped = -1;
    if (fgets(line, sizeof line, fp)) {
        int c = 0;
        for (char* t = strtok(line, ",\n"); t; t = strtok(NULL, ",\n"), c++) {
            if (!strcmp(t, "newton")) cNewton = c;
            if (!strcmp(t, "cg_total")) cCg = c;
            if (!strcmp(t, "time_step")) cTime = c;
            if (!strcmp(t, "capped")) cCapped = c;
        }
    }
    while (fgets(line, sizeof line, fp)) {
        if (!strchr(line, '\n')) break;  // torn
        int c = 0;
        r->steps++;
        for (char* t = strtok(line, ",\n"); t; t = strtok(NULL, ",\n"), c++) {
            double v = atof(t);
            if (c == cNewton) r->newton += v;
            if (c == cCg) r->cg += v;
            if (c == cTime) r->seconds += v;
            if (c == cCapped) r->capped += (long)v;
        }
    }
    fclose(fp);
}

/// "NAME x N; ..." from the "warning NAME: N" lines of summary.txt.
static void readWarnings(const char* dir, JobResult* r) {
    char path[4200], line[1024];
    snprintf(path, sizeof path, "%s/summary.txt", dir);
    FILE* fp = fopen(path, "r");
    if (!fp) return;
    while (fgets(line, sizeof line, fp)) {
        char name[256];
        int n = 0;
        if (sscanf(line, "warning %255[^:]: %d", name, &n) == 2) {
            size_t len = strlen(r->warnings);
            snprintf(r->warnings + len, sizeof r->warnings - len, "%s%s x %d", len ? "; " : "",
                     name, n);
        }
    }
    fclose(fp);
}

/// The largest |mean velocity| of a solid (non-obstacle) body in the run's last state.
static void readSpeed(const char* dir, JobResult* r) {
    char path[4200], err[512];
    char** names = NULL;
    int n = alc_cliListStates(dir, &names);
    r->speed = NAN;
    if (n <= 0) {
        alc_cliFreeNames(names, n);
        return;
    }
    snprintf(path, sizeof path, "%s/topology.alct", dir);
    alciTopology t;
    long step = 0;
    double time = 0, *x = NULL, *v = NULL;
    int nvert = 0;
    if (alci_state_readTopology(path, &t, err, sizeof err) == ALC_OK) {
        snprintf(path, sizeof path, "%s/states/%s", dir, names[n - 1]);
        if (alci_state_read(path, &step, &time, &nvert, &x, &v, err, sizeof err) == ALC_OK && v &&
            nvert == t.nvert) {
            r->speed = 0;
            for (int bd = 0; bd < t.nbody; bd++) {
                if (t.body_type[bd] != ALC_BODY_SOLID || t.body_vertnum[bd] <= 0) continue;
                double m[3] = {0, 0, 0};
                for (int i = t.body_vertadr[bd]; i < t.body_vertadr[bd] + t.body_vertnum[bd]; i++)
                    for (int k = 0; k < 3; k++) m[k] += v[3 * i + k];
                double s = sqrt(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]) / t.body_vertnum[bd];
                if (s > r->speed) r->speed = s;
            }
        }
        free(x);
        free(v);
        alci_state_freeTopology(&t);
    }
    alc_cliFreeNames(names, n);
}

static void collect(const alcBatch* b, const alcBatchJob* j, JobResult* r) {
    char dir[4096];
    jobDir(dir, sizeof dir, b, j);
    memset(r, 0, sizeof *r);
    char st[128];
    readStatus(dir, st, sizeof st);
    if (!st[0]) {
        char args[4200];
        snprintf(args, sizeof args, "%s/run.args", dir);
        snprintf(r->status, sizeof r->status, "%s",
                 access(args, R_OK) == 0 ? "unfinished" : "pending");
    } else if (!strncmp(st, "ok ", 3)) {
        snprintf(r->status, sizeof r->status, "ok");
        snprintf(r->check, sizeof r->check, "%s", st + 3);
    } else {
        snprintf(r->status, sizeof r->status, "%s", st);
    }
    readStats(dir, r);
    readWarnings(dir, r);
    readSpeed(dir, r);
}

/// A CSV field, quoted when needed.
static void csvField(FILE* fp, const char* s) {
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"') fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

/// OUT/summary.csv and the printed table; returns the number of jobs not "ok".
static int summarize(const alcBatch* b, int quiet) {
    char path[4200], err[1024];
    snprintf(path, sizeof path, "%s/summary.csv", b->out);
    alciFile f;
    if (alci_file_open(&f, path, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove batch: %s\n", err);
        return b->njob;
    }
    fprintf(f.fp, "job,scene,preset");
    for (int k = 0; k < b->nsweep; k++) fprintf(f.fp, ",%s", b->sweepName[k]);
    fprintf(f.fp,
            ",overrides,status,steps,newton_per_step,cg_per_step,seconds,capped_steps,"
            "max_body_speed,check,warnings\n");
    if (!quiet) {
        printf("%-44s %-10s %6s %8s %8s %9s %7s %10s %-10s %s\n", "job", "status", "steps",
               "newton/s", "cg/step", "seconds", "capped", "speed", "check", "warnings");
    }
    int bad = 0;
    for (int i = 0; i < b->njob; i++) {
        const alcBatchJob* j = &b->job[i];
        JobResult r;
        collect(b, j, &r);
        bad += strcmp(r.status, "ok") != 0;
        const char* stem = strrchr(j->scene, '/');
        csvField(f.fp, j->name);
        fputc(',', f.fp);
        csvField(f.fp, stem ? stem + 1 : j->scene);
        fputc(',', f.fp);
        csvField(f.fp, j->preset ? j->preset : "");
        // the swept parameters as columns; every override in one field
        char all[1024] = "";
        for (int k = 0; k < b->nsweep; k++) {
            const char* v = "";
            for (int s = 0; s < j->nset; s++)
                if (!strcmp(j->setName[s], b->sweepName[k])) v = j->setValue[s];
            fputc(',', f.fp);
            csvField(f.fp, v);
        }
        for (int s = 0; s < j->nset; s++) {
            size_t len = strlen(all);
            snprintf(all + len, sizeof all - len, "%s%s=%s", s ? " " : "", j->setName[s],
                     j->setValue[s]);
        }
        fputc(',', f.fp);
        csvField(f.fp, all);
        double st = r.steps > 0 ? (double)r.steps : (double)NAN;
        fprintf(f.fp, ",%s,%ld,%.4g,%.4g,%.4g,%ld,%.6g,", r.status, r.steps, r.newton / st,
                r.cg / st, r.seconds, r.capped, r.speed);
        csvField(f.fp, r.check);
        fputc(',', f.fp);
        csvField(f.fp, r.warnings);
        fputc('\n', f.fp);
        if (!quiet) {
            printf("%-44.44s %-10.10s %6ld %8.3g %8.3g %9.3g %7ld %10.3g %-10s %s\n", j->name,
                   r.status, r.steps, r.newton / st, r.cg / st, r.seconds, r.capped, r.speed,
                   r.check[0] ? r.check : "-", r.warnings[0] ? r.warnings : "-");
        }
    }
    if (alci_file_commit(&f, err, sizeof err) != ALC_OK) fprintf(stderr, "alcove batch: %s\n", err);
    if (!quiet) printf("summary: %s (%d of %d jobs ok)\n", path, b->njob - bad, b->njob);
    return bad;
}

// ---- Slurm ----------------------------------------------------------------------------------

static int slurmScript(const alcBatch* b, const char* specAbs, const char* outAbs, int threads,
                       int dryRun) {
    char path[4200], err[1024], logs[4200];
    snprintf(path, sizeof path, "%s/batch.slurm", b->out);
    snprintf(logs, sizeof logs, "%s/slurm", outAbs);
    if (!dryRun && alci_mkdirs(logs, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove batch: %s\n", err);
        return ALC_EXIT_FAIL;
    }
    char* text = NULL;
    size_t len = 0;
    FILE* fp = open_memstream(&text, &len);
    if (!fp) return ALC_EXIT_FAIL;
    char q[3][4400];
    alc_cliShellQuote(q[0], sizeof q[0], selfExe());
    alc_cliShellQuote(q[1], sizeof q[1], specAbs);
    alc_cliShellQuote(q[2], sizeof q[2], outAbs);
    fprintf(fp, "#!/bin/sh\n# written by alcove batch %s (one array task per job)\n", b->path);
    fprintf(fp, "#SBATCH --job-name=%s\n", b->name);
    fprintf(fp, "#SBATCH --array=0-%d\n", b->njob - 1);
    fprintf(fp, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=%d\n", threads);
    fprintf(fp, "#SBATCH --output=%s/task_%%a.out\n", logs);
    if (b->slurmPartition) fprintf(fp, "#SBATCH --partition=%s\n", b->slurmPartition);
    if (b->slurmTime) fprintf(fp, "#SBATCH --time=%s\n", b->slurmTime);
    if (b->slurmMem) fprintf(fp, "#SBATCH --mem=%s\n", b->slurmMem);
    if (b->backend && !strcmp(b->backend, "cuda")) fprintf(fp, "#SBATCH --gres=gpu:1\n");
    for (int i = 0; i < b->nslurmExtra; i++) fprintf(fp, "#SBATCH %s\n", b->slurmExtra[i]);
    fprintf(fp, "exec %s batch %s --out %s --task \"$SLURM_ARRAY_TASK_ID\"\n", q[0], q[1], q[2]);
    fclose(fp);
    if (dryRun) {
        fputs(text, stdout);
        free(text);
        return ALC_EXIT_OK;
    }
    alciFile f;
    int ok = alci_file_open(&f, path, err, sizeof err) == ALC_OK;
    if (ok) {
        alci_file_write(&f, text, len);
        ok = alci_file_commit(&f, err, sizeof err) == ALC_OK;
    }
    free(text);
    if (!ok) {
        fprintf(stderr, "alcove batch: %s\n", err);
        return ALC_EXIT_FAIL;
    }
    char cmd[4500];
    alc_cliShellQuote(q[0], sizeof q[0], path);
    snprintf(cmd, sizeof cmd, "sbatch %s", q[0]);
    printf("%s\n", cmd);
    fflush(stdout);
    int rc = system(cmd);
    if (rc != 0) {
        fprintf(stderr,
                "alcove batch: sbatch failed (status %d); the script is %s, and `alcove batch "
                "%s --summary` collects the results of an array run some other way\n",
                rc, path, b->path);
        return ALC_EXIT_FAIL;
    }
    return ALC_EXIT_OK;
}

// ---- the scheduler --------------------------------------------------------------------------

/// GPUs to spread cuda jobs over: CUDA_VISIBLE_DEVICES's list, else `nvidia-smi -L`'s count.
static int gpuCount(void) {
    const char* vis = getenv("CUDA_VISIBLE_DEVICES");
    if (vis && *vis) {
        int n = 1;
        for (const char* c = vis; *c; c++) n += *c == ',';
        return n;
    }
    FILE* p = popen("nvidia-smi -L 2>/dev/null", "r");
    if (!p) return 0;
    int n = 0;
    char line[512];
    while (fgets(line, sizeof line, p)) n += !strncmp(line, "GPU ", 4);
    pclose(p);
    return n;
}

int alc_cmdBatch(int argc, char** argv) {
    const char *spec = NULL, *outOpt = NULL;
    int jobs = 0, retry = -1, list = 0, summaryOnly = 0, task = -1, slurm = 0, dryRun = 0,
        quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            batchUsage(stdout);
            return ALC_EXIT_OK;
        } else if (!strcmp(a, "--out") && i + 1 < argc) {
            outOpt = argv[++i];
        } else if (!strcmp(a, "--jobs") && i + 1 < argc) {
            jobs = atoi(argv[++i]);
            if (jobs < 1) {
                fprintf(stderr, "alcove batch: --jobs expects an integer >= 1\n");
                return ALC_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--retry") && i + 1 < argc) {
            retry = atoi(argv[++i]);
            if (retry < 0) {
                fprintf(stderr, "alcove batch: --retry expects an integer >= 0\n");
                return ALC_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--task") && i + 1 < argc) {
            char* e = NULL;
            task = (int)strtol(argv[++i], &e, 10);
            if (!*argv[i] || *e || task < 0) {
                fprintf(stderr, "alcove batch: --task expects a job index >= 0\n");
                return ALC_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--list")) {
            list = 1;
        } else if (!strcmp(a, "--summary")) {
            summaryOnly = 1;
        } else if (!strcmp(a, "--slurm")) {
            slurm = 1;
        } else if (!strcmp(a, "--dry-run")) {
            dryRun = 1;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = 1;
        } else if (a[0] == '-') {
            fprintf(stderr, "alcove batch: unknown option '%s' (see alcove batch --help)\n", a);
            return ALC_EXIT_USAGE;
        } else if (!spec) {
            spec = a;
        } else {
            fprintf(stderr, "alcove batch: more than one batch file given ('%s')\n", a);
            return ALC_EXIT_USAGE;
        }
    }
    if (!spec) {
        batchUsage(stderr);
        return ALC_EXIT_USAGE;
    }
    if (dryRun && !slurm) {
        fprintf(stderr, "alcove batch: --dry-run goes with --slurm (--list prints the jobs)\n");
        return ALC_EXIT_USAGE;
    }
    alcBatch b;
    char err[2048];
    if (!alc_batchLoad(spec, &b, err, sizeof err)) {
        fprintf(stderr, "alcove batch: %s\n", err);
        return ALC_EXIT_USAGE;
    }
    if (outOpt) {
        free(b.out);
        b.out = strdup(outOpt);
    }
    if (retry >= 0) b.retry = retry;
    if (task >= b.njob) {
        fprintf(stderr, "alcove batch: --task %d: the batch has %d jobs (0 to %d)\n", task, b.njob,
                b.njob - 1);
        alc_batchFree(&b);
        return ALC_EXIT_USAGE;
    }
    if (list) {
        for (int i = 0; i < b.njob; i++) {
            const alcBatchJob* j = &b.job[i];
            printf("%s  %s", j->name, j->scene);
            if (j->preset) printf(" --preset %s", j->preset);
            for (int s = 0; s < j->nset; s++) printf(" --set %s=%s", j->setName[s], j->setValue[s]);
            printf("\n");
        }
        alc_batchFree(&b);
        return ALC_EXIT_OK;
    }
    int code = ALC_EXIT_OK;
    if (!dryRun && alci_mkdirs(b.out, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove batch: %s\n", err);
        alc_batchFree(&b);
        return ALC_EXIT_FAIL;
    }
    int cuda = b.backend && !strcmp(b.backend, "cuda");
    int threads = b.threads > 0 ? b.threads : 1;
    if (slurm) {
        char specAbs[4096], outAbs[4096];
        if (!realpath(spec, specAbs)) snprintf(specAbs, sizeof specAbs, "%s", spec);
        if (dryRun || !realpath(b.out, outAbs)) snprintf(outAbs, sizeof outAbs, "%s", b.out);
        code = slurmScript(&b, specAbs, outAbs, threads, dryRun);
        alc_batchFree(&b);
        return code;
    }
    if (task >= 0) {
        // one job, as a Slurm array task runs it (the scheduler gave it its cores and GPU)
        char dir[4096], st[128];
        jobDir(dir, sizeof dir, &b, &b.job[task]);
        readStatus(dir, st, sizeof st);
        if (strncmp(st, "ok ", 3) != 0) code = runJob(&b, &b.job[task], b.retry, -1);
        code = code == 0 ? ALC_EXIT_OK : ALC_EXIT_FAIL;
        alc_batchFree(&b);
        return code;
    }
    if (!summaryOnly) {
        // slots: one per GPU, or the cores divided by the threads per job
        int ngpu = cuda ? gpuCount() : 0;
        if (cuda && ngpu == 0) {
            fprintf(stderr, "alcove batch: backend cuda, but no GPU is visible\n");
            alc_batchFree(&b);
            return ALC_EXIT_USAGE;
        }
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int slots = jobs > 0 ? jobs
                    : cuda   ? ngpu
                             : (int)(cores / threads > 0 ? cores / threads : 1);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = onSignal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        pid_t* pids = (pid_t*)calloc((size_t)slots, sizeof(pid_t));
        int* slotJob = (int*)calloc((size_t)slots, sizeof(int));
        int next = 0, running = 0, done = 0, failed = 0, skipped = 0, shown = -1;
        int tty = isatty(2);
        time_t t0 = time(NULL);
        while (pids && slotJob && (next < b.njob || running > 0)) {
            // start jobs into free slots
            while (!g_stop && next < b.njob && running < slots) {
                char dir[4096], st[128];
                jobDir(dir, sizeof dir, &b, &b.job[next]);
                readStatus(dir, st, sizeof st);
                if (!strncmp(st, "ok ", 3)) {
                    skipped++;
                    done++;
                    next++;
                    continue;
                }
                int slot = 0;
                while (pids[slot]) slot++;
                pid_t parent = getpid();
                pid_t pid = fork();
                if (pid == 0) {
                    dieWithParent(parent);
                    _exit(runJob(&b, &b.job[next], b.retry, cuda ? slot : -1) ? 1 : 0);
                }
                if (pid < 0) {
                    fprintf(stderr, "alcove batch: cannot start a job: %s\n", strerror(errno));
                    g_stop = SIGTERM;
                    break;
                }
                pids[slot] = pid;
                slotJob[slot] = next++;
                running++;
            }
            if (g_stop && next < b.njob) next = b.njob;  // start nothing more
            // the progress line: rewritten in place on a terminal, else a line per change
            if (!quiet && (tty || done != shown)) {
                fprintf(
                    stderr,
                    "%salcove batch %s: %d/%d done (%d failed, %d skipped), %d running, %ld s%s",
                    tty ? "\r" : "", b.name, done, b.njob, failed, skipped, running,
                    (long)(time(NULL) - t0), tty ? " " : "\n");
                fflush(stderr);
                shown = done;
            }
            if (running == 0) break;
            int status = 0;
            pid_t pid = waitpid(-1, &status, 0);
            if (pid < 0) {
                if (errno == EINTR) continue;
                break;
            }
            for (int s = 0; s < slots; s++) {
                if (pids[s] != pid) continue;
                pids[s] = 0;
                running--;
                done++;
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed++;
            }
        }
        if (!quiet) {
            fprintf(stderr, "%salcove batch %s: %d/%d done (%d failed, %d skipped), %ld s\n",
                    tty ? "\r" : "", b.name, done, b.njob, failed, skipped,
                    (long)(time(NULL) - t0));
        }
        free(pids);
        free(slotJob);
        if (g_stop) {
            fprintf(stderr,
                    "alcove batch: stopped; start it again to resume the unfinished jobs\n");
            code = g_stop == SIGTERM ? ALC_EXIT_TERMINATED : ALC_EXIT_INTERRUPT;
        }
    }
    int bad = summarize(&b, quiet);
    if (code == ALC_EXIT_OK && bad > 0) code = ALC_EXIT_FAIL;
    alc_batchFree(&b);
    return code;
}
