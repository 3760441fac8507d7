/* sim.c — the time integrator (thesis §2.6): implicit-Euler unconstrained step,
 * then the fast projection; kinematic nodes follow prescribed positions
 * exactly.
 *
 * The predictor (cf_params.predictor, an option, off by default).  The fast projection of
 * the plain unconstrained step has to undo, every step, everything the
 * step did against the constraints: gravity pulling a hanging sheet down
 * (it is in equilibrium, so the projection lifts it back), the bending
 * step's smoothing of the velocities (κ > 0), the driven corners moving
 * perpendicular to a nearly flat sheet.  Those corrections are first order
 * in dt, and near the singular flat states (docs/design.md §4) Newton
 * converges on them slowly and needs the Levenberg-Marquardt safeguard, each
 * rejected update costing a factorization.  So the velocities of the
 * unconstrained step are first projected onto the tangent space of the
 * constraints at the step's start (J v = 0 in the M-norm, with the driven
 * nodes' velocities held): what is left for the position projection is the
 * curvature drift, O(dt² |v|² / h²).  A sheet hanging in equilibrium stays at
 * rest (gravity lies in the range of M⁻¹Jᵀ and is removed; 0.1 mm drift in
 * 2 s against 1.4 mm without), and the end of the step is the same fast
 * projection onto C = 0 up to tol.  The tangent solve is a conjugate-gradient
 * iteration preconditioned by the projection's current (mostly stale)
 * factorization (projection.c).
 * What it buys now (`bench_sim --repeat 5 --max-size 40 --predictor 0`,
 * then `--predictor 1`; κ = 0, 1 mm noise on the n×n sheets; one run on
 * this 2-core machine while writing this): 20×20 3.3 -> 1.7 ms per step
 * (6.7 -> 2.6 projection iterations); 40×40 on one thread 8.6 -> 4.4
 * iterations per step but 14 -> 17 ms (the CG solves cost what the
 * iterations did); the exactly planar A2 7×9 shake 2.07 -> 0.93 iterations
 * per step but 61 -> 78 ms.  Before the step-length control and the
 * inexact Newton steps of projection.h it did pay (then: 40×40, κ = 1e-3,
 * 3.3 s -> 0.1 s per step; κ = 0, 293 -> 104 ms; bench_sim has no κ
 * option, so the κ = 1e-3 figure cannot be rerun as it is).  Why it is not
 * the default: the motion along the modes the node-averaged constraints do
 * not see is tangent, and the predictor keeps it, where the plain
 * projection of positions happens to damp it — the 20×20 shake of
 * test_shake_area ends with a larger mean element area error (the test
 * prints both and asserts < 2 % without, the acceptance, and < 5 % with
 * it; when this was written 0.87 % and 1.06 %), and it saves no time. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bending.h"
#include "contact.h"
#include "qp.h"
#include "projection.h"
#include "proj_sens.h"

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
  p->predictor = 0;
  p->rest_bending = 0;
  p->model = CF_CLOTH_INEXTENSIBLE;
  p->k_stretch = CF_DEFAULT_K_STRETCH;
  p->k_shear = CF_DEFAULT_K_SHEAR;
  p->k_bend = CF_DEFAULT_K_BEND;
  p->max_substep_level = 4;
  p->threads = 1;
}

int cf_params_check(const cf_params *p, cf_error *err) {
  struct { const char *name; double v; int strict; } c[] = {
      {"rho", p->rho, 1},   {"delta", p->delta, 0}, {"alpha", p->alpha, 0},
      {"beta", p->beta, 0}, {"kappa", p->kappa, 0}, {"ks", p->ks, 0},
      {"g", p->g, 0},       {"dt", p->dt, 1},       {"tol", p->tol, 1},
      {"k_stretch", p->k_stretch, 0}, {"k_shear", p->k_shear, 0}, {"k_bend", p->k_bend, 0}};
  for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
    if (!isfinite(c[i].v) || (c[i].strict ? c[i].v <= 0 : c[i].v < 0))
      return cf_error_set(err, CF_EINVAL, "parameter %s = %g: expected a finite number %s 0",
                          c[i].name, c[i].v, c[i].strict ? ">" : ">=");
  }
  if (p->max_substep_level < 0 || p->max_substep_level > CF_MAX_SUBSTEP_LEVEL)
    return cf_error_set(err, CF_EINVAL, "parameter max_substep_level = %d: expected 0..%d",
                        p->max_substep_level, CF_MAX_SUBSTEP_LEVEL);
  if (p->predictor != 0 && p->predictor != 1)
    return cf_error_set(err, CF_EINVAL, "parameter predictor = %d: expected 0 or 1", p->predictor);
  if (p->rest_bending != 0 && p->rest_bending != 1)
    return cf_error_set(err, CF_EINVAL, "parameter rest_bending = %d: expected 0 or 1", p->rest_bending);
  if (p->rest_bending && p->ks > 0)
    return cf_error_set(err, CF_EINVAL, "parameter rest_bending = 1 with ks = %g: the shear energy's step "
                        "does not support bending relative to the rest curvature (use ks = 0)", p->ks);
  if (p->model < 0 || p->model >= CF_CLOTH_MODELS)
    return cf_error_set(err, CF_EINVAL, "parameter model = %d: expected 0..%d", p->model, CF_CLOTH_MODELS - 1);
  if (p->model != CF_CLOTH_INEXTENSIBLE && (p->ks > 0 || p->rest_bending))
    return cf_error_set(err, CF_EINVAL, "parameter %s with the %s model: only the inextensible model has it",
                        p->ks > 0 ? "ks" : "rest_bending", cf_cloth_model_name(p->model));
  if ((p->model == CF_CLOTH_ELASTIC || p->model == CF_CLOTH_MASS_SPRING) && !(p->k_stretch > 0))
    return cf_error_set(err, CF_EINVAL, "parameter k_stretch = %g: the %s model needs a stretching stiffness > 0",
                        p->k_stretch, cf_cloth_model_name(p->model));
  if (p->threads < 1 || p->threads > 256)
    return cf_error_set(err, CF_EINVAL, "parameter threads = %d: expected 1..256", p->threads);
  if (p->max_iter < 1)
    return cf_error_set(err, CF_EINVAL, "parameter max_iter = %d: expected >= 1", p->max_iter);
  return CF_OK;
}

struct cf_sim {
  const cf_mesh *mesh;
  cf_params p;
  cf_model *md;
  cf_proj *proj;
  cf_contact *ct;             /* obstacles (NULL: none) */
  double *x0;                 /* [3n] the unconstrained step (with obstacles) */
  cf_ustep *us[CF_MAX_SUBSTEP_LEVEL + 1]; /* per step length dt / 2^level */
  int n, n_kin;
  int *kin;
  unsigned char *is_kin;
  double *x, *v, *xn, *vs;
  double *xb, *vb;            /* state at the start of the step (for failures) */
  double *kfrom, *kto, *kmid; /* kinematic positions; kmid per substep level */
  double *kseg;               /* [2][3 n_kin]: ends of the current substep */
  int level;                  /* substep level the next step starts at */
  int calm;                   /* consecutive easy steps at that level */
  int deepest;                /* deepest level reached in the current step */
  long subs;                  /* substeps taken in the current step */
  long csubs;                 /* ... of them projected with contacts */
  double t;
  cf_sim_stats st;
  /* sensitivities (cf_sim_set_sensitivities; np = 0: off): [np][3n] each */
  int np, theta[CF_THETA_COUNT];
  double *dx, *dv, *dxb, *dvb, *dvs;
};

