// The secant stiffness of friction pairs whose slip a line-search trial reversed
// (alcm_fric_reverses, alcm_fric_Ksecant in hd/alcm_friction.h; issue 18, item 4): the
// reversal test, the secant matrix (f1/y on the tangent plane, at least the exact Hessian in
// every direction, the Hessian of a quadratic that touches f0(|u|) from above), the scene key,
// and on the roller, stepped from equal states with the rule and without it, fewer Newton
// iterations and every state clean.
#include "hd/alcm_friction.h"
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// t^T K t for a tangent direction t = c0 T0 + c1 T1.
static double along(const alcM3* K, const double T[6], double c0, double c1) {
    double t[3];
    for (int k = 0; k < 3; k++) t[k] = c0 * T[k] + c1 * T[3 + k];
    double s = 0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) s += t[i] * K->m[3 * i + j] * t[j];
    }
    return s;
}

ALC_TEST(frictionSecant_rule) {
    const double eps = 1e-4;
    // reversal: only from a sliding slip (|uFrom| >= eps), only against it
    double from[2] = {3e-4, 0}, ahead[2] = {1e-4, 5e-4}, back[2] = {-1e-6, 0}, side[2] = {0, 1};
    ENSURE(!alcm_fric_reverses(from, ahead, eps));
    ENSURE(alcm_fric_reverses(from, back, eps));
    ENSURE(!alcm_fric_reverses(from, side, eps));  // perpendicular: not against it
    double slow[2] = {0.5e-4, 0};                  // inside the smoothing zone
    ENSURE(!alcm_fric_reverses(slow, back, eps));
    double zero[2] = {0, 0};  // a fresh pair (no assembly yet)
    ENSURE(!alcm_fric_reverses(zero, back, eps));

    // the secant matrix against the exact Hessian, below and beyond the threshold, along the
    // slip and across it
    alcV3 n = alcm_v3_normalize(alcm_v3(0.3, -1, 0.2));
    double T[6];
    alcm_fric_basis(n, T);
    const double ys[] = {0.2 * eps, 0.9 * eps, eps, 3 * eps, 100 * eps};
    for (size_t i = 0; i < sizeof ys / sizeof ys[0]; i++) {
        double y = ys[i], u[2] = {0.6 * y, -0.8 * y};
        alcM3 K = alcm_fric_K(u, T, eps), S = alcm_fric_Ksecant(u, T, eps);
        double f1y = alcm_fric_f1OverY(y, eps);
        // across the slip both are f1 / y; along it the secant is f1 / y, the exact f1'
        ENSURE_NEAR(along(&S, T, 0.8, 0.6), f1y, 1e-9 * f1y);
        ENSURE_NEAR(along(&K, T, 0.8, 0.6), f1y, 1e-9 * f1y);
        ENSURE_NEAR(along(&S, T, 0.6, -0.8), f1y, 1e-9 * f1y);
        double f1p = y >= eps ? 0 : 2 / eps - 2 * y / (eps * eps);
        ENSURE_NEAR(along(&K, T, 0.6, -0.8), f1p, 1e-9 * f1y);
        // nothing along the normal
        double nn = 0;
        double nv[3] = {n.x, n.y, n.z};
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++) nn += nv[a] * S.m[3 * a + b] * nv[b];
        }
        ENSURE_SMALL(nn, 1e-9 * f1y);
        // the quadratic with curvature f1 / y through f0 at u touches f0(|u'|) from above:
        // f0(y') <= f0(y) + f1(y) / (2 y) (y'^2 - y^2) for every y' (f0(sqrt(s)) is concave)
        double f0 = alcm_fric_f0(y, eps);
        for (int k = 0; k <= 40; k++) {
            double yp = 0.1 * k * y;
            double q = f0 + 0.5 * f1y * (yp * yp - y * y);
            ENSURE_MSG(alcm_fric_f0(yp, eps) <= q + 1e-12 * (fabs(q) + eps),
                       "y %g, y' %g: f0 %.17g above the quadratic %.17g", y, yp,
                       alcm_fric_f0(yp, eps), q);
        }
    }
    return ALC_TEST_PASS;
}

ALC_TEST(frictionSecant_sceneKey) {
    static const struct {
        const char* solver;
        int value;  // expected option; -1: refused
    } cases[] = {
        {"friction_secant: false", 0},
        {"friction_secant: true", 1},
        {"friction_secant: 2", -1},
    };
    char err[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        alcModel* m = NULL;
        alctStatus st =
            alct_loadSolverScene("secant", "secant.yaml", cases[i].solver, &m, err, sizeof err);
        if (cases[i].value >= 0) {
            ENSURE_MSG(st == ALC_OK, "%s: %s", cases[i].solver, err);
            ENSURE_MSG(m->opt.frictionSecant == cases[i].value, "%s: %d", cases[i].solver,
                       m->opt.frictionSecant);
            alc_deleteModel(m);
        } else {
            ENSURE_MSG(st == ALC_ERR_SCENE && strstr(err, "secant.yaml:4:") &&
                           strstr(err, "friction_secant"),
                       "%s: %s", cases[i].solver, err);
        }
    }
    alcOption o = alc_defaultOption();
    ENSURE(o.frictionSecant == 1);
    return ALC_TEST_PASS;
}

ALC_TEST(frictionSecant_rollerFewerIterations) {
    // the roller drags a soft block along the ground under friction 0.5: from the same state at
    // every step (a checkpoint), the step with the rule and the step without it; the run
    // follows the steps without it, every state checked
    const int steps = 12;
    Run r;
    ENSURE(openRun(&r, "roller.yaml", NULL, NULL, -1));
    size_t cap = 0, bytes = 0;
    void* buf = NULL;
    long withRule = 0, without = 0;
    int fewer = 0, more = 0;
    for (int s = 0; s < steps; s++) {
        ENSURE_OK(alc_checkpointSize(r.sim, r.d, &bytes));
        if (bytes > cap) {
            free(buf);
            cap = bytes;
            buf = malloc(cap);
            ENSURE(buf);
        }
        ENSURE_OK(alc_saveCheckpoint(r.sim, r.d, buf, cap, &bytes));
        r.m->opt.frictionSecant = 1;
        ENSURE(stepRun(&r));
        long a = r.d->stat.newton;
        ENSURE_OK(alc_loadCheckpoint(r.sim, r.d, buf, bytes));
        r.m->opt.frictionSecant = 0;
        ENSURE(stepRun(&r));
        long b = r.d->stat.newton;
        withRule += a;
        without += b;
        fewer += a < b;
        more += a > b;
    }
    free(buf);
    closeRun(&r);
    alct_note(
        "%d steps from equal states: %ld Newton iterations with the rule, %ld without "
        "(fewer in %d steps, more in %d)",
        steps, withRule, without, fewer, more);
    ENSURE_MSG(withRule < without, "%ld with the rule, %ld without", withRule, without);
    return ALC_TEST_PASS;
}
