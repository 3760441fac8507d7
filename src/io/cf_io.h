/* cf_io.h — the public API of src/io: files in and out.
 *
 * Everything here writes atomically: output goes to "<path>.tmp.<pid>" and
 * is renamed over <path> only when complete, so a failed or interrupted run
 * never leaves a half-written file behind.  Errors name the file, the line or
 * field, and what was expected.
 */
#ifndef CF_IO_H
#define CF_IO_H

#include <stddef.h>

#include "cf_common.h"
/* cf_fit_target etc. for the fitting inputs and results; the path through
 * top_inc also works in builds without fit_dep (the fuzz targets) */
#include "fit/cf_fit.h"
#include "cf_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- scenarios */
/* A simulation scenario read from an INI config file (see
 * experiments/shake_a2.ini for every key and its meaning). */
typedef struct {
  char name[128];
  /* cloth and mesh */
  double width, height;   /* m */
  char mesh_kind[32];     /* "quads" | "triangles" */
  int nx, ny;             /* nodes along width and height */
  double noise;           /* m, random perturbation of the initial nodes */
  unsigned long seed;
  char orientation[32];   /* "hanging" (plane xz, top edge at z = height) | "horizontal" */
  /* physics */
  cf_params params;
  double duration;        /* s */
  /* driving */
  char drive_nodes[64];   /* "top-corners" | "none" | "three-corners" | comma-separated node list */
  cf_drive drive;
  /* the whole config text, for provenance */
  char *text;
} cf_scenario;

/* Parse path into sc (defaults for missing keys); unknown sections/keys and
 * malformed values are errors naming file, line and key. */
int cf_scenario_load(const char *path, cf_scenario *sc, cf_error *err);
void cf_scenario_free(cf_scenario *sc);
/* Build the mesh and the list of kinematic nodes (*kin malloc'ed). */
int cf_scenario_mesh(const cf_scenario *sc, cf_mesh **mesh, int **kin, int *n_kin, cf_error *err);

/* ------------------------------------------------------------ HDF5 output */
/* A simulated trajectory: positions [T][n][3] at times [T]. */
typedef struct {
  const cf_mesh *mesh;
  int n_frames;
  const double *time;        /* [T] */
  const double *positions;   /* [T*n*3] */
  const double *violation;   /* [T] max relative constraint violation (may be NULL) */
  const int *iterations;     /* [T] projection iterations (may be NULL) */
  const cf_params *params;
  const char *config_text;   /* may be NULL */
  const char *scenario;      /* may be NULL */
} cf_trajectory;

/* Write /time, /nodes/position, /mesh/{rest,faces}, /diagnostics/ and root
 * attributes (clothfit_format, tool version, git revision, every parameter,
 * the config text).  Atomic. */
int cf_h5_write_trajectory(const char *path, const cf_trajectory *tr, cf_error *err);

/* ------------------------------------------------- motion-capture recordings */
/* A recording in memory (SPEC §6): marker positions over time, SI units,
 * z up.  Everything malloc'ed; cf_recording_free releases it. */
typedef struct {
  char *key, *value;
} cf_kv;

typedef struct {           /* /meta of the HDF5 file; "" / NaN = unknown */
  char material[64], size[32], motion[64], speed[64], repetition[64], notes[256];
  double width_m, height_m, density; /* m, m, kg/m^2 */
} cf_rec_meta;

/* A depth-camera mesh sequence (SPEC §6 /mesh): node positions on the
 * recording's time axis and one fixed connectivity.  n_nodes == 0: none. */
typedef struct {
  int n_nodes, n_faces, nv; /* nv = 3 (triangles) or 4 (quads) */
  double *nodes;            /* [T*N*3] m, z up; resampled with the markers */
  int *faces;               /* [F*nv] 0-based node indices */
} cf_rec_mesh;

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
} cf_recording;

/* Per-marker data quality of a recording (SPEC §6 /quality). */
typedef struct {
  double missing_fraction; /* frames with the marker missing / frames */
  double longest_gap_s;    /* longest run of consecutive missing frames, frames x dt */
  int longest_gap_frames;
  int filled;              /* samples filled by interpolation (0: cloth gaps stay NaN) */
} cf_marker_quality;

