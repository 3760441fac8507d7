/* test_confidence.c — fit confidence is calibrated (docs/confidence.md):
 * 20 recordings made by the fitting model itself (an A2
 * sheet shaken at its top corners, 4 s), each with its own marker-noise
 * seed and a true (delta, alpha) drawn uniformly off the default grid's
 * points (delta in rho * [0.2, 0.8], alpha in rho * [0.5, 3.5]); each is
 * fitted by Nelder-Mead from a start 20 % off, and cf_fit_confidence_batch
 * gives 95 % intervals around the fit.  Checked: both intervals hold the
 * truth in at least 16 of the 20 (80 %), every recording is identifiable
 * (a clean shake determines both parameters), and the intervals are not
 * vacuous (half-widths below 50 % of the estimate).  Also a degenerate case
 * is flagged: with the corners held still the cloth hangs at rest, the
 * error does not depend on (delta, alpha) and the fit must say so.
 *
 * The stencil's width (+-30 %, confidence.c) was chosen on another set of
 * 20 recordings (truth seed 77, noise seeds 1000-1019): the intervals held
 * the truth in 8, 15 and 20 of them at +-5, +-15 and +-30 %: narrow stencils
 * see the objective's numerical roughness (projection tolerance) rather than
 * the data's noise.  This test uses fresh seeds (truth seed 2026, noise
 * 5000-5019): 17 of 20 covered when it was written, 19 of 20 in the run
 * that added held_kappa (at least 16 asserted), with a
 * deterministic outcome on one machine; another BLAS kernel set may move a
 * borderline case by one.  These 20 hold kappa = 0, which the check of the
 * held kappa and beta skip; held_kappa below tests them.  The check of the
 * held rest metric is tried on them too (19 of 20 covered, all
 * identifiable, in the run that added it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

enum { N = 20, ROWS = 5, COLS = 4, T = 400 };
static const double RHO = 0.1042;

static cf_test_rec_spec spec(int i, double delta, double alpha, double amplitude) {
  cf_test_rec_spec sp = {.rows = ROWS, .cols = COLS, .T = T, .width = 0.42, .height = 0.594, .rho = RHO,
                         .delta = delta, .alpha = alpha, .amplitude = amplitude, .frequency = 0.7, .dt = 0.01,
                         .noise = 2e-3, .seed = 5000 + (unsigned long long)i};
  return sp;
}

/* Nelder-Mead from 20 % off the truth on the whole recording. */
static cf_fit_point fit(const cf_fit_target *tg, const cf_params *base, const cf_fit_point *fixed, double d,
                        double a) {
  cf_nm_options o;
  cf_nm_options_default(&o, RHO, 1.2 * d, 0.8 * a);
  o.size_tol = 1e-5;
  cf_fit_run *run = cf_fit_run_alloc(tg, base, NULL);
  cf_nm_result r;
  cf_fit_point p = *fixed;
  CHECK(run && cf_fit_nelder_mead(run, fixed, &o, &r, NULL) == CF_OK, "Nelder-Mead failed");
  if (run) p.delta = r.best[0], p.alpha = r.best[1], cf_nm_result_free(&r);
  cf_fit_run_free(run);
  return p;
}

/* The checks of the held kappa and beta (confidence.c, held_checks) and of
 * the held rest metric (held_rest: where its refit starts, the first three
 * must keep their fit under it too; on these recordings, 2 mm of marker
 * noise on the first frame, that frame does not project onto the flat
 * lattice within tol 1e-4 and the rest metric is not checked, as one run
 * printed):
 * recordings made by the model with kappa = 1e-3 (tol 1e-4, the fitting
 * defaults) and beta = 0, and fitted with both held at those values, keep
 * their fit when refitted with kappa tripled and with beta = kappa x the
 * window (4 s): moves <= 25 %, identifiable.  Made with kappa = 1e-5 (the
 * bundled study's synthetic cloth) and fitted with kappa held at 1e-3 (a
 * model stiffer than the cloth, as on the study's twists), or made with
 * beta = 5e-3 (bending damped in 5 s) and fitted with beta = 0, the fit the
 * mismatch pulls furthest from the truth is flagged, and every fit within
 * 10 % of the truth is not.  When written: the kappa 1e-5 shake at 0.9 Hz
 * (delta -30 %) moved +30 % with kappa x3; the beta 5e-3 shake at 0.9 Hz
 * (delta +28 %, alpha +55 %) moved -22 %, -30 % with beta 4e-3, and the
 * other seven within 10 % of the truth moved by at most 11.7 %.  Seeds
 * 6000-6002, shakes at 0.5, 0.7, 0.9 Hz; prints every move. */
