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
  int no_report, json;
  char report_dir[4096];
  cf_cli_bar bar; /* the study's stages and the report's (the library times them) */
} exp_args;

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

static void report(const exp_args *a, const cf_report_summary *rs) {
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
  if (!a->json) return;
  json_t *j = json_object();
  cf_pipeline_fields f = cf_cli_json_fields(j);
  cf_pipeline_experiment_fields(&f, x, rs ? rs->index : NULL);
  cf_cli_json_print(j);
}

static int run_argv(int argc, char **argv) {
  exp_args a;
  memset(&a, 0, sizeof a);
  cf_pipeline_experiment_text *t = &a.t;
  const cf_cli_opt opts[] = {{"--dataset", &t->dataset, NULL},  {"-o", &t->out, NULL},
                             {"--recordings", &t->recordings, NULL}, {"--workers", &t->workers, NULL},
                             {"--max-evals", &t->max_evals, NULL}, {"--regress-evals", &t->regress_evals, NULL},
                             {"--regress-search", &t->regress_search, NULL},
                             {"--prune", NULL, &t->prune},       {"--prune-margin", &t->prune_margin, NULL},
                             {"--no-refine", NULL, &t->no_refine}, {"--search", &t->search, NULL},
                             {"--start", &t->start, NULL},
                             {"--no-maps", NULL, &t->no_maps},   {"--json", NULL, &a.json},
                             {"--no-report", NULL, &a.no_report}, {"--restart", NULL, &t->restart},
                             {"--no-confidence", NULL, &t->no_confidence}, {"--clouds", NULL, &t->clouds},
                             {"--delta-grid", &t->dgrid, NULL},  {"--alpha-grid", &t->agrid, NULL},
                             CF_CLI_MODEL_OPTS(t->model),        {NULL, NULL, NULL}};
  const char *pos[2];
  int npos = 0;
  cf_pipeline_experiment *x = &a.x;
  cf_error err = {0, ""};
  cf_results_init(&x->res);
  int rc = cf_cli_parse_argv("experiment", argc, argv, opts, pos, 2, &npos);
  if (!rc && npos != 1) rc = cf_cli_fail("experiment", "expected one experiment name: aero or wam (see --help)");
  if (!rc && cf_pipeline_experiment_parse(pos[0], t, x, &err)) rc = cf_cli_fail("experiment", "%s", err.msg);
  cf_cli_bar_stages(&a.bar);
  if (!rc && cf_pipeline_experiment_begin(x, argc, argv, &a.bar.pp, &err)) rc = cf_cli_fail("experiment", "%s", err.msg);
  if (!rc) cf_cli_tasks_notes("experiment", &x->tk);
  rc = rc || run_study(&a);
  if (cf_pipeline_experiment_end(x, &err)) rc = cf_cli_fail("experiment", "%s", err.msg) || rc;
  /* the report of what was written (it reads only the results) */
  cf_report_summary rs;
  int have_gnuplot = 0, rrc = 0;
  /* under mpirun, rank 0 alone writes the report and prints (the others are done) */
  int lead = cf_dist_rank() == 0;
  if (!rc && !a.no_report && lead) {
    report_dir(&a);
    x->pp.stage(x->pp.user, "report", 1); /* timed as the study's stages are */
    rrc = cf_cli_report_write("experiment", x->out, &x->res, a.report_dir, x->workers, NULL, 0, &rs, &have_gnuplot);
    x->pp.stage(x->pp.user, NULL, 0);
  }
  if (!rc && lead) report(&a, a.no_report || rrc ? NULL : &rs);
  /* written whole, with the failed points; but a recording left without an optimum fails the study */
  if (!rc) rc = cf_cli_fail_no_optimum("experiment", &x->res, x->out) || x->n_in < x->n;
  /* the other ranks are done: a failed report needs no MPI_Abort */
  if (!rc && !a.no_report && lead) rc = cf_cli_collective_status(rrc ? 1 : cf_cli_report_status("experiment", &rs, have_gnuplot));
  cf_pipeline_experiment_free(x);
  return rc;
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  (void)opts;
  return run_argv(c->argc, c->argv);
}

const cf_cli_command cf_cli_cmd_experiment = {
    .name = "experiment",
    .summary = "run a whole study: ingest, sweep, fit, regress (experiment aero)",
    .help = cf_cli_help_experiment,
    .mpi = 1,
    .run = run_cmd,
};
