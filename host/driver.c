// Kinematic drivers: scripted rigid motions of vertex sets (fixed, linear, rotation,
// keyframes) and caller-driven (external) targets. The targets of a step are the positions at
// its end, so CCD sees the sweep from the current positions to them, never a teleport.
#include "alc_internal.h"
#include "hd/alcm_rigid.h"
#include "hd/alcm_svd.h"
#include "model_xmacro.h"

#include <math.h>
#include <string.h>

/// Quaternion for a rotation by angle about a unit axis.
static void axisAngle(const double* axis, double angle, double q[4]) {
    double s = sin(0.5 * angle);
    q[0] = cos(0.5 * angle);
    q[1] = axis[0] * s;
    q[2] = axis[1] * s;
    q[3] = axis[2] * s;
}

/// Normalized linear interpolation of quaternions along the shorter arc (slerp for small
/// angles; exact slerp otherwise).
static void slerp(const double* a, const double* b, double u, double q[4]) {
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double bb[4] = {b[0], b[1], b[2], b[3]};
    if (dot < 0) {
        dot = -dot;
        for (int k = 0; k < 4; k++) bb[k] = -bb[k];
    }
    double wa, wb;
    if (dot > 0.9995) {
        wa = 1 - u;
        wb = u;
    } else {
        double th = acos(dot);
        wa = sin((1 - u) * th) / sin(th);
        wb = sin(u * th) / sin(th);
    }
    double n = 0;
    for (int k = 0; k < 4; k++) {
        q[k] = wa * a[k] + wb * bb[k];
        n += q[k] * q[k];
    }
    n = sqrt(n);
    for (int k = 0; k < 4; k++) q[k] /= n;
}

/// Pose of a keyframed driver at time t: translation and rotation (about its centroid).
static void keyPose(const alcModel* m, int k, double t, double trans[3], double q[4]) {
    const double* key = m->key_data + 8 * m->driver_keyadr[k];
    int n = m->driver_keynum[k];
    if (t <= key[0] || n == 1) {
        memcpy(trans, key + 1, 3 * sizeof(double));
        memcpy(q, key + 4, 4 * sizeof(double));
    } else if (t >= key[8 * (n - 1)]) {
        memcpy(trans, key + 8 * (n - 1) + 1, 3 * sizeof(double));
        memcpy(q, key + 8 * (n - 1) + 4, 4 * sizeof(double));
    } else {
        int i = 0;
        while (i + 1 < n && key[8 * (i + 1)] < t) i++;
        const double* a = key + 8 * i;
        const double* b = key + 8 * (i + 1);
        double u = (t - a[0]) / (b[0] - a[0]);
        for (int j = 0; j < 3; j++) trans[j] = (1 - u) * a[1 + j] + u * b[1 + j];
        double qa[4], qb[4];
        double na = 0, nb = 0;
        for (int j = 0; j < 4; j++) {
            na += a[4 + j] * a[4 + j];
            nb += b[4 + j] * b[4 + j];
        }
        na = na > 0 ? 1 / sqrt(na) : 0;
        nb = nb > 0 ? 1 / sqrt(nb) : 0;
        for (int j = 0; j < 4; j++) {
            qa[j] = a[4 + j] * na;
            qb[j] = b[4 + j] * nb;
        }
        slerp(qa, qb, u, q);
        return;
    }
    double nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (nq > 0) {
        for (int j = 0; j < 4; j++) q[j] /= nq;
    } else {
        q[0] = 1;
        q[1] = q[2] = q[3] = 0;
    }
}

