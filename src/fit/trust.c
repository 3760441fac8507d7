/* trust.c — the trust-region search of a fit (cf_fit_trust_region): a
 * quadratic model of the training error learnt from the simulations made so
 * far, minimised in a box around the best point, the box grown where the
 * model predicts well and shrunk where it does not.
 *
 * Why: the error of a fit is smooth in (delta, alpha) on the scale of its
 * confidence intervals (docs/confidence.md) but rough on the scale of the
 * constraints' tolerance, and each evaluation is a whole simulation.  A
 * 240-point grid and Nelder-Mead spend most of theirs far from the optimum
 * or on the roughness; a least-squares quadratic of the points near the
 * best one averages the roughness out and jumps to where the surface's
 * minimum is.  It is the scheme of derivative-free trust-region methods
 * (Conn, Scheinberg and Vicente, "Introduction to derivative-free
 * optimization", 2009, ch. 10) with regression models, kept small: the
 * parameters are at most CF_NM_MAXP and the box's minimum is found by
 * projected gradient steps.
 *
 * Coordinates: u = (x - start) / step, the options' simplex steps (10 % of
 * delta and alpha, a factor 3 of kappa and beta), so that one unit means
 * the same to every parameter.  The box is the trust region: |u - c| <= r
 * in every coordinate, within the bounds. */
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "quadfit.h"
#include "search.h"

/* Radii in steps: the first model is fitted on a design of +-R0 steps
 * (+-20 % of delta and alpha); the search stops below R_MIN (1 %: the 95 %
 * intervals of the bundled fits are +-10 % and wider, docs/confidence.md)
 * and never looks farther than R_MAX at once.  R_MIN measured on
 * tests/test_search.c's four recordings: at 2 % the search ended 1.4 %
 * above Nelder-Mead's error on one (48 simulations a fit); at 1 % within
 * 0.3 % of it on all four (55 a fit, Nelder-Mead 103). */
static const double R0 = 2, R_MIN = 0.1, R_MAX = 16;
/* The model's points: those within FIT_SPAN radii of the centre. */
static const double FIT_SPAN = 2;

typedef struct {
  int dim, cap, m;
  double *u; /* [cap * dim] the points evaluated */
  double *f; /* [cap] their errors (+inf: the simulation failed) */
  double *s, *y; /* [cap * dim], [cap]: scratch for the model's points */
  double ulo[CF_NM_MAXP], uhi[CF_NM_MAXP];
  cf_search_ctx *ctx;
  int best; /* index of the lowest finite error, -1 before one */
} tr_data;

static double inf_dist(int dim, const double *a, const double *b) {
  double d = 0;
  for (int i = 0; i < dim; i++) d = fmax(d, fabs(a[i] - b[i]));
  return d;
}

static void to_x(const cf_nm_options *o, const double *u, double *x) {
  for (int i = 0; i < o->n + o->nk; i++) x[i] = fmin(fmax(o->start[i] + u[i] * o->step[i], o->lo[i]), o->hi[i]);
}

/* The error at u (within the bounds): an earlier evaluation of the same
 * point, or a new one while the budget lasts.  The index of the point, or
 * -1 when the budget is spent. */
static int eval_at(tr_data *d, const double *u) {
  for (int k = 0; k < d->m; k++)
    if (inf_dist(d->dim, d->u + (size_t)k * d->dim, u) < 1e-9) return k;
  if (d->m >= d->cap) return -1;
  double x[CF_NM_MAXP];
  to_x(d->ctx->o, u, x);
  int k = d->m++;
  memcpy(d->u + (size_t)k * d->dim, u, sizeof(double) * d->dim);
  d->f[k] = cf_search_eval(d->ctx, x);
  if (isfinite(d->f[k]) && (d->best < 0 || d->f[k] < d->f[d->best])) d->best = k;
  return k;
}

/* The design around c with radius r: the centre, +-r on each axis, then
 * +-r on two axes at once (the cross terms, both diagonals): 1 + 2 n +
 * n (n - 1) points, n (n - 1) / 2 more than a quadratic has coefficients,
 * so that its least-squares fit averages the error's roughness.  An offset
 * beyond a bound goes the other way. */
