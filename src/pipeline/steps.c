/* steps.c — the fitting steps (cf_pipeline.h): a grid
 * sweep of one recording, the Nelder-Mead refinement with its training and
 * testing errors and per-frame series, one evaluation and the regression.
 * Every simulation of a recording uses the model settings it carries
 * (in->base, in->fixed), and every part stored records them. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

/* src/fit's messages say "recording: ..."; name the file instead. */
static int with_file(const cf_fit_input *in, cf_error *err, int rc) {
  if (rc && err && strncmp(err->msg, in->path, strlen(in->path))) {
    char msg[sizeof err->msg];
    const char *m = strncmp(err->msg, "recording: ", 11) ? err->msg : err->msg + 11;
    snprintf(msg, sizeof msg, "%.200s: %.300s", in->path, m);
    memcpy(err->msg, msg, sizeof msg);
  }
  return rc;
}

int cf_pl_sweep(const cf_fit_input *in, const cf_pipeline_grid *gd, const cf_pipeline_grid *ga,
                const cf_pipeline_grid *gm, int t0, int t1, int workers, double prune, const cf_pipeline_progress *pr,
                long offset, cf_pipeline_tasks *tasks, cf_res_rec *rec, cf_error *err) {
  int nm = gm ? gm->n : 0;
  double *dl = cf_pipeline_axis(gd, in->tg.rho), *al = cf_pipeline_axis(ga, in->tg.rho);
  double *ml = nm ? cf_pipeline_axis(gm, 1) : NULL;
  cf_pl_count count;
  cf_sweep_options o = {gd->n, ga->n, dl, al, t0, t1, workers, prune > 0, cf_pl_count_start(&count, pr, offset), 0, 0,
                        0, NULL, prune, nm, ml};
  cf_pl_tasks_apply(tasks, &o);
  cf_sweep_result sr;
  int rc = !dl || !al || (nm && !ml) ? cf_error_set(err, CF_ENOMEM, "out of memory")
                                     : cf_sweep_run(&in->tg, &in->base, &in->fixed, &o, &sr, err);
  if (!rc && tasks) tasks->resumed += sr.resumed, tasks->ran += sr.ran;
  if (!rc) {
    cf_res_rec_describe(rec, in);
    if (cf_res_set_sweep(rec, &o, &sr, in->tg.dt)) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
    rec->sweep.model = cf_res_model_of(in);
    cf_res_sweep_mu_of_best(&rec->sweep);
    cf_sweep_result_free(&sr);
  }
  free(dl);
  free(al);
  free(ml);
  return with_file(in, err, rc);
}

int cf_pipeline_sweep(const cf_fit_input *in, const cf_pipeline_grid *gd, const cf_pipeline_grid *ga,
                      const cf_pipeline_grid *gm, int t0, int t1, int workers, double prune,
                      const cf_pipeline_progress *pr, cf_pipeline_tasks *tasks, cf_res_rec *rec, cf_error *err) {
  return cf_pl_sweep(in, gd, ga, gm, t0, t1, workers, prune, pr, 0, tasks, rec, err);
}

/* Means over the frames outside [t0, t1). */
static cf_window_error window_except(const cf_frame_error *fe, int T, int t0, int t1) {
  cf_window_error a = cf_metric_window(fe, T, 0, t0), b = cf_metric_window(fe, T, t1, T), w = {NAN, NAN, 0, 0};
  w.frames = a.frames + b.frames;
  if (w.frames == 0) return w;
  double fa = a.frames ? (double)a.frames / w.frames : 0, fb = b.frames ? (double)b.frames / w.frames : 0;
  w.e_cm = (fa ? fa * a.e_cm : 0) + (fb ? fb * b.e_cm : 0);
  w.s_cm = (fa ? fa * a.s_cm : 0) + (fb ? fb * b.s_cm : 0);
  w.d_max_cm = fmax(a.frames ? a.d_max_cm : 0, b.frames ? b.d_max_cm : 0);
  return w;
}

static int store_path(cf_res_fit *f, const cf_nm_result *nr) {
  free(f->path);
  f->n_path = nr->n_path;
  f->path = malloc(sizeof(double) * 4 * (nr->n_path + 1));
  if (!f->path) return CF_ENOMEM;
  for (int i = 0; i < nr->n_path; i++) {
    double *p = f->path + 4 * i;
    p[0] = nr->path[i].x[0], p[1] = nr->path[i].x[1], p[3] = nr->path[i].f;
    p[2] = f->n_params > 2 ? nr->path[i].x[2] : NAN;
  }
  return CF_OK;
}

