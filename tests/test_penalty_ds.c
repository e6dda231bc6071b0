// Ding and Schroeder's attachment-point contact against a plane (host/hd/alcm_penalty_ds.h;
// issue 22, items 1 and 3: DS claims of ../shared/research/seeds-001-002.md §4.1 that hold for
// one contact): the relaxed attachment's force in the Coulomb cone (on its boundary when it
// slides), the relaxation idempotent and no longer than needed, the force's Jacobian against
// central finite differences in both states, and its asymmetry.
#include "hd/alcm_penalty_ds.h"
#include "test_macros.h"
#include "test_rng.h"

#include <math.h>

static alcV3 randUnit(void) {
    alcV3 v;
    do v = alcm_v3(rngRange(-1, 1), rngRange(-1, 1), rngRange(-1, 1));
    while (alcm_v3_norm(v) < 0.1);
    return alcm_v3_normalize(v);
}

/// A random plane, a particle `depth` below it, and an attachment on it at a tangential
/// distance `ratio` mu depth from the particle's projection.
static void setup(double mu, double depth, double ratio, alcV3* n, alcV3* p0, alcV3* z, alcV3* x) {
    *n = randUnit();
    *p0 = alcm_v3(rngRange(-1, 1), rngRange(-1, 1), rngRange(-1, 1));
    alcV3 t = alcm_v3_normalize(alcm_v3_cross(*n, randUnit()));
    alcV3 w = alcm_v3_mad(*p0, rngRange(-0.5, 0.5), t);  // on the plane
    *z = alcm_v3_mad(w, -depth, *n);
    *x = alcm_v3_mad(w, ratio * mu * depth, alcm_v3_normalize(alcm_v3_cross(*n, randUnit())));
}

/// Tangential and normal parts of f against n.
static void split(alcV3 f, alcV3 n, double* ft, double* fn) {
    *fn = alcm_v3_dot(f, n);
    *ft = alcm_v3_norm(alcm_v3_mad(f, -*fn, n));
}

ALC_TEST(penaltyDs_coneAndRelaxation) {
    rngSeed(4242);
    const double k = 1e4;
    int nStatic = 0, nDynamic = 0;
    double worstCone = 0;
    for (int t = 0; t < 2000; t++) {
        double mu = rngRange(0.05, 1.0), depth = rngRange(1e-4, 1e-2);
        double ratio = rngRange(0, 3);
        alcV3 n, p0, z, x;
        setup(mu, depth, ratio, &n, &p0, &z, &x);
        alcmDsContact c = alcm_ds_plane(n, p0, z, x, mu, k);
        double ft = 0, fn = 0;
        split(c.f, n, &ft, &fn);
        ENSURE(fabs(alcm_v3_dot(alcm_v3_sub(c.y, p0), n)) <= 1e-12);  // Y on the plane
        ENSURE(fabs(fn - k * depth) <= 1e-9 * k * depth);             // normal force k d
        if (c.state == ALCM_DS_STATIC) {
            nStatic++;
            ENSURE(ratio <= 1 + 1e-9);
            ENSURE(alcm_v3_norm(alcm_v3_sub(c.y, x)) <= 1e-12);  // the attachment stays
            ENSURE(ft <= mu * fn * (1 + 1e-12));
        } else {
            nDynamic++;
            ENSURE(c.state == ALCM_DS_DYNAMIC && ratio > 1 - 1e-9);
            worstCone = fmax(worstCone, fabs(ft - mu * fn) / fn);
            // idempotent: Y relaxed again stays (it is on the cone: static now)
            alcmDsContact c2 = alcm_ds_plane(n, p0, z, c.y, mu, k);
            ENSURE(alcm_v3_norm(alcm_v3_sub(c2.y, c.y)) <= 1e-12);
            // no further than needed: a point 1 % further back toward X leaves the cone
            alcV3 back = alcm_v3_add(c.y, alcm_v3_scale(alcm_v3_sub(x, c.y), 0.01));
            double ft3 = 0, fn3 = 0;
            split(alcm_v3_scale(alcm_v3_sub(back, z), k), n, &ft3, &fn3);
            ENSURE(ft3 > mu * fn3);
        }
        // above the plane: inactive, no force
        alcmDsContact up = alcm_ds_plane(n, p0, alcm_v3_mad(z, 2 * depth, n), x, mu, k);
        ENSURE(up.state == ALCM_DS_INACTIVE && alcm_v3_norm(up.f) == 0);
    }
    alct_note("2000 contacts: %d static, %d sliding with |f_t| = mu f_n within %.1e relative",
              nStatic, nDynamic, worstCone);
    ENSURE(nStatic > 300 && nDynamic > 300 && worstCone <= 1e-12);
    return ALC_TEST_PASS;
}

