/* cf_fit.h — the public API of src/fit: simulate a cloth driven by a
 * recording, measure how far it is from the recorded cloth (docs/design.md §7),
 * and
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
 *   (ingestion interpolates them, docs/design.md §6).
 */
#ifndef CF_FIT_H
#define CF_FIT_H

#include "cf_common.h"
#include "cf_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- progress */
/* Long computations report how far they are (for a progress bar): fn is
 * called in the calling process with the work done so far and the total
 * (grid points, evaluations ...).  May be NULL everywhere it is accepted. */
typedef struct {
  void (*fn)(long done, long total, void *user);
  void *user;
} cf_fit_progress;

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
/* The frame's residuals r_j = 100 sqrt(w_j / sum w) (sim_j - rec_j) (cm,
 * so that |r| = e_cm of cf_metric_frame; the sums over the markers
 * present) and their tangents dr_p = 100 sqrt(w_j / sum w) dsim_p,j for np
 * tangents dsim[np][K*3] of the simulated markers: rdr[p] = r . dr_p
 * (cm^2), drdr[p*np + q] = dr_p . dr_q (outputs).  Returns the markers
 * present (0: nothing written). */
int cf_metric_frame_tangent(int K, const double *w, const double *sim, const double *rec, int np, const double *dsim,
                            double *rdr, double *drdr);

/* ---------------------------------------------- point clouds (cloud.c) */
/* The error of a frame recorded as a depth camera's point cloud: the
 * distance from each observed point to the simulated surface (its
 * triangles; quads split in two), and their robust mean, in cm.
 *
 * One-sided: points to surface only, never surface to points, so the side
 * of the cloth the camera cannot see (and any part hidden by a fold or out
 * of the frame) costs nothing; a point measures the misfit wherever the
 * camera saw the cloth.
 *
 * The estimator: the mean of the distances with the largest CF_CLOUD_TRIM
 * (5 %) dropped, a trimmed mean.  A depth camera's outliers (flying pixels
 * at silhouettes, the background, the hanger; ~1-2 % of the points) lie far
 * from the cloth, and a plain mean would follow them: 2 % of the points at
 * 0.5 m add 1 cm, three times the whole error of a good fit (thesis Table
 * 4.2).  Trimming drops them whatever their distance while they are fewer
 * than 5 %, and the rest stays a mean distance, in the unit and of the size
 * of the marker errors.  It is a continuous function of the simulated
 * positions (the simplex sees no jumps), and costs one selection, O(P).  An
 * M-estimator (Huber or Tukey with a scale from the MAD) would down-weight
 * the same points but needs a scale that, on a good fit, is the camera's
 * noise (~1 mm) and, on a bad one, the misfit itself; the trimmed mean needs
 * nothing but the fraction.  Its price: with no outliers it drops the
 * largest 5 % of the honest distances (the value is ~10 % below the plain
 * mean for Gaussian depth noise), and with 2 % outliers it drops 3 % of them
 * instead (tests/test_cloud.c: the two values within 5 %).
 *
 * The nearest triangle comes from a bounding-volume hierarchy over the
 * triangles, rebuilt every frame (cloud.c says how and why); bench/bench_cloud.c
 * times a frame of 10^4 points on a 17 x 17 cloth against one simulation
 * step of that cloth. */
#define CF_CLOUD_TRIM 0.05
typedef struct cf_cloud_index cf_cloud_index;
cf_cloud_index *cf_cloud_index_alloc(void);
void cf_cloud_index_free(cf_cloud_index *ix);
/* Index the n_tri triangles tri[n_tri*3] (node indices) of the nodes
 * x[*3] (m); reuses ix's memory.  CF_EINVAL for no triangle or a node that
 * is not finite. */
int cf_cloud_index_build(cf_cloud_index *ix, const double *x, int n_tri, const int *tri, cf_error *err);
/* The distance (m) from p to the nearest indexed triangle. */
double cf_cloud_index_dist(cf_cloud_index *ix, const double *p);
/* The same without an index (every triangle tried; for tests). */
double cf_cloud_dist_brute(const double *x, int n_tri, const int *tri, const double *p);
/* The distance from p to the triangle abc (m). */
double cf_cloud_point_triangle(const double *p, const double *a, const double *b, const double *c);
/* The triangles of n_faces faces of nv (3 or 4) nodes into tri (room for
 * 2 * n_faces * 3; quads abcd split along ac); returns their number. */
