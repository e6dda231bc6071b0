// Energy-gain check of every time step (issue 14, item 4): an unphysical step is never silent.
//
// Mechanical energy E = kinetic + elastic + gravity potential, kinetic and gravity over the free
// vertices (kinematic ones are the boundary) and the rigid bodies, elastic over every
// tetrahedron. Contact potentials
// (AL offset, IPC barrier) are not part of E: energy they release is what is being checked.
// The penalty-ds model's springs are the exception: their normal part, 1/2 k d^2 at depth d, is
// the model's contact stiffness, counted in the elastic part.
//
// Implicit Euler dissipates: with a convex elastic energy E_el, the step's optimality condition
// M (v' - v) = h (M g - grad E_el(x') + f_c) gives
//   dE <= grad_K E_el(x') . dx_K + f_c . dx_free - |dv|^2_M / 2,
// so a legitimate step gains at most what
//   - drivers inject: through elasticity, sum over kinematic vertices k of
//     max(|grad_k E_el(x^t)|, |grad_k E_el(x')|) |dx_k| (the discrete bound above, taken at both
//     ends of the step so that a nonconvex energy is covered as well), and through contact,
//     (|f_n| + |f_t|) times the largest displacement of a kinematic vertex of the pair;
//   - contact forces do while pushing a pair apart: |f_n| max(0, d' - d^t) per reported pair
//     (the AL constraint moves pairs out to delta; the IPC barrier releases energy it stored).
// Forces are those of the contact report after the step (alc_getContacts), which is why the
// check runs in alc_step around both step loops rather than inside each.
//
// Two tests, both with a tolerance of ALCI_ENERGY_REL times the step's energy scale (kinetic
// energy before and after, |work of gravity|, |change of elastic energy|, the allowance, and
// the kinetic energy of a velocity max(|g| h, 1e-4 diag / h) of the free mass):
//   (a) the step: dE - allowance;
//   (b) the run: E' - budget, the budget being E at the first checked step plus every later
//       edit of the state by the caller (or a driver releasing its vertices) plus the driver
//       allowances and, for the AL and penalty models, the push-out allowances. The IPC
//       barrier's push-out is left out of (b): it can only give back kinetic energy it took
//       earlier, unless the barrier started compressed (dhat above an initial gap), which
//       is the unphysical launch (b) is there to catch.
// The gain reported (alcStepStat.energyGain) is the larger of the two.
#include "alc_internal.h"
#include "hd/alcm_distance.h"
#include "hd/alcm_elastic.h"
#include "hd/alcm_rigid_energy.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Tolerance of both tests, relative to the step's energy scale.
#define ALCI_ENERGY_REL 0.25

typedef struct {
    double kinetic, elastic, gravity;  // J
    double mass;                       // free mass (kg)
} Mech;

static double total(const Mech* e) {
    return e->kinetic + e->elastic + e->gravity;
}

static void loadTet(const alcModel* m, const double* x, int t, alcV3 v[4]) {
    for (int a = 0; a < 4; a++) v[a] = alcm_v3_load(x + 3 * m->tet_vert[4 * t + a]);
}

static Mech mechanical(const alcModel* m, const unsigned char* kin, const alcData* d) {
    const double* x = d->x;
    const double* v = d->v;
    const double* g = m->opt.gravity;
    Mech e = {0, 0, 0, 0};
    // rigid bodies (their vertices carry no mass): implicit Euler's velocities from the poses,
    // (q - q_prev) / h and Qdot = (Q - Q_prev) / h, kinetic energy 1/2 m |qdot|^2 +
    // 1/2 tr(Qdot J Qdot^T) (RIPC Eq. 9-10's), gravity at the centre of mass
    double ih = 1.0 / m->opt.timestep;
    for (int r = 0; r < m->nrigid; r++) {
        int b = m->rigid_body[r];
        if (m->body_vertnum[b] > 0 && kin[m->body_vertadr[b]]) continue;  // driven: a boundary
        const double* p = d->rigid_pose + 6 * r;
        const double* pp = d->rigid_posePrev + 6 * r;
        double mr = m->rigid_mass[r];
        double qd[3] = {(p[3] - pp[3]) * ih, (p[4] - pp[4]) * ih, (p[5] - pp[5]) * ih};
        alcM3 Q = alcm_rodrigues(alcm_v3_load(p)), Qp = alcm_rodrigues(alcm_v3_load(pp));
        alcV3 J = alcm_rigid_J(alcm_v3_load(m->rigid_inertia + 3 * r));
        double Jd[3] = {J.x, J.y, J.z}, rot = 0;
        for (int i = 0; i < 9; i++) {
            double qdot = (Q.m[i] - Qp.m[i]) * ih;
            rot += Jd[i % 3] * qdot * qdot;
        }
        e.mass += mr;
        e.kinetic += 0.5 * mr * (qd[0] * qd[0] + qd[1] * qd[1] + qd[2] * qd[2]) + 0.5 * rot;
        e.gravity -= mr * (g[0] * p[3] + g[1] * p[4] + g[2] * p[5]);
    }
    for (int i = 0; i < m->nvert; i++) {
        double mi = m->vert_mass[i];
        if (kin[i] || !(mi > 0)) continue;
        const double* xi = x + 3 * i;
        const double* vi = v + 3 * i;
        e.mass += mi;
        e.kinetic += 0.5 * mi * (vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]);
        e.gravity -= mi * (g[0] * xi[0] + g[1] * xi[1] + g[2] * xi[2]);
    }
    for (int t = 0; t < m->ntet; t++) {
        int mat = m->body_mat[m->tet_body[t]];
        alcV3 xt[4];
        loadTet(m, x, t, xt);
        e.elastic +=
            alcm_tet_energy(m->mat_model[mat], m->mat_lame[2 * mat], m->mat_lame[2 * mat + 1],
                            m->tet_vol[t], alcm_m3_load(m->tet_Dminv + 9 * t), xt);
    }
    return e;
}

