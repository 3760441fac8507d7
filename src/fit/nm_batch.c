/* nm_batch.c — Nelder-Mead on several recordings at once, one recording per
 * worker process (parallel.c): each fit is serial, so a study of n
 * recordings refines n at a time instead of one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "parallel.h"

enum { PATH_CAP = 1000 }; /* simplex steps kept per fit (iterations <= evaluations) */

typedef struct {
  double best[CF_NM_MAXP], f_best, f_start;
  int evaluations, iterations, converged, failed, start_failed, n_path, rc;
  char msg[256], failure[256];
  cf_nm_step path[PATH_CAP];
  int sens_evaluations, fallback; /* Levenberg-Marquardt's (cf_nm_result) */
  double tangent_secant;
  char fallback_why[200];
} nm_rec;

typedef struct {
  const cf_fit_target *const *tg;
  const cf_params *base;
  const cf_fit_point *fixed;
  const cf_nm_options *o;
} batch_ctx;

/* A finished fit into its record (the path cut at PATH_CAP steps). */
static void pack(const cf_nm_result *nr, nm_rec *r) {
  memcpy(r->best, nr->best, sizeof r->best);
  r->f_best = nr->f_best, r->f_start = nr->f_start;
  r->evaluations = nr->evaluations, r->iterations = nr->iterations, r->converged = nr->converged;
  r->failed = nr->failed, r->start_failed = nr->start_failed;
  memcpy(r->failure, nr->failure, sizeof r->failure);
  r->sens_evaluations = nr->sens_evaluations, r->fallback = nr->fallback, r->tangent_secant = nr->tangent_secant;
  memcpy(r->fallback_why, nr->fallback_why, sizeof r->fallback_why);
  r->n_path = nr->n_path < PATH_CAP ? nr->n_path : PATH_CAP;
  if (r->n_path > 0) memcpy(r->path, nr->path, sizeof(cf_nm_step) * r->n_path); /* no path before an iteration */
}

static int batch_item(int i, void *arg, void *out, cf_error *werr) {
  (void)werr;
  batch_ctx *c = arg;
  nm_rec *r = out;
  cf_error err = {0, ""};
  cf_nm_options o = c->o[i];
  o.progress = NULL; /* workers do not report; the batch counts fits done */
  cf_nm_result nr;
  memset(&nr, 0, sizeof nr);
  cf_fit_run *run = cf_fit_run_alloc(c->tg[i], c->base, &err);
  r->rc = run ? cf_fit_minimize(run, c->fixed, &o, &nr, &err) : (err.code ? err.code : CF_EINVAL);
  snprintf(r->msg, sizeof r->msg, "%s", err.msg);
  if (!r->rc) pack(&nr, r);
  cf_nm_result_free(&nr);
  cf_fit_run_free(run);
  return r->rc == CF_ENOMEM ? CF_ENOMEM : CF_OK;
}

static int unpack(const nm_rec *r, cf_nm_result *res) {
  memset(res, 0, sizeof *res);
  memcpy(res->best, r->best, sizeof res->best);
  res->f_best = r->f_best, res->f_start = r->f_start;
  res->evaluations = r->evaluations, res->iterations = r->iterations, res->converged = r->converged;
  res->failed = r->failed, res->start_failed = r->start_failed;
  memcpy(res->failure, r->failure, sizeof res->failure);
  res->sens_evaluations = r->sens_evaluations, res->fallback = r->fallback, res->tangent_secant = r->tangent_secant;
  memcpy(res->fallback_why, r->fallback_why, sizeof res->fallback_why);
  res->path = malloc(sizeof(cf_nm_step) * (r->n_path + 1));
  if (!res->path) return CF_ENOMEM;
  res->n_path = r->n_path;
  memcpy(res->path, r->path, sizeof(cf_nm_step) * r->n_path);
  return CF_OK;
}

/* A fit's task id: its place in the batch, start, steps, bounds, budget,
 * restarts, window, recording length, the cloth model and what it holds,
 * the log-scale parameters it fits, the rest metric and the mesh. */