int cf_cloud_triangles(const int *faces, int n_faces, int nv, int *tri);
/* The mean of v[n] without its floor(trim n) largest values (v reordered);
 * NaN when n = 0. */
double cf_cloud_trimmed_mean(double *v, long n, double trim);
/* The error of one frame (cm): the trimmed mean of the distances of the n
 * points pts[n*3] (m) to the indexed surface; *sd_cm (may be NULL) the
 * standard deviation of the distances it kept (the spread s_i of (4.5) for
 * a cloud); work[n] is scratch. */
double cf_cloud_frame_error(cf_cloud_index *ix, const double *pts, long n, double *work, double *sd_cm);

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
  /* A table the cloth meets (recording /table; table[0] = 0 and an empty
   * extent: none): table[0] the height of its top face, table[1..4] the
   * face's extent x_min, x_max, y_min, y_max (m).  The simulation puts it
   * in as cf_obstacle_table_at (src/sim: CF_TABLE_THICKNESS thick), with
   * the point's mu as the cloth's friction on it and the default contact
   * parameters. */
  double table[5];
  /* A stick the cloth is hit with (recording /stick; NULL: none):
   * stick[6 t .. 6 t + 5] are its two endpoints at frame t (all T frames,
   * finite), stick_radius its radius (m).  The simulation puts it in as a
   * tracked cf_obstacle_stick without friction (thesis §4.3.2: polished
   * plastic) with the default contact parameters. */
  const double *stick;
  double stick_radius;
  /* The solver of the contact QPs of its simulations: CF_CONTACT_ACTIVE_SET
   * (0, the default) or CF_CONTACT_IPOPT, the interior-point baseline
   * (bench/hitting.sh compares them, thesis Table 4.8). */
  int contact_solver;
  /* The rest metric (the lengths the cloth keeps), CF_REST_*: the flat
   * sheet of the cloth's measured size (size[]) with the markers at their
   * lattice positions on it (CF_REST_SIZE; docs/models.md "The rest
   * shape"), a flat lattice whose column and row spacings are the largest
   * per-frame means of the recorded horizontal and vertical neighbour
   * distances (CF_REST_FLAT: no size known), or the first frame's marker
   * lattice refined (CF_REST_FIRST_FRAME, docs/design.md §4).  A cloth that
   * starts bent has first-frame chords shorter than its material, which an
   * inextensible model then holds (docs/models.md measures it).  With a flat
   * rest the first frame's refined lattice is projected onto it as the start
   * (cf_sim_project_state). */
  int rest;
  /* The simulation mesh: every cell of the marker lattice split split x
   * split (0: CF_LATTICE_SPLIT_DEFAULT, 2, thesis §4.2.2; at most
   * CF_LATTICE_SPLIT_MAX), or split times down and split_cols times across
   * when split_cols (below) is set.  A finer mesh resolves smaller folds at
   * the price of ~split^2 the nodes (and more projection iterations: an A2
   * recording at 4 takes ~60 times as long, docs/models.md); `synth` makes
   * its recordings with 4.  The markers stay nodes of the mesh, so the
   * error of a frame is measured on them alike on every mesh. */
  int split;
  /* The cloth's size (m): width along the lattice's rows (its top edge),
   * height down its columns; 0: unknown.  The markers sit on a regular
   * lattice from corner to corner (design.md §3). */
  double size[2];
  /* The simulation's steps per recorded frame (0: 1), the controlled nodes
   * moving linearly in between (docs/models.md "The time step"). */
  int substeps;
  /* CF_START_REST (0): the cloth starts at rest at the first frame;
   * CF_START_MOVING: with the markers' velocity at the first frame,
   * estimated from the first CF_START_FRAMES frames (a quadratic in time
   * per marker, least squares), refined like the positions. */
  int start;
  /* A depth camera's point clouds (n_cloud > 0; 0: none): the error of a
   * frame is then theirs (cf_cloud_frame_error) in place of the markers'.
   * Cloud c was taken at cloud_time[c] (s on the target's time axis,
   * increasing; clouds after (T - 1) dt are left out) and holds the points
   * cloud_points[cloud_offset[c] .. cloud_offset[c + 1]) (m).  It is
   * compared with the simulated surface interpolated linearly between the
   * two frames around its time (clouds are never resampled), and counts in
   * the frame that ends that interval (the frame at or after its time): a
   * frame without a cloud has no error (n = 0), as a frame without markers.
   * The markers (pos) then only start and drive the simulation: frame 0
   * complete (the start), the controlled ones at every frame. */
  int n_cloud;
  const double *cloud_time;
  const long *cloud_offset;
  const double *cloud_points;
  /* The split across (of the columns: a 9 x 9 mesh recording split 1 with
   * split_cols 2 is simulated on 9 x 17 nodes, thesis §4.1.5); 0: split's,
   * a uniform refinement.  Last, so that the positional initializers of
   * targets without it stay valid. */
  int split_cols;
} cf_fit_target;
enum { CF_REST_FIRST_FRAME = 0, CF_REST_FLAT = 1, CF_REST_SIZE = 2 };
enum { CF_START_REST = 0, CF_START_MOVING = 1, CF_START_FRAMES = 6 };
/* The name of rest metric r ("first-frame", "flat", "size"). */
const char *cf_fit_rest_name(int r);
/* What of tg, beyond its frames, its simulations and errors depend on (rest
 * metric, size, mesh down and across, substeps, start, clouds or markers)
 * as numbers for a task id: x[CF_FIT_TARGET_KEY]. */
