// Checkpoints: everything alc_step carries from one step to the next, saved to memory or to a
// file and restored so that the run continues bit for bit as if it had never stopped.
//
// What a step reads besides the model and the options: the data (time, step, x, v, the
// kinematic targets and the drivers' external and released flags), the sim's Kahan
// compensation of the time, the energy check's copies of the last end state (so that its
// allowance and alcStepStat.energyGain continue), the contact report (alc_getContacts), and
// the backend's contact state: the active set in key order with multipliers, decay factors and
// last linearization (AL paper Eq. 10-14 and Alg. 3), and the mu and delta the next step lags
// friction with (Eq. 23), and under the mlcp-cr model the friction states of its contacts
// (alciMlcpFric, format 2), and under the penalty-ds model its pairs' attachments (alciDsPair,
// format 3). Lagged friction pairs are not saved: every step lags them again
// from the active set. Statistics and warning counts are saved so that the run's totals
// continue.
//
// Layout (little-endian, as the state files of state_io.h):
//   char[8]  "ALCCKPT1"
//   uint32   format version (6; 5, with the active set stored as it is and the report's XOR
//            row by row, 4, with x, v and the report stored as they are, 3, with the
//            energy record whole and the kinematic targets as they are, 2, without the
//            penalty-ds pairs either, and 1, without the mlcp-cr friction states either, are
//            read too)
//   uint32   flags: bit 0 = payload zlib-compressed (files), else raw (memory)
//   uint32   version of the library that wrote it (ALC_VERSION_HEADER encoding)
//   uint32   model fingerprint: CRC-32 over the model's sizes and arrays (not its options)
//   uint64   payload bytes (uncompressed)
//   uint64   stored bytes s
//   s bytes  payload (below)
//   uint32   CRC-32 of all preceding bytes
// Payload: the sizes of the structs stored as bytes (alcStepStat, alcRunStat, alcWarningStat,
// alcContact, alcmPair), nvert, nbody, ndriver; then the data, the sim's fields and the
// backend's contact state in the order of putState (format 2 ends with the size of
// alciMlcpFric, their count and the states; format 3 then with the size of alciDsPair, their
// count and the pairs). Format 4 stores the kinematic targets as their bits XOR those of the
// rest positions (zero words for every vertex no driver moves, which zlib all but removes),
// and of the energy check's buffer only what a step reads of it (ALCI_EBUF_* in
// alc_internal.h): a flag that its last end state is the data's x and v, those two only where
// it is not, and the kinematic forces there; the rest is written by the next step before it is
// read. IPC's squeeze-out (45,239 vertices) at step 50, 19,632 contacts: 9.2 MB in format 3,
// 5.4 MB in format 4 (the rest is mostly the active set and the contact report). Format 5
// stores x and v (and the energy record's vectors) as byte planes (putColumns), puts the contact
// report after the active set and stores it XOR the report that alci_contactOfPair predicts from
// the pairs and x (predictContacts): exact whatever the report holds, and nearly all zero bytes
// for the AL model's report. zlib level 6 (format 4 and earlier: 1). IPC's twisting rods
// (53,332 vertices) at step 331, 26,817 contacts: 6.66 MB in format 4, 4.14 MB in format 5.
// Format 6 stores the active set XOR the pairs that the model and x predict from their keys
// (encodePairs: stencils, distances and gradients), and the set and the report byte column by
// byte column (putColumns).
// Structs are stored as their bytes: a
// checkpoint is read by a library with the same struct layouts (the reader compares the sizes
// and refuses others), and continues bit for bit on the same build and backend.
#include "alc_internal.h"
#include "backend.h"
#include "contact_report.h"
#include "hd/alcm_distance.h"
#include "hd/alcm_elastic.h"
#include "hd/alcm_pair.h"
#include "io_atomic.h"
#include "model_xmacro.h"
#include "state_io.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CKPT_MAGIC      "ALCCKPT1"
#define CKPT_FORMAT     6u
#define CKPT_HEADER     40  // magic 8, four uint32, two uint64
#define CKPT_COMPRESSED 1u

_Static_assert(sizeof(alcContact) % 8 == 0, "format 5 XORs the contact report in 8-byte words");

// ---- a byte writer that can also only count -----------------------------------------------

typedef struct {
    unsigned char* p;  // NULL: count only
    size_t n;          // bytes written (or counted)
} Out;

static void put(Out* o, const void* src, size_t n) {
    if (o->p && n) memcpy(o->p + o->n, src, n);
    o->n += n;
}

static void putI32(Out* o, int32_t v) {
    put(o, &v, 4);
}

/// n doubles stored as their bits XOR those of ref (format 4): entries equal to ref become zero
/// words, and the decoding (getXor) is exact whatever the values.
static void putXor(Out* o, const double* v, const double* ref, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t a, b;
        memcpy(&a, v + i, 8);
        memcpy(&b, ref + i, 8);
        a ^= b;
        put(o, &a, 8);
    }
}

/// n rows of rowBytes bytes each as rowBytes byte columns: byte 0 of every row, then byte 1,
/// and so on. For doubles (rowBytes 8: byte planes, format 5) the exponent and leading mantissa
/// bytes of neighbouring values, which mostly agree, stand together for zlib (IPC's rods, x and
/// v: 2.37 MB deflated as they are, 2.08 as planes); for structs (format 6: the active set and
/// the contact report, each XOR its prediction) every member's bytes do, and the members that
/// the prediction got right are long runs of zero bytes.
static void putColumns(Out* o, const void* rows, size_t rowBytes, size_t n) {
    if (o->p) {
        const unsigned char* b = (const unsigned char*)rows;
        unsigned char* dst = o->p + o->n;
        for (size_t k = 0; k < rowBytes; k++) {
            for (size_t i = 0; i < n; i++) dst[k * n + i] = b[rowBytes * i + k];
        }
    }
    o->n += rowBytes * n;
}

