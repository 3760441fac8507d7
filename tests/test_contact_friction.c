/* test_contact_friction.c — Coulomb friction in the contact projection
 * (thesis §3.2 (3.2), §3.4 (3.4); the inclined
 * plane): a free A2 sheet (7x9 quads) laid at rest on a plane inclined by
 * theta, mu = 0.5, simulated 1 s.  Static below tan theta = mu, sliding
 * above: with tan theta = 0.9 mu the sheet moves less than 1 mm down the
 * slope, with tan theta = 1.1 mu more than 1 cm; with mu = 0 it slides
 * like a frictionless body (the implicit-Euler recursion of the
 * tangential gravity, as in test_freefall, within 1 %), and with
 * tan theta = 1.1 mu like a rigid block under Coulomb friction (the same
 * recursion with g (sin theta - mu cos theta), within 2 %).  Moving
 * obstacles: a floor sliding in its own plane (a belt) drags a sheet lying
 * on it up to its own speed with mu = 0.5, not at all with mu = 0.  All
 * of it for both friction forms (cf_contact_params.friction_budget 0, 1).  Every node stays
 * at least thickness - eps1 above the plane and the metric constraints
 * hold at every step. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "testutil.h"

static int budget; /* cf_contact_params.friction_budget of the runs */

/* Mean displacement down the slope after `steps` steps. */
static double slide(double tan_theta, double mu, int steps, double *expect_free) {
  double th = atan(tan_theta), s = sin(th), c = cos(th);
  double nrm[3] = {-s, 0, c}, up[3] = {c, 0, s};
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.friction_budget = budget;
  double lift = cp.thickness + 1e-9;
  double o[3] = {lift * nrm[0], -0.297, lift * nrm[2]}, u[3], v[3] = {0, 0.594, 0};
  for (int d = 0; d < 3; d++) u[d] = 0.42 * up[d];
  cf_mesh *m = cf_mesh_grid(7, 9, o, u, v, 1);
  cf_params p;
  cf_params_default(&p);
  cf_obstacle pl;
  cf_obstacle_init(&pl, cf_obstacle_plane);
  memcpy(pl.a, nrm, sizeof nrm);
  pl.mu = mu;
  cf_error err = {0, ""};
  cf_sim *sim = cf_sim_alloc(m, &p, NULL, 0, &err);
  CHECK(sim && cf_sim_set_obstacles(sim, &pl, 1, &cp, &err) == CF_OK, "%s", err.msg);
  int n = m->n_nodes;
  double minc = INFINITY, maxv = 0, vrec = 0, srec = 0;
  for (int k = 1; k <= steps && sim; k++) {
    if (cf_sim_step(sim, NULL, &err)) {
      CHECK(0, "tan %.3f mu %.2f: step %d: %s", tan_theta, mu, k, err.msg);
      break;
    }
    const double *x = cf_sim_x(sim);
    for (int i = 0; i < n; i++) minc = fmin(minc, cf_obstacle_distance(&pl, 0, x + 3 * i, NULL) - cp.thickness);
    maxv = fmax(maxv, cf_model_violation(cf_sim_model(sim), x));
    /* a rigid block under Coulomb friction, implicit Euler along the slope:
     * (rho + alpha dt) v' = rho v + dt delta g (sin theta - mu cos theta)+ */
    vrec = (p.rho * vrec + p.dt * p.delta * p.g * fmax(0, s - mu * c)) / (p.rho + p.alpha * p.dt);
    srec += p.dt * vrec;
  }
  double d = 0;
  if (sim) {
    const double *x = cf_sim_x(sim);
    for (int i = 0; i < n; i++)
      for (int q = 0; q < 3; q++) d -= (x[3 * i + q] - m->x[3 * i + q]) * up[q] / n;
    cf_sim_stats st = cf_sim_get_stats(sim);
    printf("budget %d, tan theta %.3f, mu %.2f: moved %.4g m down the slope; min clearance %.3g m, max violation %.3g; "
           "%.2f iterations, %.2f contact factorizations, %.3f analyses per step\n",
           budget, tan_theta, mu, d, minc, maxv, (double)st.iterations / steps, (double)st.contact_factorizations / steps,
           (double)st.contact_analyses / steps);
  }
  CHECK(minc >= -1e-5, "tan %.3f mu %.2f: min clearance %.3g m", tan_theta, mu, minc);
  CHECK(maxv <= 1e-3, "tan %.3f mu %.2f: max violation %.3g", tan_theta, mu, maxv);
  if (expect_free) *expect_free = srec;
  cf_sim_free(sim);
  cf_mesh_free(m);
  return d;
}

