/* fragments.c — label fragments and ghosts (thesis Remark 4.2.1 item 4;
 * docs/design.md §6): Motive loses a marker in fast motion and labels it anew
 * when it reappears, so one physical marker arrives as several tracks.  They
 * are joined by the mapping file's merge lines or automatically; tracks that
 * never come near the cloth (reflections) are dropped. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recording_internal.h"

/* ---------------------------------------------------------------- helpers */
int mk_log(char ***list, int *n, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char **l = realloc(*list, sizeof(char *) * (*n + 1));
  if (!l) return CF_ENOMEM;
  *list = l;
  if (!(l[*n] = strdup(buf))) return CF_ENOMEM;
  ++*n;
  return CF_OK;
}

/* The proc arrays cell [K*2] and filled [K] in the order keep[0..n-1]. */
static int select_proc(cf_marker_proc *p, const int *keep, int n) {
  int *cell = malloc(sizeof(int) * 2 * (n + 1)), *filled = malloc(sizeof(int) * (n + 1));
  if (!cell || !filled) return free(cell), free(filled), CF_ENOMEM;
  for (int j = 0; j < n; j++) {
    cell[2 * j] = p->cell[2 * keep[j]], cell[2 * j + 1] = p->cell[2 * keep[j] + 1];
    filled[j] = p->filled[keep[j]];
  }
  free(p->cell), free(p->filled);
  p->cell = cell, p->filled = filled;
  return CF_OK;
}

int mk_select(cf_recording *r, const int *keep, int n, cf_error *err) {
  size_t T = (size_t)r->n_frames, K = (size_t)r->n_markers;
  double *pos = malloc(sizeof(double) * (3 * T * n + 1));
  char **names = malloc(sizeof(char *) * (n + 1));
  char *kept = calloc(K + 1, 1);
  if (!pos || !names || !kept || (r->proc && select_proc(r->proc, keep, n))) {
    free(pos), free(names), free(kept);
    return cf_error_set(err, CF_ENOMEM, "out of memory for %zu frames of %d markers", T, n);
  }
  for (size_t i = 0; i < T; i++)
    for (int j = 0; j < n; j++) memcpy(pos + 3 * (i * n + j), r->pos + 3 * (i * K + keep[j]), 3 * sizeof(double));
  for (int j = 0; j < n; j++) names[j] = r->names[keep[j]], kept[keep[j]] = 1;
  for (size_t k = 0; k < K; k++)
    if (!kept[k]) free(r->names[k]);
  free(r->pos), free(r->names), free(kept);
  r->pos = pos, r->names = names, r->n_markers = n;
  return CF_OK;
}

/* Remove the markers with gone[k] set. */
static int remove_markers(cf_recording *r, const char *gone, cf_error *err) {
  int *keep = malloc(sizeof(int) * (r->n_markers + 1)), n = 0;
  if (!keep) return cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int k = 0; k < r->n_markers; k++)
    if (!gone[k]) keep[n++] = k;
  int rc = mk_select(r, keep, n, err);
  free(keep);
  return rc;
}

/* Copy the samples of marker src into dst; a frame where both have one is
 * an error (they are not fragments of one marker). */
static int join(cf_recording *r, int dst, int src, cf_error *err) {
  for (int i = 0; i < r->n_frames; i++) {
    if (!mk_present(r, i, src)) continue;
    if (mk_present(r, i, dst))
      return cf_error_set(err, CF_EINVAL, "markers '%s' and '%s' both have a sample at t = %.4f s (frame %d): "
                          "they are not fragments of one marker", r->names[dst], r->names[src],
                          r->time[i] + r->time_offset, i);
    memcpy((double *)mk_pos(r, i, dst), mk_pos(r, i, src), 3 * sizeof(double));
  }
  return CF_OK;
}

/* -------------------------------------------------------- mapping merges */
static int map_find(const cf_recording *r, const mk_map *map, const char *name, int line, cf_error *err, int *k) {
  *k = cf_recording_marker_index(r, name);
  if (*k < 0)
    return cf_error_set(err, CF_EINVAL, "%s:%d: no marker '%s' in the recording (after the lines above)", map->path,
                        line, name);
  return CF_OK;
}

static int map_merge(cf_recording *r, const mk_map *map, const mk_merge *m, char *gone, cf_error *err) {
  int t = cf_recording_marker_index(r, m->target), rc = CF_OK, f;
  for (int i = 0; i < m->n_frags && !rc; i++) {
    if ((rc = map_find(r, map, m->frags[i], m->line, err, &f)) || f == t) continue;
    if (t < 0) {
      char *name = strdup(m->target);
      if (!name) return cf_error_set(err, CF_ENOMEM, "out of memory");
      free(r->names[f]);
      r->names[f] = name, t = f;
      continue;
    }
    if ((rc = join(r, t, f, err))) {
      char why[sizeof err->msg];
      memcpy(why, err->msg, sizeof why);
      return cf_error_set(err, rc, "%s:%d: %s", map->path, m->line, why);
    }
    gone[f] = 1;
    rc = mk_log(&r->proc->merged, &r->proc->n_merged, "%s <- %s (map line %d)", m->target, m->frags[i], m->line);
  }
  return rc ? rc : remove_markers(r, gone, err);
}

