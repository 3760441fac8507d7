/* meshseq.c — depth-camera mesh sequences (thesis §4.1.1): one OBJ or PLY
 * file per frame, taken at irregular times, with one connectivity.
 *
 * The files and their times are found by meshseq_files.c; each file is read
 * by meshseq_obj.c or meshseq_ply.c (by its extension, any letter case).
 * Every frame must have the vertex count and the faces (same indices, same
 * order) of the first; a difference is an error naming the file, the line
 * (or byte offset) of the first differing face and the first file.  Node
 * positions are scaled to metres and turned to z up ('y': (x, y, z) =
 * (x_s, -z_s, y_s)).  The result is a recording with native frames (times
 * from 0, the first frame's source time in time_offset) whose mesh holds the
 * nodes and faces; it has no markers.  The faces must make a surface: no
 * edge in more than two faces, no face of zero area (meshseq_frame.c).
 * The held nodes are those given (each on the mesh), else, when the faces
 * are a structured grid (meshgrid.c), the two highest corners of frame 0.
 * cf_recording_resample() then puts it on a uniform time step (linear
 * interpolation of every node; frames the camera dropped stay missing,
 * recording.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "meshseq_internal.h"

void cf_meshseq_opts_default(cf_meshseq_opts *o) {
  memset(o, 0, sizeof *o);
  o->unit_scale = 1;
  o->up = 'z';
  o->max_gap = 0.25;
}

int cf_meshseq_held_parse(const char *v, cf_meshseq_opts *o) {
  int n = 0;
  for (const char *p = v;; p++) {
    char *end;
    long k = strtol(p, &end, 10);
    if (end == p || k < 0 || k > 1000000000 || n == CF_MESH_HELD_MAX || (*end && *end != ',')) return 0;
    o->held[n++] = (int)k;
    if (!*end) break;
    p = end;
  }
  o->n_held = n;
  return 1;
}

int ms_read_frame(const char *path, int points, cf_meshframe *fr, cf_error *err) {
  const char *dot = strrchr(path, '.');
  int ply = dot && !strcasecmp(dot, ".ply"), other = dot && !strcasecmp(dot, points ? ".xyz" : ".obj");
  memset(fr, 0, sizeof *fr);
  if (!ply && !other)
    return cf_error_set(err, CF_EFORMAT, "%s: line 1: unknown format: expected a file name ending in %s", path,
                        points ? ".ply or .xyz" : ".obj or .ply");
  char *buf;
  size_t len;
  int rc = ms_slurp(path, &buf, &len, err);
  if (rc) return rc;
  if (ply) rc = (points ? cf_ply_parse_points : cf_ply_parse)(buf, len, path, fr, err);
  else rc = (points ? cf_xyz_parse : cf_obj_parse)(buf, len, path, fr, err);
  free(buf);
  return rc;
}

/* ------------------------------------------------------------ connectivity */
static const char *face_text(const cf_meshframe *fr, const int *f, int base, char *buf, size_t size) {
  size_t o = 0;
  for (int a = 0; a < fr->nv && o < size; a++) o += snprintf(buf + o, size - o, "%s%d", a ? " " : "", f[a] + base);
  return buf;
}

static int face_mismatch(const cf_meshframe *a, const char *an, const cf_meshframe *b, const char *bn, int f,
                         cf_error *err) {
  char fa[64], fb[64];
  return cf_meshframe_fail(err, bn, b->binary, b->face_at[f], "face %d is (%s), expected (%s) as in %s: the "
                           "connectivity must be the same in every frame", f + 1,
                           face_text(b, b->faces + (size_t)b->nv * f, b->base, fb, sizeof fb),
                           face_text(a, a->faces + (size_t)a->nv * f, b->base, fa, sizeof fa), an);
}

