/* test_simulate_sens.c — `clothfit simulate --sensitivities LIST`.
 *
 * The A2 7 x 9 sheet of experiments/shake_a2.ini (1 mm of initial noise,
 * kappa 1e-3, beta 1e-4, delta 0.2, alpha 0.5, tol 1e-6), hung from the
 * middle node of its top edge and shaken for 0.5 s along an oblique axis.
 * Not from its two top corners: the scenario holds them at their rest
 * distance, the top row between them then lies nearly straight at its rest
 * length (a double root of its constraints), and the trajectory is not
 * smooth there (its central differences grow 10^4 times in 20 frames;
 * the fits hold the corners closer, docs/driving.md).
 * Asserted:
 * - /nodes/sensitivity/delta and .../alpha are [T][n][3], 0 at frame 0
 *   and at the driven node, finite;
 * - /nodes/position is bitwise the one written without --sensitivities;
 * - the sensitivity to delta agrees with the central difference of two
 *   runs at delta (1 +- 1e-5) within a relative 1e-3 at every frame
 *   (max over frames of ||dX - FD|| / ||FD||; the step, the tolerance and
 *   the bound as tests/test_sensitivity.c says why);
 * - a LIST with an unknown or repeated name, a missing LIST, and a scenario
 *   with an obstacle (contacts are not differentiated) exit non-zero with
 *   one line naming the problem and write no output file. */
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static const char *scenario =
    "[scenario]\nname = sens\n[cloth]\nwidth = 0.42\nheight = 0.594\nnx = 7\nny = 9\nnoise = 1e-3\nseed = 3\n"
    "[material]\ndelta = %.17g\nalpha = 0.5\nkappa = 1e-3\nbeta = 1e-4\n[sim]\ndt = 0.01\nduration = 0.5\n"
    "tol = 1e-6\n[drive]\nnodes = 59\nmotion = shake\namplitude = 0.06\nfrequency = 1.2\n"
    "axis = 0.6, 0.8, 0\n%s";

static void write_config(const char *path, double delta, const char *extra) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s", path);
  if (!f) return;
  fprintf(f, scenario, delta, extra);
  fclose(f);
}

/* Dataset name of file path, [T][n][3]: malloc'ed, dims in d (NULL if absent). */
static double *read3(const char *path, const char *name, hsize_t d[3]) {
  hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return NULL;
  double *buf = NULL;
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
  if (ds >= 0) {
    hid_t sp = H5Dget_space(ds);
    if (H5Sget_simple_extent_ndims(sp) == 3) {
      H5Sget_simple_extent_dims(sp, d, NULL);
      buf = malloc(sizeof(double) * d[0] * d[1] * d[2]);
      if (buf && H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) free(buf), buf = NULL;
    }
    H5Sclose(sp);
    H5Dclose(ds);
  }
  H5Fclose(f);
  return buf;
}

static double *run_positions(const char *exe, const char *dir, const char *cfg, const char *out, hsize_t d[3]) {
  int st = cf_test_run_args(exe, dir, NULL, NULL, "simulate", cfg, "-o", out, NULL);
  CHECK(st == 0, "clothfit simulate %s: status %d", cfg, st);
  return st == 0 ? read3(out, "/nodes/position", d) : NULL;
}

/* A refused command line: non-zero, one line on stderr containing want, no output file. */
static void refused(const char *exe, const char *dir, const char *cfg, const char *list, const char *want) {
  char out[600], *err = NULL;
  snprintf(out, sizeof out, "%s/refused.h5", dir);
  int st = list ? cf_test_run_args(exe, dir, NULL, &err, "simulate", cfg, "-o", out, "--sensitivities", list, NULL)
                : cf_test_run_args(exe, dir, NULL, &err, "simulate", cfg, "-o", out, "--sensitivities", NULL);
  int lines = 0;
  for (const char *c = err ? err : ""; *c; c++) lines += *c == '\n';
  CHECK(st != 0 && err && strstr(err, want) && lines == 1 && access(out, F_OK) != 0,
        "--sensitivities %s: status %d, %d lines, stderr '%s'", list ? list : "(none)", st, lines, err ? err : "");
  free(err);
}