/// dst ^= src over n bytes (n a multiple of 8; both 8-byte aligned or not: memcpy'd words).
static void xorWords(void* dst, const void* src, size_t n) {
    unsigned char* d = (unsigned char*)dst;
    const unsigned char* s = (const unsigned char*)src;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t a, b;
        memcpy(&a, d + i, 8);
        memcpy(&b, s + i, 8);
        a ^= b;
        memcpy(d + i, &a, 8);
    }
}

/// The contact report as alci_contactOfPair predicts it from the active set and the state x:
/// entry i from the i-th pair that is not a guard, zero past them. Format 5 stores the report
/// XOR this prediction, which is exact whatever the report holds and nearly all zero bytes where
/// the report is the AL model's of that state (IPC's rods at step 331: 26,817 contacts, 1.97 MB
/// deflated as they are, 35 kB as the XOR: their normal and friction forces).
static void predictContacts(const alcModel* m, const double* x, const alcmPair* pairs, int npair,
                            alcContact* pred, int ncontact) {
    int p = 0;
    for (int i = 0; i < ncontact; i++) {
        while (p < npair && pairs[p].type == ALC_PAIR_TETGUARD) p++;
        if (p < npair) {
            alci_contactOfPair(m, x, &pairs[p++], &pred[i]);
        } else {
            memset(&pred[i], 0, sizeof pred[i]);
        }
    }
}

/// The active pair that key names, as far as the model and the state x determine it: its type
/// and stencil (from the key, as the CCD builds them: host/ref/ccd_ref.c, cuda/ccd_narrow.cu;
/// a guard's from its tetrahedron), its distance and gradient at x (both backends linearize
/// every pair at each accepted iterate, the last one included, so that on the same build these
/// are the saved ones bit for bit: alcr_contact_linearize, cuda/active_set.cu), and
/// gamma 1 (a new pair's decay factor); every other member zero. A key that names no pair of
/// the model (a corrupted file: the loader refuses it after decoding) predicts only the key.
/// @param delta  the contact offset a guard's linearization subtracts (lastDelta)
static void predictPair(const alcModel* m, const double* x, double delta, long long key,
                        alcmPair* P) {
    memset(P, 0, sizeof *P);
    P->key = key;
    int v[4];
    long long t = -1;
    if (key < 0) {
        // a guard (the difference taken only for a negative key: no overflow)
        t = key - ALC_PAIR_GUARD_KEY(0);
        if (t >= m->ntet) return;
        P->type = ALC_PAIR_TETGUARD;
        for (int a = 0; a < 4; a++) v[a] = m->tet_vert[4 * t + a];
    } else {
        int type = (int)(key >> 62);
        long long a = (key >> 31) & 0x7fffffff, b = key & 0x7fffffff;
        if (type == ALC_PAIR_PT && a < m->nsvert && b < m->ntri) {
            v[0] = m->svert[a];
            for (int k = 0; k < 3; k++) v[1 + k] = m->tri_vert[3 * b + k];
        } else if (type == ALC_PAIR_EE && a < m->nedge && b < m->nedge) {
            for (int k = 0; k < 2; k++) {
                v[k] = m->edge_vert[2 * a + k];
                v[2 + k] = m->edge_vert[2 * b + k];
            }
        } else {
            return;
        }
        P->type = type;
    }
    memcpy(P->v, v, sizeof P->v);
    P->gamma = 1;
    alcV3 s[4];
    for (int a = 0; a < 4; a++) s[a] = alcm_v3_load(x + 3 * v[a]);
    if (t >= 0) {
        P->d = alcm_tet_guardLinearize(s, m->tet_vol[t], m->opt.inversionFraction, delta, P->g);
    } else {
        P->d = P->type == ALC_PAIR_PT ? alcm_pt_distance(s, P->g) : alcm_ee_distance(s, P->g);
    }
}

/// Format 6 stores the active set XOR its prediction, pair by pair: predictPair of the pair's
/// own key, with the key itself predicted by the previous pair's (the set is sorted: the XOR of
/// two neighbouring keys has its high bytes zero). Exact whatever the pairs hold; for the AL
/// model's set, the types, stencils, distances and gradients (124 of a pair's 176 bytes) become
/// zero, and gamma where it is 1.
/// IPC's rods at step 578 (38,673 contacts): 5.39 MB in format 5, 2.88 MB in format 6.
/// Encodes in place, last pair first (each prediction reads the previous pair's key as saved).
static void encodePairs(const alcModel* m, const double* x, double delta, alcmPair* pairs,
                        int npair) {
    for (int p = npair - 1; p >= 0; p--) {
        alcmPair pred;
        predictPair(m, x, delta, pairs[p].key, &pred);
        pred.key = p > 0 ? pairs[p - 1].key : 0;
        xorWords(&pairs[p], &pred, sizeof pred);
    }
}

/// The inverse of encodePairs, first pair first.
static void decodePairs(const alcModel* m, const double* x, double delta, alcmPair* pairs,
                        int npair) {
    long long prev = 0;
    for (int p = 0; p < npair; p++) {
        alcmPair pred;
        predictPair(m, x, delta, pairs[p].key ^ prev, &pred);
        pred.key = prev;
        xorWords(&pairs[p], &pred, sizeof pred);
        prev = pairs[p].key;
    }
}

