/* test_spchol.c — the fixed-pattern Cholesky factorization of the
 * projection (src/sim/spchol.c, the matrix stored permuted) and the
 * kernels of src/sim/kernels.c:
 * - A x = b is solved to rounding accuracy for random SPD matrices with the
 *   pattern of a 9-point stencil on grids from 1 x 1 to 90 x 90 (simplicial
 *   and supernodal factors), with the Tikhonov shift beta added to the
 *   diagonal, twice with the same analysis;
 * - the single-precision copy of supernodal factors (the preconditioner of
 *   large meshes) solves the same systems to float accuracy;
 * - the supernode kernels of that solve match a plain double-precision
 *   triangular solve to float accuracy;
 * - the numeric supernodal factorization of small matrices (snfactor.c)
 *   gives CHOLMOD's factor to rounding on the same analysis, supernode
 *   layout included, and names the column of a non-positive pivot as
 *   CHOLMOD does;
 * - the baseline (SSE2) and AVX2 kernels give bitwise the same results
 *   (kernels.h), when this machine has AVX2. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "snfactor.h"
#include "spchol.h"
#include "testutil.h"

static unsigned long long rng = 0x2545F4914F6CDD1DULL;

/* Upper triangle of the 9-point stencil on an nx x ny grid (CSC). */
static cholmod_sparse *stencil(int nx, int ny, cholmod_common *cc) {
  int n = nx * ny;
  cholmod_sparse *P = cholmod_allocate_sparse(n, n, 5 * (size_t)n, 1, 1, 1, CHOLMOD_PATTERN, cc);
  int *Pp = P->p, *Pi = P->i, q = 0;
  for (int j = 0; j < n; j++) {
    Pp[j] = q;
    for (int dy = -1; dy <= 0; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        int x = j % nx + dx, y = j / nx + dy, i = y * nx + x;
        if (x >= 0 && x < nx && y >= 0 && i <= j) Pi[q++] = i;
      }
  }
  Pp[n] = q;
  return P;
}

/* y = A x for the symmetric A given by its upper triangle (P, val). */
static void symv(const cholmod_sparse *P, const double *val, const double *x, double *y) {
  const int *Pp = P->p, *Pi = P->i;
  int n = (int)P->nrow;
  memset(y, 0, sizeof(double) * n);
  for (int j = 0; j < n; j++)
    for (int k = Pp[j]; k < Pp[j + 1]; k++) {
      int i = Pi[k];
      y[i] += val[k] * x[j];
      if (i != j) y[j] += val[k] * x[i];
    }
}

static int n_single; /* grids whose factor had a single-precision copy */

/* The single-precision solve against the double one: relative difference
 * within float rounding times the growth of a well-conditioned factor. */
static void check_single(cf_spchol *f, const double *b, const double *x, int n, int nx, int ny) {
  double *xs = malloc(sizeof(double) * n), dmax = 0, xmax = 0;
  cf_spchol_solve_single(f, b, xs, NULL);
  for (int i = 0; i < n; i++) {
    dmax = fmax(dmax, fabs(xs[i] - x[i]));
    xmax = fmax(xmax, fabs(x[i]));
  }
  CHECK(dmax <= 1e-5 * xmax, "%dx%d: single-precision solve off by %.3g (|x| %.3g)", nx, ny, dmax, xmax);
  free(xs);
}

/* Values for the pattern P (upper triangle) of a diagonally dominant
 * matrix: 8.5 on the diagonal, 8 neighbours of |a| < 1. */
static void spd_values(const cholmod_sparse *P, double *val) {
  const int *Pp = P->p, *Pi = P->i;
  for (int j = 0; j < (int)P->ncol; j++)
    for (int k = Pp[j]; k < Pp[j + 1]; k++) val[k] = Pi[k] == j ? 8.5 : cf_test_rand(&rng);
}

