// The contact MLCP of Verschoor and Jalba (mlcp-conjugate-residual-collision-response.txt, Eq.
// 9-11; ../shared/research/seeds-001-002.md §2.3-2.7), solved by their active-set preconditioned
// Conjugate Residual method (Algorithm 1, lines 7-23, with Algorithm 2's normal-contact state
// rules): the solver of the `mlcp-cr` model (issue 22, item 2), whose per-step loop with CCD and
// re-linearization is host/ref/mlcp_step_ref.c. Friction (their §3.1 and Algorithm 3) is
// optional: alcr_cr_solveFriction. The duplicate scaling Z of their §3.4.1 is an input
// (alcrCrRows.z).
//
// Problem: minimize 1/2 v^T A v - v^T b subject to J v >= c, A symmetric positive definite
// (the reference's BSR, both triangles stored), one row per contact touching up to four vertices:
// J_k v = sum_a w_ka n_k . v_(vert_ka). Its MLCP: A v - J^T lambda = b, 0 <= J v - c ⊥ lambda
// >= 0 (lambda the repulsive normal multipliers). With the active rows as equalities, the KKT
// system B y = d of the digest's §2.4 sign convention,
//     [ A    -J_a^T ] [ v      ]   [  b   ]
//     [ -J_a   0    ] [ lambda ] = [ -c_a ],
// is symmetric indefinite: CR minimizes its residual, switching constraint states during the
// iterations (activate a row whose gap turns negative; deactivate an active row that attracts:
// gap >= 0 and lambda <= 0), restarting the recurrences after every change. Two safeguards
// beyond the paper, both found on random QPs (tests/test_mlcp_cr.c):
//   - CR breaks down where z.Bz vanishes, as it does right after an activation (the residual
//     then lives on the new row alone). There the solver takes one step along the gradient of
//     the preconditioned residual norm, B C^-1 r, and restarts;
//   - the recurrences' residual can part from the true one after a near-breakdown, so
//     convergence is only accepted on a freshly computed residual.
#ifndef ALC_HOST_REF_MLCP_CR_H_
#define ALC_HOST_REF_MLCP_CR_H_

#include "ref/bsr_ref.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Linear inequality rows J v >= c on the 3 n DOFs of n vertices.
typedef struct alcrCrRows_ {
    int m;               ///< rows
    const int* vert;     ///< m x 4 vertex ids (-1: unused slot)
    const double* w;     ///< m x 4 weights of the slots (unused when grad is set)
    const double* nrm;   ///< m x 3 row normals: row k's gradient at vertex vert_ka is w_ka n_k
                         ///< (unused when grad is set)
    const double* grad;  ///< NULL, or m x 12: row k's gradient at vertex vert_ka is
                         ///< grad[12 k + 3 a .. + 2] (a distance gradient as it comes)
    const double* c;     ///< m offsets (m)
    const double* z;     ///< NULL, or m duplicate counts Z_k >= 1 (V&J §3.4.1): S_d's entry of
                         ///< row k is scaled by Z_k, as if its near-duplicates were summed
} alcrCrRows;

/// Coulomb friction on the rows (V&J §3.1, Eq. 15-20; Algorithm 2's friction rules and
/// Algorithm 3): each contact k with mu_k > 0 has two tangent rows J_t,k (2 x 3 n). Its slip
/// over the solve is s_k = J_t,k v - c_t,k. While the contact is active and static, the slip is
/// held at zero by free multipliers phi_k (the friction force on the DOFs is +J_t,k^T phi_k, so
/// gamma_k = -phi_k points along the slip it resists); a kinetic contact's rows leave the
/// system and its force -J_t,k^T gt_k, gt_k = mu_k lt_k d_k, joins the right-hand side, with
/// lt_k a two-point moving average of the normal multiplier and d_k a unit direction turned
/// towards the slip by alpha_theta of the difference while it is more than theta_tol off.
/// Switches: static -> kinetic when |gamma_k| > mu_k lambda_k (gamma's direction becomes d_k,
/// lt_k = |gamma_k| / mu_k: the force is continuous); kinetic -> static when the slip turns
/// against d_k by more than eps2 (phi_k = -gt_k). During the iterations a kinetic update whose
/// force change moves the rows by less than eps2 (through S_d) is postponed (V&J Algorithm 2);
/// at a converged point only one below the force tolerance eps1 is dropped. A row that becomes
/// active starts kinetic with no force, along its slip (Algorithm 2); a frictional row whose
/// multiplier turned attractive is released only once that moves it by more than eps2. The
/// state arrays are read as the start and written back.
typedef struct alcrCrFriction_ {
    const double* mu;     ///< m friction coefficients (>= 0; 0: that contact is frictionless)
    const double* tgrad;  ///< m x 24: tangent row j of contact k has the coefficients
                          ///< tgrad[24 k + 12 j + 3 a .. + 2] at vertex vert_ka
    const double* ct;     ///< m x 2 offsets c_t (m): static friction holds J_t v = c_t
    int* kinetic;         ///< m, in/out: 1 kinetic, 0 static (read on active rows only)
    double* phi;          ///< m x 2, in/out: static multipliers (units of lambda)
    double* dir;          ///< m x 2, in/out: kinetic direction d_k (unit, along the slip)
    double* lamTilde;     ///< m, in/out: the kinetic contacts' averaged normal multiplier
    double* hist;         ///< m, in/out: the multiplier last pushed into that average
    double thetaTol;      ///< theta_tol (rad): V&J's 1.2 degrees
    double thetaRate;     ///< alpha_theta: V&J's 0.01
    int switches;         ///< out: static <-> kinetic switches in the solve
    int kineticCount;     ///< out: active kinetic contacts at the end
    int staticCount;      ///< out: active static contacts with friction at the end
} alcrCrFriction;

