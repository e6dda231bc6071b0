// Kinematic drivers: scripted rigid motions of vertex sets (fixed, linear, rotation,
// keyframes) and caller-driven (external) targets. The targets of a step are the positions at
// its end, so CCD sees the sweep from the current positions to them, never a teleport.
#include "alc_internal.h"
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
        int solid = m->body_type[m->vert_body[v]] == ALC_BODY_SOLID;
        int released = (rel && rel[k]) || t > prm[ALC_DP_RELEASE];
        if (solid && released) {
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

alctStatus alc_setDriverPose(const alcModel* m, alcData* d, int driver, const double translation[3],
                             const double quat[4]) {
    if (!m || !d || !translation || driver < 0 || driver >= m->ndriver) {
        return ALC_ERR_INVALID_ARG;
    }
    double q[4] = {1, 0, 0, 0};
    if (quat) {
        double n =
            sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2] + quat[3] * quat[3]);
        if (!(n > 0) || !isfinite(n)) return ALC_ERR_INVALID_ARG;
        for (int j = 0; j < 4; j++) q[j] = quat[j] / n;
    }
    if (!isfinite(translation[0]) || !isfinite(translation[1]) || !isfinite(translation[2])) {
        return ALC_ERR_INVALID_ARG;
    }
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
    if (!m || !d || !velocity || driver < 0 || driver >= m->ndriver || !(dt > 0) ||
        !isfinite(dt)) {
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
