/* test_jacobian.c — the inextensibility constraints C (thesis §2.4, (2.7),
 * (2.11)-(2.16)):
 * - the analytic Jacobian (cf_model_jacobian_dense) equals central finite
 *   differences of cf_model_eval on randomly deformed quad, triangle and
 *   ring meshes (C is quadratic, so central differences are exact up to
 *   rounding: a 1e-6 relative tolerance has a wide margin);
 * - C = 0 at the rest state and after rigid motions (rotation + translation);
 * - row counts and row kinds (137 rows for the 7x9 quad grid). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "testutil.h"

static unsigned long long rng = 0x1234567887654321ULL;

/* Characteristic length: mean boundary edge length. */
static double mesh_h(const cf_mesh *m) {
  double s = 0;
  for (int e = 0; e < m->n_bedges; e++) {
    const double *a = m->x + 3 * m->bedges[2 * e], *b = m->x + 3 * m->bedges[2 * e + 1];
    s += sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
  }
  return s / m->n_bedges;
}

static void check_jacobian(const cf_mesh *m, const char *what) {
  cf_error err = {0, ""};
  cf_model *md = cf_model_alloc(m, &err);
  CHECK(md != NULL, "%s: cf_model_alloc: %s", what, err.msg);
  if (!md) return;
  int nr = cf_model_nrows(md), n = m->n_nodes, nc = 3 * n;
  double h = mesh_h(m);
  double *x = malloc(sizeof(double) * nc), *J = malloc(sizeof(double) * nr * nc);
  double *Cp = malloc(sizeof(double) * nr), *Cm = malloc(sizeof(double) * nr);
  for (int trial = 0; trial < 3; trial++) {
    /* a large random deformation: up to 0.3 h per coordinate, plus a bend */
    double amp = 0.1 * (trial + 1) * h;
    for (int i = 0; i < n; i++)
      for (int d = 0; d < 3; d++)
        x[3 * i + d] = m->x[3 * i + d] + amp * cf_test_rand(&rng) + (d == 2 ? 0.5 * m->x[3 * i] * m->x[3 * i] : 0);
    cf_model_jacobian_dense(md, x, J);
    double jmax = 0, xmax = 0;
    for (int q = 0; q < nr * nc; q++) jmax = fmax(jmax, fabs(J[q]));
    for (int q = 0; q < nc; q++) xmax = fmax(xmax, fabs(x[q]));
    double step = 1e-6 * fmax(xmax, h), maxdiff = 0;
    int nnz_fd = 0, nnz_an = 0;
    for (int c = 0; c < nc; c++) {
      double x0 = x[c];
      x[c] = x0 + step;
      cf_model_eval(md, x, Cp);
      x[c] = x0 - step;
      cf_model_eval(md, x, Cm);
      x[c] = x0;
      double st = (x0 + step) - (x0 - step); /* the step actually taken */
      for (int r = 0; r < nr; r++) {
        double fd = (Cp[r] - Cm[r]) / st, an = J[r * nc + c];
        maxdiff = fmax(maxdiff, fabs(fd - an));
        nnz_fd += fabs(fd) > 1e-6 * jmax;
        nnz_an += an != 0;
      }
    }
    CHECK(jmax > 0, "%s: Jacobian is zero", what);
    CHECK(maxdiff <= 1e-6 * jmax, "%s (trial %d): |J - J_fd| = %g, max |J| = %g (rel %g)", what, trial,
          maxdiff, jmax, maxdiff / jmax);
    /* sanity: the finite differences see the same sparsity (no structurally
     * missing entries in J) */
    CHECK(nnz_fd <= nnz_an, "%s: %d significant FD entries but %d nonzeros in J", what, nnz_fd, nnz_an);
  }
  free(x);
  free(J);
  free(Cp);
  free(Cm);
  cf_model_free(md);
}

/* Random rotation from a random unit quaternion. */
static void random_rotation(double R[3][3]) {
  double q[4], nq = 0;
  for (int k = 0; k < 4; k++) {
    q[k] = cf_test_rand(&rng);
    nq += q[k] * q[k];
  }
  nq = sqrt(nq);
  double w = q[0] / nq, a = q[1] / nq, b = q[2] / nq, c = q[3] / nq;
  R[0][0] = 1 - 2 * (b * b + c * c); R[0][1] = 2 * (a * b - c * w);     R[0][2] = 2 * (a * c + b * w);
  R[1][0] = 2 * (a * b + c * w);     R[1][1] = 1 - 2 * (a * a + c * c); R[1][2] = 2 * (b * c - a * w);
  R[2][0] = 2 * (a * c - b * w);     R[2][1] = 2 * (b * c + a * w);     R[2][2] = 1 - 2 * (a * a + b * b);
}

