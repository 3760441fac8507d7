/* regress_model.c — the regression's default search (CF_REGRESS_MODEL):
 * R (4.7) minimized on per-recording error models instead of simulations.
 *
 * Why: R(f) is the mean of n independent terms e_i(delta_i, alpha_i), each
 * a function of only two numbers, the (delta, alpha) the formula gives
 * recording i.  Nelder-Mead on R itself spends n simulations per
 * evaluation and ~100 evaluations (3200 simulations for the 32 recordings
 * of `experiment aero`), although every e_i is a bowl around the
 * recording's own optimum, which the study already knows.  So each e_i
 * gets a least-squares quadratic model (cf_quad_fit) in the coordinates
 * u = (delta / delta_i* - 1, alpha / alpha_i* - 1), relative offsets from
 * its optimum, fitted to simulations of that recording on the whole
 * recording with the kappa, beta it holds (exactly what R simulates).
 *
 * The model is a quadratic of e_i^2, and e_i its root.  e_i is a mean over
 * frames of M-norm distances |r_t(u)|, and near the optimum each r_t is
 * nearly linear in u with a floor r_t(0) != 0 (the model cannot meet the
 * recording exactly), so e_i^2 is nearly quadratic in u while e_i itself
 * is a cone above a narrow rounded tip: on tests/test_regress.c's study
 * its errors rise from 0.02-0.05 cm at the optimum to 0.07-0.56 cm at
 * +-5 %, and a quadratic of e_i fitted there put its minimum where the
 * simulated R was higher than at the start.
 *
 * The search:
 *   1. R at the start simulated (journaled "reg"), then a 3 x 3 design
 *      u in {-h_1, 0, h_1} x {-h_2, 0, h_2} per recording (9 n
 *      simulations in one parallel loop, journaled "regd");
 *   2. Nelder-Mead on the 8 coefficients minimizing R~ = the mean of the
 *      models (no simulation; restarted until it stops improving);
 *   3. R at that point simulated for every recording (journaled "reg", as
 *      the reference's evaluations); each recording's point joins its data
 *      and its model is refitted; from the best real point, back to 2,
 *      until IDLE_MAX rounds in a row lowered the best real R by less than
 *      GAIN (0.1 %), or after CF_REGRESS_ROUNDS rounds (or max_evals real
 *      evaluations).  Two idle rounds, not one: a round whose point was
 *      worse still corrected the models there, and the next round's
 *      proposal differs.
 * The result is the best REAL evaluation: R, f and the terms e_i are
 * simulated values, never a model's.
 *
 * The design's width: where the formula puts a recording differs by study.
 * On tests/test_regress.c's synthetic study (made with the formula) the
 * least-squares start puts every recording within about 0.5 % (delta) and
 * 1.5 % (alpha) of its optimum (the test prints them), and the 1 % around
 * the floor decides R*; on a study of real recordings the formula misses
 * the optima by tens of percent, where a narrow design would extrapolate.
 * So each recording's half-width on each axis is REACH (1.5) times its
 * offset at the least-squares start, at least H_MIN (5 %: closer to the
 * optimum the errors are rough rather than a bowl: on that study one
 * recording's error went from 0.050 to 0.149 cm for a 0.28 % change of
 * alpha, another's from 0.043 to 0.087 cm for 0.11 %) and at most H_MAX (80 %:
 * the design's low point stays at a positive delta, alpha).
 *
 * Guard against extrapolation: a quadratic fitted on a box says little
 * outside it (a saddle or a wrong curvature there would let the search
 * run away to a spurious low).  A model is evaluated at u clamped to the
 * box of its data widened by MARGIN h on every side, plus a penalty
 * W (d / h)^2 for the distance d beyond that box, W the range of the data's
 * errors: leaving the box by one design step costs as much as the whole
 * variation seen inside it.  The clamp makes the value one the data
 * supports; the penalty (not a plain clamp, which would be flat outside)
 * keeps Nelder-Mead from drifting into the unsupported region, while the
 * margin still lets a round step out a little, the real point found there
 * widening the box for the next round, like a trust region. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "quadfit.h"
#include "regress.h"

/* The design's half-width on each axis: REACH times the start's offset of
 * the recording, within [H_MIN, H_MAX] (relative to the optimum). */
