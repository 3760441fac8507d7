/* assign.c — minimum-cost assignment (the Hungarian algorithm of Kuhn and
 * Munkres, in the O(n^2 m) shortest-augmenting-path form with row and
 * column potentials u, v: reduced costs c[i][j] - u[i] - v[j] stay >= 0 and
 * are 0 on the assigned pairs, which proves optimality).
 *
 * Rows are added one at a time; each addition grows a Dijkstra-like tree of
 * alternating paths from the new row over reduced costs until it reaches a
 * free column, then flips the path.  Forbidden pairs (+inf, NaN) get a cost
 * BIG larger than any total of allowed costs, so the optimum uses as few of
 * them as possible (as many allowed pairs as possible) and, among those
 * assignments, has the least allowed total; they are reported as -1. */
#include <math.h>
#include <stdlib.h>

#include "cf_recording.h"

typedef struct {
  const double *cost;
  int n, m, transposed;
  double big;
} problem;

/* Cost of row i, column j of the n <= m problem (1-based, as the algorithm). */
static double at(const problem *p, int i, int j) {
  double c = p->transposed ? p->cost[(size_t)(j - 1) * p->n + (i - 1)] : p->cost[(size_t)(i - 1) * p->m + (j - 1)];
  return isfinite(c) ? c : p->big;
}

/* Add row i: returns the updated matching in row_of_col[0..m]. */
static void augment(const problem *p, int i, double *u, double *v, int *row_of_col, int *way, double *minv,
                    char *used) {
  int m = p->m, j0 = 0;
  row_of_col[0] = i;
  for (int j = 0; j <= m; j++) minv[j] = INFINITY, used[j] = 0;
  do {
    used[j0] = 1;
    int i0 = row_of_col[j0], j1 = 0;
    double delta = INFINITY;
    for (int j = 1; j <= m; j++) {
      if (used[j]) continue;
      double cur = at(p, i0, j) - u[i0] - v[j];
      if (cur < minv[j]) minv[j] = cur, way[j] = j0;
      if (minv[j] < delta) delta = minv[j], j1 = j;
    }
    for (int j = 0; j <= m; j++) {
      if (used[j]) u[row_of_col[j]] += delta, v[j] -= delta;
      else minv[j] -= delta;
    }
    j0 = j1;
  } while (row_of_col[j0] != 0);
  do {
    int j1 = way[j0];
    row_of_col[j0] = row_of_col[j1];
    j0 = j1;
  } while (j0);
}

static double forbidden_cost(const double *cost, int n, int m) {
  double s = 0;
  for (size_t i = 0; i < (size_t)n * m; i++)
    if (isfinite(cost[i])) s += fabs(cost[i]);
  return 2 * s + 1;
}

int cf_assign_min_cost(const double *cost, int n, int m, int *col_of_row) {
  for (int i = 0; i < n; i++) col_of_row[i] = -1;
  if (n == 0 || m == 0) return 0;
  problem p = {cost, n <= m ? n : m, n <= m ? m : n, n > m, forbidden_cost(cost, n, m)};
  size_t M = (size_t)p.m + 1;
  double *u = calloc((size_t)p.n + 1, sizeof(double)), *v = calloc(M, sizeof(double));
  double *minv = malloc(sizeof(double) * M);
  int *row_of_col = calloc(M, sizeof(int)), *way = calloc(M, sizeof(int));
  char *used = malloc(M);
  int pairs = -1;
  if (u && v && minv && row_of_col && way && used) {
    for (int i = 1; i <= p.n; i++) augment(&p, i, u, v, row_of_col, way, minv, used);
    pairs = 0;
    for (int j = 1; j <= p.m; j++) {
      int i = row_of_col[j];
      if (!i || at(&p, i, j) == p.big) continue;
      if (p.transposed) col_of_row[j - 1] = i - 1;
      else col_of_row[i - 1] = j - 1;
      pairs++;
    }
  }
  free(u), free(v), free(minv), free(row_of_col), free(way), free(used);
  return pairs;
}
