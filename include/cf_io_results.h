/* cf_io_results.h — the results record: sweeps, fits, series, maps, comparisons, regressions.
 * Part of the API of cf_io.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_IO_RESULTS_H
#define CF_IO_RESULTS_H

#include <stddef.h>
#include <stdio.h>
#include "cf_common.h"
#include "cf_io_recording.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------- results files (results*.c) */
/* What sweeps, fits, sensitivity maps and regressions produced
 * (docs/design.md §6), in memory and in HDF5 (layout in results_h5.c).  A
 * results file is rewritten whole and atomically: commands with -o read the
 * existing file (if any), replace the parts they computed and write it back,
 * so `sweep`, `fit`, `sensitivity` and `regress` can fill one file. */
typedef struct {           /* the model settings a part was computed with */
  double kappa, beta;      /* bending stiffness and damping held fixed */
  double tol;              /* relative constraint tolerance of the projection */
  int max_iter;            /* projection iterations per step before a simulation fails */
  double mu;               /* friction on the recording's table held fixed (NaN: the
                              recording has no table; files written before: NaN) */
  char cloth[32];          /* the cloth model ("inextensible"; files written before: that) */
  double k_stretch, k_shear, k_bend; /* its stiffnesses (N/m; NaN: not the model's); a
                              fit's: at its optimum, fitted or held (cf_res_fit.stiffness) */
  char rest[16];           /* the rest metric: "first-frame" (files written before: that),
                              "flat" or "size" (cf_fit_target.rest) */
  int split;               /* the mesh: lattice cells split split x split (cf_fit_target.split;
                              files written before: 2), or split down and split_cols
                              across when split_cols is set */
  int substeps;            /* simulation steps per recorded frame (files written before: 1) */
  char start[8];           /* the start state: "rest" (files written before: that) or "moving" */
  int split_cols;          /* the cells' split across when it differs from split's (a 9 x 9
                              mesh split 1 down, 2 across: 9 x 17 nodes); 0: split's, a
                              uniform mesh (files written before: that) */
} cf_res_model;
/* m's mesh as its split: "N" (uniform) or "RxC" (R down, C across) into
 * buf; returns buf.  The one way tables and messages name a mesh. */
const char *cf_res_model_split_text(const cf_res_model *m, char *buf, size_t size);

typedef struct {           /* how sure a fitted (delta, alpha) is (src/fit confidence.c) */
  int done;                /* 1: computed; 0: not (files written before, or not asked) */
  double delta[2], alpha[2]; /* 95 % intervals [lo, hi] (NaN: none) */
  int identifiable;        /* 1 yes, 0 no (why), -1 unknown (a stencil simulation failed) */
  char why[200];
  double kappa_shift[2];   /* the fit's move refitted with the held kappa tripled,
                              fractions of delta and alpha (NaN: not checked) */
  double beta_shift[2];    /* the same with the held beta = kappa x the window's
                              length (NaN: not checked) */
  double beta_checked;     /* that held beta (NaN: not checked; files written before) */
  double rest_shift[2];    /* the same with the other rest metric (NaN: not checked;
                              files written before) */
  double mesh_shift[2];    /* the same on the mesh one split finer (NaN: not checked;
                              files written before) */
  int kappa_fitted, beta_fitted; /* 1: fitted with delta and alpha, so its check is
                              skipped (kappa_shift / beta_shift NaN); 0: held (files
                              written before) */
  double sys[2];           /* the systematic half-widths of delta and alpha in the
                              intervals (the shifts above x the fit, in quadrature;
                              NaN: files written before, whose intervals are noise only) */
  /* Does the model, not the noise, set the error (docs/confidence.md item
   * 10)?  The recorded cloth stretches or shears (cf_fit_stretch): its
   * markers' median largest excess over their flat-sheet distances, lattice
   * edges and cell diagonals (NaN: not checked, no measured size); then
   * model_limited 1, identifiable 0 with why saying so, and the other cloth
   * models fitted (cf_fit_compare): those that test below the fit and
   * within 5 % of the best, best first (better_model, ", "-separated; ""
   * none), and the best testing error (cm). */
  double stretch_edges, stretch_diagonals;
  int model_limited;       /* 1 yes, 0 no (or not checked) */
  char better_model[64];
  double better_e_test;
} cf_res_conf;

