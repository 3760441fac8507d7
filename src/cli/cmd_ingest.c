/* cmd_ingest.c — `clothfit ingest motive|csv|meshes|clouds ... -o REC.h5 ...`:
 * read a Motive CSV export, a generic marker CSV, a mesh sequence or point
 * clouds, process the markers, resample to a uniform dt (not clouds) and
 * write the HDF5 recording of docs/design.md §6 (the library's steps and
 * option reading, cf_pipeline.h "ingest"), then print the summary. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cf_io.h"
#include "cf_pipeline.h"
#include "commands.h"

typedef struct {
  cf_pipeline_ingest p; /* the library's settings (kind, in, out, ...) */
  int json;
} ingest_args;

static int parse_args(int argc, char **argv, ingest_args *a) {
  cf_pipeline_ingest *p = &a->p;
  cf_error err = {0, ""};
  for (int i = 1; i + 1 < argc; i++) /* --meta FILE first, so that the other options override it */
    if (!strcmp(argv[i], "--meta") && cf_pipeline_ingest_meta(p, argv[i + 1], &err))
      return cf_cli_fail("ingest", "%s", err.msg);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) a->json = 1;
    else if (cf_pipeline_ingest_flag(p, argv[i])) continue;
    else if (argv[i][0] == '-' && i + 1 < argc && cf_pipeline_ingest_option(p, argv[i], argv[i + 1], &err)) {
      if (err.code) return cf_cli_fail("ingest", "%s", err.msg);
      i++;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cf_cli_fail("ingest", "unknown option or missing value: '%s' (see --help)", argv[i]);
    } else if (!p->kind) p->kind = argv[i];
    else if (!p->in) p->in = argv[i];
    else return cf_cli_fail("ingest", "unexpected argument '%s' (see --help%s)", argv[i],
                            !strcmp(p->kind, "meshes") || !strcmp(p->kind, "clouds")
                                ? "; quote a glob pattern so that the shell leaves it alone" : "");
  }
  if (!p->kind || !p->in) return cf_cli_fail("ingest", "usage: clothfit ingest motive FILE.csv -o REC.h5 (see --help)");
  return cf_pipeline_ingest_check(p, &err) ? cf_cli_fail("ingest", "%s", err.msg) : 0;
}

/* What the fitting commands' driven simulation (at their defaults) will
 * change of the recording just written: the held points' noise, smoothing
 * and pulls, the start's residual, or why it refuses them
 * (docs/driving.md, docs/start.md); nothing for a recording the fitting
 * commands cannot load (no lattice, ...: they say why). */
static void held_report(const char *out, json_t *j) {
  cf_fit_input *in = NULL;
  cf_error err = {0, ""};
  cf_drive_fix f;
  char why[400];
  if (cf_pipeline_inputs_load(&out, 1, NULL, &in, &err)) return;
  int rc = cf_fit_input_drive_fix(in, &f, why, sizeof why);
  int T = in->tg.T;
  cf_pipeline_inputs_free(in, 1);
  if (rc) return;
  if (j) {
    cf_cli_json_str(j, "held_refused", why[0] ? why : NULL);
    cf_cli_json_num(j, "held_noise_mm", why[0] ? NAN : 1e3 * f.noise_m);
    cf_cli_json_num(j, "held_smoothing_frames", why[0] ? NAN : f.window);
    cf_cli_json_num(j, "held_smoothed_max_mm", why[0] ? NAN : 1e3 * f.smooth_max_m);
    cf_cli_json_num(j, "held_pulled_frames", why[0] ? NAN : f.frames);
    cf_cli_json_num(j, "held_pull_max_mm", why[0] ? NAN : 1e3 * f.max_pull_m);
    cf_cli_json_num(j, "start_residual_mean_mm", why[0] ? NAN : 1e3 * f.start_mean_m);
    cf_cli_json_num(j, "start_residual_max_mm", why[0] ? NAN : 1e3 * f.start_max_m);
    return;
  }
  if (why[0]) {
    printf("held points       refused by the fitting commands: %s\n", why);
    return;
  }
  printf("held points       noise %.3f mm, %s", 1e3 * f.noise_m, f.window > 1 ? "smoothed over" : "not smoothed");
  if (f.window > 1) printf(" %d frames (largest move %.3f mm)", f.window, 1e3 * f.smooth_max_m);
  if (f.frames) printf("; pulled onto the top edge's reach on %d of %d frames, by at most %.3f mm", f.frames, T,
                       1e3 * f.max_pull_m);
  printf(" (docs/driving.md)\n");
  printf("start             %.3f mm from the first frame's markers on average, %.3f mm at most (docs/start.md)\n",
         1e3 * f.start_mean_m, 1e3 * f.start_max_m);
}

