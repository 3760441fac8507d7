/* cmd_ingest.c — `clothfit ingest motive|csv|meshes|clouds ... -o REC.h5 ...`:
 * read a Motive CSV export, a generic marker CSV, a mesh sequence or point
 * clouds, process the markers (ingest_markers.c), resample to a uniform dt
 * (not clouds) and write the HDF5 recording of docs/design.md §6. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cf_io.h"
#include "cf_pipeline.h"
#include "commands.h"

static const char *help =
    "usage: clothfit ingest motive FILE.csv -o REC.h5 [--dt SECONDS|native] [--up y|z]\n"
    "         [--material M] [--size A2|A3|WxH] [--density KG_M2] [--motion M] [--speed S]\n"
    "         [--repetition R] [--notes TEXT] [--table-height Z --table-extent X0,X1,Y0,Y1]\n"
    "         [--rigid-bodies] [--keep-unseen]\n"
    "         [--allow-no-markers] [--strict] [--json]\n"
    "\n"
    "Read an OptiTrack Motive CSV export (format 1.21-1.25), convert to metres and\n"
    "z up, resample to a uniform time step and write the HDF5 recording REC.h5\n"
    "(/time, /markers/position, /markers/name, /meta, /quality, /source).\n"
    "\n"
    "  --dt SECONDS|native  time step of the recording (default 0.01); 'native' keeps\n"
    "                       the file's frames.  Resampling interpolates linearly between\n"
    "                       the two bracketing frames; a marker missing at either stays\n"
    "                       missing (NaN), gaps are never filled.\n"
    "  --up y|z             up axis of the file: y (Motive's default) maps\n"
    "                       (x, y, z) = (x_M, -z_M, y_M); z keeps the axes\n"
    "  --size A2|A3|WxH     cloth size: A2 0.420 x 0.594 m, A3 0.297 x 0.420 m, or\n"
    "                       WxH in metres (e.g. 0.5x0.7)\n"
    "  --density KG_M2      areal density; default from --material when it is one of\n"
    "                       paper, polyester, light-cotton, felt, wool, denim, stiff-cotton\n"
    "  --table-height Z     the cloth meets a table whose top face is at height Z (m, in\n"
    "  --table-extent X0,X1,Y0,Y1  the recording's z-up frame) and spans x in X0..X1,\n"
    "                       y in Y0..Y1 (m): written to /table; simulations of the\n"
    "                       recording put that table in, and fit --params\n"
    "                       delta,alpha,mu fits the cloth's friction on it.  Both\n"
    "                       or neither (also as table_height, table_extent in --meta)\n"
    "  --rigid-bodies       also keep rigid-body and rigid-body-marker positions\n"
    "  --keep-unseen        keep markers that have no sample at all (all NaN)\n"
    "  --allow-no-markers   write an empty recording instead of failing on a file\n"
    "                       without markers\n"
    "  --strict             refuse an export whose number of data rows differs from\n"
    "                       its metadata's Total Exported Frames.  Without it a trimmed\n"
    "                       or cut export (rows removed at the start, the end or inside)\n"
    "                       loads with a warning on stderr, and /quality records it\n"
    "                       (frames_expected, frames_found, first_frame_number,\n"
    "                       frame_jumps, edited_export = 1).  A last row with fewer\n"
    "                       cells than the header is an error either way.\n"
    "  --json               also print a JSON object on the last line\n";

typedef struct {
  const char *kind, *in, *out;
  const char *held;      /* ingest clouds: --held-track */
  int grid[2];           /* ingest clouds: --grid RxC (0: not given) */
  double dt; /* 0 = native, -1 = not given (0.01; clouds: native) */
  int json;
  cf_motive_opts mopts;
  cf_rec_meta meta;
  cf_meshseq_opts mesh; /* ingest meshes */
  cf_marker_opts mk;    /* marker processing (motive, csv) */
  cf_csv_opts csv;      /* ingest csv */
} ingest_args;