typedef struct {
    const unsigned char* p;
    size_t n, at;
    int bad;  // ran past the end
} In;

static void get(In* in, void* dst, size_t n) {
    if (in->bad || n > in->n - in->at) {
        in->bad = 1;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, in->p + in->at, n);
    in->at += n;
}

/// The inverse of putXor.
static void getXor(In* in, double* v, const double* ref, size_t n) {
    get(in, v, sizeof(double) * n);
    xorWords(v, ref, sizeof(double) * n);
}

/// The inverse of putColumns.
static void getColumns(In* in, void* rows, size_t rowBytes, size_t n) {
    if (in->bad || n > (in->n - in->at) / rowBytes) {
        in->bad = 1;
        memset(rows, 0, rowBytes * n);
        return;
    }
    unsigned char* b = (unsigned char*)rows;
    const unsigned char* src = in->p + in->at;
    for (size_t k = 0; k < rowBytes; k++) {
        for (size_t i = 0; i < n; i++) b[rowBytes * i + k] = src[k * n + i];
    }
    in->at += rowBytes * n;
}

static int32_t getI32(In* in) {
    int32_t v;
    get(in, &v, 4);
    return v;
}

/// A counted array of the payload, malloc'ed: NULL for a count of 0, for one the rest of the
/// payload cannot hold (in->bad set), and out of memory (*nomem set). columns: stored by
/// putColumns (else as it is).
static void* getArray(In* in, int32_t count, size_t elem, int* nomem, int columns) {
    if (in->bad) return NULL;
    if (count < 0 || (size_t)count > (in->n - in->at) / elem) {
        in->bad = 1;
        return NULL;
    }
    if (count == 0) return NULL;
    void* p = malloc(elem * (size_t)count);
    if (!p) {
        *nomem = 1;
        return NULL;
    }
    if (columns) {
        getColumns(in, p, elem, (size_t)count);
    } else {
        get(in, p, elem * (size_t)count);
    }
    return p;
}

// ---- the model's fingerprint --------------------------------------------------------------

static uint32_t fingerprint(const alcModel* m) {
    const alcModel* S = m;
    int32_t sizes[] = {m->nvert,  m->ntet,  m->ntri, m->nedge,
                       m->nsvert, m->nbody, m->nmat, m->ndriver};
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, (const Bytef*)sizes, sizeof sizes);
#define ALCI_CKPT_CRC(type, name, count)                                                        \
    if (m->name && (count) > 0) {                                                               \
        crc = alci_state_crc32((const unsigned char*)m->name, sizeof(type) * (size_t)(count)) ^ \
              (crc * 31u);                                                                      \
    }
    ALC_MODEL_ARRAYS(ALCI_CKPT_CRC)
#undef ALCI_CKPT_CRC
    (void)S;
    return (uint32_t)crc;
}

// ---- the payload --------------------------------------------------------------------------

static void putSizes(Out* o, const alcModel* m) {
    putI32(o, (int32_t)sizeof(alcStepStat));
    putI32(o, (int32_t)sizeof(alcRunStat));
    putI32(o, (int32_t)sizeof(alcWarningStat));
    putI32(o, (int32_t)sizeof(alcContact));
    putI32(o, (int32_t)sizeof(alcmPair));
    putI32(o, m->nvert);
    putI32(o, m->nbody);
    putI32(o, m->ndriver);
}

/// Write (or count, when o->p is NULL) the payload. When writing, pairs holds the npair pairs as
/// encodePairs leaves them, and report the contact report XOR predictContacts (sim->ncontact
/// entries).
static void putState(Out* o, const alcSim* sim, const alcData* d, const alcmPair* pairs, int npair,
                     const alcContact* report, double lastMu, double lastDelta,
                     const alciMlcpFric* fric, int nfric, const alciDsPair* ds, int nds) {
    const alcModel* m = sim->m;
    size_t n3 = 3 * (size_t)m->nvert;
    putSizes(o, m);
    // the data
    put(o, &d->time, sizeof(double));
    int64_t step = d->step;
    put(o, &step, 8);
    putColumns(o, d->x, sizeof(double), n3);
    putColumns(o, d->v, sizeof(double), n3);
    putXor(o, d->kin_target, m->vert_x0, n3);
    put(o, d->rigid_pose, sizeof(double) * 6 * (size_t)m->nrigid);
    put(o, d->rigid_posePrev, sizeof(double) * 6 * (size_t)m->nrigid);
    put(o, d->driver_external, sizeof(int) * (size_t)m->ndriver);
    put(o, d->driver_released, sizeof(int) * (size_t)m->ndriver);
    put(o, d->body_force, sizeof(double) * 3 * (size_t)m->nbody);
    put(o, &d->stat, sizeof d->stat);
    put(o, &d->run, sizeof d->run);
    put(o, d->warning, sizeof d->warning);
    putI32(o, d->maxuse_contacts);
    putI32(o, d->maxuse_candidates);
    int64_t blocks = d->maxuse_blocks;
    uint64_t mem = d->maxuse_memory;
    put(o, &blocks, 8);
    put(o, &mem, 8);
    // the sim: time compensation, logged warnings, the energy check, the contact report
    put(o, &sim->timeComp, sizeof(double));
    put(o, &sim->timeLast, sizeof(double));
    put(o, sim->warnedOnce, sizeof sim->warnedOnce);
    int hasBuf = sim->energyBuf != NULL;
    putI32(o, sim->energyInit);
    putI32(o, hasBuf);
    put(o, &sim->energyBefore, sizeof(double));
    put(o, &sim->energyLast, sizeof(double));
    put(o, &sim->energyBudget, sizeof(double));
    put(o, sim->energyPartsBefore, sizeof sim->energyPartsBefore);
    put(o, sim->energyPartsLast, sizeof sim->energyPartsLast);
    if (hasBuf) {
        // the energy check's record of the last end state (format 4: its parts that a step reads)
        size_t nv = (size_t)m->nvert;
        const double* xl = sim->energyBuf + ALCI_EBUF_XL * nv;
        const double* vl = sim->energyBuf + ALCI_EBUF_VL * nv;
        int32_t same =
            !memcmp(xl, d->x, sizeof(double) * n3) && !memcmp(vl, d->v, sizeof(double) * n3);
        putI32(o, same);
        if (!same) {
            putColumns(o, xl, sizeof(double), n3);
            putColumns(o, vl, sizeof(double), n3);
        }
        putColumns(o, sim->energyBuf + ALCI_EBUF_FL * nv, sizeof(double), nv);
    }
    putI32(o, sim->ipcChecked);
    // the backend's contact state, then the contact report predicted from it (format 5)
    put(o, &lastMu, sizeof(double));
    put(o, &lastDelta, sizeof(double));
    putI32(o, npair);
    putColumns(o, pairs, sizeof(alcmPair), (size_t)npair);
    putI32(o, sim->ncontact);
    putColumns(o, report, sizeof(alcContact), (size_t)sim->ncontact);
    putI32(o, (int32_t)sizeof(alciMlcpFric));
    putI32(o, nfric);
    put(o, fric, sizeof(alciMlcpFric) * (size_t)nfric);
    putI32(o, (int32_t)sizeof(alciDsPair));
    putI32(o, nds);
    put(o, ds, sizeof(alciDsPair) * (size_t)nds);
}

