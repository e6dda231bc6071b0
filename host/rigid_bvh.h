// A bounding-volume hierarchy over the primitives of one rigid body in its own frame (RIPC §4.3):
// built once, since a rigid body's primitives never move in its frame, and queried with boxes
// that another body's primitives sweep in that frame over a step (alcm_rigid_frameBox,
// hd/alcm_rigid.h). Reference code for issue 17; internal to the library.
#ifndef ALC_HOST_RIGID_BVH_H_
#define ALC_HOST_RIGID_BVH_H_

#include "hd/alcm_aabb.h"

#include "alc/alc_types.h"

/// A node: its box, and either two children or a run of primitives.
typedef struct alciBvhNode_ {
    alcAabb box;  ///< holds the boxes of every primitive below (m)
    int left;     ///< first child, or -1 for a leaf
    int right;    ///< second child (a leaf: -1)
    int first;    ///< a leaf: first entry in alciRigidBvh.prim
    int count;    ///< a leaf: number of primitives (at most ALCI_BVH_LEAF)
} alciBvhNode;

/// Most primitives in a leaf.
#define ALCI_BVH_LEAF 4

/// The hierarchy. Owns its arrays (alci_rigidBvh_free).
typedef struct alciRigidBvh_ {
    int nprim;          ///< primitives
    int nnode;          ///< nodes; node[0] is the root (none when nprim is 0)
    alciBvhNode* node;  ///< nodes (nnode)
    int* prim;          ///< primitive indices, leaf by leaf (nprim)
    alcAabb* box;       ///< each primitive's box, by primitive index (nprim) (m)
} alciRigidBvh;

/// Build the hierarchy over n primitive boxes: median split of the box centres along the
/// longest axis of their extent, down to leaves of at most ALCI_BVH_LEAF primitives.
/// @param[out] t      the hierarchy (zeroed first; free with alci_rigidBvh_free, also on error)
/// @param[in]  boxes  the primitives' boxes (n), copied
/// @param[in]  n      number of primitives, >= 0
/// @return ALC_OK, ALC_ERR_INVALID_ARG (NULL t, n < 0, NULL boxes with n > 0), or
///         ALC_ERR_NOMEM.
alctStatus alci_rigidBvh_build(alciRigidBvh* t, const alcAabb* boxes, int n);

/// Free what alci_rigidBvh_build allocated and zero t. NULL-safe.
void alci_rigidBvh_free(alciRigidBvh* t);

/// Every primitive whose box overlaps q (closed boxes, alcm_aabb_overlap), each once: visit(user,
/// primitive index) in an order fixed by the hierarchy.
/// @param[in] t      the hierarchy
/// @param[in] q      the query box (m)
/// @param[in] visit  called for each overlapping primitive
/// @param[in] user   passed to visit. Nullable
/// @return the number of primitives visited.
long alci_rigidBvh_query(const alciRigidBvh* t, alcAabb q, void (*visit)(void* user, int prim),
                         void* user);

#endif  // ALC_HOST_RIGID_BVH_H_
