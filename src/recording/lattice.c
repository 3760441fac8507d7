/* lattice.c — placing the cloth markers on the rows x cols lattice
 * (docs/design.md §6): on the first frame where every cloth marker is
 * present, fit the cloth plane (PCA), take 'up' = world z projected on it
 * and 'across' = the in-plane perpendicular, undo the lattice's in-plane
 * rotation, sort into rows by height and each row by 'across', and check
 * that the rows separate and the spacings are regular.  Ambiguity is an
 * error naming the markers, never a guess.  Or take the cells from the
 * mapping file. */
#include <gsl/gsl_eigen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recording_internal.h"

#define SPACING_TOL 0.30   /* neighbour distances within 30 % of their median */
#define ROW_SEPARATION 0.5 /* rows: gap between them >= half their spacing */
#define MIN_TILT 0.2588    /* sin 15°: the plane must not be nearly horizontal */

static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}
static double dist3(const double *a, const double *b) {
  double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return sqrt(dot(d, d));
}

/* ------------------------------------------------------------- the plane */
/* PCA of the K points: normal = least-variance direction; plane_rms. */
static int fit_plane(const double *x, int K, double *centre, cf_lattice_fit *fit, cf_error *err) {
  double cov[9] = {0}, eval_[3];
  for (int c = 0; c < 3; c++) {
    centre[c] = 0;
    for (int k = 0; k < K; k++) centre[c] += x[3 * k + c] / K;
  }
  for (int k = 0; k < K; k++)
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) cov[3 * a + b] += (x[3 * k + a] - centre[a]) * (x[3 * k + b] - centre[b]) / K;
  gsl_matrix_view m = gsl_matrix_view_array(cov, 3, 3);
  gsl_vector_view ev = gsl_vector_view_array(eval_, 3);
  gsl_matrix *evec = gsl_matrix_alloc(3, 3);
  gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(3);
  if (!evec || !w) {
    gsl_matrix_free(evec), gsl_eigen_symmv_free(w);
    return cf_error_set(err, CF_ENOMEM, "out of memory");
  }
  gsl_eigen_symmv(&m.matrix, &ev.vector, evec, w);
  gsl_eigen_symmv_sort(&ev.vector, evec, GSL_EIGEN_SORT_VAL_ASC);
  for (int c = 0; c < 3; c++) fit->normal[c] = gsl_matrix_get(evec, c, 0);
  gsl_matrix_free(evec), gsl_eigen_symmv_free(w);
  fit->plane_rms = sqrt(eval_[0] > 0 ? eval_[0] : 0);
  if (!(eval_[1] > 1e-12))
    return cf_error_set(err, CF_EINVAL, "lattice: the %d cloth markers are (nearly) on a line, not a sheet", K);
  return CF_OK;
}

/* up = world z projected on the plane; across = up x normal, oriented so
 * that its larger horizontal world component is positive. */
static int plane_axes(cf_lattice_fit *fit, cf_error *err) {
  double *n = fit->normal, *up = fit->up, *ac = fit->across, z = n[2];
  for (int c = 0; c < 3; c++) up[c] = (c == 2) - z * n[c];
  double len = sqrt(dot(up, up));
  if (len < MIN_TILT)
    return cf_error_set(err, CF_EINVAL, "lattice: the cloth plane is within 15 degrees of horizontal, so rows by "
                        "height are undefined; assign the cells with a mapping file (cell lines, --map)");
  for (int c = 0; c < 3; c++) up[c] /= len;
  cross(up, n, ac);
  len = sqrt(dot(ac, ac));
  double s = (fabs(ac[0]) >= fabs(ac[1]) ? ac[0] : ac[1]) < 0 ? -1 : 1;
  for (int c = 0; c < 3; c++) ac[c] *= s / len;
  cross(ac, up, n);
  return CF_OK;
}

/* ------------------------------------------------------ in-plane lattice */
/* Rotation of the lattice rows from 'across' (radians, within ±45°): the
 * mean direction, modulo 90°, of every marker's nearest-neighbour edges
 * (those within 1.3 x its nearest distance), as a circular mean of 4 phi. */
