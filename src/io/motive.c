/* motive.c — Motive (OptiTrack) CSV reader: streams the bytes through
 * libcsv's callbacks (no line splitting of the whole file), keeps the
 * marker position columns, and turns them into a cf_recording in metres,
 * z up.  The header rows are interpreted in motive_header.c, which also
 * holds the reader's error report (mv_fail): motive.c builds on it. */
#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "motive_internal.h"

void cf_motive_opts_default(cf_motive_opts *o) {
  memset(o, 0, sizeof *o);
  o->up = 'y';
}

/* ------------------------------------------------------------------ cells */
/* 1: a finite number in *v; 0: blank; -1: anything else. */
int mv_parse_number(const char *s, size_t len, double *v) {
  char buf[80];
  if (len == 0) return 0;
  if (len >= sizeof buf) return -1;
  for (size_t i = 0; i < len; i++)
    if (!strchr("0123456789+-.eE", s[i]) || !s[i]) return -1;
  memcpy(buf, s, len);
  buf[len] = 0;
  char *end;
  errno = 0;
  *v = strtod(buf, &end);
  return end == buf + len && isfinite(*v) ? 1 : -1;
}

static int bad_cell(mv_state *st, const char *s, size_t len, const char *what) {
  char raw[48], q[64];
  size_t n = len < sizeof raw - 1 ? len : sizeof raw - 1;
  memcpy(raw, s ? s : "", s ? n : 0);
  raw[s ? n : 0] = 0;
  return mv_fail(st, st->line, st->cell + 1, "%s: expected a finite number, found %s", what,
                 mv_quote(raw, q, sizeof q));
}

static void data_cell(mv_state *st, const char *s, size_t len) {
  int j = st->cell;
  double v;
  if (j >= st->ncols) return; /* counted; ragged rows fail at the row's end */
  if (j == st->time_col || j == st->frame_col) {
    if (mv_parse_number(s, len, &v) != 1) bad_cell(st, s, len, j == st->time_col ? st->time_label : "Frame");
    else if (j == st->time_col) st->t_row = v;
    else st->f_row = v;
    return;
  }
  const mv_col *c = &st->cols[j];
  if (c->k < 0) return;
  int r = mv_parse_number(s, len, &v);
  if (r < 0) {
    char what[96], q[64];
    snprintf(what, sizeof what, "marker %s %c", mv_quote(st->names[c->k], q, sizeof q), "XYZ"[c->axis]);
    bad_cell(st, s, len, what);
  }
  st->row[3 * c->k + c->axis] = r ? v : NAN;
}

static void header_cell(mv_state *st, const char *s, size_t len) {
  mv_row *r = &st->cur;
  if (r->n == r->cap) {
    int cap = r->cap ? 2 * r->cap : 16;
    char **c = realloc(r->cells, sizeof(char *) * cap);
    if (!c) {
      mv_fail(st, st->line, r->n + 1, "out of memory");
      return;
    }
    r->cells = c;
    r->cap = cap;
  }
  char *copy = malloc(len + 1);
  if (!copy) {
    mv_fail(st, st->line, r->n + 1, "out of memory");
    return;
  }
  memcpy(copy, s ? s : "", s ? len : 0);
  copy[s ? len : 0] = 0;
  r->cells[r->n++] = copy;
}

static void cb_field(void *s, size_t len, void *data) {
  mv_state *st = data;
  if (st->rc) return;
  if (st->phase == 2) data_cell(st, s, len);
  else header_cell(st, s, len);
  st->cell++;
}

/* ------------------------------------------------------------------- rows */
static int grow_frames(mv_state *st) {
  size_t cap = st->cap ? 2 * st->cap : 256, K3 = 3 * (size_t)st->K;
  double *t = realloc(st->time, sizeof(double) * cap);
  if (t) st->time = t;
  double *p = t ? realloc(st->pos, sizeof(double) * (K3 * cap + 1)) : NULL;
  if (!p) return mv_fail(st, st->line, 0, "out of memory for %zu frames of %d markers", cap, st->K);
  st->pos = p;
  st->cap = cap;
  return CF_OK;
}

