// alcData: allocation in one 64-byte aligned buffer (X-macro list), reset and state hash.
#include "alc_internal.h"
#include "model_xmacro.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN64(n) (((n) + 63) & ~(size_t)63)

alctStatus alc_makeData(const alcModel* m, alcData** out) {
    if (!m || !out) return ALC_ERR_INVALID_ARG;
    *out = NULL;
    alcData* d = (alcData*)calloc(1, sizeof(alcData));
    if (!d) return ALC_ERR_NOMEM;
    d->nvert = m->nvert;
    d->nbody = m->nbody;
    d->ndriver = m->ndriver;
    size_t n = 0;
    const alcData* S = d;
#define X(type, name, count) n += ALIGN64(sizeof(type) * (size_t)(count));
    ALC_DATA_ARRAYS(X)
#undef X
    d->nbuffer = n;
    if (posix_memalign(&d->buffer, 64, n ? n : 64) != 0) {
        free(d);
        return ALC_ERR_NOMEM;
    }
    memset(d->buffer, 0, n);
    char* p = (char*)d->buffer;
#define X(type, name, count)   \
    d->name = (type*)(void*)p; \
    p += ALIGN64(sizeof(type) * (size_t)(count));
    ALC_DATA_ARRAYS(X)
#undef X
    alc_resetData(m, d);
    *out = d;
    return ALC_OK;
}

void alc_deleteData(alcData* d) {
    if (!d) return;
    free(d->buffer);
    free(d);
}

void alc_resetData(const alcModel* m, alcData* d) {
    if (!m || !d) return;
    d->time = 0;
    d->step = 0;
    memcpy(d->x, m->vert_x0, sizeof(double) * 3 * (size_t)m->nvert);
    memcpy(d->v, m->vert_v0, sizeof(double) * 3 * (size_t)m->nvert);
    // kinematic vertices start at rest with their drivers
    for (int v = 0; v < m->nvert; v++) {
        if (m->vert_driver[v] >= 0) d->v[3 * v] = d->v[3 * v + 1] = d->v[3 * v + 2] = 0;
    }
    memcpy(d->kin_target, m->vert_x0, sizeof(double) * 3 * (size_t)m->nvert);
    memset(d->driver_external, 0, sizeof(int) * (size_t)m->ndriver);
    memset(d->driver_released, 0, sizeof(int) * (size_t)m->ndriver);
    memset(d->body_force, 0, sizeof(double) * 3 * (size_t)m->nbody);
    memset(&d->stat, 0, sizeof d->stat);
    memset(&d->run, 0, sizeof d->run);
    memset(d->warning, 0, sizeof d->warning);
    d->maxuse_contacts = 0;
    d->maxuse_candidates = 0;
    d->maxuse_blocks = 0;
    d->maxuse_memory = 0;
}

/// FNV-1a over bytes.
static uint64_t fnv(uint64_t h, const void* p, size_t n) {
    const unsigned char* b = (const unsigned char*)p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t alc_stateHash(const alcData* d) {
    if (!d) return 0;
    uint64_t h = 1469598103934665603ull;
    h = fnv(h, d->x, sizeof(double) * 3 * (size_t)d->nvert);
    h = fnv(h, d->v, sizeof(double) * 3 * (size_t)d->nvert);
    h = fnv(h, &d->time, sizeof d->time);
    return h;
}
