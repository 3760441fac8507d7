/* resultsgen.c — results files for the report's tests and bench
 * (resultsgen.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "cf_io.h"
#include "resultsgen.h"
#include "testutil.h"

/* ------------------------------------------------------------- the parts */
/* Write r to path and free it; 0, or non-zero with a message on stderr. */
static int write_free(const char *path, cf_results *r) {
  cf_error err = {0, ""};
  int rc = cf_results_write(path, r, &err);
  if (rc) fprintf(stderr, "cf_results_write: %s\n", err.msg);
  cf_results_free(r);
  return rc;
}

static double *dup_d(const double *v, int n) {
  double *p = malloc(sizeof *p * (size_t)n);
  memcpy(p, v, sizeof *p * (size_t)n);
  return p;
}

static void meta(cf_res_rec *c, const char *mat, const char *size, const char *motion, const char *speed,
                 const char *rep, double S, double V, double rho) {
  snprintf(c->meta.material, sizeof c->meta.material, "%s", mat);
  snprintf(c->meta.size, sizeof c->meta.size, "%s", size);
  snprintf(c->meta.motion, sizeof c->meta.motion, "%s", motion);
  snprintf(c->meta.speed, sizeof c->meta.speed, "%s", speed);
  snprintf(c->meta.repetition, sizeof c->meta.repetition, "%s", rep);
  c->rho = rho, c->S = S, c->V = V, c->dt = 0.01, c->frames = 40, c->duration = 0.39;
}

/* A sweep of nd x na points with errors e0 + id + 0.37 ia ... (failed: status 5). */
static void sweep(cf_res_rec *c, int nd, const double *delta, int na, const double *alpha, const double *e,
                  const int *status, const unsigned char *pruned, int best) {
  cf_res_sweep *w = &c->sweep;
  c->has_sweep = 1;
  w->nd = nd, w->na = na;
  w->delta = dup_d(delta, nd), w->alpha = dup_d(alpha, na);
  w->e = dup_d(e, nd * na);
  w->s = malloc(sizeof *w->s * (size_t)(nd * na));
  w->status = calloc((size_t)(nd * na), sizeof *w->status);
  w->pruned = calloc((size_t)(nd * na), 1);
  w->reason = calloc((size_t)(nd * na), sizeof *w->reason);
  for (int i = 0; i < nd * na; i++) {
    w->s[i] = status && status[i] ? INFINITY : 0.4 * e[i] + 0.0123;
    if (status) w->status[i] = status[i];
    if (pruned) w->pruned[i] = pruned[i];
    w->reason[i] = strdup(w->status[i] ? "step 7 (t = 0.0700 s): projection: no convergence" : "");
  }
  w->best = best;
  w->t1_s = 0;
  w->model = cf_res_model_default();
}

static void fit(cf_res_rec *c, double d0, double a0, double d, double a, double e, double s, double t1) {
  cf_res_fit *f = &c->fit;
  c->has_fit = 1;
  strcpy(f->method, "nelder-mead");
  strcpy(f->start_kind, "grid");
  f->n_params = 2;
  f->start[0] = d0, f->start[1] = a0, f->start[2] = NAN;
  f->x[0] = d, f->x[1] = a, f->x[2] = NAN;
  f->f_start = e + 0.5, f->f_best = e;
  f->train_t0_s = 0, f->train_t1_s = t1;
  f->e_train = e, f->s_train = s, f->e_test = NAN, f->s_test = NAN;
  f->e_all = e, f->s_all = s;
  f->evaluations = 23, f->iterations = 11, f->converged = 1;
  f->model = cf_res_model_default();
}

static void series(cf_res_rec *c, int T, double d, double a, int gap_from, int gap_to) {
  cf_res_series *z = &c->series;
  c->has_series = 1;
  z->T = T, z->dt = 0.01, z->delta = d, z->alpha = a;
  z->e = malloc(sizeof(double) * T), z->s = malloc(sizeof(double) * T), z->d = malloc(sizeof(double) * T);
  for (int i = 0; i < T; i++) {
    int gap = i >= gap_from && i < gap_to;
    z->e[i] = gap ? NAN : 0.5 + 0.3 * sin(0.3 * i);
    z->s[i] = gap ? NAN : 0.2 + 0.05 * cos(0.2 * i);
    z->d[i] = z->e[i] + 2 * z->s[i];
  }
}

