/* cf_io.h — the public API of src/io: files in and out, and nothing else.
 *
 * The bottom of the data flow (files -> recording -> simulation/fit ->
 * results -> report): readers and writers of Motive CSV, generic CSV and
 * OBJ/PLY mesh sequences, the HDF5 recording, trajectory and results
 * layouts of docs/design.md §6, and the in-memory records they fill
 * (cf_recording, cf_results).  Nothing here simulates or fits: src/io
 * depends on cf_common.h only, and everything above it (src/recording, src/sim,
 * src/fit, src/synth, src/study, src/report, src/cli) may use it.
 *
 * Conventions (the same in every folder's header):
 * - Errors: functions return CF_OK (0) or a CF_E* code and fill the
 *   cf_error they are given (which may be NULL) with one line naming the
 *   file, the line or field, and what was expected.
 * - Ownership: structs a function fills (cf_recording, cf_results, ...) own
 *   their malloc'ed arrays and are released by their _free function;
 *   `const` pointer arguments are borrowed for the call only.
 * - Writes are atomic: output goes to "<path>.tmp.<pid>" and is renamed over
 *   <path> only when complete, so a failed or interrupted run never leaves a
 *   half-written file behind.
 */
#ifndef CF_IO_H
#define CF_IO_H

#include <stddef.h>
#include <stdio.h>

#include "cf_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ text inputs */
/* Small text inputs (INI configs, sidecar metadata, marker mapping files,
 * experiment lists) for every folder: read a whole file, rejecting binary
 * data, and run inih over it with line numbers. */

/* The whole of path as a NUL-terminated malloc'ed string; NULL with err set
 * (naming the file and, for binary data, the line) if it cannot be read, is
 * larger than 16 MB or is not text.  `what` completes "expected ..." in the
 * messages, e.g. "a small INI config". */
char *cf_text_slurp(const char *path, const char *what, cf_error *err);

/* Called for every key = value of an INI text, with its 1-based line;
 * returns 1 to go on, 0 (having filled err) to stop. */
typedef int (*cf_ini_key_fn)(void *user, const char *section, const char *key, const char *value, int line);
/* Parse the INI text (read from path) calling fn; CF_OK, or the handler's
 * error, or CF_EFORMAT "path:LINE: malformed line ..." for lines inih rejects. */
int cf_ini_parse_text(const char *path, const char *text, cf_ini_key_fn fn, void *user, cf_error *err);

/* A whole finite number (trailing blanks allowed); 0 if s is not one. */
int cf_text_double(const char *s, double *out);
/* Exactly n comma-separated finite numbers into out[n]; 0 if s is not that
 * (out may then be partly written). */
int cf_text_doubles(const char *s, int n, double *out);

/* ------------------------------------------------------------ HDF5 output */
/* A simulated trajectory: positions [T][n][3] at times [T] of a mesh with
 * n_nodes nodes and n_faces faces of nv (3 or 4) nodes.  Plain arrays, so
 * that this writer needs nothing of the simulator (src/study builds one
 * from a cf_mesh and cf_params: cf_trajectory_params).  Every pointer is
 * borrowed (input) and must stay valid during the call. */
typedef struct {
  int n_nodes, n_faces, nv;
  const double *rest;        /* [n*3] the mesh's rest positions */
  const int *faces;          /* [F*nv] 0-based node indices */
  int n_frames;
  const double *time;        /* [T] */
  const double *positions;   /* [T*n*3] */
  const double *violation;   /* [T] max relative constraint violation (may be NULL) */
  const int *iterations;     /* [T] projection iterations (may be NULL) */
  int n_params;              /* parameters written as root attributes, in this order */
  const char *const *param_names;
  const double *param_values;
  const char *config_text;   /* may be NULL */
  const char *scenario;      /* may be NULL */
  int n_sens;                /* sensitivities (0: none), written as /nodes/sensitivity/NAME [T][n][3] */
  const char *const *sens_names;
  const double *sens;        /* [n_sens][T*n*3]: dx/dNAME at every frame */
} cf_trajectory;

/* Write /time, /nodes/position (and /nodes/sensitivity/), /mesh/{rest,faces}, /diagnostics/ and root
 * attributes (clothfit_format, tool version, git revision, every parameter,
 * the config text).  Atomic. */
int cf_h5_write_trajectory(const char *path, const cf_trajectory *tr, cf_error *err);


/* ------------------------------------------------- motion-capture recordings */
/* A recording in memory (docs/design.md §6): marker positions over time,
 * SI units, z up.  Everything malloc'ed; cf_recording_free releases it. */
typedef struct {
  char *key, *value;
} cf_kv;

typedef struct {           /* /meta of the HDF5 file; "" / NaN = unknown */
  char material[64], size[32], motion[64], speed[64], repetition[64], notes[256];
  double width_m, height_m, density; /* m, m, kg/m^2 */
  /* The table the cloth is laid on (docs/design.md §6 /table, attrs
   * height and extent): table[0] the height of its top face (z, m),
   * table[1..4] the face's extent x_min, x_max, y_min, y_max (m, in the
   * recording's z-up frame); table[0] NaN: no table. */
  double table[5];
  /* The table fitted to the first frame's points of a cloud recording
   * (cf_table_fit; /table attrs fitted, fit_points, fit_rms_m): 1, the
   * points it rests on and their rms about its plane; 0: given (or none). */
  int table_fitted;
  long table_fit_points;
  double table_fit_rms_m;
} cf_rec_meta;
/* 1 when the five values describe a table: finite, x_min < x_max, y_min < y_max. */
int cf_rec_table_valid(const double table[5]);
/* "x_min, x_max, y_min, y_max" into ext[4] (output); 1 if it is four
 * numbers with x_min < x_max and y_min < y_max. */
