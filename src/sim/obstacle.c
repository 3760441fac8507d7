/* obstacle.c — rigid obstacles: signed distances, outward normals and
 * prescribed rigid motion (cf_sim.h, SPEC §5).  Each kind evaluates its
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

static const cf_obstacle_type plane_type = {"plane", plane_distance, plane_check};
static const cf_obstacle_type sphere_type = {"sphere", sphere_distance, sphere_check};
static const cf_obstacle_type cylinder_type = {"cylinder", cylinder_distance, cylinder_check};
static const cf_obstacle_type box_type = {"box", box_distance, box_check};
static const cf_obstacle_type table_type = {"table", table_distance, box_check};

const cf_obstacle_type *cf_obstacle_plane = &plane_type;
const cf_obstacle_type *cf_obstacle_sphere = &sphere_type;
const cf_obstacle_type *cf_obstacle_cylinder = &cylinder_type;
const cf_obstacle_type *cf_obstacle_box = &box_type;
const cf_obstacle_type *cf_obstacle_table = &table_type;

const cf_obstacle_type *cf_obstacle_type_find(const char *name) {
  const cf_obstacle_type *all[] = {&plane_type, &sphere_type, &cylinder_type, &box_type, &table_type};
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

void cf_obstacle_init(cf_obstacle *o, const cf_obstacle_type *t) {
  memset(o, 0, sizeof *o);
  o->type = t;
  o->a[2] = 1;
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

void cf_obstacle_velocity(const cf_obstacle *o, double t, const double p[3], double v[3]) {
  double r[3];
  for (int d = 0; d < 3; d++) r[d] = p[d] - o->rot_c[d] - o->vel[d] * t;
  const double *k = o->rot_axis;
  double w = o->omega;
  v[0] = o->vel[0] + w * (k[1] * r[2] - k[2] * r[1]);
  v[1] = o->vel[1] + w * (k[2] * r[0] - k[0] * r[2]);
  v[2] = o->vel[2] + w * (k[0] * r[1] - k[1] * r[0]);
}
