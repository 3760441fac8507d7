/* test_mesh.c — mesh generators and mesh utilities (docs/design.md §4):
 * node/element/boundary/corner counts of every generator, total lumped mass
 * = area (exact for planar bilinear quads and linear triangles, so compared
 * to the exact polygon area), marker-lattice refinement, the validation in
 * cf_mesh_finalize, and the area errors (2.23)-(2.25). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "testutil.h"

static int count(const unsigned char *a, int n) {
  int c = 0;
  for (int i = 0; i < n; i++) c += a[i] != 0;
  return c;
}

static double total_mass(const cf_mesh *m) {
  double *mass = malloc(sizeof(double) * m->n_nodes), s = 0;
  cf_mesh_lumped_mass(m, m->x, mass);
  int pos = 1;
  for (int i = 0; i < m->n_nodes; i++) {
    s += mass[i];
    pos &= mass[i] > 0;
  }
  CHECK(pos, "every lumped mass must be > 0");
  free(mass);
  return s;
}

/* Every boundary edge is an edge of some element and has boundary nodes. */
static void check_bedges(const cf_mesh *m, const char *what) {
  int bad = 0;
  for (int e = 0; e < m->n_bedges; e++) {
    int a = m->bedges[2 * e], b = m->bedges[2 * e + 1], found = 0;
    bad += !m->is_boundary[a] || !m->is_boundary[b];
    for (int k = 0; k < m->n_elems && !found; k++)
      for (int i = 0; i < m->nv; i++) {
        int p = m->elems[k * m->nv + i], q = m->elems[k * m->nv + (i + 1) % m->nv];
        if ((p == a && q == b) || (p == b && q == a)) found = 1;
      }
    bad += !found;
  }
  CHECK(bad == 0, "%s: %d inconsistent boundary edges", what, bad);
}

static void test_grid(int quads) {
  const int nx = 7, ny = 9;
  /* a skew parallelogram in 3-D: area |u x v| */
  double o[3] = {0.3, -0.2, 1.1}, u[3] = {0.42, 0.05, 0.0}, v[3] = {0.1, 0.0, 0.594};
  cf_mesh *m = cf_mesh_grid(nx, ny, o, u, v, quads);
  CHECK(m != NULL, "cf_mesh_grid(quads=%d) failed", quads);
  if (!m) return;
  const char *w = quads ? "grid quads" : "grid triangles";
  CHECK(m->nv == (quads ? 4 : 3), "%s: nv = %d", w, m->nv);
  CHECK(m->n_nodes == nx * ny, "%s: n_nodes = %d", w, m->n_nodes);
  CHECK(m->n_elems == (nx - 1) * (ny - 1) * (quads ? 1 : 2), "%s: n_elems = %d", w, m->n_elems);
  CHECK(m->n_bedges == 2 * (nx - 1) + 2 * (ny - 1), "%s: n_bedges = %d", w, m->n_bedges);
  CHECK(count(m->is_boundary, m->n_nodes) == 2 * nx + 2 * ny - 4, "%s: boundary nodes = %d", w,
        count(m->is_boundary, m->n_nodes));
  CHECK(count(m->is_corner, m->n_nodes) == 4, "%s: corners = %d", w, count(m->is_corner, m->n_nodes));
  const int corner[4] = {0, nx - 1, (ny - 1) * nx, nx * ny - 1};
  for (int c = 0; c < 4; c++) CHECK(m->is_corner[corner[c]], "%s: node %d is not a corner", w, corner[c]);
  /* node (i,j) = origin + i/(nx-1) u + j/(ny-1) v */
  double maxdev = 0;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++)
      for (int d = 0; d < 3; d++) {
        double e = o[d] + u[d] * i / (nx - 1) + v[d] * j / (ny - 1);
        maxdev = fmax(maxdev, fabs(m->x[3 * (j * nx + i) + d] - e));
      }
  CHECK(maxdev < 1e-15, "%s: node positions off by %g", w, maxdev);
  check_bedges(m, w);
  double cx[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  double A = sqrt(cx[0] * cx[0] + cx[1] * cx[1] + cx[2] * cx[2]), M = total_mass(m);
  CHECK(fabs(M - A) <= 1e-13 * A, "%s: total lumped mass %.17g != area %.17g", w, M, A);
  double *area = malloc(sizeof(double) * m->n_elems), sa = 0;
  cf_mesh_element_areas(m, m->x, area);
  for (int k = 0; k < m->n_elems; k++) sa += area[k];
  CHECK(fabs(sa - A) <= 1e-13 * A, "%s: sum of element areas %.17g != %.17g", w, sa, A);
  free(area);
  cf_mesh_free(m);
}

