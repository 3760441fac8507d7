/* fit_cloud.c — a point-cloud recording (`ingest clouds`: /cloud, /held) as
 * a fit target (cf_study.h, cf_fit_input_from_clouds).
 *
 * A cloud has no markers, so the target's lattice is the simulated cloth's
 * own: the recording's grid (`ingest clouds --grid RxC`, /cloud grid_rows,
 * grid_cols; default CF_CLOUD_GRID x CF_CLOUD_GRID) of "markers" on a flat
 * rectangle of the cloth's size, row 0 on top, each cell split by the
 * target's split (the fitting commands' --split, 2 by default: 5 x 5 gives
 * 9 x 9 nodes, the thesis' meshing of §4.1.1; 5 x 9 gives 9 x 17).  Frame 0
 * is that rectangle hanging straight down from the two held corners where
 * the track has them at time 0 (its top edge from corner 1 to corner 2, its
 * height the cloth's), its rows bowed out of plane to the cloth's width
 * when the corners are closer than that (hang()): with the size's flat rest
 * (the default, --rest size) the simulation starts there, at rest.  The two top corners follow the
 * held track interpolated linearly at every frame k CF_CLOUD_DT; every
 * other marker is missing (NaN) after frame 0, so the markers measure
 * nothing and the frames' errors are the clouds' (cf_fit_target.n_cloud,
 * the camera's native times).  The frames run to the last cloud's time,
 * rounded down to a frame: a cloud after it (less than CF_CLOUD_DT after)
 * is left out.
 *
 * Other grippers than that hanger (/held point and grasp: one or more, at
 * any points of the sheet, grasping and releasing) are the target's
 * grippers (cf_fit_target.grip_*: their track at every frame, their
 * points, their windows), the sheet still hanging from the grippers at
 * top-left and top-right at frame 0 (the hanging start needs them held
 * there: cf_rec_held_check); no marker is controlled.  A recording that
 * starts flat on the table (/held start flat-on-table) has frame 0 the
 * sheet lying on its /table (required), placed by fit_flat.c.  The table
 * of any cloud recording is the target's (an obstacle with friction mu).
 *
 * A cloud of more than CF_CLOUD_FIT_POINTS points is measured on that many,
 * evenly spaced in its file's order (a camera's raster: evenly over the
 * cloth).  Why: the error of a frame is a mean over its points, and 2000 of
 * them fix it to ~2 % of the depth noise (the trimmed mean's spread over
 * sqrt(2000)), far below what the frames' mean over a window resolves;
 * while a frame of 10^4 costs 7.6 steps of a 9 x 9 cloth and of 2000 0.8
 * (bench_cloud --nodes 9 [--points 2000], docs/design.md §7): at ~30 clouds
 * a second against 100 steps, a fit of full clouds would spend 2.3 times
 * as long measuring as simulating, thinned a quarter. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_study.h"
#include "fit_flat.h"

/* The grippers at time t (on the track's axis), linear between samples,
 * held at the ends: x[3 n_grip]. */
static void held_at(const cf_rec_held *h, double t, double *x) {
  int a = 0, b = h->n - 1;
  if (t <= h->time[0]) b = 0;
  else if (t >= h->time[b]) a = b;
  while (b - a > 1) { /* h->time[a] < t < h->time[b] */
    int m = (a + b) / 2;
    if (h->time[m] <= t) a = m;
    else b = m;
  }
  double w = b > a ? (t - h->time[a]) / (h->time[b] - h->time[a]) : 0;
  int m = 3 * h->n_grip;
  for (int i = 0; i < m; i++) x[i] = (1 - w) * h->track[m * a + i] + w * h->track[m * b + i];
}

static int check(const cf_recording *r, const char *path, cf_error *err) {
  if (!(r->meta.width_m > 0 && r->meta.height_m > 0))
    return cf_error_set(err, CF_EINVAL, "%s: point clouds: the simulated cloth is a rectangle of the cloth's size, "
                        "and /meta has none; ingest with --size A3|WxH (or width/height in --meta)", path);
  if (r->held.n < 2)
    return cf_error_set(err, CF_EINVAL, "%s: point clouds without the held corners' track (/held); ingest with "
                        "--held-track CORNERS.csv", path);
  if (r->n_frames < 2 || !(r->time[r->n_frames - 1] >= CF_CLOUD_DT))
    return cf_error_set(err, CF_EINVAL, "%s: point clouds over %d frame(s), %g s: fitting needs at least 2 frames "
                        "%g s apart", path, r->n_frames, r->n_frames ? r->time[r->n_frames - 1] : 0, CF_CLOUD_DT);
  char what[1100];
  snprintf(what, sizeof what, "%s: /held", path);
  return cf_rec_held_check(&r->held, what, err);
}