static const struct {
  const char *name;
  double rho;
} densities[] = {{"paper", 0.0802}, {"polyester", 0.1042}, {"light-cotton", 0.1604}, {"felt", 0.1764},
                 {"wool", 0.1804},  {"denim", 0.3046},     {"stiff-cotton", 0.3046}};

static int parse_positive(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  return end != s && !*end && isfinite(*v) && *v > 0;
}

static int parse_size(const char *s, cf_rec_meta *m) {
  char *end;
  if (!strcmp(s, "A2") || !strcmp(s, "a2")) m->width_m = 0.420, m->height_m = 0.594;
  else if (!strcmp(s, "A3") || !strcmp(s, "a3")) m->width_m = 0.297, m->height_m = 0.420;
  else {
    m->width_m = strtod(s, &end);
    if (end == s || (*end != 'x' && *end != 'X') || !parse_positive(end + 1, &m->height_m) ||
        !(m->width_m > 0) || !isfinite(m->width_m))
      return 0;
    snprintf(m->size, sizeof m->size, "custom");
    return 1;
  }
  snprintf(m->size, sizeof m->size, "%c%c", 'A', s[1]);
  return 1;
}

static void copy_arg(char *dst, size_t size, const char *s) { snprintf(dst, size, "%s", s); }

/* One option with its value at argv[*i + 1]; returns 0 if not one of these. */
static int meta_option(const char *opt, const char *v, ingest_args *a, int *bad) {
  cf_rec_meta *m = &a->meta;
  if (!strcmp(opt, "--material")) copy_arg(m->material, sizeof m->material, v);
  else if (!strcmp(opt, "--motion")) copy_arg(m->motion, sizeof m->motion, v);
  else if (!strcmp(opt, "--speed")) copy_arg(m->speed, sizeof m->speed, v);
  else if (!strcmp(opt, "--repetition")) copy_arg(m->repetition, sizeof m->repetition, v);
  else if (!strcmp(opt, "--notes")) copy_arg(m->notes, sizeof m->notes, v);
  else if (!strcmp(opt, "--size")) *bad = !parse_size(v, m);
  else if (!strcmp(opt, "--density")) *bad = !parse_positive(v, &m->density);
  else if (!strcmp(opt, "--table-height")) *bad = !cf_text_double(v, m->table);
  else if (!strcmp(opt, "--table-extent"))
    *bad = !cf_rec_table_extent_parse(v, m->table + 1);
  else if (!strcmp(opt, "--dt")) *bad = !(!strcmp(v, "native") ? (a->dt = 0, 1) : parse_positive(v, &a->dt));
  else if (!strcmp(opt, "--up")) *bad = !(strlen(v) == 1 && (v[0] == 'y' || v[0] == 'z')), a->mopts.up = v[0];
  else if (!strcmp(opt, "-o")) a->out = v;
  else if (!strcmp(opt, "--held-track")) a->held = v;
  else if (!strcmp(opt, "--grid")) *bad = !cf_parse_lattice(v, &a->grid[0], &a->grid[1]);
  else return 0;
  return 1;
}

static int flag_option(const char *opt, ingest_args *a) {
  if (!strcmp(opt, "--json")) a->json = 1;
  else if (!strcmp(opt, "--rigid-bodies")) a->mopts.rigid_bodies = 1;
  else if (!strcmp(opt, "--keep-unseen")) a->mopts.keep_unseen = 1;
  else if (!strcmp(opt, "--allow-no-markers")) a->mopts.allow_empty = 1;
  else if (!strcmp(opt, "--strict")) a->mopts.strict = 1;
  else return 0;
  return 1;
}