enum { CF_FIT_TARGET_KEY = 8 };
void cf_fit_target_key(const cf_fit_target *tg, double *x);
/* tg's split down (of the rows), 0 read as the default, and across (of the
 * columns: split_cols, else the split down). */
int cf_fit_target_split(const cf_fit_target *tg);
int cf_fit_target_split_cols(const cf_fit_target *tg);
/* 1 when tg has a table (extent not empty). */
int cf_fit_target_has_table(const cf_fit_target *tg);
/* 1 when tg has a table or a stick: its simulations have contacts. */
int cf_fit_target_has_obstacles(const cf_fit_target *tg);

/* Model parameters being fitted or held (the rest of cf_params comes from
 * cf_params_default with rho from the target). */
typedef struct {
  double delta, alpha, beta, kappa, mu; /* mu: friction on the target's table
                                           (no table: unused) */
  /* the cloth model's stiffnesses (cf_params; N/m); 0: the run's base
   * value (the inextensible model has none) */
  double k_stretch, k_shear, k_bend;
} cf_fit_point;

/* A prepared driven simulation: the simulation mesh is the marker lattice
 * of frame 0 refined (split 2, the default: 4x5 -> 7x9, 3x4 -> 5x7), at rest, and the
 * controlled markers' nodes follow their recorded trajectories exactly.
 * Keeps a pointer to the target (which must outlive it). */
typedef struct cf_fit_run cf_fit_run;

cf_fit_run *cf_fit_run_alloc(const cf_fit_target *tg, const cf_params *base, cf_error *err);
void cf_fit_run_free(cf_fit_run *r);
/* The run's settings (base with the target's rho and dt). */
const cf_params *cf_fit_run_params(const cf_fit_run *r);

typedef struct {
  int status;          /* CF_OK, or why the simulation failed */
  char reason[256];    /* failure message ("" if ok) */
  int frames;          /* frames simulated (t1 unless failed or pruned) */
  int pruned;          /* 1 if stopped early by the bound: e_cm is a lower bound */
  cf_window_error err; /* over the evaluation window */
  double wall_s;
  long iterations, factorizations;
} cf_fit_result;

/* Simulate the target with parameters pt and measure the error over frames
 * [t0, t1) (t1 <= 0: to the end).  The simulation stops at the window's end:
 * frames from t1 on are not simulated (a fit on a training window costs
 * that window).  fe[T] (may be NULL) receives the per-frame errors of frames
 * [0, t1), and is left as it is after.  prune_bound > 0 enables exact
 * pruning (docs/design.md §8): the run stops as soon as the running sum of
 * e_i over the window exceeds prune_bound * (window frames), and the result
 * is marked pruned (its e_cm a lower bound).
 * A failed simulation is not an error of this function: it returns CF_OK
 * with res->status set and e_cm = +inf, so sweeps and optimizers skip it. */
int cf_fit_run_eval(cf_fit_run *r, const cf_fit_point *pt, int t0, int t1, double prune_bound,
                    cf_frame_error *fe, cf_fit_result *res);

/* cf_fit_run_eval over the whole recording without pruning that also keeps
 * the simulated markers: sim[T*rows*cols*3] (m, lattice order, frame-major
 * like tg->pos) receives their positions in every frame, NaN from the frame
 * where the simulation failed; contacts[T] (output, may be NULL) the
 * number of cloth nodes in contact with the target's table at each frame
 * (0 without a table; NaN from the frame where the simulation failed). */
