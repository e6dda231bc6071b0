// Shared pieces of the alcove command-line program: exit codes, option parsing, scene loading.
#ifndef ALC_TOOLS_CLI_H_
#define ALC_TOOLS_CLI_H_

#include "alc/alc.h"

#include <stdio.h>

/// Exit codes of every subcommand.
enum {
    ALC_EXIT_OK = 0,          ///< success (check: clean; ccd-check: no false negative)
    ALC_EXIT_FAIL = 1,        ///< runtime failure, or a check that found a violation
    ALC_EXIT_USAGE = 2,       ///< bad command line or bad input (scene, mesh, files)
    ALC_EXIT_INTERRUPT = 130,  ///< stopped by Ctrl-C (SIGINT); every file written is complete
    ALC_EXIT_TERMINATED = 143  ///< stopped by SIGTERM; every file written is complete
};

/// Scene selection and overrides common to run and bench.
typedef struct {
    const char* scene;
    const char* preset;
    int nparam;
    const char* paramName[64];
    double paramValue[64];
    char paramStore[64][64];
    int steps;       ///< -1: the scene's
    int backend;     ///< alctBackend
    int threads;     ///< 0: default
    int contact;     ///< -1: the scene's, else alctContactModel
    int ipcToi;      ///< -1: the scene's; 0: IPC ends on its residual; 1: on cumulative TOI
    double ipcDhat;  ///< < 0: the scene's; 0: the scene's delta; > 0: IPC's dhat (m)
    int linearSolver;  ///< -1: the scene's, else alctLinearSolver
    int mlcpPrecond;   ///< -1: the scene's, else alctMlcpPrecond
} alcCliScene;

void alc_cliSceneInit(alcCliScene* s);

/// Try to consume one scene option at argv[*i] (--preset, --set, --steps, --backend, --threads,
/// --contact, --ipc-stop, --ipc-dhat, --linear-solver, --mlcp-precond). Returns 1 if consumed, 0
/// if not a scene option, -1 on a bad value (message printed).
int alc_cliSceneOption(alcCliScene* s, int argc, char** argv, int* i);

/// Load the scene with the overrides applied; prints the error and returns NULL on failure.
alcModel* alc_cliLoad(const alcCliScene* s);

/// Parse a backend name; -1 when unknown.
int alc_cliBackend(const char* name);

/// Parse a contact model name; -1 when unknown.
int alc_cliContact(const char* name);

/// Name of a contact model.
const char* alc_cliContactName(int contact);

/// The backend a sim runs on as the CLI prints it: "ref", "cuda-emulated", or "cuda on NVIDIA
/// H100 80GB HBM3, sm_90, 79.1 GiB" (a timing names the GPU it was taken on). Writes buf.
const char* alc_cliBackendLabel(const alcSim* sim, char* buf, size_t n);

/// 1 when the sim factorizes its Newton systems with CHOLMOD, whose speed is the BLAS's: the
/// reference backend with linear_solver direct or auto, in a build with CHOLMOD.
int alc_cliUsesBlas(const alcModel* m, const alcSim* sim);

/// Log sink printing warnings to stderr (used by run and bench).
void alc_cliLog(void* user, int level, const char* msg);

// subcommands
/// out = s single-quoted for /bin/sh (a quote inside becomes '\''); truncated to n bytes.
void alc_cliShellQuote(char* out, size_t n, const char* s);

/// Parse an image size "WxH" (each at most 8192, at least minW and minH) for command cmd;
/// 1 on success, else 0 with the message printed.
int alc_cliParseSize(const char* cmd, const char* v, int minW, int minH, int* w, int* h);

/// The exact-state files of a run (DIR/states/state_*.alcs), their names sorted (step order:
/// they are zero-padded). *names is malloc'ed with every entry; free with alc_cliFreeNames.
/// @return the count, or -1 when DIR/states cannot be opened.
int alc_cliListStates(const char* dir, char*** names);

/// Free n names from alc_cliListStates. NULL-safe.
void alc_cliFreeNames(char** names, int n);

int alc_cmdRun(int argc, char** argv);
int alc_cmdCheck(int argc, char** argv);
int alc_cmdCcdCheck(int argc, char** argv);
int alc_cmdBench(int argc, char** argv);
int alc_cmdInfo(int argc, char** argv);
int alc_cmdBenchGeometry(int argc, char** argv);
int alc_cmdImportIpc(int argc, char** argv);
int alc_cmdRender(int argc, char** argv);
int alc_cmdPlot(int argc, char** argv);
int alc_cmdBatch(int argc, char** argv);
int alc_cmdPaired(int argc, char** argv);

#endif  // ALC_TOOLS_CLI_H_
