/* test_contact.c — obstacles and the contact projection (thesis
 * §3.2-§3.5; docs/design.md §5).
 *
 * 1. Every obstacle kind: the outward normal is the gradient of the signed
 *    distance (central differences, 1e-6) at random points, inside and out;
 *    moving/rotating obstacles: the distance of a point carried by the
 *    motion does not change, and the velocity is the derivative of that
 *    motion.
 * 2. A step without contacts is the contact-free step, bitwise: a shaken
 *    hanging sheet above a floor it never reaches, 150 steps with and
 *    without the floor.
 * 3. A horizontal A2 sheet (7x9 quads) dropped on a table top: at every
 *    step every free node is at least thickness - eps1 from every
 *    obstacle (measured from the positions, not from the solver), the
 *    metric constraints are within tol; after 1.5 s it rests on the table
 *    (max speed < 1 mm/s) at the table's height + thickness.
 * 4. The same sheet dropped over a sphere: clearance at every step, metric
 *    constraints within tol.
 * 5. A sheet dropped on a sphere rotating about z turns with it (see
 *    test_spin).
 * 6. Kinematic nodes: the shaken hanging sheet driven into a box (see
 *    test_driven_into_box). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "testutil.h"

static unsigned long long rng = 12345;

static void gradient_check(const cf_obstacle *o, double t, const char *what) {
  double worst = 0;
  for (int trial = 0; trial < 400; trial++) {
    double p[3], n[3], g[3];
    for (int d = 0; d < 3; d++) p[d] = o->c[d] + 0.6 * cf_test_rand(&rng);
    cf_obstacle_distance(o, t, p, n);
    const double e = 1e-6;
    for (int d = 0; d < 3; d++) {
      double a[3], b[3];
      memcpy(a, p, sizeof a);
      memcpy(b, p, sizeof b);
      a[d] += e;
      b[d] -= e;
      g[d] = (cf_obstacle_distance(o, t, a, NULL) - cf_obstacle_distance(o, t, b, NULL)) / (2 * e);
    }
    double dev = 0;
    for (int d = 0; d < 3; d++) dev = fmax(dev, fabs(g[d] - n[d]));
    /* points within 1e-5 of a kink (box medial surfaces) may differ */
    if (dev > 1e-4) {
      double q[3], nq[3];
      int kink = 0;
      for (int d = 0; d < 3 && !kink; d++) {
        memcpy(q, p, sizeof q);
        q[d] += 1e-5;
        cf_obstacle_distance(o, t, q, nq);
        kink = fabs(nq[0] - n[0]) + fabs(nq[1] - n[1]) + fabs(nq[2] - n[2]) > 1e-3;
      }
      if (kink) continue;
    }
    worst = fmax(worst, dev);
  }
  CHECK(worst < 1e-4, "%s: normal vs finite-difference gradient of the distance: %.3g", what, worst);
}

