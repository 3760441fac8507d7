/* fit_input.c — an HDF5 recording as a cf_fit_target (cf_io.h "fitting
 * inputs"): the lattice markers, their weights and controlled corners from
 * the marker processing (r->proc), or a mesh sequence's nodes when its faces
 * form a grid (their lumped-mass weights, the held nodes controlled), or
 * point clouds (fit_cloud.c), rho from /meta, dt from /time, and the
 * descriptors S and V of the a-priori formulas, with the default model
 * settings (cf_params_default, nothing held).  Every error is one line
 * that names the file and says how to fix the recording. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cf_study.h"

void cf_path_stem(const char *path, char *buf, size_t size) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  const char *dot = strrchr(b, '.');
  size_t n = dot && dot != b ? (size_t)(dot - b) : strlen(b);
  snprintf(buf, size, "%.*s", (int)n, b);
}

void cf_fit_input_free(cf_fit_input *in) {
  free(in->pos);
  free(in->weight);
  free(in->ctrl);
  free(in->stick);
  free(in->cloud_time), free(in->cloud_points), free(in->cloud_offset);
  free(in->grip_uv), free(in->grip_track), free(in->grip_window);
  memset(in, 0, sizeof *in);
}

/* Uniform time: resampled, and every t_i = i dt to 1e-9 relative. */
static int check_time(const cf_recording *r, const char *path, cf_error *err) {
  if (r->n_frames < 2)
    return cf_error_set(err, CF_EINVAL, "%s: %d frame(s); fitting needs at least 2", path, r->n_frames);
  int uniform = r->uniform && r->dt > 0;
  for (int i = 0; uniform && i < r->n_frames; i++)
    uniform = fabs(r->time[i] - i * r->dt) <= 1e-9 * fmax(1, i * r->dt);
  if (!uniform)
    return cf_error_set(err, CF_EINVAL, "%s: the time steps are not uniform (native frames); "
                        "re-ingest with --dt SECONDS (e.g. --dt 0.01)", path);
  return CF_OK;
}

/* A lattice whose cells are markers 0..K-1 in row-major order. */
static int check_lattice(const cf_recording *r, const char *path, cf_error *err) {
  const cf_marker_proc *p = r->proc;
  if (!p || p->rows < 2 || p->cols < 2)
    return cf_error_set(err, CF_EINVAL, "%s: no marker lattice; ingest with --lattice RxC (e.g. --lattice 5x4)",
                        path);
  int K = p->rows * p->cols;
  if (K > r->n_markers)
    return cf_error_set(err, CF_EFORMAT, "%s: a %dx%d lattice but only %d markers", path, p->rows, p->cols,
                        r->n_markers);
  for (int k = 0; k < K; k++)
    if (p->cell[2 * k] != k / p->cols || p->cell[2 * k + 1] != k % p->cols)
      return cf_error_set(err, CF_EFORMAT, "%s: marker %d (%s) is not lattice cell (%d, %d): the lattice markers "
                          "must come first, row-major (re-ingest with this version)", path, k, r->names[k],
                          k / p->cols, k % p->cols);
  for (int c = 0; c < p->n_controlled; c++)
    if (p->controlled[c] >= K)
      return cf_error_set(err, CF_EINVAL, "%s: controlled marker %s is not on the lattice; the simulation can "
                          "only drive lattice markers", path, r->names[p->controlled[c]]);
  return CF_OK;
}

static int check_density(const cf_recording *r, const char *path, cf_error *err) {
  if (isfinite(r->meta.density) && r->meta.density > 0) return CF_OK;
  return cf_error_set(err, CF_EINVAL, "%s: no density in /meta; ingest with --density KG_M2 or a known "
                      "--material", path);
}