static cf_ustep *ustep_at(cf_sim *s, int level, cf_error *err);
static int finish_step(cf_sim *s, int level, double h, const cf_proj_result *pr, cf_error *perr);

void cf_sim_free(cf_sim *s) {
  if (!s) return;
  cf_model_free(s->md);
  cf_contact_free(s->ct);
  free(s->x0);
  cf_proj_free(s->proj);
  for (int l = 0; l <= CF_MAX_SUBSTEP_LEVEL; l++) cf_ustep_free(s->us[l]);
  CF_FREE_ALL(s->xb, s->vb, s->kfrom, s->kto, s->kmid, s->kseg, s->kin, s->is_kin, s->x, s->v, s->xn, s->vs, s->dx,
              s->dv, s->dxb, s->dvb, s->dvs, s);
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
  s->xb = malloc(sizeof(double) * 3 * n);
  s->vb = malloc(sizeof(double) * 3 * n);
  s->kfrom = malloc(sizeof(double) * 3 * (n_kin + 1));
  s->kto = malloc(sizeof(double) * 3 * (n_kin + 1));
  s->kmid = malloc(sizeof(double) * 3 * (n_kin + 1) * (CF_MAX_SUBSTEP_LEVEL + 1));
  s->kseg = malloc(sizeof(double) * 6 * (n_kin + 1));
  double *invm = malloc(sizeof(double) * n);
  if (!s->kin || !s->is_kin || !s->x || !s->v || !s->xn || !s->vs || !invm || !s->xb || !s->vb ||
      !s->kfrom || !s->kto || !s->kmid || !s->kseg) {
    free(invm);
    cf_sim_free(s);
    cf_error_set(err, CF_ENOMEM, "simulation: out of memory");
    return NULL;
  }
  if (n_kin > 0) memcpy(s->kin, kin, sizeof(int) * n_kin); /* kin may be NULL when n_kin = 0 */
  for (int k = 0; k < n_kin; k++) s->is_kin[kin[k]] = 1;
  memcpy(s->x, mesh->x, sizeof(double) * 3 * n);
  /* the model's constraints (with the shear energy the inextensible cloth
   * is quasi-inextensible: F is free); the elastic models have none, and
   * no projection */
  s->md = cf_model_constraints_alloc(mesh, p, err);
  if (s->md && s->md->nrows == 0) {
    s->st.threads = 1;
    ustep_at(s, 0, err);
  } else if (s->md) {
    for (int i = 0; i < n; i++) invm[i] = s->is_kin[i] ? 0 : 1 / s->md->mass[i];
    s->proj = cf_proj_alloc(s->md, invm, err);
    if (s->proj) cf_proj_set_threads(s->proj, p->threads);
    if (s->proj) {
      s->st.threads = cf_proj_threads(s->proj);
      ustep_at(s, 0, err);
    }
  }
  free(invm);
  if (!s->md || (!s->proj && s->md->nrows > 0) || !s->us[0]) {
    cf_sim_free(s);
    return NULL;
  }
  return s;
}

