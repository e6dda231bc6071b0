"""alcove: penetration-free, inversion-free elastodynamics with frictional contact.

A thin binding of libalcove (include/alc/alc.h) with numpy: load a scene, step it, read and
write the state through numpy views of the library's own arrays (no copies), command drivers,
read contacts and forces, save and restore checkpoints.

    import alcove
    m = alcove.Model("scenes/slope.yaml", params={"mu": 0.3})
    sim = alcove.Sim(m, backend="ref")
    sim.step(100)
    print(sim.time, sim.x.mean(axis=0), len(sim.contacts()))

Units are SI (m, s, kg, N). Errors raise alcove.Error with the library's status and message.
"""

import ctypes

import numpy as np

from ._lib import Error, load as _load

__all__ = ["Error", "Model", "Sim", "library_path", "version"]

_lib, _layout, library_path = _load()
_P = ctypes.c_void_p
_BACKENDS = {"auto": 0, "ref": 1, "cuda": 2}  # alctBackend


def version():
    """The library's version string, e.g. "0.12.0"."""
    return _lib.alcu_versionString().decode()


def _status(st):
    return _lib.alcu_statusString(st).decode()


def _field(obj, typ, field):
    off, _ = _layout[typ][field]
    return obj + off


def _int(addr):
    return ctypes.c_int.from_address(addr).value


def _ptr(addr):
    return ctypes.c_void_p.from_address(addr).value


def _view(ptr, shape, ctype, owner):
    """A writable numpy view of library memory; the view keeps owner (the _Handles that free
    the memory) alive."""
    n = int(np.prod(shape))
    if n == 0 or not ptr:
        return np.zeros(shape, dtype=ctype)
    buf = (np.ctypeslib.as_ctypes_type(np.dtype(ctype)) * n).from_address(ptr)
    buf._owner = owner
    return np.frombuffer(buf, dtype=ctype).reshape(shape)


class Model:
    """A compiled scene: meshes, materials, drivers, options. Read-only.

    Model(path, preset=None, params=None) loads a YAML scene (docs/scene-format.md) with an
    optional preset and parameter overrides {name: value}.
    """

    def __init__(self, path, preset=None, params=None):
        params = dict(params or {})
        size = ctypes.c_size_t(0)
        _lib.alcu_layout(b"alcLoadDef", b"", ctypes.byref(size))
        # the def: the library's defaults (stamped as its own), then our fields by offset
        ld = (ctypes.c_char * size.value)()
        self._names = [ctypes.c_char_p(k.encode()) for k in params]
        self._keep = [(ctypes.c_char_p * max(1, len(params)))(*self._names),
                      (ctypes.c_double * max(1, len(params)))(*[float(v) for v in
                                                                 params.values()])]
        self._preset = ctypes.c_char_p(preset.encode()) if preset else None
        _default_blob("alc_defaultLoadDef", ld)
        base = ctypes.addressof(ld)
        _set_ptr(base, "alcLoadDef", "preset", self._preset)
        ctypes.c_int.from_address(_field(base, "alcLoadDef", "nparam")).value = len(params)
        _set_ptr(base, "alcLoadDef", "paramName", self._keep[0] if params else None)
        _set_ptr(base, "alcLoadDef", "paramValue", self._keep[1] if params else None)
        m = _P()
        err = ctypes.create_string_buffer(2048)
        st = _lib.alc_loadScene(str(path).encode(), ctypes.addressof(ld), ctypes.byref(m), err,
                                len(err))
        if st != 0:
            raise Error(_status(st), err.value.decode(errors="replace"))
        self._m = m.value
        self.path = str(path)

    def __del__(self):
        if getattr(self, "_m", None):
            _lib.alc_deleteModel(self._m)
            self._m = None

    def _get(self, field):
        return _int(_field(self._m, "alcModel", field))

    @property
    def name(self):
        return _lib.alc_sceneName(self._m).decode()

    @property
    def timestep(self):
        """The time step h (s)."""
        opt = _field(self._m, "alcModel", "opt")
        return ctypes.c_double.from_address(opt + _layout["alcOption"]["timestep"][0]).value

    nvert = property(lambda self: self._get("nvert"), doc="vertices")
    ntet = property(lambda self: self._get("ntet"), doc="tetrahedra")
    nbody = property(lambda self: self._get("nbody"), doc="bodies (solids and obstacles)")
    ndriver = property(lambda self: self._get("ndriver"), doc="drivers")
    nrigid = property(lambda self: self._get("nrigid"), doc="rigid bodies")

    def body(self, name):
        """Index of the body named name (Error when there is none)."""
        i = _lib.alc_bodyIndex(self._m, name.encode())
        if i < 0:
            raise Error("ALC_ERR_INVALID_ARG", "no body named %r" % name)
        return i

    def driver(self, name):
        """Index of the driver named name (a scene body's `motion` is named "BODY-motion")."""
        i = _lib.alc_driverIndex(self._m, name.encode())
        if i < 0:
            raise Error("ALC_ERR_INVALID_ARG", "no driver named %r" % name)
        return i

    def body_name(self, b):
        return _lib.alc_bodyName(self._m, b).decode()

    def body_vertices(self, b):
        """The slice of vertex indices of body b (its vertices are contiguous)."""
        adr = np.ctypeslib.as_array(ctypes.cast(_ptr(_field(self._m, "alcModel", "body_vertadr")),
                                                ctypes.POINTER(ctypes.c_int)), (self.nbody,))
        num = np.ctypeslib.as_array(ctypes.cast(_ptr(_field(self._m, "alcModel", "body_vertnum")),
                                                ctypes.POINTER(ctypes.c_int)), (self.nbody,))
        return slice(int(adr[b]), int(adr[b] + num[b]))