static double lattice_angle(const double *a, const double *h, int K) {
  double C = 0, S = 0;
  for (int k = 0; k < K; k++) {
    double dmin = INFINITY;
    for (int j = 0; j < K; j++)
      if (j != k) dmin = fmin(dmin, hypot(a[j] - a[k], h[j] - h[k]));
    for (int j = 0; j < K; j++) {
      if (j == k || hypot(a[j] - a[k], h[j] - h[k]) > 1.3 * dmin) continue;
      double phi = atan2(h[j] - h[k], a[j] - a[k]);
      C += cos(4 * phi), S += sin(4 * phi);
    }
  }
  return atan2(S, C) / 4;
}

static const double *sort_key;
static int by_key_desc(const void *x, const void *y) {
  double u = sort_key[*(const int *)x], v = sort_key[*(const int *)y];
  return (u < v) - (u > v);
}
static void sort_by(int *idx, int n, const double *key, int descending) {
  sort_key = key;
  qsort(idx, (size_t)n, sizeof(int), by_key_desc);
  for (int i = 0; !descending && i < n / 2; i++) {
    int t = idx[i];
    idx[i] = idx[n - 1 - i], idx[n - 1 - i] = t;
  }
}

static double row_mean(const double *h, const int *idx, int cols) {
  double s = 0;
  for (int c = 0; c < cols; c++) s += h[idx[c]];
  return s / cols;
}

/* idx sorted by height: rows are consecutive runs of cols markers, and the
 * gap between two rows must be at least half their spacing. */
static int check_rows(const double *h, const int *idx, int rows, int cols, char *const *names, cf_error *err) {
  for (int r = 0; r + 1 < rows; r++) {
    const int *lo = idx + r * cols, *hi = lo + cols;
    double spacing = row_mean(h, lo, cols) - row_mean(h, hi, cols), gap = h[lo[cols - 1]] - h[hi[0]];
    if (gap >= ROW_SEPARATION * spacing) continue;
    return cf_error_set(err, CF_EINVAL, "lattice: ambiguous rows: markers '%s' (lowest of row %d) and '%s' "
                        "(highest of row %d) differ by %.1f cm in height where the rows are %.1f cm apart; a "
                        "marker too many or too few in a row? (assign the cells with a mapping file, --map)",
                        names[lo[cols - 1]], r, names[hi[0]], r + 1, 100 * gap, 100 * spacing);
  }
  return CF_OK;
}

static int cmp_double(const void *x, const void *y) {
  double u = *(const double *)x, v = *(const double *)y;
  return (u > v) - (u < v);
}

/* Median of the distances between neighbours along rows (dr = 0, dc = 1) or
 * columns (dr = 1, dc = 0) of the markers at[r*cols+c] of x. */
static double median_spacing(const double *x, const int *at, int rows, int cols, int dr, int dc) {
  int n = 0;
  double *d = malloc(sizeof(double) * (size_t)(rows * cols + 1));
  if (!d) return NAN;
  for (int r = 0; r + dr < rows; r++)
    for (int c = 0; c + dc < cols; c++) d[n++] = dist3(x + 3 * at[r * cols + c], x + 3 * at[(r + dr) * cols + c + dc]);
  qsort(d, (size_t)n, sizeof(double), cmp_double);
  double m = n % 2 ? d[n / 2] : 0.5 * (d[n / 2 - 1] + d[n / 2]);
  free(d);
  return m;
}

/* Spacings of the lattice at[r*cols+c] (marker index of each cell): fills
 * fit->row_spacing, col_spacing, spacing_dev; *bad_a, *bad_b get the pair
 * that deviates most. */
static void spacings(const double *x, const int *at, int rows, int cols, cf_lattice_fit *fit, int *bad_a, int *bad_b) {
  fit->col_spacing = median_spacing(x, at, rows, cols, 0, 1);
  fit->row_spacing = median_spacing(x, at, rows, cols, 1, 0);
  fit->spacing_dev = 0;
  for (int dr = 0; dr < 2; dr++)
    for (int r = 0; r + dr < rows; r++)
      for (int c = 0; c + !dr < cols; c++) {
        int a = at[r * cols + c], b = at[(r + dr) * cols + c + !dr];
        double dev = fabs(dist3(x + 3 * a, x + 3 * b) / (dr ? fit->row_spacing : fit->col_spacing) - 1);
        if (dev > fit->spacing_dev) fit->spacing_dev = dev, *bad_a = a, *bad_b = b;
      }
}

