/* test_contact_qp.c — the active set against the interior-point baseline
 * (issue 14 acceptance 4; thesis §3.5, Table 4.8).
 *
 * 1. Recorded QPs: four contact scenarios run with the active set (a 7×9 A2
 *    sheet dropped on a table; dropped on a sphere above a floor; laid on a
 *    plane inclined beyond its friction angle, so the QPs carry friction
 *    displacements u; dropped on a box it wraps around) and record QPs (3.4)
 *    through cf_contact_params.observe, with the active set's solution.  Each
 *    QP is solved again by Ipopt (qp_ipopt.c, tolerance 1e-12: at the
 *    simulation's 1e-10 Ipopt's own error reached 4.6e-7 relative on the
 *    smallest QPs, the active set's 7.6e-9); on at least 100 of them:
 *    ‖Δ_as − Δ_ip‖ ≤ 1e-6 ‖Δ_as‖ (2-norms over all nodes), the same active
 *    set (the pairs whose impulse moves their node by more than 1e-4 ε1, the
 *    test both solvers use), and each solution is feasible (metric rows to
 *    1e-9 m, contact rows to 1e-4 ε1).
 * 2. Whole runs: the table drop simulated with solver = ipopt ends within
 *    1e-6 m of the active set's run, node by node, with the same contacts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "contact.h"
#include "qp.h"
#include "testutil.h"

#define MAX_QPS 400

typedef struct { /* a deep copy of one observed QP and its solution */
  cf_qp qp;
  double *invm, *u, *C, *J, *H, *N, *dx, *gam, *hw;
  int *jrow, *jnode, *hn, *hnode;
} rec;

static rec recs[MAX_QPS];
static int n_recs, every = 1, seen;

static void *dup(const void *p, size_t size) {
  void *q = malloc(size ? size : 1);
  if (q && size) memcpy(q, p, size);
  return q;
}

static void observe(const cf_qp *qp, const double *dx, const double *gamma, void *ctx) {
  (void)ctx;
  if (seen++ % every || n_recs >= MAX_QPS) return;
  rec *r = recs + n_recs++;
  size_t n = (size_t)qp->n, nj = (size_t)qp->nj, ni = (size_t)qp->ni, ne = (size_t)qp->ne;
  r->invm = dup(qp->invm, n * sizeof(double));
  r->u = dup(qp->u, 3 * n * sizeof(double));
  r->C = dup(qp->C, ne * sizeof(double));
  r->jrow = dup(qp->jrow, nj * sizeof(int));
  r->jnode = dup(qp->jnode, nj * sizeof(int));
  r->J = dup(qp->J, 3 * nj * sizeof(double));
  r->H = dup(qp->H, ni * sizeof(double));
  r->hn = dup(qp->hn, ni * sizeof(int));
  r->hnode = dup(qp->hnode, CF_QP_HMAX * ni * sizeof(int));
  r->hw = dup(qp->hw, CF_QP_HMAX * ni * sizeof(double));
  r->N = dup(qp->N, 3 * ni * sizeof(double));
  r->dx = dup(dx, 3 * n * sizeof(double));
  r->gam = dup(gamma, ni * sizeof(double));
  r->qp = (cf_qp){.n = qp->n, .invm = r->invm, .u = r->u, .ne = qp->ne, .nj = qp->nj, .C = r->C,
                  .jrow = r->jrow, .jnode = r->jnode, .J = r->J, .ni = qp->ni, .H = r->H, .hn = r->hn,
                  .hnode = r->hnode, .hw = r->hw, .N = r->N};
}

static void rec_free(rec *r) {
  free(r->invm), free(r->u), free(r->C), free(r->J), free(r->H), free(r->N), free(r->dx), free(r->gam);
  free(r->jrow), free(r->jnode), free(r->hn), free(r->hnode), free(r->hw);
}

static cf_mesh *sheet(double z, const double *tilt) {
  double o[3] = {-0.21, -0.297, z}, u[3] = {0.42, 0, 0}, v[3] = {0, 0.594, 0};
  if (tilt) { /* laid on the inclined plane: x along the slope */
    for (int d = 0; d < 3; d++) u[d] = 0.42 * tilt[d], o[d] = 2.0001e-3 * tilt[3 + d];
    o[1] = -0.297;
  }
  return cf_mesh_grid(7, 9, o, u, v, 1);
}

/* Simulate a free sheet with the obstacles for `steps` steps with the given
 * solver; the end positions into xend[3·63] (may be NULL); returns the
 * contacts at the end, or -1 on failure. */
