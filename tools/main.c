// alcove: the command-line program (run, check, ccd-check, bench, paired, info, import-ipc,
// render, plot, batch) on top of the library.
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE* out) {
    fprintf(
        out,
        "alcove %s: penetration-free elastodynamics with contact (barrier-free AL method)\n"
        "\n"
        "usage: alcove <command> [options]\n"
        "\n"
        "commands:\n"
        "  run SCENE        simulate a scene, writing frames, states and statistics\n"
        "  check OUTDIR     independently check every saved state of a run for\n"
        "                   intersections and inverted tetrahedra\n"
        "  ccd-check DIR    run the continuous-collision sample queries in DIR and score\n"
        "                   them against their ground truth\n"
        "  bench SCENE      print the AL paper's Table 1 row for a scene\n"
        "  paired A B       compare two solver settings step by step from the same state\n"
        "  info SCENE       the model's sizes and the memory its sim needs, without stepping\n"
        "  import-ipc FILE  write an alcove scene from an IPC scene script\n"
        "  render OUTDIR    PNG pictures and an MP4 of a run (POV-Ray, ffmpeg)\n"
        "  plot OUTDIR      a PNG of a run's per-step statistics (gnuplot)\n"
        "  batch FILE       run a batch of scenes and parameter sweeps in parallel, locally or\n"
        "                   as a Slurm job array, with a summary table\n"
        "  version          print the version\n"
        "\n"
        "'alcove <command> --help' describes each command's options.\n"
        "exit codes: 0 success, 1 failure (or violations found), 2 bad input, 130 interrupted,\n"
        "143 terminated\n",
        alcu_versionString());
}

int main(int argc, char** argv) {
    if (argc < 2) {
        usage(stderr);
        return ALC_EXIT_USAGE;
    }
    const char* cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return ALC_EXIT_OK;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("alcove %s\n", alcu_versionString());
        return ALC_EXIT_OK;
    }
    if (!strcmp(cmd, "run")) return alc_cmdRun(argc - 1, argv + 1);
    if (!strcmp(cmd, "check")) return alc_cmdCheck(argc - 1, argv + 1);
    if (!strcmp(cmd, "ccd-check")) return alc_cmdCcdCheck(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench")) return alc_cmdBench(argc - 1, argv + 1);
    if (!strcmp(cmd, "info")) return alc_cmdInfo(argc - 1, argv + 1);
    if (!strcmp(cmd, "import-ipc")) return alc_cmdImportIpc(argc - 1, argv + 1);
    if (!strcmp(cmd, "render")) return alc_cmdRender(argc - 1, argv + 1);
    if (!strcmp(cmd, "plot")) return alc_cmdPlot(argc - 1, argv + 1);
    if (!strcmp(cmd, "batch")) return alc_cmdBatch(argc - 1, argv + 1);
    if (!strcmp(cmd, "paired")) return alc_cmdPaired(argc - 1, argv + 1);
    if (!strcmp(cmd, "bench-geometry")) return alc_cmdBenchGeometry(argc - 1, argv + 1);
    fprintf(stderr, "alcove: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return ALC_EXIT_USAGE;
}
