/* cf_pipeline_options.h — the options of the commands as a library reads them, and the results' fields.
 * Part of the API of cf_pipeline.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_PIPELINE_OPTIONS_H
#define CF_PIPELINE_OPTIONS_H

#include "cf_recording.h"
#include "cf_study.h"
#include "cf_profile.h"
#include "cf_pipeline_base.h"
#include "cf_pipeline_steps.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------- options */
/* The settings from their text, as `clothfit` reads them from its options
 * and the Python module from its keyword arguments (options.c): CF_OK, or
 * CF_EINVAL with one line naming the option ("invalid --kappa '-1': ...").
 * Numbers are finite; an integer is lo..1000000.  cf_pipeline_parse_* return
 * 1 if s is well formed (and in range), else 0, with no message. */
int cf_pipeline_parse_number(const char *s, double *v);
int cf_pipeline_parse_int(const char *s, int lo, int *v);
/* "A:B:N" (N >= 1 points from A to B, 0 <= A <= B; N = 1 needs A = B) or
 * "A:B:N*rho" (scaled by each recording's density); NULL: the default of
 * axis 'd' or 'a' (cf_pipeline_grid_default). */
int cf_pipeline_parse_grid(const char *spec, char axis, cf_pipeline_grid *g);
/* "A:B" numbers with 0 <= A < B (B may be omitted: +inf). */
int cf_pipeline_parse_range(const char *s, double *a, double *b);
/* "D,A": two finite numbers >= 0. */
int cf_pipeline_parse_pair(const char *s, double *a, double *b);
/* --delta-grid and --alpha-grid (NULL: the defaults). */
int cf_pipeline_grids(const char *dspec, const char *aspec, cf_pipeline_grid *gd, cf_pipeline_grid *ga,
                      cf_error *err);
/* --mu-grid A:B:N (no *rho; NULL: g->n = 0, no mu axis); each of the n
 * recordings must have a table. */
int cf_pipeline_mu_grid(const char *spec, const cf_fit_input *in, int n, cf_pipeline_grid *g, cf_error *err);
/* fit --params delta,alpha,mu: the grid start's mu axis unless --mu-grid
 * (thesis Table 4.7: fitted mu from 0 to 2). */
#define CF_PIPELINE_MU_GRID "0:2:5"
/* --search trust|nelder-mead (NULL: the inputs keep theirs) onto in[0..n). */
int cf_pipeline_search(const char *value, cf_fit_input *in, int n, cf_error *err);
/* --prune (flag) and --prune-margin M (NULL if not given; implies
 * --prune) into *prune: 0 (off) or the margin (>= 1,
 * cf_sweep_options.prune_margin). */
int cf_pipeline_prune(int flag, const char *margin, double *prune, cf_error *err);
/* The regression's search named by option opt's value, model or
 * nelder-mead (NULL: model), into *search (CF_REGRESS_*). */
int cf_pipeline_regress_search(const char *opt, const char *value, int *search, cf_error *err);
/* --workers (NULL: 0, all cores). */
int cf_pipeline_workers(const char *s, int *workers, cf_error *err);
/* The model settings as text (NULL members: the defaults of
 * cf_pipeline_model_default): --kappa, --beta, --tol, --max-iter, --mu,
 * --model, --k-stretch, --k-shear, --k-bend, --rest (size, flat or
 * first-frame), --split (N or RxC), --substeps, --initial (rest or moving). */
typedef struct {
  const char *kappa, *beta, *tol, *max_iter, *mu;
  const char *model, *k_stretch, *k_shear, *k_bend;
  const char *rest, *split, *substeps, *initial;
} cf_pipeline_model_text;
/* m (may be NULL: all defaults) into v. */
int cf_pipeline_model_parse(const cf_pipeline_model_text *m, cf_pipeline_model *v, cf_error *err);
/* The cloth model and stiffnesses of m into p (the rest cf_params_default). */
int cf_pipeline_cloth_model(const cf_pipeline_model_text *m, cf_params *p, cf_error *err);
/* A fit's options as text (`clothfit fit`'s; NULL: the default):
 * --params (delta,alpha and any of mu, kappa, beta), --start (grid,
 * apriori or D,A), --train A:B, --max-evals, --workers, --delta-grid,
 * --alpha-grid, --mu-grid, --polish (quadratic or none), --search, and the
 * flags --prune and --no-confidence. */
