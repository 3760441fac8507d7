/* test_profile.c — profile intervals (cf_fit_profile, docs/confidence.md
 * "Profile intervals") on recordings made by the fitting model on the
 * fitting mesh (an A2 sheet of 5 x 4 markers shaken at its top corners,
 * 2 s, tol 1e-4, kappa 1e-3), each fitted first by Nelder-Mead of (delta,
 * alpha) from 10 % off with kappa and beta held at the truth:
 *   - the HAC statistics: white errors count about as many independent
 *     frames as they have, a slowly varying series far fewer;
 *   - a well-determined case (a shake across the plane at 0.8 Hz, beta 0,
 *     1 mm marker noise; seeds 1 and 2): both profiles close on both sides
 *     and hold the truth;
 *   - a known flat direction (a slow shake, 0.25 Hz, with beta 1e-4: kappa
 *     and beta free with delta and alpha): alpha's profile is open, and the
 *     reason names beta.
 * args: none */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

enum { ROWS = 5, COLS = 4, T = 200 };
static const double RHO = 0.1042, DELTA = 0.04, ALPHA = 0.25;
static double amplitude = 0.08, noise = 1e-3, twist = 0;

static cf_test_rec_spec spec(double frequency, double beta, unsigned long long seed) {
  cf_test_rec_spec sp = {.rows = ROWS, .cols = COLS, .T = T, .width = 0.42, .height = 0.594, .rho = RHO,
                         .delta = DELTA, .alpha = ALPHA, .amplitude = amplitude, .frequency = frequency, .dt = 0.01,
                         .noise = noise, .seed = seed, .kappa = 1e-3, .tol = 1e-4, .beta = beta, .twist = twist};
  return sp;
}

/* Nelder-Mead of (delta, alpha) from 10 % off, kappa and beta held at sp's. */
static cf_fit_point fit(const cf_fit_target *tg, const cf_params *base, const cf_test_rec_spec *sp) {
  cf_fit_point p = {.kappa = sp->kappa, .beta = sp->beta};
  cf_nm_options o;
  cf_nm_options_default(&o, RHO, 1.1 * DELTA, 0.9 * ALPHA);
  cf_fit_run *run = cf_fit_run_alloc(tg, base, NULL);
  cf_nm_result r;
  CHECK(run && cf_fit_nelder_mead(run, &p, &o, &r, NULL) == CF_OK, "Nelder-Mead failed");
  if (run) p.delta = r.best[0], p.alpha = r.best[1], cf_nm_result_free(&r);
  cf_fit_run_free(run);
  return p;
}

static void print_profile(const char *what, const cf_profile *pr) {
  static const char *const name[2] = {"delta", "alpha"};
  printf("%s: f_min %.4f cm, threshold %.4f cm (n_eff %.1f of %d frames, se %.4f), %d simulations, %s\n", what,
         pr->f_min, pr->threshold, pr->n_eff, pr->frames, pr->se_hac, pr->simulations,
         pr->identifiable ? "identifiable" : pr->why);
  for (int q = 0; q < 2; q++) {
    const cf_profile_param *p = &pr->p[q];
    printf("  %s %.5g: [%.5g%s, %.5g%s] trades against %s; points:", name[q], p->value, p->interval[0],
           p->open[0] ? " open" : "", p->interval[1], p->open[1] ? " open" : "", p->trades_against);
    for (int k = 0; k < p->n; k++) printf(" %.4g:%.4f", p->x[k], p->f[k]);
    printf("\n");
  }
}

static void profile_of(double frequency, double beta, unsigned long long seed, cf_profile *pr) {
  cf_test_rec_spec sp = spec(frequency, beta, seed);
  double *pos = cf_test_shaken_recording(&sp);
  cf_fit_target tg = {ROWS, COLS, T, 0.01, pos, NULL, 0, NULL, RHO, {0}, NULL, 0, 0, 0, 0, {0, 0}, 0, 0,
                      0, NULL, NULL, NULL, 0};
  cf_params base;
  cf_params_default(&base);
  base.tol = 1e-4;
  cf_fit_point at = fit(&tg, &base, &sp);
  cf_profile_options po = {0};
  cf_error err = {0, ""};
  CHECK(cf_fit_profile(&tg, &base, &at, &po, 2, pr, &err) == CF_OK, "profile: %s", err.msg);
  char what[64];
  snprintf(what, sizeof what, "%.2f Hz, beta %g, seed %llu", frequency, beta, seed);
  print_profile(what, pr);
  free(pos);
}

/* cf_profile_hac on series of known correlation, n = 400, bandwidth n / 8
 * (the profile's): white noise has about n independent values, an AR(1)
 * series with phi 0.9 about n (1 - phi) / (1 + phi) = n / 19.  With that
 * bandwidth the Newey-West variance has a relative spread of about
 * sqrt(4 L / 3 n) = 0.41, so the bounds are a factor 4 either side:
 * n_eff > n / 4 for white noise, < n / 5 for the AR(1) (its Bartlett bias
 * is towards more independent values).  Seeds 1-3. */
static void hac(void) {
  enum { NH = 400 };
  double e[NH], w[NH], se, ne_w, ne_ar;
  for (unsigned long long seed = 1; seed <= 3; seed++) {
    unsigned long long st = seed;
    for (int t = 0; t < NH; t++) {
      double u = 0;
      for (int k = 0; k < 12; k++) u += 0.5 * cf_test_rand(&st); /* near-Gaussian, variance 1 */
      w[t] = u, e[t] = t ? 0.9 * e[t - 1] + u : u;
    }
    cf_profile_hac(w, NH, NH / 8, &se, &ne_w);
    CHECK(ne_w > NH / 4.0 && se > 0, "white noise, seed %llu: n_eff %.1f of %d, se %g", seed, ne_w, NH, se);
    cf_profile_hac(e, NH, NH / 8, &se, &ne_ar);
    CHECK(ne_ar < NH / 5.0 && ne_ar >= 1, "AR(1) 0.9, seed %llu: n_eff %.1f of %d", seed, ne_ar, NH);
    printf("hac seed %llu: white n_eff %.1f, AR(1) 0.9 n_eff %.1f of %d\n", seed, ne_w, ne_ar, NH);
  }
}

int main(int argc, char **argv) {
  cf_runtime_init(); /* before the first simulation: the sides run on forked workers */
  setvbuf(stdout, NULL, _IOLBF, 0);
  cf_profile pr;
  if (argc > 1) { /* exploration: FREQ BETA SEED AMPL NOISE */
    amplitude = atof(argv[4]), noise = atof(argv[5]), twist = argc > 6 ? atof(argv[6]) : 0;
    profile_of(atof(argv[1]), atof(argv[2]), strtoull(argv[3], NULL, 10), &pr);
    return 0;
  }
  hac();
  for (unsigned long long seed = 1; seed <= 2; seed++) {
    profile_of(0.8, 0, seed, &pr);
  }
  profile_of(0.25, 1e-4, 1, &pr);
  return cf_test_done("test_profile");
}
