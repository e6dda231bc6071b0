// Scene runs for the tests (scene_run.h).
#include "scene_run.h"

#include "check.h"
#include "test_macros.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void obstacleTargetGap(const Run* r, double* gap, double* speed) {
    for (int v = 0; v < r->m->nvert; v++) {
        if (!r->obstacle[r->m->vert_body[v]]) continue;
        for (int k = 0; k < 3; k++) {
            double g = fabs(r->d->x[3 * v + k] - r->d->kin_target[3 * v + k]);
            double s = fabs(r->d->v[3 * v + k]);
            if (g > *gap) *gap = g;
            if (s > *speed) *speed = s;
        }
    }
}

int refusedToMake(const char* scene, int contact, int backend, const char* want) {
    char path[1024], err[1024];
    snprintf(path, sizeof path, "%s/scenes/%s", alct_rootDir(), scene);
    alcModel* m = NULL;
    alcLoadDef ld = alc_defaultLoadDef();
    if (alc_loadScene(path, &ld, &m, err, sizeof err) != ALC_OK) return 0;
    m->opt.contact = contact;
    alcSimDef def = alc_defaultSimDef();
    def.backend = backend;
    alcSim* sim = NULL;
    alctStatus st = alc_makeSim(m, &def, &sim);
    int ok = st == ALC_ERR_UNSUPPORTED && sim && strstr(alc_lastError(sim), want) != NULL;
    if (!ok) fprintf(stderr, "  %s: %d, '%s'\n", scene, (int)st, sim ? alc_lastError(sim) : "");
    alc_deleteSim(sim);
    alc_deleteModel(m);
    return ok;
}

void closeRun(Run* r) {
    alc_deleteSim(r->sim);
    alc_deleteData(r->d);
    alc_deleteModel(r->m);
    free(r->obstacle);
}

