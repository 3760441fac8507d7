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

typedef struct {
  const char *out;
  cf_pipeline_fit_text t;   /* the fit's options (the library reads them: cf_pipeline_fit_plan_parse) */
  cf_pipeline_fit_plan plan;
  cf_cli_model model;
  int restart, profile;
  cf_profile prof;          /* --profile's, after the fit */
  cf_pipeline_fit_info info; /* what the fit tried */
  cf_pipeline_tasks tk;     /* the journal: grid start, Nelder-Mead fit, confidence stencil */
  int resumed;         /* tasks of the journal taken from it */
} fit_args;

static const cf_cli_option options[] = {
    CF_CLI_VALUE("--params", fit_args, t.params),   CF_CLI_VALUE("--start", fit_args, t.start),
    CF_CLI_VALUE("--train", fit_args, t.train),     CF_CLI_VALUE("--max-evals", fit_args, t.max_evals),
    CF_CLI_VALUE("--workers", fit_args, t.workers), CF_CLI_VALUE("-o", fit_args, out),
    CF_CLI_FLAG("--prune", fit_args, t.prune),      CF_CLI_FLAG("--restart", fit_args, restart),
    CF_CLI_FLAG("--no-confidence", fit_args, t.no_confidence), CF_CLI_VALUE("--delta-grid", fit_args, t.dgrid),
    CF_CLI_VALUE("--alpha-grid", fit_args, t.agrid), CF_CLI_VALUE("--mu-grid", fit_args, t.mgrid),
    CF_CLI_VALUE("--polish", fit_args, t.polish),   CF_CLI_VALUE("--search", fit_args, t.search),
    CF_CLI_FLAG("--profile", fit_args, profile),    CF_CLI_MODEL_OPTIONS(fit_args, model),
    CF_CLI_END};

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
static int run_fit(void *opts, cf_fit_input *in, cf_res_rec *rec) {
  fit_args *a = opts;
  cf_cli_bar bar;
  cf_error err = {0, ""};
  cf_cli_bar_stages(&bar);
  if (!cf_pipeline_fit(in, &a->plan.o, &a->tk, &bar.pp, rec, &a->info, &err))
    return a->profile && cf_pipeline_profile(in, rec, a->plan.o.workers, &a->prof, &err)
               ? cf_cli_fail("fit", "%s", err.msg)
               : 0;
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

/* The fit's lines of the text, and its warnings on stderr. */
static void fit_text(const fit_args *a, const cf_res_rec *rec) {
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
  if (!strcmp(f->method, "levenberg-marquardt") && isfinite(f->tangent_secant))
    printf("tangents          check %.3g at one step (at most %g), %d of the evaluations with sensitivities\n",
           f->tangent_secant, CF_FIT_CHAOS_MAX, f->sens_evaluations);
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
  if (f->fallback_why[0])
    fprintf(stderr, "clothfit fit: warning: %s: Levenberg-Marquardt fell back to Nelder-Mead: %s\n", rec->name,
            f->fallback_why);
  failures_text(a, rec, &v);
  cf_cli_warn_failures("fit", &v, a->out);
  /* only this run's grid: with another start, rec's sweep may be older */
  char edge[512];
  int on_edge = a->info.swept ? cf_pipeline_grid_edge(rec, edge, sizeof edge) : -1;
  if (on_edge > 0) {
    printf("grid edge         the grid optimum is on the edge of the grid: %s\n", edge);
    fprintf(stderr, "clothfit fit: warning: %s: the grid optimum is on the edge of the grid: %s\n", rec->name, edge);
  }
}

/* The settings' lines of the text: the model held, the cloth model, the
 * driving, the results file. */
static void model_text(const fit_args *a, const cf_res_rec *rec) {
  const cf_res_fit *f = &rec->fit;
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
}

static void print_json(const void *opts, const cf_res_rec *rec) {
  const fit_args *a = opts;
  json_t *j = json_object();
  cf_pipeline_fields fields = cf_cli_json_fields(j);
  cf_pipeline_fit_fields(&fields, rec, a->info.swept, a->resumed, a->out);
  if (a->profile) cf_cli_profile_json(j, &a->prof);
  cf_cli_json_print(j);
}

/* The options the library reads and the fit's plan: before the recording is loaded. */
static int check(const cf_cli_call *c, void *opts) {
  (void)c;
  fit_args *a = opts;
  cf_error err = {0, ""};
  return cf_pipeline_fit_plan_parse(&a->t, &a->plan, &err) ? cf_cli_fail("fit", "%s", err.msg) : 0;
}

static void print_text(const void *opts, const cf_res_rec *rec) {
  fit_text(opts, rec);
  model_text(opts, rec);
}

static int run_cmd(const cf_cli_call *c, void *opts) {
  fit_args *a = opts;
  cf_error err = {0, ""};
  static const cf_cli_recording_run steps = {run_fit, print_text, print_json};
  if (cf_pipeline_fit_plan_apply(&a->t, &a->plan, a->model.mu != NULL, c->in, &err)) return cf_cli_fail("fit", "%s", err.msg);
  return cf_cli_run_recording(c, a, &(cf_pipeline_task_opts){a->out, NULL, a->restart}, a->plan.o.workers, &a->tk,
                              &a->resumed, &steps);
}

const cf_cli_command cf_cli_cmd_fit = {
    .name = "fit", .summary = "Nelder-Mead fit of (delta, alpha) with training/testing windows",
    .help = cf_cli_help_fit, .options = options, .opts_size = sizeof(fit_args), .max_pos = 1, .needs = "REC.h5",
    .check = check, .loads = 1, .model_offset = offsetof(fit_args, model), .mpi = 1, .run = run_cmd};
