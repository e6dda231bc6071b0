// Inertia and elasticity on the device (cuda/elastic.h), AL paper §5.1 Eq. 16-19.
//
// Make time (host): the vertex -> tetrahedron incidences (the reference's counting sort), the
// static upper pattern, and every element block (t, a, b), a <= b locally, mapped to its slot
// (i, j) = (min, max) of its vertices (transposed when vertex a > vertex b), the blocks sorted by
// slot then tetrahedron.
// Per assembly: one thread per tetrahedron evaluates the gradient and the eigensystem once and
// writes its ten projected 3x3 blocks (Eq. 19); one thread per vertex gathers G through the
// incidences (the reference's order: bitwise its sums); the blocks reach the matrix either by a
// segmented warp reduction over the slot-sorted blocks with one atomicAdd per segment, or by one
// thread per slot summing its blocks in order; one thread per vertex finishes the diagonal
// (mass, kinematic rows) and reduces the largest free diagonal entry (Eq. 20).
#include "alcg_check.cuh"
#include "alcg_kernel.cuh"
#include "elastic.h"
#include "hd/alcm_elastic.h"
#include "reduce.cuh"

#include <cuda_runtime.h>

#include <stdlib.h>
#include <string.h>

/// Local vertex pairs (a, b), a <= b, of the ten blocks of a tetrahedron's upper Hessian.
#define ELASTIC_NPAIR 10
__host__ __device__ __forceinline__ void pairOf(int p, int* a, int* b) {
    // (0,0) (0,1) (0,2) (0,3) (1,1) (1,2) (1,3) (2,2) (2,3) (3,3)
    int r = p < 4 ? 0 : (p < 7 ? 1 : (p < 9 ? 2 : 3));
    int start = r == 0 ? 0 : (r == 1 ? 4 : (r == 2 ? 7 : 9));
    *a = r;
    *b = r + (p - start);
}

// ---------------------------------------------------------------------------------------------
// kernels
// ---------------------------------------------------------------------------------------------

/// Per tetrahedron with a free vertex: raw gradient (12) and the ten raw projected Hessian
/// blocks H_ab, a <= b (AL paper Eq. 17, 19), at xhat.
static __global__ void elastic_tetKernel(alcgElastic E, const double* d_xhat,
                                         const unsigned char* d_kin) {
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (t >= E.ntet) return;
    const int* tv = E.d_tet_vert + 4 * t;
    // blocks and gradients of a tetrahedron moved by drivers alone reach no free row
    if (d_kin[tv[0]] && d_kin[tv[1]] && d_kin[tv[2]] && d_kin[tv[3]]) return;
    alcV3 x[4];
    for (int a = 0; a < 4; a++) x[a] = alcm_v3_load(d_xhat + 3 * tv[a]);
    alcM3 Dminv = alcm_m3_load(E.d_tet_Dminv + 9 * t);
    int model = E.d_tet_model[t];
    double mu = E.d_tet_mu[t], lam = E.d_tet_lam[t], vol = E.d_tet_vol[t];
    alcm_tet_gradient(model, mu, lam, vol, Dminv, x, E.d_elemG + 12 * t);
    // eigensystem once, then the blocks from it
    alcTetEigen eig;
    alcm_tet_eigen(model, mu, lam, alcm_tet_F(x, Dminv), &eig, E.eigFilter);
    for (int p = 0; p < ELASTIC_NPAIR; p++) {
        int a, b;
        pairOf(p, &a, &b);
        alcM3 H;
        alcm_tet_hessianBlock(&eig, vol, Dminv, a, b, &H);
        alcm_m3_store(E.d_elemH + 9 * (ELASTIC_NPAIR * t + p), H);
    }
}

/// Per vertex: G_i = m_i (xhat_i - xtilde_i) + h^2 sum of its tetrahedra's gradients, in the
/// incidence order (alcr_elastic_assemble's); 0 on a kinematic row.
static __global__ void elastic_gradientKernel(alcgElastic E, alcgElasticState st, double* d_g) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= E.nvert) return;
    double* gi = d_g + 3 * i;
    if (st.d_kin[i]) {
        gi[0] = gi[1] = gi[2] = 0;
        return;
    }
    double h2 = st.h * st.h, mass = E.d_vert_mass[i];
    double g[3];
    for (int k = 0; k < 3; k++) g[k] = mass * (st.d_xhat[3 * i + k] - st.d_xtilde[3 * i + k]);
    for (int q = E.d_vtAdr[i]; q < E.d_vtAdr[i + 1]; q++) {
        const double* ge = E.d_elemG + 12 * (E.d_vtList[q] >> 2) + 3 * (E.d_vtList[q] & 3);
        g[0] += h2 * ge[0];
        g[1] += h2 * ge[1];
        g[2] += h2 * ge[2];
    }
    gi[0] = g[0];
    gi[1] = g[1];
    gi[2] = g[2];
}

