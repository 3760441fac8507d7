/* cf_fit_search.h — the searches of a fit: Nelder-Mead, trust region, polish, model comparison.
 * Part of the API of cf_fit.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_FIT_SEARCH_H
#define CF_FIT_SEARCH_H

#include "cf_common.h"
#include "cf_sim.h"
#include "cf_fit_target.h"
#include "cf_fit_driven.h"
#include "cf_fit_sweep.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ Nelder-Mead */
/* Minimize the mean error over the window [t0, t1) with GSL's nmsimplex2 on
 * 1-3 parameters (delta, alpha[, mu]) and up to CF_NM_MAXK log-scale ones
 * within bounds (outside, and where the
 * simulation fails, the objective is a large penalty, never NaN).  Failed
 * simulations are counted; a start whose simulation fails ends the fit at
 * once (start_failed), so that the caller can try another start. */
enum { CF_PARAM_DELTA = 0, CF_PARAM_ALPHA = 1, CF_PARAM_MU = 2 };
/* The log-scale parameters, fitted after the first n as their log10 (they
 * span decades: a simplex step of a factor explores them as evenly as 10 %
 * explores delta): the baseline cloth models' stiffnesses (cf_sim.h,
 * cf_cloth_model; N/m), the bending stiffness kappa (N m: the bending force
 * is kappa K x with K = S^T M^-1 S in 1/m^2, bending.c) and the Rayleigh
 * damping on K beta (N m s: beta / kappa is the time in which overdamped
 * bending modes relax).  A set of them is a mask of CF_STIFF_BIT(k). */
enum { CF_STIFF_STRETCH = 0, CF_STIFF_SHEAR = 1, CF_STIFF_BEND = 2, CF_STIFF_KAPPA = 3, CF_STIFF_BETA = 4,
       CF_STIFF_COUNT = 5 };
#define CF_STIFF_BIT(k) (1u << (k))
/* kappa's and beta's bounds when fitted (cf_nm_options_log_params): the
 * bundled study's synthetic cloth has kappa 1e-5, the fitting default is
 * 1e-3 (cf_pipeline.h); beyond 0.1 N m an A2 sheet is a board, below 1e-7
 * its bending is lost in the 0.1 mm marker noise. */
#define CF_FIT_KAPPA_MIN 1e-7
#define CF_FIT_KAPPA_MAX 1e-1
#define CF_FIT_BETA_MIN 1e-8
#define CF_FIT_BETA_MAX 1e-1
#define CF_NM_MAXK 4 /* log-scale parameters of a fit: two stiffnesses, kappa, beta */
#define CF_NM_MAXP 7 /* parameters of a fit: n + nk (3 + CF_NM_MAXK) */
/* The stiffnesses a fit of the model varies, into which[] (up to 2):
 * quasi-inextensible k_shear; elastic and mass-spring k_stretch, k_shear
 * (the mass-spring model's bending springs are held, like kappa); 0 for the
 * inextensible model. */
int cf_fit_model_stiffness(int model, int *which);
/* Name of log-scale parameter k ("k_stretch", "k_shear", "k_bend", "kappa",
 * "beta"); cf_fit_log_param_find: the k of a name, or -1. */
const char *cf_fit_stiffness_name(int k);
int cf_fit_log_param_find(const char *name);

