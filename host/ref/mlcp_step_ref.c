// The mlcp-cr model's time step on the reference backend (issue 22, item 2): Verschoor and
// Jalba's Algorithm 1 (mlcp-conjugate-residual-collision-response.txt; the digest
// ../shared/research/seeds-001-002.md §2.5-2.8 and §3.2 (a)) in the position form of alcove's
// contact pairs, with their friction (§3.1, Algorithm 3: tangent rows per contact, built by
// buildFriction; the states carried by pair key from round to round and step to step).
//
// The step is linearly implicit (V&J Eq. 3-5, Baraff and Witkin): the incremental potential is
// replaced by its quadratic model at XHAT^0 (free vertices at x^t, kinematic ones at their
// targets), A = M + h^2 Hess E (the SPD-projected Hessian the AL model assembles) and
// G = M (XHAT^0 - x~) + h^2 grad E; the unknown is the displacement p of the end state
// q = XHAT^0 + p. A contact pair k with distance d_k and gradient g_k = grad d_k linearized at X
// asks d_k(X) + g_k . (q - X) >= delta: the row g_k . p >= c_k with
// c_k = delta - d_k(X) - g_k . (XHAT^0 - X), V&J's Eq. 7 in positions (their j_k v with v = p/h
// and their gap d_k replaced by the gap above delta). The MLCP
//     A p - J^T lambda = -G,  0 <= J p - c  ⊥  lambda >= 0
// is solved by alcr_cr_solve (active-set conjugate residual, Diag or Full preconditioner), warm
// started from the last round's p and multipliers. Then, as in V&J's lines 24-30:
//   - CCD over every candidate along X -> q (the broad phase of the AL model): pairs the path
//     brings within reach join the set, linearized at X, and the MLCP is solved again (V&J's
//     "check all candidates for new collisions");
//   - where no pair joins but CCD, or the inversion bound of the protected tetrahedra, cuts the
//     path at alpha < 1, X advances by alpha and every pair is re-linearized there (the
//     constraint geometry changed more than its linearization holds);
//   - otherwise q is reached whole: X := q and every pair is re-linearized at q (V&J Eq. 21
//     with w = 1; X, an intersection-free state, is where every linearization is taken, so
//     normals cannot flip through a crossing; their blending with w < 1 was tried and removed
//     no capped step: bench/results/amd-epyc-2c/mlcp.md). The step ends when
//     every pair's true distance at q is at least delta - eps2 and every pair with a positive
//     multiplier is within eps2 of delta (V&J's 0 < C_k < eps2 with alcove's offset delta).
// X is intersection-free after every round (each move of X is a CCD-cleared straight path), so
// a step that reaches its round cap ends at a clean state short of the MLCP's solution: it is
// counted (alcStepStat.capped) and warned about, never output penetrating.
//
// Pairs keep their multipliers across steps (V&J: persistent, warm-started constraints); a pair
// whose multiplier stays zero decays by Gamma per step and leaves the set below remove_below,
// as in the AL model's Algorithm 3.
#include "hd/alcm_friction.h"
#include "ref/backend_ref.h"
#include "ref/mlcp_cr.h"
#include "ref/vec_ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Scratch of one step: the rows of the pairs with a free vertex.
typedef struct {
    int cap;
    int* pairOf;   // row -> pair
    int* vert;     // rows x 4 (kinematic slots -1)
    double* grad;  // rows x 12
    double* c;     // rows
    double* lam;   // rows
    int* act;      // rows
    double* z;     // rows: duplicate counts (V&J §3.4.1)
    double* w;     // rows x 4: slot weights along the row's normal
    double* nrm;   // rows x 3: the row's unit normal
    // friction (V&J §3.1): per row its coefficient, tangent basis (two unit columns), tangent
    // rows (24), offsets (2) and the solver's state (alcrCrFriction)
    long long* key;
    double* mu;
    double* T;
    double* tgrad;
    double* ct;
    int* kin;
    double* phi;
    double* dir;
    double* lt;
    double* hist;
} Rows;

/// The friction state of the last solve's rows, by pair key, in world coordinates (the next
/// round's tangent bases differ where the pairs were re-linearized): carried from round to round
/// and, in the backend (alcrBackend.mlcpCarry), from step to step, as V&J's persistent,
/// warm-started constraints; checkpoints keep it (alciBackendOps.getMlcpCarry).
typedef struct alcrMlcpCarry_ {
    int n, cap;
    alciMlcpFric* s;  // n states, ascending keys
} FricCarry;

