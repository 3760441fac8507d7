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
    "errors, evaluations, training window, kappa/beta/tol), the per-frame series\n"
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
  if (cf_rec_table_valid(m->table))
    printf("table             top face at z = %.4f m, x %.4g..%.4g m, y %.4g..%.4g m\n", m->table[0], m->table[1],
           m->table[2], m->table[3], m->table[4]);
  if (r->mesh.n_nodes) cf_ingest_mesh_summary(r, 0);
  cf_cli_export_report(r, 0);
  cf_cli_markers_report(r, 0);
  printf("markers           %d", r->n_markers);
  if (r->n_dropped) printf(" (%d never-seen marker(s) dropped at ingest)", r->n_dropped);
  if (r->n_markers) printf("\n  %-32s %10s %14s", "name", "missing", "longest gap");
  if (r->n_markers && r->proc) printf(" %8s %7s %7s", "cell", "weight", "filled");
  printf("\n");
  for (int k = 0; k < r->n_markers; k++) {
    cf_marker_quality q = cf_recording_quality(r, k);
    printf("  %-32s %9.2f%% %12.3f s", r->names[k], 100 * q.missing_fraction, q.longest_gap_s);
    cf_cli_marker_fields(r, k, 0);
    printf("\n");
  }
}

static void json_field(const char *key, const char *value, int comma) {
  printf("%s\"%s\":", comma ? "," : "", key);
  cf_cli_json_string(stdout, value);
}

static void json_num(const char *key, double v) {
  printf(",\"%s\":", key);
  cf_cli_json_number(stdout, v);
}

static void print_json(const char *path, const cf_recording *r) {
  const cf_rec_meta *m = &r->meta;
  printf("{");
  json_field("file", path, 0);
  json_field("source_kind", r->source_kind, 1);
  json_field("source_file", r->source_file, 1);
  printf(",\"frames\":%d", r->n_frames);
  json_num("duration_s", duration(r));
  json_num("dt", r->dt);
  printf(",\"resampling\":\"%s\",\"meta\":{", r->uniform ? "linear" : "native");
  json_field("material", m->material, 0);
  json_field("size", m->size, 1);
  json_num("width_m", m->width_m);
  json_num("height_m", m->height_m);
  json_num("density", m->density);
  json_field("motion", m->motion, 1);
  json_field("speed", m->speed, 1);
  json_field("repetition", m->repetition, 1);
  if (cf_rec_table_valid(m->table))
    printf(",\"table\":{\"height\":%.10g,\"extent\":[%.10g,%.10g,%.10g,%.10g]}", m->table[0], m->table[1],
           m->table[2], m->table[3], m->table[4]);
  else
    printf(",\"table\":null");
  printf("},\"n_markers\":%d,\"dropped_markers\":%d,\"markers\":[", r->n_markers, r->n_dropped);
  for (int k = 0; k < r->n_markers; k++) {
    cf_marker_quality q = cf_recording_quality(r, k);
    printf("%s{", k ? "," : "");
    json_field("name", r->names[k], 0);
    json_num("missing_fraction", q.missing_fraction);
    json_num("longest_gap_s", q.longest_gap_s);
    cf_cli_marker_fields(r, k, 1);
    printf("}");
  }
  printf("]");
  if (r->mesh.n_nodes) cf_ingest_mesh_summary(r, 1);
  cf_cli_export_report(r, 1);
  cf_cli_markers_report(r, 1);
  printf("}\n");
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
