/* Cusick's drape test (thesis §2.7.2, issue 2 acceptance 5): a flat ring
 * 9-15 cm with its inner circle fixed drapes under gravity; the drape
 * coefficient DC = (projected area of the draped ring) / (flat ring area)
 * (2.22).  Acceptance: DC rises strictly with kappa in {0.005, 0.025, 0.05},
 * and for each kappa it varies by <= 3 percentage points across >= 5 ring
 * meshes of 700-1300 nodes.  The values are printed next to the thesis'
 * means (23.2, 52.4, 77.3 %).
 *
 * Choices the thesis leaves open: its density for this test is not given;
 * with our bending matrix (K = S_I^T M^-1 S_I) the drape depends on
 * kappa / (delta g), and rho = delta = 100 puts kappa = 0.005 near the
 * thesis' value.  The rest state is the flat ring; the initial state gets a
 * smooth out-of-plane perturbation of ~0.5 mm, the same function of
 * (r, theta) on every mesh (a flat, symmetric ring has no reason to fold;
 * node-wise noise would start every mesh differently).  dt = 1 ms,
 * alpha = 1000 (about critically damped; the equilibrium does not depend
 * on it: a ring first draped with kappa = 0 (DC 3-4 %) rises back to the
 * same DC as one falling from flat).
 *
 * Measurement: DC is the area of the union of the projected elements (the
 * shadow; the sum of the element areas counts overlapping fold walls twice,
 * +1.3 pp at kappa = 0.005 on 768 nodes), averaged over the last T_AVG s,
 * at rest (see DRIFT).
 *
 * Asserted: every run at rest and 0 < DC < 100; on every mesh DC rises
 * strictly with kappa.
 *
 * NOT met (printed, not asserted): the 3 pp mesh independence.  Measured
 * (this test): spreads of 9.4 / 13.0 / 6.6 pp; at kappa = 0.005 DC rises
 * monotonically with the node count, 29 % (768) -> 39 % (1200), and goes on
 * rising on finer rings (54 % with 12 x 160 = 2093 nodes, > 62 % with
 * 14 x 192 = 2880); at the stiffer kappas the number of folds (5 or 6; 3 or
 * 4) also changes from mesh to mesh and moves DC by up to 10 pp.  Each
 * refinement acts like a larger kappa: the 1200-node ring gives with
 * kappa = 0.005 about what the 768-node ring gives with kappa = 0.0075
 * (38.6 vs 40.6 %).
 * Why: an inextensible surface that holds a planar circle of the flat sheet
 * must be tangent to the circle's plane along it (the circle keeps its
 * geodesic curvature 1/r, which is all of its curvature), so an exactly
 * inextensible ring cannot bend down at the support.  The discrete ring
 * does (on 768 nodes the first ring of free nodes, 8.6 mm from the held
 * circle, hangs 4-9 mm below it) through element-scale strains that the
 * node-averaged metric constraints E, F, G do not see: the
 * edges of the draped rings are stretched or compressed by 10-16 %
 * (kappa = 0.005) to 1.4-3.5 % (kappa = 0.05), alternating from one band of
 * elements to the next, against < 0.2 % for a square cantilever bent about
 * a straight clamp.  The bending cost of these element-scale deformations
 * grows as the elements shrink, hence the stiffening.  Not the cause: the
 * bending matrix (pointwise consistent Laplacian; the cantilever's tip
 * converges, -3.33 / -3.15 / -3.11 cm for 7 / 13 / 25 nodes a side; giving
 * the interior rows the boundary nodes' mass as well, which makes the
 * energy of smooth shapes exact to 0.1 %, shifts DC by +5-6 pp on both 768
 * and 1200 nodes and leaves the 10 pp gap), the ring meshes (nodes exactly
 * on r = 9 and 15 cm; refining either way stiffens: 7 x 120 and 9 x 96,
 * 960 nodes each, give 34 and 37 %), the perturbation (9 realizations on
 * 768 nodes: 28.9-32.0 %), the time to rest.  Holding the nodes with
 * r <= 9 cm instead (a clamp: one more ring of held nodes inside) locks:
 * DC 70 % with kappa = 0, 92 % with kappa = 0.005 on 768 nodes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cf_sim.h"
#include "forkmap.h"
#include "testutil.h"

#define NK 3
#define NM 5
static const double KAPPA[NK] = {0.005, 0.025, 0.05}, THESIS[NK] = {23.2, 52.4, 77.3};
/* rings x sectors: 768, 900, 1008, 1120, 1200 nodes, elements of aspect ~1 */
static const int MESH[NM][2] = {{7, 96}, {8, 100}, {8, 112}, {9, 112}, {9, 120}};
static const double RI = 0.09, RO = 0.15;
/* DC is sampled every 50 ms over the last T_AVG s; at rest means the means
 * of its two halves differ by at most DRIFT pp.  (With kappa > 0 the
 * projection keeps single nodes jumping by ~0.3 mm per step on these meshes,
 * ~0.3 m/s, with any damping (alpha up to 1e4 tried), so DC fluctuates by up
 * to ~3 pp without creeping; the range is printed.) */
