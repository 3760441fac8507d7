/* start.c — the rest shape and the start state of a driven simulation
 * (start.h; docs/models.md "The rest shape, the start and the time step",
 * docs/notes/fit-causes.md §2): the flat sheet of the cloth's size or of the
 * recorded spacings, the first frame moved onto it through every marker,
 * and the markers' velocity at the first frame. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quadfit.h"
#include "start.h"

static void smooth_start(const cf_fit_target *tg, double *x);


/* The largest per-frame mean of the distances of the markers (i, j) and
 * (i + di, j + dj) over the frames where both are present. */
static double spacing(const cf_fit_target *tg, int di, int dj) {
  int R = tg->rows, C = tg->cols, K = R * C;
  double best = 0;
  for (int t = 0; t < tg->T; t++) {
    const double *P = tg->pos + (size_t)t * K * 3;
    double sum = 0;
    int n = 0;
    for (int i = 0; i + di < R; i++)
      for (int j = 0; j + dj < C; j++) {
        const double *p = P + 3 * (i * C + j), *q = P + 3 * ((i + di) * C + j + dj);
        if (isnan(p[0]) || isnan(q[0])) continue;
        sum += cf_fit_dist3(p, q);
        n++;
      }
    if (n > 0 && sum / n > best) best = sum / n;
  }
  return best;
}

int cf_fit_start_flat(const cf_fit_target *tg, cf_mesh **mesh, double **x0, cf_error *err) {
  int R = tg->rows, C = tg->cols;
  double a = spacing(tg, 0, 1), b = spacing(tg, 1, 0);
  if (tg->rest == CF_REST_SIZE) {
    if (!(tg->size[0] > 0 && tg->size[1] > 0))
      return cf_error_set(err, CF_EINVAL, "recording: the rest shape of the cloth's size needs its width and height "
                          "(meta width_m, height_m: ingest with --size or --meta)");
    a = tg->size[0] / (C - 1), b = tg->size[1] / (R - 1);
  }
  double *lat = malloc(sizeof(double) * 3 * R * C);
  if (!lat) return cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      double *p = lat + 3 * (i * C + j);
      p[0] = j * a, p[1] = 0, p[2] = -i * b;
    }
  cf_mesh *flat =
      a > 0 && b > 0 ? cf_mesh_lattice_refine(R, C, cf_fit_target_split(tg), cf_fit_target_split_cols(tg), lat) : NULL;
  free(lat);
  if (!flat)
    return cf_error_set(err, CF_EINVAL, "recording: no flat rest lattice from the marker distances (spacings %g, %g m)",
                        a, b);
  *x0 = malloc(sizeof(double) * 3 * flat->n_nodes);
  if (!*x0) {
    cf_mesh_free(flat);
    return cf_error_set(err, CF_ENOMEM, "out of memory");
  }
  smooth_start(tg, *x0);
  cf_mesh_free(*mesh);
  *mesh = flat;
  return CF_OK;
}

/* Marker k's position at time s (s) after frame 0 from the least-squares
 * quadratic in time through its first CF_START_FRAMES recorded positions
 * (where present; fewer than 3: its frame-0 position, i.e. at rest). */
static void early_position(const cf_fit_target *tg, int k, double s, double *out) {
  int K = tg->rows * tg->cols, m = tg->T < CF_START_FRAMES ? tg->T : CF_START_FRAMES;
  double tt[CF_START_FRAMES], y[3][CF_START_FRAMES];
  int n = 0;
  for (int t = 0; t < m; t++) {
    const double *p = tg->pos + ((size_t)t * K + k) * 3;
    if (isnan(p[0])) continue;
    tt[n] = t * tg->dt;
    for (int d = 0; d < 3; d++) y[d][n] = p[d];
    n++;
  }
  memcpy(out, tg->pos + (size_t)k * 3, 3 * sizeof(double));
  if (n < 3) return;
  double c[3];
  for (int d = 0; d < 3; d++) {
    if (cf_quad_fit(1, n, tt, y[d], c, NULL)) return;
    out[d] = c[0] + c[1] * s + c[2] * s * s;
  }
}

/* CF_START_MOVING: the nodes' velocities at frame 0, the difference of the
 * lattices refined at the markers' quadratic positions at 0 and at one
 * frame, over the frame (a refined lattice is the same linear map of its
 * markers at both times, so this is the refined lattice of the markers'
 * velocities). */
