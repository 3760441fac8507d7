/* test_cloudseq.c — the point-cloud reader (cf_cloudseq_read) and `clothfit
 * ingest clouds` (argv: MALFORMED_CLOUD_DIR CLOTHFIT_EXE).
 *
 * 1. Every case folder of tests/data/malformed_cloud is rejected with one
 *    CF_EFORMAT line that starts with the offending file and names the
 *    line, byte offset or "file name" and what was expected; the command
 *    exits non-zero with exactly one stderr line and writes nothing.  Each
 *    folder has its held.csv (--held-track) and, if any, its times.txt.
 * 2. A good recording: binary PLY (float and double coordinates, an extra
 *    property, a face element) and XYZ frames of different sizes, in mm
 *    with y up, read through the command and back from the HDF5 file: the
 *    points of every frame in metres and z up, the native camera times (not
 *    resampled), the held track on the recording's time axis, --grid.
 * 3. The track's time column may be named time, t or timestamp; it holds
 *    1 to 16 grippers, their count from the header. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_common.h"
#include "cf_io.h"
#include "testutil.h"

typedef struct {
  const char *dir, *file, *at, *why;
} malformed;

#define X1 "frame_000001_0.033000.xyz"
#define P1 "frame_000001_0.033000.ply"

static const malformed cases[] = {
    {"empty_ply", P1, "line 3", "'element vertex 0': no points in the file (an empty cloud)"},
    {"empty_xyz", X1, "line 1", "no points in the file (an empty cloud)"},
    {"xyz_nan", X1, "line 2", "coordinate 2: expected a finite number, found 'nan'"},
    {"xyz_two_numbers", "frame_000000_0.000000.xyz", "line 2", "2 number(s), expected 'x y z'"},
    {"ply_ascii_nan", P1, "line 9", "vertex 2 of 2, property 'y': expected a finite coordinate, found nan"},
    {"ply_binary_nan", P1, "byte offset 127", "vertex 2 of 2, property 'x': expected a finite coordinate, found nan"},
    {"ply_truncated_binary", P1, "byte offset 115", "declares 3 'vertex' elements of at least 12 bytes each, but only 31"},
    {"ply_bad_header", P1, "line 3", "unknown header line 'colour'"},
    {"ply_no_vertex_element", "frame_000000_0.000000.ply", "line 5", "no 'element vertex' in the header"},
    {"ply_big_endian", "frame_000000_0.000000.ply", "line 2", "unsupported format 'binary_big_endian'"},
    {"times_repeated", "right_0.500.xyz", "file name", "time 0.5 s repeats that of"},
    {"times_out_of_order", "times.txt", "line 4", "time 0.03 s (c.xyz) is not after 0.04 s (b.xyz, line 3)"},
    {"held_ends_early", "held.csv", "line 3", "the corner track covers t = 0.000000 .. 0.050000 s, the frames span "
                                              "0.000000 .. 0.066000 s"},
    {"held_starts_late", "held.csv", "line 2", "the corner track covers t = 0.010000 .. 0.100000 s"},
    {"held_bad_columns", "held.csv", "line 1", "5 columns in the header 'time,x1,y1,z1,x2': expected time and x, y, "
     "z per gripper, 1 + 3k columns"},
    {"held_bad_header", "held.csv", "line 1", "expected the header 'time,x1,y1,z1[,x2,y2,z2,...]', found 'seconds,x1"},
    {"held_bad_number", "held.csv", "line 3", "expected 7 comma-separated finite numbers"},
    {"held_short_row", "held.csv", "line 3", "expected 7 comma-separated finite numbers"},
    {"held_nan", "held.csv", "line 3", "expected 7 comma-separated finite numbers"},
    {"held_time_repeats", "held.csv", "line 4", "time 0.05 s is not after 0.05 s (line 3)"},
    {"held_one_sample", "held.csv", "line 2", "1 sample(s), expected at least 2"},
};
static const int n_cases = sizeof cases / sizeof cases[0];

static int exists(const char *path) {
  struct stat sb;
  return stat(path, &sb) == 0;
}

static void check_reader(const char *dir, const malformed *c) {
  char times[1300], held[1300], start[1400];
  cf_meshseq_opts o;
  cf_meshseq_opts_default(&o);
  snprintf(times, sizeof times, "%s/times.txt", dir);
  snprintf(held, sizeof held, "%s/held.csv", dir);
  if (exists(times)) o.times_file = times;
  snprintf(start, sizeof start, "%s/%s: %s: ", dir, c->file, c->at);
  cf_recording r;
  cf_error err = {0, ""};
  cf_test_refused(c->dir, cf_cloudseq_read(dir, held, &o, &r, &err), err.msg, start, c->why);
}

static void check_cli(const char *exe, const char *dir, const char *tmp, const char *outdir) {
  char times[1300], held[1300], out[1200];
  snprintf(out, sizeof out, "%s/rec.h5", outdir);
  snprintf(times, sizeof times, "%s/times.txt", dir);
  snprintf(held, sizeof held, "%s/held.csv", dir);
  char *argv[] = {(char *)exe, "ingest", "clouds", (char *)dir, "--held-track", held, "-o", out, "--times", times,
                  NULL};
  if (!exists(times)) argv[8] = NULL;
  cf_test_cli_refuses(argv, tmp, outdir, dir);
}

/* ------------------------------------------------------------ a good one */
#define NF 4
static const double frame_t[NF] = {10.0, 10.034, 10.066, 10.101}; /* s, the camera's clock */
static const int frame_n[NF] = {5, 3, 7, 4};