static int run(cf_mesh *m, const cf_obstacle *o, int n_obs, int steps, cf_contact_solver solver, int record,
               double *xend, const char *what) {
  cf_params p;
  cf_params_default(&p);
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.solver = solver;
  if (record) cp.observe = observe;
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, NULL, 0, &err);
  int rc = s ? cf_sim_set_obstacles(s, o, n_obs, &cp, &err) : CF_ENOMEM;
  for (int k = 1; k <= steps && rc == CF_OK; k++) rc = cf_sim_step(s, NULL, &err);
  CHECK(rc == CF_OK, "%s (%s): %s", what, solver == CF_CONTACT_IPOPT ? "ipopt" : "active set", err.msg);
  int active = rc == CF_OK ? cf_sim_get_stats(s).last_contacts : -1;
  if (rc == CF_OK && xend) memcpy(xend, cf_sim_x(s), sizeof(double) * 3 * m->n_nodes);
  cf_sim_free(s);
  return active;
}

static void record_scenarios(void) {
  cf_obstacle t, sph[2], pl, box[2];
  cf_obstacle_init(&t, cf_obstacle_table);
  t.c[2] = 0.75, t.h[0] = 0.5, t.h[1] = 0.5, t.h[2] = 0.03, t.mu = 0.3;
  cf_obstacle_init(sph, cf_obstacle_sphere);
  sph[0].c[2] = 0.5, sph[0].r = 0.15, sph[0].mu = 0.3;
  cf_obstacle_init(sph + 1, cf_obstacle_plane);
  sph[1].mu = 0.3;
  double th = atan(0.55), slope[6] = {cos(th), 0, sin(th), -sin(th), 0, cos(th)};
  cf_obstacle_init(&pl, cf_obstacle_plane);
  memcpy(pl.a, slope + 3, 3 * sizeof(double));
  pl.mu = 0.5;
  cf_obstacle_init(box, cf_obstacle_box);
  box[0].c[0] = 0.1, box[0].c[2] = 0.4, box[0].h[0] = 0.1, box[0].h[1] = 0.2, box[0].h[2] = 0.1, box[0].mu = 0.2;
  cf_obstacle_init(box + 1, cf_obstacle_plane);
  /* a stick between two node columns (x = 0 and 0.07): edge rows.  Not
   * parallel to them, nor half-way: a flat sheet landing on a stick at
   * x = 0.035 along y touches each side and the diagonal across it at
   * their midpoints at once, rows with zero slack whose multipliers are
   * not unique (0 for the active set, 1e-8 for Ipopt's central path: the
   * same solution to 5.6e-7, a different "active set") */
  cf_obstacle stk[2];
  cf_obstacle_init(stk, cf_obstacle_stick);
  stk[0].a[0] = 0.05 / hypot(0.05, 1), stk[0].a[1] = 1 / hypot(0.05, 1), stk[0].a[2] = 0;
  stk[0].len = 0.5, stk[0].c[0] = 0.031, stk[0].c[2] = 0.6, stk[0].mu = 0.3;
  cf_obstacle_init(stk + 1, cf_obstacle_plane);
  struct {
    const char *what;
    cf_mesh *m;
    const cf_obstacle *o;
    int n_obs, steps, every;
  } sc[] = {{"table", sheet(0.85, NULL), &t, 1, 60, 3},
            {"sphere and floor", sheet(0.7, NULL), sph, 2, 80, 4},
            {"inclined plane, mu 0.5, tan 0.55", sheet(0, slope), &pl, 1, 40, 2},
            {"box and floor", sheet(0.55, NULL), box, 2, 80, 4},
            {"stick and floor", sheet(0.65, NULL), stk, 2, 60, 3}};
  for (size_t q = 0; q < sizeof sc / sizeof *sc; q++) {
    int before = n_recs;
    every = sc[q].every, seen = 0;
    run(sc[q].m, sc[q].o, sc[q].n_obs, sc[q].steps, CF_CONTACT_ACTIVE_SET, 1, NULL, sc[q].what);
    printf("%s: %d QPs observed, %d recorded\n", sc[q].what, seen, n_recs - before);
    cf_mesh_free(sc[q].m);
  }
}

/* Pairs whose impulse moves their node by more than the active set's
 * tolerance (ε1 = 1e-5 m, the default). */
static int active(const cf_qp *qp, const double *gam, int k) {
  return gam[k] * cf_qp_contact_reach(qp, k) > CF_CONTACT_AS_TOL * 1e-5;
}

