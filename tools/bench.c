// alcove bench: the AL paper's Table 1 row for a scene (one or several contact models, side by
// side with ratios), and the benchmark table that `make bench` runs and records.
#include "cli.h"
#include "io_atomic.h"
#include "stats_writer.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/// The benchmark table: every scene at the size given by its preset ("" = CI size).
typedef struct {
    const char* name;
    const char* scene;
    const char* preset;
    int steps;
    int vsIpc;  // 1: also IPC with the AL paper's termination, and the ratio (issue 18, item 5)
} BenchEntry;

static const BenchEntry kTable[] = {
    {"box_drop", "scenes/box_drop.yaml", "", 50, 0},
    {"box_stack", "scenes/box_stack.yaml", "", 50, 0},
    {"ball_plate", "scenes/ball_plate.yaml", "", 40, 0},
    // the AL paper's AL-against-GIPC scenes (Figs. 1, 3, 4): the ratio at CI size, beside the
    // full-size runs of bench/results/amd-epyc-2c/al-vs-ipc-full-size.md
    {"balls_press", "scenes/balls_press.yaml", "", 60, 1},
    {"rods_twist", "scenes/rods_twist.yaml", "", 40, 0},
    {"rings_box", "scenes/rings_box.yaml", "", 60, 1},
    {"pile_well", "scenes/pile_well.yaml", "", 60, 1},
    {"rigid_cubes", "scenes/rigid_cubes.yaml", "", 40, 0},
    // the frictional validation scenes (AL paper Figs. 8-10, 14)
    {"momentum", "scenes/momentum.yaml", "", 60, 0},
    {"slope", "scenes/slope.yaml", "", 130, 0},
    {"arch", "scenes/arch.yaml", "", 250, 0},
    {"roller", "scenes/roller.yaml", "", 50, 0},
};
#define NTABLE ((int)(sizeof kTable / sizeof kTable[0]))

static void benchUsage(FILE* out) {
    fprintf(out,
            "usage: alcove bench SCENE [options]\n"
            "       alcove bench --table [--list] [--only NAME] [--record DIR] [options]\n"
            "\n"
            "Runs SCENE and prints the AL paper's Table 1 row: #tets, CG iterations per solve\n"
            "avg (peak), Newton iterations per step avg (peak), active contacts avg (peak),\n"
            "average step size alpha (TOI), seconds per step avg (peak), and the per-phase\n"
            "breakdown (Hessian, PCG, CCD, line search, other), in seconds per step.\n"
            "\n"
            "options:\n"
            "  --steps N            steps to run (default: the scene's run.steps)\n"
            "  --models a,b,...     contact models to compare (al, ipc, penalty, mlcp-cr,\n"
            "                       penalty-ds); ratios are printed against the first\n"
            "  --repeats R          run R times and keep the fastest (default 1)\n"
            "  --preset P, --set NAME=VALUE, --backend B, --threads N, --ipc-stop S,\n"
            "  --ipc-dhat D, --linear-solver S, --mlcp-precond P\n"
            "                       as for alcove run\n"
            "  --table              run the built-in benchmark table (make bench); its\n"
            "                       balls_press, rings_box and pile_well rows run al and ipc\n"
            "                       (--ipc-stop toi --ipc-dhat delta) with their ratio, unless\n"
            "                       --models or --contact is given\n"
            "  --list               list the table\n"
            "  --only NAME          run one entry of the table\n"
            "  --record DIR         write DIR/<machine>/<name>.csv with machine, BLAS, date,\n"
            "                       command\n"
            "                       (<machine>: the CPU and its cores, or with --backend cuda on\n"
            "                       a GPU the GPU's name, e.g. h100-80gb-hbm3)\n");
}

typedef struct {
    alcRunStat run;
    int ntet;
    int ok;
    const char* backend;  // alc_simBackendName of the run
    char device[160];     // alc_simDeviceName of the run ("" on ref)
} BenchResult;

