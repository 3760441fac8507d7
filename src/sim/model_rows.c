/* model_rows.c — the rows of the four cloth models (cf_sim.h,
 * cf_cloth_model): the constraints each imposes and the elastic energies
 * each adds, all in the one form of model.h, C_r(x) = sum_ij T_ij <p_i, p_j>
 * - c0_r, so that the projection and the implicit step of shear.c need no
 * case per model.
 *
 * Energies are E = 1/2 sum_r w_r C_r^2:
 * - a spring between nodes a, b of rest length l: C = |p_a - p_b|^2 - l^2,
 *   w = k / (4 l^2), which is k/2 (|p_a - p_b| - l)^2 to second order (the
 *   St. Venant-Kirchhoff spring: it never pushes harder than a linear one,
 *   and its Gauss-Newton Hessian is positive semidefinite, which the
 *   implicit step needs);
 * - a membrane strain at a Gauss point of rest area A: with s, t the
 *   orthonormal rest frame of the element there (s along the material's
 *   warp, the first edge of element 0 at rest, projected on the element),
 *   C_11 = |x_s|^2 - 1 = 2 e11, C_22 =
 *   |x_t|^2 - 1, C_12 = <x_s, x_t> = g12, with w = A k_stretch / 4 on the
 *   first two and A k_shear on the third: k_stretch/2 (e11^2 + e22^2) +
 *   k_shear/2 g12^2 per unit area;
 * - the shear energy of thesis §2.4.6 (the inextensible model with ks > 0):
 *   the F rows of every node, w = ks m_k.
 * A spring's constant is the model's stiffness times twice its share of
 * the sheet's area over its squared rest length: an edge's share is a
 * quarter (quads; triangles a third) of each element it bounds, a
 * diagonal's its whole quad, a bending spring's the lumped area of its
 * middle node over the node's bending springs.  On a grid of a x b
 * rectangles the structural springs along a then have k_stretch b / a, the
 * membrane modulus k_stretch along the grid line, and on squares the
 * diagonals the shear modulus k_shear for small shears (test_models). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "element.h"
#include "model.h"

/* ---------------------------------------------------------- growing rows */
typedef struct {
  cf_model *md;
  int cap_r, cap_n, cap_t, nn, nt;
} rows;

static int grow(void **p, size_t n, size_t size) {
  void *q = realloc(*p, n * size);
  if (!q) return CF_ENOMEM;
  *p = q;
  return CF_OK;
}

/* Room for one more row over nl nodes. */
static int room(rows *R, int nl) {
  cf_model *md = R->md;
  if (md->nrows + 2 > R->cap_r) {
    size_t c = 2 * (size_t)R->cap_r + 64;
    if (grow((void **)&md->kind, c, sizeof(int)) || grow((void **)&md->node, c, sizeof(int)) ||
        grow((void **)&md->row_ptr, c, sizeof(int)) || grow((void **)&md->tptr, c, sizeof(int)) ||
        grow((void **)&md->c0, c, sizeof(double)) || grow((void **)&md->scale, c, sizeof(double)) ||
        grow((void **)&md->w, c, sizeof(double)))
      return CF_ENOMEM;
    R->cap_r = (int)c;
  }
  if (R->nn + nl > R->cap_n) {
    R->cap_n = 2 * R->cap_n + nl + 256;
    if (grow((void **)&md->nodes, (size_t)R->cap_n, sizeof(int))) return CF_ENOMEM;
  }
  if (R->nt + nl * nl > R->cap_t) {
    R->cap_t = 2 * R->cap_t + nl * nl + 1024;
    if (grow((void **)&md->T, (size_t)R->cap_t, sizeof(double))) return CF_ENOMEM;
  }
  return CF_OK;
}

