/* fit_cli.h — what the fitting commands share (sweep, fit, sensitivity,
 * predict, regress, experiment): a table-driven option parser, grid and
 * window values, a progress bar for src/fit's callbacks, loading the
 * recordings (cf_fit_input), the sweep and refinement steps that fill a
 * results record, results files, and the thesis-style tables. */
#ifndef CF_FIT_CLI_H
#define CF_FIT_CLI_H

#include "cf_report.h"
#include "cf_study.h"
#include "json_out.h"
#include "progress.h"

/* ----------------------------------------------------------------- options */
typedef struct {
  const char *name;   /* "--workers", "-o" */
  const char **value; /* option with a value: where it goes (NULL: a flag) */
  int *flag;          /* flag: set to 1 */
} cf_cli_opt;

/* Parse argv[1..] against opts (a NULL name ends the table): values go to
 * *value (also "--name=value"), flags to *flag, other words to pos[]
 * (*n_pos of at most max_pos).  0, or 1 after printing the one-line error. */
int cf_cli_parse(const char *cmd, int argc, char **argv, const cf_cli_opt *opts, const char **pos, int max_pos,
                 int *n_pos);

/* "A:B:N" (N >= 1 points from A to B, 0 <= A <= B; N = 1 needs A = B) or
 * "A:B:N*rho" (scaled by each recording's density).  NULL spec: the default
 * of SPEC §8 for axis 'd' (delta: rho * 0.05..1, 15) or 'a' (alpha:
 * rho * 0.05..4, 16). */
typedef struct {
  double lo, hi;
  int n, per_rho;
} cf_cli_grid;
int cf_cli_parse_grid(const char *spec, char axis, cf_cli_grid *g);
/* Both grids of --delta-grid / --alpha-grid (NULL: defaults); 0 or the
 * exit status after printing the error. */
int cf_cli_grids(const char *cmd, const char *dspec, const char *aspec, cf_cli_grid *gd, cf_cli_grid *ga);
/* --mu-grid A:B:N (N values of mu, the cloth's friction on the table, from
 * A to B; no *rho): NULL spec gives g->n = 0 (no mu axis).  Every one of
 * the n recordings must have a table.  0 or the exit status after the
 * error line. */
int cf_cli_mu_grid(const char *cmd, const char *spec, const cf_fit_input *in, int n, cf_cli_grid *g);
/* fit --params delta,alpha,mu: the grid start's mu axis unless --mu-grid
 * (thesis Table 4.7: fitted mu from 0 to 2). */
#define CF_CLI_MU_GRID "0:2:5"
/* The axis for density rho, malloc'ed [g->n]. */
double *cf_cli_axis(const cf_cli_grid *g, double rho);
/* "A:B" numbers with 0 <= A < B (B may be omitted: +inf). */
int cf_cli_parse_range(const char *s, double *a, double *b);
/* "D,A": two finite numbers >= 0. */
int cf_cli_parse_pair(const char *s, double *a, double *b);
/* An integer >= lo. */
int cf_cli_parse_int(const char *s, int lo, int *v);
/* --workers value (NULL: 0 = all cores) into *workers; 0 or the exit status. */
int cf_cli_workers(const char *cmd, const char *s, int *workers);

/* ------------------------------------------------------------- tasks */
/* A grid point whose simulation failed (not one left to another shard). */
static inline int cf_cli_point_failed(int status) { return status != CF_OK && status != CF_ENOTRUN; }
/* The message of the sweep's first point that did not simulate ("" if none). */
const char *cf_cli_first_failure(const cf_res_sweep *w);

/* The task model of the sweeping commands (tasks.c): grid points numbered
 * across the command's recordings, a journal beside the -o file that makes
 * the run crash-safe (rerunning resumes; --restart discards it), and
 * --shard I/N (only the tasks with id % N == I run; `merge` joins shards). */
