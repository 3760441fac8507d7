/* markers_h5.c — the results of marker processing in the HDF5 recording
 * (docs/design.md §6), written after and read with the groups of recording_h5.c:
 *   /markers/lattice    [K,2] int (row, col), -1 off the lattice; attrs rows,
 *                       cols, method ("pca" | "map" | "none"), angle_deg,
 *                       row_spacing_m, col_spacing_m, spacing_deviation,
 *                       plane_rms_m, first_complete_time_s (source time)
 *   /markers/weight     [K] lattice weights (mean 1 on the lattice, 0 off it)
 *   /markers/controlled [c] int marker indices (default: the top corners)
 *   /stick/endpoints    [T,2,3] the stick's endpoint markers; attrs radius (m),
 *                       markers ("A,B")
 *   /quality            attrs trimmed_start_frames, trimmed_start_s,
 *                       trimmed_end_frames, trimmed_end_s (source frames and
 *                       seconds dropped), max_gap_s; string datasets
 *                       merged_fragments, ghost_markers, removed_markers (if any)
 * /quality/filled (recording_h5.c) carries the filled sample counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"

/* ------------------------------------------------------------------ write */
static int lattice_attrs(hid_t d, const cf_marker_proc *p) {
  const cf_lattice_fit *f = &p->fit;
  return cf_h5_attr_double(d, "rows", p->rows) && cf_h5_attr_double(d, "cols", p->cols) &&
         cf_h5_attr_string(d, "method", p->rows ? f->method : "none") && cf_h5_attr_double(d, "angle_deg", f->angle_deg) &&
         cf_h5_attr_double(d, "row_spacing_m", f->row_spacing) && cf_h5_attr_double(d, "col_spacing_m", f->col_spacing) &&
         cf_h5_attr_double(d, "spacing_deviation", f->spacing_dev) && cf_h5_attr_double(d, "plane_rms_m", f->plane_rms) &&
         cf_h5_attr_double(d, "first_complete_time_s", f->first_time);
}

static int write_lattice(hid_t f, const cf_recording *r) {
  const cf_marker_proc *p = r->proc;
  hsize_t d2[2] = {(hsize_t)r->n_markers, 2}, d1[1] = {(hsize_t)r->n_markers}, dc[1] = {(hsize_t)p->n_controlled};
  int none = 0;
  if (!cf_h5_dataset(f, "markers/lattice", H5T_NATIVE_INT, 2, d2, p->cell)) return 0;
  hid_t d = H5Dopen2(f, "markers/lattice", H5P_DEFAULT);
  int ok = d >= 0 && lattice_attrs(d, p);
  if (d >= 0) H5Dclose(d);
  if (ok && p->weight) ok = cf_h5_dataset(f, "markers/weight", H5T_NATIVE_DOUBLE, 1, d1, p->weight);
  return ok && cf_h5_dataset(f, "markers/controlled", H5T_NATIVE_INT, 1, dc, p->controlled ? p->controlled : &none);
}