/* Store the current row: units to metres, Y-up to Z-up, a marker with any
 * blank coordinate is missing as a whole. */
static void store_row(mv_state *st) {
  double s = st->unit_scale, *out = st->pos + 3 * (size_t)st->K * st->T;
  for (int k = 0; k < st->K; k++) {
    const double *m = st->row + 3 * k;
    double *o = out + 3 * k;
    if (isnan(m[0]) || isnan(m[1]) || isnan(m[2])) {
      o[0] = o[1] = o[2] = NAN;
      continue;
    }
    st->seen[k] = 1;
    if (st->opts->up == 'y') {
      o[0] = s * m[0], o[1] = -s * m[2], o[2] = s * m[1];
    } else {
      o[0] = s * m[0], o[1] = s * m[1], o[2] = s * m[2];
    }
  }
  st->time[st->T++] = st->t_row;
}

/* The Frame numbers: the first, and steps other than +1 (rows cut out). */
static void count_frame(mv_state *st) {
  if (st->frame_col < 0) return;
  if (st->T == 0) st->f_first = st->f_row;
  else if (st->f_row != st->f_prev + 1) st->f_jumps++;
  st->f_prev = st->f_row;
}

static void data_row(mv_state *st) {
  if (st->cell != st->ncols) {
    mv_fail(st, st->line, 0, "%d cells, expected %d as in %s (line %ld)", st->cell, st->ncols, st->fmt->header_row,
            st->frame_line);
    return;
  }
  if (st->T > 0 && !(st->t_row > st->time[st->T - 1])) {
    mv_fail(st, st->line, st->time_col + 1, "time %.9g s %s the previous frame's %.9g s: time stamps must increase",
            st->t_row, st->t_row == st->time[st->T - 1] ? "repeats" : "goes back from", st->time[st->T - 1]);
    return;
  }
  if ((size_t)st->T == st->cap && grow_frames(st)) return;
  count_frame(st);
  store_row(st);
}

static void header_record(mv_state *st) {
  st->cur.line = st->line;
  if (st->fmt->header) {
    st->fmt->header(st, &st->cur);
  } else if (st->phase == 0) {
    mv_metadata_row(st, &st->cur);
    st->phase = 1;
  } else if (st->cur.n > 0 && mv_eq(st->cur.cells[0], "Frame")) {
    if (!mv_frame_row(st, &st->cur)) st->phase = 2;
  } else {
    mv_header_row(st, &st->cur);
  }
  mv_row_clear(&st->cur);
}

static void cb_row(int c, void *data) {
  (void)c;
  mv_state *st = data;
  if (st->rc) return;
  if (st->phase == 2) data_row(st);
  else header_record(st);
  st->last_line = st->line;
  st->cell = 0;
  for (int i = 0; st->row && i < 3 * st->K; i++) st->row[i] = NAN;
}

/* ----------------------------------------------------------------- stream */
/* Check the bytes of one line segment: text only, at most MV_MAX_LINE. */
static int scan_segment(mv_state *st, const unsigned char *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = b[i];
    if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f)
      return mv_fail(st, st->line, 0, "binary data (byte 0x%02x at byte %zu of the line): not a CSV text file",
                     c, st->line_bytes + i + 1);
  }
  if (st->line_bytes + n > MV_MAX_LINE)
    return mv_fail(st, st->line, 0, "line longer than %u bytes: not %s (or a corrupt one)",
                   MV_MAX_LINE, st->fmt->what);
  return CF_OK;
}

static void csv_failure(mv_state *st, struct csv_parser *p, long line) {
  if (csv_error(p) == CSV_EPARSE)
    mv_fail(st, line, 0, "malformed CSV: a quote inside an unquoted cell, text after a closing quote, "
            "or a quoted cell not closed before the end of the file");
  else
    mv_fail(st, line, 0, "out of memory while parsing CSV (%s)", csv_strerror(csv_error(p)));
}

/* Feed buf to libcsv one line segment at a time, so the callbacks know the
 * line they are on. */