/* The log-scale parameters fitted besides the model's stiffnesses (kappa,
 * beta): their flags and starts (o's, the values held before the fit). */
static void store_log_params(cf_res_fit *f, const cf_nm_options *o) {
  f->kappa_fitted = f->beta_fitted = 0;
  f->start_kappa = f->start_beta = NAN;
  for (int j = 0; j < o->nk; j++) {
    double x0 = pow(10, o->start[o->n + j]);
    if (o->kpar[j] == CF_STIFF_KAPPA) f->kappa_fitted = 1, f->start_kappa = x0;
    if (o->kpar[j] == CF_STIFF_BETA) f->beta_fitted = 1, f->start_beta = x0;
  }
}

static void store_fit(const cf_fit_input *in, cf_res_fit *f, const cf_nm_options *o, const cf_nm_result *nr,
                      const char *start_kind, double d0, double a0) {
  snprintf(f->method, sizeof f->method, "%s", cf_fit_search_method(o->search));
  snprintf(f->start_kind, sizeof f->start_kind, "%s", start_kind);
  f->n_params = in->fit_mu ? 3 : 2;
  f->start[0] = d0, f->start[1] = a0, f->start[2] = in->fit_mu ? in->fixed.mu : NAN;
  f->x[0] = nr->best[0], f->x[1] = nr->best[1], f->x[2] = in->fit_mu ? nr->best[2] : NAN;
  f->f_start = nr->f_start, f->f_best = nr->f_best;
  f->evaluations = nr->evaluations, f->iterations = nr->iterations, f->converged = nr->converged;
  f->failed_evaluations = nr->failed;
  snprintf(f->failure, sizeof f->failure, "%s", nr->failure);
  f->tangent_secant = nr->tangent_secant, f->sens_evaluations = nr->sens_evaluations;
  snprintf(f->fallback_why, sizeof f->fallback_why, "%s", nr->fallback ? nr->fallback_why : "");
  snprintf(f->starts_tried, sizeof f->starts_tried, "%s", start_kind);
  int which[3], nk = cf_fit_model_stiffness(in->base.model, which);
  f->stiffness[0] = 0;
  for (int j = 0; j < nk; j++)
    snprintf(f->stiffness + strlen(f->stiffness), sizeof f->stiffness - strlen(f->stiffness), "%s%s", j ? " " : "",
             cf_fit_stiffness_name(which[j]));
  store_log_params(f, o);
}

/* Errors of the optimum on the windows from its per-frame errors. */
static void store_windows(cf_res_rec *rec, const cf_frame_error *fe, const cf_fit_result *r, int T, int t0, int t1,
                          double dt) {
  cf_res_fit *f = &rec->fit;
  cf_window_error tr = cf_metric_window(fe, T, t0, t1), te = window_except(fe, T, t0, t1);
  int ok = r->status == CF_OK;
  f->train_t0_s = t0 * dt, f->train_t1_s = t1 * dt;
  f->e_train = ok ? tr.e_cm : INFINITY, f->s_train = ok ? tr.s_cm : INFINITY;
  f->e_test = ok ? te.e_cm : INFINITY, f->s_test = ok ? te.s_cm : INFINITY;
  f->e_all = r->err.e_cm, f->s_all = r->err.s_cm;
  snprintf(f->optimum_failure, sizeof f->optimum_failure, "%s", ok ? "" : r->reason[0] ? r->reason : "failed");
}

/* (delta, alpha) with the parameters in holds. */
static cf_fit_point point_at(const cf_fit_input *in, double delta, double alpha) {
  cf_fit_point pt = in->fixed;
  pt.delta = delta, pt.alpha = alpha;
  return pt;
}

/* The stiffnesses, kappa and beta of the settings m (a fit's, held or
 * fitted there; may be NULL) held at pt. */
void cf_pl_held_model(cf_fit_point *pt, const cf_res_model *m) {
  if (!m) return;
  if (isfinite(m->k_stretch)) pt->k_stretch = m->k_stretch;
  if (isfinite(m->k_shear)) pt->k_shear = m->k_shear;
  if (isfinite(m->k_bend)) pt->k_bend = m->k_bend;
  if (isfinite(m->kappa)) pt->kappa = m->kappa;
  if (isfinite(m->beta)) pt->beta = m->beta;
}

/* in with the log-scale parameters of the optimum of nr (fitted with o:
 * stiffnesses, kappa, beta) held, for the steps after the fit (a shallow
 * copy: it shares in's arrays). */