static int push(rows *R, int kind, int node, const int *nb, int nl, const double *T, double c0, double scale,
                double w) {
  cf_model *md = R->md;
  int r = md->nrows;
  if (room(R, nl)) return CF_ENOMEM;
  md->row_ptr[r] = R->nn;
  md->tptr[r] = R->nt;
  cf_model_set_row(md, r, kind, node, nb, nl, T, c0, scale);
  R->nn += nl;
  R->nt += nl * nl;
  md->w[r] = w;
  md->nrows = r + 1;
  return CF_OK;
}

static double dist2(const double *x, int a, int b) {
  double s = 0;
  for (int d = 0; d < 3; d++) s += (x[3 * a + d] - x[3 * b + d]) * (x[3 * a + d] - x[3 * b + d]);
  return s;
}

/* A spring (or, with w = 0 and kind CF_ROW_EDGE, a length constraint)
 * between nodes a and b. */
static int push_pair(rows *R, int a, int b, double w) {
  int nb[2] = {a < b ? a : b, a < b ? b : a};
  const double Te[4] = {1, -1, -1, 1};
  double l2 = dist2(R->md->mesh->x, a, b);
  return push(R, CF_ROW_EDGE, nb[0], nb, 2, Te, l2, l2, w);
}

/* ------------------------------------------------------------ mesh edges */
typedef struct { int a, b, e0, e1; } edge; /* a < b, elements (e1 -1: one) */

static int edge_cmp(const void *p, const void *q) {
  const edge *u = p, *v = q;
  if (u->a != v->a) return (u->a > v->a) - (u->a < v->a);
  return (u->b > v->b) - (u->b < v->b);
}

/* The unique element edges of m, with the elements they bound, into *out. */
static int mesh_edges(const cf_mesh *m, edge **out) {
  int ne = m->n_elems * m->nv, u = 0;
  edge *e = malloc(sizeof *e * (size_t)(ne + 1));
  if (!e) return -1;
  for (int k = 0; k < m->n_elems; k++)
    for (int i = 0; i < m->nv; i++) {
      int a = m->elems[k * m->nv + i], b = m->elems[k * m->nv + (i + 1) % m->nv];
      e[k * m->nv + i] = (edge){a < b ? a : b, a < b ? b : a, k, -1};
    }
  qsort(e, (size_t)ne, sizeof *e, edge_cmp);
  for (int i = 0; i < ne; i++) {
    if (u > 0 && e[u - 1].a == e[i].a && e[u - 1].b == e[i].b)
      e[u - 1].e1 = e[i].e0;
    else
      e[u++] = e[i];
  }
  *out = e;
  return u;
}

/* ------------------------------------------------------------- springs */
static double spring_w(double k, double share, double l2) { return k * 2 * share / l2 / (4 * l2); }

static int edge_springs(rows *R, const edge *e, int ne, const double *area, double k) {
  const cf_mesh *m = R->md->mesh;
  double frac = 1.0 / m->nv;
  for (int i = 0; i < ne; i++) {
    double share = frac * (area[e[i].e0] + (e[i].e1 >= 0 ? area[e[i].e1] : 0));
    if (push_pair(R, e[i].a, e[i].b, spring_w(k, share, dist2(m->x, e[i].a, e[i].b)))) return CF_ENOMEM;
  }
  return CF_OK;
}

static int diagonal_springs(rows *R, const double *area, double k) {
  const cf_mesh *m = R->md->mesh;
  for (int q = 0; m->nv == 4 && q < m->n_elems; q++)
    for (int d = 0; d < 2; d++) {
      int a = m->elems[4 * q + d], b = m->elems[4 * q + d + 2];
      if (push_pair(R, a, b, spring_w(k, area[q], dist2(m->x, a, b)))) return CF_ENOMEM;
    }
  return CF_OK;
}

static int has(const int *el, int nv, int v) {
  for (int i = 0; i < nv; i++)
    if (el[i] == v) return 1;
  return 0;
}

/* Is there an element with nodes a, b and c? (elements of b: eb[0..n)) */
static int common_element(const cf_mesh *m, const int *eb, int n, int a, int c) {
  for (int q = 0; q < n; q++) {
    const int *el = m->elems + eb[q] * m->nv;
    if (has(el, m->nv, a) && has(el, m->nv, c)) return 1;
  }
  return 0;
}