static int check_spacings(const double *x, const int *at, int rows, int cols, char *const *names,
                          cf_lattice_fit *fit, cf_error *err) {
  int a = 0, b = 0;
  spacings(x, at, rows, cols, fit, &a, &b);
  if (fit->spacing_dev <= SPACING_TOL) return CF_OK;
  return cf_error_set(err, CF_EINVAL, "lattice: irregular spacing: neighbours '%s' and '%s' are %.1f cm apart, "
                      "%.0f %% off the median spacing (rows %.1f cm, columns %.1f cm; limit 30 %%): misplaced or "
                      "extra marker? (assign the cells with a mapping file, --map)", names[a], names[b],
                      100 * dist3(x + 3 * a, x + 3 * b), 100 * fit->spacing_dev, 100 * fit->row_spacing,
                      100 * fit->col_spacing);
}

/* In-plane coordinates (a = across, h = up) of the points, rotated by -theta. */
static void plane_coords(const double *x, int K, const double *centre, const cf_lattice_fit *fit, double theta,
                         double *a, double *h) {
  double cs = cos(theta), sn = sin(theta);
  for (int k = 0; k < K; k++) {
    double d[3] = {x[3 * k] - centre[0], x[3 * k + 1] - centre[1], x[3 * k + 2] - centre[2]};
    double u = dot(d, fit->across), v = dot(d, fit->up);
    a[k] = u * cs + v * sn, h[k] = -u * sn + v * cs;
  }
}

static int assign_cells(const double *x, int K, char *const *names, int rows, int cols, int *cell,
                        cf_lattice_fit *fit, double *a, double *h, int *idx, cf_error *err) {
  double centre[3];
  int rc = fit_plane(x, K, centre, fit, err);
  if (!rc) rc = plane_axes(fit, err);
  if (rc) return rc;
  plane_coords(x, K, centre, fit, 0, a, h);
  double theta = lattice_angle(a, h, K);
  fit->angle_deg = theta * 180 / M_PI;
  plane_coords(x, K, centre, fit, theta, a, h);
  for (int k = 0; k < K; k++) idx[k] = k;
  sort_by(idx, K, h, 1);
  if ((rc = check_rows(h, idx, rows, cols, names, err))) return rc;
  for (int r = 0; r < rows; r++) {
    sort_by(idx + r * cols, cols, a, 0);
    for (int c = 0; c < cols; c++) cell[2 * idx[r * cols + c]] = r, cell[2 * idx[r * cols + c] + 1] = c;
  }
  snprintf(fit->method, sizeof fit->method, "pca");
  return check_spacings(x, idx, rows, cols, names, fit, err);
}

int cf_lattice_assign(const double *x, int K, char *const *names, int rows, int cols, int *cell,
                      cf_lattice_fit *fit, cf_error *err) {
  if (rows < 2 || cols < 2 || K != rows * cols)
    return cf_error_set(err, CF_EINVAL, "lattice: %d markers for a %dx%d lattice (need %d, at least 2x2)", K, rows,
                        cols, rows * cols);
  cf_lattice_fit local;
  memset(&local, 0, sizeof local);
  double *a = malloc(sizeof(double) * K), *h = malloc(sizeof(double) * K);
  int *idx = malloc(sizeof(int) * K);
  int rc = a && h && idx ? assign_cells(x, K, names, rows, cols, cell, fit ? fit : &local, a, h, idx, err)
                         : cf_error_set(err, CF_ENOMEM, "out of memory");
  free(a), free(h), free(idx);
  return rc;
}

/* ----------------------------------------------------- on a recording */
int mk_complete_frame(const cf_recording *r, const char *mask, int from_end) {
  for (int n = 0; n < r->n_frames; n++) {
    int i = from_end ? r->n_frames - 1 - n : n, ok = 1;
    for (int k = 0; k < r->n_markers && ok; k++) ok = !mask[k] || mk_present(r, i, k);
    if (ok) return i;
  }
  return -1;
}

