/* cmd_experiment.c — `clothfit experiment aero|wam [--dataset DIR]`: the
 * studies of the thesis end to end.  aero (§4.2): ingest every Motive CSV
 * of the dataset (with its sidecars), sweep the (delta, alpha) grid of each
 * recording, refine the optima by Nelder-Mead, fit the a-priori formulas,
 * and print Tables A.1, 4.5 and 4.6.  wam (§4.1): ingest every registered
 * mesh sequence, fit each on its training window (the first half) from its
 * grid optimum, look closer at one (Figure 4.6's sensitivity map, Table
 * 4.3's cloth models, §4.1.5's remeshing) and print Table 4.2.  Everything goes to one results
 * file (and the recordings next to it).  The dataset's layout and the
 * study's stages are the library's (cf_pipeline.h "study"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

static const char *help =
    "usage: clothfit experiment aero|wam [--dataset DIR] [-o RESULTS.h5] [--recordings DIR]\n"
    "                                [--workers N] [--prune] [--prune-margin M] [--no-refine]\n"
    "                                [--start grid|apriori] [--search nelder-mead|trust]\n"
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
    "  --search nelder-mead|trust  the refinement's search, as clothfit fit's\n"
    "                      (default nelder-mead)\n"
    "  --clouds            wam: fit the point clouds NAME.clouds/, not the meshes\n"
    "  --regress-evals N   evaluations of R in the regression at most (default 100;\n"
    "                      each simulates every recording)\n"
    "  --regress-search model|nelder-mead  how the regression minimizes R, as\n"
    "                      clothfit regress --search (default model)\n"
    "  --delta-grid, --alpha-grid   the sweep's grid (see clothfit sweep --help)\n"
    CF_CLI_MODEL_HELP;

/* What sets the two studies apart; the stages are the same. */
typedef struct {
  const char *name, *dataset, *out;
  double train;   /* the training window: the first `train` of each recording */
  int keep_going; /* a source that cannot be ingested is left out (else fatal) */
  int regress;    /* the a-priori formulas of §4.2.3 */
  const char *detail; /* the recording the close look (cf_pipeline_study_detail) is of; NULL: none */
} experiment;
static const experiment experiments[] = {
    {"aero", "datasets/aero-mini", "reports/aero.h5", 1, 0, 1, NULL},
    {"wam", "datasets/wam-mini", "reports/wam.h5", 0.5, 1, 0, "light-cotton-fast"},
};
/* The WAM study on the point clouds of the same recordings (--clouds). */
static const char *wam_clouds_out = "reports/wam-clouds.h5";
/* The sensitivity map's points per axis (thesis Figure 4.6: 100 simulations). */
#define WAM_MAP_POINTS 10

typedef struct {
  const experiment *x;
  int n_in;     /* recordings ingested (in[0..n_in)) */
  const char *dataset, *out, *recdir, *workers, *max_evals, *reg_evals, *dgrid, *agrid, *prune_margin, *search, *start;
  const char *reg_search; /* --regress-search */
  int rsearch;            /* CF_REGRESS_* */
  cf_cli_model model;
  int prune, no_refine, no_maps, no_report, json, nw, evals, revals, restart, no_conf, clouds;
  double pruning; /* cf_cli_prune */
  char report_dir[4096];
  cf_pipeline_grid gd, ga;
  char recdir_buf[4096], dataset_buf[4200];
  char **csv;   /* the dataset's CSV files, sorted */
  int n;
  long resumed; /* tasks of the journal taken from it: grid points, fits, stencil and regression simulations */
  cf_cli_bar bar;   /* the study's stages and the report's, with their wall times */
} exp_args;

