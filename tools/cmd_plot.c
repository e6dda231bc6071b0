// alcove plot OUTDIR: the per-step statistics of a run (stats.csv) drawn as one PNG by gnuplot
// (Debian's gnuplot-nox): Newton and CG iterations, contacts, step sizes, seconds per phase.
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usagePlot(FILE* out) {
    fprintf(out,
            "usage: alcove plot OUTDIR [--out FILE.png] [--size WxH]\n\n"
            "Draws OUTDIR/stats.csv (written by 'alcove run') into one PNG of four panels, per\n"
            "step: Newton iterations and CG iterations per solve; active contact pairs (peak\n"
            "and mean); the step sizes alpha (mean and smallest, log scale); seconds per\n"
            "phase (Hessian, PCG, CCD, line search, other). Default output:\n"
            "OUTDIR/stats.png, 1200x900.\n\n"
            "For the folder of an 'alcove batch' (summary.csv, no stats.csv): every job's\n"
            "largest body speed at the end and Newton iterations per step against the first\n"
            "swept parameter, into OUTDIR/sweep.png.\n\n"
            "Needs gnuplot: apt-get install gnuplot-nox.\n"
            "Exit 0 done, 1 gnuplot failed, 2 bad input or no gnuplot.\n");
}

/// gnuplot string literal of s (single quotes; a quote doubled)
static void gpQuote(FILE* f, const char* s) {
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/// Create the gnuplot script gp writing a width x height PNG to png; NULL with the reason
/// printed.
static FILE* openScript(const char* gp, const char* png, int width, int height) {
    FILE* f = fopen(gp, "w");
    if (!f) {
        fprintf(stderr, "alcove plot: cannot create %s: %s\n", gp, strerror(errno));
        return NULL;
    }
    fprintf(f, "set terminal pngcairo size %d,%d font 'sans,10'\nset output ", width, height);
    gpQuote(f, png);
    return f;
}

/// Close the script f (written to gp) and run gnuplot on it; 1 on success (the script is then
/// removed), 0 with the reason printed.
static int runGnuplot(FILE* f, const char* gp) {
    if (fclose(f) != 0) {
        fprintf(stderr, "alcove plot: cannot write %s\n", gp);
        return 0;
    }
    char cmd[9000], q[8600];
    alc_cliShellQuote(q, sizeof q, gp);
    snprintf(cmd, sizeof cmd, "gnuplot %s", q);
    if (system(cmd) != 0) {
        fprintf(stderr, "alcove plot: gnuplot failed on %s\n", gp);
        return 0;
    }
    unlink(gp);
    return 1;
}

/// A batch folder (`alcove batch`: summary.csv): the largest body speed at the end and the
/// Newton iterations per step of every job against the first swept parameter.
static int plotBatch(const char* dir, const char* csv, const char* png, int width, int height) {
    FILE* in = fopen(csv, "r");
    char header[4096] = "";
    if (!in || !fgets(header, sizeof header, in)) {
        if (in) fclose(in);
        fprintf(stderr, "alcove plot: cannot read %s\n", csv);
        return ALC_EXIT_USAGE;
    }
    fclose(in);
    // column 4 is the first swept parameter unless the batch sweeps none
    char param[256] = "";
    if (sscanf(header, "job,scene,preset,%255[^,\n]", param) != 1 || !strcmp(param, "overrides")) {
        fprintf(stderr,
                "alcove plot: %s sweeps no parameter (its jobs differ by scene or case "
                "only): nothing to plot against\n",
                csv);
        return ALC_EXIT_USAGE;
    }
    char gp[4200];
    snprintf(gp, sizeof gp, "%s.gp", png);
    FILE* f = openScript(gp, png, width, height);
    if (!f) return ALC_EXIT_FAIL;
    fprintf(f, "\nset datafile separator ','\nset key top right box opaque\nset grid\nset title ");
    gpQuote(f, dir);
    fprintf(f, "\nset xlabel ");
    gpQuote(f, param);
    fprintf(f, "\nfile = ");
    gpQuote(f, csv);
    fprintf(
        f,
        "\nset ylabel 'largest body speed at the end (m/s)'\nset y2label 'Newton per step'\n"
        "set ytics nomirror\nset y2tics\n"
        "plot file using 4:'max_body_speed' with linespoints lw 1.5 pt 7 title 'body speed', \\\n"
        "     file using 4:'newton_per_step' axes x1y2 with linespoints lw 1.5 pt 5 "
        "title 'Newton per step'\n");
    if (!runGnuplot(f, gp)) return ALC_EXIT_FAIL;
    printf("%s (batch sweep over %s)\n", png, param);
    return ALC_EXIT_OK;
}

int alc_cmdPlot(int argc, char** argv) {
    const char* dir = NULL;
    const char* out = NULL;
    int width = 1200, height = 900;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usagePlot(stdout);
            return ALC_EXIT_OK;
        } else if (!strcmp(a, "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(a, "--size") && i + 1 < argc) {
            if (!alc_cliParseSize("plot", argv[++i], 200, 150, &width, &height))
                return ALC_EXIT_USAGE;
        } else if (a[0] == '-' || dir) {
            fprintf(stderr, "alcove plot: unexpected argument '%s'\n\n", a);
            usagePlot(stderr);
            return ALC_EXIT_USAGE;
        } else {
            dir = a;
        }
    }
    if (!dir) {
        usagePlot(stderr);
        return ALC_EXIT_USAGE;
    }
    char csv[4096], png[4096], gp[4200];
    snprintf(csv, sizeof csv, "%s/stats.csv", dir);
    if (out)
        snprintf(png, sizeof png, "%s", out);
    else
        snprintf(png, sizeof png, "%s/stats.png", dir);
    FILE* in = fopen(csv, "r");
    snprintf(gp, sizeof gp, "%s/summary.csv", dir);
    if (!in && access(gp, R_OK) == 0) {
        if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
            fprintf(stderr, "alcove plot: needs gnuplot: apt-get install gnuplot-nox\n");
            return ALC_EXIT_USAGE;
        }
        if (!out) snprintf(png, sizeof png, "%s/sweep.png", dir);
        return plotBatch(dir, gp, png, width, height);
    }
    if (!in) {
        snprintf(gp, sizeof gp, "%s/stats.jsonl", dir);
        fprintf(stderr, "alcove plot: cannot open %s: %s%s\n", csv, strerror(errno),
                access(gp, R_OK) == 0 ? " (the run wrote JSON lines; plot reads the CSV)" : "");
        return ALC_EXIT_USAGE;
    }
    char header[2048] = "";
    int rows = 0;
    char line[4096];
    if (fgets(header, sizeof header, in)) {
        while (fgets(line, sizeof line, in)) rows++;
    }
    fclose(in);
    if (strncmp(header, "step,time,outer,newton,cg_total", 31) != 0 ||
        !strstr(header, "time_linesearch")) {
        fprintf(stderr, "alcove plot: %s:1: not an alcove statistics file\n", csv);
        return ALC_EXIT_USAGE;
    }
    if (rows == 0) {
        fprintf(stderr, "alcove plot: %s has no steps\n", csv);
        return ALC_EXIT_USAGE;
    }
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        fprintf(stderr, "alcove plot: needs gnuplot: apt-get install gnuplot-nox\n");
        return ALC_EXIT_USAGE;
    }

    // the script, beside the picture
    snprintf(gp, sizeof gp, "%s.gp", png);
    FILE* f = openScript(gp, png, width, height);
    if (!f) return ALC_EXIT_FAIL;
    fprintf(f,
            "\nset datafile separator ','\nset key top left box opaque\nset grid\n"
            "set xlabel 'step'\nset multiplot layout 2,2 title ");
    gpQuote(f, dir);
    fprintf(f, "\nfile = ");
    gpQuote(f, csv);
    fprintf(f,
            "\nset title 'Newton and CG iterations'\nset ylabel 'Newton per step'\n"
            "set y2label 'CG per solve'\nset ytics nomirror\nset y2tics\n"
            "plot file using 'step':'newton' with lines lw 1.5 title 'Newton', \\\n"
            "     file using 'step':'cg_avg' axes x1y2 with lines lw 1.5 title 'CG per solve'\n"
            "unset y2tics\nunset y2label\nset ytics mirror\n"
            "set title 'active contact pairs'\nset ylabel 'pairs'\n"
            "plot file using 'step':'contacts_max' with lines lw 1.5 title 'peak', \\\n"
            "     file using 'step':'contacts_avg' with lines lw 1.5 title 'mean'\n"
            "set title 'step sizes alpha (TOI)'\nset ylabel 'alpha'\nset logscale y\n"
            "plot file using 'step':(column('alpha_avg') > 0 ? column('alpha_avg') : 1/0) "
            "with lines lw 1.5 title 'mean', \\\n"
            "     file using 'step':(column('alpha_min') > 0 ? column('alpha_min') : 1/0) "
            "with lines lw 1.5 title 'smallest'\n"
            "unset logscale y\nset title 'seconds per phase'\nset ylabel 's'\n"
            "plot for [k in 'time_hessian time_pcg time_ccd time_linesearch time_other'] "
            "file using 'step':k with lines lw 1.5 title k[6:]\n"
            "unset multiplot\n");
    if (!runGnuplot(f, gp)) return ALC_EXIT_FAIL;
    printf("%s (%d steps)\n", png, rows);
    return ALC_EXIT_OK;
}