static int n_design(int n) { return 1 + 2 * n + n * (n - 1); }

/* Point q of that design into u; 0 when there is no such point. */
static int design_point(const tr_data *d, const double *c, double r, int q, double *u) {
  int n = d->dim, i = -1, j = -1;
  double sg = 1;
  memcpy(u, c, sizeof(double) * n);
  if (q == 0) return 1;
  if (q <= 2 * n) i = (q - 1) / 2, sg = (q - 1) % 2 ? -1 : 1;
  else {
    int k = (q - 1 - 2 * n) / 2;
    sg = (q - 1 - 2 * n) % 2 ? -1 : 1;
    for (int a = 0; a < n && i < 0; a++)
      for (int b = a + 1; b < n; b++)
        if (k-- == 0) {
          i = a, j = b;
          break;
        }
    if (i < 0) return 0;
  }
  int ax[2] = {i, j};
  for (int t = 0; t < 2 && ax[t] >= 0; t++) {
    int a = ax[t];
    double v = c[a] + sg * r;
    if (v > d->uhi[a] || v < d->ulo[a]) v = c[a] - sg * r;
    u[a] = fmin(fmax(v, d->ulo[a]), d->uhi[a]);
  }
  return 1;
}

/* The finite points within FIT_SPAN r of c, as offsets (u - c) / r, into
 * s and y; their number. */
static int model_points(const tr_data *d, const double *c, double r, double *s, double *y) {
  int m = 0;
  for (int k = 0; k < d->m; k++) {
    const double *u = d->u + (size_t)k * d->dim;
    if (!isfinite(d->f[k]) || inf_dist(d->dim, u, c) > FIT_SPAN * r) continue;
    for (int i = 0; i < d->dim; i++) s[(size_t)m * d->dim + i] = (u[i] - c[i]) / r;
    y[m++] = d->f[k];
  }
  return m;
}

/* Evaluate the design points around c with radius r that have no point
 * (finite or failed) within r / 2 yet, in order, until the model has
 * `need` points within FIT_SPAN r (need 0: all of them): the number
 * evaluated, or -1 when the budget ran out. */
static int add_design(tr_data *d, const double *c, double r, int need, double *s, double *y) {
  int added = 0, nd = n_design(d->dim);
  for (int q = 0; q < nd && (!need || model_points(d, c, r, s, y) < need); q++) {
    double u[CF_NM_MAXP];
    if (!design_point(d, c, r, q, u)) continue;
    int near = 0;
    for (int k = 0; k < d->m && !near; k++) near = inf_dist(d->dim, d->u + (size_t)k * d->dim, u) < 0.5 * r;
    if (near) continue;
    if (eval_at(d, u) < 0) return -1;
    added++;
  }
  return added;
}

/* Enough points for the model around c: 0, -1 when the budget ran out,
 * -2 when too many simulations failed for a model. */
static int poise(tr_data *d, const double *c, double r, double *s, double *y) {
  int need = cf_quad_terms(d->dim) + 1;
  if (add_design(d, c, r, need, s, y) < 0) return -1;
  return model_points(d, c, r, s, y) >= need ? 0 : -2;
}

/* The model's gradient g and Hessian H (row-major) at the centre from the
 * coefficients of cf_quad_fit (1, s_j, s_j s_k for j <= k). */
static void unpack(int n, const double *cf, double *g, double *H) {
  for (int j = 0; j < n; j++) g[j] = cf[1 + j];
  int q = 1 + n;
  for (int j = 0; j < n; j++)
    for (int k = j; k < n; k++, q++) {
      H[j * n + k] = H[k * n + j] = j == k ? 2 * cf[q] : cf[q];
    }
}

static double model_at(int n, const double *g, const double *H, const double *s) {
  double v = 0;
  for (int j = 0; j < n; j++) {
    double hs = 0;
    for (int k = 0; k < n; k++) hs += H[j * n + k] * s[k];
    v += g[j] * s[j] + 0.5 * s[j] * hs;
  }
  return v;
}