int cf_fit_start_velocity(const cf_fit_target *tg, double **v0, cf_error *err) {
  int K = tg->rows * tg->cols, sr = cf_fit_target_split(tg), sc = cf_fit_target_split_cols(tg);
  int n = (sr * (tg->rows - 1) + 1) * (sc * (tg->cols - 1) + 1);
  double *p0 = malloc(sizeof(double) * 3 * K), *p1 = malloc(sizeof(double) * 3 * K);
  *v0 = malloc(sizeof(double) * 3 * n);
  cf_mesh *a = NULL, *b = NULL;
  if (p0 && p1 && *v0) {
    for (int k = 0; k < K; k++) early_position(tg, k, 0, p0 + 3 * k), early_position(tg, k, tg->dt, p1 + 3 * k);
    a = cf_mesh_lattice_refine(tg->rows, tg->cols, sr, sc, p0);
    b = cf_mesh_lattice_refine(tg->rows, tg->cols, sr, sc, p1);
  }
  int rc = !p0 || !p1 || !*v0 ? cf_error_set(err, CF_ENOMEM, "out of memory")
           : !a || !b ? cf_error_set(err, CF_EINVAL, "recording: the first frames' lattices do not make a valid mesh")
                      : CF_OK;
  for (int j = 0; !rc && j < 3 * n; j++) (*v0)[j] = (b->x[j] - a->x[j]) / tg->dt;
  cf_mesh_free(a), cf_mesh_free(b);
  free(p0), free(p1);
  return rc;
}

/* Marker (i, j) of frame 0, the lattice extended by one row and column on
 * each side by linear extrapolation (the Catmull-Rom spline's end
 * condition). */
static void marker_ext(const cf_fit_target *tg, int i, int j, double *out) {
  int R = tg->rows, C = tg->cols;
  int i0 = i < 0 ? 0 : i >= R ? R - 1 : i, i1 = i < 0 ? 1 : i >= R ? R - 2 : i;
  int j0 = j < 0 ? 0 : j >= C ? C - 1 : j, j1 = j < 0 ? 1 : j >= C ? C - 2 : j;
  double fi = i0 == i ? 0 : 1, fj = j0 == j ? 0 : 1;
  const double *p = tg->pos;
  for (int d = 0; d < 3; d++) {
    double a = p[3 * (i0 * C + j0) + d], b = p[3 * (i1 * C + j0) + d], c = p[3 * (i0 * C + j1) + d];
    out[d] = a + fi * (a - b) + fj * (a - c);
  }
}

/* The Catmull-Rom weights of the four points around t in [0, 1]. */
static void cr_weights(double t, double w[4]) {
  double t2 = t * t, t3 = t2 * t;
  w[0] = 0.5 * (-t + 2 * t2 - t3), w[1] = 0.5 * (2 - 5 * t2 + 3 * t3);
  w[2] = 0.5 * (t + 4 * t2 - 3 * t3), w[3] = 0.5 * (-t2 + t3);
}

/* A flat rest: the start x[] is the first frame's marker lattice refined
 * by a tensor Catmull-Rom spline (it passes through the markers).  Why not
 * the bilinear refinement of the mesh: a sheet that hangs bent (top corners
 * closer than its width) is curved between its markers, and the chords of a
 * bilinear refinement are shorter than the material; the projection onto
 * the flat sheet's lengths must then bulge every cell out of its plane,
 * forwards or backwards, a choice the chords do not make (a bifurcation),
 * and the start lands in another buckled state than the recorded sheet.
 * Measured on denim-A2-shake-fast-I at its true parameters and settings
 * (split 4, kappa 1e-5, beta 1e-4, tol 1e-3, 4 substeps, rest size):
 * docs/models.md "The start". */