static const double T_END = 2.5, T_AVG = 1.0, DRIFT = 1.0;

typedef struct {
  double dc, dc_min, dc_max, drift, vmax, strain, cpu;
  int folds, ok;
  char msg[200];
} drape;

/* ---- drape coefficient: area of the union of the projected elements ---- */
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
  if (i0 < 0) i0 = 0;
  if (j0 < 0) j0 = 0;
  if (i1 > NPIX - 1) i1 = NPIX - 1;
  if (j1 > NPIX - 1) j1 = NPIX - 1;
  for (int j = j0; j <= j1; j++)
    for (int i = i0; i <= i1; i++) {
      double px = (i + 0.5) * h - RO, py = (j + 0.5) * h - RO;
      double l1 = ((b[0] - px) * (c[1] - py) - (b[1] - py) * (c[0] - px)) / d;
      double l2 = ((c[0] - px) * (a[1] - py) - (c[1] - py) * (a[0] - px)) / d;
      if (l1 >= 0 && l2 >= 0 && 1 - l1 - l2 >= 0) pix[j * NPIX + i] = 1;
    }
}

/* 100 (|shadow of the table disk and the ring| - |disk|) / |flat ring|;
 * each bilinear quad is covered by its four corner triangles. */
static double drape_coefficient(const cf_mesh *m, const double *x) {
  const double h = 2 * RO / NPIX;
  memset(pix, 0, sizeof pix);
  for (int j = 0; j < NPIX; j++)
    for (int i = 0; i < NPIX; i++) {
      double px = (i + 0.5) * h - RO, py = (j + 0.5) * h - RO;
      if (px * px + py * py <= RI * RI) pix[j * NPIX + i] = 1;
    }
  for (int e = 0; e < m->n_elems; e++) {
    const int *q = m->elems + 4 * e;
    const double *p[4];
    for (int i = 0; i < 4; i++) p[i] = x + 3 * q[i];
    for (int i = 0; i < 4; i++) raster_tri(p[i], p[(i + 1) % 4], p[(i + 2) % 4]);
  }
  long n = 0;
  for (int k = 0; k < NPIX * NPIX; k++) n += pix[k];
  double ring = M_PI * (RO * RO - RI * RI);
  return 100 * (n * h * h - M_PI * RI * RI) / ring;
}

/* Folds: maxima of the projected radius along the hem (3 mm hysteresis). */
static int count_folds(const double *x, int n_rad, int n_ang) {
  const double *o = x + 3 * (size_t)n_rad * n_ang;
  int jm = 0, folds = 0, up = 1;
  for (int j = 1; j < n_ang; j++)
    if (hypot(o[3 * j], o[3 * j + 1]) < hypot(o[3 * jm], o[3 * jm + 1])) jm = j;
  double ext = hypot(o[3 * jm], o[3 * jm + 1]);
  for (int k = 1; k <= n_ang; k++) {
    int j = (jm + k) % n_ang;
    double r = hypot(o[3 * j], o[3 * j + 1]);
    if (up ? r > ext : r < ext) {
      ext = r;
    } else if (fabs(r - ext) > 0.003) {
      folds += up;
      up = !up;
      ext = r;
    }
  }
  return folds;
}

