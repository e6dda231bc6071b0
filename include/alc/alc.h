// alcove: penetration-free, inversion-free elastodynamics with contact, by the barrier-free
// augmented Lagrangian method (Zheng, Luo, Li), on NVIDIA GPUs and a CPU reference backend.
//
// The API follows MuJoCo's split: a constant alcModel (alc_loadScene or alcSpec), a plain
// alcData per simulation thread, and an opaque alcSim owning the backend. Fallible functions
// return alctStatus; library code never exits or aborts.
//
//     alcModel* m = NULL;
//     char err[512];
//     if (alc_loadScene("scenes/box_drop.yaml", NULL, &m, err, sizeof err)) puts(err);
//     alcData* d = NULL;
//     alc_makeData(m, &d);
//     alcSimDef def = alc_defaultSimDef();
//     alcSim* sim = NULL;
//     alctStatus s = alc_makeSim(m, &def, &sim);
//     for (int i = 0; s == ALC_OK && i < 100; i++) s = alc_step(sim, d);
//     if (s != ALC_OK) fprintf(stderr, "%s\n", alc_lastError(sim));
//     alc_deleteSim(sim); alc_deleteData(d); alc_deleteModel(m);
#ifndef ALC_ALC_H_
#define ALC_ALC_H_

#include "alc_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Version of this header: major * 10000 + minor * 100 + patch.
#define ALC_VERSION_HEADER 1200

// ---- utilities ----------------------------------------------------------------------------

/// Version of the linked library (same encoding as ALC_VERSION_HEADER).
ALC_API int alcu_version(void);

/// Layout of the public structs, for bindings that read fields by offset instead of mirroring
/// the structs (python/alcove does): the byte offset of `field` in the struct named `type`
/// ("alcData", "alcModel", "alcContact", "alcStepStat", "alcRunStat"), and its size in *size;
/// field "" or NULL gives 0 and the size of the struct itself. Only the fields a binding needs
/// are listed (host/layout.c).
/// @param[out] size  bytes of the field or struct; nullable
/// @return the offset, or -1 for an unknown type or field.
ALC_API long alcu_layout(const char* type, const char* field, size_t* size);

/// Version of the linked library as a string, e.g. "0.1.0". The string is static.
ALC_API const char* alcu_versionString(void);

/// Name of a status code, e.g. "ALC_ERR_SCENE"; "unknown status" when out of range. Static.
ALC_API const char* alcu_statusString(alctStatus status);

/// Name of a warning, e.g. "ALC_WARN_PCG_MAXITER". The string is static.
ALC_API const char* alcu_warningString(alctWarning warning);

/// Name of a timer, e.g. "hessian". The string is static.
ALC_API const char* alcu_timerString(alctTimer timer);

/// 1 if this build contains the CUDA backend and a CUDA device is usable, else 0.
/// Any error from the CUDA runtime counts as "no device".
ALC_API int alcu_cudaAvailable(void);

/// Describes CUDA device `device` (an ordinal, as alcSimDef.device) as the CUDA runtime names
/// it, with its compute capability and memory, e.g. "NVIDIA H100 80GB HBM3, sm_90, 79.1 GiB";
/// in the build whose kernels run in alcove's SIMT emulation (build/emu), "SIMT emulation on the
/// CPU, not a GPU". Benchmarks and run summaries name the device with it.
/// @param buf receives the description, at most n bytes with its terminating NUL ("" when 0 is
///        returned); n == 0 writes nothing.
/// @return 1 for a device, 2 for the SIMT emulation, 0 when this build has no CUDA backend, no
///         device is usable or the ordinal names none.
ALC_API int alcu_cudaDescribe(int device, char* buf, size_t n);

/// 1 if this build has the reference backend's sparse direct solver (CHOLMOD), which
/// alcOption.linearSolver ALC_LINSOLVE_DIRECT and ALC_LINSOLVE_AUTO need, else 0 (alc_makeSim
/// then refuses those settings with ALC_ERR_UNSUPPORTED).
ALC_API int alcu_directSolverAvailable(void);

