/* Cusick's drape test (thesis §2.7.2, issue 2 acceptance 5): a flat ring
 * 9-15 cm with its inner circle fixed drapes under gravity; the drape
 * coefficient DC = (projected area of the draped ring) / (flat ring area)
 * (2.22) must rise strictly with the bending stiffness kappa in
 * {0.005, 0.025, 0.05}.  The values are printed next to the thesis' means
 * (23.2, 52.4, 77.3 %).
 *
 * Choices the thesis leaves open: its density for this test is not given;
 * with our bending matrix (K = S_I^T M^-1 S_I) the drape depends on
 * kappa / (delta g), and rho = delta = 100 puts kappa = 0.005 near the
 * thesis' value.  The rest state is the flat ring; the initial state gets
 * 0.5 mm of out-of-plane noise (a perfectly flat, symmetric ring has no
 * reason to fold).  dt = 1 ms (elements of ~8 mm).
 *
 * Not asserted (open, see the issue note): the mesh independence within 3
 * percentage points across 5 ring meshes of 700-1300 nodes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "forkmap.h"
#include "testutil.h"

static const double KAPPA[3] = {0.005, 0.025, 0.05}, THESIS[3] = {23.2, 52.4, 77.3};

typedef struct {
  double dc, vmax;
  int ok;
  char msg[256];
} drape;

/* Projected (xy) area of the ring's quads, over the flat ring's area. */
static double drape_coefficient(const cf_mesh *m, const double *x) {
  double C = 0;
  for (int e = 0; e < m->n_elems; e++) {
    const int *q = m->elems + 4 * e;
    double a = 0;
    for (int i = 0; i < 4; i++) {
      const double *p = x + 3 * q[i], *r = x + 3 * q[(i + 1) % 4];
      a += p[0] * r[1] - r[0] * p[1];
    }
    C += fabs(a) / 2;
  }
  return 100 * C / (M_PI * (0.15 * 0.15 - 0.09 * 0.09));
}

static void run(int i, void *out) {
  drape *d = out;
  int n_ang = 96;
  cf_mesh *m = cf_mesh_ring(0.09, 0.15, 7, n_ang, 0);
  int *kin = malloc(sizeof(int) * n_ang);
  for (int j = 0; j < n_ang; j++) kin[j] = j; /* the inner circle */
  double *x0 = malloc(sizeof(double) * 3 * m->n_nodes);
  memcpy(x0, m->x, sizeof(double) * 3 * m->n_nodes);
  unsigned long long seed = 99;
  for (int k = n_ang; k < m->n_nodes; k++) x0[3 * k + 2] += 0.0005 * cf_test_rand(&seed);
  cf_params p;
  cf_params_default(&p);
  p.rho = p.delta = 100;
  p.alpha = 500;
  p.kappa = KAPPA[i];
  p.dt = 0.001;
  cf_error err;
  cf_sim *s = cf_sim_alloc(m, &p, kin, n_ang, &err);
  int rc = s ? CF_OK : err.code;
  if (s) cf_sim_set_state(s, x0, NULL);
  for (int k = 0; rc == CF_OK && k < 3000; k++) rc = cf_sim_step(s, NULL, &err);
  if (rc == CF_OK) {
    d->dc = drape_coefficient(m, cf_sim_x(s));
    for (int q = 0; q < 3 * m->n_nodes; q++) d->vmax = fmax(d->vmax, fabs(cf_sim_v(s)[q]));
    d->ok = 1;
  } else {
    snprintf(d->msg, sizeof d->msg, "%.255s", err.msg);
  }
  cf_sim_free(s);
  cf_mesh_free(m);
  free(kin);
  free(x0);
}

int main(void) {
  cf_runtime_init();
  drape d[3];
  memset(d, 0, sizeof d);
  CHECK(cf_test_fork_map(3, 2, sizeof d[0], run, d) == 0, "a worker process failed");
  for (int i = 0; i < 3; i++) {
    printf("kappa %.3f: DC %.1f %% (thesis %.1f %%), max speed at the end %.2g m/s\n", KAPPA[i], d[i].dc,
           THESIS[i], d[i].vmax);
    CHECK(d[i].ok, "kappa %g: %s", KAPPA[i], d[i].msg);
    CHECK(d[i].dc > 0 && d[i].dc < 100, "kappa %g: DC %.1f %% out of range", KAPPA[i], d[i].dc);
  }
  CHECK(d[0].dc < d[1].dc && d[1].dc < d[2].dc, "DC does not rise with kappa: %.1f %.1f %.1f", d[0].dc,
        d[1].dc, d[2].dc);
  CHECK(d[2].dc - d[0].dc > 20, "stiffness barely matters: %.1f -> %.1f", d[0].dc, d[2].dc);
  return cf_test_done("test_cusick");
}