/* Quads: at each node b, a spring between a and c for each two edges b-a,
 * b-c that no element shares (on a grid: the nodes two apart along each
 * grid line through b). */
static int bend_springs_quads(rows *R, const edge *e, int ne) {
  const cf_mesh *m = R->md->mesh;
  int n = m->n_nodes, rc = CF_OK;
  int *np = calloc((size_t)n + 1, sizeof(int)), *nb = malloc(sizeof(int) * 2 * (size_t)ne + 1);
  int *ep = calloc((size_t)n + 1, sizeof(int)), *el = malloc(sizeof(int) * (size_t)m->n_elems * 4 + 1);
  int *fill = malloc(sizeof(int) * 2 * (size_t)n + 1);
  if (!np || !nb || !ep || !el || !fill) rc = CF_ENOMEM;
  for (int i = 0; rc == CF_OK && i < ne; i++) np[e[i].a + 1]++, np[e[i].b + 1]++;
  for (int q = 0; rc == CF_OK && q < 4 * m->n_elems; q++) ep[m->elems[q] + 1]++;
  for (int i = 0; rc == CF_OK && i < n; i++) np[i + 1] += np[i], ep[i + 1] += ep[i];
  if (rc == CF_OK) {
    memcpy(fill, np, sizeof(int) * n);
    memcpy(fill + n, ep, sizeof(int) * n);
    for (int i = 0; i < ne; i++) nb[fill[e[i].a]++] = e[i].b, nb[fill[e[i].b]++] = e[i].a;
    for (int q = 0; q < 4 * m->n_elems; q++) el[fill[n + m->elems[q]]++] = q / 4;
  }
  for (int b = 0; rc == CF_OK && b < n; b++)
    for (int i = np[b]; i < np[b + 1] && rc == CF_OK; i++)
      for (int j = i + 1; j < np[b + 1] && rc == CF_OK; j++)
        if (!common_element(m, el + ep[b], ep[b + 1] - ep[b], nb[i], nb[j])) {
          rc = push_pair(R, nb[i], nb[j], 0);
          if (rc == CF_OK) R->md->node[R->md->nrows - 1] = b; /* the middle node: for its share */
        }
  free(fill);
  free(np);
  free(nb);
  free(ep);
  free(el);
  return rc;
}

/* Triangles: a spring between the two vertices opposite each inner edge. */
static int bend_springs_tris(rows *R, const edge *e, int ne) {
  const cf_mesh *m = R->md->mesh;
  for (int i = 0; i < ne; i++) {
    if (e[i].e1 < 0) continue;
    int o[2] = {e[i].a, e[i].b};
    for (int s = 0; s < 2; s++) {
      const int *el = m->elems + 3 * (s ? e[i].e1 : e[i].e0);
      for (int v = 0; v < 3; v++)
        if (el[v] != e[i].a && el[v] != e[i].b) o[s] = el[v];
    }
    if (push_pair(R, o[0], o[1], 0)) return CF_ENOMEM;
    R->md->node[R->md->nrows - 1] = e[i].a; /* a middle node */
  }
  return CF_OK;
}

/* Bending springs with their weights: each row from r0 on has its middle
 * node in md->node; the node's lumped area is shared among its springs. */
static int bend_springs(rows *R, const edge *e, int ne, double k) {
  cf_model *md = R->md;
  int r0 = md->nrows;
  int rc = md->mesh->nv == 4 ? bend_springs_quads(R, e, ne) : bend_springs_tris(R, e, ne);
  int *cnt = calloc((size_t)md->n + 1, sizeof(int));
  if (rc || !cnt) {
    free(cnt);
    return CF_ENOMEM;
  }
  for (int r = r0; r < md->nrows; r++) cnt[md->node[r]]++;
  for (int r = r0; r < md->nrows; r++) {
    int b = md->node[r], a = md->nodes[md->row_ptr[r]];
    md->w[r] = spring_w(k, md->mass[b] / cnt[b], md->c0[r]);
    md->node[r] = a;
  }
  free(cnt);
  return CF_OK;
}

