/* cf_pipeline_study.h — whole studies and experiments.
 * Part of the API of cf_pipeline.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_PIPELINE_STUDY_H
#define CF_PIPELINE_STUDY_H

#include "cf_recording.h"
#include "cf_study.h"
#include "cf_profile.h"
#include "cf_pipeline_base.h"
#include "cf_pipeline_options.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
