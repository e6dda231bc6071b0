// CCD sample queries: reading the rational CSV format of the CCD benchmark sample set
// (data/ccd-sample-queries/README.md) and scoring alcm_ccd_pt / alcm_ccd_ee against its ground
// truth. Internal to the library; `alcove ccd-check DIR` calls alci_ccd_checkDir.
#ifndef ALC_HOST_CCD_QUERIES_H_
#define ALC_HOST_CCD_QUERIES_H_

#include "alc/alc_types.h"

#include <stdio.h>

/// Minimum separation used by the checker (m).
#define ALCI_CCD_CHECK_XI 0.0
/// ACCD rescale factor s used by the checker.
#define ALCI_CCD_CHECK_S 0.1
/// End of the query interval.
#define ALCI_CCD_CHECK_TMAX 1.0
/// Iteration cap of each ACCD call (reaching it counts as a reported collision).
#define ALCI_CCD_CHECK_MAXITER 1000000

/// Confusion counts of a set of CCD queries against the ground truth.
typedef struct alciCcdQueryStats_ {
    long queries;    ///< queries run
    long truePos;    ///< reported a collision, ground truth 1
    long falsePos;   ///< reported a collision, ground truth 0
    long trueNeg;    ///< reported none, ground truth 0
    long falseNeg;   ///< reported none, ground truth 1 (must be 0)
    double seconds;  ///< wall time of the CCD calls only (s)
} alciCcdQueryStats;

/// Nearest double to the rational num / den, given as decimal integer strings with an optional
/// sign. Exact and correctly rounded (to nearest, ties to even) for integers of up to 38 digits:
/// both are read into unsigned 128-bit integers and divided bit by bit until 64 significant
/// quotient bits and a sticky bit are known, which are then rounded to 53 bits. Longer integers
/// fall back to long double strtold and division (not exact).
/// @param[out] out  the value
/// @return ALC_OK; ALC_ERR_SCENE for a malformed integer or a zero denominator.
alctStatus alci_ccd_parseRational(const char* num, const char* den, double* out);

/// Read one query CSV file: 8 rows per query (vertex-face: v, f0, f1, f2 at t0 then at t1;
/// edge-edge: ea0, ea1, eb0, eb1 at t0 then at t1), 7 integer columns (x, y, z as
/// numerator/denominator pairs, then the 0/1 ground truth, equal on the 8 rows).
/// @param[in]  csvPath     file to read
/// @param[in]  isEdgeEdge  1 for an edge-edge file, 0 for vertex-face (the layout is the same;
///                         only messages differ)
/// @param[out] pos         malloc'ed positions, nq x 8 x 3 (row r of query q at pos[24 q + 3 r]);
///                         free() it; NULL when nq = 0
/// @param[out] truth       malloc'ed ground truth, nq entries (0 or 1); free() it
/// @param[out] nq          number of queries
/// @param[out] err         "path:line: what is wrong" on failure
/// @return ALC_OK, ALC_ERR_IO (unreadable), ALC_ERR_SCENE (malformed), ALC_ERR_NOMEM.
alctStatus alci_ccd_loadQueries(const char* csvPath, int isEdgeEdge, double** pos, int** truth,
                                long* nq, char* err, int errsz);

/// Run alcm_ccd_pt (isEdgeEdge 0) or alcm_ccd_ee (1) with xi, s, tmax and maxIter of the
/// ALCI_CCD_CHECK_* defaults on each query (dx = x_t1 - x_t0) and add the confusion counts and
/// the time spent in the CCD calls to *stats.
/// @param[out] reported  per query 1 if a collision was reported, else 0 (nq entries)
/// Nullable: reported
alctStatus alci_ccd_runQueries(const double* pos, const int* truth, long nq, int isEdgeEdge,
                               alciCcdQueryStats* stats, int* reported);

/// Walk every <folder>/{vertex-face,edge-edge}/*.csv under dir (folders and files sorted by
/// name), run the CCD on each query and print one row per folder and kind, then a total row:
/// queries, TP, FP, TN, FN and queries per second (CCD calls only).
/// @param[in]  dir     root of the sample set, e.g. ../shared/data/ccd-sample-queries
/// @param[in]  out     where the table goes
/// @param[in]  useGpu  not supported yet (pass 0): the CPU functions are always used; nonzero
///                     only adds a note line to the table
/// @param[out] total   totals over all queries
/// @param[out] err     message on failure (file:line for malformed files)
/// @return ALC_OK (false negatives are reported in *total, not as a status), ALC_ERR_IO when a
///         folder cannot be read or holds no query, ALC_ERR_SCENE, ALC_ERR_NOMEM.
/// Nullable: out (no table)
alctStatus alci_ccd_checkDir(const char* dir, FILE* out, int useGpu, alciCcdQueryStats* total,
                             char* err, int errsz);

#endif  // ALC_HOST_CCD_QUERIES_H_