typedef struct {
  const char *out;   /* -o file (NULL: no journal) */
  const char *shard; /* --shard I/N or NULL */
  int restart;       /* --restart */
} cf_cli_task_opts;
typedef struct {
  cf_journal *journal;     /* NULL without -o */
  int shard_i, shard_n;    /* shard_n 0: all tasks */
  unsigned long long next; /* id of the next sweep's first task */
  unsigned long long key;  /* hash of what the results depend on */
  char path[1100];         /* the journal */
  cf_sweep_checkpoint ck;  /* the journal as src/fit's checkpoint (ctx: this struct) */
  long resumed, ran;       /* tasks taken from the journal / simulated now */
  cf_fit_journal kept;     /* the journal for the other loops (cf_cli_tasks_kept) */
} cf_cli_tasks;
/* Parse the options, hash the run (command line, the n input files, the
 * config text) and open (or resume) the journal.  0, or the exit status
 * after printing the one-line error. */
int cf_cli_tasks_begin(const char *cmd, const cf_cli_task_opts *o, int argc, char **argv, const char *const *files,
                       int n, const char *config, cf_cli_tasks *t);
/* The journal for src/fit's other loops (Nelder-Mead fits, confidence
 * stencils, regression evaluations: each record "KIND SIZE HEX", the
 * item's bytes in hex without their trailing zeros); NULL without one
 * (no -o, or a rank other than 0). */
const cf_fit_journal *cf_cli_tasks_kept(cf_cli_tasks *t);
/* Number the next sweep's tasks and hand it the journal and the shard. */
void cf_cli_tasks_apply(cf_cli_tasks *t, cf_sweep_options *o);
/* Close and remove the journal: the command ends (having written its
 * results or reported its error); only a crash leaves it for a rerun. */
int cf_cli_tasks_end(const char *cmd, cf_cli_tasks *t);

/* ------------------------------------------------------------- progress */
typedef struct {
  cf_progress bar;
  long offset;        /* work done before the current call */
  cf_fit_progress fp; /* pass &fp to src/fit */
} cf_cli_bar;
void cf_cli_bar_start(cf_cli_bar *b, const char *label, long total);
void cf_cli_bar_end(cf_cli_bar *b);

/* ------------------------------------------------------- model settings */
/* The model parameters that are not fitted, held fixed by every command
 * that simulates recordings: --kappa K (bending stiffness, default
 * CF_CLI_FIT_KAPPA), --beta B (Rayleigh damping on K, default 0), --tol T
 * (the projection's relative constraint tolerance, default CF_CLI_FIT_TOL),
 * --max-iter N (projection iterations per step before the simulation
 * fails, default 50).  Why these defaults and not the simulator's own
 * (kappa 0, tol 1e-3, cf_params_default, still what `clothfit simulate`
 * and the library use): with those a shaken sheet's trajectory is
 * sensitive at the ~0.2 cm level (without bending stiffness the free
 * bottom edge flutters chaotically; the taut top edge between the held
 * corners can sag by about edge length * sqrt(tol)), so the error surface
 * has a ~0.25 cm floor; kappa 1e-3 and tol 1e-4 make it smooth down to the
 * 0.1 mm marker noise (on the bundled study: delta and alpha within 20 % of
 * the truth on 16 of 16 shake recordings, against 15 of 16 with kappa 0,
 * tol 1e-3; docs/driving.md), at more CPU time (docs/simulator.md); tighter
 * settings make simulations fail (reported as failed points, see
 * fit_failures.c).  The values are the option strings (NULL: default). */
typedef struct {
  const char *kappa, *beta, *tol, *max_iter, *mu;
  const char *model, *k_stretch, *k_shear, *k_bend; /* the cloth model and its stiffnesses */
  const char *rest;  /* the rest metric: "first-frame" (default) or "flat" */
  const char *split; /* the mesh: lattice cells split N x N (default 2) */
} cf_cli_model;
#define CF_CLI_FIT_KAPPA "1e-3"
#define CF_CLI_FIT_TOL "1e-4"
/* The four entries of a cf_cli_opt table for the cf_cli_model m. */
#define CF_CLI_MODEL_OPTS(m)                                                                            \
  {"--kappa", &(m).kappa, NULL}, {"--beta", &(m).beta, NULL}, {"--tol", &(m).tol, NULL},              \
      {"--max-iter", &(m).max_iter, NULL}, {"--mu", &(m).mu, NULL}, {"--model", &(m).model, NULL},    \
      {"--k-stretch", &(m).k_stretch, NULL}, {"--k-shear", &(m).k_shear, NULL},                       \
      {"--k-bend", &(m).k_bend, NULL}, {"--rest", &(m).rest, NULL}, {"--split", &(m).split, NULL}
