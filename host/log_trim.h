// Trimming a per-step log (stats.csv, stats.jsonl, contacts.csv) to the steps a checkpoint
// holds, so that a resumed run appends its rows where the checkpoint left off and a row of a
// step that ran after the checkpoint (and runs again) is not written twice. Internal.
#ifndef ALC_HOST_LOG_TRIM_H_
#define ALC_HOST_LOG_TRIM_H_

#include "alc/alc_types.h"

/// Rewrite path (atomically) keeping its header line when `header` is set, and every row whose
/// step is at most `step`: the leading integer of a CSV row, or the "step" member of a JSON
/// line. Rows without a step (a line torn by a kill) and a last line without its newline are
/// dropped.
/// @param[out] err  names the path on failure
/// @return ALC_OK, ALC_ERR_IO (unreadable or unwritable), ALC_ERR_NOMEM.
/// Nullable: err
alctStatus alci_log_trim(const char* path, long step, int header, int json, char* err, int errsz);

#endif  // ALC_HOST_LOG_TRIM_H_