/* The half-angle theta of a circular arc of length 1 over a chord q
 * (sin(theta) / theta = q, 0 < q < 1), by bisection on (0, pi). */
static double arc_half_angle(double q) {
  double lo = 0, hi = M_PI;
  for (int i = 0; i < 100; i++) {
    double m = 0.5 * (lo + hi);
    if (sin(m) / m > q) lo = m;
    else hi = m;
  }
  return 0.5 * (lo + hi);
}

/* Which side of the corners' vertical plane (along n) the first cloud's
 * top third lies on: +1 or -1 by the median of its points' offsets (the
 * camera's outliers, a few per cent, do not move a median); +1 without
 * such points. */
static double bulge_side(const cf_recording *r, const double *mid, const double *a, const double *d,
                         const double *n, double half, double height) {
  long lo = r->cloud.offset ? r->cloud.offset[0] : 0, hi = r->cloud.offset ? r->cloud.offset[1] : 0, k = 0;
  double *o = malloc(sizeof(double) * (size_t)(hi > lo ? hi - lo : 1)), side = 1;
  for (long i = lo; o && i < hi; i++) {
    const double *p = r->cloud.points + 3 * i;
    double q[3] = {p[0] - mid[0], p[1] - mid[1], p[2] - mid[2]};
    double x = q[0] * a[0] + q[1] * a[1] + q[2] * a[2], y = q[0] * d[0] + q[1] * d[1] + q[2] * d[2];
    if (fabs(x) <= half && y >= 0 && y <= height / 3) o[k++] = q[0] * n[0] + q[1] * n[1] + q[2] * n[2];
  }
  if (k > 0) {
    long below = 0;
    for (long i = 0; i < k; i++) below += o[i] < 0;
    side = 2 * below > k ? -1 : 1;
  }
  free(o);
  return side;
}

/* Frame 0: the cloth hanging from the corners c[6] (row 0 on top), its
 * rows W = the cloth's width long.  Corners as far apart as W or farther:
 * the flat rectangle from corner 1 to corner 2 (the driven simulation
 * pulls corners too far apart together, docs/driving.md).  Closer (a
 * hanger holds the top edge slack: 0.5 % in datasets/wam-mini): a flat
 * rectangle with rows shorter than the cloth cannot start a simulation of
 * its lengths, as its projection onto them must bulge the sheet out of its
 * plane, forwards or backwards, and a straight row gives it no direction
 * to take (the projection stalled at violation 5e-3 and the fit of
 * wam-mini's light-cotton-fast clouds failed at every start:
 * `bench/cloud_fit.sh`).  So each row is a circular arc of
 * length W out of the corners' plane, on the side where the first cloud's
 * top third lies, over a chord from the corners' distance L on the top row
 * to W on the bottom one (the slack dies out down the sheet, as a hanging
 * sheet's does): the markers W/(cols-1) apart along it. */
