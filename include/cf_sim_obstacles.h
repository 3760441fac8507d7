/* cf_sim_obstacles.h — obstacles and contacts.
 * Part of the API of cf_sim.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_SIM_OBSTACLES_H
#define CF_SIM_OBSTACLES_H

#include <stddef.h>
#include <stdint.h>
#include "cf_common.h"
#include "cf_sim_run.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- obstacles */
/* Rigid obstacles the cloth's nodes must stay outside of (thesis §3.2,
 * docs/design.md §5): each kind gives the signed distance of a point to its surface
 * (negative inside) and the outward unit normal there (the gradient of the
 * distance; on edges and corners of a box the direction to the nearest
 * surface point).  Kinds are GSL-style constant type descriptors
 * (cf_obstacle_plane, ...); the fields of cf_obstacle each kind reads:
 *   plane:    c a point on it, a its unit normal (the free side);
 *   sphere:   c centre, r radius;
 *   cylinder: c centre, a unit axis, r radius, len half length along a
 *             (0: infinite);
 *   box:      c centre, h[3] half extents along x, y, z;
 *   table:    c centre of the top face, h[0], h[1] half extents of the top
 *             along x, y, h[2] the thickness of the top (a box below c; its
 *             top face and edges are what the cloth touches);
 *   needles:  the implicit surface (3.16) of thesis §3.6.3, free where
 *             H = k[0] k[1] (z - c_z) - sin(k[0] (x - c_x)) sin(k[0] (y - c_y))
 *             >= 0 (c1 = k[0], c2 = k[1]; the distance is H / |grad H|),
 *             with its peaks (3.17), needle tips of radius ~1 / (c1^2 A), as
 *             sharp points: those within h[0], h[1] of c in x, y are kept
 *             off every triangle of the cloth (like the stick's ends);
 *   stick:    a capsule (the stick of the hitting experiments, thesis
 *             §4.3.2): the segment c +- len a, radius r.  Besides its
 *             nodes, every cloth edge is kept outside it (edge-segment
 *             rows, contact.c): a stick thinner than the mesh would pass
 *             between the nodes.  With track != NULL its two endpoints
 *             follow a recording instead of c, a, len and the rigid motion:
 *             track[6 f .. 6 f + 5] are endpoint 0 and endpoint 1 at time
 *             f track_dt (f < track_n), linear in between, held before the
 *             first and after the last sample (borrowed: the array must
 *             outlive every copy of the obstacle).
 * Prescribed rigid motion (both optional): translation at velocity vel
 * (m/s) and rotation at omega (rad/s, right-handed) about the unit axis
 * rot_axis through the point rot_c (which moves with vel): at time t a body
 * point q is at R(omega t) (q - rot_c) + rot_c + vel t.  mu: Coulomb
 * friction coefficient of the cloth on this obstacle (>= 0). */
typedef struct cf_obstacle_type cf_obstacle_type;
typedef struct {
  const cf_obstacle_type *type;
  double c[3], a[3], h[3];
  double r, len;
  double k[2];     /* kind parameters (needles: c1, c2) */
  double mu;
  double vel[3];
  double omega, rot_axis[3], rot_c[3];
  const double *track; /* stick only: recorded endpoints (see above) */
  int track_n;
  double track_dt;
} cf_obstacle;

struct cf_obstacle_type {
  const char *name;
  /* signed distance of body-frame point p, outward unit normal into n */
  double (*distance)(const cf_obstacle *o, const double p[3], double n[3]);
  /* the kind's fields are valid (names the offending field) */
  int (*check)(const cf_obstacle *o, cf_error *err);
  /* its sharp points in the body frame into q[3 m] (q may be NULL), their
   * count m returned; NULL: none (a stick's two ends come from its segment,
   * cf_obstacle_points) */
  int (*points)(const cf_obstacle *o, double *q);
};

extern const cf_obstacle_type *cf_obstacle_plane;
extern const cf_obstacle_type *cf_obstacle_sphere;
extern const cf_obstacle_type *cf_obstacle_cylinder;
extern const cf_obstacle_type *cf_obstacle_box;
extern const cf_obstacle_type *cf_obstacle_table;
extern const cf_obstacle_type *cf_obstacle_stick;
extern const cf_obstacle_type *cf_obstacle_needles;
/* The kind named name ("plane", "sphere", "cylinder", "box", "table",
 * "stick", "needles"), or NULL. */
const cf_obstacle_type *cf_obstacle_type_find(const char *name);
/* o: output, zeroed, of kind t, rot_axis = a = e_z, no motion, mu = 0; a
 * stick's radius CF_STICK_RADIUS (the thesis' stick, §4.3.2). */
#define CF_STICK_RADIUS 0.0075
void cf_obstacle_init(cf_obstacle *o, const cf_obstacle_type *t);
/* o: output, a table whose top face is at height top[0] and spans x in
 * top[1]..top[2], y in top[3]..top[4] (a recording's /table), 3 cm thick,
 * at rest, friction mu. */
