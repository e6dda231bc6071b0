// YAML scenes (docs/scene-format.md): the schema walk that turns a scene file into an alcSpec
// and compiles it. Every error names file:line:column and what is wrong.
#include "alc_internal.h"
#include "mesh.h"
#include "scene_yaml.h"

#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BIG 1e300

typedef struct {
    alciYCtx y;
    alcSpec* spec;
    char dir[PATH_MAX];  // folder of the scene file (mesh paths are relative to it)
    char** matName;      // material names in spec order
    int nmat;
    int* bodyLine;  // 1-based line and column of each spec body's entry (2 per body)
    int nbodyPos, capBodyPos;
    int zUp;  // physics.up: z: generated meshes turned so that their up (+y) is +z
} Loader;

/// Remember where spec body `index` is declared (for errors found when the model is compiled).
static int noteBodyPos(Loader* L, int index, const alciYNode* at) {
    if (index < 0) return 1;
    if (index >= L->capBodyPos) {
        int cap = index + 64 > 2 * L->capBodyPos ? index + 64 : 2 * L->capBodyPos;
        int* p = (int*)realloc(L->bodyLine, sizeof(int) * 2 * (size_t)cap);
        if (!p) return 0;
        for (int i = 2 * L->capBodyPos; i < 2 * cap; i++) p[i] = 0;
        L->bodyLine = p;
        L->capBodyPos = cap;
    }
    L->bodyLine[2 * index] = at->line;
    L->bodyLine[2 * index + 1] = at->col;
    if (index >= L->nbodyPos) L->nbodyPos = index + 1;
    return 1;
}

static const char* const kTopKeys[] = {"name",    "params",    "presets",  "run",
                                       "physics", "solver",    "friction", "materials",
                                       "bodies",  "obstacles", NULL};

// ---- params and presets ---------------------------------------------------------------------

static int addParam(Loader* L, const char* name, double v) {
    for (int i = 0; i < L->y.nparam; i++) {
        if (strcmp(L->y.paramName[i], name) == 0) {
            L->y.paramValue[i] = v;
            return 1;
        }
    }
    char** nn = (char**)realloc(L->y.paramName, sizeof(char*) * (size_t)(L->y.nparam + 1));
    if (nn) L->y.paramName = nn;
    double* vv = (double*)realloc(L->y.paramValue, sizeof(double) * (size_t)(L->y.nparam + 1));
    if (vv) L->y.paramValue = vv;
    if (!nn || !vv) return alciy_fail(&L->y, NULL, "out of memory");
    L->y.paramName[L->y.nparam] = strdup(name);
    L->y.paramValue[L->y.nparam] = v;
    L->y.nparam++;
    return 1;
}

static int readParams(Loader* L, alciYNode* root, const alcLoadDef* def) {
    alciYNode* params = alciy_get(root, "params");
    if (params) {
        if (!alciy_expectMap(&L->y, params, "params")) return 0;
        for (int i = 0; i < params->n; i++) {
            params->used[i] = 1;
            double v;
            if (!alciy_number(&L->y, params->item[i], &v)) return 0;
            if (!addParam(L, params->key[i]->str, v)) return 0;
        }
    }
    alciYNode* presets = alciy_get(root, "presets");
    if (presets && !alciy_expectMap(&L->y, presets, "presets")) return 0;
    if (def && def->preset) {
        alciYNode* p = presets ? alciy_get(presets, def->preset) : NULL;
        if (!p) {
            char list[256] = "none";
            size_t len = 0;
            for (int i = 0; presets && i < presets->n; i++) {
                int w = snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                 presets->key[i]->str);
                if (w > 0 && (size_t)w < sizeof list - len) len += (size_t)w;
            }
            return alciy_fail(&L->y, presets ? presets : root,
                              "unknown preset '%s' (available: %s)", def->preset, list);
        }
        if (!alciy_expectMap(&L->y, p, "a preset")) return 0;
        for (int i = 0; i < p->n; i++) {
            p->used[i] = 1;
            int known = 0;
            for (int k = 0; k < L->y.nparam; k++)
                known |= !strcmp(L->y.paramName[k], p->key[i]->str);
            if (!known) {
                return alciy_fail(&L->y, p->key[i],
                                  "preset '%s' sets '%s', which is not under params:", def->preset,
                                  p->key[i]->str);
            }
            double v;
            if (!alciy_number(&L->y, p->item[i], &v)) return 0;
            if (!addParam(L, p->key[i]->str, v)) return 0;
        }
    }
    // mark every preset as seen (only the selected one is read)
    for (int i = 0; presets && i < presets->n; i++) presets->used[i] = 1;
    for (int i = 0; def && i < def->nparam; i++) {
        int known = 0;
        for (int k = 0; k < L->y.nparam; k++)
            known |= !strcmp(L->y.paramName[k], def->paramName[i]);
        if (!known)
            return alciy_fail(&L->y, params ? params : root,
                              "parameter '%s' is not under params:", def->paramName[i]);
        if (!isfinite(def->paramValue[i]))
            return alciy_fail(&L->y, NULL, "parameter '%s' is not finite", def->paramName[i]);
        if (!addParam(L, def->paramName[i], def->paramValue[i])) return 0;
    }
    return 1;
}

// ---- run, physics, solver, friction ---------------------------------------------------------

static int readRun(Loader* L, alciYNode* root) {
    alciYNode* n = alciy_get(root, "run");
    if (!n) return 1;
    if (!alciy_expectMap(&L->y, n, "run")) return 0;
    alcRunOption* r = alc_specRunOption(L->spec);
    static const char* const fmtNames[] = {"vtu", "ply", "none", NULL};
    static const int fmtValues[] = {ALC_FRAMES_VTU, ALC_FRAMES_PLY, ALC_FRAMES_NONE};
    static const char* const statNames[] = {"csv", "jsonl", NULL};
    static const int statValues[] = {0, 1};
    const char* out = NULL;
    static const char* const keys[] = {"steps",  "output",   "frame_every", "frames",
                                       "states", "contacts", "stats",       NULL};
    int ok = alciy_getInt(&L->y, n, "steps", &r->steps, 0, INT_MAX, 0) &&
             alciy_getString(&L->y, n, "output", &out, 0) &&
             alciy_getInt(&L->y, n, "frame_every", &r->frameEvery, 0, INT_MAX, 0) &&
             alciy_getEnum(&L->y, n, "frames", fmtNames, fmtValues, &r->frameFormat) &&
             alciy_getBool(&L->y, n, "states", &r->writeStates) &&
             alciy_getBool(&L->y, n, "contacts", &r->writeContacts) &&
             alciy_getEnum(&L->y, n, "stats", statNames, statValues, &r->statsJson) &&
             alciy_checkKeys(&L->y, n, keys);
    if (ok && out) alc_specSetNames(L->spec, NULL, out);
    return ok;
}

static int readPhysics(Loader* L, alciYNode* root) {
    alciYNode* n = alciy_get(root, "physics");
    if (!n) return 1;
    if (!alciy_expectMap(&L->y, n, "physics")) return 0;
    alcOption* o = alc_specOption(L->spec);
    static const char* const keys[] = {"time_step", "gravity", "up", NULL};
    static const char* const upNames[] = {"y", "z", NULL};
    static const int upValues[] = {0, 1};
    if (!alciy_getEnum(&L->y, n, "up", upNames, upValues, &L->zUp)) return 0;
    if (L->zUp) {  // z-up (robotics, ROS, MuJoCo, URDF): gravity along -z unless given
        o->gravity[0] = o->gravity[1] = 0;
        o->gravity[2] = -9.81;
    }
    return alciy_getNumber(&L->y, n, "time_step", &o->timestep, 1e-9, 1e3, 0) &&
           alciy_getVec(&L->y, n, "gravity", o->gravity, 3, 0, 0) &&
           alciy_checkKeys(&L->y, n, keys);
}

