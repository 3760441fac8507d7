/* snapshots.c — the 3-D figures of a recording (thesis Fig. 4.5/4.7): the
 * recorded markers as points against the simulated cloth at the optimum,
 * drawn as its marker lattice (the lines between neighbouring markers),
 * from the markers the results file stores with the series
 * (series/recorded, series/simulated; docs/report.md says why they are
 * stored rather than simulated again here).
 *
 *   <stem>-snapshots   chosen instants side by side (SVG and PNG), each
 *                      panel titled with its time and the error e(t)
 *   <stem>-animation   the whole recording as an animated GIF (at most
 *                      CF_ANIM_FRAMES frames, in real time)
 *
 * Every panel and animation frame has the same axes (cm, equal scales, the
 * box of every position of the recording) and looks at the cloth from the
 * front: the normal of the recorded lattice in the first frame, turned by
 * 25 degrees so that the depth shows.  Data: two blocks per instant —
 * the recorded markers (K lines), then the simulated lattice (rows scans
 * of cols markers, which gnuplot joins along and across the scans). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

enum {
  CF_SNAPSHOT_DEFAULT = 4, /* instants when none are given */
  CF_ANIM_FRAMES = 60      /* frames of an animation at most: gnuplot's gif terminal takes ~8 ms a
                              frame (docs/report.md), so a recording's animation stays under 0.5 s */
};

static int has_markers(const cf_res_rec *c) {
  const cf_res_series *z = &c->series;
  return c->has_series && z->recorded && z->simulated && z->rows > 0 && z->cols > 0 && z->T > 0 && z->dt > 0;
}

/* The last time of the series (s) and the nearest frame of time t. */
static double last_time(const cf_res_series *z) { return (z->T - 1) * z->dt; }
static int frame_of(const cf_res_series *z, double t) {
  long k = lround(t / z->dt);
  return k < 0 ? 0 : k >= z->T ? z->T - 1 : (int)k;
}

/* The frames of the snapshots into frame[]; their count.  Default: 4
 * instants at 1/5 .. 4/5 of the recording, rounded to 0.1 s when it is at
 * least 2 s long. */
static int pick_frames(const cf_res_series *z, const cf_report_opts *o, int *frame) {
  if (o->times && o->n_times > 0) {
    int n = o->n_times < CF_SNAPSHOT_MAX ? o->n_times : CF_SNAPSHOT_MAX;
    for (int i = 0; i < n; i++) frame[i] = frame_of(z, o->times[i]);
    return n;
  }
  double D = last_time(z);
  for (int i = 0; i < CF_SNAPSHOT_DEFAULT; i++) {
    double t = D * (i + 1) / (CF_SNAPSHOT_DEFAULT + 1);
    frame[i] = frame_of(z, D >= 2 ? round(10 * t) / 10 : t);
  }
  return CF_SNAPSHOT_DEFAULT;
}

int cf_report_snapshots_check(const cf_results *r, const cf_report_opts *o, cf_error *err) {
  if (o->n_times > CF_SNAPSHOT_MAX)
    return cf_error_set(err, CF_EINVAL, "%d snapshot instants: at most %d", o->n_times, CF_SNAPSHOT_MAX);
  for (int i = 0; i < r->n; i++) {
    const cf_res_series *z = &r->recs[i].series;
    if (!has_markers(&r->recs[i])) continue;
    for (int k = 0; o->times && k < o->n_times; k++) {
      double t = o->times[k];
      if (!(t >= 0 && t <= (z->T - 0.5) * z->dt))
        return cf_error_set(err, CF_EINVAL, "snapshot time %g s is outside recording '%s' (0 to %g s)", t,
                            r->recs[i].name, last_time(z));
    }
  }
  return CF_OK;
}