void cf_recording_init(cf_recording *r);
void cf_recording_free(cf_recording *r);
/* Marker k's quality over the whole recording. */
cf_marker_quality cf_recording_quality(const cf_recording *r, int k);
/* Resample r in place onto t_i = i dt (from its first frame), by linear
 * interpolation between the two bracketing samples; a marker missing at
 * either of them stays missing (NaN) — gaps are never filled. */
int cf_recording_resample(cf_recording *r, double dt, cf_error *err);
/* Hex SHA-256 of a file into hex[65]; CF_EINVAL if built without nettle. */
int cf_sha256_file(const char *path, char hex[65], cf_error *err);
/* The same of the n files' bytes one after the other. */
int cf_sha256_files(const char *const *paths, int n, char hex[65], cf_error *err);

/* Motive (OptiTrack) CSV exports, format versions 1.21-1.25. */
typedef struct {
  char up;           /* 'y' (Motive's default: (x,y,z) = (x_M, -z_M, y_M)) or 'z' (identity) */
  int rigid_bodies;  /* also read rigid-body and rigid-body-marker positions */
  int allow_empty;   /* a file without markers gives an empty recording, not an error */
  int keep_unseen;   /* keep markers with no sample at all (all NaN) instead of dropping them */
} cf_motive_opts;

void cf_motive_opts_default(cf_motive_opts *o);
/* Read a Motive CSV file into rec (native frames, times shifted to start at
 * 0, metres, z up).  Errors are CF_EIO (cannot read) or CF_EFORMAT, naming
 * the file, the line (1-based) and column, and what was expected. */
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
} cf_meshseq_opts;

void cf_meshseq_opts_default(cf_meshseq_opts *o);
/* Read every .obj/.ply file of a folder, or those a glob pattern matches,
 * into rec (native frames, times from 0, metres, z up, rec->mesh filled,
 * no markers).  Errors (CF_EIO, CF_EFORMAT) name the file, the line (or byte
 * offset of binary data) and what was expected. */
int cf_meshseq_read(const char *dir_or_glob, const cf_meshseq_opts *o, cf_recording *rec, cf_error *err);
/* Median of the T - 1 steps of t (0 if T < 2). */
double cf_median_step(const double *t, int T);

/* The HDF5 recording layout of SPEC §6 (/, /meta, /time, /markers, /quality,
 * /source).  Writing is atomic and fills r->created. */
int cf_recording_write_h5(const char *path, cf_recording *r, cf_error *err);
int cf_recording_read_h5(const char *path, cf_recording *r, cf_error *err);

/* Temporary name for atomic writes: "<path>.tmp.<pid>" into buf. */
void cf_io_tmpname(const char *path, char *buf, size_t size);
/* Create the folders leading to path (like mkdir -p of its dirname). */
int cf_io_ensure_parent(const char *path, cf_error *err);
/* Rename tmp over path (or remove tmp on failure when ok == 0). */
int cf_io_commit(const char *tmp, const char *path, int ok, cf_error *err);

/* ------------------------------------------------------ marker processing */
/* SPEC §6 "Marker processing" (thesis §4.2, Remarks 4.2.1, 4.2.3, 4.3.3):
 * from the labelled tracks of a motion-capture recording to the cloth's
 * marker lattice.  cf_markers_process runs, in this order:
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
 *      markers at frame 0 (cf_metric_lattice_weights: mean 1, a regular
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
typedef struct cf_marker_proc cf_marker_proc;

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
} cf_marker_opts;

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

void cf_marker_opts_default(cf_marker_opts *o);
/* Steps 1-7 above on r (native frames, as read); dt > 0 resamples, dt == 0
 * keeps the frames.  Fills r->proc.  Errors name the markers (and the map
 * file line, or the time) involved; r is then unusable (free it). */
int cf_markers_process(cf_recording *r, const cf_marker_opts *o, double dt, cf_error *err);
cf_marker_proc *cf_marker_proc_new(int n_markers);
void cf_marker_proc_free(cf_marker_proc *p);

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
/* A2 (0.420 x 0.594 m), A3 (0.297 x 0.420 m) or WxH in metres into m */
int cf_parse_size(const char *s, cf_rec_meta *m);
/* mm | cm | m: the scale to metres */
int cf_parse_units(const char *s, double *scale);
/* Sidecar metadata (--meta FILE): an INI file, keys (optionally under a
 * [meta] section) material, size, width_m, height_m, density, motion,
 * speed, repetition, notes, lattice, controlled, stick, into meta and mo.
 * Unknown keys and malformed values are errors naming file, line and key. */
