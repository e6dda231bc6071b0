// IPC barrier pieces (host/hd/alcm_barrier.h) against finite differences: b(s) and its first
// two derivatives, the edge-edge mollifier's gradient and Hessian, the composed pair barrier
// b(d^2(x)) of a point-triangle stencil, and the PSD projection.
#include "hd/alcm_barrier.h"
#include "hd/alcm_distance.h"
#include "test_macros.h"

#include <math.h>
#include <string.h>

static unsigned long long g_state = 0x243F6A8885A308D3ull;
static double uniform(double a, double b) {
    g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
    return a + (b - a) * (double)(g_state >> 11) / 9007199254740992.0;
}

ALC_TEST(barrier_derivativesMatchDifferences) {
    const double S = 1e-6;  // dhat = 1 mm
    double worst1 = 0, worst2 = 0;
    for (int i = 0; i < 200; i++) {
        double s = S * uniform(0.01, 0.99), e = 1e-6 * s;
        double fd1 = (alcm_barrier(s + e, S) - alcm_barrier(s - e, S)) / (2 * e);
        double fd2 = (alcm_barrierD1(s + e, S) - alcm_barrierD1(s - e, S)) / (2 * e);
        worst1 = fmax(worst1, fabs(fd1 - alcm_barrierD1(s, S)) / (fabs(fd1) + S));
        worst2 = fmax(worst2, fabs(fd2 - alcm_barrierD2(s, S)) / (fabs(fd2) + 1));
        ENSURE(alcm_barrierD1(s, S) < 0 && alcm_barrierD2(s, S) > 0);
    }
    // C^2 at the support's edge, zero beyond it
    ENSURE(alcm_barrier(S, S) == 0 && alcm_barrierD1(S, S) == 0 && alcm_barrierD2(S, S) == 0);
    ENSURE(fabs(alcm_barrierD2(S * (1 - 1e-9), S)) < 1e-6);
    ENSURE(alcm_barrier(2 * S, S) == 0);
    alct_note("worst relative error: b' %.2e, b'' %.2e (expected < 1e-6)", worst1, worst2);
    ENSURE(worst1 < 1e-6 && worst2 < 1e-6);
    return ALC_TEST_PASS;
}

ALC_TEST(barrier_mollifierMatchesDifferences) {
    double worstG = 0, worstH = 0;
    int mollified = 0;
    for (int trial = 0; trial < 100; trial++) {
        // nearly parallel edges, so that c < eps
        alcV3 v[4];
        v[0] = alcm_v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        alcV3 dir = alcm_v3(uniform(0.5, 1), uniform(-0.1, 0.1), uniform(-0.1, 0.1));
        v[1] = alcm_v3_add(v[0], dir);
        v[2] = alcm_v3(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1));
        alcV3 tilt = alcm_v3(uniform(-0.02, 0.02), uniform(-0.02, 0.02), uniform(-0.02, 0.02));
        v[3] = alcm_v3_add(v[2], alcm_v3_add(dir, tilt));
        double eps = alcm_mollifierEps(v[0], v[1], v[2], v[3]) * 10;
        double g[12], H[144];
        double m0 = alcm_mollifier(v, eps, g, H);
        mollified += m0 < 1;
        double scale = 0;
        for (int i = 0; i < 12; i++) scale = fmax(scale, fabs(g[i]));
        for (int i = 0; i < 12; i++) {
            const double e = 1e-7;
            alcV3 vp[4], vm[4];
            memcpy(vp, v, sizeof vp);
            memcpy(vm, v, sizeof vm);
            double* pp = &vp[i / 3].x;
            double* pm = &vm[i / 3].x;
            pp[i % 3] += e;
            pm[i % 3] -= e;
            double gp[12], gm[12];
            double fd =
                (alcm_mollifier(vp, eps, gp, NULL) - alcm_mollifier(vm, eps, gm, NULL)) / (2 * e);
            worstG = fmax(worstG, fabs(fd - g[i]) / (scale + 1e-12));
            for (int j = 0; j < 12; j++) {
                double fdh = (gp[j] - gm[j]) / (2 * e);
                worstH =
                    fmax(worstH, fabs(fdh - H[12 * i + j]) / (fabs(H[12 * i + j]) + scale + 1e-12));
            }
        }
    }
    alct_note(
        "%d of 100 pairs mollified; worst relative error: gradient %.2e, Hessian %.2e "
        "(expected < 1e-5)",
        mollified, worstG, worstH);
    ENSURE(mollified > 50);
    ENSURE(worstG < 1e-5 && worstH < 1e-5);
    return ALC_TEST_PASS;
}

