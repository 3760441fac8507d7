/* bench_sens — what the forward sensitivities cost (cf_sim_set_sensitivities,
 * issue acceptance: one A2 simulation of 6 s with the four sensitivities in
 * at most 1.6 times the time of one without).
 *
 *   build/bench/bench_sens [N [TOL [NP]]]
 *   build/bench/bench_sens REC.h5 [N [DELTA ALPHA]]
 *
 * The A2 sheet on the fitting mesh (7 x 9 nodes, 1 mm seeded out-of-plane
 * noise, the top corners held 0.1 % closer than the rest width as the
 * driven fits hold them), shaken for 6 s (600 steps of 0.01 s) along an
 * oblique horizontal axis (6 cm, 1.2 Hz), at the fitting settings (kappa
 * 1e-3, tol 1e-4 unless given; beta 1e-4 so that its sensitivity is not
 * that of a diagonal step).  Runs the simulation N times (default 5)
 * without and with the first NP (default 4) of delta, alpha, kappa, beta,
 * alternately, and prints the best wall time of each, their ratio and the
 * projection's counts (the same in both: the trajectories are bitwise
 * equal on this mesh).  With REC.h5 (an ingested recording, e.g. the
 * bundled polyester-A2-shake-fast-I of datasets/aero-mini, 6 s): the
 * driven simulation of the fitting commands at their settings (kappa
 * 1e-3, tol 1e-4, beta 0; delta 0.2, alpha 0.5 unless given),
 * cf_fit_run_eval against cf_fit_run_eval_sens with the four parameters.
 * Exit status 0 whatever the ratio: a benchmark. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cf_common.h"
#include "cf_fit.h"
#include "cf_sim.h"
#include "cf_study.h"

#define NX 7
#define NY 9
#define STEPS 600
#define TARGET 1.6 /* the time with the four sensitivities over the time without */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static cf_mesh *sheet(void) {
  const double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  cf_mesh *m = cf_mesh_grid(NX, NY, o, u, v, 1);
  unsigned long long z = 0x9E3779B97F4A7C15ULL;
  for (int i = 0; m && i < m->n_nodes; i++) { /* xorshift, uniform in [-1, 1) mm */
    z ^= z << 13, z ^= z >> 7, z ^= z << 17;
    m->x[3 * i + 1] += 1e-3 * ((double)(z >> 11) / 4503599627370496.0 - 1);
  }
  cf_error err = {0, ""};
  if (m && cf_mesh_finalize(m, &err)) {
    cf_mesh_free(m);
    return NULL;
  }
  return m;
}

/* One simulation; its wall time, or -1 after printing the error. */
static double run(const cf_mesh *m, double tol, int np, cf_sim_stats *st) {
  cf_params p;
  cf_params_default(&p);
  p.delta = 0.2, p.alpha = 0.5, p.kappa = 1e-3, p.beta = 1e-4, p.tol = tol;
  int kin[2] = {(NY - 1) * NX, NY * NX - 1}, th[4] = {CF_THETA_DELTA, CF_THETA_ALPHA, CF_THETA_KAPPA, CF_THETA_BETA};
  double k0[6], kp[6], ax[3] = {0.6, 0.8, 0};
  for (int k = 0; k < 2; k++) memcpy(k0 + 3 * k, m->x + 3 * kin[k], 3 * sizeof(double));
  double in = 0.5e-3 * (k0[3] - k0[0]);
  k0[0] += in, k0[3] -= in;
  cf_error err = {0, ""};
  double t0 = now();
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  int rc = s ? cf_sim_set_sensitivities(s, th, np, &err) : CF_ENOMEM;
  for (int f = 1; rc == CF_OK && f <= STEPS; f++) {
    double off = 0.06 * (cos(2 * M_PI * 1.2 * f * p.dt) - 1);
    for (int c = 0; c < 6; c++) kp[c] = k0[c] + off * ax[c % 3];
    rc = cf_sim_step(s, kp, &err);
  }
  double t = now() - t0;
  if (s) *st = cf_sim_get_stats(s);
  cf_sim_free(s);
  if (rc) fprintf(stderr, "bench_sens: %s\n", err.msg);
  return rc ? -1 : t;
}

