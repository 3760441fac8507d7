/* synth_write_camera.c — the files of a depth-camera recording of
 * `clothfit synth` (output = meshes | clouds | both; docs/design.md §11),
 * for the stem OUT:
 *   OUT.meshes/frame_CCCCCC_T.TTTTTT.obj  the registered mesh of each frame
 *                   (the lattice nodes, row 0 on top, quads), camera frame
 *                   counter C and time T s in the name (`ingest meshes`)
 *   OUT.clouds/frame_CCCCCC_T.TTTTTT.ply  the point cloud of each frame
 *   OUT.corners.csv the held corners' trajectory (a robot's log)
 *   OUT.truth.ini   ground truth: parameters, motion, camera, drops
 *   OUT.meta.ini    metadata: material, size, density, motion, speed, held
 * The folders are written under temporary names and every file renamed
 * into place only when all were written. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clothfit_version.h"
#include "synth_internal.h"

enum { F_CORNERS, F_TRUTH, F_META, N_FILES };
static const char *suffix[N_FILES] = {".corners.csv", ".truth.ini", ".meta.ini"};

typedef struct {
  const cf_synth_config *c;
  const cf_synth_result *r;
  int meshes, clouds;
  char dir[2][4200], tmp[2][4300]; /* meshes, clouds */
  long points, fewest, most, flying, far; /* cloud statistics */
} cam_out;

static void meta(FILE *f, const cf_synth_config *c) {
  fprintf(f, "[meta]\nmaterial = %s\nsize = %s\nwidth_m = %.10g\nheight_m = %.10g\ndensity = %.10g\n", c->material,
          c->size, c->width, c->height, c->density);
  fprintf(f, "motion = %s\nspeed = %s\nheld = %d,%d\n", c->motion, c->speed, 0, c->mesh[1] - 1);
}

/* The two held corners at rest: the top corners of the initial state (the
 * motion moves them from there). */
static int initial_corners(const cf_synth_config *c, double kin0[6]) {
  int kin[2];
  cf_mesh *mesh = cf_synth_mesh(c, kin);
  double *x = mesh ? malloc(sizeof(double) * 3 * mesh->n_nodes) : NULL;
  if (!x) return cf_mesh_free(mesh), CF_ENOMEM;
  cf_synth_initial_state(c, mesh, x);
  for (int q = 0; q < 2; q++) memcpy(kin0 + 3 * q, x + 3 * kin[q], 3 * sizeof(double));
  free(x), cf_mesh_free(mesh);
  return CF_OK;
}

static void corners(FILE *f, const cf_synth_config *c, const cf_synth_result *r, const double kin0[6]) {
  cf_synth_motion m;
  cf_synth_motion_init(&m, c, r->rate_scale);
  fprintf(f, "time,x1,y1,z1,x2,y2,z2\n");
  int n = (int)floor(c->duration * c->track_rate + 1e-9);
  for (int i = 0; i <= n; i++) {
    double t = i / c->track_rate, p[6];
    cf_synth_motion_eval(&m, t, 2, kin0, p);
    fprintf(f, "%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", t, p[0], p[1], p[2], p[3], p[4], p[5]);
  }
}

