/* cf_fit.h — the public API of src/fit: simulate a cloth driven by a
 * recording, measure how far it is from the recorded cloth (docs/design.md §7),
 * and
 * (in the modules built on this) fit the parameters.
 *
 * Why it looks like this
 * ----------------------
 * - src/fit never reads files: a recording arrives as a cf_fit_target, plain
 *   arrays that src/io (or a test) fills in.  This keeps the fitting code
 *   testable on synthetic data and re-entrant (sweeps run many targets and
 *   parameter points concurrently, one cf_sim each).
 * - Errors are reported in centimetres, as in the thesis tables; positions
 *   are metres.
 * - Missing markers (NaN) are excluded from the errors of the frames where
 *   they are missing (Remark 4.2.3); controlled corners must have no gaps
 *   (ingestion interpolates them, docs/design.md §6).
 */
#ifndef CF_FIT_H
#define CF_FIT_H

/* The parts, by concern: */
#include "cf_fit_target.h"  /* progress, metrics and point clouds of a fit target */
#include "cf_fit_driven.h"  /* the simulation driven by a recording, its evaluation and its sensitivities */
#include "cf_fit_sweep.h"  /* grid sweeps and their distribution over processes */
#include "cf_fit_search.h"  /* the searches of a fit: Nelder-Mead, trust region, polish, model comparison */
#include "cf_fit_confidence.h"  /* how sure a fit is, and whether the cloth stretches */
#include "cf_fit_regress.h"  /* the a-priori formulas (4.6)-(4.7) and their regression */

#endif
