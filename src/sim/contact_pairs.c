/* contact_pairs.c — the candidate pairs of contact.c's projection (see
 * contact_internal.h): building them for a mesh and its obstacles (and
 * freeing the contact record, cf_contact_free), and each
 * pair's row at an iterate — node-obstacle distances, the stick's edge
 * rows, the sharp points' triangle rows (which of those exist:
 * contact_points.c; self-collision rows: contact_self.c) — with the side
 * each had at the step's start.  Why apart from contact.c: that file
 * decides (active set, friction, stopping), this one measures. */
#include "contact_points.h"
#include "selfcoll.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pair k: obstacle o and its nn nodes nd. */
static void set_pair(cf_contact *c, int k, int o, int nn, const int *nd) {
  c->pn[k] = nn;
  for (int e = 0; e < nn; e++) c->pnode[CF_QP_HMAX * k + e] = nd[e], c->pw[CF_QP_HMAX * k + e] = 1;
  c->cobs[k] = o;
}

/* The arrays of K pairs (the per-pair ones by cf_contact_grow, which the
 * sharp points and the self-collisions grow later), n nodes, n_obs
 * obstacles, npts points and nt triangles (tri after pt0 in its block, so
 * that cf_contact_free's free(pt0) releases it); 0 or CF_ENOMEM. */
static int alloc_arrays(cf_contact *c, size_t K, size_t n, size_t n_obs, size_t npts, size_t nt) {
  c->obs = malloc(sizeof(cf_obstacle) * (n_obs + 1));
  c->seg = calloc(6 * n_obs + 1, sizeof(double));
  c->pt0 = calloc(n_obs + 1 + 3 * nt, sizeof(int));
  c->pts = calloc(6 * npts + 1, sizeof(double));
  c->wn_ptr = malloc(sizeof(int) * (n + 1));
  c->u = calloc(3 * n, sizeof(double));
  c->dx = calloc(3 * n, sizeof(double));
  c->dx0 = calloc(3 * n, sizeof(double));
  c->xrestart = calloc(3 * n, sizeof(double));
  if (!c->obs || !c->seg || !c->pt0 || !c->pts || !c->wn_ptr || !c->u || !c->dx || !c->dx0 || !c->xrestart)
    return CF_ENOMEM;
  c->tri = c->pt0 + n_obs + 1;
  return cf_contact_grow(c, K > 0 ? (int)K : 1);
}

/* The fixed candidate pairs: every free node with every obstacle; every
 * collision edge with every stick.  (Sharp points and triangles:
 * contact_points.c, as the steps go.) */
static void make_pairs(cf_contact *c, const unsigned char *is_kin, const int *edges, int ne) {
  int k = 0;
  for (int i = 0; i < c->n; i++)
    for (int o = 0; o < c->n_obs && !is_kin[i]; o++, k++) set_pair(c, k, o, 1, &i);
  for (int o = 0; o < c->n_obs; o++)
    for (int q = 0; q < ne && c->obs[o].type == cf_obstacle_stick; q++, k++) set_pair(c, k, o, 2, edges + 2 * q);
  for (k = 0; k < c->K; k++) c->wpos[k] = c->ppos[k] = -1;
}

/* The grid cell of contact_points.c: the mean collision edge at rest (as
 * selfcoll.c's), and at least an eighth of the longest, so that a triangle
 * meets few cells a side. */
static double grid_cell(const double *x, const int *edges, int ne) {
  double sum = 0, max = 0;
  for (int q = 0; q < ne; q++) {
    const double *a = x + 3 * edges[2 * q], *b = x + 3 * edges[2 * q + 1];
    double l = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
    sum += l, max = fmax(max, l);
  }
  return ne && sum > 0 ? fmax(sum / ne, max / 8) : 1;
}

