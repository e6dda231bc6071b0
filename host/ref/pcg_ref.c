// Preconditioned conjugate gradient (block Jacobi), deterministic reductions.
#include "ref/pcg_ref.h"

#include "ref/vec_ref.h"

#include <math.h>
#include <string.h>

/// Block row i of z = Minv r.
static inline void precondRow(const double* Minv, const double* r, double* z, int i) {
    const double* M = Minv + 9 * i;
    const double* ri = r + 3 * i;
    z[3 * i] = M[0] * ri[0] + M[1] * ri[1] + M[2] * ri[2];
    z[3 * i + 1] = M[3] * ri[0] + M[4] * ri[1] + M[5] * ri[2];
    z[3 * i + 2] = M[6] * ri[0] + M[7] * ri[1] + M[8] * ri[2];
}

static void applyPrecond(int n, const double* Minv, const double* r, double* z) {
    if (n > ALCR_PAR_MIN) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++) precondRow(Minv, r, z, i);
    } else {
        for (int i = 0; i < n; i++) precondRow(Minv, r, z, i);  // no parallel region: see spmv
    }
}

int alcr_pcg_solve(const alcrBsr* A, const double* Minv, const double* b, double* x, double tol,
                   int maxIter, double* work, int* iters) {
    int n = A->n, N = 3 * n;
    double* r = work;
    double* z = work + N;
    double* p = work + 2 * N;
    double* q = work + 3 * N;
    memset(x, 0, sizeof(double) * (size_t)N);
    memcpy(r, b, sizeof(double) * (size_t)N);
    double bnorm = sqrt(alcr_vec_dot(N, b, b));
    *iters = 0;
    if (bnorm == 0) return 1;
    applyPrecond(n, Minv, r, z);
    memcpy(p, z, sizeof(double) * (size_t)N);
    double rz = alcr_vec_dot(N, r, z);
    for (int it = 0; it < maxIter; it++) {
        alcr_bsr_spmv(A, p, q);
        double pq = alcr_vec_dot(N, p, q);
        if (!(pq > 0)) {
            // not positive definite along p (should not happen with PSD-projected blocks)
            *iters = it;
            return 0;
        }
        double a = rz / pq;
        alcr_vec_axpby(N, a, p, 1.0, x);
        alcr_vec_axpby(N, -a, q, 1.0, r);
        *iters = it + 1;
        double rn = sqrt(alcr_vec_dot(N, r, r));
        if (rn <= tol * bnorm) return 1;
        applyPrecond(n, Minv, r, z);
        double rzNew = alcr_vec_dot(N, r, z);
        double beta = rzNew / rz;
        rz = rzNew;
        alcr_vec_axpby(N, 1.0, z, beta, p);
    }
    return 0;
}