int cf_meta_load(const char *path, cf_rec_meta *meta, cf_marker_opts *mo, cf_error *err);
/* The same for a file with other sections too (a ground-truth sidecar of
 * `synth`: [meta], [truth], [cells] ...): only the top and [meta] are read. */
int cf_meta_load_section(const char *path, cf_rec_meta *meta, cf_marker_opts *mo, cf_error *err);

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

/* ------------------------------------------------- synthetic recordings */
/* `clothfit synth` (SPEC §11): a cloth simulated on a mesh finer than the
 * fitting mesh (each lattice cell split refine x refine) with small kappa,
 * beta > 0, driven at its two top corners by a human-like motion (shake:
 * back and forth across the sheet's plane; twist: about +-30 degrees about
 * the vertical through the top edge's midpoint; slowly varying amplitude
 * and rate, seeded; speed scaled to a target average marker speed), the
 * marker lattice sampled at `rate` Hz, with Gaussian noise, occlusion gaps,
 * label fragments and ghost markers, written as a Motive 1.23 CSV with a
 * ground-truth sidecar.  Every key: datasets/aero-mini/synth-keys.ini. */
typedef struct {
  char material[64], size[32], motion[16], speed[16], repetition[16];
  double width, height;        /* m (from size) */
  int rows, cols;              /* marker lattice (A2 5x4, A3 4x3) */
  double density, delta, alpha, kappa, beta; /* kg/m^2 ...; NaN = from the tables */
  int refine;                  /* lattice cells split refine x refine (4) */
  double sim_dt, tol;          /* s (1/480), projection tolerance (1e-3) */
  int max_iter;
  double duration, rate;       /* s (15), Hz (120) */
  double target_speed;         /* m/s average marker speed; 0 = slow 0.09, fast 0.25 */
  double speed_tol;            /* relative: recalibrate the rate while further off (0.05) */
  double amplitude;            /* m, shake amplitude (0 = by speed: slow 0.05, fast 0.10) */
  double twist_angle;          /* degrees (30) */
  double modulation;           /* relative slow variation of amplitude and rate (0.25) */
  double ramp;                 /* s: the motion fades in over this time from rest (0.5) */
  double slack;                /* relative: the top corners are held this much closer than
                                  the width, the sheet bent about the vertical (0.01) */
  double preroll;              /* s: simulated before frame 0, the cloth settling (1) */
  double top_height;           /* m: height of the top edge (1.5) */
  unsigned long seed;
  double noise;                /* m: standard deviation per coordinate (1e-4) */
  double gap_rate;             /* occlusion gaps per marker per second (0.05) */
  double gap_mean, gap_max;    /* s: exponential length, capped (0.1, 0.5) */
  double corner_max_gap;       /* s: longest gap of a controlled corner (0.1) */
  double quiet;                /* s: no gaps this close to either end (0.5) */
  int fragments;               /* markers whose track is split under a new label (2) */
  double fragment_gap;         /* s: longest gap at a split (0.05) */
  int ghosts;                  /* unlabelled reflections away from the cloth (2) */
  int decimals;                /* of the millimetre values in the CSV (6, as Motive) */
  char *text;                  /* the config text (malloc'ed) */
} cf_synth_config;

/* One column group of the CSV: a labelled marker, a fragment or a ghost. */
typedef struct {
  char name[48];
  int id;                      /* the CSV's ID row */
  int cell;                    /* lattice cell r*cols + c; -1: a ghost */
  int first, last;             /* frames with samples: first..last (-1: none) */
  double *pos;                 /* [T*3] m, z up, NaN = blank */
} cf_synth_track;

typedef struct {
  int cell, first, n;          /* missing frames first .. first+n-1 of that marker */
} cf_synth_gap;

typedef struct {
  int n_frames, rows, cols;    /* K = rows*cols lattice markers, cell r*cols + c */
  int nx, ny;                  /* simulation mesh */
  double *time;                /* [T] i / rate */
  double *truth;               /* [T*K*3] noiseless marker positions (mesh nodes), m, z up */
  double *meas;                /* [T*K*3] with noise, NaN in the gaps */
  int controlled[2];           /* cells of the driven top corners */
  int n_tracks;
  cf_synth_track *tracks;      /* in CSV column order */
  int n_gaps;
  cf_synth_gap *gaps;
  double target_speed, achieved_speed; /* m/s, mean |velocity| of the markers */
  double rate_scale;           /* the calibrated scale of the motion's rate */
  int runs;                    /* fine simulations run (after a calibration on the 2x2 split) */
  long steps;
  double max_violation, wall_s;
} cf_synth_result;

