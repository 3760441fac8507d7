/* profile.c — profile intervals of a fit's delta and alpha (cf_fit_profile,
 * docs/confidence.md "Profile intervals").
 *
 * Computes: every parameter re-minimised from the fit (the optimum, with
 * kappa and beta freed within their bounds even when the fit held them),
 * the threshold from the per-frame errors there (cf_profile_hac), then for
 * delta and alpha each side of the optimum: the parameter held at offsets
 * growing by OFFSET_GROWTH from OFFSET0 of its value, the rest
 * re-minimised at each point from the previous point's (warm start), until
 * the error exceeds f_min + threshold or the parameter its bound.  The
 * interval's end is the crossing interpolated linearly between the last
 * point inside and the first outside; a side that never crosses is open
 * (its end the bound reached, flagged), and the reason names the parameter
 * that moved most along the profile (in units of its search step: 10 % of
 * the value for delta, alpha, mu, a factor 3 or 2 for the log-scale ones).
 *
 * Threshold: the profile likelihood ratio with the error's scale profiled
 * out rejects where the mean error rises by the fraction chi2_1(0.95) /
 * (2 n) over its least value, for n independent observations (Gaussian
 * residuals and the RMS, or Laplace ones and the mean distance: the same
 * to first order).  The frames are not independent (the cloth moves
 * smoothly), so n is the effective count n_eff = var(e_t) / var_HAC(mean
 * e), the Newey-West variance with a bandwidth of one confidence block
 * (1 / CF_CONF_BLOCKS of the window); a frame's markers count as one
 * observation (a model error moves them together).  The model-discrepancy
 * term (cf_profile_options.discrepancy_cm) is added as it is given.
 *
 * Workspace: one cf_fit_run for the optimum in the caller, one per side in
 * the worker processes (cf_parallel_run); nothing kept.  Ownership: out is
 * the caller's.  Fails: CF_ENOCONV when the simulation fails at the fit,
 * the search's error (CF_EINVAL for options it refuses), CF_ENOMEM. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_profile.h"
#include "parallel.h"

enum { NSIDE = 4, CENTRE_EVAL_FACTOR = 3, DEFAULT_EVALS = 60, REFINE = 2 };
static const double CHI2_1_95 = 3.841459, OFFSET0 = 0.05, OFFSET_GROWTH = 1.7, LOW_BOUND = 0.05;

void cf_profile_hac(const double *e, int n, int L, double *se, double *n_eff) {
  double m = 0, g0 = 0, lrv;
  for (int t = 0; t < n; t++) m += e[t] / n;
  for (int t = 0; t < n; t++) g0 += (e[t] - m) * (e[t] - m) / n;
  lrv = g0;
  for (int k = 1; k <= L && k < n; k++) {
    double g = 0;
    for (int t = k; t < n; t++) g += (e[t] - m) * (e[t - k] - m) / n;
    lrv += 2 * (1 - (double)k / (L + 1)) * g;
  }
  double v = fmax(lrv, g0 / n) / n; /* never more independent frames than frames */
  *se = sqrt(v);
  *n_eff = g0 > 0 ? fmin(fmax(g0 / v, 1), n) : n;
}

/* The search's options with every parameter free from the fit's point at:
 * delta, alpha (mu: step 0.2, bounds [0, 3] as the pipeline's fits of it),
 * the model's stiffnesses, kappa and beta (not for a model without K)
 * within their bounds, a held value outside them (kappa 0) clamped in. */
static int free_options(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *at,
                        const cf_profile_options *po, cf_nm_options *o, cf_error *err) {
  cf_nm_options_default(o, tg->rho, at->delta, at->alpha);
  if (po->fit_mu) o->n = 3, o->start[2] = at->mu, o->step[2] = 0.2, o->lo[2] = 0, o->hi[2] = fmax(3, at->mu);
  o->t0 = po->t0, o->t1 = po->t1, o->restarts = 0, o->size_tol = 1e-5;
  o->max_evals = po->max_evals > 0 ? po->max_evals : DEFAULT_EVALS;
  cf_fit_point held = *at;
  held.kappa = fmin(fmax(held.kappa, CF_FIT_KAPPA_MIN), CF_FIT_KAPPA_MAX);
  if (held.beta > 0) held.beta = fmin(fmax(held.beta, CF_FIT_BETA_MIN), CF_FIT_BETA_MAX);
  unsigned mask = cf_fit_model_stiffness_mask(base->model);
  if (base->model != CF_CLOTH_MASS_SPRING) mask |= CF_STIFF_BIT(CF_STIFF_KAPPA) | CF_STIFF_BIT(CF_STIFF_BETA);
  return cf_nm_options_log_params(o, base, &held, mask, err);
}