static cf_fit_input fitted_input(const cf_fit_input *in, const cf_nm_options *o, const cf_nm_result *nr) {
  cf_fit_input f = *in;
  cf_fit_point pt = in->fixed;
  cf_fit_point_set_all(&pt, o, nr->best);
  f.fixed.k_stretch = pt.k_stretch, f.fixed.k_shear = pt.k_shear, f.fixed.k_bend = pt.k_bend;
  f.fixed.kappa = pt.kappa, f.fixed.beta = pt.beta;
  return f;
}

/* mu's simplex step and bounds when it is fitted (thesis Table 4.7: fitted
 * values 0 to 2). */
#define CF_PL_MU_STEP 0.2
#define CF_PL_MU_MAX 3.0

/* The options of in's fit: delta, alpha[, mu], then as log10 the model's
 * stiffnesses and in->fit_log (kappa, beta) from in->fixed's; CF_EINVAL
 * naming the recording for a log-scale parameter that cannot be fitted. */
static int nm_options(const cf_fit_input *in, double d0, double a0, int t0, int t1, int max_evals, cf_nm_options *o,
                      cf_error *err) {
  cf_nm_options_default(o, in->tg.rho, d0, a0);
  if (in->fit_mu) {
    o->n = 3;
    o->start[2] = in->fixed.mu, o->step[2] = CF_PL_MU_STEP, o->lo[2] = 0, o->hi[2] = CF_PL_MU_MAX;
  }
  cf_error e = {0, ""};
  if (cf_nm_options_log_params(o, &in->base, &in->fixed, cf_fit_model_stiffness_mask(in->base.model) | in->fit_log,
                               &e))
    return cf_error_set(err, CF_EINVAL, "%s: %s", in->path, e.msg);
  o->t0 = t0, o->t1 = t1, o->max_evals = max_evals > 0 ? max_evals : o->nk ? 100 * (o->n + o->nk) : 200;
  o->search = in->search;
  return CF_OK;
}

/* in->polish: the response-surface estimate around nr's optimum into pr
 * (pr->applied = 0 without; its x is then nr's). */
static int polish(const cf_fit_input *in, const cf_nm_result *nr, int t0, int t1, int workers,
                  const cf_fit_journal *kept, cf_polish_result *pr, cf_error *err) {
  memset(pr, 0, sizeof *pr);
  memcpy(pr->x, nr->best, sizeof pr->x);
  if (!in->polish) return CF_OK;
  cf_polish_options po = {in->fit_mu ? 3 : 2, {nr->best[0], nr->best[1], nr->best[2]}, t0, t1};
  return cf_fit_polish(&in->tg, &in->base, &in->fixed, &po, workers, kept, pr, err);
}

static void store_polish(const cf_fit_input *in, cf_res_fit *f, const cf_nm_result *nr, const cf_polish_result *pr) {
  snprintf(f->polish, sizeof f->polish, "%s", in->polish ? "quadratic" : "none");
  f->polished = pr->applied, f->polish_evaluations = pr->evaluations;
  f->nm_x[0] = nr->best[0], f->nm_x[1] = nr->best[1], f->nm_x[2] = in->fit_mu ? nr->best[2] : NAN;
  f->f_nm = nr->f_best;
  f->polish_rms = in->polish ? pr->rms : NAN;
  snprintf(f->polish_why, sizeof f->polish_why, "%s", pr->why);
  if (!pr->applied) return;
  for (int j = 0; j < f->n_params; j++) f->x[j] = pr->x[j];
  f->f_best = f->e_train; /* the objective at x: the training error there */
}

/* The fit nr (polished by pr) into rec, with its errors on the windows,
 * its path and the per-frame errors at the optimum (one more simulation). */
