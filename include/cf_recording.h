/* cf_recording.h — the public API of src/recording: from the labelled
 * tracks of a motion-capture file to the cloth's marker lattice.
 *
 * Second step of the data flow (files -> recording -> simulation/fit ->
 * results -> report): src/io reads a file into a cf_recording of raw
 * tracks; this folder merges label fragments, drops ghosts, places the
 * markers on the lattice, trims, resamples, fills the gaps of the driven
 * markers and computes the lattice weights, filling r->proc (the record is
 * defined in cf_io.h, since it is stored in the recording file).  Depends
 * on src/io and, for the lattice weights (the lumped mass of the marker
 * lattice as a quad mesh), on src/sim.  Conventions (errors, ownership) as
 * stated in cf_io.h. */
#ifndef CF_RECORDING_H
#define CF_RECORDING_H

#include "cf_io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------ marker processing */
/* Marker processing (docs/design.md §6; thesis §4.2, Remarks 4.2.1, 4.2.3,
 * 4.3.3): from the labelled tracks of a motion-capture recording to the
 * cloth's marker lattice.  cf_markers_process runs, in this order:
 *   1. the mapping file (opts.map): explicit merges of label fragments and
 *      explicit drops;
 *   2. automatic fragment merging (fragments.c): a track that
 *      ends and one that starts later (no overlap) are joined when the start
 *      lies within merge_radius of the end extrapolated at constant velocity
 *      over the gap (<= merge_max_gap); competing candidates are resolved by
 *      the globally cheapest assignment (cf_assign_min_cost), repeated until
 *      nothing joins;
 *   3. with a lattice: ghosts (tracks that never come within ghost_radius of
 *      two other cloth tracks at the same time) are dropped and listed; the
 *      cloth markers are placed on the lattice cells at the first frame in
 *      which all are present (cf_lattice_assign), or by the mapping file;
 *   4. trimming: the recording starts at that first complete frame and ends
 *      at the last frame where every controlled marker is present; both
 *      drops are recorded;
 *   5. resampling to dt (cf_recording_resample; cloth gaps stay NaN);
 *   6. gaps of the controlled markers and of the stick's endpoints are
 *      interpolated linearly in time; a gap longer than max_gap (missing
 *      frames x dt), or one at the start or end, is an error naming the
 *      marker and the time;
 *   7. lattice weights: the lumped mass of the quad mesh whose nodes are the
 *      markers at frame 0 (cf_mesh_lattice_weights: mean 1, a regular
 *      lattice gives corners : edges : interior = 1 : 2 : 4).
 * Marker order afterwards: the lattice cells row-major (row 0 = top, column
 * 0 = smallest 'across' coordinate), then every other marker (stick
 * endpoints, markers the mapping file leaves off the lattice) in source
 * order.  Without a lattice the order is the source's.
 *
 * Mapping files: one directive a line; '#' starts a comment; names are
 * trimmed of surrounding blanks and may contain blanks, not ',', '=' or '#':
 *   TARGET = FRAG1, FRAG2, ...   fragments of one physical marker, joined
 *                                under the name TARGET (one of them, another
 *                                existing marker, or a new name); they must
 *                                not have samples at the same frame
 *   cell ROW COL = NAME          NAME sits at lattice cell (ROW, COL), 0-based,
 *                                row 0 = top; either no cell line at all or
 *                                one for every cell (needs opts.rows/cols)
 *   drop = NAME, ...             markers to remove (reflections, hanger ...)
 * Cell lines name markers after the merges (an automatically merged track
 * keeps the name of its first fragment). */

enum { CF_MERGE_DEFAULT = -1, CF_MERGE_NONE = 0, CF_MERGE_AUTO = 1 };

typedef struct {
  int rows, cols;         /* lattice (--lattice ROWSxCOLS); 0: none */
  char map[1024];         /* mapping file, "" = none */
  int merge;              /* CF_MERGE_*; default: auto with a lattice, none without */
  double merge_radius;    /* m: start within this of the extrapolated end (0.03) */
  double merge_max_gap;   /* s: longest time between two fragments joined (1.0) */
  double ghost_radius;    /* m: cloth tracks come this close to two others (0.25) */
  double max_gap;         /* s: longest gap of a controlled/stick marker filled (0.25) */
  char controlled[512];   /* "top-corners" (the default) or comma-separated names */
  char stick[512];        /* "A,B": the stick's endpoint markers, "" = none */
  double stick_radius;    /* m (0.0075) */
  char held[512];         /* ingest meshes: the held nodes "I,J"; clouds: the grippers' points
                             "top-left,0.5:1,..." (meta key held), "" = default */
  char grasp[512];        /* ingest clouds: the grippers' windows "T0:T1,..." (meta key grasp) */
  char start[32];         /* ingest clouds: hanging or flat-on-table (meta key start) */
} cf_marker_opts;


