/* snfactor.c — the numeric supernodal Cholesky factorization of small
 * projection matrices (see snfactor.h).
 *
 * Left-looking, supernode after supernode, in CHOLMOD's supernodal layout:
 *   1. the caller has assembled A into L's values (cf_snfactor_pos), and
 *      beta is added to the supernode's diagonal;
 *   2. every descendant d whose rows meet the supernode's columns subtracts
 *      L_d(R, :) L_d(W, :)^T (W: those rows, R: W and every row below) into
 *      a workspace that is scattered into the block (the rows' positions in
 *      the block listed once, at alloc);
 *   3. the block is factored as a panel: four columns at a time, each first
 *      updated by the block's earlier columns, then factored column by
 *      column (the diagonal block's Cholesky factor and, below it, the rows
 *      times its inverse transposed, as dpotrf + dtrsm would).
 * Steps 2 and 3 run on kernels.c's syrk_sub.
 *
 * Measured (AMD EPYC, 2 cores, OpenBLAS 0.3.21 with its
 * Cooperlake kernels): on the 7x9 A2 projection matrix (n 137, 7 supernodes,
 * the root 76 x 76, 0.22 Mflop) CHOLMOD's supernodal factorization was a
 * third of a simulation step (perf), mostly in OpenBLAS's dpotrf (whose
 * unblocked dpotf2 calls ddot/dgemv per column), dsyrk, dgemm and dtrsm with
 * their packing; a dense 76 x 76 Cholesky took 17.4 us with dpotrf, 12.7 us
 * with this file's panel factorization.  On the 5x7 A3 matrix (n 69,
 * 0.036 Mflop) CHOLMOD chose a simplicial factorization, half of a step
 * there.  Per simulation: spchol.h. */
#include "snfactor.h"

#include "kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int d;      /* the descendant supernode */
  int p1, p2; /* its row positions (from pi[d]) in the target's columns */
  int rel;    /* rel[rel ..]: where its rows from p1 on lie in the target */
} sn_update;

struct cf_snfactor {
  int n;
  size_t nsuper;
  int *col_sn;     /* [n] the supernode of each column */
  int *upd_ptr;    /* [nsuper + 1] the updates of supernode s: upd[upd_ptr[s] ..] */
  sn_update *upd;  /* in ascending order of d */
  int *rel;        /* the updates' row positions in their targets */
  double *work;    /* the largest update's m x w */
  double *dinv;    /* [n] inverses of L's diagonal */
  double *u, *y;   /* [n] the solves' supernode vector and scratch */
  const cf_kernels *kern;
};

void cf_snfactor_free(cf_snfactor *w) {
  if (!w) return;
  free(w->col_sn);
  free(w->upd_ptr);
  free(w->upd);
  free(w->rel);
  free(w->work);
  free(w->dinv);
  free(w->u);
  free(w->y);
  free(w);
}

/* The updates: every run of a supernode's off-diagonal rows that falls into
 * the columns of one later supernode.  Counted (fill = 0: the number of
 * updates, and in *nrel the rows they scatter), then stored. */
static size_t list_updates(cf_snfactor *w, const cholmod_factor *L, int fill, size_t *work, size_t *nrel) {
  const int *super = L->super, *pi = L->pi, *Ls = L->s;
  size_t count = 0;
  *nrel = 0;
  for (size_t d = 0; d < w->nsuper; d++) {
    int nscol = super[d + 1] - super[d], nsrow = pi[d + 1] - pi[d];
    for (int p1 = nscol, p2; p1 < nsrow; p1 = p2) {
      int s = w->col_sn[Ls[pi[d] + p1]];
      for (p2 = p1 + 1; p2 < nsrow && w->col_sn[Ls[pi[d] + p2]] == s;) p2++;
      size_t mw = (size_t)(nsrow - p1) * (size_t)(p2 - p1);
      if (mw > *work) *work = mw;
      if (fill) w->upd[w->upd_ptr[s + 1]++] = (sn_update){(int)d, p1, p2, (int)*nrel};
      else w->upd_ptr[s + 1]++;
      *nrel += (size_t)(nsrow - p1);
      count++;
    }
  }
  return count;
}

