/* report_internal.h — what the files of src/report share: a growing text
 * buffer, atomic file writes, the tables (cells as text, so that every
 * format shows the same rounding) and the figures. */
#ifndef CF_REPORT_INTERNAL_H
#define CF_REPORT_INTERNAL_H

#include <stddef.h>

#include "cf_report.h"

/* ------------------------------------------------------------ text buffer */
typedef struct {
  char *s;
  size_t n, cap;
  int oom; /* an allocation failed: the text is incomplete */
} cf_rbuf;

void cf_rbuf_puts(cf_rbuf *b, const char *s);
void cf_rbuf_printf(cf_rbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cf_rbuf_free(cf_rbuf *b);
/* ", mesh split S" (cf_res_model_split_text) when m's mesh is not the
 * default 2 x 2 split, appended to b (the figures' data headers). */
void cf_rbuf_mesh(cf_rbuf *b, const cf_res_model *m);
/* Write b to path atomically; CF_EIO naming the path on failure. */
int cf_report_write_file(const char *path, const cf_rbuf *b, cf_error *err);
/* Escapes for the formats: HTML text and attributes (also breaking "://"
 * so that no text ever reads as a web address), LaTeX text, a Markdown table
 * cell, a gnuplot single-quoted string. */
void cf_rbuf_html(cf_rbuf *b, const char *s);
void cf_rbuf_tex(cf_rbuf *b, const char *s);
void cf_rbuf_md(cf_rbuf *b, const char *s);
void cf_rbuf_gp(cf_rbuf *b, const char *s);

/* ----------------------------------------------------------------- tables */
typedef struct {
  char id[32];          /* file stem in tables/: "table_a1" */
  char title[512];      /* UTF-8, for Markdown and HTML */
  char title_tex[512];  /* LaTeX markup of the same */
  char note[512];       /* a line under the table, "" if none */
  int ncol, nrow, cap;
  const char **head;    /* [ncol] column names (static strings) */
  const char *align;    /* [ncol] 'l' or 'r' */
  char **cell;          /* [nrow*ncol] malloc'ed; "" = no value */
} cf_rtable;

/* The tables of r (A.1, A.2, 4.5, 4.6 as present) into *t (malloc'ed, *n). */
int cf_report_tables(const cf_results *r, cf_rtable **t, int *n, cf_error *err);
void cf_report_tables_free(cf_rtable *t, int n);
/* One table in each format, appended to b. */
void cf_rtable_csv(const cf_rtable *t, cf_rbuf *b);
void cf_rtable_md(const cf_rtable *t, cf_rbuf *b);
void cf_rtable_tex(const cf_rtable *t, cf_rbuf *b);
void cf_rtable_html(const cf_rtable *t, cf_rbuf *b);

/* The number formats of the tables (and of the figures' legends). */
#define CF_RFMT_ERR "%.3f"  /* errors and stds (cm), R*, E* */
#define CF_RFMT_PAR "%.4f"  /* delta, alpha, coefficients */
#define CF_RFMT_IN "%.4f"   /* the formulas' inputs S, V (m^2/s^2), rho (kg/m^2) */

/* ---------------------------------------------------------------- figures */
typedef struct {
  char id[320];        /* file stem in figures/ */
  char rec[256];       /* the recording */
  char kind[16];       /* "surface" | "series" | "sensitivity" | "snapshots" | "animation" | "study" */
  char caption[768];   /* UTF-8 */
  int drawn;
  int width, height;   /* pixels (0: 800 x 600) */
  int gif, delay;      /* an animation drawn as <id>.gif only (no SVG, PNG); its frame delay (1/100 s) */
} cf_rfigure;

/* Write figures/<id>.dat and .gp of every figure of r into figdir (the
 * folder exists); *f malloc'ed, *n. */
int cf_report_figures_write(const cf_results *r, const cf_report_opts *o, const char *figdir, cf_rfigure **f,
                            int *n, cf_error *err);
/* The same for the study's figures (study_figures.c: the optima against V
 * and rho with the regression's formulas, when r has a regression),
 * appended to *f (realloc'ed), *n. */
int cf_report_study_figures_write(const cf_results *r, const char *results_path, const char *figdir, cf_rfigure **f,
                                  int *n, cf_error *err);

/* The pieces of a figure's script (gnuplot.c).  The head: what it draws,
 * how to redraw it, going to its own folder, the first terminal (SVG of f's
 * size, or the animated GIF) and the title (f's caption); the PNG terminal
 * of f's size that follows an SVG; the tail: the same plot again as PNG
 * (800 x 600, replot). */
void cf_rfig_head(cf_rbuf *g, const cf_rfigure *f, const char *what, const char *results_path);
void cf_rfig_png(cf_rbuf *g, const cf_rfigure *f);
void cf_rfig_tail(cf_rbuf *g);
/* A plot command built one element at a time: "'<id>.dat' index K <spec>
 * title 'TITLE'" (notitle when title is NULL), joined by a comma and a continued line. */
typedef struct {
  cf_rbuf *g;
  const char *id;
  int n;
} cf_rplot;
void cf_rplot_item(cf_rplot *p, int index, const char *spec, const char *title);

/* The 3-D figures of recording c from the markers its series stores
 * (snapshots.c): <stem>-snapshots (recorded markers and the simulated
 * lattice at chosen instants, SVG and PNG) and <stem>-animation (GIF):
 * scripts and data written into figdir, appended to f[*n] (room for
 * CF_SNAPSHOT_FIGURES more).  Nothing when c stores no markers. */
enum { CF_SNAPSHOT_FIGURES = 2, CF_SNAPSHOT_MAX = CF_REPORT_MAX_TIMES };
int cf_report_snapshots_write(const cf_res_rec *c, const char *stem, const cf_report_opts *o, const char *figdir,
                              cf_rfigure *f, int *n, cf_error *err);
/* CF_EINVAL naming the time and the recording when an instant of o->times
 * lies outside a recording that has snapshots. */
int cf_report_snapshots_check(const cf_results *r, const cf_report_opts *o, cf_error *err);
/* A note on the recordings whose figures have no snapshots (no markers
 * stored at their optimum) into buf; 0 if there is none. */
int cf_report_snapshots_note(const cf_results *r, char *buf, size_t size);
/* Write figdir/<id>.dat (d) and figdir/<id>.gp (g), each atomically. */
int cf_rfig_write(const char *figdir, const cf_rfigure *f, const cf_rbuf *d, const cf_rbuf *g, cf_error *err);
/* Draw f[0..n) (cf_report_figure_draw), o->jobs at a time (0: one per
 * core) in child processes (draw.c); marks the drawn ones, counts into sum
 * (figures, figures_failed, failure: of the first in f's order that
 * failed) and calls o->progress as each finishes. */
void cf_report_figures_draw(const char *gnuplot, const char *figdir, cf_rfigure *f, int n, const cf_report_opts *o,
                            cf_report_summary *sum);
/* Run gnuplot on figure f's script: SVG and PNG (an animation: GIF) under temporary names,
 * renamed into place on success.  0, or non-zero with why (gnuplot's last
 * line on stderr, or how it ended) in reason. */
int cf_report_figure_draw(const char *gnuplot, const char *figdir, const cf_rfigure *f, char *reason,
                          size_t size);

/* A file name made of name's letters, digits, '.', '_' and '-' (others
 * become '_', a leading '.' or '-' too) into buf. */
void cf_report_file_stem(const char *name, char *buf, size_t size);

#endif
