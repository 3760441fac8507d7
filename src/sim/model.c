/* model.c — the inextensibility constraints: T_E, T_F, T_G tensors by
 * Algorithm 1 of the thesis (with the t_E typo of its line 11 fixed),
 * boundary-edge rows, evaluation and Jacobian (2.15)-(2.16). */
#include "model.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "element.h"
#include "kernels.h"

/* node -> elements adjacency (CSR) */
typedef struct { int *ptr, *idx; } adjacency;

static int build_adjacency(const cf_mesh *m, adjacency *a) {
  a->ptr = calloc((size_t)m->n_nodes + 1, sizeof *a->ptr);
  a->idx = malloc((size_t)m->n_elems * m->nv * sizeof *a->idx);
  if (!a->ptr || !a->idx) return CF_ENOMEM;
  for (int k = 0; k < m->n_elems * m->nv; k++) a->ptr[m->elems[k] + 1]++;
  for (int i = 0; i < m->n_nodes; i++) a->ptr[i + 1] += a->ptr[i];
  int *fill = malloc((size_t)m->n_nodes * sizeof *fill);
  if (!fill) return CF_ENOMEM;
  memcpy(fill, a->ptr, (size_t)m->n_nodes * sizeof *fill);
  for (int e = 0; e < m->n_elems; e++)
    for (int i = 0; i < m->nv; i++) a->idx[fill[m->elems[e * m->nv + i]]++] = e;
  free(fill);
  return CF_OK;
}

static int int_cmp(const void *p, const void *q) {
  int a = *(const int *)p, b = *(const int *)q;
  return (a > b) - (a < b);
}

/* Sorted unique nodes of the elements around k. */
static int neighbourhood(const cf_mesh *m, const adjacency *a, int k, int *out) {
  int n = 0;
  for (int q = a->ptr[k]; q < a->ptr[k + 1]; q++)
    for (int i = 0; i < m->nv; i++) out[n++] = m->elems[a->idx[q] * m->nv + i];
  qsort(out, (size_t)n, sizeof *out, int_cmp);
  int u = 0;
  for (int i = 0; i < n; i++)
    if (u == 0 || out[u - 1] != out[i]) out[u++] = out[i];
  return u;
}

static int local_index(const int *list, int n, int v) {
  const int *p = bsearch(&v, list, (size_t)n, sizeof *list, int_cmp);
  return p ? (int)(p - list) : -1;
}

/* The three local tensors of node k (Algorithm 1), divided by m_k:
 * TE, TF, TG are nl x nl over the neighbourhood nb. */
static void node_tensors(const cf_mesh *m, const adjacency *a, const cf_element_rule *r, int k,
                         const int *nb, int nl, double mk, double *TE, double *TF, double *TG) {
  memset(TE, 0, sizeof(double) * nl * nl);
  memset(TF, 0, sizeof(double) * nl * nl);
  memset(TG, 0, sizeof(double) * nl * nl);
  for (int q = a->ptr[k]; q < a->ptr[k + 1]; q++) {
    const int *el = m->elems + a->idx[q] * m->nv;
    const double *p[CF_MAX_NV];
    int loc[CF_MAX_NV], kk = -1;
    for (int i = 0; i < m->nv; i++) {
      p[i] = m->x + 3 * el[i];
      loc[i] = local_index(nb, nl, el[i]);
      if (el[i] == k) kk = i;
    }
    for (int l = 0; l < r->ng; l++) {
      double ta[3], tb[3], E, F, G;
      cf_element_tangents(r, l, p, ta, tb);
      double dA = cf_element_metric(ta, tb, &E, &F, &G) * r->w[l] * r->N[l][kk] / mk;
      for (int i = 0; i < m->nv; i++)
        for (int j = 0; j < m->nv; j++) {
          const double *di = r->dN[l][i], *dj = r->dN[l][j];
          int o = loc[i] * nl + loc[j];
          TE[o] += di[0] * dj[0] * dA;
          TF[o] += 0.5 * (di[0] * dj[1] + di[1] * dj[0]) * dA;
          TG[o] += di[1] * dj[1] * dA;
        }
    }
  }
}