void cf_sim_set_time(cf_sim *s, double t) { s->t = t; }

/* Tangents back to 0 (a state set from outside does not depend on theta). */
static void sens_reset(cf_sim *s) {
  if (!s->np) return;
  size_t sz = sizeof(double) * 3 * (size_t)s->n * s->np;
  memset(s->dx, 0, sz);
  memset(s->dv, 0, sz);
  if (s->proj) cf_proj_invalidate(s->proj); /* the next factor's tangents are recorded */
}

void cf_sim_set_state(cf_sim *s, const double *x, const double *v) {
  if (x) memcpy(s->x, x, sizeof(double) * 3 * s->n);
  if (v) memcpy(s->v, v, sizeof(double) * 3 * s->n);
  if (s->proj) cf_proj_invalidate(s->proj);
  if (s->ct) cf_contact_reset(s->ct);
  sens_reset(s);
}

int cf_sim_project_state(cf_sim *s, cf_error *err) {
  if (!s->proj) return CF_OK;
  memcpy(s->xn, s->x, sizeof(double) * 3 * s->n);
  cf_proj_result pr;
  cf_error perr;
  int rc = cf_proj_solve(s->proj, s->xn, s->p.tol, CF_PROJECT_STATE_ITERS, 0, &pr, &perr);
  cf_proj_invalidate(s->proj);
  if (rc) return cf_error_set(err, rc, "projecting the start onto the constraints: %s", perr.msg);
  memcpy(s->x, s->xn, sizeof(double) * 3 * s->n);
  memset(s->v, 0, sizeof(double) * 3 * s->n);
  sens_reset(s);
  return CF_OK;
}

