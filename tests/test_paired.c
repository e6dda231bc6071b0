// `alcove paired A B` (tools/cmd_paired.c): two settings stepped from the same state at every
// step. A scene paired with itself agrees exactly; the followed side's totals are exactly those
// of a plain run of its scene (the other side never feeds back into it), for either side; the
// other side's first step is exactly its own first step; scenes of different models and bad
// usage are refused with exit 2.
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/// Run `alcove paired ARGS`, its standard output and error into out; the exit status, or -1.
static int paired(const char* args, char* out, size_t cap) {
    const char* build = getenv("ALC_BUILD");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && %s/alcove paired %s --threads 1 2>&1", alct_rootDir(),
             build ? build : "build", args);
    FILE* p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// Newton iterations of a plain run of scenes/NAME (or a path) over `steps` steps, and of its
/// first step; 0 when it fails.
static int plainRun(const char* path, int steps, long* newton, long* first) {
    Run r;
    if (!openRunPath(&r, path, NULL, NULL, -1)) return 0;
    int ok = 1;
    for (int s = 0; ok && s < steps; s++) {
        ok = stepRun(&r);
        if (s == 0) *first = r.d->stat.newton;
    }
    *newton = r.d->run.newton;
    closeRun(&r);
    return ok;
}

/// ball_plate with the paper's common mu (pair_mu_growth 1) in a temporary file; its path.
static const char* commonMuScene(char* path, size_t cap) {
    char src[1200];
    snprintf(src, sizeof src, "%s/scenes/ball_plate.yaml", alct_rootDir());
    FILE* f = fopen(src, "r");
    if (!f) return NULL;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char* at = strstr(text, "\nsolver:\n");
    if (!at) return NULL;
    static char edited[(1 << 16) + 64];
    size_t head = (size_t)(at - text) + strlen("\nsolver:\n");
    snprintf(edited, sizeof edited, "%.*s  pair_mu_growth: 1\n%s", (int)head, text, text + head);
    const char* p = alct_writeFile(alct_tmpDir("paired", NULL), "ball_common_mu.yaml", edited);
    if (!p) return NULL;
    snprintf(path, cap, "%s", p);
    return path;
}

/// The number after `key` in text (e.g. "Newton  A "), or -1.
static long numberAfter(const char* text, const char* key) {
    const char* at = strstr(text, key);
    return at ? strtol(at + strlen(key), NULL, 10) : -1;
}

ALC_TEST(paired_sameSceneAgrees) {
    static char out[1 << 16];
    int rc = paired("scenes/box_drop.yaml scenes/box_drop.yaml --steps 12", out, sizeof out);
    ENSURE_MSG(rc == 0, "exit %d: %s", rc, out);
    ENSURE_MSG(strstr(out, "as many in 12") && strstr(out, "at most 0 m apart") &&
                   strstr(out, "B/A 1.000"),
               "%s", out);
    return ALC_TEST_PASS;
}

ALC_TEST(paired_followedSideIsItsPlainRun) {
    // ball_plate's first steps differ most between the per-pair mu and the common mu (the
    // 100 m/s impact): whichever side is followed steps exactly as a plain run of its scene,
    // and the other side's first step is its own plain first step
    char b[1200];
    ENSURE(commonMuScene(b, sizeof b));
    char a[1200];
    snprintf(a, sizeof a, "%s/scenes/ball_plate.yaml", alct_rootDir());
    const int steps = 6;
    long na, nb, fa, fb;
    ENSURE(plainRun(a, steps, &na, &fa));
    ENSURE(plainRun(b, steps, &nb, &fb));
    ENSURE_MSG(na != nb && fa != fb, "the two settings cost the same (%ld, %ld)", na, nb);
    static char out[1 << 16];
    char args[3000];
    for (int follow = 0; follow < 2; follow++) {
        snprintf(args, sizeof args, "scenes/ball_plate.yaml '%s' --steps %d --all --follow %s", b,
                 steps, follow ? "b" : "a");
        int rc = paired(args, out, sizeof out);
        ENSURE_MSG(rc == 0, "exit %d: %s", rc, out);
        const char* line = strstr(out, "Newton  A ");
        long pa = numberAfter(out, "Newton  A "), pb = line ? numberAfter(line, "step), B ") : -1;
        // the first row: step 1 from the scenes' shared initial state
        char row[128];
        snprintf(row, sizeof row, "\n     1 %9ld %9ld ", fa, fb);
        ENSURE_MSG(strstr(out, row), "no first row '%s' in %s", row + 1, out);
        alct_note("following %s: Newton A %ld, B %ld (plain runs %ld and %ld)", follow ? "B" : "A",
                  pa, pb, na, nb);
        ENSURE_MSG(follow ? pb == nb : pa == na, "%s", out);
    }
    return ALC_TEST_PASS;
}

ALC_TEST(paired_refusals) {
    static char out[1 << 16];
    // different models
    int rc = paired("scenes/box_drop.yaml scenes/ball_plate.yaml --steps 2", out, sizeof out);
    ENSURE_MSG(rc == 2 && strstr(out, "different models"), "exit %d: %s", rc, out);
    // one scene, three scenes, a bad --follow, an unknown option, a missing file
    rc = paired("scenes/box_drop.yaml", out, sizeof out);
    ENSURE_MSG(rc == 2 && strstr(out, "usage: alcove paired"), "exit %d: %s", rc, out);
    rc = paired("scenes/box_drop.yaml scenes/box_drop.yaml scenes/box_drop.yaml", out, sizeof out);
    ENSURE_MSG(rc == 2 && strstr(out, "more than two scenes"), "exit %d: %s", rc, out);
    rc = paired("scenes/box_drop.yaml scenes/box_drop.yaml --follow c", out, sizeof out);
    ENSURE_MSG(rc == 2 && strstr(out, "--follow takes a or b"), "exit %d: %s", rc, out);
    rc = paired("scenes/box_drop.yaml scenes/box_drop.yaml --frobnicate", out, sizeof out);
    ENSURE_MSG(rc == 2 && strstr(out, "unknown option '--frobnicate'"), "exit %d: %s", rc, out);
    rc = paired("scenes/box_drop.yaml scenes/no_such_scene.yaml", out, sizeof out);
    ENSURE_MSG(rc == 2 && strstr(out, "no_such_scene.yaml"), "exit %d: %s", rc, out);
    return ALC_TEST_PASS;
}