cf_contact *cf_contact_alloc(cf_proj *proj, const cf_mesh *mesh, const unsigned char *is_kin, const cf_obstacle *obs,
                             int n_obs, const cf_contact_params *cp, cf_error *err) {
  cf_contact *c = calloc(1, sizeof *c);
  if (!c) {
    cf_error_set(err, CF_ENOMEM, "contacts: out of memory");
    return NULL;
  }
  cholmod_start(&c->cc);
  c->cc.print = 0;
  /* simplicial LDL': the systems are small and change often (the form
   * CHOLMOD's rowadd/rowdel updates work on) */
  c->cc.supernodal = CHOLMOD_SIMPLICIAL;
  c->proj = proj;
  int n = mesh->n_nodes;
  c->n = n;
  c->n_obs = n_obs;
  c->cp = *cp;
  int nfree = 0, nstick = 0, ne = 0, nt = 0, npts = 0, *edges = NULL, *tris = NULL;
  for (int i = 0; i < n; i++) nfree += !is_kin[i];
  for (int o = 0; o < n_obs; o++) nstick += obs[o].type == cf_obstacle_stick, npts += cf_obstacle_points(obs + o, 0, NULL);
  if (nstick || npts) {
    /* sides and a diagonal: at most 5 per element; 2 triangles per quad */
    edges = malloc(sizeof(int) * 10 * ((size_t)mesh->n_elems + 1));
    tris = malloc(sizeof(int) * 6 * ((size_t)mesh->n_elems + 1));
    if (edges && tris) ne = cf_selfcoll_edges(mesh, is_kin, edges), nt = cf_selfcoll_triangles(mesh, is_kin, tris);
  }
  size_t K = (size_t)nfree * n_obs + (size_t)ne * nstick;
  c->K = c->K2 = c->K3 = (int)K;
  c->K1 = nfree * n_obs;
  c->npts = npts;
  c->nt = npts ? nt : 0;
  if (((nstick || npts) && (!edges || !tris)) ||
      alloc_arrays(c, K, (size_t)n, (size_t)n_obs, (size_t)npts, (size_t)c->nt)) {
    free(edges);
    free(tris);
    cf_contact_free(c);
    cf_error_set(err, CF_ENOMEM, "contacts: out of memory");
    return NULL;
  }
  if (n_obs > 0) memcpy(c->obs, obs, sizeof(cf_obstacle) * n_obs);
  for (int o = 0; o < n_obs; o++) c->pt0[o + 1] = c->pt0[o] + cf_obstacle_points(obs + o, 0, NULL);
  make_pairs(c, is_kin, edges, ne);
  if (c->nt) memcpy(c->tri, tris, sizeof(int) * 3 * (size_t)c->nt);
  c->cell = grid_cell(mesh->x, edges, ne);
  free(edges);
  free(tris);
  if (cp->self && !(c->sc = cf_selfcoll_alloc(mesh, is_kin, err))) {
    cf_contact_free(c);
    return NULL;
  }
  return c;
}

/* Edge pair k against its stick (axis in c->seg) at x: the vector from
 * the axis to the edge's closest point into v[3], the point's weight on the
 * edge's second node into *s; returns the distance. */
static double edge_axis(const cf_contact *c, int k, const double *x, double v[3], double *s) {
  const int *nd = c->pnode + CF_QP_HMAX * k;
  const double *seg = c->seg + 6 * c->cobs[k], *a = x + 3 * nd[0], *b = x + 3 * nd[1];
  double u, d = cf_segment_closest(a, b, seg, seg + 3, s, &u);
  for (int q = 0; q < 3; q++) v[q] = (1 - *s) * a[q] + *s * b[q] - (1 - u) * seg[q] - u * seg[3 + q];
  return d;
}

double cf_contact_side_row(cf_contact *c, int k, double dist, const double n[3], double r) {
  const double *sd = c->side + 3 * k;
  double sg = n[0] * sd[0] + n[1] * sd[1] + n[2] * sd[2] < 0 ? -1 : 1;
  for (int q = 0; q < 3; q++) c->N[3 * k + q] = sg * n[q];
  return sg * dist - r - c->cp.thickness;
}

static double stick_row(cf_contact *c, int k, double dist, const double n[3]) {
  return cf_contact_side_row(c, k, dist, n, c->obs[c->cobs[k]].r);
}

/* Edge pair k at x: H, normal and the weights of the edge's closest point;
 * CF_PAIR_FAR when that point is within CF_EDGE_END of a node (the node's
 * pair holds it). */
static double edge_pair(cf_contact *c, int k, const double *x) {
  double v[3], s, *w = c->pw + CF_QP_HMAX * k, d = edge_axis(c, k, x, v, &s);
  if (!(s > CF_EDGE_END && s < 1 - CF_EDGE_END) || !(d > 0)) {
    c->N[3 * k] = c->N[3 * k + 1] = c->N[3 * k + 2] = w[0] = w[1] = 0;
    return CF_PAIR_FAR;
  }
  w[0] = 1 - s, w[1] = s;
  for (int q = 0; q < 3; q++) v[q] /= d;
  return stick_row(c, k, d, v);
}

/* Triangle pair k at x: H, normal and the barycentric weights of the
 * point's projection; CF_PAIR_FAR when it is outside the triangle or
 * within CF_EDGE_END of its boundary (an edge or node pair holds it). */
