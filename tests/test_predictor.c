/* test_predictor.c — the tangent-space velocity predictor of the time
 * integrator (cf_params.predictor, sim.c; cf_proj_tangent, projection.c).
 *
 * cf_proj_tangent(x, v) must return the M-orthogonal projection of v onto
 * the tangent space {w : J(x) w = 0} of the constraints, with the driven
 * (kinematic) nodes' velocities held:
 *   v' = v - M^-1 J^T y,  (J M^-1 J^T) y = J v   (free nodes only move).
 * It is checked against a dense reference (Cholesky of J M^-1 J^T built
 * from cf_model_jacobian_dense) on randomly deformed quad and triangle
 * meshes: once with no factorization yet (it factorizes at x), once with
 * the factorization of a nearby state (stale: conjugate gradients must
 * still reach the tolerance, without refactorizing), and the result
 * satisfies J v' = 0 to the requested tolerance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "projection.h"
#include "testutil.h"

static unsigned long long rng = 0x5eed5eed12345ULL;

/* In-place dense Cholesky of the n x n SPD matrix A (lower), then solve. */
static int dense_solve(double *A, int n, double *b) {
  for (int j = 0; j < n; j++) {
    double d = A[j * n + j];
    for (int k = 0; k < j; k++) d -= A[j * n + k] * A[j * n + k];
    if (!(d > 0)) return 1;
    d = sqrt(d);
    A[j * n + j] = d;
    for (int i = j + 1; i < n; i++) {
      double s = A[i * n + j];
      for (int k = 0; k < j; k++) s -= A[i * n + k] * A[j * n + k];
      A[i * n + j] = s / d;
    }
  }
  for (int i = 0; i < n; i++) { /* L z = b */
    for (int k = 0; k < i; k++) b[i] -= A[i * n + k] * b[k];
    b[i] /= A[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) { /* L^T y = z */
    for (int k = i + 1; k < n; k++) b[i] -= A[k * n + i] * b[k];
    b[i] /= A[i * n + i];
  }
  return 0;
}

/* Reference projection; rows all of whose nodes are kinematic are dropped
 * and J M^-1 J^T gets the Tikhonov shift 1e-9 * mean diagonal, as in the
 * projection (docs/design.md §4: the least-norm correction on planar states). */
static void reference(const cf_model *md, const double *x, const double *invm, const double *v, double *out) {
  int nr = cf_model_nrows(md), nc = 3 * md->n;
  double *J = malloc(sizeof(double) * nr * nc), *A = calloc((size_t)nr * nr, sizeof(double));
  double *b = malloc(sizeof(double) * nr);
  int *rows = malloc(sizeof(int) * nr), na = 0;
  cf_model_jacobian_dense(md, x, J);
  for (int r = 0; r < nr; r++) {
    int active = 0;
    for (int c = 0; c < nc; c++) active |= J[r * nc + c] != 0 && invm[c / 3] > 0;
    if (active) rows[na++] = r;
  }
  for (int a = 0; a < na; a++) {
    const double *Ja = J + rows[a] * nc;
    b[a] = 0;
    for (int c = 0; c < nc; c++) b[a] += Ja[c] * v[c];
    for (int q = 0; q < na; q++) {
      const double *Jq = J + rows[q] * nc;
      double s = 0;
      for (int c = 0; c < nc; c++) s += Ja[c] * invm[c / 3] * Jq[c];
      A[a * na + q] = s;
    }
  }
  double tr = 0;
  for (int a = 0; a < na; a++) tr += A[a * na + a];
  for (int a = 0; a < na; a++) A[a * na + a] += 1e-9 * tr / na;
  CHECK(dense_solve(A, na, b) == 0, "reference: J M^-1 J^T not positive definite");
  memcpy(out, v, sizeof(double) * nc);
  for (int a = 0; a < na; a++)
    for (int c = 0; c < nc; c++) out[c] -= invm[c / 3] * J[rows[a] * nc + c] * b[a];
  free(J);
  free(A);
  free(b);
  free(rows);
}

static double max_abs(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(a[i]));
  return s;
}

/* max_r |(J v)_r| / c_r over the rows that have a free node */
static double rate_violation(const cf_model *md, const double *x, const double *invm, const double *v) {
  int nr = cf_model_nrows(md), nc = 3 * md->n;
  double *J = malloc(sizeof(double) * nr * nc), worst = 0;
  cf_model_jacobian_dense(md, x, J);
  for (int r = 0; r < nr; r++) {
    double s = 0;
    int active = 0;
    for (int c = 0; c < nc; c++) {
      s += J[r * nc + c] * v[c];
      active |= J[r * nc + c] != 0 && invm[c / 3] > 0;
    }
    if (active) worst = fmax(worst, fabs(s) / cf_model_row_scale(md, r));
  }
  free(J);
  return worst;
}

