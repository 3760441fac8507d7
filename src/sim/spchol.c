/* spchol.c — fixed-pattern Cholesky of the projection matrix (see spchol.h).
 *
 * CHOLMOD factorizes A(p,p) + beta I.  Given A in the caller's order,
 * cholmod_factorize_p first builds the permuted matrix in the layout its
 * numeric routine reads (a transposed copy, allocated, at every call).
 * Here A is stored permuted from the start, in that very layout (the lower
 * triangle for a supernodal factor, the upper one for a simplicial factor),
 * and analysed in the natural ordering, so the numeric factorization reads
 * it as it is.  The ordering and the supernodes are those of the usual
 * analysis (the same fill-reducing order, the natural analysis of the
 * permuted pattern finds the same elimination tree and supernodes), so the
 * factor and the solutions are bitwise those of factorizing the caller's
 * matrix directly. */
#include "spchol.h"

#include "kernels.h"
#include "snfactor.h"
#include "team.h"

#include <stdlib.h>
#include <string.h>

struct cf_spchol {
  int n;
  int *pinv;         /* [n] caller's index -> permuted index */
  int lower;         /* A holds the lower triangle (supernodal factor) */
  cholmod_sparse *A; /* A(p,p), one triangle, natural order: the value array */
  cholmod_factor *L;
  cholmod_dense *B, *X, *Y, *E;
  double flops, lnz; /* of one factorization, from the analysis */
  float *Lf;         /* single-precision copy of L->x (cf_spchol_keep_single) */
  float *wf;         /* [n] the single-precision solve's vector */
  float *tf[2], *yf[2], *buf[2]; /* per part: [n] supernode vector, [n]
                        kernel scratch, [n - ct] contributions to the top */
  size_t mid, top;   /* parts: supernodes [0, mid), [mid, top); then
                        [top, nsuper), the top (mid = top = 0: no split) */
  int ct;            /* first column of the top */
  const cf_kernels *kern; /* its supernode kernels */
  float *dinv;       /* [n] inverses of L's diagonal */
  cf_snfactor *own;  /* the numeric factorization of snfactor.c (small
                        factors), NULL: CHOLMOD's */
};

static void free_single(cf_spchol *f) {
  free(f->Lf);
  free(f->wf);
  free(f->dinv);
  f->Lf = f->wf = f->dinv = NULL;
  for (int p = 0; p < 2; p++) {
    free(f->tf[p]);
    free(f->yf[p]);
    free(f->buf[p]);
    f->tf[p] = f->yf[p] = f->buf[p] = NULL;
  }
}

void cf_spchol_free(cf_spchol *f, cholmod_common *cc) {
  if (!f) return;
  if (f->A) cholmod_free_sparse(&f->A, cc);
  if (f->L) cholmod_free_factor(&f->L, cc);
  if (f->B) cholmod_free_dense(&f->B, cc);
  if (f->X) cholmod_free_dense(&f->X, cc);
  if (f->Y) cholmod_free_dense(&f->Y, cc);
  if (f->E) cholmod_free_dense(&f->E, cc);
  free(f->pinv);
  free_single(f);
  cf_snfactor_free(f->own);
  free(f);
}

/* Entry (a, b) of the caller's matrix as (row, column) of the stored
 * triangle of A(p,p). */
static void stored_at(const cf_spchol *f, int a, int b, int *row, int *col) {
  int i = f->pinv[a], j = f->pinv[b];
  int lo = i < j ? i : j, hi = i < j ? j : i;
  *row = f->lower ? hi : lo;
  *col = f->lower ? lo : hi;
}