static int hang(const cf_recording *r, const double *c, int rows, int cols, const char *path, double *pos,
                cf_error *err) {
  double a[3], d[3] = {0, 0, -1}, n[3], mid[3], l2 = 0, ad = 0, dl = 0, height = r->meta.height_m;
  for (int i = 0; i < 3; i++) a[i] = c[3 + i] - c[i], l2 += a[i] * a[i], mid[i] = 0.5 * (c[i] + c[3 + i]);
  for (int i = 0; i < 3; i++) ad += a[i] * d[i] / (l2 > 0 ? l2 : 1);
  for (int i = 0; i < 3; i++) d[i] -= ad * a[i], dl += d[i] * d[i];
  if (!(l2 > 1e-8) || !(dl > 1e-8))
    return cf_error_set(err, CF_EINVAL, "%s: point clouds: the held corners at the first frame are %.4g m apart, "
                        "one above the other or at one point: the cloth cannot hang from them", path, sqrt(l2));
  double L = sqrt(l2), W = r->meta.width_m;
  for (int i = 0; i < 3; i++) a[i] /= L, d[i] /= sqrt(dl);
  n[0] = a[1] * d[2] - a[2] * d[1], n[1] = a[2] * d[0] - a[0] * d[2], n[2] = a[0] * d[1] - a[1] * d[0];
  if (!(L < W * (1 - 1e-6))) { /* the flat rectangle */
    for (int row = 0; row < rows; row++)
      for (int k = 0; k < cols; k++)
        for (int i = 0; i < 3; i++)
          pos[3 * (row * cols + k) + i] = c[i] + (c[3 + i] - c[i]) * k / (cols - 1) + d[i] * height * row / (rows - 1);
    return CF_OK;
  }
  double side = bulge_side(r, mid, a, d, n, 0.5 * L, height);
  for (int row = 0; row < rows; row++) {
    double f = (double)row / (rows - 1), chord = L + (W - L) * f;
    double th = chord < W * (1 - 1e-6) ? arc_half_angle(chord / W) : 0, R = th > 0 ? 0.5 * W / th : 0;
    for (int k = 0; k < cols; k++) {
      double u = 2.0 * k / (cols - 1) - 1, phi = th * u; /* u in [-1, 1] across */
      double x = th > 0 ? R * sin(phi) : 0.5 * chord * u, y = th > 0 ? side * R * (cos(phi) - cos(th)) : 0;
      for (int i = 0; i < 3; i++) pos[3 * (row * cols + k) + i] = mid[i] + a[i] * x + n[i] * y + d[i] * height * f;
    }
  }
  memcpy(pos, c, 3 * sizeof(double)); /* the top row ends at the corners exactly */
  memcpy(pos + 3 * (cols - 1), c + 3, 3 * sizeof(double));
  return CF_OK;
}

/* The clouds up to the last frame, copied (their times on the recording's
 * axis, which is the target's), each thinned to CF_CLOUD_FIT_POINTS points
 * evenly spaced in its file's order. */
static int copy_clouds(const cf_recording *r, int T, cf_fit_input *in) {
  int n = 0;
  while (n < r->n_frames && r->time[n] <= (T - 1) * CF_CLOUD_DT + 1e-9) n++;
  long P = 0;
  for (int c = 0; c < n; c++) {
    long m = r->cloud.offset[c + 1] - r->cloud.offset[c];
    P += m < CF_CLOUD_FIT_POINTS ? m : CF_CLOUD_FIT_POINTS;
  }
  in->cloud_time = malloc(sizeof(double) * n);
  in->cloud_offset = malloc(sizeof(long) * (n + 1));
  in->cloud_points = malloc(sizeof(double) * 3 * (size_t)(P > 0 ? P : 1));
  if (!in->cloud_time || !in->cloud_offset || !in->cloud_points) return 0;
  memcpy(in->cloud_time, r->time, sizeof(double) * n);
  in->cloud_offset[0] = 0;
  for (int c = 0; c < n; c++) {
    long a = r->cloud.offset[c], m = r->cloud.offset[c + 1] - a, k = m < CF_CLOUD_FIT_POINTS ? m : CF_CLOUD_FIT_POINTS;
    double *dst = in->cloud_points + 3 * in->cloud_offset[c];
    for (long i = 0; i < k; i++) memcpy(dst + 3 * i, r->cloud.points + 3 * (a + i * m / k), 3 * sizeof(double));
    in->cloud_offset[c + 1] = in->cloud_offset[c] + k;
  }
  in->tg.n_cloud = n;
  in->tg.cloud_time = in->cloud_time, in->tg.cloud_offset = in->cloud_offset, in->tg.cloud_points = in->cloud_points;
  return 1;
}

/* The hanger's two top corners at time 0 into c[6]: grippers 1 and 2 for
 * the hanger, else those holding top-left and top-right (cf_rec_held_check
 * made sure they hold at t = 0). */
static void top_corners(const cf_rec_held *h, double *c) {
  double all[3 * CF_HELD_MAX], uv[2];
  held_at(h, 0, all);
  for (int g = 0; g < h->n_grip; g++)
    if (cf_rec_held_point(h, g, uv) && uv[1] == 0 && (uv[0] == 0 || uv[0] == 1) && cf_rec_held_holds(h, g, 0))
      memcpy(c + 3 * (int)uv[0], all + 3 * g, 3 * sizeof(double));
}

/* The grippers as the target's (tg.grip_*): their points, their track at
 * every frame, their windows (NULL when each holds throughout). */