/* One side's profile: the points, their errors and free parameters. */
typedef struct {
  int n, simulations;
  double x[CF_PROFILE_SIDE_PTS], f[CF_PROFILE_SIDE_PTS], v[CF_PROFILE_SIDE_PTS][CF_NM_MAXP];
} side_rec;

typedef struct {
  const cf_fit_target *tg;
  const cf_params *base;
  const cf_profile_options *po;
  cf_nm_options o;          /* every parameter free, started at the optimum */
  cf_fit_point optimum;
  double f_stop, threshold; /* f_min + threshold at the optimum: a side stops above it */
} side_ctx;

static cf_fit_minimizer minimizer(const cf_profile_options *po) {
  return po->minimize ? po->minimize : cf_fit_nelder_mead;
}

/* The k-th point of side s (0 down, 1 up) of parameter q from x0, its
 * bound hi: 0 when past the bound (the previous was the bound). */
static int side_point(double x0, double hi, int s, int k, double prev, double *x) {
  double r = OFFSET0 * pow(OFFSET_GROWTH, k);
  *x = s ? fmin(x0 * (1 + r), hi) : fmax(x0 * (1 - r), LOW_BOUND * x0);
  return k == 0 || *x != prev;
}

/* The crossing of the level L between (xa, fa) and (xb, fb), with the
 * profile taken linear in the squared offset from x0 (quadratic about the
 * optimum, as an error surface near its minimum is). */
static double crossing(double x0, double xa, double fa, double xb, double fb, double L) {
  double ua = (xa - x0) * (xa - x0), ub = (xb - x0) * (xb - x0);
  double w = isfinite(fb) && fb > fa ? fmin(fmax((L - fa) / (fb - fa), 0), 1) : 0;
  double u = ua + w * (ub - ua);
  return x0 + (xb > x0 ? 1 : -1) * sqrt(u);
}

/* One profile point at x (parameter q held there) from the start o->start,
 * inserted at r's position k; the search's next start from it. */
static int side_eval(const side_ctx *c, cf_fit_run *run, cf_nm_options *o, int q, double x, int k, side_rec *r,
                     cf_error *err) {
  o->start[q] = o->lo[q] = o->hi[q] = x;
  cf_nm_result nr = {0};
  int rc = minimizer(c->po)(run, &c->optimum, o, &nr, err);
  if (rc) return cf_nm_result_free(&nr), rc;
  memmove(&r->x[k + 1], &r->x[k], sizeof(double) * (size_t)(r->n - k));
  memmove(&r->f[k + 1], &r->f[k], sizeof(double) * (size_t)(r->n - k));
  memmove(&r->v[k + 1], &r->v[k], sizeof r->v[0] * (size_t)(r->n - k));
  r->simulations += nr.evaluations, r->n++;
  r->x[k] = x, r->f[k] = nr.f_best;
  memcpy(r->v[k], nr.best, sizeof nr.best);
  if (!nr.start_failed) memcpy(o->start, nr.best, sizeof nr.best); /* warm start */
  cf_nm_result_free(&nr);
  return CF_OK;
}

/* Side s of parameter q (item i = 2 q + s): the steps outwards until one
 * is above c->f_stop (or failed) or the bound is reached, then REFINE
 * points at the interpolated crossing between the last point inside and
 * the first outside, each from the inside one's parameters. */
static int side_item(int i, void *arg, void *out, cf_error *err) {
  const side_ctx *c = arg;
  side_rec *r = out;
  int q = i / 2, s = i % 2;
  cf_fit_run *run = cf_fit_run_alloc(c->tg, c->base, err);
  if (!run) return err && err->code ? err->code : CF_ENOMEM;
  cf_nm_options o = c->o;
  double x0 = c->o.start[q], hi = c->o.hi[q], x = x0, f0 = c->f_stop - c->threshold;
  int rc = CF_OK;
  o.step[q] = 0;
  for (int k = 0; !rc && r->n < CF_PROFILE_SIDE_PTS - REFINE && side_point(x0, hi, s, k, x, &x); k++) {
    rc = side_eval(c, run, &o, q, x, r->n, r, err);
    if (!rc && !(r->f[r->n - 1] <= c->f_stop)) break;
  }
  for (int j = 0; !rc && j < REFINE && r->n > 0 && !(r->f[r->n - 1] <= c->f_stop); j++) {
    int b = 0;
    while (r->f[b] <= c->f_stop) b++; /* the first outside */
    double xa = b ? r->x[b - 1] : x0, fa = b ? r->f[b - 1] : f0;
    memcpy(o.start, b ? r->v[b - 1] : c->o.start, sizeof o.start);
    rc = side_eval(c, run, &o, q, crossing(x0, xa, fa, r->x[b], r->f[b], c->f_stop), b, r, err);
  }
  cf_fit_run_free(run);
  return rc;
}

