/* test_threads.c — a simulation on two threads (cf_params.threads = 2,
 * team.c) gives bitwise the trajectories of one thread:
 * - a 40x40 A2 sheet (large enough for the split loops: its projection
 *   factorization costs >= 1e8 flops) with 1 mm of out-of-plane noise,
 *   its top corners shaken, 40 steps on one and on two threads: the
 *   positions are identical after every step, the constraints hold, the
 *   two-thread run reports 2 threads and the small A2 mesh 1 (it never
 *   starts a second one);
 * - the split single-precision solve (spchol.c) with a team equals the one
 *   without, bit for bit, and matches the double-precision solve;
 * - threads = 0 is refused with a message naming the parameter. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "spchol.h"
#include "team.h"
#include "testutil.h"

enum { N = 40, STEPS = 40 };

static cf_mesh *sheet(int nx, int ny) {
  const double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  cf_mesh *m = cf_mesh_grid(nx, ny, o, u, v, 1);
  uint64_t z = 20240601ULL;
  for (int i = 0; i < m->n_nodes; i++) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    m->x[3 * i + 1] += 1e-3 * ((double)(z >> 11) / 9007199254740992.0 * 2 - 1);
  }
  cf_error err;
  CHECK(cf_mesh_finalize(m, &err) == CF_OK, "mesh: %s", err.msg);
  return m;
}

/* Positions after every step into traj[STEPS][3n]; returns the stats. */
static cf_sim_stats run(int nx, int ny, int threads, int steps, double *traj) {
  cf_mesh *m = sheet(nx, ny);
  cf_params p;
  cf_params_default(&p);
  p.threads = threads;
  int kin[2] = {(ny - 1) * nx, ny * nx - 1};
  double k0[6], kp[6];
  for (int k = 0; k < 2; k++) memcpy(k0 + 3 * k, m->x + 3 * kin[k], 3 * sizeof(double));
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  CHECK(s != NULL, "cf_sim_alloc (%d threads): %s", threads, err.msg);
  cf_sim_stats st = {0};
  if (!s) {
    cf_mesh_free(m);
    return st;
  }
  const cf_drive d = {CF_DRIVE_SHAKE, 0.075, 0.6, {0, 1, 0}};
  size_t n3 = 3 * (size_t)m->n_nodes;
  for (int k = 1; k <= steps; k++) {
    cf_drive_eval(&d, 2, k0, k * p.dt, kp);
    if (cf_sim_step(s, kp, &err)) {
      CHECK(0, "step %d (%d threads): %s", k, threads, err.msg);
      break;
    }
    if (traj) memcpy(traj + (size_t)(k - 1) * n3, cf_sim_x(s), sizeof(double) * n3);
  }
  st = cf_sim_get_stats(s);
  cf_sim_free(s);
  cf_mesh_free(m);
  return st;
}

static void check_sim(void) {
  size_t n3 = 3 * (size_t)N * N;
  double *t1 = calloc(n3 * STEPS, sizeof(double)), *t2 = calloc(n3 * STEPS, sizeof(double));
  cf_sim_stats s1 = run(N, N, 1, STEPS, t1), s2 = run(N, N, 2, STEPS, t2);
  CHECK(s1.threads == 1 && s2.threads == 2, "threads used: %d and %d, expected 1 and 2", s1.threads,
        s2.threads);
  CHECK(s1.steps == STEPS && s2.steps == STEPS, "steps done: %ld and %ld", s1.steps, s2.steps);
  CHECK(s2.cg_iterations > 0, "the 40x40 sheet took no preconditioned CG steps");
  for (int k = 0; k < STEPS; k++)
    if (memcmp(t1 + k * n3, t2 + k * n3, sizeof(double) * n3)) {
      CHECK(0, "step %d: positions differ between 1 and 2 threads", k + 1);
      break;
    }
  CHECK(s1.iterations == s2.iterations && s1.factorizations == s2.factorizations &&
            s1.cg_iterations == s2.cg_iterations,
        "iteration counts differ: %ld/%ld/%ld and %ld/%ld/%ld", s1.iterations, s1.factorizations,
        s1.cg_iterations, s2.iterations, s2.factorizations, s2.cg_iterations);
  CHECK(s2.max_violation <= 1e-3, "max violation %g", s2.max_violation);
  printf("40x40, %d steps: bitwise equal on 1 and 2 threads (%ld iterations, %ld CG, %ld factorizations)\n",
         STEPS, s2.iterations, s2.cg_iterations, s2.factorizations);
  cf_sim_stats small = run(7, 9, 2, 5, NULL);
  CHECK(small.threads == 1, "the 7x9 mesh runs on %d threads", small.threads);
  free(t1);
  free(t2);
}

