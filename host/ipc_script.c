// Reader of IPC scene scripts (ipc-sim/IPC, src/Config.cpp's format): one keyword a line, shape
// lines after `shapes input N`, multi-line `tuning N` and `tol N`, `section` blocks per constraint
// solver. Keywords that change the physics and cannot be carried over become warnings; display and
// solver-internal settings become notes; malformed lines are errors naming file:line.
#include "ipc_import.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/// The script split into lines, and a cursor over the tokens of the current one.
typedef struct {
    char** line;  // nline, each NUL-terminated
    int nline;
    int cur;        // index of the current line
    char* tok[64];  // tokens of the current line
    int ntok;
    int pos;  // next token
    char tokbuf[4096];
    alciIpcScript* s;
    char* err;
    int errsz;
} Reader;

void alci_ipc_message(alciIpcScript* s, const char* fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char** nm = (char**)realloc(s->msg, sizeof(char*) * (size_t)(s->nmsg + 1));
    if (!nm) return;
    s->msg = nm;
    s->msg[s->nmsg] = strdup(buf);
    if (s->msg[s->nmsg]) s->nmsg++;
}

void alci_ipc_freeScript(alciIpcScript* s) {
    if (!s) return;
    for (int i = 0; i < s->nmsg; i++) free(s->msg[i]);
    free(s->msg);
    free(s->shape);
    free(s->co);
    memset(s, 0, sizeof *s);
}

