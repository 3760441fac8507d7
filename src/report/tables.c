/* tables.c — the thesis' tables of a results file (docs/design.md §10) as
 * cells of text, and each table as CSV, Markdown, LaTeX (booktabs) and HTML.
 *
 * Every number is formatted once, into its cell, from the value the results
 * file stores (errors, stds, R*, E* with "%.3f", delta, alpha and the
 * coefficients with "%.4f", as the tables `sweep` and `experiment` print),
 * so every format shows the same digits.  An empty cell is a value the file
 * does not have (CSV: empty field; the other formats: "-"). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* ------------------------------------------------------------ table cells */
static int table_init(cf_rtable *t, const char *id, int ncol, const char **head, const char *align) {
  memset(t, 0, sizeof *t);
  snprintf(t->id, sizeof t->id, "%s", id);
  t->ncol = ncol, t->head = head, t->align = align;
  return 0;
}

static void table_titles(cf_rtable *t, const char *title, const char *tex) {
  snprintf(t->title, sizeof t->title, "%s", title);
  snprintf(t->title_tex, sizeof t->title_tex, "%s", tex);
}

/* A new row of empty cells; its index, or -1 when out of memory. */
static int add_row(cf_rtable *t) {
  if (t->nrow == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    char **c = realloc(t->cell, (size_t)cap * t->ncol * sizeof *c);
    if (!c) return -1;
    t->cell = c, t->cap = cap;
  }
  for (int j = 0; j < t->ncol; j++) t->cell[t->nrow * t->ncol + j] = NULL;
  return t->nrow++;
}