int mk_apply_map(cf_recording *r, const mk_map *map, cf_error *err) {
  int rc = CF_OK, k;
  char *gone = calloc((size_t)r->n_markers + 1, 1);
  if (!gone) return cf_error_set(err, CF_ENOMEM, "out of memory");
  for (int i = 0; i < map->n_merge && !rc; i++) {
    memset(gone, 0, (size_t)r->n_markers);
    rc = map_merge(r, map, &map->merge[i], gone, err);
  }
  memset(gone, 0, (size_t)r->n_markers + 1);
  for (int i = 0; i < map->n_drop && !rc; i++)
    if (!(rc = map_find(r, map, map->drop[i], map->drop_line, err, &k)) && !gone[k]) {
      gone[k] = 1;
      rc = mk_log(&r->proc->removed, &r->proc->n_removed, "%s", map->drop[i]);
    }
  if (!rc) rc = remove_markers(r, gone, err);
  free(gone);
  return rc;
}

/* ------------------------------------------------------ automatic merging */
typedef struct {
  int first, last; /* frames of the first and last sample, -1 if none */
} span;

static void spans(const cf_recording *r, span *s) {
  for (int k = 0; k < r->n_markers; k++) {
    s[k].first = s[k].last = -1;
    for (int i = 0; i < r->n_frames; i++)
      if (mk_present(r, i, k)) {
        if (s[k].first < 0) s[k].first = i;
        s[k].last = i;
      }
  }
}

/* Position of marker k extrapolated from its last sample to time t, at the
 * velocity of its last two samples (0 with one sample). */
static void extrapolate(const cf_recording *r, int k, int last, double t, double *out) {
  const double *p = mk_pos(r, last, k);
  int prev = last - 1;
  while (prev >= 0 && !mk_present(r, prev, k)) prev--;
  double s = prev >= 0 ? (t - r->time[last]) / (r->time[last] - r->time[prev]) : 0;
  for (int c = 0; c < 3; c++) out[c] = p[c] + (prev >= 0 ? s * (p[c] - mk_pos(r, prev, k)[c]) : 0);
}

/* Cost of continuing track e by track s: the distance of s's first sample
 * from e's extrapolated end, or +inf if not allowed. */
static double join_cost(const cf_recording *r, const span *sp, int e, int s, const cf_marker_opts *o) {
  if (e == s || sp[s].first <= sp[e].last || sp[e].last < 0) return INFINITY;
  double t = r->time[sp[s].first], x[3];
  if (t - r->time[sp[e].last] > o->merge_max_gap) return INFINITY;
  extrapolate(r, e, sp[e].last, t, x);
  const double *p = mk_pos(r, sp[s].first, s);
  double d = sqrt((x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2]));
  return d <= o->merge_radius ? d : INFINITY;
}

static int oom(cf_error *err) { return cf_error_set(err, CF_ENOMEM, "out of memory while merging fragments"); }

/* Join the chains next[] (track -> its continuation) found by one
 * assignment; gone[] marks the tracks absorbed.  Returns the number of
 * joins, or minus the error code. */
static int join_chains(cf_recording *r, const span *sp, const int *next, const double *cost_of, char *gone,
                       cf_error *err) {
  int K = r->n_markers, joins = 0, rc = CF_OK;
  char *has_prev = calloc((size_t)K + 1, 1);
  if (!has_prev) return -oom(err);
  for (int k = 0; k < K; k++)
    if (next[k] >= 0) has_prev[next[k]] = 1;
  for (int root = 0; root < K && !rc; root++) {
    if (has_prev[root]) continue;
    for (int e = root, s = next[root]; s >= 0 && !rc; e = s, s = next[s], joins++) {
      rc = join(r, root, s, err);
      if (!rc && mk_log(&r->proc->merged, &r->proc->n_merged, "%s <- %s (auto: %.2f cm from the extrapolated "
                        "track after a %.3f s gap)", r->names[root], r->names[s], 100 * cost_of[e],
                        r->time[sp[s].first] - r->time[sp[e].last]))
        rc = oom(err);
      gone[s] = 1;
    }
  }
  free(has_prev);
  return rc ? -rc : joins;
}

typedef struct {
  span *sp;
  int *ends, *starts, *pick, *next;
  double *cost, *cost_of;
  char *gone;
} round_mem;

