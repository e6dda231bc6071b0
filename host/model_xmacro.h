// The list of model arrays, written once (MuJoCo mjxmacro.h style): it drives allocation,
// copying and the layout test. X(type, name, count) where count
// is an expression over the sizes of a struct pointer named S at the expansion site.
#ifndef ALC_HOST_MODEL_XMACRO_H_
#define ALC_HOST_MODEL_XMACRO_H_

// clang-format off
#define ALC_MODEL_ARRAYS(X)                            \
    X(double, vert_x0,       S->nvert * 3)                \
    X(double, vert_v0,       S->nvert * 3)                \
    X(double, vert_rest,     S->nvert * 3)                \
    X(double, vert_mass,     S->nvert)                    \
    X(int,    vert_body,     S->nvert)                    \
    X(int,    vert_driver,   S->nvert)                    \
    X(int,    tet_vert,      S->ntet * 4)                 \
    X(int,    tet_body,      S->ntet)                     \
    X(double, tet_Dminv,     S->ntet * 9)                 \
    X(double, tet_vol,       S->ntet)                     \
    X(int,    tri_vert,      S->ntri * 3)                 \
    X(int,    tri_body,      S->ntri)                     \
    X(int,    edge_vert,     S->nedge * 2)                \
    X(int,    edge_body,     S->nedge)                    \
    X(int,    svert,         S->nsvert)                   \
    X(int,    body_type,     S->nbody)                    \
    X(int,    body_mat,      S->nbody)                    \
    X(int,    body_vertadr,  S->nbody)                    \
    X(int,    body_vertnum,  S->nbody)                    \
    X(int,    body_tetadr,   S->nbody)                    \
    X(int,    body_tetnum,   S->nbody)                    \
    X(int,    body_triadr,   S->nbody)                    \
    X(int,    body_trinum,   S->nbody)                    \
    X(int,    body_edgeadr,  S->nbody)                    \
    X(int,    body_edgenum,  S->nbody)                    \
    X(int,    body_nameadr,  S->nbody)                    \
    X(int,    body_rigid,    S->nbody)                    \
    X(int,    rigid_body,    S->nrigid)                   \
    X(double, rigid_mass,    S->nrigid)                   \
    X(double, rigid_inertia, S->nrigid * 3)               \
    X(double, rigid_pose0,   S->nrigid * 6)               \
    X(double, rigid_vel0,    S->nrigid * 6)               \
    X(double, vert_local,    S->nvert * 3)                \
    X(int,    mat_model,     S->nmat)                     \
    X(double, mat_density,   S->nmat)                     \
    X(double, mat_young,     S->nmat)                     \
    X(double, mat_poisson,   S->nmat)                     \
    X(double, mat_lame,      S->nmat * 2)                 \
    X(double, mat_friction,  S->nmat * S->nmat)              \
    X(int,    mat_nameadr,   S->nmat)                     \
    X(int,    driver_type,   S->ndriver)                  \
    X(double, driver_param,  S->ndriver * ALC_DRIVER_NPARAM) \
    X(int,    driver_keyadr, S->ndriver)                  \
    X(int,    driver_keynum, S->ndriver)                  \
    X(double, key_data,      S->nkey * 8)                 \
    X(int,    driver_nameadr, S->ndriver)                 \
    X(char,   names,         S->nname)

#define ALC_DATA_ARRAYS(X)                             \
    X(double, x,               S->nvert * 3)              \
    X(double, v,               S->nvert * 3)              \
    X(double, rigid_pose,      S->nrigid * 6)             \
    X(double, rigid_posePrev,  S->nrigid * 6)             \
    X(double, kin_target,      S->nvert * 3)              \
    X(int,    driver_external, S->ndriver)                \
    X(int,    driver_released, S->ndriver)                \
    X(double, body_force,      S->nbody * 3)
// clang-format on

// driver_param layout (ALC_DRIVER_NPARAM doubles per driver)
enum {
    ALC_DP_VEL = 0,        // velocity xyz
    ALC_DP_CENTER = 3,     // rotation centre xyz
    ALC_DP_AXIS = 6,       // unit axis xyz
    ALC_DP_OMEGA = 9,      // angular speed (rad/s)
    ALC_DP_START = 10,     // start time (s)
    ALC_DP_END = 11,       // end time (s)
    ALC_DP_RELEASE = 12,   // release time (s)
    ALC_DP_CENTROID = 13,  // initial centroid of the driver's vertices xyz (13..15)
    ALC_DP_RELPAST = 16    // release plane: direction xyz, offset (16..19); zero direction: none
};

#endif  // ALC_HOST_MODEL_XMACRO_H_