/// The preconditioners of V&J §3.3 (Eq. 22 with A -> diag(A), S -> diag(J_a diag(A)^-1 J_a^T)).
typedef enum alcrCrPrecond_ {
    ALCR_CR_DIAG = 0,  ///< blockdiag(A_d^-1, S_d^-1): symmetric positive definite
    ALCR_CR_FULL = 1   ///< the block inverse of B with A_d and S_d: indefinite, stronger
} alcrCrPrecond;

/// Options of a solve.
typedef struct alcrCrOptions_ {
    alcrCrPrecond precond;  ///< preconditioner
    double eps1;            ///< residual tolerance: ||r|| (and ||B C^-1 r|| at a least-squares
                            ///< point), absolute, in the units of d
    double eps2;            ///< constraint tolerance: ||U r||_inf over the active rows (m)
    int maxIter;            ///< CR iterations at most (restarts included)
    int evalEvery;          ///< 0: V&J's dynamic interval max(1, log2(||r|| / eps1) / 3);
                            ///< k > 0: evaluate the states every k iterations
} alcrCrOptions;

/// What a solve did.
typedef struct alcrCrResult_ {
    int iters;        ///< CR iterations
    int restarts;     ///< recurrences restarted after state changes
    int activations;  ///< rows switched to active
    int releases;     ///< rows switched to inactive
    int converged;    ///< 1: the residual tests held and a forced evaluation changed nothing
    double rnorm;     ///< ||r|| at exit
    double rnorm0;    ///< ||r|| at the start (after the start's state evaluation)
    int monotone;     ///< 1 if ||C^-1/2 r|| (z.r) never grew between two state changes
                      ///< (meaningful for ALCR_CR_DIAG, whose C is SPD; V&J claim VJ4)
} alcrCrResult;

/// Defaults: Full preconditioner, eps1 1e-10, eps2 1e-10, 10,000 iterations, dynamic interval.
alcrCrOptions alcr_cr_defaultOptions(void);

/// Solve the MLCP above from v = 0 with every row inactive (or from the given state).
/// @param[in]     A        SPD matrix, n block rows
/// @param[in]     b        right-hand side (3 n)
/// @param[in]     rows     the inequality rows
/// @param[in]     opt      options (NULL: defaults)
/// @param[in,out] v        solution (3 n); read as the start when warm is nonzero
/// @param[in,out] lambda   multipliers (m; >= 0 on active rows, 0 on inactive ones)
/// @param[in,out] active   row states (m; 1 active, 0 inactive); read when warm is nonzero
/// @param[in]     warm     nonzero: start from v, lambda, active
/// @param[out]    out      statistics (nullable)
/// @return ALC_OK (whether or not it converged); ALC_ERR_INVALID_ARG (a row naming a vertex out
///         of range, a nonpositive diagonal entry of A); ALC_ERR_NOMEM.
alctStatus alcr_cr_solve(const alcrBsr* A, const double* b, const alcrCrRows* rows,
                         const alcrCrOptions* opt, double* v, double* lambda, int* active, int warm,
                         alcrCrResult* out);

/// alcr_cr_solve with Coulomb friction on the rows (fric NULL: frictionless, the same as
/// alcr_cr_solve bit for bit). Without warm, every contact starts static with phi = 0.
/// @param[in,out] fric  the tangent rows and the friction state (alcrCrFriction)
/// @return as alcr_cr_solve; ALC_ERR_INVALID_ARG also for a negative mu or missing tangent rows
alctStatus alcr_cr_solveFriction(const alcrBsr* A, const double* b, const alcrCrRows* rows,
                                 alcrCrFriction* fric, const alcrCrOptions* opt, double* v,
                                 double* lambda, int* active, int warm, alcrCrResult* out);

#ifdef __cplusplus
}
#endif

#endif  // ALC_HOST_REF_MLCP_CR_H_
