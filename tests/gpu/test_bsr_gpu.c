// cuda/bsr.cu against host/ref/bsr_ref.c: the upper triangle and transpose index taken from the
// reference's full-storage matrices (exact), y = A x against alcr_bsr_spmv (per component to
// 1e-13 of the sum of |terms|; bit for bit in the emulation, where the summation order is the
// reference's and the lower blocks are exact transposes), run-to-run bitwise reproducibility,
// and the block-Jacobi inverses against alcr_bsr_blockJacobi (1e-12 of the block's largest
// entry), on the scenes' Hessians after two reference steps and on random matrices.
#include "../../cuda/bsr.h"
#include "../test_macros.h"
#include "bsr_fixture.h"
#include "gpu_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Relative tolerance of y = A x, of the sum of |terms|: a device fuses multiply-adds, and the
/// reference's lower blocks may differ from the upper ones' transposes by rounding (the
/// device reads the upper ones only). 0 in the emulation for an exactly symmetric matrix (same
/// order, no contraction).
#define SPMV_RTOL 1e-13
#if defined(ALC_EMU)
#define SPMV_EXACT 1
#else
#define SPMV_EXACT 0
#endif
#define JACOBI_RTOL 1e-12

/// The device pattern equals the reference's upper triangle; the transpose index lists, per
/// column, its strictly upper blocks by ascending row.
static int checkPattern(const alcrBsr* H, const alcgBsr* D, alcgStream* s, const char* label) {
    int n = H->n, nb = D->nnzb > 0 ? D->nnzb : 1;
    int* rowptr = (int*)malloc(sizeof(int) * ((size_t)n + 1));
    int* trowptr = (int*)malloc(sizeof(int) * ((size_t)n + 1));
    int* col = (int*)malloc(sizeof(int) * (size_t)nb);
    int* tblk = (int*)malloc(sizeof(int) * (size_t)nb);
    int* trow = (int*)malloc(sizeof(int) * (size_t)nb);
    double* val = (double*)malloc(sizeof(double) * 9 * (size_t)nb);
    ENSURE(rowptr && trowptr && col && tblk && trow && val);
    ENSURE_OK(alcg_download(s, rowptr, D->d_rowptr, sizeof(int) * ((size_t)n + 1)));
    ENSURE_OK(alcg_download(s, trowptr, D->d_trowptr, sizeof(int) * ((size_t)n + 1)));
    ENSURE_OK(alcg_download(s, col, D->d_col, sizeof(int) * (size_t)D->nnzb));
    ENSURE_OK(alcg_download(s, tblk, D->d_tblk, sizeof(int) * (size_t)D->nnzb));
    ENSURE_OK(alcg_download(s, trow, D->d_trow, sizeof(int) * (size_t)D->nnzb));
    ENSURE_OK(alcg_download(s, val, D->d_val, sizeof(double) * 9 * (size_t)D->nnzb));
    // upper triangle, in order, values bit for bit
    int k = 0;
    for (int i = 0; i < n; i++) {
        ENSURE_MSG(rowptr[i] == k, "%s: row %d starts at %d, expected %d", label, i, rowptr[i], k);
        for (int t = H->rowptr[i]; t < H->rowptr[i + 1]; t++) {
            if (H->col[t] < i) continue;
            ENSURE_MSG(k < D->nnzb && col[k] == H->col[t], "%s: block %d of row %d", label, k, i);
            ENSURE(memcmp(val + 9 * k, H->val + 9 * t, sizeof(double) * 9) == 0);
            k++;
        }
    }
    ENSURE_MSG(k == D->nnzb && rowptr[n] == k, "%s: %d upper blocks, device %d", label, k, D->nnzb);
    // transpose index: column j's strictly upper blocks by ascending row (a counting sort)
    int* start = (int*)calloc((size_t)n + 1, sizeof(int));
    ENSURE(start);
    for (int t = 0; t < D->nnzb; t++) start[col[t] + 1] += 1;
    for (int i = 0; i < n; i++) {
        if (rowptr[i] < rowptr[i + 1] && col[rowptr[i]] == i) start[i + 1]--;  // diagonal
    }
    for (int j = 0; j < n; j++) start[j + 1] += start[j];
    for (int j = 0; j <= n; j++) {
        ENSURE_MSG(trowptr[j] == start[j], "%s: column %d starts at %d, expected %d", label, j,
                   trowptr[j], start[j]);
    }
    for (int i = 0; i < n; i++) {
        for (int t = rowptr[i]; t < rowptr[i + 1]; t++) {
            int j = col[t];
            if (j == i) continue;
            int m = start[j]++;
            ENSURE_MSG(trow[m] == i && tblk[m] == t, "%s: transpose entry %d of column %d", label,
                       m, j);
        }
    }
    free(start);
    free(rowptr);
    free(trowptr);
    free(col);
    free(tblk);
    free(trow);
    free(val);
    return ALC_TEST_PASS;
}

