/* results_read.c — read a results file written by results_h5.c (layout
 * there).  Every array is checked against the shape its axes give; a
 * missing or misshapen one is an error naming the file and the dataset. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "h5util.h"
#include "results_fields.h"

typedef struct {
  hid_t g;
  const char *path;  /* the file, for messages */
  char where[600];   /* the group, for messages */
  cf_error *err;
} rd;

static void read_fields(hid_t obj, void *base, const cf_res_field *f) {
  for (; f->name; f++) {
    char *p = (char *)base + f->off;
    double v;
    if (f->kind == 'd') cf_h5_read_attr_double(obj, f->name, (double *)p);
    else if (f->kind == 'i' && cf_h5_read_attr_double(obj, f->name, &v)) *(int *)p = (int)v;
    else if (f->kind == 's') cf_h5_read_attr_string(obj, f->name, p, f->size);
  }
}

/* A string attribute of any length (NULL if absent). */
static char *read_text(hid_t obj, const char *name) {
  if (H5Aexists(obj, name) <= 0) return NULL;
  hid_t a = H5Aopen(obj, name, H5P_DEFAULT), t = a < 0 ? -1 : H5Aget_type(a);
  size_t n = t < 0 ? 0 : H5Tis_variable_str(t) > 0 ? (size_t)1 << 20 : H5Tget_size(t) + 1;
  if (t >= 0) H5Tclose(t);
  if (a >= 0) H5Aclose(a);
  char *s = n ? calloc(n, 1) : NULL;
  if (s && !cf_h5_read_attr_string(obj, name, s, n)) s[0] = 0;
  return s;
}

static int bad(rd *r, const char *name, const char *what) {
  return cf_error_set(r->err, CF_EFORMAT, "%s: %s/%s: %s", r->path, r->where, name, what);
}

/* A [n] dataset; *n < 0: any length (set), else it must be *n. */
static int read_vec(rd *r, const char *name, int *n, double **out) {
  hsize_t d[1];
  if (!cf_h5_read_dataset(r->g, name, H5T_NATIVE_DOUBLE, 1, d, (void **)out)) return bad(r, name, "missing");
  if (*n >= 0 && d[0] != (hsize_t)*n) return bad(r, name, "wrong length");
  *n = (int)d[0];
  return CF_OK;
}

/* A [nd,na] grid, or [nm,nd,na] when nm > 0. */
static int read_grid(rd *r, const char *name, hid_t type, int nm, int nd, int na, void **out) {
  hsize_t d[3], want[3] = {(hsize_t)nm, (hsize_t)nd, (hsize_t)na};
  int rank = nm > 0 ? 3 : 2;
  const hsize_t *w = want + 3 - rank;
  if (!cf_h5_read_dataset(r->g, name, type, rank, d, out)) return bad(r, name, "missing");
  for (int q = 0; q < rank; q++)
    if (d[q] != w[q]) return bad(r, name, "shape differs from the axes");
  return CF_OK;
}

/* The axes delta [nd], alpha [na] and error, std, status [nd,na] (or
 * [nm,nd,na] when nm > 0). */
static int read_axes_grids(rd *r, int nm, int *nd, int *na, double **delta, double **alpha, double **e, double **s,
                           int **status) {
  *nd = *na = -1;
  int rc = read_vec(r, "delta", nd, delta);
  if (!rc) rc = read_vec(r, "alpha", na, alpha);
  if (!rc) rc = read_grid(r, "error", H5T_NATIVE_DOUBLE, nm, *nd, *na, (void **)e);
  if (!rc) rc = read_grid(r, "std", H5T_NATIVE_DOUBLE, nm, *nd, *na, (void **)s);
  if (!rc) rc = read_grid(r, "status", H5T_NATIVE_INT, nm, *nd, *na, (void **)status);
  return rc;
}

/* A mu axis (sweep --mu-grid, sensitivity --scan mu) if the group has one:
 * *nm values into *mu; *nm = 0 without. */
