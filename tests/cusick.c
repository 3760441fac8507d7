/* cusick.c — Cusick's drape scene (cusick.h). */
#include "cusick.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define RI CF_CUSICK_RI
#define RO CF_CUSICK_RO
#define NPIX 1200

void cf_test_cusick_start(const cf_mesh *m, double *x0) {
  double c[17], s[17];
  unsigned long long seed = 99;
  for (int n = 1; n <= 16; n++) {
    c[n] = cf_test_rand(&seed);
    s[n] = cf_test_rand(&seed);
  }
  memcpy(x0, m->x, sizeof(double) * 3 * m->n_nodes);
  for (int k = 0; k < m->n_nodes; k++) {
    double X = x0[3 * k], Y = x0[3 * k + 1], th = atan2(Y, X), z = 0, r = hypot(X, Y);
    if (r <= RI * (1 + 1e-9)) continue; /* the held circle */
    for (int n = 1; n <= 16; n++) z += c[n] * cos(n * th) + s[n] * sin(n * th);
    x0[3 * k + 2] += 0.0005 * (r - RI) / (RO - RI) * z / 4;
  }
}

static void raster_tri(unsigned char *pix, const double *a, const double *b, const double *c) {
  const double h = 2 * RO / NPIX;
  double d = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  if (fabs(d) < 1e-30) return;
  int i0 = (int)floor((fmin(a[0], fmin(b[0], c[0])) + RO) / h - 0.5);
  int i1 = (int)ceil((fmax(a[0], fmax(b[0], c[0])) + RO) / h - 0.5);
  int j0 = (int)floor((fmin(a[1], fmin(b[1], c[1])) + RO) / h - 0.5);
  int j1 = (int)ceil((fmax(a[1], fmax(b[1], c[1])) + RO) / h - 0.5);
  if (i0 < 0) i0 = 0;
  if (j0 < 0) j0 = 0;
  if (i1 > NPIX - 1) i1 = NPIX - 1;
  if (j1 > NPIX - 1) j1 = NPIX - 1;
  for (int j = j0; j <= j1; j++)
    for (int i = i0; i <= i1; i++) {
      double px = (i + 0.5) * h - RO, py = (j + 0.5) * h - RO;
      double l1 = ((b[0] - px) * (c[1] - py) - (b[1] - py) * (c[0] - px)) / d;
      double l2 = ((c[0] - px) * (a[1] - py) - (c[1] - py) * (a[0] - px)) / d;
      if (l1 >= 0 && l2 >= 0 && 1 - l1 - l2 >= 0) pix[j * NPIX + i] = 1;
    }
}

double cf_test_cusick_dc(const cf_mesh *m, const double *x) {
  const double h = 2 * RO / NPIX;
  unsigned char *pix = calloc((size_t)NPIX * NPIX, 1);
  if (!pix) return NAN;
  for (int j = 0; j < NPIX; j++)
    for (int i = 0; i < NPIX; i++) {
      double px = (i + 0.5) * h - RO, py = (j + 0.5) * h - RO;
      if (px * px + py * py <= RI * RI) pix[j * NPIX + i] = 1;
    }
  for (int e = 0; e < m->n_elems; e++) {
    const int *q = m->elems + (size_t)m->nv * e;
    const double *p[4];
    for (int i = 0; i < m->nv; i++) p[i] = x + 3 * q[i];
    if (m->nv == 3)
      raster_tri(pix, p[0], p[1], p[2]);
    else
      for (int i = 0; i < 4; i++) raster_tri(pix, p[i], p[(i + 1) % 4], p[(i + 2) % 4]);
  }
  long n = 0;
  for (long k = 0; k < (long)NPIX * NPIX; k++) n += pix[k];
  free(pix);
  return 100 * (n * h * h - M_PI * RI * RI) / (M_PI * (RO * RO - RI * RI));
}