static BenchResult runOnce(const alcCliScene* s, int contact, int steps, int repeats) {
    BenchResult best;
    memset(&best, 0, sizeof best);
    for (int r = 0; r < repeats; r++) {
        alcModel* m = alc_cliLoad(s);
        if (!m) return best;
        if (contact >= 0) m->opt.contact = contact;
        int n = steps >= 0 ? steps : m->run.steps;
        alcSimDef def = alc_defaultSimDef();
        def.backend = s->backend;
        def.threads = s->threads;
        def.log = alc_cliLog;
        alcSim* sim = NULL;
        alcData* d = NULL;
        alctStatus st = alc_makeData(m, &d);
        if (st == ALC_OK) st = alc_makeSim(m, &def, &sim);
        for (int k = 0; st == ALC_OK && k < n; k++) st = alc_step(sim, d);
        if (st != ALC_OK) {
            fprintf(stderr, "alcove bench: %s: %s\n", s->scene,
                    sim ? alc_lastError(sim) : alcu_statusString(st));
        } else if (!best.ok || d->run.time[ALC_TIMER_STEP] < best.run.time[ALC_TIMER_STEP]) {
            best.run = d->run;
            best.ntet = m->ntet;
            best.ok = 1;
            best.backend = alc_simBackendName(sim);
            snprintf(best.device, sizeof best.device, "%s", alc_simDeviceName(sim));
        }
        alc_deleteSim(sim);
        alc_deleteData(d);
        alc_deleteModel(m);
        if (st != ALC_OK) return best;
    }
    return best;
}

/// The words of text up to its first comma, lower case, joined by '-': "Intel(R) Xeon(R)
/// Processor" -> intel-r-xeon-r-processor. Returns the slug's length.
static size_t slugOf(const char* text, char* slug, size_t ns) {
    size_t k = 0;
    for (const char* p = text; *p && *p != ',' && k + 1 < ns; p++) {
        char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            slug[k++] = c;
        else if (c >= 'A' && c <= 'Z')
            slug[k++] = (char)(c - 'A' + 'a');
        else if (k > 0 && slug[k - 1] != '-')
            slug[k++] = '-';
    }
    while (k > 0 && slug[k - 1] == '-') k--;
    if (ns > 0) slug[k] = 0;
    return k;
}

/// Machine description: CPU model and core count (Linux), host name.
static void machineName(char* buf, size_t n, char* slug, size_t ns) {
    char cpu[256] = "unknown-cpu";
    FILE* f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char* c = strchr(line, ':');
                if (c) {
                    snprintf(cpu, sizeof cpu, "%s", c + 2);
                    cpu[strcspn(cpu, "\n")] = 0;
                }
                break;
            }
        }
        fclose(f);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    struct utsname u;
    uname(&u);
    snprintf(buf, n, "%s, %ld cores, %s %s", cpu, cores, u.sysname, u.machine);
    size_t k = slugOf(cpu, slug, ns);
    snprintf(slug + k, ns - k, "-%ldc", cores);
}

/// Where the rows run on a GPU (--backend cuda on a device, not the emulation), the machine line
/// also names the GPU and --record files them under the GPU's name, as tools/gpu-acceptance.sh
/// does: "NVIDIA H100 80GB HBM3, sm_90, 79.1 GiB" -> h100-80gb-hbm3.
static void gpuMachine(int backend, char* machine, size_t n, char* slug, size_t ns) {
    char gpu[160], g[128];
    if (backend != ALC_BACKEND_CUDA || alcu_cudaDescribe(0, gpu, sizeof gpu) != 1) return;
    size_t len = strlen(machine);
    snprintf(machine + len, n - len, "; GPU: %s", gpu);
    const char* name = strncmp(gpu, "NVIDIA ", 7) ? gpu : gpu + 7;
    if (slugOf(name, g, sizeof g) > 0) snprintf(slug, ns, "%s", g);
}

static void printRow(FILE* out, const char* name, const alcModel* m, const alcRunStat* r) {
    char row[1024];
    alci_stats_tableRow(row, sizeof row, name, m, r);
    fprintf(out, "%s\n", row);
}