static void test_obstacles(void) {
  cf_obstacle o[5];
  cf_obstacle_init(o + 0, cf_obstacle_plane);
  o[0].a[0] = 0.6, o[0].a[2] = 0.8;
  cf_obstacle_init(o + 1, cf_obstacle_sphere);
  o[1].c[2] = 0.1, o[1].r = 0.3;
  cf_obstacle_init(o + 2, cf_obstacle_cylinder);
  o[2].a[0] = 1, o[2].a[2] = 0, o[2].r = 0.2, o[2].len = 0.25;
  cf_obstacle_init(o + 3, cf_obstacle_box);
  o[3].h[0] = 0.3, o[3].h[1] = 0.2, o[3].h[2] = 0.1;
  cf_obstacle_init(o + 4, cf_obstacle_table);
  o[4].c[2] = 0.7, o[4].h[0] = 0.4, o[4].h[1] = 0.3, o[4].h[2] = 0.03;
  cf_error err = {0, ""};
  for (int k = 0; k < 5; k++) {
    CHECK(cf_obstacle_check(o + k, &err) == CF_OK, "%s: %s", o[k].type->name, err.msg);
    CHECK(cf_obstacle_type_find(o[k].type->name) == o[k].type, "%s: find", o[k].type->name);
    gradient_check(o + k, 0, o[k].type->name);
  }
  /* closed forms */
  double p[3] = {0.1, 0.05, 0.75}, n[3];
  CHECK(fabs(cf_obstacle_distance(o + 4, 0, p, n) - 0.05) < 1e-15 && n[2] == 1, "table top: distance 0.05");
  double pe[3] = {0.5, 0, 0.8}; /* beyond the table's edge x = 0.4, above its top */
  double de = cf_obstacle_distance(o + 4, 0, pe, n);
  CHECK(fabs(de - hypot(0.1, 0.1)) < 1e-15 && fabs(n[0] - n[2]) < 1e-15, "table edge: %.17g", de);
  double ps[3] = {0, 0, 0.6};
  CHECK(fabs(cf_obstacle_distance(o + 1, 0, ps, n) - 0.2) < 1e-15 && n[2] == 1, "sphere: distance 0.2");
  double pc[3] = {0.1, 0, 0.5};
  CHECK(fabs(cf_obstacle_distance(o + 2, 0, pc, n) - 0.3) < 1e-15 && n[2] == 1, "cylinder side: 0.3");
  /* invalid fields are named */
  cf_obstacle bad = o[1];
  bad.r = -1;
  CHECK(cf_obstacle_check(&bad, &err) == CF_EINVAL && strstr(err.msg, "radius"), "sphere r < 0: %s", err.msg);
  bad = o[0];
  bad.mu = -0.1;
  CHECK(cf_obstacle_check(&bad, &err) == CF_EINVAL && strstr(err.msg, "mu"), "mu < 0: %s", err.msg);
  /* motion: a rotating, translating box; body points keep their distance */
  cf_obstacle mv = o[3];
  mv.vel[0] = 0.3, mv.omega = 2.0, mv.rot_axis[0] = 0.6, mv.rot_axis[1] = 0, mv.rot_axis[2] = 0.8;
  mv.rot_c[1] = 0.1;
  CHECK(cf_obstacle_check(&mv, &err) == CF_OK, "moving box: %s", err.msg);
  gradient_check(&mv, 0.7, "moving box");
  double q[3] = {0.35, 0.1, 0.05}, d0 = cf_obstacle_distance(&mv, 0, q, NULL), worst = 0, wv = 0;
  for (int k = 1; k <= 100; k++) { /* carry q with the motion by its velocity (RK2) */
    double h = 0.01, t = (k - 1) * h, v1[3], qm[3], v2[3];
    cf_obstacle_velocity(&mv, t, q, v1);
    for (int d = 0; d < 3; d++) qm[d] = q[d] + 0.5 * h * v1[d];
    cf_obstacle_velocity(&mv, t + 0.5 * h, qm, v2);
    for (int d = 0; d < 3; d++) q[d] += h * v2[d];
    worst = fmax(worst, fabs(cf_obstacle_distance(&mv, k * h, q, NULL) - d0));
    wv = fmax(wv, fabs(v2[0]));
  }
  CHECK(worst < 1e-4, "a point carried by the velocity field keeps its distance: drift %.3g", worst);
}

static cf_mesh *sheet(double z, int horizontal) {
  double o[3] = {-0.21, -0.297, z}, u[3] = {0.42, 0, 0}, v[3] = {0, 0.594, 0};
  if (!horizontal) o[1] = 0, o[2] = z, v[1] = 0, v[2] = -0.594;
  return cf_mesh_grid(7, 9, o, u, v, 1);
}

/* 2: obstacles that are never touched change nothing, bitwise. */
static void test_contact_free(void) {
  cf_mesh *m = sheet(1.0, 0);
  int kin[2] = {0, 6};
  cf_params p;
  cf_params_default(&p);
  cf_error err = {0, ""};
  cf_sim *a = cf_sim_alloc(m, &p, kin, 2, &err), *b = cf_sim_alloc(m, &p, kin, 2, &err);
  cf_obstacle floor;
  cf_obstacle_init(&floor, cf_obstacle_plane);
  floor.mu = 0.5;
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  CHECK(a && b && cf_sim_set_obstacles(b, &floor, 1, &cp, &err) == CF_OK, "%s", err.msg);
  cf_drive dr = {CF_DRIVE_SHAKE, 0.075, 0.6, {0, 1, 0}};
  double k0[6], kp[6];
  memcpy(k0, m->x, 3 * sizeof(double));
  memcpy(k0 + 3, m->x + 18, 3 * sizeof(double));
  int same = 1;
  for (int k = 1; k <= 150 && a && b; k++) {
    cf_drive_eval(&dr, 2, k0, k * p.dt, kp);
    int ra = cf_sim_step(a, kp, &err), rb = cf_sim_step(b, kp, &err);
    CHECK(ra == CF_OK && rb == CF_OK, "step %d: %s", k, err.msg);
    if (ra || rb) break;
    same &= memcmp(cf_sim_x(a), cf_sim_x(b), sizeof(double) * 3 * m->n_nodes) == 0;
  }
  CHECK(same, "a floor 40 cm below the sheet changed its trajectory");
  if (b) CHECK(cf_sim_get_stats(b).contact_steps == 0, "contact steps %ld", cf_sim_get_stats(b).contact_steps);
  cf_sim_free(a);
  cf_sim_free(b);
  cf_mesh_free(m);
}

