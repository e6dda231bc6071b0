// alcove run: simulate a scene and write frames, exact states, statistics and a summary.
#include "cli.h"
#include "io_atomic.h"
#include "progress.h"
#include "state_io.h"
#include "stats_writer.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

// Ctrl-C or SIGTERM: the step in progress is cancelled (alc_cancelStep: it returns at its next
// Newton or outer iteration, leaving the data at the last completed step), and the run ends
// with every file written so far complete. A second signal exits at once: the files are still
// complete, every one being written atomically.
static volatile sig_atomic_t g_stop = 0;  // the signal received, 0 none
static alcSim* volatile g_sim = NULL;

static void onSignal(int sig) {
    if (g_stop) _exit(sig == SIGTERM ? ALC_EXIT_TERMINATED : ALC_EXIT_INTERRUPT);
    g_stop = sig;
    if (g_sim) alc_cancelStep(g_sim);
}

static int stopCode(void) {
    return g_stop == SIGTERM ? ALC_EXIT_TERMINATED : ALC_EXIT_INTERRUPT;
}

/// Install the handlers (before the scene is loaded: a signal during a long load is honoured).
static void installHandlers(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = onSignal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/// An output folder must name something other than the file system's root: the run cleans
/// frames, states and contacts inside it. "" and the root, however spelt ("/", "//.",
/// "/tmp/.."), are usage errors. A folder that does not exist yet passes here; the run checks
/// it again once it has made it.
static int outputPathOk(const char* dir) {
    char real[4096];
    int root = dir[0] == 0 || (realpath(dir, real) && !strcmp(real, "/"));
    if (!root && dir[0] == '/') {
        // lexically: the components left after "." and ".." (a depth that returns to 0)
        int depth = 0;
        for (const char* c = dir; *c;) {
            while (*c == '/') c++;
            const char* e = c;
            while (*e && *e != '/') e++;
            size_t len = (size_t)(e - c);
            if (len == 2 && c[0] == '.' && c[1] == '.')
                depth = depth > 0 ? depth - 1 : 0;
            else if (len > 0 && !(len == 1 && c[0] == '.'))
                depth++;
            c = e;
        }
        root = depth == 0;
    }
    if (root) {
        fprintf(stderr, "alcove run: --out '%s' is %s; name a folder for the run's output\n", dir,
                dir[0] ? "the file system's root" : "empty");
    }
    return !root;
}

static void runUsage(FILE* out) {
    fprintf(
        out,
        "usage: alcove run SCENE [options]\n"
        "\n"
        "Simulate SCENE (a YAML file, docs/scene-format.md). Writes into OUTDIR:\n"
        "  frames/frame_NNNNNN.vtu + frames.pvd   boundary surfaces (or .ply + frames.ply.series\n"
        "                                          with --frames ply)\n"
        "  states/state_NNNNNN.alcs + topology.alct  exact binary states for 'alcove check'\n"
        "  stats.csv (or stats.jsonl)              one line of statistics per step\n"
        "  contacts.csv                            contact pairs and per-body forces at every\n"
        "                                          frame, with step and time (--contacts)\n"
        "  summary.txt, run.json, run.args         end-of-run summary and run metadata\n"
        "  checkpoint.alck                         the state to resume from (--resume)\n"
        "\n"
        "options:\n"
        "  --steps N          number of steps (default: the scene's run.steps)\n"
        "  --out DIR          output folder (default: the scene's run.output, else out/NAME;\n"
        "                     not empty, not the root)\n"
        "  --backend B        ref, cuda or auto (default auto: cuda when a device is usable)\n"
        "  --preset P         use the parameter preset P of the scene (e.g. full)\n"
        "  --set NAME=VALUE   override a scene parameter (repeatable)\n"
        "  --contact M        al, ipc, penalty, mlcp-cr, penalty-ds or none (default: the\n"
        "                     scene's)\n"
        "  --ipc-stop S       under ipc, end a step on its residual (||p||/h < newton_tol) or\n"
        "                     on cumulative TOI (the AL paper's rule); default: the scene's\n"
        "  --ipc-dhat D       under ipc, the barrier's reach dhat in m, or 'delta' for the\n"
        "                     scene's contact offset (default: the scene's, else 1e-3 l)\n"
        "  --linear-solver S  pcg, direct (sparse Cholesky, reference backend) or auto (PCG,\n"
        "                     Cholesky where PCG ends at its cap, 1000 iterations unless the\n"
        "                     scene sets cg_max_iter); default: the scene's, else pcg\n"
        "  --mlcp-precond P   under mlcp-cr, the conjugate residual's preconditioner: full or\n"
        "                     diag (default: the scene's, else full)\n"
        "  --threads N        CPU threads of the reference backend (default: the cores\n"
        "                     idle at the start, at most one per 1024 elements)\n"
        "  --frames F         vtu, ply or none (default: the scene's run.frames)\n"
        "  --every K          write a frame every K steps (default: the scene's)\n"
        "  --contacts         also write the contact pairs with every frame\n"
        "  --no-states        do not write the exact states (alcove check needs them)\n"
        "  --resume DIR       continue the run in DIR from its checkpoint, with the options it\n"
        "                     was started with (options given here are applied after them,\n"
        "                     e.g. --steps to extend it; any of -q, -v and -vv given here\n"
        "                     replaces the recorded ones); without a checkpoint it starts again.\n"
        "                     A scene given here replaces the recorded one (a run folder\n"
        "                     moved to another machine); it must compile to the same model\n"
        "  --no-checkpoint    do not write OUTDIR/checkpoint.alck (written with every frame\n"
        "                     and at the end; an interrupted run keeps its last frame's)\n"
        "  --sync             fsync every file (survives power loss; slower)\n"
        "  --quiet            no progress bar and no summary\n"
        "  --verbose, -v      log every solver iteration (alpha, active pairs, mu, the largest\n"
        "                     multiplier and its pair)\n"
        "  --very-verbose, -vv\n"
        "                     also log every Newton iteration (|p|, CG, line search, L, kink\n"
        "                     crossings, why the subproblem goes on) and the pair that cut\n"
        "                     each outer iteration's chord (its distances, how far its two\n"
        "                     primitives move against each other, whether it is active)\n"
        "  -h, --help         this text\n");
}

/// Remove the files of dir whose names start with prefix (our patterns only): all of them
/// (files of a previous run that this run will not overwrite) when after < 0, else those whose
/// prefix is followed by a number above `after` (frames and states written after a checkpoint:
/// the resumed run writes them again).
static void removeFiles(const char* dir, const char* prefix, long after) {
    DIR* d = opendir(dir);
    if (!d) return;
    struct dirent* e;
    char path[4096];
    size_t np = strlen(prefix);
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, prefix, np) != 0) continue;
        if (after >= 0) {
            char* end = NULL;
            long idx = strtol(e->d_name + np, &end, 10);
            if (end == e->d_name + np || idx <= after) continue;
        }
        snprintf(path, sizeof path, "%.3500s/%.500s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
}

