/* held.c — the held points' tracks a sheet can follow (cf_fit.h,
 * cf_fit_held_track; docs/driving.md).
 *
 * What it computes: from the recorded positions of the n held points at T
 * uniform frames, the track the driven simulation follows:
 *  1. their noise sigma per coordinate, robustly from the fourth
 *     differences of every coordinate (1.4826 MAD / sqrt(70): a smooth
 *     motion sampled at 100 Hz adds far less to a fourth difference than
 *     0.01 mm of noise does), the largest over spacings of 1 to 4 frames
 *     (a track resampled from a slower source is linear between its
 *     samples); below 1 um the track is taken as noise-free;
 *  2. the tracks smoothed by a local quadratic (Savitzky–Golay) over the
 *     widest window of 2h + 1 frames (h <= CF_HELD_MAX_HALF) whose
 *     residual is still that of noise: mean squared residual at most
 *     sigma^2 (1 - c0) + (sigma / 2)^2, c0 the window's centre weight (the
 *     share of the noise a quadratic keeps), i.e. a bias of at most half
 *     the noise, and no coordinate moves by more than 5 sigma; a
 *     noise-free track is left as recorded;
 *  3. two held points of one edge (span_max > 0) farther apart than
 *     span_max (1 - slack) pulled together symmetrically to it (the reach
 *     of an inextensible edge, with the slack docs/driving.md gives), and
 *     refused where the excess is beyond any noise: more than
 *     max(1 mm, 0.5 %, 6 sqrt(2) sigma) of span_max (a swapped label, a
 *     marker off the cloth).
 * Workspace: malloc'ed and freed here.  Fails only out of memory (CF_ENOMEM)
 * or with CF_EINVAL and the frame named in bad. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "start.h"

/* The noise per coordinate of the m series x[t * m + s] (t < T) from
 * their fourth differences over frames `stride` apart; 0 below 4 stride
 * + 1 frames. */
static double noise_at(const double *x, int T, int m, int stride, double *work) {
  int k = 0;
  ptrdiff_t q = (ptrdiff_t)stride * m;
  for (int s = 0; s < m; s++)
    for (int t = 2 * stride; t + 2 * stride < T; t++) {
      const double *p = x + (size_t)t * m + s;
      work[k++] = fabs(p[-2 * q] - 4 * p[-q] + 6 * p[0] - 4 * p[q] + p[2 * q]);
    }
  if (k == 0) return 0;
  gsl_sort(work, 1, (size_t)k);
  return 1.4826 * gsl_stats_median_from_sorted_data(work, 1, (size_t)k) / sqrt(70.0);
}

/* The largest of noise_at over the spacings 1 .. CF_HELD_MAX_STRIDE: a
 * track interpolated linearly from a slower source (a depth camera's 30 Hz
 * on the recording's 100 Hz) is linear between the source's samples, where
 * the fourth differences of neighbouring frames miss the noise; over a
 * source interval they see it.  The motion's own part grows as the
 * spacing^4 but stays below the noise on the bundled recordings
 * (docs/driving.md).  Below CF_HELD_NOISE_FLOOR the track is taken as
 * noise-free (a synthetic one; motion capture's noise is 0.05 mm and more)
 * and left as recorded. */
#define CF_HELD_MAX_STRIDE 4
#define CF_HELD_NOISE_FLOOR 1e-6
static double noise_sigma(const double *x, int T, int m, double *work) {
  double sigma = 0;
  for (int k = 1; k <= CF_HELD_MAX_STRIDE; k++) sigma = fmax(sigma, noise_at(x, T, m, k, work));
  return sigma < CF_HELD_NOISE_FLOOR ? 0 : sigma;
}

/* Savitzky–Golay centre weights of the quadratic over 2h + 1 points. */
static double sg_weight(int h, int j) {
  double H = h;
  return 3 * (3 * H * H + 3 * H - 1 - 5.0 * j * j) / ((2 * H - 1) * (2 * H + 1) * (2 * H + 3));
}

/* The quadratic fitted by least squares to f[0 .. 2h] at the points
 * u = j - h, evaluated at u[j]: the normal equations in closed form (the
 * window is symmetric, so the odd moments vanish), not a BLAS call, so the
 * track has the same bits on every kernel set (test_blas_kernels). */
static void end_fit(const double *f, int h, double *out) {
  double s0 = 0, s2 = 0, s4 = 0, t0 = 0, t1 = 0, t2 = 0;
  for (int j = -h; j <= h; j++) {
    double u2 = (double)j * j, v = f[j + h];
    s0 += 1, s2 += u2, s4 += u2 * u2, t0 += v, t1 += j * v, t2 += u2 * v;
  }
  double det = s0 * s4 - s2 * s2, c0 = (t0 * s4 - t2 * s2) / det, c1 = t1 / s2, c2 = (s0 * t2 - s2 * t0) / det;
  for (int j = -h; j <= h; j++) out[j + h] = c0 + c1 * j + c2 * (double)j * j;
}

/* Series s of x (m series, frame-major) smoothed with half-width h into
 * y: interior frames by the centre weights, the first and last h by the
 * quadratic fitted to the first and last 2h + 1 frames. */
