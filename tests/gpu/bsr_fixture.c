// Reference BSR matrices for the linear-solver GPU tests (bsr_fixture.h).
#include "bsr_fixture.h"

#include "alc_internal.h"
#include "gpu_fixture.h"
#include "ref/backend_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double alct_rnd(unsigned long long* state) {
    unsigned long long z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/// A full copy of src into dst (same capacity as its block count).
static int copyBsr(alcrBsr* dst, const alcrBsr* src) {
    int cap = src->nnzb > 0 ? src->nnzb : 1;
    if (alcr_bsr_make(dst, src->n, cap, 0) != ALC_OK) return 0;
    memcpy(dst->rowptr, src->rowptr, sizeof(int) * ((size_t)src->n + 1));
    memcpy(dst->col, src->col, sizeof(int) * (size_t)src->nnzb);
    memcpy(dst->val, src->val, sizeof(double) * 9 * (size_t)src->nnzb);
    memcpy(dst->diag, src->diag, sizeof(int) * (size_t)src->n);
    dst->nnzb = src->nnzb;
    return 1;
}

/// Reference matrices made so far (kept for the process: reachable, not leaked).
#define MAX_SCENES 32
static struct {
    const char* scene;
    alcrBsr A;
    double* rhs;
} g_scenes[MAX_SCENES];
static int g_nscene;

static int makeScene(const char* scene, alcrBsr* A, double** rhs) {
    alctMotion mo;
    memset(A, 0, sizeof *A);
    *rhs = NULL;
    if (!alct_motionMake(scene, 2, 1.0, &mo)) return 0;
    const alcrBackend* B = (const alcrBackend*)mo.sim->be.state;
    int ok = B->A.n == mo.nvert && B->A.nnzb >= B->A.n && copyBsr(A, &B->A);
    // populated: some nonzero value
    double maxAbs = 0;
    for (long long k = 0; ok && k < 9LL * A->nnzb; k++) maxAbs = fmax(maxAbs, fabs(A->val[k]));
    if (ok && !(maxAbs > 0)) {
        fprintf(stderr, "  %s: the reference matrix is empty\n", scene);
        ok = 0;
    }
    if (ok) {
        *rhs = (double*)malloc(sizeof(double) * 3 * (size_t)A->n);
        ok = *rhs != NULL;
        for (int i = 0; ok && i < 3 * A->n; i++) (*rhs)[i] = -B->g[i];
    }
    alct_motionFree(&mo);
    if (!ok) {
        alcr_bsr_free(A);
        free(*rhs);
        *rhs = NULL;
    }
    return ok;
}

int alct_bsrScene(const char* scene, const alcrBsr** A, const double** rhs) {
    for (int k = 0; k < g_nscene; k++) {
        if (strcmp(g_scenes[k].scene, scene) == 0) {
            *A = &g_scenes[k].A;
            *rhs = g_scenes[k].rhs;
            return 1;
        }
    }
    if (g_nscene == MAX_SCENES ||
        !makeScene(scene, &g_scenes[g_nscene].A, &g_scenes[g_nscene].rhs)) {
        return 0;
    }
    g_scenes[g_nscene].scene = scene;
    *A = &g_scenes[g_nscene].A;
    *rhs = g_scenes[g_nscene].rhs;
    g_nscene++;
    return 1;
}