/// The BLAS that CHOLMOD's supernodal factorizations (ALC_LINSOLVE_DIRECT and _AUTO) run on in
/// this process, found at run time: the library that defines dgemm_ (its real path, through
/// Debian's alternatives), and where it is OpenBLAS its configuration, kernel core and thread
/// count, e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64, core
/// Prescott, 1 thread (/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3)". The BLAS
/// decides the direct solver's speed more than anything in alcove: advice says what to change
/// where it is slower than this CPU allows (the reference BLAS; an OpenBLAS that took the CPU
/// for an older one and runs kernels without its AVX2 or AVX-512: OPENBLAS_CORETYPE).
/// @param[out] buf     the description, at most n bytes with the NUL; nullable when n == 0
/// @param[out] advice  what to change, "" when nothing; at most na bytes; nullable when na == 0
/// @return 1 for OpenBLAS, 0 for another BLAS, -1 when this build has no CHOLMOD.
ALC_API int alcu_blasDescribe(char* buf, size_t n, char* advice, size_t na);

// ---- defaults -----------------------------------------------------------------------------

/// Default physical and solver options (see the field comments of alcOption).
ALC_API alcOption alc_defaultOption(void);

/// Default sim def; never zero-initialize a def.
ALC_API alcSimDef alc_defaultSimDef(void);

/// Default material def.
ALC_API alcMaterialDef alc_defaultMaterialDef(void);

/// Default body def (a solid at the origin, identity rotation, unit scale, at rest).
ALC_API alcBodyDef alc_defaultBodyDef(void);

/// Default driver def (fixed).
ALC_API alcDriverDef alc_defaultDriverDef(void);

/// Default load def (no preset, no overrides).
ALC_API alcLoadDef alc_defaultLoadDef(void);

// ---- scenes and models --------------------------------------------------------------------

/// Load a YAML scene (docs/scene-format.md) and compile it into a model.
/// @param[in]  path   scene file; mesh paths inside it are relative to its folder
/// @param[in]  def    preset and parameter overrides
/// @param[out] model  the new model, owned by the caller (alc_deleteModel)
/// @param[out] err    message buffer: "file:line:col: what is wrong" on failure
/// @param[in]  errsz  size of err in bytes
/// @return ALC_OK; ALC_ERR_SCENE for invalid content; ALC_ERR_IO for unreadable files;
///         ALC_ERR_NOMEM; ALC_ERR_INVALID_ARG for NULL arguments.
/// Nullable: def, err
ALC_API alctStatus alc_loadScene(const char* path, const alcLoadDef* def, alcModel** model,
                                 char* err, int errsz);

/// Free a model. NULL-safe.
ALC_API void alc_deleteModel(alcModel* model);

/// Deep copy of a model.
/// @param[out] dst  the new copy, owned by the caller (alc_deleteModel)
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL argument); ALC_ERR_NOMEM.
ALC_API alctStatus alc_copyModel(const alcModel* src, alcModel** dst);

/// Name of body i ("" when out of range); points into the model, valid while it lives.
ALC_API const char* alc_bodyName(const alcModel* model, int body);

/// Index of the body with this name, or -1.
ALC_API int alc_bodyIndex(const alcModel* model, const char* name);

/// Index of the driver with this name, or -1.
ALC_API int alc_driverIndex(const alcModel* model, const char* name);

/// Name of the scene ("" when none); points into the model, valid while it lives.
ALC_API const char* alc_sceneName(const alcModel* model);

// ---- building a model in code -------------------------------------------------------------

/// Make an empty specification with default options.
/// @param[out] spec  owned by the caller (alc_deleteSpec)
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL spec); ALC_ERR_NOMEM.
ALC_API alctStatus alc_makeSpec(alcSpec** spec);

/// Free a specification. NULL-safe.
ALC_API void alc_deleteSpec(alcSpec* spec);

/// Options of the specification, to read and change before compiling. Never NULL for a
/// valid spec.
ALC_API alcOption* alc_specOption(alcSpec* spec);

/// Run options of the specification (steps, output), to read and change.
ALC_API alcRunOption* alc_specRunOption(alcSpec* spec);

