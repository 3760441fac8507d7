/* regress.c — the a-priori aerodynamic formulas (thesis §4.2.3): speed and
 * size measures, least squares on per-recording optima, R (4.7) over a
 * study and the reference search, Nelder-Mead on R itself (every
 * evaluation simulates every recording; the default search on error
 * models is regress_model.c). */
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "parallel.h"
#include "regress.h"

#define PENALTY CF_REGRESS_PENALTY

const cf_formula cf_formula_thesis_rep1 = {{-0.0223, -0.0178, 0.0714, 0.7664},
                                           {0.2082, -0.1481, 1.1804, 1.7440}};

double cf_size_measure(double width_m, double height_m) { return width_m * height_m / (0.297 * 0.420); }

double cf_speed_measure(int T, int K, double dt, const double *pos) {
  size_t cap = (size_t)(T > 1 ? T - 1 : 0) * K, n = 0;
  double *v2 = malloc(sizeof(double) * (cap + 1));
  if (!v2) return NAN;
  for (int t = 0; t + 1 < T; t++)
    for (int j = 0; j < K; j++) {
      const double *a = pos + ((size_t)t * K + j) * 3, *b = a + (size_t)K * 3;
      double dx = b[0] - a[0], dy = b[1] - a[1], dz = b[2] - a[2];
      double s = (dx * dx + dy * dy + dz * dz) / (dt * dt);
      if (!isnan(s)) v2[n++] = s;
    }
  double V = NAN;
  if (n > 0) {
    gsl_sort(v2, 1, n);
    double med = gsl_stats_median_from_sorted_data(v2, 1, n), sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
      if (v2[i] >= med) {
        sum += v2[i];
        k++;
      }
    V = sum / k;
  }
  free(v2);
  return V;
}

/* One linear least-squares fit y ~ c0 + c1 S + c2 V + c3 rho. */
static int lsq4(const cf_study_item *it, int n, int which, double c[4]) {
  gsl_matrix *X = gsl_matrix_alloc(n, 4), *cov = gsl_matrix_alloc(4, 4);
  gsl_vector *y = gsl_vector_alloc(n), *cv = gsl_vector_alloc(4);
  gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, 4);
  int rc = X && cov && y && cv && w ? CF_OK : CF_ENOMEM;
  for (int i = 0; rc == CF_OK && i < n; i++) {
    gsl_matrix_set(X, i, 0, 1);
    gsl_matrix_set(X, i, 1, it[i].S);
    gsl_matrix_set(X, i, 2, it[i].V);
    gsl_matrix_set(X, i, 3, it[i].tg->rho);
    gsl_vector_set(y, i, which ? it[i].alpha : it[i].delta);
  }
  double chisq;
  size_t rank = 0;
  if (rc == CF_OK && gsl_multifit_linear_tsvd(X, y, 1e-10, cv, cov, &chisq, &rank, w)) rc = CF_ESOLVER;
  if (rc == CF_OK && rank < 4) rc = CF_EINVAL;
  for (int k = 0; rc == CF_OK && k < 4; k++) c[k] = gsl_vector_get(cv, k);
  if (w) gsl_multifit_linear_free(w);
  gsl_matrix_free(X);
  gsl_matrix_free(cov);
  gsl_vector_free(y);
  gsl_vector_free(cv);
  return rc;
}

int cf_regress_lsq(const cf_study_item *items, int n, cf_formula *f, cf_error *err) {
  if (n < 4) return cf_error_set(err, CF_EINVAL, "regression: %d recordings, need at least 4", n);
  int rc = lsq4(items, n, 0, f->d);
  if (rc == CF_OK) rc = lsq4(items, n, 1, f->a);
  if (rc == CF_EINVAL)
    return cf_error_set(err, rc, "regression: the recordings do not separate size, speed and density "
                                 "(the 4 x 4 design is rank deficient: vary S, V and rho)");
  if (rc) return cf_error_set(err, rc, "regression: least squares failed");
  return CF_OK;
}

const char *cf_regress_search_name(int search) { return search == CF_REGRESS_NM ? "nelder-mead" : "model"; }

int cf_regress_search_parse(const char *word) {
  return !strcmp(word, "model") ? CF_REGRESS_MODEL : !strcmp(word, "nelder-mead") ? CF_REGRESS_NM : -1;
}

long cf_regress_progress_total(const cf_regress_options *o) {
  int evals = o->max_evals > 0 ? o->max_evals : 400;
  if (o->search == CF_REGRESS_NM) return evals;
  return CF_REGRESS_DESIGN + (evals < 1 + CF_REGRESS_ROUNDS ? evals : 1 + CF_REGRESS_ROUNDS);
}

