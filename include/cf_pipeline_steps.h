/* cf_pipeline_steps.h — the steps of a fit.
 * Part of the API of cf_pipeline.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_PIPELINE_STEPS_H
#define CF_PIPELINE_STEPS_H

#include "cf_recording.h"
#include "cf_study.h"
#include "cf_profile.h"
#include "cf_pipeline_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------- steps */
/* Sweep the grid (gd x ga for this recording's rho; gm: the mu axis, NULL
 * or gm->n = 0 for none) over frames [t0, t1) into rec->sweep; prune: 0
 * (off) or the margin >= 1 (cf_sweep_options.prune_margin); tasks (may be
 * NULL): journal and shard.  With a mu axis rec->sweep.model.mu is the best
 * point's mu. */
int cf_pipeline_sweep(const cf_fit_input *in, const cf_pipeline_grid *gd, const cf_pipeline_grid *ga,
                      const cf_pipeline_grid *gm, int t0, int t1, int workers, double prune,
                      const cf_pipeline_progress *pr, cf_pipeline_tasks *tasks, cf_res_rec *rec, cf_error *err);
/* Nelder-Mead on (delta, alpha[, mu when in->fit_mu], the model's
 * stiffnesses and in->fit_log's kappa, beta as log10, from in->fixed's)
 * from (d0, a0) over the training frames [t0, t1), then the per-frame
 * errors at the optimum:
 * rec->fit (training, testing = the other frames, whole recording; failed
 * evaluations) and rec->series.  If the simulation at the start fails,
 * nothing is stored and start_failure[256] says why ("" otherwise).  kept
 * (may be NULL): a journal.  With in->polish the optimum is then polished
 * (cf_fit_polish) at the fitted stiffnesses, kappa and beta.  max_evals 0:
 * 200 (100 per parameter with log-scale ones).  A log-scale parameter that
 * cannot be fitted (cf_nm_options_log_params) is CF_EINVAL. */
int cf_pipeline_refine(const cf_fit_input *in, double d0, double a0, const char *start_kind, int t0, int t1,
                       int max_evals, int workers, const cf_fit_journal *kept, const cf_pipeline_progress *pr,
                       cf_res_rec *rec, char start_failure[256], cf_error *err);
/* The a-priori start of in: the thesis' formulas (4.6)-(4.7) (repetition
 * I) at its size, speed and density, held inside the model's domain (at
 * least 0.05 rho); 1, or 0 without a size, with the centre of the
 * parameter box (rho / 2, 2 rho) instead. */
int cf_pipeline_apriori(const cf_fit_input *in, double *d0, double *a0);
/* The same for n recordings at once from their starts (d0[i], a0[i]) of
 * kind ("grid": their grid optima, "apriori"), over frames [t0[i], t1[i])
 * (t0 NULL: from 0; t1 NULL: to the end), one recording per worker (all
 * with the settings of in[0]); a recording whose start fails keeps the
 * fit it has (a note). */
int cf_pipeline_refine_many(const cf_fit_input *const *in, int n, const char *kind, const double *d0, const double *a0,
                            const int *t0, const int *t1, int max_evals, int workers, const cf_fit_journal *kept,
                            const cf_pipeline_progress *pr, cf_res_rec *const *recs, cf_error *err);
/* 95 % intervals and the identifiable flag (docs/confidence.md) of each
 * recording's fit (recs[i]->fit over its training window) into
 * recs[i]->fit.conf; recordings without a fit are skipped. */
int cf_pipeline_confidence(const cf_fit_input *const *in, int n, int workers, const cf_fit_journal *kept,
                           cf_res_rec *const *recs, cf_error *err);
/* The profile intervals (cf_fit_profile, docs/confidence.md "Profile
 * intervals") of rec's fit of in over its training window, from the fitted
 * point with what the fit held or fitted; workers 0: all cores. */
int cf_pipeline_profile(const cf_fit_input *in, const cf_res_rec *rec, int workers, cf_profile *out, cf_error *err);
/* The fits among recs[0..n) that the held-kappa or held-beta check flagged
 * (cf_pipeline_confidence: the fit moved by more than
 * CF_CONF_HELD_MAX_SHIFT with 3 kappa or a large beta) refitted from their
 * optimum with that parameter free as well (its log10, docs/confidence.md
 * "Fitting κ and β"; max_evals x the parameters / 2 evaluations), on their
 * training windows, and judged again; then those the beta check flags
 * next, once more.  The refit replaces the fit in recs[i], its freed_why
 * saying why (the first fit's verdict), so that the results are the fits
 * with the parameters the data asked for.  *refitted (may be NULL): how
 * many refits ran. */
int cf_pipeline_free_flagged(const cf_fit_input *const *in, int n, int max_evals, int workers,
                             const cf_fit_journal *kept, const cf_pipeline_progress *pr, cf_res_rec *const *recs,
                             int *refitted, cf_error *err);
/* Whether the model, not the noise, sets the error of each fit among
 * recs[0..n) with a confidence (model_check.c, docs/confidence.md item
 * 10): the chord test of cf_fit_stretch on the recording (with its
 * measured size), and for a cloth that stretches or shears beyond what the
 * fit's model allows, the other cloth models fitted on the fit's windows
 * from its optimum (cf_fit_compare) and the one that tests better named;
 * such a fit is marked model_limited and not identifiable, why saying so.
 * Into recs[i]->fit.conf (stretch_*, model_limited, better_*). */
int cf_pipeline_model_check(const cf_fit_input *const *in, int n, int workers, const cf_fit_journal *kept,
                            const cf_pipeline_progress *pr, cf_res_rec *const *recs, cf_error *err);
