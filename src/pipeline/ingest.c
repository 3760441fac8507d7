/* ingest.c — a recording from its source (cf_pipeline.h "ingest"): the
 * options of `clothfit ingest motive|csv|meshes|clouds` read from their
 * words, checked against the kind of source, and the source read,
 * processed (markers), resampled (not clouds) and written as the HDF5
 * recording of docs/design.md §6.  The command line and the Python module
 * (ingest_motive, ingest_meshes, ingest_clouds) both read their options
 * here, so they accept the same values and refuse the others alike.
 *
 * Computes: the settings (cf_pipeline_ingest) from option words as the
 * command line spells them ("--dt", "0.01"); the default density of a
 * named material; the recording (cf_recording) and its file.
 * Ownership: the option words and file names are borrowed and must outlive
 * the cf_pipeline_ingest (it keeps some of the pointers); the recording
 * cf_pipeline_ingest_run fills is the caller's (cf_recording_free, also
 * after a failure).
 * Failure: CF_EINVAL with the command line's message for an option or a
 * combination it refuses ("invalid value 'x' for --dt (see --help)"), the
 * readers' and the writer's codes and messages otherwise.  The warning of
 * an edited export goes to the progress's note. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipeline_internal.h"

static const struct {
  const char *name;
  double rho;
} densities[] = {{"paper", 0.0802}, {"polyester", 0.1042}, {"light-cotton", 0.1604}, {"felt", 0.1764},
                 {"wool", 0.1804},  {"denim", 0.3046},     {"stiff-cotton", 0.3046}};

void cf_pipeline_ingest_init(cf_pipeline_ingest *a) {
  memset(a, 0, sizeof *a);
  a->dt = -1;
  cf_motive_opts_default(&a->mopts);
  cf_meshseq_opts_default(&a->mesh);
  a->mopts.up = 0; /* --up's default depends on the kind */
  cf_recording tmp;
  cf_recording_init(&tmp);
  a->meta = tmp.meta;
  cf_marker_opts_default(&a->mk);
  cf_csv_opts_default(&a->csv);
}

int cf_pipeline_ingest_meta(cf_pipeline_ingest *a, const char *file, cf_error *err) {
  return cf_meta_load(file, &a->meta, &a->mk, err);
}

/* ------------------------------------------------------------------ values */
static int positive(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  return end != s && !*end && isfinite(*v) && *v > 0;
}

static int non_negative(const char *s, double *v) {
  char *end;
  *v = strtod(s, &end);
  return end != s && !*end && isfinite(*v) && *v >= 0;
}

static int copy_value(char *dst, size_t size, const char *v) { return snprintf(dst, size, "%s", v) < (int)size; }

static int parse_size(const char *s, cf_rec_meta *m) {
  char *end;
  if (!strcmp(s, "A2") || !strcmp(s, "a2")) m->width_m = 0.420, m->height_m = 0.594;
  else if (!strcmp(s, "A3") || !strcmp(s, "a3")) m->width_m = 0.297, m->height_m = 0.420;
  else {
    m->width_m = strtod(s, &end);
    if (end == s || (*end != 'x' && *end != 'X') || !positive(end + 1, &m->height_m) || !(m->width_m > 0) ||
        !isfinite(m->width_m))
      return 0;
    snprintf(m->size, sizeof m->size, "custom");
    return 1;
  }
  snprintf(m->size, sizeof m->size, "%c%c", 'A', s[1]);
  return 1;
}