/* No frame has every marker of mask: name those missing in the best one. */
static int no_complete_frame(const cf_recording *r, const char *mask, cf_error *err) {
  int best = 0, best_missing = r->n_markers + 1, n = 0;
  for (int i = 0; i < r->n_frames; i++) {
    int missing = 0;
    for (int k = 0; k < r->n_markers; k++) missing += mask[k] && !mk_present(r, i, k);
    if (missing < best_missing) best_missing = missing, best = i;
  }
  char list[256] = "";
  for (int k = 0; k < r->n_markers; k++)
    if (mask[k] && !mk_present(r, best, k) && n++ < 6)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%s'", n > 1 ? ", " : "", r->names[k]);
  return cf_error_set(err, CF_EINVAL, "no frame has every cloth marker: the best (t = %.3f s) lacks %d: %s%s",
                      r->time_offset + (r->n_frames ? r->time[best] : 0), best_missing, list, n > 6 ? ", ..." : "");
}

static double presence(const cf_recording *r, int k) {
  int n = 0;
  for (int i = 0; i < r->n_frames; i++) n += mk_present(r, i, k);
  return r->n_frames ? (double)n / r->n_frames : 0;
}

static const cf_recording *by_presence_rec;
static int by_presence(const void *x, const void *y) {
  double u = presence(by_presence_rec, *(const int *)x), v = presence(by_presence_rec, *(const int *)y);
  return (u > v) - (u < v);
}

/* The cloth markers (not not_cloth) into at[]: exactly rows*cols of them. */
static int cloth_markers(const cf_recording *r, const char *not_cloth, int RC, int *at, cf_error *err) {
  int n = 0;
  for (int k = 0; k < r->n_markers; k++)
    if (!not_cloth[k]) at[n++] = k;
  if (n == RC) return CF_OK;
  const cf_marker_proc *p = r->proc;
  if (n < RC)
    return cf_error_set(err, CF_EINVAL, "only %d cloth marker(s) for a lattice of %d cells after merging fragments "
                        "and dropping %d ghost(s)%s%s%s: check --lattice and --ghost-radius, or join fragments with a "
                        "mapping file (--map)", n, RC, p->n_ghosts, p->n_ghosts ? " (" : "",
                        p->n_ghosts ? p->ghosts[0] : "", p->n_ghosts > 1 ? ", ...)" : p->n_ghosts ? ")" : "");
  by_presence_rec = r;
  qsort(at, (size_t)n, sizeof(int), by_presence);
  char list[320] = "";
  for (int i = 0; i < n - RC && i < 5; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%s' (%.0f %% of frames)", i ? ", " : "",
             r->names[at[i]], 100 * presence(r, at[i]));
  return cf_error_set(err, CF_EINVAL, "%d cloth markers for a lattice of %d cells (after merging fragments and "
                      "dropping ghosts): %d too many; the shortest tracks: %s%s. Drop or merge them with a mapping "
                      "file (--map), or widen --merge-radius", n, RC, n - RC, list, n - RC > 5 ? ", ..." : "");
}

/* The cells of the mapping file: every cell exactly once. */
static int map_cells(const cf_recording *r, const mk_map *map, int rows, int cols, int *at, cf_error *err) {
  for (int i = 0; i < rows * cols; i++) at[i] = -1;
  for (int i = 0; i < map->n_cell; i++) {
    const mk_cell *c = &map->cell[i];
    int k = cf_recording_marker_index(r, c->name);
    if (c->row >= rows || c->col >= cols)
      return cf_error_set(err, CF_EINVAL, "%s:%d: cell %d %d is outside the %dx%d lattice (0-based)", map->path,
                          c->line, c->row, c->col, rows, cols);
    if (k < 0) return cf_error_set(err, CF_EINVAL, "%s:%d: no marker '%s' (after merging)", map->path, c->line, c->name);
    if (at[c->row * cols + c->col] >= 0)
      return cf_error_set(err, CF_EINVAL, "%s:%d: cell %d %d is given twice", map->path, c->line, c->row, c->col);
    for (int j = 0; j < rows * cols; j++)
      if (at[j] == k)
        return cf_error_set(err, CF_EINVAL, "%s:%d: marker '%s' is already at cell %d %d", map->path, c->line,
                            c->name, j / cols, j % cols);
    at[c->row * cols + c->col] = k;
  }
  for (int j = 0; j < rows * cols; j++)
    if (at[j] < 0)
      return cf_error_set(err, CF_EINVAL, "%s: no marker for cell %d %d: the cell lines must cover the whole %dx%d "
                          "lattice", map->path, j / cols, j % cols, rows, cols);
  return CF_OK;
}

