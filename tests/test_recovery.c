/* Parameter recovery, same model: synthetic recordings made with the
 * fitting mesh, (delta, alpha)
 * = (0.041, 0.307) on polyester A2, with 0.1 mm Gaussian marker noise drawn
 * from NSEED different seeds (the motion is the same, only the noise
 * differs).  The default grid sweep on the first recording gives the start
 * (its best point); Nelder-Mead from there, on every recording, must
 *   - reach the minimum of the error surface, in the sense
 *         e(fit) <= e(truth) + e_noise                              (*)
 *   - recover delta and alpha within 5 %, never end worse than its start,
 *     and never let the simplex's best vertex get worse.
 * The sweep is bitwise identical with 1 and 2 worker processes.
 *
 * The bound (*).  e_noise is the error that the injected noise alone
 * contributes: the mean over frames of the M-norm error (4.3) between the
 * noise-free recording and the noisy one, with the fitter's lattice weights
 * (computed here directly from the two recordings, not by the fitter).  It
 * should be sigma * sqrt(3 * W'/W) with sigma = 0.1 mm and W'/W the weight
 * share of the 18 noisy markers (the two held corners carry none), i.e.
 * ~0.017 cm; the test checks that within 5 % (E[chi_54] / sqrt(54) = 0.995
 * per frame, and 600 frames average the rest out).  e(truth) is the fitter's
 * error at the true parameters: the same model, mesh and solver reproduce the
 * noise-free motion, so e(truth) must equal e_noise (checked to 1 % of it).
 * Per frame the error at any parameters is about sqrt(m^2 + n^2), m the RMS
 * distance of the simulated from the true motion and n the noise (they are
 * independent), so (*) (= 2 n) holds iff m <= sqrt(3) n ~ 0.3 mm: the fit
 * reproduces the true motion to within the marker noise.  The minimum of the
 * surface is at most e(truth) (it can be slightly below by fitting noise),
 * so an optimizer that reached it passes with margin; one that stops on the
 * slope does not: the start itself (one grid step off) fails (*), which the
 * test checks, so passing takes the optimizer's work.  The seeds other than
 * the first start from the first seed's grid optimum, not their own (a
 * sweep per seed would add ~30 s each).  When this was written Nelder-Mead
 * took the same path on all four (45 evaluations, delta -0.14 %, alpha
 * -0.32 %): the noise shifts the surface almost uniformly, so the seeds
 * vary e_noise, e(truth) and the bound rather than the optimizer's path.
 *
 * The model: a small fixed bending stiffness (kappa = 1e-3) and projection
 * tolerance 1e-5, in the recording and in the fit.  Why not kappa = 0 and
 * the default tol 1e-3: then a relative change of 1e-6 in delta already
 * moves the shaken sheet by ~0.27 cm on average: without bending stiffness
 * the free bottom edge flutters chaotically, and the taut top edge between
 * the two held corners (span = rest length) can sag by about edge *
 * sqrt(tol) ~ 2 mm inside the tolerance, so the error surface has a ~0.25
 * cm floor and (*) is out of reach.  With kappa = 1e-3 and tol = 1e-5 a 1 %
 * change of delta moves the sheet by ~0.05 cm, and a 1e-6 change by ~0.02
 * cm: the solver's jitter inside tol 1e-5, a floor under e(fit) of about
 * sqrt(e_noise^2 + 0.02^2) ~ 0.026 cm that (*) leaves room for.  The test
 * prints these three distances (noise-free recordings, the test's weights).
 * It once also asserted that the 1e-6 jitter is below sqrt(3) e_noise, as if
 * that were necessary for (*); it is not: the jitter varies from point to
 * point.  On an AMD EPYC a 1e-6 step of delta moved the sheet
 * by 0.0336 cm (> sqrt(3) x 0.0170) while Nelder-Mead met (*) on all four
 * seeds with e(fit) 0.0258 cm, i.e. m = 0.020 cm at the fit.  So the jitter
 * is printed, and (*) is what is asserted.
 *
 * Rerun: meson test -C build test_recovery --print-errorlogs (prints, per
 * seed, e_noise, e(truth), e(fit) and the bound). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

enum { ROWS = 5, COLS = 4, K = ROWS * COLS, T = 601, NSEED = 4 };
static const double RHO = 0.1042, DELTA = 0.041, ALPHA = 0.307, KAPPA = 1e-3, TOL = 1e-5, NOISE = 1e-4;
static const unsigned long long SEEDS[NSEED] = {12345, 271828, 314159, 577215};

/* Mean over frames of the weighted error (4.3) between two recordings, cm. */
static double recording_error(const double *w, const double *a, const double *b) {
  cf_frame_error fe[T];
  for (int t = 0; t < T; t++) cf_metric_frame(K, w, a + (size_t)t * K * 3, b + (size_t)t * K * 3, &fe[t]);
  return cf_metric_window(fe, T, 0, T).e_cm;
}

