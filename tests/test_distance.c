// Tests of hd/alcm_distance.h: distances against brute-force minimisation, classification of
// hand-built and degenerate configurations, continuity across type boundaries, gradients and
// Hessians against central finite differences, the EE mollifier and the linearized constraint.
#include "hd/alcm_distance.h"
#include "test_macros.h"
#include "test_rng.h"

#include <stdint.h>
#include <string.h>

// ---- helpers --------------------------------------------------------------------------------

static alcV3 rngV3(double s) {
    return alcm_v3(rngRange(-s, s), rngRange(-s, s), rngRange(-s, s));
}

static bool allFinite(const double* a, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(a[i])) return false;
    }
    return true;
}

// point on the triangle at barycentric (b1, b2), or on the edges at (g1, g2)
static alcV3 triPoint(const alcV3 v[4], double b1, double b2) {
    alcV3 q = alcm_v3_mad(v[1], b1, alcm_v3_sub(v[2], v[1]));
    return alcm_v3_mad(q, b2, alcm_v3_sub(v[3], v[1]));
}
static double eeGap(const alcV3 v[4], double g1, double g2) {
    alcV3 a = alcm_v3_mad(v[0], g1, alcm_v3_sub(v[1], v[0]));
    alcV3 b = alcm_v3_mad(v[2], g2, alcm_v3_sub(v[3], v[2]));
    return alcm_v3_norm(alcm_v3_sub(a, b));
}
static double ptGap(const alcV3 v[4], double b1, double b2) {
    return alcm_v3_norm(alcm_v3_sub(v[0], triPoint(v, b1, b2)));
}

// brute-force distance: dense grid over the parameter domain, then a pattern search with 8
// directions and a halving step (convex objective, so the local minimum is global)
static double bruteDistance(const alcV3 v[4], bool isEE) {
    const int n = 64;
    double best = 1e300, u0 = 0, u1 = 0;
    for (int i = 0; i <= n; i++) {
        for (int j = 0; j <= n; j++) {
            double a = (double)i / n, b = (double)j / n;
            if (!isEE && a + b > 1) continue;
            double d = isEE ? eeGap(v, a, b) : ptGap(v, a, b);
            if (d < best) {
                best = d;
                u0 = a;
                u1 = b;
            }
        }
    }
    static const int dirs[8][2] = {{1, 0},  {-1, 0}, {0, 1}, {0, -1},
                                   {1, -1}, {-1, 1}, {1, 1}, {-1, -1}};
    for (double h = 1.0 / n; h > 1e-15; h *= 0.5) {
        bool moved = true;
        while (moved) {
            moved = false;
            for (int k = 0; k < 8; k++) {
                double a = u0 + h * dirs[k][0], b = u1 + h * dirs[k][1];
                if (isEE) {
                    a = alcm_clamp(a, 0, 1);
                    b = alcm_clamp(b, 0, 1);
                } else if (a < 0 || b < 0 || a + b > 1) {
                    continue;
                }
                double d = isEE ? eeGap(v, a, b) : ptGap(v, a, b);
                if (d < best) {
                    best = d;
                    u0 = a;
                    u1 = b;
                    moved = true;
                }
            }
        }
    }
    return best;
}

static double stencilDist2(const alcV3 v[4], int type, bool isEE) {
    return isEE ? alcm_ee_dist2(v, type) : alcm_pt_dist2(v, type);
}
static void stencilGrad(const alcV3 v[4], int type, bool isEE, double g[12]) {
    if (isEE) {
        alcm_ee_dist2Grad(v, type, g);
    } else {
        alcm_pt_dist2Grad(v, type, g);
    }
}
static void stencilHess(const alcV3 v[4], int type, bool isEE, double H[144]) {
    if (isEE) {
        alcm_ee_dist2Hess(v, type, H);
    } else {
        alcm_pt_dist2Hess(v, type, H);
    }
}
static void perturb(const alcV3 v[4], int i, double h, alcV3 out[4]) {
    for (int k = 0; k < 4; k++) out[k] = v[k];
    double* c = (i % 3 == 0) ? &out[i / 3].x : (i % 3 == 1 ? &out[i / 3].y : &out[i / 3].z);
    *c += h;
}

