/* test_contact_exchange.c — the exchange of Remark 3.5.2 (thesis §3.5):
 * a pair outside the working set W whose linearized row the increment
 * violates, but whose gradient is a combination of W's, enters W in place
 * of the contact row of W with the greatest |α| (contact_system.c).
 *
 * A 7x9 A2 sheet lies at rest on a fixed table top at z = 0.75 while a
 * second obstacle rises from below through that top at 0.1 m/s and lifts
 * it (0.5 s, 50 steps, μ = 0):
 * 1. a table of the same extent, top at 0.73 + 0.1 t: above the fixed one
 *    after 0.2 s.  Every node's two rows have the same gradient e_z.  At the
 *    end of the step to t = 0.2 s both tops are at 0.75, so the warm start
 *    puts both rows of every node in W; the next factorization finds one of
 *    each pair dependent (Remark 3.5.3) and it leaves W: the rising table's,
 *    whose row the increment then violates by the 1 mm the table rose since.
 *    Lemma 1 does not apply (the rows are not combinations of each other,
 *    only their gradients): it must enter in place of the fixed table's
 *    (α = 1).
 * 2. a stick (radius 7.5 mm, along y, between two node columns, at 0.031 m
 *    from one and 0.039 m from the other), its top through 0.75 at 0.2 s:
 *    its rows are those of the edges across it, whose gradients w0 e_z,
 *    w1 e_z at their two nodes are combinations of those nodes' table rows
 *    (α = w0, w1) while the sheet is flat.
 *
 * Asserted for both: every step converges, one projection iteration each;
 * at every step every node at least τ0 − ε1 from every obstacle and every
 * collision edge (quad sides and the diagonal from the first node) at least
 * r + τ0 − ε1 − CF_EDGE_END × its length from the stick's axis (measured
 * from the positions; the allowance: edges whose closest point is that near
 * a node are held by the node), the metric rows within tol; every QP (3.4)
 * the active set returned satisfies its linearized contact rows to the
 * active set's tolerance (observed through cf_contact_params.observe); the
 * exchange happened (cf_sim_stats.contact_exchanges > 0); with Ipopt (when
 * the build has it) the same end positions, within 1e-6 m for 1 and 2e-5 m
 * for 2.
 * Without the exchange (f52636a: the dependent row dropped for the
 * iteration) the step to t = 0.21 s returned a QP solution violating the
 * rising obstacle's rows by 1 mm and needed a second iteration; in 1 the end
 * positions were Ipopt's all the same, in 2 the two-stage projection of that
 * step put the sheet on another path: 5.09e-4 m off Ipopt's at the end
 * (with the exchange 2.48e-6 m). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cf_sim.h"
#include "contact.h"
#include "qp.h"
#include "testutil.h"

static double qp_worst; /* max over the observed QPs of −(H_k + ∇H_k·Δφ), m */
static int qp_seen;

static void observe(const cf_qp *qp, const double *dx, const double *gamma, void *ctx) {
  (void)ctx;
  cf_qp_residuals res;
  cf_qp_residuals_eval(qp, dx, gamma, &res);
  qp_worst = fmax(qp_worst, res.in);
  qp_seen++;
}

typedef struct {
  int steps;
  double node_clear, edge_clear, viol;
  double x[3 * 63];
  cf_sim_stats st;
} run_result;

