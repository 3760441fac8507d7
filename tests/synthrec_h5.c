/* synthrec_h5.c — test helper (synthrec.h): a synthetic recording as an
 * HDF5 recording file, the way `clothfit ingest --lattice` leaves one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_study.h"
#include "synthrec.h"

/* The recording of sp as flags say (synthrec.h). */
static void fill(cf_recording *r, const cf_test_rec_spec *sp, const double *pos, int flags) {
  int K = sp->rows * sp->cols, T = sp->T;
  double dt = sp->dt > 0 ? sp->dt : 0.01;
  cf_recording_init(r);
  r->n_frames = T, r->n_markers = K, r->dt = dt, r->uniform = !(flags & CF_TEST_REC_NATIVE);
  r->time = malloc(sizeof(double) * T);
  r->pos = malloc(sizeof(double) * 3 * (size_t)T * K);
  r->names = calloc((size_t)K, sizeof(char *));
  for (int i = 0; i < T; i++) r->time[i] = i * dt;
  memcpy(r->pos, pos, sizeof(double) * 3 * (size_t)T * K);
  for (int k = 0; k < K; k++) {
    r->names[k] = malloc(16);
    snprintf(r->names[k], 16, "M%02d", k);
  }
  snprintf(r->source_kind, sizeof r->source_kind, "synthetic");
  snprintf(r->meta.material, sizeof r->meta.material, "polyester");
  snprintf(r->meta.size, sizeof r->meta.size, "custom");
  r->meta.width_m = sp->width, r->meta.height_m = sp->height;
  r->meta.density = flags & CF_TEST_REC_NO_DENSITY ? NAN : sp->rho;
  if (!(flags & CF_TEST_REC_LATTICE)) return;
  cf_marker_proc *p = r->proc = cf_marker_proc_new(K);
  p->rows = sp->rows, p->cols = sp->cols;
  for (int k = 0; k < K; k++) p->cell[2 * k] = k / sp->cols, p->cell[2 * k + 1] = k % sp->cols;
  p->weight = malloc(sizeof(double) * K);
  cf_mesh_lattice_weights(sp->rows, sp->cols, pos, p->weight, NULL);
  p->n_controlled = 2;
  p->controlled = malloc(sizeof(int) * 2);
  p->controlled[0] = 0, p->controlled[1] = sp->cols - 1;
  snprintf(p->fit.method, sizeof p->fit.method, "pca");
}

int cf_test_write_recording_h5(const char *path, const cf_test_rec_spec *sp, const double *pos, int flags) {
  cf_recording r;
  fill(&r, sp, pos, flags);
  cf_error err;
  int rc = cf_recording_write_h5(path, &r, &err);
  if (rc) fprintf(stderr, "%s\n", err.msg);
  cf_recording_free(&r);
  return rc;
}
