/* contact.c — the projection with node-obstacle contacts and friction
 * (thesis §3.4-§3.5, docs/design.md §5; see contact.h).
 *
 * Each projection iteration j solves the QP (3.4) linearized at φ_j:
 *   min ½ Δφᵀ M Δφ − Δφᵀ f_μ   s.t.  C + ∇C Δφ = 0,  H + ∇H Δφ ≥ 0,
 * H_k = dist(p_i, obstacle) − τ0 for every free node i and obstacle
 * (a candidate pair k), the response normals taken at φ_j (the thesis'
 * form, Remark 2.6.1; docs/design.md §5).  With the rows of the working set
 * W imposed as equalities (G = [C; H_W]), Δφ = M⁻¹(f_μ − ∇Gᵀ ζ) where
 *   (∇G M⁻¹ ∇Gᵀ + εI) ζ = G + ∇G M⁻¹ f_μ,
 * and the contact multiplier is Δγ_k = −ζ_k.  Active set (Algorithm 2):
 * W starts from the previous step's; while some Δγ_k < 0 the most negative
 * leaves W; otherwise, while some pair outside W has
 * H_k + ∇H_k Δφ < −10⁻⁴ ε1 (CF_CONTACT_AS_TOL) the most violated enters;
 * then Δφ is taken.
 * Friction (3.2) with the thesis' lag: iteration j + 1 adds the force
 * −μ Δβ_j V_j, Δβ_j = Δγ_j |∇H| of iteration j and V_j the unit relative
 * tangential velocity at φ_{j+1} ((φ − φⁿ)/h minus the obstacle's), as
 * the displacement M⁻¹ f_μ, capped per contact at the tangential
 * displacement it opposes (so it stops a node, never reverses it: the
 * static case, β < |γ ∇H|).  The cap uses the node's own displacement, so
 * where few contact nodes hold much cloth (a sheet hanging over a
 * cylinder) friction falls far short of μ times the normal force:
 * cf_contact_params.friction_budget = 1 keeps what the cap left of each
 * contact's μ Σ_j Δγ_j for the next iterations of the step (Coulomb on the
 * step's impulses), at the cost of many more iterations (docs/contacts.md).
 * A node that friction stopped and the metric rows pull back by a nearly
 * constant fraction of its stop makes the stops a slowly converging
 * geometric series (0.6-2.5 % less per iteration where measured: 50
 * iterations were not enough); after two stops in the same direction the
 * next is the series' Aitken sum, within the same Coulomb cap.  When the cap
 * cuts the sum (the node slides), the series is followed on: the next
 * iteration's stop is compared with this one's.  Stopping the node again
 * instead made the stops alternate with the capped sums and shrink by
 * only ~5 % per two iterations (experiments/tablecloth.ini with mu = 1:
 * no convergence in 50 iterations at t = 4.64 s).
 * Stopping (3.5): max |C_r| / c_r ≤ tol,
 * min H ≥ −ε1, and the friction displacement the next iteration would add
 * ≤ ε2 (what is left of max |Δφ| once C and H hold).
 *
 * The pairs and their rows: contact_pairs.c (obstacles, the stick, sharp
 * points) and contact_self.c (self-collisions, found by selfcoll.c).
 * Linear algebra: contact_system.c (the system of the working set, its
 * factor and its updates, the refined solve). */
#include "contact_internal.h"
#include "qp.h"
#include "selfcoll.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>


void cf_contact_params_default(cf_contact_params *cp) {
  cp->thickness = 2e-3;
  cp->eps_h = 1e-5;
  cp->eps_x = 1e-5;
  cp->max_active_set = 0;
  cp->updates = 1;
  cp->friction_budget = 0;
  cp->self = 0;
  cp->self_mu = 0;
  cp->omega = 0.5;
  cp->solver = CF_CONTACT_ACTIVE_SET;
  cp->observe = NULL;
  cp->observe_ctx = NULL;
}

void cf_contact_reset(cf_contact *c) {
  for (int w = 0; w < c->nw; w++) c->wpos[c->W[w]] = -1;
  c->nw = 0;
}