/* b (file bn) has the vertex count and faces of a (file an). */
static int same_mesh(const cf_meshframe *a, const char *an, const cf_meshframe *b, const char *bn, cf_error *err) {
  if (b->n_nodes != a->n_nodes)
    return cf_meshframe_fail(err, bn, 0, b->nodes_at, "%d vertices, expected %d as in %s: every frame must have "
                             "the same vertices", b->n_nodes, a->n_nodes, an);
  if (b->nv != a->nv)
    return cf_meshframe_fail(err, bn, b->binary, b->face_at[0], "%s, expected %s as in %s", b->nv == 3 ? "triangles" :
                             "quads", a->nv == 3 ? "triangles" : "quads", an);
  int n = a->n_faces < b->n_faces ? a->n_faces : b->n_faces;
  for (int f = 0; f < n; f++)
    if (memcmp(a->faces + (size_t)a->nv * f, b->faces + (size_t)b->nv * f, sizeof(int) * a->nv))
      return face_mismatch(a, an, b, bn, f, err);
  if (b->n_faces > n)
    return cf_meshframe_fail(err, bn, b->binary, b->face_at[n], "face %d is one more than the %d faces of %s: the "
                             "connectivity must be the same in every frame", n + 1, n, an);
  if (a->n_faces > n)
    return cf_meshframe_fail(err, bn, 0, b->faces_at, "%d face(s), expected %d as in %s: the connectivity must be the "
                             "same in every frame", n, a->n_faces, an);
  return CF_OK;
}

/* ------------------------------------------------------------------ nodes */
/* Frame i's nodes, in metres and z up, into nodes[i*N*3...]. */
static void put_nodes(const cf_meshframe *fr, const cf_meshseq_opts *o, double *dst) {
  ms_put_points(fr->x, fr->n_nodes, o->unit_scale, o->up, dst);
}

/* The first frame gives the mesh: its faces and room for every frame's nodes. */
static int first_frame(cf_meshframe *fr, int T, cf_rec_mesh *m, cf_error *err) {
  size_t per = 3 * (size_t)fr->n_nodes;
  if ((size_t)T > ((size_t)1 << 40) / per / sizeof(double))
    return cf_error_set(err, CF_ENOMEM, "mesh sequence: %d frames of %d nodes are too many", T, fr->n_nodes);
  m->nodes = malloc(sizeof(double) * per * T);
  if (!m->nodes) return cf_error_set(err, CF_ENOMEM, "mesh sequence: out of memory for %d frames of %d nodes", T,
                                     fr->n_nodes);
  m->n_nodes = fr->n_nodes, m->n_faces = fr->n_faces, m->nv = fr->nv;
  m->faces = fr->faces, fr->faces = NULL;
  return CF_OK;
}

static int read_frames(const ms_list *l, const cf_meshseq_opts *o, cf_rec_mesh *m, cf_error *err) {
  cf_meshframe first, fr;
  int rc = ms_read_frame(l->f[0].path, 0, &first, err);
  if (!rc) rc = first_frame(&first, l->n, m, err);
  if (!rc) first.faces = m->faces; /* borrowed back for the comparisons */
  if (!rc) rc = cf_meshframe_check_faces(&first, 1, l->f[0].path, err);
  for (int i = 0; !rc && i < l->n; i++) {
    rc = i ? ms_read_frame(l->f[i].path, 0, &fr, err) : CF_OK;
    if (!rc && i) rc = same_mesh(&first, l->f[0].path, &fr, l->f[i].path, err);
    if (!rc && i) rc = cf_meshframe_check_faces(&fr, 0, l->f[i].path, err);
    if (!rc) put_nodes(i ? &fr : &first, o, m->nodes + 3 * (size_t)m->n_nodes * i);
    if (i) cf_meshframe_free(&fr);
  }
  if (m->faces == first.faces) first.faces = NULL;
  cf_meshframe_free(&first);
  return rc;
}

/* ------------------------------------------------------------ held nodes */
/* The nodes given (each on the mesh, no repeats), else the two highest
 * corners of frame 0 when the mesh is a structured grid, else none. */
static int held_nodes(const char *src, const ms_list *l, const cf_meshseq_opts *o, cf_rec_mesh *m, cf_error *err) {
  m->n_held = 0;
  for (int i = 0; i < o->n_held; i++) {
    int k = o->held[i];
    if (k < 0 || k >= m->n_nodes)
      return cf_error_set(err, CF_EINVAL, "%s: held node %d is not on the mesh: %s has %d vertices, node indices "
                          "0..%d (0-based, in file order)", src, k, l->f[0].path, m->n_nodes, m->n_nodes - 1);
    for (int j = 0; j < i; j++)
      if (o->held[j] == k) return cf_error_set(err, CF_EINVAL, "%s: held node %d is given twice", src, k);
    m->held[m->n_held++] = k;
  }
  cf_rec_grid g;
  int rc = o->n_held ? CF_EINVAL : cf_rec_mesh_grid(m, &g, NULL);
  if (rc == CF_ENOMEM) return cf_error_set(err, rc, "%s: out of memory", src);
  if (rc) return CF_OK;
  cf_rec_grid_top_corners(&g, m, m->held);
  m->n_held = 2;
  cf_rec_grid_free(&g);
  return CF_OK;
}

