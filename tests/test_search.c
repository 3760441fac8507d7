/* test_search.c — every search of cf_fit_minimize (Nelder-Mead, the
 * trust-region search of trust.c, Levenberg-Marquardt of lm.c) on the same problems, as GSL's multimin
 * tests run every minimiser type: recordings made by the fitting model
 * itself (an A2 sheet shaken at its top corners, 3 s, 2 mm marker noise),
 * with truths drawn over the default grid's box and four noise seeds, fitted
 * from a start 35 % off in both parameters.
 *
 * Asserted for each search and recording:
 *   - the fit never ends worse than its start, stays inside the bounds and
 *     within the budget, and its path ends at the result;
 *   - delta and alpha within 10 % of the truth (the model's own recordings:
 *     the noise moves the optimum by a few per cent, docs/confidence.md);
 * and of the trust-region search against Nelder-Mead on each recording:
 *   - its training error at most 1 % above Nelder-Mead's;
 *   - at most 60 % of Nelder-Mead's simulations in total (54 % when written);
 * and of Levenberg-Marquardt against Nelder-Mead, on these problems and on
 * the same made smooth (same_problems says how):
 *   - its mean error within 2 % of Nelder-Mead's (it minimizes the sum of
 *     squares of the frames' errors, another point of the same basin);
 *   - on a flat start its tangent check flags every recording and the fit
 *     is Nelder-Mead's, exactly; where it runs to its end, it costs fewer
 *     simulations than Nelder-Mead (one with sensitivities counted as
 *     CF_FIT_SENS_COST); where it stalls, Nelder-Mead goes on from its point.
 * Then the cases at the edges: a start on the lower bound of delta, a
 * budget smaller than the first design (the result is the best point seen,
 * the budget holds), a third parameter (log10 kappa) fitted on a recording
 * made with kappa 1e-5 from 1e-3 (both searches within a factor 3 of it, the
 * trust region's error within 5 % of Nelder-Mead's: this surface is rough,
 * and the two searches' ratio moves from 0.95 to 1.04 with the BLAS kernel
 * set), and a start whose simulation fails (start_failed, nothing else
 * evaluated).
 *
 * The printed table gives each fit's errors and simulations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

enum { N = 4, ROWS = 5, COLS = 4, T = 300 };
#define LM_MEAN_SLACK 1.02
#define SMOOTH_SLACK 1e-3
#define T_SMOOTH 150
#define SMOOTH_BETA 1e-4
static const double RHO = 0.1042;

static cf_fit_target target(double *pos, int frames) {
  return (cf_fit_target){ROWS, COLS, frames, 0.01, pos, NULL, 0, NULL, RHO, {0}, NULL, 0, 0, 0, 0, {0, 0}, 0, 0,
                         0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
}

static double *recording(int i, double delta, double alpha, double kappa, int frames, double beta) {
  cf_test_rec_spec sp = {.rows = ROWS, .cols = COLS, .T = frames, .width = 0.42, .height = 0.594, .rho = RHO,
                         .delta = delta, .alpha = alpha, .amplitude = 0.08, .frequency = 0.6 + 0.1 * i, .dt = 0.01,
                         .noise = 2e-3, .seed = 7100 + (unsigned long long)i, .kappa = kappa, .beta = beta,
                         .tol = 1e-4};
  return cf_test_shaken_recording(&sp);
}

static int fit(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *fixed, cf_nm_options *o,
               int search, cf_nm_result *r) {
  o->search = search;
  cf_error err = {0, ""};
  cf_fit_run *run = cf_fit_run_alloc(tg, base, &err);
  int rc = run ? cf_fit_minimize(run, fixed, o, r, &err) : CF_EINVAL;
  CHECK(rc == CF_OK, "search %d: %s", search, err.msg);
  cf_fit_run_free(run);
  return rc;
}

/* What every search must hold on any problem. */
static void common(const char *what, const cf_nm_options *o, const cf_nm_result *r) {
  int dim = o->n + o->nk;
  CHECK(r->f_best <= r->f_start, "%s: ends at %g, worse than its start %g", what, r->f_best, r->f_start);
  for (int j = 0; j < dim; j++)
    CHECK(r->best[j] >= o->lo[j] && r->best[j] <= o->hi[j], "%s: parameter %d = %g outside [%g, %g]", what, j,
          r->best[j], o->lo[j], o->hi[j]);
  CHECK(r->evaluations <= o->max_evals, "%s: %d simulations, budget %d", what, r->evaluations, o->max_evals);
  if (r->n_path > 0)
    CHECK(r->path[r->n_path - 1].f >= r->f_best - 1e-12, "%s: the path ends below the result", what);
}

static const char *const NAMES[3] = {"Nelder-Mead", "trust region", "Levenberg-M."};
static const int SEARCHES[3] = {CF_SEARCH_NM, CF_SEARCH_TRUST, CF_SEARCH_LM};

/* A fit's cost in simulations without sensitivities. */
static int cost(const cf_nm_result *r) { return r->evaluations + (CF_FIT_SENS_COST - 1) * r->sens_evaluations; }

