/* contact_points.c — the pairs of the obstacles' sharp points (a stick's
 * ends, the needles' tips) and the cloth's triangles that the projection
 * carries (contact_points.h), found by a broad phase that scales with the mesh.
 *
 * Every point against every triangle is points × triangles rows, each
 * evaluated at every iteration: 3528 needle tips under a 10⁴-node sheet
 * would be 6.9·10⁷ pairs, 14 GB of per-pair arrays.  Instead the pairs
 * K2 .. K3 − 1 are, at every evaluation (each iterate φ_j, the points at
 * the step's end), those whose point lies within a margin of the
 * triangle's box at φ_j (a grid of the triangles' boxes, boxgrid.h), plus
 * those whose state must be kept: in the working set W, with a row in the
 * system's pattern P, or with friction state.  The margin is r + τ0 + ε1 + 2 D, D the largest
 * motion of the step so far: of a node from φⁿ, of a sharp point from the
 * step's start, of the last increment, of a moving obstacle at the nodes.
 *  - A point that meets a triangle within the step (the pairs whose side
 *    at φⁿ catches a crossing) is within r + τ0 + |Δp| + |Δx| ≤ r + τ0 +
 *    2 D of it at the iterate.
 *  - A pair left out has H ≥ distance − r − τ0 > ε1 + 2 D: the warm start
 *    (H ≤ ε1) does not take it, and an increment that moves no node by
 *    more than 2 D does not violate it (the active set's entering test;
 *    the row's weights are barycentric).  That bound is not a theorem: an
 *    increment is as large as what the step has moved and the obstacles
 *    push, and it held in every run of test_contact_points and
 *    test_contact_stick but one iterate of the stick at 6 m/s (0.76 m
 *    against 2 D = 0.17 m; its ends 0.29 m beyond the sheet).  Should
 *    it fail, the pair is evaluated at the next iterate (D then holds that
 *    increment), so no contact is missed; only the path could part from
 *    the exhaustive list's.
 * The pairs are kept in the exhaustive list's order (point, then
 * triangle), so that the warm start and the active set's choices among
 * equals meet them in the same order: the trajectories are the exhaustive
 * list's bit for bit (test_contact_points).  When the pairs change, the
 * survivors and the self-collision pairs after them move
 * (cf_contact_copy_pair) and W, P, the pattern's pairs by node (wn) and
 * the self pairs' hash are renamed: the factor, indexed by position in P,
 * stays valid. */
#include "contact_points.h"
#include "boxgrid.h"
#include "selfcoll.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int cf_contact_all_points = 0;

/* Up to this many point-triangle pairs every pair is a candidate: the
 * grid is not worth building.  Measured on bench/hitting.sh (2 stick ends,
 * 96 triangles: 192 pairs): with the grid at every evaluation the
 * simulation took 306-310 ms against 278 ms before the broad phase
 * (cf_boxgrid_build and cf_points_near 10 % of perf's samples); needles.ini
 * (18 tips, 1728 pairs) is faster with it (0.014 against 0.032 ms per
 * evaluation, bench_needles). */
#define CF_POINTS_ALL_MAX 512

/* ------------------------------------------------------------ broad phase */
typedef struct {
  int *pq; /* [2 n] (point, triangle) */
  int n, cap;
} pair_list;

static int push(pair_list *l, int p, int t) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 256;
    int *q = realloc(l->pq, sizeof(int) * 2 * (size_t)cap);
    if (!q) return -1;
    l->pq = q, l->cap = cap;
  }
  l->pq[2 * l->n] = p, l->pq[2 * l->n + 1] = t;
  l->n++;
  return 0;
}

/* One stable counting-sort pass of the m pairs in by their entry key
 * (0: point, 1: triangle) in [0, range) into out; cnt: [range + 1]. */
static void counting_pass(const int *in, int *out, int m, int key, int range, int *cnt) {
  memset(cnt, 0, sizeof(int) * ((size_t)range + 1));
  for (int j = 0; j < m; j++) cnt[in[2 * j + key] + 1]++;
  for (int r = 0; r < range; r++) cnt[r + 1] += cnt[r];
  for (int j = 0; j < m; j++) {
    int at = cnt[in[2 * j + key]]++;
    out[2 * at] = in[2 * j], out[2 * at + 1] = in[2 * j + 1];
  }
}

