// Per-step statistics (CSV, JSON lines), run summary and Table 1 rows.
//
// The statistics file is streamed, not written atomically: each row is appended and flushed as
// the step ends, so a crashed or interrupted run keeps every row written so far. Rewriting the
// whole file through a rename after every step would cost O(steps^2) and gain nothing, since a
// reader of a partial CSV sees only whole lines up to the last flush (at worst one torn last
// line after a power loss).
#include "stats_writer.h"

#include "alc_internal.h"
#include "io_atomic.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

// one value of a statistics row
typedef struct {
    const char* key;
    int isInt;  // 1: integer in i, 0: double in d
    long long i;
    double d;
    int digits;  // significant digits of a double
} Field;

#define NFIELD 31

// phase names and the timers they read, in column order
static const char* const kPhaseKey[ALC_NTIMER] = {"time_step", "time_hessian",    "time_pcg",
                                                  "time_ccd",  "time_linesearch", "time_other"};
static const char* const kPhaseName[ALC_NTIMER] = {"step", "hessian",    "pcg",
                                                   "ccd",  "linesearch", "other"};

static double safeDiv(double a, double b) {
    return b != 0 ? a / b : 0.0;
}

static Field intField(const char* key, long long v) {
    return (Field){key, 1, v, 0.0, 0};
}

static Field dblField(const char* key, double v, int digits) {
    return (Field){key, 0, 0, v, digits};
}

// the columns of one step, in file order
static void stepFields(long step, double time, const alcStepStat* st, Field f[NFIELD]) {
    int k = 0;
    f[k++] = intField("step", step);
    f[k++] = dblField("time", time, 17);
    f[k++] = intField("outer", st->outer);
    f[k++] = intField("newton", st->newton);
    f[k++] = intField("cg_total", st->cgTotal);
    f[k++] = intField("cg_max", st->cgMax);
    f[k++] = dblField("cg_avg", safeDiv(st->cgTotal, st->newton), 9);
    f[k++] = intField("contacts_max", st->contactsMax);
    f[k++] = dblField("contacts_avg", safeDiv(st->contactsSum, st->newton), 9);
    f[k++] = intField("candidates_max", st->candidatesMax);
    f[k++] = dblField("alpha_avg", safeDiv(st->alphaSum, st->outer), 9);
    f[k++] = dblField("alpha_min", st->alphaMin, 9);
    f[k++] = dblField("mu", st->mu, 9);
    f[k++] = dblField("delta", st->delta, 9);
    f[k++] = dblField("beta", st->beta, 9);
    f[k++] = intField("capped", st->capped);
    f[k++] = intField("mu_increases", st->muIncreases);
    f[k++] = intField("linesearch_fails", st->lineSearchFails);
    for (int t = 0; t < ALC_NTIMER; t++) f[k++] = dblField(kPhaseKey[t], st->time[t], 9);
    f[k++] = intField("buffer_grows", st->bufferGrows);
    f[k++] = dblField("energy_gain", st->energyGain, 9);
    f[k++] = intField("direct_solves", st->directSolves);
    f[k++] = intField("splits", st->splits);
    f[k++] = dblField("h_min", st->hMin, 9);
    f[k++] = dblField("penetration", st->penetration, 9);
    f[k++] = intField("tet_guards", st->guards);
}

// record a failure on the stream with the path and strerror
static alctStatus failIo(alciStats* s, const char* what, int e) {
    snprintf(s->error, sizeof s->error, "cannot %s %s: %s", what, s->path ? s->path : "?",
             strerror(e ? e : EIO));
    return ALC_ERR_IO;
}

static alctStatus openMode(alciStats* s, const char* path, int json, int append, char* err,
                           int errsz);

alctStatus alci_stats_open(alciStats* s, const char* path, int json, char* err, int errsz) {
    return openMode(s, path, json, 0, err, errsz);
}

alctStatus alci_stats_openAppend(alciStats* s, const char* path, int json, char* err, int errsz) {
    return openMode(s, path, json, 1, err, errsz);
}

