/* metrics.c — errors between simulated and recorded markers (docs/design.md §7). */
#include <math.h>
#include <stdlib.h>

#include "cf_fit.h"

void cf_metric_frame(int K, const double *w, const double *sim, const double *rec,
                     cf_frame_error *out) {
  double sw = 0, swd2 = 0, sd = 0, sd2 = 0;
  int n = 0;
  for (int j = 0; j < K; j++) {
    const double *a = sim + 3 * j, *b = rec + 3 * j;
    if (isnan(b[0]) || isnan(b[1]) || isnan(b[2])) continue;
    double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    double d2 = dx * dx + dy * dy + dz * dz, d = sqrt(d2), wj = w ? w[j] : 1.0;
    sw += wj;
    swd2 += wj * d2;
    sd += d;
    sd2 += d2;
    n++;
  }
  out->n = n;
  if (n == 0 || !(sw > 0)) {
    out->e_cm = out->s_cm = out->d_cm = NAN;
    return;
  }
  double mean = sd / n, var = sd2 / n - mean * mean;
  out->e_cm = 100 * sqrt(swd2 / sw);
  out->s_cm = 100 * sqrt(var > 0 ? var : 0);
  out->d_cm = out->e_cm + 2 * out->s_cm;
}

cf_window_error cf_metric_window(const cf_frame_error *fe, int T, int t0, int t1) {
  cf_window_error w = {0, 0, 0, 0};
  if (t0 < 0) t0 = 0;
  if (t1 > T) t1 = T;
  for (int i = t0; i < t1; i++) {
    if (fe[i].n == 0) continue;
    w.e_cm += fe[i].e_cm;
    w.s_cm += fe[i].s_cm;
    if (fe[i].d_cm > w.d_max_cm) w.d_max_cm = fe[i].d_cm;
    w.frames++;
  }
  if (w.frames) {
    w.e_cm /= w.frames;
    w.s_cm /= w.frames;
  } else {
    w.e_cm = w.s_cm = w.d_max_cm = NAN;
  }
  return w;
}

int cf_metric_frame_tangent(int K, const double *w, const double *sim, const double *rec, int np, const double *dsim,
                            double *rdr, double *drdr) {
  double sw = 0;
  int n = 0;
  for (int j = 0; j < K; j++)
    if (!isnan(rec[3 * j]) && !isnan(rec[3 * j + 1]) && !isnan(rec[3 * j + 2])) sw += w ? w[j] : 1.0, n++;
  if (n == 0 || !(sw > 0)) return 0;
  for (int p = 0; p < np; p++) {
    rdr[p] = 0;
    for (int q = 0; q < np; q++) drdr[p * np + q] = 0;
  }
  for (int j = 0; j < K; j++) {
    const double *a = sim + 3 * j, *b = rec + 3 * j;
    if (isnan(b[0]) || isnan(b[1]) || isnan(b[2])) continue;
    double c2 = 1e4 * (w ? w[j] : 1.0) / sw; /* (100 sqrt(w_j / sw))^2 */
    for (int p = 0; p < np; p++) {
      const double *dp = dsim + (size_t)3 * K * p + 3 * j;
      for (int d = 0; d < 3; d++) rdr[p] += c2 * (a[d] - b[d]) * dp[d];
      for (int q = 0; q < np; q++) {
        const double *dq = dsim + (size_t)3 * K * q + 3 * j;
        drdr[p * np + q] += c2 * (dp[0] * dq[0] + dp[1] * dq[1] + dp[2] * dq[2]);
      }
    }
  }
  return n;
}