def _set_ptr(base, typ, field, value):
    addr = _field(base, typ, field)
    if value is None:
        ctypes.c_void_p.from_address(addr).value = None
    else:
        ctypes.c_void_p.from_address(addr).value = ctypes.cast(value, ctypes.c_void_p).value


def _default_blob(fn_name, buf):
    """Call alc_default*Def, which returns the struct by value, into buf (its exact size). A
    struct of more than 16 bytes is returned through memory the caller provides on x86-64 and
    AArch64 alike, whatever its fields, so a blob of the same size receives it exactly."""
    if len(buf) <= 16:
        raise Error("ALC_ERR_VERSION", "%s returns a struct of %d bytes: the binding needs one "
                    "larger than 16" % (fn_name, len(buf)))
    class Blob(ctypes.Structure):
        _fields_ = [("b", ctypes.c_char * len(buf))]
    f = getattr(_lib, fn_name)
    f.restype = Blob
    f.argtypes = []
    ctypes.memmove(buf, ctypes.byref(f()), len(buf))


def _contact_dtype():
    off = _layout["alcContact"]
    f = [("type", np.int32, off["type"][0]), ("vert", (np.int32, 4), off["vert"][0]),
         ("body", (np.int32, 2), off["body"][0]), ("distance", np.float64, off["distance"][0]),
         ("normal", (np.float64, 3), off["normal"][0]),
         ("normal_force", np.float64, off["normalForce"][0]),
         ("friction_force", (np.float64, 3), off["frictionForce"][0]),
         ("lambda", np.float64, off["lambda"][0]), ("gamma", np.float64, off["gamma"][0]),
         ("weight", (np.float64, 4), off["weight"][0]),
         ("point", (np.float64, (2, 3)), off["point"][0])]
    return np.dtype({"names": [a for a, _, _ in f], "formats": [b for _, b, _ in f],
                     "offsets": [c for _, _, c in f], "itemsize": off[""][1]})


CONTACT_DTYPE = _contact_dtype()
"""numpy dtype of Sim.contacts(): the fields of alcContact (include/alc/alc_types.h)."""


class _Handles:
    """The library objects of a Sim (its data and simulator), freed when the last reference
    goes: the Sim's or a numpy view's. Holds the Model, which must outlive them; it references
    no view, so no reference cycle delays or reorders the frees."""

    def __init__(self, model):
        self.model = model
        self.d = None
        self.s = None

    def __del__(self):
        if self.s:
            _lib.alc_deleteSim(self.s)
            self.s = None
        if self.d:
            _lib.alc_deleteData(self.d)
            self.d = None


