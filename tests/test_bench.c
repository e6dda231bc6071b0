// `alcove bench` (tools/bench.c): the benchmark table of `make bench`. Its balls_press,
// rings_box and pile_well rows run the AL and IPC with the AL paper's termination side by side,
// with their ratio (issue 18, item 5), unless the command line picks the models.
#include "test_files.h"
#include "test_macros.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Runs `alcove bench ARGS` (from the working directory, the repository root, as the table's
/// scene paths are) into dir/name and reads its output into text; returns the exit status.
static int bench(const char* dir, const char* name, const char* args, char* text, size_t size) {
    const char* build = getenv("ALC_BUILD");
    char cmd[4096], path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(cmd, sizeof cmd, "'%s/alcove' bench %s > '%s' 2>&1", build ? build : "build", args,
             path);
    int rc = alct_sh(cmd);
    text[0] = 0;
    FILE* f = fopen(path, "r");
    if (f) {
        size_t n = fread(text, 1, size - 1, f);
        text[n] = 0;
        fclose(f);
    }
    return rc;
}

ALC_TEST(bench_tableComparesAlWithIpc) {
    const char* dir = alct_tmpDir("bench", NULL);
    static char text[65536];
    ENSURE_MSG(bench(dir, "list.txt", "--table --list", text, sizeof text) == 0, "%s", text);
    int marked = 0;
    for (const char* p = text; (p = strstr(p, "al and ipc")) != NULL; p++) marked++;
    ENSURE_MSG(marked == 3, "%d table entries marked al and ipc:\n%s", marked, text);

    // two steps of the chain: both rows and their ratio, on the terminal and in the record
    char args[2048];
    snprintf(args, sizeof args,
             "--table --only rings_box --steps 2 --backend ref --threads 1 --record '%s/rec'", dir);
    ENSURE_MSG(bench(dir, "both.txt", args, text, sizeof text) == 0, "%s", text);
    ENSURE_MSG(strstr(text, "\nrings_box [al] ") && strstr(text, "\nrings_box [ipc] ") &&
                   strstr(text, "\nratio ipc/al: Newton "),
               "%s", text);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "grep -l '^rings_box \\[ipc\\] ' '%s'/rec/*/rings_box.csv > /dev/null && "
             "grep -l '^ratio ipc/al: ' '%s'/rec/*/rings_box.csv > /dev/null",
             dir, dir);
    ENSURE_MSG(alct_sh(cmd) == 0, "the record in %s/rec lacks the IPC row or the ratio", dir);

    // --models chooses: the AL alone gives one row, named without its model
    ENSURE(bench(dir, "al.txt",
                 "--table --only rings_box --steps 2 --backend ref --threads 1 "
                 "--models al",
                 text, sizeof text) == 0);
    ENSURE_MSG(strstr(text, "\nrings_box ") && !strstr(text, "[ipc]") && !strstr(text, "ratio"),
               "%s", text);
    // an entry without the comparison stays one row
    ENSURE(bench(dir, "box.txt", "--table --only box_drop --steps 2 --backend ref --threads 1",
                 text, sizeof text) == 0);
    ENSURE_MSG(strstr(text, "\nbox_drop ") && !strstr(text, "[ipc]"), "%s", text);
    alct_note("rings_box's bench rows: al and ipc with their ratio; --models al: the AL alone");
    return ALC_TEST_PASS;
}
