/* boxgrid.h — internal: a spatial hash of axis-aligned boxes, the broad
 * phase of the cloth's collision detection: selfcoll.c (its triangles and
 * edges against themselves) and contact_points.c (the obstacles' sharp
 * points against its triangles).
 *
 * Cubic cells of side h, hashed into nb buckets (a power of 2, at least
 * twice the entries); each item is listed (CSR) in every bucket of a cell
 * its box meets, at most 65 cells a side (an item that moved farther than
 * that is met through a bucket's worth of others anyway).  A query walks the
 * cells of its own box and must skip the items it saw already (hashed
 * cells share buckets) and those whose box does not meet its own.  It
 * scales with the mesh: each item meets a bounded number of cells. */
#ifndef CF_BOXGRID_H
#define CF_BOXGRID_H
#include <math.h>
#include <stdint.h>

typedef struct {
  int nb, nbcap;  /* buckets (a power of 2), allocated */
  int *start;     /* [nb + 1] */
  int *item;      /* [entries] */
  int *keys;      /* [2 entries] scratch: (bucket, item) while building */
  int cap;        /* entries allocated */
} cf_boxgrid;

/* The box (min xyz, max xyz) of the points v[0..m) of x0 and x1 (positions
 * [3n]), grown by pad: the box they sweep moving linearly from x0 to x1. */
static inline void cf_box_swept(const int *v, int m, const double *x0, const double *x1, double pad, double *box) {
  for (int d = 0; d < 3; d++) box[d] = INFINITY, box[3 + d] = -INFINITY;
  for (int q = 0; q < m; q++)
    for (int d = 0; d < 3; d++) {
      double a = x0[3 * v[q] + d], b = x1[3 * v[q] + d];
      box[d] = fmin(box[d], fmin(a, b) - pad);
      box[3 + d] = fmax(box[3 + d], fmax(a, b) + pad);
    }
}

static inline int cf_box_overlap(const double *a, const double *b) {
  return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5];
}

static inline uint32_t cf_cell_hash(int64_t i, int64_t j, int64_t k) {
  uint64_t h = (uint64_t)i * 73856093u ^ (uint64_t)j * 19349663u ^ (uint64_t)k * 83492791u;
  return (uint32_t)(h ^ (h >> 29));
}

/* The cells of a box, one hashed bucket at a time:
 *   cf_cell_it it; int b; cf_cells_begin(&it, box, h);
 *   while (cf_cells_next(&it, g->nb, &b)) ... g->item[g->start[b] .. g->start[b + 1]) ... */
typedef struct {
  int64_t lo[3], hi[3], i, j, k;
} cf_cell_it;

static inline void cf_cells_begin(cf_cell_it *it, const double *box, double h) {
  for (int d = 0; d < 3; d++) {
    it->lo[d] = (int64_t)floor(box[d] / h), it->hi[d] = (int64_t)floor(box[3 + d] / h);
    if (it->hi[d] - it->lo[d] > 64) it->hi[d] = it->lo[d] + 64;
  }
  it->i = it->lo[0], it->j = it->lo[1], it->k = it->lo[2];
}

static inline int cf_cells_next(cf_cell_it *it, int nb, int *bucket) {
  if (it->i > it->hi[0]) return 0;
  *bucket = (int)(cf_cell_hash(it->i, it->j, it->k) & (uint32_t)(nb - 1));
  if (++it->k > it->hi[2]) {
    it->k = it->lo[2];
    if (++it->j > it->hi[1]) it->j = it->lo[1], it->i++;
  }
  return 1;
}

/* g over the n boxes box[6 n] with cells of side h (g: zeroed before the
 * first build; its arrays are reused and grown); 0, or -1 out of memory. */
int cf_boxgrid_build(cf_boxgrid *g, const double *box, int n, double h);
void cf_boxgrid_free(cf_boxgrid *g);
#endif
