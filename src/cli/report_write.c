/* report_write.c — the report of a results file as `clothfit report` and
 * `clothfit experiment` write it (fit_cli.h "Reports"): src/report's
 * writer with gnuplot when it is on PATH and the figures' progress on
 * stderr, and the exit status that a missing gnuplot or a failed figure
 * gives.  Nothing is allocated beyond the call; the errors are one line. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cf_report.h"
#include "fit_cli.h"

/* Progress of the figures on stderr (docs/report.md): on a terminal one
 * line rewritten after each figure (done/total, ETA, the figure), ended by
 * a newline; when CLOTHFIT_PROGRESS=1 forces it into a file or pipe, a line
 * at every tenth of the figures and at the last, so logs stay short. */
typedef struct {
  int tty;
  double start;
} progress_state;

static void progress(void *user, int done, int total, const char *figure) {
  progress_state *p = user;
  int step = total >= 10 ? total / 10 : 1;
  if (!p->tty && done % step && done != total) return;
  double t = cf_now() - p->start, eta = done ? t * (total - done) / done : 0;
  fprintf(stderr, "%sclothfit report: figures %d/%d  %.0f s, ETA %.0f s  %-28.28s%s", p->tty ? "\r" : "", done,
          total, t, eta, figure, p->tty && done < total ? "" : "\n");
  fflush(stderr);
}

static int progress_wanted(void) {
  const char *env = getenv("CLOTHFIT_PROGRESS");
  return env ? atoi(env) != 0 : isatty(2);
}

int cf_cli_report_write(const char *cmd, const char *results_path, const cf_results *r, const char *dir, int workers,
                        const double *times, int n_times, cf_report_summary *s, int *have_gnuplot) {
  char gnuplot[4096];
  *have_gnuplot = cf_report_find_program("gnuplot", gnuplot, sizeof gnuplot);
  progress_state ps = {isatty(2), cf_now()};
  cf_report_opts o = {.results_path = results_path,
                      .gnuplot = *have_gnuplot ? gnuplot : NULL,
                      .progress = progress_wanted() ? progress : NULL,
                      .user = &ps,
                      .jobs = workers,
                      .times = times,
                      .n_times = n_times};
  cf_error err = {0, ""};
  if (cf_report_write(r, dir, &o, s, &err)) return cf_cli_fail(cmd, "%s", err.msg), 2;
  return 0;
}

int cf_cli_report_status(const char *cmd, const cf_report_summary *s, int have_gnuplot) {
  if (!have_gnuplot && s->figures_planned) return cf_cli_fail(cmd, "gnuplot not found: figures skipped (install gnuplot)");
  if (s->figures_failed)
    return cf_cli_fail(cmd, "%d of %d figures failed; the first: %s", s->figures_failed, s->figures_planned, s->failure);
  return 0;
}
