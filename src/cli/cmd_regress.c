/* cmd_regress.c — `clothfit regress REC.h5... --from RESULTS.h5`: the
 * a-priori formulas (4.6) fitted to a study (thesis §4.2.3): least squares
 * on the per-recording optima of RESULTS, then the 8 coefficients
 * minimizing R (4.7), the mean error of the recordings simulated with the
 * formula's parameters (on per-recording error models, or Nelder-Mead on
 * R itself); prints Table 4.6. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

typedef struct {
  const char *from, *out, *max_evals, *workers, *search_word;
  cf_cli_model model;
  int evals, nw, restart, resumed; /* resumed: simulations taken from the journal */
  int search;                            /* CF_REGRESS_* */
  cf_pipeline_tasks tk; /* the journal (with -o) */
} reg_args;

static const cf_cli_option options[] = {
    CF_CLI_VALUE("--from", reg_args, from),       CF_CLI_VALUE("-o", reg_args, out),
    CF_CLI_VALUE("--max-evals", reg_args, max_evals), CF_CLI_VALUE("--workers", reg_args, workers),
    CF_CLI_VALUE("--search", reg_args, search_word), CF_CLI_FLAG("--restart", reg_args, restart),
    CF_CLI_MODEL_OPTIONS(reg_args, model),        CF_CLI_END};

static int check_values(const cf_cli_call *c, void *opts) {
  reg_args *a = opts;
  if (!c->n_pos) return cf_cli_fail("regress", "missing REC.h5 (see --help)");
  if (!a->from) return cf_cli_fail("regress", "missing --from RESULTS.h5 (the optima of clothfit sweep/fit)");
  a->evals = 400;
  if (a->max_evals && !cf_pipeline_parse_int(a->max_evals, 1, &a->evals))
    return cf_cli_fail("regress", "invalid --max-evals '%s': expected a count >= 1", a->max_evals);
  if (cf_cli_regress_search("regress", "--search", a->search_word, &a->search)) return 1;
  return cf_cli_workers("regress", a->workers, &a->nw);
}

/* The optima of --from into opt (before the journal hashes the file). */
static int read_optima(const reg_args *a, cf_results *opt) {
  cf_error err = {0, ""};
  return cf_results_read(a->from, opt, &err) ? cf_cli_fail("regress", "--from: %s", err.msg) : 0;
}

static int run(reg_args *a, const cf_fit_input *in, int n, const cf_results *opt, cf_results *res) {
  cf_error err = {0, ""};
  cf_cli_bar bar;
  cf_cli_bar_start(&bar, "regress",
                   cf_regress_progress_total(&(cf_regress_options){.search = a->search, .max_evals = a->evals}));
  int rc = cf_pipeline_regress(in, n, opt, a->from, 0, a->search, a->evals, a->nw, cf_pipeline_tasks_kept(&a->tk),
                               &bar.pp, &res->reg, &err);
  cf_cli_bar_end(&bar);
  return rc ? cf_cli_fail("regress", "%s", err.msg) : 0;
}

static void print_text(const reg_args *a, const cf_res_regression *g) {
  cf_cli_table_46(g);
  if (a->out) printf("results: %s\n", a->out);
}

static void print_json(const reg_args *a, const cf_res_regression *g) {
  const char *dn[4] = {"d0", "d1", "d2", "d3"}, *an[4] = {"a0", "a1", "a2", "a3"};
  json_t *j = json_object();
  for (int k = 0; k < 4; k++) cf_cli_json_num(j, dn[k], g->f.d[k]);
  for (int k = 0; k < 4; k++) cf_cli_json_num(j, an[k], g->f.a[k]);
  cf_cli_json_num(j, "R_cm", g->R);
  cf_cli_json_num(j, "E_cm", g->E);
  cf_cli_json_num(j, "R_start_cm", g->R_start);
  cf_cli_json_num(j, "evaluations", g->evaluations);
  cf_cli_json_num(j, "simulations", g->simulations);
  cf_cli_json_str(j, "search", g->search);
  cf_cli_json_num(j, "recordings", g->n_used);
  cf_cli_json_num(j, "tasks_resumed", a->resumed);
  cf_cli_json_str(j, "output", a->out);
  cf_cli_json_print(j);
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  reg_args *a = opts;
  int npos = c->n_pos;
  cf_results res, opt;
  cf_results_init(&res), cf_results_init(&opt);
  int rc = read_optima(a, &opt);
  const char **files = rc ? NULL : calloc((size_t)npos + 2, sizeof *files);
  if (!rc && !files) rc = cf_cli_fail("regress", "out of memory");
  for (int i = 0; !rc && i < npos; i++) files[i] = c->pos[i];
  if (!rc) files[npos] = a->from; /* what the run depends on: the recordings and the optima */
  rc = rc || cf_cli_outputs_begin(c, &(cf_pipeline_task_opts){a->out, NULL, a->restart}, files, npos + 1, NULL, a->nw,
                                  &a->tk, &res) || run(a, c->in, npos, &opt, &res);
  rc = cf_cli_outputs_end("regress", rc, a->out, &res, &a->tk, &a->resumed);
  free(files);
  if (!rc) print_text(a, &res.reg);
  if (!rc && c->json) print_json(a, &res.reg);
  cf_results_free(&res), cf_results_free(&opt);
  return rc;
}

const cf_cli_command cf_cli_cmd_regress = {
    .name = "regress", .summary = "fit the a-priori formulas (4.6)-(4.7) to a study's optima (Table 4.6)",
    .help = cf_cli_help_regress, .options = options, .opts_size = sizeof(reg_args), .max_pos = -1,
    .check = check_values, .loads = 1, .model_offset = offsetof(reg_args, model), .mpi = 1, .run = run_cmd};