void alci_driver_eval(const alcModel* m, double t, const int* ext, const int* rel, double* target,
                      unsigned char* mask) {
    for (int v = 0; v < m->nvert; v++) {
        int k = m->vert_driver[v];
        if (k < 0) {
            mask[v] = 0;
            continue;
        }
        const double* prm = m->driver_param + ALC_DRIVER_NPARAM * k;
        // solids and rigid bodies can be released; obstacles never move freely
        int freeable = m->body_type[m->vert_body[v]] != ALC_BODY_OBSTACLE;
        int released = (rel && rel[k]) || t > prm[ALC_DP_RELEASE];
        if (freeable && released) {
            mask[v] = 0;
            continue;
        }
        mask[v] = 1;
        if (ext && ext[k]) continue;
        int type = m->driver_type[k];
        if (type == ALC_DRIVER_EXTERNAL) continue;
        const double* x0 = m->vert_x0 + 3 * v;
        double* out = target + 3 * v;
        double tau = (t < prm[ALC_DP_END] ? t : prm[ALC_DP_END]) - prm[ALC_DP_START];
        if (tau < 0) tau = 0;
        switch (type) {
            case ALC_DRIVER_FIXED:
                memcpy(out, x0, 3 * sizeof(double));
                break;
            case ALC_DRIVER_LINEAR:
                for (int j = 0; j < 3; j++) out[j] = x0[j] + prm[ALC_DP_VEL + j] * tau;
                break;
            case ALC_DRIVER_ROTATE: {
                double q[4], r[3], rr[3];
                axisAngle(prm + ALC_DP_AXIS, prm[ALC_DP_OMEGA] * tau, q);
                for (int j = 0; j < 3; j++) r[j] = x0[j] - prm[ALC_DP_CENTER + j];
                alci_quatRotate(q, r, rr);
                for (int j = 0; j < 3; j++) {
                    out[j] = prm[ALC_DP_CENTER + j] + rr[j] + prm[ALC_DP_VEL + j] * tau;
                }
                break;
            }
            case ALC_DRIVER_KEYFRAMES: {
                double tr[3], q[4], r[3], rr[3];
                keyPose(m, k, t, tr, q);
                for (int j = 0; j < 3; j++) r[j] = x0[j] - prm[ALC_DP_CENTROID + j];
                alci_quatRotate(q, r, rr);
                for (int j = 0; j < 3; j++) out[j] = prm[ALC_DP_CENTROID + j] + rr[j] + tr[j];
                break;
            }
            default:
                break;
        }
    }
}

/// A pose's quaternion normalized into q (identity for NULL); 0 when the quaternion is zero or
/// not finite, or the translation not finite.
static int poseOk(const double translation[3], const double quat[4], double q[4]) {
    q[0] = 1, q[1] = q[2] = q[3] = 0;
    if (quat) {
        double n =
            sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
        if (!(n > 0) || !isfinite(n)) return 0;
        for (int j = 0; j < 4; j++) q[j] = quat[j] / n;
    }
    return isfinite(translation[0]) && isfinite(translation[1]) && isfinite(translation[2]);
}

alctStatus alc_setDriverPose(const alcModel* m, alcData* d, int driver, const double translation[3],
                             const double quat[4]) {
    if (!m || !d || !translation || driver < 0 || driver >= m->ndriver) {
        return ALC_ERR_INVALID_ARG;
    }
    double q[4];
    if (!poseOk(translation, quat, q)) return ALC_ERR_INVALID_ARG;
    const double* c = m->driver_param + ALC_DRIVER_NPARAM * driver + ALC_DP_CENTROID;
    for (int v = 0; v < m->nvert; v++) {
        if (m->vert_driver[v] != driver) continue;
        double r[3], rr[3];
        for (int j = 0; j < 3; j++) r[j] = m->vert_x0[3 * v + j] - c[j];
        alci_quatRotate(q, r, rr);
        for (int j = 0; j < 3; j++) d->kin_target[3 * v + j] = c[j] + rr[j] + translation[j];
    }
    d->driver_external[driver] = 1;
    return ALC_OK;
}

