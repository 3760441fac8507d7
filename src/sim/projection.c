/* projection.c — fast projection with CHOLMOD (see projection.h). */
#include "projection.h"

#include <cholmod.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One term of A_ab = 4 sum_i G_ai . G_bi / m_i: slots index model->nodes. */
typedef struct { int pos, sa, sb; } contrib;

struct cf_proj {
  const cf_model *md;
  int na;            /* active rows */
  int *rows;         /* [na] model row of active row a */
  double *invm;      /* [n] */
  int *slot_row;     /* [n_slots] active row of each slot, -1 if inactive */
  double *G;         /* [n_slots*3] half gradients */
  double *C;         /* [na] */
  int *node_ptr;     /* [n+1] slots grouped by node (free nodes only) */
  int *node_slot;
  int *cptr;         /* [n+1] contributions grouped by node */
  contrib *con;
  cholmod_common cc;
  cholmod_sparse *A;
  cholmod_factor *L;
  cholmod_dense *B, *X, *Y, *E;
  double *xb;        /* [3n] iterate before the last update (for undo) */
  double merit;      /* sum of squared violations at the last eval */
  double mu;         /* Levenberg-Marquardt shift, relative to mean diag A */
  int have_factor;
};

static int cmp_u64(const void *p, const void *q) {
  uint64_t a = *(const uint64_t *)p, b = *(const uint64_t *)q;
  return (a > b) - (a < b);
}

/* Slots of every free node, grouped by node. */
static int group_slots(cf_proj *p) {
  const cf_model *md = p->md;
  int n = md->n, ns = md->row_ptr[md->nrows];
  p->node_ptr = calloc((size_t)n + 1, sizeof(int));
  p->node_slot = malloc(sizeof(int) * (size_t)(ns + 1));
  if (!p->node_ptr || !p->node_slot) return CF_ENOMEM;
  for (int s = 0; s < ns; s++)
    if (p->slot_row[s] >= 0 && p->invm[md->nodes[s]] > 0) p->node_ptr[md->nodes[s] + 1]++;
  for (int i = 0; i < n; i++) p->node_ptr[i + 1] += p->node_ptr[i];
  int *fill = malloc(sizeof(int) * (size_t)n);
  if (!fill) return CF_ENOMEM;
  memcpy(fill, p->node_ptr, sizeof(int) * (size_t)n);
  for (int s = 0; s < ns; s++)
    if (p->slot_row[s] >= 0 && p->invm[md->nodes[s]] > 0) p->node_slot[fill[md->nodes[s]]++] = s;
  free(fill);
  return CF_OK;
}

