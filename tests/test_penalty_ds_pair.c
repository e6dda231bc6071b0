// One contact of Ding and Schroeder's penalty friction model over a triangle mesh
// (host/ref/penalty_ds_pair_ref.h; issue 22, item 1): claim DS9 of
// ../shared/research/seeds-001-002.md §4.1, "Jacobian: finite difference vs analytic per FSM
// case; H != H^T for dynamic pairs; symmetric for static pairs". The pair's Jacobian is the
// Newton matrix of the penalty-ds mode, so a wrong block, column or sign there would show up
// only as slow or failed Newton solves; here it is checked directly:
// - on a triangulated plane, against alcm_ds_plane's closed form (D&S: dF/dZ = -k n n^T
//   - k mu r^ n^T - k mu (d/|r|) b^ b^T) for sliding pairs, and against -k c c^T (x) I3, exactly
//   symmetric, for static ones; the forces against alcm_ds_plane's;
// - on curved meshes (a bumpy height field, a sphere, a notched box), with walks over several
//   triangles that end inside a face, on an edge or at a vertex, against central differences of
//   the whole relaxation along random directions of all the column vertices, where the
//   perturbed walks keep the base's path (elsewhere the force has kinks); the sliding
//   Jacobian's asymmetry (D&S's k mu r^ n^T term); the positions restored bit for bit;
// - the force is central: the stencil's forces, and each Jacobian column's blocks, sum to
//   zero; an inactive pair has no force and no Jacobian.
#include "ds_meshes.h"
#include "hd/alcm_penalty_ds.h"
#include "ref/penalty_ds_pair_ref.h"
#include "test_macros.h"
#include "test_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// ---- test meshes (the shared ones: ds_meshes.h) -------------------------------------------

/// Append a vertex at p (no merging): the particle Z, a vertex of no triangle.
static int tmAddVert(TMesh* tm, alcV3 p) {
    if (tm->nv >= tm->capv) abort();
    alcm_v3_store(tm->v + 3 * tm->nv, p);
    return tm->nv++;
}

/// A random point in triangle t with every weight at least m (< 1/3).
static alcmDsAttach randAttach(int t, double m) {
    alcmDsAttach a;
    double s, r;
    do {
        s = rngUniform();
        r = rngUniform();
        if (s + r > 1) s = 1 - s, r = 1 - r;
    } while (s < m || r < m || 1 - s - r < m);
    a.tri = t;
    a.b[0] = 1 - s - r;
    a.b[1] = s;
    a.b[2] = r;
    return a;
}

static alcV3 randUnit(void) {
    alcV3 v;
    do v = alcm_v3(rngRange(-1, 1), rngRange(-1, 1), rngRange(-1, 1));
    while (alcm_v3_norm(v) < 0.1);
    return alcm_v3_normalize(v);
}

/// A bumpy height field over [0, 2]^2, 12 x 12 cells, facing up (+z): smooth waves of
/// amplitude 0.12 and random bumps of 0.03 at the vertices, ridges and valleys a cell apart.
static void tmBumpy(TMesh* tm) {
    tmGrid(tm, alcm_v3(0, 0, 0), alcm_v3(2, 0, 0), alcm_v3(0, 2, 0), 12, 12);
    for (int i = 0; i < tm->nv; i++) {
        double x = tm->v[3 * i], y = tm->v[3 * i + 1];
        tm->v[3 * i + 2] = 0.12 * sin(5.0 * x + 0.3) * cos(4.0 * y - 0.7) + 0.03 * rngRange(-1, 1);
    }
}

// ---- helpers on a pair ----------------------------------------------------------------------

/// Frobenius norm of the 3x3 difference A - B, or of A - B^T when transposed.
static double frob(const double* A, const double* B, int transposed) {
    double s = 0;
    for (int r = 0; r < 3; r++) {
        for (int j = 0; j < 3; j++) {
            double d = A[3 * r + j] - (transposed ? B[3 * j + r] : B[3 * r + j]);
            s += d * d;
        }
    }
    return sqrt(s);
}