/* Point k of frame f in the files' unit (mm) and axes (y up). */
static void point(int f, int k, double *x) {
  x[0] = 10.0 * k + f, x[1] = 500 - 3.0 * k, x[2] = 0.25 * k * f - 1;
}

static void write_ply(const char *path, int f, int dbl) {
  FILE *o = fopen(path, "wb");
  CHECK(o != NULL, "%s", path);
  if (!o) return;
  const char *ty = dbl ? "double" : "float";
  fprintf(o, "ply\nformat binary_little_endian 1.0\ncomment a depth camera\nelement vertex %d\nproperty %s x\n"
          "property uchar intensity\nproperty %s y\nproperty %s z\nelement face 1\nproperty list uchar int "
          "vertex_indices\nend_header\n", frame_n[f], ty, ty, ty);
  for (int k = 0; k < frame_n[f]; k++) {
    double x[3];
    point(f, k, x);
    unsigned char c = 200;
    for (int d = 0; d < 3; d++) {
      float v = (float)x[d];
      if (dbl) fwrite(&x[d], 8, 1, o);
      else fwrite(&v, 4, 1, o);
      if (d == 0) fwrite(&c, 1, 1, o);
    }
  }
  unsigned char three = 3;
  int idx[3] = {0, 1, 2};
  fwrite(&three, 1, 1, o);
  fwrite(idx, 4, 3, o);
  fclose(o);
}

static void write_xyz(const char *path, int f) {
  FILE *o = fopen(path, "w");
  CHECK(o != NULL, "%s", path);
  if (!o) return;
  fprintf(o, "# x y z nx ny nz\n\n");
  for (int k = 0; k < frame_n[f]; k++) {
    double x[3];
    point(f, k, x);
    fprintf(o, "%.17g, %.17g, %.17g, 0, 1, 0\n", x[0], x[1], x[2]);
  }
  fclose(o);
}

static void check_good(const char *exe, const char *tmp) {
  char dir[200], path[400], held[300], out[300];
  snprintf(dir, sizeof dir, "%s/good", tmp);
  mkdir(dir, 0755);
  for (int f = 0; f < NF; f++) {
    snprintf(path, sizeof path, "%s/cam_%06d_%.6f.%s", dir, f, frame_t[f], f == 1 ? "xyz" : "ply");
    if (f == 1) write_xyz(path, f);
    else write_ply(path, f, f == 2);
  }
  snprintf(held, sizeof held, "%s/corners.csv", tmp);
  FILE *h = fopen(held, "w");
  fprintf(h, "Time, X1, Y1, Z1, X2, Y2, Z2\r\n");
  for (int k = 0; k <= 12; k++) fprintf(h, "%.3f,%d,1000,0,297,1000,%d\r\n", 9.99 + 0.01 * k, k, -k);
  fclose(h);
  snprintf(out, sizeof out, "%s/rec.h5", tmp);
  char *argv[] = {(char *)exe, "ingest", "clouds", dir, "--held-track", held, "-o", out, "--units", "mm", "--up", "y",
                  "--size", "A3", "--grid", "4x6", NULL};
  free(cf_test_run_ok(argv, tmp, "ingest clouds"));
  cf_recording r;
  cf_error err = {0, ""};
  int rc = cf_recording_read_h5(out, &r, &err);
  CHECK(rc == CF_OK, "read back: %s", err.msg);
  if (rc) return;
  CHECK(r.n_frames == NF && r.n_markers == 0 && !r.uniform, "%d frames, %d markers, uniform %d", r.n_frames,
        r.n_markers, r.uniform);
  CHECK(!strcmp(r.source_kind, "clouds") && fabs(r.time_offset - 10) < 1e-12, "kind %s offset %g", r.source_kind,
        r.time_offset);
  for (int f = 0; f < NF && r.n_frames == NF; f++) {
    CHECK(fabs(r.time[f] - (frame_t[f] - 10)) < 1e-9, "frame %d at %.9g s", f, r.time[f]);
    CHECK(r.cloud.offset[f + 1] - r.cloud.offset[f] == frame_n[f], "frame %d: %ld points", f,
          r.cloud.offset[f + 1] - r.cloud.offset[f]);
    for (int k = 0; k < frame_n[f]; k++) {
      double x[3], *y = r.cloud.points + 3 * (r.cloud.offset[f] + k);
      point(f, k, x);
      double want[3] = {x[0] / 1000, -x[2] / 1000, x[1] / 1000}, tol = f == 0 || f == 3 ? 1e-7 : 1e-15;
      for (int d = 0; d < 3; d++)
        CHECK(fabs(y[d] - want[d]) <= tol, "frame %d point %d axis %d: %.17g, expected %.17g", f, k, d, y[d], want[d]);
    }
  }
  CHECK(r.held.n == 13, "%d held samples", r.held.n);
  if (r.held.n == 13) {
    CHECK(fabs(r.held.time[0] + 0.01) < 1e-12 && fabs(r.held.time[12] - 0.11) < 1e-12, "held times %g .. %g",
          r.held.time[0], r.held.time[12]);
    const double *c = r.held.track + 6 * 5; /* k = 5: (5, 1000, 0), (297, 1000, -5) mm, y up */
    double want[6] = {0.005, 0, 1, 0.297, 0.005, 1};
    for (int d = 0; d < 6; d++) CHECK(fabs(c[d] - want[d]) < 1e-12, "held[5][%d] = %g, expected %g", d, c[d], want[d]);
  }
  CHECK(fabs(r.meta.width_m - 0.297) < 1e-12, "width %g", r.meta.width_m);
  CHECK(r.cloud.grid[0] == 4 && r.cloud.grid[1] == 6, "grid %d x %d, expected 4 x 6", r.cloud.grid[0],
        r.cloud.grid[1]);
  cf_recording_free(&r);
}

