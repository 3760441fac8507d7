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

typedef struct {
  const char *models, *train, *start, *max_evals, *workers, *out, *search;
  cf_cli_model model;
  int nw, me, n, restart;
  cf_pipeline_tasks tk; /* the journal: grid start, the models' fits */
  int resumed;     /* tasks of the journal taken from it */
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

static const cf_cli_option options[] = {
    CF_CLI_VALUE("--models", cmp_args, models),   CF_CLI_VALUE("--train", cmp_args, train),
    CF_CLI_VALUE("--start", cmp_args, start),     CF_CLI_VALUE("--max-evals", cmp_args, max_evals),
    CF_CLI_VALUE("--workers", cmp_args, workers), CF_CLI_VALUE("-o", cmp_args, out),
    CF_CLI_FLAG("--restart", cmp_args, restart),  CF_CLI_VALUE("--search", cmp_args, search),
    CF_CLI_MODEL_OPTIONS(cmp_args, model),        CF_CLI_END};

static int check_values(cmp_args *a) {
  a->f0 = 0, a->f1 = 0.5;
  if (a->train && (!cf_pipeline_parse_range(a->train, &a->f0, &a->f1) || a->f1 >= 1))
    return cf_cli_fail("compare", "invalid --train '%s': expected A:B, fractions with 0 <= A < B < 1 (the testing "
                       "window is from B on)", a->train);
  a->d0 = a->a0 = NAN;
  if (a->start && (!cf_pipeline_parse_pair(a->start, &a->d0, &a->a0) || !(a->d0 > 0) || !(a->a0 > 0)))
    return cf_cli_fail("compare", "invalid --start '%s': expected D,A, two numbers > 0", a->start);
  a->me = 0;
  if (a->max_evals && !cf_pipeline_parse_int(a->max_evals, 10, &a->me))
    return cf_cli_fail("compare", "invalid --max-evals '%s': expected a count >= 10", a->max_evals);
  return parse_models(a) || cf_cli_workers("compare", a->workers, &a->nw);
}

static int run(void *opts, cf_fit_input *in, cf_res_rec *rec) {
  cmp_args *a = opts;
  cf_cli_bar bar;
  cf_error err = {0, ""};
  cf_cli_bar_stages(&bar);
  int rc = cf_pipeline_compare(in, a->list, a->n, a->f0, a->f1, a->d0, a->a0, a->me, a->nw, &a->tk, &bar.pp, rec,
                               &err);
  return rc ? cf_cli_fail("compare", "%s", err.msg) : 0;
}

/* The checks of the options before the recording is loaded. */
static int check(const cf_cli_call *c, void *opts) {
  (void)c;
  cmp_args *a = opts;
  if (check_values(a)) return 1;
  if (a->model.model) return cf_cli_fail("compare", "--model is not an option of compare: give --models LIST");
  return cf_cli_search("compare", a->search, NULL, 0);
}

/* Every model asked for can simulate the recording's obstacles. */
static int check_models(const cmp_args *a, const cf_fit_input *in) {
  for (int i = 0; i < a->n; i++)
    if (a->list[i] >= CF_CLOTH_ELASTIC && cf_fit_target_has_obstacles(&in->tg))
      return cf_cli_fail("compare", "%s: the %s model has no contacts (the recording has a %s): leave it out of "
                         "--models", in->path, cf_cloth_model_name(a->list[i]), in->tg.stick ? "stick" : "table");
  return 0;
}

static void print_text(const void *opts, const cf_res_rec *rec) {
  const cmp_args *a = opts;
  cf_cli_compare_text(rec);
  if (a->out) printf("results: %s\n", a->out);
}

static void print_json(const void *opts, const cf_res_rec *rec) {
  const cmp_args *a = opts;
  json_t *j = json_object();
  cf_cli_json_str(j, "recording", rec->recording);
  cf_cli_compare_json(j, &rec->compare);
  cf_cli_json_str(j, "output", a->out);
  cf_cli_json_num(j, "tasks_resumed", a->resumed);
  cf_cli_json_print(j);
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  cmp_args *a = opts;
  static const cf_cli_recording_run steps = {run, print_text, print_json};
  return cf_cli_search("compare", a->search, c->in, 1) || check_models(a, c->in) ||
         cf_cli_run_recording(c, a, &(cf_pipeline_task_opts){a->out, NULL, a->restart}, a->nw, &a->tk, &a->resumed,
                              &steps);
}

const cf_cli_command cf_cli_cmd_compare = {
    .name = "compare", .summary = "fit the four cloth models of thesis Table 4.3 to a recording and compare them",
    .help = cf_cli_help_compare, .options = options, .opts_size = sizeof(cmp_args), .max_pos = 1, .needs = "REC.h5",
    .check = check, .loads = 1, .model_offset = offsetof(cmp_args, model), .run = run_cmd};
