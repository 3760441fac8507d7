/* contact.c — the projection with node-obstacle contacts and friction
 * (thesis §3.4-§3.5, SPEC §5; see contact.h).
 *
 * Each projection iteration j solves the QP (3.4) linearized at φ_j:
 *   min ½ Δφᵀ M Δφ − Δφᵀ f_μ   s.t.  C + ∇C Δφ = 0,  H + ∇H Δφ ≥ 0,
 * H_k = dist(p_i, obstacle) − τ0 for every free node i and obstacle
 * (a candidate pair k), the response normals taken at φ_j (SPEC §5, the
 * thesis' form).  With the rows of the working set W imposed as equalities
 * (G = [C; H_W]), Δφ = M⁻¹(f_μ − ∇Gᵀ ζ) where
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
 * next is the series' Aitken sum, within the same Coulomb cap.
 * Stopping (3.5): max |C_r| / c_r ≤ tol,
 * min H ≥ −ε1, and the friction displacement the next iteration would add
 * ≤ ε2 (what is left of max |Δφ| once C and H hold).
 *
 * Linear algebra (simplicial LDLᵀ, CHOLMOD).  The system has a row for
 * every pair of a pattern set P ⊇ W; the rows of P \ W are inactive (unit
 * diagonal, no coupling, zero right-hand side: ζ = 0).  P and the symbolic
 * analysis change only when a pair without a row enters W (then P := P ∪ W,
 * or W once P has more than 2 |W| + 32 pairs).
 * The matrix is refactored numerically once per iteration (the gradients
 * moved); the working-set changes after that are rank updates,
 * cholmod_rowadd / cholmod_rowdel of the row's (identity ↔ system) column
 * (§3.5.2), with a refactorization whenever an update fails or the new
 * pivot is below 1e-12 of its diagonal (the dependence test of Remark
 * 3.5.3; the exchange of Remark 3.5.2 is not done: the refactorization's
 * Tikhonov shift keeps the factor definite).  cf_contact_params.updates = 0
 * refactors on every change instead (test_contact compares the two).  The
 * Tikhonov shift ε = 1e-9 mean diag is the projection's (planar states,
 * SPEC §4). */
#include "contact.h"
#include "qp.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct cf_contact {
  cf_proj *proj;
  int n, n_obs, K;    /* nodes, obstacles, candidate pairs */
  cf_obstacle *obs;
  cf_contact_params cp;
  int *cnode, *cobs;  /* [K] node and obstacle of each pair */
  double *H, *N;      /* [K], [3K] at the current iterate */
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
  int *wn_ptr, *wn;   /* [n+1], [K]: pairs of P by node */
  cholmod_sparse *A;  /* the system's pattern (and values) for P */
  int *map;           /* [nt] value index in A of each assembled term */
  int *pinv;          /* [na + np] position of each row in the factor's order */
  unsigned char *lact;/* [np] row of P active in the factor L */
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

void cf_contact_params_default(cf_contact_params *cp) {
  cp->thickness = 2e-3;
  cp->eps_h = 1e-5;
  cp->eps_x = 1e-5;
  cp->max_active_set = 0;
  cp->updates = 1;
  cp->friction_budget = 0;
  cp->solver = CF_CONTACT_ACTIVE_SET;
  cp->observe = NULL;
  cp->observe_ctx = NULL;
}

void cf_contact_free(cf_contact *c) {
  if (!c) return;
  cholmod_free_factor(&c->L, &c->cc);
  cholmod_free_dense(&c->B, &c->cc);
  cholmod_free_dense(&c->X, &c->cc);
  cholmod_free_dense(&c->Y, &c->cc);
  cholmod_free_dense(&c->E, &c->cc);
  cholmod_free_dense(&c->D, &c->cc);
  cholmod_free_sparse(&c->A, &c->cc);
  cholmod_free_sparse(&c->R, &c->cc);
  cholmod_finish(&c->cc);
  free(c->pinv);
  free(c->lact);
  free(c->obs);
  free(c->cnode);
  free(c->cobs);
  free(c->H);
  free(c->N);
  free(c->gam);
  free(c->sprev);
  free(c->tprev);
  free(c->wpos);
  free(c->W);
  free(c->P);
  free(c->ppos);
  free(c->map);
  free(c->wn_ptr);
  free(c->wn);
  free(c->u);
  free(c->dx);
  free(c->erow);
  free(c->eg);
  free(c->qrow);
  free(c->qnode);
  free(c->qJ);
  free(c->qgam);
  free(c->dx0);
  free(c);
}

