/* fit_cli.h — what the fitting commands share (sweep, fit, sensitivity,
 * predict, regress, experiment): the model options of their option tables
 * (commands.h), grid and model values from their option strings, a progress bar for the
 * pipeline's stages, the library's steps with their errors printed, and
 * the thesis-style tables.  The steps themselves are the library's
 * (cf_pipeline.h). */
#ifndef CF_FIT_CLI_H
#define CF_FIT_CLI_H

#include "cf_pipeline.h"
#include "commands.h"
#include "cf_report.h"
#include "json_out.h"
#include "progress.h"

/* ------------------------------------------------------------------ values */
/* Both grids of --delta-grid / --alpha-grid (NULL: defaults); 0 or the
 * exit status after printing the error.  The values are the library's
 * (cf_pipeline_parse_grid and the other parsers, cf_pipeline.h "options"). */
int cf_cli_grids(const char *cmd, const char *dspec, const char *aspec, cf_pipeline_grid *gd, cf_pipeline_grid *ga);
/* --mu-grid A:B:N (NULL spec gives g->n = 0: no mu axis); every one of
 * the n recordings must have a table.  0 or the exit status after the
 * error line. */
int cf_cli_mu_grid(const char *cmd, const char *spec, const cf_fit_input *in, int n, cf_pipeline_grid *g);
/* --workers value (NULL: 0 = all cores) into *workers; 0 or the exit status. */
int cf_cli_workers(const char *cmd, const char *s, int *workers);

/* ------------------------------------------------------------- tasks */
/* The message of the sweep's first point that did not simulate ("" if none). */
const char *cf_cli_first_failure(const cf_res_sweep *w);

/* cf_pipeline_tasks_begin, printing the error, and a note when a record cut
 * short by a crash was dropped or finished tasks are resumed (the task
 * model: cf_pipeline.h); 0 or the exit status. */
int cf_cli_tasks_begin(const char *cmd, const cf_pipeline_task_opts *o, int argc, char **argv,
                       const char *const *files, int n, const char *config, cf_pipeline_tasks *t);
/* Its notes alone, after the library opened t. */
void cf_cli_tasks_notes(const char *cmd, const cf_pipeline_tasks *t);
/* cf_pipeline_tasks_end, printing the error; 0 or the exit status. */
int cf_cli_tasks_end(const char *cmd, cf_pipeline_tasks *t);

/* ------------------------------------------------------------- progress */
/* A bar for one stage (start .. end; pass &pp to the pipeline's steps), or
 * for every stage of a composite step (cf_cli_bar_stages: the pipeline
 * starts and ends them); its notes are printed as "clothfit: warning: ..". */
typedef struct {
  cf_progress bar;
  cf_pipeline_progress pp;
} cf_cli_bar;
void cf_cli_bar_start(cf_cli_bar *b, const char *label, long total);
void cf_cli_bar_end(cf_cli_bar *b);
void cf_cli_bar_stages(cf_cli_bar *b);

/* ------------------------------------------------------- model settings */
/* The model parameters that are not fitted, held fixed by every command
 * that simulates recordings: --kappa K (bending stiffness, default
 * CF_PIPELINE_KAPPA), --beta B (Rayleigh damping on K, default 0), --tol T
 * (the projection's relative constraint tolerance, default CF_PIPELINE_TOL),
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
typedef cf_pipeline_model_text cf_cli_model;
/* The entries of a cf_cli_option table (commands.h) for the cf_cli_model
 * at member m of the options struct T; their usage words and --help
 * section are help/model-usage.txt and help/model-help.txt, which state
 * these defaults. */
#define CF_CLI_MODEL_OPTIONS(T, m)                                                                          \
  CF_CLI_VALUE("--kappa", T, m.kappa), CF_CLI_VALUE("--beta", T, m.beta), CF_CLI_VALUE("--tol", T, m.tol),  \
      CF_CLI_VALUE("--max-iter", T, m.max_iter), CF_CLI_VALUE("--mu", T, m.mu),                            \
      CF_CLI_VALUE("--model", T, m.model), CF_CLI_VALUE("--k-stretch", T, m.k_stretch),                    \
      CF_CLI_VALUE("--k-shear", T, m.k_shear), CF_CLI_VALUE("--k-bend", T, m.k_bend),                      \
      CF_CLI_VALUE("--rest", T, m.rest), CF_CLI_VALUE("--split", T, m.split),                              \
      CF_CLI_VALUE("--substeps", T, m.substeps), CF_CLI_VALUE("--initial", T, m.initial)