alctStatus alc_setDriverVelocity(const alcModel* m, alcData* d, int driver,
                                 const double velocity[3], const double omega[3], double dt) {
    if (!m || !d || !velocity || driver < 0 || driver >= m->ndriver || !(dt > 0) || !isfinite(dt)) {
        return ALC_ERR_INVALID_ARG;
    }
    double w[3] = {0, 0, 0};
    for (int j = 0; j < 3; j++) {
        if (omega) w[j] = omega[j];
        if (!isfinite(velocity[j]) || !isfinite(w[j])) return ALC_ERR_INVALID_ARG;
    }
    // the rotation by omega dt about the vertices' current centroid, as a unit quaternion
    double angle = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) * dt;
    double q[4] = {1, 0, 0, 0};
    if (angle > 0) {
        double s = sin(0.5 * angle) / (angle / dt);
        q[0] = cos(0.5 * angle);
        for (int j = 0; j < 3; j++) q[j + 1] = w[j] * s;
    }
    double c[3] = {0, 0, 0};
    int n = 0;
    for (int v = 0; v < m->nvert; v++) {
        if (m->vert_driver[v] != driver) continue;
        for (int j = 0; j < 3; j++) c[j] += d->kin_target[3 * v + j];
        n++;
    }
    if (n == 0) return ALC_ERR_INVALID_ARG;
    for (int j = 0; j < 3; j++) c[j] /= n;
    for (int v = 0; v < m->nvert; v++) {
        if (m->vert_driver[v] != driver) continue;
        double r[3], rr[3];
        for (int j = 0; j < 3; j++) r[j] = d->kin_target[3 * v + j] - c[j];
        alci_quatRotate(q, r, rr);
        for (int j = 0; j < 3; j++) d->kin_target[3 * v + j] = c[j] + rr[j] + velocity[j] * dt;
    }
    d->driver_external[driver] = 1;
    return ALC_OK;
}

/// Unit quaternion (w, x, y, z) of a rotation matrix (row-major), Shepperd's method.
static void matToQuat(const double R[9], double q[4]) {
    double tr = R[0] + R[4] + R[8];
    if (tr > 0) {
        double s = 2 * sqrt(tr + 1);
        q[0] = 0.25 * s;
        q[1] = (R[7] - R[5]) / s;
        q[2] = (R[2] - R[6]) / s;
        q[3] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s;
        q[1] = 0.25 * s;
        q[2] = (R[1] + R[3]) / s;
        q[3] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s;
        q[1] = (R[1] + R[3]) / s;
        q[2] = 0.25 * s;
        q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s;
        q[1] = (R[2] + R[6]) / s;
        q[2] = (R[5] + R[7]) / s;
        q[3] = 0.25 * s;
    }
}

alctStatus alc_setDriverPoseAt(const alcModel* m, alcData* d, int driver,
                               const double translation[3], const double quat[4], double time) {
    if (!m || !d || !translation || driver < 0 || driver >= m->ndriver || !isfinite(time)) {
        return ALC_ERR_INVALID_ARG;
    }
    double h = m->opt.timestep, tau = time - d->time;
    // reached within the next step: the pose itself is its target
    if (!(tau > h * (1 + 1e-9))) return alc_setDriverPose(m, d, driver, translation, quat);
    double q[4];
    if (!poseOk(translation, quat, q)) return ALC_ERR_INVALID_ARG;
    // the goal targets g (alc_setDriverPose's) and the current ones k: centroids, then the
    // rotation taking k to g about their centroids (Kabsch: R = V U^T of H = sum k' g'^T)
    const double* c0 = m->driver_param + ALC_DRIVER_NPARAM * driver + ALC_DP_CENTROID;
    double ck[3] = {0, 0, 0}, cg[3] = {0, 0, 0};
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        alcM3 H = alcm_m3_zero();
        for (int v = 0; v < m->nvert; v++) {
            if (m->vert_driver[v] != driver) continue;
            double r[3], g[3];
            for (int j = 0; j < 3; j++) r[j] = m->vert_x0[3 * v + j] - c0[j];
            alci_quatRotate(q, r, g);
            for (int j = 0; j < 3; j++) g[j] += c0[j] + translation[j];
            const double* k = d->kin_target + 3 * v;
            if (pass == 0) {
                for (int j = 0; j < 3; j++) ck[j] += k[j], cg[j] += g[j];
                n++;
            } else {
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++) H.m[3 * a + b] += (k[a] - ck[a]) * (g[b] - cg[b]);
            }
        }
        if (n == 0) return ALC_ERR_INVALID_ARG;
        if (pass == 0) {
            for (int j = 0; j < 3; j++) ck[j] /= n, cg[j] /= n;
            continue;
        }
        alcM3 U, V;
        alcV3 sigma;
        alcm_m3_svd(H, &U, &sigma, &V);
        double R[9], rq[4];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                R[3 * a + b] = 0;
                for (int k = 0; k < 3; k++) R[3 * a + b] += V.m[3 * a + k] * U.m[3 * b + k];
            }
        matToQuat(R, rq);
        if (rq[0] < 0)
            for (int j = 0; j < 4; j++) rq[j] = -rq[j];
        double s = sqrt(rq[1] * rq[1] + rq[2] * rq[2] + rq[3] * rq[3]);
        double angle = 2 * atan2(s, rq[0]);
        double v[3], w[3] = {0, 0, 0};
        for (int j = 0; j < 3; j++) {
            v[j] = (cg[j] - ck[j]) / tau;
            if (s > 0) w[j] = rq[j + 1] / s * angle / tau;
        }
        // the twist that arrives at the goal at `time`: this step's share of it
        return alc_setDriverVelocity(m, d, driver, v, w, h);
    }
    return ALC_ERR_INVALID_ARG;
}