/* ----------------------------------------------------------------- options */
/* The metadata, the time step and the output (1: taken). */
static int meta_option(const char *opt, const char *v, cf_pipeline_ingest *a, int *bad) {
  cf_rec_meta *m = &a->meta;
  if (!strcmp(opt, "--material")) copy_value(m->material, sizeof m->material, v);
  else if (!strcmp(opt, "--motion")) copy_value(m->motion, sizeof m->motion, v);
  else if (!strcmp(opt, "--speed")) copy_value(m->speed, sizeof m->speed, v);
  else if (!strcmp(opt, "--repetition")) copy_value(m->repetition, sizeof m->repetition, v);
  else if (!strcmp(opt, "--notes")) copy_value(m->notes, sizeof m->notes, v);
  else if (!strcmp(opt, "--size")) *bad = !parse_size(v, m);
  else if (!strcmp(opt, "--density")) *bad = !positive(v, &m->density);
  else if (!strcmp(opt, "--table-height")) *bad = !cf_text_double(v, m->table);
  else if (!strcmp(opt, "--table-extent")) *bad = !cf_rec_table_extent_parse(v, m->table + 1);
  else if (!strcmp(opt, "--dt")) *bad = !(!strcmp(v, "native") ? (a->dt = 0, 1) : positive(v, &a->dt));
  else if (!strcmp(opt, "--up")) *bad = !(strlen(v) == 1 && (v[0] == 'y' || v[0] == 'z')), a->mopts.up = v[0];
  else if (!strcmp(opt, "-o")) a->out = v;
  else if (!strcmp(opt, "--held-track")) a->held = v;
  else if (!strcmp(opt, "--held")) a->held_spec = v;
  else if (!strcmp(opt, "--grasp")) a->grasp = v;
  else if (!strcmp(opt, "--start")) a->start = v;
  else if (!strcmp(opt, "--grid")) *bad = !cf_parse_lattice(v, &a->grid[0], &a->grid[1]);
  else return 0;
  return 1;
}

/* Meshes and clouds: --times, --fps, --units. */
static int mesh_option(const char *opt, const char *v, cf_meshseq_opts *o, int *bad) {
  char *end;
  if (!strcmp(opt, "--times")) o->times_file = v;
  else if (!strcmp(opt, "--fps")) o->fps = strtod(v, &end), *bad = end == v || *end || !(o->fps > 0) || !isfinite(o->fps);
  else if (!strcmp(opt, "--units")) {
    o->unit_scale = !strcmp(v, "mm") ? 0.001 : !strcmp(v, "cm") ? 0.01 : !strcmp(v, "m") ? 1 : 0;
    *bad = o->unit_scale == 0;
  } else return 0;
  return 1;
}

/* Marker processing (motive, csv). */
static int marker_option(const char *opt, const char *v, cf_marker_opts *o, int *bad) {
  if (!strcmp(opt, "--lattice")) *bad = !cf_parse_lattice(v, &o->rows, &o->cols);
  else if (!strcmp(opt, "--map")) *bad = !copy_value(o->map, sizeof o->map, v);
  else if (!strcmp(opt, "--merge")) *bad = strcmp(v, "auto") && strcmp(v, "none"), o->merge = !strcmp(v, "auto");
  else if (!strcmp(opt, "--merge-radius")) *bad = !non_negative(v, &o->merge_radius) || !(o->merge_radius > 0);
  else if (!strcmp(opt, "--merge-gap")) *bad = !non_negative(v, &o->merge_max_gap) || !(o->merge_max_gap > 0);
  else if (!strcmp(opt, "--ghost-radius")) *bad = !non_negative(v, &o->ghost_radius) || !(o->ghost_radius > 0);
  else if (!strcmp(opt, "--max-gap")) *bad = !non_negative(v, &o->max_gap);
  else if (!strcmp(opt, "--controlled")) *bad = !copy_value(o->controlled, sizeof o->controlled, v);
  else if (!strcmp(opt, "--stick")) *bad = !copy_value(o->stick, sizeof o->stick, v);
  else if (!strcmp(opt, "--meta")) *bad = 0; /* read first, by cf_pipeline_ingest_meta */
  else return 0;
  return 1;
}