static const double REACH = 1.5, H_MIN = 0.05, H_MAX = 0.8;
static const double MARGIN = 0.5; /* the box's widening, in design half-widths */
static const double GAIN = 1e-3;  /* a round lowering the best real R by less than this fraction is idle */
enum { IDLE_MAX = 2 };            /* the search ends after this many idle rounds in a row */
enum { NQ = 6 };                  /* coefficients of a quadratic in 2 variables */

/* One recording's error model: its data in u coordinates and the fit. */
typedef struct {
  double d0, a0, sd, sa; /* u = ((delta - d0) / sd, (alpha - a0) / sa) */
  double h[2];           /* the design's half-widths in u */
  int m, cap;
  double *u, *y;         /* [cap * 2], [cap]: the finite simulations */
  double c[NQ];          /* cf_quad_fit's coefficients */
  double lo[2], hi[2];   /* the data's box, widened */
  double w;              /* the penalty's weight (cm) */
} emodel;

static void emodel_centre(emodel *em, const cf_study_item *it, const cf_formula *start) {
  double floor = 0.05 * it->tg->rho; /* a scale for an optimum at 0 (the sweep's smallest grid value) */
  em->d0 = it->delta, em->a0 = it->alpha;
  em->sd = fmax(fabs(it->delta), floor), em->sa = fmax(fabs(it->alpha), floor);
  double d, a;
  cf_formula_predict(start, it->S, it->V, it->tg->rho, &d, &a);
  double o[2] = {(d - em->d0) / em->sd, (a - em->a0) / em->sa};
  for (int j = 0; j < 2; j++) em->h[j] = fmin(fmax(REACH * fabs(o[j]), H_MIN), H_MAX);
}

static void emodel_add(emodel *em, double delta, double alpha, double e) {
  if (!(e < CF_REGRESS_PENALTY) || em->m >= em->cap) return; /* failures say nothing of the bowl */
  em->u[2 * em->m] = (delta - em->d0) / em->sd;
  em->u[2 * em->m + 1] = (alpha - em->a0) / em->sa;
  em->y[em->m++] = e * e;
}

/* Refit the quadratic (of e^2) and the box; with fewer points than
 * coefficients (the design's simulations failed) the model is the mean
 * squared error, flat. */
static void emodel_fit(emodel *em) {
  double ymin = HUGE_VAL, ymax = -HUGE_VAL, mean = 0;
  for (int j = 0; j < 2; j++) em->lo[j] = HUGE_VAL, em->hi[j] = -HUGE_VAL;
  for (int k = 0; k < em->m; k++) {
    ymin = fmin(ymin, em->y[k]), ymax = fmax(ymax, em->y[k]), mean += em->y[k] / em->m;
    for (int j = 0; j < 2; j++) em->lo[j] = fmin(em->lo[j], em->u[2 * k + j]), em->hi[j] = fmax(em->hi[j], em->u[2 * k + j]);
  }
  for (int j = 0; j < 2; j++) {
    if (em->m == 0) em->lo[j] = em->hi[j] = 0;
    em->lo[j] -= MARGIN * em->h[j], em->hi[j] += MARGIN * em->h[j];
  }
  em->w = em->m ? sqrt(ymax) - sqrt(ymin) : 0;
  memset(em->c, 0, sizeof em->c);
  if (em->m < NQ || cf_quad_fit(2, em->m, em->u, em->y, em->c, NULL)) {
    memset(em->c, 0, sizeof em->c);
    em->c[0] = em->m ? mean : CF_REGRESS_PENALTY * CF_REGRESS_PENALTY;
  }
}

/* The model's error at (delta, alpha): the root of the quadratic at u
 * clamped to its box (0 where the quadratic dips below 0), plus the
 * penalty for the distance beyond the box. */
static double emodel_at(const emodel *em, double delta, double alpha) {
  double u[2] = {(delta - em->d0) / em->sd, (alpha - em->a0) / em->sa}, uc[2], out = 0;
  for (int j = 0; j < 2; j++) {
    uc[j] = fmin(fmax(u[j], em->lo[j]), em->hi[j]);
    out += (u[j] - uc[j]) * (u[j] - uc[j]) / (em->h[j] * em->h[j]);
  }
  return sqrt(fmax(cf_quad_eval(2, em->c, uc), 0)) + em->w * out;
}

