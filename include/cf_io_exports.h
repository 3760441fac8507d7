/* cf_io_exports.h — the readers and writers of exports: Motive CSV, generic CSV, mesh sequences, point clouds.
 * Part of the API of cf_io.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_IO_EXPORTS_H
#define CF_IO_EXPORTS_H

#include <stddef.h>
#include <stdio.h>
#include "cf_common.h"
#include "cf_io_recording.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------- exports: readers and writers */
/* Motive (OptiTrack) CSV exports, format versions 1.21-1.25. */
typedef struct {
  char up;           /* 'y' (Motive's default: (x,y,z) = (x_M, -z_M, y_M)) or 'z' (identity) */
  int rigid_bodies;  /* also read rigid-body and rigid-body-marker positions */
  int allow_empty;   /* a file without markers gives an empty recording, not an error */
  int keep_unseen;   /* keep markers with no sample at all (all NaN) instead of dropping them */
  int strict;        /* refuse an export whose data rows differ in number from its metadata's
                        "Total Exported Frames" (else it loads: rec->exported records it) */
} cf_motive_opts;

void cf_motive_opts_default(cf_motive_opts *o);
/* Read a Motive CSV file into rec (native frames, times shifted to start at
 * 0, metres, z up).  Errors are CF_EIO (cannot read) or CF_EFORMAT, naming
 * the file, the line (1-based) and column, and what was expected.  A
 * trimmed or cut export (fewer or more data rows than "Total Exported
 * Frames", a first Frame number > 0, jumps in the Frame numbers) loads
 * and is described in rec->exported, unless o->strict refuses the first; a
 * row with fewer cells than the header is an error in every mode. */
int cf_motive_read(const char *path, const cf_motive_opts *o, cf_recording *rec, cf_error *err);
/* The same from memory; name is used in messages. */
int cf_motive_read_mem(const void *buf, size_t len, const char *name, const cf_motive_opts *o,
                       cf_recording *rec, cf_error *err);

/* Depth-camera mesh sequences: one OBJ or PLY file per frame, fixed
 * connectivity, irregular timestamps (thesis §4.1.1).  The times come from
 * times_file (lines "FILE TIME", in frame order, or one "TIME" a line for
 * the files in name order), else from the file names: the last number of
 * the stem is seconds ("frame_000123_1.234567.obj"), or with fps > 0 a
 * frame index (t = index / fps).  See meshseq.c for every rule. */
typedef struct {
  const char *times_file; /* NULL: times from the file names */
  double fps;             /* > 0: the names carry frame indices */
  double unit_scale;      /* source length unit -> m (mm 0.001, cm 0.01, m 1) */
  char up;                /* 'z' (default) or 'y': (x, y, z) = (x_s, -z_s, y_s) */
  int n_held;             /* the held nodes (0-based, as in the files); 0: the two */
  int held[CF_MESH_HELD_MAX]; /* highest corners of frame 0 when the mesh is a grid */
  double max_gap;         /* s: longest dropped interval the held nodes are
                             interpolated across (0.25, as markers' --max-gap) */
} cf_meshseq_opts;

void cf_meshseq_opts_default(cf_meshseq_opts *o);
/* The held nodes "I,J,..." (0-based, 1..CF_MESH_HELD_MAX; the --held option
 * and the meta key held) into o->held, o->n_held: 1, or 0 when malformed. */
int cf_meshseq_held_parse(const char *v, cf_meshseq_opts *o);
/* Read every .obj/.ply file of a folder, or those a glob pattern matches,
 * into rec (native frames, times from 0, metres, z up, rec->mesh filled
 * with its held nodes, no markers).  Errors (CF_EIO, CF_EFORMAT) name the
 * file, the line (or byte offset of binary data) and what was expected:
 * besides the parsers' own, frames whose vertices or faces differ, an edge
 * in more than two faces, a face of zero area; held nodes that are not on
 * the mesh are CF_EINVAL naming the source. */
int cf_meshseq_read(const char *dir_or_glob, const cf_meshseq_opts *o, cf_recording *rec, cf_error *err);
/* Depth-camera point clouds: one PLY (ascii or binary_little_endian,
 * element vertex x, y, z; other properties and elements, faces too, read
 * past) or XYZ text file (x y z a line, further numbers ignored, '#'
 * comments) per frame, any number of points a frame: every .ply/.xyz file
 * of a folder, or those a glob pattern matches, timed as cf_meshseq_read's
 * frames (o: times_file, fps, unit_scale, up).  held_csv is the grippers'
 * track, a CSV with the header "time,x1,y1,z1[,x2,y2,z2,...]" (the time
 * column may be named time, t or timestamp; time in
 * seconds on the frames' clock, strictly increasing; coordinates in the
 * frames' unit and axes) that must cover the frames' time span.  Fills rec
 * with native frames (times from 0, the first frame's source time in
 * time_offset), rec->cloud and rec->held; no markers.  Errors (CF_EIO,
 * CF_EFORMAT) name the file, the line (or byte offset) and what was
 * expected: among them an empty cloud, a NaN coordinate, repeated or
 * unordered times, a track that does not cover the frames.  See
 * cloudseq.c. */
