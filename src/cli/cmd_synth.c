/* cmd_synth.c — `clothfit synth CONFIG.ini -o OUT[.csv] [--json]` (docs/design.md §11). */
#include <stdio.h>
#include <string.h>

#include "cf_io.h"
#include "commands.h"
#include "progress.h"

static const char *help =
    "usage: clothfit synth CONFIG.ini -o OUT[.csv] [--json]\n"
    "\n"
    "Make a synthetic recording: a cloth simulated on a mesh finer than the fitting\n"
    "mesh (small kappa, beta > 0: model mismatch), driven at its top corners by a\n"
    "human-like shake or twist scaled to the average marker speed of Table 4.4, a\n"
    "tablecloth or stick hits (thesis 4.3), or the WAM robot's hanger of thesis 4.1\n"
    "(motion = wam: eq. (4.1) along the camera's depth axis y, slow A = 0.15 m,\n"
    "f = 0.3 Hz, fast A = 0.075 m, f = 0.6 Hz, 1 s still before and 3 s after,\n"
    "14 s; rho = 1, delta and alpha of Table 4.2 for paper, light-cotton, felt, wool).\n"
    "Every key of CONFIG with its default and meaning: datasets/aero-mini/synth-keys.ini\n"
    "(delta and alpha default to Tables A.1/A.2, the density to Table 4.1).\n"
    "\n"
    "[recording] output = markers (default): the marker lattice sampled at 120 Hz with\n"
    "noise, occlusion gaps, label fragments and ghost markers.  Writes OUT.csv (Motive\n"
    "1.23, mm, Y up), OUT.truth.ini (ground truth: delta, alpha, ..., achieved speed,\n"
    "fragment map, gaps), OUT.meta.ini (for `clothfit ingest motive --meta`) and\n"
    "OUT.map (a marker mapping file), all or none.\n"
    "\n"
    "output = meshes | clouds | both: a depth camera on the -y axis ([camera] keys),\n"
    "frames at irregular ~30 Hz timestamps (jitter, runs of 2-5 dropped frames), m,\n"
    "z up.  Writes, all or none (OUT without .csv):\n"
    "  OUT.meshes/frame_CCCCCC_T.TTTTTT.obj  meshes, both: the registered mesh (9x9\n"
    "        nodes, row 0 on top, quads), sampled from the fine simulation, with depth\n"
    "        noise along y; C the camera's frame counter, T the time in s (`clothfit\n"
    "        ingest meshes OUT.meshes` reads it from the name)\n"
    "  OUT.clouds/frame_CCCCCC_T.TTTTTT.ply  clouds, both: the points the camera sees\n"
    "        (ray cast on the fine mesh: a fold hides what is behind it), depth noise\n"
    "        depth_noise x depth^2 along each ray, flying pixels at edges and far\n"
    "        points (outliers); binary little endian or ascii PLY, points only\n"
    "  OUT.corners.csv   the held corners (a robot's log): time,x1,y1,z1,x2,y2,z2 at\n"
    "        track_rate Hz over the whole recording; corner 1 is node 0, corner 2 node\n"
    "        COLS-1 of the registered mesh\n"
    "  OUT.truth.ini     ground truth: delta, alpha, kappa, beta, rho, mesh, seed, the\n"
    "        motion, the camera, the dropped frames\n"
    "  OUT.meta.ini      material, size, density, motion, speed, held = I,J (0-based\n"
    "        nodes of the registered mesh's vertex order)\n"
    "  --json   also a JSON object on the last line of stdout\n";

typedef struct {
  cf_progress pg;
  int run;
} progress_state;

static void on_progress(void *user, int run, double fraction) {
  progress_state *p = user;
  if (run != p->run) {
    if (p->run) cf_progress_end(&p->pg);
    cf_progress_start(&p->pg, run == 1 ? "synth" : "synth (recalibrated)", 1000);
    p->run = run;
  }
  cf_progress_update(&p->pg, (long)(1000 * fraction));
}

/* The summary of a depth-camera recording. */
static void camera_summary(const char *out, const cf_synth_config *c, const cf_synth_result *r, json_t *j) {
  int dropped = 0;
  cf_synth_motion m;
  cf_synth_motion_init(&m, c, r->rate_scale);
  if (m.wam)
    printf("motion            eq. (4.1) along y: A %g m, f %g Hz, from %g s to %g s\n", m.amp, m.freq, m.start, m.stop);
  else printf("speed             %.4f m/s (mean over the registered mesh's nodes)\n", r->achieved_speed);
  for (int q = 0; q < r->n_drops; q++) dropped += r->drops[q].n;
  printf("frames            %d at ~%g Hz (%g s), jitter %g ms, %d dropped in %d runs\n", r->n_frames, c->cam_rate,
         c->duration, 1e3 * c->jitter, dropped, r->n_drops);
  if (strcmp(c->output, "clouds"))
    printf("meshes            %dx%d nodes, noise %g mm along y\n", r->rows, r->cols, 1e3 * c->mesh_noise);
  if (strcmp(c->output, "meshes"))
    printf("clouds            %dx%d pixels, %g m away, depth noise %g x depth^2, outliers %g %%\n", c->pixels[0],
           c->pixels[1], c->distance, c->depth_noise, 100 * c->outliers);
  printf("output            %s.{%s%scorners.csv,truth.ini,meta.ini}\n", out, strcmp(c->output, "clouds") ? "meshes/," : "",
         strcmp(c->output, "meshes") ? "clouds/," : "");
  if (!j) return;
  const char *k[] = {"frames", "dropped", "drop_runs", "nodes", "delta", "alpha", "steps", "wall_s", "max_violation"};
  const double v[] = {r->n_frames, dropped, r->n_drops, r->rows * r->cols, c->delta, c->alpha, r->steps, r->wall_s,
                      r->max_violation};
  cf_cli_json_numbers(j, k, v, sizeof v / sizeof v[0]);
}

