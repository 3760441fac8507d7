/* recording_h5.c — a cf_recording to and from the HDF5 layout of docs/design.md §6:
 *   /            attrs clothfit_format, source_kind, source_file, source_sha256,
 *                created, clothfit_version, git_revision, up_axis, axis_transform,
 *                length_unit_scale, time_offset
 *   /meta        attrs material, size, width_m, height_m, density, motion, speed,
 *                repetition, notes
 *   /table       (if the cloth meets a table) attrs height (m, the top face's
 *                z), extent (x_min, x_max, y_min, y_max of the face, m)
 *   /time        [T] float64 from 0; attrs dt, resampling ("linear" | "native")
 *   /markers     position [T,K,3] (NaN = missing), name [K] (UTF-8 strings)
 *   /quality     missing_fraction [K], longest_gap_s [K], longest_gap_frames [K],
 *                filled [K]; dropped_markers [n] (never seen, if any); for
 *                Motive sources int attrs frames_expected (the metadata's Total
 *                Exported Frames, -1 if absent), frames_found (data rows),
 *                first_frame_number, frame_jumps, edited_export (1: trimmed or
 *                cut, see cf_rec_export)
 *   /source      attrs: the source file's own header key/values (Motive row 1)
 *   marker processing (markers_h5.c): /markers/lattice, /markers/weight,
 *                /markers/controlled, /stick/endpoints, trimming and merging
 *                records in /quality
 *   /mesh        (mesh sequences) nodes [T,N,3] (NaN: a frame the camera
 *                dropped), faces [F,3|4] int, 0-based, held [n] int (the
 *                held nodes, 0-based; absent: none known); attrs element
 *                ("triangles" | "quads"), index_base 0, max_gap_s,
 *                drop_limit_s, dropped_frames
 *   /cloud       (point clouds) points [P,3] float64, every frame's points one
 *                after the other; offset [T+1] int64: frame t's points are rows
 *                offset[t] .. offset[t+1] - 1 (offset[0] = 0, offset[T] = P);
 *                attrs grid_rows, grid_cols (if given: the lattice a fit
 *                simulates the cloth on); /time holds the camera's native
 *                times (never resampled)
 *   /held        (point clouds) time [T_h] s on /time's axis, track [T_h,G,3]
 *                the G grippers, m, z up; point [G,2] the (u, v) each holds
 *                (absent: two grippers, top left and top right), grasp
 *                [G,2] its window, s (absent: throughout), attr start
 *                (absent: hanging)
 * Writes are atomic (temporary name + rename). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cf_io.h"
#include "clothfit_version.h"
#include "h5util.h"

#define FORMAT "recording-1"

/* ------------------------------------------------------------------ write */
static const char *transform_text(char up) {
  return up == 'y' ? "(x, y, z) = (x_M, -z_M, y_M): Motive Y-up to Z-up" : "identity (source is Z-up)";
}

static int write_root(hid_t f, const cf_recording *r) {
  char up[2] = {r->up, 0};
  int ok = cf_h5_attr_string(f, "clothfit_format", FORMAT) &&
           cf_h5_attr_string(f, "clothfit_version", CLOTHFIT_VERSION) &&
           cf_h5_attr_string(f, "git_revision", CLOTHFIT_GIT_REVISION) &&
           cf_h5_attr_string(f, "source_kind", r->source_kind) &&
           cf_h5_attr_string(f, "source_file", r->source_file) && cf_h5_attr_string(f, "created", r->created) &&
           cf_h5_attr_string(f, "up_axis", up) && cf_h5_attr_string(f, "axis_transform", transform_text(r->up)) &&
           cf_h5_attr_double(f, "length_unit_scale", r->unit_scale) &&
           cf_h5_attr_double(f, "time_offset", r->time_offset);
  if (ok && r->source_sha256[0]) ok = cf_h5_attr_string(f, "source_sha256", r->source_sha256);
  return ok;
}

