/* bench_contact.c — a contact scenario with its settings on the command
 * line (docs/contacts.md): an n x n quad sheet of side L, rotated 20° about
 * z, dropped from 1 mm above a horizontal cylinder (axis along y, half
 * length 0.5 m) whose axis lies off_x below the sheet's centre line, with a
 * floor (mu 0.4) at z = 0 — after thesis §3.6.1 (whose cylinder size and
 * height are not given: these are guesses).  Prints the mean x of the sheet
 * every 0.25 s, then the contact counters and the wall time.
 *
 * usage: bench_contact [MU [N [RADIUS [HEIGHT [L [OFF_X [UPDATES [BUDGET [SOLVER]]]]]]]]]
 *        defaults     0.55  13  0.1     0.6     1.3  0.3   1         0       0
 * (BUDGET: cf_contact_params.friction_budget; SOLVER 0: the active set,
 * 1: Ipopt, the interior-point baseline).  The last line ends with the wall
 * time and q = wall time / simulated time (thesis Table 4.8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cf_sim.h"
#include "drape.h"

static double arg(int argc, char **argv, int k, double def) { return argc > k ? atof(argv[k]) : def; }

int main(int argc, char **argv) {
  cf_test_drape d = {(int)arg(argc, argv, 2, 13), arg(argc, argv, 5, 1.3), arg(argc, argv, 3, 0.1),
                     arg(argc, argv, 4, 0.6), arg(argc, argv, 6, 0.3), arg(argc, argv, 1, 0.55)};
  cf_params p;
  cf_params_default(&p);
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.updates = (int)arg(argc, argv, 7, 1);
  cp.friction_budget = (int)arg(argc, argv, 8, 0);
  cp.solver = arg(argc, argv, 9, 0) == 1 ? CF_CONTACT_IPOPT : CF_CONTACT_ACTIVE_SET;
  cf_obstacle ob[2];
  cf_mesh *m = cf_test_drape_scene(&d, cp.thickness, ob);
  cf_error err = {0, ""};
  cf_sim *s = m ? cf_sim_alloc(m, &p, NULL, 0, &err) : NULL;
  if (!s || cf_sim_set_obstacles(s, ob, 2, &cp, &err)) {
    fprintf(stderr, "bench_contact: %s\n", m ? err.msg : "bad mesh size");
    return 1;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = 0;
  for (int k = 1; k <= 200 && !rc; k++) {
    if ((rc = cf_sim_step(s, NULL, &err))) fprintf(stderr, "bench_contact: %s\n", err.msg);
    if (k % 25 == 0) {
      const double *x = cf_sim_x(s);
      double cx = 0, zmin = INFINITY;
      for (int i = 0; i < m->n_nodes; i++) cx += x[3 * i] / m->n_nodes, zmin = fmin(zmin, x[3 * i + 2]);
      printf("t %.2f s: mean x %.3f m, lowest node z %.3f m, %d contacts\n", k * p.dt, cx, zmin,
             cf_sim_get_stats(s).last_contacts);
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  cf_sim_stats st = cf_sim_get_stats(s);
  double wall = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  printf("mu %.2f, %dx%d nodes, updates %d, friction budget %d, %s: %ld steps (%ld in contact), %.2f "
         "iterations/step, %ld %s, %ld factorizations, %ld updates, %ld analyses, rows in %ld out %ld, min "
         "clearance %.3g m; %.3f s, q %.3g\n",
         d.mu, d.n, d.n, cp.updates, cp.friction_budget, cp.solver == CF_CONTACT_IPOPT ? "ipopt" : "active set",
         st.steps, st.contact_steps, (double)st.iterations / (st.steps ? st.steps : 1), st.active_set_iterations,
         cp.solver == CF_CONTACT_IPOPT ? "interior-point iterations" : "active-set solves", st.contact_factorizations,
         st.contact_updates, st.contact_analyses, st.rows_in, st.rows_out, st.min_clearance, wall,
         wall / (200 * p.dt));
  cf_sim_free(s);
  cf_mesh_free(m);
  return rc ? 1 : 0;
}
