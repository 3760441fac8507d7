/* quadfit.c — the least-squares quadratic of quadfit.h (GSL multifit). */
#include "quadfit.h"

#include <gsl/gsl_multifit.h>
#include <math.h>

int cf_quad_terms(int n) { return 1 + n + n * (n + 1) / 2; }

/* The regressors of the quadratic at u: 1, u_j, u_j u_k (j <= k). */
static void regressors(int n, const double *u, double *row) {
  int q = 0;
  row[q++] = 1;
  for (int j = 0; j < n; j++) row[q++] = u[j];
  for (int j = 0; j < n; j++)
    for (int k = j; k < n; k++) row[q++] = u[j] * u[k];
}

int cf_quad_fit(int n, int m, const double *u, const double *y, double *c, double *rms) {
  int nc = cf_quad_terms(n);
  gsl_matrix *X = gsl_matrix_alloc(m, nc), *cov = gsl_matrix_alloc(nc, nc);
  gsl_vector *yv = gsl_vector_alloc(m), *cv = gsl_vector_alloc(nc);
  gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(m, nc);
  int bad = !X || !cov || !yv || !cv || !w;
  for (int i = 0; !bad && i < m; i++) {
    double row[CF_QUAD_MAXC];
    regressors(n, u + (size_t)i * n, row);
    for (int q = 0; q < nc; q++) gsl_matrix_set(X, i, q, row[q]);
    gsl_vector_set(yv, i, y[i]);
  }
  double chisq = 0;
  if (!bad) bad = gsl_multifit_linear(X, yv, cv, cov, &chisq, w) != 0;
  for (int q = 0; !bad && q < nc; q++) c[q] = gsl_vector_get(cv, q);
  if (!bad && rms) *rms = sqrt(chisq / m);
  gsl_multifit_linear_free(w);
  gsl_vector_free(cv), gsl_vector_free(yv);
  gsl_matrix_free(cov), gsl_matrix_free(X);
  return bad;
}

double cf_quad_eval(int n, const double *c, const double *u) {
  double row[CF_QUAD_MAXC], v = 0;
  regressors(n, u, row);
  for (int q = 0; q < cf_quad_terms(n); q++) v += c[q] * row[q];
  return v;
}
