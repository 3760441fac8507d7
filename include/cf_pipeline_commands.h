/* cf_pipeline_commands.h — one simulation, scenarios, ingestion, sweeps, sensitivity maps, comparisons, remeshing and predictions.
 * Part of the API of cf_pipeline.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_PIPELINE_COMMANDS_H
#define CF_PIPELINE_COMMANDS_H

#include "cf_recording.h"
#include "cf_study.h"
#include "cf_profile.h"
#include "cf_pipeline_base.h"

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
