/* obstacle.c — rigid obstacles: signed distances, outward normals and
 * prescribed rigid motion (cf_sim.h, docs/design.md §5).  Each kind evaluates its
 * distance in its body frame; cf_obstacle_distance maps the point there and
 * the normal back. */
#include <math.h>
#include <string.h>

#include "cf_sim.h"

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static double norm3(const double *a) { return sqrt(dot3(a, a)); }

/* n = v / |v|, or fallback when v is (nearly) zero. */
static void unit3(const double *v, const double *fallback, double *n) {
  double l = norm3(v);
  for (int d = 0; d < 3; d++) n[d] = l > 1e-300 ? v[d] / l : fallback[d];
}

static double plane_distance(const cf_obstacle *o, const double p[3], double n[3]) {
  double q[3] = {p[0] - o->c[0], p[1] - o->c[1], p[2] - o->c[2]};
  memcpy(n, o->a, 3 * sizeof(double));
  return dot3(q, o->a);
}

static double sphere_distance(const cf_obstacle *o, const double p[3], double n[3]) {
  static const double up[3] = {0, 0, 1};
  double q[3] = {p[0] - o->c[0], p[1] - o->c[1], p[2] - o->c[2]};
  unit3(q, up, n);
  return norm3(q) - o->r;
}

/* Distance to the box of half extents h centred at c (axis aligned), and
 * its gradient: outside, the direction from the nearest surface point;
 * inside, the normal of the nearest face. */
static double box_at(const double c[3], const double h[3], const double p[3], double n[3]) {
  double q[3], out[3] = {0, 0, 0};
  int inside = 1;
  for (int d = 0; d < 3; d++) {
    q[d] = fabs(p[d] - c[d]) - h[d];
    if (q[d] > 0) {
      out[d] = p[d] > c[d] ? q[d] : -q[d];
      inside = 0;
    }
  }
  if (!inside) {
    unit3(out, out, n);
    return norm3(out);
  }
  int m = q[0] >= q[1] && q[0] >= q[2] ? 0 : q[1] >= q[2] ? 1 : 2; /* nearest face */
  n[0] = n[1] = n[2] = 0;
  n[m] = p[m] >= c[m] ? 1 : -1;
  return q[m];
}

static double box_distance(const cf_obstacle *o, const double p[3], double n[3]) { return box_at(o->c, o->h, p, n); }

static double table_distance(const cf_obstacle *o, const double p[3], double n[3]) {
  double c[3] = {o->c[0], o->c[1], o->c[2] - 0.5 * o->h[2]}, h[3] = {o->h[0], o->h[1], 0.5 * o->h[2]};
  return box_at(c, h, p, n);
}

/* Capped (len > 0) or infinite (len = 0) cylinder: in the axis frame the
 * distance to the rectangle |radial| <= r, |axial| <= len. */
static double cylinder_distance(const cf_obstacle *o, const double p[3], double n[3]) {
  double q[3] = {p[0] - o->c[0], p[1] - o->c[1], p[2] - o->c[2]};
  double ax = dot3(q, o->a), rad[3], e[3];
  for (int d = 0; d < 3; d++) rad[d] = q[d] - ax * o->a[d];
  /* a direction perpendicular to the axis for points on it */
  double any[3] = {o->a[1], -o->a[0], 0};
  if (norm3(any) < 0.5) any[0] = 0, any[1] = o->a[2], any[2] = -o->a[1];
  unit3(any, any, any);
  unit3(rad, any, e);
  double dr = norm3(rad) - o->r, da = fabs(ax) - o->len, sa = ax >= 0 ? 1 : -1;
  if (o->len <= 0) da = -INFINITY;
  if (dr > 0 && da > 0) { /* beyond the rim */
    double l = hypot(dr, da);
    for (int d = 0; d < 3; d++) n[d] = (dr * e[d] + da * sa * o->a[d]) / l;
    return l;
  }
  if (dr >= da) {
    memcpy(n, e, sizeof e);
    return dr;
  }
  for (int d = 0; d < 3; d++) n[d] = sa * o->a[d];
  return da;
}