/* The generic CSV: --time-column, --columns-pattern. */
static int csv_option(const char *opt, const char *v, cf_csv_opts *o, int *bad) {
  if (!strcmp(opt, "--time-column")) o->time_column = v, *bad = !*v;
  else if (!strcmp(opt, "--columns-pattern")) o->pattern = v, *bad = !strstr(v, "{name}") || !strstr(v, "{axis}");
  else return 0;
  return 1;
}

int cf_pipeline_ingest_flag(cf_pipeline_ingest *a, const char *opt) {
  if (!strcmp(opt, "--rigid-bodies")) a->mopts.rigid_bodies = 1;
  else if (!strcmp(opt, "--keep-unseen")) a->mopts.keep_unseen = 1;
  else if (!strcmp(opt, "--allow-no-markers")) a->mopts.allow_empty = 1;
  else if (!strcmp(opt, "--strict")) a->mopts.strict = 1;
  else return 0;
  return 1;
}

int cf_pipeline_ingest_option(cf_pipeline_ingest *a, const char *opt, const char *v, cf_error *err) {
  int bad = 0;
  if (!(meta_option(opt, v, a, &bad) || mesh_option(opt, v, &a->mesh, &bad) || marker_option(opt, v, &a->mk, &bad) ||
        csv_option(opt, v, &a->csv, &bad)))
    return 0;
  if (bad) return cf_error_set(err, CF_EINVAL, "invalid value '%s' for %s (see --help)", v, opt), -1;
  return 1;
}

/* ------------------------------------------------------------------ checks */
/* The options of meshes and clouds against the kind (the meta file's held
 * and --max-gap taken into the mesh options; a cloud's held, grasp and
 * start are read with its track, clouds_held). */
static int mesh_check(const char *kind, const cf_pipeline_ingest *a, cf_meshseq_opts *o, const cf_marker_opts *mk,
                      cf_error *err) {
  int given = o->times_file || o->fps > 0 || (o->unit_scale != 1 && strcmp(kind, "csv"));
  int meshes = !strcmp(kind, "meshes"), clouds = !strcmp(kind, "clouds");
  if (!meshes && !clouds && given)
    return cf_error_set(err, CF_EINVAL, "--times, --fps and --units are options of 'ingest meshes' and 'ingest "
                        "clouds' (--units also of 'ingest csv')");
  if (!meshes && !clouds && (a->held_spec || mk->held[0]))
    return cf_error_set(err, CF_EINVAL, "--held (or held in --meta) is an option of 'ingest meshes' and 'ingest "
                        "clouds'; markers use --controlled");
  if (!clouds && (a->grasp || a->start || mk->grasp[0] || mk->start[0]))
    return cf_error_set(err, CF_EINVAL, "--grasp and --start (or grasp, start in --meta) are options of 'ingest "
                        "clouds'");
  if (o->times_file && o->fps > 0) return cf_error_set(err, CF_EINVAL, "give --times FILE or --fps F, not both");
  if (meshes && a->held_spec && !cf_meshseq_held_parse(a->held_spec, o))
    return cf_error_set(err, CF_EINVAL, "invalid value '%s' for --held (see --help)", a->held_spec);
  if (meshes && !o->n_held && mk->held[0] && !cf_meshseq_held_parse(mk->held, o))
    return cf_error_set(err, CF_EINVAL, "--meta: held = '%s': expected node indices I,J (0-based, comma-separated, "
                        "at most %d)", mk->held, CF_MESH_HELD_MAX);
  o->max_gap = mk->max_gap;
  return CF_OK;
}

/* The marker and generic CSV options against the kind. */
static int markers_check(const char *kind, const cf_marker_opts *o, const cf_csv_opts *c, cf_error *err) {
  cf_csv_opts d;
  cf_csv_opts_default(&d);
  if (strcmp(kind, "csv") && (strcmp(c->time_column, d.time_column) || strcmp(c->pattern, d.pattern)))
    return cf_error_set(err, CF_EINVAL, "--time-column and --columns-pattern are options of 'ingest csv' (see --help)");
  if ((!strcmp(kind, "meshes") || !strcmp(kind, "clouds")) &&
      (o->rows || o->map[0] || o->stick[0] || o->merge == CF_MERGE_AUTO))
    return cf_error_set(err, CF_EINVAL, "--lattice, --map, --merge and --stick are for marker recordings (motive, csv)");
  return CF_OK;
}

