/* contact_points.h — internal: which pairs of an obstacle's sharp point and
 * a triangle of the cloth contact.c's projection carries (the pairs
 * K2 .. K3 - 1 of contact_internal.h); see contact_points.c. */
#ifndef CF_CONTACT_POINTS_H
#define CF_CONTACT_POINTS_H
#include "contact_internal.h"

/* The broad phase: the pairs of point p of obstacle o (pt0[o] <= p <
 * pt0[o + 1], positions pts[3 p]) and triangle t (nodes tri[3 t], positions
 * x) whose boxes meet, the point's grown by pad[o], sorted by point then
 * triangle, into *pq (2 ints a pair, malloc'ed: the caller frees it);
 * h: the grid's cell.  Returns their count, -1 out of memory. */
int cf_points_near(const int *tri, int nt, const double *x, double h, const double *pts, const int *pt0, int n_obs,
                   const double *pad, int **pq);

/* The pairs K2 .. K3 - 1 for the positions x at time t (the points placed
 * at c->pts): those within the margin (contact_points.c), and those of W
 * or of the system's pattern P or with friction state, in the order of
 * the exhaustive list (point, then triangle); the self pairs after them
 * are renumbered.  CF_OK or CF_ENOMEM. */
int cf_contact_near_points(cf_contact *c, const double *x, double t);

/* Triangle pair k at x, its point at p: the vector from the point to its
 * projection on the triangle's plane into v[3], the projection's
 * barycentric coordinates into b[3]; returns the distance (NAN for a
 * degenerate triangle).  contact_pairs.c evaluates the pair with it. */
double cf_contact_tip_face(const cf_contact *c, int k, const double *p, const double *x, double v[3], double b[3]);
/* The side of triangle pair k at the step's start (c->xstart, the points
 * there) into c->side. */
void cf_contact_tip_side(cf_contact *c, int k);

/* For tests and benches: nonzero makes every point a candidate of every
 * triangle, the exhaustive list the broad phase must agree with.  Set it
 * before any simulation runs (it is read at every evaluation). */
extern int cf_contact_all_points;
#endif