int cf_regress_sim(const cf_study_item *it, const cf_params *base, double delta, double alpha, double *e) {
  cf_fit_point pt = {.delta = delta,
                     .alpha = alpha,
                     .beta = it->beta > 0 ? it->beta : base->beta,
                     .kappa = it->kappa > 0 ? it->kappa : base->kappa}; /* the item's fitted, else base's */
  *e = PENALTY;
  if (!(pt.delta >= 0 && pt.alpha >= 0)) return CF_OK; /* outside the model's domain */
  cf_error err;
  cf_fit_run *run = cf_fit_run_alloc(it->tg, base, &err);
  if (!run) return CF_OK;
  cf_fit_result r;
  int rc = cf_fit_run_eval(run, &pt, 0, 0, 0, NULL, &r);
  if (rc == CF_OK && r.status == CF_OK && isfinite(r.err.e_cm)) *e = r.err.e_cm;
  cf_fit_run_free(run);
  return rc;
}

unsigned long long cf_regress_sim_id(const char *kind, int i, const cf_study_item *it, const cf_params *base,
                                     double delta, double alpha) {
  double x[8 + CF_FIT_TARGET_KEY] = {delta, alpha, it->tg->T, it->tg->rho, it->S, it->V,
                                     it->kappa > 0 ? it->kappa : base->kappa, it->beta > 0 ? it->beta : base->beta};
  cf_fit_target_key(it->tg, x + 8);
  return cf_task_id(kind, i, x, 8 + CF_FIT_TARGET_KEY);
}

typedef struct {
  const cf_study_item *items;
  const cf_params *base;
  const cf_formula *f;
} r_ctx;

static int r_item(int i, void *arg, void *out, cf_error *werr) {
  (void)werr;
  r_ctx *c = arg;
  const cf_study_item *it = &c->items[i];
  double d, a;
  cf_formula_predict(c->f, it->S, it->V, it->tg->rho, &d, &a);
  return cf_regress_sim(it, c->base, d, a, out);
}

/* A regression simulation's task id: the recording (with its rest metric
 * and mesh), the (delta, alpha) the formula gives it and the kappa, beta
 * it holds. */
static unsigned long long r_id(int i, const void *arg) {
  const r_ctx *c = arg;
  const cf_study_item *it = &c->items[i];
  double d, a;
  cf_formula_predict(c->f, it->S, it->V, it->tg->rho, &d, &a);
  return cf_regress_sim_id("reg", i, it, c->base, d, a);
}

int cf_regress_eval(const cf_study_item *items, int n, const cf_params *base, const cf_formula *f, int workers,
                    const cf_fit_journal *kept, double *e, double *R, cf_error *err) {
  r_ctx c = {items, base, f};
  int rc = cf_parallel_run_kept(n, workers, sizeof(double), NULL, r_item, &c, e, NULL, kept, "reg", r_id, err);
  double s = 0;
  for (int i = 0; i < n; i++) s += e[i];
  *R = s / n;
  return rc;
}

int cf_regress_objective(const cf_study_item *items, int n, const cf_params *base,
                         const cf_formula *f, int workers, double *R, cf_error *err) {
  double *e = calloc((size_t)n, sizeof *e);
  if (!e) return cf_error_set(err, CF_ENOMEM, "regression: out of memory");
  int rc = cf_regress_eval(items, n, base, f, workers, NULL, e, R, err);
  free(e);
  return rc;
}

typedef struct {
  const cf_study_item *items;
  int n, workers, evals, max_evals, rc;
  const cf_params *base;
  const cf_fit_progress *progress;
  const cf_fit_journal *kept;
  cf_error err;
  double *e, *e_best; /* [n] the items' errors of this evaluation, of the best one */
  double R_best;      /* R of the best evaluation (HUGE_VAL before the first) */
} nm8_ctx;

void cf_regress_unpack(const gsl_vector *v, cf_formula *f) {
  for (int k = 0; k < 4; k++) {
    f->d[k] = gsl_vector_get(v, k);
    f->a[k] = gsl_vector_get(v, 4 + k);
  }
}

static double nm8_objective(const gsl_vector *v, void *arg) {
  nm8_ctx *c = arg;
  cf_formula f;
  cf_regress_unpack(v, &f);
  double R = PENALTY;
  c->evals++;
  if (c->rc == CF_OK) c->rc = cf_regress_eval(c->items, c->n, c->base, &f, c->workers, c->kept, c->e, &R, &c->err);
  if (c->rc == CF_OK && R < c->R_best) {
    c->R_best = R;
    memcpy(c->e_best, c->e, sizeof *c->e * (size_t)c->n);
  }
  if (c->progress && c->progress->fn) c->progress->fn(c->evals, c->max_evals, c->progress->user);
  return c->rc == CF_OK ? R : PENALTY;
}

static int nm8_stop(void *arg) {
  const nm8_ctx *c = arg;
  return c->evals >= c->max_evals || c->rc != CF_OK;
}

/* Simplex steps: 10 % of each coefficient's typical contribution. */
static void nm8_steps(const cf_study_item *it, int n, const cf_formula *f, gsl_vector *x, gsl_vector *st) {
  double mS = 0, mV = 0, mr = 0;
  for (int i = 0; i < n; i++) {
    mS += it[i].S / n;
    mV += it[i].V / n;
    mr += it[i].tg->rho / n;
  }
  double scale[4] = {1, mS > 0 ? 1 / mS : 1, mV > 0 ? 1 / mV : 1, mr > 0 ? 1 / mr : 1};
  for (int k = 0; k < 4; k++) {
    gsl_vector_set(x, k, f->d[k]);
    gsl_vector_set(x, 4 + k, f->a[k]);
    gsl_vector_set(st, k, 0.1 * fmax(fabs(f->d[k]), 0.01 * scale[k]));
    gsl_vector_set(st, 4 + k, 0.1 * fmax(fabs(f->a[k]), 0.05 * scale[k]));
  }
}

