/* cmd_compare.c — `clothfit compare REC.h5 [--models LIST] [-o RESULTS.h5]`:
 * which cloth model explains a recording (thesis §4.1.4, Table 4.3).  Each
 * model's parameters are fitted by Nelder-Mead on the training window
 * (src/fit compare.c), and the fit is measured on the testing window. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

static const char *help =
    "usage: clothfit compare REC.h5 [--models LIST] [--train A:B] [--start D,A]\n"
    "                        [--max-evals N] [--workers N] [-o RESULTS.h5] [--json]\n"
    "                        " CF_CLI_MODEL_USAGE "\n"
    "\n"
    "Fit each cloth model to the recording and compare them (thesis §4.1.4, Table\n"
    "4.3): inextensible (the thesis' model), quasi-inextensible (every edge's\n"
    "length held, shear by diagonal springs), elastic (a St. Venant-Kirchhoff\n"
    "membrane) and mass-spring (structural, shear and bending springs).  Each\n"
    "model's parameters (delta, alpha and its stiffnesses: quasi-inextensible\n"
    "k_shear, elastic and mass-spring k_stretch and k_shear, as log10) are fitted\n"
    "by the same Nelder-Mead on the training window, from the same start; then the\n"
    "recording is simulated at the fit and measured on the testing window.  The\n"
    "table: mean error e and max dispersion d (cm) on the testing window, the\n"
    "simulation's wall time, the projection's iterations per step ('-' for the\n"
    "models without constraints), the training error and the fitted parameters.\n"
    "One model per worker process.  Models of the recording's table or stick: only\n"
    "the inextensible and quasi-inextensible ones (the others have no contacts).\n"
    "\n"
    "  --models LIST   comma-separated (default: all four)\n"
    "  --train A:B     training window as fractions of the recording (default\n"
    "                  0:0.5); testing = from B to the end\n"
    "  --start D,A     every fit's start (default delta = rho/2, alpha = 2 rho, the\n"
    "                  centre of the parameter box; stiffnesses: --k-stretch,\n"
    "                  --k-shear)\n"
    "  --max-evals N   simulations per fit (default 100 per fitted parameter)\n"
    "  --workers N     worker processes (default 0: all cores)\n"
    "  -o RESULTS.h5   store the comparison (/recordings/NAME/compare, added to\n"
    "                  the file if it exists; clothfit inspect shows it)\n"
    "  --json          also print the comparison as one JSON object: recording,\n"
    "                  train_window_s, test_window_s, best, models (each: model,\n"
    "                  status, reason, delta, alpha, k_stretch, k_shear, k_bend,\n"
    "                  fitted, train_error_cm, test_error_cm, test_std_cm,\n"
    "                  test_max_d_cm, sim_wall_s, iterations_per_step,\n"
    "                  evaluations, converged, fit_wall_s)\n"
    CF_CLI_MODEL_HELP;

typedef struct {
  const char *models, *train, *start, *max_evals, *workers, *out;
  cf_cli_model model;
  int json, nw, me, n;
  int list[CF_CLOTH_MODELS];
  double f0, f1, d0, a0;
} cmp_args;

static int parse_models(cmp_args *a) {
  if (!a->models) {
    for (a->n = 0; a->n < CF_CLOTH_MODELS; a->n++) a->list[a->n] = a->n;
    return 0;
  }
  char buf[256];
  snprintf(buf, sizeof buf, "%s", a->models);
  a->n = 0;
  for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
    int m = cf_cloth_model_find(w);
    for (int j = 0; m >= 0 && j < a->n; j++)
      if (a->list[j] == m) m = -2;
    if (m < 0)
      return cf_cli_fail("compare", "invalid --models '%s': '%s' is %s (expected inextensible, quasi-inextensible, "
                         "elastic, mass-spring)", a->models, w, m == -2 ? "given twice" : "not a model");
    a->list[a->n++] = m;
  }
  return a->n ? 0 : cf_cli_fail("compare", "invalid --models '%s': no model", a->models);
}

static int check_values(cmp_args *a) {
  a->f0 = 0, a->f1 = 0.5;
  if (a->train && (!cf_cli_parse_range(a->train, &a->f0, &a->f1) || a->f1 >= 1))
    return cf_cli_fail("compare", "invalid --train '%s': expected A:B, fractions with 0 <= A < B < 1 (the testing "
                       "window is from B on)", a->train);
  a->d0 = a->a0 = NAN;
  if (a->start && (!cf_cli_parse_pair(a->start, &a->d0, &a->a0) || !(a->d0 > 0) || !(a->a0 > 0)))
    return cf_cli_fail("compare", "invalid --start '%s': expected D,A, two numbers > 0", a->start);
  a->me = 0;
  if (a->max_evals && !cf_cli_parse_int(a->max_evals, 10, &a->me))
    return cf_cli_fail("compare", "invalid --max-evals '%s': expected a count >= 10", a->max_evals);
  return parse_models(a) || cf_cli_workers("compare", a->workers, &a->nw);
}

/* A row of the fit into the results' form. */
static void store_row(const cf_compare_row *r, const cf_params *base, cf_res_compare_row *o) {
  memset(o, 0, sizeof *o);
  snprintf(o->model, sizeof o->model, "%s", cf_cloth_model_name(r->model));
  o->status = r->status;
  snprintf(o->reason, sizeof o->reason, "%s", r->reason);
  o->delta = r->fit.delta, o->alpha = r->fit.alpha;
  int m = r->model;
  o->k_stretch = m == CF_CLOTH_ELASTIC || m == CF_CLOTH_MASS_SPRING ? r->fit.k_stretch : NAN;
  o->k_shear = m != CF_CLOTH_INEXTENSIBLE ? r->fit.k_shear : NAN;
  o->k_bend = m == CF_CLOTH_MASS_SPRING ? (r->fit.k_bend > 0 ? r->fit.k_bend : base->k_bend) : NAN;
  snprintf(o->fitted, sizeof o->fitted, "delta alpha");
  for (int j = 0; j < r->nk; j++)
    snprintf(o->fitted + strlen(o->fitted), sizeof o->fitted - strlen(o->fitted), " %s",
             cf_fit_stiffness_name(r->kpar[j]));
  int ok = r->status == CF_OK;
  o->e_train = r->e_train_cm;
  o->e_test = ok ? r->e_test_cm : NAN, o->s_test = ok ? r->s_test_cm : NAN, o->d_max_test = ok ? r->d_max_test_cm : NAN;
  o->wall_s = ok ? r->wall_s : NAN, o->iters_per_step = ok ? r->iters_per_step : NAN;
  o->evaluations = r->evaluations, o->converged = r->converged, o->fit_wall_s = r->fit_wall_s;
}

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

