/* test_fit_sens.c — the derivatives of a driven evaluation
 * (cf_fit_run_eval_sens: the window's mean error, the residuals'
 * least-squares sum, its Gauss-Newton matrix) against central
 * differences of the plain evaluation (cf_fit_run_eval).
 *
 * A recording made by the model itself (tests/synthrec.c: an A2 sheet,
 * 5 x 4 markers, refined to the 7 x 9 fitting mesh, shaken for 1.5 s,
 * 0.1 mm marker noise, two seeds, one of them also twisted), made a
 * smooth case as tests/test_sensitivity.c's: the rest metric and start
 * are frame 0's markers with 1 mm out of the plane (a flat start is the
 * singular state where the sheet picks the side it buckles to: there the
 * tangents, right as they are, grow by ~10x per frame and central
 * differences agree with them only at steps of ~1e-7 theta), and the top
 * corners are held 0.1 % closer than their recorded distance (an exactly
 * taut edge is a double root).  Evaluated off the truth (delta, alpha,
 * kappa, beta = 1.2, 0.9, 1.2, 1.2 times it) with all four parameters.
 * Asserted:
 * - d e_cm / d theta and d (rss / 2) / d theta = jtr within a relative 1e-3
 *   of the central differences, for every parameter.  The differences use
 *   e = 1e-5 theta and the projection tolerance 1e-6, the choices
 *   tests/test_sensitivity.c justifies for the trajectory (whose tangents
 *   agreed to ~1e-5 there); the error is a smooth function of the
 *   trajectory (a root of a sum of squares of distances that never
 *   vanish: the marker noise), so the same bound holds;
 * - jtj is symmetric and positive semidefinite (a Cholesky factorization of
 *   it plus 1e-12 of its trace succeeds), as a Gauss-Newton matrix must be;
 * - a target measured with a table is refused (contacts are not
 *   differentiated) with a message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

#define FRAMES 150
#define TOL 1e-6
#define REL_STEP 1e-5
#define MAX_REL_ERR 1e-3

static const double truth[CF_THETA_COUNT] = {0.2, 0.5, 1e-3, 1e-4};

static cf_fit_point point(const double th[CF_THETA_COUNT]) {
  cf_fit_point pt = {.delta = th[0], .alpha = th[1], .kappa = th[2], .beta = th[3]};
  return pt;
}

/* The mean error and sum_k e_k^2 over the whole recording at th. */
static int plain(cf_fit_run *run, const double th[CF_THETA_COUNT], double *e, double *rss) {
  cf_fit_point pt = point(th);
  cf_fit_result res;
  cf_frame_error fe[FRAMES];
  if (cf_fit_run_eval(run, &pt, 0, 0, 0, fe, &res) || res.status) return 1;
  *e = res.err.e_cm;
  *rss = 0;
  for (int k = 0; k < FRAMES; k++)
    if (fe[k].n > 0) *rss += fe[k].e_cm * fe[k].e_cm;
  return 0;
}

