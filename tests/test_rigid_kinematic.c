// Kinematic rigid bodies (issue 17, item 5): a rigid body driven as one pose. Its vertices' targets
// come from the drivers as a solid's do; the step takes the pose that fits them (Kabsch), places
// the body's nodes there in the first iterate and eliminates them (AL paper §5.3). A driven bar
// follows its rotation through more than half a turn and flies on when released; a driven
// paddle pushes a free rigid block along frictionless ground, under the AL and the IPC model; a
// rigid body driven by part of its vertices is refused. The gripper with rigid fingers is
// api_graspExample (test_api.c).
#include "hd/alcm_rigid.h"
#include "hd/alcm_rigid_energy.h"
#include "scene_run.h"
#include "test_files.h"
#include "test_macros.h"

#include "alc/alc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Write a scene's text to NAME in the test's folder and open it as openRunPath does.
static int openText(Run* r, const char* name, const char* text) {
    const char* path = alct_writeFile(alct_tmpDir("rigid_kinematic", NULL), name, text);
    return path && openRunPath(r, path, NULL, NULL, -1);
}

ALC_TEST(rigid_kinematic_nearestRotationVector) {
    // the target's rotation vector is the one nearest to the start's, so the step's path (linear
    // in theta) turns the short way
    const alcV3 z = alcm_v3(0, 0, 1);
    const double pi = 3.14159265358979323846;
    // across half a turn: (pi - 0.01) z to the rotation by pi + 0.01, which log gives as
    // -(pi - 0.01) z; the nearest is (pi + 0.01) z
    alcV3 t = alcm_rotation_nearest(alcm_v3_scale(z, -(pi - 0.01)), alcm_v3_scale(z, pi - 0.01));
    ENSURE_MSG(fabs(t.z - (pi + 0.01)) < 1e-14 && t.x == 0 && t.y == 0, "%.17g", t.z);
    // the same rotation either way round; no change where the target is already nearest
    alcM3 a = alcm_rodrigues(t), b = alcm_rodrigues(alcm_v3_scale(z, -(pi - 0.01)));
    for (int i = 0; i < 9; i++) ENSURE(fabs(a.m[i] - b.m[i]) < 1e-14);
    t = alcm_rotation_nearest(alcm_v3(0.3, -0.2, 0.1), alcm_v3(0.2, -0.1, 0.3));
    ENSURE(t.x == 0.3 && t.y == -0.2 && t.z == 0.1);
    // the other direction, and the identity (every other vector of it is a full turn long)
    t = alcm_rotation_nearest(alcm_v3_scale(z, pi - 0.01), alcm_v3_scale(z, -(pi - 0.01)));
    ENSURE(fabs(t.z + (pi + 0.01)) < 1e-14);
    t = alcm_rotation_nearest(alcm_v3(0, 0, 0), alcm_v3_scale(z, pi));
    ENSURE(t.x == 0 && t.y == 0 && t.z == 0);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_kinematic_followsMotion) {
    // a steel bar orbiting the origin at 3 rad/s about (0, 1, 1) while drifting along x, released
    // at 1.5 s (4.5 rad, past half a turn), no gravity, no contact: every vertex at its target to
    // rounding while driven, each step's path short, then free flight with the velocity it had
    Run r;
    ENSURE(openText(&r, "orbit.yaml",
                    "physics: {time_step: 0.01, gravity: [0, 0, 0]}\n"
                    "solver: {contact: none}\n"
                    "run: {steps: 200}\n"
                    "materials:\n  steel: {density: 7800}\n"
                    "bodies:\n"
                    "  - name: bar\n"
                    "    type: rigid\n"
                    "    mesh: {box: {size: [0.3, 0.05, 0.1], cells: 1}}\n"
                    "    material: steel\n"
                    "    position: [0.5, 0, 0]\n"
                    "    rotation: {axis: [1, 2, 3], angle: 40}\n"
                    "    motion: {type: rotate, axis: [0, 1, 1], center: [0, 0, 0], "
                    "angular_speed: 3, velocity: [0.1, 0, 0], release: 1.5}\n"));
    const alcModel* m = r.m;
    ENSURE(m->nrigid == 1);
    const double w = 3, h = m->opt.timestep, v[3] = {0.1, 0, 0};
    const double s = 1 / sqrt(2.0), axis[3] = {0, s, s};
    double err = 0, dthMax = 0, qRel[3] = {0}, vRel[3] = {0}, flight = 0, L0 = 0, L1 = 0;
    int ok = 1, nv = m->body_vertnum[0], released = -1;
    for (int k = 0; ok && k < m->run.steps; k++) {
        ok = stepRun(&r);
        double t = r.d->time;
        const double* p = r.d->rigid_pose;
        if (t <= 1.5 + 1e-9) {
            // the rotation by w t about the axis through the origin, then the drift
            double q[4] = {cos(0.5 * w * t), 0, 0, 0};
            for (int j = 0; j < 3; j++) q[j + 1] = axis[j] * sin(0.5 * w * t);
            for (int i = 0; i < nv; i++) {
                const double* x0 = m->vert_x0 + 3 * i;
                double rx[3];
                // rotate x0 by q (v' = v + 2 w (u x v) + 2 u x (u x v))
                double u[3] = {q[1], q[2], q[3]}, c1[3], c2[3];
                c1[0] = u[1] * x0[2] - u[2] * x0[1];
                c1[1] = u[2] * x0[0] - u[0] * x0[2];
                c1[2] = u[0] * x0[1] - u[1] * x0[0];
                c2[0] = u[1] * c1[2] - u[2] * c1[1];
                c2[1] = u[2] * c1[0] - u[0] * c1[2];
                c2[2] = u[0] * c1[1] - u[1] * c1[0];
                for (int j = 0; j < 3; j++) {
                    rx[j] = x0[j] + 2 * q[0] * c1[j] + 2 * c2[j] + v[j] * t;
                    err = fmax(err, fabs(r.d->x[3 * i + j] - rx[j]));
                }
            }
            // the step's path: from the pose it started from (rotation vectors are kept within
            // half a turn between steps) to the one it ended on
            const double* pp = r.d->rigid_posePrev;
            double dth[3] = {p[0] - pp[0], p[1] - pp[1], p[2] - pp[2]};
            dthMax = fmax(dthMax, sqrt(dth[0] * dth[0] + dth[1] * dth[1] + dth[2] * dth[2]));
            memcpy(qRel, p + 3, sizeof qRel);
            for (int j = 0; j < 3; j++) vRel[j] = (p[3 + j] - r.d->rigid_posePrev[3 + j]) / h;
            released = k;
        } else {
            // free flight: the centre of mass on the line it left on
            double n = k - released;
            for (int j = 0; j < 3; j++)
                flight = fmax(flight, fabs(p[3 + j] - (qRel[j] + n * h * vRel[j])));
            // angular momentum R Pi of the discrete rigid body (rigid_ref.c), which a free body
            // keeps
            alcM3 R = alcm_rodrigues(alcm_v3_load(p));
            alcM3 Rp = alcm_rodrigues(alcm_v3_load(r.d->rigid_posePrev));
            alcV3 J = alcm_rigid_J(alcm_v3_load(m->rigid_inertia));
            L1 = alcm_v3_norm(alcm_m3_mulv(R, alcm_rigid_mvMomentum(R, Rp, J, h)));
            if (k == released + 1) L0 = L1;
        }
    }
    // the velocity at the release against the motion's over the last driven step: the centre of
    // mass turned by w t about the axis through the origin, then drifted, at 1.49 and 1.5 s
    alcV3 ax = alcm_v3(axis[0], axis[1], axis[2]), c0 = alcm_v3_load(m->rigid_pose0 + 3);
    alcV3 a = alcm_v3_add(alcm_m3_mulv(alcm_rodrigues(alcm_v3_scale(ax, w * 1.49)), c0),
                          alcm_v3_scale(alcm_v3_load(v), 1.49));
    alcV3 b = alcm_v3_add(alcm_m3_mulv(alcm_rodrigues(alcm_v3_scale(ax, w * 1.5)), c0),
                          alcm_v3_scale(alcm_v3_load(v), 1.5));
    alcV3 expect = alcm_v3_scale(alcm_v3_sub(b, a), 1 / h);
    double dv = alcm_v3_norm(alcm_v3_sub(alcm_v3_load(vRel), expect)) / alcm_v3_norm(expect);
    closeRun(&r);
    ENSURE(ok);
    alct_note(
        "driven 150 steps: vertices within %.2e m of their targets, largest change of theta in a "
        "step %.4f rad (w h = %.2f); released: velocity within %.2e of the motion's, the centre of "
        "mass within %.2e m of its line, angular momentum %.12f -> %.12f kg m^2/s in 50 free "
        "steps",
        err, dthMax, w * h, dv, flight, L0, L1);
    ENSURE(released == 149);
    ENSURE(err < 1e-12);
    ENSURE(dthMax < 3 * w * h);  // the long way round would be about 2 pi
    ENSURE(dv < 1e-10);
    ENSURE(flight < 1e-12);
    ENSURE(fabs(L1 - L0) < 1e-12 * L0);
    return ALC_TEST_PASS;
}

