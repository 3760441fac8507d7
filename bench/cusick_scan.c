/* cusick_scan.c — one run of Cusick's drape (thesis §2.7.2,
 * tests/test_cusick.c) with its settings on the command line, printing the
 * drape coefficient every 0.2 s, its mean over the last 0.6 s, how the
 * bending energy of the end state splits between the normal and the
 * tangential part of the Laplacian and over the distance from the table's
 * edge, and (polar meshes) how far the first free rings hang below the
 * table.  The measurements of docs/locking.md
 * ("Cusick") were made with it.
 *
 *   build/bench/cusick_scan N_RAD N_ANG KAPPA [KS T TOL MESH]
 *
 * N_RAD x N_ANG: rings x sectors of the ring mesh.  KAPPA: bending
 * stiffness (the thesis' 0.005, 0.025, 0.05).  KS (default 0): 0 the
 * strictly inextensible model, > 0 the F rows replaced by the shear energy
 * (test_cusick uses 1).  T (default 1.6 s), TOL (default 1e-3: the
 * projection's tolerance).  MESH: polar (default; cf_mesh_ring) or split: a
 * triangulated polar ring of N_RAD x N_ANG cells (interior nodes jittered
 * by 0.3 of a cell, random diagonals) with every triangle split into three
 * quads at its centroid and edge midpoints (6 N_RAD N_ANG nodes or so; the
 * midpoints of the held and free circles' edges put back on their circle);
 * or hex: near-equilateral triangles in N_RAD layers (hex_ring below;
 * N_ANG is then the seed of the nodes' jitter).
 * rho = delta = 100, alpha = 1000, dt = 1 ms as in test_cusick. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "cusick.h"
#include "element.h"
#include "testutil.h"

#define RI CF_CUSICK_RI
#define RO CF_CUSICK_RO

/* Midpoint node of edge (a, b) in a V x V table, made on first use. */
static int midpoint(int *mid, int V, int a, int b, int *nn) {
  if (mid[a * V + b] < 0) mid[a * V + b] = mid[b * V + a] = (*nn)++;
  return mid[a * V + b];
}

static cf_mesh *split_ring(int nr, int na) {
  int V = (nr + 1) * na, F = 2 * nr * na, nn = V;
  unsigned long long seed = 12345;
  double *P = malloc(sizeof(double) * 2 * V);
  int *T = malloc(sizeof(int) * 3 * F), *mid = malloc(sizeof(int) * V * V);
  for (int k = 0; k <= nr; k++)
    for (int j = 0; j < na; j++) {
      double r = RI + (RO - RI) * (k + (k > 0 && k < nr ? 0.3 * cf_test_rand(&seed) : 0)) / nr;
      double th = 2 * M_PI * (j + 0.3 * cf_test_rand(&seed) + (k % 2) * 0.5) / na;
      P[2 * (k * na + j)] = r * cos(th), P[2 * (k * na + j) + 1] = r * sin(th);
    }
  for (int k = 0, t = 0; k < nr; k++)
    for (int j = 0; j < na; j++) {
      int a = k * na + j, b = (k + 1) * na + j, c = (k + 1) * na + (j + 1) % na, d = k * na + (j + 1) % na;
      int q[6] = {a, b, c, a, c, d}, q2[6] = {a, b, d, b, c, d};
      memcpy(T + 3 * t, cf_test_rand(&seed) > 0 ? q : q2, sizeof q);
      t += 2;
    }
  for (int i = 0; i < V * V; i++) mid[i] = -1;
  for (int i = 0; i < F; i++)
    for (int e = 0; e < 3; e++) midpoint(mid, V, T[3 * i + e], T[3 * i + (e + 1) % 3], &nn);
  cf_mesh *m = cf_mesh_alloc(4, nn + F, 3 * F);
  for (int i = 0; i < V; i++) m->x[3 * i] = P[2 * i], m->x[3 * i + 1] = P[2 * i + 1], m->x[3 * i + 2] = 0;
  for (int a = 0; a < V; a++)
    for (int b = a + 1; b < V; b++) {
      if (mid[a * V + b] < 0) continue;
      double *q = m->x + 3 * mid[a * V + b];
      q[0] = 0.5 * (P[2 * a] + P[2 * b]), q[1] = 0.5 * (P[2 * a + 1] + P[2 * b + 1]), q[2] = 0;
      if (a / na == b / na && (a / na == 0 || a / na == nr)) { /* an edge of a circle */
        double f = (a / na ? RO : RI) / hypot(q[0], q[1]);
        q[0] *= f, q[1] *= f;
      }
    }
  for (int i = 0; i < F; i++) {
    const int *tr = T + 3 * i;
    double *g = m->x + 3 * (nn + i);
    for (int d = 0; d < 2; d++) g[d] = (P[2 * tr[0] + d] + P[2 * tr[1] + d] + P[2 * tr[2] + d]) / 3;
    g[2] = 0;
    for (int e = 0; e < 3; e++) { /* the quad at corner b, counter-clockwise */
      int a = tr[e], b = tr[(e + 1) % 3], c = tr[(e + 2) % 3], *el = m->elems + 4 * (3 * i + e);
      el[0] = b, el[1] = mid[b * V + c], el[2] = nn + i, el[3] = mid[a * V + b];
    }
  }
  free(P), free(T), free(mid);
  if (cf_mesh_finalize(m, NULL) != CF_OK) {
    cf_mesh_free(m);
    return NULL;
  }
  return m;
}

