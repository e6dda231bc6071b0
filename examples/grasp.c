// A robotics user's first program: two kinematic box fingers close on a soft 5 cm cube lying
// on the ground, squeeze it, lift it 10 cm and hold it, driven by velocity commands as a
// controller would send them. Prints, every 0.1 s, the grip force each finger exerts, the
// cube's height and its slip against the fingers; ends with "held" or "dropped".
//
//   build/grasp [friction] [seconds] [squeeze] [kmin] [reuse] [rigid]
//       (defaults 0.5, 3 s, 0.5 mm, the solver's kmin, 0 and 0; built by `make`, run by the
//       tests)
//
// kmin is alcOption.kmin, the fewest outer iterations per step: 6 by default with friction (the
// AL paper's K_min); 2 and 1 hold the cube as well here in fewer Newton iterations. reuse = 1
// sets alcOption.hessianReuse: the elastic Hessian once per step instead of at every Newton
// iteration, about 30 % less solver time here for the same grip (reference backend only).
// `build/grasp 0.5 3 0.5 1 1` simulates its 3 s in under 3 s of one core's solver time
// (bench/results/amd-epyc-2c/grasp.md). rigid = 1 makes the fingers rigid
// bodies (ALC_BODY_RIGID, issue 17), each driven as one pose: six DOFs in place of a stiff
// elastic mesh.
//
// Only the public header: meshes from alc_meshBox / alc_meshPlane, the bodies through the spec
// API, the fingers commanded with alc_setDriverVelocity, forces from alc_bodyPairForce.
#include <alc/alc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/// Add a body of the given mesh (a solid of its tetrahedra, or an obstacle of its triangles)
/// placed at c, of material mat; returns its index or -1. The spec copies the arrays.
static int addBody(alcSpec* spec, const char* name, const alcMesh* mesh, int type,
                   const double c[3], int mat) {
    alcBodyDef bd = alc_defaultBodyDef();
    bd.name = name;
    bd.type = type;
    bd.material = mat;
    bd.nvert = mesh->nvert;
    bd.vert = mesh->vert;
    if (type != ALC_BODY_OBSTACLE) {
        bd.ntet = mesh->ntet;
        bd.tet = mesh->tet;
    } else {
        bd.ntri = mesh->ntri;
        bd.tri = mesh->tri;
    }
    for (int k = 0; k < 3; k++) bd.position[k] = c[k];
    int index = -1;
    return alc_specAddBody(spec, &bd, &index) == ALC_OK ? index : -1;
}

/// A box body (ALC_BODY_SOLID or ALC_BODY_RIGID) of the given size and cells centred at c; its
/// index or -1.
static int addBox(alcSpec* spec, const char* name, int type, const double size[3],
                  const int cells[3], const double c[3], int mat) {
    alcMesh* mesh = NULL;
    if (alc_meshBox(size, cells, &mesh) != ALC_OK) return -1;
    int index = addBody(spec, name, mesh, type, c, mat);
    alc_deleteMesh(mesh);
    return index;
}

/// Mean position of a body's vertices.
static void centre(const alcModel* m, const alcData* d, int b, double c[3]) {
    c[0] = c[1] = c[2] = 0;
    int a = m->body_vertadr[b], n = m->body_vertnum[b];
    for (int i = a; i < a + n; i++)
        for (int k = 0; k < 3; k++) c[k] += d->x[3 * i + k] / n;
}

