/* qp.c — residuals of a solution of the contact QP (see qp.h); the Ipopt
 * entry points when the build has no Ipopt (qp_ipopt.c otherwise). */
#include "qp.h"

#include <math.h>
#include <stdlib.h>

double cf_qp_row_value(double H, const double *N, int nn, const int *nodes, const double *w, const double *d) {
  double s = H;
  for (int e = 0; e < nn; e++) {
    const double *de = d + 3 * nodes[e];
    for (int q = 0; q < 3; q++) s += w[e] * N[q] * de[q];
  }
  return s;
}

double cf_qp_row_reach(int nn, const int *nodes, const double *w, const double *invm) {
  double m = 0;
  for (int e = 0; e < nn; e++) m = fmax(m, fabs(w[e]) * invm[nodes[e]]);
  return m;
}

double cf_qp_contact_row(const cf_qp *qp, int k, const double *dx) {
  return cf_qp_row_value(qp->H[k], qp->N + 3 * k, qp->hn[k], qp->hnode + CF_QP_HMAX * k, qp->hw + CF_QP_HMAX * k, dx);
}

double cf_qp_contact_reach(const cf_qp *qp, int k) {
  return cf_qp_row_reach(qp->hn[k], qp->hnode + CF_QP_HMAX * k, qp->hw + CF_QP_HMAX * k, qp->invm);
}

void cf_qp_residuals_eval(const cf_qp *qp, const double *dx, const double *gamma, cf_qp_residuals *res) {
  res->eq = res->comp = res->objective = 0;
  res->in = res->neg = -INFINITY;
  double *v = calloc((size_t)qp->ne + 1, sizeof(double)), *g2 = calloc((size_t)qp->ne + 1, sizeof(double));
  if (!v || !g2) {
    free(v);
    free(g2);
    res->eq = res->in = res->comp = res->neg = res->objective = NAN;
    return;
  }
  for (int r = 0; r < qp->ne; r++) v[r] = qp->C[r];
  for (int e = 0; e < qp->nj; e++) {
    const double *j = qp->J + 3 * e, *d = dx + 3 * qp->jnode[e];
    v[qp->jrow[e]] += j[0] * d[0] + j[1] * d[1] + j[2] * d[2];
    g2[qp->jrow[e]] += j[0] * j[0] + j[1] * j[1] + j[2] * j[2];
  }
  for (int r = 0; r < qp->ne; r++) {
    double e = g2[r] > 0 ? fabs(v[r]) / sqrt(g2[r]) : fabs(v[r]);
    if (!(e <= res->eq)) res->eq = e;
  }
  free(v);
  free(g2);
  for (int k = 0; k < qp->ni; k++) {
    double s = cf_qp_contact_row(qp, k, dx), g = gamma[k] * cf_qp_contact_reach(qp, k);
    if (!(-s <= res->in)) res->in = -s;
    if (!(-g <= res->neg)) res->neg = -g;
    if (!(fabs(g * s) <= res->comp)) res->comp = fabs(g * s);
  }
  for (int i = 0; i < qp->n; i++) {
    if (!(qp->invm[i] > 0)) continue;
    for (int d = 0; d < 3; d++) {
      double e = dx[3 * i + d] - qp->u[3 * i + d];
      res->objective += 0.5 * e * e / qp->invm[i];
    }
  }
}

int cf_qp_ipopt_check(cf_error *err) {
  return cf_qp_have_ipopt() ? CF_OK
                            : cf_error_set(err, CF_EINVAL,
                                           "contact solver ipopt: this clothfit was built without Ipopt (install "
                                           "coinor-libipopt-dev and rebuild: bash scripts/setup.sh)");
}

#ifndef CF_HAVE_IPOPT
int cf_qp_have_ipopt(void) { return 0; }

int cf_qp_solve_ipopt(const cf_qp *qp, double tol, double *dx, double *gamma, int *iterations, cf_error *err) {
  (void)qp, (void)tol, (void)dx, (void)gamma, (void)iterations;
  return cf_qp_ipopt_check(err);
}
#endif
