/* fit_flat.c — the flat-on-table start of a point-cloud fit (fit_flat.h):
 * the W x H sheet lying flat on the table at the first frame, placed and
 * oriented by the grippers' first positions and the first frame's points.
 *
 * The sheet's point (u, v) lies at o + R(theta) S (u W, -v H) in the
 * table's (x, y), S = diag(1, s), s = +-1 (which face is up: a sheet's
 * faces are alike, so both are tried).  The placement minimizes
 *   sum over the points of their squared distance to the rectangle (0
 *   inside it: a point says only that the cloth is there), capped at
 *   CF_FLAT_CAP^2 (a depth camera's outliers at the table's height, far
 *   off the sheet, then cost alike wherever the sheet lies)
 *   + CF_FLAT_ANCHOR_WEIGHT x the squared distance of each anchor's sheet
 *   point from its gripper's position,
 * over the points within CF_FLAT_BAND of the sheet's height (the cloth
 * lying on the table: not the outliers, not a robot above it).  Partial
 * first frames (a robot masked out, a cloud cut by the image) are expected:
 * a point costs only when it falls outside the sheet, so the points that
 * are there pull the sheet over themselves and the missing ones pull
 * nothing.  So:
 *  - two or more anchors fix the placement (Procrustes: theta and o in
 *    closed form); the points only choose the face (s) when the anchors
 *    are ambiguous, and are otherwise unused;
 *  - one anchor fixes o for each theta; theta is the best of a scan of
 *    CF_FLAT_SCAN angles refined by golden section: the points turn the
 *    sheet about its anchor until they lie on it (and when they do over a
 *    range of turns, the middle of that range);
 *  - no anchor: the centre is the points' centroid and theta is scanned the
 *    same way.  A partial cloud then shifts the sheet towards the points it
 *    has, by up to half what is missing: give the start a gripper's
 *    position (one holding at the first frame, or grasping later, which is
 *    where the cloth lay) to avoid it.
 * No workspace beyond the kept points (malloc'ed, freed).  Failure:
 * CF_EINVAL with one line naming source; CF_ENOMEM. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_common.h"
#include "fit_flat.h"

#define CF_FLAT_ANCHOR_WEIGHT 1e4
#define CF_FLAT_SCAN 720
#define CF_FLAT_CAP 0.01 /* m */

typedef struct {
  const double *q; /* [m*2] the kept points' (x, y) */
  long m;
  double W, H;
  const cf_flat_anchors *an;
} flat_problem;

typedef struct {
  double th, s, o[2];
} flat_pose;

static void to_world(const flat_pose *f, double lx, double ly, double *w) {
  double c = cos(f->th), sn = sin(f->th), y = f->s * ly;
  w[0] = f->o[0] + c * lx - sn * y, w[1] = f->o[1] + sn * lx + c * y;
}

/* The squared distance of world point w from the sheet placed at f. */
static double outside2(const flat_problem *P, const flat_pose *f, const double *w) {
  double c = cos(f->th), sn = sin(f->th), dx = w[0] - f->o[0], dy = w[1] - f->o[1];
  double lx = c * dx + sn * dy, ly = f->s * (-sn * dx + c * dy); /* local: x in [0, W], y in [-H, 0] */
  double ex = lx < 0 ? -lx : lx > P->W ? lx - P->W : 0, ey = ly > 0 ? ly : ly < -P->H ? -P->H - ly : 0;
  return fmin(ex * ex + ey * ey, CF_FLAT_CAP * CF_FLAT_CAP);
}

static double cost(const flat_problem *P, const flat_pose *f) {
  double sum = 0;
  for (long i = 0; i < P->m; i++) sum += outside2(P, f, P->q + 2 * i);
  for (int a = 0; a < P->an->n; a++) {
    double w[2];
    to_world(f, P->an->uv[2 * a] * P->W, -P->an->uv[2 * a + 1] * P->H, w);
    double dx = w[0] - P->an->xy[2 * a], dy = w[1] - P->an->xy[2 * a + 1];
    sum += CF_FLAT_ANCHOR_WEIGHT * (dx * dx + dy * dy);
  }
  return sum;
}

/* o for theta: the first anchor met exactly, or the sheet's centre on the
 * points' centroid c. */
static void place_o(const flat_problem *P, flat_pose *f, const double *c) {
  double w[2];
  f->o[0] = f->o[1] = 0;
  if (P->an->n) {
    to_world(f, P->an->uv[0] * P->W, -P->an->uv[1] * P->H, w);
    f->o[0] = P->an->xy[0] - w[0], f->o[1] = P->an->xy[1] - w[1];
  } else {
    to_world(f, 0.5 * P->W, -0.5 * P->H, w);
    f->o[0] = c[0] - w[0], f->o[1] = c[1] - w[1];
  }
}

