/* contact_system.c — the linear system of contact.c's active-set steps
 * (thesis §3.5.2; see contact_internal.h).
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
 * 3.5.3).  After every factorization, an active contact row whose pivot is
 * at the level of the Tikhonov shift is dependent on the rows before it and
 * leaves W (drop_dependent): if the increment satisfies its row it is
 * implied by W's (Lemma 1) and stays out.  A pair that
 * is to enter W (violated) is first tested against W's factor
 * (cf_contact_partner: the same test on its pivot were it added); if it is
 * dependent, ∇H_k = Σ α_i ∇G_i with α = A_WW⁻¹ b (b its column), it enters
 * in exchange for the contact row of greatest |α| (Remark 3.5.2), which
 * may not come back in the iteration.  Without the exchange the dependent
 * row was dropped however violated: test_contact_exchange's QPs came back
 * with a rising obstacle's rows violated by 1 mm, the projection needed a
 * second iteration, and on the stick the two-stage result ended 5.1e-4 m
 * off Ipopt's trajectory after 0.5 s (2.5e-6 m with it).
 * The test costs a partial forward solve per entering pair (entry_pivot);
 * where no pair is dependent, the working sets and results are the same as
 * without it.  cf_contact_params.updates = 0
 * refactors on every change instead (test_contact compares the two).  The
 * Tikhonov shift ε = 1e-9 mean diag is the projection's (planar states,
 * docs/design.md §4). */
#include "contact_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
  for (int f = 0; f < c->np; f++)
    for (int e = 0; e < c->pn[c->P[f]]; e++) c->wn_ptr[c->pnode[CF_QP_HMAX * c->P[f] + e] + 1]++;
  int maxd = 1;
  for (int i = 0; i < c->n; i++) {
    int d = c->wn_ptr[i + 1] + r->node_ptr[i + 1] - r->node_ptr[i];
    if (d > maxd) maxd = d;
    c->wn_ptr[i + 1] += c->wn_ptr[i];
  }
  int total = c->wn_ptr[c->n];
  /* fill each node's block from its end: wn_ptr[i + 1] ends at its start */
  for (int f = 0; f < c->np; f++)
    for (int e = 0; e < c->pn[c->P[f]]; e++) {
      int v = --c->wn_ptr[c->pnode[CF_QP_HMAX * c->P[f] + e] + 1];
      c->wn[v] = c->P[f];
      c->wj[v] = e;
    }
  for (int i = 0; i < c->n; i++) c->wn_ptr[i] = c->wn_ptr[i + 1];
  c->wn_ptr[c->n] = total;
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
    double w = c->pw[CF_QP_HMAX * k + c->wj[v]];
    c->erow[d] = r->na + c->ppos[k];
    for (int q = 0; q < 3; q++) c->eg[3 * d + q] = c->wpos[k] >= 0 ? w * c->N[3 * k + q] : 0;
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
  c->R = cholmod_allocate_sparse(N, 1, (size_t)CF_QP_HMAX * c->maxd + 1, 1, 1, 0, CHOLMOD_REAL, &c->cc);
  if (!c->A || !c->L || !c->pinv || !c->lact || !c->R)
    return cf_error_set(err, CF_ENOMEM, "contacts: out of memory (analysis of %d rows)", N);
  const int *perm = c->L->Perm;
  for (int a = 0; a < N; a++) c->pinv[perm[a]] = a;
  res->analyses++;
  return CF_OK;
}

/* Column a = na + f of the system (pair k = P[f], active) in the factor's
 * order into c->R, sorted, one entry per row: at each of the pair's nodes
 * the couplings with the metric rows and the active contact rows there,
 * summed over the nodes (an edge pair meets a metric row at both its
 * nodes), and its diagonal. */