static void carryFree(FricCarry* F) {
    free(F->s);
    memset(F, 0, sizeof *F);
}

/// Room for n states.
static alctStatus carryReserve(FricCarry* F, int n) {
    if (n <= F->cap) return ALC_OK;
    int cap = n + n / 2 + 16;
    alciMlcpFric* a = (alciMlcpFric*)realloc(F->s, sizeof(alciMlcpFric) * (size_t)cap);
    if (!a) return ALC_ERR_NOMEM;
    F->s = a;
    F->cap = cap;
    return ALC_OK;
}

void alcr_mlcp_free(alcrBackend* B) {
    if (!B->mlcpCarry) return;
    carryFree(B->mlcpCarry);
    free(B->mlcpCarry);
    B->mlcpCarry = NULL;
}

alctStatus alcr_mlcp_getCarry(const alcrBackend* B, alciMlcpFric* out, int cap, int* n) {
    int k = B->mlcpCarry ? B->mlcpCarry->n : 0;
    *n = k;
    if (!out) return ALC_OK;
    if (k > cap) return ALC_ERR_CAPACITY;
    if (k) memcpy(out, B->mlcpCarry->s, sizeof(alciMlcpFric) * (size_t)k);
    return ALC_OK;
}

void alcr_mlcp_reportFriction(const alcrBackend* B, alcContact* out, int n, double* bodyForce) {
    const FricCarry* F = B->mlcpCarry;
    if (!F) return;
    double ih2 = 1.0 / (B->h * B->h);
    int p = 0;
    for (int j = 0; j < F->n; j++) {
        const alciMlcpFric* f = &F->s[j];
        while (p < B->npair && B->pairs[p].key < f->key) p++;
        if (p >= B->npair || B->pairs[p].key != f->key) continue;
        const alcrPair* P = &B->pairs[p];
        double w[4], vec[3];
        alcV3 nrm;
        if (!alcm_fric_weights(P->g, P->type == ALCR_EE, w, &nrm)) continue;
        double mu = alcr_friction_coef(B->m, P->v, P->type);
        for (int c = 0; c < 3; c++) {
            vec[c] = (f->kinetic ? -mu * f->lamTilde * f->dir[c] : f->phi[c]) * ih2;
        }
        if (p < n) memcpy(out[p].frictionForce, vec, sizeof vec);
        for (int a = 0; a < 4; a++) {
            int b = B->m->vert_body[P->v[a]];
            for (int c = 0; c < 3; c++) bodyForce[3 * b + c] += w[a] * vec[c];
        }
    }
}

alctStatus alcr_mlcp_setCarry(alcrBackend* B, const alciMlcpFric* in, int n) {
    if (n < 0 || (n > 0 && !in)) return ALC_ERR_INVALID_ARG;
    if (!B->mlcpCarry) {
        if (n == 0) return ALC_OK;
        B->mlcpCarry = (FricCarry*)calloc(1, sizeof(FricCarry));
        if (!B->mlcpCarry) return ALC_ERR_NOMEM;
    }
    alctStatus st = carryReserve(B->mlcpCarry, n);
    if (st != ALC_OK) return st;
    if (n) memcpy(B->mlcpCarry->s, in, sizeof(alciMlcpFric) * (size_t)n);
    B->mlcpCarry->n = n;
    return ALC_OK;
}

static void rowsFree(Rows* R) {
    free(R->pairOf);
    free(R->vert);
    free(R->grad);
    free(R->c);
    free(R->lam);
    free(R->act);
    free(R->z);
    free(R->w);
    free(R->nrm);
    free(R->key);
    free(R->mu);
    free(R->T);
    free(R->tgrad);
    free(R->ct);
    free(R->kin);
    free(R->phi);
    free(R->dir);
    free(R->lt);
    free(R->hist);
    memset(R, 0, sizeof *R);
}