static void compare_recorded(void) {
  int agree = 0, friction = 0, contacts = 0, edges = 0;
  double worst = 0;
  for (int q = 0; q < n_recs; q++) {
    const cf_qp *qp = &recs[q].qp;
    double *dx = malloc(sizeof(double) * 3 * qp->n), *gam = malloc(sizeof(double) * (qp->ni + 1));
    cf_error err = {0, ""};
    int its = 0, rc = cf_qp_solve_ipopt(qp, 1e-12, dx, gam, &its, &err);
    CHECK(rc == CF_OK, "QP %d: %s", q, err.msg);
    if (rc == CF_OK) {
      double d2 = 0, a2 = 0;
      for (int v = 0; v < 3 * qp->n; v++) {
        d2 += (dx[v] - recs[q].dx[v]) * (dx[v] - recs[q].dx[v]);
        a2 += recs[q].dx[v] * recs[q].dx[v];
      }
      double rel = sqrt(d2 / a2);
      int same = 1, na = 0, ne = 0;
      for (int k = 0; k < qp->ni; k++) {
        same &= active(qp, gam, k) == active(qp, recs[q].gam, k);
        na += active(qp, recs[q].gam, k);
        ne += qp->hn[k] == 2 && active(qp, recs[q].gam, k);
      }
      edges += ne > 0;
      cf_qp_residuals ra, ri;
      cf_qp_residuals_eval(qp, recs[q].dx, recs[q].gam, &ra);
      cf_qp_residuals_eval(qp, dx, gam, &ri);
      double tin = CF_CONTACT_AS_TOL * 1e-5;
      int fa = ra.eq <= 1e-9 && ra.in <= tin && ri.eq <= 1e-9 && ri.in <= tin;
      if (rel > worst) worst = rel;
      if (rel <= 1e-6 && same && fa) agree++;
      else {
        double gmin = INFINITY, smin = INFINITY, gmin_i = INFINITY;
        for (int k = 0; k < qp->ni; k++) {
          double sl = cf_qp_contact_row(qp, k, recs[q].dx), g = recs[q].gam[k] * cf_qp_contact_reach(qp, k);
          if (g != 0) gmin = fmin(gmin, g); else smin = fmin(smin, sl);
          double gi = gam[k] * cf_qp_contact_reach(qp, k);
          if (gi > 1e-12) gmin_i = fmin(gmin_i, gi);
        }
        printf("   as: min multiplier disp %.3g, min inactive slack %.3g; ipopt min positive mult %.3g\n", gmin, smin, gmin_i);
        printf("QP %d: relative difference %.3g, same active set %d (%d active), eq %.3g / %.3g m, "
               "in %.3g / %.3g m, objective %.10g / %.10g, %d Ipopt iterations\n",
               q, rel, same, na, ra.eq, ri.eq, ra.in, ri.in, ra.objective, ri.objective, its);
      }
      double umax = 0;
      for (int v = 0; v < 3 * qp->n; v++) umax = fmax(umax, fabs(qp->u[v]));
      friction += umax > 0;
      contacts += na > 0;
    }
    free(dx);
    free(gam);
  }
  printf("%d of %d recorded QPs agree (%d with friction displacements, %d with active contacts, %d with "
         "active edge-stick rows); largest relative difference %.3g\n", agree, n_recs, friction, contacts, edges,
         worst);
  CHECK(n_recs >= 100, "only %d QPs recorded", n_recs);
  CHECK(agree == n_recs, "%d of %d QPs differ", n_recs - agree, n_recs);
  CHECK(friction >= 20 && contacts >= 80 && edges >= 10, "%d QPs with friction, %d with contacts, %d with edge "
        "rows: too few", friction, contacts, edges);
}

static void compare_runs(void) {
  cf_obstacle t;
  cf_obstacle_init(&t, cf_obstacle_table);
  t.c[2] = 0.75, t.h[0] = 0.5, t.h[1] = 0.5, t.h[2] = 0.03, t.mu = 0.3;
  cf_mesh *m = sheet(0.85, NULL);
  double xa[3 * 63], xi[3 * 63], d = 0;
  int ca = run(m, &t, 1, 60, CF_CONTACT_ACTIVE_SET, 0, xa, "table run");
  int ci = run(m, &t, 1, 60, CF_CONTACT_IPOPT, 0, xi, "table run");
  for (int v = 0; v < 3 * 63; v++) d = fmax(d, fabs(xa[v] - xi[v]));
  printf("table, 60 steps: contacts %d (active set) and %d (ipopt), positions differ by %.3g m\n", ca, ci, d);
  CHECK(ca == ci && ca > 0, "contacts at the end: %d against %d", ca, ci);
  CHECK(d <= 1e-6, "end positions differ by %.3g m", d);
  cf_mesh_free(m);
}

int main(void) {
  if (!cf_qp_have_ipopt()) {
    fprintf(stderr, "test_contact_qp: this build has no Ipopt (coinor-libipopt-dev)\n");
    return 1;
  }
  record_scenarios();
  compare_recorded();
  compare_runs();
  for (int q = 0; q < n_recs; q++) rec_free(recs + q);
  return cf_test_done("test_contact_qp");
}