static void test_ring(void) {
  const double r_in = 0.09, r_out = 0.15;
  const int n_rad = 4, n_ang = 24;
  cf_mesh *m = cf_mesh_ring(r_in, r_out, n_rad, n_ang, 0.7);
  CHECK(m != NULL, "cf_mesh_ring failed");
  if (!m) return;
  CHECK(m->nv == 4, "ring: nv = %d", m->nv);
  CHECK(m->n_nodes == (n_rad + 1) * n_ang, "ring: n_nodes = %d", m->n_nodes);
  CHECK(m->n_elems == n_rad * n_ang, "ring: n_elems = %d", m->n_elems);
  CHECK(m->n_bedges == 2 * n_ang, "ring: n_bedges = %d", m->n_bedges);
  CHECK(count(m->is_boundary, m->n_nodes) == 2 * n_ang, "ring: boundary nodes = %d",
        count(m->is_boundary, m->n_nodes));
  CHECK(count(m->is_corner, m->n_nodes) == 0, "ring: corners = %d", count(m->is_corner, m->n_nodes));
  /* boundary nodes are exactly those on the inner and outer circles */
  int bad = 0;
  for (int i = 0; i < m->n_nodes; i++) {
    double r = hypot(m->x[3 * i], m->x[3 * i + 1]);
    int on = fabs(r - r_in) < 1e-14 || fabs(r - r_out) < 1e-14;
    bad += on != (m->is_boundary[i] != 0) || m->x[3 * i + 2] != 0.7;
  }
  CHECK(bad == 0, "ring: %d nodes with wrong boundary flag or z", bad);
  check_bedges(m, "ring");
  /* planar trapezoids: 2x2 Gauss integrates |det J| (affine) exactly, so the
   * lumped mass sums to the area of the polygonal annulus */
  double A = 0.5 * n_ang * sin(2 * M_PI / n_ang) * (r_out * r_out - r_in * r_in), M = total_mass(m);
  CHECK(fabs(M - A) <= 1e-13 * A, "ring: total lumped mass %.17g != polygon area %.17g", M, A);
  /* and the polygon is within the discretization error of the annulus */
  double Ac = M_PI * (r_out * r_out - r_in * r_in);
  CHECK(fabs(M - Ac) / Ac < 2 * M_PI * M_PI / (3.0 * n_ang * n_ang), "ring: area %g vs annulus %g", M, Ac);
  cf_mesh_free(m);
}