/// h^2 times element block k (in slot orientation), or zero when a vertex is kinematic.
__device__ __forceinline__ void itemBlock(const alcgElastic& E, const unsigned char* d_kin,
                                          double h2, int k, double v[9]) {
    int code = E.d_item[k], e = code >> 1;
    int a, b;
    pairOf(e % ELASTIC_NPAIR, &a, &b);
    const int* tv = E.d_tet_vert + 4 * (e / ELASTIC_NPAIR);
    if (d_kin[tv[a]] || d_kin[tv[b]]) {
        for (int c = 0; c < 9; c++) v[c] = 0;
        return;
    }
    const double* H = E.d_elemH + 9 * e;
    if (code & 1) {
        // H_ba = H_ab^T lands in the upper block (vertex b, vertex a)
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) v[3 * r + c] = h2 * H[3 * c + r];
        }
    } else {
        for (int c = 0; c < 9; c++) v[c] = h2 * H[c];
    }
}

/// One thread per element block in slot order: a segmented inclusive scan over the lanes of the
/// same slot (contiguous: the items are sorted), then the segment's last lane adds the sum with
/// one atomicAdd per entry. Tail lanes carry slot -1 and zeros.
static __global__ void elastic_atomicKernel(alcgElastic E, const unsigned char* d_kin, double h2,
                                            alcgBsr A) {
    int k = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    int lane = (int)threadIdx.x % ALCG_WARP;
    double v[9];
    int key = -1;
    if (k < E.nitem) {
        key = E.d_itemSlot[k];
        itemBlock(E, d_kin, h2, k, v);
    } else {
        for (int c = 0; c < 9; c++) v[c] = 0;
    }
    // segmented scan: a lane adds the partial sum `off` lanes up when it has the same slot
    for (int off = 1; off < ALCG_WARP; off *= 2) {
        int up = __shfl_up_sync(ALCG_FULL_MASK, key, off);
        bool take = lane >= off && up == key;
        for (int c = 0; c < 9; c++) {
            double u = __shfl_up_sync(ALCG_FULL_MASK, v[c], off);
            if (take) v[c] += u;
        }
    }
    // the last lane of each segment writes it
    int next = __shfl_down_sync(ALCG_FULL_MASK, key, 1);
    if (key >= 0 && (lane == ALCG_WARP - 1 || next != key)) {
        double* dst = A.d_val + 9 * (size_t)E.d_dst[key];
        for (int c = 0; c < 9; c++) atomicAdd(dst + c, v[c]);
    }
}

/// One thread per slot: the sum of its element blocks in order (ascending tetrahedron).
static __global__ void elastic_gatherKernel(alcgElastic E, const unsigned char* d_kin, double h2,
                                            alcgBsr A) {
    int s = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (s >= E.nstatic) return;
    double sum[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int k = E.d_slotAdr[s]; k < E.d_slotAdr[s + 1]; k++) {
        double v[9];
        itemBlock(E, d_kin, h2, k, v);
        for (int c = 0; c < 9; c++) sum[c] += v[c];
    }
    double* dst = A.d_val + 9 * (size_t)E.d_dst[s];
    for (int c = 0; c < 9; c++) dst[c] = sum[c];
}