/* Check m's values (finite, kappa >= 0, beta >= 0, 0 < tol < 1, max_iter
 * a count >= 1, mu >= 0 and only for recordings with a table, a known
 * model, stiffnesses > 0, no table or stick with the elastic models, a
 * rest metric size, flat or first-frame, a split 1..CF_LATTICE_SPLIT_MAX
 * (N, or RxC down and across),
 * substeps 1..64, a start rest or moving) and set fixed.kappa, fixed.beta,
 * base.tol, base.max_iter, fixed.mu, base.model, base's stiffnesses,
 * tg.rest, tg.size, tg.split, tg.split_cols, tg.substeps and tg.start of in[0..n) (n = 0:
 * only check; without --rest, the size where the recording gives it, else
 * the first frame, with a note on stderr).  0,
 * or 1 after printing the one-line error naming the option and value. */
int cf_cli_model_apply(const char *cmd, const cf_cli_model *m, cf_fit_input *in, int n);
/* The note of cf_cli_model_apply on stderr alone: each of in[0..n) whose
 * rest shape is its first frame because it gives no size (v->rest auto). */
void cf_cli_note_rest(const char *cmd, const cf_pipeline_model *v, const cf_fit_input *in, int n);
/* m's values into v (cf_pipeline_model); 0, or 1 after the error. */
int cf_cli_model_values(const char *cmd, const cf_cli_model *m, cf_pipeline_model *v);
/* The cloth model and stiffnesses of m (--model, --k-stretch, --k-shear,
 * --k-bend) into p (the rest cf_params_default); 0, or 1 after the error. */
int cf_cli_cloth_model(const char *cmd, const cf_cli_model *m, cf_params *p);

/* ----------------------------------------------------------- recordings */
/* Check the model settings m (may be NULL: defaults), then load every path
 * with them (printing "clothfit CMD: <error>" and returning 1 on the first
 * failure, or when two recordings share a file stem).  *in has n. */
int cf_cli_load_inputs(const char *cmd, const char *const *paths, int n, const cf_cli_model *m, cf_fit_input **in);
/* One stderr note per recording whose recorded top corners the driven
 * simulation pulls together at its tolerance (cf_fit_run_drive_fix,
 * docs/driving.md), and one per recording whose fitted start lies more than
 * CF_CLI_START_NOTE_M from a first-frame marker (docs/start.md);
 * cf_cli_load_inputs calls it. */
void cf_cli_note_driving(const char *cmd, const cf_fit_input *in, int n);
/* The start's largest marker distance above which that note also says the
 * start was fitted to a first frame no sheet of the model meets (m). */
#define CF_CLI_START_NOTE_M 1e-3
/* The text "start residual ..., held points ..." of rec's driving
 * (cf_res_drive) into buf; "" when not known. */
void cf_cli_drive_text(const cf_res_rec *rec, char *buf, size_t size);
/* Its values into the JSON object j (mm; null where not known). */
void cf_cli_json_drive(json_t *j, const cf_res_rec *rec);
/* A visitor of the library's named values (cf_pipeline_fields) that sets
 * them as members of the JSON object j (nested objects and arrays as
 * members): the --json of the fields that the library lists
 * (cf_pipeline_fit_fields, cf_pipeline_experiment_fields ...). */
cf_pipeline_fields cf_cli_json_fields(json_t *j);

/* ------------------------------------------------------- fitting steps */
/* The pruning of a sweep from --prune (flag) and --prune-margin M (NULL
 * if not given; implies --prune): *prune = 0 (off) or the margin (>= 1,
 * cf_sweep_options.prune_margin).  Returns 0, or 1 after the error line. */
int cf_cli_prune(const char *cmd, int flag, const char *margin, double *prune);
/* --search trust|nelder-mead (value NULL: the inputs keep theirs) onto the
 * refinements of in[n] (cf_fit_input.search): 0, or 1 with the error said. */
int cf_cli_search(const char *cmd, const char *value, cf_fit_input *in, int n);
/* The regression's search named by option opt's value, model or
 * nelder-mead (NULL: model), into *search (CF_REGRESS_*): 0, or 1 with the
 * error said. */
int cf_cli_regress_search(const char *cmd, const char *opt, const char *value, int *search);
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
/* The remeshing check of thesis §4.1.5 (rec->remesh, experiment wam): its
 * table on stdout (mesh, split, e on the testing window, the thesis' value,
 * the ratio to the fit's mesh), and its JSON members (delta, alpha,
 * test_window_s, meshes:[{mesh, split, status, reason, test_error_cm,
 * test_std_cm, fit_reused}]) in o. */
