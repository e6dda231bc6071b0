// POV-Ray scenes of a run's states for `alcove render` (render_scene.h).
#include "render_scene.h"

#include "alc/alc_types.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const kViewName[ALC_NVIEW] = {"persp", "front", "side", "top"};

// body colours (a colour-blind-safe qualitative palette), cycled by body index
static const double kPalette[10][3] = {
    {0.122, 0.467, 0.706}, {1.000, 0.498, 0.055}, {0.173, 0.627, 0.173}, {0.839, 0.153, 0.157},
    {0.580, 0.404, 0.741}, {0.549, 0.337, 0.294}, {0.890, 0.467, 0.761}, {0.737, 0.741, 0.133},
    {0.090, 0.745, 0.812}, {0.498, 0.498, 0.498}};

int alc_renderViewId(const char* name) {
    for (int v = 0; v < ALC_NVIEW; v++)
        if (!strcmp(name, kViewName[v])) return v;
    return -1;
}

const char* alc_renderViewName(int view) {
    return view >= 0 && view < ALC_NVIEW ? kViewName[view] : "?";
}

void alc_renderGrowBox(const alciTopology* t, const double* x, double box[6]) {
    for (long k = 0; k < 3L * t->ntri; k++) {
        const double* p = x + 3 * (size_t)t->tri_vert[k];
        for (int c = 0; c < 3; c++) {
            if (p[c] < box[c]) box[c] = p[c];
            if (p[c] > box[3 + c]) box[3 + c] = p[c];
        }
    }
}