/// The backend's penalty-ds pairs (malloc'ed; NULL and 0 where it has none).
static alctStatus dsCarryGet(alcSim* sim, alciDsPair** ds, int* n) {
    const alciBackendOps* ops = sim->be.ops;
    *ds = NULL;
    *n = 0;
    if (!ops->getDsCarry) return ALC_OK;
    alctStatus st = ops->getDsCarry(sim->be.state, NULL, 0, n);
    if (st != ALC_OK || *n == 0) return st;
    *ds = (alciDsPair*)malloc(sizeof(alciDsPair) * (size_t)*n);
    if (!*ds) return ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory for %d penalty-ds pairs", *n);
    st = ops->getDsCarry(sim->be.state, *ds, *n, n);
    if (st != ALC_OK) {
        free(*ds);
        *ds = NULL;
    }
    return st;
}

/// The backend's mlcp-cr friction states (malloc'ed; NULL and 0 where it has none).
static alctStatus mlcpCarryGet(alcSim* sim, alciMlcpFric** fric, int* n) {
    const alciBackendOps* ops = sim->be.ops;
    *fric = NULL;
    *n = 0;
    if (!ops->getMlcpCarry) return ALC_OK;
    alctStatus st = ops->getMlcpCarry(sim->be.state, NULL, 0, n);
    if (st != ALC_OK || *n == 0) return st;
    *fric = (alciMlcpFric*)malloc(sizeof(alciMlcpFric) * (size_t)*n);
    if (!*fric) return ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory for %d friction states", *n);
    st = ops->getMlcpCarry(sim->be.state, *fric, *n, n);
    if (st != ALC_OK) {
        free(*fric);
        *fric = NULL;
    }
    return st;
}

static int checkSim(alcSim* sim, const alcData* d) {
    return sim && d && d->nvert == sim->m->nvert && d->nbody == sim->m->nbody &&
           d->ndriver == sim->m->ndriver;
}

alctStatus alci_carry_get(alcSim* sim, alcmPair** pairs, int* npair, double* lastMu,
                          double* lastDelta) {
    const alciBackendOps* ops = sim->be.ops;
    *pairs = NULL;
    alctStatus st = ops->getCarry(sim->be.state, NULL, 0, npair, lastMu, lastDelta);
    if (st != ALC_OK || *npair == 0) return st;
    *pairs = (alcmPair*)malloc(sizeof(alcmPair) * (size_t)*npair);
    if (!*pairs) return ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory for %d pairs", *npair);
    st = ops->getCarry(sim->be.state, *pairs, *npair, npair, lastMu, lastDelta);
    if (st != ALC_OK) {
        free(*pairs);
        *pairs = NULL;
    }
    return st;
}

static void putHeader(unsigned char* p, uint32_t flags, uint32_t fp, uint64_t payload,
                      uint64_t stored) {
    memcpy(p, CKPT_MAGIC, 8);
    uint32_t u[4] = {CKPT_FORMAT, flags, (uint32_t)ALC_VERSION_HEADER, fp};
    memcpy(p + 8, u, 16);
    memcpy(p + 24, &payload, 8);
    memcpy(p + 32, &stored, 8);
}

// ---- saving -------------------------------------------------------------------------------

