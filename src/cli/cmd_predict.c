/* cmd_predict.c — `clothfit predict REC.h5... [--formula thesis-rep1|
 * RESULTS.h5]`: the a-priori parameters (4.10)-(4.11) of each recording
 * from its size S, speed V and density rho, the error they give, and the
 * fitted optimum next to them when a results file has it (Table 4.9).
 * `--S S --V V --rho RHO` applies the formula to given numbers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

typedef struct {
  const char *formula, *optima, *S, *V, *rho;
  cf_cli_model model;
  int no_eval, json;  /* json: --json (the call's) */
  cf_formula f;
  cf_results opt; /* the optima file, if any */
  int have_opt;
} pred_args;

static const cf_cli_option options[] = {
    CF_CLI_VALUE("--formula", pred_args, formula), CF_CLI_VALUE("--optima", pred_args, optima),
    CF_CLI_VALUE("--S", pred_args, S),             CF_CLI_VALUE("--V", pred_args, V),
    CF_CLI_VALUE("--rho", pred_args, rho),         CF_CLI_FLAG("--no-eval", pred_args, no_eval),
    CF_CLI_MODEL_OPTIONS(pred_args, model),        CF_CLI_END};

static int load_formula(pred_args *a) {
  cf_error err = {0, ""};
  const char *ff = a->formula ? a->formula : "thesis-rep1";
  if (!strcmp(ff, "thesis-rep1")) {
    a->f = cf_formula_thesis_rep1;
  } else {
    cf_results r;
    if (cf_results_read(ff, &r, &err)) return cf_cli_fail("predict", "--formula: %s", err.msg);
    int has = r.reg.has;
    a->f = r.reg.f;
    cf_results_free(&r);
    if (!has) return cf_cli_fail("predict", "%s: no /regression (run clothfit regress ... -o %s first)", ff, ff);
    if (!a->optima) a->optima = ff;
  }
  if (a->optima && cf_results_read(a->optima, &a->opt, &err)) return cf_cli_fail("predict", "--optima: %s", err.msg);
  a->have_opt = a->optima != NULL;
  return 0;
}

static void print_header(int w) {
  printf("%-*s %-13s %5s %7s %7s %8s %8s %7s %7s %8s %8s\n", w, "recording", "material", "S", "V", "rho", "delta^",
         "delta*", "alpha^", "alpha*", "e^_cm", "e*_cm");
}

/* A number, or "-" when unknown. */
static void cell(double v, int width, int prec) {
  if (isfinite(v)) printf(" %*.*f", width, prec, v);
  else printf(" %*s", width, "-");
}

static void print_row(int w, const char *name, const char *material, double S, double V, double rho, double d, double a,
                      double e, double ds, double as, double es) {
  printf("%-*s %-13s", w, name, material[0] ? material : "-");
  cell(S, 5, 2), cell(V, 7, 4), cell(rho, 7, 4), cell(d, 8, 4), cell(ds, 8, 4), cell(a, 7, 4), cell(as, 7, 4);
  cell(e, 8, 3), cell(es, 8, 3);
  printf("\n");
}

static void numbers_json(double S, double V, double rho, double d, double al) {
  json_t *j = json_object();
  cf_cli_json_num(j, "S", S), cf_cli_json_num(j, "V", V), cf_cli_json_num(j, "rho", rho);
  cf_cli_json_num(j, "delta_hat", d), cf_cli_json_num(j, "alpha_hat", al);
  cf_cli_json_print(j);
}

static int numbers_mode(pred_args *a) {
  double S, V, rho, d, al;
  if (!a->S || !a->V || !a->rho) return cf_cli_fail("predict", "--S, --V and --rho go together (see --help)");
  char *e1, *e2, *e3;
  S = strtod(a->S, &e1), V = strtod(a->V, &e2), rho = strtod(a->rho, &e3);
  if (*e1 || *e2 || *e3 || !isfinite(S) || !isfinite(V) || !isfinite(rho) || S <= 0 || V < 0 || rho <= 0)
    return cf_cli_fail("predict", "invalid --S '%s' --V '%s' --rho '%s': expected S > 0, V >= 0, rho > 0", a->S, a->V,
                       a->rho);
  cf_formula_predict(&a->f, S, V, rho, &d, &al);
  print_header(9);
  print_row(9, "(given)", "", S, V, rho, d, al, NAN, NAN, NAN, NAN);
  if (a->json) numbers_json(S, V, rho, d, al);
  return 0;
}

