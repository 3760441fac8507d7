/* synth.c — `clothfit synth`: the human-like corner motions and the WAM
 * hanger's (thesis eq. (4.1)), the fine-mesh simulation, sampling of the
 * marker lattice at the capture rate (or of every node at the camera's
 * timestamps) and the calibration of the motion's rate to the target
 * average marker speed (docs/design.md §11).  Noise, gaps, fragments and
 * ghosts: synth_marks.c; the depth camera: synth_camera.c; random numbers:
 * synth_rng.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "synth_internal.h"

/* ------------------------------------------------------------------ mesh */
/* The lattice with every cell split refine x refine. */
static cf_mesh *grid(const cf_synth_config *c, int refine, int kin[2]) {
  int nx = (c->cols - 1) * refine + 1, ny = (c->rows - 1) * refine + 1;
  double o[3] = {-c->width / 2, 0, c->top_height - c->height}, u[3] = {c->width, 0, 0}, v[3] = {0, 0, c->height};
  cf_mesh *m = cf_mesh_grid(nx, ny, o, u, v, 1);
  kin[0] = (ny - 1) * nx;
  kin[1] = ny * nx - 1;
  return m;
}

static int marker_node(const cf_synth_config *c, int refine, int r, int col) {
  int nx = (c->cols - 1) * refine + 1, ny = (c->rows - 1) * refine + 1;
  return (ny - 1 - refine * r) * nx + refine * col;
}

cf_mesh *cf_synth_mesh(const cf_synth_config *c, int kin[2]) { return grid(c, c->refine, kin); }

int cf_synth_marker_node(const cf_synth_config *c, int r, int col) { return marker_node(c, c->refine, r, col); }

/* Radius R of the circular arc of length W whose chord is (1 - slack) W:
 * 2 R sin(W / 2R) = (1 - slack) W, by bisection on u = W / 2R in (0, pi). */
static double arc_radius(double W, double slack) {
  double lo = 1e-9, hi = M_PI, target = 1 - slack; /* sin(u) / u decreases from 1 to 0 */
  for (int i = 0; i < 200; i++) {
    double u = 0.5 * (lo + hi);
    if (sin(u) / u > target) lo = u;
    else hi = u;
  }
  return W / (lo + hi);
}

void cf_synth_initial_state(const cf_synth_config *c, const cf_mesh *m, double *x) {
  memcpy(x, m->x, sizeof(double) * 3 * m->n_nodes);
  if (c->slack <= 0) return;
  double R = arc_radius(c->width, c->slack), u_max = c->width / (2 * R);
  for (int k = 0; k < m->n_nodes; k++) { /* bend about the vertical: an isometry */
    double u = m->x[3 * k] / R;
    x[3 * k] = R * sin(u);
    x[3 * k + 1] = R * (cos(u) - cos(u_max));
  }
}

/* ---------------------------------------------------------------- motion */
/* A smooth random signal in [-1, 1]: three slow sinusoids (0.03-0.15 Hz). */
static double wobble(const cf_synth_motion *m, int q, double t) {
  double s = 0;
  for (int j = 0; j < 3; j++) s += m->w[q][j] * sin(2 * M_PI * m->nu[q][j] * t + m->ph[q][j]);
  return s;
}

/* Its integral from 0 to t. */
static double wobble_integral(const cf_synth_motion *m, int q, double t) {
  double s = 0;
  for (int j = 0; j < 3; j++) {
    double a = 2 * M_PI * m->nu[q][j];
    s += m->w[q][j] * (cos(m->ph[q][j]) - cos(a * t + m->ph[q][j])) / a;
  }
  return s;
}

/* Average |x| of the lattice columns: the twist's speed lever. */
static double mean_column_radius(const cf_synth_config *c) {
  double s = 0;
  for (int j = 0; j < c->cols; j++) s += fabs(c->width * ((double)j / (c->cols - 1) - 0.5));
  return s / c->cols;
}