static double quad_form(const double *T, const int *nb, int nl, const double *x) {
  double s = 0;
  for (int i = 0; i < nl; i++)
    for (int j = 0; j < nl; j++) {
      const double *pi = x + 3 * nb[i], *pj = x + 3 * nb[j];
      s += T[i * nl + j] * (pi[0] * pj[0] + pi[1] * pj[1] + pi[2] * pj[2]);
    }
  return s;
}

typedef struct {
  int nrows, nnodes, nT, cap_rows, cap_nodes, cap_T;
} sizes;

void cf_model_set_row(cf_model *md, int r, int kind, int node, const int *nb, int nl, const double *T, double c0,
                      double scale) {
  int nn = md->row_ptr[r], nt = md->tptr[r];
  md->kind[r] = kind;
  md->node[r] = node;
  memcpy(md->nodes + nn, nb, sizeof(int) * nl);
  memcpy(md->T + nt, T, sizeof(double) * nl * nl);
  md->row_ptr[r + 1] = nn + nl;
  md->tptr[r + 1] = nt + nl * nl;
  md->c0[r] = c0;
  md->scale[r] = scale;
}

static int add_row(cf_model *md, sizes *s, int kind, int node, const int *nb, int nl,
                   const double *T, double c0, double scale) {
  if (s->nrows + 1 > s->cap_rows || s->nnodes + nl > s->cap_nodes || s->nT + nl * nl > s->cap_T)
    return CF_ENOMEM; /* capacities are computed exactly beforehand */
  int r = s->nrows++;
  cf_model_set_row(md, r, kind, node, nb, nl, T, c0, scale);
  s->nnodes += nl;
  s->nT += nl * nl;
  return CF_OK;
}

static int alloc_rows(cf_model *md, sizes *s) {
  md->kind = malloc(sizeof(int) * s->cap_rows);
  md->node = malloc(sizeof(int) * s->cap_rows);
  md->row_ptr = malloc(sizeof(int) * (s->cap_rows + 1));
  md->tptr = malloc(sizeof(int) * (s->cap_rows + 1));
  md->nodes = malloc(sizeof(int) * s->cap_nodes);
  md->T = malloc(sizeof(double) * s->cap_T);
  md->c0 = malloc(sizeof(double) * s->cap_rows);
  md->scale = malloc(sizeof(double) * s->cap_rows);
  if (!md->kind || !md->node || !md->row_ptr || !md->tptr || !md->nodes || !md->T || !md->c0 ||
      !md->scale)
    return CF_ENOMEM;
  md->row_ptr[0] = md->tptr[0] = 0;
  return CF_OK;
}

/* Count rows and storage, then fill. */
/* Which rows: CF_MODEL_FULL = edges, E/F/G at interior nodes, F at corners
 * (inextensible); CF_MODEL_QUASI = edges, E/G at interior nodes (quasi-
 * inextensible, Definition 2: shears, does not stretch); CF_MODEL_SHEAR =
 * the F rows of every node (C_F of the shear energy, §2.4.6). */
static int rows_at(const cf_mesh *m, int k, int mode) {
  if (mode == CF_MODEL_SHEAR) return 1;
  if (m->is_boundary[k]) return mode == CF_MODEL_FULL && m->is_corner[k] ? 1 : 0;
  return mode == CF_MODEL_FULL ? 3 : 2;
}

