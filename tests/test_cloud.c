/* test_cloud.c — the point-cloud error of src/fit (cloud.c):
 * 1. exact distances to one triangle: above its interior, beyond each edge,
 *    beyond each vertex, in its plane;
 * 2. the grid index gives the brute-force distance (to round-off) for
 *    random points near and far from random wavy and folded meshes and from
 *    a triangle soup, several seeds;
 * 3. the trimmed mean equals the mean of the sorted values without the
 *    largest, with ties;
 * 4. a cloud sampled on the surface gives ~0; a flat sheet's cloud against
 *    the sheet moved 1 cm across gives 1 cm;
 * 5. a cloud seen from one side (the triangles facing the camera) and the
 *    same cloud with the far side added (the triangles facing away and a
 *    second sampling of the whole sheet: its other face) give the same error
 *    within the noise: the error is one-sided;
 * 6. 2 % far outliers added move the error by less than 5 %. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "testutil.h"

#define N 17 /* nodes a side: the 17 x 17 cloth of the benchmark */
#define W 0.297
#define H 0.42

static unsigned long long rng = 12345;

static double gauss(void) {
  double u = 0.5 * (cf_test_rand(&rng) + 1), v = 0.5 * (cf_test_rand(&rng) + 1);
  return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

/* ---------------------------------------------------------------- 1 */
static void hand_cases(void) {
  const double a[3] = {0, 0, 0}, b[3] = {1, 0, 0}, c[3] = {0, 1, 0};
  const struct {
    double p[3], d;
    const char *where;
  } k[] = {
      {{0.2, 0.2, 0.5}, 0.5, "above the interior"},
      {{0.2, 0.3, -0.25}, 0.25, "below the interior"},
      {{0.3, 0.3, 0}, 0, "in the triangle"},
      {{0.5, -0.3, 0.4}, 0.5, "beyond edge ab"},
      {{-0.3, 0.5, 0.4}, 0.5, "beyond edge ac"},
      {{1, 1, 0}, sqrt(0.5), "beyond edge bc, in the plane"},
      {{0.8, 0.8, 0.3}, sqrt(0.18 + 0.09), "beyond edge bc, above"},
      {{-0.3, -0.4, 0}, 0.5, "beyond vertex a"},
      {{1.3, -0.4, 0}, 0.5, "beyond vertex b"},
      {{-0.3, 1.4, 0}, 0.5, "beyond vertex c"},
      {{1.3, 0.1, 0.4}, sqrt(0.26), "beyond vertex b, above (past the end of edge bc)"},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    double d = cf_cloud_point_triangle(k[i].p, a, b, c), e = cf_cloud_point_triangle(k[i].p, b, c, a);
    CHECK(fabs(d - k[i].d) < 1e-14 && fabs(e - k[i].d) < 1e-14, "%s: %.17g (rotated %.17g), expected %.17g",
          k[i].where, d, e, k[i].d);
  }
  /* beyond vertex b, off the plane: (1.3, -0.4, 1.2) - b = (0.3, -0.4, 1.2), |.| = 1.3 */
  const double p[3] = {1.3, -0.4, 1.2};
  CHECK(fabs(cf_cloud_point_triangle(p, a, b, c) - 1.3) < 1e-14, "vertex b off the plane");
  int quad[4] = {0, 1, 2, 3}, tri[6];
  CHECK(cf_cloud_triangles(quad, 1, 4, tri) == 2 && tri[0] == 0 && tri[2] == 2 && tri[3] == 0 && tri[4] == 2 &&
            tri[5] == 3, "a quad splits into (0 1 2) and (0 2 3)");
}

/* ---------------------------------------------------------------- meshes */
typedef struct {
  double x[N * N * 3];
  int tri[(N - 1) * (N - 1) * 6];
  int n_tri;
} sheet;

/* A hanging sheet (x across, z down) with its cross-section bent: amp 0 is
 * flat; fold > 0 folds it back over itself (x(u) not monotone), so that
 * some of it faces away from a camera on the -y side. */
static void make_sheet(sheet *s, double amp, double fold, double jitter, double shift_y) {
  int faces[(N - 1) * (N - 1) * 4], nf = 0;
  for (int r = 0; r < N; r++)
    for (int c = 0; c < N; c++) {
      double u = (double)c / (N - 1), v = (double)r / (N - 1), *x = s->x + 3 * (r * N + c);
      x[0] = W * (u + fold * sin(2 * M_PI * u)) + jitter * cf_test_rand(&rng);
      x[1] = amp * cos(2 * M_PI * u) * (0.5 + v) + shift_y + jitter * cf_test_rand(&rng);
      x[2] = -H * v + jitter * cf_test_rand(&rng);
    }
  for (int r = 0; r + 1 < N; r++)
    for (int c = 0; c + 1 < N; c++, nf++) {
      int *f = faces + 4 * nf, i = r * N + c;
      f[0] = i, f[1] = i + N, f[2] = i + N + 1, f[3] = i + 1;
    }
  s->n_tri = cf_cloud_triangles(faces, nf, 4, s->tri);
}

static void tri_normal(const sheet *s, int t, double *n, double *area) {
  const double *a = s->x + 3 * s->tri[3 * t], *b = s->x + 3 * s->tri[3 * t + 1], *c = s->x + 3 * s->tri[3 * t + 2];
  double u[3], v[3];
  for (int i = 0; i < 3; i++) u[i] = b[i] - a[i], v[i] = c[i] - a[i];
  n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2], n[2] = u[0] * v[1] - u[1] * v[0];
  double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  *area = 0.5 * l;
  for (int i = 0; i < 3; i++) n[i] /= l;
}

