// Temporary files for the tests that write their own inputs (scenes, scripts, meshes).
#ifndef ALC_TESTS_TEST_FILES_H_
#define ALC_TESTS_TEST_FILES_H_

#include "alc/alc.h"

/// A directory /tmp/alc_test_TAG_PID (made on first use, with the subdirectory sub when not
/// NULL); the returned path stays valid for the process. Falls back to /tmp. The directories
/// are removed when the process exits (kept when the environment has ALC_KEEP_TMP).
const char* alct_tmpDir(const char* tag, const char* sub);

/// Write text to DIR/name and return the path (a static buffer, valid until the next call),
/// or NULL when the file cannot be written.
const char* alct_writeFile(const char* dir, const char* name, const char* text);

/// Run a shell command (system): its exit status, or -1 when it did not exit (a signal).
int alct_sh(const char* cmd);

/// Write scene text to alct_tmpDir(tag)/name and load it (alc_loadScene, no parameter
/// overrides): the status, the model in *m (NULL on failure), the message in err.
alctStatus alct_loadSceneText(const char* tag, const char* name, const char* text, alcModel** m,
                              char* err, int errsz);

/// alct_loadSceneText of a one-box scene whose solver map is `{SOLVER}` (SOLVER: the map's
/// entries, e.g. "kmin: 3"): its solver map is on line 4 of the file.
alctStatus alct_loadSolverScene(const char* tag, const char* name, const char* solver, alcModel** m,
                                char* err, int errsz);

#endif  // ALC_TESTS_TEST_FILES_H_