static int store_refined(const cf_fit_input *in, const cf_nm_options *o, const cf_nm_result *nr,
                         const cf_polish_result *pr, const char *start_kind, double d0, double a0, int t0, int t1,
                         cf_res_rec *rec, cf_error *err) {
  cf_fit_run *run = cf_fit_run_alloc(&in->tg, &in->base, err);
  if (!run) return with_file(in, err, err && err->code ? err->code : CF_EINVAL);
  int T = in->tg.T, rc = CF_OK;
  cf_frame_error *fe = malloc(sizeof *fe * T);
  double *sim = malloc(sizeof(double) * 3 * ((size_t)T * in->tg.rows * in->tg.cols + 1));
  int obstacles = cf_fit_target_has_obstacles(&in->tg);
  double *contacts = obstacles ? malloc(sizeof(double) * (T + 1)) : NULL;
  cf_fit_point pt = point_at(in, pr->x[0], pr->x[1]);
  if (in->fit_mu) pt.mu = pr->x[2];
  cf_fit_result r;
  for (int k = 0; fe && k < T; k++) fe[k].e_cm = fe[k].s_cm = fe[k].d_cm = NAN, fe[k].n = 0; /* after a failure */
  if (!fe || !sim || (obstacles && !contacts) ||
      cf_fit_run_eval_markers(run, &pt, fe, &r, sim, contacts))
    rc = cf_error_set(err, CF_ENOMEM, "out of memory");
  if (!rc) {
    cf_res_rec_describe(rec, in);
    rec->has_fit = 1;
    store_fit(in, &rec->fit, o, nr, start_kind, d0, a0);
    if (store_path(&rec->fit, nr)) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
    rec->fit.model = cf_res_model_of(in);
    if (in->fit_mu) rec->fit.model.mu = NAN; /* fitted, not held: fit x[2] */
    store_windows(rec, fe, &r, T, t0, t1, in->tg.dt);
    store_polish(in, &rec->fit, nr, pr);
    rec->fit.simulations = nr->evaluations + pr->evaluations + 1; /* + the per-frame errors at the optimum */
    if (!rc && cf_res_set_series(rec, fe, &in->tg, sim, pt.delta, pt.alpha))
      rc = cf_error_set(err, CF_ENOMEM, "out of memory");
    if (!rc) rec->series.contacts = contacts, contacts = NULL;
  }
  free(contacts);
  free(fe);
  free(sim);
  cf_fit_run_free(run);
  return rc;
}

int cf_pipeline_refine(const cf_fit_input *in, double d0, double a0, const char *start_kind, int t0, int t1,
                       int max_evals, int workers, const cf_fit_journal *kept, const cf_pipeline_progress *pr,
                       cf_res_rec *rec, char start_failure[256], cf_error *err) {
  start_failure[0] = 0;
  cf_fit_run *run = cf_fit_run_alloc(&in->tg, &in->base, err);
  if (!run) return with_file(in, err, err && err->code ? err->code : CF_EINVAL);
  cf_nm_options o;
  int rc = nm_options(in, d0, a0, t0, t1, max_evals, &o, err);
  if (rc) return cf_fit_run_free(run), rc;
  cf_pl_count count;
  o.progress = cf_pl_count_start(&count, pr, 0);
  cf_nm_result nr;
  rc = cf_fit_nelder_mead_kept(run, &in->tg, &in->fixed, &o, kept, &nr, err);
  cf_fit_run_free(run);
  cf_polish_result pol;
  cf_fit_input fin = rc ? *in : fitted_input(in, &o, &nr);
  if (!rc && nr.start_failed) snprintf(start_failure, 256, "%s", nr.failure[0] ? nr.failure : "failed");
  else if (!rc && !(rc = polish(&fin, &nr, t0, t1, workers, kept, &pol, err)))
    rc = store_refined(&fin, &o, &nr, &pol, start_kind, d0, a0, t0, t1, rec, err);
  cf_nm_result_free(&nr);
  return with_file(in, err, rc);
}

/* Nelder-Mead from (d0[i], a0[i]) on in[i] over frames [t0[i], t1[i])
 * (t0, t1 NULL: the whole recording), several recordings at once, each
 * fit polished and stored into recs[i] with start kind `kind`. */
static int refine_batch(const cf_fit_input *const *in, int n, const double *d0, const double *a0, const int *t0,
                        const int *t1, const char *kind, int max_evals, int workers, const cf_fit_journal *kept,
                        const cf_pipeline_progress *pr, cf_res_rec *const *recs, cf_error *err) {
  cf_nm_options *o = calloc((size_t)n + 1, sizeof *o);
  const cf_fit_target **tg = calloc((size_t)n + 1, sizeof *tg);
  cf_nm_result *nr = calloc((size_t)n + 1, sizeof *nr);
  int rc = o && tg && nr ? CF_OK : cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; !rc && i < n; i++)
    rc = nm_options(in[i], d0[i], a0[i], t0 ? t0[i] : 0, t1 ? t1[i] : in[i]->tg.T, max_evals, &o[i], err),
    tg[i] = &in[i]->tg;
  /* one model for the batch: the commands give every recording the same */
  cf_pl_count count;
  if (!rc && n > 0)
    rc = cf_fit_nelder_mead_batch(n, tg, &in[0]->base, &in[0]->fixed, o, workers, kept,
                                  cf_pl_count_start(&count, pr, 0), nr, err);
  for (int i = 0; !rc && i < n; i++) {
    cf_polish_result pol;
    cf_fit_input fin = fitted_input(in[i], &o[i], &nr[i]);
    int w0 = o[i].t0, w1 = o[i].t1;
    if (!nr[i].start_failed && !(rc = polish(&fin, &nr[i], w0, w1, workers, kept, &pol, err)))
      rc = store_refined(&fin, &o[i], &nr[i], &pol, kind, d0[i], a0[i], w0, w1, recs[i], err);
    else if (nr[i].start_failed)
      cf_pl_note(pr, "%s: no Nelder-Mead: the simulation at the %s start failed this time (%s); the fit there "
                 "is kept", in[i]->name, kind, nr[i].failure);
  }
  for (int i = 0; nr && i < n; i++) cf_nm_result_free(&nr[i]);
  free(o), free(tg), free(nr);
  return rc;
}

