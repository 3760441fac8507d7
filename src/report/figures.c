/* figures.c — the figures of a report (docs/design.md §10), each a gnuplot
 * script figures/<id>.gp with its data figures/<id>.dat, drawn into <id>.svg
 * and <id>.png by gnuplot run as a separate process (the scripts' common
 * parts and the running: gnuplot.c).
 *
 * Per recording:
 *   <stem>-surface      the sweep's mean error ē(δ, α) as a heat map (thesis
 *                       Fig. 4.15): exact grid points coloured, pruned points
 *                       (their error is only a lower bound, often far below
 *                       the true one: left blank) as small circles, failed
 *                       points as crosses; the grid optimum, the
 *                       refined optimum and the ground truth marked
 *   <stem>-series       e(t) and d(t) = e + 2s at the optimum (Fig. 4.23),
 *                       the frames with table contact shaded,
 *                       gaps where no marker was present; the end of the
 *                       training window marked
 *   <stem>-sensitivity  the sensitivity map ē(δ, α) around the optimum
 *                       (Fig. 4.6), or the 1-D scan ē(δ) or ē(α)
 *   <stem>-snapshots, <stem>-animation   recorded vs simulated markers in
 *                       3-D (Fig. 4.5/4.7; snapshots.c)
 * Per study (with a regression; study_figures.c): study-{delta,alpha}-{V,rho},
 * the optima against V and rho as partial residuals with the formula's line.
 * The data are the stored values with 17 digits.  A script goes to its own
 * folder first (from ARG0), so `gnuplot figures/NAME.gp` works from any
 * folder and rewrites NAME.svg and NAME.png; setting clothfit_out
 * (gnuplot -e "clothfit_out='X'") names the images X.svg and X.png
 * instead, which is how the report writes them under temporary names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"

/* ------------------------------------------------------------- heat maps */
/* Bounds of the cell around axis value i: half-way to the neighbours (an
 * axis of one value gets a cell of +-5 %, or +-0.001 at 0). */
static void cell_bounds(const double *v, int n, int i, double *lo, double *hi) {
  if (n < 2) {
    double h = v[i] ? 0.05 * fabs(v[i]) : 1e-3;
    *lo = v[i] - h, *hi = v[i] + h;
    return;
  }
  *lo = i > 0 ? 0.5 * (v[i - 1] + v[i]) : v[0] - 0.5 * (v[1] - v[0]);
  *hi = i < n - 1 ? 0.5 * (v[i] + v[i + 1]) : v[n - 1] + 0.5 * (v[n - 1] - v[n - 2]);
}

/* A grid of nd x na points (error e, status, pruned may be NULL) as blocks
 * of the data file d, plot items in p; the next block index. */