int cf_rec_table_extent_parse(const char *s, double ext[4]);

/* A depth-camera mesh sequence (docs/design.md §6 /mesh): node positions
 * on the recording's time axis and one fixed connectivity.  n_nodes == 0:
 * none. */
#define CF_MESH_HELD_MAX 16
typedef struct {
  int n_nodes, n_faces, nv; /* nv = 3 (triangles) or 4 (quads) */
  double *nodes;            /* [T*N*3] m, z up; resampled with the markers;
                               NaN = a frame the camera dropped (below) */
  int *faces;               /* [F*nv] 0-based node indices */
  /* The nodes the hanger holds (/mesh/held): node indices as in the files,
   * 0-based; the simulation drives them.  0: none known (a mesh that is
   * not a structured grid, ingested without --held). */
  int n_held, held[CF_MESH_HELD_MAX];
  /* Frames the camera dropped (cf_recording_resample): a source interval
   * longer than drop_limit_s (CF_MESH_DROP_FACTOR x the median interval)
   * leaves the resampled frames inside it missing (NaN), except the held
   * nodes, interpolated across it when it is at most max_gap_s long
   * (longer: an error).  dropped_frames counts the frames left missing. */
  double max_gap_s, drop_limit_s;
  int dropped_frames;
} cf_rec_mesh;
#define CF_MESH_DROP_FACTOR 2.5

/* A mesh whose faces are the cells of a rows x cols grid: quads, or quads
 * each cut in two triangles (either diagonal).  node[r*cols + c] is the
 * mesh node at cell (r, c): row 0 is the side of the grid highest (mean z)
 * in frame 0, column 0 the end of that row with the smaller x (or y, when
 * the row runs more along y), as marker lattices are ordered. */
typedef struct {
  int rows, cols;
  int *node; /* [rows*cols] */
} cf_rec_grid;
/* Find m's grid from its faces alone (meshgrid.c; frame 0's nodes orient
 * it).  CF_EFORMAT with a short reason ("the edge 3-7 is in 3 faces", "the
 * faces do not join as the cells of a 9x9 grid" ...) when it is not one. */
int cf_rec_mesh_grid(const cf_rec_mesh *m, cf_rec_grid *g, cf_error *err);
void cf_rec_grid_free(cf_rec_grid *g);
/* The two corners of g highest in frame 0 (mesh node indices, in lattice
 * order): the nodes a hanger holds when none are given. */
void cf_rec_grid_top_corners(const cf_rec_grid *g, const cf_rec_mesh *m, int held[2]);

/* Depth-camera point clouds (docs/design.md §6 /cloud): every frame's
 * points, any number a frame, no correspondence between frames, on the
 * recording's native time axis (clouds are never resampled).
 * n_points == 0 and offset == NULL: none. */
typedef struct {
  long n_points;   /* P, all frames together */
  double *points;  /* [P*3] m, z up */
  long *offset;    /* [T+1]: frame t's points are offset[t] .. offset[t+1] - 1 */
  int grid[2];     /* rows x cols of the lattice a fit simulates the cloth on (each
                      cell split by the fit's --split; 0 x 0: the fitter's default) */
} cf_rec_cloud;

/* The grippers of a cloud recording (/held): their track, from a robot log
 * or markers, on its own times; the point of the sheet each holds; when
 * each holds it; how the cloth starts.  n == 0: none.
 * The point (u, v) in [0, 1]^2 is on the flat sheet: u across from its
 * left edge (0) to its right (1), v down from its top (0) to its bottom
 * (1); top-left (0, 0), top-right (1, 0), bottom-left (0, 1), bottom-right
 * (1, 1).  The fitter holds the mesh node nearest to it. */
#define CF_HELD_MAX 16
enum { CF_CLOTH_HANGING = 0, CF_CLOTH_FLAT_ON_TABLE = 1 };
typedef struct {
  int n;           /* samples */
  int n_grip;      /* grippers, 1..CF_HELD_MAX (2 in files written before) */
  double *time;    /* [n] s on the recording's time axis (source time - time_offset) */
  double *track;   /* [n*n_grip*3] m, z up: sample-major, gripper 1 first */
  /* The points held; n_point 0: the default, top-left and top-right for two
   * grippers (the hanger of thesis §4.1), none for other counts. */
  int n_point;
  double point[CF_HELD_MAX][2];
  /* The time each gripper grasps and releases its point, s on /time's
   * axis, closed (-inf, inf: from the start, to the end); outside it the
   * point is free.  n_grasp 0: every gripper holds throughout. */
  int n_grasp;
  double grasp[CF_HELD_MAX][2];
  int start;       /* CF_CLOTH_*: how the cloth is at the first frame */
} cf_rec_held;
/* Gripper g's point (u, v) into uv[2]: the given one, else the default;
 * 0 when it has none (no default for n_grip != 2). */
int cf_rec_held_point(const cf_rec_held *h, int g, double uv[2]);
/* 1 when gripper g holds at time t (s on /time's axis; the window's ends
 * count, to 1e-9 s). */
int cf_rec_held_holds(const cf_rec_held *h, int g, double t);
/* 1 when h is the two-corner hanger of files written before: two grippers
 * at top-left and top-right, holding throughout, the cloth hanging. */
