/* perturb_markers.c — add Gaussian noise (SIGMA per coordinate) to the markers of an ingested
 * recording, in place: how far does a fit move when the recording is
 * measured again with the same noise? (docs/confidence.md, the
 * sensitivity of twist fits).  Frame 0 is left alone (it is the rest
 * metric and the start); NaN (missing) positions stay missing.
 *   ./build/bench/perturb_markers REC.h5 SIGMA_M SEED
 * e.g. cp reports/aero-recordings/X.h5 /tmp/p.h5 &&
 *      build/bench/perturb_markers /tmp/p.h5 1e-4 1 &&
 *      build/src/cli/clothfit fit /tmp/p.h5 --start D,A --train 0:1 --max-evals 150 --no-confidence */
#include <hdf5.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;
/* splitmix64, uniform in (0, 1) */
static double uniform(void) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return (((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void) { return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform()); }

int main(int argc, char **argv) {
  char *end = NULL;
  double sigma = argc == 4 ? strtod(argv[2], &end) : NAN;
  if (argc != 4 || !end || *end || !(sigma >= 0 && sigma < 1)) {
    fprintf(stderr, "usage: perturb_markers REC.h5 SIGMA_M SEED (0 <= SIGMA_M < 1)\n");
    return 2;
  }
  char *send = NULL;
  state = strtoull(argv[3], &send, 10);
  if (!send || *send || send == argv[3]) {
    fprintf(stderr, "perturb_markers: invalid SEED '%s': expected an unsigned integer\n", argv[3]);
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t f = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = f < 0 ? -1 : H5Dopen2(f, "/markers/position", H5P_DEFAULT);
  hid_t sp = d < 0 ? -1 : H5Dget_space(d);
  hsize_t n[3] = {0, 0, 0};
  int rc = sp < 0 || H5Sget_simple_extent_ndims(sp) != 3 || H5Sget_simple_extent_dims(sp, n, NULL) < 0 || n[2] != 3;
  if (rc)
    fprintf(stderr, "perturb_markers: %s: expected an ingested recording with /markers/position [T][K][3]\n",
            argv[1]);
  size_t size = (size_t)(n[0] * n[1] * n[2]);
  double *x = rc ? NULL : malloc(sizeof(double) * size);
  rc = rc || !x || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0;
  for (size_t i = (size_t)(n[1] * n[2]); !rc && i < size; i++)
    if (!isnan(x[i])) x[i] += sigma * gauss();
  int io = x && H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0;
  free(x);
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  io |= f >= 0 && H5Fclose(f) < 0; /* the write reaches the file here */
  if (io) fprintf(stderr, "perturb_markers: %s: could not read or write /markers/position\n", argv[1]);
  return rc || io;
}