cf_contact *cf_contact_alloc(cf_proj *proj, int n, const unsigned char *is_kin, const cf_obstacle *obs,
                             int n_obs, const cf_contact_params *cp, cf_error *err) {
  cf_contact *c = calloc(1, sizeof *c);
  if (!c) {
    cf_error_set(err, CF_ENOMEM, "contacts: out of memory");
    return NULL;
  }
  cholmod_start(&c->cc);
  c->cc.print = 0;
  /* simplicial LDL': the systems are small and change often (the form
   * CHOLMOD's rowadd/rowdel updates work on) */
  c->cc.supernodal = CHOLMOD_SIMPLICIAL;
  c->proj = proj;
  c->n = n;
  c->n_obs = n_obs;
  c->cp = *cp;
  int nfree = 0;
  for (int i = 0; i < n; i++) nfree += !is_kin[i];
  size_t K = (size_t)nfree * n_obs;
  c->K = (int)K;
  c->obs = malloc(sizeof(cf_obstacle) * (n_obs + 1));
  c->cnode = malloc(sizeof(int) * (K + 1));
  c->cobs = malloc(sizeof(int) * (K + 1));
  c->H = malloc(sizeof(double) * (K + 1));
  c->N = malloc(sizeof(double) * 3 * (K + 1));
  c->gam = calloc(K + 1, sizeof(double));
  c->sprev = calloc(K + 1, sizeof(double));
  c->tprev = calloc(3 * K + 1, sizeof(double));
  c->wpos = malloc(sizeof(int) * (K + 1));
  c->W = malloc(sizeof(int) * (K + 1));
  c->P = malloc(sizeof(int) * (K + 1));
  c->ppos = malloc(sizeof(int) * (K + 1));
  c->wn_ptr = malloc(sizeof(int) * ((size_t)n + 1));
  c->wn = malloc(sizeof(int) * (K + 1));
  c->u = calloc(3 * (size_t)n, sizeof(double));
  c->dx = calloc(3 * (size_t)n, sizeof(double));
  c->qgam = calloc(K + 1, sizeof(double));
  c->dx0 = calloc(3 * (size_t)n, sizeof(double));
  if (!c->qgam || !c->dx0 || !c->sprev || !c->tprev || !c->obs || !c->cnode || !c->cobs || !c->H || !c->N || !c->gam || !c->wpos || !c->W || !c->P || !c->ppos ||
      !c->wn_ptr || !c->wn || !c->u || !c->dx) {
    cf_contact_free(c);
    cf_error_set(err, CF_ENOMEM, "contacts: out of memory");
    return NULL;
  }
  if (n_obs > 0) memcpy(c->obs, obs, sizeof(cf_obstacle) * n_obs);
  int k = 0;
  for (int i = 0; i < n; i++)
    for (int o = 0; o < n_obs && !is_kin[i]; o++, k++) {
      c->cnode[k] = i;
      c->cobs[k] = o;
      c->wpos[k] = c->ppos[k] = -1;
    }
  return c;
}

void cf_contact_reset(cf_contact *c) {
  for (int w = 0; w < c->nw; w++) c->wpos[c->W[w]] = -1;
  c->nw = 0;
}

/* H and normals of every pair at x, time t; returns min H. */
static double eval_pairs(cf_contact *c, const double *x, double t) {
  double m = INFINITY;
  for (int k = 0; k < c->K; k++) {
    c->H[k] = cf_obstacle_distance(c->obs + c->cobs[k], t, x + 3 * c->cnode[k], c->N + 3 * k) - c->cp.thickness;
    if (!(c->H[k] >= m)) m = c->H[k];
  }
  return m;
}

int cf_contact_needed(cf_contact *c, const double *x, double t) {
  if (c->nw > 0) return 1;
  return c->K > 0 && eval_pairs(c, x, t) < 0;
}

static void w_add(cf_contact *c, int k) {
  c->wpos[k] = c->nw;
  c->W[c->nw++] = k;
}

static void w_remove(cf_contact *c, int k) {
  int p = c->wpos[k], last = c->W[--c->nw];
  c->W[p] = last;
  c->wpos[last] = p;
  c->wpos[k] = -1;
}