/// The walk a and its trace ta took the same path as the base b, tb: the same ending (the
/// fields alcr_dsPair_jacobian holds) and the same states, triangles and features step by step,
/// so that the force is smooth between them.
static int samePath(const alcrDsPairEval* a, const alcmDsMeshTrace* ta, const alcrDsPairEval* b,
                    const alcmDsMeshTrace* tb) {
    if (a->r.active != b->r.active || a->r.dynamic != b->r.dynamic || a->r.state != b->r.state ||
        a->r.attach.tri != b->r.attach.tri || a->r.loc != b->r.loc || a->r.nsteps != b->r.nsteps ||
        a->r.converged != b->r.converged || ta->n != tb->n)
        return 0;
    for (int s = 0; s < ta->n; s++) {
        if (ta->state[s] != tb->state[s] || ta->tri[s] != tb->tri[s] || ta->loc[s] != tb->loc[s] ||
            ta->moved[s] != tb->moved[s])
            return 0;
    }
    return 1;
}

// ---- tests --------------------------------------------------------------------------------

/// On a triangulated plane: the sliding Jacobian's (Z, Z) block is D&S's closed form, the
/// static Jacobian -k c c^T (x) I3 exactly symmetric, the forces alcm_ds_plane's.
ALC_TEST(penaltyDsPair_planeClosedForm) {
    rngSeed(2301);
    const double k = 1e4;
    TMesh tm;
    tmInit(&tm, 64, 80);
    int cols[ALCR_DS_MAX_COLS];
    double J[9 * 4 * ALCR_DS_MAX_COLS];
    double worstJ = 0, worstF = 0, worstStatic = 0, worstAsym = 0;
    int nSlide = 0, nStatic = 0;
    for (int g = 0; g < 10; g++) {
        // a 1 x 1 square of 6 x 6 cells around o in a random plane, facing n
        alcV3 n = randUnit(), o = alcm_v3(rngRange(-1, 1), rngRange(-1, 1), rngRange(-1, 1));
        alcV3 t1 = alcm_v3_normalize(alcm_v3_cross(n, randUnit())), t2 = alcm_v3_cross(n, t1);
        tm.nv = tm.nt = 0;
        tmGrid(&tm, alcm_v3_mad(alcm_v3_mad(o, -0.5, t1), -0.5, t2), t1, t2, 6, 6);
        int z = tmAddVert(&tm, o);
        ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
        for (int it = 0; it < 40; it++) {
            bool slide = it % 2 == 0;
            int t = (int)(rngUniform() * tm.nt);
            double mu = rngRange(0.1, 1.0), d = rngRange(0.02, 0.3);
            alcmDsAttach x = randAttach(t, 0.05);
            alcV3 xp = tmPoint(&tm, x), w;
            if (slide) {
                // Y chosen in X's triangle, W beyond it: Y = W + mu d r^, r = X - W
                alcmDsAttach y;
                alcV3 yp;
                do {
                    y = randAttach(t, 0.05);
                    yp = tmPoint(&tm, y);
                } while (alcm_v3_norm(alcm_v3_sub(xp, yp)) < 0.01);
                alcV3 u = alcm_v3_normalize(alcm_v3_sub(xp, yp));
                w = alcm_v3_mad(yp, -mu * d, u);
            } else {
                // W within 0.9 mu d of X: static
                alcV3 u = alcm_v3_normalize(alcm_v3_cross(n, randUnit()));
                w = alcm_v3_mad(xp, 0.9 * mu * d * rngUniform(), u);
            }
            alcV3 zp = alcm_v3_mad(w, -d, n);
            alcm_v3_store(tm.v + 3 * z, zp);
            alcrDsPairEval e;
            alcmDsMeshTrace tr;
            alcr_dsPair_eval(&tm.m, z, x, mu, k, &e, &tr);
            alcmDsContact c = alcm_ds_plane(n, o, zp, xp, mu, k);
            ENSURE(e.r.converged && e.r.active && e.r.dynamic == slide);
            ENSURE(e.r.nsteps == 1 && e.r.state == ALCM_DS_FSM_FACE && e.r.attach.tri == t);
            ENSURE(c.state == (slide ? ALCM_DS_DYNAMIC : ALCM_DS_STATIC));
            // the forces: f on Z as the plane's, -b_i f on the triangle at the plane's Y
            double F[12], by[3];
            alcV3 q[3];
            alcr_dsPair_forces(&e, F);
            alcm_ds_triVerts(&tm.m, t, q);
            alcm_ds_baryOf(q, c.y, by);
            double ef = 0, fn = alcm_v3_norm(c.f);
            for (int j = 0; j < 3; j++) {
                double fj = alcm_v3_get(c.f, j);
                ef = fmax(ef, fabs(F[j] - fj));
                for (int i = 0; i < 3; i++) ef = fmax(ef, fabs(F[3 + 3 * i + j] + by[i] * fj));
            }
            worstF = fmax(worstF, ef / fn);
            ENSURE_MSG(ef <= 1e-12 * fn, "forces off the plane's by %g of |f|", ef / fn);
            int nc = alcr_dsPair_jacobian(tm.v, &tm.m, z, x, mu, k, &e, &tr, cols, J, NULL);
            ENSURE(nc == 4 && cols[0] == z);
            for (int i = 0; i < 3; i++) {
                int v = tm.t[3 * t + i], found = 0;
                for (int cc = 1; cc < 4; cc++) found += cols[cc] == v;
                ENSURE(found == 1);
            }
            if (slide) {
                nSlide++;
                // block (Z, Z) against D&S's dF/dZ
                double err = frob(J, c.dfdz.m, 0) / k;
                worstJ = fmax(worstJ, err);
                ENSURE_MSG(err <= 1e-6, "dF_Z/dZ off D&S's by %g k (mu %g, d %g)", err, mu, d);
                // not symmetric: B - B^T = -k mu (r^ n^T - n r^T), Frobenius norm k mu sqrt 2
                double asym = frob(J, J, 1) / (k * mu * sqrt(2.0));
                worstAsym = fmax(worstAsym, fabs(asym - 1));
                ENSURE_MSG(fabs(asym - 1) <= 1e-5, "|B - B^T| = %g k mu sqrt 2", asym);
            } else {
                nStatic++;
                // -k c c^T (x) I3 over (Z, X's triangle), c = (1, -b_X), X kept bit for bit
                ENSURE(memcmp(e.r.attach.b, x.b, sizeof x.b) == 0);
                double cv[4] = {1, -x.b[0], -x.b[1], -x.b[2]};
                int perm[4] = {0, 0, 0, 0};  // column of stencil row a's vertex
                for (int a = 1; a < 4; a++) {
                    for (int cc = 1; cc < 4; cc++) {
                        if (cols[cc] == tm.t[3 * t + a - 1]) perm[a] = cc;
                    }
                }
                for (int a = 0; a < 4; a++) {
                    for (int cc = 0; cc < 4; cc++) {
                        const double* B = J + 9 * (4 * a + cc);
                        const double* Bt = J + 9 * (4 * cc + a);
                        int b = 0;  // stencil index of column cc's vertex
                        for (int s = 0; s < 4; s++) b = perm[s] == cc ? s : b;
                        for (int r = 0; r < 3; r++) {
                            for (int j = 0; j < 3; j++) {
                                double ex = r == j ? -k * cv[a] * cv[b] : 0.0;
                                worstStatic = fmax(worstStatic, fabs(B[3 * r + j] - ex) / k);
                                ENSURE_MSG(B[3 * r + j] == Bt[3 * j + r],
                                           "static J not symmetric: block (%d, %d) [%d][%d] %.17g "
                                           "vs %.17g",
                                           a, cc, r, j, B[3 * r + j], Bt[3 * j + r]);
                            }
                        }
                    }
                }
                ENSURE(worstStatic <= 1e-15);
                ENSURE(frob(J, c.dfdz.m, 0) <= 1e-15 * k);  // -k I, the plane's too
            }
        }
    }
    alct_note(
        "%d sliding pairs: dF_Z/dZ within %.1e k of D&S's closed form, |B - B^T| = k mu sqrt 2 "
        "within %.1e; %d static pairs: -k c c^T (x) I3 within %.1e k, symmetric bit for bit; "
        "forces within %.1e of the plane's",
        nSlide, worstJ, worstAsym, nStatic, worstStatic, worstF);
    ENSURE(nSlide == 200 && nStatic == 200);
    tmFree(&tm);
    return ALC_TEST_PASS;
}