static void smooth_start(const cf_fit_target *tg, double *x) {
  int sr = cf_fit_target_split(tg), sc = cf_fit_target_split_cols(tg);
  int R = sr * (tg->rows - 1) + 1, C = sc * (tg->cols - 1) + 1;
  for (int a = 0; a < R; a++)
    for (int b = 0; b < C; b++) {
      double s, t, wr[4], wc[4], *q = x + 3 * (a * C + b);
      int i = cf_mesh_lattice_cell(a, tg->rows, sr, &s), j = cf_mesh_lattice_cell(b, tg->cols, sc, &t);
      cr_weights(s, wr);
      cr_weights(t, wc);
      q[0] = q[1] = q[2] = 0;
      for (int u = 0; u < 4; u++)
        for (int v = 0; v < 4; v++) {
          double m[3];
          marker_ext(tg, i - 1 + u, j - 1 + v, m);
          for (int d = 0; d < 3; d++) q[d] += wr[u] * wc[v] * m[d];
        }
    }
}

/* A flat rest: the start is the sheet on the rest metric's constraints
 * closest to the first frame (cf_sim_closest_state): the least squares
 * over the mesh's nodes of their distances from x0 (the first frame's
 * lattice through the markers, smooth_start), each node weighted by its
 * mass, the markers' nodes START_MARKER_WEIGHT times more, the controlled
 * nodes held at the held track's first frame (within the sheet's reach:
 * cf_fit_held_track).  So the start passes through the markers where a
 * sheet can (a nearly isometric first frame: within the projection's
 * tolerance of them) and comes as close as it can where the recorded
 * sheet stretched or shears (docs/start.md).  Why the markers: the
 * interior of a bilinearly refined lattice is not on the cloth's surface,
 * and a projection holding only the corners moved the markers of a bundled
 * A2 recording by 1.9 mm on average, after which the sheet swung
 * (docs/models.md "The start").  START_MARKER_WEIGHT: a marker node then
 * outweighs the (split^2 - 1) interpolated nodes around it by a factor of
 * at least 100 / 15 on the finest default mesh (split 4), so they only
 * decide the shape between the markers. */
#define START_MARKER_WEIGHT 100.0
static void start_residual(const cf_fit_target *tg, const int *marker_node, const double *x, cf_drive_fix *fix) {
  int K = tg->rows * tg->cols;
  double sum = 0;
  fix->start_max_m = 0, fix->start_worst = 0;
  for (int k = 0; k < K; k++) {
    double d = cf_fit_dist3(x + 3 * marker_node[k], tg->pos + 3 * k);
    sum += d;
    if (d > fix->start_max_m) fix->start_max_m = d, fix->start_worst = k;
  }
  fix->start_mean_m = sum / K;
}

int cf_fit_start_markers(const cf_fit_target *tg, const cf_mesh *mesh, const cf_params *base, const int *marker_node,
                         const int *kin, int n_kin, const double *held0, double *x0, cf_drive_fix *fix,
                         cf_error *err) {
  int n = mesh->n_nodes, K = tg->rows * tg->cols;
  double *w = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * 3 * n);
  if (!w || !y) return free(w), free(y), cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; i < n; i++) w[i] = 1;
  for (int k = 0; k < K; k++) w[marker_node[k]] = START_MARKER_WEIGHT;
  for (int c = 0; c < n_kin; c++) w[kin[c]] = INFINITY, memcpy(x0 + 3 * kin[c], held0 + 3 * c, 3 * sizeof(double));
  memcpy(y, x0, sizeof(double) * 3 * n);
  cf_error e;
  int rc = cf_sim_closest_state(mesh, base, w, y, x0, &e);
  if (rc == CF_ENOMEM) rc = cf_error_set(err, rc, "%s", e.msg);
  else if (rc) memcpy(x0, y, sizeof(double) * 3 * n), rc = CF_OK; /* every evaluation's projection says why */
  start_residual(tg, marker_node, x0, fix);
  free(w), free(y);
  return rc;
}

const char *cf_fit_rest_name(int rest) {
  return rest == CF_REST_SIZE ? "size" : rest == CF_REST_FLAT ? "flat" : "first-frame";
}

void cf_fit_target_key(const cf_fit_target *tg, double *x) {
  x[0] = tg->rest, x[1] = tg->rest == CF_REST_SIZE ? tg->size[0] : 0, x[2] = tg->rest == CF_REST_SIZE ? tg->size[1] : 0;
  x[3] = cf_fit_target_split(tg), x[4] = tg->substeps > 1 ? tg->substeps : 1, x[5] = tg->start, x[6] = tg->n_cloud > 0;
  x[7] = cf_fit_target_split_cols(tg);
}