static void test_square_tri(void) {
  const int n = 8;
  const double side = 0.5;
  cf_mesh *m = cf_mesh_square_tri(side, n, 0.3, 12345, 0.2);
  CHECK(m != NULL, "cf_mesh_square_tri failed");
  if (!m) return;
  CHECK(m->nv == 3, "square_tri: nv = %d", m->nv);
  CHECK(m->n_nodes == n * n, "square_tri: n_nodes = %d", m->n_nodes);
  CHECK(m->n_elems == 2 * (n - 1) * (n - 1), "square_tri: n_elems = %d", m->n_elems);
  CHECK(m->n_bedges == 4 * (n - 1), "square_tri: n_bedges = %d", m->n_bedges);
  CHECK(count(m->is_boundary, m->n_nodes) == 4 * (n - 1), "square_tri: boundary nodes = %d",
        count(m->is_boundary, m->n_nodes));
  CHECK(count(m->is_corner, m->n_nodes) == 4, "square_tri: corners = %d", count(m->is_corner, m->n_nodes));
  const int corner[4] = {0, n - 1, (n - 1) * n, n * n - 1};
  for (int c = 0; c < 4; c++) CHECK(m->is_corner[corner[c]], "square_tri: node %d is not a corner", corner[c]);
  check_bedges(m, "square_tri");
  /* interior nodes are jittered (within 0.3 h), boundary nodes are not */
  double h = side / (n - 1), maxj = 0;
  int moved = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      const double *p = m->x + 3 * (j * n + i);
      double dx = fabs(p[0] - i * h), dy = fabs(p[1] - j * h);
      maxj = fmax(maxj, fmax(dx, dy));
      if (dx > 1e-3 * h || dy > 1e-3 * h) moved++;
      CHECK(p[2] == 0.2, "square_tri: z of node %d", j * n + i);
    }
  CHECK(maxj <= 0.3 * h * (1 + 1e-12), "square_tri: jitter %g > 0.3 h", maxj);
  CHECK(moved > (n - 2) * (n - 2) / 2, "square_tri: only %d nodes jittered", moved);
  double M = total_mass(m);
  CHECK(fabs(M - side * side) <= 1e-13 * side * side, "square_tri: total mass %.17g != %.17g", M, side * side);
  /* deterministic for a seed, different for another seed */
  cf_mesh *m2 = cf_mesh_square_tri(side, n, 0.3, 12345, 0.2), *m3 = cf_mesh_square_tri(side, n, 0.3, 777, 0.2);
  CHECK(m2 && !memcmp(m2->x, m->x, sizeof(double) * 3 * m->n_nodes) &&
            !memcmp(m2->elems, m->elems, sizeof(int) * 3 * m->n_elems),
        "square_tri: same seed gave a different mesh");
  CHECK(m3 && memcmp(m3->x, m->x, sizeof(double) * 3 * m->n_nodes), "square_tri: seed ignored");
  cf_mesh_free(m2);
  cf_mesh_free(m3);
  cf_mesh_free(m);
}

/* The near-equilateral triangulation: counts, a closed square boundary,
 * counterclockwise triangles of sides close to h, total area side^2. */
static void test_square_hex(void) {
  const int n = 9;
  const double side = 0.8, h = side / (n - 1);
  cf_mesh *m = cf_mesh_square_hex(side, n, 0.15, 99, -0.1);
  CHECK(m != NULL && m->nv == 3, "cf_mesh_square_hex failed");
  if (!m) return;
  int ny = (int)lround(side / (h * sqrt(0.75))) + 1; /* 10 rows: 5 of 9 nodes, 5 of 10 */
  CHECK(ny == 10 && m->n_nodes == 95 && m->n_elems == 9 * (2 * n - 1), "square_hex: %d nodes, %d triangles",
        m->n_nodes, m->n_elems);
  CHECK(count(m->is_corner, m->n_nodes) == 4, "square_hex: corners = %d", count(m->is_corner, m->n_nodes));
  check_bedges(m, "square_hex");
  int off_side = 0, cw = 0;
  for (int i = 0; i < m->n_nodes; i++) {
    const double *p = m->x + 3 * i;
    int on = fabs(p[0]) < 1e-15 || fabs(p[0] - side) < 1e-15 || fabs(p[1]) < 1e-15 || fabs(p[1] - side) < 1e-15;
    off_side += m->is_boundary[i] && !on;
    CHECK(p[2] == -0.1, "square_hex: z of node %d", i);
  }
  double lmin = INFINITY, lmax = 0;
  for (int e = 0; e < m->n_elems; e++) {
    const int *q = m->elems + 3 * e;
    const double *a = m->x + 3 * q[0], *b = m->x + 3 * q[1], *c = m->x + 3 * q[2];
    cw += (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]) <= 0;
    for (int k = 0; k < 3; k++) {
      const double *u = m->x + 3 * q[k], *v = m->x + 3 * q[(k + 1) % 3];
      double l = hypot(u[0] - v[0], u[1] - v[1]);
      lmin = fmin(lmin, l), lmax = fmax(lmax, l);
    }
  }
  CHECK(off_side == 0 && cw == 0, "square_hex: %d boundary nodes off the square, %d triangles not counterclockwise",
        off_side, cw);
  CHECK(lmin > 0.2 * h && lmax < 1.6 * h, "square_hex: edges %.3g .. %.3g h", lmin / h, lmax / h);
  double M = total_mass(m);
  CHECK(fabs(M - side * side) <= 1e-13 * side * side, "square_hex: total mass %.17g != %.17g", M, side * side);
  cf_mesh *m2 = cf_mesh_square_hex(side, n, 0.15, 99, -0.1);
  CHECK(m2 && !memcmp(m2->x, m->x, sizeof(double) * 3 * m->n_nodes), "square_hex: same seed, another mesh");
  cf_mesh_free(m2);
  cf_mesh_free(m);
}

