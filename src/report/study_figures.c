/* study_figures.c — the study's figures (docs/design.md §10, docs/report.md
 * "Study figures"): the optima δ*, α* of the recordings against the speed
 * measure V and the density ρ, with the fitted a-priori formulas (4.6) drawn
 * through them.  The thesis gives the formulas as numbers only (Table 4.6) and
 * compares them per recording in Table 4.9; these four figures show the same:
 *   study-delta-V    δ* against V        study-delta-rho  δ* against ρ
 *   study-alpha-V    α* against V        study-alpha-rho  α* against ρ
 * A formula is linear in S, V and ρ; against one input the other two are
 * held at their means over the plotted recordings (S̄, V̄, ρ̄) and each
 * optimum is drawn as its partial residual
 *   y* − Σ_{other inputs j} c_j (x_j − x̄_j),
 * so that its height above the line is exactly its residual y* − ŷ (the
 * columns delta_opt − delta_hat of Table 4.9).  Recordings are those with
 * an optimum and finite S, V, ρ, one point style per material.  Scripts,
 * data and drawing as the other figures (figures.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

typedef struct {
  double x[4];   /* 1, S, V, rho: the formula's inputs */
  double y[2];   /* the optimum's delta, alpha */
  const char *name, *material;
} study_point;

typedef struct {
  const study_point *p;
  int n;
  double mean[4]; /* of x over the points (mean[0] = 1) */
  const cf_formula *f;
} study_set;

static const char *input_name[4] = {"1", "S", "V", "rho"};
static const char *input_label[4] = {"", "S: cloth area / A3 area", "V (m²/s²): mean of the upper half of the markers' squared speeds",
                                     "ρ (kg/m²): density"};
static const char *input_sym[4] = {"", "S", "V", "ρ"};
static const char *par_name[2] = {"delta", "alpha"};
static const char *par_sym[2] = {"δ", "α"};
static const char *par_unit[2] = {"kg/m²", "kg/(m² s)"};

static double coef(const cf_formula *f, int par, int k) { return par ? f->a[k] : f->d[k]; }

/* The partial residual of point p for input k (above). */
static double adjusted(const study_set *s, const study_point *p, int par, int k) {
  double y = p->y[par];
  for (int j = 1; j < 4; j++)
    if (j != k) y -= coef(s->f, par, j) * (p->x[j] - s->mean[j]);
  return y;
}

/* The line's intercept: the formula at the means of the other inputs. */
static double intercept(const study_set *s, int par, int k) {
  double c = coef(s->f, par, 0);
  for (int j = 1; j < 4; j++)
    if (j != k) c += coef(s->f, par, j) * s->mean[j];
  return c;
}

/* The line as text: "at mean S = 1.5, mean ρ = 0.225: δ = 0.1234 + 0.0714 V". */
static void line_text(const study_set *s, int par, int k, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "at");
  for (int j = 1; j < 4 && n < size; j++)
    if (j != k) n += (size_t)snprintf(buf + n, size - n, "%s mean %s = %.3g", n > 2 ? "," : "", input_sym[j], s->mean[j]);
  double ck = coef(s->f, par, k);
  if (n < size)
    snprintf(buf + n, size - n, ": %s = " CF_RFMT_PAR " %s " CF_RFMT_PAR " %s", par_sym[par], intercept(s, par, k),
             ck < 0 ? "-" : "+", fabs(ck), input_sym[k]);
}

/* The x range of the line: the points' range, widened by 5 %. */
static void x_range(const study_set *s, int k, double *lo, double *hi) {
  *lo = HUGE_VAL, *hi = -HUGE_VAL;
  for (int i = 0; i < s->n; i++) *lo = fmin(*lo, s->p[i].x[k]), *hi = fmax(*hi, s->p[i].x[k]);
  double pad = *hi > *lo ? 0.05 * (*hi - *lo) : *lo ? 0.05 * fabs(*lo) : 0.01;
  *lo -= pad, *hi += pad;
}

/* Whether point i is the first of its material. */
static int first_of_material(const study_set *s, int i) {
  for (int j = 0; j < i; j++)
    if (!strcmp(s->p[j].material, s->p[i].material)) return 0;
  return 1;
}

/* Block 0: the line; then one block of points per material (in order of
 * appearance), each a plot item. */