static int set(cf_rtable *t, int row, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int set(cf_rtable *t, int row, int col, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char **c = &t->cell[row * t->ncol + col];
  free(*c);
  *c = strdup(buf);
  return *c ? 0 : -1;
}

/* A number in fmt, "" if NaN (not known). */
static int num(cf_rtable *t, int row, int col, const char *fmt, double v) {
  if (isnan(v)) return set(t, row, col, "%s", "");
  char buf[64];
  snprintf(buf, sizeof buf, fmt, v);
  return set(t, row, col, "%s", buf);
}

/* Every cell set ("" for the unset ones); -1 when out of memory. */
static int table_fill(cf_rtable *t) {
  for (int k = 0; k < t->nrow * t->ncol; k++)
    if (!t->cell[k] && !(t->cell[k] = strdup(""))) return -1;
  return 0;
}

static const char *cell(const cf_rtable *t, int row, int col) { return t->cell[row * t->ncol + col]; }

static void table_clear(cf_rtable *t) {
  for (int k = 0; k < t->nrow * t->ncol; k++) free(t->cell[k]);
  free(t->cell);
  memset(t, 0, sizeof *t);
}

void cf_report_tables_free(cf_rtable *t, int n) {
  for (int i = 0; t && i < n; i++) table_clear(&t[i]);
  free(t);
}

/* -------------------------------------------------------- Tables A.1/A.2 */
static const char *a1_head[] = {"recording", "material", "size",    "motion",   "speed",       "repetition", "error_cm",
                                "std_cm",    "alpha",    "delta",   "optimum",  "alpha_truth", "delta_truth"};
static const char a1_align[] = "llllllrrrrlrrrrl";
/* With a fitted kappa or beta on any row (fit --params, or the pipeline's
 * refit of a flagged fit): three more columns, the bending stiffness and
 * the damping on K the optimum was simulated with and which of them were
 * fitted ("" on a row where both were held). */
static const char *a1_head_kb[] = {"recording", "material", "size", "motion", "speed", "repetition", "error_cm",
                                   "std_cm", "alpha", "delta", "optimum", "kappa", "beta", "fitted"};
static const char *a1_head_kb_truth[] = {"recording", "material", "size",      "motion",      "speed",
                                         "repetition", "error_cm", "std_cm",   "alpha",       "delta",
                                         "optimum",   "alpha_truth", "delta_truth", "kappa", "beta", "fitted"};
static const char a1_align_kb[] = "llllllrrrrlrrl";

static int any_truth(const cf_results *r) {
  for (int i = 0; i < r->n; i++)
    if (!isnan(r->recs[i].truth_delta) || !isnan(r->recs[i].truth_alpha)) return 1;
  return 0;
}

static int is_rep2(const cf_res_rec *c) { return !strcmp(c->meta.repetition, "II"); }

static int any_kb_fitted(const cf_results *r) {
  for (int i = 0; i < r->n; i++)
    if (cf_res_kb_fitted(&r->recs[i])) return 1;
  return 0;
}

/* The kappa, beta and fitted cells of row i from column col. */
static int kb_cells(cf_rtable *t, int i, int col, const cf_res_rec *c) {
  const cf_res_model *m = cf_res_optimum_model(c);
  int k = c->has_fit && c->fit.kappa_fitted, b = c->has_fit && c->fit.beta_fitted;
  return num(t, i, col, "%.3g", m->kappa) | num(t, i, col + 1, "%.3g", m->beta) |
         set(t, i, col + 2, "%s", k && b ? "kappa beta" : k ? "kappa" : b ? "beta" : "");
}

static int a1_row(cf_rtable *t, const cf_res_rec *c, int truth, int kb) {
  int i = add_row(t);
  if (i < 0) return -1;
  const char *text[6] = {c->name, c->meta.material, c->meta.size, c->meta.motion, c->meta.speed, c->meta.repetition};
  int bad = 0;
  for (int j = 0; j < 6; j++) bad |= set(t, i, j, "%s", text[j]);
  double d, a, e, s;
  if (cf_res_optimum(c, &d, &a, &e, &s)) {
    bad |= num(t, i, 6, CF_RFMT_ERR, e) | num(t, i, 7, CF_RFMT_ERR, s) | num(t, i, 8, CF_RFMT_PAR, a) |
           num(t, i, 9, CF_RFMT_PAR, d) | set(t, i, 10, "%s", c->has_fit ? c->fit.method : "grid");
  } else {
    bad |= set(t, i, 10, "%s", c->has_sweep ? "none: no valid grid point" : "none: not swept");
  }
  if (truth) bad |= num(t, i, 11, CF_RFMT_PAR, c->truth_alpha) | num(t, i, 12, CF_RFMT_PAR, c->truth_delta);
  if (kb && (c->has_fit || c->has_sweep)) bad |= kb_cells(t, i, truth ? 13 : 11, c);
  return bad;
}

/* Table A.1 (rep2 = 0: every recording but those of repetition II) or A.2
 * (rep2 = 1: repetition II); 1 if it has no row (not written). */
static int table_a(cf_rtable *t, const cf_results *r, int rep2, int has_rep2) {
  int truth = any_truth(r), kb = any_kb_fitted(r), all_one = 1, bad = 0;
  if (kb)
    table_init(t, rep2 ? "table_a2" : "table_a1", truth ? 16 : 14, truth ? a1_head_kb_truth : a1_head_kb,
               truth ? a1_align : a1_align_kb);
  else
    table_init(t, rep2 ? "table_a2" : "table_a1", truth ? 13 : 11, a1_head, a1_align);
  for (int i = 0; i < r->n && !bad; i++) {
    const cf_res_rec *c = &r->recs[i];
    if (is_rep2(c) != rep2) continue;
    all_one &= !strcmp(c->meta.repetition, "I");
    bad = a1_row(t, c, truth, kb);
  }
  if (bad || table_fill(t)) return -1;
  if (!t->nrow) return 1;
  const char *which = rep2 ? "repetition II" : all_one ? "repetition I" : has_rep2 ? "all but repetition II" : "";
  const char *a = rep2 ? "A.2" : "A.1";
  snprintf(t->title, sizeof t->title, "Table %s: the optimum per recording%s%s%s: mean error ē and spatial std s̄ (cm), "
           "α, δ%s", a, which[0] ? " (" : "", which, which[0] ? ")" : "", truth ? "; the ground truth" : "");
  snprintf(t->title_tex, sizeof t->title_tex, "Table %s: the optimum per recording%s%s%s: mean error $\\bar e$ and "
           "spatial std $\\bar s$ (cm), $\\alpha$, $\\delta$%s", a, which[0] ? " (" : "", which, which[0] ? ")" : "",
           truth ? "; the ground truth" : "");
  snprintf(t->note, sizeof t->note, "optimum: the refined one (method) if any, else the grid's best point (grid)%s%s.",
           truth ? "; alpha_truth, delta_truth: the parameters the synthetic recording was made with" : "",
           kb ? "; kappa, beta: the bending stiffness (N m) and the damping on K (s) of the optimum, fitted "
                "where the column fitted names them (else held)" : "");
  return 0;
}

/* -------------------------------------------------------------- Table 4.5 */
static const char *t45_head[] = {"group", "value", "error_cm", "std_cm", "n"};
static const char t45_align[] = "llrrr";

typedef const char *(*meta_field)(const cf_res_rec *c);
static const char *f_material(const cf_res_rec *c) { return c->meta.material; }
static const char *f_size(const cf_res_rec *c) { return c->meta.size; }
static const char *f_motion(const cf_res_rec *c) { return c->meta.motion; }
static const char *f_speed(const cf_res_rec *c) { return c->meta.speed; }

/* Means of the optima's ē and s̄ over the recordings whose field equals
 * value (NULL: all) and that have an optimum with a finite error. */
static int group_row(cf_rtable *t, const cf_results *r, const char *title, meta_field f, const char *value) {
  double se = 0, ss = 0, d, a, e, s;
  int n = 0;
  for (int i = 0; i < r->n; i++)
    if ((!value || !strcmp(f(&r->recs[i]), value)) && cf_res_optimum(&r->recs[i], &d, &a, &e, &s) && isfinite(e))
      se += e, ss += s, n++;
  if (!n) return 0;
  int i = add_row(t);
  if (i < 0) return -1;
  return set(t, i, 0, "%s", title) | set(t, i, 1, "%s", value ? value : "all") | num(t, i, 2, CF_RFMT_ERR, se / n) |
         num(t, i, 3, CF_RFMT_ERR, ss / n) | set(t, i, 4, "%d", n);
}

/* One row per distinct non-empty value of f, in order of appearance. */
static int group_rows(cf_rtable *t, const cf_results *r, const char *title, meta_field f) {
  int bad = 0;
  for (int i = 0; i < r->n && !bad; i++) {
    const char *v = f(&r->recs[i]);
    int seen = !v[0];
    for (int j = 0; j < i && !seen; j++) seen = !strcmp(f(&r->recs[j]), v);
    if (!seen) bad = group_row(t, r, title, f, v);
  }
  return bad;
}

static int table_45(cf_rtable *t, const cf_results *r) {
  table_init(t, "table_4_5", 5, t45_head, t45_align);
  if (group_rows(t, r, "material", f_material) || group_rows(t, r, "size", f_size) ||
      group_rows(t, r, "motion", f_motion) || group_rows(t, r, "speed", f_speed) ||
      group_row(t, r, "global", f_material, NULL) || table_fill(t))
    return -1;
  if (!t->nrow) return 1;
  int n = 0;
  double d, a, e, s;
  for (int i = 0; i < r->n; i++) n += cf_res_optimum(&r->recs[i], &d, &a, &e, &s) && isfinite(e);
  table_titles(t, "Table 4.5: mean error ē and spatial std s̄ (cm) of the optima by material, size, motion and speed",
               "Table 4.5: mean error $\\bar e$ and spatial std $\\bar s$ (cm) of the optima by material, size, "
               "motion and speed");
  snprintf(t->note, sizeof t->note, "Means of the per-recording values of Tables A.1/A.2 over the %d recording(s) "
           "with an optimum (of %d); n: recordings in the group.", n, r->n);
  return 0;
}

/* -------------------------------------------------------------- Table 4.6 */
static const char *t46_head[] = {"coefficient", "start_lsq", "fitted"};
static const char t46_align[] = "lrr";

static int table_46(cf_rtable *t, const cf_res_regression *g) {
  table_init(t, "table_4_6", 3, t46_head, t46_align);
  if (!g->has) return 1;
  int bad = 0;
  for (int k = 0; k < 8 && !bad; k++) {
    int i = add_row(t);
    double st = k < 4 ? g->f_start.d[k] : g->f_start.a[k - 4], v = k < 4 ? g->f.d[k] : g->f.a[k - 4];
    bad = i < 0 || set(t, i, 0, "%s_%d", k < 4 ? "delta" : "alpha", k % 4) | num(t, i, 1, CF_RFMT_PAR, st) |
                       num(t, i, 2, CF_RFMT_PAR, v);
  }
  int i = bad ? -1 : add_row(t);
  bad = bad || i < 0 || set(t, i, 0, "R*_cm") | num(t, i, 1, CF_RFMT_ERR, g->R_start) | num(t, i, 2, CF_RFMT_ERR, g->R);
  i = bad ? -1 : add_row(t);
  bad = bad || i < 0 || set(t, i, 0, "E*_cm") | num(t, i, 2, CF_RFMT_ERR, g->E);
  if (bad || table_fill(t)) return -1;
  table_titles(t, "Table 4.6: the a-priori formulas δ = δ₀ + δ₁S + δ₂V + δ₃ρ, α = α₀ + α₁S + α₂V + α₃ρ fitted to "
               "the optima; R* and E* (cm)",
               "Table 4.6: the a-priori formulas $\\delta = \\delta_0 + \\delta_1 S + \\delta_2 V + \\delta_3 \\rho$, "
               "$\\alpha = \\alpha_0 + \\alpha_1 S + \\alpha_2 V + \\alpha_3 \\rho$ fitted to the optima; $R^*$ and $E^*$ "
               "(cm)");
  snprintf(t->note, sizeof t->note, "start_lsq: least squares on the optima; fitted: Nelder-Mead on R (%d evaluations, "
           "%d iterations) over %d recording(s), simulated with kappa %g, beta %g, tol %g.", g->evaluations,
           g->iterations, g->n_used, g->model.kappa, g->model.beta, g->model.tol);
  if (g->model.split != cf_res_model_default().split || g->model.split_cols) {
    size_t k = strlen(t->note);
    char split[32];
    snprintf(t->note + k - 1, sizeof t->note - (k - 1), ", on the mesh split %s.",
             cf_res_model_split_text(&g->model, split, sizeof split));
  }
  return 0;
}

/* -------------------------------------------------------------- Table 4.7 */
static const char *t47_head[] = {"recording", "material", "motion", "mu", "mu_from", "error_cm", "std_cm"};
static const char t47_align[] = "lllrlrr";

/* Every recording whose optimum has a mu (a table): the friction beside
 * its errors, like thesis Table 4.7; 1 if none. */
static int table_47(cf_rtable *t, const cf_results *r) {
  table_init(t, "table_4_7", 7, t47_head, t47_align);
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    double mu = cf_res_optimum_mu(c), d, a, e, s;
    if (!isfinite(mu) || !cf_res_optimum(c, &d, &a, &e, &s)) continue;
    const char *from = c->has_fit ? (c->fit.n_params > 2 ? "fitted" : "held") : c->sweep.nm > 0 ? "grid" : "held";
    int k = add_row(t);
    if (k < 0 || set(t, k, 0, "%s", c->name) | set(t, k, 1, "%s", c->meta.material) |
                     set(t, k, 2, "%s", c->meta.motion) | num(t, k, 3, CF_RFMT_PAR, mu) | set(t, k, 4, "%s", from) |
                     num(t, k, 5, CF_RFMT_ERR, e) | num(t, k, 6, CF_RFMT_ERR, s))
      return -1;
  }
  if (table_fill(t)) return -1;
  if (!t->nrow) return 1;
  table_titles(t, "Table 4.7: the cloth's friction μ on the table with the mean error ē and spatial std s̄ (cm) of "
               "the optimum", "Table 4.7: the cloth's friction $\\mu$ on the table with the mean error $\\bar e$ and "
               "spatial std $\\bar s$ (cm) of the optimum");
  snprintf(t->note, sizeof t->note, "mu_from: fitted (fit --params delta,alpha,mu), grid (the best point of sweep "
           "--mu-grid) or held (--mu, not fitted).");
  return 0;
}