/* The pairs by point, then triangle: by triangle, then stably by point (a
 * radix sort, O(pairs + points + triangles); sorting each point's
 * triangles by qsort took 19 % of an evaluation: bench_needles 84 118 220
 * 1.2 100 2, 160 triangles a point under the sheet); -1 out of memory. */
static int sort_pairs(pair_list *l, int npts, int nt) {
  int range = npts > nt ? npts : nt, *tmp = malloc(sizeof(int) * (2 * (size_t)l->n + 1));
  int *cnt = malloc(sizeof(int) * ((size_t)range + 1));
  if (tmp && cnt) {
    counting_pass(l->pq, tmp, l->n, 1, nt, cnt);
    counting_pass(tmp, l->pq, l->n, 0, npts, cnt);
  }
  free(cnt);
  free(tmp);
  return tmp && cnt ? 0 : -1;
}

/* The triangles whose box (tbox) meets box, for point p, appended to l:
 * through the grid g, or one by one when box spans more cells than there
 * are triangles (an infinite margin, a cloth of few triangles). */
static int near_point(const cf_boxgrid *g, const double *tbox, int nt, double h, int *stamp, const double *box, int p,
                      pair_list *l) {
  double cells = 1;
  for (int d = 0; d < 3; d++) cells *= floor(box[3 + d] / h) - floor(box[d] / h) + 1;
  if (!(cells <= nt)) {
    for (int t = 0; t < nt; t++)
      if (cf_box_overlap(box, tbox + 6 * t) && push(l, p, t)) return -1;
    return 0;
  }
  cf_cell_it it;
  int bucket;
  cf_cells_begin(&it, box, h);
  while (cf_cells_next(&it, g->nb, &bucket))
    for (int e = g->start[bucket]; e < g->start[bucket + 1]; e++) {
      int t = g->item[e];
      if (stamp[t] == p + 1) continue;
      stamp[t] = p + 1;
      if (cf_box_overlap(box, tbox + 6 * t) && push(l, p, t)) return -1;
    }
  return 0;
}

int cf_points_near(const int *tri, int nt, const double *x, double h, const double *pts, const int *pt0, int n_obs,
                   const double *pad, int **pq) {
  cf_boxgrid g = {0};
  pair_list l = {NULL, 0, 0};
  double *tbox = malloc(sizeof(double) * 6 * ((size_t)nt + 1));
  int *stamp = calloc((size_t)nt + 1, sizeof(int)), rc = tbox && stamp ? 0 : -1;
  double pmax = 0;
  for (int o = 0; o < n_obs; o++) pmax = fmax(pmax, pad[o]);
  /* cells at least the margin: a point's box then meets at most 3 a side
   * (with 5 mm cells and a 2 cm margin, 729 buckets a point took 55 % of
   * an evaluation at 10^4 nodes and 3528 tips: bench_needles mode 2) */
  if (!(h > 0)) h = 1;
  if (pmax > h && isfinite(pmax)) h = pmax;
  for (int t = 0; t < nt && !rc; t++) cf_box_swept(tri + 3 * t, 3, x, x, 0, tbox + 6 * t);
  if (!rc) rc = cf_boxgrid_build(&g, tbox, nt, h);
  for (int o = 0; o < n_obs && !rc; o++)
    for (int p = pt0[o]; p < pt0[o + 1] && !rc; p++) {
      double box[6];
      for (int d = 0; d < 3; d++) box[d] = pts[3 * p + d] - pad[o], box[3 + d] = pts[3 * p + d] + pad[o];
      rc = near_point(&g, tbox, nt, h, stamp, box, p, &l);
    }
  if (!rc) rc = sort_pairs(&l, pt0[n_obs], nt);
  cf_boxgrid_free(&g);
  free(tbox);
  free(stamp);
  if (rc) {
    free(l.pq);
    return -1;
  }
  *pq = l.pq;
  return l.n;
}

/* Every point with every triangle (cf_contact_all_points). */
static int all_pairs(const cf_contact *c, int **pq) {
  pair_list l = {NULL, 0, 0};
  for (int p = 0; p < c->npts; p++)
    for (int t = 0; t < c->nt; t++)
      if (push(&l, p, t)) {
        free(l.pq);
        return -1;
      }
  *pq = l.pq;
  return l.n;
}

static double norm2(const double *a, const double *b) {
  double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  return d0 * d0 + d1 * d1 + d2 * d2;
}

static int moving(const cf_obstacle *o) {
  return o->track || o->omega != 0 || o->vel[0] != 0 || o->vel[1] != 0 || o->vel[2] != 0;
}

