/* commands.c — the steps of the other fitting runs (cf_pipeline.h): sweeps
 * of several recordings, sensitivity maps and scans (thesis §4.1.3), the
 * comparison of cloth models (thesis §4.1.4), the remeshing check (thesis
 * §4.1.5) and a-priori predictions (thesis (4.10)-(4.11)). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline_internal.h"

/* ------------------------------------------------------------------- sweep */
int cf_pipeline_sweep_all(const cf_fit_input *in, int n, const cf_pipeline_grid *gd, const cf_pipeline_grid *ga,
                          const cf_pipeline_grid *gm, double w0, double w1, int workers, double prune,
                          cf_pipeline_tasks *tasks, const cf_pipeline_progress *pr, cf_results *r, cf_error *err) {
  long per = (long)cf_sweep_n_points(gm ? gm->n : 0, gd->n, ga->n);
  cf_pl_stage(pr, "sweep", n * per);
  int rc = CF_OK;
  for (int i = 0; i < n && !rc; i++) {
    int t0, t1;
    cf_pipeline_window_frames(&in[i], w0, w1, &t0, &t1);
    cf_res_rec *rec = cf_results_rec(r, in[i].name, 1);
    if (t1 - t0 < 2)
      rc = cf_error_set(err, CF_EINVAL, "%s: the window holds %d frame(s) of a %.3f s recording", in[i].path,
                        t1 - t0 > 0 ? t1 - t0 : 0, in[i].duration);
    else if (!rec) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
    else rc = cf_pl_sweep(&in[i], gd, ga, gm, t0, t1, workers, prune, pr, i * per, tasks, rec, err);
  }
  cf_pl_stage(pr, NULL, 0);
  return rc;
}

int cf_pipeline_sweep_confidence(cf_fit_input *in, int n, double w0, double w1, int workers,
                                 const cf_fit_journal *kept, cf_results *r, cf_error *err) {
  cf_pipeline_conf_item *it = calloc((size_t)n + 1, sizeof *it);
  if (!it) return cf_error_set(err, CF_ENOMEM, "out of memory");
  int m = 0;
  for (int i = 0; i < n; i++) {
    cf_res_sweep *w = &cf_results_rec(r, in[i].name, 0)->sweep;
    if (w->best < 0) continue;
    double d, al;
    cf_res_sweep_at(w, w->best, &d, &al, &in[i].fixed.mu); /* at the best mu of a mu grid */
    it[m] = (cf_pipeline_conf_item){&in[i], d, al, 0, 0, &w->conf, NULL, 0, NULL};
    cf_pipeline_window_frames(&in[i], w0, w1, &it[m].t0, &it[m].t1);
    m++;
  }
  int rc = cf_pipeline_confidence_at(it, m, workers, kept, err);
  free(it);
  return rc;
}

/* ------------------------------------------------------------- sensitivity */
/* Axes: linspace(0, 2 X, n), or the single value X when held; a mu scan
 * over [0, 2 mu] (gm->n = 0 otherwise). */
static void axes(const char *kind, double D, double A, int np, double mu, cf_pipeline_grid *gd, cf_pipeline_grid *ga,
                 cf_pipeline_grid *gm) {
  int sm = !strcmp(kind, "mu"), map = !strcmp(kind, "map");
  int sd = !sm && (map || !strcmp(kind, "delta")), sa = !sm && (map || !strcmp(kind, "alpha"));
  cf_pipeline_grid d = {sd ? 0 : D, sd ? 2 * D : D, sd ? np : 1, 0};
  cf_pipeline_grid al = {sa ? 0 : A, sa ? 2 * A : A, sa ? np : 1, 0};
  cf_pipeline_grid m = {0, 2 * mu, sm ? np : 0, 0};
  *gd = d, *ga = al, *gm = m;
}

