/* synth_camera.c — what a depth camera makes of the simulated cloth
 * (thesis §4.1.1; docs/design.md §11): its irregular timestamps with
 * dropped frames, the registered mesh with depth noise, and the point
 * cloud of the side it sees.
 *
 * The camera sits on the -y axis (the sheet's rest plane is y = 0), so its
 * depth axis is the axis the WAM hanger moves along (eq. (4.1)).  A cloud is
 * a depth image: one ray per pixel through a random point of the pixel (so
 * no point corresponds to one of another frame), the nearest hit among the
 * fine mesh's triangles (a z-buffer by ray casting: a fold hides what is
 * behind it), its depth d perturbed along the ray with standard deviation
 * depth_noise x d^2 (a structured-light camera's error grows with the
 * square of the depth: 1.5 mm at 1 m, 3.4 mm at 1.5 m at the default).
 * Outliers as a depth camera returns them: flying pixels (a depth between
 * the cloth's edge and what lies behind it) on pixels at silhouette and
 * fold edges, and far points anywhere in the image. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth_internal.h"

/* Drops never start in the first or last second: the recording starts and
 * ends on frames the fit can use. */
static const double drop_quiet = 1.0;

static int add_drop(cf_synth_result *r, int first, int n, int *cap) {
  if (r->n_drops == *cap) {
    int m = *cap ? 2 * *cap : 16;
    cf_synth_gap *d = realloc(r->drops, sizeof *d * m);
    if (!d) return CF_ENOMEM;
    r->drops = d, *cap = m;
  }
  r->drops[r->n_drops++] = (cf_synth_gap){-1, first, n};
  return CF_OK;
}

/* Frame k is due at k / rate, taken with a Gaussian jitter (clipped at 3
 * standard deviations, at most 3/8 of a period: times stay in order) and
 * rounded to the microsecond (the file names carry them exactly); frame 0
 * at 0 and no frame after the duration.  Runs of drop_min..drop_max frames
 * are dropped at drop_rate per second. */
int sy_camera_times(const cf_synth_config *c, cf_synth_result *r) {
  int n = (int)floor(c->duration * c->cam_rate + 1e-9) + 1, cap = 0, skip = 0;
  r->time = malloc(sizeof(double) * n);
  r->frame = malloc(sizeof(int) * n);
  if (!r->time || !r->frame) return CF_ENOMEM;
  sy_rng g;
  sy_rng_init(&g, c->seed, SY_CAMERA_TIMES);
  r->n_frames = 0;
  for (int k = 0; k < n; k++) {
    double z = sy_normal(&g), u = sy_uniform(&g), v = sy_uniform(&g), t = k / c->cam_rate;
    if (skip > 0) {
      skip--;
      continue;
    }
    int last_drop = r->n_drops ? r->drops[r->n_drops - 1].first + r->drops[r->n_drops - 1].n : -2;
    if (k > last_drop && t > drop_quiet && t + (c->drop_max + 1) / c->cam_rate < c->duration - drop_quiet &&
        u < c->drop_rate / c->cam_rate) {
      int len = c->drop_min + (int)floor(v * (c->drop_max - c->drop_min + 1));
      if (add_drop(r, k, len, &cap)) return CF_ENOMEM;
      skip = len - 1;
      continue;
    }
    z = z > 3 ? 3 : z < -3 ? -3 : z;
    t = k ? t + c->jitter * z : 0;
    t = round(t * 1e6) / 1e6;
    if (t > c->duration) t = c->duration;
    r->time[r->n_frames] = t;
    r->frame[r->n_frames++] = k;
  }
  return CF_OK;
}

int sy_camera_mesh(const cf_synth_config *c, cf_synth_result *r, cf_error *err) {
  size_t n = (size_t)r->n_frames * r->rows * r->cols;
  if (!(r->meas = malloc(sizeof(double) * 3 * n))) return cf_error_set(err, CF_ENOMEM, "out of memory");
  memcpy(r->meas, r->truth, sizeof(double) * 3 * n);
  sy_rng g;
  sy_rng_init(&g, c->seed, SY_CAMERA_MESH);
  for (size_t k = 0; k < n; k++) r->meas[3 * k + 1] += c->mesh_noise * sy_normal(&g);
  if (c->mesh_noise_across > 0) /* after the depth noise, so recordings without it keep theirs */
    for (size_t k = 0; k < n; k++)
      r->meas[3 * k] += c->mesh_noise_across * sy_normal(&g), r->meas[3 * k + 2] += c->mesh_noise_across * sy_normal(&g);
  return CF_OK;
}

