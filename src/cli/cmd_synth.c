/* cmd_synth.c — `clothfit synth CONFIG.ini -o OUT[.csv] [--json]` (docs/design.md §11):
 * a synthetic recording (cf_synth_run) written as the config says, and its
 * summary (text, then the JSON line). */
#include <stdio.h>
#include <string.h>

#include "cf_io.h"
#include "commands.h"
#include "progress.h"

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

/* The frames dropped by the camera. */
static int camera_dropped(const cf_synth_result *r) {
  int dropped = 0;
  for (int q = 0; q < r->n_drops; q++) dropped += r->drops[q].n;
  return dropped;
}

/* The summary of a depth-camera recording. */
static void camera_text(const char *out, const cf_synth_config *c, const cf_synth_result *r) {
  int dropped = camera_dropped(r);
  cf_synth_motion m;
  cf_synth_motion_init(&m, c, r->rate_scale);
  if (m.wam)
    printf("motion            eq. (4.1) along y: A %g m, f %g Hz, from %g s to %g s\n", m.amp, m.freq, m.start, m.stop);
  else printf("speed             %.4f m/s (mean over the registered mesh's nodes)\n", r->achieved_speed);
  printf("frames            %d at ~%g Hz (%g s), jitter %g ms, %d dropped in %d runs\n", r->n_frames, c->cam_rate,
         c->duration, 1e3 * c->jitter, dropped, r->n_drops);
  if (strcmp(c->output, "clouds"))
    printf("meshes            %dx%d nodes, noise %g mm along y\n", r->rows, r->cols, 1e3 * c->mesh_noise);
  if (strcmp(c->output, "meshes"))
    printf("clouds            %dx%d pixels, %g m away, depth noise %g x depth^2, outliers %g %%\n", c->pixels[0],
           c->pixels[1], c->distance, c->depth_noise, 100 * c->outliers);
  printf("output            %s.{%s%scorners.csv,truth.ini,meta.ini}\n", out, strcmp(c->output, "clouds") ? "meshes/," : "",
         strcmp(c->output, "meshes") ? "clouds/," : "");
}

static void camera_json(const char *out, const cf_synth_config *c, const cf_synth_result *r) {
  json_t *j = json_object();
  cf_cli_json_str(j, "output", out);
  const char *k[] = {"frames", "dropped", "drop_runs", "nodes", "delta", "alpha", "steps", "wall_s", "max_violation"};
  const double v[] = {r->n_frames, camera_dropped(r), r->n_drops, r->rows * r->cols, c->delta, c->alpha, r->steps,
                      r->wall_s, r->max_violation};
  cf_cli_json_numbers(j, k, v, sizeof v / sizeof v[0]);
  cf_cli_json_print(j);
}

/* The fragments and ghosts among r's tracks. */
static void track_counts(const cf_synth_result *r, int *frag, int *ghosts) {
  *frag = *ghosts = 0;
  for (int k = r->rows * r->cols; k < r->n_tracks; k++) *frag += r->tracks[k].cell >= 0, *ghosts += r->tracks[k].cell == -1;
}

/* The motion's lines of a marker recording's summary. */
static void motion_text(const cf_synth_config *c, const cf_synth_result *r) {
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
           r->target_speed, 100 * (r->achieved_speed / r->target_speed - 1), r->rate_scale);
  }
}

static void print_text(const char *cfg, const char *out, const cf_synth_config *c, const cf_synth_result *r) {
  int K = r->rows * r->cols, frag, ghosts;
  track_counts(r, &frag, &ghosts);
  printf("config            %s (%s %s %s %s, repetition %s)\n", cfg, c->material, c->size, c->motion, c->speed,
         c->repetition);
  printf("truth             delta %g, alpha %g, kappa %g, beta %g, rho %g\n", c->delta, c->alpha, c->kappa, c->beta,
         c->density);
  if (!strcmp(c->motion, "tablecloth")) printf("                  mu %g (friction on the table)\n", c->table_mu);
  printf("simulation        %dx%d quads, dt %.4g s, %ld steps in %d run(s), %.2f s wall, max violation %.3g\n",
         r->nx, r->ny, c->sim_dt, r->steps, r->runs, r->wall_s, r->max_violation);
  if (cf_synth_camera_output(c)) {
    camera_text(out, c, r);
    return;
  }
  motion_text(c, r);
  printf("frames            %d at %g Hz (%g s)\n", r->n_frames, c->rate, c->duration);
  printf("markers           %d on a %dx%d lattice; %d tracks (%d fragments, %d ghosts%s), %d gaps, noise %g mm\n",
         K, r->rows, r->cols, r->n_tracks, frag, ghosts, r->stick ? ", 2 stick ends" : "", r->n_gaps, 1e3 * c->noise);
  printf("output            %s (+ .truth.ini, .meta.ini, .map)\n", out);
}

static void print_json(const char *out, const cf_synth_config *c, const cf_synth_result *r) {
  if (cf_synth_camera_output(c)) {
    camera_json(out, c, r);
    return;
  }
  int K = r->rows * r->cols, frag, ghosts;
  track_counts(r, &frag, &ghosts);
  json_t *j = json_object();
  cf_cli_json_str(j, "output", out);
  const char *k[] = {"frames", "markers", "tracks", "fragments", "ghosts", "gaps", "delta", "alpha", "target_speed",
                     "achieved_speed", "rate_scale", "runs", "steps", "wall_s", "max_violation"};
  const double v[] = {r->n_frames, K, r->n_tracks, frag, ghosts, r->n_gaps, c->delta, c->alpha, r->target_speed,
                      r->achieved_speed, r->rate_scale, r->runs, r->steps, r->wall_s, r->max_violation};
  cf_cli_json_numbers(j, k, v, sizeof v / sizeof v[0]);
  cf_cli_json_print(j);
}

typedef struct {
  const char *out;
} synth_opts;

static const cf_cli_option options[] = {CF_CLI_VALUE("-o", synth_opts, out), CF_CLI_END};

static int run_cmd(const cf_cli_call *call, void *opts) {
  const char *cfg = call->pos[0], *out = ((const synth_opts *)opts)->out;
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
  if (!rc) print_text(cfg, out, &c, &r);
  if (!rc && call->json) print_json(out, &c, &r);
  cf_synth_result_free(&r);
  cf_synth_config_free(&c);
  return rc ? cf_cli_fail("synth", "%s", err.msg) : 0;
}

const cf_cli_command cf_cli_cmd_synth = {
    .name = "synth",
    .summary = "make a synthetic Motive or depth-camera recording (simulated cloth, noise) + ground truth",
    .help = cf_cli_help_synth, .options = options, .opts_size = sizeof(synth_opts), .max_pos = 1,
    .needs = "CONFIG.ini", .run = run_cmd};