int cf_rec_held_is_hanger(const cf_rec_held *h);
/* The points "P,P,..." (P: top-left, top-right, bottom-left, bottom-right
 * or U:V with U, V in [0, 1]) into h->point, h->n_point.  The grasp windows
 * "A:B,A:B,..." (A or B empty: from the start, to the end; on the track's
 * clock, shifted by -time_offset onto /time's axis) into h->grasp,
 * h->n_grasp.  The start "hanging" or "flat-on-table" into h->start.
 * CF_EINVAL naming what (the option or meta key) and the value otherwise. */
int cf_rec_held_points_parse(const char *s, const char *what, cf_rec_held *h, cf_error *err);
int cf_rec_held_grasp_parse(const char *s, const char *what, double time_offset, cf_rec_held *h, cf_error *err);
int cf_rec_held_start_parse(const char *s, const char *what, cf_rec_held *h, cf_error *err);
const char *cf_rec_held_start_name(int start);
/* Gripper g in words into buf: "bottom-right (1:1) from 0.5 s", "0.5:0
 * (0.5:0) throughout" ... */
void cf_rec_held_describe(const cf_rec_held *h, int g, char *buf, size_t size);
/* The grippers' points and windows against their count and the start
 * (source names the track in messages): as many points as grippers (or
 * the default), as many windows, the hanging start's top-left and
 * top-right held at the first frame (t = 0).  CF_EINVAL with one line. */
int cf_rec_held_check(const cf_rec_held *h, const char *source, cf_error *err);

/* How the data rows of a source export compare with its header
 * (docs/design.md §6 /quality attributes frames_expected, frames_found,
 * first_frame_number, frame_jumps, edited_export).  Researchers cut takes
 * to the part they need; such exports load, and this records that they
 * were cut. */
typedef struct {
  int known;               /* 1: the reader checked (Motive CSV); 0: nothing recorded */
  int frames_expected;     /* the metadata's "Total Exported Frames", -1 if absent */
  int frames_found;        /* data rows read */
  int first_frame_number;  /* Frame column of the first data row (0 in a whole export) */
  int frame_jumps;         /* rows whose Frame number is not the previous one + 1 */
  int edited;              /* frames_found != frames_expected (when given), first != 0 or jumps */
} cf_rec_export;

typedef struct {
  int n_frames, n_markers;
  double *time;           /* [T] s, starts at 0, strictly increasing */
  char **names;           /* [K] marker names, unique */
  double *pos;            /* [T*K*3] m, z up; NaN = missing */
  double dt;              /* the uniform step (s); for native frames the median step */
  int uniform;            /* 1 if resampled to a uniform dt */
  double time_offset;     /* source time of frame 0 (s) */
  char up;                /* up axis of the source: 'y' (mapped to z) or 'z' */
  double unit_scale;      /* source length unit -> m */
  char source_kind[32];   /* "motive" ... */
  char source_file[1024];
  char source_sha256[65]; /* hex, "" if unknown */
  char created[32];       /* ISO 8601 UTC, set when written */
  int n_info;             /* key/value pairs of the source header */
  cf_kv *info;
  int n_dropped;          /* markers dropped because they were never seen */
  char **dropped;
  cf_rec_meta meta;
  struct cf_marker_proc *proc; /* marker processing (cf_markers_process), NULL if none */
  cf_rec_mesh mesh;       /* mesh sequences ("meshes"): nodes + faces; no markers */
  cf_rec_cloud cloud;     /* point clouds ("clouds"): native frames; no markers */
  cf_rec_held held;       /* the held corners' track of a cloud recording */
  cf_rec_export exported; /* the source export's frames against its header */
} cf_recording;

/* Per-marker data quality of a recording (docs/design.md §6 /quality). */
typedef struct {
  double missing_fraction; /* frames with the marker missing / frames */
  double longest_gap_s;    /* longest run of consecutive missing frames, frames x dt */
  int longest_gap_frames;
  int filled;              /* samples filled by interpolation (0: cloth gaps stay NaN) */
} cf_marker_quality;

void cf_recording_init(cf_recording *r);
void cf_recording_free(cf_recording *r);
/* One line (no newline) into buf saying how an edited export differs from
 * its header, naming file: "FILE: edited export: 200 data frames, but the
 * metadata row says Total Exported Frames 250; first frame number 20, not
 * 0".  Returns 0 (buf "") if x is unknown or not edited. */
int cf_rec_export_describe(const cf_rec_export *x, const char *file, char *buf, size_t size);
/* Marker k's quality over the whole recording. */
cf_marker_quality cf_recording_quality(const cf_recording *r, int k);
/* Resample r in place onto t_i = i dt (from its first frame), by linear
 * interpolation between the two bracketing samples; a marker missing at
 * either of them stays missing (NaN) — gaps are never filled.  Mesh nodes
 * likewise, but frames the camera dropped stay missing (cf_rec_mesh). */
int cf_recording_resample(cf_recording *r, double dt, cf_error *err);
/* Hex SHA-256 of a file into hex[65]; CF_EINVAL if built without nettle. */
int cf_sha256_file(const char *path, char hex[65], cf_error *err);
/* The same of the n files' bytes one after the other. */
int cf_sha256_files(const char *const *paths, int n, char hex[65], cf_error *err);

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

/* ------------------------------------------------ the HDF5 recording */
/* The HDF5 recording layout of docs/design.md §6 (/, /meta, /time,
 * /markers, /quality, /source).  Writing is atomic and fills r->created. */
int cf_recording_write_h5(const char *path, cf_recording *r, cf_error *err);
int cf_recording_read_h5(const char *path, cf_recording *r, cf_error *err);