/* D of the header at the iterate x, time t, kept growing over the step
 * (cf_contact_set_sides resets it): the largest displacement from the
 * step's start of a node and of a sharp point, of the last increment
 * (contact.c's c->dx), and of a moving obstacle's surface at the nodes
 * (its velocity there times the step: what it pushes them by). */
static void update_moved(cf_contact *c, const double *x, double t) {
  static const double zero[3] = {0, 0, 0};
  double m2 = 0, h = fabs(t - c->t0);
  for (int i = 0; i < c->n; i++) {
    const double *xi = x + 3 * i;
    double a = c->xstart ? norm2(xi, c->xstart + 3 * i) : 0, b = norm2(c->dx + 3 * i, zero);
    if (a > m2) m2 = a;
    if (b > m2) m2 = b;
    for (int o = 0; o < c->n_obs; o++) {
      double v[3];
      if (!moving(c->obs + o)) continue;
      cf_obstacle_velocity(c->obs + o, t, xi, v);
      if (h * h * norm2(v, zero) > m2) m2 = h * h * norm2(v, zero);
    }
  }
  for (int p = 0; p < c->npts; p++) {
    double a = norm2(c->pts + 3 * p, c->pts + 3 * (c->npts + p));
    if (a > m2) m2 = a;
  }
  if (sqrt(m2) > c->moved) c->moved = sqrt(m2);
}

/* The candidates at x, time t: the broad phase with each obstacle's
 * margin. */
static int candidates(cf_contact *c, const double *x, double t, int **pq) {
  if (cf_contact_all_points || (long)c->npts * c->nt <= CF_POINTS_ALL_MAX) return all_pairs(c, pq);
  double *pad = malloc(sizeof(double) * ((size_t)c->n_obs + 1));
  if (!pad) return -1;
  update_moved(c, x, t);
  for (int o = 0; o < c->n_obs; o++) pad[o] = c->obs[o].r + c->cp.thickness + c->cp.eps_h + 2 * c->moved;
  int m = cf_points_near(c->tri, c->nt, x, c->cell, c->pts, c->pt0, c->n_obs, pad, pq);
  free(pad);
  return m;
}

/* --------------------------------------------------------- the pair list */
/* Pair k's state must survive: it is in W or P, or friction holds
 * impulses or a stop of it. */
static int kept(const cf_contact *c, int k) {
  return c->wpos[k] >= 0 || c->ppos[k] >= 0 || c->gam[k] != 0 || c->sprev[k] != 0;
}

/* Order of (p, t) against (q, u). */
static int key_cmp(int p, int t, int q, int u) { return p != q ? (p > q) - (p < q) : (t > u) - (t < u); }

/* The new list (keys, the old pair of each or -1) from the old pairs
 * K2 .. K3 - 1 and the m sorted candidates pq; returns its length. */
static int merge(const cf_contact *c, const int *pq, int m, int *key, int *src) {
  int n = 0, k = c->K2, j = 0;
  while (k < c->K3 || j < m) {
    const int *ok = c->kpt + 2 * k;
    int cmp = k >= c->K3 ? 1 : j >= m ? -1 : key_cmp(ok[0], ok[1], pq[2 * j], pq[2 * j + 1]);
    if (cmp > 0) key[2 * n] = pq[2 * j], key[2 * n + 1] = pq[2 * j + 1], src[n++] = -1;
    else if (cmp == 0 || kept(c, k)) key[2 * n] = ok[0], key[2 * n + 1] = ok[1], src[n++] = k;
    k += cmp <= 0;
    j += cmp >= 0;
  }
  return n;
}

/* A new pair k of point p and triangle t: at rest, its side at the step's
 * start. */
static void fresh_pair(cf_contact *c, int k, int p, int t) {
  int o = 0;
  while (c->pt0[o + 1] <= p) o++;
  c->pn[k] = 3, c->cobs[k] = o, c->kpt[2 * k] = p, c->kpt[2 * k + 1] = t;
  for (int e = 0; e < CF_QP_HMAX; e++) c->pnode[CF_QP_HMAX * k + e] = e < 3 ? c->tri[3 * t + e] : 0;
  memset(c->pw + CF_QP_HMAX * k, 0, CF_QP_HMAX * sizeof(double));
  memset(c->N + 3 * k, 0, 3 * sizeof(double));
  memset(c->tprev + 3 * k, 0, 3 * sizeof(double));
  c->H[k] = CF_PAIR_FAR;
  c->gam[k] = c->sprev[k] = c->qgam[k] = 0;
  c->wpos[k] = c->ppos[k] = -1;
  c->dep[k] = c->outs[k] = 0;
  cf_contact_tip_side(c, k);
}

