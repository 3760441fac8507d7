/* test_selfcoll.c — the cloth's self-collisions (thesis §3.3-§3.4;
 * docs/design.md §5).
 *
 * 1. Detection (selfcoll.c) on hand-made motions of a 2 x 2-element sheet
 *    and a separate node or edge: a node moving through a face is found, one
 *    moving beside it is not, nor one passing it farther than the proximity
 *    allows; an edge sweeping through another is found; a node resting
 *    closer than the thickness is found.
 * 2. Folding: an A2 sheet (7 x 9 quads) lies on a floor; its far edge is
 *    lifted over it and laid down near the near edge (a fold), and the top
 *    layer falls onto the bottom one.  With self-collisions, at every one of
 *    the 200 steps the triangulated sheet has no self-intersection (exact
 *    edge-triangle tests, cf_selfcoll_intersections), every free node is at
 *    least thickness - eps1 above the floor and the metric violation is at
 *    most tol; the run without self-collisions does intersect itself (so
 *    the check can fail).
 * 3. A sleeve (experiments/garment.ini: a tube, no boundary around it)
 *    collapsing on the floor, its top half onto its bottom half, 150 steps:
 *    the same assertions, and the run without self-collisions intersects
 *    itself. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "selfcoll.h"
#include "testutil.h"

/* A 3 x 3-node sheet in z = 0 (quads of 0.1 m) plus a quad of nodes 9-12
 * far away: node 9 and edge 10-11 are moved by hand. */
static cf_mesh *patch(void) {
  double o[3] = {0, 0, 0}, u[3] = {0.2, 0, 0}, v[3] = {0, 0.2, 0};
  cf_mesh *g = cf_mesh_grid(3, 3, o, u, v, 1), *m = cf_mesh_alloc(4, 13, 5);
  memcpy(m->x, g->x, sizeof(double) * 27);
  memcpy(m->elems, g->elems, sizeof(int) * 16);
  double extra[12] = {5, 5, 5, 5.1, 5, 5, 5.1, 5.1, 5, 5, 5.1, 5};
  memcpy(m->x + 27, extra, sizeof extra);
  int e4[4] = {9, 10, 11, 12};
  memcpy(m->elems + 16, e4, sizeof e4);
  cf_mesh_free(g);
  return m;
}

/* Node-face pairs of node `node`. */
static int count_node(const cf_self_pair *p, int n, int node) {
  int c = 0;
  for (int q = 0; q < n; q++) c += p[q].kind == 0 && p[q].v[0] == node;
  return c;
}