/* The position of each update's rows in its target's row list. */
static void relative_rows(cf_snfactor *w, const cholmod_factor *L, int *map) {
  const int *pi = L->pi, *Ls = L->s;
  for (size_t s = 0; s < w->nsuper; s++) {
    for (int r = 0; r < pi[s + 1] - pi[s]; r++) map[Ls[pi[s] + r]] = r;
    for (int q = w->upd_ptr[s]; q < w->upd_ptr[s + 1]; q++) {
      const sn_update *u = &w->upd[q];
      const int *rows = Ls + pi[u->d];
      for (int i = u->p1; i < pi[u->d + 1] - pi[u->d]; i++) w->rel[u->rel + i - u->p1] = map[rows[i]];
    }
  }
}

/* The update lists: counted, offsets, filled (upd_ptr[s + 1] walks from
 * the start of s's list to its end), and their rows' positions. */
static int plan_updates(cf_snfactor *w, const cholmod_factor *L) {
  size_t work = 1, nrel;
  size_t count = list_updates(w, L, 0, &work, &nrel);
  for (size_t s = 0; s < w->nsuper; s++) w->upd_ptr[s + 1] += w->upd_ptr[s];
  memmove(w->upd_ptr + 1, w->upd_ptr, sizeof(int) * w->nsuper);
  w->upd_ptr[0] = 0;
  w->upd = malloc(sizeof(sn_update) * (count + 1));
  w->rel = malloc(sizeof(int) * (nrel + 1));
  w->work = malloc(sizeof(double) * work);
  int *map = malloc(sizeof(int) * ((size_t)w->n + 1));
  int ok = w->upd && w->rel && w->work && map;
  if (ok) {
    list_updates(w, L, 1, &work, &nrel);
    relative_rows(w, L, map);
  }
  free(map);
  return ok ? 0 : 1;
}

cf_snfactor *cf_snfactor_alloc(const cholmod_factor *L) {
  if (!L->is_super) return NULL;
  cf_snfactor *w = calloc(1, sizeof *w);
  if (!w) return NULL;
  w->n = (int)L->n;
  w->nsuper = L->nsuper;
  w->kern = cf_kernels_get();
  const int *super = L->super;
  size_t n1 = (size_t)w->n + 1;
  w->col_sn = malloc(sizeof(int) * n1);
  w->upd_ptr = calloc(w->nsuper + 2, sizeof(int));
  w->dinv = malloc(sizeof(double) * n1);
  w->u = malloc(sizeof(double) * n1);
  w->y = malloc(sizeof(double) * n1);
  int ok = w->col_sn && w->upd_ptr && w->dinv && w->u && w->y;
  if (ok) {
    for (size_t s = 0; s < w->nsuper; s++)
      for (int k = super[s]; k < super[s + 1]; k++) w->col_sn[k] = (int)s;
    ok = plan_updates(w, L) == 0;
  }
  if (!ok) {
    cf_snfactor_free(w);
    return NULL;
  }
  return w;
}

long cf_snfactor_pos(const cf_snfactor *w, const cholmod_factor *L, int row, int col) {
  if (row < col || col < 0 || row >= w->n) return -1;
  const int *super = L->super, *pi = L->pi, *px = L->px, *Ls = L->s;
  int s = w->col_sn[col], lo = pi[s], hi = pi[s + 1];
  while (lo < hi) { /* a supernode's rows ascend */
    int mid = (lo + hi) / 2;
    if (Ls[mid] < row) lo = mid + 1;
    else hi = mid;
  }
  if (lo == pi[s + 1] || Ls[lo] != row) return -1;
  return px[s] + (long)(col - super[s]) * (pi[s + 1] - pi[s]) + (lo - pi[s]);
}

/* Step 2: the update u into its target's block X (leading dimension ld). */
static void apply_update(cf_snfactor *w, const cholmod_factor *L, const sn_update *u, int ld, double *X) {
  const int *super = L->super, *pi = L->pi, *px = L->px;
  int d = u->d, nscol = super[d + 1] - super[d], nsrow = pi[d + 1] - pi[d];
  int m = nsrow - u->p1, wd = u->p2 - u->p1;
  const int *rel = w->rel + u->rel;
  const double *Y = (const double *)L->x + px[d] + u->p1;
  memset(w->work, 0, sizeof(double) * (size_t)m * (size_t)wd);
  w->kern->syrk_sub(Y, nsrow, nscol, m, wd, w->work, m);
  for (int c = 0; c < wd; c++) {
    double *col = X + (size_t)rel[c] * ld; /* the target's columns lead its rows */
    const double *src = w->work + (size_t)c * m;
    for (int i = c; i < m; i++) col[rel[i]] += src[i];
  }
}

