/* element.h — internal: shape functions and Gauss quadrature of the two
 * element kinds (thesis §2.3, Algorithm 1).  Quads: bilinear on [-1,1]^2,
 * 2x2 Gauss points.  Triangles: linear on the reference triangle, 3-point
 * rule (exact for quadratics). */
#ifndef CF_ELEMENT_H
#define CF_ELEMENT_H

#define CF_MAX_NV 4
#define CF_MAX_GAUSS 4

typedef struct {
  int nv, ng;
  double w[CF_MAX_GAUSS];                 /* quadrature weights */
  double N[CF_MAX_GAUSS][CF_MAX_NV];      /* N_i at Gauss point l */
  double dN[CF_MAX_GAUSS][CF_MAX_NV][2];  /* dN_i/dxi, dN_i/deta */
} cf_element_rule;

/* The rule for nv = 3 or 4 (static tables, filled on first use is avoided:
 * the tables are computed on each call, which is cheap and thread-safe). */
void cf_element_rule_get(int nv, cf_element_rule *r);

/* Tangents a = phi_xi, b = phi_eta at Gauss point l of an element whose nodes
 * are at p[nv][3]. */
void cf_element_tangents(const cf_element_rule *r, int l, const double *p[],
                         double a[3], double b[3]);

/* E, F, G of tangents a, b and the area density sqrt|EG - F^2|. */
double cf_element_metric(const double a[3], const double b[3],
                         double *E, double *F, double *G);
#endif
