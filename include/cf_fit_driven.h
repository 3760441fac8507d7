/* cf_fit_driven.h — the simulation driven by a recording, its evaluation and its sensitivities.
 * Part of the API of cf_fit.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_FIT_DRIVEN_H
#define CF_FIT_DRIVEN_H

#include "cf_common.h"
#include "cf_sim.h"
#include "cf_fit_target.h"

#ifdef __cplusplus
extern "C" {
#endif

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
  /* Grippers holding mesh nodes (n_grip > 0, at most CF_GRIP_MAX; 0: the
   * controlled markers above drive the simulation, always held).  Gripper
   * g holds the simulation mesh's node nearest to (u, v) = grip_uv[2g],
   * grip_uv[2g + 1] on the flat sheet (u across from column 0, v down from
   * row 0, both in [0, 1]) and moves it along grip_track[(t * n_grip + g) *
   * 3] (m, every frame, finite), while grip_window[2g] <= t dt <=
   * grip_window[2g + 1] (closed; NULL: always); outside its window the node
   * is free.  The simulation's held set changes at the windows' ends
   * (grip.c).  The markers (pos) then only start the simulation (frame 0). */
  int n_grip;
  const double *grip_uv, *grip_track, *grip_window;
} cf_fit_target;
#define CF_GRIP_MAX 16
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
/* The target the run was made from (borrowed). */
const cf_fit_target *cf_fit_run_target(const cf_fit_run *r);

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

#ifdef __cplusplus
}
#endif
#endif