/* -------------------------------------------------------------- Table 4.3 */
static const char *t43_head[] = {"recording", "model",   "e_test_cm", "max_d_cm", "time_s", "iter_per_step",
                                 "e_train_cm", "delta", "alpha",     "k_stretch", "k_shear", "params",
                                 "lowest"};
static const char t43_align[] = "llrrrrrrrrrrl";

static int t43_row(cf_rtable *t, const cf_res_rec *c, const cf_res_compare_row *m, int lowest) {
  int k = add_row(t);
  if (k < 0) return -1;
  int bad = set(t, k, 0, "%s", c->name) | set(t, k, 1, "%s", m->model) | num(t, k, 6, CF_RFMT_ERR, m->e_train) |
            num(t, k, 7, CF_RFMT_PAR, m->delta) | num(t, k, 8, CF_RFMT_PAR, m->alpha) |
            set(t, k, 11, "%d", cf_res_compare_fitted(m)) | set(t, k, 12, "%s", lowest ? "yes" : "");
  if (isfinite(m->k_stretch)) bad |= set(t, k, 9, "%.4g", m->k_stretch);
  if (isfinite(m->k_shear)) bad |= set(t, k, 10, "%.4g", m->k_shear);
  if (m->status != CF_OK) return bad | set(t, k, 2, "%s", "failed");
  bad |= num(t, k, 2, CF_RFMT_ERR, m->e_test) | num(t, k, 3, CF_RFMT_ERR, m->d_max_test) |
         set(t, k, 4, "%.3f", m->wall_s);
  return m->iters_per_step > 0 ? bad | set(t, k, 5, "%.2f", m->iters_per_step) : bad;
}