/* Largest relative change of an element edge's length. */
static double max_edge_strain(const cf_mesh *m, const double *x) {
  double s = 0;
  for (int e = 0; e < m->n_elems; e++)
    for (int i = 0; i < 4; i++) {
      int a = m->elems[4 * e + i], b = m->elems[4 * e + (i + 1) % 4];
      double l0 = 0, l = 0;
      for (int d = 0; d < 3; d++) {
        l0 += pow(m->x[3 * a + d] - m->x[3 * b + d], 2);
        l += pow(x[3 * a + d] - x[3 * b + d], 2);
      }
      s = fmax(s, fabs(sqrt(l / l0) - 1));
    }
  return s;
}

/* Job i: meshes from the finest down, stiffest kappa first (so that the
 * round-robin split of cf_test_fork_map gives both workers similar work). */
static void job(int i, int *mesh, int *kap) {
  *mesh = NM - 1 - i / NK;
  *kap = NK - 1 - i % NK;
}

static void run(int i, void *out) {
  drape *d = out;
  int mi, ki;
  job(i, &mi, &ki);
  int n_rad = MESH[mi][0], n_ang = MESH[mi][1];
  clock_t c0 = clock();
  cf_mesh *m = cf_mesh_ring(RI, RO, n_rad, n_ang, 0);
  int *kin = malloc(sizeof(int) * n_ang);
  double *x0 = malloc(sizeof(double) * 3 * m->n_nodes);
  for (int j = 0; j < n_ang; j++) kin[j] = j; /* the inner circle */
  memcpy(x0, m->x, sizeof(double) * 3 * m->n_nodes);
  /* smooth perturbation, the same on every mesh: modes 1..16 in theta,
   * growing linearly from the held circle, at most ~0.5 mm */
  double c[17], s[17];
  unsigned long long seed = 99;
  for (int n = 1; n <= 16; n++) {
    c[n] = cf_test_rand(&seed);
    s[n] = cf_test_rand(&seed);
  }
  for (int k = n_ang; k < m->n_nodes; k++) {
    double X = x0[3 * k], Y = x0[3 * k + 1], th = atan2(Y, X), z = 0;
    for (int n = 1; n <= 16; n++) z += c[n] * cos(n * th) + s[n] * sin(n * th);
    x0[3 * k + 2] += 0.0005 * (hypot(X, Y) - RI) / (RO - RI) * z / 4;
  }
  cf_params p;
  cf_params_default(&p);
  p.rho = p.delta = 100;
  p.alpha = 1000;
  p.kappa = KAPPA[ki];
  p.dt = 0.001;
  cf_error err;
  cf_sim *sim = cf_sim_alloc(m, &p, kin, n_ang, &err);
  int rc = sim ? CF_OK : err.code;
  if (sim) cf_sim_set_state(sim, x0, NULL);
  int steps = (int)lround(T_END / p.dt), avg_from = steps - (int)lround(T_AVG / p.dt);
  int mid = (steps + avg_from) / 2;
  double half[2] = {0, 0};
  int nh[2] = {0, 0};
  d->dc_min = INFINITY;
  d->dc_max = -INFINITY;
  for (int k = 1; rc == CF_OK && k <= steps; k++) {
    rc = cf_sim_step(sim, NULL, &err);
    if (rc == CF_OK && k > avg_from && (k - avg_from) % 50 == 0) {
      double dc = drape_coefficient(m, cf_sim_x(sim));
      half[k > mid] += dc;
      nh[k > mid]++;
      d->dc_min = fmin(d->dc_min, dc);
      d->dc_max = fmax(d->dc_max, dc);
    }
  }
  if (rc == CF_OK) {
    const double *x = cf_sim_x(sim), *v = cf_sim_v(sim);
    d->dc = (half[0] + half[1]) / (nh[0] + nh[1]);
    d->drift = half[1] / nh[1] - half[0] / nh[0];
    for (int q = 0; q < 3 * m->n_nodes; q++) d->vmax = fmax(d->vmax, fabs(v[q]));
    d->folds = count_folds(x, n_rad, n_ang);
    d->strain = max_edge_strain(m, x);
    d->ok = 1;
  } else {
    snprintf(d->msg, sizeof d->msg, "%.199s", err.msg);
  }
  d->cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
  cf_sim_free(sim);
  cf_mesh_free(m);
  free(kin);
  free(x0);
}