/* m points on triangle t (uniform), moved along its normal by noise x N(0, 1). */
static long sample_tri(const sheet *s, int t, int m, double noise, double *pts) {
  const double *a = s->x + 3 * s->tri[3 * t], *b = s->x + 3 * s->tri[3 * t + 1], *c = s->x + 3 * s->tri[3 * t + 2];
  double n[3], area;
  tri_normal(s, t, n, &area);
  for (int k = 0; k < m; k++) {
    double u = 0.5 * (cf_test_rand(&rng) + 1), v = 0.5 * (cf_test_rand(&rng) + 1);
    if (u + v > 1) u = 1 - u, v = 1 - v;
    double g = noise * gauss();
    for (int i = 0; i < 3; i++) pts[3 * k + i] = a[i] + u * (b[i] - a[i]) + v * (c[i] - a[i]) + g * n[i];
  }
  return m;
}

/* Points on the triangles whose normal faces the camera (side > 0: n_y < 0,
 * the camera on the -y side looking along +y), away from it (side < 0) or
 * all (side 0), ~density points a m^2. */
static long sample(const sheet *s, int side, double density, double noise, double *pts) {
  long n = 0;
  for (int t = 0; t < s->n_tri; t++) {
    double nrm[3], area;
    tri_normal(s, t, nrm, &area);
    if ((side > 0 && nrm[1] >= 0) || (side < 0 && nrm[1] < 0)) continue;
    n += sample_tri(s, t, (int)ceil(area * density), noise, pts + 3 * n);
  }
  return n;
}

/* ---------------------------------------------------------------- 2 */
static void index_vs_brute(void) {
  cf_cloud_index *ix = cf_cloud_index_alloc();
  static sheet s;
  double worst = 0;
  for (int seed = 1; seed <= 6; seed++) {
    rng = 1000 + seed;
    make_sheet(&s, 0.02 * seed, seed % 2 ? 0.25 : 0, seed > 3 ? 0.01 : 0, 0);
    if (seed == 6) /* a soup: every triangle's corners anywhere in a 0.3 m box */
      for (int i = 0; i < N * N * 3; i++) s.x[i] = 0.15 * cf_test_rand(&rng);
    cf_error err = {0, ""};
    CHECK(cf_cloud_index_build(ix, s.x, s.n_tri, s.tri, &err) == CF_OK, "seed %d: %s", seed, err.msg);
    for (int k = 0; k < 3000; k++) {
      double p[3], scale = k % 10 == 0 ? 2.0 : k % 3 == 0 ? 0.3 : 0.02; /* far, around, near */
      const double *q = s.x + 3 * (k * 7 % (N * N));
      for (int i = 0; i < 3; i++) p[i] = q[i] + scale * cf_test_rand(&rng);
      double d = cf_cloud_index_dist(ix, p), e = cf_cloud_dist_brute(s.x, s.n_tri, s.tri, p);
      worst = fmax(worst, fabs(d - e));
      CHECK(fabs(d - e) <= 1e-15 + 1e-13 * e, "seed %d point %d: index %.17g, brute force %.17g", seed, k, d, e);
    }
  }
  printf("index vs brute force: largest difference %.3g m over 6 x 3000 points\n", worst);
  cf_cloud_index_free(ix);
}