static int benchScene(const alcCliScene* s, const char* label, int steps, int repeats,
                      const int* models, int nmodel, FILE* rec) {
    alcModel* m = alc_cliLoad(s);
    if (!m) return ALC_EXIT_USAGE;
    char hdr[1024];
    alci_stats_tableHeader(hdr, sizeof hdr);
    printf("%s\n", hdr);
    if (rec) fprintf(rec, "%s\n", hdr);
    BenchResult res[ALC_NCONTACTMODEL];
    int code = ALC_EXIT_OK;
    for (int i = 0; i < nmodel; i++) {
        res[i] = runOnce(s, models[i], steps, repeats);
        if (!res[i].ok) {
            code = ALC_EXIT_FAIL;
            continue;
        }
        char name[256];
        if (nmodel > 1)
            snprintf(name, sizeof name, "%s [%s]", label, alc_cliContactName(models[i]));
        else
            snprintf(name, sizeof name, "%s", label);
        if (i == 0 || res[i].backend != res[0].backend) {
            // an emulated CUDA run is labelled: its times are the CPU's, never a GPU timing
            // a GPU run names its device
            char note[256] = "";
            if (strcmp(res[i].backend, "cuda-emulated") == 0) {
                snprintf(note, sizeof note, " (the SIMT emulation on the CPU: not a GPU timing)");
            } else if (res[i].device[0]) {
                snprintf(note, sizeof note, " on %s", res[i].device);
            }
            printf("backend: %s%s\n", res[i].backend, note);
            if (rec) fprintf(rec, "# backend: %s%s\n", res[i].backend, note);
        }
        printRow(stdout, name, m, &res[i].run);
        if (rec) printRow(rec, name, m, &res[i].run);
        if (res[i].run.penetrationMax > 0) {
            printf("  %s: deepest penetration %.4g m\n", name, res[i].run.penetrationMax);
            if (rec)
                fprintf(rec, "#   %s: deepest penetration %.4g m\n", name,
                        res[i].run.penetrationMax);
        }
    }
    // ratios against the first model: Newton, CG per solve, time per step, phases
    for (int i = 1; i < nmodel && res[0].ok; i++) {
        if (!res[i].ok) continue;
        const alcRunStat* a = &res[0].run;
        const alcRunStat* b = &res[i].run;
        double na = a->steps ? (double)a->newton / a->steps : 0,
               nb = b->steps ? (double)b->newton / b->steps : 0;
        double ca = a->newton ? (double)a->cgTotal / a->newton : 0,
               cb = b->newton ? (double)b->cgTotal / b->newton : 0;
        double ta = a->steps ? a->time[ALC_TIMER_STEP] / a->steps : 0,
               tb = b->steps ? b->time[ALC_TIMER_STEP] / b->steps : 0;
        char line[512];
        int k = snprintf(line, sizeof line,
                         "ratio %s/%s: Newton %.2fx, CG per solve %.2fx, time per step %.2fx",
                         alc_cliContactName(models[i]), alc_cliContactName(models[0]),
                         na > 0 ? nb / na : 0, ca > 0 ? cb / ca : 0, ta > 0 ? tb / ta : 0);
        for (int t = ALC_TIMER_HESSIAN; t <= ALC_TIMER_OTHER && k > 0 && (size_t)k < sizeof line;
             t++) {
            double pa = a->time[t], pb = b->time[t];
            k += snprintf(line + k, sizeof line - (size_t)k, ", %s %.2fx",
                          alcu_timerString((alctTimer)t), pa > 0 ? pb / pa : 0);
        }
        printf("%s\n", line);
        if (rec) fprintf(rec, "%s\n", line);
    }
    alc_deleteModel(m);
    return code;
}