/// y = A x on both sides for a random x: per component |dev - ref| <= SPMV_RTOL sum |terms|,
/// and two device runs bit for bit equal.
static int compareSpmv(const alcrBsr* H, const alcgBsr* D, alcgStream* s, unsigned long long seed,
                       const char* label, int* exact) {
    double rtol = SPMV_EXACT && alct_bsrAsymmetric(H) == 0 ? 0.0 : SPMV_RTOL * alct_tolScale();
    size_t N = 3 * (size_t)H->n;
    double* x = (double*)malloc(sizeof(double) * (N + 1));
    double* yr = (double*)malloc(sizeof(double) * (N + 1));
    double* yd = (double*)malloc(sizeof(double) * (N + 1));
    double* yd2 = (double*)malloc(sizeof(double) * (N + 1));
    double *d_x = NULL, *d_y = NULL;
    ENSURE(x && yr && yd && yd2);
    for (size_t i = 0; i < N; i++) x[i] = alct_rnd(&seed);
    ENSURE_OK(alcg_malloc(s, (void**)&d_x, sizeof(double) * N));
    ENSURE_OK(alcg_malloc(s, (void**)&d_y, sizeof(double) * N));
    ENSURE_OK(alcg_upload(s, d_x, x, sizeof(double) * N));
    alcr_bsr_spmv(H, x, yr);
    ENSURE_MSG(alcg_bsr_spmv(D, d_x, d_y, s) == ALC_OK, "%s: %s", label, s->err);
    ENSURE_OK(alcg_download(s, yd, d_y, sizeof(double) * N));
    ENSURE_OK(alcg_bsr_spmv(D, d_x, d_y, s));
    ENSURE_OK(alcg_download(s, yd2, d_y, sizeof(double) * N));
    ENSURE_MSG(memcmp(yd, yd2, sizeof(double) * N) == 0, "%s: two runs differ", label);
    int same = 1;
    for (int i = 0; i < H->n; i++) {
        for (int c = 0; c < 3; c++) {
            double mag = 0;
            for (int t = H->rowptr[i]; t < H->rowptr[i + 1]; t++) {
                const double* b = H->val + 9 * t + 3 * c;
                const double* xj = x + 3 * H->col[t];
                mag += fabs(b[0] * xj[0]) + fabs(b[1] * xj[1]) + fabs(b[2] * xj[2]);
            }
            double err = fabs(yd[3 * i + c] - yr[3 * i + c]);
            same &= yd[3 * i + c] == yr[3 * i + c];
            ENSURE_MSG(err <= rtol * mag, "%s: y[%d].%d = %.17g, host %.17g", label, i, c,
                       yd[3 * i + c], yr[3 * i + c]);
        }
    }
    *exact &= same;
    alcg_free(d_x);
    alcg_free(d_y);
    free(x);
    free(yr);
    free(yd);
    free(yd2);
    return ALC_TEST_PASS;
}

