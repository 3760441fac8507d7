/* progress.h — progress on stderr (items done of all, rate, ETA), shown
 * only for work that has taken more than 2 s: a bar redrawn in place when
 * stderr is a terminal; with CLOTHFIT_PROGRESS=1 and stderr a file (a
 * cluster job's log) one plain line every 10 s instead.  CLOTHFIT_PROGRESS=0
 * turns it off.  Under mpirun only rank 0 reports. */
#ifndef CF_PROGRESS_H
#define CF_PROGRESS_H
typedef struct {
  const char *label;
  long total;
  double start, last;
  int enabled, shown, tty;
} cf_progress;
void cf_progress_start(cf_progress *p, const char *label, long total);
void cf_progress_update(cf_progress *p, long done);
void cf_progress_end(cf_progress *p);
double cf_now(void); /* monotonic seconds */
#endif
