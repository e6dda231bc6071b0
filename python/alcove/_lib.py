"""Loading libalcove.so and checking its layout (the binding mirrors no struct by hand).

The library is found at $ALCOVE_LIBRARY, else at build/libalcove.so of the repository this
package sits in (so that ``PYTHONPATH=python python3 -c 'import alcove'`` works after ``make``),
else where the dynamic linker finds ``libalcove.so`` (an installed library). Every field the
binding reads is located with ``alcu_layout`` (host/layout.c): its offset and size come from
the library itself, and a library that lacks one, or gives it another size, is refused.
"""

import ctypes
import ctypes.util
import os

# (type, field) -> the size the binding reads it with; "" is the struct itself (any size)
_FIELDS = {
    "alcModel": {"": None, "nvert": 4, "ntet": 4, "ntri": 4, "nbody": 4, "nmat": 4,
                 "ndriver": 4, "nrigid": 4, "vert_body": 8, "body_type": 8, "body_vertadr": 8,
                 "body_vertnum": 8, "mat_friction": 8, "opt": None},
    "alcOption": {"": None, "timestep": 8},
    "alcData": {"": None, "nvert": 4, "nbody": 4, "ndriver": 4, "time": 8, "step": 8, "x": 8,
                "v": 8, "rigid_pose": 8, "rigid_posePrev": 8, "kin_target": 8,
                "driver_external": 8, "driver_released": 8,
                "body_force": 8, "stat": None, "run": None},
    "alcStepStat": {"": None, "outer": 4, "newton": 4, "cgTotal": 4, "contactsMax": 4,
                    "capped": 4, "energyGain": 8, "penetration": 8},
    "alcRunStat": {"": None, "steps": 8, "newton": 8, "cgTotal": 8, "capped": 8},
    "alcContact": {"": None, "type": 4, "vert": 16, "body": 8, "distance": 8, "normal": 24,
                   "normalForce": 8, "frictionForce": 24, "lambda": 8, "gamma": 8,
                   "weight": 32, "point": 48},
    "alcSimDef": {"": None, "backend": 4, "threads": 4},
    "alcLoadDef": {"": None, "preset": 8, "nparam": 4, "paramName": 8, "paramValue": 8},
}


class Error(RuntimeError):
    """A failed alcove call: .status is the status name (e.g. "ALC_ERR_SCENE")."""

    def __init__(self, status, message):
        super().__init__("%s: %s" % (status, message))
        self.status = status
        self.message = message


def _find():
    env = os.environ.get("ALCOVE_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.join(here, "..", "..", "build", "libalcove.so")
    if os.path.exists(repo):
        return os.path.normpath(repo)
    found = ctypes.util.find_library("alcove")
    if found:
        return found
    raise Error("ALC_ERR_IO", "libalcove.so not found: build it (make), set ALCOVE_LIBRARY "
                "to its path, or install it (make install)")


def _declare(lib):
    c = ctypes
    P = c.c_void_p
    sig = {
        "alcu_version": (c.c_int, []),
        "alcu_versionString": (c.c_char_p, []),
        "alcu_statusString": (c.c_char_p, [c.c_int]),
        "alcu_layout": (c.c_long, [c.c_char_p, c.c_char_p, c.POINTER(c.c_size_t)]),
        "alc_loadScene": (c.c_int, [c.c_char_p, P, c.POINTER(P), c.c_char_p, c.c_int]),
        "alc_deleteModel": (None, [P]),
        "alc_bodyName": (c.c_char_p, [P, c.c_int]),
        "alc_bodyIndex": (c.c_int, [P, c.c_char_p]),
        "alc_driverIndex": (c.c_int, [P, c.c_char_p]),
        "alc_sceneName": (c.c_char_p, [P]),
        "alc_makeData": (c.c_int, [P, c.POINTER(P)]),
        "alc_deleteData": (None, [P]),
        "alc_resetData": (None, [P, P]),
        "alc_makeSim": (c.c_int, [P, P, c.POINTER(P)]),
        "alc_deleteSim": (None, [P]),
        "alc_simBackendName": (c.c_char_p, [P]),
        "alc_simDeviceName": (c.c_char_p, [P]),
        "alc_lastError": (c.c_char_p, [P]),
        "alc_step": (c.c_int, [P, P]),
        "alc_resetContacts": (None, [P]),
        "alc_getContacts": (c.c_int, [P, c.POINTER(P), c.POINTER(c.c_int)]),
        "alc_bodyPairForce": (c.c_int, [P, c.c_int, c.c_int, c.POINTER(c.c_double)]),
        "alc_setDriverPose": (c.c_int, [P, P, c.c_int, c.POINTER(c.c_double),
                                        c.POINTER(c.c_double)]),
        "alc_setDriverVelocity": (c.c_int, [P, P, c.c_int, c.POINTER(c.c_double),
                                            c.POINTER(c.c_double), c.c_double]),
        "alc_setDriverPoseAt": (c.c_int, [P, P, c.c_int, c.POINTER(c.c_double),
                                          c.POINTER(c.c_double), c.c_double]),
        "alc_checkpointSize": (c.c_int, [P, P, c.POINTER(c.c_size_t)]),
        "alc_saveCheckpoint": (c.c_int, [P, P, c.c_void_p, c.c_size_t,
                                         c.POINTER(c.c_size_t)]),
        "alc_loadCheckpoint": (c.c_int, [P, P, c.c_void_p, c.c_size_t]),
        "alc_saveCheckpointFile": (c.c_int, [P, P, c.c_char_p]),
        "alc_loadCheckpointFile": (c.c_int, [P, P, c.c_char_p]),
    }
    for name, (res, args) in sig.items():
        try:
            f = getattr(lib, name)
        except AttributeError:
            raise Error("ALC_ERR_VERSION", "%s lacks %s: not an alcove library of this package's "
                        "version" % (lib._name, name)) from None
        f.restype = res
        f.argtypes = args


def _layout(lib):
    """{type: {field: (offset, size)}} from the library, checked against _FIELDS."""
    out = {}
    for typ, fields in _FIELDS.items():
        out[typ] = {}
        for field, want in fields.items():
            size = ctypes.c_size_t(0)
            off = lib.alcu_layout(typ.encode(), field.encode(), ctypes.byref(size))
            if off < 0 or (want is not None and size.value != want):
                raise Error("ALC_ERR_VERSION",
                            "%s: %s.%s is %s in this library; the package reads %s bytes: "
                            "rebuild the library and the package together"
                            % (lib._name, typ, field or "(size)",
                               "missing" if off < 0 else "%d bytes" % size.value, want))
            out[typ][field] = (off, size.value)
    return out


def load():
    path = _find()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise Error("ALC_ERR_IO", "cannot load %s: %s" % (path, e)) from None
    _declare(lib)
    return lib, _layout(lib), path
