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

static const char *help =
    "usage: clothfit experiment aero|wam [--dataset DIR] [-o RESULTS.h5] [--recordings DIR]\n"
    "                                [--workers N] [--prune] [--prune-margin M] [--no-refine]\n"
    "                                [--start grid|apriori] [--search nelder-mead|trust|lm]\n"
    "                                [--max-evals N]\n"
    "                                [--regress-evals N] [--regress-search model|nelder-mead]\n"
    "                                [--no-maps] [--delta-grid A:B:N[*rho]]\n"
    "                                [--alpha-grid A:B:N[*rho]] [--no-report] [--restart]\n"
    "                                [--no-confidence] [--clouds] [--json]\n"
    "                                " CF_CLI_MODEL_USAGE "\n"
    "\n"
    "The aerodynamics study (thesis §4.2): ingest every Motive CSV of DIR (default\n"
    "datasets/aero-mini; or of DIR/recordings/ when DIR has none) with its sidecars\n"
    "NAME.meta.ini (or the [meta] of NAME.truth.ini; must give lattice = RxC and\n"
    "the density), NAME.map (marker mapping, unless --no-maps) and NAME.truth.ini\n"
    "([truth] delta, alpha: shown next to the fit); sweep the default (delta, alpha) grid of each recording,\n"
    "refine its optimum by Nelder-Mead on the whole recording (unless\n"
    "--no-refine), fit the a-priori formulas (4.6)-(4.7) when there are at least 4\n"
    "recordings, and print Tables A.1 (A.2: those of repetition II), 4.5 and 4.6.\n"
    "Then write the report of the results (as clothfit report: tables, figures,\n"
    "index.html) into RESULTS without .h5 (default reports/aero/), unless\n"
    "--no-report.\n"
    "\n"
    "Failed simulations are reported per recording as by clothfit sweep (stderr;\n"
    "--json failed_points, grid_points, failed_fraction, optimum_borders_failed,\n"
    "failed_evaluations per recording and in total).  A recording left without a\n"
    "finite optimum (every grid point failed) is left out of the means and the\n"
    "regression, and the command exits with status 1 naming it, after writing the\n"
    "results (with its failed points) and printing the tables.\n"
    "\n"
    "Each refined fit gets 95 % intervals for delta and alpha and a flag when it\n"
    "is not identifiable, as clothfit fit computes them (9 more simulations and a\n"
    "refit of at most 40 each with 3 x kappa, with a large beta, with the other\n"
    "rest metric (not for a rest of the cloth's measured size) and on the mesh one\n"
    "split finer per recording;\n"
    "--no-confidence skips them).  A fit the held kappa or beta check flags is\n"
    "refitted with that parameter free as well, as clothfit fit does, and the\n"
    "refit is the recording's result.  The fits still flagged are listed after\n"
    "the tables, and --json has delta_interval, alpha_interval, identifiable,\n"
    "kappa_shift, beta_shift, beta_checked, rest_shift, mesh_shift, kappa, beta,\n"
    "kappa_fitted, beta_fitted and freed_why per recording, and simulations (the\n"
    "grid's points, pruned ones counted whole, and every simulation of the fit,\n"
    "its confidence checks and refits); R_cm, E_cm and regression_simulations\n"
    "of the regression; and stage_seconds, the wall time of each stage (ingest,\n"
    "sweep, fit, confidence, refit, model check, regress, report).\n"
    "\n"
    "The study is crash-safe as clothfit sweep is: its finished grid points,\n"
    "Nelder-Mead fits, confidence stencil and regression simulations (and the\n"
    "WAM close look's map, model fits and remeshing simulations) go to\n"
    "RESULTS.h5.journal at once, and rerunning the same command (same dataset\n"
    "files, options and clothfit) computes only the others (--json:\n"
    "tasks_resumed); --restart discards a journal of another run.\n"
    "\n"
    "Under mpirun -n N (with Open MPI) the simulations of every step are spread\n"
    "over the N ranks; every rank reads the exports, rank 0 alone writes the\n"
    "ingested recordings, the results and the report, which equal those of one\n"
    "process.\n"
    "\n"
    "The WAM study (thesis §4.1), clothfit experiment wam: ingest every registered\n"
    "mesh sequence NAME.meshes/ of DIR (default datasets/wam-mini; or of\n"
    "DIR/recordings/) as clothfit ingest meshes does (dt 0.01 s, dropped camera\n"
    "frames left missing), with NAME.meta.ini (density, size, held = I,J) and\n"
    "NAME.truth.ini; a recording that cannot be ingested is reported and left out\n"
    "(the command then exits with status 1 after the rest).  Each recording is\n"
    "simulated on its own mesh (--split 1 unless given), swept on the default grid\n"
    "over its training window (the first half, §4.1.2) and fitted there by\n"
    "Nelder-Mead from the grid's best point, with the confidence checks as above;\n"
    "no regression.  Then, for light-cotton-fast (else the first recording with a\n"
    "fit): the sensitivity map of Figure 4.6 (10 x 10 simulations on [0, 2 delta*]\n"
    "x [0, 2 alpha*], the mean error on the testing window), the four cloth\n"
    "models of Table 4.3 fitted on its training window from its fit, and the\n"
    "remeshing check of §4.1.5: its fitted (delta, alpha) simulated on meshes twice\n"
    "as fine across, down and both (a 9 x 9 mesh: 9 x 17, 17 x 9, 17 x 17 nodes;\n"
    "the recorded nodes stay nodes, so the error is measured on them as on the\n"
    "fitting mesh) with the mean error on the testing window beside its fit's\n"
    "(the fitting mesh is not simulated again).  Prints Table 4.2 (delta, alpha,\n"
    "the mean error on the testing window per recording) beside the truth of\n"
    "NAME.truth.ini and the thesis' values, the comparison, and the remeshing\n"
    "table beside the thesis' (0.31, 0.37, 0.34, 0.35 cm); --json has it as\n"
    "remesh.  Default -o reports/wam.h5.  With --clouds the same study runs on the\n"
    "point clouds NAME.clouds/ of DIR instead (as clothfit ingest clouds reads them,\n"
    "with the held corners' track NAME.corners.csv and the size of NAME.meta.ini;\n"
    "the simulated cloth is the size's rectangle on the default 9 x 9 nodes),\n"
    "default -o reports/wam-clouds.h5; the bundled study's clouds are not\n"
    "committed: scripts/make-dataset.sh wam-mini makes them.\n"
    "\n"
    "  -o RESULTS.h5       default reports/aero.h5 or reports/wam.h5 (rewritten)\n"
    "  --recordings DIR    where the ingested REC.h5 go (default: RESULTS without\n"
    "                      .h5, plus -recordings/)\n"
    "  --workers N         worker processes (default 0 = all cores)\n"
    "  --prune             exact pruning of hopeless grid points (faster)\n"
    "  --prune-margin M    prune only points certain to exceed M times the best\n"
    "                      error (M >= 1; implies --prune), so that the report's\n"
    "                      error surfaces show the basin within M of the optimum\n"
    "  --max-evals N       Nelder-Mead evaluations per recording (default 100)\n"
    "  --start grid|apriori  refine from each recording's grid optimum (default:\n"
    "                      the sweep runs first) or from the a-priori formulas\n"
    "                      (4.10)-(4.11) at its size and speed (no sweep: no\n"
    "                      error surfaces in the report)\n"
    "  --search nelder-mead|trust|lm  the refinement's search, as clothfit fit's\n"
    "                      (default nelder-mead)\n"
    "  --clouds            wam: fit the point clouds NAME.clouds/, not the meshes\n"
    "  --regress-evals N   evaluations of R in the regression at most (default 100;\n"
    "                      each simulates every recording)\n"
    "  --regress-search model|nelder-mead  how the regression minimizes R, as\n"
    "                      clothfit regress --search (default model)\n"
    "  --delta-grid, --alpha-grid   the sweep's grid (see clothfit sweep --help)\n"
    CF_CLI_MODEL_HELP;

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

int cmd_experiment(int argc, char **argv) {
  if (cf_cli_wants_help(argc, argv)) return fputs(help, stdout), 0;
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
  int rc = cf_cli_parse("experiment", argc, argv, opts, pos, 2, &npos);
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