/* The problems as they are (smooth 0: 3 s from a flat start, where the
 * tangents grow by tens of orders of magnitude and Levenberg-Marquardt's
 * tangent check hands every fit to Nelder-Mead), or made smooth (the
 * trust region not run): 1.5 s, cf_test_smooth_start, beta 1e-4 (recorded
 * and held) and truths in the upper part of the box (delta 0.75-0.95 rho,
 * alpha 3.3-3.9 rho): with less damping, or 3 s, the tangents at the start
 * grow past what a step of 10 % shows (the check measured 1.0-1.3 on such
 * recordings). */
static void same_problems(const cf_params *base, int smooth) {
  cf_fit_point fixed = {.kappa = 1e-3, .beta = smooth ? SMOOTH_BETA : 0};
  unsigned long long s = 2027;
  int total[3] = {0, 0, 0}, lm_ran = 0;
  for (int i = 0; i < N; i++) {
    double u = cf_test_rand(&s), v = cf_test_rand(&s); /* uniform on [-1, 1] */
    double d = RHO * (smooth ? 0.85 + 0.1 * u : 0.45 + 0.25 * u), a = RHO * (smooth ? 3.6 + 0.3 * v : 2.0 + 1.2 * v);
    int frames = smooth ? T_SMOOTH : T;
    double *pos = recording(i, d, a, 1e-3, frames, smooth ? SMOOTH_BETA : 0);
    if (smooth) cf_test_smooth_start(pos, ROWS, COLS, frames, 7100 + (unsigned long long)i, SMOOTH_SLACK);
    cf_fit_target tg = target(pos, frames);
    cf_nm_result r[3];
    cf_nm_options o[3];
    for (int k = 0; k < 3; k++) {
      memset(&r[k], 0, sizeof r[k]);
      if (smooth && SEARCHES[k] == CF_SEARCH_TRUST) continue;
      cf_nm_options_default(&o[k], RHO, 1.35 * d, 0.65 * a);
      o[k].max_evals = 200;
      fit(&tg, base, &fixed, &o[k], SEARCHES[k], &r[k]);
      char what[64];
      snprintf(what, sizeof what, "recording %d%s, %s", i, smooth ? " (smooth)" : "", NAMES[k]);
      common(what, &o[k], &r[k]);
      double md = r[k].best[0] / d - 1, ma = r[k].best[1] / a - 1;
      printf("%d%s truth (%.4f, %.4f) %-13s (%.4f, %.4f) %+5.1f %% %+5.1f %%  error %.4f cm  %3d simulations "
             "(%d with sensitivities, cost %d)%s\n", i, smooth ? "s" : "", d, a, NAMES[k], r[k].best[0], r[k].best[1],
             100 * md, 100 * ma, r[k].f_best, r[k].evaluations, r[k].sens_evaluations, cost(&r[k]),
             r[k].fallback ? (r[k].tangent_secant > CF_FIT_CHAOS_MAX ? ", fell back" : ", stalled") : "");
      CHECK(fabs(md) <= 0.1 && fabs(ma) <= 0.1, "%s: (%.4f, %.4f) more than 10 %% off the truth (%.4f, %.4f)", what,
            r[k].best[0], r[k].best[1], d, a);
      total[k] += cost(&r[k]);
    }
    if (!smooth)
      CHECK(r[1].f_best <= 1.01 * r[0].f_best, "recording %d: trust region %.5f cm, more than 1 %% above "
            "Nelder-Mead's %.5f", i, r[1].f_best, r[0].f_best);
    /* Levenberg-Marquardt minimizes the sum of squares of the frames' errors, not their mean: its optimum
     * is another point of the same basin, its mean error within LM_MEAN_SLACK of Nelder-Mead's (measured:
     * 1.6 % above on the smooth recording 2) */
    CHECK(r[2].f_best <= LM_MEAN_SLACK * r[0].f_best, "recording %d: Levenberg-Marquardt %.5f cm, more than "
          "%g %% above Nelder-Mead's %.5f", i, r[2].f_best, 100 * (LM_MEAN_SLACK - 1), r[0].f_best);
    if (r[2].fallback && r[2].tangent_secant > CF_FIT_CHAOS_MAX) /* Nelder-Mead on the budget the check left */
      CHECK(r[2].f_best == r[0].f_best, "recording %d: Levenberg-Marquardt fell back (check %g) and ended at %.5f cm, "
            "not at Nelder-Mead's %.5f", i, r[2].tangent_secant, r[2].f_best, r[0].f_best);
    else if (!r[2].fallback) /* (a fit that stalled and went on by Nelder-Mead: its error is checked above) */
      CHECK(cost(&r[2]) < cost(&r[0]), "recording %d: Levenberg-Marquardt cost %d, Nelder-Mead %d", i, cost(&r[2]),
            cost(&r[0]));
    if (!smooth) /* a flat start: the tangents grow by tens of orders of magnitude */
      CHECK(r[2].fallback, "recording %d: the tangent check %g passed a flat start's tangents", i, r[2].tangent_secant);
    lm_ran += !(r[2].fallback && r[2].tangent_secant > CF_FIT_CHAOS_MAX);
    for (int k = 0; k < 3; k++) cf_nm_result_free(&r[k]);
    free(pos);
  }
  printf("%s: simulations (one with sensitivities counted as %d): Nelder-Mead %d, trust region %d, "
         "Levenberg-Marquardt %d\n", smooth ? "smooth" : "as recorded", CF_FIT_SENS_COST, total[0], total[1], total[2]);
  printf("%s: Levenberg-Marquardt passed its tangent check on %d of %d recordings\n", smooth ? "smooth" : "as recorded",
         lm_ran, N);
  if (!smooth)
    CHECK(total[1] <= 0.6 * total[0], "the trust region took %d simulations, Nelder-Mead %d (at most 60 %% expected)",
          total[1], total[0]);
}