static void system_column(cf_contact *c, const cf_proj_rows *r, int f) {
  int k = c->P[f], n = 0, *Ri = c->R->i;
  double *Rx = c->R->x;
  const double *nk = c->N + 3 * k;
  for (int e = 0; e < c->pn[k]; e++) {
    int i = c->pnode[CF_QP_HMAX * k + e];
    double w = r->invm[i], wk = c->pw[CF_QP_HMAX * k + e];
    if (!(w > 0)) continue;
    for (int u = r->node_ptr[i]; u < r->node_ptr[i + 1]; u++, n++) {
      const double *g = r->G + 3 * r->node_slot[u];
      Ri[n] = c->pinv[r->slot_row[r->node_slot[u]]];
      Rx[n] = 2 * w * wk * (g[0] * nk[0] + g[1] * nk[1] + g[2] * nk[2]);
    }
    for (int v = c->wn_ptr[i]; v < c->wn_ptr[i + 1]; v++) {
      int k2 = c->wn[v];
      if (c->wpos[k2] < 0 && k2 != k) continue;
      const double *n2 = c->N + 3 * k2;
      double w2 = c->pw[CF_QP_HMAX * k2 + c->wj[v]];
      Ri[n] = c->pinv[r->na + c->ppos[k2]];
      Rx[n++] = w * wk * w2 * (n2[0] * nk[0] + n2[1] * nk[1] + n2[2] * nk[2]) + (k2 == k && e == 0 ? c->shift : 0);
    }
  }
  for (int a = 1; a < n; a++) /* insertion sort by row */
    for (int b = a; b > 0 && Ri[b - 1] > Ri[b]; b--) {
      int ti = Ri[b];
      double tx = Rx[b];
      Ri[b] = Ri[b - 1], Rx[b] = Rx[b - 1];
      Ri[b - 1] = ti, Rx[b - 1] = tx;
    }
  int m = 0;
  for (int a = 0; a < n; a++) /* one entry per row */
    if (m > 0 && Ri[m - 1] == Ri[a]) Rx[m - 1] += Rx[a];
    else Ri[m] = Ri[a], Rx[m++] = Rx[a];
  ((int *)c->R->p)[1] = m;
}

/* Bring the factor from its active rows (lact) to W's by cholmod_rowadd /
 * cholmod_rowdel.  Returns 0 when it cannot (then refactor): a failed update
 * or a new pivot below 1e-12 of its row's diagonal (the linear-dependence
 * test of Remark 3.5.3). */
