// Shared by the linear-solver GPU tests (test_bsr_gpu.c, test_pcg_gpu.c): reference full-storage
// BSR matrices, from scenes (the reference backend's Hessian after two steps) and random, and
// their device copies in the upper-triangle storage of cuda/bsr.h.
#ifndef ALC_TESTS_GPU_BSR_FIXTURE_H_
#define ALC_TESTS_GPU_BSR_FIXTURE_H_

#include "../../cuda/bsr.h"
#include "ref/bsr_ref.h"

/// Uniform in [-1, 1) from a splitmix64 state.
double alct_rnd(unsigned long long* state);

/// The reference backend's matrix (B->A) and -gradient (-B->g) after two steps of
/// scenes/SCENE.yaml at CI size, copied out of the sim once per process and kept (the reference
/// steps cost more than every comparison): the test binary's GPU tests share them. Not thread-safe.
/// @param[out] A    the matrix (full storage, n block rows) [host]
/// @param[out] rhs  -g (n x 3) [host]
/// @return 1 on success (the matrix populated); 0 with the reason printed.
int alct_bsrScene(const char* scene, const alcrBsr** A, const double** rhs);

/// A random symmetric full-storage matrix of n block rows, about deg off-diagonal blocks per
/// row, the lower blocks the exact transposes of the upper ones. spd: diagonal blocks that make
/// it symmetric positive definite (block diagonally dominant); otherwise also some singular
/// diagonal blocks (zero, rank 1 with zeros on the diagonal, rank 2) and indefinite ones.
/// @return 1 on success.
int alct_bsrRandom(alcrBsr* A, int n, int deg, unsigned long long seed, int spd);

/// Number of off-diagonal blocks of A whose mirror block is not its exact transpose (or absent).
int alct_bsrAsymmetric(const alcrBsr* A);

/// Make D (capacity A's block count, at least 1) and fill it from A through alcg_bsr_fromFull.
/// @return 1 on success; 0 with s->err printed.
int alct_bsrUpload(const alcrBsr* A, alcgBsr* D, alcgStream* s);

#endif  // ALC_TESTS_GPU_BSR_FIXTURE_H_