/* ----------------------------------------------------- atomic writes */
/* Temporary name for atomic writes: "<path>.tmp.<pid>" into buf. */
void cf_io_tmpname(const char *path, char *buf, size_t size);
/* Create the folders leading to path (like mkdir -p of its dirname). */
int cf_io_ensure_parent(const char *path, cf_error *err);
/* Rename tmp over path (or remove tmp on failure when ok == 0). */
int cf_io_commit(const char *tmp, const char *path, int ok, cf_error *err);

/* ------------------------------------------ marker lattice of a recording */
/* What the marker processing of src/recording (cf_markers_process,
 * docs/design.md §6) did and found: the lattice cells, weights, controlled
 * markers, stick, trimming, merges and ghosts.  It is part of the
 * recording (r->proc) and of its HDF5 file (/markers/lattice,
 * /markers/weight, /quality ...), so the record lives here; the
 * processing itself lives in src/recording. */
typedef struct cf_marker_proc cf_marker_proc;

/* The lattice as fitted on the first complete frame. */
typedef struct {
  char method[8];                  /* "pca" or "map" */
  double first_time;               /* source time of that frame (s) */
  double angle_deg;                /* rotation of the rows from 'across' */
  double row_spacing, col_spacing; /* m: median vertical / horizontal neighbour distance */
  double spacing_dev;              /* largest |distance / median - 1| of a neighbour pair */
  double plane_rms;                /* m: rms distance of the markers to the fitted plane */
  double normal[3], up[3], across[3];
} cf_lattice_fit;

/* What cf_markers_process did and found (r->proc; also in the HDF5 file). */
struct cf_marker_proc {
  int rows, cols;              /* 0 x 0: no lattice */
  int *cell;                   /* [K*2] (row, col); -1, -1 off the lattice */
  double *weight;              /* [K] lattice weights (0 off the lattice); NULL without lattice */
  int n_controlled, *controlled; /* marker indices */
  int stick[2];                /* marker indices of the stick's endpoints, -1 = none */
  double stick_radius;         /* m */
  int *filled;                 /* [K] samples filled by interpolation */
  double max_gap;              /* s: the limit applied */
  int trim_start_frames, trim_end_frames; /* source frames dropped */
  double trim_start_s, trim_end_s;
  int n_merged, n_ghosts, n_removed;
  char **merged;               /* "TARGET <- FRAGMENT (how)", one a join */
  char **ghosts;               /* tracks dropped as ghosts */
  char **removed;              /* markers dropped by the mapping file */
  cf_lattice_fit fit;
};

/* A zeroed record for n_markers markers (cells -1, stick -1); NULL when out
 * of memory.  cf_marker_proc_free(NULL) does nothing. */
cf_marker_proc *cf_marker_proc_new(int n_markers);
void cf_marker_proc_free(cf_marker_proc *p);
/* Marker index of name in r, or -1. */
int cf_recording_marker_index(const cf_recording *r, const char *name);

/* A2 (0.420 x 0.594 m), A3 (0.297 x 0.420 m) or WxH in metres into m */
int cf_parse_size(const char *s, cf_rec_meta *m);
/* mm | cm | m: the scale to metres */
int cf_parse_units(const char *s, double *scale);

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


/* --------------------------------------------- results files (results*.c) */
/* What sweeps, fits, sensitivity maps and regressions produced
 * (docs/design.md §6), in memory and in HDF5 (layout in results_h5.c).  A
 * results file is rewritten whole and atomically: commands with -o read the
 * existing file (if any), replace the parts they computed and write it back,
 * so `sweep`, `fit`, `sensitivity` and `regress` can fill one file. */
typedef struct {           /* the model settings a part was computed with */
  double kappa, beta;      /* bending stiffness and damping held fixed */
  double tol;              /* relative constraint tolerance of the projection */
  int max_iter;            /* projection iterations per step before a simulation fails */
  double mu;               /* friction on the recording's table held fixed (NaN: the
                              recording has no table; files written before: NaN) */
  char cloth[32];          /* the cloth model ("inextensible"; files written before: that) */
  double k_stretch, k_shear, k_bend; /* its stiffnesses (N/m; NaN: not the model's); a
                              fit's: at its optimum, fitted or held (cf_res_fit.stiffness) */
  char rest[16];           /* the rest metric: "first-frame" (files written before: that),
                              "flat" or "size" (cf_fit_target.rest) */
  int split;               /* the mesh: lattice cells split split x split (cf_fit_target.split;
                              files written before: 2), or split down and split_cols
                              across when split_cols is set */
  int substeps;            /* simulation steps per recorded frame (files written before: 1) */
  char start[8];           /* the start state: "rest" (files written before: that) or "moving" */
  int split_cols;          /* the cells' split across when it differs from split's (a 9 x 9
                              mesh split 1 down, 2 across: 9 x 17 nodes); 0: split's, a
                              uniform mesh (files written before: that) */
} cf_res_model;
/* m's mesh as its split: "N" (uniform) or "RxC" (R down, C across) into
 * buf; returns buf.  The one way tables and messages name a mesh. */
const char *cf_res_model_split_text(const cf_res_model *m, char *buf, size_t size);

