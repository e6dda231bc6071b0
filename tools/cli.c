// Shared command-line helpers.
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

void alc_cliSceneInit(alcCliScene* s) {
    memset(s, 0, sizeof *s);
    s->steps = -1;
    s->backend = ALC_BACKEND_AUTO;
    s->contact = -1;
    s->ipcToi = -1;
    s->mlcpPrecond = -1;
    s->ipcDhat = -1;
    s->linearSolver = -1;
}

int alc_cliBackend(const char* name) {
    if (!strcmp(name, "ref")) return ALC_BACKEND_REF;
    if (!strcmp(name, "cuda")) return ALC_BACKEND_CUDA;
    if (!strcmp(name, "auto")) return ALC_BACKEND_AUTO;
    return -1;
}

int alc_cliContact(const char* name) {
    if (!strcmp(name, "al")) return ALC_CONTACT_AL;
    if (!strcmp(name, "ipc")) return ALC_CONTACT_IPC;
    if (!strcmp(name, "penalty")) return ALC_CONTACT_PENALTY;
    if (!strcmp(name, "none")) return ALC_CONTACT_NONE;
    if (!strcmp(name, "mlcp-cr")) return ALC_CONTACT_MLCP_CR;
    if (!strcmp(name, "penalty-ds")) return ALC_CONTACT_PENALTY_DS;
    return -1;
}

const char* alc_cliContactName(int c) {
    static const char* names[] = {"al", "ipc", "penalty", "none", "mlcp-cr", "penalty-ds"};
    return c >= 0 && c < ALC_NCONTACTMODEL ? names[c] : "?";
}

const char* alc_cliBackendLabel(const alcSim* sim, char* buf, size_t n) {
    const char* name = alc_simBackendName(sim);
    if (!strcmp(name, "cuda") && alc_simDeviceName(sim)[0]) {
        snprintf(buf, n, "cuda on %s", alc_simDeviceName(sim));
    } else {
        snprintf(buf, n, "%s", name);
    }
    return buf;
}

int alc_cliUsesBlas(const alcModel* m, const alcSim* sim) {
    return alc_simBackend(sim) == ALC_BACKEND_REF && m->opt.linearSolver != ALC_LINSOLVE_PCG &&
           alcu_directSolverAvailable();
}

/// Value of an option given as "--opt value" or "--opt=value".
static const char* optValue(int argc, char** argv, int* i, const char* opt) {
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) != 0) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n] != 0) return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "alcove: %s needs a value\n", opt);
        return "";
    }
    return argv[++*i];
}

static int parseInt(const char* v, const char* opt, int lo, int* out) {
    char* end = NULL;
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > 1000000000) {
        fprintf(stderr, "alcove: %s expects an integer >= %d, got '%s'\n", opt, lo, v);
        return -1;
    }
    *out = (int)x;
    return 1;
}

int alc_cliSceneOption(alcCliScene* s, int argc, char** argv, int* i) {
    const char* v;
    if ((v = optValue(argc, argv, i, "--preset"))) {
        if (!*v) return -1;
        s->preset = v;
        return 1;
    }
    if ((v = optValue(argc, argv, i, "--set"))) {
        const char* eq = strchr(v, '=');
        if (!*v || !eq || eq == v || (size_t)(eq - v) >= 63 || s->nparam >= 64) {
            fprintf(stderr, "alcove: --set expects NAME=VALUE, got '%s'\n", v);
            return -1;
        }
        char* end = NULL;
        double x = strtod(eq + 1, &end);
        if (!eq[1] || *end) {
            fprintf(stderr, "alcove: --set %s: '%s' is not a number\n", v, eq + 1);
            return -1;
        }
        memcpy(s->paramStore[s->nparam], v, (size_t)(eq - v));
        s->paramStore[s->nparam][eq - v] = 0;
        s->paramName[s->nparam] = s->paramStore[s->nparam];
        s->paramValue[s->nparam] = x;
        s->nparam++;
        return 1;
    }
    if ((v = optValue(argc, argv, i, "--steps")))
        return *v ? parseInt(v, "--steps", 0, &s->steps) : -1;
    if ((v = optValue(argc, argv, i, "--threads")))
        return *v ? parseInt(v, "--threads", 0, &s->threads) : -1;
    if ((v = optValue(argc, argv, i, "--backend"))) {
        if (!*v) return -1;
        s->backend = alc_cliBackend(v);
        if (s->backend < 0) {
            fprintf(stderr, "alcove: unknown backend '%s' (ref, cuda or auto)\n", v);
            return -1;
        }
        return 1;
    }
    if ((v = optValue(argc, argv, i, "--contact"))) {
        if (!*v) return -1;
        s->contact = alc_cliContact(v);
        if (s->contact < 0) {
            fprintf(stderr,
                    "alcove: unknown contact model '%s' (al, ipc, penalty, mlcp-cr, penalty-ds or none)\n", v);
            return -1;
        }
        return 1;
    }
    if ((v = optValue(argc, argv, i, "--ipc-dhat"))) {
        if (!*v) return -1;
        char* end = NULL;
        double x = strcmp(v, "delta") ? strtod(v, &end) : 0;
        if (strcmp(v, "delta") && (*end || !(x > 0) || !(x < 1e300))) {
            fprintf(stderr, "alcove: --ipc-dhat expects a distance > 0 (m) or 'delta', got '%s'\n",
                    v);
            return -1;
        }
        s->ipcDhat = x;
        return 1;
    }
    if ((v = optValue(argc, argv, i, "--linear-solver"))) {
        if (!*v) return -1;
        s->linearSolver = !strcmp(v, "pcg")      ? ALC_LINSOLVE_PCG
                          : !strcmp(v, "direct") ? ALC_LINSOLVE_DIRECT
                          : !strcmp(v, "auto")   ? ALC_LINSOLVE_AUTO
                                                 : -1;
        if (s->linearSolver < 0) {
            fprintf(stderr, "alcove: unknown linear solver '%s' (pcg, direct or auto)\n", v);
            return -1;
        }
        return 1;
    }
    if ((v = optValue(argc, argv, i, "--mlcp-precond"))) {
        if (!*v) return -1;
        s->mlcpPrecond = !strcmp(v, "full")   ? ALC_MLCP_FULL
                         : !strcmp(v, "diag") ? ALC_MLCP_DIAG
                                              : -1;
        if (s->mlcpPrecond < 0) {
            fprintf(stderr, "alcove: unknown mlcp-cr preconditioner '%s' (full or diag)\n", v);
            return -1;
        }
        return 1;
    }
    if ((v = optValue(argc, argv, i, "--ipc-stop"))) {
        if (!*v) return -1;
        s->ipcToi = !strcmp(v, "toi") ? 1 : !strcmp(v, "residual") ? 0 : -1;
        if (s->ipcToi < 0) {
            fprintf(stderr, "alcove: unknown IPC termination '%s' (residual or toi)\n", v);
            return -1;
        }
        return 1;
    }
    return 0;
}