static void edges(const cf_params *base) {
  cf_fit_point fixed = {.kappa = 1e-3};
  double d = RHO * 0.2, a = RHO * 2;
  double *pos = recording(0, d, a, 1e-3, T, 0);
  cf_fit_target tg = target(pos, T);
  cf_nm_options o;
  cf_nm_result r;
  /* a start on delta's lower bound: the design goes inwards */
  cf_nm_options_default(&o, RHO, 0.5 * d, a);
  o.lo[0] = 0.5 * d, o.max_evals = 100;
  fit(&tg, base, &fixed, &o, CF_SEARCH_TRUST, &r);
  common("start on the bound", &o, &r);
  CHECK(fabs(r.best[0] / d - 1) <= 0.1, "start on the bound: delta %.4f, truth %.4f", r.best[0], d);
  cf_nm_result_free(&r);
  /* a budget smaller than the first design */
  cf_nm_options_default(&o, RHO, 1.3 * d, 1.3 * a);
  o.max_evals = 4;
  fit(&tg, base, &fixed, &o, CF_SEARCH_TRUST, &r);
  common("budget 4", &o, &r);
  CHECK(r.evaluations == 4 && !r.converged, "budget 4: %d simulations, converged %d", r.evaluations, r.converged);
  cf_nm_result_free(&r);
  /* kappa fitted too (log10): a recording made with kappa 1e-5, from 1e-3 */
  double *pk = recording(1, d, a, 1e-5, T, 0);
  cf_fit_target tk = target(pk, T);
  cf_nm_result rk[2];
  for (int k = 0; k < 2; k++) {
    cf_nm_options_default(&o, RHO, d, a);
    CHECK(cf_nm_options_log_params(&o, base, &fixed, CF_STIFF_BIT(CF_STIFF_KAPPA), NULL) == CF_OK, "log params");
    o.max_evals = 300;
    fit(&tk, base, &fixed, &o, k ? CF_SEARCH_TRUST : CF_SEARCH_NM, &rk[k]);
    common(k ? "kappa fitted, trust region" : "kappa fitted, Nelder-Mead", &o, &rk[k]);
    printf("kappa fitted, %-13s (%.4f, %.4f, kappa %.3g) error %.4f cm (start %.4f) %d simulations\n",
           k ? "trust region" : "Nelder-Mead", rk[k].best[0], rk[k].best[1], pow(10, rk[k].best[2]), rk[k].f_best,
           rk[k].f_start, rk[k].evaluations);
  }
  /* this surface is rougher (kappa 1e-5 recorded at tol 1e-4): the ratio of the two searches' errors was 0.961,
   * 0.950 and 1.044 with OPENBLAS_CORETYPE Haswell, Prescott and SkylakeX */
  CHECK(rk[1].f_best <= 1.05 * rk[0].f_best, "kappa fitted: trust region %.5f cm, Nelder-Mead %.5f", rk[1].f_best,
        rk[0].f_best);
  for (int k = 0; k < 2; k++)
    CHECK(fabs(rk[k].best[2] + 5) <= log10(3.0), "kappa fitted: %s's kappa %.3g, recorded 1e-5 (a factor 3 allowed)",
          k ? "the trust region" : "Nelder-Mead", pow(10, rk[k].best[2]));
  CHECK(rk[1].f_best < 0.9 * rk[1].f_start, "kappa fitted: the trust region lowered the error only from %.4f to "
        "%.4f", rk[1].f_start, rk[1].f_best);
  for (int k = 0; k < 2; k++) cf_nm_result_free(&rk[k]);
  /* a start whose simulation fails: one projection iteration allowed */
  cf_params strict = *base;
  strict.max_iter = 1, strict.tol = 1e-12;
  cf_nm_options_default(&o, RHO, d, a);
  fit(&tg, &strict, &fixed, &o, CF_SEARCH_TRUST, &r);
  CHECK(r.start_failed && r.evaluations == 1 && isinf(r.f_best), "failing start: start_failed %d, %d simulations, "
        "error %g", r.start_failed, r.evaluations, r.f_best);
  cf_nm_result_free(&r);
  free(pos), free(pk);
}

int main(void) {
  cf_runtime_init();
  cf_params base;
  cf_params_default(&base);
  base.tol = 1e-4;
  same_problems(&base, 0);
  same_problems(&base, 1);
  edges(&base);
  return cf_test_done("test_search");
}