/* Move the survivors to their new slots: the n new pairs' sources src, then
 * the self pairs by delta.  The map keeps their order, so the ones that
 * move up go first from the top, then the ones that move down from the
 * bottom: neither overwrites a pair still to move. */
static void move_pairs(cf_contact *c, const int *src, int n, int delta) {
  for (int k = c->K - 1; k >= c->K3 && delta > 0; k--) cf_contact_copy_pair(c, k + delta, k);
  for (int i = n - 1; i >= 0; i--)
    if (src[i] >= 0 && c->K2 + i > src[i]) cf_contact_copy_pair(c, c->K2 + i, src[i]);
  for (int i = 0; i < n; i++)
    if (src[i] >= 0 && c->K2 + i < src[i]) cf_contact_copy_pair(c, c->K2 + i, src[i]);
  for (int k = c->K3; k < c->K && delta < 0; k++) cf_contact_copy_pair(c, k + delta, k);
}

/* The pairs K2 .. K3 - 1 become the n of key/src; W, P, wn and the self
 * pairs' hash follow.  wn (valid while P is not empty) holds pair ids:
 * they go through their P positions, which do not change. */
static int rewrite(cf_contact *c, const int *key, const int *src, int n) {
  int delta = n - (c->K3 - c->K2), K = c->K + delta, total = c->np > 0 ? c->wn_ptr[c->n] : 0;
  if (cf_contact_grow(c, K > c->K ? K : c->K)) return CF_ENOMEM;
  for (int v = 0; v < total; v++) c->wn[v] = c->ppos[c->wn[v]];
  move_pairs(c, src, n, delta);
  for (int i = 0; i < n; i++)
    if (src[i] < 0) fresh_pair(c, c->K2 + i, key[2 * i], key[2 * i + 1]);
  for (int k = K; k < c->K; k++) c->wpos[k] = c->ppos[k] = -1;
  c->K3 += delta;
  c->K = K;
  for (int k = c->K2; k < c->K; k++) {
    if (c->wpos[k] >= 0) c->W[c->wpos[k]] = k;
    if (c->ppos[k] >= 0) c->P[c->ppos[k]] = k;
  }
  for (int v = 0; v < total; v++) c->wn[v] = c->P[c->wn[v]];
  for (int h = 0; h < c->hcap && delta; h++)
    if (c->hkey[h] >= 0) c->hkey[h] += delta;
  return CF_OK;
}

int cf_contact_near_points(cf_contact *c, const double *x, double t) {
  if (c->npts == 0 || c->nt == 0) return CF_OK;
  int *pq = NULL, m = candidates(c, x, t, &pq), old = c->K3 - c->K2;
  if (m < 0) return CF_ENOMEM;
  int *key = malloc(sizeof(int) * 2 * ((size_t)m + old + 1)), *src = malloc(sizeof(int) * ((size_t)m + old + 1));
  int rc = key && src ? CF_OK : CF_ENOMEM;
  if (rc == CF_OK) {
    int n = merge(c, pq, m, key, src), same = n == old;
    for (int i = 0; i < n && same; i++) same = src[i] == c->K2 + i;
    if (!same) rc = rewrite(c, key, src, n);
  }
  free(pq);
  free(key);
  free(src);
  return rc;
}

/* Triangle pair k at x, its point at p: the vector from the point to its
 * projection on the triangle's plane into v[3], the projection's
 * barycentric coordinates into b[3]; returns the distance (NAN for a
 * degenerate triangle). */
double cf_contact_tip_face(const cf_contact *c, int k, const double *p, const double *x, double v[3], double b[3]) {
  const int *nd = c->pnode + CF_QP_HMAX * k;
  double n[3], h = cf_tri_project(p, x + 3 * nd[0], x + 3 * nd[1], x + 3 * nd[2], b, n);
  for (int d = 0; d < 3; d++) v[d] = -h * n[d]; /* to the projection */
  return fabs(h) * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

void cf_contact_tip_side(cf_contact *c, int k) {
  double b[3], *sd = c->side + 3 * k;
  if (c->xstart) cf_contact_tip_face(c, k, c->pts + 3 * (c->npts + c->kpt[2 * k]), c->xstart, sd, b);
  else sd[0] = sd[1] = sd[2] = 0;
}
