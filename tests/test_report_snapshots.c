/* test_report_snapshots.c — the 3-D figures of `clothfit report` (docs/report.md):
 * recorded vs simulated markers at chosen instants and the animated GIF.
 *
 * A results file is made here with the library's writer: recording "alpha"
 * (a 3 x 2 lattice, 50 frames of 0.01 s, a missing marker, the simulation
 * failed from frame 45), "beta" (2 x 3, 130 frames of 0.02 s) and "old" (a
 * series without markers, like a file written before they were stored).
 * Then `clothfit report` is run on it and the test checks:
 *   - for alpha and beta: NAME-snapshots.{gp,dat,svg,png} and
 *     NAME-animation.{gp,dat,gif} exist; the PNG is 900 x 900 pixels and the
 *     SVG's viewBox 900 x 900 (4 default instants: 2 x 2 panels of 450 x
 *     430 + 40; alpha's at frames 10 .. 39, beta's at 0.5, 1.0, 1.5, 2.1 s:
 *     rounded to 0.1 s); the GIF starts with GIF89a, is 640 x 520, holds one
 *     image per frame shown (alpha: all 50; beta: every 3rd of 130, 44:
 *     counted by walking its blocks) and is larger than 10 kB; the data files
 *     hold 2 K points per instant and per animation frame; every
 *     script exits 0 when run again with gnuplot from another folder and
 *     writes its images again; index.html shows the GIF and the SVG, and
 *     report.md links them; "old" has none of these files and the pages
 *     carry the note naming it;
 *   - --frames 0.1,0.2,0.4 draws those instants (frames 10, 20, 40 of alpha,
 *     5, 10, 20 of beta, named in the data) in 2 x 2 panels; 5 instants in
 *     3 x 2 (1350 x 900), the panel where the simulation had failed titled so;
 *   - bad --frames (not a number, empty, negative, NaN, more than 12, outside
 *     a recording) fail with one line naming the value, and write nothing.
 * Skipped (exit 77) when gnuplot is not installed.
 *
 * usage: test_report_snapshots CLOTHFIT_EXE */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cf_io.h"
#include "cli_json.h"
#include "testutil.h"

static const char *exe;
static char dir[] = "/tmp/cf_test_snapshots.XXXXXX";

/* ------------------------------------------------------- the results file */
/* A series of T frames on a rows x cols lattice; simulated NaN from fail_from. */
static void series(cf_res_rec *c, int rows, int cols, int T, double dt, int fail_from, int markers) {
  cf_res_series *z = &c->series;
  c->has_series = 1;
  c->dt = dt, c->frames = T, c->rho = 0.2;
  z->T = T, z->dt = dt, z->delta = 0.1, z->alpha = 0.5;
  z->e = malloc(sizeof(double) * T), z->s = malloc(sizeof(double) * T), z->d = malloc(sizeof(double) * T);
  for (int i = 0; i < T; i++) z->e[i] = i < fail_from ? 0.3 + 0.01 * i : NAN, z->s[i] = 0.1, z->d[i] = z->e[i] + 0.2;
  if (!markers) return;
  int K = rows * cols;
  z->rows = rows, z->cols = cols;
  z->recorded = malloc(sizeof(double) * T * K * 3), z->simulated = malloc(sizeof(double) * T * K * 3);
  for (int k = 0; k < T; k++)
    for (int j = 0; j < K; j++) {
      double *p = z->recorded + 3 * ((size_t)k * K + j), *q = z->simulated + 3 * ((size_t)k * K + j);
      double swing = 0.05 * sin(0.2 * k) * (j / cols);
      p[0] = 0.15 * (j % cols), p[1] = swing, p[2] = 1.5 - 0.15 * (j / cols);
      q[0] = p[0] + 0.002, q[1] = 1.1 * swing, q[2] = p[2] - 0.003;
      if (k >= fail_from) q[0] = q[1] = q[2] = NAN;
    }
  z->recorded[3 * (7 * K + 1)] = NAN; /* a missing marker in frame 7 */
}

static int make_results(const char *path) {
  cf_results r;
  cf_results_init(&r);
  char arg0[] = "test_report_snapshots", *argv[] = {arg0, NULL};
  cf_results_stamp(&r, 1, argv, 1, NULL);
  series(cf_results_rec(&r, "alpha", 1), 3, 2, 50, 0.01, 45, 1);
  series(cf_results_rec(&r, "beta", 1), 2, 3, 130, 0.02, 130, 1);
  series(cf_results_rec(&r, "old", 1), 2, 2, 20, 0.01, 20, 0);
  cf_error err = {0, ""};
  int rc = cf_results_write(path, &r, &err);
  if (rc) fprintf(stderr, "cf_results_write: %s\n", err.msg);
  cf_results_free(&r);
  return rc;
}

