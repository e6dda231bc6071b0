// Atomic file writing: every output file is written to "<path>.tmp.<pid>" in the same
// directory, flushed and renamed onto <path>, so a reader (ParaView polling a series,
// `alcove check`, a restart) sees either the old file or the complete new one, never a torn
// one, even after a crash or Ctrl-C. With durable mode on (alci_file_setDurable) the data and
// the directory are also fsync'ed, which survives a power loss too, at the price of a device
// flush per file. A crash can leave a stale "*.tmp.<pid>" file behind; it
// is never mistaken for output. Internal to the library.
#ifndef ALC_HOST_IO_ATOMIC_H_
#define ALC_HOST_IO_ATOMIC_H_

#include "alc/alc_types.h"

#include <stdio.h>

/// A file being written atomically. Fill with alci_file_open; end with alci_file_commit or
/// alci_file_abort (both release everything and zero the struct).
typedef struct alciFile_ {
    FILE* fp;       ///< stream on the temporary file; NULL when closed
    char* path;     ///< final path (owned)
    char* tmp;      ///< temporary path "<path>.tmp.<pid>" (owned)
    size_t nbytes;  ///< bytes written so far
    int error;      ///< errno of the first failed write, 0 if none (sticky)
    int durable;    ///< fsync the file and its directory on commit (alci_file_setDurable)
} alciFile;

/// Durable mode for this file: commit also fsyncs the data and the directory entry. Files open
/// in durable mode when the environment variable ALC_SYNC is set to anything but "0"
/// (`alcove run --sync` sets it).
void alci_file_setDurable(alciFile* f, int durable);

/// Format a message into a caller buffer, truncating as needed. Does nothing when err is NULL
/// or errsz <= 0. Used by the output modules for their error texts.
void alci_file_setError(char* err, int errsz, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));

/// Create "<path>.tmp.<pid>" (mode 0666 less the umask) in the directory of path, replacing
/// a stale temporary file of the same name. The directory must exist (see alci_mkdirs).
/// @param[out] f    the open file; zeroed on failure
/// @param[in]  path final path (copied)
/// @param[out] err  "cannot create <tmp>: <strerror>" on failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG (NULL or empty path), ALC_ERR_NOMEM, ALC_ERR_IO.
/// Nullable: err
alctStatus alci_file_open(alciFile* f, const char* path, char* err, int errsz);

/// Append n bytes. A failure is remembered and reported again by alci_file_commit, so a
/// writer may issue many writes and check only the commit.
/// @return ALC_OK, ALC_ERR_INVALID_ARG (file not open), ALC_ERR_IO (errno kept in f->error).
alctStatus alci_file_write(alciFile* f, const void* data, size_t n);

/// Append printf-formatted text; failures are sticky as for alci_file_write.
/// @return ALC_OK, ALC_ERR_INVALID_ARG (file not open), ALC_ERR_IO.
alctStatus alci_file_printf(alciFile* f, const char* fmt, ...)
    __attribute__((format(printf, 2, 3)));

/// Flush and close the temporary file and rename it onto the final path; in durable mode also
/// fsync the file before the rename and the directory after it (best effort: some file systems
/// refuse directory fsync). On any failure, including
/// an earlier sticky write error, the temporary file is removed and the old file at the final
/// path, if any, is left untouched. The struct is released and zeroed in every case.
/// @param[out] err  "cannot write <path>: <strerror>" or "cannot rename <tmp> to <path>: ..."
/// @return ALC_OK, ALC_ERR_INVALID_ARG (not open), ALC_ERR_IO.
/// Nullable: err
alctStatus alci_file_commit(alciFile* f, char* err, int errsz);

/// Close and remove the temporary file, leaving the final path untouched; release and zero
/// the struct. Safe on a zeroed struct, after commit, and with f == NULL.
void alci_file_abort(alciFile* f);

/// Create a directory and its missing parents, like `mkdir -p` (mode 0777 less the umask).
/// An existing directory is fine; an existing non-directory is an error.
/// @param[out] err  "cannot create directory <dir>: <strerror>"
/// @return ALC_OK, ALC_ERR_INVALID_ARG (NULL or empty), ALC_ERR_NOMEM, ALC_ERR_IO.
/// Nullable: err
alctStatus alci_mkdirs(const char* dir, char* err, int errsz);

#endif  // ALC_HOST_IO_ATOMIC_H_