/// Add a material.
/// @param[out] index  its index, for alcBodyDef.material
/// @return ALC_ERR_BAD_DEF for a def not from alc_defaultMaterialDef; ALC_ERR_INVALID_ARG for
///         out-of-range values (message from alc_specError).
/// Nullable: index
ALC_API alctStatus alc_specAddMaterial(alcSpec* spec, const alcMaterialDef* def, int* index);

/// Set the friction coefficient between two materials (symmetric). Materials without a pair
/// entry use alcOption.frictionDefault (0 unless set: frictionless).
/// @param[in] mu  Coulomb coefficient (dimensionless, >= 0)
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL spec, a material index out of range, mu < 0 or
///         not finite); ALC_ERR_NOMEM.
ALC_API alctStatus alc_specSetFriction(alcSpec* spec, int matA, int matB, double mu);

/// Add a body. Arrays are copied.
/// @param[out] index  its body index
/// @return ALC_OK; ALC_ERR_BAD_DEF for a def not from alc_defaultBodyDef;
///         ALC_ERR_INVALID_ARG for missing arrays or out-of-range values (message from
///         alc_specError); ALC_ERR_NOMEM.
/// Nullable: index
ALC_API alctStatus alc_specAddBody(alcSpec* spec, const alcBodyDef* def, int* index);

/// Add a driver moving the listed vertices of a body (local vertex indices of that body).
/// With nvert == 0 and verts == NULL the driver moves the whole body. A vertex belongs to at
/// most one driver. A rigid body (ALC_BODY_RIGID) moves as one: its driver must move all of
/// its vertices, and the body follows the pose that takes its vertices onto their targets
/// (kinematic rigid bodies; alc_compileSpec refuses a driver on part of one). Released (def
/// release), it flies on with the velocity of its last driven step.
/// @param[out] index  its driver index
/// @return ALC_OK; ALC_ERR_BAD_DEF for a def not from alc_defaultDriverDef;
///         ALC_ERR_INVALID_ARG for an unknown body, a vertex out of range or already driven,
///         bad motion parameters (message from alc_specError); ALC_ERR_NOMEM.
/// Nullable: verts, index
ALC_API alctStatus alc_specAddDriver(alcSpec* spec, const alcDriverDef* def, int body, int nvert,
                                     const int* verts, int* index);

/// Set the scene name and the default output directory (both copied).
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL spec); ALC_ERR_NOMEM.
/// Nullable: name, outDir
ALC_API alctStatus alc_specSetNames(alcSpec* spec, const char* name, const char* outDir);

/// Message of the last failed spec call ("" when none); owned by the spec, valid until its
/// next call.
ALC_API const char* alc_specError(const alcSpec* spec);

/// Compile the specification into a model: derived quantities (rest shapes, volumes, masses,
/// Lame parameters, boundary surfaces), with every mesh validated.
/// @param[out] model  owned by the caller
/// @param[out] err    message buffer; Nullable
/// @return ALC_ERR_SCENE for invalid meshes (inverted, degenerate, out-of-range indices, NaN,
///         empty) with the body and element named; ALC_ERR_NOMEM.
ALC_API alctStatus alc_compileSpec(const alcSpec* spec, alcModel** model, char* err, int errsz);

// ---- meshes -------------------------------------------------------------------------------
// The generators and readers of the scene format (docs/scene-format.md, "mesh"), for bodies
// built in code: the same meshes a YAML scene makes from the same parameters. Each returns
// ALC_OK with *mesh owned by the caller (alc_deleteMesh), ALC_ERR_INVALID_ARG (NULL, a size
// that is not finite and positive, a resolution out of range; *mesh NULL) or ALC_ERR_NOMEM.
// Solids are centred at the origin; place them with alcBodyDef.position and rotation.

/// Box of size[0] x size[1] x size[2] (m) with cells[i] >= 1 cells along axis i, each cell
/// split into 6 tetrahedra (scene: box: {size, cells}).
ALC_API alctStatus alc_meshBox(const double size[3], const int cells[3], alcMesh** mesh);

