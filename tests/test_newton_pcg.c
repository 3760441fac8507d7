/* test_newton_pcg.c — inexact Newton steps of the projection (projection.h:
 * CF_NEWTON_ETA): on meshes where a factorization costs many solves, the
 * Newton step at a stale factorization is solved by conjugate gradients
 * preconditioned with it instead of refactoring.
 *
 * On a 20x20 node sheet (curved rest state, two corners driven), a series
 * of states perturbed off the constraint manifold is projected twice from
 * the same start, with the inexact steps and with the plain chord steps:
 *  - both reach the tolerance (max relative violation <= tol);
 *  - the inexact steps refactor less (the stale factor stays a good
 *    preconditioner);
 *  - the inexact steps move the nodes no farther in the M-norm than the
 *    chord steps (within 5 %): the fast projection approximates the
 *    M-closest point of the constraint manifold.  (The landing points
 *    themselves differ by up to half the correction, along the nearly
 *    singular out-of-plane directions of a nearly flat sheet: any change
 *    in the accuracy of the Newton solves moves them, as a plain Newton
 *    solve against the chord one does too.)
 * and the automatic choice (cf_spchol_solve_ratio) takes the inexact steps
 * at 40x40 and 20x20 but not on the 13x17 A2 mesh of `synth` nor on the
 * 7x9 A2 mesh of the fits, where they cost more than the factorizations
 * they save (see CF_PCG_MIN_RATIO). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "projection.h"
#include "testutil.h"

static unsigned long long rng = 0x9c9c1234abcdULL;

static cf_mesh *sheet(int nx, int ny) {
  double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  cf_mesh *m = cf_mesh_grid(nx, ny, o, u, v, 1);
  if (!m) return NULL;
  for (int i = 0; i < m->n_nodes; i++) /* a gently curved rest state */
    m->x[3 * i + 1] += 0.02 * sin(M_PI * m->x[3 * i] / 0.42) * sin(M_PI * m->x[3 * i + 2] / 0.594);
  cf_error err = {0, ""};
  if (cf_mesh_finalize(m, &err)) {
    cf_mesh_free(m);
    return NULL;
  }
  return m;
}

static cf_proj *projector(const cf_model *md, int nx, int ny, int pcg) {
  int n = md->n;
  double *invm = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) invm[i] = 1 / cf_model_mass(md)[i];
  invm[(ny - 1) * nx] = invm[ny * nx - 1] = 0; /* the two top corners */
  cf_error err = {0, ""};
  cf_proj *p = cf_proj_alloc(md, invm, &err);
  CHECK(p != NULL, "cf_proj_alloc: %s", err.msg);
  if (p && pcg >= 0) cf_proj_set_pcg(p, pcg);
  free(invm);
  return p;
}