static int round_alloc(round_mem *m, int K) {
  size_t n = (size_t)K + 1;
  m->sp = malloc(sizeof(span) * n);
  m->ends = malloc(sizeof(int) * n), m->starts = malloc(sizeof(int) * n);
  m->pick = malloc(sizeof(int) * n), m->next = malloc(sizeof(int) * n);
  m->cost = malloc(sizeof(double) * n * n), m->cost_of = calloc(n, sizeof(double));
  m->gone = calloc(n, 1);
  return m->sp && m->ends && m->starts && m->pick && m->next && m->cost && m->cost_of && m->gone;
}

static void round_free(round_mem *m) {
  free(m->sp), free(m->ends), free(m->starts), free(m->pick), free(m->next);
  free(m->cost), free(m->cost_of), free(m->gone);
}

/* One round: the cheapest assignment of the tracks that end before the last
 * frame to the tracks that start after the first. */
static int merge_round(cf_recording *r, const cf_marker_opts *o, cf_error *err) {
  int K = r->n_markers, ne = 0, ns = 0, joins;
  round_mem m;
  if (!round_alloc(&m, K)) {
    round_free(&m);
    return -oom(err);
  }
  spans(r, m.sp);
  for (int k = 0; k < K; k++) {
    if (m.sp[k].first < 0) continue;
    if (m.sp[k].last < r->n_frames - 1) m.ends[ne++] = k;
    if (m.sp[k].first > 0) m.starts[ns++] = k;
  }
  for (int e = 0; e < ne; e++)
    for (int s = 0; s < ns; s++) m.cost[(size_t)e * ns + s] = join_cost(r, m.sp, m.ends[e], m.starts[s], o);
  joins = cf_assign_min_cost(m.cost, ne, ns, m.pick);
  for (int k = 0; k < K; k++) m.next[k] = -1;
  for (int e = 0; e < ne; e++)
    if (m.pick[e] >= 0) {
      m.next[m.ends[e]] = m.starts[m.pick[e]];
      m.cost_of[m.ends[e]] = m.cost[(size_t)e * ns + m.pick[e]];
    }
  if (joins < 0) joins = -oom(err);
  if (joins > 0) joins = join_chains(r, m.sp, m.next, m.cost_of, m.gone, err);
  if (joins > 0 && remove_markers(r, m.gone, err)) joins = -CF_ENOMEM;
  round_free(&m);
  return joins;
}

int mk_merge_auto(cf_recording *r, const cf_marker_opts *o, cf_error *err) {
  int joins;
  while ((joins = merge_round(r, o, err)) > 0) {}
  return joins < 0 ? -joins : CF_OK;
}

/* ----------------------------------------------------------------- ghosts */
/* Does marker k come within radius of two reference markers at once? */
static int near_cloth(const cf_recording *r, int k, const char *ref, double radius) {
  for (int i = 0; i < r->n_frames; i++) {
    if (!mk_present(r, i, k)) continue;
    const double *p = mk_pos(r, i, k);
    int near = 0;
    for (int j = 0; j < r->n_markers && near < 2; j++) {
      if (j == k || !ref[j] || !mk_present(r, i, j)) continue;
      const double *q = mk_pos(r, i, j);
      double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
      near += dx * dx + dy * dy + dz * dz <= radius * radius;
    }
    if (near >= 2) return 1;
  }
  return 0;
}

/* Reference tracks: present in at least half the frames (or all tracks
 * when fewer than three are). */
static int reference(const cf_recording *r, const char *skip, char *ref) {
  int n = 0;
  for (int k = 0; k < r->n_markers; k++) {
    int count = 0;
    for (int i = 0; i < r->n_frames; i++) count += mk_present(r, i, k);
    ref[k] = !skip[k] && 2 * count >= r->n_frames;
    n += ref[k];
  }
  if (n < 3)
    for (int k = 0; k < r->n_markers; k++) ref[k] = !skip[k];
  return n;
}

int mk_drop_ghosts(cf_recording *r, const cf_marker_opts *o, const char *skip, cf_error *err) {
  int K = r->n_markers, rc = CF_OK;
  char *ref = malloc((size_t)K + 1), *gone = calloc((size_t)K + 1, 1);
  if (!ref || !gone) rc = cf_error_set(err, CF_ENOMEM, "out of memory");
  if (!rc) reference(r, skip, ref);
  for (int k = 0; k < K && !rc; k++) {
    if (skip[k] || near_cloth(r, k, ref, o->ghost_radius)) continue;
    gone[k] = 1;
    rc = mk_log(&r->proc->ghosts, &r->proc->n_ghosts, "%s", r->names[k]);
  }
  if (!rc) rc = remove_markers(r, gone, err);
  free(ref), free(gone);
  return rc;
}
