/* qp.h — internal: the QP (3.4) of one contact projection iteration in a
 * solver-independent form, the interior-point baseline that solves it with
 * Ipopt (thesis §3.5, Table 4.8: what the active set of contact.c is measured
 * against) and the residuals that validate a solution.
 *
 *   min ½ Σ_i m_i |Δ_i − u_i|²
 *   s.t. C_r + Σ_(r,i) J_ri · Δ_i = 0      the ne metric rows, linearized
 *        H_k + Σ_e w_ke N_k · Δ_(node ke) ≥ 0   the ni contact rows, linearized
 *
 * over the displacements Δ_i of the nodes with invm_i > 0 (m_i = 1 / invm_i;
 * invm_i = 0: a kinematic node, Δ_i = 0).  u = M⁻¹ f_μ is the friction
 * displacement of contact.c (zero without friction).  At a KKT point
 *   M (Δ − u) = −Σ_r λ_r J_rᵀ + Σ_k γ_k ∇H_k,   γ ≥ 0,   γ_k (H_k + ∇H_k·Δ) = 0,
 * γ_k the contact impulse Δγ_k of contact.c (its −ζ).  A node-obstacle row
 * has one node of weight 1; an edge-stick row the edge's two nodes with
 * the weights 1 − s, s of its closest point (∇H_k = w_ke N_k at node ke).
 *
 * Why a separate form: the active set works on contact.c's factor and
 * pattern sets, Ipopt on callbacks; both read the same cf_qp, so a QP
 * recorded from a simulation (cf_contact_params.observe) can be solved
 * again by either and the answers compared (tests/test_contact_qp.c). */
#ifndef CF_QP_H
#define CF_QP_H
#include "cf_common.h"

struct cf_qp {
  int n;                   /* nodes */
  const double *invm;      /* [n] inverse masses (0: kinematic) */
  const double *u;         /* [3n] displacement without constraints */
  int ne, nj;              /* metric rows; their gradient entries */
  const double *C;         /* [ne] row values */
  const int *jrow, *jnode; /* [nj] row and node of each entry */
  const double *J;         /* [3 nj] the entry's gradient (entries of the
                              same row and node add up) */
  int ni;                  /* contact rows */
  const double *H;         /* [ni] distance − thickness, m */
  const int *hn;           /* [ni] nodes of each contact row (1..CF_QP_HMAX) */
  const int *hnode;        /* [CF_QP_HMAX ni] its nodes, row k's from
                              CF_QP_HMAX k */
  const double *hw;        /* [CF_QP_HMAX ni] their weights */
  const double *N;         /* [3 ni] its unit normal */
};
typedef struct cf_qp cf_qp;
#define CF_QP_HMAX 4

/* A contact row of nn nodes (nodes[nn], weights w[nn], normal N[3],
 * value H): its linearized value H + Σ_e w_e N·d_(node e) at the
 * displacement d[3n], and its reach max_e |w_e| invm_(node e).  Shared by
 * the QP form below and contact.c's pairs (the same layout). */
double cf_qp_row_value(double H, const double *N, int nn, const int *nodes, const double *w, const double *d);
double cf_qp_row_reach(int nn, const int *nodes, const double *w, const double *invm);
/* Row k's linearized value H_k + ∇H_k·dx at the displacement dx[3n]. */
double cf_qp_contact_row(const cf_qp *qp, int k, const double *dx);
/* How far a unit impulse of row k moves its nodes: max_e |w_ke| invm. */
double cf_qp_contact_reach(const cf_qp *qp, int k);

/* The residuals of a candidate solution dx[3n] (input) with contact impulses
 * gamma[ni] (input): eq = max_r |C_r + J_r·Δ| / ‖J_r‖ (m), in = max_k of
 * −(H_k + N_k·Δ) (m, ≤ 0 when feasible), comp = max_k γ_k reach_k |H_k + ∇H_k·Δ|
 * (m², impulse as a displacement times slack), neg = max_k −γ_k reach_k (m),
 * reach_k = cf_qp_contact_reach. */
typedef struct {
  double eq, in, comp, neg;
  double objective;        /* ½ Σ m_i |Δ_i − u_i|² */
} cf_qp_residuals;
void cf_qp_residuals_eval(const cf_qp *qp, const double *dx, const double *gamma, cf_qp_residuals *res);

/* 1 when this build has Ipopt (coinor-libipopt-dev found by Meson). */
int cf_qp_have_ipopt(void);
/* CF_OK when it has, else CF_EINVAL with the "built without Ipopt" error. */
int cf_qp_ipopt_check(cf_error *err);
/* Solve qp (input) by Ipopt's primal-dual interior point method (MUMPS
 * linear solver), to the relative tolerance tol (the simulation uses
 * 1e-10, test_contact_qp's reference solutions 1e-12): dx[3n] (output, zero at kinematic
 * nodes), gamma[ni] (output, the contact impulses, ≥ 0 up to tol) and the
 * interior-point iterations into *iterations (output, may be NULL).  One
 * Ipopt problem is created and freed per call (the rows change from one QP to
 * the next).  CF_ESOLVER naming Ipopt's status when it does not solve;
 * CF_EINVAL when the build has no Ipopt. */
int cf_qp_solve_ipopt(const cf_qp *qp, double tol, double *dx, double *gamma, int *iterations, cf_error *err);
#endif
