/* compare.c — which cloth model explains a recording (cf_fit.h,
 * cf_fit_compare; thesis §4.1.4, Table 4.3).
 *
 * Each model is fitted from the same start by the same Nelder-Mead as
 * `fit` (its stiffnesses as log10: they span decades, and a simplex step
 * of a factor 2 explores them as evenly as 10 % explores delta), one model
 * per worker process, and then simulated over the recording once more to
 * measure the testing window, the time and the projection's iterations.
 * The thesis compares the models' error over the last 7 s of a 14 s
 * motion, after fitting each; the caller chooses the windows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cf_fit.h"
#include "parallel.h"

typedef struct {
  const cf_fit_target *tg;
  const cf_params *base;
  const cf_fit_point *fixed;
  const int *models;
  const cf_compare_options *o;
} compare_ctx;

/* The fit of model i, then its testing window. */
static int compare_item(int i, void *arg, void *out, cf_error *werr) {
  (void)werr;
  const compare_ctx *c = arg;
  cf_compare_row *row = out;
  cf_params p = *c->base;
  p.model = c->models[i];
  row->model = p.model;
  cf_error err = {0, ""};
  cf_fit_run *run = cf_fit_run_alloc(c->tg, &p, &err);
  if (!run) {
    row->status = err.code ? err.code : CF_EINVAL;
    snprintf(row->reason, sizeof row->reason, "%s", err.msg);
    return row->status == CF_ENOMEM ? CF_ENOMEM : CF_OK;
  }
  cf_nm_options o;
  cf_nm_options_default(&o, c->tg->rho, c->o->delta0, c->o->alpha0);
  cf_nm_options_stiffness(&o, &p);
  o.t0 = c->o->t0, o.t1 = c->o->t1;
  o.max_evals = c->o->max_evals > 0 ? c->o->max_evals : 100 * (o.n + o.nk);
  o.search = c->o->search;
  row->nk = o.nk;
  memcpy(row->kpar, o.kpar, sizeof row->kpar);
  cf_nm_result nr;
  double t = cf_fit_now();
  int rc = cf_fit_minimize(run, c->fixed, &o, &nr, &err);
  row->fit_wall_s = cf_fit_now() - t;
  if (rc) {
    cf_fit_run_free(run);
    row->status = rc;
    snprintf(row->reason, sizeof row->reason, "%s", err.msg);
    return rc == CF_ENOMEM ? CF_ENOMEM : CF_OK;
  }
  row->fit = *c->fixed;
  row->fit.k_stretch = p.k_stretch, row->fit.k_shear = p.k_shear, row->fit.k_bend = p.k_bend;
  cf_fit_point_set_all(&row->fit, &o, nr.best);
  row->e_train_cm = nr.f_best, row->evaluations = nr.evaluations, row->converged = nr.converged;
  cf_fit_result r;
  if (nr.start_failed) {
    row->status = CF_ENOCONV;
    snprintf(row->reason, sizeof row->reason, "the fit's start failed: %.200s", nr.failure);
  } else if (cf_fit_run_eval(run, &row->fit, c->o->test_t0, c->o->test_t1, 0, NULL, &r) || r.status) {
    row->status = r.status ? r.status : CF_EINVAL;
    snprintf(row->reason, sizeof row->reason, "%s", r.reason);
  } else {
    row->e_test_cm = r.err.e_cm, row->s_test_cm = r.err.s_cm, row->d_max_test_cm = r.err.d_max_cm;
    row->wall_s = r.wall_s;
    row->iters_per_step = r.frames > 0 ? (double)r.iterations / r.frames : 0;
  }
  cf_nm_result_free(&nr);
  cf_fit_run_free(run);
  return CF_OK;
}

/* A model's task id within one run (the journal's key covers the command
 * line and the input files): the model, the start, the windows and budget,
 * the held parameters, the stiffnesses it starts from, the recording's
 * length, density, rest metric and mesh. */
static unsigned long long compare_id(int i, const void *arg) {
  const compare_ctx *c = arg;
  const cf_compare_options *o = c->o;
  const cf_params *b = c->base;
  const cf_fit_point *f = c->fixed;
  enum { H = 19, N = H + CF_FIT_TARGET_KEY };
  double x[N] = {c->models[i], o->delta0, o->alpha0, o->t0, o->t1, o->test_t0, o->test_t1, o->max_evals,
                 f->kappa, f->beta, f->mu, b->tol, b->max_iter, b->k_stretch, b->k_shear, b->k_bend,
                 c->tg->T, c->tg->rho, o->search};
  cf_fit_target_key(c->tg, x + H);
  return cf_task_id("compare", i, x, N);
}

int cf_fit_compare(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *fixed, int n,
                   const int *models, const cf_compare_options *o, int workers, const cf_fit_journal *kept,
                   const cf_fit_progress *progress, cf_compare_row *rows, cf_error *err) {
  for (int i = 0; i < n; i++)
    if (models[i] < 0 || models[i] >= CF_CLOTH_MODELS)
      return cf_error_set(err, CF_EINVAL, "compare: model %d of %d is %d, expected 0..%d", i + 1, n, models[i],
                          CF_CLOTH_MODELS - 1);
  compare_ctx c = {tg, base, fixed, models, o};
  return cf_parallel_run_kept(n, workers, sizeof *rows, NULL, compare_item, &c, rows, progress, kept, "compare",
                              compare_id, err);
}