/* Friction displacements u = M⁻¹ f_μ from the unused normal impulses gam
 * and the relative tangential velocities at x, consuming gam; returns
 * max |u_i|. */
static double friction(cf_contact *c, const cf_proj_rows *r, const double *xprev, const double *x, double h,
                       double t) {
  memset(c->u, 0, sizeof(double) * 3 * (size_t)c->n);
  double umax = 0;
  for (int w = 0; w < c->nw; w++) {
    int k = c->W[w], i = c->cnode[k];
    const cf_obstacle *o = c->obs + c->cobs[k];
    if (!(c->gam[k] > 0) || o->mu == 0) continue;
    double vo[3], vt[3], *nk = c->N + 3 * k;
    cf_obstacle_velocity(o, t, x + 3 * i, vo);
    for (int d = 0; d < 3; d++) vt[d] = (x[3 * i + d] - xprev[3 * i + d]) / h - vo[d];
    double vn = vt[0] * nk[0] + vt[1] * nk[1] + vt[2] * nk[2];
    for (int d = 0; d < 3; d++) vt[d] -= vn * nk[d];
    double s = sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2]);
    if (!(s > 0)) continue;
    double disp = o->mu * c->gam[k] * r->invm[i], stop = s * h, dot = 0;
    for (int d = 0; d < 3; d++) dot += vt[d] / s * c->tprev[3 * k + d];
    if (c->sprev[k] > 0 && dot > 0.9 && stop < c->sprev[k]) {
      /* the last iteration stopped this node and the metric rows pulled it
       * back to rho = stop / sprev of that: Aitken's sum of the series of
       * stops, stop / (1 − rho), in one iteration */
      stop /= 1 - stop / c->sprev[k];
      c->sprev[k] = 0;
    } else {
      c->sprev[k] = disp >= stop ? stop : 0;
    }
    for (int d = 0; d < 3; d++) c->tprev[3 * k + d] = vt[d] / s;
    if (disp > stop) disp = stop; /* stop the node, do not reverse it */
    if (c->cp.friction_budget) c->gam[k] -= disp / (o->mu * r->invm[i]); /* the rest: next iterations */
    for (int d = 0; d < 3; d++) c->u[3 * i + d] -= disp * vt[d] / s;
  }
  for (int i = 0; i < c->n; i++) {
    double l = sqrt(c->u[3 * i] * c->u[3 * i] + c->u[3 * i + 1] * c->u[3 * i + 1] + c->u[3 * i + 2] * c->u[3 * i + 2]);
    if (l > umax) umax = l;
  }
  return umax;
}

/* A new pattern: P := P ∪ W, or just W when P has grown beyond 2 |W| + 32
 * pairs (inactive rows cost factorization work); its pairs by node
 * (wn_ptr, wn) and the largest entry count of a node. */
static int new_pattern(cf_contact *c, const cf_proj_rows *r) {
  if (c->np > 2 * c->nw + 32) {
    for (int f = 0; f < c->np; f++) c->ppos[c->P[f]] = -1;
    c->np = 0;
  }
  for (int w = 0; w < c->nw; w++)
    if (c->ppos[c->W[w]] < 0) {
      c->ppos[c->W[w]] = c->np;
      c->P[c->np++] = c->W[w];
    }
  memset(c->wn_ptr, 0, sizeof(int) * ((size_t)c->n + 1));
  for (int f = 0; f < c->np; f++) c->wn_ptr[c->cnode[c->P[f]] + 1]++;
  int maxd = 1;
  for (int i = 0; i < c->n; i++) {
    int d = c->wn_ptr[i + 1] + r->node_ptr[i + 1] - r->node_ptr[i];
    if (d > maxd) maxd = d;
    c->wn_ptr[i + 1] += c->wn_ptr[i];
  }
  /* fill each node's block from its end: wn_ptr[i + 1] ends at its start */
  for (int f = 0; f < c->np; f++) c->wn[--c->wn_ptr[c->cnode[c->P[f]] + 1]] = c->P[f];
  for (int i = 0; i < c->n; i++) c->wn_ptr[i] = c->wn_ptr[i + 1];
  c->wn_ptr[c->n] = c->np;
  if (maxd > c->maxd) {
    free(c->erow);
    free(c->eg);
    c->erow = malloc(sizeof(int) * maxd);
    c->eg = malloc(sizeof(double) * 3 * maxd);
    if (!c->erow || !c->eg) return CF_ENOMEM;
    c->maxd = maxd;
  }
  return CF_OK;
}