int cf_pipeline_refine_many(const cf_fit_input *const *in, int n, const char *kind, const double *d0, const double *a0,
                            const int *t0, const int *t1, int max_evals, int workers, const cf_fit_journal *kept,
                            const cf_pipeline_progress *pr, cf_res_rec *const *recs, cf_error *err) {
  return refine_batch(in, n, d0, a0, t0, t1, kind, max_evals, workers, kept, pr, recs, err);
}

/* The held parameters whose check flagged f (CF_STIFF_BIT mask): kappa
 * when its move with 3 kappa, beta when its move with the large beta
 * passed CF_CONF_HELD_MAX_SHIFT; 0 when f is identifiable or was flagged
 * for another reason. */
static unsigned flagged_held(const cf_res_fit *f) {
  const cf_res_conf *c = &f->conf;
  if (!c->done || c->identifiable != 0) return 0;
  unsigned m = 0;
  if (fmax(fabs(c->kappa_shift[0]), fabs(c->kappa_shift[1])) > CF_CONF_HELD_MAX_SHIFT) m |= CF_STIFF_BIT(CF_STIFF_KAPPA);
  if (fmax(fabs(c->beta_shift[0]), fabs(c->beta_shift[1])) > CF_CONF_HELD_MAX_SHIFT) m |= CF_STIFF_BIT(CF_STIFF_BETA);
  return m;
}

int cf_pipeline_free_flagged(const cf_fit_input *const *in, int n, int max_evals, int workers,
                             const cf_fit_journal *kept, const cf_pipeline_progress *pr, cf_res_rec *const *recs,
                             int *refitted, cf_error *err) {
  cf_fit_input *fin = calloc((size_t)n + 1, sizeof *fin);
  const cf_fit_input **sel = calloc((size_t)n + 1, sizeof *sel);
  cf_res_rec **rs = calloc((size_t)n + 1, sizeof *rs);
  double *d0 = calloc((size_t)n + 1, sizeof *d0), *a0 = calloc((size_t)n + 1, sizeof *a0);
  int *t0 = calloc((size_t)n + 1, sizeof *t0), *t1 = calloc((size_t)n + 1, sizeof *t1);
  int *prior = calloc((size_t)n + 1, sizeof *prior); /* the first fits' simulations */
  char (*why)[192] = calloc((size_t)n + 1, sizeof *why);
  int rc = fin && sel && rs && d0 && a0 && t0 && t1 && prior && why ? CF_OK
                                                                   : cf_error_set(err, CF_ENOMEM, "out of memory");
  if (refitted) *refitted = 0;
  for (int round = 0; !rc && round < 2; round++) { /* kappa, then beta (the checks run in that order) */
    int m = 0, evals = max_evals;
    for (int i = 0; i < n; i++) {
      cf_res_fit *f = &recs[i]->fit;
      unsigned flag = recs[i]->has_fit ? flagged_held(f) : 0;
      if (!flag) continue;
      fin[m] = *in[i];
      fin[m].fit_log |= flag | (f->kappa_fitted ? CF_STIFF_BIT(CF_STIFF_KAPPA) : 0) |
                        (f->beta_fitted ? CF_STIFF_BIT(CF_STIFF_BETA) : 0);
      if (f->kappa_fitted) fin[m].fixed.kappa = f->model.kappa; /* start where the last fit left them */
      if (f->beta_fitted) fin[m].fixed.beta = f->model.beta;
      snprintf(why[m], sizeof why[m], "%.191s", f->conf.why);
      prior[m] = f->simulations;
      sel[m] = &fin[m], rs[m] = recs[i], d0[m] = f->x[0], a0[m] = f->x[1];
      t0[m] = (int)lround(f->train_t0_s / in[i]->tg.dt);
      t1[m] = f->train_t1_s > 0 ? (int)lround(f->train_t1_s / in[i]->tg.dt) : in[i]->tg.T;
      int nk = 2 + !!(fin[m].fit_log & CF_STIFF_BIT(CF_STIFF_KAPPA)) + !!(fin[m].fit_log & CF_STIFF_BIT(CF_STIFF_BETA));
      if (max_evals * nk / 2 > evals) evals = max_evals * nk / 2; /* the budget grows with the parameters */
      m++;
    }
    if (!m) break;
    cf_pl_note(pr, "%d fit(s) depend on a held kappa or beta: refitted with it free", m);
    rc = refine_batch(sel, m, d0, a0, t0, t1, "refit", evals, workers, kept, pr, rs, err);
    for (int k = 0; !rc && k < m; k++) {
      snprintf(rs[k]->fit.freed_why, sizeof rs[k]->fit.freed_why, "%.191s", why[k]);
      rs[k]->fit.simulations += prior[k];
    }
    if (!rc) rc = cf_pipeline_confidence(sel, m, workers, kept, rs, err);
    if (refitted) *refitted += m;
  }
  free(fin), free(sel), free(rs), free(d0), free(a0), free(t0), free(t1), free(prior), free(why);
  return rc;
}