static int readSolver(Loader* L, alciYNode* root) {
    alciYNode* n = alciy_get(root, "solver");
    if (!n) return 1;
    if (!alciy_expectMap(&L->y, n, "solver")) return 0;
    alcOption* o = alc_specOption(L->spec);
    static const char* const contactNames[] = {"al",      "ipc",        "penalty", "none",
                                               "mlcp-cr", "penalty-ds", NULL};
    static const int contactValues[] = {ALC_CONTACT_AL,      ALC_CONTACT_IPC,
                                        ALC_CONTACT_PENALTY, ALC_CONTACT_NONE,
                                        ALC_CONTACT_MLCP_CR, ALC_CONTACT_PENALTY_DS};
    static const char* const invNames[] = {"auto", "all", NULL};
    static const int invValues[] = {ALC_INVERSION_AUTO, ALC_INVERSION_ALL};
    static const char* const invBoundNames[] = {"end", "path", NULL};
    static const int invBoundValues[] = {ALC_INVBOUND_END, ALC_INVBOUND_PATH};
    static const char* const solverNames[] = {"pcg", "direct", "auto", NULL};
    static const int solverValues[] = {ALC_LINSOLVE_PCG, ALC_LINSOLVE_DIRECT, ALC_LINSOLVE_AUTO};
    static const char* const eigNames[] = {"clamp", "abs", NULL};
    static const int eigValues[] = {ALC_EIGEN_CLAMP, ALC_EIGEN_ABS};
    static const char* const reuseNames[] = {"newton", "step", NULL};
    static const int reuseValues[] = {0, 1};
    static const char* const keys[] = {"contact",
                                       "delta",
                                       "epsilon",
                                       "kmin",
                                       "decay",
                                       "remove_below",
                                       "mu_scale",
                                       "mu",
                                       "cg_tol",
                                       "cg_max_iter",
                                       "max_iter",
                                       "max_newton",
                                       "ls_max_iter",
                                       "stall_iters",
                                       "stall_alpha",
                                       "restart_alpha",
                                       "newton_flat",
                                       "ccd_gap_cap",
                                       "ccd_rescale",
                                       "ccd_min_sep",
                                       "ccd_max_iter",
                                       "inversion",
                                       "inversion_fraction",
                                       "newton_tol",
                                       "penalty_scale",
                                       "ipc",
                                       "linear_solver",
                                       "split_depth",
                                       "split_after",
                                       "hessian_reuse",
                                       "pair_mu_growth",
                                       "pair_mu_max",
                                       "friction_secant",
                                       "inversion_bound",
                                       "tet_guards",
                                       "eigen_filter",
                                       "mlcp",
                                       "penalty_ds",
                                       NULL};
    int ok =
        alciy_getEnum(&L->y, n, "contact", contactNames, contactValues, &o->contact) &&
        alciy_getNumber(&L->y, n, "delta", &o->delta, 1e-12, BIG, 0) &&
        alciy_getNumber(&L->y, n, "epsilon", &o->epsilon, 1e-12, 0.999, 0) &&
        alciy_getInt(&L->y, n, "kmin", &o->kmin, 0, 1000, 0) &&
        alciy_getNumber(&L->y, n, "decay", &o->decay, 0, 1, 0) &&
        alciy_getNumber(&L->y, n, "remove_below", &o->removeBelow, 0, 0.999, 0) &&
        alciy_getNumber(&L->y, n, "mu_scale", &o->muScale, 1e-12, BIG, 0) &&
        alciy_getNumber(&L->y, n, "mu", &o->mu, 0, BIG, 0) &&
        alciy_getNumber(&L->y, n, "cg_tol", &o->cgTol, 1e-16, 0.5, 0) &&
        alciy_getInt(&L->y, n, "cg_max_iter", &o->cgMaxIter, 0, INT_MAX, 0) &&
        alciy_getInt(&L->y, n, "max_iter", &o->maxIter, 1, INT_MAX, 0) &&
        alciy_getInt(&L->y, n, "max_newton", &o->maxNewton, 1, INT_MAX, 0) &&
        alciy_getInt(&L->y, n, "ls_max_iter", &o->lsMaxIter, 1, 200, 0) &&
        alciy_getInt(&L->y, n, "stall_iters", &o->stallIters, 1, INT_MAX, 0) &&
        alciy_getNumber(&L->y, n, "stall_alpha", &o->stallAlpha, 0, 0.999, 0) &&
        alciy_getNumber(&L->y, n, "restart_alpha", &o->restartAlpha, 0, 1, 0) &&
        alciy_getNumber(&L->y, n, "newton_flat", &o->newtonFlat, 0, 0.999, 0) &&
        alciy_getNumber(&L->y, n, "ccd_gap_cap", &o->ccdGapCap, 0, BIG, 0) &&
        alciy_getNumber(&L->y, n, "ccd_rescale", &o->ccdRescale, 1e-6, 0.999, 0) &&
        alciy_getNumber(&L->y, n, "ccd_min_sep", &o->ccdMinSep, 0, BIG, 0) &&
        alciy_getInt(&L->y, n, "ccd_max_iter", &o->ccdMaxIter, 10, INT_MAX, 0) &&
        alciy_getEnum(&L->y, n, "inversion", invNames, invValues, &o->inversion) &&
        alciy_getEnum(&L->y, n, "inversion_bound", invBoundNames, invBoundValues,
                      &o->inversionBound) &&
        alciy_getNumber(&L->y, n, "inversion_fraction", &o->inversionFraction, 1e-6, 0.999, 0) &&
        alciy_getInt(&L->y, n, "tet_guards", &o->tetGuards, 0, ALC_TET_GUARDS_MAX, 0) &&
        alciy_getEnum(&L->y, n, "eigen_filter", eigNames, eigValues, &o->eigenFilter) &&
        alciy_getNumber(&L->y, n, "newton_tol", &o->newtonTol, 0, BIG, 0) &&
        alciy_getNumber(&L->y, n, "penalty_scale", &o->penaltyScale, 1e-12, BIG, 0) &&
        alciy_getEnum(&L->y, n, "linear_solver", solverNames, solverValues, &o->linearSolver) &&
        alciy_getInt(&L->y, n, "split_depth", &o->splitDepth, 0, 20, 0) &&
        alciy_getInt(&L->y, n, "split_after", &o->splitAfter, 1, INT_MAX, 0) &&
        alciy_getEnum(&L->y, n, "hessian_reuse", reuseNames, reuseValues, &o->hessianReuse) &&
        alciy_getNumber(&L->y, n, "pair_mu_growth", &o->pairMuGrowth, 1, 1e3, 0) &&
        alciy_getNumber(&L->y, n, "pair_mu_max", &o->pairMuMax, 1, 1e12, 0) &&
        alciy_getBool(&L->y, n, "friction_secant", &o->frictionSecant);
    if (!ok) return 0;
    alciYNode* ipc = alciy_get(n, "ipc");
    if (ipc) {
        if (!alciy_expectMap(&L->y, ipc, "solver.ipc")) return 0;
        static const char* const ipcKeys[] = {"dhat", "kappa", "newton_tol", "toi_termination",
                                              NULL};
        ok = alciy_getNumber(&L->y, ipc, "dhat", &o->ipcDhat, 0, BIG, 0) &&
             alciy_getNumber(&L->y, ipc, "kappa", &o->ipcKappa, 0, BIG, 0) &&
             alciy_getNumber(&L->y, ipc, "newton_tol", &o->ipcNewtonTol, 0, BIG, 0) &&
             alciy_getBool(&L->y, ipc, "toi_termination", &o->ipcToiTerm) &&
             alciy_checkKeys(&L->y, ipc, ipcKeys);
        if (!ok) return 0;
    }
    alciYNode* mlcp = alciy_get(n, "mlcp");
    if (mlcp) {
        if (!alciy_expectMap(&L->y, mlcp, "solver.mlcp")) return 0;
        static const char* const mlcpKeys[] = {"precond",   "gap_tol",    "duplicate_scaling",
                                               "theta_tol", "theta_rate", NULL};
        static const char* const precNames[] = {"full", "diag", NULL};
        static const int precValues[] = {ALC_MLCP_FULL, ALC_MLCP_DIAG};
        ok = alciy_getEnum(&L->y, mlcp, "precond", precNames, precValues, &o->mlcpPrecond) &&
             alciy_getNumber(&L->y, mlcp, "gap_tol", &o->mlcpGapTol, 1e-9, 0.5, 0) &&
             alciy_getBool(&L->y, mlcp, "duplicate_scaling", &o->mlcpDuplicates) &&
             alciy_getNumber(&L->y, mlcp, "theta_tol", &o->mlcpThetaTol, 0, 90, 0) &&
             alciy_getNumber(&L->y, mlcp, "theta_rate", &o->mlcpThetaRate, 1e-6, 1, 0) &&
             alciy_checkKeys(&L->y, mlcp, mlcpKeys);
        if (!ok) return 0;
    }
    alciYNode* ds = alciy_get(n, "penalty_ds");
    if (ds) {
        if (!alciy_expectMap(&L->y, ds, "solver.penalty_ds")) return 0;
        static const char* const dsKeys[] = {"k",          "tol",     "gmres_max",
                                             "max_newton", "precond", NULL};
        static const char* const dsPrecNames[] = {"auto", "jacobi", "cholesky", NULL};
        static const int dsPrecValues[] = {ALC_DS_PRECOND_AUTO, ALC_DS_PRECOND_JACOBI,
                                           ALC_DS_PRECOND_CHOLESKY};
        ok = alciy_getNumber(&L->y, ds, "k", &o->dsK, 0, BIG, 0) &&
             alciy_getEnum(&L->y, ds, "precond", dsPrecNames, dsPrecValues, &o->dsPrecond) &&
             alciy_getNumber(&L->y, ds, "tol", &o->dsTol, 0, BIG, 0) &&
             alciy_getInt(&L->y, ds, "gmres_max", &o->dsGmresMax, 1, 100000, 0) &&
             alciy_getInt(&L->y, ds, "max_newton", &o->dsMaxNewton, 1, 100000, 0) &&
             alciy_checkKeys(&L->y, ds, dsKeys);
        if (!ok) return 0;
    }
    return alciy_checkKeys(&L->y, n, keys);
}

