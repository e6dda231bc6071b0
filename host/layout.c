// The layout of the public structs, exported for bindings (python/alcove): a binding reads the
// fields it needs at the offsets the library reports instead of mirroring the structs by hand,
// and refuses a library whose layout version differs from the one it was written for.
#include "alc_internal.h"

#include <stddef.h>
#include <string.h>

typedef struct {
    const char* type;
    const char* field;
    size_t offset;
    size_t size;
} Field;

#define F(T, f) \
    { #T, #f, offsetof(T, f), sizeof(((T*)0)->f) }

// the fields a binding reads; every public struct a binding sees whole is listed with its size
// under the field name "" (the struct itself)
static const Field kFields[] = {
    {"alcModel", "", 0, sizeof(alcModel)},
    F(alcModel, nvert),
    F(alcModel, ntet),
    F(alcModel, ntri),
    F(alcModel, nbody),
    F(alcModel, nmat),
    F(alcModel, ndriver),
    F(alcModel, nrigid),
    F(alcModel, vert_body),
    F(alcModel, vert_driver),
    F(alcModel, tri_vert),
    F(alcModel, tri_body),
    F(alcModel, body_type),
    F(alcModel, body_vertadr),
    F(alcModel, body_vertnum),
    F(alcModel, mat_friction),
    F(alcModel, opt),
    {"alcOption", "", 0, sizeof(alcOption)},
    F(alcOption, timestep),
    {"alcData", "", 0, sizeof(alcData)},
    F(alcData, nvert),
    F(alcData, nbody),
    F(alcData, ndriver),
    F(alcData, time),
    F(alcData, step),
    F(alcData, x),
    F(alcData, v),
    F(alcData, rigid_pose),
    F(alcData, rigid_posePrev),
    F(alcData, kin_target),
    F(alcData, driver_external),
    F(alcData, driver_released),
    F(alcData, body_force),
    F(alcData, stat),
    F(alcData, run),
    {"alcStepStat", "", 0, sizeof(alcStepStat)},
    F(alcStepStat, outer),
    F(alcStepStat, newton),
    F(alcStepStat, cgTotal),
    F(alcStepStat, contactsMax),
    F(alcStepStat, capped),
    F(alcStepStat, energyGain),
    F(alcStepStat, penetration),
    {"alcRunStat", "", 0, sizeof(alcRunStat)},
    F(alcRunStat, steps),
    F(alcRunStat, newton),
    F(alcRunStat, cgTotal),
    F(alcRunStat, capped),
    {"alcContact", "", 0, sizeof(alcContact)},
    F(alcContact, type),
    F(alcContact, vert),
    F(alcContact, body),
    F(alcContact, distance),
    F(alcContact, normal),
    F(alcContact, normalForce),
    F(alcContact, frictionForce),
    F(alcContact, lambda),
    F(alcContact, gamma),
    F(alcContact, weight),
    F(alcContact, point),
    {"alcSimDef", "", 0, sizeof(alcSimDef)},
    F(alcSimDef, backend),
    F(alcSimDef, threads),
    {"alcLoadDef", "", 0, sizeof(alcLoadDef)},
    F(alcLoadDef, preset),
    F(alcLoadDef, nparam),
    F(alcLoadDef, paramName),
    F(alcLoadDef, paramValue),
};

#undef F

long alcu_layout(const char* type, const char* field, size_t* size) {
    if (!type) return -1;
    if (!field) field = "";
    for (size_t i = 0; i < sizeof kFields / sizeof kFields[0]; i++) {
        if (!strcmp(kFields[i].type, type) && !strcmp(kFields[i].field, field)) {
            if (size) *size = kFields[i].size;
            return (long)kFields[i].offset;
        }
    }
    return -1;
}