double cf_segment_closest(const double a0[3], const double a1[3], const double b0[3], const double b1[3], double *s,
                          double *u) {
  /* Ericson, Real-Time Collision Detection §5.1.9, with both parameters
   * clamped to [0, 1] and degenerate segments handled */
  double d1[3], d2[3], r[3];
  for (int d = 0; d < 3; d++) d1[d] = a1[d] - a0[d], d2[d] = b1[d] - b0[d], r[d] = a0[d] - b0[d];
  double a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r), ss = 0, uu = 0;
  if (a <= 1e-300 && e <= 1e-300) ss = uu = 0;
  else if (a <= 1e-300) uu = fmin(1, fmax(0, f / e));
  else {
    double c = dot3(d1, r);
    if (e <= 1e-300) ss = fmin(1, fmax(0, -c / a));
    else {
      double b = dot3(d1, d2), den = a * e - b * b;
      ss = den > 1e-14 * a * e ? fmin(1, fmax(0, (b * f - c * e) / den)) : 0;
      uu = (b * ss + f) / e;
      if (uu < 0) uu = 0, ss = fmin(1, fmax(0, -c / a));
      else if (uu > 1) uu = 1, ss = fmin(1, fmax(0, (b - c) / a));
    }
  }
  double q[3];
  for (int d = 0; d < 3; d++) q[d] = a0[d] + ss * d1[d] - b0[d] - uu * d2[d];
  *s = ss, *u = uu;
  return norm3(q);
}

/* Distance of p to the capsule of axis e0-e1 and radius r, outward normal
 * into n, the axis parameter of the nearest axis point into *u. */
static double capsule_at(const double e0[3], const double e1[3], double r, const double p[3], double n[3], double *u) {
  double ax[3], q[3], l2, uu;
  for (int d = 0; d < 3; d++) ax[d] = e1[d] - e0[d], q[d] = p[d] - e0[d];
  l2 = dot3(ax, ax);
  uu = l2 > 0 ? fmin(1, fmax(0, dot3(q, ax) / l2)) : 0;
  for (int d = 0; d < 3; d++) q[d] -= uu * ax[d];
  /* on the axis: any direction perpendicular to it */
  double any[3] = {ax[1], -ax[0], 0};
  if (norm3(any) < 1e-6 * sqrt(l2)) any[0] = 0, any[1] = ax[2], any[2] = -ax[1];
  if (!(norm3(any) > 0)) any[0] = 0, any[1] = 0, any[2] = 1;
  unit3(any, any, any);
  unit3(q, any, n);
  if (u) *u = uu;
  return norm3(q) - r;
}

static double stick_distance(const cf_obstacle *o, const double p[3], double n[3]) {
  double e0[3], e1[3];
  for (int d = 0; d < 3; d++) e0[d] = o->c[d] - o->len * o->a[d], e1[d] = o->c[d] + o->len * o->a[d];
  return capsule_at(e0, e1, o->r, p, n, NULL);
}

/* A tracked stick's endpoints at time t (e[6]) and their velocities (v[6],
 * may be NULL): linear between samples, held outside the track. */
static void track_at(const cf_obstacle *o, double t, double e[6], double v[6]) {
  double f = t / o->track_dt;
  int k = (int)floor(f);
  if (o->track_n < 2 || k < 0 || k >= o->track_n - 1) {
    const double *x = o->track + 6 * (k < 0 || o->track_n < 2 ? 0 : o->track_n - 1);
    memcpy(e, x, 6 * sizeof(double));
    if (v) memset(v, 0, 6 * sizeof(double));
    return;
  }
  const double *x0 = o->track + 6 * k, *x1 = x0 + 6;
  double w = f - k;
  for (int d = 0; d < 6; d++) {
    e[d] = (1 - w) * x0[d] + w * x1[d];
    if (v) v[d] = (x1[d] - x0[d]) / o->track_dt;
  }
}

static int check_finite(const double *v, int k, const char *name, cf_error *err) {
  for (int d = 0; d < k; d++)
    if (!isfinite(v[d])) return cf_error_set(err, CF_EINVAL, "obstacle: %s is not finite", name);
  return CF_OK;
}

static int check_unit(const double *a, const char *name, cf_error *err) {
  int rc = check_finite(a, 3, name, err);
  if (rc) return rc;
  if (fabs(norm3(a) - 1) > 1e-9)
    return cf_error_set(err, CF_EINVAL, "obstacle: %s = (%g, %g, %g) is not a unit vector", name, a[0], a[1], a[2]);
  return CF_OK;
}