static alctStatus openMode(alciStats* s, const char* path, int json, int append, char* err,
                           int errsz) {
    if (!s || !path || !path[0]) {
        alci_file_setError(err, errsz, "alci_stats_open: NULL stream or path");
        return ALC_ERR_INVALID_ARG;
    }
    memset(s, 0, sizeof *s);
    size_t len = strlen(path) + 1;
    s->path = (char*)malloc(len);
    if (!s->path) {
        alci_file_setError(err, errsz, "%s: out of memory", path);
        return ALC_ERR_NOMEM;
    }
    memcpy(s->path, path, len);
    s->json = json != 0;

    // truncate any earlier file (one run, one statistics file), or append to a resumed one
    s->fp = fopen(path, append ? "a" : "w");
    if (!s->fp) {
        alci_file_setError(err, errsz, "cannot create %s: %s", path, strerror(errno));
        free(s->path);
        memset(s, 0, sizeof *s);
        return ALC_ERR_IO;
    }

    // CSV header from the same column list as the rows
    if (!s->json && !append) {
        alcStepStat zero;
        memset(&zero, 0, sizeof zero);
        Field f[NFIELD];
        stepFields(0, 0.0, &zero, f);
        for (int k = 0; k < NFIELD; k++) fprintf(s->fp, "%s%s", k ? "," : "", f[k].key);
        fputc('\n', s->fp);
        if (fflush(s->fp) != 0 || ferror(s->fp)) {
            int e = errno;
            alci_file_setError(err, errsz, "cannot write %s: %s", path, strerror(e ? e : EIO));
            fclose(s->fp);
            free(s->path);
            memset(s, 0, sizeof *s);
            return ALC_ERR_IO;
        }
    }
    return ALC_OK;
}

alctStatus alci_stats_write(alciStats* s, long step, double time, const alcStepStat* st) {
    if (!s || !s->fp || !st) return ALC_ERR_INVALID_ARG;
    Field f[NFIELD];
    stepFields(step, time, st, f);

    // one line: CSV values, or a JSON object (non-finite numbers become null)
    if (s->json) fputc('{', s->fp);
    for (int k = 0; k < NFIELD; k++) {
        if (k) fputc(',', s->fp);
        if (s->json) fprintf(s->fp, "\"%s\":", f[k].key);
        if (f[k].isInt) {
            fprintf(s->fp, "%lld", f[k].i);
        } else if (s->json && !isfinite(f[k].d)) {
            fputs("null", s->fp);
        } else if (f[k].digits >= 17) {
            char buf[32];
            fputs(alci_formatDouble(buf, sizeof buf, f[k].d), s->fp);
        } else {
            fprintf(s->fp, "%.*g", f[k].digits, f[k].d);
        }
    }
    if (s->json) fputc('}', s->fp);
    fputc('\n', s->fp);

    // flush so that a crash keeps this row
    if (fflush(s->fp) != 0 || ferror(s->fp)) return failIo(s, "write", errno);
    s->rows++;
    return ALC_OK;
}

alctStatus alci_stats_close(alciStats* s, char* err, int errsz) {
    if (!s) return ALC_OK;
    alctStatus st = ALC_OK;
    if (s->fp && fclose(s->fp) != 0) {
        failIo(s, "write", errno);
        alci_file_setError(err, errsz, "%s", s->error);
        st = ALC_ERR_IO;
    }
    free(s->path);
    memset(s, 0, sizeof *s);
    return st;
}

void alci_stats_summary(FILE* out, const alcModel* m, const alcRunStat* r, const char* backend) {
    if (!out || !r) return;
    double steps = (double)r->steps, newton = (double)r->newton;
    double total = r->time[ALC_TIMER_STEP];

    // sizes and counts
    fprintf(out, "alcove run summary%s%s%s\n", backend ? " (backend " : "", backend ? backend : "",
            backend ? ")" : "");
    if (m) {
        fprintf(out, "  model      : %d vertices, %d tetrahedra, %d surface triangles, %d bodies\n",
                m->nvert, m->ntet, m->ntri, m->nbody);
    }
    fprintf(out, "  steps      : %ld (%ld at the iteration cap, %ld mu increases)\n", r->steps,
            r->capped, r->muIncreases);
    fprintf(out, "  outer      : %.2f per step\n", safeDiv((double)r->outer, steps));
    fprintf(out, "  Newton     : %.2f per step (peak %d)\n", safeDiv(newton, steps), r->newtonMax);
    fprintf(out, "  CG         : %.2f per solve (peak %d)\n", safeDiv((double)r->cgTotal, newton),
            r->cgMax);
    if (r->directSolves > 0) {
        fprintf(out, "  Cholesky   : %ld of %ld Newton systems solved by factorization\n",
                r->directSolves, r->newton);
    }
    fprintf(out, "  contacts   : %.2f per Newton iteration (peak %d)\n",
            safeDiv(r->contactsSum, newton), r->contactsMax);
    fprintf(out, "  alpha      : %.4f average (TOI)\n", safeDiv(r->alphaSum, (double)r->outer));
    if (r->bufferGrows > 0) {
        fprintf(out, "  buffers    : grown %ld times and the work redone (largest capacity %d)\n",
                r->bufferGrows, r->bufferCapacity);
    }
    if (r->splits > 0) {
        fprintf(out, "  split      : %ld steps solved in parts after a stall (%ld halvings)\n",
                r->stepsSplit, r->splits);
    }
    if (r->guards > 0) {
        fprintf(
            out,
            "  guards     : %ld tetrahedron guards added where the inversion bound cut a step\n",
            r->guards);
    }
    if (r->penetrationMax > 0) {
        fprintf(out, "  penetration: %.4g m deepest at a step's end (not penetration-free)\n",
                r->penetrationMax);
    }

    // time per step and the phase breakdown
    fprintf(out, "  time/step  : %.4g s average (peak %.4g s), %.4g s total\n",
            safeDiv(total, steps), r->timeMax, total);
    for (int t = ALC_TIMER_HESSIAN; t < ALC_NTIMER; t++) {
        fprintf(out, "    %-11s %10.4g s %6.1f%%\n", kPhaseName[t], r->time[t],
                100.0 * safeDiv(r->time[t], total));
    }
}

