/* cf_pipeline.h — the steps of a fit and of a study, for any program that
 * links the library: load recordings with the model settings to simulate
 * them with, sweep a (delta, alpha[, mu]) grid, refine an optimum by
 * Nelder-Mead (with its polish and confidence checks), fit the a-priori
 * formulas, compare cloth models, and run the aerodynamics study of thesis
 * §4.2 on a dataset of Motive exports; each step fills the results record
 * (cf_results, src/io) that `clothfit` prints and writes.  The `clothfit`
 * commands (src/cli) are argument parsing and printing over this header.
 *
 * Why a folder of its own (docs/layers.md): the steps use src/recording
 * (the study ingests exports), src/fit (the solvers) and src/study (the
 * fit targets and the results records), and nothing of the command line.
 *
 * Conventions (those of cf_io.h): a function returns CF_OK or a CF_E* code
 * and fills the cf_error it gets (may be NULL) with one line naming the
 * recording or file and what went wrong; CF_ENOMEM when out of memory,
 * CF_EINVAL for settings or inputs that do not fit together, CF_EIO for
 * files, and the simulator's codes passed on.  Pointer arguments are
 * borrowed for the call unless said otherwise; records a function fills
 * (cf_res_rec, cf_results, cf_fit_input) stay the caller's and are released
 * by their _free / _clear.  Under mpirun every rank calls every function
 * alike (the simulations are spread over the ranks, rank 0 alone writes
 * files).  Nothing here prints: what a caller may show goes through
 * cf_pipeline_progress. */
#ifndef CF_PIPELINE_H
#define CF_PIPELINE_H

#include "cf_recording.h"
#include "cf_study.h"
#include "cf_profile.h"

/* ---------------------------------------------------------------- progress */
/* How far a step is, for a progress bar.  Composite steps (a whole fit, a
 * study's stages, the sweep of several recordings) call stage(user, label,
 * total) when a stage of `total` units starts and stage(user, NULL, 0) when
 * it ends; every step calls update(user, done) with the units done in the
 * current stage; note(user, text) is a one-line warning the caller may show
 * (rank 0 only).  A label is a string constant (the callee may keep the
 * pointer); stage(user, label2, ..) may follow stage(user, label1, ..)
 * without an end between them.  The progress and each member may be NULL. */
typedef struct {
  void (*stage)(void *user, const char *label, long total);
  void (*update)(void *user, long done);
  void (*note)(void *user, const char *text);
  void *user;
} cf_pipeline_progress;

/* ------------------------------------------------------------------- grids */
/* N >= 1 points from lo to hi (N = 1: lo = hi), times the recording's
 * density rho when per_rho. */
typedef struct {
  double lo, hi;
  int n, per_rho;
} cf_pipeline_grid;
/* The default grid for axis 'd' (delta: rho * 0.05..1, 15 points) or 'a'
 * (alpha: rho * 0.05..4, 16 points); docs/design.md §8. */
cf_pipeline_grid cf_pipeline_grid_default(char axis);
/* The axis for density rho, malloc'ed [g->n] (NULL: out of memory). */
double *cf_pipeline_axis(const cf_pipeline_grid *g, double rho);

/* ---------------------------------------------------------- model settings */
/* The model parameters that are not fitted, held by every simulation of a
 * recording.  The defaults for fitting (cf_pipeline_model_default) are not
 * the simulator's (cf_params_default: kappa 0, tol 1e-3): with those a
 * shaken sheet's error surface has a ~0.25 cm floor (the free edge flutters,
 * the taut top edge sags by ~ edge * sqrt(tol)); kappa 1e-3 and tol 1e-4
 * make it smooth down to the 0.1 mm marker noise (docs/driving.md,
 * docs/simulator.md). */
