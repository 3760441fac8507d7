/* cmd_experiment.c — `clothfit experiment aero|wam [--dataset DIR]`: the
 * studies of the thesis end to end.  aero (§4.2): ingest every Motive CSV
 * of the dataset (with its sidecars), sweep the (delta, alpha) grid of each
 * recording, refine the optima by Nelder-Mead, fit the a-priori formulas,
 * and print Tables A.1, 4.5 and 4.6.  wam (§4.1): ingest every registered
 * mesh sequence, fit each on its training window (the first half) from its
 * grid optimum, look closer at one (Figure 4.6's sensitivity map, Table
 * 4.3's cloth models, §4.1.5's remeshing) and print Table 4.2.  Everything goes to one results
 * file (and the recordings next to it).  The dataset's layout, the
 * options, the run and the --json fields are the library's (cf_pipeline.h
 * "study" and "experiment"); here are the progress bars, the notes, the
 * tables and the report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

typedef struct {
  cf_pipeline_experiment_text t; /* the options (the library reads them, cf_pipeline.h "experiment") */
  cf_pipeline_experiment x;      /* the study and its run */
  int no_report;
  char report_dir[4096];
  cf_cli_bar bar; /* the study's stages and the report's (the library times them) */
} exp_args;

static const cf_cli_option options[] = {
    CF_CLI_VALUE("--dataset", exp_args, t.dataset),        CF_CLI_VALUE("-o", exp_args, t.out),
    CF_CLI_VALUE("--recordings", exp_args, t.recordings),  CF_CLI_VALUE("--workers", exp_args, t.workers),
    CF_CLI_VALUE("--max-evals", exp_args, t.max_evals),    CF_CLI_VALUE("--regress-evals", exp_args, t.regress_evals),
    CF_CLI_VALUE("--regress-search", exp_args, t.regress_search), CF_CLI_FLAG("--prune", exp_args, t.prune),
    CF_CLI_VALUE("--prune-margin", exp_args, t.prune_margin), CF_CLI_FLAG("--no-refine", exp_args, t.no_refine),
    CF_CLI_VALUE("--search", exp_args, t.search),          CF_CLI_VALUE("--start", exp_args, t.start),
    CF_CLI_FLAG("--no-maps", exp_args, t.no_maps),         CF_CLI_FLAG("--no-report", exp_args, no_report),
    CF_CLI_FLAG("--restart", exp_args, t.restart),         CF_CLI_FLAG("--no-confidence", exp_args, t.no_confidence),
    CF_CLI_FLAG("--clouds", exp_args, t.clouds),           CF_CLI_VALUE("--delta-grid", exp_args, t.dgrid),
    CF_CLI_VALUE("--alpha-grid", exp_args, t.agrid),       CF_CLI_MODEL_OPTIONS(exp_args, t.model),
    CF_CLI_END};

/* The study's stages (cf_pipeline.h), each with its progress bar, and the
 * command's notes between them. */
static int run_study(exp_args *a) {
  cf_error err = {0, ""};
  cf_pipeline_experiment *x = &a->x;
  if (cf_pipeline_experiment_ingest(x, &err)) return cf_cli_fail("experiment", "%s", err.msg);
  cf_cli_note_rest("experiment", &x->model, x->in, x->n_in);
  cf_cli_note_driving("experiment", x->in, x->n_in);
  return cf_pipeline_experiment_study(x, &err) ? cf_cli_fail("experiment", "%s", err.msg) : 0;
}

/* The report folder: RESULTS without .h5. */
static void report_dir(exp_args *a) {
  snprintf(a->report_dir, sizeof a->report_dir, "%s", a->x.out);
  size_t n = strlen(a->report_dir);
  if (n > 3 && !strcmp(a->report_dir + n - 3, ".h5")) a->report_dir[n - 3] = 0;
  else snprintf(a->report_dir + n, sizeof a->report_dir - n, "-report");
}

/* The tables of the WAM study: 4.2, then the close look's comparison and
 * remeshing check. */
static void wam_tables(const cf_results *res) {
  cf_cli_table_42(res);
  for (int i = 0; i < res->n; i++)
    if (res->recs[i].has_compare) {
      printf("\nTable 4.3: the cloth models on %s (fitted on its training window)\n", res->recs[i].name);
      cf_cli_compare_text(&res->recs[i]);
    }
  for (int i = 0; i < res->n; i++)
    if (res->recs[i].has_remesh) printf("\n"), cf_cli_remesh_text(&res->recs[i]);
}