int alc_cmdBench(int argc, char** argv) {
    alcCliScene s;
    alc_cliSceneInit(&s);
    int repeats = 1, table = 0, list = 0;
    const char* only = NULL;
    const char* record = NULL;
    int models[ALC_NCONTACTMODEL];
    int nmodel = 0;
    for (int i = 1; i < argc; i++) {
        int r = alc_cliSceneOption(&s, argc, argv, &i);
        if (r < 0) return ALC_EXIT_USAGE;
        if (r > 0) continue;
        const char* a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            benchUsage(stdout);
            return ALC_EXIT_OK;
        } else if (!strcmp(a, "--repeats") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
            if (repeats < 1) repeats = 1;
        } else if (!strcmp(a, "--models") && i + 1 < argc) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", argv[++i]);
            for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                int c = alc_cliContact(tok);
                if (c < 0 || c == ALC_CONTACT_NONE || nmodel >= ALC_NCONTACTMODEL) {
                    fprintf(stderr,
                            "alcove bench: unknown contact model '%s' (al, ipc, penalty, mlcp-cr, "
                            "penalty-ds)\n",
                            tok);
                    return ALC_EXIT_USAGE;
                }
                models[nmodel++] = c;
            }
        } else if (!strcmp(a, "--table")) {
            table = 1;
        } else if (!strcmp(a, "--list")) {
            list = 1;
        } else if (!strcmp(a, "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(a, "--record") && i + 1 < argc) {
            record = argv[++i];
        } else if (a[0] == '-') {
            fprintf(stderr, "alcove bench: unknown option '%s' (see alcove bench --help)\n", a);
            return ALC_EXIT_USAGE;
        } else if (!s.scene) {
            s.scene = a;
        } else {
            fprintf(stderr, "alcove bench: more than one scene given\n");
            return ALC_EXIT_USAGE;
        }
    }
    int modelsGiven = nmodel > 0;
    if (nmodel == 0) {
        models[0] = s.contact;  // -1: the scene's own model
        nmodel = 1;
    }
    if (list) {
        for (int i = 0; i < NTABLE; i++) {
            printf("%-14s %-28s steps %d%s%s%s\n", kTable[i].name, kTable[i].scene, kTable[i].steps,
                   kTable[i].preset[0] ? " preset " : "", kTable[i].preset,
                   kTable[i].vsIpc ? ", al and ipc (TOI stop, dhat = delta)" : "");
        }
        return ALC_EXIT_OK;
    }
    char machine[512], slug[256];
    machineName(machine, sizeof machine, slug, sizeof slug);
    gpuMachine(s.backend, machine, sizeof machine, slug, sizeof slug);
    char blas[1024];
    alcu_blasDescribe(blas, sizeof blas, NULL, 0);
    if (!table) {
        if (!s.scene) {
            benchUsage(stderr);
            return ALC_EXIT_USAGE;
        }
        printf("# machine: %s\n# blas: %s\n# scene: %s\n", machine, blas, s.scene);
        // rows are labelled by the scene's file name without folder and extension, so that
        // "NAME [model]" fits the table's name column
        char label[128];
        const char* base = strrchr(s.scene, '/');
        snprintf(label, sizeof label, "%s", base ? base + 1 : s.scene);
        char* dot = strrchr(label, '.');
        if (dot && dot != label) *dot = 0;
        return benchScene(&s, label, s.steps, repeats, models, nmodel, NULL);
    }
    int code = ALC_EXIT_OK, ran = 0;
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    printf("# machine: %s\n# blas: %s\n# date: %s\n", machine, blas, date);
    for (int i = 0; i < NTABLE; i++) {
        if (only && strcmp(only, kTable[i].name) != 0) continue;
        alcCliScene e = s;
        e.scene = kTable[i].scene;
        if (!e.preset && kTable[i].preset[0]) e.preset = kTable[i].preset;
        int steps = s.steps >= 0 ? s.steps : kTable[i].steps;
        FILE* rec = NULL;
        char path[4096];
        if (record) {
            char err[512];
            snprintf(path, sizeof path, "%s/%s", record, slug);
            if (alci_mkdirs(path, err, sizeof err) != ALC_OK) {
                fprintf(stderr, "alcove bench: %s\n", err);
                return ALC_EXIT_FAIL;
            }
            snprintf(path, sizeof path, "%s/%s/%s.csv", record, slug, kTable[i].name);
            rec = fopen(path, "w");
            if (rec) {
                fprintf(rec,
                        "# machine: %s\n# blas: %s\n# date: %s\n# command: alcove bench --only "
                        "%s --steps %d%s%s --backend %s",
                        machine, blas, date, kTable[i].name, steps, e.preset ? " --preset " : "",
                        e.preset ? e.preset : "",
                        s.backend == ALC_BACKEND_CUDA
                            ? "cuda"
                            : (s.backend == ALC_BACKEND_REF ? "ref" : "auto"));
                if (s.threads > 0) fprintf(rec, " --threads %d", s.threads);
                fprintf(rec, "\n");
            }
        }
        // the AL against IPC with the AL paper's cumulative-TOI termination and dhat = delta,
        // as issue 8 compared them, unless the command line chose the models (--models or
        // --contact); IPC settings it gave (--ipc-stop, --ipc-dhat) are kept
        int vsIpc[2] = {ALC_CONTACT_AL, ALC_CONTACT_IPC};
        int useVs = kTable[i].vsIpc && !modelsGiven && s.contact < 0;
        if (useVs) {
            if (e.ipcToi < 0) e.ipcToi = 1;
            if (e.ipcDhat < 0) e.ipcDhat = 0;
        }
        printf("\n== %s (%s, %d steps)\n", kTable[i].name, kTable[i].scene, steps);
        int r = benchScene(&e, kTable[i].name, steps, repeats, useVs ? vsIpc : models,
                           useVs ? 2 : nmodel, rec);
        if (rec) fclose(rec);
        if (r != ALC_EXIT_OK) code = r;
        ran++;
    }
    if (only && ran == 0) {
        fprintf(stderr, "alcove bench: no table entry named '%s' (see --list)\n", only);
        return ALC_EXIT_USAGE;
    }
    return code;
}