typedef struct {
  double kappa, beta, tol; /* bending stiffness, Rayleigh damping on K, projection tolerance */
  int max_iter;            /* projection iterations per step before the simulation fails */
  double mu;               /* the cloth's friction on the recording's table */
  int mu_given;            /* 1: mu set (every recording must have a table) */
  cf_params cloth;         /* model, k_stretch, k_shear, k_bend of it are used */
  int rest;                /* CF_REST_* (cf_fit_target.rest), or CF_PIPELINE_REST_AUTO:
                              the cloth's size where the recording gives it, else the
                              first frame (cf_pipeline_model_apply says which) */
  int split;               /* lattice cells split N x N, 1..CF_LATTICE_SPLIT_MAX; 0: the
                              recording's own (its loader's tg.split: 1 for a mesh
                              recording, whose mesh is the cloth; 2 for markers) */
  int split_cols;          /* with split set: the cells' split across, split down
                              (tg.split_cols); 0: split's, a uniform mesh */
  int substeps;            /* simulation steps per recorded frame, >= 1 */
  int start;               /* CF_START_REST or CF_START_MOVING (cf_fit_target.start) */
} cf_pipeline_model;
#define CF_PIPELINE_KAPPA 1e-3
#define CF_PIPELINE_REST_AUTO (-1)
#define CF_PIPELINE_TOL 1e-4
void cf_pipeline_model_default(cf_pipeline_model *m);
/* Check m against the n recordings (mu needs a table in each; the elastic
 * models have no contacts, so no table or stick) and set their base and
 * fixed parameters (n = 0: nothing).  CF_OK or CF_EINVAL naming the
 * recording. */
int cf_pipeline_model_apply(const cf_pipeline_model *m, cf_fit_input *in, int n, cf_error *err);

/* -------------------------------------------------------------- recordings */
/* Load n HDF5 recordings (cf_fit_input_load) into *in (malloc'ed [n];
 * release with cf_pipeline_inputs_free) with the settings m (NULL:
 * cf_pipeline_model_default).  Two recordings may not share a file stem
 * (results are stored by it).  On an error *in is NULL. */
int cf_pipeline_inputs_load(const char *const *paths, int n, const cf_pipeline_model *m, cf_fit_input **in,
                            cf_error *err);
void cf_pipeline_inputs_free(cf_fit_input *in, int n);
/* Frames [t0, t1) of the window [a, b) in seconds (b = inf: to the end). */
void cf_pipeline_window_frames(const cf_fit_input *in, double a, double b, int *t0, int *t1);

/* ------------------------------------------------------------------- tasks */
/* The task model of the sweeping steps (docs/design.md §9, docs/cluster.md):
 * grid points numbered across a run's recordings, a journal beside the
 * results file that makes the run crash-safe (a rerun resumes; restart
 * discards it), and shards "I/N" (only the tasks with id % N == I run;
 * cf_shards_merge joins them). */
typedef struct {
  const char *out;   /* the results file (NULL: no journal) */
  const char *shard; /* "I/N" or NULL */
  int restart;       /* discard a journal of another run */
} cf_pipeline_task_opts;
typedef struct {
  cf_journal *journal;     /* NULL without out */
  int shard_i, shard_n;    /* shard_n 0: all tasks */
  unsigned long long next; /* id of the next sweep's first task */
  unsigned long long key;  /* hash of what the results depend on */
  char path[1100];         /* the journal */
  cf_sweep_checkpoint ck;  /* the journal as src/fit's checkpoint (ctx: this struct) */
  long resumed, ran;       /* tasks taken from the journal / simulated now */
  cf_fit_journal kept;     /* the journal for the other loops (cf_pipeline_tasks_kept) */
} cf_pipeline_tasks;
/* Open (or resume) the journal "OUT.journal".  Its key hashes the clothfit
 * version, the words argv[1..argc) that describe the run (without -o,
 * --workers, --shard, --json, --restart and their values: they change no
 * result), the bytes of the n files and the config text (may be NULL).
 * After it, cf_journal_torn / cf_journal_count tell what was resumed.
 * Under mpirun rank 0 alone keeps the journal. */
int cf_pipeline_tasks_begin(const cf_pipeline_task_opts *o, int argc, char **argv, const char *const *files, int n,
                            const char *config, cf_pipeline_tasks *t, cf_error *err);
/* The journal for src/fit's other loops (Nelder-Mead fits, confidence
 * stencils, regression evaluations); NULL without one (t NULL, no out, or
 * a rank other than 0). */
const cf_fit_journal *cf_pipeline_tasks_kept(cf_pipeline_tasks *t);
/* Close and remove the journal: the run ended (with its results written or
 * its error reported); only a crash leaves it for a rerun. */