typedef struct {
    const alcModel* m;
    const char* out;
    int format;
    int states;
    int contacts;
    alcContactLog* log;  // contacts.csv when contacts is set
    char** files;
    double* times;
    int nframe, capframe;
} Writer;

/// Write frame and state number idx of the current data.
static int writeFrame(Writer* w, alcSim* sim, const alcData* d, long idx) {
    char path[4096], err[1024];
    if (w->format != ALC_FRAMES_NONE) {
        const char* ext = w->format == ALC_FRAMES_VTU ? "vtu" : "ply";
        char rel[256];
        snprintf(rel, sizeof rel, "frames/frame_%06ld.%s", idx, ext);
        snprintf(path, sizeof path, "%s/%s", w->out, rel);
        alctStatus st = alc_writeFrame(w->m, d, w->format, path, err, sizeof err);
        if (st != ALC_OK) {
            fprintf(stderr, "alcove: %s\n", err);
            return 0;
        }
        // the series index, rewritten after every frame: .pvd for VTU, .ply.series for PLY
        if (w->nframe >= w->capframe) {
            int cap = w->capframe ? 2 * w->capframe : 64;
            char** f = (char**)realloc(w->files, sizeof(char*) * (size_t)cap);
            if (f) w->files = f;
            double* t = f ? (double*)realloc(w->times, sizeof(double) * (size_t)cap) : NULL;
            if (!f || !t) {
                fprintf(stderr, "alcove: out of memory\n");
                return 0;
            }
            w->times = t;
            w->capframe = cap;
        }
        w->files[w->nframe] = strdup(rel);
        if (!w->files[w->nframe]) {
            fprintf(stderr, "alcove: out of memory\n");
            return 0;
        }
        w->times[w->nframe] = d->time;
        w->nframe++;
        int vtu = w->format == ALC_FRAMES_VTU;
        snprintf(path, sizeof path, "%s/%s", w->out, vtu ? "frames.pvd" : "frames.ply.series");
        st = alc_writeFrameSeries(path, w->nframe, (const char* const*)w->files, w->times, err,
                                  sizeof err);
        if (st != ALC_OK) {
            fprintf(stderr, "alcove: %s\n", err);
            return 0;
        }
    }
    if (w->states) {
        snprintf(path, sizeof path, "%s/states/state_%06ld.alcs", w->out, idx);
        if (alc_writeState(d, path, err, sizeof err) != ALC_OK) {
            fprintf(stderr, "alcove: %s\n", err);
            return 0;
        }
    }
    if (w->contacts && sim) {
        if (alc_contactLogWrite(w->log, sim, d, err, sizeof err) != ALC_OK) {
            fprintf(stderr, "alcove: %s\n", err);
            return 0;
        }
    }
    return 1;
}

