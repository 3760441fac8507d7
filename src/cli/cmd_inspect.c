/* cmd_inspect.c — `clothfit inspect FILE.h5 [--json]`: what is in a
 * recording (frames, duration, dt, markers and their missing data, the
 * source export's frames, the mesh of a mesh sequence) or, by the file's
 * clothfit_format, in a results file (inspect_results.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cf_io.h"
#include "commands.h"

static double duration(const cf_recording *r) { return r->n_frames ? r->time[r->n_frames - 1] - r->time[0] : 0; }

static void print_text(const char *path, const cf_recording *r) {
  const cf_rec_meta *m = &r->meta;
  printf("recording         %s\n", path);
  printf("source            %s %s%s%s\n", r->source_kind, r->source_file, r->source_sha256[0] ? " sha256 " : "",
         r->source_sha256);
  printf("frames            %d\n", r->n_frames);
  printf("duration          %.4f s\n", duration(r));
  printf("dt                %.6g s (%s)\n", r->dt, r->uniform ? "uniform, resampled linearly" : "native frames");
  printf("cloth             material '%s', size '%s' (%.3f x %.3f m), density %g kg/m^2\n", m->material, m->size,
         m->width_m, m->height_m, m->density);
  printf("motion            '%s', speed '%s', repetition '%s'\n", m->motion, m->speed, m->repetition);
  if (cf_rec_table_valid(m->table)) {
    printf("table             top face at z = %.4f m, x %.4g..%.4g m, y %.4g..%.4g m", m->table[0], m->table[1],
           m->table[2], m->table[3], m->table[4]);
    if (m->table_fitted)
      printf(" (fitted to the first frame's points: %ld, rms %.2f mm)", m->table_fit_points, 1e3 * m->table_fit_rms_m);
    printf("\n");
  }
  cf_ingest_mesh_summary(r, NULL);
  cf_cli_export_report(r, NULL);
  cf_cli_markers_report(r, NULL);
  printf("markers           %d", r->n_markers);
  if (r->n_dropped) printf(" (%d never-seen marker(s) dropped at ingest)", r->n_dropped);
  if (r->n_markers) printf("\n  %-32s %10s %14s", "name", "missing", "longest gap");
  if (r->n_markers && r->proc) printf(" %8s %7s %7s", "cell", "weight", "filled");
  printf("\n");
  for (int k = 0; k < r->n_markers; k++) {
    cf_marker_quality q = cf_recording_quality(r, k);
    printf("  %-32s %9.2f%% %12.3f s", r->names[k], 100 * q.missing_fraction, q.longest_gap_s);
    cf_cli_marker_fields(r, k, NULL);
    printf("\n");
  }
}

static void print_json(const char *path, const cf_recording *r) {
  const cf_rec_meta *m = &r->meta;
  json_t *j = json_object();
  cf_cli_json_str(j, "file", path);
  cf_cli_json_str(j, "source_kind", r->source_kind);
  cf_cli_json_str(j, "source_file", r->source_file);
  cf_cli_json_num(j, "frames", r->n_frames);
  cf_cli_json_num(j, "duration_s", duration(r));
  cf_cli_json_num(j, "dt", r->dt);
  cf_cli_json_str(j, "resampling", r->uniform ? "linear" : "native");
  json_t *mj = cf_cli_json_object(j, "meta");
  cf_cli_json_str(mj, "material", m->material);
  cf_cli_json_str(mj, "size", m->size);
  cf_cli_json_num(mj, "width_m", m->width_m);
  cf_cli_json_num(mj, "height_m", m->height_m);
  cf_cli_json_num(mj, "density", m->density);
  cf_cli_json_str(mj, "motion", m->motion);
  cf_cli_json_str(mj, "speed", m->speed);
  cf_cli_json_str(mj, "repetition", m->repetition);
  if (cf_rec_table_valid(m->table)) {
    json_t *t = cf_cli_json_object(mj, "table");
    cf_cli_json_num(t, "height", m->table[0]);
    cf_cli_json_nums(t, "extent", m->table + 1, 4);
    if (m->table_fitted) cf_cli_json_set(t, "fitted", json_true()); /* a given table's object as before */
  } else {
    cf_cli_json_set(mj, "table", NULL);
  }
  cf_cli_json_num(j, "n_markers", r->n_markers);
  cf_cli_json_num(j, "dropped_markers", r->n_dropped);
  json_t *list = cf_cli_json_array(j, "markers");
  for (int k = 0; k < r->n_markers; k++) {
    cf_marker_quality q = cf_recording_quality(r, k);
    json_t *mk = json_object();
    json_array_append_new(list, mk);
    cf_cli_json_str(mk, "name", r->names[k]);
    cf_cli_json_num(mk, "missing_fraction", q.missing_fraction);
    cf_cli_json_num(mk, "longest_gap_s", q.longest_gap_s);
    cf_cli_marker_fields(r, k, mk);
  }
  cf_ingest_mesh_summary(r, j);
  cf_cli_export_report(r, j);
  cf_cli_markers_report(r, j);
  cf_cli_json_print(j);
}

static const cf_cli_option options[] = {CF_CLI_END}; /* --json alone */

static int run_cmd(const cf_cli_call *c, void *opts) {
  (void)opts;
  const char *path = c->pos[0];
  cf_recording r;
  cf_error err = {0, ""};
  char format[64];
  if (cf_h5_file_format(path, format, sizeof format, &err)) return cf_cli_fail("inspect", "%s", err.msg);
  if (!strcmp(format, "results-1")) return cf_cli_inspect_results(path, c->json);
  if (cf_recording_read_h5(path, &r, &err)) return cf_cli_fail("inspect", "%s", err.msg);
  print_text(path, &r);
  if (c->json) print_json(path, &r);
  cf_recording_free(&r);
  return 0;
}

const cf_cli_command cf_cli_cmd_inspect = {
    .name = "inspect", .summary = "summarize an HDF5 recording (frames, dt, markers, missing data) or results file",
    .help = cf_cli_help_inspect, .options = options, .max_pos = 1, .needs = "FILE.h5", .run = run_cmd};