int cf_sim_set_obstacles(cf_sim *s, const cf_obstacle *obs, int n_obs, const cf_contact_params *cp,
                         cf_error *err) {
  for (int k = 0; k < n_obs; k++)
    if (cf_obstacle_check(obs + k, err)) return err ? err->code : CF_EINVAL;
  if (!(cp->thickness >= 0) || !isfinite(cp->thickness) || !(cp->eps_h > 0) || !(cp->eps_x > 0) ||
      (cp->updates != 0 && cp->updates != 1) || (cp->friction_budget != 0 && cp->friction_budget != 1) ||
      cp->max_active_set < 0 || (cp->solver != CF_CONTACT_ACTIVE_SET && cp->solver != CF_CONTACT_IPOPT) ||
      (cp->self != 0 && cp->self != 1) || !(cp->self_mu >= 0) || !isfinite(cp->self_mu) || !(cp->omega >= 0) ||
      !(cp->omega <= 0.5))
    return cf_error_set(err, CF_EINVAL, "contact parameters: thickness >= 0, eps_h > 0, eps_x > 0, "
                        "max_active_set >= 0, updates, friction_budget and self 0 or 1, self_mu >= 0, omega in "
                        "[0, 0.5], solver active-set or ipopt expected");
  if (cp->solver == CF_CONTACT_IPOPT && cf_qp_ipopt_check(err)) return CF_EINVAL;
  if (s->np && (n_obs > 0 || cp->self))
    return cf_error_set(err, CF_EINVAL, "contacts with sensitivities on: contacts are not differentiated "
                        "(cf_sim_set_sensitivities)");
  if (!s->proj && (n_obs > 0 || cp->self))
    return cf_error_set(err, CF_EINVAL, "contacts with the %s model: the contact solver works on the metric "
                        "constraints' projection, which the elastic models do not have (use the inextensible "
                        "or quasi-inextensible model)", cf_cloth_model_name(s->p.model));
  cf_contact_free(s->ct);
  s->ct = NULL;
  if (n_obs == 0 && !cp->self) return CF_OK;
  if (!s->x0 && !(s->x0 = malloc(sizeof(double) * 3 * s->n)))
    return cf_error_set(err, CF_ENOMEM, "simulation: out of memory");
  s->ct = cf_contact_alloc(s->proj, s->mesh, s->is_kin, obs, n_obs, cp, err);
  return s->ct ? CF_OK : CF_ENOMEM; /* its only failure */
}

/* Project s->xn (the unconstrained step of length h) with the contacts:
 * the end of the step is at time s->t + h. */
static int contact_project(cf_sim *s, double h, int iters, cf_proj_result *pr, cf_error *perr) {
  cf_contact_result cr;
  int rc = cf_contact_solve(s->ct, s->x, s->xn, h, s->t + h, s->p.tol, iters, &cr, perr);
  s->st.contact_steps++;
  s->csubs++;
  s->st.contact_iterations += cr.iterations;
  s->st.iterations += cr.iterations;
  s->st.contact_factorizations += cr.factorizations;
  s->st.contact_analyses += cr.analyses;
  s->st.contact_updates += cr.updates;
  s->st.active_set_iterations += cr.as_iterations;
  s->st.rows_in += cr.rows_in;
  s->st.rows_out += cr.rows_out;
  s->st.contact_dependent += cr.dependent;
  s->st.contact_exchanges += cr.exchanges;
  s->st.self_restarts += cr.restarts;
  s->st.last_contacts = cr.active;
  if (rc == CF_OK && (s->st.contact_steps == 1 || cr.min_h < s->st.min_clearance)) s->st.min_clearance = cr.min_h;
  pr->iterations += cr.iterations;
  pr->violation = cr.violation;
  return rc;
}

