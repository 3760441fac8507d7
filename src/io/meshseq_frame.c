/* meshseq_frame.c — what the OBJ and PLY frame parsers share: the frame's
 * growing arrays, face rules (triangles or quads, one kind, no repeated
 * node), final checks and error messages, the faces' edges and areas, and
 * the source's unit and axes to metres and z up (also for point clouds). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meshseq_internal.h"

void cf_meshframe_free(cf_meshframe *fr) {
  free(fr->x);
  free(fr->faces);
  free(fr->face_at);
  memset(fr, 0, sizeof *fr);
}

int cf_meshframe_vfail(cf_error *err, const char *name, int binary, long at, const char *prefix, const char *fmt,
                       va_list ap) {
  char what[400];
  vsnprintf(what, sizeof what, fmt, ap);
  int code = strncmp(what, "out of memory", 13) ? CF_EFORMAT : CF_ENOMEM;
  return cf_error_set(err, code, "%s: %s %ld: %s%s", name, binary ? "byte offset" : "line", at, prefix, what);
}

int cf_meshframe_fail(cf_error *err, const char *name, int binary, long at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = cf_meshframe_vfail(err, name, binary, at, "", fmt, ap);
  va_end(ap);
  return rc;
}

const char *cf_meshframe_quote(const char *s, const char *e, char *buf, size_t size) {
  size_t n = (size_t)(e - s), o = 0;
  if (size < 8) return "";
  buf[o++] = '\'';
  for (size_t i = 0; i < n && o + 5 < size && i < 40; i++)
    buf[o++] = (unsigned char)s[i] >= 32 && (unsigned char)s[i] < 127 ? s[i] : '?';
  if (n > 40 || o + 5 >= size) buf[o++] = '.', buf[o++] = '.', buf[o++] = '.';
  buf[o++] = '\'';
  buf[o] = 0;
  return buf;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 1;
  size_t n = *cap ? *cap : 64;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * elem);
  if (!q) return 0;
  *p = q, *cap = n;
  return 1;
}

int cf_meshframe_reserve(cf_meshframe *fr, size_t nodes, size_t faces) {
  size_t cf = fr->cap_faces;
  if (!grow((void **)&fr->x, &fr->cap_nodes, fr->n_nodes + nodes, 3 * sizeof(double))) return 0;
  if (!grow((void **)&fr->faces, &fr->cap_faces, fr->n_faces + faces, 4 * sizeof(int))) return 0;
  fr->cap_faces = cf; /* the same capacity for face_at */
  return grow((void **)&fr->face_at, &fr->cap_faces, fr->n_faces + faces, sizeof(long));
}

void cf_meshframe_add_node(cf_meshframe *fr, const double *x) {
  memcpy(fr->x + 3 * (size_t)fr->n_nodes++, x, 3 * sizeof(double));
}

int cf_meshframe_add_face(cf_meshframe *fr, const int *idx, int nv, long at, const char *name, cf_error *err) {
  if (nv != 3 && nv != 4)
    return cf_meshframe_fail(err, name, fr->binary, at, "face %d has %d vertices, expected 3 (triangle) or 4 (quad)",
                             fr->n_faces + 1, nv);
  if (fr->nv && nv != fr->nv)
    return cf_meshframe_fail(err, name, fr->binary, at, "face %d is a %s after %s (first face at %s %ld): expected "
                             "all triangles or all quads", fr->n_faces + 1, nv == 3 ? "triangle" : "quad",
                             fr->nv == 3 ? "triangles" : "quads", fr->binary ? "byte offset" : "line", fr->face_at[0]);
  for (int a = 0; a < nv; a++)
    for (int b = a + 1; b < nv; b++)
      if (idx[a] == idx[b])
        return cf_meshframe_fail(err, name, fr->binary, at, "face %d lists vertex %d twice (degenerate face)",
                                 fr->n_faces + 1, idx[a] + fr->base);
  fr->nv = nv;
  memcpy(fr->faces + (size_t)nv * fr->n_faces, idx, nv * sizeof(int));
  fr->face_at[fr->n_faces++] = at;
  return CF_OK;
}

int cf_meshframe_finish(cf_meshframe *fr, long end_at, const char *name, cf_error *err) {
  if (fr->n_nodes == 0) return cf_meshframe_fail(err, name, 0, end_at, "no vertices in the file");
  if (fr->n_faces == 0)
    return cf_meshframe_fail(err, name, 0, end_at, "no faces in the file (a mesh sequence needs triangles or quads)");
  for (int f = 0; f < fr->n_faces; f++)
    for (int a = 0; a < fr->nv; a++) {
      int i = fr->faces[(size_t)fr->nv * f + a];
      if (i < 0 || i >= fr->n_nodes)
        return cf_meshframe_fail(err, name, fr->binary, fr->face_at[f], "face %d vertex %d: index %lld out of range "
                                 "(the file has %d vertices, indices %d..%d)", f + 1, a + 1, (long long)i + fr->base,
                                 fr->n_nodes, fr->base, fr->n_nodes - 1 + fr->base);
    }
  return CF_OK;
}

