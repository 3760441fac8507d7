/* qp_ipopt.c — the contact QP (qp.h) solved by Ipopt, the interior-point
 * baseline of thesis Table 4.8.
 *
 * Scaling (Ipopt's tolerances are absolute on the problem it is given; a
 * step moves nodes by ~1e-3 m and a node weighs ~1e-3 kg, so the unscaled
 * objective is ~1e-9, and the last QPs of a step correct by ~1e-6 m): the
 * variables are y = Δ / L with L the QP's own length, the largest of |u_i|,
 * |C_r| / ‖J_r‖ and −H_k (what the QP must move; 1e-9 m if all are smaller), the
 * objective is divided by m̄ L² (m̄ the mean mass of the free nodes), a
 * metric row by L ‖J_r‖ and a contact row by L; every row is then a
 * displacement in units of L.  Ipopt's own scaling is off.  The contact
 * impulse is γ_k = −m̄ L λ_k for Ipopt's multiplier λ_k of that row
 * (Ipopt's Lagrangian is f + gᵀλ: λ ≤ 0 on an active lower bound).
 *
 * Options: bound_relax_factor 0 (Ipopt otherwise relaxes every bound by
 * 1e-8 relative, which moves the solution off the active set), constant
 * Hessian and Jacobians (a QP), adaptive barrier, tol on every residual. */
#include "qp.h"

#include <IpStdCInterface.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


typedef struct {
  const cf_qp *qp;
  int nv;            /* variables: 3 per free node */
  int *var;          /* [n] first variable of each node, or -1 */
  double *mass;      /* [nv] m_i / m̄ of each variable */
  double *y0;        /* [nv] u / L: the unconstrained minimizer */
  double *rs;        /* [ne] 1 / (L ‖J_r‖) */
  int *crow;         /* [ni] Ipopt's row of each contact row, or -1: a row
                        with a zero gradient and H ≥ 0 (contact.c's pairs
                        whose closest point is held by another pair) holds
                        anyway, and as a constant of 1e3 m / L it made
                        Ipopt report infeasible QPs */
  int nc;            /* contact rows given to Ipopt */
  double mbar;       /* mean mass of the free nodes, kg */
  double L;          /* length unit of y, m */
  int iterations;
} qp_ipopt;

static Bool eval_f(Index n, Number *y, Bool new_x, Number *f, UserDataPtr ud) {
  const qp_ipopt *s = ud;
  (void)new_x;
  double v = 0;
  for (int q = 0; q < n; q++) v += 0.5 * s->mass[q] * (y[q] - s->y0[q]) * (y[q] - s->y0[q]);
  *f = v;
  return TRUE;
}

static Bool eval_grad_f(Index n, Number *y, Bool new_x, Number *g, UserDataPtr ud) {
  const qp_ipopt *s = ud;
  (void)new_x;
  for (int q = 0; q < n; q++) g[q] = s->mass[q] * (y[q] - s->y0[q]);
  return TRUE;
}

static Bool eval_g(Index n, Number *y, Bool new_x, Index m, Number *g, UserDataPtr ud) {
  const qp_ipopt *s = ud;
  const cf_qp *qp = s->qp;
  (void)n, (void)new_x, (void)m;
  for (int r = 0; r < qp->ne; r++) g[r] = qp->C[r] * s->rs[r];
  for (int e = 0; e < qp->nj; e++) {
    int v = s->var[qp->jnode[e]];
    if (v < 0) continue;
    const double *j = qp->J + 3 * e;
    g[qp->jrow[e]] += s->L * s->rs[qp->jrow[e]] * (j[0] * y[v] + j[1] * y[v + 1] + j[2] * y[v + 2]);
  }
  for (int k = 0; k < qp->ni; k++) {
    if (s->crow[k] < 0) continue;
    const double *nk = qp->N + 3 * k;
    double val = qp->H[k] / s->L;
    for (int e = 0; e < qp->hn[k]; e++) {
      int v = s->var[qp->hnode[CF_QP_HMAX * k + e]];
      double w = qp->hw[CF_QP_HMAX * k + e];
      if (v >= 0) val += w * (nk[0] * y[v] + nk[1] * y[v + 1] + nk[2] * y[v + 2]);
    }
    g[qp->ne + s->crow[k]] = val;
  }
  return TRUE;
}

