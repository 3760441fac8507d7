/* meshgrid.c — is a recording's mesh a structured grid, and which node sits
 * at which lattice cell (cf_io.h, cf_rec_mesh_grid).
 *
 * The fitter simulates on a rows x cols lattice (docs/design.md §7), so a
 * depth-camera mesh can be fitted when its faces are the cells of such a
 * lattice: quads, or quads each cut in two triangles along either
 * diagonal.  This is decided from the faces alone (topology), never from
 * the coordinates, which only orient the result (row 0 on top).
 *
 * How: the boundary edges (in one face) must form one cycle of L nodes;
 * then rows + cols = L / 2 + 2 and rows x cols = N fix the shape.  From a
 * candidate corner on that cycle, row 0 runs forward along the cycle and
 * column 0 backward; the cells are then filled row by row: cell (r+1, c+1)
 * is the node across the unused face(s) below the edge (r, c)-(r, c+1)
 * (for triangles, the pair that covers the cell, whichever diagonal it
 * has).  A start is a grid when every face is used once and every node
 * gets one cell.  Quads start from the nodes in one face (the corners);
 * triangulated grids from every boundary node in at most two triangles
 * (a corner cannot be told from an edge node locally), at most L starts
 * of O(F) each. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_io.h"
#include "meshseq_internal.h"

typedef ms_edge gedge; /* u < v */

typedef struct {
  const cf_rec_mesh *m;
  gedge *e;
  int ne, rows, cols;
  int *lab, *cell, *cyc, *nface, *bn;
  unsigned char *used;
} gwork;

