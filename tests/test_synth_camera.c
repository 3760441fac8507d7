/* test_synth_camera.c — `clothfit synth` as a depth camera on the WAM
 * shakes (thesis §4.1; docs/design.md §11).
 *
 * 1. The hanger: OUT.corners.csv follows eq. (4.1) along y (amplitude A,
 *    frequency f by its zero crossings, still before and after, x and z
 *    fixed), and the simulated corner nodes at the camera's frames are on it.
 * 2. Timestamps: strictly increasing, each within 3 jitters of its frame
 *    counter's due time; the dropped runs are the gaps in the counters and
 *    the only gaps longer than 1.5 periods; there are some.
 * 3. The registered meshes read back by `ingest meshes`' reader: 81 nodes,
 *    64 quads, the frame times, and the fine simulation's nodes at the
 *    lattice points: x and z to the file's rounding, y with noise of the
 *    configured standard deviation (mean ~0, sd within 10 %, none beyond
 *    5.5 sd).
 * 4. The clouds read back equal a new rendering of the frame; their
 *    surface points lie on the simulated surface within 5 sd of the depth
 *    noise (mostly within 3), the outliers are ~1.5 %.
 * 5. Occlusion: a sheet folded in half towards the camera (the lower half
 *    5 cm in front of the upper) shows no point of the hidden half, while
 *    the same sheet flat shows that half.
 * 6. Determinism: the CLI twice gives byte-identical files (and refuses to
 *    empty a folder holding a file it did not write); an ascii cloud holds
 *    the rendered points; bad camera keys give one line naming file:line.
 *
 * usage: test_synth_camera CLOTHFIT_EXE SOURCE_ROOT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_synth.h"
#include "testutil.h"

static char dir[256];

/* paper, fast, 14 s; a 9x9 lattice split 2x2; a small image (quick). */
static const char *cfg_text = "[recording]\nmaterial = paper\nsize = A3\nmotion = wam\nspeed = fast\noutput = both\n"
                              "seed = 11\n[cloth]\nrefine = 2\n[camera]\npixels = 120x90\ndrop_rate = 0.5\n";

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (f) fputs(text, f), fclose(f);
}

/* ---------------------------------------------------------- the hanger */
static void check_corners(const cf_synth_config *c, const cf_synth_result *r, const char *csv) {
  FILE *f = fopen(csv, "r");
  CHECK(f != NULL, "%s", csv);
  if (!f) return;
  char line[256];
  CHECK(fgets(line, sizeof line, f) && !strcmp(line, "time,x1,y1,z1,x2,y2,z2\n"), "header '%s'", line);
  double A = 0.075, fr = 0.6, worst = 0, ymin = 1, ymax = -1, t_last = -1, p0[6] = {0};
  int rows = 0, crossings = 0, still_bad = 0;
  double prev = 0;
  for (double v[7]; fscanf(f, "%lf,%lf,%lf,%lf,%lf,%lf,%lf", v, v + 1, v + 2, v + 3, v + 4, v + 5, v + 6) == 7; rows++) {
    if (!rows) memcpy(p0, v + 1, sizeof p0);
    double t = v[0], s = t <= 1 || t >= 11 ? 0 : A * (cos(2 * M_PI * fr * (t - 1)) - 1);
    for (int q = 0; q < 2; q++) {
      worst = fmax(worst, fabs(v[2 + 3 * q] - p0[1 + 3 * q] - s));
      still_bad += fabs(v[1 + 3 * q] - p0[3 * q]) > 1e-6 || fabs(v[3 + 3 * q] - p0[2 + 3 * q]) > 1e-6;
    }
    double y = v[2] - p0[1] + A; /* about the centre c = -A */
    if (rows && (y > 0) != (prev > 0) && t > 1 && t < 11) crossings++;
    prev = y, ymin = fmin(ymin, v[2]), ymax = fmax(ymax, v[2]), t_last = t;
  }
  fclose(f);
  CHECK(rows == (int)(14 * c->track_rate) + 1 && fabs(t_last - 14) < 1e-9, "%d rows to %g s", rows, t_last);
  CHECK(worst < 2e-6, "corners off eq. (4.1) by %g m", worst);
  CHECK(!still_bad, "%d rows moved in x or z", still_bad);
  CHECK(fabs(ymax - ymin - 2 * A) < 1e-5, "peak to peak %g m, expected 2A = %g", ymax - ymin, 2 * A);
  /* f = crossings / (2 x 10 s): 6 periods cross the centre 12 times */
  CHECK(crossings == 12, "%d crossings of the centre in 10 s, expected 12 (f = 0.6 Hz)", crossings);
  CHECK(fabs(p0[3] - p0[0] - c->width * (1 - c->slack)) < 0.01 * c->width, "corners %g m apart", p0[3] - p0[0]);
  /* the simulation's held nodes follow it at the frames (between steps: linear) */
  int K = r->rows * r->cols;
  double off = 0;
  for (int i = 0; i < r->n_frames; i++) {
    double t = r->time[i], s = t <= 1 || t >= 11 ? 0 : A * (cos(2 * M_PI * fr * (t - 1)) - 1);
    off = fmax(off, fabs(r->truth[3 * (size_t)K * i + 1] - p0[1] - s));
    off = fmax(off, fabs(r->truth[3 * ((size_t)K * i + c->cols - 1) + 1] - p0[4] - s));
  }
  CHECK(off < 1e-4, "held nodes %g m off the hanger", off);
}