static double tip_pair(cf_contact *c, int k, const double *x) {
  double v[3], b[3], *w = c->pw + CF_QP_HMAX * k, d = cf_contact_tip_face(c, k, c->pts + 3 * c->kpt[2 * k], x, v, b);
  if (!(d > 0) || !(b[0] > CF_EDGE_END && b[1] > CF_EDGE_END && b[2] > CF_EDGE_END)) {
    c->N[3 * k] = c->N[3 * k + 1] = c->N[3 * k + 2] = w[0] = w[1] = w[2] = 0;
    return CF_PAIR_FAR;
  }
  memcpy(w, b, sizeof b);
  for (int q = 0; q < 3; q++) v[q] /= d;
  return stick_row(c, k, d, v);
}

/* The sticks' axes and the sharp points at time t. */
static void place_obstacles(cf_contact *c, double t) {
  for (int o = 0; o < c->n_obs; o++) {
    cf_obstacle_segment(c->obs + o, t, c->seg + 6 * o, c->seg + 6 * o + 3);
    if (c->pt0[o + 1] > c->pt0[o]) cf_obstacle_points(c->obs + o, t, c->pts + 3 * c->pt0[o]);
  }
}

double cf_contact_eval_pairs(cf_contact *c, const double *x, double t) {
  double m = INFINITY;
  place_obstacles(c, t);
  /* out of memory: contact.c stops at the non-finite value (and
   * cf_contact_needed sees a contact) */
  if (cf_contact_near_points(c, x, t)) return -INFINITY;
  for (int k = 0; k < c->K; k++) {
    if (k >= c->K3) {
      c->H[k] = cf_contact_self_eval(c, k, x);
      if (!(c->H[k] >= m)) m = c->H[k];
      continue;
    }
    const cf_obstacle *o = c->obs + c->cobs[k];
    if (k >= c->K2) c->H[k] = tip_pair(c, k, x);
    else if (k >= c->K1) c->H[k] = edge_pair(c, k, x);
    else {
      double *nk = c->N + 3 * k, d = cf_obstacle_distance(o, t, x + 3 * c->pnode[CF_QP_HMAX * k], nk);
      c->H[k] = o->type == cf_obstacle_stick ? stick_row(c, k, d + o->r, nk) : d - c->cp.thickness;
    }
    if (!(c->H[k] >= m)) m = c->H[k];
  }
  return m;
}

/* The sides of the pairs with a stick or a sharp point at the start of a
 * step (positions xprev, time t0; the points there kept after pts for the
 * triangle pairs contact_points.c adds later in the step); self pairs read
 * xprev itself (c->xstart). */
void cf_contact_set_sides(cf_contact *c, const double *xprev, double t0) {
  c->xstart = xprev;
  c->t0 = t0;
  c->moved = 0;
  place_obstacles(c, t0);
  memcpy(c->pts + 3 * c->npts, c->pts, sizeof(double) * 3 * (size_t)c->npts);
  for (int k = 0; k < c->K3; k++) {
    double s, *sd = c->side + 3 * k;
    if (k < c->K1 && c->obs[c->cobs[k]].type != cf_obstacle_stick) continue;
    if (k >= c->K2) cf_contact_tip_side(c, k);
    else if (k >= c->K1) edge_axis(c, k, xprev, sd, &s);
    else cf_obstacle_distance(c->obs + c->cobs[k], t0, xprev + 3 * c->pnode[CF_QP_HMAX * k], sd);
  }
}

void cf_contact_free(cf_contact *c) {
  if (!c) return;
  cholmod_free_factor(&c->L, &c->cc);
  cholmod_free_dense(&c->B, &c->cc);
  cholmod_free_dense(&c->X, &c->cc);
  cholmod_free_dense(&c->Y, &c->cc);
  cholmod_free_dense(&c->E, &c->cc);
  cholmod_free_dense(&c->D, &c->cc);
  cholmod_free_sparse(&c->A, &c->cc);
  cholmod_free_sparse(&c->R, &c->cc);
  cholmod_finish(&c->cc);
  cf_selfcoll_free(c->sc);
  CF_FREE_ALL(c->hkey, c->pinv, c->lact, c->dep, c->outs, c->obs, c->pn, c->pnode, c->pw, c->seg, c->pt0, c->pts,
              c->kpt, c->side, c->cobs, c->H, c->N, c->gam, c->sprev, c->tprev, c->wpos, c->W, c->P, c->ppos, c->map,
              c->wn_ptr, c->wn, c->wj, c->u, c->dx, c->erow, c->eg, c->qrow, c->qnode, c->qJ, c->qgam, c->dx0,
              c->xrestart, c);
}
