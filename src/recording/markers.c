/* markers.c — the marker-processing pipeline of docs/design.md §6 (steps in
 * cf_recording.h): mapping file, fragment merging, ghosts, lattice, trimming,
 * resampling, gap filling of the controlled and stick markers, lattice
 * weights. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cf_sim.h"
#include "recording_internal.h"

static int check_opts(const cf_marker_opts *o, double dt, cf_error *err) {
  if ((o->rows || o->cols) && (o->rows < 2 || o->cols < 2))
    return cf_error_set(err, CF_EINVAL, "lattice %dx%d: expected at least 2x2 markers", o->rows, o->cols);
  if (!(o->merge_radius > 0) || !(o->merge_max_gap > 0) || !(o->ghost_radius > 0) || !(o->max_gap >= 0) ||
      !(o->stick_radius >= 0) || !(dt >= 0))
    return cf_error_set(err, CF_EINVAL, "marker processing: radii and times must be positive (merge radius %g m, "
                        "merge gap %g s, ghost radius %g m, max gap %g s, stick radius %g m, dt %g s)",
                        o->merge_radius, o->merge_max_gap, o->ghost_radius, o->max_gap, o->stick_radius, dt);
  return CF_OK;
}

/* Indices of the comma-separated names s (exactly `want` of them if > 0). */
static int resolve(const cf_recording *r, const char *s, const char *what, int want, int **idx, int *n,
                   cf_error *err) {
  char **names;
  if (!mk_split_names(s, &names, n) || (want && *n != want))
    return cf_error_set(err, CF_EINVAL, "%s '%s': expected %s comma-separated marker names", what, s,
                        want == 2 ? "two" : "non-empty");
  *idx = malloc(sizeof(int) * (*n + 1));
  int rc = *idx ? CF_OK : cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; i < *n && !rc; i++)
    if (((*idx)[i] = cf_recording_marker_index(r, names[i])) < 0)
      rc = cf_error_set(err, CF_EINVAL, "%s: no marker '%s' in the recording (after merging fragments)", what,
                        names[i]);
  mk_free_names(names, *n);
  return rc;
}

static int resolve_stick(cf_recording *r, const cf_marker_opts *o, cf_error *err) {
  int *idx = NULL, n = 0, rc = CF_OK;
  if (o->stick[0] && !(rc = resolve(r, o->stick, "stick", 2, &idx, &n, err)))
    r->proc->stick[0] = idx[0], r->proc->stick[1] = idx[1];
  r->proc->stick_radius = o->stick_radius;
  free(idx);
  return rc;
}

static int resolve_controlled(cf_recording *r, const cf_marker_opts *o, cf_error *err) {
  cf_marker_proc *p = r->proc;
  if (strcmp(o->controlled, "top-corners"))
    return resolve(r, o->controlled, "controlled", 0, &p->controlled, &p->n_controlled, err);
  if (!p->rows) return CF_OK; /* no lattice: no corners */
  if (!(p->controlled = malloc(2 * sizeof(int)))) return cf_error_set(err, CF_ENOMEM, "out of memory");
  p->controlled[0] = 0, p->controlled[1] = p->cols - 1, p->n_controlled = 2;
  return CF_OK;
}

/* Ghosts, then the lattice.  Stick markers are never cloth nor ghosts, nor
 * are the markers the mapping file places. */
static int ghosts_and_lattice(cf_recording *r, const cf_marker_opts *o, const mk_map *map, cf_error *err) {
  char *skip = calloc((size_t)r->n_markers + 1, 1);
  if (!skip) return cf_error_set(err, CF_ENOMEM, "out of memory");
  int rc = resolve_stick(r, o, err);
  for (int s = 0; !rc && s < 2; s++)
    if (r->proc->stick[s] >= 0) skip[r->proc->stick[s]] = 1;
  for (int i = 0; !rc && i < map->n_cell; i++) {
    int k = cf_recording_marker_index(r, map->cell[i].name);
    if (k >= 0) skip[k] = 1;
  }
  if (!rc) rc = mk_drop_ghosts(r, o, skip, err);
  memset(skip, 0, (size_t)r->n_markers + 1);
  if (!rc) rc = resolve_stick(r, o, err); /* indices moved */
  for (int s = 0; !rc && s < 2; s++)
    if (r->proc->stick[s] >= 0) skip[r->proc->stick[s]] = 1;
  if (!rc) rc = mk_lattice(r, o, map, skip, err);
  free(skip);
  return rc;
}

/* ---------------------------------------------------------------- trimming */
static void crop(cf_recording *r, int i0, int i1) {
  size_t K3 = 3 * (size_t)r->n_markers, n = (size_t)(i1 - i0 + 1);
  double t0 = r->time[i0];
  memmove(r->pos, r->pos + K3 * i0, sizeof(double) * K3 * n);
  for (size_t i = 0; i < n; i++) r->time[i] = r->time[i0 + i] - t0;
  r->n_frames = (int)n;
  r->time_offset += t0;
}

/* Start at the first frame with every lattice marker, end at the last with
 * every controlled marker. */
