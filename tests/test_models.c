/* The four cloth models (cf_cloth_model, model_rows.c):
 * - energies: zero at rest and after a rigid motion; the elastic model's
 *   is the St. Venant-Kirchhoff membrane's exactly under a uniform stretch
 *   and a simple shear; the mass-spring model's structural springs hold
 *   k_stretch/2 e^2 per unit area under a uniform stretch (e the Green
 *   strain) and its shear springs k_shear/2 g^2 under a small simple shear;
 * - the implicit step: its velocity is the one that makes the energy's
 *   Gauss-Newton model stationary (checked against finite differences of
 *   the energy: the force);
 * - simulations of a sheet hanging from two corners, on quads and on
 *   triangles: each model runs 1.5 s; the quasi-inextensible one keeps
 *   every edge's length to the tolerance; the elastic ones stretch, less
 *   when stiffer, and a stiff one ends near the inextensible sheet;
 * - what is refused: contacts with the elastic models, ks or rest_bending
 *   with any but the inextensible model, no stretching stiffness. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "model.h"
#include "shear.h"
#include "testutil.h"

#define NX 7
#define NZ 9
#define N (NX * NZ)

static cf_mesh *sheet(int quads) {
  double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  return cf_mesh_grid(NX, NZ, o, u, v, quads);
}

static double energy_at(const cf_mesh *m, const cf_params *p, const double *x) {
  double mass[N];
  unsigned char kin[N] = {0};
  cf_mesh_lumped_mass(m, m->x, mass);
  cf_error err;
  cf_sstep *s = cf_sstep_alloc(m, mass, p, kin, NULL, &err);
  CHECK(s != NULL, "energy step of the %s model: %s", cf_cloth_model_name(p->model), s ? "" : err.msg);
  double e = s ? cf_sstep_energy(s, x) : NAN;
  cf_sstep_free(s);
  return e;
}

static void params_of(cf_params *p, int model, double ks, double kh, double kb) {
  cf_params_default(p);
  p->model = model;
  p->k_stretch = ks;
  p->k_shear = kh;
  p->k_bend = kb;
}

/* x = A x0 (a linear map of the rest sheet in its x-z plane) + offset */
static void mapped(const cf_mesh *m, const double A[4], double *x) {
  for (int i = 0; i < N; i++) {
    double a = m->x[3 * i], c = m->x[3 * i + 2];
    x[3 * i] = A[0] * a + A[1] * c + 0.1;
    x[3 * i + 1] = m->x[3 * i + 1] - 0.2;
    x[3 * i + 2] = A[2] * a + A[3] * c + 0.3;
  }
}

static void energies(void) {
  const double area = 0.42 * 0.594;
  for (int quads = 0; quads < 2; quads++) {
    cf_mesh *m = sheet(quads);
    double x[3 * N];
    for (int model = CF_CLOTH_QUASI; model < CF_CLOTH_MODELS; model++) {
      cf_params p;
      params_of(&p, model, 40, 2, 0.5);
      double e0 = energy_at(m, &p, m->x);
      const double R[4] = {0.6, -0.8, 0.8, 0.6}; /* a rotation in the plane */
      mapped(m, R, x);
      double e1 = energy_at(m, &p, x);
      CHECK(fabs(e0) < 1e-20 && fabs(e1) < 1e-16, "%s (%s): energy at rest %g, after a rigid motion %g",
            cf_cloth_model_name(model), quads ? "quads" : "triangles", e0, e1);
    }
    /* elastic: uniform stretch along x by 1 + s, Green strain e = ((1+s)^2 - 1)/2 */
    cf_params p;
    params_of(&p, CF_CLOTH_ELASTIC, 40, 2, 0);
    double s = 0.03, eg = ((1 + s) * (1 + s) - 1) / 2;
    const double S[4] = {1 + s, 0, 0, 1};
    mapped(m, S, x);
    double want = area * 40 / 2 * eg * eg, got = energy_at(m, &p, x);
    CHECK(fabs(got / want - 1) < 1e-10, "elastic (%s): stretch energy %.12g, expected %.12g",
          quads ? "quads" : "triangles", got, want);
    /* simple shear x += g z: x_s = (1, 0), x_t = (g, 1), so g12 = g and e22 = g^2 / 2 */
    double g = 0.05;
    const double H[4] = {1, g, 0, 1};
    mapped(m, H, x);
    want = area * (40 / 2.0 * pow(g * g / 2, 2) + 2 / 2.0 * g * g);
    got = energy_at(m, &p, x);
    CHECK(fabs(got / want - 1) < 1e-10, "elastic (%s): shear energy %.12g, expected %.12g",
          quads ? "quads" : "triangles", got, want);
    if (quads) { /* mass-spring on quads: structural springs only, then shear springs only */
      params_of(&p, CF_CLOTH_MASS_SPRING, 40, 0, 0);
      mapped(m, S, x);
      want = area * 40 / 2 * eg * eg;
      got = energy_at(m, &p, x);
      CHECK(fabs(got / want - 1) < 1e-10, "mass-spring: stretch energy %.12g, expected %.12g", got, want);
      params_of(&p, CF_CLOTH_MASS_SPRING, 1e-9, 2, 0);
      g = 1e-3;
      const double G[4] = {1, g, 0, 1};
      mapped(m, G, x);
      want = area * 2 / 2.0 * g * g;
      got = energy_at(m, &p, x);
      /* the grid's cells are 0.07 x 0.074 m, not squares: the diagonals
       * see the shear at (2ab / (a^2 + b^2))^2 of a square's */
      double a = 0.42 / 6, b = 0.594 / 8, f = pow(2 * a * b / (a * a + b * b), 2);
      CHECK(fabs(got / (want * f) - 1) < 1e-2, "mass-spring: shear energy %.6g, expected %.6g", got, want * f);
    }
    cf_mesh_free(m);
  }
}

