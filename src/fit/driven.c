/* driven.c — a cloth simulation driven by a recording (docs/design.md §7,
 * thesis §4.2.2): start at the recorded first frame (its rest shape and start
 * state: start.c), the controlled markers' nodes (or the grippers' nodes,
 * grip.c) follow the recording, and every frame is compared with the
 * recorded markers, or with the point clouds of its time span
 * (cloud_run.c).  With grippers that grasp or release, the simulation is
 * rebuilt with the new held set at a window's end, from the state and time
 * it reached (swap_sim). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cf_fit.h"
#include "cloud_run.h"
#include "grip.h"
#include "start.h"

struct cf_fit_run {
  const cf_fit_target *tg;
  cf_params base;
  cf_mesh *mesh;
  int K, n_kin;
  int *marker_node; /* [K] */
  int *kin;         /* [n_kin] mesh nodes of the controlled markers (or grippers) */
  int *kin_on;      /* [n_kin] those held at the current frame (grippers) */
  int *ctrl;        /* [n_kin] lattice indices */
  double *w;        /* [K] weights */
  double *simk;     /* [K*3] simulated marker positions of one frame */
  double *kp;       /* [n_kin*3] */
  int counted;      /* frames of the recording with a marker present */
  double span_max;  /* two controlled markers in one lattice row: the rest
                       length of the row between them (0: no limit) */
  cf_drive_fix fix; /* what the held track and the start change (drive_check, cf_fit_start_markers) */
  double *held;     /* [T*n_kin*3] the controlled nodes' positions the simulation follows (cf_fit_held_track) */
  double *x0;       /* a flat rest: the start (the first frame's lattice refined), else NULL */
  double *v0;       /* CF_START_MOVING: the start's velocities, else NULL */
  char bad[400];    /* drive_check: why the recording cannot be followed
                       ("": it can); every evaluation fails with it */
  cf_cloud_run *cloud; /* the target's clouds measure the frames (NULL: its markers) */
  cf_fit_sens *sn;  /* cf_fit_run_eval_sens in progress (NULL: none) */
  double *dsimk;    /* [np][K*3] its markers' tangents in one frame */
};

void cf_fit_run_free(cf_fit_run *r) {
  if (!r) return;
  cf_mesh_free(r->mesh);
  cf_cloud_run_free(r->cloud);
  free(r->x0);
  free(r->v0);
  free(r->marker_node);
  free(r->kin);
  free(r->kin_on);
  free(r->ctrl);
  free(r->w);
  free(r->simk);
  free(r->kp);
  free(r->held);
  free(r->dsimk);
  free(r);
}

static double row_span(const cf_fit_target *tg, const cf_mesh *rest, const int *ctrl, int n_ctrl);
static int drive_check(cf_fit_run *r, cf_error *err);
static int start_held(cf_fit_run *r, cf_error *err);

/* Frame 0 complete, controlled markers present in every frame. */
static int check_target(const cf_fit_target *tg, const int *ctrl, int n_ctrl, cf_error *err) {
  int K = tg->rows * tg->cols;
  if (tg->rows < 2 || tg->cols < 2 || tg->T < 2 || !(tg->dt > 0) || !(tg->rho > 0))
    return cf_error_set(err, CF_EINVAL,
                        "recording: expected a lattice of at least 2x2 markers, 2 frames, dt > 0 and "
                        "density > 0 (got %dx%d, %d frames, dt %g, density %g)",
                        tg->rows, tg->cols, tg->T, tg->dt, tg->rho);
  if (tg->split < 0 || tg->split > CF_LATTICE_SPLIT_MAX || tg->split_cols < 0 || tg->split_cols > CF_LATTICE_SPLIT_MAX)
    return cf_error_set(err, CF_EINVAL, "recording: mesh split %d x %d, expected 1..%d each (0: %d, and across: as "
                        "down)", tg->split, tg->split_cols, CF_LATTICE_SPLIT_MAX, CF_LATTICE_SPLIT_DEFAULT);
  for (int j = 0; j < 3 * K; j++)
    if (!isfinite(tg->pos[j]))
      return cf_error_set(err, CF_EINVAL,
                          "recording: marker %d (row %d, col %d) is missing in the first frame; the "
                          "simulation starts from a complete frame (trim the recording)",
                          j / 3, j / 3 / tg->cols, j / 3 % tg->cols);
  if (tg->n_grip > 0) return cf_grip_check(tg, err);
  for (int c = 0; c < n_ctrl; c++) {
    if (ctrl[c] < 0 || ctrl[c] >= K)
      return cf_error_set(err, CF_EINVAL, "recording: controlled marker index %d outside 0..%d", ctrl[c], K - 1);
    for (int t = 0; t < tg->T; t++)
      for (int d = 0; d < 3; d++)
        if (!isfinite(tg->pos[((size_t)t * K + ctrl[c]) * 3 + d]))
          return cf_error_set(err, CF_EINVAL,
                              "recording: controlled marker %d is missing at frame %d (t = %.3f s); "
                              "controlled corners must be gap-filled at ingestion",
                              ctrl[c], t, t * tg->dt);
  }
  return CF_OK;
}

