/* cloud_run.h — internal to src/fit: the point-cloud error of a driven
 * simulation (cloud_run.c), for driven.c.  A target with clouds
 * (cf_fit_target.n_cloud) measures each frame against the clouds the camera
 * took since the frame before, on the surface interpolated between the two
 * frames; driven.c calls this in place of the markers' metric. */
#ifndef CF_FIT_CLOUD_RUN_H
#define CF_FIT_CLOUD_RUN_H

#include "cf_fit.h"

typedef struct cf_cloud_run cf_cloud_run;
/* For tg's clouds on mesh (the run's simulation mesh; its faces are the
 * surface): *out NULL when tg has none.  CF_EINVAL for clouds whose times
 * do not increase or whose offsets are not ordered; CF_ENOMEM. */
int cf_cloud_run_alloc(const cf_fit_target *tg, const cf_mesh *mesh, cf_cloud_run **out, cf_error *err);
void cf_cloud_run_free(cf_cloud_run *c);
/* Frame k of a simulation (k = 0, 1, ... in order; k = 0 starts a new
 * one) with the nodes x (and the frame before's, remembered here): the
 * clouds taken in ((k - 1) dt, k dt] (k = 0: at or before 0) against the
 * surface interpolated at their times.  *out: e and s the means over those
 * clouds, d = e + 2 s, n their points (0: no cloud, errors NaN). */
void cf_cloud_run_frame(cf_cloud_run *c, int k, const double *x, cf_frame_error *out);
#endif