static int check_values(exp_args *a, const char **pos, int npos) {
  if (npos != 1) return cf_cli_fail("experiment", "expected one experiment name: aero or wam (see --help)");
  for (unsigned k = 0; k < sizeof experiments / sizeof *experiments; k++)
    if (!strcmp(pos[0], experiments[k].name)) a->x = &experiments[k];
  if (!a->x) return cf_cli_fail("experiment", "unknown experiment '%s' (available: aero, wam)", pos[0]);
  if (a->clouds && a->x->regress)
    return cf_cli_fail("experiment", "--clouds: the aerodynamics study's recordings are Motive exports (it is an "
                       "option of experiment wam)");
  if (!a->dataset) a->dataset = a->x->dataset;
  if (!a->out) a->out = a->clouds ? wam_clouds_out : a->x->out;
  if (cf_cli_prune("experiment", a->prune, a->prune_margin, &a->pruning)) return 1;
  if (a->start && strcmp(a->start, "grid") && strcmp(a->start, "apriori"))
    return cf_cli_fail("experiment", "invalid --start '%s': expected grid or apriori", a->start);
  if (cf_cli_search("experiment", a->search, NULL, 0)) return 1;
  if (cf_cli_regress_search("experiment", "--regress-search", a->reg_search, &a->rsearch)) return 1;
  /* Regression budget: on the bundled study (experiment aero --prune, 32
   * recordings) Nelder-Mead on R found its best point at evaluation 92 and
   * converged (simplex size 1e-5) at 212 without improving on it, R 1.387
   * -> 1.355 cm (clothfit regress --max-evals 400, 2026-11-26); 100
   * evaluations give the same coefficients at half the 186 s that 200 took.
   * --regress-evals raises it for a study that needs more. */
  a->evals = 100, a->revals = 100;
  if (a->max_evals && !cf_pipeline_parse_int(a->max_evals, 1, &a->evals))
    return cf_cli_fail("experiment", "invalid --max-evals '%s': expected a count >= 1", a->max_evals);
  if (a->reg_evals && !cf_pipeline_parse_int(a->reg_evals, 1, &a->revals))
    return cf_cli_fail("experiment", "invalid --regress-evals '%s': expected a count >= 1", a->reg_evals);
  if (cf_cli_grids("experiment", a->dgrid, a->agrid, &a->gd, &a->ga)) return 1;
  if (cf_cli_model_apply("experiment", &a->model, NULL, 0)) return 1; /* before anything is written */
  if (!a->recdir) {
    size_t l = strlen(a->out);
    l -= l > 3 && !strcmp(a->out + l - 3, ".h5") ? 3 : 0;
    snprintf(a->recdir_buf, sizeof a->recdir_buf, "%.*s-recordings", (int)l, a->out);
    a->recdir = a->recdir_buf;
  }
  return cf_cli_workers("experiment", a->workers, &a->nw);
}

/* The *.csv files of the dataset folder (or of its recordings/ subfolder
 * when it has none itself), sorted. */
static int list_csv(exp_args *a) {
  cf_error err = {0, ""};
  int rc = cf_pipeline_dataset_list(a->dataset, a->clouds, &a->csv, &a->n, a->dataset_buf, sizeof a->dataset_buf, &err);
  a->dataset = a->dataset_buf;
  return rc ? cf_cli_fail("experiment", "%s", err.msg) : 0;
}

/* What the study's results depend on, for the journal's key. */
static int input_files(const exp_args *a, char ***files, int *n) {
  cf_error err = {0, ""};
  return cf_pipeline_dataset_files(a->csv, a->n, files, n, &err) ? cf_cli_fail("experiment", "%s", err.msg) : 0;
}

/* The recording named `name` if it has a fit, else the first that has one
 * (NULL: none). */
static const cf_fit_input *detail_of(const char *name, const cf_fit_input *in, int n, cf_results *res) {
  const cf_fit_input *first = NULL;
  for (int i = 0; i < n; i++) {
    if (!cf_results_rec(res, in[i].name, 0)->has_fit) continue;
    if (!strcmp(in[i].name, name)) return &in[i];
    if (!first) first = &in[i];
  }
  return first;
}

/* The study's stages (cf_pipeline.h), each with its progress bar. */
static int run_study(exp_args *a, cf_fit_input *in, cf_pipeline_tasks *tk, cf_results *res) {
  cf_error err = {0, ""};
  const cf_fit_journal *kept = cf_pipeline_tasks_kept(tk);
  cf_cli_bar *bar = &a->bar;
  cf_cli_bar_stages(bar);
  const experiment *x = a->x;
  if (cf_pipeline_study_ingest(a->csv, a->n, a->recdir, !a->no_maps, x->keep_going, in, &a->n_in, &bar->pp, res,
                               &err))
    return cf_cli_fail("experiment", "%s", err.msg);
  int n = a->n_in;
  if (cf_cli_model_apply("experiment", &a->model, in, n)) return 1;
  cf_cli_note_driving("experiment", in, n);
  if (cf_cli_search("experiment", a->search, in, n)) return 1;
  int grid = !a->start || !strcmp(a->start, "grid");
  int rc = grid ? cf_pipeline_study_sweep(in, n, &a->gd, &a->ga, x->train, a->nw, a->pruning, tk, &bar->pp, res, &err)
                : CF_OK;
  if (!rc && !a->no_refine)
    rc = cf_pipeline_study_refine(in, n, x->train, a->evals, a->nw, !a->no_conf, kept, &bar->pp, res, &err);
  if (!rc && x->regress) rc = cf_pipeline_study_regress(in, n, a->out, a->rsearch, a->revals, a->nw, kept, &bar->pp, res, &err);
  const cf_fit_input *d = x->detail ? detail_of(x->detail, in, n, res) : NULL;
  if (!rc && d)
    rc = cf_pipeline_study_detail(d, WAM_MAP_POINTS, a->evals, a->nw, tk, &bar->pp, cf_results_rec(res, d->name, 0),
                                  &err);
  return rc ? cf_cli_fail("experiment", "%s", err.msg) : 0;
}

