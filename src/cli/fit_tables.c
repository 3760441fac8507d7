/* fit_tables.c — the thesis-style tables of the fitting commands
 * (fit_cli.h): Table A.1 (per recording), 4.5 (means by group), 4.6
 * (regression), the remeshing check (§4.1.5), and their JSON members. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

static const char *or_dash(const char *s) { return s && s[0] ? s : "-"; }

static int any_truth(const cf_results *r) {
  for (int i = 0; i < r->n; i++)
    if (isfinite(r->recs[i].truth_delta) || isfinite(r->recs[i].truth_alpha)) return 1;
  return 0;
}

const char *cf_cli_first_failure(const cf_res_sweep *w) {
  for (int k = 0; k < cf_res_sweep_points(w); k++)
    if (w->status[k]) return w->reason[k];
  return "";
}

int cf_cli_n_failed(const cf_results *r) {
  int n = 0;
  double d, a, e, s;
  for (int i = 0; i < r->n; i++) n += !cf_res_optimum(&r->recs[i], &d, &a, &e, &s);
  return n;
}

int cf_cli_warn_grid_edges(const char *cmd, const cf_results *r) {
  char buf[512];
  int n = 0;
  for (int i = 0; i < r->n; i++)
    if (cf_pipeline_grid_edge(&r->recs[i], buf, sizeof buf) > 0)
      n++, fprintf(stderr, "clothfit %s: warning: %s: the grid optimum is on the edge of the grid: %s\n", cmd,
                   r->recs[i].name, buf);
  return n;
}

static int is_rep2(const cf_res_rec *c) { return !strcmp(c->meta.repetition, "II"); }

/* The rows of the recordings with is_rep2 == rep2 (rep2 < 0: all). */
static int any_mu(const cf_results *r) {
  for (int i = 0; i < r->n; i++)
    if (isfinite(cf_res_optimum_mu(&r->recs[i]))) return 1;
  return 0;
}

static int any_kb_fitted(const cf_results *r) {
  for (int i = 0; i < r->n; i++)
    if (cf_res_kb_fitted(&r->recs[i])) return 1;
  return 0;
}

/* kappa and beta of the optimum, "*" after a fitted one (the report's
 * Table A.1 has them in columns kappa, beta, fitted). */
static void kb_print(const cf_res_rec *c) {
  const cf_res_model *m = cf_res_optimum_model(c);
  int k = c->has_fit && c->fit.kappa_fitted, b = c->has_fit && c->fit.beta_fitted;
  printf(" %8.2g%s %8.2g%s", m->kappa, k ? "*" : " ", m->beta, b ? "*" : " ");
}

static void table_a_rows(const cf_results *r, int rep2) {
  int truth = any_truth(r), mu = any_mu(r), kb = any_kb_fitted(r), w = 9;
  for (int i = 0; i < r->n; i++) w = (int)fmax(w, strlen(r->recs[i].name));
  printf("%-*s %-13s %-5s %-6s %-6s %8s %8s %8s %8s", w, "recording", "material", "size", "motion", "speed",
         "error_cm", "std_cm", "alpha", "delta");
  if (mu) printf(" %8s", "mu");
  printf(" %-11s", "optimum");
  if (truth) printf(" %8s %8s", "alpha_tr", "delta_tr");
  if (kb) printf(" %9s %9s", "kappa", "beta");
  printf("\n");
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    double d, a, e, s;
    if (rep2 >= 0 && is_rep2(c) != rep2) continue;
    printf("%-*s %-13s %-5s %-6s %-6s", w, c->name, or_dash(c->meta.material), or_dash(c->meta.size),
           or_dash(c->meta.motion), or_dash(c->meta.speed));
    if (!cf_res_optimum(c, &d, &a, &e, &s)) {
      printf(" no valid grid point: %.90s\n", c->has_sweep ? cf_cli_first_failure(&c->sweep) : "not swept");
      continue;
    }
    printf(" %8.3f %8.3f %8.4f %8.4f", e, s, a, d);
    if (mu) printf(" %8.4f", cf_res_optimum_mu(c));
    printf(" %-11s", c->has_fit ? c->fit.method : "grid");
    if (truth) printf(" %8.4f %8.4f", c->truth_alpha, c->truth_delta);
    if (kb) kb_print(c);
    printf("\n");
  }
  if (kb) printf("(kappa N m, beta s: * fitted, else held)\n");
}

