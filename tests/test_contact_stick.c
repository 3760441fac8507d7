/* test_contact_stick.c — thin and sharp obstacles (docs/design.md §5): the
 * stick of the hitting experiments (thesis §4.3.2), a capsule kept outside
 * every node, edge and face of the cloth, and the needles of §3.6.3.
 *
 * 1. Geometry: the capsule's normal is the gradient of its distance;
 *    closed forms; cf_segment_closest against a brute-force search over 300
 *    random segment pairs (parallel, crossing, degenerate); a tracked stick
 *    interpolates its samples and its velocity is the samples' rate;
 *    invalid fields are named.
 * 2. Hitting: an A2 sheet (7 x 9 quads, 7 cm cells) hangs from its two top
 *    corners; a 1 m stick of radius 0.75 cm, parallel to the sheet and
 *    half-way between two node rows (so only edges can hold it), is driven
 *    through it at 1 m/s and at 6 m/s (5 cm per step: more than the
 *    stick's diameter + thickness, so the stick jumps the sheet within one
 *    step, which its side at the step's start must catch: without it the
 *    cloth stays behind).  At every step, measured from the positions: every free node at
 *    least thickness − ε1 outside the capsule; every collision edge (quad
 *    sides and the diagonal from the first node) at least r + thickness − ε1 − CF_EDGE_END × its
 *    length from the axis (edges whose closest point is that near a node
 *    are held by the node); no triangle of either split of each quad meets
 *    the axis (exact segment–triangle test), and the cloth is in front of
 *    the stick (no triangle on four rays backwards from 5 cm behind the
 *    axis: a sheet parallel to the axis is met by it only at one instant,
 *    these rays see a crossing within a few steps); metric violation ≤ tol.  At the end the cloth was
 *    carried (some node > 0.2 m ahead of where it hung).
 * 3. A tracked stick (samples of the same motion at 1/120 s) is the same
 *    axis (1e-12 m, at and between the samples) and keeps the guarantees of
 *    2 (not the same trajectory to rounding: the projection stops at tol).
 * 4. The edge rows are needed: the same run with a capped cylinder of the
 *    stick's axis and radius (node rows only) lets the axis through the
 *    cloth; asserted so that 2 cannot pass vacuously.
 * 5. Needles (thesis §3.6.3), whose tips are sharp points like the stick's
 *    ends: see test_needles. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "testutil.h"

static unsigned long long rng = 777;

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void test_geometry(void) {
  cf_obstacle o;
  cf_obstacle_init(&o, cf_obstacle_stick);
  o.c[0] = 0.1, o.a[0] = 0.6, o.a[1] = 0.8, o.a[2] = 0, o.len = 0.3;
  cf_error err = {0, ""};
  CHECK(cf_obstacle_check(&o, &err) == CF_OK, "stick: %s", err.msg);
  CHECK(o.r == CF_STICK_RADIUS && cf_obstacle_type_find("stick") == cf_obstacle_stick, "stick defaults");
  double worst = 0;
  for (int trial = 0; trial < 400; trial++) {
    double p[3], n[3];
    for (int d = 0; d < 3; d++) p[d] = o.c[d] + 0.5 * cf_test_rand(&rng);
    cf_obstacle_distance(&o, 0, p, n);
    for (int d = 0; d < 3; d++) {
      double a[3], b[3], e = 1e-6;
      memcpy(a, p, sizeof a), memcpy(b, p, sizeof b);
      a[d] += e, b[d] -= e;
      double g = (cf_obstacle_distance(&o, 0, a, NULL) - cf_obstacle_distance(&o, 0, b, NULL)) / (2 * e);
      worst = fmax(worst, fabs(g - n[d]));
    }
  }
  CHECK(worst < 1e-5, "stick: normal vs gradient %.3g", worst);
  double p1[3] = {0.1, 0, 0.2}, p2[3] = {0.1 + 0.6 * 0.5, 0.8 * 0.5, 0}, n[3];
  CHECK(fabs(cf_obstacle_distance(&o, 0, p1, n) - (0.2 - o.r)) < 1e-15 && n[2] == 1, "stick side");
  CHECK(fabs(cf_obstacle_distance(&o, 0, p2, n) - (0.2 - o.r)) < 1e-12, "stick end cap");
  /* segment-segment closest points against a search */
  double werr = 0;
  for (int trial = 0; trial < 300; trial++) {
    double a0[3], a1[3], b0[3], b1[3], s, u;
    for (int d = 0; d < 3; d++) {
      a0[d] = cf_test_rand(&rng), a1[d] = cf_test_rand(&rng), b0[d] = cf_test_rand(&rng), b1[d] = cf_test_rand(&rng);
      if (trial % 5 == 1) b1[d] = b0[d] + 0.7 * (a1[d] - a0[d]); /* parallel */
      if (trial % 7 == 2) a1[d] = a0[d];                         /* a point */
    }
    double d = cf_segment_closest(a0, a1, b0, b1, &s, &u), best = INFINITY;
    for (int q = 0; q <= 2000; q++) { /* along a, the nearest point of b in closed form */
      double t = q / 2000.0, p[3], e[3], v[3];
      for (int k = 0; k < 3; k++) p[k] = a0[k] + t * (a1[k] - a0[k]), e[k] = b1[k] - b0[k], v[k] = p[k] - b0[k];
      double l2 = dot3(e, e), w = l2 > 0 ? fmin(1, fmax(0, dot3(v, e) / l2)) : 0;
      for (int k = 0; k < 3; k++) v[k] -= w * e[k];
      best = fmin(best, sqrt(dot3(v, v)));
    }
    double pa[3];
    for (int k = 0; k < 3; k++) pa[k] = a0[k] + s * (a1[k] - a0[k]) - b0[k] - u * (b1[k] - b0[k]);
    CHECK(s >= 0 && s <= 1 && u >= 0 && u <= 1, "segments %d: parameters %g %g", trial, s, u);
    werr = fmax(werr, fmax(d - best, fabs(sqrt(dot3(pa, pa)) - d)));
  }
  CHECK(werr < 1e-6, "segment distance above the search's by %.3g", werr);
  /* a tracked stick */
  double tr[3 * 6] = {0, 0, 0, 1, 0, 0, 0, 0.1, 0, 1, 0.1, 0.2, 0, 0.3, 0, 1, 0.3, 0};
  cf_obstacle ts;
  cf_obstacle_init(&ts, cf_obstacle_stick);
  ts.track = tr, ts.track_n = 3, ts.track_dt = 0.1;
  CHECK(cf_obstacle_check(&ts, &err) == CF_OK, "tracked stick: %s", err.msg);
  double e0[3], e1[3], v[3], q[3] = {1, 0.5, 1};
  cf_obstacle_segment(&ts, 0.05, e0, e1);
  CHECK(fabs(e0[1] - 0.05) < 1e-15 && fabs(e1[1] - 0.05) < 1e-15 && fabs(e1[2] - 0.1) < 1e-15, "track at 0.05 s");
  cf_obstacle_velocity(&ts, 0.15, q, v); /* at endpoint 1: its rate 2, -2 m/s in y, z */
  CHECK(fabs(v[1] - 2) < 1e-12 && fabs(v[2] + 2) < 1e-12, "track velocity %g %g", v[1], v[2]);
  cf_obstacle_segment(&ts, 5, e0, e1);
  CHECK(e1[1] == 0.3 && e1[2] == 0, "held after the track");
  cf_obstacle bad = ts;
  bad.vel[0] = 1;
  CHECK(cf_obstacle_check(&bad, &err) == CF_EINVAL && strstr(err.msg, "velocity"), "tracked + velocity: %s",
        err.msg);
  bad = o;
  bad.len = 0;
  CHECK(cf_obstacle_check(&bad, &err) == CF_EINVAL && strstr(err.msg, "length"), "stick length 0: %s", err.msg);
  bad = o;
  bad.r = 0;
  CHECK(cf_obstacle_check(&bad, &err) == CF_EINVAL && strstr(err.msg, "radius"), "stick radius 0: %s", err.msg);
}