int cf_fit_run_eval_markers(cf_fit_run *r, const cf_fit_point *pt, cf_frame_error *fe, cf_fit_result *res,
                            double *sim, double *contacts);

/* The derivatives of an evaluation with respect to np of delta, alpha,
 * kappa, beta (the simulation's forward sensitivities,
 * cf_sim_set_sensitivities, which say what is differentiated and what is
 * refused: a target with a table or a stick is).  theta and np are
 * inputs, the rest outputs, sums over the window's frames k with markers
 * (r_k the residuals of cf_metric_frame_tangent, e_k = |r_k|):
 *   grad  d e_cm / d theta, e_cm the window's mean of e_k (res->err.e_cm);
 *   rss   sum_k e_k^2 (cm^2), the least-squares objective of the residuals;
 *   jtr   sum_k r_k . dr_k / d theta: half the gradient of rss;
 *   jtj   sum_k (dr_k / d theta_p) . (dr_k / d theta_q), row-major np x np:
 *         the Gauss-Newton matrix of rss / 2. */
typedef struct {
  int np, theta[CF_THETA_COUNT];
  double grad[CF_THETA_COUNT], rss, jtr[CF_THETA_COUNT], jtj[CF_THETA_COUNT * CF_THETA_COUNT];
} cf_fit_sens;
/* cf_fit_run_eval without pruning, with sn filled as above.  The
 * simulation's failures are reported as by cf_fit_run_eval (res->status;
 * sn is then not filled), as is a refusal of the sensitivities (a target
 * measured by clouds, or with contacts: res->status CF_EINVAL).  Returns
 * CF_OK, or CF_ENOMEM. */
int cf_fit_run_eval_sens(cf_fit_run *r, const cf_fit_point *pt, int t0, int t1, cf_frame_error *fe,
                         cf_fit_result *res, cf_fit_sens *sn);

/* What the driven simulation does to the recorded held points and the
 * start it fits to the first frame (held.c, start.c; docs/driving.md,
 * docs/start.md).  The held points' tracks are smoothed at their noise's
 * scale, and two held corners of one lattice row farther apart than the
 * row's rest length L shortened by the slack max(tol / 4,
 * CF_DRIVE_MIN_SLACK) are pulled together symmetrically to L (1 - slack)
 * (the slack's reasons and measurements: docs/driving.md).  Depends on the
 * recording and the tolerance only, so it is the same for every parameter
 * point.  Corners farther apart than L by more than the noise allowance
 * (cf_fit_held_allowance) cannot be followed: every cf_fit_run_eval of the
 * recording fails at once with a reason naming the first such frame and
 * the distance. */
#define CF_DRIVE_MIN_SLACK 3e-4
#define CF_HELD_MAX_HALF 12 /* the smoothing's widest window: 25 frames */
typedef struct {
  int frames;          /* frames whose corners are pulled together */
  double max_pull_m;   /* largest reduction of their distance, m */
  int worst_frame;     /* the frame of max_pull_m */
  double noise_m;      /* the held tracks' noise per coordinate, m (robust estimate) */
  int window;          /* frames of the smoothing window (1: not smoothed) */
  double smooth_max_m; /* largest move of a held point by the smoothing, m */
  /* The start's residual: the distances of the first frame's markers from
   * the start sheet's nodes that carry them (0: the rest shape is the first
   * frame, met exactly); start_worst the marker of the largest. */
  double start_mean_m, start_max_m;
  int start_worst;
} cf_drive_fix;
cf_drive_fix cf_fit_run_drive_fix(const cf_fit_run *r);
/* Why every evaluation of r fails at once (the held corners beyond the
 * allowance: the first such frame), "" when r can be simulated. */
const char *cf_fit_run_refusal(const cf_fit_run *r);

/* The held points' track (held.c): raw[T * n * 3] the recorded positions
 * of n held points at T frames dt apart (frame-major, all finite) into
 * out[T * n * 3], smoothed at their noise's scale and, when the first two
 * are corners of one edge of rest length span_max > 0 (0: no edge),
 * pulled together to span_max (1 - slack) where farther apart; fix (output)
 * says by how much (its start fields 0).  CF_OK; CF_EINVAL with the first
 * frame beyond the allowance named in bad[bad_size] (out then partly
 * done); CF_ENOMEM. */
int cf_fit_held_track(const double *raw, int T, int n, double dt, double span_max, double slack, double *out,
                      cf_drive_fix *fix, char *bad, size_t bad_size);
