#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cf_sim.h"
#include "element.h"
static const double RI = 0.09, RO = 0.15;
#define NPIX 1200
static unsigned char pix[NPIX * NPIX];
static void raster_tri(const double *a, const double *b, const double *c) {
  const double h = 2 * RO / NPIX;
  double d = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  if (fabs(d) < 1e-30) return;
  int i0 = (int)floor((fmin(a[0], fmin(b[0], c[0])) + RO) / h - 0.5);
  int i1 = (int)ceil((fmax(a[0], fmax(b[0], c[0])) + RO) / h - 0.5);
  int j0 = (int)floor((fmin(a[1], fmin(b[1], c[1])) + RO) / h - 0.5);
  int j1 = (int)ceil((fmax(a[1], fmax(b[1], c[1])) + RO) / h - 0.5);
  if (i0 < 0) i0 = 0; if (j0 < 0) j0 = 0; if (i1 > NPIX - 1) i1 = NPIX - 1; if (j1 > NPIX - 1) j1 = NPIX - 1;
  for (int j = j0; j <= j1; j++)
    for (int i = i0; i <= i1; i++) {
      double px = (i + 0.5) * h - RO, py = (j + 0.5) * h - RO;
      double l1 = ((b[0] - px) * (c[1] - py) - (b[1] - py) * (c[0] - px)) / d;
      double l2 = ((c[0] - px) * (a[1] - py) - (c[1] - py) * (a[0] - px)) / d;
      if (l1 >= 0 && l2 >= 0 && 1 - l1 - l2 >= 0) pix[j * NPIX + i] = 1;
    }
}
static double dcoef(const cf_mesh *m, const double *x) {
  const double h = 2 * RO / NPIX;
  memset(pix, 0, sizeof pix);
  for (int j = 0; j < NPIX; j++) for (int i = 0; i < NPIX; i++) {
      double px = (i + 0.5) * h - RO, py = (j + 0.5) * h - RO;
      if (px * px + py * py <= RI * RI) pix[j * NPIX + i] = 1;
    }
  for (int e = 0; e < m->n_elems; e++) {
    const int *q = m->elems + m->nv * e; const double *p[4];
    for (int i = 0; i < m->nv; i++) p[i] = x + 3 * q[i];
    if (m->nv == 3) raster_tri(p[0], p[1], p[2]);
    else for (int i = 0; i < 4; i++) raster_tri(p[i], p[(i + 1) % 4], p[(i + 2) % 4]);
  }
  long n = 0; for (int k = 0; k < NPIX * NPIX; k++) n += pix[k];
  return 100 * (n * h * h - M_PI * RI * RI) / (M_PI * (RO * RO - RI * RI));
}
/* per-node S x (rest stiffness), lumped mass, normals */
static void diag(const cf_mesh *m, const double *x, double kappa) {
  cf_element_rule r; cf_element_rule_get(m->nv, &r);
  int n = m->n_nodes;
  double *Sx = calloc(3 * n, sizeof(double)), *ms = calloc(n, sizeof(double)), *nr = calloc(3 * n, sizeof(double));
  for (int e = 0; e < m->n_elems; e++) {
    const int *el = m->elems + e * m->nv; const double *p[4];
    for (int i = 0; i < m->nv; i++) p[i] = m->x + 3 * el[i];
    for (int l = 0; l < r.ng; l++) {
      double a[3], b[3], E, F, G;
      cf_element_tangents(&r, l, p, a, b);
      double J = cf_element_metric(a, b, &E, &F, &G), det = E * G - F * F, dA = J * r.w[l];
      for (int i = 0; i < m->nv; i++) {
        ms[el[i]] += dA * r.N[l][i];
        for (int j = 0; j < m->nv; j++) {
          const double *di = r.dN[l][i], *dj = r.dN[l][j];
          double gg = (G * di[0] * dj[0] - F * (di[0] * dj[1] + di[1] * dj[0]) + E * di[1] * dj[1]) / det;
          for (int d = 0; d < 3; d++) Sx[3 * el[i] + d] += gg * dA * x[3 * el[j] + d];
        }
      }
    }
    const double *q[4]; for (int i = 0; i < m->nv; i++) q[i] = x + 3 * el[i];
    double u[3], v[3], c[3];
    for (int d = 0; d < 3; d++) { u[d] = q[2][d] - q[0][d]; v[d] = q[m->nv - 1][d] - q[1][d]; }
    c[0] = u[1] * v[2] - u[2] * v[1]; c[1] = u[2] * v[0] - u[0] * v[2]; c[2] = u[0] * v[1] - u[1] * v[0];
    for (int i = 0; i < m->nv; i++) for (int d = 0; d < 3; d++) nr[3 * el[i] + d] += c[d];
  }
  double Et = 0, En = 0, Eti = 0, Eni = 0;
  for (int i = 0; i < n; i++) {
    if (m->is_boundary[i]) continue;
    double *L = Sx + 3 * i, *nn = nr + 3 * i, nl = sqrt(nn[0]*nn[0]+nn[1]*nn[1]+nn[2]*nn[2]);
    double ln = (L[0]*nn[0]+L[1]*nn[1]+L[2]*nn[2]) / nl, l2 = L[0]*L[0]+L[1]*L[1]+L[2]*L[2];
    En += ln * ln / ms[i]; Et += (l2 - ln * ln) / ms[i];
  }
  printf("bending energy 0.5 kappa |L|^2: normal %.4g J/(kg/m^2)  tangential %.4g  (tangential share %.1f %%)\n",
         0.5 * kappa * En, 0.5 * kappa * Et, 100 * Et / (Et + En));
  free(Sx); free(ms); free(nr);
}
/* A triangulated polar ring (jittered interior nodes, random diagonals),
 * each triangle split into 3 quads (centroid, edge midpoints). */