/* Möller–Trumbore, both sides, the segment p0-p1 against triangle abc. */
static int segment_hits_triangle(const double *p0, const double *p1, const double *a, const double *b,
                                 const double *c) {
  double d[3], e1[3], e2[3], h[3], s[3], q[3];
  for (int k = 0; k < 3; k++) d[k] = p1[k] - p0[k], e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], s[k] = p0[k] - a[k];
  h[0] = d[1] * e2[2] - d[2] * e2[1], h[1] = d[2] * e2[0] - d[0] * e2[2], h[2] = d[0] * e2[1] - d[1] * e2[0];
  double det = dot3(e1, h);
  if (fabs(det) < 1e-18) return 0;
  double u = dot3(s, h) / det;
  if (u < 0 || u > 1) return 0;
  q[0] = s[1] * e1[2] - s[2] * e1[1], q[1] = s[2] * e1[0] - s[0] * e1[2], q[2] = s[0] * e1[1] - s[1] * e1[0];
  double v = dot3(d, q) / det, t = dot3(e2, q) / det;
  return v >= 0 && u + v <= 1 && t >= 0 && t <= 1;
}

/* Triangles of both splits of every quad met by the segment p0-p1. */
static int surface_hits(const cf_mesh *m, const double *x, const double *p0, const double *p1) {
  int hits = 0;
  for (int e = 0; e < m->n_elems; e++) {
    const int *v = m->elems + 4 * e;
    const double *a = x + 3 * v[0], *b = x + 3 * v[1], *c = x + 3 * v[2], *d = x + 3 * v[3];
    hits += segment_hits_triangle(p0, p1, a, b, c) + segment_hits_triangle(p0, p1, a, c, d) +
            segment_hits_triangle(p0, p1, a, b, d) + segment_hits_triangle(p0, p1, b, c, d);
  }
  return hits;
}

