/* test_substeps.c — the step-length control of the integrator (sim.c):
 * a fine mesh cannot take the recording's dt whole, so steps are split
 * into substeps of dt / 2^level, and the level that worked is kept.
 *
 * A 32 x 32 node A2 sheet (1 mm out-of-plane noise), its top corners
 * shaken across it at dt = 0.01 s for 30 steps, run twice:
 *  - the steps were split (substeps > 0) and every step converged to tol;
 *  - the two runs are bitwise identical, positions and counters alike (the
 *    level is decided from iteration counts only);
 *  - after every step the simulated time is k dt (up to the rounding of
 *    adding dt k times, whatever the substeps) and the driven corners are
 *    exactly on their prescribed positions;
 *  - a step that needed substeps leaves a level the next steps start
 *    from: after the first step, at most 3 attempts fail and are split
 *    (cf_sim_stats.split_attempts), not one per step. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "testutil.h"

#define N 32
#define STEPS 30

typedef struct {
  double *x;
  cf_sim_stats st;
  long split_after_first;
} run_out;

static cf_mesh *sheet(void) {
  const double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  cf_mesh *m = cf_mesh_grid(N, N, o, u, v, 1);
  if (!m) return NULL;
  uint64_t z = 20240601ULL * 0x9E3779B97F4A7C15ULL + 1;
  for (int i = 0; i < m->n_nodes; i++) {
    z ^= z << 13;
    z ^= z >> 7;
    z ^= z << 17;
    m->x[3 * i + 1] += 1e-3 * ((double)(z >> 11) / 9007199254740992.0 * 2 - 1);
  }
  cf_error err = {0, ""};
  if (cf_mesh_finalize(m, &err)) {
    cf_mesh_free(m);
    return NULL;
  }
  return m;
}

static run_out run(void) {
  run_out r = {NULL, {0}, 0};
  cf_mesh *m = sheet();
  CHECK(m != NULL, "mesh");
  if (!m) return r;
  cf_params p;
  cf_params_default(&p);
  int kin[2] = {(N - 1) * N, N * N - 1};
  double k0[6], kp[6];
  for (int k = 0; k < 2; k++) memcpy(k0 + 3 * k, m->x + 3 * kin[k], 3 * sizeof(double));
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  CHECK(s != NULL, "cf_sim_alloc: %s", err.msg);
  const cf_drive d = {CF_DRIVE_SHAKE, 0.075, 0.6, {0, 1, 0}};
  cf_sim_stats after_first = {0};
  for (int k = 1; s && k <= STEPS; k++) {
    cf_drive_eval(&d, 2, k0, k * p.dt, kp);
    int rc = cf_sim_step(s, kp, &err);
    CHECK(rc == CF_OK, "step %d: %s", k, err.msg);
    if (rc) break;
    CHECK(fabs(cf_sim_time(s) - k * p.dt) <= 1e-12, "step %d: time %.17g, expected %.17g", k, cf_sim_time(s),
          k * p.dt);
    for (int c = 0; c < 6; c++)
      CHECK(cf_sim_x(s)[3 * kin[c / 3] + c % 3] == kp[c], "step %d: driven corner off its position", k);
    CHECK(cf_sim_get_stats(s).last_violation <= p.tol, "step %d: violation %g", k,
          cf_sim_get_stats(s).last_violation);
    if (k == 1) after_first = cf_sim_get_stats(s);
  }
  if (s) {
    r.st = cf_sim_get_stats(s);
    r.x = malloc(sizeof(double) * 3 * N * N);
    memcpy(r.x, cf_sim_x(s), sizeof(double) * 3 * N * N);
    r.split_after_first = r.st.split_attempts - after_first.split_attempts;
    printf("32x32 shake, %d steps: %ld substeps, %ld attempts split (%ld after step 1), %.2f iterations and "
           "%.2f factorizations per step\n",
           STEPS, r.st.substeps, r.st.split_attempts, r.split_after_first, (double)r.st.iterations / r.st.steps,
           (double)r.st.factorizations / r.st.steps);
  }
  cf_sim_free(s);
  cf_mesh_free(m);
  return r;
}

int main(void) {
  cf_runtime_init();
  run_out a = run(), b = run();
  if (!a.x || !b.x) return cf_test_done("test_substeps");
  CHECK(a.st.substeps > 0, "no step was split: the test needs a mesh that cannot take dt whole");
  CHECK(memcmp(a.x, b.x, sizeof(double) * 3 * N * N) == 0, "two runs differ");
  CHECK(a.st.iterations == b.st.iterations && a.st.factorizations == b.st.factorizations &&
            a.st.substeps == b.st.substeps && a.st.cg_iterations == b.st.cg_iterations,
        "two runs count differently");
  /* kept level: once a step had to be split, the next ones start at the
   * level that worked instead of failing at full length first (without
   * the control: one split attempt per step, 29 after step 1) */
  CHECK(a.split_after_first <= 3, "level not kept: %ld split attempts after step 1", a.split_after_first);
  free(a.x);
  free(b.x);
  return cf_test_done("test_substeps");
}
