/* test_sweep_mu.c — the mu axis of a sweep (`sweep --mu-grid`),
 * through the commands a researcher runs, on a short synthetic tablecloth
 * recording (experiments/tablecloth.ini cut to 1.2 s: the cloth reaches the
 * table at ~0.63 s):
 *   - `sweep --mu-grid 0:1:3` on a 2 x 2 (delta, alpha) grid: -o stores
 *     sweep/mu [3] and the 3 x 2 x 2 grids; each mu layer is bitwise the
 *     (delta, alpha) sweep run with `--mu` at that value (the axis changes
 *     nothing but mu); the best point is the smallest exact error of all 12
 *     and its mu is in the table, `--json` and `inspect --json` (best_mu);
 *   - the same grid as 3 shards joined by `merge` equals the single run
 *     bit for bit (the task numbering spans the mu axis);
 *   - `report` draws the surface at the best mu and says so;
 *   - `sensitivity --scan mu` (thesis Fig. 4.20) at a grid point is bitwise
 *     that point's mu layers, stored with its mu axis, drawn as e(mu);
 *   - fit's polish of a recording with a table: the quadratic's minimum near
 *     Nelder-Mead's optimum (or that optimum and why), --polish none, and a
 *     rerun that gives the same point;
 *   - errors: --mu-grid on a recording without a table, a malformed
 *     --mu-grid, and fit --mu-grid without fitting mu are one line each
 *     naming what was expected, with a non-zero exit and no results file.
 * usage: test_sweep_mu CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cf_io.h"
#include "cli_json.h"
#include "sweepcmp.h"
#include "testutil.h"

static const char *exe, *root;
static char dir[] = "/tmp/cf_sweep_mu.XXXXXX", rec[600];
#define GRID "--delta-grid", "0.02:0.03:2", "--alpha-grid", "0.12:0.2:2"

static void path_of(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", dir, name); }

static int read_one(const char *name, cf_results *r) {
  char p[700];
  path_of(p, sizeof p, name);
  cf_error err = {0, ""};
  cf_results_init(r);
  int rc = cf_results_read(p, r, &err);
  int ok = rc == CF_OK && r->n == 1 && (r->recs[0].has_sweep || r->recs[0].has_sens);
  CHECK(ok, "%s: %s", name, err.msg);
  return ok;
}

/* The 2 x 2 sweep at --mu M into out (no mu axis). */
static void sweep_at(const char *mu, const char *name) {
  char out[700];
  path_of(out, sizeof out, name);
  char *a[] = {(char *)exe, "sweep", rec, GRID, "--mu", (char *)mu, "-o", out, NULL};
  free(cf_test_run_ok(a, dir, "sweep --mu"));
}

/* The layers of the mu sweep against the sweeps at each mu. */
static void layers(const cf_res_sweep *w) {
  static const char *mus[3] = {"0", "0.5", "1"};
  for (int im = 0; im < 3; im++) {
    char name[32];
    snprintf(name, sizeof name, "at%d.h5", im);
    sweep_at(mus[im], name);
    cf_results r;
    if (!read_one(name, &r)) continue;
    const cf_res_sweep *v = &r.recs[0].sweep;
    size_t n = 4, off = (size_t)im * n;
    CHECK(v->nm == 0 && v->model.mu == atof(mus[im]), "%s: mu axis %d, mu %g", name, v->nm, v->model.mu);
    CHECK(!memcmp(v->e, w->e + off, n * sizeof *v->e) && !memcmp(v->s, w->s + off, n * sizeof *v->s) &&
          !memcmp(v->status, w->status + off, n * sizeof *v->status),
          "mu layer %d differs from the sweep at --mu %s (first error %.6g against %.6g)", im, mus[im], w->e[off],
          v->e[0]);
    cf_results_free(&r);
  }
}

/* `report` of the results file out into dir/name: its figure file fig says what. */
static void report_says(const char *out, const char *name, const char *fig, const char *what) {
  char rep[700], gp[800];
  path_of(rep, sizeof rep, name);
  char *ra[] = {(char *)exe, "report", (char *)out, "-o", rep, NULL};
  free(cf_test_run_ok(ra, dir, "report"));
  snprintf(gp, sizeof gp, "%s/figures/%s", rep, fig);
  char *g = cf_test_slurp(gp, NULL);
  CHECK(g && strstr(g, what), "%s does not say '%s'", gp, what);
  free(g);
}