/// |grad_k E_el(x)| for every kinematic vertex k into out (nvert); G is 3 x nvert scratch.
static void kinematicForce(const alcModel* m, const unsigned char* kin, const double* x, double* G,
                           double* out) {
    memset(G, 0, sizeof(double) * 3 * (size_t)m->nvert);
    for (int t = 0; t < m->ntet; t++) {
        const int* tv = m->tet_vert + 4 * t;
        if (!kin[tv[0]] && !kin[tv[1]] && !kin[tv[2]] && !kin[tv[3]]) continue;
        int mat = m->body_mat[m->tet_body[t]];
        alcV3 xt[4];
        double g[12];
        loadTet(m, x, t, xt);
        alcm_tet_gradient(m->mat_model[mat], m->mat_lame[2 * mat], m->mat_lame[2 * mat + 1],
                          m->tet_vol[t], alcm_m3_load(m->tet_Dminv + 9 * t), xt, g);
        for (int a = 0; a < 4; a++) {
            if (!kin[tv[a]]) continue;
            for (int c = 0; c < 3; c++) G[3 * tv[a] + c] += g[3 * a + c];
        }
    }
    for (int i = 0; i < m->nvert; i++) {
        const double* gi = G + 3 * i;
        out[i] = kin[i] ? sqrt(gi[0] * gi[0] + gi[1] * gi[1] + gi[2] * gi[2]) : 0;
    }
}