typedef struct {
  int n;                    /* parameters fitted: 2 (delta, alpha) or 3 (+ mu) */
  int nk;                   /* and then nk log-scale parameters (0 .. CF_NM_MAXK), as log10 */
  int kpar[CF_NM_MAXK];     /* which: CF_STIFF_* */
  double start[CF_NM_MAXP], step[CF_NM_MAXP]; /* initial point and simplex step */
  double lo[CF_NM_MAXP], hi[CF_NM_MAXP];      /* bounds */
  int max_evals;            /* default 200 */
  double size_tol;          /* stop when the simplex size is below (default 1e-4) */
  int restarts;             /* after the simplex converges, a fresh one of the
                               initial steps at its best point, at most this
                               many times (default 2) while one lowers the
                               error by more than CF_NM_RESTART_GAIN */
  int t0, t1;               /* training window (t1 <= 0: to the end) */
  const cf_fit_progress *progress; /* evaluations of max_evals (may be NULL) */
  int search;               /* CF_SEARCH_NM (default), CF_SEARCH_TRUST or
                               CF_SEARCH_LM (cf_fit_minimize) */
} cf_nm_options;
/* The searches of cf_fit_minimize: GSL's Nelder-Mead (nmsimplex2, with the
 * restarts above), the trust-region search on a quadratic model of the
 * error (trust.c; size_tol and restarts unused), or Levenberg-Marquardt on
 * the per-frame residuals with the sensitivities' Jacobian (lm.c,
 * cf_fit_levenberg_marquardt; size_tol and restarts unused). */
enum { CF_SEARCH_NM = 0, CF_SEARCH_TRUST = 1, CF_SEARCH_LM = 2, CF_SEARCH_COUNT = 3 };
/* A search's option word ("nelder-mead", "trust", "lm"; --search) and the
 * method its results name ("nelder-mead", "trust-region",
 * "levenberg-marquardt"); "?" for no search.  The parse returns the
 * CF_SEARCH_* of a word, or -1. */
const char *cf_fit_search_word(int search);
const char *cf_fit_search_method(int search);
int cf_fit_search_parse(const char *word);
/* What a simulation with sensitivities costs, in simulations without:
 * build/bench/bench_sens prints the ratio with four (2.7 on its A2 shake;
 * `bench_sens REC.h5` 3.8 on datasets/aero-mini's wool-A3-shake-fast-I); a
 * fit of delta and alpha asks for two.  Levenberg-Marquardt's budget
 * (max_evals) counts one so. */
#define CF_FIT_SENS_COST 3
/* Levenberg-Marquardt's tangent check (cf_nm_result.tangent_secant): the
 * change of the residuals' sum of squares that the Gauss-Newton model of
 * the tangents predicts at a step of the options' steps (the scale of a
 * fit's intervals) against the change simulated, |simulated - predicted| /
 * max(|simulated|, |predicted|, 1e-3 of the sum); above this the tangents
 * do not predict the error (a branch-prone recording, docs/notes/
 * fit-causes.md section 6: tangents growing ~10x a frame), and the fit
 * falls back to Nelder-Mead.  0.75: the two differ by a factor 4. */
#define CF_FIT_CHAOS_MAX 0.75
/* A restart that lowered the error by less than this fraction is the last:
 * on a noisy error surface (a laid cloth's, docs/contacts.md "Fitting mu")
 * a converged simplex can sit in a dip of the noise; a fresh simplex of
 * the initial steps leaves it when a better point is within reach. */
#define CF_NM_RESTART_GAIN 0.01

struct cf_fit_journal; /* below, with the sweeps' checkpoints */

typedef struct {
  double x[CF_NM_MAXP], f; /* best vertex after each iteration */
} cf_nm_step;

typedef struct {
  double best[CF_NM_MAXP];
  double f_best;     /* mean error (cm) on the training window (+inf: the start failed) */
  double f_start;    /* at the starting point (+inf if its simulation failed) */
  int evaluations, iterations, converged;
  int restarts;      /* fresh simplices after a convergence (cf_nm_options.restarts) */
  int failed;        /* evaluations whose simulation failed (infinite error) */
  int start_failed;  /* 1: the simulation at the start failed; nothing else was evaluated */
  char failure[256]; /* the first failed evaluation's message ("" if none) */
  int n_path;
  cf_nm_step *path;  /* [n_path], malloc'ed: free with cf_nm_result_free */
  int sens_evaluations; /* of the evaluations, those with sensitivities (each
                            CF_FIT_SENS_COST simulations' cost) */
  double tangent_secant; /* Levenberg-Marquardt's tangent check at the start
                            (CF_FIT_CHAOS_MAX; inf: tangents not finite; NaN:
                            not made: another search, or refused) */
  int fallback;         /* 1: Levenberg-Marquardt handed the fit to Nelder-Mead
                            (fallback_why says why); the result is Nelder-Mead's,
                            evaluations counting both */
  char fallback_why[200];
} cf_nm_result;