/* The rows of node i with their gradients into erow/eg (inactive pattern
 * rows: zero); returns the count. */
static int node_entries(cf_contact *c, const cf_proj_rows *r, int i) {
  int d = 0;
  for (int u = r->node_ptr[i]; u < r->node_ptr[i + 1]; u++, d++) {
    int s = r->node_slot[u];
    c->erow[d] = r->slot_row[s];
    for (int q = 0; q < 3; q++) c->eg[3 * d + q] = 2 * r->G[3 * s + q];
  }
  for (int v = c->wn_ptr[i]; v < c->wn_ptr[i + 1]; v++, d++) {
    int k = c->wn[v];
    c->erow[d] = r->na + c->ppos[k];
    if (c->wpos[k] >= 0) memcpy(c->eg + 3 * d, c->N + 3 * k, 3 * sizeof(double));
    else c->eg[3 * d] = c->eg[3 * d + 1] = c->eg[3 * d + 2] = 0;
  }
  return d;
}

/* The terms of ∇G M⁻¹ ∇Gᵀ + εI (upper triangle), always in the same order
 * for a pattern: into the triplets T (new pattern) or added into the values
 * of A through map.  Inactive rows get a unit diagonal.  Returns the
 * count. */
static size_t assemble(cf_contact *c, const cf_proj_rows *r, cholmod_triplet *T) {
  int N = r->na + c->np, *Ti = T ? T->i : NULL, *Tj = T ? T->j : NULL;
  double *Tx = T ? T->x : NULL, *Ax = c->A ? c->A->x : NULL, tr = 0;
  if (!T) memset(Ax, 0, sizeof(double) * c->A->nzmax);
  size_t q = 0;
  for (int i = 0; i < c->n; i++) {
    if (!(r->invm[i] > 0)) continue;
    int d = node_entries(c, r, i);
    for (int a = 0; a < d; a++)
      for (int b = a; b < d; b++, q++) {
        const double *ga = c->eg + 3 * a, *gb = c->eg + 3 * b;
        double v = r->invm[i] * (ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2]);
        int ra = c->erow[a], rb = c->erow[b];
        if (ra == rb) tr += v;
        if (!T) {
          Ax[c->map[q]] += v;
          continue;
        }
        Ti[q] = ra < rb ? ra : rb;
        Tj[q] = ra < rb ? rb : ra;
        Tx[q] = v;
      }
  }
  double mean = N > c->np - c->nw ? tr / (N - (c->np - c->nw)) : 1;
  c->shift = 1e-9 * mean; /* Tikhonov shift, as the projection's */
  for (int a = 0; a < N; a++, q++) {
    /* inactive rows: the identity's, as cholmod_rowdel leaves them */
    double v = a >= r->na && c->wpos[c->P[a - r->na]] < 0 ? 1 : c->shift;
    if (!T) {
      Ax[c->map[q]] += v;
      continue;
    }
    Ti[q] = Tj[q] = a;
    Tx[q] = v;
  }
  return q;
}

/* A new pattern P = W: the sparse matrix, the value index of every term and
 * the symbolic analysis. */
