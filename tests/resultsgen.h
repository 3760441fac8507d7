/* resultsgen.h — results files made with the library's writer
 * (cf_results_write) for the report's tests and bench: no simulation, the
 * values are chosen here. */
#ifndef CF_RESULTSGEN_H
#define CF_RESULTSGEN_H

#include "cf_io.h"

/* The small study of test_report (its comment describes it): four
 * recordings, a regression with the formula's per-recording errors.
 * 0, or non-zero with a message on stderr. */
int cf_test_results_small(const char *path);
/* The same, read back into *back (cf_results_read; free it). */
int cf_test_results_small_read(const char *path, cf_results *back);

/* A study of n recordings (material x size x motion x speed x repetition,
 * cycled like datasets/aero-mini: S, V and rho as a real study has them),
 * each with an nd x na sweep (a few failed and pruned points), a refined
 * fit, a per-frame series of T frames, a sensitivity map of 9 x 9 when
 * sens is set, the recorded and simulated markers behind the series when
 * markers is set (the lattices of datasets/aero-mini: A2 5 x 4, A3 4 x 3);
 * a regression over every recording. */
int cf_test_results_study(const char *path, int n, int T, int nd, int na, int sens, int markers);

#endif