static int findMaterial(Loader* L, alciYNode* at, const char* name, int* index) {
    for (int i = 0; i < L->nmat; i++) {
        if (strcmp(L->matName[i], name) == 0) {
            *index = i;
            return 1;
        }
    }
    return alciy_fail(&L->y, at, "unknown material '%s' (define it under materials:)", name);
}

static int readMaterials(Loader* L, alciYNode* root) {
    alciYNode* n = alciy_get(root, "materials");
    if (!n) {
        // one default material
        alcMaterialDef md = alc_defaultMaterialDef();
        if (alc_specAddMaterial(L->spec, &md, NULL) != ALC_OK)
            return alciy_fail(&L->y, NULL, "out of memory");
        L->matName = (char**)malloc(sizeof(char*));
        if (!L->matName) return alciy_fail(&L->y, NULL, "out of memory");
        L->matName[0] = strdup("default");
        L->nmat = 1;
        return 1;
    }
    if (!alciy_expectMap(&L->y, n, "materials")) return 0;
    if (n->n == 0) return alciy_fail(&L->y, n, "materials: is empty");
    L->matName = (char**)calloc((size_t)n->n, sizeof(char*));
    if (!L->matName) return alciy_fail(&L->y, NULL, "out of memory");
    static const char* const modelNames[] = {"snh", "stable_neohookean", "nh",  "neohookean",
                                             "cor", "corotated",         "fcr", "fixed_corotated",
                                             NULL};
    static const int modelValues[] = {ALC_MAT_STABLE_NEOHOOKEAN, ALC_MAT_STABLE_NEOHOOKEAN,
                                      ALC_MAT_NEOHOOKEAN,        ALC_MAT_NEOHOOKEAN,
                                      ALC_MAT_COROTATED,         ALC_MAT_COROTATED,
                                      ALC_MAT_FIXED_COROTATED,   ALC_MAT_FIXED_COROTATED};
    static const char* const keys[] = {"model",         "density",  "youngs_modulus",
                                       "poisson_ratio", "friction", NULL};
    for (int i = 0; i < n->n; i++) {
        n->used[i] = 1;
        alciYNode* m = n->item[i];
        if (!alciy_expectMap(&L->y, m, "a material")) return 0;
        alcMaterialDef md = alc_defaultMaterialDef();
        md.name = n->key[i]->str;
        int ok = alciy_getEnum(&L->y, m, "model", modelNames, modelValues, &md.model) &&
                 alciy_getNumber(&L->y, m, "density", &md.density, 1e-12, BIG, 0) &&
                 alciy_getNumber(&L->y, m, "youngs_modulus", &md.young, 1e-12, BIG, 0) &&
                 alciy_getNumber(&L->y, m, "poisson_ratio", &md.poisson, 0, 0.4999, 0) &&
                 alciy_getNumber(&L->y, m, "friction", &md.friction, 0, BIG, 0) &&
                 alciy_checkKeys(&L->y, m, keys);
        if (!ok) return 0;
        if (alc_specAddMaterial(L->spec, &md, NULL) != ALC_OK) {
            return alciy_fail(&L->y, n->key[i], "%s", alc_specError(L->spec));
        }
        L->matName[i] = strdup(md.name);
        L->nmat++;
    }
    return 1;
}

static int readFriction(Loader* L, alciYNode* root) {
    alciYNode* n = alciy_get(root, "friction");
    if (!n) return 1;
    if (!alciy_expectMap(&L->y, n, "friction")) return 0;
    alcOption* o = alc_specOption(L->spec);
    static const char* const keys[] = {"eps_v", "default", "pairs", NULL};
    if (!alciy_getNumber(&L->y, n, "eps_v", &o->frictionEpsV, 1e-15, BIG, 0) ||
        !alciy_getNumber(&L->y, n, "default", &o->frictionDefault, 0, BIG, 0)) {
        return 0;
    }
    alciYNode* pairs = alciy_get(n, "pairs");
    if (pairs) {
        if (pairs->kind != ALCY_SEQ)
            return alciy_fail(&L->y, pairs,
                              "friction.pairs must be a list of [material, material, coefficient]");
        for (int i = 0; i < pairs->n; i++) {
            alciYNode* p = pairs->item[i];
            if (p->kind != ALCY_SEQ || p->n != 3 || p->item[0]->kind != ALCY_SCALAR ||
                p->item[1]->kind != ALCY_SCALAR) {
                return alciy_fail(&L->y, p, "a friction pair is [material, material, coefficient]");
            }
            int a = 0, b = 0;
            double mu = 0;
            if (!findMaterial(L, p->item[0], p->item[0]->str, &a) ||
                !findMaterial(L, p->item[1], p->item[1]->str, &b) ||
                !alciy_number(&L->y, p->item[2], &mu)) {
                return 0;
            }
            if (!(mu >= 0))
                return alciy_fail(&L->y, p->item[2], "friction coefficient %g must be >= 0", mu);
            if (alc_specSetFriction(L->spec, a, b, mu) != ALC_OK)
                return alciy_fail(&L->y, p, "%s", alc_specError(L->spec));
        }
    }
    return alciy_checkKeys(&L->y, n, keys);
}