/// A driven rigid paddle at 0.5 m/s meets a free rigid block on frictionless ground after 0.25 s
/// and pushes it along, under the contact model `contact`: the paddle ends exactly where its
/// motion puts it, the block at the paddle's speed over the last 0.2 s (to 1 %) and within vTol
/// of it in the last step, their gap positive and below gapMax,
/// the block upright, with no energy warning and every state clean. The ground's one diagonal
/// runs clear of the block's path: a corner sliding across a ground edge is the degenerate
/// resting contact of docs/rigid-bodies.md (on a ground of 2 x 2 cells the block drifted
/// sideways before the paddle came, and was kicked to 0.509 m/s).
static int pushBlock(const char* contact, double vTol, double gapMax) {
    char text[2048];
    snprintf(text, sizeof text,
             "physics: {time_step: 0.01}\n"
             "solver: {delta: 1e-3, contact: %s%s}\n"
             "run: {steps: 100}\n"
             "materials:\n  wood: {density: 600}\n"
             "bodies:\n"
             "  - name: paddle\n"
             "    type: rigid\n"
             "    mesh: {box: {size: [0.05, 0.2, 0.3], cells: 1}}\n"
             "    material: wood\n"
             "    position: [-0.2, 0.12, 0]\n"
             "    motion: {type: linear, velocity: [0.5, 0, 0]}\n"
             "  - name: block\n"
             "    type: rigid\n"
             "    mesh: {box: {size: 0.1, cells: 1}}\n"
             "    material: wood\n"
             "    position: [0, 0.051, 0]\n"
             "obstacles:\n"
             "  - name: ground\n"
             "    mesh: {plane: {size: 2, cells: 1}}\n"
             "    position: [0, 0, 0.6]\n",
             contact, strcmp(contact, "ipc") ? "" : ", ipc: {dhat: 5e-4}");
    char name[64];
    snprintf(name, sizeof name, "push_%s.yaml", contact);
    Run r;
    ENSURE(openText(&r, name, text));
    ENSURE(r.m->nrigid == 2);
    int ok = 1;
    long newton = 0;
    double x80 = 0;  // the block's centre after 0.8 s
    for (int k = 0; ok && k < r.m->run.steps; k++) {
        ok = stepRun(&r);
        newton += r.d->stat.newton;
        if (k + 1 == 80) x80 = r.d->rigid_pose[9];
    }
    const double h = r.m->opt.timestep;
    const double* paddle = r.d->rigid_pose;
    const double* block = r.d->rigid_pose + 6;
    double vx = (block[3] - r.d->rigid_posePrev[9]) / h;
    double vMean = (block[3] - x80) / (20 * h);
    double gap = (block[3] - 0.05) - (paddle[3] + 0.025);
    alcM3 R = alcm_rodrigues(alcm_v3_load(block));
    alcM3 R0 = alcm_rodrigues(alcm_v3_load(r.m->rigid_pose0 + 6));
    double turned = alcm_v3_norm(alcm_rotation_log(alcm_m3_mulT(R, R0)));
    int warned = r.d->warning[ALC_WARN_ENERGY_GAIN].count > 0;
    int capped = r.d->warning[ALC_WARN_AL_NOT_CONVERGED].count;
    closeRun(&r);
    ENSURE(ok);
    alct_note(
        "%s, after 1 s: paddle at x = %.4f m (driven to 0.3000), block at %.4f m moving %.4f "
        "m/s (%.4f m/s over the last 0.2 s), gap %.3e m, block turned %.2e rad; %.2f Newton "
        "iterations per step",
        contact, paddle[3], block[3], vx, vMean, gap, turned, newton / 100.0);
    ENSURE(fabs(paddle[3] - 0.3) < 1e-12);
    ENSURE(fabs(vMean - 0.5) < 0.005);
    ENSURE(fabs(vx - 0.5) < vTol);
    ENSURE(gap > 0 && gap < gapMax);
    ENSURE(turned < 1e-3);
    ENSURE_MSG(!warned && capped == 0, "energy warning %d, capped steps %d", warned, capped);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_kinematic_pushesBlock) {
    // the AL model: the gap within the contact offset delta = 1e-3 m
    return pushBlock("al", 0.01, 2e-3);
}

