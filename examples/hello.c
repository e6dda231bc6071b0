// alcove hello world: uses only the public header <alc/alc.h>.
//
// Without arguments it builds a scene in code — one soft tetrahedron falling onto a fixed
// square — steps it for half a second and prints where it came to rest. With a scene file
// (hello scenes/box_drop.yaml) it loads and steps that instead.
#include "alc/alc.h"

#include <stdio.h>

static alcModel* buildInCode(void) {
    alcSpec* spec = NULL;
    if (alc_makeSpec(&spec) != ALC_OK) return NULL;
    alc_specOption(spec)->timestep = 0.01;

    alcMaterialDef mat = alc_defaultMaterialDef();
    mat.name = "rubber";
    mat.young = 1e5;  // Pa
    int rubber = 0;
    alc_specAddMaterial(spec, &mat, &rubber);

    // one tetrahedron, 10 cm edges, 20 cm above the ground
    static const double tetVert[] = {0, 0, 0, 0.1, 0, 0, 0, 0.1, 0, 0, 0, 0.1};
    static const int tetIdx[] = {0, 1, 2, 3};
    alcBodyDef body = alc_defaultBodyDef();
    body.name = "tet";
    body.material = rubber;
    body.nvert = 4;
    body.vert = tetVert;
    body.ntet = 1;
    body.tet = tetIdx;
    body.position[1] = 0.2;
    alc_specAddBody(spec, &body, NULL);

    // a fixed 1 m square in the xz plane (an obstacle: triangles only, fixed by default)
    static const double quadVert[] = {-0.5, 0, -0.5, 0.5, 0, -0.5, 0.5, 0, 0.5, -0.5, 0, 0.5};
    static const int quadTri[] = {0, 2, 1, 0, 3, 2};
    alcBodyDef ground = alc_defaultBodyDef();
    ground.name = "ground";
    ground.type = ALC_BODY_OBSTACLE;
    ground.nvert = 4;
    ground.vert = quadVert;
    ground.ntri = 2;
    ground.tri = quadTri;
    alc_specAddBody(spec, &ground, NULL);

    alcModel* model = NULL;
    char err[512];
    if (alc_compileSpec(spec, &model, err, sizeof err) != ALC_OK) fprintf(stderr, "%s\n", err);
    alc_deleteSpec(spec);
    return model;
}

int main(int argc, char** argv) {
    printf("alcove %s\n", alcu_versionString());
    alcModel* m = NULL;
    if (argc > 1) {
        char err[512];
        if (alc_loadScene(argv[1], NULL, &m, err, sizeof err) != ALC_OK) {
            fprintf(stderr, "%s\n", err);
            return 2;
        }
    } else {
        m = buildInCode();
        if (!m) return 2;
    }
    alcData* d = NULL;
    alc_makeData(m, &d);
    alcSimDef def = alc_defaultSimDef();
    def.backend = ALC_BACKEND_REF;
    alcSim* sim = NULL;
    alctStatus s = alc_makeSim(m, &def, &sim);
    for (int i = 0; s == ALC_OK && i < 50; i++) s = alc_step(sim, d);
    if (s != ALC_OK) {
        fprintf(stderr, "%s\n", alc_lastError(sim));
    } else {
        // lowest point of the first body after 0.5 s
        double low = 1e300;
        for (int v = 0; v < m->body_vertnum[0]; v++) {
            double y = d->x[3 * (m->body_vertadr[0] + v) + 1];
            if (y < low) low = y;
        }
        printf("t = %.2f s: lowest point of '%s' at y = %.6f m, %ld Newton iterations\n", d->time,
               alc_bodyName(m, 0), low, d->run.newton);
    }
    alc_deleteSim(sim);
    alc_deleteData(d);
    alc_deleteModel(m);
    return s == ALC_OK ? 0 : 1;
}
