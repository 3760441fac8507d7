/* selfcoll.c — the cloth's self-collisions: broad phase (a spatial hash of
 * swept boxes) and continuous narrow phase (the cubic (3.3)); see
 * selfcoll.h.  Workspace: the triangulation and edges (built once), two
 * hashed grids (rebuilt per call), stamps and the output pairs (grown as
 * needed); nothing is allocated per pair. */
#include "selfcoll.h"
#include "boxgrid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cf_selfcoll {
  int n, nt, ne;
  int *tri, *edge;       /* [3 nt], [2 ne] */
  unsigned char *kin;    /* [n] */
  double h;              /* cell size: the mean collision edge */
  cf_boxgrid gt, ge;     /* triangles, edges (boxgrid.h) */
  double *tbox, *ebox;   /* [6 nt], [6 ne] their boxes swept over the step */
  int *stamp;            /* [max(nt, ne)] last query that saw an item */
  cf_self_pair *out;
  int nout, cap;
};

static int edge_cmp(const void *a, const void *b) {
  const int *x = a, *y = b;
  return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

int cf_selfcoll_edges(const cf_mesh *m, const unsigned char *is_kin, int *e) {
  int nv = m->nv, ne = 0;
  for (int el = 0; el < m->n_elems; el++) {
    const int *v = m->elems + nv * el;
    for (int a = 0; a < nv; a++)
      for (int b = a + 1; b < nv; b++) {
        int i = v[a], j = v[b];
        if ((is_kin[i] && is_kin[j]) || (nv == 4 && a == 1 && b == 3)) continue;
        e[2 * ne] = i < j ? i : j, e[2 * ne + 1] = i < j ? j : i;
        ne++;
      }
  }
  qsort(e, (size_t)ne, 2 * sizeof(int), edge_cmp);
  int u = 0;
  for (int q = 0; q < ne; q++)
    if (!u || edge_cmp(e + 2 * q, e + 2 * (u - 1))) e[2 * u] = e[2 * q], e[2 * u + 1] = e[2 * q + 1], u++;
  return u;
}

int cf_selfcoll_triangles(const cf_mesh *m, const unsigned char *is_kin, int *t) {
  int nv = m->nv, nt = 0;
  for (int el = 0; el < m->n_elems; el++)
    for (int h = 0; h < nv - 2; h++) {
      const int *v = m->elems + nv * el;
      int tri[3] = {v[0], v[h + 1], v[h + 2]};
      if (is_kin[tri[0]] && is_kin[tri[1]] && is_kin[tri[2]]) continue;
      memcpy(t + 3 * nt++, tri, sizeof tri);
    }
  return nt;
}

void cf_selfcoll_free(cf_selfcoll *s) {
  if (!s) return;
  free(s->tri), free(s->edge), free(s->kin), free(s->stamp), free(s->out), free(s->tbox), free(s->ebox);
  cf_boxgrid_free(&s->gt), cf_boxgrid_free(&s->ge);
  free(s);
}

cf_selfcoll *cf_selfcoll_alloc(const cf_mesh *m, const unsigned char *is_kin, cf_error *err) {
  cf_selfcoll *s = calloc(1, sizeof *s);
  int n = m->n_nodes, ne_max = 5 * m->n_elems + 1;
  if (s) {
    s->n = n;
    s->tri = malloc(sizeof(int) * 6 * ((size_t)m->n_elems + 1));
    s->edge = malloc(sizeof(int) * 2 * (size_t)ne_max);
    s->kin = malloc((size_t)n + 1);
    s->tbox = malloc(sizeof(double) * 12 * ((size_t)m->n_elems + 1));
    s->ebox = malloc(sizeof(double) * 6 * (size_t)ne_max);
    s->stamp = calloc((size_t)ne_max + 2 * (size_t)m->n_elems + 1, sizeof(int));
  }
  if (!s || !s->tri || !s->edge || !s->kin || !s->tbox || !s->ebox || !s->stamp) {
    cf_selfcoll_free(s);
    cf_error_set(err, CF_ENOMEM, "self-collisions: out of memory");
    return NULL;
  }
  memcpy(s->kin, is_kin, (size_t)n);
  s->nt = cf_selfcoll_triangles(m, is_kin, s->tri);
  s->ne = cf_selfcoll_edges(m, is_kin, s->edge);
  double len = 0;
  for (int q = 0; q < s->ne; q++) {
    const double *a = m->x + 3 * s->edge[2 * q], *b = m->x + 3 * s->edge[2 * q + 1];
    len += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
  }
  s->h = s->ne ? len / s->ne : 1;
  return s;
}

/* ------------------------------------------------------------ broad phase */
/* The grid g over n items of m points each (v: their nodes), their boxes
 * swept from x0 to x1 and grown by pad into box[6 n]. */
static int grid_build(const cf_selfcoll *s, cf_boxgrid *g, double *box, const int *v, int m, int n,
                      const double *x0, const double *x1, double pad) {
  for (int q = 0; q < n; q++) cf_box_swept(v + m * q, m, x0, x1, pad, box + 6 * q);
  return cf_boxgrid_build(g, box, n, s->h);
}

/* ----------------------------------------------------------- narrow phase */
static double det3(const double *a, const double *b, const double *c) {
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

static void cross(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Roots in [0, 1] of a3 t^3 + a2 t^2 + a1 t + a0, ascending, into r; count. */
static int cubic_roots(double a3, double a2, double a1, double a0, double r[3]) {
  double cut[4] = {0, 1, 1, 1};
  int nc = 1;
  double qa = 3 * a3, qb = 2 * a2, qc = a1; /* critical points */
  if (fabs(qa) > 1e-300) {
    double disc = qb * qb - 4 * qa * qc;
    if (disc >= 0) {
      double sq = sqrt(disc), t1 = (-qb - sq) / (2 * qa), t2 = (-qb + sq) / (2 * qa);
      if (t1 > t2) {
        double tt = t1;
        t1 = t2, t2 = tt;
      }
      if (t1 > 0 && t1 < 1) cut[nc++] = t1;
      if (t2 > 0 && t2 < 1) cut[nc++] = t2;
    }
  } else if (fabs(qb) > 1e-300) {
    double t1 = -qc / qb;
    if (t1 > 0 && t1 < 1) cut[nc++] = t1;
  }
  cut[nc++] = 1;
  int m = 0;
#define F(t) (((a3 * (t) + a2) * (t) + a1) * (t) + a0)
  for (int q = 0; q + 1 < nc; q++) {
    double l = cut[q], h = cut[q + 1], fl = F(l), fh = F(h);
    if (fl == 0) {
      if (!m || r[m - 1] != l) r[m++] = l;
      continue;
    }
    if (q + 2 == nc && fh == 0) {
      r[m++] = h;
      continue;
    }
    if ((fl < 0) == (fh < 0)) continue;
    for (int it = 0; it < 60; it++) {
      double mid = 0.5 * (l + h), fm = F(mid);
      if ((fm < 0) == (fl < 0)) l = mid, fl = fm;
      else h = mid;
    }
    r[m++] = 0.5 * (l + h);
  }
#undef F
  return m;
}

/* Barycentric coordinates of p's projection on triangle abc into b; the
 * signed distance to its plane (normal (b - a) x (c - a), unit) returned;
 * NAN for a degenerate triangle. */
double cf_tri_project(const double p[3], const double a[3], const double b[3], const double c[3], double bc[3],
                      double n[3]) {
  double e1[3], e2[3], r[3], c1[3], c2[3];
  for (int d = 0; d < 3; d++) e1[d] = b[d] - a[d], e2[d] = c[d] - a[d], r[d] = p[d] - a[d];
  cross(e1, e2, n);
  double a2 = dot(n, n);
  if (!(a2 > 0)) return NAN;
  double h = dot(r, n) / a2, pr[3];
  for (int d = 0; d < 3; d++) pr[d] = r[d] - h * n[d];
  cross(pr, e2, c1), cross(e1, pr, c2);
  bc[1] = dot(c1, n) / a2, bc[2] = dot(c2, n) / a2, bc[0] = 1 - bc[1] - bc[2];
  return h;
}

/* The signed distance of p to the plane of abc (cf_tri_project). */
static double project(const double *p, const double *a, const double *b, const double *c, double bc[3]) {
  double n[3], h = cf_tri_project(p, a, b, c, bc, n);
  return h * sqrt(dot(n, n));
}

/* Points of pair (v[4]) at t in [0, 1], node-face shifted as the header says. */
typedef struct {
  double a[4][3], b[4][3]; /* at t = 0 and t = 1 */
} pair_motion;

static void at(const pair_motion *pm, double t, double y[4][3]) {
  for (int q = 0; q < 4; q++)
    for (int d = 0; d < 3; d++) y[q][d] = pm->a[q][d] + t * (pm->b[q][d] - pm->a[q][d]);
}

/* Coplanarity times of the pair's four points (node or edge b last). */
static int coplanar_times(const pair_motion *pm, double r[3]) {
  double x[3][3], v[3][3];
  for (int q = 0; q < 3; q++)
    for (int d = 0; d < 3; d++) {
      x[q][d] = pm->a[q][d] - pm->a[3][d];
      v[q][d] = (pm->b[q][d] - pm->a[q][d]) - (pm->b[3][d] - pm->a[3][d]);
    }
  double a3 = det3(v[0], v[1], v[2]);
  double a2 = det3(x[0], v[1], v[2]) + det3(v[0], x[1], v[2]) + det3(v[0], v[1], x[2]);
  double a1 = det3(x[0], x[1], v[2]) + det3(x[0], v[1], x[2]) + det3(v[0], x[1], x[2]);
  double a0 = det3(x[0], x[1], x[2]);
  return cubic_roots(a3, a2, a1, a0, r);
}

#define INSIDE_TOL 1e-6

/* Node v[0] against triangle v[1..3]: pm's rows 0-2 the triangle, row 3 the
 * node (the thesis' x4). */
static int node_face(const double *x0, const double *x1, const int *v, double tau, double omega) {
  pair_motion pm;
  for (int q = 0; q < 3; q++)
    for (int d = 0; d < 3; d++) pm.a[q][d] = x0[3 * v[q + 1] + d], pm.b[q][d] = x1[3 * v[q + 1] + d];
  double bc[3], side = project(x0 + 3 * v[0], pm.a[0], pm.a[1], pm.a[2], bc), e1[3], e2[3], n[3];
  for (int d = 0; d < 3; d++) e1[d] = pm.a[1][d] - pm.a[0][d], e2[d] = pm.a[2][d] - pm.a[0][d];
  cross(e1, e2, n);
  double l = sqrt(dot(n, n));
  if (!(l > 0)) return 0;
  double s = (side >= 0 ? 1 : -1) * omega * tau / l; /* move the node towards the face */
  for (int d = 0; d < 3; d++) pm.a[3][d] = x0[3 * v[0] + d] - s * n[d], pm.b[3][d] = x1[3 * v[0] + d] - s * n[d];
  /* already too close at x1 */
  double dist = project(x1 + 3 * v[0], pm.b[0], pm.b[1], pm.b[2], bc);
  if (fabs(dist) < tau && bc[0] >= 0 && bc[1] >= 0 && bc[2] >= 0) return 1;
  double r[3], y[4][3];
  int m = coplanar_times(&pm, r);
  for (int q = 0; q < m; q++) {
    at(&pm, r[q], y);
    if (isnan(project(y[3], y[0], y[1], y[2], bc))) continue;
    if (bc[0] >= -INSIDE_TOL && bc[1] >= -INSIDE_TOL && bc[2] >= -INSIDE_TOL) return 1;
  }
  return 0;
}

/* Edge v[0]-v[1] against edge v[2]-v[3]. */
static int edge_edge(const double *x0, const double *x1, const int *v, double tau, double omega) {
  pair_motion pm;
  for (int q = 0; q < 4; q++)
    for (int d = 0; d < 3; d++) pm.a[q][d] = x0[3 * v[q] + d], pm.b[q][d] = x1[3 * v[q] + d];
  double ea[3], eb[3], n[3], w[3], s, u;
  for (int d = 0; d < 3; d++) ea[d] = pm.a[1][d] - pm.a[0][d], eb[d] = pm.a[3][d] - pm.a[2][d], w[d] = pm.a[0][d] - pm.a[2][d];
  cross(ea, eb, n);
  double l = sqrt(dot(n, n));
  if (l > 1e-12 * sqrt(dot(ea, ea) * dot(eb, eb))) { /* move edge b towards edge a */
    double sh = (dot(w, n) >= 0 ? 1 : -1) * omega * tau / l;
    for (int q = 2; q < 4; q++)
      for (int d = 0; d < 3; d++) pm.a[q][d] += sh * n[d], pm.b[q][d] += sh * n[d];
  }
  double dist = cf_segment_closest(x1 + 3 * v[0], x1 + 3 * v[1], x1 + 3 * v[2], x1 + 3 * v[3], &s, &u);
  if (dist < tau && s > 0 && s < 1 && u > 0 && u < 1) return 1;
  double r[3], y[4][3];
  int m = coplanar_times(&pm, r);
  for (int q = 0; q < m; q++) {
    at(&pm, r[q], y);
    double la = sqrt(dot(ea, ea)) + sqrt(dot(eb, eb));
    if (cf_segment_closest(y[0], y[1], y[2], y[3], &s, &u) <= 1e-6 * la) return 1;
  }
  return 0;
}

/* The triangles in the cells of box, each once (query number stamp), that
 * do not have node skip0 or skip1 and whose box meets box: fn(ctx, t) for
 * each; a non-zero return of fn stops and is returned. */
static int triangles_near(cf_selfcoll *s, const double *box, int stamp, int skip0, int skip1,
                          int (*fn)(void *ctx, int t), void *ctx) {
  cf_cell_it it;
  int bucket;
  cf_cells_begin(&it, box, s->h);
  while (cf_cells_next(&it, s->gt.nb, &bucket))
    for (int p = s->gt.start[bucket]; p < s->gt.start[bucket + 1]; p++) {
      int t = s->gt.item[p];
      const int *tv = s->tri + 3 * t;
      if (s->stamp[t] == stamp) continue;
      s->stamp[t] = stamp;
      if (tv[0] == skip0 || tv[1] == skip0 || tv[2] == skip0 || tv[0] == skip1 || tv[1] == skip1 || tv[2] == skip1 ||
          !cf_box_overlap(box, s->tbox + 6 * t))
        continue;
      int rc = fn(ctx, t);
      if (rc) return rc;
    }
  return 0;
}

static int push(cf_selfcoll *s, int kind, const int *v) {
  if (s->nout == s->cap) {
    int cap = s->cap ? 2 * s->cap : 64;
    cf_self_pair *o = realloc(s->out, sizeof *o * cap);
    if (!o) return -1;
    s->out = o, s->cap = cap;
  }
  s->out[s->nout].kind = kind;
  memcpy(s->out[s->nout++].v, v, 4 * sizeof(int));
  return 0;
}

/* Möller–Trumbore, both sides, closed. */
static int segment_triangle(const double *p0, const double *p1, const double *a, const double *b, const double *c) {
  double d[3], e1[3], e2[3], h[3], t[3], q[3];
  for (int k = 0; k < 3; k++) d[k] = p1[k] - p0[k], e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], t[k] = p0[k] - a[k];
  cross(d, e2, h);
  double det = dot(e1, h);
  /* a segment in the triangle's plane (to rounding) does not pierce it */
  if (!(fabs(det) > 1e-12 * sqrt(dot(d, d) * dot(e1, e1) * dot(e2, e2)))) return 0;
  double u = dot(t, h) / det;
  if (u < 0 || u > 1) return 0;
  cross(t, e1, q);
  double v = dot(d, q) / det, w = dot(e2, q) / det;
  return v >= 0 && u + v <= 1 && w >= 0 && w <= 1;
}

typedef struct { /* one node's query against the triangles */
  cf_selfcoll *s;
  const double *x0, *x1;
  double tau, omega;
  int i;
} node_query;

static int node_tri(void *ctx, int t) {
  node_query *q = ctx;
  const int *tv = q->s->tri + 3 * t;
  if (q->s->kin[q->i] && q->s->kin[tv[0]] && q->s->kin[tv[1]] && q->s->kin[tv[2]]) return 0;
  int v[4] = {q->i, tv[0], tv[1], tv[2]};
  return node_face(q->x0, q->x1, v, q->tau, q->omega) && push(q->s, 0, v) ? -1 : 0;
}

typedef struct { /* one edge's exact test against the triangles */
  const cf_selfcoll *s;
  const double *x;
  const int *e;
  int hits;
} edge_query;

static int edge_tri(void *ctx, int t) {
  edge_query *q = ctx;
  const int *tv = q->s->tri + 3 * t;
  const double *x = q->x;
  q->hits += segment_triangle(x + 3 * q->e[0], x + 3 * q->e[1], x + 3 * tv[0], x + 3 * tv[1], x + 3 * tv[2]);
  return 0;
}

int cf_selfcoll_detect(cf_selfcoll *s, const double *x0, const double *x1, double tau, double omega,
                       const cf_self_pair **pairs) {
  s->nout = 0;
  double pad = tau * (1 + omega);
  if (grid_build(s, &s->gt, s->tbox, s->tri, 3, s->nt, x0, x1, pad) ||
      grid_build(s, &s->ge, s->ebox, s->edge, 2, s->ne, x0, x1, pad))
    return -1;
  int stamp = 0;
  memset(s->stamp, 0, sizeof(int) * ((size_t)(s->ne > s->nt ? s->ne : s->nt) + 1));
  for (int i = 0; i < s->n; i++) { /* nodes against triangles */
    node_query q = {s, x0, x1, tau, omega, i};
    double box[6];
    cf_box_swept(&i, 1, x0, x1, pad, box);
    if (triangles_near(s, box, ++stamp, i, i, node_tri, &q)) return -1;
  }
  memset(s->stamp, 0, sizeof(int) * ((size_t)s->ne + 1));
  for (int a = 0; a < s->ne; a++) { /* edges against edges */
    const int *ea = s->edge + 2 * a;
    stamp = a + 1;
    cf_cell_it it;
    int bucket;
    cf_cells_begin(&it, s->ebox + 6 * a, s->h);
    while (cf_cells_next(&it, s->ge.nb, &bucket))
      for (int p = s->ge.start[bucket]; p < s->ge.start[bucket + 1]; p++) {
        int b = s->ge.item[p];
        const int *eb = s->edge + 2 * b;
        if (b <= a || s->stamp[b] == stamp || eb[0] == ea[0] || eb[0] == ea[1] || eb[1] == ea[0] || eb[1] == ea[1])
          continue;
        s->stamp[b] = stamp;
        if (!cf_box_overlap(s->ebox + 6 * a, s->ebox + 6 * b)) continue;
        int v[4] = {ea[0], ea[1], eb[0], eb[1]};
        if (edge_edge(x0, x1, v, tau, omega) && push(s, 1, v)) return -1;
      }
  }
  *pairs = s->out;
  return s->nout;
}

int cf_selfcoll_intersections(cf_selfcoll *s, const double *x) {
  if (grid_build(s, &s->gt, s->tbox, s->tri, 3, s->nt, x, x, 0)) return -1;
  edge_query q = {s, x, NULL, 0};
  memset(s->stamp, 0, sizeof(int) * ((size_t)s->nt + 1));
  for (int a = 0; a < s->ne; a++) {
    double box[6];
    q.e = s->edge + 2 * a;
    cf_box_swept(q.e, 2, x, x, 0, box);
    triangles_near(s, box, a + 1, q.e[0], q.e[1], edge_tri, &q);
  }
  return q.hits;
}
