/* mesh_gen.c — mesh generators: grids, marker-lattice refinement, rings
 * (Cusick's test), irregular triangulations of a square (locking test),
 * and the lumped-mass weights of a marker lattice. */
#include <math.h>
#include <stdlib.h>

#include "cf_sim.h"

static cf_mesh *finalized(cf_mesh *m) {
  if (m && cf_mesh_finalize(m, NULL) != CF_OK) {
    cf_mesh_free(m);
    return NULL;
  }
  return m;
}

/* Connect an nx x ny block of nodes (index j*nx + i) into quads or into
 * triangles; diag(i,j) chooses the diagonal of each triangulated cell. */
static void connect_grid(cf_mesh *m, int nx, int ny, int quads, const unsigned char *diag) {
  int e = 0;
  for (int j = 0; j + 1 < ny; j++)
    for (int i = 0; i + 1 < nx; i++) {
      int a = j * nx + i, b = a + 1, c = a + nx + 1, d = a + nx;
      int *q = m->elems + (size_t)e * m->nv;
      if (quads) {
        q[0] = a; q[1] = b; q[2] = c; q[3] = d;
        e++;
        continue;
      }
      if (diag[j * (nx - 1) + i]) { /* diagonal a-c */
        q[0] = a; q[1] = b; q[2] = c;
        q[3] = a; q[4] = c; q[5] = d;
      } else { /* diagonal b-d */
        q[0] = a; q[1] = b; q[2] = d;
        q[3] = b; q[4] = c; q[5] = d;
      }
      e += 2;
    }
}

cf_mesh *cf_mesh_grid(int nx, int ny, const double origin[3], const double u[3],
                      const double v[3], int quads) {
  if (nx < 2 || ny < 2) return NULL;
  int ne = (nx - 1) * (ny - 1) * (quads ? 1 : 2);
  cf_mesh *m = cf_mesh_alloc(quads ? 4 : 3, nx * ny, ne);
  if (!m) return NULL;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      double s = (double)i / (nx - 1), t = (double)j / (ny - 1);
      for (int d = 0; d < 3; d++) m->x[3 * (j * nx + i) + d] = origin[d] + s * u[d] + t * v[d];
    }
  unsigned char *diag = NULL;
  if (!quads) {
    diag = malloc((size_t)(nx - 1) * (ny - 1));
    if (!diag) {
      cf_mesh_free(m);
      return NULL;
    }
    for (int j = 0; j + 1 < ny; j++)
      for (int i = 0; i + 1 < nx; i++) diag[j * (nx - 1) + i] = (unsigned char)((i + j) & 1);
  }
  connect_grid(m, nx, ny, quads, diag);
  free(diag);
  return finalized(m);
}

int cf_mesh_lattice_node(int rows, int cols, int split_r, int split_c, int r, int c) {
  (void)rows;
  return (split_r * r) * (split_c * (cols - 1) + 1) + split_c * c;
}

int cf_mesh_lattice_weights(int rows, int cols, const double *x, double *w, cf_error *err) {
  if (rows < 2 || cols < 2)
    return cf_error_set(err, CF_EINVAL, "lattice %dx%d: expected at least 2x2 markers", rows, cols);
  int K = rows * cols;
  cf_mesh *m = cf_mesh_alloc(4, K, (rows - 1) * (cols - 1));
  if (!m) return cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; i < 3 * K; i++) m->x[i] = x[i];
  int e = 0;
  for (int r = 0; r + 1 < rows; r++)
    for (int c = 0; c + 1 < cols; c++, e++) {
      int *q = m->elems + 4 * e;
      q[0] = r * cols + c;
      q[1] = q[0] + 1;
      q[2] = q[0] + cols + 1;
      q[3] = q[0] + cols;
    }
  int rc = cf_mesh_node_weights(m, m->x, w, err);
  cf_mesh_free(m);
  return rc;
}

int cf_mesh_node_weights(const cf_mesh *m, const double *x, double *w, cf_error *err) {
  int K = m->n_nodes;
  cf_mesh_lumped_mass(m, x, w);
  double s = 0;
  for (int j = 0; j < K; j++) s += w[j];
  if (!(s > 0) || !isfinite(s))
    return cf_error_set(err, CF_EINVAL, "lattice weights: markers of frame 0 are degenerate or missing");
  for (int j = 0; j < K; j++) w[j] *= K / s;
  return CF_OK;
}