/* The pattern of A(p,p) in the stored triangle, rows ascending. */
static cholmod_sparse *permuted(const cf_spchol *f, const cholmod_sparse *pattern,
                                cholmod_common *cc) {
  const int *Pp = pattern->p, *Pi = pattern->i;
  int n = f->n;
  cholmod_sparse *A = cholmod_allocate_sparse(n, n, (size_t)Pp[n], 1, 1, f->lower ? -1 : 1,
                                              CHOLMOD_REAL, cc);
  int *cnt = calloc((size_t)n + 1, sizeof(int));
  if (!A || !cnt) {
    if (A) cholmod_free_sparse(&A, cc);
    free(cnt);
    return NULL;
  }
  int *Ap = A->p, *Ai = A->i, row, col;
  for (int b = 0; b < n; b++)
    for (int k = Pp[b]; k < Pp[b + 1]; k++) {
      stored_at(f, Pi[k], b, &row, &col);
      cnt[col + 1]++;
    }
  for (int j = 0; j < n; j++) cnt[j + 1] += cnt[j];
  memcpy(Ap, cnt, sizeof(int) * ((size_t)n + 1));
  for (int b = 0; b < n; b++)
    for (int k = Pp[b]; k < Pp[b + 1]; k++) {
      stored_at(f, Pi[k], b, &row, &col);
      int q = cnt[col]++;
      while (q > Ap[col] && Ai[q - 1] > row) { /* insertion: columns are short */
        Ai[q] = Ai[q - 1];
        q--;
      }
      Ai[q] = row;
    }
  free(cnt);
  return A;
}

/* cholmod_analyze, supernodal when super is set (else CHOLMOD's choice). */
static cholmod_factor *analyze(cholmod_sparse *A, int super, cholmod_common *cc) {
  int supernodal = cc->supernodal;
  if (super) cc->supernodal = CHOLMOD_SUPERNODAL;
  cholmod_factor *L = cholmod_analyze(A, cc);
  cc->supernodal = supernodal;
  return L;
}

/* Analysis of the permuted pattern in the natural ordering; cc's ordering
 * settings are restored afterwards. */
static cholmod_factor *analyze_natural(cholmod_sparse *A, int super, cholmod_common *cc) {
  int nmethods = cc->nmethods, ordering = cc->method[0].ordering, postorder = cc->postorder;
  cc->nmethods = 1;
  cc->method[0].ordering = CHOLMOD_NATURAL;
  cc->postorder = 0; /* the fill-reducing order is postordered already */
  cholmod_factor *L = analyze(A, super, cc);
  cc->nmethods = nmethods;
  cc->method[0].ordering = ordering;
  cc->postorder = postorder;
  return L;
}

/* CHOLMOD's default analysis (AMD; METIS only when fl/lnz >= 500, which
 * these mesh-like patterns never reach), supernodal below
 * CF_SPCHOL_OWN_FLOPS, and for large factorizations
 * (>= CF_SPCHOL_NESDIS_FLOPS) also nested dissection, keeping whichever
 * factorization costs fewer flops.  Stores flops and nnz(L) of the kept
 * one. */
static cholmod_factor *analyze_best(const cf_spchol *f, cholmod_sparse *pattern, cholmod_common *cc,
                                    double *flops, double *lnz) {
  cholmod_factor *L = cholmod_analyze(pattern, cc);
  *flops = cc->fl;
  *lnz = cc->lnz;
  if (L && !L->is_super && *flops < CF_SPCHOL_OWN_FLOPS) {
    cholmod_free_factor(&L, cc);
    L = analyze(pattern, 1, cc);
    *flops = cc->fl;
    *lnz = cc->lnz;
  }
  if (!L || *flops < CF_SPCHOL_NESDIS_FLOPS || f->n < 2) return L;
  int nmethods = cc->nmethods, ordering = cc->method[0].ordering;
  cc->nmethods = 1;
  cc->method[0].ordering = CHOLMOD_NESDIS;
  cholmod_factor *L2 = cholmod_analyze(pattern, cc);
  cc->nmethods = nmethods;
  cc->method[0].ordering = ordering;
  if (L2 && cc->fl < *flops) {
    cholmod_free_factor(&L, cc);
    *flops = cc->fl;
    *lnz = cc->lnz;
    return L2;
  }
  if (L2) cholmod_free_factor(&L2, cc);
  return L;
}

/* The numeric factorization of snfactor.c: L's numeric part is allocated
 * by one CHOLMOD factorization (of the identity: A = 0, beta = 1).  From
 * then on the matrix is assembled in L's values (cf_spchol_values). */
static int own_numeric(cf_spchol *f, cholmod_common *cc) {
  double one[2] = {1, 0};
  memset(f->A->x, 0, sizeof(double) * cf_spchol_nvalues(f));
  if (!cholmod_factorize_p(f->A, one, NULL, 0, f->L, cc) || cc->status != CHOLMOD_OK) return 1;
  f->own = cf_snfactor_alloc(f->L);
  return f->own ? 0 : 1;
}

