/* cloudseq.c — depth-camera point clouds: one PLY or XYZ file of points per
 * frame, any number of points a frame and no correspondence between frames,
 * with the track of the grippers the cloth is held by (1 to CF_HELD_MAX,
 * their count from the track's header).
 *
 * The files and their times are those of a mesh sequence (meshseq_files.c:
 * every .ply/.xyz file of a folder or those a glob matches, natural name
 * order, times from the names, --times or --fps); each file is read by
 * cf_ply_parse_points (meshseq_ply.c: faces, if any, read past) or
 * cf_xyz_parse (cloud_text.c) by its extension.  Points are scaled to metres
 * and turned to z up as the meshes' nodes are.  The frames stay on their
 * native times: a cloud has no correspondence to interpolate (the fitter
 * interpolates the simulation to the camera's times instead).
 *
 * The held track (cloud_text.c) is read with the same unit and axes and
 * shifted onto the recording's time axis; it must cover the frames' time
 * span to within CF_HELD_COVER_SLACK (file names carry times to the
 * microsecond), since the simulation is driven by it from the first frame
 * to the last.  Nothing is extrapolated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meshseq_internal.h"

#define CF_HELD_COVER_SLACK 1e-6 /* s */

/* Frame i's points appended to c (metres, z up). */
static int append(cf_rec_cloud *c, long *cap, const cf_meshframe *fr, const cf_meshseq_opts *o, int i) {
  long need = c->n_points + fr->n_nodes;
  if (need > *cap) {
    long n = *cap ? *cap : 1 << 16;
    while (n < need) n *= 2;
    double *p = realloc(c->points, sizeof(double) * 3 * (size_t)n);
    if (!p) return 0;
    c->points = p, *cap = n;
  }
  ms_put_points(fr->x, fr->n_nodes, o->unit_scale, o->up, c->points + 3 * (size_t)c->n_points);
  c->n_points = need;
  c->offset[i + 1] = need;
  return 1;
}

static int read_clouds(const ms_list *l, const cf_meshseq_opts *o, cf_rec_cloud *c, cf_error *err) {
  long cap = 0;
  c->offset = calloc((size_t)l->n + 1, sizeof(long));
  if (!c->offset) return cf_error_set(err, CF_ENOMEM, "point clouds: out of memory for %d frames", l->n);
  int rc = CF_OK;
  for (int i = 0; !rc && i < l->n; i++) {
    cf_meshframe fr;
    if ((rc = ms_read_frame(l->f[i].path, 1, &fr, err))) break;
    if (!append(c, &cap, &fr, o, i))
      rc = cf_error_set(err, CF_ENOMEM, "%s: out of memory after %ld points", l->f[i].path, c->n_points);
    cf_meshframe_free(&fr);
  }
  return rc;
}

/* The line of the first (last: 1) non-blank line after the header. */
static long data_line(const char *buf, size_t len, int last) {
  long line = 1, found = 0;
  for (const char *p = memchr(buf, '\n', len), *end = buf + len; p && p + 1 < end && (last || !found);) {
    const char *s = p + 1, *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;
    line++;
    while (s < e && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
    if (s < e) found = line;
    p = nl;
  }
  return found ? found : 1;
}

/* The track, shifted by the first frame's source time t0, covers the
 * frames [t0, t1] (source times). */
static int read_held(const char *path, const ms_list *l, const cf_meshseq_opts *o, cf_rec_held *h, cf_error *err) {
  char *buf;
  size_t len;
  int rc = ms_slurp(path, &buf, &len, err);
  if (rc) return rc;
  rc = cf_held_track_parse(buf, len, path, o->unit_scale, o->up, h, err);
  double t0 = l->f[0].t, t1 = l->f[l->n - 1].t, a = rc ? 0 : h->time[0], b = rc ? 0 : h->time[h->n - 1];
  int late = a > t0 + CF_HELD_COVER_SLACK;
  if (!rc && (late || b < t1 - CF_HELD_COVER_SLACK))
    rc = cf_meshframe_fail(err, path, 0, data_line(buf, len, !late), "the corner track covers t = %.6f .. %.6f s, "
                           "the frames span %.6f .. %.6f s (%s .. %s): it must cover the whole recording", a, b, t0,
                           t1, l->f[0].base, l->f[l->n - 1].base);
  free(buf);
  for (int k = 0; !rc && k < h->n; k++) h->time[k] -= t0;
  return rc;
}

static int describe(cf_recording *r, const char *held) {
  const cf_rec_cloud *c = &r->cloud;
  long lo = c->n_points, hi = 0;
  for (int t = 0; t < r->n_frames; t++) {
    long n = c->offset[t + 1] - c->offset[t];
    lo = n < lo ? n : lo, hi = n > hi ? n : hi;
  }
  char pts[96];
  snprintf(pts, sizeof pts, "%ld (%ld .. %ld a frame)", c->n_points, lo, hi);
  return ms_add_info(r, "points", pts) && ms_add_info(r, "held_track", held);
}

int cf_cloudseq_read(const char *src, const char *held_csv, const cf_meshseq_opts *o, cf_recording *rec,
                     cf_error *err) {
  cf_meshseq_opts def;
  if (!o) cf_meshseq_opts_default(&def), o = &def;
  cf_recording_init(rec);
  if (o->up != 'y' && o->up != 'z') return cf_error_set(err, CF_EINVAL, "%s: up axis must be 'y' or 'z'", src);
  if (!(o->unit_scale > 0)) return cf_error_set(err, CF_EINVAL, "%s: the unit scale must be > 0", src);
  if (!held_csv || !held_csv[0])
    return cf_error_set(err, CF_EINVAL, "%s: point clouds need the grippers' track (a CSV "
                        "time,x1,y1,z1[,x2,y2,z2,...])", src);
  ms_list l;
  int rc = ms_list_files_ext(src, "ply xyz", &l, err);
  if (!rc) rc = ms_times(&l, o, err);
  if (!rc) rc = read_held(held_csv, &l, o, &rec->held, err);
  if (!rc) rc = read_clouds(&l, o, &rec->cloud, err);
  if (!rc) rc = ms_fill(rec, "clouds", src, &l, o, err);
  if (!rc && (!describe(rec, held_csv) || !ms_hash_sources(rec, &l, o, held_csv)))
    rc = cf_error_set(err, CF_ENOMEM, "%s: out of memory", src);
  if (rc == CF_OK && rec->n_frames < 2) rc = cf_error_set(err, CF_EFORMAT, "%s: one frame (%s): a recording needs at "
                                                          "least 2", src, l.f[0].path);
  ms_list_free(&l);
  if (rc) cf_recording_free(rec);
  return rc;
}
