/* drape.c — see drape.h. */
#include "drape.h"

#include <math.h>

cf_mesh *cf_test_drape_scene(const cf_test_drape *d, double thickness, cf_obstacle ob[2]) {
  const double th = 20 * M_PI / 180, L = d->L;
  double u[3] = {L * cos(th), L * sin(th), 0}, v[3] = {-L * sin(th), L * cos(th), 0};
  double o[3] = {d->off - 0.5 * (u[0] + v[0]), -0.5 * (u[1] + v[1]), d->top + 0.001};
  cf_obstacle_init(ob, cf_obstacle_cylinder);
  ob[0].a[1] = 1, ob[0].a[2] = 0, ob[0].r = d->R, ob[0].len = 0.5, ob[0].c[2] = d->top - d->R - thickness;
  ob[0].mu = d->mu;
  cf_obstacle_init(ob + 1, cf_obstacle_plane);
  ob[1].mu = 0.4;
  return cf_mesh_grid(d->n, d->n, o, u, v, 1);
}
