/* nelder_mead.c — parameter fit with GSL's nmsimplex2 (thesis §4.1.2). */
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "search.h"

#define PENALTY 1e6 /* cm: worse than any real error, finite for GSL */

typedef cf_search_ctx nm_ctx;

/* Bounds (log10) and simplex step of log-scale parameter k. */
static void log_bounds(int k, double *lo, double *hi, double *step) {
  if (k == CF_STIFF_KAPPA) *lo = log10(CF_FIT_KAPPA_MIN), *hi = log10(CF_FIT_KAPPA_MAX), *step = log10(3.0);
  else if (k == CF_STIFF_BETA) *lo = log10(CF_FIT_BETA_MIN), *hi = log10(CF_FIT_BETA_MAX), *step = log10(3.0);
  else *lo = -3, *hi = 6, *step = log10(2.0);
}

/* The start of log-scale parameter k (its value, not the log10): held's
 * (NULL: base's); a stiffness 0: base's; beta 0: kappa x 0.01 s, within
 * its bounds (cf_nm_options_log_params says why). */
static double log_start(int k, const cf_params *base, const cf_fit_point *held) {
  double kappa = held ? held->kappa : base->kappa, beta = held ? held->beta : base->beta;
  if (k == CF_STIFF_KAPPA) return kappa;
  if (k == CF_STIFF_BETA) return beta > 0 ? beta : fmin(fmax(0.01 * kappa, CF_FIT_BETA_MIN), CF_FIT_BETA_MAX);
  const double from_base[3] = {base->k_stretch, base->k_shear, base->k_bend};
  const double from_held[3] = {held ? held->k_stretch : 0, held ? held->k_shear : 0, held ? held->k_bend : 0};
  double v = from_held[k] > 0 ? from_held[k] : from_base[k];
  return v > 0 ? v : 1;
}

int cf_fit_log_params_check(int n, const cf_params *base, const cf_fit_point *held, unsigned mask, cf_error *err) {
  int nk = 0;
  for (int k = 0; k < CF_STIFF_COUNT; k++) {
    if (!(mask & CF_STIFF_BIT(k))) continue;
    nk++;
    if ((k == CF_STIFF_KAPPA || k == CF_STIFF_BETA) && base->model == CF_CLOTH_MASS_SPRING)
      return cf_error_set(err, CF_EINVAL, "the mass-spring model has no %s to fit: its bending is springs (k_bend, "
                          "held), it has no bending matrix K; fit %s with another model", cf_fit_stiffness_name(k), cf_fit_stiffness_name(k));
    double v = log_start(k, base, held), lo, hi, step;
    log_bounds(k, &lo, &hi, &step);
    if (k >= CF_STIFF_KAPPA && !(log10(v) >= lo - 1e-12 && log10(v) <= hi + 1e-12))
      return cf_error_set(err, CF_EINVAL, "%s starts from its held value %g, outside its fitted range [%g, %g]",
                          cf_fit_stiffness_name(k), v, pow(10, lo), pow(10, hi));
  }
  if (nk > CF_NM_MAXK || n + nk > CF_NM_MAXP)
    return cf_error_set(err, CF_EINVAL, "%d + %d parameters to fit, at most %d log-scale ones and %d in all", n, nk,
                        CF_NM_MAXK, CF_NM_MAXP);
  return CF_OK;
}

int cf_nm_options_log_params(cf_nm_options *o, const cf_params *base, const cf_fit_point *held, unsigned mask,
                             cf_error *err) {
  unsigned have = 0; /* already there */
  for (int j = 0; j < o->nk; j++) have |= CF_STIFF_BIT(o->kpar[j]);
  int rc = cf_fit_log_params_check(o->n, base, held, mask | have, err);
  if (rc) return rc;
  mask &= ~have;
  for (int k = 0; k < CF_STIFF_COUNT; k++) {
    if (!(mask & CF_STIFF_BIT(k))) continue;
    int q = o->n + o->nk;
    o->kpar[o->nk++] = k;
    o->start[q] = log10(log_start(k, base, held));
    log_bounds(k, &o->lo[q], &o->hi[q], &o->step[q]);
  }
  return CF_OK;
}

void cf_nm_options_stiffness(cf_nm_options *o, const cf_params *base) {
  /* the model's own: always within the limits, never an error */
  cf_nm_options_log_params(o, base, NULL, cf_fit_model_stiffness_mask(base->model), NULL);
}

static double objective(const gsl_vector *v, void *params) {
  nm_ctx *c = params;
  double x[CF_NM_MAXP], outside = 0;
  for (int i = 0; i < c->o->n + c->o->nk; i++) {
    x[i] = gsl_vector_get(v, i);
    if (x[i] < c->o->lo[i]) outside += c->o->lo[i] - x[i];
    if (x[i] > c->o->hi[i]) outside += x[i] - c->o->hi[i];
  }
  if (outside > 0) return PENALTY * (1 + outside);
  double e = cf_search_eval(c, x);
  return isfinite(e) ? e : PENALTY;
}

