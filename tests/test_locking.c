/* Locking test (thesis §2.7.1, issue 2 acceptance 4, issue 15 acceptance
 * 2): a horizontal 1 m x 1 m sheet with 3 mm of Gaussian noise on its nodes
 * (the rest state), three corners fixed, the fourth falls; kappa = 1e-4,
 * alpha = 2, dt = 1 ms (the per-step violation grows like g dt^2 / h, and
 * these elements are 3-5 cm), 6 s, rho = delta = 0.1.
 *
 * Meshes: irregular near-equilateral triangles of 471 and 912 nodes
 * (cf_mesh_square_hex: the thesis' Fig. 2.4 has 472 and 941), over the
 * noise seeds 3, 5, 7, 11 and 23; and the regular quad grids 23 x 23 and
 * 30 x 30 (529, 900 nodes) on seed 7.  Asserted for every run: the sheet
 * folds diagonally without locking (the free corner ends more than 0.6 m
 * below the fixed ones; a flap hinged on the diagonal would hang 0.71 m),
 * it is at rest (the corner moved < 5 mm over the last second), the
 * constraints hold (violation <= 1e-3).  For every seed: the two triangle
 * meshes' free corners lie within 5 cm of each other (thesis Table 2.2:
 * 1.4-3.7 cm).  Twelve simulations on two worker processes.
 *
 * What is NOT asserted, and why: that the quad grids' corners lie within
 * 5 cm of the triangles'.  They do not, on every seed: the quads fold
 * along their diagonal only through the slack the noise gives each element
 * (a bilinear quad creased on its diagonal changes its metric; docs/
 * locking.md §2), so where their corner ends depends on the noise and on
 * the rounding at the 5 cm level: with the triangles of this test, 3.1-9.2
 * cm over the five seeds (§9), and with finer quads (35 x 35, 40 x 40)
 * still up to 10.9 cm (§12).  Issue 15 acceptance 2 is therefore met for
 * the triangle meshes only; the quads' distance to the triangles is
 * printed, and the fix belongs in the discretisation of the constraints,
 * not in this test's limit.
 *
 * Why these triangles: the jittered square lattice of cf_mesh_square_tri
 * (right triangles cut along random diagonals, valence 4-8), which this
 * test used before, stiffens under refinement (its 1681- and 2601-node
 * corners hang 13 and 26 cm out from the 484-node one, §5), and its 484-
 * and 961-node corners were 7.42 cm apart on seed 7 with OpenBLAS's Zen
 * kernels (4.95 cm with Cooper Lake's), 5.2-14.6 cm over the five seeds
 * (§1).  The near-equilateral triangles of valence ~6 converge (1863 nodes
 * within 1.1-1.4 cm of 912, §9).  Measured with bench/locking_scan (meshes
 * 10 and 11 are this test's triangles; docs/locking.md §9, §12), on an AMD
 * EPYC.  Since 2026-11-27 these meshes take the projection's inexact Newton
 * steps (projection.h: the threshold is chosen by speed, not by this
 * test): the largest distance of the pair over the five seeds is 4.03 cm
 * with the Zen and the Haswell kernels (seed 5) and 4.13 cm with
 * OPENBLAS_CORETYPE=Sandybridge (seed 23), and the test FAILS with Nehalem's
 * (seed 23: 5.53 cm) and Prescott's (two runs still moving after 6 s);
 * with the chord steps all five kernel sets passed (4.06 cm at most).  The
 * fold comes to rest in a nearly neutral family of states (kappa = 1e-4)
 * and where it stops follows the rounding at the 1-3 cm level
 * (docs/locking.md §18).  bench/locking_kernels.sh runs this test with
 * several kernel sets.  The figures of every run are printed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "forkmap.h"
#include "testutil.h"

enum { NSEED = 5, NRUN = 2 * NSEED + 2 };
static const unsigned long long seeds[NSEED] = {3, 5, 7, 11, 23};

typedef struct {
  double corner[3], moved_last_s, max_violation;
  int nodes, ok;
  char msg[256];
} lock_result;

static void add_noise(cf_mesh *m, unsigned long long seed) {
  for (int i = 0; i < 3 * m->n_nodes; i++) {
    double u1 = 0.5 * (cf_test_rand(&seed) + 1) + 1e-300, u2 = 0.5 * (cf_test_rand(&seed) + 1);
    m->x[i] += 0.003 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
  }
}

static int nearest(const cf_mesh *m, double x, double y) {
  int best = 0;
  for (int i = 1; i < m->n_nodes; i++)
    if (hypot(m->x[3 * i] - x, m->x[3 * i + 1] - y) < hypot(m->x[3 * best] - x, m->x[3 * best + 1] - y))
      best = i;
  return best;
}

/* Mesh 0, 1: triangles of 471 and 912 nodes (bench/locking_scan meshes 10
 * and 11); 2, 3: quads 23 x 23 and 30 x 30. */
static cf_mesh *make_mesh(int which) {
  double o[3] = {0, 0, 0}, u[3] = {1, 0, 0}, v[3] = {0, 1, 0};
  switch (which) {
    case 0: return cf_mesh_square_hex(1.0, 20, 0.15, 60, 0);
    case 1: return cf_mesh_square_hex(1.0, 28, 0.15, 61, 0);
    case 2: return cf_mesh_grid(23, 23, o, u, v, 1);
    default: return cf_mesh_grid(30, 30, o, u, v, 1);
  }
}

