/* Locking test (thesis §2.7.1, issue 2 acceptance 4): a horizontal 1 m x 1 m
 * sheet with 3 mm of Gaussian noise on its nodes (the rest state), three
 * corners fixed, the fourth falls.  Four meshes (irregular triangles of 484
 * and 961 nodes, regular quads 23 x 23 and 30 x 30), the same physical
 * parameters, damped to rest.  Checked: the sheet folds diagonally without
 * locking (the free corner ends more than 0.6 m below the fixed ones; a
 * flap hinged on the diagonal would hang 0.71 m), it is at rest (the corner
 * moved < 5 mm over the last second), the constraints hold, and the free
 * corners of the four meshes lie within 5 cm of each other (thesis Table
 * 2.2: 1.4-3.7 cm).  The meshes run on two worker processes.
 *
 * Numerical parameters: dt = 1 ms (the per-step violation grows like
 * g dt^2 / h, and these elements are 3-4.5 cm), a small bending stiffness
 * kappa = 1e-4 (without any, the final fold is not unique and depends on
 * the noise realization).
 *
 * Read this before trusting the 5 cm check: it holds here with almost no
 * margin, and the final fold is metastable and path sensitive (measured
 * 2026-11-23).  With this solver and this machine's OpenBLAS kernels
 * (Cooperlake) the largest distance is 4.95 cm (529-900).  The same code
 * with OPENBLAS_CORETYPE=Haswell (other rounding in CHOLMOD's BLAS calls,
 * the kernels of an AVX2 machine without AVX-512) gives 7.4 cm; noise seeds
 * 11 and 23 give up to 17 and 8 cm; kappa = 2e-5 or 1e-3 up to 20 and 12 cm;
 * noise in z only up to 15 cm.  Run to 20 s, the 529-node corner, "at rest"
 * at 6 s (0.1 mm in the last second), slides 4 cm further and the largest
 * distance becomes 4.87 cm.  Each mesh has many nearly neutral rest states
 * (the fold is resolved by 1-2 elements and the 3 mm noise leaves ~0.5 %
 * slack along the taut diagonal), and which one a run reaches depends on
 * rounding.  So a failure of the distance check on another CPU, or after
 * any change of the projection's iteration path, is this test's fragility,
 * not necessarily a bug; the other checks (folds, rests, violation) are
 * robust.
 *
 * Part of the spread is systematic, not rounding (measured 2026-11-24): the
 * noise is in the rest metric, and nodal noise of 3 mm lengthens the
 * material diagonal between the fixed corners by ~(sigma / h)^2, so the
 * finer meshes get more slack (h = 3.4 cm against 4.5 cm: 1.75x) and their
 * hinge sags more: the largest distance is 529-900, the two quad grids.
 * Alternatives tried, all worse: a smooth 3 mm noise field (wavelengths
 * 0.25-1 m) shared by the four meshes makes the rest surface intrinsically
 * curved and stiff (free corners 0.5-0.67 m low, 11-33 cm apart, not at
 * rest); noise in x, y only (a planar rest state, the diagonal exactly
 * taut) and a flat rest metric with 3 mm of z noise on the initial nodes
 * both lock or stall (corners 0.01-0.5 m low; the 23 x 23 quad grid, folding
 * across its quads' diagonals with an exactly taut hinge, does not fold at
 * all); alpha = 0.8 over 8 s and tol = 1e-4 leave 5.9 and 5.2 cm.
 *
 * Where OpenBLAS picks its AVX-512 kernels it passes with 4.95 cm (529-900):
 * on the Cooper Lake machine it was written on and on an AMD EPYC with
 * AVX-512 (2026-11-25, fourth session).  On an AMD EPYC whose OpenBLAS core
 * type is Zen (Haswell kernels) this test fails: 7.42 cm for seed
 * 7, and 5.2-14.6 cm over seeds 3, 5, 7, 11, 23, with the triangle meshes
 * hanging 4-5 cm farther out than the quad meshes on average; the
 * measurements, their commands (bench/locking_scan) and the reasons (quads
 * cannot crease along their diagonal, irregular triangles resist smooth
 * folds, the noisy rest state is pre-stressed by the bending operator) are
 * in docs/locking.md.  Why the triangles in particular stiffen: on P1
 * triangles every constraint row is a combination of squared edge lengths,
 * so the model is an almost fully braced framework (docs/locking.md §6).
 * The limit stays: the fix belongs in the model. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "forkmap.h"
#include "testutil.h"

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

static cf_mesh *make_mesh(int which) {
  double o[3] = {0, 0, 0}, u[3] = {1, 0, 0}, v[3] = {0, 1, 0};
  switch (which) {
    case 0: return cf_mesh_square_tri(1.0, 22, 0.25, 42, 0);
    case 1: return cf_mesh_square_tri(1.0, 31, 0.25, 43, 0);
    case 2: return cf_mesh_grid(23, 23, o, u, v, 1);
    default: return cf_mesh_grid(30, 30, o, u, v, 1);
  }
}

static void run_mesh(int which, void *out) {
  lock_result *r = out;
  cf_mesh *m = make_mesh(which);
  add_noise(m, 7);
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

int main(void) {
  cf_runtime_init();
  lock_result r[4];
  memset(r, 0, sizeof r);
  CHECK(cf_test_fork_map(4, 2, sizeof r[0], run_mesh, r) == 0, "a worker process failed");
  const char *name[4] = {"triangles", "triangles", "quads", "quads"};
  for (int i = 0; i < 4; i++) {
    printf("%4d %-9s free corner (%.4f, %.4f, %.4f) m, moved %.1f mm in the last second, max violation %.2g\n",
           r[i].nodes, name[i], r[i].corner[0], r[i].corner[1], r[i].corner[2], 1e3 * r[i].moved_last_s,
           r[i].max_violation);
    CHECK(r[i].ok, "mesh %d: %s", i, r[i].msg);
    CHECK(r[i].corner[2] < -0.6, "mesh %d: the free corner hangs only %.3f m low: locking?", i, -r[i].corner[2]);
    CHECK(r[i].moved_last_s < 0.005, "mesh %d: not at rest (moved %.1f mm)", i, 1e3 * r[i].moved_last_s);
    CHECK(r[i].max_violation <= 1e-3, "mesh %d: violation %.3g", i, r[i].max_violation);
  }
  printf("pairwise distances (cm):\n");
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++) {
      double d = 100 * sqrt(pow(r[i].corner[0] - r[j].corner[0], 2) + pow(r[i].corner[1] - r[j].corner[1], 2) +
                            pow(r[i].corner[2] - r[j].corner[2], 2));
      printf("  %d-%d: %.2f\n", r[i].nodes, r[j].nodes, d);
      CHECK(d < 5, "meshes %d and %d: free corners %.2f cm apart", r[i].nodes, r[j].nodes, d);
    }
  return cf_test_done("test_locking");
}