void cf_cli_table_a1(const cf_results *r) {
  int n2 = 0;
  for (int i = 0; i < r->n; i++) n2 += is_rep2(&r->recs[i]);
  if (!n2) {
    table_a_rows(r, -1);
    return;
  }
  /* as the report's tables (src/report/tables.c): A.2 holds repetition II */
  if (n2 < r->n) {
    printf("Table A.1 (all but repetition II)\n");
    table_a_rows(r, 0);
    printf("\n");
  }
  printf("Table A.2 (repetition II)\n");
  table_a_rows(r, 1);
}

void cf_cli_table_42(const cf_results *r) {
  printf("Table 4.2: the fits (Nelder-Mead on the training window), mean error e on the testing window; truth: the\n"
         "recording's (NAME.truth.ini), thesis: its Table 4.2; recovered: delta and alpha within 10 %% of the truth\n"
         "(yes), or the truth inside the fit's 95 %% intervals (interval)\n");
  printf("%-20s %8s %7s %7s %8s %7s %7s %8s %7s %10s\n", "recording", "delta", "truth", "thesis", "alpha", "truth",
         "thesis", "e_cm", "thesis", "recovered");
  for (int i = 0; i < r->n; i++) {
    const cf_res_rec *c = &r->recs[i];
    double th[3];
    cf_thesis_table_42(c->meta.material, c->meta.speed, th);
    if (!c->has_fit) {
      printf("%-20s %8s %7.3f %7.2f %8s %7.3f %7.2f %8s %7.2f %10s\n", c->name, "-", c->truth_delta, th[0], "-",
             c->truth_alpha, th[1], "-", th[2], "no fit");
      continue;
    }
    const cf_res_fit *f = &c->fit;
    printf("%-20s %8.4f %7.3f %7.2f %8.4f %7.3f %7.2f %8.4f %7.2f %10s\n", c->name, f->x[0], c->truth_delta, th[0],
           f->x[1], c->truth_alpha, th[1], f->e_test, th[2], or_dash(cf_res_truth_check(c, 0.1)));
  }
}

typedef const char *(*meta_field)(const cf_res_rec *c);
static const char *f_material(const cf_res_rec *c) { return c->meta.material; }
static const char *f_size(const cf_res_rec *c) { return c->meta.size; }
static const char *f_motion(const cf_res_rec *c) { return c->meta.motion; }
static const char *f_speed(const cf_res_rec *c) { return c->meta.speed; }

/* Mean error and std of the optima whose field equals value (NULL: all). */
static void group_row(const cf_results *r, const char *title, meta_field f, const char *value) {
  double se = 0, ss = 0, d, a, e, s;
  int n = 0;
  for (int i = 0; i < r->n; i++)
    if ((!value || !strcmp(f(&r->recs[i]), value)) && cf_res_optimum(&r->recs[i], &d, &a, &e, &s) && isfinite(e))
      se += e, ss += s, n++;
  if (n) printf("%-10s %-16s %8.3f %8.3f %4d\n", title, value ? value : "all", se / n, ss / n, n);
}

/* One row per distinct non-empty value of f, in order of appearance. */
static void group_rows(const cf_results *r, const char *title, meta_field f) {
  for (int i = 0; i < r->n; i++) {
    const char *v = f(&r->recs[i]);
    int seen = !v[0];
    for (int j = 0; j < i && !seen; j++) seen = !strcmp(f(&r->recs[j]), v);
    if (!seen) group_row(r, title, f, v);
  }
}

