/* Regression recovery (issue 4, acceptance 6): a synthetic study whose
 * per-recording (delta, alpha) come from known coefficients (Table 4.6,
 * repetition I) through (4.6), with S, V and rho varying across 8
 * recordings (A2/A3, four densities, different shakes).  Started from least
 * squares on deliberately perturbed per-recording optima (+-10 %), the
 * Nelder-Mead fit of R (4.7) must cut R by at least 30 % and never end above
 * its start.
 *
 * Not met (see the issue note): R* within 5 % of R at the true coefficients.
 * The recordings are reproduced bit for bit only at exactly the true
 * coefficients (R = noise, ~0.017 cm); any other coefficients move the
 * shaken sheets by 0.2-0.5 cm (the same floor test_recovery documents), so
 * R is ~0.25 cm or more everywhere else and the 8-dimensional simplex stalls
 * around 0.5 cm. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

enum { N = 8, T = 301 };

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
      cf_test_rec_spec sp = {d->rows, d->cols, T, d->w, d->h, d->rho, delta, alpha, d->amp, d->freq, 0.01, 1e-4,
                             (unsigned long long)(11 + i)};
      rec[i] = cf_test_shaken_recording(&sp);
      if (pass < 2) V = cf_speed_measure(T, d->rows * d->cols, 0.01, rec[i]);
    }
    tg[i] = (cf_fit_target){d->rows, d->cols, T, 0.01, rec[i], NULL, 0, NULL, d->rho};
    double sign = i % 2 ? 1 : -1;
    it[i] = (cf_study_item){&tg[i], S, V, delta * (1 + 0.1 * sign), alpha * (1 - 0.1 * sign), NAN};
    printf("recording %d: S %.2f V %.4f rho %.4f -> delta %.4f alpha %.4f\n", i, S, V, d->rho, delta, alpha);
  }
  cf_params base;
  cf_params_default(&base);
  cf_error err;
  double R_true;
  CHECK(cf_regress_objective(it, N, &base, truth, 2, &R_true, &err) == CF_OK, "%s", err.msg);
  cf_regress_result res;
  CHECK(cf_regress_fit(it, N, &base, NULL, 400, 2, NULL, &res, &err) == CF_OK, "%s", err.msg);
  printf("R(true) %.4f cm, R(start) %.4f cm, R* %.4f cm after %d evaluations\n", R_true, res.R_start, res.R,
         res.evaluations);
  for (int k = 0; k < 4; k++)
    printf("  d%d %+.4f (true %+.4f)   a%d %+.4f (true %+.4f)\n", k, res.f.d[k], truth->d[k], k, res.f.a[k],
           truth->a[k]);
  CHECK(res.R <= res.R_start, "R* %.4f above the start %.4f", res.R, res.R_start);
  CHECK(res.R <= 0.7 * res.R_start, "R* %.4f: less than 30 %% below the start %.4f", res.R, res.R_start);
  CHECK(R_true < 0.03, "R at the true coefficients %.4f: the study is not reproduced exactly", R_true);
  for (int i = 0; i < N; i++) free(rec[i]);
  return cf_test_done("test_regress");
}
