/* test_sensitivity.c — the forward sensitivities of cf_sim
 * (cf_sim_set_sensitivities) against central finite differences.
 *
 * The A2 sheet on the fitting mesh (7 x 9 nodes, 0.42 x 0.594 m, hung from
 * its top corners, 1 mm of seeded out-of-plane noise: a recorded first
 * frame is never flat; the corners 0.1 % closer than the rest width, as
 * the driven fits hold them: an exactly taut top edge is a double root of
 * the constraints, where the projection crawls and its derivative is
 * singular, docs/simulator.md), delta = 0.2, alpha = 0.5, the fitting
 * settings' kappa = 1e-3 and beta = 1e-4 (> 0, so that central differences
 * in beta stay in the valid range), driven for 1.5 s by a shake (the
 * corners along an oblique horizontal axis) and by a twist (the top edge
 * turned about the vertical through its middle), two noise seeds each,
 * with the sensitivities of all four parameters on (so every run is one
 * with kappa and beta free).
 *
 * Asserted, per run and parameter: the relative error of the trajectory's
 * tangent, max over frames of ||dX_sens - dX_fd|| / ||dX_fd|| (all nodes),
 * is at most 1e-3, dX_fd = (X(theta + e) - X(theta - e)) / 2e.
 * - The step e = 1e-5 theta.  The truncation error of the difference,
 *   O(e^2 X'''), limits larger steps on these motions (the shake's delta
 *   at its most nonlinear frame: 0.16 at e = 1e-3 theta, 1e-3 at 1e-4,
 *   1e-5 at 1e-5: it scales with e^2), rounding in X limits smaller ones
 *   (alpha at frame 1: 3.7e-6, 4e-5, 2.6e-4 at e = 1e-4, 1e-5, 1e-6 theta:
 *   it scales with 1/e).  At 1e-5 both are ~1e-5.
 * - Both runs of a difference use the same projection tolerance, 1e-6,
 *   tighter than the fits' 1e-4: the tangents are those of the computed
 *   iterations with their discrete decisions (updates kept or undone,
 *   refactorizations, the iteration the projection stops at) held, and
 *   where a decision differs between theta +- e the trajectory jumps by
 *   up to the tolerance, which a difference over 2e turns into an error
 *   ~tol / e that no derivative has.  At 1e-6 (and 1e-8) none of the 16
 *   comparisons of the four runs below meets one; at 1e-4 and 1e-5 one of
 *   them does (relative error ~1), the 15 others agree to ~1e-5 as here.
 * So 1e-3 bounds the smooth cases with a margin of ~14 over the largest
 * error printed (7e-5).
 *
 * A fifth run, a shake whose steps give up after 5 projection iterations
 * (max_iter), runs on substeps (failed attempts redone as two halves,
 * the level kept for the next steps: 600 substeps in its 150 steps when
 * written): the tangents through failed attempts and substeps, under the
 * same bound; the test asserts that it took substeps.
 *
 * Not smooth cases, so not asserted (measured when this was written): the
 * same shake at dt = 0.02 s is chaotic (the tangent doubles every frame
 * from 0.1 s on, and the differences follow it only until the perturbed
 * runs part, ~0.3 s): what the tangent check of a Levenberg-Marquardt fit (src/fit/lm.c) is for.  Other seeds
 * of the shake: on seed 4 the step-length control splits steps (1196
 * substeps), and where it decides differently at theta +- e the
 * trajectory jumps by a discretization error, far more than the
 * tolerance (relative error 0.44 at e = 1e-5 theta, 0.05 at 1e-4: ~1/e);
 * seed 8 is nonlinear enough that the difference's truncation error is
 * 2e-3 at e = 1e-5 theta (2e-5 at 1e-6: ~e^2, the tangent is right).  Of
 * seeds 1-8 of both motions the others agree to at most 1.3e-4.  The test
 * checks that its runs at theta +- e took the substeps of the run at
 * theta.
 *
 * Also: the trajectory with sensitivities on is bitwise the one without
 * (the 7 x 9 mesh takes no inexact Newton steps); duplicate parameters,
 * obstacles with sensitivities on and the predictor are refused with a
 * message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "testutil.h"

#define NX 7
#define NY 9
#define SECONDS 1.5
#define TOL 1e-6
#define REL_STEP 1e-5
#define MAX_REL_ERR 1e-3
#define SLACK 1e-3

enum { SHAKE, TWIST };
static const char *motion_name[] = {"shake", "twist"};

static cf_mesh *sheet(unsigned long long seed) {
  const double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  cf_mesh *m = cf_mesh_grid(NX, NY, o, u, v, 1);
  unsigned long long z = seed;
  for (int i = 0; m && i < m->n_nodes; i++) m->x[3 * i + 1] += 1e-3 * cf_test_rand(&z);
  cf_error err = {0, ""};
  if (m && cf_mesh_finalize(m, &err)) {
    cf_mesh_free(m);
    return NULL;
  }
  return m;
}

/* The two top corners at time t. */
static void drive(int motion, const double *k0, double t, double *kp) {
  if (motion == SHAKE) {
    double off = 0.06 * (cos(2 * M_PI * 1.2 * t) - 1), ax[3] = {0.6, 0.8, 0};
    for (int c = 0; c < 6; c++) kp[c] = k0[c] + off * ax[c % 3];
    return;
  }
  double phi = 0.5 * (1 - cos(2 * M_PI * 0.8 * t)) * (40 * M_PI / 180), cx = 0.5 * (k0[0] + k0[3]);
  double cy = 0.5 * (k0[1] + k0[4]);
  for (int k = 0; k < 2; k++) {
    double dx = k0[3 * k] - cx, dy = k0[3 * k + 1] - cy;
    kp[3 * k] = cx + cos(phi) * dx - sin(phi) * dy;
    kp[3 * k + 1] = cy + sin(phi) * dx + cos(phi) * dy;
    kp[3 * k + 2] = k0[3 * k + 2];
  }
}

