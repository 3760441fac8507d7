/* cf_report.h — the public API of src/report: the report of a results file
 * (docs/design.md §10) — tables in CSV, Markdown and LaTeX, figures drawn by
 * gnuplot, a self-contained HTML page.
 *
 * Above src/study and below src/cli in the data flow (files -> recording ->
 * simulation/fit -> results -> report).  A report only reads what a results
 * file stores (cf_results of src/io): it never simulates, never fits, and
 * links nothing but src/io.  Figures are drawn by gnuplot run as a separate
 * process, one script per figure kept beside its data and images so that a
 * figure can be restyled by editing its script and running gnuplot again
 * (docs/report.md).  Conventions (errors, ownership) as stated in cf_io.h. */
#ifndef CF_REPORT_H
#define CF_REPORT_H

#include <stddef.h>

#include "cf_io.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CF_REPORT_MAX_TIMES = 12 };

typedef struct {
  const char *results_path; /* the results file, named in titles (may be NULL) */
  const char *gnuplot;      /* the gnuplot executable; NULL: write every figure's
                             * script and data but draw none */
  /* Called after each figure is drawn (or has failed): done of total, in the
   * order they finish (several are drawn at once). */
  void (*progress)(void *user, int done, int total, const char *figure);
  void *user;
  int jobs;                 /* gnuplot runs at once; 0: one per core */
  /* The instants (s from the start, at most CF_REPORT_MAX_TIMES) of every
   * recording's snapshots, each drawn at its nearest frame; NULL: 4 spread
   * over each recording.  One outside a recording that has snapshots is an
   * error (CF_EINVAL naming it), found before anything is written. */
  const double *times;
  int n_times;
} cf_report_opts;

typedef struct {
  int tables;            /* tables written, each as .csv, .md and .tex */
  int figures;           /* figures drawn (SVG and PNG, or a GIF) */
  int figures_planned;   /* figures whose script and data were written */
  int figures_failed;    /* gnuplot runs that failed */
  char failure[512];     /* the first of those failures, "" if none */
  char index[4200];      /* OUT/index.html */
  char markdown[4200];   /* OUT/report.md */
} cf_report_summary;

/* Write the report of r into the folder dir (created when missing):
 *   tables/<id>.{csv,md,tex}   Tables A.1 (repetition I and recordings of no
 *                              other repetition), A.2 (repetition II, when
 *                              there is one), 4.5 (means by group), 4.6
 *                              (regression) and 4.9 (the formulas' values
 *                              per recording beside the optima), when r has
 *                              a regression
 *   figures/<id>.{gp,dat}      per recording: the error surface of the sweep,
 *                              the per-frame errors at the optimum, the
 *                              sensitivity map or scan (when stored), the
 *                              recorded vs simulated markers in 3-D at the
 *                              instants o->times and as an animation (when
 *                              the series stores the markers); with a
 *                              regression, the optima against V and rho with
 *                              the formulas (study-{delta,alpha}-{V,rho})
 *   figures/<id>.{svg,png}     drawn by o->gnuplot (when given); the
 *   figures/<id>.gif           animation as a GIF only
 *   report.md, index.html      every table, and the figures that were drawn
 * Every file is written atomically (temporary name, then rename); report.md
 * and index.html last.  A figure whose gnuplot run fails is counted in sum
 * (and left out of the pages); the call still returns CF_OK.  Errors
 * (CF_EIO: a file or folder cannot be written) name the path; CF_EINVAL:
 * an instant of o->times outside a recording, nothing written. */
int cf_report_write(const cf_results *r, const char *dir, const cf_report_opts *o, cf_report_summary *sum,
                    cf_error *err);

/* The full path of the executable name found on $PATH into buf; 0 if none. */
int cf_report_find_program(const char *name, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