static void default_density(cf_rec_meta *m) {
  if (!isnan(m->density)) return;
  for (size_t i = 0; i < sizeof densities / sizeof densities[0]; i++)
    if (!strcmp(m->material, densities[i].name)) m->density = densities[i].rho;
}

int cf_pipeline_ingest_check(cf_pipeline_ingest *a, cf_error *err) {
  const char *kind = a->kind;
  int clouds = !strcmp(kind, "clouds");
  if (strcmp(kind, "motive") && strcmp(kind, "meshes") && strcmp(kind, "csv") && !clouds)
    return cf_error_set(err, CF_EINVAL, "unknown source kind '%s' (this build reads: motive, csv, meshes, clouds)",
                        kind);
  if (clouds != (a->held != NULL))
    return cf_error_set(err, CF_EINVAL, "%s", clouds ? "ingest clouds needs --held-track CORNERS.csv, the held "
                        "corners' trajectory (see --help)" : "--held-track is an option of 'ingest clouds'");
  if (!clouds && a->grid[0]) return cf_error_set(err, CF_EINVAL, "--grid is an option of 'ingest clouds'");
  if (clouds && a->dt > 0)
    return cf_error_set(err, CF_EINVAL, "--dt: point clouds keep the camera's frames (they are never resampled)");
  if (a->dt < 0) a->dt = clouds ? 0 : 0.01;
  if (mesh_check(kind, a, &a->mesh, &a->mk, err) || markers_check(kind, &a->mk, &a->csv, err)) return CF_EINVAL;
  if (a->mopts.strict && strcmp(kind, "motive"))
    return cf_error_set(err, CF_EINVAL, "--strict is an option of 'ingest motive' (see --help)");
  if (!a->out) return cf_error_set(err, CF_EINVAL, "missing -o REC.h5 (see --help)");
  const double *t = a->meta.table;
  if ((isfinite(t[0]) || isfinite(t[1])) && !cf_rec_table_valid(t))
    return cf_error_set(err, CF_EINVAL, "a table needs both its height (--table-height or table_height) and its "
                        "extent (--table-extent or table_extent)");
  struct stat si, so;
  if (!stat(a->in, &si) && !stat(a->out, &so) && si.st_dev == so.st_dev && si.st_ino == so.st_ino)
    return cf_error_set(err, CF_EINVAL, "%s: the output would overwrite the input", a->out);
  a->mesh.up = a->mopts.up ? a->mopts.up : 'z';
  if (!a->mopts.up) a->mopts.up = 'y';
  default_density(&a->meta);
  return CF_OK;
}

/* --------------------------------------------------------------------- run */
/* The warning of a trimmed or cut export (loaded as it is). */
static void export_warning(const char *in, const cf_rec_export *x, const cf_pipeline_progress *pp) {
  char what[1400];
  if (!cf_rec_export_describe(x, in, what, sizeof what)) return;
  cf_pl_note(pp, "%s: loaded as it is, recorded in /quality%s", what,
             x->frames_expected >= 0 && x->frames_expected != x->frames_found ? " (--strict refuses it)" : "");
}

/* A cloud's grippers: the points they hold, their windows and the start,
 * from the options, else the meta file, checked against the track. */
