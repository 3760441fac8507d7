/* boxgrid.c — the spatial hash of boxes of boxgrid.h: building it (a
 * counting sort of the (bucket, item) entries into CSR). */
#include "boxgrid.h"

#include <stdlib.h>
#include <string.h>

void cf_boxgrid_free(cf_boxgrid *g) {
  free(g->start), free(g->item), free(g->keys);
  memset(g, 0, sizeof *g);
}

int cf_boxgrid_build(cf_boxgrid *g, const double *box, int n, double h) {
  int entries = 0;
  for (int q = 0; q < n; q++) {
    const double *b = box + 6 * q;
    int64_t c = 1;
    for (int d = 0; d < 3; d++) c *= 1 + (int64_t)fmin(64, floor(b[3 + d] / h) - floor(b[d] / h));
    entries += (int)c;
  }
  int nb = 1;
  while (nb < 2 * entries + 16) nb *= 2;
  if (entries > g->cap) {
    free(g->item), free(g->keys);
    g->item = malloc(sizeof(int) * ((size_t)entries + 1));
    g->keys = malloc(sizeof(int) * 2 * ((size_t)entries + 1));
    g->cap = g->item && g->keys ? entries : 0;
    if (!g->cap) return -1;
  }
  if (nb > g->nbcap) {
    free(g->start);
    g->start = malloc(sizeof(int) * ((size_t)nb + 1));
    g->nbcap = g->start ? nb : 0;
    if (!g->start) return -1;
  }
  g->nb = nb;
  int e = 0;
  memset(g->start, 0, sizeof(int) * ((size_t)nb + 1));
  for (int q = 0; q < n; q++) {
    cf_cell_it it;
    int bucket;
    cf_cells_begin(&it, box + 6 * q, h);
    while (cf_cells_next(&it, nb, &bucket)) {
      g->keys[2 * e] = bucket, g->keys[2 * e + 1] = q, e++;
      g->start[bucket + 1]++;
    }
  }
  for (int b = 0; b < nb; b++) g->start[b + 1] += g->start[b];
  for (int q = 0; q < e; q++) g->item[g->start[g->keys[2 * q]]++] = g->keys[2 * q + 1];
  for (int b = nb; b > 0; b--) g->start[b] = g->start[b - 1];
  g->start[0] = 0;
  return 0;
}