/* Called during simulation with the fraction done of the current run. */
typedef void (*cf_synth_progress_fn)(void *user, int run, double fraction);

void cf_synth_config_default(cf_synth_config *c);
/* Read an INI config; every table default (density Table 4.1, delta and
 * alpha Tables A.1/A.2 by repetition I/II) filled.  Errors name file:line. */
int cf_synth_load(const char *path, cf_synth_config *c, cf_error *err);
void cf_synth_config_free(cf_synth_config *c);
/* Simulate (calibrating the rate to the target speed), sample and corrupt. */
int cf_synth_run(const cf_synth_config *c, cf_synth_result *r, cf_synth_progress_fn fn, void *user,
                 cf_error *err);
void cf_synth_result_free(cf_synth_result *r);
/* OUT.csv (Motive 1.23), OUT.truth.ini (ground truth, fragment map, gaps),
 * OUT.meta.ini (for `ingest --meta`) and OUT.map (a marker mapping file:
 * merges, cells, ghost drops); all or none, each atomically.  OUT = csv_path
 * without ".csv". */
int cf_synth_write(const char *csv_path, const cf_synth_config *c, const cf_synth_result *r, cf_error *err);

/* The pieces, for tests: the simulation mesh (node (i, j) = j*nx + i, row
 * ny-1 on top, hanging in the plane y = 0 centred on x = 0) with its two
 * kinematic top corners kin[2]; the node of lattice marker (r, c); the
 * corner motion with a rate scale, evaluated at t (the simulation starts
 * at rest at -preroll; the motion at t > 0) for n nodes at initial
 * positions x0 [n*3] into out [n*3]. */
cf_mesh *cf_synth_mesh(const cf_synth_config *c, int kin[2]);
int cf_synth_marker_node(const cf_synth_config *c, int r, int col);
/* The simulation's initial state x [n*3]: the flat sheet (the rest metric)
 * bent isometrically about the vertical into a circular arc whose chord is
 * (1 - slack) x width, bulging towards +y (the hands hold it slack). */
void cf_synth_initial_state(const cf_synth_config *c, const cf_mesh *m, double *x);
typedef struct {
  int twist;
  double amp, freq, ramp, mod;     /* m or rad, Hz, s, relative */
  double centre[3];                /* twist axis through this point */
  double nu[3][3], ph[3][3], w[3][3]; /* smooth random modulations: amplitude, rate, vertical */
} cf_synth_motion;
void cf_synth_motion_init(cf_synth_motion *m, const cf_synth_config *c, double rate_scale);
void cf_synth_motion_eval(const cf_synth_motion *m, double t, int n, const double *x0, double *out);
/* Density of a Table 4.1 material (kg/m^2), NaN if unknown. */
double cf_material_density(const char *material);

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

/* ------------------------------------------ fitting inputs (fit_input.c) */
/* The bridge from an HDF5 recording to src/fit (which never reads files,
 * cf_fit.h): the rows x cols lattice markers (first in marker order,
 * row-major, after marker processing) copied into one contiguous
 * [T][rows*cols][3] array, their lattice weights, the controlled markers,
 * rho from /meta density, dt from /time (must be uniform), the size measure
 * S = area / A3 area (NaN without width/height) and the speed measure V of
 * the lattice markers (cf_speed_measure).  It lives in src/io because it
 * needs the recording reader and is shared by every fitting command and by
 * reports; src/fit stays free of I/O. */
typedef struct {
  cf_fit_target tg;        /* points into pos, weight, ctrl below */
  double *pos, *weight;    /* [T*K*3], [K] (malloc'ed) */
  int *ctrl;               /* [tg.n_ctrl] lattice indices, NULL: top corners */
  double S, V;             /* size and speed measures (NaN if unknown) */
  double duration;         /* s: (T - 1) dt */
  cf_rec_meta meta;
  char path[1024];         /* the recording file */
  char name[256];          /* its stem: results groups are named after it */
  /* The model settings this recording is simulated with, carried here so
   * that every step of a command (sweep, refinement, evaluation,
   * regression) uses the same ones and the results can record them.  base:
   * the simulation settings (tol, max_iter, ...; rho and dt come from the
   * target, delta .. kappa from the fit point); fixed: the parameters held
   * while delta and alpha are fitted (beta, kappa).  The loader sets
   * cf_params_default() and zeros; the commands' --kappa, --beta, --tol
   * change them (cf_cli_model_apply). */
  cf_params base;
  cf_fit_point fixed;
} cf_fit_input;