static int trim(cf_recording *r, cf_error *err) {
  cf_marker_proc *p = r->proc;
  char *mask = calloc((size_t)r->n_markers + 1, 1);
  if (!mask) return cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int k = 0; k < p->rows * p->cols; k++) mask[k] = 1;
  int i0 = mk_complete_frame(r, mask, 0);
  memset(mask, 0, (size_t)r->n_markers);
  for (int c = 0; c < p->n_controlled; c++) mask[p->controlled[c]] = 1;
  int i1 = mk_complete_frame(r, mask, 1), T = r->n_frames;
  free(mask);
  if (i0 < 0 || i1 < i0)
    return cf_error_set(err, CF_EINVAL, "no frame from the first complete one (t = %.3f s) on has every "
                        "controlled marker", i0 < 0 ? NAN : r->time_offset + r->time[i0]);
  p->trim_start_frames = i0, p->trim_end_frames = T - 1 - i1;
  p->trim_start_s = r->time[i0] - r->time[0], p->trim_end_s = r->time[T - 1] - r->time[i1];
  crop(r, i0, i1);
  return CF_OK;
}

/* ------------------------------------------------------------- gap filling */
static int fill_run(cf_recording *r, int k, int a, int b, const char *what, double max_gap, cf_error *err) {
  double len = (b - a) * r->dt;
  if (a == 0 && b == r->n_frames)
    return cf_error_set(err, CF_EINVAL, "%s marker '%s' has no sample at all in the trimmed recording", what,
                        r->names[k]);
  if (a == 0 || b == r->n_frames)
    return cf_error_set(err, CF_EINVAL, "%s marker '%s' has no sample %s t = %.3f s (source time %.3f s): a gap "
                        "at the %s cannot be interpolated", what, r->names[k], a == 0 ? "before" : "after",
                        a == 0 ? r->time[b] : r->time[a - 1], r->time_offset + (a == 0 ? r->time[b] : r->time[a - 1]),
                        a == 0 ? "start" : "end");
  if (len > max_gap * (1 + 1e-9) + 1e-12)
    return cf_error_set(err, CF_EINVAL, "%s marker '%s' is missing for %.3f s (%d frames) from t = %.3f s (source "
                        "time %.3f s), longer than the limit of %.3g s (--max-gap)", what, r->names[k], len, b - a,
                        r->time[a], r->time_offset + r->time[a], max_gap);
  const double *pa = mk_pos(r, a - 1, k), *pb = mk_pos(r, b, k);
  double ta = r->time[a - 1], tb = r->time[b];
  for (int i = a; i < b; i++) {
    double w = (r->time[i] - ta) / (tb - ta), *x = (double *)mk_pos(r, i, k);
    for (int c = 0; c < 3; c++) x[c] = pa[c] + w * (pb[c] - pa[c]);
  }
  r->proc->filled[k] += b - a;
  return CF_OK;
}

static int fill_marker(cf_recording *r, int k, const char *what, double max_gap, cf_error *err) {
  int rc = CF_OK;
  for (int i = 0; i < r->n_frames && !rc;) {
    if (mk_present(r, i, k)) {
      i++;
      continue;
    }
    int b = i;
    while (b < r->n_frames && !mk_present(r, b, k)) b++;
    rc = fill_run(r, k, i, b, what, max_gap, err);
    i = b;
  }
  return rc;
}

static int fill_gaps(cf_recording *r, const cf_marker_opts *o, cf_error *err) {
  cf_marker_proc *p = r->proc;
  int rc = CF_OK;
  p->max_gap = o->max_gap;
  for (int c = 0; c < p->n_controlled && !rc; c++) rc = fill_marker(r, p->controlled[c], "controlled", o->max_gap, err);
  for (int s = 0; s < 2 && !rc; s++)
    if (p->stick[s] >= 0) rc = fill_marker(r, p->stick[s], "stick", o->max_gap, err);
  return rc;
}

/* -------------------------------------------------------------- weights */
static int weights(cf_recording *r, cf_error *err) {
  cf_marker_proc *p = r->proc;
  p->weight = calloc((size_t)r->n_markers + 1, sizeof(double));
  if (!p->weight) return cf_error_set(err, CF_ENOMEM, "out of memory");
  return cf_mesh_lattice_weights(p->rows, p->cols, r->pos, p->weight, err);
}

/* ---------------------------------------------------------------- pipeline */
static int run(cf_recording *r, const cf_marker_opts *o, double dt, mk_map *map, cf_error *err) {
  int lattice = o->rows > 0, rc = check_opts(o, dt, err);
  int merge = o->merge == CF_MERGE_DEFAULT ? lattice : o->merge;
  if (!rc && o->map[0]) rc = mk_map_load(o->map, map, err);
  if (!rc && map->n_cell && !lattice)
    rc = cf_error_set(err, CF_EINVAL, "%s: cell lines need the lattice size (--lattice ROWSxCOLS)", o->map);
  if (!rc) rc = mk_apply_map(r, map, err);
  if (!rc && merge) rc = mk_merge_auto(r, o, err);
  if (!rc && lattice) rc = ghosts_and_lattice(r, o, map, err);
  if (!rc) rc = resolve_stick(r, o, err);
  if (!rc) rc = resolve_controlled(r, o, err);
  if (!rc) rc = trim(r, err);
  if (!rc && dt > 0) rc = cf_recording_resample(r, dt, err);
  if (!rc) rc = fill_gaps(r, o, err);
  if (!rc && lattice) rc = weights(r, err);
  return rc;
}

int cf_markers_process(cf_recording *r, const cf_marker_opts *o, double dt, cf_error *err) {
  cf_error local = {0, ""};
  mk_map map;
  memset(&map, 0, sizeof map);
  cf_marker_proc_free(r->proc);
  r->proc = cf_marker_proc_new(r->n_markers);
  int rc = r->proc ? run(r, o, dt, &map, &local) : cf_error_set(&local, CF_ENOMEM, "out of memory");
  mk_map_free(&map);
  if (rc) cf_error_set(err, rc, "%s", local.msg);
  return rc;
}
