// Rigid bodies in the solver (issue 17): a body of type ALC_BODY_RIGID is six DOFs (RIPC Eq. 4)
// with the inertia of RIPC Eq. 9-10, simulated by the reference backend (contact on them:
// test_rigid_contact.c). Free flight against implicit Euler's closed form, a spinning body's axis,
// angular momentum and energy, rigidity of the vertices, checkpoints, and what is refused.
#include "hd/alcm_rigid.h"
#include "hd/alcm_rigid_energy.h"
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    alcModel* m;
    alcData* d;
    alcSim* sim;
} Rig;

/// One rigid box (size, density 500) at c with velocity v and angular velocity w, optionally
/// tilted by the quaternion rot; gravity g; contact 'none'; h = 0.01. 1 on success.
static int makeRig(Rig* r, const double size[3], const double c[3], const double v[3],
                   const double w[3], const double rot[4], const double g[3], int contact) {
    memset(r, 0, sizeof *r);
    alcSpec* spec = NULL;
    if (alc_makeSpec(&spec) != ALC_OK) return 0;
    alcOption* o = alc_specOption(spec);
    o->timestep = 0.01;
    o->contact = contact;
    for (int k = 0; k < 3; k++) o->gravity[k] = g[k];
    alcMaterialDef md = alc_defaultMaterialDef();
    md.name = "wood";
    md.density = 500;
    int mat = 0;
    alc_specAddMaterial(spec, &md, &mat);
    alcMesh* mesh = NULL;
    const int cells[3] = {2, 1, 2};
    int ok = alc_meshBox(size, cells, &mesh) == ALC_OK;
    alcBodyDef bd = alc_defaultBodyDef();
    bd.name = "brick";
    bd.type = ALC_BODY_RIGID;
    bd.material = mat;
    if (ok) {
        bd.nvert = mesh->nvert;
        bd.vert = mesh->vert;
        bd.ntet = mesh->ntet;
        bd.tet = mesh->tet;
    }
    for (int k = 0; k < 3; k++) {
        bd.position[k] = c[k];
        bd.velocity[k] = v[k];
        bd.angularVelocity[k] = w[k];
    }
    if (rot) memcpy(bd.rotation, rot, sizeof(double) * 4);
    int index = -1;
    char err[512] = "";
    ok = ok && alc_specAddBody(spec, &bd, &index) == ALC_OK &&
         alc_compileSpec(spec, &r->m, err, sizeof err) == ALC_OK;
    if (!ok) alct_note("building the rigid box failed: %s %s", alc_specError(spec), err);
    alc_deleteMesh(mesh);
    alc_deleteSpec(spec);
    if (!ok) return 0;
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    def.threads = 1;
    if (alc_makeData(r->m, &r->d) != ALC_OK) return 0;
    return alc_makeSim(r->m, &def, &r->sim) == ALC_OK;
}

static void freeRig(Rig* r) {
    alc_deleteSim(r->sim);
    alc_deleteData(r->d);
    alc_deleteModel(r->m);
}

/// Largest change of a distance between two vertices of the body from the start.
static double rigidityError(const alcModel* m, const alcData* d) {
    double worst = 0;
    for (int i = 0; i < m->nvert; i++) {
        for (int j = i + 1; j < m->nvert; j++) {
            double d0 = 0, d1 = 0;
            for (int k = 0; k < 3; k++) {
                double a = m->vert_x0[3 * i + k] - m->vert_x0[3 * j + k];
                double b = d->x[3 * i + k] - d->x[3 * j + k];
                d0 += a * a;
                d1 += b * b;
            }
            worst = fmax(worst, fabs(sqrt(d1) - sqrt(d0)));
        }
    }
    return worst;
}