static void print_table(const cf_res_rec *rec) {
  const cf_res_compare *c = &rec->compare;
  printf("compare           %s: %d model(s) fitted on [%.2f, %.2f) s from delta %.5f alpha %.5f, tested on [%.2f, "
         "%.2f) s\n", rec->name, c->n, c->train_t0_s, c->train_t1_s, c->start_delta, c->start_alpha, c->test_t0_s,
         c->test_t1_s);
  printf("%-19s %9s %9s %8s %9s %9s %5s  %s\n", "model", "e_test", "max_d", "time_s", "iter/step", "e_train", "evals",
         "fitted parameters (cm: errors; N/m: stiffnesses)");
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
    printf("%9.4f %5d  ", r->e_train, r->evaluations);
    print_params(r);
    printf("%s\n", r->converged ? "" : " (not converged)");
  }
  int b = best_row(c);
  printf("lowest testing error: %s\n", b >= 0 ? c->row[b].model : "none (every model failed)");
}

static void print_json(const cf_res_rec *rec, const char *out) {
  const cf_res_compare *c = &rec->compare;
  int b = best_row(c);
  printf("{");
  cf_cli_json_str("recording", rec->recording, 1);
  printf(",\"train_window_s\":[%.6g,%.6g],\"test_window_s\":[%.6g,%.6g]", c->train_t0_s, c->train_t1_s, c->test_t0_s,
         c->test_t1_s);
  cf_cli_json_str("best", b >= 0 ? c->row[b].model : NULL, 0);
  printf(",\"models\":[");
  for (int i = 0; i < c->n; i++) {
    const cf_res_compare_row *r = &c->row[i];
    printf(i ? ",{" : "{");
    cf_cli_json_str("model", r->model, 1);
    cf_cli_json_str("status", cf_status_name(r->status), 0);
    cf_cli_json_str("reason", r->reason, 0);
    cf_cli_json_num("delta", r->delta, 0);
    cf_cli_json_num("alpha", r->alpha, 0);
    cf_cli_json_num("k_stretch", r->k_stretch, 0);
    cf_cli_json_num("k_shear", r->k_shear, 0);
    cf_cli_json_num("k_bend", r->k_bend, 0);
    cf_cli_json_str("fitted", r->fitted, 0);
    cf_cli_json_num("train_error_cm", r->e_train, 0);
    cf_cli_json_num("test_error_cm", r->e_test, 0);
    cf_cli_json_num("test_std_cm", r->s_test, 0);
    cf_cli_json_num("test_max_d_cm", r->d_max_test, 0);
    cf_cli_json_num("sim_wall_s", r->wall_s, 0);
    cf_cli_json_num("iterations_per_step", r->iters_per_step, 0);
    cf_cli_json_num("evaluations", r->evaluations, 0);
    cf_cli_json_num("converged", r->converged, 0);
    cf_cli_json_num("fit_wall_s", r->fit_wall_s, 0);
    printf("}");
  }
  printf("]");
  cf_cli_json_str("output", out, 0);
  printf("}\n");
}