static int setup_nodes(cf_fit_run *r, cf_error *err) {
  const cf_fit_target *tg = r->tg;
  int K = r->K, sr = cf_fit_target_split(tg), sc = cf_fit_target_split_cols(tg);
  r->marker_node = malloc(sizeof(int) * K);
  r->kin = malloc(sizeof(int) * r->n_kin);
  r->kin_on = malloc(sizeof(int) * r->n_kin);
  r->w = malloc(sizeof(double) * K);
  r->simk = malloc(sizeof(double) * 3 * K);
  r->kp = malloc(sizeof(double) * 3 * r->n_kin);
  if (!r->marker_node || !r->kin || !r->kin_on || !r->w || !r->simk || !r->kp)
    return cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int j = 0; j < K; j++)
    r->marker_node[j] = cf_mesh_lattice_node(tg->rows, tg->cols, sr, sc, j / tg->cols, j % tg->cols);
  for (int c = 0; c < r->n_kin; c++) r->kin[c] = tg->n_grip ? cf_grip_node(tg, c) : r->marker_node[r->ctrl[c]];
  if (tg->weight) {
    memcpy(r->w, tg->weight, sizeof(double) * K);
  } else {
    int rc = cf_mesh_lattice_weights(tg->rows, tg->cols, tg->pos, r->w, err);
    if (rc) return rc;
  }
  r->counted = 0;
  for (int t = 0; t < tg->T; t++) {
    int any = 0;
    for (int j = 0; j < K && !any; j++) any = !isnan(tg->pos[((size_t)t * K + j) * 3]);
    r->counted += any;
  }
  return CF_OK;
}

const cf_params *cf_fit_run_params(const cf_fit_run *r) { return &r->base; }
const cf_fit_target *cf_fit_run_target(const cf_fit_run *r) { return r->tg; }

cf_fit_run *cf_fit_run_alloc(const cf_fit_target *tg, const cf_params *base, cf_error *err) {
  int top[2] = {0, tg->cols - 1};
  const int *ctrl = tg->n_grip > 0 ? top : tg->n_ctrl > 0 ? tg->ctrl : top; /* grippers: ctrl unused */
  int n_ctrl = tg->n_grip > 0 ? tg->n_grip : tg->n_ctrl > 0 ? tg->n_ctrl : 2;
  if (check_target(tg, ctrl, n_ctrl, err)) return NULL;
  cf_fit_run *r = calloc(1, sizeof *r);
  if (!r) {
    cf_error_set(err, CF_ENOMEM, "out of memory");
    return NULL;
  }
  r->tg = tg;
  r->base = *base;
  r->base.rho = tg->rho;
  r->base.dt = tg->dt / (tg->substeps > 1 ? tg->substeps : 1);
  r->K = tg->rows * tg->cols;
  r->n_kin = n_ctrl;
  r->ctrl = calloc((size_t)n_ctrl, sizeof(int));
  r->mesh = cf_mesh_lattice_refine(tg->rows, tg->cols, cf_fit_target_split(tg), cf_fit_target_split_cols(tg), tg->pos);
  int rc = r->ctrl && r->mesh ? CF_OK
                              : cf_error_set(err, CF_EINVAL, "recording: the first frame's lattice "
                                                             "does not make a valid mesh (degenerate quads)");
  if (rc == CF_OK && tg->start == CF_START_MOVING) rc = cf_fit_start_velocity(tg, &r->v0, err);
  if (rc == CF_OK && tg->rest != CF_REST_FIRST_FRAME) rc = cf_fit_start_flat(tg, &r->mesh, &r->x0, err);
  if (rc == CF_OK) rc = cf_cloud_run_alloc(tg, r->mesh, &r->cloud, err);
  if (rc == CF_OK) {
    if (!tg->n_grip) memcpy(r->ctrl, ctrl, sizeof(int) * n_ctrl);
    rc = setup_nodes(r, err);
    r->span_max = tg->n_grip ? cf_grip_span(tg, r->mesh, r->kin) : row_span(tg, r->mesh, ctrl, n_ctrl);
    if (rc == CF_OK) rc = drive_check(r, err);
    if (rc == CF_OK && r->x0 && !r->bad[0]) rc = start_held(r, err);
  }
  if (rc) {
    cf_fit_run_free(r);
    return NULL;
  }
  return r;
}

