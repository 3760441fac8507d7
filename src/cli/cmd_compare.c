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
    "                        [--max-evals N] [--search nelder-mead|trust|lm] [--workers N] [-o RESULTS.h5]\n"
    "                        [--restart] [--json]\n"
    "                        " CF_CLI_MODEL_USAGE "\n"
    "\n"
    "Fit each cloth model to the recording and compare them (thesis §4.1.4, Table\n"
    "4.3): inextensible (the thesis' model), quasi-inextensible (every edge's\n"
    "length held, shear by diagonal springs), elastic (a St. Venant-Kirchhoff\n"
    "membrane) and mass-spring (structural, shear and bending springs).  Each\n"
    "model's parameters (delta, alpha and its stiffnesses: quasi-inextensible\n"
    "k_shear, elastic and mass-spring k_stretch and k_shear, as log10) are fitted\n"
    "by the same Nelder-Mead on the training window, from the same start (by\n"
    "default the best point of the default (delta, alpha) grid of clothfit sweep\n"
    "over the training window, simulated with the inextensible model); then the\n"
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
    "  --start D,A     every fit's start instead of the grid's best point (the\n"
    "                  stiffnesses start at --k-stretch, --k-shear)\n"
    "  --max-evals N   simulations per fit (default 100 per fitted parameter)\n"
    "  --search nelder-mead|trust|lm  the fits' search, as clothfit fit's (default\n"
    "                  nelder-mead)\n"
    "  --workers N     worker processes (default 0: all cores)\n"
    "  -o RESULTS.h5   store the comparison (/recordings/NAME/compare, added to\n"
    "                  the file if it exists; clothfit inspect shows it); the\n"
    "                  grid start's points and each model's finished fit go to\n"
    "                  RESULTS.h5.journal as they finish, so a rerun after a\n"
    "                  crash computes only the missing ones\n"
    "  --restart       discard the journal of an earlier, different run\n"
    "  --json          also print the comparison as one JSON object: recording,\n"
    "                  train_window_s, test_window_s, best, models (each: model,\n"
    "                  status, reason, delta, alpha, k_stretch, k_shear, k_bend,\n"
    "                  fitted, train_error_cm, test_error_cm, test_std_cm,\n"
    "                  test_max_d_cm, sim_wall_s, iterations_per_step,\n"
    "                  evaluations, converged, fit_wall_s), tasks_resumed (taken\n"
    "                  from the journal)\n"
    CF_CLI_MODEL_HELP;

typedef struct {
  const char *models, *train, *start, *max_evals, *workers, *out, *search;
  cf_cli_model model;
  int json, nw, me, n, restart;
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

static int run(cmp_args *a, const cf_fit_input *in, cf_res_rec *rec) {
  cf_cli_bar bar;
  cf_error err = {0, ""};
  cf_cli_bar_stages(&bar);
  int rc = cf_pipeline_compare(in, a->list, a->n, a->f0, a->f1, a->d0, a->a0, a->me, a->nw, &a->tk, &bar.pp, rec,
                               &err);
  return rc ? cf_cli_fail("compare", "%s", err.msg) : 0;
}

int cmd_compare(int argc, char **argv) {
  if (cf_cli_wants_help(argc, argv)) return fputs(help, stdout), 0;
  cmp_args a;
  memset(&a, 0, sizeof a);
  const cf_cli_opt opts[] = {{"--models", &a.models, NULL},       {"--train", &a.train, NULL},
                             {"--start", &a.start, NULL},         {"--max-evals", &a.max_evals, NULL},
                             {"--workers", &a.workers, NULL},     {"-o", &a.out, NULL},
                             {"--json", NULL, &a.json},           {"--restart", NULL, &a.restart},
                             {"--search", &a.search, NULL},       CF_CLI_MODEL_OPTS(a.model),
                             {NULL, NULL, NULL}};
  const char *path = NULL;
  int npos = 0;
  cf_fit_input *in = NULL;
  cf_results res;
  cf_results_init(&res);
  int rc = cf_cli_parse("compare", argc, argv, opts, &path, 1, &npos) || check_values(&a);
  if (!rc && !path) rc = cf_cli_fail("compare", "missing REC.h5 (see --help)");
  if (!rc && a.model.model) rc = cf_cli_fail("compare", "--model is not an option of compare: give --models LIST");
  rc = rc || cf_cli_search("compare", a.search, NULL, 0) || cf_cli_load_inputs("compare", &path, 1, &a.model, &in) ||
       cf_cli_search("compare", a.search, in, 1);
  for (int i = 0; !rc && i < a.n; i++)
    if (a.list[i] >= CF_CLOTH_ELASTIC && cf_fit_target_has_obstacles(&in->tg))
      rc = cf_cli_fail("compare", "%s: the %s model has no contacts (the recording has a %s): leave it out of "
                       "--models", in->path, cf_cloth_model_name(a.list[i]), in->tg.stick ? "stick" : "table");
  rc = rc ||
       cf_cli_tasks_begin("compare", &(cf_pipeline_task_opts){a.out, NULL, a.restart}, argc, argv, &path, 1, NULL, &a.tk) ||
       cf_cli_results_begin("compare", a.out, &res, argc, argv, a.nw, NULL);
  cf_res_rec *rec = rc ? NULL : cf_results_rec(&res, in->name, 1);
  if (!rc && !rec) rc = cf_cli_fail("compare", "out of memory");
  rc = rc || run(&a, in, rec) || cf_cli_results_write("compare", a.out, &res);
  a.resumed = cf_journal_used(a.tk.journal);
  rc = cf_cli_tasks_end("compare", &a.tk) || rc;
  if (!rc) {
    cf_cli_compare_text(rec);
    if (a.out) printf("results: %s\n", a.out);
    if (a.json) {
      json_t *j = json_object();
      cf_cli_json_str(j, "recording", rec->recording);
      cf_cli_compare_json(j, &rec->compare);
      cf_cli_json_str(j, "output", a.out);
      cf_cli_json_num(j, "tasks_resumed", a.resumed);
      cf_cli_json_print(j);
    }
  }
  cf_results_free(&res);
  cf_pipeline_inputs_free(in, in ? 1 : 0);
  return rc;
}