int alci_driver_pastPlane(const alcModel* m, const double* x, int k) {
    const double* pl = m->driver_param + ALC_DRIVER_NPARAM * k + ALC_DP_RELPAST;
    if (pl[0] == 0 && pl[1] == 0 && pl[2] == 0) return 0;
    int body = -1;
    for (int v = 0; v < m->nvert && body < 0; v++) {
        if (m->vert_driver[v] == k) body = m->vert_body[v];
    }
    if (body < 0) return 0;
    for (int v = m->body_vertadr[body]; v < m->body_vertadr[body] + m->body_vertnum[body]; v++) {
        const double* p = x + 3 * v;
        if (!(pl[0] * p[0] + pl[1] * p[1] + pl[2] * p[2] > pl[3])) return 0;
    }
    return 1;
}

void alci_driver_rigidTargets(const alcModel* m, const unsigned char* mask, const double* target,
                              unsigned char* rigidKin, double* rigidTarget) {
    for (int r = 0; r < m->nrigid; r++) {
        int b = m->rigid_body[r], v0 = m->body_vertadr[b], nv = m->body_vertnum[b];
        // a rigid body is driven whole (alc_compileSpec), so its first vertex speaks for it
        rigidKin[r] = nv > 0 && mask[v0];
        if (!rigidKin[r]) continue;
        // the pose that takes the body-frame vertices a_i onto the targets b_i best (Kabsch):
        // R = U V^T of M = sum (b_i - mean b)(a_i - mean a)^T, exact for the rigid motions
        // every driver makes, the nearest for the straight-line halves of a split step
        alcV3 ma = alcm_v3(0, 0, 0), mb = alcm_v3(0, 0, 0);
        for (int v = v0; v < v0 + nv; v++) {
            ma = alcm_v3_add(ma, alcm_v3_load(m->vert_local + 3 * v));
            mb = alcm_v3_add(mb, alcm_v3_load(target + 3 * v));
        }
        ma = alcm_v3_scale(ma, 1.0 / nv);
        mb = alcm_v3_scale(mb, 1.0 / nv);
        alcM3 M = alcm_m3_zero();
        for (int v = v0; v < v0 + nv; v++) {
            alcV3 a = alcm_v3_sub(alcm_v3_load(m->vert_local + 3 * v), ma);
            alcV3 t = alcm_v3_sub(alcm_v3_load(target + 3 * v), mb);
            double av[3] = {a.x, a.y, a.z}, tv[3] = {t.x, t.y, t.z};
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) M.m[3 * i + j] += tv[i] * av[j];
        }
        alcM3 U, V;
        alcV3 sigma;
        alcm_m3_svd(M, &U, &sigma, &V);  // U and V proper: R = U V^T is a rotation
        alcM3 R = alcm_m3_mulT(U, V);
        alcm_v3_store(rigidTarget + 6 * r, alcm_rotation_log(R));
        alcm_v3_store(rigidTarget + 6 * r + 3, alcm_v3_sub(mb, alcm_m3_mulv(R, ma)));
    }
}
