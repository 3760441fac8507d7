/* cf_fit.h — the public API of src/fit: simulate a cloth driven by a
 * recording, measure how far it is from the recorded cloth (SPEC §7), and
 * (in the modules built on this) fit the parameters.
 *
 * Why it looks like this
 * ----------------------
 * - src/fit never reads files: a recording arrives as a cf_fit_target, plain
 *   arrays that src/io (or a test) fills in.  This keeps the fitting code
 *   testable on synthetic data and re-entrant (sweeps run many targets and
 *   parameter points concurrently, one cf_sim each).
 * - Errors are reported in centimetres, as in the thesis tables; positions
 *   are metres.
 * - Missing markers (NaN) are excluded from the errors of the frames where
 *   they are missing (Remark 4.2.3); controlled corners must have no gaps
 *   (ingestion interpolates them, SPEC §6).
 */
#ifndef CF_FIT_H
#define CF_FIT_H

#include "cf_common.h"
#include "cf_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- metrics */
typedef struct {
  double e_cm; /* normalized M-norm error sqrt(sum w|d|^2 / sum w) (4.3) */
  double s_cm; /* spatial standard deviation of |d_j| (4.5), population */
  double d_cm; /* dispersion e + 2 s (4.4) */
  int n;       /* markers present in this frame */
} cf_frame_error;

/* Error of one frame: K markers, weights w[K] (NULL: all 1), simulated and
 * recorded positions [K*3] in metres; recorded NaN = missing.  A frame with
 * no marker present gets NaN errors and n = 0. */
void cf_metric_frame(int K, const double *w, const double *sim, const double *rec,
                     cf_frame_error *out);

typedef struct {
  double e_cm;     /* mean of e_i over the frames of the window with n > 0 */
  double s_cm;     /* mean of s_i */
  double d_max_cm; /* max of d_i */
  int frames;      /* frames that counted */
} cf_window_error;

/* Means over frames [t0, t1) (clamped to [0, T)). */
cf_window_error cf_metric_window(const cf_frame_error *fe, int T, int t0, int t1);

/* Lumped-mass weights of a rows x cols marker lattice at positions x
 * [rows*cols*3] (row-major), normalized to sum to rows*cols: for a regular
 * lattice corners : edges : interior = 1 : 2 : 4 (SPEC §6, §7). */
int cf_metric_lattice_weights(int rows, int cols, const double *x, double *w, cf_error *err);

/* ----------------------------------------------------- driven simulation */
/* A recording as the fitter sees it: a rows x cols lattice of markers
 * (row-major, row 0 = top), positions [T][rows*cols][3] at a uniform dt
 * (the simulation step), NaN = missing. */
typedef struct {
  int rows, cols, T;
  double dt;
  const double *pos;
  const double *weight; /* [rows*cols] or NULL: lattice weights of frame 0 */
  int n_ctrl;           /* controlled markers (0: the two top corners) */
  const int *ctrl;      /* lattice indices (r*cols + c) of controlled markers */
  double rho;           /* density of the fabric, kg/m^2 */
} cf_fit_target;

/* Model parameters being fitted or held (the rest of cf_params comes from
 * cf_params_default with rho from the target). */
typedef struct {
  double delta, alpha, beta, kappa, mu;
} cf_fit_point;

/* A prepared driven simulation: the simulation mesh is the marker lattice
 * of frame 0 refined once (4x5 -> 7x9, 3x4 -> 5x7), at rest, and the
 * controlled markers' nodes follow their recorded trajectories exactly.
 * Keeps a pointer to the target (which must outlive it). */
typedef struct cf_fit_run cf_fit_run;

cf_fit_run *cf_fit_run_alloc(const cf_fit_target *tg, const cf_params *base, cf_error *err);
void cf_fit_run_free(cf_fit_run *r);

typedef struct {
  int status;          /* CF_OK, or why the simulation failed */
  char reason[256];    /* failure message ("" if ok) */
  int frames;          /* frames simulated (T unless failed or pruned) */
  int pruned;          /* 1 if stopped early by the bound: e_cm is a lower bound */
  cf_window_error err; /* over the evaluation window */
  double wall_s;
  long iterations, factorizations;
} cf_fit_result;

/* Simulate the target with parameters pt and measure the error over frames
 * [t0, t1) (t1 <= 0: to the end).  fe[T] (may be NULL) receives the per-frame
 * errors.  prune_bound > 0 enables exact pruning (SPEC §8): the run stops as
 * soon as the running sum of e_i over the window exceeds prune_bound *
 * (window frames), and the result is marked pruned (its e_cm a lower bound).
 * A failed simulation is not an error of this function: it returns CF_OK
 * with res->status set and e_cm = +inf, so sweeps and optimizers skip it. */
int cf_fit_run_eval(cf_fit_run *r, const cf_fit_point *pt, int t0, int t1, double prune_bound,
                    cf_frame_error *fe, cf_fit_result *res);

/* Mesh nodes of the simulation holding the markers (lattice order). */
const int *cf_fit_run_marker_nodes(const cf_fit_run *r);
const cf_mesh *cf_fit_run_mesh(const cf_fit_run *r);

#ifdef __cplusplus
}
#endif
#endif