// ---- transforms -----------------------------------------------------------------------------

static int readRotation(Loader* L, alciYNode* body, double q[4]) {
    alciYNode* n = alciy_get(body, "rotation");
    if (!n) return 1;
    if (!alciy_expectMap(&L->y, n, "rotation")) return 0;
    static const char* const keys[] = {"axis", "angle", "quaternion", "euler", NULL};
    int has = (alciy_get(n, "axis") != NULL) + (alciy_get(n, "quaternion") != NULL) +
              (alciy_get(n, "euler") != NULL);
    if (has != 1)
        return alciy_fail(&L->y, n,
                          "rotation needs exactly one of axis+angle, quaternion or euler");
    if (alciy_get(n, "quaternion")) {
        if (!alciy_getVec(&L->y, n, "quaternion", q, 4, 0, 1)) return 0;
        double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (!(qn > 1e-12)) return alciy_fail(&L->y, n, "rotation quaternion is zero");
        for (int k = 0; k < 4; k++) q[k] /= qn;
    } else if (alciy_get(n, "axis")) {
        double ax[3], ang = 0;
        if (!alciy_getVec(&L->y, n, "axis", ax, 3, 0, 1) ||
            !alciy_getNumber(&L->y, n, "angle", &ang, -BIG, BIG, 1)) {
            return 0;
        }
        double an = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
        if (!(an > 1e-12)) return alciy_fail(&L->y, n, "rotation axis is zero");
        double h = 0.5 * ang * M_PI / 180, s = sin(h) / an;
        q[0] = cos(h);
        q[1] = ax[0] * s;
        q[2] = ax[1] * s;
        q[3] = ax[2] * s;
    } else {
        // intrinsic X, then Y, then Z (degrees): q = qz * qy * qx
        double e[3];
        if (!alciy_getVec(&L->y, n, "euler", e, 3, 0, 1)) return 0;
        double c[3], s[3];
        for (int k = 0; k < 3; k++) {
            c[k] = cos(0.5 * e[k] * M_PI / 180);
            s[k] = sin(0.5 * e[k] * M_PI / 180);
        }
        q[0] = c[0] * c[1] * c[2] + s[0] * s[1] * s[2];
        q[1] = s[0] * c[1] * c[2] - c[0] * s[1] * s[2];
        q[2] = c[0] * s[1] * c[2] + s[0] * c[1] * s[2];
        q[3] = c[0] * c[1] * s[2] - s[0] * s[1] * c[2];
    }
    return alciy_checkKeys(&L->y, n, keys);
}

// ---- meshes ---------------------------------------------------------------------------------

static int resolvePath(Loader* L, alciYNode* at, const char* rel, char* out, size_t n) {
    int w = rel[0] == '/' ? snprintf(out, n, "%s", rel) : snprintf(out, n, "%s/%s", L->dir, rel);
    if (w < 0 || (size_t)w >= n) return alciy_fail(&L->y, at, "mesh path too long");
    struct stat st;
    if (stat(out, &st) != 0)
        return alciy_fail(&L->y, at, "mesh file '%s' not found (looked for %s)", rel, out);
    return 1;
}