/* Every recording's comparison of the cloth models (clothfit compare),
 * like thesis Table 4.3; 1 if none. */
static int table_43(cf_rtable *t, const cf_results *r) {
  table_init(t, "table_4_3", 13, t43_head, t43_align);
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    const cf_res_compare *m = &c->compare;
    int b = -1;
    for (int j = 0; c->has_compare && j < m->n; j++)
      if (m->row[j].status == CF_OK && (b < 0 || m->row[j].e_test < m->row[b].e_test)) b = j;
    for (int j = 0; c->has_compare && j < m->n; j++)
      if (t43_row(t, c, &m->row[j], j == b)) return -1;
  }
  if (table_fill(t)) return -1;
  if (!t->nrow) return 1;
  table_titles(t, "Table 4.3: the cloth models fitted to each recording (clothfit compare): mean error ē and largest "
               "dispersion d (cm) over the testing window, simulation time and projection iterations per step",
               "Table 4.3: the cloth models fitted to each recording (clothfit compare): mean error $\\bar e$ and "
               "largest dispersion $d$ (cm) over the testing window, simulation time and projection iterations per "
               "step");
  snprintf(t->note, sizeof t->note, "Each model's delta, alpha and stiffnesses (N/m) fitted by Nelder-Mead on the "
           "training window; time_s: one simulation to the end of the testing window; iter_per_step empty for the "
           "models without constraints; params: how many parameters the model's fit moved; lowest: the lowest testing error of the recording (docs/models.md).");
  return 0;
}

