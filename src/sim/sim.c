/* sim.c — the time integrator (SPEC §4): implicit-Euler unconstrained step,
 * then the fast projection; kinematic nodes follow prescribed positions
 * exactly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bending.h"
#include "projection.h"

void cf_params_default(cf_params *p) {
  p->rho = 0.1042;
  p->delta = 0.041;
  p->alpha = 0.307;
  p->beta = 0;
  p->kappa = 0;
  p->ks = 0;
  p->g = 9.8;
  p->dt = 0.01;
  p->tol = 1e-3;
  p->max_iter = 50;
  p->reuse_factor = 1;
}

int cf_params_check(const cf_params *p, cf_error *err) {
  struct { const char *name; double v; int strict; } c[] = {
      {"rho", p->rho, 1},   {"delta", p->delta, 0}, {"alpha", p->alpha, 0},
      {"beta", p->beta, 0}, {"kappa", p->kappa, 0}, {"ks", p->ks, 0},
      {"g", p->g, 0},       {"dt", p->dt, 1},       {"tol", p->tol, 1}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    if (!isfinite(c[i].v) || (c[i].strict ? c[i].v <= 0 : c[i].v < 0))
      return cf_error_set(err, CF_EINVAL, "parameter %s = %g: expected a finite number %s 0",
                          c[i].name, c[i].v, c[i].strict ? ">" : ">=");
  }
  if (p->ks != 0)
    return cf_error_set(err, CF_EINVAL,
                        "parameter ks = %g: the shear energy is not implemented yet; use ks = 0",
                        p->ks);
  if (p->max_iter < 1)
    return cf_error_set(err, CF_EINVAL, "parameter max_iter = %d: expected >= 1", p->max_iter);
  return CF_OK;
}

struct cf_sim {
  const cf_mesh *mesh;
  cf_params p;
  cf_model *md;
  cf_proj *proj;
  cf_ustep *us;
  int n, n_kin;
  int *kin;
  unsigned char *is_kin;
  double *x, *v, *xn, *vs;
  double t;
  cf_sim_stats st;
};

void cf_sim_free(cf_sim *s) {
  if (!s) return;
  cf_model_free(s->md);
  cf_proj_free(s->proj);
  cf_ustep_free(s->us);
  free(s->kin);
  free(s->is_kin);
  free(s->x);
  free(s->v);
  free(s->xn);
  free(s->vs);
  free(s);
}

cf_sim *cf_sim_alloc(const cf_mesh *mesh, const cf_params *p, const int *kin, int n_kin,
                     cf_error *err) {
  if (cf_params_check(p, err)) return NULL;
  for (int k = 0; k < n_kin; k++)
    if (kin[k] < 0 || kin[k] >= mesh->n_nodes) {
      cf_error_set(err, CF_EINVAL, "kinematic node %d out of range (mesh has %d nodes)", kin[k],
                   mesh->n_nodes);
      return NULL;
    }
  cf_sim *s = calloc(1, sizeof *s);
  if (!s) {
    cf_error_set(err, CF_ENOMEM, "simulation: out of memory");
    return NULL;
  }
  int n = mesh->n_nodes;
  s->mesh = mesh;
  s->p = *p;
  s->n = n;
  s->n_kin = n_kin;
  s->kin = malloc(sizeof(int) * (n_kin + 1));
  s->is_kin = calloc((size_t)n, 1);
  s->x = malloc(sizeof(double) * 3 * n);
  s->v = calloc(3 * (size_t)n, sizeof(double));
  s->xn = malloc(sizeof(double) * 3 * n);
  s->vs = calloc(3 * (size_t)n, sizeof(double));
  double *invm = malloc(sizeof(double) * n);
  if (!s->kin || !s->is_kin || !s->x || !s->v || !s->xn || !s->vs || !invm) {
    free(invm);
    cf_sim_free(s);
    cf_error_set(err, CF_ENOMEM, "simulation: out of memory");
    return NULL;
  }
  if (n_kin > 0) memcpy(s->kin, kin, sizeof(int) * n_kin); /* kin may be NULL when n_kin = 0 */
  for (int k = 0; k < n_kin; k++) s->is_kin[kin[k]] = 1;
  memcpy(s->x, mesh->x, sizeof(double) * 3 * n);
  s->md = cf_model_alloc(mesh, err);
  if (s->md) {
    for (int i = 0; i < n; i++) invm[i] = s->is_kin[i] ? 0 : 1 / s->md->mass[i];
    s->proj = cf_proj_alloc(s->md, invm, err);
    s->us = cf_ustep_alloc(mesh, s->md->mass, p, s->is_kin, err);
  }
  free(invm);
  if (!s->md || !s->proj || !s->us) {
    cf_sim_free(s);
    return NULL;
  }
  return s;
}