static void summary_text(const ingest_args *a, const cf_recording *r) {
  double dur = r->n_frames ? r->time[r->n_frames - 1] : 0;
  printf("source            %s (%s, up %c, unit scale %g)\n", a->p.in,
         r->mesh.n_nodes    ? "mesh sequence"
         : r->cloud.offset  ? "point clouds"
         : !strcmp(a->p.kind, "csv") ? "generic CSV"
                                   : "Motive",
         r->up, r->unit_scale);
  printf("frames            %d over %.4f s, dt %.6g s (%s)\n", r->n_frames, dur, r->dt,
         r->uniform ? "resampled linearly" : "native frames");
  printf("markers           %d", r->n_markers);
  if (r->n_dropped) printf(" (%d never-seen marker(s) dropped: %s%s)", r->n_dropped, r->dropped[0],
                           r->n_dropped > 1 ? ", ..." : "");
  printf("\n");
  cf_ingest_mesh_summary(r, NULL);
  cf_cli_export_report(r, NULL);
  cf_cli_markers_report(r, NULL);
  held_report(a->p.out, NULL);
  printf("output            %s\n", a->p.out);
}

static void summary_json(const ingest_args *a, const cf_recording *r) {
  double dur = r->n_frames ? r->time[r->n_frames - 1] : 0;
  json_t *j = json_object();
  cf_cli_json_str(j, "output", a->p.out);
  cf_cli_json_str(j, "source", a->p.in);
  cf_cli_json_num(j, "frames", r->n_frames);
  cf_cli_json_num(j, "markers", r->n_markers);
  cf_cli_json_num(j, "dropped_markers", r->n_dropped);
  cf_cli_json_num(j, "dt", r->dt);
  cf_cli_json_num(j, "duration_s", dur);
  cf_cli_json_str(j, "resampling", r->uniform ? "linear" : "native");
  cf_ingest_mesh_summary(r, j);
  cf_cli_export_report(r, j);
  cf_cli_markers_report(r, j);
  held_report(a->p.out, j);
  cf_cli_json_str(j, "source_sha256", r->source_sha256[0] ? r->source_sha256 : NULL);
  cf_cli_json_print(j);
}

/* The library's notes (an edited export) on stderr. */
static void warn(void *user, const char *text) {
  (void)user;
  fprintf(stderr, "clothfit ingest: warning: %s\n", text);
}

/* The options are the library's (cf_pipeline.h "ingest"): parse_args reads argv. */
static int run_cmd(const cf_cli_call *c, void *opts) {
  (void)opts;
  int argc = c->argc;
  char **argv = c->argv;
  ingest_args a;
  memset(&a, 0, sizeof a);
  cf_pipeline_ingest_init(&a.p);
  if (parse_args(argc, argv, &a)) return 1;
  cf_recording r;
  cf_error err = {0, ""};
  cf_pipeline_progress pp = {NULL, NULL, warn, NULL};
  int rc = cf_pipeline_ingest_run(&a.p, &pp, &r, &err);
  if (!rc) summary_text(&a, &r);
  if (!rc && a.json) summary_json(&a, &r);
  cf_recording_free(&r);
  return rc ? cf_cli_fail("ingest", "%s", err.msg) : 0;
}

const cf_cli_command cf_cli_cmd_ingest = {
    .name = "ingest",
    .summary = "read a motion-capture export (Motive CSV, generic CSV, mesh sequence, point clouds) into an HDF5 recording",
    .help = cf_cli_help_ingest, .run = run_cmd};