/* The sheet on the fixed table t[0] with the rising obstacle t[1]. */
static run_result run(const cf_obstacle *t, cf_contact_solver solver, const char *what) {
  run_result rr;
  memset(&rr, 0, sizeof rr);
  rr.node_clear = rr.edge_clear = INFINITY;
  double o[3] = {-0.21, -0.297, 0.752}, u[3] = {0.42, 0, 0}, v[3] = {0, 0.594, 0};
  cf_mesh *m = cf_mesh_grid(7, 9, o, u, v, 1);
  cf_params p;
  cf_params_default(&p);
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.solver = solver;
  if (solver == CF_CONTACT_ACTIVE_SET) cp.observe = observe;
  qp_worst = 0, qp_seen = 0;
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, NULL, 0, &err);
  CHECK(s && cf_sim_set_obstacles(s, t, 2, &cp, &err) == CF_OK, "%s: %s", what, err.msg);
  for (int k = 1; k <= 50 && s; k++) {
    if (cf_sim_step(s, NULL, &err)) {
      CHECK(0, "%s: step %d: %s", what, k, err.msg);
      break;
    }
    rr.steps = k;
    const double *x = cf_sim_x(s);
    double tm = cf_sim_time(s), e0[3], e1[3];
    for (int i = 0; i < m->n_nodes; i++)
      for (int q = 0; q < 2; q++)
        rr.node_clear = fmin(rr.node_clear, cf_obstacle_distance(t + q, tm, x + 3 * i, NULL) - cp.thickness);
    if (cf_obstacle_segment(t + 1, tm, e0, e1))
      for (int el = 0; el < m->n_elems; el++)
        for (int a = 0; a < 4; a++)
          for (int b = a + 1; b < 4; b++) {
            if (a == 1 && b == 3) continue; /* the other diagonal: not a collision edge */
            const double *pa = x + 3 * m->elems[4 * el + a], *pb = x + 3 * m->elems[4 * el + b];
            double sp, up, len = sqrt((pb[0] - pa[0]) * (pb[0] - pa[0]) + (pb[1] - pa[1]) * (pb[1] - pa[1]) +
                                      (pb[2] - pa[2]) * (pb[2] - pa[2]));
            double d = cf_segment_closest(pa, pb, e0, e1, &sp, &up);
            rr.edge_clear = fmin(rr.edge_clear, d - t[1].r - cp.thickness + 1e-2 * len);
          }
    rr.viol = fmax(rr.viol, cf_model_violation(cf_sim_model(s), x));
  }
  if (s) {
    rr.st = cf_sim_get_stats(s);
    memcpy(rr.x, cf_sim_x(s), sizeof rr.x);
  }
  printf("%s: %d steps, node clearance %.3g m, edge clearance %.3g m, max violation %.3g; contact steps %ld, "
         "iterations %ld, active-set solves %ld, rows in %ld out %ld, dependent %ld, exchanges %ld",
         what, rr.steps, rr.node_clear, rr.edge_clear, rr.viol, rr.st.contact_steps, rr.st.contact_iterations,
         rr.st.active_set_iterations, rr.st.rows_in, rr.st.rows_out, rr.st.contact_dependent,
         rr.st.contact_exchanges);
  if (solver == CF_CONTACT_ACTIVE_SET)
    printf("; %d QPs, worst linearized contact row at their solutions %.3g m", qp_seen, qp_worst);
  printf("\n");
  cf_sim_free(s);
  cf_mesh_free(m);
  return rr;
}

static void scenario(const cf_obstacle *t, double ipopt_bound, const char *what) {
  const double eps_h = 1e-5, tol = 1e-3; /* the defaults */
  run_result a = run(t, CF_CONTACT_ACTIVE_SET, what);
  CHECK(a.steps == 50, "%s: %d of 50 steps", what, a.steps);
  CHECK(a.node_clear >= -eps_h && a.edge_clear >= -eps_h, "%s: node clearance %.3g m, edge clearance %.3g m",
        what, a.node_clear, a.edge_clear);
  CHECK(a.viol <= tol, "%s: max metric violation %.3g", what, a.viol);
  CHECK(qp_seen > 0 && qp_worst <= CF_CONTACT_AS_TOL * eps_h,
        "%s: a QP's solution violates a contact row by %.3g m", what, qp_worst);
  CHECK(a.st.contact_exchanges > 0, "%s: no exchange (%ld dependent rows)", what, a.st.contact_dependent);
  CHECK(a.st.contact_iterations == a.st.contact_steps, "%s: %ld iterations in %ld contact steps", what,
        a.st.contact_iterations, a.st.contact_steps);
  if (!cf_qp_have_ipopt()) return;
  char w[96];
  snprintf(w, sizeof w, "%s, Ipopt", what);
  run_result b = run(t, CF_CONTACT_IPOPT, w);
  double d = 0;
  for (int q = 0; q < 3 * 63; q++) d = fmax(d, fabs(a.x[q] - b.x[q]));
  printf("%s: end positions of the active set and Ipopt %.3g m apart\n", what, d);
  CHECK(b.steps == 50 && d <= ipopt_bound, "%s: %d Ipopt steps, end positions %.3g m apart", what, b.steps, d);
}

int main(void) {
  cf_obstacle t[2];
  cf_obstacle_init(t, cf_obstacle_table);
  t[0].c[2] = 0.75, t[0].h[0] = 0.5, t[0].h[1] = 0.5, t[0].h[2] = 0.03;
  t[1] = t[0];
  t[1].c[2] = 0.73, t[1].vel[2] = 0.1;
  scenario(t, 1e-6, "rising table");
  cf_obstacle_init(t + 1, cf_obstacle_stick);
  t[1].a[0] = 0, t[1].a[1] = 1, t[1].a[2] = 0, t[1].len = 0.8; /* c ± len a: longer than the sheet */
  t[1].c[0] = 0.031, t[1].c[2] = 0.73 - t[1].r, t[1].vel[2] = 0.1;
  scenario(t, 2e-5, "rising stick");
  return cf_test_done("test_contact_exchange");
}
