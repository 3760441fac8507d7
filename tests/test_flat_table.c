/* test_flat_table.c — a point-cloud recording whose cloth starts flat on a
 * table (`ingest clouds --start flat-on-table`, src/study/fit_flat.c,
 * src/recording/table_fit.c; docs/driving.md "A cloth that starts on the
 * table").  argv: CLOTHFIT_EXE SOURCE_ROOT.
 *
 * The truth: a 0.28 m square (the 3 x 3 lattice split 2: 5 x 5 nodes, a
 * coarse cloth that keeps the simulations with contacts fast: `ingest
 * clouds --grid 3x3`; rho 0.1604) lying flat on a table whose top is at z = 0.75 m, turned
 * 30 degrees about z, the contact clearance (2 mm) above it; one gripper
 * holds its top-left corner from the first frame and drags it 0.2 m across
 * it off the table over 2 s (0.25 m up, 0.15 m away along its diagonal), friction
 * mu = 0.4, delta 0.035, alpha 0.25 (kappa 1e-3, tol 1e-4, the fitting
 * settings), simulated as the fitting commands simulate it (the table an
 * obstacle with friction, active set, Coulomb on the step's impulses).
 * A camera's clouds of it (tests/cloudcam.c: 800 points a frame, 1 mm
 * noise along the normal, 1 % outliers 0.3-0.8 m off the sheet at its
 * height); the first cloud partial: only the points of the sheet's half u
 * < 0.5 (the robot masked out of the rest).
 *
 * 1. Placement, over three seeds of the clouds: `ingest clouds --start
 *    flat-on-table --held top-left` with no table given fits the table to
 *    the first cloud (within 0.5 mm of its top: the median of 1 mm noise
 *    over 800 points; `inspect` says it was fitted) and the fit's frame 0 (the 3 x 3 lattice on the
 *    table) lies within 6 mm of the truth's at every marker, within 0.5 mm
 *    of its height.  Why 6 mm: the gripper pins the corner and the half
 *    cloud turns the sheet about it, and the turn is free while every point
 *    lies on the sheet: up to the angle at which the first point near an
 *    edge leaves it, for 800 points on half the sheet about 1/(density x
 *    l^2 / 2) = 5e-3 rad along its 0.14 m edge on average, with an
 *    exponential tail; three times that (exceeded in 5 % of draws) moves
 *    the far corner, 0.4 m away, 6 mm.  A square's mirror about its
 *    diagonal through the pinned corner covers the same region and is the
 *    same cloth, so the lattice is compared either way.
 * 2. mu fitted on the drag: the same recording ingested with the table
 *    given (--table-height, --table-extent), `fit --params delta,alpha,mu
 *    --start D,A --mu 0.25` (delta, alpha 15 % off, mu 37 % off)
 *    --no-confidence --polish none must find mu within 10 % of the truth: with the
 *    first-frame rest the fitter's cloth is the generator's up to the
 *    placement's error, and friction sets how far the dragged sheet's far
 *    side lags, which the clouds see.
 * 3. Bad input, one line and nothing written: a flat-on-table start with
 *    no table given and a first frame whose points lie on no horizontal
 *    plane (a hanging sheet's). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cf_common.h"
#include "cf_fit.h"
#include "cf_sim.h"
#include "cf_study.h"
#include "cli_json.h"
#include "cloudcam.h"
#include "testutil.h"

#define G 3
#define N 5
#define W 0.28
#define RHO 0.1604
#define DELTA 0.035
#define ALPHA 0.25
#define MU 0.4
#define DT 0.01
#define STEPS 200
#define TABLE 0.75
#define TURN (30 * M_PI / 180)

static const double ox = 0.1, oy = -0.05; /* the top-left corner at the first frame */

/* The flat sheet's point (u, v) at the first frame: x = o + R (u W, -v W). */
static void sheet_point(double u, double v, double clear, double *x) {
  double c = cos(TURN), s = sin(TURN), lx = u * W, ly = -v * W;
  x[0] = ox + c * lx - s * ly, x[1] = oy + s * lx + c * ly, x[2] = TABLE + clear;
}

