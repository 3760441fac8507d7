/* cf_pipeline_base.h — progress, grids, model settings, recordings, tasks and results of the pipeline.
 * Part of the API of cf_pipeline.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_PIPELINE_BASE_H
#define CF_PIPELINE_BASE_H

#include "cf_recording.h"
#include "cf_study.h"
#include "cf_profile.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