int main(int argc, char** argv) {
    double mu = argc > 1 ? atof(argv[1]) : 0.5;
    double seconds = argc > 2 ? atof(argv[2]) : 3.0;
    double depth = (argc > 3 ? atof(argv[3]) : 0.5) * 1e-3;  // how far each finger presses in
    int kmin = argc > 4 ? atoi(argv[4]) : 0;                 // 0: the solver's default
    int reuse = argc > 5 ? atoi(argv[5]) : 0;                // 1: Hessian once per step
    int rigid = argc > 6 ? atoi(argv[6]) : 0;                // 1: rigid fingers
    const double h = 0.01, side = 0.05, gap = 0.004;         // cube edge, initial finger clearance

    alcSpec* spec = NULL;
    if (alc_makeSpec(&spec) != ALC_OK) return 1;
    alcOption* opt = alc_specOption(spec);
    opt->timestep = h;
    opt->delta = 1e-4;  // contact offset (m)
    opt->kmin = kmin;
    opt->hessianReuse = reuse != 0;
    alcMaterialDef soft = alc_defaultMaterialDef();
    soft.name = "soft";
    soft.young = 2e5;  // a soft rubber block
    soft.poisson = 0.4;
    alcMaterialDef hard = alc_defaultMaterialDef();
    hard.name = "finger";
    hard.young = 1e8;
    int mSoft = 0, mHard = 0;
    alc_specAddMaterial(spec, &soft, &mSoft);
    alc_specAddMaterial(spec, &hard, &mHard);
    alc_specSetFriction(spec, mSoft, mHard, mu);
    alc_specSetFriction(spec, mSoft, mSoft, mu);

    // the cube on the ground, the fingers on either side of it (x), the ground plane
    const double cube[3] = {side, side, side}, finger[3] = {0.01, 0.04, 0.06};
    const int cubeCells[3] = {6, 6, 6}, fingerCells[3] = {1, 2, 2};
    double c0[3] = {0, side / 2 + 1e-3, 0};
    double cl[3] = {-(side / 2 + gap + finger[0] / 2), side / 2, 0};
    double cr[3] = {side / 2 + gap + finger[0] / 2, side / 2, 0};
    int fingerType = rigid ? ALC_BODY_RIGID : ALC_BODY_SOLID;
    int bCube = addBox(spec, "cube", ALC_BODY_SOLID, cube, cubeCells, c0, mSoft);
    int bLeft = addBox(spec, "left finger", fingerType, finger, fingerCells, cl, mHard);
    int bRight = addBox(spec, "right finger", fingerType, finger, fingerCells, cr, mHard);
    alcMesh* ground = NULL;
    const double groundSize[2] = {0.4, 0.4}, origin[3] = {0, 0, 0};
    int bGround = alc_meshPlane(groundSize, 2, &ground) == ALC_OK
                      ? addBody(spec, "ground", ground, ALC_BODY_OBSTACLE, origin, mHard)
                      : -1;
    alc_deleteMesh(ground);
    // each finger is one kinematic driver commanded by velocity
    alcDriverDef dd = alc_defaultDriverDef();
    dd.type = ALC_DRIVER_EXTERNAL;
    int dLeft = -1, dRight = -1;
    alc_specAddDriver(spec, &dd, bLeft, 0, NULL, &dLeft);
    alc_specAddDriver(spec, &dd, bRight, 0, NULL, &dRight);

    alcModel* m = NULL;
    char err[1024];
    if (bCube < 0 || bLeft < 0 || bRight < 0 || bGround < 0 ||
        alc_compileSpec(spec, &m, err, sizeof err)) {
        fprintf(stderr, "grasp: building the scene failed: %s %s\n", alc_specError(spec), err);
        return 1;
    }
    alc_deleteSpec(spec);
    alcData* d = NULL;
    alcSim* sim = NULL;
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_AUTO;
    if (alc_makeData(m, &d) != ALC_OK || alc_makeSim(m, &def, &sim) != ALC_OK) {
        fprintf(stderr, "grasp: %s\n", sim ? alc_lastError(sim) : "out of memory");
        return 1;
    }
    printf("grasp: %d tetrahedra in the cube, friction %.2f, %s fingers, backend %s\n",
           m->body_tetnum[bCube], mu, rigid ? "rigid" : "elastic", alc_simBackendName(sim));
    printf("%6s %9s %9s %10s %9s\n", "t (s)", "grip L (N)", "grip R (N)", "height (mm)",
           "slip (mm)");

    // the controller: close at 2 cm/s until pressed in by `depth`, pause, lift at 5 cm/s for 2 s
    // (10 cm), hold
    double squeeze = 0, lifted = 0, slip0 = 0, cz[3], fz[3];
    int steps = (int)lround(seconds / h), phase = 0;
    for (int k = 0; k < steps; k++) {
        double vx = 0, vy = 0;
        if (phase == 0) {
            vx = 0.02;
            squeeze += vx * h;
            if (squeeze >= gap + depth) phase = 1;
        } else if (phase == 1 && k * h > 0.5) {
            phase = 2;
            centre(m, d, bCube, cz);
            centre(m, d, bLeft, fz);
            slip0 = cz[1] - fz[1];
        }
        if (phase == 2) {
            vy = 0.05;
            lifted += vy * h;
            if (lifted >= 0.1) phase = 3;
        }
        const double wl[3] = {vx, vy, 0}, wr[3] = {-vx, vy, 0};
        alc_setDriverVelocity(m, d, dLeft, wl, NULL, h);
        alc_setDriverVelocity(m, d, dRight, wr, NULL, h);
        alctStatus st = alc_step(sim, d);
        if (st != ALC_OK) {
            fprintf(stderr, "grasp: step %d: %s\n", k + 1, alc_lastError(sim));
            return 1;
        }
        if ((k + 1) % 10 == 0) {
            double fl[3], fr[3];
            alc_bodyPairForce(sim, bLeft, bCube, fl);  // the cube's force on the finger
            alc_bodyPairForce(sim, bRight, bCube, fr);
            centre(m, d, bCube, cz);
            centre(m, d, bLeft, fz);
            double slip = phase >= 2 ? (cz[1] - fz[1]) - slip0 : 0;
            printf("%6.2f %9.3f %9.3f %10.2f %9.2f\n", d->time, fabs(fl[0]), fabs(fr[0]),
                   1000 * (cz[1] - side / 2), 1000 * slip);
        }
    }
    centre(m, d, bCube, cz);
    double height = cz[1] - side / 2;
    int held = phase >= 2 && height > 0.5 * lifted;
    printf(
        "%s: cube %.1f mm above its start after lifting the fingers %.1f mm; %ld Newton "
        "iterations in %ld steps, %.2f s of solver time\n",
        held ? "held" : "dropped", 1000 * height, 1000 * lifted, d->run.newton, d->run.steps,
        d->run.time[ALC_TIMER_STEP]);
    const double* t = d->run.time;
    printf(
        "solver time by phase: hessian %.2f s, linear solves %.2f s, ccd %.2f s, line search "
        "%.2f s\n",
        t[ALC_TIMER_HESSIAN], t[ALC_TIMER_PCG], t[ALC_TIMER_CCD], t[ALC_TIMER_LINESEARCH]);
    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return held ? 0 : 2;
}