ALC_TEST(rigid_body_massAndPose) {
    // a 0.3 x 0.1 x 0.2 m box of density 500: 3 kg; principal moments m (b^2 + c^2) / 12
    Rig r;
    const double size[3] = {0.3, 0.1, 0.2}, c[3] = {1, 2, 3}, z[3] = {0, 0, 0};
    ENSURE(makeRig(&r, size, c, z, z, NULL, z, ALC_CONTACT_NONE));
    const alcModel* m = r.m;
    ENSURE(m->nrigid == 1 && m->body_rigid[0] == 0 && m->rigid_body[0] == 0);
    ENSURE(m->body_type[0] == ALC_BODY_RIGID && m->ntet == 0 && m->body_tetnum[0] == 0);
    ENSURE(fabs(m->rigid_mass[0] - 3.0) < 1e-12);
    double I[3] = {3.0 * (0.1 * 0.1 + 0.3 * 0.3) / 12, 3.0 * (0.1 * 0.1 + 0.2 * 0.2) / 12,
                   3.0 * (0.3 * 0.3 + 0.2 * 0.2) / 12};
    // descending: about y (0.3 x 0.2 face), z, x
    double want[3] = {3.0 * (0.3 * 0.3 + 0.2 * 0.2) / 12, 3.0 * (0.1 * 0.1 + 0.3 * 0.3) / 12,
                      3.0 * (0.1 * 0.1 + 0.2 * 0.2) / 12};
    (void)I;
    for (int k = 0; k < 3; k++) {
        ENSURE_MSG(fabs(m->rigid_inertia[k] - want[k]) < 1e-12, "I[%d] %.17g vs %.17g", k,
                   m->rigid_inertia[k], want[k]);
        ENSURE(fabs(m->rigid_pose0[3 + k] - c[k]) < 1e-12);
    }
    // every vertex at R(theta) local + q, and no mass of its own
    alcM3 R = alcm_rodrigues(alcm_v3_load(m->rigid_pose0));
    for (int v = 0; v < m->nvert; v++) {
        alcV3 x = alcm_v3_add(alcm_m3_mulv(R, alcm_v3_load(m->vert_local + 3 * v)),
                              alcm_v3_load(m->rigid_pose0 + 3));
        ENSURE(alcm_v3_norm(alcm_v3_sub(x, alcm_v3_load(m->vert_x0 + 3 * v))) < 1e-14);
        ENSURE(m->vert_mass[v] == 0);
    }
    freeRig(&r);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_body_freeFlight) {
    // implicit Euler on q with q_{-1} = q_0 - h v_0: q_n = q_0 + n h v_0 + h^2 g n (n + 1) / 2
    Rig r;
    const double size[3] = {0.3, 0.1, 0.2}, c[3] = {0, 1, 0}, v[3] = {1, 2, -0.5}, z[3] = {0, 0, 0};
    const double g[3] = {0, -9.81, 0}, rot[4] = {cos(0.3), sin(0.3) * 0.6, 0, sin(0.3) * 0.8};
    ENSURE(makeRig(&r, size, c, v, z, rot, g, ALC_CONTACT_NONE));
    double h = 0.01, worst = 0, th0[3];
    memcpy(th0, r.d->rigid_pose, sizeof th0);
    for (int n = 1; n <= 100; n++) {
        ENSURE_OK(alc_step(r.sim, r.d));
        for (int k = 0; k < 3; k++) {
            double want = c[k] + n * h * v[k] + h * h * g[k] * n * (n + 1) / 2.0;
            worst = fmax(worst, fabs(r.d->rigid_pose[3 + k] - want));
        }
    }
    double turn = 0, rig = rigidityError(r.m, r.d);
    for (int k = 0; k < 3; k++) turn = fmax(turn, fabs(r.d->rigid_pose[k] - th0[k]));
    alct_note(
        "100 steps: centre of mass off the closed form by %.2e m, rotation moved %.2e rad, "
        "distances between vertices changed by %.2e m; %.1f Newton per step",
        worst, turn, rig, (double)r.d->run.newton / 100);
    ENSURE(worst < 1e-10);
    ENSURE(turn < 1e-12);
    ENSURE(rig < 1e-12);
    // the vertices' velocities are those of the body
    for (int k = 0; k < 3; k++) {
        double vq = (r.d->rigid_pose[3 + k] - r.d->rigid_posePrev[3 + k]) / h;
        ENSURE(fabs(r.d->v[k] - vq) < 1e-9);
    }
    freeRig(&r);
    return ALC_TEST_PASS;
}

/// Angular velocity in world axes from two poses h apart: log(R R_prev^T) / h.
static alcV3 omegaOf(const double* pose, const double* prev, double h) {
    alcM3 R = alcm_rodrigues(alcm_v3_load(pose)), Rp = alcm_rodrigues(alcm_v3_load(prev));
    return alcm_v3_scale(alcm_rotation_log(alcm_m3_mul(R, alcm_m3_transpose(Rp))), 1.0 / h);
}