void cf_synth_motion_init(cf_synth_motion *m, const cf_synth_config *c, double rate_scale) {
  memset(m, 0, sizeof *m);
  sy_rng g;
  sy_rng_init(&g, c->seed, SY_MOTION);
  for (int q = 0; q < 3; q++) {
    double sum = 0;
    for (int j = 0; j < 3; j++) {
      m->nu[q][j] = 0.03 + 0.12 * sy_uniform(&g);
      m->ph[q][j] = 2 * M_PI * sy_uniform(&g);
      m->w[q][j] = 0.5 + sy_uniform(&g);
      sum += m->w[q][j];
    }
    for (int j = 0; j < 3; j++) m->w[q][j] /= sum;
  }
  double target = sy_target_speed(c);
  m->twist = !strcmp(c->motion, "twist");
  m->tablecloth = !strcmp(c->motion, "tablecloth");
  m->hitting = !strcmp(c->motion, "hitting");
  m->wam = !strcmp(c->motion, "wam");
  if (m->wam) { /* eq. (4.1): the thesis' amplitude and frequency, no calibration */
    int slow = !strcmp(c->speed, "slow");
    m->amp = c->amplitude > 0 ? c->amplitude : slow ? 0.15 : 0.075;
    m->freq = c->frequency > 0 ? c->frequency : slow ? 0.3 : 0.6;
    m->start = c->still_before, m->stop = c->duration - c->still_after;
    return;
  }
  m->lower = c->table_drop + 0.4 * c->height, m->shift = m->lower + 0.05;
  m->lay = c->lay_time, m->drag = c->drag, m->drag_period = c->drag_period;
  m->mod = c->modulation;
  m->ramp = c->ramp;
  m->centre[2] = c->top_height;
  if (m->twist) {
    m->amp = c->twist_angle * M_PI / 180;
    m->freq = target / (4 * m->amp * mean_column_radius(c));
  } else {
    m->amp = c->amplitude > 0 ? c->amplitude : !strcmp(c->speed, "slow") ? 0.05 : 0.10;
    m->freq = target / (4 * m->amp);
  }
  m->freq *= rate_scale;
}

/* Quintic smoothstep: 0 -> 1 over [0, ramp] with zero first and second
 * derivatives at both ends, so the cloth starts from rest. */
static double fade_in(double t, double ramp) {
  if (t <= 0) return 0;
  if (ramp <= 0 || t >= ramp) return 1;
  double s = t / ramp;
  return s * s * s * (10 - 15 * s + 6 * s * s);
}

/* tablecloth: lower and shift over lay, then drag further (never back:
 * pushing the lying cloth back buckles it, and a buckle's shape depends on
 * the mesh more than on the parameters). */
static void tablecloth(const cf_synth_motion *m, double t, int n, const double *x0, double *out) {
  double s = fade_in(t, m->lay), dy = -m->shift * s, dz = -m->lower * s;
  if (t > m->lay) dy -= m->drag * fade_in(t - m->lay, m->drag_period);
  for (int k = 0; k < n; k++) {
    out[3 * k] = x0[3 * k];
    out[3 * k + 1] = x0[3 * k + 1] + dy;
    out[3 * k + 2] = x0[3 * k + 2] + dz;
  }
}

int cf_synth_table(const cf_synth_config *c, cf_obstacle *o, double table[5]) {
  if (strcmp(c->motion, "tablecloth")) return 0;
  double t[5] = {c->top_height - c->height - c->table_drop, -1, 1, -1, 0.3};
  cf_obstacle_table_at(o, t, c->table_mu);
  if (table) memcpy(table, t, sizeof t);
  return 1;
}