/* ------------------------------------------------------------ file checks */
static long file_size(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static unsigned char *slurp(const char *out, const char *rel, size_t *len) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", out, rel);
  *len = 0;
  return (unsigned char *)cf_test_slurp(path, len);
}

/* PNG width and height from its IHDR; 0 if not a PNG. */
static int png_size(const unsigned char *b, size_t n, int *w, int *h) {
  static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (!b || n < 24 || memcmp(b, sig, 8) || memcmp(b + 12, "IHDR", 4)) return 0;
  *w = b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19];
  *h = b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23];
  return 1;
}

/* Skip GIF data sub-blocks from b[i]; the index after the terminator. */
static size_t gif_sub_blocks(const unsigned char *b, size_t n, size_t i) {
  while (i < n && b[i]) i += 1 + b[i];
  return i + 1;
}

/* The images of a GIF89a (walking its blocks to the trailer), its logical
 * screen size; -1 if malformed. */
static int gif_images(const unsigned char *b, size_t n, int *w, int *h) {
  if (!b || n < 13 || memcmp(b, "GIF89a", 6)) return -1;
  *w = b[6] | b[7] << 8, *h = b[8] | b[9] << 8;
  size_t i = 13 + (b[10] & 0x80 ? 3u << ((b[10] & 7) + 1) : 0);
  int images = 0;
  while (i < n) {
    if (b[i] == 0x3b) return images; /* trailer */
    if (b[i] == 0x21) { i = gif_sub_blocks(b, n, i + 2); continue; } /* extension */
    if (b[i] != 0x2c || i + 10 > n) return -1;
    unsigned char flags = b[i + 9];
    i += 10 + (flags & 0x80 ? 3u << ((flags & 7) + 1) : 0);
    i = gif_sub_blocks(b, n, i + 1); /* LZW minimum code size, then the data */
    images++;
  }
  return -1; /* no trailer */
}

/* Data lines (not blank, not a comment) of a .dat. */
static int data_points(const char *text) {
  int n = 0;
  for (const char *p = text; p && *p;) {
    size_t len = strcspn(p, "\n");
    n += len > 0 && p[0] != '#';
    p += len + (p[len] == '\n');
  }
  return n;
}

static int run_report(const char *res, const char *out, const char *frames, char **so, char **se) {
  char *argv[10] = {(char *)exe, "report", (char *)res, "-o", (char *)out, "--json", NULL, NULL, NULL};
  if (frames) argv[6] = "--frames", argv[7] = (char *)frames;
  int st = cf_test_run(argv, dir, so, se);
  if (!*so) *so = calloc(1, 1);
  if (!*se) *se = calloc(1, 1);
  return st;
}

/* Rerun figures/ID.gp with gnuplot from dir after removing its images. */
static void rerun(const char *gnuplot, const char *out, const char *id, int gif) {
  char script[1200], img[2][1200];
  snprintf(script, sizeof script, "%s/figures/%s.gp", out, id);
  snprintf(img[0], sizeof img[0], "%s/figures/%s.%s", out, id, gif ? "gif" : "svg");
  snprintf(img[1], sizeof img[1], "%s/figures/%s.png", out, id);
  for (int k = 0; k < 2 - gif; k++) remove(img[k]);
  char *argv[] = {(char *)gnuplot, script, NULL}, *so = NULL, *se = NULL;
  int st = cf_test_run(argv, dir, &so, &se);
  CHECK(st == 0, "gnuplot %s: exit %d: %s", script, st, se ? se : "");
  for (int k = 0; k < 2 - gif; k++) CHECK(file_size(img[k]) > 1000, "gnuplot %s: %s not written again", script, img[k]);
  free(so), free(se);
}