static int read_mu_axis(rd *r, int *nm, double **mu) {
  *nm = 0;
  if (H5Lexists(r->g, "mu", H5P_DEFAULT) <= 0) return CF_OK;
  *nm = -1;
  int rc = read_vec(r, "mu", nm, mu);
  return !rc && *nm < 1 ? bad(r, "mu", "empty") : rc;
}

static int read_reasons(rd *r, cf_res_sweep *w) {
  size_t n = 0, want = (size_t)cf_res_sweep_points(w);
  if (!cf_h5_read_strings(r->g, "reason", &w->reason, &n)) return bad(r, "reason", "missing");
  if (n == want) return CF_OK;
  cf_strings_free(w->reason, (int)n);
  w->reason = NULL;
  return bad(r, "reason", "wrong length");
}

/* The held-parameter checks' moves, absent in older files: not checked. */
static void conf_unchecked(cf_res_conf *c) {
  c->kappa_shift[0] = c->kappa_shift[1] = c->beta_shift[0] = c->beta_shift[1] = c->beta_checked = NAN;
  c->rest_shift[0] = c->rest_shift[1] = NAN;
  c->mesh_shift[0] = c->mesh_shift[1] = NAN;
  c->sys[0] = c->sys[1] = c->stretch_edges = c->stretch_diagonals = c->better_e_test = NAN;
}

static int read_sweep(rd *r, void *part) {
  cf_res_sweep *w = part;
  int rc = read_mu_axis(r, &w->nm, &w->mu);
  if (!rc) rc = read_axes_grids(r, w->nm, &w->nd, &w->na, &w->delta, &w->alpha, &w->e, &w->s, &w->status);
  if (!rc) rc = read_grid(r, "pruned", H5T_NATIVE_UCHAR, w->nm, w->nd, w->na, (void **)&w->pruned);
  if (!rc) rc = read_reasons(r, w);
  conf_unchecked(&w->conf);
  read_fields(r->g, w, cf_res_sweep_fields);
  if (!rc && (w->best < -1 || w->best >= cf_res_sweep_points(w))) rc = bad(r, "best_index", "outside the grid");
  return rc;
}

static int read_fit(rd *r, void *part) {
  cf_res_fit *f = part;
  conf_unchecked(&f->conf);
  f->start_kappa = f->start_beta = NAN; /* held: files written before */
  read_fields(r->g, f, cf_res_fit_fields);
  hsize_t d[2];
  if (!cf_h5_read_dataset(r->g, "path", H5T_NATIVE_DOUBLE, 2, d, (void **)&f->path) || d[1] != 4)
    return bad(r, "path", "missing or not [n,4]");
  f->n_path = (int)d[0];
  return CF_OK;
}

/* Marker positions [T,K,3] of the series s (K from its rows, cols). */
static int read_markers(rd *r, const char *name, const cf_res_series *s, double **out) {
  hsize_t d[3];
  if (!cf_h5_read_dataset(r->g, name, H5T_NATIVE_DOUBLE, 3, d, (void **)out)) return bad(r, name, "missing");
  if (s->rows < 1 || s->cols < 1 || d[0] != (hsize_t)s->T || d[1] != (hsize_t)s->rows * s->cols || d[2] != 3)
    return bad(r, name, "not [T, rows*cols, 3] with the series' T and the attributes rows, cols");
  return CF_OK;
}

static int read_series(rd *r, void *part) {
  cf_res_series *s = part;
  read_fields(r->g, s, cf_res_series_fields);
  s->T = -1;
  int rc = read_vec(r, "e", &s->T, &s->e);
  if (!rc) rc = read_vec(r, "s", &s->T, &s->s);
  if (!rc) rc = read_vec(r, "d", &s->T, &s->d);
  if (!rc && H5Lexists(r->g, "contacts", H5P_DEFAULT) > 0) rc = read_vec(r, "contacts", &s->T, &s->contacts);
  if (rc || H5Lexists(r->g, "simulated", H5P_DEFAULT) <= 0) return rc; /* older files: no markers */
  rc = read_markers(r, "recorded", s, &s->recorded);
  return rc ? rc : read_markers(r, "simulated", s, &s->simulated);
}

