/* cmd_synth.c — `clothfit synth CONFIG.ini -o OUT.csv [--json]` (docs/design.md §11). */
#include <stdio.h>
#include <string.h>

#include "cf_io.h"
#include "commands.h"
#include "progress.h"

static const char *help =
    "usage: clothfit synth CONFIG.ini -o OUT.csv [--json]\n"
    "\n"
    "Make a synthetic motion-capture recording: a cloth simulated on a mesh finer\n"
    "than the fitting mesh (small kappa, beta > 0: model mismatch), driven at its\n"
    "top corners by a human-like shake or twist scaled to the average marker speed\n"
    "of Table 4.4, its marker lattice sampled at 120 Hz with noise, occlusion gaps,\n"
    "label fragments and ghost markers.  Writes OUT.csv (Motive 1.23, mm, Y up),\n"
    "OUT.truth.ini (ground truth: delta, alpha, ..., achieved speed, fragment map,\n"
    "gaps), OUT.meta.ini (for `clothfit ingest motive --meta`) and OUT.map (a marker\n"
    "mapping file), all or none.  Every key of CONFIG with its default and meaning:\n"
    "datasets/aero-mini/synth-keys.ini (delta and alpha default to Tables A.1/A.2,\n"
    "the density to Table 4.1).\n"
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
  cf_obstacle table;
  double t[5];
  if (cf_synth_table(c, &table, t)) {
    printf("speed             %.4f m/s (a tablecloth's motion is not calibrated to a speed)\n", r->achieved_speed);
    printf("table             top at %.4f m, x %g..%g m, y %g..%g m, mu %g\n", t[0], t[1], t[2], t[3], t[4],
           c->table_mu);
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
  if (!out) return cf_cli_fail("synth", "missing -o OUT.csv (see --help)");
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