ALC_TEST(barrier_pairGradientMatchesDifferences) {
    // b(d^2(x)) for a point above a triangle (point-plane case), dhat = 0.1
    const double S = 0.01;
    double worst = 0;
    for (int trial = 0; trial < 50; trial++) {
        alcV3 v[4] = {alcm_v3(uniform(0.2, 0.3), uniform(0.02, 0.09), uniform(0.2, 0.3)),
                      alcm_v3(0, 0, 0), alcm_v3(1, uniform(-0.01, 0.01), 0),
                      alcm_v3(0, uniform(-0.01, 0.01), 1)};
        int type = alcm_pt_type(v[0], v[1], v[2], v[3]);
        double gs[12];
        alcm_pt_dist2Grad(v, type, gs);
        double s = alcm_pt_dist2(v, type), b1 = alcm_barrierD1(s, S);
        for (int i = 0; i < 12; i++) {
            const double e = 1e-7;
            alcV3 vp[4], vm[4];
            memcpy(vp, v, sizeof vp);
            memcpy(vm, v, sizeof vm);
            (&vp[i / 3].x)[i % 3] += e;
            (&vm[i / 3].x)[i % 3] -= e;
            double fd = (alcm_barrier(alcm_pt_dist2(vp, type), S) -
                         alcm_barrier(alcm_pt_dist2(vm, type), S)) /
                        (2 * e);
            worst = fmax(worst, fabs(fd - b1 * gs[i]) / (fabs(b1 * gs[i]) + 1e-8));
        }
    }
    alct_note("worst relative error of grad b(d^2): %.2e (expected < 1e-5)", worst);
    ENSURE(worst < 1e-5);
    return ALC_TEST_PASS;
}

ALC_TEST(barrier_projectPsd) {
    // A = Q diag(l) Q^T with mixed-sign l: the projection keeps the positive part exactly
    double A[144], P[144];
    const int n = 12;
    double l[12];
    for (int i = 0; i < n; i++) l[i] = i % 3 == 0 ? -uniform(0.5, 2) : uniform(0.5, 2);
    // Q: product of random Givens rotations
    double Q[144];
    for (int i = 0; i < n * n; i++) Q[i] = i % (n + 1) == 0 ? 1 : 0;
    for (int r = 0; r < 60; r++) {
        int p = (int)uniform(0, n), q = (int)uniform(0, n);
        if (p == q) continue;
        double th = uniform(0, 6.283), c = cos(th), s = sin(th);
        for (int k = 0; k < n; k++) {
            double a = Q[k * n + p], b = Q[k * n + q];
            Q[k * n + p] = c * a - s * b;
            Q[k * n + q] = s * a + c * b;
        }
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            double a = 0, b = 0;
            for (int k = 0; k < n; k++) {
                a += Q[i * n + k] * l[k] * Q[j * n + k];
                b += Q[i * n + k] * (l[k] > 0 ? l[k] : 0) * Q[j * n + k];
            }
            A[i * n + j] = a;
            P[i * n + j] = b;
        }
    }
    alcm_projectPsd(A, n);
    double worst = 0;
    for (int i = 0; i < n * n; i++) worst = fmax(worst, fabs(A[i] - P[i]));
    alct_note("largest entry error of the projection %.2e (expected < 1e-10)", worst);
    ENSURE(worst < 1e-10);
    return ALC_TEST_PASS;
}
