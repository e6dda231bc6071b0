// alcove render OUTDIR: pictures and a video of a run without ParaView. The exact states and the
// topology a run wrote are turned into POV-Ray scenes (one mesh per body, coloured by body,
// obstacles grey, optionally the contact forces of contacts.csv as arrows), rendered to PNG by
// POV-Ray and joined into an MP4 by ffmpeg (Debian's povray and ffmpeg; a ray tracer needs no
// display or GPU, so it runs on any server).
#include "cli.h"
#include "render_scene.h"
#include "state_io.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

static void usageRender(FILE* out) {
    fprintf(out,
            "usage: alcove render OUTDIR [options]\n\n"
            "Renders the exact states of a run (OUTDIR/topology.alct and OUTDIR/states/, as\n"
            "'alcove run' writes them) with POV-Ray: bodies coloured by index, obstacles grey,\n"
            "white background, one fixed camera per view framing every state. Writes\n"
            "  OUTDIR/render/VIEW/frame_NNNNNN.png   one picture per state and view\n"
            "  OUTDIR/render/VIEW/camera.json        the camera (to locate things in the images)\n"
            "  OUTDIR/render/VIEW.mp4                the video of each view (ffmpeg, H.264)\n\n"
            "options:\n"
            "  --views V,...    persp, front, side, top (default: persp,front)\n"
            "  --size WxH       image size in pixels (default 640x480)\n"
            "  --every K        render every K-th state (default 1)\n"
            "  --forces         draw the contact forces of OUTDIR/contacts.csv as red arrows\n"
            "                   (a run with --contacts), length scaled to the largest force\n"
            "  --no-video       PNG frames only\n"
            "  --fps F          frames per second of the video (default: real time, 1 to 60)\n"
            "  --quiet          no progress lines\n\n"
            "Needs povray (and ffmpeg for the video): apt-get install povray ffmpeg.\n"
            "Exit 0 done, 1 a renderer failed, 2 bad input or a missing program.\n");
}

/// 1 when `prog` runs (found on PATH).
static int haveProgram(const char* prog) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
    return system(cmd) == 0;
}