static int cmpInt(const void* a, const void* b) {
    int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

int alct_bsrRandom(alcrBsr* A, int n, int deg, unsigned long long seed, int spd) {
    // symmetric pattern: each row links to deg/2 random others, mirrored, plus the diagonal
    int half = deg / 2 > 0 ? deg / 2 : 1;
    long long cap = (long long)n * (2 * half + 1);
    int* cnt = (int*)calloc((size_t)n + 1, sizeof(int));
    int* link = (int*)malloc(sizeof(int) * (size_t)(n * half > 0 ? n * half : 1));
    if (!cnt || !link || alcr_bsr_make(A, n, (int)(cap > 0 ? cap : 1), 0) != ALC_OK) {
        free(cnt);
        free(link);
        return 0;
    }
    for (int i = 0; i < n * half; i++) {
        int r = i / half;
        int c = (int)((alct_rnd(&seed) + 1.0) * 0.5 * n);
        link[i] = c < n ? c : n - 1;
        if (link[i] != r) {
            cnt[r]++;
            cnt[link[i]]++;
        }
    }
    // rows: diagonal plus the links both ways, sorted, duplicates dropped
    int* fill = (int*)calloc((size_t)n + 1, sizeof(int));
    A->rowptr[0] = 0;
    for (int i = 0; i < n; i++) A->rowptr[i + 1] = A->rowptr[i] + cnt[i] + 1;
    for (int i = 0; i < n; i++) A->col[A->rowptr[i] + fill[i]++] = i;
    for (int i = 0; i < n * half; i++) {
        int r = i / half, c = link[i];
        if (c == r) continue;
        A->col[A->rowptr[r] + fill[r]++] = c;
        A->col[A->rowptr[c] + fill[c]++] = r;
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        int lo = A->rowptr[i], hi = A->rowptr[i + 1];
        qsort(A->col + lo, (size_t)(hi - lo), sizeof(int), cmpInt);
        A->rowptr[i] = k;
        for (int t = lo; t < hi; t++) {
            if (t == lo || A->col[t] != A->col[t - 1]) A->col[k++] = A->col[t];
        }
    }
    A->rowptr[n] = k;
    A->nnzb = k;
    free(cnt);
    free(link);
    free(fill);
    // upper blocks random, lower blocks their transposes
    for (int i = 0; i < n; i++) {
        for (int t = A->rowptr[i]; t < A->rowptr[i + 1]; t++) {
            int j = A->col[t];
            if (j == i) A->diag[i] = t;
            if (j <= i) continue;
            double* b = A->val + 9 * t;
            for (int e = 0; e < 9; e++) b[e] = alct_rnd(&seed);
            double* m = A->val + 9 * alcr_bsr_find(A, j, i);
            for (int r = 0; r < 3; r++) {
                for (int c = 0; c < 3; c++) m[3 * c + r] = b[3 * r + c];
            }
        }
    }
    // diagonal blocks: S S^T + (row sum of |off-diagonal| + 1) I, symmetric
    for (int i = 0; i < n; i++) {
        double rowAbs = 0, s[9];
        for (int t = A->rowptr[i]; t < A->rowptr[i + 1]; t++) {
            if (A->col[t] == i) continue;
            for (int e = 0; e < 9; e++) rowAbs += fabs(A->val[9 * t + e]);
        }
        for (int e = 0; e < 9; e++) s[e] = alct_rnd(&seed);
        double* d = A->val + 9 * A->diag[i];
        for (int r = 0; r < 3; r++) {
            for (int c = 0; c < 3; c++) {
                d[3 * r + c] = s[3 * r] * s[3 * c] + s[3 * r + 1] * s[3 * c + 1] +
                               s[3 * r + 2] * s[3 * c + 2] + (r == c ? rowAbs / 3 + 1 : 0);
            }
        }
        if (spd || i % 5 != 0) continue;
        // singular and indefinite diagonal blocks for the block-Jacobi fallback
        switch ((i / 5) % 4) {
            case 0:  // zero
                for (int e = 0; e < 9; e++) d[e] = 0;
                break;
            case 1:  // rank 1, zero diagonal entry
                for (int r = 0; r < 3; r++) {
                    for (int c = 0; c < 3; c++) d[3 * r + c] = (r + 1.0) * c;
                }
                break;
            case 2:  // rank 2
                for (int c = 0; c < 3; c++) d[6 + c] = d[c] + d[3 + c];
                break;
            default:  // indefinite
                d[0] = -d[0];
                break;
        }
    }
    return 1;
}

int alct_bsrAsymmetric(const alcrBsr* A) {
    int bad = 0;
    for (int i = 0; i < A->n; i++) {
        for (int t = A->rowptr[i]; t < A->rowptr[i + 1]; t++) {
            int j = A->col[t];
            if (j == i) continue;
            int u = alcr_bsr_find(A, j, i);
            if (u < 0) {
                bad++;
                continue;
            }
            const double* a = A->val + 9 * t;
            const double* b = A->val + 9 * u;
            for (int e = 0; e < 9; e++) {
                if (a[e] != b[3 * (e % 3) + e / 3]) {
                    bad++;
                    break;
                }
            }
        }
    }
    return bad;
}

int alct_bsrUpload(const alcrBsr* A, alcgBsr* D, alcgStream* s) {
    int* d_rowptr = NULL;
    int* d_col = NULL;
    double* d_val = NULL;
    void* d_temp = NULL;
    size_t temp = 0, nb = (size_t)(A->nnzb > 0 ? A->nnzb : 1);
    int ok = alcg_bsr_make(D, A->n, (int)nb, s) == ALC_OK &&
             alcg_malloc(s, (void**)&d_rowptr, sizeof(int) * ((size_t)A->n + 1)) == ALC_OK &&
             alcg_malloc(s, (void**)&d_col, sizeof(int) * nb) == ALC_OK &&
             alcg_malloc(s, (void**)&d_val, sizeof(double) * 9 * nb) == ALC_OK &&
             alcg_upload(s, d_rowptr, A->rowptr, sizeof(int) * ((size_t)A->n + 1)) == ALC_OK &&
             alcg_upload(s, d_col, A->col, sizeof(int) * (size_t)A->nnzb) == ALC_OK &&
             alcg_upload(s, d_val, A->val, sizeof(double) * 9 * (size_t)A->nnzb) == ALC_OK &&
             alcg_bsr_fromFull(D, NULL, NULL, NULL, NULL, &temp, s) == ALC_OK &&
             alcg_malloc(s, &d_temp, temp) == ALC_OK &&
             alcg_bsr_fromFull(D, d_rowptr, d_col, d_val, d_temp, &temp, s) == ALC_OK;
    if (!ok) fprintf(stderr, "  device matrix: %s\n", s->err);
    alcg_free(d_rowptr);
    alcg_free(d_col);
    alcg_free(d_val);
    alcg_free(d_temp);
    return ok;
}