static int all_finite(const double *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(a[i])) return 0;
  return 1;
}

/* The unconstrained-step solver for step length dt / 2^level (made on
 * first use: its matrix depends on the step when kappa or beta > 0). */
static cf_ustep *ustep_at(cf_sim *s, int level, cf_error *err) {
  if (!s->us[level]) {
    cf_params p = s->p;
    p.dt = s->p.dt / (double)(1 << level);
    s->us[level] = cf_ustep_alloc(s->mesh, s->md->mass, &p, s->is_kin, err);
  }
  return s->us[level];
}

/* The tangents of the unconstrained step of length h into s->dvs, and
 * of its positions x + h v* into the projection's tangents (0 at the
 * kinematic nodes: prescribed). */
static int sens_ustep(cf_sim *s, cf_ustep *us, double h, cf_error *perr) {
  cf_ustep_tan a = {s->np, s->theta, s->x, s->vs, s->dx, s->dv, s->dvs};
  int rc = cf_ustep_tangent(us, &a, perr);
  if (rc) return rc;
  double *t = cf_proj_sens_t(s->proj);
  for (size_t q = 0; q < 3 * (size_t)s->n * s->np; q++)
    t[q] = s->is_kin[(q / 3) % s->n] ? 0 : s->dx[q] + h * s->dvs[q];
  return CF_OK;
}

/* The end of a step of length h: dv = (t - dx) / h, dx = t. */
static void sens_finish(cf_sim *s, double h) {
  const double *t = cf_proj_sens_t(s->proj);
  for (size_t q = 0; q < 3 * (size_t)s->n * s->np; q++) {
    s->dv[q] = (t[q] - s->dx[q]) / h;
    s->dx[q] = t[q];
  }
}

/* Projection iterations after which an attempt that can still be split
 * gives up.  Large meshes (projection.h: cf_proj_large) give up sooner:
 * their first steps from rest fail at whole and half steps, each failed
 * attempt refactoring on every Levenberg-Marquardt rejection (40x40 A2
 * shake: the first three steps cost 0.47 s with 15, 0.15 s with 8; steady
 * state unchanged; 80x80 ~8 % faster).  Not on smaller meshes, whose
 * trajectories (the bundled study, the validation tests) would change. */
#define CF_GIVE_UP_ITERS 15
#define CF_GIVE_UP_ITERS_LARGE 8

/* One implicit-Euler step of length dt/2^level moving the kinematic nodes to
 * kin_to: unconstrained velocities, their tangent projection (predictor),
 * the position projection.  The state changes only on success. */
