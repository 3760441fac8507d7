/* contact.h — internal: the projection with node-obstacle contacts and
 * friction (thesis §3.2-§3.5), the active-set method of
 * Algorithm 2 on top of the metric rows of cf_proj.  See contact.c. */
#ifndef CF_CONTACT_H
#define CF_CONTACT_H
#include "projection.h"

typedef struct cf_contact cf_contact;

/* The active set's tolerance, relative to ε1: a contact of W leaves when
 * its multiplier pulls its node by more than this, a pair outside W enters
 * when the increment violates its linearized row by more than this.  It was
 * 0.01 before contact.c refined ζ (solve_working_set): the shift's error in the multipliers of
 * resting contacts then emptied W every step at smaller values.  With the
 * refinement, 1e-4 and 1e-6 give the same results in every contact test and
 * bench_contact within 6 % of the active-set solves; at 0.01 the active
 * set stopped on QPs with a multiplier of −2.5e-8 m or a row violated by
 * 9e-9 m, whose solutions differ from Ipopt's by up to 0.5 % relative
 * (test_contact_qp). */
#define CF_CONTACT_AS_TOL 1e-4

/* Anti-cycling: a contact that left the working set this many times in one
 * iteration stays in it for the rest of the iteration, its multiplier taken
 * as it is.  Why: where self-contact rows are nearly dependent (an
 * edge-edge row beside the node-face rows of the same touch), one row
 * flipped for ever, its multiplier pulling by 1.3e-5 m when in and its row
 * violated by 3.9e-6 m when out (test_selfcoll's fold, 498 changes).  The
 * next iteration re-linearizes, and (3.5) still decides convergence. */
#define CF_CONTACT_MAX_OUTS 3

/* A projection iteration whose relative metric violation exceeds this has
 * diverged: the step fails at once and is split (see contact.c). */
#define CF_CONTACT_DIVERGED 1.0

/* Restarts of a step with omega <- 0.9 omega (thesis §3.4.1) before a
 * crossing found by the final check just adds its row and the iteration
 * goes on. */
#define CF_SELF_RESTARTS 10

typedef struct {
  int iterations;     /* projection iterations (QPs (3.4) solved) */
  int factorizations; /* numeric factorizations of the contact system */
  int analyses;       /* symbolic analyses (a pair without a row entered) */
  int updates;        /* cholmod_rowadd / cholmod_rowdel updates */
  int as_iterations;  /* solves of the contact system (active-set steps) */
  int rows_in, rows_out; /* working-set changes */
  int dependent;      /* of rows_out: rows the factorization found linearly
                         dependent on the others */
  int exchanges;      /* exchanges of Remark 3.5.2: a violated pair whose
                         gradient depends on W's entered in place of a
                         contact of W (each one of rows_in and of rows_out) */
  int restarts;       /* self-collisions: restarts of the step with a smaller
                         omega (a crossing found by the final omega = 0 check) */
  int active;         /* contacts in the working set at exit */
  double violation;   /* max relative metric violation at exit */
  double min_h;       /* min over candidates of distance - thickness at exit, m */
} cf_contact_result;

/* proj: the simulation's projection (borrowed, must outlive the object: its
 * metric rows are evaluated through cf_proj_eval).  mesh: its nodes and,
 * with a stick among the obstacles, its edges (read here only).
 * is_kin[n]: kinematic nodes (no contacts: their positions are
 * prescribed; an edge with a free node has them).  obs[n_obs] and cp are
 * copied. */
cf_contact *cf_contact_alloc(cf_proj *proj, const cf_mesh *mesh, const unsigned char *is_kin, const cf_obstacle *obs,
                             int n_obs, const cf_contact_params *cp, cf_error *err);
void cf_contact_free(cf_contact *c);
/* 1 when the step of length h ending at time t with the positions x
 * (xprev at its start) needs the contact solve: the working set is not
 * empty (warm start from the last step), or a free node of x is closer
 * than the thickness to an obstacle or crossed a stick (H < 0). */
int cf_contact_needed(cf_contact *c, const double *xprev, const double *x, double h, double t);
/* Project x[3n] (in: the unconstrained step; out: the end of the step)
 * onto C = 0, H >= 0 with friction; xprev[3n]: positions at the start of
 * the step (velocities (x - xprev) / h for friction); t: time at the end of
 * the step (where the obstacles are).  CF_ENOCONV after max_iter
 * iterations or when the working set cycles. */
int cf_contact_solve(cf_contact *c, const double *xprev, double *x, double h, double t, double tol, int max_iter,
                     cf_contact_result *res, cf_error *err);
/* Empty the working set (after cf_sim_set_state). */
void cf_contact_reset(cf_contact *c);
#endif