/* Their usage words and --help section (the end of each command's help). */
#define CF_CLI_MODEL_USAGE                                                                               \
  "[--kappa K] [--beta B] [--tol T] [--max-iter N] [--mu M]\n"                                            \
  "                            [--model NAME] [--k-stretch S] [--k-shear H] [--k-bend B]\n"                 \
  "                            [--rest first-frame|flat] [--split N]"
#define CF_CLI_MODEL_HELP                                                              \
  "\n"                                                                                 \
  "The cloth model, and the parameters held fixed:\n"                                      \
  "  --kappa K    bending stiffness (default " CF_CLI_FIT_KAPPA ")\n"                   \
  "  --beta B     Rayleigh damping on K (default 0)\n"                                 \
  "  --tol T      relative constraint tolerance of the projection (default " CF_CLI_FIT_TOL ";\n" \
  "               0 < T < 1)\n"                                                        \
  "  --max-iter N projection iterations per step before the simulation fails\n"       \
  "               (default 50)\n"                                                      \
  "  --mu M       the cloth's friction on the recording's table (default 0; only\n"    \
  "               for recordings with a table, /table: ingest --table-height and\n"   \
  "               --table-extent)\n"                                                  \
  "  --model NAME the cloth model: inextensible (default, the thesis' model),\n"      \
  "               quasi-inextensible (edge lengths held, diagonal shear springs),\n"  \
  "               elastic (St. Venant-Kirchhoff membrane), mass-spring (structural,\n" \
  "               shear and bending springs); thesis Table 4.3, docs/models.md\n"     \
  "  --k-stretch S, --k-shear H, --k-bend B  its stiffnesses in N/m (defaults\n"       \
  "               50, 1, 0.1); fit varies the model's stretch and shear ones,\n"      \
  "               starting here, and holds k-bend (mass-spring's bending springs)\n"   \
  "  --rest first-frame|flat  the lengths the cloth keeps: those of the first\n"      \
  "               frame's marker lattice (default), or of a flat lattice whose\n"     \
  "               spacings are the largest mean recorded marker distances, the\n"     \
  "               first frame moved onto it as the start: for a cloth that starts\n"  \
  "               bent (its first frame's chords are shorter than the cloth)\n"      \
  "  --split N    the simulation mesh: every cell of the marker lattice split\n"       \
  "               N x N, 1..8 (default 2: 4x5 markers -> 7x9 nodes; synth makes\n"    \
  "               its recordings with 4); the nodes grow as N^2, the time of a\n"    \
  "               simulation faster (an A2 recording at 4: ~60 times that at 2;\n"   \
  "               docs/models.md)\n"                                                  \
  "These defaults are the settings recommended for fitting: with them the error\n"    \
  "surface of a shaken sheet is smooth down to the 0.1 mm marker noise.  The\n"       \
  "simulator's own defaults (--kappa 0 --tol 1e-3, those of clothfit simulate)\n"    \
  "run faster, but a shaken sheet's trajectory is sensitive there at the ~0.2 cm\n"  \
  "level (without bending stiffness the free bottom edge flutters chaotically;\n"    \
  "the taut top edge between the held corners can sag by ~ edge length *\n"         \
  "sqrt(tol)), so the error surface has a ~0.25 cm floor (docs/simulator.md).\n"
/* Check m's values (finite, kappa >= 0, beta >= 0, 0 < tol < 1, max_iter
 * a count >= 1, mu >= 0 and only for recordings with a table, a known
 * model, stiffnesses > 0, no table or stick with the elastic models, a
 * rest metric first-frame or flat, a split 1..CF_LATTICE_SPLIT_MAX) and
 * set fixed.kappa, fixed.beta, base.tol, base.max_iter, fixed.mu,
 * base.model, base's stiffnesses, tg.rest_flat and tg.split of in[0..n)
 * (n = 0: only check).  0,
 * or 1 after printing the one-line error naming the option and value. */
int cf_cli_model_apply(const char *cmd, const cf_cli_model *m, cf_fit_input *in, int n);
/* The cloth model and stiffnesses of m (--model, --k-stretch, --k-shear,
 * --k-bend) into p (the rest cf_params_default); 0, or 1 after the error. */