int main(int argc, char **argv) {
  const char *exe, *root;
  char dir[] = "/tmp/cf_simsens_XXXXXX";
  int rc = cf_test_cli_begin(argc, argv, &exe, &root, dir);
  if (rc) return rc;
  (void)root;
  /* the configurations at delta, delta + e, delta - e and their outputs (s0: without --sensitivities) */
  static const char *names[] = {"s.ini", "p.ini", "m.ini", "s.h5", "s0.h5", "p.h5", "m.h5"};
  char path[7][600];
  for (int k = 0; k < 7; k++) snprintf(path[k], sizeof path[k], "%s/%s", dir, names[k]);
  const char *cfg = path[0], *cfp = path[1], *cfm = path[2], *out = path[3], *out0 = path[4], *outp = path[5],
             *outm = path[6];
  const double delta = 0.2, e = 1e-5 * delta;
  write_config(cfg, delta, "");
  write_config(cfp, delta + e, "");
  write_config(cfm, delta - e, "");
  int st = cf_test_run_args(exe, dir, NULL, NULL, "simulate", cfg, "-o", out, "--sensitivities", "delta,alpha", NULL);
  CHECK(st == 0, "clothfit simulate --sensitivities delta,alpha: status %d", st);
  hsize_t d[3] = {0}, d0[3], dp[3], dm[3], da[3] = {0};
  double *x = read3(out, "/nodes/position", d), *sd = read3(out, "/nodes/sensitivity/delta", d);
  double *sa = read3(out, "/nodes/sensitivity/alpha", da);
  double *x0 = run_positions(exe, dir, cfg, out0, d0), *xp = run_positions(exe, dir, cfp, outp, dp);
  double *xm = run_positions(exe, dir, cfm, outm, dm);
  int ok = x && sd && sa && x0 && xp && xm && d[1] == 63 && d[2] == 3 && da[0] == d[0] && da[1] == d[1];
  CHECK(ok, "the outputs (positions, sensitivity/delta, sensitivity/alpha) of [T][63][3]");
  size_t n3 = ok ? d[1] * 3 : 0, T = ok ? d[0] : 0;
  if (ok) {
    CHECK(memcmp(x, x0, sizeof(double) * T * n3) == 0, "positions with --sensitivities differ from those without");
    double worst = 0, at0 = 0, kin = 0;
    int finite = 1;
    for (size_t q = 0; q < n3; q++) at0 = fmax(at0, fabs(sd[q]) + fabs(sa[q]));
    for (size_t f = 0; f < T; f++) {
      for (int c = 0; c < 3; c++) kin = fmax(kin, fabs(sd[f * n3 + 3 * 59 + c])); /* the driven node */
      double s2 = 0, f2 = 0;
      for (size_t q = 0; q < n3; q++) {
        double fd = (xp[f * n3 + q] - xm[f * n3 + q]) / (2 * e), g = sd[f * n3 + q];
        finite &= isfinite(g) && isfinite(sa[f * n3 + q]);
        s2 += (g - fd) * (g - fd);
        f2 += fd * fd;
      }
      if (f > 0 && !(sqrt(s2 / f2) <= worst)) worst = sqrt(s2 / f2);
    }
    printf("d/ddelta against central differences: max relative error %.3g over %zu frames\n", worst, T - 1);
    CHECK(at0 == 0 && kin == 0 && finite, "frame 0 %g, driven nodes %g, finite %d", at0, kin, finite);
    CHECK(worst <= 1e-3, "relative error %g > 1e-3", worst);
  }
  free(x), free(sd), free(sa), free(x0), free(xp), free(xm);
  refused(exe, dir, cfg, "delta,gamma", "'gamma' is not one of");
  refused(exe, dir, cfg, "alpha,alpha", "given twice");
  refused(exe, dir, cfg, NULL, "--sensitivities needs a value");
  char cfo[600];
  snprintf(cfo, sizeof cfo, "%s/o.ini", dir);
  write_config(cfo, delta, "[obstacle.floor]\nkind = plane\npoint = 0, 0, -1\nnormal = 0, 0, 1\n");
  refused(exe, dir, cfo, "delta", "not differentiated");
  return cf_test_cli_end(dir, "test_simulate_sens");
}