typedef struct {           /* a grid sweep of one recording */
  int nm, nd, na;          /* nm: values of mu swept (sweep --mu-grid), 0: none */
  double *mu;              /* [nm] the mu axis (NULL when nm = 0: every point at model.mu) */
  double *delta, *alpha;   /* [nd], [na] axes */
  double *e, *s;           /* [cf_res_sweep_points] mean error / std (cm), index
                              (im*nd + id)*na + ia; pruned: lower bounds */
  int *status;             /* CF_OK or why the simulation failed */
  unsigned char *pruned;   /* 1: e is a lower bound (exact pruning) */
  char **reason;           /* [points] failure message, "" if ok */
  int best;                /* index of the best exact point, -1 if none */
  double t0_s, t1_s;       /* evaluation window (s); t1_s <= 0: to the end */
  double wall_s;
  int workers, prune;
  double prune_margin;     /* pruned only beyond this factor of the best (1: plain pruning) */
  cf_res_model model;      /* with a mu axis, model.mu is the best point's mu */
  cf_res_conf conf;        /* intervals around the best grid point (sweep --confidence) */
} cf_res_sweep;

typedef struct {           /* the refined optimum */
  char method[32];         /* "nelder-mead" */
  char start_kind[32];     /* "grid" | "apriori" | "given" | "centre" */
  int n_params;            /* parameters fitted: 2 (delta, alpha) */
  double start[3], x[3];   /* delta, alpha, mu (mu NaN: not fitted) */
  double f_start, f_best;  /* objective (training error, cm) at start and optimum */
  double train_t0_s, train_t1_s;             /* training window (s) */
  double e_train, s_train, e_test, s_test;   /* cm; test NaN if empty */
  double e_all, s_all;     /* whole recording */
  int evaluations, iterations, converged;
  int failed_evaluations;  /* evaluations whose simulation failed (infinite error) */
  char failure[256];       /* the first failed evaluation's message, "" if none */
  char starts_tried[64];   /* the starts tried, in order, blank-separated; the last is start_kind */
  char optimum_failure[256]; /* why the simulation of the whole recording at the optimum failed, "" if it did not */
  int n_path;
  double *path;            /* [n_path*4]: delta, alpha, mu, f after each iteration */
  cf_res_model model;      /* also of the series at the optimum */
  cf_res_conf conf;        /* intervals around x over the training window */
  /* fit --polish: "quadratic" (x is the minimum of a quadratic fitted to the
   * training error on a design around Nelder-Mead's optimum nm_x, when
   * polished = 1; else x = nm_x and polish_why says why) or "none" ("" in
   * older files: none) */
  char polish[16];
  int polished, polish_evaluations;
  double nm_x[3];          /* Nelder-Mead's optimum (mu NaN: not fitted) */
  double f_nm;             /* its training error (cm) */
  double polish_rms;       /* rms residual of the quadratic on its design (cm) */
  char polish_why[160];
  char stiffness[64];      /* the cloth model's stiffnesses fitted with delta and alpha
                              (blank-separated; "" for the inextensible model); their
                              values: model.k_* */
  /* fit --params ...,kappa,beta: 1 when the bending stiffness / the damping
   * on K was fitted (as its log10) with delta and alpha, its value at the
   * optimum model.kappa / model.beta, its start start_kappa / start_beta;
   * 0 (start NaN) when held at model's value (files written before) */
  int kappa_fitted, beta_fitted;
  double start_kappa, start_beta;
  /* Why the pipeline refitted with kappa and/or beta free (the held-value
   * check of the first fit flagged it: its why), "" when the fit is the
   * first (cf_pipeline_free_flagged) */
  char freed_why[192];
  /* Simulations the fit took: its search, polish and the optimum's
   * per-frame errors, the confidence stencil and checks, and those of a
   * first fit this refit replaced; not the grid's (sweep/).  0 in files
   * written before. */
  int simulations;
  /* Levenberg-Marquardt's (method "levenberg-marquardt"; the results file
   * does not store them): the tangent check at the start
   * (cf_nm_result.tangent_secant; NaN: not made), the simulations with
   * sensitivities among the evaluations, and why the fit fell back to
   * Nelder-Mead ("" when it did not). */
  double tangent_secant;
  int sens_evaluations;
  char fallback_why[200];
} cf_res_fit;