int cf_cli_cloth_model(const char *cmd, const cf_cli_model *m, cf_params *p);

/* ----------------------------------------------------------- recordings */
/* Check the model settings m (may be NULL: defaults), then load every path
 * with them (printing "clothfit CMD: <error>" and returning 1 on the first
 * failure, or when two recordings share a file stem).  *in has n. */
int cf_cli_load_inputs(const char *cmd, const char *const *paths, int n, const cf_cli_model *m, cf_fit_input **in);
void cf_cli_free_inputs(cf_fit_input *in, int n);
/* One stderr note per recording whose recorded top corners the driven
 * simulation pulls together at its tolerance (cf_fit_run_drive_fix,
 * docs/driving.md); cf_cli_load_inputs calls it. */
void cf_cli_note_driving(const char *cmd, const cf_fit_input *in, int n);
/* Frames [t0, t1) of the window [a, b) in seconds (b = inf: to the end). */
void cf_cli_window_frames(const cf_fit_input *in, double a, double b, int *t0, int *t1);

/* ------------------------------------------------------- fitting steps */
/* Sweep the grid (gd x ga axes for this recording's rho; gm: the mu axis,
 * NULL or gm->n = 0 for none) over frames [t0, t1) into rec->sweep; tasks
 * (may be NULL): journal and shard.  With a mu axis rec->sweep.model.mu is
 * the best point's mu. */
int cf_cli_sweep(const cf_fit_input *in, const cf_cli_grid *gd, const cf_cli_grid *ga, const cf_cli_grid *gm, int t0,
                 int t1, int workers, double prune, cf_cli_bar *bar, cf_cli_tasks *tasks, cf_res_rec *rec,
                 cf_error *err);
/* The pruning of a sweep from --prune (flag) and --prune-margin M (NULL
 * if not given; implies --prune): *prune = 0 (off) or the margin (>= 1,
 * cf_sweep_options.prune_margin).  Returns 0, or 1 after the error line. */
int cf_cli_prune(const char *cmd, int flag, const char *margin, double *prune);
/* Nelder-Mead on (delta, alpha) from (d0, a0) over the training frames
 * [t0, t1), then the per-frame errors at the optimum: rec->fit (training,
 * testing = the other frames, whole recording; failed evaluations) and
 * rec->series.  If the simulation at the start fails, nothing is stored and
 * start_failure[256] says why ("" otherwise): try another start.  kept (may
 * be NULL): the command's journal (the fit is read from it when an earlier
 * run finished it).  With in->polish the optimum is then polished
 * (cf_fit_polish, its design's simulations on `workers` processes). */
int cf_cli_refine(const cf_fit_input *in, double d0, double a0, const char *start_kind, int t0, int t1,
                  int max_evals, int workers, const cf_fit_journal *kept, cf_cli_bar *bar, cf_res_rec *rec,
                  char start_failure[256], cf_error *err);
/* The same for n recordings at once from their grid optima (d0[i], a0[i]),
 * training on the whole recording, one recording per worker process (all
 * with the model settings of in[0]); a recording whose start fails keeps
 * its grid optimum (with a warning); those with in[i]->polish are polished
 * one after the other. */
int cf_cli_refine_many(const cf_fit_input *const *in, int n, const double *d0, const double *a0, int max_evals,
                       int workers, const cf_fit_journal *kept, cf_cli_bar *bar, cf_res_rec *const *recs,
                       cf_error *err);
/* How sure each recording's fit (recs[i]->fit, over its training window)
 * is: 95 % intervals and the identifiable flag into recs[i]->fit.conf (9
 * simulations per recording on the workers; recordings without a fit are
 * skipped). */
int cf_cli_confidence(const cf_fit_input *const *in, int n, int workers, const cf_fit_journal *kept,
                      cf_res_rec *const *recs, cf_error *err);
/* The same at given points: each item's (delta, alpha) over its frames
 * [t0, t1) (t1 0: to the end), the result into *out; model (may be NULL:
 * in's) the settings of the point, whose stiffnesses are held (a fit's). */