void cf_cli_remesh_text(const cf_res_rec *rec);
void cf_cli_remesh_json(json_t *o, const cf_res_remesh *m);
/* One line on the polish of a fit (fit --polish; "" when none) into buf. */
void cf_cli_polish_text(const cf_res_fit *f, char *buf, size_t size);
/* The members "polish", "polished", "polish_evaluations", "nm_delta",
 * "nm_alpha", "nm_mu", "nm_train_error_cm", "polish_why" of o. */
void cf_cli_json_polish(json_t *o, const cf_res_fit *f);
/* --------------------------------------------------------------- results */
/* Read OUT (if given and present) into r and stamp this run's provenance;
 * 0 or the exit status after printing the error. */
int cf_cli_results_begin(const char *cmd, const char *out, cf_results *r, int argc, char **argv, int workers,
                         const char *config_text);
/* Write r to OUT (if given); 0 or the exit status. */
int cf_cli_results_write(const char *cmd, const char *out, cf_results *r);
/* The journal and the results file of a run of c (cf_cli_tasks_begin of
 * the n files and config, then cf_cli_results_begin of o->out): 0 or the
 * exit status. */
int cf_cli_outputs_begin(const cf_cli_call *c, const cf_pipeline_task_opts *o, const char *const *files, int n,
                         const char *config, int workers, cf_pipeline_tasks *tk, cf_results *res);
/* After the run, whose status is rc: the results written to out (if rc is
 * 0), the tasks taken from the journal into *resumed (may be NULL), the
 * journal closed (cf_cli_tasks_end); the exit status. */
int cf_cli_outputs_end(const char *cmd, int rc, const char *out, cf_results *res, cf_pipeline_tasks *tk, int *resumed);
/* A command over one recording (fit, sensitivity, compare): its journal
 * and results file (o, workers), its record in them, step filling it,
 * the results written and the journal closed; then, when all went well,
 * text and (with --json) json of the record.  opts is the command's
 * options struct, handed to each; *resumed (may be NULL) gets the tasks
 * taken from the journal.  The exit status. */
typedef struct {
  int (*step)(void *opts, cf_fit_input *in, cf_res_rec *rec);
  void (*text)(const void *opts, const cf_res_rec *rec);
  void (*json)(const void *opts, const cf_res_rec *rec);
} cf_cli_recording_run;
int cf_cli_run_recording(const cf_cli_call *c, void *opts, const cf_pipeline_task_opts *o, int workers,
                         cf_pipeline_tasks *tk, int *resumed, const cf_cli_recording_run *r);
/* The record of the recording name in res (made when missing); NULL after
 * the error line "out of memory". */
cf_res_rec *cf_cli_results_rec(const char *cmd, cf_results *res, const char *name);

/* ---------------------------------------------------------------- tables */
/* Table A.1: per recording material, size, motion, speed, error, std,
 * alpha, delta at the optimum (refined if any), and the truth if known;
 * "no valid grid point" and the first failure for recordings without one.
 * When some recordings are of repetition II (the thesis' hanger-driven
 * takes), they form a Table A.2 of their own, printed after Table A.1 of
 * the others, each under its title (as in the report). */
void cf_cli_table_a1(const cf_results *r);
/* Thesis Table 4.2 (the WAM study, §4.1): per recording with a fit, delta,
 * alpha and the mean error on the testing window, beside the truth of a
 * synthetic recording and the thesis' values (cf_thesis_table_42), and
 * whether the fit recovers the truth (cf_res_truth_check, 10 %). */
void cf_cli_table_42(const cf_results *r);
/* (whether a grid optimum is on the grid's edge: cf_pipeline_grid_edge) */
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
/* (the counts: cf_pipeline_failures_of) */
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
/* Reports (report_write.c): write the report of r (read from results_path)
 * into dir, with gnuplot when it is on PATH (*have_gnuplot; `workers` runs
 * at once, 0: one per core), progress on stderr, the snapshots at
 * times[n_times] (s; NULL: the default instants); returns 0, or 2 when the
 * report could not be written (the error, naming the path or the time, is
 * printed).  cf_cli_report_status: 0, or 1 with one line when gnuplot is
 * missing or a figure failed (the tables are written). */
int cf_cli_report_write(const char *cmd, const char *results_path, const cf_results *r, const char *dir, int workers,
                        const double *times, int n_times, cf_report_summary *s, int *have_gnuplot);
int cf_cli_report_status(const char *cmd, const cf_report_summary *s, int have_gnuplot);
/* `fit --profile`'s output (fit_profile.c): the lines "profile ..." of
 * the text, and the member "profile" of j (docs/commands.md). */
void cf_cli_profile_text(const cf_profile *p);
void cf_cli_profile_json(json_t *j, const cf_profile *p);
#endif
