// The contact report of a step (alc_getContacts, alcData.body_force), written once for every
// backend: each backend hands over its active pairs and lagged friction pairs (the one layout of
// hd/alcm_pairstate.h) in host memory.
#ifndef ALC_HOST_CONTACT_REPORT_H_
#define ALC_HOST_CONTACT_REPORT_H_

#include "hd/alcm_pairstate.h"

#include "alc/alc_types.h"

/// What the report reads besides the pairs.
typedef struct alciReportIn_ {
    const alcModel* m;
    const double* x;      ///< the state of the step's end (nvert x 3) (m) [host]
    const double* xt;     ///< the state of its start (nvert x 3) (m) [host]
    double h;             ///< time step (s)
    int penalty;          ///< 1 under the penalty ablation (forces mu gamma (delta - d)_+)
    double mu;            ///< penalty stiffness of the step (IP units)
    double delta;         ///< contact offset of the step (m)
    double frictionEpsV;  ///< eps_v (m/s)
} alciReportIn;

/// Fill out[0 .. min(npair, cap)) with the active pairs (normal force of AL paper Eq. 23 over
/// h^2, the normal from grad d, distance, multiplier, decay) and their friction forces
/// -coef w q at the end state (IPC §5); bodyForce (nbody x 3) receives the contact and friction
/// forces summed per body over every pair, also those beyond cap.
/// @param[in]  in         the step's data
/// @param[in]  pairs      active pairs in key order (npair) [host]
/// @param[in]  npair      pairs
/// @param[in]  fric       lagged friction pairs in key order (nfric) [host]
/// @param[in]  nfric      friction pairs
/// @param[out] out        reported contacts (cap) [host]
/// @param[in]  cap        entries out holds
/// @param[out] n          contacts written, min(npair, cap)
/// @param[out] bodyForce  per-body force (nbody x 3) (N) [host]
/// Nullable: pairs when npair is 0, fric when nfric is 0, out when cap is 0
void alci_contactReport(const alciReportIn* in, const alcmPair* pairs, int npair,
                        const alcmFric* fric, int nfric, alcContact* out, int cap, int* n,
                        double* bodyForce);

/// The part of pair P's report that follows from the pair and the end state alone: every field
/// but normalForce and frictionForce (left 0); alci_contactReport fills its entries with it, and a
/// checkpoint predicts the stored report with it (host/checkpoint.c, format 5).
/// @param[in]  m  the model (vert_body)
/// @param[in]  x  the state of the step's end (nvert x 3) (m) [host]
/// @param[in]  P  a PT or EE pair whose vertices are m's [host]
/// @param[out] C  the entry, every byte written [host]
void alci_contactOfPair(const alcModel* m, const double* x, const alcmPair* P, alcContact* C);

#endif  // ALC_HOST_CONTACT_REPORT_H_