/* Two controlled markers on one lattice row (the usual two top corners):
 * the boundary between them is inextensible, so their recorded distance may
 * not exceed the row's length at rest (the rest mesh's nodes of the markers
 * between them).  Marker noise (~0.1 mm) on a straight, taut top edge would
 * otherwise ask the edge to stretch, and the projection cannot meet its
 * tolerance. */
static double row_span(const cf_fit_target *tg, const cf_mesh *rest, const int *ctrl, int n_ctrl) {
  if (n_ctrl != 2 || ctrl[0] / tg->cols != ctrl[1] / tg->cols) return 0;
  int a = ctrl[0] < ctrl[1] ? ctrl[0] : ctrl[1], b = ctrl[0] ^ ctrl[1] ^ a;
  double L = 0;
  int sr = cf_fit_target_split(tg), sc = cf_fit_target_split_cols(tg);
  for (int j = a; j < b; j++) {
    int u = cf_mesh_lattice_node(tg->rows, tg->cols, sr, sc, j / tg->cols, j % tg->cols);
    int v = cf_mesh_lattice_node(tg->rows, tg->cols, sr, sc, (j + 1) / tg->cols, (j + 1) % tg->cols);
    L += cf_fit_dist3(rest->x + 3 * u, rest->x + 3 * v);
  }
  return L;
}

/* The slack of the controlled corners' span under the row's rest length
 * (docs/driving.md): max(tol / 4, CF_DRIVE_MIN_SLACK). */
static double span_slack(const cf_fit_run *r) { return fmax(0.25 * r->base.tol, CF_DRIVE_MIN_SLACK); }

/* The track the controlled nodes follow (r->held, cf_fit_held_track): the
 * recorded controlled markers smoothed at their noise's scale and pulled
 * onto the row's reach.  Corners beyond it by more than the noise allows
 * (a swapped label, a corner marker off the cloth) make every simulation
 * of the recording fail at once with a reason naming the first such frame
 * (r->bad), so a study goes on without it.  A first frame that is the rest
 * shape keeps its recorded corners (they are met exactly). */
static int drive_check(cf_fit_run *r, cf_error *err) {
  const cf_fit_target *tg = r->tg;
  int T = tg->T, n = r->n_kin;
  double *raw = malloc(sizeof(double) * 3 * n * T);
  r->held = malloc(sizeof(double) * 3 * n * T);
  if (!raw || !r->held) return free(raw), cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int t = 0; t < T; t++)
    for (int c = 0; c < n; c++)
      memcpy(raw + 3 * ((size_t)t * n + c),
             tg->n_grip ? tg->grip_track + 3 * ((size_t)t * n + c) : tg->pos + ((size_t)t * r->K + r->ctrl[c]) * 3,
             3 * sizeof(double));
  int rc = cf_fit_held_track(raw, T, n, tg->dt, r->span_max, span_slack(r), r->held, &r->fix, r->bad, sizeof r->bad);
  if (rc == CF_EINVAL) rc = CF_OK, r->fix = (cf_drive_fix){0};
  else if (rc) rc = cf_error_set(err, rc, "out of memory");
  if (!rc && !r->x0) memcpy(r->held, raw, sizeof(double) * 3 * n);
  free(raw);
  return rc;
}

/* A flat rest's start (cf_fit_start_markers) with the nodes held at frame
 * 0 held at the track's first positions (every controlled marker; the
 * grippers whose windows hold t = 0). */
static int start_held(cf_fit_run *r, cf_error *err) {
  const cf_fit_target *tg = r->tg;
  if (!tg->n_grip)
    return cf_fit_start_markers(tg, r->mesh, &r->base, r->marker_node, r->kin, r->n_kin, r->held, r->x0, &r->fix, err);
  unsigned mask = cf_grip_mask(tg, 0);
  int n = cf_grip_select(mask, r->kin, r->n_kin, r->kin_on);
  for (int c = 0, j = 0; c < r->n_kin; c++)
    if (mask >> c & 1) memcpy(r->kp + 3 * j++, r->held + 3 * c, 3 * sizeof(double));
  return cf_fit_start_markers(tg, r->mesh, &r->base, r->marker_node, r->kin_on, n, r->kp, r->x0, &r->fix, err);
}