static void deform(const cf_mesh *m, double amp, double *x) {
  for (int i = 0; i < m->n_nodes; i++)
    for (int d = 0; d < 3; d++)
      x[3 * i + d] = m->x[3 * i + d] + amp * cf_test_rand(&rng) + (d == 2 ? 0.3 * m->x[3 * i] * m->x[3 * i] : 0);
}

static void check_mesh(cf_mesh *m, const int *kin, int n_kin, const char *what) {
  cf_error err = {0, ""};
  cf_model *md = cf_model_alloc(m, &err);
  CHECK(md != NULL, "%s: %s", what, err.msg);
  if (!md) return;
  int n = m->n_nodes, nc = 3 * n;
  double *invm = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * nc);
  double *v = malloc(sizeof(double) * nc), *w = malloc(sizeof(double) * nc), *ref = malloc(sizeof(double) * nc);
  for (int i = 0; i < n; i++) invm[i] = 1 / cf_model_mass(md)[i];
  for (int k = 0; k < n_kin; k++) invm[kin[k]] = 0;
  cf_proj *p = cf_proj_alloc(md, invm, &err);
  CHECK(p != NULL, "%s: %s", what, err.msg);
  const double h = 0.01, tol = 1e-6;
  deform(m, 0.01, x);
  for (int trial = 0; trial < 3 && p; trial++) {
    /* trial 0: no factor yet; trials 1, 2: the factor of the state before,
     * which moved by up to 0.5 mm per coordinate */
    if (trial > 0)
      for (int q = 0; q < nc; q++) x[q] += 0.0005 * cf_test_rand(&rng);
    for (int q = 0; q < nc; q++) v[q] = cf_test_rand(&rng);
    memcpy(w, v, sizeof(double) * nc);
    cf_proj_result res;
    int rc = cf_proj_tangent(p, x, w, h, tol, &res, &err);
    CHECK(rc == CF_OK, "%s trial %d: %s", what, trial, err.msg);
    reference(md, x, invm, v, ref);
    double diff = 0;
    for (int q = 0; q < nc; q++) diff = fmax(diff, fabs(w[q] - ref[q]));
    CHECK(diff <= 1e-5 * max_abs(v, nc), "%s trial %d: tangent projection differs from the dense reference by %g",
          what, trial, diff);
    for (int k = 0; k < n_kin; k++)
      for (int d = 0; d < 3; d++)
        CHECK(w[3 * kin[k] + d] == v[3 * kin[k] + d], "%s: kinematic velocity changed", what);
    /* the violation h J v' leaves after a step h: below the requested
     * fraction of tol (up to the shift's share, which the reference has too) */
    double before = h * rate_violation(md, x, invm, v), after = h * rate_violation(md, x, invm, w);
    double aref = h * rate_violation(md, x, invm, ref);
    CHECK(after <= CF_TANGENT_RTOL * tol + 2 * aref, "%s trial %d: h |J v'|/c = %g > %g", what, trial, after,
          CF_TANGENT_RTOL * tol + 2 * aref);
    CHECK(before > 1e3 * after, "%s trial %d: J v was already small (%g)", what, trial, before);
    CHECK(res.factorizations == (trial == 0), "%s trial %d: %d factorizations (expected %d)", what, trial,
          res.factorizations, trial == 0);
    printf("%s trial %d: h |Jv|/c %.3g -> %.3g, %d CG iterations, %d factorizations, max diff %.2g\n", what, trial,
           before, after, res.iterations, res.factorizations, diff);
  }
  cf_proj_free(p);
  cf_model_free(md);
  free(invm);
  free(x);
  free(v);
  free(w);
  free(ref);
}

int main(void) {
  cf_runtime_init();
  double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, vv[3] = {0, 0.594, 0};
  cf_mesh *q = cf_mesh_grid(7, 9, o, u, vv, 1);
  int kin[2] = {8 * 7, 9 * 7 - 1};
  check_mesh(q, kin, 2, "7x9 quads");
  cf_mesh *t = cf_mesh_grid(6, 6, o, u, vv, 0);
  check_mesh(t, NULL, 0, "6x6 triangles");
  cf_mesh_free(q);
  cf_mesh_free(t);
  return cf_test_done("test_predictor");
}
