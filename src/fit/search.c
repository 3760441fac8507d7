/* search.c — what the searches of a fit share (search.h). */
#include "search.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The evaluation at x: plain (sn NULL) or with sensitivities; fe as
 * cf_fit_run_eval's.  *status (may be NULL) the simulation's status. */
static double eval_at(cf_search_ctx *c, const double *x, cf_frame_error *fe, cf_fit_sens *sn, int *status) {
  cf_fit_point pt = *c->base;
  cf_fit_point_set_all(&pt, c->o, x);
  cf_fit_result r;
  c->evals++;
  int rc = sn ? cf_fit_run_eval_sens(c->run, &pt, c->o->t0, c->o->t1, fe, &r, sn)
              : cf_fit_run_eval(c->run, &pt, c->o->t0, c->o->t1, 0, fe, &r);
  const cf_fit_progress *pg = c->o->progress;
  if (pg && pg->fn) pg->fn(c->evals, c->o->max_evals > 0 ? c->o->max_evals : 200, pg->user);
  if (status) *status = rc ? rc : r.status;
  if (rc == CF_OK && r.status == CF_OK && isfinite(r.err.e_cm)) return r.err.e_cm;
  if (!c->failed++)
    snprintf(c->failure, sizeof c->failure, "%s", r.reason[0] ? r.reason : cf_status_name(rc ? rc : r.status));
  return INFINITY;
}

double cf_search_eval(cf_search_ctx *c, const double *x) { return eval_at(c, x, NULL, NULL, NULL); }

double cf_search_eval_frames(cf_search_ctx *c, const double *x, cf_frame_error *fe) {
  return eval_at(c, x, fe, NULL, NULL);
}

double cf_search_eval_sens(cf_search_ctx *c, const double *x, cf_fit_sens *sn, int *status) {
  return eval_at(c, x, NULL, sn, status);
}

int cf_search_push_path(cf_nm_result *res, const double *x, double f, int n) {
  cf_nm_step *p = realloc(res->path, sizeof *p * (res->n_path + 1));
  if (!p) return CF_ENOMEM;
  res->path = p;
  memset(&p[res->n_path], 0, sizeof *p);
  memcpy(p[res->n_path].x, x, sizeof(double) * n);
  p[res->n_path++].f = f;
  return CF_OK;
}