cf_drive_fix cf_fit_run_drive_fix(const cf_fit_run *r) { return r->fix; }
const char *cf_fit_run_refusal(const cf_fit_run *r) { return r->bad; }

const int *cf_fit_run_marker_nodes(const cf_fit_run *r) { return r->marker_node; }
const cf_mesh *cf_fit_run_mesh(const cf_fit_run *r) { return r->mesh; }

double cf_fit_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Simulated marker positions of the current state into r->simk. */
static void gather(cf_fit_run *r, const double *x) {
  for (int j = 0; j < r->K; j++) memcpy(r->simk + 3 * j, x + 3 * r->marker_node[j], 3 * sizeof(double));
}

static void fail(cf_fit_result *res, int status, const char *msg) {
  res->status = status;
  strncpy(res->reason, msg, sizeof res->reason - 1);
  res->reason[sizeof res->reason - 1] = 0;
  res->err.e_cm = res->err.s_cm = res->err.d_max_cm = INFINITY;
}

/* The target's table (friction mu) and stick as obstacles; CF_OK without
 * either. */
static int put_obstacles(const cf_fit_target *tg, cf_sim *s, double mu, cf_error *err) {
  cf_obstacle o[2];
  int n = 0;
  if (cf_fit_target_has_table(tg)) cf_obstacle_table_at(o + n++, tg->table, mu);
  if (tg->stick) cf_obstacle_stick_tracked(o + n++, tg->stick, tg->T, tg->dt, tg->stick_radius);
  if (!n) return CF_OK;
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  /* Coulomb on the step's impulses: the lagged friction of the thesis did
   * not converge where the cloth lands on a table with mu >= 1 (a wedged
   * node: 43 of 196 grid simulations of a tablecloth fit failed, 0-1 with
   * this; docs/contacts.md, "Fitting mu") */
  cp.friction_budget = 1;
  cp.solver = tg->contact_solver == CF_CONTACT_IPOPT ? CF_CONTACT_IPOPT : CF_CONTACT_ACTIVE_SET;
  return cf_sim_set_obstacles(s, o, n, &cp, err);
}

/* The steps from frame k - 1 to frame k: tg->substeps of them (at least
 * one), the controlled nodes moving linearly between their positions of
 * r->held (within the row's reach there, so on the chord between them:
 * the clamp is for round-off). */
static int drive_frame(cf_fit_run *r, cf_sim *s, int k, unsigned mask, cf_error *err) {
  const cf_fit_target *tg = r->tg;
  int nk = r->n_kin, n = tg->substeps > 1 ? tg->substeps : 1;
  for (int q = 1; q <= n; q++) {
    double w = (double)q / n;
    for (int c = 0, j = 0; c < nk; c++) {
      if (c < 32 && !(mask >> c & 1)) continue; /* a gripper not holding: its node is free */
      const double *a = r->held + ((size_t)(k - 1) * nk + c) * 3, *b = a + (size_t)nk * 3;
      for (int d = 0; d < 3; d++) r->kp[3 * j + d] = q == n ? b[d] : a[d] + w * (b[d] - a[d]);
      j++;
    }
    if (nk >= 2) cf_fit_held_clamp(r->span_max, span_slack(r), r->kp); /* span_max > 0: the first two held */
    int rc = cf_sim_step(s, r->kp, err);
    if (rc) return rc;
  }
  return CF_OK;
}

/* Sensitivities on for r->sn's parameters, its sums zeroed; CF_OK or the
 * refusal (clouds; the simulation's own refusals, contacts among them). */
static int sens_begin(cf_fit_run *r, cf_sim *s, cf_error *err) {
  cf_fit_sens *sn = r->sn;
  if (r->cloud)
    return cf_error_set(err, CF_EINVAL, "sensitivities: the point-cloud error is not differentiated");
  sn->rss = 0;
  memset(sn->grad, 0, sizeof sn->grad);
  memset(sn->jtr, 0, sizeof sn->jtr);
  memset(sn->jtj, 0, sizeof sn->jtj);
  return cf_sim_set_sensitivities(s, sn->theta, sn->np, err);
}