static int copy_arrays(const cf_recording *r, cf_fit_input *in) {
  const cf_marker_proc *p = r->proc;
  int T = r->n_frames, K = p->rows * p->cols, M = r->n_markers;
  in->pos = malloc(sizeof(double) * 3 * (size_t)T * K);
  in->weight = malloc(sizeof(double) * K);
  in->ctrl = p->n_controlled ? malloc(sizeof(int) * p->n_controlled) : NULL;
  if (!in->pos || !in->weight || (p->n_controlled && !in->ctrl)) return CF_ENOMEM;
  for (int t = 0; t < T; t++)
    memcpy(in->pos + (size_t)t * K * 3, r->pos + (size_t)t * M * 3, sizeof(double) * 3 * K);
  if (p->weight) {
    memcpy(in->weight, p->weight, sizeof(double) * K);
  } else {
    free(in->weight);
    in->weight = NULL; /* the fitter computes the lattice weights of frame 0 */
  }
  if (in->ctrl) memcpy(in->ctrl, p->controlled, sizeof(int) * p->n_controlled);
  in->tg.rows = p->rows, in->tg.cols = p->cols, in->tg.n_ctrl = p->n_controlled;
  return CF_OK;
}

/* The lumped-mass weights of the recorded mesh itself (its triangles or
 * quads at frame 0, eq. (4.3)) into w[N], in node order. */
static int mesh_weights(const cf_rec_mesh *m, double *w, cf_error *err) {
  cf_mesh *sm = cf_mesh_alloc(m->nv, m->n_nodes, m->n_faces);
  if (!sm) return cf_error_set(err, CF_ENOMEM, "out of memory");
  memcpy(sm->elems, m->faces, sizeof(int) * (size_t)m->nv * m->n_faces);
  memcpy(sm->x, m->nodes, sizeof(double) * 3 * (size_t)m->n_nodes);
  int rc = cf_mesh_node_weights(sm, sm->x, w, err);
  cf_mesh_free(sm);
  return rc;
}

/* A mesh recording whose faces form a grid (cf_rec_mesh_grid): its nodes
 * are the lattice markers in the grid's order (row 0 on top in frame 0),
 * weighted by the mesh's lumped mass, the held nodes (or the two highest
 * corners) controlled.  Dropped frames stay NaN, as marker gaps. */
static int copy_mesh(const cf_recording *r, const char *path, cf_fit_input *in, cf_error *err) {
  const cf_rec_mesh *m = &r->mesh;
  cf_rec_grid g;
  cf_error ge = {0, ""};
  int rc = cf_rec_mesh_grid(m, &g, &ge);
  if (rc == CF_ENOMEM) return cf_error_set(err, rc, "%s: out of memory", path);
  if (rc)
    return cf_error_set(err, CF_EINVAL, "%s: the mesh is not a structured grid (%s): only structured grids (quads, "
                        "or triangulated quads) can be fitted today", path, ge.msg);
  int T = r->n_frames, N = m->n_nodes, held[CF_MESH_HELD_MAX], n_held = m->n_held;
  memcpy(held, m->held, sizeof held);
  if (!n_held) cf_rec_grid_top_corners(&g, m, held), n_held = 2;
  in->pos = malloc(sizeof(double) * 3 * (size_t)T * N);
  in->weight = malloc(sizeof(double) * N);
  in->ctrl = malloc(sizeof(int) * n_held);
  double *wn = malloc(sizeof(double) * N);
  int *cell = malloc(sizeof(int) * N);
  rc = in->pos && in->weight && in->ctrl && wn && cell ? mesh_weights(m, wn, err)
                                                       : cf_error_set(err, CF_ENOMEM, "%s: out of memory", path);
  for (int k = 0; !rc && k < N; k++) {
    int v = g.node[k];
    cell[v] = k, in->weight[k] = wn[v];
    for (int t = 0; t < T; t++) memcpy(in->pos + 3 * ((size_t)t * N + k), m->nodes + 3 * ((size_t)t * N + v), 3 * sizeof(double));
  }
  for (int c = 0; !rc && c < n_held; c++) in->ctrl[c] = cell[held[c]];
  in->tg.rows = g.rows, in->tg.cols = g.cols, in->tg.n_ctrl = n_held;
  free(wn), free(cell);
  cf_rec_grid_free(&g);
  return rc;
}

/* The stick's endpoints at every frame into in->stick (none: NULL); a
 * frame where an endpoint is missing (a gap longer than ingest's --max-gap
 * was left) is an error naming it. */