/// Ball of the given radius (m); res >= 2 cells across the diameter (scene: sphere).
ALC_API alctStatus alc_meshSphere(double radius, int res, alcMesh** mesh);

/// Cylinder along +y, radius and height in m, resRadial >= 2 cells across the diameter and
/// resHeight >= 1 along the axis (scene: cylinder).
ALC_API alctStatus alc_meshCylinder(double radius, double height, int resRadial, int resHeight,
                                    alcMesh** mesh);

/// Torus in the xz plane around +y: majorRadius of the ring, minorRadius of the tube (m),
/// resMajor >= 3 cells around the ring, resMinor >= 2 across the tube (scene: torus).
ALC_API alctStatus alc_meshTorus(double majorRadius, double minorRadius, int resMajor,
                                 int resMinor, alcMesh** mesh);

/// Obstacle: a square plane in xz, normal +y, size[0] x size[1] (m), res >= 1 cells per side
/// (scene: plane; with `up: z` scenes turn it to face +z, code places it with the body's
/// rotation).
ALC_API alctStatus alc_meshPlane(const double size[2], int res, alcMesh** mesh);

/// Obstacle: the surface of a box of the given size (m), normals inward (bodies inside), res
/// cells per edge; closed = 0 leaves the top (+y) open: a well (scene: box as an obstacle).
ALC_API alctStatus alc_meshBoxSurface(const double size[3], int res, int closed, alcMesh** mesh);

/// Obstacle: a hemispherical bowl of the given radius (m) opening towards +y, rim at y = 0, res
/// rings (scene: bowl).
ALC_API alctStatus alc_meshBowl(double radius, int res, alcMesh** mesh);

/// Obstacle: a funnel along y, a truncated cone from topRadius at y = height/2 to bottomRadius
/// at -height/2 (m), open at both ends, res segments around (scene: funnel).
ALC_API alctStatus alc_meshFunnel(double topRadius, double bottomRadius, double height, int res,
                                  alcMesh** mesh);

/// Read a mesh file as the scene loader does: .msh (Gmsh 2.2 or 4.1, ASCII or binary),
/// .node/.ele (TetGen; the other file found beside it), .obj (Wavefront surface). A tet mesh
/// whose tetrahedra are all negatively oriented (the other convention) is turned over, and
/// *reoriented set to 1; then the mesh is validated (finite coordinates, indices in range,
/// no degenerate or inverted element).
/// @param[out] reoriented  1 when the tetrahedra were turned over, else 0; nullable
/// @param[out] err         "path:line: what is wrong" on failure; nullable
/// @return ALC_OK; ALC_ERR_IO (unreadable); ALC_ERR_SCENE (malformed or invalid, e.g. a mix of
///         orientations: folded elements); ALC_ERR_INVALID_ARG; ALC_ERR_NOMEM.
ALC_API alctStatus alc_meshRead(const char* path, alcMesh** mesh, int* reoriented, char* err,
                                int errsz);

/// Free a mesh made by the functions above. NULL-safe.
ALC_API void alc_deleteMesh(alcMesh* mesh);

// ---- data ---------------------------------------------------------------------------------

/// Make data for a model, set to the initial state (alc_resetData).
/// @param[out] data  owned by the caller (alc_deleteData)
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL argument); ALC_ERR_NOMEM.
ALC_API alctStatus alc_makeData(const alcModel* model, alcData** data);

/// Free data. NULL-safe.
ALC_API void alc_deleteData(alcData* data);

/// Reset data to the model's initial state; clears statistics and warnings. The sims keep
/// their contact state (active set, multipliers, lagged friction), which belongs to the
/// positions they last stepped from: call alc_resetContacts on the sim that steps this data
/// next (an episode reset is alc_resetData followed by alc_resetContacts).
ALC_API void alc_resetData(const alcModel* model, alcData* data);

