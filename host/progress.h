// A one-line progress bar for long runs. On a terminal it redraws one line with '\r' at most
// ten times a second; on anything else (a log file, a pipe) it prints a plain line at each
// 10% of the total instead, so logs stay readable. It writes only to the stream it is given.
// Internal to the library.
#ifndef ALC_HOST_PROGRESS_H_
#define ALC_HOST_PROGRESS_H_

#include <stdio.h>

/// State of one progress bar. Fill with alci_progress_begin.
typedef struct alciProgress_ {
    FILE* out;          ///< stream written to; NULL disables all output
    const char* label;  ///< shown first on each line (not copied: keep it alive)
    long total;         ///< units of work (steps); <= 0: unknown, no percentage or ETA
    long done;          ///< units done at the last update
    long first;         ///< units already done at begin (a resumed run's steps)
    int tty;            ///< 1 when out is a terminal
    int decile;         ///< non-terminal: last 10% mark printed (0..10)
    int width;          ///< terminal: length of the last line drawn, for blanking
    double start;       ///< monotonic clock at begin (s)
    double lastDraw;    ///< monotonic clock of the last redraw (s); < 0 before the first
} alciProgress;

/// Start a progress bar. Prints nothing yet.
/// @param[out] p      the bar
/// @param[in] out     the stream (stderr typically); a terminal gets the redrawn bar
/// @param[in] total   units of work; <= 0 when unknown
/// @param[in] first   units already done before this bar began (the steps a resumed run
///                    starts from; 0 otherwise): the rate and the ETA count only the units
///                    done since, while the percentage counts all of them
/// @param[in] label   text before the bar (kept by pointer)
/// Nullable: out (bar disabled), label
void alci_progress_begin(alciProgress* p, FILE* out, long total, long first, const char* label);

/// Report progress: done units of total are finished. On a terminal, redraws
///   "<label> [#####.....]  42.0%  123.4 steps/s  ETA 0:12  <extra>"
/// unless the last redraw is under 0.1 s old (the final unit always redraws); elsewhere,
/// prints "<label>: 40% (400/1000 steps, 123.4 steps/s, ETA 0:12) <extra>" when done crosses
/// a new 10% mark (one line per update at most).
/// Nullable: extra (free text such as "t=0.35 s")
void alci_progress_update(alciProgress* p, long done, const char* extra);

/// Finish the bar: on a terminal, draw the final state and end the line; elsewhere, print a
/// closing line only if the run stopped before its 100% line ("<label>: stopped at ...").
void alci_progress_end(alciProgress* p);

#endif  // ALC_HOST_PROGRESS_H_