int cf_pipeline_tasks_end(cf_pipeline_tasks *t, cf_error *err);

/* ----------------------------------------------------------------- results */
/* Read out (if given and present; else a new record) into r and stamp this
 * run's provenance (cf_pipeline_results_stamp). */
int cf_pipeline_results_open(const char *out, cf_results *r, int argc, char **argv, int workers, const char *config,
                             cf_error *err);
/* cf_results_stamp with the ranks and hosts of an mpirun job (collective). */
void cf_pipeline_results_stamp(cf_results *r, int argc, char **argv, int workers, const char *config);
/* Write r to out (if given; rank 0). */
int cf_pipeline_results_write(const char *out, cf_results *r, cf_error *err);

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

/* -------------------------------------------------------- one simulation */
/* Simulate in at (delta, alpha) (the other parameters in->fixed) and
 * measure the error (thesis (4.2)-(4.5)) over frames [t0, t1) (t1 <= 0: to
 * the end) into res->err, as one point of cf_pipeline_sweep does; fe[T]
 * (may be NULL) the per-frame errors of frames [0, t1).  With sim (may be
 * NULL) the whole recording is simulated and measured (t0, t1 unused) and
 * sim[T*K*3] (K = in->tg.rows * in->tg.cols markers, m, frame-major)
 * receives the simulated markers, NaN from a failed frame on.  A failed
 * simulation is res->status with res->reason and e_cm = +inf, not an error;
 * errors are those of preparing the run (CF_EINVAL naming the recording). */
int cf_pipeline_eval_window(const cf_fit_input *in, double delta, double alpha, int t0, int t1, cf_frame_error *fe,
                            double *sim, cf_fit_result *res, cf_error *err);

/* ---------------------------------------------------------------- scenario */
/* The scenario of the file config (CONFIG.ini, cf_scenario_load: sc)
 * simulated as `clothfit simulate` does (scenario_run.c): the mesh and its kinematic nodes, T frames at k dt of
 * the nodes' positions pos[T*n*3] (m), the projection's violation and
 * iterations per frame, the area errors and the simulator's counters;
 * progress one stage "simulate" of T - 1 steps. */
typedef struct {
  cf_scenario sc;                    /* read from config (loaded: 1) */
  int loaded;
  cf_mesh *mesh;
  int *kin, n_kin, T;
  double *time, *pos, *viol;
  int *iters;
  double wall;                       /* s */
  cf_area_error area_final, area_max;
  cf_sim_stats st;                   /* the counters at the end */
  int np, theta[CF_THETA_COUNT];     /* sensitivities (cf_pipeline_scenario_run_sens; np = 0: none) */
  double *dpos;                      /* [np][T*n*3] dx/dtheta at every frame (0 at frame 0) */
} cf_pipeline_scenario_sim;
int cf_pipeline_scenario_run(const char *config, const cf_pipeline_progress *pr, cf_pipeline_scenario_sim *r,
                             cf_error *err);
void cf_pipeline_scenario_sim_free(cf_pipeline_scenario_sim *r);
/* The same with the forward sensitivities of np parameters theta[]
 * (cf_theta, cf_sim_set_sensitivities) on, their tangents of the positions
 * in r->dpos; a scenario whose setup they do not differentiate (obstacles,
 * another model, ...) fails with the simulator's CF_EINVAL and message. */
int cf_pipeline_scenario_run_sens(const char *config, const cf_pipeline_progress *pr, int np, const int *theta,
                                  cf_pipeline_scenario_sim *r, cf_error *err);

/* ------------------------------------------------------------------ ingest */
/* A recording from its source, as `clothfit ingest KIND IN -o OUT` makes it
 * (ingest.c): kind motive, csv, meshes or clouds.  _init sets the
 * defaults; _meta reads a sidecar INI (--meta FILE; before the options, so
 * that they override it); _option takes one option with its value as the
 * command line spells them ("--dt", "0.01"; 1 taken, 0 not an ingest
 * option, -1 a bad value, err set) and _flag one without (--strict,
 * --rigid-bodies, --keep-unseen, --allow-no-markers; 1 taken, 0 not one);
 * _check checks them against the kind (set kind and in first; CF_EINVAL
 * with the command line's message) and fills the defaults; _run reads the
 * source, processes and resamples it into r (the caller's to free, also on
 * failure) and writes it to out; an edited export is a note of pp (may be
 * NULL).  The strings are borrowed and must outlive a. */
