// Temporary files for the tests (test_files.h).
#include "test_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DIRS 16

const char* alct_tmpDir(const char* tag, const char* sub) {
    static char dirs[MAX_DIRS][256];
    static char tags[MAX_DIRS][64];
    int i = 0;
    for (; i < MAX_DIRS && tags[i][0]; i++) {
        if (!strcmp(tags[i], tag)) return dirs[i];
    }
    if (i == MAX_DIRS) return "/tmp";
    snprintf(dirs[i], sizeof dirs[i], "/tmp/alc_test_%s_%d", tag, (int)getpid());
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p %s%s%s", dirs[i], sub ? "/" : "", sub ? sub : "");
    if (system(cmd) != 0) return "/tmp";
    snprintf(tags[i], sizeof tags[i], "%s", tag);
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