static int analyse(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res, cf_error *err) {
  if (new_pattern(c, r)) return cf_error_set(err, CF_ENOMEM, "contacts: out of memory");
  int N = r->na + c->np;
  size_t nt = (size_t)N;
  for (int i = 0; i < c->n; i++) {
    size_t d = (size_t)(c->wn_ptr[i + 1] - c->wn_ptr[i] + r->node_ptr[i + 1] - r->node_ptr[i]);
    if (r->invm[i] > 0) nt += d * (d + 1) / 2;
  }
  cholmod_free_sparse(&c->A, &c->cc);
  cholmod_free_factor(&c->L, &c->cc);
  free(c->map);
  c->map = malloc(sizeof(int) * (nt + 1));
  cholmod_triplet *T = cholmod_allocate_triplet(N, N, nt, 1, CHOLMOD_REAL, &c->cc);
  if (!T || !c->map) {
    cholmod_free_triplet(&T, &c->cc);
    return cf_error_set(err, CF_ENOMEM, "contacts: out of memory for %zu entries", nt);
  }
  T->nnz = assemble(c, r, T);
  c->A = cholmod_triplet_to_sparse(T, T->nnz, &c->cc);
  if (c->A) { /* where each term went: its (row, column) in A's column */
    const int *Ap = c->A->p, *Ai = c->A->i, *Ti = T->i, *Tj = T->j;
    for (size_t q = 0; q < T->nnz; q++) {
      int p = Ap[Tj[q]];
      while (Ai[p] != Ti[q]) p++;
      c->map[q] = p;
    }
    c->L = cholmod_analyze(c->A, &c->cc);
  }
  cholmod_free_triplet(&T, &c->cc);
  free(c->pinv);
  free(c->lact);
  cholmod_free_sparse(&c->R, &c->cc);
  c->pinv = malloc(sizeof(int) * ((size_t)N + 1));
  c->lact = malloc((size_t)c->np + 1);
  c->R = cholmod_allocate_sparse(N, 1, (size_t)c->maxd + 1, 1, 1, 0, CHOLMOD_REAL, &c->cc);
  if (!c->A || !c->L || !c->pinv || !c->lact || !c->R)
    return cf_error_set(err, CF_ENOMEM, "contacts: out of memory (analysis of %d rows)", N);
  const int *perm = c->L->Perm;
  for (int a = 0; a < N; a++) c->pinv[perm[a]] = a;
  res->analyses++;
  return CF_OK;
}

/* Column a = na + f of the system (pair k = P[f], active) in the factor's
 * order into c->R, sorted: the couplings with the metric rows and the
 * active contact rows at its node, and its diagonal. */
static void system_column(cf_contact *c, const cf_proj_rows *r, int f) {
  int k = c->P[f], i = c->cnode[k], n = 0, *Ri = c->R->i;
  double *Rx = c->R->x, w = r->invm[i];
  const double *nk = c->N + 3 * k;
  for (int u = r->node_ptr[i]; u < r->node_ptr[i + 1]; u++, n++) {
    const double *g = r->G + 3 * r->node_slot[u];
    Ri[n] = c->pinv[r->slot_row[r->node_slot[u]]];
    Rx[n] = 2 * w * (g[0] * nk[0] + g[1] * nk[1] + g[2] * nk[2]);
  }
  for (int v = c->wn_ptr[i]; v < c->wn_ptr[i + 1]; v++) {
    int k2 = c->wn[v];
    if (c->wpos[k2] < 0 && k2 != k) continue;
    const double *n2 = c->N + 3 * k2;
    Ri[n] = c->pinv[r->na + c->ppos[k2]];
    Rx[n++] = w * (n2[0] * nk[0] + n2[1] * nk[1] + n2[2] * nk[2]) + (k2 == k ? c->shift : 0);
  }
  for (int a = 1; a < n; a++) /* insertion sort by row */
    for (int b = a; b > 0 && Ri[b - 1] > Ri[b]; b--) {
      int ti = Ri[b];
      double tx = Rx[b];
      Ri[b] = Ri[b - 1], Rx[b] = Rx[b - 1];
      Ri[b - 1] = ti, Rx[b - 1] = tx;
    }
  ((int *)c->R->p)[1] = n;
}

/* Bring the factor from its active rows (lact) to W's by cholmod_rowadd /
 * cholmod_rowdel.  Returns 0 when it cannot (then refactor): a failed update
 * or a new pivot below 1e-12 of its row's diagonal (the linear-dependence
 * test of Remark 3.5.3). */
static int update_factor(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res) {
  for (int f = 0; f < c->np; f++) {
    int want = c->wpos[c->P[f]] >= 0, kp = c->pinv[r->na + f];
    if (want == c->lact[f]) continue;
    if (!want) {
      if (!cholmod_rowdel(kp, NULL, c->L, &c->cc)) return 0;
    } else {
      system_column(c, r, f);
      double diag = 0;
      for (int q = 0; q < ((int *)c->R->p)[1]; q++)
        if (((int *)c->R->i)[q] == kp) diag = ((double *)c->R->x)[q];
      if (!cholmod_rowadd(kp, c->R, c->L, &c->cc) || c->cc.status != CHOLMOD_OK) return 0;
      double d = ((double *)c->L->x)[((int *)c->L->p)[kp]]; /* D of the new row */
      if (!(d > 1e-12 * diag)) return 0;
    }
    c->lact[f] = (unsigned char)want;
    res->updates++;
  }
  return 1;
}