static double rel_violation(const cf_model *md, const double *x, double *C) {
  cf_model_eval(md, x, C);
  double v = 0;
  for (int r = 0; r < cf_model_nrows(md); r++) v = fmax(v, fabs(C[r]) / cf_model_row_scale(md, r));
  return v;
}

static void check_invariance(const cf_mesh *m, const char *what) {
  cf_error err = {0, ""};
  cf_model *md = cf_model_alloc(m, &err);
  CHECK(md != NULL, "%s: cf_model_alloc: %s", what, err.msg);
  if (!md) return;
  int nr = cf_model_nrows(md), n = m->n_nodes;
  double *C = malloc(sizeof(double) * nr), *x = malloc(sizeof(double) * 3 * n);
  int scales_ok = 1;
  for (int r = 0; r < nr; r++) scales_ok &= cf_model_row_scale(md, r) > 0 && isfinite(cf_model_row_scale(md, r));
  CHECK(scales_ok, "%s: a row scale is not a positive number", what);
  double v = rel_violation(md, m->x, C);
  CHECK(v < 1e-12, "%s: C at rest = %g (relative)", what, v);
  CHECK(fabs(cf_model_violation(md, m->x) - v) <= 1e-15, "%s: cf_model_violation %g != %g", what,
        cf_model_violation(md, m->x), v);
  for (int t = 0; t < 5; t++) {
    double R[3][3], tr[3];
    random_rotation(R);
    double det = R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) - R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
                 R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
    CHECK(fabs(det - 1) < 1e-14, "rotation has det %g", det);
    for (int d = 0; d < 3; d++) tr[d] = 2 * cf_test_rand(&rng);
    for (int i = 0; i < n; i++)
      for (int d = 0; d < 3; d++) {
        const double *p = m->x + 3 * i;
        x[3 * i + d] = R[d][0] * p[0] + R[d][1] * p[1] + R[d][2] * p[2] + tr[d];
      }
    v = rel_violation(md, x, C);
    CHECK(v < 1e-10, "%s: C after rigid motion %d = %g (relative)", what, t, v);
  }
  /* and a stretch is seen: x 1.01 gives relative violations ~ 0.0201 */
  for (int q = 0; q < 3 * n; q++) x[q] = 1.01 * m->x[q];
  v = rel_violation(md, x, C);
  CHECK(v > 0.0201 * 0.5, "%s: a 1%% stretch gives violation %g only", what, v);
  free(C);
  free(x);
  cf_model_free(md);
}

static void count_rows(const cf_mesh *m, int *nk, int *rows) {
  memset(nk, 0, 4 * sizeof(int));
  cf_model *md = cf_model_alloc(m, NULL);
  *rows = md ? cf_model_nrows(md) : -1;
  for (int r = 0; md && r < *rows; r++) {
    int k = cf_model_row_kind(md, r);
    if (k >= 0 && k < 4) nk[k]++;
  }
  cf_model_free(md);
}

