/* The driven simulation reproduces a recording made by the same model and
 * mesh exactly (e = 0 at the true parameters), grows its error away from
 * them, prunes exactly, reports failures as +inf, and rejects recordings
 * whose first frame or controlled corners are missing. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cf_fit.h"
#include "synthrec.h"
#include "testutil.h"

enum { ROWS = 5, COLS = 4, T = 301 };

int main(void) {
  cf_runtime_init();
  cf_test_rec_spec sp = {.rows = ROWS, .cols = COLS, .T = T, .width = 0.42, .height = 0.594, .rho = 0.1042,
                         .delta = 0.041, .alpha = 0.307, .amplitude = 0.075, .frequency = 0.6, .dt = 0.01};
  double *rec = cf_test_shaken_recording(&sp);
  cf_fit_target tg = {ROWS, COLS, T, 0.01, rec, NULL, 0, NULL, 0.1042};
  cf_params base;
  cf_params_default(&base);
  cf_error err;
  cf_fit_run *run = cf_fit_run_alloc(&tg, &base, &err);
  CHECK(run != NULL, "%s", err.msg);
  CHECK(cf_fit_run_mesh(run)->n_nodes == 63, "mesh of %d nodes", cf_fit_run_mesh(run)->n_nodes);
  cf_fit_point truth = {0.041, 0.307, 0, 0, 0}, off = {0.08, 0.307, 0, 0, 0};
  cf_frame_error *fe = malloc(sizeof *fe * T);
  cf_fit_result res;
  CHECK(cf_fit_run_eval(run, &truth, 0, 0, 0, fe, &res) == CF_OK && res.status == CF_OK, "eval");
  CHECK(res.err.e_cm < 1e-9, "error at the truth %.3g cm", res.err.e_cm);
  CHECK(res.frames == T && res.err.frames == T && !res.pruned, "frames %d", res.frames);
  CHECK(fe[0].e_cm == 0, "frame 0 error %g", fe[0].e_cm);
  cf_fit_result r2;
  cf_fit_run_eval(run, &off, 0, 0, 0, fe, &r2);
  CHECK(r2.status == CF_OK && r2.err.e_cm > 0.1, "error away from truth %.3g cm", r2.err.e_cm);
  double full = r2.err.e_cm;
  /* pruning: a bound below the true mean stops early with a lower bound */
  cf_fit_run_eval(run, &off, 0, 0, 0.5 * full, NULL, &r2);
  CHECK(r2.pruned && r2.frames < T && r2.err.e_cm <= full + 1e-12 && r2.err.e_cm > 0.5 * full,
        "pruned: frames %d e %.4g (full %.4g)", r2.frames, r2.err.e_cm, full);
  cf_fit_run_eval(run, &off, 0, 0, 2 * full, NULL, &r2);
  CHECK(!r2.pruned && fabs(r2.err.e_cm - full) < 1e-12, "bound above the mean must not prune");
  /* a window */
  cf_fit_run_eval(run, &off, T / 2, 0, 0, NULL, &r2);
  CHECK(r2.err.frames == T - T / 2, "window frames %d", r2.err.frames);
  /* missing markers are excluded: blank one marker in half the frames */
  double *rec2 = malloc(sizeof(double) * T * ROWS * COLS * 3);
  memcpy(rec2, rec, sizeof(double) * T * ROWS * COLS * 3);
  for (int k = 1; k < T; k += 2) rec2[3 * ((size_t)k * ROWS * COLS + 9)] = NAN;
  cf_fit_target tg2 = tg;
  tg2.pos = rec2;
  cf_fit_run *run2 = cf_fit_run_alloc(&tg2, &base, &err);
  cf_fit_run_eval(run2, &truth, 0, 0, 0, fe, &r2);
  CHECK(r2.err.e_cm < 1e-9 && fe[1].n == ROWS * COLS - 1 && fe[2].n == ROWS * COLS,
        "missing marker: e %.3g n %d/%d", r2.err.e_cm, fe[1].n, fe[2].n);
  cf_fit_run_free(run2);
  /* a diverging simulation is a result (+inf), not a crash */
  cf_params tight = base;
  tight.max_iter = 1;
  tight.tol = 1e-14;
  cf_fit_run *run3 = cf_fit_run_alloc(&tg, &tight, &err);
  cf_fit_run_eval(run3, &off, 0, 0, 0, NULL, &r2);
  CHECK(r2.status != CF_OK && isinf(r2.err.e_cm) && r2.reason[0], "failure: status %d", r2.status);
  cf_fit_run_free(run3);
  /* bad recordings */
  rec2[3 * 0 + 2] = NAN;
  CHECK(cf_fit_run_alloc(&tg2, &base, &err) == NULL && strstr(err.msg, "first frame"), "%s", err.msg);
  rec2[2] = rec[2];
  rec2[3 * ((size_t)50 * ROWS * COLS + COLS - 1)] = NAN;
  CHECK(cf_fit_run_alloc(&tg2, &base, &err) == NULL && strstr(err.msg, "frame 50"), "%s", err.msg);
  free(rec2);
  free(fe);
  cf_fit_run_free(run);
  free(rec);
  return cf_test_done("test_driven");
}
