/* meshseq_ply.c — one frame of a mesh sequence from a PLY file (ascii or
 * binary_little_endian; binary_big_endian is refused).
 *
 * Header: `ply`, `format ascii|binary_little_endian 1.0`, `comment`/`obj_info`
 * lines, `element NAME COUNT`, `property TYPE NAME`, `property list CTYPE
 * ITYPE NAME`, `end_header`.  Types: char/int8, uchar/uint8, short/int16,
 * ushort/uint16, int/int32, uint/uint32, float/float32, double/float64.
 * Used: element vertex (scalar x, y, z of any type) and element face (list
 * vertex_indices or vertex_index, integer count and index types, 3 or 4
 * 0-based indices a face).  Every other property and element is read past.
 * Errors in the header and the ascii body name the line; in a binary body
 * the byte offset.  The body must hold exactly what the header declares.
 * A point cloud (cf_ply_parse_points) is the same file read for its vertex
 * positions alone: a face element, if any, is read past like the others. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meshseq_internal.h"

enum { PT_I8 = 1, PT_U8, PT_I16, PT_U16, PT_I32, PT_U32, PT_F32, PT_F64 };

static const struct {
  const char *name, *alias;
  int size;
  double lo, hi; /* range of the integer types */
} types[] = {{"", "", 0, 0, 0},
             {"char", "int8", 1, -128, 127},
             {"uchar", "uint8", 1, 0, 255},
             {"short", "int16", 2, -32768, 32767},
             {"ushort", "uint16", 2, 0, 65535},
             {"int", "int32", 4, -2147483648.0, 2147483647.0},
             {"uint", "uint32", 4, 0, 4294967295.0},
             {"float", "float32", 4, 0, 0},
             {"double", "float64", 8, 0, 0}};

typedef struct {
  char name[64];
  int type;       /* scalar type, or the item type of a list */
  int count_type; /* lists: the type of the count; 0 for scalars */
} ply_prop;

typedef struct {
  char name[64];
  long count, line; /* instances; header line */
  int n_props;
  ply_prop *props;
} ply_elem;

typedef struct {
  const char *name;
  cf_error *err;
  cf_meshframe *fr;
  const char *b;
  size_t len, pos; /* next byte */
  long line;       /* line of the next byte (header, ascii body) */
  int binary;      /* -1 until the format line */
  ply_elem *el;
  int n_el;
  int vertex, face, xyz[3], list; /* roles: element and property indices (face -1: none) */
  int points;                      /* a point cloud: vertices only, faces read past */
  /* what is being read, for messages */
  const ply_elem *cur;
  long inst;
  const char *prop;
  long at; /* line or byte offset of the value being read */
} ply_state;

typedef struct {
  const char *s, *t;
} tok;

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n'; }

static int tok_is(tok k, const char *w) { return (size_t)(k.t - k.s) == strlen(w) && !memcmp(k.s, w, (size_t)(k.t - k.s)); }

static int hfail(ply_state *st, const char *fmt, tok k) {
  char q[64];
  return cf_meshframe_fail(st->err, st->name, 0, st->line, fmt, cf_meshframe_quote(k.s, k.t, q, sizeof q));
}

/* ---------------------------------------------------------------- header */
/* The next header line split into up to 8 tokens; returns the count, -1 at
 * the end of the file. */
static int header_line(ply_state *st, tok *k) {
  if (st->pos >= st->len) return -1;
  const char *s = st->b + st->pos, *nl = memchr(s, '\n', st->len - st->pos), *e = nl ? nl : st->b + st->len;
  st->line++;
  st->pos = (size_t)(e - st->b) + (nl != NULL);
  int n = 0;
  for (const char *p = s; p < e && n < 8;) {
    while (p < e && is_space(*p)) p++;
    if (p == e) break;
    k[n].s = p;
    while (p < e && !is_space(*p)) p++;
    k[n++].t = p;
  }
  return n;
}