/// Set the targets of every vertex of a driver from a rigid pose relative to the initial one
/// (x = c + R (x0 - c) + t with c the vertices' initial centroid), and mark the driver
/// external so alc_step keeps them. The pose set before an alc_step is where the driven
/// vertices are at the end of that step (within the AL paper's Eq. 21 bound, eps h |v|); it
/// stays the target of later steps until set again. A driven rigid body takes that pose as
/// one body (its centre of mass and rotation follow). To hand the driver back to its scripted
/// motion, set data->driver_external[driver] = 0: the script's pose at the step's end time
/// applies from the next step (a jump if it differs from where the vertices are).
/// @param[in] translation  t (3), m
/// @param[in] quat         R as a unit quaternion w, x, y, z; NULL = identity
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL, a driver index out of range, a translation that
///         is not finite, a zero or non-finite quaternion).
/// Nullable: quat
ALC_API alctStatus alc_setDriverPose(const alcModel* model, alcData* data, int driver,
                                     const double translation[3], const double quat[4]);

/// Drive a driver by velocity for the next step: its vertices' targets (data->kin_target: the
/// last ones, scripted or set) move rigidly by `velocity` dt and rotate by `omega` dt about
/// their centroid (the pose velocity a controller commands; integrating the targets, not the
/// positions, keeps the commanded path free of drift), and the driver is marked external as by
/// alc_setDriverPose. Call before every alc_step with that step's dt (alcOption.timestep).
/// @param[in] velocity  linear velocity (3), m/s
/// @param[in] omega     angular velocity (3), rad/s, about the targets' centroid; NULL = none
/// @param[in] dt        the step the targets are for (s, > 0)
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL, a driver index out of range or without vertices,
///         a velocity or dt that is not finite, dt <= 0).
/// Nullable: omega
ALC_API alctStatus alc_setDriverVelocity(const alcModel* model, alcData* data, int driver,
                                         const double velocity[3], const double omega[3],
                                         double dt);

/// Drive a driver to a pose by a given time: the pose (relative to the initial one, as
/// alc_setDriverPose) is where its vertices arrive at simulated time `time`. Call before every
/// alc_step until then: each call gives the next step its share of the remaining rigid motion
/// from where the targets are (the centroid at constant speed, the rotation at constant angular
/// velocity about it: the twist of alc_setDriverVelocity that arrives on time); a call with
/// `time` within the next step sets the pose itself. The driver is marked external.
/// @param[in] translation  t (3), m
/// @param[in] quat         R as a unit quaternion w, x, y, z; NULL = identity
/// @param[in] time         arrival time (s), absolute simulated time as alcData.time
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL, a driver index out of range or without vertices,
///         a translation, quaternion or time that is not finite).
/// Nullable: quat
ALC_API alctStatus alc_setDriverPoseAt(const alcModel* model, alcData* data, int driver,
                                       const double translation[3], const double quat[4],
                                       double time);

/// Hash of the state (positions, velocities, time) for determinism checks.
ALC_API uint64_t alc_stateHash(const alcData* data);

// ---- simulation ---------------------------------------------------------------------------

/// Make a simulator for a model on a backend. The model must outlive the sim.
/// @param[out] sim  owned by the caller (alc_deleteSim); set even on failure when possible so
///                  that alc_lastError(sim) explains it, and must then still be deleted
/// @return ALC_ERR_BAD_DEF, ALC_ERR_VERSION, ALC_ERR_NO_DEVICE (cuda requested, none usable),
///         ALC_ERR_UNSUPPORTED (built without CUDA), ALC_ERR_NOMEM, ALC_ERR_DEVICE_NOMEM.
ALC_API alctStatus alc_makeSim(const alcModel* model, const alcSimDef* def, alcSim** sim);

/// Free a sim. NULL-safe.
ALC_API void alc_deleteSim(alcSim* sim);

/// Backend that the sim runs on (ALC_BACKEND_REF or ALC_BACKEND_CUDA).
ALC_API alctBackend alc_simBackend(const alcSim* sim);

/// Name of the backend a sim runs on: "ref", "cuda", or "cuda-emulated" when "the device" is
/// alcove's SIMT emulation on the CPU (build/emu): its timings are never GPU timings.
/// NULL gives "none". The string is static.
ALC_API const char* alc_simBackendName(const alcSim* sim);