/* Projected gradient descent on the model from s (in place) over the box
 * [lo, hi], with the step 1 / L of a bound L of H's largest eigenvalue
 * (the rows' absolute sums): every step lowers the model. */
static void descend(int n, const double *g, const double *H, const double *lo, const double *hi, double *s) {
  double L = 0;
  for (int j = 0; j < n; j++) {
    double row = 0;
    for (int k = 0; k < n; k++) row += fabs(H[j * n + k]);
    L = fmax(L, row);
  }
  double gn = 0;
  for (int j = 0; j < n; j++) gn = fmax(gn, fabs(g[j]));
  if (!(L > 0)) L = gn > 0 ? gn : 1;
  for (int it = 0; it < 400; it++) {
    double moved = 0;
    for (int j = 0; j < n; j++) {
      double gj = g[j];
      for (int k = 0; k < n; k++) gj += H[j * n + k] * s[k];
      double v = fmin(fmax(s[j] - gj / L, lo[j]), hi[j]);
      moved = fmax(moved, fabs(v - s[j]));
      s[j] = v;
    }
    if (moved < 1e-9) break;
  }
}

/* The model's minimum over the box [lo, hi] (containing 0) into s: the
 * better of projected descents from the centre, from the corner the
 * gradient points away from and from the Newton point (when H is positive
 * definite). */
static void model_min(int n, const double *g, const double *H, const double *lo, const double *hi, double *s) {
  double cand[3][CF_NM_MAXP], best = INFINITY;
  int nc = 0;
  memset(cand[nc++], 0, sizeof cand[0]);
  for (int j = 0; j < n; j++) cand[nc][j] = g[j] > 0 ? lo[j] : hi[j];
  nc++;
  double Hc[CF_NM_MAXP * CF_NM_MAXP];
  memcpy(Hc, H, sizeof(double) * n * n);
  gsl_matrix_view Hv = gsl_matrix_view_array(Hc, n, n);
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  if (!gsl_linalg_cholesky_decomp1(&Hv.matrix)) {
    gsl_vector_const_view gv = gsl_vector_const_view_array(g, n);
    gsl_vector_view sv = gsl_vector_view_array(cand[nc], n);
    if (!gsl_linalg_cholesky_solve(&Hv.matrix, &gv.vector, &sv.vector)) {
      for (int j = 0; j < n; j++) cand[nc][j] = fmin(fmax(-cand[nc][j], lo[j]), hi[j]);
      nc++;
    }
  }
  gsl_set_error_handler(old);
  for (int q = 0; q < nc; q++) {
    descend(n, g, H, lo, hi, cand[q]);
    double v = model_at(n, g, H, cand[q]);
    if (v < best) best = v, memcpy(s, cand[q], sizeof(double) * n);
  }
}

/* One step of the search from the centre c (the best point) with radius
 * *r: fit the model, evaluate its minimum over the box, and adapt *r.  0 to
 * go on, 1 when the budget is spent. */
static int step(tr_data *d, double *r) {
  int n = d->dim, best = d->best;
  double c[CF_NM_MAXP], cf[CF_QUAD_MAXC];
  memcpy(c, d->u + (size_t)best * n, sizeof(double) * n);
  double f_c = d->f[best];
  int rc = poise(d, c, *r, d->s, d->y);
  if (!rc && d->best == best) rc = cf_quad_fit(n, model_points(d, c, *r, d->s, d->y), d->s, d->y, cf, NULL) ? -2 : 0;
  if (rc == -1) return 1;
  if (rc == -2) return *r *= 0.5, 0; /* failed simulations around c: look closer */
  if (d->best != best) return 0;     /* a design point is better: centre there */
  double g[CF_NM_MAXP], H[CF_NM_MAXP * CF_NM_MAXP], lo[CF_NM_MAXP], hi[CF_NM_MAXP], st[CF_NM_MAXP];
  unpack(n, cf, g, H);
  for (int j = 0; j < n; j++) lo[j] = fmax(-1, (d->ulo[j] - c[j]) / *r), hi[j] = fmin(1, (d->uhi[j] - c[j]) / *r);
  model_min(n, g, H, lo, hi, st);
  double pred = -model_at(n, g, H, st), reach = 0;
  for (int j = 0; j < n; j++) reach = fmax(reach, fabs(st[j]));
  if (!(pred > 1e-12 * f_c) || reach < 0.05) { /* the model's minimum is the centre: look closer */
    *r *= 0.5;
    return 0;
  }
  double u[CF_NM_MAXP];
  for (int j = 0; j < n; j++) u[j] = fmin(fmax(c[j] + *r * st[j], d->ulo[j]), d->uhi[j]);
  int k = eval_at(d, u);
  if (k < 0) return 1;
  double gain = f_c - d->f[k];
  if (gain > 0.25 * pred) { /* the model predicted well */
    if (reach > 0.9) *r = fmin(2 * *r, R_MAX); /* and points farther */
    return 0;
  }
  /* it did not: first a model of the whole design at this radius (the
   * points it had may lie on a line, or far); when it had one, look closer */
  int added = add_design(d, d->u + (size_t)d->best * n, *r, 0, d->s, d->y);
  if (added < 0) return 1;
  if (added == 0) *r *= 0.5;
  return 0;
}