typedef struct {           /* how sure a fitted (delta, alpha) is (src/fit confidence.c) */
  int done;                /* 1: computed; 0: not (files written before, or not asked) */
  double delta[2], alpha[2]; /* 95 % intervals [lo, hi] (NaN: none) */
  int identifiable;        /* 1 yes, 0 no (why), -1 unknown (a stencil simulation failed) */
  char why[200];
  double kappa_shift[2];   /* the fit's move refitted with the held kappa tripled,
                              fractions of delta and alpha (NaN: not checked) */
  double beta_shift[2];    /* the same with the held beta = kappa x the window's
                              length (NaN: not checked) */
  double beta_checked;     /* that held beta (NaN: not checked; files written before) */
  double rest_shift[2];    /* the same with the other rest metric (NaN: not checked;
                              files written before) */
  double mesh_shift[2];    /* the same on the mesh one split finer (NaN: not checked;
                              files written before) */
  int kappa_fitted, beta_fitted; /* 1: fitted with delta and alpha, so its check is
                              skipped (kappa_shift / beta_shift NaN); 0: held (files
                              written before) */
  double sys[2];           /* the systematic half-widths of delta and alpha in the
                              intervals (the shifts above x the fit, in quadrature;
                              NaN: files written before, whose intervals are noise only) */
  /* Does the model, not the noise, set the error (docs/confidence.md item
   * 10)?  The recorded cloth stretches or shears (cf_fit_stretch): its
   * markers' median largest excess over their flat-sheet distances, lattice
   * edges and cell diagonals (NaN: not checked, no measured size); then
   * model_limited 1, identifiable 0 with why saying so, and the other cloth
   * models fitted (cf_fit_compare): those that test below the fit and
   * within 5 % of the best, best first (better_model, ", "-separated; ""
   * none), and the best testing error (cm). */
  double stretch_edges, stretch_diagonals;
  int model_limited;       /* 1 yes, 0 no (or not checked) */
  char better_model[64];
  double better_e_test;
} cf_res_conf;

typedef struct {           /* a grid sweep of one recording */
  int nm, nd, na;          /* nm: values of mu swept (sweep --mu-grid), 0: none */
  double *mu;              /* [nm] the mu axis (NULL when nm = 0: every point at model.mu) */
  double *delta, *alpha;   /* [nd], [na] axes */
  double *e, *s;           /* [cf_res_sweep_points] mean error / std (cm), index
                              (im*nd + id)*na + ia; pruned: lower bounds */
  int *status;             /* CF_OK or why the simulation failed */
  unsigned char *pruned;   /* 1: e is a lower bound (exact pruning) */
  char **reason;           /* [points] failure message, "" if ok */
  int best;                /* index of the best exact point, -1 if none */
  double t0_s, t1_s;       /* evaluation window (s); t1_s <= 0: to the end */
  double wall_s;
  int workers, prune;
  double prune_margin;     /* pruned only beyond this factor of the best (1: plain pruning) */
  cf_res_model model;      /* with a mu axis, model.mu is the best point's mu */
  cf_res_conf conf;        /* intervals around the best grid point (sweep --confidence) */
} cf_res_sweep;

typedef struct {           /* the refined optimum */
  char method[32];         /* "nelder-mead" */
  char start_kind[32];     /* "grid" | "apriori" | "given" | "centre" */
  int n_params;            /* parameters fitted: 2 (delta, alpha) */
  double start[3], x[3];   /* delta, alpha, mu (mu NaN: not fitted) */
  double f_start, f_best;  /* objective (training error, cm) at start and optimum */
  double train_t0_s, train_t1_s;             /* training window (s) */
  double e_train, s_train, e_test, s_test;   /* cm; test NaN if empty */
  double e_all, s_all;     /* whole recording */
  int evaluations, iterations, converged;
  int failed_evaluations;  /* evaluations whose simulation failed (infinite error) */
  char failure[256];       /* the first failed evaluation's message, "" if none */
  char starts_tried[64];   /* the starts tried, in order, blank-separated; the last is start_kind */
  char optimum_failure[256]; /* why the simulation of the whole recording at the optimum failed, "" if it did not */
  int n_path;
  double *path;            /* [n_path*4]: delta, alpha, mu, f after each iteration */
  cf_res_model model;      /* also of the series at the optimum */
  cf_res_conf conf;        /* intervals around x over the training window */
  /* fit --polish: "quadratic" (x is the minimum of a quadratic fitted to the
   * training error on a design around Nelder-Mead's optimum nm_x, when
   * polished = 1; else x = nm_x and polish_why says why) or "none" ("" in
   * older files: none) */
  char polish[16];
  int polished, polish_evaluations;
  double nm_x[3];          /* Nelder-Mead's optimum (mu NaN: not fitted) */
  double f_nm;             /* its training error (cm) */
  double polish_rms;       /* rms residual of the quadratic on its design (cm) */
  char polish_why[160];
  char stiffness[64];      /* the cloth model's stiffnesses fitted with delta and alpha
                              (blank-separated; "" for the inextensible model); their
                              values: model.k_* */
  /* fit --params ...,kappa,beta: 1 when the bending stiffness / the damping
   * on K was fitted (as its log10) with delta and alpha, its value at the
   * optimum model.kappa / model.beta, its start start_kappa / start_beta;
   * 0 (start NaN) when held at model's value (files written before) */
  int kappa_fitted, beta_fitted;
  double start_kappa, start_beta;
  /* Why the pipeline refitted with kappa and/or beta free (the held-value
   * check of the first fit flagged it: its why), "" when the fit is the
   * first (cf_pipeline_free_flagged) */
  char freed_why[192];
  /* Simulations the fit took: its search, polish and the optimum's
   * per-frame errors, the confidence stencil and checks, and those of a
   * first fit this refit replaced; not the grid's (sweep/).  0 in files
   * written before. */
  int simulations;
  /* Levenberg-Marquardt's (method "levenberg-marquardt"; the results file
   * does not store them): the tangent check at the start
   * (cf_nm_result.tangent_secant; NaN: not made), the simulations with
   * sensitivities among the evaluations, and why the fit fell back to
   * Nelder-Mead ("" when it did not). */
  double tangent_secant;
  int sens_evaluations;
  char fallback_why[200];
} cf_res_fit;

