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
 * The statistic is, for each neighbour pair, the median over the frames
 * where both are present of its relative excess (d / r - 1), and then the
 * largest of those over the pairs: the excess a pair keeps through the
 * recording.  A cloth that stretches or shears does so throughout (a
 * hanging sheet's weight stretches its columns and shears the cells at the
 * held corners in every frame); a depth camera's noise does not.  Why not
 * the largest excess of each frame, then their median over frames (this
 * test's first statistic): the largest of a frame's ~300 pairs is an
 * extreme of the noise, and with a depth camera's 2 mm it called every
 * recording of datasets/wam-mini, made by the inextensible model, a
 * stretching cloth (its median frame's largest edge 2.8 % long, on 3.7 cm
 * edges); the median over frames of one pair takes the noise out and
 * leaves the pair's own excess.
 * tests/test_stretch.c measures it (docs/confidence.md item 11): the
 * model's own recordings at most 0.01 % (markers, 0.1 mm noise) and 0.26 %
 * (datasets/wam-mini's meshes), quasi-inextensible cloths 1.4-1.8 % in
 * their diagonals, elastic ones 4.8-10 % in their edges. */
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"

/* The pairs of one kind (diag 0: edges (0,1) and (1,0); 1: cell
 * diagonals (1,1) and (1,-1)) of a rows x cols lattice, as index pairs into
 * i[2 * n] and their rest distances on the flat sheet a x b into rest[n];
 * returns n. */
static int pairs(int R, int C, double a, double b, int diag, int *i, double *rest) {
  static const int off[2][2][2] = {{{0, 1}, {1, 0}}, {{1, 1}, {1, -1}}};
  int n = 0;
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      for (int k = 0; k < 2; k++) {
        int r2 = r + off[diag][k][0], c2 = c + off[diag][k][1];
        if (r2 >= R || c2 < 0 || c2 >= C) continue;
        i[2 * n] = r * C + c, i[2 * n + 1] = r2 * C + c2;
        rest[n++] = hypot(off[diag][k][1] * a, off[diag][k][0] * b);
      }
  return n;
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

/* The largest over the pairs of one kind of the median over frames of the
 * pair's relative excess; NaN when no pair is present in a frame.  Scratch:
 * v [T], ip [4 R C] and rest [2 R C] (heap: a mesh recording's lattice is
 * large enough for the stack to matter). */
static double kept_excess(const cf_fit_target *tg, int diag, double *v, int *ip, double *rest) {
  int R = tg->rows, C = tg->cols;
  double worst = NAN;
  size_t K = (size_t)R * C;
  int np = pairs(R, C, tg->size[0] / (C - 1), tg->size[1] / (R - 1), diag, ip, rest);
  for (int k = 0; k < np; k++) {
    for (int t = 0; t < tg->T; t++) {
      const double *p = tg->pos + 3 * (K * t + ip[2 * k]), *q = tg->pos + 3 * (K * t + ip[2 * k + 1]);
      v[t] = hypot(hypot(p[0] - q[0], p[1] - q[1]), p[2] - q[2]) / rest[k] - 1;
    }
    double m = finite_median(v, tg->T);
    if (isfinite(m) && !(m <= worst)) worst = m;
  }
  return worst;
}

int cf_fit_stretch(const cf_fit_target *tg, cf_stretch *out) {
  memset(out, 0, sizeof *out);
  out->edges = out->diagonals = NAN;
  /* a point-cloud recording's lattice is the fitter's own start, not a measurement */
  if (tg->rest != CF_REST_SIZE || !(tg->size[0] > 0 && tg->size[1] > 0) || tg->rows < 2 || tg->cols < 2 ||
      tg->n_cloud > 0)
    return CF_OK;
  size_t RC = (size_t)tg->rows * tg->cols;
  double *v = malloc(sizeof(double) * ((size_t)tg->T + 2 * RC));
  int *ip = malloc(sizeof(int) * 4 * RC);
  if (!v || !ip) return free(v), free(ip), CF_ENOMEM;
  for (int diag = 0; diag < 2; diag++)
    *(diag ? &out->diagonals : &out->edges) = kept_excess(tg, diag, v, ip, v + tg->T);
  free(v), free(ip);
  out->checked = isfinite(out->edges) || isfinite(out->diagonals);
  out->stretches = out->edges > CF_STRETCH_MAX;
  out->shears = !out->stretches && out->diagonals > CF_STRETCH_MAX;
  return CF_OK;
}
