"""Tests of the Python package (issue 19, item 7), run by tests/test_python.c under
/usr/bin/python3 with ALCOVE_LIBRARY and PYTHONPATH set; exits nonzero on a failure."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import alcove

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def scene(name):
    return os.path.join(ROOT, "scenes", name)


class Package(unittest.TestCase):
    def test_loadStepAndViews(self):
        m = alcove.Model(scene("slope.yaml"), params={"mu": 0.3})
        self.assertEqual(m.name, "slope")
        self.assertEqual(m.timestep, 0.01)
        s = alcove.Sim(m, backend="ref", threads=1)
        self.assertEqual(s.x.shape, (m.nvert, 3))
        self.assertEqual((s.backend, s.device), ("ref", ""))
        s.step(20)
        self.assertEqual(s.steps, 20)
        self.assertAlmostEqual(s.time, 0.2, places=12)
        st = s.stats()
        self.assertGreater(st["newton"], 0)
        self.assertEqual(st["capped"], 0)
        self.assertEqual(st["penetration"], 0.0)  # the AL model: penetration-free
        # the views are the library's memory: a velocity written here is what the next step
        # starts from (the cube thrown up the slope's normal moves further than without it)
        cube = m.body_vertices(m.body("cube"))
        blob = s.save()
        s.step(1)
        plain = s.x[cube].mean(axis=0).copy()
        s.restore(blob)
        s.v[cube] += np.array([0.0, 1.0, 0.0])
        s.step(1)
        thrown = s.x[cube].mean(axis=0)
        self.assertGreater(thrown[1] - plain[1], 0.005)

    def test_rigidPose(self):
        # a rigid body's pose is a view too: its centre of mass follows implicit Euler's free
        # flight, and the model counts it
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "rigid.yaml")
            with open(path, "w") as f:
                f.write("physics: {time_step: 0.01, gravity: [0, -9.81, 0]}\n"
                        "solver: {contact: none}\n"
                        "bodies:\n"
                        "  - {name: brick, type: rigid, mesh: {box: {size: 0.1, cells: 1}},"
                        " velocity: [1, 2, 0]}\n")
            m = alcove.Model(path)
            self.assertEqual(m.nrigid, 1)
            s = alcove.Sim(m, backend="ref", threads=1)
            self.assertEqual(s.rigid_pose.shape, (1, 6))
            q0 = s.rigid_pose[0, 3:].copy()
            s.step(10)
            n, h = 10, 0.01
            want = q0 + n * h * np.array([1.0, 2.0, 0.0]) + h * h * np.array(
                [0.0, -9.81, 0.0]) * n * (n + 1) / 2
            self.assertLess(np.abs(s.rigid_pose[0, 3:] - want).max(), 1e-12)
            self.assertLess(np.abs((s.rigid_pose[0, 3:] - s.rigid_pose_prev[0, 3:]) / h
                                   - (np.array([1.0, 2.0, 0.0]) + n * h * np.array(
                                       [0.0, -9.81, 0.0]))).max(), 1e-9)

    def test_contactsAndForces(self):
        m = alcove.Model(scene("slope.yaml"))
        s = alcove.Sim(m, backend="ref", threads=1)
        s.step(30)
        c = s.contacts()
        self.assertGreater(len(c), 0)
        self.assertTrue(np.all(c["normal_force"] >= 0))
        np.testing.assert_allclose(np.linalg.norm(c["normal"], axis=1), 1, rtol=1e-9)
        self.assertTrue(set(c["type"]) <= {0, 1})
        # the slope carries the cube's weight: the pair force balances gravity on the cube
        cube, slope = m.body("cube"), m.body("slope")
        f = s.body_pair_force(cube, slope)
        mass = 1000 * 0.1 ** 3
        self.assertAlmostEqual(np.linalg.norm(f), mass * 9.81, delta=0.05 * mass * 9.81)
        np.testing.assert_allclose(s.body_force[cube], f, rtol=1e-9, atol=1e-12)

    def test_checkpointsBitExact(self):
        m = alcove.Model(scene("box_stack.yaml"))
        s = alcove.Sim(m, backend="ref", threads=1)
        s.step(15)
        blob = s.save()
        s.step(5)
        end = s.x.copy()
        s.restore(blob)
        self.assertEqual(s.steps, 15)
        s.step(5)
        self.assertTrue(np.array_equal(end, s.x))
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "c.alck")
            s.save_file(p)
            s.step(2)
            s.load_file(p)
            self.assertEqual(s.steps, 20)
        with self.assertRaises(alcove.Error) as e:
            s.restore(b"not a checkpoint" * 4)
        self.assertEqual(e.exception.status, "ALC_ERR_IO")

    def test_driverPoseAt(self):
        m = alcove.Model(os.path.join(ROOT, "examples", "grasp.yaml"))
        s = alcove.Sim(m, backend="ref", threads=1)
        f = m.body_vertices(m.body("left finger"))
        d = m.driver("left finger-motion")
        start = s.x[f].mean(axis=0).copy()
        for _ in range(10):  # 2 mm towards the cube, arriving at t = 0.1 s
            s.set_driver_pose_at(d, [0.002, 0, 0], None, 0.1)
            s.step()
        np.testing.assert_allclose(s.x[f].mean(axis=0) - start, [0.002, 0, 0], atol=1e-6)

    def test_errors(self):
        with self.assertRaises(alcove.Error) as e:
            alcove.Model(scene("slope.yaml"), params={"nosuch": 1})
        self.assertIn("nosuch", str(e.exception))
        with self.assertRaises(alcove.Error):
            alcove.Model(scene("none.yaml"))
        m = alcove.Model(scene("slope.yaml"))
        with self.assertRaises(alcove.Error):
            m.body("nobody")

    def test_refusesAnotherLibrary(self):
        # the package checks the library it loads: libz is not alcove
        env = dict(os.environ, ALCOVE_LIBRARY="libz.so.1")
        r = subprocess.run([sys.executable, "-c", "import alcove"], env=env,
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not an alcove library", r.stderr)

    def test_pipInstall(self):
        # `pip install ./python` (offline, from a copy: setuptools builds in the source tree)
        r = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
        if r.returncode != 0:
            self.skipTest("pip is not installed for %s" % sys.executable)
        with tempfile.TemporaryDirectory() as d:
            src, dst = os.path.join(d, "src"), os.path.join(d, "site")
            shutil.copytree(os.path.join(ROOT, "python"), src,
                            ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
            r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                                "--no-build-isolation", "--no-index", "--target", dst, src],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            env = dict(os.environ, PYTHONPATH=dst)
            r = subprocess.run([sys.executable, "-c", "import alcove; print(alcove.__file__)"],
                               env=env, capture_output=True, text=True, cwd=d)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith(dst), r.stdout)

    def test_graspExample(self):
        ex = os.path.join(ROOT, "examples", "grasp.py")
        held = subprocess.run([sys.executable, ex, "0.5", "1.6"], capture_output=True, text=True)
        self.assertEqual(held.returncode, 0, held.stdout + held.stderr)
        self.assertRegex(held.stdout, r"held: cube 5\d\.\d mm above")
        slip = subprocess.run([sys.executable, ex, "0.03", "1.6"], capture_output=True,
                              text=True)
        self.assertEqual(slip.returncode, 2, slip.stdout + slip.stderr)
        print(held.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    unittest.main(verbosity=2)