/* A sheet resting on a floor that moves in its own plane at 0.1 m/s along x
 * (a conveyor belt, obstacle velocity): friction acts on the relative
 * velocity, so the sheet is dragged along and, once it moves with the belt,
 * static friction holds it there: after 1.5 s its mean velocity is the
 * belt's within 1 %.  Without friction it stays where it is. */
static double belt(double mu) {
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.friction_budget = budget;
  double o[3] = {-0.21, -0.297, cp.thickness + 1e-9}, u[3] = {0.42, 0, 0}, v[3] = {0, 0.594, 0};
  cf_mesh *m = cf_mesh_grid(7, 9, o, u, v, 1);
  cf_params p;
  cf_params_default(&p);
  cf_obstacle fl;
  cf_obstacle_init(&fl, cf_obstacle_plane);
  fl.vel[0] = 0.1;
  fl.mu = mu;
  cf_error err = {0, ""};
  cf_sim *sim = cf_sim_alloc(m, &p, NULL, 0, &err);
  CHECK(sim && cf_sim_set_obstacles(sim, &fl, 1, &cp, &err) == CF_OK, "%s", err.msg);
  double minc = INFINITY, vx = 0;
  for (int k = 1; k <= 150 && sim; k++) {
    if (cf_sim_step(sim, NULL, &err)) {
      CHECK(0, "belt mu %.2f: step %d: %s", mu, k, err.msg);
      break;
    }
    const double *x = cf_sim_x(sim);
    for (int i = 0; i < m->n_nodes; i++) minc = fmin(minc, x[3 * i + 2] - cp.thickness);
  }
  if (sim)
    for (int i = 0; i < m->n_nodes; i++) vx += cf_sim_v(sim)[3 * i] / m->n_nodes;
  printf("budget %d, belt at 0.1 m/s, mu %.2f: sheet velocity %.5f m/s after 1.5 s, min clearance %.3g m\n",
         budget, mu, vx, minc);
  CHECK(minc >= -1e-5, "belt mu %.2f: min clearance %.3g m", mu, minc);
  cf_sim_free(sim);
  cf_mesh_free(m);
  return vx;
}

static void run(void) {
  const double mu = 0.5;
  const int steps = 100;
  double stick = slide(0.9 * mu, mu, steps, NULL);
  CHECK(fabs(stick) < 1e-3, "tan theta = 0.9 mu: the sheet moved %.4g m (static friction should hold it)", stick);
  double block, go = slide(1.1 * mu, mu, steps, &block);
  CHECK(go > 1e-2, "tan theta = 1.1 mu: the sheet moved only %.4g m (it should slide)", go);
  CHECK(fabs(go - block) < 0.02 * block, "tan theta = 1.1 mu: moved %.5g m, a rigid block %.5g m", go, block);
  double free_ref, fr = slide(1.1 * mu, 0, steps, &free_ref);
  CHECK(fabs(fr - free_ref) < 0.01 * free_ref, "mu = 0: moved %.5g m, frictionless body %.5g m", fr, free_ref);
  double vb = belt(0.5);
  CHECK(fabs(vb - 0.1) < 1e-3, "belt: the sheet moves at %.5f m/s, the belt at 0.1", vb);
  double v0 = belt(0);
  CHECK(fabs(v0) < 1e-6, "frictionless belt: the sheet moves at %.3g m/s", v0);
}

int main(void) {
  for (budget = 0; budget <= 1; budget++) run(); /* both friction forms (cf_sim.h) */
  return cf_test_done("test_contact_friction");
}