/* The settings of this run, kept as the config text of the provenance. */
static char *settings(const exp_args *a) {
  size_t size = 1000 + strlen(a->dataset) + strlen(a->recdir) + (a->dgrid ? strlen(a->dgrid) : 0) +
                (a->agrid ? strlen(a->agrid) : 0);
  for (int i = 0; i < a->n; i++) size += strlen(a->csv[i]) + 4;
  char *t = malloc(size);
  if (!t) return NULL;
  const cf_cli_model *m = &a->model; /* checked: short numbers */
  const char *refine = a->no_refine                                   ? "no"
                       : a->search && !strcmp(a->search, "trust") ? "trust-region, training window"
                                                                      : "nelder-mead, training window";
  int k = snprintf(t, size, "[experiment]\nname = %s\nsources = %s\ntraining = %g\ndataset = %s\nrecordings = %s\ndelta_grid = %s\nalpha_grid = %s\n"
                   "prune = %g\nstart = %s\nrefine = %s\nmax_evals = %d\nregress_evals = %d\nregress_search = %s\n"
                   "maps = %d\ndt = 0.01\n"
                   "kappa = %s\nbeta = %s\ntol = %s\nmax_iter = %s\nmodel = %s\nrest = %s\nsplit = %s\nsubsteps = %s\n"
                   "initial = %s\nfiles =",
                   a->x->name, a->clouds ? "point clouds" : a->x->regress ? "motive exports" : "registered meshes",
                   a->x->train, a->dataset, a->recdir, a->dgrid ? a->dgrid : "0.05:1:15*rho", a->agrid ? a->agrid : "0.05:4:16*rho",
                   a->pruning, a->start ? a->start : "grid", refine, a->evals, a->revals,
                   cf_regress_search_name(a->rsearch), !a->no_maps, m->kappa ? m->kappa : CF_CLI_FIT_KAPPA,
                   m->beta ? m->beta : "0",
                   m->tol ? m->tol : CF_CLI_FIT_TOL, m->max_iter ? m->max_iter : "50",
                   m->model ? m->model : "inextensible",
                   m->rest ? m->rest : "size (first-frame where a recording gives no size)", m->split ? m->split : "1 for a mesh recording, 2 for markers and clouds", m->substeps ? m->substeps : "1", m->initial ? m->initial : "rest");
  for (int i = 0; i < a->n && k > 0 && (size_t)k < size; i++) k += snprintf(t + k, size - k, "\n  %s", a->csv[i]);
  if (k > 0 && (size_t)k < size) snprintf(t + k, size - k, "\n");
  return t;
}