/* The gripper at time t: the corner lifted 0.25 m and carried 0.15 m away
 * from the sheet along its diagonal, smoothly from rest (the lifted part
 * hangs from it, and its weight pulls the part still on the table against
 * its friction: a drag in which mu shows, where pulling a lying sheet
 * along the table alone is nearly the same motion at every mu, friction
 * then resisting every part of it alike). */
static void gripper(double t, double clear, double *x) {
  double s = t >= 2 ? 1 : t / 2, f = s * s * s * (10 - 15 * s + 6 * s * s), d[3];
  sheet_point(-1, -1, 0, d); /* the direction (-W, W) from the corner, turned: away from the sheet */
  double dx = d[0] - ox, dy = d[1] - oy, l = sqrt(dx * dx + dy * dy);
  x[0] = ox + 0.15 * f * dx / l, x[1] = oy + 0.15 * f * dy / l, x[2] = TABLE + clear + 0.25 * f;
}

static double clearance(void) {
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  return cp.thickness;
}

/* The truth: every step's nodes into traj[(STEPS+1)*N*N*3]; NULL on failure. */
static double *simulate(cf_mesh **mesh) {
  double lat[G * G * 3], h = clearance();
  for (int r = 0; r < G; r++)
    for (int c = 0; c < G; c++) sheet_point((double)c / (G - 1), (double)r / (G - 1), h, lat + 3 * (r * G + c));
  cf_mesh *m = cf_mesh_lattice_refine(G, G, 2, 2, lat);
  cf_params p;
  cf_params_default(&p);
  p.dt = DT, p.rho = RHO, p.delta = DELTA, p.alpha = ALPHA, p.kappa = 1e-3, p.tol = 1e-4;
  int kin = 0;
  cf_error err = {0, ""};
  cf_sim *s = m ? cf_sim_alloc(m, &p, &kin, 1, &err) : NULL;
  cf_obstacle o;
  double table[5] = {TABLE, -2, 2, -2, 2};
  cf_obstacle_table_at(&o, table, MU);
  cf_contact_params cp;
  cf_contact_params_default(&cp);
  cp.friction_budget = 1; /* as src/fit/driven.c */
  if (s && cf_sim_set_obstacles(s, &o, 1, &cp, &err)) cf_sim_free(s), s = NULL;
  CHECK(s != NULL, "sim: %s", err.msg);
  size_t nx = 3 * (size_t)N * N;
  double *traj = s ? malloc(sizeof(double) * nx * (STEPS + 1)) : NULL;
  if (traj) memcpy(traj, cf_sim_x(s), sizeof(double) * nx);
  for (int k = 1; traj && k <= STEPS; k++) {
    double kp[3];
    gripper(k * DT, h, kp);
    int rc = cf_sim_step(s, kp, &err);
    CHECK(rc == CF_OK, "step %d: %s", k, err.msg);
    if (rc) free(traj), traj = NULL;
    else memcpy(traj + nx * k, cf_sim_x(s), sizeof(double) * nx);
  }
  cf_sim_free(s);
  *mesh = m;
  return traj;
}

static void write_track(const char *path) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "%s", path);
  if (!f) return;
  fprintf(f, "time,x1,y1,z1\n");
  for (int k = 0; k <= STEPS; k++) {
    double x[3];
    gripper(k * DT, clearance(), x);
    fprintf(f, "%.17g,%.17g,%.17g,%.17g\n", k * DT, x[0], x[1], x[2]);
  }
  fclose(f);
}

/* The first cloud: 800 points on the sheet's half u < 0.5 with 1 mm noise
 * in z and 8 outliers at its height 0.3-0.8 m off. */
static void write_partial(const char *path, unsigned long long *rng) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "%s", path);
  for (int p = 0; f && p < 808; p++) {
    double u = 0.25 * (cf_test_rand(rng) + 1), v = 0.5 * (cf_test_rand(rng) + 1), x[3], g = 0;
    for (int k = 0; k < 12; k++) g += 0.5 * (cf_test_rand(rng) + 1);
    sheet_point(u, v, clearance(), x);
    x[2] += 1e-3 * (g - 6);
    if (p >= 800) x[1] -= 0.3 + 0.25 * (cf_test_rand(rng) + 1);
    fprintf(f, "%.17g %.17g %.17g\n", x[0], x[1], x[2]);
  }
  if (f) fclose(f);
}