/// A free rigid body's angular momentum in world axes, R Pi, with Pi the discrete rigid body's
/// body momentum that the last step left (alcm_rigid_mvMomentum), and its kinetic energy of
/// rotation (1 / h^2) tr((Id - F) J), F = R_prev^T R (RIPC's (1/2) tr(Qdot J Qdot^T)).
static alcV3 momentumOf(const Rig* r, double h, double* energy) {
    alcM3 R = alcm_rodrigues(alcm_v3_load(r->d->rigid_pose));
    alcM3 Rp = alcm_rodrigues(alcm_v3_load(r->d->rigid_posePrev));
    alcV3 J = alcm_rigid_J(alcm_v3_load(r->m->rigid_inertia));
    alcM3 F = alcm_m3_Tmul(Rp, R);
    *energy = (J.x * (1 - F.m[0]) + J.y * (1 - F.m[4]) + J.z * (1 - F.m[8])) / (h * h);
    return alcm_m3_mulv(R, alcm_rigid_mvMomentum(R, Rp, J, h));
}

ALC_TEST(rigid_body_spin) {
    // zero gravity. About the largest principal axis (y for this box): the axis and the speed
    // stay. The rotation steps as the discrete rigid body of Moser and Veselov (rigid_ref.c),
    // which keeps a free body's angular momentum exactly (the issue asks for 1e-6)
    Rig r;
    const double size[3] = {0.3, 0.1, 0.2}, c[3] = {0, 0, 0}, z[3] = {0, 0, 0};
    const double w[3] = {0, 5, 0};
    ENSURE(makeRig(&r, size, c, z, w, NULL, z, ALC_CONTACT_NONE));
    double h = 0.01, e0 = 0, e1 = 0;
    alcV3 L0 = momentumOf(&r, h, &e0);
    for (int n = 0; n < 100; n++) ENSURE_OK(alc_step(r.sim, r.d));
    alcV3 om = omegaOf(r.d->rigid_pose, r.d->rigid_posePrev, h);
    double off = sqrt(om.x * om.x + om.z * om.z), speed = alcm_v3_norm(om);
    double q = alcm_v3_norm(alcm_v3_load(r.d->rigid_pose + 3));
    alcV3 L1 = momentumOf(&r, h, &e1);
    double dL = alcm_v3_norm(alcm_v3_sub(L1, L0)) / alcm_v3_norm(L0);
    alct_note(
        "spin about the major axis, 5 rad/s: after 100 steps of 0.01 s %.5f rad/s (a step "
        "turns it by asin(5 h)), off-axis %.2e rad/s, angular momentum changed by %.2e of "
        "itself, centre moved %.2e m, rigidity %.2e m; %.1f Newton per step",
        speed, off, dL, q, rigidityError(r.m, r.d), (double)r.d->run.newton / 100);
    ENSURE(off < 1e-9 && q < 1e-12);
    ENSURE(fabs(speed - asin(5 * h) / h) < 1e-9);
    ENSURE(dL < 1e-12);
    ENSURE(rigidityError(r.m, r.d) < 1e-12);
    freeRig(&r);
    // about a general axis for 10 s (the spin wanders over the body, the momentum stays): the
    // angular momentum within 1e-6 of its start, in size and direction, and the energy
    const double w2[3] = {1, 4, 2};
    ENSURE(makeRig(&r, size, c, z, w2, NULL, z, ALC_CONTACT_NONE));
    L0 = momentumOf(&r, h, &e0);
    const double* I = r.m->rigid_inertia;
    alcM3 R0 = alcm_rodrigues(alcm_v3_load(r.m->rigid_pose0));
    alcV3 wb = alcm_m3_mulv(alcm_m3_transpose(R0), alcm_v3_load(w2));
    alcV3 Lw = alcm_m3_mulv(R0, alcm_v3(I[0] * wb.x, I[1] * wb.y, I[2] * wb.z));
    double worstL = 0, worstE = 0, wMin = 1e9, wMax = 0;
    for (int n = 0; n < 1000; n++) {
        ENSURE_OK(alc_step(r.sim, r.d));
        L1 = momentumOf(&r, h, &e1);
        worstL = fmax(worstL, alcm_v3_norm(alcm_v3_sub(L1, L0)) / alcm_v3_norm(L0));
        worstE = fmax(worstE, fabs(e1 - e0) / e0);
        double s = alcm_v3_norm(omegaOf(r.d->rigid_pose, r.d->rigid_posePrev, h));
        wMin = fmin(wMin, s);
        wMax = fmax(wMax, s);
    }
    alct_note(
        "general spin (1, 4, 2) rad/s, 1000 steps of 0.01 s: angular momentum %.6f kg m^2/s "
        "(I w at the start: %.6f), kept to %.2e of itself; rotational energy %.6e J kept to "
        "%.2e; angular speed between %.3f and %.3f rad/s; rigidity %.2e m",
        alcm_v3_norm(L0), alcm_v3_norm(Lw), worstL, e0, worstE, wMin, wMax,
        rigidityError(r.m, r.d));
    ENSURE(alcm_v3_norm(alcm_v3_sub(L0, Lw)) < 1e-12 * alcm_v3_norm(Lw));
    ENSURE(worstL < 1e-6);
    ENSURE(worstE < 1e-3);
    ENSURE(rigidityError(r.m, r.d) < 1e-12);
    freeRig(&r);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_body_checkpoint) {
    // a run restored at step 20 goes on as one that never stopped, bit for bit
    Rig r;
    const double size[3] = {0.3, 0.1, 0.2}, c[3] = {0, 1, 0}, v[3] = {1, 2, 0};
    const double w[3] = {1, 4, 2}, g[3] = {0, -9.81, 0};
    ENSURE(makeRig(&r, size, c, v, w, NULL, g, ALC_CONTACT_NONE));
    for (int n = 0; n < 20; n++) ENSURE_OK(alc_step(r.sim, r.d));
    size_t bytes = 0;
    ENSURE_OK(alc_checkpointSize(r.sim, r.d, &bytes));
    void* buf = malloc(bytes);
    ENSURE(buf != NULL);
    ENSURE_OK(alc_saveCheckpoint(r.sim, r.d, buf, bytes, &bytes));
    for (int n = 0; n < 20; n++) ENSURE_OK(alc_step(r.sim, r.d));
    double pose[6], prev[6];
    memcpy(pose, r.d->rigid_pose, sizeof pose);
    memcpy(prev, r.d->rigid_posePrev, sizeof prev);
    uint64_t hash = alc_stateHash(r.d);
    alc_resetData(r.m, r.d);
    ENSURE_OK(alc_loadCheckpoint(r.sim, r.d, buf, bytes));
    ENSURE(r.d->step == 20);
    for (int n = 0; n < 20; n++) ENSURE_OK(alc_step(r.sim, r.d));
    ENSURE(memcmp(pose, r.d->rigid_pose, sizeof pose) == 0);
    ENSURE(memcmp(prev, r.d->rigid_posePrev, sizeof prev) == 0);
    ENSURE(alc_stateHash(r.d) == hash);
    free(buf);
    freeRig(&r);
    return ALC_TEST_PASS;
}