static int read_sens(rd *r, void *part) {
  cf_res_sens *m = part;
  read_fields(r->g, m, cf_res_sens_fields);
  int rc = read_mu_axis(r, &m->nm, &m->mu);
  if (!rc) rc = read_axes_grids(r, m->nm, &m->nd, &m->na, &m->delta, &m->alpha, &m->e, &m->s, &m->status);
  size_t n = 0;
  if (rc || H5Lexists(r->g, "reason", H5P_DEFAULT) <= 0) return rc; /* files written without */
  if (!cf_h5_read_strings(r->g, "reason", &m->reason, &n)) return bad(r, "reason", "unreadable");
  if (n == (size_t)(m->nm > 0 ? m->nm : 1) * m->nd * m->na) return CF_OK;
  cf_strings_free(m->reason, (int)n);
  m->reason = NULL;
  return bad(r, "reason", "wrong length");
}

static int read_regression(rd *r, void *part) {
  cf_res_regression *g = part;
  g->model = cf_res_model_default(); /* files without the settings */
  snprintf(g->search, sizeof g->search, "nelder-mead"); /* files from before the model search */
  read_fields(r->g, g, cf_res_reg_fields);
  size_t n = 0;
  if (!cf_h5_read_strings(r->g, "recordings", &g->used, &n)) return bad(r, "recordings", "missing");
  g->n_used = (int)n;
  g->has = 1;
  if (H5Lexists(r->g, "error_formula", H5P_DEFAULT) <= 0) return CF_OK; /* files written without */
  return read_vec(r, "error_formula", &g->n_used, &g->e_hat);
}

typedef struct {
  const cf_res_rows *p;
  char *rows;
  int *n;
} rows_ctx;

static herr_t row_name(hid_t g, const char *name, const H5L_info_t *info, void *arg) {
  (void)g, (void)info;
  rows_ctx *c = arg;
  if (*c->n >= c->p->max) return 1; /* stop: more than the part holds */
  snprintf(c->rows + (size_t)(*c->n)++ * c->p->row_size + c->p->name_off, c->p->name_size, "%s", name);
  return 0;
}

/* A part of rows p (results_fields.h) into head and rows[*n]: its
 * attributes, then a row per subgroup in the order written. */
static int read_rows(rd *r, const cf_res_rows *p, void *head, void *rows, int *n) {
  read_fields(r->g, head, p->head);
  rows_ctx c = {p, rows, n};
  hsize_t idx = 0;
  *n = 0;
  if (H5Literate(r->g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, row_name, &c) < 0) {
    *n = 0, idx = 0;
    if (H5Literate(r->g, H5_INDEX_NAME, H5_ITER_INC, &idx, row_name, &c) < 0) return bad(r, "", "unlistable");
  }
  for (int i = 0; i < *n; i++) {
    char *row = (char *)rows + (size_t)i * p->row_size;
    hid_t g = H5Gopen2(r->g, row + p->name_off, H5P_DEFAULT);
    if (g < 0) return bad(r, row + p->name_off, "not a group");
    read_fields(g, row, p->row);
    H5Gclose(g);
  }
  return CF_OK;
}

static int read_compare(rd *r, void *part) {
  cf_res_compare *c = part;
  c->model = cf_res_model_default(); /* the settings a file has not got */
  return read_rows(r, &cf_res_compare_rows, c, c->row, &c->n);
}

static int read_remesh(rd *r, void *part) {
  cf_res_remesh *m = part;
  m->model = cf_res_model_default();
  return read_rows(r, &cf_res_remesh_rows, m, m->row, &m->n);
}

/* Group `name` of parent (at path `where`) read by fn; *has = 1 if present. */
static int read_part(hid_t parent, const char *path, const char *where, const char *name, int *has,
                     int (*fn)(rd *, void *), void *part, cf_error *err) {
  if (H5Lexists(parent, name, H5P_DEFAULT) <= 0) return CF_OK;
  rd r = {H5Gopen2(parent, name, H5P_DEFAULT), path, "", err};
  snprintf(r.where, sizeof r.where, "%s/%s", where, name);
  if (r.g < 0) return cf_error_set(err, CF_EFORMAT, "%s: %s is not a group", path, r.where);
  int rc = fn(&r, part);
  H5Gclose(r.g);
  if (!rc && has) *has = 1;
  return rc;
}

