/* test_contact_cylinder.c — friction where few contact nodes hold much
 * cloth (after thesis §3.6.1, whose cylinder size is
 * not given): a 13x13 quad sheet of 1.3 m, rotated 20° about z, dropped on
 * a horizontal cylinder (radius 0.25 m, top at 1.4 m, axis along y) 0.3 m
 * off its centre, a floor below.  A capstan estimate (tension ratio ~2.7
 * against e^{mu pi}: 1.9 for mu = 0.2, 5.6 for mu = 0.55) says the sheet
 * slides off with mu = 0.2 and stays with mu = 0.55.  With
 * cf_contact_params.friction_budget = 1: with mu = 0.2 a node reaches the
 * floor (z < 1 cm) within 2 s; with mu = 0.55 the lowest node is above
 * 0.3 m at 1.5, 1.75 and 2 s.  Clearance >= thickness - 1e-5 m at every
 * step.  (The default friction lets it slide with mu = 0.55 too:
 * docs/contacts.md, bench_contact.)  Same scenario as bench/bench_contact. */
#include <math.h>
#include <stdio.h>

#include "cf_sim.h"
#include "drape.h"
#include "testutil.h"

/* Lowest node z at t = 1.5, 1.75, 2 s into low[3]; returns the min over steps
 * of the clearance. */
static double drape(double mu, double low[3]) {
  cf_params p;
  cf_params_default(&p);
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.friction_budget = 1;
  cf_obstacle ob[2];
  const cf_test_drape d = {13, 1.3, 0.25, 1.4, 0.3, mu};
  cf_mesh *m = cf_test_drape_scene(&d, cp.thickness, ob);
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, NULL, 0, &err);
  CHECK(s && cf_sim_set_obstacles(s, ob, 2, &cp, &err) == CF_OK, "%s", err.msg);
  double minc = INFINITY;
  for (int k = 1; k <= 200 && s; k++) {
    if (cf_sim_step(s, NULL, &err)) {
      CHECK(0, "mu %.2f: %s", mu, err.msg);
      break;
    }
    const double *x = cf_sim_x(s);
    double z = INFINITY;
    for (int i = 0; i < m->n_nodes; i++) {
      z = fmin(z, x[3 * i + 2]);
      for (int q = 0; q < 2; q++) minc = fmin(minc, cf_obstacle_distance(ob + q, 0, x + 3 * i, NULL) - cp.thickness);
    }
    if (k == 150 || k == 175 || k == 200) low[(k - 150) / 25] = z;
  }
  printf("mu %.2f (friction budget): lowest node %.3f %.3f %.3f m at 1.5, 1.75, 2 s; min clearance %.3g m\n", mu,
         low[0], low[1], low[2], minc);
  cf_sim_free(s);
  cf_mesh_free(m);
  return minc;
}

int main(void) {
  double lo[3] = {NAN, NAN, NAN}, hi[3] = {NAN, NAN, NAN};
  double c1 = drape(0.2, lo), c2 = drape(0.55, hi);
  CHECK(lo[2] < 0.01, "mu 0.2: the lowest node is at %.3f m at 2 s: the sheet should have slid to the floor", lo[2]);
  for (int q = 0; q < 3; q++)
    CHECK(hi[q] > 0.3, "mu 0.55: the lowest node is at %.3f m at %.2f s: the sheet should stay on", hi[q],
          1.5 + 0.25 * q);
  CHECK(c1 >= -1e-5 && c2 >= -1e-5, "min clearance %.3g / %.3g m", c1, c2);
  return cf_test_done("test_contact_cylinder");
}
