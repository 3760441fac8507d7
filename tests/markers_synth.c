/* markers_synth.c — see markers_synth.h. */
#include "markers_synth.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Cell (r, c) at time t, before the rotation about z: sheet coordinates
 * (u across, v up) rotated in plane by tilt, bulge w out of plane. */
static void sheet_point(const synth_sheet *s, int r, int c, double t, double *p) {
  double u = (c - 0.5 * (s->cols - 1)) * 0.14, v = -r * 0.1485;
  double w = s->motion * 0.01 * sin(M_PI * c / (s->cols - 1)) * sin(2 * M_PI * 0.7 * t);
  double cu = cos(s->tilt), su = sin(s->tilt);
  double x = cu * u - su * v, z = su * u + cu * v;
  double yaw = s->yaw + s->motion * 0.15 * sin(2 * M_PI * 0.4 * t), cy = cos(yaw), sy = sin(yaw);
  p[0] = cy * x - sy * w + s->motion * 0.08 * sin(2 * M_PI * 0.5 * t);
  p[1] = sy * x + cy * w + s->motion * 0.04 * sin(2 * M_PI * 0.3 * t);
  p[2] = 1.6 + z + s->motion * 0.02 * sin(2 * M_PI * 0.9 * t);
}

void synth_sheet_make(synth_sheet *s, int rows, int cols, int T, double dt, double tilt, double yaw, double motion) {
  s->rows = rows, s->cols = cols, s->T = T, s->dt = dt, s->tilt = tilt, s->yaw = yaw, s->motion = motion;
  s->truth = malloc(sizeof(double) * 3 * (size_t)T * rows * cols);
  for (int i = 0; i < T; i++)
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) sheet_point(s, r, c, i * dt, s->truth + 3 * ((size_t)i * rows * cols + r * cols + c));
}

void synth_sheet_free(synth_sheet *s) {
  free(s->truth);
  s->truth = NULL;
}

void synth_recording(cf_recording *r, const synth_sheet *s, int n, char *const *labels, const int *perm) {
  cf_recording_init(r);
  r->n_frames = s->T, r->n_markers = n, r->dt = s->dt, r->uniform = 1;
  r->time = malloc(sizeof(double) * s->T);
  r->pos = malloc(sizeof(double) * 3 * (size_t)s->T * n);
  r->names = malloc(sizeof(char *) * n);
  for (int i = 0; i < s->T; i++) r->time[i] = i * s->dt;
  for (size_t i = 0; i < 3 * (size_t)s->T * n; i++) r->pos[i] = NAN;
  for (int l = 0; l < n; l++) r->names[perm ? perm[l] : l] = strdup(labels[l]);
  strcpy(r->source_kind, "synthetic");
}

void synth_put(cf_recording *r, const synth_sheet *s, int k, int cell, int i0, int i1) {
  for (int i = i0; i < i1; i++) memcpy(r->pos + 3 * ((size_t)i * r->n_markers + k), synth_at(s, i, cell), 3 * sizeof(double));
}

void synth_shuffle(int *perm, int n, unsigned long long *seed) {
  for (int i = 0; i < n; i++) perm[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)((cf_test_rand(seed) + 1) / 2 * (i + 1));
    if (j > i) j = i;
    int t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
}