static int feed(mv_state *st, struct csv_parser *p, const char *buf, size_t len) {
  if (st->total_bytes == 0 && len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3)) buf += 3, len -= 3; /* BOM */
  st->total_bytes += len;
  while (len > 0 && !st->rc) {
    const char *nl = memchr(buf, '\n', len);
    size_t n = nl ? (size_t)(nl - buf) + 1 : len;
    if (scan_segment(st, (const unsigned char *)buf, n)) break;
    if (csv_parse(p, buf, n, cb_field, cb_row, st) != n && !st->rc)
      csv_failure(st, p, st->line);
    st->line_bytes += n;
    if (nl) st->line++, st->line_bytes = 0;
    buf += n;
    len -= n;
  }
  return st->rc;
}

/* ----------------------------------------------------------------- finish */
/* Remove the markers never seen (unless asked to keep them). */
static int drop_unseen(mv_state *st, cf_recording *rec) {
  int K = st->K, kept = 0;
  if (st->opts->keep_unseen) return CF_OK;
  for (int k = 0; k < K; k++) kept += st->seen[k];
  if (kept == K) return CF_OK;
  if (kept == 0 && !st->opts->allow_empty) {
    char q[64];
    return mv_fail(st, st->frame_line + 1, st->first_col[0] + 1, "no marker data: every cell of marker %s "
                   "and of the %d other marker(s) is blank", mv_quote(st->names[0], q, sizeof q), K - 1);
  }
  rec->dropped = malloc(sizeof(char *) * (K - kept));
  if (!rec->dropped) return mv_fail(st, st->line, 0, "out of memory");
  for (int i = 0; i < st->T; i++)
    for (int k = 0, o = 0; k < K; k++)
      if (st->seen[k]) memmove(st->pos + 3 * ((size_t)kept * i + o++), st->pos + 3 * ((size_t)K * i + k), 3 * sizeof(double));
  for (int k = 0, o = 0; k < K; k++) {
    if (st->seen[k]) st->names[o++] = st->names[k];
    else rec->dropped[rec->n_dropped++] = st->names[k];
  }
  st->K = kept;
  return CF_OK;
}

static int check_frames(mv_state *st) {
  if (st->total_bytes == 0) return mv_fail(st, 1, 0, "empty file: not %s", st->fmt->what);
  if (st->phase < 2) return mv_fail(st, st->last_line > 0 ? st->last_line : 1, 0, "%s", st->fmt->no_header);
  if (st->T == 0) return mv_fail(st, st->frame_line, 0, "no data frames after %s", st->fmt->header_row);
  if (st->opts->strict && st->frames_expected >= 0 && st->frames_expected != st->T)
    return mv_fail(st, st->last_line, 0, "%d data frames, but the metadata row says Total Exported Frames %ld "
                   "(truncated or edited export?)", st->T, st->frames_expected);
  return CF_OK;
}

/* What the frames say of an edited export (Motive files: with a Frame column). */
static void record_export(const mv_state *st, cf_rec_export *x) {
  if (st->frame_col < 0) return;
  x->known = 1;
  long n = st->frames_expected;
  x->frames_expected = n < 0 ? -1 : n > INT_MAX ? INT_MAX : (int)n;
  x->frames_found = st->T;
  x->first_frame_number = fabs(st->f_first) < INT_MAX ? (int)st->f_first : st->f_first > 0 ? INT_MAX : INT_MIN;
  x->frame_jumps = st->f_jumps;
  x->edited = (x->frames_expected >= 0 && x->frames_expected != x->frames_found) || st->f_first != 0 ||
              st->f_jumps > 0;
}

static int finish(mv_state *st, cf_recording *rec) {
  if (check_frames(st) || drop_unseen(st, rec)) return st->rc;
  record_export(st, &rec->exported);
  rec->n_frames = st->T;
  rec->n_markers = st->K;
  rec->time = st->time, st->time = NULL;
  rec->pos = st->pos, st->pos = NULL;
  rec->names = st->names, st->names = NULL;
  rec->info = st->info, st->info = NULL;
  rec->n_info = st->n_info, st->n_info = 0;
  rec->time_offset = rec->time[0];
  for (int i = 0; i < rec->n_frames; i++) rec->time[i] -= rec->time_offset;
  rec->dt = cf_median_step(rec->time, rec->n_frames);
  rec->uniform = 0;
  rec->up = st->opts->up;
  rec->unit_scale = st->unit_scale;
  snprintf(rec->source_kind, sizeof rec->source_kind, "%s", st->fmt->kind);
  snprintf(rec->source_file, sizeof rec->source_file, "%s", st->name);
  return CF_OK;
}

