/* cf_synth.h — the public API of src/synth: synthetic recordings that
 * behave like real ones (docs/design.md §11), for tests, demos and the bundled
 * datasets.
 *
 * It runs the simulator (src/sim) on a mesh finer than the fitting mesh and
 * writes what a motion-capture system would have exported (src/io's Motive
 * writer), or what a depth camera gives (a registered mesh and point clouds,
 * src/io's OBJ and PLY writers), with a ground-truth sidecar: it sits beside the fitting code in
 * the data flow, producing files for the bottom of it.  Conventions
 * (errors, ownership) as stated in cf_io.h. */
#ifndef CF_SYNTH_H
#define CF_SYNTH_H

#include "cf_io.h"
#include "cf_sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------- synthetic recordings */
/* `clothfit synth` (docs/design.md §11): a cloth simulated on a mesh finer
 * than the fitting mesh (each lattice cell split refine x refine) with small
 * kappa, beta > 0, driven at its two top corners by a human-like motion
 * (shake: back and forth across the sheet's plane; twist: about +-30 degrees
 * about the vertical through the top edge's midpoint; slowly varying
 * amplitude and rate, seeded; speed scaled to a target average marker speed),
 * the marker lattice sampled at `rate` Hz, with Gaussian noise, occlusion
 * gaps, label fragments and ghost markers, written as a Motive 1.23 CSV with
 * a ground-truth sidecar.  Every key: datasets/aero-mini/synth-keys.ini. */