/* How far a unit impulse of pair k moves its nodes (qp.h's reach). */
static double reach(const cf_contact *c, const double *invm, int k) {
  return cf_qp_row_reach(c->pn[k], c->pnode + CF_QP_HMAX * k, c->pw + CF_QP_HMAX * k, invm);
}

int cf_contact_needed(cf_contact *c, const double *xprev, const double *x, double h, double t) {
  if (c->nw > 0) return 1;
  cf_contact_set_sides(c, xprev, t - h);
  if (c->sc && cf_contact_self_add(c, xprev, x, c->cp.omega) != 0) return 1; /* new pairs (or out of memory) */
  return c->K > 0 && cf_contact_eval_pairs(c, x, t) < 0;
}

static void w_add(cf_contact *c, int k) {
  c->wpos[k] = c->nw;
  c->W[c->nw++] = k;
}

/* Friction displacements u = M⁻¹ f_μ from the unused normal impulses gam
 * and the relative tangential velocities at x, consuming gam; returns
 * max |u_i|. */
static double friction(cf_contact *c, const cf_proj_rows *r, const double *xprev, const double *x, double h,
                       double t) {
  memset(c->u, 0, sizeof(double) * 3 * (size_t)c->n);
  double umax = 0;
  for (int w = 0; w < c->nw; w++) {
    int k = c->W[w];
    const int *nd = c->pnode + CF_QP_HMAX * k;
    const double *wk = c->pw + CF_QP_HMAX * k;
    const cf_obstacle *o = k < c->K3 ? c->obs + c->cobs[k] : NULL; /* NULL: self-contact */
    double mu = o ? o->mu : c->cp.self_mu;
    if (!(c->gam[k] > 0) || mu == 0) continue;
    /* the contact point, its velocity relative to the obstacle, and the
     * inverse of its effective mass Σ w² invm (a node: its invm) */
    double p[3] = {0, 0, 0}, vp[3] = {0, 0, 0}, vo[3], vt[3], *nk = c->N + 3 * k, minv = 0;
    for (int e = 0; e < c->pn[k]; e++) {
      minv += wk[e] * wk[e] * r->invm[nd[e]];
      for (int d = 0; d < 3; d++) {
        p[d] += wk[e] * x[3 * nd[e] + d];
        vp[d] += wk[e] * ((x[3 * nd[e] + d] - xprev[3 * nd[e] + d]) / h);
      }
    }
    if (!(minv > 0)) continue;
    if (o) cf_obstacle_velocity(o, t, p, vo);
    else vo[0] = vo[1] = vo[2] = 0; /* the weights' signs already make vp relative */
    for (int d = 0; d < 3; d++) vt[d] = vp[d] - vo[d];
    double vn = vt[0] * nk[0] + vt[1] * nk[1] + vt[2] * nk[2];
    for (int d = 0; d < 3; d++) vt[d] -= vn * nk[d];
    double s = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
    if (!(s > 0)) continue;
    double disp = mu * c->gam[k] * minv, stop = s * h, dot = 0;
    for (int d = 0; d < 3; d++) dot += vt[d] / s * c->tprev[3 * k + d];
    if (c->sprev[k] > 0 && dot > 0.9 && stop < c->sprev[k]) {
      /* the last iteration stopped this node and the metric rows pulled it
       * back to rho = stop / sprev of that: Aitken's sum of the series of
       * stops, stop / (1 − rho), in one iteration */
      double raw = stop;
      stop /= 1 - stop / c->sprev[k];
      c->sprev[k] = disp < stop ? raw : 0; /* capped: the series goes on */
    } else {
      c->sprev[k] = disp >= stop ? stop : 0;
    }
    for (int d = 0; d < 3; d++) c->tprev[3 * k + d] = vt[d] / s;
    if (disp > stop) disp = stop; /* stop the contact point, do not reverse it */
    if (c->cp.friction_budget) c->gam[k] -= disp / (mu * minv); /* the rest: next iterations */
    /* the impulse disp / minv at the point: node e moves by invm w_e times it */
    for (int e = 0; e < c->pn[k]; e++) {
      double f = r->invm[nd[e]] * wk[e] / minv;
      for (int d = 0; d < 3; d++) c->u[3 * nd[e] + d] -= disp * f * vt[d] / s;
    }
  }
  for (int i = 0; i < c->n; i++) {
    double l = sqrt(c->u[3 * i] * c->u[3 * i] + c->u[3 * i + 1] * c->u[3 * i + 1] + c->u[3 * i + 2] * c->u[3 * i + 2]);
    if (l > umax) umax = l;
  }
  return umax;
}