static int grid_blocks(cf_rbuf *d, cf_rplot *p, int nd, const double *delta, int na, const double *alpha,
                       const double *e, const double *s, const int *status, const unsigned char *pruned) {
  int k = 0, n_exact = 0, n_pruned = 0, n_failed = 0;
  for (int i = 0; i < nd * na; i++) {
    int ok = !status[i] && isfinite(e[i]);
    n_failed += !ok, n_pruned += ok && pruned && pruned[i], n_exact += ok && !(pruned && pruned[i]);
  }
  if (n_exact) {
    cf_rbuf_puts(d, "# exact grid points: delta alpha delta_lo delta_hi alpha_lo alpha_hi error_cm std_cm\n");
    for (int id = 0; id < nd; id++)
      for (int ia = 0; ia < na; ia++) {
        int i = id * na + ia;
        if (status[i] || !isfinite(e[i]) || (pruned && pruned[i])) continue;
        double dl, dh, al, ah;
        cell_bounds(delta, nd, id, &dl, &dh);
        cell_bounds(alpha, na, ia, &al, &ah);
        cf_rbuf_printf(d, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", delta[id], alpha[ia], dl, dh, al, ah,
                       e[i], s ? s[i] : NAN);
      }
    cf_rbuf_puts(d, "\n\n");
    cf_rplot_item(p, k++, "using 1:2:3:4:5:6:7 with boxxyerror fillstyle solid 1.0 noborder linecolor palette", NULL);
  }
  if (n_pruned) {
    cf_rbuf_puts(d, "# pruned grid points (the simulation stopped early: error_cm is a lower bound): delta alpha "
                    "delta_lo delta_hi alpha_lo alpha_hi error_cm\n");
    for (int i = 0; i < nd * na; i++)
      if (!status[i] && isfinite(e[i]) && pruned[i]) {
        double dl, dh, al, ah;
        cell_bounds(delta, nd, i / na, &dl, &dh);
        cell_bounds(alpha, na, i % na, &al, &ah);
        cf_rbuf_printf(d, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", delta[i / na], alpha[i % na], dl, dh, al, ah,
                       e[i]);
      }
    cf_rbuf_puts(d, "\n\n");
    cf_rplot_item(p, k++, "using 1:2 with points pointtype 6 pointsize 0.6 linecolor rgb 'gray40'",
              "pruned (ē only a lower bound, above the pruning bound: left blank)");
  }
  if (n_failed) {
    cf_rbuf_puts(d, "# failed grid points (the simulation failed): delta alpha status\n");
    for (int i = 0; i < nd * na; i++)
      if (status[i] || !isfinite(e[i])) cf_rbuf_printf(d, "%.17g %.17g %d\n", delta[i / na], alpha[i % na], status[i]);
    cf_rbuf_puts(d, "\n\n");
    cf_rplot_item(p, k++, "using 1:2 with points pointtype 2 pointsize 1.5 linewidth 2 linecolor rgb 'black'",
              "failed simulation");
  }
  return k;
}

/* A marked point (a block of one line and its plot item). */
static int mark(cf_rbuf *d, cf_rplot *p, int k, const char *what, double x, double y, double e, const char *spec,
                const char *title) {
  cf_rbuf_printf(d, "# %s: delta alpha error_cm\n%.17g %.17g %.17g\n\n\n", what, x, y, e);
  cf_rplot_item(p, k, spec, title);
  return k + 1;
}

/* A plot of nothing, saying so (gnuplot refuses data without a value). */
static void no_data(cf_rbuf *g) {
  cf_rbuf_puts(g, "set label 2 'no value to draw' at graph 0.5, graph 0.5 center\nplot [0:1] [0:1] NaN notitle");
}

/* Grid points with an exact error (drawn as cells). */
static int n_cells(int n, const double *e, const int *status, const unsigned char *pruned) {
  int k = 0;
  for (int i = 0; i < n; i++) k += !status[i] && isfinite(e[i]) && !(pruned && pruned[i]);
  return k;
}

/* The settings of a heat map; cells: it has coloured cells (else only
 * points, kept off the frame by small offsets). */
static void heat_settings(cf_rbuf *g, int cells, int nd, const double *delta, int na, const double *alpha) {
  cf_rbuf_puts(g,
               "set xlabel 'δ (kg/m²)'\n"
               "set ylabel 'α (kg/(m² s))'\n"
               "set cblabel 'ē (cm)'\n"
               "# colours: viridis (dark = small error); try e.g. set palette rgbformulae 33,13,10\n"
               "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')\n"
               "# set logscale cb    # a logarithmic colour scale shows the valley better\n"
               "# set cbrange [0:5]  # or clip the colour scale (cm)\n"
               "set key outside below horizontal\n"
               "set grid front linecolor rgb 'gray70'\n");
  if (!cells) {
    cf_rbuf_puts(g, "set autoscale xfix\nset autoscale yfix\n"
                    "set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n");
    return;
  }
  /* the whole grid, blank (pruned, failed) cells at its edges included */
  double x0, x1, y0, y1, lo, hi;
  cell_bounds(delta, nd, 0, &x0, &hi);
  cell_bounds(delta, nd, nd - 1, &lo, &x1);
  cell_bounds(alpha, na, 0, &y0, &hi);
  cell_bounds(alpha, na, na - 1, &lo, &y1);
  cf_rbuf_printf(g, "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\n", x0, x1, y0, y1);
}

