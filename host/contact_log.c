// The run's contact log: pairs and per-body forces, one CSV (contact_log.h).
#include "contact_log.h"

#include "alc_internal.h"
#include "io_atomic.h"

#include "alc/alc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char kHeader[] =
    "step,time,record,type,v0,v1,v2,v3,body0,body1,distance,nx,ny,nz,normal_force,"
    "friction_x,friction_y,friction_z,lambda,gamma,body,name,fx,fy,fz\n";

alctStatus alci_contactLog_open(alciContactLog* log, const char* path, char* err, int errsz) {
    return alci_contactLog_openMode(log, path, 0, err, errsz);
}

alctStatus alci_contactLog_openMode(alciContactLog* log, const char* path, int append, char* err,
                                    int errsz) {
    if (!log || !path || !path[0]) {
        alci_file_setError(err, errsz, "contact log: NULL path");
        return ALC_ERR_INVALID_ARG;
    }
    memset(log, 0, sizeof *log);
    log->path = strdup(path);
    if (!log->path) {
        alci_file_setError(err, errsz, "%s: out of memory", path);
        return ALC_ERR_NOMEM;
    }
    log->fp = fopen(path, append ? "a" : "w");
    if (!log->fp || (!append && fputs(kHeader, log->fp) < 0) || fflush(log->fp) != 0) {
        alci_file_setError(err, errsz, "cannot create %s: %s", path, strerror(errno ? errno : EIO));
        if (log->fp) fclose(log->fp);
        free(log->path);
        memset(log, 0, sizeof *log);
        return ALC_ERR_IO;
    }
    return ALC_OK;
}

// a body name as one CSV field: quoted when it holds a comma, a quote or a line break
static void putName(FILE* fp, const char* name) {
    if (!strpbrk(name, ",\"\r\n")) {
        fputs(name, fp);
        return;
    }
    fputc('"', fp);
    for (const char* c = name; *c; c++) {
        if (*c == '"') fputc('"', fp);
        fputc(*c, fp);
    }
    fputc('"', fp);
}

alctStatus alci_contactLog_write(alciContactLog* log, const alcModel* m, long step, double time,
                                 const alcContact* pairs, int n, const double* bodyForce) {
    if (!log || !log->fp || !m || n < 0 || (n > 0 && !pairs) || !bodyForce) {
        return ALC_ERR_INVALID_ARG;
    }
    char t[32];
    alci_formatDouble(t, sizeof t, time);
    for (int i = 0; i < n; i++) {
        const alcContact* k = &pairs[i];
        fprintf(log->fp,
                "%ld,%s,pair,%s,%d,%d,%d,%d,%d,%d,%.17g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,"
                "%.9g,,,,,\n",
                step, t, k->type == 0 ? "pt" : "ee", k->vert[0], k->vert[1], k->vert[2], k->vert[3],
                k->body[0], k->body[1], k->distance, k->normal[0], k->normal[1], k->normal[2],
                k->normalForce, k->frictionForce[0], k->frictionForce[1], k->frictionForce[2],
                k->lambda, k->gamma);
    }
    for (int b = 0; b < m->nbody; b++) {
        fprintf(log->fp, "%ld,%s,body,,,,,,,,,,,,,,,,,,%d,", step, t, b);
        putName(log->fp, alc_bodyName(m, b));
        fprintf(log->fp, ",%.9g,%.9g,%.9g\n", bodyForce[3 * b], bodyForce[3 * b + 1],
                bodyForce[3 * b + 2]);
    }
    if (fflush(log->fp) != 0 || ferror(log->fp)) {
        snprintf(log->error, sizeof log->error, "cannot write %s: %s", log->path,
                 strerror(errno ? errno : EIO));
        return ALC_ERR_IO;
    }
    log->rows += n + m->nbody;
    return ALC_OK;
}

alctStatus alci_contactLog_close(alciContactLog* log, char* err, int errsz) {
    if (!log || !log->fp) return ALC_OK;
    alctStatus st = ALC_OK;
    if (fclose(log->fp) != 0) {
        alci_file_setError(err, errsz, "cannot write %s: %s", log->path,
                           strerror(errno ? errno : EIO));
        st = ALC_ERR_IO;
    }
    free(log->path);
    memset(log, 0, sizeof *log);
    return st;
}