typedef struct {
  const cf_fit_input *in;
  double delta, alpha;
  int t0, t1;
  cf_res_conf *out;
  const cf_res_model *model;
} cf_cli_conf_item;
int cf_cli_confidence_at(const cf_cli_conf_item *it, int n, int workers, const cf_fit_journal *kept, cf_error *err);
/* One line on the confidence of a fit ("" if not computed) into buf. */
void cf_cli_conf_text(const cf_res_conf *c, char *buf, size_t size);
/* The fits of r that are not identifiable, one line each on stdout after a
 * heading, and one warning on stderr with their count. */
void cf_cli_warn_unidentifiable(const char *cmd, const cf_results *r);
/* The members "delta_interval":[lo,hi], "alpha_interval":[lo,hi],
 * "identifiable", ... of the JSON object o. */
void cf_cli_json_conf(json_t *o, const cf_res_conf *c);
/* A comparison of cloth models (clothfit compare): its table on stdout,
 * and its JSON members ("train_window_s":[..] ... "models":[..]) in o. */
void cf_cli_compare_text(const cf_res_rec *rec);
void cf_cli_compare_json(json_t *o, const cf_res_compare *c);
/* One line on the polish of a fit (fit --polish; "" when none) into buf. */
void cf_cli_polish_text(const cf_res_fit *f, char *buf, size_t size);
/* The members "polish", "polished", "polish_evaluations", "nm_delta",
 * "nm_alpha", "nm_mu", "nm_train_error_cm", "polish_why" of o. */
void cf_cli_json_polish(json_t *o, const cf_res_fit *f);
/* The optimum of r must come from the model settings in carries (cloth
 * model, kappa, beta, tol, max_iter, mu, rest metric, mesh split,
 * stiffnesses), or its error E* and a start taken from it would not belong
 * to this run: CF_OK, or CF_EINVAL with a message naming opt_name, both
 * settings and the options to give. */
int cf_cli_check_model(const cf_fit_input *in, const cf_res_rec *r, const char *opt_name, cf_error *err);
/* Simulate at (delta, alpha): per-frame errors fe[T] (may be NULL) and the
 * mean error / std over the whole recording (+inf if the simulation fails,
 * with reason). */
int cf_cli_eval(const cf_fit_input *in, double delta, double alpha, cf_frame_error *fe, double *e, double *s,
                char reason[256], cf_error *err);

/* The a-priori formulas (4.6) fitted to the recordings (cf_regress_fit:
 * least squares on their optima in opt, named opt_name in messages, then
 * Nelder-Mead on R, simulated with the model settings of in[0]) into g.  A
 * recording without an optimum is an error, or left out with skip_failed;
 * an optimum found with other model settings is an error. */
int cf_cli_regress(const cf_fit_input *in, int n, const cf_results *opt, const char *opt_name, int skip_failed,
                   int max_evals, int workers, const cf_fit_journal *kept, cf_cli_bar *bar, cf_res_regression *g,
                   cf_error *err);

/* --------------------------------------------------------------- results */
/* Read OUT (if given and present) into r and stamp this run's provenance;
 * 0 or the exit status after printing the error. */
int cf_cli_results_begin(const char *cmd, const char *out, cf_results *r, int argc, char **argv, int workers,
                         const char *config_text);
/* cf_results_stamp, with the ranks and hosts of an mpirun job (collective:
 * every rank calls it). */
void cf_cli_results_stamp(cf_results *r, int argc, char **argv, int workers, const char *config_text);
/* Write r to OUT (if given); 0 or the exit status. */
int cf_cli_results_write(const char *cmd, const char *out, cf_results *r);

/* ---------------------------------------------------------------- tables */
/* Table A.1: per recording material, size, motion, speed, error, std,
 * alpha, delta at the optimum (refined if any), and the truth if known;
 * "no valid grid point" and the first failure for recordings without one.
 * When some recordings are of repetition II (the thesis' hanger-driven
 * takes), they form a Table A.2 of their own, printed after Table A.1 of
 * the others, each under its title (as in the report). */
void cf_cli_table_a1(const cf_results *r);
/* Whether rec's grid optimum (the sweep's best point) lies on an edge of its
 * grid: 1 with advice (e.g. "delta at its lowest grid value 0.0052 (widen
 * --delta-grid below it)") in buf, 0 if inside, -1 without a sweep optimum. */
int cf_cli_grid_edge(const cf_res_rec *rec, char *buf, size_t size);
/* One stderr warning line per recording of r whose grid optimum is on an
 * edge of its grid; the count. */
