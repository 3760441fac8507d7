/* motive_internal.h — shared state of the Motive CSV reader: motive.c
 * streams the bytes through libcsv and reads the data rows; motive_header.c
 * interprets the metadata row and the Type/Name/ID/Parent/Position/Frame
 * header rows.  Not part of the public API. */
#ifndef CF_MOTIVE_INTERNAL_H
#define CF_MOTIVE_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "cf_io.h"

#define MV_MAX_LINE (1u << 20) /* bytes; a longer line is an error */
#define MV_MAX_HEADER_ROWS 8   /* rows between the metadata row and 'Frame' */

typedef struct {
  char **cells;
  int n, cap;
  long line;
} mv_row;

typedef struct {
  int k, axis; /* marker and axis (0..2) of a data column; k < 0: skipped */
} mv_col;

typedef struct mv_state mv_state;

/* What differs between the CSV formats read with this machinery (Motive
 * exports; generic marker CSV in csv_generic.c): names in messages, the
 * header, the lead columns. */
typedef struct {
  const char *kind;       /* source_kind of the recording: "motive" | "csv" */
  const char *what;       /* "a Motive CSV export" */
  const char *header_row; /* "the 'Frame' row" */
  const char *no_header;  /* why a file that ends before the header is wrong */
  /* Interpret header record r; sets phase 2 (and the columns) at the last
   * header row.  NULL: the Motive header rows (motive_header.c). */
  int (*header)(mv_state *st, mv_row *r);
} mv_format;

struct mv_state {
  /* inputs */
  const mv_format *fmt;
  const char *name;
  const cf_motive_opts *opts;
  cf_error *err;
  int rc; /* first error, stops everything */
  /* stream position */
  long line;         /* 1-based line being fed to libcsv */
  long last_line;    /* line of the last complete record */
  size_t line_bytes; /* bytes of that line so far */
  size_t total_bytes;
  /* header */
  int phase;         /* 0: metadata row, 1: header rows, 2: data rows */
  mv_row cur;        /* the record being read (phases 0-1) */
  mv_row hdr[MV_MAX_HEADER_ROWS];
  int n_hdr;
  cf_kv *info;
  int n_info;
  double unit_scale;
  long frames_expected; /* "Total Exported Frames", -1 if absent */
  long frame_line;      /* line of the 'Frame' row */
  /* columns */
  int ncols, n_lead; /* cells per row; leading Frame/Time(/TimeCode) cells */
  mv_col *cols;
  int K;
  char **names;
  int *first_col; /* 0-based column of each marker's X */
  /* data */
  int cell;        /* cell index within the current data row */
  double t_row;    /* time of the current data row */
  double f_row, f_first, f_prev; /* Frame number of the current, first and previous rows */
  int f_jumps;     /* rows whose Frame number is not the previous one + 1 */
  double *row;     /* [K*3] values of the current row, source units and axes */
  double *time, *pos;
  int T;
  size_t cap;      /* frames allocated */
  char *seen;      /* [K] 1 if the marker has a sample somewhere */
  int time_col, frame_col; /* 0-based lead columns (frame_col -1: none) */
  const char *time_label;  /* the time column in messages */
  const void *user;        /* the format's own options */
};

/* Error helpers: "<file>: line L[, column C]: message"; return the code
 * and remember it in st->rc (only the first error is kept). */
int mv_fail(mv_state *st, long line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A cell quoted for a message: at most 40 characters, non-printables as '?'. */
const char *mv_quote(const char *s, char *buf, size_t size);
int mv_eq(const char *a, const char *b); /* case-insensitive equality */

/* Where the bytes come from: buf[len] or f. */
typedef struct {
  const char *buf;
  size_t len;
  FILE *f;
} mv_source;

/* Read src into rec with the state st (fmt, name, opts, err set; the rest
 * zero): libcsv streaming, data rows, the recording.  Frees the state. */
int mv_run(mv_state *st, const mv_source *src, cf_recording *rec);
/* Open path and mv_run it with a state prepared by init(st, user). */
int mv_run_file(const char *path, void (*init)(mv_state *st, void *user), void *user, cf_recording *rec,
                cf_error *err);
/* A cell as a finite number: 1 (in *v), 0 if blank, -1 otherwise. */
int mv_parse_number(const char *s, size_t len, double *v);
/* A new marker named name whose first column is j (0-based). */
int mv_new_marker(mv_state *st, const char *name, int j);
/* Append a key/value pair of the source's header (the recording's info). */
int mv_add_info(mv_state *st, const char *k, const char *v);

/* motive_header.c */
int mv_metadata_row(mv_state *st, const mv_row *r);
int mv_frame_row(mv_state *st, const mv_row *frame);
int mv_header_row(mv_state *st, mv_row *r); /* stores r (taking its cells) */
void mv_row_clear(mv_row *r);
#endif