/* sensitivity --scan mu at the grid's (0.02, 0.12) with --mu 0.5: mu = 0,
 * 0.5, 1, the sweep's points (im, 0, 0). */
static void scan_mu(const cf_res_sweep *w) {
  char out[700];
  path_of(out, sizeof out, "scan.h5");
  char *a[] = {(char *)exe, "sensitivity", rec, "--at", "0.02,0.12", "--mu", "0.5", "--scan", "mu", "-n", "3", "-o",
               out, "--json", NULL};
  char *o = cf_test_run_ok(a, dir, "sensitivity --scan mu");
  cf_results r;
  if (o && read_one("scan.h5", &r) && r.recs[0].has_sens) {
    const cf_res_sens *m = &r.recs[0].sens;
    CHECK(!strcmp(m->kind, "mu") && m->nm == 3 && m->nd == 1 && m->na == 1 && m->mu[2] == 1 && m->model.mu == 0.5,
          "scan: kind %s, %d x %d x %d, model mu %g", m->kind, m->nm, m->nd, m->na, m->model.mu);
    for (int im = 0; m->nm == 3 && im < 3; im++)
      CHECK(!memcmp(&m->e[im], &w->e[im * 4], sizeof(double)) && m->status[im] == w->status[im * 4],
            "scan at mu %g: %.17g, the sweep's %.17g", m->mu[im], m->e[im], w->e[im * 4]);
    report_says(out, "scanrep", "tc-sensitivity.gp", "ē(μ)");
    cf_results_free(&r);
  }
  free(o);
  char *b[] = {(char *)exe, "sensitivity", rec, "--at", "0.02,0.12", "--scan", "mu", NULL};
  char *so = NULL, *se = NULL;
  int st = cf_test_run(b, dir, &so, &se);
  CHECK(st != 0 && se && strstr(se, "--scan mu needs --mu M > 0"), "scan mu without --mu: %d '%s'", st, se ? se : "");
  free(so), free(se);
}

/* sweep --mu-grid: the stored axis and grids, the best point, the outputs. */
static void mu_grid(void) {
  char out[700];
  path_of(out, sizeof out, "mu.h5");
  char *a[] = {(char *)exe, "sweep", rec, GRID, "--mu-grid", "0:1:3", "-o", out, "--json", NULL};
  char *o = cf_test_run_ok(a, dir, "sweep --mu-grid");
  const char *j = o ? cf_test_last_line(o) : "";
  cf_results r;
  if (!read_one("mu.h5", &r)) return free(o);
  const cf_res_sweep *w = &r.recs[0].sweep;
  CHECK(w->nm == 3 && w->nd == 2 && w->na == 2 && cf_res_sweep_points(w) == 12, "grid %d x %d x %d", w->nm, w->nd,
        w->na);
  if (w->nm == 3) {
    CHECK(w->mu[0] == 0 && w->mu[1] == 0.5 && w->mu[2] == 1, "mu axis %g %g %g", w->mu[0], w->mu[1], w->mu[2]);
    int best = -1, ok = 0;
    for (int k = 0; k < 12; k++)
      if (w->status[k] == CF_OK && !w->pruned[k] && (ok++, best < 0 || w->e[k] < w->e[best])) best = k;
    CHECK(ok == 12 && w->best == best, "best %d, expected %d (%d points ok)", w->best, best, ok);
    double d, al, mu;
    cf_res_sweep_at(w, w->best, &d, &al, &mu);
    CHECK(w->model.mu == mu, "model mu %g is not the best point's %g", w->model.mu, mu);
    CHECK(cf_test_json_num(j, "recordings.0.mu") == mu && cf_test_json_num(j, "recordings.0.delta") == d,
          "--json mu %g delta %g, best point mu %g delta %g", cf_test_json_num(j, "recordings.0.mu"),
          cf_test_json_num(j, "recordings.0.delta"), mu, d);
    CHECK(o && strstr(o, "      mu ") && cf_test_json_num(j, "grid_points") == 12, "table without a mu column or "
          "grid_points %g", cf_test_json_num(j, "grid_points"));
    char *ia[] = {(char *)exe, "inspect", out, "--json", NULL};
    char *io = cf_test_run_ok(ia, dir, "inspect");
    const char *ij = io ? cf_test_last_line(io) : "";
    CHECK(cf_test_json_num(ij, "recordings.0.sweep.best_mu") == mu && cf_test_json_num(ij, "recordings.0.sweep.n_mu") == 3 &&
          cf_test_json_num(ij, "recordings.0.sweep.points") == 12, "inspect: best_mu %g n_mu %g points %g",
          cf_test_json_num(ij, "recordings.0.sweep.best_mu"), cf_test_json_num(ij, "recordings.0.sweep.n_mu"),
          cf_test_json_num(ij, "recordings.0.sweep.points"));
    free(io);
    char *ta[] = {(char *)exe, "inspect", out, NULL}; /* the text: no sensitivity line without a map */
    char *to = cf_test_run_ok(ta, dir, "inspect");
    CHECK(to && strstr(to, "mu 0 .. 1 (3) = 12 points") && !strstr(to, "sensitivity") && !strstr(to, "points at delta"),
          "inspect text: '%s'", to ? to : "");
    free(to);
    layers(w);
    scan_mu(w);
    report_says(out, "rep", "tc-surface.gp", "at its best μ");
  }
  cf_results_free(&r);
  free(o);
}