static int build_rows(cf_model *md, const adjacency *a, int mode) {
  int shear_only = mode == CF_MODEL_SHEAR;
  const cf_mesh *m = md->mesh;
  cf_element_rule r;
  cf_element_rule_get(m->nv, &r);
  int n = m->n_nodes, maxnl = 0;
  int *nb = malloc(sizeof(int) * (size_t)m->n_elems * m->nv);
  if (!nb) return CF_ENOMEM;
  int ne = shear_only ? 0 : m->n_bedges;
  sizes s = {0, 0, 0, ne, 2 * ne, 4 * ne};
  for (int k = 0; k < n; k++) {
    int nl = neighbourhood(m, a, k, nb);
    int rows = rows_at(m, k, shear_only);
    s.cap_rows += rows;
    s.cap_nodes += rows * nl;
    s.cap_T += rows * nl * nl;
    if (nl > maxnl) maxnl = nl;
  }
  double *TE = malloc(sizeof(double) * maxnl * maxnl * 3 + 1);
  int rc = TE && alloc_rows(md, &s) == CF_OK ? CF_OK : CF_ENOMEM;
  double *TF = TE + maxnl * maxnl, *TG = TF + maxnl * maxnl;
  for (int e = 0; rc == CF_OK && e < ne; e++) {
    int pair[2] = {m->bedges[2 * e], m->bedges[2 * e + 1]};
    if (pair[0] > pair[1]) {
      int t = pair[0];
      pair[0] = pair[1];
      pair[1] = t;
    }
    const double Te[4] = {1, -1, -1, 1};
    double l2 = quad_form(Te, pair, 2, m->x);
    rc = add_row(md, &s, CF_ROW_EDGE, pair[0], pair, 2, Te, l2, l2);
  }
  for (int k = 0; rc == CF_OK && k < n; k++) {
    if (!rows_at(m, k, shear_only)) continue;
    int nl = neighbourhood(m, a, k, nb);
    node_tensors(m, a, &r, k, nb, nl, md->mass[k], TE, TF, TG);
    double E0 = quad_form(TE, nb, nl, m->x), F0 = quad_form(TF, nb, nl, m->x),
           G0 = quad_form(TG, nb, nl, m->x);
    double sEG = sqrt(E0 * G0);
    if (!m->is_boundary[k] && !shear_only) {
      rc = add_row(md, &s, CF_ROW_E, k, nb, nl, TE, E0, E0);
      if (rc == CF_OK && mode == CF_MODEL_FULL) rc = add_row(md, &s, CF_ROW_F, k, nb, nl, TF, F0, sEG);
      if (rc == CF_OK) rc = add_row(md, &s, CF_ROW_G, k, nb, nl, TG, G0, G0);
    } else {
      rc = add_row(md, &s, CF_ROW_F, k, nb, nl, TF, F0, sEG);
    }
  }
  md->nrows = s.nrows;
  free(nb);
  free(TE);
  return rc;
}

/* Groups of at most this many (row, node) pairs are evaluated together
 * (a multiple of the kernels' tile, to which Tg's rows are padded with
 * zeros). */
#define GROUP_SLOTS 192

static int padded(int w) { return (w + CF_KERN_TILE - 1) / CF_KERN_TILE * CF_KERN_TILE; }

int cf_model_same_nodes(const cf_model *md, int r, int q) {
  int nl = md->row_ptr[r + 1] - md->row_ptr[r];
  return md->row_ptr[q + 1] - md->row_ptr[q] == nl &&
         !memcmp(md->nodes + md->row_ptr[r], md->nodes + md->row_ptr[q], sizeof(int) * nl);
}

/* First row after the group starting at row r. */
static int group_end(const cf_model *md, int r) {
  int nl = md->row_ptr[r + 1] - md->row_ptr[r], e = r + 1;
  while (e < md->nrows && e - r < CF_GROUP_MAX_ROWS && (e - r + 1) * nl <= GROUP_SLOTS &&
         cf_model_same_nodes(md, r, e))
    e++;
  return e;
}

