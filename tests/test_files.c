// Temporary files for the tests (test_files.h).
#include "test_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_DIRS 128

static char g_dirs[MAX_DIRS][256];
static char g_tags[MAX_DIRS][64];
static pid_t g_owner;  // the process that made the directories (not a forked child)

// remove the directories made by this process when it exits (ALC_KEEP_TMP=1 keeps them)
static void removeDirs(void) {
    if (getpid() != g_owner || getenv("ALC_KEEP_TMP")) return;
    for (int i = 0; i < MAX_DIRS && g_tags[i][0]; i++) {
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "rm -rf '%.255s'", g_dirs[i]);
        if (system(cmd) != 0) fprintf(stderr, "note: could not remove %s\n", g_dirs[i]);
    }
}

const char* alct_tmpDir(const char* tag, const char* sub) {
    char(*dirs)[256] = g_dirs;
    char(*tags)[64] = g_tags;
    int i = 0;
    for (; i < MAX_DIRS && tags[i][0]; i++) {
        if (!strcmp(tags[i], tag)) return dirs[i];
    }
    if (i == MAX_DIRS) {
        // never fall back to /tmp itself: a test would then write into (and clean) a shared
        // folder, and fail on what another run left there
        fprintf(stderr, "alct_tmpDir: more than %d tags; raise MAX_DIRS in tests/test_files.c\n",
                MAX_DIRS);
        abort();
    }
    snprintf(dirs[i], sizeof dirs[i], "/tmp/alc_test_%s_%d", tag, (int)getpid());
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "mkdir -p %s%s%s", dirs[i], sub ? "/" : "", sub ? sub : "");
    if (system(cmd) != 0) {
        fprintf(stderr, "alct_tmpDir: cannot make %s\n", dirs[i]);
        abort();
    }
    snprintf(tags[i], sizeof tags[i], "%s", tag);
    if (!g_owner) {
        g_owner = getpid();
        atexit(removeDirs);
    }
    return dirs[i];
}

const char* alct_writeFile(const char* dir, const char* name, const char* text) {
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "w");
    if (!f) return NULL;
    fputs(text, f);
    fclose(f);
    return path;
}

int alct_sh(const char* cmd) {
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

alctStatus alct_loadSceneText(const char* tag, const char* name, const char* text, alcModel** m,
                              char* err, int errsz) {
    *m = NULL;
    const char* path = alct_writeFile(alct_tmpDir(tag, NULL), name, text);
    if (!path) {
        snprintf(err, (size_t)errsz, "cannot write %s", name);
        return ALC_ERR_IO;
    }
    return alc_loadScene(path, NULL, m, err, errsz);
}

alctStatus alct_loadSolverScene(const char* tag, const char* name, const char* solver, alcModel** m,
                                char* err, int errsz) {
    char text[2048];
    snprintf(text, sizeof text,
             "name: r\nrun: {steps: 1}\nphysics: {time_step: 0.01}\nsolver: {%s}\n"
             "materials:\n  m: {density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.3}\n"
             "bodies:\n  - {name: b, mesh: {box: {size: [1, 1, 1]}}, material: m}\n",
             solver);
    return alct_loadSceneText(tag, name, text, m, err, errsz);
}
