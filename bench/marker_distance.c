/* marker_distance.c — how far apart two ingested recordings of the same
 * lattice are: the mean distance (cm) between corresponding markers over
 * the frames of each half and of the last 100 frames (missing markers
 * skipped).  Markers are paired by their place in /markers/position, frames
 * by index: meant for two recordings of one `clothfit synth` config with
 * one setting changed, ingested alike (docs/models.md); recordings with
 * other frame times are refused.
 *   ./build/bench/marker_distance A.h5 B.h5 */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* /time[0..1] of path into t (NaN when missing or shorter). */
static void frame_times(hid_t f, double t[2]) {
  t[0] = t[1] = NAN;
  hid_t d = H5Dopen2(f, "/time", H5P_DEFAULT), sp = d < 0 ? -1 : H5Dget_space(d);
  hsize_t n = 0;
  if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 1 && H5Sget_simple_extent_dims(sp, &n, NULL) >= 0 && n >= 2) {
    double *x = malloc(sizeof(double) * n);
    if (x && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0) t[0] = x[0], t[1] = x[1];
    free(x);
  }
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
}

/* /markers/position of path, [*T][*K][3], malloc'ed, and its first two
 * frame times t; NULL after a message. */
static double *positions(const char *path, hsize_t *T, hsize_t *K, double t[2]) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  t[0] = t[1] = NAN;
  if (f >= 0) frame_times(f, t);
  hid_t d = f < 0 ? -1 : H5Dopen2(f, "/markers/position", H5P_DEFAULT);
  hid_t sp = d < 0 ? -1 : H5Dget_space(d);
  hsize_t n[3] = {0, 0, 0};
  double *x = NULL;
  if (sp >= 0 && H5Sget_simple_extent_ndims(sp) == 3 && H5Sget_simple_extent_dims(sp, n, NULL) >= 0 && n[2] == 3)
    x = malloc(sizeof(double) * n[0] * n[1] * 3);
  if (x && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0) free(x), x = NULL;
  if (!x) fprintf(stderr, "marker_distance: %s: expected an ingested recording with /markers/position [T][K][3]\n", path);
  if (sp >= 0) H5Sclose(sp);
  if (d >= 0) H5Dclose(d);
  if (f >= 0) H5Fclose(f);
  *T = n[0], *K = n[1];
  return x;
}

static double mean_cm(const double *a, const double *b, hsize_t K, hsize_t t0, hsize_t t1) {
  double s = 0;
  long n = 0;
  for (hsize_t i = t0 * K; i < t1 * K; i++) {
    const double *p = a + 3 * i, *q = b + 3 * i;
    double d = sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2]));
    if (!isnan(d)) s += d, n++;
  }
  return n ? 100 * s / n : NAN;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: marker_distance A.h5 B.h5\n");
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hsize_t Ta, Ka, Tb, Kb;
  double ta[2], tb[2];
  double *a = positions(argv[1], &Ta, &Ka, ta), *b = a ? positions(argv[2], &Tb, &Kb, tb) : NULL;
  int rc = !a || !b;
  if (!rc && !(fabs(ta[0] - tb[0]) < 1e-9 && fabs(ta[1] - tb[1]) < 1e-9)) {
    fprintf(stderr, "marker_distance: %s starts at %g s every %g s, %s at %g s every %g s (expected the same frames)\n",
            argv[1], ta[0], ta[1] - ta[0], argv[2], tb[0], tb[1] - tb[0]);
    rc = 1;
  }
  if (!rc && (Ka != Kb || Ta < 4 || Tb < 4)) {
    fprintf(stderr, "marker_distance: %s has %llu markers, %s %llu (expected the same lattice, >= 4 frames)\n", argv[1],
            (unsigned long long)Ka, argv[2], (unsigned long long)Kb);
    rc = 1;
  }
  if (!rc) {
    hsize_t T = Ta < Tb ? Ta : Tb, last = T > 100 ? T - 100 : 0;
    printf("frames %llu: mean marker distance %.4f cm over the first half, %.4f over the second, %.4f over the "
           "last 100 frames\n", (unsigned long long)T, mean_cm(a, b, Ka, 0, T / 2), mean_cm(a, b, Ka, T / 2, T),
           mean_cm(a, b, Ka, last, T));
  }
  free(a), free(b);
  return rc;
}