ALC_TEST(rigid_kinematic_pushesBlockIpc) {
    // the IPC model (rigid IPC §4.4): the paddle's nodes join the solve under the moving
    // boundaries' augmented Lagrangian when its whole move would touch the block, and are
    // placed on their target once it is within reach. The block rides the barrier: its gap
    // inside dhat (1e-3 of the scene's 2.9 m diagonal by default) moves between 2.5e-3 and
    // 2.8e-3 m and its speed by 3 % about the paddle's, step to step
    return pushBlock("ipc", 0.05, 2.9e-3);
}

ALC_TEST(rigid_kinematic_wholeBodyOnly) {
    // a rigid body moves as one: a driver on part of its vertices is refused, with its name
    alcSpec* spec = NULL;
    ENSURE_OK(alc_makeSpec(&spec));
    alcMaterialDef md = alc_defaultMaterialDef();
    int mat = 0;
    ENSURE_OK(alc_specAddMaterial(spec, &md, &mat));
    alcMesh* mesh = NULL;
    const double size[3] = {0.1, 0.1, 0.1};
    const int cells[3] = {1, 1, 1};
    ENSURE_OK(alc_meshBox(size, cells, &mesh));
    alcBodyDef bd = alc_defaultBodyDef();
    bd.name = "brick";
    bd.type = ALC_BODY_RIGID;
    bd.material = mat;
    bd.nvert = mesh->nvert;
    bd.vert = mesh->vert;
    bd.ntet = mesh->ntet;
    bd.tet = mesh->tet;
    int body = -1;
    ENSURE_OK(alc_specAddBody(spec, &bd, &body));
    alcDriverDef dd = alc_defaultDriverDef();
    dd.name = "corner";
    const int verts[2] = {0, 1};
    ENSURE_OK(alc_specAddDriver(spec, &dd, body, 2, verts, NULL));
    alcModel* m = NULL;
    char err[512] = "";
    ENSURE(alc_compileSpec(spec, &m, err, sizeof err) == ALC_ERR_SCENE);
    ENSURE_MSG(strstr(err, "driver 'corner': rigid body 'brick' moves as one") != NULL, "%s", err);
    ENSURE(m == NULL);
    alc_deleteMesh(mesh);
    alc_deleteSpec(spec);
    return ALC_TEST_PASS;
}

