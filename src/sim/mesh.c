/* mesh.c — cloth meshes: storage, topology (boundary edges, corners),
 * lumped masses and element areas. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "element.h"

cf_mesh *cf_mesh_alloc(int nv, int n_nodes, int n_elems) {
  if ((nv != 3 && nv != 4) || n_nodes <= 0 || n_elems <= 0) return NULL;
  cf_mesh *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->nv = nv;
  m->n_nodes = n_nodes;
  m->n_elems = n_elems;
  m->x = calloc((size_t)n_nodes * 3, sizeof *m->x);
  m->elems = calloc((size_t)n_elems * nv, sizeof *m->elems);
  if (!m->x || !m->elems) {
    cf_mesh_free(m);
    return NULL;
  }
  return m;
}

void cf_mesh_free(cf_mesh *m) {
  if (!m) return;
  CF_FREE_ALL(m->x, m->elems, m->bedges, m->is_boundary, m->is_corner, m);
}

cf_mesh *cf_mesh_clone(const cf_mesh *m) {
  cf_mesh *c = cf_mesh_alloc(m->nv, m->n_nodes, m->n_elems);
  if (!c) return NULL;
  memcpy(c->x, m->x, sizeof(double) * 3 * (size_t)m->n_nodes);
  memcpy(c->elems, m->elems, sizeof(int) * (size_t)m->nv * (size_t)m->n_elems);
  if (m->bedges && cf_mesh_finalize(c, NULL) != CF_OK) {
    cf_mesh_free(c);
    return NULL;
  }
  return c;
}

typedef struct { int a, b, count; } edge_rec;

static int edge_cmp(const void *p, const void *q) {
  const edge_rec *e = p, *f = q;
  if (e->a != f->a) return e->a < f->a ? -1 : 1;
  if (e->b != f->b) return e->b < f->b ? -1 : 1;
  return 0;
}

/* Collect the edges that belong to exactly one element, oriented as in that
 * element. */
static int find_boundary(cf_mesh *m, cf_error *err) {
  size_t ne = (size_t)m->n_elems * m->nv;
  edge_rec *e = malloc(ne * sizeof *e);
  int *orient = malloc(ne * 2 * sizeof *orient);
  if (!e || !orient) {
    free(e);
    free(orient);
    return cf_error_set(err, CF_ENOMEM, "mesh: out of memory");
  }
  for (int k = 0; k < m->n_elems; k++)
    for (int i = 0; i < m->nv; i++) {
      int a = m->elems[k * m->nv + i], b = m->elems[k * m->nv + (i + 1) % m->nv];
      size_t q = (size_t)k * m->nv + i;
      e[q].a = a < b ? a : b;
      e[q].b = a < b ? b : a;
      e[q].count = (int)q; /* remember origin for orientation */
      orient[2 * q] = a;
      orient[2 * q + 1] = b;
    }
  qsort(e, ne, sizeof *e, edge_cmp);
  int nb = 0;
  m->bedges = malloc(ne * 2 * sizeof *m->bedges);
  if (!m->bedges) {
    free(e);
    free(orient);
    return cf_error_set(err, CF_ENOMEM, "mesh: out of memory");
  }
  for (size_t i = 0; i < ne;) {
    size_t j = i;
    while (j < ne && e[j].a == e[i].a && e[j].b == e[i].b) j++;
    if (j - i > 2) {
      int a = e[i].a, b = e[i].b;
      free(e);
      free(orient);
      return cf_error_set(err, CF_EINVAL,
                          "mesh: edge (%d,%d) is shared by %zu elements (non-manifold)",
                          a, b, j - i);
    }
    if (j - i == 1) {
      m->bedges[2 * nb] = orient[2 * e[i].count];
      m->bedges[2 * nb + 1] = orient[2 * e[i].count + 1];
      nb++;
    }
    i = j;
  }
  m->n_bedges = nb;
  free(e);
  free(orient);
  return CF_OK;
}

/* A boundary node is a corner when the two boundary edges through it turn by
 * more than 45 degrees (or when it has another number of boundary edges than
 * two, e.g. a pinch point).  The two boundary neighbours are kept unordered:
 * elements need not be consistently oriented (then a node can have two
 * outgoing boundary edges), and the turning angle between p - a and b - p
 * does not depend on which neighbour is a. */
static int find_corners(cf_mesh *m) {
  int n = m->n_nodes;
  int *cnt = calloc((size_t)n, sizeof *cnt);
  int *nbr = malloc((size_t)n * 2 * sizeof *nbr);
  if (!cnt || !nbr) {
    free(cnt);
    free(nbr);
    return CF_ENOMEM;
  }
  for (int e = 0; e < m->n_bedges; e++) {
    int a = m->bedges[2 * e], b = m->bedges[2 * e + 1];
    if (cnt[a] < 2) nbr[2 * a + cnt[a]] = b;
    if (cnt[b] < 2) nbr[2 * b + cnt[b]] = a;
    cnt[a]++;
    cnt[b]++;
    m->is_boundary[a] = m->is_boundary[b] = 1;
  }
  for (int i = 0; i < n; i++) {
    if (!m->is_boundary[i]) continue;
    if (cnt[i] != 2) {
      m->is_corner[i] = 1;
      continue;
    }
    const double *p = m->x + 3 * i, *pa = m->x + 3 * nbr[2 * i], *pb = m->x + 3 * nbr[2 * i + 1];
    double u[3], v[3], uu = 0, vv = 0, uv = 0;
    for (int d = 0; d < 3; d++) {
      u[d] = p[d] - pa[d];
      v[d] = pb[d] - p[d];
      uu += u[d] * u[d];
      vv += v[d] * v[d];
      uv += u[d] * v[d];
    }
    double c = uv / sqrt(uu * vv);
    m->is_corner[i] = c < cos(M_PI / 4);
  }
  free(cnt);
  free(nbr);
  return CF_OK;
}