/* Defaults for (delta, alpha) around a start point, bounds [0, rho] x
 * [0, 4 rho] widened to contain the start. */
void cf_nm_options_default(cf_nm_options *o, double rho, double delta0, double alpha0);
int cf_fit_nelder_mead(cf_fit_run *run, const cf_fit_point *base, const cf_nm_options *o,
                       cf_nm_result *res, cf_error *err);
void cf_nm_result_free(cf_nm_result *res);
/* The trust-region search (trust.c): from o->start, a least-squares
 * quadratic of the errors near the best point so far (on a design of
 * +-2 steps first: 1 + 2 n + n (n - 1) simulations for n parameters),
 * its minimum over a box of r steps around that point evaluated, r doubled
 * when the model predicted the gain and halved when it did not, until r is
 * below 0.1 steps (converged) or o->max_evals simulations are spent.  The
 * result as cf_fit_nelder_mead's: never worse than the start, path = the
 * best point after each step, start_failed when the start's simulation
 * fails; failed simulations elsewhere shrink the box. */
int cf_fit_trust_region(cf_fit_run *run, const cf_fit_point *base, const cf_nm_options *o, cf_nm_result *res,
                        cf_error *err);
/* Levenberg-Marquardt (lm.c): GSL's gsl_multifit_nlinear (trust region,
 * LM steps, More scaling) on the per-frame residuals of the M-norm error
 * (cf_metric_frame_tangent: it minimizes their sum of squares, sum_k e_k^2
 * over the window, and reports the mean error e_cm as the others), with
 * the analytic Jacobian of cf_fit_run_eval_sens.  For delta, alpha and
 * log10 kappa, log10 beta (o->n 2, kpar kappa or beta): mu and the
 * stiffnesses have no sensitivities (the fit falls back, below).  Bounds: every parameter
 * is x = lo + (hi - lo) (1 + sin y) / 2 of a free y (as MINUIT bounds its
 * parameters), so delta, alpha >= 0 and kappa, beta within
 * CF_FIT_KAPPA_* and CF_FIT_BETA_* hold at every simulation; a start on a
 * bound is moved 1 % of the range inside.  First the tangent check
 * (tangent_secant, 2 n simulations): when it exceeds CF_FIT_CHAOS_MAX, or
 * the target's sensitivities are refused (contacts, clouds), or a
 * parameter has none, the fit is Nelder-Mead's on the budget left
 * (fallback).  CF_EINVAL for a parameter with lo >= hi or step <= 0.  The budget max_evals counts
 * a simulation with sensitivities as CF_FIT_SENS_COST.  Converged when a
 * step moves every parameter by less than 0.05 of its step or the sum of
 * squares falls by less than 1e-6 of itself while a Gauss-Newton step
 * predicts less than 1e-2 of it, or GSL finds no lower point; where the
 * steps become small (or GSL finds no lower point) while a Gauss-Newton
 * step still predicts more, the tangents there no longer predict the error
 * and Nelder-Mead goes on from the best point (fallback, f_start the
 * start's); else it stops when the budget is spent.  Never ends above the start's mean error. */
int cf_fit_levenberg_marquardt(cf_fit_run *run, const cf_fit_point *base, const cf_nm_options *o, cf_nm_result *res,
                               cf_error *err);
/* The search o->search names (minimize.c). */
int cf_fit_minimize(cf_fit_run *run, const cf_fit_point *base, const cf_nm_options *o, cf_nm_result *res,
                    cf_error *err);