static void truth(FILE *f, const cam_out *o, const double kin0[6]) {
  const cf_synth_config *c = o->c;
  const cf_synth_result *r = o->r;
  cf_synth_motion m;
  cf_synth_motion_init(&m, c, r->rate_scale);
  fprintf(f, "; Ground truth of the synthetic depth-camera recording STEM (STEM.truth.ini), written by\n; clothfit "
          "synth %s: STEM.meshes/ (the registered mesh), STEM.clouds/ (point clouds),\n; STEM.corners.csv (the held "
          "corners), STEM.meta.ini ([meta] below).\n", CLOTHFIT_VERSION);
  meta(f, c);
  sy_truth_params(f, c, r);
  fprintf(f, "duration = %.10g\nframes = %d  ; kept by the camera\nseed = %lu\n", c->duration, r->n_frames, c->seed);
  fprintf(f, "\n[motion]\nmotion = %s\n", c->motion);
  if (m.wam)
    fprintf(f, "amplitude = %.10g  ; m, A of eq. (4.1), along y (the camera's depth axis)\nfrequency = %.10g  ; Hz\n"
            "centre = %.10g  ; m, c: y(t) = A cos(2 pi f (t - start)) + c for the corners\nstart = %.10g  ; s\n"
            "stop = %.10g  ; s, still after\n", m.amp, m.freq, -m.amp, m.start, m.stop);
  else fprintf(f, "achieved_speed = %.6f  ; m/s, mean |velocity| of the registered mesh's nodes\n", r->achieved_speed);
  fprintf(f, "corner1 = %.10g, %.10g, %.10g  ; at rest: node 0 of the registered mesh\n", kin0[0], kin0[1], kin0[2]);
  fprintf(f, "corner2 = %.10g, %.10g, %.10g  ; node %d\n", kin0[3], kin0[4], kin0[5], c->cols - 1);
  fprintf(f, "slack = %.10g  ; the corners held this much closer than the width\npreroll = %.10g  ; s settling "
          "before the recording\n", c->slack, c->preroll);
  fprintf(f, "steps = %ld\nmax_violation = %.4g\n", r->steps, r->max_violation);
  double e[3];
  cf_synth_camera_eye(c, e);
  fprintf(f, "\n[camera]  ; looking +y, x right and z up in its image\neye = %.10g, %.10g, %.10g\n", e[0], e[1], e[2]);
  fprintf(f, "pixels = %dx%d\nfov = %.10g  ; degrees, horizontal\nrate = %.10g\njitter = %.10g\n", c->pixels[0],
          c->pixels[1], c->fov, c->cam_rate, c->jitter);
  fprintf(f, "mesh = %dx%d\nheld = 0,%d\nmesh_noise = %.10g  ; m along y\nmesh_noise_across = %.10g  ; m along x "
          "and z\n", c->rows, c->cols, c->cols - 1, c->mesh_noise, c->mesh_noise_across);
  fprintf(f, "depth_noise = %.10g  ; sigma = depth_noise x depth^2 along the ray\noutliers = %.10g\n", c->depth_noise,
          c->outliers);
  if (o->clouds)
    fprintf(f, "points = %ld  ; in all clouds; per frame %ld..%ld\nflying = %ld\nfar = %ld\n", o->points, o->fewest,
            o->most, o->flying, o->far);
  fprintf(f, "\n[drops]  ; dropN = first_counter frames (times between the neighbouring frames)\n");
  fprintf(f, "drop_rate = %.10g  ; runs per second of %d to %d frames\n", c->drop_rate, c->drop_min, c->drop_max);
  for (int q = 0; q < r->n_drops; q++) {
    const cf_synth_gap *d = &r->drops[q];
    int i = 0;
    while (i < r->n_frames && r->frame[i] < d->first) i++;
    fprintf(f, "drop%d = %d %d  ; %.6f-%.6f s\n", q + 1, d->first, d->n, i ? r->time[i - 1] : 0,
            i < r->n_frames ? r->time[i] : c->duration);
  }
}

/* ------------------------------------------------------------- frames */
static int frame_path(const cam_out *o, int which, int i, char *buf, size_t size) {
  return snprintf(buf, size, "%s/frame_%06d_%.6f.%s", o->tmp[which], o->r->frame[i], o->r->time[i],
                  which ? "ply" : "obj") < (int)size;
}

static int mesh_frame(const cam_out *o, int i, const int *faces, cf_error *err) {
  const cf_synth_result *r = o->r;
  char path[4400], note[128];
  if (!frame_path(o, 0, i, path, sizeof path)) return cf_error_set(err, CF_EIO, "%s: path too long", o->dir[0]);
  FILE *f = fopen(path, "wb");
  if (!f) return cf_error_set(err, CF_EIO, "%s: cannot create: %s", path, strerror(errno));
  snprintf(note, sizeof note, "registered %dx%d mesh, camera frame %d, t = %.6f s (m, z up)", r->rows, r->cols,
           r->frame[i], r->time[i]);
  int K = r->rows * r->cols, bad = cf_obj_write_stream(f, note, K, r->meas + 3 * (size_t)K * i, 4,
                                                      (r->rows - 1) * (r->cols - 1), faces, o->c->mesh_decimals);
  bad = fclose(f) || bad;
  return bad ? cf_error_set(err, CF_EIO, "%s: write error", path) : CF_OK;
}

