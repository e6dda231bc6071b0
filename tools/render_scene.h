// The POV-Ray side of `alcove render` (tools/cmd_render.c): views and cameras that frame a run,
// the scene file of one state (a mesh per body, coloured by body; obstacles grey; contact
// forces as arrows) and the contact log it draws from.
#ifndef ALC_TOOLS_RENDER_SCENE_H_
#define ALC_TOOLS_RENDER_SCENE_H_

#include "state_io.h"

#include <stddef.h>

enum { ALC_VIEW_PERSP = 0, ALC_VIEW_FRONT, ALC_VIEW_SIDE, ALC_VIEW_TOP, ALC_NVIEW };

/// A pinhole camera, right-handed world (y up): it looks from `location` at `lookAt`, `up` is
/// the image's up direction, `angle` the horizontal field of view (degrees), square pixels.
typedef struct {
    double location[3], lookAt[3], up[3];
    double angle;
    int width, height;
} alcRenderCamera;

/// The pair rows of a run's contacts.csv that render draws: where, which way, how strong.
typedef struct {
    int n;
    long* step;       ///< step of the row (n)
    int* type;        ///< 0 point-triangle, 1 edge-edge (n)
    int* vert;        ///< v0, v1 (n x 2)
    double* normal;   ///< unit normal on side 0 (n x 3)
    double* force;    ///< normal force, N (n)
    double forceMax;  ///< the largest over the run, N
} alcRenderContacts;

/// View id of "persp", "front", "side" or "top"; -1 for another name.
int alc_renderViewId(const char* name);
/// Name of a view id.
const char* alc_renderViewName(int view);

/// Grow box (min xyz, max xyz) over the vertices of the topology's surface triangles at x.
void alc_renderGrowBox(const alciTopology* t, const double* x, double box[6]);

/// The camera of a view that frames the box with a margin (the box's bounding sphere fits the
/// image): persp from the front, right and above; front along -z; side along -x; top down -y.
void alc_renderCamera(int view, const double box[6], int width, int height, alcRenderCamera* cam);

/// Write the camera as JSON (location, look_at, up, angle_deg, width, height). 0 on success,
/// else -1 with the reason in err.
int alc_renderWriteCamera(const char* path, const alcRenderCamera* cam, char* err, int errsz);

/// Write the POV-Ray scene of one state: camera and lights, white background, one mesh2 per
/// body with a surface (body b coloured from a fixed palette by b, obstacles light grey and
/// mostly transparent so that what they hold stays visible), and
/// when contacts is given, an arrow per contact pair of that step: from the point (PT) or the
/// first edge's midpoint (EE) along its normal, length proportional to the normal force (the
/// run's largest force drawn at a fifth of the frame's bounding radius). 0 on success, else -1.
/// Nullable: contacts, err
int alc_renderWritePov(const char* path, const alciTopology* t, const double* x,
                       const alcRenderCamera* cam, const alcRenderContacts* contacts, long step,
                       char* err, int errsz);

/// Read the pair rows of a contacts.csv (its header checked). 0 on success, else -1 with
/// "<path>:<line>: <what is wrong>" in err. Free with alc_renderFreeContacts.
int alc_renderReadContacts(const char* path, alcRenderContacts* c, char* err, int errsz);
/// Free what alc_renderReadContacts allocated and zero c. NULL-safe.
void alc_renderFreeContacts(alcRenderContacts* c);

#endif  // ALC_TOOLS_RENDER_SCENE_H_
