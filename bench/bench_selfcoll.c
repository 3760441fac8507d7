/* bench_selfcoll — the self-collision broad phase at scale (docs/design.md
 * §5: it must scale to 10^4 nodes): an N x N quad sheet (1 m) crumpled by a
 * seeded smooth displacement field, moved by a small random step; prints the
 * wall time of one cf_selfcoll_detect (thickness 2 mm, omega 0.5) and of one
 * exact self-intersection count, for N = 25, 50, 100 (625 to 10^4 nodes).
 *   build/bench/bench_selfcoll */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cf_sim.h"
#include "selfcoll.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
  for (int N = 25; N <= 100; N *= 2) {
    double o[3] = {0, 0, 0}, u[3] = {1, 0, 0}, v[3] = {0, 1, 0};
    cf_mesh *m = cf_mesh_grid(N, N, o, u, v, 1);
    int n = m->n_nodes;
    double *x0 = malloc(sizeof(double) * 3 * n), *x1 = malloc(sizeof(double) * 3 * n);
    unsigned char *kin = calloc((size_t)n, 1);
    unsigned long long s = 12345;
    for (int i = 0; i < n; i++) {
      const double *p = m->x + 3 * i;
      x0[3 * i] = p[0], x0[3 * i + 1] = p[1];
      x0[3 * i + 2] = 0.05 * sin(7 * p[0]) * cos(5 * p[1]); /* a crumple */
      for (int d = 0; d < 3; d++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        x1[3 * i + d] = x0[3 * i + d] + 1e-3 * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
      }
    }
    cf_error err;
    cf_selfcoll *sc = cf_selfcoll_alloc(m, kin, &err);
    const cf_self_pair *pairs;
    double t0 = now();
    int np = cf_selfcoll_detect(sc, x0, x1, 2e-3, 0.5, &pairs);
    double t1 = now();
    int hits = cf_selfcoll_intersections(sc, x1);
    double t2 = now();
    printf("%d x %d (%d nodes): detect %.2f ms (%d pairs), intersections %.2f ms (%d)\n", N, N, n, 1e3 * (t1 - t0), np,
           1e3 * (t2 - t1), hits);
    cf_selfcoll_free(sc);
    cf_mesh_free(m);
    free(x0), free(x1), free(kin);
  }
  return 0;
}