static double cost_at(const flat_problem *P, flat_pose *f, double th, const double *c) {
  f->th = th;
  place_o(P, f, c);
  return cost(P, f);
}

/* One anchor or none: theta scanned, then refined by golden section. */
static void scan(const flat_problem *P, flat_pose *f, const double *c) {
  double best = INFINITY, th = 0, h = 2 * M_PI / CF_FLAT_SCAN;
  for (int k = 0; k < CF_FLAT_SCAN; k++) {
    double e = cost_at(P, f, k * h, c);
    if (e < best) best = e, th = k * h;
  }
  double a = th - h, b = th + h, g = 0.5 * (sqrt(5) - 1);
  for (int it = 0; it < 60; it++) {
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    if (cost_at(P, f, x1, c) < cost_at(P, f, x2, c)) b = x2;
    else a = x1;
  }
  /* the middle of the angles as good as it (a partial cloud's points all
   * on the sheet over a range of turns: the one farthest from both ends) */
  double m = 0.5 * (a + b), e = cost_at(P, f, m, c), lo = m, hi = m, step = h / 100;
  for (int k = 0; k < 200 && cost_at(P, f, lo - step, c) <= e + 1e-12; k++) lo -= step;
  for (int k = 0; k < 200 && cost_at(P, f, hi + step, c) <= e + 1e-12; k++) hi += step;
  cost_at(P, f, 0.5 * (lo + hi), c);
}

/* Two anchors or more: the rigid map of the anchors' sheet points (face s)
 * onto their positions, least squares. */
static void procrustes(const flat_problem *P, flat_pose *f) {
  const cf_flat_anchors *an = P->an;
  double ls[2] = {0, 0}, ws[2] = {0, 0}, sxx = 0, sxy = 0;
  for (int a = 0; a < an->n; a++)
    ls[0] += an->uv[2 * a] * P->W, ls[1] += -f->s * an->uv[2 * a + 1] * P->H, ws[0] += an->xy[2 * a],
        ws[1] += an->xy[2 * a + 1];
  for (int d = 0; d < 2; d++) ls[d] /= an->n, ws[d] /= an->n;
  for (int a = 0; a < an->n; a++) {
    double lx = an->uv[2 * a] * P->W - ls[0], ly = -f->s * an->uv[2 * a + 1] * P->H - ls[1];
    double wx = an->xy[2 * a] - ws[0], wy = an->xy[2 * a + 1] - ws[1];
    sxx += lx * wx + ly * wy, sxy += lx * wy - ly * wx;
  }
  f->th = atan2(sxy, sxx);
  double c = cos(f->th), sn = sin(f->th);
  f->o[0] = ws[0] - (c * ls[0] - sn * ls[1]), f->o[1] = ws[1] - (sn * ls[0] + c * ls[1]);
}

/* The kept points' (x, y) and centroid; their number. */
static long keep(const double *p, long n, double z, double *q, double *c) {
  long m = 0;
  c[0] = c[1] = 0;
  for (long i = 0; i < n; i++)
    if (fabs(p[3 * i + 2] - z) <= CF_FLAT_BAND) q[2 * m] = p[3 * i], q[2 * m + 1] = p[3 * i + 1], c[0] += q[2 * m], c[1] += q[2 * m + 1], m++;
  if (m) c[0] /= m, c[1] /= m;
  return m;
}

int cf_fit_flat_place(const double *p, long n, double W, double H, double z, int rows, int cols,
                      const cf_flat_anchors *an, const char *source, double *pos, cf_error *err) {
  double *q = malloc(sizeof(double) * 2 * (size_t)(n > 0 ? n : 1)), c[2];
  if (!q) return cf_error_set(err, CF_ENOMEM, "%s: out of memory for the flat start", source);
  flat_problem P = {q, keep(p, n, z, q, c), W, H, an};
  if (!P.m && !an->n) {
    free(q);
    return cf_error_set(err, CF_EINVAL, "%s: the flat-on-table start: no gripper's first position and none of the "
                        "first frame's %ld points within %g cm of the sheet's height z = %.4f m on the table: nothing "
                        "places the sheet", source, n, 1e2 * CF_FLAT_BAND, z);
  }
  flat_pose best = {0, 1, {0, 0}};
  double e_best = INFINITY;
  for (int face = 0; face < 2; face++) {
    flat_pose f = {0, face ? -1 : 1, {0, 0}};
    if (an->n >= 2) procrustes(&P, &f);
    else scan(&P, &f, c);
    double e = cost(&P, &f);
    if (e < e_best) e_best = e, best = f;
  }
  free(q);
  for (int r = 0; r < rows; r++)
    for (int k = 0; k < cols; k++) {
      double *x = pos + 3 * (r * cols + k);
      to_world(&best, W * k / (cols - 1), -H * r / (rows - 1), x);
      x[2] = z;
    }
  return CF_OK;
}