/* ------------------------------------------------------------ the times */
static void check_times(const cf_synth_config *c, const cf_synth_result *r) {
  double period = 1 / c->cam_rate;
  int order = 0, late = 0, long_gaps = 0, counter_gaps = 0, at_drops = 0;
  for (int i = 0; i < r->n_frames; i++) {
    late += fabs(r->time[i] - r->frame[i] * period) > 3 * c->jitter + 1e-6;
    if (!i) continue;
    order += !(r->time[i] > r->time[i - 1]);
    int gap = r->frame[i] - r->frame[i - 1] > 1;
    counter_gaps += gap;
    long_gaps += r->time[i] - r->time[i - 1] > 1.5 * period;
    for (int q = 0; q < r->n_drops; q++)
      at_drops += gap && r->drops[q].first == r->frame[i - 1] + 1 && r->drops[q].first + r->drops[q].n == r->frame[i];
  }
  CHECK(!order && !late, "%d times out of order, %d beyond 3 jitters", order, late);
  CHECK(r->n_drops >= 2 && counter_gaps == r->n_drops && at_drops == r->n_drops && long_gaps == r->n_drops,
        "%d drops, %d counter gaps (%d at the drops), %d long gaps", r->n_drops, counter_gaps, at_drops, long_gaps);
  for (int q = 0; q < r->n_drops; q++)
    CHECK(r->drops[q].n >= c->drop_min && r->drops[q].n <= c->drop_max, "drop of %d frames", r->drops[q].n);
  CHECK(r->time[0] == 0 && r->time[r->n_frames - 1] <= c->duration, "times %g..%g", r->time[0],
        r->time[r->n_frames - 1]);
}