static int try_step(cf_sim *s, int level, const double *kin_to, cf_proj_result *pr, cf_error *perr) {
  double h = s->p.dt / (double)(1 << level);
  int n = s->n;
  memset(pr, 0, sizeof *pr);
  for (int k = 0; k < s->n_kin; k++) {
    int i = s->kin[k];
    for (int d = 0; d < 3; d++) {
      s->vs[3 * i + d] = (kin_to[3 * k + d] - s->x[3 * i + d]) / h;
      s->xn[3 * i + d] = kin_to[3 * k + d];
    }
  }
  cf_ustep *us = ustep_at(s, level, perr);
  if (!us) return perr->code;
  int rc = cf_ustep_apply(us, s->x, s->v, s->vs, perr);
  if (rc) return rc;
  if (s->np && (rc = sens_ustep(s, us, h, perr))) return rc;
  if (s->proj && s->p.predictor) {
    cf_proj_result tr;
    rc = cf_proj_tangent(s->proj, s->x, s->vs, h, s->p.tol, &tr, perr);
    s->st.factorizations += tr.factorizations;
    s->st.cg_iterations += tr.iterations;
    if (rc) return rc;
  }
  for (int i = 0; i < n; i++)
    if (!s->is_kin[i])
      for (int d = 0; d < 3; d++) s->xn[3 * i + d] = s->x[3 * i + d] + h * s->vs[3 * i + d];
  if (!s->proj) /* an elastic model: the implicit step is the whole step */
    return finish_step(s, level, h, pr, perr);
  /* an attempt that can still be split gives up early: halving the step is
   * cheaper than a long, slowly converging projection */
  int c = cf_proj_large(s->proj) ? CF_GIVE_UP_ITERS_LARGE : CF_GIVE_UP_ITERS;
  int iters = level < s->p.max_substep_level && s->p.max_iter > c ? c : s->p.max_iter;
  /* with obstacles: the contact solve when the last step ended in contact
   * or the unconstrained step comes too close; else the plain projection,
   * redone with contacts if its result does */
  int contact = s->ct && cf_contact_needed(s->ct, s->x, s->xn, h, s->t + h);
  if (s->ct && !contact) memcpy(s->x0, s->xn, sizeof(double) * 3 * n);
  if (!contact) {
    rc = cf_proj_solve(s->proj, s->xn, s->p.tol, iters, s->p.reuse_factor, pr, perr);
    s->st.iterations += pr->iterations;
    s->st.factorizations += pr->factorizations;
    s->st.cg_iterations += pr->cg_iterations;
    if (rc == CF_OK && s->ct && cf_contact_needed(s->ct, s->x, s->xn, h, s->t + h)) {
      memcpy(s->xn, s->x0, sizeof(double) * 3 * n);
      contact = 1;
    }
  }
  if (contact) rc = contact_project(s, h, iters, pr, perr);
  if (rc) {
    cf_proj_invalidate(s->proj);
    return rc;
  }
  return finish_step(s, level, h, pr, perr);
}

/* The end of a step of length h at the given level from s->x to s->xn. */
static int finish_step(cf_sim *s, int level, double h, const cf_proj_result *pr, cf_error *perr) {
  int n = s->n;
  if (!all_finite(s->xn, 3 * (size_t)n)) {
    if (s->proj) cf_proj_invalidate(s->proj);
    return cf_error_set(perr, CF_ENONFINITE, "non-finite node position after %s (violation %.3g)",
                        s->proj ? "projection" : "the implicit step", pr->violation);
  }
  for (int q = 0; q < 3 * n; q++) {
    s->v[q] = (s->xn[q] - s->x[q]) / h;
    s->x[q] = s->xn[q];
  }
  if (s->np) sens_finish(s, h);
  s->t += h;
  if (level > 0) s->st.substeps++;
  if (level > s->deepest) s->deepest = level;
  s->subs++;
  s->st.last_iterations += pr->iterations;
  if (pr->violation > s->st.last_violation) s->st.last_violation = pr->violation;
  return CF_OK;
}

/* Step-length control.  The violation a step leaves grows like dt^2 / h,
 * so fine meshes do not converge at the recording's dt, and every step
 * that first fails at full length wastes up to 15 projection iterations
 * (40x40 A2 shake: ~10 factorizations per step thrown away).  So the
 * level that worked is kept for the following steps, and the next coarser
 * one is tried again only after CF_LEVEL_CALM_STEPS steps whose substeps
 * took at most CF_LEVEL_CALM_ITERS projection iterations each on average.
 * Decided from iteration counts only, so runs stay bitwise reproducible;
 * meshes that converge at full length (the 7x9 A2 shake) never leave
 * level 0.  Measured when it was added, 40x40 A2 shake (bench_sim): 280 ->
 * ~100 ms per step (later changes brought the 40x40 row of `bench_sim
 * --max-size 40` to ~14 ms per step on one thread).  A proactive split on
 * slow (not failed) convergence was tried then: it helped the 40x40 sheet
 * (~85 ms) but sent the A2 7x9 shake to half steps on its occasional
 * Levenberg-Marquardt steps (+40 % time). */