int cf_pipeline_confidence_at(const cf_pipeline_conf_item *it, int n, int workers, const cf_fit_journal *kept, cf_error *err) {
  const cf_fit_target **tg = calloc((size_t)n + 1, sizeof *tg);
  cf_fit_point *at = calloc((size_t)n + 1, sizeof *at);
  int *t0 = calloc((size_t)n + 1, sizeof *t0), *t1 = calloc((size_t)n + 1, sizeof *t1);
  unsigned *fitted = calloc((size_t)n + 1, sizeof *fitted);
  cf_confidence *c = calloc((size_t)n + 1, sizeof *c);
  int rc = tg && at && t0 && t1 && fitted && c ? CF_OK : cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; !rc && i < n; i++)
    tg[i] = &it[i].in->tg, at[i] = point_at(it[i].in, it[i].delta, it[i].alpha), t0[i] = it[i].t0, t1[i] = it[i].t1,
    cf_pl_held_model(&at[i], it[i].model), fitted[i] = it[i].fitted;
  /* one model for the batch: the commands give every recording the same */
  if (!rc && n > 0) rc = cf_fit_confidence_batch(n, tg, &it[0].in->base, at, fitted, t0, t1, workers, it[0].in->search, kept,
                                                      c, err);
  for (int k = 0; !rc && k < n; k++) {
    cf_res_conf *o = it[k].out;
    if (it[k].simulations) *it[k].simulations += c[k].simulations;
    o->done = 1;
    o->delta[0] = c[k].interval[0][0], o->delta[1] = c[k].interval[0][1];
    o->alpha[0] = c[k].interval[1][0], o->alpha[1] = c[k].interval[1][1];
    o->identifiable = c[k].identifiable;
    o->kappa_shift[0] = c[k].kappa_shift[0], o->kappa_shift[1] = c[k].kappa_shift[1];
    o->beta_shift[0] = c[k].beta_shift[0], o->beta_shift[1] = c[k].beta_shift[1];
    o->beta_checked = c[k].beta_checked;
    o->rest_shift[0] = c[k].rest_shift[0], o->rest_shift[1] = c[k].rest_shift[1];
    o->mesh_shift[0] = c[k].mesh_shift[0], o->mesh_shift[1] = c[k].mesh_shift[1];
    o->kappa_fitted = c[k].kappa_fitted, o->beta_fitted = c[k].beta_fitted;
    o->sys[0] = c[k].sys[0], o->sys[1] = c[k].sys[1];
    o->stretch_edges = o->stretch_diagonals = o->better_e_test = NAN; /* cf_pipeline_model_check */
    o->model_limited = 0, o->better_model[0] = 0;
    snprintf(o->why, sizeof o->why, "%s", c[k].why);
  }
  free(tg), free(at), free(t0), free(t1), free(fitted), free(c);
  return rc;
}