typedef struct {
  const char *params, *start, *train, *max_evals, *workers, *dgrid, *agrid, *mgrid, *polish, *search;
  int prune, no_confidence;
} cf_pipeline_fit_text;
typedef struct {
  cf_pipeline_fit_opts o; /* o.start points into start_kind: the plan stays where it was parsed */
  int fit_mu;             /* --params with mu */
  unsigned fit_log;       /* --params with kappa, beta: CF_STIFF_BIT mask (cf_fit_input.fit_log) */
  char start_kind[16];    /* grid, apriori or given */
} cf_pipeline_fit_plan;
/* t into p (before a recording is loaded). */
int cf_pipeline_fit_plan_parse(const cf_pipeline_fit_text *t, cf_pipeline_fit_plan *p, cf_error *err);
/* p onto the loaded recording in (loaded with model settings whose --mu
 * was given when mu_given: then mu's start): the fitted kappa and beta
 * checked against its model, mu's table, the mu grid, --polish, --search. */
int cf_pipeline_fit_plan_apply(const cf_pipeline_fit_text *t, cf_pipeline_fit_plan *p, int mu_given,
                               cf_fit_input *in, cf_error *err);

/* ------------------------------------------------------------------ fields */
/* A fit's or a study's result as named values (fields.c), for the
 * commands' --json and the Python module alike: each member of the visitor
 * is called with a key and a value; unknown values are NaN (num), NULL
 * (str), -1 (boolean) or n < 0 (nums); words gets a blank-separated list.
 * open starts a nested object (array 0) or array (array 1) under key and
 * returns the user for its values (NULL: they are skipped); the values of
 * an array have the key NULL.  Members may be NULL (skipped; without open
 * the nested values are skipped); the values are borrowed for the call. */
typedef struct {
  void (*num)(void *user, const char *key, double v);
  void (*str)(void *user, const char *key, const char *s);
  void (*boolean)(void *user, const char *key, int b);
  void (*nums)(void *user, const char *key, const double *v, int n);
  void (*words)(void *user, const char *key, const char *text);
  void *(*open)(void *user, const char *key, int array);
  void *user;
} cf_pipeline_fields;
/* Every field of `fit --json` of rec's fit, in its order: swept (the grid
 * was swept in this run, cf_pipeline_fit_info.swept), resumed (tasks taken
 * from a journal), out (the results file, may be NULL). */
void cf_pipeline_fit_fields(const cf_pipeline_fields *f, const cf_res_rec *rec, int swept, int resumed,
                            const char *out);
/* The parts other commands print too: failed_points, grid_points,
 * failed_fraction, optimum_borders_failed, failed_evaluations; the
 * confidence (delta_interval ... better_test_error_cm); the polish (polish
 * ... polish_why); the driving (start_residual_mean_mm ... held_pull_max_mm). */
void cf_pipeline_fields_failures(const cf_pipeline_fields *f, const cf_res_rec *rec);
void cf_pipeline_fields_conf(const cf_pipeline_fields *f, const cf_res_conf *c);
void cf_pipeline_fields_polish(const cf_pipeline_fields *f, const cf_res_fit *fit);
void cf_pipeline_fields_drive(const cf_pipeline_fields *f, const cf_res_rec *rec);
/* The recordings of a sweep or a study, "recordings": [{name, material,
 * ..., delta, alpha, mu, error_cm, std_cm, optimum, on_grid_edge, the
 * failures, S, V, rho, kappa ... freed_why (with a fit), simulations, the
 * confidence}] (`clothfit sweep --json`, `experiment --json`); their
 * failures summed (failed_points, grid_points, failed_fraction,
 * failed_evaluations); a remeshing check (delta, alpha, test_window_s,
 * meshes: [{mesh, split, status, reason, test_error_cm, test_std_cm,
 * fit_reused}]). */
void cf_pipeline_fields_recordings(const cf_pipeline_fields *f, const cf_results *r);
void cf_pipeline_fields_failure_totals(const cf_pipeline_fields *f, const cf_results *r);
void cf_pipeline_fields_remesh(const cf_pipeline_fields *f, const cf_res_remesh *m);
/* The parameters fitted, blank-separated ("delta alpha mu kappa"). */
void cf_pipeline_fit_names(const cf_res_fit *fit, char *buf, size_t size);
/* The simulations behind rec's result: its grid's points (pruned ones
 * counted whole) and its fit's (cf_res_fit.simulations). */
int cf_pipeline_simulations(const cf_res_rec *rec);
/* Whether rec's grid optimum (the sweep's best point) lies on an edge of its
 * grid: 1 with advice (e.g. "delta at its lowest grid value 0.0052 (widen
 * --delta-grid below it)") in buf, 0 if inside, -1 without a sweep optimum. */
int cf_pipeline_grid_edge(const cf_res_rec *rec, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