/* The axis of the stick, or of the capped cylinder that stands in for it
 * in part 4, at time t. */
static void axis_at(const cf_obstacle *o, double t, double e0[3], double e1[3]) {
  if (cf_obstacle_segment(o, t, e0, e1)) return;
  for (int d = 0; d < 3; d++) {
    e0[d] = o->c[d] - o->len * o->a[d] + o->vel[d] * t;
    e1[d] = o->c[d] + o->len * o->a[d] + o->vel[d] * t;
  }
}

/* Triangles on rays from four points of the axis (off the mesh's node
 * columns) backwards (-y), from 5 cm to 10 m behind it: the cloth got
 * behind the stick.  Why not from the axis: cloth whipped round the stick
 * reaches behind it for a step (measured: up to 2 cm at 3 m/s, 3.9 cm at
 * 6 m/s), while cloth that crossed it is left further behind with every
 * step (the control run of part 4: from 1 cm at the first step on). */
static int behind(const cf_mesh *m, const double *x, const double *e0, const double *e1) {
  static const double at[4] = {0.3523, 0.4877, 0.5823, 0.6577}; /* x = -0.1477 .. 0.1577 on the 1 m axis */
  int hits = 0;
  for (int q = 0; q < 4; q++) {
    double a[3], b[3];
    for (int d = 0; d < 3; d++) a[d] = b[d] = e0[d] + at[q] * (e1[d] - e0[d]);
    a[1] -= 0.05;
    b[1] -= 10;
    hits += surface_hits(m, x, a, b);
  }
  return hits;
}

typedef struct {
  double node_clear, edge_clear, viol, ymax;
  int hits, behind, ok;
  double x[3 * 63];
} hit_result;

/* The sheet hanging from its top corners, the stick o driven through it
 * for `steps` steps of 1/120 s; the clearances as the header says. */
