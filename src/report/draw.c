/* draw.c — the figures drawn by several gnuplot runs at once: each figure
 * is drawn in a child process of its own (cf_report_figure_draw: gnuplot,
 * its images renamed into place), at most `jobs` of them at a time; the
 * child tells the parent why it failed through a pipe, and its exit status
 * whether it drew.  The parent counts, reports progress in the order the
 * figures finish, and keeps the failure of the first figure (in the
 * report's order) that failed, so the summary does not depend on timing. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_internal.h"

typedef struct {
  pid_t pid;
  int fd;     /* the read end of the child's pipe */
  int index;  /* its figure */
} draw_slot;

/* Start the child drawing figure i; 0, or -1 if it cannot be started (then
 * why is set). */
static int draw_start(const char *gnuplot, const char *figdir, const cf_rfigure *f, int i, draw_slot *s, char *why,
                      size_t size) {
  int fd[2];
  if (pipe(fd)) return snprintf(why, size, "cannot create a pipe: %s", strerror(errno)), -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]), close(fd[1]);
    return snprintf(why, size, "cannot start a process: %s", strerror(errno)), -1;
  }
  if (pid == 0) {
    char reason[512] = "";
    close(fd[0]);
    int rc = cf_report_figure_draw(gnuplot, figdir, &f[i], reason, sizeof reason);
    if (rc && write(fd[1], reason, strlen(reason)) < 0) rc = 1;
    _exit(rc ? 1 : 0);
  }
  close(fd[1]);
  s->pid = pid, s->fd = fd[0], s->index = i;
  return 0;
}

/* Read the child's message to its end (EOF: the child has exited) and
 * reap it: 1 if it drew its figure, else 0 with why. */
static int draw_finish(draw_slot *s, const cf_rfigure *f, char *why, size_t size) {
  size_t got = 0;
  for (ssize_t k; got + 1 < size && (k = read(s->fd, why + got, size - 1 - got)) != 0;) {
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) break;
    got += (size_t)k;
  }
  why[got] = 0;
  close(s->fd);
  int st = 0;
  while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 1;
  if (!got) snprintf(why, size, "figures/%s.gp: the process drawing it ended abnormally", f[s->index].id);
  return 0;
}

/* The slot among s[0..n) whose child has finished (its pipe readable or
 * closed), waiting for one. */
static int draw_next_done(const draw_slot *s, int n) {
  struct pollfd pf[64];
  for (int i = 0; i < n; i++) pf[i].fd = s[i].fd, pf[i].events = POLLIN, pf[i].revents = 0;
  while (poll(pf, (nfds_t)n, -1) < 0 && errno == EINTR) {
  }
  for (int i = 0; i < n; i++)
    if (pf[i].revents) return i;
  return 0; /* poll failed: wait for the oldest */
}

/* One figure done (drawn or not, why): counted, the report-order first
 * failure kept, progress called. */
static void draw_count(const cf_rfigure *f, int i, int drawn, const char *why, int *done, int n, int *first_bad,
                       const cf_report_opts *o, cf_report_summary *sum) {
  if (drawn) sum->figures++;
  else {
    sum->figures_failed++;
    if (i < *first_bad) *first_bad = i, snprintf(sum->failure, sizeof sum->failure, "%s", why);
  }
  ++*done;
  if (o->progress) o->progress(o->user, *done, n, f[i].id);
}

void cf_report_figures_draw(const char *gnuplot, const char *figdir, cf_rfigure *f, int n, const cf_report_opts *o,
                            cf_report_summary *sum) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  int jobs = o->jobs > 0 ? o->jobs : cores > 0 ? (int)cores : 1, running = 0, next = 0, done = 0, first_bad = n;
  if (jobs > 64) jobs = 64;
  draw_slot slot[64];
  char why[512];
  while (done < n) {
    while (running < jobs && next < n) { /* start as many as allowed */
      if (draw_start(gnuplot, figdir, f, next, &slot[running], why, sizeof why) == 0) running++;
      else draw_count(f, next, 0, why, &done, n, &first_bad, o, sum);
      next++;
    }
    if (!running) continue;
    int k = draw_next_done(slot, running);
    draw_slot s = slot[k];
    slot[k] = slot[--running];
    int drawn = draw_finish(&s, f, why, sizeof why);
    if (drawn) f[s.index].drawn = 1;
    draw_count(f, s.index, drawn, why, &done, n, &first_bad, o, sum);
  }
}
