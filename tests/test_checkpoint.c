// Checkpoints (issue 19, item 3): a run restored at step k continues bit for bit as the run
// that never stopped — positions, velocities, time, statistics and the contact report — on
// contact-rich scenes with friction, drivers, and under both contact models; restoring into a
// new sim, into the same sim (an RL-style reset), from memory and from a file; and bad
// checkpoints refused with the data untouched.
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int steps(Run* r, int n) {
    for (int i = 0; i < n; i++) {
        if (alc_step(r->sim, r->d) != ALC_OK) return 0;
    }
    return 1;
}

/// The end of a run, compared bit for bit (the helpers of scene_run.c).
ALC_TEST(checkpoint_slopeWithFriction) {
    // the cube settles and slides under lagged friction: the active set and the lagging mu
    ENSURE(runCheckpointRoundTrip("slope", -1, 20, 30, ALC_BACKEND_REF) == 1);
    return ALC_TEST_PASS;
}

ALC_TEST(checkpoint_drivenPress) {
    // a driven press on a pile of balls: driver targets and the moving-boundary contacts
    ENSURE(runCheckpointRoundTrip("balls_press", -1, 6, 10, ALC_BACKEND_REF) == 1);
    return ALC_TEST_PASS;
}

ALC_TEST(checkpoint_boxStackBothModels) {
    ENSURE(runCheckpointRoundTrip("box_stack", ALC_CONTACT_AL, 15, 22, ALC_BACKEND_REF) == 1);
    ENSURE(runCheckpointRoundTrip("box_stack", ALC_CONTACT_IPC, 15, 22, ALC_BACKEND_REF) == 1);
    return ALC_TEST_PASS;
}

ALC_TEST(checkpoint_refusesBadInput) {
    Run a, other;
    ENSURE(openRun(&a, "box_stack.yaml", NULL, NULL, -1));
    ENSURE(steps(&a, 15));
    size_t need = 0, got = 0;
    ENSURE_OK(alc_checkpointSize(a.sim, a.d, &need));
    unsigned char* mem = (unsigned char*)malloc(need);
    ENSURE(mem);
    // too small a buffer: the size needed, nothing written
    ENSURE(alc_saveCheckpoint(a.sim, a.d, mem, need - 1, &got) == ALC_ERR_CAPACITY && got == need);
    ENSURE_OK(alc_saveCheckpoint(a.sim, a.d, mem, need, &got));
    ENSURE(steps(&a, 2));
    RunEnd before = {0};
    ENSURE(runEndOf(&before, &a));
    // one flipped byte, a truncation, garbage: refused, the data untouched
    mem[need / 2] ^= 0x40;
    ENSURE(alc_loadCheckpoint(a.sim, a.d, mem, need) == ALC_ERR_IO);
    ENSURE_MSG(strstr(alc_lastError(a.sim), "CRC"), "%s", alc_lastError(a.sim));
    mem[need / 2] ^= 0x40;
    ENSURE(alc_loadCheckpoint(a.sim, a.d, mem, need - 9) == ALC_ERR_IO);
    ENSURE(alc_loadCheckpoint(a.sim, a.d, "not a checkpoint at all, just text.........", 44) ==
           ALC_ERR_IO);
    RunEnd after = {0};
    ENSURE(runEndOf(&after, &a));
    ENSURE(runEndSame(&before, &after, a.m->nvert, "after refused loads"));
    // another model (two layers instead of three): refused by the fingerprint
    const char* names[] = {"layers", NULL};
    const double values[] = {2};
    ENSURE(openRun(&other, "box_stack.yaml", names, values, -1));
    ENSURE(alc_loadCheckpoint(other.sim, other.d, mem, need) == ALC_ERR_INVALID_ARG);
    ENSURE_MSG(strstr(alc_lastError(other.sim), "another model"), "%s", alc_lastError(other.sim));
    // a missing file names its path
    ENSURE(alc_loadCheckpointFile(a.sim, a.d, "/nonexistent/run.alck") == ALC_ERR_IO);
    ENSURE_MSG(strstr(alc_lastError(a.sim), "/nonexistent/run.alck"), "%s", alc_lastError(a.sim));
    // the good one still loads
    ENSURE_OK(alc_loadCheckpoint(a.sim, a.d, mem, need));
    ENSURE(a.d->step == 15);
    runEndFree(&before);
    runEndFree(&after);
    free(mem);
    closeRun(&other);
    closeRun(&a);
    return ALC_TEST_PASS;
}