/* ------------------------------------------------- remeshing (§4.1.5) */
static const char *remesh_head[] = {"recording", "mesh", "split", "e_test_cm", "e_thesis_cm", "ratio", "from"};
static const char remesh_align[] = "lllrrrl";

static int remesh_row(cf_rtable *t, const cf_res_rec *c, const cf_res_remesh_row *m, double ref) {
  int k = add_row(t);
  if (k < 0) return -1;
  double th;
  cf_thesis_remesh(c->meta.material, c->meta.speed, m->rows, m->cols, &th);
  int bad = set(t, k, 0, "%s", c->name) | set(t, k, 1, "%s", m->mesh) | set(t, k, 2, "%dx%d", m->split[0], m->split[1]) |
            num(t, k, 4, "%.2f", th) | set(t, k, 6, "%s", m->fit_reused ? "fit" : "simulated");
  if (m->status != CF_OK) return bad | set(t, k, 3, "%s", "failed");
  return bad | num(t, k, 3, CF_RFMT_ERR, m->e_test) | num(t, k, 5, "%.2f", m->e_test / ref);
}

/* The remeshing check of the close look (experiment wam): the fitted
 * parameters on finer meshes, like thesis §4.1.5; 1 if none. */
static int table_remesh(cf_rtable *t, const cf_results *r) {
  table_init(t, "table_remesh", 7, remesh_head, remesh_align);
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    const cf_res_remesh *m = &c->remesh;
    double ref = m->n ? m->row[cf_res_remesh_reference(m)].e_test : NAN;
    for (int j = 0; c->has_remesh && j < m->n; j++)
      if (remesh_row(t, c, &m->row[j], ref)) return -1;
  }
  if (table_fill(t)) return -1;
  if (!t->nrow) return 1;
  table_titles(t, "Remeshing (thesis §4.1.5): the fitted (δ, α) simulated on finer meshes, mean error ē on the "
               "testing window (cm), beside the thesis' values",
               "Remeshing (thesis \\S 4.1.5): the fitted $(\\delta, \\alpha)$ simulated on finer meshes, mean "
               "error $\\bar e$ on the testing window (cm), beside the thesis' values");
  snprintf(t->note, sizeof t->note, "mesh: nodes, rows x columns; split: the recording's cells split down x across "
           "(the recorded nodes stay nodes, so e_i (4.3) is measured on them as on the fitting mesh); ratio: e_test "
           "over that of the fit's mesh; from: fit (the fit's own testing error, Table 4.2) or simulated.  "
           "e_thesis_cm: thesis §4.1.5 (light-cotton fast).");
  return 0;
}