typedef struct {
  const char *kind, *in, *out;
  const char *held;      /* clouds: --held-track */
  const char *held_spec; /* --held: meshes' nodes "I,J", clouds' points "top-left,U:V,..." */
  const char *grasp;     /* clouds: --grasp T0:T1,... */
  const char *start;     /* clouds: --start hanging|flat-on-table */
  int grid[2];           /* clouds: --grid RxC (0: not given) */
  double dt;             /* 0 = native, -1 = not given (0.01; clouds: native) */
  cf_motive_opts mopts;
  cf_rec_meta meta;
  cf_meshseq_opts mesh;  /* meshes, clouds */
  cf_marker_opts mk;     /* marker processing (motive, csv) */
  cf_csv_opts csv;       /* csv */
} cf_pipeline_ingest;
void cf_pipeline_ingest_init(cf_pipeline_ingest *a);
int cf_pipeline_ingest_meta(cf_pipeline_ingest *a, const char *file, cf_error *err);
int cf_pipeline_ingest_option(cf_pipeline_ingest *a, const char *opt, const char *value, cf_error *err);
int cf_pipeline_ingest_flag(cf_pipeline_ingest *a, const char *opt);
int cf_pipeline_ingest_check(cf_pipeline_ingest *a, cf_error *err);
int cf_pipeline_ingest_run(cf_pipeline_ingest *a, const cf_pipeline_progress *pp, cf_recording *r, cf_error *err);

/* ------------------------------------------------------------------- sweep */
/* Sweep each of n recordings over its frames of the window [w0, w1) s
 * (each must hold >= 2 frames) into r's record of it (added), one stage
 * "sweep". */
int cf_pipeline_sweep_all(const cf_fit_input *in, int n, const cf_pipeline_grid *gd, const cf_pipeline_grid *ga,
                          const cf_pipeline_grid *gm, double w0, double w1, int workers, double prune,
                          cf_pipeline_tasks *tasks, const cf_pipeline_progress *pr, cf_results *r, cf_error *err);
/* Intervals around each recording's best grid point (into its
 * sweep.conf), at the best mu of a mu grid (in[i].fixed.mu is set to it). */
int cf_pipeline_sweep_confidence(cf_fit_input *in, int n, double w0, double w1, int workers,
                                 const cf_fit_journal *kept, cf_results *r, cf_error *err);

/* ------------------------------------------------------------- sensitivity */
/* The error around (D, A): kind "map" (np x np over [0, 2D] x [0, 2A]),
 * "delta" or "alpha" (np points over [0, 2X], the other held) or "mu" (np
 * values over [0, 2 in->fixed.mu]; thesis Fig. 4.20), over the window
 * [w0, w1) s, into rec->sens. */
int cf_pipeline_sensitivity(const cf_fit_input *in, const char *kind, double D, double A, int np, double w0, double w1,
                            int workers, cf_pipeline_tasks *tasks, const cf_pipeline_progress *pr, cf_res_rec *rec,
                            cf_error *err);

/* ----------------------------------------------------------------- compare */
/* Which cloth model explains a recording (thesis §4.1.4): each of the n
 * models (cf_cloth_model_find numbers) fitted over the training window
 * [f0, f1) (fractions) from (d0, a0) (NaN: the best point of the default
 * grid, pruned at 1.5 x the best) and measured on the rest, into
 * rec->compare; max_evals 0: 100 per fitted parameter. */
int cf_pipeline_compare(const cf_fit_input *in, const int *models, int n, double f0, double f1, double d0, double a0,
                        int max_evals, int workers, cf_pipeline_tasks *tasks, const cf_pipeline_progress *pr,
                        cf_res_rec *rec, cf_error *err);

