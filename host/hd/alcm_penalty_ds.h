// Ding and Schroeder's penalty contact with an attachment point (penalty-coulomb-friction-
// coupling.txt; ../shared/research/seeds-001-002.md §1.3 and §1.5), against a plane: the first
// building block of the `penalty-ds` comparison mode (issue 22, item 1). A particle Z that has
// crossed the plane is tied by a zero-length spring of stiffness k to an attachment X on it.
// Before the force is taken, X is relaxed along the plane to Y, no further than needed for the
// spring's force to lie in the Coulomb cone:
//   W = Z + d n (the particle's projection, d = -phi(Z) its depth), r = X - W;
//   static  (|r| <= mu d): Y = X,               f = k (X - Z),          df/dZ = -k I;
//   dynamic (|r| >  mu d): Y = W + (mu d/|r|) r, f = k d (n + mu r^),
//            df/dZ = -k n n^T - k mu r^ n^T - k mu (d/|r|) b^ b^T, b^ = n x r^.
// The middle term has no transpose partner (the friction's size follows the depth, the normal
// force does not follow the tangential position): the Jacobian is not symmetric, so the
// system is not an energy's Hessian. A particle above the plane is inactive (no force): Z then
// pulls Y away from the surface. Header-only, shared by host and device.
#ifndef ALC_HD_ALCM_PENALTY_DS_H_
#define ALC_HD_ALCM_PENALTY_DS_H_

#include "alcm_vec.h"

/// State of an attachment after relaxation.
#define ALCM_DS_INACTIVE 0  ///< the particle is not below the plane: no force
#define ALCM_DS_STATIC   1  ///< the spring's force is in the cone at the attachment: Y = X
#define ALCM_DS_DYNAMIC  2  ///< relaxed to the cone's boundary

/// A relaxed attachment, its force on the particle and the force's derivative.
typedef struct alcmDsContact_ {
    alcV3 y;       ///< relaxed attachment Y, on the plane (m)
    alcV3 f;       ///< force on the particle, k (Y - Z) (N)
    alcM3 dfdz;    ///< df/dZ (N/m), row-major; not symmetric in the dynamic state
    double depth;  ///< d = -phi(Z) (m), > 0 when active
    int state;     ///< ALCM_DS_*
} alcmDsContact;

/// Relax the attachment x of particle z against the plane through p0 with unit normal n (its
/// outside), friction mu >= 0, spring stiffness k (N/m). x is first projected onto the plane.
/// The relaxation is idempotent: relaxing the returned y against the same z returns y.
ALC_HD alcmDsContact alcm_ds_plane(alcV3 n, alcV3 p0, alcV3 z, alcV3 x, double mu, double k) {
    alcmDsContact c;
    alcV3 xp = alcm_v3_mad(x, -alcm_v3_dot(alcm_v3_sub(x, p0), n), n);
    double d = -alcm_v3_dot(alcm_v3_sub(z, p0), n);
    c.y = xp;
    c.depth = d;
    c.f = alcm_v3(0, 0, 0);
    c.dfdz = alcm_m3_zero();
    c.state = ALCM_DS_INACTIVE;
    if (!(d > 0)) return c;
    alcV3 w = alcm_v3_mad(z, d, n);
    alcV3 r = alcm_v3_sub(xp, w);
    double rn = alcm_v3_norm(r);
    if (rn <= mu * d) {
        c.state = ALCM_DS_STATIC;
        c.f = alcm_v3_scale(alcm_v3_sub(xp, z), k);
        c.dfdz = alcm_m3_scale(alcm_m3_identity(), -k);
        return c;
    }
    alcV3 rh = alcm_v3_scale(r, 1.0 / rn), bh = alcm_v3_cross(n, rh);
    c.state = ALCM_DS_DYNAMIC;
    c.y = alcm_v3_mad(w, mu * d / rn, r);
    c.f = alcm_v3_scale(alcm_v3_mad(n, mu, rh), k * d);
    c.dfdz = alcm_m3_scale(
        alcm_m3_add(alcm_m3_add(alcm_m3_outer(n, n), alcm_m3_scale(alcm_m3_outer(rh, n), mu)),
                    alcm_m3_scale(alcm_m3_outer(bh, bh), mu * d / rn)),
        -k);
    return c;
}

#endif  // ALC_HD_ALCM_PENALTY_DS_H_