// ---- resuming a run -----------------------------------------------------------------------

/// The options of `alcove run` that take a value (as "--opt VALUE" or "--opt=VALUE").
static const char* const kValueOptions[] = {
    "--out",           "--frames",       "--every",   "--preset",  "--set",
    "--steps",         "--threads",      "--backend", "--contact", "--ipc-dhat",
    "--linear-solver", "--mlcp-precond", NULL};

/// The key of the argument at argv[i] that a later one with the same key overrides: the option
/// name (with the parameter name for --set NAME=VALUE; -q, -v and -vv as their long names),
/// "<scene>" for the scene (a scene given to --resume replaces the recorded one); *span = the
/// number of argv entries it takes (1 or 2).
static void argKey(int argc, char** argv, int i, char* key, size_t cap, int* span) {
    const char* a = argv[i];
    *span = 1;
    if (a[0] != '-') {
        snprintf(key, cap, "%s", "<scene>");
        return;
    }
    if (!strcmp(a, "-q")) a = "--quiet";
    if (!strcmp(a, "-v")) a = "--verbose";
    if (!strcmp(a, "-vv")) a = "--very-verbose";
    size_t len = strcspn(a, "=");
    const char* value = a[len] == '=' ? a + len + 1 : NULL;
    for (int k = 0; kValueOptions[k]; k++) {
        if (strlen(kValueOptions[k]) != len || strncmp(a, kValueOptions[k], len)) continue;
        if (!value && i + 1 < argc) {
            value = argv[i + 1];
            *span = 2;
        }
        if (!strcmp(kValueOptions[k], "--set") && value) {
            snprintf(key, cap, "--set %.*s", (int)strcspn(value, "="), value);
            return;
        }
        break;
    }
    snprintf(key, cap, "%.*s", (int)len, a);
}