int cf_pipeline_confidence(const cf_fit_input *const *in, int n, int workers, const cf_fit_journal *kept,
                      cf_res_rec *const *recs, cf_error *err) {
  cf_pipeline_conf_item *it = calloc((size_t)n + 1, sizeof *it);
  if (!it) return cf_error_set(err, CF_ENOMEM, "out of memory");
  int m = 0;
  for (int i = 0; i < n; i++) {
    cf_res_fit *f = &recs[i]->fit;
    if (!recs[i]->has_fit || !isfinite(f->x[0]) || !isfinite(f->x[1])) continue;
    unsigned fitted = (f->kappa_fitted ? CF_STIFF_BIT(CF_STIFF_KAPPA) : 0) |
                      (f->beta_fitted ? CF_STIFF_BIT(CF_STIFF_BETA) : 0);
    it[m++] = (cf_pipeline_conf_item){in[i], f->x[0], f->x[1], (int)lround(f->train_t0_s / in[i]->tg.dt),
                                 f->train_t1_s > 0 ? (int)lround(f->train_t1_s / in[i]->tg.dt) : 0, &f->conf,
                                 &f->model, fitted, &f->simulations};
  }
  int rc = cf_pipeline_confidence_at(it, m, workers, kept, err);
  free(it);
  return rc;
}

int cf_pipeline_eval_window(const cf_fit_input *in, double delta, double alpha, int t0, int t1, cf_frame_error *fe,
                            double *sim, cf_fit_result *res, cf_error *err) {
  memset(res, 0, sizeof *res);
  res->err.e_cm = res->err.s_cm = res->err.d_max_cm = INFINITY;
  cf_fit_run *run = cf_fit_run_alloc(&in->tg, &in->base, err);
  if (!run) return with_file(in, err, err && err->code ? err->code : CF_EINVAL);
  cf_fit_point pt = point_at(in, delta, alpha);
  int rc = sim ? cf_fit_run_eval_markers(run, &pt, fe, res, sim, NULL) : cf_fit_run_eval(run, &pt, t0, t1, 0, fe, res);
  cf_fit_run_free(run);
  if (rc) cf_error_set(err, rc, "simulation failed (%s)", cf_status_name(rc));
  return with_file(in, err, rc);
}

int cf_pipeline_eval(const cf_fit_input *in, double delta, double alpha, cf_frame_error *fe, double *e, double *s,
                     char reason[256], cf_error *err) {
  cf_fit_result r;
  int rc = cf_pipeline_eval_window(in, delta, alpha, 0, 0, fe, NULL, &r, err);
  *e = r.err.e_cm, *s = r.err.s_cm;
  snprintf(reason, 256, "%s", r.reason);
  return rc;
}

/* The settings of m that a simulation depends on, as words. */
static void model_words(const cf_res_model *m, char *s, size_t n) {
  char split[32];
  snprintf(s, n, "%s model, kappa %g, beta %g, tol %g, max_iter %d, rest metric %s, split %s, substeps %d, start %s",
           m->cloth, m->kappa, m->beta, m->tol, m->max_iter, m->rest, cf_res_model_split_text(m, split, sizeof split),
           m->substeps, m->start);
}

int cf_pipeline_check_model(const cf_fit_input *in, const cf_res_rec *r, const char *opt_name, cf_error *err) {
  cf_res_model oc = *cf_res_optimum_model(r), m = cf_res_model_of(in);
  const cf_res_model *o = &oc;
  /* a kappa or beta the fit fitted is the recording's own, not a setting */
  if (r->has_fit && r->fit.kappa_fitted && cf_res_optimum_model(r) == &r->fit.model) oc.kappa = m.kappa;
  if (r->has_fit && r->fit.beta_fitted && cf_res_optimum_model(r) == &r->fit.model) oc.beta = m.beta;
  if (cf_res_model_equal(o, &m)) return CF_OK;
  int stiffness_only = !strcmp(o->cloth, m.cloth) && o->kappa == m.kappa && o->beta == m.beta && o->tol == m.tol &&
                       o->max_iter == m.max_iter && (o->mu == m.mu || (isnan(o->mu) && isnan(m.mu))) &&
                       !strcmp(o->rest, m.rest) && o->split == m.split && o->split_cols == m.split_cols &&
                       o->substeps == m.substeps && !strcmp(o->start, m.start);
  char was[192], now[192];
  model_words(o, was, sizeof was), model_words(&m, now, sizeof now);
  if (!stiffness_only)
    return cf_error_set(err, CF_EINVAL, "%s: the optimum of %s was found with the %s, this run simulates with the %s "
                        "(give the same --model, --kappa, --beta, --tol, --max-iter, --rest, --split, --substeps, "
                        "--initial)", opt_name, in->name, was, now);
  return cf_error_set(err, CF_EINVAL, "%s: the optimum of %s was found with the stiffnesses k_stretch %g, k_shear %g, "
                      "k_bend %g, this run simulates with k_stretch %g, k_shear %g, k_bend %g (regress holds one set "
                      "for every recording: give them with --k-stretch, --k-shear, --k-bend, and sweep with them)",
                      opt_name, in->name, o->k_stretch, o->k_shear, o->k_bend, m.k_stretch, m.k_shear, m.k_bend);
}