/* Fit the lattice at frame i of the markers at[] (in any order); on return
 * at[] holds the marker of each cell, row-major. */
static int fit_frame(const cf_recording *r, int i, int rows, int cols, int *at, cf_lattice_fit *fit, cf_error *err) {
  int RC = rows * cols, rc;
  double *x = malloc(sizeof(double) * 3 * RC);
  int *cell = malloc(sizeof(int) * 2 * RC), *sorted = malloc(sizeof(int) * RC);
  char **names = malloc(sizeof(char *) * RC);
  if (!x || !cell || !sorted || !names) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
  else {
    for (int j = 0; j < RC; j++) memcpy(x + 3 * j, mk_pos(r, i, at[j]), 3 * sizeof(double)), names[j] = r->names[at[j]];
    rc = cf_lattice_assign(x, RC, names, rows, cols, cell, fit, err);
    for (int j = 0; !rc && j < RC; j++) sorted[cell[2 * j] * cols + cell[2 * j + 1]] = at[j];
    if (!rc) memcpy(at, sorted, sizeof(int) * RC);
  }
  free(x), free(cell), free(sorted), free(names);
  return rc;
}

/* The plane and spacings of a mapped lattice, for the report only. */
static void describe_mapped(const cf_recording *r, int i, int rows, int cols, const int *at, cf_lattice_fit *fit) {
  int RC = rows * cols, a, b;
  double *x = malloc(sizeof(double) * 3 * RC), centre[3];
  int *ident = malloc(sizeof(int) * RC);
  cf_error ignored;
  if (x && ident) {
    for (int j = 0; j < RC; j++) memcpy(x + 3 * j, mk_pos(r, i, at[j]), 3 * sizeof(double)), ident[j] = j;
    if (!fit_plane(x, RC, centre, fit, &ignored)) plane_axes(fit, &ignored);
    spacings(x, ident, rows, cols, fit, &a, &b);
  }
  snprintf(fit->method, sizeof fit->method, "map");
  free(x), free(ident);
}

/* Markers in lattice order, then the rest in source order. */
static int reorder(cf_recording *r, const int *at, int RC, cf_error *err) {
  int K = r->n_markers, n = 0;
  int *keep = malloc(sizeof(int) * (K + 1));
  char *on = calloc((size_t)K + 1, 1);
  if (!keep || !on) return free(keep), free(on), cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int j = 0; j < RC; j++) {
    keep[n++] = at[j], on[at[j]] = 1;
    r->proc->cell[2 * at[j]] = j / r->proc->cols, r->proc->cell[2 * at[j] + 1] = j % r->proc->cols;
  }
  for (int k = 0; k < K; k++)
    if (!on[k]) keep[n++] = k;
  int rc = mk_select(r, keep, n, err);
  free(keep), free(on);
  return rc;
}

int mk_lattice(cf_recording *r, const cf_marker_opts *o, const mk_map *map, const char *not_cloth, cf_error *err) {
  int rows = o->rows, cols = o->cols, RC = rows * cols, first = -1, rc;
  int *at = malloc(sizeof(int) * ((RC > r->n_markers ? RC : r->n_markers) + 1)); /* cells, or candidates */
  char *mask = calloc((size_t)r->n_markers + 1, 1);
  cf_lattice_fit *fit = &r->proc->fit;
  if (!at || !mask) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
  else rc = map->n_cell ? map_cells(r, map, rows, cols, at, err) : cloth_markers(r, not_cloth, RC, at, err);
  for (int j = 0; !rc && j < RC; j++) mask[at[j]] = 1;
  if (!rc && (first = mk_complete_frame(r, mask, 0)) < 0) rc = no_complete_frame(r, mask, err);
  if (!rc && map->n_cell) describe_mapped(r, first, rows, cols, at, fit);
  else if (!rc) rc = fit_frame(r, first, rows, cols, at, fit, err);
  if (!rc) {
    fit->first_time = r->time_offset + r->time[first];
    r->proc->rows = rows, r->proc->cols = cols;
    rc = reorder(r, at, RC, err);
  }
  free(at), free(mask);
  return rc;
}