typedef struct {           /* per-frame errors at the optimum */
  int T;
  double dt, delta, alpha;
  double *e, *s, *d;       /* [T] cm, NaN where no marker is present */
  /* The markers behind them (for the report's snapshots and animation):
   * rows x cols lattice (K = rows*cols, row-major, row 0 on top), positions
   * [T*K*3] in m, z up; recorded NaN where missing, simulated NaN from the
   * frame where the simulation failed.  NULL (rows = cols = 0) in files
   * written before they were stored. */
  int rows, cols;
  double *recorded, *simulated;
  /* [T] contact rows (the cloth's nodes on the recording's table; nodes,
   * edges and triangles on its stick) in the working set at each frame,
   * NaN from a failed frame; NULL when the recording has no obstacle (and in
   * files written before contacts existed). */
  double *contacts;
} cf_res_series;

typedef struct {           /* sensitivity map (thesis Fig. 4.6) or 1-D scan (Fig. 4.20: mu) */
  char kind[16];           /* "map" | "delta" | "alpha" | "mu" */
  double at_delta, at_alpha; /* the point (kind "mu": at model.mu) */
  int nd, na, nm;          /* nm: kind "mu", the scanned values (nd = na = 1); else 0 */
  double *delta, *alpha;   /* [nd], [na] */
  double *mu;              /* [nm] or NULL */
  double *e, *s;           /* [max(nm, 1)*nd*na] cm */
  int *status;             /* CF_OK or why the simulation failed */
  char **reason;           /* [nd*na] failure message, "" if ok; NULL in files written without */
  cf_res_model model;
} cf_res_sens;

/* One cloth model of a comparison (`clothfit compare`, thesis Table 4.3):
 * its parameters fitted on the training window, its errors on the testing
 * window. */
typedef struct {
  char model[32];          /* "inextensible", "quasi-inextensible", "elastic", "mass-spring" */
  int status;              /* CF_OK, or why the fit or the simulation at the fit failed */
  char reason[256];
  double delta, alpha;
  double k_stretch, k_shear, k_bend; /* N/m (NaN: not a parameter of the model) */
  char fitted[64];         /* the parameters fitted, blank-separated */
  double e_train;          /* cm: the fit's training error */
  double e_test, s_test, d_max_test; /* cm: testing window, mean e and s, max d */
  double wall_s;           /* the simulation at the fit (to the testing window's end) */
  double iters_per_step;   /* its projection iterations per step (0: no constraints) */
  int evaluations, converged;
  double fit_wall_s;
} cf_res_compare_row;

/* How many parameters a model's fit moved (the words of r->fitted): a
 * model with more of them can follow more, so the comparison's tables show
 * it beside the errors (thesis Table 4.3 on equal terms). */
int cf_res_compare_fitted(const cf_res_compare_row *r);

#define CF_RES_COMPARE_MAX 4
typedef struct {
  int n;
  cf_res_compare_row row[CF_RES_COMPARE_MAX];
  double train_t0_s, train_t1_s, test_t0_s, test_t1_s;
  double start_delta, start_alpha;
  cf_res_model model;      /* the settings held (kappa is the bending of every
                              model but the mass-spring one) */
} cf_res_compare;

/* The fitted parameters rerun on other meshes (thesis §4.1.5, the close
 * look of `experiment wam`): one mesh, its error on the testing window. */
typedef struct {
  char mesh[24];           /* its nodes, "9x17" (rows x columns) */
  int split[2];            /* the recording's cells split split[0] down, split[1] across */
  int rows, cols;          /* its nodes */
  int status;              /* CF_OK, or why the simulation failed */
  char reason[256];
  double e_test, s_test;   /* cm: mean e_i (4.3) and s_i over the testing window (inf: failed) */
  int fit_reused;          /* 1: the fit's own mesh, whose testing error is the fit's (not
                              simulated again) */
} cf_res_remesh_row;
#define CF_RES_REMESH_MAX 4
typedef struct {
  int n;
  cf_res_remesh_row row[CF_RES_REMESH_MAX];
  double delta, alpha;     /* the fit's, held on every mesh */
  double test_t0_s, test_t1_s;
  cf_res_model model;      /* the fit's settings (each row's mesh in place of its split) */
} cf_res_remesh;

/* What the driven simulation changed of the recording (src/fit's
 * cf_drive_fix; docs/driving.md, docs/start.md): the start's residual
 * against the first frame's markers (mean and largest distance, m; the
 * marker of the largest), the held points' noise per coordinate (m), the
 * frames of their smoothing window (1: none) and its largest move (m), and
 * the frames whose corners were pulled onto the edge's reach, by at most
 * pull_max_m (at frame pull_frame).  NaN (window 0) where not known (files
 * written before). */
typedef struct {
  double start_mean_m, start_max_m;
  int start_marker;
  double noise_m, smooth_max_m;
  int window, pulled_frames, pull_frame;
  double pull_max_m;
} cf_res_drive;