/* A ring of near-equilateral triangles: nr + 1 circles of nodes (the
 * held one, nr - 1 jittered ones, the free edge), each with as many nodes
 * as its circumference holds at the edge length h = 2 (RO - RI) / (sqrt 3
 * nr), consecutive circles zipped together by angle; interior nodes moved
 * by up to 0.15 h at random (seed) in radius and angle, as
 * cf_mesh_square_hex does on the square. */
static cf_mesh *hex_ring(int nr, unsigned long long seed) {
  double s = (RO - RI) / nr, h = 2 * s / sqrt(3);
  int *cnt = malloc(sizeof(int) * (nr + 1)), *first = malloc(sizeof(int) * (nr + 2)), nn = 0, F = 0;
  for (int k = 0; k <= nr; k++) {
    cnt[k] = (int)lround(2 * M_PI * (RI + k * s) / h);
    first[k] = nn, nn += cnt[k];
    if (k > 0) F += cnt[k] + cnt[k - 1];
  }
  first[nr + 1] = nn;
  double *th = malloc(sizeof(double) * nn);
  cf_mesh *m = cf_mesh_alloc(3, nn, F);
  for (int k = 0; k <= nr; k++)
    for (int j = 0; j < cnt[k]; j++) {
      int in = k > 0 && k < nr, i = first[k] + j;
      double step = 2 * M_PI / cnt[k], r = RI + k * s + (in ? 0.15 * h * cf_test_rand(&seed) : 0);
      th[i] = step * (j + 0.5 * (k % 2) + (in ? 0.15 * h / (r * step) * cf_test_rand(&seed) : 0));
      m->x[3 * i] = r * cos(th[i]), m->x[3 * i + 1] = r * sin(th[i]), m->x[3 * i + 2] = 0;
    }
  int e = 0;
  for (int k = 0; k < nr; k++) { /* zip circle k (inner) to k + 1 by angle, counter-clockwise */
    int na = cnt[k], nb = cnt[k + 1], a0 = first[k], b0 = first[k + 1], i = 0, j = 0;
    while (i < na || j < nb) {
      double ta = th[a0 + (i + 1) % na] + (i + 1 >= na ? 2 * M_PI : 0);
      double tb = th[b0 + (j + 1) % nb] + (j + 1 >= nb ? 2 * M_PI : 0);
      int *t = m->elems + 3 * e++;
      t[0] = a0 + i % na, t[1] = b0 + j % nb;
      if (j == nb || (i < na && ta < tb)) t[2] = a0 + (++i) % na;
      else t[2] = b0 + (++j) % nb;
    }
  }
  free(cnt), free(first), free(th);
  if (cf_mesh_finalize(m, NULL) != CF_OK) {
    cf_mesh_free(m);
    return NULL;
  }
  return m;
}

/* 1/2 kappa sum_i |L_i|^2 m_i over the interior nodes, L = M^-1 S x with S
 * the rest stiffness of bending.c, split into the part along the node's
 * normal (the continuum's 2H n for an isometry) and the rest. */