/* ---------------------------------------------------------- the design */
typedef struct {
  const cf_study_item *items;
  const cf_params *base;
  const emodel *em;
} design_ctx;

/* Item k of the design: recording k / 9 at its design point k % 9. */
static void design_point(const design_ctx *c, int k, int *i, double *delta, double *alpha) {
  *i = k / CF_REGRESS_DESIGN;
  int q = k % CF_REGRESS_DESIGN;
  const emodel *em = &c->em[*i];
  *delta = em->d0 + em->h[0] * (q / 3 - 1) * em->sd;
  *alpha = em->a0 + em->h[1] * (q % 3 - 1) * em->sa;
}

static int design_item(int k, void *arg, void *out, cf_error *werr) {
  (void)werr;
  const design_ctx *c = arg;
  int i;
  double d, a;
  design_point(c, k, &i, &d, &a);
  return cf_regress_sim(&c->items[i], c->base, d, a, out);
}

static unsigned long long design_id(int k, const void *arg) {
  const design_ctx *c = arg;
  int i;
  double d, a;
  design_point(c, k, &i, &d, &a);
  return cf_regress_sim_id("regd", i, &c->items[i], c->base, d, a);
}

/* The 9 n design simulations into the models. */
static int run_design(const cf_study_item *items, int n, const cf_params *base, const cf_regress_options *o,
                      emodel *em, cf_error *err) {
  int nd = CF_REGRESS_DESIGN * n;
  double *e = malloc(sizeof *e * (size_t)nd);
  if (!e) return cf_error_set(err, CF_ENOMEM, "regression: out of memory");
  design_ctx c = {items, base, em};
  int rc = cf_parallel_run_kept(nd, o->workers, sizeof(double), NULL, design_item, &c, e, NULL, o->kept, "regd",
                                design_id, err);
  for (int k = 0; rc == CF_OK && k < nd; k++) {
    int i;
    double d, a;
    design_point(&c, k, &i, &d, &a);
    emodel_add(&em[i], d, a, e[k]);
  }
  free(e);
  return rc;
}

/* ----------------------------------------------------- the model's R~ */
typedef struct {
  const cf_study_item *items;
  const emodel *em;
  int n, iterations, max_iterations;
} surr_ctx;

static double surr_objective(const gsl_vector *v, void *arg) {
  const surr_ctx *c = arg;
  cf_formula f;
  cf_regress_unpack(v, &f);
  double s = 0;
  for (int i = 0; i < c->n; i++) {
    const cf_study_item *it = &c->items[i];
    double d, a;
    cf_formula_predict(&f, it->S, it->V, it->tg->rho, &d, &a);
    s += emodel_at(&c->em[i], d, a);
  }
  return s / c->n;
}

static int surr_stop(void *arg) {
  surr_ctx *c = arg;
  return ++c->iterations > c->max_iterations;
}

/* The minimum of R~ from f (in place): Nelder-Mead restarted from its
 * result while a restart lowers R~ by more than 1e-9 of it (a simplex can
 * collapse short of the minimum; R~ costs no simulation). */
static int surr_minimize(const cf_study_item *items, int n, const emodel *em, cf_formula *f) {
  surr_ctx c = {items, em, n, 0, 20000};
  gsl_multimin_function fn = {surr_objective, 8, &c};
  gsl_vector *x = gsl_vector_alloc(8);
  if (!x) return CF_ENOMEM;
  for (int k = 0; k < 4; k++) gsl_vector_set(x, k, f->d[k]), gsl_vector_set(x, 4 + k, f->a[k]);
  double best = surr_objective(x, &c);
  gsl_vector_free(x);
  for (int restart = 0; restart < 10; restart++) {
    cf_formula g = *f;
    double v = best;
    int it, rc = cf_regress_nm8(&fn, items, n, f, 1e-9, surr_stop, &c, &g, &v, &it);
    if (rc) return rc;
    if (!(v < best - 1e-9 * fabs(best))) break;
    *f = g, best = v;
  }
  return CF_OK;
}