static int check_positive(double v, const char *name, cf_error *err) {
  if (!(v > 0) || !isfinite(v))
    return cf_error_set(err, CF_EINVAL, "obstacle: %s = %g: expected a finite number > 0", name, v);
  return CF_OK;
}

static int plane_check(const cf_obstacle *o, cf_error *err) { return check_unit(o->a, "normal", err); }

static int sphere_check(const cf_obstacle *o, cf_error *err) { return check_positive(o->r, "radius", err); }

static int cylinder_check(const cf_obstacle *o, cf_error *err) {
  if (check_unit(o->a, "axis", err) || check_positive(o->r, "radius", err)) return CF_EINVAL;
  if (!(o->len >= 0) || !isfinite(o->len))
    return cf_error_set(err, CF_EINVAL, "obstacle: length = %g: expected a finite number >= 0", 2 * o->len);
  return CF_OK;
}

static int box_check(const cf_obstacle *o, cf_error *err) {
  static const char *names[3] = {"size x", "size y", "size z (thickness)"};
  for (int d = 0; d < 3; d++)
    if (check_positive(o->h[d], names[d], err)) return CF_EINVAL;
  return CF_OK;
}

static int stick_check(const cf_obstacle *o, cf_error *err) {
  if (check_positive(o->r, "radius", err)) return CF_EINVAL;
  if (o->track) {
    if (o->track_n < 1 || !(o->track_dt > 0))
      return cf_error_set(err, CF_EINVAL, "obstacle: stick track of %d samples at dt %g: expected >= 1 and dt > 0",
                          o->track_n, o->track_dt);
    if (o->omega != 0 || o->vel[0] != 0 || o->vel[1] != 0 || o->vel[2] != 0)
      return cf_error_set(err, CF_EINVAL, "obstacle: a tracked stick has no velocity or omega (its track moves it)");
    for (int f = 0; f < 6 * o->track_n; f++)
      if (!isfinite(o->track[f]))
        return cf_error_set(err, CF_EINVAL, "obstacle: stick track sample %d is not finite", f / 6);
    return CF_OK;
  }
  if (check_unit(o->a, "axis", err) || check_positive(2 * o->len, "length", err)) return CF_EINVAL;
  return CF_OK;
}

/* Needles (3.16): H / |grad H| and its gradient direction. */
static double needles_distance(const cf_obstacle *o, const double p[3], double n[3]) {
  double c1 = o->k[0], c2 = o->k[1], sx = sin(c1 * (p[0] - o->c[0])), sy = sin(c1 * (p[1] - o->c[1]));
  double g[3] = {-c1 * cos(c1 * (p[0] - o->c[0])) * sy, -c1 * sx * cos(c1 * (p[1] - o->c[1])), c1 * c2};
  double H = c1 * c2 * (p[2] - o->c[2]) - sx * sy, l = norm3(g);
  for (int d = 0; d < 3; d++) n[d] = g[d] / l;
  return H / l;
}

/* The peaks (3.17) within the field: sin(c1 x) sin(c1 y) = 1, i.e. c1 x and
 * c1 y both pi/2 or both 3 pi/2 (mod 2 pi), at z = 1 / (c1 c2) above c. */
static int needles_points(const cf_obstacle *o, double *q) {
  double c1 = o->k[0], per = 2 * M_PI / c1;
  int m = 0, n0 = (int)floor(-o->h[0] / per) - 1, n1 = (int)ceil(o->h[0] / per) + 1;
  int k0 = (int)floor(-o->h[1] / per) - 1, k1 = (int)ceil(o->h[1] / per) + 1;
  for (int s = 0; s < 2; s++)
    for (int i = n0; i <= n1; i++)
      for (int j = k0; j <= k1; j++) {
        double x = (2 * M_PI * i + (s ? 1.5 : 0.5) * M_PI) / c1, y = (2 * M_PI * j + (s ? 1.5 : 0.5) * M_PI) / c1;
        if (fabs(x) > o->h[0] || fabs(y) > o->h[1] || m >= CF_OBSTACLE_MAX_POINTS) continue;
        if (q) q[3 * m] = o->c[0] + x, q[3 * m + 1] = o->c[1] + y, q[3 * m + 2] = o->c[2] + 1 / (c1 * o->k[1]);
        m++;
      }
  return m;
}