/* The pair that enters W next, or -1 (none), -2 (err set): the one whose
 * linearized row the increment violates most, as it is if its gradient is
 * independent of W's.  If it is dependent, ∇H_k = Σ α_i ∇G_i (Remark 3.5.2),
 * it enters in exchange for the contact row of W with the greatest |α|,
 * which may not enter again in this iteration (no swapping back); if no
 * contact row carries the dependence, k stays out for the iteration and the
 * next most violated is tried.  A pair that left W as dependent (Remark
 * 3.5.3) is a candidate like any other: left out while the increment
 * satisfies its row (Lemma 1: it is implied by W's), exchanged in when it
 * violates it, entered as it is when what it depended on has left W. */
static int entering(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res, cf_error *err) {
  for (;;) {
    int in = -1, partner;
    double worst = -CF_CONTACT_AS_TOL * c->cp.eps_h;
    for (int k = 0; k < c->K; k++) {
      if (c->wpos[k] >= 0 || c->dep[k] == CF_DEP_OUT) continue;
      double lin = cf_contact_row(c, k, c->dx);
      if (lin < worst) worst = lin, in = k;
    }
    if (in < 0) return -1;
    if (cf_contact_partner(c, r, in, &partner, err)) return -2;
    if (partner == -1) return in;
    if (partner == -2) {
      c->dep[in] = CF_DEP_OUT;
      continue;
    }
    cf_contact_w_remove(c, partner);
    c->dep[partner] = CF_DEP_OUT;
    res->rows_out++;
    res->exchanges++;
    return in;
  }
}

/* The active-set loop of one iteration: on return c->dx is the increment
 * and c->qgam the contact impulses (those of W; 0 elsewhere). */
static int active_set(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res, cf_error *err) {
  int limit = c->cp.max_active_set > 0 ? c->cp.max_active_set : 2 * c->K + 20;
  for (int it = 0;; it++) {
    if (it > limit)
      return cf_error_set(err, CF_ENOCONV, "contacts: the active set did not settle in %d changes (%d in W)",
                          limit, c->nw);
    int rc = cf_contact_factor(c, r, res, err);
    if (rc == CF_OK) rc = cf_contact_solve_ws(c, r, err);
    if (rc) return rc;
    res->as_iterations++;
    const double *z = c->X->x;
    /* Δγ = −ζ < 0: the most negative leaves (one at a time: removing every
     * negative one at once, Remark 3.5.4, cycled on experiments/table_drop.ini);
     * only contacts that pull their node by more than the tolerance count */
    int out = -1;
    double qmax = CF_CONTACT_AS_TOL * c->cp.eps_h;
    for (int w = 0; w < c->nw; w++) {
      if (c->outs[c->W[w]] >= CF_CONTACT_MAX_OUTS) continue;
      double q = z[r->na + c->ppos[c->W[w]]] * reach(c, r->invm, c->W[w]);
      if (q > qmax) qmax = q, out = w;
    }
    if (out >= 0) {
      c->outs[c->W[out]]++;
      cf_contact_w_remove(c, c->W[out]);
      res->rows_out++;
      continue;
    }
    int in = entering(c, r, res, err);
    if (in < -1) return err ? err->code : CF_ESOLVER;
    if (in >= 0) {
      w_add(c, in);
      res->rows_in++;
      continue;
    }
    memset(c->qgam, 0, sizeof(double) * (size_t)c->K);
    for (int w = 0; w < c->nw; w++) c->qgam[c->W[w]] = -z[r->na + c->ppos[c->W[w]]];
    return CF_OK;
  }
}

