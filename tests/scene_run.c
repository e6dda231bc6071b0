// Scene runs for the tests (scene_run.h).
#include "scene_run.h"

#include "check.h"
#include "test_macros.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int openRun(Run* r, const char* scene, const char* const* names, const double* values,
            int contact) {
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/%s", alct_rootDir(), scene);
    return openRunPath(r, path, names, values, contact);
}

int openRunPath(Run* r, const char* path, const char* const* names, const double* values,
                int contact) {
    return openRunOn(r, path, names, values, contact, ALC_BACKEND_REF);
}

int openRunOn(Run* r, const char* path, const char* const* names, const double* values, int contact,
              int backend) {
    memset(r, 0, sizeof *r);
    char err[1024];
    alcLoadDef ld = alc_defaultLoadDef();
    while (names && names[ld.nparam]) ld.nparam++;
    ld.paramName = names;
    ld.paramValue = values;
    if (alc_loadScene(path, &ld, &r->m, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "  %s\n", err);
        return 0;
    }
    if (contact >= 0) r->m->opt.contact = contact;
    alcSimDef def = alc_defaultSimDef();
    def.backend = backend;
    if (alc_makeData(r->m, &r->d) != ALC_OK || alc_makeSim(r->m, &def, &r->sim) != ALC_OK) {
        fprintf(stderr, "  %s: %s\n", path, r->sim ? alc_lastError(r->sim) : "out of memory");
        return 0;
    }
    r->obstacle = (unsigned char*)calloc((size_t)r->m->nbody, 1);
    for (int b = 0; b < r->m->nbody; b++) r->obstacle[b] = r->m->body_type[b] == ALC_BODY_OBSTACLE;
    r->clean = 1;
    return 1;
}

void closeRun(Run* r) {
    alc_deleteSim(r->sim);
    alc_deleteData(r->d);
    alc_deleteModel(r->m);
    free(r->obstacle);
}

int checkRun(Run* r) {
    alciCheckReport rep;
    if (alci_check_model(r->m, r->d->x, 1, 1, &rep) != ALC_OK || !rep.clean) {
        fprintf(stderr, "  step %ld: not clean: %s\n", r->d->step, rep.message);
        r->clean = 0;
        return 0;
    }
    return 1;
}

int stepRun(Run* r) {
    if (alc_step(r->sim, r->d) != ALC_OK) {
        fprintf(stderr, "  step %ld: %s\n", r->d->step + 1, alc_lastError(r->sim));
        return 0;
    }
    return checkRun(r);
}

void bodyCentre(const Run* r, int b, double c[3]) {
    const alcModel* m = r->m;
    c[0] = c[1] = c[2] = 0;
    int a = m->body_vertadr[b], n = m->body_vertnum[b];
    for (int i = a; i < a + n; i++)
        for (int k = 0; k < 3; k++) c[k] += r->d->x[3 * i + k] / n;
}