/* -------------------------------------------------------------- Table 4.2 */
static const char *t42_head[] = {"recording", "material", "speed", "delta", "delta_truth", "delta_thesis",
                                 "alpha", "alpha_truth", "alpha_thesis", "e_test_cm", "e_thesis_cm", "recovered"};
static const char t42_align[] = "lllrrrrrrrrl";

static int t42_row(cf_rtable *t, const cf_res_rec *c) {
  int i = add_row(t);
  if (i < 0) return -1;
  double th[3];
  cf_thesis_table_42(c->meta.material, c->meta.speed, th);
  const cf_res_fit *f = &c->fit;
  return set(t, i, 0, "%s", c->name) | set(t, i, 1, "%s", c->meta.material) | set(t, i, 2, "%s", c->meta.speed) |
         num(t, i, 3, CF_RFMT_PAR, f->x[0]) | num(t, i, 4, CF_RFMT_PAR, c->truth_delta) |
         num(t, i, 5, "%.2f", th[0]) | num(t, i, 6, CF_RFMT_PAR, f->x[1]) |
         num(t, i, 7, CF_RFMT_PAR, c->truth_alpha) | num(t, i, 8, "%.2f", th[1]) |
         num(t, i, 9, CF_RFMT_ERR, f->e_test) | num(t, i, 10, "%.2f", th[2]) |
         set(t, i, 11, "%s", cf_res_truth_check(c, 0.1));
}

/* The WAM study's fits (recordings of motion "wam" with a fit), like
 * thesis Table 4.2 (§4.1.2), beside the truth and the thesis' values; 1 if
 * none. */
static int table_42(cf_rtable *t, const cf_results *r) {
  table_init(t, "table_4_2", 12, t42_head, t42_align);
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    if (c->has_fit && !strcmp(c->meta.motion, "wam") && t42_row(t, c)) return -1;
  }
  if (table_fill(t)) return -1;
  if (!t->nrow) return 1;
  table_titles(t, "Table 4.2: the parameters fitted on the training window (the first half) and the mean error ē on "
               "the testing window (cm) of the WAM shakes, beside the truth and the thesis' values",
               "Table 4.2: the parameters fitted on the training window (the first half) and the mean error $\\bar "
               "e$ on the testing window (cm) of the WAM shakes, beside the truth and the thesis' values");
  snprintf(t->note, sizeof t->note, "delta, alpha: Nelder-Mead's optimum of eq. (4.2) over the training window; "
           "e_test: the mean of e_i (4.3) over the rest.  *_truth: the parameters the synthetic recording was made "
           "with; *_thesis: thesis Table 4.2 (fabric and speed).  recovered: yes when delta and alpha are within 10 %% "
           "of the truth, interval when the truth is inside the fit's 95 %% intervals instead.");
  return 0;
}

/* -------------------------------------------------------------- Table 4.9 */
static const char *t49_head[] = {"recording", "material", "S",        "V_m2s2",   "rho",      "delta_hat",
                                 "delta_opt", "alpha_hat", "alpha_opt", "e_hat_cm", "e_opt_cm", "in_fit"};
static const char t49_align[] = "llrrrrrrrrrl";

/* Index of name in the regression's recordings, -1 if absent. */
static int used_index(const cf_res_regression *g, const char *name) {
  for (int k = 0; k < g->n_used; k++)
    if (!strcmp(g->used[k], name)) return k;
  return -1;
}