/// Per vertex: the diagonal block finished (+ m_i I on a free row; m_i I, or I when m_i is 0, on
/// a kinematic row, whose tetrahedron blocks were all skipped), then per block the largest
/// diagonal entry over free DOFs (>= 0: the reference starts its maximum at 0).
static __global__ void elastic_diagKernel(alcgElastic E, const unsigned char* d_kin, alcgBsr A,
                                          double* d_blockMax) {
    __shared__ double red[ALCG_WARP];
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double md = 0;
    if (i < E.nvert) {
        double* dg = A.d_val + 9 * (size_t)E.d_dst[E.d_diagSlot[i]];
        double mass = E.d_vert_mass[i];
        if (d_kin[i]) {
            double dv = mass > 0 ? mass : 1;
            dg[0] = dg[4] = dg[8] = dv;
        } else {
            for (int c = 0; c < 3; c++) {
                dg[4 * c] += mass;
                md = alcgOpMax()(md, dg[4 * c]);
            }
        }
    }
    md = alcg_blockReduce(md, alcgOpMax(), 0.0, red);
    if (threadIdx.x == 0) d_blockMax[blockIdx.x] = md;
}

/// One block: the maximum of the block maxima.
static __global__ void elastic_maxKernel(const double* d_blockMax, int nblock, double* d_out) {
    __shared__ double red[ALCG_WARP];
    double m = 0;
    for (int b = (int)threadIdx.x; b < nblock; b += (int)blockDim.x) {
        m = alcgOpMax()(m, d_blockMax[b]);
    }
    m = alcg_blockReduce(m, alcgOpMax(), 0.0, red);
    if (threadIdx.x == 0) *d_out = m;
}

/// Thread i: the inertia of vertex i (free) and the elastic energy of tetrahedron i at
/// trial = xhat + r p; per block the two sums.
static __global__ void elastic_energyKernel(alcgElastic E, alcgElasticState st, const double* d_p,
                                            double r, double* d_trial, double* d_partial) {
    __shared__ double red[ALCG_WARP];
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    double inert = 0, elast = 0;
    // inertia 1/2 m |x - xtilde|^2 over free vertices
    if (i < E.nvert) {
        for (int k = 0; k < 3; k++) {
            double x = st.d_xhat[3 * i + k] + r * d_p[3 * i + k];
            if (d_trial) d_trial[3 * i + k] = x;
            double d = x - st.d_xtilde[3 * i + k];
            inert += d * d;
        }
        inert = st.d_kin[i] ? 0.0 : inert * (0.5 * E.d_vert_mass[i]);
    }
    // elasticity Psi (the h^2 applied to the total)
    if (i < E.ntet) {
        alcV3 x[4];
        for (int a = 0; a < 4; a++) {
            int v = E.d_tet_vert[4 * i + a];
            double c[3];
            for (int k = 0; k < 3; k++) c[k] = st.d_xhat[3 * v + k] + r * d_p[3 * v + k];
            x[a] = alcm_v3_load(c);
        }
        elast = alcm_tet_energy(E.d_tet_model[i], E.d_tet_mu[i], E.d_tet_lam[i], E.d_tet_vol[i],
                                alcm_m3_load(E.d_tet_Dminv + 9 * i), x);
    }
    inert = alcg_blockSum(inert, red);
    elast = alcg_blockSum(elast, red);
    if (threadIdx.x == 0) {
        d_partial[2 * blockIdx.x] = inert;
        d_partial[2 * blockIdx.x + 1] = elast;
    }
}

/// One block: the inertia and elastic sums over the block partials, E = I + h^2 Psi.
static __global__ void elastic_energySumKernel(const double* d_partial, int nblock, double h2,
                                               double* d_out) {
    __shared__ double red[ALCG_WARP];
    double inert = 0, elast = 0;
    for (int b = (int)threadIdx.x; b < nblock; b += (int)blockDim.x) {
        inert += d_partial[2 * b];
        elast += d_partial[2 * b + 1];
    }
    inert = alcg_blockSum(inert, red);
    elast = alcg_blockSum(elast, red);
    if (threadIdx.x == 0) *d_out = inert + h2 * elast;
}

/// Per static row i: the block of A holding each of its slots (binary search in A's row i);
/// a missing block counts in *d_missing.
static __global__ void elastic_bindKernel(alcgElastic E, alcgBsr A, int* d_missing) {
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i >= E.nvert) return;
    for (int s = E.d_srowptr[i]; s < E.d_srowptr[i + 1]; s++) {
        int j = E.d_scol[s], lo = A.d_rowptr[i], hi = A.d_rowptr[i + 1];
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (A.d_col[mid] < j) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if (lo < A.d_rowptr[i + 1] && A.d_col[lo] == j) {
            E.d_dst[s] = lo;
        } else {
            E.d_dst[s] = 0;
            atomicAdd(d_missing, 1);
        }
    }
}