/* Read path and build the target.  One-line errors naming the file: not a
 * recording, no lattice ("ingest with --lattice RxC"), no density, native
 * (non-uniform) time, lattice markers not first, controlled markers off the
 * lattice, fewer than 2 frames. */
int cf_fit_input_load(const char *path, cf_fit_input *in, cf_error *err);
/* The same from a recording in memory (path names it in messages). */
int cf_fit_input_from_recording(const cf_recording *r, const char *path, cf_fit_input *in, cf_error *err);
void cf_fit_input_free(cf_fit_input *in);
/* The file name without folders and its last extension ("a/b/rec.h5" -> "rec"). */
void cf_path_stem(const char *path, char *buf, size_t size);

/* A study's file lists (study.c).  An experiment list is an INI file
 *   [recordings]
 *   files = a.h5, b.h5      ; comma- or blank-separated, relative to the INI;
 *                           ; the key may repeat or continue on indented lines
 * *files (malloc'ed array of malloc'ed paths) and *text (the whole file, for
 * provenance; may be NULL).  Unknown sections or keys are errors. */
int cf_experiment_load(const char *path, char ***files, int *n, char **text, cf_error *err);
void cf_strings_free(char **s, int n);
/* delta and alpha of the [truth] section of a ground-truth sidecar (synth's
 * NAME.truth.ini); other sections are ignored; NaN when absent. */
int cf_truth_load(const char *path, double *delta, double *alpha, cf_error *err);

/* --------------------------------------------- results files (results*.c) */
/* What sweeps, fits, sensitivity maps and regressions produced (SPEC §6
 * "Results file"), in memory and in HDF5 (layout in results_h5.c).  A
 * results file is rewritten whole and atomically: commands with -o read the
 * existing file (if any), replace the parts they computed and write it back,
 * so `sweep`, `fit`, `sensitivity` and `regress` can fill one file. */
typedef struct {           /* the model settings a part was computed with */
  double kappa, beta;      /* bending stiffness and damping held fixed */
  double tol;              /* relative constraint tolerance of the projection */
} cf_res_model;

typedef struct {           /* a grid sweep of one recording */
  int nd, na;
  double *delta, *alpha;   /* [nd], [na] axes */
  double *e, *s;           /* [nd*na] mean error / std (cm), index id*na + ia; pruned: lower bounds */
  int *status;             /* CF_OK or why the simulation failed */
  unsigned char *pruned;   /* 1: e is a lower bound (exact pruning) */
  char **reason;           /* [nd*na] failure message, "" if ok */
  int best;                /* index of the best exact point, -1 if none */
  double t0_s, t1_s;       /* evaluation window (s); t1_s <= 0: to the end */
  double wall_s;
  int workers, prune;
  cf_res_model model;
} cf_res_sweep;

typedef struct {           /* the refined optimum */
  char method[32];         /* "nelder-mead" */
  char start_kind[32];     /* "grid" | "apriori" | "given" */
  int n_params;            /* parameters fitted: 2 (delta, alpha) */
  double start[3], x[3];   /* delta, alpha, mu (mu NaN: not fitted) */
  double f_start, f_best;  /* objective (training error, cm) at start and optimum */
  double train_t0_s, train_t1_s;             /* training window (s) */
  double e_train, s_train, e_test, s_test;   /* cm; test NaN if empty */
  double e_all, s_all;     /* whole recording */
  int evaluations, iterations, converged;
  int n_path;
  double *path;            /* [n_path*4]: delta, alpha, mu, f after each iteration */
  cf_res_model model;      /* also of the series at the optimum */
} cf_res_fit;

typedef struct {           /* per-frame errors at the optimum */
  int T;
  double dt, delta, alpha;
  double *e, *s, *d;       /* [T] cm, NaN where no marker is present */
} cf_res_series;

typedef struct {           /* sensitivity map (thesis Fig. 4.6) or 1-D scan */
  char kind[16];           /* "map" | "delta" | "alpha" */
  double at_delta, at_alpha;
  int nd, na;
  double *delta, *alpha;   /* [nd], [na] */
  double *e, *s;           /* [nd*na] cm */
  int *status;
  cf_res_model model;
} cf_res_sens;