/// Block-Jacobi inverses on both sides: |dev - ref| <= JACOBI_RTOL max |ref block entry|.
static int compareJacobi(const alcrBsr* H, const alcgBsr* D, alcgStream* s, const char* label) {
    size_t n9 = 9 * (size_t)H->n;
    double* ir = (double*)malloc(sizeof(double) * (n9 + 1));
    double* id = (double*)malloc(sizeof(double) * (n9 + 1));
    double* d_inv = NULL;
    ENSURE(ir && id);
    ENSURE_OK(alcg_malloc(s, (void**)&d_inv, sizeof(double) * n9));
    alcr_bsr_blockJacobi(H, ir);
    ENSURE_MSG(alcg_bsr_blockJacobi(D, d_inv, s) == ALC_OK, "%s: %s", label, s->err);
    ENSURE_OK(alcg_download(s, id, d_inv, sizeof(double) * n9));
    for (int i = 0; i < H->n; i++) {
        double mag = 0;
        for (int e = 0; e < 9; e++) mag = fmax(mag, fabs(ir[9 * i + e]));
        for (int e = 0; e < 9; e++) {
            ENSURE_MSG(fabs(id[9 * i + e] - ir[9 * i + e]) <= JACOBI_RTOL * alct_tolScale() * mag,
                       "%s: inverse %d entry %d = %.17g, host %.17g", label, i, e, id[9 * i + e],
                       ir[9 * i + e]);
        }
    }
    alcg_free(d_inv);
    free(ir);
    free(id);
    return ALC_TEST_PASS;
}

/// Every comparison on one reference matrix.
static int matrixCases(const alcrBsr* H, const char* label, int* exact, int* asym) {
    alcgStream s;
    alcgBsr D;
    ENSURE_OK(alcg_stream_make(&s));
    ENSURE_MSG(alct_bsrUpload(H, &D, &s), "%s", label);
    int r = checkPattern(H, &D, &s, label);
    if (r == ALC_TEST_PASS) r = compareSpmv(H, &D, &s, 99, label, exact);
    if (r == ALC_TEST_PASS) r = compareJacobi(H, &D, &s, label);
    *asym += alct_bsrAsymmetric(H);
    alcg_bsr_free(&D);
    alcg_stream_free(&s);
    return r;
}

ALC_TEST(bsr_scenes) {
    int exact = 1, asym = 0, nrow = 0, nblk = 0;
    for (int i = 0; alct_gpuScenes[i]; i++) {
        const alcrBsr* H = NULL;
        const double* rhs = NULL;
        ENSURE_MSG(alct_bsrScene(alct_gpuScenes[i], &H, &rhs), "%s", alct_gpuScenes[i]);
        int r = matrixCases(H, alct_gpuScenes[i], &exact, &asym);
        nrow += H->n;
        nblk += H->nnzb;
        if (r != ALC_TEST_PASS) return r;
    }
    alct_note(
        "%d rows, %d full blocks; spmv %s the reference; %d mirror blocks not exact "
        "transposes",
        nrow, nblk, exact ? "bit for bit" : "within tolerance of", asym);
    return ALC_TEST_PASS;
}

ALC_TEST(bsr_random) {
    // sizes from the empty matrix to a few thousand rows; singular diagonal blocks included
    static const int sizes[] = {0, 1, 2, 7, 300, 4000};
    int exact = 1, asym = 0;
    for (int k = 0; k < 6; k++) {
        for (int spd = 0; spd < 2; spd++) {
            alcrBsr H;
            char label[48];
            snprintf(label, sizeof label, "random n %d spd %d", sizes[k], spd);
            ENSURE(alct_bsrRandom(&H, sizes[k], 12, 7 + (unsigned)k, spd));
            int r = matrixCases(&H, label, &exact, &asym);
            alcr_bsr_free(&H);
            if (r != ALC_TEST_PASS) return r;
        }
    }
    ENSURE(asym == 0);
#if defined(ALC_EMU)
    ENSURE(exact);
#endif
    return ALC_TEST_PASS;
}