/// d_dst[s] = s.
static __global__ void elastic_identityKernel(int* d_dst, int n) {
    int s = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (s < n) d_dst[s] = s;
}

// ---------------------------------------------------------------------------------------------
// make time (host)
// ---------------------------------------------------------------------------------------------

static int cmpInt(const void* a, const void* b) {
    int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

/// Host arrays of the maps, freed after the upload.
struct ElasticMaps {
    int *tetModel, *vtAdr, *vtList, *srowptr, *scol, *diagSlot, *item, *itemSlot, *slotAdr;
    double *tetMu, *tetLam;
};

static void freeMaps(ElasticMaps* h) {
    free(h->tetModel);
    free(h->vtAdr);
    free(h->vtList);
    free(h->srowptr);
    free(h->scol);
    free(h->diagSlot);
    free(h->item);
    free(h->itemSlot);
    free(h->slotAdr);
    free(h->tetMu);
    free(h->tetLam);
}

/// Slot of (i, j), j >= i, in the static rows.
static int findSlot(const int* srowptr, const int* scol, int i, int j) {
    int lo = srowptr[i], hi = srowptr[i + 1];
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (scol[mid] < j) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < srowptr[i + 1] && scol[lo] == j ? lo : -1;
}

/// Build the host maps of E (sizes set): materials, incidences, static upper pattern, items.
static alctStatus buildMaps(const alcModel* m, const int* tetModel, const double* tetMu,
                            const double* tetLam, alcgElastic* E, ElasticMaps* h) {
    int n = E->nvert, nt = E->ntet;
    size_t nt1 = (size_t)(nt > 0 ? nt : 1);
    memset(h, 0, sizeof *h);
    h->tetModel = (int*)malloc(sizeof(int) * nt1);
    h->tetMu = (double*)malloc(sizeof(double) * nt1);
    h->tetLam = (double*)malloc(sizeof(double) * nt1);
    h->vtAdr = (int*)calloc((size_t)n + 1, sizeof(int));
    h->vtList = (int*)malloc(sizeof(int) * 4 * nt1);
    h->srowptr = (int*)calloc((size_t)n + 1, sizeof(int));
    h->diagSlot = (int*)malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    h->item = (int*)malloc(sizeof(int) * ELASTIC_NPAIR * nt1);
    h->itemSlot = (int*)malloc(sizeof(int) * ELASTIC_NPAIR * nt1);
    int* fill = (int*)calloc((size_t)n + 1, sizeof(int));
    int* tmp = (int*)malloc(sizeof(int) * (4 * nt1 * 4 + (size_t)n + 1));
    int* itemSlotRaw = (int*)malloc(sizeof(int) * ELASTIC_NPAIR * nt1);
    alctStatus st = ALC_ERR_NOMEM;
    int nnz = 0;
    if (!h->tetModel || !h->tetMu || !h->tetLam || !h->vtAdr || !h->vtList || !h->srowptr ||
        !h->diagSlot || !h->item || !h->itemSlot || !fill || !tmp || !itemSlotRaw) {
        goto done;
    }
    // materials per tetrahedron, as alcr_elastic_make
    for (int t = 0; t < nt; t++) {
        int mat = m->body_mat[m->tet_body[t]];
        h->tetModel[t] = tetModel ? tetModel[t] : m->mat_model[mat];
        h->tetMu[t] = tetMu ? tetMu[t] : m->mat_lame[2 * mat];
        h->tetLam[t] = tetLam ? tetLam[t] : m->mat_lame[2 * mat + 1];
    }
    // vertex -> tetrahedron incidences (counting sort by tetrahedron)
    for (int q = 0; q < 4 * nt; q++) h->vtAdr[m->tet_vert[q] + 1]++;
    for (int v = 0; v < n; v++) h->vtAdr[v + 1] += h->vtAdr[v];
    for (int t = 0; t < nt; t++) {
        for (int a = 0; a < 4; a++) {
            int v = m->tet_vert[4 * t + a];
            h->vtList[h->vtAdr[v] + fill[v]++] = 4 * t + a;
        }
    }
    // static upper rows: the diagonal and every higher vertex sharing a tetrahedron
    for (int v = 0; v < n; v++) {
        int start = nnz;
        tmp[nnz++] = v;
        for (int q = h->vtAdr[v]; q < h->vtAdr[v + 1]; q++) {
            const int* tv = m->tet_vert + 4 * (h->vtList[q] >> 2);
            for (int b = 0; b < 4; b++) {
                if (tv[b] > v) tmp[nnz++] = tv[b];
            }
        }
        qsort(tmp + start, (size_t)(nnz - start), sizeof(int), cmpInt);
        int w = start;
        for (int k = start; k < nnz; k++) {
            if (k == start || tmp[k] != tmp[w - 1]) tmp[w++] = tmp[k];
        }
        nnz = w;
        h->srowptr[v + 1] = nnz;
        h->diagSlot[v] = start;
    }
    E->nstatic = nnz;
    h->scol = (int*)malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    h->slotAdr = (int*)calloc((size_t)nnz + 1, sizeof(int));
    if (!h->scol || !h->slotAdr) goto done;
    memcpy(h->scol, tmp, sizeof(int) * (size_t)nnz);
    // element blocks to slots, then a stable counting sort by slot (tetrahedra stay ascending)
    for (int t = 0; t < nt; t++) {
        for (int p = 0; p < ELASTIC_NPAIR; p++) {
            int a, b;
            pairOf(p, &a, &b);
            int va = m->tet_vert[4 * t + a], vb = m->tet_vert[4 * t + b];
            int i = va < vb ? va : vb, j = va < vb ? vb : va;
            int s = findSlot(h->srowptr, h->scol, i, j);
            if (s < 0) {
                st = ALC_ERR_INVALID_ARG;
                goto done;
            }
            itemSlotRaw[ELASTIC_NPAIR * t + p] = s;
            h->slotAdr[s + 1]++;
        }
    }
    for (int s = 0; s < nnz; s++) h->slotAdr[s + 1] += h->slotAdr[s];
    {
        int* pos = tmp;  // per-slot fill, reusing the row scratch (nnz <= its size)
        memset(pos, 0, sizeof(int) * (size_t)nnz);
        for (int e = 0; e < ELASTIC_NPAIR * nt; e++) {
            int s = itemSlotRaw[e], a, b;
            pairOf(e % ELASTIC_NPAIR, &a, &b);
            int t = e / ELASTIC_NPAIR;
            int k = h->slotAdr[s] + pos[s]++;
            h->item[k] = (e << 1) | (m->tet_vert[4 * t + a] > m->tet_vert[4 * t + b] ? 1 : 0);
            h->itemSlot[k] = s;
        }
    }
    st = ALC_OK;
done:
    free(fill);
    free(tmp);
    free(itemSlotRaw);
    return st;
}

// ---------------------------------------------------------------------------------------------
// wrappers
// ---------------------------------------------------------------------------------------------

extern "C" void alcg_elastic_free(alcgElastic* E) {
    if (!E) return;
    alcg_free(E->d_tet_vert);
    alcg_free(E->d_tet_vol);
    alcg_free(E->d_tet_Dminv);
    alcg_free(E->d_tet_model);
    alcg_free(E->d_tet_mu);
    alcg_free(E->d_tet_lam);
    alcg_free(E->d_vert_mass);
    alcg_free(E->d_vtAdr);
    alcg_free(E->d_vtList);
    alcg_free(E->d_srowptr);
    alcg_free(E->d_scol);
    alcg_free(E->d_diagSlot);
    alcg_free(E->d_item);
    alcg_free(E->d_itemSlot);
    alcg_free(E->d_slotAdr);
    alcg_free(E->d_dst);
    alcg_free(E->d_elemG);
    alcg_free(E->d_elemH);
    alcg_free(E->d_red);
    alcg_free(E->d_scalar);
    memset(E, 0, sizeof *E);
}

extern "C" size_t alcg_elastic_bytes(const alcgElastic* E) {
    if (!E) return 0;
    size_t n = (size_t)E->nvert, nt = (size_t)E->ntet, ns = (size_t)E->nstatic;
    return sizeof(int) * (4 * nt + nt + (n + 1) + 4 * nt + (n + 1) + ns + n + 2 * (size_t)E->nitem +
                          (ns + 1) + ns) +
           sizeof(double) * (nt + 9 * nt + 2 * nt + n + 12 * nt + 90 * nt + (size_t)E->nred + 2);
}

/// The sizes every allocation of alcg_elastic_make follows from.
static void planSizes(alcgElastic* E, int nvert, int ntet, int nstatic) {
    E->nvert = nvert;
    E->ntet = ntet;
    E->nstatic = nstatic;
    E->nitem = ELASTIC_NPAIR * ntet;
    // reduction scratch: the larger per-block partials of the diagonal and energy kernels
    E->nred = 2 * (int)alcg_blocks((long long)(nvert > ntet ? nvert : ntet), ALCG_BLOCK);
}

extern "C" size_t alcg_elastic_need(int nvert, int ntet, int nstatic) {
    alcgElastic probe;
    memset(&probe, 0, sizeof probe);
    planSizes(&probe, nvert, ntet, nstatic);
    return alcg_elastic_bytes(&probe);
}

/// Allocate *d of bytes and upload h (bytes > 0), or leave it NULL-free-safe at 1 byte.
static alctStatus uploadNew(alcgStream* s, void** d, const void* h, size_t bytes) {
    alctStatus st = alcg_malloc(s, d, bytes > 0 ? bytes : 1);
    if (st == ALC_OK && bytes > 0 && h) st = alcg_upload(s, *d, h, bytes);
    return st;
}

extern "C" alctStatus alcg_elastic_make(alcgElastic* E, const alcModel* m, const int* tetModel,
                                        const double* tetMu, const double* tetLam, alcgStream* s) {
    ElasticMaps h;
    alctStatus st = ALC_OK;
    size_t n = 0, nt = 0;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!E || !m) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    if ((tetModel || tetMu || tetLam) && !(tetModel && tetMu && tetLam)) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "material overrides: all three or none");
    }
    memset(E, 0, sizeof *E);
    E->nvert = m->nvert;
    E->ntet = m->ntet;
    E->eigFilter = alcm_eigFilterOf(m->opt.eigenFilter);
    E->boundN = -1;
    n = (size_t)m->nvert;
    nt = (size_t)m->ntet;
    st = buildMaps(m, tetModel, tetMu, tetLam, E, &h);
    if (st != ALC_OK) {
        freeMaps(&h);
        return ALCG_FAIL(s, st, "%s", st == ALC_ERR_NOMEM ? "out of host memory" : "bad mesh");
    }
    planSizes(E, m->nvert, m->ntet, E->nstatic);
    {
        size_t ns = (size_t)E->nstatic, ni = (size_t)E->nitem;
        int ok =
            uploadNew(s, (void**)&E->d_tet_vert, m->tet_vert, sizeof(int) * 4 * nt) == ALC_OK &&
            uploadNew(s, (void**)&E->d_tet_vol, m->tet_vol, sizeof(double) * nt) == ALC_OK &&
            uploadNew(s, (void**)&E->d_tet_Dminv, m->tet_Dminv, sizeof(double) * 9 * nt) ==
                ALC_OK &&
            uploadNew(s, (void**)&E->d_tet_model, h.tetModel, sizeof(int) * nt) == ALC_OK &&
            uploadNew(s, (void**)&E->d_tet_mu, h.tetMu, sizeof(double) * nt) == ALC_OK &&
            uploadNew(s, (void**)&E->d_tet_lam, h.tetLam, sizeof(double) * nt) == ALC_OK &&
            uploadNew(s, (void**)&E->d_vert_mass, m->vert_mass, sizeof(double) * n) == ALC_OK &&
            uploadNew(s, (void**)&E->d_vtAdr, h.vtAdr, sizeof(int) * (n + 1)) == ALC_OK &&
            uploadNew(s, (void**)&E->d_vtList, h.vtList, sizeof(int) * 4 * nt) == ALC_OK &&
            uploadNew(s, (void**)&E->d_srowptr, h.srowptr, sizeof(int) * (n + 1)) == ALC_OK &&
            uploadNew(s, (void**)&E->d_scol, h.scol, sizeof(int) * ns) == ALC_OK &&
            uploadNew(s, (void**)&E->d_diagSlot, h.diagSlot, sizeof(int) * n) == ALC_OK &&
            uploadNew(s, (void**)&E->d_item, h.item, sizeof(int) * ni) == ALC_OK &&
            uploadNew(s, (void**)&E->d_itemSlot, h.itemSlot, sizeof(int) * ni) == ALC_OK &&
            uploadNew(s, (void**)&E->d_slotAdr, h.slotAdr, sizeof(int) * (ns + 1)) == ALC_OK &&
            uploadNew(s, (void**)&E->d_dst, NULL, sizeof(int) * ns) == ALC_OK &&
            uploadNew(s, (void**)&E->d_elemG, NULL, sizeof(double) * 12 * nt) == ALC_OK &&
            uploadNew(s, (void**)&E->d_elemH, NULL, sizeof(double) * 9 * ELASTIC_NPAIR * nt) ==
                ALC_OK &&
            uploadNew(s, (void**)&E->d_red, NULL, sizeof(double) * (size_t)E->nred) == ALC_OK &&
            uploadNew(s, (void**)&E->d_scalar, NULL, sizeof(double) * 2) == ALC_OK;
        freeMaps(&h);
        if (!ok) {
            alcg_elastic_free(E);
            return ALC_ERR_DEVICE_NOMEM;
        }
    }
    return ALC_OK;
}

