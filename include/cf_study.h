/* cf_study.h — the public API of src/study: scenarios, studies and their
 * results — where recordings meet the simulator and the fitter.
 *
 * Above src/io, src/recording, src/sim and src/fit in the data flow (files
 * -> recording -> simulation/fit -> results -> report): simulation
 * scenarios read from INI configs, the adapter from an HDF5 recording to a
 * fit target (cf_fit_input), experiment lists and ground truths, and the
 * conversions from the fitter's results into the results files of src/io
 * (cf_results).  The commands of src/cli and the reports of src/report
 * build on it.  Conventions (errors, ownership) as stated in cf_io.h. */
#ifndef CF_STUDY_H
#define CF_STUDY_H

#include "cf_io.h"
#include "cf_sim.h"
#include "cf_fit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- scenarios */
#define CF_SCENARIO_MAX_OBSTACLES 16
/* A simulation scenario read from an INI config file (see
 * experiments/shake_a2.ini for every key and its meaning). */
typedef struct {
  char name[128];
  /* cloth and mesh */
  double width, height;   /* m */
  char mesh_kind[32];     /* "quads" | "triangles" */
  int nx, ny;             /* nodes along width and height */
  double noise;           /* m, random perturbation of the initial nodes */
  unsigned long seed;
  char orientation[32];   /* "hanging" (plane xz, top edge at z = height) | "horizontal" */
  /* physics */
  cf_params params;
  double duration;        /* s */
  /* driving */
  char drive_nodes[64];   /* "top-corners" | "none" | "three-corners" | comma-separated node list */
  cf_drive drive;
  /* obstacles: sections [obstacle.NAME] (docs/contacts.md), in file order */
  int n_obstacles;
  cf_obstacle obstacles[CF_SCENARIO_MAX_OBSTACLES];
  char obstacle_names[CF_SCENARIO_MAX_OBSTACLES][64];
  cf_contact_params contact; /* section [contact] */
  /* the whole config text, for provenance */
  char *text;
} cf_scenario;

/* Parse path into sc (defaults for missing keys); unknown sections/keys and
 * malformed values are errors naming file, line and key. */
int cf_scenario_load(const char *path, cf_scenario *sc, cf_error *err);
void cf_scenario_free(cf_scenario *sc);
/* Build the mesh and the list of kinematic nodes (*kin malloc'ed). */
int cf_scenario_mesh(const cf_scenario *sc, cf_mesh **mesh, int **kin, int *n_kin, cf_error *err);


/* ------------------------------------------ fitting inputs (fit_input.c) */
/* The bridge from an HDF5 recording to src/fit (which never reads files,
 * cf_fit.h): the rows x cols lattice markers (first in marker order,
 * row-major, after marker processing) copied into one contiguous
 * [T][rows*cols][3] array, their lattice weights, the controlled markers,
 * rho from /meta density, dt from /time (must be uniform), the size measure
 * S = area / A3 area (NaN without width/height) and the speed measure V of
 * the lattice markers (cf_speed_measure).  It lives in src/io because it
 * needs the recording reader and is shared by every fitting command and by
 * reports; src/fit stays free of I/O. */