/// run.args of a resumed run is its effective command: one --steps, the last given (40), and
/// --quiet and --threads once however often they were given.
static const char* const kArgsCheck =
    "tr '\\0' '\\n' < b/run.args > args.txt && test $(grep -c '^--steps$' args.txt) = 1 && "
    "grep -A1 '^--steps$' args.txt | tail -1 | grep -qx 40 && "
    "test $(grep -c '^--quiet$' args.txt) = 1 && test $(grep -c '^--threads$' args.txt) = 1";

/// `alcove run --resume DIR` (issue 19, item 3): a run stopped at step 23 whose files went on
/// past its checkpoint (rows, a torn line, a frame and a state of later steps, as a kill -9
/// leaves them) continues to step 40 and ends with the same final state, frame index, contact
/// log and statistics (timings aside) as a run that never stopped; a complete run is left
/// alone; a folder without a checkpoint starts again; one without run.args is refused.
ALC_TEST(checkpoint_cliResume) {
    const char* build = getenv("ALC_BUILD");
    char exe[4096];
    snprintf(exe, sizeof exe, "%s", build ? build : "build");
    char real[4096];
    if (realpath(exe, real)) snprintf(exe, sizeof exe, "%s", real);
    const char* dir = alct_tmpDir("resume", NULL);
    static char cmd[32768];
    char scene[1100], sceneAbs[4096];
    snprintf(scene, sizeof scene, "%s/scenes/slope.yaml", alct_rootDir());
    ENSURE(realpath(scene, sceneAbs) != NULL);
    const char* opts = "--every 10 --threads 1 --contacts --quiet";
    snprintf(cmd, sizeof cmd, "%s/alcove run %s --out %s/a --steps 40 %s 2>/dev/null", exe, scene,
             dir, opts);
    ENSURE(alct_sh(cmd) == 0);
    snprintf(cmd, sizeof cmd, "%s/alcove run %s --out %s/b --steps 23 %s 2>/dev/null", exe, scene,
             dir, opts);
    ENSURE(alct_sh(cmd) == 0);
    // what a kill -9 after step 30 would have left beyond the checkpoint of step 23
    snprintf(cmd, sizeof cmd,
             "cd %s && sed -n '25,31p' a/stats.csv >> b/stats.csv && printf '31,0.3' >> b/stats.csv"
             " && cp a/frames/frame_000030.vtu b/frames/ && cp a/states/state_000030.alcs b/states/"
             " && grep '^30,' a/contacts.csv >> b/contacts.csv",
             dir);
    ENSURE(alct_sh(cmd) == 0);
    snprintf(cmd, sizeof cmd, "%s/alcove run --resume %s/b --steps 40 2>%s/resume.txt >/dev/null",
             exe, dir, dir);
    ENSURE(alct_sh(cmd) == 0);
    snprintf(cmd, sizeof cmd, "grep -q 'resumed from the checkpoint at step 23' %s/resume.txt",
             dir);
    ENSURE(alct_sh(cmd) == 0);
    snprintf(
        cmd, sizeof cmd,
        "cd %s && cmp a/states/state_000040.alcs b/states/state_000040.alcs && "
        "cmp a/frames.pvd b/frames.pvd && cmp a/contacts.csv b/contacts.csv && "
        "cut -d, -f1-18,25- a/stats.csv > sa && cut -d, -f1-18,25- b/stats.csv > sb && cmp sa sb",
        dir);
    ENSURE_MSG(alct_sh(cmd) == 0, "resumed run differs from the straight one (%s)", dir);
    // run.args is the effective command: the resuming --steps 40 replaced the first --steps 23
    snprintf(cmd, sizeof cmd, "cd %s && %s", dir, kArgsCheck);
    ENSURE_MSG(alct_sh(cmd) == 0, "run.args after a resume (%s/args.txt)", dir);
    // complete: nothing to do, exit 0, files untouched
    snprintf(cmd, sizeof cmd,
             "cd %s && cp b/stats.csv s0 && %s/alcove run --resume b 2>done.txt && "
             "grep -q 'is complete' done.txt && cmp s0 b/stats.csv",
             dir, exe);
    ENSURE(alct_sh(cmd) == 0);
    // no checkpoint: starts again and finishes
    snprintf(cmd, sizeof cmd,
             "rm %s/b/checkpoint.alck && %s/alcove run --resume %s/b --quiet 2>%s/again.txt && "
             "grep -q 'starting it again' %s/again.txt && cmp %s/a/states/state_000040.alcs "
             "%s/b/states/state_000040.alcs",
             dir, exe, dir, dir, dir, dir, dir);
    ENSURE(alct_sh(cmd) == 0);
    snprintf(cmd, sizeof cmd, "cd %s && %s", dir, kArgsCheck);  // --quiet again: still once
    ENSURE_MSG(alct_sh(cmd) == 0, "run.args after a second resume (%s/args.txt)", dir);
    // a scene moved after the run began: refused with the way out named, then resumed with
    // the scene's new path given after --resume (the same state as the straight run), and
    // refused by the checkpoint's fingerprint when the scene given compiles to another model
    snprintf(cmd, sizeof cmd,
             "cd %s && mkdir -p s1 && cp %s s1/ && %s/alcove run s1/slope.yaml --out m --steps 10 "
             "%s 2>/dev/null && mkdir -p s2 && mv s1/slope.yaml s2/ && "
             "{ %s/alcove run --resume m --steps 20 2>moved.txt; test $? = 2; } && "
             "grep -q 'give the scene.s path after --resume' moved.txt && "
             "%s/alcove run --resume m s2/slope.yaml --steps 20 --quiet 2>/dev/null && "
             "cmp a/states/state_000020.alcs m/states/state_000020.alcs && "
             "tr '\\0' '\\n' < m/run.args | grep -c 'slope.yaml$' | grep -qx 1 && "
             "sed 's/density: 1000/density: 1200/' s2/slope.yaml > s2/edited.yaml && "
             "{ %s/alcove run --resume m s2/edited.yaml --steps 30 2>edited.txt; test $? = 1; } && "
             "grep -q 'saved from another model' edited.txt",
             dir, sceneAbs, exe, opts, exe, exe, exe);
    ENSURE_MSG(alct_sh(cmd) == 0, "resume of a run whose scene moved (%s)", dir);
    // how much a run prints is one setting: -q given to --resume silences a run begun with -v
    // (and is what run.args keeps), -v -q together log without a progress bar
    snprintf(
        cmd, sizeof cmd,
        "cd %s && %s/alcove run %s --out v --steps 4 --every 2 --threads 1 -v 2>v1.txt && "
        "grep -q 'info: step 3' v1.txt && "
        "%s/alcove run --resume v --steps 6 -q 2>v2.txt && ! grep -q 'info:' v2.txt && "
        "tr '\\0' '\\n' < v/run.args > vargs && grep -qx -- -q vargs && "
        "! grep -qx -- -v vargs && "
        "%s/alcove run --resume v --steps 8 -v -q 2>v3.txt && grep -q 'info: step 7' v3.txt && "
        "! grep -q 'steps/s' v3.txt",
        dir, exe, sceneAbs, exe, exe);
    ENSURE_MSG(alct_sh(cmd) == 0, "-q and -v given to --resume (%s/v1.txt, v2.txt, v3.txt)", dir);
    // not a run folder
    snprintf(cmd, sizeof cmd, "mkdir -p %s/c && %s/alcove run --resume %s/c 2>/dev/null", dir, exe,
             dir);
    ENSURE(alct_sh(cmd) == 2);
    return ALC_TEST_PASS;
}