/* cf_fit_nelder_mead on run (made from tg) with a journal (may be NULL):
 * the fit kept there by an earlier run of the same command is read
 * instead of computed, else the fit is computed and kept (nm_batch.c; the
 * same record and task id as the first fit of a batch). */
int cf_fit_nelder_mead_kept(cf_fit_run *run, const cf_fit_target *tg, const cf_fit_point *base,
                            const cf_nm_options *o, const struct cf_fit_journal *kept, cf_nm_result *res,
                            cf_error *err);
/* Nelder-Mead on n targets at once (nm_batch.c), one per worker process
 * (0: all cores): res[i] as cf_fit_nelder_mead gives for tg[i] with o[i]
 * (the path keeps at most 1000 steps).  progress counts fits done.  A fit
 * that cannot start (bad target) fails the batch, naming it. */
int cf_fit_nelder_mead_batch(int n, const cf_fit_target *const *tg, const cf_params *base, const cf_fit_point *fixed,
                             const cf_nm_options *o, int workers, const struct cf_fit_journal *kept,
                             const cf_fit_progress *progress, cf_nm_result *res,
                             cf_error *err);
/* Apply parameter vector x (o->n entries) to a point. */
void cf_fit_point_set(cf_fit_point *pt, int n, const double *x);
/* The same for all o->n + o->nk entries (the log-scale ones 10^x). */
void cf_fit_point_set_all(cf_fit_point *pt, const cf_nm_options *o, const double *x);
/* The log-scale parameters fitted by default with the model: the mask of
 * cf_fit_model_stiffness's. */
unsigned cf_fit_model_stiffness_mask(int model);
/* Append the log-scale parameters of mask (CF_STIFF_BIT(k), in the order
 * of k) to o after its o->n + o->nk, as their log10:
 *   stiffnesses: start at held's value (0: base's), simplex step a factor 2,
 *     bounds 1e-3 .. 1e6 N/m;
 *   kappa: start at held->kappa, step a factor 3, bounds CF_FIT_KAPPA_MIN
 *     .. CF_FIT_KAPPA_MAX N m;
 *   beta: start at held->beta, or when that is 0 (the undamped model, whose
 *     log10 does not exist) at the start of kappa x 0.01 s: bending modes
 *     faster than a frame (120 Hz) damped, slower ones not: near the
 *     undamped model, and a factor-3 simplex reaches 0.1 s (every mode of
 *     an A2 sheet damped) in four steps; that start clamped to the bounds
 *     CF_FIT_BETA_MIN .. CF_FIT_BETA_MAX N m s; step a factor 3.
 * held may be NULL (stiffnesses from base, kappa and beta from base).
 * CF_EINVAL (naming the parameter; o unchanged) for a parameter the model
 * does not use (kappa and beta with the mass-spring model: its bending is
 * springs, k_bend, and it has no matrix K), a kappa start or a held beta
 * > 0 outside its bounds, or more than CF_NM_MAXK log-scale or CF_NM_MAXP parameters in
 * all.  The pipeline's fits call it with the model's stiffnesses and
 * cf_fit_input.fit_log (cf_study.h). */
int cf_nm_options_log_params(cf_nm_options *o, const cf_params *base, const cf_fit_point *held, unsigned mask,
                             cf_error *err);
/* The same check alone, of the whole set mask after n parameters: CF_OK
 * or CF_EINVAL. */
int cf_fit_log_params_check(int n, const cf_params *base, const cf_fit_point *held, unsigned mask, cf_error *err);
/* Append the stiffnesses of base->model to o (o->nk, kpar): start at
 * base's values, simplex step a factor 2, bounds 1e-3 .. 1e6 N/m
 * (cf_nm_options_log_params with the model's mask). */
void cf_nm_options_stiffness(cf_nm_options *o, const cf_params *base);