static int fail(Reader* r, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(Reader* r, const char* fmt, ...) {
    char buf[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    snprintf(r->err, (size_t)r->errsz, "%s:%d: %s", r->s->path, r->cur + 1, buf);
    return 0;
}

/// Split line i into tokens (whitespace separated) and make it current.
static void loadLine(Reader* r, int i) {
    r->cur = i;
    r->ntok = 0;
    r->pos = 0;
    snprintf(r->tokbuf, sizeof r->tokbuf, "%s", r->line[i]);
    char* save = NULL;
    for (char* t = strtok_r(r->tokbuf, " \t\r\n", &save); t && r->ntok < 64;
         t = strtok_r(NULL, " \t\r\n", &save)) {
        r->tok[r->ntok++] = t;
    }
}

static int isNumber(const char* t, double* v) {
    char* end = NULL;
    errno = 0;
    *v = strtod(t, &end);
    return end != t && *end == 0;
}

/// Read n numbers from the current line for keyword kw; what = their names for the message.
static int numbers(Reader* r, const char* kw, const char* what, int n, double* out) {
    for (int i = 0; i < n; i++) {
        if (r->pos >= r->ntok) return fail(r, "'%s' expects %s: too few values", kw, what);
        if (!isNumber(r->tok[r->pos], &out[i]))
            return fail(r, "'%s' expects %s: '%s' is not a number", kw, what, r->tok[r->pos]);
        r->pos++;
    }
    return 1;
}

/// Read n numbers that follow on the next lines (`tuning N`, `tol N`).
static int numbersBelow(Reader* r, const char* kw, int n, double* out, int nout) {
    int got = 0;
    while (got < n) {
        if (r->cur + 1 >= r->nline) return fail(r, "'%s' expects %d values below it", kw, n);
        loadLine(r, r->cur + 1);
        while (r->pos < r->ntok && got < n) {
            double v;
            if (!isNumber(r->tok[r->pos], &v))
                return fail(r, "'%s': '%s' is not a number", kw, r->tok[r->pos]);
            if (got < nout) out[got] = v;
            got++;
            r->pos++;
        }
    }
    return 1;
}

/// Warn about tokens left on the current line.
static void extraTokens(Reader* r, const char* kw) {
    if (r->pos < r->ntok && r->tok[r->pos][0] != '#')
        alci_ipc_message(r->s, "%s:%d: warning: '%s': ignored extra values from '%s'", r->s->path,
                         r->cur + 1, kw, r->tok[r->pos]);
}

static int fileExists(const char* p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/// IPC's rule: absolute, else beside the script, else under the IPC root.
static void resolve(const char* script, const char* root, const char* p, char* out, size_t n) {
    if (p[0] == '/') {
        snprintf(out, n, "%s", p);
        return;
    }
    char dir[2048];
    snprintf(dir, sizeof dir, "%s", script);
    char* slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        memcpy(dir, ".", 2);
    if (snprintf(out, n, "%s/%s", dir, p) >= (int)n) return;
    if (fileExists(out) || !root) return;
    if (snprintf(out, n, "%s/%s", root, p) >= (int)n) return;
}

static int addShape(Reader* r, alciIpcShape** out) {
    alciIpcScript* s = r->s;
    alciIpcShape* ns = (alciIpcShape*)realloc(s->shape, sizeof *ns * (size_t)(s->nshape + 1));
    if (!ns) return fail(r, "out of memory");
    s->shape = ns;
    alciIpcShape* sh = &s->shape[s->nshape++];
    memset(sh, 0, sizeof *sh);
    sh->line = r->cur + 1;
    sh->scale[0] = sh->scale[1] = sh->scale[2] = 1;
    sh->mat[0] = sh->mat[1] = sh->mat[2] = (double)NAN;
    *out = sh;
    return 1;
}

/// The extras after the 9 numbers of a shape line (material, initVel, DBC, ...).
static int shapeExtras(Reader* r, alciIpcShape* sh, int shapeIndex) {
    alciIpcScript* s = r->s;
    while (r->pos < r->ntok) {
        const char* ex = r->tok[r->pos++];
        if (!strcmp(ex, "material")) {
            if (!numbers(r, "material", "DENSITY E NU", 3, sh->mat)) return 0;
        } else if (!strcmp(ex, "initVel")) {
            double v[6];
            if (!numbers(r, "initVel", "VX VY VZ WX WY WZ (degrees/s)", 6, v)) return 0;
            sh->hasInitVel = 1;
            for (int k = 0; k < 3; k++) {
                sh->initLV[k] = v[k];
                sh->initAV[k] = v[3 + k] * M_PI / 180;
            }
        } else if (!strcmp(ex, "DBC")) {
            double v[12];
            if (!numbers(r, "DBC", "MIN(3) MAX(3) VELOCITY(3) ANGULAR_VELOCITY(3)", 12, v))
                return 0;
            if (sh->ndbc >= 8) return fail(r, "more than 8 DBC on one shape");
            alciIpcDbc* d = &sh->dbc[sh->ndbc++];
            for (int k = 0; k < 3; k++) {
                d->bmin[k] = v[k];
                d->bmax[k] = v[3 + k];
                d->vel[k] = v[6 + k];
                d->omega[k] = v[9 + k] * M_PI / 180;
            }
            d->t0 = 0;
            d->t1 = HUGE_VAL;
            d->line = r->cur + 1;
            double t;
            if (r->pos < r->ntok && isNumber(r->tok[r->pos], &t)) {
                d->t0 = t;
                r->pos++;
                if (r->pos < r->ntok && isNumber(r->tok[r->pos], &t)) {
                    d->t1 = t;
                    r->pos++;
                }
            }
        } else if (!strcmp(ex, "\\")) {
            if (r->cur + 1 >= r->nline) return fail(r, "'\\' continues past the end of the file");
            loadLine(r, r->cur + 1);
        } else if (ex[0] == '#') {
            // a comment runs to the end of the line (or to a continuation)
            while (r->pos < r->ntok && strcmp(r->tok[r->pos], "\\") != 0) r->pos++;
        } else if (!strcmp(ex, "linearVelocity") || !strcmp(ex, "angularVelocity") ||
                   !strcmp(ex, "NBC") || !strcmp(ex, "meshSeq")) {
            alci_ipc_message(s,
                             "%s:%d: warning: shape %d: '%s' (scripted component motion, forces or "
                             "mesh sequences) is not supported; the rest of the line is ignored",
                             s->path, r->cur + 1, shapeIndex, ex);
            r->pos = r->ntok;
        } else {
            return fail(r, "shape %d: unknown keyword '%s'", shapeIndex, ex);
        }
    }
    return 1;
}

/// path x y z rx ry rz sx sy sz [extras]
static int shapeLine(Reader* r, const char* root, alciIpcShape** out) {
    alciIpcShape* sh;
    if (!addShape(r, &sh)) return 0;
    const char* p = r->tok[r->pos++];
    snprintf(sh->path, sizeof sh->path, "%s", p);
    resolve(r->s->path, root, p, sh->resolved, sizeof sh->resolved);
    if (!numbers(r, "shape", "PATH X Y Z RX RY RZ SX SY SZ", 3, sh->trans) ||
        !numbers(r, "shape", "PATH X Y Z RX RY RZ SX SY SZ", 3, sh->rot) ||
        !numbers(r, "shape", "PATH X Y Z RX RY RZ SX SY SZ", 3, sh->scale))
        return 0;
    if (out) *out = sh;
    return shapeExtras(r, sh, r->s->nshape - 1);
}

/// `shapeMatrix TYPE NX NY NZ [X Y Z]` and on the next line `PATH DX DY DZ RX RY RZ SX SY SZ
/// [material RHO E NU]` (src/Config.cpp): NX x NY x NZ copies, copy (i, j, k) translated to
/// (X + i DX, Y + j DY, Z + k DZ), in the order i, then j, then k (k fastest).
static int shapeMatrix(Reader* r, const char* root) {
    alciIpcScript* s = r->s;
    double v[9];
    if (r->ntok - r->pos < 4) return fail(r, "'shapeMatrix' expects TYPE NX NY NZ [X Y Z]");
    r->pos++;  // type
    if (!numbers(r, "shapeMatrix", "TYPE NX NY NZ [X Y Z]", 3, v)) return 0;
    int cnt[3];
    for (int k = 0; k < 3; k++) {
        cnt[k] = (int)v[k];
        if (cnt[k] != v[k] || cnt[k] < 0 || cnt[k] > 100000)
            return fail(r, "'shapeMatrix': NX NY NZ must be counts");
    }
    double origin[3] = {0, 0, 0};
    if (r->pos < r->ntok && r->tok[r->pos][0] != '#' &&
        !numbers(r, "shapeMatrix", "TYPE NX NY NZ [X Y Z]", 3, origin))
        return 0;
    extraTokens(r, "shapeMatrix");
    long total = (long)cnt[0] * cnt[1] * cnt[2];
    if (total > 100000) return fail(r, "'shapeMatrix': more than 100000 copies");
    if (r->cur + 1 >= r->nline) return fail(r, "'shapeMatrix' expects a shape line below it");
    loadLine(r, r->cur + 1);  // IPC takes the next line as it is
    if (r->ntok == 0 || r->tok[0][0] == '#')
        return fail(r, "'shapeMatrix' expects PATH DX DY DZ RX RY RZ SX SY SZ on this line");
    const char* what = "PATH DX DY DZ RX RY RZ SX SY SZ";
    char path[1024];
    snprintf(path, sizeof path, "%s", r->tok[r->pos++]);
    if (!numbers(r, "shapeMatrix", what, 9, v)) return 0;
    double mat[3] = {(double)NAN, (double)NAN, (double)NAN};
    if (r->pos < r->ntok && !strcmp(r->tok[r->pos], "material")) {
        r->pos++;
        if (!numbers(r, "shapeMatrix", "material DENSITY E NU", 3, mat)) return 0;
    }
    extraTokens(r, "shapeMatrix");
    int first = s->nshape;
    for (int i = 0; i < cnt[0]; i++)
        for (int j = 0; j < cnt[1]; j++)
            for (int k = 0; k < cnt[2]; k++) {
                alciIpcShape* sh;
                if (!addShape(r, &sh)) return 0;
                snprintf(sh->path, sizeof sh->path, "%s", path);
                if (s->nshape - 1 == first)
                    resolve(s->path, root, path, sh->resolved, sizeof sh->resolved);
                else
                    memcpy(sh->resolved, s->shape[first].resolved, sizeof sh->resolved);
                const int idx[3] = {i, j, k};
                for (int a = 0; a < 3; a++) {
                    sh->trans[a] = origin[a] + v[a] * idx[a];
                    sh->rot[a] = v[3 + a];
                    sh->scale[a] = v[6 + a];
                    sh->mat[a] = mat[a];
                }
                sh->matrixCount = (int)total;
                sh->matrixIndex = s->nshape - 1 - first;
            }
    if (total == 0)
        alci_ipc_message(s, "%s:%d: warning: 'shapeMatrix' with a zero count adds no shape",
                         s->path, r->cur + 1);
    r->pos = r->ntok;
    return 1;
}

static int addCO(Reader* r, alciIpcCO** out) {
    alciIpcScript* s = r->s;
    alciIpcCO* nc = (alciIpcCO*)realloc(s->co, sizeof *nc * (size_t)(s->nco + 1));
    if (!nc) return fail(r, "out of memory");
    s->co = nc;
    alciIpcCO* c = &s->co[s->nco++];
    memset(c, 0, sizeof *c);
    c->line = r->cur + 1;
    *out = c;
    return 1;
}

/// Keywords that only affect display, output or IPC's own solver internals.
static int isNoteKeyword(const char* t) {
    static const char* const notes[] = {"view",
                                        "zoom",
                                        "cameraTracking",
                                        "playBackSpeed",
                                        "appendStr",
                                        "disableCout",
                                        "warmStart",
                                        "linearSolver",
                                        "linSysSolver",
                                        "fricIterAmt",
                                        "noActiveSetConvergence",
                                        "useActiveSetConvergence",
                                        "CCDMethod",
                                        "ccdMethod",
                                        "CCDTolerance",
                                        "ccdTolerance",
                                        "constraintType",
                                        "QPSolver",
                                        "constraintOffset",
                                        NULL};
    for (int i = 0; notes[i]; i++)
        if (!strcmp(t, notes[i])) return 1;
    return 0;
}

/// One keyword line; returns 0 on a malformed line.
static int keyword(Reader* r, const char* root, char* solver, size_t solverSz) {
    alciIpcScript* s = r->s;
    const char* kw = r->tok[r->pos++];
    int line = r->cur + 1;
    double v[8];
    if (!strcmp(kw, "energy")) {
        if (r->pos >= r->ntok) return fail(r, "'energy' expects NH or FCR");
        const char* e = r->tok[r->pos++];
        if (strcmp(e, "NH") && strcmp(e, "FCR"))
            return fail(r, "'energy %s': IPC knows NH and FCR", e);
        s->energyFCR = !strcmp(e, "FCR");
        s->energyLine = line;
    } else if (!strcmp(kw, "size")) {
        if (!numbers(r, kw, "SIZE", 1, &s->size)) return 0;
    } else if (!strcmp(kw, "time")) {
        if (!numbers(r, kw, "DURATION DT", 2, v)) return 0;
        if (!(v[0] > 0) || !(v[1] > 0)) return fail(r, "'time' needs DURATION > 0 and DT > 0");
        s->duration = v[0];
        s->dt = v[1];
    } else if (!strcmp(kw, "density")) {
        if (!numbers(r, kw, "DENSITY", 1, &s->rho)) return 0;
        if (!(s->rho > 0)) return fail(r, "'density' must be > 0");
    } else if (!strcmp(kw, "stiffness")) {
        if (!numbers(r, kw, "E NU", 2, v)) return 0;
        if (!(v[0] > 0) || !(v[1] >= 0 && v[1] < 0.5))
            return fail(r, "'stiffness' needs E > 0 and 0 <= NU < 0.5");
        s->E = v[0];
        s->nu = v[1];
    } else if (!strcmp(kw, "turnOffGravity")) {
        s->gravity = 0;
    } else if (!strcmp(kw, "script")) {
        if (r->pos >= r->ntok) return fail(r, "'script' expects a script name");
        snprintf(s->script, sizeof s->script, "%s", r->tok[r->pos++]);
        s->scriptLine = line;
        // IPC reads `script NAME [FOLDER] [N P1 .. PN]` (the folder for meshSeqFromFile only)
        if (!strcmp(s->script, "meshSeqFromFile") && r->pos < r->ntok) r->pos++;
        double n = 0;
        if (r->pos < r->ntok && isNumber(r->tok[r->pos], &n) && n == (int)n && n > 0) {
            r->pos++;
            double p;
            for (int i = 0; i < (int)n && r->pos < r->ntok && isNumber(r->tok[r->pos], &p); i++) {
                r->pos++;
                if (s->nparam < 8) s->param[s->nparam++] = p;
            }
            if (s->nparam < (int)n && s->nparam < 8)
                alci_ipc_message(s, "%s:%d: warning: script %s: %d parameters announced, %d given",
                                 s->path, line, s->script, (int)n, s->nparam);
            if (strcmp(s->script, "DCOBallHitWall") != 0)
                alci_ipc_message(s,
                                 "%s:%d: note: script %s takes no parameters (IPC uses them for "
                                 "DCOBallHitWall only); ignored, as IPC does",
                                 s->path, line, s->script);
        } else if (r->pos < r->ntok && isNumber(r->tok[r->pos], &n)) {
            r->pos++;  // a count of 0
        }
    } else if (!strcmp(kw, "shape")) {
        if (r->ntok - r->pos < 2) return fail(r, "'shape' expects TYPE PATH");
        r->pos++;  // type
        alciIpcShape* sh;
        if (!addShape(r, &sh)) return 0;
        snprintf(sh->path, sizeof sh->path, "%s", r->tok[r->pos]);
        resolve(s->path, root, r->tok[r->pos++], sh->resolved, sizeof sh->resolved);
    } else if (!strcmp(kw, "shapes")) {
        if (r->ntok - r->pos < 2) return fail(r, "'shapes' expects 'input N'");
        r->pos++;  // type
        if (!numbers(r, kw, "input N", 1, v)) return 0;
        int n = (int)v[0];
        if (n < 0 || v[0] != n) return fail(r, "'shapes': N must be a count");
        for (int i = 0; i < n;) {
            if (r->cur + 1 >= r->nline) return fail(r, "'shapes' expects %d shape lines", n);
            loadLine(r, r->cur + 1);
            if (r->ntok == 0 || r->tok[0][0] == '#') continue;
            if (!shapeLine(r, root, NULL)) return 0;
            i++;
        }
    } else if (!strcmp(kw, "shapeMatrix")) {
        if (!shapeMatrix(r, root)) return 0;
    } else if (!strcmp(kw, "tol")) {
        if (!numbers(r, kw, "N", 1, v)) return 0;
        double t[1] = {0};
        if (!numbersBelow(r, kw, (int)v[0], t, 1)) return 0;
        s->tol = t[0];
    } else if (!strcmp(kw, "tuning")) {
        if (!numbers(r, kw, "N", 1, v)) return 0;
        int n = (int)v[0];
        if (n < 0 || v[0] != n) return fail(r, "'tuning': N must be a count");
        double t[6];
        int at = r->cur;
        if (!numbersBelow(r, kw, n, t, 6)) return 0;
        for (int i = 0; i < n && i < 6; i++) s->tuning[i] = t[i];
        s->kappaSet = n > 0 && t[0] > 0;
        s->dhatSet = n > 1;
        s->epsvSet = n > 4;
        if (n > 6)
            alci_ipc_message(s, "%s:%d: note: tuning values after the sixth are not used", s->path,
                             at + 1);
        return 1;
    } else if (!strcmp(kw, "dHat")) {
        if (!numbers(r, kw, "DHAT (relative to the diagonal)", 1, &s->tuning[1])) return 0;
        s->tuning[2] = s->tuning[1];
        s->dhatSet = 1;
    } else if (!strcmp(kw, "epsv")) {
        if (!numbers(r, kw, "EPSV (relative to the diagonal)", 1, &s->tuning[4])) return 0;
        s->tuning[5] = s->tuning[4];
        s->epsvSet = 1;
    } else if (!strcmp(kw, "useAbsParameters")) {
        s->useAbs = 1;
    } else if (!strcmp(kw, "ground")) {
        if (!numbers(r, kw, "FRICTION Y", 2, v)) return 0;
        alciIpcCO* c;
        if (!addCO(r, &c)) return 0;
        c->origin[1] = v[1];
        c->normal[1] = 1;
        c->friction = v[0];
    } else if (!strcmp(kw, "halfSpace")) {
        if (!numbers(r, kw, "ORIGIN(3) NORMAL(3) STIFFNESS FRICTION", 8, v)) return 0;
        double n = sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
        if (!(n > 0)) return fail(r, "'halfSpace': the normal is zero");
        alciIpcCO* c;
        if (!addCO(r, &c)) return 0;
        for (int k = 0; k < 3; k++) {
            c->origin[k] = v[k];
            c->normal[k] = v[3 + k] / n;
        }
        c->friction = v[7];
    } else if (!strcmp(kw, "meshCO")) {
        if (r->pos >= r->ntok)
            return fail(r, "'meshCO' expects PATH X Y Z SCALE STIFFNESS FRICTION");
        alciIpcCO* c;
        if (!addCO(r, &c)) return 0;
        c->isMesh = 1;
        snprintf(c->path, sizeof c->path, "%s", r->tok[r->pos]);
        resolve(s->path, root, r->tok[r->pos++], c->resolved, sizeof c->resolved);
        if (!numbers(r, kw, "PATH X Y Z SCALE STIFFNESS FRICTION", 6, v)) return 0;
        for (int k = 0; k < 3; k++) c->origin[k] = v[k];
        c->scale = v[3];
        c->friction = v[5];
        if (r->pos < r->ntok && !strcmp(r->tok[r->pos], "rotate")) {
            r->pos++;
            if (!numbers(r, kw, "rotate RX RY RZ", 3, c->rot)) return 0;
        }
    } else if (!strcmp(kw, "selfCollisionOn")) {
    } else if (!strcmp(kw, "selfCollisionOff")) {
        alci_ipc_message(s,
                         "%s:%d: warning: 'selfCollisionOff': alcove always resolves contact "
                         "within and between bodies",
                         s->path, line);
    } else if (!strcmp(kw, "selfFric")) {
        if (!numbers(r, kw, "MU", 1, &s->selfFric)) return 0;
        if (s->selfFric < 0) s->selfFric = 0;
    } else if (!strcmp(kw, "rotateModel")) {
        if (!numbers(r, kw, "AXIS(3) DEGREES", 4, v)) return 0;
        double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(n > 0) && v[3] != 0) return fail(r, "'rotateModel': the axis is zero");
        for (int k = 0; k < 3; k++) s->rotAxis[k] = n > 0 ? v[k] / n : 0;
        s->rotDeg = v[3];
    } else if (!strcmp(kw, "handleRatio")) {
        if (!numbers(r, kw, "RATIO", 1, &s->handleRatio)) return 0;
        if (!(s->handleRatio > 0 && s->handleRatio < 0.5))
            return fail(r, "'handleRatio' must be in (0, 0.5)");
    } else if (!strcmp(kw, "constraintSolver")) {
        if (r->pos >= r->ntok) return fail(r, "'constraintSolver' expects a name");
        const char* t = r->tok[r->pos++];
        snprintf(solver, solverSz, "%s", !strcmp(t, "IP") ? "interiorPoint" : t);
        if (strcmp(solver, "interiorPoint"))
            alci_ipc_message(s,
                             "%s:%d: warning: constraintSolver %s: alcove solves contact with its "
                             "own method (solver.contact); IPC's %s is not reproduced",
                             s->path, line, t, t);
    } else if (!strcmp(kw, "timeIntegration")) {
        if (r->pos < r->ntok && strcmp(r->tok[r->pos], "BE"))
            alci_ipc_message(s,
                             "%s:%d: warning: timeIntegration %s: alcove integrates with backward "
                             "Euler only",
                             s->path, line, r->tok[r->pos]);
        r->pos = r->ntok;
    } else if (!strcmp(kw, "dampingStiff") || !strcmp(kw, "dampingRatio")) {
        alci_ipc_message(s, "%s:%d: warning: '%s': alcove has no elastic damping; ignored", s->path,
                         line, kw);
        r->pos = r->ntok;
    } else if (!strcmp(kw, "DBCTimeRange") || !strcmp(kw, "NBCTimeRange") ||
               !strcmp(kw, "restart") || !strcmp(kw, "kappaMinMultiplier") ||
               !strcmp(kw, "minBarrierStiffnessScale")) {
        alci_ipc_message(s, "%s:%d: warning: '%s' is not supported; ignored", s->path, line, kw);
        r->pos = r->ntok;
    } else if (isNoteKeyword(kw)) {
        alci_ipc_message(s, "%s:%d: note: '%s' (display, output or IPC solver internals) ignored",
                         s->path, line, kw);
        r->pos = r->ntok;
    } else {
        alci_ipc_message(s, "%s:%d: warning: unknown keyword '%s'; ignored", s->path, line, kw);
        r->pos = r->ntok;
    }
    extraTokens(r, kw);
    return 1;
}

/// `section A B ...`: kept when a name is "end" or the current constraint solver; else skipped up
/// to the next `section end` line.
static void section(Reader* r, const char* solver) {
    int match = 0, line = r->cur + 1;
    char names[256] = "";
    for (; r->pos < r->ntok; r->pos++) {
        const char* t = r->tok[r->pos];
        if (!strcmp(t, "end")) match = 1;
        if (!strcmp(t, solver) || (!strcmp(t, "IP") && !strcmp(solver, "interiorPoint"))) match = 1;
        size_t len = strlen(names);
        snprintf(names + len, sizeof names - len, "%s%s", len ? " " : "", t);
    }
    if (match) return;
    int i = r->cur + 1;
    for (; i < r->nline; i++) {
        loadLine(r, i);
        if (r->ntok >= 2 && !strcmp(r->tok[0], "section") && !strcmp(r->tok[1], "end")) break;
    }
    alci_ipc_message(r->s,
                     "%s:%d: note: section '%s' (lines %d-%d) is for another constraint "
                     "solver than %s and is skipped, as IPC does",
                     r->s->path, line, names, line, i < r->nline ? i + 1 : r->nline, solver);
    if (i >= r->nline) r->cur = r->nline - 1;
}

static char* slurp(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char* b = (char*)malloc(cap + 1);
    while (b) {
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        char* nb = (char*)realloc(b, 2 * cap + 1);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    fclose(f);
    if (b) b[n] = 0;
    *len = n;
    return b;
}

/// The IPC root: ipcRoot, else the first folder above the script holding input/.
static void findRoot(const char* script, const char* ipcRoot, char* root, size_t n) {
    if (ipcRoot) {
        snprintf(root, n, "%s", ipcRoot);
        return;
    }
    char dir[2048];
    if (!realpath(script, dir)) snprintf(dir, sizeof dir, "%s", script);
    for (;;) {
        char* slash = strrchr(dir, '/');
        if (!slash) break;
        *slash = 0;
        char probe[2100];
        snprintf(probe, sizeof probe, "%s/input", dir[0] ? dir : "");
        struct stat st;
        if (stat(probe, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(root, n, "%s", dir[0] ? dir : "/");
            return;
        }
        if (!dir[0]) break;
    }
    root[0] = 0;
}

alctStatus alci_ipc_readScript(const char* path, const char* ipcRoot, alciIpcScript* s, char* err,
                               int errsz) {
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    // IPC's defaults (src/Config.hpp)
    s->size = -1;
    s->duration = 5;
    s->dt = 0.025;
    s->rho = 1000;
    s->E = 1e5;
    s->nu = 0.4;
    s->gravity = 1;
    snprintf(s->script, sizeof s->script, "null");
    s->handleRatio = 0.01;
    const double tuning[6] = {0, 1e-3, 1e-3, 1e-9, 1e-3, 1e-3};
    memcpy(s->tuning, tuning, sizeof tuning);

    size_t len = 0;
    char* text = slurp(path, &len);
    if (!text) {
        snprintf(err, (size_t)errsz, "%s: cannot read: %s", path, strerror(errno));
        return ALC_ERR_IO;
    }
    char root[2048];
    findRoot(path, ipcRoot, root, sizeof root);
    Reader r;
    memset(&r, 0, sizeof r);
    r.s = s;
    r.err = err;
    r.errsz = errsz;
    int cap = 256;
    r.line = (char**)malloc(sizeof(char*) * (size_t)cap);
    for (char* p = text; r.line && p && *p;) {
        char* nl = strchr(p, '\n');
        if (nl) *nl = 0;
        if (r.nline == cap) {
            cap *= 2;
            char** nlines = (char**)realloc(r.line, sizeof(char*) * (size_t)cap);
            if (!nlines) break;
            r.line = nlines;
        }
        r.line[r.nline++] = p;
        p = nl ? nl + 1 : NULL;
    }
    if (!r.line) {
        free(text);
        snprintf(err, (size_t)errsz, "out of memory");
        return ALC_ERR_NOMEM;
    }
    char solver[64] = "interiorPoint";
    int ok = 1;
    for (int i = 0; ok && i < r.nline; i = r.cur + 1) {
        loadLine(&r, i);
        if (r.ntok == 0 || r.tok[0][0] == '#') continue;
        if (!strcmp(r.tok[0], "section")) {
            r.pos = 1;
            section(&r, solver);
            continue;
        }
        ok = keyword(&r, root[0] ? root : NULL, solver, sizeof solver);
    }
    free(r.line);
    free(text);
    if (!ok) return ALC_ERR_SCENE;
    if (s->nshape == 0) {
        snprintf(err, (size_t)errsz, "%s: no shapes (IPC's 'shapes input N' lines)", path);
        return ALC_ERR_SCENE;
    }
    if (!root[0] && !ipcRoot)
        alci_ipc_message(s,
                         "%s: note: no folder holding input/ above the script; mesh paths are "
                         "taken beside the script (use --ipc-root)",
                         path);
    return ALC_OK;
}
