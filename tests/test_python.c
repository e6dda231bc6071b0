// The Python package (issue 19, item 7): tests/python/test_alcove.py under Debian's python3
// (/usr/bin/python3, which sees python3-numpy; the python3 first on PATH here does not), with
// the package from python/ and the shared library of this build. Skipped, with the reason,
// where that Python or numpy is missing.
#include "test_files.h"
#include "test_macros.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

ALC_SLOW_TEST(python_package) {
    if (system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0) {
        alct_skipReason("/usr/bin/python3 with numpy (python3-numpy) is not installed");
        return ALC_TEST_SKIP;
    }
    const char* build = getenv("ALC_BUILD");
    char lib[4096], real[4096];
    snprintf(lib, sizeof lib, "%s/libalcove.so", build ? build : "build");
    if (realpath(lib, real)) snprintf(lib, sizeof lib, "%s", real);
    const char* dir = alct_tmpDir("python", NULL);
    char cmd[12000];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && ALCOVE_LIBRARY='%s' PYTHONPATH=python /usr/bin/python3 "
             "tests/python/test_alcove.py > '%s/out.txt' 2>&1",
             alct_rootDir(), lib, dir);
    int rc = system(cmd);
    char path[1100], line[512], last[512] = "";
    snprintf(path, sizeof path, "%s/out.txt", dir);
    FILE* f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] != '\n') snprintf(last, sizeof last, "%s", line);
    }
    if (f) fclose(f);
    ENSURE_MSG(WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "the Python tests failed (%s): %s", path,
               last);
    // importable from the repository root with nothing but PYTHONPATH (the default library path)
    snprintf(cmd, sizeof cmd,
             "cd '%s' && env -u ALCOVE_LIBRARY PYTHONPATH=python /usr/bin/python3 -c "
             "'import alcove; print(alcove.version())' > /dev/null 2>&1",
             alct_rootDir());
    if (build == NULL || !strcmp(build, "build")) {
        ENSURE_MSG(system(cmd) == 0, "PYTHONPATH=python python3 -c 'import alcove' fails");
    }
    alct_note("Python package: %s", last);
    return ALC_TEST_PASS;
}