/// On curved meshes: J v against central differences of the whole relaxation along random
/// directions v of all column vertices, where the perturbed walks keep the path.
ALC_TEST(penaltyDsPair_directionalDifferences) {
    rngSeed(2302);
    const double k = 1e4;
    TMesh tm;
    tmInit(&tm, 800, 1200);
    int cols[ALCR_DS_MAX_COLS];
    double J[9 * 4 * ALCR_DS_MAX_COLS];
    double* save = (double*)malloc(sizeof(double) * 3 * 800);
    const char* names[4] = {"bumpy field", "sphere", "notched box", "room corner"};
    int accepted = 0, rejected = 0, skipped = 0, multi = 0, ends[5] = {0, 0, 0, 0, 0};
    int asymCount = 0, asymTrials = 0, maxSteps = 0, maxCols = 0;
    double worst = 0, worstRel = 0;
    alcrDsJacStats js = {0, 0, 0};
    for (int which = 0; which < 4; which++) {
        tm.nv = tm.nt = 0;
        double h = 0;  // cell size
        if (which == 0) tmBumpy(&tm), h = 2.0 / 12;
        if (which == 1) tmCube(&tm, 4), h = 0.4;
        if (which == 2) tmNotchedBox(&tm, 2), h = 0.5;
        if (which == 3) {
            // a room's inside corner (floor and two walls facing into the room): walks that
            // end at the corner vertex, an interior vertex of this open mesh
            tmGrid(&tm, alcm_v3(0, 0, 0), alcm_v3(1, 0, 0), alcm_v3(0, 1, 0), 4, 4);
            tmGrid(&tm, alcm_v3(0, 0, 0), alcm_v3(0, 1, 0), alcm_v3(0, 0, 1), 4, 4);
            tmGrid(&tm, alcm_v3(0, 0, 0), alcm_v3(0, 0, 1), alcm_v3(1, 0, 0), 4, 4);
            h = 0.25;
        }
        if (which == 1) {
            for (int v = 0; v < tm.nv; v++) {
                alcm_v3_store(tm.v + 3 * v, alcm_v3_normalize(alcm_v3_load(tm.v + 3 * v)));
            }
        }
        int z = tmAddVert(&tm, alcm_v3(0, 0, 0));
        ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
        const double eps = 1e-5 * h;
        int acc0 = accepted;
        for (int it = 0; it < 200; it++) {
            // X random, Z below it and up to 3 cells away along the surface
            int t = (int)(rngUniform() * tm.nt);
            alcmDsAttach x = randAttach(t, 0.0);
            alcV3 xp = tmPoint(&tm, x), n = tmNormal(&tm, t);
            double mu = rngRange(0.1, 1.0), depth = h * rngRange(0.05, 0.8);
            alcV3 tang = alcm_v3_normalize(alcm_v3_cross(n, randUnit()));
            alcV3 zp = alcm_v3_mad(alcm_v3_mad(xp, -depth, n), 3 * h * rngUniform(), tang);
            if (which == 3 && it % 2) {
                // behind the corner
                zp = alcm_v3(rngRange(-0.1, 0), rngRange(-0.1, 0), rngRange(-0.1, 0));
            }
            alcm_v3_store(tm.v + 3 * z, zp);
            alcrDsPairEval e;
            alcmDsMeshTrace tr;
            alcr_dsPair_eval(&tm.m, z, x, mu, k, &e, &tr);
            if (!(e.r.converged && e.r.active && e.r.dynamic)) {
                skipped++;
                continue;
            }
            memcpy(save, tm.v, sizeof(double) * 3 * (size_t)tm.nv);
            int nc = alcr_dsPair_jacobian(tm.v, &tm.m, z, x, mu, k, &e, &tr, cols, J, &js);
            ENSURE(memcmp(save, tm.v, sizeof(double) * 3 * (size_t)tm.nv) == 0);
            ENSURE(nc >= 4 && nc <= ALCR_DS_MAX_COLS && cols[0] == z);
            maxCols = alcm_maxi(maxCols, nc);
            // the stencil's vertices are columns
            for (int i = 0; i < 3; i++) {
                int v = tm.t[3 * e.r.attach.tri + i], found = 0;
                for (int c = 1; c < nc; c++) found += cols[c] == v;
                ENSURE(found == 1);
            }
            int ok = 0;
            for (int dir = 0; dir < 3; dir++) {
                double v[3 * ALCR_DS_MAX_COLS], vn = 0;
                for (int i = 0; i < 3 * nc; i++) v[i] = rngRange(-1, 1), vn += v[i] * v[i];
                for (int i = 0; i < 3 * nc; i++) v[i] /= sqrt(vn);
                alcrDsPairEval ep, em;
                alcmDsMeshTrace tp, tmn;
                for (int c = 0; c < nc; c++) {
                    for (int j = 0; j < 3; j++) tm.v[3 * cols[c] + j] += eps * v[3 * c + j];
                }
                alcr_dsPair_eval(&tm.m, z, x, mu, k, &ep, &tp);
                memcpy(tm.v, save, sizeof(double) * 3 * (size_t)tm.nv);
                for (int c = 0; c < nc; c++) {
                    for (int j = 0; j < 3; j++) tm.v[3 * cols[c] + j] -= eps * v[3 * c + j];
                }
                alcr_dsPair_eval(&tm.m, z, x, mu, k, &em, &tmn);
                memcpy(tm.v, save, sizeof(double) * 3 * (size_t)tm.nv);
                if (!samePath(&ep, &tp, &e, &tr) || !samePath(&em, &tmn, &e, &tr)) {
                    rejected++;
                    continue;
                }
                double Fp[12], Fm[12], err = 0, dn = 0;
                alcr_dsPair_forces(&ep, Fp);
                alcr_dsPair_forces(&em, Fm);
                for (int a = 0; a < 4; a++) {
                    for (int r = 0; r < 3; r++) {
                        double jv = 0, diff = (Fp[3 * a + r] - Fm[3 * a + r]) / (2 * eps);
                        for (int c = 0; c < nc; c++) {
                            const double* B = J + 9 * (nc * a + c);
                            for (int j = 0; j < 3; j++) jv += B[3 * r + j] * v[3 * c + j];
                        }
                        err += (jv - diff) * (jv - diff);
                        dn += diff * diff;
                    }
                }
                err = sqrt(err) / k;  // relative to k |v|, |v| = 1
                worst = fmax(worst, err);
                worstRel = fmax(worstRel, err * k / sqrt(dn));
                ENSURE_MSG(err <= 1e-5,
                           "%s, trial %d: |J v - diff| = %g k (state %d, %d steps, %d columns)",
                           names[which], it, err, e.r.state, e.r.nsteps, nc);
                accepted++;
                ok = 1;
            }
            if (!ok) continue;
            multi += e.r.nsteps > 1;
            ends[e.r.state]++;
            maxSteps = alcm_maxi(maxSteps, e.r.nsteps);
            // sliding inside a face or along an edge: the (Z, Z) block is not symmetric
            if (e.r.state != ALCM_DS_FSM_VERTEX) {
                asymTrials++;
                asymCount += frob(J, J, 1) > 1e-3 * k * mu;
            }
        }
        alct_note("%s: %d directions accepted", names[which], accepted - acc0);
        ENSURE(accepted - acc0 >= 100);
    }
    alct_note(
        "J v vs central differences (eps 1e-5 of the cell): %d directions within %.1e k (%.1e of "
        "|diff|), %d rejected (path changed), %d pairs not sliding skipped; walks: %d multi-step "
        "(%d steps at most, %d columns at most), ends 1:%d 2:%d 3:%d 4:%d; Jacobian columns "
        "%ld, one-sided %ld, dropped %ld; (Z, Z) asymmetric in %d of %d face/edge ends",
        accepted, worst, worstRel, rejected, skipped, multi, maxSteps, maxCols, ends[1], ends[2],
        ends[3], ends[4], js.columns, js.oneSided, js.dropped, asymCount, asymTrials);
    ENSURE(multi >= 10 && ends[ALCM_DS_FSM_ENTERED] >= 10 && ends[ALCM_DS_FSM_EDGE] >= 5);
    ENSURE(ends[ALCM_DS_FSM_VERTEX] >= 1);
    ENSURE(asymCount >= asymTrials * 9 / 10);
    free(save);
    tmFree(&tm);
    return ALC_TEST_PASS;
}

