// alcData: allocation in one 64-byte aligned buffer (X-macro list), reset and state hash.
#include "alc_internal.h"
#include "hd/alcm_rigid.h"
#include "hd/alcm_rigid_energy.h"
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
    d->nrigid = m->nrigid;
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
    // rigid bodies: the pose one step earlier from the initial velocities, q_prev = q_0 - h v,
    // and R_prev from which the discrete rigid body (alcm_rigid_previous) arrives at R_0 with
    // the angular momentum I w of w (world axes), so that the steps start at them
    double h = m->opt.timestep;
    for (int r = 0; r < m->nrigid; r++) {
        const double* p0 = m->rigid_pose0 + 6 * r;
        const double* v0 = m->rigid_vel0 + 6 * r;
        memcpy(d->rigid_pose + 6 * r, p0, sizeof(double) * 6);
        alcM3 R0 = alcm_rodrigues(alcm_v3_load(p0));
        alcV3 I = alcm_v3_load(m->rigid_inertia + 3 * r);
        alcV3 wb = alcm_m3_mulv(alcm_m3_transpose(R0), alcm_v3_load(v0));  // body axes
        alcV3 Pi = alcm_v3(I.x * wb.x, I.y * wb.y, I.z * wb.z);
        alcM3 Rp = alcm_rigid_previous(R0, Pi, alcm_rigid_J(I), h);
        alcm_v3_store(d->rigid_posePrev + 6 * r, alcm_rotation_log(Rp));
        for (int k = 0; k < 3; k++) d->rigid_posePrev[6 * r + 3 + k] = p0[3 + k] - h * v0[3 + k];
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
    if (d->nrigid > 0) {
        h = fnv(h, d->rigid_pose, sizeof(double) * 6 * (size_t)d->nrigid);
        h = fnv(h, d->rigid_posePrev, sizeof(double) * 6 * (size_t)d->nrigid);
    }
    return h;
}
