/* stretch.c — does the recorded cloth stretch or shear (cf_fit_stretch)?
 *
 * An inextensible cloth keeps the length of every curve on it, so the
 * straight-line distance between two of its points can never exceed their
 * distance on the flat sheet (a chord is never longer than its geodesic).
 * With the cloth's measured size, the markers' rest distances are known
 * (they sit on a regular lattice from corner to corner), and a recording
 * in which neighbouring markers (lattice edges and cell diagonals) end up
 * farther apart than on the flat sheet shows a cloth that the inextensible
 * model cannot reproduce at any parameters: its edges stretch, or its cells
 * shear (an edge-preserving cloth lengthens one diagonal of a sheared cell).
 * The fitted delta and alpha are then effective values that absorb the
 * difference, and their noise-sized intervals are not the uncertainty.
 *
 * Why this test and not the error floor: the error of the model's own
 * recordings at their truth is set by the start state and the mesh, not by
 * the markers' noise, and scales with the motion (0.4-1.2 cm over the
 * bundled study, docs/confidence.md item 10), so a floor threshold would
 * need a calibration per motion; the chord bound needs none.
 *
 * The statistic is the median over frames of the largest relative excess
 * (d / r - 1) of a neighbour pair present in that frame: robust to a few
 * bad frames, and what a cloth that stretches shows throughout.
 * docs/confidence.md item 10 measures it: the model's own recordings (the
 * constraint tolerance 1e-3 and 0.1 mm noise) <= 0.3 %, a quasi-
 * inextensible cloth with k_shear 1 N/m 7.6 %, an elastic one 21 %. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"

/* The largest relative excess of the pairs of one kind (diag 0: edges,
 * 1: cell diagonals) of frame x; NaN when no pair of that kind is present. */
static double frame_excess(const cf_fit_target *tg, const double *x, int diag) {
  int R = tg->rows, C = tg->cols;
  double a = tg->size[0] / (C - 1), b = tg->size[1] / (R - 1), worst = NAN;
  /* edges: (0,1) and (1,0); diagonals: (1,1) and (1,-1) */
  static const int off[2][2][2] = {{{0, 1}, {1, 0}}, {{1, 1}, {1, -1}}};
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      for (int k = 0; k < 2; k++) {
        int r2 = r + off[diag][k][0], c2 = c + off[diag][k][1];
        if (r2 >= R || c2 < 0 || c2 >= C) continue;
        const double *p = x + 3 * (r * C + c), *q = x + 3 * (r2 * C + c2);
        double d = hypot(hypot(p[0] - q[0], p[1] - q[1]), p[2] - q[2]);
        double rest = hypot(off[diag][k][1] * a, off[diag][k][0] * b);
        if (isfinite(d) && !(d / rest - 1 <= worst)) worst = d / rest - 1;
      }
  return worst;
}

/* The median of the finite values of v[n] (sorted in place); NaN if none. */
static double finite_median(double *v, int n) {
  int m = 0;
  for (int i = 0; i < n; i++)
    if (isfinite(v[i])) v[m++] = v[i];
  if (!m) return NAN;
  gsl_sort(v, 1, m);
  return gsl_stats_median_from_sorted_data(v, 1, m);
}

int cf_fit_stretch(const cf_fit_target *tg, cf_stretch *out) {
  memset(out, 0, sizeof *out);
  out->edges = out->diagonals = NAN;
  if (tg->rest != CF_REST_SIZE || !(tg->size[0] > 0 && tg->size[1] > 0) || tg->rows < 2 || tg->cols < 2)
    return CF_OK;
  double *v = malloc(sizeof(double) * tg->T);
  if (!v) return CF_ENOMEM;
  size_t K = (size_t)tg->rows * tg->cols;
  for (int diag = 0; diag < 2; diag++) {
    for (int t = 0; t < tg->T; t++) v[t] = frame_excess(tg, tg->pos + 3 * K * t, diag);
    *(diag ? &out->diagonals : &out->edges) = finite_median(v, tg->T);
  }
  free(v);
  out->checked = isfinite(out->edges) || isfinite(out->diagonals);
  out->stretches = out->edges > CF_STRETCH_MAX;
  out->shears = !out->stretches && out->diagonals > CF_STRETCH_MAX;
  return CF_OK;
}