static void check_grid(int nx, int ny, cholmod_common *cc) {
  cholmod_sparse *P = stencil(nx, ny, cc);
  int n = nx * ny, nz = ((int *)P->p)[n];
  const int *Pp = P->p, *Pi = P->i;
  double *val = malloc(sizeof(double) * nz), *b = malloc(sizeof(double) * n);
  double *x = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n);
  spd_values(P, val);
  for (int i = 0; i < n; i++) b[i] = cf_test_rand(&rng);
  cf_spchol *f = cf_spchol_alloc(P, cc);
  CHECK(f != NULL, "%dx%d: cf_spchol_alloc failed", nx, ny);
  if (f) {
    double beta = 0.25, *v = cf_spchol_values(f);
    int single = cf_spchol_keep_single(f) == 0; /* supernodal factors only */
    n_single += single;
    for (int round = 0; round < 2; round++) { /* refactoring reuses the pattern */
      memset(v, 0, sizeof(double) * cf_spchol_nvalues(f));
      for (int j = 0; j < n; j++)
        for (int k = Pp[j]; k < Pp[j + 1]; k++) {
          long pos = cf_spchol_pos(f, Pi[k], j);
          CHECK(pos >= 0 && (size_t)pos < cf_spchol_nvalues(f), "%dx%d: pos(%d, %d) = %ld", nx, ny,
                Pi[k], j, pos);
          if (pos >= 0) v[pos] += val[k];
        }
      CHECK(cf_spchol_factor(f, beta, cc) == 0, "%dx%d: factorization failed", nx, ny);
      CHECK(cf_spchol_solve(f, b, x, cc) == 0, "%dx%d: solve failed", nx, ny);
      symv(P, val, x, r);
      double res = 0;
      for (int i = 0; i < n; i++) res = fmax(res, fabs(r[i] + beta * x[i] - b[i]));
      CHECK(res < 1e-13, "%dx%d: residual %.3g", nx, ny, res);
      if (single) check_single(f, b, x, n, nx, ny);
      for (int k = 0; k < nz; k++) val[k] *= 1.5; /* a new matrix for round 2 */
    }
  }
  cf_spchol_free(f, cc);
  cholmod_free_sparse(&P, cc);
  free(val);
  free(b);
  free(x);
  free(r);
}

/* A's lower triangle into L's values, zeros elsewhere. */
static void assemble_l(const cf_snfactor *w, const cholmod_sparse *A, cholmod_factor *L) {
  const int *Ap = A->p, *Ai = A->i;
  const double *Ax = A->x;
  memset(L->x, 0, sizeof(double) * L->xsize);
  for (int j = 0; j < (int)A->ncol; j++)
    for (int k = Ap[j]; k < Ap[j + 1]; k++) {
      long pos = cf_snfactor_pos(w, L, Ai[k], j);
      CHECK(pos >= 0 && (size_t)pos < L->xsize, "pos(%d, %d) = %ld", Ai[k], j, pos);
      if (pos >= 0) ((double *)L->x)[pos] = Ax[k];
    }
  CHECK(cf_snfactor_pos(w, L, 0, 1) == -1, "an entry above the diagonal has a position");
}

/* snfactor.c against CHOLMOD's numeric factorization of the same supernodal
 * analysis (natural order): every entry of every supernode within 1e-13 of
 * the largest (the diagonal blocks' upper triangles zero in both), twice
 * with the same workspace; then a negative pivot at column k0. */
