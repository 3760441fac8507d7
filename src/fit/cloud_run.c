/* cloud_run.c — the error of a driven simulation against a depth camera's
 * point clouds (cloud_run.h; the per-frame error of cloud.c).
 *
 * The camera's frames are not the simulation's: a cloud taken at time t
 * between frames k - 1 and k is compared with the surface x(t) = (1 - w)
 * x_{k-1} + w x_k, w = (t - (k - 1) dt) / dt, the nodes moving linearly
 * within a step as the driven corners do (drive_frame); its error counts in
 * frame k, so that the windows of cf_fit_run_eval (frames [t0, t1)) hold
 * the clouds of their time span, and the simulation of a window stops at
 * its last frame as for markers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cloud_run.h"

struct cf_cloud_run {
  const cf_fit_target *tg;
  int n_nodes, n_tri;
  int *tri;             /* [n_tri*3] the mesh's triangles (quads split) */
  double *prev, *at;    /* [n_nodes*3] frame k - 1, the surface at a cloud's time */
  double *work;         /* [largest cloud] distances */
  cf_cloud_index *ix;
  int next;             /* the first cloud not measured yet */
};

void cf_cloud_run_free(cf_cloud_run *c) {
  if (!c) return;
  free(c->tri), free(c->prev), free(c->at), free(c->work);
  cf_cloud_index_free(c->ix);
  free(c);
}

static int check(const cf_fit_target *tg, long *largest, cf_error *err) {
  *largest = 1;
  if (!tg->cloud_time || !tg->cloud_offset || !tg->cloud_points || tg->cloud_offset[0] != 0)
    return cf_error_set(err, CF_EINVAL, "recording: %d clouds without their times, offsets or points", tg->n_cloud);
  for (int c = 0; c < tg->n_cloud; c++) {
    long n = tg->cloud_offset[c + 1] - tg->cloud_offset[c];
    if (n < 0 || !isfinite(tg->cloud_time[c]) || (c && !(tg->cloud_time[c] > tg->cloud_time[c - 1])))
      return cf_error_set(err, CF_EINVAL, "recording: cloud %d (t = %g s): its time must be after the one before "
                          "and its points not fewer than none", c, tg->cloud_time[c]);
    if (n > *largest) *largest = n;
  }
  return CF_OK;
}

int cf_cloud_run_alloc(const cf_fit_target *tg, const cf_mesh *mesh, cf_cloud_run **out, cf_error *err) {
  long largest;
  *out = NULL;
  if (tg->n_cloud <= 0) return CF_OK;
  int rc = check(tg, &largest, err);
  if (rc) return rc;
  cf_cloud_run *c = calloc(1, sizeof *c);
  size_t nx = 3 * (size_t)mesh->n_nodes;
  if (c) {
    c->tg = tg, c->n_nodes = mesh->n_nodes;
    c->tri = malloc(sizeof(int) * 6 * (size_t)mesh->n_elems);
    c->prev = malloc(sizeof(double) * nx), c->at = malloc(sizeof(double) * nx);
    c->work = malloc(sizeof(double) * (size_t)largest);
    c->ix = cf_cloud_index_alloc();
  }
  if (!c || !c->tri || !c->prev || !c->at || !c->work || !c->ix) {
    cf_cloud_run_free(c);
    return cf_error_set(err, CF_ENOMEM, "out of memory for the clouds' error (%ld points a cloud)", largest);
  }
  c->n_tri = cf_cloud_triangles(mesh->elems, mesh->n_elems, mesh->nv, c->tri);
  *out = c;
  return CF_OK;
}

/* Cloud i against the surface at its time (w: between prev and x). */
static void measure(cf_cloud_run *c, int i, const double *x, double w, double *e, double *s) {
  const cf_fit_target *tg = c->tg;
  for (size_t j = 0; j < 3 * (size_t)c->n_nodes; j++) c->at[j] = (1 - w) * c->prev[j] + w * x[j];
  long a = tg->cloud_offset[i], n = tg->cloud_offset[i + 1] - a;
  if (n == 0 || cf_cloud_index_build(c->ix, c->at, c->n_tri, c->tri, NULL)) {
    *e = *s = NAN; /* an empty cloud, or the simulation's nodes not finite */
    return;
  }
  *e = cf_cloud_frame_error(c->ix, tg->cloud_points + 3 * a, n, c->work, s);
}

void cf_cloud_run_frame(cf_cloud_run *c, int k, const double *x, cf_frame_error *out) {
  const cf_fit_target *tg = c->tg;
  double dt = tg->dt, se = 0, ss = 0;
  int clouds = 0;
  long points = 0;
  if (k == 0) c->next = 0, memcpy(c->prev, x, sizeof(double) * 3 * c->n_nodes);
  for (; c->next < tg->n_cloud && tg->cloud_time[c->next] <= k * dt; c->next++) {
    double t = tg->cloud_time[c->next], w = k ? (t - (k - 1) * dt) / dt : 1, e, s;
    measure(c, c->next, x, w < 0 ? 0 : w, &e, &s);
    if (!isfinite(e)) continue;
    se += e, ss += s, clouds++;
    points += tg->cloud_offset[c->next + 1] - tg->cloud_offset[c->next];
  }
  memcpy(c->prev, x, sizeof(double) * 3 * c->n_nodes);
  out->n = points > 0x7fffffff ? 0x7fffffff : (int)points;
  out->e_cm = clouds ? se / clouds : NAN;
  out->s_cm = clouds ? ss / clouds : NAN;
  out->d_cm = out->e_cm + 2 * out->s_cm;
}