/// The device a sim on the cuda backend runs on, as alcu_cudaDescribe words it ("NVIDIA H100
/// 80GB HBM3, sm_90, 79.1 GiB"); "" on the reference backend and for NULL. Owned by the sim,
/// valid until alc_deleteSim.
ALC_API const char* alc_simDeviceName(const alcSim* sim);

/// CPU threads the reference backend's sim runs with: alcSimDef.threads when set, else the
/// cores OpenMP offers (OMP_NUM_THREADS, or all) that the rest of the machine left idle when
/// the sim was made (sampled from /proc/stat over 30 ms), and at most one per 1024 tetrahedra
/// and surface primitives. 0 for the CUDA backend and NULL.
ALC_API int alc_simThreads(const alcSim* sim);

/// Memory the sim's backend holds now (bytes): on the cuda backend the device memory of its
/// arena (sized when the sim is made; larger after a contact buffer outgrew it), also in the
/// emulation; host memory on the reference backend. 0 for NULL.
ALC_API size_t alc_simMemory(const alcSim* sim);

/// Message of the last failure on this sim ("" when none): "file:line function: message";
/// owned by the sim, valid until its next failing call. "" for NULL.
ALC_API const char* alc_lastError(const alcSim* sim);

/// Advance the data by one time step (AL paper Algorithm 1, or the selected contact model).
/// Reads data->x, data->v and the kinematic inputs; writes the new state, statistics and
/// warnings. Every state it writes is intersection-free and, under the inversion option,
/// inversion-free.
/// @return ALC_OK (also when the step hit its iteration cap: see ALC_WARN_AL_NOT_CONVERGED);
///         ALC_ERR_NUMERIC when the input state holds NaN/Inf; ALC_ERR_CAPACITY; ALC_ERR_CUDA;
///         ALC_ERR_CANCELLED after alc_cancelStep (data unchanged).
ALC_API alctStatus alc_step(alcSim* sim, alcData* data);

/// Ask the step in progress on sim to stop: it returns ALC_ERR_CANCELLED at its next check
/// (before every Newton iteration and every outer iteration of the solver, so within one Newton
/// iteration's time), leaving data at the last completed step: x, v, time, step, stat and the
/// run statistics as they were. The contact warm start (active set, multipliers) is that of the
/// stopped attempt; the next alc_step continues from data as usual. A request made while no
/// step runs stops the next step at its first check. A checkpoint saved after a cancelled step
/// holds that warm start: it resumes correctly, but not bit for bit as the uninterrupted run
/// (save checkpoints between completed steps for that). Safe to call from another thread, from a
/// log callback of the step itself, and from a signal handler (it only sets a flag).
/// NULL-safe.
ALC_API void alc_cancelStep(alcSim* sim);

/// Forget the contact state carried between steps (active set, multipliers, friction).
/// Call after writing data->x by hand or after alc_resetData. NULL-safe.
ALC_API void alc_resetContacts(alcSim* sim);

// ---- checkpoints ----------------------------------------------------------------------------
// A checkpoint holds everything alc_step carries from one step to the next: the data (time,
// step, positions, velocities, kinematic targets, the drivers' external and released flags,
// body forces, statistics and warning counts), the contact state of the sim (the active set
// with its multipliers and decay factors, the penalty and offset friction is lagged with; under
// the mlcp-cr model its contacts' friction states), the contact report and the energy check's
// record. Restored into a sim and data of the same model
// (checked by a fingerprint of the meshes, materials and drivers; not of the options), the run
// continues bit for bit as one that never stopped, on the same build and backend; a checkpoint
// of one backend restored into the other continues the same physics but not bit for bit.
// Checkpoints are read by libraries with the same struct layouts (older or newer ones are
// refused with the versions named). Errors are described by alc_lastError(sim).

/// Bytes alc_saveCheckpoint needs now (it grows with the active set).
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL, data of another model).
ALC_API alctStatus alc_checkpointSize(alcSim* sim, const alcData* data, size_t* bytes);

