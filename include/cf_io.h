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

/* The parts, by concern: */
#include "cf_io_files.h"  /* small text inputs, HDF5 trajectories and atomic writes */
#include "cf_io_recording.h"  /* a recording in memory and in HDF5, and its marker lattice */
#include "cf_io_exports.h"  /* the readers and writers of exports: Motive CSV, generic CSV, mesh sequences, point clouds */
#include "cf_io_results.h"  /* the results record: sweeps, fits, series, maps, comparisons, regressions */
#include "cf_io_results_file.h"  /* results records read, written and queried */
#include "cf_io_journal.h"  /* task journals: the crash-safe progress of sweeps and studies */

#endif
