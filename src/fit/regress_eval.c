/* regress_eval.c — what the two searches of the regression share (regress.h):
 * one simulation of a recording at a (delta, alpha) with the kappa, beta it
 * holds (cf_regress_sim; CF_REGRESS_PENALTY where it fails), its task id in
 * the journal (cf_regress_sim_id, the same whoever asks), R (4.7) over the
 * study with the items' errors (cf_regress_eval: the simulations spread over
 * the workers and kept in the journal as kind "reg"), and Nelder-Mead over
 * the 8 coefficients (cf_regress_nm8, GSL's nmsimplex2).  regress.c (the
 * reference search on R) and regress_model.c (the search on per-recording
 * error models) build on this file.  Workspace: the caller's arrays and
 * GSL's minimizer, freed before return; failures as CF_E* codes. */
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "parallel.h"
#include "regress.h"

#define PENALTY CF_REGRESS_PENALTY

long cf_regress_progress_total(const cf_regress_options *o) {
  int evals = o->max_evals > 0 ? o->max_evals : 400;
  if (o->search == CF_REGRESS_NM) return evals;
  return CF_REGRESS_DESIGN + (evals < 1 + CF_REGRESS_ROUNDS ? evals : 1 + CF_REGRESS_ROUNDS);
}

int cf_regress_sim(const cf_study_item *it, const cf_params *base, double delta, double alpha, double *e) {
  cf_fit_point pt = {.delta = delta,
                     .alpha = alpha,
                     .beta = it->beta > 0 ? it->beta : base->beta,
                     .kappa = it->kappa > 0 ? it->kappa : base->kappa}; /* the item's fitted, else base's */
  *e = PENALTY;
  if (!(pt.delta >= 0 && pt.alpha >= 0)) return CF_OK; /* outside the model's domain */
  cf_error err;
  cf_fit_run *run = cf_fit_run_alloc(it->tg, base, &err);
  if (!run) return CF_OK;
  cf_fit_result r;
  int rc = cf_fit_run_eval(run, &pt, 0, 0, 0, NULL, &r);
  if (rc == CF_OK && r.status == CF_OK && isfinite(r.err.e_cm)) *e = r.err.e_cm;
  cf_fit_run_free(run);
  return rc;
}

unsigned long long cf_regress_sim_id(const char *kind, int i, const cf_study_item *it, const cf_params *base,
                                     double delta, double alpha) {
  double x[8 + CF_FIT_TARGET_KEY] = {delta, alpha, it->tg->T, it->tg->rho, it->S, it->V,
                                     it->kappa > 0 ? it->kappa : base->kappa, it->beta > 0 ? it->beta : base->beta};
  cf_fit_target_key(it->tg, x + 8);
  return cf_task_id(kind, i, x, 8 + CF_FIT_TARGET_KEY);
}

typedef struct {
  const cf_study_item *items;
  const cf_params *base;
  const cf_formula *f;
} r_ctx;

static int r_item(int i, void *arg, void *out, cf_error *werr) {
  (void)werr;
  r_ctx *c = arg;
  const cf_study_item *it = &c->items[i];
  double d, a;
  cf_formula_predict(c->f, it->S, it->V, it->tg->rho, &d, &a);
  return cf_regress_sim(it, c->base, d, a, out);
}

/* A regression simulation's task id: the recording (with its rest metric
 * and mesh), the (delta, alpha) the formula gives it and the kappa, beta
 * it holds. */
static unsigned long long r_id(int i, const void *arg) {
  const r_ctx *c = arg;
  const cf_study_item *it = &c->items[i];
  double d, a;
  cf_formula_predict(c->f, it->S, it->V, it->tg->rho, &d, &a);
  return cf_regress_sim_id("reg", i, it, c->base, d, a);
}

int cf_regress_eval(const cf_study_item *items, int n, const cf_params *base, const cf_formula *f, int workers,
                    const cf_fit_journal *kept, double *e, double *R, cf_error *err) {
  r_ctx c = {items, base, f};
  int rc = cf_parallel_run_kept(n, workers, sizeof(double), NULL, r_item, &c, e, NULL, kept, "reg", r_id, err);
  double s = 0;
  for (int i = 0; i < n; i++) s += e[i];
  *R = s / n;
  return rc;
}

int cf_regress_objective(const cf_study_item *items, int n, const cf_params *base,
                         const cf_formula *f, int workers, double *R, cf_error *err) {
  double *e = calloc((size_t)n, sizeof *e);
  if (!e) return cf_error_set(err, CF_ENOMEM, "regression: out of memory");
  int rc = cf_regress_eval(items, n, base, f, workers, NULL, e, R, err);
  free(e);
  return rc;
}

void cf_regress_unpack(const gsl_vector *v, cf_formula *f) {
  for (int k = 0; k < 4; k++) {
    f->d[k] = gsl_vector_get(v, k);
    f->a[k] = gsl_vector_get(v, 4 + k);
  }
}

/* Simplex steps: 10 % of each coefficient's typical contribution. */
void cf_regress_steps(const cf_study_item *it, int n, const cf_formula *f, gsl_vector *x, gsl_vector *st) {
  double mS = 0, mV = 0, mr = 0;
  for (int i = 0; i < n; i++) {
    mS += it[i].S / n;
    mV += it[i].V / n;
    mr += it[i].tg->rho / n;
  }
  double scale[4] = {1, mS > 0 ? 1 / mS : 1, mV > 0 ? 1 / mV : 1, mr > 0 ? 1 / mr : 1};
  for (int k = 0; k < 4; k++) {
    gsl_vector_set(x, k, f->d[k]);
    gsl_vector_set(x, 4 + k, f->a[k]);
    gsl_vector_set(st, k, 0.1 * fmax(fabs(f->d[k]), 0.01 * scale[k]));
    gsl_vector_set(st, 4 + k, 0.1 * fmax(fabs(f->a[k]), 0.05 * scale[k]));
  }
}

int cf_regress_nm8(gsl_multimin_function *fn, const cf_study_item *items, int n, const cf_formula *start,
                   double size_tol, int (*stop)(void *arg), void *arg, cf_formula *f, double *fval, int *iterations) {
  gsl_vector *x = gsl_vector_alloc(8), *st = gsl_vector_alloc(8);
  gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, 8);
  *iterations = 0;
  int rc = x && st && m ? CF_OK : CF_ENOMEM;
  if (rc == CF_OK) {
    cf_regress_steps(items, n, start, x, st);
    gsl_multimin_fminimizer_set(m, fn, x, st);
  }
  int status = GSL_CONTINUE;
  while (rc == CF_OK && status == GSL_CONTINUE && !(stop && stop(arg))) {
    if (gsl_multimin_fminimizer_iterate(m)) break;
    ++*iterations;
    status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), size_tol);
  }
  if (rc == CF_OK && *iterations > 0) { /* fval is set by iterate */
    cf_regress_unpack(m->x, f);
    *fval = m->fval;
  }
  if (m) gsl_multimin_fminimizer_free(m);
  gsl_vector_free(x);
  gsl_vector_free(st);
  return rc;
}