/// Save a checkpoint into caller memory (uncompressed: an RL-style reset copies it back in
/// microseconds per thousand vertices). Call between steps.
/// @param[in]  buf    cap bytes, owned by the caller
/// @param[out] bytes  bytes written, or needed when the buffer is too small
/// @return ALC_OK; ALC_ERR_CAPACITY (cap < *bytes, nothing written); ALC_ERR_INVALID_ARG;
///         ALC_ERR_NOMEM; ALC_ERR_CUDA.
ALC_API alctStatus alc_saveCheckpoint(alcSim* sim, const alcData* data, void* buf, size_t cap,
                                      size_t* bytes);

/// Restore a checkpoint from memory (alc_saveCheckpoint's bytes, or a checkpoint file's):
/// data and the sim's contact state become those of the saved step. Nothing changes unless
/// the whole checkpoint is valid (magic, CRC, format, struct layouts, model fingerprint, sizes,
/// contact pairs).
/// @return ALC_OK; ALC_ERR_IO (not a checkpoint, corrupted, truncated, another layout);
///         ALC_ERR_INVALID_ARG (NULL, another model); ALC_ERR_NOMEM; ALC_ERR_DEVICE_NOMEM.
ALC_API alctStatus alc_loadCheckpoint(alcSim* sim, alcData* data, const void* buf, size_t bytes);

/// Save a checkpoint to a file (zlib-compressed, written to a temporary name and renamed into
/// place: a crash leaves the old file or the new one whole).
/// @return as alc_saveCheckpoint, and ALC_ERR_IO (cannot write; the message names the path).
ALC_API alctStatus alc_saveCheckpointFile(alcSim* sim, const alcData* data, const char* path);

/// Restore a checkpoint file written by alc_saveCheckpointFile.
/// @return as alc_loadCheckpoint; ALC_ERR_IO names the path.
ALC_API alctStatus alc_loadCheckpointFile(alcSim* sim, alcData* data, const char* path);

/// Active contact pairs after the last step, with forces (under the IPC model: its barrier
/// constraints within dhat at the step's end, reference backend). The array is owned by the sim
/// and valid until the next alc_step.
/// @param[out] contacts  pointer to the array
/// @param[out] n         its length
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL argument).
ALC_API alctStatus alc_getContacts(alcSim* sim, const alcContact** contacts, int* n);

/// Total contact force (normal plus friction, N) that body b exerts on body a in the last step,
/// summed over the active pairs between them (alcContact's sign convention: the force on a).
/// force is zero when they do not touch, and for a == b (self-contact forces cancel).
/// @param[out] force  3 doubles
/// @return ALC_OK; ALC_ERR_INVALID_ARG (NULL, a body index out of range).
ALC_API alctStatus alc_bodyPairForce(alcSim* sim, int a, int b, double force[3]);

// ---- outputs and checks from a program's own loop -------------------------------------------
// The files `alcove run` writes (docs/outputs.md), written by the same code: every file goes to
// a temporary name and is renamed into place, so a reader sees the old file or the new one
// whole; a write error is returned, never ignored. err (nullable, errsz bytes) receives a
// message naming the path.

/// Write the boundary surface of the current state of d as one frame.
/// @param[in] format  ALC_FRAMES_VTU: VTK XML (points, triangles, velocity and vertex index per
///                    point, body and obstacle flag per triangle, the time; zlib-compressed,
///                    base64 inline: ParaView, VTK, meshio read it); ALC_FRAMES_PLY: binary PLY
///                    (x y z, vx vy vz, body per vertex; Blender, ParaView)
/// @return ALC_OK, ALC_ERR_INVALID_ARG (NULL input, unknown format, model and data of other
///         sizes), ALC_ERR_NOMEM, ALC_ERR_IO.
ALC_API alctStatus alc_writeFrame(const alcModel* model, const alcData* data, int format,
                                  const char* path, char* err, int errsz);