cf_spchol *cf_spchol_alloc(const cholmod_sparse *pattern, cholmod_common *cc) {
  cf_spchol *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->n = (int)pattern->nrow;
  f->pinv = malloc(sizeof(int) * ((size_t)f->n + 1));
  cholmod_factor *L0 = analyze_best(f, (cholmod_sparse *)pattern, cc, &f->flops, &f->lnz);
  int ok = f->pinv && L0;
  if (ok) {
    const int *perm = L0->Perm;
    for (int k = 0; k < f->n; k++) f->pinv[perm[k]] = k;
    f->lower = L0->is_super;
    f->A = permuted(f, pattern, cc);
    f->L = f->A ? analyze_natural(f->A, L0->is_super, cc) : NULL;
    f->B = cholmod_allocate_dense((size_t)f->n, 1, (size_t)f->n, CHOLMOD_REAL, cc);
    ok = f->A && f->L && f->B && f->L->is_super == L0->is_super;
    if (ok && f->L->is_super && f->flops < CF_SPCHOL_OWN_FLOPS) ok = own_numeric(f, cc) == 0;
  }
  if (L0) cholmod_free_factor(&L0, cc);
  if (!ok) {
    cf_spchol_free(f, cc);
    return NULL;
  }
  return f;
}

double *cf_spchol_values(cf_spchol *f) { return f->own ? f->L->x : f->A->x; }

double cf_spchol_flops(const cf_spchol *f) { return f->flops; }

double cf_spchol_solve_ratio(const cf_spchol *f) { return f->lnz > 0 ? f->flops / (4 * f->lnz) : 0; }

size_t cf_spchol_nvalues(const cf_spchol *f) {
  return f->own ? f->L->xsize : (size_t)((const int *)f->A->p)[f->n];
}

long cf_spchol_pos(const cf_spchol *f, int a, int b) {
  const int *Ap = f->A->p, *Ai = f->A->i;
  int row, col;
  stored_at(f, a, b, &row, &col);
  if (f->own) return cf_snfactor_pos(f->own, f->L, row, col);
  int lo = Ap[col], hi = Ap[col + 1];
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (Ai[mid] < row) lo = mid + 1;
    else hi = mid;
  }
  return lo < Ap[col + 1] && Ai[lo] == row ? lo : -1;
}

/* The single-precision copy of a new factor, and the inverses of its
 * diagonal (computed in double precision, then rounded). */
static void refresh_single(cf_spchol *f) {
  const cholmod_factor *L = f->L;
  const double *x = L->x;
  const int *super = L->super, *pi = L->pi, *px = L->px;
  for (size_t k = 0; k < L->xsize; k++) f->Lf[k] = (float)x[k];
  for (size_t s = 0; s < L->nsuper; s++) {
    int k1 = super[s], nsrow = pi[s + 1] - pi[s];
    for (int j = 0; j < super[s + 1] - k1; j++)
      f->dinv[k1 + j] = (float)(1.0 / x[px[s] + (size_t)j * nsrow + j]);
  }
}

int cf_spchol_factor(cf_spchol *f, double beta, cholmod_common *cc) {
  double b[2] = {beta, 0};
  if (f->own) {
    if (cf_snfactor_run(f->own, beta, f->L)) {
      cc->status = CHOLMOD_NOT_POSDEF;
      return 1;
    }
  } else if (!cholmod_factorize_p(f->A, b, NULL, 0, f->L, cc) || cc->status != CHOLMOD_OK ||
      f->L->minor < (size_t)f->n)
    return 1;
  if (f->Lf) refresh_single(f);
  return 0;
}

int cf_spchol_solve(cf_spchol *f, const double *b, double *x, cholmod_common *cc) {
  double *B = f->B->x;
  for (int a = 0; a < f->n; a++) B[f->pinv[a]] = b[a];
  if (f->own) {
    cf_snfactor_solve(f->own, f->L, B);
    for (int a = 0; a < f->n; a++) x[a] = B[f->pinv[a]];
    return 0;
  }
  if (!cholmod_solve2(CHOLMOD_A, f->L, f->B, NULL, &f->X, NULL, &f->Y, &f->E, cc)) return 1;
  const double *X = f->X->x;
  for (int a = 0; a < f->n; a++) x[a] = X[f->pinv[a]];
  return 0;
}