/* A marker lattice refined with every split of cells, down (sr) and across
 * (sc) alike or not: the mesh's shape (nodes, quads, boundary, corners),
 * the markers reproduced bit for bit at cf_mesh_lattice_node, and every
 * node on the bilinear interpolation of its cell (checked on a lattice
 * whose markers lie on a bilinear map, which the refinement must then
 * reproduce everywhere). */
static void lattice_split(int sr, int sc) {
  const int rows = 4, cols = 5, R = sr * (rows - 1) + 1, C = sc * (cols - 1) + 1;
  double mk[4 * 5 * 3];
  unsigned long long s = 99;
  /* a hanging lattice (row 0 on top) with random non-planar noise */
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      double *p = mk + 3 * (r * cols + c);
      p[0] = 0.105 * c + 0.01 * cf_test_rand(&s);
      p[1] = 0.02 * cf_test_rand(&s);
      p[2] = 0.594 - 0.198 * r + 0.01 * cf_test_rand(&s);
    }
  cf_mesh *m = cf_mesh_lattice_refine(rows, cols, sr, sc, mk);
  CHECK(m != NULL, "cf_mesh_lattice_refine (split %dx%d) failed", sr, sc);
  if (!m) return;
  CHECK(m->nv == 4 && m->n_nodes == R * C && m->n_elems == (R - 1) * (C - 1),
        "lattice split %dx%d: nv %d nodes %d elems %d", sr, sc, m->nv, m->n_nodes, m->n_elems);
  CHECK(m->n_bedges == 2 * (R - 1) + 2 * (C - 1), "lattice split %dx%d: n_bedges = %d", sr, sc, m->n_bedges);
  CHECK(count(m->is_corner, m->n_nodes) == 4, "lattice split %dx%d: corners = %d", sr, sc,
        count(m->is_corner, m->n_nodes));
  int bad = 0;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      int k = cf_mesh_lattice_node(rows, cols, sr, sc, r, c);
      CHECK(k == (sr * r) * C + sc * c, "lattice_node(%d,%d) split %dx%d = %d", r, c, sr, sc, k);
      if (k < 0 || k >= m->n_nodes) continue;
      /* the marker itself, bit for bit */
      bad += memcmp(m->x + 3 * k, mk + 3 * (r * cols + c), 3 * sizeof(double)) != 0;
    }
  CHECK(bad == 0, "lattice split %dx%d: %d markers not reproduced exactly at their nodes", sr, sc, bad);
  /* split 2, the fitting mesh: every node the mean of its two or four
   * markers summed as the refinement always did, bit for bit (the study's
   * fits must not move with a new version's rounding) */
  for (int a = 0; sr == 2 && sc == 2 && a < R; a++)
    for (int b = 0; b < C; b++) {
      int i0 = a / 2, i1 = (a + 1) / 2, j0 = b / 2, j1 = (b + 1) / 2;
      for (int d = 0; d < 3; d++)
        bad += m->x[3 * (a * C + b) + d] != 0.25 * (mk[3 * (i0 * cols + j0) + d] + mk[3 * (i0 * cols + j1) + d] +
                                                    mk[3 * (i1 * cols + j0) + d] + mk[3 * (i1 * cols + j1) + d]);
    }
  CHECK(bad == 0, "lattice split 2: %d coordinates differ from the markers' mean", bad);
  cf_mesh_free(m);
  /* markers on a bilinear map f(u, v) (u the row, v the column, in marker
   * units): node (a, b) must be f(a / sr, b / sc) */
  const double f0[3] = {0.1, -0.2, 0.5}, fu[3] = {0.02, 0.03, -0.2}, fv[3] = {0.1, 0.01, 0.004},
               fuv[3] = {0.003, -0.007, 0.002};
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      for (int d = 0; d < 3; d++) mk[3 * (r * cols + c) + d] = f0[d] + fu[d] * r + fv[d] * c + fuv[d] * r * c;
  m = cf_mesh_lattice_refine(rows, cols, sr, sc, mk);
  double dev = 0;
  for (int a = 0; m && a < R; a++)
    for (int b = 0; b < C; b++)
      for (int d = 0; d < 3; d++) {
        double u = (double)a / sr, v = (double)b / sc;
        dev = fmax(dev, fabs(m->x[3 * (a * C + b) + d] - (f0[d] + fu[d] * u + fv[d] * v + fuv[d] * u * v)));
      }
  CHECK(m && dev <= 1e-15, "lattice split %dx%d: nodes off the bilinear map by %g", sr, sc, dev);
  cf_mesh_free(m);
}

