/* recording.c — the in-memory motion-capture recording: lifetime, quality
 * summary, resampling to a uniform time step, the source file's hash,
 * marker lookup, and the size and unit values of metadata. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_io.h"

/* cf_median_step lives here, beside the recordings it measures, so that
 * every reader (Motive, meshes, clouds) and the fuzz targets that link
 * this file alone have it. */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double cf_median_step(const double *t, int T) {
  if (T < 2) return 0;
  double *d = malloc(sizeof(double) * (T - 1));
  if (!d) return t[1] - t[0];
  for (int i = 0; i + 1 < T; i++) d[i] = t[i + 1] - t[i];
  qsort(d, T - 1, sizeof(double), cmp_double);
  double m = d[(T - 2) / 2];
  free(d);
  return m;
}

#ifdef CF_HAVE_NETTLE
#include <nettle/sha2.h>
#endif

void cf_recording_init(cf_recording *r) {
  memset(r, 0, sizeof *r);
  r->up = 'z';
  r->unit_scale = 1;
  r->meta.width_m = r->meta.height_m = r->meta.density = NAN;
  for (int q = 0; q < 5; q++) r->meta.table[q] = NAN;
}

int cf_rec_table_extent_parse(const char *s, double e[4]) {
  return cf_text_doubles(s, 4, e) && e[0] < e[1] && e[2] < e[3];
}

int cf_rec_table_valid(const double t[5]) {
  for (int q = 0; q < 5; q++)
    if (!isfinite(t[q])) return 0;
  return t[1] < t[2] && t[3] < t[4];
}

static void free_strings(char **s, int n) {
  if (!s) return;
  for (int i = 0; i < n; i++) free(s[i]);
  free(s);
}

cf_marker_proc *cf_marker_proc_new(int n_markers) {
  cf_marker_proc *p = calloc(1, sizeof *p);
  size_t K = (size_t)n_markers + 1;
  if (p) p->cell = malloc(sizeof(int) * 2 * K), p->filled = calloc(K, sizeof(int));
  if (p && (!p->cell || !p->filled)) {
    cf_marker_proc_free(p);
    return NULL;
  }
  for (int i = 0; p && i < 2 * n_markers; i++) p->cell[i] = -1;
  if (p) p->stick[0] = p->stick[1] = -1;
  return p;
}

void cf_marker_proc_free(cf_marker_proc *p) {
  if (!p) return;
  free(p->cell), free(p->weight), free(p->controlled), free(p->filled);
  free_strings(p->merged, p->n_merged);
  free_strings(p->ghosts, p->n_ghosts);
  free_strings(p->removed, p->n_removed);
  free(p);
}

void cf_rec_held_free(cf_rec_held *h) {
  free(h->time);
  free(h->track);
  memset(h, 0, sizeof *h);
}

void cf_recording_free(cf_recording *r) {
  if (!r) return;
  free(r->time);
  free(r->pos);
  free_strings(r->names, r->n_markers);
  free_strings(r->dropped, r->n_dropped);
  for (int i = 0; i < r->n_info; i++) {
    free(r->info[i].key);
    free(r->info[i].value);
  }
  free(r->info);
  cf_marker_proc_free(r->proc);
  free(r->mesh.nodes);
  free(r->mesh.faces);
  free(r->cloud.points);
  free(r->cloud.offset);
  cf_rec_held_free(&r->held);
  cf_recording_init(r);
}

int cf_rec_export_describe(const cf_rec_export *x, const char *file, char *buf, size_t size) {
  size_t n = 0;
  if (size) buf[0] = 0;
  if (!x->known || !x->edited || size == 0) return 0;
  n += snprintf(buf, size, "%s: edited export: %d data frames", file, x->frames_found);
  if (n < size && x->frames_expected >= 0 && x->frames_expected != x->frames_found)
    n += snprintf(buf + n, size - n, ", but the metadata row says Total Exported Frames %d", x->frames_expected);
  if (n < size && x->first_frame_number != 0)
    n += snprintf(buf + n, size - n, "; first frame number %d, not 0", x->first_frame_number);
  if (n < size && x->frame_jumps > 0)
    snprintf(buf + n, size - n, "; %d jump(s) in the frame numbers", x->frame_jumps);
  return 1;
}

static int missing(const double *p) { return isnan(p[0]) || isnan(p[1]) || isnan(p[2]); }