static void test_detection(void) {
  cf_mesh *m = patch();
  unsigned char kin[13] = {0};
  cf_error err = {0, ""};
  cf_selfcoll *s = cf_selfcoll_alloc(m, kin, &err);
  CHECK(s != NULL, "%s", err.msg);
  if (!s) return cf_mesh_free(m);
  double x0[39], x1[39];
  const cf_self_pair *p;
  memcpy(x0, m->x, sizeof x0);
  /* node 9 from 5 cm above the sheet's first quad to 5 cm below */
  memcpy(x1, x0, sizeof x1);
  double a[3] = {0.06, 0.04, 0.05}, b[3] = {0.06, 0.04, -0.05};
  memcpy(x0 + 27, a, sizeof a), memcpy(x1 + 27, b, sizeof b);
  int n = cf_selfcoll_detect(s, x0, x1, 0.002, 0.5, &p);
  CHECK(count_node(p, n, 9) >= 1, "node through a face: not found (%d pairs)", n);
  /* beside the sheet */
  a[0] = b[0] = 0.3;
  memcpy(x0 + 27, a, sizeof a), memcpy(x1 + 27, b, sizeof b);
  n = cf_selfcoll_detect(s, x0, x1, 0.002, 0.5, &p);
  CHECK(count_node(p, n, 9) == 0, "node beside the sheet: %d pairs found", count_node(p, n, 9));
  /* passing 5 mm above it (proximity reaches 1 mm + 2 mm thickness only) */
  double c0[3] = {-0.05, 0.04, 0.005}, c1[3] = {0.25, 0.04, 0.005};
  memcpy(x0 + 27, c0, sizeof c0), memcpy(x1 + 27, c1, sizeof c1);
  n = cf_selfcoll_detect(s, x0, x1, 0.002, 0.5, &p);
  CHECK(count_node(p, n, 9) == 0, "node passing 5 mm above: %d pairs found", count_node(p, n, 9));
  /* resting 1 mm above a face: closer than the thickness */
  double r[3] = {0.07, 0.03, 0.001};
  memcpy(x0 + 27, r, sizeof r), memcpy(x1 + 27, r, sizeof r);
  n = cf_selfcoll_detect(s, x0, x1, 0.002, 0.5, &p);
  CHECK(count_node(p, n, 9) >= 1, "node resting 1 mm above: not found");
  /* edge 10-11 (along y) sweeping down through the sheet's edge 0-1 (along x) */
  memcpy(x0 + 27, m->x + 27, 3 * sizeof(double)), memcpy(x1 + 27, m->x + 27, 3 * sizeof(double));
  double e0a[3] = {0.05, -0.05, 0.05}, e0b[3] = {0.05, 0.05, 0.05}, e1a[3] = {0.05, -0.05, -0.05}, e1b[3] = {0.05, 0.05, -0.05};
  memcpy(x0 + 30, e0a, 24), memcpy(x0 + 33, e0b, 24), memcpy(x1 + 30, e1a, 24), memcpy(x1 + 33, e1b, 24);
  n = cf_selfcoll_detect(s, x0, x1, 0.002, 0.5, &p);
  int ee = 0;
  for (int q = 0; q < n; q++)
    ee += p[q].kind == 1 && ((p[q].v[0] == 0 && p[q].v[1] == 1 && p[q].v[2] == 10 && p[q].v[3] == 11) ||
                             (p[q].v[2] == 0 && p[q].v[3] == 1 && p[q].v[0] == 10 && p[q].v[1] == 11));
  CHECK(ee == 1, "edge through edge: %d pairs (0-1, 10-11) found", ee);
  cf_selfcoll_free(s);
  cf_mesh_free(m);
}

typedef struct {
  int steps, intersecting, ok;
  double clear, viol, top;
} layered_result;

/* The fold's far edge: lifted over the sheet and laid near the near edge
 * over 1.5 s (positions of its 7 nodes at step k into kp). */
static void fold_edge(const cf_mesh *m, const int *kin, int k, double dt, double *kp) {
  double sf = fmin(1, k * dt / 1.5);
  for (int i = 0; i < 7; i++) {
    kp[3 * i] = m->x[3 * kin[i]];
    kp[3 * i + 1] = 0.594 - (0.594 - 0.15) * sf;
    kp[3 * i + 2] = 0.003 + 0.3 * sin(M_PI * sf) + 0.027 * sf;
  }
}

/* Mesh m (kin[n_kin] driven by drive, may be NULL) on a floor for `steps`
 * steps, with or without self-collisions: the checks of the header at every
 * step, and the highest node at the end. */
