// Tests of the rotation derivatives (hd/alcm_rigid.h: alcm_rodrigues_coef, _grad, _hess) and of
// the rigid incremental potential (hd/alcm_rigid_energy.h): series against closed forms across
// their switch, derivatives against central differences from 1e-9 rad to 3 turns, the inertia
// energy's gradient and Hessian, its stationarity at rest, a free spin by Newton on E_Q, and the
// point Jacobian.
#include "hd/alcm_rigid_energy.h"
#include "hd/alcm_svd.h"
#include "test_macros.h"
#include "test_rng.h"

#include <stdio.h>
#include <string.h>

static alcV3 rngDir(void) {
    alcV3 v;
    do {
        v = alcm_v3(rngRange(-1, 1), rngRange(-1, 1), rngRange(-1, 1));
    } while (alcm_v3_norm(v) < 0.1 || alcm_v3_norm(v) > 1);
    return alcm_v3_normalize(v);
}

/// The closed forms of the coefficients in long double (reference for the series).
static void coefRef(long double n, long double out[6]) {
    long double sn = sinl(n), cs = cosl(n), n2 = n * n;
    out[0] = sn / n;
    out[1] = (1 - cs) / n2;
    out[2] = (n * cs - sn) / (n2 * n);
    out[3] = (n * sn - 2 + 2 * cs) / (n2 * n2);
    out[4] = (3 * sn - 3 * n * cs - n2 * sn) / (n2 * n2 * n);
    out[5] = (n2 * cs - 5 * n * sn + 8 - 8 * cs) / (n2 * n2 * n2);
}