cf_marker_quality cf_recording_quality(const cf_recording *r, int k) {
  cf_marker_quality q = {0, 0, 0, 0};
  int n_missing = 0, run = 0;
  size_t K = (size_t)r->n_markers;
  for (int i = 0; i < r->n_frames; i++) {
    if (missing(r->pos + 3 * (K * i + k))) {
      n_missing++;
      if (++run > q.longest_gap_frames) q.longest_gap_frames = run;
    } else {
      run = 0;
    }
  }
  q.missing_fraction = r->n_frames ? (double)n_missing / r->n_frames : 0;
  q.longest_gap_s = q.longest_gap_frames * r->dt;
  if (r->proc && r->proc->filled) q.filled = r->proc->filled[k];
  return q;
}

/* Linear interpolation of marker k between frames j and j+1 (weight w > 0
 * of j+1; w == 0 takes frame j alone) into out; missing if either end is. */
static void interp_marker(const cf_recording *r, int j, double w, int k, double *out) {
  size_t K = (size_t)r->n_markers;
  const double *a = r->pos + 3 * (K * j + k);
  const double *b = w > 0 ? r->pos + 3 * (K * (j + 1) + k) : a;
  if (missing(a) || missing(b)) {
    out[0] = out[1] = out[2] = NAN;
    return;
  }
  for (int c = 0; c < 3; c++) out[c] = w > 0 ? a[c] + w * (b[c] - a[c]) : a[c];
}

/* Frames the camera dropped: the source intervals longer than
 * CF_MESH_DROP_FACTOR x their median (a frame or two missed at an irregular
 * rate is still interpolated, thesis §4.1.1).  The resampled frames strictly
 * inside one are set missing, every node but the held ones: the simulation
 * must be driven through the drop, so those stay interpolated (as the
 * controlled markers' gaps are, thesis Remark 4.3.3), up to max_gap_s. */
static int mark_drops(cf_recording *r, const double *src_t, int n_src, cf_error *err) {
  cf_rec_mesh *m = &r->mesh;
  m->drop_limit_s = CF_MESH_DROP_FACTOR * cf_median_step(src_t, n_src);
  m->dropped_frames = 0;
  unsigned char *held = calloc((size_t)m->n_nodes, 1);
  if (!held) return cf_error_set(err, CF_ENOMEM, "resample: out of memory");
  for (int h = 0; h < m->n_held; h++) held[m->held[h]] = 1;
  int rc = CF_OK;
  for (int j = 0, i = 0; j + 1 < n_src && !rc; j++) {
    double a = src_t[j] - src_t[0], b = src_t[j + 1] - src_t[0], tol = 1e-9 * r->dt;
    if (!(b - a > m->drop_limit_s)) continue;
    if (m->n_held && b - a > m->max_gap_s * (1 + 1e-9) + 1e-12)
      rc = cf_error_set(err, CF_EINVAL, "%s: the camera dropped the frames between %.4f s and %.4f s (source time "
                        "%.4f s), %.3g s, longer than the limit of %.3g s (--max-gap) for interpolating the held "
                        "nodes", r->source_file, a, b, r->time_offset + a, b - a, m->max_gap_s);
    for (; i < r->n_frames && r->time[i] < b - tol; i++) {
      if (r->time[i] <= a + tol) continue;
      m->dropped_frames++;
      for (int k = 0; k < m->n_nodes; k++)
        if (!held[k]) for (int d = 0; d < 3; d++) m->nodes[3 * ((size_t)m->n_nodes * i + k) + d] = NAN;
    }
  }
  free(held);
  return rc;
}

/* The mesh nodes (if any) are resampled as the markers of a view of r. */
static int resample_mesh(cf_recording *r, double dt, cf_error *err) {
  cf_recording v;
  cf_recording_init(&v);
  v.n_frames = r->n_frames, v.n_markers = r->mesh.n_nodes, v.pos = r->mesh.nodes;
  v.time = malloc(sizeof(double) * r->n_frames);
  if (!v.time) return cf_error_set(err, CF_ENOMEM, "resample: out of memory");
  memcpy(v.time, r->time, sizeof(double) * r->n_frames);
  int rc = cf_recording_resample(&v, dt, err);
  r->mesh.nodes = v.pos;
  free(v.time);
  return rc;
}

