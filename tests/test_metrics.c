/* Metrics of docs/design.md §7 against hand-computed values: the normalized M-norm
 * error with unequal weights, missing markers excluded, the spatial standard
 * deviation (population), dispersion, window means, lattice weights 1:2:4. */
#include <math.h>
#include <stdlib.h>

#include "cf_fit.h"
#include "testutil.h"

static void frame_values(void) {
  /* three markers, displacements 3 cm (x), 4 cm (y), missing */
  double sim[9] = {0.03, 0, 0, 1, 0.04, 0, 2, 2, 2};
  double rec[9] = {0, 0, 0, 1, 0, 0, NAN, 0, 0};
  double w[3] = {1, 3, 100};
  cf_frame_error f;
  cf_metric_frame(3, w, sim, rec, &f);
  /* e = sqrt((1*9 + 3*16)/(1+3)) = sqrt(57/4) cm; |d| = 3, 4: mean 3.5, std 0.5 */
  CHECK(f.n == 2, "n = %d", f.n);
  CHECK(fabs(f.e_cm - sqrt(57.0 / 4)) < 1e-12, "e = %.15g", f.e_cm);
  CHECK(fabs(f.s_cm - 0.5) < 1e-12, "s = %.15g", f.s_cm);
  CHECK(fabs(f.d_cm - (sqrt(57.0 / 4) + 1.0)) < 1e-12, "d = %.15g", f.d_cm);
  /* unit weights */
  cf_metric_frame(3, NULL, sim, rec, &f);
  CHECK(fabs(f.e_cm - sqrt(25.0 / 2)) < 1e-12, "e(unit) = %.15g", f.e_cm);
  /* nothing present */
  double none[9] = {NAN, 0, 0, NAN, 0, 0, NAN, 0, 0};
  cf_metric_frame(3, w, sim, none, &f);
  CHECK(f.n == 0 && isnan(f.e_cm), "empty frame: n = %d e = %g", f.n, f.e_cm);
  /* identical positions */
  cf_metric_frame(3, w, sim, sim, &f);
  CHECK(f.n == 3 && f.e_cm == 0 && f.s_cm == 0, "zero error: %g %g", f.e_cm, f.s_cm);
}

static void window_values(void) {
  cf_frame_error fe[5] = {{1, 1, 3, 2}, {2, 0, 2, 2}, {NAN, NAN, NAN, 0}, {3, 2, 7, 1}, {10, 10, 30, 4}};
  cf_window_error w = cf_metric_window(fe, 5, 0, 4);
  CHECK(w.frames == 3, "frames %d", w.frames);
  CHECK(fabs(w.e_cm - 2) < 1e-15 && fabs(w.s_cm - 1) < 1e-15 && w.d_max_cm == 7,
        "window: e %g s %g dmax %g", w.e_cm, w.s_cm, w.d_max_cm);
  w = cf_metric_window(fe, 5, 2, 3);
  CHECK(w.frames == 0 && isnan(w.e_cm), "empty window");
  w = cf_metric_window(fe, 5, -3, 99);
  CHECK(w.frames == 4 && fabs(w.e_cm - 4) < 1e-15, "clamped window e %g", w.e_cm);
}

static void lattice_weights(void) {
  int rows = 5, cols = 4;
  double x[60], w[20];
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      x[3 * (r * cols + c)] = 0.14 * c;
      x[3 * (r * cols + c) + 1] = 0;
      x[3 * (r * cols + c) + 2] = 0.594 - 0.1485 * r;
    }
  cf_error err;
  CHECK(cf_mesh_lattice_weights(rows, cols, x, w, &err) == CF_OK, "weights");
  double unit = w[0];
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      int edge_r = r == 0 || r == rows - 1, edge_c = c == 0 || c == cols - 1;
      double expect = edge_r && edge_c ? 1 : (edge_r || edge_c ? 2 : 4);
      CHECK(fabs(w[r * cols + c] - expect * unit) < 1e-12, "w[%d,%d] = %g, expected %g", r, c,
            w[r * cols + c] / unit, expect);
    }
  double s = 0;
  for (int j = 0; j < 20; j++) s += w[j];
  CHECK(fabs(s - 20) < 1e-12, "weights sum %g", s);
  x[5] = NAN;
  CHECK(cf_mesh_lattice_weights(rows, cols, x, w, &err) != CF_OK, "NaN marker accepted");
}

int main(void) {
  cf_runtime_init();
  frame_values();
  window_values();
  lattice_weights();
  return cf_test_done("test_metrics");
}
