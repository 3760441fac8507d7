/* selfcoll.h — internal: detection of the cloth's self-collisions (thesis
 * §3.3.1, §3.3.3): which node-face and edge-edge pairs of the
 * triangulated mesh meet during the motion from the positions x0 to x1.
 *
 * Broad phase: a spatial hash of cubic cells (the mean collision edge
 * long; boxgrid.h, shared with the sharp points' pairs of
 * contact_points.c) holding each triangle's and edge's box swept from x0
 * to x1 and grown by the thickness; a node is tested against the
 * triangles in the cells of its own swept box, an edge against the edges
 * in its cells.  It scales with the mesh (each element meets a bounded
 * number of cells), the 10^4-node meshes of docs/design.md §5 included.
 * Narrow phase (continuous, thesis (3.3)): the four points move linearly
 * over the step; the times they are coplanar are the roots of a cubic in
 * [0, 1]; at such a time the node must lie in the triangle (barycentric
 * coordinates in [0, 1]) or the two edges' lines must cross inside both.
 * The pairs are moved towards each other by omega x thickness along their
 * normal first (§3.3.3: pairs that come closer than that count), and a
 * pair already closer than the thickness at x1 counts too.
 * Why a module of its own: contact.c turns the pairs into rows and solves;
 * this file only finds them, and is tested on its own (test_selfcoll). */
#ifndef CF_SELFCOLL_H
#define CF_SELFCOLL_H
#include "cf_sim.h"

typedef struct {
  int kind;  /* 0: node v[0] and triangle v[1..3]; 1: edges v[0]-v[1] and v[2]-v[3] */
  int v[4];
} cf_self_pair;

typedef struct cf_selfcoll cf_selfcoll;

/* The projection of p on the plane of the triangle abc: its barycentric
 * coordinates into bc[3] and the triangle's normal (b - a) x (c - a), not
 * normalized, into n[3]; returns h with p - projection = h n (NAN for a
 * degenerate triangle, bc then unset).  Shared by the detection here and
 * the rows of contact.c's point-triangle and node-face pairs. */
double cf_tri_project(const double p[3], const double a[3], const double b[3], const double c[3], double bc[3],
                      double n[3]);

/* The collision edges of the mesh with a free node, each once (sorted),
 * into e[2 ne] (room for 5 per element): the element sides and, for
 * quads, the diagonal from the first node (the triangulation of thesis §3.3.1;
 * not both diagonals: a point meeting a quad's centre then meets four rows
 * of which any three give the fourth, Remark 3.5.2).  Returns ne. */
int cf_selfcoll_edges(const cf_mesh *m, const unsigned char *is_kin, int *e);
/* Its triangles with a free node (quads split along that diagonal) into
 * t[3 nt] (room for 2 per element); returns nt. */
int cf_selfcoll_triangles(const cf_mesh *m, const unsigned char *is_kin, int *t);

/* m: the mesh (its triangulation and edges are built here: quads split
 * along the diagonal from their first node, as contact.c's collision
 * edges); is_kin[n]: pairs of kinematic nodes only are skipped. */
cf_selfcoll *cf_selfcoll_alloc(const cf_mesh *m, const unsigned char *is_kin, cf_error *err);
void cf_selfcoll_free(cf_selfcoll *s);
/* The pairs that collide between x0 and x1 (input, [3n] each) with the
 * thickness tau and proximity omega (see above) into s's buffer: *pairs
 * (output, borrowed until the next call) and their count (returned; -1: out
 * of memory). */
int cf_selfcoll_detect(cf_selfcoll *s, const double *x0, const double *x1, double tau, double omega,
                       const cf_self_pair **pairs);
/* Exact: the number of (collision edge, triangle not sharing a node) pairs
 * that intersect at x (segment-triangle tests over the broad phase), 0 for
 * a cloth without self-intersection.  For tests and the final check. */
int cf_selfcoll_intersections(cf_selfcoll *s, const double *x);
#endif