/* The excess over span_max (m) beyond which two held corners are wrong
 * data, not noise: max(1 mm, 0.5 % of span_max, 6 sqrt(2) noise_m). */
double cf_fit_held_allowance(double span_max, double noise_m);
/* The two positions kp[6] pulled together symmetrically to span_max (1 -
 * slack) when farther apart (a span equal to span_max to round-off is
 * left); returns the pull, m (0: none). */
double cf_fit_held_clamp(double span_max, double slack, double *kp);

/* Monotonic seconds (for wall times). */
double cf_fit_now(void);

/* Mesh nodes of the simulation holding the markers (lattice order). */
const int *cf_fit_run_marker_nodes(const cf_fit_run *r);
const cf_mesh *cf_fit_run_mesh(const cf_fit_run *r);

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
  int search;               /* CF_SEARCH_NM (default) or CF_SEARCH_TRUST
                               (cf_fit_minimize) */
} cf_nm_options;
/* The searches of cf_fit_minimize: GSL's Nelder-Mead (nmsimplex2, with the
 * restarts above), or the trust-region search on a quadratic model of the
 * error (trust.c; size_tol and restarts unused). */
enum { CF_SEARCH_NM = 0, CF_SEARCH_TRUST = 1 };
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
/* cf_fit_nelder_mead or cf_fit_trust_region, as o->search says. */
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

/* ------------------------------------------------------------- grid sweep */
typedef struct {
  int nd, na;            /* grid sizes */
  const double *delta;   /* [nd] */
  const double *alpha;   /* [na] */
  int t0, t1;            /* evaluation window */
  int threads;           /* worker processes; 0: all cores */
  int prune;             /* exact pruning of hopeless points (docs/design.md §8) */
  const cf_fit_progress *progress; /* points done of nd*na (may be NULL) */
  /* Task model (docs/design.md §9): grid point i is task task0 + i of the
   * command.  shard_n > 1: only the tasks with id % shard_n == shard_i run (a
   * Slurm array element); the others get status CF_ENOTRUN.  checkpoint (may
   * be NULL): tasks it already holds are not run again, and every finished
   * one is handed to it at once. */
  unsigned long long task0;
  int shard_i, shard_n;
  const struct cf_sweep_checkpoint *checkpoint;
  /* With prune: a point stops only once its error is certain to exceed
   * prune_margin times the best exact error known (values <= 1: 1).  A
   * margin > 1 keeps every point within it exact: the basin around the
   * optimum that the error-surface figures draw; the optimum stays exact. */
  double prune_margin;
  /* A third axis, the cloth's friction on the recording's table
   * (sweep --mu-grid): nm > 0 values mu[nm], each (delta, alpha) grid run
   * at each; nm = 0: no mu axis, every point at the fixed point's mu.
   * Point i of the nm*nd*na (or nd*na) is (mu[i / (nd*na)],
   * delta[(i / na) % nd], alpha[i % na]); it is task task0 + i. */
  int nm;
  const double *mu;
} cf_sweep_options;

/* Points of a grid: max(nm, 1) * nd * na. */
static inline int cf_sweep_n_points(int nm, int nd, int na) { return (nm > 0 ? nm : 1) * nd * na; }

/* One evaluated grid point, as a sweep's checkpoint stores it. */
typedef struct {
  double e, s, dmax;     /* cm; pruned: e is a lower bound */
  int status, pruned;
  char reason[128];
} cf_sweep_point;

/* Persistence of finished tasks (src/study implements it with a journal
 * file).  load: 1 and *p filled if task id finished in an earlier run, 0 if
 * not.  save: called in the worker process that finished task id, before
 * the next task starts; an error aborts the sweep. */
typedef struct cf_sweep_checkpoint {
  int (*load)(void *ctx, unsigned long long id, cf_sweep_point *p);
  int (*save)(void *ctx, unsigned long long id, const cf_sweep_point *p, cf_error *err);
  void *ctx;
} cf_sweep_checkpoint;

/* Persistence of the finished items of the other parallel loops (the
 * Nelder-Mead fits of a batch, the confidence stencils' simulations, the
 * simulations of each evaluation of the regression), so that a command
 * killed midway and run again computes only what it had not finished.
 * Each item's task id is derived from what it computes (its kind, its
 * recording's place, its parameters' bits; apart from the sweeps' ids) and
 * its record is kept as it is (bytes).  load: 1 and rec[size] filled if
 * task id of this kind and size finished in an earlier run, else 0.  save: called for every item
 * finished now, in the worker process that computed it (on rank 0 under
 * MPI); an error aborts the loop.  kind names the loop ("nm", "conf",
 * "reg") for the records' text.  src/cli implements it with the command's
 * journal (the same file as the sweeps'). */
