/* The optional shear energy (thesis §2.4.6, Remark 2.5.1): zero at rest and
 * under rigid motions, quadratic in a small shear, and in a simulation the
 * cloth becomes quasi-inextensible: the E, G constraints and the edges still
 * hold to the tolerance, shear (F) appears, and a stiffer ks lets less of it
 * through; ks -> the implicit step stays stable for very stiff ks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "model.h"
#include "shear.h"
#include "testutil.h"

static cf_mesh *sheet(void) {
  double o[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  return cf_mesh_grid(7, 9, o, u, v, 1);
}

static void energy(void) {
  cf_mesh *m = sheet();
  double mass[63];
  cf_mesh_lumped_mass(m, m->x, mass);
  cf_params p;
  cf_params_default(&p);
  p.ks = 10;
  unsigned char kin[63] = {0};
  cf_error err;
  cf_sstep *s = cf_sstep_alloc(m, mass, &p, kin, NULL, &err);
  CHECK(s != NULL, "%s", s ? "" : err.msg);
  CHECK(fabs(cf_sstep_energy(s, m->x)) < 1e-20, "energy at rest %g", cf_sstep_energy(s, m->x));
  double x[189], R[9] = {0.36, 0.48, -0.8, -0.8, 0.6, 0, 0.48, 0.64, 0.6}; /* a rotation */
  for (int i = 0; i < 63; i++)
    for (int a = 0; a < 3; a++) {
      x[3 * i + a] = 0.3 * a;
      for (int b = 0; b < 3; b++) x[3 * i + a] += R[3 * a + b] * m->x[3 * i + b];
    }
  CHECK(cf_sstep_energy(s, x) < 1e-18, "energy after a rigid motion %g", cf_sstep_energy(s, x));
  double e[2];
  for (int q = 0; q < 2; q++) {
    double gamma = q ? 0.02 : 0.01; /* x += gamma z: a simple shear */
    memcpy(x, m->x, sizeof x);
    for (int i = 0; i < 63; i++) x[3 * i] += gamma * m->x[3 * i + 2];
    e[q] = cf_sstep_energy(s, x);
  }
  CHECK(e[0] > 0 && fabs(e[1] / e[0] - 4) < 0.01, "shear energy not quadratic: %g %g", e[0], e[1]);
  cf_sstep_free(s);
  cf_mesh_free(m);
}

/* Max |F_k - F_k(0)| / sqrt(E_k G_k)(0) over interior nodes at x. */
static double shear_violation(const cf_mesh *m, const double *x) {
  cf_error err;
  cf_model *full = cf_model_alloc(m, &err);
  double *C = malloc(sizeof(double) * cf_model_nrows(full)), v = 0;
  cf_model_eval(full, x, C);
  for (int r = 0; r < cf_model_nrows(full); r++)
    if (cf_model_row_kind(full, r) == CF_ROW_F) v = fmax(v, fabs(C[r]) / cf_model_row_scale(full, r));
  free(C);
  cf_model_free(full);
  return v;
}

static double shake(double ks, double *quasi_viol) {
  cf_mesh *m = sheet();
  int kin[2] = {56, 62};
  cf_params p;
  cf_params_default(&p);
  p.ks = ks;
  cf_error err;
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  CHECK(s != NULL, "%s", err.msg);
  double x0[6], kp[6], worst = 0;
  memcpy(x0, m->x + 3 * 56, 24);
  memcpy(x0 + 3, m->x + 3 * 62, 24);
  cf_drive d = {CF_DRIVE_SHAKE, 0.075, 0.6, {1, 0, 0}}; /* in the plane: shears the sheet */
  *quasi_viol = 0;
  for (int k = 1; k <= 300; k++) {
    cf_drive_eval(&d, 2, x0, k * p.dt, kp);
    int rc = cf_sim_step(s, kp, &err);
    CHECK(rc == CF_OK, "ks %g step %d: %s", ks, k, err.msg);
    if (rc) break;
    *quasi_viol = fmax(*quasi_viol, cf_sim_get_stats(s).last_violation);
    worst = fmax(worst, shear_violation(m, cf_sim_x(s)));
  }
  cf_sim_free(s);
  cf_mesh_free(m);
  return worst;
}

int main(void) {
  cf_runtime_init();
  energy();
  double q1, q2, q3;
  double soft = shake(1, &q1), stiff = shake(1e5, &q2), rigid = shake(1e8, &q3);
  printf("max relative shear |dF|: ks 1 -> %.4f, ks 1e5 -> %.4f, ks 1e8 -> %.5f\n", soft, stiff, rigid);
  CHECK(q1 <= 1e-3 && q2 <= 1e-3 && q3 <= 1e-3, "E/G/edge violation %g %g %g", q1, q2, q3);
  CHECK(soft > stiff && stiff > rigid, "shear does not fall with ks: %g %g %g", soft, stiff, rigid);
  CHECK(soft > 0.01, "an in-plane shake of a soft sheet should shear it (%g)", soft);
  return cf_test_done("test_shear");
}