typedef struct {
  double d, a, e, ds, as, es;
} pred_row;

static int predict_one(pred_args *a, const cf_fit_input *in, pred_row *p) {
  cf_error err = {0, ""};
  cf_pipeline_prediction q;
  const cf_res_rec *r = a->have_opt ? cf_results_rec(&a->opt, in->name, 0) : NULL;
  if (cf_pipeline_predict(in, &a->f, r, a->optima, !a->no_eval, &q, &err)) return cf_cli_fail("predict", "%s", err.msg);
  *p = (pred_row){q.delta, q.alpha, q.e, q.delta_opt, q.alpha_opt, q.e_opt};
  return 0;
}

static void json_rows(const cf_fit_input *in, const pred_row *p, int n) {
  json_t *root = json_object(), *list = cf_cli_json_array(root, "recordings");
  for (int i = 0; i < n; i++) {
    json_t *j = json_object();
    json_array_append_new(list, j);
    cf_cli_json_str(j, "name", in[i].name);
    cf_cli_json_num(j, "S", in[i].S), cf_cli_json_num(j, "V", in[i].V), cf_cli_json_num(j, "rho", in[i].tg.rho);
    cf_cli_json_num(j, "delta_hat", p[i].d), cf_cli_json_num(j, "alpha_hat", p[i].a);
    cf_cli_json_num(j, "error_hat_cm", p[i].e);
    cf_cli_json_num(j, "delta_opt", p[i].ds), cf_cli_json_num(j, "alpha_opt", p[i].as);
    cf_cli_json_num(j, "error_opt_cm", p[i].es);
  }
  cf_cli_json_print(root);
}

static void rows_text(const cf_fit_input *in, const pred_row *p, int n) {
  int w = 9;
  for (int i = 0; i < n; i++) w = (int)fmax(w, strlen(in[i].name));
  print_header(w);
  for (int i = 0; i < n; i++)
    print_row(w, in[i].name, in[i].meta.material, in[i].S, in[i].V, in[i].tg.rho, p[i].d, p[i].a, p[i].e, p[i].ds,
              p[i].as, p[i].es);
}

static int recordings_mode(pred_args *a, const char **paths, int n) {
  cf_fit_input *in = NULL;
  pred_row *p = calloc((size_t)n + 1, sizeof *p);
  int rc = !p ? cf_cli_fail("predict", "out of memory") : cf_cli_load_inputs("predict", paths, n, &a->model, &in);
  cf_cli_bar bar;
  cf_cli_bar_start(&bar, "predict", n);
  for (int i = 0; !rc && i < n; i++) {
    rc = predict_one(a, &in[i], &p[i]);
    cf_progress_update(&bar.bar, i + 1);
  }
  cf_cli_bar_end(&bar);
  if (!rc) rows_text(in, p, n);
  if (!rc && a->json) json_rows(in, p, n);
  cf_pipeline_inputs_free(in, n);
  free(p);
  return rc;
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  pred_args *a = opts;
  cf_results_init(&a->opt);
  a->json = c->json;
  int numbers = a->S || a->V || a->rho, npos = c->n_pos, rc = 0;
  if (numbers && npos) rc = cf_cli_fail("predict", "give either recordings or --S/--V/--rho, not both");
  if (!rc && !numbers && !npos) rc = cf_cli_fail("predict", "missing REC.h5 (or --S S --V V --rho RHO; see --help)");
  rc = rc || cf_cli_model_apply("predict", &a->model, NULL, 0) || load_formula(a) ||
       (numbers ? numbers_mode(a) : recordings_mode(a, c->pos, npos));
  cf_results_free(&a->opt);
  return rc;
}

const cf_cli_command cf_cli_cmd_predict = {
    .name = "predict", .summary = "a-priori (delta, alpha) from size, speed and density (Table 4.9)",
    .help = cf_cli_help_predict, .options = options, .opts_size = sizeof(pred_args), .max_pos = -1, .run = run_cmd};