int cf_mesh_lattice_cell(int a, int n, int split, double *s) {
  int i = a / split < n - 1 ? a / split : n - 2;
  *s = (double)(a - split * i) / split;
  return i;
}

cf_mesh *cf_mesh_lattice_refine(int rows, int cols, int split_r, int split_c, const double *mk) {
  if (rows < 2 || cols < 2 || split_r < 1 || split_r > CF_LATTICE_SPLIT_MAX || split_c < 1 ||
      split_c > CF_LATTICE_SPLIT_MAX)
    return NULL;
  int R = split_r * (rows - 1) + 1, C = split_c * (cols - 1) + 1;
  cf_mesh *m = cf_mesh_alloc(4, R * C, (R - 1) * (C - 1));
  if (!m) return NULL;
  for (int a = 0; a < R; a++)
    for (int b = 0; b < C; b++) {
      if (split_r == 2 && split_c == 2) { /* the markers' mean, summed as before --split existed: the default
                           mesh stays bit for bit what earlier versions fitted on (the bundled
                           study's twist fits move with the last bit, docs/confidence.md) */
        int i0 = a / 2, i1 = (a + 1) / 2, j0 = b / 2, j1 = (b + 1) / 2;
        for (int d = 0; d < 3; d++)
          m->x[3 * (a * C + b) + d] = 0.25 * (mk[3 * (i0 * cols + j0) + d] + mk[3 * (i0 * cols + j1) + d] +
                                              mk[3 * (i1 * cols + j0) + d] + mk[3 * (i1 * cols + j1) + d]);
        continue;
      }
      double s, t;
      int i = cf_mesh_lattice_cell(a, rows, split_r, &s), j = cf_mesh_lattice_cell(b, cols, split_c, &t);
      const double *p00 = mk + 3 * (i * cols + j), *p01 = p00 + 3, *p10 = p00 + 3 * cols, *p11 = p10 + 3;
      for (int d = 0; d < 3; d++)
        m->x[3 * (a * C + b) + d] =
            (1 - s) * ((1 - t) * p00[d] + t * p01[d]) + s * ((1 - t) * p10[d] + t * p11[d]);
    }
  connect_grid(m, C, R, 1, NULL);
  return finalized(m);
}

cf_mesh *cf_mesh_ring(double r_in, double r_out, int n_rad, int n_ang, double z0) {
  if (n_rad < 1 || n_ang < 3 || !(r_in > 0) || !(r_out > r_in)) return NULL;
  cf_mesh *m = cf_mesh_alloc(4, (n_rad + 1) * n_ang, n_rad * n_ang);
  if (!m) return NULL;
  for (int k = 0; k <= n_rad; k++) {
    double r = r_in + (r_out - r_in) * k / n_rad;
    for (int j = 0; j < n_ang; j++) {
      double th = 2 * M_PI * j / n_ang;
      double *p = m->x + 3 * (k * n_ang + j);
      p[0] = r * cos(th);
      p[1] = r * sin(th);
      p[2] = z0;
    }
  }
  int e = 0;
  for (int k = 0; k < n_rad; k++)
    for (int j = 0; j < n_ang; j++) {
      int *q = m->elems + 4 * e++;
      int j1 = (j + 1) % n_ang;
      q[0] = k * n_ang + j;
      q[1] = (k + 1) * n_ang + j;
      q[2] = (k + 1) * n_ang + j1;
      q[3] = k * n_ang + j1;
    }
  return finalized(m);
}

cf_mesh *cf_mesh_tube(double length, double circumference, int n_along, int n_around, double z_axis) {
  if (n_along < 2 || n_around < 3 || !(length > 0) || !(circumference > 0)) return NULL;
  cf_mesh *m = cf_mesh_alloc(4, n_along * n_around, (n_along - 1) * n_around);
  if (!m) return NULL;
  double r = circumference / (2 * M_PI);
  for (int j = 0; j < n_around; j++)
    for (int i = 0; i < n_along; i++) {
      double th = 2 * M_PI * j / n_around, *p = m->x + 3 * (j * n_along + i);
      p[0] = length * i / (n_along - 1);
      p[1] = r * sin(th);
      p[2] = z_axis - r * cos(th); /* node row 0 at the bottom */
    }
  int e = 0;
  for (int j = 0; j < n_around; j++)
    for (int i = 0; i + 1 < n_along; i++) {
      int *q = m->elems + 4 * e++, j1 = (j + 1) % n_around;
      q[0] = j * n_along + i, q[1] = j * n_along + i + 1, q[2] = j1 * n_along + i + 1, q[3] = j1 * n_along + i;
    }
  return finalized(m);
}