// a count as in the paper: 35.8, 803, 4.3k, 1.45M (avg: one decimal below 1000)
static void fmtCount(char* out, size_t n, double v, int avg) {
    if (v >= 1e6) {
        snprintf(out, n, "%.2fM", v / 1e6);
    } else if (v >= 1e3) {
        snprintf(out, n, "%.1fk", v / 1e3);
    } else {
        snprintf(out, n, avg ? "%.1f" : "%.0f", v);
    }
}

// "avg (peak)" of a count
static void fmtAvgPeak(char* out, size_t n, double avg, double peak) {
    char a[24], p[24];
    fmtCount(a, sizeof a, avg, 1);
    fmtCount(p, sizeof p, peak, 0);
    snprintf(out, n, "%s (%s)", a, p);
}

// column formats shared by the header and the rows
#define TABLE_FMT "%-20s %8s %15s %13s %17s %7s %17s %6s %6s %6s %6s %6s"

void alci_stats_tableHeader(char* buf, size_t n) {
    if (!buf || n == 0) return;
    snprintf(buf, n, TABLE_FMT, "name", "#tets", "#CG", "#Newton", "#contacts", "alpha", "s/step",
             "Hess", "PCG", "CCD", "LS", "other");
}

void alci_stats_tableRow(char* buf, size_t n, const char* name, const alcModel* m,
                         const alcRunStat* r) {
    if (!buf || n == 0) return;
    if (!r) {
        buf[0] = 0;
        return;
    }
    double newton = (double)r->newton, total = r->time[ALC_TIMER_STEP];
    char tets[32], cg[64], nt[64], ct[64], alpha[32], sps[64], pct[ALC_NTIMER][16];

    // counts: avg (peak)
    if (m) {
        fmtCount(tets, sizeof tets, m->ntet, 0);
    } else {
        snprintf(tets, sizeof tets, "-");
    }
    fmtAvgPeak(cg, sizeof cg, safeDiv((double)r->cgTotal, newton), r->cgMax);
    fmtAvgPeak(nt, sizeof nt, safeDiv(newton, (double)r->steps), r->newtonMax);
    fmtAvgPeak(ct, sizeof ct, safeDiv(r->contactsSum, newton), r->contactsMax);
    snprintf(alpha, sizeof alpha, "%.3f", safeDiv(r->alphaSum, (double)r->outer));
    snprintf(sps, sizeof sps, "%.3g (%.3g)", safeDiv(total, (double)r->steps), r->timeMax);

    // phases in percent of the step time
    for (int t = ALC_TIMER_HESSIAN; t < ALC_NTIMER; t++) {
        snprintf(pct[t], sizeof pct[t], "%.1f%%", 100.0 * safeDiv(r->time[t], total));
    }
    snprintf(buf, n, TABLE_FMT, name ? name : "-", tets, cg, nt, ct, alpha, sps,
             pct[ALC_TIMER_HESSIAN], pct[ALC_TIMER_PCG], pct[ALC_TIMER_CCD],
             pct[ALC_TIMER_LINESEARCH], pct[ALC_TIMER_OTHER]);
}