static int type_of(tok k) {
  for (int i = 1; i <= PT_F64; i++)
    if (tok_is(k, types[i].name) || tok_is(k, types[i].alias)) return i;
  return 0;
}

static void copy_name(char *dst, size_t size, tok k) {
  size_t n = (size_t)(k.t - k.s) < size - 1 ? (size_t)(k.t - k.s) : size - 1;
  memcpy(dst, k.s, n);
  dst[n] = 0;
}

static int format_line(ply_state *st, const tok *k, int n) {
  if (n < 2) return cf_meshframe_fail(st->err, st->name, 0, st->line, "format line without a format");
  if (tok_is(k[1], "ascii")) st->binary = 0;
  else if (tok_is(k[1], "binary_little_endian")) st->binary = 1;
  else if (tok_is(k[1], "binary_big_endian"))
    return hfail(st, "unsupported format %s: expected ascii or binary_little_endian", k[1]);
  else return hfail(st, "unknown format %s: expected ascii or binary_little_endian", k[1]);
  return CF_OK;
}

static int element_line(ply_state *st, const tok *k, int n) {
  char *end;
  if (n != 3) return cf_meshframe_fail(st->err, st->name, 0, st->line, "expected 'element NAME COUNT'");
  long c = *k[2].s >= '0' && *k[2].s <= '9' ? strtol(k[2].s, &end, 10) : -1;
  if (c < 0 || end != k[2].t || c > INT_MAX / 4)
    return hfail(st, "element count: expected a whole number (at most 536870911), found %s", k[2]);
  ply_elem *el = realloc(st->el, sizeof(ply_elem) * (st->n_el + 1));
  if (!el) return cf_meshframe_fail(st->err, st->name, 0, st->line, "out of memory");
  st->el = el;
  el += st->n_el++;
  memset(el, 0, sizeof *el);
  copy_name(el->name, sizeof el->name, k[1]);
  el->count = c, el->line = st->line;
  return CF_OK;
}

static int property_line(ply_state *st, const tok *k, int n) {
  if (!st->n_el) return cf_meshframe_fail(st->err, st->name, 0, st->line, "property before any element line");
  int list = n > 1 && tok_is(k[1], "list");
  if (n != (list ? 5 : 3))
    return cf_meshframe_fail(st->err, st->name, 0, st->line, "expected 'property TYPE NAME' or "
                             "'property list COUNT_TYPE ITEM_TYPE NAME'");
  int ct = list ? type_of(k[2]) : 0, t = type_of(k[list ? 3 : 1]);
  if (list && !ct) return hfail(st, "unknown list count type %s", k[2]);
  if (!t) return hfail(st, "unknown property type %s (expected char, uchar, short, ushort, int, uint, float, double)",
                       k[list ? 3 : 1]);
  ply_elem *el = &st->el[st->n_el - 1];
  ply_prop *p = realloc(el->props, sizeof(ply_prop) * (el->n_props + 1));
  if (!p) return cf_meshframe_fail(st->err, st->name, 0, st->line, "out of memory");
  el->props = p;
  p += el->n_props++;
  copy_name(p->name, sizeof p->name, k[n - 1]);
  p->type = t, p->count_type = ct;
  return CF_OK;
}

static int header(ply_state *st) {
  tok k[8];
  int n = header_line(st, k);
  if (n < 0) return cf_meshframe_fail(st->err, st->name, 0, 1, "empty file: expected a PLY header ('ply')");
  if (n != 1 || !tok_is(k[0], "ply"))
    return hfail(st, "expected 'ply' (not a PLY file), found %s", n ? k[0] : (tok){st->b, st->b});
  for (int rc; (n = header_line(st, k)) >= 0;) {
    if (n == 0 || tok_is(k[0], "comment") || tok_is(k[0], "obj_info")) continue;
    if (tok_is(k[0], "end_header")) {
      if (st->binary < 0) return cf_meshframe_fail(st->err, st->name, 0, st->line, "no 'format' line in the header");
      return CF_OK;
    }
    if (tok_is(k[0], "format")) rc = format_line(st, k, n);
    else if (tok_is(k[0], "element")) rc = element_line(st, k, n);
    else if (tok_is(k[0], "property")) rc = property_line(st, k, n);
    else rc = hfail(st, "unknown header line %s: expected format, comment, element, property or end_header", k[0]);
    if (rc) return rc;
  }
  return cf_meshframe_fail(st->err, st->name, 0, st->line, "the file ends inside the header (expected end_header)");
}

