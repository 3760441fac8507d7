/* recording_internal.h — shared pieces of the marker processing of
 * docs/design.md §6 (markers.c: the pipeline and gap filling; fragments.c:
 * merging and ghosts; lattice.c: lattice assignment; markers_cfg.c: mapping
 * files, sidecar metadata, option values).
 * Not part of the public API. */
#ifndef CF_RECORDING_INTERNAL_H
#define CF_RECORDING_INTERNAL_H

#include "cf_recording.h"

/* ------------------------------------------------------------ mapping file */
typedef struct {
  char *target;
  char **frags;
  int n_frags, line;
} mk_merge;

typedef struct {
  char *name;
  int row, col, line;
} mk_cell;

typedef struct {
  const char *path;
  mk_merge *merge;
  int n_merge;
  mk_cell *cell;
  int n_cell;
  char **drop;
  int n_drop, drop_line;
} mk_map;

/* (err is never NULL in these internal functions.)
 * Parse a mapping file (format in cf_io.h); errors name file and line. */
int mk_map_load(const char *path, mk_map *map, cf_error *err);
void mk_map_free(mk_map *map);
/* Split "a, b,c" at commas into trimmed malloc'ed names; 0 if a name is
 * empty or out of memory (nothing allocated then). */
int mk_split_names(const char *s, char ***out, int *n);
void mk_free_names(char **names, int n);

/* ------------------------------------------------------------- recordings */
static inline const double *mk_pos(const cf_recording *r, int i, int k) {
  return r->pos + 3 * ((size_t)r->n_markers * i + k);
}
static inline int mk_present(const cf_recording *r, int i, int k) {
  const double *p = mk_pos(r, i, k);
  return p[0] == p[0] && p[1] == p[1] && p[2] == p[2];
}
/* Keep the n markers keep[0..n-1] in that order (positions, names, proc
 * arrays); the names of the others are freed. */
int mk_select(cf_recording *r, const int *keep, int n, cf_error *err);
/* First (from_end: last) frame where every marker k with mask[k] is
 * present, or -1. */
int mk_complete_frame(const cf_recording *r, const char *mask, int from_end);
/* Append a printf-formatted line to a list of strings. */
int mk_log(char ***list, int *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* -------------------------------------------------------------- the steps */
/* Apply the merges and drops of map. */
int mk_apply_map(cf_recording *r, const mk_map *map, cf_error *err);
/* Automatic fragment merging (opts merge_radius, merge_max_gap). */
int mk_merge_auto(cf_recording *r, const cf_marker_opts *o, cf_error *err);
/* Drop the ghosts among the markers with skip[k] == 0 (skip: stick, ...). */
int mk_drop_ghosts(cf_recording *r, const cf_marker_opts *o, const char *skip, cf_error *err);
/* Lattice cells of r->proc from the map's cell lines or the first complete
 * frame of the cloth markers; reorders the markers (cf_io.h). */
int mk_lattice(cf_recording *r, const cf_marker_opts *o, const mk_map *map, const char *not_cloth, cf_error *err);

#endif
