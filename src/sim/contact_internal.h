/* contact_internal.h — internal to contact.c and contact_system.c: the
 * state of the contact projection, and the linear algebra of its active-set
 * steps (contact_system.c) that contact.c's loop calls.  Why two files: the
 * loop (pairs, friction, the active-set decisions, the Ipopt baseline) and
 * the factor it works on (pattern, assembly, CHOLMOD updates, refined solve)
 * change for different reasons. */
#ifndef CF_CONTACT_INTERNAL_H
#define CF_CONTACT_INTERNAL_H
#include "contact.h"
#include "qp.h"

#include <cholmod.h>

/* A candidate pair k is a node and an obstacle (pn[k] = 1, weight 1), an
 * edge of the triangulated mesh and a stick (pn[k] = 2), or a triangle and
 * a sharp point of an obstacle (pn[k] = 3: an end of a stick, a needle's
 * tip; cf_obstacle_points).  The row of an edge pair, H_k = distance
 * of the edge's closest point to the stick's axis − radius − thickness,
 * has the gradient pw[4k + e] N_k at node pnode[4k + e], the weights 1 −
 * s, s of that closest point; a triangle pair's, the distance of the
 * stick's end to the triangle, the barycentric weights of the end's
 * projection.  Together they keep the stick out of the surface: a segment
 * can only get into a triangle across one of its edges or with one of its
 * ends.  An edge pair whose closest point is within CF_EDGE_END of a node,
 * or a triangle pair whose end projects outside the triangle or within
 * CF_EDGE_END (barycentric) of its boundary, is left to the node's or the
 * edge's pair (the rows would be one): H = CF_PAIR_FAR, N = 0, and it
 * leaves W. */
#define CF_PAIR_FAR 1e3
#define CF_EDGE_END 1e-2

struct cf_contact {
  cf_proj *proj;
  int n, n_obs, K;    /* nodes, obstacles, candidate pairs */
  int K1, K2, K3;     /* pairs 0 .. K1 - 1: node pairs; K1 .. K2 - 1:
                         edge pairs; K2 .. K3 - 1: triangle pairs, those
                         near their point (contact_points.c), renumbered
                         as they change; K3 .. K - 1: self-collision
                         pairs (contact_self.c), found as the steps go */
  int Kcap;           /* pairs the arrays hold */
  struct cf_selfcoll *sc; /* self-collision detection (NULL: off) */
  int *hkey, hcap;    /* [hcap] self pairs by their nodes (open addressing, -1: empty) */
  double *xrestart;   /* [3n] φ0 of the step (self-collisions: a restart) */
  const double *xstart; /* [3n] the positions at the step's start (borrowed
                         for cf_contact_solve / cf_contact_needed): a self
                         row's normal is turned by them */
  int *kpt;           /* [2K] a triangle pair's point (index into pts) and
                         triangle (into tri); K2 .. K3 - 1 are the pairs
                         near at the last evaluation (contact_points.c) */
  int npts;           /* sharp points of all obstacles */
  double *pts;        /* [6 npts] their positions at the current time,
                         then at the step's start */
  int *tri, nt;       /* [3 nt] the collision triangles (in pt0's block) */
  double cell;        /* the triangles' grid cell (contact_points.c) */
  double t0, moved;   /* the step's start; the largest motion of the step
                         so far (contact_points.c) */
  cf_obstacle *obs;
  cf_contact_params cp;
  int *pn, *cobs;     /* [K] nodes (1 or 2) and obstacle of each pair */
  int *pnode;         /* [CF_QP_HMAX K] its nodes (qp.h's layout) */
  double *pw;         /* [CF_QP_HMAX K] their weights at the current iterate */
  double *seg;        /* [6 n_obs] a stick's axis at the current time */
  int *pt0;           /* [n_obs + 1] the first point of each obstacle in pts */
  double *H, *N;      /* [K], [3K] at the current iterate */
  double *side;       /* [3K] pairs with a stick: the direction from its
                         axis to the node or edge at the start of the step
                         (the side a thin stick must not cross within a
                         step: H < 0 on the other side) */
  double *sprev, *tprev; /* [K], [3K] budget friction: the stop of the last
                         iteration (0: none to extrapolate from), its direction */
  double *gam;        /* [K] normal impulse friction acts on: Δγ of the
                         last solve; with friction_budget, what this step's
                         Δγ have added and friction not yet used */
  int *wpos;          /* [K] position in W, or -1 */
  int *W, nw;         /* working set (pair ids) */
  int *P, np;         /* pattern set: the pairs with a row in the system
                         (W ⊆ P; rows of P \ W are inactive: zero
                         gradient, unit diagonal, ζ = 0) */
  int *ppos;          /* [K] position in P, or -1 */
  int *wn_ptr, *wn;   /* [n+1], [CF_QP_HMAX K]: pairs of P by node, */
  int *wj;            /* [CF_QP_HMAX K] and the node's place e in the pair */
  cholmod_sparse *A;  /* the system's pattern (and values) for P */
  int *map;           /* [nt] value index in A of each assembled term */
  int *pinv;          /* [na + np] position of each row in the factor's order */
  unsigned char *lact;/* [np] row of P active in the factor L */
  unsigned char *dep; /* [K] in this iteration: CF_DEP_DROPPED, left W
                         as linearly dependent (Remark 3.5.3), enters
                         again only when violated (contact.c, entering);
                         CF_DEP_OUT, exchanged out of W (Remark 3.5.2) or
                         dependent with no row to exchange with: may not
                         enter again before the next iteration */
  unsigned char *outs;/* [K] times it left W in this iteration: after
                         CF_CONTACT_MAX_OUTS it stays (anti-cycling) */
  int valid;          /* L is the factor at the current iterate (updatable) */
  double shift;       /* its Tikhonov shift */
  cholmod_sparse *R;  /* a column for cholmod_rowadd */
  double *u, *dx, *dx0; /* [3n] friction displacement, increment, the
                         increment before a refinement step */
  int *erow;          /* [maxd] rows of one node's entries */
  double *eg;         /* [3 maxd] their gradients */
  int maxd;
  int *qrow, *qnode;  /* [slots] the QP's metric gradient entries (qp.h) */
  double *qJ, *qgam;  /* [3 slots], [K] their gradients; impulses of a QP */
  int qcap;           /* slots allocated */
  cholmod_common cc;
  cholmod_factor *L;
  cholmod_dense *B, *X, *Y, *E, *D;
};