int cf_cloudseq_read(const char *dir_or_glob, const char *held_csv, const cf_meshseq_opts *o, cf_recording *rec,
                     cf_error *err);
/* The held-track CSV alone from memory (name for messages; buf[len] must be
 * NUL): the header "time,x1,y1,z1[,x2,y2,z2,...]" (1..CF_HELD_MAX grippers,
 * their count from it; a column count not 1 + 3k is an error), one sample
 * a line; coordinates scaled by unit_scale and turned to z up as up says;
 * times as in the file. */
int cf_held_track_parse(const char *buf, size_t len, const char *name, double unit_scale, char up, cf_rec_held *h,
                        cf_error *err);
void cf_rec_held_free(cf_rec_held *h);
/* Writers of the frames those readers take (`clothfit synth`'s depth
 * camera, docs/design.md §11), to an open stream; -1 on a write error.
 * An OBJ of n nodes x [n*3] with "%.*f" coordinates and n_faces faces of nv
 * 0-based indices (written 1-based); a PLY of n points p [n*3], no faces,
 * binary little endian (float32) or ascii ("%.*f").  comment may be NULL. */
int cf_obj_write_stream(FILE *f, const char *comment, int n, const double *x, int nv, int n_faces, const int *faces,
                        int decimals);
int cf_ply_points_write_stream(FILE *f, const char *comment, int n, const double *p, int binary, int decimals);
/* A folder of frames written whole: cf_io_dir_begin creates the temporary
 * folder "<dir>.tmp.<pid>" (its name into tmp); cf_io_dir_commit renames
 * it over dir when ok, after removing an earlier dir only if every file in
 * it starts with prefix (else CF_EIO naming the file: a folder this
 * program did not write is never emptied), and removes tmp when not ok.
 * cf_io_dir_check makes that test alone, before anything is written. */
int cf_io_dir_begin(const char *dir, char *tmp, size_t size, cf_error *err);
int cf_io_dir_commit(const char *tmp, const char *dir, const char *prefix, int ok, cf_error *err);
int cf_io_dir_check(const char *dir, const char *prefix, cf_error *err);
/* Median of the T - 1 steps of t (0 if T < 2). */
double cf_median_step(const double *t, int T);

/* ------------------------------------------------------------ generic CSV */
/* A header row, then one row a frame: a time column and x, y, z columns per
 * marker, named by pattern ("{name}_{axis}": A_x, A_y, A_z; axis letters in
 * either case).  Blank cells are missing samples (a marker with any blank
 * coordinate is missing as a whole); times must increase.  Read with the
 * Motive reader's CSV machinery: same error messages (file, line, column,
 * what was expected), native frames, times from 0, metres, z up. */
typedef struct {
  const char *time_column; /* "time" (case-insensitive) */
  const char *pattern;     /* "{name}_{axis}" */
  double unit_scale;       /* source unit -> m (1) */
  char up;                 /* 'z' (default) or 'y' (as Motive: (x, y, z) = (x_s, -z_s, y_s)) */
} cf_csv_opts;

void cf_csv_opts_default(cf_csv_opts *o);
int cf_csv_read(const char *path, const cf_csv_opts *o, cf_recording *rec, cf_error *err);
int cf_csv_read_mem(const void *buf, size_t len, const char *name, const cf_csv_opts *o, cf_recording *rec,
                    cf_error *err);
/* Write r as a generic CSV (time, <name>_x, <name>_y, <name>_z; metres;
 * %.17g, so reading it back is exact; missing samples blank).  Atomic. */
int cf_csv_write(const char *path, const cf_recording *r, cf_error *err);


/* Motive 1.23 CSV writer (motive_write.c). */
typedef struct {
  double rate;              /* Hz in the header (0: 1/r->dt) */
  int decimals;             /* digits of the millimetre values (6, as Motive) */
  const char *take_name;    /* "clothfit" */
  const char *start_time;   /* "Capture Start Time" (NULL: a fixed placeholder) */
  char up;                  /* 'y' (Motive's frame, the inverse of the ingest rotation) or 'z' */
  const int *ids;           /* ID row per marker (NULL: 1..K) */
} cf_motive_write_opts;
void cf_motive_write_opts_default(cf_motive_write_opts *o);
/* r's markers (m, z up, NaN = blank) as a Motive CSV in millimetres.  Atomic. */
int cf_motive_write(const char *path, const cf_recording *r, const cf_motive_write_opts *o, cf_error *err);
/* The same to an open stream f (borrowed; for writers that commit several
 * files together); -1 on a write error. */
int cf_motive_write_stream(FILE *f, const cf_recording *r, const cf_motive_write_opts *o);


/* Free s[0..n-1] and s (NULL s allowed). */
void cf_strings_free(char **s, int n);

#ifdef __cplusplus
}
#endif
#endif