/* Min over free nodes and obstacles of distance - thickness at time t. */
static double clearance(const cf_obstacle *o, int n_obs, const double *x, int n, double t, double tau) {
  double m = INFINITY;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n_obs; k++) m = fmin(m, cf_obstacle_distance(o + k, t, x + 3 * i, NULL) - tau);
  return m;
}

/* A free sheet m with default parameters and the obstacles o[n_obs]; *cp
 * gets the default contact parameters it uses. */
static int updates = 1; /* cf_contact_params.updates of contact_sim */

static cf_sim *contact_sim(const cf_mesh *m, const cf_obstacle *o, int n_obs, cf_contact_params *cp,
                           const char *what) {
  cf_params p;
  cf_params_default(&p);
  cf_contact_params_default(cp);
  cp->updates = updates;
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, NULL, 0, &err);
  if (s && cf_sim_set_obstacles(s, o, n_obs, cp, &err)) {
    cf_sim_free(s);
    s = NULL;
  }
  CHECK(s != NULL, "%s: %s", what, err.msg);
  return s;
}

typedef struct {
  double min_clear, max_viol, max_speed_end, zmin_end, zmax_end;
  double x_end[3 * 63];
  int steps_done;
  cf_sim_stats st;
} drop_result;

static drop_result drop(const cf_obstacle *o, int n_obs, double z0, int steps, const char *what) {
  drop_result r;
  memset(&r, 0, sizeof r);
  r.min_clear = r.zmin_end = INFINITY;
  r.zmax_end = -INFINITY;
  cf_mesh *m = sheet(z0, 1);
  cf_contact_params cp;
  cf_error err = {0, ""};
  cf_sim *s = contact_sim(m, o, n_obs, &cp, what);
  int n = m->n_nodes;
  for (int k = 1; k <= steps && s; k++) {
    if (cf_sim_step(s, NULL, &err)) {
      CHECK(0, "%s: %s", what, err.msg);
      break;
    }
    r.steps_done = k;
    const double *x = cf_sim_x(s);
    r.min_clear = fmin(r.min_clear, clearance(o, n_obs, x, n, cf_sim_time(s), cp.thickness));
    r.max_viol = fmax(r.max_viol, cf_model_violation(cf_sim_model(s), x));
  }
  if (s) {
    const double *x = cf_sim_x(s), *v = cf_sim_v(s);
    for (int i = 0; i < n; i++) {
      r.max_speed_end = fmax(r.max_speed_end, sqrt(v[3 * i] * v[3 * i] + v[3 * i + 1] * v[3 * i + 1] +
                                                   v[3 * i + 2] * v[3 * i + 2]));
      r.zmin_end = fmin(r.zmin_end, x[3 * i + 2]);
      r.zmax_end = fmax(r.zmax_end, x[3 * i + 2]);
    }
    r.st = cf_sim_get_stats(s);
    memcpy(r.x_end, x, sizeof(double) * 3 * (n < 63 ? n : 63));
    printf("%s: %d steps, min clearance %.3g m, max violation %.3g, end speed %.3g m/s, z %.5f..%.5f; "
           "contact steps %ld, iterations %ld, factorizations %ld, analyses %ld, active-set solves %ld, "
           "rows in %ld out %ld, contacts at end %d\n",
           what, r.steps_done, r.min_clear, r.max_viol, r.max_speed_end, r.zmin_end, r.zmax_end,
           r.st.contact_steps, r.st.contact_iterations, r.st.contact_factorizations, r.st.contact_analyses,
           r.st.active_set_iterations, r.st.rows_in, r.st.rows_out, r.st.last_contacts);
  }
  cf_sim_free(s);
  cf_mesh_free(m);
  return r;
}

static void test_table(void) {
  cf_obstacle t;
  cf_obstacle_init(&t, cf_obstacle_table);
  t.c[2] = 0.75, t.h[0] = 0.5, t.h[1] = 0.5, t.h[2] = 0.03, t.mu = 0.3;
  drop_result r = drop(&t, 1, 0.85, 150, "sheet on a table");
  CHECK(r.steps_done == 150, "table: steps");
  CHECK(r.min_clear >= -1e-5, "table: min clearance %.3g m < -eps1", r.min_clear);
  CHECK(r.max_viol <= 1e-3, "table: max metric violation %.3g", r.max_viol);
  CHECK(r.max_speed_end < 1e-3, "table: not at rest, speed %.3g m/s", r.max_speed_end);
  CHECK(r.zmin_end > 0.752 - 1e-5 && r.zmax_end < 0.752 + 1e-4, "table: z %.6f..%.6f, expected 0.752",
        r.zmin_end, r.zmax_end);
  CHECK(r.st.last_contacts == 63, "table: %d contacts at rest, expected all 63 nodes", r.st.last_contacts);
}