/* ------------------------------------------------------------ membrane */
/* The three strain rows of element q at Gauss point l (see the top); dir:
 * the material's first direction (the warp), projected on the element. */
static int membrane_point(rows *R, const cf_element_rule *r, int q, int l, const double dir[3], double ks,
                          double kh) {
  const cf_mesh *m = R->md->mesh;
  const int *el = m->elems + q * m->nv;
  const double *p[CF_MAX_NV];
  for (int i = 0; i < m->nv; i++) p[i] = m->x + 3 * el[i];
  double a[3], b[3], nrm[3], e1[3], e2[3], E, F, G;
  cf_element_tangents(r, l, p, a, b);
  double J = cf_element_metric(a, b, &E, &F, &G);
  for (int d = 0; d < 3; d++) nrm[d] = (a[(d + 1) % 3] * b[(d + 2) % 3] - a[(d + 2) % 3] * b[(d + 1) % 3]) / J;
  double dn = dir[0] * nrm[0] + dir[1] * nrm[1] + dir[2] * nrm[2], l1 = 0;
  for (int d = 0; d < 3; d++) l1 += pow(e1[d] = dir[d] - dn * nrm[d], 2);
  if (l1 < 0.01) { /* the warp nearly normal to the element: its own first direction */
    l1 = E;
    memcpy(e1, a, sizeof e1);
  }
  for (int d = 0; d < 3; d++) e1[d] /= sqrt(l1);
  for (int d = 0; d < 3; d++) e2[d] = nrm[(d + 1) % 3] * e1[(d + 2) % 3] - nrm[(d + 2) % 3] * e1[(d + 1) % 3];
  /* (d/dxi, d/deta) = (d/ds, d/dt) M, M = [[e1.a, e1.b], [e2.a, e2.b]] */
  double m11 = 0, m12 = 0, m21 = 0, m22 = 0;
  for (int d = 0; d < 3; d++) m11 += e1[d] * a[d], m12 += e1[d] * b[d], m21 += e2[d] * a[d], m22 += e2[d] * b[d];
  double det = m11 * m22 - m12 * m21;
  double Ds[CF_MAX_NV], Dt[CF_MAX_NV], T[3][CF_MAX_NV * CF_MAX_NV];
  for (int i = 0; i < m->nv; i++) {
    const double *dn2 = r->dN[l][i];
    Ds[i] = (dn2[0] * m22 - dn2[1] * m21) / det;
    Dt[i] = (-dn2[0] * m12 + dn2[1] * m11) / det;
  }
  for (int i = 0; i < m->nv; i++)
    for (int j = 0; j < m->nv; j++) {
      T[0][i * m->nv + j] = Ds[i] * Ds[j];
      T[1][i * m->nv + j] = Dt[i] * Dt[j];
      T[2][i * m->nv + j] = 0.5 * (Ds[i] * Dt[j] + Dt[i] * Ds[j]);
    }
  double A = J * r->w[l], w[3] = {A * ks / 4, A * ks / 4, A * kh}, c0[3] = {1, 1, 0};
  const int kinds[3] = {CF_ROW_E, CF_ROW_G, CF_ROW_F};
  for (int t = 0; t < 3; t++)
    if (push(R, kinds[t], el[0], el, m->nv, T[t], c0[t], 1, w[t])) return CF_ENOMEM;
  return CF_OK;
}

/* The warp: the first edge of element 0 at rest (a lattice's rows). */
static int membrane(rows *R, double ks, double kh) {
  const cf_mesh *m = R->md->mesh;
  cf_element_rule r;
  cf_element_rule_get(m->nv, &r);
  double dir[3], l = 0;
  for (int d = 0; d < 3; d++) l += pow(dir[d] = m->x[3 * m->elems[1] + d] - m->x[3 * m->elems[0] + d], 2);
  for (int d = 0; d < 3; d++) dir[d] /= sqrt(l);
  for (int q = 0; q < m->n_elems; q++)
    for (int g = 0; g < r.ng; g++)
      if (membrane_point(R, &r, q, g, dir, ks, kh)) return CF_ENOMEM;
  return CF_OK;
}