static int psd(const double *A, int n) {
  double L[16] = {0}, tr = 0;
  for (int i = 0; i < n; i++) tr += A[i * n + i];
  for (int j = 0; j < n; j++)
    for (int i = j; i < n; i++) {
      double s = A[i * n + j] + (i == j ? 1e-12 * tr : 0);
      for (int k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
      if (i == j && !(s > 0)) return 0;
      L[i * n + j] = i == j ? sqrt(s) : s / L[j * n + j];
    }
  return 1;
}

#define SLACK 1e-3

static void check_recording(unsigned long long seed, double twist) {
  cf_test_rec_spec sp = {.rows = 5, .cols = 4, .T = FRAMES, .width = 0.42, .height = 0.594, .rho = 0.1042,
                         .delta = truth[0], .alpha = truth[1], .kappa = truth[2], .beta = truth[3],
                         .amplitude = 0.06, .frequency = 1.0, .dt = 0.01, .noise = 1e-4, .seed = seed,
                         .tol = 1e-5, .twist = twist};
  double *rec = cf_test_shaken_recording(&sp);
  cf_test_smooth_start(rec, 5, 4, FRAMES, seed, SLACK);
  cf_fit_target tg = {.rows = 5, .cols = 4, .T = FRAMES, .dt = 0.01, .pos = rec, .rho = 0.1042,
                      .rest = CF_REST_FIRST_FRAME};
  cf_params base;
  cf_params_default(&base);
  base.tol = TOL;
  cf_error err = {0, ""};
  cf_fit_run *run = cf_fit_run_alloc(&tg, &base, &err);
  CHECK(run != NULL, "seed %llu: %s", seed, err.msg);
  if (!run) {
    free(rec);
    return;
  }
  double th[CF_THETA_COUNT] = {1.2 * truth[0], 0.9 * truth[1], 1.2 * truth[2], 1.2 * truth[3]};
  cf_fit_sens sn = {.np = 4, .theta = {CF_THETA_DELTA, CF_THETA_ALPHA, CF_THETA_KAPPA, CF_THETA_BETA}};
  cf_fit_point pt = point(th);
  cf_fit_result res;
  int rc = cf_fit_run_eval_sens(run, &pt, 0, 0, NULL, &res, &sn);
  CHECK(rc == CF_OK && res.status == CF_OK, "seed %llu: cf_fit_run_eval_sens: %s", seed, res.reason);
  double e0, rss0;
  CHECK(plain(run, th, &e0, &rss0) == 0 && e0 == res.err.e_cm && rss0 == sn.rss,
        "seed %llu: the evaluation with sensitivities differs from the plain one", seed);
  for (int p = 0; rc == CF_OK && p < 4; p++) {
    double tp[CF_THETA_COUNT], tm[CF_THETA_COUNT], h = REL_STEP * th[p], ep, em, rp, rm;
    memcpy(tp, th, sizeof tp);
    memcpy(tm, th, sizeof tm);
    tp[p] += h;
    tm[p] -= h;
    if (plain(run, tp, &ep, &rp) || plain(run, tm, &em, &rm)) {
      CHECK(0, "seed %llu: the runs at theta +- e", seed);
      break;
    }
    double ge = (ep - em) / (2 * h), gr = (rp - rm) / (4 * h);
    double re = fabs(sn.grad[p] - ge) / fabs(ge), rr = fabs(sn.jtr[p] - gr) / fabs(gr);
    printf("seed %llu twist %g d/d%-5s: e_cm %.6g, grad %.6g (FD %.6g, rel err %.2g); jtr %.6g (FD %.6g, %.2g); "
           "jtj_pp %.4g\n", seed, twist, cf_theta_name(p), res.err.e_cm, sn.grad[p], ge, re, sn.jtr[p], gr, rr,
           sn.jtj[p * 5]);
    CHECK(re <= MAX_REL_ERR && rr <= MAX_REL_ERR, "seed %llu d/d%s: relative errors %g, %g > %g", seed,
          cf_theta_name(p), re, rr, MAX_REL_ERR);
  }
  for (int p = 0; p < 4; p++)
    for (int q = 0; q < 4; q++)
      CHECK(sn.jtj[p * 4 + q] == sn.jtj[q * 4 + p], "seed %llu: jtj not symmetric at %d %d", seed, p, q);
  CHECK(psd(sn.jtj, 4), "seed %llu: jtj not positive semidefinite", seed);
  /* a table: contacts are not differentiated */
  tg.table[0] = -2, tg.table[1] = -1, tg.table[2] = 1, tg.table[3] = -1, tg.table[4] = 1;
  cf_fit_run *tab = cf_fit_run_alloc(&tg, &base, &err);
  CHECK(tab != NULL, "seed %llu, table: %s", seed, err.msg);
  if (tab) {
    rc = cf_fit_run_eval_sens(tab, &pt, 0, 0, NULL, &res, &sn);
    CHECK(rc == CF_OK && res.status == CF_EINVAL && strstr(res.reason, "not differentiated"), "table: %d %s",
          res.status, res.reason);
    cf_fit_run_free(tab);
  }
  cf_fit_run_free(run);
  free(rec);
}

int main(void) {
  cf_runtime_init();
  check_recording(11, 0);
  check_recording(12, 0.3);
  return cf_test_done("test_fit_sens");
}