static hit_result hit(const cf_obstacle *o, int steps, const char *what) {
  hit_result res = {INFINITY, INFINITY, 0, -INFINITY, 0, 0, 0, {0}};
  double org[3] = {-0.21, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0, 0.594};
  cf_mesh *m = cf_mesh_grid(7, 9, org, u, v, 1);
  int kin[2] = {56, 62};
  cf_params p;
  cf_params_default(&p);
  p.dt = 1.0 / 120;
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, kin, 2, &err);
  int rc = s ? cf_sim_set_obstacles(s, o, 1, &cp, &err) : CF_ENOMEM;
  for (int k = 1; k <= steps && rc == CF_OK; k++) {
    rc = cf_sim_step(s, NULL, &err);
    if (rc) break;
    const double *x = cf_sim_x(s);
    double t = cf_sim_time(s), e0[3], e1[3];
    axis_at(o, t, e0, e1);
    for (int i = 0; i < 63; i++)
      if (i != 56 && i != 62) res.node_clear = fmin(res.node_clear, cf_obstacle_distance(o, t, x + 3 * i, NULL) - cp.thickness);
    for (int el = 0; el < m->n_elems; el++)
      for (int a = 0; a < 4; a++)
        for (int b = a + 1; b < 4; b++) {
          if (a == 1 && b == 3) continue; /* the other diagonal: not a collision edge */
          const double *pa = x + 3 * m->elems[4 * el + a], *pb = x + 3 * m->elems[4 * el + b];
          double sp, up, l[3];
          double d = cf_segment_closest(pa, pb, e0, e1, &sp, &up);
          for (int q = 0; q < 3; q++) l[q] = pb[q] - pa[q];
          /* the bound of an edge held by its end node (see the header) */
          res.edge_clear = fmin(res.edge_clear, d - o->r - cp.thickness + 1e-2 * sqrt(dot3(l, l)));
        }
    res.hits += surface_hits(m, x, e0, e1);
    res.behind += behind(m, x, e0, e1);
    res.viol = fmax(res.viol, cf_sim_get_stats(s).last_violation);
  }
  CHECK(rc == CF_OK, "%s: %s", what, err.msg);
  if (s) {
    const double *x = cf_sim_x(s);
    for (int i = 0; i < 63; i++) res.ymax = fmax(res.ymax, x[3 * i + 1]);
    memcpy(res.x, x, sizeof res.x);
    cf_sim_stats st = cf_sim_get_stats(s);
    printf("%s: %d steps, node clearance %.3g m, edge clearance %.3g m, violation %.3g, %d axis hits, "
           "%d triangle hits behind it, front %.3f m; %ld contact steps, %ld active-set solves, %ld factorizations, "
           "%ld updates\n",
           what, steps, res.node_clear, res.edge_clear, res.viol, res.hits, res.behind, res.ymax, st.contact_steps,
           st.active_set_iterations, st.contact_factorizations, st.contact_updates);
  }
  res.ok = rc == CF_OK;
  cf_sim_free(s);
  cf_mesh_free(m);
  return res;
}

static cf_obstacle moving_stick(double speed) {
  cf_obstacle o;
  cf_obstacle_init(&o, cf_obstacle_stick);
  o.a[0] = 1, o.a[2] = 0, o.len = 0.5;
  o.c[1] = -0.03, o.c[2] = 0.594 * 2.5 / 8; /* half-way between node rows 2 and 3 */
  o.vel[1] = speed;
  return o;
}

static void test_hitting(void) {
  const double eps1 = 1e-5;
  for (int q = 0; q < 2; q++) {
    double speed = q ? 6 : 1;
    int steps = (int)(0.3 / speed * 120 + 0.5) + 12; /* 0.3 m through, then 0.1 s */
    cf_obstacle o = moving_stick(speed);
    char what[64];
    snprintf(what, sizeof what, "stick at %g m/s", speed);
    hit_result r = hit(&o, steps, what);
    CHECK(r.ok, "%s: the run failed", what);
    CHECK(r.node_clear >= -eps1, "%s: a node %.3g m inside the thickness", what, r.node_clear);
    CHECK(r.edge_clear >= -eps1, "%s: an edge %.3g m inside the thickness", what, r.edge_clear);
    CHECK(r.hits == 0, "%s: the axis met %d triangles", what, r.hits);
    CHECK(r.behind == 0, "%s: %d triangle hits behind the stick", what, r.behind);
    CHECK(r.viol <= 1e-3, "%s: violation %.3g", what, r.viol);
    CHECK(r.ymax > 0.2, "%s: the cloth was not carried (front at %.3f m)", what, r.ymax);
  }
  /* the same motion as a track: the same axis at and between the samples,
   * and the same guarantees (not the same trajectory to rounding: the
   * projection stops at tol, and the paths part by up to mm) */
  cf_obstacle o = moving_stick(1), tr;
  int nt = 60;
  double *samples = malloc(sizeof(double) * 6 * nt), dev = 0;
  for (int f = 0; f < nt; f++) cf_obstacle_segment(&o, f / 120.0, samples + 6 * f, samples + 6 * f + 3);
  cf_obstacle_init(&tr, cf_obstacle_stick);
  tr.track = samples, tr.track_n = nt, tr.track_dt = 1.0 / 120;
  for (int q = 0; q <= 400; q++) {
    double t = q * (nt - 1) / 120.0 / 400, a0[3], a1[3], b0[3], b1[3];
    cf_obstacle_segment(&o, t, a0, a1);
    cf_obstacle_segment(&tr, t, b0, b1);
    for (int d = 0; d < 3; d++) dev = fmax(dev, fmax(fabs(a0[d] - b0[d]), fabs(a1[d] - b1[d])));
  }
  CHECK(dev < 1e-12, "tracked stick off the rigid one by %.3g m", dev);
  hit_result b = hit(&tr, 48, "tracked stick");
  CHECK(b.ok && b.node_clear >= -eps1 && b.edge_clear >= -eps1 && b.behind == 0 && b.ymax > 0.2,
        "tracked stick: node clearance %.3g, edge clearance %.3g, %d behind, front %.3f", b.node_clear, b.edge_clear,
        b.behind, b.ymax);
  free(samples);
  /* nodes only: a capped cylinder of the same axis and radius has node
   * rows and no edge rows; the axis must get through the cloth (else part
   * 2 proves nothing) */
  cf_obstacle cyl = moving_stick(1);
  cyl.type = cf_obstacle_cylinder;
  hit_result n = hit(&cyl, 48, "nodes only");
  CHECK(n.behind > 0, "a cylinder without edge rows held the cloth too: part 2 would pass without them");
}