/* splitmix64: small, seedable, identical on every platform. */
static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static double uniform01(uint64_t *s) { return (splitmix64(s) >> 11) * (1.0 / 9007199254740992.0); }

cf_mesh *cf_mesh_square_tri(double side, int n, double jitter, uint64_t seed, double z0) {
  if (n < 2 || !(side > 0) || jitter < 0 || jitter >= 0.5) return NULL;
  cf_mesh *m = cf_mesh_alloc(3, n * n, 2 * (n - 1) * (n - 1));
  unsigned char *diag = malloc((size_t)(n - 1) * (n - 1));
  if (!m || !diag) {
    cf_mesh_free(m);
    free(diag);
    return NULL;
  }
  uint64_t s = seed;
  double h = side / (n - 1);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double *p = m->x + 3 * (j * n + i);
      double ju = uniform01(&s) * 2 - 1, jv = uniform01(&s) * 2 - 1;
      int in = i > 0 && i < n - 1, jn = j > 0 && j < n - 1;
      p[0] = i * h + (in ? jitter * h * ju : 0);
      p[1] = j * h + (jn ? jitter * h * jv : 0);
      p[2] = z0;
    }
  for (int k = 0; k < (n - 1) * (n - 1); k++) diag[k] = (unsigned char)(splitmix64(&s) & 1);
  connect_grid(m, n, n, 0, diag);
  free(diag);
  return finalized(m);
}

/* Node x positions of row j of cf_mesh_square_hex (before jitter): even
 * rows i h, i = 0 .. n-1; odd rows 0, (i + 1/2) h, side (n + 1 nodes). */
static int hex_row(int n, int j, double h, double side, double *xs) {
  if (j % 2 == 0) {
    for (int i = 0; i < n; i++) xs[i] = i * h;
    return n;
  }
  xs[0] = 0;
  for (int i = 0; i + 1 < n; i++) xs[i + 1] = (i + 0.5) * h;
  xs[n] = side;
  return n + 1;
}

cf_mesh *cf_mesh_square_hex(double side, int n, double jitter, uint64_t seed, double z0) {
  if (n < 3 || !(side > 0) || jitter < 0 || jitter >= 0.5) return NULL;
  double h = side / (n - 1);
  int ny = (int)lround(side / (h * sqrt(0.75))) + 1, nodes = 0, elems = 0;
  for (int j = 0; j < ny; j++) nodes += j % 2 ? n + 1 : n;
  for (int j = 0; j + 1 < ny; j++) elems += 2 * n - 1; /* a strip of rows n and n+1: (n-1) + n */
  cf_mesh *m = cf_mesh_alloc(3, nodes, elems);
  double *xs = malloc(sizeof(double) * (size_t)(n + 1));
  int *start = malloc(sizeof(int) * (size_t)(ny + 1));
  if (!m || !xs || !start) {
    cf_mesh_free(m), free(xs), free(start);
    return NULL;
  }
  uint64_t s = seed;
  double hy = side / (ny - 1);
  start[0] = 0;
  for (int j = 0; j < ny; j++) {
    int c = hex_row(n, j, h, side, xs);
    start[j + 1] = start[j] + c;
    for (int i = 0; i < c; i++) {
      double *p = m->x + 3 * (start[j] + i);
      double ju = uniform01(&s) * 2 - 1, jv = uniform01(&s) * 2 - 1;
      int in = i > 0 && i < c - 1, jn = j > 0 && j < ny - 1;
      p[0] = xs[i] + (in ? jitter * h * ju : 0);
      p[1] = j * hy + (jn ? jitter * hy * jv : 0);
      p[2] = z0;
    }
  }
  /* each strip between rows j (below) and j+1 (above) zipped from left to
   * right: advance the row whose next node lies further left; every
   * triangle counterclockwise seen from +z */
  int e = 0;
  for (int j = 0; j + 1 < ny; j++) {
    int a = start[j], ae = start[j + 1] - 1, b = start[j + 1], be = start[j + 2] - 1;
    while (a < ae || b < be) {
      int *q = m->elems + 3 * (size_t)e++;
      if (b == be || (a < ae && m->x[3 * (a + 1)] <= m->x[3 * (b + 1)])) {
        q[0] = a, q[1] = a + 1, q[2] = b;
        a++;
      } else {
        q[0] = a, q[1] = b + 1, q[2] = b;
        b++;
      }
    }
  }
  free(xs), free(start);
  return finalized(m);
}

