/* Regression recovery (issue 4, acceptance 6): a synthetic study whose
 * per-recording (delta, alpha) come from known coefficients (Table 4.6,
 * repetition I) through (4.6), with S, V and rho varying across 8
 * recordings (A2/A3, four densities, different shakes).  As `clothfit
 * experiment aero` does it: every recording is fitted by Nelder-Mead (from
 * a start 10 % off, like a grid optimum), least squares on those optima
 * starts the Nelder-Mead fit of R (4.7), which must end within 5 % of R at
 * the true coefficients, and never above its start.
 *
 * The model is the well-conditioned one of test_recovery (kappa = 1e-3
 * fixed, fitted with tol 1e-5; with kappa = 0 and tol 1e-3 the error
 * surface has a ~0.25 cm floor and R stalls near 0.5 cm).  The recordings
 * are made with a 10x tighter projection tolerance (1e-6) than the fits
 * use, plus 0.1 mm marker noise: if they were made with the fitter's own
 * settings, the true coefficients would reproduce them bit for bit (R = the
 * noise, 0.017 cm) and any other coefficients, however close, would pay the
 * solver's trajectory jitter at tol 1e-5 (~0.008 cm, +11 %), which makes
 * "within 5 %" a test of bitwise identity rather than of the optimizer.
 * With the tighter recordings the true coefficients are merely very good
 * for the fitting solver, and the fitted ones must be at least as good
 * (R* <= 1.05 R(true); in practice R* < R(true)). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

enum { N = 8, T = 301 };
static const double KAPPA = 1e-3, TOL = 1e-5, SYNTH_TOL = 1e-6, NOISE = 1e-4;

typedef struct {
  double w, h, rho, amp, freq;
  int rows, cols;
} rec_def;

static const rec_def defs[N] = {
    {0.42, 0.594, 0.1042, 0.075, 0.6, 5, 4}, {0.297, 0.42, 0.1042, 0.05, 0.8, 4, 3},
    {0.42, 0.594, 0.1804, 0.05, 0.9, 5, 4},  {0.297, 0.42, 0.1804, 0.075, 0.5, 4, 3},
    {0.42, 0.594, 0.3046, 0.10, 0.5, 5, 4},  {0.297, 0.42, 0.3046, 0.04, 1.0, 4, 3},
    {0.42, 0.594, 0.1764, 0.06, 0.7, 5, 4},  {0.297, 0.42, 0.0802, 0.09, 0.6, 4, 3},
};

int main(void) {
  cf_runtime_init();
  const cf_formula *truth = &cf_formula_thesis_rep1;
  cf_fit_target tg[N];
  cf_study_item it[N];
  double *rec[N];
  for (int i = 0; i < N; i++) {
    const rec_def *d = &defs[i];
    double S = cf_size_measure(d->w, d->h), V = 0.1, delta = 0, alpha = 0;
    /* V depends on the motion made with (delta, alpha): iterate to a fixed point */
    rec[i] = NULL;
    for (int pass = 0; pass < 3; pass++) {
      cf_formula_predict(truth, S, V, d->rho, &delta, &alpha);
      free(rec[i]);
      cf_test_rec_spec sp = {d->rows, d->cols, T,     d->w, d->h, d->rho, delta, alpha, d->amp, d->freq, 0.01, NOISE,
                             (unsigned long long)(11 + i), KAPPA, SYNTH_TOL};
      rec[i] = cf_test_shaken_recording(&sp);
      if (pass < 2) V = cf_speed_measure(T, d->rows * d->cols, 0.01, rec[i]);
    }
    tg[i] = (cf_fit_target){d->rows, d->cols, T, 0.01, rec[i], NULL, 0, NULL, d->rho};
    it[i] = (cf_study_item){&tg[i], S, V, delta, alpha, NAN};
    printf("recording %d: S %.2f V %.4f rho %.4f -> delta %.4f alpha %.4f\n", i, S, V, d->rho, delta, alpha);
  }
  cf_params base;
  cf_params_default(&base);
  base.kappa = KAPPA; /* held fixed in every simulation of R */
  base.tol = TOL;
  cf_error err;
  /* per-recording optima */
  const cf_fit_target *tgp[N];
  cf_nm_options o[N];
  cf_nm_result nr[N];
  cf_fit_point fixed = {0, 0, 0, KAPPA, 0};
  for (int i = 0; i < N; i++) {
    double sign = i % 2 ? 1 : -1;
    tgp[i] = &tg[i];
    cf_nm_options_default(&o[i], tg[i].rho, it[i].delta * (1 + 0.1 * sign), it[i].alpha * (1 - 0.1 * sign));
  }
  CHECK(cf_fit_nelder_mead_batch(N, tgp, &base, &fixed, o, 2, NULL, nr, &err) == CF_OK, "%s", err.msg);
  for (int i = 0; i < N; i++) {
    printf("recording %d: fitted delta %.5f (%+.2f %%) alpha %.5f (%+.2f %%), e %.4f cm, %d evaluations\n", i,
           nr[i].best[0], 100 * (nr[i].best[0] / it[i].delta - 1), nr[i].best[1], 100 * (nr[i].best[1] / it[i].alpha - 1),
           nr[i].f_best, nr[i].evaluations);
    it[i].delta = nr[i].best[0];
    it[i].alpha = nr[i].best[1];
    it[i].e_opt = nr[i].f_best;
    cf_nm_result_free(&nr[i]);
  }
  double R_true;
  CHECK(cf_regress_objective(it, N, &base, truth, 2, &R_true, &err) == CF_OK, "%s", err.msg);
  cf_regress_result res;
  CHECK(cf_regress_fit(it, N, &base, NULL, 80, 2, NULL, &res, &err) == CF_OK, "%s", err.msg);
  printf("R(true) %.4f cm, R(start) %.4f cm, R* %.4f cm after %d evaluations\n", R_true, res.R_start, res.R,
         res.evaluations);
  for (int k = 0; k < 4; k++)
    printf("  d%d %+.4f (true %+.4f)   a%d %+.4f (true %+.4f)\n", k, res.f.d[k], truth->d[k], k, res.f.a[k],
           truth->a[k]);
  CHECK(res.R <= res.R_start, "R* %.4f above the start %.4f", res.R, res.R_start);
  CHECK(res.R <= 1.05 * R_true, "R* %.4f not within 5 %% of R(true) %.4f", res.R, R_true);
  CHECK(R_true < 0.1, "R at the true coefficients %.4f: the study is not reproduced closely", R_true);
  for (int i = 0; i < N; i++) free(rec[i]);
  return cf_test_done("test_regress");
}
