/* start.h — internal to src/fit: the rest shape and the start state of a
 * driven simulation (start.c), for driven.c.  Kept apart from the driving
 * because each choice here was measured against the recordings
 * (docs/notes/fit-causes.md §2) and changes without the driving changing. */
#ifndef CF_FIT_START_H
#define CF_FIT_START_H
#include <math.h>

#include "cf_fit.h"

/* |p - q| of two points in 3-D. */
static inline double cf_fit_dist3(const double *p, const double *q) {
  return sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]));
}

/* A flat rest (tg->rest CF_REST_SIZE or CF_REST_FLAT): *mesh (the first
 * frame's refined lattice on entry, freed) is replaced by the flat lattice
 * of the cloth's size or of the recorded spacings, and *x0 (malloc'ed,
 * output) receives the start, the first frame's markers refined by a
 * Catmull-Rom spline (through the markers).  CF_OK, or an error naming
 * what is missing (no size) or CF_ENOMEM. */
int cf_fit_start_flat(const cf_fit_target *tg, cf_mesh **mesh, double **x0, cf_error *err);
/* x0 (in and out: the start on mesh, the flat rest) replaced by the sheet
 * on the rest metric's constraints closest to it (the first frame), the K
 * marker nodes marker_node[] weighted more, the n_kin controlled nodes
 * kin[] held at held0[n_kin * 3] (start.c says how and why); the start's
 * residual against the first frame's markers into fix's start fields.
 * When that projection fails x0 is left as it was (the controlled nodes at
 * held0), for every evaluation's projection to report.  CF_OK or
 * CF_ENOMEM.  base: the run's parameters. */
int cf_fit_start_markers(const cf_fit_target *tg, const cf_mesh *mesh, const cf_params *base, const int *marker_node,
                         const int *kin, int n_kin, const double *held0, double *x0, cf_drive_fix *fix,
                         cf_error *err);
/* CF_START_MOVING: *v0 (malloc'ed, output) the mesh nodes' velocities at
 * frame 0 from the markers' quadratics in time over their first
 * CF_START_FRAMES frames, refined like the positions. */
int cf_fit_start_velocity(const cf_fit_target *tg, double **v0, cf_error *err);
#endif