/// Write OUTDIR/run.args: the run's arguments after "run", each followed by a NUL byte (any
/// character survives), with the scene as an absolute path so that --resume works from any
/// folder. A resumed run's arguments are its first run's followed by the resuming command's;
/// an argument that a later one overrides (the same option, or --set of the same name) is left
/// out, so that the file stays the run's effective command however often it is resumed.
static int writeRunArgs(const char* out, int argc, char** argv, const char* scene) {
    char path[4096], err[1024], real[4096], key[256], later[256];
    snprintf(path, sizeof path, "%s/run.args", out);
    alciFile f;
    if (alci_file_open(&f, path, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove: %s\n", err);
        return 0;
    }
    for (int i = 1; i < argc;) {
        int span = 1, overridden = 0;
        argKey(argc, argv, i, key, sizeof key, &span);
        for (int j = i + span; j < argc && !overridden;) {
            int spanj = 1;
            argKey(argc, argv, j, later, sizeof later, &spanj);
            overridden = !strcmp(key, later) && key[0];
            j += spanj;
        }
        for (int k = i; k < i + span && !overridden; k++) {
            const char* a = argv[k];
            if (a == scene && realpath(scene, real)) a = real;
            alci_file_write(&f, a, strlen(a) + 1);
        }
        i += span;
    }
    if (alci_file_commit(&f, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove: %s\n", err);
        return 0;
    }
    return 1;
}

/// Whether a is one of the options that set how much a run prints (-q, -v, -vv, long or short).
static int isVerbosityOption(const char* a) {
    static const char* const names[] = {"-q", "--quiet", "-v", "--verbose", "-vv",
                                        "--very-verbose", NULL};
    for (int k = 0; names[k]; k++)
        if (!strcmp(a, names[k])) return 1;
    return 0;
}

/// The arguments of the run in dir followed by this command's own (less --resume DIR), as a
/// new argv (argv[0] = "run"); the strings live in *store. NULL (with the reason printed) when
/// dir has no run.args. How much the run prints is one setting: when this command gives any of
/// -q, -v and -vv, the recorded ones are left out (a run started with -v and resumed with -q
/// is quiet; -v -q together still log without a progress bar).
static char** resumeArgs(const char* dir, int argc, char** argv, int* nargc, char** store) {
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s/run.args", dir);
    unsigned char* data = NULL;
    size_t n = 0;
    if (alci_state_readFile(path, &data, &n, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove run --resume: %s (is %s the output folder of an alcove run?)\n",
                err, dir);
        return NULL;
    }
    int count = 0;
    for (size_t i = 0; i < n; i++) count += data[i] == 0;
    char** out = (char**)calloc((size_t)(count + argc + 1), sizeof(char*));
    if (!out) {
        free(data);
        return NULL;
    }
    int newVerbosity = 0;
    for (int i = 1; i < argc; i++) newVerbosity |= isVerbosityOption(argv[i]);
    int k = 0;
    out[k++] = argv[0];
    for (size_t i = 0; i < n;) {
        char* a = (char*)data + i;
        if (!(newVerbosity && isVerbosityOption(a))) out[k++] = a;
        i += strlen(a) + 1;
    }
    if (n > 0 && data[n - 1] != 0) {  // a torn file: its last argument is incomplete
        fprintf(stderr, "alcove run --resume: %s is incomplete\n", path);
        free(data);
        free(out);
        return NULL;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--resume")) {
            i++;
            continue;
        }
        if (!strncmp(argv[i], "--resume=", 9)) continue;
        out[k++] = argv[i];
    }
    *nargc = k;
    *store = (char*)data;
    return out;
}

/// Times of steps 0..step from the statistics file (CSV rows "step,time,..." or JSON lines
/// with "step" and "time"); steps without a row stay NaN. Step 0 is the initial time t0.
static void loadStepTimes(const char* path, int json, long step, double t0, double* times) {
    for (long i = 0; i <= step; i++) times[i] = NAN;
    times[0] = t0;
    FILE* fp = fopen(path, "r");
    if (!fp) return;
    char line[8192];
    while (fgets(line, sizeof line, fp)) {
        const char* ps = line;
        const char* pt = NULL;
        if (json) {
            ps = strstr(line, "\"step\":");
            pt = strstr(line, "\"time\":");
            if (!ps || !pt) continue;
            ps += 7;
            pt += 7;
        }
        char* e = NULL;
        long k = strtol(ps, &e, 10);
        if (e == ps || k < 0 || k > step) continue;
        if (!json) {
            if (*e != ',') continue;
            pt = e + 1;
        }
        char* e2 = NULL;
        double t = strtod(pt, &e2);
        if (e2 != pt) times[k] = t;
    }
    fclose(fp);
}

/// The frame index of a resumed run: the frames at steps 0..step found on disk, with their
/// times from the statistics.
static int resumeFrames(Writer* w, long step, const double* times) {
    const char* ext = w->format == ALC_FRAMES_VTU ? "vtu" : "ply";
    char rel[256], path[4096];
    for (long i = 0; i <= step; i++) {
        snprintf(rel, sizeof rel, "frames/frame_%06ld.%s", i, ext);
        snprintf(path, sizeof path, "%s/%s", w->out, rel);
        if (isnan(times[i]) || access(path, R_OK) != 0) continue;
        if (w->nframe >= w->capframe) {
            int cap = w->capframe ? 2 * w->capframe : 64;
            char** f = (char**)realloc(w->files, sizeof(char*) * (size_t)cap);
            if (f) w->files = f;
            double* t = f ? (double*)realloc(w->times, sizeof(double) * (size_t)cap) : NULL;
            if (!f || !t) return 0;
            w->times = t;
            w->capframe = cap;
        }
        w->files[w->nframe] = strdup(rel);
        if (!w->files[w->nframe]) return 0;
        w->times[w->nframe++] = times[i];
    }
    return 1;
}

/// OUTDIR/checkpoint.alck of the current step; 0 with the reason printed.
static int saveCheckpoint(alcSim* sim, const alcData* d, const char* path) {
    if (alc_saveCheckpointFile(sim, d, path) == ALC_OK) return 1;
    fprintf(stderr, "\nalcove: %s\n", alc_lastError(sim));
    return 0;
}

/// A JSON string: quotes, backslashes and control characters escaped.
static void jsonString(alciFile* f, const char* s) {
    alci_file_printf(f, "\"");
    for (const unsigned char* c = (const unsigned char*)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            alci_file_printf(f, "\\%c", *c);
        else if (*c < 0x20)
            alci_file_printf(f, "\\u%04x", *c);
        else
            alci_file_printf(f, "%c", *c);
    }
    alci_file_printf(f, "\"");
}

static int writeRunJson(const char* out, const alcCliScene* s, const alcModel* m, alcSim* sim,
                        int steps, long resumedAt, int argc, char** argv) {
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s/run.json", out);
    alciFile f;
    if (alci_file_open(&f, path, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove: %s\n", err);
        return 0;
    }
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    alci_file_printf(
        &f, "{\"alcove\": \"%s\", \"date\": \"%s\", \"scene\": \"%s\", \"name\": \"%s\",\n",
        alcu_versionString(), date, s->scene, alc_sceneName(m));
    alci_file_printf(
        &f, " \"backend\": \"%s\", \"contact\": \"%s\", \"steps\": %d, \"time_step\": %.17g,\n",
        alc_simBackendName(sim), alc_cliContactName(m->opt.contact), steps, m->opt.timestep);
    alci_file_printf(
        &f, " \"vertices\": %d, \"tetrahedra\": %d, \"surface_triangles\": %d, \"bodies\": %d,\n",
        m->nvert, m->ntet, m->ntri, m->nbody);
    if (resumedAt >= 0) alci_file_printf(&f, " \"resumed_at_step\": %ld,\n", resumedAt);
    if (alc_cliUsesBlas(m, sim)) {
        char blas[1024];
        alcu_blasDescribe(blas, sizeof blas, NULL, 0);
        alci_file_printf(&f, " \"blas\": ");
        jsonString(&f, blas);
        alci_file_printf(&f, ",\n");
    }
    if (alc_simDeviceName(sim)[0]) {
        alci_file_printf(&f, " \"device\": ");
        jsonString(&f, alc_simDeviceName(sim));
        alci_file_printf(&f, ",\n");
    }
    alci_file_printf(&f, " \"command\": [");
    for (int i = 0; i < argc; i++) {
        if (i) alci_file_printf(&f, ", ");
        jsonString(&f, argv[i]);
    }
    alci_file_printf(&f, "]}\n");
    if (alci_file_commit(&f, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove: %s\n", err);
        return 0;
    }
    return 1;
}

static int runMain(int argc, char** argv, const char* resume);

int alc_cmdRun(int argc, char** argv) {
    const char* resume = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--resume")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "alcove run: --resume expects the output folder of a run\n");
                return ALC_EXIT_USAGE;
            }
            resume = argv[++i];
        } else if (!strncmp(argv[i], "--resume=", 9)) {
            resume = argv[i] + 9;
        }
    }
    if (!resume) return runMain(argc, argv, NULL);
    if (!outputPathOk(resume)) return ALC_EXIT_USAGE;
    int n = 0;
    char* store = NULL;
    char** args = resumeArgs(resume, argc, argv, &n, &store);
    if (!args) return ALC_EXIT_USAGE;
    int code = runMain(n, args, resume);
    free(args);
    free(store);
    return code;
}