static int needles_check(const cf_obstacle *o, cf_error *err) {
  if (check_positive(o->k[0], "c1", err) || check_positive(o->k[1], "c2", err)) return CF_EINVAL;
  if (!(o->h[0] >= 0) || !(o->h[1] >= 0) || !isfinite(o->h[0]) || !isfinite(o->h[1]))
    return cf_error_set(err, CF_EINVAL, "obstacle: field = %g, %g: expected finite extents >= 0", 2 * o->h[0],
                        2 * o->h[1]);
  double per = 2 * M_PI / o->k[0];
  int m = (int)fmin(1e9, (2 * o->h[0] / per + 3) * (2 * o->h[1] / per + 3) * 2); /* at most, see needles_points */
  if (m > CF_OBSTACLE_MAX_POINTS)
    return cf_error_set(err, CF_EINVAL, "obstacle: field %g x %g m holds about %d needle tips: at most %d", 2 * o->h[0],
                        2 * o->h[1], m, CF_OBSTACLE_MAX_POINTS);
  return CF_OK;
}

static const cf_obstacle_type plane_type = {"plane", plane_distance, plane_check, NULL};
static const cf_obstacle_type sphere_type = {"sphere", sphere_distance, sphere_check, NULL};
static const cf_obstacle_type cylinder_type = {"cylinder", cylinder_distance, cylinder_check, NULL};
static const cf_obstacle_type box_type = {"box", box_distance, box_check, NULL};
static const cf_obstacle_type table_type = {"table", table_distance, box_check, NULL};
/* a stick's points, its ends, come from its segment (cf_obstacle_points) */
static const cf_obstacle_type stick_type = {"stick", stick_distance, stick_check, NULL};
static const cf_obstacle_type needles_type = {"needles", needles_distance, needles_check, needles_points};

const cf_obstacle_type *cf_obstacle_plane = &plane_type;
const cf_obstacle_type *cf_obstacle_sphere = &sphere_type;
const cf_obstacle_type *cf_obstacle_cylinder = &cylinder_type;
const cf_obstacle_type *cf_obstacle_box = &box_type;
const cf_obstacle_type *cf_obstacle_table = &table_type;
const cf_obstacle_type *cf_obstacle_stick = &stick_type;
const cf_obstacle_type *cf_obstacle_needles = &needles_type;

const cf_obstacle_type *cf_obstacle_type_find(const char *name) {
  const cf_obstacle_type *all[] = {&plane_type, &sphere_type, &cylinder_type, &box_type, &table_type, &stick_type, &needles_type};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    if (name && strcmp(name, all[k]->name) == 0) return all[k];
  return NULL;
}

void cf_obstacle_table_at(cf_obstacle *o, const double t[5], double mu) {
  cf_obstacle_init(o, cf_obstacle_table);
  o->c[0] = 0.5 * (t[1] + t[2]), o->c[1] = 0.5 * (t[3] + t[4]), o->c[2] = t[0];
  o->h[0] = 0.5 * (t[2] - t[1]), o->h[1] = 0.5 * (t[4] - t[3]), o->h[2] = CF_TABLE_THICKNESS;
  o->mu = mu;
}

void cf_obstacle_stick_tracked(cf_obstacle *o, const double *track, int n, double dt, double r) {
  cf_obstacle_init(o, cf_obstacle_stick);
  o->r = r;
  o->track = track, o->track_n = n, o->track_dt = dt;
}

void cf_obstacle_init(cf_obstacle *o, const cf_obstacle_type *t) {
  memset(o, 0, sizeof *o);
  o->type = t;
  o->a[2] = 1;
  if (t == &stick_type) o->r = CF_STICK_RADIUS;
  o->rot_axis[2] = 1;
}

int cf_obstacle_check(const cf_obstacle *o, cf_error *err) {
  if (!o->type) return cf_error_set(err, CF_EINVAL, "obstacle: no kind");
  if (check_finite(o->c, 3, "centre", err) || check_finite(o->vel, 3, "velocity", err) ||
      check_finite(o->rot_c, 3, "rotation centre", err) || check_finite(&o->omega, 1, "omega", err))
    return CF_EINVAL;
  if (o->omega != 0 && check_unit(o->rot_axis, "rotation axis", err)) return CF_EINVAL;
  if (!(o->mu >= 0) || !isfinite(o->mu))
    return cf_error_set(err, CF_EINVAL, "obstacle: mu = %g: expected a finite number >= 0", o->mu);
  return o->type->check(o, err);
}