int main(void) {
  cf_runtime_init();
  const int nx = 20, ny = 20;
  const double tol = 1e-3;
  cf_mesh *m = sheet(nx, ny), *a2 = sheet(7, 9), *big = sheet(40, 40), *fine = sheet(13, 17);
  CHECK(m && a2 && big && fine, "mesh");
  if (!m || !a2 || !big || !fine) return cf_test_done("test_newton_pcg");
  cf_error err = {0, ""};
  cf_model *md = cf_model_alloc(m, &err), *ma2 = cf_model_alloc(a2, &err), *mbig = cf_model_alloc(big, &err);
  cf_model *mfine = cf_model_alloc(fine, &err);
  CHECK(md && ma2 && mbig && mfine, "model: %s", err.msg);
  cf_proj *inexact = projector(md, nx, ny, 1), *chord = projector(md, nx, ny, 0);
  cf_proj *auto_big = projector(mbig, 40, 40, -1), *auto_a2 = projector(ma2, 7, 9, -1);
  cf_proj *autop = projector(md, nx, ny, -1), *auto_fine = projector(mfine, 13, 17, -1);
  CHECK(cf_proj_uses_pcg(auto_big), "40x40: inexact Newton steps not chosen automatically");
  CHECK(cf_proj_uses_pcg(autop), "20x20: inexact Newton steps not chosen automatically (threshold: projection.h)");
  CHECK(!cf_proj_uses_pcg(auto_fine), "13x17: inexact Newton steps chosen automatically (threshold: projection.h)");
  CHECK(!cf_proj_uses_pcg(auto_a2), "7x9: inexact Newton steps chosen where a factorization is cheap");
  int nc = 3 * m->n_nodes;
  double *x = malloc(sizeof(double) * nc), *y = malloc(sizeof(double) * nc), *base = malloc(sizeof(double) * nc);
  memcpy(base, m->x, sizeof(double) * nc);
  long fact[2] = {0, 0}, iters[2] = {0, 0}, cg = 0;
  double worst_ratio = 0;
  for (int trial = 0; trial < 8 && inexact && chord; trial++) {
    /* a smooth swing across the sheet and a sag (what a time step does),
     * a little noise */
    double ph = 0.7 * trial;
    for (int i = 0; i < m->n_nodes; i++) {
      double u = m->x[3 * i] / 0.42, w = m->x[3 * i + 2] / 0.594;
      base[3 * i + 1] += 0.004 * sin(M_PI * u + ph) * (1 - w);
      base[3 * i + 2] -= 0.0004;
      for (int d = 0; d < 3; d++) base[3 * i + d] += 2e-5 * cf_test_rand(&rng);
    }
    for (int k = 0; k < 2; k++) { /* the driven corners stay at rest */
      int c = k ? ny * nx - 1 : (ny - 1) * nx;
      memcpy(base + 3 * c, m->x + 3 * c, 3 * sizeof(double));
    }
    memcpy(x, base, sizeof(double) * nc);
    memcpy(y, base, sizeof(double) * nc);
    cf_proj_result ri, rc;
    int e1 = cf_proj_solve(inexact, x, tol, 50, 1, &ri, &err);
    CHECK(e1 == CF_OK, "trial %d, inexact: %s", trial, err.msg);
    int e2 = cf_proj_solve(chord, y, tol, 50, 1, &rc, &err);
    CHECK(e2 == CF_OK, "trial %d, chord: %s", trial, err.msg);
    CHECK(ri.violation <= tol && rc.violation <= tol, "trial %d: violations %g, %g > tol %g", trial, ri.violation,
          rc.violation, tol);
    /* the distance moved in the M-norm: the fast projection approximates
     * the M-closest point of the constraint manifold */
    double dx = 0, dy = 0;
    const double *mass = cf_model_mass(md);
    for (int q = 0; q < nc; q++) {
      dx += mass[q / 3] * (x[q] - base[q]) * (x[q] - base[q]);
      dy += mass[q / 3] * (y[q] - base[q]) * (y[q] - base[q]);
    }
    worst_ratio = fmax(worst_ratio, sqrt(dx / dy));
    fact[0] += ri.factorizations;
    fact[1] += rc.factorizations;
    iters[0] += ri.iterations;
    iters[1] += rc.iterations;
    cg += ri.cg_iterations;
    memcpy(base, x, sizeof(double) * nc); /* the next trial starts on the manifold */
  }
  printf("20x20, 8 projections: inexact Newton %ld iterations, %ld CG, %ld factorizations; "
         "chord %ld iterations, %ld factorizations; M-norm correction inexact / chord <= %.3f\n",
         iters[0], cg, fact[0], iters[1], fact[1], worst_ratio);
  CHECK(fact[0] < fact[1], "inexact Newton: %ld factorizations, chord %ld", fact[0], fact[1]);
  CHECK(worst_ratio <= 1.05, "the inexact steps move %.3f times as far (M-norm) as the chord steps", worst_ratio);
  free(x);
  free(y);
  free(base);
  cf_proj_free(inexact);
  cf_proj_free(chord);
  cf_proj_free(autop);
  cf_proj_free(auto_a2);
  cf_proj_free(auto_big);
  cf_proj_free(auto_fine);
  cf_model_free(mfine);
  cf_mesh_free(fine);
  cf_model_free(md);
  cf_model_free(ma2);
  cf_model_free(mbig);
  cf_mesh_free(big);
  cf_mesh_free(m);
  cf_mesh_free(a2);
  return cf_test_done("test_newton_pcg");
}