/* The recording mode: best wall times without and with into best[2]. */
static int recording(const char *path, int n, double delta, double alpha) {
  cf_error err = {0, ""};
  cf_fit_input in;
  if (cf_fit_input_load(path, &in, &err)) {
    fprintf(stderr, "bench_sens: %s\n", err.msg);
    return 1;
  }
  in.base.kappa = 1e-3; /* the fitting commands' settings (docs/simulator.md) */
  in.base.tol = 1e-4;
  cf_fit_run *run = cf_fit_run_alloc(&in.tg, &in.base, &err);
  if (!run) {
    fprintf(stderr, "bench_sens: %s\n", err.msg);
    cf_fit_input_free(&in);
    return 1;
  }
  cf_fit_point pt = {.delta = delta, .alpha = alpha, .kappa = in.base.kappa, .beta = in.base.beta};
  cf_fit_sens sn = {.np = 4, .theta = {CF_THETA_DELTA, CF_THETA_ALPHA, CF_THETA_KAPPA, CF_THETA_BETA}};
  cf_fit_result res[2];
  double best[2] = {INFINITY, INFINITY};
  for (int r = 0; r < n; r++)
    for (int k = 0; k < 2; k++) {
      double t0 = now();
      int rc = k ? cf_fit_run_eval_sens(run, &pt, 0, 0, NULL, res + k, &sn) : cf_fit_run_eval(run, &pt, 0, 0, 0, NULL,
                                                                                             res + k);
      double t = now() - t0;
      if (rc || res[k].status) {
        fprintf(stderr, "bench_sens: %s\n", rc ? "out of memory" : res[k].reason);
        return 1;
      }
      if (t < best[k]) best[k] = t;
    }
  int steps = in.tg.T - 1;
  printf("%s, %d steps, kappa %g, tol %g: without %.1f ms, with 4 sensitivities %.1f ms: %.2fx (target <= %.1f: %s)\n",
         in.name, steps, in.base.kappa, in.base.tol, 1e3 * best[0], 1e3 * best[1], best[1] / best[0], TARGET,
         best[1] <= TARGET * best[0] ? "PASS" : "FAIL");
  printf("projection: %.2f iterations, %.3f factorizations per step; error %.4f cm, gradient %.4g %.4g %.4g %.4g "
         "cm per unit\n", (double)res[0].iterations / steps, (double)res[0].factorizations / steps, res[0].err.e_cm,
         sn.grad[0], sn.grad[1], sn.grad[2], sn.grad[3]);
  cf_fit_run_free(run);
  cf_fit_input_free(&in);
  return 0;
}

int main(int argc, char **argv) {
  cf_runtime_init();
  if (argc > 1 && strstr(argv[1], ".h5"))
    return recording(argv[1], argc > 2 ? atoi(argv[2]) : 5, argc > 4 ? atof(argv[3]) : 0.2,
                     argc > 4 ? atof(argv[4]) : 0.5);
  int n = argc > 1 ? atoi(argv[1]) : 5, np = argc > 3 ? atoi(argv[3]) : 4;
  double tol = argc > 2 ? atof(argv[2]) : 1e-4;
  if (n < 1 || !(tol > 0) || np < 1 || np > 4) {
    fprintf(stderr, "usage: bench_sens [N >= 1 [TOL > 0 [NP 1..4]]]\n");
    return 2;
  }
  cf_mesh *m = sheet();
  if (!m) return 1;
  double best[2] = {INFINITY, INFINITY};
  cf_sim_stats st[2];
  for (int r = 0; r < n; r++)
    for (int k = 0; k < 2; k++) {
      double t = run(m, tol, k ? np : 0, st + k);
      if (t < 0) return 1;
      if (t < best[k]) best[k] = t;
    }
  printf("A2 7x9 shake, %d steps, tol %g: without %.1f ms, with %d sensitivities %.1f ms: %.2fx (target <= %.1f with "
         "4: %s)\n", STEPS, tol, 1e3 * best[0], np, 1e3 * best[1], best[1] / best[0], TARGET,
         np == 4 && best[1] <= TARGET * best[0] ? "PASS" : "FAIL");
  printf("projection: %ld iterations, %ld factorizations (without); %ld, %ld (with)\n", st[0].iterations,
         st[0].factorizations, st[1].iterations, st[1].factorizations);
  cf_mesh_free(m);
  return 0;
}