void alc_renderCamera(int view, const double box[6], int width, int height, alcRenderCamera* cam) {
    static const double kDir[ALC_NVIEW][3] = {
        {0.55, 0.45, 0.70}, {0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    double c[3], r = 0;
    for (int k = 0; k < 3; k++) {
        c[k] = isfinite(box[k]) && isfinite(box[3 + k]) ? 0.5 * (box[k] + box[3 + k]) : 0;
        double h = isfinite(box[k]) && isfinite(box[3 + k]) ? 0.5 * (box[3 + k] - box[k]) : 0.5;
        r += h * h;
    }
    r = sqrt(r);
    if (!(r > 0)) r = 1;
    const double* d = kDir[view < 0 || view >= ALC_NVIEW ? 0 : view];
    double dn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    cam->angle = 40;
    cam->width = width;
    cam->height = height;
    // the bounding sphere within the narrower of the two fields of view, 5% margin
    double half = 0.5 * cam->angle * M_PI / 180;
    double vhalf = atan(tan(half) * height / width);
    double dist = 1.05 * r / sin(half < vhalf ? half : vhalf);
    for (int k = 0; k < 3; k++) {
        cam->lookAt[k] = c[k];
        cam->location[k] = c[k] + dist * d[k] / dn;
        cam->up[k] = view == ALC_VIEW_TOP ? (k == 2 ? -1 : 0) : (k == 1 ? 1 : 0);
    }
}

int alc_renderWriteCamera(const char* path, const alcRenderCamera* cam, char* err, int errsz) {
    FILE* f = fopen(path, "w");
    if (!f) {
        snprintf(err, (size_t)errsz, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f,
            "{\"location\": [%.9g, %.9g, %.9g], \"look_at\": [%.9g, %.9g, %.9g], "
            "\"up\": [%g, %g, %g], \"angle_deg\": %g, \"width\": %d, \"height\": %d}\n",
            cam->location[0], cam->location[1], cam->location[2], cam->lookAt[0], cam->lookAt[1],
            cam->lookAt[2], cam->up[0], cam->up[1], cam->up[2], cam->angle, cam->width,
            cam->height);
    if (fclose(f) != 0) {
        snprintf(err, (size_t)errsz, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

// one arrow of a contact force
static void arrow(FILE* f, const double p[3], const double n[3], double len, double radius) {
    double q[3], tip[3];
    for (int k = 0; k < 3; k++) {
        q[k] = p[k] + 0.75 * len * n[k];
        tip[k] = p[k] + len * n[k];
    }
    fprintf(f,
            "union { cylinder { <%.9g,%.9g,%.9g>, <%.9g,%.9g,%.9g>, %.6g } "
            "cone { <%.9g,%.9g,%.9g>, %.6g, <%.9g,%.9g,%.9g>, 0 } "
            "pigment { rgb <0.85,0.05,0.05> } finish { ambient 0.3 } no_shadow }\n",
            p[0], p[1], p[2], q[0], q[1], q[2], radius, q[0], q[1], q[2], 2.5 * radius, tip[0],
            tip[1], tip[2]);
}

int alc_renderWritePov(const char* path, const alciTopology* t, const double* x,
                       const alcRenderCamera* cam, const alcRenderContacts* contacts, long step,
                       char* err, int errsz) {
    FILE* f = fopen(path, "w");
    int* map = (int*)malloc(sizeof(int) * ((size_t)t->nvert + 1));
    if (!f || !map) {
        if (err) snprintf(err, (size_t)errsz, "cannot create %s: %s", path, strerror(errno));
        if (f) fclose(f);
        free(map);
        return -1;
    }
    const double* L = cam->location;
    const double* C = cam->lookAt;
    double r = 0;
    for (int k = 0; k < 3; k++) r += (L[k] - C[k]) * (L[k] - C[k]);
    r = sqrt(r);  // camera distance: sets the light placement and the arrow scale
    fprintf(f, "// alcove render: step %ld\n#version 3.7;\nglobal_settings { assumed_gamma 1.0 }\n",
            step);
    fprintf(f, "background { rgb <1,1,1> }\n");
    // right -x: POV-Ray's coordinates are left-handed; a negative right vector makes them
    // right-handed like alcove's
    fprintf(f,
            "camera { perspective location <%.9g,%.9g,%.9g> sky <%g,%g,%g> up <%g,%g,%g> "
            "right <%.9g,0,0> angle %g look_at <%.9g,%.9g,%.9g> }\n",
            L[0], L[1], L[2], cam->up[0], cam->up[1], cam->up[2], 0.0, 1.0, 0.0,
            -(double)cam->width / cam->height, cam->angle, C[0], C[1], C[2]);
    // a key light above and behind the camera, a dimmer fill from the other side
    fprintf(f, "light_source { <%.9g,%.9g,%.9g> rgb <1,1,1> }\n", L[0] + 0.3 * r,
            L[1] + 0.8 * r + (cam->up[1] == 0 ? 0 : 0.5 * r), L[2] + 0.2 * r);
    fprintf(f, "light_source { <%.9g,%.9g,%.9g> rgb <0.35,0.35,0.35> shadowless }\n",
            C[0] - (L[0] - C[0]), C[1] + 0.5 * r, C[2] - (L[2] - C[2]));

    for (int b = 0; b < t->nbody; b++) {
        int ntri = 0, nv = 0;
        for (int i = 0; i < t->nvert; i++) map[i] = -1;
        for (int k = 0; k < t->ntri; k++) {
            if (t->tri_body[k] != b) continue;
            ntri++;
            for (int c = 0; c < 3; c++) {
                int v = t->tri_vert[3 * k + c];
                if (map[v] < 0) map[v] = nv++;
            }
        }
        if (ntri == 0) continue;
        fprintf(f, "mesh2 {\n  vertex_vectors { %d", nv);
        // vertices in the order of their new index
        int* order = (int*)malloc(sizeof(int) * (size_t)nv);
        if (!order) {
            fclose(f);
            free(map);
            if (err) snprintf(err, (size_t)errsz, "%s: out of memory", path);
            return -1;
        }
        for (int i = 0; i < t->nvert; i++)
            if (map[i] >= 0) order[map[i]] = i;
        for (int j = 0; j < nv; j++) {
            const double* p = x + 3 * (size_t)order[j];
            fprintf(f, ",\n    <%.9g,%.9g,%.9g>", p[0], p[1], p[2]);
        }
        free(order);
        fprintf(f, " }\n  face_indices { %d", ntri);
        for (int k = 0; k < t->ntri; k++) {
            if (t->tri_body[k] != b) continue;
            fprintf(f, ",\n    <%d,%d,%d>", map[t->tri_vert[3 * k]], map[t->tri_vert[3 * k + 1]],
                    map[t->tri_vert[3 * k + 2]]);
        }
        int obstacle = t->body_type[b] == ALC_BODY_OBSTACLE;
        const double* col = kPalette[b % 10];
        // obstacles (walls, wells, floors) see-through, so that what they hold stays visible
        if (obstacle) {
            fprintf(f,
                    " }\n  texture { pigment { rgbt <0.8,0.8,0.8,0.72> } finish { ambient 0.3 "
                    "diffuse 0.6 } }\n  no_shadow\n}\n");
        } else {
            fprintf(f,
                    " }\n  texture { pigment { rgb <%.3f,%.3f,%.3f> } finish { ambient 0.25 "
                    "diffuse 0.7 specular 0.25 } }\n}\n",
                    col[0], col[1], col[2]);
        }
    }

    if (contacts && contacts->forceMax > 0) {
        double scale = 0.2 * r / 2.5 / contacts->forceMax;  // r/2.5: about the framed radius
        for (int i = 0; i < contacts->n; i++) {
            if (contacts->step[i] != step) continue;
            const int* v = contacts->vert + 2 * i;
            if (v[0] < 0 || v[0] >= t->nvert || v[1] < 0 || v[1] >= t->nvert) continue;
            double p[3];
            for (int k = 0; k < 3; k++) {
                p[k] = contacts->type[i] == 0
                           ? x[3 * (size_t)v[0] + k]
                           : 0.5 * (x[3 * (size_t)v[0] + k] + x[3 * (size_t)v[1] + k]);
            }
            double len = scale * contacts->force[i];
            if (len > 0) arrow(f, p, contacts->normal + 3 * i, len, 0.004 * r);
        }
    }
    free(map);
    if (fclose(f) != 0) {
        if (err) snprintf(err, (size_t)errsz, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

void alc_renderFreeContacts(alcRenderContacts* c) {
    if (!c) return;
    free(c->step);
    free(c->type);
    free(c->vert);
    free(c->normal);
    free(c->force);
    memset(c, 0, sizeof *c);
}

int alc_renderReadContacts(const char* path, alcRenderContacts* c, char* err, int errsz) {
    static const char kHead[] = "step,time,record,type,v0,v1,v2,v3,body0,body1,distance,nx,ny,nz,"
                                "normal_force,";
    memset(c, 0, sizeof *c);
    FILE* f = fopen(path, "r");
    if (!f) {
        snprintf(err, (size_t)errsz, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char line[4096];
    long lineNo = 1;
    if (!fgets(line, sizeof line, f) || strncmp(line, kHead, sizeof kHead - 1) != 0) {
        snprintf(err, (size_t)errsz, "%s:1: not an alcove contact log (header '%.40s...')", path,
                 kHead);
        fclose(f);
        return -1;
    }
    int cap = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineNo++;
        long step;
        char record[8], type[4];
        int v[4], b[2];
        double dist, n[3], fn;
        int got = sscanf(line, "%ld,%*[^,],%7[^,],%3[^,],%d,%d,%d,%d,%d,%d,%lf,%lf,%lf,%lf,%lf",
                         &step, record, type, &v[0], &v[1], &v[2], &v[3], &b[0], &b[1], &dist,
                         &n[0], &n[1], &n[2], &fn);
        if (got >= 2 && !strcmp(record, "body")) continue;
        if (got != 14 || strcmp(record, "pair") || (strcmp(type, "pt") && strcmp(type, "ee"))) {
            snprintf(err, (size_t)errsz, "%s:%ld: malformed contact row", path, lineNo);
            rc = -1;
            break;
        }
        if (c->n == cap) {
            cap = cap ? 2 * cap : 1024;
            long* s = (long*)realloc(c->step, sizeof(long) * (size_t)cap);
            if (s) c->step = s;
            int* ty = s ? (int*)realloc(c->type, sizeof(int) * (size_t)cap) : NULL;
            if (ty) c->type = ty;
            int* vv = ty ? (int*)realloc(c->vert, sizeof(int) * 2 * (size_t)cap) : NULL;
            if (vv) c->vert = vv;
            double* nn = vv ? (double*)realloc(c->normal, sizeof(double) * 3 * (size_t)cap) : NULL;
            if (nn) c->normal = nn;
            double* ff = nn ? (double*)realloc(c->force, sizeof(double) * (size_t)cap) : NULL;
            if (ff) c->force = ff;
            if (!ff) {
                snprintf(err, (size_t)errsz, "%s: out of memory", path);
                rc = -1;
                break;
            }
        }
        c->step[c->n] = step;
        c->type[c->n] = strcmp(type, "pt") ? 1 : 0;
        c->vert[2 * c->n] = v[0];
        c->vert[2 * c->n + 1] = v[1];
        for (int k = 0; k < 3; k++) c->normal[3 * c->n + k] = n[k];
        c->force[c->n] = fn;
        if (fn > c->forceMax) c->forceMax = fn;
        c->n++;
    }
    fclose(f);
    if (rc != 0) alc_renderFreeContacts(c);
    return rc;
}