/* -------------------------------------------------------------- recording */
int ms_add_info(cf_recording *r, const char *key, const char *value) {
  cf_kv *n = realloc(r->info, sizeof(cf_kv) * (r->n_info + 1));
  if (!n) return 0;
  r->info = n;
  n[r->n_info].key = strdup(key);
  n[r->n_info].value = strdup(value);
  r->n_info++;
  return n[r->n_info - 1].key && n[r->n_info - 1].value;
}

static int describe(cf_recording *r, const ms_list *l, const cf_meshseq_opts *o) {
  char n[32], times[1100];
  snprintf(n, sizeof n, "%d", l->n);
  if (o->times_file) snprintf(times, sizeof times, "times file %s", o->times_file);
  else if (o->fps > 0) snprintf(times, sizeof times, "file names: last number = frame index, t = index / %.9g", o->fps);
  else snprintf(times, sizeof times, "file names: last number = seconds");
  return ms_add_info(r, "frame_files", n) && ms_add_info(r, "first_file", l->f[0].path) &&
         ms_add_info(r, "last_file", l->f[l->n - 1].path) && ms_add_info(r, "times", times);
}

int ms_fill(cf_recording *r, const char *kind, const char *src, const ms_list *l, const cf_meshseq_opts *o,
            cf_error *err) {
  r->n_frames = l->n;
  r->time = malloc(sizeof(double) * l->n);
  r->pos = malloc(sizeof(double)); /* no markers */
  if (!r->time || !r->pos || !describe(r, l, o))
    return cf_error_set(err, CF_ENOMEM, "%s: out of memory", src);
  r->time_offset = l->f[0].t;
  for (int i = 0; i < l->n; i++) r->time[i] = l->f[i].t - r->time_offset;
  r->dt = cf_median_step(r->time, r->n_frames);
  r->uniform = 0;
  r->up = o->up;
  r->unit_scale = o->unit_scale;
  snprintf(r->source_kind, sizeof r->source_kind, "%s", kind);
  snprintf(r->source_file, sizeof r->source_file, "%s", src);
  return CF_OK;
}

int ms_hash_sources(cf_recording *r, const ms_list *l, const cf_meshseq_opts *o, const char *extra) {
  const char **paths = malloc(sizeof(char *) * (l->n + 2));
  if (!paths) return 0;
  int n = 0;
  for (int i = 0; i < l->n; i++) paths[n++] = l->f[i].path;
  if (o->times_file) paths[n++] = o->times_file;
  if (extra) paths[n++] = extra;
  cf_sha256_files(paths, n, r->source_sha256, NULL);
  free(paths);
  return 1;
}

int cf_meshseq_read(const char *src, const cf_meshseq_opts *o, cf_recording *rec, cf_error *err) {
  cf_meshseq_opts def;
  if (!o) cf_meshseq_opts_default(&def), o = &def;
  cf_recording_init(rec);
  if (o->up != 'y' && o->up != 'z') return cf_error_set(err, CF_EINVAL, "%s: up axis must be 'y' or 'z'", src);
  if (!(o->unit_scale > 0)) return cf_error_set(err, CF_EINVAL, "%s: the unit scale must be > 0", src);
  if (o->n_held < 0 || o->n_held > CF_MESH_HELD_MAX || !(o->max_gap >= 0))
    return cf_error_set(err, CF_EINVAL, "%s: expected 0..%d held nodes and a max gap >= 0", src, CF_MESH_HELD_MAX);
  ms_list l;
  int rc = ms_list_files(src, &l, err);
  if (!rc) rc = ms_times(&l, o, err);
  if (!rc) rc = read_frames(&l, o, &rec->mesh, err);
  if (!rc) rc = held_nodes(src, &l, o, &rec->mesh, err);
  rec->mesh.max_gap_s = o->max_gap;
  if (!rc) rc = ms_fill(rec, "meshes", src, &l, o, err);
  if (!rc && !ms_add_info(rec, "element", rec->mesh.nv == 4 ? "quads" : "triangles"))
    rc = cf_error_set(err, CF_ENOMEM, "%s: out of memory", src);
  if (!rc && !ms_hash_sources(rec, &l, o, NULL)) rc = cf_error_set(err, CF_ENOMEM, "%s: out of memory", src);
  ms_list_free(&l);
  if (rc) cf_recording_free(rec);
  return rc;
}