/* A robot's log names its time column time, t or timestamp; any other name
 * is refused with the one-line header error. */
static void check_time_names(void) {
  static const char *const names[4] = {"t", "timestamp", " TIME ", "T"};
  for (int k = 0; k < 4; k++) {
    char buf[200];
    int n = snprintf(buf, sizeof buf, "%s,x1,y1,z1,x2,y2,z2\n0.0,0,0,1,0.3,0,1\n0.5,0,0,1.1,0.3,0,1.1\n", names[k]);
    cf_rec_held h;
    cf_error err = {0, ""};
    int rc = cf_held_track_parse(buf, (size_t)n, "log.csv", 1.0, 'z', &h, &err);
    CHECK(rc == CF_OK, "time column '%s': %s", names[k], err.msg);
    if (rc) continue;
    CHECK(h.n == 2 && h.time[1] == 0.5 && h.track[6 + 2] == 1.1, "time column '%s': %d samples", names[k], h.n);
    cf_rec_held_free(&h);
  }
  const char bad[] = "tstamp,x1,y1,z1,x2,y2,z2\n0.0,0,0,1,0.3,0,1\n0.5,0,0,1,0.3,0,1\n";
  cf_rec_held h;
  cf_error err = {0, ""};
  int rc = cf_held_track_parse(bad, sizeof bad - 1, "log.csv", 1.0, 'z', &h, &err);
  CHECK(rc != CF_OK && strstr(err.msg, "log.csv: line 1: expected the header") && strstr(err.msg, "'tstamp,x1"),
        "a time column named tstamp: rc %d, %s", rc, err.msg);
}

/* One gripper and sixteen: the count from the header, each sample's
 * grippers in order; seventeen are refused. */
static void check_gripper_counts(void) {
  static const int counts[3] = {1, 16, 17};
  for (int q = 0; q < 3; q++) {
    int G = counts[q], n;
    char buf[2000], *p = buf;
    p += sprintf(p, "time");
    for (int g = 1; g <= G; g++) p += sprintf(p, ",x%d,y%d,z%d", g, g, g);
    for (int k = 0; k < 2; k++) {
      p += sprintf(p, "\n%d", k);
      for (int j = 0; j < 3 * G; j++) p += sprintf(p, ",%d", 100 * k + j);
    }
    n = (int)(p - buf);
    cf_rec_held h;
    cf_error err = {0, ""};
    int rc = cf_held_track_parse(buf, (size_t)n, "log.csv", 1.0, 'z', &h, &err);
    if (G > 16) {
      CHECK(rc != CF_OK && strstr(err.msg, "log.csv: line 1: 52 columns in the header"), "17 grippers: %s", err.msg);
      continue;
    }
    CHECK(rc == CF_OK && h.n == 2 && h.n_grip == G, "%d gripper(s): rc %d, %d samples of %d: %s", G, rc, h.n, h.n_grip,
          err.msg);
    for (int j = 0; rc == CF_OK && j < 3 * G; j++)
      CHECK(h.track[3 * G + j] == 100 + j, "%d gripper(s): sample 1, value %d: %g", G, j, h.track[3 * G + j]);
    if (rc == CF_OK) cf_rec_held_free(&h);
  }
}

int main(int argc, char **argv) {
  char tmp[] = "/tmp/cf_cloud_XXXXXX", outdir[100], dir[1100], cmd[200];
  cf_runtime_init();
  if (cf_test_corpus_begin(argc, argv, n_cases, tmp, outdir, sizeof outdir)) return 2;
  for (int i = 0; i < n_cases; i++) {
    snprintf(dir, sizeof dir, "%s/%s", argv[1], cases[i].dir);
    check_reader(dir, &cases[i]);
    check_cli(argv[2], dir, tmp, outdir);
  }
  check_good(argv[2], tmp);
  check_time_names();
  check_gripper_counts();
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  CHECK(system(cmd) == 0, "%s", cmd);
  return cf_test_done("test_cloudseq");
}