typedef struct {
  char name[256];          /* the group name: recording file stem */
  char recording[1024];    /* the recording file */
  cf_rec_meta meta;
  double rho, S, V, dt, duration;
  int frames;
  double truth_delta, truth_alpha; /* ground truth of synthetic recordings, NaN if unknown */
  int has_sweep, has_fit, has_series, has_sens;
  cf_res_sweep sweep;
  cf_res_fit fit;
  cf_res_series series;
  cf_res_sens sens;
} cf_res_rec;

typedef struct {
  int has;
  cf_formula f, f_start;   /* fitted coefficients, least-squares start */
  double R, R_start, E;    /* R* (4.7), R at the start, E* (cm) */
  int evaluations, iterations;
  int n_used;
  char **used;             /* the recordings (group names) */
  cf_res_model model;      /* of the simulations of R */
} cf_res_regression;

typedef struct {
  char tool_version[64], git_revision[64], hostname[256];
  char start_time[32], end_time[32]; /* ISO 8601 UTC */
  char command[2048];      /* the command line */
  int workers;
  char *config_text;       /* the experiment config, NULL if none */
  char *history;           /* earlier runs that wrote this file, one a line */
} cf_res_provenance;

typedef struct {
  int n;
  cf_res_rec *recs;
  cf_res_regression reg;
  cf_res_provenance prov;
} cf_results;

void cf_results_init(cf_results *r);
void cf_results_free(cf_results *r);
/* The record named name, added (zeroed, NaN descriptors) when missing and
 * create is set; NULL if absent (or out of memory).  Pointers into r->recs
 * stay valid until the next call that creates one. */
cf_res_rec *cf_results_rec(cf_results *r, const char *name, int create);
/* Free the arrays of rec (sweep, fit path, series, map); keeps its name. */
void cf_res_rec_clear(cf_res_rec *rec);
/* Copy the descriptors (name, file, meta, rho, S, V, dt, frames) of in. */
void cf_res_rec_describe(cf_res_rec *rec, const cf_fit_input *in);
/* Replace rec's sweep / sensitivity with the grid and result given. */
int cf_res_set_sweep(cf_res_rec *rec, const cf_sweep_options *o, const cf_sweep_result *sr, double dt);
int cf_res_set_sens(cf_res_rec *rec, const char *kind, double at_delta, double at_alpha, const cf_sweep_options *o,
                    const cf_sweep_result *sr);
/* Replace rec's per-frame series with fe[T] at (delta, alpha). */
int cf_res_set_series(cf_res_rec *rec, const cf_frame_error *fe, int T, double dt, double delta, double alpha);
/* The optimum of rec: the refined one if any, else the sweep's best point;
 * 0 if neither. */
int cf_res_optimum(const cf_res_rec *rec, double *delta, double *alpha, double *e, double *s);
/* The model settings of that optimum (the fit's, else the sweep's). */
const cf_res_model *cf_res_optimum_model(const cf_res_rec *rec);
/* The model settings of in (its fixed kappa, beta and base tol); the
 * defaults (cf_params_default: kappa = beta = 0, tol 1e-3), which are also
 * what parts of files written before the settings were recorded get. */
cf_res_model cf_res_model_of(const cf_fit_input *in);
cf_res_model cf_res_model_default(void);
int cf_res_model_equal(const cf_res_model *a, const cf_res_model *b);
void cf_res_regression_clear(cf_res_regression *g);
/* Provenance of this run: version, revision, host, start time, command. */
void cf_results_stamp(cf_results *r, int argc, char **argv, int workers, const char *config_text);

/* The current time as ISO 8601 UTC ("2024-01-31T12:00:00Z"). */
void cf_iso_time_now(char *buf, size_t size);
/* Read a results file (CF_EIO if missing or unreadable, CF_EFORMAT if not
 * a results file). */
int cf_results_read(const char *path, cf_results *r, cf_error *err);
/* Read path into r if it exists, else leave r empty (freshly initialized). */
int cf_results_read_or_new(const char *path, cf_results *r, cf_error *err);
/* Write atomically (fills the end time). */
int cf_results_write(const char *path, cf_results *r, cf_error *err);

#ifdef __cplusplus
}
#endif
#endif