void cf_cli_table_45(const cf_results *r) {
  printf("%-10s %-16s %8s %8s %4s\n", "group", "value", "error_cm", "std_cm", "n");
  group_rows(r, "material", f_material);
  group_rows(r, "size", f_size);
  group_rows(r, "motion", f_motion);
  group_rows(r, "speed", f_speed);
  group_row(r, "global", f_material, NULL);
}

void cf_cli_table_46(const cf_res_regression *g) {
  printf("%-10s %12s %12s\n", "coefficient", "start (lsq)", "fitted");
  for (int k = 0; k < 4; k++) printf("delta_%d    %12.4f %12.4f\n", k, g->f_start.d[k], g->f.d[k]);
  for (int k = 0; k < 4; k++) printf("alpha_%d    %12.4f %12.4f\n", k, g->f_start.a[k], g->f.a[k]);
  printf("R* (cm)    %12.3f %12.3f\n", g->R_start, g->R);
  printf("E* (cm)    %12s %12.3f\n", "", g->E);
  printf("(%d recordings, %d evaluations of R, %d simulations, search %s)\n", g->n_used, g->evaluations,
         g->simulations, g->search);
}

void cf_cli_json_recordings(json_t *o, const cf_results *r) {
  cf_pipeline_fields f = cf_cli_json_fields(o);
  cf_pipeline_fields_recordings(&f, r);
}

/* ------------------------------------------------------------ confidence */
void cf_cli_warn_unidentifiable(const char *cmd, const cf_results *r) {
  int n = 0;
  for (int i = 0; i < r->n; i++) {
    const cf_res_conf *c = &r->recs[i].fit.conf;
    if (!r->recs[i].has_fit || !c->done || c->identifiable != 0) continue;
    printf("%s  %s: not identifiable: %s\n", n++ ? "" : "\nfits that are not identifiable (their delta, alpha are "
           "not to be trusted):\n", r->recs[i].name, c->why);
  }
  if (n) fprintf(stderr, "clothfit %s: warning: %d of %d fits are not identifiable (listed with the tables)\n", cmd, n,
                 r->n);
}

void cf_cli_conf_text(const cf_res_conf *c, char *buf, size_t size) {
  buf[0] = 0;
  if (!c->done) return;
  int n = 0;
  if (isfinite(c->delta[0]))
    n = snprintf(buf, size, "95 %% intervals delta [%.4g, %.4g], alpha [%.4g, %.4g]", c->delta[0], c->delta[1],
                 c->alpha[0], c->alpha[1]);
  if (n < 0 || (size_t)n >= size) return; /* truncated: nothing more fits */
  int m = snprintf(buf + n, size - (size_t)n, "%s%s%s", n ? "; " : "",
                   c->identifiable == 1 ? "identifiable" : c->identifiable == 0 ? "NOT IDENTIFIABLE: " : "unknown: ",
                   c->identifiable == 1 ? "" : c->why);
  if (m < 0 || (size_t)(n + m) >= size || c->identifiable != 1) return;
  char kp[80] = "kappa not checked", bp[120] = "beta not checked", rp[120] = "rest metric not checked",
       mp[120] = "mesh not checked";
  if (c->kappa_fitted) snprintf(kp, sizeof kp, "kappa fitted: no kappa x3 check");
  if (c->beta_fitted) snprintf(bp, sizeof bp, "beta fitted: no large-beta check");
  if (isfinite(c->kappa_shift[0]))
    snprintf(kp, sizeof kp, "refitted with kappa x3 it moves delta %+.0f %%, alpha %+.0f %%", 100 * c->kappa_shift[0],
             100 * c->kappa_shift[1]);
  if (isfinite(c->beta_shift[0]))
    snprintf(bp, sizeof bp, "with beta %.3g = kappa x the window delta %+.0f %%, alpha %+.0f %%", c->beta_checked,
             100 * c->beta_shift[0], 100 * c->beta_shift[1]);
  if (isfinite(c->rest_shift[0]))
    snprintf(rp, sizeof rp, "with the other rest metric delta %+.0f %%, alpha %+.0f %%", 100 * c->rest_shift[0],
             100 * c->rest_shift[1]);
  if (isfinite(c->mesh_shift[0]))
    snprintf(mp, sizeof mp, "one split finer delta %+.0f %%, alpha %+.0f %%", 100 * c->mesh_shift[0],
             100 * c->mesh_shift[1]);
  snprintf(buf + n + m, size - (size_t)(n + m), " (%s; %s; %s; %s)", kp, bp, rp, mp);
}