/* ------------------------------------------------------ the small study */
int cf_test_results_small(const char *path) {
  cf_results r;
  cf_results_init(&r);
  char arg0[] = "test_report", *argv[] = {arg0, NULL};
  cf_results_stamp(&r, 1, argv, 1, NULL);

  /* 1: refined fit, series with a gap, a failed and a pruned grid point, truth */
  cf_res_rec *c = cf_results_rec(&r, "denim-A2-shake-fast-I", 1);
  meta(c, "denim", "A2", "shake", "fast", "I", 2, 0.9, 0.34);
  c->truth_delta = 0.201, c->truth_alpha = 0.898;
  double d1[3] = {0.1, 0.2, 0.3}, a1[4] = {0.3, 0.6, 0.9, 1.2};
  double e1[12] = {3.1, 2.4, 1.9, 2.2, 2.0, 1.1, 0.61234, 1.3, 2.5, 1.7, 1.2, 1.6};
  int st1[12] = {0};
  unsigned char pr1[12] = {0};
  st1[11] = 5, e1[11] = INFINITY;
  pr1[0] = 1;
  sweep(c, 3, d1, 4, a1, e1, st1, pr1, 6);
  fit(c, 0.2, 0.9, 0.20123456, 0.89876543, 0.5432149, 0.2345551, 0.2);
  series(c, 40, 0.20123456, 0.89876543, 10, 12);
  c->series.contacts = malloc(sizeof(double) * 40); /* touching a table in frames 20-29 and 33-35 */
  for (int i = 0; i < 40; i++) c->series.contacts[i] = (i >= 20 && i < 30) || (i >= 33 && i < 36) ? 5 : 0;

  /* 2: repetition II, sweep only (the grid optimum), no truth */
  c = cf_results_rec(&r, "wool-A3-twist-slow-II", 1);
  meta(c, "wool", "A3", "twist", "slow", "II", 1, 0.25, 0.2);
  double d2[2] = {0.05, 0.1}, a2[2] = {0.2, 0.4}, e2[4] = {1.4444, 0.98765, 1.2, 2.3456};
  sweep(c, 2, d2, 2, a2, e2, NULL, NULL, 1);

  /* 3: every grid point failed: no optimum; a name to escape */
  c = cf_results_rec(&r, "felt_A3&odd", 1);
  meta(c, "felt", "A3", "shake", "slow", "I", 1, 0.3, 0.25);
  double e3[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
  int st3[4] = {3, 3, 5, 3};
  sweep(c, 2, d2, 2, a2, e3, st3, NULL, -1);

  /* 4: a one-value delta axis, a refined fit, a sensitivity map, a series without values */
  c = cf_results_rec(&r, "polyester-A2-shake-slow-I", 1);
  meta(c, "polyester", "A2", "shake", "slow", "I", 2, 0.15, 0.1);
  c->truth_delta = 0.041, c->truth_alpha = 0.307;
  double d4[1] = {0.04}, a4[3] = {0.1, 0.3, 0.5}, e4[3] = {0.9, 0.81, 1.05};
  sweep(c, 1, d4, 3, a4, e4, NULL, NULL, 1);
  fit(c, 0.04, 0.3, 0.0412, 0.3055, 0.78901, 0.33335, NAN);
  series(c, 5, 0.0412, 0.3055, 0, 5);
  cf_res_sens *m = &c->sens;
  c->has_sens = 1;
  strcpy(m->kind, "map");
  m->at_delta = 0.0412, m->at_alpha = 0.3055, m->nd = 3, m->na = 3;
  double dm[3] = {0, 0.0412, 0.0824}, am[3] = {0, 0.3055, 0.611};
  m->delta = dup_d(dm, 3), m->alpha = dup_d(am, 3);
  m->e = malloc(sizeof(double) * 9), m->s = malloc(sizeof(double) * 9), m->status = calloc(9, sizeof(int));
  for (int i = 0; i < 9; i++) m->e[i] = 0.8 + 0.1 * abs(i / 3 - 1) + 0.2 * abs(i % 3 - 1), m->s[i] = 0.3;
  m->status[0] = 3, m->e[0] = INFINITY;
  m->model = cf_res_model_default();

  /* the regression */
  cf_res_regression *g = &r.reg;
  g->has = 1;
  double fd[4] = {-0.0223, -0.0178, 0.0714, 0.7664}, fa[4] = {0.2082, -0.1481, 1.1804, 1.744};
  for (int k = 0; k < 4; k++)
    g->f.d[k] = fd[k] + 1e-5 * k, g->f.a[k] = fa[k] - 2e-5 * k, g->f_start.d[k] = fd[k] * 1.1,
    g->f_start.a[k] = fa[k] * 0.9;
  g->R = 0.8765432, g->R_start = 1.23456, g->E = 0.6543219;
  g->evaluations = 77, g->iterations = 31, g->n_used = 2;
  g->used = malloc(2 * sizeof(char *));
  g->used[0] = strdup("denim-A2-shake-fast-I"), g->used[1] = strdup("polyester-A2-shake-slow-I");
  g->e_hat = malloc(2 * sizeof(double));
  g->e_hat[0] = 0.61234, g->e_hat[1] = INFINITY; /* the second simulation failed */
  g->model = cf_res_model_default();
  return write_free(path, &r);
}

int cf_test_results_small_read(const char *path, cf_results *back) {
  cf_error err = {0, ""};
  if (cf_test_results_small(path)) return 1;
  if (!cf_results_read(path, back, &err)) return 0;
  fprintf(stderr, "%s\n", err.msg);
  return 1;
}


/* ------------------------------------------------------- a whole study */
static const char *materials[4] = {"polyester", "wool", "denim", "stiff-cotton"};
static const double densities[4] = {0.1042, 0.1804, 0.3046, 0.3046}; /* kg/m^2, as datasets/aero-mini */

/* An error surface: a valley around (d, a) with noise; two failed points
 * (the corner of small delta and large alpha) and the hopeless ones pruned. */
static void study_sweep(cf_res_rec *c, int nd, int na, double d, double a, double e_opt, unsigned long long *rng) {
  double *delta = malloc(sizeof(double) * nd), *alpha = malloc(sizeof(double) * na);
  double *e = malloc(sizeof(double) * nd * na);
  int *status = calloc((size_t)(nd * na), sizeof *status);
  unsigned char *pruned = calloc((size_t)(nd * na), 1);
  for (int i = 0; i < nd; i++) delta[i] = c->rho * (0.05 + 0.95 * i / (nd > 1 ? nd - 1 : 1));
  for (int j = 0; j < na; j++) alpha[j] = c->rho * (0.05 + 3.95 * j / (na > 1 ? na - 1 : 1));
  int best = -1;
  for (int i = 0; i < nd * na; i++) {
    double x = (delta[i / na] - d) / c->rho, y = (alpha[i % na] - a) / c->rho;
    e[i] = e_opt + 8 * x * x + 0.5 * y * y + 0.05 * fabs(cf_test_rand(rng));
    pruned[i] = e[i] > e_opt + 4;
    if ((i / na == 0 && i % na >= na - 2) && nd * na > 4) status[i] = CF_ESOLVER, e[i] = INFINITY, pruned[i] = 0;
    if (!status[i] && !pruned[i] && (best < 0 || e[i] < e[best])) best = i;
  }
  sweep(c, nd, delta, na, alpha, e, status, pruned, best);
  free(delta), free(alpha), free(e), free(status), free(pruned);
}

static void study_sens(cf_res_rec *c, double d, double a) {
  cf_res_sens *m = &c->sens;
  c->has_sens = 1;
  strcpy(m->kind, "map");
  m->at_delta = d, m->at_alpha = a, m->nd = 9, m->na = 9;
  m->delta = malloc(sizeof(double) * 9), m->alpha = malloc(sizeof(double) * 9);
  for (int i = 0; i < 9; i++) m->delta[i] = d * i / 4.0, m->alpha[i] = a * i / 4.0;
  m->e = malloc(sizeof(double) * 81), m->s = malloc(sizeof(double) * 81), m->status = calloc(81, sizeof(int));
  for (int i = 0; i < 81; i++) {
    double x = i / 9 / 4.0 - 1, y = i % 9 / 4.0 - 1;
    m->e[i] = c->fit.e_all * (1 + 0.6 * x * x + 0.2 * y * y), m->s[i] = 0.4 * m->e[i];
  }
  m->model = cf_res_model_default();
}

/* The markers behind c's series (its T frames of dt): a rows x cols
 * lattice hung from its top row, 0.1 m apart, swinging (shake) or turning
 * (twist) with a growing amplitude down the sheet; recorded NaN in the
 * series' gap, simulated a few mm off. */
static void study_markers(cf_res_rec *c, int rows, int cols, int twist) {
  cf_res_series *z = &c->series;
  int T = z->T, K = rows * cols;
  z->rows = rows, z->cols = cols;
  z->recorded = malloc(sizeof(double) * (size_t)T * K * 3), z->simulated = malloc(sizeof(double) * (size_t)T * K * 3);
  for (int k = 0; k < T; k++) {
    double t = k * z->dt, w = 2 * M_PI * (c->V > 0.5 ? 1.5 : 0.8);
    for (int j = 0; j < K; j++) {
      int row = j / cols, col = j % cols;
      double *p = z->recorded + 3 * ((size_t)k * K + j), *q = z->simulated + 3 * ((size_t)k * K + j);
      double x = 0.1 * (col - 0.5 * (cols - 1)), depth = 0.1 * row, amp = 0.15 * depth * sin(w * t);
      if (twist) p[0] = x * cos(amp * 4), p[1] = x * sin(amp * 4);
      else p[0] = x, p[1] = amp;
      p[2] = 1.5 - depth + 0.02 * depth * cos(w * t);
      q[0] = p[0] + 0.002 * row, q[1] = 1.05 * p[1], q[2] = p[2] - 0.003 * row;
      if (!isfinite(z->e[k])) p[0] = p[1] = p[2] = NAN;
    }
  }
}

/* Recording k: its descriptors, truth-like optimum and every part. */
static void study_rec(cf_results *r, int k, int T, int nd, int na, int sens, int markers, unsigned long long *rng) {
  int mat = k % 4, a2 = (k / 4) % 2 == 0, twist = (k / 8) % 2, fast = (k / 16) % 2, rep2 = (k / 32) % 2;
  char name[256];
  int len = snprintf(name, sizeof name, "%s-%s-%s-%s-%s", materials[mat], a2 ? "A2" : "A3", twist ? "twist" : "shake",
                     fast ? "fast" : "slow", rep2 ? "II" : "I");
  if (k >= 64) snprintf(name + len, sizeof name - len, "-%d", k / 64 + 1);
  cf_res_rec *c = cf_results_rec(r, name, 1);
  meta(c, materials[mat], a2 ? "A2" : "A3", twist ? "twist" : "shake", fast ? "fast" : "slow", rep2 ? "II" : "I",
       a2 ? 2 : 1, (fast ? 0.9 : 0.2) * (a2 ? 1.3 : 1) * (1 + 0.2 * cf_test_rand(rng)), densities[mat]);
  c->dt = 0.01, c->frames = T, c->duration = (T - 1) * 0.01;
  double d, a;
  cf_formula_predict(&cf_formula_thesis_rep1, c->S, c->V, c->rho, &d, &a);
  d = fmax(0.01, d + 0.01 * cf_test_rand(rng)), a = fmax(0.05, a + 0.05 * cf_test_rand(rng));
  double e_opt = 0.4 + 0.3 * fast + 0.2 * a2 + 0.1 * fabs(cf_test_rand(rng));
  study_sweep(c, nd, na, d, a, e_opt + 0.05, rng);
  fit(c, d, a, d, a, e_opt, 0.4 * e_opt, 0.7 * c->duration);
  series(c, T, d, a, T / 3, T / 3 + T / 50);
  for (int i = 0; i < T; i++) /* around e_opt, varying in time */
    if (isfinite(c->series.e[i])) c->series.e[i] *= e_opt / 0.5, c->series.d[i] = c->series.e[i] + 2 * c->series.s[i];
  if (sens) study_sens(c, d, a);
  if (markers) study_markers(c, a2 ? 5 : 4, a2 ? 4 : 3, twist);
}

int cf_test_results_study(const char *path, int n, int T, int nd, int na, int sens, int markers) {
  cf_results r;
  cf_results_init(&r);
  char arg0[] = "resultsgen", *argv[] = {arg0, NULL};
  cf_results_stamp(&r, 1, argv, 1, NULL);
  unsigned long long rng = 0x9e3779b97f4a7c15ULL;
  for (int k = 0; k < n; k++) study_rec(&r, k, T, nd, na, sens, markers, &rng);
  cf_res_regression *g = &r.reg;
  g->has = 1;
  g->f = g->f_start = cf_formula_thesis_rep1;
  for (int k = 0; k < 4; k++) g->f.d[k] *= 1.02, g->f.a[k] *= 0.98;
  g->used = calloc((size_t)n + 1, sizeof(char *));
  g->e_hat = malloc(sizeof(double) * (n + 1));
  double se = 0, sh = 0;
  for (int k = 0; k < n; k++) {
    g->used[k] = strdup(r.recs[k].name);
    g->e_hat[k] = r.recs[k].fit.e_all * (1.05 + 0.1 * fabs(cf_test_rand(&rng)));
    se += r.recs[k].fit.e_all, sh += g->e_hat[k];
  }
  g->n_used = n, g->E = se / n, g->R = sh / n, g->R_start = 1.2 * g->R;
  g->evaluations = 200, g->iterations = 90;
  g->model = cf_res_model_default();
  return write_free(path, &r);
}
