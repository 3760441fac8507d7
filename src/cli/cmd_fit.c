/* cmd_fit.c — `clothfit fit REC.h5 [--params delta,alpha[,mu][,kappa][,beta]] [--start
 * grid|apriori|D,A] [--train A:B] [--kappa K] [--beta B] [--tol T] [--json]`:
 * Nelder-Mead on (delta, alpha) (thesis §4.1.2, docs/design.md §8), and mu, kappa,
 * beta when asked, over a training
 * window with the other model parameters held, reporting the errors on the
 * training and testing windows.  The JSON keys delta, alpha, mu,
 * mean_error_cm, mean_std_cm, method and evaluations are fixed (docs/design.md §2);
 * mean_error_cm / mean_std_cm are over the whole recording. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "fit_cli.h"

static const char *help =
    "usage: clothfit fit REC.h5 [--params delta,alpha[,mu][,kappa][,beta]]\n"
    "                    [--start grid|apriori|D,A]\n"
    "                    [--train A:B] [--max-evals N] [--workers N] [--prune]\n"
    "                    [--delta-grid A:B:N[*rho]] [--alpha-grid A:B:N[*rho]] [--mu-grid A:B:N]\n"
    "                    [--polish quadratic|none] [--search nelder-mead|trust]\n"
    "                    " CF_CLI_MODEL_USAGE "\n"
    "                    [-o RESULTS.h5] [--restart] [--no-confidence] [--profile] [--json]\n"
    "\n"
    "Fit the aerodynamic parameters (delta, alpha) of the inextensible model to a\n"
    "recording by Nelder-Mead (GSL nmsimplex2) on the mean error over a training\n"
    "window, and report the errors on the training and testing windows and on the\n"
    "whole recording (cm).  The other model parameters are held (--kappa, --beta,\n"
    "--tol, --max-iter).  A converged simplex is restarted at its best point (a\n"
    "fresh simplex of the first steps, at most twice, while a restart lowers the\n"
    "error by more than 1 %), within --max-evals.\n"
    "\n"
    "When the simulation at the start fails, the next start is tried, in order: the\n"
    "grid optimum (sweeping the default grid), the a-priori prediction (with the\n"
    "cloth size), the centre of the parameter box (delta = rho/2, alpha = 2 rho);\n"
    "when every start fails, fit exits with status 1 naming the recording and the\n"
    "starts tried.  Failed grid points and failed Nelder-Mead evaluations are\n"
    "reported (stderr warnings, as in clothfit sweep --help) and counted in the JSON\n"
    "and in -o.\n"
    "\n"
    "A laid cloth's error is rough in the parameters (where it lands and sticks\n"
    "depends on the solver's path), and the simplex may stop in a dip of that\n"
    "noise.  So on a recording with a table the optimum is polished: a quadratic\n"
    "is fitted by least squares to the training error on the 3^n points around\n"
    "it (delta, alpha +-20 %, mu +-max(20 %, 0.1)) and 4 replicates of its centre\n"
    "at 0.8-1.2 x the solver's tolerance, and its minimum (held at the bounds 0)\n"
    "is the fit.  Nelder-Mead's optimum is kept, and why is said, when the\n"
    "quadratic is no bowl, misses the design by more than the replicates' spread\n"
    "explains (lack-of-fit F test, 5 %), or its minimum lies outside the design\n"
    "even after moving it there once.  31 simulations (13 without mu) per design;\n"
    "docs/contacts.md has the measurements.\n"
    "\n"
    "How sure the fit is: 9 more simulations on a 3 x 3 stencil around the optimum\n"
    "(+-30 %) give a quadratic model of the training error, and a jackknife over 8\n"
    "time blocks of the training window the spread of its minimum: 95 % intervals\n"
    "for delta and alpha, and a flag when the fit is not identifiable (the error\n"
    "surface is flat or a saddle there, its minimum lies far from the fit, or an\n"
    "interval is wider than +-50 %).  Then Nelder-Mead from the fit with 3 x the\n"
    "held kappa, then with the held beta raised to kappa x the training window's\n"
    "length, then with the other rest metric (--rest first-frame or flat; not with\n"
    "size, the cloth's measured size), then on the mesh one --split finer (the\n"
    "convergence check; at most 40 simulations each): when the fit moves by more\n"
    "than 25 % of delta or alpha, it depends on the bending stiffness, the damping,\n"
    "the lengths assumed or the mesh and is flagged too.\n"
    "A kappa or beta fitted (--params) is not checked so: the stencil and the\n"
    "other checks hold it at its fitted value.  A fit that the held kappa or beta\n"
    "check flags is refitted from its optimum with that parameter free as well\n"
    "(its log10; then, if the beta check flags the refit, with beta free too), and\n"
    "the refit, judged again, is the result: the output says so (\"refitted\";\n"
    "--json freed_why, the first fit's verdict).\n"
    "The intervals then add the moves of these checks (each one's move of delta\n"
    "and alpha, in quadrature with the jackknife's half-width): the assumptions\n"
    "move a fit more than the noise does.  And when the recorded cloth stretches\n"
    "or shears (with the measured size, --rest size: neighbouring markers more\n"
    "than 2 % farther apart than on the flat sheet, which an inextensible cloth\n"
    "cannot be), the model, not the noise, sets the error: the other cloth models\n"
    "are fitted as clothfit compare fits them, the fit is flagged as effective\n"
    "values of a model that does not fit this cloth, naming the models that test\n"
    "better (--json model_limited, better_model).\n"
    "Calibration: on 20 recordings made by the model with known parameters, the\n"
    "intervals hold the truth in at least 16\n"
    "(tests/test_confidence.c: 19 of 20 on one machine; docs/confidence.md).\n"
    "--no-confidence skips it.\n"
    "\n"
    "  --params delta,alpha  the parameters fitted (default)\n"
    "  --params delta,alpha,mu  also mu, the cloth's friction on the recording's\n"
    "                        table (needs /table: ingest --table-height and\n"
    "                        --table-extent); the grid start sweeps (delta, alpha,\n"
    "                        mu) over the --mu-grid too (default 0:2:5: mu = 0,\n"
    "                        0.5, .., 2) and starts from its best point,\n"
    "                        Nelder-Mead then moves all three (mu in [0, 3],\n"
    "                        simplex step 0.2); the confidence intervals are of\n"
    "                        delta and alpha at the fitted mu; with another start\n"
    "                        --mu M is the start of mu's fit (default 0.5)\n"
    "  --params delta,alpha,kappa,beta  also the bending stiffness kappa (N m)\n"
    "                        and/or the Rayleigh damping on K beta (N m s), as\n"
    "                        log10 from the held --kappa and --beta (beta 0:\n"
    "                        from kappa x 0.01 s), simplex step a factor 3,\n"
    "                        bounds kappa in [1e-7, 0.1], beta in [1e-8, 0.1];\n"
    "                        the grid start sweeps (delta, alpha) at the held\n"
    "                        values, Nelder-Mead then moves all; the polish, the\n"
    "                        confidence stencil and its checks hold the fitted\n"
    "                        values (the kappa x3 and the large-beta checks of a\n"
    "                        fitted one are skipped); not with --model\n"
    "                        mass-spring (its bending is k-bend springs).  Any\n"
    "                        order; mu, kappa, beta may be combined\n"
    "  --start grid          start from the grid optimum (default: runs the sweep of\n"
    "                        `clothfit sweep` on the training window first; its\n"
    "                        grid: --delta-grid, --alpha-grid, --mu-grid as there)\n"
    "  --start apriori       start from the a-priori formula (4.10)-(4.11), thesis\n"
    "                        Table 4.6 repetition I (needs the cloth size)\n"
    "  --start D,A           start from delta = D, alpha = A\n"
    "  --train A:B           training window as fractions of the recording\n"
    "                        (default 0:0.5, the first half); testing = the rest\n"
    "  --max-evals N         Nelder-Mead evaluations at most (default 200)\n"
    "  --workers N, --prune  for the grid start (see clothfit sweep --help)\n"
    "  -o RESULTS.h5         store the fit, the per-frame errors at the optimum and\n"
    "                        the grid (added to the file if it exists); the grid\n"
    "                        start's points, the finished fit and the confidence\n"
    "                        stencil's simulations go to RESULTS.h5.journal as\n"
    "                        they finish, so a rerun after a crash computes only\n"
    "                        the missing ones\n"
    "  --restart             discard the journal of an earlier, different run\n"
    "  --json                one JSON object on the last line: simulations (the\n"
    "                        grid's points, pruned ones counted whole, and every\n"
    "                        simulation of the fit and its confidence checks),\n"
    "                        delta, alpha, mu\n"
    "                        (null unless fitted), fitted (the list of the\n"
    "                        parameters fitted), kappa and beta (fitted or held),\n"
    "                        start_kappa, start_beta (null unless fitted),\n"
    "                        mean_error_cm, mean_std_cm (whole recording),\n"
    "                        method, evaluations, and train_/test_ errors, start,\n"
    "                        starts_tried, failed_evaluations, failed_points,\n"
    "                        grid_points, failed_fraction, optimum_borders_failed\n"
    "                        (this run's grid; null without), kappa, beta, tol,\n"
    "                        max_iter, delta_interval, alpha_interval ([lo, hi]\n"
    "                        or null), identifiable (true, false or null: not\n"
    "                        computed or unknown), identifiable_why, kappa_shift\n"
    "                        ([delta, alpha]: the fit's move refitted with kappa\n"
    "                        x3, fractions; null: not checked), beta_shift (the\n"
    "                        same with beta = kappa x the window's length),\n"
    "                        beta_checked (that beta; null: not checked),\n"
    "                        kappa_check_skipped, beta_check_skipped (true:\n"
    "                        fitted, so not checked),\n"
    "                        mesh_shift (the same one split finer),\n"
    "                        interval_sys ([delta, alpha]: the checks' part of\n"
    "                        the intervals' half-widths), stretch_edges,\n"
    "                        stretch_diagonals (the recorded cloth's median\n"
    "                        largest excess over its flat-sheet distances; null:\n"
    "                        not checked), model_limited, better_model,\n"
    "                        better_test_error_cm,\n"
    "                        rest_shift (the same with the other rest metric;\n"
    "                        null: not checked, as with --rest size), rest_metric,\n"
    "                        mesh_split, mesh_split_cols (across, with --split\n"
    "                        RxC; 0: uniform), substeps, start_state (the\n"
    "                        settings),\n"
    "                        polish\n"
    "                        (quadratic or none), polished (true: delta, alpha, mu\n"
    "                        are the quadratic's minimum), polish_evaluations,\n"
    "                        nm_delta, nm_alpha, nm_mu, nm_train_error_cm\n"
    "                        (Nelder-Mead's optimum), polish_why (why not\n"
    "                        polished, or null), tasks_resumed (taken from the\n"
    "                        journal)\n"
    "  --search nelder-mead|trust  the search from the start (default nelder-mead;\n"
    "                        also the refits of the confidence checks): trust is\n"
    "                        a trust-region search on a quadratic model of the\n"
    "                        error, learnt from its simulations (a design of\n"
    "                        +-20 % around the start first, then the model's\n"
    "                        minimum in a box around the best point, the box\n"
    "                        doubled where the model predicted the gain and halved\n"
    "                        where it did not, down to 1 %); about half the\n"
    "                        simulations of Nelder-Mead (tests/test_search.c)\n"
    "  --polish quadratic|none  polish the optimum as above (default: quadratic\n"
    "                        for a recording with a table, none otherwise)\n"
    "  --no-confidence       no intervals (9 + at most 120 simulations fewer)\n"
    "  --profile             also the profile intervals of delta and alpha (kappa and\n"
    "                        beta re-minimised within their bounds at every point;\n"
    "                        docs/confidence.md \"Profile intervals\"): lines\n"
    "                        \"profile\", --json member profile: per parameter value,\n"
    "                        interval, open ([below, above]: no crossing up to the\n"
    "                        bound, not identifiable), trades_against, simulations;\n"
    "                        threshold_cm, f_min_cm, n_eff, se_hac_cm,\n"
    "                        discrepancy_cm, identifiable, why, simulations\n"
    CF_CLI_MODEL_HELP;

typedef struct {
  const char *out;
  cf_pipeline_fit_text t;   /* the fit's options (the library reads them: cf_pipeline_fit_plan_parse) */
  cf_pipeline_fit_plan plan;
  cf_cli_model model;
  int json, restart, profile;
  cf_profile prof;          /* --profile's, after the fit */
  cf_pipeline_fit_info info; /* what the fit tried */
  cf_pipeline_tasks tk;     /* the journal: grid start, Nelder-Mead fit, confidence stencil */
  int resumed;         /* tasks of the journal taken from it */
} fit_args;

