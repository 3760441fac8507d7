/* csv_generic.c — generic marker CSV files (docs/design.md §6): a header
 * row naming a time column and x, y, z columns per marker ("{name}_{axis}" by default),
 * then one row a frame.  The bytes go through the Motive reader's libcsv
 * machinery (motive.c), so line tracking, data cells, ragged rows, times,
 * units, axes and messages are shared; only the header differs.  Also the
 * writer of the same format. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "motive_internal.h"

void cf_csv_opts_default(cf_csv_opts *o) {
  o->time_column = "time";
  o->pattern = "{name}_{axis}";
  o->unit_scale = 1;
  o->up = 'z';
}

/* ----------------------------------------------------------------- pattern */
typedef struct {
  char pre[64], mid[64], post[64];
  int axis_first;
} pattern;

/* Split "PRE{name}MID{axis}POST" (or with {axis} first); 0 if malformed. */
static int parse_pattern(const char *s, pattern *p) {
  const char *n = strstr(s, "{name}"), *a = strstr(s, "{axis}");
  if (!n || !a || strstr(n + 1, "{name}") || strstr(a + 1, "{axis}")) return 0;
  const char *first = n < a ? n : a, *second = n < a ? a : n;
  size_t lp = (size_t)(first - s), lm = (size_t)(second - first - 6), lq = strlen(second + 6);
  if (lp >= sizeof p->pre || lm >= sizeof p->mid || lq >= sizeof p->post) return 0;
  memcpy(p->pre, s, lp), p->pre[lp] = 0;
  memcpy(p->mid, first + 6, lm), p->mid[lm] = 0;
  memcpy(p->post, second + 6, lq + 1);
  p->axis_first = a < n;
  return 1;
}

static int axis_index(char c) {
  const char *axes = "xyzXYZ", *at = c ? strchr(axes, c) : NULL;
  return at ? (int)(at - axes) % 3 : -1;
}

/* Match a header cell: 1 with the marker name (malloc'ed) and axis. */
static int match(const pattern *p, const char *cell, char **name, int *axis) {
  size_t len = strlen(cell), lp = strlen(p->pre), lm = strlen(p->mid), lq = strlen(p->post);
  if (len < lp + lm + lq + 2 || strncmp(cell, p->pre, lp) || strcmp(cell + len - lq, p->post)) return 0;
  const char *core = cell + lp;
  size_t lc = len - lp - lq;
  const char *ax = p->axis_first ? core : core + lc - 1, *mid = p->axis_first ? core + 1 : core + lc - 1 - lm;
  const char *nm = p->axis_first ? core + 1 + lm : core;
  if ((*axis = axis_index(*ax)) < 0 || strncmp(mid, p->mid, lm)) return 0;
  *name = strndup(nm, lc - 1 - lm);
  return *name != NULL;
}

/* ------------------------------------------------------------------ header */
typedef struct {
  cf_csv_opts o;
  cf_motive_opts mopts;
  pattern pat;
} csv_ctx;

typedef struct {
  char *name;
  int axis, col;
} column;

static int by_name_col(const void *x, const void *y) {
  const column *a = x, *b = y;
  int c = strcmp(a->name, b->name);
  return c ? c : (a->col > b->col) - (a->col < b->col);
}

/* Column j of the header: the time column or a marker coordinate. */
static int header_cell(mv_state *st, const mv_row *r, int j, column *c, int *n) {
  const csv_ctx *x = st->user;
  char q[64], qp[64];
  if (!strcasecmp(r->cells[j], x->o.time_column)) {
    if (st->time_col >= 0)
      return mv_fail(st, r->line, j + 1, "a second time column %s (first at column %d)",
                     mv_quote(r->cells[j], q, sizeof q), st->time_col + 1);
    st->time_col = j;
    return CF_OK;
  }
  if (!match(&x->pat, r->cells[j], &c[*n].name, &c[*n].axis))
    return mv_fail(st, r->line, j + 1, "column %s is neither the time column '%s' nor a marker coordinate "
                   "matching %s (axis x, y or z)", mv_quote(r->cells[j], q, sizeof q), x->o.time_column,
                   mv_quote(x->o.pattern, qp, sizeof qp));
  c[(*n)++].col = j;
  return CF_OK;
}

