/* fields.c — the named values of a fit's result and of a study's
 * (cf_pipeline.h "fields"): what `clothfit fit --json`, `sweep --json` and
 * `experiment --json` print and what the Python module returns, from one
 * list, so both have the same keys in the same order with the same values.
 *
 * Computes: nothing new; it walks a results record (cf_res_rec, or a
 * study's cf_pipeline_experiment) and hands
 * each member to the caller's visitor (cf_pipeline_fields) as a number, a
 * string, a truth value, a list of numbers or a list of words, with
 * "unknown" said the same way for every kind (NaN, NULL, -1, n < 0) so
 * the visitor can write a JSON null or a Python None.
 * Ownership: the record, the strings and the arrays are borrowed for the
 * call of each visitor member; a visitor that keeps one copies it.
 * Failure: none; a visitor member that is NULL is skipped. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline_internal.h"

static void num(const cf_pipeline_fields *f, const char *key, double v) {
  if (f->num) f->num(f->user, key, v);
}
static void str(const cf_pipeline_fields *f, const char *key, const char *s) {
  if (f->str) f->str(f->user, key, s);
}
static void truth(const cf_pipeline_fields *f, const char *key, int b) {
  if (f->boolean) f->boolean(f->user, key, b);
}
static void words(const cf_pipeline_fields *f, const char *key, const char *text) {
  if (f->words) f->words(f->user, key, text);
}
/* [lo, hi], or null when lo is not finite */
static void pair(const cf_pipeline_fields *f, const char *key, const double v[2]) {
  if (f->nums) f->nums(f->user, key, v, isfinite(v[0]) ? 2 : -1);
}
static void count(const cf_pipeline_fields *f, const char *key, long v, int has) { num(f, key, has ? (double)v : NAN); }
static void nums(const cf_pipeline_fields *f, const char *key, const double *v, int n) {
  if (f->nums) f->nums(f->user, key, v, n);
}
/* A nested object (array 0) or array under key into *sub: 0 when the
 * visitor skips it. */
static int nested(const cf_pipeline_fields *f, const char *key, int array, cf_pipeline_fields *sub) {
  *sub = *f;
  sub->user = f->open ? f->open(f->user, key, array) : NULL;
  return sub->user != NULL;
}

int cf_pipeline_simulations(const cf_res_rec *c) {
  return (c->has_sweep ? cf_res_sweep_points(&c->sweep) : 0) + (c->has_fit ? c->fit.simulations : 0);
}

int cf_pipeline_grid_edge(const cf_res_rec *rec, char *buf, size_t size) {
  const cf_res_sweep *w = &rec->sweep;
  if (size) buf[0] = 0;
  if (!rec->has_sweep || w->best < 0) return -1;
  unsigned e = cf_res_sweep_edges(w, w->best);
  double v3[3];
  cf_res_sweep_at(w, w->best, &v3[0], &v3[1], &v3[2]);
  static const char *const names[3] = {"delta", "alpha", "mu"};
  size_t n = 0;
  for (int k = 0; k < 6 && n < size; k++) {
    if (!(e & (1u << k))) continue;
    int lo = !(k & 1), q = k / 2;
    double v = v3[q];
    const char *sep = n ? "; " : "";
    int m = lo && v <= 0 ? snprintf(buf + n, size - n, "%s%s at its lowest grid value %.5g (its physical bound 0)",
                                    sep, names[q], v)
                         : snprintf(buf + n, size - n, "%s%s at its %s grid value %.5g (widen --%s-grid %s it)", sep,
                                    names[q], lo ? "lowest" : "highest", v, names[q], lo ? "below" : "above");
    n += m > 0 ? (size_t)m : 0;
  }
  return e != 0;
}

void cf_pipeline_fields_failures(const cf_pipeline_fields *f, const cf_res_rec *rec) {
  cf_pipeline_failures n = cf_pipeline_failures_of(rec);
  count(f, "failed_points", n.failed, rec->has_sweep);
  count(f, "grid_points", n.points, rec->has_sweep);
  num(f, "failed_fraction", n.points ? (double)n.failed / n.points : NAN);
  truth(f, "optimum_borders_failed", cf_pipeline_optimum_borders_failed(rec, NULL, NULL));
  count(f, "failed_evaluations", n.nm_failed, rec->has_fit);
}