typedef struct {           /* per-frame errors at the optimum */
  int T;
  double dt, delta, alpha;
  double *e, *s, *d;       /* [T] cm, NaN where no marker is present */
  /* The markers behind them (for the report's snapshots and animation):
   * rows x cols lattice (K = rows*cols, row-major, row 0 on top), positions
   * [T*K*3] in m, z up; recorded NaN where missing, simulated NaN from the
   * frame where the simulation failed.  NULL (rows = cols = 0) in files
   * written before they were stored. */
  int rows, cols;
  double *recorded, *simulated;
  /* [T] contact rows (the cloth's nodes on the recording's table; nodes,
   * edges and triangles on its stick) in the working set at each frame,
   * NaN from a failed frame; NULL when the recording has no obstacle (and in
   * files written before contacts existed). */
  double *contacts;
} cf_res_series;

typedef struct {           /* sensitivity map (thesis Fig. 4.6) or 1-D scan (Fig. 4.20: mu) */
  char kind[16];           /* "map" | "delta" | "alpha" | "mu" */
  double at_delta, at_alpha; /* the point (kind "mu": at model.mu) */
  int nd, na, nm;          /* nm: kind "mu", the scanned values (nd = na = 1); else 0 */
  double *delta, *alpha;   /* [nd], [na] */
  double *mu;              /* [nm] or NULL */
  double *e, *s;           /* [max(nm, 1)*nd*na] cm */
  int *status;             /* CF_OK or why the simulation failed */
  char **reason;           /* [nd*na] failure message, "" if ok; NULL in files written without */
  cf_res_model model;
} cf_res_sens;

/* One cloth model of a comparison (`clothfit compare`, thesis Table 4.3):
 * its parameters fitted on the training window, its errors on the testing
 * window. */
typedef struct {
  char model[32];          /* "inextensible", "quasi-inextensible", "elastic", "mass-spring" */
  int status;              /* CF_OK, or why the fit or the simulation at the fit failed */
  char reason[256];
  double delta, alpha;
  double k_stretch, k_shear, k_bend; /* N/m (NaN: not a parameter of the model) */
  char fitted[64];         /* the parameters fitted, blank-separated */
  double e_train;          /* cm: the fit's training error */
  double e_test, s_test, d_max_test; /* cm: testing window, mean e and s, max d */
  double wall_s;           /* the simulation at the fit (to the testing window's end) */
  double iters_per_step;   /* its projection iterations per step (0: no constraints) */
  int evaluations, converged;
  double fit_wall_s;
} cf_res_compare_row;

/* How many parameters a model's fit moved (the words of r->fitted): a
 * model with more of them can follow more, so the comparison's tables show
 * it beside the errors (thesis Table 4.3 on equal terms). */
int cf_res_compare_fitted(const cf_res_compare_row *r);

#define CF_RES_COMPARE_MAX 4
typedef struct {
  int n;
  cf_res_compare_row row[CF_RES_COMPARE_MAX];
  double train_t0_s, train_t1_s, test_t0_s, test_t1_s;
  double start_delta, start_alpha;
  cf_res_model model;      /* the settings held (kappa is the bending of every
                              model but the mass-spring one) */
} cf_res_compare;

/* The fitted parameters rerun on other meshes (thesis §4.1.5, the close
 * look of `experiment wam`): one mesh, its error on the testing window. */