/// The stencil's forces sum to zero, so do each Jacobian column's blocks; inactive pairs have
/// neither force nor Jacobian.
ALC_TEST(penaltyDsPair_centralForce) {
    rngSeed(2303);
    const double k = 1e4;
    TMesh tm;
    tmInit(&tm, 800, 1200);
    int cols[ALCR_DS_MAX_COLS];
    double J[9 * 4 * ALCR_DS_MAX_COLS];
    int nStatic = 0, nSlide = 0, nInactive = 0;
    double worstF = 0, worstJ = 0;
    for (int which = 0; which < 2; which++) {
        tm.nv = tm.nt = 0;
        double h = 0;
        if (which == 0) tmBumpy(&tm), h = 2.0 / 12;
        if (which == 1) {
            tmCube(&tm, 4), h = 0.4;
            for (int v = 0; v < tm.nv; v++) {
                alcm_v3_store(tm.v + 3 * v, alcm_v3_normalize(alcm_v3_load(tm.v + 3 * v)));
            }
        }
        int z = tmAddVert(&tm, alcm_v3(0, 0, 0));
        ENSURE(tmBuild(&tm) == ALCM_DS_MESH_OK);
        for (int it = 0; it < 150; it++) {
            int t = (int)(rngUniform() * tm.nt), kind = it % 3;  // static, sliding, above
            alcmDsAttach x = randAttach(t, 0.0);
            alcV3 xp = tmPoint(&tm, x), n = tmNormal(&tm, t);
            double mu = rngRange(0.1, 1.0), depth = h * rngRange(0.05, 0.8);
            alcV3 tang = alcm_v3_normalize(alcm_v3_cross(n, randUnit()));
            double reach = kind == 0 ? 0.5 * mu * depth * rngUniform() : 2 * h * rngUniform();
            if (kind == 2) depth = -depth;
            alcV3 zp = alcm_v3_mad(alcm_v3_mad(xp, -depth, n), reach, tang);
            alcm_v3_store(tm.v + 3 * z, zp);
            alcrDsPairEval e;
            alcmDsMeshTrace tr;
            alcr_dsPair_eval(&tm.m, z, x, mu, k, &e, &tr);
            double F[12];
            alcr_dsPair_forces(&e, F);
            if (!e.r.active) {
                nInactive++;
                for (int i = 0; i < 12; i++) ENSURE(F[i] == 0);
                ENSURE(alcr_dsPair_jacobian(tm.v, &tm.m, z, x, mu, k, &e, &tr, cols, J, NULL) == 0);
                continue;
            }
            if (kind == 0) ENSURE(!e.r.dynamic);
            nStatic += !e.r.dynamic;
            nSlide += e.r.dynamic;
            double fn = alcm_v3_norm(e.f);
            ENSURE(fn > 0);
            for (int j = 0; j < 3; j++) {
                double s = F[j] + F[3 + j] + F[6 + j] + F[9 + j];
                worstF = fmax(worstF, fabs(s) / fn);
                ENSURE_MSG(fabs(s) <= 1e-12 * fn, "forces sum to %g of |f|", fabs(s) / fn);
            }
            int nc = alcr_dsPair_jacobian(tm.v, &tm.m, z, x, mu, k, &e, &tr, cols, J, NULL);
            ENSURE(nc >= 4 && cols[0] == z);
            for (int c = 0; c < nc; c++) {
                for (int q = 0; q < 9; q++) {
                    double s = 0;
                    for (int a = 0; a < 4; a++) s += J[9 * (nc * a + c) + q];
                    worstJ = fmax(worstJ, fabs(s) / k);
                    ENSURE_MSG(fabs(s) <= 1e-6 * k, "column %d's blocks sum to %g k", c, s / k);
                }
            }
        }
    }
    alct_note(
        "%d static and %d sliding pairs: stencil forces sum to %.1e of |f|, Jacobian columns' "
        "blocks to %.1e k; %d inactive pairs without force or Jacobian",
        nStatic, nSlide, worstF, worstJ, nInactive);
    ENSURE(nStatic >= 50 && nSlide >= 50 && nInactive >= 50);
    tmFree(&tm);
    return ALC_TEST_PASS;
}