/* Step 3: the panel X (nsrow x nscol, leading dimension nsrow); dinv: the
 * inverses of its pivots.  Returns the first column whose pivot is not
 * positive, or -1. */
static int factor_panel(const cf_kernels *kern, double *X, int nsrow, int nscol, double *dinv) {
  size_t ld = (size_t)nsrow;
  for (int j = 0; j < nscol; j += 4) {
    int wd = nscol - j < 4 ? nscol - j : 4;
    kern->syrk_sub(X + j, nsrow, j, nsrow - j, wd, X + j + j * ld, nsrow);
    for (int c = j; c < j + wd; c++) {
      double *col = X + c * ld;
      for (int p = j; p < c; p++) {
        const double *cp = X + p * ld;
        double b = cp[c];
        for (int i = c; i < nsrow; i++) col[i] -= cp[i] * b;
      }
      double piv = col[c];
      if (!(piv > 0)) return c;
      piv = sqrt(piv);
      col[c] = piv;
      double r = 1 / piv;
      dinv[c] = r;
      for (int i = c + 1; i < nsrow; i++) col[i] *= r;
    }
  }
  for (int j = 0; j < nscol; j += 4) /* syrk_sub's share of the upper triangle */
    for (int c = j + 1; c < j + 4 && c < nscol; c++) memset(X + j + c * ld, 0, sizeof(double) * (size_t)(c - j));
  return -1;
}

int cf_snfactor_run(cf_snfactor *w, double beta, cholmod_factor *L) {
  const int *super = L->super, *pi = L->pi, *px = L->px;
  double *Lx = L->x;
  for (size_t s = 0; s < w->nsuper; s++) {
    int k1 = super[s], nscol = super[s + 1] - k1, nsrow = pi[s + 1] - pi[s];
    double *X = Lx + px[s];
    for (int j = 0; j < nscol; j++) X[(size_t)j * nsrow + j] += beta;
    for (int q = w->upd_ptr[s]; q < w->upd_ptr[s + 1]; q++) apply_update(w, L, &w->upd[q], nsrow, X);
    int bad = factor_panel(w->kern, X, nsrow, nscol, w->dinv + k1);
    if (bad >= 0) {
      L->minor = (size_t)(k1 + bad);
      return 1;
    }
  }
  L->minor = L->n;
  return 0;
}

/* The supernodes' blocks as CHOLMOD's supernodal solve reads them, each
 * with kernels.c's sn_forward_d / sn_backward_d. */
void cf_snfactor_solve(cf_snfactor *w, const cholmod_factor *L, double *x) {
  const int *super = L->super, *pi = L->pi, *px = L->px, *Ls = L->s;
  const double *Lx = L->x;
  double *u = w->u;
  for (size_t s = 0; s < w->nsuper; s++) { /* L x = x */
    int k1 = super[s], nscol = super[s + 1] - k1, nsrow = pi[s + 1] - pi[s];
    const int *rows = Ls + pi[s];
    memcpy(u, x + k1, sizeof(double) * (size_t)nscol);
    memset(u + nscol, 0, sizeof(double) * (size_t)(nsrow - nscol));
    w->kern->sn_forward_d(Lx + px[s], w->dinv + k1, nsrow, nscol, u);
    memcpy(x + k1, u, sizeof(double) * (size_t)nscol);
    for (int i = nscol; i < nsrow; i++) x[rows[i]] += u[i];
  }
  for (size_t s = w->nsuper; s-- > 0;) { /* L^T x = x */
    int k1 = super[s], nscol = super[s + 1] - k1, nsrow = pi[s + 1] - pi[s];
    const int *rows = Ls + pi[s];
    memcpy(u, x + k1, sizeof(double) * (size_t)nscol);
    for (int i = nscol; i < nsrow; i++) u[i] = x[rows[i]];
    w->kern->sn_backward_d(Lx + px[s], w->dinv + k1, nsrow, nscol, u, w->y);
    memcpy(x + k1, u, sizeof(double) * (size_t)nscol);
  }
}
