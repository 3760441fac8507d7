/* cmd_sensitivity.c — `clothfit sensitivity REC.h5 --at D,A [-n 10]`: the
 * mean error on an n x n grid over [0, 2D] x [0, 2A] (thesis §4.1.3, Fig.
 * 4.6; delta = 0 and alpha = 0 are valid model parameters), or 1-D scans of
 * one parameter with the others held (--scan delta|alpha|mu; mu: Fig. 4.20,
 * over [0, 2M] around --mu M, as a sweep's mu axis). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

typedef struct {
  const char *at, *n, *scan, *window, *workers, *out;
  cf_cli_model model;
  int np, nw, restart;
  double D, A, w0, w1;
  cf_pipeline_tasks tk; /* the map's journal */
} sens_args;

static const cf_cli_option options[] = {
    CF_CLI_VALUE("--at", sens_args, at),           CF_CLI_VALUE("-n", sens_args, n),
    CF_CLI_VALUE("--scan", sens_args, scan),       CF_CLI_VALUE("--window", sens_args, window),
    CF_CLI_VALUE("--workers", sens_args, workers), CF_CLI_VALUE("-o", sens_args, out),
    CF_CLI_FLAG("--restart", sens_args, restart),  CF_CLI_MODEL_OPTIONS(sens_args, model),
    CF_CLI_END};

static int check_values(const cf_cli_call *c, void *opts) {
  (void)c;
  sens_args *a = opts;
  if (!a->at) return cf_cli_fail("sensitivity", "missing --at D,A (the point to study; see --help)");
  if (!cf_pipeline_parse_pair(a->at, &a->D, &a->A) || (a->D == 0 && a->A == 0))
    return cf_cli_fail("sensitivity", "invalid --at '%s': expected D,A, two numbers >= 0 (not both 0)", a->at);
  a->np = 10;
  if (a->n && !cf_pipeline_parse_int(a->n, 2, &a->np))
    return cf_cli_fail("sensitivity", "invalid -n '%s': expected a count >= 2", a->n);
  if (a->scan && strcmp(a->scan, "delta") && strcmp(a->scan, "alpha") && strcmp(a->scan, "mu"))
    return cf_cli_fail("sensitivity", "invalid --scan '%s': expected delta, alpha or mu", a->scan);
  a->w0 = 0, a->w1 = INFINITY;
  if (a->window && !cf_pipeline_parse_range(a->window, &a->w0, &a->w1))
    return cf_cli_fail("sensitivity", "invalid --window '%s': expected T0:T1 in seconds", a->window);
  return cf_cli_workers("sensitivity", a->workers, &a->nw);
}

static void print_cell(double e, int status) {
  if (status) printf(" %8s", "fail");
  else printf(" %8.4f", e);
}

static void print_table(const cf_res_sens *w) {
  if (w->nm > 0) {
    printf("%10s %8s %8s\n", "mu", "error_cm", "std_cm");
    for (int i = 0; i < w->nm; i++) {
      printf("%10.5f", w->mu[i]);
      print_cell(w->e[i], w->status[i]);
      print_cell(w->s[i], w->status[i]);
      printf("\n");
    }
    return;
  }
  if (w->na == 1 || w->nd == 1) {
    int by_delta = w->na == 1, n = by_delta ? w->nd : w->na;
    printf("%10s %8s %8s\n", by_delta ? "delta" : "alpha", "error_cm", "std_cm");
    for (int i = 0; i < n; i++) {
      printf("%10.5f", by_delta ? w->delta[i] : w->alpha[i]);
      print_cell(w->e[i], w->status[i]);
      print_cell(w->s[i], w->status[i]);
      printf("\n");
    }
    return;
  }
  printf("error (cm): rows delta, columns alpha\n%10s", "d \\ a");
  for (int j = 0; j < w->na; j++) printf(" %8.4f", w->alpha[j]);
  printf("\n");
  for (int i = 0; i < w->nd; i++) {
    printf("%10.5f", w->delta[i]);
    for (int j = 0; j < w->na; j++) print_cell(w->e[i * w->na + j], w->status[i * w->na + j]);
    printf("\n");
  }
}

/* "key":[v[0], ...], null where status (may be NULL) is not 0. */
static void print_array(json_t *j, const char *key, const double *v, const int *status, int n) {
  json_t *list = cf_cli_json_array(j, key);
  for (int i = 0; i < n; i++) json_array_append_new(list, cf_cli_json_number(status && status[i] ? NAN : v[i]));
}

static void print_text(const void *opts, const cf_res_rec *rec) {
  const sens_args *a = opts;
  printf("recording %s around delta %g, alpha %g\n", rec->recording, a->D, a->A);
  print_table(&rec->sens);
  if (a->out) printf("results: %s\n", a->out);
}

static void print_json(const void *opts, const cf_res_rec *rec) {
  const sens_args *a = opts;
  const cf_res_sens *w = &rec->sens;
  json_t *j = json_object();
  cf_cli_json_str(j, "kind", w->kind);
  cf_cli_json_num(j, "at_delta", a->D);
  cf_cli_json_num(j, "at_alpha", a->A);
  print_array(j, "delta", w->delta, NULL, w->nd);
  print_array(j, "alpha", w->alpha, NULL, w->na);
  int n = (w->nm > 0 ? w->nm : 1) * w->nd * w->na;
  if (w->nm > 0) print_array(j, "mu", w->mu, NULL, w->nm);
  print_array(j, "error_cm", w->e, w->status, n);
  print_array(j, "std_cm", w->s, w->status, n);
  cf_cli_json_str(j, "output", a->out);
  cf_cli_json_print(j);
}

static int run(void *opts, cf_fit_input *in, cf_res_rec *rec) {
  sens_args *a = opts;
  cf_cli_bar bar;
  cf_error err = {0, ""};
  cf_cli_bar_stages(&bar);
  int rc = cf_pipeline_sensitivity(in, a->scan ? a->scan : "map", a->D, a->A, a->np, a->w0, a->w1, a->nw, &a->tk,
                                   &bar.pp, rec, &err);
  return rc ? cf_cli_fail("sensitivity", "%s", err.msg) : 0;
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  sens_args *a = opts;
  static const cf_cli_recording_run steps = {run, print_text, print_json};
  return cf_cli_run_recording(c, a, &(cf_pipeline_task_opts){a->out, NULL, a->restart}, a->nw, &a->tk, NULL, &steps);
}

const cf_cli_command cf_cli_cmd_sensitivity = {
    .name = "sensitivity", .summary = "error map around a parameter point (or 1-D scans)",
    .help = cf_cli_help_sensitivity, .options = options, .opts_size = sizeof(sens_args), .max_pos = 1,
    .needs = "REC.h5", .check = check_values, .loads = 1, .model_offset = offsetof(sens_args, model), .mpi = 1,
    .run = run_cmd};
