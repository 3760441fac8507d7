/* progress.c — the progress and notes of the pipeline's steps
 * (cf_pipeline_progress, pipeline_internal.h). */
#include <stdarg.h>
#include <stdio.h>

#include "pipeline_internal.h"

static void count_fn(long done, long total, void *user) {
  (void)total;
  const cf_pl_count *c = user;
  cf_pl_update(c->pr, c->offset + done);
}

const cf_fit_progress *cf_pl_count_start(cf_pl_count *c, const cf_pipeline_progress *pr, long offset) {
  c->pr = pr, c->offset = offset;
  c->fp.fn = count_fn, c->fp.user = c;
  return pr ? &c->fp : NULL;
}

void cf_pl_stage(const cf_pipeline_progress *pr, const char *label, long total) {
  if (pr && pr->stage) pr->stage(pr->user, label, total);
}

void cf_pl_update(const cf_pipeline_progress *pr, long done) {
  if (pr && pr->update) pr->update(pr->user, done);
}

void cf_pl_note(const cf_pipeline_progress *pr, const char *fmt, ...) {
  if (!pr || !pr->note || cf_dist_rank() != 0) return; /* under mpirun: once */
  char text[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  pr->note(pr->user, text);
}