typedef struct {
  char material[64], size[32], motion[16], speed[16], repetition[16];
  double width, height;        /* m (from size) */
  int rows, cols;              /* marker lattice (A2 5x4, A3 4x3) */
  double density, delta, alpha, kappa, beta; /* kg/m^2 ...; NaN = from the tables */
  char model[32];              /* the cloth model (cf_cloth_model_name; "inextensible") */
  double k_stretch, k_shear, k_bend; /* its stiffnesses, N/m (cf_params_default's) */
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
  /* motion = tablecloth (thesis §4.3.1): a table below the hanging cloth,
   * its top face table_drop below the cloth's lowest edge at rest; from
   * frame 0 the hands lower by L = table_drop + 0.4 height while moving by
   * L + 5 cm towards -y over lay_time (smoothstep), laying the lower part on
   * the table under tension, then drag it: they move drag further towards
   * -y over drag_period (smoothstep) and hold.  The table spans x in
   * [-1, 1] m, y in [-1, 0.3] m. */
  double table_mu;             /* the cloth's friction on the table (0.5) */
  double table_drop, lay_time; /* m (0.10), s (1.5) */
  double drag, drag_period;    /* m (0.3), s (2) */
  /* motion = hitting (thesis §4.3.2): the top corners are held still and a
   * stick (stick_length long, stick_radius thick, horizontal but tilted by
   * up to 20 degrees in the sheet's plane) hits the hanging cloth `hits`
   * times, at seeded heights (30-75 % of the height below the top),
   * sideways offsets and depths (60-100 % of hit_depth beyond the sheet's
   * plane), spread evenly over the recording: each hit swings it from
   * stick_rest in front of the sheet (-y) to its depth and back in
   * hit_time (sin^2 in time: 2.3 m/s at the defaults); between hits it
   * moves smoothly at rest to the next hit's place.  Its endpoint markers
   * StickA and StickB are exported like the cloth's (noise, short gaps),
   * and OUT.meta.ini names them as the stick. */
  int hits;                    /* (4) */
  double stick_length, stick_radius; /* m (0.75, 0.0075: the thesis' stick) */
  double hit_depth, hit_time, stick_rest; /* m (0.12), s (0.5), m (0.25) */
  /* motion = wam (thesis §4.1.1, eq. (4.1)): a robot's hanger holds the two
   * top corners and moves them along the camera's depth axis (y),
   * y(t) = A cos(2 pi f (t - still_before)) + c with c = -A (the sheet hangs
   * in y = 0 when still), for duration - still_before - still_after
   * seconds; still before and after.  No ramp, modulation or calibration:
   * amplitude (0: slow 0.15, fast 0.075 m) and frequency (0: slow 0.3,
   * fast 0.6 Hz) are the thesis'. */
  double frequency;            /* Hz (0: by speed) */
  double still_before, still_after; /* s (1, 3) */
  /* output = meshes | clouds | both: a depth camera on the -y axis
   * (design.md §11): the registered mesh (mesh[0] x mesh[1] nodes, the
   * lattice the fine mesh refines) and point clouds of the side it sees, at
   * irregular timestamps with dropped frames. */
  char output[16];             /* markers | meshes | clouds | both (markers) */
  int mesh[2];                 /* registered mesh rows x cols (9x9) */
  double cam_rate, jitter;     /* Hz (30), s: standard deviation of a timestamp (0.003) */
  double drop_rate;            /* dropped runs per second (0.25) ... */
  int drop_min, drop_max;      /* ... of this many frames (2, 5) */
  double distance;             /* m: the camera's distance from the plane y = 0 (1.2) */
  int pixels[2];               /* image width x height (200x150) */
  double fov;                  /* degrees, horizontal field of view (57) */
  double mesh_noise;           /* m: standard deviation along y of a mesh node (0.002) */
  double mesh_noise_across;    /* m: ... along x and z, the image plane (0: none, the default) */
  double depth_noise;          /* 1/m: a point's depth standard deviation is this x depth^2 (1.5e-3) */
  double outliers;             /* fraction of extra points: flying pixels and far points (0.015) */
  char cloud_format[8];        /* binary | ascii PLY (binary) */
  int mesh_decimals;           /* of the OBJ coordinates in m (5) */
  double track_rate;           /* Hz of the held corners' CSV (120) */
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
  double *stick;               /* [T*6] motion = hitting: the stick's true endpoints, else NULL */
  /* camera outputs (c->output != markers): truth and meas are the lattice
   * nodes (the registered mesh, meas with depth noise, no NaN), time the
   * camera's irregular timestamps */
  int n_fine;                  /* nodes of the simulation mesh */
  double *fine;                /* [T*n_fine*3] the simulation's nodes at the frames, else NULL */
  int *frame;                  /* [T] the camera's frame counter (a drop skips numbers), else NULL */
  int n_drops;
  cf_synth_gap *drops;         /* dropped runs: cell -1, first counter, n frames */
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
 * without ".csv".  Camera outputs: cf_synth_write_camera's files. */
int cf_synth_write(const char *csv_path, const cf_synth_config *c, const cf_synth_result *r, cf_error *err);

/* The pieces, for tests: the simulation mesh (node (i, j) = j*nx + i, row
 * ny-1 on top, hanging in the plane y = 0 centred on x = 0) with its two
 * kinematic top corners kin[2]; the node of lattice marker (r, c); the
 * corner motion with a rate scale, evaluated at t (the simulation starts
 * at rest at -preroll; the motion at t > 0) for n nodes at initial
 * positions x0 [n*3] into out [n*3]. */
cf_mesh *cf_synth_mesh(const cf_synth_config *c, int kin[2]);
int cf_synth_marker_node(const cf_synth_config *c, int r, int col);
/* motion = tablecloth: 1 and its table as an obstacle (friction table_mu)
 * into *o; 0 for the other motions.  The table's top face is at
 * table[0], spanning x in table[1]..table[2], y in table[3]..table[4]
 * (table may be NULL). */
int cf_synth_table(const cf_synth_config *c, cf_obstacle *o, double table[5]);
/* motion = hitting: 1 and the stick's endpoints at recording time t
 * (t < 0: at rest before the first hit) into e[6]; 0 for the other
 * motions. */
int cf_synth_stick(const cf_synth_config *c, double t, double e[6]);
/* The simulation's initial state x [n*3]: the flat sheet (the rest metric)
 * bent isometrically about the vertical into a circular arc whose chord is
 * (1 - slack) x width, bulging towards +y (the hands hold it slack). */
void cf_synth_initial_state(const cf_synth_config *c, const cf_mesh *m, double *x);
typedef struct {
  int twist, tablecloth, hitting, wam;
  double start, stop;              /* wam: s, the hanger moves in [start, stop] */
  double lower, shift, lay, drag, drag_period; /* tablecloth: m, m, s, m, s */
  double amp, freq, ramp, mod;     /* m or rad, Hz, s, relative */
  double centre[3];                /* twist axis through this point */
  double nu[3][3], ph[3][3], w[3][3]; /* smooth random modulations: amplitude, rate, vertical */
} cf_synth_motion;
void cf_synth_motion_init(cf_synth_motion *m, const cf_synth_config *c, double rate_scale);
void cf_synth_motion_eval(const cf_synth_motion *m, double t, int n, const double *x0, double *out);
/* ------------------------------------------------- depth-camera outputs */
/* 1 if c writes camera outputs (meshes, clouds or both), 0 for markers. */
int cf_synth_camera_output(const cf_synth_config *c);
/* The camera's eye (design.md §11): on the -y axis at `distance` from the
 * plane y = 0, at the height of the resting sheet's centre, looking +y,
 * x to the right and z up in its image. */
void cf_synth_camera_eye(const cf_synth_config *c, double eye[3]);
/* One depth image of the cloth: kinds of points. */
enum { CF_CLOUD_SURFACE = 0, CF_CLOUD_FLYING = 1, CF_CLOUD_FAR = 2 };
typedef struct {
  int n, n_surface, n_flying, n_far;
  double *p;                   /* [n*3] m, z up, in the image's row order */
  unsigned char *kind;         /* [n] CF_CLOUD_* */
} cf_synth_cloud;
/* The cloud a depth camera sees of mesh m (its elements, triangles or
 * quads split in two) at node positions x [n_nodes*3]: one ray per pixel
 * through a random point of the pixel, the nearest hit (so a fold hides
 * what is behind it), its depth perturbed by N(0, (depth_noise d^2)^2)
 * along the ray, plus flying pixels behind silhouette and fold edges and
 * far random points (outliers/2 each).  `key` seeds the frame (the
 * camera's frame counter): the same key gives the same cloud. */
int cf_synth_cloud_render(const cf_synth_config *c, const cf_mesh *m, const double *x, int key, cf_synth_cloud *out,
                          cf_error *err);
void cf_synth_cloud_free(cf_synth_cloud *cl);
/* The faces of the registered rows x cols mesh: quads (r, c), (r+1, c),
 * (r+1, c+1), (r, c+1) of node r*cols + c (row 0 on top), counter-clockwise
 * seen from the camera; [(rows-1)*(cols-1)*4], malloc'ed. */
int *cf_synth_mesh_faces(int rows, int cols);
/* Write a camera recording (design.md §11): OUT.meshes/, OUT.clouds/,
 * OUT.corners.csv, OUT.truth.ini, OUT.meta.ini; all or none.  OUT = stem
 * without ".csv". */
int cf_synth_write_camera(const char *stem, const cf_synth_config *c, const cf_synth_result *r, cf_error *err);

/* Density of a Table 4.1 material (kg/m^2), NaN if unknown. */
double cf_material_density(const char *material);

#ifdef __cplusplus
}
#endif
#endif