/* Thesis §4.1.5's meshes: a 9 x 9 recorded mesh (at rest, a sagging
 * sheet's non-planar frame) split 1x1, 1x2, 2x1 and 2x2 has 9 x 9, 9 x 17,
 * 17 x 9 and 17 x 17 nodes, and every recorded node is a node of each, at
 * its recorded position bit for bit. */
static void test_remesh_counts(void) {
  enum { N = 9 };
  double mk[N * N * 3];
  unsigned long long seed = 7;
  for (int r = 0; r < N; r++)
    for (int c = 0; c < N; c++) {
      double *p = mk + 3 * (r * N + c);
      p[0] = 0.297 * c / (N - 1), p[1] = 0.03 * sin(M_PI * c / (N - 1)) + 0.002 * cf_test_rand(&seed);
      p[2] = 0.42 * (1 - (double)r / (N - 1));
    }
  static const int sp[4][2] = {{1, 1}, {1, 2}, {2, 1}, {2, 2}}, nodes[4][2] = {{9, 9}, {9, 17}, {17, 9}, {17, 17}};
  for (int k = 0; k < 4; k++) {
    cf_mesh *m = cf_mesh_lattice_refine(N, N, sp[k][0], sp[k][1], mk);
    int R = nodes[k][0], C = nodes[k][1], moved = 0;
    CHECK(m && m->n_nodes == R * C && m->n_elems == (R - 1) * (C - 1), "9x9 split %dx%d: %d nodes, expected %d x %d",
          sp[k][0], sp[k][1], m ? m->n_nodes : -1, R, C);
    for (int j = 0; m && j < N * N; j++) {
      int q = cf_mesh_lattice_node(N, N, sp[k][0], sp[k][1], j / N, j % N);
      moved += q / C != sp[k][0] * (j / N) || q % C != sp[k][1] * (j % N) ||
               memcmp(m->x + 3 * q, mk + 3 * j, 3 * sizeof(double));
    }
    CHECK(moved == 0, "9x9 split %dx%d: %d recorded nodes not nodes at their place", sp[k][0], sp[k][1], moved);
    cf_mesh_free(m);
  }
}

static void test_lattice(void) {
  for (int sr = 1; sr <= CF_LATTICE_SPLIT_MAX; sr++)
    for (int sc = 1; sc <= CF_LATTICE_SPLIT_MAX; sc++) lattice_split(sr, sc);
  test_remesh_counts();
  /* the 3x4 lattice refines to 5x7 with the default split (thesis §4.2.2) */
  double mk[3 * 4 * 3];
  for (int j = 0; j < 12; j++) mk[3 * j] = 0.1 * (j % 4), mk[3 * j + 1] = 0, mk[3 * j + 2] = -0.1 * (j / 4);
  cf_mesh *m2 = cf_mesh_lattice_refine(3, 4, CF_LATTICE_SPLIT_DEFAULT, CF_LATTICE_SPLIT_DEFAULT, mk);
  CHECK(m2 && m2->n_nodes == 35 && m2->n_elems == 24, "3x4 lattice: %d nodes", m2 ? m2->n_nodes : -1);
  cf_mesh_free(m2);
  CHECK(cf_mesh_lattice_refine(3, 4, 0, 0, mk) == NULL, "split 0 accepted");
  CHECK(cf_mesh_lattice_refine(3, 4, 1, 0, mk) == NULL, "split 1x0 accepted");
  CHECK(cf_mesh_lattice_refine(3, 4, CF_LATTICE_SPLIT_MAX + 1, 1, mk) == NULL, "split %dx1 accepted",
        CF_LATTICE_SPLIT_MAX + 1);
  CHECK(cf_mesh_lattice_refine(3, 4, 1, CF_LATTICE_SPLIT_MAX + 1, mk) == NULL, "split 1x%d accepted",
        CF_LATTICE_SPLIT_MAX + 1);
}

