// The reference backend's Hessian pattern rebuild (alcr_bsr_setPattern, host/ref/bsr_ref.h):
// the static pattern merged with the couplings of contact stencils of 4 vertices or, where a
// stencil touches rigid bodies, of up to 8 DOF nodes with unused slots negative.
#include "ref/bsr_ref.h"
#include "test_macros.h"
#include "test_rng.h"

#include <stdlib.h>
#include <string.h>

ALC_TEST(bsr_patternStencils) {
    rngSeed(303);
    enum { N = 60, NSTAT = 3, NPAIR = 40 };
    for (int width = 4; width <= 8; width += 4) {
        // the static pattern: the diagonal and a few symmetric couplings per row
        unsigned char want[N][N];
        memset(want, 0, sizeof want);
        for (int i = 0; i < N; i++) {
            want[i][i] = 1;
            for (int k = 0; k < NSTAT; k++) {
                int j = (int)(rngUniform() * N);
                want[i][j] = want[j][i] = 1;
            }
        }
        int srowptr[N + 1], scol[N * N];
        int nnz = 0;
        for (int i = 0; i < N; i++) {
            srowptr[i] = nnz;
            for (int j = 0; j < N; j++)
                if (want[i][j]) scol[nnz++] = j;
        }
        srowptr[N] = nnz;
        // stencils with repeated and unused (-1) slots
        int sv[NPAIR * 8];
        for (int p = 0; p < NPAIR; p++) {
            for (int a = 0; a < width; a++) {
                double u = rngUniform();
                sv[width * p + a] = u < 0.25 ? -1 : (int)(rngUniform() * N);
            }
            for (int a = 0; a < width; a++) {
                for (int b = 0; b < width; b++) {
                    int i = sv[width * p + a], j = sv[width * p + b];
                    if (i >= 0 && j >= 0) want[i][j] = 1;
                }
            }
        }
        alcrBsr A;
        ENSURE_OK(alcr_bsr_make(&A, N, N * N, width * (width - 1) * NPAIR));
        int needed = 0;
        ENSURE_OK(alcr_bsr_setPattern(&A, srowptr, scol, NPAIR, width, sv, &needed));
        for (int i = 0; i < N; i++) {
            int k = A.rowptr[i];
            for (int j = 0; j < N; j++) {
                if (!want[i][j]) continue;
                ENSURE_MSG(k < A.rowptr[i + 1] && A.col[k] == j, "width %d: row %d lacks %d", width,
                           i, j);
                if (j == i) ENSURE(A.diag[i] == k);
                k++;
            }
            ENSURE_MSG(k == A.rowptr[i + 1], "width %d: row %d has extra blocks", width, i);
        }
        // a scratch too small for the stencils: refused, with the size needed
        alcr_bsr_free(&A);
        ENSURE_OK(alcr_bsr_make(&A, N, N * N, width * (width - 1) * NPAIR - 1));
        ENSURE(alcr_bsr_setPattern(&A, srowptr, scol, NPAIR, width, sv, &needed) ==
               ALC_ERR_CAPACITY);
        ENSURE(needed >= srowptr[N] + width * (width - 1) * NPAIR);
        alcr_bsr_free(&A);
    }
    return ALC_TEST_PASS;
}