/* "key":[v[0],v[1]], or null when v[0] is not finite. */
void cf_cli_json_conf(json_t *o, const cf_res_conf *c) {
  cf_pipeline_fields f = cf_cli_json_fields(o);
  cf_pipeline_fields_conf(&f, c);
}

void cf_cli_polish_text(const cf_res_fit *f, char *buf, size_t size) {
  buf[0] = 0;
  if (strcmp(f->polish, "quadratic")) return;
  char mu[64] = "";
  if (f->n_params > 2) snprintf(mu, sizeof mu, " mu %.4f", f->nm_x[2]);
  if (f->polished)
    snprintf(buf, size, "the minimum of a quadratic fitted to %d simulations around Nelder-Mead's optimum delta %.5f "
             "alpha %.5f%s (training error %.4f cm; rms residual %.4f cm)", f->polish_evaluations, f->nm_x[0],
             f->nm_x[1], mu, f->f_nm, f->polish_rms);
  else snprintf(buf, size, "not polished, Nelder-Mead's optimum kept: %s", f->polish_why);
}

void cf_cli_json_polish(json_t *o, const cf_res_fit *f) {
  cf_pipeline_fields v = cf_cli_json_fields(o);
  cf_pipeline_fields_polish(&v, f);
}

/* ---------------------------------------------- compare (thesis Table 4.3) */
/* The row with the lowest testing error (-1: none succeeded). */
static int best_row(const cf_res_compare *c) {
  int b = -1;
  for (int i = 0; i < c->n; i++)
    if (c->row[i].status == CF_OK && isfinite(c->row[i].e_test) && (b < 0 || c->row[i].e_test < c->row[b].e_test))
      b = i;
  return b;
}

static void print_params(const cf_res_compare_row *r) {
  printf("delta %.5f alpha %.5f", r->delta, r->alpha);
  const double k[3] = {r->k_stretch, r->k_shear, r->k_bend};
  for (int j = 0; j < 3; j++)
    if (isfinite(k[j])) printf(" %s %.4g%s", cf_fit_stiffness_name(j), k[j], strstr(r->fitted, cf_fit_stiffness_name(j)) ? "" : " (held)");
}

void cf_cli_compare_text(const cf_res_rec *rec) {
  const cf_res_compare *c = &rec->compare;
  printf("compare           %s: %d model(s) fitted on [%.2f, %.2f) s from delta %.5f alpha %.5f, tested on [%.2f, "
         "%.2f) s\n", rec->name, c->n, c->train_t0_s, c->train_t1_s, c->start_delta, c->start_alpha, c->test_t0_s,
         c->test_t1_s);
  printf("%-19s %9s %9s %8s %9s %9s %5s %6s  %s\n", "model", "e_test", "max_d", "time_s", "iter/step", "e_train",
         "evals", "params", "fitted parameters (cm: errors; N/m: stiffnesses)");
  for (int i = 0; i < c->n; i++) {
    const cf_res_compare_row *r = &c->row[i];
    printf("%-19s ", r->model);
    if (r->status != CF_OK) {
      printf("failed: %s\n", r->reason);
      continue;
    }
    printf("%9.4f %9.4f %8.3f ", r->e_test, r->d_max_test, r->wall_s);
    if (r->iters_per_step > 0) printf("%9.2f ", r->iters_per_step);
    else printf("%9s ", "-");
    printf("%9.4f %5d %6d  ", r->e_train, r->evaluations, cf_res_compare_fitted(r));
    print_params(r);
    printf("%s\n", r->converged ? "" : " (not converged)");
  }
  int b = best_row(c);
  printf("lowest testing error: %s\n", b >= 0 ? c->row[b].model : "none (every model failed)");
}

