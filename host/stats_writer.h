// Per-step statistics (CSV or JSON lines), the end-of-run summary and the AL paper's Table 1
// row. Internal to the library.
#ifndef ALC_HOST_STATS_WRITER_H_
#define ALC_HOST_STATS_WRITER_H_

#include "alc/alc_types.h"

#include <stdio.h>

/// An open statistics stream. Fill with alci_stats_open; end with alci_stats_close.
typedef struct alciStats_ {
    FILE* fp;         ///< the stream; NULL when closed
    int json;         ///< 1: JSON lines, 0: CSV
    long rows;        ///< rows written
    char error[512];  ///< message of the last failure ("<path>: <strerror>")
    char* path;       ///< file path (owned)
} alciStats;

/// Create (truncate) a statistics file and, for CSV, write the header line
///   step,time,outer,newton,cg_total,cg_max,cg_avg,contacts_max,contacts_avg,candidates_max,
///   alpha_avg,alpha_min,mu,delta,beta,capped,mu_increases,linesearch_fails,time_step,
///   time_hessian,time_pcg,time_ccd,time_linesearch,time_other,buffer_grows,energy_gain
/// JSON lines carry the same keys, one object per line. Averages: cg_avg = cgTotal / newton,
/// contacts_avg = contactsSum / newton, alpha_avg = alphaSum / outer (0 when dividing by 0).
/// Timings are seconds.
/// @param[out] s    the open stream; zeroed on failure
/// @param[in] path  output file
/// @param[in] json  nonzero: JSON lines instead of CSV
/// @param[out] err  "cannot create <path>: <strerror>"
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
/// Nullable: err
alctStatus alci_stats_open(alciStats* s, const char* path, int json, char* err, int errsz);

/// alci_stats_open for a resumed run: append to path (created if missing) without a header.
alctStatus alci_stats_openAppend(alciStats* s, const char* path, int json, char* err, int errsz);

/// Append and flush one row.
/// @return ALC_OK, ALC_ERR_INVALID_ARG (not open, st NULL), ALC_ERR_IO (message in s->error).
alctStatus alci_stats_write(alciStats* s, long step, double time, const alcStepStat* st);

/// Close the stream, release and zero the struct. NULL-safe and safe on a closed stream.
/// @param[out] err  "cannot write <path>: <strerror>" if the final close failed
/// @return ALC_OK or ALC_ERR_IO.
/// Nullable: s, err
alctStatus alci_stats_close(alciStats* s, char* err, int errsz);

/// Print a human-readable summary of a run: model sizes, steps, Newton per step, CG per solve,
/// contacts per Newton iteration, average alpha, time per step and the per-phase breakdown
/// (seconds and percent of the step time).
/// Nullable: m (sizes omitted), backend (omitted)
void alci_stats_summary(FILE* out, const alcModel* m, const alcRunStat* r, const char* backend);

/// Write the column header of the Table 1 rows (AL paper Table 1 columns) into buf (always
/// zero-terminated when n > 0): name, #tets, #CG avg (peak), #Newton avg (peak), #contacts avg
/// (peak), avg alpha (TOI), s/step avg (peak), Hess, PCG, CCD, LS, other (percent of step).
void alci_stats_tableHeader(char* buf, size_t n);

/// Write one Table 1 row for a run, aligned with alci_stats_tableHeader. Large counts are
/// abbreviated as in the paper (4.3k, 1.45M).
/// Nullable: m (#tets shown as "-")
void alci_stats_tableRow(char* buf, size_t n, const char* name, const alcModel* m,
                         const alcRunStat* r);

#endif  // ALC_HOST_STATS_WRITER_H_