int checkRun(Run* r) {
    alciCheckReport rep;
    if (alci_check_model(r->m, r->d->x, 1, 1, &rep) != ALC_OK) {
        fprintf(stderr, "  step %ld: the check failed\n", r->d->step);
        r->clean = 0;
        return 0;
    }
    // the penalty-ds model is not penetration-free by design (issue 22): its states must hold
    // no inverted tetrahedron and no NaN; its intersections are counted, not refused
    int ok = rep.clean;
    if (r->m->opt.contact == ALC_CONTACT_PENALTY_DS) {
        ok = rep.ninverted == 0 && rep.nnonfinite == 0;
        if (rep.nintersect > r->intersections) r->intersections = rep.nintersect;
    }
    if (!ok) {
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

int pathRuns(PathRuns* p, const char* scene, int steps, void (*change)(alcModel* m)) {
    memset(p, 0, sizeof *p);
    if (!openRun(&p->a, scene, NULL, NULL, -1) || !openRun(&p->b, scene, NULL, NULL, -1) ||
        !openRun(&p->c, scene, NULL, NULL, -1)) {
        return 0;
    }
    change(p->b.m);
    p->c.m->opt.cgTol = 1e-7;
    Run* ab[2] = {&p->a, &p->b};
    for (int k = 0; k < steps; k++) {
        if (!stepRun(&p->a) || !stepRun(&p->b) || !stepRun(&p->c)) return 0;
        for (int i = 0; i < 2; i++) {
            p->newton[i] += ab[i]->d->stat.newton;
            p->cg[i] += ab[i]->d->stat.cgTotal;
            p->splits[i] += ab[i]->d->stat.splits;
        }
    }
    for (int i = 0; i < 3 * p->a.m->nvert; i++) {
        p->worst = fmax(p->worst, fabs(p->a.d->x[i] - p->b.d->x[i]));
        p->cgMove = fmax(p->cgMove, fabs(p->a.d->x[i] - p->c.d->x[i]));
        p->scale = fmax(p->scale, fabs(p->a.d->x[i]));
    }
    return 1;
}

void pathRunsClose(PathRuns* p) {
    closeRun(&p->a);
    closeRun(&p->b);
    closeRun(&p->c);
}

alctStatus makeLoggedSim(const Run* r, int threads, int verbosity, alcLogFn log, void* user,
                         alcSim** sim) {
    return makeLoggedSimOn(r, ALC_BACKEND_REF, threads, verbosity, log, user, sim);
}

alctStatus makeLoggedSimOn(const Run* r, int backend, int threads, int verbosity, alcLogFn log,
                           void* user, alcSim** sim) {
    alcSimDef def = alc_defaultSimDef();
    def.backend = backend;
    def.threads = threads;
    def.verbosity = verbosity;
    def.log = log;
    def.user = user;
    return alc_makeSim(r->m, &def, sim);
}

void bodyCentre(const Run* r, int b, double c[3]) {
    const alcModel* m = r->m;
    c[0] = c[1] = c[2] = 0;
    int a = m->body_vertadr[b], n = m->body_vertnum[b];
    for (int i = a; i < a + n; i++)
        for (int k = 0; k < 3; k++) c[k] += r->d->x[3 * i + k] / n;
}

void totalMomentum(const Run* r, double p[3]) {
    const alcModel* m = r->m;
    const double h = m->opt.timestep;
    p[0] = p[1] = p[2] = 0;
    for (int i = 0; i < m->nvert; i++)
        for (int k = 0; k < 3; k++) p[k] += m->vert_mass[i] * r->d->v[3 * i + k];
    for (int b = 0; b < m->nrigid; b++) {
        const double* q = r->d->rigid_pose + 6 * b + 3;
        const double* qp = r->d->rigid_posePrev + 6 * b + 3;
        for (int k = 0; k < 3; k++) p[k] += m->rigid_mass[b] * (q[k] - qp[k]) / h;
    }
}

int momentumCheck(Run* r, int b, const char* what) {
    double p0[3], p[3];
    totalMomentum(r, p0);
    double n0 = sqrt(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]), worst = 0, traded = 0;
    int ok = 1, touched = 0;
    for (int s = 0; ok && s < r->m->run.steps; s++) {
        ok = stepRun(r);
        totalMomentum(r, p);
        double d0 = p[0] - p0[0], d1 = p[1] - p0[1], d2 = p[2] - p0[2];
        worst = fmax(worst, sqrt(d0 * d0 + d1 * d1 + d2 * d2) / n0);
        touched |= r->d->stat.contactsMax > 0;
    }
    int a = r->m->body_vertadr[b], n = r->m->body_vertnum[b];
    for (int i = a; i < a + n; i++) traded += r->m->vert_mass[i] * r->d->v[3 * i];
    closeRun(r);
    ENSURE(ok);
    alct_note(
        "largest relative change of total momentum %.3e (expected < 1e-6); momentum passed "
        "to %s %.3f of %.3f kg m/s",
        worst, what, traded, n0);
    ENSURE(touched);
    ENSURE(traded > 0.1 * n0);
    ENSURE(worst < 1e-6);
    return ALC_TEST_PASS;
}

// ---- checkpoints -------------------------------------------------------------------------

int runEndOf(RunEnd* e, const Run* r) {
    size_t b = sizeof(double) * 3 * (size_t)r->m->nvert;
    e->x = (double*)malloc(b);
    e->v = (double*)malloc(b);
    const alcContact* c = NULL;
    if (!e->x || !e->v || alc_getContacts(r->sim, &c, &e->ncontact) != ALC_OK) return 0;
    e->contacts = (alcContact*)malloc(sizeof(alcContact) * (size_t)(e->ncontact + 1));
    if (!e->contacts) return 0;
    memcpy(e->contacts, c, sizeof(alcContact) * (size_t)e->ncontact);
    memcpy(e->x, r->d->x, b);
    memcpy(e->v, r->d->v, b);
    e->time = r->d->time;
    e->step = r->d->step;
    e->run = r->d->run;
    e->stat = r->d->stat;
    return 1;
}

void runEndFree(RunEnd* e) {
    free(e->x);
    free(e->v);
    free(e->contacts);
}

/// Everything but the timers equal, bit for bit; prints the first difference.
int runEndSame(const RunEnd* a, const RunEnd* b, int nvert, const char* what) {
    size_t n = 3 * (size_t)nvert;
    for (size_t i = 0; i < n; i++) {
        if (memcmp(&a->x[i], &b->x[i], sizeof(double)) ||
            memcmp(&a->v[i], &b->v[i], sizeof(double))) {
            fprintf(stderr, "  %s: x[%zu] %.17g vs %.17g, v %.17g vs %.17g\n", what, i, a->x[i],
                    b->x[i], a->v[i], b->v[i]);
            return 0;
        }
    }
    if (a->time != b->time || a->step != b->step) {
        fprintf(stderr, "  %s: time %.17g vs %.17g, step %ld vs %ld\n", what, a->time, b->time,
                a->step, b->step);
        return 0;
    }
    alcRunStat ra = a->run, rb = b->run;
    alcStepStat sa = a->stat, sb = b->stat;
    memset(ra.time, 0, sizeof ra.time);
    memset(rb.time, 0, sizeof rb.time);
    memset(sa.time, 0, sizeof sa.time);
    memset(sb.time, 0, sizeof sb.time);
    ra.timeMax = rb.timeMax = 0;
    if (ra.steps != rb.steps || ra.outer != rb.outer || ra.newton != rb.newton ||
        ra.cgTotal != rb.cgTotal || ra.contactsSum != rb.contactsSum ||
        ra.alphaSum != rb.alphaSum || ra.capped != rb.capped) {
        fprintf(stderr, "  %s: run statistics differ (newton %ld vs %ld, cg %ld vs %ld)\n", what,
                ra.newton, rb.newton, ra.cgTotal, rb.cgTotal);
        return 0;
    }
    if (sa.newton != sb.newton || sa.cgTotal != sb.cgTotal || sa.mu != sb.mu ||
        sa.energyGain != sb.energyGain || sa.alphaSum != sb.alphaSum) {
        fprintf(stderr,
                "  %s: last step's statistics differ (newton %d vs %d, mu %.17g vs %.17g)\n", what,
                sa.newton, sb.newton, sa.mu, sb.mu);
        return 0;
    }
    if (a->ncontact != b->ncontact) {
        fprintf(stderr, "  %s: %d contacts vs %d\n", what, a->ncontact, b->ncontact);
        return 0;
    }
    for (int c = 0; c < a->ncontact; c++) {
        const alcContact* p = &a->contacts[c];
        const alcContact* q = &b->contacts[c];
        if (memcmp(p->vert, q->vert, sizeof p->vert) || p->lambda != q->lambda ||
            p->normalForce != q->normalForce ||
            memcmp(p->frictionForce, q->frictionForce, sizeof p->frictionForce)) {
            fprintf(stderr, "  %s: contact %d differs (lambda %.17g vs %.17g)\n", what, c,
                    p->lambda, q->lambda);
            return 0;
        }
    }
    return 1;
}

static int stepsNoCheck(Run* r, int n) {
    for (int i = 0; i < n; i++) {
        alctStatus st = alc_step(r->sim, r->d);
        if (st != ALC_OK) {
            fprintf(stderr, "  step %ld: %s: %s\n", r->d->step + 1, alcu_statusString(st),
                    alc_lastError(r->sim));
            return 0;
        }
    }
    return 1;
}

int runCheckpointRoundTrip(const char* scene, int contact, int at, int total, int backend) {
    char path[1024];
    snprintf(path, sizeof path, "%s/scenes/%s.yaml", alct_rootDir(), scene);
    Run a;
    if (!openRunOn(&a, path, NULL, NULL, contact, backend)) return -1;
    int ok = stepsNoCheck(&a, at);
    size_t need = 0;
    ok = ok && alc_checkpointSize(a.sim, a.d, &need) == ALC_OK && need > 0;
    unsigned char* mem = ok ? (unsigned char*)malloc(need) : NULL;
    size_t got = 0;
    ok = ok && mem && alc_saveCheckpoint(a.sim, a.d, mem, need, &got) == ALC_OK && got == need;
    char file[1100];
    snprintf(file, sizeof file, "/tmp/alc_ckpt_%d_%s_%d_%d.alck", (int)getpid(), scene, contact,
             backend);
    for (char* c = file + 5; *c; c++) *c = *c == '/' ? '_' : *c;  // a scene under a folder
    ok = ok && alc_saveCheckpointFile(a.sim, a.d, file) == ALC_OK;
    if (!ok) fprintf(stderr, "  %s: saving failed: %s\n", scene, alc_lastError(a.sim));
    RunEnd ref = {0};
    ok = ok && stepsNoCheck(&a, total - at) && runEndOf(&ref, &a);
    // a contact-rich checkpoint: the active set was not empty (the IPC model reports no AL
    // pairs and carries no contact state between steps)
    const alcContact* c = NULL;
    int nc = 0;
    alc_getContacts(a.sim, &c, &nc);
    if (ok && nc == 0 && contact != ALC_CONTACT_IPC) {
        fprintf(stderr, "  %s: no contacts at the end (the test needs a contact-rich scene)\n",
                scene);
        ok = 0;
    }

    // from memory into a new sim and data
    Run b;
    int okb = ok && openRunOn(&b, path, NULL, NULL, contact, backend);
    if (okb && alc_loadCheckpoint(b.sim, b.d, mem, got) != ALC_OK) {
        fprintf(stderr, "  %s: loading failed: %s\n", scene, alc_lastError(b.sim));
        okb = 0;
    }
    okb = okb && b.d->step == at;
    RunEnd eb = {0};
    okb = okb && stepsNoCheck(&b, total - at) && runEndOf(&eb, &b) &&
          runEndSame(&ref, &eb, a.m->nvert, "memory, new sim");

    // from the file into the first sim, which has run on (an RL-style reset)
    int oka = ok && alc_loadCheckpointFile(a.sim, a.d, file) == ALC_OK;
    if (ok && !oka)
        fprintf(stderr, "  %s: loading the file failed: %s\n", scene, alc_lastError(a.sim));
    RunEnd ea = {0};
    oka = oka && a.d->step == at && stepsNoCheck(&a, total - at) && runEndOf(&ea, &a) &&
          runEndSame(&ref, &ea, a.m->nvert, "file, same sim");

    if (okb) closeRun(&b);
    closeRun(&a);
    runEndFree(&ref);
    runEndFree(&ea);
    runEndFree(&eb);
    free(mem);
    remove(file);
    return ok && oka && okb;
}