static layered_result layered(cf_mesh *m, const int *kin, int n_kin,
                              void (*drive)(const cf_mesh *, const int *, int, double, double *), int steps,
                              int self, const char *what) {
  layered_result res = {0, 0, 0, INFINITY, 0, NAN};
  cf_params p;
  cf_params_default(&p);
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.self = self, cp.self_mu = 0.3;
  cf_obstacle floor;
  cf_obstacle_init(&floor, cf_obstacle_plane);
  floor.mu = 0.3;
  cf_error err = {0, ""};
  unsigned char *is_kin = calloc((size_t)m->n_nodes, 1);
  for (int i = 0; i < n_kin; i++) is_kin[kin[i]] = 1;
  cf_selfcoll *chk = cf_selfcoll_alloc(m, is_kin, &err);
  cf_sim *s = chk ? cf_sim_alloc(m, &p, kin, n_kin, &err) : NULL;
  int rc = s ? cf_sim_set_obstacles(s, &floor, 1, &cp, &err) : CF_ENOMEM;
  double kp[3 * 16];
  for (int k = 1; k <= steps && rc == CF_OK; k++) {
    if (drive) drive(m, kin, k, p.dt, kp);
    if ((rc = cf_sim_step(s, drive ? kp : NULL, &err))) break;
    const double *x = cf_sim_x(s);
    res.intersecting += cf_selfcoll_intersections(chk, x) > 0;
    for (int i = 0; i < m->n_nodes; i++)
      if (!is_kin[i]) res.clear = fmin(res.clear, x[3 * i + 2] - cp.thickness);
    res.viol = fmax(res.viol, cf_sim_get_stats(s).last_violation);
    res.steps = k;
  }
  if (s && rc == CF_OK)
    for (int i = 0; i < m->n_nodes; i++) res.top = fmax(res.top, cf_sim_x(s)[3 * i + 2]); /* fmax skips the NaN */
  if (s) {
    cf_sim_stats st = cf_sim_get_stats(s);
    printf("%s: %d steps, %d with self-intersections, floor clearance %.3g m, violation %.3g, highest node %.4g m at "
           "the end; %ld contact steps, %.2f iterations/step, %ld restarts\n", what, res.steps, res.intersecting,
           res.clear, res.viol, res.top, st.contact_steps, (double)st.iterations / (st.steps ? st.steps : 1),
           st.self_restarts);
  }
  if (rc) printf("%s: %s\n", what, err.msg);
  res.ok = rc == CF_OK;
  cf_sim_free(s);
  cf_selfcoll_free(chk);
  free(is_kin);
  return res;
}

/* The checks of the header on the run with self-collisions (a), and that
 * the run without (b) does intersect itself. */
static void check_layered(layered_result a, layered_result b, int steps, const char *what) {
  CHECK(a.ok && a.steps == steps, "%s: stopped at step %d", what, a.steps);
  CHECK(a.intersecting == 0, "%s: %d steps with self-intersections", what, a.intersecting);
  CHECK(a.clear >= -1e-5, "%s: a node %.3g m into the floor's thickness", what, a.clear);
  CHECK(a.viol <= 1e-3, "%s: violation %.3g", what, a.viol);
  CHECK(b.intersecting > 0, "%s without self-collisions does not intersect itself: the check proves nothing", what);
}

/* 2. The fold: the top layer ends one thickness (2 mm) above the bottom one
 * (printed: the highest node, the far edge's, is driven to 3 cm). */
static void test_fold(void) {
  double org[3] = {0, 0, 0.003}, u[3] = {0.42, 0, 0}, v[3] = {0, 0.594, 0};
  cf_mesh *m = cf_mesh_grid(7, 9, org, u, v, 1);
  int kin[7];
  for (int i = 0; i < 7; i++) kin[i] = 56 + i; /* the far edge, y = 0.594 */
  layered_result a = layered(m, kin, 7, fold_edge, 200, 1, "fold with self-collisions");
  layered_result b = layered(m, kin, 7, fold_edge, 200, 0, "fold without");
  check_layered(a, b, 200, "fold");
  cf_mesh_free(m);
}

/* 3. A sleeve collapsing on a floor (experiments/garment.ini): a tube, a
 * mesh without a boundary around it, whose top half falls onto its bottom
 * half (printed: its height at the end, two layers and their gap). */
static void test_sleeve(void) {
  cf_mesh *m = cf_mesh_tube(0.42, 0.594, 7, 12, 0.01 + 0.594 / (2 * M_PI));
  layered_result a = layered(m, NULL, 0, NULL, 150, 1, "sleeve with self-collisions");
  layered_result b = layered(m, NULL, 0, NULL, 150, 0, "sleeve without");
  check_layered(a, b, 150, "sleeve");
  cf_mesh_free(m);
}

int main(void) {
  test_detection();
  test_fold();
  test_sleeve();
  return cf_test_done("test_selfcoll");
}
