/* gnuplot.c — the gnuplot scripts of a report's figures, and running them.
 *
 * cf_rfig_head writes the head every script shares (what it draws, how to
 * rerun it, its folder, the SVG or GIF terminal, the figure's size and
 * title), cf_rfig_png / cf_rfig_tail the PNG terminal and the replot,
 * cf_rplot_item one item of a plot command over the figure's .dat file,
 * cf_rfig_write the .dat and .gp files (atomically, cf_report_write_file).
 * cf_report_figure_draw runs gnuplot on one script in a child process with
 * the images under temporary names, renamed into place when gnuplot
 * succeeded; on failure it returns 1 with the reason (gnuplot's last line
 * of stderr, or the signal) in `reason`, and leaves no image behind.
 * The figures themselves are figures.c (per recording), snapshots.c and
 * study_figures.c, which build on this file; draw.c runs many at once. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_internal.h"

/* ---------------------------------------------------------------- scripts */
static int figure_width(const cf_rfigure *f) { return f->width > 0 ? f->width : 800; }
static int figure_height(const cf_rfigure *f) { return f->height > 0 ? f->height : 600; }

/* The head of every script: what it draws, how to rerun it, the folder, the
 * SVG terminal; then the figure's settings. */
void cf_rfig_head(cf_rbuf *g, const cf_rfigure *f, const char *what, const char *results_path) {
  char images[700];
  if (f->gif) snprintf(images, sizeof images, "%s.gif", f->id);
  else snprintf(images, sizeof images, "%s.svg and %s.png", f->id, f->id);
  cf_rbuf_printf(g, "# %s.gp — written by clothfit report: %s", f->id, what);
  if (strcmp(f->kind, "study")) cf_rbuf_printf(g, " of recording '%s'", f->rec);
  if (results_path) cf_rbuf_printf(g, "\n# from %s", results_path);
  cf_rbuf_printf(g,
                 ".\n"
                 "# Data: %s.dat (the values the results file stores, 17 digits; each block named by its\n"
                 "# first comment line: 'index K' in the plot command is block K, counted from 0).\n"
                 "# Redraw from any folder: gnuplot %s.gp  (writes %s beside this script).\n"
                 "# Restyle: edit the settings below (size, fonts, palette, ranges, labels, key) and redraw;\n"
                 "# clothfit report rewrites this file, so keep an edited copy under another name.\n"
                 "if (!exists(\"clothfit_out\")) clothfit_out = ",
                 f->id, f->id, images);
  cf_rbuf_gp(g, f->id);
  cf_rbuf_puts(g,
               "\n"
               "# go to the folder of this script: data and images are beside it\n"
               "clothfit_dir = ARG0\n"
               "clothfit_i = strlen(clothfit_dir)\n"
               "while (clothfit_i > 0 && clothfit_dir[clothfit_i:clothfit_i] ne '/') { clothfit_i = clothfit_i - 1 }\n"
               "if (clothfit_i > 1) { cd clothfit_dir[1:clothfit_i - 1] } else { if (clothfit_i == 1) { cd '/' } }\n"
               "\n"
               "set encoding utf8\n");
  if (f->gif)
    cf_rbuf_printf(g, "# the animation: delay between frames in 1/100 s, size in pixels\n"
                      "set terminal gif animate delay %d loop 0 optimize size %d,%d noenhanced font 'Sans,10' "
                      "background '#ffffff'\nset output clothfit_out.'.gif'\n",
                   f->delay, figure_width(f), figure_height(f));
  else
    cf_rbuf_printf(g, "set terminal svg size %d,%d dynamic noenhanced font 'Sans,12' background 'white'\n"
                      "set output clothfit_out.'.svg'\n", figure_width(f), figure_height(f));
  cf_rbuf_puts(g, "set title ");
  cf_rbuf_gp(g, f->caption);
  cf_rbuf_puts(g, "\n");
}

void cf_rfig_png(cf_rbuf *g, const cf_rfigure *f) {
  cf_rbuf_printf(g,
                 "\n"
                 "set terminal pngcairo size %d,%d noenhanced font 'Sans,10' background 'white'\n"
                 "set output clothfit_out.'.png'\n", figure_width(f), figure_height(f));
}

