/* metrics.c — errors between simulated and recorded markers (SPEC §7). */
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

int cf_metric_lattice_weights(int rows, int cols, const double *x, double *w, cf_error *err) {
  if (rows < 2 || cols < 2)
    return cf_error_set(err, CF_EINVAL, "lattice %dx%d: expected at least 2x2 markers", rows, cols);
  int K = rows * cols;
  cf_mesh *m = cf_mesh_alloc(4, K, (rows - 1) * (cols - 1));
  if (!m) return cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; i < 3 * K; i++) m->x[i] = x[i];
  int e = 0;
  for (int r = 0; r + 1 < rows; r++)
    for (int c = 0; c + 1 < cols; c++, e++) {
      int *q = m->elems + 4 * e;
      q[0] = r * cols + c;
      q[1] = q[0] + 1;
      q[2] = q[0] + cols + 1;
      q[3] = q[0] + cols;
    }
  cf_mesh_lumped_mass(m, m->x, w);
  cf_mesh_free(m);
  double s = 0;
  for (int j = 0; j < K; j++) s += w[j];
  if (!(s > 0) || !isfinite(s))
    return cf_error_set(err, CF_EINVAL, "lattice weights: markers of frame 0 are degenerate or missing");
  for (int j = 0; j < K; j++) w[j] *= K / s;
  return CF_OK;
}