/* The figures of one recording: K markers, T animation frames, n instants. */
static void check_recording(const char *out, const char *gnuplot, const char *name, int K, int T, int n) {
  char rel[600];
  size_t len;
  int w = 0, h = 0;
  snprintf(rel, sizeof rel, "figures/%s-snapshots.png", name);
  unsigned char *b = slurp(out, rel, &len);
  CHECK(png_size(b, len, &w, &h) && w == 900 && h == 900 && len > 10000, "%s: %dx%d, %zu bytes", rel, w, h, len);
  free(b);
  snprintf(rel, sizeof rel, "figures/%s-snapshots.svg", name);
  b = slurp(out, rel, &len);
  CHECK(b && strstr((char *)b, "<svg") && strstr((char *)b, "viewBox=\"0 0 900 900\"") && len > 10000,
        "%s: not an SVG of 900 x 900 (%zu bytes)", rel, len);
  free(b);
  snprintf(rel, sizeof rel, "figures/%s-animation.gif", name);
  b = slurp(out, rel, &len);
  int images = gif_images(b, len, &w, &h);
  CHECK(images == T && w == 640 && h == 520 && len > 10000, "%s: %d images (expected %d), %dx%d, %zu bytes", rel,
        images, T, w, h, len);
  free(b);
  snprintf(rel, sizeof rel, "figures/%s-snapshots.dat", name);
  b = slurp(out, rel, &len);
  CHECK(data_points((char *)b) == 2 * K * n, "%s: %d points, expected %d", rel, data_points((char *)b), 2 * K * n);
  free(b);
  snprintf(rel, sizeof rel, "figures/%s-animation.dat", name);
  b = slurp(out, rel, &len);
  CHECK(data_points((char *)b) == 2 * K * T, "%s: %d points, expected %d", rel, data_points((char *)b), 2 * K * T);
  free(b);
  char id[300];
  snprintf(id, sizeof id, "%s-snapshots", name);
  rerun(gnuplot, out, id, 0);
  snprintf(id, sizeof id, "%s-animation", name);
  rerun(gnuplot, out, id, 1);
}

/* ------------------------------------------------------------------ main */
static void default_frames(const char *res, const char *out, const char *gnuplot) {
  char *so, *se;
  int st = run_report(res, out, NULL, &so, &se);
  CHECK(st == 0, "clothfit report: exit %d: %s", st, se);
  /* alpha, beta: series, snapshots, animation; old: series */
  const char *json = cf_test_last_line(so);
  CHECK(cf_test_json_num(json, "figures") == 7 && cf_test_json_num(json, "figures_failed") == 0, "--json: %s", json);
  check_recording(out, gnuplot, "alpha", 6, 50, 4);
  check_recording(out, gnuplot, "beta", 6, 44, 4);
  char path[900];
  snprintf(path, sizeof path, "%s/figures/old-snapshots.gp", out);
  CHECK(file_size(path) < 0, "a snapshot of a recording without markers: %s", path);
  size_t len;
  char *html = (char *)slurp(out, "index.html", &len), *md = (char *)slurp(out, "report.md", &len);
  CHECK(html && strstr(html, "<img src=\"figures/alpha-animation.gif\"") &&
            strstr(html, "<img src=\"figures/beta-snapshots.svg\"") && strstr(html, "No 3-D snapshots") &&
            strstr(html, "(old)"), "index.html: the snapshots, the animation, the note");
  CHECK(md && strstr(md, "(figures/beta-animation.gif)") && strstr(md, "(figures/alpha-snapshots.svg)") &&
            strstr(md, "No 3-D snapshots"), "report.md: the snapshots, the animation, the note");
  /* the default instants: 1/5 .. 4/5 of 0.49 s, nearest frames */
  char *dat = (char *)slurp(out, "figures/alpha-snapshots.dat", &len);
  CHECK(dat && strstr(dat, "frame 10 (t = 0.1 s)") && strstr(dat, "frame 39 (t = 0.39 s)"), "alpha's instants");
  free(dat);
  dat = (char *)slurp(out, "figures/beta-snapshots.dat", &len);
  CHECK(dat && strstr(dat, "frame 25 (t = 0.5 s)") && strstr(dat, "frame 50 (t = 1 s)") &&
            strstr(dat, "frame 75 (t = 1.5 s)") && strstr(dat, "frame 105 (t = 2.1 s)"), "beta's instants");
  free(dat);
  dat = (char *)slurp(out, "figures/beta-animation.dat", &len);
  CHECK(dat && strstr(dat, "frame 129 (t = 2.58 s)") && !strstr(dat, "frame 128 "), "beta's last animation frame");
  free(dat), free(html), free(md), free(so), free(se);
}

