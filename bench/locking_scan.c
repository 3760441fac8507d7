/* locking_scan.c — one run of the locking scenario (thesis §2.7.1,
 * tests/test_locking.c) with its physical and numerical settings on the
 * command line, printing the free corner once per simulated second.  The
 * measurements of docs/locking.md were made with it.
 *
 *   build/bench/locking_scan MESH SEED KAPPA T [NOISE_MODE SIGMA ALPHA DT REST_BENDING SLACK]
 *
 * MESH 0..3: irregular triangles 22x22 (484 nodes), 31x31 (961), quads
 * 23x23 (529), 30x30 (900) on the 1 m square, as in test_locking; 4..6: the
 * refinements triangles 41x41 (1681), 51x51 (2601), quads 40x40 (1600); 7..9:
 * quads on the jittered nodes of triangle meshes 0, 1 and 4 (irregular quads:
 * the same nodes as those triangles, without their diagonals); 10..12:
 * near-equilateral irregular triangles (cf_mesh_square_hex, jitter 0.15) of
 * 471, 912 and 1863 nodes; 13: quads 35x35 (1225).  SEED:
 * the noise seed (test_locking uses 7).  KAPPA: bending stiffness.  T:
 * simulated seconds.  NOISE_MODE 0: Gaussian noise of SIGMA (m, default
 * 0.003) on every coordinate of every node (test_locking); 1: not on the
 * three held corners; 2: z only; 3: none in the rest state (a flat sheet's
 * metric), Gaussian noise in z on the initial state only, and the held
 * corners moved towards their centroid by the fraction SLACK (default 0.01)
 * so that the sheet hangs with that much slack; 4: one noise field for all
 * meshes, bilinear between values drawn on the 22 x 22 lattice of the
 * coarsest mesh, so that the four meshes discretise the same noisy sheet
 * with the same held corners.  SIGMA < 0: |SIGMA| times the mesh spacing.
 * ALPHA (default 2), DT (default 0.001), REST_BENDING (default 0,
 * cf_params.rest_bending).  rho = delta = 0.1 as in the test.  The last
 * line (stderr) gives the solver statistics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"

static double urand(unsigned long long *s) { /* as tests/testutil.c */
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

static int nearest(const cf_mesh *m, double x, double y) {
  int best = 0;
  for (int i = 1; i < m->n_nodes; i++)
    if (hypot(m->x[3 * i] - x, m->x[3 * i + 1] - y) < hypot(m->x[3 * best] - x, m->x[3 * best + 1] - y)) best = i;
  return best;
}