#define CF_LEVEL_CALM_ITERS 1.0
#define CF_LEVEL_CALM_STEPS 8

/* Advance from the kinematic positions kin_from to kin_to in one step of
 * dt/2^level, or, when the projection does not converge, in two half steps
 * (kinematic nodes at the midpoint in between), down to max_substep_level.
 * The constraint violation per step grows like g dt^2 / h (h the element
 * size), so fine meshes need shorter steps than the recording's dt. */
static int advance(cf_sim *s, int level, const double *kin_from, const double *kin_to, cf_error *perr) {
  cf_proj_result pr;
  int rc = try_step(s, level, kin_to, &pr, perr);
  if (rc != CF_ENOCONV || level >= s->p.max_substep_level) return rc;
  s->st.split_attempts++;
  double *mid = s->kmid + (size_t)3 * s->n_kin * level;
  for (int q = 0; q < 3 * s->n_kin; q++) mid[q] = 0.5 * (kin_from[q] + kin_to[q]);
  rc = advance(s, level + 1, kin_from, mid, perr);
  return rc ? rc : advance(s, level + 1, mid, kin_to, perr);
}

/* The step from kfrom to kto as 2^level equal substeps (kinematic nodes
 * moving linearly), each split further by advance() when it does not
 * converge, then the level for the next step (see CF_LEVEL_UP_ITERS). */
static int advance_parts(cf_sim *s, cf_error *perr) {
  int level = s->level, parts = 1 << level, nk = 3 * s->n_kin;
  double *ka = s->kseg, *kb = s->kseg + nk;
  long it0 = s->st.iterations;
  s->deepest = level;
  s->subs = s->csubs = 0;
  int rc = CF_OK;
  for (int j = 0; j < parts && rc == CF_OK; j++) {
    double a = (double)j / parts, b = (double)(j + 1) / parts;
    for (int q = 0; q < nk; q++) {
      ka[q] = s->kfrom[q] + a * (s->kto[q] - s->kfrom[q]);
      kb[q] = j + 1 == parts ? s->kto[q] : s->kfrom[q] + b * (s->kto[q] - s->kfrom[q]);
    }
    rc = advance(s, level, ka, kb, perr);
  }
  if (rc) return rc;
  /* a contact substep takes one more iteration than a free one when it
   * resolves contacts and then applies friction: not counted against calm */
  double mean = (double)(s->st.iterations - it0 - s->csubs) / (double)s->subs;
  if (s->deepest > level) {
    s->level = s->deepest;
    s->calm = 0;
  } else if (level > 0 && mean <= CF_LEVEL_CALM_ITERS) {
    if (++s->calm >= CF_LEVEL_CALM_STEPS) {
      s->level = level - 1;
      s->calm = 0;
    }
  } else {
    s->calm = 0;
  }
  return CF_OK;
}

int cf_sim_step(cf_sim *s, const double *kin_pos, cf_error *err) {
  double t0 = s->t, t1 = s->t + s->p.dt;
  int nk = 3 * s->n_kin;
  for (int k = 0; k < s->n_kin; k++)
    for (int d = 0; d < 3; d++) {
      s->kfrom[3 * k + d] = s->x[3 * s->kin[k] + d];
      s->kto[3 * k + d] = kin_pos ? kin_pos[3 * k + d] : s->kfrom[3 * k + d];
    }
  if (!all_finite(s->kto, (size_t)nk))
    return cf_error_set(err, CF_ENONFINITE, "step %ld (t = %.4f s): prescribed position is not finite",
                        s->st.steps + 1, t1);
  memcpy(s->xb, s->x, sizeof(double) * 3 * s->n);
  memcpy(s->vb, s->v, sizeof(double) * 3 * s->n);
  size_t nsens = sizeof(double) * 3 * (size_t)s->n * s->np;
  if (s->np) memcpy(s->dxb, s->dx, nsens), memcpy(s->dvb, s->dv, nsens);
  s->st.last_iterations = 0;
  s->st.last_violation = 0;
  cf_error perr;
  int rc = advance_parts(s, &perr);
  if (rc) { /* back to the last good step */
    memcpy(s->x, s->xb, sizeof(double) * 3 * s->n);
    memcpy(s->v, s->vb, sizeof(double) * 3 * s->n);
    if (s->np) memcpy(s->dx, s->dxb, nsens), memcpy(s->dv, s->dvb, nsens);
    s->t = t0;
    return cf_error_set(err, rc, "step %ld (t = %.4f s): %s", s->st.steps + 1, t1, perr.msg);
  }
  s->t = t1; /* exact, whatever the substeps added up to */
  for (int k = 0; k < s->n_kin; k++) /* exactly on the prescribed positions */
    memcpy(s->x + 3 * s->kin[k], s->kto + 3 * k, 3 * sizeof(double));
  s->st.steps++;
  if (s->st.last_violation > s->st.max_violation) s->st.max_violation = s->st.last_violation;
  return CF_OK;
}