/* Remark 3.5.3: two coincident tables give every node two identical rows;
 * the factorization finds the second of each pair dependent and it leaves
 * W, so the run is the one-table run. */
static void test_dependent_rows(void) {
  cf_obstacle t[2];
  cf_obstacle_init(t, cf_obstacle_table);
  t[0].c[2] = 0.75, t[0].h[0] = 0.5, t[0].h[1] = 0.5, t[0].h[2] = 0.03, t[0].mu = 0.3;
  t[1] = t[0];
  drop_result a = drop(t, 1, 0.85, 80, "one table"), b = drop(t, 2, 0.85, 80, "two coincident tables");
  double d = 0;
  for (int q = 0; q < 3 * 63; q++) d = fmax(d, fabs(a.x_end[q] - b.x_end[q]));
  printf("two coincident tables: %d contacts at the end (one table: %d), positions off by %.3g m, %ld dependent "
         "rows left W\n", b.st.last_contacts, a.st.last_contacts, d, b.st.contact_dependent);
  CHECK(b.steps_done == 80 && d <= 1e-9, "two coincident tables: %d steps, end positions off by %.3g m",
        b.steps_done, d);
  CHECK(b.st.contact_dependent > 0, "two coincident tables: no dependent row found");
}

static void test_sphere(void) {
  cf_obstacle o[2];
  cf_obstacle_init(o, cf_obstacle_sphere);
  o[0].c[2] = 0.5, o[0].r = 0.15, o[0].mu = 0.3;
  cf_obstacle_init(o + 1, cf_obstacle_plane);
  o[1].mu = 0.3;
  drop_result r = drop(o, 2, 0.7, 150, "sheet on a sphere above a floor");
  CHECK(r.steps_done == 150, "sphere: steps");
  CHECK(r.min_clear >= -1e-5, "sphere: min clearance %.3g m < -eps1", r.min_clear);
  CHECK(r.max_viol <= 1e-3, "sphere: max metric violation %.3g", r.max_viol);
  /* the factor updates (cholmod_rowadd/rowdel) against refactoring on every
   * working-set change: the same trajectory up to rounding */
  updates = 0;
  drop_result q = drop(o, 2, 0.7, 150, "sheet on a sphere, refactoring on every change");
  updates = 1;
  double dmax = 0;
  for (int k = 0; k < 3 * 63; k++) dmax = fmax(dmax, fabs(q.x_end[k] - r.x_end[k]));
  printf("sphere: updates vs refactoring: end positions differ by %.3g m; factorizations %ld vs %ld\n", dmax,
         r.st.contact_factorizations, q.st.contact_factorizations);
  CHECK(dmax < 1e-6, "sphere: factor updates and refactoring end %.3g m apart", dmax);
  CHECK(r.st.contact_updates > 0 && q.st.contact_updates == 0 &&
            r.st.contact_factorizations < q.st.contact_factorizations,
        "sphere: updates %ld / %ld, factorizations %ld / %ld", r.st.contact_updates, q.st.contact_updates,
        r.st.contact_factorizations, q.st.contact_factorizations);
}

/* 5: a sheet dropped on a sphere that rotates about the vertical axis
 * (thesis §3.6.2): friction drags it in the
 * direction of rotation: after 1 s its mean angular velocity about the axis
 * (sum m r x v / sum m r^2, z components) is positive, at least 50 % of the
 * sphere's; opposite rotation, opposite sign (the same run mirrored). */