typedef struct cf_fit_journal {
  int (*load)(void *ctx, unsigned long long id, const char *kind, void *rec, size_t size);
  int (*save)(void *ctx, unsigned long long id, const char *kind, const void *rec, size_t size, cf_error *err);
  void *ctx;
} cf_fit_journal;

typedef struct {
  int nd, na;
  double *e, *s, *dmax;  /* [cf_sweep_n_points] mean error/std (cm), index (im*nd + id)*na + ia */
  int *status;           /* CF_OK or failure code */
  unsigned char *pruned; /* 1: e is a lower bound */
  char (*reason)[128];   /* failure reasons */
  int best;              /* index of the smallest e among exact points, -1 if none */
  double wall_s;
  int resumed, ran;      /* points taken from the checkpoint / simulated now */
  int nm;                /* the options' (0: no mu axis) */
} cf_sweep_result;

/* The default grid of docs/design.md §8: alpha = rho*linspace(0.05, 4, 16),
 * delta = rho*linspace(0.05, 1, 15); arrays malloc'ed into *delta, *alpha. */
int cf_sweep_default_grid(double rho, double **delta, int *nd, double **alpha, int *na);
/* Evaluate every grid point on the target on all cores.  The workers are
 * forked processes (see sweep.c for why not threads); each owns its
 * cf_fit_run, so results do not depend on the number of workers (except for
 * pruned lower bounds, which depend on the order points finish). */
int cf_sweep_run(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *fixed,
                 const cf_sweep_options *o, cf_sweep_result *res, cf_error *err);
void cf_sweep_result_free(cf_sweep_result *res);

/* ----------------------------------------------- fit confidence (confidence.c) */
/* How sure a fitted (delta, alpha) is: a quadratic fitted to the mean error
 * on a 3 x 3 stencil around the point (+-30 %), and the jackknife over
 * CF_CONF_BLOCKS consecutive time blocks of the window for the spread of
 * its stationary point (the reasons and the rule: confidence.c). */
enum { CF_CONF_BLOCKS = 8 };
typedef struct {
  double center[2];      /* the fitted (delta, alpha) the intervals are around */
  double se[2];          /* jackknife standard errors of delta, alpha (NaN if none) */
  double interval[2][2]; /* 95 % intervals [lo, hi] of delta and alpha (NaN if none):
                            the jackknife's t(7) 97.5 % quantile x se and sys in
                            quadrature */
  double sys[2];         /* systematic half-widths: the moves of the held checks made
                            (kappa, beta, rest, mesh shifts x the fit) in quadrature
                            (0: none made) */
  int identifiable;      /* 1 yes, 0 no (why says why), -1 unknown (a stencil simulation failed) */
  char why[200];         /* "" when identifiable */
  double kappa_shift[2]; /* how far the fit moves, as fractions of delta and alpha,
                            refitted with the held kappa tripled (NaN: not checked:
                            kappa 0 or fitted, not identifiable already, or the refit
                            failed) */
  double beta_shift[2];  /* the same refitted with the held beta raised to kappa x the
                            window's length (s) (NaN: not checked, as above, or beta
                            fitted, or the held beta is already that large) */
  double beta_checked;   /* the held beta of that refit (NaN: not checked) */
  double mesh_shift[2];  /* the same refitted on the mesh one split finer (the
                            convergence check; NaN: not checked) */
  double rest_shift[2];  /* the same refitted with the other rest metric (tg.rest:
                            the nominal flat lattice for a fit on the first frame's,
                            and back) (NaN: not checked, as for kappa, and for a rest
                            of the cloth's measured size) */
  int kappa_fitted, beta_fitted; /* 1: fitted with delta and alpha (fitted[j]): the
                            check of its held value is not made (kappa_shift,
                            beta_shift NaN); the other checks hold it at the fit */
  int simulations;       /* the stencil's and the checks' refits' */
} cf_confidence;
/* A fit whose delta or alpha moves by more than this fraction when
 * refitted with a held assumption changed (3 x kappa, a large beta, the
 * other rest metric) is not identifiable (confidence.c says why 0.25). */
