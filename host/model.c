// Model allocation, copy, defaults and lookups. Every array lives in one 64-byte aligned
// buffer laid out by the X-macro list in model_xmacro.h.
#include "alc_internal.h"
#include "model_xmacro.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN64(n) (((n) + 63) & ~(size_t)63)

alcOption alc_defaultOption(void) {
    alcOption o;
    memset(&o, 0, sizeof o);
    o.timestep = 0.01;
    o.gravity[0] = 0;
    o.gravity[1] = -9.81;
    o.gravity[2] = 0;
    o.contact = ALC_CONTACT_AL;
    o.delta = 1e-3;
    o.epsilon = 1e-3;
    o.kmin = 0;
    o.decay = 0.9;
    o.removeBelow = 0.01;
    o.muScale = 0.1;
    o.mu = 0;
    o.cgTol = 1e-4;
    o.cgMaxIter = 0;
    o.maxIter = 300;
    o.maxNewton = 20;
    o.lsMaxIter = 40;
    o.stallIters = 50;
    o.splitDepth = 3;
    o.splitAfter = 100;
    o.stallAlpha = 1e-4;
    o.restartAlpha = -1;  // stallAlpha
    o.newtonFlat = 1e-4;
    o.ccdGapCap = 0;  // off: the ACCD rule
    o.ccdRescale = 0.1;
    o.ccdMinSep = 0;
    o.ccdMaxIter = 100000;
    o.inversion = ALC_INVERSION_AUTO;
    o.inversionFraction = 0.05;
    o.newtonTol = 0;
    o.frictionEpsV = 1e-3;
    o.frictionDefault = 0;
    o.ipcDhat = 0;
    o.ipcKappa = 0;
    o.ipcNewtonTol = 0;
    o.ipcToiTerm = 0;
    o.penaltyScale = 1;
    o.linearSolver = ALC_LINSOLVE_PCG;
    o.hessianReuse = 0;
    o.pairMuGrowth = 2;
    o.pairMuMax = 8;
    o.frictionSecant = 1;
    o.inversionBound = ALC_INVBOUND_END;
    o.eigenFilter = ALC_EIGEN_CLAMP;
    o.tetGuards = 0;
    o.mlcpPrecond = ALC_MLCP_FULL;
    o.mlcpGapTol = 1e-3;
    o.mlcpDuplicates = 0;
    o.mlcpThetaTol = 1.2;
    o.mlcpThetaRate = 0.01;
    o.dsK = 0;
    o.dsTol = 0;
    o.dsGmresMax = 20;
    o.dsMaxNewton = 100;
    o.dsPrecond = ALC_DS_PRECOND_AUTO;
    return o;
}

static size_t modelBytes(const alcModel* S) {
    size_t n = 0;
#define X(type, name, count) n += ALIGN64(sizeof(type) * (size_t)(count));
    ALC_MODEL_ARRAYS(X)
#undef X
    return n;
}

alcModel* alci_model_alloc(const alcModel* sizes) {
    alcModel* m = (alcModel*)calloc(1, sizeof(alcModel));
    if (!m) return NULL;
    *m = *sizes;
    m->nbuffer = modelBytes(m);
    m->buffer = NULL;
    if (posix_memalign(&m->buffer, 64, m->nbuffer ? m->nbuffer : 64) != 0) {
        free(m);
        return NULL;
    }
    memset(m->buffer, 0, m->nbuffer);
    char* p = (char*)m->buffer;
    const alcModel* S = m;
#define X(type, name, count)   \
    m->name = (type*)(void*)p; \
    p += ALIGN64(sizeof(type) * (size_t)(count));
    ALC_MODEL_ARRAYS(X)
#undef X
    return m;
}

void alc_deleteModel(alcModel* m) {
    if (!m) return;
    free(m->buffer);
    free(m);
}

alctStatus alc_copyModel(const alcModel* src, alcModel** dst) {
    if (!src || !dst) return ALC_ERR_INVALID_ARG;
    alcModel* m = alci_model_alloc(src);
    if (!m) return ALC_ERR_NOMEM;
    const alcModel* S = src;
#define X(type, name, count) \
    if ((count) > 0) memcpy(m->name, src->name, sizeof(type) * (size_t)(count));
    ALC_MODEL_ARRAYS(X)
#undef X
    *dst = m;
    return ALC_OK;
}

static const char* nameAt(const alcModel* m, int adr) {
    if (adr < 0 || adr >= m->nname) return "";
    return m->names + adr;
}

const char* alc_bodyName(const alcModel* m, int body) {
    if (!m || body < 0 || body >= m->nbody) return "";
    return nameAt(m, m->body_nameadr[body]);
}

int alc_bodyIndex(const alcModel* m, const char* name) {
    if (!m || !name) return -1;
    for (int i = 0; i < m->nbody; i++) {
        if (strcmp(nameAt(m, m->body_nameadr[i]), name) == 0) return i;
    }
    return -1;
}

int alc_driverIndex(const alcModel* m, const char* name) {
    if (!m || !name) return -1;
    for (int i = 0; i < m->ndriver; i++) {
        if (strcmp(nameAt(m, m->driver_nameadr[i]), name) == 0) return i;
    }
    return -1;
}

const char* alc_sceneName(const alcModel* m) {
    if (!m) return "";
    return nameAt(m, m->run.sceneNameAdr);
}

double alci_model_meanMass(const alcModel* m) {
    double mass = 0;
    int n = 0;
    for (int v = 0; v < m->nvert; v++) {
        if (m->vert_mass[v] > 0) {
            mass += m->vert_mass[v];
            n++;
        }
    }
    return n ? mass / n : 1;
}

double alci_model_meanEdge(const alcModel* m) {
    double sum = 0;
    for (int e = 0; e < m->nedge; e++) {
        const double* a = m->vert_x0 + 3 * m->edge_vert[2 * e];
        const double* b = m->vert_x0 + 3 * m->edge_vert[2 * e + 1];
        double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
        sum += sqrt(dx * dx + dy * dy + dz * dz);
    }
    return m->nedge ? sum / m->nedge : 0;
}
