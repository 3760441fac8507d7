/* test_contact_points.c — the broad phase of the sharp points (one that
 * scales with the mesh; contact_points.c): which (point, triangle)
 * pairs the projection carries.
 *
 * 1. cf_points_near against brute force, over random configurations (a
 *    crumpled sheet of 4 x 4 to 15 x 13 nodes, 1 to 3 obstacles of 1 to 60
 *    points each, margins from 0 to 0.3 m, 5 m and infinite, grid cells
 *    from a fifth of the mean edge to twice it; 40 configurations from 5
 *    seeds):
 *    its pairs are exactly those whose boxes meet (point's box grown by
 *    the margin), sorted by point then triangle, each once; every pair
 *    within the margin in Euclidean distance is among them.
 * 2. Whole runs: the same simulation with the broad phase and with every
 *    point against every triangle (cf_contact_all_points), step by step in
 *    lockstep: the positions are bitwise the same at every step, and so
 *    are the contact counters (iterations, active-set solves, working-set
 *    changes, factorizations, updates, analyses, min clearance).  Runs: the
 *    A2 sheet dropped on the needles with self-collisions (test_contact_stick's),
 *    the stick driven through the hanging sheet at 6 m/s and at 1 m/s, and
 *    a sheet of 14 x 18 nodes dropped on a denser field (c1 = 40, 1.2 m:
 *    128 tips, 56 576 pairs of which the margin keeps a few hundred). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cf_sim.h"
#include "contact_points.h"
#include "selfcoll.h"
#include "testutil.h"

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* Euclidean distance of p to the triangle abc. */
static double point_triangle(const double *p, const double *a, const double *b, const double *c) {
  double bc[3], n[3], h = cf_tri_project(p, a, b, c, bc, n), s, u;
  if (!isnan(h) && bc[0] >= 0 && bc[1] >= 0 && bc[2] >= 0) return fabs(h) * sqrt(dot3(n, n));
  double d = cf_segment_closest(p, p, a, b, &s, &u);
  d = fmin(d, cf_segment_closest(p, p, b, c, &s, &u));
  return fmin(d, cf_segment_closest(p, p, c, a, &s, &u));
}

static int box_meets(const double *p, double pad, const int *t, const double *x) {
  for (int d = 0; d < 3; d++) {
    double lo = INFINITY, hi = -INFINITY;
    for (int e = 0; e < 3; e++) lo = fmin(lo, x[3 * t[e] + d]), hi = fmax(hi, x[3 * t[e] + d]);
    if (p[d] + pad < lo || p[d] - pad > hi) return 0;
  }
  return 1;
}