static int run(const cmp_args *a, const cf_fit_input *in, cf_res_rec *rec) {
  int t0, t1, T = in->tg.T;
  cf_cli_window_frames(in, a->f0 * (T - 1) * in->tg.dt, a->f1 * (T - 1) * in->tg.dt, &t0, &t1);
  if (t1 - t0 < 2 || T - t1 < 2)
    return cf_cli_fail("compare", "%s: the training window holds %d frame(s) and the testing window %d; change "
                       "--train", in->path, t1 - t0, T - t1);
  double rho = in->tg.rho;
  cf_compare_options o = {t0, t1, t1, T, a->me, isfinite(a->d0) ? a->d0 : 0.5 * rho,
                          isfinite(a->a0) ? a->a0 : 2 * rho};
  cf_compare_row rows[CF_CLOTH_MODELS];
  memset(rows, 0, sizeof rows);
  cf_cli_bar bar;
  cf_error err = {0, ""};
  cf_cli_bar_start(&bar, "compare", a->n);
  int rc = cf_fit_compare(&in->tg, &in->base, &in->fixed, a->n, a->list, &o, a->nw, &bar.fp, rows, &err);
  cf_cli_bar_end(&bar);
  if (rc) return cf_cli_fail("compare", "%s: %s", in->path, err.msg);
  cf_res_rec_describe(rec, in);
  cf_res_compare *c = &rec->compare;
  memset(c, 0, sizeof *c);
  c->n = a->n;
  for (int i = 0; i < a->n; i++) store_row(&rows[i], &in->base, &c->row[i]);
  double dt = in->tg.dt;
  c->train_t0_s = t0 * dt, c->train_t1_s = t1 * dt, c->test_t0_s = t1 * dt, c->test_t1_s = T * dt;
  c->start_delta = o.delta0, c->start_alpha = o.alpha0;
  c->model = cf_res_model_of(in);
  rec->has_compare = 1;
  return 0;
}

int cmd_compare(int argc, char **argv) {
  if (cf_cli_wants_help(argc, argv)) return fputs(help, stdout), 0;
  cmp_args a;
  memset(&a, 0, sizeof a);
  const cf_cli_opt opts[] = {{"--models", &a.models, NULL},       {"--train", &a.train, NULL},
                             {"--start", &a.start, NULL},         {"--max-evals", &a.max_evals, NULL},
                             {"--workers", &a.workers, NULL},     {"-o", &a.out, NULL},
                             {"--json", NULL, &a.json},           CF_CLI_MODEL_OPTS(a.model),
                             {NULL, NULL, NULL}};
  const char *path = NULL;
  int npos = 0;
  cf_fit_input *in = NULL;
  cf_results res;
  cf_results_init(&res);
  int rc = cf_cli_parse("compare", argc, argv, opts, &path, 1, &npos) || check_values(&a);
  if (!rc && !path) rc = cf_cli_fail("compare", "missing REC.h5 (see --help)");
  if (!rc && a.model.model) rc = cf_cli_fail("compare", "--model is not an option of compare: give --models LIST");
  rc = rc || cf_cli_load_inputs("compare", &path, 1, &a.model, &in);
  for (int i = 0; !rc && i < a.n; i++)
    if (a.list[i] >= CF_CLOTH_ELASTIC && cf_fit_target_has_obstacles(&in->tg))
      rc = cf_cli_fail("compare", "%s: the %s model has no contacts (the recording has a %s): leave it out of "
                       "--models", in->path, cf_cloth_model_name(a.list[i]), in->tg.stick ? "stick" : "table");
  rc = rc || cf_cli_results_begin("compare", a.out, &res, argc, argv, a.nw, NULL);
  cf_res_rec *rec = rc ? NULL : cf_results_rec(&res, in->name, 1);
  if (!rc && !rec) rc = cf_cli_fail("compare", "out of memory");
  rc = rc || run(&a, in, rec) || cf_cli_results_write("compare", a.out, &res);
  if (!rc) {
    print_table(rec);
    if (a.out) printf("results: %s\n", a.out);
    if (a.json) print_json(rec, a.out);
  }
  cf_results_free(&res);
  cf_cli_free_inputs(in, in ? 1 : 0);
  return rc;
}
