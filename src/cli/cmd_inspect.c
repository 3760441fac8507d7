/* cmd_inspect.c — `clothfit inspect FILE.h5 [--json]`: what is in a
 * recording (frames, duration, dt, markers and their missing data, the
 * source export's frames, the mesh of a mesh sequence) or, by the file's
 * clothfit_format, in a results file (inspect_results.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cf_io.h"
#include "commands.h"

static const char *help =
    "usage: clothfit inspect FILE.h5 [--json]\n"
    "\n"
    "Summarise an HDF5 file of clothfit: a recording (written by `clothfit ingest`)\n"
    "or a results file (written by sweep, fit, sensitivity, regress, experiment);\n"
    "the kind is read from the file's clothfit_format attribute.\n"
    "\n"
    "Recording: the frames, duration, time step and markers, the cloth metadata,\n"
    "the marker processing, the source export's frames against its header (a\n"
    "trimmed or cut Motive export is flagged), and per marker the fraction of\n"
    "frames where it is missing and its longest gap (seconds).\n"
    "\n"
    "Results file: provenance (tool version, git revision, when it was written,\n"
    "the command), the recordings it holds and per recording the sweep grid (axes\n"
    "ranges and sizes, window, model settings), its best point and error, the\n"
    "failed and pruned grid points, the refined fit (method, start, delta, alpha,\n"
    "errors, evaluations, training window, kappa/beta/tol, and kappa and beta\n"
    "with their starts when fitted), the per-frame series\n"
    "(with the marker lattice when it stores the recorded and simulated markers)\n"
    "and the sensitivity map; the regression (coefficients, R*, E*, recordings\n"
    "used) when present.\n"
    "\n"
    "--json: also one JSON object on the last line (\"kind\":\"results\" for a\n"
    "results file).\n";

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

int cmd_inspect(int argc, char **argv) {
  const char *path = NULL;
  int json = 0;
  if (cf_cli_wants_help(argc, argv)) {
    fputs(help, stdout);
    return 0;
  }
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json")) json = 1;
    else if (argv[i][0] == '-') return cf_cli_fail("inspect", "unknown option '%s' (see --help)", argv[i]);
    else if (!path) path = argv[i];
    else return cf_cli_fail("inspect", "unexpected argument '%s' (see --help)", argv[i]);
  }
  if (!path) return cf_cli_fail("inspect", "missing FILE.h5 (see --help)");
  cf_recording r;
  cf_error err = {0, ""};
  char format[64];
  if (cf_h5_file_format(path, format, sizeof format, &err)) return cf_cli_fail("inspect", "%s", err.msg);
  if (!strcmp(format, "results-1")) return cf_cli_inspect_results(path, json);
  if (cf_recording_read_h5(path, &r, &err)) return cf_cli_fail("inspect", "%s", err.msg);
  print_text(path, &r);
  if (json) print_json(path, &r);
  cf_recording_free(&r);
  return 0;
}