typedef struct {
  char name[256];          /* the group name: recording file stem */
  char recording[1024];    /* the recording file */
  cf_rec_meta meta;
  double rho, S, V, dt, duration;
  int frames;
  double truth_delta, truth_alpha; /* ground truth of synthetic recordings, NaN if unknown */
  int has_sweep, has_fit, has_series, has_sens, has_compare, has_remesh;
  cf_res_drive drive;      /* attrs start_residual_mean_m .. held_pull_frame */
  cf_res_compare compare;
  cf_res_remesh remesh;
  cf_res_sweep sweep;
  cf_res_fit fit;
  cf_res_series series;
  cf_res_sens sens;
} cf_res_rec;
/* 1 when rec's fit fitted kappa or beta (fit --params, or the pipeline's
 * refit of a flagged fit): Table A.1 then shows both (report and CLI). */
int cf_res_kb_fitted(const cf_res_rec *rec);

typedef struct {
  int has;
  cf_formula f, f_start;   /* fitted coefficients, least-squares start (cf_common.h) */
  double R, R_start, E;    /* R* (4.7), R at the start, E* (cm) */
  int evaluations, iterations; /* evaluations of R simulated for every recording;
                            * Nelder-Mead's iterations, the model search's rounds */
  int simulations;         /* simulations of a recording in all (0: not stored) */
  char search[16];         /* "model" or "nelder-mead" (cf_regress_search_name) */
  int n_used;
  char **used;             /* the recordings (group names) */
  double *e_hat;           /* [n_used] each one's error (cm) with the fitted
                            * formula's parameters (the terms of R*), inf
                            * where its simulation failed; NULL: not stored
                            * (files written before it was) */
  cf_res_model model;      /* of the simulations of R */
} cf_res_regression;

typedef struct {
  char tool_version[64], git_revision[64], hostname[256];
  char start_time[32], end_time[32]; /* ISO 8601 UTC */
  char command[2048];      /* the command line */
  int workers;
  int ranks;               /* MPI ranks of the run (1 without mpirun) */
  char hosts[1024];        /* the hosts of the ranks, "name" or "a x2, b x2" */
  char shard[32];          /* "I/N" for a shard of a sweep (`sweep --shard`), "" otherwise */
  char task_key[24];       /* hex hash of what the sweep's results depend on (docs/design.md §9) */
  char *config_text;       /* the experiment config, NULL if none */
  char *history;           /* earlier runs that wrote this file, one a line */
} cf_res_provenance;

typedef struct {
  int n;
  cf_res_rec *recs;
  cf_res_regression reg;
  cf_res_provenance prov;
} cf_results;

/* ------------------------ results records: reading, writing, queries */
void cf_results_init(cf_results *r);
void cf_results_free(cf_results *r);
/* The record named name, added (zeroed, NaN descriptors) when missing and
 * create is set; NULL if absent (or out of memory).  Pointers into r->recs
 * stay valid until the next call that creates one. */
cf_res_rec *cf_results_rec(cf_results *r, const char *name, int create);
/* Free the arrays of rec (sweep, fit path, series, map); keeps its name. */
void cf_res_rec_clear(cf_res_rec *rec);
/* Free the arrays of one part and zero it. */
void cf_res_sweep_clear(cf_res_sweep *s);
void cf_res_sens_clear(cf_res_sens *m);
void cf_res_series_clear(cf_res_series *s);
/* The optimum of rec: the refined one if any, else the sweep's best point;
 * 0 if neither. */
int cf_res_optimum(const cf_res_rec *rec, double *delta, double *alpha, double *e, double *s);
/* The thesis' own results a study prints beside its fits (thesis.c; the report's tables and the commands' show them): Table
 * 4.2, the WAM shakes of §4.1 (delta, alpha and the mean error e_i (4.3)
 * over the testing window, cm) of material "paper", "light-cotton", "felt"
 * or "wool" (case-insensitive) at speed "slow" or "fast": 1 with out[3] =
 * delta, alpha, e; 0 (out NaN) for another. */
int cf_thesis_table_42(const char *material, const char *speed, double out[3]);
/* §4.1.5, the remeshing check: the fitted parameters of the WAM shake of
 * material "light-cotton" at speed "fast" (case-insensitive) rerun on
 * meshes of rows x cols nodes (9 x 9, the fitting mesh, 9 x 17, 17 x 9,
 * 17 x 17) and the mean error over the testing window (cm): 1 with *e, 0
 * (*e NaN) for another recording or mesh. */
int cf_thesis_remesh(const char *material, const char *speed, int rows, int cols, double *e);
/* The row of m on the mesh its fit was made on (fit_reused), else 0: what
 * the others are compared with. */
int cf_res_remesh_reference(const cf_res_remesh *m);
/* How a fit of a synthetic recording (rec->fit against rec->truth_*)
 * recovers the truth: "yes" (delta and alpha within the fraction tol of
 * it), "interval" (each within tol or the truth inside the fit's 95 %
 * interval, as for a parameter the recording determines only loosely),
 * "no", or "" (no fit or no truth). */
const char *cf_res_truth_check(const cf_res_rec *c, double tol);
/* The model settings of that optimum (the fit's, else the sweep's). */
const cf_res_model *cf_res_optimum_model(const cf_res_rec *rec);
/* Points of a sweep, max(nm, 1) * nd * na, and the parameters of point k
 * (mu: the mu axis' value, or model.mu without one; any pointer may be NULL). */
int cf_res_sweep_points(const cf_res_sweep *w);
/* The (delta, alpha) surface of w at its mu value im (im < 0: the best
 * point's) as a sweep without a mu axis: a shallow view into w's arrays
 * (do not clear it), model.mu that value.  w itself when it has no mu axis. */