static int t49_row(cf_rtable *t, const cf_res_regression *g, const cf_res_rec *c) {
  int i = add_row(t), k = used_index(g, c->name);
  if (i < 0) return -1;
  double dh, ah, d = NAN, a = NAN, e = NAN, s, eh = k >= 0 && g->e_hat ? g->e_hat[k] : NAN;
  cf_formula_predict(&g->f, c->S, c->V, c->rho, &dh, &ah);
  cf_res_optimum(c, &d, &a, &e, &s);
  int bad = set(t, i, 0, "%s", c->name) | set(t, i, 1, "%s", c->meta.material) | num(t, i, 2, CF_RFMT_IN, c->S) |
            num(t, i, 3, CF_RFMT_IN, c->V) | num(t, i, 4, CF_RFMT_IN, c->rho) | num(t, i, 5, CF_RFMT_PAR, dh) |
            num(t, i, 6, CF_RFMT_PAR, d) | num(t, i, 7, CF_RFMT_PAR, ah) | num(t, i, 8, CF_RFMT_PAR, a) |
            num(t, i, 10, CF_RFMT_ERR, e) | set(t, i, 11, "%s", k >= 0 ? "yes" : "no");
  return bad | (isinf(eh) ? set(t, i, 9, "%s", "failed") : num(t, i, 9, CF_RFMT_ERR, eh));
}

/* Every recording with S, V and rho: the formula's (delta, alpha) beside
 * the optimum; 1 if none (or no regression). */
static int table_49(cf_rtable *t, const cf_results *r) {
  const cf_res_regression *g = &r->reg;
  table_init(t, "table_4_9", 12, t49_head, t49_align);
  if (!g->has) return 1;
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    if (isfinite(c->S) && isfinite(c->V) && isfinite(c->rho) && t49_row(t, g, c)) return -1;
  }
  if (table_fill(t)) return -1;
  if (!t->nrow) return 1;
  table_titles(t, "Table 4.9: the parameters (δ̂, α̂) the fitted formulas of Table 4.6 give, against the optima "
               "(δ*, α*), with their mean errors ê and e* (cm)",
               "Table 4.9: the parameters $(\\hat\\delta, \\hat\\alpha)$ the fitted formulas of Table 4.6 give, "
               "against the optima $(\\delta^*, \\alpha^*)$, with their mean errors $\\hat e$ and $e^*$ (cm)");
  snprintf(t->note, sizeof t->note, "S: area / A3 area; V: mean of the upper half of the markers' squared speeds "
           "(m^2/s^2); rho: density (kg/m^2).  e_hat: the recording simulated with (delta_hat, alpha_hat) in the "
           "regression (%s); failed: that simulation failed.  in_fit: one of the %d recordings the formulas were "
           "fitted to (the mean of their e_hat is R*).", g->e_hat ? "stored with it" : "not stored in this file",
           g->n_used);
  return 0;
}

int cf_report_tables(const cf_results *r, cf_rtable **out, int *n, cf_error *err) {
  cf_rtable *t = calloc(9, sizeof *t);
  *out = NULL, *n = 0;
  if (!t) return cf_error_set(err, CF_ENOMEM, "out of memory");
  int has2 = 0, k = 0, rc = 0;
  for (int i = 0; i < r->n; i++) has2 |= is_rep2(&r->recs[i]);
  for (int step = 0; step < 9 && rc >= 0; step++) {
    rc = step == 0 ? table_42(&t[k], r)
         : step == 1 ? table_a(&t[k], r, 0, has2)
         : step == 2 ? table_a(&t[k], r, 1, has2)
         : step == 3 ? table_45(&t[k], r)
         : step == 4 ? table_46(&t[k], &r->reg)
         : step == 5 ? table_47(&t[k], r)
         : step == 6 ? table_49(&t[k], r)
         : step == 7 ? table_43(&t[k], r)
                     : table_remesh(&t[k], r);
    if (rc == 0) k++;
    else table_clear(&t[k]);
  }
  if (rc < 0) {
    cf_report_tables_free(t, k);
    return cf_error_set(err, CF_ENOMEM, "out of memory while composing the tables");
  }
  *out = t, *n = k;
  return CF_OK;
}

/* ---------------------------------------------------------------- formats */
static void csv_field(cf_rbuf *b, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    cf_rbuf_puts(b, s);
    return;
  }
  cf_rbuf_puts(b, "\"");
  for (; *s; s++) cf_rbuf_printf(b, *s == '"' ? "\"\"" : "%c", *s);
  cf_rbuf_puts(b, "\"");
}

