/* sweepcmp.c — see sweepcmp.h. */
#include "sweepcmp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_study.h"
#include "synthrec.h"
#include "testutil.h"

int cf_test_sweep_recording(const char *path) {
  cf_test_rec_spec sp = {.rows = 5, .cols = 4, .T = 150, .width = 0.42, .height = 0.594, .rho = 0.1042,
                         .delta = 0.041, .alpha = 0.307, .amplitude = 0.075, .frequency = 0.6, .dt = 0.01,
                         .noise = 1e-4, .seed = 12345};
  double *pos = cf_test_shaken_recording(&sp);
  int rc = !pos || cf_test_write_recording_h5(path, &sp, pos, CF_TEST_REC_LATTICE);
  free(pos);
  return rc;
}

static int read_sweep(const char *dir, const char *name, cf_results *r) {
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  cf_error err = {0, ""};
  int rc = cf_results_read(p, r, &err);
  CHECK(rc == CF_OK && r->n == 1 && r->recs[0].has_sweep, "%s: %s", name, err.msg);
  return rc == CF_OK && r->n == 1 && r->recs[0].has_sweep;
}

void same_sweep(const char *dir, const char *a, const char *b) {
  cf_results ra, rb;
  cf_results_init(&ra), cf_results_init(&rb);
  if (read_sweep(dir, a, &ra) && read_sweep(dir, b, &rb)) {
    const cf_res_sweep *x = &ra.recs[0].sweep, *y = &rb.recs[0].sweep;
    size_t n = (size_t)cf_res_sweep_points(x);
    int grid = x->nd == y->nd && x->na == y->na && x->nm == y->nm &&
               !memcmp(x->delta, y->delta, sizeof(double) * x->nd) &&
               !memcmp(x->alpha, y->alpha, sizeof(double) * x->na) &&
               (x->nm == 0 || !memcmp(x->mu, y->mu, sizeof(double) * x->nm));
    CHECK(grid && n > 0, "%s, %s: grids %dx%dx%d, %dx%dx%d", a, b, x->nd, x->na, x->nm, y->nd, y->na, y->nm);
    if (grid) {
      CHECK(!memcmp(x->e, y->e, n * sizeof *x->e) && !memcmp(x->s, y->s, n * sizeof *x->s), "%s, %s: errors differ",
            a, b);
      CHECK(!memcmp(x->status, y->status, n * sizeof *x->status) && !memcmp(x->pruned, y->pruned, n),
            "%s, %s: status differs", a, b);
      CHECK(x->best == y->best && x->best >= 0, "%s, %s: best %d, %d", a, b, x->best, y->best);
    }
  }
  cf_results_free(&ra), cf_results_free(&rb);
}

int cf_test_mpi_setup(const char *who, const char *exe, const char *dir, char *mpirun, size_t size) {
  char *so = NULL;
  char *vargv[] = {(char *)exe, "--version", NULL};
  cf_test_run(vargv, dir, &so, NULL);
  int built = so && strstr(so, "with Open MPI");
  free(so);
  if (!built) {
    printf("%s: clothfit built without Open MPI (libopenmpi-dev missing): MPI part skipped\n", who);
    return 0;
  }
  int found = cf_test_find_program("mpirun", mpirun, size);
  CHECK(found, "clothfit has Open MPI but mpirun is not on PATH");
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1); /* CI runs as root */
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 1); /* containers without ptrace rights */
  /* Under AddressSanitizer (scripts/test.sh): Open MPI leaves MPI_Init's
   * allocations to the exit, which LeakSanitizer would report; the other
   * checks stay on. */
  const char *asan = getenv("ASAN_OPTIONS");
  if (asan && !strstr(asan, "detect_leaks=0")) {
    char opts[1024];
    snprintf(opts, sizeof opts, "%s:detect_leaks=0", asan);
    setenv("ASAN_OPTIONS", opts, 1);
  }
  return found;
}