static int write_meta(hid_t f, const cf_rec_meta *m) {
  hid_t g = H5Gcreate2(f, "meta", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = g >= 0 && cf_h5_attr_string(g, "material", m->material) && cf_h5_attr_string(g, "size", m->size) &&
           cf_h5_attr_double(g, "width_m", m->width_m) && cf_h5_attr_double(g, "height_m", m->height_m) &&
           cf_h5_attr_double(g, "density", m->density) && cf_h5_attr_string(g, "motion", m->motion) &&
           cf_h5_attr_string(g, "speed", m->speed) && cf_h5_attr_string(g, "repetition", m->repetition) &&
           cf_h5_attr_string(g, "notes", m->notes);
  if (g >= 0) H5Gclose(g);
  return ok;
}

/* /table (docs/design.md §6), when the recording has one. */
static int write_table(hid_t f, const cf_rec_meta *m) {
  if (!cf_rec_table_valid(m->table)) return 1;
  hid_t g = H5Gcreate2(f, "table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = g >= 0 && cf_h5_attr_double(g, "height", m->table[0]) && cf_h5_attr_doubles(g, "extent", 4, m->table + 1);
  if (ok && m->table_fitted)
    ok = cf_h5_attr_int(g, "fitted", 1) && cf_h5_attr_double(g, "fit_points", (double)m->table_fit_points) &&
         cf_h5_attr_double(g, "fit_rms_m", m->table_fit_rms_m);
  if (g >= 0) H5Gclose(g);
  return ok;
}

static int write_time(hid_t f, const cf_recording *r) {
  hsize_t d1[1] = {(hsize_t)r->n_frames};
  if (!cf_h5_dataset(f, "time", H5T_NATIVE_DOUBLE, 1, d1, r->time)) return 0;
  hid_t d = H5Dopen2(f, "time", H5P_DEFAULT);
  int ok = d >= 0 && cf_h5_attr_double(d, "dt", r->dt) &&
           cf_h5_attr_string(d, "resampling", r->uniform ? "linear" : "native");
  if (d >= 0) H5Dclose(d);
  return ok;
}

static int write_markers(hid_t f, const cf_recording *r) {
  hsize_t d3[3] = {(hsize_t)r->n_frames, (hsize_t)r->n_markers, 3};
  hid_t g = H5Gcreate2(f, "markers", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = g >= 0 && cf_h5_dataset(g, "position", H5T_NATIVE_DOUBLE, 3, d3, r->pos) &&
           cf_h5_strings(g, "name", r->names, (size_t)r->n_markers);
  if (g >= 0) H5Gclose(g);
  return ok;
}

static int write_export(hid_t g, const cf_rec_export *x) {
  return !x->known ||
         (cf_h5_attr_int(g, "frames_expected", x->frames_expected) &&
          cf_h5_attr_int(g, "frames_found", x->frames_found) &&
          cf_h5_attr_int(g, "first_frame_number", x->first_frame_number) &&
          cf_h5_attr_int(g, "frame_jumps", x->frame_jumps) && cf_h5_attr_int(g, "edited_export", x->edited));
}

static int write_quality(hid_t f, const cf_recording *r) {
  int K = r->n_markers;
  double *mf = malloc(sizeof(double) * (K + 1)), *gap = malloc(sizeof(double) * (K + 1));
  int *gapf = malloc(sizeof(int) * (K + 1)), *filled = malloc(sizeof(int) * (K + 1));
  hid_t g = H5Gcreate2(f, "quality", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = mf && gap && gapf && filled && g >= 0;
  for (int k = 0; ok && k < K; k++) {
    cf_marker_quality q = cf_recording_quality(r, k);
    mf[k] = q.missing_fraction, gap[k] = q.longest_gap_s, gapf[k] = q.longest_gap_frames, filled[k] = q.filled;
  }
  hsize_t d1[1] = {(hsize_t)K};
  ok = ok && cf_h5_dataset(g, "missing_fraction", H5T_NATIVE_DOUBLE, 1, d1, mf) &&
       cf_h5_dataset(g, "longest_gap_s", H5T_NATIVE_DOUBLE, 1, d1, gap) &&
       cf_h5_dataset(g, "longest_gap_frames", H5T_NATIVE_INT, 1, d1, gapf) &&
       cf_h5_dataset(g, "filled", H5T_NATIVE_INT, 1, d1, filled);
  if (ok && r->n_dropped) ok = cf_h5_strings(g, "dropped_markers", r->dropped, (size_t)r->n_dropped);
  ok = ok && write_export(g, &r->exported);
  if (g >= 0) H5Gclose(g);
  free(mf), free(gap), free(gapf), free(filled);
  return ok;
}

static int write_mesh(hid_t f, const cf_rec_mesh *m, int T) {
  if (m->n_nodes == 0) return 1;
  hsize_t dn[3] = {(hsize_t)T, (hsize_t)m->n_nodes, 3}, df[2] = {(hsize_t)m->n_faces, (hsize_t)m->nv};
  hid_t g = H5Gcreate2(f, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = g >= 0 && cf_h5_dataset(g, "nodes", H5T_NATIVE_DOUBLE, 3, dn, m->nodes) &&
           cf_h5_dataset(g, "faces", H5T_NATIVE_INT, 2, df, m->faces) &&
           cf_h5_attr_string(g, "element", m->nv == 4 ? "quads" : "triangles") && cf_h5_attr_double(g, "index_base", 0) &&
           cf_h5_attr_double(g, "max_gap_s", m->max_gap_s) && cf_h5_attr_double(g, "drop_limit_s", m->drop_limit_s) &&
           cf_h5_attr_int(g, "dropped_frames", m->dropped_frames);
  hsize_t dh[1] = {(hsize_t)m->n_held};
  if (ok && m->n_held) ok = cf_h5_dataset(g, "held", H5T_NATIVE_INT, 1, dh, m->held);
  if (g >= 0) H5Gclose(g);
  return ok;
}

/* /held's point [G,2] and grasp [G,2] when given, its start when not hanging. */
static int write_grippers(hid_t g, const cf_rec_held *h) {
  hsize_t d[2] = {(hsize_t)h->n_grip, 2};
  int ok = !h->n_point || cf_h5_dataset(g, "point", H5T_NATIVE_DOUBLE, 2, d, h->point);
  if (ok && h->n_grasp) ok = cf_h5_dataset(g, "grasp", H5T_NATIVE_DOUBLE, 2, d, h->grasp);
  if (ok && h->start != CF_CLOTH_HANGING) ok = cf_h5_attr_string(g, "start", cf_rec_held_start_name(h->start));
  return ok;
}

static int write_cloud(hid_t f, const cf_recording *r) {
  const cf_rec_cloud *c = &r->cloud;
  const cf_rec_held *h = &r->held;
  if (!c->offset) return 1;
  hsize_t dp[2] = {(hsize_t)c->n_points, 3}, doff[1] = {(hsize_t)r->n_frames + 1}, dt[1] = {(hsize_t)h->n},
          dh[3] = {(hsize_t)h->n, (hsize_t)h->n_grip, 3};
  hid_t g = H5Gcreate2(f, "cloud", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  int ok = g >= 0 && cf_h5_dataset(g, "points", H5T_NATIVE_DOUBLE, 2, dp, c->points) &&
           cf_h5_dataset(g, "offset", H5T_NATIVE_LONG, 1, doff, c->offset);
  if (ok && c->grid[0] > 0)
    ok = cf_h5_attr_int(g, "grid_rows", c->grid[0]) && cf_h5_attr_int(g, "grid_cols", c->grid[1]);
  if (g >= 0) H5Gclose(g);
  if (!ok || !h->n) return ok;
  g = H5Gcreate2(f, "held", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  ok = g >= 0 && cf_h5_dataset(g, "time", H5T_NATIVE_DOUBLE, 1, dt, h->time) &&
       cf_h5_dataset(g, "track", H5T_NATIVE_DOUBLE, 3, dh, h->track) && write_grippers(g, h);
  if (g >= 0) H5Gclose(g);
  return ok;
}

/* Attribute names may not contain '/' in every reader: replace it. */
static void attr_name(const char *key, char *buf, size_t size) {
  snprintf(buf, size, "%s", key);
  for (char *c = buf; *c; c++)
    if (*c == '/') *c = '_';
}

static int write_source(hid_t f, const cf_recording *r) {
  hid_t cpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_attr_creation_order(cpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  hid_t g = H5Gcreate2(f, "source", H5P_DEFAULT, cpl, H5P_DEFAULT);
  H5Pclose(cpl);
  int ok = g >= 0;
  for (int i = 0; ok && i < r->n_info; i++) {
    char name[256];
    attr_name(r->info[i].key, name, sizeof name);
    if (!name[0] || H5Aexists(g, name) > 0) continue; /* keep the first of repeated keys */
    ok = cf_h5_attr_string(g, name, r->info[i].value);
  }
  if (g >= 0) H5Gclose(g);
  return ok;
}

int cf_recording_write_h5(const char *path, cf_recording *r, cf_error *err) {
  time_t now = time(NULL);
  strftime(r->created, sizeof r->created, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  char tmp[4096];
  if (cf_io_ensure_parent(path, err)) return CF_EIO;
  cf_io_tmpname(path, tmp, sizeof tmp);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) return cf_error_set(err, CF_EIO, "%s: cannot create HDF5 file (is the folder writable?)", path);
  int ok = write_root(f, r) && write_meta(f, &r->meta) && write_table(f, &r->meta) && write_time(f, r) && write_markers(f, r) &&
           write_quality(f, r) && write_source(f, r) && write_mesh(f, &r->mesh, r->n_frames) && write_cloud(f, r) &&
           cf_h5_write_markers(f, r);
  ok = H5Fclose(f) >= 0 && ok;
  if (!ok) {
    cf_io_commit(tmp, path, 0, err);
    return cf_error_set(err, CF_EIO, "%s: writing the HDF5 recording failed", path);
  }
  return cf_io_commit(tmp, path, 1, err);
}

/* ------------------------------------------------------------------- read */
static void read_root(hid_t f, cf_recording *r) {
  char up[8] = "z", resampling[16] = "";
  cf_h5_read_attr_string(f, "source_kind", r->source_kind, sizeof r->source_kind);
  cf_h5_read_attr_string(f, "source_file", r->source_file, sizeof r->source_file);
  cf_h5_read_attr_string(f, "source_sha256", r->source_sha256, sizeof r->source_sha256);
  cf_h5_read_attr_string(f, "created", r->created, sizeof r->created);
  cf_h5_read_attr_string(f, "up_axis", up, sizeof up);
  r->up = up[0];
  cf_h5_read_attr_double(f, "length_unit_scale", &r->unit_scale);
  cf_h5_read_attr_double(f, "time_offset", &r->time_offset);
  hid_t d = H5Dopen2(f, "time", H5P_DEFAULT);
  if (d >= 0) {
    cf_h5_read_attr_double(d, "dt", &r->dt);
    cf_h5_read_attr_string(d, "resampling", resampling, sizeof resampling);
    H5Dclose(d);
  }
  r->uniform = strcmp(resampling, "native") != 0;
}

static void read_meta(hid_t f, cf_rec_meta *m) {
  if (H5Lexists(f, "meta", H5P_DEFAULT) <= 0) return;
  hid_t g = H5Gopen2(f, "meta", H5P_DEFAULT);
  if (g < 0) return;
  cf_h5_read_attr_string(g, "material", m->material, sizeof m->material);
  cf_h5_read_attr_string(g, "size", m->size, sizeof m->size);
  cf_h5_read_attr_string(g, "motion", m->motion, sizeof m->motion);
  cf_h5_read_attr_string(g, "speed", m->speed, sizeof m->speed);
  cf_h5_read_attr_string(g, "repetition", m->repetition, sizeof m->repetition);
  cf_h5_read_attr_string(g, "notes", m->notes, sizeof m->notes);
  cf_h5_read_attr_double(g, "width_m", &m->width_m);
  cf_h5_read_attr_double(g, "height_m", &m->height_m);
  cf_h5_read_attr_double(g, "density", &m->density);
  H5Gclose(g);
}

static herr_t add_source_attr(hid_t g, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  cf_recording *r = data;
  char value[4096] = "";
  cf_h5_read_attr_string(g, name, value, sizeof value);
  cf_kv *n = realloc(r->info, sizeof(cf_kv) * (r->n_info + 1));
  if (!n) return -1;
  r->info = n;
  n[r->n_info].key = strdup(name);
  n[r->n_info].value = strdup(value);
  if (!n[r->n_info].key || !n[r->n_info].value) {
    free(n[r->n_info].key), free(n[r->n_info].value);
    return -1;
  }
  r->n_info++;
  return 0;
}

static void read_source(hid_t f, cf_recording *r) {
  if (H5Lexists(f, "source", H5P_DEFAULT) <= 0) return;
  hid_t g = H5Gopen2(f, "source", H5P_DEFAULT);
  if (g < 0) return;
  hsize_t idx = 0;
  if (H5Aiterate2(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, add_source_attr, r) < 0) {
    idx = 0;
    H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, &idx, add_source_attr, r);
  }
  H5Gclose(g);
}

static int read_arrays(hid_t f, const char *path, cf_recording *r, cf_error *err) {
  hsize_t dt[1], dp[3];
  size_t n_names = 0, n_dropped = 0;
  if (!cf_h5_read_dataset(f, "time", H5T_NATIVE_DOUBLE, 1, dt, (void **)&r->time))
    return cf_error_set(err, CF_EFORMAT, "%s: no readable /time [T] dataset", path);
  if (!cf_h5_read_dataset(f, "markers/position", H5T_NATIVE_DOUBLE, 3, dp, (void **)&r->pos))
    return cf_error_set(err, CF_EFORMAT, "%s: no readable /markers/position [T,K,3] dataset", path);
  if (!cf_h5_read_strings(f, "markers/name", &r->names, &n_names))
    return cf_error_set(err, CF_EFORMAT, "%s: no readable /markers/name [K] dataset", path);
  r->n_markers = (int)n_names;
  if (dp[0] != dt[0] || dp[1] != n_names || dp[2] != 3)
    return cf_error_set(err, CF_EFORMAT, "%s: /markers/position is [%llu,%llu,%llu], expected [%llu,%zu,3] "
                        "from /time and /markers/name", path, (unsigned long long)dp[0], (unsigned long long)dp[1],
                        (unsigned long long)dp[2], (unsigned long long)dt[0], n_names);
  r->n_frames = (int)dt[0];
  if (H5Lexists(f, "quality", H5P_DEFAULT) > 0 && H5Lexists(f, "quality/dropped_markers", H5P_DEFAULT) > 0)
    cf_h5_read_strings(f, "quality/dropped_markers", &r->dropped, &n_dropped);
  r->n_dropped = (int)n_dropped;
  return CF_OK;
}

/* /quality's record of an edited export (files of Motive sources only). */
static void read_export(hid_t f, cf_rec_export *x) {
  const char *name[] = {"frames_expected", "frames_found", "first_frame_number", "frame_jumps", "edited_export"};
  int *field[] = {&x->frames_expected, &x->frames_found, &x->first_frame_number, &x->frame_jumps, &x->edited};
  if (H5Lexists(f, "quality", H5P_DEFAULT) <= 0) return;
  hid_t g = H5Gopen2(f, "quality", H5P_DEFAULT);
  if (g < 0) return;
  int n = 0;
  for (int i = 0; i < 5; i++) {
    double v;
    if (cf_h5_read_attr_double(g, name[i], &v) && fabs(v) <= INT_MAX) *field[i] = (int)v, n++;
  }
  if (n == 5) x->known = 1;
  else memset(x, 0, sizeof *x);
  H5Gclose(g);
}

/* /mesh/held (files written before: none, the fit takes the top corners)
 * and the drop attributes (before: 0, nothing dropped). */
static int read_mesh_held(hid_t f, const char *path, cf_rec_mesh *m, cf_error *err) {
  hid_t g = H5Gopen2(f, "mesh", H5P_DEFAULT);
  double v;
  if (g >= 0) {
    if (cf_h5_read_attr_double(g, "max_gap_s", &v)) m->max_gap_s = v;
    if (cf_h5_read_attr_double(g, "drop_limit_s", &v)) m->drop_limit_s = v;
    if (cf_h5_read_attr_double(g, "dropped_frames", &v) && v >= 0 && v <= INT_MAX) m->dropped_frames = (int)v;
    H5Gclose(g);
  }
  if (H5Lexists(f, "mesh/held", H5P_DEFAULT) <= 0) return CF_OK;
  hsize_t dh[1];
  int *held = NULL, ok = cf_h5_read_dataset(f, "mesh/held", H5T_NATIVE_INT, 1, dh, (void **)&held) &&
                         dh[0] <= CF_MESH_HELD_MAX;
  for (hsize_t i = 0; ok && i < dh[0]; i++) ok = held[i] >= 0 && held[i] < m->n_nodes;
  if (ok) m->n_held = (int)dh[0], memcpy(m->held, held, sizeof(int) * dh[0]);
  free(held);
  return ok ? CF_OK : cf_error_set(err, CF_EFORMAT, "%s: /mesh/held needs at most %d node indices 0..%d", path,
                                   CF_MESH_HELD_MAX, m->n_nodes - 1);
}

static int read_mesh(hid_t f, const char *path, cf_recording *r, cf_error *err) {
  cf_rec_mesh *m = &r->mesh;
  hsize_t dn[3], df[2];
  if (H5Lexists(f, "mesh", H5P_DEFAULT) <= 0 || H5Lexists(f, "mesh/nodes", H5P_DEFAULT) <= 0) return CF_OK;
  if (!cf_h5_read_dataset(f, "mesh/nodes", H5T_NATIVE_DOUBLE, 3, dn, (void **)&m->nodes) ||
      !cf_h5_read_dataset(f, "mesh/faces", H5T_NATIVE_INT, 2, df, (void **)&m->faces) ||
      dn[0] != (hsize_t)r->n_frames || dn[1] == 0 || dn[1] > INT_MAX || dn[2] != 3 || df[0] > INT_MAX ||
      (df[1] != 3 && df[1] != 4))
    return cf_error_set(err, CF_EFORMAT, "%s: /mesh needs nodes [T,N,3] with T = %d from /time and faces [F,3|4]",
                        path, r->n_frames);
  m->n_nodes = (int)dn[1], m->n_faces = (int)df[0], m->nv = (int)df[1];
  for (size_t i = 0; i < df[0] * df[1]; i++)
    if (m->faces[i] < 0 || m->faces[i] >= m->n_nodes)
      return cf_error_set(err, CF_EFORMAT, "%s: /mesh/faces[%zu][%zu] = %d is not a node index 0..%d", path,
                          i / (size_t)df[1], i % (size_t)df[1], m->faces[i], m->n_nodes - 1);
  return read_mesh_held(f, path, m, err);
}

static int bad_cloud(const char *path, const char *what, cf_error *err) {
  return cf_error_set(err, CF_EFORMAT, "%s: %s", path, what);
}

/* /held/point or /held/grasp ([G,2], optional) into a[G][2]; *n their count. */
static int read_pairs(hid_t f, const char *name, int G, double (*a)[2], int *n) {
  char p[32];
  snprintf(p, sizeof p, "held/%s", name);
  if (H5Lexists(f, p, H5P_DEFAULT) <= 0) return 1;
  hsize_t d[2];
  double *v = NULL;
  int ok = cf_h5_read_dataset(f, p, H5T_NATIVE_DOUBLE, 2, d, (void **)&v) && d[0] == (hsize_t)G && d[1] == 2;
  if (ok) memcpy(a, v, sizeof(double) * 2 * G), *n = G;
  free(v);
  return ok;
}

/* /held's point, grasp and start (absent: the defaults; files written before). */
static int read_grippers(hid_t f, const char *path, cf_rec_held *h, cf_error *err) {
  int G = h->n_grip, ok = read_pairs(f, "point", G, h->point, &h->n_point) &&
                          read_pairs(f, "grasp", G, h->grasp, &h->n_grasp);
  for (int g = 0; ok && g < h->n_point; g++)
    ok = h->point[g][0] >= 0 && h->point[g][0] <= 1 && h->point[g][1] >= 0 && h->point[g][1] <= 1;
  for (int g = 0; ok && g < h->n_grasp; g++) ok = h->grasp[g][0] < h->grasp[g][1];
  char start[32] = "hanging";
  hid_t g = ok ? H5Gopen2(f, "held", H5P_DEFAULT) : -1;
  if (g >= 0) cf_h5_read_attr_string(g, "start", start, sizeof start), H5Gclose(g);
  if (!ok || cf_rec_held_start_parse(start, "/held start", h, NULL))
    return bad_cloud(path, "/held: point [G,2] in [0,1]^2, grasp [G,2] with t0 < t1, start hanging or "
                     "flat-on-table", err);
  return CF_OK;
}

/* /cloud: points [P,3], offset [T+1] from 0 to P, not decreasing; /held:
 * time [T_h] increasing, track [T_h,2,3]. */
static int read_cloud(hid_t f, const char *path, cf_recording *r, cf_error *err) {
  cf_rec_cloud *c = &r->cloud;
  cf_rec_held *h = &r->held;
  hsize_t dp[2], doff[1], dt[1], dh[3];
  if (H5Lexists(f, "cloud", H5P_DEFAULT) <= 0) return CF_OK;
  if (!cf_h5_read_dataset(f, "cloud/points", H5T_NATIVE_DOUBLE, 2, dp, (void **)&c->points) ||
      !cf_h5_read_dataset(f, "cloud/offset", H5T_NATIVE_LONG, 1, doff, (void **)&c->offset) || dp[1] != 3 ||
      doff[0] != (hsize_t)r->n_frames + 1 || c->offset[0] != 0 || c->offset[r->n_frames] != (long)dp[0])
    return bad_cloud(path, "/cloud needs points [P,3] and offset [T+1] from 0 to P, T from /time", err);
  c->n_points = (long)dp[0];
  for (int t = 0; t < r->n_frames; t++)
    if (c->offset[t + 1] < c->offset[t]) return bad_cloud(path, "/cloud/offset decreases", err);
  hid_t g = H5Gopen2(f, "cloud", H5P_DEFAULT);
  double grid[2] = {0, 0};
  if (g >= 0) {
    cf_h5_read_attr_double(g, "grid_rows", grid);
    cf_h5_read_attr_double(g, "grid_cols", grid + 1);
    H5Gclose(g);
  }
  if (grid[0] != 0 || grid[1] != 0) {
    if (!(grid[0] >= 2 && grid[1] >= 2 && grid[0] <= 1000 && grid[1] <= 1000))
      return bad_cloud(path, "/cloud attributes grid_rows, grid_cols must be 2..1000", err);
    c->grid[0] = (int)grid[0], c->grid[1] = (int)grid[1];
  }
  if (H5Lexists(f, "held", H5P_DEFAULT) <= 0) return CF_OK;
  if (!cf_h5_read_dataset(f, "held/time", H5T_NATIVE_DOUBLE, 1, dt, (void **)&h->time) ||
      !cf_h5_read_dataset(f, "held/track", H5T_NATIVE_DOUBLE, 3, dh, (void **)&h->track) || dt[0] < 2 ||
      dt[0] > INT_MAX || dh[0] != dt[0] || dh[1] < 1 || dh[1] > CF_HELD_MAX || dh[2] != 3)
    return bad_cloud(path, "/held needs time [T_h] (T_h >= 2) and track [T_h,G,3] (G = 1..16 grippers)", err);
  h->n = (int)dt[0], h->n_grip = (int)dh[1];
  for (int k = 1; k < h->n; k++)
    if (!(h->time[k] > h->time[k - 1])) return bad_cloud(path, "/held/time must increase", err);
  return read_grippers(f, path, h, err);
}

/* /table: attrs height (scalar) and extent (x_min, x_max, y_min, y_max). */
static int read_table(hid_t f, const char *path, cf_rec_meta *m, cf_error *err) {
  if (H5Lexists(f, "table", H5P_DEFAULT) <= 0) return CF_OK;
  hid_t g = H5Gopen2(f, "table", H5P_DEFAULT);
  double t[5], fitted = 0, points = 0, rms = NAN;
  int ok = g >= 0 && cf_h5_read_attr_doubles(g, "height", 1, t) == 1 &&
           cf_h5_read_attr_doubles(g, "extent", 4, t + 1) == 1 && cf_rec_table_valid(t);
  if (ok) /* a table fitted to the first frame's points (files written before: given) */
    cf_h5_read_attr_double(g, "fitted", &fitted), cf_h5_read_attr_double(g, "fit_points", &points),
        cf_h5_read_attr_double(g, "fit_rms_m", &rms);
  if (g >= 0) H5Gclose(g);
  if (!ok)
    return cf_error_set(err, CF_EFORMAT, "%s: /table: expected attributes height (a number, m) and extent (4 "
                        "numbers x_min < x_max, y_min < y_max, m)", path);
  memcpy(m->table, t, sizeof t);
  m->table_fitted = fitted == 1, m->table_fit_points = (long)points, m->table_fit_rms_m = rms;
  return CF_OK;
}

int cf_recording_read_h5(const char *path, cf_recording *r, cf_error *err) {
  cf_recording_init(r);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return cf_error_set(err, CF_EIO, "%s: cannot open as an HDF5 file", path);
  char format[64] = "";
  cf_h5_read_attr_string(f, "clothfit_format", format, sizeof format);
  int rc = CF_OK;
  if (strcmp(format, FORMAT) != 0)
    rc = cf_error_set(err, CF_EFORMAT, "%s: not a clothfit recording (root attribute clothfit_format is '%s', "
                      "expected '%s')", path, format, FORMAT);
  if (!rc) rc = read_arrays(f, path, r, err);
  if (!rc) rc = read_mesh(f, path, r, err);
  if (!rc) rc = read_cloud(f, path, r, err);
  if (!rc) rc = read_table(f, path, &r->meta, err);
  if (!rc) {
    read_root(f, r);
    read_meta(f, &r->meta);
    read_source(f, r);
    read_export(f, &r->exported);
    cf_h5_read_markers(f, r);
  }
  H5Fclose(f);
  if (rc) cf_recording_free(r);
  return rc;
}
