/* test_lm_check.c — Levenberg-Marquardt's tangent check (lm.c,
 * cf_nm_result.tangent_secant) on a branch-prone recording and a smooth
 * one, and its fallbacks.
 *
 * The recordings: an A2 sheet shaken at its top corners by the fitting
 * model itself (tests/synthrec.c, 1.5 s, 2 mm marker noise, delta 0.1,
 * alpha 0.4, kappa 1e-3, beta 1e-4 held, two seeds and frequencies), fitted from 35 % off.
 *   - Branch-prone: as recorded, from the flat first frame, where the sheet
 *     picks the side it buckles to (docs/notes/fit-causes.md section 6,
 *     tests/test_fit_sens.c): the tangents grow by orders of magnitude and
 *     predict changes of the error far larger than a step of 10 % makes.
 *     Asserted: the check exceeds CF_FIT_CHAOS_MAX, the fit falls back to
 *     Nelder-Mead (fallback_why names the check) within the budget.
 *   - Smooth: the same recording with cf_test_smooth_start (frame 0 1 mm
 *     out of the plane, the top edge 0.1 % slack).  Asserted: the check at
 *     most CHECK_SMOOTH, a third of the threshold (measured 0.10 and 0.17),
 *     so the check does not hand the fit over (a fit that stalls on the
 *     way goes on by Nelder-Mead: seed 1 stalled at 0.569 cm after 5 steps
 *     and ended at 0.423), delta and alpha within 10 % of the truth (the
 *     noise moves the optimum a few per cent, as in tests/test_search.c).
 *   - A recording with a table: its sensitivities are refused (contacts are
 *     not differentiated), the fit falls back with that reason, the check
 *     not made (NaN). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

enum { ROWS = 5, COLS = 4, FRAMES = 150 };
#define RHO 0.1042
#define DELTA 0.1
#define ALPHA 0.4
#define BETA 1e-4
#define CHECK_SMOOTH 0.25

static double *recording(int i) {
  cf_test_rec_spec sp = {.rows = ROWS, .cols = COLS, .T = FRAMES, .width = 0.42, .height = 0.594, .rho = RHO,
                         .delta = DELTA, .alpha = ALPHA, .amplitude = 0.08, .frequency = 0.6 + 0.1 * i, .dt = 0.01,
                         .noise = 2e-3, .seed = 7100 + (unsigned long long)i, .kappa = 1e-3, .beta = BETA, .tol = 1e-4};
  return cf_test_shaken_recording(&sp);
}

static void lm_fit(const cf_fit_target *tg, int max_evals, cf_nm_result *r) {
  cf_params base;
  cf_params_default(&base);
  base.tol = 1e-4;
  cf_fit_point fixed = {.kappa = 1e-3, .beta = BETA};
  cf_nm_options o;
  cf_nm_options_default(&o, RHO, 1.35 * DELTA, 0.65 * ALPHA);
  o.max_evals = max_evals, o.search = CF_SEARCH_LM;
  cf_error err = {0, ""};
  memset(r, 0, sizeof *r);
  cf_fit_run *run = cf_fit_run_alloc(tg, &base, &err);
  int rc = run ? cf_fit_minimize(run, &fixed, &o, r, &err) : CF_EINVAL;
  CHECK(rc == CF_OK, "Levenberg-Marquardt: %s", err.msg);
  CHECK(r->evaluations <= max_evals, "%d simulations, budget %d", r->evaluations, max_evals);
  cf_fit_run_free(run);
}

int main(void) {
  cf_runtime_init();
  for (int i = 0; i < 2; i++) {
    double *pos = recording(i);
    cf_fit_target tg = {.rows = ROWS, .cols = COLS, .T = FRAMES, .dt = 0.01, .pos = pos, .rho = RHO};
    cf_nm_result r;
    lm_fit(&tg, 20, &r); /* the check and a short Nelder-Mead: enough to see the fallback */
    printf("seed %d, flat start: check %.3g, fallback %d (%s), %d simulations\n", i, r.tangent_secant, r.fallback,
           r.fallback_why, r.evaluations);
    CHECK(r.tangent_secant > CF_FIT_CHAOS_MAX && r.fallback && strstr(r.fallback_why, "tangents"),
          "seed %d, flat start: check %g, fallback %d", i, r.tangent_secant, r.fallback);
    cf_nm_result_free(&r);
    cf_test_smooth_start(pos, ROWS, COLS, FRAMES, 7100 + (unsigned long long)i, 1e-3);
    lm_fit(&tg, 200, &r);
    printf("seed %d, smooth: check %.3g, fallback %d%s%s, (%.4f, %.4f), error %.4f cm, %d simulations (%d with "
           "sensitivities)\n", i, r.tangent_secant, r.fallback, r.fallback ? ": " : "", r.fallback_why, r.best[0],
           r.best[1], r.f_best, r.evaluations, r.sens_evaluations);
    CHECK(r.tangent_secant <= CHECK_SMOOTH && !strstr(r.fallback_why, "do not predict"), "seed %d, smooth: check %g, "
          "fallback %d (%s)", i, r.tangent_secant, r.fallback, r.fallback_why);
    CHECK(fabs(r.best[0] / DELTA - 1) <= 0.1 && fabs(r.best[1] / ALPHA - 1) <= 0.1,
          "seed %d, smooth: (%.4f, %.4f), truth (%g, %g)", i, r.best[0], r.best[1], DELTA, ALPHA);
    cf_nm_result_free(&r);
    if (i == 0) { /* a table far below: no contact, but refused all the same */
      tg.table[0] = -2, tg.table[1] = -1, tg.table[2] = 1, tg.table[3] = -1, tg.table[4] = 1;
      lm_fit(&tg, 10, &r);
      CHECK(r.fallback && isnan(r.tangent_secant) && strstr(r.fallback_why, "not differentiated"),
            "table: fallback %d, check %g, why '%s'", r.fallback, r.tangent_secant, r.fallback_why);
      cf_nm_result_free(&r);
    }
    free(pos);
  }
  return cf_test_done("test_lm_check");
}