/* Pattern of A (upper triangle, CSC) and the contribution list. */
static int build_pattern(cf_proj *p) {
  const cf_model *md = p->md;
  int n = md->n;
  size_t nc = 0;
  for (int i = 0; i < n; i++) {
    size_t d = (size_t)(p->node_ptr[i + 1] - p->node_ptr[i]);
    nc += d * (d + 1) / 2;
  }
  uint64_t *key = malloc(sizeof(uint64_t) * (nc + (size_t)p->na + 1));
  p->con = malloc(sizeof(contrib) * (nc + 1));
  p->cptr = malloc(sizeof(int) * ((size_t)n + 1));
  if (!key || !p->con || !p->cptr) {
    free(key);
    return CF_ENOMEM;
  }
  size_t q = 0;
  p->cptr[0] = 0;
  for (int i = 0; i < n; i++) {
    for (int u = p->node_ptr[i]; u < p->node_ptr[i + 1]; u++)
      for (int w = u; w < p->node_ptr[i + 1]; w++) {
        int a = p->slot_row[p->node_slot[u]], b = p->slot_row[p->node_slot[w]];
        int sa = p->node_slot[u], sb = p->node_slot[w];
        if (a > b) { int t = a; a = b; b = t; }
        p->con[q] = (contrib){0, sa, sb};
        key[q++] = ((uint64_t)b << 32) | (uint64_t)a;
      }
    p->cptr[i + 1] = (int)q;
  }
  for (int a = 0; a < p->na; a++) key[nc + a] = ((uint64_t)a << 32) | (uint64_t)a; /* diagonal */
  size_t nk = nc + p->na;
  uint64_t *sorted = malloc(sizeof(uint64_t) * (nk + 1));
  if (!sorted) {
    free(key);
    return CF_ENOMEM;
  }
  memcpy(sorted, key, sizeof(uint64_t) * nk);
  qsort(sorted, nk, sizeof(uint64_t), cmp_u64);
  size_t nz = 0;
  for (size_t k = 0; k < nk; k++)
    if (nz == 0 || sorted[nz - 1] != sorted[k]) sorted[nz++] = sorted[k];
  p->A = cholmod_allocate_sparse(p->na, p->na, nz, 1, 1, 1, CHOLMOD_REAL, &p->cc);
  if (!p->A) {
    free(key);
    free(sorted);
    return CF_ENOMEM;
  }
  int *Ap = p->A->p, *Ai = p->A->i;
  memset(Ap, 0, sizeof(int) * ((size_t)p->na + 1));
  for (size_t k = 0; k < nz; k++) {
    Ap[(sorted[k] >> 32) + 1]++;
    Ai[k] = (int)(sorted[k] & 0xffffffffu);
  }
  for (int b = 0; b < p->na; b++) Ap[b + 1] += Ap[b];
  for (size_t k = 0; k < nc; k++) {
    /* position of key[k] by binary search in the sorted unique keys */
    size_t lo = 0, hi = nz;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (sorted[mid] < key[k]) lo = mid + 1; else hi = mid;
    }
    p->con[k].pos = (int)lo;
  }
  free(key);
  free(sorted);
  return CF_OK;
}

static void proj_destroy(cf_proj *p) {
  if (p->L) cholmod_free_factor(&p->L, &p->cc);
  if (p->A) cholmod_free_sparse(&p->A, &p->cc);
  if (p->B) cholmod_free_dense(&p->B, &p->cc);
  if (p->X) cholmod_free_dense(&p->X, &p->cc);
  if (p->Y) cholmod_free_dense(&p->Y, &p->cc);
  if (p->E) cholmod_free_dense(&p->E, &p->cc);
  cholmod_finish(&p->cc);
}

void cf_proj_free(cf_proj *p) {
  if (!p) return;
  proj_destroy(p);
  free(p->rows);
  free(p->invm);
  free(p->slot_row);
  free(p->G);
  free(p->C);
  free(p->node_ptr);
  free(p->node_slot);
  free(p->cptr);
  free(p->con);
  free(p->xb);
  free(p);
}

static int select_rows(cf_proj *p) {
  const cf_model *md = p->md;
  int ns = md->row_ptr[md->nrows];
  p->rows = malloc(sizeof(int) * ((size_t)md->nrows + 1));
  p->slot_row = malloc(sizeof(int) * ((size_t)ns + 1));
  p->G = malloc(sizeof(double) * 3 * ((size_t)ns + 1));
  p->C = malloc(sizeof(double) * ((size_t)md->nrows + 1));
  if (!p->rows || !p->slot_row || !p->G || !p->C) return CF_ENOMEM;
  p->na = 0;
  for (int r = 0; r < md->nrows; r++) {
    int free_node = 0;
    for (int s = md->row_ptr[r]; s < md->row_ptr[r + 1]; s++) free_node |= p->invm[md->nodes[s]] > 0;
    int a = free_node ? p->na++ : -1;
    if (free_node) p->rows[a] = r;
    for (int s = md->row_ptr[r]; s < md->row_ptr[r + 1]; s++) p->slot_row[s] = a;
  }
  return CF_OK;
}

