// `alcove batch` (issue 21): a batch file expands into the jobs it names, bad files are refused
// with file:line, a sweep runs in parallel to a summary, a batch killed with -9 and started
// again ends with the same states as one that never stopped, a failing job is retried and
// recorded without stopping the others, and a Slurm job array (a single-node cluster on this
// machine, tools/slurm-local.sh) gives the summary of a local run.
#include "test_files.h"
#include "test_macros.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// The alcove executable under test, absolute.
static const char* exe(void) {
    static char path[4096];
    if (!path[0]) {
        const char* build = getenv("ALC_BUILD");
        char rel[4096];
        snprintf(rel, sizeof rel, "%s/alcove", build ? build : "build");
        if (!realpath(rel, path)) snprintf(path, sizeof path, "%s", rel);
    }
    return path;
}

/// The repository root, absolute (batch files resolve scenes against their own folder).
static const char* root(void) {
    static char path[4096];
    if (!path[0] && !realpath(alct_rootDir(), path))
        snprintf(path, sizeof path, "%s", alct_rootDir());
    return path;
}

/// A batch file in dir sweeping mu of the slope scene over the given values.
static const char* sweepFile(const char* dir, const char* name, const char* mus, int steps,
                             const char* extra) {
    char text[4096];
    snprintf(text, sizeof text,
             "name: %s\nscenes: [%s/scenes/slope.yaml]\nset:\n  mu: [%s]\nsteps: %d\n"
             "threads: 1\nframes: none\nevery: 10\n%s",
             name, root(), mus, steps, extra ? extra : "");
    char file[256];
    snprintf(file, sizeof file, "%s.yaml", name);
    return alct_writeFile(dir, file, text);
}

/// Count the lines of a file that start with prefix.
static int countLines(const char* path, const char* prefix) {
    FILE* fp = fopen(path, "r");
    if (!fp) return -1;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, fp)) n += !strncmp(line, prefix, strlen(prefix));
    fclose(fp);
    return n;
}

ALC_TEST(batch_expandsAndRefuses) {
    const char* dir = alct_tmpDir("batch_spec", NULL);
    char text[4096], cmd[8192];
    snprintf(text, sizeof text,
             "scenes: [%s/scenes/slope.yaml, %s/scenes/box_drop.yaml]\n"
             "presets: [null, full]\ncases:\n  - {}\n  - {cells: 4}\nset:\n  mu: [0.1, 0.2, 0.3]\n"
             "  half: [0.0505, 0.06]\n",
             root(), root());
    const char* f = alct_writeFile(dir, "grid.yaml", text);
    ENSURE(f);
    snprintf(cmd, sizeof cmd, "%s batch %s --list > %s/list.txt", exe(), f, dir);
    ENSURE(alct_sh(cmd) == 0);
    char list[1100];
    snprintf(list, sizeof list, "%s/list.txt", dir);
    // 2 scenes x 2 presets x 2 cases x 3 x 2 values
    ENSURE_MSG(countLines(list, "0") == 48, "%d jobs listed", countLines(list, "0"));
    snprintf(
        cmd, sizeof cmd,
        "grep -q '^0000_slope_mu-0.1_half-0.0505  .*slope.yaml --set mu=0.1 --set half=0.0505$' "
        "%s && grep -q '^0047_box_drop_full_cells-4_mu-0.3_half-0.06  .*--preset full --set "
        "cells=4 --set mu=0.3 --set half=0.06$' %s",
        list, list);
    ENSURE_MSG(alct_sh(cmd) == 0, "job names or arguments (%s)", list);
    // an unknown key, a missing scene, an empty sweep: refused with file:line
    char sweepEmpty[2048];
    snprintf(sweepEmpty, sizeof sweepEmpty, "scenes: [%s/scenes/slope.yaml]\nset: {mu: []}\n",
             root());
    const char* bad[][2] = {{"scenes: [x.yaml]\n", "scene .x.yaml. not found"},
                            {"scene: [a.yaml]\n", "unknown key"},
                            {sweepEmpty, "empty list"}};
    for (int i = 0; i < 3; i++) {
        const char* body = bad[i][0];
        const char* bf = alct_writeFile(dir, "bad.yaml", body);
        ENSURE(bf);
        snprintf(cmd, sizeof cmd, "%s batch %s --list 2> %s/err.txt", exe(), bf, dir);
        ENSURE(alct_sh(cmd) == 2);
        snprintf(cmd, sizeof cmd, "grep -q 'bad.yaml:[0-9]*:[0-9]*: .*%s' %s/err.txt", bad[i][1],
                 dir);
        ENSURE_MSG(alct_sh(cmd) == 0, "case %d: message (%s/err.txt)", i, dir);
    }
    return ALC_TEST_PASS;
}