/* Needles (3.16) with c1 = 20, c2 = 0.075 under the sheet's centre. */
static cf_obstacle needles(double field) {
  cf_obstacle o;
  cf_obstacle_init(&o, cf_obstacle_needles);
  o.k[0] = 20, o.k[1] = 0.075, o.h[0] = o.h[1] = field / 2;
  o.c[0] = 0.21, o.c[1] = 0.297, o.c[2] = -0.7;
  return o;
}

/* Segment p0-p1 against the triangles of the mesh's collision
 * triangulation (quads split from their first node), skipping those with
 * node skip (-1: none). */
static int tri_hits(const cf_mesh *m, const double *x, const double *p0, const double *p1, int skip_a, int skip_b) {
  int hits = 0;
  for (int e = 0; e < m->n_elems; e++)
    for (int h = 0; h < 2; h++) {
      const int *v = m->elems + 4 * e;
      int t[3] = {v[0], v[h + 1], v[h + 2]};
      if (t[0] == skip_a || t[1] == skip_a || t[2] == skip_a || t[0] == skip_b || t[1] == skip_b || t[2] == skip_b)
        continue;
      hits += segment_hits_triangle(p0, p1, x + 3 * t[0], x + 3 * t[1], x + 3 * t[2]);
    }
  return hits;
}

/* Self-intersections of the triangulated sheet: every collision edge (quad
 * sides and the diagonal from the first node) against every triangle not
 * sharing a node with it, exactly (segment-triangle). */
static int self_intersections(const cf_mesh *m, const double *x) {
  int n = 0;
  for (int e = 0; e < m->n_elems; e++)
    for (int a = 0; a < 4; a++)
      for (int b = a + 1; b < 4; b++) {
        if (a == 1 && b == 3) continue;
        int i = m->elems[4 * e + a], j = m->elems[4 * e + b];
        n += tri_hits(m, x, x + 3 * i, x + 3 * j, i, j);
      }
  return n; /* shared edges are counted twice: only 0 matters */
}

typedef struct {
  double node_clear, viol;
  int pierced, self, ok;
} needles_result;

/* The horizontal A2 sheet (7 x 9) dropped from z = 0 on the needles o for
 * 1.5 s: clearances at every step as the header says. */