/* ------------------------------------------------------------------ remesh */
/* Whether the fitted parameters are an artefact of the mesh (thesis
 * §4.1.5): rec's fit (its delta, alpha and held settings) simulated on n
 * meshes of in's recording, its cells split split[i][0] down and
 * split[i][1] across ({1, 2}: a 9 x 9 mesh recording on 9 x 17 nodes; the
 * recorded nodes stay nodes, so the error (4.2)-(4.3) is measured on them
 * with their weights as on the fitting mesh), and the mean error over the
 * testing window (the frames after the training window to the end) into
 * rec->remesh (stage "remesh").  The fit's own mesh is not simulated
 * again: its testing error is the fit's (the same simulation, window and
 * mean) when the training window starts at 0.  Each simulation is a sweep
 * of one point, in the journal of tasks (may be NULL).  n at most
 * CF_RES_REMESH_MAX; CF_EINVAL without a fit or with a testing window of
 * fewer than 2 frames. */
int cf_pipeline_remesh(const cf_fit_input *in, const int (*split)[2], int n, int workers, cf_pipeline_tasks *tasks,
                       const cf_pipeline_progress *pr, cf_res_rec *rec, cf_error *err);

/* ----------------------------------------------------------------- predict */
typedef struct {
  double delta, alpha, e;              /* the formula's parameters, the error there (NaN: not simulated) */
  double delta_opt, alpha_opt, e_opt;  /* the fitted optimum (NaN: none) */
} cf_pipeline_prediction;
/* The a-priori parameters of f for in's S, V, rho (thesis (4.10)-(4.11)),
 * simulated when eval (and both >= 0), and the optimum of opt (may be NULL;
 * named opt_name), which must come from in's settings when eval. */
int cf_pipeline_predict(const cf_fit_input *in, const cf_formula *f, const cf_res_rec *opt, const char *opt_name,
                        int eval, cf_pipeline_prediction *p, cf_error *err);

/* ------------------------------------------------------------------- study */
/* A dataset (datasets/aero-mini, datasets/wam-mini): a folder of sources,
 * NAME.csv Motive exports, NAME.meshes/ folders of a depth camera's
 * registered meshes (one OBJ or PLY a frame, times in the names as
 * `ingest meshes` reads them) or NAME.clouds/ folders of its point clouds
 * (one PLY or XYZ a frame, timed alike, with the held corners' track
 * NAME.corners.csv as `ingest clouds --held-track` reads it), with sidecars
 * NAME.meta.ini (or the [meta] of NAME.truth.ini; markers need lattice =
 * RxC, a mesh may give held = I,J, clouds need the cloth's size),
 * NAME.map and NAME.truth.ini.  A folder with mesh sequences has no other
 * sources (its NAME.corners.csv are robot logs, not exports).
 * cf_pipeline_dataset_list: the sources of dir (or of dir/recordings when
 * dir has none), sorted, malloc'ed [*n] (cf_strings_free), the folder used
 * into used[size]; the mesh sequences (else the exports), or the cloud
 * sequences alone when clouds is 1 (a folder may hold both of the same
 * recordings, as datasets/wam-mini does). */
int cf_pipeline_dataset_list(const char *dir, int clouds, char ***csv, int *n, char *used, size_t size,
                             cf_error *err);
/* What a study's results depend on: every export (every frame of a mesh
 * or cloud sequence, a cloud's corner track) with the sidecars that exist (malloc'ed [*nf], cf_strings_free). */
int cf_pipeline_dataset_files(char *const *csv, int n, char ***files, int *nf, cf_error *err);
/* The time step sources are resampled to (s), as `clothfit ingest` does by
 * default. */
#define CF_PIPELINE_DT 0.01
/* Ingest one source with its sidecars (the map unless use_map is 0) into
 * RECDIR/STEM.h5 (rank 0 writes it) and the fit input in; the truth
 * (NaN: none) from NAME.truth.ini. */
int cf_pipeline_dataset_ingest(const char *csv, const char *recdir, int use_map, cf_fit_input *in, double truth[2],
                               cf_error *err);