void cf_synth_camera_eye(const cf_synth_config *c, double eye[3]) {
  eye[0] = 0, eye[1] = -c->distance, eye[2] = c->top_height - c->height / 2;
}

int *cf_synth_mesh_faces(int rows, int cols) {
  int *f = malloc(sizeof(int) * 4 * (size_t)(rows - 1) * (cols - 1)), *q = f;
  for (int i = 0; f && i + 1 < rows; i++)
    for (int j = 0; j + 1 < cols; j++, q += 4)
      q[0] = i * cols + j, q[1] = (i + 1) * cols + j, q[2] = (i + 1) * cols + j + 1, q[3] = i * cols + j + 1;
  return f;
}

/* ------------------------------------------------------------ the image */
typedef struct {
  int w, h;
  double f, eye[3];
  double *su, *sv, *depth; /* [w*h] sample point in the pixel, nearest hit (INFINITY: none) */
} image;

/* The ray of pixel p through its sample point: (dx, 1, dz) from the eye, so
 * that its parameter is the depth along y. */
static void ray(const image *im, int p, double su, double sv, double dir[3]) {
  dir[0] = (p % im->w + su - 0.5 * im->w) / im->f;
  dir[1] = 1;
  dir[2] = -(p / im->w + sv - 0.5 * im->h) / im->f;
}

static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross(const double *a, const double *b, double *o) {
  o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Depth of the hit of the ray (eye, dir) with triangle abc (Moller-Trumbore),
 * INFINITY if none. */
static double hit(const double *o, const double *dir, const double *a, const double *b, const double *c) {
  double e1[3], e2[3], pv[3], tv[3], qv[3];
  for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], tv[k] = o[k] - a[k];
  cross(dir, e2, pv);
  double det = dot(e1, pv);
  if (fabs(det) < 1e-300) return INFINITY;
  double u = dot(tv, pv) / det;
  if (u < 0 || u > 1) return INFINITY;
  cross(tv, e1, qv);
  double v = dot(dir, qv) / det;
  if (v < 0 || u + v > 1) return INFINITY;
  double t = dot(e2, qv) / det;
  return t > 0 ? t : INFINITY;
}

/* Ray-cast triangle abc into the pixels its projection may cover. */
static void draw(image *im, const double *a, const double *b, const double *c) {
  const double *v[3] = {a, b, c};
  double umin = INFINITY, umax = -INFINITY, vmin = INFINITY, vmax = -INFINITY;
  for (int k = 0; k < 3; k++) {
    double d = v[k][1] - im->eye[1];
    if (d < 0.05) return; /* at or behind the lens */
    double u = 0.5 * im->w + im->f * (v[k][0] - im->eye[0]) / d, w = 0.5 * im->h - im->f * (v[k][2] - im->eye[2]) / d;
    umin = fmin(umin, u), umax = fmax(umax, u), vmin = fmin(vmin, w), vmax = fmax(vmax, w);
  }
  int i0 = umin < 0 ? 0 : (int)umin, i1 = umax >= im->w ? im->w - 1 : (int)umax;
  int j0 = vmin < 0 ? 0 : (int)vmin, j1 = vmax >= im->h ? im->h - 1 : (int)vmax;
  for (int j = j0; j <= j1; j++)
    for (int i = i0; i <= i1; i++) {
      int p = j * im->w + i;
      double dir[3];
      ray(im, p, im->su[p], im->sv[p], dir);
      double t = hit(im->eye, dir, a, b, c);
      if (t < im->depth[p]) im->depth[p] = t;
    }
}

/* A pixel on a silhouette or fold edge: a 4-neighbour outside the image,
 * missing the cloth or more than 2 cm away in depth. */
static int edge(const image *im, int p) {
  int i = p % im->w, j = p / im->w;
  int nb[4] = {i > 0 ? p - 1 : -1, i + 1 < im->w ? p + 1 : -1, j > 0 ? p - im->w : -1, j + 1 < im->h ? p + im->w : -1};
  for (int k = 0; k < 4; k++)
    if (nb[k] < 0 || !(fabs(im->depth[nb[k]] - im->depth[p]) <= 0.02)) return 1;
  return 0;
}

typedef struct {
  int pix, seq;
  unsigned char kind;
  double p[3];
} point;

static int by_pixel(const void *a, const void *b) {
  const point *x = a, *y = b;
  return x->pix != y->pix ? (x->pix > y->pix) - (x->pix < y->pix) : (x->seq > y->seq) - (x->seq < y->seq);
}