/* Frame k's terms of r->sn (cur: its error, n > 0). */
static void sens_frame(cf_fit_run *r, const cf_sim *s, int k, const cf_frame_error *cur) {
  cf_fit_sens *sn = r->sn;
  int K = r->K, np = sn->np;
  for (int p = 0; p < np; p++)
    for (int j = 0; j < K; j++) memcpy(r->dsimk + (size_t)3 * K * p + 3 * j, cf_sim_dx(s, p) + 3 * r->marker_node[j],
                                       3 * sizeof(double));
  double rdr[CF_THETA_COUNT], drdr[CF_THETA_COUNT * CF_THETA_COUNT];
  if (!cf_metric_frame_tangent(K, r->w, r->simk, r->tg->pos + (size_t)k * K * 3, np, r->dsimk, rdr, drdr)) return;
  sn->rss += cur->e_cm * cur->e_cm;
  for (int p = 0; p < np; p++) {
    sn->jtr[p] += rdr[p];
    if (cur->e_cm > 0) sn->grad[p] += rdr[p] / cur->e_cm; /* d e_k = r . dr / |r| */
    for (int q = 0; q < np; q++) sn->jtj[p * np + q] += drdr[p * np + q];
  }
}

/* A simulation of the run's mesh at p with the nodes of mask held (every
 * controlled marker's: ~0u) and the target's obstacles (friction mu); NULL
 * with err set on failure. */
static cf_sim *open_sim(cf_fit_run *r, const cf_params *p, unsigned mask, double mu, cf_error *err) {
  const int *kin = r->kin;
  int n = r->n_kin;
  if (r->tg->n_grip) n = cf_grip_select(mask, r->kin, r->n_kin, r->kin_on), kin = r->kin_on;
  cf_sim *s = cf_sim_alloc(r->mesh, p, kin, n, err);
  if (s && put_obstacles(r->tg, s, mu, err)) {
    cf_sim_free(s);
    s = NULL;
  }
  return s;
}

/* The grippers holding at frame k differ from *mask: *s replaced by a
 * simulation holding those, from the state and time *s reached (its
 * counters added to st).  CF_OK, or the error of the new one (*s kept). */
static int swap_sim(cf_fit_run *r, cf_sim **s, int k, unsigned *mask, const cf_params *p, double mu,
                    cf_sim_stats *st, cf_error *err) {
  unsigned m = cf_grip_mask(r->tg, k);
  if (m == *mask) return CF_OK;
  cf_sim *t = open_sim(r, p, m, mu, err);
  if (!t) return err->code;
  cf_sim_set_state(t, cf_sim_x(*s), cf_sim_v(*s));
  cf_sim_set_time(t, cf_sim_time(*s));
  cf_sim_stats a = cf_sim_get_stats(*s);
  st->iterations += a.iterations, st->factorizations += a.factorizations;
  cf_sim_free(*s);
  *s = t, *mask = m;
  return CF_OK;
}

/* The point's parameters on the run's settings. */
static cf_params point_params(const cf_fit_run *r, const cf_fit_point *pt) {
  cf_params p = r->base;
  p.delta = pt->delta;
  p.alpha = pt->alpha;
  p.beta = pt->beta;
  p.kappa = pt->kappa;
  if (pt->k_stretch > 0) p.k_stretch = pt->k_stretch;
  if (pt->k_shear > 0) p.k_shear = pt->k_shear;
  if (pt->k_bend > 0) p.k_bend = pt->k_bend;
  return p;
}

