// Batch files for `alcove batch` (docs/batch.md): scenes and parameter sweeps expanded into
// jobs, each an `alcove run` into its own folder named from its parameters.
#ifndef ALC_TOOLS_BATCH_SPEC_H_
#define ALC_TOOLS_BATCH_SPEC_H_

#include <stddef.h>

/// One job: the scene, its preset, and the --set overrides of its parameters.
typedef struct {
    int index;        ///< position in the batch (0-based; the Slurm array index)
    char* scene;      ///< absolute path of the scene file
    char* preset;     ///< preset name, or NULL
    int nset;         ///< overrides
    char** setName;   ///< parameter names (nset)
    char** setValue;  ///< values as written in the batch file (nset)
    char* name;       ///< folder name: "0003_slope_mu-0.45" (index, scene stem, overrides)
} alcBatchJob;

/// A parsed batch file. Strings are owned (alc_batchFree).
typedef struct {
    char* path;     ///< the batch file
    char* name;     ///< batch name (default: the file's stem)
    char* out;      ///< output folder (default: out/NAME), relative to the working directory
    int steps;      ///< --steps for every job (-1: each scene's)
    char* backend;  ///< --backend (NULL: default)
    char* contact;  ///< --contact (NULL: the scene's)
    int threads;    ///< --threads per job (0: 1 on the reference backend)
    char* frames;   ///< --frames (NULL: the scene's)
    int every;      ///< --every (-1: the scene's)
    int nargs;      ///< further `alcove run` options
    char** args;
    int retry;   ///< extra attempts of a failed job
    int check;   ///< run `alcove check` on each finished job (default 1)
    int nsweep;  ///< swept parameter names, in the order of the summary's columns
    char** sweepName;
    // Slurm
    char* slurmPartition;  ///< NULL: the cluster's default
    char* slurmTime;       ///< time limit per task ("01:00:00"), NULL: none given
    char* slurmMem;        ///< memory per task ("2G"), NULL: none given
    int nslurmExtra;       ///< further "#SBATCH" options, written as given
    char** slurmExtra;
    // the jobs
    int njob;
    alcBatchJob* job;
} alcBatch;

/// Parse and expand a batch file: jobs = scenes x presets x cases x (cartesian product of the
/// `set` lists), in that order. Unknown keys, missing scenes and empty lists are errors with
/// "file:line:col: what is wrong" in err.
/// @return 1 on success (free with alc_batchFree), 0 on failure (b zeroed).
int alc_batchLoad(const char* path, alcBatch* b, char* err, int errsz);

/// Free what alc_batchLoad made. NULL-safe.
void alc_batchFree(alcBatch* b);

#endif  // ALC_TOOLS_BATCH_SPEC_H_