/* A free parameter's move from the optimum's u0 to u, in search steps. */
static double move(const cf_nm_options *o, int j, double u0, double u) {
  return j < o->n ? fabs(u - u0) / (0.1 * fmax(fabs(u0), 1e-12)) : fabs(u - u0) / o->step[j];
}

static const char *param_name(const cf_nm_options *o, int j) {
  static const char *const lin[3] = {"delta", "alpha", "mu"};
  return j < o->n ? lin[j] : cf_fit_stiffness_name(o->kpar[j - o->n]);
}

/* The free parameter that moved most over the sides' points (open sides
 * only when one is open) into p->trades_against. */
static void trades(const side_ctx *c, const side_rec *sd, int q, cf_profile_param *p) {
  double best = 0;
  int any_open = p->open[0] || p->open[1];
  p->trades_against[0] = '\0';
  for (int s = 0; s < 2; s++) {
    if (any_open && !p->open[s]) continue;
    for (int k = 0; k < sd[s].n; k++)
      for (int j = 0; j < c->o.n + c->o.nk; j++) {
        double m = j == q ? 0 : move(&c->o, j, c->o.start[j], sd[s].v[k][j]);
        if (m > best) best = m, snprintf(p->trades_against, sizeof p->trades_against, "%s", param_name(&c->o, j));
      }
  }
}

/* p's interval below the level L over its points x[n], f[n]: from the
 * first point inside to the last (over every branch the profile dips
 * into), each end at the crossing towards its outer neighbour (the profile
 * quadratic about its least point m); an end whose point is the side's
 * last (the bound) is open. */
static void ends(cf_profile_param *p, double L) {
  int lo = 0, hi = p->n - 1, m = 0;
  for (int k = 0; k < p->n; k++)
    if (p->f[k] < p->f[m]) m = k;
  while (lo < m && !(p->f[lo] <= L)) lo++;
  while (hi > m && !(p->f[hi] <= L)) hi--;
  p->open[0] = lo == 0, p->open[1] = hi == p->n - 1;
  p->interval[0] = lo ? crossing(p->x[m], p->x[lo], p->f[lo], p->x[lo - 1], p->f[lo - 1], L) : p->x[0];
  p->interval[1] = hi < p->n - 1 ? crossing(p->x[m], p->x[hi], p->f[hi], p->x[hi + 1], p->f[hi + 1], L) : p->x[hi];
}

/* Parameter q's profile from its two sides: points in increasing x, ends. */
static void assemble(const side_ctx *c, const side_rec *sd, int q, double f0, const cf_profile *pr,
                     cf_profile_param *p) {
  p->n = 0;
  for (int k = sd[0].n - 1; k >= 0; k--) p->x[p->n] = sd[0].x[k], p->f[p->n++] = sd[0].f[k];
  p->x[p->n] = c->o.start[q], p->f[p->n++] = f0;
  for (int k = 0; k < sd[1].n; k++) p->x[p->n] = sd[1].x[k], p->f[p->n++] = sd[1].f[k];
  ends(p, pr->f_min + pr->threshold);
  p->simulations = sd[0].simulations + sd[1].simulations;
  trades(c, sd, q, p);
}

/* The threshold's statistics from the per-frame errors at c->optimum over
 * the window (one simulation). */