static const char *opt_spec = "using 1:2 with points pointtype 4 pointsize 2.2 linewidth 2 linecolor rgb 'red'";
/* The colour scale of an error surface from 0 to 3 times its smallest
 * exact error when some cells lie above that: the basin around the optimum
 * is what a reader looks for, and one far-off cell (a point run before any
 * bound was known: 14 cm against 0.6 at the optimum of a bundled recording)
 * would otherwise paint the whole basin one dark colour. */
static void clip_colours(cf_rbuf *g, const cf_res_sweep *w) {
  double lo = INFINITY, hi = 0;
  for (int i = 0; i < w->nd * w->na; i++)
    if (!w->status[i] && isfinite(w->e[i]) && !(w->pruned && w->pruned[i])) {
      if (w->e[i] < lo) lo = w->e[i];
      if (w->e[i] > hi) hi = w->e[i];
    }
  if (!(lo > 0) || !(hi > 3 * lo)) return;
  cf_rbuf_printf(g, "set cbrange [0:%.6g]\nset cblabel 'ē (cm; %.3g and above: the top colour)'\n", 3 * lo, 3 * lo);
}

static const char *fit_spec = "using 1:2 with points pointtype 7 pointsize 1.3 linecolor rgb 'orange'";
static const char *truth_spec = "using 1:2 with points pointtype 8 pointsize 1.8 linewidth 2 linecolor rgb 'magenta'";

static void surface(const cf_res_rec *c, const cf_rfigure *f, cf_rbuf *d, cf_rbuf *g, const char *results_path) {
  const cf_res_sweep layer = cf_res_sweep_layer(&c->sweep, -1), *w = &layer; /* a mu grid: at the best mu */
  cf_rbuf_printf(d, "# %s.dat — written by clothfit report: the sweep of recording '%s', %d x %d grid (delta x "
                    "alpha), model kappa %g, beta %g, tol %g", f->id, c->name, w->nd, w->na, w->model.kappa,
                 w->model.beta, w->model.tol);
  if (c->sweep.nm > 0) cf_rbuf_printf(d, ", at mu %.17g (the best of a %d-value mu grid)", w->model.mu, c->sweep.nm);
  cf_rbuf_mesh(d, &w->model);
  cf_rbuf_puts(d, "\n");
  char title[128];
  snprintf(title, sizeof title, c->sweep.nm > 0 ? "the error surface ē(δ, α) of the sweep at its best μ = %.3g"
                                                : "the error surface ē(δ, α) of the sweep", w->model.mu);
  cf_rfig_head(g, f, title, results_path);
  heat_settings(g, n_cells(w->nd * w->na, w->e, w->status, w->pruned), w->nd, w->delta, w->na, w->alpha);
  clip_colours(g, w);
  cf_rplot p = {g, f->id, 0};
  int k = grid_blocks(d, &p, w->nd, w->delta, w->na, w->alpha, w->e, w->s, w->status, w->pruned);
  char t[256];
  if (w->best >= 0 && w->best < w->nd * w->na) {
    double x = w->delta[w->best / w->na], y = w->alpha[w->best % w->na];
    snprintf(t, sizeof t, "grid optimum δ " CF_RFMT_PAR ", α " CF_RFMT_PAR ": ē " CF_RFMT_ERR " cm", x, y,
             w->e[w->best]);
    k = mark(d, &p, k, "grid optimum", x, y, w->e[w->best], opt_spec, t);
  }
  if (c->has_fit && isfinite(c->fit.x[0]) && isfinite(c->fit.x[1])) {
    snprintf(t, sizeof t, "refined optimum (%s) δ " CF_RFMT_PAR ", α " CF_RFMT_PAR ": ē " CF_RFMT_ERR " cm",
             c->fit.method, c->fit.x[0], c->fit.x[1], c->fit.e_all);
    k = mark(d, &p, k, "refined optimum", c->fit.x[0], c->fit.x[1], c->fit.e_all, fit_spec, t);
  }
  if (isfinite(c->truth_delta) && isfinite(c->truth_alpha)) {
    snprintf(t, sizeof t, "ground truth δ " CF_RFMT_PAR ", α " CF_RFMT_PAR, c->truth_delta, c->truth_alpha);
    k = mark(d, &p, k, "ground truth", c->truth_delta, c->truth_alpha, NAN, truth_spec, t);
  }
  if (!p.n) no_data(g);
  cf_rfig_tail(g);
}

