/* element.c — shape functions and quadrature (see element.h). */
#include "element.h"

#include <math.h>

static void quad_shape(double xi, double eta, double N[4], double dN[4][2]) {
  static const double sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
  for (int i = 0; i < 4; i++) {
    N[i] = 0.25 * (1 + sx[i] * xi) * (1 + sy[i] * eta);
    dN[i][0] = 0.25 * sx[i] * (1 + sy[i] * eta);
    dN[i][1] = 0.25 * sy[i] * (1 + sx[i] * xi);
  }
}

static void tri_shape(double xi, double eta, double N[3], double dN[3][2]) {
  N[0] = 1 - xi - eta; N[1] = xi; N[2] = eta;
  dN[0][0] = -1; dN[0][1] = -1;
  dN[1][0] = 1;  dN[1][1] = 0;
  dN[2][0] = 0;  dN[2][1] = 1;
}

void cf_element_rule_get(int nv, cf_element_rule *r) {
  r->nv = nv;
  if (nv == 4) {
    const double g = 1.0 / sqrt(3.0);
    const double px[4] = {-g, g, g, -g}, py[4] = {-g, -g, g, g};
    r->ng = 4;
    for (int l = 0; l < 4; l++) {
      r->w[l] = 1.0;
      quad_shape(px[l], py[l], r->N[l], r->dN[l]);
    }
  } else {
    const double px[3] = {1.0 / 6, 2.0 / 3, 1.0 / 6}, py[3] = {1.0 / 6, 1.0 / 6, 2.0 / 3};
    r->ng = 3;
    for (int l = 0; l < 3; l++) {
      r->w[l] = 1.0 / 6.0;
      tri_shape(px[l], py[l], r->N[l], r->dN[l]);
    }
  }
}

void cf_element_tangents(const cf_element_rule *r, int l, const double *p[],
                         double a[3], double b[3]) {
  for (int d = 0; d < 3; d++) {
    a[d] = 0;
    b[d] = 0;
  }
  for (int i = 0; i < r->nv; i++)
    for (int d = 0; d < 3; d++) {
      a[d] += r->dN[l][i][0] * p[i][d];
      b[d] += r->dN[l][i][1] * p[i][d];
    }
}

double cf_element_metric(const double a[3], const double b[3], double *E,
                         double *F, double *G) {
  *E = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
  *F = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  *G = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
  return sqrt(fabs(*E * *G - *F * *F));
}
