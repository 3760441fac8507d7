/* test_profile.c — profile intervals (cf_fit_profile, docs/confidence.md
 * "Profile intervals") on recordings made by the fitting model on the
 * fitting mesh (an A2 sheet of 5 x 4 markers shaken across its plane at
 * its top corners, 2 s, tol 1e-4, kappa 1e-3, beta 1e-3), each fitted
 * first by Nelder-Mead of (delta, alpha) from 10 % off with kappa and beta
 * held at the truth; the profiles free kappa and beta too:
 *   - the HAC statistics on series of known correlation (hac);
 *   - a well-determined shake (0.25 Hz, 8 cm, 2 mm marker noise; seeds 1
 *     and 2): both profiles close on both sides and hold the truth;
 *   - a flat one (the same shaken by 1 mm; seeds 1 and 2): alpha's profile
 *     is open and the fit not identifiable, naming what alpha trades against.
 * With arguments FREQ BETA SEED AMPLITUDE NOISE [TWIST [KAPPA]] it prints
 * one such profile and asserts nothing (for measuring other recordings).
 * args: none */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_profile.h"
#include "synthrec.h"
#include "testutil.h"

enum { ROWS = 5, COLS = 4, T = 200 };
static const double RHO = 0.1042, DELTA = 0.04, ALPHA = 0.25;
static double amplitude = 0.08, noise = 1e-3, twist = 0, kappa = 1e-3;

static cf_test_rec_spec spec(double frequency, double beta, unsigned long long seed) {
  cf_test_rec_spec sp = {.rows = ROWS, .cols = COLS, .T = T, .width = 0.42, .height = 0.594, .rho = RHO,
                         .delta = DELTA, .alpha = ALPHA, .amplitude = amplitude, .frequency = frequency, .dt = 0.01,
                         .noise = noise, .seed = seed, .kappa = kappa, .tol = 1e-4, .beta = beta, .twist = twist};
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
  cf_fit_target tg = {.rows = ROWS, .cols = COLS, .T = T, .dt = sp.dt, .pos = pos, .rho = RHO}; /* the rest 0 */
  cf_params base;
  cf_params_default(&base);
  base.tol = sp.tol;
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

/* The truth in [lo, hi]. */
static int holds(const cf_profile_param *p, double truth) { return p->interval[0] <= truth && truth <= p->interval[1]; }

/* Well determined: a shake at 0.25 Hz with beta 1e-3 (bending relaxes in
 * 1 s, within the 2 s), 2 mm marker noise.  Both profiles close on both
 * sides, hold the truth, and are narrower than +-25 % (the bundled study's
 * acceptance for a shake's half-width); the least error is no more than
 * the fit's (it is re-minimised over more parameters). */
static void determined(void) {
  noise = 2e-3;
  for (unsigned long long seed = 1; seed <= 2; seed++) {
    cf_profile pr;
    profile_of(0.25, 1e-3, seed, &pr);
    CHECK(pr.identifiable == 1, "seed %llu: not identifiable: %s", seed, pr.why);
    const double truth[2] = {DELTA, ALPHA};
    for (int q = 0; q < 2; q++) {
      const cf_profile_param *p = &pr.p[q];
      CHECK(!p->open[0] && !p->open[1], "seed %llu, %s: open %d %d", seed, q ? "alpha" : "delta", p->open[0], p->open[1]);
      CHECK(holds(p, truth[q]), "seed %llu, %s: [%g, %g] misses the truth %g", seed, q ? "alpha" : "delta",
            p->interval[0], p->interval[1], truth[q]);
      CHECK(p->interval[1] - p->interval[0] < 0.5 * truth[q], "seed %llu, %s: [%g, %g] wider than +-25 %%", seed,
            q ? "alpha" : "delta", p->interval[0], p->interval[1]);
    }
    CHECK(pr.threshold > 0 && pr.n_eff >= 1 && pr.n_eff <= pr.frames, "threshold %g, n_eff %g of %d", pr.threshold,
          pr.n_eff, pr.frames);
  }
}

/* Flat: the corners shaken by 1 mm under 2 mm of marker noise, so that
 * no parameter moves the cloth measurably: alpha's profile stays within
 * the threshold up to a bound (open), the fit is not identifiable, and the
 * reason says what alpha trades against, naming a re-minimised parameter. */
static void flat(void) {
  noise = 2e-3, amplitude = 1e-3;
  for (unsigned long long seed = 1; seed <= 2; seed++) {
    cf_profile pr;
    profile_of(0.25, 1e-3, seed, &pr);
    const cf_profile_param *a = &pr.p[1];
    CHECK(a->open[0] || a->open[1], "seed %llu: alpha's profile closed: [%g, %g]", seed, a->interval[0],
          a->interval[1]);
    CHECK(pr.identifiable == 0, "seed %llu: identifiable", seed);
    CHECK(strstr(pr.why, "trades against") && a->trades_against[0], "seed %llu: why: %s; trades against '%s'", seed,
          pr.why, a->trades_against);
  }
}

int main(int argc, char **argv) {
  cf_runtime_init(); /* before the first simulation: the sides run on forked workers */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc > 1) { /* one profile: FREQ BETA SEED AMPLITUDE NOISE [TWIST [KAPPA]] */
    cf_profile pr;
    amplitude = atof(argv[4]), noise = atof(argv[5]), twist = argc > 6 ? atof(argv[6]) : 0;
    kappa = argc > 7 ? atof(argv[7]) : 1e-3;
    profile_of(atof(argv[1]), atof(argv[2]), strtoull(argv[3], NULL, 10), &pr);
    return 0;
  }
  hac();
  determined();
  flat();
  return cf_test_done("test_profile");
}