void cf_pipeline_fields_conf(const cf_pipeline_fields *f, const cf_res_conf *c) {
  if (!c->done) {
    const double none[2] = {NAN, NAN};
    pair(f, "delta_interval", none);
    pair(f, "alpha_interval", none);
    truth(f, "identifiable", -1);
    return;
  }
  pair(f, "delta_interval", c->delta);
  pair(f, "alpha_interval", c->alpha);
  truth(f, "identifiable", c->identifiable == 1 ? 1 : c->identifiable == 0 ? 0 : -1);
  str(f, "identifiable_why", c->why);
  pair(f, "kappa_shift", c->kappa_shift);
  pair(f, "beta_shift", c->beta_shift);
  num(f, "beta_checked", c->beta_checked);
  pair(f, "rest_shift", c->rest_shift);
  pair(f, "mesh_shift", c->mesh_shift);
  truth(f, "kappa_check_skipped", c->kappa_fitted != 0); /* fitted: kappa_shift null */
  truth(f, "beta_check_skipped", c->beta_fitted != 0);
  pair(f, "interval_sys", c->sys);
  num(f, "stretch_edges", c->stretch_edges);
  num(f, "stretch_diagonals", c->stretch_diagonals);
  truth(f, "model_limited", c->model_limited != 0);
  str(f, "better_model", c->better_model[0] ? c->better_model : NULL);
  num(f, "better_test_error_cm", c->better_e_test);
}

void cf_pipeline_fields_polish(const cf_pipeline_fields *f, const cf_res_fit *fit) {
  str(f, "polish", fit->polish[0] ? fit->polish : "none");
  truth(f, "polished", fit->polished != 0);
  num(f, "polish_evaluations", fit->polish_evaluations);
  int known = fit->polish[0] != 0; /* older files: not recorded */
  num(f, "nm_delta", known ? fit->nm_x[0] : NAN);
  num(f, "nm_alpha", known ? fit->nm_x[1] : NAN);
  num(f, "nm_mu", known && fit->n_params > 2 ? fit->nm_x[2] : NAN);
  num(f, "nm_train_error_cm", known ? fit->f_nm : NAN);
  str(f, "polish_why", fit->polish_why[0] ? fit->polish_why : NULL);
}

void cf_pipeline_fields_drive(const cf_pipeline_fields *f, const cf_res_rec *rec) {
  const cf_res_drive *d = &rec->drive;
  int known = isfinite(d->start_mean_m);
  num(f, "start_residual_mean_mm", 1e3 * d->start_mean_m);
  num(f, "start_residual_max_mm", 1e3 * d->start_max_m);
  num(f, "start_residual_marker", known ? d->start_marker : NAN);
  num(f, "held_noise_mm", 1e3 * d->noise_m);
  num(f, "held_smoothing_frames", known ? d->window : NAN);
  num(f, "held_smoothed_max_mm", 1e3 * d->smooth_max_m);
  num(f, "held_pulled_frames", known ? d->pulled_frames : NAN);
  num(f, "held_pull_max_mm", known ? 1e3 * d->pull_max_m : NAN);
}

void cf_pipeline_fit_names(const cf_res_fit *fit, char *buf, size_t size) {
  snprintf(buf, size, "delta alpha%s%s%s%s%s", fit->n_params > 2 ? " mu" : "", fit->stiffness[0] ? " " : "",
           fit->stiffness, fit->kappa_fitted ? " kappa" : "", fit->beta_fitted ? " beta" : "");
}