// named configurations, each compared with the brute force
typedef struct {
    const char* name;
    alcV3 v[4];
    bool isEE;
    int expectType;  // -2: do not check
} Config;

// clang-format off
static const Config g_configs[] = {
    {"pt above interior", {{0.2, 0.2, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, ALC_DIST_PT_P_T},
    {"pt coplanar inside", {{0.2, 0.3, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, ALC_DIST_PT_P_T},
    {"pt above edge e01", {{0.5, -0.5, 0.3}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, ALC_DIST_PT_P_E01},
    {"pt above edge e12", {{1, 1, -0.5}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, ALC_DIST_PT_P_E12},
    {"pt above edge e20", {{-1, 0.5, 2}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, ALC_DIST_PT_P_E20},
    {"pt beyond vertex t0", {{-1, -1, 0.5}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, ALC_DIST_PT_P_T0},
    {"pt beyond vertex t1", {{2, -0.1, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, ALC_DIST_PT_P_T1},
    {"pt beyond vertex t2", {{0.1, 3, -1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, ALC_DIST_PT_P_T2},
    {"pt coplanar outside", {{1, 1, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, ALC_DIST_PT_P_E12},
    {"pt on the triangle", {{0.25, 0.25, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, ALC_DIST_PT_P_T},
    {"pt at a vertex", {{1, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false, -2},
    {"pt collinear triangle", {{0.3, 0.4, 0.1}, {0, 0, 0}, {1, 0, 0}, {0.4, 0, 0}}, false, ALC_DIST_PT_P_E01},
    {"pt collinear, beyond", {{-0.5, 0.2, 0}, {0, 0, 0}, {1, 0, 0}, {0.4, 0, 0}}, false, ALC_DIST_PT_P_T0},
    {"pt two coincident", {{0.5, 0.5, 0.5}, {0, 0, 0}, {0, 0, 0}, {1, 0, 0}}, false, ALC_DIST_PT_P_E12},
    {"pt all coincident", {{0.5, 0.5, 0.5}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, false, -2},
    {"pt needle triangle", {{0.5, 0.1, 0.2}, {0, 0, 0}, {1, 1e-12, 0}, {1, 0, 1e-12}}, false, -2},
    {"ee crossing above", {{-1, 0, 1}, {1, 0, 1}, {0, -1, 0}, {0, 1, 0}}, true, ALC_DIST_EE_EA_EB},
    {"ee crossing, touching", {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}}, true, ALC_DIST_EE_EA_EB},
    {"ee skew, PE", {{-1, 0, 1}, {1, 0, 1}, {0, 0.5, 0}, {0, 2, 0}}, true, ALC_DIST_EE_B0_EA},
    {"ee skew, PP", {{0, 0, 1}, {1, 0, 1}, {2, 0.5, 0}, {2, 2, 0}}, true, ALC_DIST_EE_A1_B0},
    {"ee parallel overlapping", {{0, 0, 0}, {2, 0, 0}, {1, 1, 0}, {3, 1, 0}}, true, -2},
    {"ee parallel disjoint", {{0, 0, 0}, {1, 0, 0}, {2, 1, 0}, {3, 1, 0}}, true, ALC_DIST_EE_A1_B0},
    {"ee antiparallel", {{0, 0, 0}, {2, 0, 0}, {3, 0.5, 0.5}, {1, 0.5, 0.5}}, true, -2},
    {"ee collinear overlapping", {{0, 0, 0}, {2, 0, 0}, {1, 0, 0}, {3, 0, 0}}, true, -2},
    {"ee collinear disjoint", {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}}, true, ALC_DIST_EE_A1_B0},
    {"ee nearly parallel", {{0, 0, 0}, {1, 0, 0}, {0.2, 1e-3, 1e-13}, {0.8, 1e-3, 0}}, true, -2},
    {"ee touching endpoints", {{0, 0, 0}, {1, 0, 0}, {1, 0, 0}, {1, 1, 1}}, true, -2},
    {"ee T touching", {{0, 0, 0}, {2, 0, 0}, {1, 0, 0}, {1, 1, 0}}, true, -2},
    {"ee zero-length a", {{0.5, 0.5, 1}, {0.5, 0.5, 1}, {0, 0, 0}, {1, 0, 0}}, true, ALC_DIST_EE_A0_EB},
    {"ee zero-length both", {{0.5, 0.5, 1}, {0.5, 0.5, 1}, {0, 0, 0}, {0, 0, 0}}, true, ALC_DIST_EE_A0_B0},
};
// clang-format on
#define NCONFIG ((int)(sizeof g_configs / sizeof g_configs[0]))

// ---- distances
// ------------------------------------------------------------------------------------

ALC_TEST(dist_namedConfigs) {
    for (int c = 0; c < NCONFIG; c++) {
        const Config* k = &g_configs[c];
        int type = k->isEE ? alcm_ee_type(k->v[0], k->v[1], k->v[2], k->v[3])
                           : alcm_pt_type(k->v[0], k->v[1], k->v[2], k->v[3]);
        ENSURE_MSG(k->isEE ? alcm_dist_isEE(type) : alcm_dist_isPT(type), "%s: type %d", k->name,
                   type);
        if (k->expectType != -2) {
            ENSURE_MSG(type == k->expectType, "%s: type %d, expected %d", k->name, type,
                       k->expectType);
        }
        double g[12];
        double d = k->isEE ? alcm_ee_distance(k->v, g) : alcm_pt_distance(k->v, g);
        double b = bruteDistance(k->v, k->isEE);
        ENSURE_MSG(allFinite(g, 12) && isfinite(d), "%s: not finite", k->name);
        ENSURE_MSG(fabs(d - b) <= 1e-9 * (1 + b), "%s: d %.17g, brute force %.17g", k->name, d, b);
        ENSURE_MSG(fabs(stencilDist2(k->v, type, k->isEE) - d * d) <= 1e-12 * (1 + d * d),
                   "%s: dist2 of the type differs", k->name);
    }
    return ALC_TEST_PASS;
}

ALC_TEST(dist_randomBruteForce) {
    rngSeed(1234);
    int count[ALC_NDISTTYPE] = {0};
    double worst = 0;
    for (int it = 0; it < 600; it++) {
        bool isEE = it & 1;
        alcV3 v[4];
        for (int i = 0; i < 4; i++) v[i] = rngV3(1.0);
        // every other sample of each kind: all four points in the plane z = 0
        if (it % 4 >= 2) {
            for (int i = 0; i < 4; i++) v[i].z = 0;
        }
        int type =
            isEE ? alcm_ee_type(v[0], v[1], v[2], v[3]) : alcm_pt_type(v[0], v[1], v[2], v[3]);
        count[type]++;
        double d = isEE ? alcm_ee_distance(v, NULL) : alcm_pt_distance(v, NULL);
        double b = bruteDistance(v, isEE);
        worst = alcm_max(worst, fabs(d - b));
        ENSURE_MSG(fabs(d - b) <= 1e-9, "sample %d (%s, type %d): d %.17g, brute force %.17g", it,
                   isEE ? "EE" : "PT", type, d, b);
    }
    // the random set must reach every closest-feature type
    for (int t = 0; t < ALC_NDISTTYPE; t++) ENSURE_MSG(count[t] > 0, "type %d never sampled", t);
    alct_note("max |d - brute force| = %.3g over 600 random pairs", worst);
    return ALC_TEST_PASS;
}

ALC_TEST(dist_continuityAcrossTypes) {
    // the point (PT) or edge a (EE, translated) walks along a straight line passing near the
    // middle of the triangle / edge b, crossing several Voronoi regions; d must be 1-Lipschitz
    // in the path parameter (unit path speed)
    rngSeed(77);
    int changes = 0;
    for (int path = 0; path < 40; path++) {
        bool isEE = path & 1;
        alcV3 v[4];
        for (int i = 0; i < 4; i++) v[i] = rngV3(1.0);
        // every eighth path: a collinear triangle (its overlapping edges tie, so its type changes
        // are not counted)
        bool degenerate = path % 8 == 6;
        if (degenerate) v[3] = alcm_v3_mad(v[1], 0.5, alcm_v3_sub(v[2], v[1]));
        alcV3 dir = alcm_v3_normalize(rngV3(1.0));
        alcV3 mid = isEE ? alcm_v3_scale(alcm_v3_add(v[2], v[3]), 0.5)
                         : alcm_v3_scale(alcm_v3_add(v[1], alcm_v3_add(v[2], v[3])), 1.0 / 3);
        alcV3 ref = isEE ? alcm_v3_scale(alcm_v3_add(v[0], v[1]), 0.5) : v[0];
        alcV3 shift0 = alcm_v3_sub(alcm_v3_add(mid, rngV3(0.1)), alcm_v3_scale(dir, 1.5));
        int last = -9;
        double prev = 0;
        const int n = 3000;
        const double h = 3.0 / n;
        for (int k = 0; k <= n; k++) {
            // translate the moving feature so that its reference point is on the path
            alcV3 off = alcm_v3_sub(alcm_v3_mad(shift0, k * h, dir), ref);
            alcV3 w[4] = {alcm_v3_add(v[0], off), v[1], v[2], v[3]};
            if (isEE) w[1] = alcm_v3_add(v[1], off);
            double d = isEE ? alcm_ee_distance(w, NULL) : alcm_pt_distance(w, NULL);
            int type =
                isEE ? alcm_ee_type(w[0], w[1], w[2], w[3]) : alcm_pt_type(w[0], w[1], w[2], w[3]);
            if (k > 0 && type != last && !degenerate) changes++;
            last = type;
            if (k > 0) {
                ENSURE_MSG(fabs(d - prev) <= h * (1 + 1e-9) + 1e-14,
                           "path %d step %d: jump %.3g over %.3g (type %d)", path, k, d - prev, h,
                           type);
            }
            prev = d;
        }
    }
    ENSURE_MSG(changes >= 35, "only %d type changes on 35 paths", changes);
    alct_note("%d type changes crossed on 35 non-degenerate paths", changes);
    return ALC_TEST_PASS;
}

ALC_TEST(dist_degenerateNoNaN) {
    // every type (also types that do not fit the configuration) on degenerate inputs
    const alcV3 z = {0, 0, 0}, a = {1, 0, 0}, b = {0, 1, 0};
    const alcV3 cases[][4] = {
        {z, z, z, z},
        {a, z, z, z},
        {z, a, a, a},
        {a, z, a, z},
        {b, z, a, a},
        {a, z, z, b},
        {z, a, b, b},
        {b, z, a, alcm_v3(2, 0, 0)},
        {z, a, alcm_v3(1e-300, 0, 0), b},
        {alcm_v3(0, 0, 1e-200), z, alcm_v3(1e-160, 0, 0), alcm_v3(0, 1e-160, 0)},
    };
    const int ncase = (int)(sizeof cases / sizeof cases[0]);
    for (int c = 0; c < ncase; c++) {
        for (int t = ALC_DIST_AUTO; t < ALC_NDISTTYPE; t++) {
            for (int fam = 0; fam < 2; fam++) {
                bool isEE = fam == 1;
                double g[12], H[144];
                double d2 = stencilDist2(cases[c], t, isEE);
                stencilGrad(cases[c], t, isEE, g);
                stencilHess(cases[c], t, isEE, H);
                double gd[12];
                double d = isEE ? alcm_ee_distanceOfType(cases[c], t, gd)
                                : alcm_pt_distanceOfType(cases[c], t, gd);
                ENSURE_MSG(isfinite(d2) && isfinite(d) && allFinite(g, 12) && allFinite(H, 144) &&
                               allFinite(gd, 12),
                           "case %d type %d %s: not finite", c, t, isEE ? "EE" : "PT");
            }
        }
        double m, gm[12], Hm[144];
        alcm_ee_mollifier(cases[c], 1e-3, &m, gm, Hm);
        ENSURE_MSG(isfinite(m) && allFinite(gm, 12) && allFinite(Hm, 144), "mollifier case %d", c);
        alcm_ee_mollifier(cases[c], 0.0, &m, gm, Hm);
        ENSURE(m == 1);
    }
    return ALC_TEST_PASS;
}

// ---- derivatives
// -----------------------------------------------------------------------------------

// random configurations of each type; returns the configuration in v
static bool sampleOfType(int type, alcV3 v[4]) {
    bool isEE = alcm_dist_isEE(type);
    for (int tries = 0; tries < 100000; tries++) {
        for (int i = 0; i < 4; i++) v[i] = rngV3(1.0);
        int t = isEE ? alcm_ee_type(v[0], v[1], v[2], v[3]) : alcm_pt_type(v[0], v[1], v[2], v[3]);
        if (t == type) return true;
    }
    return false;
}

ALC_TEST(dist_gradHessFD) {
    rngSeed(4242);
    const double h = 1e-6;
    double worstG = 0, worstH = 0;
    for (int type = 0; type < ALC_NDISTTYPE; type++) {
        bool isEE = alcm_dist_isEE(type);
        for (int s = 0; s < 10; s++) {
            alcV3 v[4];
            ENSURE_MSG(sampleOfType(type, v), "no sample of type %d", type);
            double g[12], H[144];
            stencilGrad(v, type, isEE, g);
            stencilHess(v, type, isEE, H);
            double gs = 0, hs = 0;
            for (int i = 0; i < 12; i++) gs = alcm_max(gs, fabs(g[i]));
            for (int i = 0; i < 144; i++) hs = alcm_max(hs, fabs(H[i]));
            for (int i = 0; i < 12; i++) {
                alcV3 vp[4], vm[4];
                perturb(v, i, h, vp);
                perturb(v, i, -h, vm);
                // gradient vs central difference of dist2 at a fixed type
                double fd = (stencilDist2(vp, type, isEE) - stencilDist2(vm, type, isEE)) / (2 * h);
                double eg = fabs(fd - g[i]) / (1 + gs);
                worstG = alcm_max(worstG, eg);
                ENSURE_MSG(eg < 1e-6, "type %d sample %d: dg[%d] %.10g vs fd %.10g", type, s, i,
                           g[i], fd);
                // Hessian column vs central difference of the gradient
                double gp[12], gm[12];
                stencilGrad(vp, type, isEE, gp);
                stencilGrad(vm, type, isEE, gm);
                for (int j = 0; j < 12; j++) {
                    double fh = (gp[j] - gm[j]) / (2 * h);
                    double eh = fabs(fh - H[12 * j + i]) / (1 + hs);
                    worstH = alcm_max(worstH, eh);
                    ENSURE_MSG(eh < 1e-5, "type %d sample %d: H[%d][%d] %.10g vs fd %.10g", type, s,
                               j, i, H[12 * j + i], fh);
                    ENSURE_MSG(fabs(H[12 * j + i] - H[12 * i + j]) <= 1e-10 * (1 + hs),
                               "type %d: H not symmetric", type);
                }
            }
        }
    }
    alct_note("max rel. error: gradient %.2g, Hessian %.2g (16 types x 10 samples)", worstG,
              worstH);
    return ALC_TEST_PASS;
}

// elementary case `kind` (0 PP, 1 PE, 2 plane, 3 line) on the first 2, 3 or 4 points
static double elemDist2(int kind, const alcV3 w[4]) {
    if (kind == 0) return alcm_pp_dist2(w[0], w[1]);
    if (kind == 1) return alcm_pe_dist2(w[0], w[1], w[2]);
    if (kind == 2) return alcm_ptPlane_dist2(w[0], w[1], w[2], w[3]);
    return alcm_eeLine_dist2(w[0], w[1], w[2], w[3]);
}
static void elemDerivs(int kind, const alcV3 w[4], double* g, double* H) {
    if (kind == 0) {
        alcm_pp_dist2Grad(w[0], w[1], g);
        alcm_pp_dist2Hess(w[0], w[1], H);
    } else if (kind == 1) {
        alcm_pe_dist2Grad(w[0], w[1], w[2], g);
        alcm_pe_dist2Hess(w[0], w[1], w[2], H);
    } else if (kind == 2) {
        alcm_ptPlane_dist2Grad(w[0], w[1], w[2], w[3], g);
        alcm_ptPlane_dist2Hess(w[0], w[1], w[2], w[3], H);
    } else {
        alcm_eeLine_dist2Grad(w[0], w[1], w[2], w[3], g);
        alcm_eeLine_dist2Hess(w[0], w[1], w[2], w[3], H);
    }
}

ALC_TEST(dist_elementaryFD) {
    // alcm_pp/pe/ptPlane/eeLine on their own 2, 3, 4 points: gradient vs central differences of
    // the value, Hessian vs central differences of the gradient
    rngSeed(99);
    const double h = 1e-6;
    for (int s = 0; s < 20; s++) {
        alcV3 v[4];
        for (int i = 0; i < 4; i++) v[i] = rngV3(1.0);
        for (int kind = 0; kind < 4; kind++) {
            int n = 3 * (kind == 0 ? 2 : (kind == 1 ? 3 : 4));
            double g[12], H[144];
            elemDerivs(kind, v, g, H);
            for (int i = 0; i < n; i++) {
                alcV3 vp[4], vm[4];
                perturb(v, i, h, vp);
                perturb(v, i, -h, vm);
                double fd = (elemDist2(kind, vp) - elemDist2(kind, vm)) / (2 * h);
                ENSURE_MSG(fabs(fd - g[i]) < 1e-6 * (1 + fabs(g[i])),
                           "case %d: g[%d] %.10g vs %.10g", kind, i, g[i], fd);
                double gp[12], gm[12], Hs[144];
                elemDerivs(kind, vp, gp, Hs);
                elemDerivs(kind, vm, gm, Hs);
                for (int j = 0; j < n; j++) {
                    double fh = (gp[j] - gm[j]) / (2 * h);
                    ENSURE_MSG(fabs(fh - H[n * j + i]) < 1e-5 * (1 + fabs(fh)),
                               "case %d: H[%d][%d] %.10g vs %.10g", kind, j, i, H[n * j + i], fh);
                }
            }
        }
    }
    return ALC_TEST_PASS;
}

ALC_TEST(dist_distanceGradFD) {
    // grad d = grad d^2 / (2 d), away from type boundaries (type equal at +-h)
    rngSeed(5);
    const double h = 1e-7;
    int checked = 0;
    for (int s = 0; s < 400; s++) {
        bool isEE = s & 1;
        alcV3 v[4];
        for (int i = 0; i < 4; i++) v[i] = rngV3(1.0);
        double g[12];
        double d = isEE ? alcm_ee_distance(v, g) : alcm_pt_distance(v, g);
        int type =
            isEE ? alcm_ee_type(v[0], v[1], v[2], v[3]) : alcm_pt_type(v[0], v[1], v[2], v[3]);
        for (int i = 0; i < 12; i++) {
            alcV3 vp[4], vm[4];
            perturb(v, i, h, vp);
            perturb(v, i, -h, vm);
            int tp = isEE ? alcm_ee_type(vp[0], vp[1], vp[2], vp[3])
                          : alcm_pt_type(vp[0], vp[1], vp[2], vp[3]);
            int tm = isEE ? alcm_ee_type(vm[0], vm[1], vm[2], vm[3])
                          : alcm_pt_type(vm[0], vm[1], vm[2], vm[3]);
            if (tp != type || tm != type) continue;
            double fd = ((isEE ? alcm_ee_distance(vp, NULL) : alcm_pt_distance(vp, NULL)) -
                         (isEE ? alcm_ee_distance(vm, NULL) : alcm_pt_distance(vm, NULL))) /
                        (2 * h);
            ENSURE_MSG(fabs(fd - g[i]) < 1e-6, "sample %d (d %.3g): g[%d] %.10g vs %.10g", s, d, i,
                       g[i], fd);
            checked++;
        }
        // translation invariance: the gradient sums to zero
        double gp = 0;
        for (int i = 0; i < 12; i++) gp += g[i];
        ENSURE_SMALL(gp, 1e-12);
    }
    ENSURE(checked > 4000);
    return ALC_TEST_PASS;
}

ALC_TEST(dist_mollifierFD) {
    rngSeed(31);
    const double h = 1e-7;
    int inside = 0;
    for (int s = 0; s < 200; s++) {
        alcV3 v[4];
        for (int i = 0; i < 4; i++) v[i] = rngV3(1.0);
        // nearly parallel: b = a direction plus a small random tilt
        alcV3 ea = alcm_v3_sub(v[1], v[0]);
        v[3] = alcm_v3_add(v[2], alcm_v3_add(alcm_v3_scale(ea, rngRange(-1.5, 1.5)), rngV3(0.03)));
        double eps = alcm_ee_mollifierThreshold(v[0], v[1], v[2], v[3]);
        double m, g[12], H[144];
        alcm_ee_mollifier(v, eps, &m, g, H);
        double c = alcm_ee_cross2(v);
        if (c >= eps) {
            ENSURE(m == 1 && g[0] == 0 && H[0] == 0);
            continue;
        }
        inside++;
        ENSURE(m >= 0 && m < 1);
        double gs = 0, hs = 0;
        for (int i = 0; i < 12; i++) gs = alcm_max(gs, fabs(g[i]));
        for (int i = 0; i < 144; i++) hs = alcm_max(hs, fabs(H[i]));
        for (int i = 0; i < 12; i++) {
            alcV3 vp[4], vm[4];
            perturb(v, i, h, vp);
            perturb(v, i, -h, vm);
            double mp, mm, gp[12], gm[12];
            alcm_ee_mollifier(vp, eps, &mp, gp, NULL);
            alcm_ee_mollifier(vm, eps, &mm, gm, NULL);
            if (alcm_ee_cross2(vp) >= eps || alcm_ee_cross2(vm) >= eps) continue;
            ENSURE_MSG(fabs((mp - mm) / (2 * h) - g[i]) < 1e-6 * (1 + gs), "dm[%d] %.10g vs %.10g",
                       i, g[i], (mp - mm) / (2 * h));
            for (int j = 0; j < 12; j++) {
                double fh = (gp[j] - gm[j]) / (2 * h);
                ENSURE_MSG(fabs(fh - H[12 * j + i]) < 1e-5 * (1 + hs), "H[%d][%d] %.10g vs %.10g",
                           j, i, H[12 * j + i], fh);
            }
        }
    }
    ENSURE(inside > 20);
    // C^0 at the threshold: e(eps) = 1 and e'(eps) = 0
    alcV3 v[4] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1.01, 0}};
    double c = alcm_ee_cross2(v), m, g[12];
    alcm_ee_mollifier(v, c * (1 + 1e-12), &m, g, NULL);
    ENSURE_NEAR(m, 1, 1e-12);
    for (int i = 0; i < 12; i++) ENSURE_SMALL(g[i], 1e-6);
    alct_note("%d of 200 nearly parallel samples below eps_x", inside);
    return ALC_TEST_PASS;
}

ALC_TEST(dist_constraintEval) {
    // c(x) = d - delta, and c(xhat) matches d(xhat) - delta to second order
    rngSeed(8);
    for (int s = 0; s < 100; s++) {
        bool isEE = s & 1;
        alcV3 x[4], xh[4], dir[4];
        for (int i = 0; i < 4; i++) x[i] = rngV3(1.0), dir[i] = rngV3(1.0);
        double g[12];
        double d = isEE ? alcm_ee_distance(x, g) : alcm_pt_distance(x, g);
        ENSURE_NEAR(alcm_constraint_eval(d, g, x, x, 1e-3), d - 1e-3, 1e-15);
        double e1 = 0, e2 = 0;
        for (int k = 0; k < 2; k++) {
            double eps = k == 0 ? 1e-3 : 5e-4;
            for (int i = 0; i < 4; i++) xh[i] = alcm_v3_mad(x[i], eps, dir[i]);
            double dh = isEE ? alcm_ee_distance(xh, NULL) : alcm_pt_distance(xh, NULL);
            double err = fabs(alcm_constraint_eval(d, g, x, xh, 0.0) - dh);
            if (k == 0) e1 = err;
            if (k == 1) e2 = err;
        }
        // halving the step cuts the linearization error about fourfold (or it is at rounding)
        ENSURE_MSG(e2 <= 0.3 * e1 + 1e-13, "sample %d: %.3g -> %.3g", s, e1, e2);
    }
    return ALC_TEST_PASS;
}