void cf_synth_motion_eval(const cf_synth_motion *m, double t, int n, const double *x0, double *out) {
  if (m->hitting) { /* the corners are held still; the stick moves */
    memcpy(out, x0, sizeof(double) * 3 * n);
    return;
  }
  if (m->tablecloth) {
    tablecloth(m, t, n, x0, out);
    return;
  }
  if (m->wam) { /* eq. (4.1) along y with c = -A: still at y = 0 before, wherever it ends after */
    double s = t <= m->start ? 0 : m->amp * (cos(2 * M_PI * m->freq * ((t < m->stop ? t : m->stop) - m->start)) - 1);
    for (int k = 0; k < n; k++) {
      out[3 * k] = x0[3 * k];
      out[3 * k + 1] = x0[3 * k + 1] + s;
      out[3 * k + 2] = x0[3 * k + 2];
    }
    return;
  }
  double amp = fade_in(t, m->ramp) * m->amp * (1 + m->mod * wobble(m, 0, t));
  double phase = 2 * M_PI * m->freq * (t + m->mod * wobble_integral(m, 1, t));
  double s = amp * sin(phase);
  if (m->twist) { /* rotate about the vertical through centre */
    double cs = cos(s), sn = sin(s);
    for (int k = 0; k < n; k++) {
      double dx = x0[3 * k] - m->centre[0], dy = x0[3 * k + 1] - m->centre[1];
      out[3 * k] = m->centre[0] + cs * dx - sn * dy;
      out[3 * k + 1] = m->centre[1] + sn * dx + cs * dy;
      out[3 * k + 2] = x0[3 * k + 2];
    }
    return;
  }
  /* shake: across the plane (y), the hands rising a little at the ends of
   * the stroke, and drifting slowly sideways (both together, so the top
   * edge keeps its length) */
  double rise = 0.1 * amp * sin(phase) * sin(phase), side = 0.1 * amp * wobble(m, 2, t);
  for (int k = 0; k < n; k++) {
    out[3 * k] = x0[3 * k] + side;
    out[3 * k + 1] = x0[3 * k + 1] + s;
    out[3 * k + 2] = x0[3 * k + 2] + rise;
  }
}

/* ------------------------------------------------------------ simulation */
typedef struct {
  const cf_synth_config *c;
  cf_synth_result *r;
  cf_mesh *mesh;         /* the lattice split refine x refine */
  int kin[2], *node;     /* kinematic nodes, the K nodes sampled [K] */
  int K;                 /* the marker lattice, or every node (camera outputs) */
  double *dst;           /* [T*K*3] r->truth, or r->fine (camera outputs) */
  double dt;
  cf_synth_progress_fn fn; /* NULL: no progress (calibration runs) */
  void *user;
} sim_job;

/* Sample every node into r->fine (all: camera outputs, on the fine mesh)
 * or the marker lattice into r->truth. */
static int job_init(sim_job *j, const cf_synth_config *c, cf_synth_result *r, int refine, double dt, int all) {
  memset(j, 0, sizeof *j);
  j->c = c, j->r = r, j->dt = dt;
  j->mesh = grid(c, refine, j->kin);
  if (!j->mesh) return CF_ENOMEM;
  j->K = all ? j->mesh->n_nodes : c->rows * c->cols;
  j->dst = all ? r->fine : r->truth;
  j->node = malloc(sizeof(int) * j->K);
  if (!j->node) return CF_ENOMEM;
  for (int k = 0; k < j->K; k++) j->node[k] = all ? k : marker_node(c, refine, k / c->cols, k % c->cols);
  return CF_OK;
}

static void job_free(sim_job *j) {
  cf_mesh_free(j->mesh);
  free(j->node);
}

static void copy_markers(const sim_job *j, const double *x, double *dst) {
  for (int k = 0; k < j->K; k++) memcpy(dst + 3 * k, x + 3 * j->node[k], 3 * sizeof(double));
}

/* The table (tablecloth) and the stick (hitting) of c into the simulation;
 * the stick follows a track sampled at the simulation's steps, from the
 * start of the pre-roll (P steps) to the end (N more), into *track
 * (malloc'ed; the caller frees it after the simulation). */