static void sensitivity(const cf_res_rec *c, const cf_rfigure *f, cf_rbuf *d, cf_rbuf *g, const char *results_path) {
  const cf_res_sens *m = &c->sens;
  cf_rbuf_printf(d, "# %s.dat — written by clothfit report: the sensitivity %s of recording '%s' at delta %.17g, "
                    "alpha %.17g, %d x %d points, model kappa %g, beta %g, tol %g", f->id, m->kind, c->name,
                 m->at_delta, m->at_alpha, m->nd, m->na, m->model.kappa, m->model.beta, m->model.tol);
  cf_rbuf_mesh(d, &m->model);
  cf_rbuf_puts(d, "\n");
  char t[256];
  if (m->nm > 0)
    snprintf(t, sizeof t, "fitted point μ " CF_RFMT_PAR " at δ " CF_RFMT_PAR ", α " CF_RFMT_PAR, m->model.mu,
             m->at_delta, m->at_alpha);
  else snprintf(t, sizeof t, "fitted point δ " CF_RFMT_PAR ", α " CF_RFMT_PAR, m->at_delta, m->at_alpha);
  if (!strcmp(m->kind, "map")) {
    cf_rfig_head(g, f, "the sensitivity map ē(δ, α)", results_path);
    heat_settings(g, n_cells(m->nd * m->na, m->e, m->status, NULL), m->nd, m->delta, m->na, m->alpha);
    cf_rplot p = {g, f->id, 0};
    int k = grid_blocks(d, &p, m->nd, m->delta, m->na, m->alpha, m->e, m->s, m->status, NULL);
    mark(d, &p, k, "the point the map is centred on", m->at_delta, m->at_alpha, NAN, opt_spec, t);
    cf_rfig_tail(g);
    return;
  }
  /* a 1-D scan along delta, alpha or mu (the other axes have one value) */
  int along_m = m->nm > 0, along_d = !along_m && m->nd >= m->na;
  int n = along_m ? m->nm : along_d ? m->nd : m->na, finite = 0;
  double at = along_m ? m->model.mu : along_d ? m->at_delta : m->at_alpha;
  const char *name = along_m ? "mu" : along_d ? "delta" : "alpha";
  cf_rfig_head(g, f, along_m ? "the sensitivity scan ē(μ)" : along_d ? "the sensitivity scan ē(δ)"
                                                            : "the sensitivity scan ē(α)", results_path);
  cf_rbuf_printf(g, "set xlabel '%s'\nset ylabel 'ē (cm)'\nset key outside below horizontal\nset grid\n",
                 along_m ? "μ (friction on the table)" : along_d ? "δ (kg/m²)" : "α (kg/(m² s))");
  cf_rbuf_printf(d, "# scan: %s error_cm std_cm (NaN: the simulation failed)\n", name);
  for (int i = 0; i < n; i++) {
    int k = along_d ? i * m->na : i;
    double x = along_m ? m->mu[i] : along_d ? m->delta[i] : m->alpha[i], e = m->status[k] ? NAN : m->e[k];
    finite += isfinite(e);
    cf_rbuf_printf(d, "%.17g %.17g %.17g\n", x, e, m->status[k] ? NAN : m->s[k]);
  }
  cf_rbuf_printf(g, "# the point the scan is centred on\n"
                    "set arrow 1 from %.17g, graph 0 to %.17g, graph 1 nohead dashtype 2 linecolor rgb 'gray40'\n"
                    "set label 1 ", at, at);
  cf_rbuf_gp(g, t);
  cf_rbuf_printf(g, " at %.17g, graph 0.95 left offset 0.5, 0\n", at);
  cf_rplot p = {g, f->id, 0};
  if (finite) cf_rplot_item(&p, 0, "using 1:2 with linespoints pointtype 7 pointsize 0.7 linecolor rgb '#21918c'", "ē");
  else no_data(g);
  cf_rbuf_puts(g, "\n");
  cf_rfig_tail(g);
}

