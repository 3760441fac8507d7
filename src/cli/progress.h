/* progress.h — a progress bar with ETA on stderr, shown only for work that
 * has taken more than 2 s and only when stderr is a terminal (or
 * CLOTHFIT_PROGRESS=1), so logs and pipes stay clean. */
#ifndef CF_PROGRESS_H
#define CF_PROGRESS_H
typedef struct {
  const char *label;
  long total;
  double start, last;
  int enabled, shown;
} cf_progress;
void cf_progress_start(cf_progress *p, const char *label, long total);
void cf_progress_update(cf_progress *p, long done);
void cf_progress_end(cf_progress *p);
double cf_now(void); /* monotonic seconds */
#endif