/* Entries of the supernodes' values (their share of a solve's work). */
static double sn_work(const cholmod_factor *L, size_t s) {
  const int *super = L->super, *pi = L->pi;
  return (double)(super[s + 1] - super[s]) * (double)(pi[s + 1] - pi[s]);
}

/* Cut the supernodal elimination tree into two independent parts for the
 * two threads of a solve: from the root down the chain of supernodes with
 * one child (the top separators), to the first with several children, whose
 * subtrees (consecutive ranges in the postorder) are split into two
 * ranges of about equal work.  No split (mid = top = 0) when the parts
 * would be unbalanced (< 25 % of the work each). */
static int find_split(cf_spchol *f) {
  const cholmod_factor *L = f->L;
  const int *super = L->super, *pi = L->pi, *Ls = L->s;
  size_t ns = L->nsuper;
  int *col_sn = malloc(sizeof(int) * ((size_t)f->n + 1));
  int *parent = malloc(sizeof(int) * (ns + 1)), *nchild = calloc(ns + 1, sizeof(int));
  double *sub = calloc(ns + 1, sizeof(double)); /* work of each subtree; [ns]: virtual root */
  if (!col_sn || !parent || !nchild || !sub) {
    free(col_sn);
    free(parent);
    free(nchild);
    free(sub);
    return 1;
  }
  for (size_t s = 0; s < ns; s++)
    for (int k = super[s]; k < super[s + 1]; k++) col_sn[k] = (int)s;
  for (size_t s = 0; s < ns; s++) {
    int nscol = super[s + 1] - super[s], nsrow = pi[s + 1] - pi[s];
    parent[s] = nsrow > nscol ? col_sn[Ls[pi[s] + nscol]] : (int)ns;
    nchild[parent[s]]++;
    sub[s] += sn_work(L, s);
    sub[parent[s]] += sub[s];
  }
  size_t cur = ns; /* the virtual root, then down the one-child chain */
  while (nchild[cur] == 1) {
    size_t c = cur == ns ? ns - 1 : cur - 1; /* the only child precedes its parent */
    cur = c;
  }
  f->mid = f->top = 0;
  f->ct = f->n;
  if (nchild[cur] >= 2) {
    /* descendants of cur: supernodes [0, cur); children's subtrees end at
     * each child; cut at the child boundary nearest half the work */
    double total = 0, acc = 0, best = -1;
    size_t cut = 0;
    for (size_t s = 0; s < cur; s++)
      if ((size_t)parent[s] == cur) total += sub[s];
    for (size_t s = 0; s < cur; s++)
      if ((size_t)parent[s] == cur) {
        acc += sub[s];
        double bal = acc < total - acc ? acc : total - acc;
        if (bal > best) {
          best = bal;
          cut = s + 1;
        }
      }
    int ok = best >= 0.25 * total && cut < cur; /* and every parent where the parts need it */
    for (size_t s = 0; s < cur && ok; s++)
      ok = (size_t)parent[s] > s && (s < cut ? (size_t)parent[s] < cut || (size_t)parent[s] >= cur
                                             : (size_t)parent[s] >= cut);
    if (ok) {
      f->mid = cut;
      f->top = cur;
      f->ct = cur < ns ? super[cur] : f->n;
    }
  }
  free(col_sn);
  free(parent);
  free(nchild);
  free(sub);
  return 0;
}

int cf_spchol_keep_single(cf_spchol *f) {
  if (f->Lf) return 0;
  if (!f->L->is_super) return 1;
  size_t n1 = (size_t)f->n + 1;
  f->Lf = malloc(sizeof(float) * (f->L->xsize + 1));
  f->dinv = malloc(sizeof(float) * n1);
  f->wf = malloc(sizeof(float) * n1);
  int ok = f->Lf && f->dinv && f->wf && find_split(f) == 0;
  for (int p = 0; p < 2 && ok; p++) {
    f->tf[p] = malloc(sizeof(float) * n1);
    f->yf[p] = malloc(sizeof(float) * n1);
    f->buf[p] = malloc(sizeof(float) * (n1 - (size_t)f->ct));
    ok = f->tf[p] && f->yf[p] && f->buf[p];
  }
  f->kern = cf_kernels_get();
  if (ok) return 0;
  free_single(f);
  return 1;
}