extern "C" alctStatus alcg_elastic_pattern(alcgElastic* E, alcgBsr* A, void* d_temp,
                                           size_t* temp_bytes, alcgStream* s) {
    ALCG_RANGE("alcg_elastic_pattern");
    alctStatus st = ALC_OK;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!E || !A || !temp_bytes) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    if (!d_temp) return alcg_bsr_transpose(A, NULL, temp_bytes, s);
    if (A->n != E->nvert) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "%d rows, the mesh has %d", A->n, E->nvert);
    }
    if (A->cap < E->nstatic) {
        return ALCG_FAIL(s, ALC_ERR_CAPACITY, "%d static blocks, capacity %d", E->nstatic, A->cap);
    }
    // the static rows, then the transpose index, then slot s = block s
    ALCG_CUDA_TRY(s, cudaMemcpyAsync(A->d_rowptr, E->d_srowptr, sizeof(int) * ((size_t)A->n + 1),
                                     cudaMemcpyDeviceToDevice, (cudaStream_t)s->stream));
    if (E->nstatic > 0) {
        ALCG_CUDA_TRY(s, cudaMemcpyAsync(A->d_col, E->d_scol, sizeof(int) * (size_t)E->nstatic,
                                         cudaMemcpyDeviceToDevice, (cudaStream_t)s->stream));
    }
    A->nnzb = E->nstatic;
    st = alcg_bsr_transpose(A, d_temp, temp_bytes, s);
    if (st != ALC_OK) return st;
    if (E->nstatic > 0) {
        ALCG_LAUNCH(elastic_identityKernel, alcg_blocks(E->nstatic, ALCG_BLOCK), ALCG_BLOCK, 0,
                    s->stream, E->d_dst, E->nstatic);
        ALCG_LAUNCH_CHECK(s);
    }
    E->boundN = A->n;
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_elastic_bind(alcgElastic* E, const alcgBsr* A, alcgStream* s) {
    ALCG_RANGE("alcg_elastic_bind");
    int missing = 0;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!E || !A) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    if (A->n != E->nvert) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "%d rows, the mesh has %d", A->n, E->nvert);
    }
    if (E->nvert == 0) {
        E->boundN = 0;
        return ALC_OK;
    }
    // the counter lives in the reduction scratch
    ALCG_CUDA_TRY(s, cudaMemsetAsync(E->d_red, 0, sizeof(int), (cudaStream_t)s->stream));
    ALCG_LAUNCH(elastic_bindKernel, alcg_blocks(E->nvert, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream, *E,
                *A, (int*)E->d_red);
    ALCG_LAUNCH_CHECK(s);
    if (alcg_download(s, &missing, E->d_red, sizeof(int)) != ALC_OK) return ALC_ERR_CUDA;
    if (missing > 0) {
        E->boundN = -1;
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "%d static blocks missing from the matrix",
                         missing);
    }
    E->boundN = A->n;
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_elastic_assemble(alcgElastic* E, const alcgElasticState* st,
                                            alcgElasticMode mode, alcgBsr* A, double* d_g,
                                            double* maxDiag, alcgStream* s) {
    ALCG_RANGE("alcg_elastic_assemble");
    unsigned nblock = 0;
    double h2 = 0;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!E || !st || !A) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    if (E->boundN != E->nvert || A->n != E->nvert) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "the matrix is not bound (alcg_elastic_bind)");
    }
    if (mode != ALCG_ELASTIC_ATOMIC && mode != ALCG_ELASTIC_GATHER) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "unknown mode %d", (int)mode);
    }
    if (E->nvert == 0) {
        if (maxDiag) *maxDiag = 0;
        return ALC_OK;
    }
    if (!st->d_xhat || !st->d_xtilde || !st->d_kin || !d_g) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL vector");
    }
    h2 = st->h * st->h;
    // every block of A zeroed where the slots do not write them all
    if (mode == ALCG_ELASTIC_ATOMIC || A->nnzb != E->nstatic) {
        ALCG_CUDA_TRY(s, cudaMemsetAsync(A->d_val, 0, sizeof(double) * 9 * (size_t)A->nnzb,
                                         (cudaStream_t)s->stream));
    }
    // per tetrahedron: gradient and projected blocks (AL paper Eq. 17, 19)
    if (E->ntet > 0) {
        ALCG_LAUNCH(elastic_tetKernel, alcg_blocks(E->ntet, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                    *E, st->d_xhat, st->d_kin);
        ALCG_LAUNCH_CHECK(s);
    }
    // gradient per vertex
    ALCG_LAUNCH(elastic_gradientKernel, alcg_blocks(E->nvert, ALCG_BLOCK), ALCG_BLOCK, 0, s->stream,
                *E, *st, d_g);
    ALCG_LAUNCH_CHECK(s);
    // blocks to their slots
    if (E->nitem > 0 && mode == ALCG_ELASTIC_ATOMIC) {
        ALCG_LAUNCH(elastic_atomicKernel, alcg_blocks(E->nitem, ALCG_BLOCK), ALCG_BLOCK, 0,
                    s->stream, *E, st->d_kin, h2, *A);
        ALCG_LAUNCH_CHECK(s);
    } else if (mode == ALCG_ELASTIC_GATHER) {
        ALCG_LAUNCH(elastic_gatherKernel, alcg_blocks(E->nstatic, ALCG_BLOCK), ALCG_BLOCK, 0,
                    s->stream, *E, st->d_kin, h2, *A);
        ALCG_LAUNCH_CHECK(s);
    }
    // diagonal: mass and kinematic rows; the largest free entry (AL paper Eq. 20)
    nblock = alcg_blocks(E->nvert, ALCG_BLOCK);
    ALCG_LAUNCH(elastic_diagKernel, nblock, ALCG_BLOCK, 0, s->stream, *E, st->d_kin, *A, E->d_red);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(elastic_maxKernel, 1, ALCG_BLOCK, 0, s->stream, E->d_red, (int)nblock, E->d_scalar);
    ALCG_LAUNCH_CHECK(s);
    if (maxDiag && alcg_download(s, maxDiag, E->d_scalar, sizeof(double)) != ALC_OK) {
        return ALC_ERR_CUDA;
    }
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}