/* ----------------------------------------------------------- the meshes */
static void check_meshes(const cf_synth_config *c, const cf_synth_result *r, const char *meshes) {
  cf_recording rec;
  cf_meshseq_opts o;
  cf_meshseq_opts_default(&o);
  cf_error err = {0, ""};
  int rc = cf_meshseq_read(meshes, &o, &rec, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (rc) return;
  int K = r->rows * r->cols;
  CHECK(rec.n_frames == r->n_frames && rec.mesh.n_nodes == K && rec.mesh.nv == 4 && rec.mesh.n_faces == 64,
        "%d frames, %d nodes, %d faces of %d", rec.n_frames, rec.mesh.n_nodes, rec.mesh.n_faces, rec.mesh.nv);
  if (rec.n_frames == r->n_frames && rec.mesh.n_nodes == K) {
    double xz = 0, dt = 0, s = 0, s2 = 0, big = 0;
    long n = 0;
    for (int i = 0; i < r->n_frames; i++) {
      dt = fmax(dt, fabs(rec.time[i] + rec.time_offset - r->time[i]));
      for (int k = 0; k < K; k++, n++) {
        const double *a = rec.mesh.nodes + 3 * ((size_t)K * i + k), *b = r->truth + 3 * ((size_t)K * i + k);
        xz = fmax(xz, fmax(fabs(a[0] - b[0]), fabs(a[2] - b[2])));
        double e = a[1] - b[1];
        s += e, s2 += e * e, big = fmax(big, fabs(e));
      }
    }
    double mean = s / n, sd = sqrt(s2 / n - mean * mean);
    CHECK(dt < 1e-9, "frame times off by %g s", dt);
    CHECK(xz <= 0.5e-5 + 1e-12, "x, z off the simulation by %g m (5 decimals)", xz);
    CHECK(fabs(mean) < 0.1 * c->mesh_noise && fabs(sd / c->mesh_noise - 1) < 0.1 && big < 5.5 * c->mesh_noise,
          "depth noise: mean %g, sd %g, max %g m (configured %g)", mean, sd, big, c->mesh_noise);
  }
  cf_recording_free(&rec);
}

/* ----------------------------------------------------------- the clouds */
static double seg_dist2(const double *p, const double *a, const double *b, const double *c) {
  /* squared distance from p to triangle abc (Ericson's closest point) */
  double ab[3], ac[3], ap[3], q[3];
  for (int k = 0; k < 3; k++) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = p[k] - a[k];
#define DOT(u, v) (u[0] * v[0] + u[1] * v[1] + u[2] * v[2])
  double d1 = DOT(ab, ap), d2 = DOT(ac, ap), v, w;
  double bp[3], cp[3];
  for (int k = 0; k < 3; k++) bp[k] = p[k] - b[k], cp[k] = p[k] - c[k];
  double d3 = DOT(ab, bp), d4 = DOT(ac, bp), d5 = DOT(ab, cp), d6 = DOT(ac, cp);
  double va = d3 * d6 - d5 * d4, vb = d5 * d2 - d1 * d6, vc = d1 * d4 - d3 * d2;
  if (d1 <= 0 && d2 <= 0) v = 0, w = 0;
  else if (d3 >= 0 && d4 <= d3) v = 1, w = 0;
  else if (d6 >= 0 && d5 <= d6) v = 0, w = 1;
  else if (vc <= 0 && d1 >= 0 && d3 <= 0) v = d1 / (d1 - d3), w = 0;
  else if (vb <= 0 && d2 >= 0 && d6 <= 0) v = 0, w = d2 / (d2 - d6);
  else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) w = (d4 - d3) / ((d4 - d3) + (d5 - d6)), v = 1 - w;
  else {
    double den = 1 / (va + vb + vc);
    v = vb * den, w = vc * den;
  }
  for (int k = 0; k < 3; k++) q[k] = a[k] + v * ab[k] + w * ac[k] - p[k];
  return DOT(q, q);
#undef DOT
}

static double surface_dist(const cf_mesh *m, const double *x, const double *p) {
  double best = INFINITY;
  for (int e = 0; e < m->n_elems; e++) {
    const int *v = m->elems + 4 * e;
    best = fmin(best, seg_dist2(p, x + 3 * v[0], x + 3 * v[1], x + 3 * v[2]));
    best = fmin(best, seg_dist2(p, x + 3 * v[0], x + 3 * v[2], x + 3 * v[3]));
  }
  return sqrt(best);
}

/* The PLY's points (binary little endian float32) into p [n*3]; -1 if unreadable. */
static int read_ply(const char *path, float **p) {
  size_t len;
  char *b = cf_test_slurp(path, &len), *h = b ? strstr(b, "end_header\n") : NULL, *e = b ? strstr(b, "element vertex ") : NULL;
  int n = e ? atoi(e + 15) : -1;
  if (!h || n < 0 || len != (size_t)(h + 11 - b) + 12 * (size_t)n || !(*p = malloc(12 * (size_t)n + 1))) n = -1;
  if (n >= 0) memcpy(*p, h + 11, 12 * (size_t)n);
  free(b);
  return n;
}