/* v rotated by angle th about the unit axis k (Rodrigues). */
static void rotate(const double *k, double th, const double *v, double *out) {
  double c = cos(th), s = sin(th), kv = dot3(k, v);
  double kx[3] = {k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]};
  for (int d = 0; d < 3; d++) out[d] = v[d] * c + kx[d] * s + k[d] * kv * (1 - c);
}

double cf_obstacle_distance(const cf_obstacle *o, double t, const double p[3], double n[3]) {
  double nb[3], q[3], pb[3];
  if (o->track) {
    double e[6];
    track_at(o, t, e, NULL);
    double dist = capsule_at(e, e + 3, o->r, p, nb, NULL);
    if (n) memcpy(n, nb, sizeof nb);
    return dist;
  }
  int moving = o->omega != 0 || o->vel[0] != 0 || o->vel[1] != 0 || o->vel[2] != 0;
  if (!moving) {
    double dist = o->type->distance(o, p, nb);
    if (n) memcpy(n, nb, sizeof nb);
    return dist;
  }
  for (int d = 0; d < 3; d++) q[d] = p[d] - o->rot_c[d] - o->vel[d] * t;
  rotate(o->rot_axis, -o->omega * t, q, pb);
  for (int d = 0; d < 3; d++) pb[d] += o->rot_c[d];
  double dist = o->type->distance(o, pb, nb);
  if (n) rotate(o->rot_axis, o->omega * t, nb, n);
  return dist;
}

/* Body point q at time t in the world (rigid motion). */
static void body_to_world(const cf_obstacle *o, double t, const double q[3], double w[3]) {
  double r[3];
  for (int d = 0; d < 3; d++) r[d] = q[d] - o->rot_c[d];
  rotate(o->rot_axis, o->omega * t, r, w);
  for (int d = 0; d < 3; d++) w[d] += o->rot_c[d] + o->vel[d] * t;
}

int cf_obstacle_points(const cf_obstacle *o, double t, double *q) {
  if (o->type == &stick_type) {
    double e0[3], e1[3];
    cf_obstacle_segment(o, t, e0, e1);
    if (q) memcpy(q, e0, sizeof e0), memcpy(q + 3, e1, sizeof e1);
    return 2;
  }
  if (!o->type->points) return 0;
  int m = o->type->points(o, q);
  for (int i = 0; q && i < m; i++) {
    double b[3];
    memcpy(b, q + 3 * i, sizeof b);
    body_to_world(o, t, b, q + 3 * i);
  }
  return m;
}

int cf_obstacle_segment(const cf_obstacle *o, double t, double e0[3], double e1[3]) {
  if (o->type != &stick_type) return 0;
  if (o->track) {
    double e[6];
    track_at(o, t, e, NULL);
    memcpy(e0, e, 3 * sizeof(double));
    memcpy(e1, e + 3, 3 * sizeof(double));
    return 1;
  }
  double b0[3], b1[3];
  for (int d = 0; d < 3; d++) b0[d] = o->c[d] - o->len * o->a[d], b1[d] = o->c[d] + o->len * o->a[d];
  body_to_world(o, t, b0, e0);
  body_to_world(o, t, b1, e1);
  return 1;
}

void cf_obstacle_velocity(const cf_obstacle *o, double t, const double p[3], double v[3]) {
  double r[3];
  if (o->track) {
    double e[6], ve[6], n[3], u;
    track_at(o, t, e, ve);
    capsule_at(e, e + 3, o->r, p, n, &u);
    for (int d = 0; d < 3; d++) v[d] = (1 - u) * ve[d] + u * ve[3 + d];
    return;
  }
  for (int d = 0; d < 3; d++) r[d] = p[d] - o->rot_c[d] - o->vel[d] * t;
  const double *k = o->rot_axis;
  double w = o->omega;
  v[0] = o->vel[0] + w * (k[1] * r[2] - k[2] * r[1]);
  v[1] = o->vel[1] + w * (k[2] * r[0] - k[0] * r[2]);
  v[2] = o->vel[2] + w * (k[0] * r[1] - k[1] * r[0]);
}