/* One random configuration; returns the pairs found. */
static int random_case(unsigned long long *rng, int trial) {
  int nx = 4 + (int)(6 * (1 + cf_test_rand(rng))), ny = 4 + (int)(5 * (1 + cf_test_rand(rng)));
  double org[3] = {0, 0, 0}, u[3] = {1, 0, 0}, v[3] = {0, 1, 0};
  cf_mesh *m = cf_mesh_grid(nx, ny, org, u, v, 1);
  int n = m->n_nodes, n_obs = 1 + (int)(1.5 * (1 + cf_test_rand(rng))), pt0[4] = {0}, *tri = malloc(sizeof(int) * 6 * m->n_elems);
  unsigned char *kin = calloc((size_t)n, 1);
  double *x = malloc(sizeof(double) * 3 * n), a = 0.3 * (1 + cf_test_rand(rng)), pts[3 * 3 * 60], pad[3];
  for (int i = 0; i < n; i++) { /* crumpled: a smooth field, and noise */
    const double *r = m->x + 3 * i;
    x[3 * i] = r[0] + 0.05 * sin(7 * r[1]) + 0.01 * cf_test_rand(rng);
    x[3 * i + 1] = r[1] + 0.05 * cos(5 * r[0]) + 0.01 * cf_test_rand(rng);
    x[3 * i + 2] = a * sin(4 * r[0] + 3 * r[1]) + 0.02 * cf_test_rand(rng);
  }
  int nt = cf_selfcoll_triangles(m, kin, tri);
  for (int o = 0; o < n_obs; o++) {
    int np = 1 + (int)(29.5 * (1 + cf_test_rand(rng)));
    pt0[o + 1] = pt0[o] + np;
    pad[o] = 0.15 * (1 + cf_test_rand(rng));
    if (trial % 4 == 0 && o == 0) pad[o] = 0;
    if (trial % 5 == 3 && o == n_obs - 1) pad[o] = trial % 2 ? 5 : INFINITY; /* beyond the sheet; one by one */
    for (int p = pt0[o]; p < pt0[o + 1]; p++)
      for (int d = 0; d < 3; d++) pts[3 * p + d] = (d < 2 ? 0.5 : 0) + 0.7 * cf_test_rand(rng);
  }
  double h = (0.2 + 0.9 * (1 + cf_test_rand(rng))) / (nx > ny ? nx : ny);
  int *pq = NULL, k = cf_points_near(tri, nt, x, h, pts, pt0, n_obs, pad, &pq), bad = 0, missing = 0, j = 0;
  CHECK(k >= 0, "case %d: out of memory", trial);
  for (int o = 0; o < n_obs && k >= 0; o++)
    for (int p = pt0[o]; p < pt0[o + 1]; p++)
      for (int t = 0; t < nt; t++) {
        int meets = box_meets(pts + 3 * p, pad[o], tri + 3 * t, x), listed = j < k && pq[2 * j] == p && pq[2 * j + 1] == t;
        bad += meets != listed;
        j += listed;
        const int *tv = tri + 3 * t;
        if (point_triangle(pts + 3 * p, x + 3 * tv[0], x + 3 * tv[1], x + 3 * tv[2]) <= pad[o] && !listed) missing++;
      }
  CHECK(k >= 0 && bad == 0 && j == k, "case %d (%dx%d quads, h %.3g): %d pairs differ from the boxes' test, %d of %d "
        "listed in order", trial, nx, ny, h, bad, j, k);
  CHECK(missing == 0, "case %d: %d pairs within the margin left out", trial, missing);
  free(pq), free(tri), free(kin), free(x);
  cf_mesh_free(m);
  return k;
}

static void test_broad_phase(void) {
  int total = 0, cases = 0;
  for (unsigned long long seed = 1; seed <= 5; seed++) {
    unsigned long long rng = seed * 7919;
    for (int q = 0; q < 8; q++, cases++) total += random_case(&rng, cases);
  }
  printf("broad phase: %d random configurations, %d pairs, all as brute force\n", cases, total);
}

/* ------------------------------------------------------------ whole runs */
typedef struct {
  const char *what;
  int nx, ny, horizontal, nkin, kin[2], self, steps;
  double w, hgt, dt;
  cf_obstacle o;
} scene;