/* The grid as a sweep into a scratch record, then stored as rec->sens. */
int cf_pipeline_sensitivity(const cf_fit_input *in, const char *kind, double D, double A, int np, double w0, double w1,
                            int workers, cf_pipeline_tasks *tasks, const cf_pipeline_progress *pr, cf_res_rec *rec,
                            cf_error *err) {
  cf_pipeline_grid gd, ga, gm;
  if (!strcmp(kind, "mu") && !(in->fixed.mu > 0))
    return cf_error_set(err, CF_EINVAL, "--scan mu needs --mu M > 0: the friction the scan is centred on");
  axes(kind, D, A, np, in->fixed.mu, &gd, &ga, &gm);
  int t0, t1;
  cf_pipeline_window_frames(in, w0, w1, &t0, &t1);
  if (t1 - t0 < 2) return cf_error_set(err, CF_EINVAL, "%s: the window holds %d frame(s)", in->path, t1 - t0);
  cf_res_rec scratch;
  memset(&scratch, 0, sizeof scratch);
  cf_pl_stage(pr, "sensitivity", (long)cf_sweep_n_points(gm.n, gd.n, ga.n));
  int rc = cf_pipeline_sweep(in, &gd, &ga, &gm, t0, t1, workers, 0, pr, tasks, &scratch, err);
  cf_pl_stage(pr, NULL, 0);
  if (!rc) {
    const cf_res_sweep *w = &scratch.sweep;
    cf_sweep_options o = {w->nd, w->na, w->delta, w->alpha, t0, t1, workers, 0, NULL, 0, 0, 0, NULL, 0, w->nm, w->mu};
    cf_sweep_result sr = {w->nd, w->na, w->e, w->s, NULL, w->status, w->pruned, NULL, w->best, w->wall_s, 0, 0, w->nm};
    cf_res_rec_describe(rec, in);
    if (cf_res_set_sens(rec, kind, D, A, &o, &sr)) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
    char **reason = rec->sens.reason; /* the failure messages: swapped for the "" copies */
    if (!rc) rec->sens.reason = scratch.sweep.reason, scratch.sweep.reason = reason;
    rec->sens.model = cf_res_model_of(in); /* a mu scan: centred on --mu */
  }
  cf_res_rec_clear(&scratch);
  return rc;
}

/* ----------------------------------------------------------------- compare */
/* A row of the fit into the results' form. */
static void store_row(const cf_compare_row *r, cf_res_compare_row *o) {
  memset(o, 0, sizeof *o);
  snprintf(o->model, sizeof o->model, "%s", cf_cloth_model_name(r->model));
  o->status = r->status;
  snprintf(o->reason, sizeof o->reason, "%s", r->reason);
  o->delta = r->fit.delta, o->alpha = r->fit.alpha;
  int m = r->model;
  o->k_stretch = m == CF_CLOTH_ELASTIC || m == CF_CLOTH_MASS_SPRING ? r->fit.k_stretch : NAN;
  o->k_shear = m != CF_CLOTH_INEXTENSIBLE ? r->fit.k_shear : NAN;
  o->k_bend = m == CF_CLOTH_MASS_SPRING ? r->fit.k_bend : NAN; /* held at base's (cf_fit_compare) */
  snprintf(o->fitted, sizeof o->fitted, "delta alpha");
  for (int j = 0; j < r->nk; j++)
    snprintf(o->fitted + strlen(o->fitted), sizeof o->fitted - strlen(o->fitted), " %s",
             cf_fit_stiffness_name(r->kpar[j]));
  int ok = r->status == CF_OK;
  o->e_train = r->e_train_cm;
  o->e_test = ok ? r->e_test_cm : NAN, o->s_test = ok ? r->s_test_cm : NAN, o->d_max_test = ok ? r->d_max_test_cm : NAN;
  o->wall_s = ok ? r->wall_s : NAN, o->iters_per_step = ok ? r->iters_per_step : NAN;
  o->evaluations = r->evaluations, o->converged = r->converged, o->fit_wall_s = r->fit_wall_s;
}

/* The best point of the default grid over [t0, t1) with in's (the
 * inextensible) model, pruned beyond 1.5 x the best. */