void cf_cli_compare_json(json_t *o, const cf_res_compare *c) {
  int b = best_row(c);
  cf_cli_json_nums(o, "train_window_s", (const double[]){c->train_t0_s, c->train_t1_s}, 2);
  cf_cli_json_nums(o, "test_window_s", (const double[]){c->test_t0_s, c->test_t1_s}, 2);
  cf_cli_json_num(o, "start_delta", c->start_delta);
  cf_cli_json_num(o, "start_alpha", c->start_alpha);
  cf_cli_json_str(o, "best", b >= 0 ? c->row[b].model : NULL);
  json_t *models = cf_cli_json_array(o, "models");
  for (int i = 0; i < c->n; i++) {
    const cf_res_compare_row *r = &c->row[i];
    json_t *m = json_object();
    json_array_append_new(models, m);
    cf_cli_json_str(m, "model", r->model);
    cf_cli_json_str(m, "status", cf_status_name(r->status));
    cf_cli_json_str(m, "reason", r->reason);
    cf_cli_json_num(m, "parameters_fitted", cf_res_compare_fitted(r));
    const char *k[] = {"delta", "alpha", "k_stretch", "k_shear", "k_bend", "train_error_cm", "test_error_cm",
                       "test_std_cm", "test_max_d_cm", "sim_wall_s", "iterations_per_step", "fit_wall_s"};
    const double v[] = {r->delta, r->alpha, r->k_stretch, r->k_shear, r->k_bend, r->e_train, r->e_test,
                        r->s_test, r->d_max_test, r->wall_s, r->iters_per_step, r->fit_wall_s};
    cf_cli_json_numbers(m, k, v, sizeof v / sizeof v[0]);
    cf_cli_json_str(m, "fitted", r->fitted);
    cf_cli_json_num(m, "evaluations", r->evaluations);
    cf_cli_json_num(m, "converged", r->converged);
  }
}

/* -------------------------------------------------------------- remeshing */
void cf_cli_remesh_text(const cf_res_rec *rec) {
  const cf_res_remesh *m = &rec->remesh;
  int ref = cf_res_remesh_reference(m);
  printf("Remeshing (thesis §4.1.5): the fit of %s (delta %.4f, alpha %.4f) simulated on other meshes, mean error\n"
         "e on the testing window [%.2f, %.2f) s; thesis: §4.1.5 (light-cotton fast); ratio: e over that of %s\n",
         rec->name, m->delta, m->alpha, m->test_t0_s, m->test_t1_s, m->n ? m->row[ref].mesh : "-");
  printf("%-8s %6s %8s %7s %6s  %s\n", "mesh", "split", "e_cm", "thesis", "ratio", "from");
  for (int i = 0; i < m->n; i++) {
    const cf_res_remesh_row *r = &m->row[i];
    char split[16], thesis[16] = "-";
    double th;
    snprintf(split, sizeof split, "%dx%d", r->split[0], r->split[1]);
    if (cf_thesis_remesh(rec->meta.material, rec->meta.speed, r->rows, r->cols, &th))
      snprintf(thesis, sizeof thesis, "%.2f", th);
    if (r->status != CF_OK) {
      printf("%-8s %6s %8s %7s %6s  failed: %s\n", r->mesh, split, "-", thesis, "-", r->reason);
      continue;
    }
    printf("%-8s %6s %8.4f %7s %6.2f  %s\n", r->mesh, split, r->e_test, thesis, r->e_test / m->row[ref].e_test,
           r->fit_reused ? "the fit (its testing error, Table 4.2)" : "simulated");
  }
}

void cf_cli_remesh_json(json_t *o, const cf_res_remesh *m) {
  cf_pipeline_fields f = cf_cli_json_fields(o);
  cf_pipeline_fields_remesh(&f, m);
}
