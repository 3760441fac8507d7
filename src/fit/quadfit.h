/* quadfit.h — internal: a quadratic fitted by least squares to scattered
 * values, shared by polish.c (the response-surface polish), confidence.c
 * (the stencil around a fit), trust.c (the search's model) and regress.c
 * (each recording's error model in the regression's search).  One helper
 * so that all build the same regressors in the same order and call the
 * same GSL routine. */
#ifndef CF_QUADFIT_H
#define CF_QUADFIT_H

#define CF_QUAD_MAXN 7  /* variables (CF_NM_MAXP: the trust-region search) */
#define CF_QUAD_MAXC 36 /* coefficients of a quadratic in CF_QUAD_MAXN variables */

/* The coefficients of a quadratic in n variables: 1 + n + n (n + 1) / 2. */
int cf_quad_terms(int n);
/* The quadratic c_0 + sum_j c_j u_j + sum_{j <= k} c_jk u_j u_k fitted to
 * the m values y[m] (input) at the points u[m * n] (input, point i at
 * u + i n): coefficients into c[cf_quad_terms(n)] (output) in the order
 * 1, u_j, then u_j u_k for j <= k row by row, and the rms residual into
 * *rms (output, may be NULL).  0, or 1 when out of memory or GSL fails
 * (m >= cf_quad_terms(n) is the caller's). */
int cf_quad_fit(int n, int m, const double *u, const double *y, double *c, double *rms);
/* The quadratic of coefficients c (cf_quad_fit's order) at the point u[n]. */
double cf_quad_eval(int n, const double *c, const double *u);
#endif