const char *cf_theta_name(int theta) {
  static const char *names[CF_THETA_COUNT] = {"delta", "alpha", "kappa", "beta"};
  return theta >= 0 && theta < CF_THETA_COUNT ? names[theta] : "?";
}

/* Why the simulation's setup is not differentiated (NULL: it is). */
static const char *sens_refusal(const cf_sim *s) {
  if (!s->proj) return "the models without constraints";
  if (s->p.model != CF_CLOTH_INEXTENSIBLE) return "the quasi-inextensible model";
  if (s->p.ks > 0) return "the shear energy (ks > 0)";
  if (s->p.rest_bending) return "rest_bending";
  if (s->p.predictor) return "the predictor";
  if (s->ct) return "contacts";
  return NULL;
}

int cf_sim_set_sensitivities(cf_sim *s, const int *theta, int np, cf_error *err) {
  const char *why = np > 0 ? sens_refusal(s) : NULL;
  if (why) return cf_error_set(err, CF_EINVAL, "sensitivities: %s: not differentiated", why);
  if (np < 0 || np > CF_THETA_COUNT)
    return cf_error_set(err, CF_EINVAL, "sensitivities: %d parameters, expected 0..%d", np, CF_THETA_COUNT);
  for (int j = 0; j < np; j++) {
    int dup = 0;
    for (int k = 0; k < j; k++) dup |= theta[k] == theta[j];
    if (theta[j] < 0 || theta[j] >= CF_THETA_COUNT || dup)
      return cf_error_set(err, CF_EINVAL, "sensitivities: parameter %d (%d) is not a distinct cf_theta", j,
                          theta[j]);
  }
  double **arr[5] = {&s->dx, &s->dv, &s->dxb, &s->dvb, &s->dvs};
  int bad = 0;
  for (int k = 0; k < 5; k++) {
    free(*arr[k]);
    *arr[k] = np ? calloc(3 * (size_t)s->n * np, sizeof(double)) : NULL;
    bad |= np && !*arr[k];
  }
  if (!bad && (!s->proj || cf_proj_sens_on(s->proj, np) == CF_OK)) { /* no projection: np = 0 (refused above) */
    s->np = np;
    if (np) memcpy(s->theta, theta, sizeof(int) * (size_t)np);
    return CF_OK;
  }
  s->np = 0;
  if (s->proj) cf_proj_sens_on(s->proj, 0);
  return cf_error_set(err, CF_ENOMEM, "sensitivities: out of memory");
}

int cf_sim_sensitivities(const cf_sim *s) { return s->np; }
const double *cf_sim_dx(const cf_sim *s, int j) { return j >= 0 && j < s->np ? s->dx + (size_t)3 * s->n * j : NULL; }
const double *cf_sim_dv(const cf_sim *s, int j) { return j >= 0 && j < s->np ? s->dv + (size_t)3 * s->n * j : NULL; }

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
