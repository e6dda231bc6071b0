// Progress bar: redrawn in place on a terminal, a plain line per 10% elsewhere.
#include "progress.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

// bar width in characters, and the least time between two terminal redraws (s)
#define BAR_WIDTH     30
#define REDRAW_PERIOD 0.1

static double nowSeconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// "1:02:03" or "2:03"; "--:--" when unknown
static void fmtDuration(char* out, size_t n, double s) {
    if (!(s >= 0) || s > 1e8) {
        snprintf(out, n, "--:--");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600) {
        snprintf(out, n, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
    } else {
        snprintf(out, n, "%ld:%02ld", t / 60, t % 60);
    }
}

void alci_progress_begin(alciProgress* p, FILE* out, long total, long first, const char* label) {
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->out = out;
    p->label = label ? label : "";
    p->total = total;
    p->first = first > 0 ? first : 0;
    p->done = p->first;
    p->tty = out && isatty(fileno(out));
    p->start = nowSeconds();
    p->lastDraw = -1.0;
}

// units per second since begin and the estimated seconds left (negative when unknown); the
// units done before begin (a resumed run's) took no time of this bar's: counting them made a
// run resumed at step 650 of 800, at 300 s a step, show 2.2 steps/s and an ETA of a minute
static void rates(const alciProgress* p, double now, double* perSec, double* eta) {
    double elapsed = now - p->start;
    *perSec = elapsed > 0 ? (double)(p->done - p->first) / elapsed : 0.0;
    *eta = -1.0;
    if (p->total > 0 && *perSec > 0) *eta = (double)(p->total - p->done) / *perSec;
    if (p->total > 0 && p->done >= p->total) *eta = 0.0;
}

// redraw the terminal line in place, blanking what the previous one left over
static void drawTty(alciProgress* p, double now, const char* extra) {
    double perSec, eta;
    rates(p, now, &perSec, &eta);
    char line[512], etaText[32];
    int len;
    if (p->total > 0) {
        double frac = (double)p->done / (double)p->total;
        frac = frac < 0 ? 0 : (frac > 1 ? 1 : frac);
        char bar[BAR_WIDTH + 1];
        int filled = (int)(frac * BAR_WIDTH);
        for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < filled ? '#' : '.';
        bar[BAR_WIDTH] = 0;
        fmtDuration(etaText, sizeof etaText, eta);
        len = snprintf(line, sizeof line, "%s [%s] %5.1f%%  %.1f steps/s  ETA %s%s%s", p->label,
                       bar, 100.0 * frac, perSec, etaText, extra ? "  " : "", extra ? extra : "");
    } else {
        len = snprintf(line, sizeof line, "%s %ld steps  %.1f steps/s%s%s", p->label, p->done,
                       perSec, extra ? "  " : "", extra ? extra : "");
    }
    if (len < 0) return;
    if (len >= (int)sizeof line) len = (int)sizeof line - 1;
    fprintf(p->out, "\r%s%*s", line, p->width > len ? p->width - len : 0, "");
    fflush(p->out);
    p->width = len;
    p->lastDraw = now;
}

// one plain line for a log: "<label>: 40% (400/1000 steps, 12.3 steps/s, ETA 0:12) extra"
static void printLine(alciProgress* p, double now, const char* extra) {
    double perSec, eta;
    rates(p, now, &perSec, &eta);
    char etaText[32];
    fmtDuration(etaText, sizeof etaText, eta);
    fprintf(p->out, "%s: %d%% (%ld/%ld steps, %.1f steps/s, ETA %s)%s%s\n", p->label,
            p->decile * 10, p->done, p->total, perSec, etaText, extra ? " " : "",
            extra ? extra : "");
    fflush(p->out);
}

void alci_progress_update(alciProgress* p, long done, const char* extra) {
    if (!p || !p->out) return;
    p->done = done;
    double now = nowSeconds();
    if (p->tty) {
        // rate-limited redraw; the last unit always shows
        int final = p->total > 0 && done >= p->total;
        if (final || p->lastDraw < 0 || now - p->lastDraw >= REDRAW_PERIOD) {
            drawTty(p, now, extra);
        }
        return;
    }

    // non-terminal: a line when a new 10% mark is reached
    if (p->total <= 0) return;
    long d =
        done >= p->total ? 10 : (done > 0 ? (long)((double)done * 10.0 / (double)p->total) : 0);
    if (d > p->decile) {
        p->decile = (int)d;
        printLine(p, now, extra);
    }
}

void alci_progress_end(alciProgress* p) {
    if (!p || !p->out) return;
    double now = nowSeconds();
    char took[32];
    fmtDuration(took, sizeof took, now - p->start);
    if (p->tty) {
        drawTty(p, now, NULL);
        fprintf(p->out, "\n");
    } else if (p->total <= 0) {
        fprintf(p->out, "%s: %ld steps in %s\n", p->label, p->done, took);
    } else if (p->decile < 10) {
        fprintf(p->out, "%s: stopped at %ld/%ld steps after %s\n", p->label, p->done, p->total,
                took);
    }
    fflush(p->out);
    p->out = NULL;
}
