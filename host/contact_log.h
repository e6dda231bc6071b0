// The contact log of a run: one CSV file (contacts.csv) with a row per active contact pair and
// a row per body (its total contact force) at every frame written, each row stamped with the
// step and the simulated time. Rows are flushed frame by frame, so a crashed run keeps every
// frame it finished. Internal to the library; `alcove run --contacts` writes it.
#ifndef ALC_HOST_CONTACT_LOG_H_
#define ALC_HOST_CONTACT_LOG_H_

#include "alc/alc_types.h"

#include <stdio.h>

/// An open contact log. Fill with alci_contactLog_open; end with alci_contactLog_close.
typedef struct alciContactLog_ {
    FILE* fp;         ///< the stream; NULL when closed
    long rows;        ///< data rows written
    char* path;       ///< file path (owned)
    char error[512];  ///< message of the last failure ("cannot write <path>: <strerror>")
} alciContactLog;

/// Create (truncate) the log and write its header line
///   step,time,record,type,v0,v1,v2,v3,body0,body1,distance,nx,ny,nz,normal_force,
///   friction_x,friction_y,friction_z,lambda,gamma,body,name,fx,fy,fz
/// `record` is `pair` or `body`. Pair rows fill type..gamma (as alcContact: `pt` or `ee`, the
/// four vertices, the two bodies, the distance (m), the unit normal acting on side 0, the
/// normal force (N, AL paper Eq. 23), the friction force on side 0 (N), the multiplier and the
/// decay factor) and leave body..fz empty; body rows fill body (index), name and fx, fy, fz
/// (the total contact force on the body, N, alcData.body_force) and leave the rest empty.
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO ("cannot create <path>: ...").
/// Nullable: err
alctStatus alci_contactLog_open(alciContactLog* log, const char* path, char* err, int errsz);

/// alci_contactLog_open, or with append set: append to path (created if missing) without the
/// header, for a resumed run.
alctStatus alci_contactLog_openMode(alciContactLog* log, const char* path, int append, char* err,
                                    int errsz);

/// Append the rows of one frame (n pairs, then m->nbody bodies) and flush.
/// @param[in] bodyForce  per-body total contact force (m->nbody x 3), N
/// @return ALC_OK, ALC_ERR_INVALID_ARG (closed log, NULL arrays), ALC_ERR_IO (log->error).
/// Nullable: pairs when n == 0
alctStatus alci_contactLog_write(alciContactLog* log, const alcModel* m, long step, double time,
                                 const alcContact* pairs, int n, const double* bodyForce);

/// Close the stream, release and zero the struct. NULL-safe and safe on a closed log.
/// @return ALC_OK or ALC_ERR_IO ("cannot write <path>: ..." in err).
/// Nullable: err
alctStatus alci_contactLog_close(alciContactLog* log, char* err, int errsz);

#endif  // ALC_HOST_CONTACT_LOG_H_
