/* synth_files.c — what the writers of `clothfit synth` share (synth_write.c
 * for marker recordings, synth_write_camera.c for depth cameras):
 * - sy_files_open / sy_files_close / sy_files_commit: output files written
 *   together, each under a temporary name (cf_io_tmpname) and renamed into
 *   place (cf_io_commit) only when every one was written; on any failure
 *   the temporary files are removed and nothing is left behind.  The first
 *   failure fills err (the path and why); ok carries it through.
 * - sy_truth_params: the [truth] section of NAME.truth.ini (the model's
 *   parameters, the model and the fine mesh's settings).
 * Borrowed arguments only; no allocation. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "synth_internal.h"

void sy_truth_params(FILE *f, const cf_synth_config *c, const cf_synth_result *r) {
  fprintf(f, "\n[truth]\ndelta = %.10g\nalpha = %.10g\nkappa = %.10g\nbeta = %.10g\nrho = %.10g\n", c->delta,
          c->alpha, c->kappa, c->beta, c->density);
  if (!strcmp(c->motion, "tablecloth")) fprintf(f, "mu = %.10g  ; the cloth's friction on the table\n", c->table_mu);
  fprintf(f, "model = %s\n", c->model);
  if (strcmp(c->model, "inextensible"))
    fprintf(f, "k_stretch = %.10g\nk_shear = %.10g\nk_bend = %.10g  ; N/m\n", c->k_stretch, c->k_shear, c->k_bend);
  fprintf(f, "mesh = %dx%d quads (lattice cells split %dx%d)\nsim_dt = %.10g\ntol = %.10g\n", r->nx, r->ny,
          c->refine, c->refine, c->sim_dt, c->tol);
}

int sy_files_open(sy_out_file *o, int n, cf_error *err) {
  int ok = 1;
  for (int i = 0; i < n; i++) {
    cf_io_tmpname(o[i].path, o[i].tmp, sizeof o[i].tmp);
    o[i].f = ok ? fopen(o[i].tmp, "wb") : NULL;
    if (!o[i].f && ok) ok = 0, cf_error_set(err, CF_EIO, "%s: cannot create: %s", o[i].path, strerror(errno));
  }
  return ok ? CF_OK : CF_EIO;
}

int sy_files_close(sy_out_file *o, int n, int ok, cf_error *err) {
  for (int i = 0; i < n; i++) {
    if (!o[i].f) continue;
    int good = !ferror(o[i].f);
    good = fclose(o[i].f) == 0 && good;
    if (!good && ok) ok = 0, cf_error_set(err, CF_EIO, "%s: write error", o[i].path);
  }
  return ok;
}

int sy_files_commit(sy_out_file *o, int n, int ok, cf_error *err) {
  for (int i = 0; i < n; i++) {
    if (!o[i].f) continue;
    if (!ok) remove(o[i].tmp);
    else if (cf_io_commit(o[i].tmp, o[i].path, 1, err)) ok = 0;
  }
  return ok;
}