typedef struct {
  cf_fit_target tg;        /* points into pos, weight, ctrl below */
  double *pos, *weight;    /* [T*K*3], [K] (malloc'ed) */
  int *ctrl;               /* [tg.n_ctrl] lattice indices, NULL: top corners */
  double *stick;           /* [T*6] the stick's endpoints (malloc'ed), NULL: none */
  /* A point-cloud recording (cf_fit_input_from_clouds; NULL: none): the
   * clouds' times, offsets and points tg's cloud_* point into (malloc'ed) */
  double *cloud_time, *cloud_points;
  long *cloud_offset;
  /* Its grippers (tg's grip_*, malloc'ed; NULL: the two top corners as
   * controlled markers, the hanger of files written before) */
  double *grip_uv, *grip_track, *grip_window;
  double S, V;             /* size and speed measures (NaN if unknown) */
  double duration;         /* s: (T - 1) dt */
  cf_rec_meta meta;
  char path[1024];         /* the recording file */
  char name[256];          /* its stem: results groups are named after it */
  /* The model settings this recording is simulated with, carried here so
   * that every step of a command (sweep, refinement, evaluation,
   * regression) uses the same ones and the results can record them.  base:
   * the simulation settings (tol, max_iter, ...; rho and dt come from the
   * target, delta .. kappa from the fit point); fixed: the parameters held
   * while delta and alpha are fitted (beta, kappa).  The loader sets
   * cf_params_default() and zeros; the commands' --kappa, --beta, --tol
   * change them (cf_pipeline_model_apply). */
  cf_params base;
  cf_fit_point fixed;
  /* 1: the refinements fit mu (the cloth's friction on the recording's
   * table) with delta and alpha, from fixed.mu; 0: mu is held at fixed.mu.
   * The loader sets 0 and fixed.mu = 0; `fit --params delta,alpha,mu` and
   * `--mu` change them. */
  int fit_mu;
  /* The log-scale parameters the refinements fit besides delta, alpha (and
   * mu) and the model's stiffnesses: CF_STIFF_BIT(CF_STIFF_KAPPA) and/or
   * CF_STIFF_BIT(CF_STIFF_BETA) (cf_nm_options_log_params: from fixed.kappa
   * and fixed.beta, log10, bounded); the grid start holds them at fixed's.
   * The loader sets 0; `fit --params delta,alpha,kappa[,beta]` changes it,
   * and a caller that refits with kappa free sets it on a copy of the
   * input (cf_pipeline_refine). */
  unsigned fit_log;
  /* 1: each refinement's optimum is polished (cf_fit_polish: the minimum
   * of a quadratic fitted to the error around it); 0: Nelder-Mead's as it
   * is.  The loader sets 1 for a recording with a table (its error is rough:
   * polish.c), else 0; `fit --polish` changes it. */
  int polish;
  /* The refinements' search: CF_SEARCH_NM (Nelder-Mead) or CF_SEARCH_TRUST
   * (the trust-region search, cf_fit_minimize).  The loader sets
   * CF_SEARCH_NM; the commands' --search changes it. */
  int search;
} cf_fit_input;

/* Read path and build the target.  A mesh recording (ingest meshes, no
 * marker lattice) whose faces form a grid (cf_rec_mesh_grid) is one too:
 * its nodes are the markers in the grid's order, weighted by the lumped
 * mass of its own faces at frame 0, its held nodes (default: the two
 * highest corners) controlled, dropped frames NaN, and the mesh itself the
 * simulated cloth (tg.split 1; a marker lattice gets 0, the default split).
 * One-line errors naming
 * the file: not a recording, no lattice ("ingest with --lattice RxC"), a
 * mesh that is not a grid, no density, native (non-uniform) time, lattice
 * markers not first, controlled markers off the lattice, fewer than 2
 * frames. */
int cf_fit_input_load(const char *path, cf_fit_input *in, cf_error *err);
/* The same from a recording in memory (path names it in messages); a
 * point-cloud recording (r->cloud) is read by cf_fit_input_from_clouds. */
int cf_fit_input_from_recording(const cf_recording *r, const char *path, cf_fit_input *in, cf_error *err);
/* A point-cloud recording as a target (fit_cloud.c): the simulated cloth is
 * a flat rectangle of the cloth's size (/meta width_m x height_m, required)
 * whose lattice (r->cloud.grid, default CF_CLOUD_GRID x CF_CLOUD_GRID; each
 * cell split by the target's split, 2 by default: 9 x 9 nodes) hangs at rest from its two top
 * corners at the first frame; the corners follow the held track (/held,
 * linear in time) at frames of CF_CLOUD_DT; every other marker is missing,
 * and the frames' errors are the clouds' (cf_fit_target.n_cloud).  Other
 * grippers than that hanger (one or more, at any points of the sheet, with
 * grasp windows: /held point, grasp) drive it as tg's grippers (grip_*),
 * the sheet still hanging from the top corners at frame 0, or lying flat
 * on the recording's table (/held start flat-on-table, fit_flat.c).  The
 * recording's table is the target's.  S from the size, V the speed
 * measure of the held corners (or grippers). */