/* The QP of this iteration in qp.h's form (arrays borrowed from c and r);
 * CF_ENOMEM when its entry arrays cannot grow. */
static int build_qp(cf_contact *c, const cf_proj_rows *r, cf_qp *qp) {
  int slots = r->node_ptr[c->n], nj = 0;
  if (slots > c->qcap) {
    free(c->qrow);
    free(c->qnode);
    free(c->qJ);
    c->qrow = malloc(sizeof(int) * slots);
    c->qnode = malloc(sizeof(int) * slots);
    c->qJ = malloc(sizeof(double) * 3 * slots);
    c->qcap = c->qrow && c->qnode && c->qJ ? slots : 0;
    if (!c->qcap) return CF_ENOMEM;
  }
  for (int i = 0; i < c->n; i++)
    for (int u = r->node_ptr[i]; u < r->node_ptr[i + 1]; u++) {
      int sl = r->node_slot[u];
      if (r->slot_row[sl] < 0) continue;
      c->qrow[nj] = r->slot_row[sl];
      c->qnode[nj] = i;
      for (int d = 0; d < 3; d++) c->qJ[3 * nj + d] = 2 * r->G[3 * sl + d];
      nj++;
    }
  *qp = (cf_qp){.n = c->n, .invm = r->invm, .u = c->u, .ne = r->na, .nj = nj, .C = r->C, .jrow = c->qrow,
                .jnode = c->qnode, .J = c->qJ, .ni = c->K, .H = c->H, .hn = c->pn, .hnode = c->pnode, .hw = c->pw, .N = c->N};
  return CF_OK;
}

/* The QP by Ipopt (the interior-point baseline): increment into c->dx, the
 * impulses into c->qgam; W becomes the pairs whose impulse moves their
 * node by more than CF_CONTACT_AS_TOL ε1 (the active set's own test), which the friction
 * and the next step's warm start read. */
#define CF_CONTACT_IPOPT_TOL 1e-10 /* Ipopt's tol, relative to the QP's own length (qp_ipopt.c) */
static int ipopt_step(cf_contact *c, const cf_proj_rows *r, const cf_qp *qp, cf_contact_result *res,
                      cf_error *err) {
  int its = 0, rc = cf_qp_solve_ipopt(qp, CF_CONTACT_IPOPT_TOL, c->dx, c->qgam, &its, err);
  res->as_iterations += its;
  if (rc) return rc;
  for (int k = 0; k < c->K; k++) {
    int want = c->qgam[k] * reach(c, r->invm, k) > CF_CONTACT_AS_TOL * c->cp.eps_h;
    if (!want) c->qgam[k] = 0;
    if (want && c->wpos[k] < 0) w_add(c, k), res->rows_in++;
    else if (!want && c->wpos[k] >= 0) cf_contact_w_remove(c, k), res->rows_out++;
  }
  return CF_OK;
}

/* One QP by the configured solver; then its impulses feed the friction of
 * the next iteration and the observer sees the QP. */
static int solve_qp(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res, cf_error *err) {
  cf_qp qp; /* qp.h's form: for Ipopt and the observer (the active set works on c) */
  int ipopt = c->cp.solver == CF_CONTACT_IPOPT;
  if ((ipopt || c->cp.observe) && build_qp(c, r, &qp)) return cf_error_set(err, CF_ENOMEM, "contacts: out of memory");
  int rc = ipopt ? ipopt_step(c, r, &qp, res, err) : active_set(c, r, res, err);
  if (rc) return rc;
  if (c->cp.observe) c->cp.observe(&qp, c->dx, c->qgam, c->cp.observe_ctx);
  if (!c->cp.friction_budget) /* the thesis: friction of the next iteration from this Δγ only */
    for (int k = 0; k < c->K; k++) c->gam[k] = 0;
  for (int k = 0; k < c->K; k++) c->gam[k] += c->qgam[k];
  return CF_OK;
}