/* The first of the sorted edges (a, b), or ne. */
static int edge_first(const gwork *w, int a, int b) {
  gedge key = {a < b ? a : b, a < b ? b : a, -1};
  int lo = 0, hi = w->ne;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (ms_edge_cmp(&w->e[mid], &key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo < w->ne && w->e[lo].u == key.u && w->e[lo].v == key.v ? lo : w->ne;
}

/* An unused face on the edge (a, b) other than skip, or -1. */
static int face_on(const gwork *w, int a, int b, int skip) {
  int lo = a < b ? a : b, hi = a ^ b ^ lo;
  for (int i = edge_first(w, a, b); i < w->ne && w->e[i].u == lo && w->e[i].v == hi; i++)
    if (!w->used[w->e[i].f] && w->e[i].f != skip) return w->e[i].f;
  return -1;
}

/* ----------------------------------------------------------- the boundary */
static int boundary_cycle(gwork *w, int *L, char *why, size_t size) {
  int n = w->m->n_nodes, nb = 0, start = -1;
  for (int i = 0; i < 2 * n; i++) w->bn[i] = -1;
  for (int i = 0; i < w->ne;) {
    int j = i;
    while (j < w->ne && w->e[j].u == w->e[i].u && w->e[j].v == w->e[i].v) j++;
    if (j - i > 2) return snprintf(why, size, "the edge %d-%d is in %d faces", w->e[i].u, w->e[i].v, j - i), 0;
    for (int s = 0; j - i == 1 && s < 2; s++) {
      int a = s ? w->e[i].v : w->e[i].u, b = s ? w->e[i].u : w->e[i].v;
      int *slot = w->bn[2 * a] < 0 ? &w->bn[2 * a] : &w->bn[2 * a + 1];
      if (*slot >= 0) return snprintf(why, size, "the boundary branches at node %d", a), 0;
      *slot = b, start = a;
    }
    nb += j - i == 1, i = j;
  }
  if (start < 0) return snprintf(why, size, "the mesh has no boundary"), 0;
  int len = 0, prev = -1, cur = start;
  do {
    if (len >= nb || cur < 0 || w->bn[2 * cur + 1] < 0) break;
    w->cyc[len++] = cur;
    int next = w->bn[2 * cur] != prev ? w->bn[2 * cur] : w->bn[2 * cur + 1];
    prev = cur, cur = next;
  } while (cur != start);
  *L = len;
  if (cur != start || len != nb) return snprintf(why, size, "the boundary is not one loop (holes or pieces)"), 0;
  return 1;
}

/* rows <= cols with rows + cols = L/2 + 2, rows cols = N, both >= 2. */
static int grid_shape(int L, int N, int *rows, int *cols) {
  if (L % 2) return 0;
  long s = L / 2 + 2, d = s * s - 4L * N, q = lround(sqrt((double)(d > 0 ? d : 0)));
  if (d < 0 || q * q != d || (s - q) % 2) return 0;
  *rows = (int)((s - q) / 2), *cols = (int)((s + q) / 2);
  return *rows >= 2;
}

/* ------------------------------------------------------------ the sweep */
static int put(gwork *w, int r, int c, int node) {
  int k = r * w->cols + c;
  if ((w->lab[node] >= 0 && w->lab[node] != k) || (w->cell[k] >= 0 && w->cell[k] != node)) return 0;
  w->lab[node] = k, w->cell[k] = node;
  return 1;
}

static int other_node(const int *f, int a, int b) {
  for (int i = 0; i < 3; i++)
    if (f[i] != a && f[i] != b) return f[i];
  return -1;
}

/* The cell below-right of (r, c): the nodes a (r, c), b (r, c+1), d (r+1, c) are placed. */
static int fill_cell(gwork *w, int r, int c) {
  const cf_rec_mesh *m = w->m;
  int a = w->cell[r * w->cols + c], b = w->cell[r * w->cols + c + 1], d = w->cell[(r + 1) * w->cols + c];
  int f = face_on(w, a, b, -1), g;
  if (f < 0) return 0;
  const int *q = m->faces + (size_t)m->nv * f;
  if (m->nv == 4) {
    int ia = 0;
    while (q[ia] != a) ia++;
    int ib = q[(ia + 1) % 4] == b ? (ia + 1) % 4 : (ia + 3) % 4, id = (2 * ia - ib + 4) % 4;
    if (q[ib] != b || q[id] != d) return 0;
    w->used[f] = 1;
    return put(w, r + 1, c + 1, q[(ia + 2) % 4]);
  }
  int x = other_node(q, a, b), y;
  if (x == d) {
    g = face_on(w, b, d, f);
    y = g < 0 ? -1 : other_node(m->faces + 3 * (size_t)g, b, d);
  } else {
    g = face_on(w, a, x, f);
    y = x;
    if (g < 0 || other_node(m->faces + 3 * (size_t)g, a, x) != d) return 0;
  }
  if (g < 0 || y < 0) return 0;
  w->used[f] = w->used[g] = 1;
  return put(w, r + 1, c + 1, y);
}

static int try_start(gwork *w, int L, int k0, int rows, int cols) {
  const cf_rec_mesh *m = w->m;
  w->rows = rows, w->cols = cols;
  memset(w->used, 0, (size_t)m->n_faces);
  for (int i = 0; i < m->n_nodes; i++) w->lab[i] = w->cell[i] = -1;
  int ok = 1;
  for (int c = 0; ok && c < cols; c++) ok = put(w, 0, c, w->cyc[(k0 + c) % L]);
  for (int r = 1; ok && r < rows; r++) ok = put(w, r, 0, w->cyc[((k0 - r) % L + L) % L]);
  for (int r = 0; ok && r + 1 < rows; r++)
    for (int c = 0; ok && c + 1 < cols; c++) ok = fill_cell(w, r, c);
  for (int f = 0; ok && f < m->n_faces; f++) ok = w->used[f];
  return ok;
}

/* ---------------------------------------------------------- orientation */
/* Row 0 = the side with the highest mean z in frame 0; column 0 = the end
 * of that row with the smaller horizontal coordinate (x or y, whichever
 * the row runs along more), as for marker lattices (src/recording). */
static void orient(const gwork *w, cf_rec_grid *g) {
  const double *x = w->m->nodes;
  int R = w->rows, C = w->cols, best = 0;
  double z[4] = {0, 0, 0, 0};
  for (int c = 0; c < C; c++) z[0] += x[3 * w->cell[c] + 2] / C, z[1] += x[3 * w->cell[(R - 1) * C + c] + 2] / C;
  for (int r = 0; r < R; r++) z[2] += x[3 * w->cell[r * C] + 2] / R, z[3] += x[3 * w->cell[r * C + C - 1] + 2] / R;
  for (int s = 1; s < 4; s++)
    if (z[s] > z[best]) best = s;
  g->rows = best < 2 ? R : C, g->cols = best < 2 ? C : R;
  for (int i = 0; i < g->rows; i++)
    for (int j = 0; j < g->cols; j++) {
      int r = best == 0 ? i : best == 1 ? R - 1 - i : j, c = best == 0 || best == 1 ? j : best == 2 ? i : C - 1 - i;
      g->node[i * g->cols + j] = w->cell[r * C + c];
    }
  const double *a = x + 3 * g->node[0], *b = x + 3 * g->node[g->cols - 1];
  double dx = b[0] - a[0], dy = b[1] - a[1];
  if (fabs(dx) >= fabs(dy) ? dx < 0 : dy < 0)
    for (int i = 0; i < g->rows; i++)
      for (int j = 0; j < g->cols / 2; j++) {
        int *p = g->node + i * g->cols, t = p[j];
        p[j] = p[g->cols - 1 - j], p[g->cols - 1 - j] = t;
      }
}

/* ------------------------------------------------------------------- API */
static int find_grid(gwork *w, char *why, size_t size) {
  const cf_rec_mesh *m = w->m;
  int L, R, C;
  if (!boundary_cycle(w, &L, why, size)) return 0;
  if (!grid_shape(L, m->n_nodes, &R, &C) || m->n_faces != (R - 1) * (C - 1) * (m->nv == 4 ? 1 : 2))
    return snprintf(why, size, "%d nodes, %d %s and a boundary of %d nodes fit no rows x cols grid", m->n_nodes,
                    m->n_faces, m->nv == 4 ? "quads" : "triangles", L), 0;
  for (int k0 = 0; k0 < L; k0++) {
    if (w->nface[w->cyc[k0]] > (m->nv == 4 ? 1 : 2)) continue;
    if (try_start(w, L, k0, R, C) || (R != C && try_start(w, L, k0, C, R))) return 1;
  }
  return snprintf(why, size, "the faces do not join as the cells of a %dx%d grid", R, C), 0;
}

static int build_edges(gwork *w) {
  const cf_rec_mesh *m = w->m;
  w->ne = m->n_faces * m->nv;
  for (int i = 0; i < w->ne; i++) w->nface[m->faces[i]]++;
  return (w->e = ms_edges_sorted(m->faces, m->nv, m->n_faces)) != NULL;
}

void cf_rec_grid_free(cf_rec_grid *g) {
  free(g->node);
  memset(g, 0, sizeof *g);
}

int cf_rec_mesh_grid(const cf_rec_mesh *m, cf_rec_grid *g, cf_error *err) {
  memset(g, 0, sizeof *g);
  int n = m->n_nodes;
  gwork w = {m, NULL, 0, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL};
  w.lab = malloc(sizeof(int) * n), w.cell = malloc(sizeof(int) * n), w.cyc = malloc(sizeof(int) * (n + 1));
  w.nface = calloc((size_t)n, sizeof(int)), w.bn = malloc(sizeof(int) * 2 * n);
  w.used = malloc((size_t)m->n_faces + 1), g->node = malloc(sizeof(int) * n);
  char why[200] = "";
  int rc = w.lab && w.cell && w.cyc && w.nface && w.bn && w.used && g->node && build_edges(&w)
               ? CF_OK
               : cf_error_set(err, CF_ENOMEM, "mesh grid: out of memory for %d nodes", n);
  if (!rc && n >= 4 && find_grid(&w, why, sizeof why)) orient(&w, g);
  else if (!rc) rc = cf_error_set(err, CF_EFORMAT, "%s", why[0] ? why : "fewer than 4 nodes");
  free(w.e), free(w.lab), free(w.cell), free(w.cyc), free(w.nface), free(w.bn), free(w.used);
  if (rc) cf_rec_grid_free(g);
  return rc;
}

void cf_rec_grid_top_corners(const cf_rec_grid *g, const cf_rec_mesh *m, int held[2]) {
  int R = g->rows, C = g->cols, k[4] = {0, C - 1, (R - 1) * C, R * C - 1};
  for (int i = 1; i < 4; i++) /* by height in frame 0, highest first (stable) */
    for (int j = i; j > 0 && m->nodes[3 * g->node[k[j]] + 2] > m->nodes[3 * g->node[k[j - 1]] + 2]; j--) {
      int t = k[j];
      k[j] = k[j - 1], k[j - 1] = t;
    }
  int a = k[0] < k[1] ? k[0] : k[1], b = k[0] ^ k[1] ^ a;
  held[0] = g->node[a], held[1] = g->node[b];
}