ALC_TEST(rigid_kinematic_info) {
    // `alcove info` names the driver of a driven rigid body, and none for a free one
    const char* dir = alct_tmpDir("rigid_kinematic", NULL);
    const char* path = alct_writeFile(dir, "info.yaml",
                                      "bodies:\n"
                                      "  - name: paddle\n"
                                      "    type: rigid\n"
                                      "    mesh: {box: {size: 0.1, cells: 1}}\n"
                                      "    motion: {type: linear, velocity: [1, 0, 0]}\n"
                                      "  - name: block\n"
                                      "    type: rigid\n"
                                      "    mesh: {box: {size: 0.1, cells: 1}}\n"
                                      "    position: [0.5, 0, 0]\n");
    ENSURE(path != NULL);
    const char* build = getenv("ALC_BUILD");
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s/alcove info '%s' > '%s/info.txt' 2>&1", build ? build : "build",
             path, dir);
    ENSURE(system(cmd) == 0);
    snprintf(cmd, sizeof cmd,
             "grep -q \"^rigid      : 'paddle': .*; driven by 'paddle-motion'$\" '%s/info.txt' && "
             "grep -q \"^rigid      : 'block': .* m$\" '%s/info.txt'",
             dir, dir);
    ENSURE_MSG(system(cmd) == 0, "see %s/info.txt", dir);
    return ALC_TEST_PASS;
}