static int put_obstacles(const cf_synth_config *c, cf_sim *sim, double dt, long P, long N, double **track,
                         cf_error *e) {
  cf_obstacle o[2];
  int n = cf_synth_table(c, o, NULL);
  if (!strcmp(c->motion, "hitting")) {
    if (!(*track = malloc(sizeof(double) * 6 * (size_t)(P + N + 1))))
      return cf_error_set(e, CF_ENOMEM, "out of memory for the stick");
    for (long k = 0; k <= P + N; k++) cf_synth_stick(c, (k - P) * dt, *track + 6 * k);
    cf_obstacle_stick_tracked(o + n++, *track, (int)(P + N + 1), dt, c->stick_radius);
  }
  if (!n) return CF_OK;
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.friction_budget = 1; /* as the fitting simulations (src/fit/driven.c) */
  return cf_sim_set_obstacles(sim, o, n, &cp, e);
}

/* One simulation at rate scale s: r->truth at every frame; *steps and
 * *violation get its step count and largest constraint violation.  A failed
 * step is an error naming the run. */
static int simulate(const sim_job *j, double s, int run, long *steps, double *violation, cf_error *err) {
  const cf_synth_config *c = j->c;
  cf_synth_result *r = j->r;
  int K = j->K, T = r->n_frames;
  cf_params p;
  cf_params_default(&p);
  p.rho = c->density, p.delta = c->delta, p.alpha = c->alpha, p.beta = c->beta, p.kappa = c->kappa;
  p.model = cf_cloth_model_find(c->model);
  p.k_stretch = c->k_stretch, p.k_shear = c->k_shear, p.k_bend = c->k_bend;
  p.dt = j->dt, p.tol = c->tol, p.max_iter = c->max_iter;
  cf_synth_motion m;
  cf_synth_motion_init(&m, c, s);
  double kin0[6], kp[6], *prev = malloc(sizeof(double) * 3 * K), *cur = malloc(sizeof(double) * 3 * K);
  cf_error e = {0, ""};
  cf_sim *sim = prev && cur ? cf_sim_alloc(j->mesh, &p, j->kin, 2, &e) : NULL;
  long P = lround(c->preroll / j->dt), N = (long)ceil(c->duration / j->dt - 1e-9);
  double *track = NULL;
  if (sim && put_obstacles(c, sim, j->dt, P, N, &track, &e)) cf_sim_free(sim), sim = NULL;
  if (!sim) {
    free(prev), free(cur), free(track);
    return prev && cur ? cf_error_set(err, e.code, "%s", e.msg) : cf_error_set(err, CF_ENOMEM, "out of memory");
  }
  double *x = malloc(sizeof(double) * 3 * j->mesh->n_nodes);
  if (!x) {
    cf_sim_free(sim), free(prev), free(cur), free(track);
    return cf_error_set(err, CF_ENOMEM, "out of memory");
  }
  cf_synth_initial_state(c, j->mesh, x);
  cf_sim_set_state(sim, x, NULL);
  for (int q = 0; q < 2; q++) memcpy(kin0 + 3 * q, x + 3 * j->kin[q], 3 * sizeof(double));
  free(x);
  /* steps -P+1 .. 0 are the pre-roll (the cloth settles; not recorded) */
  int i = 1, rc = CF_OK;
  copy_markers(j, cf_sim_x(sim), j->dst);
  for (long k = 1 - P; k <= N && i < T; k++) {
    cf_synth_motion_eval(&m, k * j->dt, 2, kin0, kp);
    if ((rc = cf_sim_step(sim, kp, &e))) {
      cf_error_set(err, rc, "simulation %d (%d-node mesh, dt %.4g s, rate scale %.4g; its time includes the %g s "
                   "pre-roll) failed: %s", run, j->mesh->n_nodes, j->dt, s, c->preroll, e.msg);
      break;
    }
    copy_markers(j, cf_sim_x(sim), cur);
    if (k <= 0) { /* frame 0 is the state at the end of the pre-roll */
      memcpy(j->dst, cur, sizeof(double) * 3 * K);
      memcpy(prev, cur, sizeof(double) * 3 * K);
      continue;
    }
    /* frames in ((k-1) dt, k dt]: linear interpolation between the steps */
    for (; i < T && r->time[i] <= k * j->dt * (1 + 1e-12); i++) {
      double w = (r->time[i] - (k - 1) * j->dt) / j->dt;
      double *dst = j->dst + 3 * (size_t)K * i;
      for (int q = 0; q < 3 * K; q++) dst[q] = fabs(w - 1) < 1e-9 ? cur[q] : prev[q] + w * (cur[q] - prev[q]);
    }
    memcpy(prev, cur, sizeof(double) * 3 * K);
    if (j->fn && k % 200 == 0) j->fn(j->user, run, (double)(k + P) / (N + P));
  }
  cf_sim_stats st = cf_sim_get_stats(sim);
  *steps = st.steps, *violation = st.max_violation;
  cf_sim_free(sim);
  free(prev), free(cur), free(track);
  return rc;
}