static long fileSize(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/// Save r's checkpoint to memory (malloc'ed, *n its bytes); NULL on failure.
static unsigned char* saveToMemory(Run* r, size_t* n) {
    size_t need = 0, got = 0;
    if (alc_checkpointSize(r->sim, r->d, &need) != ALC_OK) return NULL;
    unsigned char* mem = (unsigned char*)malloc(need);
    if (mem && alc_saveCheckpoint(r->sim, r->d, mem, need, &got) != ALC_OK) {
        free(mem);
        return NULL;
    }
    *n = got;
    return mem;
}

/// Load mem into a new sim of r's scene, step both 4 steps and compare their ends bit for bit.
static int continuesAlike(Run* r, const char* path, const unsigned char* mem, size_t n,
                          const char* what) {
    Run b;
    if (!openRunPath(&b, path, NULL, NULL, -1)) return 0;
    int ok = alc_loadCheckpoint(b.sim, b.d, mem, n) == ALC_OK;
    if (!ok) fprintf(stderr, "  %s: %s\n", what, alc_lastError(b.sim));
    // the state itself, bit for bit (the kinematic targets are stored against the rest shape,
    // x and v as byte planes, the contact report against its prediction from the pairs)
    size_t n3 = sizeof(double) * 3 * (size_t)r->m->nvert;
    if (ok && (memcmp(b.d->x, r->d->x, n3) || memcmp(b.d->v, r->d->v, n3) ||
               memcmp(b.d->kin_target, r->d->kin_target, n3))) {
        fprintf(stderr, "  %s: x, v or the kinematic targets differ after loading\n", what);
        ok = 0;
    }
    const alcContact *ca = NULL, *cb = NULL;
    int na = 0, nb = 0;
    alc_getContacts(r->sim, &ca, &na);
    alc_getContacts(b.sim, &cb, &nb);
    if (ok && (na != nb || (na > 0 && memcmp(ca, cb, sizeof(alcContact) * (size_t)na)))) {
        fprintf(stderr, "  %s: the contact report differs after loading (%d, %d contacts)\n", what,
                na, nb);
        ok = 0;
    }
    RunEnd ea = {0}, eb = {0};
    ok = ok && b.d->step == r->d->step && steps(r, 4) && steps(&b, 4) && runEndOf(&ea, r) &&
         runEndOf(&eb, &b) && runEndSame(&ea, &eb, r->m->nvert, what);
    runEndFree(&ea);
    runEndFree(&eb);
    closeRun(&b);
    return ok;
}

/// The format field of the checkpoint file at path, or -1 where it cannot be read.
static int formatOf(const char* path) {
    unsigned char head[12];
    FILE* f = fopen(path, "rb");
    int ok = f && fread(head, 1, 12, f) == 12;
    if (f) fclose(f);
    return ok ? (int)head[8] : -1;
}

/// The kept checkpoint tests/data/checkpoints/NAME's size in bytes (-1: absent).
static long fixtureSize(const char* name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/checkpoints/%s", alct_rootDir(), name);
    return fileSize(path);
}

/// Open the frozen copy of balls_press (tests/data/scenes/balls_press_ckpt.yaml, its path into
/// scene) and load the kept checkpoint tests/data/checkpoints/NAME, which must be of format
/// `format` and at step `step`. 1, or 0 with the reason printed.
static int openFixture(Run* a, char scene[1024], const char* name, int format, long step) {
    char old[1024];
    snprintf(scene, 1024, "%s/tests/data/scenes/balls_press_ckpt.yaml", alct_rootDir());
    snprintf(old, sizeof old, "%s/tests/data/checkpoints/%s", alct_rootDir(), name);
    if (formatOf(old) != format) {
        fprintf(stderr, "  %s: format %d, not %d\n", name, formatOf(old), format);
        return 0;
    }
    if (!openRunPath(a, scene, NULL, NULL, -1)) return 0;
    if (alc_loadCheckpointFile(a->sim, a->d, old) != ALC_OK || a->d->step != step) {
        fprintf(stderr, "  %s: %s (step %ld)\n", name, alc_lastError(a->sim), a->d->step);
        closeRun(a);
        return 0;
    }
    return 1;
}

/// The format that alcove writes now.
#define CURRENT_FORMAT 6

/// Save r's checkpoint to a file of this process in /tmp (its path into file): its size in
/// bytes, or -1 when saving fails or the file is not of the current format.
static long saveToFile(Run* r, char file[256], const char* tag) {
    snprintf(file, 256, "/tmp/alc_ckpt_%s_%d.alck", tag, (int)getpid());
    if (alc_saveCheckpointFile(r->sim, r->d, file) != ALC_OK) {
        fprintf(stderr, "  saving %s: %s\n", file, alc_lastError(r->sim));
        return -1;
    }
    return formatOf(file) == CURRENT_FORMAT ? fileSize(file) : -1;
}

/// Checkpoints of format 3 (alcove 0.12.0 and earlier) are still read, and the format written
/// now, which stores the kinematic targets against the rest positions and only the part of the
/// energy check's record that a step reads (since format 4), is smaller and continues bit for
/// bit, also after the state was edited (its record then kept whole). The fixture, step 6 of a
/// frozen copy of balls_press (a driven press: kinematic targets and forces), was saved by the
/// build of 46b9812; a change of the scene compiler that refuses it (another model) needs a new
/// one: `alcove run tests/data/scenes/balls_press_ckpt.yaml --steps 6 --out D --frames none`
/// with a build that writes format 3.
ALC_TEST(checkpoint_readsFormat3) {
    char scene[1024], file[256];
    Run a;
    ENSURE(openFixture(&a, scene, "balls_press_step6_format3.alck", 3, 6));
    // the same state in the current format: a file of less than half the bytes
    long n3 = fixtureSize("balls_press_step6_format3.alck"), nc = saveToFile(&a, file, "f3");
    remove(file);
    ENSURE_MSG(nc > 0 && 2 * nc < n3, "format 3: %ld bytes, format %d: %ld", n3, CURRENT_FORMAT,
               nc);
    size_t n = 0;
    unsigned char* mem = saveToMemory(&a, &n);
    ENSURE(mem);
    ENSURE(continuesAlike(&a, scene, mem, n, "the current format from format 3"));
    free(mem);
    // a caller's edit of the state between steps (the record no longer matches x and v) and
    // of the press's targets (an external driver, whose targets the steps then keep)
    a.d->v[1] += 0.01;
    ENSURE(a.m->ndriver > 0);
    const double up[3] = {0, 0.05, 0};
    ENSURE_OK(alc_setDriverVelocity(a.m, a.d, 0, up, NULL, 0.01));
    mem = saveToMemory(&a, &n);
    ENSURE(mem);
    ENSURE(continuesAlike(&a, scene, mem, n, "the current format after an edit"));
    free(mem);
    closeRun(&a);
    return ALC_TEST_PASS;
}

/// Load the kept step-40 checkpoint of the frozen balls_press copy (177 contacts) in format
/// `format`, save it in the current one, and check that the file reads back to the same state
/// and contact report, is smaller than the kept one by at least `shrink` (its size times
/// shrink[0] below the kept one's times shrink[1]), and continues bit for bit. A test status
/// (ALC_TEST_PASS, or ALC_TEST_FAIL with the reason printed).
static int readsStep40(const char* name, int format, const long shrink[2]) {
    char scene[1024], file[256];
    Run a;
    ENSURE(openFixture(&a, scene, name, format, 40));
    const alcContact* c = NULL;
    int nc = 0;
    alc_getContacts(a.sim, &c, &nc);
    ENSURE_MSG(nc > 100, "%d contacts at step 40", nc);
    long now = saveToFile(&a, file, "f40");
    ENSURE(now > 0);
    // the file read back: the same state, report and continuation as the old format's load
    Run b;
    ENSURE(openRunPath(&b, scene, NULL, NULL, -1));
    ENSURE_MSG(alc_loadCheckpointFile(b.sim, b.d, file) == ALC_OK, "%s", alc_lastError(b.sim));
    remove(file);
    const alcContact* cb = NULL;
    int nb = 0;
    alc_getContacts(b.sim, &cb, &nb);
    ENSURE_MSG(nb == nc && !memcmp(c, cb, sizeof(alcContact) * (size_t)nc),
               "the contact report read back from format %d differs (%d, %d contacts)",
               CURRENT_FORMAT, nc, nb);
    long old = fixtureSize(name);
    alct_note("step 40, %d contacts: format %d %ld bytes, format %d %ld", nc, format, old,
              CURRENT_FORMAT, now);
    ENSURE_MSG(shrink[0] * now < shrink[1] * old, "format %d: %ld bytes, format %d: %ld", format,
               old, CURRENT_FORMAT, now);
    size_t n = 0;
    unsigned char* mem = saveToMemory(&b, &n);
    ENSURE(mem);
    ENSURE(continuesAlike(&a, scene, mem, n, "the current format from an older one"));
    free(mem);
    closeRun(&b);
    closeRun(&a);
    return ALC_TEST_PASS;
}

/// Checkpoints of format 4 (alcove 0.12.0, 637a1ee to a97abea) are still read, and the current
/// format, which stores x and v as byte planes and the contact report XOR the report its pairs
/// predict (since format 5), is smaller on a contact-rich state and continues bit for bit. The
/// fixture, step 40 of the frozen balls_press copy (177 contacts), was saved by the build of
/// a97abea: `alcove run tests/data/scenes/balls_press_ckpt.yaml --steps 40 --out D --frames
/// none`.
ALC_TEST(checkpoint_readsFormat4) {
    const long shrink[2] = {5, 4};  // below 4/5 of format 4
    return readsStep40("balls_press_step40_format4.alck", 4, shrink);
}

/// Checkpoints of format 5 (68cd0ac to 2669797) are still read, and format 6, which stores the
/// active set XOR the pairs the model and x predict from their keys and the set and the report
/// column by column, is smaller and continues bit for bit. The fixture: the same state as
/// format 4's, saved by the build of 2669797 with the same command.
ALC_TEST(checkpoint_readsFormat5) {
    const long shrink[2] = {10, 9};  // below 9/10 of format 5
    return readsStep40("balls_press_step40_format5.alck", 5, shrink);
}