cf_res_sweep cf_res_sweep_layer(const cf_res_sweep *w, int im);
/* The mu of rec's optimum: fitted, else held by the fit, else the sweep's
 * best point's; NaN when the recording has no table. */
double cf_res_optimum_mu(const cf_res_rec *rec);
void cf_res_sweep_at(const cf_res_sweep *w, int k, double *delta, double *alpha, double *mu);
/* With a mu axis, the model setting mu := the best point's (a sweep's
 * results say which mu its optimum has there; after a sweep and after a
 * merge).  Without one, or without a best point, nothing changes. */
void cf_res_sweep_mu_of_best(cf_res_sweep *w);
/* "delta D alpha A[ mu M]" of grid point k into buf (output, size bytes;
 * mu only with a mu axis); returns buf.  The one way messages name a
 * point (failure warnings, merge's log). */
const char *cf_res_sweep_point_text(const cf_res_sweep *w, int k, char *buf, size_t size);
/* Which edges of the sweep's grid the point index ((im*nd + id)*na + ia) lies on:
 * CF_EDGE_* bits, 0 if inside (or index < 0).  An axis of one point is not
 * swept and has no edge.  A grid optimum on an edge may be an optimum of
 * the grid only: the true minimum can lie beyond it. */
enum { CF_EDGE_DELTA_LO = 1, CF_EDGE_DELTA_HI = 2, CF_EDGE_ALPHA_LO = 4, CF_EDGE_ALPHA_HI = 8, CF_EDGE_MU_LO = 16,
       CF_EDGE_MU_HI = 32 };
unsigned cf_res_sweep_edges(const cf_res_sweep *w, int index);
/* The settings of parts of files written before the settings were
 * recorded: kappa = beta = 0, tol = 1e-3, max_iter = 50 (the defaults of
 * those versions; fixed here, whatever the defaults are today). */
cf_res_model cf_res_model_default(void);
int cf_res_model_equal(const cf_res_model *a, const cf_res_model *b);
void cf_res_regression_clear(cf_res_regression *g);
/* Provenance of this run: version, revision, host, start time, command. */
void cf_results_stamp(cf_results *r, int argc, char **argv, int workers, const char *config_text);

/* The current time as ISO 8601 UTC (YYYY-MM-DDThh:mm:ssZ). */
void cf_iso_time_now(char *buf, size_t size);
/* The root attribute clothfit_format of an HDF5 file ("recording-1",
 * "results-1", "trajectory-1"; "" if it has none) into buf, so that a
 * reader of several kinds can choose; CF_EIO if path cannot be opened as
 * an HDF5 file. */
int cf_h5_file_format(const char *path, char *buf, size_t size, cf_error *err);
/* Read a results file (CF_EIO if missing or unreadable, CF_EFORMAT if not
 * a results file). */
int cf_results_read(const char *path, cf_results *r, cf_error *err);
/* Read path into r if it exists, else leave r empty (freshly initialized). */
int cf_results_read_or_new(const char *path, cf_results *r, cf_error *err);
/* Write atomically (fills the end time). */
int cf_results_write(const char *path, cf_results *r, cf_error *err);

/* ------------------------------------------------------------ task journals */
/* Crash-safe progress of commands that run many tasks (docs/design.md §9):
 * each finished task is appended to a journal beside the results file as
 * soon as it completes, and a rerun of the same command skips the tasks
 * it finds there.  The journal carries a key, a hash of everything the
 * results depend on (tool version, input files, grid, model settings,
 * config): a journal of another key is refused, so a changed run never
 * reuses stale results.  Format and durability: journal.c. */
#include <stdint.h>

/* cf_hash_bytes (cf_common.h) over a NUL-terminated string and its
 * terminator. */
uint64_t cf_hash_str(uint64_t h, const char *s);

typedef struct cf_journal cf_journal;
/* Open the journal at path for the run identified by key, creating it if
 * missing (restart: discard any existing one).  Its records are read: a
 * torn last line (a crash during a write) is dropped, a damaged record
 * elsewhere is CF_EFORMAT naming the file, line and task; a journal of
 * another key is CF_EINVAL telling to use --restart.  NULL on error. */
cf_journal *cf_journal_open(const char *path, uint64_t key, int restart, cf_error *err);
/* The text of finished task id read at open, or NULL (borrowed; valid
 * until cf_journal_free).  Tasks appended since open are not looked up. */
const char *cf_journal_find(const cf_journal *j, uint64_t id);
int cf_journal_count(const cf_journal *j);  /* tasks read at open (a task recorded twice alike counts once) */
/* The caller took task id's record (it was what it expected): counted by
 * cf_journal_used, the tasks resumed. */
void cf_journal_mark_used(cf_journal *j, uint64_t id);
int cf_journal_used(const cf_journal *j);   /* tasks marked used since open */
int cf_journal_torn(const cf_journal *j);   /* 1 if a torn last line was dropped */
const char *cf_journal_path(const cf_journal *j);
/* Persist a finished task: one line "id text check" with one write(2) in
 * O_APPEND mode and fdatasync, so that forked workers sharing j append
 * whole lines.  text: one line (no newline). */
int cf_journal_append(cf_journal *j, uint64_t id, const char *text, cf_error *err);
/* Delete the file (after the results it protects are written). */
int cf_journal_remove(cf_journal *j, cf_error *err);
void cf_journal_free(cf_journal *j);

#ifdef __cplusplus
}
#endif
#endif
