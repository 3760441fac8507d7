/* test_lattice.c — the pieces of marker processing that work on one frame
 * or one matrix: the minimum-cost assignment against brute force, lattice
 * assignment of hanging sheets under random in-plane rotations (±20°),
 * turns about the vertical and marker orders, its errors (ambiguous rows,
 * irregular spacing, a horizontal sheet, a wrong count) naming markers, and
 * the 1:2:4 lattice weights. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_common.h"
#include "cf_sim.h"
#include "cf_recording.h"
#include "markers_synth.h"
#include "testutil.h"

/* ------------------------------------------------------------ assignment */
/* Best (most pairs, then least cost) over every partial injection. */
static void brute(const double *c, int n, int m, int i, int *col, char *used, int pairs, double cost, int *best_pairs,
                  double *best_cost) {
  if (i == n) {
    if (pairs > *best_pairs || (pairs == *best_pairs && cost < *best_cost - 1e-12)) *best_pairs = pairs, *best_cost = cost;
    return;
  }
  col[i] = -1;
  brute(c, n, m, i + 1, col, used, pairs, cost, best_pairs, best_cost);
  for (int j = 0; j < m; j++) {
    if (used[j] || !isfinite(c[i * m + j])) continue;
    used[j] = 1, col[i] = j;
    brute(c, n, m, i + 1, col, used, pairs + 1, cost + c[i * m + j], best_pairs, best_cost);
    used[j] = 0;
  }
}

static void test_assign(void) {
  unsigned long long seed = 12345;
  for (int trial = 0; trial < 400; trial++) {
    int n = 1 + trial % 6, m = 1 + (trial / 6) % 6, col[8], bcol[8], pairs = -1;
    double c[64], best = INFINITY, got = 0;
    char used[8] = {0};
    for (int i = 0; i < n * m; i++) {
      double u = cf_test_rand(&seed);
      c[i] = u < -0.4 ? INFINITY : trial % 3 ? (u + 1) * 5 : floor((u + 1) * 3); /* ties in every third trial */
    }
    brute(c, n, m, 0, bcol, used, 0, 0, &pairs, &best);
    int k = cf_assign_min_cost(c, n, m, col), seen[8] = {0};
    for (int i = 0; i < n; i++)
      if (col[i] >= 0) {
        CHECK(isfinite(c[i * m + col[i]]) && !seen[col[i]], "trial %d: row %d got forbidden or reused column %d", trial,
              i, col[i]);
        seen[col[i]] = 1, got += c[i * m + col[i]];
      }
    CHECK(k == pairs, "trial %d (%dx%d): %d pairs, brute force %d", trial, n, m, k, pairs);
    CHECK(fabs(got - best) < 1e-9, "trial %d (%dx%d): cost %.12g, brute force %.12g", trial, n, m, got, best);
  }
  int none[3];
  double inf[6] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
  CHECK(cf_assign_min_cost(inf, 2, 3, none) == 0 && none[0] == -1 && none[1] == -1, "all forbidden");
}

/* --------------------------------------------------------------- lattice */
/* Frame 0 of a sheet, markers shuffled: x[perm[cell]] = cell's position. */
static void shuffled_frame(const synth_sheet *s, const int *perm, double noise, unsigned long long *seed, double *x,
                           char **names) {
  int K = s->rows * s->cols;
  for (int cell = 0; cell < K; cell++) {
    for (int a = 0; a < 3; a++) x[3 * perm[cell] + a] = synth_at(s, 0, cell)[a] + noise * cf_test_rand(seed);
    snprintf(names[perm[cell]], 32, "R%dC%d", cell / s->cols, cell % s->cols);
  }
}

static int lattice_trial(int rows, int cols, double tilt, double yaw, double noise, unsigned long long *seed,
                         int reversed) {
  synth_sheet s;
  synth_sheet_make(&s, rows, cols, 1, 0.01, tilt, yaw, 0);
  int K = rows * cols, perm[64], cell[128], bad = 0;
  double x[192];
  char buf[64][32], *names[64];
  for (int k = 0; k < K; k++) names[k] = buf[k];
  synth_shuffle(perm, K, seed);
  shuffled_frame(&s, perm, noise, seed, x, names);
  cf_error err = {0, ""};
  cf_lattice_fit fit;
  int rc = cf_lattice_assign(x, K, names, rows, cols, cell, &fit, &err);
  CHECK(rc == 0, "%dx%d tilt %.1f yaw %.1f: %s", rows, cols, tilt * 180 / M_PI, yaw * 180 / M_PI, err.msg);
  for (int c0 = 0; !rc && c0 < K; c0++) {
    int k = perm[c0], r = c0 / cols, c = reversed ? cols - 1 - c0 % cols : c0 % cols;
    bad += cell[2 * k] != r || cell[2 * k + 1] != c;
  }
  CHECK(!bad, "%dx%d tilt %.1f yaw %.1f: %d markers in the wrong cell", rows, cols, tilt * 180 / M_PI, yaw * 180 / M_PI, bad);
  double angle = (reversed ? -tilt : tilt) * 180 / M_PI; /* seen from the other side when reversed */
  CHECK(rc || fabs(fit.angle_deg - angle) < 0.5, "fitted rotation %.2f deg, expected %.2f", fit.angle_deg, angle);
  CHECK(rc || (fabs(fit.col_spacing - 0.14) < 2e-3 && fabs(fit.row_spacing - 0.1485) < 2e-3),
        "spacings %.4f %.4f", fit.col_spacing, fit.row_spacing);
  synth_sheet_free(&s);
  return rc == 0 && !bad;
}