static void energy_split(const cf_mesh *m, const double *x, double kappa) {
  cf_element_rule r;
  cf_element_rule_get(m->nv, &r);
  int n = m->n_nodes;
  double *Sx = calloc(3 * (size_t)n, sizeof(double)), *ms = calloc(n, sizeof(double));
  double *nr = calloc(3 * (size_t)n, sizeof(double));
  if (!Sx || !ms || !nr) {
    fprintf(stderr, "cusick_scan: out of memory\n");
    exit(1);
  }
  for (int e = 0; e < m->n_elems; e++) {
    const int *el = m->elems + (size_t)e * m->nv;
    const double *p[CF_MAX_NV], *q[CF_MAX_NV];
    for (int i = 0; i < m->nv; i++) p[i] = m->x + 3 * el[i], q[i] = x + 3 * el[i];
    for (int l = 0; l < r.ng; l++) {
      double a[3], b[3], E, F, G;
      cf_element_tangents(&r, l, p, a, b);
      double dA = cf_element_metric(a, b, &E, &F, &G) * r.w[l], det = E * G - F * F;
      for (int i = 0; i < m->nv; i++) {
        ms[el[i]] += dA * r.N[l][i];
        for (int j = 0; j < m->nv; j++) {
          const double *di = r.dN[l][i], *dj = r.dN[l][j];
          double s = (G * di[0] * dj[0] - F * (di[0] * dj[1] + di[1] * dj[0]) + E * di[1] * dj[1]) / det * dA;
          for (int d = 0; d < 3; d++) Sx[3 * el[i] + d] += s * x[3 * el[j] + d];
        }
      }
    }
    double u[3], v[3];
    for (int d = 0; d < 3; d++) u[d] = q[2][d] - q[0][d], v[d] = q[m->nv - 1][d] - q[1][d];
    double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    for (int i = 0; i < m->nv; i++)
      for (int d = 0; d < 3; d++) nr[3 * el[i] + d] += c[d];
  }
  double En = 0, Et = 0, band[3] = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    if (m->is_boundary[i]) continue;
    const double *L = Sx + 3 * i, *N = nr + 3 * i;
    double ln = (L[0] * N[0] + L[1] * N[1] + L[2] * N[2]) / sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
    double l2 = L[0] * L[0] + L[1] * L[1] + L[2] * L[2], r = hypot(m->x[3 * i], m->x[3 * i + 1]);
    En += ln * ln / ms[i], Et += (l2 - ln * ln) / ms[i];
    band[(r - RI) < 0.01 ? 0 : (r - RI) < 0.03 ? 1 : 2] += l2 / ms[i];
  }
  printf("bending energy / rho: normal %.4g, tangential %.4g J m^2/kg (tangential %.1f %%); within 1 cm of the "
         "table's edge %.1f %%, 1-3 cm %.1f %%, beyond %.1f %%\n", 0.5 * kappa * En, 0.5 * kappa * Et,
         100 * Et / (En + Et), 100 * band[0] / (En + Et), 100 * band[1] / (En + Et), 100 * band[2] / (En + Et));
  free(Sx), free(ms), free(nr);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: cusick_scan N_RAD N_ANG KAPPA [KS T TOL MESH]\n");
    return 2;
  }
  int n_rad = atoi(argv[1]), n_ang = atoi(argv[2]);
  const char *kind = argc > 7 ? argv[7] : "polar";
  cf_runtime_init();
  cf_mesh *m = !strcmp(kind, "split") ? split_ring(n_rad, n_ang)
               : !strcmp(kind, "hex")   ? hex_ring(n_rad, (unsigned long long)n_ang)
                                        : cf_mesh_ring(RI, RO, n_rad, n_ang, 0);
  if (!m) {
    fprintf(stderr, "cusick_scan: bad mesh %s %d x %d\n", kind, n_rad, n_ang);
    return 2;
  }
  int *kin = malloc(sizeof(int) * m->n_nodes), nk = 0;
  double *x0 = malloc(sizeof(double) * 3 * m->n_nodes);
  for (int j = 0; j < m->n_nodes; j++)
    if (hypot(m->x[3 * j], m->x[3 * j + 1]) <= RI * (1 + 1e-9)) kin[nk++] = j;
  cf_test_cusick_start(m, x0);
  cf_params p;
  cf_params_default(&p);
  p.rho = p.delta = 100, p.alpha = 1000, p.dt = 0.001;
  p.kappa = atof(argv[3]);
  p.ks = argc > 4 ? atof(argv[4]) : 0;
  double T = argc > 5 ? atof(argv[5]) : 1.6, sum = 0;
  if (argc > 6) p.tol = atof(argv[6]);
  cf_error err;
  cf_sim *sim = cf_sim_alloc(m, &p, kin, nk, &err);
  if (!sim) {
    fprintf(stderr, "cusick_scan: %s\n", err.msg);
    return 1;
  }
  cf_sim_set_state(sim, x0, NULL);
  int steps = (int)lround(T / p.dt), from = steps - (int)lround(0.6 / p.dt), ns = 0;
  if (from < 0) {
    fprintf(stderr, "cusick_scan: T = %g s: at least 0.6 s (DC is averaged over the last 0.6 s)\n", T);
    return 2;
  }
  for (int k = 1; k <= steps; k++) {
    if (cf_sim_step(sim, NULL, &err)) {
      fprintf(stderr, "cusick_scan: step %d: %s\n", k, err.msg);
      return 1;
    }
    if (k % 200 == 0) printf("t %.1f s: DC %.1f %%\n", k * p.dt, cf_test_cusick_dc(m, cf_sim_x(sim)));
    if (k > from && (k - from) % 50 == 0) sum += cf_test_cusick_dc(m, cf_sim_x(sim)), ns++;
  }
  printf("%s %dx%d, %d nodes, kappa %g, ks %g, tol %g: DC %.1f %% (mean over the last %.1f s)\n", kind, n_rad, n_ang,
         m->n_nodes, p.kappa, p.ks, p.tol, sum / ns, 0.05 * ns);
  energy_split(m, cf_sim_x(sim), p.kappa);
  if (!strcmp(kind, "polar")) { /* how far the first rings of free nodes hang below the table */
    printf("mean drop of the free rings nearest the table (rest distance from its edge: drop, mm):");
    for (int k = 1; k <= 3 && k <= n_rad; k++) {
      double z = 0;
      for (int j = 0; j < n_ang; j++) z += cf_sim_x(sim)[3 * (k * n_ang + j) + 2];
      printf(" %.1f: %.1f", 1000 * (RO - RI) * k / n_rad, -1000 * z / n_ang);
    }
    printf("\n");
  }
  cf_sim_free(sim);
  cf_mesh_free(m);
  free(kin), free(x0);
  return 0;
}
