// Small host utilities: messages, clocks, quaternions, warnings and logging (errors are
// formatted by error_format.c).
#include "alc_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void alci_setMessage(char* err, int errsz, const char* fmt, ...) {
    if (!err || errsz <= 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errsz, fmt, ap);
    va_end(ap);
}

const char* alci_formatDouble(char* buf, size_t n, double v) {
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, n, "%.*g", digits, v);
        if (digits == 17 || !isfinite(v) || strtod(buf, NULL) == v) break;
    }
    return buf;
}

// total and idle jiffies of all CPUs from /proc/stat's first line; 0 when unreadable
static int cpuJiffies(unsigned long long* total, unsigned long long* idle) {
    FILE* f = fopen("/proc/stat", "r");
    if (!f) return 0;
    unsigned long long v[10] = {0};
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    fclose(f);
    if (n < 5) return 0;
    *total = 0;
    for (int k = 0; k < 8 && k < n; k++) *total += v[k];  // guest time is inside user time
    *idle = v[3] + v[4];                                   // idle and iowait
    return 1;
}

int alci_idleCores(int ncpu, double seconds) {
    unsigned long long t0, i0, t1, i1;
    if (ncpu <= 1 || !cpuJiffies(&t0, &i0)) return ncpu > 1 ? ncpu : 1;
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
    if (!cpuJiffies(&t1, &i1) || t1 <= t0) return ncpu;
    double idle = (double)(i1 - i0) / (double)(t1 - t0);
    int cores = (int)lround(idle * ncpu);
    return cores < 1 ? 1 : (cores > ncpu ? ncpu : cores);
}

double alci_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void alci_quatRotate(const double q[4], const double v[3], double out[3]) {
    // v' = v + 2 w (u x v) + 2 u x (u x v), q = (w, u)
    double w = q[0], ux = q[1], uy = q[2], uz = q[3];
    double tx = 2 * (uy * v[2] - uz * v[1]);
    double ty = 2 * (uz * v[0] - ux * v[2]);
    double tz = 2 * (ux * v[1] - uy * v[0]);
    out[0] = v[0] + w * tx + (uy * tz - uz * ty);
    out[1] = v[1] + w * ty + (uz * tx - ux * tz);
    out[2] = v[2] + w * tz + (ux * ty - uy * tx);
}

void alci_log(const alcSim* sim, int level, const char* fmt, ...) {
    if (!sim || !sim->def.log || level > sim->def.verbosity) return;
    char buf[ALC_ERRLEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sim->def.log(sim->def.user, level, buf);
}

void alci_warn(alcSim* sim, alcData* d, alctWarning w, int info, const char* fmt, ...) {
    if ((int)w < 0 || w >= ALC_NWARNING) return;
    d->warning[w].count++;
    d->warning[w].lastinfo = info;
    if (sim->warnedOnce[w]) return;
    sim->warnedOnce[w] = 1;
    if (!sim->def.log || sim->def.verbosity < 1) return;
    char buf[ALC_ERRLEN];
    int k = snprintf(buf, sizeof buf,
                     "%s (step %ld, further ones only counted): ", alcu_warningString(w),
                     d->step + sim->stepping);
    va_list ap;
    va_start(ap, fmt);
    if (k > 0 && (size_t)k < sizeof buf) vsnprintf(buf + k, sizeof buf - (size_t)k, fmt, ap);
    va_end(ap);
    sim->def.log(sim->def.user, 1, buf);
}
