// alcove paired A.yaml B.yaml: two solver settings compared step by step from the same state.
//
// Contact-rich scenes are chaotic: two runs whose settings differ in anything that changes the
// rounding of one step part ways within tens of steps, and from then on their per-step costs
// differ by as much as a solver change does (on rings_box at close 0.5, a trial build's
// multiplier predictor off and on averaged 7.09 and 4.99 Newton iterations per step as two runs,
// and cost 567 and 563 over 80 steps from equal states; bench/results/amd-epyc-2c/
// al-vs-ipc-full-size.md). A before/after of two
// separate runs then measures the divergence, not the change. Here every step starts both sims
// from the same state: the followed one steps on its own, and before each step its state (a
// checkpoint: data and contact carry) is loaded into the other, so each step's costs are
// compared on equal footing along one trajectory. What a setting leaves in the carried contact
// state (a pair's multiplier, its own mu) comes from the followed side at every step: the
// comparison measures what a setting does within a step, not what it carries into the next.
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE* out) {
    fprintf(out,
            "usage: alcove paired A.yaml B.yaml [options]\n\n"
            "Steps two scenes that describe the same model (the same meshes, materials and\n"
            "drivers; they may differ in their solver options, time step and contact model)\n"
            "from the same state at every step: A steps on its own trajectory and, before\n"
            "each step, its state (a checkpoint: positions, velocities, drivers and the\n"
            "contact carry) is loaded into B. Prints a row per step where the two differ\n"
            "(Newton, outer and CG iterations, and how far apart the two steps end) and the\n"
            "totals. Two separate runs of a contact-rich scene part ways within tens of steps,\n"
            "after which their costs differ by as much as a solver change does; here they\n"
            "cannot. The contact state a step starts from (multipliers, each pair's own mu) is\n"
            "the followed side's: what a setting carries from step to step is not compared.\n"
            "Writes no files (Ctrl-C stops it with nothing lost).\n\n"
            "options:\n"
            "  --steps N          number of steps (default: A's run.steps)\n"
            "  --follow a|b       whose trajectory the steps follow (default a)\n"
            "  --all              a row for every step, also where the two agree\n"
            "  --quiet            the totals only\n"
            "  --preset P, --set NAME=VALUE, --backend B, --threads N, --contact M,\n"
            "  --ipc-stop S, --ipc-dhat D, --linear-solver S, --mlcp-precond P\n"
            "                     as for alcove run, applied to both scenes\n"
            "  -h, --help         this text\n\n"
            "Exit 0 when both ran every step, 1 when a step failed (the totals so far are\n"
            "printed), 2 bad input (also: scenes of different models).\n");
}

/// Per-side totals.
typedef struct {
    long newton, outer, cg, capped, splits;
    double seconds;
} Side;

static void addStep(Side* t, const alcStepStat* s) {
    t->newton += s->newton;
    t->outer += s->outer;
    t->cg += s->cgTotal;
    t->capped += s->capped;
    t->splits += s->splits;
    t->seconds += s->time[ALC_TIMER_STEP];
}

/// Each side's log: a warning of a kind already shown for that side is not shown again (B takes
/// A's data, and with it A's record of the warnings given, at every step).
typedef struct {
    char side;
    int nseen;
    char seen[32][40];
} SideLog;

static void sideLog(void* user, int level, const char* msg) {
    SideLog* L = (SideLog*)user;
    const char* w = strstr(msg, "ALC_WARN_");
    if (level >= 1 && w) {
        char code[40];
        size_t n = strcspn(w, " ,:(");
        if (n >= sizeof code) n = sizeof code - 1;
        memcpy(code, w, n);
        code[n] = 0;
        for (int i = 0; i < L->nseen; i++) {
            if (!strcmp(L->seen[i], code)) return;
        }
        if (L->nseen < 32) memcpy(L->seen[L->nseen++], code, n + 1);
    }
    fprintf(stderr, "alcove paired: %c: %s: %s\n", L->side,
            level == 0 ? "error" : (level == 1 ? "warning" : "info"), msg);
}

static double ratio(long b, long a) {
    return a > 0 ? (double)b / (double)a : 0;
}

