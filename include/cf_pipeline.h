/* cf_pipeline.h — the steps of a fit and of a study, for any program that
 * links the library: load recordings with the model settings to simulate
 * them with, sweep a (delta, alpha[, mu]) grid, refine an optimum by
 * Nelder-Mead (with its polish and confidence checks), fit the a-priori
 * formulas, compare cloth models, and run the aerodynamics study of thesis
 * §4.2 on a dataset of Motive exports; each step fills the results record
 * (cf_results, src/io) that `clothfit` prints and writes.  The `clothfit`
 * commands (src/cli) are argument parsing and printing over this header.
 *
 * Why a folder of its own (docs/layers.md): the steps use src/recording
 * (the study ingests exports), src/fit (the solvers) and src/study (the
 * fit targets and the results records), and nothing of the command line.
 *
 * Conventions (those of cf_io.h): a function returns CF_OK or a CF_E* code
 * and fills the cf_error it gets (may be NULL) with one line naming the
 * recording or file and what went wrong; CF_ENOMEM when out of memory,
 * CF_EINVAL for settings or inputs that do not fit together, CF_EIO for
 * files, and the simulator's codes passed on.  Pointer arguments are
 * borrowed for the call unless said otherwise; records a function fills
 * (cf_res_rec, cf_results, cf_fit_input) stay the caller's and are released
 * by their _free / _clear.  Under mpirun every rank calls every function
 * alike (the simulations are spread over the ranks, rank 0 alone writes
 * files).  Nothing here prints: what a caller may show goes through
 * cf_pipeline_progress. */
#ifndef CF_PIPELINE_H
#define CF_PIPELINE_H

/* The parts, by concern: */
#include "cf_pipeline_base.h"  /* progress, grids, model settings, recordings, tasks and results of the pipeline */
#include "cf_pipeline_steps.h"  /* the steps of a fit */
#include "cf_pipeline_options.h"  /* the options of the commands as a library reads them, and the results' fields */
#include "cf_pipeline_commands.h"  /* one simulation, scenarios, ingestion, sweeps, sensitivity maps, comparisons, remeshing and predictions */
#include "cf_pipeline_study.h"  /* whole studies and experiments */

#endif