int cf_cli_warn_grid_edges(const char *cmd, const cf_results *r);
/* Recordings of r without an optimum (every grid point failed). */
int cf_cli_n_failed(const cf_results *r);
/* ---------------------------------------------- failed simulations */
/* A simulation that fails (the projection does not converge within
 * --max-iter, the state turns non-finite ...) is a failed grid point of its
 * sweep (status, reason "step N (t = X s): ...") or a failed Nelder-Mead
 * evaluation (fit_failures.c); the commands say so. */
typedef struct {
  int failed, points;     /* failed grid points of rec's sweep, its points (0: no sweep) */
  int nm_failed, nm_evals; /* failed Nelder-Mead evaluations of rec's fit, its evaluations */
} cf_cli_failures;
cf_cli_failures cf_cli_failures_of(const cf_res_rec *rec);
/* Whether a grid neighbour (8-neighbourhood) of rec's sweep optimum failed:
 * 1 (with *failed of *neighbours, both may be NULL), 0, or -1 without an
 * optimum of the grid. */
int cf_cli_optimum_borders_failed(const cf_res_rec *rec, int *failed, int *neighbours);
/* stderr warnings: per recording of r with failures, one line for its grid
 * (how many of the grid failed, the first failed points with the step and
 * time of their failure and the first reason), one for its Nelder-Mead
 * evaluations, one if the simulation at its optimum failed, one if its
 * grid optimum borders failed points; then one total line naming out (may
 * be NULL), the file keeping the failed points.  Returns the failures. */
long cf_cli_warn_failures(const char *cmd, const cf_results *r, const char *out);
/* The JSON members (in o) of rec: failed_points, grid_points, failed_fraction,
 * optimum_borders_failed (null without a sweep / its optimum),
 * failed_evaluations (null without a fit). */
void cf_cli_json_failures(json_t *o, const cf_res_rec *rec);
/* The same counts summed over r (no optimum_borders_failed). */
void cf_cli_json_failure_totals(json_t *o, const cf_results *r);
/* 1 if rec has an optimum with a finite error. */
int cf_cli_finite_optimum(const cf_res_rec *rec);
/* Recordings of r without a finite optimum: 0 if none, else 1 after one
 * error line naming them and why (out: where their failed points are;
 * under mpirun printed by rank 0, and the status is collective, below). */
int cf_cli_fail_no_optimum(const char *cmd, const cf_results *r, const char *out);
/* Under mpirun, main() ends the whole job at once (MPI_Abort) when a
 * command fails, because an error one rank meets alone would leave the
 * others waiting for it.  A status that every rank reaches from the same
 * results (they are broadcast: e.g. "a recording without an optimum", after
 * the results file is written) is marked with cf_cli_collective_status(rc),
 * which returns rc; then the ranks end normally with that status.  The mark
 * is the one piece of process-wide state of the commands: main() reads it
 * once, after the command returned. */
int cf_cli_collective_status(int rc);
int cf_cli_status_is_collective(void);

/* Table 4.5: mean error and std at the optima by material, size, motion,
 * speed and overall (groups with metadata only). */
void cf_cli_table_45(const cf_results *r);
/* Table 4.6: the coefficients, R* and E*. */
void cf_cli_table_46(const cf_res_regression *g);
/* The JSON member "recordings":[{name, delta, alpha, error_cm, std_cm ...}]
 * of o. */
void cf_cli_json_recordings(json_t *o, const cf_results *r);
/* Reports (cmd_report.c): write the report of r (read from results_path)
 * into dir, with gnuplot when it is on PATH (*have_gnuplot; `workers` runs
 * at once, 0: one per core), progress on stderr, the snapshots at
 * times[n_times] (s; NULL: the default instants); returns 0, or 2 when the
 * report could not be written (the error, naming the path or the time, is
 * printed).  cf_cli_report_status: 0, or 1 with one line when gnuplot is
 * missing or a figure failed (the tables are written). */
int cf_cli_report_write(const char *cmd, const char *results_path, const cf_results *r, const char *dir, int workers,
                        const double *times, int n_times, cf_report_summary *s, int *have_gnuplot);
int cf_cli_report_status(const char *cmd, const cf_report_summary *s, int have_gnuplot);
#endif