int alc_cmdRender(int argc, char** argv) {
    const char* dir = NULL;
    char views[256] = "persp,front";
    int width = 640, height = 480, every = 1, forces = 0, video = 1, quiet = 0;
    double fps = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usageRender(stdout);
            return ALC_EXIT_OK;
        } else if (!strcmp(a, "--views") && i + 1 < argc) {
            snprintf(views, sizeof views, "%s", argv[++i]);
        } else if (!strcmp(a, "--size") && i + 1 < argc) {
            if (!alc_cliParseSize("render", argv[++i], 16, 16, &width, &height))
                return ALC_EXIT_USAGE;
        } else if (!strcmp(a, "--every") && i + 1 < argc) {
            every = atoi(argv[++i]);
            if (every < 1) {
                fprintf(stderr, "alcove render: --every expects a count >= 1\n");
                return ALC_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--fps") && i + 1 < argc) {
            fps = atof(argv[++i]);
            if (!(fps >= 1 && fps <= 240)) {
                fprintf(stderr, "alcove render: --fps expects 1 to 240\n");
                return ALC_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--forces")) {
            forces = 1;
        } else if (!strcmp(a, "--no-video")) {
            video = 0;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = 1;
        } else if (a[0] == '-' || dir) {
            fprintf(stderr, "alcove render: unexpected argument '%s'\n\n", a);
            usageRender(stderr);
            return ALC_EXIT_USAGE;
        } else {
            dir = a;
        }
    }
    if (!dir) {
        usageRender(stderr);
        return ALC_EXIT_USAGE;
    }
    if (strlen(dir) > 1000) {
        fprintf(stderr, "alcove render: the folder name is longer than 1000 characters\n");
        return ALC_EXIT_USAGE;
    }
    // the views
    int viewIds[8], nview = 0;
    for (char* tok = strtok(views, ","); tok && nview < 8; tok = strtok(NULL, ",")) {
        int v = alc_renderViewId(tok);
        if (v < 0) {
            fprintf(stderr, "alcove render: unknown view '%s' (persp, front, side or top)\n", tok);
            return ALC_EXIT_USAGE;
        }
        viewIds[nview++] = v;
    }
    if (nview == 0) {
        fprintf(stderr, "alcove render: no view given\n");
        return ALC_EXIT_USAGE;
    }
    if (!haveProgram("povray")) {
        fprintf(stderr, "alcove render: needs POV-Ray: apt-get install povray\n");
        return ALC_EXIT_USAGE;
    }
    if (video && !haveProgram("ffmpeg")) {
        fprintf(stderr,
                "alcove render: the video needs ffmpeg: apt-get install ffmpeg (or --no-video)\n");
        return ALC_EXIT_USAGE;
    }

    // the run: topology, the states, the contact log
    char path[4096], err[1024];
    snprintf(path, sizeof path, "%s/topology.alct", dir);
    alciTopology topo;
    if (alci_state_readTopology(path, &topo, err, sizeof err) != ALC_OK) {
        fprintf(stderr, "alcove render: %s (render reads the exact states: run without "
                        "--no-states)\n",
                err);
        return ALC_EXIT_USAGE;
    }
    char** names = NULL;
    int nstate = alc_cliListStates(dir, &names);
    if (nstate <= 0) {
        fprintf(stderr, "alcove render: no states in %s/states\n", dir);
        alci_state_freeTopology(&topo);
        alc_cliFreeNames(names, nstate);
        return ALC_EXIT_USAGE;
    }
    alcRenderContacts contacts;
    memset(&contacts, 0, sizeof contacts);
    int code = ALC_EXIT_OK;
    if (forces) {
        snprintf(path, sizeof path, "%s/contacts.csv", dir);
        if (alc_renderReadContacts(path, &contacts, err, sizeof err) != 0) {
            fprintf(stderr, "alcove render: %s (--forces needs a run with --contacts)\n", err);
            code = ALC_EXIT_USAGE;
        }
    }

    // the frame: a box around every state (read once here, again when rendering)
    double box[6] = {HUGE_VAL, HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    double t0 = 0, t1 = 0;
    int nsel = 0;
    for (int s = 0; s < nstate && code == ALC_EXIT_OK; s += every) {
        snprintf(path, sizeof path, "%s/states/%s", dir, names[s]);
        long step;
        double time, *x = NULL, *v = NULL;
        int nvert;
        if (alci_state_read(path, &step, &time, &nvert, &x, &v, err, sizeof err) != ALC_OK ||
            nvert != topo.nvert) {
            fprintf(stderr, "alcove render: %s\n",
                    nvert != topo.nvert && !err[0] ? "state and topology differ in size" : err);
            code = ALC_EXIT_USAGE;
        } else {
            alc_renderGrowBox(&topo, x, box);
            if (nsel == 0) t0 = time;
            t1 = time;
            nsel++;
        }
        free(x);
        free(v);
        err[0] = 0;
    }
    if (fps == 0) {
        double dt = nsel > 1 ? (t1 - t0) / (nsel - 1) : 0.04;
        fps = dt > 0 ? 1.0 / dt : 25;
        fps = fps < 1 ? 1 : (fps > 60 ? 60 : fps);
    }

    for (int iv = 0; iv < nview && code == ALC_EXIT_OK; iv++) {
        alcRenderCamera cam;
        alc_renderCamera(viewIds[iv], box, width, height, &cam);
        char vdir[1100];
        snprintf(vdir, sizeof vdir, "%.1000s/render/%s", dir, alc_renderViewName(viewIds[iv]));
        char q[4500];
        alc_cliShellQuote(q, sizeof q, vdir);
        char cmd[10000];
        snprintf(cmd, sizeof cmd, "mkdir -p %s && rm -f %s/frame_*.png", q, q);
        if (system(cmd) != 0) {
            fprintf(stderr, "alcove render: cannot create %s\n", vdir);
            code = ALC_EXIT_FAIL;
            break;
        }
        snprintf(path, sizeof path, "%s/camera.json", vdir);
        if (alc_renderWriteCamera(path, &cam, err, sizeof err) != 0) {
            fprintf(stderr, "alcove render: %s\n", err);
            code = ALC_EXIT_FAIL;
            break;
        }
        int k = 0;
        for (int s = 0; s < nstate && code == ALC_EXIT_OK; s += every, k++) {
            snprintf(path, sizeof path, "%s/states/%s", dir, names[s]);
            long step;
            double time, *x = NULL, *v = NULL;
            int nvert;
            if (alci_state_read(path, &step, &time, &nvert, &x, &v, err, sizeof err) != ALC_OK) {
                fprintf(stderr, "alcove render: %s\n", err);
                code = ALC_EXIT_USAGE;
                break;
            }
            // the scene file beside the picture; POV-Ray runs in that folder (its default I/O
            // restrictions allow only the working directory)
            char pov[1200];
            snprintf(pov, sizeof pov, "%s/frame_%06ld.pov", vdir, step);
            if (alc_renderWritePov(pov, &topo, x, &cam, forces ? &contacts : NULL, step, err,
                                   sizeof err) != 0) {
                fprintf(stderr, "alcove render: %s\n", err);
                code = ALC_EXIT_FAIL;
            } else {
                snprintf(cmd, sizeof cmd,
                         "cd %s && povray +Iframe_%06ld.pov +Oframe_%06ld.png +W%d +H%d +FN8 "
                         "+A0.3 -D -V -GA > frame_%06ld.log 2>&1 && rm -f frame_%06ld.pov "
                         "frame_%06ld.log",
                         q, step, step, width, height, step, step, step);
                if (system(cmd) != 0) {
                    fprintf(stderr, "alcove render: povray failed on %s (its messages: "
                                    "%s/frame_%06ld.log)\n",
                            pov, vdir, step);
                    code = ALC_EXIT_FAIL;
                }
            }
            free(x);
            free(v);
            if (!quiet && code == ALC_EXIT_OK) {
                fprintf(stderr, "\ralcove render: %s %d/%d", alc_renderViewName(viewIds[iv]),
                        k + 1, nsel);
            }
        }
        if (!quiet) fprintf(stderr, "\n");
        if (code == ALC_EXIT_OK && video) {
            char mp4[1100], qm[4500];
            snprintf(mp4, sizeof mp4, "%.1000s/render/%s.mp4", dir, alc_renderViewName(viewIds[iv]));
            alc_cliShellQuote(qm, sizeof qm, mp4);
            snprintf(cmd, sizeof cmd,
                     "ffmpeg -y -loglevel error -framerate %.6g -pattern_type glob -i %s/'frame_*.png' "
                     "-c:v libx264 -pix_fmt yuv420p -vf 'scale=trunc(iw/2)*2:trunc(ih/2)*2' %s",
                     fps, q, qm);
            if (system(cmd) != 0) {
                fprintf(stderr, "alcove render: ffmpeg failed making %s\n", mp4);
                code = ALC_EXIT_FAIL;
            } else if (!quiet) {
                fprintf(stderr, "alcove render: %s (%d frames at %.3g per second)\n", mp4, nsel,
                        fps);
            }
        }
    }
    alc_cliFreeNames(names, nstate);
    alc_renderFreeContacts(&contacts);
    alci_state_freeTopology(&topo);
    return code;
}
