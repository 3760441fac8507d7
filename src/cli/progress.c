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
  p->enabled = env ? atoi(env) != 0 : isatty(2);
  p->shown = 0;
}

void cf_progress_update(cf_progress *p, long done) {
  if (!p->enabled) return;
  double t = cf_now();
  if (t - p->start < 2.0 || t - p->last < 0.25) return;
  p->last = t;
  double f = (double)done / p->total, eta = f > 0 ? (t - p->start) * (1 - f) / f : 0;
  int w = 30, k = (int)(f * w);
  fprintf(stderr, "\r%s [", p->label);
  for (int i = 0; i < w; i++) fputc(i < k ? '#' : '.', stderr);
  fprintf(stderr, "] %5.1f%%  ETA %4.0f s ", 100 * f, eta);
  p->shown = 1;
}

void cf_progress_end(cf_progress *p) {
  if (p->shown) fprintf(stderr, "\r%*s\r", 70, "");
}