static int clouds_held(const cf_pipeline_ingest *a, cf_recording *r, cf_error *err) {
  const cf_marker_opts *m = &a->mk;
  const char *pts = a->held_spec ? a->held_spec : m->held[0] ? m->held : NULL;
  const char *gr = a->grasp ? a->grasp : m->grasp[0] ? m->grasp : NULL;
  const char *st = a->start ? a->start : m->start[0] ? m->start : NULL;
  cf_rec_held *h = &r->held;
  int rc = pts ? cf_rec_held_points_parse(pts, a->held_spec ? "--held" : "--meta held", h, err) : CF_OK;
  if (!rc && gr) rc = cf_rec_held_grasp_parse(gr, a->grasp ? "--grasp" : "--meta grasp", r->time_offset, h, err);
  if (!rc && st) rc = cf_rec_held_start_parse(st, a->start ? "--start" : "--meta start", h, err);
  return rc ? rc : cf_rec_held_check(h, a->held, err);
}

/* Read the source; markers are processed (and resampled), meshes resampled. */
static int read_source(cf_pipeline_ingest *a, const cf_pipeline_progress *pp, cf_recording *r, cf_error *err) {
  int meshes = !strcmp(a->kind, "meshes"), clouds = !strcmp(a->kind, "clouds"), rc;
  a->csv.unit_scale = a->mesh.unit_scale, a->csv.up = a->mesh.up;
  if (clouds) {
    rc = cf_cloudseq_read(a->in, a->held, &a->mesh, r, err);
    if (!rc) memcpy(r->cloud.grid, a->grid, sizeof a->grid), rc = clouds_held(a, r, err);
    return rc;
  }
  if (meshes) rc = cf_meshseq_read(a->in, &a->mesh, r, err);
  else if (!strcmp(a->kind, "csv")) rc = cf_csv_read(a->in, &a->csv, r, err);
  else rc = cf_motive_read(a->in, &a->mopts, r, err);
  if (!rc) export_warning(a->in, &r->exported, pp);
  if (!rc && meshes && a->dt > 0 && r->n_frames > 0) rc = cf_recording_resample(r, a->dt, err);
  if (!rc && !meshes) rc = cf_markers_process(r, &a->mk, a->dt, err);
  return rc;
}

/* A cloud recording that starts flat on a table the metadata does not
 * give: the table fitted to its first frame's points (cf_table_fit), said
 * in a note.  The extent: the points' box grown by the cloth's larger side
 * (0.5 m without a size). */
static int table_from_points(const cf_pipeline_ingest *a, cf_recording *r, const cf_pipeline_progress *pp,
                             cf_error *err) {
  cf_rec_meta *m = &r->meta;
  if (!r->cloud.offset || r->held.start != CF_CLOTH_FLAT_ON_TABLE || cf_rec_table_valid(m->table)) return CF_OK;
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  double margin = m->width_m > 0 && m->height_m > 0 ? fmax(m->width_m, m->height_m) : 0.5;
  cf_table_fit_info fi;
  char what[1100];
  snprintf(what, sizeof what, "%s: --start flat-on-table", a->in);
  int rc = cf_table_fit(r->cloud.points, r->cloud.offset[1], cp.thickness, margin, what, m->table, &fi, err);
  if (rc) return rc;
  m->table_fitted = 1, m->table_fit_points = fi.points, m->table_fit_rms_m = fi.rms_m;
  cf_pl_note(pp, "%s: the table is fitted to the first frame's points (no --table-height or table_height): top at "
             "z = %.4f m, %ld points on a plane tilted %.2f degrees, rms %.2f mm; extent x %.3f .. %.3f, y %.3f .. "
             "%.3f m", a->in, m->table[0], fi.points, fi.tilt_deg, 1e3 * fi.rms_m, m->table[1], m->table[2],
             m->table[3], m->table[4]);
  return CF_OK;
}

int cf_pipeline_ingest_run(cf_pipeline_ingest *a, const cf_pipeline_progress *pp, cf_recording *r, cf_error *err) {
  int rc = read_source(a, pp, r, err);
  if (rc) return rc;
  if (!r->source_sha256[0]) cf_sha256_file(a->in, r->source_sha256, NULL); /* unless the reader did */
  r->meta = a->meta;
  if ((rc = table_from_points(a, r, pp, err))) return rc;
  return cf_recording_write_h5(a->out, r, err);
}
