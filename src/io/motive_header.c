/* motive_header.c — the header of a Motive CSV export:
 *   line 1   key/value metadata (Format Version, Length Units, ...)
 *   (blank)
 *   Type / Name / ID (/ Parent) rows: labelled in a leading cell from 1.23
 *            on, unlabelled (positional) in 1.21
 *   the Rotation/Position row, then `Frame, Time (Seconds)[, TimeCode], X, Y, Z...`
 * and the map from data columns to markers; and the reader's one error report,
 * mv_fail, used by motive.c and csv_generic.c too. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "motive_internal.h"

/* The first error of a read: "NAME: line L[, column C]: what", CF_EFORMAT (or
 * CF_ENOMEM for "out of memory ..."); later errors keep the first. */
int mv_fail(mv_state *st, long line, int col, const char *fmt, ...) {
  if (st->rc) return st->rc;
  char what[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  int code = strncmp(what, "out of memory", 13) ? CF_EFORMAT : CF_ENOMEM;
  if (col > 0) cf_error_set(st->err, code, "%s: line %ld, column %d: %s", st->name, line, col, what);
  else cf_error_set(st->err, code, "%s: line %ld: %s", st->name, line, what);
  st->rc = code;
  return code;
}

void mv_row_clear(mv_row *r) {
  for (int i = 0; i < r->n; i++) free(r->cells[i]);
  free(r->cells);
  memset(r, 0, sizeof *r);
}

static const char *cell(const mv_row *r, int j) { return r && j < r->n ? r->cells[j] : ""; }

static int starts_with(const char *s, const char *prefix) {
  return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/* ------------------------------------------------------------ metadata row */
int mv_add_info(mv_state *st, const char *k, const char *v) {
  cf_kv *n = realloc(st->info, sizeof(cf_kv) * (st->n_info + 1));
  if (!n) return mv_fail(st, 1, 0, "out of memory");
  st->info = n;
  n[st->n_info].key = strdup(k);
  n[st->n_info].value = strdup(v);
  if (!n[st->n_info].key || !n[st->n_info].value) {
    free(n[st->n_info].key);
    free(n[st->n_info].value);
    return mv_fail(st, 1, 0, "out of memory");
  }
  st->n_info++;
  return CF_OK;
}

static int length_units(mv_state *st, const char *v, int col) {
  static const struct {
    const char *name;
    double scale;
  } units[] = {{"Millimeters", 1e-3}, {"Millimetres", 1e-3}, {"mm", 1e-3}, {"Centimeters", 1e-2},
               {"Centimetres", 1e-2}, {"cm", 1e-2},          {"Meters", 1},   {"Metres", 1},
               {"m", 1}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (mv_eq(v, units[i].name)) {
      st->unit_scale = units[i].scale;
      return CF_OK;
    }
  char q[64];
  return mv_fail(st, 1, col, "unknown Length Units %s (expected Millimeters, Centimeters or Meters)",
                 mv_quote(v, q, sizeof q));
}

static int frames_expected(mv_state *st, const char *v, int col) {
  char *end;
  long n = strtol(v, &end, 10);
  if (end == v || *end || n < 0) {
    char q[64];
    return mv_fail(st, 1, col, "Total Exported Frames %s is not a frame count", mv_quote(v, q, sizeof q));
  }
  st->frames_expected = n;
  return CF_OK;
}

int mv_metadata_row(mv_state *st, const mv_row *r) {
  char q[64];
  if (!mv_eq(cell(r, 0), "Format Version"))
    return mv_fail(st, r->line, 1, "not a Motive CSV export: expected the metadata row to start with "
                   "'Format Version', found %s", mv_quote(cell(r, 0), q, sizeof q));
  int have_units = 0;
  for (int j = 0; j < r->n && !st->rc; j += 2) {
    const char *k = cell(r, j), *v = cell(r, j + 1);
    if (!*k) continue;
    if (mv_add_info(st, k, v)) break;
    if (mv_eq(k, "Length Units")) {
      have_units = 1;
      length_units(st, v, j + 2);
    } else if (mv_eq(k, "Total Exported Frames")) {
      frames_expected(st, v, j + 2);
    }
  }
  if (!st->rc && !have_units)
    mv_fail(st, r->line, 0, "no 'Length Units' key in the metadata row (expected Millimeters, Centimeters or Meters)");
  return st->rc;
}

/* ------------------------------------------------------------- header rows */
static int looks_numeric(const char *s) {
  if (!*s) return 0;
  char *end;
  strtod(s, &end);
  return *end == 0;
}

int mv_header_row(mv_state *st, mv_row *r) {
  char q[64];
  const char *c0 = cell(r, 0);
  if (starts_with(c0, "Time"))
    return mv_fail(st, r->line, 1, "expected the 'Frame' column first, found %s: the Frame column is missing",
                   mv_quote(c0, q, sizeof q));
  if (looks_numeric(c0))
    return mv_fail(st, r->line, 1, "data row before the 'Frame,Time (Seconds),...' column header: "
                   "the header is truncated or the Frame column is missing");
  if (st->n_hdr == MV_MAX_HEADER_ROWS)
    return mv_fail(st, r->line, 1, "expected the 'Frame,Time (Seconds),...' row within %d rows of the "
                   "metadata, found %s", MV_MAX_HEADER_ROWS, mv_quote(c0, q, sizeof q));
  st->hdr[st->n_hdr++] = *r;
  memset(r, 0, sizeof *r);
  return CF_OK;
}

/* Label of a Type/Name/ID/Parent row: the first non-empty leading cell. */
static const char *row_label(const mv_row *r, int n_lead) {
  for (int j = 0; j < n_lead; j++)
    if (*cell(r, j)) return cell(r, j);
  return NULL;
}

static int all_empty(const mv_row *r) {
  for (int j = 0; j < r->n; j++)
    if (*r->cells[j]) return 0;
  return 1;
}

typedef struct {
  const mv_row *type, *name, *kind;
} header_rows;

/* Find the Type and Name rows (by label, or by position when no row is
 * labelled, as in 1.21) and the Rotation/Position row (the last one). */
static int pick_rows(mv_state *st, header_rows *h) {
  long fl = st->frame_line;
  if (st->n_hdr < 2)
    return mv_fail(st, fl, 0, "truncated header: expected Type, Name, ID and Rotation/Position rows "
                   "before the 'Frame' row, found %d row(s)", st->n_hdr);
  h->kind = &st->hdr[st->n_hdr - 1];
  int n = st->n_hdr - 1, labelled = 0;
  for (int i = 0; i < n; i++) labelled |= row_label(&st->hdr[i], st->n_lead) != NULL;
  for (int i = 0; i < n; i++) {
    const mv_row *r = &st->hdr[i];
    const char *l = labelled ? row_label(r, st->n_lead) : (i == 0 ? "Type" : i == 1 ? "Name" : "");
    if (l && mv_eq(l, "Type") && !h->type) h->type = r;
    if (l && mv_eq(l, "Name") && !h->name) h->name = r;
  }
  if (!h->type || !h->name)
    return mv_fail(st, fl, 0, "truncated header: no '%s' row before the 'Frame' row",
                   h->type ? "Name" : "Type");
  for (int i = 0; i < st->n_hdr; i++)
    if (st->hdr[i].n != st->ncols && !all_empty(&st->hdr[i]))
      return mv_fail(st, st->hdr[i].line, 0, "header row has %d cells, the 'Frame' row (line %ld) has %d",
                     st->hdr[i].n, fl, st->ncols);
  return CF_OK;
}

/* --------------------------------------------------------- column mapping */
static int wanted_type(const mv_state *st, const char *type) {
  if (mv_eq(type, "Marker")) return 1;
  return st->opts->rigid_bodies && (mv_eq(type, "Rigid Body Marker") || mv_eq(type, "Rigid Body"));
}

static int axis_of(const char *a) {
  return mv_eq(a, "X") ? 0 : mv_eq(a, "Y") ? 1 : mv_eq(a, "Z") ? 2 : -1;
}

int mv_new_marker(mv_state *st, const char *name, int j) {
  int K = st->K;
  char **nn = realloc(st->names, sizeof(char *) * (K + 1));
  if (nn) st->names = nn;
  int *fc = nn ? realloc(st->first_col, sizeof(int) * (K + 1)) : NULL;
  if (fc) st->first_col = fc;
  char *s = fc ? strdup(name) : NULL;
  if (!s) return mv_fail(st, st->frame_line, j + 1, "out of memory for marker names");
  st->names[K] = s;
  st->first_col[K] = j;
  st->K++;
  return CF_OK;
}

/* Column j (0-based) of a wanted marker type, Position kind and axis a. */
static int marker_column(mv_state *st, const header_rows *h, int j, int a) {
  char q[64];
  const char *name = cell(h->name, j);
  if (!*name) return mv_fail(st, h->name->line, j + 1, "marker column without a name");
  int k = st->K - 1;
  int same = k >= 0 && !strcmp(st->names[k], name) && st->cols[j - 1].k == k;
  if (same) {
    for (int i = st->first_col[k]; i < j; i++)
      if (st->cols[i].axis == a)
        return mv_fail(st, st->frame_line, j + 1, "duplicate marker name %s: a second %c column (first at column %d)",
                       mv_quote(name, q, sizeof q), "XYZ"[a], i + 1);
  } else {
    if (mv_new_marker(st, name, j)) return st->rc;
    k = st->K - 1;
  }
  st->cols[j].k = k;
  st->cols[j].axis = a;
  return CF_OK;
}

static int check_axes(mv_state *st) {
  char q[64];
  for (int k = 0; k < st->K; k++) {
    int have = 0;
    for (int j = st->first_col[k]; j < st->ncols && st->cols[j].k == k; j++) have |= 1 << st->cols[j].axis;
    for (int a = 0; a < 3; a++)
      if (!(have & (1 << a)))
        return mv_fail(st, st->frame_line, st->first_col[k] + 1, "marker %s has no %c column",
                       mv_quote(st->names[k], q, sizeof q), "XYZ"[a]);
  }
  return CF_OK;
}

static const mv_state *sort_state;
static int by_name(const void *a, const void *b) {
  return strcmp(sort_state->names[*(const int *)a], sort_state->names[*(const int *)b]);
}

static int check_duplicates(mv_state *st, long name_line) {
  int *idx = malloc(sizeof(int) * (st->K + 1));
  if (!idx) return mv_fail(st, st->frame_line, 0, "out of memory");
  for (int k = 0; k < st->K; k++) idx[k] = k;
  sort_state = st;
  qsort(idx, st->K, sizeof(int), by_name);
  for (int i = 1; i < st->K && !st->rc; i++) {
    int a = idx[i - 1] < idx[i] ? idx[i - 1] : idx[i], b = idx[i - 1] < idx[i] ? idx[i] : idx[i - 1];
    char q[64];
    if (!strcmp(st->names[a], st->names[b]))
      mv_fail(st, name_line, st->first_col[b] + 1, "duplicate marker name %s (also at column %d)",
              mv_quote(st->names[a], q, sizeof q), st->first_col[a] + 1);
  }
  free(idx);
  return st->rc;
}

static int map_columns(mv_state *st, const header_rows *h, const mv_row *frame) {
  st->cols = malloc(sizeof(mv_col) * st->ncols);
  if (!st->cols) return mv_fail(st, st->frame_line, 0, "out of memory");
  for (int j = 0; j < st->ncols; j++) st->cols[j] = (mv_col){-1, -1};
  for (int j = st->n_lead; j < st->ncols && !st->rc; j++) {
    int a = axis_of(cell(frame, j));
    if (a >= 0 && wanted_type(st, cell(h->type, j)) && mv_eq(cell(h->kind, j), "Position"))
      marker_column(st, h, j, a);
  }
  if (!st->rc) check_axes(st);
  if (!st->rc) check_duplicates(st, h->name->line);
  if (!st->rc && st->K == 0 && !st->opts->allow_empty)
    mv_fail(st, h->type->line, 0, "no markers: the Type row lists no 'Marker' position columns%s",
            st->opts->rigid_bodies ? "" : " (rigid bodies are ignored unless asked for)");
  return st->rc;
}

int mv_frame_row(mv_state *st, const mv_row *frame) {
  char q[64];
  st->frame_line = frame->line;
  st->ncols = frame->n;
  if (!starts_with(cell(frame, 1), "Time"))
    return mv_fail(st, frame->line, 2, "expected the 'Time (Seconds)' column, found %s",
                   mv_quote(cell(frame, 1), q, sizeof q));
  st->n_lead = mv_eq(cell(frame, 2), "TimeCode") ? 3 : 2;
  header_rows h = {NULL, NULL, NULL};
  if (pick_rows(st, &h) || map_columns(st, &h, frame)) return st->rc;
  st->row = malloc(sizeof(double) * 3 * (st->K + 1));
  st->seen = calloc((size_t)st->K + 1, 1);
  if (!st->row || !st->seen) return mv_fail(st, frame->line, 0, "out of memory");
  return CF_OK;
}

int mv_eq(const char *a, const char *b) { return strcasecmp(a, b) == 0; }

const char *mv_quote(const char *s, char *buf, size_t size) {
  size_t n = 0, max = size > 48 ? 40 : size - 8;
  buf[n++] = '\'';
  for (; *s && n < max; s++) buf[n++] = isprint((unsigned char)*s) ? *s : '?';
  if (*s) buf[n++] = '.', buf[n++] = '.', buf[n++] = '.';
  buf[n++] = '\'';
  buf[n] = 0;
  return buf;
}