#define CF_CLOUD_GRID 5
#define CF_CLOUD_DT 0.01
#define CF_CLOUD_FIT_POINTS 2000 /* points of a cloud measured at most (fit_cloud.c says why) */
int cf_fit_input_from_clouds(const cf_recording *r, const char *path, cf_fit_input *in, cf_error *err);
void cf_fit_input_free(cf_fit_input *in);
/* The file name without folders and its last extension ("a/b/rec.h5" -> "rec"). */
void cf_path_stem(const char *path, char *buf, size_t size);

/* A study's file lists (study.c).  An experiment list is an INI file
 *   [recordings]
 *   files = a.h5, b.h5      ; comma- or blank-separated, relative to the INI;
 *                           ; the key may repeat or continue on indented lines
 * *files (malloc'ed array of malloc'ed paths) and *text (the whole file, for
 * provenance; may be NULL).  Unknown sections or keys are errors. */
int cf_experiment_load(const char *path, char ***files, int *n, char **text, cf_error *err);
/* delta and alpha of the [truth] section of a ground-truth sidecar (synth's
 * NAME.truth.ini); other sections are ignored; NaN when absent. */
int cf_truth_load(const char *path, double *delta, double *alpha, cf_error *err);


/* -------------------------------------------------- trajectories and results */
/* The parameters of p as the names and values of a trajectory file's root
 * attributes (cf_trajectory.param_names / param_values): names[] and
 * values[] need room for CF_TRAJECTORY_PARAMS entries; returns the count. */
enum { CF_TRAJECTORY_PARAMS = 17 };
int cf_trajectory_params(const cf_params *p, const char **names, double *values);

/* Copy the descriptors (name, file, meta, rho, S, V, dt, frames) of in. */
void cf_res_rec_describe(cf_res_rec *rec, const cf_fit_input *in);
/* What the driven simulation of in (its target and settings) changes of
 * the recording: the start's residual, the held points' smoothing and
 * pulls (cf_fit_run_drive_fix), and into why[size] (size 0: not wanted)
 * why it refuses the recording ("": it does not, cf_fit_run_refusal).
 * CF_OK, or the run's error (the recording cannot be simulated: the
 * commands report it). */
int cf_fit_input_drive_fix(const cf_fit_input *in, cf_drive_fix *fix, char *why, size_t size);
/* Replace rec's sweep / sensitivity with the grid and result given. */
int cf_res_set_sweep(cf_res_rec *rec, const cf_sweep_options *o, const cf_sweep_result *sr, double dt);
int cf_res_set_sens(cf_res_rec *rec, const char *kind, double at_delta, double at_alpha, const cf_sweep_options *o,
                    const cf_sweep_result *sr);
/* Replace rec's per-frame series with fe[tg->T] at (delta, alpha), and the
 * markers: tg's recorded ones and the simulated sim[T*rows*cols*3] (NULL:
 * none stored). */
int cf_res_set_series(cf_res_rec *rec, const cf_frame_error *fe, const cf_fit_target *tg, const double *sim,
                      double delta, double alpha);
/* The model settings of in (its fixed kappa, beta and base tol). */
cf_res_model cf_res_model_of(const cf_fit_input *in);

/* Join the n shard files s[] (read from names[]) of one `sweep --shard I/N`
 * into s[0] (shards.c): each grid point is taken from the shard that ran it
 * and the best points are found again.  Every missing task (no shard ran
 * it) and conflicting one (two shards, different results) is one line on
 * log, counted in *problems, and makes the call fail (CF_EINVAL): s[0] is
 * then partly merged and must not be written.  Shard files of different
 * sweeps (task key, N, recordings or grids) are refused naming the file. */
int cf_shards_merge(cf_results *s, const char *const *names, int n, FILE *log, int *problems, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