/// The raw (memory) checkpoint, malloc'ed, or its size only when out is NULL.
static alctStatus save(alcSim* sim, const alcData* d, int compress, unsigned char** out,
                       size_t* bytes) {
    alcmPair* pairs = NULL;
    int npair = 0;
    double lastMu = 0, lastDelta = 0;
    alctStatus st = alci_carry_get(sim, &pairs, &npair, &lastMu, &lastDelta);
    if (st != ALC_OK) return st;
    alciMlcpFric* fric = NULL;
    int nfric = 0;
    st = mlcpCarryGet(sim, &fric, &nfric);
    alciDsPair* ds = NULL;
    int nds = 0;
    if (st == ALC_OK) st = dsCarryGet(sim, &ds, &nds);
    if (st != ALC_OK) {
        free(pairs);
        free(fric);
        return st;
    }
    Out count = {NULL, 0};
    putState(&count, sim, d, pairs, npair, NULL, lastMu, lastDelta, fric, nfric, ds, nds);
    size_t payload = count.n;
    if (!out) {
        free(pairs);
        free(fric);
        free(ds);
        *bytes = CKPT_HEADER + payload + 4;
        return ALC_OK;
    }
    size_t nrep = sizeof(alcContact) * (size_t)sim->ncontact;
    unsigned char* raw = (unsigned char*)malloc(payload ? payload : 1);
    alcContact* report = (alcContact*)malloc(nrep ? nrep : 1);
    if (!raw || !report) {
        free(pairs);
        free(fric);
        free(ds);
        free(raw);
        free(report);
        return ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory for a %zu-byte checkpoint", payload);
    }
    predictContacts(sim->m, d->x, pairs, npair, report, sim->ncontact);
    if (nrep) xorWords(report, sim->contacts, nrep);
    encodePairs(sim->m, d->x, lastDelta, pairs, npair);
    Out w = {raw, 0};
    putState(&w, sim, d, pairs, npair, report, lastMu, lastDelta, fric, nfric, ds, nds);
    free(pairs);
    free(report);
    free(fric);
    free(ds);
    size_t stored = payload;
    unsigned char* body = raw;
    if (compress) {
        uLongf zn = compressBound((uLong)payload);
        body = (unsigned char*)malloc(zn);
        if (!body || compress2(body, &zn, raw, (uLong)payload, 6) != Z_OK) {
            free(body);
            free(raw);
            return ALC_ERROR(sim, ALC_ERR_NOMEM, "cannot compress a %zu-byte checkpoint", payload);
        }
        stored = zn;
    }
    size_t n = CKPT_HEADER + stored + 4;
    unsigned char* buf = (unsigned char*)malloc(n);
    if (!buf) {
        if (body != raw) free(body);
        free(raw);
        return ALC_ERROR(sim, ALC_ERR_NOMEM, "out of memory for a %zu-byte checkpoint", n);
    }
    putHeader(buf, compress ? CKPT_COMPRESSED : 0, fingerprint(sim->m), payload, stored);
    memcpy(buf + CKPT_HEADER, body, stored);
    uint32_t crc = alci_state_crc32(buf, n - 4);
    memcpy(buf + n - 4, &crc, 4);
    if (body != raw) free(body);
    free(raw);
    *out = buf;
    *bytes = n;
    return ALC_OK;
}

ALC_API alctStatus alc_checkpointSize(alcSim* sim, const alcData* d, size_t* bytes) {
    if (!sim || !bytes) return ALC_ERR_INVALID_ARG;
    if (!checkSim(sim, d)) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "data of another model (or NULL)");
    }
    return save(sim, d, 0, NULL, bytes);
}

ALC_API alctStatus alc_saveCheckpoint(alcSim* sim, const alcData* d, void* buf, size_t cap,
                                      size_t* bytes) {
    if (!sim || !bytes) return ALC_ERR_INVALID_ARG;
    if (!checkSim(sim, d) || !buf) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "NULL buffer, or data of another model");
    }
    unsigned char* raw = NULL;
    size_t n = 0;
    alctStatus st = save(sim, d, 0, &raw, &n);
    if (st != ALC_OK) return st;
    *bytes = n;
    if (n > cap) {
        free(raw);
        return ALC_ERROR(sim, ALC_ERR_CAPACITY,
                         "the checkpoint needs %zu bytes, the buffer has %zu", n, cap);
    }
    memcpy(buf, raw, n);
    free(raw);
    return ALC_OK;
}

ALC_API alctStatus alc_saveCheckpointFile(alcSim* sim, const alcData* d, const char* path) {
    if (!sim) return ALC_ERR_INVALID_ARG;
    if (!checkSim(sim, d) || !path || !*path) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "NULL or empty path, or data of another model");
    }
    unsigned char* raw = NULL;
    size_t n = 0;
    alctStatus st = save(sim, d, 1, &raw, &n);
    if (st != ALC_OK) return st;
    char err[ALC_ERRLEN] = "";
    alciFile f;
    st = alci_file_open(&f, path, err, sizeof err);
    if (st == ALC_OK) {
        alci_file_write(&f, raw, n);
        st = alci_file_commit(&f, err, sizeof err);
    }
    free(raw);
    return st == ALC_OK ? ALC_OK : ALC_ERROR(sim, st, "%s", err);
}

// ---- restoring ----------------------------------------------------------------------------