/* ----------------------------------------------------------------- roles */
static int find_prop(const ply_elem *el, const char *name) {
  for (int i = 0; i < el->n_props; i++)
    if (!strcmp(el->props[i].name, name)) return i;
  return -1;
}

static int find_elem(ply_state *st, const char *name, int *idx) {
  *idx = -1;
  for (int i = 0; i < st->n_el; i++) {
    if (strcmp(st->el[i].name, name)) continue;
    if (*idx >= 0)
      return cf_meshframe_fail(st->err, st->name, 0, st->el[i].line, "a second 'element %s' (first at line %ld)", name,
                               st->el[*idx].line);
    *idx = i;
  }
  if (*idx < 0)
    return cf_meshframe_fail(st->err, st->name, 0, st->line, "no 'element %s' in the header (expected vertex "
                             "positions%s)", name, st->points ? "" : " and faces");
  return CF_OK;
}

static int vertex_role(ply_state *st) {
  const ply_elem *el = &st->el[st->vertex];
  for (int c = 0; c < 3; c++) {
    const char *nm = c == 0 ? "x" : c == 1 ? "y" : "z";
    int i = st->xyz[c] = find_prop(el, nm);
    if (i < 0 || el->props[i].count_type)
      return cf_meshframe_fail(st->err, st->name, 0, el->line, "element vertex has no scalar property '%s'", nm);
  }
  return CF_OK;
}

static int face_role(ply_state *st) {
  const ply_elem *el = &st->el[st->face];
  int i = st->list = find_prop(el, "vertex_indices");
  if (i < 0) i = st->list = find_prop(el, "vertex_index");
  if (i < 0 || !el->props[i].count_type)
    return cf_meshframe_fail(st->err, st->name, 0, el->line, "element face has no list property 'vertex_indices' "
                             "or 'vertex_index'");
  const ply_prop *p = &el->props[i];
  if (p->count_type >= PT_F32 || p->type >= PT_F32)
    return cf_meshframe_fail(st->err, st->name, 0, el->line, "face list '%s': expected integer count and index "
                             "types, found %s %s", p->name, types[p->count_type].name, types[p->type].name);
  return CF_OK;
}

/* The body must be able to hold what the header declares: each instance
 * takes at least its scalars and list counts (binary), or one byte per
 * property (ascii).  Bounds every allocation by the file's size. */
static int check_sizes(ply_state *st) {
  size_t rest = st->len - st->pos, need = 0;
  for (int e = 0; e < st->n_el; e++) {
    const ply_elem *el = &st->el[e];
    size_t min = 0;
    for (int i = 0; i < el->n_props; i++)
      min += st->binary ? (size_t)types[el->props[i].count_type ? el->props[i].count_type : el->props[i].type].size : 1;
    if (min && (size_t)el->count > (rest - need) / min)
      return cf_meshframe_fail(st->err, st->name, st->binary, st->binary ? (long)st->pos : st->line,
                               "the header (line %ld) declares %ld '%s' elements of at least %zu bytes each, but only "
                               "%zu bytes follow for them (lying header or truncated file)", el->line, el->count,
                               el->name, min, rest - need);
    need += min * (size_t)el->count;
  }
  return CF_OK;
}

static int roles(ply_state *st) {
  int rc = find_elem(st, "vertex", &st->vertex);
  st->face = -1;
  if (!rc && !st->points) rc = find_elem(st, "face", &st->face);
  if (!rc) rc = vertex_role(st);
  if (!rc && !st->points) rc = face_role(st);
  if (!rc) rc = check_sizes(st);
  size_t faces = st->face >= 0 ? (size_t)st->el[st->face].count : 0;
  if (!rc && !cf_meshframe_reserve(st->fr, (size_t)st->el[st->vertex].count, faces))
    rc = cf_meshframe_fail(st->err, st->name, 0, st->line, "out of memory");
  return rc;
}