/* The implicit step's force at v = 0, dt small: (v* - v) rho M / dt -> F. */
static void forces(void) {
  cf_mesh *m = sheet(1);
  double mass[N], x[3 * N], v[3 * N] = {0}, vs[3 * N], xp[3 * N];
  unsigned char kin[N] = {0};
  cf_mesh_lumped_mass(m, m->x, mass);
  const double A[4] = {1.02, 0.03, -0.01, 0.99};
  mapped(m, A, x);
  for (int i = 0; i < N; i++) x[3 * i + 1] += 0.01 * sin(7.0 * i); /* out of plane too */
  for (int model = CF_CLOTH_QUASI; model < CF_CLOTH_MODELS; model++) {
    cf_params p;
    params_of(&p, model, 40, 2, 0.5);
    p.g = 0, p.alpha = 0, p.kappa = 0, p.dt = 1e-7;
    cf_error err;
    cf_sstep *s = cf_sstep_alloc(m, mass, &p, kin, NULL, &err);
    CHECK(s != NULL, "%s", s ? "" : err.msg);
    if (!s) continue;
    CHECK(cf_sstep_apply(s, x, v, vs, &err) == CF_OK, "step: %s", err.msg);
    double worst = 0, scale = 0;
    for (int q = 0; q < 3 * N; q++) {
      double h = 1e-7;
      memcpy(xp, x, sizeof xp);
      xp[q] += h;
      double ep = cf_sstep_energy(s, xp);
      xp[q] -= 2 * h;
      double f = -(ep - cf_sstep_energy(s, xp)) / (2 * h), fs = p.rho * mass[q / 3] * vs[q] / p.dt;
      worst = fmax(worst, fabs(f - fs));
      scale = fmax(scale, fabs(f));
    }
    CHECK(scale > 0 && worst < 1e-4 * scale, "%s: implicit step's force off the energy's gradient by %g of %g",
          cf_cloth_model_name(model), worst, scale);
    cf_sstep_free(s);
  }
  cf_mesh_free(m);
}

/* Hang the sheet from its two top corners for 1.5 s; the final positions into xf. */
static int hang(int quads, const cf_params *p, double *xf, long *iters) {
  cf_mesh *m = sheet(quads);
  int kin[2] = {N - NX, N - 1};
  cf_error err;
  cf_sim *s = cf_sim_alloc(m, p, kin, 2, &err);
  CHECK(s != NULL, "%s: %s", cf_cloth_model_name(p->model), s ? "" : err.msg);
  int rc = s ? CF_OK : CF_EINVAL;
  for (int k = 0; s && k < 150 && rc == CF_OK; k++) rc = cf_sim_step(s, NULL, &err);
  CHECK(rc == CF_OK, "%s (%s): %s", cf_cloth_model_name(p->model), quads ? "quads" : "triangles", err.msg);
  if (s) {
    memcpy(xf, cf_sim_x(s), sizeof(double) * 3 * N);
    *iters = cf_sim_get_stats(s).iterations;
  }
  cf_sim_free(s);
  cf_mesh_free(m);
  return rc;
}