cf_proj *cf_proj_alloc(const cf_model *md, const double *invm, cf_error *err) {
  cf_proj *p = calloc(1, sizeof *p);
  if (!p) {
    cf_error_set(err, CF_ENOMEM, "projection: out of memory");
    return NULL;
  }
  p->md = md;
  cholmod_start(&p->cc);
  p->cc.print = 0;
  p->cc.error_handler = NULL;
  p->invm = malloc(sizeof(double) * md->n);
  p->xb = malloc(sizeof(double) * 3 * md->n);
  int rc = p->invm && p->xb ? CF_OK : CF_ENOMEM;
  if (rc == CF_OK) {
    memcpy(p->invm, invm, sizeof(double) * md->n);
    rc = select_rows(p);
  }
  if (rc == CF_OK) rc = group_slots(p);
  if (rc == CF_OK && p->na > 0) rc = build_pattern(p);
  if (rc == CF_OK && p->na > 0) {
    p->L = cholmod_analyze(p->A, &p->cc);
    p->B = cholmod_allocate_dense(p->na, 1, p->na, CHOLMOD_REAL, &p->cc);
    if (!p->L || !p->B) rc = CF_ESOLVER;
  }
  if (rc != CF_OK) {
    cf_error_set(err, rc, "projection: %s while setting up J M^-1 J^T (%d rows)",
                 rc == CF_ENOMEM ? "out of memory" : "symbolic analysis failed", p->na);
    cf_proj_free(p);
    return NULL;
  }
  return p;
}

void cf_proj_invalidate(cf_proj *p) { p->have_factor = 0; }

/* Half gradients and C of all active rows; returns max relative violation
 * and stores the sum of squared violations (the merit function
 * that Newton/Levenberg-Marquardt steps decrease) in p->merit. */
static double eval_rows(cf_proj *p, const double *x) {
  const cf_model *md = p->md;
  double v = 0, m2 = 0;
  for (int a = 0; a < p->na; a++) {
    int r = p->rows[a];
    double c = cf_model_row_half_grad(md, r, x, p->G + 3 * md->row_ptr[r]) - md->c0[r];
    p->C[a] = c;
    double q = fabs(c) / md->scale[r];
    if (!(q <= v)) v = q;
    m2 += c * c;
  }
  p->merit = m2;
  return v;
}

static int factorize(cf_proj *p, cf_error *err) {
  double *Ax = p->A->x;
  const int *Ap = p->A->p;
  memset(Ax, 0, sizeof(double) * (size_t)Ap[p->na]);
  const double *G = p->G;
  for (int i = 0; i < p->md->n; i++) {
    double w = 4 * p->invm[i];
    for (int k = p->cptr[i]; k < p->cptr[i + 1]; k++) {
      const double *ga = G + 3 * p->con[k].sa, *gb = G + 3 * p->con[k].sb;
      Ax[p->con[k].pos] += w * (ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2]);
    }
  }
  /* Tikhonov shift: J M^-1 J^T is singular on planar states (SPEC §4). */
  double tr = 0;
  const int *Ai = p->A->i;
  for (int b = 0; b < p->na; b++) tr += Ax[Ap[b + 1] - 1] * (Ai[Ap[b + 1] - 1] == b);
  double beta[2] = {(1e-9 + p->mu) * tr / p->na, 0};
  if (!cholmod_factorize_p(p->A, beta, NULL, 0, p->L, &p->cc) || p->cc.status != CHOLMOD_OK ||
      p->L->minor < (size_t)p->na)
    return cf_error_set(err, CF_ESOLVER, "projection: CHOLMOD factorization failed (status %d)",
                        p->cc.status);
  p->have_factor = 1;
  return CF_OK;
}