static int frame_stats(const side_ctx *c, cf_fit_run *run, cf_profile *out, cf_error *err) {
  int T = c->tg->T, t0 = c->po->t0, t1 = c->po->t1 > 0 && c->po->t1 < T ? c->po->t1 : T, n = 0;
  cf_frame_error *fe = calloc((size_t)T + 1, sizeof *fe);
  double *e = malloc(sizeof(double) * ((size_t)T + 1));
  cf_fit_result res;
  int rc = fe && e ? cf_fit_run_eval(run, &c->optimum, t0, t1, 0, fe, &res)
                   : cf_error_set(err, CF_ENOMEM, "profile: out of memory");
  if (!rc && res.status) rc = cf_error_set(err, CF_ENOCONV, "profile: the simulation fails at the optimum: %s", res.reason);
  for (int t = t0; !rc && t < t1; t++)
    if (fe[t].n > 0 && isfinite(fe[t].e_cm)) e[n++] = fe[t].e_cm;
  if (!rc && n < 2) rc = cf_error_set(err, CF_EINVAL, "profile: %d frame(s) with markers in the window", n);
  if (!rc) {
    out->simulations++, out->frames = n, out->bandwidth = (n + CF_CONF_BLOCKS - 1) / CF_CONF_BLOCKS;
    cf_profile_hac(e, n, out->bandwidth, &out->se_hac, &out->n_eff);
  }
  free(fe), free(e);
  return rc;
}

/* The optimum: every parameter re-minimised from the fit, then
 * frame_stats there. */
static int optimum(side_ctx *c, const cf_fit_point *at, cf_profile *out, cf_error *err) {
  cf_fit_run *run = cf_fit_run_alloc(c->tg, c->base, err);
  if (!run) return err && err->code ? err->code : CF_ENOMEM;
  cf_nm_options o = c->o;
  o.max_evals *= CENTRE_EVAL_FACTOR;
  cf_nm_result nr = {0};
  int rc = minimizer(c->po)(run, at, &o, &nr, err);
  if (!rc && nr.start_failed) rc = cf_error_set(err, CF_ENOCONV, "profile: the simulation fails at the fit: %s", nr.failure);
  else if (!rc) {
    memcpy(c->o.start, nr.best, sizeof nr.best);
    c->optimum = *at, cf_fit_point_set_all(&c->optimum, &c->o, nr.best);
    out->simulations += nr.evaluations, out->optimum = c->optimum, out->f_min = nr.f_best;
  }
  cf_nm_result_free(&nr);
  if (!rc) rc = frame_stats(c, run, out, err);
  cf_fit_run_free(run);
  return rc;
}

static double threshold(const cf_profile *p) {
  return CHI2_1_95 / (2 * p->n_eff) * p->f_min + p->discrepancy_cm;
}

/* The verdict: identifiable when every side closed, else the first open
 * one named with what it trades against. */
static void verdict(cf_profile *out) {
  static const char *const name[2] = {"delta", "alpha"}, *const side[2] = {"below", "above"};
  out->identifiable = 1, out->why[0] = '\0';
  for (int q = 0; q < 2 && out->identifiable; q++)
    for (int s = 0; s < 2 && out->identifiable; s++)
      if (out->p[q].open[s]) {
        out->identifiable = 0;
        const char *t = out->p[q].trades_against;
        snprintf(out->why, sizeof out->why, "%s trades against %s: its profile stays within the threshold %s the fit "
                 "up to %.4g", name[q], t[0] ? t : "nothing re-minimised", side[s], out->p[q].interval[s]);
      }
}

int cf_fit_profile(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *at,
                   const cf_profile_options *po, int workers, cf_profile *out, cf_error *err) {
  memset(out, 0, sizeof *out);
  side_ctx c = {tg, base, po, {0}, *at, 0, 0};
  int rc = free_options(tg, base, at, po, &c.o, err);
  if (!rc) rc = optimum(&c, at, out, err);
  if (rc) return rc;
  out->discrepancy_cm = po->discrepancy_cm;
  out->threshold = threshold(out);
  c.f_stop = out->f_min + out->threshold, c.threshold = out->threshold;
  double f0 = out->f_min; /* the optimum's error, before the sides may lower f_min */
  side_rec sd[NSIDE];
  memset(sd, 0, sizeof sd);
  rc = cf_parallel_run(NSIDE, workers, sizeof *sd, NULL, side_item, NULL, &c, sd, NULL, err);
  if (rc) return rc;
  for (int i = 0; i < NSIDE; i++) {
    out->simulations += sd[i].simulations;
    for (int k = 0; k < sd[i].n; k++) out->f_min = fmin(out->f_min, sd[i].f[k]);
  }
  out->threshold = threshold(out);
  for (int q = 0; q < 2; q++) {
    assemble(&c, sd + 2 * q, q, f0, out, &out->p[q]);
    out->p[q].value = q ? at->alpha : at->delta;
  }
  verdict(out);
  return CF_OK;
}