/* The camera's clouds of the truth into dir (~30 Hz, jittered; the first
 * one partial), seed. */
static void write_clouds(const char *dir, const cf_mesh *m, const double *traj, unsigned long long seed) {
  unsigned long long rng = seed;
  mkdir(dir, 0755);
  int i = 0;
  for (double t = 0; t <= STEPS * DT - 0.04; i++) {
    char path[600];
    snprintf(path, sizeof path, "%s/cam_%06d_%.6f.xyz", dir, i, t);
    if (i == 0) write_partial(path, &rng);
    else CHECK(cf_test_cloud_frame(path, t, DT, m, traj, 800, 0, &rng), "%s", path);
    t = round(1e6 * (t + 1.0 / 30 + 0.003 * cf_test_rand(&rng))) / 1e6;
  }
}

static double dist(const double *a, const double *b) {
  return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* 1: the table fitted to the partial first cloud, the sheet placed on it. */
static void placement(const char *exe, const char *tmp, const cf_mesh *m, const double *traj, int seed) {
  char dir[300], csv[300], rec[300], *out = NULL;
  snprintf(dir, sizeof dir, "%s/cam%d", tmp, seed);
  snprintf(csv, sizeof csv, "%s/track.csv", tmp);
  snprintf(rec, sizeof rec, "%s/placed%d.h5", tmp, seed);
  write_clouds(dir, m, traj, 1000 + seed);
  int st = cf_test_run_args(exe, tmp, NULL, &out, "ingest", "clouds", dir, "--held-track", csv, "--held", "top-left",
                            "--start", "flat-on-table", "-o", rec, "--size", "0.28x0.28", "--density", "0.1604", "--grid",
                            "3x3", NULL);
  CHECK(st == 0 && out && strstr(out, "the table is fitted to the first frame's points"), "ingest: status %d: %s", st,
        out ? out : "");
  free(out), out = NULL;
  int si = cf_test_run_args(exe, tmp, &out, NULL, "inspect", rec, NULL);
  CHECK(si == 0 && out && strstr(out, "(fitted to the first frame's points: ") && strstr(out, "flat on the table"),
        "inspect: status %d: %s", si, out ? out : "");
  free(out);
  cf_fit_input in;
  cf_error err = {0, ""};
  if (st || cf_fit_input_load(rec, &in, &err)) {
    CHECK(0, "%s: %s", rec, err.msg);
    return;
  }
  double off[2] = {0, 0}, dz = 0, truth[3];
  for (int r = 0; r < G; r++)
    for (int c = 0; c < G; c++)
      for (int mirror = 0; mirror < 2; mirror++) {
        const double *p = in.tg.pos + 3 * (mirror ? c * G + r : r * G + c);
        sheet_point((double)c / (G - 1), (double)r / (G - 1), clearance(), truth);
        off[mirror] = fmax(off[mirror], dist(p, truth)), dz = fmax(dz, fabs(p[2] - truth[2]));
      }
  double worst = fmin(off[0], off[1]);
  printf("seed %d: table top %.5f m (truth %.2f), the placed sheet at most %.2f mm off the truth, %.2f mm in height\n",
         seed, in.tg.table[0], TABLE, 1e3 * worst, 1e3 * dz);
  CHECK(fabs(in.tg.table[0] - TABLE) < 5e-4, "seed %d: table top at %.5f m, truth %g", seed, in.tg.table[0], TABLE);
  CHECK(worst < 6e-3 && dz < 5e-4, "seed %d: the placed sheet %.2f mm off (%.2f mm in height)", seed, 1e3 * worst,
        1e3 * dz);
  cf_fit_input_free(&in);
}

/* 2: mu fitted on the drag. */
static void fit_mu(const char *exe, const char *tmp) {
  char dir[300], csv[300], rec[300], start[64], *out = NULL;
  snprintf(dir, sizeof dir, "%s/cam0", tmp);
  snprintf(csv, sizeof csv, "%s/track.csv", tmp);
  snprintf(rec, sizeof rec, "%s/drag.h5", tmp);
  int st = cf_test_run_args(exe, tmp, &out, NULL, "ingest", "clouds", dir, "--held-track", csv, "--held", "top-left",
                            "--start", "flat-on-table", "--table-height", "0.75", "--table-extent", "-2,2,-2,2", "-o",
                            rec, "--size", "0.28x0.28", "--density", "0.1604", "--grid", "3x3", NULL);
  CHECK(st == 0, "ingest: status %d", st);
  free(out), out = NULL;
  snprintf(start, sizeof start, "%g,%g", 1.15 * DELTA, 0.85 * ALPHA);
  st = cf_test_run_args(exe, tmp, &out, NULL, "fit", rec, "--params", "delta,alpha,mu", "--start", start, "--mu",
                        "0.25", "--rest", "first-frame", "--no-confidence", "--polish", "none", "--workers", "1",
                        "--json", NULL);
  CHECK(st == 0, "fit: status %d", st);
  const char *j = out ? cf_test_last_line(out) : "";
  double mu = cf_test_json_num(j, "mu"), d = cf_test_json_num(j, "delta"), a = cf_test_json_num(j, "alpha");
  printf("the drag: mu %.4f (truth %.2f, %+.1f %%), delta %.5f (%+.1f %%), alpha %.5f (%+.1f %%)\n", mu, MU,
         100 * (mu / MU - 1), d, 100 * (d / DELTA - 1), a, 100 * (a / ALPHA - 1));
  CHECK(fabs(mu / MU - 1) < 0.1, "mu %.4f, truth %g", mu, MU);
  if (cf_test_failures) fprintf(stderr, "%s\n", out ? out : "");
  free(out);
}

/* 3: no table: a first frame of points on a vertical plane. */
static void no_table(const char *exe, const char *tmp) {
  char dir[300], csv[300], outdir[300], rec[400];
  snprintf(dir, sizeof dir, "%s/upright", tmp);
  snprintf(csv, sizeof csv, "%s/track.csv", tmp);
  snprintf(outdir, sizeof outdir, "%s/refused", tmp);
  snprintf(rec, sizeof rec, "%s/rec.h5", outdir);
  mkdir(dir, 0755), mkdir(outdir, 0755);
  unsigned long long rng = 5;
  for (int i = 0; i < 3; i++) {
    char path[400];
    snprintf(path, sizeof path, "%s/cam_%06d_%.6f.xyz", dir, i, i * 0.5);
    FILE *f = fopen(path, "w");
    for (int p = 0; f && p < 300; p++)
      fprintf(f, "%.6f 0 %.6f\n", 0.14 * (cf_test_rand(&rng) + 1), TABLE + 0.14 * (cf_test_rand(&rng) + 1));
    if (f) fclose(f);
  }
  char *argv[] = {(char *)exe, "ingest", "clouds", dir, "--held-track", csv, "--held", "top-left", "--start",
                  "flat-on-table", "-o", rec, "--size", "0.28x0.28", NULL};
  cf_test_cli_refuses(argv, tmp, outdir, "no table");
}

int main(int argc, char **argv) {
  const char *exe, *root;
  char tmp[] = "/tmp/cf_flat_XXXXXX", csv[100];
  int rc = cf_test_cli_begin(argc, argv, &exe, &root, tmp);
  if (rc) return rc;
  snprintf(csv, sizeof csv, "%s/track.csv", tmp);
  cf_mesh *m = NULL;
  double *traj = simulate(&m);
  if (traj) {
    write_track(csv);
    for (int seed = 0; seed < 3; seed++) placement(exe, tmp, m, traj, seed);
    fit_mu(exe, tmp);
    no_table(exe, tmp);
  }
  free(traj);
  cf_mesh_free(m);
  return cf_test_cli_end(tmp, "test_flat_table");
}