typedef struct {
  char mesh[24];           /* its nodes, "9x17" (rows x columns) */
  int split[2];            /* the recording's cells split split[0] down, split[1] across */
  int rows, cols;          /* its nodes */
  int status;              /* CF_OK, or why the simulation failed */
  char reason[256];
  double e_test, s_test;   /* cm: mean e_i (4.3) and s_i over the testing window (inf: failed) */
  int fit_reused;          /* 1: the fit's own mesh, whose testing error is the fit's (not
                              simulated again) */
} cf_res_remesh_row;
#define CF_RES_REMESH_MAX 4
typedef struct {
  int n;
  cf_res_remesh_row row[CF_RES_REMESH_MAX];
  double delta, alpha;     /* the fit's, held on every mesh */
  double test_t0_s, test_t1_s;
  cf_res_model model;      /* the fit's settings (each row's mesh in place of its split) */
} cf_res_remesh;

/* What the driven simulation changed of the recording (src/fit's
 * cf_drive_fix; docs/driving.md, docs/start.md): the start's residual
 * against the first frame's markers (mean and largest distance, m; the
 * marker of the largest), the held points' noise per coordinate (m), the
 * frames of their smoothing window (1: none) and its largest move (m), and
 * the frames whose corners were pulled onto the edge's reach, by at most
 * pull_max_m (at frame pull_frame).  NaN (window 0) where not known (files
 * written before). */
typedef struct {
  double start_mean_m, start_max_m;
  int start_marker;
  double noise_m, smooth_max_m;
  int window, pulled_frames, pull_frame;
  double pull_max_m;
} cf_res_drive;

typedef struct {
  char name[256];          /* the group name: recording file stem */
  char recording[1024];    /* the recording file */
  cf_rec_meta meta;
  double rho, S, V, dt, duration;
  int frames;
  double truth_delta, truth_alpha; /* ground truth of synthetic recordings, NaN if unknown */
  int has_sweep, has_fit, has_series, has_sens, has_compare, has_remesh;
  cf_res_drive drive;      /* attrs start_residual_mean_m .. held_pull_frame */
  cf_res_compare compare;
  cf_res_remesh remesh;
  cf_res_sweep sweep;
  cf_res_fit fit;
  cf_res_series series;
  cf_res_sens sens;
} cf_res_rec;
/* 1 when rec's fit fitted kappa or beta (fit --params, or the pipeline's
 * refit of a flagged fit): Table A.1 then shows both (report and CLI). */
int cf_res_kb_fitted(const cf_res_rec *rec);

typedef struct {
  int has;
  cf_formula f, f_start;   /* fitted coefficients, least-squares start (cf_common.h) */
  double R, R_start, E;    /* R* (4.7), R at the start, E* (cm) */
  int evaluations, iterations; /* evaluations of R simulated for every recording;
                            * Nelder-Mead's iterations, the model search's rounds */
  int simulations;         /* simulations of a recording in all (0: not stored) */
  char search[16];         /* "model" or "nelder-mead" (cf_regress_search_name) */
  int n_used;
  char **used;             /* the recordings (group names) */
  double *e_hat;           /* [n_used] each one's error (cm) with the fitted
                            * formula's parameters (the terms of R*), inf
                            * where its simulation failed; NULL: not stored
                            * (files written before it was) */
  cf_res_model model;      /* of the simulations of R */
} cf_res_regression;

typedef struct {
  char tool_version[64], git_revision[64], hostname[256];
  char start_time[32], end_time[32]; /* ISO 8601 UTC */
  char command[2048];      /* the command line */
  int workers;
  int ranks;               /* MPI ranks of the run (1 without mpirun) */
  char hosts[1024];        /* the hosts of the ranks, "name" or "a x2, b x2" */
  char shard[32];          /* "I/N" for a shard of a sweep (`sweep --shard`), "" otherwise */
  char task_key[24];       /* hex hash of what the sweep's results depend on (docs/design.md §9) */
  char *config_text;       /* the experiment config, NULL if none */
  char *history;           /* earlier runs that wrote this file, one a line */
} cf_res_provenance;

typedef struct {
  int n;
  cf_res_rec *recs;
  cf_res_regression reg;
  cf_res_provenance prov;
} cf_results;

#ifdef __cplusplus
}
#endif
#endif
