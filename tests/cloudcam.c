/* cloudcam.c — a depth camera's frame of a simulated cloth (cloudcam.h):
 * points sampled on the surface a camera on the -y side sees, the noise
 * and outliers of such a camera, written as an XYZ file; and `clothfit fit`
 * of a recording of such clouds from a given start. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cf_fit.h"
#include "cli_json.h"
#include "cloudcam.h"
#include "testutil.h"

static double urand(unsigned long long *rng) { return 0.5 * (cf_test_rand(rng) + 1); }
static double gauss(unsigned long long *rng) {
  return sqrt(-2 * log(urand(rng) + 1e-300)) * cos(2 * M_PI * urand(rng));
}

/* The unit normal of triangle q of x, turned towards the camera (-y). */
static void normal(const double *x, const int *tri, int q, double *nrm) {
  const double *a = x + 3 * tri[3 * q], *b = x + 3 * tri[3 * q + 1], *c = x + 3 * tri[3 * q + 2];
  double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (n[1] > 0) l = -l;
  for (int d = 0; d < 3; d++) nrm[d] = n[d] / l;
}

int cf_test_cloud_frame(const char *path, double t, double dt, const cf_mesh *m, const double *traj, int n_points,
                        int exact, unsigned long long *rng) {
  size_t nx = 3 * (size_t)m->n_nodes;
  int k = (int)ceil(t / dt - 1e-9);
  if (k < 1) k = 1;
  double w = (t - (k - 1) * dt) / dt, *x = malloc(sizeof(double) * nx), *nrm = malloc(sizeof(double) * 6 * m->n_elems);
  int *tri = malloc(sizeof(int) * 6 * m->n_elems);
  FILE *f = x && nrm && tri ? fopen(path, "w") : NULL;
  if (f) {
    for (size_t j = 0; j < nx; j++) x[j] = (1 - w) * traj[nx * (k - 1) + j] + w * traj[nx * k + j];
    int nf = cf_cloud_triangles(m->elems, m->n_elems, m->nv, tri);
    for (int q = 0; q < nf; q++) normal(x, tri, q, nrm + 3 * q);
    for (int p = 0; p < n_points; p++) {
      int q = (int)(urand(rng) * nf) % nf;
      const double *a = x + 3 * tri[3 * q], *b = x + 3 * tri[3 * q + 1], *c = x + 3 * tri[3 * q + 2];
      double u = urand(rng), v = urand(rng), g = exact ? 0 : 1e-3 * gauss(rng), y[3];
      if (u + v > 1) u = 1 - u, v = 1 - v;
      for (int d = 0; d < 3; d++) y[d] = a[d] + u * (b[d] - a[d]) + v * (c[d] - a[d]) + g * nrm[3 * q + d];
      if (!exact && p % 100 == 7) y[1] -= 0.3 + 0.5 * urand(rng); /* 1 %: background or flying pixels */
      fprintf(f, "%.17g %.17g %.17g\n", y[0], y[1], y[2]);
    }
    fclose(f);
  }
  free(x), free(nrm), free(tri);
  return f != NULL;
}

int cf_test_fit_clouds(const char *exe, const char *tmp, const char *rec, double d0, double a0, double x[3],
                       char **out) {
  char start[64];
  snprintf(start, sizeof start, "%g,%g", d0, a0);
  *out = NULL;
  int st = cf_test_run_args(exe, tmp, out, NULL, "fit", rec, "--start", start, "--rest", "first-frame",
                            "--no-confidence", "--workers", "1", "--json", NULL);
  const char *j = *out ? cf_test_last_line(*out) : "";
  x[0] = cf_test_json_num(j, "delta"), x[1] = cf_test_json_num(j, "alpha"), x[2] = cf_test_json_num(j, "train_error_cm");
  return st;
}
