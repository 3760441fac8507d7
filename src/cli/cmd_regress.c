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
  int json, evals, nw, restart, resumed; /* resumed: simulations taken from the journal */
  int search;                            /* CF_REGRESS_* */
  cf_pipeline_tasks tk; /* the journal (with -o) */
} reg_args;

static int check_values(reg_args *a, int npos) {
  if (!npos) return cf_cli_fail("regress", "missing REC.h5 (see --help)");
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

static void report(const reg_args *a, const cf_res_regression *g) {
  cf_cli_table_46(g);
  if (a->out) printf("results: %s\n", a->out);
  if (!a->json) return;
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

static int run_argv(int argc, char **argv) {
  reg_args a;
  memset(&a, 0, sizeof a);
  const cf_cli_opt opts[] = {{"--from", &a.from, NULL},       {"-o", &a.out, NULL},
                             {"--max-evals", &a.max_evals, NULL}, {"--workers", &a.workers, NULL},
                             {"--search", &a.search_word, NULL},
                             {"--json", NULL, &a.json},       {"--restart", NULL, &a.restart},
                             CF_CLI_MODEL_OPTS(a.model),      {NULL, NULL, NULL}};
  const char **pos = calloc((size_t)argc + 1, sizeof *pos);
  int npos = 0;
  cf_fit_input *in = NULL;
  cf_results res, opt;
  cf_results_init(&res), cf_results_init(&opt);
  int rc = !pos || cf_cli_parse_argv("regress", argc, argv, opts, pos, argc, &npos) || check_values(&a, npos) ||
           cf_cli_load_inputs("regress", pos, npos, &a.model, &in) || read_optima(&a, &opt);
  const char **files = rc ? NULL : calloc((size_t)npos + 2, sizeof *files);
  if (!rc && !files) rc = cf_cli_fail("regress", "out of memory");
  for (int i = 0; !rc && i < npos; i++) files[i] = pos[i];
  if (!rc) files[npos] = a.from; /* what the run depends on: the recordings and the optima */
  rc = rc || cf_cli_tasks_begin("regress", &(cf_pipeline_task_opts){a.out, NULL, a.restart}, argc, argv, files, npos + 1,
                                NULL, &a.tk) ||
       cf_cli_results_begin("regress", a.out, &res, argc, argv, a.nw, NULL) || run(&a, in, npos, &opt, &res) ||
       cf_cli_results_write("regress", a.out, &res);
  a.resumed = cf_journal_used(a.tk.journal);
  rc = cf_cli_tasks_end("regress", &a.tk) || rc;
  free(files);
  if (!rc) report(&a, &res.reg);
  cf_results_free(&res), cf_results_free(&opt);
  cf_pipeline_inputs_free(in, npos);
  free(pos);
  return rc;
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  (void)opts;
  return run_argv(c->argc, c->argv);
}

const cf_cli_command cf_cli_cmd_regress = {
    .name = "regress",
    .summary = "fit the a-priori formulas (4.6)-(4.7) to a study's optima (Table 4.6)",
    .help = cf_cli_help_regress,
    .mpi = 1,
    .run = run_cmd,
};
