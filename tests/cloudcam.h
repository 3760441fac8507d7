/* cloudcam.h — a depth camera's frame of a simulated cloth, and the fit of
 * such clouds, for the tests of point-cloud fitting (cloudcam.c). */
#ifndef CF_TEST_CLOUDCAM_H
#define CF_TEST_CLOUDCAM_H
#include "cf_sim.h"

/* The frame at time t of the trajectory traj[(steps + 1) * n * 3] of mesh
 * m (steps dt apart) into the XYZ file path: the surface interpolated
 * linearly between the two steps around t, n_points points uniformly on
 * the triangles (quads split) facing the camera on the -y side, with 1 mm
 * Gaussian noise along the normal and 1 % outliers 0.3-0.8 m towards the
 * camera, or (exact) neither.  rng: cf_test_rand's state.  0 when the
 * file cannot be written. */
int cf_test_cloud_frame(const char *path, double t, double dt, const cf_mesh *m, const double *traj, int n_points,
                        int exact, unsigned long long *rng);
/* `clothfit fit REC --start D0,A0 --rest first-frame --no-confidence
 * --workers 1 --json` (the fitter's own first frame: a model-made
 * recording's exact start): its delta, alpha and training error (cm) into
 * x[3] (NaN when missing), its stdout into *out (malloc'ed, may be NULL);
 * its exit status. */
int cf_test_fit_clouds(const char *exe, const char *tmp, const char *rec, double d0, double a0, double x[3],
                       char **out);
#endif