#define CF_TABLE_THICKNESS 0.03
void cf_obstacle_table_at(cf_obstacle *o, const double top[5], double mu);
/* o: output, a frictionless stick of radius r following track[6 n] (its two
 * endpoints every dt from t = 0; borrowed, see cf_obstacle.track). */
void cf_obstacle_stick_tracked(cf_obstacle *o, const double *track, int n, double dt, double r);
/* Valid kind, fields, finite motion, mu >= 0; names the field. */
int cf_obstacle_check(const cf_obstacle *o, cf_error *err);
/* Signed distance of world point p to the obstacle at time t; its outward
 * unit normal (world frame) into n[3] (output, may be NULL). */
double cf_obstacle_distance(const cf_obstacle *o, double t, const double p[3], double n[3]);
/* Velocity at time t of the obstacle's material point at world point p
 * (vel + omega rot_axis x (p - rot_c(t)); a tracked stick: its endpoints'
 * velocities interpolated at the point of its axis nearest p) into v[3]
 * (output). */
void cf_obstacle_velocity(const cf_obstacle *o, double t, const double p[3], double v[3]);
/* The obstacle's sharp points at time t (a stick's two ends, the needles'
 * tips in their field) into q[3 m] (output, may be NULL: count only);
 * returns m (0: none). */
int cf_obstacle_points(const cf_obstacle *o, double t, double *q);
#define CF_OBSTACLE_MAX_POINTS 4096
/* A stick's axis at time t: endpoints into e0[3], e1[3] (output); returns
 * 1, or 0 (nothing written) when o is not a stick. */
int cf_obstacle_segment(const cf_obstacle *o, double t, double e0[3], double e1[3]);
/* Closest points of the segments a0-a1 and b0-b1: their parameters into
 * *s (on a) and *u (on b), both in [0, 1]; returns the distance. */
double cf_segment_closest(const double a0[3], const double a1[3], const double b0[3], const double b1[3], double *s,
                          double *u);

/* Contacts in the projection (thesis §3.3-§3.5, contact.c): node-obstacle
 * constraints H = distance - thickness >= 0 with friction, solved by the
 * active-set method of Algorithm 2 together with the metric constraints
 * (or by Ipopt, the interior-point baseline). */
typedef enum { CF_CONTACT_ACTIVE_SET = 0, CF_CONTACT_IPOPT = 1 } cf_contact_solver;
struct cf_qp;
typedef struct {
  double thickness; /* tau0, m: nodes are kept this far outside (default 2e-3) */
  double eps_h;     /* eps1 of (3.5), m: min H >= -eps_h at convergence (default 1e-5) */
  double eps_x;     /* eps2 of (3.5), m: the friction displacement of the next
                       iteration must be below it (default 1e-5; 1e-6 did
                       not converge in 15 iterations where the cloth wraps
                       around an edge: test_contact's box) */
  int max_active_set; /* active-set changes per projection iteration before
                         giving up (default 0: 2 x candidate pairs + 20) */
  int updates;      /* 1 (default): working-set changes update the factor
                       (CHOLMOD rowadd/rowdel on the simplicial LDL'),
                       refactoring when an update fails or its pivot
                       reveals a dependent row; 0: refactor on every change */
  int friction_budget; /* 0 (default): the thesis' friction, iteration j+1
                       from the Δγ_j of iteration j, capped per contact so it
                       never reverses its node; too weak where few contact
                       nodes hold much cloth (docs/contacts.md).  1: what the
                       cap leaves of μ Σ_j Δγ_j is used in the next
                       iterations of the step (holds a sheet on a cylinder
                       the default lets slide; several times the iterations) */
  int self;         /* 1: the cloth's self-collisions too (thesis §3.3-§3.4:
                       node-face and edge-edge rows found by continuous
                       detection between the step's start and each iterate;
                       default 0) */
  double self_mu;   /* friction of the cloth on itself (default 0) */
  double omega;     /* proximity parameter of the detection, in [0, 0.5]
                       (default 0.5, §3.3.3) */
  cf_contact_solver solver; /* the QP (3.4) of each iteration by
                       CF_CONTACT_ACTIVE_SET (default: Algorithm 2 on
                       CHOLMOD) or CF_CONTACT_IPOPT (the interior-point
                       baseline; CF_EINVAL from cf_sim_set_obstacles when
                       the build has no Ipopt) */
  /* For tests and benchmarks (NULL: none): called after every QP the
   * solver solved, with the QP (src/sim/qp.h), its solution dx[3n] and the
   * contact impulses gamma[ni] of its contact rows; all borrowed for the
   * call. */
  void (*observe)(const struct cf_qp *qp, const double *dx, const double *gamma, void *ctx);
  void *observe_ctx;
} cf_contact_params;

void cf_contact_params_default(cf_contact_params *cp);
/* Put n_obs obstacles (copied; n_obs = 0 and cp->self = 0 removes them) in
 * the simulation's projection.  Without obstacles, or on a step where no node comes closer
 * than thickness to any obstacle and none was in contact at the previous
 * step, the step is the contact-free one, bitwise. */
int cf_sim_set_obstacles(cf_sim *s, const cf_obstacle *obs, int n_obs, const cf_contact_params *cp,
                         cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
