/* fit.c — one recording's fit (cf_pipeline_fit): the start asked for, then
 * the others until one's simulation succeeds, Nelder-Mead from it over the
 * training window (steps.c), and the confidence checks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline_internal.h"

void cf_pipeline_fit_opts_default(cf_pipeline_fit_opts *o) {
  memset(o, 0, sizeof *o);
  o->start = "grid";
  o->train0 = 0, o->train1 = 0.5;
  o->max_evals = 200;
  o->gd = cf_pipeline_grid_default('d'), o->ga = cf_pipeline_grid_default('a');
  o->confidence = 1;
  o->free_flagged = 1;
}

/* A start that could not be used, and why, for the final error. */
static void note(cf_pipeline_fit_info *f, const char *kind, double d0, double a0, const char *why) {
  size_t n = strlen(f->tried);
  if (isfinite(d0))
    snprintf(f->tried + n, sizeof f->tried - n, "%s%s (delta %.5g alpha %.5g): %s", n ? "; " : "", kind, d0, a0, why);
  else snprintf(f->tried + n, sizeof f->tried - n, "%s%s: %s", n ? "; " : "", kind, why);
}

typedef struct {
  const cf_pipeline_fit_opts *o;
  cf_pipeline_tasks *tasks;
  const cf_pipeline_progress *pr;
  cf_pipeline_fit_info *info;
  int t0, t1;
  double m0; /* the grid optimum's mu (with a mu axis) */
} fit_run;

/* The grid optimum, sweeping the grid over the training window first:
 * CF_OK, an error, or -1 if every grid point failed (noted). */
static int grid_start(fit_run *f, const cf_fit_input *in, cf_res_rec *rec, double *d0, double *a0, cf_error *err) {
  const cf_pipeline_fit_opts *o = f->o;
  cf_pl_stage(f->pr, "fit: sweep", (long)cf_sweep_n_points(o->gm.n, o->gd.n, o->ga.n));
  int rc = cf_pipeline_sweep(in, &o->gd, &o->ga, &o->gm, f->t0, f->t1, o->workers, o->prune, f->pr, f->tasks, rec,
                             err);
  cf_pl_stage(f->pr, NULL, 0);
  if (rc) return rc;
  const cf_res_sweep *w = &rec->sweep;
  f->info->swept = 1;
  if (w->best < 0) {
    char why[400];
    snprintf(why, sizeof why, "every one of its %d points failed, first: %.300s", cf_res_sweep_points(w),
             w->reason[0]);
    return note(f->info, "grid", NAN, NAN, why), -1;
  }
  cf_res_sweep_at(w, w->best, d0, a0, &f->m0);
  return CF_OK;
}

/* The start of kind (given, grid, apriori, centre of the parameter box):
 * CF_OK with (*d0, *a0), an error, or -1 if there is none (noted). */
static int start_point(fit_run *f, const char *kind, const cf_fit_input *in, cf_res_rec *rec, double *d0, double *a0,
                       cf_error *err) {
  double rho = in->tg.rho;
  if (!strcmp(kind, "given")) return *d0 = f->o->d0, *a0 = f->o->a0, CF_OK;
  if (!strcmp(kind, "centre")) return *d0 = 0.5 * rho, *a0 = 2 * rho, CF_OK; /* of [0, rho] x [0, 4 rho] */
  if (!strcmp(kind, "grid")) return grid_start(f, in, rec, d0, a0, err);
  if (!isfinite(in->S) && !strcmp(f->o->start, kind))
    return cf_error_set(err, CF_EINVAL, "%s: --start apriori needs the cloth size (ingest with --size A2|A3|WxH)",
                        in->path);
  if (!cf_pipeline_apriori(in, d0, a0)) return note(f->info, kind, NAN, NAN, "no cloth size in the recording"), -1;
  return CF_OK;
}