static int grippers(const cf_rec_held *h, int T, cf_fit_input *in) {
  int G = h->n_grip;
  in->grip_uv = malloc(sizeof(double) * 2 * G);
  in->grip_track = malloc(sizeof(double) * 3 * G * (size_t)T);
  in->grip_window = h->n_grasp ? malloc(sizeof(double) * 2 * G) : NULL;
  if (!in->grip_uv || !in->grip_track || (h->n_grasp && !in->grip_window)) return 0;
  for (int g = 0; g < G; g++) {
    cf_rec_held_point(h, g, in->grip_uv + 2 * g);
    if (in->grip_window) memcpy(in->grip_window + 2 * g, h->grasp[g], 2 * sizeof(double));
  }
  for (int k = 0; k < T; k++) held_at(h, k * CF_CLOUD_DT, in->grip_track + 3 * (size_t)G * k);
  in->tg.n_grip = G;
  in->tg.grip_uv = in->grip_uv, in->tg.grip_track = in->grip_track, in->tg.grip_window = in->grip_window;
  return 1;
}

/* The flat-on-table start (fit_flat.c): the sheet on the recording's table,
 * the contact clearance above its top, pinned where each gripper first
 * holds its point (at the first frame, or at its grasp: the cloth lay
 * there until then) and laid over the first frame's points. */
static int flat_start(const cf_recording *r, int rows, int cols, const char *path, double *pos, cf_error *err) {
  const cf_rec_held *h = &r->held;
  if (!cf_rec_table_valid(r->meta.table))
    return cf_error_set(err, CF_EINVAL, "%s: the flat-on-table start needs the table (/table): ingest with "
                        "--table-height and --table-extent, or from first-frame points that lie on one", path);
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cf_flat_anchors an = {0};
  double x[3 * CF_HELD_MAX], T = r->time[r->n_frames - 1];
  for (int g = 0; g < h->n_grip; g++) {
    double t = h->n_grasp && h->grasp[g][0] > 0 ? h->grasp[g][0] : 0;
    if (t > T || !cf_rec_held_point(h, g, an.uv + 2 * an.n)) continue;
    held_at(h, t, x);
    an.xy[2 * an.n] = x[3 * g], an.xy[2 * an.n + 1] = x[3 * g + 1], an.n++;
  }
  return cf_fit_flat_place(r->cloud.points, r->cloud.offset[1], r->meta.width_m, r->meta.height_m,
                           r->meta.table[0] + cp.thickness, rows, cols, &an, path, pos, err);
}

int cf_fit_input_from_clouds(const cf_recording *r, const char *path, cf_fit_input *in, cf_error *err) {
  int rc = check(r, path, err);
  if (rc) return rc;
  const int *grid = r->cloud.grid;
  int rows = grid[0] >= 2 ? grid[0] : CF_CLOUD_GRID, cols = grid[1] >= 2 ? grid[1] : CF_CLOUD_GRID, K = rows * cols;
  int T = (int)floor(r->time[r->n_frames - 1] / CF_CLOUD_DT + 1e-9) + 1, hanger = cf_rec_held_is_hanger(&r->held);
  in->pos = malloc(sizeof(double) * 3 * (size_t)T * K);
  if (!in->pos) return cf_error_set(err, CF_ENOMEM, "%s: out of memory for %d frames", path, T);
  for (size_t j = 0; j < 3 * (size_t)T * K; j++) in->pos[j] = NAN;
  double c[6];
  top_corners(&r->held, c);
  if (r->held.start == CF_CLOTH_FLAT_ON_TABLE) rc = flat_start(r, rows, cols, path, in->pos, err);
  else rc = hang(r, c, rows, cols, path, in->pos, err);
  if (rc) return rc;
  for (int k = 1; hanger && k < T; k++) { /* the hanger: the top corners as controlled markers */
    held_at(&r->held, k * CF_CLOUD_DT, c);
    memcpy(in->pos + 3 * ((size_t)k * K), c, 3 * sizeof(double));
    memcpy(in->pos + 3 * ((size_t)k * K + cols - 1), c + 3, 3 * sizeof(double));
  }
  cf_fit_target tg = {rows, cols, T, CF_CLOUD_DT, in->pos, NULL, 0, NULL, r->meta.density, {0, 0, 0, 0, 0},
                      NULL, 0, 0, 0, 0, {0, 0}, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
  if (cf_rec_table_valid(r->meta.table)) memcpy(tg.table, r->meta.table, sizeof tg.table);
  in->tg = tg;
  if (!hanger && !grippers(&r->held, T, in))
    return cf_error_set(err, CF_ENOMEM, "%s: out of memory for the grippers", path);
  if (!copy_clouds(r, T, in)) return cf_error_set(err, CF_ENOMEM, "%s: out of memory for the clouds", path);
  return CF_OK;
}