static void check_own(int nx, int ny, cholmod_common *cc) {
  cholmod_sparse *P = stencil(nx, ny, cc);
  int n = nx * ny;
  cholmod_sparse *Ux = cholmod_allocate_sparse(n, n, ((int *)P->p)[n], 1, 1, 1, CHOLMOD_REAL, cc);
  CHECK(Ux != NULL, "%dx%d: out of memory", nx, ny);
  if (!Ux) {
    cholmod_free_sparse(&P, cc);
    return;
  }
  memcpy(Ux->p, P->p, sizeof(int) * (n + 1));
  memcpy(Ux->i, P->i, sizeof(int) * ((int *)P->p)[n]);
  spd_values(P, Ux->x);
  cholmod_sparse *A = cholmod_transpose(Ux, 1, cc); /* the lower triangle, sorted */
  A->stype = -1;
  int nmethods = cc->nmethods, ordering = cc->method[0].ordering, super = cc->supernodal;
  cc->nmethods = 1;
  cc->method[0].ordering = CHOLMOD_NATURAL;
  cc->supernodal = CHOLMOD_SUPERNODAL;
  cholmod_factor *L = cholmod_analyze(A, cc);
  cc->nmethods = nmethods;
  cc->method[0].ordering = ordering;
  cc->supernodal = super;
  double beta[2] = {0.25, 0};
  CHECK(L && L->is_super && cholmod_factorize_p(A, beta, NULL, 0, L, cc) && cc->status == CHOLMOD_OK,
        "%dx%d: CHOLMOD's supernodal factorization failed", nx, ny);
  cf_snfactor *w = L ? cf_snfactor_alloc(L) : NULL;
  CHECK(w != NULL, "%dx%d: cf_snfactor_alloc failed", nx, ny);
  if (w) {
    size_t nx_ = L->xsize;
    double *ref = malloc(sizeof(double) * nx_), lmax = 0;
    memcpy(ref, L->x, sizeof(double) * nx_);
    for (size_t k = 0; k < nx_; k++) lmax = fmax(lmax, fabs(ref[k]));
    for (int round = 0; round < 2; round++) {
      assemble_l(w, A, L);
      CHECK(cf_snfactor_run(w, 0.25, L) == 0 && L->minor == L->n, "%dx%d: snfactor failed", nx, ny);
      double dmax = 0;
      for (size_t k = 0; k < nx_; k++) dmax = fmax(dmax, fabs(((double *)L->x)[k] - ref[k]));
      CHECK(dmax <= 1e-13 * lmax, "%dx%d: snfactor differs from CHOLMOD by %.3g (max |L| %.3g)", nx, ny, dmax,
            lmax);
    }
    int k0 = n / 2; /* a negative diagonal: the pivots before k0 do not see it */
    double *ax = A->x;
    for (int k = ((int *)A->p)[k0]; k < ((int *)A->p)[k0 + 1]; k++)
      if (((int *)A->i)[k] == k0) ax[k] = -100;
    assemble_l(w, A, L);
    CHECK(cf_snfactor_run(w, 0.25, L) == 1 && L->minor == (size_t)k0,
          "%dx%d: negative pivot at %d reported at %zu", nx, ny, k0, (size_t)L->minor);
    free(ref);
  }
  cf_snfactor_free(w);
  cholmod_free_factor(&L, cc);
  cholmod_free_sparse(&A, cc);
  cholmod_free_sparse(&Ux, cc);
  cholmod_free_sparse(&P, cc);
}

static void fill(double *a, int n) {
  for (int i = 0; i < n; i++) a[i] = cf_test_rand(&rng);
}

/* The group kernel on the same data through both variants (3 rows over 9
 * nodes, an E/F/G group); outputs compared bit for bit. */
static void check_kernels(const cf_kernels *k0, const cf_kernels *k1) {
  enum { NL = 9, W = 27, WP = 32 };
  double T[NL * WP], p[3][NL], g[2][3][WP];
  fill(T, NL * WP);
  fill(p[0], 3 * NL);
  for (int v = 0; v < 2; v++)
    (v ? k1 : k0)->group_grad(T, WP, W, NL, p[0], p[1], p[2], g[v][0], g[v][1], g[v][2]);
  for (int c = 0; c < 3; c++)
    CHECK(!memcmp(g[0][c], g[1][c], sizeof(double) * W), "group_grad differs (coordinate %d)", c);
}

/* The supernode kernels (one supernode of 21 columns over 45 rows: two
 * panels and a partial one, rectangles of odd widths) through both
 * variants, bit for bit, and against a plain column-by-column solve in
 * double precision. */