static double spin(double omega) {
  cf_obstacle o;
  cf_obstacle_init(&o, cf_obstacle_sphere);
  o.r = 0.2, o.mu = 0.5, o.omega = omega;
  cf_mesh *m = sheet(0.25, 1);
  cf_contact_params cp;
  cf_error err = {0, ""};
  cf_sim *s = contact_sim(m, &o, 1, &cp, "spin");
  double minc = INFINITY, maxv = 0, lz = 0, iz = 0;
  for (int k = 1; k <= 100 && s; k++) {
    if (cf_sim_step(s, NULL, &err)) {
      CHECK(0, "spin %g: step %d: %s", omega, k, err.msg);
      break;
    }
    minc = fmin(minc, clearance(&o, 1, cf_sim_x(s), m->n_nodes, cf_sim_time(s), cp.thickness));
    maxv = fmax(maxv, cf_model_violation(cf_sim_model(s), cf_sim_x(s)));
  }
  if (s) {
    const double *x = cf_sim_x(s), *v = cf_sim_v(s), *ms = cf_model_mass(cf_sim_model(s));
    for (int i = 0; i < m->n_nodes; i++) {
      lz += ms[i] * (x[3 * i] * v[3 * i + 1] - x[3 * i + 1] * v[3 * i]);
      iz += ms[i] * (x[3 * i] * x[3 * i] + x[3 * i + 1] * x[3 * i + 1]);
    }
  }
  double w = iz > 0 ? lz / iz : 0;
  printf("sphere rotating at %g rad/s: sheet at %.4f rad/s after 1 s; min clearance %.3g m, max violation %.3g\n",
         omega, w, minc, maxv);
  CHECK(minc >= -1e-5, "spin: min clearance %.3g m", minc);
  CHECK(maxv <= 1e-3, "spin: max violation %.3g", maxv);
  cf_sim_free(s);
  cf_mesh_free(m);
  return w;
}

static void test_spin(void) {
  double a = spin(1.5), b = spin(-1.5);
  CHECK(a > 0.5 * 1.5, "the sheet turns at %.4f rad/s, the sphere at 1.5", a);
  CHECK(b < -0.5 * 1.5, "the sheet turns at %.4f rad/s, the sphere at -1.5", b);
}

/* 6: kinematic nodes with contacts: the hanging sheet of the shake
 * scenario (top corners driven 0.15 m across it in 0.83 s) is driven into a
 * box in front of its lower half, which it has to wrap around: every step
 * converges, every free node stays thickness - eps1 outside the box, the
 * metric constraints within tol, and the box held part of the sheet back
 * (contacts during the run). */
static void test_driven_into_box(void) {
  cf_mesh *m = sheet(1.0, 0);
  int kin[2] = {0, 6};
  cf_params p;
  cf_params_default(&p);
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cf_obstacle box;
  cf_obstacle_init(&box, cf_obstacle_box);
  box.c[1] = -0.13, box.c[2] = 0.7, box.h[0] = 0.3, box.h[1] = 0.02, box.h[2] = 0.1, box.mu = 0.3;
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  CHECK(s && cf_sim_set_obstacles(s, &box, 1, &cp, &err) == CF_OK, "driven: %s", err.msg);
  cf_drive dr = {CF_DRIVE_SHAKE, 0.075, 0.6, {0, 1, 0}};
  double k0[6], kp[6], minc = INFINITY, maxv = 0;
  memcpy(k0, m->x, 3 * sizeof(double));
  memcpy(k0 + 3, m->x + 18, 3 * sizeof(double));
  int steps = 0;
  for (int k = 1; k <= 100 && s; k++, steps++) {
    cf_drive_eval(&dr, 2, k0, k * p.dt, kp);
    if (cf_sim_step(s, kp, &err)) {
      CHECK(0, "driven into a box: %s", err.msg);
      break;
    }
    const double *x = cf_sim_x(s);
    for (int i = 0; i < m->n_nodes; i++)
      if (i != kin[0] && i != kin[1]) minc = fmin(minc, cf_obstacle_distance(&box, 0, x + 3 * i, NULL) - cp.thickness);
    maxv = fmax(maxv, cf_model_violation(cf_sim_model(s), x));
  }
  cf_sim_stats st = s ? cf_sim_get_stats(s) : (cf_sim_stats){0};
  printf("driven into a box: %d steps, min clearance %.3g m, max violation %.3g; contact steps %ld, substeps %ld, "
         "active-set solves %ld, analyses %ld\n",
         steps, minc, maxv, st.contact_steps, st.substeps, st.active_set_iterations, st.contact_analyses);
  CHECK(steps == 100, "driven into a box: %d steps", steps);
  CHECK(minc >= -1e-5, "driven into a box: min clearance %.3g m", minc);
  CHECK(maxv <= 1e-3, "driven into a box: max violation %.3g", maxv);
  CHECK(st.contact_steps > 10, "driven into a box: %ld contact steps", st.contact_steps);
  cf_sim_free(s);
  cf_mesh_free(m);
}

int main(void) {
  test_obstacles();
  test_contact_free();
  test_table();
  test_sphere();
  test_spin();
  test_driven_into_box();
  test_dependent_rows();
  return cf_test_done("test_contact");
}