/// Read the mesh: map of a body or obstacle into mesh (validated).
/// solid: 1 a body (tetrahedra required from a file), 2 a rigid body (tetrahedra or a closed
/// surface), 0 an obstacle.
static int readMesh(Loader* L, alciYNode* owner, int solid, alciMesh* mesh) {
    alciYNode* n = alciy_get(owner, "mesh");
    if (!n) return alciy_fail(&L->y, owner, "missing required key 'mesh'");
    if (!alciy_expectMap(&L->y, n, "mesh")) return 0;
    if (n->n != 1) {
        return alciy_fail(&L->y, n, "mesh needs exactly one entry: file: PATH or a generator (%s)",
                          solid ? "box, sphere, cylinder, torus, ring_segment"
                                : "plane, box, bowl, funnel, tube");
    }
    const char* kind = n->key[0]->str;
    alciYNode* g = n->item[0];
    n->used[0] = 1;
    memset(mesh, 0, sizeof *mesh);
    char msg[ALC_ERRLEN];
    alctStatus st = ALC_OK;
    if (!strcmp(kind, "file")) {
        if (g->kind != ALCY_SCALAR) return alciy_fail(&L->y, g, "mesh file must be a path");
        char path[PATH_MAX];
        if (!resolvePath(L, g, g->str, path, sizeof path)) return 0;
        st = alci_mesh_read(path, mesh, msg, sizeof msg);
        if (st != ALC_OK) return alciy_fail(&L->y, g, "cannot read mesh: %s", msg);
        if (solid == 1 && mesh->ntet == 0) {
            alci_mesh_free(mesh);
            return alciy_fail(&L->y, g, "mesh '%s' has no tetrahedra (a solid needs a volume mesh)",
                              g->str);
        }
        if (!solid && mesh->ntri == 0 && mesh->ntet > 0) {
            st = alci_mesh_boundary(mesh, msg, sizeof msg);
            if (st != ALC_OK) {
                alci_mesh_free(mesh);
                return alciy_fail(&L->y, g, "mesh '%s': %s", g->str, msg);
            }
            free(mesh->tet);
            mesh->tet = NULL;
            mesh->ntet = 0;
        }
        if (!solid && mesh->ntri == 0) {
            alci_mesh_free(mesh);
            return alciy_fail(&L->y, g, "mesh '%s' has no triangles", g->str);
        }
    } else {
        if (!alciy_expectMap(&L->y, g, "a mesh generator")) return 0;
        if (solid && !strcmp(kind, "box")) {
            double size[3] = {1, 1, 1};
            int cells[3] = {4, 4, 4};
            static const char* const k[] = {"size", "cells", NULL};
            if (!alciy_getVec(&L->y, g, "size", size, 3, 1, 0) ||
                !alciy_getIntVec(&L->y, g, "cells", cells, 3, 1, 1, 10000, 0) ||
                !alciy_checkKeys(&L->y, g, k)) {
                return 0;
            }
            if (!(size[0] > 0 && size[1] > 0 && size[2] > 0))
                return alciy_fail(&L->y, g, "box size must be > 0");
            st = alci_mesh_box(size, cells, mesh);
        } else if (solid && !strcmp(kind, "sphere")) {
            double r = 0.5;
            int cells = 8;
            static const char* const k[] = {"radius", "cells", NULL};
            if (!alciy_getNumber(&L->y, g, "radius", &r, 1e-12, BIG, 0) ||
                !alciy_getInt(&L->y, g, "cells", &cells, 2, 10000, 0) ||
                !alciy_checkKeys(&L->y, g, k)) {
                return 0;
            }
            st = alci_mesh_sphere(r, cells, mesh);
        } else if (solid && !strcmp(kind, "cylinder")) {
            double r = 0.5, h = 1;
            int cells = 6, layers = 6;
            static const char* const k[] = {"radius", "height", "cells", "layers", NULL};
            if (!alciy_getNumber(&L->y, g, "radius", &r, 1e-12, BIG, 0) ||
                !alciy_getNumber(&L->y, g, "height", &h, 1e-12, BIG, 0) ||
                !alciy_getInt(&L->y, g, "cells", &cells, 2, 10000, 0) ||
                !alciy_getInt(&L->y, g, "layers", &layers, 1, 100000, 0) ||
                !alciy_checkKeys(&L->y, g, k)) {
                return 0;
            }
            st = alci_mesh_cylinder(r, h, cells, layers, mesh);
        } else if (solid && !strcmp(kind, "torus")) {
            double R = 0.5, r = 0.15;
            int seg = 16, cells = 4;
            static const char* const k[] = {"major_radius", "minor_radius", "segments", "cells",
                                            NULL};
            if (!alciy_getNumber(&L->y, g, "major_radius", &R, 1e-12, BIG, 0) ||
                !alciy_getNumber(&L->y, g, "minor_radius", &r, 1e-12, BIG, 0) ||
                !alciy_getInt(&L->y, g, "segments", &seg, 3, 100000, 0) ||
                !alciy_getInt(&L->y, g, "cells", &cells, 2, 10000, 0) ||
                !alciy_checkKeys(&L->y, g, k)) {
                return 0;
            }
            if (!(r < R))
                return alciy_fail(&L->y, g, "torus minor_radius %g must be below major_radius %g",
                                  r, R);
            st = alci_mesh_torus(R, r, seg, cells, mesh);
        } else if (solid && !strcmp(kind, "ring_segment")) {
            double ri = 0.8, ro = 1, a0 = 0, a1 = 30, depth = 0.2;
            int cells[3] = {1, 1, 1};
            static const char* const k[] = {
                "inner_radius", "outer_radius", "start_angle", "end_angle", "depth", "cells", NULL};
            if (!alciy_getNumber(&L->y, g, "inner_radius", &ri, 1e-12, BIG, 0) ||
                !alciy_getNumber(&L->y, g, "outer_radius", &ro, 1e-12, BIG, 0) ||
                !alciy_getNumber(&L->y, g, "start_angle", &a0, -BIG, BIG, 0) ||
                !alciy_getNumber(&L->y, g, "end_angle", &a1, -BIG, BIG, 0) ||
                !alciy_getNumber(&L->y, g, "depth", &depth, 1e-12, BIG, 0) ||
                !alciy_getIntVec(&L->y, g, "cells", cells, 3, 1, 1, 10000, 0) ||
                !alciy_checkKeys(&L->y, g, k)) {
                return 0;
            }
            if (!(ro > ri))
                return alciy_fail(
                    &L->y, g, "ring_segment outer_radius %g must exceed inner_radius %g", ro, ri);
            if (!(a1 > a0) || a1 - a0 >= 360)
                return alciy_fail(&L->y, g,
                                  "ring_segment needs start_angle < end_angle < start_angle + 360");
            st =
                alci_mesh_ringSegment(ri, ro, a0 * M_PI / 180, a1 * M_PI / 180, depth, cells, mesh);
        } else if (!solid && !strcmp(kind, "tube")) {
            double r = 0.1, h = 1;
            int seg = 24;
            static const char* const k[] = {"radius", "height", "segments", NULL};
            if (!alciy_getNumber(&L->y, g, "radius", &r, 1e-12, BIG, 0) ||
                !alciy_getNumber(&L->y, g, "height", &h, 1e-12, BIG, 0) ||
                !alciy_getInt(&L->y, g, "segments", &seg, 3, 100000, 0) ||
                !alciy_checkKeys(&L->y, g, k)) {
                return 0;
            }
            st = alci_mesh_funnel(r, r, h, seg, mesh);
        } else if (!solid && !strcmp(kind, "plane")) {
            double size[2] = {10, 10};
            int cells = 1;
            static const char* const k[] = {"size", "cells", NULL};
            alciYNode* sz = alciy_get(g, "size");
            if (sz && sz->kind == ALCY_SCALAR) {
                double s1;
                if (!alciy_number(&L->y, sz, &s1)) return 0;
                size[0] = size[1] = s1;
            } else if (!alciy_getVec(&L->y, g, "size", size, 2, 0, 0)) {
                return 0;
            }
            if (!alciy_getInt(&L->y, g, "cells", &cells, 1, 100000, 0) ||
                !alciy_checkKeys(&L->y, g, k))
                return 0;
            if (!(size[0] > 0 && size[1] > 0))
                return alciy_fail(&L->y, g, "plane size must be > 0");
            st = alci_mesh_plane(size, cells, mesh);
        } else if (!solid && !strcmp(kind, "box")) {
            double size[3] = {1, 1, 1};
            int cells = 1, closed = 0;
            static const char* const k[] = {"size", "cells", "closed", NULL};
            if (!alciy_getVec(&L->y, g, "size", size, 3, 1, 0) ||
                !alciy_getInt(&L->y, g, "cells", &cells, 1, 100000, 0) ||
                !alciy_getBool(&L->y, g, "closed", &closed) || !alciy_checkKeys(&L->y, g, k)) {
                return 0;
            }
            if (!(size[0] > 0 && size[1] > 0 && size[2] > 0))
                return alciy_fail(&L->y, g, "box size must be > 0");
            st = alci_mesh_boxSurface(size, cells, closed, mesh);
        } else if (!solid && !strcmp(kind, "bowl")) {
            double r = 1;
            int cells = 12;
            static const char* const k[] = {"radius", "cells", NULL};
            if (!alciy_getNumber(&L->y, g, "radius", &r, 1e-12, BIG, 0) ||
                !alciy_getInt(&L->y, g, "cells", &cells, 2, 100000, 0) ||
                !alciy_checkKeys(&L->y, g, k)) {
                return 0;
            }
            st = alci_mesh_bowl(r, cells, mesh);
        } else if (!solid && !strcmp(kind, "funnel")) {
            double rt = 1, rb = 0.3, h = 1;
            int seg = 24;
            static const char* const k[] = {"top_radius", "bottom_radius", "height", "segments",
                                            NULL};
            if (!alciy_getNumber(&L->y, g, "top_radius", &rt, 1e-12, BIG, 0) ||
                !alciy_getNumber(&L->y, g, "bottom_radius", &rb, 1e-12, BIG, 0) ||
                !alciy_getNumber(&L->y, g, "height", &h, 1e-12, BIG, 0) ||
                !alciy_getInt(&L->y, g, "segments", &seg, 3, 100000, 0) ||
                !alciy_checkKeys(&L->y, g, k)) {
                return 0;
            }
            st = alci_mesh_funnel(rt, rb, h, seg, mesh);
        } else {
            return alciy_fail(&L->y, n->key[0], "unknown %s mesh kind '%s' (use file or %s)",
                              solid ? "body" : "obstacle", kind,
                              solid ? "box, sphere, cylinder, torus, ring_segment"
                                    : "plane, box, bowl, funnel, tube");
        }
        // the keys were checked above: a generator refuses only sizes its int indices cannot
        // hold (or a torus too coarse to keep its tetrahedra positive), or runs out of memory
        if (st == ALC_ERR_INVALID_ARG)
            return alciy_fail(&L->y, g,
                              "cannot generate the %s mesh: too many cells (a mesh's vertex and "
                              "element indices must stay below 2^31)%s",
                              kind,
                              !strcmp(kind, "torus") ? ", or too few to keep every "
                                                       "tetrahedron positive"
                                                     : "");
        if (st == ALC_ERR_NOMEM)
            return alciy_fail(&L->y, g, "cannot generate the %s mesh: out of memory for its %s",
                              kind, solid ? "vertices and tetrahedra" : "vertices and triangles");
        if (st != ALC_OK)
            return alciy_fail(&L->y, g, "cannot generate the %s mesh (%s)", kind,
                              alcu_statusString(st));
        if (L->zUp) {
            // a quarter turn about x takes the generators' up (+y) to +z: (x, y, z) -> (x, -z, y)
            // (a rotation: orientations and outward normals are kept)
            for (int v = 0; v < mesh->nvert; v++) {
                double* p = mesh->vert + 3 * v;
                double y = p[1];
                p[1] = -p[2];
                p[2] = y;
            }
        }
    }
    // a file whose tetrahedra are all negatively oriented uses the other convention: flip it;
    // a mix of orientations means folded (inverted) elements, which validation rejects
    alci_mesh_orientConsistently(mesh);
    st = alci_mesh_validate(mesh, 0, msg, sizeof msg);
    if (st != ALC_OK) {
        alci_mesh_free(mesh);
        return alciy_fail(&L->y, n, "invalid mesh: %s", msg);
    }
    return 1;
}