#define CF_CONF_HELD_MAX_SHIFT 0.25
/* For n recordings at once (9 simulations each on the worker processes,
 * then Nelder-Mead refits of (delta, alpha), at most 40 simulations each,
 * with 3 kappa, with a large beta and with the other rest metric,
 * confidence.c): tg[n]; at[n] the fitted points with everything the fit
 * held or fitted besides delta and alpha (kappa, beta, mu, stiffnesses:
 * the stencil and the refits hold them); fitted[n] (NULL: none) the
 * log-scale parameters each fit fitted (CF_STIFF_BIT mask: kappa's and
 * beta's checks skip those); windows [t0[j], t1[j]) (NULL: whole
 * recordings; t1 <= 0: to the end); search the refits' (CF_SEARCH_*). */
int cf_fit_confidence_batch(int n, const cf_fit_target *const *tg, const cf_params *base, const cf_fit_point *at,
                            const unsigned *fitted, const int *t0, const int *t1, int workers, int search,
                            const struct cf_fit_journal *kept, cf_confidence *out, cf_error *err);

/* ------------------------------- does the cloth stretch? (stretch.c) */
/* Whether the recorded markers move farther apart than on the flat sheet,
 * which an inextensible cloth cannot (a chord is never longer than its
 * geodesic; stretch.c says why this test and measures it).  Needs the
 * rest of the cloth's measured size (tg.rest CF_REST_SIZE, tg.size > 0)
 * and markers (not made on a point-cloud recording, tg.n_cloud > 0). */
typedef struct {
  int checked;      /* 0: not checked (no measured size: the rest distances are unknown) */
  double edges;     /* the largest over the lattice edges of the median over frames of
                       the edge's relative excess d / r - 1 (NaN: none present) */
  double diagonals; /* the same of the cells' diagonals */
  int stretches;    /* 1: edges > CF_STRETCH_MAX (the cloth stretches) */
  int shears;       /* 1: not stretches, diagonals > CF_STRETCH_MAX (its cells shear) */
} cf_stretch;
/* The allowance: the model's own recordings keep their pairs within 0.26 %
 * (markers with 0.1 mm noise: 0.01 %; a depth camera's registered meshes
 * with 2 mm depth noise, datasets/wam-mini: 0.26 %), a quasi-inextensible
 * cloth of k_shear 0.3-1 N/m shears its diagonals by 1.4-1.8 % and an
 * elastic one stretches its edges by 4.8-10 % (tests/test_stretch.c): 1 %
 * is four times the first and below the second. */
#define CF_STRETCH_MAX 0.01
/* CF_OK (out filled; out->checked 0 when tg has no measured size) or
 * CF_ENOMEM. */
int cf_fit_stretch(const cf_fit_target *tg, cf_stretch *out);

/* ------------------------------------------------ Open MPI (distributed.c) */
/* Under `mpirun -n N` every rank runs the same command on the same inputs;
 * the parallel loops of sweeps, Nelder-Mead batches and regressions hand
 * their items out across the ranks, every rank gets every result, and
 * only rank 0 writes files and prints (the commands see to that).  Without
 * Open MPI at build time, or when not started by mpirun: rank 0 of 1.  The
 * rank and size are the process's (MPI's own state is process-global). */
int cf_dist_init(int *argc, char ***argv); /* from main(), before anything else */
void cf_dist_finalize(void);
int cf_dist_available(void);              /* 1 if built with Open MPI */
int cf_dist_rank(void);
int cf_dist_size(void);
void cf_dist_abort(int code);             /* end every rank of the job */
void cf_dist_bcast(void *buf, size_t n);  /* rank 0's n bytes to every rank */
/* The hosts of all ranks ("vm x2, node7 x2") into buf; collective: every
 * rank calls it.  Not under mpirun, buf is left as it is. */
void cf_dist_hosts(char *buf, size_t size);

/* ------------------------------------------- a-priori formulas (4.6)-(4.7) */
/* delta = d0 + d1 S + d2 V + d3 rho,  alpha = a0 + a1 S + a2 V + a3 rho:
 * S = cloth area / A3 area (1 for A3, 2 for A2), V (m^2/s^2) the speed
 * measure below, rho the density (kg/m^2). */
/* (cf_formula, the eight coefficients, is in cf_common.h: the results
 * files of src/io store it too.) */

/* Table 4.6 of the thesis, repetition I (reference values). */
extern const cf_formula cf_formula_thesis_rep1;