static unsigned long long fit_id(int i, const cf_fit_target *tg, const cf_nm_options *o, const cf_params *base,
                                 const cf_fit_point *fixed) {
  enum { M = CF_NM_MAXP, K = CF_NM_MAXK };
  enum { H = 21 + CF_FIT_TARGET_KEY };
  double x[H + 4 * M + K] = {o->n, o->nk, o->max_evals, o->size_tol, o->t0, o->t1, tg->T, tg->rho, tg->dt,
                             o->restarts, base->model, base->k_stretch, base->k_shear, base->k_bend,
                             fixed->beta, fixed->kappa, fixed->mu, fixed->k_stretch, fixed->k_shear, fixed->k_bend, o->search};
  cf_fit_target_key(tg, x + 21);
  memcpy(x + H, o->start, sizeof o->start), memcpy(x + H + M, o->step, sizeof o->step);
  memcpy(x + H + 2 * M, o->lo, sizeof o->lo), memcpy(x + H + 3 * M, o->hi, sizeof o->hi);
  for (int j = 0; j < o->nk; j++) x[H + 4 * M + j] = o->kpar[j] + 1; /* 0: none */
  return cf_task_id("nm", i, x, H + 4 * M + K);
}

static unsigned long long batch_id(int i, const void *arg) {
  const batch_ctx *c = arg;
  return fit_id(i, c->tg[i], &c->o[i], c->base, c->fixed);
}

int cf_fit_nelder_mead_kept(cf_fit_run *run, const cf_fit_target *tg, const cf_fit_point *base,
                            const cf_nm_options *o, const cf_fit_journal *kept, cf_nm_result *res, cf_error *err) {
  if (!kept) return cf_fit_minimize(run, base, o, res, err);
  nm_rec *r = calloc(1, sizeof *r);
  if (!r) return cf_error_set(err, CF_ENOMEM, "Nelder-Mead: out of memory");
  unsigned long long id = fit_id(0, tg, o, cf_fit_run_params(run), base); /* as the first fit of a batch */
  int rc;
  if (kept->load(kept->ctx, id, "nm", r, sizeof *r) && r->rc == CF_OK) {
    rc = unpack(r, res) ? cf_error_set(err, CF_ENOMEM, "Nelder-Mead: out of memory") : CF_OK;
  } else {
    memset(r, 0, sizeof *r);
    rc = cf_fit_minimize(run, base, o, res, err);
    if (rc == CF_OK) {
      pack(res, r);
      rc = kept->save(kept->ctx, id, "nm", r, sizeof *r, err);
      if (rc) cf_nm_result_free(res);
    }
  }
  free(r);
  return rc;
}

int cf_fit_nelder_mead_batch(int n, const cf_fit_target *const *tg, const cf_params *base, const cf_fit_point *fixed,
                             const cf_nm_options *o, int workers, const cf_fit_journal *kept,
                             const cf_fit_progress *progress, cf_nm_result *res, cf_error *err) {
  nm_rec *recs = calloc((size_t)n + 1, sizeof *recs);
  if (!recs) return cf_error_set(err, CF_ENOMEM, "Nelder-Mead: out of memory for %d fits", n);
  for (int i = 0; i < n; i++) memset(&res[i], 0, sizeof res[i]);
  batch_ctx c = {tg, base, fixed, o};
  int rc = cf_parallel_run_kept(n, workers, sizeof *recs, NULL, batch_item, &c, recs, progress, kept, "nm", batch_id,
                                err);
  for (int i = 0; !rc && i < n; i++) {
    if (recs[i].rc) rc = cf_error_set(err, recs[i].rc, "fit %d of %d: %s", i + 1, n, recs[i].msg);
    else if (unpack(&recs[i], &res[i])) rc = cf_error_set(err, CF_ENOMEM, "Nelder-Mead: out of memory");
  }
  if (rc)
    for (int i = 0; i < n; i++) cf_nm_result_free(&res[i]);
  free(recs);
  return rc;
}