static void state_free(mv_state *st) {
  mv_row_clear(&st->cur);
  for (int i = 0; i < st->n_hdr; i++) mv_row_clear(&st->hdr[i]);
  for (int i = 0; i < st->n_info; i++) free(st->info[i].key), free(st->info[i].value);
  free(st->info);
  for (int k = 0; st->names && k < st->K; k++) free(st->names[k]);
  free(st->names);
  free(st->first_col);
  free(st->cols);
  free(st->row);
  free(st->time);
  free(st->pos);
  free(st->seen);
}

static void read_file(mv_state *st, struct csv_parser *p, FILE *f) {
  char *chunk = malloc(1 << 16);
  size_t n;
  if (!chunk) {
    mv_fail(st, st->line, 0, "out of memory");
    return;
  }
  while (!st->rc && (n = fread(chunk, 1, 1 << 16, f)) > 0) feed(st, p, chunk, n);
  if (!st->rc && ferror(f)) {
    cf_error_set(st->err, CF_EIO, "%s: line %ld: read error: %s", st->name, st->line, strerror(errno));
    st->rc = CF_EIO;
  }
  free(chunk);
}

int mv_run(mv_state *st, const mv_source *src, cf_recording *rec) {
  cf_recording_init(rec);
  st->line = 1, st->frames_expected = -1, st->unit_scale = st->unit_scale > 0 ? st->unit_scale : 1;
  if (st->opts->up != 'y' && st->opts->up != 'z')
    return cf_error_set(st->err, CF_EINVAL, "%s: up axis must be 'y' or 'z'", st->name);
  struct csv_parser p;
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
    return cf_error_set(st->err, CF_ENOMEM, "%s: csv_init failed", st->name);
  if (src->f) read_file(st, &p, src->f);
  else feed(st, &p, src->buf, src->len);
  if (!st->rc && csv_fini(&p, cb_field, cb_row, st) != 0 && !st->rc) csv_failure(st, &p, st->last_line + 1);
  csv_free(&p);
  if (!st->rc) finish(st, rec);
  state_free(st);
  if (st->rc) cf_recording_free(rec);
  return st->rc;
}

int mv_run_file(const char *path, void (*init)(mv_state *st, void *user), void *user, cf_recording *rec,
                cf_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    cf_recording_init(rec);
    return cf_error_set(err, CF_EIO, "%s: cannot open: %s", path, strerror(errno));
  }
  mv_state st;
  memset(&st, 0, sizeof st);
  init(&st, user);
  st.name = path, st.err = err;
  mv_source src = {NULL, 0, f};
  int rc = mv_run(&st, &src, rec);
  fclose(f);
  return rc;
}

/* ------------------------------------------------------------ Motive CSV */
static const mv_format motive_format = {
    "motive", "a Motive CSV export", "the 'Frame' row",
    "truncated header: the file ends before the 'Frame,Time (Seconds),...' row (expected Type, Name, ID and "
    "Rotation/Position rows, then Frame)",
    NULL};

static const cf_motive_opts motive_defaults = {'y', 0, 0, 0, 0};

static void motive_init(mv_state *st, void *opts) {
  st->fmt = &motive_format, st->opts = opts ? opts : &motive_defaults;
  st->frame_col = 0, st->time_col = 1, st->time_label = "Time";
}

int cf_motive_read_mem(const void *buf, size_t len, const char *name, const cf_motive_opts *o,
                       cf_recording *rec, cf_error *err) {
  mv_state st;
  memset(&st, 0, sizeof st);
  motive_init(&st, (void *)o);
  st.name = name ? name : "<memory>", st.err = err;
  mv_source src = {buf, len, NULL};
  return mv_run(&st, &src, rec);
}

int cf_motive_read(const char *path, const cf_motive_opts *o, cf_recording *rec, cf_error *err) {
  return mv_run_file(path, motive_init, (void *)o, rec, err);
}