/* rec as this run made it: its sweep only if swept now. */
static cf_results run_view(const fit_args *a, cf_res_rec *view) {
  cf_results v;
  cf_results_init(&v);
  view->has_sweep = view->has_sweep && a->info.swept;
  v.n = 1, v.recs = view;
  return v;
}

/* The fit (cf_pipeline_fit), printing its error: when every start failed,
 * the failed simulations of this run first. */
static int run_fit(fit_args *a, cf_fit_input *in, cf_res_rec *rec) {
  cf_cli_bar bar;
  cf_error err = {0, ""};
  cf_cli_bar_stages(&bar);
  if (!cf_pipeline_fit(in, &a->plan.o, &a->tk, &bar.pp, rec, &a->info, &err)) return 0;
  if (a->info.all_failed) {
    cf_res_rec view = *rec;
    view.has_fit = 0;
    cf_results v = run_view(a, &view);
    cf_cli_warn_failures("fit", &v, NULL);
    /* the whole list: err.msg may cut it */
    return cf_cli_fail("fit", "%s: no finite optimum: the simulation fails at every start tried: %s", in->path,
                       a->info.tried);
  }
  return cf_cli_fail("fit", "%s", err.msg);
}

/* The failed simulations of this run: lines of the text (the warnings go
 * to stderr). */