static void check_clouds(const cf_synth_config *c, const cf_synth_result *r, const char *clouds) {
  int kin[2];
  cf_mesh *m = cf_synth_mesh(c, kin);
  double eye[3];
  cf_synth_camera_eye(c, eye);
  long surf = 0, out3 = 0, out5 = 0, outl = 0, total = 0;
  int frames[] = {0, 40, 101, 177, 260, r->n_frames - 1};
  for (int q = 0; q < 6; q++) {
    int i = frames[q];
    const double *x = r->fine + 3 * (size_t)r->n_fine * i;
    cf_synth_cloud cl;
    cf_error err = {0, ""};
    CHECK(cf_synth_cloud_render(c, m, x, r->frame[i], &cl, &err) == CF_OK, "%s", err.msg);
    char path[512];
    snprintf(path, sizeof path, "%s/frame_%06d_%.6f.ply", clouds, r->frame[i], r->time[i]);
    float *p = NULL;
    int n = read_ply(path, &p), same = n == cl.n;
    for (int k = 0; same && k < 3 * n; k++) same = p[k] == (float)cl.p[k];
    CHECK(same, "%s: %d points, not the %d rendered again", path, n, cl.n);
    for (int k = 0; k < cl.n; k++) {
      if (cl.kind[k] != CF_CLOUD_SURFACE) {
        outl++;
        continue;
      }
      const double *pt = cl.p + 3 * k;
      double d = pt[1] - eye[1], sd = c->depth_noise * d * d, dist = surface_dist(m, x, pt);
      surf++, out3 += dist > 3 * sd, out5 += dist > 5 * sd + 1e-7;
    }
    total += cl.n;
    CHECK(cl.n_surface > 1000, "frame %d: %d points on the cloth", i, cl.n_surface);
    free(p);
    cf_synth_cloud_free(&cl);
  }
  CHECK(!out5 && out3 < 0.01 * surf, "%ld of %ld points beyond 5 sd of the surface, %ld beyond 3", out5, surf, out3);
  CHECK(fabs((double)outl / surf - c->outliers) < 0.003, "outliers %ld of %ld points", outl, total);
  cf_mesh_free(m);
}

/* A flat sheet, and the same folded in half towards the camera. */
static void check_fold(const cf_synth_config *c0) {
  cf_synth_config c = *c0;
  c.outliers = 0;
  int kin[2];
  cf_mesh *m = cf_synth_mesh(&c, kin);
  int n = m->n_nodes;
  double *x = malloc(sizeof(double) * 3 * n), zm = c.top_height - c.height / 2, gap = 0.05;
  memcpy(x, m->x, sizeof(double) * 3 * n);
  for (int fold = 0; fold < 2; fold++) {
    if (fold)
      for (int k = 0; k < n; k++)
        if (m->x[3 * k + 2] < zm - 1e-9) x[3 * k + 1] = -gap, x[3 * k + 2] = 2 * zm - m->x[3 * k + 2];
    cf_synth_cloud cl;
    cf_error err = {0, ""};
    CHECK(cf_synth_cloud_render(&c, m, x, 7, &cl, &err) == CF_OK, "%s", err.msg);
    int hidden = 0, front = 0;
    for (int k = 0; k < cl.n; k++) {
      const double *p = cl.p + 3 * k;
      hidden += fabs(p[1]) < 0.01 && p[2] > zm + 0.01;
      front += fabs(p[1] + gap) < 0.01;
    }
    if (fold) CHECK(!hidden && front > 300, "folded: %d points on the hidden half, %d on the flap", hidden, front);
    else CHECK(hidden > 300 && !front, "flat: %d points on the upper half, %d in front", hidden, front);
    cf_synth_cloud_free(&cl);
  }
  free(x);
  cf_mesh_free(m);
}

/* ------------------------------------------------------- CLI and errors */
static int same_file(const char *a, const char *b) {
  size_t na, nb;
  char *x = cf_test_slurp(a, &na), *y = cf_test_slurp(b, &nb);
  int same = x && y && na == nb && !memcmp(x, y, na);
  free(x), free(y);
  return same;
}

