/* cf_io_recording.h — a recording in memory and in HDF5, and its marker lattice.
 * Part of the API of cf_io.h (see it for the folder's conventions:
 * errors, ownership, atomic writes). */
#ifndef CF_IO_RECORDING_H
#define CF_IO_RECORDING_H

#include <stddef.h>
#include <stdio.h>
#include "cf_common.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ------------------------------------------------ the HDF5 recording */
/* The HDF5 recording layout of docs/design.md §6 (/, /meta, /time,
 * /markers, /quality, /source).  Writing is atomic and fills r->created. */
int cf_recording_write_h5(const char *path, cf_recording *r, cf_error *err);
int cf_recording_read_h5(const char *path, cf_recording *r, cf_error *err);

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

#ifdef __cplusplus
}
#endif
#endif