int cf_regress_nm8(gsl_multimin_function *fn, const cf_study_item *items, int n, const cf_formula *start,
                   double size_tol, int (*stop)(void *arg), void *arg, cf_formula *f, double *fval, int *iterations) {
  gsl_vector *x = gsl_vector_alloc(8), *st = gsl_vector_alloc(8);
  gsl_multimin_fminimizer *m = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, 8);
  *iterations = 0;
  int rc = x && st && m ? CF_OK : CF_ENOMEM;
  if (rc == CF_OK) {
    nm8_steps(items, n, start, x, st);
    gsl_multimin_fminimizer_set(m, fn, x, st);
  }
  int status = GSL_CONTINUE;
  while (rc == CF_OK && status == GSL_CONTINUE && !(stop && stop(arg))) {
    if (gsl_multimin_fminimizer_iterate(m)) break;
    ++*iterations;
    status = gsl_multimin_test_size(gsl_multimin_fminimizer_size(m), size_tol);
  }
  if (rc == CF_OK && *iterations > 0) { /* fval is set by iterate */
    cf_regress_unpack(m->x, f);
    *fval = m->fval;
  }
  if (m) gsl_multimin_fminimizer_free(m);
  gsl_vector_free(x);
  gsl_vector_free(st);
  return rc;
}

/* res->e_item: the items' errors at res->f — those of the best evaluation
 * when its R is res->R (Nelder-Mead keeps the best point it evaluated),
 * else evaluated again; failures (PENALTY) as inf.  Frees c's arrays. */
static void item_errors(nm8_ctx *c, cf_regress_result *res) {
  int known = c->rc == CF_OK;
  if (known && c->R_best != res->R) {
    double R;
    cf_error again = {0, ""};
    known = cf_regress_eval(c->items, c->n, c->base, &res->f, c->workers, c->kept, c->e_best, &R, &again) == CF_OK;
    res->simulations += c->n;
  }
  for (int i = 0; i < c->n; i++) c->e_best[i] = !known ? NAN : c->e_best[i] >= PENALTY ? INFINITY : c->e_best[i];
  free(c->e);
  res->e_item = c->e_best;
}

/* The reference: Nelder-Mead on R, at most o->max_evals evaluations. */
static int nm_search(const cf_study_item *items, int n, const cf_params *base, const cf_regress_options *o,
                     cf_regress_result *res, cf_error *err) {
  int max_evals = o->max_evals > 0 ? o->max_evals : 400;
  nm8_ctx c = {items, n, o->workers, 0, max_evals, CF_OK, base, o->progress, o->kept, {0, ""}, NULL, NULL, HUGE_VAL};
  gsl_multimin_function fn = {nm8_objective, 8, &c};
  gsl_vector *x = gsl_vector_alloc(8), *st = gsl_vector_alloc(8);
  c.e = malloc(sizeof *c.e * (size_t)n), c.e_best = malloc(sizeof *c.e * (size_t)n);
  int rc = x && st && c.e && c.e_best ? CF_OK : CF_ENOMEM;
  if (rc == CF_OK) {
    nm8_steps(items, n, &res->f_start, x, st); /* x: the start */
    res->R_start = nm8_objective(x, &c);
    rc = cf_regress_nm8(&fn, items, n, &res->f_start, 1e-5, nm8_stop, &c, &res->f, &res->R, &res->iterations);
  }
  gsl_vector_free(x);
  gsl_vector_free(st);
  if (rc) {
    free(c.e), free(c.e_best);
    return cf_error_set(err, CF_ENOMEM, "regression: out of memory");
  }
  if (res->iterations == 0 || res->R > res->R_start) {
    res->f = res->f_start;
    res->R = res->R_start;
  }
  res->evaluations = c.evals;
  res->simulations = (long)c.evals * n;
  item_errors(&c, res);
  if (c.rc) {
    free(res->e_item);
    res->e_item = NULL;
    if (err) *err = c.err;
    return c.rc;
  }
  return CF_OK;
}

int cf_regress_fit(const cf_study_item *items, int n, const cf_params *base, const cf_formula *start,
                   const cf_regress_options *o, cf_regress_result *res, cf_error *err) {
  cf_regress_options dflt = {0};
  if (!o) o = &dflt;
  memset(res, 0, sizeof *res);
  res->search = o->search;
  int rc = start ? CF_OK : cf_regress_lsq(items, n, &res->f_start, err);
  if (rc) return rc;
  if (start) res->f_start = *start;
  double se = 0;
  for (int i = 0; i < n; i++) se += items[i].e_opt;
  res->E = se / n;
  return o->search == CF_REGRESS_NM ? nm_search(items, n, base, o, res, err)
                                    : cf_regress_model_search(items, n, base, o, res, err);
}