ALC_TEST(batch_runsResumesRetries) {
    const char* dir = alct_tmpDir("batch_run", NULL);
    char spec[1100], cmd[8192];
    snprintf(spec, sizeof spec, "%s", sweepFile(dir, "sweep", "0.3, 0.5, 0.6", 150, NULL));
    // straight through, two at a time
    snprintf(cmd, sizeof cmd, "%s batch %s --out %s/a --jobs 2 --quiet", exe(), spec, dir);
    ENSURE(alct_sh(cmd) == 0);
    char sum[1100];
    snprintf(sum, sizeof sum, "%s/a/summary.csv", dir);
    ENSURE_MSG(countLines(sum, "00") == 3, "summary rows in %s", sum);
    snprintf(cmd, sizeof cmd, "test $(grep -c ',ok,150,.*,clean,' %s) = 3", sum);
    ENSURE_MSG(alct_sh(cmd) == 0, "every job ok, 150 steps, clean (%s)", sum);
    // the sliding threshold at tan(theta) = 0.5: the cube slides at mu = 0.3, rests at 0.6
    snprintf(cmd, sizeof cmd,
             "awk -F, 'NR==2 && $12 > 1 {a=1} NR==4 && $12 < 1e-3 {b=1} END {exit !(a && b)}' %s",
             sum);
    ENSURE_MSG(alct_sh(cmd) == 0, "max_body_speed column (%s)", sum);

    // the sweep's plot, where gnuplot is installed
    if (alct_sh("command -v gnuplot >/dev/null 2>&1") == 0) {
        snprintf(cmd, sizeof cmd,
                 "%s plot %s/a --size 400x300 > /dev/null && test -s %s/a/sweep.png", exe(), dir,
                 dir);
        ENSURE_MSG(alct_sh(cmd) == 0, "alcove plot of the batch (%s/a)", dir);
    }

    // killed with -9 during its run, then started again: the same final states
    snprintf(cmd, sizeof cmd, "%s batch %s --out %s/b --jobs 2 --quiet", exe(), spec, dir);
    pid_t pid = fork();
    ENSURE(pid >= 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char*)NULL);
        _exit(127);
    }
    struct timespec ts = {1, 200000000};  // 1.2 s: the first jobs are past a checkpoint
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    // sh -c exec'ed alcove, so the batch died; its jobs die with it (PR_SET_PDEATHSIG)
    nanosleep(&ts, NULL);
    ENSURE(alct_sh(cmd) == 0);
    for (int j = 0; j < 3; j++) {
        const char* mu[] = {"0.3", "0.5", "0.6"};
        snprintf(cmd, sizeof cmd,
                 "cmp %s/a/000%d_slope_mu-%s/states/state_000150.alcs "
                 "%s/b/000%d_slope_mu-%s/states/state_000150.alcs",
                 dir, j, mu[j], dir, j, mu[j]);
        ENSURE_MSG(alct_sh(cmd) == 0, "job %d after the kill (%s)", j, dir);
    }
    // started again once more: every job is skipped, the summary rewritten
    snprintf(cmd, sizeof cmd, "%s batch %s --out %s/b --quiet", exe(), spec, dir);
    ENSURE(alct_sh(cmd) == 0);

    // a job that fails (an unknown parameter) is retried, recorded, and the others finish
    const char* fs =
        sweepFile(dir, "failing", "0.3", 20, "cases:\n  - {}\n  - {nosuch: 1}\nretry: 1\n");
    ENSURE(fs);
    snprintf(cmd, sizeof cmd, "%s batch %s --out %s/c --quiet", exe(), fs, dir);
    ENSURE(alct_sh(cmd) == 1);
    snprintf(cmd, sizeof cmd,
             "grep -q '^0000_slope_mu-0.3,.*,ok,20,' %s/c/summary.csv && "
             "grep -q '^0001_slope_nosuch-1_mu-0.3,.*,failed 2,' %s/c/summary.csv && "
             "test $(grep -c nosuch %s/c/0001_slope_nosuch-1_mu-0.3/log.txt) -ge 2",
             dir, dir, dir);
    ENSURE_MSG(alct_sh(cmd) == 0, "failed job recorded and retried (%s/c)", dir);
    return ALC_TEST_PASS;
}