int cf_contact_solve(cf_contact *c, const double *xprev, double *x, double h, double t, double tol, int max_iter,
                     cf_contact_result *res, cf_error *err) {
  memset(res, 0, sizeof *res);
  if (c->sc && cf_contact_self_prune(c)) return cf_error_set(err, CF_ENOMEM, "contacts: out of memory");
  for (int k = 0; k < c->K; k++) c->gam[k] = c->sprev[k] = 0; /* Δβ_0 = 0 */
  cf_contact_set_sides(c, xprev, t - h);
  double omega = c->cp.omega;
  if (c->sc) memcpy(c->xrestart, x, sizeof(double) * 3 * (size_t)c->n); /* φ0, for a restart */
  cf_proj_rows r;
  for (;;) {
    double v = cf_proj_eval(c->proj, x, &r);
    /* self-collisions between the step's start and this iterate (§3.4.1) */
    if (c->sc && cf_contact_self_add(c, xprev, x, omega) < 0)
      return cf_error_set(err, CF_ENOMEM, "contacts: out of memory (self-collisions)");
    double mh = cf_contact_eval_pairs(c, x, t);
    for (int w = c->nw - 1; w >= 0; w--) /* edge pairs whose closest point reached a node */
      if (c->H[c->W[w]] == CF_PAIR_FAR) cf_contact_w_remove(c, c->W[w]), res->rows_out++;
    double umax = friction(c, &r, xprev, x, h, t);
    res->violation = v;
    res->min_h = mh;
    res->active = c->nw;
    if (!isfinite(v) || !isfinite(mh))
      return cf_error_set(err, CF_ENONFINITE, "contacts: non-finite constraint value");
    int done = v <= tol && mh >= -c->cp.eps_h && umax <= c->cp.eps_x, found = 0;
    /* the final check of §3.4.1 with omega = 0: a crossing the proximity
     * missed adds its pair (kept from then on), and the step restarts from
     * φ0 with omega <- 0.9 omega; after CF_SELF_RESTARTS restarts the
     * iteration goes on from where it is instead */
    if (done && c->sc && (found = cf_contact_self_add(c, xprev, x, 0)) < 0)
      return cf_error_set(err, CF_ENOMEM, "contacts: out of memory (self-collisions)");
    if (found && res->restarts < CF_SELF_RESTARTS) {
      res->restarts++;
      omega *= 0.9;
      memcpy(x, c->xrestart, sizeof(double) * 3 * (size_t)c->n);
      for (int k = 0; k < c->K; k++) c->gam[k] = c->sprev[k] = 0;
    }
    if (found) continue;
    if (done) {
      /* warm start of the next step: the pairs active at its start,
       * H(φⁿ) ≈ 0 (Algorithm 2 line 3) */
      for (int k = 0; k < c->K; k++)
        if (c->wpos[k] < 0 && c->H[k] <= c->cp.eps_h) {
          w_add(c, k);
          res->rows_in++;
        }
      return CF_OK;
    }
    /* an iterate whose metric rows are off by more than their own size
     * has left the linearization's reach: split the step now instead of
     * iterating on (the first QP of a collapsing tube's step, with self
     * rows that could not all hold, gave 567: experiments/garment.ini
     * then spent 50 iterations and 8000 self pairs on it) */
    if (res->iterations > 0 && v > CF_CONTACT_DIVERGED)
      return cf_error_set(err, CF_ENOCONV, "contacts: the iteration diverged (violation %.3g after %d iterations)",
                          v, res->iterations);
    if (res->iterations >= max_iter)
      return cf_error_set(err, CF_ENOCONV,
                          "contacts: no convergence in %d iterations (violation %.3g, min clearance %.3g m, "
                          "friction step %.3g m)",
                          res->iterations, v, mh, umax);
    c->valid = 0; /* a new iterate: refactor once, then update */
    memset(c->dep, 0, (size_t)c->K);
    memset(c->outs, 0, (size_t)c->K);
    int rc = solve_qp(c, &r, res, err);
    if (rc) return rc;
    for (int q = 0; q < 3 * c->n; q++) x[q] += c->dx[q];
    res->iterations++;
  }
}
