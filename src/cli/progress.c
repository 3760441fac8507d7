/* progress.c — see progress.h. */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

double cf_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

void cf_progress_start(cf_progress *p, const char *label, long total) {
  const char *env = getenv("CLOTHFIT_PROGRESS");
  p->label = label;
  p->total = total > 0 ? total : 1;
  p->start = p->last = cf_now();
  p->tty = isatty(2);
  p->enabled = env ? atoi(env) != 0 : p->tty;
  p->shown = 0;
}

void cf_progress_update(cf_progress *p, long done) {
  if (!p->enabled) return;
  double t = cf_now();
  /* a terminal: the bar redrawn 4 times a second; a log: a line every 10 s */
  if (t - p->start < 2.0 || t - p->last < (p->tty ? 0.25 : 10.0)) return;
  p->last = t;
  double f = (double)done / p->total, eta = f > 0 ? (t - p->start) * (1 - f) / f : 0;
  double rate = done / (t - p->start);
  if (!p->tty) {
    fprintf(stderr, "%s: %ld of %ld done, %.3g/s, ETA %.0f s\n", p->label, done, p->total, rate, eta);
    return;
  }
  int w = 24, k = (int)(f * w);
  fprintf(stderr, "\r%s [", p->label);
  for (int i = 0; i < w; i++) fputc(i < k ? '#' : '.', stderr);
  fprintf(stderr, "] %ld/%ld %.3g/s ETA %4.0f s ", done, p->total, rate, eta);
  p->shown = 1;
}

void cf_progress_end(cf_progress *p) {
  if (p->shown) fprintf(stderr, "\r%*s\r", 78, "");
}