static int max_iter;           /* the case's projection iterations before a split (0: default) */
static long substeps;          /* substeps of the last run */

static void params(cf_params *p, const double th[CF_THETA_COUNT]) {
  cf_params_default(p);
  p->delta = th[CF_THETA_DELTA];
  p->alpha = th[CF_THETA_ALPHA];
  p->kappa = th[CF_THETA_KAPPA];
  p->beta = th[CF_THETA_BETA];
  p->tol = TOL;
  if (max_iter) p->max_iter = max_iter;
}

/* Simulate; X[frames][3n] the positions after every step and, with dX !=
 * NULL, dX[j][frames][3n] the sensitivities.  0 on success. */
static int run(const cf_mesh *m, int motion, const double th[CF_THETA_COUNT], int steps, double *X, double *dX) {
  cf_params p;
  params(&p, th);
  int kin[2] = {(NY - 1) * NX, NY * NX - 1}, n3 = 3 * m->n_nodes;
  double k0[6], kp[6];
  for (int k = 0; k < 2; k++) memcpy(k0 + 3 * k, m->x + 3 * kin[k], 3 * sizeof(double));
  double in = 0.5 * SLACK * (k0[3] - k0[0]); /* the top edge slack (see the header) */
  k0[0] += in;
  k0[3] -= in;
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  CHECK(s != NULL, "cf_sim_alloc: %s", err.msg);
  if (!s) return 1;
  int all[CF_THETA_COUNT] = {CF_THETA_DELTA, CF_THETA_ALPHA, CF_THETA_KAPPA, CF_THETA_BETA};
  int rc = dX ? cf_sim_set_sensitivities(s, all, CF_THETA_COUNT, &err) : CF_OK;
  CHECK(rc == CF_OK, "cf_sim_set_sensitivities: %s", err.msg);
  for (int f = 0; rc == CF_OK && f < steps; f++) {
    drive(motion, k0, (f + 1) * p.dt, kp);
    rc = cf_sim_step(s, kp, &err);
    CHECK(rc == CF_OK, "%s step %d: %s", motion_name[motion], f + 1, err.msg);
    if (rc) break;
    memcpy(X + (size_t)n3 * f, cf_sim_x(s), sizeof(double) * n3);
    for (int j = 0; dX && j < CF_THETA_COUNT; j++)
      memcpy(dX + (size_t)n3 * (steps * j + f), cf_sim_dx(s, j), sizeof(double) * n3);
  }
  substeps = s ? cf_sim_get_stats(s).substeps : 0;
  cf_sim_free(s);
  return rc;
}

static double norm_diff(const double *a, const double *b, int n, double sb) {
  double s = 0;
  for (int q = 0; q < n; q++) {
    double d = a[q] - (b ? sb * b[q] : 0);
    s += d * d;
  }
  return sqrt(s);
}

/* One motion on one seed: every parameter's tangent against central
 * differences, and the bitwise check of the trajectory. */