/* sigma times a standard normal deviate (Box-Muller, as tests/test_locking.c). */
static double gauss(unsigned long long *s, double sigma) {
  double u1 = 0.5 * (urand(s) + 1) + 1e-300, u2 = 0.5 * (urand(s) + 1);
  return sigma * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Mode 4: the field drawn on a G x G lattice over the unit square. */
static void add_field_noise(cf_mesh *m, unsigned long long seed, double sigma) {
  enum { G = 22 };
  double f[3 * G * G];
  for (int i = 0; i < 3 * G * G; i++) f[i] = gauss(&seed, sigma);
  for (int i = 0; i < m->n_nodes; i++) {
    double X = m->x[3 * i] * (G - 1), Y = m->x[3 * i + 1] * (G - 1);
    int a = X < 0 ? 0 : X > G - 2 ? G - 2 : (int)X, b = Y < 0 ? 0 : Y > G - 2 ? G - 2 : (int)Y;
    double s = X - a, t = Y - b;
    const double *f00 = f + 3 * (b * G + a), *f10 = f00 + 3, *f01 = f00 + 3 * G, *f11 = f01 + 3;
    for (int d = 0; d < 3; d++)
      m->x[3 * i + d] += (1 - s) * (1 - t) * f00[d] + s * (1 - t) * f10[d] + (1 - s) * t * f01[d] + s * t * f11[d];
  }
}

/* Mode 3: the initial state (z noise, held corners pulled in by slack);
 * kp[9] receives the held corners' positions.  -1: out of memory. */
static int slack_initial_state(cf_sim *s, const cf_mesh *m, const int *kin, unsigned long long seed,
                               double sigma, double slack, double *kp) {
  double cen[3] = {0, 0, 0}, *x0 = malloc(sizeof(double) * 3 * m->n_nodes);
  if (!x0) return -1;
  for (int q = 0; q < 3; q++)
    for (int d = 0; d < 3; d++) cen[d] += m->x[3 * kin[q] + d] / 3;
  for (int q = 0; q < 3; q++)
    for (int d = 0; d < 3; d++) kp[3 * q + d] = cen[d] + (1 - slack) * (m->x[3 * kin[q] + d] - cen[d]);
  memcpy(x0, m->x, sizeof(double) * 3 * m->n_nodes);
  for (int i = 0; i < m->n_nodes; i++) x0[3 * i + 2] += gauss(&seed, sigma);
  for (int q = 0; q < 3; q++) memcpy(x0 + 3 * kin[q], kp + 3 * q, sizeof(double) * 3);
  cf_sim_set_state(s, x0, NULL);
  free(x0);
  return 0;
}

static cf_mesh *make_mesh(int which, double *h) {
  double o[3] = {0, 0, 0}, u[3] = {1, 0, 0}, v[3] = {0, 1, 0};
  if (which == 13) { /* quads 35 x 35 */
    *h = 1.0 / 34;
    return cf_mesh_grid(35, 35, o, u, v, 1);
  }
  if (which >= 10) { /* near-equilateral irregular triangles: 20, 28, 40 nodes per even row */
    static const int hn[3] = {20, 28, 40};
    int n = hn[which - 10 < 3 ? which - 10 : 2];
    *h = 1.0 / (n - 1);
    return cf_mesh_square_hex(1.0, n, 0.15, 50 + (uint64_t)which, 0);
  }
  if (which >= 7) { /* jittered quads: the grid's quads on the nodes of triangle mesh 0, 1 or 4
                     * (both number node (i, j) as j n + i) */
    static const int tn[3] = {22, 31, 41};
    static const uint64_t tseed[3] = {42, 43, 44};
    int n = tn[which - 7];
    *h = 1.0 / (n - 1);
    cf_mesh *t = cf_mesh_square_tri(1.0, n, 0.25, tseed[which - 7], 0), *q = t ? cf_mesh_grid(n, n, o, u, v, 1) : NULL;
    if (q) memcpy(q->x, t->x, sizeof(double) * 3 * n * n);
    cf_mesh_free(t);
    return q;
  }
  static const int side[7] = {22, 31, 23, 30, 41, 51, 40};
  *h = 1.0 / (side[which] - 1);
  switch (which) {
    case 0: return cf_mesh_square_tri(1.0, 22, 0.25, 42, 0);
    case 1: return cf_mesh_square_tri(1.0, 31, 0.25, 43, 0);
    case 4: return cf_mesh_square_tri(1.0, 41, 0.25, 44, 0);
    case 5: return cf_mesh_square_tri(1.0, 51, 0.25, 45, 0);
    case 6: return cf_mesh_grid(40, 40, o, u, v, 1);
    default: return cf_mesh_grid(side[which], side[which], o, u, v, 1);
  }
}

static void add_noise(cf_mesh *m, unsigned long long seed, int mode, double sigma, const int *kin) {
  for (int i = 0; i < 3 * m->n_nodes; i++) {
    double nz = gauss(&seed, sigma);
    int node = i / 3;
    if (mode == 1 && (node == kin[0] || node == kin[1] || node == kin[2])) continue;
    if (mode == 2 && i % 3 != 2) continue;
    m->x[i] += nz;
  }
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: locking_scan MESH SEED KAPPA T [NOISE_MODE SIGMA ALPHA DT REST_BENDING SLACK]\n");
    return 2;
  }
  int which = atoi(argv[1]), mode = argc > 5 ? atoi(argv[5]) : 0;
  unsigned long long seed = strtoull(argv[2], 0, 10);
  double kappa = atof(argv[3]), T = atof(argv[4]), sigma = argc > 6 ? atof(argv[6]) : 0.003;
  if (which < 0 || which > 13 || !(T > 0) || mode < 0 || mode > 4) {
    fprintf(stderr, "locking_scan: MESH must be 0..13, T > 0 and NOISE_MODE 0..4\n");
    return 2;
  }
  cf_runtime_init();
  double h;
  cf_mesh *m = make_mesh(which, &h);
  if (!m) {
    fprintf(stderr, "locking_scan: out of memory making mesh %d\n", which);
    return 1;
  }
  if (sigma < 0) sigma = -sigma * h;
  int kin[3] = {nearest(m, 0, 0), nearest(m, 1, 0), nearest(m, 0, 1)}, c = nearest(m, 1, 1);
  if (mode == 4) add_field_noise(m, seed, sigma);
  else if (mode != 3) add_noise(m, seed, mode, sigma, kin);
  cf_error err;
  if (cf_mesh_finalize(m, &err)) {
    fprintf(stderr, "locking_scan: %s\n", err.msg);
    return 1;
  }
  cf_params p;
  cf_params_default(&p);
  p.rho = p.delta = 0.1;
  p.alpha = argc > 7 ? atof(argv[7]) : 2;
  p.kappa = kappa;
  p.dt = argc > 8 ? atof(argv[8]) : 0.001;
  p.rest_bending = argc > 9 ? atoi(argv[9]) : 0;
  cf_sim *s = cf_sim_alloc(m, &p, kin, 3, &err);
  if (!s) {
    fprintf(stderr, "locking_scan: %s\n", err.msg);
    return 1;
  }
  double kp[9];
  if (mode == 3 && slack_initial_state(s, m, kin, seed, sigma, argc > 10 ? atof(argv[10]) : 0.01, kp)) {
    fprintf(stderr, "locking_scan: out of memory\n");
    return 1;
  }
  int steps = (int)lround(T / p.dt), per_s = (int)lround(1 / p.dt);
  double prev[3] = {0};
  for (int k = 1; k <= steps; k++) {
    if (cf_sim_step(s, mode == 3 ? kp : NULL, &err)) {
      fprintf(stderr, "locking_scan: step %d: %s\n", k, err.msg);
      return 1;
    }
    if (k % per_s) continue;
    const double *x = cf_sim_x(s);
    double mv = sqrt(pow(prev[0] - x[3 * c], 2) + pow(prev[1] - x[3 * c + 1], 2) + pow(prev[2] - x[3 * c + 2], 2));
    memcpy(prev, x + 3 * c, sizeof prev);
    printf("mesh %d seed %llu t %.0f corner %.4f %.4f %.4f moved %.1f mm\n", which, strtoull(argv[2], 0, 10),
           k * p.dt, x[3 * c], x[3 * c + 1], x[3 * c + 2], 1e3 * mv);
    fflush(stdout);
  }
  cf_sim_stats st = cf_sim_get_stats(s);
  fprintf(stderr, "steps %ld iterations %ld factorizations %ld substeps %ld cg %ld max violation %.2g\n", st.steps,
          st.iterations, st.factorizations, st.substeps, st.cg_iterations, st.max_violation);
  cf_sim_free(s);
  cf_mesh_free(m);
  return 0;
}
