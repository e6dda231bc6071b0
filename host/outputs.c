// The public outputs and the in-process check (alc.h, "outputs and checks from a program's own
// loop"): thin, checked wrappers over the writers `alcove run` uses (frame_writer, state_io,
// stats_writer, contact_log) and the exact checker (check.c), so a program that drives its own
// loop writes the same files and gets the same verdict.
#include "alc_internal.h"
#include "check.h"
#include "contact_log.h"
#include "frame_writer.h"
#include "io_atomic.h"
#include "log_trim.h"
#include "state_io.h"
#include "stats_writer.h"

#include <stdlib.h>
#include <string.h>

struct alcStatsFile_ {
    alciStats s;
};

struct alcContactLog_ {
    alciContactLog log;
};

// model and data of the same scene?
static int matches(const alcModel* m, const alcData* d) {
    return m && d && d->nvert == m->nvert && d->nbody == m->nbody && d->x;
}

alctStatus alc_writeFrame(const alcModel* model, const alcData* data, int format, const char* path,
                          char* err, int errsz) {
    if (!matches(model, data) || !path) {
        alci_file_setError(err, errsz, "alc_writeFrame: NULL argument or model and data differ");
        return ALC_ERR_INVALID_ARG;
    }
    if (format == ALC_FRAMES_VTU) {
        return alci_frame_writeVtu(path, model, data->x, data->v, data->time, 1, err, errsz);
    }
    if (format == ALC_FRAMES_PLY) {
        return alci_frame_writePly(path, model, data->x, data->v, err, errsz);
    }
    alci_file_setError(err, errsz, "%s: unknown frame format %d (ALC_FRAMES_VTU or _PLY)", path,
                       format);
    return ALC_ERR_INVALID_ARG;
}

alctStatus alc_writeFrameSeries(const char* path, int n, const char* const* files,
                                const double* times, char* err, int errsz) {
    size_t len = path ? strlen(path) : 0;
    if (len > 4 && !strcmp(path + len - 4, ".pvd")) {
        return alci_series_write(path, n, files, times, err, errsz);
    }
    return alci_series_writeJson(path, n, files, times, err, errsz);
}

alctStatus alc_writeState(const alcData* data, const char* path, char* err, int errsz) {
    if (!data || !path) {
        alci_file_setError(err, errsz, "alc_writeState: NULL argument");
        return ALC_ERR_INVALID_ARG;
    }
    return alci_state_write(path, data->step, data->time, data->nvert, data->x, data->v, err,
                            errsz);
}

alctStatus alc_writeTopology(const alcModel* model, const char* path, char* err, int errsz) {
    if (!model || !path) {
        alci_file_setError(err, errsz, "alc_writeTopology: NULL argument");
        return ALC_ERR_INVALID_ARG;
    }
    return alci_state_writeTopology(path, model, err, errsz);
}

/// A stats file, new (truncated, with its header) or appended to (a resumed run).
static alctStatus newStats(const char* path, int json, int append, alcStatsFile** file, char* err,
                           int errsz) {
    *file = (alcStatsFile*)calloc(1, sizeof **file);
    if (!*file) {
        alci_file_setError(err, errsz, "%s: out of memory", path ? path : "stats");
        return ALC_ERR_NOMEM;
    }
    alctStatus st = append ? alci_stats_openAppend(&(*file)->s, path, json, err, errsz)
                           : alci_stats_open(&(*file)->s, path, json, err, errsz);
    if (st != ALC_OK) {
        free(*file);
        *file = NULL;
    }
    return st;
}

alctStatus alc_statsOpen(const char* path, int json, alcStatsFile** file, char* err, int errsz) {
    if (!file) return ALC_ERR_INVALID_ARG;
    return newStats(path, json, 0, file, err, errsz);
}

alctStatus alc_statsResume(const char* path, int json, long step, alcStatsFile** file, char* err,
                           int errsz) {
    if (!file || !path || step < 0) {
        alci_file_setError(err, errsz, "alc_statsResume: NULL argument or negative step");
        return ALC_ERR_INVALID_ARG;
    }
    *file = NULL;
    alctStatus st = alci_log_trim(path, step, !json, json, err, errsz);
    return st != ALC_OK ? st : newStats(path, json, 1, file, err, errsz);
}

alctStatus alc_statsWrite(alcStatsFile* file, const alcData* data, char* err, int errsz) {
    if (!file || !data) return ALC_ERR_INVALID_ARG;
    alctStatus st = alci_stats_write(&file->s, data->step, data->time, &data->stat);
    if (st != ALC_OK) alci_file_setError(err, errsz, "%s", file->s.error);
    return st;
}

alctStatus alc_statsClose(alcStatsFile* file, char* err, int errsz) {
    if (!file) return ALC_OK;
    alctStatus st = alci_stats_close(&file->s, err, errsz);
    free(file);
    return st;
}

/// A contact log, new (truncated, with its header) or appended to (a resumed run).
static alctStatus newLog(const char* path, int append, alcContactLog** log, char* err, int errsz) {
    *log = (alcContactLog*)calloc(1, sizeof **log);
    if (!*log) {
        alci_file_setError(err, errsz, "%s: out of memory", path ? path : "contacts");
        return ALC_ERR_NOMEM;
    }
    alctStatus st = alci_contactLog_openMode(&(*log)->log, path, append, err, errsz);
    if (st != ALC_OK) {
        free(*log);
        *log = NULL;
    }
    return st;
}

alctStatus alc_contactLogOpen(const char* path, alcContactLog** log, char* err, int errsz) {
    if (!log) return ALC_ERR_INVALID_ARG;
    return newLog(path, 0, log, err, errsz);
}

alctStatus alc_contactLogResume(const char* path, long step, alcContactLog** log, char* err,
                                int errsz) {
    if (!log || !path || step < 0) {
        alci_file_setError(err, errsz, "alc_contactLogResume: NULL argument or negative step");
        return ALC_ERR_INVALID_ARG;
    }
    *log = NULL;
    alctStatus st = alci_log_trim(path, step, 1, 0, err, errsz);
    return st != ALC_OK ? st : newLog(path, 1, log, err, errsz);
}

alctStatus alc_contactLogWrite(alcContactLog* log, alcSim* sim, const alcData* data, char* err,
                               int errsz) {
    if (!log || !sim || !matches(sim->m, data)) return ALC_ERR_INVALID_ARG;
    const alcContact* c = NULL;
    int n = 0;
    alctStatus st = alc_getContacts(sim, &c, &n);
    if (st == ALC_OK) {
        st = alci_contactLog_write(&log->log, sim->m, data->step, data->time, c, n,
                                   data->body_force);
    }
    if (st != ALC_OK) alci_file_setError(err, errsz, "%s", log->log.error);
    return st;
}

alctStatus alc_contactLogClose(alcContactLog* log, char* err, int errsz) {
    if (!log) return ALC_OK;
    alctStatus st = alci_contactLog_close(&log->log, err, errsz);
    free(log);
    return st;
}

alctStatus alc_check(const alcModel* model, const alcData* data, int strict,
                     alcCheckReport* report) {
    if (!report) return ALC_ERR_INVALID_ARG;
    memset(report, 0, sizeof *report);
    if (!matches(model, data)) return ALC_ERR_INVALID_ARG;
    return alci_check_model(model, data->x, 1, strict, report);
}