int cf_report_snapshots_note(const cf_results *r, char *buf, size_t size) {
  int missing = 0;
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < r->n; i++) {
    if (has_markers(&r->recs[i])) continue;
    if (len < size) len += snprintf(buf + len, size - len, "%s%s", missing ? ", " : "", r->recs[i].name);
    missing++;
  }
  if (!missing) return 0;
  char *names = strdup(buf);
  snprintf(buf, size, "No 3-D snapshots and no animation for %d of %d recordings (%s): the results file stores no "
                      "markers at their optimum. `clothfit fit` and `clothfit experiment` store them with the "
                      "refined optimum; a sweep alone and results files written before they were stored have none.",
           missing, r->n, names ? names : "...");
  free(names);
  return 1;
}

/* ---------------------------------------------------------------- the box */
typedef struct {
  double lo[3], hi[3]; /* cm, padded */
  double rot_z;        /* gnuplot's view: degrees about z */
} box3;

static box3 box_of(const cf_res_series *z) {
  box3 b = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}, 30};
  size_t n = (size_t)z->T * z->rows * z->cols;
  const double *set[2] = {z->recorded, z->simulated};
  for (int s = 0; s < 2; s++)
    for (size_t j = 0; j < n; j++)
      for (int a = 0; a < 3; a++) {
        double v = 100 * set[s][3 * j + a];
        if (isfinite(v)) b.lo[a] = fmin(b.lo[a], v), b.hi[a] = fmax(b.hi[a], v);
      }
  for (int a = 0; a < 3; a++) {
    if (!(b.lo[a] <= b.hi[a])) b.lo[a] = -1, b.hi[a] = 1;
    double pad = fmax(1, 0.05 * (b.hi[a] - b.lo[a]));
    b.lo[a] -= pad, b.hi[a] += a == 2 ? 3 * pad : pad; /* room for the key above the cloth */
  }
  /* the normal of the first recorded frame (complete: the fit starts there) */
  const double *p = z->recorded, *c = p + 3 * (z->cols - 1), *q = p + 3 * (size_t)(z->rows - 1) * z->cols;
  double u[3] = {c[0] - p[0], c[1] - p[1], c[2] - p[2]}, v[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
  double nx = u[1] * v[2] - u[2] * v[1], ny = u[2] * v[0] - u[0] * v[2], nz = u[0] * v[1] - u[1] * v[0];
  /* gnuplot looks along (-sin rot_z, cos rot_z, 0) at rot_x 90; a cloth
   * lying nearly flat keeps gnuplot's default rotation */
  if (isfinite(nx) && isfinite(ny) && hypot(nx, ny) > 0.2 * fabs(nz))
    b.rot_z = fmod(atan2(ny, nx) * 180 / M_PI - 90 + 25 + 720, 360);
  return b;
}

/* A tic step of 1, 2 or 5 times a power of 10 giving about 4 tics on the
 * longest axis (one step for all three: equal scales). */
