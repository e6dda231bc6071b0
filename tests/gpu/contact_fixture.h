// Shared by the CCD narrow-phase and active-set comparisons (tests/gpu/test_ccd_narrow_gpu.c,
// test_active_set_gpu.c): a motion with the reference backend's collision collection run on it,
// and the device narrow phase (cuda/ccd_narrow.h) run on the same broad-phase candidates.
#ifndef ALC_TESTS_GPU_CONTACT_FIXTURE_H_
#define ALC_TESTS_GPU_CONTACT_FIXTURE_H_

#include "../../cuda/active_set.h"
#include "../../cuda/ccd_narrow.h"
#include "alc_internal.h"
#include "gpu_fixture.h"
#include "ref/backend_ref.h"

/// Relative tolerance of device against host values (times of impact, which are fractions of
/// the step in [0, 1], distances and their gradients). In the emulation the kernels run the same
/// alcm_ functions compiled by the same host compiler, which contracts nothing into FMAs on
/// x86-64 by default, so the results must be bit-identical and the tolerance is 0. On a device,
/// nvcc contracts a * b + c into FMAs (one rounding instead of two): each distance differs by a
/// few ulps of the coordinate scale S, far inside ACCD's error bound (64 eps S (1 + cond), see
/// hd/alcm_ccd.h), and each ACCD step inherits that difference; 1e-9 leaves a wide margin over
/// the ~1e-13 expected after the up to a few hundred steps of a typical query. A query whose
/// decision (gap below s times the start gap) falls within those ulps of its threshold may end
/// one step earlier or later on a device; such a case fails this comparison and must then be
/// checked by hand (it stays conservative: the device time is still safe).
#if defined(ALC_EMU)
#define ALCT_DEVICE_RTOL 0.0
#else
#define ALCT_DEVICE_RTOL 1e-9
#endif

/// A motion, the reference collision collection on it, and device copies of its candidates.
typedef struct alctContact_ {
    alctMotion mo;       ///< the motion; mo.sim is a reference-backend sim
    alcrBackend* B;      ///< mo.sim's backend state
    double* xhat;        ///< end positions of the collection (nvert x 3) [host]
    int npt;             ///< PT candidates of the last collection (first in candidate order)
    int nee;             ///< EE candidates
    alciCollectOut out;  ///< the reference's result
    double* toi;         ///< reference per-candidate toi, copied (npt + nee) [host]
    double* reach;       ///< reference per-candidate reach, copied (npt + nee) [host]
    alcrCand* cand;      ///< reference candidates within reach, copied (out.ncollide) [host]

    alcgStream s;        ///< the stream of every device call
    alcgCcdNarrowIn in;  ///< device inputs of the narrow phase (arrays below)
    double* d_x;         ///< X (nvert x 3) [device]
    double* d_xhat;      ///< XHAT (nvert x 3) [device]
    int* d_svert;        ///< model arrays [device]
    int* d_edge_vert;    ///< [device]
    int* d_tri_vert;     ///< [device]
    int* d_bpPT;         ///< PT candidates (npt x 2) [device]
    int* d_bpEE;         ///< EE candidates (nee x 2) [device]
    double* d_toi;       ///< device per-candidate toi (npt + nee) [device]
    double* d_reach;     ///< device per-candidate reach (npt + nee) [device]
    alcgCand* d_cand;    ///< device candidates within reach (candCap) [device]
    int candCap;         ///< entries of d_cand
    void* d_temp;        ///< narrow-phase scratch [device]
    size_t tempBytes;    ///< its size
} alctContact;

/// scenes/SCENE at CI size after 2 reference steps, moved by 20 times its velocity
/// (alct_motionMake(scene, 2, 20.0)), with the reference collection from x0 to x1.
/// @return 1 on success; 0 with the reason printed.
int alct_contactScene(const char* scene, alctContact* c);

/// A random soup (alct_motionRandom) on a fresh reference sim, with contact offset delta (m), the
/// passive bodies kinematic, and the reference collection from x0 to x1.
int alct_contactRandom(unsigned seed, int nbody, double reach, double delta, alctContact* c);

/// Run the reference collection again from x0 to x0 + scale (x1 - x0); copies its results and
/// uploads X, XHAT and the candidates to the device.
int alct_contactCollect(alctContact* c, double scale);

/// The device narrow phase on the candidates of the last collection into d_toi, d_reach and
/// d_cand, its capacity cap (d_cand holds max(cap, 1) + 8 entries, the 8 beyond cap filled with
/// 0xAB bytes before the call so that a write past cap shows).
alctStatus alct_contactNarrow(alctContact* c, int cap, double* minToi, int* ncollide);

/// 1 when the 8 guard entries of d_cand past cap still hold 0xAB bytes.
int alct_contactGuardIntact(alctContact* c, int cap);

/// Free what the case holds. NULL-safe on each member.
void alct_contactFree(alctContact* c);

/// The device layout of a reference pair: every field copied, padding zeroed.
void alct_pairToDevice(const alcrPair* h, alcgPair* d);

/// |a - b| relative to scale (the error itself when scale is 0).
double alct_relErr(double a, double b, double scale);

#endif  // ALC_TESTS_GPU_CONTACT_FIXTURE_H_