ALC_TEST(rigid_energy_coefficients) {
    // the series (n < 1) and closed forms (n >= 1) against long-double closed forms where
    // those are accurate (n >= 0.3), the limits at 0, and continuity across n = 1
    alcRodriguesCoef z = alcm_rodrigues_coef(0.0);
    ENSURE(z.s == 1 && z.c == 0.5 && fabs(z.gs + 1.0 / 3) < 1e-16 && fabs(z.gc + 1.0 / 12) < 1e-16);
    ENSURE(fabs(z.hs - 1.0 / 15) < 1e-16 && fabs(z.hc - 1.0 / 90) < 1e-16);
    alcRodriguesCoef t = alcm_rodrigues_coef(1e-200);  // n^2 underflows: no division by it
    ENSURE(t.s == 1 && t.hc == z.hc);
    double worst = 0;
    const double ns[] = {0.3, 0.5, 0.9, 0.999999, 1.0, 1.5, 3.14159, 6.2, 20.0};
    for (int i = 0; i < (int)(sizeof ns / sizeof ns[0]); i++) {
        alcRodriguesCoef f = alcm_rodrigues_coef(ns[i]);
        long double r[6];
        coefRef(ns[i], r);
        double v[6] = {f.s, f.c, f.gs, f.gc, f.hs, f.hc};
        for (int k = 0; k < 6; k++) {
            double err = (double)fabsl((v[k] - r[k]) / (fabsl(r[k]) + 1e-3L));
            worst = fmax(worst, err);
        }
    }
    alcRodriguesCoef a = alcm_rodrigues_coef(nextafter(1.0, 0.0)), b = alcm_rodrigues_coef(1.0);
    double jump = fmax(fabs(a.hc - b.hc) / b.hc, fabs(a.hs - b.hs) / b.hs);
    alct_note("largest relative error %.2g; jump across n = 1: %.2g", worst, jump);
    ENSURE(worst < 1e-10);
    ENSURE(jump < 1e-12);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_energy_rotationDerivatives) {
    // dR/dtheta and d2R/dtheta2 against central differences of R and of dR, at rotation
    // magnitudes from 1e-9 rad to 3 turns, in random directions
    const double mags[] = {0.0, 1e-9, 1e-4, 0.3, 0.99, 1.01, 2.5, 3.14159265, 6.0, 18.0};
    double worst1 = 0, worst2 = 0;
    for (int m = 0; m < (int)(sizeof mags / sizeof mags[0]); m++) {
        for (int trial = 0; trial < 5; trial++) {
            alcV3 th = alcm_v3_scale(rngDir(), mags[m]);
            alcM3 dR[3], d2R[9];
            alcm_rodrigues_grad(th, dR);
            alcm_rodrigues_hess(th, d2R);
            const double h = 1e-6;
            for (int k = 0; k < 3; k++) {
                alcV3 e = alcm_v3(k == 0, k == 1, k == 2);
                alcV3 tp = alcm_v3_mad(th, h, e), tm = alcm_v3_mad(th, -h, e);
                alcM3 Rp = alcm_rodrigues(tp), Rm = alcm_rodrigues(tm);
                alcM3 gp[3], gm[3];
                alcm_rodrigues_grad(tp, gp);
                alcm_rodrigues_grad(tm, gm);
                for (int i = 0; i < 9; i++) {
                    double fd = (Rp.m[i] - Rm.m[i]) / (2 * h);
                    worst1 = fmax(worst1, fabs(fd - dR[k].m[i]));
                    for (int l = 0; l < 3; l++) {
                        double fd2 = (gp[l].m[i] - gm[l].m[i]) / (2 * h);
                        worst2 = fmax(worst2, fabs(fd2 - d2R[3 * k + l].m[i]));
                    }
                }
            }
        }
    }
    alct_note("largest difference from central differences: dR %.2g, d2R %.2g", worst1, worst2);
    ENSURE(worst1 < 1e-8);
    ENSURE(worst2 < 1e-8);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_energy_inertiaDerivatives) {
    // E_Q's gradient and Hessian against central differences of E_Q and of its gradient, for
    // random predicted rotations (not orthogonal: Qtilde = 2 Q - Qprev) and random theta
    alcV3 J = alcm_rigid_J(alcm_v3(3.0, 2.0, 1.5));
    ENSURE(J.x > 0 && J.y > 0 && J.z > 0);
    ENSURE(fabs(J.x + J.y - 1.5) < 1e-15);  // Jx + Jy = Iz
    double worstG = 0, worstH = 0;
    for (int trial = 0; trial < 40; trial++) {
        alcM3 Q = alcm_rodrigues(alcm_v3_scale(rngDir(), rngRange(0, 6)));
        alcM3 Qp = alcm_rodrigues(alcm_v3_scale(rngDir(), rngRange(0, 6)));
        alcM3 Qt = alcm_rigid_Qtilde(Q, Qp, 1.0);
        alcV3 th = alcm_v3_scale(rngDir(), trial % 4 == 0 ? 1e-7 : rngRange(0, 8));
        double g[3], H[9];
        alcm_rigid_rotEnergy(th, Qt, J, g, H);
        const double h = 1e-6;
        for (int k = 0; k < 3; k++) {
            alcV3 e = alcm_v3(k == 0, k == 1, k == 2);
            double gp[3], gm[3];
            double ep = alcm_rigid_rotEnergy(alcm_v3_mad(th, h, e), Qt, J, gp, NULL);
            double em = alcm_rigid_rotEnergy(alcm_v3_mad(th, -h, e), Qt, J, gm, NULL);
            worstG = fmax(worstG, fabs((ep - em) / (2 * h) - g[k]));
            for (int l = 0; l < 3; l++)
                worstH = fmax(worstH, fabs((gp[l] - gm[l]) / (2 * h) - H[3 * k + l]));
        }
        for (int k = 0; k < 3; k++)
            for (int l = 0; l < 3; l++) ENSURE(H[3 * k + l] == H[3 * l + k]);
    }
    alct_note("largest difference from central differences: gradient %.2g, Hessian %.2g", worstG,
              worstH);
    ENSURE(worstG < 1e-7 && worstH < 1e-7);
    // at rest (Qtilde = Q = R(theta)) the gradient vanishes: E_Q is stationary at the
    // current rotation, and its Hessian there is positive semi-definite (a minimum)
    alcV3 th = alcm_v3(0.4, -1.2, 2.0);
    alcM3 Q = alcm_rodrigues(th);
    double g[3], H[9];
    alcm_rigid_rotEnergy(th, alcm_rigid_Qtilde(Q, Q, 1.0), J, g, H);
    ENSURE(fabs(g[0]) < 1e-13 && fabs(g[1]) < 1e-13 && fabs(g[2]) < 1e-13);
    alcV3 ev;
    alcM3 evec;
    alcm_m3_symEigen(alcm_m3_load(H), &ev, &evec);
    ENSURE(ev.z > -1e-12);
    // translation: gradient m (q - qtilde)
    double gq[3];
    double eq = alcm_rigid_transEnergy(alcm_v3(1, 2, 3), alcm_v3(1, 2, 2), 2.0, gq);
    ENSURE(gq[0] == 0 && gq[1] == 0 && gq[2] == 2.0 && eq == 0.5 * 2 * 14 - 2 * 11);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_energy_freeSpin) {
    // a body spinning about its largest principal axis, stepped by minimizing E_Q with Newton
    // on theta (implicit Euler on Q, RIPC Eq. 9): the spin axis stays fixed, the rotation
    // advances by about omega h per step and the angular speed decays by implicit Euler's
    // dissipation only: with Qtilde = 2 Q - Qprev the step's angle a becomes
    // atan(sin a / (2 - cos a)) ~ a (1 - a^2 / 2) for an isotropic body, 0.25 % per step at
    // a = 0.05 rad, 22 % over 100 steps (RIPC §7: the formulation does not conserve energy)
    alcV3 I = alcm_v3(2.0, 1.0, 0.5);  // principal moments, x the largest
    alcV3 J = alcm_rigid_J(I);
    double h = 0.01, omega = 5.0;  // rad/s about x
    alcM3 Qprev = alcm_rodrigues(alcm_v3(-omega * h, 0, 0));
    alcM3 Q = alcm_m3_identity();
    alcV3 th = alcm_v3(0, 0, 0);
    double angle = 0;
    int newton = 0;
    for (int step = 0; step < 100; step++) {
        alcM3 Qt = alcm_rigid_Qtilde(Q, Qprev, 1.0);
        // Newton on E_Q from the current rotation, with a diagonal shift when the Hessian is
        // not positive definite (RIPC §4.2)
        alcV3 x = th;
        for (int it = 0; it < 50; it++) {
            double g[3], H[9];
            alcm_rigid_rotEnergy(x, Qt, J, g, H);
            if (alcm_v3_norm(alcm_v3(g[0], g[1], g[2])) < 1e-13) break;
            alcM3 A = alcm_m3_load(H);
            double xi = 0;
            alcV3 p;
            for (;;) {
                alcM3 As = A;
                for (int i = 0; i < 3; i++) As.m[4 * i] += xi;
                double det = alcm_m3_det(As);
                alcM3 Ai;
                if (det > 0 && As.m[0] > 0 && alcm_m3_inverse(As, &Ai)) {
                    p = alcm_m3_mulv(Ai, alcm_v3(-g[0], -g[1], -g[2]));
                    if (alcm_v3_dot(p, alcm_v3(g[0], g[1], g[2])) < 0) break;
                }
                xi = xi > 0 ? 2 * xi : 1e-8;
            }
            x = alcm_v3_add(x, p);
            newton++;
        }
        Qprev = Q;
        Q = alcm_rodrigues(x);
        th = x;
        angle = x.x;
        ENSURE(fabs(x.y) < 1e-12 && fabs(x.z) < 1e-12);
    }
    // angular speed at the end from the last two rotations
    alcM3 dQ = alcm_m3_Tmul(Qprev, Q);  // rotation about x by the last step's angle
    double last = atan2(dQ.m[7], dQ.m[8]) / h;
    alct_note(
        "100 steps: angle %.4f rad (no dissipation: %.4f), final speed %.4f rad/s of %.1f, "
        "%.1f Newton iterations per step",
        angle, 100 * omega * h, last, omega, newton / 100.0);
    ENSURE(angle > 0.85 * 100 * omega * h && angle <= 100 * omega * h + 1e-9);
    ENSURE(last > 0.75 * omega && last <= omega + 1e-9);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_energy_pointJacobian) {
    // the Jacobian's columns against central differences of phi = R(theta) a + q
    double worst = 0;
    for (int trial = 0; trial < 30; trial++) {
        alcV3 th = alcm_v3_scale(rngDir(), rngRange(0, 7));
        alcV3 a = alcm_v3(rngRange(-1, 1), rngRange(-1, 1), rngRange(-1, 1));
        double jac[18];
        alcm_rigid_pointJacobian(th, a, jac);
        const double h = 1e-6;
        for (int k = 0; k < 3; k++) {
            alcV3 e = alcm_v3(k == 0, k == 1, k == 2);
            alcV3 p = alcm_m3_mulv(alcm_rodrigues(alcm_v3_mad(th, h, e)), a);
            alcV3 m = alcm_m3_mulv(alcm_rodrigues(alcm_v3_mad(th, -h, e)), a);
            alcV3 fd = alcm_v3_scale(alcm_v3_sub(p, m), 0.5 / h);
            worst = fmax(worst,
                         fabs(fd.x - jac[k]) + fabs(fd.y - jac[6 + k]) + fabs(fd.z - jac[12 + k]));
        }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) ENSURE(jac[6 * i + 3 + j] == (i == j));
    }
    ENSURE_MSG(worst < 1e-8, "largest difference %.3g", worst);
    return ALC_TEST_PASS;
}