static void test_finalize_errors(void) {
  /* two triangles of a unit square */
  const double x[4 * 3] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  cf_mesh *m = cf_mesh_alloc(3, 4, 2);
  memcpy(m->x, x, sizeof x);
  const int good[6] = {0, 1, 2, 0, 2, 3};
  memcpy(m->elems, good, sizeof good);
  cf_error err = {0, ""};
  CHECK(cf_mesh_finalize(m, &err) == CF_OK, "valid mesh rejected: %s", err.msg);
  CHECK(m->n_bedges == 4, "unit square: n_bedges = %d", m->n_bedges);

  /* elements need not be consistently oriented: the second triangle
   * flipped gives the same boundary and the same four corners */
  const int flipped[6] = {0, 1, 2, 0, 3, 2};
  memcpy(m->elems, flipped, sizeof flipped);
  err = (cf_error){0, ""};
  CHECK(cf_mesh_finalize(m, &err) == CF_OK, "inconsistently oriented mesh rejected: %s", err.msg);
  CHECK(m->n_bedges == 4 && count(m->is_boundary, 4) == 4 && count(m->is_corner, 4) == 4,
        "flipped triangle: %d boundary edges, %d corners (expected 4, 4)", m->n_bedges, count(m->is_corner, 4));

  int bad_hi[6] = {0, 1, 2, 0, 2, 4}; /* node 4 does not exist */
  memcpy(m->elems, bad_hi, sizeof bad_hi);
  err = (cf_error){0, ""};
  int rc = cf_mesh_finalize(m, &err);
  CHECK(rc == CF_EINVAL && err.code == CF_EINVAL, "out-of-range index: rc %d", rc);
  CHECK(strstr(err.msg, "element 1") && strstr(err.msg, "4"), "out-of-range message: '%s'", err.msg);

  int bad_lo[6] = {0, 1, 2, -1, 2, 3};
  memcpy(m->elems, bad_lo, sizeof bad_lo);
  err = (cf_error){0, ""};
  rc = cf_mesh_finalize(m, &err);
  CHECK(rc == CF_EINVAL && strstr(err.msg, "element 1") && strstr(err.msg, "-1"),
        "negative index: rc %d '%s'", rc, err.msg);

  int rep[6] = {0, 1, 2, 0, 2, 2}; /* repeated node: zero area */
  memcpy(m->elems, rep, sizeof rep);
  err = (cf_error){0, ""};
  rc = cf_mesh_finalize(m, &err);
  CHECK(rc == CF_EINVAL && strstr(err.msg, "element 1") && strstr(err.msg, "area"),
        "repeated node: rc %d '%s'", rc, err.msg);
  cf_mesh_free(m);

  /* collinear nodes in general position (not on an axis): zero area up to
   * rounding, must still be rejected */
  m = cf_mesh_alloc(3, 4, 2);
  const double p0[3] = {0.1, 0.7, 0.3}, dd[3] = {0.37, 0.11, 0.29}, q[3] = {0.3, 0.9, 0.1};
  for (int d = 0; d < 3; d++) {
    m->x[d] = p0[d];
    m->x[3 + d] = p0[d] + dd[d];
    m->x[6 + d] = p0[d] + 2.3 * dd[d];
    m->x[9 + d] = q[d];
  }
  const int col[6] = {0, 1, 3, 0, 1, 2};
  memcpy(m->elems, col, sizeof col);
  err = (cf_error){0, ""};
  rc = cf_mesh_finalize(m, &err);
  CHECK(rc == CF_EINVAL && strstr(err.msg, "element 1"), "collinear element: rc %d '%s'", rc, err.msg);
  cf_mesh_free(m);

  /* quads: a quad with two coincident nodes collapsed to a segment */
  m = cf_mesh_alloc(4, 4, 1);
  const double xs[12] = {0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0};
  memcpy(m->x, xs, sizeof xs);
  for (int i = 0; i < 4; i++) m->elems[i] = i;
  err = (cf_error){0, ""};
  rc = cf_mesh_finalize(m, &err);
  CHECK(rc == CF_EINVAL && strstr(err.msg, "element 0"), "flat quad: rc %d '%s'", rc, err.msg);
  cf_mesh_free(m);
}