/* Factor the system of the current iterate and W (a new pattern when a
 * pair of W has no row yet); while the factor is that of the current
 * iterate, working-set changes are rank updates (cp.updates). */
static int factor_system(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res, cf_error *err) {
  int fresh = !c->L;
  for (int w = 0; w < c->nw && !fresh; w++) fresh = c->ppos[c->W[w]] < 0;
  if (fresh) {
    int rc = analyse(c, r, res, err);
    if (rc) return rc;
    c->valid = 0;
  }
  if (c->valid && c->cp.updates && update_factor(c, r, res)) return CF_OK;
  assemble(c, r, NULL);
  c->valid = 0;
  if (!cholmod_factorize(c->A, c->L, &c->cc) || c->cc.status != CHOLMOD_OK) {
    cholmod_free_factor(&c->L, &c->cc);
    return cf_error_set(err, CF_ESOLVER, "contacts: CHOLMOD factorization failed (status %d, %d rows)",
                        c->cc.status, r->na + c->np);
  }
  for (int f = 0; f < c->np; f++) c->lact[f] = c->wpos[c->P[f]] >= 0;
  c->valid = 1;
  res->factorizations++;
  return CF_OK;
}

/* The rows of the system at the displacement d[3n]: b = G + ∇G d for the
 * metric rows and the active pattern rows, 0 for the inactive ones. */
static void linearized_rows(const cf_contact *c, const cf_proj_rows *r, const double *d, double *b) {
  memcpy(b, r->C, sizeof(double) * (size_t)r->na);
  for (int i = 0; i < c->n; i++) {
    const double *di = d + 3 * i;
    for (int s = r->node_ptr[i]; s < r->node_ptr[i + 1]; s++) {
      const double *g = r->G + 3 * r->node_slot[s];
      b[r->slot_row[r->node_slot[s]]] += 2 * (g[0] * di[0] + g[1] * di[1] + g[2] * di[2]);
    }
  }
  for (int f = 0; f < c->np; f++) {
    int k = c->P[f];
    const double *di = d + 3 * c->cnode[k], *nk = c->N + 3 * k;
    b[r->na + f] = c->wpos[k] < 0 ? 0 : c->H[k] + nk[0] * di[0] + nk[1] * di[1] + nk[2] * di[2];
  }
}

/* Solve for ζ (into c->X) with right-hand side G + ∇G u. */
static int solve_multipliers(cf_contact *c, const cf_proj_rows *r, cf_error *err) {
  int N = r->na + c->np;
  if (!c->B || (int)c->B->nrow != N) {
    cholmod_free_dense(&c->B, &c->cc);
    c->B = cholmod_allocate_dense(N, 1, N, CHOLMOD_REAL, &c->cc);
    if (!c->B) return cf_error_set(err, CF_ENOMEM, "contacts: out of memory");
  }
  linearized_rows(c, r, c->u, c->B->x);
  if (!cholmod_solve2(CHOLMOD_A, c->L, c->B, NULL, &c->X, NULL, &c->Y, &c->E, &c->cc))
    return cf_error_set(err, CF_ESOLVER, "contacts: CHOLMOD solve failed");
  return CF_OK;
}

