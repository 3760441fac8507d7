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

#ifdef __cplusplus
}
#endif
#endif