static Bool eval_jac_g(Index n, Number *y, Bool new_x, Index m, Index nele, Index *ir, Index *jc, Number *val,
                       UserDataPtr ud) {
  const qp_ipopt *s = ud;
  const cf_qp *qp = s->qp;
  (void)n, (void)y, (void)new_x, (void)m, (void)nele;
  int q = 0;
  for (int e = 0; e < qp->nj; e++) {
    int v = s->var[qp->jnode[e]];
    if (v < 0) continue;
    for (int d = 0; d < 3; d++, q++) {
      if (val) val[q] = s->L * s->rs[qp->jrow[e]] * qp->J[3 * e + d];
      else ir[q] = qp->jrow[e], jc[q] = v + d;
    }
  }
  for (int k = 0; k < qp->ni; k++)
    for (int e = 0; e < qp->hn[k] && s->crow[k] >= 0; e++) {
      int v = s->var[qp->hnode[CF_QP_HMAX * k + e]];
      if (v < 0) continue;
      for (int d = 0; d < 3; d++, q++) {
        if (val) val[q] = qp->hw[CF_QP_HMAX * k + e] * qp->N[3 * k + d];
        else ir[q] = qp->ne + s->crow[k], jc[q] = v + d;
      }
    }
  return TRUE;
}

static Bool eval_h(Index n, Number *y, Bool new_x, Number of, Index m, Number *lam, Bool new_lam, Index nele,
                   Index *ir, Index *jc, Number *val, UserDataPtr ud) {
  const qp_ipopt *s = ud;
  (void)y, (void)new_x, (void)m, (void)lam, (void)new_lam, (void)nele;
  for (int q = 0; q < n; q++) {
    if (val) val[q] = of * s->mass[q];
    else ir[q] = jc[q] = q;
  }
  return TRUE;
}

static Bool intermediate(Index mode, Index iter, Number obj, Number inf_pr, Number inf_du, Number mu, Number dn,
                         Number reg, Number adu, Number apr, Index ls, UserDataPtr ud) {
  (void)mode, (void)obj, (void)inf_pr, (void)inf_du, (void)mu, (void)dn, (void)reg, (void)adu, (void)apr, (void)ls;
  ((qp_ipopt *)ud)->iterations = iter;
  return TRUE;
}

int cf_qp_have_ipopt(void) { return 1; }

/* The variable map, masses, start and row scales; returns nv or -1. */
static int setup(qp_ipopt *s, const cf_qp *qp) {
  s->qp = qp;
  s->var = malloc(sizeof(int) * ((size_t)qp->n + 1));
  s->mass = malloc(sizeof(double) * (3 * (size_t)qp->n + 1));
  s->y0 = malloc(sizeof(double) * (3 * (size_t)qp->n + 1));
  s->rs = calloc((size_t)qp->ne + 1, sizeof(double));
  s->crow = malloc(sizeof(int) * ((size_t)qp->ni + 1));
  if (!s->var || !s->mass || !s->y0 || !s->rs || !s->crow) return -1;
  s->nc = 0;
  for (int k = 0; k < qp->ni; k++) {
    int live = qp->H[k] < 0;
    for (int e = 0; e < qp->hn[k]; e++)
      live |= qp->hw[CF_QP_HMAX * k + e] != 0 && (qp->N[3 * k] != 0 || qp->N[3 * k + 1] != 0 || qp->N[3 * k + 2] != 0);
    s->crow[k] = live ? s->nc++ : -1;
  }
  double msum = 0;
  int nv = 0;
  for (int i = 0; i < qp->n; i++) {
    s->var[i] = qp->invm[i] > 0 ? nv : -1;
    if (s->var[i] < 0) continue;
    msum += 1 / qp->invm[i];
    for (int d = 0; d < 3; d++, nv++) s->y0[nv] = qp->u[3 * i + d];
  }
  s->mbar = nv ? msum / (nv / 3) : 1;
  for (int i = 0; i < qp->n; i++)
    if (s->var[i] >= 0)
      for (int d = 0; d < 3; d++) s->mass[s->var[i] + d] = 1 / (qp->invm[i] * s->mbar);
  for (int e = 0; e < qp->nj; e++)
    if (s->var[qp->jnode[e]] >= 0) {
      const double *j = qp->J + 3 * e;
      s->rs[qp->jrow[e]] += j[0] * j[0] + j[1] * j[1] + j[2] * j[2];
    }
  s->L = 1e-9;
  for (int q = 0; q < 3 * qp->n; q++) s->L = fmax(s->L, fabs(qp->u[q]));
  for (int r = 0; r < qp->ne; r++) s->L = fmax(s->L, fabs(qp->C[r]) / (s->rs[r] > 0 ? sqrt(s->rs[r]) : 1));
  for (int k = 0; k < qp->ni; k++) s->L = fmax(s->L, -qp->H[k]);
  for (int q = 0; q < nv; q++) s->y0[q] /= s->L;
  for (int r = 0; r < qp->ne; r++) s->rs[r] = s->rs[r] > 0 ? 1 / (s->L * sqrt(s->rs[r])) : 1 / s->L;
  s->nv = nv;
  return nv;
}