/* Degenerate elements: |a x b| (exact to rounding, unlike sqrt(EG - F^2),
 * whose cancellation leaves ~1e-8 |a||b| on collinear nodes) summed over the
 * Gauss points, relative to sum |a||b|; below 1e-10 the element has no area
 * (collinear or coincident nodes). */
static int degenerate_element(const cf_mesh *m, const cf_element_rule *r, int k) {
  const double *p[CF_MAX_NV];
  for (int i = 0; i < m->nv; i++) p[i] = m->x + 3 * m->elems[k * m->nv + i];
  double s = 0, ref = 0;
  for (int l = 0; l < r->ng; l++) {
    double a[3], b[3];
    cf_element_tangents(r, l, p, a, b);
    double c0 = a[1] * b[2] - a[2] * b[1], c1 = a[2] * b[0] - a[0] * b[2], c2 = a[0] * b[1] - a[1] * b[0];
    s += r->w[l] * sqrt(c0 * c0 + c1 * c1 + c2 * c2);
    ref += r->w[l] * sqrt((a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) * (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]));
  }
  return !(s > 1e-10 * ref);
}

int cf_mesh_finalize(cf_mesh *m, cf_error *err) {
  for (int k = 0; k < m->n_elems * m->nv; k++)
    if (m->elems[k] < 0 || m->elems[k] >= m->n_nodes)
      return cf_error_set(err, CF_EINVAL, "mesh: element %d references node %d (nodes: %d)",
                          k / m->nv, m->elems[k], m->n_nodes);
  for (int k = 0; k < 3 * m->n_nodes; k++)
    if (!isfinite(m->x[k]))
      return cf_error_set(err, CF_EINVAL, "mesh: node %d has a non-finite coordinate", k / 3);
  cf_element_rule rule;
  cf_element_rule_get(m->nv, &rule);
  for (int k = 0; k < m->n_elems; k++)
    if (degenerate_element(m, &rule, k))
      return cf_error_set(err, CF_EINVAL, "mesh: element %d has zero area (degenerate)", k);
  free(m->bedges);
  free(m->is_boundary);
  free(m->is_corner);
  m->bedges = NULL;
  m->is_boundary = calloc((size_t)m->n_nodes, 1);
  m->is_corner = calloc((size_t)m->n_nodes, 1);
  if (!m->is_boundary || !m->is_corner) return cf_error_set(err, CF_ENOMEM, "mesh: out of memory");
  int rc = find_boundary(m, err);
  if (rc) return rc;
  if (find_corners(m)) return cf_error_set(err, CF_ENOMEM, "mesh: out of memory");
  return CF_OK;
}

static void elem_nodes(const cf_mesh *m, const double *x, int k, const double *p[]) {
  for (int i = 0; i < m->nv; i++) p[i] = x + 3 * m->elems[k * m->nv + i];
}

void cf_mesh_lumped_mass(const cf_mesh *m, const double *x, double *mass) {
  cf_element_rule r;
  cf_element_rule_get(m->nv, &r);
  memset(mass, 0, sizeof(double) * (size_t)m->n_nodes);
  for (int k = 0; k < m->n_elems; k++) {
    const double *p[CF_MAX_NV];
    elem_nodes(m, x, k, p);
    for (int l = 0; l < r.ng; l++) {
      double a[3], b[3], E, F, G;
      cf_element_tangents(&r, l, p, a, b);
      double dA = cf_element_metric(a, b, &E, &F, &G) * r.w[l];
      /* row sum of N_i N_j is N_i since sum_j N_j = 1 */
      for (int i = 0; i < m->nv; i++) mass[m->elems[k * m->nv + i]] += r.N[l][i] * dA;
    }
  }
}

void cf_mesh_element_areas(const cf_mesh *m, const double *x, double *area) {
  cf_element_rule r;
  cf_element_rule_get(m->nv, &r);
  for (int k = 0; k < m->n_elems; k++) {
    const double *p[CF_MAX_NV];
    elem_nodes(m, x, k, p);
    double s = 0;
    for (int l = 0; l < r.ng; l++) {
      double a[3], b[3], E, F, G;
      cf_element_tangents(&r, l, p, a, b);
      s += cf_element_metric(a, b, &E, &F, &G) * r.w[l];
    }
    area[k] = s;
  }
}

cf_area_error cf_mesh_area_error(const cf_mesh *m, const double *a0, const double *x) {
  cf_area_error out = {0, 0, 0};
  double *a = malloc((size_t)m->n_elems * sizeof *a);
  if (!a) return (cf_area_error){NAN, NAN, NAN};
  cf_mesh_element_areas(m, x, a);
  double A0 = 0, A = 0, s = 0, s2 = 0;
  for (int k = 0; k < m->n_elems; k++) {
    A0 += a0[k];
    A += a[k];
    double r = fabs(a[k] - a0[k]) / a0[k];
    s += r;
    s2 += r * r;
  }
  int n = m->n_elems;
  out.total = fabs(A - A0) / A0;
  out.mean = s / n;
  double var = s2 / n - out.mean * out.mean;
  out.dispersion = out.mean + 2 * sqrt(var > 0 ? var : 0);
  free(a);
  return out;
}