/* ------------------------------------ response-surface polish (polish.c) */
/* The minimum of a quadratic fitted by least squares to the mean error on a
 * 3^n design around a fit's optimum x0 (steps 20 % of delta and alpha,
 * max(20 % of mu, 0.1) of mu), held at the physical bounds 0: an estimate
 * of the parameters that averages out a rough error surface's noise (a laid
 * cloth's; polish.c says why and what it measured).  Not trusted, and x0
 * kept, when the quadratic is not a bowl, misses the design by more than
 * the centre's replicates at 0.8-1.2 x the solver's tolerance explain
 * (lack-of-fit F test, 5 %), or its minimum stays outside the design after
 * moving the design there once. */
typedef struct {
  int n;          /* parameters: 2 (delta, alpha) or 3 (+ mu) */
  double x0[3];   /* the point polished (Nelder-Mead's optimum) */
  int t0, t1;     /* window (t1 <= 0: to the end) */
} cf_polish_options;
typedef struct {
  int applied;         /* 1: x is the quadratic's minimum; 0: x = x0, why says why */
  double x[3];         /* the estimate */
  double rms;          /* rms residual of the quadratic on its design (cm) */
  int evaluations;     /* design simulations run (31 or 13 per round: 27 or 9 and the centre's 4 replicates) */
  char why[160];       /* "" when applied */
} cf_polish_result;
/* The design's simulations run on the worker processes (kept: their
 * journal, may be NULL).  An error only for bad options or a failed run of
 * the workers; failed simulations are left out of the fit. */
int cf_fit_polish(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *fixed,
                  const cf_polish_options *o, int workers, const struct cf_fit_journal *kept,
                  cf_polish_result *res, cf_error *err);

/* -------------------------------------- model comparison (compare.c) */
/* Which cloth model explains a recording (thesis §4.1.4, Table 4.3): each
 * model's parameters (delta, alpha and its stiffnesses,
 * cf_fit_model_stiffness) fitted by the same search on the training
 * window, then one simulation of the recording at the fit measured on the
 * testing window. */
typedef struct {
  int t0, t1;            /* training window (t1 <= 0: to the end) */
  int test_t0, test_t1;  /* testing window (test_t1 <= 0: to the end) */
  int max_evals;         /* per fit (0: 100 per fitted parameter) */
  double delta0, alpha0; /* every fit's start (stiffnesses: base's) */
  int search;            /* the fits' (cf_nm_options.search) */
} cf_compare_options;

typedef struct {
  int model;             /* cf_cloth_model */
  int status;            /* CF_OK, or why the fit's start or the simulation at the fit failed */
  char reason[256];
  cf_fit_point fit;      /* delta, alpha and the stiffnesses (fitted ones; the
                            rest of the model's at base's values) */
  int nk, kpar[CF_NM_MAXK]; /* the stiffnesses fitted */
  double e_train_cm;     /* the fit's training error */
  double e_test_cm, s_test_cm, d_max_test_cm; /* testing window: mean e, mean s, max d */
  double wall_s;         /* the simulation of the recording (to the testing window's end) */
  double iters_per_step; /* its projection iterations per step (0: no constraints) */
  int evaluations, converged;
  double fit_wall_s;     /* the fit's */
} cf_compare_row;

/* Fit the n models (models[n], cf_cloth_model) to tg, one per worker
 * process (0: all cores); rows[n] (output).  base: the settings (its model
 * is replaced, its stiffnesses start the fits), fixed: held parameters
 * (beta, kappa, mu).  kept (may be NULL): a journal; a model's row it holds
 * is read instead of computed, and every row computed is kept as it
 * finishes.  progress counts models done.  An error only for bad
 * arguments or a failed worker; a model whose fit cannot start or whose
 * simulation fails has its row's status set. */
int cf_fit_compare(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *fixed, int n,
                   const int *models, const cf_compare_options *o, int workers, const struct cf_fit_journal *kept,
                   const cf_fit_progress *progress, cf_compare_row *rows, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