static int build_groups(cf_model *md) {
  int ng = 0;
  for (int r = 0; r < md->nrows; r = group_end(md, r)) ng++;
  md->grp_row = malloc(sizeof(int) * ((size_t)ng + 1));
  md->grp_tptr = malloc(sizeof(int) * ((size_t)ng + 1));
  size_t nt = 0;
  for (int r = 0; r < md->nrows; r = group_end(md, r)) {
    int nl = md->row_ptr[r + 1] - md->row_ptr[r];
    nt += (size_t)nl * padded((group_end(md, r) - r) * nl);
  }
  md->Tg = calloc(nt + 1, sizeof(double));
  if (!md->grp_row || !md->grp_tptr || !md->Tg || nt >= INT_MAX) return CF_ENOMEM;
  md->ngroups = ng;
  int k = 0, off = 0;
  for (int r = 0; r < md->nrows; r = group_end(md, r), k++) {
    int m = group_end(md, r) - r, nl = md->row_ptr[r + 1] - md->row_ptr[r], wp = padded(m * nl);
    md->grp_row[k] = r;
    md->grp_tptr[k] = off;
    double *Tg = md->Tg + off;
    for (int j = 0; j < nl; j++)
      for (int t = 0; t < m; t++)
        for (int i = 0; i < nl; i++) Tg[j * wp + t * nl + i] = md->T[md->tptr[r + t] + i * nl + j];
    off += nl * wp;
  }
  md->grp_row[ng] = md->nrows;
  md->grp_tptr[ng] = off;
  return CF_OK;
}

cf_model *cf_model_empty(const cf_mesh *mesh) {
  cf_model *md = calloc(1, sizeof *md);
  if (!md) return NULL;
  md->mesh = mesh;
  md->n = mesh->n_nodes;
  md->mass = malloc(sizeof(double) * md->n);
  md->row_ptr = calloc(1, sizeof(int));
  md->tptr = calloc(1, sizeof(int));
  if (!md->mass || !md->row_ptr || !md->tptr) {
    cf_model_free(md);
    return NULL;
  }
  cf_mesh_lumped_mass(mesh, mesh->x, md->mass);
  md->kern = cf_kernels_get();
  return md;
}

int cf_model_finish(cf_model *md) { return build_groups(md); }

cf_model *cf_model_alloc_mode(const cf_mesh *mesh, int mode, cf_error *err) {
  if (!mesh->bedges) {
    cf_error_set(err, CF_EINVAL, "model: mesh is not finalized (call cf_mesh_finalize)");
    return NULL;
  }
  cf_model *md = calloc(1, sizeof *md);
  adjacency a = {NULL, NULL};
  int rc = CF_ENOMEM;
  if (md) {
    md->mesh = mesh;
    md->n = mesh->n_nodes;
    md->mass = malloc(sizeof(double) * md->n);
    if (md->mass && build_adjacency(mesh, &a) == CF_OK) {
      cf_mesh_lumped_mass(mesh, mesh->x, md->mass);
      rc = build_rows(md, &a, mode);
      if (rc == CF_OK) rc = build_groups(md);
      md->kern = cf_kernels_get();
    }
  }
  free(a.ptr);
  free(a.idx);
  if (rc != CF_OK) {
    cf_error_set(err, rc, "model: out of memory building the constraint tensors");
    cf_model_free(md);
    return NULL;
  }
  return md;
}

cf_model *cf_model_alloc(const cf_mesh *mesh, cf_error *err) {
  return cf_model_alloc_mode(mesh, CF_MODEL_FULL, err);
}

void cf_model_free(cf_model *md) {
  if (!md) return;
  CF_FREE_ALL(md->kind, md->node, md->row_ptr, md->tptr, md->nodes, md->T, md->c0, md->scale, md->w, md->mass,
              md->grp_row, md->grp_tptr, md->Tg, md);
}

int cf_model_nrows(const cf_model *md) { return md->nrows; }
int cf_model_row_kind(const cf_model *md, int r) { return md->kind[r]; }
int cf_model_row_node(const cf_model *md, int r) { return md->node[r]; }
double cf_model_row_scale(const cf_model *md, int r) { return md->scale[r]; }
const double *cf_model_mass(const cf_model *md) { return md->mass; }