static alctStatus load(alcSim* sim, alcData* d, const unsigned char* buf, size_t n,
                       const char* what) {
    const alcModel* m = sim->m;
    if (n < CKPT_HEADER + 4 || memcmp(buf, CKPT_MAGIC, 8) != 0) {
        return ALC_ERROR(sim, ALC_ERR_IO, "%s: not an alcove checkpoint", what);
    }
    uint32_t crc;
    memcpy(&crc, buf + n - 4, 4);
    if (crc != alci_state_crc32(buf, n - 4)) {
        return ALC_ERROR(sim, ALC_ERR_IO, "%s: CRC mismatch (truncated or corrupted)", what);
    }
    uint32_t u[4];
    uint64_t payload, stored;
    memcpy(u, buf + 8, 16);
    memcpy(&payload, buf + 24, 8);
    memcpy(&stored, buf + 32, 8);
    if (u[0] < 1u || u[0] > CKPT_FORMAT) {
        return ALC_ERROR(sim, ALC_ERR_IO, "%s: checkpoint format %u, this library reads %u", what,
                         u[0], CKPT_FORMAT);
    }
    if (u[3] != fingerprint(m)) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG,
                         "%s: saved from another model: its meshes, materials or drivers "
                         "differ from this one's (a scene edited since, or one that another "
                         "build of alcove compiles differently; run it again from its start)",
                         what);
    }
    if (stored != n - CKPT_HEADER - 4 || payload > ((uint64_t)1 << 40) ||
        (!(u[1] & CKPT_COMPRESSED) && payload != stored)) {
        return ALC_ERROR(sim, ALC_ERR_IO, "%s: inconsistent sizes in the header", what);
    }
    const unsigned char* body = buf + CKPT_HEADER;
    unsigned char* inflated = NULL;
    if (u[1] & CKPT_COMPRESSED) {
        inflated = (unsigned char*)malloc(payload ? (size_t)payload : 1);
        uLongf zn = (uLongf)payload;
        if (!inflated) {
            return ALC_ERROR(sim, ALC_ERR_NOMEM, "%s: out of memory for %llu bytes", what,
                             (unsigned long long)payload);
        }
        if (uncompress(inflated, &zn, body, (uLong)stored) != Z_OK || zn != payload) {
            free(inflated);
            return ALC_ERROR(sim, ALC_ERR_IO, "%s: the payload does not inflate", what);
        }
        body = inflated;
    }
    In in = {body, (size_t)payload, 0, 0};
    int32_t sz[8];
    for (int i = 0; i < 8; i++) sz[i] = getI32(&in);
    alctStatus st = ALC_OK;
    if (sz[0] != (int32_t)sizeof(alcStepStat) || sz[1] != (int32_t)sizeof(alcRunStat) ||
        sz[2] != (int32_t)sizeof(alcWarningStat) || sz[3] != (int32_t)sizeof(alcContact) ||
        sz[4] != (int32_t)sizeof(alcmPair)) {
        st = ALC_ERROR(sim, ALC_ERR_IO,
                       "%s: written by alcove %u.%u.%u with other struct layouts; this is %s", what,
                       u[2] / 10000, u[2] / 100 % 100, u[2] % 100, alcu_versionString());
    } else if (sz[5] != m->nvert || sz[6] != m->nbody || sz[7] != m->ndriver) {
        st = ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "%s: saved from another model", what);
    }
    // read into a scratch data first: d is untouched unless the whole checkpoint is valid
    alcData* t = NULL;
    alcContact* contacts = NULL;
    alcmPair* pairs = NULL;
    double* ebuf = NULL;
    alciMlcpFric* fric = NULL;
    alciDsPair* ds = NULL;
    int32_t nds = 0;
    int32_t ncontact = 0, npair = 0, energyInit = 0, hasBuf = 0, ipcChecked = 0, nfric = 0;
    double timeComp = 0, timeLast = 0, eb = 0, el = 0, ebud = 0, lastMu = 0, lastDelta = 0;
    double pb[3], pl[3];
    int warned[ALC_NWARNING];
    if (st == ALC_OK) st = alc_makeData(m, &t);
    if (st == ALC_OK) {
        size_t n3 = 3 * (size_t)m->nvert;
        get(&in, &t->time, sizeof(double));
        int64_t step;
        get(&in, &step, 8);
        t->step = (long)step;
        if (u[0] >= 5u) {
            getColumns(&in, t->x, sizeof(double), n3);
            getColumns(&in, t->v, sizeof(double), n3);
        } else {
            get(&in, t->x, sizeof(double) * n3);
            get(&in, t->v, sizeof(double) * n3);
        }
        if (u[0] >= 4u) {
            getXor(&in, t->kin_target, m->vert_x0, n3);
        } else {
            get(&in, t->kin_target, sizeof(double) * n3);
        }
        get(&in, t->rigid_pose, sizeof(double) * 6 * (size_t)m->nrigid);
        get(&in, t->rigid_posePrev, sizeof(double) * 6 * (size_t)m->nrigid);
        get(&in, t->driver_external, sizeof(int) * (size_t)m->ndriver);
        get(&in, t->driver_released, sizeof(int) * (size_t)m->ndriver);
        get(&in, t->body_force, sizeof(double) * 3 * (size_t)m->nbody);
        get(&in, &t->stat, sizeof t->stat);
        get(&in, &t->run, sizeof t->run);
        get(&in, t->warning, sizeof t->warning);
        t->maxuse_contacts = getI32(&in);
        t->maxuse_candidates = getI32(&in);
        int64_t blocks;
        uint64_t mem;
        get(&in, &blocks, 8);
        get(&in, &mem, 8);
        t->maxuse_blocks = (long)blocks;
        t->maxuse_memory = (size_t)mem;
        get(&in, &timeComp, sizeof(double));
        get(&in, &timeLast, sizeof(double));
        get(&in, warned, sizeof warned);
        energyInit = getI32(&in);
        hasBuf = getI32(&in);
        get(&in, &eb, sizeof(double));
        get(&in, &el, sizeof(double));
        get(&in, &ebud, sizeof(double));
        get(&in, pb, sizeof pb);
        get(&in, pl, sizeof pl);
        size_t nbuf = sizeof(double) * ALCI_ENERGY_BUFN * (size_t)m->nvert;
        if (hasBuf && !in.bad) {
            ebuf = (double*)calloc(1, nbuf ? nbuf : 1);
            if (!ebuf) st = ALC_ERROR(sim, ALC_ERR_NOMEM, "%s: out of memory", what);
            size_t nv = (size_t)m->nvert;
            if (ebuf && u[0] >= 4u) {
                // the parts a step reads; the others stay zero until the next step writes them
                int32_t same = getI32(&in);
                double* xl = ebuf + ALCI_EBUF_XL * nv;
                double* vl = ebuf + ALCI_EBUF_VL * nv;
                if (same == 1) {
                    memcpy(xl, t->x, sizeof(double) * n3);
                    memcpy(vl, t->v, sizeof(double) * n3);
                } else if (same == 0 && u[0] >= 5u) {
                    getColumns(&in, xl, sizeof(double), n3);
                    getColumns(&in, vl, sizeof(double), n3);
                } else if (same == 0) {
                    get(&in, xl, sizeof(double) * n3);
                    get(&in, vl, sizeof(double) * n3);
                } else if (!in.bad) {
                    st = ALC_ERROR(sim, ALC_ERR_IO, "%s: the energy record's flag is %d", what,
                                   (int)same);
                }
                if (u[0] >= 5u) {
                    getColumns(&in, ebuf + ALCI_EBUF_FL * nv, sizeof(double), nv);
                } else {
                    get(&in, ebuf + ALCI_EBUF_FL * nv, sizeof(double) * nv);
                }
            } else if (ebuf) {
                get(&in, ebuf, nbuf);
            }
        }
        ipcChecked = getI32(&in);
        int nomem = 0;
        if (u[0] < 5u) {
            ncontact = getI32(&in);
            contacts = (alcContact*)getArray(&in, ncontact, sizeof(alcContact), &nomem, 0);
        }
        get(&in, &lastMu, sizeof(double));
        get(&in, &lastDelta, sizeof(double));
        npair = getI32(&in);
        pairs = (alcmPair*)getArray(&in, npair, sizeof(alcmPair), &nomem, u[0] >= 6u);
        if (u[0] >= 6u && pairs) decodePairs(m, t->x, lastDelta, pairs, npair);
        if (u[0] >= 5u) {
            // the report XOR its prediction, decoded once the pairs are known to be valid
            ncontact = getI32(&in);
            contacts = (alcContact*)getArray(&in, ncontact, sizeof(alcContact), &nomem, u[0] >= 6u);
        }
        if (u[0] >= 2u) {
            int32_t fsize = getI32(&in);
            nfric = getI32(&in);
            if (!in.bad && fsize != (int32_t)sizeof(alciMlcpFric)) {
                st = ALC_ERROR(sim, ALC_ERR_IO,
                               "%s: written by alcove %u.%u.%u with other struct layouts; this "
                               "is %s",
                               what, u[2] / 10000, u[2] / 100 % 100, u[2] % 100,
                               alcu_versionString());
            } else {
                fric = (alciMlcpFric*)getArray(&in, nfric, sizeof(alciMlcpFric), &nomem, 0);
            }
        }
        if (u[0] >= 3u && st == ALC_OK) {
            int32_t dsize = getI32(&in);
            nds = getI32(&in);
            if (!in.bad && dsize != (int32_t)sizeof(alciDsPair)) {
                st = ALC_ERROR(sim, ALC_ERR_IO,
                               "%s: written by alcove %u.%u.%u with other struct layouts; this "
                               "is %s",
                               what, u[2] / 10000, u[2] / 100 % 100, u[2] % 100,
                               alcu_versionString());
            } else {
                ds = (alciDsPair*)getArray(&in, nds, sizeof(alciDsPair), &nomem, 0);
            }
        }
        if (st == ALC_OK && nomem) st = ALC_ERROR(sim, ALC_ERR_NOMEM, "%s: out of memory", what);
        if (st == ALC_OK && (in.bad || in.at != in.n)) {
            st = ALC_ERROR(sim, ALC_ERR_IO, "%s: the payload is %s", what,
                           in.bad ? "shorter than its contents" : "longer than its contents");
        }
    } else if (st == ALC_OK) {
        st = ALC_ERROR(sim, ALC_ERR_NOMEM, "%s: out of memory", what);
    }
    // the pairs as the active set's invariants require them
    for (int p = 0; st == ALC_OK && p < npair; p++) {
        const alcmPair* P = &pairs[p];
        // a guard's tetrahedron (the difference taken only for a negative key: no overflow)
        int guard = P->type == ALC_PAIR_TETGUARD && P->key < 0 &&
                    P->key - ALC_PAIR_GUARD_KEY(0) < (long long)m->ntet;
        int ok = (P->type == ALC_PAIR_PT || P->type == ALC_PAIR_EE || guard) &&
                 isfinite(P->lambda) && P->lambda >= 0 && isfinite(P->gamma) &&
                 (p == 0 || pairs[p - 1].key < P->key);
        for (int a = 0; a < 4; a++) ok = ok && P->v[a] >= 0 && P->v[a] < m->nvert;
        if (!ok) st = ALC_ERROR(sim, ALC_ERR_IO, "%s: contact pair %d is malformed", what, p);
    }
    if (st == ALC_OK && u[0] >= 5u && ncontact > 0) {
        alcContact* pred = (alcContact*)malloc(sizeof(alcContact) * (size_t)ncontact);
        if (!pred) st = ALC_ERROR(sim, ALC_ERR_NOMEM, "%s: out of memory", what);
        if (pred) {
            predictContacts(m, t->x, pairs, npair, pred, ncontact);
            xorWords(contacts, pred, sizeof(alcContact) * (size_t)ncontact);
            free(pred);
        }
    }
    if (st == ALC_OK && sim->contactCap < ncontact) {
        alcContact* c = (alcContact*)realloc(sim->contacts, sizeof(alcContact) * (size_t)ncontact);
        if (!c) st = ALC_ERROR(sim, ALC_ERR_NOMEM, "%s: out of memory", what);
        if (c) {
            sim->contacts = c;
            sim->contactCap = ncontact;
        }
    }
    if (st == ALC_OK && hasBuf && !sim->energyBuf) {
        sim->energyBuf = ebuf;
        ebuf = NULL;
    } else if (st == ALC_OK && hasBuf) {
        memcpy(sim->energyBuf, ebuf, sizeof(double) * ALCI_ENERGY_BUFN * (size_t)m->nvert);
    }
    for (int p = 0; st == ALC_OK && p < nfric; p++) {
        const alciMlcpFric* f = &fric[p];
        int ok = (p == 0 || fric[p - 1].key < f->key) && isfinite(f->lamTilde) &&
                 isfinite(f->hist) && (f->kinetic == 0 || f->kinetic == 1);
        for (int c = 0; c < 3; c++) ok = ok && isfinite(f->phi[c]) && isfinite(f->dir[c]);
        if (!ok) st = ALC_ERROR(sim, ALC_ERR_IO, "%s: friction state %d is malformed", what, p);
    }
    for (int p = 0; st == ALC_OK && p < nds; p++) {
        const alciDsPair* P = &ds[p];
        int ok = (p == 0 || ds[p - 1].key < P->key) && P->z >= 0 && P->z < m->nvert &&
                 P->tri >= 0 && P->tri < m->ntri &&
                 P->key == (long long)P->z * m->nbody + m->tri_body[P->tri];
        for (int c = 0; c < 3; c++) ok = ok && isfinite(P->b[c]) && P->b[c] >= 0;
        if (!ok) st = ALC_ERROR(sim, ALC_ERR_IO, "%s: penalty-ds pair %d is malformed", what, p);
    }
    if (st == ALC_OK && nds > 0 && !sim->be.ops->setDsCarry) {
        st = ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                       "%s: it carries penalty-ds pairs, which backend '%s' does not have "
                       "(--backend ref)",
                       what, sim->be.ops->name);
    }
    if (st == ALC_OK && nfric > 0 && !sim->be.ops->setMlcpCarry) {
        st = ALC_ERROR(sim, ALC_ERR_UNSUPPORTED,
                       "%s: it carries mlcp-cr friction states, which backend '%s' does not "
                       "have (--backend ref)",
                       what, sim->be.ops->name);
    }
    if (st == ALC_OK) st = sim->be.ops->setCarry(sim->be.state, pairs, npair, lastMu, lastDelta);
    if (st == ALC_OK && sim->be.ops->setMlcpCarry) {
        st = sim->be.ops->setMlcpCarry(sim->be.state, fric, nfric);
    }
    if (st == ALC_OK && sim->be.ops->setDsCarry) {
        st = sim->be.ops->setDsCarry(sim->be.state, ds, nds);
    }
    if (st == ALC_OK) {
        // everything is valid: commit to the data (same model: the same array layout in its
        // one buffer) and the sim
        memcpy(d->buffer, t->buffer, d->nbuffer);
        d->time = t->time;
        d->step = t->step;
        d->stat = t->stat;
        d->run = t->run;
        memcpy(d->warning, t->warning, sizeof d->warning);
        d->maxuse_contacts = t->maxuse_contacts;
        d->maxuse_candidates = t->maxuse_candidates;
        d->maxuse_blocks = t->maxuse_blocks;
        d->maxuse_memory = t->maxuse_memory;
        sim->timeComp = timeComp;
        sim->timeLast = timeLast;
        memcpy(sim->warnedOnce, warned, sizeof warned);
        sim->energyInit = hasBuf ? energyInit : 0;
        sim->energyBefore = eb;
        sim->energyLast = el;
        sim->energyBudget = ebud;
        memcpy(sim->energyPartsBefore, pb, sizeof pb);
        memcpy(sim->energyPartsLast, pl, sizeof pl);
        sim->ipcChecked = ipcChecked;
        if (ncontact > 0) memcpy(sim->contacts, contacts, sizeof(alcContact) * (size_t)ncontact);
        sim->ncontact = ncontact;
        sim->cancel = 0;
    }
    alc_deleteData(t);
    free(contacts);
    free(pairs);
    free(fric);
    free(ds);
    free(ebuf);
    free(inflated);
    return st;
}

ALC_API alctStatus alc_loadCheckpoint(alcSim* sim, alcData* d, const void* buf, size_t bytes) {
    if (!sim) return ALC_ERR_INVALID_ARG;
    if (!checkSim(sim, d) || !buf) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "NULL buffer, or data of another model");
    }
    return load(sim, d, (const unsigned char*)buf, bytes, "checkpoint");
}

ALC_API alctStatus alc_loadCheckpointFile(alcSim* sim, alcData* d, const char* path) {
    if (!sim) return ALC_ERR_INVALID_ARG;
    if (!checkSim(sim, d) || !path) {
        return ALC_ERROR(sim, ALC_ERR_INVALID_ARG, "NULL path, or data of another model");
    }
    unsigned char* buf = NULL;
    size_t n = 0;
    char err[ALC_ERRLEN] = "";
    alctStatus st = alci_state_readFile(path, &buf, &n, err, sizeof err);
    if (st != ALC_OK) return ALC_ERROR(sim, st, "%s", err);
    st = load(sim, d, buf, n, path);
    free(buf);
    return st;
}