/// The stencil of rigid_energy_pullback: vertex 0 soft, 1 and 2 on rigid body A, 3 on body B.
/// u: soft position (0-2), theta_A (3-5), q_A (6-8), theta_B (9-11), q_B (12-14).
typedef struct {
    alcV3 local[4];  // body-frame positions of the rigid vertices
    double K[144];   // E(x) = 1/2 (x - x0)^T K (x - x0)
    double x0[12];
} PullStencil;

static void pullPositions(const PullStencil* s, const double u[15], double x[12]) {
    alcm_v3_store(x, alcm_v3_load(u));
    for (int a = 1; a < 4; a++) {
        const double* th = u + (a < 3 ? 3 : 9);
        const double* q = u + (a < 3 ? 6 : 12);
        alcV3 p = alcm_v3_add(alcm_m3_mulv(alcm_rodrigues(alcm_v3_load(th)), s->local[a]),
                              alcm_v3_load(q));
        alcm_v3_store(x + 3 * a, p);
    }
}

static double pullEnergy(const PullStencil* s, const double x[12], double g[12]) {
    double d[12], e = 0;
    for (int i = 0; i < 12; i++) d[i] = x[i] - s->x0[i];
    for (int i = 0; i < 12; i++) {
        double r = 0;
        for (int j = 0; j < 12; j++) r += s->K[12 * i + j] * d[j];
        if (g) g[i] = r;
        e += 0.5 * d[i] * r;
    }
    return e;
}