static needles_result drop_on_needles(const cf_obstacle *o, int self, const char *what) {
  needles_result res = {INFINITY, 0, 0, 0, 0};
  double org[3] = {0, 0, 0}, u[3] = {0.42, 0, 0}, v[3] = {0, 0.594, 0};
  cf_mesh *m = cf_mesh_grid(7, 9, org, u, v, 1);
  cf_params p;
  cf_params_default(&p);
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.self = self;
  cf_error err = {0, ""};
  cf_sim *s = cf_sim_alloc(m, &p, NULL, 0, &err);
  int rc = s ? cf_sim_set_obstacles(s, o, 1, &cp, &err) : CF_ENOMEM;
  double tips[3 * CF_OBSTACLE_MAX_POINTS];
  for (int k = 1; k <= 150 && rc == CF_OK; k++) {
    if ((rc = cf_sim_step(s, NULL, &err))) break;
    const double *x = cf_sim_x(s);
    for (int i = 0; i < 63; i++) res.node_clear = fmin(res.node_clear, cf_obstacle_distance(o, 0, x + 3 * i, NULL) - cp.thickness);
    /* the tips, 5 cm down their needle's axis (inside the obstacle) */
    struct cf_obstacle_probe { double a[3], b[3]; } pr;
    cf_obstacle probe = needles(1);
    int nt = cf_obstacle_points(&probe, 0, tips);
    for (int q = 0; q < nt; q++) {
      memcpy(pr.a, tips + 3 * q, sizeof pr.a), memcpy(pr.b, tips + 3 * q, sizeof pr.b);
      pr.b[2] -= 0.05;
      res.pierced += tri_hits(m, x, pr.a, pr.b, -1, -1);
    }
    res.self += self_intersections(m, x) > 0;
    res.viol = fmax(res.viol, cf_sim_get_stats(s).last_violation);
  }
  CHECK(rc == CF_OK, "%s: %s", what, err.msg);
  if (s) {
    cf_sim_stats st = cf_sim_get_stats(s);
    printf("%s: node clearance %.3g m, %d tip piercings, %d steps with self-intersections, violation %.3g; %ld "
           "contact steps, %d contacts at the end\n", what, res.node_clear, res.pierced, res.self, res.viol,
           st.contact_steps, st.last_contacts);
  }
  res.ok = rc == CF_OK;
  cf_sim_free(s);
  cf_mesh_free(m);
  return res;
}

/* 5. Needles (thesis §3.6.3): the tips are where the surface's normal is
 * vertical and H = 0; a sheet dropped on them with self-collisions keeps
 * every node at H >= 0 (distance τ0 − ε1), no tip pierces it (no triangle
 * meets the segment from a tip 5 cm down its needle), and it never
 * intersects itself (exact edge-triangle tests at every step); without
 * self-collisions it folds through itself between
 * the needles (so that check can fail), and the same needles without sharp
 * points (an empty field) let the tips through. */
static void test_needles(void) {
  cf_obstacle o = needles(1);
  cf_error err = {0, ""};
  CHECK(cf_obstacle_check(&o, &err) == CF_OK && cf_obstacle_type_find("needles") == cf_obstacle_needles, "needles: %s",
        err.msg);
  double tips[3 * 64], n[3];
  int nt = cf_obstacle_points(&o, 0, tips);
  CHECK(nt >= 9 && nt <= 64, "needles: %d tips in a 1 m field", nt);
  double worst = 0;
  for (int q = 0; q < nt; q++) {
    double d = cf_obstacle_distance(&o, 0, tips + 3 * q, n);
    worst = fmax(worst, fmax(fabs(d), fabs(n[2] - 1)));
  }
  CHECK(worst < 1e-12, "needles: tips off the surface or not vertical by %.3g", worst);
  needles_result a = drop_on_needles(&o, 1, "needles with self-collisions"), c = drop_on_needles(&o, 0, "needles without"), b;
  CHECK(a.ok && a.node_clear >= -1e-5, "needles: a node %.3g m inside the thickness", a.node_clear);
  CHECK(a.pierced == 0, "needles: %d tip piercings", a.pierced);
  CHECK(a.viol <= 1e-3, "needles: violation %.3g", a.viol);
  CHECK(a.self == 0, "needles: %d steps with the sheet intersecting itself", a.self);
  CHECK(c.self > 0, "needles without self-collisions: no self-intersection, so the check proves nothing");
  cf_obstacle bare = needles(0);
  b = drop_on_needles(&bare, 1, "needles without sharp points");
  CHECK(b.pierced > 0, "needles without sharp points: no tip got through, so the test proves nothing");
}

int main(void) {
  test_geometry();
  test_hitting();
  test_needles();
  return cf_test_done("test_contact_stick");
}
