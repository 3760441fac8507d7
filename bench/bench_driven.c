/* bench_driven — the speed of one driven simulation of a recording, the unit
 * of work of every fitting command (docs/cluster.md, "Speed of one
 * simulation").  Simulates REC.h5 over the whole recording at
 * (delta, alpha) N times and prints the best wall time per simulation and
 * per step, with the projection's counts (steps, substeps, iterations,
 * factorizations), at the fitting commands' settings unless given.
 *
 *   build/bench/bench_driven REC.h5 DELTA ALPHA [N [KAPPA TOL [SOLVER [MODEL]]]]
 *
 * Defaults: N 5, kappa 1e-3, tol 1e-4 (those of clothfit fit), SOLVER
 * active-set (or ipopt: the contact QPs of a recording with a table or a
 * stick by the interior-point baseline), MODEL inextensible (or
 * quasi-inextensible, elastic, mass-spring at the default stiffnesses).  Also prints q = wall time /
 * recorded time (thesis Table 4.8) and the contact steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cf_common.h"
#include "cf_fit.h"
#include "cf_sim.h"
#include "cf_study.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: bench_driven REC.h5 DELTA ALPHA [N [KAPPA TOL [active-set|ipopt [MODEL]]]]\n");
    return 2;
  }
  cf_runtime_init();
  int n = argc > 4 ? atoi(argv[4]) : 5;
  double kappa = argc > 6 ? atof(argv[5]) : 1e-3, tol = argc > 6 ? atof(argv[6]) : 1e-4;
  cf_error err = {0, ""};
  cf_fit_input in;
  if (cf_fit_input_load(argv[1], &in, &err)) {
    fprintf(stderr, "bench_driven: %s\n", err.msg);
    return 1;
  }
  in.base.tol = tol;
  int ipopt = argc > 7 && !strcmp(argv[7], "ipopt");
  if (argc > 7 && !ipopt && strcmp(argv[7], "active-set")) {
    fprintf(stderr, "bench_driven: solver '%s': expected active-set or ipopt\n", argv[7]);
    return 2;
  }
  in.tg.contact_solver = ipopt ? CF_CONTACT_IPOPT : CF_CONTACT_ACTIVE_SET;
  if (argc > 8 && (in.base.model = cf_cloth_model_find(argv[8])) < 0) {
    fprintf(stderr, "bench_driven: model '%s': expected inextensible, quasi-inextensible, elastic or mass-spring\n",
            argv[8]);
    return 2;
  }
  cf_fit_run *run = cf_fit_run_alloc(&in.tg, &in.base, &err);
  if (!run) {
    fprintf(stderr, "bench_driven: %s\n", err.msg);
    return 1;
  }
  cf_fit_point pt = {.delta = atof(argv[2]), .alpha = atof(argv[3]), .kappa = kappa};
  cf_fit_result res;
  double best = 1e30;
  for (int k = 0; k < n; k++) {
    double t0 = now();
    cf_fit_run_eval(run, &pt, 0, 0, 0, NULL, &res);
    double t = now() - t0;
    if (t < best) best = t;
    if (res.status) {
      fprintf(stderr, "bench_driven: the simulation failed: %s\n", res.reason);
      return 1;
    }
  }
  int steps = in.tg.T - 1;
  printf("%s: %s model, %d frames, %d nodes, kappa %g, tol %g%s: best of %d: %.1f ms per simulation, %.1f us per step, "
         "q %.4f; %.2f iterations, %.3f factorizations per step; error %.4f cm\n",
         in.name, cf_cloth_model_name(in.base.model), in.tg.T, cf_fit_run_mesh(run)->n_nodes, kappa, tol,
         cf_fit_target_has_obstacles(&in.tg) ? (ipopt ? ", contacts by ipopt" : ", contacts by the active set") : "",
         n, 1e3 * best, 1e6 * best / steps, best / (steps * in.tg.dt), (double)res.iterations / steps,
         (double)res.factorizations / steps, res.err.e_cm);
  cf_fit_run_free(run);
  cf_fit_input_free(&in);
  return 0;
}