static int parse_args(int argc, char **argv, ingest_args *a) {
  for (int i = 1; i < argc; i++) {
    int bad = 0;
    if (flag_option(argv[i], a)) continue;
    if (argv[i][0] == '-' && i + 1 < argc &&
        (meta_option(argv[i], argv[i + 1], a, &bad) || cf_ingest_mesh_option(argv[i], argv[i + 1], &a->mesh, &bad) ||
         cf_ingest_marker_option(argv[i], argv[i + 1], &a->mk, &bad) ||
         cf_ingest_csv_option(argv[i], argv[i + 1], &a->csv, &bad))) {
      if (bad) return cf_cli_fail("ingest", "invalid value '%s' for %s (see --help)", argv[i + 1], argv[i]);
      i++;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return cf_cli_fail("ingest", "unknown option or missing value: '%s' (see --help)", argv[i]);
    } else if (!a->kind) a->kind = argv[i];
    else if (!a->in) a->in = argv[i];
    else return cf_cli_fail("ingest", "unexpected argument '%s' (see --help%s)", argv[i],
                            !strcmp(a->kind, "meshes") || !strcmp(a->kind, "clouds")
                                ? "; quote a glob pattern so that the shell leaves it alone" : "");
  }
  if (!a->kind || !a->in) return cf_cli_fail("ingest", "usage: clothfit ingest motive FILE.csv -o REC.h5 (see --help)");
  int clouds = !strcmp(a->kind, "clouds");
  if (strcmp(a->kind, "motive") && strcmp(a->kind, "meshes") && strcmp(a->kind, "csv") && !clouds)
    return cf_cli_fail("ingest", "unknown source kind '%s' (this build reads: motive, csv, meshes, clouds)", a->kind);
  if (clouds != (a->held != NULL))
    return cf_cli_fail("ingest", clouds ? "ingest clouds needs --held-track CORNERS.csv, the held corners' "
                       "trajectory (see --help)" : "--held-track is an option of 'ingest clouds'");
  if (!clouds && a->grid[0]) return cf_cli_fail("ingest", "--grid is an option of 'ingest clouds'");
  if (clouds && a->dt > 0)
    return cf_cli_fail("ingest", "--dt: point clouds keep the camera's frames (they are never resampled)");
  if (a->dt < 0) a->dt = clouds ? 0 : 0.01;
  if (cf_ingest_mesh_check(a->kind, &a->mesh, &a->mk) || cf_ingest_markers_check(a->kind, &a->mk, &a->csv)) return 1;
  if (a->mopts.strict && strcmp(a->kind, "motive"))
    return cf_cli_fail("ingest", "--strict is an option of 'ingest motive' (see --help)");
  if (!a->out) return cf_cli_fail("ingest", "missing -o REC.h5 (see --help)");
  const double *t = a->meta.table;
  if ((isfinite(t[0]) || isfinite(t[1])) && !cf_rec_table_valid(t))
    return cf_cli_fail("ingest", "a table needs both its height (--table-height or table_height) and its extent "
                       "(--table-extent or table_extent)");
  struct stat si, so;
  if (!stat(a->in, &si) && !stat(a->out, &so) && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
    return cf_cli_fail("ingest", "%s: the output would overwrite the input", a->out);
  return 0;
}

static void default_density(cf_rec_meta *m) {
  if (!isnan(m->density)) return;
  for (size_t i = 0; i < sizeof densities / sizeof densities[0]; i++)
    if (!strcmp(m->material, densities[i].name)) m->density = densities[i].rho;
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

static void summary(const ingest_args *a, const cf_recording *r) {
  double dur = r->n_frames ? r->time[r->n_frames - 1] : 0;
  printf("source            %s (%s, up %c, unit scale %g)\n", a->in,
         r->mesh.n_nodes    ? "mesh sequence"
         : r->cloud.offset  ? "point clouds"
         : !strcmp(a->kind, "csv") ? "generic CSV"
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
  held_report(a->out, NULL);
  printf("output            %s\n", a->out);
  if (a->json) {
    json_t *j = json_object();
    cf_cli_json_str(j, "output", a->out);
    cf_cli_json_str(j, "source", a->in);
    cf_cli_json_num(j, "frames", r->n_frames);
    cf_cli_json_num(j, "markers", r->n_markers);
    cf_cli_json_num(j, "dropped_markers", r->n_dropped);
    cf_cli_json_num(j, "dt", r->dt);
    cf_cli_json_num(j, "duration_s", dur);
    cf_cli_json_str(j, "resampling", r->uniform ? "linear" : "native");
    cf_ingest_mesh_summary(r, j);
    cf_cli_export_report(r, j);
    cf_cli_markers_report(r, j);
    held_report(a->out, j);
    cf_cli_json_str(j, "source_sha256", r->source_sha256[0] ? r->source_sha256 : NULL);
    cf_cli_json_print(j);
  }
}

/* One line on stderr when the export was trimmed or cut (loaded as it is). */
static void export_warning(const char *in, const cf_rec_export *x) {
  char what[1400];
  if (!cf_rec_export_describe(x, in, what, sizeof what)) return;
  fprintf(stderr, "clothfit ingest: warning: %s: loaded as it is, recorded in /quality%s\n", what,
          x->frames_expected >= 0 && x->frames_expected != x->frames_found ? " (--strict refuses it)" : "");
}

/* Read the source; markers are processed (and resampled), meshes resampled. */
static int read_source(ingest_args *a, cf_recording *r, cf_error *err) {
  int meshes = !strcmp(a->kind, "meshes"), clouds = !strcmp(a->kind, "clouds"), rc;
  a->csv.unit_scale = a->mesh.unit_scale, a->csv.up = a->mesh.up;
  if (clouds) {
    rc = cf_cloudseq_read(a->in, a->held, &a->mesh, r, err);
    if (!rc) memcpy(r->cloud.grid, a->grid, sizeof a->grid);
    return rc;
  }
  if (meshes) rc = cf_meshseq_read(a->in, &a->mesh, r, err);
  else if (!strcmp(a->kind, "csv")) rc = cf_csv_read(a->in, &a->csv, r, err);
  else rc = cf_motive_read(a->in, &a->mopts, r, err);
  if (!rc) export_warning(a->in, &r->exported);
  if (!rc && meshes && a->dt > 0 && r->n_frames > 0) rc = cf_recording_resample(r, a->dt, err);
  if (!rc && !meshes) rc = cf_markers_process(r, &a->mk, a->dt, err);
  return rc;
}

int cmd_ingest(int argc, char **argv) {
  if (cf_cli_wants_help(argc, argv)) {
    fputs(help, stdout);
    fputs(cf_ingest_mesh_help, stdout);
    fputs(cf_ingest_markers_help, stdout);
    return 0;
  }
  ingest_args a;
  memset(&a, 0, sizeof a);
  a.dt = -1;
  cf_motive_opts_default(&a.mopts);
  cf_meshseq_opts_default(&a.mesh);
  a.mopts.up = 0; /* --up's default depends on the kind */
  cf_recording tmp;
  cf_recording_init(&tmp);
  a.meta = tmp.meta;
  cf_marker_opts_default(&a.mk);
  cf_csv_opts_default(&a.csv);
  if (cf_ingest_meta(argc, argv, &a.meta, &a.mk) || parse_args(argc, argv, &a)) return 1;
  a.mesh.up = a.mopts.up ? a.mopts.up : 'z';
  if (!a.mopts.up) a.mopts.up = 'y';
  default_density(&a.meta);
  cf_recording r;
  cf_error err = {0, ""};
  int rc = read_source(&a, &r, &err);
  if (!rc) {
    if (!r.source_sha256[0]) cf_sha256_file(a.in, r.source_sha256, NULL); /* unless the reader did */
    r.meta = a.meta;
    rc = cf_recording_write_h5(a.out, &r, &err);
  }
  if (!rc) summary(&a, &r);
  cf_recording_free(&r);
  return rc ? cf_cli_fail("ingest", "%s", err.msg) : 0;
}