/* 3 shards joined by merge give the single run's results. */
static void shards(void) {
  char o[3][700], m[700];
  for (int i = 0; i < 3; i++) {
    char name[32], spec[16];
    snprintf(name, sizeof name, "shard%d.h5", i);
    snprintf(spec, sizeof spec, "--shard=%d/3", i);
    path_of(o[i], sizeof o[i], name);
    char *a[] = {(char *)exe, "sweep", rec, GRID, "--mu-grid", "0:1:3", spec, "-o", o[i], NULL};
    free(cf_test_run_ok(a, dir, "sweep --shard"));
  }
  path_of(m, sizeof m, "merged.h5");
  char *a[] = {(char *)exe, "merge", o[0], o[1], o[2], "-o", m, NULL};
  free(cf_test_run_ok(a, dir, "merge"));
  same_sweep(dir, "mu.h5", "merged.h5");
}

/* One error line, a non-zero exit, no results file. */
static void refused(char *const *argv, const char *out, const char *want) {
  char *so = NULL, *se = NULL;
  int st = cf_test_run(argv, dir, &so, &se);
  int lines = 0;
  for (const char *c = se; c && *c; c++) lines += *c == '\n';
  CHECK(st != 0 && se && strstr(se, want) && lines == 1 && access(out, F_OK) != 0,
        "%s %s: status %d, stderr '%s', expected one line with '%s' and no %s", argv[1], argv[2], st,
        se ? se : "", want, out);
  free(so), free(se);
}

static void errors(void) {
  char plain[700], out[700];
  path_of(out, sizeof out, "refused.h5");
  char src[700];
  snprintf(src, sizeof src, "%s/experiments/tablecloth.ini", root);
  /* the same cloth shaken, without a table */
  if (cf_test_synth_ingest(exe, dir, src, "[recording]\nmotion = shake\nduration = 1.5\n", "plain", plain,
                           sizeof plain))
    return;
  char *a1[] = {(char *)exe, "sweep", plain, GRID, "--mu-grid", "0:1:3", "-o", out, NULL};
  refused(a1, out, "--mu-grid needs a table in the recording");
  char *a2[] = {(char *)exe, "sweep", rec, GRID, "--mu-grid", "1:0:3", "-o", out, NULL};
  refused(a2, out, "invalid --mu-grid '1:0:3': expected A:B:N");
  char *a3[] = {(char *)exe, "sweep", rec, GRID, "--mu-grid", "0:1:3*rho", "-o", out, NULL};
  refused(a3, out, "invalid --mu-grid");
  char *a4[] = {(char *)exe, "fit", rec, "--mu-grid", "0:1:3", "-o", out, NULL};
  refused(a4, out, "--mu-grid is the grid start's mu axis: it needs --params delta,alpha,mu");
}