static double dist3(const double* a, const double* b) {
    double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
    return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

// buffer layout (doubles, ALCI_EBUF_* of alc_internal.h): x^t, last x, last v, force scratch
// (3 nvert each), then |grad_k E_el| at x^t and at the last end state (nvert each)
#define XT(s, n) ((s)->energyBuf + ALCI_EBUF_XT * (size_t)(n))
#define XL(s, n) ((s)->energyBuf + ALCI_EBUF_XL * (size_t)(n))
#define VL(s, n) ((s)->energyBuf + ALCI_EBUF_VL * (size_t)(n))
#define GS(s, n) ((s)->energyBuf + ALCI_EBUF_GS * (size_t)(n))
#define FB(s, n) ((s)->energyBuf + ALCI_EBUF_FB * (size_t)(n))
#define FL(s, n) ((s)->energyBuf + ALCI_EBUF_FL * (size_t)(n))

void alci_energy_begin(alcSim* sim, const alcData* d) {
    const alcModel* m = sim->m;
    int n = m->nvert;
    if (!sim->energyBuf) {
        sim->energyBuf = (double*)malloc(sizeof(double) * ALCI_ENERGY_BUFN * (size_t)n);
        sim->energyInit = 0;
        if (!sim->energyBuf) return;
    }
    size_t bytes = sizeof(double) * 3 * (size_t)n;
    // (rigid bodies' poses are not kept here: a model with them recomputes)
    int same = sim->energyInit && m->nrigid == 0 && !memcmp(XL(sim, n), d->x, bytes) &&
               !memcmp(VL(sim, n), d->v, bytes);
    memcpy(XT(sim, n), d->x, bytes);
    if (same) {
        sim->energyBefore = sim->energyLast;
        memcpy(sim->energyPartsBefore, sim->energyPartsLast, sizeof sim->energyPartsBefore);
        memcpy(FB(sim, n), FL(sim, n), sizeof(double) * (size_t)n);
    } else {
        Mech e = mechanical(m, sim->kinMask, d);
        sim->energyBefore = total(&e);
        sim->energyPartsBefore[0] = e.kinetic;
        sim->energyPartsBefore[1] = e.elastic;
        sim->energyPartsBefore[2] = e.gravity;
        kinematicForce(m, sim->kinMask, d->x, GS(sim, n), FB(sim, n));
    }
    // the caller edited the state (or a driver released its vertices): external work
    if (!sim->energyInit) {
        sim->energyBudget = sim->energyBefore;
    } else {
        sim->energyBudget += sim->energyBefore - sim->energyLast;
    }
}

void alci_energy_end(alcSim* sim, alcData* d) {
    const alcModel* m = sim->m;
    const alcOption* o = &m->opt;
    int n = m->nvert;
    if (!sim->energyBuf) return;
    const unsigned char* kin = sim->kinMask;
    const double* x0 = XT(sim, n);
    double* fl = FL(sim, n);
    const double* fb = FB(sim, n);

    Mech e1 = mechanical(m, kin, d);
    if (o->contact == ALC_CONTACT_PENALTY_DS) {
        // the penalty springs' normal part is a potential, 1/2 k d^2 = 1/2 f_n d with d the depth
        // (the reported distance is -d): counted as elastic energy, so that a spring giving back
        // what it stored is no gain
        for (int c = 0; c < sim->ncontact; c++) {
            const alcContact* p = &sim->contacts[c];
            if (p->distance < 0) e1.elastic += 0.5 * fabs(p->normalForce) * -p->distance;
        }
    }
    double E0 = sim->energyBefore, E1 = total(&e1);
    double kin0 = sim->energyPartsBefore[0];
    kinematicForce(m, kin, d->x, GS(sim, n), fl);

    // drivers through elasticity
    double aDriver = 0;
    for (int i = 0; i < n; i++) {
        if (!kin[i]) continue;
        double f = fb[i] > fl[i] ? fb[i] : fl[i];
        aDriver += f * dist3(d->x + 3 * i, x0 + 3 * i);
    }
    // contact: pairs touching moving kinematic vertices, and push-out
    double aPush = 0;
    for (int c = 0; c < sim->ncontact; c++) {
        const alcContact* p = &sim->contacts[c];
        double fn = fabs(p->normalForce);
        double ft = sqrt(p->frictionForce[0] * p->frictionForce[0] +
                         p->frictionForce[1] * p->frictionForce[1] +
                         p->frictionForce[2] * p->frictionForce[2]);
        double kmove = 0;
        alcV3 v[4];
        for (int a = 0; a < 4; a++) {
            int vi = p->vert[a];
            if (vi < 0 || vi >= n) break;
            v[a] = alcm_v3_load(x0 + 3 * vi);
            if (kin[vi]) {
                double s = dist3(d->x + 3 * vi, x0 + 3 * vi);
                if (s > kmove) kmove = s;
            }
        }
        aDriver += (fn + ft) * kmove;
        double dStart = p->type == 0 ? alcm_pt_distance(v, NULL) : alcm_ee_distance(v, NULL);
        if (isfinite(dStart) && p->distance > dStart) aPush += fn * (p->distance - dStart);
    }

    double gnorm = sqrt(o->gravity[0] * o->gravity[0] + o->gravity[1] * o->gravity[1] +
                        o->gravity[2] * o->gravity[2]);
    double vfloor = gnorm * o->timestep;
    if (1e-4 * m->diag / o->timestep > vfloor) vfloor = 1e-4 * m->diag / o->timestep;
    double allowance = aDriver + aPush;
    double scale = kin0 + e1.kinetic + fabs(e1.gravity - sim->energyPartsBefore[2]) +
                   fabs(e1.elastic - sim->energyPartsBefore[1]) + allowance +
                   0.5 * e1.mass * vfloor * vfloor;

    double gainStep = E1 - E0 - allowance;
    sim->energyBudget += aDriver + (o->contact == ALC_CONTACT_IPC ? 0 : aPush);
    double gainRun = E1 - sim->energyBudget;
    double gain = gainStep > gainRun ? gainStep : gainRun;
    d->stat.energyGain = gain > 0 && isfinite(gain) ? gain : 0;
    alci_log(sim, 3,
             "step %ld energy: %.6g -> %.6g J, allowance %.4g J (drivers %.4g), budget %.6g J, "
             "gain %.4g J = %.4g x scale %.4g J",
             d->step, E0, E1, allowance, aDriver, sim->energyBudget, gain, gain / scale, scale);
    if (isfinite(gain) && scale > 0 && gain > ALCI_ENERGY_REL * scale) {
        double rel = gain / scale;
        int info = rel * 1000 < (double)INT_MAX ? (int)(rel * 1000) : INT_MAX;
        alci_warn(sim, d, ALC_WARN_ENERGY_GAIN, info,
                  "step %ld gained %.4g J of mechanical energy (kinetic + elastic + gravity) "
                  "beyond the work of gravity, drivers and contact push-out, %.3g times the "
                  "step's energy scale %.4g J (kinetic %.4g -> %.4g J)",
                  d->step, gain, rel, scale, kin0, e1.kinetic);
        // the gain is now part of the state: warn on further gains, not on this one again
        if (E1 > sim->energyBudget) sim->energyBudget = E1;
    }
    if (!isfinite(sim->energyBudget)) sim->energyBudget = E1;
    sim->energyLast = E1;
    sim->energyPartsLast[0] = e1.kinetic;
    sim->energyPartsLast[1] = e1.elastic;
    sim->energyPartsLast[2] = e1.gravity;
    memcpy(XL(sim, n), d->x, sizeof(double) * 3 * (size_t)n);
    memcpy(VL(sim, n), d->v, sizeof(double) * 3 * (size_t)n);
    sim->energyInit = 1;
}