static void study_data(const study_set *s, const cf_rfigure *f, int par, int k, cf_rbuf *d, cf_rbuf *g) {
  char line[160];
  line_text(s, par, k, line, sizeof line);
  double lo, hi, c0 = intercept(s, par, k), ck = coef(s->f, par, k);
  x_range(s, k, &lo, &hi);
  cf_rbuf_printf(d, "# %s.dat — written by clothfit report: %s* of %d recording(s) against %s with the fitted formula "
                    "%s = %s0 + %s1 S + %s2 V + %s3 rho (%s0..%s3 = %.17g %.17g %.17g %.17g), the other inputs at "
                    "their means: %s\n", f->id, par_name[par], s->n, input_name[k], par_name[par], par_name[par],
                 par_name[par], par_name[par], par_name[par], par_name[par], par_name[par], coef(s->f, par, 0),
                 coef(s->f, par, 1), coef(s->f, par, 2), coef(s->f, par, 3), line);
  cf_rbuf_printf(d, "# the formula: %s %s\n%.17g %.17g\n%.17g %.17g\n\n\n", input_name[k], par_name[par], lo,
                 c0 + ck * lo, hi, c0 + ck * hi);
  cf_rplot p = {g, f->id, 0};
  cf_rplot_item(&p, 0, "using 1:2 with lines linewidth 2 linecolor rgb 'black'", "formula (4.6)");
  for (int i = 0, block = 1; i < s->n; i++) {
    if (!first_of_material(s, i)) continue;
    const char *mat = s->p[i].material[0] ? s->p[i].material : "material not given";
    cf_rbuf_printf(d, "# %s: %s %s_adjusted %s_opt %s_hat S V rho  # recording\n", mat, input_name[k], par_name[par],
                   par_name[par], par_name[par]);
    for (int j = i; j < s->n; j++) {
      const study_point *q = &s->p[j];
      if (strcmp(q->material, s->p[i].material)) continue;
      double yhat[2];
      cf_formula_predict(s->f, q->x[1], q->x[2], q->x[3], &yhat[0], &yhat[1]);
      cf_rbuf_printf(d, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g  # %s\n", q->x[k], adjusted(s, q, par, k), q->y[par],
                     yhat[par], q->x[1], q->x[2], q->x[3], q->name);
    }
    cf_rbuf_puts(d, "\n\n");
    char spec[96];
    snprintf(spec, sizeof spec, "using 1:2 with points pointtype %d pointsize 1.4 linewidth 1.5", 5 + 2 * ((block - 1) % 4));
    cf_rplot_item(&p, block++, spec, mat);
  }
  cf_rbuf_puts(g, "\n");
}

static void study_script(const study_set *s, const cf_rfigure *f, int par, int k, const char *results_path,
                         cf_rbuf *d, cf_rbuf *g) {
  char what[160];
  snprintf(what, sizeof what, "the optima %s* against %s with the fitted a-priori formula", par_sym[par],
           input_sym[k]);
  cf_rfig_head(g, f, what, results_path);
  char ylabel[96];
  snprintf(ylabel, sizeof ylabel, "%s* (%s; partial residual: the other inputs at their means)", par_sym[par],
           par_unit[par]);
  cf_rbuf_puts(g, "set xlabel "), cf_rbuf_gp(g, input_label[k]);
  cf_rbuf_puts(g, "\nset ylabel "), cf_rbuf_gp(g, ylabel);
  int entries = 1; /* the line, then the materials: five to a row of the key */
  for (int i = 0; i < s->n; i++) entries += first_of_material(s, i);
  cf_rbuf_printf(g, "\nset key outside below center horizontal maxrows %d samplen 2 height 1\nset grid\n",
                 (entries + 4) / 5);
  study_data(s, f, par, k, d, g);
  cf_rfig_tail(g);
}

/* The recordings with an optimum and finite S, V, rho into s (p malloc'ed). */
static int study_points(const cf_results *r, study_set *s) {
  study_point *p = calloc((size_t)r->n + 1, sizeof *p);
  if (!p) return -1;
  int n = 0;
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    double d, a, e, sd;
    if (!cf_res_optimum(c, &d, &a, &e, &sd) || !isfinite(d) || !isfinite(a) || !isfinite(c->S) ||
        !isfinite(c->V) || !isfinite(c->rho))
      continue;
    p[n] = (study_point){{1, c->S, c->V, c->rho}, {d, a}, c->name, c->meta.material};
    n++;
  }
  memset(s->mean, 0, sizeof s->mean);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 4; j++) s->mean[j] += p[i].x[j] / n;
  s->p = p, s->n = n, s->f = &r->reg.f;
  return 0;
}

int cf_report_study_figures_write(const cf_results *r, const char *results_path, const char *figdir, cf_rfigure **f,
                                  int *n, cf_error *err) {
  study_set s;
  if (!r->reg.has) return CF_OK;
  if (study_points(r, &s)) return cf_error_set(err, CF_ENOMEM, "out of memory");
  cf_rfigure *x = s.n ? realloc(*f, sizeof **f * (size_t)(*n + 4)) : *f;
  if (!x) return free((void *)s.p), cf_error_set(err, CF_ENOMEM, "out of memory");
  *f = x;
  int rc = CF_OK;
  for (int q = 0; s.n && q < 4 && !rc; q++) {
    int par = q / 2, k = q % 2 ? 3 : 2;
    cf_rfigure *fig = &x[(*n)++];
    memset(fig, 0, sizeof *fig);
    snprintf(fig->id, sizeof fig->id, "study-%s-%s", par_name[par], k == 2 ? "V" : "rho");
    snprintf(fig->rec, sizeof fig->rec, "the study: the a-priori formulas (Tables 4.6, 4.9)");
    snprintf(fig->kind, sizeof fig->kind, "study");
    char line[160];
    line_text(&s, par, k, line, sizeof line);
    snprintf(fig->caption, sizeof fig->caption, "%s* of %d recording(s) against %s; the fitted formula %s",
             par_sym[par], s.n, input_sym[k], line);
    cf_rbuf d = {0}, g = {0};
    study_script(&s, fig, par, k, results_path, &d, &g);
    rc = cf_rfig_write(figdir, fig, &d, &g, err);
    cf_rbuf_free(&d);
    cf_rbuf_free(&g);
  }
  free((void *)s.p);
  return rc;
}
