/* Acceptance 2 of the simulator core: a 1 m x 1 m sheet (20 x 20 quads)
 * hanging from its two top corners, shaken across its plane for 5 s.  After
 * every step the max relative constraint violation is <= tol, the total area
 * error (2.23) stays < 1 % and the mean element area error (2.24) < 2 %.
 * The sheet starts exactly planar (docs/design.md §4: planar states are singular and
 * the solver must handle them on purpose).  Run with and without the
 * tangent-space predictor (cf_params.predictor); with it the projection
 * needs fewer iterations and factorizations, and the mean element area
 * error is larger (asserted < 5 % for it; the 2 % acceptance is the
 * default integrator's). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "testutil.h"

static cf_sim_stats shake(int predictor, double mean_bound) {
  const int nx = 21, ny = 21; /* 20 x 20 quads */
  double o[3] = {0, 0, 0}, u[3] = {1, 0, 0}, v[3] = {0, 0, 1};
  cf_mesh *m = cf_mesh_grid(nx, ny, o, u, v, 1);
  CHECK(m != NULL, "grid");
  int kin[2] = {(ny - 1) * nx, ny * nx - 1}; /* top corners (z = 1) */
  cf_params p;
  cf_params_default(&p);
  p.predictor = predictor;
  cf_error err;
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  CHECK(s != NULL, "%s", err.msg);
  double *a0 = malloc(sizeof(double) * m->n_elems);
  cf_mesh_element_areas(m, m->x, a0);
  double x0[6], kp[6];
  memcpy(x0, m->x + 3 * kin[0], 3 * sizeof(double));
  memcpy(x0 + 3, m->x + 3 * kin[1], 3 * sizeof(double));
  cf_drive d = {CF_DRIVE_SHAKE, 0.075, 0.6, {0, 1, 0}};
  double worst_total = 0, worst_mean = 0, worst_viol = 0;
  int steps = (int)(5.0 / p.dt + 0.5), done = 0;
  for (int k = 1; k <= steps; k++) {
    cf_drive_eval(&d, 2, x0, k * p.dt, kp);
    int rc = cf_sim_step(s, kp, &err);
    CHECK(rc == CF_OK, "step %d: %s", k, err.msg);
    if (rc) break;
    done = k;
    cf_sim_stats st = cf_sim_get_stats(s);
    cf_area_error ae = cf_mesh_area_error(m, a0, cf_sim_x(s));
    if (st.last_violation > worst_viol) worst_viol = st.last_violation;
    if (ae.total > worst_total) worst_total = ae.total;
    if (ae.mean > worst_mean) worst_mean = ae.mean;
    /* the drive is exact on the kinematic nodes */
    for (int c = 0; c < 6; c++)
      CHECK(cf_sim_x(s)[3 * kin[c / 3] + c % 3] == kp[c], "kinematic node off its trajectory");
  }
  CHECK(done == steps, "only %d of %d steps", done, steps);
  CHECK(worst_viol <= p.tol, "violation %.3g > tol %.3g", worst_viol, p.tol);
  CHECK(worst_total < 0.01, "total area error %.4f", worst_total);
  CHECK(worst_mean < mean_bound, "predictor %d: mean element area error %.4f >= %.2f", predictor, worst_mean,
        mean_bound);
  cf_sim_stats st = cf_sim_get_stats(s);
  printf("20x20 shake 5 s, predictor %d: max violation %.3g, total area error %.3f %%, mean element %.3f %%, "
         "%.2f iterations/step, %.2f factorizations/step\n",
         predictor, worst_viol, 100 * worst_total, 100 * worst_mean, (double)st.iterations / st.steps,
         (double)st.factorizations / st.steps);
  /* the cloth really moved: the bottom edge swings across the plane */
  double ymax = 0;
  for (int i = 0; i < nx; i++) ymax = fmax(ymax, fabs(cf_sim_x(s)[3 * i + 1]));
  CHECK(ymax > 0.02, "bottom edge barely moved (|y| <= %.4f)", ymax);
  free(a0);
  cf_sim_free(s);
  cf_mesh_free(m);
  return st;
}

int main(void) {
  cf_runtime_init();
  /* the acceptance: the default integrator */
  cf_sim_stats plain = shake(0, 0.02);
  /* the predictor (an option): the same constraint tolerance and total area,
   * fewer projection iterations (asserted), but the element-level
   * (constraint-invisible) distortions grow — the price documented in
   * sim.c.  Both runs print their figures; when this was written 1.06 %
   * mean element area error against 0.87 % (both bounds hold with margin),
   * 3.2 against 5.9 iterations and 3.4 against 3.6 factorizations per step. */
  cf_sim_stats pred = shake(1, 0.05);
  CHECK(pred.iterations < plain.iterations, "predictor: %ld iterations vs %ld without", pred.iterations,
        plain.iterations);
  return cf_test_done("test_shake_area");
}