/* The tail: the same plot as PNG (pngcairo, 800 x 600). */
void cf_rfig_tail(cf_rbuf *g) {
  const cf_rfigure size = {.width = 800, .height = 600};
  cf_rfig_png(g, &size);
  cf_rbuf_puts(g, "replot\nset output\n");
}

void cf_rplot_item(cf_rplot *p, int index, const char *spec, const char *title) {
  char dat[340];
  snprintf(dat, sizeof dat, "%s.dat", p->id);
  cf_rbuf_puts(p->g, p->n++ ? ", \\\n     " : "plot ");
  cf_rbuf_gp(p->g, dat);
  cf_rbuf_printf(p->g, " index %d %s ", index, spec);
  if (title) cf_rbuf_puts(p->g, "title "), cf_rbuf_gp(p->g, title);
  else cf_rbuf_puts(p->g, "notitle");
}

/* ----------------------------------------------------------------- writing */
int cf_rfig_write(const char *figdir, const cf_rfigure *f, const cf_rbuf *d, const cf_rbuf *g, cf_error *err) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s.dat", figdir, f->id);
  if (cf_report_write_file(path, d, err)) return CF_EIO;
  snprintf(path, sizeof path, "%s/%s.gp", figdir, f->id);
  return cf_report_write_file(path, g, err);
}

/* ----------------------------------------------------------------- drawing */
/* The last non-empty line of s into buf. */
static void last_line(const char *s, char *buf, size_t size) {
  const char *end = s + strlen(s);
  while (end > s && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ')) end--;
  const char *start = end;
  while (start > s && start[-1] != '\n') start--;
  while (start < end && *start == ' ') start++;
  snprintf(buf, size, "%.*s", (int)(end - start), start);
}

int cf_report_figure_draw(const char *gnuplot, const char *figdir, const cf_rfigure *f, char *reason, size_t size) {
  char script[4200], tmpstem[400], setout[600], img[4300], tmpimg[4300];
  snprintf(script, sizeof script, "%s%s/%s.gp", figdir[0] == '/' ? "" : "./", figdir, f->id);
  snprintf(tmpstem, sizeof tmpstem, "%s.tmp.%ld", f->id, (long)getpid());
  snprintf(setout, sizeof setout, "clothfit_out='%s'", tmpstem); /* ids have no quotes */
  int fd[2];
  if (pipe(fd)) return snprintf(reason, size, "cannot create a pipe: %s", strerror(errno)), 1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]), close(fd[1]);
    return snprintf(reason, size, "cannot start %s: %s", gnuplot, strerror(errno)), 1;
  }
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) dup2(null, 0), dup2(null, 1);
    dup2(fd[1], 2);
    close(fd[0]), close(fd[1]);
    execl(gnuplot, "gnuplot", "-e", setout, script, (char *)NULL);
    fprintf(stderr, "cannot run %s: %s\n", gnuplot, strerror(errno));
    _exit(127);
  }
  close(fd[1]);
  char log[8192];
  size_t got = 0;
  for (;;) {
    char chunk[1024];
    ssize_t k = read(fd[0], chunk, sizeof chunk);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    for (ssize_t j = 0; j < k; j++) { /* keep the last 8 kB */
      if (got == sizeof log - 1) memmove(log, log + 1, --got);
      log[got++] = chunk[j];
    }
  }
  log[got] = 0;
  close(fd[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
  const char *ext[2] = {f->gif ? "gif" : "svg", "png"};
  for (int k = 0; k < 2 - f->gif; k++) {
    snprintf(tmpimg, sizeof tmpimg, "%s/%s.%s", figdir, tmpstem, ext[k]);
    snprintf(img, sizeof img, "%s/%s.%s", figdir, f->id, ext[k]);
    if (ok && access(tmpimg, F_OK) != 0) {
      ok = 0;
      snprintf(log, sizeof log, "gnuplot wrote no %s", tmpimg);
    }
    if (ok && rename(tmpimg, img) != 0) {
      ok = 0;
      snprintf(log, sizeof log, "cannot rename %s into place: %s", tmpimg, strerror(errno));
    }
    if (!ok) remove(tmpimg);
  }
  if (ok) return 0;
  char line[400];
  last_line(log, line, sizeof line);
  if (WIFSIGNALED(st)) snprintf(reason, size, "%s: gnuplot was killed by signal %d", script, WTERMSIG(st));
  else snprintf(reason, size, "%s: %s", script, line[0] ? line : "gnuplot failed");
  return 1;
}