/// Write text to NAME in the test's folder; the path, or NULL.
static const char* writeScene(const char* name, const char* text) {
    return alct_writeFile(alct_tmpDir("rigid_scene", NULL), name, text);
}

ALC_TEST(rigid_body_refusals) {
    // a free rigid body runs under the IPC model, and so does a driven one (its moving-boundary
    // augmented Lagrangian on the body's DOF nodes, rigid IPC §4.4; rigid_kinematic_*Ipc)
    Rig r;
    const double size[3] = {0.3, 0.1, 0.2}, z[3] = {0, 0, 0};
    ENSURE(makeRig(&r, size, z, z, z, NULL, z, ALC_CONTACT_IPC));
    freeRig(&r);
    const char* path = writeScene("driven_ipc.yaml",
                                  "solver: {contact: ipc}\n"
                                  "bodies:\n"
                                  "  - name: paddle\n"
                                  "    type: rigid\n"
                                  "    mesh: {box: {size: 0.1, cells: 1}}\n"
                                  "    motion: {type: linear, velocity: [1, 0, 0]}\n");
    ENSURE(path != NULL);
    alcModel* m = NULL;
    char err[512] = "";
    ENSURE_MSG(alc_loadScene(path, NULL, &m, err, sizeof err) == ALC_OK, "%s", err);
    alcSimDef def = alc_defaultSimDef();
    alcSim* sim = NULL;
    ENSURE_MSG(alc_makeSim(m, &def, &sim) == ALC_OK, "%s", sim ? alc_lastError(sim) : "");
    alc_deleteSim(sim);
    alc_deleteModel(m);
    // nor the CUDA backend
    ENSURE(makeRig(&r, size, z, z, z, NULL, z, ALC_CONTACT_NONE));
    def.backend = ALC_BACKEND_CUDA;
    sim = NULL;
    alctStatus st = alc_makeSim(r.m, &def, &sim);
    ENSURE(st == ALC_ERR_UNSUPPORTED || st == ALC_ERR_NO_DEVICE);
    alc_deleteSim(sim);
    // auto picks the reference backend
    def.backend = ALC_BACKEND_AUTO;
    sim = NULL;
    ENSURE_OK(alc_makeSim(r.m, &def, &sim));
    ENSURE(alc_simBackend(sim) == ALC_BACKEND_REF);
    alc_deleteSim(sim);
    freeRig(&r);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_body_scene) {
    // `type: rigid` in a scene: the body is rigid, the run follows the closed form of free flight
    const char* ok = writeScene("rigid.yaml",
                                "physics: {time_step: 0.01, gravity: [0, -9.81, 0]}\n"
                                "solver: {contact: none}\n"
                                "materials:\n  wood: {density: 500}\n"
                                "bodies:\n"
                                "  - name: brick\n"
                                "    type: rigid\n"
                                "    mesh: {box: {size: [0.3, 0.1, 0.2], cells: 2}}\n"
                                "    material: wood\n"
                                "    position: [0, 1, 0]\n"
                                "    velocity: [1, 0, 0]\n"
                                "    angular_velocity: [0, 0, 3]\n");
    ENSURE(ok != NULL);
    alcModel* m = NULL;
    char err[1024] = "";
    ENSURE_MSG(alc_loadScene(ok, NULL, &m, err, sizeof err) == ALC_OK, "%s", err);
    ENSURE(m->nrigid == 1 && m->body_type[0] == ALC_BODY_RIGID);
    ENSURE(fabs(m->rigid_vel0[2] - 3) < 1e-15 && fabs(m->rigid_vel0[3] - 1) < 1e-15);
    alc_deleteModel(m);
    // what is refused, each with its line
    static const struct {
        const char* body;
        const char* expect;
    } bad[] = {
        {"    type: stiff\n", "unknown body type 'stiff'"},
        {"    type: rigid\n    drivers:\n      - {name: d, select: {all: true}, motion: {type: "
         "fixed}}\n",
         "a rigid body moves as one: give it a `motion`"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "solver: {contact: none}\n"
                 "bodies:\n"
                 "  - name: brick\n"
                 "%s"
                 "    mesh: {box: {size: 0.1, cells: 1}}\n",
                 bad[i].body);
        const char* p = writeScene("bad.yaml", text);
        ENSURE(p != NULL);
        m = NULL;
        err[0] = 0;
        ENSURE(alc_loadScene(p, NULL, &m, err, sizeof err) != ALC_OK);
        ENSURE_MSG(strstr(err, bad[i].expect) && strstr(err, "bad.yaml:"), "got: %s", err);
        alc_deleteModel(m);
    }
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_body_intermediateAxis) {
    // the tennis-racket theorem: a spin about the largest or the smallest principal axis is
    // stable, one about the intermediate axis flips over and back (Dzhanibekov); each started
    // with a 1 % perturbation about another axis, zero gravity, 10 s (implicit Euler's
    // dissipation slows the spin from 5 to about 2 rad/s meanwhile)
    const double size[3] = {0.3, 0.1, 0.2}, z[3] = {0, 0, 0};
    // principal axes of this box: largest y, intermediate z, smallest x
    const double spin[3][3] = {{0.05, 5, 0}, {0.05, 0, 5}, {5, 0.05, 0}};
    const char* which[3] = {"largest", "intermediate", "smallest"};
    int flips[3] = {0, 0, 0};
    double h = 0.01, first[3] = {0, 0, 0};
    for (int a = 0; a < 3; a++) {
        Rig r;
        ENSURE(makeRig(&r, size, z, z, spin[a], NULL, z, ALC_CONTACT_NONE));
        int axis = a == 0 ? 1 : (a == 1 ? 2 : 0);
        double sPrev = 1;
        for (int n = 0; n < 1000; n++) {
            ENSURE_OK(alc_step(r.sim, r.d));
            // the spin axis in body coordinates: which way the body's axis points in the world
            alcM3 R = alcm_rodrigues(alcm_v3_load(r.d->rigid_pose));
            alcM3 R0 = alcm_rodrigues(alcm_v3_load(r.m->rigid_pose0));
            // the body's initial spin axis (world) carried by the body, against the world axis
            double e[3] = {0, 0, 0};
            e[axis] = 1;
            alcV3 body = alcm_m3_mulv(alcm_m3_transpose(R0), alcm_v3_load(e));
            alcV3 now = alcm_m3_mulv(R, body);
            double s = (axis == 0 ? now.x : (axis == 1 ? now.y : now.z));
            if (s * sPrev < 0 && flips[a]++ == 0) first[a] = (n + 1) * h;
            sPrev = s;
        }
        freeRig(&r);
    }
    alct_note(
        "sign changes of the spin axis in 10 s: about the %s axis %d, the %s %d (the first "
        "at %.2f s), the %s %d",
        which[0], flips[0], which[1], flips[1], first[1], which[2], flips[2]);
    ENSURE(flips[0] == 0 && flips[2] == 0);
    ENSURE(flips[1] >= 1);
    return ALC_TEST_PASS;
}