/* The same at given points: each item's (delta, alpha) over frames
 * [t0, t1) (t1 0: to the end) into *out; model (may be NULL: in's) the
 * settings of the point, whose stiffnesses, kappa and beta are held (a
 * fit's); fitted the log-scale parameters the fit fitted (CF_STIFF_BIT
 * mask: the checks of a held kappa or beta skip those). */
typedef struct {
  const cf_fit_input *in;
  double delta, alpha;
  int t0, t1;
  cf_res_conf *out;
  const cf_res_model *model;
  unsigned fitted;
  int *simulations; /* may be NULL: the simulations made are added to it */
} cf_pipeline_conf_item;
int cf_pipeline_confidence_at(const cf_pipeline_conf_item *it, int n, int workers, const cf_fit_journal *kept,
                              cf_error *err);
/* The optimum of r must come from in's model settings, or its error and a
 * start taken from it would not belong to this run: CF_OK, or CF_EINVAL
 * naming opt_name, both settings and what to give. */
int cf_pipeline_check_model(const cf_fit_input *in, const cf_res_rec *r, const char *opt_name, cf_error *err);
/* Simulate at (delta, alpha): per-frame errors fe[T] (may be NULL), mean
 * error and std over the whole recording (+inf on failure, with reason). */
int cf_pipeline_eval(const cf_fit_input *in, double delta, double alpha, cf_frame_error *fe, double *e, double *s,
                     char reason[256], cf_error *err);
/* The a-priori formulas (4.6) fitted to the recordings' optima in opt
 * (named opt_name in messages; cf_regress_fit with search (CF_REGRESS_*)
 * and max_evals, simulated with the settings of in[0]) into g.  A
 * recording without an optimum is an error, or left out with skip_failed;
 * an optimum found with other settings is an error.  Progress counts to
 * cf_regress_progress_total. */
int cf_pipeline_regress(const cf_fit_input *in, int n, const cf_results *opt, const char *opt_name, int skip_failed,
                        int search, int max_evals, int workers, const cf_fit_journal *kept,
                        const cf_pipeline_progress *pr, cf_res_regression *g, cf_error *err);

/* ------------------------------------------------------- failed simulations */
/* A grid point whose simulation failed (not one left to another shard). */
static inline int cf_pipeline_point_failed(int status) { return status != CF_OK && status != CF_ENOTRUN; }
typedef struct {
  int failed, points;      /* failed grid points of rec's sweep, its points (0: no sweep) */
  int nm_failed, nm_evals; /* failed Nelder-Mead evaluations of rec's fit, its evaluations */
} cf_pipeline_failures;
cf_pipeline_failures cf_pipeline_failures_of(const cf_res_rec *rec);
/* Whether a grid neighbour (8-neighbourhood; with a mu axis, 26) of rec's
 * sweep optimum failed: 1 (with *failed of *neighbours, both may be NULL),
 * 0, or -1 without an optimum of the grid. */
int cf_pipeline_optimum_borders_failed(const cf_res_rec *rec, int *failed, int *neighbours);
/* 1 if rec has an optimum with a finite error. */
int cf_pipeline_finite_optimum(const cf_res_rec *rec);
/* Recordings of r with a finite optimum. */
int cf_pipeline_n_valid(const cf_results *r);

/* --------------------------------------------------------------------- fit */
/* One recording's fit (thesis §4.1.2): a start, Nelder-Mead from it over
 * the training window, and the confidence checks.  When the simulation at
 * the start fails, the next start is tried: the one asked for, then the
 * grid optimum, the a-priori prediction (needs the cloth size) and the
 * centre of the parameter box (delta = rho/2, alpha = 2 rho). */
typedef struct {
  const char *start;       /* "grid" (sweep gd x ga[x gm] over the window), "apriori" or "given" */
  double d0, a0;           /* the given start */
  double train0, train1;   /* the training window as fractions of the recording */
  int max_evals, workers;  /* Nelder-Mead evaluations at most; workers (0: all cores) */
  double prune;            /* the grid start's pruning (cf_pipeline_sweep) */
  cf_pipeline_grid gd, ga, gm; /* the grid start's grid (gm.n = 0: no mu axis) */
  int confidence;          /* 1: intervals and identifiability (cf_pipeline_confidence) */
  int free_flagged;        /* 1: a fit the held kappa or beta check flags is refitted with
                              it free (cf_pipeline_free_flagged; needs confidence) */
} cf_pipeline_fit_opts;
/* Defaults: start grid, window 0..0.5, 200 evaluations, the default grid,
 * no mu axis, no pruning, confidence on. */
void cf_pipeline_fit_opts_default(cf_pipeline_fit_opts *o);
typedef struct {
  int swept;             /* the grid was swept in this run: rec->sweep is this run's */
  int all_failed;        /* the simulation failed at every start (CF_ENOCONV) */
  double d0, a0;         /* the start that was used */
  char starts[64];       /* the starts tried, blank-separated */
  char tried[1200];      /* the starts that failed and why (whole: an error message may cut it) */
} cf_pipeline_fit_info;
/* Fit in (with in->fit_mu, mu too, from in->fixed.mu) into rec; tasks
 * (may be NULL): the journal of the grid, the fit and the stencil.  With
 * in->fit_mu the stencil is taken at the fitted mu (in->fixed.mu is set to
 * it).  Every start failing is CF_ENOCONV with info->all_failed. */
int cf_pipeline_fit(cf_fit_input *in, const cf_pipeline_fit_opts *o, cf_pipeline_tasks *tasks,
                    const cf_pipeline_progress *pr, cf_res_rec *rec, cf_pipeline_fit_info *info, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