double cf_model_row_half_grad(const cf_model *md, int r, const double *x, double *g) {
  const int *nb = md->nodes + md->row_ptr[r];
  int nl = md->row_ptr[r + 1] - md->row_ptr[r];
  const double *T = md->T + md->tptr[r];
  double s = 0;
  for (int i = 0; i < nl; i++) {
    double gx = 0, gy = 0, gz = 0;
    for (int j = 0; j < nl; j++) {
      const double *pj = x + 3 * nb[j];
      double t = T[i * nl + j];
      gx += t * pj[0];
      gy += t * pj[1];
      gz += t * pj[2];
    }
    const double *pi = x + 3 * nb[i];
    g[3 * i] = gx;
    g[3 * i + 1] = gy;
    g[3 * i + 2] = gz;
    s += pi[0] * gx + pi[1] * gy + pi[2] * gz;
  }
  return s;
}

void cf_model_group_half_grad(const cf_model *md, int k, const double *x, double *g, double *val) {
  int r0 = md->grp_row[k], m = md->grp_row[k + 1] - r0;
  const int *nb = md->nodes + md->row_ptr[r0];
  int nl = md->row_ptr[r0 + 1] - md->row_ptr[r0], w = m * nl;
  if (w > GROUP_SLOTS) { /* a single row over more nodes than the buffers hold */
    for (int t = 0; t < m; t++) val[t] = cf_model_row_half_grad(md, r0 + t, x, g + 3 * t * nl);
    return;
  }
  double px[GROUP_SLOTS], py[GROUP_SLOTS], pz[GROUP_SLOTS];
  double gx[GROUP_SLOTS], gy[GROUP_SLOTS], gz[GROUP_SLOTS];
  for (int j = 0; j < nl; j++) {
    const double *p = x + 3 * nb[j];
    px[j] = p[0];
    py[j] = p[1];
    pz[j] = p[2];
  }
  /* g_ti = sum_j T_t[i][j] p_j, j ascending, as in cf_model_row_half_grad */
  md->kern->group_grad(md->Tg + md->grp_tptr[k], padded(w), w, nl, px, py, pz, gx, gy, gz);
  for (int t = 0; t < m; t++) {
    double s = 0;
    for (int i = 0, q = t * nl; i < nl; i++, q++) {
      g[3 * q] = gx[q];
      g[3 * q + 1] = gy[q];
      g[3 * q + 2] = gz[q];
      s += px[i] * gx[q] + py[i] * gy[q] + pz[i] * gz[q];
    }
    val[t] = s;
  }
}

void cf_model_eval(const cf_model *md, const double *x, double *C) {
  double g[3 * 64];
  for (int r = 0; r < md->nrows; r++) {
    const int *nb = md->nodes + md->row_ptr[r];
    int nl = md->row_ptr[r + 1] - md->row_ptr[r];
    const double *T = md->T + md->tptr[r];
    if (nl <= 64)
      C[r] = cf_model_row_half_grad(md, r, x, g) - md->c0[r];
    else
      C[r] = quad_form(T, nb, nl, x) - md->c0[r];
  }
}

double cf_model_violation(const cf_model *md, const double *x) {
  double *C = malloc(sizeof(double) * (md->nrows + 1)), v = 0;
  if (!C) return NAN;
  cf_model_eval(md, x, C);
  for (int r = 0; r < md->nrows; r++) {
    double q = fabs(C[r]) / md->scale[r];
    if (!(q <= v) && v == v) v = q; /* a NaN sticks */
  }
  free(C);
  return v;
}

void cf_model_jacobian_dense(const cf_model *md, const double *x, double *J) {
  size_t ncol = 3 * (size_t)md->n;
  memset(J, 0, sizeof(double) * ncol * md->nrows);
  for (int r = 0; r < md->nrows; r++) {
    const int *nb = md->nodes + md->row_ptr[r];
    int nl = md->row_ptr[r + 1] - md->row_ptr[r];
    double *g = malloc(sizeof(double) * 3 * nl);
    if (!g) return;
    cf_model_row_half_grad(md, r, x, g);
    for (int i = 0; i < nl; i++)
      for (int d = 0; d < 3; d++) J[r * ncol + 3 * nb[i] + d] += 2 * g[3 * i + d];
    free(g);
  }
}