// ---- drivers --------------------------------------------------------------------------------

/// Read a motion: map into a driver def.
static int readMotion(Loader* L, alciYNode* n, alcDriverDef* dd, double** keysOut) {
    if (!alciy_expectMap(&L->y, n, "motion")) return 0;
    static const char* const typeNames[] = {"fixed",     "linear",   "rotate",
                                            "keyframes", "external", NULL};
    static const int typeValues[] = {ALC_DRIVER_FIXED, ALC_DRIVER_LINEAR, ALC_DRIVER_ROTATE,
                                     ALC_DRIVER_KEYFRAMES, ALC_DRIVER_EXTERNAL};
    static const char* const keys[] = {"type",          "velocity",     "axis",  "center",
                                       "angular_speed", "keys",         "start", "end",
                                       "release",       "release_past", NULL};
    if (!alciy_get(n, "type"))
        return alciy_fail(&L->y, n,
                          "motion needs a type (fixed, linear, rotate, keyframes, external)");
    int ok = alciy_getEnum(&L->y, n, "type", typeNames, typeValues, &dd->type) &&
             alciy_getVec(&L->y, n, "velocity", dd->velocity, 3, 0, 0) &&
             alciy_getVec(&L->y, n, "axis", dd->axis, 3, 0, 0) &&
             alciy_getVec(&L->y, n, "center", dd->center, 3, 0, 0) &&
             alciy_getNumber(&L->y, n, "angular_speed", &dd->angularSpeed, -BIG, BIG, 0) &&
             alciy_getNumber(&L->y, n, "start", &dd->start, 0, HUGE_VAL, 0) &&
             alciy_getNumber(&L->y, n, "end", &dd->end, 0, HUGE_VAL, 0) &&
             alciy_getNumber(&L->y, n, "release", &dd->release, 0, HUGE_VAL, 0);
    if (!ok) return 0;
    alciYNode* past = alciy_get(n, "release_past");
    if (past) {
        static const char* const pastKeys[] = {"direction", "offset", NULL};
        if (!alciy_expectMap(&L->y, past, "release_past")) return 0;
        if (!alciy_get(past, "direction") || !alciy_get(past, "offset"))
            return alciy_fail(&L->y, past, "release_past needs a direction and an offset");
        if (!alciy_getVec(&L->y, past, "direction", dd->releasePast, 3, 0, 0) ||
            !alciy_getNumber(&L->y, past, "offset", &dd->releasePast[3], -BIG, BIG, 0) ||
            !alciy_checkKeys(&L->y, past, pastKeys))
            return 0;
        double len =
            sqrt(dd->releasePast[0] * dd->releasePast[0] + dd->releasePast[1] * dd->releasePast[1] +
                 dd->releasePast[2] * dd->releasePast[2]);
        if (!(len > 0)) return alciy_fail(&L->y, past, "release_past: zero direction");
        // a unit direction: the offset is then the plane's distance from the origin (m)
        for (int j = 0; j < 3; j++) dd->releasePast[j] /= len;
    }
    if (dd->type == ALC_DRIVER_ROTATE && !alciy_get(n, "axis"))
        return alciy_fail(&L->y, n, "a rotate motion needs an axis");
    alciYNode* keysNode = alciy_get(n, "keys");
    if (dd->type == ALC_DRIVER_KEYFRAMES) {
        if (!keysNode || keysNode->kind != ALCY_SEQ || keysNode->n == 0) {
            return alciy_fail(&L->y, keysNode ? keysNode : n,
                              "keyframes need keys: a list of {time, position, rotation}");
        }
        double* k = (double*)calloc((size_t)keysNode->n * 8, sizeof(double));
        if (!k) return alciy_fail(&L->y, n, "out of memory");
        *keysOut = k;
        static const char* const kk[] = {"time", "position", "rotation", NULL};
        for (int i = 0; i < keysNode->n; i++) {
            alciYNode* e = keysNode->item[i];
            if (!alciy_expectMap(&L->y, e, "a keyframe")) return 0;
            double* key = k + 8 * i;
            key[4] = 1;
            if (!alciy_getNumber(&L->y, e, "time", &key[0], 0, BIG, 1) ||
                !alciy_getVec(&L->y, e, "position", key + 1, 3, 0, 0) ||
                !readRotation(L, e, key + 4) || !alciy_checkKeys(&L->y, e, kk)) {
                return 0;
            }
            if (i > 0 && !(key[0] > key[-8]))
                return alciy_fail(&L->y, e, "keyframe times must increase");
        }
        dd->nkey = keysNode->n;
    } else if (keysNode) {
        return alciy_fail(&L->y, keysNode, "keys are only for type keyframes");
    }
    return alciy_checkKeys(&L->y, n, keys);
}