static void printTotals(const char* nameA, const char* nameB, int steps, const Side* A,
                        const Side* B, int fewer, int more, double worst, int worstStep) {
    printf("paired: %d steps from equal states (A %s, B %s)\n", steps, nameA, nameB);
    printf("  Newton  A %ld (%.2f per step), B %ld (%.2f per step), B/A %.3f\n", A->newton,
           steps ? (double)A->newton / steps : 0.0, B->newton,
           steps ? (double)B->newton / steps : 0.0, ratio(B->newton, A->newton));
    printf("  outer   A %ld, B %ld, B/A %.3f\n", A->outer, B->outer, ratio(B->outer, A->outer));
    printf("  CG      A %ld, B %ld, B/A %.3f\n", A->cg, B->cg, ratio(B->cg, A->cg));
    printf("  capped  A %ld, B %ld; split steps A %ld, B %ld\n", A->capped, B->capped, A->splits,
           B->splits);
    printf("  seconds A %.3f, B %.3f (solver time, this machine)\n", A->seconds, B->seconds);
    printf("  B took fewer Newton iterations in %d steps, more in %d, as many in %d\n", fewer, more,
           steps - fewer - more);
    printf("  the two steps ended at most %.3g m apart (step %d)\n", worst, worstStep);
}

int alc_cmdPaired(int argc, char** argv) {
    alcCliScene s;
    alc_cliSceneInit(&s);
    const char* scenes[2] = {NULL, NULL};
    int follow = 0, all = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        int r = alc_cliSceneOption(&s, argc, argv, &i);
        if (r < 0) return ALC_EXIT_USAGE;
        if (r > 0) continue;
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return ALC_EXIT_OK;
        } else if (!strcmp(argv[i], "--follow")) {
            const char* v = i + 1 < argc ? argv[++i] : "";
            if (strcmp(v, "a") && strcmp(v, "b")) {
                fprintf(stderr, "alcove paired: --follow takes a or b, not '%s'\n", v);
                return ALC_EXIT_USAGE;
            }
            follow = v[0] == 'b';
        } else if (!strcmp(argv[i], "--all")) {
            all = 1;
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "alcove paired: unknown option '%s' (see alcove paired --help)\n",
                    argv[i]);
            return ALC_EXIT_USAGE;
        } else if (!scenes[0]) {
            scenes[0] = argv[i];
        } else if (!scenes[1]) {
            scenes[1] = argv[i];
        } else {
            fprintf(stderr, "alcove paired: more than two scenes ('%s')\n", argv[i]);
            return ALC_EXIT_USAGE;
        }
    }
    if (!scenes[1]) {
        usage(stderr);
        return ALC_EXIT_USAGE;
    }
    alcModel* m[2] = {NULL, NULL};
    alcData* d[2] = {NULL, NULL};
    alcSim* sim[2] = {NULL, NULL};
    void* buf = NULL;
    size_t cap = 0;
    int code = ALC_EXIT_OK;
    SideLog logs[2];
    memset(logs, 0, sizeof logs);
    for (int k = 0; k < 2 && code == ALC_EXIT_OK; k++) {
        s.scene = scenes[k];
        m[k] = alc_cliLoad(&s);
        if (!m[k]) {
            code = ALC_EXIT_USAGE;
            break;
        }
        alcSimDef def = alc_defaultSimDef();
        def.backend = s.backend;
        def.threads = s.threads;
        logs[k].side = (char)('A' + k);
        def.log = sideLog;
        def.user = &logs[k];
        alctStatus st = alc_makeData(m[k], &d[k]);
        if (st == ALC_OK) st = alc_makeSim(m[k], &def, &sim[k]);
        if (st != ALC_OK) {
            fprintf(stderr, "alcove paired: %s: %s\n", scenes[k],
                    sim[k] ? alc_lastError(sim[k]) : alcu_statusString(st));
            code = ALC_EXIT_FAIL;
        }
    }
    if (code == ALC_EXIT_OK &&
        (m[0]->nvert != m[1]->nvert || m[0]->ntet != m[1]->ntet || m[0]->nbody != m[1]->nbody)) {
        fprintf(stderr,
                "alcove paired: %s and %s are different models (%d and %d vertices, %d and %d "
                "tetrahedra, %d and %d bodies): they may differ in solver options only\n",
                scenes[0], scenes[1], m[0]->nvert, m[1]->nvert, m[0]->ntet, m[1]->ntet, m[0]->nbody,
                m[1]->nbody);
        code = ALC_EXIT_USAGE;
    }
    int steps = s.steps >= 0 ? s.steps : (m[0] ? m[0]->run.steps : 0);
    int lead = follow, other = 1 - follow;
    Side tot[2];
    memset(tot, 0, sizeof tot);
    int fewer = 0, more = 0, done = 0, worstStep = 0;
    double worst = 0;
    size_t nx = m[0] ? 3 * (size_t)m[0]->nvert : 0;
    if (code == ALC_EXIT_OK && !quiet) {
        printf("%6s %9s %9s %8s %8s %9s %9s %12s\n", "step", "newton A", "newton B", "outer A",
               "outer B", "cg A", "cg B", "apart (m)");
    }
    for (int step = 0; code == ALC_EXIT_OK && step < steps; step++) {
        // the followed sim's state into the other one
        size_t bytes = 0;
        alctStatus st = alc_checkpointSize(sim[lead], d[lead], &bytes);
        if (st == ALC_OK && bytes > cap) {
            void* nb = realloc(buf, bytes);
            if (nb) {
                buf = nb;
                cap = bytes;
            } else {
                st = ALC_ERR_NOMEM;
            }
        }
        if (st == ALC_OK) st = alc_saveCheckpoint(sim[lead], d[lead], buf, cap, &bytes);
        if (st != ALC_OK) {
            fprintf(stderr, "alcove paired: step %d: saving %s's state: %s\n", step + 1,
                    scenes[lead], alc_lastError(sim[lead]));
            code = ALC_EXIT_FAIL;
            break;
        }
        st = alc_loadCheckpoint(sim[other], d[other], buf, bytes);
        if (st != ALC_OK) {
            fprintf(stderr,
                    "alcove paired: %s cannot take %s's state (%s): they may differ "
                    "in solver options only\n",
                    scenes[other], scenes[lead], alc_lastError(sim[other]));
            code = step == 0 ? ALC_EXIT_USAGE : ALC_EXIT_FAIL;
            break;
        }
        // each sim steps its own data from the same state
        for (int k = 0; k < 2 && code == ALC_EXIT_OK; k++) {
            st = alc_step(sim[k], d[k]);
            if (st != ALC_OK) {
                fprintf(stderr, "alcove paired: step %d of %s failed: %s\n", step + 1, scenes[k],
                        alc_lastError(sim[k]));
                code = ALC_EXIT_FAIL;
            }
        }
        if (code != ALC_EXIT_OK) break;
        double apart = 0;
        for (size_t i = 0; i < nx; i++) apart = fmax(apart, fabs(d[0]->x[i] - d[1]->x[i]));
        if (apart > worst || worstStep == 0) {
            worst = apart;
            worstStep = step + 1;
        }
        const alcStepStat* a = &d[0]->stat;
        const alcStepStat* b = &d[1]->stat;
        addStep(&tot[0], a);
        addStep(&tot[1], b);
        fewer += b->newton < a->newton;
        more += b->newton > a->newton;
        done++;
        int differ = a->newton != b->newton || a->outer != b->outer || a->cgTotal != b->cgTotal;
        if (!quiet && (all || differ)) {
            printf("%6d %9d %9d %8d %8d %9d %9d %12.3g\n", step + 1, a->newton, b->newton, a->outer,
                   b->outer, a->cgTotal, b->cgTotal, apart);
            fflush(stdout);
        }
    }
    if (m[0] && m[1] && (done > 0 || code == ALC_EXIT_OK)) {
        printTotals(scenes[0], scenes[1], done, &tot[0], &tot[1], fewer, more, worst, worstStep);
        if (done < steps) printf("  stopped after %d of %d steps\n", done, steps);
    }
    free(buf);
    for (int k = 0; k < 2; k++) {
        alc_deleteSim(sim[k]);
        alc_deleteData(d[k]);
        alc_deleteModel(m[k]);
    }
    return code;
}