/* The report folder: RESULTS without .h5. */
static void report_dir(exp_args *a) {
  snprintf(a->report_dir, sizeof a->report_dir, "%s", a->out);
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

static void report(const exp_args *a, const cf_results *res, const cf_report_summary *rs) {
  if (!a->x->regress) {
    printf("WAM study: %d recordings from %s\n\n", res->n, a->dataset);
    wam_tables(res);
  } else {
    printf("aerodynamics study: %d recordings from %s\n\n", res->n, a->dataset);
    cf_cli_table_a1(res);
    printf("\n");
    cf_cli_table_45(res);
  }
  if (res->reg.has) {
    printf("\n");
    cf_cli_table_46(&res->reg);
  } else if (a->x->regress) {
    printf("\n(no regression: it needs at least 4 recordings with an optimum, there are %d)\n", cf_pipeline_n_valid(res));
  }
  if (a->n_in < a->n)
    fprintf(stderr, "clothfit experiment: %d of %d recordings could not be ingested (the warnings above name them)\n",
            a->n - a->n_in, a->n);
  cf_cli_warn_failures("experiment", res, a->out);
  cf_cli_warn_grid_edges("experiment", res);
  cf_cli_warn_unidentifiable("experiment", res);
  printf("\nresults: %s\nrecordings: %s/\n", a->out, a->recdir);
  if (rs) printf("report: %s (%d tables, %d of %d figures)\n", rs->index, rs->tables, rs->figures, rs->figures_planned);
  if (!a->json) return;
  json_t *j = json_object();
  cf_cli_json_recordings(j, res);
  cf_cli_json_failure_totals(j, res);
  if (res->reg.has) {
    cf_cli_json_num(j, "R_cm", res->reg.R);
    cf_cli_json_num(j, "E_cm", res->reg.E);
    cf_cli_json_num(j, "regression_simulations", res->reg.simulations);
  }
  for (int i = 0; i < res->n; i++) /* the close look's remeshing check (experiment wam) */
    if (res->recs[i].has_remesh) {
      json_t *m = cf_cli_json_object(j, "remesh");
      cf_cli_json_str(m, "recording", res->recs[i].name);
      cf_cli_remesh_json(m, &res->recs[i].remesh);
    }
  cf_cli_bar_json(&a->bar, j, "stage_seconds");
  cf_cli_json_num(j, "tasks_resumed", a->resumed);
  cf_cli_json_str(j, "output", a->out);
  if (rs) cf_cli_json_str(j, "report", rs->index);
  cf_cli_json_print(j);
}

int cmd_experiment(int argc, char **argv) {
  if (cf_cli_wants_help(argc, argv)) return fputs(help, stdout), 0;
  exp_args a;
  memset(&a, 0, sizeof a);
  const cf_cli_opt opts[] = {{"--dataset", &a.dataset, NULL},  {"-o", &a.out, NULL},
                             {"--recordings", &a.recdir, NULL}, {"--workers", &a.workers, NULL},
                             {"--max-evals", &a.max_evals, NULL}, {"--regress-evals", &a.reg_evals, NULL},
                             {"--regress-search", &a.reg_search, NULL},
                             {"--prune", NULL, &a.prune},       {"--prune-margin", &a.prune_margin, NULL},
                             {"--no-refine", NULL, &a.no_refine}, {"--search", &a.search, NULL},
                             {"--start", &a.start, NULL},
                             {"--no-maps", NULL, &a.no_maps},   {"--json", NULL, &a.json},
                             {"--no-report", NULL, &a.no_report}, {"--restart", NULL, &a.restart},
                             {"--no-confidence", NULL, &a.no_conf}, {"--clouds", NULL, &a.clouds},
                             {"--delta-grid", &a.dgrid, NULL},  {"--alpha-grid", &a.agrid, NULL},
                             CF_CLI_MODEL_OPTS(a.model),        {NULL, NULL, NULL}};
  const char *pos[2];
  int npos = 0;
  cf_fit_input *in = NULL;
  cf_results res;
  cf_results_init(&res);
  char *text = NULL;
  int rc = cf_cli_parse("experiment", argc, argv, opts, pos, 2, &npos) || check_values(&a, pos, npos) || list_csv(&a);
  if (!rc && !(in = calloc((size_t)a.n, sizeof *in))) rc = cf_cli_fail("experiment", "out of memory");
  if (!rc) text = settings(&a);
  cf_pipeline_tasks tk;
  memset(&tk, 0, sizeof tk);
  char **inputs = NULL;
  int n_inputs = 0;
  rc = rc || input_files(&a, &inputs, &n_inputs) ||
       cf_cli_tasks_begin("experiment", &(cf_pipeline_task_opts){a.out, NULL, a.restart}, argc, argv,
                          (const char *const *)inputs, n_inputs, text, &tk);
  /* a fresh results file: the study is recomputed whole (but for the journal's grid points) */
  rc = rc || (cf_pipeline_results_stamp(&res, argc, argv, a.nw, text), 0) || run_study(&a, in, &tk, &res) ||
       cf_cli_results_write("experiment", a.out, &res);
  a.resumed = cf_journal_used(tk.journal);
  rc = cf_cli_tasks_end("experiment", &tk) || rc;
  cf_strings_free(inputs, n_inputs);
  /* the report of what was written (it reads only the results) */
  cf_report_summary rs;
  int have_gnuplot = 0, rrc = 0;
  /* under mpirun, rank 0 alone writes the report and prints (the others are done) */
  int lead = cf_dist_rank() == 0;
  if (!rc && !a.no_report && lead) {
    report_dir(&a);
    a.bar.pp.stage(a.bar.pp.user, "report", 1); /* timed as the study's stages are */
    rrc = cf_cli_report_write("experiment", a.out, &res, a.report_dir, a.nw, NULL, 0, &rs, &have_gnuplot);
    a.bar.pp.stage(a.bar.pp.user, NULL, 0);
  }
  if (!rc && lead) report(&a, &res, a.no_report || rrc ? NULL : &rs);
  /* written whole, with the failed points; but a recording left without an optimum fails the study */
  if (!rc) rc = cf_cli_fail_no_optimum("experiment", &res, a.out) || a.n_in < a.n;
  /* the other ranks are done: a failed report needs no MPI_Abort */
  if (!rc && !a.no_report && lead) rc = cf_cli_collective_status(rrc ? 1 : cf_cli_report_status("experiment", &rs, have_gnuplot));
  cf_results_free(&res);
  cf_pipeline_inputs_free(in, a.n);
  cf_strings_free(a.csv, a.n);
  free(text);
  return rc;
}