/// Select vertices of a body (world positions at t = 0): all, box, sphere or indices.
static int readSelect(Loader* L, alciYNode* n, const alciMesh* mesh, const alcBodyDef* bd,
                      int** out, int* nout) {
    if (!alciy_expectMap(&L->y, n, "select")) return 0;
    static const char* const keys[] = {"all", "box", "sphere", "indices", NULL};
    int* sel = (int*)malloc(sizeof(int) * (size_t)mesh->nvert);
    if (!sel) return alciy_fail(&L->y, n, "out of memory");
    int cnt = 0, all = 0;
    alciYNode* box = alciy_get(n, "box");
    alciYNode* sph = alciy_get(n, "sphere");
    alciYNode* idx = alciy_get(n, "indices");
    if (!alciy_getBool(&L->y, n, "all", &all) || !alciy_checkKeys(&L->y, n, keys)) {
        free(sel);
        return 0;
    }
    if (all + (box != NULL) + (sph != NULL) + (idx != NULL) != 1) {
        free(sel);
        return alciy_fail(&L->y, n, "select needs exactly one of all, box, sphere, indices");
    }
    double lo[3], hi[3], c[3], r = 0;
    if (box) {
        static const char* const bk[] = {"min", "max", NULL};
        if (!alciy_expectMap(&L->y, box, "select.box") ||
            !alciy_getVec(&L->y, box, "min", lo, 3, 0, 1) ||
            !alciy_getVec(&L->y, box, "max", hi, 3, 0, 1) || !alciy_checkKeys(&L->y, box, bk)) {
            free(sel);
            return 0;
        }
    }
    if (sph) {
        static const char* const sk[] = {"center", "radius", NULL};
        if (!alciy_expectMap(&L->y, sph, "select.sphere") ||
            !alciy_getVec(&L->y, sph, "center", c, 3, 0, 1) ||
            !alciy_getNumber(&L->y, sph, "radius", &r, 0, BIG, 1) ||
            !alciy_checkKeys(&L->y, sph, sk)) {
            free(sel);
            return 0;
        }
    }
    if (idx) {
        if (idx->kind != ALCY_SEQ) {
            free(sel);
            return alciy_fail(&L->y, idx, "indices must be a list of vertex indices");
        }
        for (int i = 0; i < idx->n && cnt < mesh->nvert; i++) {
            double v;
            if (!alciy_number(&L->y, idx->item[i], &v)) {
                free(sel);
                return 0;
            }
            if (v < 0 || v >= mesh->nvert || v != floor(v)) {
                free(sel);
                return alciy_fail(&L->y, idx->item[i], "vertex index %g out of range [0, %d)", v,
                                  mesh->nvert);
            }
            sel[cnt++] = (int)v;
        }
    } else {
        for (int i = 0; i < mesh->nvert; i++) {
            double w[3];
            alci_bodyTransform(bd, mesh->vert + 3 * i, w);
            int in = all;
            if (box)
                in = w[0] >= lo[0] && w[0] <= hi[0] && w[1] >= lo[1] && w[1] <= hi[1] &&
                     w[2] >= lo[2] && w[2] <= hi[2];
            if (sph)
                in = (w[0] - c[0]) * (w[0] - c[0]) + (w[1] - c[1]) * (w[1] - c[1]) +
                         (w[2] - c[2]) * (w[2] - c[2]) <=
                     r * r;
            if (in) sel[cnt++] = i;
        }
    }
    if (cnt == 0) {
        free(sel);
        return alciy_fail(&L->y, n, "the selection contains no vertices");
    }
    *out = sel;
    *nout = cnt;
    return 1;
}

static int addDriver(Loader* L, alciYNode* at, alcDriverDef* dd, int body, int nv, const int* v) {
    if (alc_specAddDriver(L->spec, dd, body, nv, v, NULL) != ALC_OK) {
        return alciy_fail(&L->y, at, "%s", alc_specError(L->spec));
    }
    return 1;
}

// ---- bodies and obstacles -------------------------------------------------------------------

static int readBodyList(Loader* L, alciYNode* root, const char* section, int solid) {
    alciYNode* list = alciy_get(root, section);
    if (!list) return 1;
    if (list->kind != ALCY_SEQ)
        return alciy_fail(&L->y, list, "%s must be a list (lines starting with '- ')", section);
    static const char* const bodyKeys[] = {
        "name",     "type",   "mesh",     "material",         "position",
        "rotation", "scale",  "velocity", "angular_velocity", "array",
        "drivers",  "motion", NULL};
    static const char* const obstacleKeys[] = {"name",     "mesh",  "material", "position",
                                               "rotation", "scale", "motion",   NULL};
    for (int bi = 0; bi < list->n; bi++) {
        alciYNode* b = list->item[bi];
        if (!alciy_expectMap(&L->y, b, solid ? "a body" : "an obstacle")) return 0;
        const char* name = NULL;
        char autoname[64];
        snprintf(autoname, sizeof autoname, "%s%d", solid ? "body" : "obstacle", bi);
        if (!alciy_getString(&L->y, b, "name", &name, 0)) return 0;
        if (!name) name = autoname;
        alcBodyDef bd = alc_defaultBodyDef();
        bd.type = solid ? ALC_BODY_SOLID : ALC_BODY_OBSTACLE;
        int rigid = 0;
        if (solid) {
            const char* type = NULL;
            if (!alciy_getString(&L->y, b, "type", &type, 0)) return 0;
            if (type && !strcmp(type, "rigid")) {
                rigid = 1;
                bd.type = ALC_BODY_RIGID;
            } else if (type && strcmp(type, "solid")) {
                return alciy_fail(&L->y, alciy_get(b, "type"),
                                  "unknown body type '%s' (solid or rigid)", type);
            }
            if (rigid && alciy_get(b, "drivers")) {
                return alciy_fail(&L->y, alciy_get(b, "drivers"),
                                  "a rigid body moves as one: give it a `motion` (drivers move "
                                  "vertex sets of a solid)");
            }
        }
        const char* mat = NULL;
        if (!alciy_getString(&L->y, b, "material", &mat, 0)) return 0;
        if (mat && !findMaterial(L, alciy_get(b, "material"), mat, &bd.material)) return 0;
        alciYNode* scaleNode = alciy_get(b, "scale");
        if (!alciy_getVec(&L->y, b, "position", bd.position, 3, 0, 0) ||
            !readRotation(L, b, bd.rotation) ||
            (scaleNode && !alciy_getVec(&L->y, b, "scale", bd.scale, 3, 1, 0))) {
            return 0;
        }
        if (scaleNode && (bd.scale[0] == 0 || bd.scale[1] == 0 || bd.scale[2] == 0))
            return alciy_fail(&L->y, scaleNode, "scale must not be zero");
        if (solid && (!alciy_getVec(&L->y, b, "velocity", bd.velocity, 3, 0, 0) ||
                      !alciy_getVec(&L->y, b, "angular_velocity", bd.angularVelocity, 3, 0, 0))) {
            return 0;
        }
        int count[3] = {1, 1, 1};
        double spacing[3] = {0, 0, 0};
        alciYNode* arr = solid ? alciy_get(b, "array") : NULL;
        if (arr) {
            static const char* const ak[] = {"count", "spacing", NULL};
            if (!alciy_expectMap(&L->y, arr, "array") ||
                !alciy_getIntVec(&L->y, arr, "count", count, 3, 0, 1, 100000, 1) ||
                !alciy_getVec(&L->y, arr, "spacing", spacing, 3, 0, 1) ||
                !alciy_checkKeys(&L->y, arr, ak)) {
                return 0;
            }
        }
        alciMesh mesh;
        if (!readMesh(L, b, rigid ? 2 : solid, &mesh)) return 0;
        bd.nvert = mesh.nvert;
        bd.vert = mesh.vert;
        bd.ntet = mesh.ntet;
        bd.tet = mesh.tet;
        // a solid's (and a rigid body's) surface is the boundary of its tetrahedra; a rigid body
        // may be a closed surface alone
        int surf = !solid || (rigid && mesh.ntet == 0);
        bd.ntri = surf ? mesh.ntri : 0;
        bd.tri = surf ? mesh.tri : NULL;
        alciYNode* drivers = solid ? alciy_get(b, "drivers") : NULL;
        alciYNode* motion = alciy_get(b, "motion");
        if (!alciy_checkKeys(&L->y, b, solid ? bodyKeys : obstacleKeys)) {
            alci_mesh_free(&mesh);
            return 0;
        }
        if (drivers && drivers->kind != ALCY_SEQ) {
            alci_mesh_free(&mesh);
            return alciy_fail(&L->y, drivers, "drivers must be a list");
        }
        double base[3] = {bd.position[0], bd.position[1], bd.position[2]};
        int ncopy = count[0] * count[1] * count[2];
        int ok = 1;
        for (int c = 0; c < ncopy && ok; c++) {
            int ix = c % count[0], iy = (c / count[0]) % count[1], iz = c / (count[0] * count[1]);
            char nm[256];
            if (ncopy > 1)
                snprintf(nm, sizeof nm, "%s_%d", name, c);
            else
                snprintf(nm, sizeof nm, "%s", name);
            bd.name = nm;
            bd.position[0] = base[0] + ix * spacing[0];
            bd.position[1] = base[1] + iy * spacing[1];
            bd.position[2] = base[2] + iz * spacing[2];
            int bodyIndex = -1;
            if (alc_specAddBody(L->spec, &bd, &bodyIndex) != ALC_OK) {
                ok = alciy_fail(&L->y, b, "%s", alc_specError(L->spec));
                break;
            }
            if (!noteBodyPos(L, bodyIndex, b)) {
                ok = alciy_fail(&L->y, b, "out of memory");
                break;
            }
            if (motion) {
                alcDriverDef dd = alc_defaultDriverDef();
                char dn[300];
                snprintf(dn, sizeof dn, "%s-motion", nm);
                dd.name = dn;
                double* keys = NULL;
                ok = readMotion(L, motion, &dd, &keys);
                dd.keys = keys;
                if (ok && dd.type == ALC_DRIVER_ROTATE && !alciy_get(motion, "center")) {
                    // default centre: the body's position
                    for (int k = 0; k < 3; k++) dd.center[k] = bd.position[k];
                }
                if (ok) ok = addDriver(L, motion, &dd, bodyIndex, 0, NULL);
                free(keys);
            }
            for (int di = 0; ok && drivers && di < drivers->n; di++) {
                alciYNode* dnode = drivers->item[di];
                if (!alciy_expectMap(&L->y, dnode, "a driver")) {
                    ok = 0;
                    break;
                }
                static const char* const dk[] = {"name", "select", "motion", NULL};
                const char* dname = NULL;
                alciYNode* sel = alciy_get(dnode, "select");
                alciYNode* mot = alciy_get(dnode, "motion");
                if (!alciy_getString(&L->y, dnode, "name", &dname, 0) ||
                    !alciy_checkKeys(&L->y, dnode, dk)) {
                    ok = 0;
                    break;
                }
                if (!sel || !mot) {
                    ok = alciy_fail(&L->y, dnode, "a driver needs select: and motion:");
                    break;
                }
                char dn[300];
                snprintf(dn, sizeof dn, "%s-%s", nm, dname ? dname : "driver");
                if (!dname) snprintf(dn, sizeof dn, "%s-driver%d", nm, di);
                alcDriverDef dd = alc_defaultDriverDef();
                dd.name = dn;
                double* keys = NULL;
                int* verts = NULL;
                int nv = 0;
                ok = readMotion(L, mot, &dd, &keys) && readSelect(L, sel, &mesh, &bd, &verts, &nv);
                dd.keys = keys;
                if (ok && dd.type == ALC_DRIVER_ROTATE && !alciy_get(mot, "center")) {
                    // default centre: centroid of the selection
                    double cc[3] = {0, 0, 0};
                    for (int i = 0; i < nv; i++) {
                        double w[3];
                        alci_bodyTransform(&bd, mesh.vert + 3 * verts[i], w);
                        for (int k = 0; k < 3; k++) cc[k] += w[k] / nv;
                    }
                    for (int k = 0; k < 3; k++) dd.center[k] = cc[k];
                }
                if (ok) ok = addDriver(L, dnode, &dd, bodyIndex, nv, verts);
                free(keys);
                free(verts);
            }
        }
        alci_mesh_free(&mesh);
        if (!ok) return 0;
    }
    return 1;
}