static void chosen_frames(const char *res, const char *out) {
  char *so, *se;
  int st = run_report(res, out, "0.1,0.2,0.4", &so, &se);
  CHECK(st == 0, "--frames 0.1,0.2,0.4: exit %d: %s", st, se);
  size_t len;
  char *a = (char *)slurp(out, "figures/alpha-snapshots.dat", &len);
  char *b = (char *)slurp(out, "figures/beta-snapshots.dat", &len);
  CHECK(a && data_points(a) == 3 * 12 && strstr(a, "frame 10 ") && strstr(a, "frame 20 ") && strstr(a, "frame 40 "),
        "alpha at 0.1, 0.2, 0.4 s");
  CHECK(b && data_points(b) == 3 * 12 && strstr(b, "frame 5 ") && strstr(b, "frame 10 ") && strstr(b, "frame 20 "),
        "beta at 0.1, 0.2, 0.4 s");
  unsigned char *png = slurp(out, "figures/beta-snapshots.png", &len);
  int w = 0, h = 0;
  CHECK(png_size(png, len, &w, &h) && w == 900 && h == 900, "3 instants: 2 x 2 panels, %dx%d", w, h);
  free(a), free(b), free(png), free(so), free(se);
  /* 5 instants: 3 x 2 panels of 450 x 430; alpha's simulation had failed at 0.46 s */
  st = run_report(res, out, "0,0.1,0.2,0.4,0.46", &so, &se);
  CHECK(st == 0, "--frames 0,0.1,0.2,0.4,0.46: exit %d: %s", st, se);
  png = slurp(out, "figures/alpha-snapshots.png", &len);
  CHECK(png_size(png, len, &w, &h) && w == 1350 && h == 900, "5 instants: 3 x 2 panels, %dx%d", w, h);
  a = (char *)slurp(out, "figures/alpha-snapshots.gp", &len);
  CHECK(a && strstr(a, "t = 0.46 s (frame 46): no error") && strstr(a, "t = 0.00 s (frame 0): e = 0.300 cm"),
        "alpha's panel titles");
  free(a), free(png), free(so), free(se);
}

static void bad_frames(const char *res) {
  const char *bad[][2] = {{"abc", "'abc'"},  {"0.1,", "''"},  {"-1", "'-1'"},      {"0.1,nan", "'nan'"},
                          {"0.55", "0.55"},  {"1,2,3,4,5,6,7,8,9,10,11,12,13", "12"}, {"0.1,2x", "'2x'"}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char out[600], *so, *se;
    snprintf(out, sizeof out, "%s/reports/bad%zu", dir, k);
    int st = run_report(res, out, bad[k][0], &so, &se);
    CHECK(st != 0, "--frames %s: exit 0", bad[k][0]);
    CHECK(!strncmp(se, "clothfit report: ", 17) && strstr(se, bad[k][1]) && strchr(se, '\n') == se + strlen(se) - 1,
          "--frames %s: stderr '%s'", bad[k][0], se);
    struct stat sb;
    CHECK(stat(out, &sb) != 0, "--frames %s: %s was created", bad[k][0], out);
    free(so), free(se);
  }
  /* outside alpha (0 to 0.49 s) but inside beta: the message names alpha */
  char out[600], *so, *se;
  snprintf(out, sizeof out, "%s/reports/bad-alpha", dir);
  run_report(res, out, "0.1,0.55", &so, &se);
  CHECK(strstr(se, "0.55 s is outside recording 'alpha' (0 to 0.49 s)"), "the recording named: '%s'", se);
  free(so), free(se);
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: test_report_snapshots CLOTHFIT_EXE\n"), 2;
  exe = argv[1];
  char gnuplot[1024];
  if (!cf_test_find_program("gnuplot", gnuplot, sizeof gnuplot))
    return fprintf(stderr, "test_report_snapshots: gnuplot is not installed: skipped\n"), 77;
  if (!mkdtemp(dir)) return perror("mkdtemp"), 2;
  char res[512], out[512], out2[512];
  snprintf(res, sizeof res, "%s/study.h5", dir);
  snprintf(out, sizeof out, "%s/reports/study", dir);
  snprintf(out2, sizeof out2, "%s/reports/chosen", dir);
  if (make_results(res)) return 1;
  default_frames(res, out, gnuplot);
  chosen_frames(res, out2);
  bad_frames(res);
  if (!cf_test_failures) {
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  }
  return cf_test_done("test_report_snapshots");
}