static void check_determinism(const char *exe, const char *cfg, const cf_synth_result *r) {
  char o1[300], o2[300], a[700], b[700];
  snprintf(o1, sizeof o1, "%s/one/rec", dir), snprintf(o2, sizeof o2, "%s/two/rec", dir);
  for (int k = 0; k < 2; k++) {
    char *out = NULL, *er = NULL;
    int st = cf_test_run_args(exe, dir, &out, &er, "synth", cfg, "-o", k ? o2 : o1, (char *)NULL);
    CHECK(st == 0, "synth: %s", er ? er : "");
    free(out), free(er);
  }
  int diff = 0;
  const char *files[] = {"corners.csv", "truth.ini", "meta.ini"};
  for (int k = 0; k < 3; k++) {
    snprintf(a, sizeof a, "%s.%s", o1, files[k]), snprintf(b, sizeof b, "%s.%s", o2, files[k]);
    diff += !same_file(a, b);
  }
  for (int i = 0; i < r->n_frames; i += 7)
    for (int w = 0; w < 2; w++) {
      snprintf(a, sizeof a, "%s.%s/frame_%06d_%.6f.%s", o1, w ? "clouds" : "meshes", r->frame[i], r->time[i],
               w ? "ply" : "obj");
      snprintf(b, sizeof b, "%s.%s/frame_%06d_%.6f.%s", o2, w ? "clouds" : "meshes", r->frame[i], r->time[i],
               w ? "ply" : "obj");
      diff += !same_file(a, b);
    }
  CHECK(!diff, "%d files differ between two runs", diff);
  snprintf(a, sizeof a, "%s/one/rec.meshes", dir);
  CHECK(cf_test_dir_entries(a) == r->n_frames, "%d mesh files for %d frames", cf_test_dir_entries(a), r->n_frames);
  /* a second run replaces the folders it wrote, and refuses one it did not */
  snprintf(a, sizeof a, "%s/one/rec.clouds/notes.txt", dir);
  write_text(a, "mine\n");
  char *out = NULL, *er = NULL;
  int st = cf_test_run_args(exe, dir, &out, &er, "synth", cfg, "-o", o1, (char *)NULL);
  CHECK(st != 0 && er && strstr(er, "notes.txt"), "a foreign file in OUT.clouds: status %d, '%s'", st, er ? er : "");
  free(out), free(er);
}

/* cloud_format = ascii: the same points, to the 5 decimals written; only
 * the folders the output asks for. */