int main(void) {
  cf_runtime_init();
  cf_test_rec_spec sp = {ROWS, COLS, T, 0.42, 0.594, RHO, DELTA, ALPHA, 0.075, 0.6, 0.01,
                         0, 0, KAPPA, TOL, 0, 0, 0, 0, {0, 0, 0}, 0, 0, 0, 0, 0};
  double *clean = cf_test_shaken_recording(&sp), *rec[NSEED], w[K], e_noise[NSEED];
  cf_error err;
  CHECK(cf_mesh_lattice_weights(ROWS, COLS, clean, w, &err) == CF_OK, "%s", err.msg);
  double wsum = 0, wnoisy = 0;
  for (int j = 0; j < K; j++) {
    wsum += w[j];
    if (j != 0 && j != COLS - 1) wnoisy += w[j];
  }
  double e_expected = 100 * NOISE * sqrt(3 * wnoisy / wsum);
  cf_fit_target tg[NSEED];
  const cf_fit_target *tgp[NSEED];
  for (int s = 0; s < NSEED; s++) {
    sp.noise = NOISE;
    sp.seed = SEEDS[s];
    rec[s] = cf_test_shaken_recording(&sp);
    e_noise[s] = recording_error(w, clean, rec[s]);
    tg[s] = (cf_fit_target){ROWS, COLS, T, 0.01, rec[s], NULL, 0, NULL, RHO, {0}, NULL, 0, 0, 0, 0, {0, 0}, 0, 0,
                            0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
    tgp[s] = &tg[s];
    CHECK(fabs(e_noise[s] / e_expected - 1) < 0.05, "seed %llu: noise error %.5f cm, expected %.5f",
          SEEDS[s], e_noise[s], e_expected);
  }
  /* how far a change of delta moves the noise-free motion (see the header) */
  const struct { double kappa, tol, rel; } sens[3] = {{0, 1e-3, 1e-6}, {KAPPA, TOL, 1e-6}, {KAPPA, TOL, 1e-2}};
  double moved[3];
  for (int k = 0; k < 3; k++) {
    cf_test_rec_spec q = sp;
    q.noise = 0, q.kappa = sens[k].kappa, q.tol = sens[k].tol, q.delta = DELTA * (1 + sens[k].rel);
    double *b = cf_test_shaken_recording(&q), *a = clean;
    if (sens[k].kappa != KAPPA || sens[k].tol != TOL) {
      q.delta = DELTA;
      a = cf_test_shaken_recording(&q);
    }
    moved[k] = recording_error(w, a, b);
    printf("kappa %g, tol %g: delta x (1 + %g) moves the sheet by %.4f cm\n", sens[k].kappa, sens[k].tol,
           sens[k].rel, moved[k]);
    if (a != clean) free(a);
    free(b);
  }
  /* A diagnostic, not a check: the jitter differs from point to point (see
   * the header), so a 1e-6 step that moves the sheet by more than sqrt(3)
   * e_noise does not mean (*) cannot be met; (*) itself is checked below. */
  if (moved[1] > sqrt(3) * e_expected)
    printf("note: here delta x (1 + 1e-6) moves the sheet by %.4f cm > sqrt(3) x noise %.4f cm\n", moved[1],
           e_expected);
  cf_params base;
  cf_params_default(&base);
  base.tol = TOL;
  cf_fit_point fixed = {.kappa = KAPPA};
  double *dl, *al;
  int nd, na;
  CHECK(cf_sweep_default_grid(RHO, &dl, &nd, &al, &na) == CF_OK && nd == 15 && na == 16, "grid");
  cf_sweep_options so = {nd, na, dl, al, 0, 0, 2, 0, NULL, 0, 0, 0, NULL, 0, 0, NULL};
  cf_sweep_result sr, sr1;
  CHECK(cf_sweep_run(&tg[0], &base, &fixed, &so, &sr, &err) == CF_OK, "%s", err.msg);
  CHECK(sr.best >= 0, "no best point");
  double d0 = dl[sr.best / na], a0 = al[sr.best % na];
  printf("grid best (seed %llu): delta %.4f alpha %.4f e %.4f cm (%.1f s)\n", SEEDS[0], d0, a0, sr.e[sr.best],
         sr.wall_s);
  /* worker count independence on a 3 x 4 corner of the grid (the whole grid
   * twice would double the test's time) */
  cf_sweep_options s2 = so, s1 = so;
  s2.nd = s1.nd = 3, s2.na = s1.na = 4, s1.threads = 1;
  cf_sweep_result sr2;
  CHECK(cf_sweep_run(&tg[0], &base, &fixed, &s2, &sr2, &err) == CF_OK, "%s", err.msg);
  CHECK(cf_sweep_run(&tg[0], &base, &fixed, &s1, &sr1, &err) == CF_OK, "%s", err.msg);
  CHECK(memcmp(sr2.e, sr1.e, sizeof(double) * 12) == 0, "1 and 2 worker processes differ");
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      CHECK(sr1.e[i * 4 + j] == sr.e[i * na + j], "grid point (%d,%d) differs from the full sweep", i, j);
  /* Nelder-Mead on every seed's recording from the grid best, 2 at a time */
  cf_nm_options o[NSEED];
  cf_nm_result nr[NSEED];
  for (int s = 0; s < NSEED; s++) cf_nm_options_default(&o[s], RHO, d0, a0);
  CHECK(cf_fit_nelder_mead_batch(NSEED, tgp, &base, &fixed, o, 2, NULL, NULL, nr, &err) == CF_OK, "%s", err.msg);
  CHECK(fabs(nr[0].f_start - sr.e[sr.best]) < 1e-12, "NM start %.6g != grid best %.6g", nr[0].f_start,
        sr.e[sr.best]);
  printf("noise error expected %.5f cm\n", e_expected);
  printf("    seed  e_noise  e(truth)  e(start)   e(fit)  bound (*)   delta     (%%)     alpha     (%%)  evals\n");
  for (int s = 0; s < NSEED; s++) {
    cf_fit_run *run = cf_fit_run_alloc(&tg[s], &base, &err);
    CHECK(run, "%s", err.msg);
    if (!run) continue;
    cf_fit_point tp = {.delta = DELTA, .alpha = ALPHA, .kappa = KAPPA};
    cf_fit_result tr;
    cf_fit_run_eval(run, &tp, 0, 0, 0, NULL, &tr);
    cf_fit_run_free(run);
    double e_truth = tr.err.e_cm, bound = e_truth + e_noise[s];
    const cf_nm_result *r = &nr[s];
    printf("  %6llu  %7.5f  %8.5f  %8.5f  %7.5f  %9.5f  %.5f  %+5.2f  %.5f  %+5.2f  %5d\n", SEEDS[s], e_noise[s],
           e_truth, r->f_start, r->f_best, bound, r->best[0], 100 * (r->best[0] / DELTA - 1), r->best[1],
           100 * (r->best[1] / ALPHA - 1), r->evaluations);
    CHECK(tr.status == CF_OK && fabs(e_truth - e_noise[s]) <= 0.01 * e_noise[s],
          "seed %llu: error at the truth %.5f cm, noise alone %.5f cm", SEEDS[s], e_truth, e_noise[s]);
    CHECK(r->f_start > bound, "seed %llu: the start (e %.5f) already meets the bound %.5f: (*) tests nothing",
          SEEDS[s], r->f_start, bound);
    CHECK(r->f_best <= r->f_start, "seed %llu: NM ended worse than its start", SEEDS[s]);
    CHECK(r->f_best <= bound, "seed %llu: e(fit) %.5f cm > e(truth) %.5f + e_noise %.5f", SEEDS[s], r->f_best,
          e_truth, e_noise[s]);
    CHECK(fabs(r->best[0] / DELTA - 1) < 0.05, "seed %llu: delta %.5f not within 5 %% of %.3f", SEEDS[s],
          r->best[0], DELTA);
    CHECK(fabs(r->best[1] / ALPHA - 1) < 0.05, "seed %llu: alpha %.5f not within 5 %% of %.3f", SEEDS[s],
          r->best[1], ALPHA);
    CHECK(r->n_path == r->iterations && r->n_path > 0, "seed %llu: path of %d steps", SEEDS[s], r->n_path);
    for (int i = 1; i < r->n_path; i++)
      CHECK(r->path[i].f <= r->path[i - 1].f + 1e-15, "seed %llu: simplex best got worse at step %d", SEEDS[s], i);
    cf_nm_result_free(&nr[s]);
  }
  cf_sweep_result_free(&sr);
  cf_sweep_result_free(&sr1);
  cf_sweep_result_free(&sr2);
  free(dl);
  free(al);
  for (int s = 0; s < NSEED; s++) free(rec[s]);
  free(clean);
  return cf_test_done("test_recovery");
}