/* S of a width x height cloth. */
double cf_size_measure(double width_m, double height_m);
/* V: squared speeds of every marker at every frame where it and the next
 * frame are present (forward differences at dt); the values >= their median
 * are averaged.  pos [T*K*3], NaN = missing.  NaN if no speed exists. */
double cf_speed_measure(int T, int K, double dt, const double *pos);

/* One recording of a study: its target and descriptors. */
typedef struct {
  const cf_fit_target *tg;
  double S, V;          /* size and speed measures (rho is tg->rho) */
  double delta, alpha;  /* per-recording optimum (for the least-squares start) */
  double e_opt;         /* error at that optimum (for E*), NaN if unknown */
  double kappa, beta;   /* > 0: the recording's fitted kappa / beta, which its
                           simulations hold (a fit with them free,
                           cf_pipeline_free_flagged); else base's */
} cf_study_item;

/* Least squares of the 4+4 coefficients on the per-recording optima
 * (GSL multifit); needs >= 4 recordings with independent (1, S, V, rho). */
int cf_regress_lsq(const cf_study_item *items, int n, cf_formula *f, cf_error *err);

/* The searches of cf_regress_fit (cf_regress_options.search).
 * CF_REGRESS_MODEL: a least-squares quadratic error model per recording
 * (a 3 x 3 design of simulations around its optimum), Nelder-Mead on the
 * mean of the models, the result checked by simulating every recording and
 * the models refitted with those points, for at most CF_REGRESS_ROUNDS
 * rounds (regress_model.c).  CF_REGRESS_NM: Nelder-Mead on R itself, every
 * evaluation simulating every recording (the reference). */
enum { CF_REGRESS_MODEL = 0, CF_REGRESS_NM = 1 };
#define CF_REGRESS_ROUNDS 6
/* The model search's design, counted in evaluations of R for progress:
 * 9 simulations of each recording. */
#define CF_REGRESS_DESIGN 9
/* "model" or "nelder-mead" (results files, help texts); the parse returns
 * the search, or -1 for another word. */
const char *cf_regress_search_name(int search);
int cf_regress_search_parse(const char *word);

typedef struct {
  int search;      /* CF_REGRESS_MODEL (0, the default) or CF_REGRESS_NM */
  int max_evals;   /* evaluations of R at most, each simulating every
                      recording (<= 0: 400); the model search stops after
                      1 + CF_REGRESS_ROUNDS of them anyway */
  int workers;     /* worker processes (0: all cores) */
  const struct cf_fit_journal *kept; /* finished simulations (may be NULL) */
  const cf_fit_progress *progress;   /* evaluations of R (may be NULL), of
                                        cf_regress_progress_total */
} cf_regress_options;
/* The total the progress of cf_regress_fit counts to: max_evals for
 * Nelder-Mead; for the model search its real evaluations plus the design
 * as CF_REGRESS_DESIGN of them. */
long cf_regress_progress_total(const cf_regress_options *o);

typedef struct {
  cf_formula f;       /* fitted coefficients */
  cf_formula f_start; /* least-squares start */
  double R, R_start;  /* (4.7) at the fit and at the start (cm), both
                       * simulated (the model search's R is the best real
                       * evaluation, not a model's value) */
  double E;           /* mean of the items' e_opt (E*), NaN if unknown */
  int evaluations;    /* evaluations of R by simulating every recording */
  int iterations;     /* Nelder-Mead's iterations; the model search's rounds */
  long simulations;   /* simulations of a recording in all (resumed from the
                       * journal or run now): n per evaluation, plus the
                       * model search's design */
  int search;         /* the options' */
  double *e_item;     /* [n] each item's error (cm) with f's parameters (the
                       * terms of R), inf where its simulation failed or the
                       * formula left the model's domain; malloc'ed (the
                       * caller frees it), NULL if out of memory */
} cf_regress_result;

/* R(f) = mean over items of the whole-recording mean error with the
 * formula's (delta, alpha); items run on worker processes (0: all cores).
 * The simulations use base, its beta and kappa held fixed (as a sweep's
 * fixed point holds them).  Failed simulations count as a large penalty. */
int cf_regress_objective(const cf_study_item *items, int n, const cf_params *base,
                         const cf_formula *f, int workers, double *R, cf_error *err);
/* The 8 coefficients minimizing R, started from least squares (or from
 * *start when not NULL), by o's search (NULL: the defaults). */
int cf_regress_fit(const cf_study_item *items, int n, const cf_params *base, const cf_formula *start,
                   const cf_regress_options *o, cf_regress_result *res, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