static alctStatus rowsReserve(Rows* R, int m) {
    if (R->pairOf && m <= R->cap) return ALC_OK;
    int cap = m + m / 2 + 16;
    rowsFree(R);
    R->pairOf = (int*)malloc(sizeof(int) * (size_t)cap);
    R->vert = (int*)malloc(sizeof(int) * 4 * (size_t)cap);
    R->grad = (double*)malloc(sizeof(double) * 12 * (size_t)cap);
    R->c = (double*)malloc(sizeof(double) * (size_t)cap);
    R->lam = (double*)malloc(sizeof(double) * (size_t)cap);
    R->act = (int*)malloc(sizeof(int) * (size_t)cap);
    R->z = (double*)malloc(sizeof(double) * (size_t)cap);
    R->w = (double*)malloc(sizeof(double) * 4 * (size_t)cap);
    R->nrm = (double*)malloc(sizeof(double) * 3 * (size_t)cap);
    R->key = (long long*)malloc(sizeof(long long) * (size_t)cap);
    R->mu = (double*)malloc(sizeof(double) * (size_t)cap);
    R->T = (double*)malloc(sizeof(double) * 6 * (size_t)cap);
    R->tgrad = (double*)malloc(sizeof(double) * 24 * (size_t)cap);
    R->ct = (double*)malloc(sizeof(double) * 2 * (size_t)cap);
    R->kin = (int*)malloc(sizeof(int) * (size_t)cap);
    R->phi = (double*)malloc(sizeof(double) * 2 * (size_t)cap);
    R->dir = (double*)malloc(sizeof(double) * 2 * (size_t)cap);
    R->lt = (double*)malloc(sizeof(double) * (size_t)cap);
    R->hist = (double*)malloc(sizeof(double) * (size_t)cap);
    if (!R->pairOf || !R->vert || !R->grad || !R->c || !R->lam || !R->act || !R->z || !R->w ||
        !R->nrm || !R->key || !R->mu || !R->T || !R->tgrad || !R->ct || !R->kin || !R->phi ||
        !R->dir || !R->lt || !R->hist) {
        rowsFree(R);
        return ALC_ERR_NOMEM;
    }
    R->cap = cap;
    return ALC_OK;
}

/// Rows of the pairs linearized at X for the end state base + p; returns their count. A pair
/// of kinematic vertices only has no row (nothing in the solve moves it).
static int buildRows(const alcrBackend* B, const double* base, Rows* R) {
    int m = 0;
    double delta = B->cp.delta;
    for (int k = 0; k < B->npair; k++) {
        const alcrPair* P = &B->pairs[k];
        int free = 0;
        double c = delta - P->d;
        for (int a = 0; a < 4; a++) {
            int v = P->v[a];
            for (int j = 0; j < 3; j++) c -= P->g[3 * a + j] * (base[3 * v + j] - B->x[3 * v + j]);
            R->vert[4 * m + a] = B->kin[v] ? -1 : v;
            free |= !B->kin[v];
        }
        if (!free) continue;
        memcpy(R->grad + 12 * m, P->g, sizeof P->g);
        R->c[m] = c;
        R->lam[m] = P->lambda > 0 ? P->lambda : 0;
        R->act[m] = P->active && P->lambda > 0;
        R->pairOf[m] = k;
        R->key[m] = P->key;
        m++;
    }
    return m;
}

/// Keep the friction state of the m rows solved last, by key, in world coordinates.
static alctStatus carrySave(const Rows* R, int m, FricCarry* F) {
    alctStatus st = carryReserve(F, m);
    if (st != ALC_OK) return st;
    for (int r = 0; r < m; r++) {
        const double* T = R->T + 6 * r;
        alciMlcpFric* f = &F->s[r];
        memset(f, 0, sizeof *f);
        f->key = R->key[r];
        f->kinetic = R->act[r] && R->kin[r];
        f->lamTilde = R->lt[r];
        f->hist = R->hist[r];
        for (int c = 0; c < 3; c++) {
            f->phi[c] = R->phi[2 * r] * T[c] + R->phi[2 * r + 1] * T[3 + c];
            f->dir[c] = R->dir[2 * r] * T[c] + R->dir[2 * r + 1] * T[3 + c];
        }
    }
    F->n = m;
    return ALC_OK;
}