/* cf_fit_run_eval; sim[T*K*3] (may be NULL) receives the simulated markers. */
static int eval(cf_fit_run *r, const cf_fit_point *pt, int t0, int t1, double prune_bound, cf_frame_error *fe,
                cf_fit_result *res, double *sim, double *contacts) {
  const cf_fit_target *tg = r->tg;
  int T = tg->T, K = r->K;
  for (size_t j = 0; sim && j < (size_t)T * K * 3; j++) sim[j] = NAN;
  for (int j = 0; contacts && j < T; j++) contacts[j] = NAN;
  if (t1 <= 0 || t1 > T) t1 = T;
  if (t0 < 0) t0 = 0;
  memset(res, 0, sizeof *res);
  double start = cf_fit_now();
  if (r->bad[0]) {
    fail(res, CF_EINVAL, r->bad);
    return CF_OK;
  }
  cf_params p = point_params(r, pt);
  cf_error err;
  unsigned mask = tg->n_grip ? cf_grip_mask(tg, 0) : ~0u;
  cf_sim_stats st = {0};
  cf_sim *s = open_sim(r, &p, mask, pt->mu, &err);
  if (s && r->x0) { /* a flat rest: start from the first frame moved onto it */
    cf_sim_set_state(s, r->x0, NULL);
    if (cf_sim_project_state(s, &err)) cf_sim_free(s), s = NULL;
  }
  if (s && r->v0) cf_sim_set_state(s, NULL, r->v0); /* the first step's projection makes it admissible */
  if (s && r->sn && sens_begin(r, s, &err)) cf_sim_free(s), s = NULL;
  if (!s) {
    fail(res, err.code, err.msg);
    return err.code == CF_ENOMEM ? CF_ENOMEM : CF_OK;
  }
  cf_frame_error local, *f = fe;
  double sum = 0, limit = prune_bound > 0 ? prune_bound * (t1 - t0) : INFINITY;
  double se = 0, ss = 0, dmax = 0;
  int counted = 0, k;
  for (k = 0; k < t1; k++) { /* nothing after the window is needed */
    if (k > 0 && ((tg->n_grip && swap_sim(r, &s, k, &mask, &p, pt->mu, &st, &err)) ||
                  drive_frame(r, s, k, mask, &err))) {
      fail(res, err.code, err.msg);
      break;
    }
    gather(r, cf_sim_x(s));
    if (sim) memcpy(sim + (size_t)k * K * 3, r->simk, sizeof(double) * 3 * K);
    if (contacts) contacts[k] = k > 0 ? cf_sim_get_stats(s).last_contacts : 0;
    cf_frame_error *cur = f ? f + k : &local;
    if (r->cloud) cf_cloud_run_frame(r->cloud, k, cf_sim_x(s), cur);
    else {
      cf_metric_frame(K, r->w, r->simk, tg->pos + (size_t)k * K * 3, cur);
      /* only the driven markers present (they are never missing): they follow
       * the recording by construction, so the frame says nothing (a mesh
       * frame the camera dropped keeps only its held nodes) */
      if (cur->n <= r->n_kin) *cur = (cf_frame_error){NAN, NAN, NAN, 0};
    }
    if (k < t0 || k >= t1 || cur->n == 0) continue;
    if (r->sn) sens_frame(r, s, k, cur);
    se += cur->e_cm;
    ss += cur->s_cm;
    if (cur->d_cm > dmax) dmax = cur->d_cm;
    counted++;
    sum += cur->e_cm;
    if (sum > limit) {
      res->pruned = 1;
      k++;
      break;
    }
  }
  res->frames = k;
  cf_sim_stats last = cf_sim_get_stats(s);
  res->iterations = st.iterations + last.iterations;
  res->factorizations = st.factorizations + last.factorizations;
  cf_sim_free(s);
  res->wall_s = cf_fit_now() - start;
  if (res->status) return CF_OK;
  /* pruned: divide by all window frames, so e_cm is a lower bound */
  int denom = res->pruned ? (t1 - t0) : counted;
  res->err.e_cm = denom ? se / denom : NAN;
  res->err.s_cm = denom ? ss / denom : NAN;
  res->err.d_max_cm = dmax;
  res->err.frames = counted;
  return CF_OK;
}

int cf_fit_run_eval(cf_fit_run *r, const cf_fit_point *pt, int t0, int t1, double prune_bound,
                    cf_frame_error *fe, cf_fit_result *res) {
  return eval(r, pt, t0, t1, prune_bound, fe, res, NULL, NULL);
}

int cf_fit_run_eval_markers(cf_fit_run *r, const cf_fit_point *pt, cf_frame_error *fe, cf_fit_result *res,
                            double *sim, double *contacts) {
  return eval(r, pt, 0, 0, 0, fe, res, sim, contacts);
}

int cf_fit_run_eval_sens(cf_fit_run *r, const cf_fit_point *pt, int t0, int t1, cf_frame_error *fe,
                         cf_fit_result *res, cf_fit_sens *sn) {
  if (sn->np < 1 || sn->np > CF_THETA_COUNT) return CF_EINVAL;
  free(r->dsimk);
  if (!(r->dsimk = malloc(sizeof(double) * 3 * (size_t)r->K * sn->np))) return CF_ENOMEM;
  r->sn = sn;
  int rc = eval(r, pt, t0, t1, 0, fe, res, NULL, NULL);
  r->sn = NULL;
  for (int p = 0; rc == CF_OK && res->status == CF_OK && p < sn->np; p++)
    sn->grad[p] = res->err.frames ? sn->grad[p] / res->err.frames : NAN;
  return rc;
}