void cf_rtable_csv(const cf_rtable *t, cf_rbuf *b) {
  for (int j = 0; j < t->ncol; j++) {
    if (j) cf_rbuf_puts(b, ",");
    csv_field(b, t->head[j]);
  }
  cf_rbuf_puts(b, "\n");
  for (int i = 0; i < t->nrow; i++) {
    for (int j = 0; j < t->ncol; j++) {
      if (j) cf_rbuf_puts(b, ",");
      csv_field(b, cell(t, i, j));
    }
    cf_rbuf_puts(b, "\n");
  }
}

static const char *shown(const char *s) { return s[0] ? s : "-"; }

void cf_rtable_md(const cf_rtable *t, cf_rbuf *b) {
  cf_rbuf_puts(b, "### ");
  cf_rbuf_puts(b, t->title);
  cf_rbuf_puts(b, "\n\n|");
  for (int j = 0; j < t->ncol; j++) cf_rbuf_puts(b, " "), cf_rbuf_md(b, t->head[j]), cf_rbuf_puts(b, " |");
  cf_rbuf_puts(b, "\n|");
  for (int j = 0; j < t->ncol; j++) cf_rbuf_puts(b, t->align[j] == 'r' ? "---:|" : "---|");
  cf_rbuf_puts(b, "\n");
  for (int i = 0; i < t->nrow; i++) {
    cf_rbuf_puts(b, "|");
    for (int j = 0; j < t->ncol; j++) cf_rbuf_puts(b, " "), cf_rbuf_md(b, shown(cell(t, i, j))), cf_rbuf_puts(b, " |");
    cf_rbuf_puts(b, "\n");
  }
  if (t->note[0]) cf_rbuf_puts(b, "\n"), cf_rbuf_md(b, t->note), cf_rbuf_puts(b, "\n");
}

void cf_rtable_tex(const cf_rtable *t, cf_rbuf *b) {
  cf_rbuf_puts(b, "% Written by clothfit report; needs \\usepackage{booktabs}.\n");
  cf_rbuf_puts(b, "\\begin{table}[htbp]\n\\centering\n\\caption{");
  cf_rbuf_puts(b, t->title_tex);
  cf_rbuf_printf(b, "}\n\\label{tab:clothfit-%s}\n\\begin{tabular}{%.*s}\n\\toprule\n", t->id, t->ncol, t->align);
  for (int j = 0; j < t->ncol; j++) cf_rbuf_puts(b, j ? " & " : ""), cf_rbuf_tex(b, t->head[j]);
  cf_rbuf_puts(b, " \\\\\n\\midrule\n");
  for (int i = 0; i < t->nrow; i++) {
    for (int j = 0; j < t->ncol; j++) cf_rbuf_puts(b, j ? " & " : ""), cf_rbuf_tex(b, shown(cell(t, i, j)));
    cf_rbuf_puts(b, " \\\\\n");
  }
  cf_rbuf_puts(b, "\\bottomrule\n\\end{tabular}\n");
  if (t->note[0]) {
    cf_rbuf_puts(b, "\\par\\smallskip\\footnotesize ");
    cf_rbuf_tex(b, t->note);
    cf_rbuf_puts(b, "\n");
  }
  cf_rbuf_puts(b, "\\end{table}\n");
}

void cf_rtable_html(const cf_rtable *t, cf_rbuf *b) {
  cf_rbuf_printf(b, "<table id=\"%s\">\n<caption>", t->id);
  cf_rbuf_html(b, t->title);
  cf_rbuf_puts(b, "</caption>\n<thead><tr>");
  for (int j = 0; j < t->ncol; j++)
    cf_rbuf_puts(b, t->align[j] == 'r' ? "<th class=\"num\">" : "<th>"), cf_rbuf_html(b, t->head[j]),
        cf_rbuf_puts(b, "</th>");
  cf_rbuf_puts(b, "</tr></thead>\n<tbody>\n");
  for (int i = 0; i < t->nrow; i++) {
    cf_rbuf_puts(b, "<tr>");
    for (int j = 0; j < t->ncol; j++)
      cf_rbuf_puts(b, t->align[j] == 'r' ? "<td class=\"num\">" : "<td>"), cf_rbuf_html(b, shown(cell(t, i, j))),
          cf_rbuf_puts(b, "</td>");
    cf_rbuf_puts(b, "</tr>\n");
  }
  cf_rbuf_puts(b, "</tbody>\n</table>\n");
  if (t->note[0]) cf_rbuf_puts(b, "<p class=\"note\">"), cf_rbuf_html(b, t->note), cf_rbuf_puts(b, "</p>\n");
}