static void held_kappa(void) { /* and beta */
  enum { M = 3, V = 3 };
  const double made[V] = {1e-3, 1e-5, 1e-3}, made_beta[V] = {0, 0, 5e-3};
  int good = 0, close = 0, close_ok = 0;
  for (int v = 0; v < V; v++) {
    int worst_flagged = 0;
    double worst = -1;
    cf_params base;
    cf_params_default(&base);
    base.tol = 1e-4;
    cf_fit_point fixed = {.kappa = 1e-3};
    cf_fit_target tg[M];
    const cf_fit_target *tgp[M];
    double *pos[M];
    cf_fit_point at[M];
    for (int i = 0; i < M; i++) {
      cf_test_rec_spec sp = spec(i, RHO * 0.4, RHO * 2.5, 0.08);
      sp.seed = 6000 + (unsigned long long)i, sp.kappa = made[v], sp.tol = 1e-4, sp.frequency = 0.5 + 0.2 * i;
      sp.beta = made_beta[v];
      pos[i] = cf_test_shaken_recording(&sp);
      tg[i] = (cf_fit_target){ROWS, COLS, T, 0.01, pos[i], NULL, 0, NULL, RHO, {0}, NULL, 0, 0, 0, 0, {0, 0}, 0, 0,
                              0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
      tgp[i] = &tg[i];
      at[i] = fit(&tg[i], &base, &fixed, RHO * 0.4, RHO * 2.5);
    }
    cf_confidence c[M];
    cf_error err = {0, ""};
    CHECK(cf_fit_confidence_batch(M, tgp, &base, at, NULL, NULL, NULL, 0, CF_SEARCH_NM, NULL, c, &err) == CF_OK, "%s", err.msg);
    for (int i = 0; i < M; i++) {
      double m = fmax(fmax(fmax(fabs(c[i].kappa_shift[0]), fabs(c[i].kappa_shift[1])),
                           fmax(fabs(c[i].beta_shift[0]), fabs(c[i].beta_shift[1]))),
                      fmax(fabs(c[i].rest_shift[0]), fabs(c[i].rest_shift[1])));
      printf("made with kappa %g beta %g, fitted at 1e-3, 0: fit (%.4f, %.4f), refitted with kappa x3 it moves %+.1f %%, "
             "%+.1f %%, with beta %+.1f %%, %+.1f %%, with the other rest metric %+.1f %%, %+.1f %%: %s\n", made[v],
             made_beta[v], at[i].delta, at[i].alpha, 100 * c[i].kappa_shift[0], 100 * c[i].kappa_shift[1],
             100 * c[i].beta_shift[0], 100 * c[i].beta_shift[1], 100 * c[i].rest_shift[0], 100 * c[i].rest_shift[1],
             c[i].identifiable == 1 ? "identifiable" : c[i].why);
      double miss = fmax(fabs(at[i].delta / (RHO * 0.4) - 1), fabs(at[i].alpha / (RHO * 2.5) - 1));
      if (v == 0) good += c[i].identifiable == 1 && isfinite(c[i].beta_shift[0]) && m <= 0.25;
      close += miss <= 0.1, close_ok += miss <= 0.1 && c[i].identifiable == 1;
      /* the mismatched set's own check flags it: kappa x3 for kappa, beta for beta */
      if (miss > worst)
        worst = miss, worst_flagged = c[i].identifiable == 0 && strstr(c[i].why, made_beta[v] > 0 ? "damping" : "bending");
      free(pos[i]);
    }
    if (v > 0)
      CHECK(worst_flagged, "made with kappa %g beta %g: the fit furthest from the truth (%.0f %% off) is not flagged "
            "by its check",
            made[v], made_beta[v], 100 * worst);
  }
  CHECK(good == M, "%d of %d recordings made with the held kappa and beta keep their fit with kappa x3, beta and the "
        "other rest metric", good, M);
  CHECK(close_ok == close, "%d of the %d fits within 10 %% of the truth are identifiable", close_ok, close);
}

int main(void) {
  cf_runtime_init();
  cf_params base;
  cf_params_default(&base);
  cf_fit_point fixed = {0};
  cf_fit_target tg[N + 1];
  const cf_fit_target *tgp[N + 1];
  double *pos[N + 1], truth[N][2];
  cf_fit_point at[N + 1];
  unsigned long long s = 2026;
  for (int i = 0; i < N; i++) {
    truth[i][0] = RHO * (0.5 + 0.3 * cf_test_rand(&s)); /* uniform on rho * [0.2, 0.8] */
    truth[i][1] = RHO * (2.0 + 1.5 * cf_test_rand(&s)); /* uniform on rho * [0.5, 3.5] */
    cf_test_rec_spec sp = spec(i, truth[i][0], truth[i][1], 0.08);
    pos[i] = cf_test_shaken_recording(&sp);
    tg[i] = (cf_fit_target){ROWS, COLS, T, 0.01, pos[i], NULL, 0, NULL, RHO, {0}, NULL, 0, 0, 0, 0, {0, 0}, 0, 0,
                            0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
    tgp[i] = &tg[i];
    at[i] = fit(&tg[i], &base, &fixed, truth[i][0], truth[i][1]);
  }
  /* degenerate: no motion at all */
  cf_test_rec_spec still = spec(N, 0.05, 0.3, 0);
  pos[N] = cf_test_shaken_recording(&still);
  tg[N] = (cf_fit_target){ROWS, COLS, T, 0.01, pos[N], NULL, 0, NULL, RHO, {0}, NULL, 0, 0, 0, 0, {0, 0}, 0, 0,
                          0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
  tgp[N] = &tg[N];
  at[N] = fixed, at[N].delta = 0.05, at[N].alpha = 0.3;
  cf_confidence c[N + 1];
  cf_error err = {0, ""};
  CHECK(cf_fit_confidence_batch(N + 1, tgp, &base, at, NULL, NULL, NULL, 0, CF_SEARCH_NM, NULL, c, &err) == CF_OK, "%s", err.msg);
  int covered = 0, identifiable = 0, narrow = 0;
  for (int i = 0; i < N; i++) {
    int in_d = c[i].interval[0][0] <= truth[i][0] && truth[i][0] <= c[i].interval[0][1];
    int in_a = c[i].interval[1][0] <= truth[i][1] && truth[i][1] <= c[i].interval[1][1];
    covered += in_d && in_a;
    identifiable += c[i].identifiable == 1;
    narrow += c[i].interval[0][1] - c[i].interval[0][0] < at[i].delta &&
              c[i].interval[1][1] - c[i].interval[1][0] < at[i].alpha;
    printf("%2d truth (%.4f, %.4f) fit (%.4f, %.4f) delta [%.4f, %.4f]%s alpha [%.4f, %.4f]%s z %+.1f %+.1f %s\n", i,
           truth[i][0], truth[i][1], at[i].delta, at[i].alpha, c[i].interval[0][0], c[i].interval[0][1],
           in_d ? "" : " MISS", c[i].interval[1][0], c[i].interval[1][1], in_a ? "" : " MISS",
           (at[i].delta - truth[i][0]) / c[i].se[0], (at[i].alpha - truth[i][1]) / c[i].se[1],
           c[i].identifiable == 1 ? "" : c[i].why);
  }
  printf("covered %d of %d, identifiable %d, narrow %d; still cloth: identifiable %d (%s)\n", covered, N,
         identifiable, narrow, c[N].identifiable, c[N].why);
  CHECK(covered >= 16, "the intervals hold the truth in %d of %d recordings (at least 16 expected)", covered, N);
  CHECK(identifiable == N, "%d of %d clean shakes identifiable", identifiable, N);
  CHECK(narrow == N, "%d of %d intervals narrower than +-50 %%", narrow, N);
  CHECK(c[N].identifiable == 0, "a cloth at rest is identifiable (%d)", c[N].identifiable);
  for (int i = 0; i <= N; i++) free(pos[i]);
  held_kappa();
  return cf_test_done("test_confidence");
}