/* The study's stages on its recordings (in[i] and r's record of the same
 * name): ingest every source into in[0..*n_in) and r (stage "ingest"; with
 * keep_going a source that fails is a note and left out, else the error);
 * sweep each over its training window, the first `train` of the recording
 * (1: the whole recording, as the aerodynamics study of §4.2 fits; 0.5: the
 * first half, §4.1.2) ("sweep"); refine each grid optimum (or a-priori
 * start) by the inputs' search on the same window ("fit"), then when
 * confidence the checks ("confidence"), the refits with a flagged kappa or
 * beta free ("refit") and the check of the cloth model ("model check"); fit
 * the a-priori formulas to the optima when at least 4 have one ("regress";
 * none otherwise: r->reg.has stays 0). */
int cf_pipeline_study_ingest(char *const *csv, int n, const char *recdir, int use_map, int keep_going,
                             cf_fit_input *in, int *n_in, const cf_pipeline_progress *pr, cf_results *r,
                             cf_error *err);
/* The end frame of the training window `train` of in (1: in->tg.T). */
int cf_pipeline_study_window(const cf_fit_input *in, double train);
int cf_pipeline_study_sweep(const cf_fit_input *in, int n, const cf_pipeline_grid *gd, const cf_pipeline_grid *ga,
                            double train, int workers, double prune, cf_pipeline_tasks *tasks,
                            const cf_pipeline_progress *pr, cf_results *r, cf_error *err);
int cf_pipeline_study_refine(const cf_fit_input *in, int n, double train, int max_evals, int workers, int confidence,
                             const cf_fit_journal *kept, const cf_pipeline_progress *pr, cf_results *r,
                             cf_error *err);
int cf_pipeline_study_regress(const cf_fit_input *in, int n, const char *opt_name, int search, int max_evals, int workers,
                              const cf_fit_journal *kept, const cf_pipeline_progress *pr, cf_results *r,
                              cf_error *err);
/* The close look at one recording of thesis §4.1.3-4.1.5 around its fit
 * (rec->fit, over its training window): the sensitivity map of Figure 4.6
 * (np x np simulations on [0, 2 delta*] x [0, 2 alpha*], the mean error on
 * the testing window: the rest of the recording) into rec->sens, the
 * four cloth models of Table 4.3 fitted on the training window from the
 * fit (max_evals per model, 0: 100 per parameter) into rec->compare, and
 * the remeshing check of §4.1.5 (cf_pipeline_remesh on the recording's
 * cells split 1 x 1, 1 x 2, 2 x 1 and 2 x 2: a 9 x 9 mesh recording's 9 x
 * 9, 9 x 17, 17 x 9 and 17 x 17 nodes) into rec->remesh (stages
 * "sensitivity", "compare", "remesh").  CF_EINVAL without a fit. */
int cf_pipeline_study_detail(const cf_fit_input *in, int np, int max_evals, int workers, cf_pipeline_tasks *tasks,
                             const cf_pipeline_progress *pr, cf_res_rec *rec, cf_error *err);
/* -------------------------------------------------------------- experiment */
/* A study end to end, as `clothfit experiment aero|wam` runs it
 * (experiment.c): the options read from their words, the dataset's sources
 * listed, the journal opened (or resumed), every source ingested, the
 * study's stages run (cf_pipeline_study_*: aero sweeps, refines and
 * regresses, thesis §4.2; wam fits each recording on its first half and
 * looks closer at one, §4.1), the results file written and the journal
 * closed; and its results as named values (cf_pipeline_experiment_fields,
 * the fields of `experiment --json`).  The report (src/report) is not
 * written here: the command writes it from the results file. */
/* The options as the command line spells them (NULL / 0: not given):
 * --dataset, -o, --recordings, --workers, --max-evals, --regress-evals,
 * --regress-search, --prune-margin, --search, --start, --delta-grid,
 * --alpha-grid, the flags --prune, --no-refine, --no-maps, --restart,
 * --no-confidence, --clouds, and the model settings. */
