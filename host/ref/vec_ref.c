// Deterministic reductions: partial sums over fixed 4096-entry blocks (computed in parallel),
// then added in block order, so the result is independent of the thread count.
#include "ref/vec_ref.h"

#include <math.h>

#define BLOCK           4096
#define MAXBLOCKS_STACK 1024

/// The partial sum of one block, a[i] b[i] (or a[i]) from lo to hi in index order.
static double blockSum(const double* a, const double* b, int lo, int hi) {
    double s = 0;
    if (b) {
        for (int i = lo; i < hi; i++) s += a[i] * b[i];
    } else {
        for (int i = lo; i < hi; i++) s += a[i];
    }
    return s;
}

static double blockedSum(int n, const double* a, const double* b) {
    int nb = (n + BLOCK - 1) / BLOCK;
    double partStack[MAXBLOCKS_STACK];
    double total = 0;
    if (nb == 1) {
        // one block: the same sum without entering a parallel region, whose entry costs as
        // much as the sum at this size (PCG on a small scene calls this thousands of times)
        total += blockSum(a, b, 0, n);
        return total;
    }
    // process in chunks of MAXBLOCKS_STACK blocks to keep the scratch on the stack
    for (int b0 = 0; b0 < nb; b0 += MAXBLOCKS_STACK) {
        int nbc = nb - b0 < MAXBLOCKS_STACK ? nb - b0 : MAXBLOCKS_STACK;
#pragma omp parallel for schedule(static) if (nbc > 1)
        for (int ib = 0; ib < nbc; ib++) {
            int lo = (b0 + ib) * BLOCK;
            int hi = lo + BLOCK < n ? lo + BLOCK : n;
            partStack[ib] = blockSum(a, b, lo, hi);
        }
        for (int ib = 0; ib < nbc; ib++) total += partStack[ib];
    }
    return total;
}

double alcr_vec_dot(int n, const double* a, const double* b) {
    return blockedSum(n, a, b);
}

double alcr_vec_sum(int n, const double* a) {
    return blockedSum(n, a, 0);
}

double alcr_vec_maxAbs(int n, const double* a) {
    double m = 0;
#pragma omp parallel for reduction(max : m) schedule(static) if (n > 8 * BLOCK)
    for (int i = 0; i < n; i++) {
        double v = fabs(a[i]);
        if (v > m) m = v;
    }
    return m;
}

void alcr_vec_axpby(int n, double a, const double* x, double b, double* y) {
    if (n > 8 * BLOCK) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++) y[i] = a * x[i] + b * y[i];
    } else {
        // small vectors without a parallel region (its entry alone costs as much)
        for (int i = 0; i < n; i++) y[i] = a * x[i] + b * y[i];
    }
}