void cf_sim_set_state(cf_sim *s, const double *x, const double *v) {
  if (x) memcpy(s->x, x, sizeof(double) * 3 * s->n);
  if (v) memcpy(s->v, v, sizeof(double) * 3 * s->n);
  cf_proj_invalidate(s->proj);
}

static int all_finite(const double *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(a[i])) return 0;
  return 1;
}

int cf_sim_step(cf_sim *s, const double *kin_pos, cf_error *err) {
  double dt = s->p.dt, t1 = s->t + dt;
  int n = s->n;
  for (int k = 0; k < s->n_kin; k++) {
    int i = s->kin[k];
    for (int d = 0; d < 3; d++) {
      double target = kin_pos ? kin_pos[3 * k + d] : s->x[3 * i + d];
      s->vs[3 * i + d] = (target - s->x[3 * i + d]) / dt;
      s->xn[3 * i + d] = target;
    }
  }
  if (kin_pos && !all_finite(kin_pos, 3 * (size_t)s->n_kin))
    return cf_error_set(err, CF_ENONFINITE, "step %ld (t = %.4f s): prescribed position is not finite",
                        s->st.steps + 1, t1);
  int rc = cf_ustep_apply(s->us, s->x, s->v, s->vs, err);
  if (rc) return rc;
  for (int i = 0; i < n; i++)
    if (!s->is_kin[i])
      for (int d = 0; d < 3; d++) s->xn[3 * i + d] = s->x[3 * i + d] + dt * s->vs[3 * i + d];
  cf_proj_result pr;
  cf_error perr;
  rc = cf_proj_solve(s->proj, s->xn, s->p.tol, s->p.max_iter, s->p.reuse_factor, &pr, &perr);
  s->st.iterations += pr.iterations;
  s->st.factorizations += pr.factorizations;
  if (rc == CF_OK && !all_finite(s->xn, 3 * (size_t)n)) {
    rc = CF_ENONFINITE;
    cf_error_set(&perr, rc, "non-finite node position after projection (violation %.3g)", pr.violation);
  }
  if (rc) {
    cf_proj_invalidate(s->proj);
    return cf_error_set(err, rc, "step %ld (t = %.4f s): %s", s->st.steps + 1, t1, perr.msg);
  }
  for (int q = 0; q < 3 * n; q++) {
    s->v[q] = (s->xn[q] - s->x[q]) / dt;
    s->x[q] = s->xn[q];
  }
  s->t = t1;
  s->st.steps++;
  s->st.last_iterations = pr.iterations;
  s->st.last_violation = pr.violation;
  if (pr.violation > s->st.max_violation) s->st.max_violation = pr.violation;
  return CF_OK;
}

const double *cf_sim_x(const cf_sim *s) { return s->x; }
const double *cf_sim_v(const cf_sim *s) { return s->v; }
double cf_sim_time(const cf_sim *s) { return s->t; }
const cf_model *cf_sim_model(const cf_sim *s) { return s->md; }
cf_sim_stats cf_sim_get_stats(const cf_sim *s) { return s->st; }

void cf_drive_eval(const cf_drive *d, int n_kin, const double *x0, double t, double *out) {
  double off = 0;
  if (d->kind == CF_DRIVE_SHAKE) off = d->amplitude * (cos(2 * M_PI * d->frequency * t) - 1);
  for (int k = 0; k < n_kin; k++)
    for (int c = 0; c < 3; c++) out[3 * k + c] = x0[3 * k + c] + off * d->axis[c];
}