int cf_recording_resample(cf_recording *r, double dt, cf_error *err) {
  if (!(dt > 0) || !isfinite(dt)) return cf_error_set(err, CF_EINVAL, "resample: dt must be > 0 (got %g)", dt);
  if (r->n_frames == 0) return cf_error_set(err, CF_EINVAL, "resample: the recording has no frames");
  int rc = r->mesh.n_nodes > 0 ? resample_mesh(r, dt, err) : CF_OK;
  double *src_t = rc || !r->mesh.n_nodes ? NULL : malloc(sizeof(double) * r->n_frames);
  int n_src = r->n_frames;
  if (!rc && r->mesh.n_nodes && !src_t) rc = cf_error_set(err, CF_ENOMEM, "resample: out of memory");
  if (rc) return rc;
  if (src_t) memcpy(src_t, r->time, sizeof(double) * n_src);
  double t0 = r->time[0], span = r->time[r->n_frames - 1] - t0;
  double n_steps = floor(span / dt + 1e-9);
  if (n_steps > 1e8) {
    free(src_t);
    return cf_error_set(err, CF_EINVAL, "resample: %.6g s at dt %g s is too many frames", span, dt);
  }
  int T = (int)n_steps + 1;
  size_t K = (size_t)r->n_markers;
  double *time = malloc(sizeof(double) * T), *pos = malloc(sizeof(double) * 3 * K * T + 1);
  if (!time || !pos) {
    free(time);
    free(pos);
    free(src_t);
    return cf_error_set(err, CF_ENOMEM, "resample: out of memory for %d frames of %zu markers", T, K);
  }
  double tol = 1e-9 * dt;
  int j = 0;
  for (int i = 0; i < T; i++) {
    double t = t0 + i * dt;
    while (j + 1 < r->n_frames && r->time[j + 1] <= t + tol) j++;
    double w = 0;
    if (j + 1 < r->n_frames && t - r->time[j] > tol) w = (t - r->time[j]) / (r->time[j + 1] - r->time[j]);
    time[i] = i * dt;
    for (size_t k = 0; k < K; k++) interp_marker(r, j, w, (int)k, pos + 3 * (K * i + k));
  }
  free(r->time);
  free(r->pos);
  r->time = time;
  r->pos = pos;
  r->n_frames = T;
  r->dt = dt;
  r->uniform = 1;
  r->time_offset += t0;
  rc = src_t ? mark_drops(r, src_t, n_src, err) : CF_OK;
  free(src_t);
  return rc;
}

#ifdef CF_HAVE_NETTLE
static int hash_file(struct sha256_ctx *ctx, const char *path, cf_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) return cf_error_set(err, CF_EIO, "%s: cannot open for hashing", path);
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) sha256_update(ctx, n, buf);
  int bad = ferror(f);
  fclose(f);
  return bad ? cf_error_set(err, CF_EIO, "%s: read error while hashing", path) : CF_OK;
}

int cf_sha256_files(const char *const *paths, int n, char hex[65], cf_error *err) {
  struct sha256_ctx ctx;
  unsigned char dig[SHA256_DIGEST_SIZE];
  sha256_init(&ctx);
  for (int i = 0; i < n; i++) {
    int rc = hash_file(&ctx, paths[i], err);
    if (rc) return rc;
  }
  sha256_digest(&ctx, sizeof dig, dig);
  for (int i = 0; i < SHA256_DIGEST_SIZE; i++) snprintf(hex + 2 * i, 3, "%02x", dig[i]);
  return CF_OK;
}
#else
int cf_sha256_files(const char *const *paths, int n, char hex[65], cf_error *err) {
  hex[0] = 0;
  return cf_error_set(err, CF_EINVAL, "%s: built without SHA-256 support (nettle)", n ? paths[0] : "");
}
#endif

int cf_sha256_file(const char *path, char hex[65], cf_error *err) { return cf_sha256_files(&path, 1, hex, err); }

int cf_recording_marker_index(const cf_recording *r, const char *name) {
  for (int k = 0; k < r->n_markers; k++)
    if (!strcmp(r->names[k], name)) return k;
  return -1;
}

int cf_parse_size(const char *s, cf_rec_meta *m) {
  double w, h;
  char *end;
  if (!strcasecmp(s, "A2")) w = 0.420, h = 0.594;
  else if (!strcasecmp(s, "A3")) w = 0.297, h = 0.420;
  else {
    w = strtod(s, &end);
    if (end == s || (*end != 'x' && *end != 'X') || !cf_text_double(end + 1, &h) || !(w > 0) || !(h > 0) ||
        !isfinite(w))
      return 0;
    m->width_m = w, m->height_m = h;
    snprintf(m->size, sizeof m->size, "custom");
    return 1;
  }
  m->width_m = w, m->height_m = h;
  snprintf(m->size, sizeof m->size, "A%c", s[1]);
  return 1;
}

int cf_parse_units(const char *s, double *scale) {
  if (!strcmp(s, "mm")) *scale = 1e-3;
  else if (!strcmp(s, "cm")) *scale = 1e-2;
  else if (!strcmp(s, "m")) *scale = 1;
  else return 0;
  return 1;
}