/* H of a pair at dist along the unit direction n[3] from an obstacle of
 * radius r (the stick, a sharp point), with the side of the
 * step's start (c->side): N into c->N; H < 0 on the other side. */
double cf_contact_side_row(cf_contact *c, int k, double dist, const double n[3], double r);

/* Self-collisions (contact_self.c).  Add the pairs that collide between
 * xprev and x with proximity omega; returns how many were new, -1 out of
 * memory. */
int cf_contact_self_add(cf_contact *c, const double *xprev, const double *x, double omega);
/* H, N and the weights of self pair k at x (CF_PAIR_FAR when its closest
 * points are on the boundary: another pair holds them). */
double cf_contact_self_eval(cf_contact *c, int k, const double *x);
/* Drop the self pairs outside W when they are many (at a step's start):
 * the pattern is rebuilt at the next factorization. */
int cf_contact_self_prune(cf_contact *c);
/* Room for K pairs in every per-pair array; CF_OK or CF_ENOMEM. */
int cf_contact_grow(cf_contact *c, int K);
/* Pair from's per-pair fields into slot to (contact_self.c, beside the
 * list of them in cf_contact_grow); W, P and wn are the caller's. */
void cf_contact_copy_pair(cf_contact *c, int to, int from);

/* contact_pairs.c: H and normals of every pair at x, time t (min H
 * returned); the sides of the stick and point pairs at the step's start
 * (xprev, time t0), and xprev as c->xstart for the self pairs. */
double cf_contact_eval_pairs(cf_contact *c, const double *x, double t);
void cf_contact_set_sides(cf_contact *c, const double *xprev, double t0);

/* contact_system.c: take pair k out of the working set; pair k's
 * linearized row H_k + ∇H_k·d at the displacement d[3n]. */
void cf_contact_w_remove(cf_contact *c, int k);
double cf_contact_row(const cf_contact *c, int k, const double *d);

/* Values of dep[k] (0: neither). */
#define CF_DEP_DROPPED 1
#define CF_DEP_OUT 2

/* Remark 3.5.2, for pair k outside W whose linearized row the increment
 * violates: with the current factor (that of W), α = A_WW⁻¹ ∇G_W M⁻¹ ∇H_kᵀ
 * and k's pivot; into *partner: -1 when k is independent of W (it enters
 * as it is), the pair of W with the greatest |α| when k is dependent (k
 * enters in exchange for it), -2 when no contact row of W carries the
 * dependence (it is on the metric rows).  CF_OK or CF_ESOLVER. */
int cf_contact_partner(cf_contact *c, const cf_proj_rows *r, int k, int *partner, cf_error *err);

/* Factor the system of the current iterate and the working set W: a new
 * symbolic analysis when a pair without a row enters, rank updates of a
 * valid factor (cf_contact_params.updates), else a numeric refactorization;
 * the counters into res. */
int cf_contact_factor(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res, cf_error *err);
/* ζ (c->X) and the increment Δφ (c->dx) of W with the current factor,
 * refined against the Tikhonov shift. */
int cf_contact_solve_ws(cf_contact *c, const cf_proj_rows *r, cf_error *err);
#endif