/* Group the columns by marker: each axis exactly once; markers in the
 * order of their first column. */
static int group_columns(mv_state *st, long line, column *c, int n) {
  char q[64];
  qsort(c, (size_t)n, sizeof(column), by_name_col);
  int *first = malloc(sizeof(int) * (n + 1)), groups = 0;
  if (!first) return mv_fail(st, line, 0, "out of memory");
  for (int i = 0; i < n && !st->rc; i++) {
    int g = i, have = 0;
    for (; i < n && !strcmp(c[i].name, c[g].name); i++) {
      if (have & (1 << c[i].axis))
        mv_fail(st, line, c[i].col + 1, "marker %s has a second %c column", mv_quote(c[g].name, q, sizeof q),
                "xyz"[c[i].axis]);
      have |= 1 << c[i].axis;
    }
    for (int a = 0; a < 3 && !st->rc; a++)
      if (!(have & (1 << a)))
        mv_fail(st, line, c[g].col + 1, "marker %s has no %c column", mv_quote(c[g].name, q, sizeof q), "xyz"[a]);
    first[groups++] = g, i--;
  }
  for (int done = 0; done < groups && !st->rc; done++) { /* markers by first column */
    int best = -1;
    for (int g = 0; g < groups; g++)
      if (first[g] >= 0 && (best < 0 || c[first[g]].col < c[first[best]].col)) best = g;
    for (int i = first[best]; i < n && !strcmp(c[i].name, c[first[best]].name); i++)
      st->cols[c[i].col] = (mv_col){st->K, c[i].axis};
    mv_new_marker(st, c[first[best]].name, c[first[best]].col);
    first[best] = -1;
  }
  free(first);
  return st->rc;
}

static int header_columns(mv_state *st, const mv_row *r, column *c) {
  const csv_ctx *x = st->user;
  int n = 0;
  for (int j = 0; j < r->n && !st->rc; j++) header_cell(st, r, j, c, &n);
  if (!st->rc && st->time_col < 0)
    mv_fail(st, r->line, 0, "no time column '%s' in the header row (name it with --time-column)", x->o.time_column);
  if (!st->rc && n == 0) mv_fail(st, r->line, 0, "no marker columns in the header row");
  if (!st->rc) group_columns(st, r->line, c, n);
  for (int i = 0; i < n; i++) free(c[i].name);
  return st->rc;
}

static int csv_header(mv_state *st, mv_row *r) {
  const csv_ctx *x = st->user;
  st->frame_line = r->line;
  st->ncols = r->n;
  st->cols = malloc(sizeof(mv_col) * (r->n + 1));
  column *c = malloc(sizeof(column) * (r->n + 1));
  if (!st->cols || !c) return free(c), mv_fail(st, r->line, 0, "out of memory");
  for (int j = 0; j < r->n; j++) st->cols[j] = (mv_col){-1, -1};
  header_columns(st, r, c);
  free(c);
  if (st->rc) return st->rc;
  st->row = malloc(sizeof(double) * 3 * (st->K + 1));
  st->seen = calloc((size_t)st->K + 1, 1);
  if (!st->row || !st->seen) return mv_fail(st, r->line, 0, "out of memory");
  if (mv_add_info(st, "Time Column", x->o.time_column) || mv_add_info(st, "Columns Pattern", x->o.pattern)) return st->rc;
  st->phase = 2;
  return CF_OK;
}

/* --------------------------------------------------------------- reading */
static const mv_format csv_format = {"csv", "a marker CSV file (a header row, then one row a frame)",
                                     "the header row", "no header row: the file has no CSV record", csv_header};