static void put(const image *im, point *q, int pix, int seq, int kind, double su, double sv, double d) {
  double dir[3];
  ray(im, pix, su, sv, dir);
  q->pix = pix, q->seq = seq, q->kind = (unsigned char)kind;
  for (int k = 0; k < 3; k++) q->p[k] = im->eye[k] + d * dir[k];
}

void cf_synth_cloud_free(cf_synth_cloud *cl) {
  free(cl->p), free(cl->kind);
  memset(cl, 0, sizeof *cl);
}

/* The points of the image im (depths filled) into out. */
static int collect(const cf_synth_config *c, image *im, sy_rng *g, cf_synth_cloud *out) {
  int np = im->w * im->h, n_surf = 0, n_edge = 0;
  for (int p = 0; p < np; p++) n_surf += isfinite(im->depth[p]), n_edge += isfinite(im->depth[p]) && edge(im, p);
  int n_fly = n_edge ? (int)lround(0.5 * c->outliers * n_surf) : 0, n_far = (int)lround(0.5 * c->outliers * n_surf);
  int n = n_surf + n_fly + n_far, *edges = malloc(sizeof(int) * (n_edge + 1)), seq = 0;
  point *pts = malloc(sizeof(point) * (n + 1));
  out->p = malloc(sizeof(double) * 3 * (n + 1));
  out->kind = malloc(n + 1);
  if (!pts || !edges || !out->p || !out->kind) {
    free(pts), free(edges);
    return CF_ENOMEM;
  }
  n_edge = 0;
  for (int p = 0; p < np; p++) {
    if (!isfinite(im->depth[p])) continue;
    double d = im->depth[p];
    if (edge(im, p)) edges[n_edge++] = p;
    put(im, pts + seq, p, seq, CF_CLOUD_SURFACE, im->su[p], im->sv[p], d + c->depth_noise * d * d * sy_normal(g));
    seq++;
  }
  for (int q = 0; q < n_fly; q++, seq++) { /* between the edge and the background behind it */
    int p = edges[(int)(sy_uniform(g) * n_edge)];
    put(im, pts + seq, p, seq, CF_CLOUD_FLYING, im->su[p], im->sv[p], im->depth[p] + 0.02 + 0.28 * sy_uniform(g));
  }
  for (int q = 0; q < n_far; q++, seq++) {
    int p = (int)(sy_uniform(g) * np);
    double su = sy_uniform(g), sv = sy_uniform(g);
    put(im, pts + seq, p, seq, CF_CLOUD_FAR, su, sv, c->distance * (0.5 + 2 * sy_uniform(g)));
  }
  qsort(pts, n, sizeof *pts, by_pixel);
  for (int q = 0; q < n; q++) memcpy(out->p + 3 * q, pts[q].p, sizeof pts[q].p), out->kind[q] = pts[q].kind;
  out->n = n, out->n_surface = n_surf, out->n_flying = n_fly, out->n_far = n_far;
  free(pts), free(edges);
  return CF_OK;
}

int cf_synth_cloud_render(const cf_synth_config *c, const cf_mesh *m, const double *x, int key, cf_synth_cloud *out,
                          cf_error *err) {
  memset(out, 0, sizeof *out);
  image im = {.w = c->pixels[0], .h = c->pixels[1]};
  im.f = 0.5 * im.w / tan(0.5 * c->fov * M_PI / 180);
  cf_synth_camera_eye(c, im.eye);
  int np = im.w * im.h, rc = CF_OK;
  im.su = malloc(sizeof(double) * np), im.sv = malloc(sizeof(double) * np), im.depth = malloc(sizeof(double) * np);
  if (!im.su || !im.sv || !im.depth) rc = CF_ENOMEM;
  sy_rng g;
  sy_rng_init(&g, c->seed, SY_CLOUD + key);
  for (int p = 0; !rc && p < np; p++) im.su[p] = sy_uniform(&g), im.sv[p] = sy_uniform(&g), im.depth[p] = INFINITY;
  for (int e = 0; !rc && e < m->n_elems; e++) {
    const int *v = m->elems + (size_t)m->nv * e;
    draw(&im, x + 3 * v[0], x + 3 * v[1], x + 3 * v[2]);
    if (m->nv == 4) draw(&im, x + 3 * v[0], x + 3 * v[2], x + 3 * v[3]);
  }
  if (!rc) rc = collect(c, &im, &g, out);
  free(im.su), free(im.sv), free(im.depth);
  if (rc) {
    cf_synth_cloud_free(out);
    return cf_error_set(err, rc, "out of memory for a %dx%d depth image", im.w, im.h);
  }
  return CF_OK;
}
