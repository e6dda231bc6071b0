// Exact binary states for `alcove check` (the independent intersection checker) and restarts:
// one topology file per run and one state file per frame. Both are little-endian, start with
// an 8-byte magic and end with the zlib CRC-32 of every byte before it. Readers validate
// magic, sizes (before allocating), index ranges and the CRC, and report what is wrong.
// Internal to the library.
//
// Topology file ("ALCTOPO1"):
//   char[8]  "ALCTOPO1"
//   int32    nvert, ntet, ntri, nedge, nbody
//   int32    tet_vert (ntet x 4), tri_vert (ntri x 3), edge_vert (nedge x 2),
//            tri_body (ntri), edge_body (nedge), vert_body (nvert), tet_body (ntet),
//            body_type (nbody), body_vertadr (nbody), body_vertnum (nbody)
//   nbody x  { int32 length L; L bytes of the body name, no terminator }
//   uint32   CRC-32 of all preceding bytes
//
// State file ("ALCSTAT1"):
//   char[8]  "ALCSTAT1"
//   int64    step
//   float64  time (s)
//   int32    nvert
//   uint32   flags: bit 0 = velocities present
//   uint64   c, bytes of the compressed payload
//   c bytes  zlib stream (compress2, level 1) of x (nvert x 3 float64) then, if flagged,
//            v (nvert x 3 float64): exact doubles, little-endian
//   uint32   CRC-32 of all preceding bytes
#ifndef ALC_HOST_STATE_IO_H_
#define ALC_HOST_STATE_IO_H_

#include "alc/alc_types.h"

/// Largest count accepted by the readers for any size field (vertices, tets, ...): 2^28.
#define ALCI_STATE_MAXCOUNT (1 << 28)

/// CRC-32 (zlib's) of a buffer of any length.
uint32_t alci_state_crc32(const unsigned char* p, size_t n);

/// Read a whole regular file into a malloc'ed buffer (one spare byte past *n).
/// @param[out] data  owned by the caller (free); data[*n] is 0, so that text can be parsed in place
/// @param[out] err   "cannot open <path>: <strerror>" and the like
/// @return ALC_OK, ALC_ERR_IO, ALC_ERR_NOMEM.
/// Nullable: err
alctStatus alci_state_readFile(const char* path, unsigned char** data, size_t* n, char* err,
                               int errsz);

/// The mesh connectivity saved with a run; every array is malloc'ed and owned by the struct
/// (alci_state_freeTopology). Fields mirror alcModel.
typedef struct alciTopology_ {
    int nvert, ntet, ntri, nedge, nbody;
    int* tet_vert;       ///< (ntet x 4)
    int* tri_vert;       ///< (ntri x 3)
    int* edge_vert;      ///< (nedge x 2)
    int* tri_body;       ///< (ntri)
    int* edge_body;      ///< (nedge)
    int* vert_body;      ///< (nvert)
    int* tet_body;       ///< (ntet)
    int* body_type;      ///< alctBodyType (nbody)
    int* body_vertadr;   ///< first vertex (nbody)
    int* body_vertnum;   ///< vertex count (nbody)
    int* tet_protected;  ///< 1 when the solver keeps the tetrahedron from inverting (a
                         ///< non-invertible material, or every one under `inversion: all`),
                         ///< 0 when its material may invert (ntet); every 1 in a version-1
                         ///< file, which does not record it
    int* body_nameadr;   ///< offset of the body's zero-terminated name in names (nbody)
    char* names;         ///< body names, each zero-terminated (nname bytes)
    int nname;           ///< bytes of names
} alciTopology;

/// Write the topology of a model. The arrays are checked as the reader checks them, so a
/// file this writes is one the reader accepts. Bodies without a name (names or body_nameadr
/// NULL) get an empty one.
/// @param[in] path  output file (replaced atomically)
/// @param[out] err  message naming the path on failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG (NULL array with a nonzero count, index out of range),
///         ALC_ERR_NOMEM, ALC_ERR_IO.
/// Nullable: err
alctStatus alci_state_writeTopology(const char* path, const alcModel* m, char* err, int errsz);

/// Read and validate a topology file: magic, sizes (each at most ALCI_STATE_MAXCOUNT and
/// consistent with the file length, checked before allocating), CRC, vertex and body indices
/// in range, body types known, body vertex ranges inside [0, nvert) and matching vert_body.
/// @param[out] out  filled on success (free with alci_state_freeTopology); zeroed on failure
/// @param[out] err  "<path>: <what is wrong>"
/// @return ALC_OK, ALC_ERR_INVALID_ARG (NULL argument), ALC_ERR_IO (unreadable, or malformed),
///         ALC_ERR_NOMEM.
/// Nullable: err
alctStatus alci_state_readTopology(const char* path, alciTopology* out, char* err, int errsz);

/// Free the arrays of a topology and zero it. NULL-safe.
void alci_state_freeTopology(alciTopology* t);

/// Write one exact state (positions and velocities as float64, zlib-compressed).
/// @param[in] path  output file (replaced atomically)
/// @param[in] step  step number (>= 0)
/// @param[in] time  simulated time (s)
/// @param[in] x     positions (nvert x 3), m
/// @param[in] v     velocities (nvert x 3), m/s; NULL writes a state without velocities
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
/// Nullable: v, err; x when nvert == 0
alctStatus alci_state_write(const char* path, long step, double time, int nvert, const double* x,
                            const double* v, char* err, int errsz);

/// Read and validate a state file: magic, flags, sizes (nvert at most ALCI_STATE_MAXCOUNT, the
/// payload length equal to the file's rest, the inflated size possible for zlib, all checked
/// before allocating), CRC, and the inflated length.
/// @param[out] x  positions (nvert x 3), malloc'ed, caller frees
/// @param[out] v  velocities (nvert x 3), malloc'ed, caller frees; NULL when the file has none
/// On failure every output is zeroed or NULL.
/// @return ALC_OK, ALC_ERR_INVALID_ARG (NULL argument), ALC_ERR_IO (unreadable, or malformed),
///         ALC_ERR_NOMEM.
/// Nullable: err
alctStatus alci_state_read(const char* path, long* step, double* time, int* nvert, double** x,
                           double** v, char* err, int errsz);

#endif  // ALC_HOST_STATE_IO_H_