static int update_factor(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res) {
  /* deletions first: after an exchange (Remark 3.5.2) the entering row
   * would otherwise meet the row it depends on still in the factor (a
   * pivot at the shift's level); a single change is the same either way */
  for (int pass = 0; pass < 2; pass++)
    for (int f = 0; f < c->np; f++) {
      int want = c->wpos[c->P[f]] >= 0, kp = c->pinv[r->na + f];
      if (want == c->lact[f] || want != pass) continue;
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

/* The diagonal of pair k's row: Σ_e invm w_e² |N|² over its free nodes. */
static double pair_diag(const cf_contact *c, const cf_proj_rows *r, int k) {
  double d = 0;
  const double *nk = c->N + 3 * k;
  for (int e = 0; e < c->pn[k]; e++) {
    double w = c->pw[CF_QP_HMAX * k + e];
    d += r->invm[c->pnode[CF_QP_HMAX * k + e]] * w * w * (nk[0] * nk[0] + nk[1] * nk[1] + nk[2] * nk[2]);
  }
  return d;
}

/* The dependence test of Remark 3.5.3 on pair k's pivot d (its diagonal,
 * Tikhonov shift included, less what the rows before it explain): d at
 * the shift's level, below 4 ε or 1e-8 of the diagonal. */
static int dependent_pivot(const cf_contact *c, const cf_proj_rows *r, int k, double d) {
  return d < fmax(4 * c->shift, 1e-8 * pair_diag(c, r, k));
}

/* Remark 3.5.3: after a factorization, an active contact row whose pivot
 * D is at the level of the Tikhonov shift (below 4 ε, or 1e-8 of its
 * diagonal) is a combination of the rows before it in the factor's order;
 * it leaves W (cholmod_rowdel keeps the factor W's) and re-enters in this
 * iteration only if the increment violates its row: by an exchange
 * (cf_contact_partner below), or as it is once a row it depended on has
 * left.  Why: the shift made such a system solvable, but its
 * solution spread the multipliers over the dependent rows and left the
 * metric rows violated by up to 1e-7 m, which the refinement could not
 * remove (a stick pressing on a row of edges and diagonals that all move
 * together: test_contact_qp's hitting QPs, up to 4.6 % off Ipopt's
 * solution).  The rows are taken in the factor's order, since removing one
 * changes the pivots after it. */
static int drop_dependent(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res) {
  int N = r->na + c->np, *Lp = c->L->p;
  const int *perm = c->L->Perm;
  const double *Lx = c->L->x;
  for (int kp = 0; kp < N; kp++) {
    int a = perm[kp], f = a - r->na;
    if (f < 0 || !c->lact[f]) continue;
    int k = c->P[f];
    if (!dependent_pivot(c, r, k, Lx[Lp[kp]])) continue;
    if (!cholmod_rowdel(kp, NULL, c->L, &c->cc)) return 0;
    c->lact[f] = 0;
    c->dep[k] = CF_DEP_DROPPED;
    cf_contact_w_remove(c, k);
    res->rows_out++;
    res->dependent++;
  }
  return 1;
}

/* Pair k's column of the system on W's rows, ∇G_W M⁻¹ ∇H_kᵀ (metric rows
 * and active pattern rows; zero on the inactive ones), added into y[N]
 * (zeroed by the caller) at pos[a] for row a: pos = c->pinv, the factor's
 * order, or NULL, the system's own.  k need not have a row.  Returns the
 * first position written (N: none). */
static int w_column(cf_contact *c, const cf_proj_rows *r, int k, const int *pos, double *y) {
  int N = r->na + c->np, first = N;
  const double *nk = c->N + 3 * k;
  for (int e = 0; e < c->pn[k]; e++) {
    int i = c->pnode[CF_QP_HMAX * k + e];
    double w = r->invm[i], wk = c->pw[CF_QP_HMAX * k + e];
    if (!(w > 0)) continue;
    for (int u = r->node_ptr[i]; u < r->node_ptr[i + 1]; u++) {
      int sl = r->node_slot[u], a = r->slot_row[sl];
      const double *g = r->G + 3 * sl;
      if (pos) a = pos[a];
      y[a] += 2 * w * wk * (g[0] * nk[0] + g[1] * nk[1] + g[2] * nk[2]);
      if (a < first) first = a;
    }
    for (int v = c->wn_ptr[i]; v < c->wn_ptr[i + 1]; v++) {
      int k2 = c->wn[v], a = r->na + c->ppos[k2];
      if (c->wpos[k2] < 0) continue;
      const double *n2 = c->N + 3 * k2;
      double w2 = c->pw[CF_QP_HMAX * k2 + c->wj[v]];
      if (pos) a = pos[a];
      y[a] += w * wk * w2 * (n2[0] * nk[0] + n2[1] * nk[1] + n2[2] * nk[2]);
      if (a < first) first = a;
    }
  }
  return first;
}

/* Pair k's pivot were it added to W (it need not have a row): its
 * diagonal and the shift, less bᵀ A_W⁻¹ b = Σ_j y_j² / D_j, y = L⁻¹ P b
 * (b its column, w_column), into y[N] (output).  Only the forward solve,
 * and only from the first row b has in the factor's order, skipping the
 * columns y does not reach: every entering pair pays it (perf on
 * test_selfcoll: 0.13 % of the samples in cf_contact_partner, this
 * inlined).  cholmod_rowadd's own pivot would not do: it sees only the
 * rows before k's in the factor's order. */
static double entry_pivot(cf_contact *c, const cf_proj_rows *r, int k, double *y) {
  int N = r->na + c->np;
  const int *Lp = c->L->p, *Li = c->L->i, *Lnz = c->L->nz;
  const double *Lx = c->L->x;
  double piv = pair_diag(c, r, k) + c->shift;
  memset(y, 0, sizeof(double) * (size_t)N);
  for (int j = w_column(c, r, k, c->pinv, y); j < N; j++) {
    double yj = y[j];
    if (yj == 0) continue;
    for (int p = Lp[j] + 1; p < Lp[j] + Lnz[j]; p++) y[Li[p]] -= Lx[p] * yj; /* diagonal first */
    piv -= yj * yj / Lx[Lp[j]];
  }
  return piv;
}

/* Remark 3.5.2 (see contact_internal.h).  The dependence test is
 * drop_dependent's, on k's pivot were it added (entry_pivot).  If k is
 * dependent, one solve with W's factor gives α = A_W⁻¹ b, the coefficients
 * of ∇H_k = Σ α_i ∇G_i (up to the shift).  The partner is the contact row
 * of greatest |α| (never a metric row, nor one at CF_CONTACT_MAX_OUTS), if
 * it carries at least 1e-4 of ∇H_k's M⁻¹-norm, α² d_i ≥ 1e-8 d_k: the
 * dependence test's own level (below it, W without that row and with k
 * would fail the test again).  c->X (ζ) is left as it was: B and D (sized
 * by the last solve and refinement) are scratch. */
int cf_contact_partner(cf_contact *c, const cf_proj_rows *r, int k, int *partner, cf_error *err) {
  int N = r->na + c->np;
  *partner = -1;
  if (!dependent_pivot(c, r, k, entry_pivot(c, r, k, c->D->x))) return CF_OK;
  memset(c->B->x, 0, sizeof(double) * (size_t)N);
  w_column(c, r, k, NULL, c->B->x);
  if (!cholmod_solve2(CHOLMOD_A, c->L, c->B, NULL, &c->D, NULL, &c->Y, &c->E, &c->cc))
    return cf_error_set(err, CF_ESOLVER, "contacts: CHOLMOD solve failed");
  const double *al = c->D->x;
  double best = 0;
  int p = -1;
  for (int w = 0; w < c->nw; w++) {
    int i = c->W[w];
    double a = fabs(al[r->na + c->ppos[i]]);
    if (c->outs[i] < CF_CONTACT_MAX_OUTS && a > best) best = a, p = i;
  }
  *partner = p >= 0 && best * best * pair_diag(c, r, p) >= 1e-8 * pair_diag(c, r, k) ? p : -2;
  return CF_OK;
}

/* Factor the system of the current iterate and W (a new pattern when a
 * pair of W has no row yet); while the factor is that of the current
 * iterate, working-set changes are rank updates (cp.updates). */
int cf_contact_factor(cf_contact *c, const cf_proj_rows *r, cf_contact_result *res, cf_error *err) {
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
  if (!drop_dependent(c, r, res)) {
    cholmod_free_factor(&c->L, &c->cc);
    return cf_error_set(err, CF_ESOLVER, "contacts: CHOLMOD row deletion failed (status %d)", c->cc.status);
  }
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
  for (int f = 0; f < c->np; f++) b[r->na + f] = c->wpos[c->P[f]] < 0 ? 0 : cf_contact_row(c, c->P[f], d);
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
      double l = z[r->na + c->ppos[k]], w = c->pw[CF_QP_HMAX * k + c->wj[v]];
      for (int d = 0; d < 3; d++) f[d] += w * c->N[3 * k + d] * l;
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
 * than the multiplier tolerance below; two steps bring both to rounding.
 * Where the system is ill-conditioned (a sheet folded round a thin stick)
 * each step gains little: with at most 4 steps, 6 of the 265 hitting QPs of
 * test_contact_qp ended off Ipopt's solution, with 50 three (the steps are
 * two triangular solves each, no factorization). */
#define CF_CONTACT_REFINE 50
int cf_contact_solve_ws(cf_contact *c, const cf_proj_rows *r, cf_error *err) {
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

double cf_contact_row(const cf_contact *c, int k, const double *d) {
  return cf_qp_row_value(c->H[k], c->N + 3 * k, c->pn[k], c->pnode + CF_QP_HMAX * k, c->pw + CF_QP_HMAX * k, d);
}

void cf_contact_w_remove(cf_contact *c, int k) {
  int p = c->wpos[k], last = c->W[--c->nw];
  c->W[p] = last;
  c->wpos[last] = p;
  c->wpos[k] = -1;
}