static int cloud_frame(cam_out *o, int i, const cf_mesh *mesh, cf_error *err) {
  const cf_synth_result *r = o->r;
  cf_synth_cloud cl;
  int rc = cf_synth_cloud_render(o->c, mesh, r->fine + 3 * (size_t)r->n_fine * i, r->frame[i], &cl, err);
  if (rc) return rc;
  char path[4400], note[128];
  if (!frame_path(o, 1, i, path, sizeof path)) rc = cf_error_set(err, CF_EIO, "%s: path too long", o->dir[1]);
  FILE *f = rc ? NULL : fopen(path, "wb");
  if (!rc && !f) rc = cf_error_set(err, CF_EIO, "%s: cannot create: %s", path, strerror(errno));
  if (f) {
    snprintf(note, sizeof note, "depth camera frame %d, t = %.6f s (m, z up)", r->frame[i], r->time[i]);
    int bad = cf_ply_points_write_stream(f, note, cl.n, cl.p, strcmp(o->c->cloud_format, "ascii") != 0, 5);
    bad = fclose(f) || bad;
    if (bad) rc = cf_error_set(err, CF_EIO, "%s: write error", path);
  }
  o->points += cl.n, o->flying += cl.n_flying, o->far += cl.n_far;
  if (i == 0 || cl.n < o->fewest) o->fewest = cl.n;
  if (cl.n > o->most) o->most = cl.n;
  cf_synth_cloud_free(&cl);
  return rc;
}

static int frames(cam_out *o, cf_error *err) {
  int kin[2], rc = CF_OK;
  int *faces = cf_synth_mesh_faces(o->r->rows, o->r->cols);
  cf_mesh *mesh = cf_synth_mesh(o->c, kin);
  if (!faces || !mesh) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; !rc && i < o->r->n_frames; i++) {
    if (o->meshes) rc = mesh_frame(o, i, faces, err);
    if (!rc && o->clouds) rc = cloud_frame(o, i, mesh, err);
  }
  free(faces), cf_mesh_free(mesh);
  return rc;
}

/* ------------------------------------------------------------- commit */
int cf_synth_write_camera(const char *stem_in, const cf_synth_config *c, const cf_synth_result *r, cf_error *err) {
  char stem[4096];
  size_t n = strlen(stem_in);
  if (n >= sizeof stem - 32) return cf_error_set(err, CF_EIO, "%s: path too long", stem_in);
  memcpy(stem, stem_in, n + 1);
  if (n > 4 && !strcmp(stem + n - 4, ".csv")) stem[n - 4] = 0;
  cam_out o = {.c = c, .r = r, .meshes = strcmp(c->output, "clouds") != 0, .clouds = strcmp(c->output, "meshes") != 0};
  const char *kind[2] = {"meshes", "clouds"};
  int use[2] = {o.meshes, o.clouds}, ok = 1;
  double kin0[6];
  if (cf_io_ensure_parent(stem_in, err)) return CF_EIO;
  if (initial_corners(c, kin0)) return cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int w = 0; w < 2; w++) {
    snprintf(o.dir[w], sizeof o.dir[w], "%s.%s", stem, kind[w]);
    if (use[w] && cf_io_dir_check(o.dir[w], "frame_", err)) return CF_EIO;
  }
  for (int w = 0; w < 2; w++)
    if (use[w] && ok && cf_io_dir_begin(o.dir[w], o.tmp[w], sizeof o.tmp[w], err)) ok = 0, use[w] = 0;
  if (ok && frames(&o, err)) ok = 0;
  sy_out_file f[N_FILES];
  memset(f, 0, sizeof f);
  for (int i = 0; i < N_FILES; i++) snprintf(f[i].path, sizeof f[i].path, "%s%s", stem, suffix[i]);
  if (ok && sy_files_open(f, N_FILES, err)) ok = 0;
  if (ok) {
    corners(f[F_CORNERS].f, c, r, kin0);
    truth(f[F_TRUTH].f, &o, kin0);
    meta(f[F_META].f, c);
  }
  ok = sy_files_close(f, N_FILES, ok, err);
  for (int w = 0; w < 2; w++)
    if (use[w] && cf_io_dir_commit(o.tmp[w], o.dir[w], "frame_", ok, ok ? err : NULL)) ok = 0;
  ok = sy_files_commit(f, N_FILES, ok, err);
  return ok ? CF_OK : (err && err->code ? err->code : CF_EIO);
}