void cf_nm_options_default(cf_nm_options *o, double rho, double delta0, double alpha0) {
  memset(o, 0, sizeof *o);
  o->n = 2;
  o->start[0] = delta0;
  o->start[1] = alpha0;
  o->step[0] = 0.1 * (delta0 > 0 ? delta0 : rho);
  o->step[1] = 0.1 * (alpha0 > 0 ? alpha0 : rho);
  o->lo[0] = o->lo[1] = 0;
  o->hi[0] = fmax(rho, 2 * delta0);
  o->hi[1] = fmax(4 * rho, 2 * alpha0);
  o->max_evals = 200;
  o->size_tol = 1e-4;
  o->restarts = 2;
}

int cf_fit_nelder_mead(cf_fit_run *run, const cf_fit_point *base, const cf_nm_options *o,
                       cf_nm_result *res, cf_error *err) {
  memset(res, 0, sizeof *res);
  if (o->n < 1 || o->n > 3 || o->nk < 0 || o->nk > CF_NM_MAXK || o->n + o->nk > CF_NM_MAXP)
    return cf_error_set(err, CF_EINVAL, "Nelder-Mead: %d + %d parameters, expected 1 to 3 and 0 to %d, at most %d",
                        o->n, o->nk, CF_NM_MAXK, CF_NM_MAXP);
  int dim = o->n + o->nk;
  nm_ctx c = {run, base, o, 0, 0, ""};
  gsl_multimin_function fn = {objective, (size_t)dim, &c};
  gsl_vector *x = gsl_vector_alloc(dim), *step = gsl_vector_alloc(dim);
  gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, dim);
  if (!x || !step || !m) {
    gsl_vector_free(x);
    gsl_vector_free(step);
    if (m) gsl_multimin_fminimizer_free(m);
    return cf_error_set(err, CF_ENOMEM, "Nelder-Mead: out of memory");
  }
  for (int i = 0; i < dim; i++) {
    gsl_vector_set(x, i, o->start[i]);
    gsl_vector_set(step, i, o->step[i]);
  }
  res->f_start = objective(x, &c);
  res->start_failed = c.failed > 0;
  int max_evals = o->max_evals > 0 ? o->max_evals : 200;
  /* GSL's set evaluates the dim + 1 vertices of the first simplex: within
   * a budget that cannot pay for them (--max-evals 1: the error at the start
   * alone) the start is the result, and the budget holds. */
  int rc = CF_OK, status = res->start_failed || c.evals + dim + 1 > max_evals ? GSL_FAILURE : GSL_CONTINUE;
  if (status == GSL_CONTINUE) gsl_multimin_fminimizer_set(m, &fn, x, step);
  double tol = o->size_tol > 0 ? o->size_tol : 1e-4, f_conv = INFINITY;
  for (int restart = 0;; restart++) {
    while (status == GSL_CONTINUE && c.evals < max_evals && rc == CF_OK) {
      if (gsl_multimin_fminimizer_iterate(m)) break;
      res->iterations++;
      double xb[CF_NM_MAXP];
      for (int i = 0; i < dim; i++) xb[i] = gsl_vector_get(m->x, i);
      rc = cf_search_push_path(res, xb, m->fval, dim);
      status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), tol);
    }
    /* restart a converged simplex at its best point while that pays */
    int gained = restart == 0 || f_conv - m->fval > CF_NM_RESTART_GAIN * f_conv;
    if (status != GSL_SUCCESS || restart >= o->restarts || c.evals + dim + 1 > max_evals || !gained || rc)
      break;
    f_conv = m->fval;
    gsl_vector_memcpy(x, m->x);
    gsl_multimin_fminimizer_set(m, &fn, x, step);
    res->restarts++;
    status = GSL_CONTINUE;
  }
  res->converged = status == GSL_SUCCESS;
  /* never end worse than the start (acceptance: NM does not lose the grid
   * optimum); without an iteration GSL's fval is not set yet */
  if (res->iterations > 0 && m->fval <= res->f_start) {
    for (int i = 0; i < dim; i++) res->best[i] = gsl_vector_get(m->x, i);
    res->f_best = m->fval;
  } else {
    memcpy(res->best, o->start, sizeof(double) * dim);
    res->f_best = res->f_start;
  }
  if (res->start_failed) res->f_start = res->f_best = INFINITY; /* not the penalty GSL saw */
  res->evaluations = c.evals, res->failed = c.failed;
  snprintf(res->failure, sizeof res->failure, "%s", c.failure);
  gsl_multimin_fminimizer_free(m);
  gsl_vector_free(x);
  gsl_vector_free(step);
  if (rc) return cf_error_set(err, rc, "Nelder-Mead: out of memory recording the path");
  return CF_OK;
}

const cf_search_type cf_search_nelder_mead = {"nelder-mead", "nelder-mead", cf_fit_nelder_mead};

void cf_nm_result_free(cf_nm_result *res) {
  free(res->path);
  res->path = NULL;
  res->n_path = 0;
}