ALC_TEST(penaltyDs_jacobianAgainstDifferences) {
    rngSeed(99);
    const double k = 1e3;
    double worst[3] = {0, 0, 0}, asym = 0;
    for (int t = 0; t < 500; t++) {
        double mu = rngRange(0.1, 0.8), depth = rngRange(1e-3, 5e-2);
        // keep clear of the static/dynamic switch at ratio 1, where f is not differentiable
        double ratio = t % 2 ? rngRange(1.5, 4) : rngRange(0, 0.6);
        alcV3 n, p0, z, x;
        setup(mu, depth, ratio, &n, &p0, &z, &x);
        alcmDsContact c = alcm_ds_plane(n, p0, z, x, mu, k);
        double h = 1e-6 * depth, err = 0, scale = 0;
        for (int j = 0; j < 3; j++) {
            alcV3 e = alcm_v3(j == 0, j == 1, j == 2);
            alcmDsContact cp = alcm_ds_plane(n, p0, alcm_v3_mad(z, h, e), x, mu, k);
            alcmDsContact cm = alcm_ds_plane(n, p0, alcm_v3_mad(z, -h, e), x, mu, k);
            ENSURE(cp.state == c.state && cm.state == c.state);
            alcV3 col = alcm_v3_scale(alcm_v3_sub(cp.f, cm.f), 1 / (2 * h));
            for (int i = 0; i < 3; i++) {
                double a = c.dfdz.m[3 * i + j], fd = alcm_v3_get(col, i);
                err = fmax(err, fabs(a - fd));
                scale = fmax(scale, fabs(a));
            }
        }
        worst[c.state] = fmax(worst[c.state], err / scale);
        if (c.state == ALCM_DS_DYNAMIC) {
            alcM3 d = alcm_m3_sub(c.dfdz, alcm_m3_transpose(c.dfdz));
            double m = 0;
            for (int i = 0; i < 9; i++) m = fmax(m, fabs(d.m[i]));
            asym = fmax(asym, m / k);
        }
    }
    alct_note(
        "df/dZ against central differences: static within %.1e, sliding within %.1e "
        "relative; sliding Jacobians asymmetric by up to %.2f k (the k mu r^ n^T term)",
        worst[ALCM_DS_STATIC], worst[ALCM_DS_DYNAMIC], asym);
    ENSURE(worst[ALCM_DS_STATIC] <= 1e-7 && worst[ALCM_DS_DYNAMIC] <= 1e-6);
    ENSURE(asym > 0.05);
    // the digest's check: mu 0.3, k 1e3, depth 0.05 below z = 0, sliding along (3, 1, 0)
    alcV3 n = alcm_v3(0, 0, 1), p0 = alcm_v3(0, 0, 0), z = alcm_v3(0, 0, -0.05);
    alcV3 x = alcm_v3_scale(alcm_v3(3, 1, 0), 0.1 / sqrt(10.0));
    alcmDsContact c = alcm_ds_plane(n, p0, z, x, 0.3, 1e3);
    alct_note("mu 0.3, k 1e3, depth 0.05, slip along (3, 1, 0): J[x][z] = %.1f, J[z][x] = %.1f",
              c.dfdz.m[2], c.dfdz.m[6]);
    ENSURE(c.state == ALCM_DS_DYNAMIC && fabs(c.dfdz.m[2] + 284.6) < 0.05 && c.dfdz.m[6] == 0);
    return ALC_TEST_PASS;
}