int cf_pipeline_apriori(const cf_fit_input *in, double *d0, double *a0) {
  double rho = in->tg.rho;
  if (!isfinite(in->S)) return *d0 = 0.5 * rho, *a0 = 2 * rho, 0; /* the centre of [0, rho] x [0, 4 rho] */
  cf_formula_predict(&cf_formula_thesis_rep1, in->S, in->V, rho, d0, a0);
  *d0 = fmax(*d0, 0.05 * rho), *a0 = fmax(*a0, 0.05 * rho); /* inside the model's domain */
  return 1;
}

/* Nelder-Mead from the start of kind: CF_OK, an error, or -1 if the start
 * is missing or its simulation fails (noted). */
static int try_start(fit_run *f, const char *kind, const cf_fit_input *in, cf_res_rec *rec, cf_error *err) {
  cf_pipeline_fit_info *info = f->info;
  size_t n = strlen(info->starts);
  snprintf(info->starts + n, sizeof info->starts - n, "%s%s", n ? " " : "", kind);
  double d0, a0;
  int rc = start_point(f, kind, in, rec, &d0, &a0, err);
  if (rc) return rc;
  char failure[256];
  cf_fit_input from = *in; /* mu's start: the grid optimum's with a mu axis */
  if (!strcmp(kind, "grid") && f->o->gm.n) from.fixed.mu = f->m0;
  cf_pl_stage(f->pr, "fit: Nelder-Mead", f->o->max_evals);
  rc = cf_pipeline_refine(&from, d0, a0, kind, f->t0, f->t1, f->o->max_evals, f->o->workers,
                          cf_pipeline_tasks_kept(f->tasks), f->pr, rec, failure, err);
  cf_pl_stage(f->pr, NULL, 0);
  if (rc) return rc;
  if (failure[0]) return note(info, kind, d0, a0, failure), -1;
  info->d0 = d0, info->a0 = a0;
  snprintf(rec->fit.starts_tried, sizeof rec->fit.starts_tried, "%s", info->starts);
  return CF_OK;
}

int cf_pipeline_fit(cf_fit_input *in, const cf_pipeline_fit_opts *o, cf_pipeline_tasks *tasks,
                    const cf_pipeline_progress *pr, cf_res_rec *rec, cf_pipeline_fit_info *info, cf_error *err) {
  static const char *const next[] = {"grid", "apriori", "centre"};
  memset(info, 0, sizeof *info);
  fit_run f = {o, tasks, pr, info, (int)floor(o->train0 * in->tg.T + 0.5), (int)floor(o->train1 * in->tg.T + 0.5), 0};
  if (f.t1 - f.t0 < 2)
    return cf_error_set(err, CF_EINVAL, "%s: the training window holds %d frame(s); use a longer --train", in->path,
                        f.t1 - f.t0);
  int rc = try_start(&f, o->start, in, rec, err);
  for (int k = 0; rc == -1 && k < 3; k++)
    if (strcmp(next[k], o->start)) rc = try_start(&f, next[k], in, rec, err);
  if (rc == -1) {
    info->all_failed = 1;
    return cf_error_set(err, CF_ENOCONV, "%s: no finite optimum: the simulation fails at every start tried: %s",
                        in->path, info->tried);
  }
  if (rc) return rc;
  if (in->fit_mu) in->fixed.mu = rec->fit.x[2]; /* the confidence stencil around the fitted mu */
  if (!o->confidence) return CF_OK;
  const cf_fit_input *const *ins = (const cf_fit_input *const *)&in;
  rc = cf_pipeline_confidence(ins, 1, o->workers, cf_pipeline_tasks_kept(tasks), &rec, err);
  if (!rc && o->free_flagged)
    rc = cf_pipeline_free_flagged(ins, 1, o->max_evals, o->workers, cf_pipeline_tasks_kept(tasks), pr, &rec, NULL, err);
  if (!rc) rc = cf_pipeline_model_check(ins, 1, o->workers, cf_pipeline_tasks_kept(tasks), pr, &rec, err);
  return rc;
}