/* fit's polish (src/fit/polish.c) on the short recording, fitting (delta,
 * alpha) at mu 0.5 (on 1.2 s mu itself hardly shows: its surface is no
 * bowl): with --polish none the fit is Nelder-Mead's optimum; by default (a
 * recording with a table) the reported point is the quadratic's minimum within 2.5 design
 * steps of it (the design moves at most once, by at most one of its steps
 * of up to 120 % of the first), or Nelder-Mead's with the reason;
 * a rerun with the same -o takes the design's 27 simulations from the
 * journal and reports the same point. */
static void polish(void) {
  char out[700], *j[3] = {NULL, NULL, NULL};
  path_of(out, sizeof out, "polish.h5");
  char *a[] = {(char *)exe, "fit", rec, "--params", "delta,alpha", "--start", "0.026,0.17", "--mu", "0.5",
               "--max-evals", "12", "--train", "0:1", "--no-confidence", "--json", "-o", out, NULL};
  for (int k = 0; k < 3; k++) {
    if (k == 2) a[15] = "--polish", a[16] = "none"; /* instead of -o */
    char *o = cf_test_run_ok(a, dir, "fit (polish)");
    j[k] = o ? strdup(cf_test_last_line(o)) : NULL;
    free(o);
  }
  if (!j[0] || !j[1] || !j[2]) return free(j[0]), free(j[1]), free(j[2]);
  const char *key[2] = {"delta", "alpha"}, *nm[2] = {"nm_delta", "nm_alpha"};
  int polished = cf_test_json_is(j[0], "polished", "true");
  CHECK(cf_test_json_has_str(j[0], "polish", "quadratic") && (polished || cf_test_json_has_str(j[0], "polish_why", NULL)),
        "fit of a recording with a table: not polished and no reason why: %s", j[0]);
  CHECK(cf_test_json_has_str(j[2], "polish", "none") && cf_test_json_is(j[2], "polished", "false"), "fit --polish none: %s",
        j[2]);
  for (int q = 0; q < 2; q++) {
    double x = cf_test_json_num(j[0], key[q]), x0 = cf_test_json_num(j[0], nm[q]);
    CHECK(polished ? fabs(x - x0) <= 2.5 * 0.2 * x0 : x == x0,
          "%s %.6g against Nelder-Mead's %.6g (polished %d)", key[q], x, x0, polished);
    CHECK(cf_test_json_num(j[2], key[q]) == cf_test_json_num(j[2], nm[q]) && cf_test_json_num(j[2], nm[q]) == x0,
          "--polish none: %s %.9g is not Nelder-Mead's %.9g (%.9g with the polish)", key[q],
          cf_test_json_num(j[2], key[q]), cf_test_json_num(j[2], nm[q]), x0);
    CHECK(cf_test_json_num(j[1], key[q]) == x, "the rerun's %s %.9g, the run's %.9g", key[q],
          cf_test_json_num(j[1], key[q]), x);
  }
  char why[200] = "", *w = cf_test_json_str(j[0], "polish_why");
  if (w) snprintf(why, sizeof why, " (%s)", w);
  CHECK(!polished || !w, "polished, with a reason not to: %s", j[0]);
  printf("polish: %s%s; delta %.5f alpha %.5f from Nelder-Mead's %.5f %.5f\n",
         polished ? "polished" : "kept", why, cf_test_json_num(j[0], "delta"), cf_test_json_num(j[0], "alpha"),
         cf_test_json_num(j[0], "nm_delta"), cf_test_json_num(j[0], "nm_alpha"));
  free(j[0]), free(j[1]), free(j[2]), free(w);
}

int main(int argc, char **argv) {
  int st = cf_test_cli_begin(argc, argv, &exe, &root, dir);
  if (st) return st;
  char src[700];
  snprintf(src, sizeof src, "%s/experiments/tablecloth.ini", root);
  if (cf_test_synth_ingest(exe, dir, src, "[recording]\nduration = 1.2\n", "tc", rec, sizeof rec) == 0) {
    mu_grid();
    shards();
    polish();
    errors();
  }
  return cf_test_cli_end(dir, "test_sweep_mu");
}
