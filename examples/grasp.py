"""The gripper of examples/grasp.c from Python: two kinematic fingers commanded by velocity
close on a soft cube (examples/grasp.yaml), lift it 10 cm and hold it; prints the grip force
of each finger, the cube's height and its slip, and "held" or "dropped".

    PYTHONPATH=python python3 examples/grasp.py [friction] [seconds]

(after `make`; the package finds build/libalcove.so, or the library named by ALCOVE_LIBRARY).
"""
import os
import sys

import numpy as np

import alcove

mu = float(sys.argv[1]) if len(sys.argv) > 1 else 0.5
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
here = os.path.dirname(os.path.abspath(__file__))
model = alcove.Model(os.path.join(here, "grasp.yaml"), params={"mu": mu})
sim = alcove.Sim(model)
h, gap, depth, side = model.timestep, 0.004, 0.0005, 0.05
cube, left, right = model.body("cube"), model.body("left finger"), model.body("right finger")
dl, dr = model.driver("left finger-motion"), model.driver("right finger-motion")
cv, lv = model.body_vertices(cube), model.body_vertices(left)
print("grasp: %d vertices, friction %.2f, backend %s" % (model.nvert, mu, sim.backend))
print("%6s %10s %10s %11s %9s" % ("t (s)", "grip L (N)", "grip R (N)", "height (mm)",
                                  "slip (mm)"))
squeeze, lifted, phase, slip0 = 0.0, 0.0, 0, 0.0
for k in range(int(round(seconds / h))):
    vx = vy = 0.0
    if phase == 0:  # close at 2 cm/s until pressed in by `depth`
        vx = 0.02
        squeeze += vx * h
        if squeeze >= gap + depth:
            phase = 1
    elif phase == 1 and k * h > 0.5:  # settle, then lift
        phase = 2
        slip0 = sim.x[cv, 1].mean() - sim.x[lv, 1].mean()
    if phase == 2:  # lift at 5 cm/s for 10 cm, then hold
        vy = 0.05
        lifted += vy * h
        if lifted >= 0.1:
            phase = 3
    sim.set_driver_velocity(dl, [vx, vy, 0])
    sim.set_driver_velocity(dr, [-vx, vy, 0])
    sim.step()
    if (k + 1) % 10 == 0:
        fl = sim.body_pair_force(left, cube)
        fr = sim.body_pair_force(right, cube)
        height = sim.x[cv, 1].mean() - side / 2
        slip = (sim.x[cv, 1].mean() - sim.x[lv, 1].mean()) - slip0 if phase >= 2 else 0.0
        print("%6.2f %10.3f %10.3f %11.2f %9.2f" % (sim.time, abs(fl[0]), abs(fr[0]),
                                                   1000 * height, 1000 * slip))
height = sim.x[cv, 1].mean() - side / 2
held = phase >= 2 and height > 0.5 * lifted
print("%s: cube %.1f mm above its start after lifting the fingers %.1f mm"
      % ("held" if held else "dropped", 1000 * height, 1000 * lifted))
sys.exit(0 if held else 2)