void cf_marker_opts_default(cf_marker_opts *o);
/* Steps 1-7 above on r (native frames, as read); dt > 0 resamples, dt == 0
 * keeps the frames.  Fills r->proc.  Errors name the markers (and the map
 * file line, or the time) involved; r is then unusable (free it). */
int cf_markers_process(cf_recording *r, const cf_marker_opts *o, double dt, cf_error *err);

/* Place K = rows*cols markers at positions x [K*3] (all present) on the
 * lattice: cell[2k], cell[2k+1] = row, column of marker k.  The cloth plane
 * is the PCA plane; 'up' is world z projected on it and 'across' the
 * in-plane perpendicular (its larger horizontal world component positive);
 * the lattice's in-plane rotation (within ±45°) is estimated from the
 * nearest-neighbour directions and undone; rows are then the markers sorted
 * by height, each row sorted by 'across'.  Rows that do not separate
 * clearly, neighbour spacings more than 30 % off their median, a plane
 * within 15° of horizontal or a wrong marker count are errors naming the
 * markers (names[K]).  fit (may be NULL) gets the fitted lattice. */
int cf_lattice_assign(const double *x, int K, char *const *names, int rows, int cols, int *cell,
                      cf_lattice_fit *fit, cf_error *err);

/* Minimum-cost assignment (Hungarian algorithm, O(n^2 m) for n <= m): pairs
 * the n rows of cost [n*m] (row-major) with distinct columns, as many as
 * possible, at the least total cost.  Entries that are +inf or NaN are
 * forbidden pairs; col_of_row[i] is the column of row i, or -1.  Returns
 * the number of pairs (or -1 when out of memory). */
int cf_assign_min_cost(const double *cost, int n, int m, int *col_of_row);

/* "ROWSxCOLS" (e.g. 5x4), both >= 2 */
int cf_parse_lattice(const char *s, int *rows, int *cols);

/* Sidecar metadata (--meta FILE): an INI file, keys (optionally under a
 * [meta] section) material, size, width_m, height_m, density, motion,
 * speed, repetition, notes, lattice, controlled, stick, held (a mesh's held
 * nodes, for ingest meshes; the grippers' points, for ingest clouds), grasp
 * and start (ingest clouds), table_height, table_extent, into meta and mo.
 * Unknown keys and malformed values are errors naming file, line and key. */
int cf_meta_load(const char *path, cf_rec_meta *meta, cf_marker_opts *mo, cf_error *err);
/* The same for a file with other sections too (a ground-truth sidecar of
 * `synth`: [meta], [truth], [cells] ...): only the top and [meta] are read. */
int cf_meta_load_section(const char *path, cf_rec_meta *meta, cf_marker_opts *mo, cf_error *err);

/* The table a cloth lies flat on, from the n points p[n*3] of a depth
 * camera's first frame (table_fit.c says how): table[5] (output; height,
 * x_min, x_max, y_min, y_max as cf_rec_meta.table) its top face clearance
 * below the points' median height (the simulation's contact clearance),
 * its extent the points' box grown by margin; info (may be NULL) the
 * points used and their plane's rms and tilt.  CF_EINVAL naming source when
 * the points give no horizontal plane. */
#define CF_TABLE_FIT_BAND 0.01  /* m: the points within this of the median height */
#define CF_TABLE_FIT_MIN 20     /* points at least */
#define CF_TABLE_FIT_TILT 5.0   /* degrees at most */
#define CF_TABLE_FIT_RMS 0.004  /* m at most: a lying cloth with a depth camera's noise */
typedef struct {
  long points;
  double rms_m, tilt_deg;
} cf_table_fit_info;
int cf_table_fit(const double *p, long n, double clearance, double margin, const char *source, double table[5],
                 cf_table_fit_info *info, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