static int grid_start(const cf_fit_input *in, int t0, int t1, int workers, cf_pipeline_tasks *tasks,
                      const cf_pipeline_progress *pr, double *d0, double *a0, cf_error *err) {
  cf_pipeline_grid gd = cf_pipeline_grid_default('d'), ga = cf_pipeline_grid_default('a');
  cf_res_rec scratch;
  memset(&scratch, 0, sizeof scratch);
  cf_pl_stage(pr, "compare: sweep", (long)gd.n * ga.n);
  int rc = cf_pipeline_sweep(in, &gd, &ga, NULL, t0, t1, workers, 1.5, pr, tasks, &scratch, err);
  cf_pl_stage(pr, NULL, 0);
  if (!rc && scratch.sweep.best < 0)
    rc = cf_error_set(err, CF_ENOCONV, "%s: every point of the grid start failed (give --start D,A)", in->path);
  if (!rc) cf_res_sweep_at(&scratch.sweep, scratch.sweep.best, d0, a0, NULL);
  cf_res_rec_clear(&scratch);
  return rc;
}

int cf_pipeline_compare(const cf_fit_input *in, const int *models, int n, double f0, double f1, double d0, double a0,
                        int max_evals, int workers, cf_pipeline_tasks *tasks, const cf_pipeline_progress *pr,
                        cf_res_rec *rec, cf_error *err) {
  int t0, t1, T = in->tg.T;
  cf_pipeline_window_frames(in, f0 * (T - 1) * in->tg.dt, f1 * (T - 1) * in->tg.dt, &t0, &t1);
  if (t1 - t0 < 2 || T - t1 < 2)
    return cf_error_set(err, CF_EINVAL, "%s: the training window holds %d frame(s) and the testing window %d; change "
                        "--train", in->path, t1 - t0, T - t1);
  int rc = isfinite(d0) ? CF_OK : grid_start(in, t0, t1, workers, tasks, pr, &d0, &a0, err);
  if (rc) return rc;
  cf_compare_options o = {t0, t1, t1, T, max_evals, d0, a0, in->search};
  cf_compare_row rows[CF_CLOTH_MODELS];
  memset(rows, 0, sizeof rows);
  cf_pl_count count;
  cf_error e = {0, ""};
  cf_pl_stage(pr, "compare", n);
  rc = cf_fit_compare(&in->tg, &in->base, &in->fixed, n, models, &o, workers, cf_pipeline_tasks_kept(tasks),
                      cf_pl_count_start(&count, pr, 0), rows, &e);
  cf_pl_stage(pr, NULL, 0);
  if (rc) return cf_error_set(err, rc, "%s: %s", in->path, e.msg);
  cf_res_rec_describe(rec, in);
  cf_res_compare *c = &rec->compare;
  memset(c, 0, sizeof *c);
  c->n = n;
  for (int i = 0; i < n; i++) store_row(&rows[i], &c->row[i]);
  double dt = in->tg.dt;
  c->train_t0_s = t0 * dt, c->train_t1_s = t1 * dt, c->test_t0_s = t1 * dt, c->test_t1_s = T * dt;
  c->start_delta = o.delta0, c->start_alpha = o.alpha0;
  c->model = cf_res_model_of(in);
  rec->has_compare = 1;
  return CF_OK;
}

/* ------------------------------------------------------------------ remesh */
/* Row i of the check: the mesh of split sp, its nodes named. */
static void remesh_row(const cf_fit_input *in, const int sp[2], cf_res_remesh_row *o) {
  memset(o, 0, sizeof *o);
  o->split[0] = sp[0], o->split[1] = sp[1];
  o->rows = sp[0] * (in->tg.rows - 1) + 1, o->cols = sp[1] * (in->tg.cols - 1) + 1;
  snprintf(o->mesh, sizeof o->mesh, "%dx%d", o->rows, o->cols);
  o->e_test = o->s_test = NAN;
}

/* Whether the mesh of split sp is the one f was fitted on. */
static int fit_mesh(const cf_res_fit *f, const int sp[2]) {
  return f->model.split == sp[0] && (f->model.split_cols > 0 ? f->model.split_cols : f->model.split) == sp[1];
}

/* The fit's point on the mesh of split sp over frames [t0, t1): a sweep of
 * one point (in the journal) into o. */