extern "C" alctStatus alcg_elastic_energy(alcgElastic* E, const alcgElasticState* st,
                                          const double* d_p, double r, double* d_trial,
                                          double* energy, alcgStream* s) {
    ALCG_RANGE("alcg_elastic_energy");
    unsigned nblock = 0;
    if (!s) return ALC_ERR_INVALID_ARG;
    if (!E || !st) return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL argument");
    if (E->nvert == 0) {
        if (energy) *energy = 0;
        return ALC_OK;
    }
    if (!st->d_xhat || !st->d_xtilde || !st->d_kin || !d_p) {
        return ALCG_FAIL(s, ALC_ERR_INVALID_ARG, "NULL vector");
    }
    // per-block inertia and elastic sums, then one block over them
    nblock = alcg_blocks(E->nvert > E->ntet ? E->nvert : E->ntet, ALCG_BLOCK);
    ALCG_LAUNCH(elastic_energyKernel, nblock, ALCG_BLOCK, 0, s->stream, *E, *st, d_p, r, d_trial,
                E->d_red);
    ALCG_LAUNCH_CHECK(s);
    ALCG_LAUNCH(elastic_energySumKernel, 1, ALCG_BLOCK, 0, s->stream, E->d_red, (int)nblock,
                st->h * st->h, E->d_scalar + 1);
    ALCG_LAUNCH_CHECK(s);
    if (energy && alcg_download(s, energy, E->d_scalar + 1, sizeof(double)) != ALC_OK) {
        return ALC_ERR_CUDA;
    }
    return ALC_OK;
fail:
    return ALC_ERR_CUDA;
}