void cf_pipeline_fit_fields(const cf_pipeline_fields *f, const cf_res_rec *rec, int swept, int resumed,
                            const char *out) {
  const cf_res_fit *x = &rec->fit;
  cf_res_rec view = *rec; /* this run's: its sweep only if swept now */
  view.has_sweep = view.has_sweep && swept;
  char edge[512];
  int on_edge = swept ? cf_pipeline_grid_edge(rec, edge, sizeof edge) : -1;
  num(f, "delta", x->x[0]);
  num(f, "alpha", x->x[1]);
  num(f, "mu", x->n_params > 2 ? x->x[2] : NAN);
  num(f, "mean_error_cm", x->e_all);
  num(f, "mean_std_cm", x->s_all);
  str(f, "method", x->method);
  num(f, "evaluations", x->evaluations);
  num(f, "iterations", x->iterations);
  truth(f, "converged", x->converged != 0);
  str(f, "start", x->start_kind);
  words(f, "starts_tried", x->starts_tried);
  truth(f, "on_grid_edge", on_edge);
  str(f, "grid_edge", on_edge > 0 ? edge : NULL);
  cf_pipeline_fields_failures(f, &view);
  str(f, "evaluation_failure", x->failure[0] ? x->failure : NULL);
  str(f, "optimum_failure", x->optimum_failure[0] ? x->optimum_failure : NULL);
  num(f, "start_delta", x->start[0]);
  num(f, "start_alpha", x->start[1]);
  num(f, "start_mu", x->n_params > 2 ? x->start[2] : NAN);
  num(f, "train_error_cm", x->e_train);
  num(f, "train_std_cm", x->s_train);
  num(f, "test_error_cm", x->e_test);
  num(f, "test_std_cm", x->s_test);
  cf_pipeline_fields_conf(f, &x->conf);
  str(f, "freed_why", x->freed_why[0] ? x->freed_why : NULL);
  num(f, "simulations", cf_pipeline_simulations(rec));
  cf_pipeline_fields_polish(f, x);
  if (!strcmp(x->method, "levenberg-marquardt")) { /* the other searches' outputs as they were */
    num(f, "tangent_secant", x->tangent_secant);
    num(f, "sens_evaluations", x->sens_evaluations);
    str(f, "fallback_why", x->fallback_why[0] ? x->fallback_why : NULL);
  }
  num(f, "kappa", x->model.kappa);
  num(f, "beta", x->model.beta);
  num(f, "start_kappa", x->start_kappa);
  num(f, "start_beta", x->start_beta);
  char names[128];
  cf_pipeline_fit_names(x, names, sizeof names);
  words(f, "fitted", names);
  num(f, "tol", x->model.tol);
  num(f, "mu_held", x->model.mu);
  num(f, "max_iter", x->model.max_iter);
  str(f, "cloth_model", x->model.cloth);
  num(f, "k_stretch", x->model.k_stretch);
  num(f, "k_shear", x->model.k_shear);
  num(f, "k_bend", x->model.k_bend);
  str(f, "stiffness_fitted", x->stiffness);
  str(f, "rest_metric", x->model.rest);
  num(f, "mesh_split", x->model.split);
  num(f, "mesh_split_cols", x->model.split_cols);
  num(f, "substeps", x->model.substeps);
  str(f, "start_state", x->model.start);
  str(f, "recording", rec->recording);
  cf_pipeline_fields_drive(f, rec);
  num(f, "tasks_resumed", resumed);
  str(f, "output", out);
}