class Sim:
    """A simulation of a model: its data (state) and a simulator on a backend.

    Sim(model, backend="auto"|"ref"|"cuda", threads=0). The arrays x, v, kin_target,
    body_force and driver_external are numpy views of the library's memory: writing them
    writes the state (call reset_contacts() after moving vertices by hand). They stay valid
    as long as they are referenced, also after the Sim itself is gone.
    """

    def __init__(self, model, backend="auto", threads=0):
        if backend not in _BACKENDS:
            raise Error("ALC_ERR_INVALID_ARG", "backend must be auto, ref or cuda")
        self.model = model
        h = _Handles(model)
        d = _P()
        st = _lib.alc_makeData(model._m, ctypes.byref(d))
        if st != 0:
            raise Error(_status(st), "cannot make the data")
        h.d = d.value
        size = ctypes.c_size_t(0)
        _lib.alcu_layout(b"alcSimDef", b"", ctypes.byref(size))
        sd = (ctypes.c_char * size.value)()
        _default_blob("alc_defaultSimDef", sd)
        base = ctypes.addressof(sd)
        ctypes.c_int.from_address(_field(base, "alcSimDef", "backend")).value = _BACKENDS[backend]
        ctypes.c_int.from_address(_field(base, "alcSimDef", "threads")).value = int(threads)
        s = _P()
        st = _lib.alc_makeSim(model._m, base, ctypes.byref(s))
        h.s = s.value  # freed by the handle also when making it failed
        if st != 0:
            raise Error(_status(st), _lib.alc_lastError(s.value).decode() if s.value else "")
        self._h = h
        self._s, self._d = h.s, h.d
        nv, nb, nd = model.nvert, model.nbody, model.ndriver
        arr = lambda f, shape, t: _view(_ptr(_field(self._d, "alcData", f)), shape, t, h)
        self.x = arr("x", (nv, 3), np.float64)
        self.v = arr("v", (nv, 3), np.float64)
        self.kin_target = arr("kin_target", (nv, 3), np.float64)
        self.body_force = arr("body_force", (nb, 3), np.float64)
        self.driver_external = arr("driver_external", (nd,), np.int32)
        # rigid bodies: the pose (rotation vector theta in rad, centre of mass q in m) at the
        # current step and one step earlier
        nr = model.nrigid
        self.rigid_pose = arr("rigid_pose", (nr, 6), np.float64)
        self.rigid_pose_prev = arr("rigid_posePrev", (nr, 6), np.float64)

    def _check(self, st, what):
        if st != 0:
            raise Error(_status(st), "%s: %s" % (what, _lib.alc_lastError(self._s).decode()))

    @property
    def backend(self):
        """"ref", "cuda" or "cuda-emulated"."""
        return _lib.alc_simBackendName(self._s).decode()

    @property
    def device(self):
        """The GPU the sim runs on ("NVIDIA H100 80GB HBM3, sm_90, 79.1 GiB"); "" on "ref"."""
        return _lib.alc_simDeviceName(self._s).decode()

    @property
    def time(self):
        """Simulated time (s)."""
        return ctypes.c_double.from_address(_field(self._d, "alcData", "time")).value

    @property
    def steps(self):
        """Steps taken."""
        return ctypes.c_long.from_address(_field(self._d, "alcData", "step")).value

    def stats(self):
        """The last step's statistics: outer and Newton iterations, CG iterations, most active
        contact pairs, whether it hit the iteration cap, energy gained beyond its allowance, and
        the deepest penetration at its end (m; the penalty-ds model only, 0 under the others)."""
        base = _field(self._d, "alcData", "stat")
        g = lambda f, t=ctypes.c_int: t.from_address(base + _layout["alcStepStat"][f][0]).value
        return {"outer": g("outer"), "newton": g("newton"), "cg": g("cgTotal"),
                "contacts": g("contactsMax"), "capped": g("capped"),
                "energy_gain": g("energyGain", ctypes.c_double),
                "penetration": g("penetration", ctypes.c_double)}

    def step(self, n=1):
        """Advance n time steps (alc_step)."""
        for _ in range(int(n)):
            self._check(_lib.alc_step(self._s, self._d), "step %d" % (self.steps + 1))

    def reset(self):
        """Back to the model's initial state, contacts forgotten (an episode reset)."""
        _lib.alc_resetData(self.model._m, self._d)
        _lib.alc_resetContacts(self._s)

    def reset_contacts(self):
        """Forget the contact warm start (after writing x by hand)."""
        _lib.alc_resetContacts(self._s)

    def contacts(self):
        """The active contact pairs of the last step as a numpy structured array (a copy) of
        CONTACT_DTYPE: type (0 point-triangle, 1 edge-edge), vert, body, distance, normal
        (from side 1 to side 0), normal_force (N), friction_force (N, on side 0), lambda,
        gamma, weight (barycentric), point (the contact point on each side, m)."""
        p, n = _P(), ctypes.c_int(0)
        self._check(_lib.alc_getContacts(self._s, ctypes.byref(p), ctypes.byref(n)), "contacts")
        if n.value == 0:
            return np.zeros(0, dtype=CONTACT_DTYPE)
        raw = (ctypes.c_char * (n.value * CONTACT_DTYPE.itemsize)).from_address(p.value)
        return np.frombuffer(bytes(raw), dtype=CONTACT_DTYPE).copy()

    def body_pair_force(self, a, b):
        """Total contact force (N) that body b exerts on body a in the last step."""
        f = (ctypes.c_double * 3)()
        self._check(_lib.alc_bodyPairForce(self._s, int(a), int(b), f), "body_pair_force")
        return np.array(f[:])

    def set_driver_velocity(self, driver, velocity, omega=None, dt=None):
        """Drive a driver for the next step by a twist: velocity (m/s), omega (rad/s) about its
        targets' centroid; dt defaults to the model's time step."""
        h = dt if dt is not None else self._timestep()
        v = (ctypes.c_double * 3)(*map(float, velocity))
        w = (ctypes.c_double * 3)(*map(float, omega)) if omega is not None else None
        st = _lib.alc_setDriverVelocity(self.model._m, self._d, int(driver), v, w, float(h))
        if st != 0:
            raise Error(_status(st), "set_driver_velocity(%d)" % driver)

    def set_driver_pose(self, driver, translation, quat=None):
        """Pose of a driver at the end of the next step, relative to its initial pose:
        translation (m) and rotation quaternion (w, x, y, z)."""
        t = (ctypes.c_double * 3)(*map(float, translation))
        q = (ctypes.c_double * 4)(*map(float, quat)) if quat is not None else None
        st = _lib.alc_setDriverPose(self.model._m, self._d, int(driver), t, q)
        if st != 0:
            raise Error(_status(st), "set_driver_pose(%d)" % driver)

    def set_driver_pose_at(self, driver, translation, quat, time):
        """Arrive at a pose (relative to the initial one) at simulated time `time`: call before
        every step until then (alc_setDriverPoseAt)."""
        t = (ctypes.c_double * 3)(*map(float, translation))
        q = (ctypes.c_double * 4)(*map(float, quat)) if quat is not None else None
        st = _lib.alc_setDriverPoseAt(self.model._m, self._d, int(driver), t, q, float(time))
        if st != 0:
            raise Error(_status(st), "set_driver_pose_at(%d)" % driver)

    def _timestep(self):
        return self.model.timestep

    def save(self):
        """A checkpoint of everything a step carries to the next, as bytes (alc_saveCheckpoint):
        restore() of these bytes continues bit for bit."""
        n = ctypes.c_size_t(0)
        self._check(_lib.alc_checkpointSize(self._s, self._d, ctypes.byref(n)), "save")
        buf = ctypes.create_string_buffer(n.value)
        got = ctypes.c_size_t(0)
        self._check(_lib.alc_saveCheckpoint(self._s, self._d, buf, n.value, ctypes.byref(got)),
                    "save")
        return buf.raw[:got.value]

    def restore(self, data):
        """Restore a checkpoint made by save() (or read from a file written by save_file)."""
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        self._check(_lib.alc_loadCheckpoint(self._s, self._d, buf, len(data)), "restore")

    def save_file(self, path):
        self._check(_lib.alc_saveCheckpointFile(self._s, self._d, str(path).encode()),
                    "save_file")

    def load_file(self, path):
        self._check(_lib.alc_loadCheckpointFile(self._s, self._d, str(path).encode()),
                    "load_file")
