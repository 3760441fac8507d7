/* Bending relative to the rest curvature (cf_params.rest_bending = 1,
 * bending.c).  The thesis' bending K = S_I^T M^-1 S_I acts on the positions,
 * so only flat states are free of bending forces: a sheet whose rest state
 * carries 3 mm of noise (the locking test's, a recorded first frame) is
 * pushed towards flat at rest, with forces that grow like kappa sigma / h^4
 * under refinement.  With rest_bending = 1 the rest state and its rigid
 * motions must be force-free.  Checked, without gravity (delta = 0) and no
 * node held, on a quad grid and an irregular triangulation, 3 noise seeds:
 * (1) started at rest in the rest state, the sheet does not move (< 1e-9 m
 * after 30 steps; with rest_bending = 0 it moves by more than 0.1 mm);
 * (2) started in the rest state turned by 90 degrees about an in-plane axis
 * and 30 degrees about the vertical, and shifted, it stays that rigid copy
 * (< 1e-9 m) with the constraints met: the node frames that turn the rest
 * curvature turn exactly with the sheet. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "testutil.h"

static cf_mesh *noisy_mesh(int tri, unsigned long long seed) {
  double o[3] = {0, 0, 0}, u[3] = {0.5, 0, 0}, v[3] = {0, 0.5, 0};
  cf_mesh *m = tri ? cf_mesh_square_tri(0.5, 11, 0.25, seed, 0) : cf_mesh_grid(11, 11, o, u, v, 1);
  for (int i = 0; i < 3 * m->n_nodes; i++) {
    double u1 = 0.5 * (cf_test_rand(&seed) + 1) + 1e-300, u2 = 0.5 * (cf_test_rand(&seed) + 1);
    m->x[i] += 0.003 * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
  }
  cf_error err;
  if (cf_mesh_finalize(m, &err)) {
    CHECK(0, "finalize: %s", err.msg);
    cf_mesh_free(m);
    return NULL;
  }
  return m;
}

/* Largest distance between x and y over the nodes. */
static double max_dist(int n, const double *x, const double *y) {
  double d = 0;
  for (int i = 0; i < n; i++) d = fmax(d, sqrt(pow(x[3 * i] - y[3 * i], 2) + pow(x[3 * i + 1] - y[3 * i + 1], 2) +
                                              pow(x[3 * i + 2] - y[3 * i + 2], 2)));
  return d;
}

/* Run 30 steps from state x0 (NULL: the rest state); returns the largest
 * displacement from target, or -1 on failure. */
static double run(const cf_mesh *m, int rest_bending, double delta, const double *x0, const double *target,
                  double *max_violation) {
  cf_params p;
  cf_params_default(&p);
  p.rho = 0.1;
  p.delta = delta;
  p.alpha = 0.5;
  p.kappa = 1e-2;
  p.rest_bending = rest_bending;
  cf_error err;
  cf_sim *s = cf_sim_alloc(m, &p, NULL, 0, &err);
  if (!s) {
    CHECK(0, "alloc: %s", err.msg);
    return -1;
  }
  if (x0) cf_sim_set_state(s, x0, NULL);
  double d = -1;
  int rc = CF_OK;
  for (int k = 0; k < 30 && rc == CF_OK; k++) rc = cf_sim_step(s, NULL, &err);
  CHECK(rc == CF_OK, "step: %s", err.msg);
  if (rc == CF_OK) d = max_dist(m->n_nodes, cf_sim_x(s), target ? target : m->x);
  if (max_violation) *max_violation = cf_sim_get_stats(s).max_violation;
  cf_sim_free(s);
  return d;
}

/* x = Q x0: 90 degrees about (1,1,0)/sqrt2, then 30 degrees about z, then a shift. */
static void turn(int n, const double *x0, double *x) {
  double a = M_PI / 2, c = cos(a), s = sin(a), k[3] = {M_SQRT1_2, M_SQRT1_2, 0};
  double b = M_PI / 6, cb = cos(b), sb = sin(b);
  for (int i = 0; i < n; i++) {
    const double *p = x0 + 3 * i;
    double kp = k[0] * p[0] + k[1] * p[1] + k[2] * p[2];
    double kx[3] = {k[1] * p[2] - k[2] * p[1], k[2] * p[0] - k[0] * p[2], k[0] * p[1] - k[1] * p[0]};
    double r[3];
    for (int d = 0; d < 3; d++) r[d] = p[d] * c + kx[d] * s + k[d] * kp * (1 - c);
    x[3 * i] = cb * r[0] - sb * r[1] + 0.1;
    x[3 * i + 1] = sb * r[0] + cb * r[1] - 0.2;
    x[3 * i + 2] = r[2] + 0.3;
  }
}

int main(void) {
  cf_runtime_init();
  for (int tri = 0; tri < 2; tri++)
    for (unsigned long long seed = 1; seed <= 3; seed++) {
      cf_mesh *m = noisy_mesh(tri, seed);
      if (!m) continue;
      const char *kind = tri ? "triangles" : "quads";
      double still1 = run(m, 1, 0, NULL, NULL, NULL), still0 = run(m, 0, 0, NULL, NULL, NULL);
      double *xq = malloc(sizeof(double) * 3 * m->n_nodes);
      turn(m->n_nodes, m->x, xq);
      double viol = 1, turned = run(m, 1, 0, xq, xq, &viol);
      printf("%-9s seed %llu: at rest moved %.2e m (rest_bending 0: %.2e m); turned copy off by %.2e m, "
             "violation %.1e\n", kind, seed, still1, still0, turned, viol);
      CHECK(still1 >= 0 && still1 < 1e-9, "%s seed %llu: the rest state moved %.3g m with rest_bending", kind, seed,
            still1);
      CHECK(still0 > 1e-4, "%s seed %llu: without rest_bending the noisy rest state moved only %.3g m", kind, seed,
            still0);
      CHECK(turned >= 0 && turned < 1e-9, "%s seed %llu: the turned rest state moved %.3g m", kind, seed, turned);
      CHECK(viol <= 1e-9, "%s seed %llu: the turned rest state violates the constraints by %.3g", kind, seed, viol);
      free(xq);
      cf_mesh_free(m);
    }
  return cf_test_done("test_rest_bending");
}