int cf_fit_trust_region(cf_fit_run *run, const cf_fit_point *base, const cf_nm_options *o, cf_nm_result *res,
                        cf_error *err) {
  memset(res, 0, sizeof *res);
  int n = o->n + o->nk;
  if (o->n < 1 || o->n > 3 || o->nk < 0 || o->nk > CF_NM_MAXK || n > CF_NM_MAXP)
    return cf_error_set(err, CF_EINVAL, "trust region: %d + %d parameters, expected 1 to 3 and 0 to %d, at most %d",
                        o->n, o->nk, CF_NM_MAXK, CF_NM_MAXP);
  for (int i = 0; i < n; i++)
    if (!(o->step[i] > 0))
      return cf_error_set(err, CF_EINVAL, "trust region: parameter %d has step %g, expected > 0", i + 1, o->step[i]);
  cf_search_ctx ctx = {run, base, o, 0, 0, ""};
  int cap = o->max_evals > 0 ? o->max_evals : 200;
  tr_data d = {n, cap, 0, calloc((size_t)cap * n + 1, sizeof(double)), calloc((size_t)cap + 1, sizeof(double)),
               calloc((size_t)cap * n + 1, sizeof(double)), calloc((size_t)cap + 1, sizeof(double)), {0}, {0}, &ctx,
               -1};
  if (!d.u || !d.f || !d.s || !d.y) {
    free(d.u), free(d.f), free(d.s), free(d.y);
    return cf_error_set(err, CF_ENOMEM, "trust region: out of memory");
  }
  for (int i = 0; i < n; i++) d.ulo[i] = (o->lo[i] - o->start[i]) / o->step[i], d.uhi[i] = (o->hi[i] - o->start[i]) / o->step[i];
  double u0[CF_NM_MAXP] = {0}, r = R0;
  eval_at(&d, u0);
  res->f_start = d.f[0];
  res->start_failed = !isfinite(d.f[0]);
  int rc = CF_OK;
  while (!res->start_failed && r >= R_MIN && !rc) {
    if (step(&d, &r)) break;
    res->iterations++;
    double x[CF_NM_MAXP];
    to_x(o, d.u + (size_t)d.best * n, x);
    rc = cf_search_push_path(res, x, d.f[d.best], n);
  }
  res->converged = !res->start_failed && r < R_MIN;
  if (res->start_failed) {
    memcpy(res->best, o->start, sizeof(double) * n);
    res->f_start = res->f_best = INFINITY;
  } else {
    to_x(o, d.u + (size_t)d.best * n, res->best);
    res->f_best = d.f[d.best];
  }
  res->evaluations = ctx.evals, res->failed = ctx.failed;
  snprintf(res->failure, sizeof res->failure, "%s", ctx.failure);
  free(d.u), free(d.f), free(d.s), free(d.y);
  if (rc) return cf_error_set(err, rc, "trust region: out of memory recording the path");
  return CF_OK;
}

const cf_search_type cf_search_trust = {"trust", "trust-region", cf_fit_trust_region};
