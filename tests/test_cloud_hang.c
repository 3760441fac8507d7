/* test_cloud_hang.c — the start a point-cloud recording's fit builds
 * (fit_cloud.c hang(): the cloth hanging from the held corners at frame 0)
 * is one a simulation of the cloth's measured size runs from, also when
 * the hanger holds the corners closer than the width, as a robot holding a
 * sheet does (the bundled WAM recordings: 0.5 % closer).
 *
 * For corner distances of 1, 0.995 and 0.95 the width, and for a cloud on
 * either side of the corners' vertical plane (frame 0's points 2 cm in
 * front of or behind it, plus far outliers on the other side, which must
 * not vote), the fit input's frame 0 (the 5 x 5 lattice):
 *  - its top corners are the track's at time 0 (to 1e-12 m);
 *  - its top row is the width long along its markers (to 0.5 %: they lie
 *    on an arc of the width, so the chords between them are a little
 *    shorter), its bottom row is flat in the corners' plane and the width
 *    long (1e-12 m);
 *  - with the corners a width apart the whole sheet is flat (1e-12 m);
 *    closer, the top row's middle lies out of the plane on the cloud's
 *    side, by more than half the arc's sagitta (a circle's sagitta is
 *    sqrt(3 s (l - s)/8) for arc length l and chord s to first order: 1.28
 *    cm at 0.995, 3.96 cm at 0.95);
 *  - one simulation of the recording (delta 0.5, alpha 2, the fitting
 *    defaults, rest of the size) runs: from a flat start with the top edge
 *    short of the width the projection did not converge at any parameters.
 * Why the slack dies out down the sheet instead of bowing it whole (a
 * cylinder, which is isometric to the flat sheet): the recorded sheet's
 * does.  On datasets/wam-mini's light-cotton-fast clouds, at the truth
 * (clothfit sweep REC.h5 --delta-grid 0.52:0.52:1 --alpha-grid
 * 2.69:2.69:1 --window 0:1, and --window 0:7, 2026-11-29), the error over
 * the first, still second was 0.371 cm from this start against 0.683 cm
 * from the cylinder, and over the training window 0.273 against 0.331 cm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_fit.h"
#include "cf_study.h"
#include "testutil.h"

#define W 0.297
#define H 0.42
#define TOP 1.5

/* A recording of 60 frames at 30 Hz: the corners `frac` of the width apart
 * at TOP, still; each cloud 300 points on the plane y = side * 0.02 over
 * the sheet plus 6 far outliers at y = -side * 2. */
static void write_recording(const char *dir, const char *held, double frac, double side) {
  mkdir(dir, 0755);
  FILE *f = fopen(held, "w");
  CHECK(f != NULL, "%s", held);
  if (!f) return;
  double x1 = -W * frac / 2, x2 = W * frac / 2;
  fprintf(f, "time,x1,y1,z1,x2,y2,z2\n");
  for (int k = 0; k <= 240; k++) fprintf(f, "%.6f,%.9f,0,%g,%.9f,0,%g\n", k / 120.0, x1, TOP, x2, TOP);
  fclose(f);
  unsigned long long rng = 7;
  for (int i = 0; i < 60; i++) {
    char path[600];
    snprintf(path, sizeof path, "%s/cam_%06d_%.6f.xyz", dir, i, i / 30.0);
    FILE *g = fopen(path, "w");
    CHECK(g != NULL, "%s", path);
    for (int p = 0; g && p < 306; p++) {
      double u = 0.5 * (cf_test_rand(&rng) + 1), v = 0.5 * (cf_test_rand(&rng) + 1);
      fprintf(g, "%.6f %.6f %.6f\n", x1 + u * (x2 - x1), p < 300 ? side * 0.02 : -side * 2, TOP - v * H);
    }
    if (g) fclose(g);
  }
}

static double dist(const double *a, const double *b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static void check_start(const char *dir, const char *held, double frac, double side) {
  cf_meshseq_opts o;
  cf_meshseq_opts_default(&o);
  cf_recording r;
  cf_fit_input in;
  cf_error err = {0, ""};
  int rc = cf_cloudseq_read(dir, held, &o, &r, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (rc) return;
  r.meta.width_m = W, r.meta.height_m = H, r.meta.density = 0.16;
  rc = cf_fit_input_from_recording(&r, dir, &in, &err);
  cf_recording_free(&r);
  CHECK(rc == CF_OK, "frac %g: %s", frac, err.msg);
  if (rc) return;
  const int G = in.tg.rows;
  const double *p = in.tg.pos; /* frame 0 */
  CHECK(G == 5 && in.tg.cols == 5, "lattice %d x %d", G, in.tg.cols);
  double c1[3] = {-W * frac / 2, 0, TOP}, c2[3] = {W * frac / 2, 0, TOP}, top = 0, bottom = 0, flat = 0;
  CHECK(dist(p, c1) < 1e-12 && dist(p + 3 * (G - 1), c2) < 1e-12, "frac %g: top corners off the track", frac);
  for (int k = 0; k + 1 < G; k++)
    top += dist(p + 3 * k, p + 3 * (k + 1)), bottom += dist(p + 3 * ((G - 1) * G + k), p + 3 * ((G - 1) * G + k + 1));
  for (int q = frac == 1 ? 0 : G - 1; q < G; q++)
    for (int k = 0; k < G; k++) flat = fmax(flat, fabs(p[3 * (q * G + k) + 1]));
  double s = W * frac, sag = sqrt(3 * s * (W - s) / 8), off_mid = p[3 * 2 + 1];
  printf("corners %.3f W apart, cloud on side %+g: top row %.5f m along its markers, bottom row %.5f m, "
         "top middle %+.4f m out of the plane (first-order sagitta %.4f)\n", frac, side, top, bottom, off_mid, sag);
  CHECK(fabs(top / W - 1) < 5e-3, "frac %g: the top row is %.5f m along its markers, the width %g", frac, top, W);
  CHECK(fabs(bottom - W) < 1e-12 && flat < 1e-12, "frac %g: bottom row %.6f m, %.3g m out of the plane", frac, bottom,
        flat);
  if (frac < 1) CHECK(off_mid * side > 0.5 * sag, "frac %g side %g: top middle %.4f m out of the plane", frac, side, off_mid);
  cf_params base = in.base;
  cf_fit_run *run = cf_fit_run_alloc(&in.tg, &base, &err);
  CHECK(run != NULL, "%s", err.msg);
  cf_fit_point pt = {0.5, 2, 0, base.kappa, 0, 0, 0, 0};
  cf_fit_result res;
  if (run) cf_fit_run_eval(run, &pt, 0, 0, 0, NULL, &res);
  CHECK(run && res.status == CF_OK, "frac %g: the simulation failed: %s", frac, run ? res.reason : "");
  cf_fit_run_free(run);
  cf_fit_input_free(&in);
}

int main(void) {
  char tmp[] = "/tmp/cf_cloudhang_XXXXXX";
  CHECK(mkdtemp(tmp) != NULL, "mkdtemp");
  const double frac[] = {1, 0.995, 0.95}, side[] = {1, -1};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++) {
      char dir[200], held[200];
      snprintf(dir, sizeof dir, "%s/cam%d%d", tmp, i, j);
      snprintf(held, sizeof held, "%s/corners%d%d.csv", tmp, i, j);
      write_recording(dir, held, frac[i], side[j]);
      check_start(dir, held, frac[i], side[j]);
    }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", tmp);
  return cf_test_done("test_cloud_hang");
}