static void smooth_series(const double *x, int T, int m, int s, int h, double *y) {
  int n = 2 * h + 1;
  for (int t = h; t + h < T; t++) {
    double v = 0;
    for (int j = -h; j <= h; j++) v += sg_weight(h, j) * x[(size_t)(t + j) * m + s];
    y[(size_t)t * m + s] = v;
  }
  double f[2 * CF_HELD_MAX_HALF + 1], g[2 * CF_HELD_MAX_HALF + 1];
  for (int end = 0; end < 2; end++) {
    int t0 = end ? T - n : 0;
    for (int j = 0; j < n; j++) f[j] = x[(size_t)(t0 + j) * m + s];
    end_fit(f, h, g);
    for (int j = end ? n - h : 0; j < (end ? n : h); j++) y[(size_t)(t0 + j) * m + s] = g[j];
  }
}

/* All m series smoothed with half-width h into y; the mean squared and
 * the largest move of a coordinate. */
static void smooth_all(const double *x, int T, int m, int h, double *y, double *msr, double *big) {
  double sum = 0;
  *big = 0;
  for (int s = 0; s < m; s++) smooth_series(x, T, m, s, h, y);
  for (size_t j = 0; j < (size_t)T * m; j++) sum += (y[j] - x[j]) * (y[j] - x[j]), *big = fmax(*big, fabs(y[j] - x[j]));
  *msr = sum / ((double)T * m);
}

/* The largest move of a coordinate the smoothing may make, in noise
 * sigmas: the largest of a few thousand Gaussian values is ~4 sigma; a
 * larger move is the motion's, not the noise's. */
#define CF_HELD_MAX_MOVE 5.0

/* Steps 1 and 2 into out; fix->noise_m, window, smooth_max_m. */
static int smooth_tracks(const double *raw, int T, int m, double *out, cf_drive_fix *fix) {
  double *work = malloc(sizeof(double) * ((size_t)T * m + 1));
  double *try = malloc(sizeof(double) * ((size_t)T * m + 1));
  if (!work || !try) return free(work), free(try), CF_ENOMEM;
  double sigma = noise_sigma(raw, T, m, work);
  memcpy(out, raw, sizeof(double) * T * m);
  fix->noise_m = sigma, fix->window = 1;
  for (int h = 2; sigma > 0 && h <= CF_HELD_MAX_HALF && 2 * h + 1 <= T; h++) {
    double msr, big;
    smooth_all(raw, T, m, h, try, &msr, &big);
    if (msr > sigma * sigma * (1 - sg_weight(h, 0)) + 0.25 * sigma * sigma || big > CF_HELD_MAX_MOVE * sigma) break;
    memcpy(out, try, sizeof(double) * T * m);
    fix->window = 2 * h + 1;
  }
  fix->smooth_max_m = 0;
  for (size_t j = 0; j < (size_t)T * m; j += 3) fix->smooth_max_m = fmax(fix->smooth_max_m, cf_fit_dist3(raw + j, out + j));
  free(work), free(try);
  return CF_OK;
}

double cf_fit_held_clamp(double span_max, double slack, double *kp) {
  if (!(span_max > 0)) return 0;
  double d[3], L = 0;
  for (int i = 0; i < 3; i++) {
    d[i] = kp[3 + i] - kp[i];
    L += d[i] * d[i];
  }
  L = sqrt(L);
  double target = span_max * (1 - slack);
  if (L <= target || fabs(L - span_max) <= 1e-12 * L) return 0;
  double f = 0.5 * (1 - target / L);
  for (int i = 0; i < 3; i++) {
    kp[i] += f * d[i];
    kp[3 + i] -= f * d[i];
  }
  return L - target;
}

double cf_fit_held_allowance(double span_max, double noise_m) {
  return fmax(fmax(1e-3, 5e-3 * span_max), 6 * M_SQRT2 * noise_m);
}

int cf_fit_held_track(const double *raw, int T, int n, double dt, double span_max, double slack, double *out,
                      cf_drive_fix *fix, char *bad, size_t bad_size) {
  memset(fix, 0, sizeof *fix);
  if (bad_size) bad[0] = 0;
  int rc = smooth_tracks(raw, T, 3 * n, out, fix);
  if (rc || n < 2 || !(span_max > 0)) return rc;
  double allow = cf_fit_held_allowance(span_max, fix->noise_m);
  for (int t = 0; t < T; t++) {
    double *kp = out + (size_t)t * 3 * n;
    double L = cf_fit_dist3(kp, kp + 3);
    if (L - span_max > allow) {
      snprintf(bad, bad_size,
               "recording: frame %d (t = %.3f s): the controlled corners are %.4f m apart, %.2f %% more than the "
               "%.4f m of the cloth's edge between them, beyond their noise (%.2f mm per coordinate; allowed "
               "%.1f mm): an inextensible sheet cannot follow (a swapped label or a marker off the cloth?)",
               t, t * dt, L, 100 * (L / span_max - 1), span_max, 1e3 * fix->noise_m, 1e3 * allow);
      return CF_EINVAL;
    }
    double pull = cf_fit_held_clamp(span_max, slack, kp);
    if (pull > 0) {
      fix->frames++;
      if (pull > fix->max_pull_m) fix->max_pull_m = pull, fix->worst_frame = t;
    }
  }
  return CF_OK;
}
