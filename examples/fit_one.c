/* fit_one.c — a program that fits one recording through the library alone
 * (cf_pipeline.h): ingest a Motive export of a dataset such as
 * datasets/aero-mini (its sidecars NAME.meta.ini, NAME.map, NAME.truth.ini
 * beside it) into OUTDIR/NAME.h5, hold the model settings recommended for
 * fitting, sweep a coarse (delta, alpha) grid over the first half of the
 * recording, refine its best point by Nelder-Mead, and print the fit.
 *
 *   fit_one EXPORT.csv OUTDIR [EVALS]
 *
 * EVALS (default 12) bounds Nelder-Mead's simulations: this is a short
 * demonstration, not a converged fit (clothfit fit runs 200, and the
 * confidence checks this example leaves out).  Exit status 0 when the fit
 * has a finite error and Nelder-Mead did not end above its start on the
 * training window, 1 otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cf_pipeline.h"

/* Progress of the pipeline's stages on stderr: one line per stage. */
static void stage(void *user, const char *label, long total) {
  (void)user;
  if (label) fprintf(stderr, "fit_one: %s (%ld simulations at most)\n", label, total);
}

static void print_fit(const cf_fit_input *in, const cf_res_rec *rec, const double truth[2]) {
  const cf_res_fit *f = &rec->fit;
  printf("recording   %s (%d frames, dt %g s, rho %g kg/m^2)\n", in->name, in->tg.T, in->tg.dt, in->tg.rho);
  printf("start       grid: delta %.5f alpha %.5f (training error %.4f cm)\n", f->start[0], f->start[1], f->f_start);
  printf("optimum     delta %.5f alpha %.5f (%d evaluations)\n", f->x[0], f->x[1], f->evaluations);
  printf("training    error %.4f cm, std %.4f cm\n", f->e_train, f->s_train);
  printf("testing     error %.4f cm, std %.4f cm\n", f->e_test, f->s_test);
  printf("whole       error %.4f cm, std %.4f cm\n", f->e_all, f->s_all);
  if (isfinite(truth[0])) printf("truth       delta %.5f alpha %.5f\n", truth[0], truth[1]);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: fit_one EXPORT.csv OUTDIR [EVALS]\n");
    return 2;
  }
  cf_error err = {0, ""};
  cf_fit_input in;
  double truth[2];
  if (cf_pipeline_dataset_ingest(argv[1], argv[2], 1, &in, truth, &err)) {
    fprintf(stderr, "fit_one: %s\n", err.msg);
    return 1;
  }
  cf_pipeline_model model; /* kappa 1e-3, tol 1e-4: the settings for fitting */
  cf_pipeline_model_default(&model);
  cf_pipeline_fit_opts o;
  cf_pipeline_fit_opts_default(&o);
  o.gd = (cf_pipeline_grid){0.1, 0.9, 3, 1}; /* delta: rho * 0.1, 0.5, 0.9 */
  o.ga = (cf_pipeline_grid){0.2, 3.0, 3, 1}; /* alpha: rho * 0.2, 1.6, 3.0 */
  o.max_evals = argc > 3 ? atoi(argv[3]) : 12;
  o.confidence = 0;
  o.workers = 1;
  cf_pipeline_progress pr = {stage, NULL, NULL, NULL};
  cf_pipeline_fit_info info;
  cf_results r;
  cf_results_init(&r);
  cf_res_rec *rec = cf_results_rec(&r, in.name, 1);
  int rc = rec ? cf_pipeline_model_apply(&model, &in, 1, &err) : cf_error_set(&err, CF_ENOMEM, "out of memory");
  if (!rc) rc = cf_pipeline_fit(&in, &o, NULL, &pr, rec, &info, &err);
  if (rc) fprintf(stderr, "fit_one: %s\n", err.msg);
  else print_fit(&in, rec, truth);
  int ok = !rc && isfinite(rec->fit.e_all) && rec->fit.e_train <= rec->fit.f_start * (1 + 1e-9);
  cf_results_free(&r);
  cf_fit_input_free(&in);
  return ok ? 0 : 1;
}