/// The friction rows of the m rows just built (V&J §2.2's tangent rows in positions): contact
/// r's slip over the step is s_j = t_j . sum_a w_a (q_a - x^t_a), with the closest-point
/// weights w and tangents t at X (alcm_fric_weights, alcm_fric_basis); static friction holds
/// s = 0, so a point on a moving obstacle carries the contact along: J_t p = c_t with
/// c_t,j = -t_j . sum_a w_a (base_a - x^t_a). The solver's state is taken from the last round
/// by key (both lists are sorted by it); a pair new to the step starts static with no force.
static void buildFriction(const alcrBackend* B, const double* base, Rows* R, int m,
                          const FricCarry* F) {
    int j = 0;
    for (int r = 0; r < m; r++) {
        const alcrPair* P = &B->pairs[R->pairOf[r]];
        double w[4], *T = R->T + 6 * r, *tg = R->tgrad + 24 * r;
        alcV3 n;
        double mu = alcr_friction_coef(B->m, P->v, P->type);
        if (!(mu > 0) || !alcm_fric_weights(P->g, P->type == ALCR_EE, w, &n)) {
            mu = 0;
            n = alcm_v3(1, 0, 0);
            memset(w, 0, sizeof w);
        }
        alcm_fric_basis(n, T);
        R->mu[r] = mu;
        for (int t = 0; t < 2; t++) {
            double c = 0;
            for (int a = 0; a < 4; a++) {
                int v = P->v[a];
                for (int q = 0; q < 3; q++) {
                    tg[12 * t + 3 * a + q] = w[a] * T[3 * t + q];
                    c -= w[a] * T[3 * t + q] * (base[3 * v + q] - B->xt[3 * v + q]);
                }
            }
            R->ct[2 * r + t] = c;
        }
        while (j < F->n && F->s[j].key < R->key[r]) j++;
        R->kin[r] = 0;
        R->phi[2 * r] = R->phi[2 * r + 1] = 0;
        R->dir[2 * r] = 1;
        R->dir[2 * r + 1] = 0;
        R->lt[r] = R->hist[r] = 0;
        if (j >= F->n || F->s[j].key != R->key[r]) continue;
        const double *pw = F->s[j].phi, *dw = F->s[j].dir;
        R->phi[2 * r] = pw[0] * T[0] + pw[1] * T[1] + pw[2] * T[2];
        R->phi[2 * r + 1] = pw[0] * T[3] + pw[1] * T[4] + pw[2] * T[5];
        double d0 = dw[0] * T[0] + dw[1] * T[1] + dw[2] * T[2];
        double d1 = dw[0] * T[3] + dw[1] * T[4] + dw[2] * T[5], dn = hypot(d0, d1);
        if (F->s[j].kinetic && dn > 0) {
            R->kin[r] = 1;
            R->dir[2 * r] = d0 / dn;
            R->dir[2 * r + 1] = d1 / dn;
            R->lt[r] = F->s[j].lamTilde;
            R->hist[r] = F->s[j].hist;
        }
    }
}

