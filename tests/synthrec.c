#include "synthrec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static double gauss(unsigned long long *s) {
  double u1 = 0.5 * (cf_test_rand(s) + 1) + 1e-300, u2 = 0.5 * (cf_test_rand(s) + 1);
  return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* The two corners kp[6] turned by angle th about the vertical through their
 * midpoint (their distance kept). */
static void twist_corners(double *kp, double th) {
  double c = cos(th), s = sin(th), m[2] = {0.5 * (kp[0] + kp[3]), 0.5 * (kp[1] + kp[4])};
  for (int i = 0; i < 2; i++) {
    double *q = kp + 3 * i, dx = q[0] - m[0], dy = q[1] - m[1];
    q[0] = m[0] + c * dx - s * dy, q[1] = m[1] + s * dx + c * dy;
  }
}

double *cf_test_shaken_recording(const cf_test_rec_spec *sp) {
  int R = sp->rows, C = sp->cols, K = R * C;
  double *lat = malloc(sizeof(double) * 3 * K);
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) {
      double *p = lat + 3 * (r * C + c);
      p[0] = sp->width * c / (C - 1);
      p[1] = 0;
      p[2] = sp->height * (1 - (double)r / (R - 1));
    }
  int split = sp->split > 0 ? sp->split : CF_LATTICE_SPLIT_DEFAULT, across = sp->split_cols > 0 ? sp->split_cols : split;
  cf_mesh *m = cf_mesh_lattice_refine(R, C, split, across, lat);
  int kin[2] = {cf_mesh_lattice_node(R, C, split, across, 0, 0), cf_mesh_lattice_node(R, C, split, across, 0, C - 1)};
  cf_params p;
  cf_params_default(&p);
  p.rho = sp->rho;
  p.delta = sp->delta;
  p.alpha = sp->alpha;
  int sub = sp->substeps > 1 ? sp->substeps : 1;
  p.dt = (sp->dt > 0 ? sp->dt : 0.01) / sub;
  p.kappa = sp->kappa;
  p.beta = sp->beta;
  if (sp->tol > 0) p.tol = sp->tol;
  p.model = sp->model;
  if (sp->k_stretch > 0) p.k_stretch = sp->k_stretch;
  if (sp->k_shear > 0) p.k_shear = sp->k_shear;
  if (sp->k_bend > 0) p.k_bend = sp->k_bend;
  cf_error err;
  cf_sim *s = m ? cf_sim_alloc(m, &p, kin, 2, &err) : NULL;
  if (!s) {
    fprintf(stderr, "synthetic recording: %s\n", m ? err.msg : "bad lattice");
    exit(2);
  }
  double *rec = malloc(sizeof(double) * sp->T * K * 3), x0[6], kp[6];
  memcpy(x0, m->x + 3 * kin[0], 3 * sizeof(double));
  memcpy(x0 + 3, m->x + 3 * kin[1], 3 * sizeof(double));
  cf_drive d = {CF_DRIVE_SHAKE, sp->amplitude, sp->frequency, {0, 1, 0}};
  if (sp->axis[0] || sp->axis[1] || sp->axis[2]) memcpy(d.axis, sp->axis, sizeof d.axis);
  unsigned long long seed = sp->seed ? sp->seed : 12345;
  for (int k = 0; k < sp->T; k++) {
    for (int q = 1; k && q <= sub; q++) {
      double t = ((k - 1) * sub + q) * p.dt;
      cf_drive_eval(&d, 2, x0, t, kp);
      if (sp->twist > 0) twist_corners(kp, sp->twist * sin(2 * M_PI * sp->frequency * t));
      if (cf_sim_step(s, kp, &err)) {
        fprintf(stderr, "synthetic recording: %s\n", err.msg);
        exit(2);
      }
    }
    for (int j = 0; j < K; j++) {
      double *q = rec + 3 * ((size_t)k * K + j);
      memcpy(q, cf_sim_x(s) + 3 * cf_mesh_lattice_node(R, C, split, across, j / C, j % C), 3 * sizeof(double));
      int controlled = j == 0 || j == C - 1;
      if (k > 0 && !controlled && sp->noise > 0)
        for (int dd = 0; dd < 3; dd++) q[dd] += sp->noise * gauss(&seed);
    }
  }
  cf_sim_free(s);
  cf_mesh_free(m);
  free(lat);
  return rec;
}

void cf_test_smooth_start(double *rec, int rows, int cols, int T, unsigned long long seed, double slack) {
  unsigned long long z = seed * 0x9E3779B97F4A7C15ULL;
  for (int r = 1; r < rows; r++)
    for (int c = 0; c < cols; c++) rec[3 * (cols * r + c) + 1] += 1e-3 * cf_test_rand(&z);
  for (int k = 1; k < T; k++) {
    double *a = rec + (size_t)k * rows * cols * 3, *b = a + 3 * (cols - 1); /* markers (0, 0) and (0, cols - 1) */
    for (int d = 0; d < 3; d++) {
      double m = 0.5 * slack * (b[d] - a[d]);
      a[d] += m, b[d] -= m;
    }
  }
}