int main(void) {
  cf_runtime_init();
  drape r[NM * NK], *d[NM][NK];
  memset(r, 0, sizeof r);
  for (int i = 0; i < NM * NK; i++) {
    int mi, ki;
    job(i, &mi, &ki);
    d[mi][ki] = r + i;
  }
  CHECK(cf_test_fork_map(NM * NK, 2, sizeof r[0], run, r) == 0, "a worker process failed");

  printf("Cusick drape, DC %% (area of the shadow, mean over t = %.1f..%.1f s):\n", T_END - T_AVG, T_END);
  printf("  kappa  thesis |");
  for (int mi = 0; mi < NM; mi++) {
    char h[32];
    snprintf(h, sizeof h, "%dx%d %d", MESH[mi][0], MESH[mi][1], (MESH[mi][0] + 1) * MESH[mi][1]);
    printf(" %12s |", h);
  }
  printf(" spread\n");
  double spread[NK];
  for (int ki = 0; ki < NK; ki++) {
    double lo = INFINITY, hi = -INFINITY;
    printf("  %.3f  %5.1f  |", KAPPA[ki], THESIS[ki]);
    for (int mi = 0; mi < NM; mi++) {
      printf(" %12.1f |", d[mi][ki]->dc);
      lo = fmin(lo, d[mi][ki]->dc);
      hi = fmax(hi, d[mi][ki]->dc);
    }
    spread[ki] = hi - lo;
    printf(" %4.1f pp\n", spread[ki]);
  }
  printf("per run: folds, DC drift between the halves of the window and its range (pp), largest\n"
         "element-edge strain (%%), largest node speed at the end (m/s), cpu (s)\n");
  for (int ki = 0; ki < NK; ki++)
    for (int mi = 0; mi < NM; mi++) {
      const drape *q = d[mi][ki];
      printf("  kappa %.3f %dx%-3d: %2d folds, drift %+4.1f, range %3.1f, strain %4.1f %%, speed %.2g, cpu %3.0f\n",
             KAPPA[ki], MESH[mi][0], MESH[mi][1], q->folds, q->drift, q->dc_max - q->dc_min, 100 * q->strain,
             q->vmax, q->cpu);
    }
  double cpu = 0;
  for (int i = 0; i < NM * NK; i++) cpu += r[i].cpu;
  printf("cpu %.0f s in all (%d runs of %.1f s simulated)\n", cpu, NM * NK, T_END);

  for (int mi = 0; mi < NM; mi++) {
    for (int ki = 0; ki < NK; ki++) {
      const drape *q = d[mi][ki];
      CHECK(q->ok, "mesh %dx%d kappa %g: %s", MESH[mi][0], MESH[mi][1], KAPPA[ki], q->msg);
      CHECK(q->dc > 0 && q->dc < 100, "mesh %dx%d kappa %g: DC %.1f %% out of range", MESH[mi][0],
            MESH[mi][1], KAPPA[ki], q->dc);
      CHECK(fabs(q->drift) <= DRIFT, "mesh %dx%d kappa %g: not at rest, DC moved %.1f pp in %.1f s",
            MESH[mi][0], MESH[mi][1], KAPPA[ki], q->drift, T_AVG / 2);
    }
    CHECK(d[mi][0]->dc < d[mi][1]->dc && d[mi][1]->dc < d[mi][2]->dc,
          "mesh %dx%d: DC does not rise with kappa: %.1f %.1f %.1f", MESH[mi][0], MESH[mi][1], d[mi][0]->dc,
          d[mi][1]->dc, d[mi][2]->dc);
  }
  for (int ki = 0; ki < NK; ki++)
    printf("kappa %.3f: spread across meshes %.1f pp: acceptance (<= 3 pp) %s\n", KAPPA[ki], spread[ki],
           spread[ki] <= 3 ? "met" : "NOT MET");
  return cf_test_done("test_cusick");
}
