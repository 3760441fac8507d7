/* fit_failures.c — failed simulations made loud (fit_cli.h "failed
 * simulations"): a simulation that fails (the projection does not
 * converge, the state turns non-finite ...) is kept as a failed grid point
 * of its sweep (status, reason) or counted as a failed Nelder-Mead
 * evaluation; `sweep`, `fit` and `experiment` say how many failed, where
 * and why, on stderr and in their JSON, and `fit` and `experiment` fail
 * when a recording is left without a finite optimum.  The counts are the
 * library's (cf_pipeline_failures_of); here they are printed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

enum { LISTED = 3 }; /* failed points named per recording */

/* Where a failure message says the simulation failed ("step N (t = X s)"
 * of the simulator, "frame N (t = X s)" of the driving) as "step N, t = X
 * s", or "". */
static void step_of(const char *reason, char *buf, size_t size) {
  const char *t = strstr(reason, " (t = "), *w = t;
  buf[0] = 0;
  while (w && w > reason && w[-1] != ' ') w--; /* the number */
  if (w && w > reason) w--;
  while (w && w > reason && w[-1] != ' ') w--; /* the word before it */
  char word[16];
  long n;
  double s;
  if (t && sscanf(w, "%15[a-z] %ld (t = %lf s)", word, &n, &s) == 3)
    snprintf(buf, size, "%s %ld, t = %.4g s", word, n, s);
}

/* "delta D alpha A" of point k, with " mu M" on a mu grid. */
/* The warning line of rec's failed grid points. */
static void warn_grid(const char *cmd, const cf_res_rec *rec, cf_pipeline_failures f) {
  const cf_res_sweep *w = &rec->sweep;
  fprintf(stderr, "clothfit %s: warning: %s: %d of %d simulations of the grid failed (%.1f %%)", cmd, rec->name,
          f.failed, f.points, 100.0 * f.failed / f.points);
  int listed = 0;
  for (int k = 0; k < cf_res_sweep_points(w) && listed < LISTED; k++) {
    if (!cf_pipeline_point_failed(w->status[k])) continue;
    char step[64], at[96];
    step_of(w->reason[k], step, sizeof step);
    cf_res_sweep_point_text(w, k, at, sizeof at);
    if (!listed) fprintf(stderr, ": at %s: %s", at, w->reason[k][0] ? w->reason[k] : "(no reason)");
    else fprintf(stderr, "%s %s%s%s%s", listed == 1 ? "; also at" : ",", at, step[0] ? " (" : "", step,
                 step[0] ? ")" : "");
    listed++;
  }
  if (f.failed > listed) fprintf(stderr, " and %d more", f.failed - listed);
  fprintf(stderr, "\n");
}

static void warn_borders(const char *cmd, const cf_res_rec *rec) {
  int nf, nn;
  if (cf_pipeline_optimum_borders_failed(rec, &nf, &nn) <= 0) return;
  char at[96];
  fprintf(stderr, "clothfit %s: warning: %s: the grid optimum (%s) has %d failed grid point(s) among its %d "
          "neighbours: the true optimum may lie where the simulations failed\n", cmd, rec->name,
          cf_res_sweep_point_text(&rec->sweep, rec->sweep.best, at, sizeof at), nf, nn);
}

long cf_cli_warn_failures(const char *cmd, const cf_results *r, const char *out) {
  long failed = 0, points = 0, nm_failed = 0, nm_evals = 0;
  int recs = 0;
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    cf_pipeline_failures f = cf_pipeline_failures_of(c);
    if (f.failed) warn_grid(cmd, c, f);
    if (f.nm_failed)
      fprintf(stderr, "clothfit %s: warning: %s: %d of %d Nelder-Mead evaluations failed (first: %s)\n", cmd,
              c->name, f.nm_failed, f.nm_evals, c->fit.failure[0] ? c->fit.failure : "no reason");
    if (c->has_fit && c->fit.optimum_failure[0])
      fprintf(stderr, "clothfit %s: warning: %s: the simulation of the whole recording at the optimum failed: %s\n",
              cmd, c->name, c->fit.optimum_failure);
    warn_borders(cmd, c);
    failed += f.failed, points += f.points, nm_failed += f.nm_failed, nm_evals += f.nm_evals;
    recs += f.failed || f.nm_failed;
  }
  if (!failed && !nm_failed) return 0;
  fprintf(stderr, "clothfit %s: warning: in total %ld of %ld grid simulations failed (%.1f %%)", cmd, failed, points,
          points ? 100.0 * failed / points : 0.0);
  if (nm_evals) fprintf(stderr, " and %ld of %ld Nelder-Mead evaluations", nm_failed, nm_evals);
  fprintf(stderr, ", in %d of %d recording(s)", recs, r->n);
  if (out && failed) fprintf(stderr, "; the failed points are kept in %s (sweep/status, sweep/reason)", out);
  fprintf(stderr, "\n");
  return failed + nm_failed;
}

void cf_cli_json_failures(json_t *o, const cf_res_rec *rec) {
  cf_pipeline_fields f = cf_cli_json_fields(o);
  cf_pipeline_fields_failures(&f, rec);
}

void cf_cli_json_failure_totals(json_t *o, const cf_results *r) {
  cf_pipeline_fields f = cf_cli_json_fields(o);
  cf_pipeline_fields_failure_totals(&f, r);
}

/* Why rec has no finite optimum, on stderr. */
static void why_none(const cf_res_rec *c) {
  const cf_res_sweep *w = &c->sweep;
  if (c->has_fit && c->fit.optimum_failure[0]) fprintf(stderr, "the simulation at its optimum failed: %s",
                                                       c->fit.optimum_failure);
  else if (c->has_sweep && w->nd * w->na > 0 && w->best < 0)
    fprintf(stderr, "every one of its %d grid points failed, first: %s", cf_res_sweep_points(w), w->reason[0]);
  else fprintf(stderr, "no grid and no fit");
}

int cf_cli_fail_no_optimum(const char *cmd, const cf_results *r, const char *out) {
  int n = 0;
  for (int i = 0; i < r->n; i++) n += !cf_pipeline_finite_optimum(&r->recs[i]);
  if (!n) return 0;
  if (cf_dist_rank() > 0) return cf_cli_collective_status(1); /* rank 0 names them */
  fprintf(stderr, "clothfit %s: %d of %d recording(s) without a finite optimum:", cmd, n, r->n);
  for (int i = 0, k = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    if (cf_pipeline_finite_optimum(c)) continue;
    fprintf(stderr, "%s %s (", k++ ? ";" : "", c->recording[0] ? c->recording : c->name);
    why_none(c);
    fprintf(stderr, ")");
  }
  if (out) fprintf(stderr, "; the failed points are kept in %s", out);
  fprintf(stderr, "\n");
  return cf_cli_collective_status(1);
}

/* Whether the last non-zero status was one every rank reached alike. */
static int collective;

int cf_cli_collective_status(int rc) {
  collective = rc != 0;
  return rc;
}

int cf_cli_status_is_collective(void) { return collective; }
