/* cf_synth.h — the public API of src/synth: synthetic recordings that
 * behave like real ones (docs/design.md §11), for tests, demos and the bundled
 * dataset.
 *
 * It runs the simulator (src/sim) on a mesh finer than the fitting mesh and
 * writes what a motion-capture system would have exported (src/io's Motive
 * writer) with a ground-truth sidecar: it sits beside the fitting code in
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
  int twist, tablecloth, hitting;
  double lower, shift, lay, drag, drag_period; /* tablecloth: m, m, s, m, s */
  double amp, freq, ramp, mod;     /* m or rad, Hz, s, relative */
  double centre[3];                /* twist axis through this point */
  double nu[3][3], ph[3][3], w[3][3]; /* smooth random modulations: amplitude, rate, vertical */
} cf_synth_motion;
void cf_synth_motion_init(cf_synth_motion *m, const cf_synth_config *c, double rate_scale);
void cf_synth_motion_eval(const cf_synth_motion *m, double t, int n, const double *x0, double *out);
/* Density of a Table 4.1 material (kg/m^2), NaN if unknown. */
double cf_material_density(const char *material);

#ifdef __cplusplus
}
#endif
#endif