static void failures_text(const fit_args *a, const cf_res_rec *rec, const cf_results *v) {
  const cf_res_fit *f = &rec->fit;
  cf_pipeline_failures n = cf_pipeline_failures_of(&v->recs[0]);
  if (strchr(f->starts_tried, ' ')) printf("starts tried      %s (failed: %s)\n", f->starts_tried, a->info.tried);
  if (n.failed)
    printf("failed            %d of %d grid points (%.1f %%)\n", n.failed, n.points, 100.0 * n.failed / n.points);
  if (n.nm_failed)
    printf("failed            %d of %d Nelder-Mead evaluations (first: %s)\n", n.nm_failed, n.nm_evals, f->failure);
  if (f->optimum_failure[0]) printf("optimum failed    whole recording: %s\n", f->optimum_failure);
  if (cf_pipeline_optimum_borders_failed(&v->recs[0], NULL, NULL) > 0)
    printf("grid optimum      borders failed grid points (see the warning)\n");
}

/* " mu M kappa K beta B" of the fitted ones among mu, kappa, beta: at the
 * start (start) or the optimum. */
static void fitted_extras(const cf_res_fit *f, int start, char *buf, size_t size) {
  int n = 0;
  buf[0] = 0;
  if (f->n_params > 2) n += snprintf(buf + n, size - n, " mu %.4f", start ? f->start[2] : f->x[2]);
  if (f->kappa_fitted && (size_t)n < size)
    n += snprintf(buf + n, size - n, " kappa %.4g", start ? f->start_kappa : f->model.kappa);
  if (f->beta_fitted && (size_t)n < size)
    snprintf(buf + n, size - n, " beta %.4g", start ? f->start_beta : f->model.beta);
}