static void print_text(const exp_args *a, const cf_report_summary *rs) {
  const cf_pipeline_experiment *x = &a->x;
  const cf_results *res = &x->res;
  if (!x->regress) {
    printf("WAM study: %d recordings from %s\n\n", res->n, x->dataset);
    wam_tables(res);
  } else {
    printf("aerodynamics study: %d recordings from %s\n\n", res->n, x->dataset);
    cf_cli_table_a1(res);
    printf("\n");
    cf_cli_table_45(res);
  }
  if (res->reg.has) {
    printf("\n");
    cf_cli_table_46(&res->reg);
  } else if (x->regress) {
    printf("\n(no regression: it needs at least 4 recordings with an optimum, there are %d)\n", cf_pipeline_n_valid(res));
  }
  if (x->n_in < x->n)
    fprintf(stderr, "clothfit experiment: %d of %d recordings could not be ingested (the warnings above name them)\n",
            x->n - x->n_in, x->n);
  cf_cli_warn_failures("experiment", res, x->out);
  cf_cli_warn_grid_edges("experiment", res);
  cf_cli_warn_unidentifiable("experiment", res);
  printf("\nresults: %s\nrecordings: %s/\n", x->out, x->recdir);
  if (rs) printf("report: %s (%d tables, %d of %d figures)\n", rs->index, rs->tables, rs->figures, rs->figures_planned);
}

static void print_json(const exp_args *a, const cf_report_summary *rs) {
  json_t *j = json_object();
  cf_pipeline_fields f = cf_cli_json_fields(j);
  cf_pipeline_experiment_fields(&f, &a->x, rs ? rs->index : NULL);
  cf_cli_json_print(j);
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  exp_args *a = opts;
  cf_pipeline_experiment *x = &a->x;
  cf_error err = {0, ""};
  cf_results_init(&x->res);
  int rc = 0;
  if (c->n_pos != 1) rc = cf_cli_fail("experiment", "expected one experiment name: aero or wam (see --help)");
  if (!rc && cf_pipeline_experiment_parse(c->pos[0], &a->t, x, &err)) rc = cf_cli_fail("experiment", "%s", err.msg);
  cf_cli_bar_stages(&a->bar);
  if (!rc && cf_pipeline_experiment_begin(x, c->argc, c->argv, &a->bar.pp, &err)) rc = cf_cli_fail("experiment", "%s", err.msg);
  if (!rc) cf_cli_tasks_notes("experiment", &x->tk);
  rc = rc || run_study(a);
  if (cf_pipeline_experiment_end(x, &err)) rc = cf_cli_fail("experiment", "%s", err.msg) || rc;
  /* the report of what was written (it reads only the results) */
  cf_report_summary rs;
  int have_gnuplot = 0, rrc = 0;
  /* under mpirun, rank 0 alone writes the report and prints (the others are done) */
  int lead = cf_dist_rank() == 0;
  if (!rc && !a->no_report && lead) {
    report_dir(a);
    x->pp.stage(x->pp.user, "report", 1); /* timed as the study's stages are */
    rrc = cf_cli_report_write("experiment", x->out, &x->res, a->report_dir, x->workers, NULL, 0, &rs, &have_gnuplot);
    x->pp.stage(x->pp.user, NULL, 0);
  }
  const cf_report_summary *shown = a->no_report || rrc ? NULL : &rs;
  if (!rc && lead) print_text(a, shown);
  if (!rc && lead && c->json) print_json(a, shown);
  /* written whole, with the failed points; but a recording left without an optimum fails the study */
  if (!rc) rc = cf_cli_fail_no_optimum("experiment", &x->res, x->out) || x->n_in < x->n;
  /* the other ranks are done: a failed report needs no MPI_Abort */
  if (!rc && !a->no_report && lead) rc = cf_cli_collective_status(rrc ? 1 : cf_cli_report_status("experiment", &rs, have_gnuplot));
  cf_pipeline_experiment_free(x);
  return rc;
}

const cf_cli_command cf_cli_cmd_experiment = {
    .name = "experiment", .summary = "run a whole study: ingest, sweep, fit, regress (experiment aero)",
    .help = cf_cli_help_experiment, .options = options, .opts_size = sizeof(exp_args), .max_pos = 2, .mpi = 1,
    .run = run_cmd};