static int copy_stick(const cf_recording *r, const char *path, cf_fit_input *in, cf_error *err) {
  const cf_marker_proc *p = r->proc;
  if (p->stick[0] < 0 || p->stick[1] < 0) return CF_OK;
  int T = r->n_frames, M = r->n_markers;
  if (!(in->stick = malloc(sizeof(double) * 6 * (size_t)T)))
    return cf_error_set(err, CF_ENOMEM, "%s: out of memory for the stick", path);
  for (int t = 0; t < T; t++)
    for (int e = 0; e < 2; e++) {
      const double *x = r->pos + 3 * ((size_t)M * t + p->stick[e]);
      if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]))
        return cf_error_set(err, CF_EINVAL, "%s: stick marker %s missing at frame %d (t = %.4g s): the simulation "
                            "needs the stick at every frame (ingest fills gaps up to --max-gap)", path,
                            r->names[p->stick[e]], t, t * r->dt);
      memcpy(in->stick + 6 * t + 3 * e, x, 3 * sizeof(double));
    }
  in->tg.stick = in->stick;
  in->tg.stick_radius = p->stick_radius > 0 ? p->stick_radius : CF_STICK_RADIUS;
  return CF_OK;
}

/* The target of the lattice markers (check_lattice .. copy_stick) or of a
 * mesh recording whose faces form a grid (copy_mesh). */
static int from_lattice(const cf_recording *r, const char *path, cf_fit_input *in, cf_error *err) {
  int mesh = (!r->proc || r->proc->rows < 2) && r->mesh.n_nodes > 0;
  int rc = mesh ? CF_OK : check_lattice(r, path, err);
  if (!rc) rc = check_density(r, path, err);
  if (!rc) rc = check_time(r, path, err);
  if (rc) return rc;
  if (mesh) rc = copy_mesh(r, path, in, err);
  else if (copy_arrays(r, in)) rc = cf_error_set(err, CF_ENOMEM, "%s: out of memory for %d frames", path, r->n_frames);
  if (rc) return rc;
  cf_fit_target tg = {in->tg.rows, in->tg.cols, r->n_frames, r->dt, in->pos, in->weight, in->tg.n_ctrl, in->ctrl,
                      r->meta.density, {0, 0, 0, 0, 0}, NULL, 0, 0, 0, 0, {0, 0}, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL};
  if (cf_rec_table_valid(r->meta.table)) memcpy(tg.table, r->meta.table, sizeof tg.table);
  /* a mesh recording's cloth is its own mesh (thesis §4.1: the 9 x 9 mesh
   * the camera's frames were registered to); a marker lattice is too coarse
   * to be the cloth, so its cells are split (CF_LATTICE_SPLIT_DEFAULT) */
  tg.split = mesh ? 1 : 0;
  in->tg = tg;
  return mesh ? CF_OK : copy_stick(r, path, in, err);
}

int cf_fit_input_from_recording(const cf_recording *r, const char *path, cf_fit_input *in, cf_error *err) {
  memset(in, 0, sizeof *in);
  int rc;
  if (!r->cloud.offset) rc = from_lattice(r, path, in, err);
  else if (!(rc = check_density(r, path, err))) rc = cf_fit_input_from_clouds(r, path, in, err);
  if (rc) {
    cf_fit_input_free(in);
    return rc;
  }
  const cf_fit_target *tg = &in->tg;
  in->meta = r->meta;
  in->duration = (tg->T - 1) * tg->dt;
  in->S = r->meta.width_m > 0 && r->meta.height_m > 0 ? cf_size_measure(r->meta.width_m, r->meta.height_m) : NAN;
  in->V = tg->n_grip ? cf_speed_measure(tg->T, tg->n_grip, tg->dt, in->grip_track)
                     : cf_speed_measure(tg->T, tg->rows * tg->cols, tg->dt, in->pos);
  snprintf(in->path, sizeof in->path, "%s", path);
  cf_path_stem(path, in->name, sizeof in->name);
  cf_params_default(&in->base); /* fixed: zeros from the memset */
  in->polish = cf_fit_target_has_table(&in->tg); /* a laid cloth's rough error (polish.c) */
  return CF_OK;
}

int cf_fit_input_load(const char *path, cf_fit_input *in, cf_error *err) {
  cf_recording r;
  memset(in, 0, sizeof *in);
  if (access(path, R_OK) != 0) return cf_error_set(err, CF_EIO, "%s: cannot read: %s", path, strerror(errno));
  int rc = cf_recording_read_h5(path, &r, err);
  if (rc) return rc;
  rc = cf_fit_input_from_recording(&r, path, in, err);
  cf_recording_free(&r);
  return rc;
}