static int write_stick(hid_t f, const cf_recording *r) {
  const cf_marker_proc *p = r->proc;
  if (p->stick[0] < 0) return 1;
  size_t T = (size_t)r->n_frames;
  double *e = malloc(sizeof(double) * (6 * T + 1));
  hsize_t d3[3] = {T, 2, 3};
  char names[512];
  snprintf(names, sizeof names, "%s,%s", r->names[p->stick[0]], r->names[p->stick[1]]);
  for (size_t i = 0; e && i < T; i++)
    for (int s = 0; s < 2; s++) memcpy(e + 6 * i + 3 * s, r->pos + 3 * ((size_t)r->n_markers * i + p->stick[s]), 3 * sizeof(double));
  hid_t g = e ? H5Gcreate2(f, "stick", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;
  int ok = g >= 0 && cf_h5_dataset(g, "endpoints", H5T_NATIVE_DOUBLE, 3, d3, e);
  hid_t d = ok ? H5Dopen2(g, "endpoints", H5P_DEFAULT) : -1;
  ok = d >= 0 && cf_h5_attr_double(d, "radius", p->stick_radius) && cf_h5_attr_string(d, "markers", names);
  if (d >= 0) H5Dclose(d);
  if (g >= 0) H5Gclose(g);
  free(e);
  return ok;
}

static int write_list(hid_t g, const char *name, char **s, int n) { return !n || cf_h5_strings(g, name, s, (size_t)n); }

static int write_quality(hid_t f, const cf_marker_proc *p) {
  hid_t g = H5Gopen2(f, "quality", H5P_DEFAULT);
  int ok = g >= 0 && cf_h5_attr_double(g, "trimmed_start_frames", p->trim_start_frames) &&
           cf_h5_attr_double(g, "trimmed_start_s", p->trim_start_s) &&
           cf_h5_attr_double(g, "trimmed_end_frames", p->trim_end_frames) &&
           cf_h5_attr_double(g, "trimmed_end_s", p->trim_end_s) && cf_h5_attr_double(g, "max_gap_s", p->max_gap) &&
           write_list(g, "merged_fragments", p->merged, p->n_merged) &&
           write_list(g, "ghost_markers", p->ghosts, p->n_ghosts) &&
           write_list(g, "removed_markers", p->removed, p->n_removed);
  if (g >= 0) H5Gclose(g);
  return ok;
}

int cf_h5_write_markers(hid_t f, const cf_recording *r) {
  if (!r->proc) return 1;
  return write_lattice(f, r) && write_stick(f, r) && write_quality(f, r->proc);
}

/* ------------------------------------------------------------------- read */
static int attr_int(hid_t obj, const char *name, int *v) {
  double x;
  if (!cf_h5_read_attr_double(obj, name, &x)) return 0;
  *v = (int)x;
  return 1;
}

static void read_lattice(hid_t f, cf_recording *r) {
  cf_marker_proc *p = r->proc;
  cf_lattice_fit *fit = &p->fit;
  hsize_t d[2];
  int *cell;
  if (cf_h5_read_dataset(f, "markers/lattice", H5T_NATIVE_INT, 2, d, (void **)&cell)) {
    if (d[0] == (hsize_t)r->n_markers && d[1] == 2) memcpy(p->cell, cell, sizeof(int) * 2 * r->n_markers);
    free(cell);
  }
  hid_t ds = H5Dopen2(f, "markers/lattice", H5P_DEFAULT);
  if (ds < 0) return;
  attr_int(ds, "rows", &p->rows), attr_int(ds, "cols", &p->cols);
  cf_h5_read_attr_string(ds, "method", fit->method, sizeof fit->method);
  cf_h5_read_attr_double(ds, "angle_deg", &fit->angle_deg);
  cf_h5_read_attr_double(ds, "row_spacing_m", &fit->row_spacing);
  cf_h5_read_attr_double(ds, "col_spacing_m", &fit->col_spacing);
  cf_h5_read_attr_double(ds, "spacing_deviation", &fit->spacing_dev);
  cf_h5_read_attr_double(ds, "plane_rms_m", &fit->plane_rms);
  cf_h5_read_attr_double(ds, "first_complete_time_s", &fit->first_time);
  H5Dclose(ds);
}

static void read_arrays(hid_t f, cf_recording *r) {
  cf_marker_proc *p = r->proc;
  hsize_t d[1];
  double *w;
  int *c;
  if (cf_h5_read_dataset(f, "markers/weight", H5T_NATIVE_DOUBLE, 1, d, (void **)&w)) {
    if (d[0] == (hsize_t)r->n_markers) p->weight = w;
    else free(w);
  }
  if (cf_h5_read_dataset(f, "markers/controlled", H5T_NATIVE_INT, 1, d, (void **)&c)) p->controlled = c, p->n_controlled = (int)d[0];
  for (int i = 0; i < p->n_controlled; i++)
    if (c[i] < 0 || c[i] >= r->n_markers) p->n_controlled = 0;
  if (cf_h5_read_dataset(f, "quality/filled", H5T_NATIVE_INT, 1, d, (void **)&c)) {
    if (d[0] == (hsize_t)r->n_markers) memcpy(p->filled, c, sizeof(int) * r->n_markers);
    free(c);
  }
}

static void read_stick(hid_t f, cf_recording *r) {
  char names[512] = "";
  if (H5Lexists(f, "stick", H5P_DEFAULT) <= 0 || H5Lexists(f, "stick/endpoints", H5P_DEFAULT) <= 0) return;
  hid_t d = H5Dopen2(f, "stick/endpoints", H5P_DEFAULT);
  if (d < 0) return;
  cf_h5_read_attr_double(d, "radius", &r->proc->stick_radius);
  cf_h5_read_attr_string(d, "markers", names, sizeof names);
  H5Dclose(d);
  char *comma = strchr(names, ',');
  if (!comma) return;
  *comma = 0;
  r->proc->stick[0] = cf_recording_marker_index(r, names), r->proc->stick[1] = cf_recording_marker_index(r, comma + 1);
}

static void read_list(hid_t g, const char *name, char ***s, int *n) {
  size_t len = 0;
  if (H5Lexists(g, name, H5P_DEFAULT) > 0 && cf_h5_read_strings(g, name, s, &len)) *n = (int)len;
}

static void read_quality(hid_t f, cf_marker_proc *p) {
  hid_t g = H5Gopen2(f, "quality", H5P_DEFAULT);
  if (g < 0) return;
  attr_int(g, "trimmed_start_frames", &p->trim_start_frames);
  attr_int(g, "trimmed_end_frames", &p->trim_end_frames);
  cf_h5_read_attr_double(g, "trimmed_start_s", &p->trim_start_s);
  cf_h5_read_attr_double(g, "trimmed_end_s", &p->trim_end_s);
  cf_h5_read_attr_double(g, "max_gap_s", &p->max_gap);
  read_list(g, "merged_fragments", &p->merged, &p->n_merged);
  read_list(g, "ghost_markers", &p->ghosts, &p->n_ghosts);
  read_list(g, "removed_markers", &p->removed, &p->n_removed);
  H5Gclose(g);
}

void cf_h5_read_markers(hid_t f, cf_recording *r) {
  if (H5Lexists(f, "markers/lattice", H5P_DEFAULT) <= 0 || !(r->proc = cf_marker_proc_new(r->n_markers))) return;
  read_lattice(f, r);
  read_arrays(f, r);
  read_stick(f, r);
  if (H5Lexists(f, "quality", H5P_DEFAULT) > 0) read_quality(f, r->proc);
}
