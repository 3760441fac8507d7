/* test_tablecloth.c — fitting mu, the cloth's friction on a table (thesis
 * §4.3.1), through the commands a researcher runs:
 * `clothfit synth` makes a tablecloth recording (motion = tablecloth: the
 * sheet hanging above a table is laid on it and dragged over it), `ingest
 * motive --meta` carries the table into the recording (/table), and `fit
 * --params delta,alpha,mu --json` fits the three parameters from the best
 * point of a (delta, alpha, mu) grid (--mu-grid).
 *
 * The recordings are experiments/tablecloth.ini's (made by the fitting model
 * itself: the lattice refined once, dt 0.01 s at 100 Hz, the fitting
 * defaults kappa = 1e-3 and tol = 1e-4, 0.1 mm noise) with mu = 0, 0.3 and
 * 1.0 and seeds 11, 12, 13; (delta, alpha) of polyester A2 (0.026, 0.17);
 * and laid in 0.5 s instead of the experiment's 1.5 s (thesis §4.3.1: "laid
 * dynamically").  Why the faster lay: laid slowly, the cloth's error at the
 * truth moved by up to 0.77 cm with the solver's tolerance (0.8-1.2e-4),
 * more than alpha 10 % off adds, so alpha within 10 % held or failed with
 * the machine (on an AMD EPYC with OpenBLAS core type Zen the mu = 0.3 fit
 * ended 18.3 % low; docs/contacts.md, "On another machine the mu = 0.3 fit
 * fails").  Laid in 0.5 s, the truth's error varies by 0.12-0.21 cm over
 * those tolerances and alpha or delta 10 % off give 0.38-0.91 cm (docs/
 * contacts.md, "A fast lay identifies alpha").
 * The grid start is coarser than fit's default to keep the test short:
 * 7 x 7 (delta, alpha) points of the default ranges at mu = 0, 0.5, 1, 1.5,
 * pruned (--prune: the grid's optimum, Nelder-Mead's start, stays exact).
 * The fit tries to polish Nelder-Mead's optimum (the default for a
 * recording with a table: the minimum of a quadratic fitted to the error on
 * 27 points around it, src/fit/polish.c), and keeps Nelder-Mead's point when
 * the quadratic misses those points by more than the error's noise at the
 * optimum explains (a lack-of-fit F test): on these smooth surfaces it does.
 * Asserted:
 *   - the ingested /table is the synthetic table (height, extent, to 1e-9 m);
 *   - each fit tried the polish and either applied it or says why not, and
 *     reports a mu in [0, 3]; Nelder-Mead's training error is at most 5 %
 *     above the truth's noise band (the largest of the truth's errors at
 *     the tolerances 0.8, 0.9, 1, 1.1 and 1.2 x 1e-4), and the reported
 *     point's at most 25 % above it (a polished point is not chosen for its
 *     own error, which is one draw of the noise);
 *   - the bounds: the frictionless recording's mu below 0.05, mu = 0.3
 *     and 1.0 within 20 %, delta and alpha within 10 % for all three (when
 *     written, on an AMD EPYC, Zen kernels: mu 0.0168, -1.1 %, +5.4 %; delta
 *     -1.6, -1.7, +0.1 %; alpha -4.2, -3.7, -1.0 %; none polished).
 * usage: test_tablecloth CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cf_io.h"
#include "cli_json.h"
#include "testutil.h"

static const char *exe, *root;
static char dir[] = "/tmp/cf_tablecloth.XXXXXX";

static char *run(char *const *argv, const char *what) { return cf_test_run_ok(argv, dir, what); }

/* Synthesize and ingest the recording with friction mu; returns 0 or -1. */
static int make(double mu, int seed, char *h5, size_t size) {
  /* experiments/tablecloth.ini with its seed, mu and lay_time changed (the last value of a key wins) */
  char src[600], extra[200], stem[32];
  snprintf(src, sizeof src, "%s/experiments/tablecloth.ini", root);
  snprintf(extra, sizeof extra, "[recording]\nseed = %d\n[table]\nmu = %g\nlay_time = 0.5\n", seed, mu);
  snprintf(stem, sizeof stem, "tc%d", seed);
  if (cf_test_synth_ingest(exe, dir, src, extra, stem, h5, size)) return -1;
  cf_recording r;
  cf_error err = {0, ""};
  int rc = cf_recording_read_h5(h5, &r, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (rc) return -1;
  const double want[5] = {1.5 - 0.594 - 0.1, -1, 1, -1, 0.3};
  double d = 0;
  for (int q = 0; q < 5; q++) d = fmax(d, fabs(r.meta.table[q] - want[q]));
  CHECK(d <= 1e-9, "/table differs from the synthetic table by %.3g m", d);
  cf_recording_free(&r);
  return 0;
}

/* fit --json with the extra arguments; its JSON line into *json (malloc'ed). */
static double fit_at(const char *h5, char **json, const char *mu, const char *tol) {
  char *a[] = {(char *)exe, "fit", (char *)h5, "--start", "0.026,0.17", "--mu", (char *)mu, "--max-evals", "1",
               "--train", "0:1", "--tol", (char *)tol, "--polish", "none", "--no-confidence", "--json", NULL};
  char *o = run(a, "fit at the truth");
  *json = o ? strdup(cf_test_last_line(o)) : NULL;
  free(o);
  return *json ? cf_test_json_num(*json, "train_error_cm") : NAN;
}

/* The three-parameter fit from the (delta, alpha, mu) grid. */
static double fit3(const char *h5, char **json) {
  char *a[] = {(char *)exe, "fit", (char *)h5, "--params", "delta,alpha,mu", "--delta-grid", "0.05:1:7*rho",
               "--alpha-grid", "0.05:4:7*rho", "--mu-grid", "0:1.5:4", "--prune", "--train", "0:1", "--no-confidence",
               "--json", NULL};
  char *o = run(a, "fit");
  *json = o ? strdup(cf_test_last_line(o)) : NULL;
  free(o);
  return *json ? cf_test_json_num(*json, "train_error_cm") : NAN;
}

int main(int argc, char **argv) {
  int st = cf_test_cli_begin(argc, argv, &exe, &root, dir);
  if (st) return st;
  const double truth[3] = {0, 0.3, 1.0}, D = 0.026, A = 0.17;
  double mu_fit[3] = {NAN, NAN, NAN}, d_fit[3] = {NAN, NAN, NAN};
  for (int i = 0; i < 3; i++) {
    char h5[600], *j = NULL, *jt = NULL, mu[32];
    if (make(truth[i], 11 + i, h5, sizeof h5)) continue;
    snprintf(mu, sizeof mu, "%g", truth[i]);
    double e_truth = fit_at(h5, &jt, mu, "1e-4"), e_band = e_truth;
    const char *tols[4] = {"0.8e-4", "0.9e-4", "1.1e-4", "1.2e-4"};
    for (int k = 0; k < 4; k++) {
      char *jb = NULL;
      double e = fit_at(h5, &jb, mu, tols[k]);
      if (jb && !(e <= e_band)) e_band = e; /* NaN: a failed evaluation counts */
      free(jb);
    }
    double e_fit = fit3(h5, &j);
    if (!j || !jt) continue;
    mu_fit[i] = cf_test_json_num(j, "mu"), d_fit[i] = cf_test_json_num(j, "delta");
    double a_fit = cf_test_json_num(j, "alpha");
    double nd = cf_test_json_num(j, "nm_delta"), na = cf_test_json_num(j, "nm_alpha"), nm = cf_test_json_num(j, "nm_mu");
    printf("mu %.1f: Nelder-Mead's optimum delta %+.1f %% alpha %+.1f %% mu %.4f, training error %.4f cm\n", truth[i],
           100 * (nd / D - 1), 100 * (na / A - 1), nm, cf_test_json_num(j, "nm_train_error_cm"));
    CHECK(cf_test_json_has_str(j, "polish", "quadratic") &&
              (cf_test_json_is(j, "polished", "true") ||
               (cf_test_json_is(j, "polished", "false") && cf_test_json_has_str(j, "polish_why", NULL))),
          "mu %g: the fit of a recording with a table was neither polished nor says why not: %s", truth[i], j);
    printf("mu %.1f: fitted delta %.4f (%+.1f %%) alpha %.4f (%+.1f %%) mu %.4f (%+.1f %%; grid start %.2f, %g "
           "evaluations), training error %.4f cm; at the truth %.4f cm (%.4f cm at most at the tolerances "
           "0.8-1.2e-4)\n", truth[i], d_fit[i], 100 * (d_fit[i] / D - 1), a_fit, 100 * (a_fit / A - 1), mu_fit[i],
           truth[i] > 0 ? 100 * (mu_fit[i] / truth[i] - 1) : NAN, cf_test_json_num(j, "start_mu"),
           cf_test_json_num(j, "evaluations"), e_fit, e_truth, e_band);
    CHECK(mu_fit[i] >= 0 && mu_fit[i] <= 3, "mu %g: fitted mu %g outside [0, 3]", truth[i], mu_fit[i]);
    double e_nm = cf_test_json_num(j, "nm_train_error_cm");
    CHECK(e_nm <= 1.05 * e_band, "mu %g: Nelder-Mead's training error %.4f cm is more than 5 %% above the truth's "
          "noise band (at most %.4f cm)", truth[i], e_nm, e_band);
    CHECK(e_fit <= 1.25 * e_band, "mu %g: the fit's training error %.4f cm is more than 25 %% above the "
          "truth's noise band (at most %.4f cm)", truth[i], e_fit, e_band);
    CHECK(fabs(d_fit[i] / D - 1) <= 0.1, "mu %g: delta fitted as %g, more than 10 %% off %g", truth[i], d_fit[i], D);
    CHECK(fabs(a_fit / A - 1) <= 0.1, "mu %g: alpha fitted as %g, more than 10 %% off %g", truth[i], a_fit, A);
    free(j), free(jt);
  }
  CHECK(mu_fit[0] < 0.05, "the frictionless recording's fitted mu is %g, expected < 0.05", mu_fit[0]);
  CHECK(fabs(mu_fit[1] - 0.3) <= 0.2 * 0.3, "mu 0.3 fitted as %g: more than 20 %% off", mu_fit[1]);
  CHECK(fabs(mu_fit[2] - 1.0) <= 0.2 * 1.0, "mu 1.0 fitted as %g: more than 20 %% off", mu_fit[2]);
  return cf_test_cli_end(dir, "test_tablecloth");
}