/* Upper triangle of a 9-point stencil (3 unknowns per grid point coupled
 * to all 3 of each neighbour, like the E/F/G rows), diagonally dominant. */
static void check_solve(void) {
  enum { NX = 60, NY = 60, NV = 3 * NX * NY };
  cholmod_common cc;
  cholmod_start(&cc);
  cc.print = 0;
  cholmod_sparse *P = cholmod_allocate_sparse(NV, NV, 60 * (size_t)NV, 1, 1, 1, CHOLMOD_PATTERN, &cc);
  int *Pp = P->p, *Pi = P->i, q = 0;
  for (int j = 0; j < NV; j++) {
    Pp[j] = q;
    int gj = j / 3, xj = gj % NX, yj = gj / NX;
    for (int i = 0; i <= j; i++) {
      int gi = i / 3, xi = gi % NX, yi = gi / NX;
      if (abs(xi - xj) <= 1 && abs(yi - yj) <= 1) Pi[q++] = i;
    }
    if (j > 3 * NX + 6) { /* the scan above is quadratic: skip far rows from now on */
      q = Pp[j];
      for (int i = j - 3 * NX - 6 < 0 ? 0 : j - 3 * NX - 6; i <= j; i++) {
        int gi = i / 3, xi = gi % NX, yi = gi / NX;
        if (abs(xi - xj) <= 1 && abs(yi - yj) <= 1) Pi[q++] = i;
      }
    }
  }
  Pp[NV] = q;
  cf_spchol *f = cf_spchol_alloc(P, &cc);
  CHECK(f != NULL, "analysis failed");
  if (!f) return;
  double *A = cf_spchol_values(f);
  unsigned long long r = 99;
  for (int j = 0; j < NV; j++)
    for (int k = Pp[j]; k < Pp[j + 1]; k++)
      A[cf_spchol_pos(f, Pi[k], j)] = Pi[k] == j ? 40 : cf_test_rand(&r);
  CHECK(cf_spchol_keep_single(f) == 0, "no single-precision copy (simplicial factor?)");
  CHECK(cf_spchol_factor(f, 0, &cc) == 0, "factorization failed");
  CHECK(cf_spchol_single_parts(f) == 2, "the single-precision solve is not split in two parts");
  double *b = malloc(sizeof(double) * NV), *x0 = malloc(sizeof(double) * NV),
         *x1 = malloc(sizeof(double) * NV), *x2 = malloc(sizeof(double) * NV);
  for (int i = 0; i < NV; i++) b[i] = cf_test_rand(&r);
  cf_team *t = cf_team_alloc();
  CHECK(t != NULL, "cannot start the helper thread");
  cf_spchol_solve(f, b, x0, &cc);
  for (int rep = 0; rep < 3; rep++) {
    cf_spchol_solve_single(f, b, x1, NULL);
    cf_spchol_solve_single(f, b, x2, t);
    CHECK(!memcmp(x1, x2, sizeof(double) * NV), "split solve differs with the team (repeat %d)", rep);
  }
  double dmax = 0, xmax = 0;
  for (int i = 0; i < NV; i++) {
    dmax = fmax(dmax, fabs(x1[i] - x0[i]));
    xmax = fmax(xmax, fabs(x0[i]));
  }
  CHECK(dmax <= 1e-5 * xmax, "single solve off by %g (max |x| %g)", dmax, xmax);
  cf_team_free(t);
  cf_spchol_free(f, &cc);
  cholmod_free_sparse(&P, &cc);
  cholmod_finish(&cc);
  free(b);
  free(x0);
  free(x1);
  free(x2);
}

int main(void) {
  cf_runtime_init();
  cf_params p;
  cf_params_default(&p);
  p.threads = 0;
  cf_error err = {0, ""};
  CHECK(cf_params_check(&p, &err) == CF_EINVAL && strstr(err.msg, "threads"), "threads = 0 accepted: '%s'",
        err.msg);
  check_solve();
  check_sim();
  return cf_test_done("test_threads");
}
