/* cf_fit_target.h — progress, metrics and point clouds of a fit target.
 * Part of the API of cf_fit.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_FIT_TARGET_H
#define CF_FIT_TARGET_H

#include "cf_common.h"
#include "cf_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------- progress */
/* Long computations report how far they are (for a progress bar): fn is
 * called in the calling process with the work done so far and the total
 * (grid points, evaluations ...).  May be NULL everywhere it is accepted. */
typedef struct {
  void (*fn)(long done, long total, void *user);
  void *user;
} cf_fit_progress;

/* ---------------------------------------------------------------- metrics */
typedef struct {
  double e_cm; /* normalized M-norm error sqrt(sum w|d|^2 / sum w) (4.3) */
  double s_cm; /* spatial standard deviation of |d_j| (4.5), population */
  double d_cm; /* dispersion e + 2 s (4.4) */
  int n;       /* markers present in this frame */
} cf_frame_error;

/* Error of one frame: K markers, weights w[K] (NULL: all 1), simulated and
 * recorded positions [K*3] in metres; recorded NaN = missing.  A frame with
 * no marker present gets NaN errors and n = 0. */
void cf_metric_frame(int K, const double *w, const double *sim, const double *rec,
                     cf_frame_error *out);

typedef struct {
  double e_cm;     /* mean of e_i over the frames of the window with n > 0 */
  double s_cm;     /* mean of s_i */
  double d_max_cm; /* max of d_i */
  int frames;      /* frames that counted */
} cf_window_error;

/* Means over frames [t0, t1) (clamped to [0, T)). */
cf_window_error cf_metric_window(const cf_frame_error *fe, int T, int t0, int t1);
/* The frame's residuals r_j = 100 sqrt(w_j / sum w) (sim_j - rec_j) (cm,
 * so that |r| = e_cm of cf_metric_frame; the sums over the markers
 * present) and their tangents dr_p = 100 sqrt(w_j / sum w) dsim_p,j for np
 * tangents dsim[np][K*3] of the simulated markers: rdr[p] = r . dr_p
 * (cm^2), drdr[p*np + q] = dr_p . dr_q (outputs).  Returns the markers
 * present (0: nothing written). */
int cf_metric_frame_tangent(int K, const double *w, const double *sim, const double *rec, int np, const double *dsim,
                            double *rdr, double *drdr);

/* ---------------------------------------------- point clouds (cloud.c) */
/* The error of a frame recorded as a depth camera's point cloud: the
 * distance from each observed point to the simulated surface (its
 * triangles; quads split in two), and their robust mean, in cm.
 *
 * One-sided: points to surface only, never surface to points, so the side
 * of the cloth the camera cannot see (and any part hidden by a fold or out
 * of the frame) costs nothing; a point measures the misfit wherever the
 * camera saw the cloth.
 *
 * The estimator: the mean of the distances with the largest CF_CLOUD_TRIM
 * (5 %) dropped, a trimmed mean.  A depth camera's outliers (flying pixels
 * at silhouettes, the background, the hanger; ~1-2 % of the points) lie far
 * from the cloth, and a plain mean would follow them: 2 % of the points at
 * 0.5 m add 1 cm, three times the whole error of a good fit (thesis Table
 * 4.2).  Trimming drops them whatever their distance while they are fewer
 * than 5 %, and the rest stays a mean distance, in the unit and of the size
 * of the marker errors.  It is a continuous function of the simulated
 * positions (the simplex sees no jumps), and costs one selection, O(P).  An
 * M-estimator (Huber or Tukey with a scale from the MAD) would down-weight
 * the same points but needs a scale that, on a good fit, is the camera's
 * noise (~1 mm) and, on a bad one, the misfit itself; the trimmed mean needs
 * nothing but the fraction.  Its price: with no outliers it drops the
 * largest 5 % of the honest distances (the value is ~10 % below the plain
 * mean for Gaussian depth noise), and with 2 % outliers it drops 3 % of them
 * instead (tests/test_cloud.c: the two values within 5 %).
 *
 * The nearest triangle comes from a bounding-volume hierarchy over the
 * triangles, rebuilt every frame (cloud.c says how and why); bench/bench_cloud.c
 * times a frame of 10^4 points on a 17 x 17 cloth against one simulation
 * step of that cloth. */
#define CF_CLOUD_TRIM 0.05
typedef struct cf_cloud_index cf_cloud_index;
cf_cloud_index *cf_cloud_index_alloc(void);
void cf_cloud_index_free(cf_cloud_index *ix);
/* Index the n_tri triangles tri[n_tri*3] (node indices) of the nodes
 * x[*3] (m); reuses ix's memory.  CF_EINVAL for no triangle or a node that
 * is not finite. */
int cf_cloud_index_build(cf_cloud_index *ix, const double *x, int n_tri, const int *tri, cf_error *err);
/* The distance (m) from p to the nearest indexed triangle. */
double cf_cloud_index_dist(cf_cloud_index *ix, const double *p);
/* The same without an index (every triangle tried; for tests). */
double cf_cloud_dist_brute(const double *x, int n_tri, const int *tri, const double *p);
/* The distance from p to the triangle abc (m). */
double cf_cloud_point_triangle(const double *p, const double *a, const double *b, const double *c);
/* The triangles of n_faces faces of nv (3 or 4) nodes into tri (room for
 * 2 * n_faces * 3; quads abcd split along ac); returns their number. */
int cf_cloud_triangles(const int *faces, int n_faces, int nv, int *tri);
/* The mean of v[n] without its floor(trim n) largest values (v reordered);
 * NaN when n = 0. */
double cf_cloud_trimmed_mean(double *v, long n, double trim);
/* The error of one frame (cm): the trimmed mean of the distances of the n
 * points pts[n*3] (m) to the indexed surface; *sd_cm (may be NULL) the
 * standard deviation of the distances it kept (the spread s_i of (4.5) for
 * a cloud); work[n] is scratch. */
double cf_cloud_frame_error(cf_cloud_index *ix, const double *pts, long n, double *work, double *sd_cm);

#ifdef __cplusplus
}
#endif
#endif