/* ---------------------------------------------------------------- 3 */
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void trimmed_mean(void) {
  for (int n = 1; n <= 400; n += n < 20 ? 1 : 37) {
    double v[400], w[400];
    for (int i = 0; i < n; i++) v[i] = w[i] = floor(10 * (cf_test_rand(&rng) + 1)) / 4; /* many ties */
    qsort(w, n, sizeof *w, cmp);
    long k = n - (long)floor(0.05 * n);
    double s = 0;
    for (long i = 0; i < k; i++) s += w[i];
    double m = cf_cloud_trimmed_mean(v, n, 0.05);
    CHECK(fabs(m - s / k) < 1e-12, "n %d: %.17g, expected %.17g", n, m, s / k);
  }
}

/* ---------------------------------------------------------------- 4-6 */
static double frame_error(cf_cloud_index *ix, const sheet *surf, const double *pts, long n) {
  cf_error err = {0, ""};
  double *work = malloc(sizeof(double) * (size_t)n);
  CHECK(cf_cloud_index_build(ix, surf->x, surf->n_tri, surf->tri, &err) == CF_OK, "%s", err.msg);
  double e = cf_cloud_frame_error(ix, pts, n, work, NULL);
  free(work);
  return e;
}

static void errors(void) {
  static sheet s, flat, moved;
  rng = 77;
  make_sheet(&s, 0.04, 0.25, 0, 0);
  make_sheet(&flat, 0, 0, 0, 0);
  make_sheet(&moved, 0, 0, 0, 0.01);
  const double density = 60000, noise = 1e-3; /* ~10^4 points on an A3 sheet, 1 mm depth noise */
  size_t cap = 3 * (size_t)(4 * density * 0.3);
  double *front = malloc(sizeof(double) * 3 * cap), *all = malloc(sizeof(double) * 3 * cap);
  cf_cloud_index *ix = cf_cloud_index_alloc();

  long n0 = sample(&s, 0, density, 0, all);
  double e0 = frame_error(ix, &s, all, n0);
  CHECK(e0 < 1e-12, "a cloud on the surface: %.3g cm, expected 0", e0);

  long nf = sample(&s, 1, density, noise, front);
  memcpy(all, front, sizeof(double) * 3 * nf);
  long na = nf + sample(&s, -1, density, noise, all + 3 * nf); /* the faces turned away */
  na += sample(&s, 0, density, noise, all + 3 * na);          /* the other face of the cloth */
  double ef = frame_error(ix, &s, front, nf), ea = frame_error(ix, &s, all, na);
  double half = 100 * noise * sqrt(2 / M_PI); /* the mean |noise|, cm */
  printf("one side: %ld points, %.4f cm; far side added: %ld points, %.4f cm (mean |noise| %.4f cm)\n", nf, ef, na,
         ea, half);
  CHECK(nf > 2000 && na > 2 * nf, "%ld points seen, %ld in all", nf, na);
  CHECK(fabs(ef - ea) < 0.05 * half, "one side %.4f cm, far side added %.4f cm: not the same within the noise", ef, ea);
  CHECK(ef > 0.8 * half && ef < half, "one side %.4f cm: expected the trimmed mean |noise|, 0.9 x %.4f cm", ef, half);

  long nflat = sample(&flat, 0, density, noise, all);
  double em = frame_error(ix, &moved, all, nflat);
  printf("a flat sheet's cloud against the sheet moved 1 cm across: %.4f cm\n", em);
  CHECK(fabs(em - 1) < 0.02, "surface moved 1 cm: %.4f cm", em);

  long no = nf + nf / 50; /* 2 % outliers, 0.3 to 1 m from the cloth */
  for (long i = nf; i < no; i++) {
    double *p = front + 3 * i, r = 0.3 + 0.35 * (cf_test_rand(&rng) + 1);
    double g[3] = {gauss(), gauss(), gauss()}, l = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    for (int k = 0; k < 3; k++) p[k] = s.x[3 * (N * N / 2) + k] + r * g[k] / l;
  }
  double eo = frame_error(ix, &s, front, no);
  printf("2 %% outliers added: %.4f cm (without %.4f cm)\n", eo, ef);
  CHECK(fabs(eo - ef) < 0.05 * ef, "2 %% outliers: %.4f cm against %.4f cm", eo, ef);
  cf_cloud_index_free(ix);
  free(front), free(all);
}

int main(void) {
  hand_cases();
  index_vs_brute();
  trimmed_mean();
  errors();
  return cf_test_done("test_cloud");
}