static void set_options(IpoptProblem p, double tol) {
  AddIpoptIntOption(p, "print_level", 0);
  AddIpoptStrOption(p, "sb", "yes");
  AddIpoptNumOption(p, "tol", tol);
  AddIpoptNumOption(p, "constr_viol_tol", tol);
  AddIpoptNumOption(p, "dual_inf_tol", tol);
  AddIpoptNumOption(p, "compl_inf_tol", tol);
  AddIpoptNumOption(p, "bound_relax_factor", 0);
  AddIpoptStrOption(p, "nlp_scaling_method", "none");
  AddIpoptStrOption(p, "hessian_constant", "yes");
  AddIpoptStrOption(p, "jac_c_constant", "yes");
  AddIpoptStrOption(p, "jac_d_constant", "yes");
  AddIpoptStrOption(p, "mu_strategy", "adaptive");
  AddIpoptIntOption(p, "max_iter", 500);
}

static int solve(qp_ipopt *s, double tol, double *dx, double *gamma, cf_error *err) {
  const cf_qp *qp = s->qp;
  int m = qp->ne + s->nc, nv = s->nv, nele = 0;
  for (int e = 0; e < qp->nj; e++) nele += 3 * (s->var[qp->jnode[e]] >= 0);
  for (int k = 0; k < qp->ni; k++)
    for (int e = 0; e < qp->hn[k] && s->crow[k] >= 0; e++) nele += 3 * (s->var[qp->hnode[CF_QP_HMAX * k + e]] >= 0);
  double *xl = malloc(sizeof(double) * (nv + 1)), *xu = malloc(sizeof(double) * (nv + 1));
  double *gl = malloc(sizeof(double) * (m + 1)), *gu = malloc(sizeof(double) * (m + 1));
  double *y = malloc(sizeof(double) * (nv + 1)), *lam = calloc((size_t)m + 1, sizeof(double));
  int rc = CF_OK;
  IpoptProblem p = NULL;
  if (!xl || !xu || !gl || !gu || !y || !lam) {
    rc = cf_error_set(err, CF_ENOMEM, "contacts (ipopt): out of memory for %d variables", nv);
    goto done;
  }
  for (int q = 0; q < nv; q++) xl[q] = -1e20, xu[q] = 1e20, y[q] = s->y0[q];
  for (int r = 0; r < m; r++) gl[r] = 0, gu[r] = r < qp->ne ? 0 : 1e20;
  p = CreateIpoptProblem(nv, xl, xu, m, gl, gu, nele, nv, 0, eval_f, eval_g, eval_grad_f, eval_jac_g, eval_h);
  if (!p) {
    rc = cf_error_set(err, CF_ESOLVER, "contacts (ipopt): could not create the problem (%d variables, %d rows)",
                      nv, m);
    goto done;
  }
  set_options(p, tol);
  SetIntermediateCallback(p, intermediate);
  double obj;
  enum ApplicationReturnStatus st = IpoptSolve(p, y, NULL, &obj, lam, NULL, NULL, s);
  if (st != Solve_Succeeded && st != Solved_To_Acceptable_Level) {
    rc = cf_error_set(err, CF_ESOLVER, "contacts (ipopt): the QP was not solved (Ipopt status %d, %d variables, "
                      "%d metric and %d contact rows)", (int)st, nv, qp->ne, s->nc);
    goto done;
  }
  memset(dx, 0, sizeof(double) * 3 * (size_t)qp->n);
  for (int i = 0; i < qp->n; i++)
    if (s->var[i] >= 0)
      for (int d = 0; d < 3; d++) dx[3 * i + d] = s->L * y[s->var[i] + d];
  for (int k = 0; k < qp->ni; k++) gamma[k] = s->crow[k] < 0 ? 0 : -s->mbar * s->L * lam[qp->ne + s->crow[k]];
done:
  if (p) FreeIpoptProblem(p);
  free(xl);
  free(xu);
  free(gl);
  free(gu);
  free(y);
  free(lam);
  return rc;
}

int cf_qp_solve_ipopt(const cf_qp *qp, double tol, double *dx, double *gamma, int *iterations, cf_error *err) {
  qp_ipopt s = {0};
  int rc = setup(&s, qp) < 0 ? cf_error_set(err, CF_ENOMEM, "contacts (ipopt): out of memory for %d nodes", qp->n)
                             : solve(&s, tol, dx, gamma, err);
  if (iterations) *iterations = s.iterations;
  free(s.var);
  free(s.mass);
  free(s.y0);
  free(s.rs);
  free(s.crow);
  return rc;
}