static int read_rec(hid_t recs, const char *path, cf_res_rec *rec, cf_error *err) {
  hid_t g = H5Gopen2(recs, rec->name, H5P_DEFAULT);
  if (g < 0) return cf_error_set(err, CF_EFORMAT, "%s: /recordings/%s is not a group", path, rec->name);
  read_fields(g, rec, cf_res_rec_fields);
  char where[300];
  snprintf(where, sizeof where, "/recordings/%s", rec->name);
  int rc = read_part(g, path, where, "sweep", &rec->has_sweep, read_sweep, &rec->sweep, err);
  if (!rc) rc = read_part(g, path, where, "fit", &rec->has_fit, read_fit, &rec->fit, err);
  if (!rc) rc = read_part(g, path, where, "series", &rec->has_series, read_series, &rec->series, err);
  if (!rc) rc = read_part(g, path, where, "sensitivity", &rec->has_sens, read_sens, &rec->sens, err);
  if (!rc) rc = read_part(g, path, where, "compare", &rec->has_compare, read_compare, &rec->compare, err);
  if (!rc) rc = read_part(g, path, where, "remesh", &rec->has_remesh, read_remesh, &rec->remesh, err);
  H5Gclose(g);
  return rc;
}

static herr_t add_name(hid_t g, const char *name, const H5L_info_t *info, void *arg) {
  (void)g, (void)info;
  return cf_results_rec(arg, name, 1) ? 0 : -1;
}

static int read_recordings(hid_t f, const char *path, cf_results *r, cf_error *err) {
  if (H5Lexists(f, "recordings", H5P_DEFAULT) <= 0) return CF_OK;
  hid_t g = H5Gopen2(f, "recordings", H5P_DEFAULT);
  hsize_t idx = 0;
  /* creation order when tracked (our files), else by name */
  if (g >= 0 && H5Literate(g, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, add_name, r) < 0) {
    idx = 0;
    if (H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, &idx, add_name, r) < 0) H5Gclose(g), g = -1;
  }
  if (g < 0) return cf_error_set(err, CF_EFORMAT, "%s: cannot list /recordings", path);
  int rc = CF_OK;
  for (int i = 0; !rc && i < r->n; i++) rc = read_rec(g, path, &r->recs[i], err);
  H5Gclose(g);
  return rc;
}

static int read_provenance(hid_t f, cf_res_provenance *p) {
  hid_t g = H5Lexists(f, "provenance", H5P_DEFAULT) > 0 ? H5Gopen2(f, "provenance", H5P_DEFAULT) : -1;
  if (g < 0) return CF_OK;
  read_fields(g, p, cf_res_prov_fields);
  p->config_text = read_text(g, "config");
  p->history = read_text(g, "history");
  H5Gclose(g);
  return CF_OK;
}

int cf_results_read(const char *path, cf_results *r, cf_error *err) {
  cf_results_init(r);
  struct stat st;
  if (stat(path, &st) != 0) return cf_error_set(err, CF_EIO, "%s: no such results file", path);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return cf_error_set(err, CF_EIO, "%s: cannot open as an HDF5 file", path);
  char format[64] = "";
  cf_h5_read_attr_string(f, "clothfit_format", format, sizeof format);
  int rc = strcmp(format, "results-1") ? cf_error_set(err, CF_EFORMAT, "%s: not a clothfit results file (root "
                                                     "attribute clothfit_format is '%s')", path, format)
                                       : CF_OK;
  if (!rc) rc = read_provenance(f, &r->prov);
  if (!rc) rc = read_recordings(f, path, r, err);
  if (!rc) rc = read_part(f, path, "", "regression", NULL, read_regression, &r->reg, err);
  H5Fclose(f);
  if (rc) cf_results_free(r);
  return rc;
}

int cf_results_read_or_new(const char *path, cf_results *r, cf_error *err) {
  struct stat st;
  if (stat(path, &st) != 0) {
    cf_results_init(r);
    return CF_OK;
  }
  return cf_results_read(path, r, err);
}