/* ------------------------------------------------------------------ body */
/* "<file>: line|byte offset N: <element> I of N, property 'P': ..." */
__attribute__((format(printf, 2, 3))) static int vfail(ply_state *st, const char *fmt, ...) {
  char where[200];
  snprintf(where, sizeof where, "%s %ld of %ld, property '%s': ", st->cur->name, st->inst + 1, st->cur->count,
           st->prop);
  va_list ap;
  va_start(ap, fmt);
  int rc = cf_meshframe_vfail(st->err, st->name, st->binary, st->at, where, fmt, ap);
  va_end(ap);
  return rc;
}

/* ascii: past white space, counting lines. */
static void skip_space(ply_state *st) {
  for (; !st->binary && st->pos < st->len && is_space(st->b[st->pos]); st->pos++) st->line += st->b[st->pos] == '\n';
}

static double decode(const unsigned char *p, int type) {
  uint64_t u = 0;
  for (int i = types[type].size - 1; i >= 0; i--) u = u << 8 | p[i];
  uint32_t w = (uint32_t)u;
  float f;
  double d;
  switch (type) {
  case PT_I8: return (int8_t)u;
  case PT_U8: return (uint8_t)u;
  case PT_I16: return (int16_t)u;
  case PT_U16: return (uint16_t)u;
  case PT_I32: return (int32_t)u;
  case PT_U32: return w;
  case PT_F32: memcpy(&f, &w, 4); return f;
  default: memcpy(&d, &u, 8); return d;
  }
}

static int binary_value(ply_state *st, int type, double *v) {
  st->at = (long)st->pos;
  if ((size_t)types[type].size > st->len - st->pos)
    return vfail(st, "unexpected end of data, expected %d more byte(s) (the header declares more than the file "
                 "holds: truncated file?)", types[type].size);
  *v = decode((const unsigned char *)st->b + st->pos, type);
  st->pos += (size_t)types[type].size;
  return CF_OK;
}

static int ascii_value(ply_state *st, int type, double *v) {
  skip_space(st);
  const char *p = st->b + st->pos, *e = st->b + st->len, *s = p;
  st->at = st->line;
  if (p == e) return vfail(st, "end of file, expected a value (the header declares more than the file holds)");
  while (p < e && !is_space(*p)) p++;
  st->pos = (size_t)(p - st->b);
  char *end, q[64];
  *v = strtod(s, &end);
  int bad = end != p || (type < PT_F32 && (*v != floor(*v) || *v < types[type].lo || *v > types[type].hi));
  if (bad) return vfail(st, "expected %s, found %s", type < PT_F32 ? "an integer in the range of its type" : "a number",
                        cf_meshframe_quote(s, p, q, sizeof q));
  return CF_OK;
}

static int value(ply_state *st, int type, double *v) {
  return st->binary ? binary_value(st, type, v) : ascii_value(st, type, v);
}

static int list_count(ply_state *st, const ply_prop *p, long *n) {
  double c;
  int rc = value(st, p->count_type, &c);
  if (rc) return rc;
  size_t room = st->len - st->pos, item = st->binary ? (size_t)types[p->type].size : 1;
  if (!(c >= 0) || c != floor(c)) /* a float count type may hold NaN or 2.5 */
    return vfail(st, "list count %.17g: expected a whole number >= 0", c);
  if (c > (double)(room / item))
    return vfail(st, "a list of %.17g items needs at least %.17g more bytes, the file has %zu (truncated file or lying "
                 "header?)", c, c * (double)item, room);
  *n = (long)c;
  return CF_OK;
}