/* Δφ = u − M⁻¹ ∇Gᵀ ζ into c->dx; returns max |Δφ_i|. */
static double increment(cf_contact *c, const cf_proj_rows *r) {
  const double *z = c->X->x;
  double m = 0;
  for (int i = 0; i < c->n; i++) {
    double *dx = c->dx + 3 * i, f[3] = {0, 0, 0};
    memcpy(dx, c->u + 3 * i, 3 * sizeof(double));
    if (!(r->invm[i] > 0)) continue;
    for (int s = r->node_ptr[i]; s < r->node_ptr[i + 1]; s++) {
      const double *g = r->G + 3 * r->node_slot[s];
      double l = 2 * z[r->slot_row[r->node_slot[s]]];
      for (int d = 0; d < 3; d++) f[d] += g[d] * l;
    }
    for (int v = c->wn_ptr[i]; v < c->wn_ptr[i + 1]; v++) {
      int k = c->wn[v];
      if (c->wpos[k] < 0) continue;
      double l = z[r->na + c->ppos[k]];
      for (int d = 0; d < 3; d++) f[d] += c->N[3 * k + d] * l;
    }
    for (int d = 0; d < 3; d++) dx[d] -= r->invm[i] * f[d];
    double l = sqrt(dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
    if (l > m) m = l;
  }
  return m;
}

/* One step of iterative refinement of ζ against the Tikhonov shift: the
 * residual of the linearized rows at the increment, r = G + ∇G Δφ
 * (= b − ∇G M⁻¹ ∇Gᵀ ζ, zero for an exact solve), solved with the same
 * factor and added to ζ; then the increment again.  Returns how far it
 * moved a node (max_i of the change of Δφ_i), or NAN (err set). */
static double refine(cf_contact *c, const cf_proj_rows *r, cf_error *err) {
  linearized_rows(c, r, c->dx, c->B->x);
  if (!cholmod_solve2(CHOLMOD_A, c->L, c->B, NULL, &c->D, NULL, &c->Y, &c->E, &c->cc)) {
    cf_error_set(err, CF_ESOLVER, "contacts: CHOLMOD solve failed");
    return NAN;
  }
  double *z = c->X->x, *dz = c->D->x, m = 0;
  for (int a = 0; a < r->na + c->np; a++) z[a] += dz[a];
  memcpy(c->dx0, c->dx, sizeof(double) * 3 * (size_t)c->n);
  increment(c, r);
  for (int q = 0; q < 3 * c->n; q++) m = fmax(m, fabs(c->dx[q] - c->dx0[q]));
  return m;
}

/* ζ and Δφ of the current working set: solve, then refine (at most
 * CF_CONTACT_REFINE times) until a step moves no node by more than 1e-3 of
 * the active set's tolerance.  Why: the Tikhonov shift alone left the
 * linearized rows violated by up to 2.6e-9 m and Δφ off the QP's solution
 * by ~3e-5 relative (test_contact_qp against Ipopt, tabletop QPs), more
 * than the multiplier tolerance below; two steps bring both to rounding. */
#define CF_CONTACT_REFINE 4
static int solve_working_set(cf_contact *c, const cf_proj_rows *r, cf_error *err) {
  int rc = solve_multipliers(c, r, err);
  if (rc) return rc;
  increment(c, r);
  for (int q = 0; q < CF_CONTACT_REFINE; q++) {
    double moved = refine(c, r, err);
    if (isnan(moved)) return err ? err->code : CF_ESOLVER;
    if (moved <= 1e-3 * CF_CONTACT_AS_TOL * c->cp.eps_h) break;
  }
  return CF_OK;
}


/* The active-set loop of one iteration: on return c->dx is the increment
 * and c->gam the contact multipliers of W. */
static int active_set(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res, cf_error *err) {
  int limit = c->cp.max_active_set > 0 ? c->cp.max_active_set : 2 * c->K + 20;
  for (int it = 0;; it++) {
    if (it > limit)
      return cf_error_set(err, CF_ENOCONV, "contacts: the active set did not settle in %d changes (%d in W)",
                          limit, c->nw);
    int rc = factor_system(c, r, res, err);
    if (rc == CF_OK) rc = solve_working_set(c, r, err);
    if (rc) return rc;
    res->as_iterations++;
    const double *z = c->X->x;
    /* Δγ = −ζ < 0: the most negative leaves (one at a time: removing every
     * negative one at once, Remark 3.5.4, cycled on experiments/table_drop.ini);
     * only contacts that pull their node by more than the tolerance count */
    int out = -1;
    double qmax = CF_CONTACT_AS_TOL * c->cp.eps_h;
    for (int w = 0; w < c->nw; w++) {
      double q = z[r->na + c->ppos[c->W[w]]] * r->invm[c->cnode[c->W[w]]];
      if (q > qmax) qmax = q, out = w;
    }
    if (out >= 0) {
      w_remove(c, c->W[out]);
      res->rows_out++;
      continue;
    }
    int in = -1;
    double worst = -CF_CONTACT_AS_TOL * c->cp.eps_h;
    for (int k = 0; k < c->K; k++) {
      if (c->wpos[k] >= 0) continue;
      const double *d = c->dx + 3 * c->cnode[k], *nk = c->N + 3 * k;
      double lin = c->H[k] + nk[0] * d[0] + nk[1] * d[1] + nk[2] * d[2];
      if (lin < worst) worst = lin, in = k;
    }
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
                .jnode = c->qnode, .J = c->qJ, .ni = c->K, .H = c->H, .hnode = c->cnode, .N = c->N};
  return CF_OK;
}

/* The QP by Ipopt (the interior-point baseline): increment into c->dx, the
 * impulses into c->qgam; W becomes the pairs whose impulse moves their
 * node by more than CF_CONTACT_AS_TOL ε1 (the active set's own test), which the friction
 * and the next step's warm start read. */
#define CF_CONTACT_IPOPT_TOL 1e-10 /* Ipopt's tol, in units of 1e-3 m (qp_ipopt.c): 1e-13 m */
static int ipopt_step(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res, cf_error *err) {
  cf_qp qp;
  if (build_qp(c, r, &qp)) return cf_error_set(err, CF_ENOMEM, "contacts: out of memory");
  int its = 0, rc = cf_qp_solve_ipopt(&qp, CF_CONTACT_IPOPT_TOL, c->dx, c->qgam, &its, err);
  res->as_iterations += its;
  if (rc) return rc;
  for (int k = 0; k < c->K; k++) {
    int want = c->qgam[k] * r->invm[c->cnode[k]] > CF_CONTACT_AS_TOL * c->cp.eps_h;
    if (!want) c->qgam[k] = 0;
    if (want && c->wpos[k] < 0) w_add(c, k), res->rows_in++;
    else if (!want && c->wpos[k] >= 0) w_remove(c, k), res->rows_out++;
  }
  return CF_OK;
}

/* One QP by the configured solver; then its impulses feed the friction of
 * the next iteration and the observer sees the QP. */
static int solve_qp(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res, cf_error *err) {
  int rc = c->cp.solver == CF_CONTACT_IPOPT ? ipopt_step(c, r, res, err) : active_set(c, r, res, err);
  if (rc) return rc;
  if (c->cp.observe) {
    cf_qp qp;
    if (build_qp(c, r, &qp)) return cf_error_set(err, CF_ENOMEM, "contacts: out of memory");
    c->cp.observe(&qp, c->dx, c->qgam, c->cp.observe_ctx);
  }
  if (!c->cp.friction_budget) /* the thesis: friction of the next iteration from this Δγ only */
    for (int k = 0; k < c->K; k++) c->gam[k] = 0;
  for (int k = 0; k < c->K; k++) c->gam[k] += c->qgam[k];
  return CF_OK;
}

int cf_contact_solve(cf_contact *c, const double *xprev, double *x, double h, double t, double tol, int max_iter,
                     cf_contact_result *res, cf_error *err) {
  memset(res, 0, sizeof *res);
  for (int k = 0; k < c->K; k++) c->gam[k] = c->sprev[k] = 0; /* Δβ_0 = 0 */
  cf_proj_rows r;
  for (;;) {
    double v = cf_proj_eval(c->proj, x, &r);
    double mh = eval_pairs(c, x, t);
    double umax = friction(c, &r, xprev, x, h, t);
    res->violation = v;
    res->min_h = mh;
    res->active = c->nw;
    if (!isfinite(v) || !isfinite(mh))
      return cf_error_set(err, CF_ENONFINITE, "contacts: non-finite constraint value");
    if (v <= tol && mh >= -c->cp.eps_h && umax <= c->cp.eps_x) {
      /* warm start of the next step: the pairs active at its start,
       * H(φⁿ) ≈ 0 (Algorithm 2 line 3) */
      for (int k = 0; k < c->K; k++)
        if (c->wpos[k] < 0 && c->H[k] <= c->cp.eps_h) {
          w_add(c, k);
          res->rows_in++;
        }
      return CF_OK;
    }
    if (res->iterations >= max_iter)
      return cf_error_set(err, CF_ENOCONV,
                          "contacts: no convergence in %d iterations (violation %.3g, min clearance %.3g m, "
                          "friction step %.3g m)",
                          res->iterations, v, mh, umax);
    c->valid = 0; /* a new iterate: refactor once, then update */
    int rc = solve_qp(c, &r, res, err);
    if (rc) return rc;
    for (int q = 0; q < 3 * c->n; q++) x[q] += c->dx[q];
    res->iterations++;
  }
}