static void summary(const char *cfg, const char *out, const cf_synth_config *c, const cf_synth_result *r,
                    int json) {
  int K = r->rows * r->cols, frag = 0, ghosts = 0;
  for (int k = K; k < r->n_tracks; k++) frag += r->tracks[k].cell >= 0, ghosts += r->tracks[k].cell == -1;
  double dev = 100 * (r->achieved_speed / r->target_speed - 1);
  printf("config            %s (%s %s %s %s, repetition %s)\n", cfg, c->material, c->size, c->motion, c->speed,
         c->repetition);
  printf("truth             delta %g, alpha %g, kappa %g, beta %g, rho %g\n", c->delta, c->alpha, c->kappa, c->beta,
         c->density);
  if (!strcmp(c->motion, "tablecloth")) printf("                  mu %g (friction on the table)\n", c->table_mu);
  printf("simulation        %dx%d quads, dt %.4g s, %ld steps in %d run(s), %.2f s wall, max violation %.3g\n",
         r->nx, r->ny, c->sim_dt, r->steps, r->runs, r->wall_s, r->max_violation);
  if (cf_synth_camera_output(c)) {
    json_t *j = json ? json_object() : NULL;
    if (j) cf_cli_json_str(j, "output", out);
    camera_summary(out, c, r, j);
    if (j) cf_cli_json_print(j);
    return;
  }
  cf_obstacle table;
  double t[5];
  if (cf_synth_table(c, &table, t)) {
    printf("speed             %.4f m/s (a tablecloth's motion is not calibrated to a speed)\n", r->achieved_speed);
    printf("table             top at %.4f m, x %g..%g m, y %g..%g m, mu %g\n", t[0], t[1], t[2], t[3], t[4],
           c->table_mu);
  } else if (!strcmp(c->motion, "wam")) {
    printf("speed             %.4f m/s (the hanger's motion is eq. (4.1), not calibrated to a speed)\n",
           r->achieved_speed);
  } else if (r->stick) {
    printf("speed             %.4f m/s (a hitting's motion is not calibrated to a speed)\n", r->achieved_speed);
    printf("stick             %d hits of %g s, %g m long, radius %g m; markers StickA, StickB\n", c->hits,
           c->hit_time, c->stick_length, c->stick_radius);
  } else {
    printf("speed             %.4f m/s achieved, target %.4f (%+.1f %%), rate scale %.4f\n", r->achieved_speed,
           r->target_speed, dev, r->rate_scale);
  }
  printf("frames            %d at %g Hz (%g s)\n", r->n_frames, c->rate, c->duration);
  printf("markers           %d on a %dx%d lattice; %d tracks (%d fragments, %d ghosts%s), %d gaps, noise %g mm\n",
         K, r->rows, r->cols, r->n_tracks, frag, ghosts, r->stick ? ", 2 stick ends" : "", r->n_gaps, 1e3 * c->noise);
  printf("output            %s (+ .truth.ini, .meta.ini, .map)\n", out);
  if (!json) return;
  json_t *j = json_object();
  cf_cli_json_str(j, "output", out);
  const char *k[] = {"frames", "markers", "tracks", "fragments", "ghosts", "gaps", "delta", "alpha", "target_speed",
                     "achieved_speed", "rate_scale", "runs", "steps", "wall_s", "max_violation"};
  const double v[] = {r->n_frames, K, r->n_tracks, frag, ghosts, r->n_gaps, c->delta, c->alpha, r->target_speed,
                      r->achieved_speed, r->rate_scale, r->runs, r->steps, r->wall_s, r->max_violation};
  cf_cli_json_numbers(j, k, v, sizeof v / sizeof v[0]);
  cf_cli_json_print(j);
}

int cmd_synth(int argc, char **argv) {
  const char *cfg, *out;
  int json, a = cf_cli_config_args(argc, argv, help, &cfg, &out, &json);
  if (a) return a < 0 ? 0 : a;
  if (!out) return cf_cli_fail("synth", "missing -o OUT.csv or -o OUT (see --help)");
  cf_synth_config c;
  cf_synth_result r;
  memset(&r, 0, sizeof r);
  cf_error err = {0, ""};
  progress_state ps = {.run = 0};
  int rc = cf_synth_load(cfg, &c, &err);
  if (!rc) rc = cf_synth_run(&c, &r, on_progress, &ps, &err);
  if (ps.run) cf_progress_end(&ps.pg);
  if (!rc) rc = cf_synth_write(out, &c, &r, &err);
  if (!rc) summary(cfg, out, &c, &r, json);
  cf_synth_result_free(&r);
  cf_synth_config_free(&c);
  return rc ? cf_cli_fail("synth", "%s", err.msg) : 0;
}