/* L w = w over the supernodes [s0, s1) in order (CHOLMOD's layout:
 * supernode s has columns super[s] .. super[s+1]-1, its rows Ls[pi[s] ..]
 * with the diagonal block first, its values column-major from px[s],
 * leading dimension the number of rows); the analysis is in the natural
 * order, so no permutation inside the factor.  Contributions to rows >= ct
 * go to top[row - ct] (NULL: into w). */
static void forward_range(const cf_spchol *f, size_t s0, size_t s1, float *w, int p, float *top) {
  const cholmod_factor *L = f->L;
  const int *super = L->super, *pi = L->pi, *px = L->px, *Ls = L->s;
  float *u = f->tf[p];
  int ct = top ? f->ct : f->n;
  for (size_t s = s0; s < s1; s++) {
    int k1 = super[s], nscol = super[s + 1] - k1, nsrow = pi[s + 1] - pi[s];
    const int *rows = Ls + pi[s];
    memcpy(u, w + k1, sizeof(float) * (size_t)nscol);
    memset(u + nscol, 0, sizeof(float) * (size_t)(nsrow - nscol));
    f->kern->sn_forward(f->Lf + px[s], f->dinv + k1, nsrow, nscol, u);
    memcpy(w + k1, u, sizeof(float) * (size_t)nscol);
    for (int i = nscol; i < nsrow; i++) {
      if (rows[i] < ct) w[rows[i]] += u[i];
      else top[rows[i] - ct] += u[i];
    }
  }
}

/* L^T w = w over the supernodes [s0, s1) in reverse order. */
static void backward_range(const cf_spchol *f, size_t s0, size_t s1, float *w, int p) {
  const cholmod_factor *L = f->L;
  const int *super = L->super, *pi = L->pi, *px = L->px, *Ls = L->s;
  float *u = f->tf[p];
  for (size_t s = s1; s-- > s0;) {
    int k1 = super[s], nscol = super[s + 1] - k1, nsrow = pi[s + 1] - pi[s];
    const int *rows = Ls + pi[s];
    memcpy(u, w + k1, sizeof(float) * (size_t)nscol);
    for (int i = nscol; i < nsrow; i++) u[i] = w[rows[i]];
    f->kern->sn_backward(f->Lf + px[s], f->dinv + k1, nsrow, nscol, u, f->yf[p]);
    memcpy(w + k1, u, sizeof(float) * (size_t)nscol);
  }
}

static void forward_part(void *arg, int p) {
  cf_spchol *f = arg;
  memset(f->buf[p], 0, sizeof(float) * (size_t)(f->n - f->ct));
  forward_range(f, p ? f->mid : 0, p ? f->top : f->mid, f->wf, p, f->buf[p]);
}

static void backward_part(void *arg, int p) {
  cf_spchol *f = arg;
  backward_range(f, p ? f->mid : 0, p ? f->top : f->mid, f->wf, p);
}

int cf_spchol_single_parts(const cf_spchol *f) { return f->top > 0 ? 2 : 1; }

/* With a split: the two parts (concurrently with a team), their
 * contributions to the top added in part order, the top; backwards the
 * top, then the parts. */
void cf_spchol_solve_single(cf_spchol *f, const double *b, double *x, cf_team *team) {
  float *w = f->wf;
  size_t ns = f->L->nsuper;
  for (int a = 0; a < f->n; a++) w[f->pinv[a]] = (float)b[a];
  if (f->top > 0) {
    cf_team_run(team, forward_part, f);
    for (int p = 0; p < 2; p++)
      for (int i = 0; i < f->n - f->ct; i++) w[f->ct + i] += f->buf[p][i];
  }
  forward_range(f, f->top, ns, w, 0, NULL);
  backward_range(f, f->top, ns, w, 0);
  if (f->top > 0) cf_team_run(team, backward_part, f);
  for (int a = 0; a < f->n; a++) x[a] = w[f->pinv[a]];
}