/* The study items: targets, S, V and the optima of opt; *m of them, the
 * recordings without an optimum left out when skip is set (else an error). */
static int study_items(const cf_fit_input *in, int n, const cf_results *opt, const char *opt_name, int skip,
                       cf_study_item *it, const char **names, int *m, cf_error *err) {
  *m = 0;
  for (int i = 0; i < n; i++) {
    const cf_res_rec *r = cf_results_rec((cf_results *)opt, in[i].name, 0);
    cf_study_item *t = &it[*m];
    double s;
    t->tg = &in[i].tg, t->S = in[i].S, t->V = in[i].V;
    int has = r && cf_res_optimum(r, &t->delta, &t->alpha, &t->e_opt, &s) && isfinite(t->e_opt);
    if (!has && skip) continue;
    if (!has && r && r->has_sweep)
      return cf_error_set(err, CF_EINVAL, "%s: %s has no optimum: every point of its sweep failed (leave it out)",
                          opt_name, in[i].name);
    if (!has)
      return cf_error_set(err, CF_EINVAL, "%s: no optimum for %s (run clothfit sweep %s -o %s first)", opt_name,
                          in[i].name, in[i].path, opt_name);
    if (!isfinite(in[i].S))
      return cf_error_set(err, CF_EINVAL, "%s: no cloth size, so no S (ingest with --size A2|A3|WxH)", in[i].path);
    if (!isfinite(in[i].V)) return cf_error_set(err, CF_EINVAL, "%s: no marker speed can be measured (V)", in[i].path);
    if (cf_pipeline_check_model(&in[i], r, opt_name, err)) return CF_EINVAL;
    t->kappa = t->beta = 0; /* base's, unless the fit fitted them */
    if (cf_res_optimum_model(r) == &r->fit.model && r->fit.kappa_fitted) t->kappa = r->fit.model.kappa;
    if (cf_res_optimum_model(r) == &r->fit.model && r->fit.beta_fitted) t->beta = r->fit.model.beta;
    names[(*m)++] = in[i].name;
  }
  return CF_OK;
}

static int store_regression(cf_res_regression *g, const cf_regress_result *rr, const cf_res_model *model,
                            const char *const *names, int n) {
  cf_res_regression_clear(g);
  g->has = 1;
  g->model = *model;
  g->f = rr->f, g->f_start = rr->f_start;
  g->R = rr->R, g->R_start = rr->R_start, g->E = rr->E;
  g->evaluations = rr->evaluations, g->iterations = rr->iterations;
  g->simulations = rr->simulations > INT_MAX ? INT_MAX : (int)rr->simulations;
  snprintf(g->search, sizeof g->search, "%s", cf_regress_search_name(rr->search));
  g->used = calloc((size_t)n + 1, sizeof(char *));
  for (int i = 0; g->used && i < n; i++)
    if ((g->used[g->n_used] = strdup(names[i]))) g->n_used++;
  g->e_hat = rr->e_item; /* taken over */
  return g->n_used == n && g->e_hat ? CF_OK : CF_ENOMEM;
}

int cf_pipeline_regress(const cf_fit_input *in, int n, const cf_results *opt, const char *opt_name, int skip_failed,
                        int search, int max_evals, int workers, const cf_fit_journal *kept,
                        const cf_pipeline_progress *pr, cf_res_regression *g, cf_error *err) {
  cf_study_item *it = calloc((size_t)n + 1, sizeof *it);
  const char **names = calloc((size_t)n + 1, sizeof *names);
  int m = 0, rc = it && names ? study_items(in, n, opt, opt_name, skip_failed, it, names, &m, err)
                              : cf_error_set(err, CF_ENOMEM, "out of memory");
  /* one model for the study (the commands give every recording the same);
   * cf_regress_* hold base's beta and kappa */
  cf_params base = in[0].base;
  base.beta = in[0].fixed.beta, base.kappa = in[0].fixed.kappa;
  cf_res_model model = cf_res_model_of(&in[0]);
  cf_regress_result rr;
  cf_pl_count count;
  cf_regress_options ro = {search, max_evals, workers, kept, cf_pl_count_start(&count, pr, 0)};
  if (!rc) rc = cf_regress_fit(it, m, &base, NULL, &ro, &rr, err);
  if (!rc && store_regression(g, &rr, &model, names, m)) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
  free(it);
  free(names);
  return rc;
}