/* ---------------------------------------------------------- the search */
typedef struct {
  const cf_study_item *items;
  int n;
  const cf_params *base;
  const cf_regress_options *o;
  emodel *em;
  double *e;      /* [n] the last evaluation's terms */
  double *e_best; /* [n] the best's */
  long done, total; /* progress, in evaluations of R */
} search_state;

static void progress(search_state *s, long step) {
  s->done += step;
  if (s->o->progress && s->o->progress->fn) s->o->progress->fn(s->done, s->total, s->o->progress->user);
}

/* R at f simulated (journaled "reg"); each recording's point joins its
 * model's data; f becomes the result when better than it.  *gain: the
 * fraction by which the best R fell. */
static int real_eval(search_state *s, const cf_formula *f, cf_regress_result *res, double *gain, cf_error *err) {
  double R;
  int rc = cf_regress_eval(s->items, s->n, s->base, f, s->o->workers, s->o->kept, s->e, &R, err);
  if (rc) return rc;
  res->evaluations++;
  res->simulations += s->n;
  for (int i = 0; i < s->n; i++) {
    const cf_study_item *it = &s->items[i];
    double d, a;
    cf_formula_predict(f, it->S, it->V, it->tg->rho, &d, &a);
    emodel_add(&s->em[i], d, a, s->e[i]);
  }
  *gain = res->evaluations == 1 ? 1 : (res->R - R) / res->R;
  if (res->evaluations == 1 || R < res->R) {
    res->R = R, res->f = *f;
    memcpy(s->e_best, s->e, sizeof *s->e * (size_t)s->n);
  }
  progress(s, 1);
  return CF_OK;
}

static int rounds(search_state *s, cf_regress_result *res, int max_evals, cf_error *err) {
  int rc = real_eval(s, &res->f_start, res, &(double){0}, err);
  res->R_start = res->R;
  if (!rc) rc = run_design(s->items, s->n, s->base, s->o, s->em, err);
  if (!rc) res->simulations += (long)CF_REGRESS_DESIGN * s->n, progress(s, CF_REGRESS_DESIGN);
  double gain = 1;
  int idle = 0;
  while (!rc && res->iterations < CF_REGRESS_ROUNDS && res->evaluations < max_evals && idle < IDLE_MAX) {
    for (int i = 0; i < s->n; i++) emodel_fit(&s->em[i]);
    cf_formula f = res->f;
    rc = surr_minimize(s->items, s->n, s->em, &f);
    if (rc) return cf_error_set(err, rc, "regression: out of memory");
    rc = real_eval(s, &f, res, &gain, err);
    res->iterations++;
    idle = gain < GAIN ? idle + 1 : 0;
  }
  return rc;
}

int cf_regress_model_search(const cf_study_item *items, int n, const cf_params *base, const cf_regress_options *o,
                            cf_regress_result *res, cf_error *err) {
  int max_evals = o->max_evals > 0 ? o->max_evals : 400;
  search_state s = {items, n, base, o, calloc((size_t)n, sizeof(emodel)), malloc(sizeof(double) * (size_t)n),
                    malloc(sizeof(double) * (size_t)n), 0, cf_regress_progress_total(o)};
  int cap = CF_REGRESS_DESIGN + 1 + CF_REGRESS_ROUNDS, rc = s.em && s.e && s.e_best ? CF_OK : CF_ENOMEM;
  for (int i = 0; rc == CF_OK && i < n; i++) {
    emodel_centre(&s.em[i], &items[i], &res->f_start);
    s.em[i].cap = cap;
    s.em[i].u = malloc(sizeof(double) * 2 * (size_t)cap), s.em[i].y = malloc(sizeof(double) * (size_t)cap);
    if (!s.em[i].u || !s.em[i].y) rc = CF_ENOMEM;
  }
  if (rc) cf_error_set(err, rc, "regression: out of memory");
  if (!rc) rc = rounds(&s, res, max_evals, err);
  for (int i = 0; s.em && i < n; i++) free(s.em[i].u), free(s.em[i].y);
  free(s.em), free(s.e);
  if (rc) {
    free(s.e_best);
    return rc;
  }
  for (int i = 0; i < n; i++) s.e_best[i] = s.e_best[i] >= CF_REGRESS_PENALTY ? INFINITY : s.e_best[i];
  res->e_item = s.e_best;
  return CF_OK;
}
