/* meshseq_obj.c — one frame of a mesh sequence from a Wavefront OBJ file.
 *
 * Read: `v x y z [w | r g b [a]]` (the first three numbers are the position;
 * 3 to 7 finite numbers), `f a b c [d]` whose vertices are `i`, `i/j`,
 * `i/j/k` or `i//k` (i: 1-based, negative = relative to the vertices read so
 * far; j and k are ignored), `#` comments (also after a statement).  Every
 * other statement (vt, vn, vp, g, o, s, l, usemtl, mtllib, ...) is ignored.
 * Faces are triangles or quads, all of one kind. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "meshseq_internal.h"

typedef struct {
  const char *name;
  cf_error *err;
  cf_meshframe *fr;
  long line;
  const char *p, *e; /* the rest of the current line */
} obj_state;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* The next whitespace-separated token of the line as [*s, *t); 0 at its end. */
static int token(obj_state *st, const char **s, const char **t) {
  while (st->p < st->e && is_space(*st->p)) st->p++;
  *s = st->p;
  while (st->p < st->e && !is_space(*st->p)) st->p++;
  *t = st->p;
  return *t > *s;
}

static int fail(obj_state *st, const char *fmt, const char *s, const char *t, int n) {
  char q[64];
  return cf_meshframe_fail(st->err, st->name, 0, st->line, fmt, n, cf_meshframe_quote(s, t, q, sizeof q));
}

/* v x y z [...]: the first three of 3-7 finite numbers. */
static int vertex(obj_state *st) {
  double x[7];
  const char *s, *t;
  int n = 0;
  for (; token(st, &s, &t); n++) {
    if (n == 7) return fail(st, "vertex: more than %d numbers, found %s", s, t, 7);
    char *end;
    x[n] = strtod(s, &end);
    if (end != t || !isfinite(x[n])) return fail(st, "vertex coordinate %d: expected a finite number, found %s", s, t, n + 1);
  }
  if (n < 3) return cf_meshframe_fail(st->err, st->name, 0, st->line, "vertex: %d number(s), expected x y z", n);
  if (!cf_meshframe_reserve(st->fr, 1, 0)) return cf_meshframe_fail(st->err, st->name, 0, st->line, "out of memory");
  cf_meshframe_add_node(st->fr, x);
  return CF_OK;
}

/* One face vertex `i[/j[/k]]` into a 0-based index. */
static int face_vertex(obj_state *st, const char *s, const char *t, int a, int *idx) {
  const char *slash = memchr(s, '/', (size_t)(t - s));
  const char *ie = slash ? slash : t;
  char *end = (char *)s;
  long v = ie > s && (*s == '-' || *s == '+' || (*s >= '0' && *s <= '9')) ? strtol(s, &end, 10) : 0;
  if (ie == s || end != ie || v < INT_MIN + 1 || v > INT_MAX)
    return fail(st, "face vertex %d: expected an index 'i', 'i/j', 'i/j/k' or 'i//k', found %s", s, t, a);
  if (v == 0) return fail(st, "face vertex %d: index 0 (%s): OBJ indices start at 1 (negative ones count back)", s, t, a);
  int n = st->fr->n_nodes;
  if (v < 0 && -v > n)
    return cf_meshframe_fail(st->err, st->name, 0, st->line, "face vertex %d: relative index %ld reaches before the "
                             "first vertex (%d vertices so far)", a, v, n);
  *idx = v > 0 ? (int)(v - 1) : n + (int)v;
  return CF_OK;
}

static int face(obj_state *st) {
  int idx[4], n = 0, rc;
  const char *s, *t;
  for (; token(st, &s, &t); n++) {
    if (n == 4) return fail(st, "face with more than %d vertices at %s: expected triangles or quads", s, t, 4);
    if ((rc = face_vertex(st, s, t, n + 1, &idx[n]))) return rc;
  }
  if (!cf_meshframe_reserve(st->fr, 0, 1)) return cf_meshframe_fail(st->err, st->name, 0, st->line, "out of memory");
  return cf_meshframe_add_face(st->fr, idx, n, st->line, st->name, st->err);
}

static int statement(obj_state *st) {
  const char *s, *t;
  const char *hash = memchr(st->p, '#', (size_t)(st->e - st->p));
  if (hash) st->e = hash;
  if (memchr(st->p, 0, (size_t)(st->e - st->p)))
    return cf_meshframe_fail(st->err, st->name, 0, st->line, "NUL byte: expected a text OBJ file");
  if (!token(st, &s, &t)) return CF_OK;
  if (t - s == 1 && *s == 'v') return vertex(st);
  if (t - s == 1 && *s == 'f') return face(st);
  return CF_OK;
}

int cf_obj_parse(const char *buf, size_t len, const char *name, cf_meshframe *fr, cf_error *err) {
  memset(fr, 0, sizeof *fr);
  fr->base = 1;
  obj_state st = {name, err, fr, 0, buf, buf};
  if (len == 0) return cf_meshframe_fail(err, name, 0, 1, "empty file: expected OBJ statements 'v x y z' and 'f a b c'");
  int rc = CF_OK;
  for (const char *p = buf, *end = buf + len; !rc && p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    st.line++;
    st.p = p, st.e = nl ? nl : end;
    rc = statement(&st);
    p = nl ? nl + 1 : end;
  }
  fr->nodes_at = fr->faces_at = st.line;
  if (!rc) rc = cf_meshframe_finish(fr, st.line, name, err);
  if (rc) cf_meshframe_free(fr);
  return rc;
}