/* The frames where the simulated cloth touches the table or the stick, shaded: one
 * rectangle per run of frames in contact (thesis Fig. 4.23's contact
 * moments). */
static void contact_shading(const cf_res_series *z, cf_rbuf *g) {
  if (!z->contacts) return;
  int obj = 0;
  for (int i = 0; i < z->T;) {
    if (!(z->contacts[i] > 0)) {
      i++;
      continue;
    }
    int j = i;
    while (j + 1 < z->T && z->contacts[j + 1] > 0) j++;
    if (!obj) cf_rbuf_puts(g, "# the frames where the simulated cloth touches the table or the stick (series/contacts > 0)\n");
    cf_rbuf_printf(g, "set object %d rect from %.17g, graph 0 to %.17g, graph 1 fillcolor rgb '#d9ead3' "
                      "fillstyle solid 1.0 noborder behind\n", 10 + obj, (i - 0.5) * z->dt, (j + 0.5) * z->dt);
    obj++;
    i = j + 1;
  }
  if (obj) cf_rbuf_puts(g, "set label 2 'shaded: the cloth touches an obstacle (table or stick)' at graph 0.01, graph 0.95 left\n");
}

static void series(const cf_res_rec *c, const cf_rfigure *f, cf_rbuf *d, cf_rbuf *g, const char *results_path) {
  const cf_res_series *z = &c->series;
  cf_rbuf_printf(d, "# %s.dat — written by clothfit report: the per-frame errors of recording '%s' at delta %.17g, "
                    "alpha %.17g (dt %.17g s)\n# t_s e_cm s_cm d_cm%s   (NaN: no marker present in that frame)\n",
                 f->id, c->name, z->delta, z->alpha, z->dt, z->contacts ? " contact_rows" : "");
  for (int i = 0; i < z->T; i++) {
    cf_rbuf_printf(d, "%.17g %.17g %.17g %.17g", i * z->dt, z->e[i], z->s[i], z->d[i]);
    if (z->contacts) cf_rbuf_printf(d, " %.17g", z->contacts[i]);
    cf_rbuf_puts(d, "\n");
  }
  cf_rfig_head(g, f, "the per-frame errors e(t) and d(t) at the optimum", results_path);
  cf_rbuf_puts(g,
               "set xlabel 't (s)'\n"
               "set ylabel 'error (cm)'\n"
               "set yrange [0:*]\n"
               "set key outside below horizontal\n"
               "set grid\n");
  double t1 = c->has_fit ? c->fit.train_t1_s : NAN, T = (z->T - 1) * z->dt;
  if (isfinite(t1) && t1 > 0 && t1 < T) {
    cf_rbuf_printf(g, "# the end of the training window (the rest is the testing window)\n"
                      "set arrow 1 from %.17g, graph 0 to %.17g, graph 1 nohead dashtype 2 linecolor rgb 'gray40'\n"
                      "set label 1 'training | testing' at %.17g, graph 0.95 center\n", t1, t1, t1);
  }
  contact_shading(z, g);
  int fe = 0, fd = 0;
  for (int i = 0; i < z->T; i++) fe += isfinite(z->e[i]), fd += isfinite(z->d[i]);
  cf_rplot p = {g, f->id, 0};
  if (fe) cf_rplot_item(&p, 0, "using 1:2 with lines linewidth 1.5 linecolor rgb '#3b528b'", "e(t): error");
  if (fd) cf_rplot_item(&p, 0, "using 1:4 with lines linewidth 1.5 linecolor rgb '#e66101'", "d(t) = e + 2s: dispersion");
  if (!p.n) no_data(g);
  cf_rbuf_puts(g, "\n");
  cf_rfig_tail(g);
}