alcModel* alc_cliLoad(const alcCliScene* s) {
#ifdef _OPENMP
    // the loader's initial-state check runs with the run's thread count (--threads 1: no
    // thread is started at all)
    if (s->threads > 0) omp_set_num_threads(s->threads);
#endif
    alcLoadDef def = alc_defaultLoadDef();
    def.preset = s->preset;
    def.nparam = s->nparam;
    def.paramName = s->paramName;
    def.paramValue = s->paramValue;
    alcModel* m = NULL;
    char err[1024];
    alctStatus st = alc_loadScene(s->scene, &def, &m, err, sizeof err);
    if (st != ALC_OK) {
        fprintf(stderr, "alcove: %s\n", err);
        return NULL;
    }
    if (s->contact >= 0) m->opt.contact = s->contact;
    if (s->ipcToi >= 0) m->opt.ipcToiTerm = s->ipcToi;
    if (s->linearSolver >= 0) m->opt.linearSolver = s->linearSolver;
    if (s->mlcpPrecond >= 0) m->opt.mlcpPrecond = s->mlcpPrecond;
    if (s->ipcDhat >= 0) m->opt.ipcDhat = s->ipcDhat > 0 ? s->ipcDhat : m->opt.delta;
    return m;
}

void alc_cliLog(void* user, int level, const char* msg) {
    (void)user;
    fprintf(stderr, "alcove: %s: %s\n", level == 0 ? "error" : (level == 1 ? "warning" : "info"),
            msg);
}

void alc_cliShellQuote(char* out, size_t n, const char* s) {
    size_t k = 0;
    if (n < 3) {
        if (n) out[0] = 0;
        return;
    }
    out[k++] = '\'';
    for (; *s && k + 6 < n; s++) {
        if (*s == '\'') {
            memcpy(out + k, "'\\''", 4);
            k += 4;
        } else {
            out[k++] = *s;
        }
    }
    out[k++] = '\'';
    out[k] = 0;
}

int alc_cliParseSize(const char* cmd, const char* v, int minW, int minH, int* w, int* h) {
    int ww = 0, hh = 0;
    char tail = 0;
    if (!v || sscanf(v, "%dx%d%c", &ww, &hh, &tail) != 2 || ww < minW || hh < minH || ww > 8192 ||
        hh > 8192) {
        fprintf(stderr, "alcove %s: --size expects WxH within %dx%d..8192x8192, got '%s'\n", cmd,
                minW, minH, v ? v : "");
        return 0;
    }
    *w = ww;
    *h = hh;
    return 1;
}

static int cmpName(const void* a, const void* b) {
    return strcmp(*(const char* const*)a, *(const char* const*)b);
}

int alc_cliListStates(const char* dir, char*** names) {
    char path[4096];
    snprintf(path, sizeof path, "%s/states", dir);
    *names = NULL;
    DIR* d = opendir(path);
    if (!d) return -1;
    int n = 0, cap = 0;
    struct dirent* e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "state_", 6) != 0 || len < 11 ||
            strcmp(e->d_name + len - 5, ".alcs") != 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            char** p = (char**)realloc(*names, sizeof(char*) * (size_t)cap);
            if (!p) break;
            *names = p;
        }
        (*names)[n] = strdup(e->d_name);
        if ((*names)[n]) n++;
    }
    closedir(d);
    if (n > 1) qsort(*names, (size_t)n, sizeof(char*), cmpName);
    return n;
}

void alc_cliFreeNames(char** names, int n) {
    for (int i = 0; names && i < n; i++) free(names[i]);
    free(names);
}
