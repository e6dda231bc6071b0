// Batch files: parsing and expansion into jobs (batch_spec.h).
#include "batch_spec.h"

#include "scene_yaml.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char* dupStr(const char* s) {
    return s ? strdup(s) : NULL;
}

/// A list of strings from a sequence of scalars (or one scalar); 0 with the error recorded.
static int stringList(alciYCtx* ctx, alciYNode* node, const char* what, char*** out, int* n) {
    *out = NULL;
    *n = 0;
    if (!node) return 1;
    if (node->kind == ALCY_SCALAR) {
        *out = (char**)calloc(1, sizeof(char*));
        if (!*out) return alciy_fail(ctx, node, "out of memory");
        (*out)[0] = dupStr(node->str);
        *n = 1;
        return 1;
    }
    if (node->kind != ALCY_SEQ) return alciy_fail(ctx, node, "%s: expected a list", what);
    *out = (char**)calloc((size_t)node->n + 1, sizeof(char*));
    if (!*out) return alciy_fail(ctx, node, "out of memory");
    for (int i = 0; i < node->n; i++) {
        alciYNode* it = node->item[i];
        if (it->kind != ALCY_SCALAR) return alciy_fail(ctx, it, "%s: expected a value", what);
        (*out)[i] = dupStr(it->str);
        (*n)++;
    }
    return 1;
}

static void freeList(char** s, int n) {
    for (int i = 0; s && i < n; i++) free(s[i]);
    free(s);
}

/// A scene path relative to the batch file's folder, made absolute; 0 when it is missing.
static int scenePath(alciYCtx* ctx, alciYNode* at, const char* spec, const char* scene,
                     char** out) {
    char joined[PATH_MAX * 2], real[PATH_MAX];
    if (scene[0] == '/') {
        snprintf(joined, sizeof joined, "%s", scene);
    } else {
        const char* slash = strrchr(spec, '/');
        int dirLen = slash ? (int)(slash - spec) : 1;
        snprintf(joined, sizeof joined, "%.*s/%s", dirLen, slash ? spec : ".", scene);
    }
    if (!realpath(joined, real)) {
        return alciy_fail(ctx, at, "scene '%s' not found (looked for %s)", scene, joined);
    }
    *out = strdup(real);
    return *out != NULL;
}

/// The folder-name form of a value: letters, digits and ".+-" kept, anything else '_'.
static void sanitize(char* out, size_t n, const char* s) {
    size_t k = 0;
    for (; *s && k + 1 < n; s++) {
        char c = *s;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '+' || c == '-';
        out[k++] = ok ? c : '_';
    }
    out[k] = 0;
}

/// A stem: the file name without folders and extension.
static void stemOf(char* out, size_t n, const char* path) {
    const char* base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char* dot = strrchr(base, '.');
    size_t len = dot && dot > base ? (size_t)(dot - base) : strlen(base);
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), base);
}

typedef struct {
    int n;
    char** name;
    char** value;
} Case;

static int addJob(alcBatch* b, int cap, const char* scene, const char* preset, const Case* c,
                  int nsweep, char** sweepName, char** sweepValue) {
    if (b->njob >= cap) return 0;
    alcBatchJob* j = &b->job[b->njob];
    memset(j, 0, sizeof *j);
    j->index = b->njob;
    j->scene = strdup(scene);
    j->preset = dupStr(preset);
    j->nset = c->n + nsweep;
    j->setName = (char**)calloc((size_t)j->nset + 1, sizeof(char*));
    j->setValue = (char**)calloc((size_t)j->nset + 1, sizeof(char*));
    if (!j->scene || !j->setName || !j->setValue) return 0;
    char name[1024], part[256], val[200], stem[128];
    stemOf(stem, sizeof stem, scene);
    snprintf(name, sizeof name, "%04d_%s", j->index, stem);
    if (preset) {
        sanitize(val, sizeof val, preset);
        snprintf(part, sizeof part, "_%s", val);
        strncat(name, part, sizeof name - strlen(name) - 1);
    }
    for (int k = 0; k < j->nset; k++) {
        const char* nm = k < c->n ? c->name[k] : sweepName[k - c->n];
        const char* v = k < c->n ? c->value[k] : sweepValue[k - c->n];
        j->setName[k] = strdup(nm);
        j->setValue[k] = strdup(v);
        sanitize(val, sizeof val, v);
        snprintf(part, sizeof part, "_%s-%s", nm, val);
        strncat(name, part, sizeof name - strlen(name) - 1);
    }
    name[120] = 0;  // folder names stay short; the index keeps them unique
    j->name = strdup(name);
    b->njob++;
    return j->name != NULL;
}