static cf_sim *scene_sim(const scene *sc, cf_mesh **m) {
  double org[3] = {sc->horizontal ? 0 : -sc->w / 2, 0, 0}, u[3] = {sc->w, 0, 0}, v[3] = {0, 0, 0};
  v[sc->horizontal ? 1 : 2] = sc->hgt;
  *m = cf_mesh_grid(sc->nx, sc->ny, org, u, v, 1);
  cf_params p;
  cf_params_default(&p);
  if (sc->dt > 0) p.dt = sc->dt;
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.self = sc->self;
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(*m, &p, sc->kin, sc->nkin, &err);
  if (s && cf_sim_set_obstacles(s, &sc->o, 1, &cp, &err)) cf_sim_free(s), s = NULL;
  CHECK(s, "%s: %s", sc->what, err.msg);
  return s;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The scene with every pair (a) and with the broad phase (b), in lockstep. */
static void same_run(const scene *sc) {
  cf_mesh *ma, *mb;
  cf_sim *a = scene_sim(sc, &ma), *b = scene_sim(sc, &mb);
  int n = ma->n_nodes, differ = 0, rc = !a || !b, k;
  double ta = 0, tb = 0, dmax = 0;
  cf_error err = {0, ""};
  for (k = 0; k < sc->steps && !rc; k++) {
    double t0 = now();
    cf_contact_all_points = 1;
    rc = cf_sim_step(a, NULL, &err);
    double t1 = now();
    cf_contact_all_points = 0;
    rc = rc ? rc : cf_sim_step(b, NULL, &err);
    tb += now() - t1, ta += t1 - t0;
    const double *xa = cf_sim_x(a), *xb = cf_sim_x(b);
    differ += memcmp(xa, xb, sizeof(double) * 3 * n) != 0;
    for (int q = 0; q < 3 * n; q++) dmax = fmax(dmax, fabs(xa[q] - xb[q]));
  }
  cf_contact_all_points = 0;
  CHECK(rc == 0, "%s: step %d: %s", sc->what, k, err.msg);
  if (a && b) {
    cf_sim_stats sa = cf_sim_get_stats(a), sb = cf_sim_get_stats(b);
    CHECK(differ == 0, "%s: %d of %d steps differ from the exhaustive run (by up to %.3g m)", sc->what, differ, k, dmax);
    CHECK(sa.contact_steps == sb.contact_steps && sa.contact_iterations == sb.contact_iterations &&
              sa.active_set_iterations == sb.active_set_iterations && sa.rows_in == sb.rows_in &&
              sa.rows_out == sb.rows_out && sa.contact_factorizations == sb.contact_factorizations &&
              sa.contact_updates == sb.contact_updates && sa.contact_analyses == sb.contact_analyses &&
              sa.min_clearance == sb.min_clearance,
          "%s: counters differ: %ld/%ld contact iterations, %ld/%ld solves, %ld/%ld in, %ld/%ld out, %ld/%ld "
          "factorizations, %ld/%ld updates, %ld/%ld analyses, min clearance %.17g/%.17g",
          sc->what, sa.contact_iterations, sb.contact_iterations, sa.active_set_iterations, sb.active_set_iterations,
          sa.rows_in, sb.rows_in, sa.rows_out, sb.rows_out, sa.contact_factorizations, sb.contact_factorizations,
          sa.contact_updates, sb.contact_updates, sa.contact_analyses, sb.contact_analyses, sa.min_clearance,
          sb.min_clearance);
    printf("%s: %d steps, %d differ; %ld contact steps, %ld iterations, %d contacts at the end; every pair %.3f s, "
           "broad phase %.3f s\n",
           sc->what, k, differ, sb.contact_steps, sb.contact_iterations, sb.last_contacts, ta, tb);
  }
  cf_sim_free(a), cf_sim_free(b);
  cf_mesh_free(ma), cf_mesh_free(mb);
}

static cf_obstacle needles(double c1, double field) {
  cf_obstacle o;
  cf_obstacle_init(&o, cf_obstacle_needles);
  o.k[0] = c1, o.k[1] = 0.075 * 20 / c1, o.h[0] = o.h[1] = field / 2; /* the tips 3.3 cm below the sheet */
  o.c[0] = 0.21, o.c[1] = 0.297, o.c[2] = -0.7;
  o.mu = 0.3;
  return o;
}

static cf_obstacle stick(double speed) {
  cf_obstacle o;
  cf_obstacle_init(&o, cf_obstacle_stick);
  o.a[0] = 1, o.a[2] = 0, o.len = 0.5;
  o.c[1] = -0.03, o.c[2] = 0.594 * 2.5 / 8; /* half-way between two node rows */
  o.vel[1] = speed;
  return o;
}

static void test_same_runs(void) {
  scene s[4] = {
      {"needles, A2 7x9 nodes, self-collisions", 7, 9, 1, 0, {0, 0}, 1, 150, 0.42, 0.594, 0, needles(20, 1)},
      {"stick at 6 m/s", 7, 9, 0, 2, {56, 62}, 0, 18, 0.42, 0.594, 1.0 / 120, stick(6)},
      {"stick at 1 m/s", 7, 9, 0, 2, {56, 62}, 0, 48, 0.42, 0.594, 1.0 / 120, stick(1)},
      {"needles c1 = 40, 1.2 m field, A2 14x18 nodes, self-collisions", 14, 18, 1, 0, {0, 0}, 1, 60, 0.42, 0.594, 0, needles(40, 1.2)},
  };
  for (int q = 0; q < 4; q++) same_run(s + q);
}

int main(void) {
  test_broad_phase();
  test_same_runs();
  return cf_test_done("test_contact_points");
}
