// Frame writers: the boundary surface of the scene at one instant, for ParaView (VTK XML .vtu
// plus a .pvd series index) and Blender (binary PLY). Only the model's surface triangles and
// the vertices they use are written, renumbered in ascending order of their model index.
// Every file goes through io_atomic, so a crashed run leaves only complete files. Internal to
// the library.
#ifndef ALC_HOST_FRAME_WRITER_H_
#define ALC_HOST_FRAME_WRITER_H_

#include "alc/alc_types.h"

/// Write the surface as a VTK XML UnstructuredGrid (.vtu, version 1.0, header_type UInt64,
/// byte order of the host). Contents:
///   Points      Float64 x 3, the surface vertices (ascending model index)
///   Cells       triangles (VTK type 5): connectivity, offsets (Int32), types (UInt8)
///   PointData   "velocity" Float64 x 3 (only when v is given), "vertex" Int32 = model index
///   CellData    "body" Int32 = m->tri_body, "obstacle" UInt8 = 1 for obstacle bodies
///   FieldData   "TimeValue" Float64 (ascii), the simulated time
/// Arrays are stored inline, format="binary": base64 of the VTK binary layout (its header and
/// its data encoded separately, as VTK writes them), which ParaView/VTK, meshio and pyvista all
/// read (raw appended data, this writer's format before 0.4, defeats meshio on some array
/// lengths); with compress != 0 each array is zlib-compressed in 32 KiB blocks
/// (compressor="vtkZLibDataCompressor") before the encoding.
/// @param[in] path      output file (replaced atomically)
/// @param[in] m         model: ntri, nvert, tri_vert, tri_body and body_type are used
/// @param[in] x         positions (m->nvert x 3), m
/// @param[in] v         velocities (m->nvert x 3), m/s
/// @param[in] time      simulated time (s)
/// @param[in] compress  nonzero: zlib-compress the arrays
/// @param[out] err      message naming the path on failure
/// @return ALC_OK, ALC_ERR_INVALID_ARG (NULL input, index out of range), ALC_ERR_NOMEM,
///         ALC_ERR_IO.
/// Nullable: v, err
alctStatus alci_frame_writeVtu(const char* path, const alcModel* m, const double* x,
                               const double* v, double time, int compress, char* err, int errsz);

/// Write the ParaView collection index (.pvd) listing n frames in the given order, each as
/// <DataSet timestep="time" part="0" file="name"/>. A file name that starts with the .pvd's
/// own directory followed by '/' is written relative to it; others are written as given.
/// Names are XML-escaped. Call after every frame: the index is rewritten atomically, so a
/// crashed run still has a valid index of the frames it finished.
/// @param[in] pvdPath  the index file
/// @param[in] files    frame file names (n)
/// @param[in] times    simulated times (n), s
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
/// Nullable: err; files and times when n == 0
alctStatus alci_series_write(const char* pvdPath, int n, const char* const* files,
                             const double* times, char* err, int errsz);

/// Write the surface as a binary_little_endian PLY 1.0: "vertex" elements (surface vertices,
/// ascending model index) with float x, y, z (m), float vx, vy, vz (m/s; only when v is given),
/// values rounded to single precision, and int body (m->vert_body: colour or pick bodies by
/// it); "face" elements with a "vertex_indices" list (uchar count 3, int indices). Blender and
/// ParaView import it.
/// @param[in] path  output file (replaced atomically)
/// @param[in] m     model: ntri, nvert, tri_vert and vert_body are used
/// @param[in] x     positions (m->nvert x 3), m
/// @param[in] v     velocities (m->nvert x 3), m/s
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
/// Nullable: v, err
alctStatus alci_frame_writePly(const char* path, const alcModel* m, const double* x,
                               const double* v, char* err, int errsz);

/// Write a ParaView file series index (JSON, "file-series-version" 1.0: {"name", "time"} per
/// file, in the given order) for a format without a collection file of its own (PLY); ParaView
/// opens it as FILE.ply.series beside the frames. Names under the index's own directory are
/// written relative to it, as for alci_series_write; names are JSON-escaped.
/// @return ALC_OK, ALC_ERR_INVALID_ARG, ALC_ERR_NOMEM, ALC_ERR_IO.
/// Nullable: err; files and times when n == 0
alctStatus alci_series_writeJson(const char* seriesPath, int n, const char* const* files,
                                 const double* times, char* err, int errsz);

#endif  // ALC_HOST_FRAME_WRITER_H_