/// Verschoor and Jalba's duplicate counts (§3.4.1): Z_a = 1 + sum over the rows b sharing a
/// free vertex with a of prod over the shared vertices i of (1 - |w_ai - w_bi|), the slot
/// weights measured along each row's normal; beyond the paper, each term is also scaled by
/// max(0, n_a . n_b), so that rows sharing a vertex but pushing in different directions (a
/// vertex in a corner, or squeezed between two surfaces) are not counted as duplicates. inc:
/// the rows at each vertex (CSR over nvert, built here into the caller's scratch).
static alctStatus duplicateCounts(Rows* R, int m, int nvert, int** incAdr, int** incList,
                                  int* incCap) {
    for (int k = 0; k < m; k++) {
        const double* g = R->grad + 12 * k;
        int best = 0;
        double bn = -1;
        for (int a = 0; a < 4; a++) {
            double n2 =
                g[3 * a] * g[3 * a] + g[3 * a + 1] * g[3 * a + 1] + g[3 * a + 2] * g[3 * a + 2];
            if (n2 > bn) {
                bn = n2;
                best = a;
            }
        }
        double inv = bn > 0 ? 1.0 / sqrt(bn) : 0;
        double* n = R->nrm + 3 * k;
        for (int j = 0; j < 3; j++) n[j] = g[3 * best + j] * inv;
        for (int a = 0; a < 4; a++) {
            R->w[4 * k + a] = g[3 * a] * n[0] + g[3 * a + 1] * n[1] + g[3 * a + 2] * n[2];
        }
    }
    if (!*incAdr) {
        *incAdr = (int*)malloc(sizeof(int) * ((size_t)nvert + 1));
        if (!*incAdr) return ALC_ERR_NOMEM;
    }
    if (*incCap < 4 * m) {
        int cap = 4 * m + 64;
        int* l = (int*)realloc(*incList, sizeof(int) * (size_t)cap);
        if (!l) return ALC_ERR_NOMEM;
        *incList = l;
        *incCap = cap;
    }
    int *adr = *incAdr, *list = *incList;
    memset(adr, 0, sizeof(int) * ((size_t)nvert + 1));
    for (int k = 0; k < 4 * m; k++) {
        if (R->vert[k] >= 0) adr[R->vert[k] + 1]++;
    }
    for (int v = 0; v < nvert; v++) adr[v + 1] += adr[v];
    for (int k = 0; k < 4 * m; k++) {
        int v = R->vert[k];
        if (v >= 0) list[adr[v]++] = k >> 2;
    }
    for (int v = nvert; v > 0; v--) adr[v] = adr[v - 1];
    adr[0] = 0;
    for (int a = 0; a < m; a++) {
        double z = 1;
        const int* va = R->vert + 4 * a;
        for (int s = 0; s < 4; s++) {
            int v = va[s];
            if (v < 0) continue;
            for (int q = adr[v]; q < adr[v + 1]; q++) {
                int b = list[q];
                if (b == a) continue;
                // count the pair (a, b) once: at the first slot of a whose vertex b shares
                const int* vb = R->vert + 4 * b;
                int first = 1;
                for (int t = 0; t < s && first; t++) {
                    if (va[t] < 0) continue;
                    for (int u = 0; u < 4; u++) first &= vb[u] != va[t];
                }
                if (!first) continue;
                double sim = 1;
                for (int t = 0; t < 4; t++) {
                    if (va[t] < 0) continue;
                    for (int u = 0; u < 4; u++) {
                        if (vb[u] != va[t]) continue;
                        double d = fabs(fabs(R->w[4 * a + t]) - fabs(R->w[4 * b + u]));
                        sim *= d < 1 ? 1 - d : 0;
                    }
                }
                const double *na = R->nrm + 3 * a, *nb = R->nrm + 3 * b;
                double c = na[0] * nb[0] + na[1] * nb[1] + na[2] * nb[2];
                z += sim * (c > 0 ? c : 0);
            }
        }
        R->z[a] = z;
    }
    return ALC_OK;
}

static alctStatus keysReserve(long long** keys, int* cap, int n) {
    if (n <= *cap) return ALC_OK;
    int c = n + n / 2 + 16;
    long long* k = (long long*)realloc(*keys, sizeof(long long) * (size_t)c);
    if (!k) return ALC_ERR_NOMEM;
    *keys = k;
    *cap = c;
    return ALC_OK;
}

/// Whether the active set holds a key that the sorted list keys[0, n) does not (a pair that
/// the merge added; it may also have dropped decayed ones).
static int anyNewKey(const alcrBackend* B, const long long* keys, int n) {
    int j = 0;
    for (int k = 0; k < B->npair; k++) {
        long long key = B->pairs[k].key;
        while (j < n && keys[j] < key) j++;
        if (j >= n || keys[j] != key) return 1;
    }
    return 0;
}

/// Largest delta - d over the pairs (distances at X), at least 0; and whether every pair with
/// a positive multiplier has d within tol of delta and none is below delta - tol.
static int pairsHold(const alcrBackend* B, double tol, double* violation) {
    int ok = 1;
    double worst = 0, delta = B->cp.delta;
    for (int k = 0; k < B->npair; k++) {
        const alcrPair* P = &B->pairs[k];
        int free = 0;
        for (int a = 0; a < 4; a++) free |= !B->kin[P->v[a]];
        if (!free) continue;
        double gap = P->d - delta;
        if (-gap > worst) worst = -gap;
        if (gap < -tol || (P->lambda > 0 && gap > tol)) ok = 0;
    }
    *violation = worst;
    return ok;
}