static void check_motion(int motion, unsigned long long seed) {
  cf_mesh *m = sheet(seed);
  CHECK(m != NULL, "mesh");
  if (!m) return;
  const double th0[CF_THETA_COUNT] = {0.2, 0.5, 1e-3, 1e-4};
  int steps = (int)lround(SECONDS / 0.01), n3 = 3 * m->n_nodes;
  size_t fr = (size_t)n3 * steps;
  double *X = malloc(sizeof(double) * fr), *Xs = malloc(sizeof(double) * fr), *dX = malloc(sizeof(double) * fr * 4);
  double *Xp = malloc(sizeof(double) * fr), *Xm = malloc(sizeof(double) * fr), *fd = malloc(sizeof(double) * n3);
  int ok = X && Xs && dX && Xp && Xm && fd && run(m, motion, th0, steps, X, NULL) == 0 &&
           run(m, motion, th0, steps, Xs, dX) == 0;
  CHECK(ok, "%s seed %llu: the runs at theta", motion_name[motion], seed);
  long subs = substeps;
  if (ok) CHECK(memcmp(X, Xs, sizeof(double) * fr) == 0, "%s: trajectory with sensitivities not bitwise the same",
                motion_name[motion]);
  for (int j = 0; ok && j < CF_THETA_COUNT; j++) {
    double thp[CF_THETA_COUNT], thm[CF_THETA_COUNT], e = REL_STEP * th0[j];
    memcpy(thp, th0, sizeof thp);
    memcpy(thm, th0, sizeof thm);
    thp[j] += e;
    thm[j] -= e;
    if (run(m, motion, thp, steps, Xp, NULL)) break;
    long subp = substeps;
    if (run(m, motion, thm, steps, Xm, NULL)) break;
    /* a smooth case: the step-length control decided alike at theta +- e */
    CHECK(subp == subs && substeps == subs, "%s seed %llu d/d%s: %ld, %ld, %ld substeps at theta, +e, -e",
          motion_name[motion], seed, cf_theta_name(j), subs, subp, substeps);
    double worst = 0, size = 0;
    int at = 0;
    for (int f = 0; f < steps; f++) {
      for (int q = 0; q < n3; q++) fd[q] = (Xp[(size_t)n3 * f + q] - Xm[(size_t)n3 * f + q]) / (2 * e);
      double nfd = norm_diff(fd, NULL, n3, 0), r = norm_diff(fd, dX + (size_t)n3 * (steps * j + f), n3, 1) / nfd;
      if (nfd > size) size = nfd;
      if (!(r <= worst)) worst = r, at = f + 1;
    }
    printf("%s seed %llu, max_iter %d (%ld substeps) d/d%-5s: max ||dX - FD|| / ||FD|| = %.3g (frame %d), max "
           "||FD|| = %.3g\n", motion_name[motion], seed, max_iter ? max_iter : 50, subs, cf_theta_name(j), worst, at,
           size);
    CHECK(worst <= MAX_REL_ERR, "%s seed %llu d/d%s: relative error %g > %g at frame %d", motion_name[motion], seed,
          cf_theta_name(j), worst, MAX_REL_ERR, at);
  }
  free(X), free(Xs), free(dX), free(Xp), free(Xm), free(fd);
  cf_mesh_free(m);
}

/* What is not differentiated is refused with a message saying so. */
static void check_refusals(void) {
  cf_mesh *m = sheet(7);
  if (!m) return;
  int kin[2] = {(NY - 1) * NX, NY * NX - 1}, th[2] = {CF_THETA_DELTA, CF_THETA_DELTA}, one = CF_THETA_ALPHA;
  cf_params p;
  cf_params_default(&p);
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  CHECK(s && cf_sim_set_sensitivities(s, th, 2, &err) == CF_EINVAL, "duplicate parameter accepted");
  cf_obstacle o;
  cf_obstacle_init(&o, cf_obstacle_plane);
  o.c[2] = -1;
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  CHECK(s && cf_sim_set_sensitivities(s, &one, 1, &err) == CF_OK, "alpha: %s", err.msg);
  CHECK(s && cf_sim_set_obstacles(s, &o, 1, &cp, &err) == CF_EINVAL && strstr(err.msg, "not differentiated"),
        "obstacles with sensitivities on: %s", err.msg);
  cf_sim_free(s);
  p.predictor = 1;
  s = cf_sim_alloc(m, &p, kin, 2, &err);
  CHECK(s && cf_sim_set_sensitivities(s, &one, 1, &err) == CF_EINVAL && strstr(err.msg, "predictor"),
        "predictor: %s", err.msg);
  cf_sim_free(s);
  cf_mesh_free(m);
}

int main(void) {
  for (int motion = SHAKE; motion <= TWIST; motion++)
    for (unsigned long long seed = 1; seed <= 2; seed++) check_motion(motion, seed * 0x9E3779B97F4A7C15ULL);
  max_iter = 5; /* steps that need more are split into substeps */
  check_motion(SHAKE, 3 * 0x9E3779B97F4A7C15ULL);
  CHECK(substeps > 0, "the case with max_iter %d took no substeps", max_iter);
  check_refusals();
  return cf_test_done("test_sensitivity");
}