static int face_list(ply_state *st, const ply_prop *p, long at) {
  long n = 0;
  int idx[4], rc = list_count(st, p, &n);
  if (rc) return rc;
  if (n != 3 && n != 4) return cf_meshframe_add_face(st->fr, NULL, (int)n, at, st->name, st->err);
  for (long i = 0; i < n; i++) {
    double v;
    if ((rc = value(st, p->type, &v))) return rc;
    if (v < 0 || v > INT_MAX) return vfail(st, "face vertex %ld: index %.17g out of range", i + 1, v);
    idx[i] = (int)v;
  }
  return cf_meshframe_add_face(st->fr, idx, (int)n, at, st->name, st->err);
}

static int skip_list(ply_state *st, const ply_prop *p) {
  long n = 0;
  double v;
  int rc = list_count(st, p, &n);
  for (long i = 0; !rc && i < n; i++) rc = value(st, p->type, &v);
  return rc;
}

/* One instance of element e. */
static int instance(ply_state *st, int e) {
  const ply_elem *el = &st->el[e];
  double x[3] = {0, 0, 0}, v;
  skip_space(st);
  long at = st->binary ? (long)st->pos : st->line;
  int rc = CF_OK;
  for (int i = 0; !rc && i < el->n_props; i++) {
    const ply_prop *p = &el->props[i];
    st->prop = p->name;
    if (e == st->face && i == st->list) rc = face_list(st, p, at);
    else if (p->count_type) rc = skip_list(st, p);
    else if (!(rc = value(st, p->type, &v)) && e == st->vertex)
      for (int c = 0; c < 3; c++)
        if (i == st->xyz[c]) {
          if (!isfinite(v)) return vfail(st, "expected a finite coordinate, found %g", v);
          x[c] = v;
        }
  }
  if (!rc && e == st->vertex) cf_meshframe_add_node(st->fr, x);
  return rc;
}

static int body(ply_state *st) {
  st->line++; /* the body starts on the line after end_header */
  for (int e = 0; e < st->n_el; e++) {
    st->cur = &st->el[e];
    if (st->cur->n_props == 0) continue;
    for (st->inst = 0; st->inst < st->cur->count; st->inst++) {
      int rc = instance(st, e);
      if (rc) return rc;
    }
  }
  skip_space(st);
  const char *p = st->b + st->pos, *end = st->b + st->len;
  if (p < end)
    return cf_meshframe_fail(st->err, st->name, st->binary, st->binary ? (long)(p - st->b) : st->line,
                             "%zu byte(s) of data after the last element: the header declares less than the file "
                             "holds", (size_t)(end - p));
  return CF_OK;
}

static int parse(const char *buf, size_t len, const char *name, int points, cf_meshframe *fr, cf_error *err) {
  memset(fr, 0, sizeof *fr);
  ply_state st;
  memset(&st, 0, sizeof st);
  st.name = name, st.err = err, st.fr = fr, st.b = buf, st.len = len, st.binary = -1, st.points = points;
  int rc = header(&st);
  fr->binary = st.binary == 1;
  if (!rc) rc = roles(&st);
  if (!rc) fr->nodes_at = st.el[st.vertex].line, fr->faces_at = st.face >= 0 ? st.el[st.face].line : 0;
  if (!rc) rc = body(&st);
  if (!rc && points && fr->n_nodes == 0)
    rc = cf_meshframe_fail(err, name, 0, st.el[st.vertex].line, "'element vertex 0': no points in the file (an "
                           "empty cloud)");
  if (!rc && !points) rc = cf_meshframe_finish(fr, st.el[st.vertex].line, name, err);
  for (int e = 0; e < st.n_el; e++) free(st.el[e].props);
  free(st.el);
  if (rc) cf_meshframe_free(fr);
  return rc;
}

int cf_ply_parse(const char *buf, size_t len, const char *name, cf_meshframe *fr, cf_error *err) {
  return parse(buf, len, name, 0, fr, err);
}

int cf_ply_parse_points(const char *buf, size_t len, const char *name, cf_meshframe *fr, cf_error *err) {
  return parse(buf, len, name, 1, fr, err);
}