/// Write the index of a series of frames: a ParaView collection (.pvd) when path ends in
/// ".pvd", else ParaView's JSON file series (name it FRAMES.ply.series for PLY frames). Names
/// under the index's own folder are written relative to it. Rewrite it after each frame and a
/// stopped run still has a valid index.
/// @param[in] files  n frame paths, as written
/// @param[in] times  n simulated times (s)
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
ALC_API alctStatus alc_writeFrameSeries(const char* path, int n, const char* const* files,
                                        const double* times, char* err, int errsz);

/// Write the exact state of d (step, time, positions and velocities bit-exact, zlib, CRC):
/// the states/state_NNNNNN.alcs files `alcove check` reads beside the topology.
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
ALC_API alctStatus alc_writeState(const alcData* data, const char* path, char* err, int errsz);

/// Write the model's topology (topology.alct): connectivity, bodies and which tetrahedra may
/// invert, once per run, for `alcove check` and `alcove render`.
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
ALC_API alctStatus alc_writeTopology(const alcModel* model, const char* path, char* err, int errsz);

/// An open per-step statistics file (stats.csv, or JSON lines). Opaque.
typedef struct alcStatsFile_ alcStatsFile;

/// Create (truncate) a statistics file and write its header (CSV). Close with alc_statsClose.
/// @param[in] json  nonzero: JSON lines instead of CSV
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
ALC_API alctStatus alc_statsOpen(const char* path, int json, alcStatsFile** file, char* err,
                                 int errsz);

/// Append and flush the row of the step just taken (data->step, data->time, data->stat).
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_IO (message in err).
ALC_API alctStatus alc_statsWrite(alcStatsFile* file, const alcData* data, char* err, int errsz);

/// Reopen the statistics file of a run restored from a checkpoint at `step`
/// (alc_loadCheckpoint): rows of later steps (written after the checkpoint, before the run
/// stopped) and a line torn by a kill are removed, the header kept, and new rows are appended.
/// A missing file is created (without a header for CSV: use alc_statsOpen for a new run).
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
ALC_API alctStatus alc_statsResume(const char* path, int json, long step, alcStatsFile** file,
                                   char* err, int errsz);

/// Close and free the file (NULL-safe).
/// @return ALC_OK or ALC_ERR_IO when the last write failed.
ALC_API alctStatus alc_statsClose(alcStatsFile* file, char* err, int errsz);

/// An open contact log (contacts.csv: every active pair and every body's total contact force,
/// with step and time). Opaque.
typedef struct alcContactLog_ alcContactLog;

/// Create (truncate) a contact log and write its header. Close with alc_contactLogClose.
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
ALC_API alctStatus alc_contactLogOpen(const char* path, alcContactLog** log, char* err, int errsz);

/// Reopen the contact log of a run restored from a checkpoint at `step`: rows of later steps
/// and a torn last line are removed, the header kept, new rows appended (alc_statsResume).
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
ALC_API alctStatus alc_contactLogResume(const char* path, long step, alcContactLog** log, char* err,
                                        int errsz);

/// Append and flush the contacts of the step just taken (alc_getContacts, data->body_force).
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_IO.
ALC_API alctStatus alc_contactLogWrite(alcContactLog* log, alcSim* sim, const alcData* data,
                                       char* err, int errsz);

/// Close and free the log (NULL-safe).
/// @return ALC_OK or ALC_ERR_IO.
ALC_API alctStatus alc_contactLogClose(alcContactLog* log, char* err, int errsz);

/// Check the current state of d exactly, as `alcove check` checks a saved state: no inverted
/// tetrahedron of a non-invertible material (with strict, of any material; inversions the
/// material allows are counted in ninvertedAllowed), no surface edge meeting a surface triangle
/// (obstacle against obstacle aside), no NaN or Inf.
/// @param[out] report  counts, first offenders with their bodies, a one-line message;
///                     report->clean is the verdict
/// @return ALC_OK when the check ran, ALC_ERR_INVALID_ARG (NULL, sizes of model and data
///         differ), ALC_ERR_NOMEM.
ALC_API alctStatus alc_check(const alcModel* model, const alcData* data, int strict,
                             alcCheckReport* report);

#ifdef __cplusplus
}
#endif

#endif  // ALC_ALC_H_