/* The lattice nodes of r->fine into r->truth (camera outputs). */
static void lattice_of_fine(const cf_synth_config *c, cf_synth_result *r) {
  int K = r->rows * r->cols;
  for (int i = 0; i < r->n_frames; i++)
    for (int k = 0; k < K; k++)
      memcpy(r->truth + 3 * ((size_t)K * i + k),
             r->fine + 3 * ((size_t)r->n_fine * i + marker_node(c, c->refine, k / c->cols, k % c->cols)),
             3 * sizeof(double));
}

/* Mean |velocity| of the markers over the frames (forward differences;
 * camera outputs: over their irregular times). */
static double average_speed(const cf_synth_result *r, double rate) {
  if (r->frame && r->n_frames > 1) rate = (r->n_frames - 1) / (r->time[r->n_frames - 1] - r->time[0]);
  int K = r->rows * r->cols;
  double s = 0;
  for (int i = 1; i < r->n_frames; i++)
    for (int k = 0; k < K; k++) {
      const double *a = r->truth + 3 * ((size_t)K * (i - 1) + k), *b = a + 3 * K;
      s += sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
    }
  return r->n_frames > 1 ? s * rate / ((double)K * (r->n_frames - 1)) : 0;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void cf_synth_result_free(cf_synth_result *r) {
  free(r->time), free(r->truth), free(r->meas), free(r->gaps), free(r->stick), free(r->fine), free(r->frame);
  free(r->drops);
  for (int k = 0; k < r->n_tracks; k++) free(r->tracks[k].pos);
  free(r->tracks);
  memset(r, 0, sizeof *r);
}

/* The rate scale that brings the average speed to the target, found on
 * the lattice split 2 x 2 at dt = 0.01 s (the fitting mesh: ~50x cheaper
 * than the fine one) by secant steps on log speed vs log scale, at most 6
 * runs.  A failed coarse run just ends the search. */
static double coarse_scale(const cf_synth_config *c, cf_synth_result *r) {
  sim_job j;
  double ls = 0, y = 0, ls0 = 0, y0 = 0, tol = log(1 + c->speed_tol / 2), best = 0, best_y = INFINITY;
  long steps;
  double viol;
  cf_error e;
  if (job_init(&j, c, r, 2, 0.01, 0)) return job_free(&j), 1;
  for (int run = 1; run <= 6; run++) {
    if (simulate(&j, exp(ls), run, &steps, &viol, &e)) break;
    double v = average_speed(r, c->rate);
    if (!(v > 0)) break;
    y = log(v / r->target_speed);
    if (fabs(y) < best_y) best = ls, best_y = fabs(y);
    if (fabs(y) <= tol) break;
    double slope = run > 1 ? (y - y0) / (ls - ls0) : 1;
    if (!isfinite(slope) || slope < 0.2) slope = 1; /* near a resonance: plain ratio step */
    double step = -y / slope;
    step = step > 0.7 ? 0.7 : step < -0.7 ? -0.7 : step;
    ls0 = ls, y0 = y, ls += step;
  }
  job_free(&j);
  return exp(best);
}

/* The fine simulation at the coarse scale, re-scaled by target / achieved
 * (at most 3 runs, the last kept) while the speed is off by more than
 * speed_tol. */
static int calibrate(const cf_synth_config *c, cf_synth_result *r, cf_synth_progress_fn fn, void *user,
                     cf_error *err) {
  sim_job j;
  int rc = job_init(&j, c, r, c->refine, c->sim_dt, r->fine != NULL);
  if (rc) {
    job_free(&j);
    return cf_error_set(err, rc, "out of memory for the simulation mesh");
  }
  j.fn = fn, j.user = user;
  /* a tablecloth's motion is laid out in time (lay_time, drag_period), a
   * hitting's in its hits: not calibrated to a speed */
  int fixed = !strcmp(c->motion, "tablecloth") || !strcmp(c->motion, "hitting") || !strcmp(c->motion, "wam");
  double s = fixed ? 1 : coarse_scale(c, r);
  for (int run = 1; run <= 3 && !rc; run++) {
    long steps;
    double viol;
    rc = simulate(&j, s, run, &steps, &viol, err);
    r->steps += steps;
    if (viol > r->max_violation) r->max_violation = viol;
    if (rc) break;
    r->runs = run, r->rate_scale = s;
    if (r->fine) lattice_of_fine(c, r);
    r->achieved_speed = average_speed(r, c->rate);
    if (fixed || !(r->achieved_speed > 0) || fabs(r->achieved_speed / r->target_speed - 1) <= c->speed_tol) break;
    s *= r->target_speed / r->achieved_speed;
  }
  job_free(&j);
  return rc;
}

int cf_synth_run(const cf_synth_config *c, cf_synth_result *r, cf_synth_progress_fn fn, void *user,
                 cf_error *err) {
  memset(r, 0, sizeof *r);
  r->rows = c->rows, r->cols = c->cols;
  r->nx = (c->cols - 1) * c->refine + 1, r->ny = (c->rows - 1) * c->refine + 1;
  r->target_speed = sy_target_speed(c);
  r->controlled[0] = 0, r->controlled[1] = c->cols - 1;
  int cam = cf_synth_camera_output(c);
  if (cam) { /* the camera's irregular timestamps, every fine node sampled */
    if (sy_camera_times(c, r)) return cf_error_set(err, CF_ENOMEM, "out of memory for the camera's frames");
    r->n_fine = r->nx * r->ny;
    r->fine = malloc(sizeof(double) * 3 * (size_t)r->n_fine * r->n_frames);
  } else {
    r->n_frames = (int)floor(c->duration * c->rate + 1e-9) + 1;
    if ((r->time = malloc(sizeof(double) * r->n_frames)))
      for (int i = 0; i < r->n_frames; i++) r->time[i] = i / c->rate;
  }
  r->truth = malloc(sizeof(double) * 3 * (size_t)c->rows * c->cols * r->n_frames);
  if (!r->time || !r->truth || (cam && !r->fine)) {
    cf_synth_result_free(r);
    return cf_error_set(err, CF_ENOMEM, "out of memory for %d frames", r->n_frames);
  }
  if (!strcmp(c->motion, "hitting")) {
    if (!(r->stick = malloc(sizeof(double) * 6 * r->n_frames))) {
      cf_synth_result_free(r);
      return cf_error_set(err, CF_ENOMEM, "out of memory for %d frames", r->n_frames);
    }
    for (int i = 0; i < r->n_frames; i++) cf_synth_stick(c, r->time[i], r->stick + 6 * i);
  }
  double t0 = now();
  int rc = calibrate(c, r, fn, user, err);
  r->wall_s = now() - t0;
  if (!rc) rc = cam ? sy_camera_mesh(c, r, err) : sy_corrupt(c, r, err);
  if (rc) cf_synth_result_free(r);
  return rc;
}
