/* markers_synth.h — synthetic motion-capture recordings for the marker
 * processing tests: a hanging sheet with a rows x cols marker lattice
 * (0.14 m across, 0.1485 m down: an A2 sheet for 5x4), swaying and turning
 * smoothly, from which label tracks are cut (fragments, occlusions), plus
 * ghosts, in a shuffled marker order. */
#ifndef CF_MARKERS_SYNTH_H
#define CF_MARKERS_SYNTH_H

#include "cf_io.h"

typedef struct {
  int rows, cols, T;
  double dt;
  double tilt, yaw;  /* in-plane rotation of the lattice, rotation about z (rad) at t = 0 */
  double motion;     /* 0: still (frame 0 forever), 1: sway, turn and bulge */
  double *truth;     /* [T][rows*cols][3], cell r*cols + c */
} synth_sheet;

void synth_sheet_make(synth_sheet *s, int rows, int cols, int T, double dt, double tilt, double yaw, double motion);
void synth_sheet_free(synth_sheet *s);
static inline const double *synth_at(const synth_sheet *s, int i, int cell) {
  return s->truth + 3 * ((size_t)i * s->rows * s->cols + cell);
}

/* A recording of T frames (times i dt) with n labels, all missing, in the
 * order perm[] (perm[label] = marker index; NULL: identity). */
void synth_recording(cf_recording *r, const synth_sheet *s, int n, char *const *labels, const int *perm);
/* Copy the sheet's cell track over frames [i0, i1) into marker k. */
void synth_put(cf_recording *r, const synth_sheet *s, int k, int cell, int i0, int i1);
/* A random permutation of 0..n-1 (cf_test_rand). */
void synth_shuffle(int *perm, int n, unsigned long long *seed);
#endif