static void check_sn_kernels(const cf_kernels *k0, const cf_kernels *k1) {
  enum { R = 45, C = 21 };
  float L[R * C], dinv[C], u[2][2][R], y[C];
  double ud[2][R];
  for (int j = 0; j < C; j++)
    for (int i = 0; i < R; i++)
      L[j * R + i] = i < j ? 0.0f : i == j ? (float)(2 + cf_test_rand(&rng)) : (float)(0.3 * cf_test_rand(&rng));
  for (int j = 0; j < C; j++) dinv[j] = (float)(1.0 / L[j * R + j]);
  for (int i = 0; i < R; i++) {
    ud[0][i] = ud[1][i] = cf_test_rand(&rng);
    for (int v = 0; v < 2; v++) u[v][0][i] = u[v][1][i] = (float)ud[0][i];
  }
  double Ld[R * C], dinvd[C], uu[2][2][R], yd[C]; /* the double-precision kernels */
  for (int k = 0; k < R * C; k++) Ld[k] = L[k];
  for (int j = 0; j < C; j++) dinvd[j] = 1.0 / Ld[j * R + j];
  for (int v = 0; v < 2; v++) {
    const cf_kernels *k = v ? k1 : k0;
    if (!k) continue;
    k->sn_forward(L, dinv, R, C, u[v][0]);
    k->sn_backward(L, dinv, R, C, u[v][1], y);
    memcpy(uu[v][0], ud[0], sizeof ud[0]);
    memcpy(uu[v][1], ud[0], sizeof ud[0]);
    k->sn_forward_d(Ld, dinvd, R, C, uu[v][0]);
    k->sn_backward_d(Ld, dinvd, R, C, uu[v][1], yd);
  }
  for (int j = 0; j < C; j++) { /* reference forward, in double */
    ud[0][j] /= L[j * R + j];
    for (int i = j + 1; i < R; i++) ud[0][i] -= L[j * R + i] * ud[0][j];
  }
  for (int j = C; j-- > 0;) { /* reference backward */
    for (int i = j + 1; i < R; i++) ud[1][j] -= L[j * R + i] * ud[1][i];
    ud[1][j] /= L[j * R + j];
  }
  for (int d = 0; d < 2; d++)
    for (int i = 0; i < (d ? C : R); i++) {
      CHECK(fabs(u[0][d][i] - ud[d][i]) <= 1e-5 * (1 + fabs(ud[d][i])), "sn_%s entry %d: %g, expected %g",
            d ? "backward" : "forward", i, u[0][d][i], ud[d][i]);
      CHECK(fabs(uu[0][d][i] - ud[d][i]) <= 1e-13 * (1 + fabs(ud[d][i])), "sn_%s_d entry %d: %.17g, expected %.17g",
            d ? "backward" : "forward", i, uu[0][d][i], ud[d][i]);
    }
  if (k1)
    CHECK(!memcmp(u[0], u[1], sizeof u[0]) && !memcmp(uu[0], uu[1], sizeof uu[0]),
          "the supernode kernels of the two variants differ");
}

/* syrk_sub on a block of odd shape (13 of 17 rows x 7 columns of Y, 6 of
 * them updated: a full tile of columns and a partial one, rows in tiles
 * and a remainder) through both variants, bit for bit, and against the
 * plain sums on the lower trapezoid, the entries above it unchanged. */
static void check_syrk(const cf_kernels *k0, const cf_kernels *k1) {
  enum { LDY = 17, K = 7, M = 13, W = 6, LDC = 15 };
  double Y[LDY * K], C[2][LDC * W], ref[LDC * W];
  fill(Y, LDY * K);
  fill(C[0], LDC * W);
  memcpy(C[1], C[0], sizeof C[0]);
  memcpy(ref, C[0], sizeof ref);
  for (int v = 0; v < 2; v++)
    if (v ? k1 != NULL : 1) (v ? k1 : k0)->syrk_sub(Y, LDY, K, M, W, C[v], LDC);
  for (int c = 0; c < W; c++)
    for (int i = c / 4 * 4; i < M; i++) { /* the lower trapezoid; nothing above */
      double sum = 0;
      for (int q = 0; q < K; q++) sum += Y[i + q * LDY] * Y[c + q * LDY];
      ref[i + c * LDC] -= sum;
    }
  CHECK(!memcmp(C[0], ref, sizeof ref), "syrk_sub differs from the plain sums in ascending order");
  if (k1) CHECK(!memcmp(C[0], C[1], sizeof ref), "syrk_sub differs between the two variants");
}

int main(void) {
  cholmod_common cc;
  cholmod_start(&cc);
  cc.print = 0;
  const int grids[][2] = {{1, 1}, {3, 3}, {7, 9}, {12, 11}, {30, 25}, {90, 90}};
  for (size_t g = 0; g < sizeof grids / sizeof grids[0]; g++) check_grid(grids[g][0], grids[g][1], &cc);
  CHECK(n_single >= 1, "no grid had a supernodal factor: the single-precision solve was not tested");
  for (size_t g = 0; g < 5; g++) check_own(grids[g][0], grids[g][1], &cc);
  cholmod_finish(&cc);
  const cf_kernels *base = cf_kernels_variant(0), *avx2 = cf_kernels_variant(1);
  CHECK(base != NULL && cf_kernels_get() != NULL, "no kernels");
  check_sn_kernels(base, avx2);
  check_syrk(base, avx2);
  if (avx2) check_kernels(base, avx2);
  else fprintf(stderr, "test_spchol: no AVX2 kernels on this machine/build, variants not compared\n");
  return cf_test_done("test_spchol");
}