typedef struct {
  const char *dataset, *out, *recordings, *workers, *max_evals, *regress_evals, *regress_search, *prune_margin,
      *search, *start, *dgrid, *agrid;
  int prune, no_refine, no_maps, restart, no_confidence, clouds;
  cf_pipeline_model_text model;
} cf_pipeline_experiment_text;
#define CF_PIPELINE_STAGES 16
typedef struct {
  /* the study (aero or wam) and its settings, from the options */
  const char *name;        /* "aero", "wam" */
  double train;            /* the training window: the first `train` of each recording */
  int keep_going;          /* a source that cannot be ingested is left out (else fatal) */
  int regress;             /* the a-priori formulas of §4.2.3 */
  const char *detail;      /* the recording of the close look (NULL: none) */
  const char *dataset, *out, *recdir; /* the folders used (dataset: its sources' folder after _begin) */
  int workers, max_evals, regress_evals, regress_search; /* CF_REGRESS_* */
  double prune;            /* 0 or the margin */
  cf_pipeline_grid gd, ga;
  cf_pipeline_model model;
  cf_pipeline_experiment_text t; /* the words (borrowed) */
  /* the run */
  char **csv;              /* the dataset's sources, sorted [n] */
  int n, n_in;             /* sources, recordings ingested (in[0..n_in)) */
  cf_fit_input *in;        /* [n] */
  char *config;            /* the settings of the run as text (the provenance's config) */
  int argc;
  char **argv;             /* the run's words (journal key, provenance), borrowed */
  cf_pipeline_tasks tk;
  cf_results res;          /* the results written */
  long resumed;            /* tasks taken from the journal (after _end) */
  /* the wall time (s) of every stage label started, summed over its
   * repeats, in the order first seen (the caller may time its own stages,
   * e.g. the report, through pp) */
  const char *stage[CF_PIPELINE_STAGES];
  double seconds[CF_PIPELINE_STAGES];
  int n_stages, current;
  double since;
  const cf_pipeline_progress *caller; /* the caller's progress (may be NULL) */
  cf_pipeline_progress pp; /* the caller's, timing the stages: what the steps get */
  char recdir_buf[4096], dataset_buf[4200];
} cf_pipeline_experiment;
/* Read t for the study `name` into x (initialized here; t's strings are
 * borrowed and must outlive x): CF_OK, or CF_EINVAL with the command
 * line's message ("unknown experiment 'x' (available: aero, wam)",
 * "invalid --max-evals '0': expected a count >= 1", ...). */
int cf_pipeline_experiment_parse(const char *name, const cf_pipeline_experiment_text *t, cf_pipeline_experiment *x,
                                 cf_error *err);
/* The stages of a run, in this order (a caller may act between them; _end
 * after _begin whatever happened, then _free): _begin lists the dataset's
 * sources, writes the settings text and opens the journal (argv[1..argc)
 * words of the run, borrowed: cf_pipeline_tasks_begin; pr may be NULL);
 * _ingest stamps the results' provenance, ingests every source (stage
 * "ingest") and applies the model settings to the recordings; _study runs
 * the stages (sweep, fit, confidence, refit, model check, regress,
 * sensitivity, compare, remesh) and writes the results file; _end closes
 * the journal (x->resumed).  _run is the four. */
int cf_pipeline_experiment_begin(cf_pipeline_experiment *x, int argc, char **argv, const cf_pipeline_progress *pr,
                                 cf_error *err);
int cf_pipeline_experiment_ingest(cf_pipeline_experiment *x, cf_error *err);
int cf_pipeline_experiment_study(cf_pipeline_experiment *x, cf_error *err);
int cf_pipeline_experiment_end(cf_pipeline_experiment *x, cf_error *err);
int cf_pipeline_experiment_run(cf_pipeline_experiment *x, int argc, char **argv, const cf_pipeline_progress *pr,
                               cf_error *err);
void cf_pipeline_experiment_free(cf_pipeline_experiment *x);
/* The words of the command line that runs t (argv[0] "experiment", the
 * name, the options given in the order of the command's help, and
 * --no-report, since no report is written here) into argv[max] (the
 * strings are t's or constants); the count, or -1 when max is too small. */
int cf_pipeline_experiment_words(const char *name, const cf_pipeline_experiment_text *t, const char **argv, int max);
/* Every field of `experiment --json` of x's run, in its order:
 * recordings, the failure totals, R_cm, E_cm and regression_simulations of
 * the regression, remesh (the close look's), stage_seconds, tasks_resumed,
 * output, and report (the report's index.html; NULL: none, no key). */
void cf_pipeline_experiment_fields(const cf_pipeline_fields *f, const cf_pipeline_experiment *x, const char *report);
#endif