/* ------------------------------------------------------------------ study */
void cf_pipeline_fields_recordings(const cf_pipeline_fields *f, const cf_results *r) {
  cf_pipeline_fields list, j;
  if (!nested(f, "recordings", 1, &list)) return;
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    double d = NAN, a = NAN, e = NAN, s = NAN;
    int ok = cf_res_optimum(c, &d, &a, &e, &s);
    if (!nested(&list, NULL, 0, &j)) continue;
    str(&j, "name", c->name);
    str(&j, "material", c->meta.material);
    str(&j, "size", c->meta.size);
    str(&j, "motion", c->meta.motion);
    str(&j, "speed", c->meta.speed);
    num(&j, "delta", d);
    num(&j, "alpha", a);
    num(&j, "mu", ok ? cf_res_optimum_mu(c) : NAN);
    num(&j, "error_cm", e);
    num(&j, "std_cm", s);
    str(&j, "optimum", !ok ? NULL : c->has_fit ? c->fit.method : "grid");
    char edge[512];
    int on_edge = cf_pipeline_grid_edge(c, edge, sizeof edge);
    truth(&j, "on_grid_edge", on_edge);
    str(&j, "grid_edge", on_edge > 0 ? edge : NULL);
    cf_pipeline_fields_failures(&j, c);
    num(&j, "S", c->S);
    num(&j, "V", c->V);
    num(&j, "rho", c->rho);
    if (c->has_fit) {
      num(&j, "kappa", c->fit.model.kappa);
      num(&j, "beta", c->fit.model.beta);
      truth(&j, "kappa_fitted", c->fit.kappa_fitted != 0);
      truth(&j, "beta_fitted", c->fit.beta_fitted != 0);
      str(&j, "freed_why", c->fit.freed_why[0] ? c->fit.freed_why : NULL);
    }
    num(&j, "simulations", cf_pipeline_simulations(c));
    if (c->has_fit && c->fit.conf.done) cf_pipeline_fields_conf(&j, &c->fit.conf);
    else if (c->sweep.conf.done) cf_pipeline_fields_conf(&j, &c->sweep.conf);
  }
}

void cf_pipeline_fields_failure_totals(const cf_pipeline_fields *f, const cf_results *r) {
  long failed = 0, points = 0, nm_failed = 0;
  int fits = 0;
  for (int i = 0; i < r->n; i++) {
    cf_pipeline_failures n = cf_pipeline_failures_of(&r->recs[i]);
    failed += n.failed, points += n.points, nm_failed += n.nm_failed, fits += r->recs[i].has_fit;
  }
  count(f, "failed_points", failed, 1);
  count(f, "grid_points", points, 1);
  num(f, "failed_fraction", points ? (double)failed / points : NAN);
  count(f, "failed_evaluations", nm_failed, fits);
}

void cf_pipeline_fields_remesh(const cf_pipeline_fields *f, const cf_res_remesh *m) {
  num(f, "delta", m->delta);
  num(f, "alpha", m->alpha);
  nums(f, "test_window_s", (const double[]){m->test_t0_s, m->test_t1_s}, 2);
  cf_pipeline_fields meshes, x;
  if (!nested(f, "meshes", 1, &meshes)) return;
  for (int i = 0; i < m->n; i++) {
    const cf_res_remesh_row *r = &m->row[i];
    if (!nested(&meshes, NULL, 0, &x)) continue;
    str(&x, "mesh", r->mesh);
    nums(&x, "split", (const double[]){r->split[0], r->split[1]}, 2);
    str(&x, "status", cf_status_name(r->status));
    str(&x, "reason", r->reason);
    num(&x, "test_error_cm", r->e_test);
    num(&x, "test_std_cm", r->s_test);
    truth(&x, "fit_reused", r->fit_reused);
  }
}

void cf_pipeline_experiment_fields(const cf_pipeline_fields *f, const cf_pipeline_experiment *x, const char *report) {
  const cf_results *res = &x->res;
  cf_pipeline_fields_recordings(f, res);
  cf_pipeline_fields_failure_totals(f, res);
  if (res->reg.has) {
    num(f, "R_cm", res->reg.R);
    num(f, "E_cm", res->reg.E);
    num(f, "regression_simulations", res->reg.simulations);
  }
  cf_pipeline_fields m;
  for (int i = 0; i < res->n; i++) /* the close look's remeshing check (experiment wam) */
    if (res->recs[i].has_remesh && nested(f, "remesh", 0, &m)) {
      str(&m, "recording", res->recs[i].name);
      cf_pipeline_fields_remesh(&m, &res->recs[i].remesh);
    }
  cf_pipeline_fields t;
  if (nested(f, "stage_seconds", 0, &t))
    for (int k = 0; k < x->n_stages; k++) num(&t, x->stage[k], x->seconds[k]);
  num(f, "tasks_resumed", x->resumed);
  str(f, "output", x->out);
  if (report) str(f, "report", report);
}