/// True when sinfo shows a node that takes jobs, starting the single-node cluster of
/// tools/slurm-local.sh first when Slurm is installed and we are root.
static int slurmUp(void) {
    if (alct_sh("command -v sbatch >/dev/null 2>&1 && command -v sinfo >/dev/null 2>&1") != 0)
        return 0;
    const char* up = "sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'";
    if (alct_sh(up) == 0) return 1;
    if (getuid() != 0) return 0;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s/tools/slurm-local.sh start >/dev/null 2>&1", alct_rootDir());
    return alct_sh(cmd) == 0 && alct_sh(up) == 0;
}

ALC_TEST(batch_slurmArray) {
    const char* dir = alct_tmpDir("batch_slurm", NULL);
    char spec[1100], cmd[8192];
    snprintf(spec, sizeof spec, "%s", sweepFile(dir, "arr", "0.3, 0.6", 40, NULL));
    // the script, without a cluster
    snprintf(cmd, sizeof cmd,
             "%s batch %s --out %s/s --slurm --dry-run > %s/script.txt && grep -q '^#SBATCH "
             "--array=0-1$' %s/script.txt && grep -q -- '--task \"$SLURM_ARRAY_TASK_ID\"' "
             "%s/script.txt",
             exe(), spec, dir, dir, dir, dir);
    ENSURE_MSG(alct_sh(cmd) == 0, "dry-run script (%s/script.txt)", dir);
    if (!slurmUp()) {
        alct_note(
            "no Slurm node here (apt-get install slurm-wlm munge; tools/slurm-local.sh start)");
        return ALC_TEST_SKIP;
    }
    snprintf(cmd, sizeof cmd, "%s batch %s --out %s/s --slurm > %s/sbatch.txt", exe(), spec, dir,
             dir);
    ENSURE(alct_sh(cmd) == 0);
    // wait for the array to leave the queue (at most 5 minutes)
    char jobid[64] = "";
    char path[1100];
    snprintf(path, sizeof path, "%s/sbatch.txt", dir);
    FILE* fp = fopen(path, "r");
    ENSURE(fp);
    char line[512];
    while (fgets(line, sizeof line, fp)) sscanf(line, "Submitted batch job %63s", jobid);
    fclose(fp);
    ENSURE_MSG(jobid[0], "no job id from sbatch (%s)", path);
    int gone = 0;
    for (int i = 0; i < 300 && !gone; i++) {
        snprintf(cmd, sizeof cmd, "test -z \"$(squeue -h -j %s 2>/dev/null)\"", jobid);
        gone = alct_sh(cmd) == 0;
        if (!gone) sleep(1);
    }
    ENSURE_MSG(gone, "array %s still queued after 300 s", jobid);
    snprintf(cmd, sizeof cmd, "%s batch %s --out %s/s --summary --quiet", exe(), spec, dir);
    ENSURE_MSG(alct_sh(cmd) == 0, "summary of the array (%s/s)", dir);
    // the same as a local run of the batch, timings aside
    snprintf(cmd, sizeof cmd,
             "%s batch %s --out %s/l --quiet && cut -d, -f1-9,11- %s/s/summary.csv > %s/ss && "
             "cut -d, -f1-9,11- %s/l/summary.csv > %s/ls && cmp %s/ss %s/ls",
             exe(), spec, dir, dir, dir, dir, dir, dir, dir);
    ENSURE_MSG(alct_sh(cmd) == 0, "Slurm and local summaries differ (%s)", dir);
    alct_note("Slurm array %s: 2 tasks, summary equal to the local batch's", jobid);
    return ALC_TEST_PASS;
}