static void check_row_counts(void) {
  double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  cf_mesh *m = cf_mesh_grid(7, 9, o, u, v, 1);
  cf_model *md = cf_model_alloc(m, NULL);
  CHECK(md != NULL, "7x9: model");
  if (!md) return;
  int nr = cf_model_nrows(md), nk[4] = {0, 0, 0, 0};
  CHECK(nr == 137, "7x9 quad grid: %d rows, expected 137", nr);
  int bad_node = 0;
  for (int r = 0; r < nr; r++) {
    int k = cf_model_row_kind(md, r), node = cf_model_row_node(md, r);
    CHECK(k >= CF_ROW_EDGE && k <= CF_ROW_G, "row %d: kind %d", r, k);
    if (k < 0 || k > 3) continue;
    nk[k]++;
    if (node < 0 || node >= m->n_nodes) {
      bad_node++;
      continue;
    }
    /* edges start at a boundary node; E and G rows sit on interior nodes;
     * F rows on interior nodes or corners */
    if (k == CF_ROW_EDGE) bad_node += !m->is_boundary[node];
    else if (k == CF_ROW_F) bad_node += m->is_boundary[node] && !m->is_corner[node];
    else bad_node += m->is_boundary[node];
  }
  CHECK(bad_node == 0, "7x9: %d rows on the wrong kind of node", bad_node);
  CHECK(nk[CF_ROW_EDGE] == 28, "7x9: %d edge rows, expected 28", nk[CF_ROW_EDGE]);
  CHECK(nk[CF_ROW_E] == 35, "7x9: %d E rows, expected 35", nk[CF_ROW_E]);
  CHECK(nk[CF_ROW_F] == 39, "7x9: %d F rows, expected 35 + 4 corners", nk[CF_ROW_F]);
  CHECK(nk[CF_ROW_G] == 35, "7x9: %d G rows, expected 35", nk[CF_ROW_G]);
  /* the edge rows' scales are the squared rest lengths (docs/design.md §4: c = l^2) */
  double dev = 0;
  for (int r = 0; r < nr; r++)
    if (cf_model_row_kind(md, r) == CF_ROW_EDGE) {
      double s = cf_model_row_scale(md, r);
      double l1 = 0.07 * 0.07, l2 = (0.594 / 8) * (0.594 / 8);
      dev = fmax(dev, fmin(fabs(s - l1) / l1, fabs(s - l2) / l2));
    }
  CHECK(dev < 1e-12, "7x9: edge row scales are not the squared lengths (dev %g)", dev);
  cf_model_free(md);
  cf_mesh_free(m);

  /* triangles 7x9: same boundary, corners and interior nodes */
  int rows;
  m = cf_mesh_grid(7, 9, o, u, v, 0);
  count_rows(m, nk, &rows);
  CHECK(rows == 137 && nk[0] == 28 && nk[1] == 35 && nk[2] == 39 && nk[3] == 35,
        "7x9 triangles: %d rows (%d %d %d %d)", rows, nk[0], nk[1], nk[2], nk[3]);
  cf_mesh_free(m);
  /* ring 4 x 24: 48 boundary edges, 3 x 24 interior nodes, no corners */
  m = cf_mesh_ring(0.09, 0.15, 4, 24, 0);
  count_rows(m, nk, &rows);
  CHECK(rows == 48 + 3 * 72 && nk[0] == 48 && nk[1] == 72 && nk[2] == 72 && nk[3] == 72,
        "ring: %d rows (%d %d %d %d)", rows, nk[0], nk[1], nk[2], nk[3]);
  cf_mesh_free(m);
  /* irregular triangles 6x6: 20 boundary edges, 16 interior, 4 corners */
  m = cf_mesh_square_tri(1, 6, 0.3, 7, 0);
  count_rows(m, nk, &rows);
  CHECK(rows == 20 + 48 + 4 && nk[0] == 20 && nk[1] == 16 && nk[2] == 20 && nk[3] == 16,
        "square_tri: %d rows (%d %d %d %d)", rows, nk[0], nk[1], nk[2], nk[3]);
  cf_mesh_free(m);
}

int main(void) {
  cf_runtime_init();
  double o[3] = {0.1, -0.3, 0.2}, u[3] = {0.42, 0.03, 0}, v[3] = {0, 0.05, 0.594};
  cf_mesh *meshes[5];
  const char *names[5] = {"quad grid 6x5", "lattice 4x5 -> 7x9", "triangle grid 6x5", "square_tri n=6",
                          "ring 3x16"};
  meshes[0] = cf_mesh_grid(6, 5, o, u, v, 1);
  double mk[4 * 5 * 3];
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 5; c++) {
      double *p = mk + 3 * (r * 5 + c);
      p[0] = 0.105 * c + 0.01 * cf_test_rand(&rng);
      p[1] = 0.03 * cf_test_rand(&rng);
      p[2] = 0.594 - 0.198 * r + 0.01 * cf_test_rand(&rng);
    }
  meshes[1] = cf_mesh_lattice_refine(4, 5, CF_LATTICE_SPLIT_DEFAULT, CF_LATTICE_SPLIT_DEFAULT, mk);
  meshes[2] = cf_mesh_grid(6, 5, o, u, v, 0);
  meshes[3] = cf_mesh_square_tri(0.5, 6, 0.3, 42, 0.3);
  meshes[4] = cf_mesh_ring(0.09, 0.15, 3, 16, 0.25);
  for (int k = 0; k < 5; k++) {
    CHECK(meshes[k] != NULL, "%s: generator failed", names[k]);
    if (!meshes[k]) continue;
    check_jacobian(meshes[k], names[k]);
    check_invariance(meshes[k], names[k]);
    cf_mesh_free(meshes[k]);
  }
  check_row_counts();
  return cf_test_done("test_jacobian");
}