static void test_lattice_random(void) {
  unsigned long long seed = 777;
  int ok = 0, n = 0;
  for (int t = 0; t < 300; t++, n++) {
    double tilt = 20 * M_PI / 180 * cf_test_rand(&seed), yaw = 40 * M_PI / 180 * cf_test_rand(&seed);
    ok += lattice_trial(t % 2 ? 4 : 5, t % 2 ? 3 : 4, tilt, yaw, 5e-4, &seed, 0);
  }
  CHECK(ok == n, "%d of %d random lattices assigned correctly", ok, n);
  /* Turned round (yaw 180°): 'across' keeps its positive world x, so the
   * columns run the other way (documented). */
  lattice_trial(5, 4, 0.1, M_PI, 0, &seed, 1);
  lattice_trial(5, 4, -0.3, 0.5 * M_PI - 0.2, 0, &seed, 0); /* sheet facing x: across along +y */
}

/* Expect an error mentioning every fragment of want[]. */
static void expect_error(const double *x, int K, char **names, int rows, int cols, const char *const *want,
                         const char *what) {
  int cell[128];
  cf_error err = {0, ""};
  int rc = cf_lattice_assign(x, K, names, rows, cols, cell, NULL, &err);
  CHECK(rc == CF_EINVAL, "%s: rc %d, expected an error", what, rc);
  for (int i = 0; want[i]; i++) CHECK(strstr(err.msg, want[i]) != NULL, "%s: '%s' not in: %s", what, want[i], err.msg);
}

static void test_lattice_errors(void) {
  synth_sheet s;
  synth_sheet_make(&s, 5, 4, 1, 0.01, 0.05, 0.2, 0);
  int perm[20];
  double x[60];
  char buf[20][32], *names[20];
  unsigned long long seed = 99;
  for (int k = 0; k < 20; k++) names[k] = buf[k];
  synth_shuffle(perm, 20, &seed);
  /* R1C3 down to the height of row 2, half a column further across: two
   * markers at one height where row 2 should have the next one. */
  shuffled_frame(&s, perm, 0, &seed, x, names);
  for (int a = 0; a < 3; a++) x[3 * perm[7] + a] = synth_at(&s, 0, 11)[a] + 0.5 * (synth_at(&s, 0, 11)[a] - synth_at(&s, 0, 10)[a]);
  const char *amb[] = {"ambiguous rows", "R1C", "R2C", NULL};
  expect_error(x, 20, names, 5, 4, amb, "ambiguous");
  /* R2C1 pushed 6 cm across: irregular spacing naming it. */
  shuffled_frame(&s, perm, 0, &seed, x, names);
  for (int a = 0; a < 3; a++) x[3 * perm[9] + a] += 0.06 / 0.14 * (synth_at(&s, 0, 10)[a] - synth_at(&s, 0, 9)[a]);
  const char *irr[] = {"irregular spacing", "R2C1", NULL};
  expect_error(x, 20, names, 5, 4, irr, "irregular");
  /* A sheet lying flat. */
  shuffled_frame(&s, perm, 0, &seed, x, names);
  for (int k = 0; k < 20; k++) x[3 * k + 1] += x[3 * k + 2], x[3 * k + 2] = 0.8;
  const char *flat[] = {"horizontal", "--map", NULL};
  expect_error(x, 20, names, 5, 4, flat, "flat");
  const char *count[] = {"20 markers for a 4x4 lattice", NULL};
  expect_error(x, 20, names, 4, 4, count, "count");
  synth_sheet_free(&s);
}

/* ---------------------------------------------------------------- weights */
static void test_weights(void) {
  synth_sheet s;
  synth_sheet_make(&s, 5, 4, 1, 0.01, 0.3, 0.7, 0);
  double w[20];
  cf_error err = {0, ""};
  CHECK(cf_mesh_lattice_weights(5, 4, s.truth, w, &err) == 0, "%s", err.msg);
  for (int r = 0; r < 5; r++)
    for (int c = 0; c < 4; c++) {
      int edges = (r == 0 || r == 4) + (c == 0 || c == 3), expect = edges == 2 ? 1 : edges == 1 ? 2 : 4;
      CHECK(fabs(w[r * 4 + c] / w[0] - expect) < 1e-12, "cell %d,%d: weight ratio %.15g, expected %d", r, c,
            w[r * 4 + c] / w[0], expect);
    }
  synth_sheet_free(&s);
}

int main(void) {
  cf_runtime_init();
  test_assign();
  test_lattice_random();
  test_lattice_errors();
  test_weights();
  return cf_test_done("test_lattice");
}