/* Run i: mesh and seed (index into seeds).  The 912-node runs cost several
 * times the others (11316 factorizations on seed 7 against 3339 for the
 * 471-node mesh), and the workers take the runs round robin (even i, odd
 * i), so each worker gets 912-node runs and cheaper ones.  The whole test:
 * 6 min 49 s of CPU, 3 min 26 s on an idle 2-core machine. */
static const int runs[NRUN][2] = {{1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}, {2, 2},
                                  {0, 0}, {3, 2}, {0, 2}, {0, 1}, {0, 4}, {0, 3}};

static void run_of(int i, int *mesh, unsigned long long *seed) { *mesh = runs[i][0], *seed = seeds[runs[i][1]]; }

/* The run of mesh `which` with seed index k. */
static const lock_result *find_run(const lock_result *r, int which, int k) {
  for (int i = 0; i < NRUN; i++)
    if (runs[i][0] == which && runs[i][1] == k) return &r[i];
  return NULL;
}

static void run_mesh(int i, void *out) {
  lock_result *r = out;
  int which;
  unsigned long long seed;
  run_of(i, &which, &seed);
  cf_mesh *m = make_mesh(which);
  add_noise(m, seed);
  cf_error err;
  if (cf_mesh_finalize(m, &err)) {
    snprintf(r->msg, sizeof r->msg, "%.255s", err.msg);
    cf_mesh_free(m);
    return;
  }
  int kin[3] = {nearest(m, 0, 0), nearest(m, 1, 0), nearest(m, 0, 1)}, c = nearest(m, 1, 1);
  cf_params p;
  cf_params_default(&p);
  p.rho = p.delta = 0.1;
  p.alpha = 2;
  p.kappa = 1e-4;
  p.dt = 0.001;
  cf_sim *s = cf_sim_alloc(m, &p, kin, 3, &err);
  r->nodes = m->n_nodes;
  int steps = 6000, rc = s ? CF_OK : err.code;
  double at5[3] = {0};
  for (int k = 1; rc == CF_OK && k <= steps; k++) {
    rc = cf_sim_step(s, NULL, &err);
    if (k == steps - 1000) memcpy(at5, cf_sim_x(s) + 3 * c, sizeof at5);
  }
  if (rc == CF_OK) {
    const double *x = cf_sim_x(s);
    for (int d = 0; d < 3; d++) r->corner[d] = x[3 * c + d];
    r->moved_last_s = sqrt(pow(at5[0] - x[3 * c], 2) + pow(at5[1] - x[3 * c + 1], 2) + pow(at5[2] - x[3 * c + 2], 2));
    r->max_violation = cf_sim_get_stats(s).max_violation;
    r->ok = 1;
  } else {
    snprintf(r->msg, sizeof r->msg, "%.255s", err.msg);
  }
  cf_sim_free(s);
  cf_mesh_free(m);
}

static double dist_cm(const double *a, const double *b) {
  return 100 * sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
}

/* The checks of every run. */
static void check_run(int i, const lock_result *r) {
  int which;
  unsigned long long seed;
  run_of(i, &which, &seed);
  printf("%4d %-9s seed %2llu: free corner (%.4f, %.4f, %.4f) m, moved %.1f mm in the last second, max violation "
         "%.2g\n", r->nodes, which < 2 ? "triangles" : "quads", seed, r->corner[0], r->corner[1], r->corner[2],
         1e3 * r->moved_last_s, r->max_violation);
  CHECK(r->ok, "mesh %d seed %llu: %s", which, seed, r->msg);
  CHECK(r->corner[2] < -0.6, "mesh %d seed %llu: the free corner hangs only %.3f m low: locking?", which, seed,
        -r->corner[2]);
  CHECK(r->moved_last_s < 0.005, "mesh %d seed %llu: not at rest (moved %.1f mm)", which, seed, 1e3 * r->moved_last_s);
  CHECK(r->max_violation <= 1e-3, "mesh %d seed %llu: violation %.3g", which, seed, r->max_violation);
}

int main(void) {
  cf_runtime_init();
  lock_result r[NRUN];
  memset(r, 0, sizeof r);
  CHECK(cf_test_fork_map(NRUN, 2, sizeof r[0], run_mesh, r) == 0, "a worker process failed");
  for (int i = 0; i < NRUN; i++) check_run(i, &r[i]);
  double worst = 0;
  for (int k = 0; k < NSEED; k++) {
    const lock_result *a = find_run(r, 0, k), *b = find_run(r, 1, k);
    if (!a->ok || !b->ok) continue;
    double d = dist_cm(a->corner, b->corner);
    worst = fmax(worst, d);
    printf("seed %2llu: triangles %d-%d %.2f cm apart\n", seeds[k], a->nodes, b->nodes, d);
    CHECK(d < 5, "seed %llu: triangle meshes %d and %d: free corners %.2f cm apart", seeds[k], a->nodes, b->nodes, d);
  }
  printf("largest distance of the triangle meshes over the seeds: %.2f cm (limit 5)\n", worst);
  printf("seed 7, not asserted (see the header):");
  for (int q = 2; q < 4; q++)
    for (int t = 0; t < 2; t++) {
      const lock_result *a = find_run(r, q, 2), *b = find_run(r, t, 2);
      if (a->ok && b->ok) printf(" %d-%d %.2f cm", a->nodes, b->nodes, dist_cm(a->corner, b->corner));
    }
  const lock_result *q0 = find_run(r, 2, 2), *q1 = find_run(r, 3, 2);
  if (q0->ok && q1->ok) printf(", quads %d-%d %.2f cm", q0->nodes, q1->nodes, dist_cm(q0->corner, q1->corner));
  printf("\n");
  return cf_test_done("test_locking");
}