/* Max relative change of the mesh edges' lengths from rest. */
static double edge_strain(int quads, const double *x) {
  cf_mesh *m = sheet(quads);
  double worst = 0;
  for (int e = 0; e < m->n_elems; e++)
    for (int i = 0; i < m->nv; i++) {
      int a = m->elems[e * m->nv + i], b = m->elems[e * m->nv + (i + 1) % m->nv];
      double l0 = 0, l = 0;
      for (int d = 0; d < 3; d++) {
        l0 += pow(m->x[3 * a + d] - m->x[3 * b + d], 2);
        l += pow(x[3 * a + d] - x[3 * b + d], 2);
      }
      worst = fmax(worst, fabs(sqrt(l / l0) - 1));
    }
  cf_mesh_free(m);
  return worst;
}

static double rms_apart(const double *a, const double *b) {
  double s = 0;
  for (int q = 0; q < 3 * N; q++) s += (a[q] - b[q]) * (a[q] - b[q]);
  return sqrt(s / N);
}

static void hanging(void) {
  for (int quads = 1; quads >= 0; quads--) {
    const char *mk = quads ? "quads" : "triangles";
    double xi[3 * N], x[3 * N], soft[3 * N], stiff[3 * N];
    long it;
    cf_params p;
    params_of(&p, CF_CLOTH_INEXTENSIBLE, 40, 2, 0.5);
    p.kappa = 1e-3;
    hang(quads, &p, xi, &it);
    params_of(&p, CF_CLOTH_QUASI, 40, 2, 0.5);
    p.kappa = 1e-3;
    if (hang(quads, &p, x, &it) == CF_OK) {
      double e = edge_strain(quads, x);
      CHECK(e < 2 * p.tol, "quasi-inextensible (%s): an edge's length changed by %.3g (tol %g)", mk, e, p.tol);
      CHECK(it > 0, "quasi-inextensible (%s): no projection iterations", mk);
      printf("quasi-inextensible (%s): max edge strain %.2e, %.2f cm from the inextensible sheet (rms)\n", mk, e,
             100 * rms_apart(x, xi));
    }
    for (int model = CF_CLOTH_ELASTIC; model < CF_CLOTH_MODELS; model++) {
      params_of(&p, model, 5, 1, 0.05);
      p.kappa = 1e-3;
      int ok = hang(quads, &p, soft, &it) == CF_OK;
      CHECK(it == 0, "%s: %ld projection iterations without constraints", cf_cloth_model_name(model), it);
      params_of(&p, model, 5000, 100, 0.05);
      p.kappa = 1e-3;
      ok = ok && hang(quads, &p, stiff, &it) == CF_OK;
      if (!ok) continue;
      double es = edge_strain(quads, soft), eh = edge_strain(quads, stiff);
      double ds = rms_apart(soft, xi), dh = rms_apart(stiff, xi);
      printf("%s (%s): max edge strain %.3g (k_stretch 5) %.3g (5000); rms from the inextensible sheet %.2f, "
             "%.2f cm\n", cf_cloth_model_name(model), mk, es, eh, 100 * ds, 100 * dh);
      CHECK(es > 0.02 && eh < es / 10, "%s (%s): edge strain %.3g soft, %.3g stiff", cf_cloth_model_name(model), mk,
            es, eh);
      CHECK(dh < ds / 3 && dh < 0.03, "%s (%s): the stiff sheet %.3f m from the inextensible one, the soft %.3f m",
            cf_cloth_model_name(model), mk, dh, ds);
    }
  }
}

static void refused(void) {
  cf_mesh *m = sheet(1);
  cf_params p;
  cf_error err;
  params_of(&p, CF_CLOTH_ELASTIC, 40, 2, 0.5);
  int kin[2] = {N - NX, N - 1};
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  cf_obstacle o;
  cf_obstacle_init(&o, cf_obstacle_plane);
  o.c[2] = -1;
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  CHECK(s && cf_sim_set_obstacles(s, &o, 1, &cp, &err) == CF_EINVAL && strstr(err.msg, "elastic"),
        "contacts with the elastic model not refused");
  cf_sim_free(s);
  p.ks = 1;
  CHECK(cf_params_check(&p, &err) == CF_EINVAL && strstr(err.msg, "ks"), "ks with the elastic model accepted");
  params_of(&p, CF_CLOTH_MASS_SPRING, 0, 2, 0.5);
  CHECK(cf_params_check(&p, &err) == CF_EINVAL && strstr(err.msg, "k_stretch"), "k_stretch = 0 accepted");
  p.model = 7;
  CHECK(cf_params_check(&p, &err) == CF_EINVAL && strstr(err.msg, "model"), "model 7 accepted");
  CHECK(cf_cloth_model_find("mass-spring") == CF_CLOTH_MASS_SPRING && cf_cloth_model_find("springs") < 0,
        "model names");
  cf_mesh_free(m);
}

int main(void) {
  energies();
  forces();
  hanging();
  refused();
  return cf_test_done("test_models");
}