static void check_ascii(void) {
  char cfg[300], out[300], path[700];
  snprintf(cfg, sizeof cfg, "%s/ascii.ini", dir);
  snprintf(out, sizeof out, "%s/ascii/rec", dir);
  write_text(cfg, "[recording]\nmaterial = felt\nsize = A3\nmotion = wam\nspeed = slow\noutput = clouds\n"
                  "duration = 3\n[motion]\nstill_before = 0.5\nstill_after = 0.5\n[cloth]\nrefine = 1\n"
                  "[camera]\nmesh = 5x4\npixels = 40x30\ncloud_format = ascii\n");
  cf_synth_config c;
  cf_synth_result r;
  memset(&r, 0, sizeof r);
  cf_error err = {0, ""};
  int rc = cf_synth_load(cfg, &c, &err);
  if (!rc) rc = cf_synth_run(&c, &r, NULL, NULL, &err);
  if (!rc) rc = cf_synth_write(out, &c, &r, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (!rc) {
    int kin[2], i = r.n_frames / 2;
    cf_mesh *m = cf_synth_mesh(&c, kin);
    cf_synth_cloud cl;
    CHECK(cf_synth_cloud_render(&c, m, r.fine + 3 * (size_t)r.n_fine * i, r.frame[i], &cl, &err) == CF_OK, "%s",
          err.msg);
    snprintf(path, sizeof path, "%s.clouds/frame_%06d_%.6f.ply", out, r.frame[i], r.time[i]);
    char *text = cf_test_slurp(path, NULL), *p = text ? strstr(text, "end_header\n") : NULL;
    int n = 0, bad = !p || !strstr(text, "format ascii 1.0\n");
    for (p = p ? p + 11 : NULL; p && *p; n++) {
      double v[3];
      char *end;
      for (int k = 0; k < 3; k++, p = end) v[k] = strtod(p, &end);
      p += *p == '\n';
      for (int k = 0; n < cl.n && k < 3; k++) bad += fabs(v[k] - cl.p[3 * n + k]) > 6e-6;
    }
    CHECK(!bad && n == cl.n, "%s: %d points (%d rendered), %d differ", path, n, cl.n, bad);
    snprintf(path, sizeof path, "%s.meshes", out);
    CHECK(cf_test_dir_entries(path) == 0, "output = clouds wrote %s", path);
    free(text);
    cf_synth_cloud_free(&cl);
    cf_mesh_free(m);
  }
  cf_synth_result_free(&r);
  cf_synth_config_free(&c);
}

static void check_errors(void) {
  static const char *bad[][2] = {
      {"[camera]\nmesh = 9\n", "mesh = '9': expected ROWSxCOLS"},
      {"[camera]\npixels = 0x10\n", "pixels = '0x10'"},
      {"[recording]\noutput = video\n", "output = 'video': expected one of"},
      {"[recording]\nmaterial = denim\n", "Table 4.2 has no material 'denim'"},
      {"[camera]\ndrop_min = 6\n", "drop_min = 6: expected at most drop_max"},
      {"[camera]\njitter = 0.01\n", "jitter = 0.01 s: expected at most 1/8"},
      {"[recording]\nmotion = tablecloth\n", "the camera renders the cloth alone"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char path[300], text[1024];
    snprintf(path, sizeof path, "%s/bad%zu.ini", dir, i);
    snprintf(text, sizeof text, "%s%s", cfg_text, bad[i][0]);
    write_text(path, text);
    cf_synth_config c;
    cf_error err = {0, ""};
    int rc = cf_synth_load(path, &c, &err);
    CHECK(rc != CF_OK && strstr(err.msg, bad[i][1]) && strstr(err.msg, path) && !strchr(err.msg, '\n'),
          "config %zu: '%s'", i, err.msg);
    cf_synth_config_free(&c);
  }
}

int main(int argc, char **argv) {
  const char *exe, *root;
  strcpy(dir, "/tmp/cf_synth_camera_XXXXXX");
  int st = cf_test_cli_begin(argc, argv, &exe, &root, dir);
  if (st) return st;
  char cfg[300], out[300], path[400];
  snprintf(cfg, sizeof cfg, "%s/rec.ini", dir);
  snprintf(out, sizeof out, "%s/lib/rec", dir);
  write_text(cfg, cfg_text);
  cf_synth_config c;
  cf_synth_result r;
  memset(&r, 0, sizeof r);
  cf_error err = {0, ""};
  int rc = cf_synth_load(cfg, &c, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (!rc) rc = cf_synth_run(&c, &r, NULL, NULL, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (!rc) rc = cf_synth_write(out, &c, &r, &err);
  CHECK(rc == CF_OK, "%s", err.msg);
  if (!rc) {
    CHECK(c.density == 1 && c.delta == 0.37 && c.alpha == 2.49 && c.duration == 14 && r.rows == 9 && r.cols == 9 &&
              r.nx == 17 && r.ny == 17,
          "Table 4.2 / rho / mesh: rho %g delta %g alpha %g, %g s, %dx%d of %dx%d", c.density, c.delta, c.alpha,
          c.duration, r.rows, r.cols, r.nx, r.ny);
    snprintf(path, sizeof path, "%s.corners.csv", out);
    check_corners(&c, &r, path);
    check_times(&c, &r);
    snprintf(path, sizeof path, "%s.meshes", out);
    check_meshes(&c, &r, path);
    snprintf(path, sizeof path, "%s.clouds", out);
    check_clouds(&c, &r, path);
    check_fold(&c);
    snprintf(path, sizeof path, "%s.meta.ini", out);
    char *meta = cf_test_slurp(path, NULL);
    CHECK(meta && strstr(meta, "held = 0,8\n") && strstr(meta, "density = 1\n") && strstr(meta, "size = A3\n") &&
              strstr(meta, "motion = wam\n") && strstr(meta, "speed = fast\n"),
          "meta: %s", meta ? meta : "(none)");
    free(meta);
    check_determinism(exe, cfg, &r);
  }
  check_ascii();
  check_errors();
  cf_synth_result_free(&r);
  cf_synth_config_free(&c);
  return cf_test_cli_end(dir, "test_synth_camera");
}