static unsigned long long rs = 12345;
static double ur(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (double)(rs >> 11) / 4503599627370496.0 - 1.0; }
static cf_mesh *split_ring(int nr, int na, double jit) {
  int V = (nr + 1) * na, F = 2 * nr * na;
  double *P = malloc(sizeof(double) * 2 * V);
  for (int k = 0; k <= nr; k++)
    for (int j = 0; j < na; j++) {
      double r = RI + (RO - RI) * (k + (k > 0 && k < nr ? jit * ur() : 0)) / nr;
      double th = 2 * M_PI * (j + jit * ur() + (k % 2) * 0.5) / na;
      P[2 * (k * na + j)] = r * cos(th); P[2 * (k * na + j) + 1] = r * sin(th);
    }
  int *T = malloc(sizeof(int) * 3 * F), t = 0;
  for (int k = 0; k < nr; k++)
    for (int j = 0; j < na; j++) {
      int j1 = (j + 1) % na, a = k * na + j, b = (k + 1) * na + j, c = (k + 1) * na + j1, d = k * na + j1;
      if (ur() > 0) { int *q = T + 3 * t++; q[0] = a; q[1] = b; q[2] = c; q = T + 3 * t++; q[0] = a; q[1] = c; q[2] = d; }
      else { int *q = T + 3 * t++; q[0] = a; q[1] = b; q[2] = d; q = T + 3 * t++; q[0] = b; q[1] = c; q[2] = d; }
    }
  /* edges -> midpoint node ids via a V x V map (small meshes) */
  int *mid = malloc(sizeof(int) * V * V);
  for (int i = 0; i < V * V; i++) mid[i] = -1;
  int nn = V;
  for (int i = 0; i < F; i++) for (int e = 0; e < 3; e++) {
      int a = T[3 * i + e], b = T[3 * i + (e + 1) % 3];
      if (mid[a * V + b] < 0) mid[a * V + b] = mid[b * V + a] = nn++;
    }
  int total = nn + F;
  cf_mesh *m = cf_mesh_alloc(4, total, 3 * F);
  for (int i = 0; i < V; i++) { m->x[3 * i] = P[2 * i]; m->x[3 * i + 1] = P[2 * i + 1]; m->x[3 * i + 2] = 0; }
  for (int a = 0; a < V; a++) for (int b = a + 1; b < V; b++) if (mid[a * V + b] >= 0) {
        double *q = m->x + 3 * mid[a * V + b];
        q[0] = 0.5 * (P[2 * a] + P[2 * b]); q[1] = 0.5 * (P[2 * a + 1] + P[2 * b + 1]); q[2] = 0;
        int ka = a / na, kb = b / na;
        if (ka == kb && (ka == 0 || ka == nr)) { double r = ka ? RO : RI, h = hypot(q[0], q[1]); q[0] *= r / h; q[1] *= r / h; }
      }
  for (int i = 0; i < F; i++) {
    int *tr = T + 3 * i, c = nn + i;
    double *q = m->x + 3 * c;
    q[0] = (P[2 * tr[0]] + P[2 * tr[1]] + P[2 * tr[2]]) / 3; q[1] = (P[2 * tr[0] + 1] + P[2 * tr[1] + 1] + P[2 * tr[2] + 1]) / 3; q[2] = 0;
    for (int e = 0; e < 3; e++) {
      int a = tr[e], b = tr[(e + 1) % 3], pz = tr[(e + 2) % 3];
      int *el = m->elems + 4 * (3 * i + e);
      /* quad around vertex b: b, mid(b,pz), centroid, mid(a,b) -- orientation as triangle */
      el[0] = b; el[1] = mid[b * V + pz]; el[2] = c; el[3] = mid[a * V + b];
    }
  }
  free(P); free(T); free(mid);
  cf_error err;
  if (cf_mesh_finalize(m, &err)) { printf("finalize: %s\n", err.msg); exit(1); }
  return m;
}
int main(int argc, char **argv) {
  int nr = atoi(argv[1]), na = atoi(argv[2]);
  double kappa = atof(argv[3]), ks = atof(argv[4]), T = atof(argv[5]);
  cf_runtime_init();
  const char *mode = getenv("MESH");
  cf_mesh *m = mode && *mode == 's' ? split_ring(nr, na, getenv("JIT") ? atof(getenv("JIT")) : 0.3) : cf_mesh_ring(RI, RO, nr, na, 0);
  int *kin = malloc(sizeof(int) * m->n_nodes), nk = 0;
  double *x0 = malloc(sizeof(double) * 3 * m->n_nodes);
  for (int j = 0; j < m->n_nodes; j++) if (hypot(m->x[3 * j], m->x[3 * j + 1]) < RI + 1e-9) kin[nk++] = j;
  memcpy(x0, m->x, sizeof(double) * 3 * m->n_nodes);
  double c[17], s[17]; unsigned long long seed = 99;
  for (int k = 1; k <= 16; k++) {
    seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; c[k] = (double)(seed >> 11) / 4503599627370496.0 - 1.0;
    seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; s[k] = (double)(seed >> 11) / 4503599627370496.0 - 1.0;
  }
  for (int k = 0; k < m->n_nodes; k++) {
    double X = x0[3 * k], Y = x0[3 * k + 1], th = atan2(Y, X), z = 0;
    for (int q = 1; q <= 16; q++) z += c[q] * cos(q * th) + s[q] * sin(q * th);
    x0[3 * k + 2] += 0.0005 * (hypot(X, Y) - RI) / (RO - RI) * z / 4;
  }
  cf_params p; cf_params_default(&p);
  p.rho = p.delta = 100; p.alpha = 1000; p.kappa = kappa; p.ks = ks; p.dt = 0.001;
  if (argc > 6) p.tol = atof(argv[6]);
  cf_error err;
  cf_sim *sim = cf_sim_alloc(m, &p, kin, nk, &err);
  if (!sim) { printf("alloc: %s\n", err.msg); return 1; }
  cf_sim_set_state(sim, x0, NULL);
  int steps = (int)lround(T / p.dt);
  for (int k = 1; k <= steps; k++) {
    if (cf_sim_step(sim, NULL, &err)) { printf("step %d: %s\n", k, err.msg); return 1; }
    if (k % 200 == 0) printf("t %.1f DC %.1f\n", k * p.dt, dcoef(m, cf_sim_x(sim)));
  }
  printf("%d nodes kappa %g ks %g: DC %.2f\n", m->n_nodes, kappa, ks, dcoef(m, cf_sim_x(sim)));
  diag(m, cf_sim_x(sim), kappa);
  FILE *f = fopen(argc > 7 ? argv[7] : "/tmp/cusick/x.txt", "w");
  for (int i = 0; i < m->n_nodes; i++) fprintf(f, "%g %g %g\n", cf_sim_x(sim)[3*i], cf_sim_x(sim)[3*i+1], cf_sim_x(sim)[3*i+2]);
  fclose(f);
  return 0;
}
