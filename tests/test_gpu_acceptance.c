// tools/gpu-acceptance.sh runs only where a GPU is, and a lent machine's minutes are few: a
// mistake in its long-run step would be found there, at that price. Here the step is rehearsed
// against the emulated binaries (build/emu: the cuda backend's kernels on the CPU), with stand-ins
// for nvidia-smi and cuobjdump: a run of the reference backend stopped at step 20 goes on to its
// end on the cuda backend, its states are checked and thinned, and the step passes.
#include "test_files.h"
#include "test_macros.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/// An executable script DIR/name holding text; 1 on success.
static int writeScript(const char* dir, const char* name, const char* text) {
    const char* path = alct_writeFile(dir, name, text);
    return path && chmod(path, 0755) == 0;
}

ALC_TEST(gpuAcceptance_runsContinue) {
    const char* build = getenv("ALC_BUILD");
    char exe[PATH_MAX], emu[PATH_MAX + 8];
    if (!realpath(build ? build : "build", exe)) SKIP_TEST("no build folder");
    snprintf(emu, sizeof emu, "%s/emu", exe);
    char emuAlcove[PATH_MAX + 16];
    snprintf(emuAlcove, sizeof emuAlcove, "%s/alcove", emu);
    if (access(emuAlcove, X_OK) != 0) SKIP_TEST("no emulated build (make emu): %s", emuAlcove);
    const char* dir = alct_tmpDir("gpuruns", NULL);
    char path[PATH_MAX + 64];
    // stand-ins: a device of compute capability 9.0, and binaries that hold sm_90 code
    snprintf(path, sizeof path, "%s/bin", dir);
    ENSURE(mkdir(path, 0755) == 0);
    ENSURE(writeScript(
        path, "nvidia-smi",
        "#!/bin/sh\ncase \"$*\" in\n*name*) echo 'Stand-in GPU' ;;\n"
        "*compute_cap*) echo 9.0 ;;\n*driver*) echo 0.0 ;;\n*) echo 'GPU 0: Stand-in' ;;\n"
        "esac\n"));
    ENSURE(writeScript(path, "cuobjdump",
                       "#!/bin/sh\necho 'ELF file    1: stand-in.1.sm_90.cubin'\n"));
    // the reference backend's run, stopped at step 20 of box_drop's 60: run for 20 steps, its
    // recorded --steps 20 then dropped, as a run of the whole scene stopped there records it
    static char cmd[4 * PATH_MAX + 1024];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/runs/out && cp %s/scenes/box_drop.yaml %s/runs/ && cd %s/runs/out && "
             "%s/alcove run ../box_drop.yaml --out box_drop --steps 20 --every 5 --frames none "
             "--threads 1 --quiet 2>/dev/null && tr '\\0' '\\n' < box_drop/run.args | "
             "awk 'skip { skip = 0; next } $0 == \"--steps\" { skip = 1; next } { print }' | "
             "tr '\\n' '\\0' > args && mv args box_drop/run.args",
             dir, alct_rootDir(), dir, dir, exe);
    ENSURE(alct_sh(cmd) == 0);
    // the step alone, continued on the (emulated) cuda backend to the scene's end
    snprintf(cmd, sizeof cmd,
             "cd %s && PATH=%s/bin:$PATH BUILD=%s tools/gpu-acceptance.sh --prebuilt --only runs "
             "--runs %s/runs %s/acc > %s/acc.txt 2>&1",
             alct_rootDir(), dir, emu, dir, dir, dir);
    int rc = alct_sh(cmd);
    ENSURE_MSG(rc == 0, "gpu-acceptance.sh exit %d (%s/acc.txt)", rc, dir);
    snprintf(
        cmd, sizeof cmd,
        "cd %s/acc && grep -q '^box_drop: from step 20 to step 60 in .* s, ended$' runs.log && "
        "grep -q '^clean: ' runs.log && grep -q '| long runs .* | passed |' summary.md && "
        "test -f runs/box_drop/checkpoint.alck && test -f runs/box_drop/checks.txt && "
        "test \"$(ls runs/box_drop/states | tr '\\n' ' ')\" = "
        "'state_000000.alcs state_000060.alcs ' && ls runs/box_drop/run-*.log > /dev/null && "
        "grep -q 'resumed from the checkpoint at step 20' runs/box_drop/run-*.log",
        dir);
    ENSURE_MSG(alct_sh(cmd) == 0, "the long runs' records (%s/acc)", dir);
    // a second call finds the run complete: nothing run, still clean
    snprintf(cmd, sizeof cmd,
             "rm -rf %s/runs/out/box_drop && cp -r %s/acc/runs/box_drop %s/runs/out/ && cd %s && "
             "PATH=%s/bin:$PATH BUILD=%s tools/gpu-acceptance.sh --prebuilt --only runs --runs "
             "%s/runs %s/acc2 > %s/acc2.txt 2>&1 && "
             "grep -q '^box_drop: from step 60 to step 60 in .* s, ended$' %s/acc2/runs.log",
             dir, dir, dir, alct_rootDir(), dir, emu, dir, dir, dir, dir);
    ENSURE_MSG(alct_sh(cmd) == 0, "a second call on the finished run (%s/acc2)", dir);
    alct_note(
        "box_drop continued from step 20 to 60 on the emulated cuda backend by "
        "gpu-acceptance.sh --only runs, checked and thinned");
    return ALC_TEST_PASS;
}