// ---- entry point ----------------------------------------------------------------------------

static void freeLoader(Loader* L) {
    for (int i = 0; i < L->y.nparam; i++) free(L->y.paramName[i]);
    free(L->y.paramName);
    free(L->y.paramValue);
    for (int i = 0; i < L->nmat; i++) free(L->matName[i]);
    free(L->matName);
    free(L->bodyLine);
    alc_deleteSpec(L->spec);
}

alctStatus alc_loadScene(const char* path, const alcLoadDef* def, alcModel** model, char* err,
                         int errsz) {
    if (!path || !model) return ALC_ERR_INVALID_ARG;
    *model = NULL;
    if (def && def->internalValue != ALC_DEF_STAMP) {
        alci_setMessage(err, errsz, "load def not made by alc_defaultLoadDef");
        return ALC_ERR_BAD_DEF;
    }
    if (def && def->nparam > 0 && (!def->paramName || !def->paramValue)) {
        alci_setMessage(err, errsz, "load def: parameter arrays are NULL");
        return ALC_ERR_INVALID_ARG;
    }
    Loader L;
    memset(&L, 0, sizeof L);
    L.y.file = path;
    L.y.err = err;
    L.y.errsz = errsz;
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    snprintf(L.dir, sizeof L.dir, "%s", dirname(tmp));
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        alci_setMessage(err, errsz, "%s: cannot open the scene file", path);
        return ALC_ERR_IO;
    }
    alciYNode* root = alciy_load(&L.y, path);
    if (!root) return ALC_ERR_SCENE;
    alctStatus status = ALC_ERR_SCENE;
    if (alc_makeSpec(&L.spec) != ALC_OK) {
        alciy_free(root);
        alci_setMessage(err, errsz, "out of memory");
        return ALC_ERR_NOMEM;
    }
    int ok = alciy_expectMap(&L.y, root, "the scene");
    const char* name = NULL;
    if (ok) ok = alciy_getString(&L.y, root, "name", &name, 0);
    if (ok) {
        char stem[256];
        if (!name) {
            snprintf(tmp, sizeof tmp, "%s", path);
            snprintf(stem, sizeof stem, "%s", basename(tmp));
            char* dot = strrchr(stem, '.');
            if (dot) *dot = 0;
            name = stem;
        }
        alc_specSetNames(L.spec, name, NULL);
    }
    ok = ok && readParams(&L, root, def) && readRun(&L, root) && readPhysics(&L, root) &&
         readSolver(&L, root) && readMaterials(&L, root) && readFriction(&L, root) &&
         readBodyList(&L, root, "bodies", 1) && readBodyList(&L, root, "obstacles", 0) &&
         alciy_checkKeys(&L.y, root, kTopKeys);
    if (ok && !alciy_get(root, "bodies"))
        ok = alciy_fail(&L.y, root, "the scene has no bodies: list");
    if (ok) {
        char msg[ALC_ERRLEN];
        int bad[2];
        status = alci_compileSpec(L.spec, model, msg, sizeof msg, bad);
        if (status != ALC_OK && bad[0] >= 0 && bad[0] < L.nbodyPos && bad[1] >= 0 &&
            bad[1] < L.nbodyPos && L.bodyLine[2 * bad[0]] > 0) {
            // an initial intersection: point at the first body's entry, and name the other's
            alci_setMessage(err, errsz, "%s:%d:%d: %s (the second body is declared at line %d:%d)",
                            path, L.bodyLine[2 * bad[0]], L.bodyLine[2 * bad[0] + 1], msg,
                            L.bodyLine[2 * bad[1]], L.bodyLine[2 * bad[1] + 1]);
        } else if (status != ALC_OK) {
            alci_setMessage(err, errsz, "%s: %s", path, msg);
        }
    }
    alciy_free(root);
    freeLoader(&L);
    return ok ? status : ALC_ERR_SCENE;
}
