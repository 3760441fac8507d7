/* grip.c — the grippers of a driven simulation (grip.h; cf_fit_target
 * n_grip): the mesh node each holds, which of them hold at a frame, the
 * reach of two grippers on one edge, and the checks of their points and
 * track.
 *
 * A gripper holds the node nearest to its (u, v) on the flat sheet: on the
 * refined lattice of R x C nodes, row round(v (R - 1)) and column round(u
 * (C - 1)) (the nodes are evenly spaced on the rest sheet of the cloth's
 * size, so this is the nearest node there; halves round away from 0).
 * Pure functions of the target; nothing allocated; errors are CF_EINVAL
 * with one line naming the gripper. */
#include <math.h>
#include <string.h>

#include "grip.h"
#include "start.h"

#define GRIP_WINDOW_SLACK 1e-9 /* s: a window's ends count */

static void mesh_size(const cf_fit_target *tg, int *R, int *C) {
  *R = cf_fit_target_split(tg) * (tg->rows - 1) + 1;
  *C = cf_fit_target_split_cols(tg) * (tg->cols - 1) + 1;
}

int cf_grip_node(const cf_fit_target *tg, int g) {
  int R, C;
  mesh_size(tg, &R, &C);
  int row = (int)lround(tg->grip_uv[2 * g + 1] * (R - 1)), col = (int)lround(tg->grip_uv[2 * g] * (C - 1));
  return row * C + col;
}

unsigned cf_grip_mask(const cf_fit_target *tg, int k) {
  unsigned m = 0;
  double t = k * tg->dt;
  for (int g = 0; g < tg->n_grip; g++) {
    const double *w = tg->grip_window ? tg->grip_window + 2 * g : NULL;
    if (!w || (t >= w[0] - GRIP_WINDOW_SLACK && t <= w[1] + GRIP_WINDOW_SLACK)) m |= 1u << g;
  }
  return m;
}

int cf_grip_select(unsigned mask, const int *kin, int n, int *out) {
  int m = 0;
  for (int c = 0; c < n; c++)
    if (mask >> c & 1) out[m++] = kin[c];
  return m;
}

static int always(const cf_fit_target *tg, int g) {
  return !tg->grip_window || (tg->grip_window[2 * g] == -INFINITY && tg->grip_window[2 * g + 1] == INFINITY);
}

double cf_grip_span(const cf_fit_target *tg, const cf_mesh *rest, const int *node) {
  int R, C;
  mesh_size(tg, &R, &C);
  if (tg->n_grip < 2 || !always(tg, 0) || !always(tg, 1) || node[0] / C != node[1] / C) return 0;
  int a = node[0] < node[1] ? node[0] : node[1], b = node[0] ^ node[1] ^ a;
  double L = 0;
  for (int j = a; j < b; j++) L += cf_fit_dist3(rest->x + 3 * j, rest->x + 3 * (j + 1));
  return L;
}

int cf_grip_check(const cf_fit_target *tg, cf_error *err) {
  if (tg->n_grip > CF_GRIP_MAX || !tg->grip_uv || !tg->grip_track)
    return cf_error_set(err, CF_EINVAL, "recording: %d grippers, expected 1..%d with their points and track",
                        tg->n_grip, CF_GRIP_MAX);
  for (int g = 0; g < tg->n_grip; g++) {
    const double *uv = tg->grip_uv + 2 * g;
    if (!(uv[0] >= 0 && uv[0] <= 1 && uv[1] >= 0 && uv[1] <= 1))
      return cf_error_set(err, CF_EINVAL, "recording: gripper %d holds (%g, %g), outside the sheet: expected (u, v) "
                          "in [0, 1]^2", g + 1, uv[0], uv[1]);
    for (int h = 0; h < g; h++)
      if (cf_grip_node(tg, h) == cf_grip_node(tg, g))
        return cf_error_set(err, CF_EINVAL, "recording: grippers %d and %d hold the same node of the simulated mesh "
                            "(node %d): their points are closer than the mesh's spacing", h + 1, g + 1,
                            cf_grip_node(tg, g));
    for (int t = 0; t < tg->T; t++)
      for (int d = 0; d < 3; d++)
        if (!isfinite(tg->grip_track[3 * ((size_t)t * tg->n_grip + g) + d]))
          return cf_error_set(err, CF_EINVAL, "recording: gripper %d's track is not finite at frame %d (t = %.3f s)",
                              g + 1, t, t * tg->dt);
  }
  return CF_OK;
}
