/* cloud_text.c — the two text inputs of a point-cloud recording: an XYZ
 * frame (one point a line) and the grippers' track (a CSV of time and the
 * coordinates of 1 to CF_HELD_MAX grippers, their count from the header).  Both read from memory (also the libFuzzer
 * targets of tests/fuzz); buf[len] must be NUL.  Messages name the file and
 * the line and say what was expected. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meshseq_internal.h"

/* The next line of [*p, end) as [s, e) without its newline and '\r'; 0 at
 * the end. */
static int next_line(const char **p, const char *end, const char **s, const char **e) {
  if (*p >= end) return 0;
  const char *nl = memchr(*p, '\n', (size_t)(end - *p));
  *s = *p, *e = nl ? nl : end;
  *p = nl ? nl + 1 : end;
  if (*e > *s && (*e)[-1] == '\r') (*e)--;
  return 1;
}

static int is_sep(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\v' || c == '\f' || c == '\r'; }

/* ------------------------------------------------------------------- XYZ */
/* One point line [s, e) (comment removed, not blank). */
static int xyz_point(const char *s, const char *e, long line, const char *name, cf_meshframe *fr, cf_error *err) {
  double x[3];
  char q[64];
  int n = 0;
  for (const char *p = s; p < e && n < 3;) {
    while (p < e && is_sep(*p)) p++;
    if (p == e) break;
    const char *t = p;
    while (t < e && !is_sep(*t)) t++;
    char tok[64], *end;
    size_t w = (size_t)(t - p);
    if (w < sizeof tok) memcpy(tok, p, w);
    tok[w < sizeof tok ? w : 0] = 0;
    x[n] = strtod(tok, &end);
    if (w >= sizeof tok || end != tok + w || !isfinite(x[n]))
      return cf_meshframe_fail(err, name, 0, line, "coordinate %d: expected a finite number, found %s", n + 1,
                               cf_meshframe_quote(p, t, q, sizeof q));
    n++, p = t;
  }
  if (n < 3) return cf_meshframe_fail(err, name, 0, line, "%d number(s), expected 'x y z'", n);
  if (!cf_meshframe_reserve(fr, 1, 0)) return cf_meshframe_fail(err, name, 0, line, "out of memory");
  cf_meshframe_add_node(fr, x);
  return CF_OK;
}

int cf_xyz_parse(const char *buf, size_t len, const char *name, cf_meshframe *fr, cf_error *err) {
  memset(fr, 0, sizeof *fr);
  long line = 0;
  int rc = CF_OK;
  const char *p = buf, *s, *e;
  while (!rc && next_line(&p, buf + len, &s, &e)) {
    line++;
    if (memchr(s, 0, (size_t)(e - s))) {
      rc = cf_meshframe_fail(err, name, 0, line, "NUL byte: expected a text XYZ file ('x y z' a line)");
      break;
    }
    const char *hash = memchr(s, '#', (size_t)(e - s));
    if (hash) e = hash;
    while (s < e && is_sep(*s)) s++;
    if (s < e) rc = xyz_point(s, e, line, name, fr, err);
  }
  if (!rc && fr->n_nodes == 0)
    rc = cf_meshframe_fail(err, name, 0, line > 0 ? line : 1, "no points in the file (an empty cloud): expected "
                           "'x y z' lines");
  if (rc) cf_meshframe_free(fr);
  return rc;
}

/* ------------------------------------------------------- held-corner track */
static int blank(const char *s, const char *e) {
  while (s < e && is_sep(*s) && *s != ',') s++;
  return s == e;
}

/* The names a robot's log gives its time column, in seconds. */
static const char *const held_time_names[3] = {"time", "t", "timestamp"};

static int held_name_is(const char *f, const char *g, const char *name) {
  size_t w = strlen(name);
  return (size_t)(g - f) == w && !strncasecmp(f, name, w);
}

/* Column c's name: time (t, timestamp), then x1, y1, z1, x2 ... */
static int held_column_is(int c, const char *f, const char *g) {
  if (c > 0) {
    char name[8];
    snprintf(name, sizeof name, "%c%d", "xyz"[(c - 1) % 3], (c - 1) / 3 + 1);
    return held_name_is(f, g, name);
  }
  for (int k = 0; k < 3; k++)
    if (held_name_is(f, g, held_time_names[k])) return 1;
  return 0;
}

/* The header line [s, e): time and x, y, z of each gripper, blanks around
 * the names allowed, any letter case; the time column may be named time, t
 * or timestamp.  Returns the grippers (1..CF_HELD_MAX), 0 for names that
 * are not these, -1 for a column count that is not 1 + 3k (*cols: the count). */
static int held_header(const char *s, const char *e, int *cols) {
  int n = 1;
  for (const char *p = s; (p = memchr(p, ',', (size_t)(e - p))); p++) n++;
  *cols = n;
  if (n < 4 || (n - 1) % 3 || (n - 1) / 3 > CF_HELD_MAX) return -1;
  const char *p = s;
  for (int c = 0; c < n; c++) {
    const char *f = p, *t = memchr(p, ',', (size_t)(e - p));
    if (!t) t = e;
    while (f < t && is_sep(*f)) f++;
    const char *g = t;
    while (g > f && is_sep(g[-1])) g--;
    if (!held_column_is(c, f, g)) return 0;
    p = t + (t < e);
  }
  return (n - 1) / 3;
}

static int held_grow(cf_rec_held *h, int *cap) {
  if (h->n < *cap) return 1;
  int n = *cap ? 2 * *cap : 256;
  double *t = realloc(h->time, sizeof(double) * n);
  if (t) h->time = t;
  double *x = t ? realloc(h->track, sizeof(double) * 3 * h->n_grip * n) : NULL;
  if (x) h->track = x, *cap = n;
  return x != NULL;
}

/* One data line [s, e): 1 + 3 n_grip finite numbers, the time after the last. */
static int held_row(const char *s, const char *e, long line, long *prev_line, const char *name, double scale, char up,
                    cf_rec_held *h, int *cap, cf_error *err) {
  char row[4096], q[64];
  double v[1 + 3 * CF_HELD_MAX];
  int nv = 1 + 3 * h->n_grip;
  size_t w = (size_t)(e - s);
  int ok = w < sizeof row;
  if (ok) memcpy(row, s, w), row[w] = 0;
  if (!ok || !cf_text_doubles(row, nv, v))
    return cf_meshframe_fail(err, name, 0, line, "expected %d comma-separated finite numbers "
                             "(time and x, y, z of %d gripper%s, as the header), found %s", nv, h->n_grip,
                             h->n_grip > 1 ? "s" : "", cf_meshframe_quote(s, e, q, sizeof q));
  if (h->n && !(v[0] > h->time[h->n - 1]))
    return cf_meshframe_fail(err, name, 0, line, "time %.9g s is not after %.9g s (line %ld): the times must "
                             "increase", v[0], h->time[h->n - 1], *prev_line);
  if (!held_grow(h, cap)) return cf_meshframe_fail(err, name, 0, line, "out of memory");
  h->time[h->n] = v[0];
  ms_put_points(v + 1, h->n_grip, scale, up, h->track + 3 * (size_t)h->n_grip * h->n);
  h->n++;
  *prev_line = line;
  return CF_OK;
}

/* The header line 1: h->n_grip from it, or the error. */
static int held_header_line(const char *s, const char *e, const char *name, cf_rec_held *h, cf_error *err) {
  char q[64];
  int cols, g = held_header(s, e, &cols);
  if (g < 0)
    return cf_meshframe_fail(err, name, 0, 1, "%d column%s in the header %s: expected time and x, y, z per gripper, "
                             "1 + 3k columns for k = 1..%d grippers ('time,x1,y1,z1[,x2,y2,z2,...]')", cols,
                             cols > 1 ? "s" : "", cf_meshframe_quote(s, e, q, sizeof q), CF_HELD_MAX);
  if (g == 0)
    return cf_meshframe_fail(err, name, 0, 1, "expected the header 'time,x1,y1,z1[,x2,y2,z2,...]', found %s (the time "
                             "column may be named time, t or timestamp)", cf_meshframe_quote(s, e, q, sizeof q));
  h->n_grip = g;
  return CF_OK;
}

int cf_held_track_parse(const char *buf, size_t len, const char *name, double unit_scale, char up, cf_rec_held *h,
                        cf_error *err) {
  memset(h, 0, sizeof *h);
  long line = 0, prev = 0;
  int cap = 0, rc = CF_OK;
  const char *p = buf, *s, *e, *end = buf + len;
  while (!rc && next_line(&p, end, &s, &e)) {
    line++;
    if (memchr(s, 0, (size_t)(e - s))) rc = cf_meshframe_fail(err, name, 0, line, "NUL byte: expected a text CSV file");
    else if (line == 1) rc = held_header_line(s, e, name, h, err);
    else if (!blank(s, e)) rc = held_row(s, e, line, &prev, name, unit_scale, up, h, &cap, err);
  }
  if (!rc && line == 0) rc = cf_meshframe_fail(err, name, 0, 1, "empty file: expected the header "
                                               "'time,x1,y1,z1[,x2,y2,z2,...]' and a line per sample");
  if (!rc && h->n < 2)
    rc = cf_meshframe_fail(err, name, 0, line, "%d sample(s), expected at least 2 (the track is interpolated in "
                           "time)", h->n);
  if (rc) cf_rec_held_free(h);
  return rc;
}