static int remesh_eval(const cf_fit_input *in, const cf_res_fit *f, const int sp[2], int t0, int t1, int workers,
                       cf_pipeline_tasks *tasks, const cf_pipeline_progress *pr, long offset, cf_res_remesh_row *o,
                       cf_error *err) {
  cf_fit_input at = *in; /* shallow: shares in's arrays */
  cf_pl_held_model(&at.fixed, &f->model);
  at.tg.split = sp[0], at.tg.split_cols = sp[1];
  cf_pipeline_grid gd = {f->x[0], f->x[0], 1, 0}, ga = {f->x[1], f->x[1], 1, 0};
  cf_res_rec scratch;
  memset(&scratch, 0, sizeof scratch);
  int rc = cf_pl_sweep(&at, &gd, &ga, NULL, t0, t1, workers, 0, pr, offset, tasks, &scratch, err);
  if (!rc) {
    const cf_res_sweep *w = &scratch.sweep;
    o->status = w->status[0], o->e_test = w->e[0], o->s_test = w->s[0];
    snprintf(o->reason, sizeof o->reason, "%s", w->reason && w->reason[0] ? w->reason[0] : "");
  }
  cf_res_rec_clear(&scratch);
  return rc;
}

int cf_pipeline_remesh(const cf_fit_input *in, const int (*split)[2], int n, int workers, cf_pipeline_tasks *tasks,
                       const cf_pipeline_progress *pr, cf_res_rec *rec, cf_error *err) {
  if (!rec->has_fit) return cf_error_set(err, CF_EINVAL, "%s: no fit to rerun on other meshes", in->path);
  if (n < 1 || n > CF_RES_REMESH_MAX)
    return cf_error_set(err, CF_EINVAL, "remesh: %d meshes, expected 1..%d", n, CF_RES_REMESH_MAX);
  const cf_res_fit *f = &rec->fit;
  int t0, t1;
  cf_pipeline_window_frames(in, f->train_t1_s, INFINITY, &t0, &t1);
  if (t1 - t0 < 2) return cf_error_set(err, CF_EINVAL, "%s: the testing window holds %d frame(s)", in->path, t1 - t0);
  cf_res_remesh m;
  memset(&m, 0, sizeof m);
  m.delta = f->x[0], m.alpha = f->x[1], m.test_t0_s = t0 * in->tg.dt, m.test_t1_s = t1 * in->tg.dt;
  m.model = f->model;
  int rc = CF_OK;
  cf_pl_stage(pr, "remesh", n);
  for (int i = 0; i < n && !rc; i++, m.n++) {
    cf_res_remesh_row *o = &m.row[i];
    remesh_row(in, split[i], o);
    if (fit_mesh(f, split[i]) && f->train_t0_s == 0) { /* the testing window is the fit's "rest" */
      o->fit_reused = 1, o->e_test = f->e_test, o->s_test = f->s_test;
      o->status = f->optimum_failure[0] ? CF_ENOCONV : CF_OK;
      snprintf(o->reason, sizeof o->reason, "%s", f->optimum_failure);
    } else {
      rc = remesh_eval(in, f, split[i], t0, t1, workers, tasks, pr, i, o, err);
    }
    cf_pl_update(pr, i + 1);
  }
  cf_pl_stage(pr, NULL, 0);
  if (!rc) rec->remesh = m, rec->has_remesh = 1;
  return rc;
}

/* ----------------------------------------------------------------- predict */
int cf_pipeline_predict(const cf_fit_input *in, const cf_formula *f, const cf_res_rec *opt, const char *opt_name,
                        int eval, cf_pipeline_prediction *p, cf_error *err) {
  if (!isfinite(in->S))
    return cf_error_set(err, CF_EINVAL, "%s: no cloth size, so no S (ingest with --size A2|A3|WxH)", in->path);
  if (!isfinite(in->V)) return cf_error_set(err, CF_EINVAL, "%s: no marker speed can be measured (V)", in->path);
  cf_formula_predict(f, in->S, in->V, in->tg.rho, &p->delta, &p->alpha);
  p->e = p->delta_opt = p->alpha_opt = p->e_opt = NAN;
  double s;
  char reason[256];
  /* e* beside e^ only when both come from the same model settings */
  if (opt && cf_res_optimum(opt, &p->delta_opt, &p->alpha_opt, &p->e_opt, &s) && eval &&
      cf_pipeline_check_model(in, opt, opt_name, err))
    return CF_EINVAL;
  if (eval && p->delta >= 0 && p->alpha >= 0)
    return cf_pipeline_eval(in, p->delta, p->alpha, NULL, &p->e, &s, reason, err);
  return CF_OK;
}