static void generic_init(mv_state *st, void *user) {
  csv_ctx *x = user;
  st->fmt = &csv_format, st->opts = &x->mopts, st->user = x;
  st->frame_col = -1, st->time_col = -1, st->time_label = x->o.time_column;
  st->unit_scale = x->o.unit_scale;
}

static int prepare(csv_ctx *x, const cf_csv_opts *o, const char *name, cf_recording *rec, cf_error *err) {
  cf_csv_opts_default(&x->o);
  if (o) x->o = *o;
  cf_motive_opts_default(&x->mopts);
  x->mopts.up = x->o.up;
  cf_recording_init(rec);
  if (!x->o.time_column || !x->o.time_column[0])
    return cf_error_set(err, CF_EINVAL, "%s: empty time column name", name);
  if (!x->o.pattern || !parse_pattern(x->o.pattern, &x->pat))
    return cf_error_set(err, CF_EINVAL, "%s: columns pattern '%s': expected one {name} and one {axis} (e.g. "
                        "'{name}_{axis}')", name, x->o.pattern ? x->o.pattern : "");
  if (!(x->o.unit_scale > 0)) return cf_error_set(err, CF_EINVAL, "%s: the unit scale must be > 0", name);
  return CF_OK;
}

int cf_csv_read(const char *path, const cf_csv_opts *o, cf_recording *rec, cf_error *err) {
  csv_ctx x;
  int rc = prepare(&x, o, path, rec, err);
  return rc ? rc : mv_run_file(path, generic_init, &x, rec, err);
}

int cf_csv_read_mem(const void *buf, size_t len, const char *name, const cf_csv_opts *o, cf_recording *rec,
                    cf_error *err) {
  csv_ctx x;
  name = name ? name : "<memory>";
  int rc = prepare(&x, o, name, rec, err);
  if (rc) return rc;
  mv_state st;
  memset(&st, 0, sizeof st);
  generic_init(&st, &x);
  st.name = name, st.err = err;
  mv_source src = {buf, len, NULL};
  return mv_run(&st, &src, rec);
}

/* ---------------------------------------------------------------- writing */
static void put_cell(FILE *f, const char *s, const char *suffix) {
  if (strpbrk(s, ",\"\r\n") == NULL) {
    fprintf(f, "%s%s", s, suffix);
    return;
  }
  fputc('"', f);
  for (; *s; s++) fputs(*s == '"' ? "\"\"" : (char[2]){*s, 0}, f);
  fprintf(f, "%s\"", suffix);
}

static void write_rows(FILE *f, const cf_recording *r) {
  fputs("time", f);
  for (int k = 0; k < r->n_markers; k++)
    for (int a = 0; a < 3; a++) {
      fputc(',', f);
      put_cell(f, r->names[k], a == 0 ? "_x" : a == 1 ? "_y" : "_z");
    }
  fputc('\n', f);
  for (int i = 0; i < r->n_frames; i++) {
    fprintf(f, "%.17g", r->time[i]);
    for (size_t k = 0; k < (size_t)r->n_markers; k++) {
      const double *p = r->pos + 3 * ((size_t)r->n_markers * i + k);
      int miss = p[0] != p[0] || p[1] != p[1] || p[2] != p[2];
      if (miss) fputs(",,,", f);
      else fprintf(f, ",%.17g,%.17g,%.17g", p[0], p[1], p[2]);
    }
    fputc('\n', f);
  }
}

int cf_csv_write(const char *path, const cf_recording *r, cf_error *err) {
  char tmp[4096];
  if (cf_io_ensure_parent(path, err)) return CF_EIO;
  cf_io_tmpname(path, tmp, sizeof tmp);
  FILE *f = fopen(tmp, "w");
  if (!f) return cf_error_set(err, CF_EIO, "%s: cannot create: %s", path, strerror(errno));
  write_rows(f, r);
  int ok = !ferror(f);
  ok = fclose(f) == 0 && ok;
  if (!ok) {
    cf_io_commit(tmp, path, 0, err);
    return cf_error_set(err, CF_EIO, "%s: write error", path);
  }
  return cf_io_commit(tmp, path, 1, err);
}