static void report(const fit_args *a, const cf_res_rec *rec) {
  const cf_res_fit *f = &rec->fit;
  cf_res_rec view = *rec;
  cf_results v = run_view(a, &view);
  printf("recording         %s (%d frames, dt %g s, rho %g kg/m^2)\n", rec->recording, rec->frames, rec->dt, rec->rho);
  char extra[128];
  fitted_extras(f, 1, extra, sizeof extra);
  printf("start             %s: delta %.5f alpha %.5f%s (training error %.4f cm)\n", f->start_kind, f->start[0],
         f->start[1], extra, f->f_start);
  fitted_extras(f, 0, extra, sizeof extra);
  printf("optimum           delta %.5f alpha %.5f%s (%s, %d evaluations, %d iterations%s%s)\n", f->x[0], f->x[1],
         extra, f->method, f->evaluations, f->iterations, f->converged ? "" : ", not converged",
         f->polished ? ", then polished" : "");
  char polished[400];
  cf_cli_polish_text(f, polished, sizeof polished);
  if (polished[0]) printf("polish            %s\n", polished);
  printf("training          [%.2f, %.2f) s: error %.4f cm, std %.4f cm\n", f->train_t0_s, f->train_t1_s, f->e_train,
         f->s_train);
  if (isfinite(f->e_test)) printf("testing           the other frames: error %.4f cm, std %.4f cm\n", f->e_test, f->s_test);
  printf("whole recording   error %.4f cm, std %.4f cm\n", f->e_all, f->s_all);
  char conf[512];
  cf_cli_conf_text(&f->conf, conf, sizeof conf);
  if (conf[0]) printf("confidence        %s\n", conf);
  if (f->freed_why[0])
    printf("refitted          with %s fitted too: at the held value the first fit was not identifiable (%s)\n",
           f->kappa_fitted && f->beta_fitted ? "kappa and beta" : f->kappa_fitted ? "kappa" : "beta", f->freed_why);
  if (f->conf.done && f->conf.identifiable == 0)
    fprintf(stderr, "clothfit fit: warning: %s: the fit is not identifiable: %s\n", rec->name, f->conf.why);
  failures_text(a, rec, &v);
  cf_cli_warn_failures("fit", &v, a->out);
  /* only this run's grid: with another start, rec's sweep may be older */
  char edge[512];
  int on_edge = a->info.swept ? cf_pipeline_grid_edge(rec, edge, sizeof edge) : -1;
  if (on_edge > 0) {
    printf("grid edge         the grid optimum is on the edge of the grid: %s\n", edge);
    fprintf(stderr, "clothfit fit: warning: %s: the grid optimum is on the edge of the grid: %s\n", rec->name, edge);
  }
  char held_mu[48] = "", held_kappa[48] = "", held_beta[48] = "";
  if (f->n_params < 3 && isfinite(f->model.mu)) snprintf(held_mu, sizeof held_mu, ", mu %g", f->model.mu);
  snprintf(held_kappa, sizeof held_kappa, "kappa %g%s", f->model.kappa, f->kappa_fitted ? " (fitted)" : "");
  snprintf(held_beta, sizeof held_beta, "beta %g%s", f->model.beta, f->beta_fitted ? " (fitted)" : "");
  char split[32];
  printf("model             %s, %s, tol %g, max_iter %d%s (held fixed), rest metric %s, mesh split %s", held_kappa,
         held_beta, f->model.tol, f->model.max_iter, held_mu, f->model.rest,
         cf_res_model_split_text(&f->model, split, sizeof split));
  if (f->model.substeps != 1) printf(", %d substeps", f->model.substeps);
  if (strcmp(f->model.start, "rest")) printf(", %s start", f->model.start);
  printf("\n");
  if (strcmp(f->model.cloth, "inextensible")) {
    printf("cloth model       %s:", f->model.cloth);
    const double k[3] = {f->model.k_stretch, f->model.k_shear, f->model.k_bend};
    for (int j = 0; j < 3; j++)
      if (isfinite(k[j]))
        printf(" %s %.5g%s", cf_fit_stiffness_name(j), k[j], strstr(f->stiffness, cf_fit_stiffness_name(j)) ? " (fitted)" : " (held)");
    printf(" N/m\n");
  }
  char drive[400];
  cf_cli_drive_text(rec, drive, sizeof drive);
  if (drive[0]) printf("driving           %s\n", drive);
  if (a->out) printf("results           %s\n", a->out);
  if (a->profile) cf_cli_profile_text(&a->prof);
  if (!a->json) return;
  json_t *j = json_object();
  cf_pipeline_fields fields = cf_cli_json_fields(j);
  cf_pipeline_fit_fields(&fields, rec, a->info.swept, a->resumed, a->out);
  if (a->profile) cf_cli_profile_json(j, &a->prof);
  cf_cli_json_print(j);
}