static void test_area_error(void) {
  double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  for (int quads = 0; quads <= 1; quads++) {
    cf_mesh *m = cf_mesh_grid(7, 9, o, u, v, quads);
    double *a0 = malloc(sizeof(double) * m->n_elems), *x = malloc(sizeof(double) * 3 * m->n_nodes);
    cf_mesh_element_areas(m, m->x, a0);
    cf_area_error e = cf_mesh_area_error(m, a0, m->x);
    CHECK(e.total == 0 && e.mean == 0 && e.dispersion == 0, "rest area error %g %g %g", e.total, e.mean,
          e.dispersion);
    for (int i = 0; i < 3 * m->n_nodes; i++) x[i] = 1.01 * m->x[i] + (i % 3 == 1 ? 0.3 : 0);
    e = cf_mesh_area_error(m, a0, x);
    CHECK(fabs(e.total - 0.0201) < 1e-12, "scaled x1.01: total %.15g", e.total);
    CHECK(fabs(e.mean - 0.0201) < 1e-12, "scaled x1.01: mean %.15g", e.mean);
    CHECK(fabs(e.dispersion - 0.0201) < 1e-7, "scaled x1.01: dispersion %.15g", e.dispersion);
    /* an interior node moved in the plane: the elements around it grow and
     * shrink but the polygon they tile is unchanged, so the total error
     * (2.23) stays 0 while the mean element error (2.24) does not */
    for (int i = 0; i < 3 * m->n_nodes; i++) x[i] = m->x[i];
    x[3 * (4 * 7 + 3) + 0] += 0.02; /* node (3,4), spacing 0.07 x 0.074 */
    e = cf_mesh_area_error(m, a0, x);
    CHECK(e.total < 1e-14 && e.mean > 1e-3 && e.dispersion > e.mean,
          "in-plane move: total %g mean %g dispersion %g", e.total, e.mean, e.dispersion);
    free(a0);
    free(x);
    cf_mesh_free(m);
  }
}

static void test_rejects_bad_arguments(void) {
  double o[3] = {0, 0, 0}, u[3] = {1, 0, 0}, v[3] = {0, 1, 0};
  CHECK(cf_mesh_grid(1, 5, o, u, v, 1) == NULL, "grid nx = 1 accepted");
  CHECK(cf_mesh_ring(0.2, 0.1, 2, 16, 0) == NULL, "ring r_out < r_in accepted");
  CHECK(cf_mesh_ring(0.1, 0.2, 2, 2, 0) == NULL, "ring n_ang = 2 accepted");
  CHECK(cf_mesh_square_tri(1, 5, 0.5, 1, 0) == NULL, "square_tri jitter 0.5 accepted");
  CHECK(cf_mesh_square_hex(1, 2, 0.1, 1, 0) == NULL, "square_hex n = 2 accepted");
  CHECK(cf_mesh_lattice_refine(1, 5, 2, 2, NULL) == NULL, "lattice 1 row accepted");
}

int main(void) {
  cf_runtime_init();
  test_grid(1);
  test_grid(0);
  test_ring();
  test_square_tri();
  test_square_hex();
  test_lattice();
  test_finalize_errors();
  test_area_error();
  test_rejects_bad_arguments();
  return cf_test_done("test_mesh");
}