int cf_report_figures_write(const cf_results *r, const cf_report_opts *o, const char *figdir, cf_rfigure **out,
                            int *nout, cf_error *err) {
  const char *results_path = o->results_path;
  cf_rfigure *f = calloc((size_t)(3 + CF_SNAPSHOT_FIGURES) * r->n + 1, sizeof *f);
  *out = NULL, *nout = 0;
  if (!f) return cf_error_set(err, CF_ENOMEM, "out of memory");
  char(*stems)[280] = calloc((size_t)r->n + 1, sizeof *stems); /* one a recording, unique */
  if (!stems) return free(f), cf_error_set(err, CF_ENOMEM, "out of memory");
  int n = 0, rc = CF_OK;
  for (int i = 0; i < r->n && !rc; i++) {
    const cf_res_rec *c = &r->recs[i];
    char *stem = stems[i], base[280];
    cf_report_file_stem(c->name, base, sizeof base);
    snprintf(stem, sizeof stems[i], "%s", base);
    for (int k = 2, taken = 1; taken; k++) {
      taken = 0;
      for (int j = 0; j < i && !taken; j++) taken = !strcmp(stems[j], stem);
      if (taken) snprintf(stem, sizeof stems[i], "%.260s-%d", base, k);
    }
    int has[3] = {c->has_sweep && c->sweep.nd * c->sweep.na > 0, c->has_series && c->series.T > 0,
                  c->has_sens && c->sens.nd * c->sens.na > 0};
    static const char *kinds[3] = {"surface", "series", "sensitivity"};
    for (int k = 0; k < 3 && !rc; k++) {
      if (!has[k]) continue;
      cf_rfigure *x = &f[n];
      snprintf(x->id, sizeof x->id, "%s-%s", stem, kinds[k]);
      snprintf(x->rec, sizeof x->rec, "%s", c->name);
      snprintf(x->kind, sizeof x->kind, "%s", kinds[k]);
      if (k == 0 && c->sweep.nm > 0)
        snprintf(x->caption, sizeof x->caption, "%s: mean error ē(δ, α) of the %d x %d x %d sweep at its best μ = "
                 "%.3g (cm)", c->name, c->sweep.nd, c->sweep.na, c->sweep.nm, c->sweep.model.mu);
      else if (k == 0)
        snprintf(x->caption, sizeof x->caption, "%s: mean error ē(δ, α) of the %d x %d sweep (cm)", c->name,
                 c->sweep.nd, c->sweep.na);
      else if (k == 1)
        snprintf(x->caption, sizeof x->caption, "%s: e(t) and d(t) at δ " CF_RFMT_PAR ", α " CF_RFMT_PAR, c->name,
                 c->series.delta, c->series.alpha);
      else
        snprintf(x->caption, sizeof x->caption, "%s: sensitivity %s around δ " CF_RFMT_PAR ", α " CF_RFMT_PAR,
                 c->name, c->sens.kind, c->sens.at_delta, c->sens.at_alpha);
      cf_rbuf d = {0}, g = {0};
      if (k == 0) surface(c, x, &d, &g, results_path);
      else if (k == 1) series(c, x, &d, &g, results_path);
      else sensitivity(c, x, &d, &g, results_path);
      rc = cf_rfig_write(figdir, x, &d, &g, err);
      cf_rbuf_free(&d);
      cf_rbuf_free(&g);
      n++;
    }
    if (!rc) rc = cf_report_snapshots_write(c, stem, o, figdir, f, &n, err);
  }
  free(stems);
  if (rc) {
    free(f);
    return rc;
  }
  *out = f, *nout = n;
  return CF_OK;
}