alctStatus alcr_mlcp_step(alcrBackend* B, const alciMlcpParams* prm, alciMlcpOut* out) {
    memset(out, 0, sizeof *out);
    out->alphaMin = 1;
    int N = B->N;
    double t0 = alci_now();
    // the quadratic model at XHAT^0 (beginStep left the free vertices at x^t, the kinematic
    // ones at their targets)
    alciAssembleOut aout;
    memset(&aout, 0, sizeof aout);
    alctStatus st = alcr_contact_pattern(B);
    if (st == ALC_OK) st = alcr_elastic_assemble(B, &aout);
    if (st != ALC_OK) return st;
    double* base = (double*)malloc(sizeof(double) * 3 * (size_t)N);
    if (!base) return ALC_ERR_NOMEM;
    double *rhs = base + N, *pPrev = rhs + N;
    memcpy(base, B->xhat, sizeof(double) * (size_t)N);
    for (int i = 0; i < N; i++) rhs[i] = -B->g[i];
    memset(B->p, 0, sizeof(double) * (size_t)N);
    alcr_contact_linearize(B);  // the carried pairs at X = x^t
    out->tAssemble = alci_now() - t0;

    // tolerances: eps2 in m; eps1 on the force residual (kg m, the units of G) of a per-DOF
    // position error of 1e-2 eps2 at the mean nodal mass
    double mbar = alci_model_meanMass(B->m);
    if (!(mbar > 0)) mbar = 1;
    alcrCrOptions co = alcr_cr_defaultOptions();
    co.precond = prm->precond == ALC_MLCP_DIAG ? ALCR_CR_DIAG : ALCR_CR_FULL;
    co.eps2 = 0.1 * prm->gapTol;
    co.eps1 = 1e-2 * prm->gapTol * mbar * sqrt((double)N);
    co.maxIter = prm->maxCr;

    Rows R;
    memset(&R, 0, sizeof R);
    if (prm->friction && !B->mlcpCarry) {
        B->mlcpCarry = (FricCarry*)calloc(1, sizeof(FricCarry));
        if (!B->mlcpCarry) {
            free(base);
            return ALC_ERR_NOMEM;
        }
    }
    FricCarry* fc = B->mlcpCarry;
    int mPrev = 0;
    long long* keys = NULL;
    int keyCap = 0;
    int *incAdr = NULL, *incList = NULL, incCap = 0;
    for (int round = 0; round < prm->maxRounds; round++) {
        st = alci_cancelled(B->sim, prm->data, "mlcp-cr round", round);
        if (st != ALC_OK) break;
        // the MLCP of the pairs linearized at X
        double ts = alci_now();
        if (prm->friction && mPrev > 0) st = carrySave(&R, mPrev, fc);
        if (st == ALC_OK) st = rowsReserve(&R, B->npair);
        if (st != ALC_OK) break;
        int m = buildRows(B, base, &R);
        if (prm->friction) buildFriction(B, base, &R, m, fc);
        if (prm->duplicates) st = duplicateCounts(&R, m, B->n, &incAdr, &incList, &incCap);
        if (st != ALC_OK) break;
        alcrCrRows rows = {m, R.vert, NULL, NULL, R.grad, R.c, prm->duplicates ? R.z : NULL};
        alcrCrResult res;
        memcpy(pPrev, B->p, sizeof(double) * (size_t)N);
        alcrCrFriction fr = {R.mu,   R.tgrad,       R.ct,           R.kin, R.phi, R.dir, R.lt,
                             R.hist, prm->thetaTol, prm->thetaRate, 0,     0,     0};
        st = alcr_cr_solveFriction(&B->A, rhs, &rows, prm->friction ? &fr : NULL, &co, B->p, R.lam,
                                   R.act, 1, &res);
        if (st != ALC_OK) break;
        mPrev = m;
        out->frictionSwitches += fr.switches;
        out->kinetic = fr.kineticCount;
        out->sticking = fr.staticCount;
        alci_log(B->sim, 3,
                 "mlcp-cr round %d: %d rows, %d CR iterations (%s), residual %.3e (from %.3e), "
                 "%d activations, %d releases",
                 round + 1, m, res.iters, res.converged ? "converged" : "at the cap", res.rnorm,
                 res.rnorm0, res.activations, res.releases);
        if (!res.converged) out->crCapped++;
        if (!res.converged && !(res.rnorm <= res.rnorm0)) {
            // cycling between constraint states (or a breakdown) to the cap, ending further
            // from a solution than it started: that iterate is no solution, and solving the
            // same MLCP again would do the same; the step ends at X, intersection-free, short
            // of the solution (warned by the caller). A capped solve that lowered its residual
            // is kept: near-duplicate rows make CR trade multipliers among themselves at a
            // residual that is already small
            out->rounds++;
            out->crIters += res.iters;
            if (res.iters > out->crMax) out->crMax = res.iters;
            out->crFailed = 1;
            memcpy(B->p, pPrev, sizeof(double) * (size_t)N);
            out->tSolve += alci_now() - ts;
            break;
        }
        out->rounds++;
        out->crIters += res.iters;
        if (res.iters > out->crMax) out->crMax = res.iters;
        if (m > out->contactsMax) out->contactsMax = m;
        out->contactsSum += m;
        for (int k = 0; k < B->npair; k++) B->pairs[k].active = 0;
        for (int r = 0; r < m; r++) {
            alcrPair* P = &B->pairs[R.pairOf[r]];
            P->lambda = R.act[r] ? R.lam[r] : 0;
            P->active = R.act[r];
            P->gamma = 1;
        }
        for (int i = 0; i < N; i++) B->xhat[i] = base[i] + B->p[i];
        for (int r = 0; r < m; r++) {
            // the linearized constraint at q (the step-size CCD's floor reads it)
            const double* g = R.grad + 12 * r;
            double c = -R.c[r];
            for (int a = 0; a < 4; a++) {
                int v = R.vert[4 * r + a];
                if (v < 0) continue;
                for (int j = 0; j < 3; j++) c += g[3 * a + j] * B->p[3 * v + j];
            }
            B->pairs[R.pairOf[r]].c = c;
        }
        out->tSolve += alci_now() - ts;

        // CCD along X -> q: new pairs, and how far the path is clean
        ts = alci_now();
        alciCollectOut cout;
        st = alcr_ccd_collect(B, &cout);
        if (st != ALC_OK) break;
        if (cout.ncandidates > out->candidatesMax) out->candidatesMax = cout.ncandidates;
        int before = B->npair, nact = 0;
        st = keysReserve(&keys, &keyCap, before);
        if (st != ALC_OK) break;
        for (int k = 0; k < before; k++) keys[k] = B->pairs[k].key;
        B->grown = 0;
        st = alcr_contact_merge(B, &nact);
        if (st != ALC_OK) break;
        if (B->grown) {
            // the pair buffers grew, and the matrix with them (growPairs makes it anew, empty):
            // A is assembled again at XHAT^0, the same values in the larger pattern
            out->bufferGrows++;
            memcpy(pPrev, B->xhat, sizeof(double) * (size_t)N);
            memcpy(B->xhat, base, sizeof(double) * (size_t)N);
            st = alcr_contact_pattern(B);
            if (st == ALC_OK) st = alcr_elastic_assemble(B, &aout);
            memcpy(B->xhat, pPrev, sizeof(double) * (size_t)N);
            if (st != ALC_OK) break;
        }
        int added = anyNewKey(B, keys, before);
        double alpha = cout.minToi < 1 ? cout.minToi : 1;
        if (!added && (prm->nonInvertible || prm->allTets)) {
            double ainv =
                alcr_elastic_endStep(B, B->x, B->xhat, prm->fraction, prm->allTets, alpha);
            if (ainv < alpha) alpha = ainv;
        }
        if (alpha < 0) alpha = 0;
        if (added) {
            // the new pairs at X; X does not move: alpha 0
            alcr_contact_linearize(B);
            out->tCcd += alci_now() - ts;
            continue;
        }
        out->alphaSum += alpha;
        if (alpha < out->alphaMin) out->alphaMin = alpha;
        if (alpha < 1) {
            for (int i = 0; i < N; i++) B->x[i] += alpha * (B->xhat[i] - B->x[i]);
            alcr_contact_linearize(B);
            out->advances++;
            out->tCcd += alci_now() - ts;
            continue;
        }
        memcpy(B->x, B->xhat, sizeof(double) * (size_t)N);
        alcr_contact_linearize(B);
        out->tCcd += alci_now() - ts;
        if (pairsHold(B, prm->gapTol, &out->violation)) {
            out->converged = 1;
            break;
        }
        out->relinearized++;
    }
    if (!out->converged) pairsHold(B, prm->gapTol, &out->violation);
    // pairs whose multiplier stayed zero this step decay (AL paper Alg. 3's Gamma)
    for (int k = 0; k < B->npair; k++) {
        alcrPair* P = &B->pairs[k];
        if (!(P->lambda > 0)) P->gamma *= B->cp.decay;
    }
    // the states of the last solve go to the next step (none when it had no rows)
    if (prm->friction && st == ALC_OK) st = carrySave(&R, mPrev, fc);
    rowsFree(&R);
    free(keys);
    free(incAdr);
    free(incList);
    free(base);
    return st;
}