void ms_put_points(const double *x, long n, double unit_scale, char up, double *dst) {
  for (long k = 0; k < n; k++) {
    const double *p = x + 3 * (size_t)k;
    double *y = dst + 3 * (size_t)k, s = unit_scale;
    y[0] = s * p[0];
    y[1] = up == 'y' ? -s * p[2] : s * p[1];
    y[2] = up == 'y' ? s * p[1] : s * p[2];
  }
}

/* ------------------------------------------------------- edges and areas */
int ms_edge_cmp(const void *x, const void *y) {
  const ms_edge *a = x, *b = y;
  if (a->u != b->u) return (a->u > b->u) - (a->u < b->u);
  if (a->v != b->v) return (a->v > b->v) - (a->v < b->v);
  return (a->f > b->f) - (a->f < b->f);
}

ms_edge *ms_edges_sorted(const int *faces, int nv, int nf) {
  ms_edge *e = malloc(sizeof(ms_edge) * ((size_t)nf * nv + 1));
  if (!e) return NULL;
  for (int f = 0, k = 0; f < nf; f++)
    for (int a = 0; a < nv; a++, k++) {
      int u = faces[(size_t)nv * f + a], v = faces[(size_t)nv * f + (a + 1) % nv];
      e[k] = (ms_edge){u < v ? u : v, u < v ? v : u, f};
    }
  qsort(e, (size_t)nf * nv, sizeof(ms_edge), ms_edge_cmp);
  return e;
}

static int overused_edge(const cf_meshframe *fr, const char *name, cf_error *err) {
  ms_edge *e = ms_edges_sorted(fr->faces, fr->nv, fr->n_faces);
  if (!e) return cf_meshframe_fail(err, name, 0, fr->faces_at, "out of memory for %d faces", fr->n_faces);
  int rc = CF_OK, n = fr->n_faces * fr->nv;
  for (int i = 2; i < n && !rc; i++)
    if (e[i].u == e[i - 2].u && e[i].v == e[i - 2].v)
      rc = cf_meshframe_fail(err, name, fr->binary, fr->face_at[e[i].f], "face %d has the edge %d-%d of faces %d and "
                             "%d too: an edge may be in at most two faces (non-manifold mesh)", e[i].f + 1,
                             e[i].u + fr->base, e[i].v + fr->base, e[i - 2].f + 1, e[i - 1].f + 1);
  free(e);
  return rc;
}

/* |(b - a) x (c - a)| and the largest squared edge of the triangle. */
static double twice_area(const double *a, const double *b, const double *c, double *edge2) {
  double u[3], v[3], w[3], n[3];
  for (int d = 0; d < 3; d++) u[d] = b[d] - a[d], v[d] = c[d] - a[d], w[d] = c[d] - b[d];
  n[0] = u[1] * v[2] - u[2] * v[1], n[1] = u[2] * v[0] - u[0] * v[2], n[2] = u[0] * v[1] - u[1] * v[0];
  double l[3] = {u[0] * u[0] + u[1] * u[1] + u[2] * u[2], v[0] * v[0] + v[1] * v[1] + v[2] * v[2],
                 w[0] * w[0] + w[1] * w[1] + w[2] * w[2]};
  *edge2 = fmax(*edge2, fmax(l[0], fmax(l[1], l[2])));
  return sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

int cf_meshframe_check_faces(const cf_meshframe *fr, int topology, const char *name, cf_error *err) {
  int rc = topology ? overused_edge(fr, name, err) : CF_OK;
  for (int f = 0; f < fr->n_faces && !rc; f++) {
    const int *q = fr->faces + (size_t)fr->nv * f;
    double e2 = 0, a = twice_area(fr->x + 3 * q[0], fr->x + 3 * q[1], fr->x + 3 * q[2], &e2);
    if (fr->nv == 4) a += twice_area(fr->x + 3 * q[0], fr->x + 3 * q[2], fr->x + 3 * q[3], &e2);
    if (!(a > 1e-12 * e2))
      rc = cf_meshframe_fail(err, name, fr->binary, fr->face_at[f], "face %d has zero area (its vertices coincide "
                             "or lie on one line): a degenerate face", f + 1);
  }
  return rc;
}