/// The pulled-back gradient in u's order (nodes 0 soft, 10/11 body A, 12/13 body B).
static int pullGradient(const PullStencil* s, const double u[15], double Gu[15], double* HN,
                        int nodes[ALCM_STENCIL_NODES]) {
    double x[12], g[12];
    pullPositions(s, u, x);
    pullEnergy(s, x, g);
    alcRigidVertMap map[4];
    map[0] = alcm_rigid_mapSoft(0);
    for (int a = 1; a < 4; a++) {
        int A = a < 3;
        map[a] = alcm_rigid_mapRigid(A ? 10 : 12, A ? 11 : 13, alcm_v3_load(u + (A ? 3 : 9)),
                                     s->local[a]);
    }
    double G[3 * ALCM_STENCIL_NODES];
    int nn = alcm_rigid_pullback(map, g, s->K, nodes, G, HN);
    for (int i = 0; i < nn; i++) {
        int at = nodes[i] == 0 ? 0
                               : (nodes[i] == 10   ? 3
                                  : nodes[i] == 11 ? 6
                                  : nodes[i] == 12 ? 9
                                                   : 12);
        for (int k = 0; k < 3; k++) Gu[at + k] = G[3 * i + k];
    }
    return nn;
}

ALC_TEST(rigid_energy_pullback) {
    // a stencil with a soft vertex, two vertices of one rigid body and one of another: the
    // pulled-back gradient against central differences of E(x(u)); the Hessian against
    // differences of that gradient, less the second-derivative term the pull-back leaves out
    // (g_a . d2x_a / dtheta2, on each body's own theta block)
    rngSeed(77);
    double worstG = 0, worstH = 0;
    for (int trial = 0; trial < 20; trial++) {
        PullStencil s;
        double M[144];
        for (int i = 0; i < 144; i++) M[i] = rngRange(-1, 1);
        for (int i = 0; i < 12; i++) {
            for (int j = 0; j < 12; j++) {
                double r = 0;
                for (int k = 0; k < 12; k++) r += M[12 * i + k] * M[12 * j + k];
                s.K[12 * i + j] = r + (i == j ? 0.5 : 0);
            }
            s.x0[i] = rngRange(-1, 1);
        }
        for (int a = 0; a < 4; a++)
            s.local[a] = alcm_v3(rngRange(-1, 1), rngRange(-1, 1), rngRange(-1, 1));
        double u[15];
        for (int i = 0; i < 15; i++) u[i] = rngRange(-2, 2);
        double Gu[15], HN[24 * 24];
        int nodes[ALCM_STENCIL_NODES];
        int nn = pullGradient(&s, u, Gu, HN, nodes);
        ENSURE(nn == 5 && nodes[0] == 0 && nodes[1] == 10 && nodes[2] == 11 && nodes[3] == 12 &&
               nodes[4] == 13);
        const double h = 1e-6;
        double scale = 0;
        for (int i = 0; i < 15; i++) scale = fmax(scale, fabs(Gu[i]));
        for (int i = 0; i < 15; i++) {
            double up[15], um[15], xp[12], xm[12];
            memcpy(up, u, sizeof up);
            memcpy(um, u, sizeof um);
            up[i] += h;
            um[i] -= h;
            pullPositions(&s, up, xp);
            pullPositions(&s, um, xm);
            double fd = (pullEnergy(&s, xp, NULL) - pullEnergy(&s, xm, NULL)) / (2 * h);
            worstG = fmax(worstG, fabs(fd - Gu[i]) / (1 + scale));
        }
        // the Hessian in u's order from HN's node order (0, 10, 11, 12, 13 = u blocks 0..4)
        double gfull[12];
        double xx[12];
        pullPositions(&s, u, xx);
        pullEnergy(&s, xx, gfull);
        alcM3 d2A[9], d2B[9];
        alcm_rodrigues_hess(alcm_v3_load(u + 3), d2A);
        alcm_rodrigues_hess(alcm_v3_load(u + 9), d2B);
        double hscale = 0;
        for (int i = 0; i < 15 * 24; i++) hscale = fmax(hscale, fabs(HN[i]));
        for (int j = 0; j < 15; j++) {
            double up[15], um[15], Gp[15], Gm[15], Hp[24 * 24];
            int nd[ALCM_STENCIL_NODES];
            memcpy(up, u, sizeof up);
            memcpy(um, u, sizeof um);
            up[j] += h;
            um[j] -= h;
            pullGradient(&s, up, Gp, Hp, nd);
            pullGradient(&s, um, Gm, Hp, nd);
            for (int i = 0; i < 15; i++) {
                double fd = (Gp[i] - Gm[i]) / (2 * h);
                // the left-out term: on body A's theta block, vertices 1 and 2; on B's, vertex 3
                int bi = i / 3, bj = j / 3;
                if (bi == bj && (bi == 1 || bi == 3)) {
                    const alcM3* d2 = bi == 1 ? d2A : d2B;
                    for (int a = (bi == 1 ? 1 : 3); a <= (bi == 1 ? 2 : 3); a++) {
                        alcV3 c = alcm_m3_mulv(d2[3 * (i % 3) + j % 3], s.local[a]);
                        fd -= alcm_v3_dot(c, alcm_v3_load(gfull + 3 * a));
                    }
                }
                worstH = fmax(worstH, fabs(fd - HN[i * 24 + j]) / (1 + hscale));
                ENSURE(fabs(HN[i * 24 + j] - HN[j * 24 + i]) <= 1e-12 * (1 + hscale));
            }
        }
    }
    alct_note("largest relative differences: gradient %.2e, Hessian (Gauss-Newton part) %.2e",
              worstG, worstH);
    ENSURE(worstG < 1e-8);
    ENSURE(worstH < 1e-6);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_energy_discreteRigidBody) {
    // the discrete rigid body of Moser and Veselov behind alcm_rigid_predict: F J - J F^T = [b]
    // solved to rounding for random bodies and steps up to 0.8 rad, the small-angle limit
    // F = exp(h w) with I w = b / h, a step back and forth returning the momentum, and free
    // steps keeping the angular momentum in world axes R Pi
    double worstSolve = 0, worstSmall = 0, worstBack = 0, worstKeep = 0;
    int solved = 0;
    for (int trial = 0; trial < 200; trial++) {
        // principal moments obeying the triangle inequality (J > 0)
        double a = rngRange(0.5, 2), b2 = rngRange(0.5, 2), c = rngRange(0.5, 2);
        alcV3 I = alcm_v3(b2 + c, a + c, a + b2);
        alcV3 J = alcm_rigid_J(I);
        double turn = rngRange(1e-6, 0.8);  // the step's angle (rad)
        alcV3 w = alcm_v3_scale(rngDir(), turn);
        alcV3 b = alcm_v3(I.x * w.x, I.y * w.y, I.z * w.z);
        alcM3 F;
        ENSURE(alcm_rigid_mvSolve(b, J, &F));
        solved++;
        double res = alcm_v3_norm(alcm_v3_sub(alcm_rigid_mvMoment(F, J), b)) / alcm_v3_norm(b);
        worstSolve = fmax(worstSolve, res);
        double orth = 0;
        alcM3 FtF = alcm_m3_Tmul(F, F);
        for (int i = 0; i < 9; i++) orth = fmax(orth, fabs(FtF.m[i] - (i % 4 == 0)));
        ENSURE(orth < 1e-14 && alcm_m3_det(F) > 0);
        if (turn < 1e-3) {
            // F = exp(w) + O(turn^2)
            alcM3 E = alcm_rodrigues(w);
            double d = 0;
            for (int i = 0; i < 9; i++) d = fmax(d, fabs(F.m[i] - E.m[i]));
            worstSmall = fmax(worstSmall, d / (turn * turn));
        }
        // a pose, the one h before it that leaves momentum Pi, and the momentum read back
        double h = rngRange(1e-3, 0.05);
        alcM3 R = alcm_rodrigues(alcm_v3_scale(rngDir(), rngRange(0, 3)));
        alcV3 Pi = alcm_v3_scale(b, 1 / h);
        alcM3 Rp = alcm_rigid_previous(R, Pi, J, h);
        alcV3 back = alcm_rigid_mvMomentum(R, Rp, J, h);
        worstBack = fmax(worstBack, alcm_v3_norm(alcm_v3_sub(back, Pi)) / alcm_v3_norm(Pi));
        // ten free steps: R Pi stays (the prediction is the step itself without torque)
        alcV3 L0 = alcm_m3_mulv(R, Pi);
        for (int k = 0; k < 10; k++) {
            alcM3 Rn = alcm_rigid_predict(R, Rp, J, h, h);
            Rp = R;
            R = Rn;
        }
        alcV3 L = alcm_m3_mulv(R, alcm_rigid_mvMomentum(R, Rp, J, h));
        worstKeep = fmax(worstKeep, alcm_v3_norm(alcm_v3_sub(L, L0)) / alcm_v3_norm(L0));
    }
    // beyond what a rotation's skew part can reach (|vee(F J - J F^T)| <= the sum of two J's):
    // no solution; and a step of more than a quarter turn, whose momentum would read as that of
    // the turn pi minus it: the prediction falls back on implicit Euler's
    alcV3 J = alcm_rigid_J(alcm_v3(2, 2, 2));
    alcM3 F;
    ENSURE(!alcm_rigid_mvSolve(alcm_v3(0, 0, 5), J, &F));
    alcM3 R = alcm_m3_identity(), Rp = alcm_rodrigues(alcm_v3(0, 0, -2.9));
    alcM3 Qt = alcm_rigid_predict(R, Rp, J, 1, 1), Qe = alcm_rigid_Qtilde(R, Rp, 1);
    for (int i = 0; i < 9; i++) ENSURE(Qt.m[i] == Qe.m[i]);
    alct_note(
        "%d steps solved: residual %.2e, small-angle error %.2e turn^2, momentum back and "
        "forth %.2e, R Pi over ten free steps %.2e",
        solved, worstSolve, worstSmall, worstBack, worstKeep);
    ENSURE(worstSolve < 1e-13);
    ENSURE(worstSmall < 1);
    ENSURE(worstBack < 1e-12);
    ENSURE(worstKeep < 1e-12);
    return ALC_TEST_PASS;
}