int alc_batchLoad(const char* path, alcBatch* b, char* err, int errsz) {
    memset(b, 0, sizeof *b);
    alciYCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.file = path;
    ctx.err = err;
    ctx.errsz = errsz;
    alciYNode* root = alciy_load(&ctx, path);
    if (!root) return 0;
    int ok = alciy_expectMap(&ctx, root, "a batch file");
    // unknown keys first: a misspelt "scenes" is reported as such, not as a missing one
    static const char* const kTop[] = {"name",  "out",     "scenes",  "presets", "cases",  "set",
                                       "steps", "backend", "contact", "threads", "frames", "every",
                                       "args",  "retry",   "check",   "slurm",   NULL};
    for (int k = 0; ok && k < root->n; k++) {
        int known = 0;
        for (int i = 0; kTop[i]; i++) known |= !strcmp(root->key[k]->str, kTop[i]);
        if (!known) {
            ok = alciy_fail(&ctx, root->key[k],
                            "unknown key '%s' (known: name, out, scenes, presets, cases, set, "
                            "steps, backend, contact, threads, frames, every, args, retry, check, "
                            "slurm)",
                            root->key[k]->str);
        }
    }
    const char *name = NULL, *out = NULL, *backend = NULL, *contact = NULL, *frames = NULL;
    b->steps = -1;
    b->every = -1;
    b->check = 1;
    ok = ok && alciy_getString(&ctx, root, "name", &name, 0) &&
         alciy_getString(&ctx, root, "out", &out, 0) &&
         alciy_getInt(&ctx, root, "steps", &b->steps, 1, INT_MAX, 0) &&
         alciy_getString(&ctx, root, "backend", &backend, 0) &&
         alciy_getString(&ctx, root, "contact", &contact, 0) &&
         alciy_getInt(&ctx, root, "threads", &b->threads, 1, 4096, 0) &&
         alciy_getString(&ctx, root, "frames", &frames, 0) &&
         alciy_getInt(&ctx, root, "every", &b->every, 0, INT_MAX, 0) &&
         alciy_getInt(&ctx, root, "retry", &b->retry, 0, 100, 0) &&
         alciy_getBool(&ctx, root, "check", &b->check);
    ok = ok && stringList(&ctx, alciy_get(root, "args"), "args", &b->args, &b->nargs);
    char stem[128];
    stemOf(stem, sizeof stem, path);
    b->path = strdup(path);
    b->name = strdup(name ? name : stem);
    char defOut[300];
    snprintf(defOut, sizeof defOut, "out/%s", b->name ? b->name : stem);
    b->out = strdup(out ? out : defOut);
    b->backend = dupStr(backend);
    b->contact = dupStr(contact);
    b->frames = dupStr(frames);

    // slurm: {partition, time, mem, extra: [...]}
    alciYNode* sl = alciy_get(root, "slurm");
    if (ok && sl) {
        const char *part = NULL, *tl = NULL, *mem = NULL;
        ok = alciy_expectMap(&ctx, sl, "slurm") &&
             alciy_getString(&ctx, sl, "partition", &part, 0) &&
             alciy_getString(&ctx, sl, "time", &tl, 0) &&
             alciy_getString(&ctx, sl, "mem", &mem, 0) &&
             stringList(&ctx, alciy_get(sl, "extra"), "slurm.extra", &b->slurmExtra,
                        &b->nslurmExtra);
        static const char* const kSlurm[] = {"partition", "time", "mem", "extra", NULL};
        ok = ok && alciy_checkKeys(&ctx, sl, kSlurm);
        b->slurmPartition = dupStr(part);
        b->slurmTime = dupStr(tl);
        b->slurmMem = dupStr(mem);
    }

    // scenes and presets
    alciYNode* sn = alciy_get(root, "scenes");
    char** scenes = NULL;
    int nscene = 0;
    if (ok && !sn) ok = alciy_fail(&ctx, root, "'scenes' is required (a list of scene files)");
    ok = ok && stringList(&ctx, sn, "scenes", &scenes, &nscene);
    if (ok && nscene == 0) ok = alciy_fail(&ctx, sn, "'scenes' is empty");
    char** absScene = ok ? (char**)calloc((size_t)nscene + 1, sizeof(char*)) : NULL;
    for (int i = 0; ok && i < nscene; i++) {
        alciYNode* at = sn->kind == ALCY_SEQ ? sn->item[i] : sn;
        ok = absScene && scenePath(&ctx, at, path, scenes[i], &absScene[i]);
    }
    alciYNode* pn = alciy_get(root, "presets");
    char** presets = NULL;
    int npreset = 0;
    ok = ok && stringList(&ctx, pn, "presets", &presets, &npreset);
    if (ok && pn && npreset == 0) ok = alciy_fail(&ctx, pn, "'presets' is empty");

    // cases: a list of {param: value} maps
    alciYNode* cn = alciy_get(root, "cases");
    int ncase = cn ? cn->n : 0;
    Case* cases = (Case*)calloc((size_t)ncase + 1, sizeof(Case));
    if (ok && cn && cn->kind != ALCY_SEQ) ok = alciy_fail(&ctx, cn, "'cases': expected a list");
    if (ok && cn && ncase == 0) ok = alciy_fail(&ctx, cn, "'cases' is empty");
    for (int i = 0; ok && cases && i < ncase; i++) {
        alciYNode* c = cn->item[i];
        ok = alciy_expectMap(&ctx, c, "a case ({parameter: value, ...})");
        cases[i].name = (char**)calloc((size_t)c->n + 1, sizeof(char*));
        cases[i].value = (char**)calloc((size_t)c->n + 1, sizeof(char*));
        for (int k = 0; ok && k < c->n; k++) {
            if (c->item[k]->kind != ALCY_SCALAR) {
                ok = alciy_fail(&ctx, c->item[k], "case value: expected a number or expression");
                break;
            }
            cases[i].name[k] = strdup(c->key[k]->str);
            cases[i].value[k] = strdup(c->item[k]->str);
            c->used[k] = 1;
            cases[i].n++;
        }
    }
    if (ncase == 0) ncase = 1;  // one empty case

    // set: the cartesian product of {param: [values]}
    alciYNode* st = alciy_get(root, "set");
    int nsweep = 0;
    char*** values = NULL;
    int* nvalues = NULL;
    if (ok && st) {
        ok = alciy_expectMap(&ctx, st, "set ({parameter: [values]})");
        nsweep = ok ? st->n : 0;
        b->sweepName = (char**)calloc((size_t)nsweep + 1, sizeof(char*));
        values = (char***)calloc((size_t)nsweep + 1, sizeof(char**));
        nvalues = (int*)calloc((size_t)nsweep + 1, sizeof(int));
        for (int k = 0; ok && k < nsweep; k++) {
            b->sweepName[k] = strdup(st->key[k]->str);
            b->nsweep++;
            st->used[k] = 1;
            ok = stringList(&ctx, st->item[k], st->key[k]->str, &values[k], &nvalues[k]);
            if (ok && nvalues[k] == 0) {
                ok = alciy_fail(&ctx, st->item[k], "set.%s: empty list", st->key[k]->str);
            }
        }
    }

    // expand
    if (ok) {
        long combos = 1;
        for (int k = 0; k < nsweep; k++) combos *= nvalues[k];
        long total = (long)nscene * (npreset ? npreset : 1) * ncase * combos;
        if (total > 100000) {
            ok = alciy_fail(&ctx, root, "the batch expands to %ld jobs (at most 100000)", total);
        } else {
            b->job = (alcBatchJob*)calloc((size_t)total + 1, sizeof(alcBatchJob));
            int* pick = (int*)calloc((size_t)nsweep + 1, sizeof(int));
            char** sv = (char**)calloc((size_t)nsweep + 1, sizeof(char*));
            ok = b->job && pick && sv;
            for (int s = 0; ok && s < nscene; s++) {
                for (int p = 0; ok && p < (npreset ? npreset : 1); p++) {
                    const char* pr = npreset && strcmp(presets[p], "null") ? presets[p] : NULL;
                    for (int c = 0; ok && c < ncase; c++) {
                        memset(pick, 0, sizeof(int) * (size_t)(nsweep + 1));
                        for (long q = 0; ok && q < combos; q++) {
                            for (int k = 0; k < nsweep; k++) sv[k] = values[k][pick[k]];
                            ok = addJob(b, (int)total, absScene[s], pr, &cases[c], nsweep,
                                        b->sweepName, sv);
                            // next combination, the last parameter fastest
                            for (int k = nsweep - 1; k >= 0; k--) {
                                if (++pick[k] < nvalues[k]) break;
                                pick[k] = 0;
                            }
                        }
                    }
                }
            }
            free(pick);
            free(sv);
            if (!ok && !ctx.failed) alciy_fail(&ctx, root, "out of memory");
        }
    }
    freeList(scenes, nscene);
    freeList(absScene, nscene);
    freeList(presets, npreset);
    for (int i = 0; cases && i < (cn ? cn->n : 0); i++) {
        freeList(cases[i].name, cases[i].n);
        freeList(cases[i].value, cases[i].n);
    }
    free(cases);
    for (int k = 0; values && k < nsweep; k++) freeList(values[k], nvalues[k]);
    free(values);
    free(nvalues);
    alciy_free(root);
    if (!ok) {
        alc_batchFree(b);
        return 0;
    }
    return 1;
}

void alc_batchFree(alcBatch* b) {
    if (!b) return;
    free(b->path);
    free(b->name);
    free(b->out);
    free(b->backend);
    free(b->contact);
    free(b->frames);
    freeList(b->args, b->nargs);
    freeList(b->sweepName, b->nsweep);
    free(b->slurmPartition);
    free(b->slurmTime);
    free(b->slurmMem);
    freeList(b->slurmExtra, b->nslurmExtra);
    for (int i = 0; i < b->njob; i++) {
        alcBatchJob* j = &b->job[i];
        free(j->scene);
        free(j->preset);
        freeList(j->setName, j->nset);
        freeList(j->setValue, j->nset);
        free(j->name);
    }
    free(b->job);
    memset(b, 0, sizeof *b);
}