int cmd_fit(int argc, char **argv) {
  if (cf_cli_wants_help(argc, argv)) return fputs(help, stdout), 0;
  fit_args a;
  memset(&a, 0, sizeof a);
  cf_pipeline_fit_text *t = &a.t;
  const cf_cli_opt opts[] = {{"--params", &t->params, NULL},  {"--start", &t->start, NULL},
                             {"--train", &t->train, NULL},    {"--max-evals", &t->max_evals, NULL},
                             {"--workers", &t->workers, NULL}, {"-o", &a.out, NULL},
                             {"--prune", NULL, &t->prune},    {"--json", NULL, &a.json},
                             {"--restart", NULL, &a.restart}, {"--no-confidence", NULL, &t->no_confidence},
                             {"--profile", NULL, &a.profile},
                             {"--delta-grid", &t->dgrid, NULL}, {"--alpha-grid", &t->agrid, NULL},
                             {"--mu-grid", &t->mgrid, NULL},  {"--polish", &t->polish, NULL}, {"--search", &t->search, NULL},
                             CF_CLI_MODEL_OPTS(a.model),     {NULL, NULL, NULL}};
  const char *path = NULL;
  int npos = 0;
  cf_fit_input *in = NULL;
  cf_results res;
  cf_error err = {0, ""};
  cf_results_init(&res);
  int rc = cf_cli_parse("fit", argc, argv, opts, &path, 1, &npos);
  if (!rc && cf_pipeline_fit_plan_parse(t, &a.plan, &err)) rc = cf_cli_fail("fit", "%s", err.msg);
  if (!rc && !path) rc = cf_cli_fail("fit", "missing REC.h5 (see --help)");
  rc = rc || cf_cli_load_inputs("fit", &path, 1, &a.model, &in);
  if (!rc && cf_pipeline_fit_plan_apply(t, &a.plan, a.model.mu != NULL, in, &err)) rc = cf_cli_fail("fit", "%s", err.msg);
  rc = rc || cf_cli_tasks_begin("fit", &(cf_pipeline_task_opts){a.out, NULL, a.restart}, argc, argv, &path, 1, NULL, &a.tk) ||
       cf_cli_results_begin("fit", a.out, &res, argc, argv, a.plan.o.workers, NULL);
  cf_res_rec *rec = rc ? NULL : cf_results_rec(&res, in->name, 1);
  if (!rc && !rec) rc = cf_cli_fail("fit", "out of memory");
  rc = rc || run_fit(&a, in, rec);
  if (!rc && a.profile && cf_pipeline_profile(in, rec, a.plan.o.workers, &a.prof, &err))
    rc = cf_cli_fail("fit", "%s", err.msg);
  rc = rc || cf_cli_results_write("fit", a.out, &res);
  a.resumed = cf_journal_used(a.tk.journal);
  rc = cf_cli_tasks_end("fit", &a.tk) || rc;
  if (!rc) report(&a, rec);
  cf_results_free(&res);
  cf_pipeline_inputs_free(in, in ? 1 : 0);
  return rc;
}
