/* regress.c — the a-priori aerodynamic formulas (thesis §4.2.3): speed and
 * size measures, least squares on per-recording optima, and the fit of the
 * formulas over a study: the reference search, Nelder-Mead on R (4.7)
 * itself (every evaluation simulates every recording), or the default
 * search on error models (regress_model.c); R and the simulations they
 * share are regress_eval.c. */
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
    cf_regress_steps(items, n, &res->f_start, x, st); /* x: the start */
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