/* ------------------------------------------------------------- models */
static int build(rows *R, const cf_params *p, int energy) {
  const cf_mesh *m = R->md->mesh;
  edge *e = NULL;
  double *area = malloc(sizeof(double) * (size_t)m->n_elems);
  int ne = area ? mesh_edges(m, &e) : -1, rc = ne < 0 ? CF_ENOMEM : CF_OK;
  if (rc == CF_OK) cf_mesh_element_areas(m, m->x, area);
  if (rc == CF_OK && !energy && p->model == CF_CLOTH_QUASI)
    for (int i = 0; i < ne && rc == CF_OK; i++) rc = push_pair(R, e[i].a, e[i].b, 0);
  if (rc == CF_OK && energy && p->model == CF_CLOTH_QUASI) rc = diagonal_springs(R, area, p->k_shear);
  if (rc == CF_OK && energy && p->model == CF_CLOTH_ELASTIC) rc = membrane(R, p->k_stretch, p->k_shear);
  if (rc == CF_OK && energy && p->model == CF_CLOTH_MASS_SPRING) {
    rc = edge_springs(R, e, ne, area, p->k_stretch);
    if (rc == CF_OK) rc = diagonal_springs(R, area, p->k_shear);
    if (rc == CF_OK) rc = bend_springs(R, e, ne, p->k_bend);
  }
  if (!energy) /* constraints: no weights */
    free(R->md->w), R->md->w = NULL;
  free(e);
  free(area);
  return rc;
}

static cf_model *rows_alloc(const cf_mesh *mesh, const cf_params *p, int energy, cf_error *err) {
  rows R = {cf_model_empty(mesh), 0, 0, 0, 0, 0};
  int rc = R.md ? build(&R, p, energy) : CF_ENOMEM;
  if (rc == CF_OK) rc = cf_model_finish(R.md);
  if (rc != CF_OK) {
    cf_error_set(err, rc, "model: out of memory building the rows of the %s model", cf_cloth_model_name(p->model));
    cf_model_free(R.md);
    return NULL;
  }
  return R.md;
}

cf_model *cf_model_constraints_alloc(const cf_mesh *mesh, const cf_params *p, cf_error *err) {
  if (p->model == CF_CLOTH_INEXTENSIBLE) return cf_model_alloc_mode(mesh, p->ks > 0 ? CF_MODEL_QUASI : CF_MODEL_FULL, err);
  return rows_alloc(mesh, p, 0, err);
}

cf_model *cf_model_energy_alloc(const cf_mesh *mesh, const cf_params *p, cf_error *err) {
  if (err) err->code = CF_OK;
  if (p->model != CF_CLOTH_INEXTENSIBLE) return rows_alloc(mesh, p, 1, err);
  if (!(p->ks > 0)) return NULL;
  cf_model *md = cf_model_alloc_mode(mesh, CF_MODEL_SHEAR, err);
  if (md && !(md->w = malloc(sizeof(double) * (md->nrows + 1)))) {
    cf_model_free(md);
    cf_error_set(err, CF_ENOMEM, "model: out of memory building the shear energy");
    return NULL;
  }
  for (int r = 0; md && r < md->nrows; r++) md->w[r] = p->ks * md->mass[md->node[r]];
  return md;
}

static const char *const model_names[CF_CLOTH_MODELS] = {"inextensible", "quasi-inextensible", "elastic",
                                                         "mass-spring"};

const char *cf_cloth_model_name(int model) {
  return model >= 0 && model < CF_CLOTH_MODELS ? model_names[model] : "unknown";
}

int cf_cloth_model_find(const char *name) {
  for (int k = 0; name && k < CF_CLOTH_MODELS; k++)
    if (!strcmp(name, model_names[k])) return k;
  return -1;
}