/* x -= M^-1 J^T dl, J = 2G. */
static void apply_update(cf_proj *p, double *x, const double *dl) {
  const cf_model *md = p->md;
  for (int i = 0; i < md->n; i++) {
    if (p->node_ptr[i] == p->node_ptr[i + 1]) continue;
    double dx = 0, dy = 0, dz = 0;
    for (int u = p->node_ptr[i]; u < p->node_ptr[i + 1]; u++) {
      int s = p->node_slot[u];
      double l = dl[p->slot_row[s]];
      dx += p->G[3 * s] * l;
      dy += p->G[3 * s + 1] * l;
      dz += p->G[3 * s + 2] * l;
    }
    double w = 2 * p->invm[i];
    x[3 * i] -= w * dx;
    x[3 * i + 1] -= w * dy;
    x[3 * i + 2] -= w * dz;
  }
}

enum { NO_UPDATE, CHORD_UPDATE, FRESH_UPDATE };

/* Decide whether the last update is kept and whether to refactor.
 * - An update that did not lower the violation is undone.  If it used a
 *   stale factor (chord), refactoring is enough; if the factor was fresh,
 *   Newton itself overshot: near planar states J M^-1 J^T is nearly singular
 *   and its small eigenvalues send nodes far out of the plane, so the
 *   Levenberg-Marquardt shift mu is raised (x10) before refactoring.
 * - A chord update that cut the violation by less than 4x triggers a refactor.
 * Returns 1 if a new factorization is needed. */
static int judge_update(cf_proj *p, double *x, int last, double *v, double prev,
                        double prev_merit) {
  if (last != NO_UPDATE && !(p->merit < prev_merit)) {
    memcpy(x, p->xb, sizeof(double) * 3 * (size_t)p->md->n);
    *v = eval_rows(p, x);
    if (last == FRESH_UPDATE) p->mu = p->mu > 0 ? 10 * p->mu : 1e-6;
    return 1;
  }
  if (last == FRESH_UPDATE && p->mu > 0) p->mu = p->mu < 1e-8 ? 0 : 0.5 * p->mu;
  if (last == CHORD_UPDATE && !(*v <= 0.25 * prev)) return 1;
  return !p->have_factor;
}

int cf_proj_solve(cf_proj *p, double *x, double tol, int max_iter, int reuse,
                  cf_proj_result *res, cf_error *err) {
  res->iterations = res->factorizations = 0;
  res->violation = 0;
  if (p->na == 0) return CF_OK;
  if (p->mu > 0) { /* relax the damping of earlier steps */
    p->mu = p->mu < 1e-8 ? 0 : p->mu * 0.1;
    p->have_factor = 0;
  }
  double prev = INFINITY, prev_merit = INFINITY;
  int last = NO_UPDATE;
  for (;;) {
    double v = eval_rows(p, x);
    int refactor = judge_update(p, x, last, &v, prev, prev_merit) || !reuse;
    res->violation = v;
    if (!isfinite(v))
      return cf_error_set(err, CF_ENONFINITE, "projection: non-finite constraint value");
    if (v <= tol) return CF_OK;
    if (res->iterations >= max_iter || p->mu > 1e6)
      return cf_error_set(err, CF_ENOCONV,
                          "projection: no convergence in %d iterations (violation %.3g > tol %.3g)",
                          res->iterations, v, tol);
    if (refactor) {
      int rc = factorize(p, err);
      if (rc) return rc;
      res->factorizations++;
    }
    memcpy(p->xb, x, sizeof(double) * 3 * (size_t)p->md->n);
    memcpy(p->B->x, p->C, sizeof(double) * p->na);
    if (!cholmod_solve2(CHOLMOD_A, p->L, p->B, NULL, &p->X, NULL, &p->Y, &p->E, &p->cc))
      return cf_error_set(err, CF_ESOLVER, "projection: CHOLMOD solve failed");
    apply_update(p, x, p->X->x);
    res->iterations++;
    last = refactor ? FRESH_UPDATE : CHORD_UPDATE;
    prev = v;
    prev_merit = p->merit;
  }
}