static double tic_step(const box3 *b) {
  double span = fmax(fmax(b->hi[0] - b->lo[0], b->hi[1] - b->lo[1]), b->hi[2] - b->lo[2]) / 4;
  double p = pow(10, floor(log10(span))), m = span / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

static void axes(cf_rbuf *g, const box3 *b) {
  cf_rbuf_printf(g,
                 "set xlabel 'x (cm)'\nset ylabel 'y (cm)'\nset zlabel 'z (cm)' rotate parallel\n"
                 "# the box of every recorded and simulated position, equal scales on the three axes\n"
                 "set xrange [%.6g:%.6g]\nset yrange [%.6g:%.6g]\nset zrange [%.6g:%.6g]\n"
                 "set view equal xyz\nset xtics %.6g\nset ytics %.6g\nset ztics %.6g\n"
                 "# view: elevation, rotation about z (degrees); the cloth is seen from its front, turned by 25\n"
                 "set view 70, %.1f\nset xyplane relative 0\nset grid\n"
                 "set key top left reverse Left samplen 2\n",
                 b->lo[0], b->hi[0], b->lo[1], b->hi[1], b->lo[2], b->hi[2], tic_step(b), tic_step(b), tic_step(b),
                 b->rot_z);
}

/* ------------------------------------------------------------- the data */
/* The two blocks of frame k: recorded markers, simulated lattice (cm). */
static void frame_blocks(cf_rbuf *d, const cf_res_series *z, int k) {
  int K = z->rows * z->cols;
  const double *rec = z->recorded + (size_t)k * K * 3, *sim = z->simulated + (size_t)k * K * 3;
  cf_rbuf_printf(d, "# recorded markers, frame %d (t = %.6g s): x_cm y_cm z_cm (NaN: missing)\n", k, k * z->dt);
  for (int j = 0; j < K; j++)
    cf_rbuf_printf(d, "%.9g %.9g %.9g\n", 100 * rec[3 * j], 100 * rec[3 * j + 1], 100 * rec[3 * j + 2]);
  cf_rbuf_printf(d, "\n\n# simulated markers, frame %d: x_cm y_cm z_cm, one lattice row a scan (NaN: the "
                    "simulation had failed)\n", k);
  for (int j = 0; j < K; j++) {
    cf_rbuf_printf(d, "%.9g %.9g %.9g\n", 100 * sim[3 * j], 100 * sim[3 * j + 1], 100 * sim[3 * j + 2]);
    if (j % z->cols == z->cols - 1 && j < K - 1) cf_rbuf_puts(d, "\n");
  }
  cf_rbuf_puts(d, "\n\n");
}

/* The splot of the blocks of instant i (index may be a gnuplot expression). */
static void splot(cf_rbuf *g, const char *id, const char *index) {
  char dat[340];
  snprintf(dat, sizeof dat, "%s.dat", id);
  cf_rbuf_puts(g, "splot ");
  cf_rbuf_gp(g, dat);
  cf_rbuf_printf(g, " index 2*(%s) with points pointtype 7 pointsize 0.9 linecolor rgb '#1f4e9c' "
                    "title 'recorded markers', \\\n      '' index 2*(%s)+1 with lines linewidth 1.5 "
                    "linecolor rgb '#d7301f' title 'simulated cloth (marker lattice)'\n", index, index);
}

/* -------------------------------------------------------------- figures */
/* The panels of the snapshots as one multiplot. */
static void panels(cf_rbuf *g, const cf_rfigure *f, const cf_res_series *z, const int *frame, int n, int rows,
                   int cols) {
  cf_rbuf_printf(g, "set multiplot layout %d,%d title ", rows, cols);
  cf_rbuf_gp(g, f->caption);
  cf_rbuf_puts(g, "\n");
  for (int i = 0; i < n; i++) {
    char t[128], ix[16];
    int k = frame[i];
    if (isfinite(z->e[k]))
      snprintf(t, sizeof t, "t = %.2f s (frame %d): e = " CF_RFMT_ERR " cm", k * z->dt, k, z->e[k]);
    else
      snprintf(t, sizeof t, "t = %.2f s (frame %d): no error (no marker, or the simulation failed)", k * z->dt, k);
    snprintf(ix, sizeof ix, "%d", i);
    cf_rbuf_puts(g, "set title ");
    cf_rbuf_gp(g, t);
    cf_rbuf_puts(g, "\n");
    splot(g, f->id, ix);
  }
  cf_rbuf_puts(g, "unset multiplot\n");
}

static void snapshots(const cf_res_rec *c, const cf_rfigure *f, const int *frame, int n, int rows, int cols,
                      cf_rbuf *d, cf_rbuf *g, const char *results_path) {
  const cf_res_series *z = &c->series;
  box3 b = box_of(z);
  cf_rbuf_printf(d, "# %s.dat — written by clothfit report: recorded and simulated markers of recording '%s' at "
                    "delta %.17g, alpha %.17g, %d instants, a %d x %d lattice (cm: the stored float32 m x 100)\n",
                 f->id, c->name, z->delta, z->alpha, n, z->rows, z->cols);
  for (int i = 0; i < n; i++) frame_blocks(d, z, frame[i]);
  cf_rfig_head(g, f, "recorded vs simulated markers at chosen instants", results_path);
  axes(g, &b);
  panels(g, f, z, frame, n, rows, cols);
  cf_rfig_png(g, f);
  panels(g, f, z, frame, n, rows, cols);
  cf_rbuf_puts(g, "set output\n");
}

static void animation(const cf_res_rec *c, const cf_rfigure *f, int step, int frames, cf_rbuf *d, cf_rbuf *g,
                      const char *results_path) {
  const cf_res_series *z = &c->series;
  box3 b = box_of(z);
  cf_rbuf_printf(d, "# %s.dat — written by clothfit report: recorded and simulated markers of recording '%s' at "
                    "delta %.17g, alpha %.17g, every %d. frame (%d frames), a %d x %d lattice (cm: the stored "
                    "float32 m x 100)\n", f->id, c->name, z->delta, z->alpha, step, frames, z->rows, z->cols);
  for (int i = 0; i < frames; i++) frame_blocks(d, z, i * step);
  cf_rfig_head(g, f, "the animation of recorded vs simulated markers", results_path);
  axes(g, &b);
  char title[400];
  snprintf(title, sizeof title, "%s: δ " CF_RFMT_PAR ", α " CF_RFMT_PAR, c->name, z->delta, z->alpha);
  cf_rbuf_puts(g, "clothfit_title = ");
  cf_rbuf_gp(g, title);
  cf_rbuf_printf(g, "\n# frame k of the animation is frame k*%d of the recording\n"
                    "do for [clothfit_k = 0:%d] {\n"
                    "  set title sprintf(\"%%s\\nt = %%.2f s\", clothfit_title, clothfit_k * %.17g)\n  ",
                 step, frames - 1, step * z->dt);
  splot(g, f->id, "clothfit_k");
  cf_rbuf_puts(g, "}\nset output\n");
}

int cf_report_snapshots_write(const cf_res_rec *c, const char *stem, const cf_report_opts *o, const char *figdir,
                              cf_rfigure *f, int *n, cf_error *err) {
  if (!has_markers(c)) return CF_OK;
  const cf_res_series *z = &c->series;
  int frame[CF_SNAPSHOT_MAX], nf = pick_frames(z, o, frame);
  int cols = nf <= 2 ? nf : nf <= 4 ? 2 : nf <= 9 ? 3 : 4, rows = (nf + cols - 1) / cols;
  int step = (z->T + CF_ANIM_FRAMES - 1) / CF_ANIM_FRAMES, frames = (z->T + step - 1) / step;
  int delay = (int)lround(100 * step * z->dt);
  for (int k = 0; k < CF_SNAPSHOT_FIGURES; k++) {
    cf_rfigure *x = &f[*n];
    memset(x, 0, sizeof *x);
    snprintf(x->id, sizeof x->id, "%s-%s", stem, k ? "animation" : "snapshots");
    snprintf(x->rec, sizeof x->rec, "%s", c->name);
    snprintf(x->kind, sizeof x->kind, "%s", k ? "animation" : "snapshots");
    snprintf(x->caption, sizeof x->caption, "%s: recorded markers and the simulated cloth at δ " CF_RFMT_PAR
             ", α " CF_RFMT_PAR "%s", c->name, z->delta, z->alpha, k ? " (animation)" : "");
    x->gif = k, x->delay = delay < 2 ? 2 : delay;
    x->width = k ? 640 : 450 * cols, x->height = k ? 520 : 430 * rows + 40;
    cf_rbuf d = {0}, g = {0};
    if (k) animation(c, x, step, frames, &d, &g, o->results_path);
    else snapshots(c, x, frame, nf, rows, cols, &d, &g, o->results_path);
    int rc = cf_rfig_write(figdir, x, &d, &g, err);
    cf_rbuf_free(&d);
    cf_rbuf_free(&g);
    if (rc) return rc;
    (*n)++;
  }
  return CF_OK;
}