/// alcove run; with resume, the run in that folder continued from its checkpoint.
static int runMain(int argc, char** argv, const char* resume) {
    alcCliScene s;
    alc_cliSceneInit(&s);
    const char* out = NULL;
    int frames = -1, every = -1, contacts = 0, noStates = 0, quiet = 0, verbose = 0;
    int checkpoints = 1, sceneReplaced = 0;
    for (int i = 1; i < argc; i++) {
        int r = alc_cliSceneOption(&s, argc, argv, &i);
        if (r < 0) return ALC_EXIT_USAGE;
        if (r > 0) continue;
        const char* a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            runUsage(stdout);
            return ALC_EXIT_OK;
        } else if (!strcmp(a, "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strncmp(a, "--out=", 6)) {
            out = a + 6;
        } else if (!strcmp(a, "--frames") && i + 1 < argc) {
            const char* f = argv[++i];
            frames = !strcmp(f, "vtu")    ? ALC_FRAMES_VTU
                     : !strcmp(f, "ply")  ? ALC_FRAMES_PLY
                     : !strcmp(f, "none") ? ALC_FRAMES_NONE
                                          : -2;
            if (frames == -2) {
                fprintf(stderr, "alcove: --frames expects vtu, ply or none\n");
                return ALC_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--every") && i + 1 < argc) {
            every = atoi(argv[++i]);
            if (every < 0) {
                fprintf(stderr, "alcove: --every expects an integer >= 0\n");
                return ALC_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--contacts")) {
            contacts = 1;
        } else if (!strcmp(a, "--sync")) {
            setenv("ALC_SYNC", "1", 1);
        } else if (!strcmp(a, "--no-states")) {
            noStates = 1;
        } else if (!strcmp(a, "--no-checkpoint")) {
            checkpoints = 0;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = 1;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            verbose = verbose > 1 ? verbose : 1;
        } else if (!strcmp(a, "--very-verbose") || !strcmp(a, "-vv")) {
            verbose = 2;
        } else if (a[0] == '-') {
            fprintf(stderr, "alcove run: unknown option '%s' (see alcove run --help)\n", a);
            return ALC_EXIT_USAGE;
        } else if (!s.scene) {
            s.scene = a;
        } else if (resume && !sceneReplaced) {
            // the resuming command's scene after the recorded one: the run folder was moved
            // (the checkpoint's fingerprint still refuses another model)
            s.scene = a;
            sceneReplaced = 1;
        } else {
            fprintf(stderr, "alcove run: more than one scene given ('%s')\n", a);
            return ALC_EXIT_USAGE;
        }
    }
    if (!s.scene) {
        runUsage(stderr);
        return ALC_EXIT_USAGE;
    }
    if (out && !outputPathOk(out)) return ALC_EXIT_USAGE;
    if (resume && !sceneReplaced && access(s.scene, R_OK) != 0) {
        fprintf(stderr,
                "alcove run --resume: the run's scene %s cannot be read (%s); if the run "
                "folder or the scene was moved, give the scene's path after --resume %s\n",
                s.scene, strerror(errno), resume);
        return ALC_EXIT_USAGE;
    }
    installHandlers();
    alcModel* m = alc_cliLoad(&s);
    if (g_stop) {
        fprintf(stderr, "alcove: interrupted while loading the scene\n");
        alc_deleteModel(m);
        return stopCode();
    }
    if (!m) return ALC_EXIT_USAGE;
    int steps = s.steps >= 0 ? s.steps : m->run.steps;
    Writer w;
    memset(&w, 0, sizeof w);
    w.m = m;
    w.format = frames >= 0 ? frames : m->run.frameFormat;
    w.states = noStates ? 0 : m->run.writeStates;
    w.contacts = contacts || m->run.writeContacts;
    int frameEvery = every >= 0 ? every : m->run.frameEvery;
    char outDir[3000];
    if (resume)
        snprintf(outDir, sizeof outDir, "%s", resume);
    else if (out)
        snprintf(outDir, sizeof outDir, "%s", out);
    else if (m->run.outDirAdr >= 0)
        snprintf(outDir, sizeof outDir, "%s", m->names + m->run.outDirAdr);
    else
        snprintf(outDir, sizeof outDir, "out/%s", alc_sceneName(m));
    w.out = outDir;

    // output folders; files of an earlier run that this one would not overwrite go away
    char path[4096], err[1024], ckptPath[4096];
    int code = ALC_EXIT_OK;
    snprintf(ckptPath, sizeof ckptPath, "%s/checkpoint.alck", outDir);
    if (resume && access(ckptPath, R_OK) != 0) {
        fprintf(stderr,
                "alcove: %s has no checkpoint (the run stopped before its first frame): "
                "starting it again from step 0\n",
                outDir);
        resume = NULL;
    }
    if (alci_mkdirs(outDir, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove: %s\n", err);
        alc_deleteModel(m);
        return ALC_EXIT_FAIL;
    }
    if (!outputPathOk(outDir)) {  // "/x/.." exists only now
        alc_deleteModel(m);
        return ALC_EXIT_USAGE;
    }
    // the folders this run writes; in every one (and in those it does not write) the files
    // of an earlier run go, and a folder left empty is removed
    const char* sub[] = {"frames", "states", "contacts"};
    const char* prefix[] = {"frame_", "state_", "contacts_"};
    int want[] = {w.format != ALC_FRAMES_NONE, w.states, 0};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", outDir, sub[k]);
        if (!resume) removeFiles(path, prefix[k], -1);
        if (k == 2) removeFiles(path, "bodies_", -1);  // the per-frame contact files before 0.4
        if (!want[k]) {
            rmdir(path);  // only when empty: nothing of the user's is touched
            continue;
        }
        if (alci_mkdirs(path, err, sizeof err) != ALC_OK) {
            fprintf(stderr, "alcove: %s\n", err);
            alc_deleteModel(m);
            return ALC_EXIT_FAIL;
        }
    }
    const char* stale[] = {"frames.pvd", "frames.ply.series", "contacts.csv", "topology.alct",
                           "checkpoint.alck"};
    int keep[] = {w.format == ALC_FRAMES_VTU, w.format == ALC_FRAMES_PLY, w.contacts, w.states,
                  resume != NULL};
    for (int k = 0; k < 5; k++) {
        snprintf(path, sizeof path, "%s/%s", outDir, stale[k]);
        if (!keep[k]) unlink(path);
    }
    if (w.contacts && !resume) {
        snprintf(path, sizeof path, "%s/contacts.csv", outDir);
        if (alc_contactLogOpen(path, &w.log, err, sizeof err) != ALC_OK) {
            fprintf(stderr, "alcove: %s\n", err);
            alc_deleteModel(m);
            return ALC_EXIT_FAIL;
        }
    }

    alcSimDef def = alc_defaultSimDef();
    def.backend = s.backend;
    def.threads = s.threads;
    def.log = alc_cliLog;
    if (verbose) def.verbosity = 2 + verbose;
    alcSim* sim = NULL;
    alcData* d = NULL;
    alctStatus st = alc_makeData(m, &d);
    if (st == ALC_OK) st = alc_makeSim(m, &def, &sim);
    if (st != ALC_OK) {
        fprintf(stderr, "alcove: cannot create the simulation: %s\n",
                sim ? alc_lastError(sim) : alcu_statusString(st));
        alc_contactLogClose(w.log, NULL, 0);
        alc_deleteSim(sim);
        alc_deleteData(d);
        alc_deleteModel(m);
        return st == ALC_ERR_NO_DEVICE || st == ALC_ERR_UNSUPPORTED ? ALC_EXIT_USAGE
                                                                    : ALC_EXIT_FAIL;
    }
    // a resumed run: the checkpoint's state, and the files of the steps after it removed
    long start = 0;
    if (resume) {
        st = alc_loadCheckpointFile(sim, d, ckptPath);
        if (st != ALC_OK) {
            fprintf(stderr, "alcove: cannot resume: %s\n", alc_lastError(sim));
            alc_deleteSim(sim);
            alc_deleteData(d);
            alc_deleteModel(m);
            return ALC_EXIT_FAIL;
        }
        start = d->step;
        if (start >= steps) {
            fprintf(stderr, "alcove: %s is complete (step %ld of %d); nothing to do\n", outDir,
                    start, steps);
            alc_deleteSim(sim);
            alc_deleteData(d);
            alc_deleteModel(m);
            return ALC_EXIT_OK;
        }
        for (int k = 0; k < 2; k++) {
            snprintf(path, sizeof path, "%s/%s", outDir, sub[k]);
            removeFiles(path, prefix[k], start);
        }
        if (w.contacts) {
            snprintf(path, sizeof path, "%s/contacts.csv", outDir);
            if (alc_contactLogResume(path, start, &w.log, err, sizeof err) != ALC_OK) {
                fprintf(stderr, "alcove: %s\n", err);
                code = ALC_EXIT_FAIL;
            }
        }
    }
    char backendName[256];
    alc_cliBackendLabel(sim, backendName, sizeof backendName);
    if (!quiet) {
        fprintf(stderr,
                "alcove: %s: %d vertices, %d tetrahedra, %d surface triangles, %d bodies; "
                "%d steps of %g s on backend %s, contact %s -> %s\n",
                alc_sceneName(m), m->nvert, m->ntet, m->ntri, m->nbody, steps, m->opt.timestep,
                backendName, alc_cliContactName(m->opt.contact), outDir);
    }
    if (resume) fprintf(stderr, "alcove: resumed from the checkpoint at step %ld\n", start);
    if (!quiet && alc_cliUsesBlas(m, sim)) {
        char blas[1024], advice[512];
        alcu_blasDescribe(blas, sizeof blas, advice, sizeof advice);
        if (verbose) fprintf(stderr, "alcove: BLAS: %s\n", blas);
        if (advice[0]) fprintf(stderr, "alcove: warning: %s\n", advice);
    }
    if (code == ALC_EXIT_OK &&
        !writeRunJson(outDir, &s, m, sim, steps, resume ? start : -1, argc, argv))
        code = ALC_EXIT_FAIL;
    if (code == ALC_EXIT_OK && !writeRunArgs(outDir, argc, argv, s.scene)) code = ALC_EXIT_FAIL;
    if (code == ALC_EXIT_OK && w.states) {
        snprintf(path, sizeof path, "%s/topology.alct", outDir);
        if (alc_writeTopology(m, path, err, sizeof err) != ALC_OK) {
            fprintf(stderr, "alcove: %s\n", err);
            code = ALC_EXIT_FAIL;
        }
    }
    alcStatsFile* stats = NULL;
    if (code == ALC_EXIT_OK) {
        snprintf(path, sizeof path, "%s/stats.%s", outDir, m->run.statsJson ? "jsonl" : "csv");
        st = resume ? alc_statsResume(path, m->run.statsJson, start, &stats, err, sizeof err)
                    : alc_statsOpen(path, m->run.statsJson, &stats, err, sizeof err);
        if (st != ALC_OK) {
            fprintf(stderr, "alcove: %s\n", err);
            code = ALC_EXIT_FAIL;
        }
    }
    if (code == ALC_EXIT_OK && resume && w.format != ALC_FRAMES_NONE) {
        // the frame index: the frames of steps 0..start on disk, with their times
        double* times = (double*)malloc(sizeof(double) * (size_t)(start + 1));
        if (!times ||
            !resumeFrames(&w, start,
                          (loadStepTimes(path, m->run.statsJson, start, 0, times), times))) {
            fprintf(stderr, "alcove: out of memory\n");
            code = ALC_EXIT_FAIL;
        }
        free(times);
    }
    if (code == ALC_EXIT_OK && !resume && !writeFrame(&w, NULL, d, 0)) code = ALC_EXIT_FAIL;

    // the loop; Ctrl-C cancels the step in progress, with every file complete
    g_sim = sim;
    alciProgress prog;
    if (!quiet) alci_progress_begin(&prog, stderr, steps, start, alc_sceneName(m));
    for (long k = start; k < steps && code == ALC_EXIT_OK; k++) {
        if (g_stop) {
            code = stopCode();
            break;
        }
        st = alc_step(sim, d);
        if (st == ALC_ERR_CANCELLED) {
            code = stopCode();
            break;
        }
        if (st != ALC_OK) {
            fprintf(stderr, "\nalcove: step %ld failed: %s\n", k + 1, alc_lastError(sim));
            code = ALC_EXIT_FAIL;
            break;
        }
        if (alc_statsWrite(stats, d, err, sizeof err) != ALC_OK) {
            fprintf(stderr, "\nalcove: %s\n", err);
            code = ALC_EXIT_FAIL;
            break;
        }
        if (frameEvery > 0 && (k + 1) % frameEvery == 0) {
            if (!writeFrame(&w, sim, d, d->step) ||
                (checkpoints && !saveCheckpoint(sim, d, ckptPath))) {
                code = ALC_EXIT_FAIL;
            }
        }
        if (!quiet) {
            char extra[128];
            snprintf(extra, sizeof extra, "newton %d, contacts %d", d->stat.newton,
                     d->stat.contactsMax);
            alci_progress_update(&prog, (int)(k + 1), extra);
        }
    }
    if (!quiet) alci_progress_end(&prog);
    // the checkpoint of the last step of a complete run; an interrupted one keeps that of its
    // last frame: the cancelled step changed the contact warm start (alc_cancelStep), and a
    // checkpoint taken now would resume correctly but not bit for bit
    int stopped = code == ALC_EXIT_INTERRUPT || code == ALC_EXIT_TERMINATED;
    if (checkpoints && code == ALC_EXIT_OK && d->step > start && !saveCheckpoint(sim, d, ckptPath))
        code = ALC_EXIT_FAIL;
    if (stopped) {
        fprintf(stderr, "alcove: %s during step %ld; the output holds steps 0 to %ld\n",
                g_stop == SIGTERM ? "terminated" : "interrupted", d->step + 1, d->step);
        if (checkpoints && access(ckptPath, R_OK) == 0)
            fprintf(stderr, "alcove: continue it with: alcove run --resume %s\n", outDir);
    }
    if (alc_statsClose(stats, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove: %s\n", err);
        if (code == ALC_EXIT_OK) code = ALC_EXIT_FAIL;
    }
    // summary
    if (d->run.steps > 0) {
        // through the atomic writer: complete or absent, and a write error fails the run
        snprintf(path, sizeof path, "%s/summary.txt", outDir);
        alciFile sf;
        if (alci_file_open(&sf, path, err, sizeof err) != ALC_OK) {
            fprintf(stderr, "alcove: %s\n", err);
            if (code == ALC_EXIT_OK) code = ALC_EXIT_FAIL;
        } else {
            alci_stats_summary(sf.fp, m, &d->run, backendName);
            alci_file_printf(&sf, "  memory     : %.1f MB held by the backend (peak)\n",
                             (double)d->maxuse_memory / 1e6);
            for (int k = 0; k < ALC_NWARNING; k++) {
                if (d->warning[k].count)
                    alci_file_printf(&sf, "warning %s: %d\n", alcu_warningString((alctWarning)k),
                                     d->warning[k].count);
            }
            if (alci_file_commit(&sf, err, sizeof err) != ALC_OK) {
                fprintf(stderr, "alcove: %s\n", err);
                if (code == ALC_EXIT_OK) code = ALC_EXIT_FAIL;
            }
        }
        if (!quiet) {
            alci_stats_summary(stdout, m, &d->run, backendName);
            printf("  memory     : %.1f MB held by the backend (peak)\n",
                   (double)d->maxuse_memory / 1e6);
            for (int k = 0; k < ALC_NWARNING; k++) {
                if (d->warning[k].count)
                    printf("warning %s: %d\n", alcu_warningString((alctWarning)k),
                           d->warning[k].count);
            }
            printf("output: %s\n", outDir);
        }
    }
    if (alc_contactLogClose(w.log, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove: %s\n", err);
        if (code == ALC_EXIT_OK) code = ALC_EXIT_FAIL;
    }
    for (int i = 0; i < w.nframe; i++) free(w.files[i]);
    free(w.files);
    free(w.times);
    g_sim = NULL;
    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return code;
}
