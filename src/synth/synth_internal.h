/* synth_internal.h — shared pieces of `clothfit synth` (synth_rng.c: random
 * numbers; synth_cfg.c: the config; synth.c: motion, simulation, sampling;
 * synth_marks.c: noise, gaps, fragments, ghosts; synth_camera.c: the depth
 * camera; synth_files.c, synth_write.c and synth_write_camera.c: the output
 * files) and the Motive writer's stream function.  Not part of the public
 * API. */
#ifndef CF_SYNTH_INTERNAL_H
#define CF_SYNTH_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "cf_synth.h"

/* Deterministic random numbers (splitmix64), one stream per purpose so that
 * changing e.g. the noise leaves the gaps alone (synth_rng.c). */
typedef struct {
  uint64_t s;
} sy_rng;
enum { SY_MOTION = 1, SY_NOISE, SY_GAPS, SY_FRAGMENTS, SY_GHOSTS, SY_STICK, SY_STICK_NOISE, SY_STICK_GAPS,
       SY_CAMERA_TIMES, SY_CAMERA_MESH, SY_CLOUD = 1000 /* + the frame counter */ };
void sy_rng_init(sy_rng *g, unsigned long seed, int stream);
double sy_uniform(sy_rng *g);  /* [0, 1) */
double sy_normal(sy_rng *g);   /* standard normal */
double sy_exponential(sy_rng *g, double mean);

/* Noise, gaps, fragments and ghosts on r->truth: fills r->meas, r->gaps,
 * r->tracks (synth_marks.c). */
int sy_corrupt(const cf_synth_config *c, cf_synth_result *r, cf_error *err);

/* The camera's timestamps and drops: r->time, r->frame, r->n_frames,
 * r->drops (synth_camera.c). */
int sy_camera_times(const cf_synth_config *c, cf_synth_result *r);
/* The registered mesh with depth noise: r->meas from r->truth. */
int sy_camera_mesh(const cf_synth_config *c, cf_synth_result *r, cf_error *err);

/* motion = hitting: the stick's endpoint tracks t[0], t[1] (allocated by
 * the caller, named) from r->stick (synth_stick.c). */
int sy_stick_tracks(const cf_synth_config *c, cf_synth_result *r, cf_synth_track *t[2]);

/* The [truth] section's model parameters and simulation mesh (both
 * writers; synth_files.c). */
void sy_truth_params(FILE *f, const cf_synth_config *c, const cf_synth_result *r);

/* Output files written together (synth_files.c): sy_files_open opens
 * o[i].path (set by the caller) under temporary names (o[i].f NULL after
 * a failure); sy_files_close closes them; sy_files_commit renames them
 * into place if ok, else removes them.  Both return ok, 0 after an error
 * (named in err). */
typedef struct {
  char path[4200], tmp[4300];
  FILE *f;
} sy_out_file;
int sy_files_open(sy_out_file *o, int n, cf_error *err);
int sy_files_close(sy_out_file *o, int n, int ok, cf_error *err);
int sy_files_commit(sy_out_file *o, int n, int ok, cf_error *err);

/* Default speed targets and shake amplitudes. */
double sy_target_speed(const cf_synth_config *c);

#endif
